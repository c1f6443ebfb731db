/* bench/wino: forward evaluations per CPU-second of b6c96 networks with
 * the 3x3 convolutions as im2col + sgemm against Winograd F(4x4,3x3)
 * (lib/nn/wino.h), and, where the CPU has AMX-BF16 (bf16.h) or AMX-INT8
 * (int8.h), against im2col in bfloat16 (--precision bf16) and in 8-bit
 * integers (--precision int8), at gt-selfplay's batch (16, its
 * default games in flight per thread), one BLAS thread: KataGo's g170
 * b6c96 (found in $GT_KATAGO_DATA or $GT_SRC/../shared/data/katago;
 * skipped if absent) and gt's own b6c96. The ways alternate in windows of
 * CPU time of the process (the machine is shared: CPU time is not
 * inflated by other processes), 3 rounds, each round starting with
 * another way; each line gives min/median/max positions per CPU-second
 * and the ratios of the medians (bf16 and int8 against the faster
 * float32 way, the one gt-selfplay takes at this batch, and int8 against
 * bf16).
 *   bench/wino [--window S] [--sizes A-B] [--batch B]
 * (defaults 1 s, sizes 9, 13 and 19, batch 16); --sizes 2-19 measures
 * every size, the measurement behind gt_conv_winograd's choice. */
#include "bench.h"
#include "katago.h"
#include "model.h"
#include "bf16.h"
#include "int8.h"
#include "nn.h"
#include "wino.h"
#include "../tests/unit/nn_batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NET "g170-b6c96-s175395328-d26788732.bin.gz"

static double window = 1.0;

/* positions per CPU-second of forwards of d on net (kata: a gt_kata) over
 * one window */
static double rate(int kata, void *net, const nn_batch *d)
{
	int k = 0;
	double t0 = cpu_process(), dt;
	do {
		if (kata)
			gt_kata_forward(net, d->B, d->n, d->planes, d->glob, NULL);
		else
			nn_batch_forward(net, d, 0, NULL);
		k++;
	} while ((dt = cpu_process() - t0) < window);
	return (double)k * d->B / dt;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

#define WAYS 4
static const char *way[WAYS] = {"im2col", "winograd", "bf16", "int8"};
static int have[WAYS] = {1, 1, 0, 0}; /* the ways this CPU runs */

/* net[m] the way way[m] (those in have) on n x n batch B, inputs for
 * arch a */
static void compare(const char *name, int kata, void *net[WAYS], const gt_arch *a, int n, int B)
{
	static uint64_t rs = 1;
	nn_batch d;
	nn_batch_make(&d, a, B, n, &rs);
	double r[WAYS][3];
	int ms[WAYS], nw = 0;
	for (int m = 0; m < WAYS; m++)
		if (have[m])
			ms[nw++] = m;
	for (int i = 0; i < nw; i++) /* warm up: buffers, transformed filters */
		rate(kata, net[ms[i]], &d);
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < nw; i++) {
			int m = ms[(i + round) % nw];
			r[m][round] = rate(kata, net[m], &d);
		}
	for (int i = 0; i < nw; i++)
		qsort(r[ms[i]], 3, sizeof(double), cmp);
	printf("wino: %s %2dx%-2d batch %d: im2col %.0f/%.0f/%.0f, winograd %.0f/%.0f/%.0f "
	       "positions/CPU-s (min/median/max of 3): winograd/im2col %.2f\n", name, n, n, B,
	       r[0][0], r[0][1], r[0][2], r[1][0], r[1][1], r[1][2], r[1][1] / r[0][1]);
	double f32 = r[0][1] > r[1][1] ? r[0][1] : r[1][1];
	for (int m = 2; m < WAYS; m++)
		if (have[m])
			printf("wino: %s %2dx%-2d batch %d: %s %.0f/%.0f/%.0f positions/CPU-s: "
			       "%s/im2col %.2f, %s/winograd %.2f, %s/fp32 %.2f\n", name, n, n, B,
			       way[m], r[m][0], r[m][1], r[m][2], way[m], r[m][1] / r[0][1], way[m],
			       r[m][1] / r[1][1], way[m], r[m][1] / f32);
	if (have[2] && have[3])
		printf("wino: %s %2dx%-2d batch %d: int8/bf16 %.2f\n", name, n, n, B,
		       r[3][1] / r[2][1]);
	fflush(stdout);
	nn_batch_free(&d);
}

int main(int argc, char **argv)
{
	int lo = 0, hi = 0, B = 16;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--window"))
			window = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--sizes"))
			sscanf(argv[i + 1], "%d-%d", &lo, &hi);
		else if (!strcmp(argv[i], "--batch"))
			B = atoi(argv[i + 1]);
	}
	int sizes[19], ns = 0;
	if (lo >= 2 && hi <= 19 && lo <= hi)
		for (int n = lo; n <= hi; n++)
			sizes[ns++] = n;
	else
		sizes[0] = 9, sizes[1] = 13, sizes[2] = 19, ns = 3;
	gt_nn_set_threads(1);
	gt_error e;
	gt_arch a;

	const char *why;
	if (!(have[2] = gt_bf16_available(&why)))
		printf("wino: bf16: %s: skipped\n", why);
	if (!(have[3] = gt_int8_available(&why)))
		printf("wino: int8: %s: skipped\n", why);
	static const int prec[WAYS] = {GT_PREC_FP32, GT_PREC_FP32, GT_PREC_BF16, GT_PREC_INT8};

	/* KataGo's b6c96, read once per way (GT_CONV is read at gt_kata_read) */
	char path[4200];
	bench_katago_path(path, sizeof path, NET);
	gt_kata *k[WAYS] = {NULL, NULL, NULL, NULL};
	int rc = 0;
	for (int m = 0; m < WAYS && rc == 0; m++) {
		if (!have[m])
			continue;
		setenv("GT_CONV", m == 1 ? "winograd" : "im2col", 1);
		rc = gt_kata_read(path, &k[m], &e);
		if (rc == 0)
			gt_kata_precision(k[m], prec[m], NULL);
	}
	if (rc == 0) {
		const gt_kata_info *in = gt_kata_info_of(k[0]);
		gt_arch_default(&a, 6, 96, in->in_planes, in->globals, 1);
		for (int i = 0; i < ns; i++)
			compare("KataGo g170 b6c96", 1, (void **)k, &a, sizes[i], B);
	} else {
		printf("wino: KataGo network: %s: skipped\n", e.text);
	}
	for (int m = 0; m < WAYS; m++)
		gt_kata_free(k[m]);

	/* gt's b6c96 with random weights (speed does not depend on them) */
	gt_model_parse_arch("b6c96", &a, &e);
	gt_nn *nn[WAYS] = {NULL, NULL, NULL, NULL};
	for (int m = 0; m < WAYS; m++) {
		if (!have[m])
			continue;
		setenv("GT_CONV", m == 1 ? "winograd" : "im2col", 1);
		nn[m] = gt_nn_new(&a, "cpu", &e);
		gt_arch_init_params(&a, gt_nn_params(nn[m]), 1);
		gt_nn_sync_params(nn[m]);
		gt_nn_precision(nn[m], prec[m], NULL);
	}
	unsetenv("GT_CONV");
	for (int i = 0; i < ns; i++)
		compare("gt b6c96", 0, (void **)nn, &a, sizes[i], B);
	for (int m = 0; m < WAYS; m++)
		if (nn[m])
			gt_nn_free(nn[m]);
	return 0;
}
