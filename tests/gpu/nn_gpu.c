/*
 * nn_gpu: the CUDA backend of lib/nn on a machine with a GPU (run by
 * tests/gpu/run; built by `make CUDA=1 gpu`).
 *
 *   nn_gpu check   TAP: every layer's forward and backward against the CPU
 *                  backend (tests/gpu/nncmp.h) on b2c32 9x9, b6c64 13x13
 *                  and 19x19, b10c128 19x19, random inputs; tolerances
 *                  TOL and GTOL below (relative L2 error per array).
 *                  "1..0 # SKIP" without a device. --quick: the first two
 *                  networks only (for tests/gpu/mock/run).
 *   nn_gpu bench [--peak TFLOPS]
 *                  forward evaluations/s for b10c128 and b20c256 on 19x19
 *                  at batch 64, 256, 1024; the fraction of dense BF16 peak
 *                  (default 790 TFLOP/s, the H200 figure we plan with) the
 *                  whole forward and its 3x3 convolutions reach (flops
 *                  from gt_arch_flops); training samples/s at batch 256
 *                  (forward + backward, and with a host AdamW step and the
 *                  parameter upload that a trainer does).
 * Exit status 0 when all passed, 1 on a failure (with the CUDA error).
 */
#include "tap.h"
#include "nncmp.h"
#include "feat.h"
#include "nn_backend.h" /* nn->profile, nn->prof_conv_s */
#include "optim.h"
#include "util.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

/* Tolerances, relative L2 error per array: BF16 operands (8 significant
 * bits) with FP32 accumulation give about 0.3% per GEMM; outputs and loss
 * TOL, each tensor's gradient GTOL, the whole gradient vector GTOL/2
 * (nncmp.h says why gradients get more room). */
#define TOL 2e-2
#define GTOL 8e-2

static int check(int quick)
{
	gt_error pe;
	if (!gt_gpu_probe(&pe))
		skip_all(pe.text);
	double tol = TOL, gtol = GTOL;
	cmp_tols(&tol, &gtol);
	diag("device: %s; tolerances (relative L2): outputs %.0e, gradients %.0e", pe.text, tol,
	     gtol);
	gt_nn_set_threads(8);
	static const struct { int blocks, channels, B, n; } nets[] = {
		{2, 32, 4, 9}, {6, 64, 3, 13}, {6, 64, 4, 19}, {10, 128, 8, 19},
	};
	for (size_t k = 0; k < (quick ? 2 : sizeof nets / sizeof nets[0]); k++) {
		gt_arch a;
		gt_nn *cpu, *gpu;
		gt_arch_default(&a, nets[k].blocks, nets[k].channels, GT_FEAT_PLANES, GT_FEAT_GLOBALS,
		                GT_FEAT_VERSION);
		if (cmp_pair(&a, 100 + k, &cpu, &gpu))
			continue;
		nn_batch d;
		char what[80];
		double t0 = gt_now();
		nn_batch_make(&d, &a, nets[k].B, nets[k].n, &cmp_rs);
		snprintf(what, sizeof what, "b%dc%d batch %d %dx%d", a.blocks, a.channels, d.B,
		         d.n, d.n);
		cmp_run(cpu, gpu, &d, tol, gtol, what);
		diag("  %s compared in %.1f s", what, gt_now() - t0);
		nn_batch_free(&d);
		gt_nn_free(cpu);
		gt_nn_free(gpu);
	}
	return done_testing();
}

static void die(gt_nn *nn, const char *what, int r)
{
	fprintf(stderr, "nn_gpu: %s: %s: %s\n", what, gt_strerror(r),
	        nn ? gt_nn_error(nn) : "");
	exit(1);
}

static float *random_planes(const gt_arch *a, int B, int n, float **glob)
{
	size_t np = (size_t)B * a->in_planes * n * n;
	float *p = malloc(sizeof(float) * np);
	*glob = malloc(sizeof(float) * ((size_t)B * a->globals + 1));
	for (size_t i = 0; i < np; i++)
		p[i] = nn_rand(&cmp_rs) < 0.3;
	for (int i = 0; i < B * a->globals; i++)
		(*glob)[i] = (float)(nn_rand(&cmp_rs) * 2 - 1);
	return p;
}

/* seconds per forward of batch B (repeats until min_s has passed) */
static double time_forward(gt_nn *nn, int B, int n, const float *planes, const float *glob,
                           double min_s)
{
	int r, k = 0;
	for (int w = 0; w < 2; w++)
		if ((r = gt_nn_forward(nn, B, n, planes, glob, 0, NULL)))
			die(nn, "forward", r);
	double t0 = gt_now(), t;
	do {
		if ((r = gt_nn_forward(nn, B, n, planes, glob, 0, NULL)))
			die(nn, "forward", r);
		k++;
	} while ((t = gt_now() - t0) < min_s || k < 3);
	return t / k;
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "nn_gpu: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
	fprintf(stderr, "nn_gpu: %s: %s\n", #x, cublasGetStatusString(s_)); exit(1); } } while (0)

/* Seconds per BF16 GEMM (M x K) by (K x N) with FP32 output and
 * accumulation, the GEMM of one 3x3 convolution without its im2col
 * (M = Cout, K = 9 Cin, N = batch * n * n). Operands hold a constant
 * nonzero pattern (not random: a bound, not a prediction). */
static double time_gemm(int M, int N, int K)
{
	void *A, *B, *C;
	cublasHandle_t h;
	cudaEvent_t e0, e1;
	float alpha = 1, beta = 0, ms = 0;
	CK(cudaMalloc(&A, (size_t)M * K * 2));
	CK(cudaMalloc(&B, (size_t)K * N * 2));
	CK(cudaMalloc(&C, (size_t)M * N * 4));
	CK(cudaMemset(A, 0x3c, (size_t)M * K * 2));
	CK(cudaMemset(B, 0x3c, (size_t)K * N * 2));
	CB(cublasCreate(&h));
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	int reps = 20;
	for (int i = 0; i < reps + 3; i++) {
		if (i == 3)
			CK(cudaEventRecord(e0, 0));
		CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, CUDA_R_16BF, N, A,
		                CUDA_R_16BF, K, &beta, C, CUDA_R_32F, N, CUBLAS_COMPUTE_32F,
		                CUBLAS_GEMM_DEFAULT));
	}
	CK(cudaEventRecord(e1, 0));
	CK(cudaEventSynchronize(e1));
	CK(cudaEventElapsedTime(&ms, e0, e1));
	cublasDestroy(h);
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	cudaFree(A);
	cudaFree(B);
	cudaFree(C);
	return ms / 1e3 / reps;
}

static double conv_flops(const gt_arch *a, int n)
{
	double N = (double)n * n, C = a->channels;
	return 2.0 * N * C * a->in_planes * 9 + a->blocks * 2 * (2.0 * N * C * C * 9);
}

static int bench(double peak)
{
	gt_error e;
	if (!gt_gpu_probe(&e)) {
		printf("nn_gpu bench: skipped: %s\n", e.text);
		return 0;
	}
	printf("device: %s; peak taken as %.0f TFLOP/s dense BF16\n", e.text, peak);
	static const int nets[][2] = {{10, 128}, {20, 256}};
	static const int batches[] = {64, 256, 1024};
	const int n = 19;
	printf("conv: im2col + GEMM + bias, timed with a synchronisation around each; gemm: the\n"
	       "GEMM of one block convolution alone (cuBLAS BF16, FP32 accumulation)\n");
	printf("%-8s %6s %12s %10s %8s %10s %8s %10s %8s\n", "net", "batch", "evals/s",
	       "TFLOP/s", "of peak", "conv TF/s", "of peak", "gemm TF/s", "of peak");
	for (int k = 0; k < 2; k++) {
		gt_arch a;
		gt_arch_default(&a, nets[k][0], nets[k][1], GT_FEAT_PLANES, GT_FEAT_GLOBALS,
		                GT_FEAT_VERSION);
		gt_nn *nn = gt_nn_new(&a, "cuda", &e);
		if (!nn) {
			fprintf(stderr, "nn_gpu: %s\n", e.text);
			return 1;
		}
		cmp_params(&a, gt_nn_params(nn), 5);
		int r = gt_nn_sync_params(nn);
		if (r)
			die(nn, "sync_params", r);
		for (int j = 0; j < 3; j++) {
			int B = batches[j];
			float *glob, *planes = random_planes(&a, B, n, &glob);
			double s = time_forward(nn, B, n, planes, glob, 1.0);
			double tf = gt_arch_flops(&a, n) * B / s / 1e12;
			/* the convolutions alone, synchronised around each one */
			nn->profile = 1;
			nn->prof_conv_s = 0;
			int reps = 3;
			for (int i = 0; i < reps; i++)
				if ((r = gt_nn_forward(nn, B, n, planes, glob, 0, NULL)))
					die(nn, "forward", r);
			nn->profile = 0;
			double ctf = conv_flops(&a, n) * B * reps / nn->prof_conv_s / 1e12;
			int C = a.channels, BN = B * n * n;
			double gtf = 2.0 * C * 9 * C * BN / time_gemm(C, BN, 9 * C) / 1e12;
			printf("b%dc%-4d %6d %12.0f %10.1f %7.1f%% %10.1f %7.1f%% %10.1f %7.1f%%\n",
			       a.blocks, a.channels, B, B / s, tf, 100 * tf / peak, ctf,
			       100 * ctf / peak, gtf, 100 * gtf / peak);
			fflush(stdout);
			free(planes);
			free(glob);
		}

		/* training at batch 256 */
		int B = 256;
		nn_batch d;
		nn_batch_make(&d, &a, B, n, &cmp_rs);
		gt_nn_target t = nn_batch_target(&d);
		gt_optim_conf oc = gt_optim_defaults(GT_OPTIM_ADAMW);
		oc.lr = 1e-5f;
		gt_optim *opt = gt_optim_new(&oc, gt_nn_nparams(nn));
		double tstep[2];
		for (int mode = 0; mode < 2; mode++) {
			int steps = 0;
			double t0 = 0;
			for (int i = 0;; i++) {
				if (i == 2)
					t0 = gt_now();   /* after two warm-up steps */
				if (i >= 5 && gt_now() - t0 >= 2.0)
					break;
				gt_nn_zero_grad(nn);
				if ((r = gt_nn_forward(nn, B, n, d.planes, d.glob, 1, NULL)))
					die(nn, "training forward", r);
				if ((r = gt_nn_backward(nn, &t, NULL, NULL)))
					die(nn, "backward", r);
				if (mode == 1) {
					gt_optim_step(opt, gt_nn_params(nn), gt_nn_grads(nn));
					if ((r = gt_nn_sync_params(nn)))
						die(nn, "sync_params", r);
				}
				if (i >= 2)
					steps++;
			}
			tstep[mode] = (gt_now() - t0) / steps;
		}
		double tff = 3 * gt_arch_flops(&a, n) * B / tstep[0] / 1e12;
		printf("b%dc%d training, batch %d, 19x19: %.0f samples/s forward+backward "
		       "(%.1f TFLOP/s, %.1f%% of peak); %.0f samples/s with host AdamW and "
		       "upload\n", a.blocks, a.channels, B, B / tstep[0], tff, 100 * tff / peak,
		       B / tstep[1]);
		gt_optim_free(opt);
		nn_batch_free(&d);
		gt_nn_free(nn);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "check"))
		return check(0);
	if (argc == 3 && !strcmp(argv[1], "check") && !strcmp(argv[2], "--quick"))
		return check(1);
	if (argc >= 2 && !strcmp(argv[1], "bench")) {
		double peak = 790;
		if (argc == 4 && !strcmp(argv[2], "--peak")) {
			char *end;
			peak = strtod(argv[3], &end);
			if (*end || !(peak > 0) || peak > 1e6) {
				fprintf(stderr, "nn_gpu: bad --peak '%s'\n", argv[3]);
				return 2;
			}
		} else if (argc != 2) {
			fprintf(stderr, "usage: nn_gpu check [--quick] | bench [--peak TFLOPS]\n");
			return 2;
		}
		return bench(peak);
	}
	fprintf(stderr, "usage: nn_gpu check [--quick] | bench [--peak TFLOPS]\n");
	return 2;
}
