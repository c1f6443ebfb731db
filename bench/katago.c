/* bench/katago: KataGo's g170 b6c96 network in gt (make bench): forward
 * positions per CPU-second at batch 1 and 16 on 9x9 and 19x19, and the
 * cost of KataGo's input features (ladder searches, pass-alive area) per
 * position; the reference, measured in the same run, is gt's own network
 * of the same size (b6c96) on the same batches. One BLAS thread, CPU time
 * of this thread, best of 3 windows (the machine is shared). The network
 * is found in $GT_KATAGO_DATA or $GT_SRC/../shared/data/katago. */
#include "bench.h"
#include "board.h"
#include "feat.h"
#include "katafeat.h"
#include "katago.h"
#include "model.h"
#include "nn.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NET "g170-b6c96-s175395328-d26788732.bin.gz"

/* boards of a game of random legal moves, n*n/2 moves in */
static void make_boards(int n, int B, gt_board *bs)
{
	gt_rng r;
	gt_rng_seed(&r, 7);
	for (int i = 0; i < B; i++) {
		gt_board_init(&bs[i], n, gt_rules_find("chinese"), 7.5);
		for (int k = 0; k < n * n / 2 + i; k++) {
			int16_t mv[GT_MAX_PTS];
			int m = gt_board_legal_moves(&bs[i], bs[i].to_move, mv);
			int pt = m ? mv[gt_rng_below(&r, m)] : GT_PASS(n);
			gt_board_play(&bs[i], bs[i].to_move, pt);
		}
	}
}

static double best_rate(int kind, void *net, int B, int n, const float *pl, const float *gl)
{
	double best = 0;
	for (int w = 0; w < 3; w++) {
		int k = 0;
		double t0 = cpu_thread(), dt;
		do {
			if (kind == 0)
				gt_kata_forward(net, B, n, pl, gl, NULL);
			else
				gt_nn_forward(net, B, n, pl, gl, 0, NULL);
			k++;
		} while ((dt = cpu_thread() - t0) < 0.3);
		double r = (double)k * B / dt;
		best = r > best ? r : best;
	}
	return best;
}

int main(void)
{
	char path[4200];
	bench_katago_path(path, sizeof path, NET);
	gt_error e;
	gt_kata *k;
	if (gt_kata_read(path, &k, &e) != 0) {
		printf("katago: %s: skipped\n", e.text);
		return 0;
	}
	gt_nn_set_threads(1);
	gt_arch a;
	gt_arch_default(&a, 6, 96, GT_FEAT_PLANES, GT_FEAT_GLOBALS, GT_FEAT_VERSION);
	gt_model *m = gt_model_new_random(&a, 1, &e);
	gt_nn *nn = gt_model_nn(m, "cpu", &e);
	static gt_board bs[16];
	int sizes[] = {9, 19}, batches[] = {1, 16};
	for (int si = 0; si < 2; si++) {
		int n = sizes[si], N = n * n;
		make_boards(n, 16, bs);
		float *kp = gt_xmalloc(sizeof(float) * 16 * GT_KATAFEAT_PLANES * N);
		float *kg = gt_xmalloc(sizeof(float) * 16 * GT_KATAFEAT_GLOBALS);
		float *gp = gt_xmalloc(sizeof(float) * 16 * GT_FEAT_PLANES * N);
		float *gg = gt_xmalloc(sizeof(float) * 16 * GT_FEAT_GLOBALS);
		gt_katafeat_ws *ws = gt_katafeat_ws_new();
		double fk = 1e30, fg = 1e30;
		for (int w = 0; w < 3; w++) {
			int it = 0;
			double t0 = cpu_thread(), dt;
			do {
				for (int i = 0; i < 16; i++)
					gt_katafeat_encode(&bs[i], -1, -1, ws, kp + (size_t)i * GT_KATAFEAT_PLANES * N,
					                   kg + (size_t)i * GT_KATAFEAT_GLOBALS);
				it++;
			} while ((dt = cpu_thread() - t0) < 0.2);
			fk = dt / (it * 16.0) < fk ? dt / (it * 16.0) : fk;
			it = 0;
			t0 = cpu_thread();
			do {
				for (int i = 0; i < 16; i++)
					gt_feat_encode(&bs[i], gp + (size_t)i * GT_FEAT_PLANES * N,
					               gg + (size_t)i * GT_FEAT_GLOBALS);
				it++;
			} while ((dt = cpu_thread() - t0) < 0.2);
			fg = dt / (it * 16.0) < fg ? dt / (it * 16.0) : fg;
		}
		printf("katago: %dx%d features: KataGo's %.1f us/position (gt's own %.1f us)\n", n, n,
		       fk * 1e6, fg * 1e6);
		for (int bi = 0; bi < 2; bi++) {
			int B = batches[bi];
			double rk = best_rate(0, k, B, n, kp, kg), rg = best_rate(1, nn, B, n, gp, gg);
			printf("katago: %dx%d batch %2d: b6c96 KataGo net %.0f positions/CPU-s, gt b6c96 %.0f "
			       "(ratio %.2f)\n", n, n, B, rk, rg, rk / rg);
		}
		gt_katafeat_ws_free(ws);
		free(kp), free(kg), free(gp), free(gg);
	}
	gt_nn_free(nn);
	gt_model_free(m);
	gt_kata_free(k);
	return 0;
}
