/* nn_cuda_cmp: the cuda backend against the cpu reference on small
 * networks, layer by layer (tests/gpu/nncmp.h): forward outputs, loss
 * terms and the gradient of every parameter tensor, on several board
 * sizes and batches with the buffers reused, plus play-versus-training
 * forwards and gradient accumulation. Skipped without a CUDA device.
 * Tolerances (BF16 operands, FP32 accumulation), relative L2 error: 2e-2
 * for outputs and loss, 8e-2 for each tensor's gradient, 4e-2 for the
 * whole gradient vector (see nncmp.h). */
#include "tap.h"
#include "../gpu/nncmp.h"
#include "feat.h"

#define TOL 2e-2
#define GTOL 8e-2

int main(void)
{
	gt_error pe;
	if (!gt_gpu_probe(&pe))
		skip_all(pe.text);
	double tol = TOL, gtol = GTOL;
	cmp_tols(&tol, &gtol);
	diag("device: %s; tolerances %.0e, %.0e", pe.text, tol, gtol);
	gt_arch a;
	gt_arch_default(&a, 2, 32, GT_FEAT_PLANES, GT_FEAT_GLOBALS, GT_FEAT_VERSION);
	gt_nn *cpu, *gpu;
	if (cmp_pair(&a, 1, &cpu, &gpu))
		return done_testing();
	/* sizes in an order that grows, shrinks and grows the buffers */
	static const int sizes[][2] = {{3, 9}, {1, 2}, {5, 7}, {2, 19}, {4, 13}, {3, 9}};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		nn_batch d;
		char what[64];
		nn_batch_make(&d, &a, sizes[k][0], sizes[k][1], &cmp_rs);
		snprintf(what, sizeof what, "b2c32 batch %d %dx%d", d.B, d.n, d.n);
		cmp_run(cpu, gpu, &d, tol, gtol, what);
		nn_batch_free(&d);
	}

	/* a play forward gives what the training forward gave; eval_loss and
	 * gradient accumulation (two backwards = twice one) */
	nn_batch d;
	nn_batch_make(&d, &a, 4, 9, &cmp_rs);
	gt_nn_target t = nn_batch_target(&d);
	gt_nn_out o;
	gt_nn_loss l1, l2;
	size_t np = gt_nn_nparams(gpu);
	float *keep = malloc(sizeof(float) * (4 * 82 + np));
	gt_nn_forward(gpu, 4, 9, d.planes, d.glob, 1, &o);
	memcpy(keep, o.policy, sizeof(float) * 4 * 82);
	gt_nn_forward(gpu, 4, 9, d.planes, d.glob, 0, &o);
	double pr = cmp_rel(o.policy, keep, 4 * 82, 1e-6);
	ok(pr <= 1e-6, "play and training forwards give the same logits (%.2g)", pr);
	is_int(gt_nn_eval_loss(gpu, &t, NULL, &l1), 0, "eval_loss after a play forward");
	{
		/* odd batches (padded to 8 inside a play forward): 3 rows alone */
		gt_nn_loss l3p, l3t;
		gt_nn_target t3 = nn_batch_target(&d);
		gt_nn_forward(gpu, 3, 9, d.planes, d.glob, 0, &o);
		double r3 = cmp_rel(o.policy, keep, 3 * 82, 1e-6);
		ok(o.batch == 3 && r3 <= 1e-5, "a play batch of 3 gives the rows of the batch of 4 "
		   "(%.2g)", r3);
		float v3[3] = {o.value[0], o.value[1], o.value[2]};
		gt_nn_eval_loss(gpu, &t3, NULL, &l3p);
		gt_nn_forward(gpu, 3, 9, d.planes, d.glob, 1, &o);
		ok(fabs(o.value[2] - v3[2]) <= 1e-5 && fabs(o.value[0] - v3[0]) <= 1e-5,
		   "and the same values as a training forward of 3");
		gt_nn_eval_loss(gpu, &t3, NULL, &l3t);
		is_dbl(l3p.total, l3t.total, 1e-5 * fabs(l3t.total), "and the same loss (%.6f)",
		       l3t.total);
	}
	gt_nn_forward(gpu, 4, 9, d.planes, d.glob, 0, &o);
	is_int(gt_nn_backward(gpu, &t, NULL, NULL), GT_EINVAL,
	       "backward after a play forward is GT_EINVAL");
	gt_nn_forward(gpu, 4, 9, d.planes, d.glob, 1, NULL);
	gt_nn_zero_grad(gpu);
	is_int(gt_nn_backward(gpu, &t, NULL, &l2), 0, "backward");
	is_dbl(l2.total, l1.total, 1e-9 + 1e-6 * fabs(l1.total), "the same loss both ways");
	memcpy(keep + 4 * 82, gt_nn_grads(gpu), sizeof(float) * np);
	gt_nn_backward(gpu, &t, NULL, NULL);
	float *g = gt_nn_grads(gpu), *g1 = keep + 4 * 82;
	double m = 0, big = 0;
	for (size_t i = 0; i < np; i++) {
		m = fmax(m, fabs(g[i] - 2 * g1[i]));
		big = fmax(big, fabs(g1[i]));
	}
	ok(big > 0 && m <= 1e-5 * big, "gradients accumulate (%.2g of %.2g)", m, big);
	is_str(gt_nn_error(gpu), "", "no backend error");
	free(keep);
	nn_batch_free(&d);
	gt_nn_free(cpu);
	gt_nn_free(gpu);
	return done_testing();
}
