/*
 * shard: training rows per second through lib/shard (replay, features,
 * packing, shuffle, deflate, fsync'd shards) and the window sampler's rows
 * per second unpacked into float NCHW batches with random symmetries;
 * the reference is memcpy of the same float bytes, measured in the same
 * run. Records are synthetic (no JSON parsing: bench/shard.sh times the
 * whole command).
 * Usage: shard [seconds-per-measure]
 */
#include "bench.h"
#include "board.h"
#include "util.h"
#include "gt.h"
#include "shard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* a legal game of n x n: stones on the points with even x and y, in a
 * seeded order, then two passes; every position searched */
static void make_game(gt_record *r, int n, uint64_t *s, int16_t *moves, gt_position *pos,
                      float *pol, float *own)
{
	int np = n * n, k = 0;
	int16_t pts[GT_MAX_PTS];
	for (int p = 0; p < np; p++)
		if ((p % n) % 2 == 0 && (p / n) % 2 == 0)
			pts[k++] = (int16_t)p;
	for (int i = k - 1; i > 0; i--) {
		*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
		int j = (int)((*s >> 33) % (uint64_t)(i + 1));
		int16_t t = pts[i];
		pts[i] = pts[j];
		pts[j] = t;
	}
	memset(r, 0, sizeof *r);
	snprintf(r->rules, sizeof r->rules, "chinese");
	r->board_size = n;
	r->komi = 7.5;
	r->nmoves = k + 2;
	memcpy(moves, pts, k * sizeof *moves);
	moves[k] = moves[k + 1] = (int16_t)np;
	r->moves = moves;
	r->winner = GT_WIN_BLACK;
	r->score = 2.5;
	for (int p = 0; p < np; p++)
		own[p] = (p & 1) ? 1.0f : -1.0f;
	r->ownership = own;
	for (int j = 0; j < r->nmoves; j++) {
		float *pj = pol + (size_t)j * (np + 1);
		for (int p = 0; p <= np; p++) {
			*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
			pj[p] = ((*s >> 40) % 8 == 0) ? 1.0f / 64 : 0.0f;
		}
		pos[j] = (gt_position){j, j % 2 ? GT_WHITE : GT_BLACK, pj, j % 2 ? -1.0f : 1.0f,
		                       j % 2 ? -2.5f : 2.5f, 400, 1, 1.0f, 0, 0, 0};
	}
	r->npos = r->nmoves;
	r->pos = pos;
}

static void bench_size(int n, double secs, const char *dir)
{
	int np = n * n;
	static int16_t moves[GT_MAX_PTS + 2];
	static gt_position pos[GT_MAX_PTS + 2];
	float *pol = malloc(sizeof(float) * (GT_MAX_PTS + 2) * (GT_MAX_PTS + 1));
	float own[GT_MAX_PTS];
	char out[512];
	snprintf(out, sizeof out, "%s/d%d", dir, n);
	gt_shard_opts o;
	gt_shard_opts_init(&o);
	o.rows = 10000;
	gt_error e;
	gt_shard_writer *w = gt_shard_writer_new(out, &o, &e);
	if (!w) {
		fprintf(stderr, "shard: %s\n", e.text);
		exit(1);
	}
	uint64_t s = 1;
	gt_record r;
	double t0 = gt_now(), t;
	long games = 0;
	do {
		make_game(&r, n, &s, moves, pos, pol, own);
		if (gt_shard_add_record(w, &r, &e)) {
			fprintf(stderr, "shard: %s\n", e.text);
			exit(1);
		}
		games++;
		t = gt_now();
	} while (t - t0 < secs || gt_shard_writer_stats(w)->rows + gt_shard_writer_stats(w)->pending < 20000);
	gt_shard_flush(w, &e);
	t = gt_now() - t0;
	const gt_shard_stats *st = gt_shard_writer_stats(w);
	printf("%2dx%-2d write:  %8.0f rows/s (%ld rows, %ld shards, %.1f s; replay, features, pack, "
	       "shuffle, deflate level 1, fsync)\n",
	       n, n, st->rows / t, st->rows, st->shards, t);
	gt_shard_writer_free(w);

	gt_shard_window *win = gt_shard_window_open(out, 20000, n, 1, &e);
	if (!win) {
		fprintf(stderr, "shard: %s\n", e.text);
		exit(1);
	}
	gt_shard_window_info in;
	gt_shard_window_get_info(win, &in);
	enum { B = 256 };
	int C = in.nplanes, G = in.nglobals;
	gt_shard_batch b = {
		malloc(sizeof(float) * B * C * np), malloc(sizeof(float) * B * (G ? G : 1)),
		malloc(sizeof(float) * B * (np + 1)), malloc(sizeof(float) * B),
		malloc(sizeof(float) * B), malloc(sizeof(float) * B * np), malloc(sizeof(float) * B),
		malloc(sizeof(float) * B), NULL, NULL, NULL, NULL,
	};
	long rows = 0;
	t0 = gt_now();
	do {
		gt_shard_window_sample(win, B, &b);
		rows += B;
		t = gt_now();
	} while (t - t0 < secs);
	double sample = rows / (t - t0);
	/* reference: copying the same float bytes per row */
	size_t rowbytes = sizeof(float) * ((size_t)C * np + G + (np + 1) + np + 4);
	char *src = malloc(rowbytes * B), *dst = malloc(rowbytes * B);
	memset(src, 1, rowbytes * B);
	long crow = 0;
	t0 = gt_now();
	do {
		for (int i = 0; i < B; i++)
			memcpy(dst + i * rowbytes, src + ((size_t)(crow + i * 7) % B) * rowbytes, rowbytes);
		crow += B;
		t = gt_now();
	} while (t - t0 < secs / 2);
	double ref = crow / (t - t0);
	printf("%2dx%-2d sample: %8.0f rows/s (batch %d, %d planes, window %ld rows, %.1f MB "
	       "packed); memcpy of the floats %.0f rows/s, ratio %.2f\n",
	       n, n, sample, B, C, in.rows,
	       in.rows * ((double)C * ((np + 7) / 8) + 4.0 * (G + 2 * np + 5)) / 1e6, ref, sample / ref);
	free(src), free(dst);
	free(b.planes), free(b.globals), free(b.policy), free(b.value), free(b.score);
	free(b.ownership), free(b.ownership_mask), free(b.weight);
	gt_shard_window_free(win);
	free(pol);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	char dir[256];
	if (bench_tmpdir(dir, sizeof dir, "shard") != 0)
		return 1;
	printf("features: version %d, %d planes, %d globals\n", gt_shard_encoder_default()->version,
	       gt_shard_encoder_default()->nplanes, gt_shard_encoder_default()->nglobals);
	bench_size(9, secs, dir);
	bench_size(19, secs, dir);
	return bench_rmdir(dir);
}
