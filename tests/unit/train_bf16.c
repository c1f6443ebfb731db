/* train_bf16: mixed-precision training on the CPU (nn.h
 * gt_nn_train_precision GT_PREC_BF16): one step's gradients against
 * float32 on small random networks, a few hundred steps on a fixed batch
 * set whose bfloat16 loss follows the float32 one, and GT_NO_BF16 giving
 * float32 to the bit with the reason said.
 *
 * The bound of one step's gradients. bfloat16 keeps 8 significant bits:
 * each factor of a product is rounded with a relative error of at most
 * u = 2^-8, so one 3x3 convolution's output (K = 9 Cin products summed in
 * float32) errs by at most e = 2^-7 + 2^-16 + K 2^-24 of sum |w||x| at
 * that output (tests/unit/bf16.c proves the kernel to that bound). The
 * training step has 2L + 1 such convolutions in the forward (the input's
 * and two per block) and 2L in the backward (the input gradients of the
 * blocks'; the weight gradients are float32 products, of the perturbed
 * activations and output gradients). To first order the error of any
 * gradient is the sum of what each of those 4L + 1 convolutions passes
 * on; with Fixup's residual stream the gain from one convolution to a
 * gradient is about 1 (not measured against a norm: an assumption the
 * random networks here satisfy), and sum |w||x| is about the output's own
 * magnitude where the products do not cancel. So the tests allow, for
 * each parameter tensor, ||g_bf16 - g_fp32|| <= (4L + 1) e ||g_fp32||
 * (b2: 9 e = 7%, b6c96: 25 e = 20%): the worst case, every rounding of
 * every convolution in the same direction. With random signs the errors
 * add in quadrature, nearer sqrt(4L + 1) 2^-8 times the gain; the random
 * networks here (every Fixup scalar 1 and full-scale second
 * convolutions, so the residual stream grows through the blocks) measure
 * 1.3% (b2c16) to 5.7% (b6c96) over all gradients, at most 10% for one
 * tensor (b6c96's in.g), printed as diagnostics. Tensors whose float32 gradient is
 * below 1e-3 of the largest tensor's (near-cancelling sums, e.g. a bias
 * of a nearly dead channel) are judged against that floor instead.
 *
 * A stale pack (the bfloat16 weights of older parameters) would pass that
 * bound after a small optimizer step, so the step is repeated after every
 * parameter is redrawn (and gt_nn_sync_params), where stale packs would
 * err by 100%.
 *
 * The training test: b2c16 on 9x9, 4 fixed batches of 32 random
 * positions (nn_batch.h: random targets the network can only memorise),
 * 300 steps of AdamW at 2e-3 from the same start in float32 and in
 * bfloat16. Both must decrease (the mean loss of the last 20 steps below
 * 0.95 of the first 20's; measured 5.92 to 5.39, most of what is left
 * being the entropy of the random policy targets), and the bfloat16
 * run's last-20 mean must be within 3% of float32's (measured 0.06%):
 * the per-step gradient differs by a few %, in directions that do not
 * add up over the steps, so the paths stay close.
 */
#include "tap.h"
#include "bf16.h"
#include "model.h"
#include "nn.h"
#include "nn_batch.h"
#include "optim.h"

#include <string.h>

static uint64_t rs = 34;

/* a network of arch string s with every parameter drawn: He-normal 3x3
 * and 1x1 weights, normal 0.1 elsewhere, the Fixup scalars 1 (Fixup's zero
 * second convolutions would leave the first's gradients 0) */
static gt_nn *net(const char *s, uint64_t seed)
{
	gt_arch a;
	gt_error e;
	if (gt_model_parse_arch(s, &a, &e) != 0)
		return NULL;
	gt_nn *nn = gt_nn_new(&a, "cpu", &e);
	uint64_t r = seed;
	for (int i = 0, nt = gt_arch_ntensors(&a); i < nt; i++) {
		gt_tensor t;
		gt_arch_tensor(&a, i, &t);
		float *p = gt_nn_params(nn) + t.offset;
		size_t fan = t.ndim > 1 ? t.size / (size_t)t.shape[0] : 1;
		double sd = t.ndim > 1 ? sqrt(2.0 / (double)fan) : 0.1;
		int scalar = !strcmp(strchr(t.name, '.') ? strchr(t.name, '.') + 1 : t.name, "s");
		for (size_t j = 0; j < t.size; j++)
			p[j] = scalar ? 1.0f : (float)(nn_randn(&r) * sd);
	}
	gt_nn_sync_params(nn);
	return nn;
}

/* one training step's loss and gradients (into g, nparams floats) */
static double step(gt_nn *nn, const nn_batch *d, float *g)
{
	gt_nn_target t = nn_batch_target(d);
	gt_nn_loss l;
	gt_nn_zero_grad(nn);
	nn_batch_forward(nn, d, 1, NULL);
	gt_nn_backward(nn, &t, NULL, &l);
	memcpy(g, gt_nn_grads(nn), sizeof(float) * gt_nn_nparams(nn));
	return l.total;
}

/* gradients of the network of s in bfloat16 against float32 on a batch
 * of B boards of n x n; redraw: the parameters of both redrawn after a
 * first step (the packs made again) */
static void grads(const char *s, int B, int n, int redraw)
{
	gt_nn *f = net(s, 7), *h = net(s, 7);
	const gt_arch *a = gt_nn_arch(h); /* h lives to the end */
	int nt = gt_arch_ntensors(a);
	const char *why;
	is_int(gt_nn_train_precision(h, GT_PREC_BF16, &why), GT_PREC_BF16, "%s: bf16 in effect", s);
	ok(why == NULL, "%s: no reason given", s);
	size_t np = gt_nn_nparams(f);
	float *gf = malloc(sizeof(float) * np), *gh = malloc(sizeof(float) * np);
	nn_batch d;
	nn_batch_make(&d, a, B, n, &rs);
	if (redraw) {
		step(h, &d, gh);
		gt_nn_free(f);
		f = net(s, 99);
		memcpy(gt_nn_params(h), gt_nn_params(f), sizeof(float) * np);
		gt_nn_sync_params(h);
	}
	double lf = step(f, &d, gf), lh = step(h, &d, gh);
	int L = a->blocks, K = 9 * (a->channels > a->in_planes ? a->channels : a->in_planes);
	double e = ldexp(1, -7) + ldexp(1, -16) + K * ldexp(1, -24), bound = (4 * L + 1) * e;
	double gmax = 0;
	for (int i = 0; i < nt; i++) {
		gt_tensor t;
		gt_arch_tensor(a, i, &t);
		double s2 = 0;
		for (size_t j = 0; j < t.size; j++)
			s2 += (double)gf[t.offset + j] * gf[t.offset + j];
		gmax = fmax(gmax, sqrt(s2));
	}
	double worst = 0, all2 = 0, alld = 0;
	char wname[24] = "";
	int bad = 0, differ = memcmp(gf, gh, sizeof(float) * np) != 0;
	for (int i = 0; i < nt; i++) {
		gt_tensor t;
		gt_arch_tensor(a, i, &t);
		double s2 = 0, d2 = 0;
		for (size_t j = 0; j < t.size; j++) {
			double x = gf[t.offset + j], y = gh[t.offset + j];
			s2 += x * x;
			d2 += (x - y) * (x - y);
		}
		all2 += s2;
		alld += d2;
		double r = sqrt(d2) / fmax(sqrt(s2), 1e-3 * gmax);
		if (r > bound) {
			bad++;
			diag("  %s: %s off by %.4f of its norm", s, t.name, r);
		}
		if (r > worst) {
			worst = r;
			snprintf(wname, sizeof wname, "%s", t.name);
		}
	}
	const char *what = redraw ? " (parameters redrawn after a step)" : "";
	is_int(bad, 0, "%s %dx%d batch %d%s: every tensor's gradient within (4L+1)(2^-7 + 2^-16 + "
	       "K 2^-24) = %.3f of its norm", s, n, n, B, what, bound);
	diag("%s%s: worst tensor %s %.4f, all %.4f, loss %.6f vs %.6f (fp32)", s, what, wname,
	     worst, sqrt(alld / all2), lh, lf);
	ok(fabs(lh - lf) <= bound * fabs(lf), "%s%s: the loss within %.3f of float32's", s, what,
	   bound);
	ok(differ, "%s%s: not bit-identical to float32 (bfloat16 was used)", s, what);
	nn_batch_free(&d);
	free(gf), free(gh);
	gt_nn_free(f), gt_nn_free(h);
}

/* steps of AdamW on nb fixed batches from net(s, 5) in prec; the loss of
 * each step into loss */
static void run(const char *s, int prec, nn_batch *d, int nb, int steps, double *loss)
{
	gt_nn *nn = net(s, 5);
	gt_nn_train_precision(nn, prec, NULL);
	gt_optim_conf oc = gt_optim_defaults(GT_OPTIM_ADAMW);
	oc.lr = 2e-3f;
	gt_optim *opt = gt_optim_new(&oc, gt_nn_nparams(nn));
	float *g = malloc(sizeof(float) * gt_nn_nparams(nn));
	for (int i = 0; i < steps; i++) {
		loss[i] = step(nn, &d[i % nb], g);
		gt_optim_step(opt, gt_nn_params(nn), gt_nn_grads(nn));
		gt_nn_sync_params(nn);
	}
	free(g);
	gt_optim_free(opt);
	gt_nn_free(nn);
}

static double mean(const double *x, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += x[i];
	return s / n;
}

static void follow(void)
{
	enum { NB = 4, STEPS = 300, W = 20 };
	const char *s = "b2c16";
	gt_arch a;
	gt_error e;
	gt_model_parse_arch(s, &a, &e);
	nn_batch d[NB];
	for (int i = 0; i < NB; i++)
		nn_batch_make(&d[i], &a, 32, 9, &rs);
	static double lf[STEPS], lh[STEPS];
	run(s, GT_PREC_FP32, d, NB, STEPS, lf);
	run(s, GT_PREC_BF16, d, NB, STEPS, lh);
	double f0 = mean(lf, W), f1 = mean(lf + STEPS - W, W);
	double h0 = mean(lh, W), h1 = mean(lh + STEPS - W, W);
	diag("%s, %d steps: fp32 loss %.4f -> %.4f, bf16 %.4f -> %.4f (means of %d steps)", s,
	     STEPS, f0, f1, h0, h1, W);
	for (int i = 0; i < STEPS; i += 50)
		diag("  step %3d: fp32 %.4f bf16 %.4f", i, lf[i], lh[i]);
	ok(f1 < 0.95 * f0, "%s: the float32 loss decreases over %d steps", s, STEPS);
	ok(h1 < 0.95 * h0, "%s: the bfloat16 loss decreases over %d steps", s, STEPS);
	ok(fabs(h1 - f1) <= 0.03 * f1, "%s: after %d steps the bfloat16 loss is within 3%% of "
	   "float32's (%.2f%%)", s, STEPS, 100 * fabs(h1 - f1) / f1);
	for (int i = 0; i < NB; i++)
		nn_batch_free(&d[i]);
}

/* GT_NO_BF16=1: float32, bit for bit, and why */
static void no_bf16(void)
{
	const char *s = "b2c16", *why;
	setenv("GT_NO_BF16", "1", 1);
	gt_nn *f = net(s, 3), *h = net(s, 3);
	is_int(gt_nn_train_precision(h, GT_PREC_BF16, &why), GT_PREC_FP32,
	       "GT_NO_BF16=1: bf16 asked, fp32 in effect");
	is_str(why, "GT_NO_BF16 is set", "GT_NO_BF16=1: says why");
	size_t np = gt_nn_nparams(f);
	float *gf = malloc(sizeof(float) * np), *gh = malloc(sizeof(float) * np);
	nn_batch d;
	nn_batch_make(&d, gt_nn_arch(f), 8, 9, &rs);
	double lf = step(f, &d, gf), lh = step(h, &d, gh);
	ok(lf == lh && !memcmp(gf, gh, sizeof(float) * np),
	   "GT_NO_BF16=1: the loss and every gradient bit-identical to float32's");
	unsetenv("GT_NO_BF16");
	nn_batch_free(&d);
	free(gf), free(gh);
	gt_nn_free(f), gt_nn_free(h);
}

int main(void)
{
	const char *why;
	gt_nn *f = net("b2c16", 1);
	is_int(gt_nn_train_precision(f, GT_PREC_INT8, &why), GT_PREC_FP32,
	       "int8 is not a training precision");
	ok(why && *why, "int8: says why (%s)", why ? why : "");
	is_int(gt_nn_train_precision(f, GT_PREC_FP32, &why), GT_PREC_FP32, "fp32 asked, fp32");
	ok(why == NULL, "fp32: no reason");
	gt_nn_free(f);
	no_bf16();
	if (!gt_bf16_available(&why)) {
		diag("SKIP bfloat16 training: %s", why);
		return done_testing();
	}
	diag("the bfloat16 kernel: %s", gt_bf16_kernel(NULL));
	grads("b2c16", 8, 9, 0);
	grads("b2c16", 8, 9, 1);
	grads("b6c96", 8, 9, 0);
	grads("b3c16g2", 8, 7, 0);
	follow();
	return done_testing();
}
