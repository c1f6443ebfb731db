/* bench/nn: throughput of the CPU network (make bench). Every figure is a
 * ratio against a reference measured in the same run: cblas_sgemm on the
 * GEMM shape of a block convolution, and PyTorch (bench/nn_torch.py) on
 * the same architecture, batch and threads. Peak RSS is measured first,
 * for one training step of b6c64 9x9 batch 256. Other engineers share the
 * CPU: the numbers are noisy; each figure is the best of 3 windows. */
#include "nn.h"
#include "nn_backend.h"
#include "model.h"
#include "optim.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double min_s = 0.25;

typedef struct data {
	int B, n;
	float *planes, *glob, *pol, *val, *score, *own;
} data;

static void make_data(data *d, const gt_arch *a, int B, int n)
{
	int N = n * n;
	d->B = B;
	d->n = n;
	d->planes = malloc(sizeof(float) * B * a->in_planes * N);
	d->glob = malloc(sizeof(float) * B * a->globals);
	d->pol = malloc(sizeof(float) * B * (N + 1));
	d->val = malloc(sizeof(float) * B);
	d->score = malloc(sizeof(float) * B);
	d->own = malloc(sizeof(float) * B * N);
	srand(1);
	for (int i = 0; i < B * a->in_planes * N; i++)
		d->planes[i] = rand() % 3 == 0;
	for (int i = 0; i < B * a->globals; i++)
		d->glob[i] = (float)rand() / RAND_MAX;
	for (int i = 0; i < B * (N + 1); i++)
		d->pol[i] = 1.0f / (N + 1);
	for (int i = 0; i < B; i++) {
		d->val[i] = i % 2 ? 1 : -1;
		d->score[i] = (float)(i % 21 - 10);
	}
	for (int i = 0; i < B * N; i++)
		d->own[i] = i % 3 - 1.0f;
}

static void free_data(data *d)
{
	free(d->planes); free(d->glob); free(d->pol); free(d->val); free(d->score); free(d->own);
}

/* positions per second of forwards over one window of about min_s/3;
 * *conv_s_per_pos: seconds per position in the block convolutions */
static double fwd_rate(gt_nn *nn, data *d, double *conv_s_per_pos)
{
	gt_nn_forward(nn, d->B, d->n, d->planes, d->glob, 0, NULL);
	nn->profile = 1;
	nn->prof_conv_s = 0;
	int k = 0;
	double t0 = now(), dt;
	do {
		gt_nn_forward(nn, d->B, d->n, d->planes, d->glob, 0, NULL);
		k++;
	} while ((dt = now() - t0) < min_s / 3);
	nn->profile = 0;
	if (conv_s_per_pos)
		*conv_s_per_pos = nn->prof_conv_s / ((double)k * d->B);
	return (double)k * d->B / dt;
}

static double train_rate(gt_nn *nn, gt_optim *opt, data *d, int min_iters)
{
	gt_nn_target t = {d->pol, d->val, d->score, d->own, NULL};
	int k = 0;
	double t0 = 0, dt;
	for (;;) {
		gt_nn_zero_grad(nn);
		gt_nn_forward(nn, d->B, d->n, d->planes, d->glob, 1, NULL);
		gt_nn_backward(nn, &t, NULL, NULL);
		gt_optim_step(opt, gt_nn_params(nn), gt_nn_grads(nn));
		gt_nn_sync_params(nn);
		if (k++ == 0) {
			t0 = now();   /* first step allocates: not timed */
			continue;
		}
		dt = now() - t0;
		if ((dt >= min_s && k - 1 >= min_iters) || dt > 30)
			return (double)(k - 1) * d->B / dt;
	}
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
	double t0 = now(), dt;
	do {
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1, A, K, Bm, N, 0, Cm, N);
		k++;
	} while ((dt = now() - t0) < min_s / 4 || k < 3);
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

	/* 1. peak RSS of a training batch of 256, b6c64 9x9 */
	gt_model_parse_arch("b6c64", &a, &e);
	gt_nn *nn = gt_nn_new(&a, "cpu", &e);
	gt_arch_init_params(&a, gt_nn_params(nn), 1);
	gt_optim_conf oc = gt_optim_defaults(GT_OPTIM_ADAMW);
	oc.lr = 1e-4f;
	gt_optim *opt = gt_optim_new(&oc, gt_nn_nparams(nn));
	data d;
	make_data(&d, &a, 256, 9);
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
	for (int th = 1; th <= 2; th++) {
		double tr = th == 1 ? tr1 : 0, fw = 0, pf = 0, pt = 0;
		int have_torch = 1;
		for (int round = 0; round < 3; round++) {
			gt_nn_set_threads(th);
			double x = train_rate(nn, opt, &d, 1), y = fwd_rate(nn, &d, NULL), f, t;
			tr = x > tr ? x : tr;
			fw = y > fw ? y : fw;
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
		fflush(stdout);
	}
	gt_optim_free(opt);
	free_data(&d);
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
					make_data(&d, &a, B, n);
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
					free_data(&d);
				}
		gt_nn_free(nn);
	}
	gt_nn_set_threads(1);
	return 0;
}
