/*
 * nncmp.h: the CUDA backend of lib/nn against the CPU reference, for
 * tests/unit/nn_cuda_cmp.c (small networks, `make check`) and
 * tests/gpu/nn_gpu.c (large ones, tests/gpu/run). Needs tap.h first.
 *
 * Both backends get the same parameters, inputs and targets; compared are
 * the forward outputs (policy logits, value, score, ownership), the loss
 * terms, and the gradient of every parameter tensor, which is every
 * layer's backward: the input convolution and globals, each block's two
 * convolutions, biases and Fixup scalar, the 1x1 heads, pooling and the
 * value MLP. The measure is the relative L2 error ||cuda - cpu|| /
 * max(||cpu||, floor) per array, against tolerances suited to BF16
 * operands with FP32 accumulation (the callers state them): tol for the
 * forward outputs and the loss, gtol for each tensor's gradient and gtol/2
 * for the whole gradient vector. Gradients get more room because BF16
 * errors of the forward pass grow through softmax differences (p - pi),
 * ReLU masks that flip near zero and every layer of the backward pass.
 */
#ifndef GT_NNCMP_H
#define GT_NNCMP_H
#include "gpu.h"
#include "nn.h"
#include "nn_batch.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* the generator of the parameters and batches (nn_batch.h) */
static uint64_t cmp_rs = 0x9e3779b97f4a7c15ULL;

/* Fixup initial parameters, then the second convolution of each block,
 * the biases and the scalars made nonzero so that every path carries
 * signal and gradient. */
static void cmp_params(const gt_arch *a, float *p, uint64_t seed)
{
	gt_arch_init_params(a, p, seed);
	int nt = gt_arch_ntensors(a);
	for (int i = 0; i < nt; i++) {
		gt_tensor t;
		gt_arch_tensor(a, i, &t);
		const char *dot = strrchr(t.name, '.');
		float *q = p + t.offset;
		if (!strcmp(dot, ".w2")) {
			double sd = sqrt(1.0 / (t.size / (double)t.shape[0]) / a->blocks);
			for (size_t j = 0; j < t.size; j++)
				q[j] = (float)(sd * nn_randn(&cmp_rs));
		} else if (!strcmp(dot, ".s")) {
			q[0] = (float)(0.8 + 0.4 * nn_rand(&cmp_rs));
		} else if (!strcmp(dot, ".b") || !strcmp(dot, ".b1") || !strcmp(dot, ".b2")) {
			for (size_t j = 0; j < t.size; j++)
				q[j] = (float)(0.2 * nn_rand(&cmp_rs) - 0.1);
		}
	}
}

/* GT_NNCMP_TOL in the environment replaces both tolerances (for the
 * mock's exact mode, tests/gpu/mock/run). */
static void cmp_tols(double *tol, double *gtol)
{
	const char *v = getenv("GT_NNCMP_TOL");
	char *end;
	double t = v ? strtod(v, &end) : 0;
	if (v && *end == 0 && t > 0) {
		*tol = t;
		*gtol = 2 * t;
	}
}

/* relative L2 error of got against want */
static double cmp_rel(const float *got, const float *want, size_t n, double floor)
{
	double d = 0, w = 0;
	for (size_t i = 0; i < n; i++) {
		double e = (double)got[i] - want[i];
		d += e * e;
		w += (double)want[i] * want[i];
	}
	w = sqrt(w);
	return sqrt(d) / (w > floor ? w : floor);
}

/* Run one batch through cpu and gpu (same parameters already synced) and
 * compare; one TAP line per array. Returns the number of failures. */
static int cmp_run(gt_nn *cpu, gt_nn *gpu, nn_batch *d, double tol, double gtol,
                   const char *what)
{
	const gt_arch *a = gt_nn_arch(cpu);
	int B = d->B, n = d->n, N = n * n, bad = 0;
	size_t np = gt_nn_nparams(cpu);
	gt_nn_target t = nn_batch_target(d);
	gt_nn_out oc, og;
	gt_nn_loss lc, lg;
	gt_nn_zero_grad(cpu);
	gt_nn_zero_grad(gpu);
	int rc = gt_nn_forward(cpu, B, n, d->planes, d->glob, 1, &oc);
	int rg = gt_nn_forward(gpu, B, n, d->planes, d->glob, 1, &og);
	if (!ok(rc == 0 && rg == 0, "%s: forward on both backends", what)) {
		diag("  cpu %d, cuda %d: %s", rc, rg, gt_nn_error(gpu));
		return 1;
	}
	struct { const char *name; const float *g, *c; size_t n; } outs[] = {
		{"policy logits", og.policy, oc.policy, (size_t)B * (N + 1)},
		{"value", og.value, oc.value, (size_t)B},
		{"score", og.score, oc.score, (size_t)B},
		{"ownership", og.own, oc.own, (size_t)B * N},
	};
	for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++) {
		double r = cmp_rel(outs[k].g, outs[k].c, outs[k].n, 1e-6);
		if (!ok(r <= tol, "%s: forward %s, relative error %.2e <= %.0e", what,
		        outs[k].name, r, tol))
			bad++;
	}
	rc = gt_nn_backward(cpu, &t, NULL, &lc);
	rg = gt_nn_backward(gpu, &t, NULL, &lg);
	if (!ok(rc == 0 && rg == 0, "%s: backward on both backends", what)) {
		diag("  cpu %d, cuda %d: %s", rc, rg, gt_nn_error(gpu));
		return bad + 1;
	}
	double lr = fabs(lg.total - lc.total) / fmax(fabs(lc.total), 1e-3);
	if (!ok(lr <= tol, "%s: loss %.6f vs %.6f, relative error %.2e", what, lg.total,
	        lc.total, lr))
		bad++;
	const float *gc = gt_nn_grads(cpu), *gg = gt_nn_grads(gpu);
	double worst = 0;
	char wname[24] = "";
	int nt = gt_arch_ntensors(a), tbad = 0;
	for (int i = 0; i < nt; i++) {
		gt_tensor ts;
		gt_arch_tensor(a, i, &ts);
		double r = cmp_rel(gg + ts.offset, gc + ts.offset, ts.size,
		                   1e-6 * sqrt((double)ts.size));
		if (r > worst) {
			worst = r;
			snprintf(wname, sizeof wname, "%s", ts.name);
		}
		if (r > gtol) {
			tbad++;
			diag("  %s: gradient of %s: relative error %.2e > %.0e", what, ts.name, r, gtol);
		}
	}
	if (!ok(tbad == 0, "%s: gradients of all %d tensors, worst %.2e (%s) <= %.0e", what, nt,
	        worst, wname, gtol))
		bad++;
	double all = cmp_rel(gg, gc, np, 1e-6);
	if (!ok(all <= gtol / 2, "%s: whole gradient vector, relative error %.2e <= %.0e", what,
	        all, gtol / 2))
		bad++;
	return bad;
}

/* A cpu and a cuda network with the same parameters; NULL on failure
 * (reported as a TAP line). */
static int cmp_pair(const gt_arch *a, uint64_t seed, gt_nn **cpu, gt_nn **gpu)
{
	gt_error e;
	*cpu = gt_nn_new(a, "cpu", &e);
	*gpu = *cpu ? gt_nn_new(a, "cuda", &e) : NULL;
	if (!ok(*cpu && *gpu, "b%dc%d on cpu and cuda", a->blocks, a->channels)) {
		diag("  %s", e.text);
		gt_nn_free(*cpu);
		return -1;
	}
	cmp_params(a, gt_nn_params(*cpu), seed);
	memcpy(gt_nn_params(*gpu), gt_nn_params(*cpu), sizeof(float) * gt_nn_nparams(*cpu));
	int r = gt_nn_sync_params(*gpu);
	if (!ok(r == 0, "parameters uploaded")) {
		diag("  %s", gt_nn_error(*gpu));
		return -1;
	}
	gt_nn_sync_params(*cpu);
	return 0;
}
#endif
