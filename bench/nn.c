/* bench/nn: throughput of the CPU network (make bench). Every figure is a
 * ratio against a reference measured in the same run: cblas_sgemm on the
 * GEMM shape of a block convolution, and PyTorch (bench/nn_torch.py) on
 * the same architecture, batch and threads. Peak RSS is measured first,
 * for one training step of b6c64 9x9 batch 256. Other engineers share the
 * CPU: the numbers are noisy; each figure is the best of 3 windows.
 * Training steps in mixed precision (nn.h gt_nn_train_precision bf16)
 * are measured beside float32's where the CPU has bfloat16.
 * `nn --train-bf16 [seconds]` measures only that: b6c64 9x9 batch 256,
 * one thread, samples per CPU-second of the process, float32 and bf16
 * windows alternating, 3 rounds, min/median/max of each and of the
 * ratio. */
#include "nn.h"
#include "nn_backend.h"
#include "model.h"
#include "optim.h"
#include "util.h"
#include "bench.h"
#include "../tests/unit/nn_batch.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double min_s = 0.25;

static uint64_t rs = 1; /* the batches' generator (nn_batch.h) */

/* positions per second of forwards over one window of about min_s/3;
 * *conv_s_per_pos: seconds per position in the block convolutions */
static double fwd_rate(gt_nn *nn, nn_batch *d, double *conv_s_per_pos)
{
	nn_batch_forward(nn, d, 0, NULL);
	nn->profile = 1;
	nn->prof_conv_s = 0;
	int k = 0;
	double t0 = gt_now(), dt;
	do {
		nn_batch_forward(nn, d, 0, NULL);
		k++;
	} while ((dt = gt_now() - t0) < min_s / 3);
	nn->profile = 0;
	if (conv_s_per_pos)
		*conv_s_per_pos = nn->prof_conv_s / ((double)k * d->B);
	return (double)k * d->B / dt;
}

/* training samples per second of clk (wall or CPU) over a window of at
 * least min_s and min_iters steps */
static double train_rate_clk(gt_nn *nn, gt_optim *opt, nn_batch *d, int min_iters,
                             double (*clk)(void))
{
	gt_nn_target t = nn_batch_target(d);
	int k = 0;
	double t0 = 0, dt;
	for (;;) {
		gt_nn_zero_grad(nn);
		nn_batch_forward(nn, d, 1, NULL);
		gt_nn_backward(nn, &t, NULL, NULL);
		gt_optim_step(opt, gt_nn_params(nn), gt_nn_grads(nn));
		gt_nn_sync_params(nn);
		if (k++ == 0) {
			t0 = clk();   /* first step allocates: not timed */
			continue;
		}
		dt = clk() - t0;
		if ((dt >= min_s && k - 1 >= min_iters) || dt > 30)
			return (double)(k - 1) * d->B / dt;
	}
}

static double train_rate(gt_nn *nn, gt_optim *opt, nn_batch *d, int min_iters)
{
	return train_rate_clk(nn, opt, d, min_iters, gt_now);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* --train-bf16: float32 against bfloat16 training steps, per CPU-second */
static int train_bf16(void)
{
	enum { R = 3 };
	gt_error e;
	gt_arch a;
	const char *why;
	gt_model_parse_arch("b6c64", &a, &e);
	gt_nn *nn = gt_nn_new(&a, "cpu", &e);
	gt_arch_init_params(&a, gt_nn_params(nn), 1);
	gt_optim_conf oc = gt_optim_defaults(GT_OPTIM_ADAMW);
	oc.lr = 1e-4f;
	gt_optim *opt = gt_optim_new(&oc, gt_nn_nparams(nn));
	nn_batch d;
	nn_batch_make(&d, &a, 256, 9, &rs);
	gt_nn_set_threads(1);
	if (gt_nn_train_precision(nn, GT_PREC_BF16, &why) != GT_PREC_BF16) {
		printf("train b6c64 9x9 batch 256: bf16 skipped: %s\n", why);
		return 0;
	}
	const char *kw, *k = gt_nn_precision_kernel(GT_PREC_BF16, &kw);
	double f[R], h[R], q[R];
	for (int r = 0; r < R; r++) {
		gt_nn_train_precision(nn, GT_PREC_FP32, NULL);
		f[r] = train_rate_clk(nn, opt, &d, 3, cpu_process);
		gt_nn_train_precision(nn, GT_PREC_BF16, NULL);
		h[r] = train_rate_clk(nn, opt, &d, 3, cpu_process);
		q[r] = h[r] / f[r];
		printf("round %d: fp32 %.1f, bf16 %.1f samples per CPU-second (%.2fx)\n", r + 1, f[r],
		       h[r], q[r]);
		fflush(stdout);
	}
	qsort(f, R, sizeof f[0], cmp_dbl);
	qsort(h, R, sizeof h[0], cmp_dbl);
	qsort(q, R, sizeof q[0], cmp_dbl);
	printf("train b6c64 9x9 batch 256, 1 thread, samples per CPU-second (min/median/max of %d): "
	       "fp32 %.1f/%.1f/%.1f, bf16 %.1f/%.1f/%.1f (kernel %s%s%s), bf16/fp32 %.2f/%.2f/%.2f\n",
	       R, f[0], f[1], f[2], h[0], h[1], h[2], k, kw ? ": " : "", kw ? kw : "", q[0], q[1],
	       q[2]);
	gt_optim_free(opt);
	nn_batch_free(&d);
	gt_nn_free(nn);
	return 0;
}

/* GFLOP/s of cblas_sgemm for C(M x N) = A(M x K) B(K x N), row-major */
static double sgemm_gflops(int M, int N, int K)
{
	float *A = malloc(sizeof(float) * M * K), *Bm = malloc(sizeof(float) * K * N);
	float *Cm = malloc(sizeof(float) * M * N);
	for (long i = 0; i < (long)M * K; i++)
		A[i] = (float)(i % 7) * 0.1f;
	for (long i = 0; i < (long)K * N; i++)
		Bm[i] = (float)(i % 5) * 0.1f;
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1, A, K, Bm, N, 0, Cm, N);
	int k = 0;
	double t0 = gt_now(), dt;
	do {
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1, A, K, Bm, N, 0, Cm, N);
		k++;
	} while ((dt = gt_now() - t0) < min_s / 4 || k < 3);
	free(A); free(Bm); free(Cm);
	return 2.0 * M * N * K * k / dt / 1e9;
}

static int torch_rates(const char *src, int L, int C, int n, int B, int th, double *fwd, double *train)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd,
	         "/usr/bin/python3 '%s/bench/nn_torch.py' %d %d %d %d %d 1 %g 2>/dev/null",
	         src, L, C, n, B, th, min_s);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	int got = fscanf(p, "fwd %lf train %lf", fwd, train);
	int rc = pclose(p);
	return got == 2 && rc == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *src = getenv("GT_SRC") ? getenv("GT_SRC") : ".";
	gt_error e;
	gt_arch a;
	if (argc > 1 && !strcmp(argv[1], "--quick"))
		min_s = 0.1;
	if (argc > 1 && !strcmp(argv[1], "--train-bf16")) {
		min_s = argc > 2 ? atof(argv[2]) : 2.0;
		return train_bf16();
	}

	/* 1. peak RSS of a training batch of 256, b6c64 9x9 */
	gt_model_parse_arch("b6c64", &a, &e);
	gt_nn *nn = gt_nn_new(&a, "cpu", &e);
	gt_arch_init_params(&a, gt_nn_params(nn), 1);
	gt_optim_conf oc = gt_optim_defaults(GT_OPTIM_ADAMW);
	oc.lr = 1e-4f;
	gt_optim *opt = gt_optim_new(&oc, gt_nn_nparams(nn));
	nn_batch d;
	nn_batch_make(&d, &a, 256, 9, &rs);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	long rss0 = ru.ru_maxrss;
	gt_nn_set_threads(1);
	double tr1 = train_rate(nn, opt, &d, 1);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS, training step b6c64 9x9 batch 256: %.1f MiB (%.1f MiB before the network's buffers)\n",
	       ru.ru_maxrss / 1024.0, rss0 / 1024.0);

	/* 2. against PyTorch: b6c64 9x9 batch 256, 1 and 2 threads; gt and
	 * PyTorch windows alternate, best of 3 each, so both see the same
	 * disturbance from other processes */
	/* forwards three ways: the board-only choice of the convolutions'
	 * method (gt-elo, gt-gtp: im2col on 9x9), gt-selfplay's choice by
	 * board and batch (Winograd here), and that in bf16 where the CPU
	 * has it (gt-selfplay --precision bf16) */
	int bf16 = gt_nn_precision(nn, GT_PREC_BF16, NULL) == GT_PREC_BF16;
	gt_nn_precision(nn, GT_PREC_FP32, NULL);
	for (int th = 1; th <= 2; th++) {
		double tr = th == 1 ? tr1 : 0, fw = 0, fsp = 0, fbf = 0, pf = 0, pt = 0, tbf = 0;
		int have_torch = 1;
		for (int round = 0; round < 3; round++) {
			gt_nn_set_threads(th);
			double x = train_rate(nn, opt, &d, 1), y = fwd_rate(nn, &d, NULL), f, t;
			tr = x > tr ? x : tr;
			if (bf16) {
				gt_nn_train_precision(nn, GT_PREC_BF16, NULL);
				x = train_rate(nn, opt, &d, 1);
				tbf = x > tbf ? x : tbf;
				gt_nn_train_precision(nn, GT_PREC_FP32, NULL);
			}
			fw = y > fw ? y : fw;
			gt_nn_conv_batch(nn, 1);
			y = fwd_rate(nn, &d, NULL);
			fsp = y > fsp ? y : fsp;
			if (bf16) {
				gt_nn_precision(nn, GT_PREC_BF16, NULL);
				y = fwd_rate(nn, &d, NULL);
				fbf = y > fbf ? y : fbf;
				gt_nn_precision(nn, GT_PREC_FP32, NULL);
			}
			gt_nn_conv_batch(nn, 0);
			if (have_torch && torch_rates(src, 6, 64, 9, 256, th, &f, &t) == 0) {
				pf = f > pf ? f : pf;
				pt = t > pt ? t : pt;
			} else {
				have_torch = 0;
			}
		}
		if (have_torch)
			printf("vs PyTorch b6c64 9x9 batch 256 threads %d: forward %.0f pos/s vs %.0f (%.2fx), "
			       "train %.0f samples/s vs %.0f (%.2fx)\n", th, fw, pf, fw / pf, tr, pt, tr / pt);
		else
			printf("vs PyTorch b6c64 9x9 batch 256 threads %d: forward %.0f pos/s, train %.0f "
			       "samples/s; PyTorch skipped (no torch for /usr/bin/python3)\n", th, fw, tr);
		if (have_torch) {
			printf("vs PyTorch b6c64 9x9 batch 256 threads %d: forward as gt-selfplay chooses %.0f pos/s "
			       "(%.2fx)", th, fsp, fsp / pf);
			if (bf16)
				printf(", in bf16 %.0f pos/s (%.2fx)", fbf, fbf / pf);
			printf("\n");
		}
		if (bf16 && have_torch)
			printf("vs PyTorch b6c64 9x9 batch 256 threads %d: train in bf16 %.0f samples/s "
			       "vs %.0f (%.2fx; %.2fx gt's fp32)\n", th, tbf, pt, tbf / pt, tbf / tr);
		else if (bf16)
			printf("b6c64 9x9 batch 256 threads %d: train in bf16 %.0f samples/s (%.2fx "
			       "gt's fp32)\n", th, tbf, tbf / tr);
		fflush(stdout);
	}
	gt_optim_free(opt);
	nn_batch_free(&d);
	gt_nn_free(nn);

	/* 3. forward against sgemm */
	static const char *archs[] = {"b6c64", "b10c128"};
	static const int sizes[] = {9, 19}, batches[] = {1, 16, 64};
	for (int ai = 0; ai < 2; ai++) {
		gt_model_parse_arch(archs[ai], &a, &e);
		nn = gt_nn_new(&a, "cpu", &e);
		gt_arch_init_params(&a, gt_nn_params(nn), 1);
		int C = a.channels;
		for (int si = 0; si < 2; si++)
			for (int bi = 0; bi < 3; bi++)
				for (int th = 1; th <= 2; th++) {
					int n = sizes[si], B = batches[bi], N = n * n;
					gt_nn_set_threads(th);
					nn_batch_make(&d, &a, B, n, &rs);
					/* alternate the network and the GEMM, keep the best of 3
					 * windows of each: the CPU is shared, the best window is
					 * the least disturbed */
					double conv_s = 1e30, rate = 0, ref = 0;
					for (int round = 0; round < 3; round++) {
						double cs, r = fwd_rate(nn, &d, &cs);
						if (r > rate) {
							rate = r;
							conv_s = cs;
						}
						double g = sgemm_gflops(C, B * N, 9 * C);
						ref = g > ref ? g : ref;
					}
					double flops = gt_arch_flops(&a, n);
					double conv_flops = a.blocks * 2 * 2.0 * N * C * C * 9;
					double net_gf = rate * flops / 1e9, conv_gf = conv_flops / conv_s / 1e9;
					printf("forward %s %dx%d batch %2d threads %d: %7.0f pos/s, net %5.1f GFLOP/s, "
					       "conv %5.1f GFLOP/s, sgemm(%d x %d x %d) %5.1f GFLOP/s: conv/sgemm %.2f, "
					       "net/sgemm %.2f\n", archs[ai], n, n, B, th, rate, net_gf, conv_gf,
					       C, B * N, 9 * C, ref, conv_gf / ref, net_gf / ref);
					fflush(stdout);
					nn_batch_free(&d);
				}
		gt_nn_free(nn);
	}
	gt_nn_set_threads(1);
	return 0;
}
