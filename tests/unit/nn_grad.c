/* nn_grad: gradients of lib/nn against central finite differences of the
 * loss, for every parameter (so every layer type: 3x3 convolutions, the
 * globals, Fixup scalars, 1x1 heads, pooling, the value MLP) and every
 * loss term alone and together, with row weights; plus batch consistency
 * and board-size independence of the weights; the same of a network with
 * global pooling blocks, whose outputs and gradients are also the same
 * by im2col, Winograd and oneDNN; and of a network with the auxiliary
 * policy head, whose other outputs are those of the network without it. */
#include "tap.h"
#include "nn_batch.h"
#include "nn.h"
#include "nn_backend.h"
#include "optim.h"
#include "bf16.h"
#include "int8.h"

static uint64_t rs = 12345;
static int kink_per = 50;  /* at most 1 parameter in kink_per near a kink */

static double loss_of(gt_nn *nn, nn_batch *d, const gt_nn_lossw *w)
{
	gt_nn_target t = nn_batch_target(d);
	gt_nn_loss l;
	gt_nn_sync_params(nn); /* the caller wrote a parameter */
	nn_batch_forward(nn, d, 0, NULL);
	gt_nn_eval_loss(nn, &t, w, &l);
	return l.total;
}

/* Compare every analytic gradient with a central difference; returns the
 * number of mismatches and reports the worst relative error. */
static int gradcheck(gt_nn *nn, nn_batch *d, const gt_nn_lossw *w, const char *what)
{
	gt_nn_target t = nn_batch_target(d);
	size_t np = gt_nn_nparams(nn);
	float *p = gt_nn_params(nn), *g = gt_nn_grads(nn);
	gt_nn_zero_grad(nn);
	nn_batch_forward(nn, d, 1, NULL);
	gt_nn_backward(nn, &t, w, NULL);
	float *ana = malloc(sizeof(float) * np);
	memcpy(ana, g, sizeof(float) * np);
	int bad = 0, nonzero = 0;
	double worst = 0;
	const gt_arch *a = gt_nn_arch(nn);
	int kinks = 0;
	for (size_t i = 0; i < np; i++) {
		float save = p[i];
		double num2[2];
		/* two step sizes: where they disagree the loss is not smooth at
		 * this scale (a ReLU or Huber kink within h): counted, not judged */
		for (int k = 0; k < 2; k++) {
			double h = (k ? 2e-3 : 1e-3) * (fabs(save) > 1 ? fabs(save) : 1);
			p[i] = (float)(save + h);
			h = p[i] - save;
			double lp = loss_of(nn, d, w);
			p[i] = (float)(save - h);
			double lm = loss_of(nn, d, w);
			p[i] = save;
			num2[k] = (lp - lm) / (2 * h);
		}
		/* the nearer of the two estimates: float32 rounding of the loss
		 * (about 1e-7 of it, over 2h) is the noise of each, and the
		 * larger step's is half the smaller's */
		double num = fabs(num2[1] - ana[i]) < fabs(num2[0] - ana[i]) ? num2[1] : num2[0];
		double err = fabs(num - ana[i]);
		double scale = fabs(num) > fabs(ana[i]) ? fabs(num) : fabs(ana[i]);
		if (scale > 1e-6)
			nonzero++;
		if (fabs(num2[0] - num2[1]) > 3e-3 * scale + 3e-5) {
			kinks++;
			continue;
		}
		if (err > 3e-3 * scale + 3e-5) {
			if (bad < 5) {
				for (int k = 0; k < gt_arch_ntensors(a); k++) {
					gt_tensor tt;
					gt_arch_tensor(a, k, &tt);
					if (i >= tt.offset && i < tt.offset + tt.size)
						diag("%s: %s[%zu] analytic %.7g numeric %.7g", what,
						     tt.name, i - tt.offset, ana[i], num);
				}
			}
			bad++;
		}
		if (scale > 1e-4 && err / scale > worst)
			worst = err / scale;
	}
	ok(kinks <= (int)np / kink_per, "%s: %d of %zu parameters near a kink (at most 1 in %d)",
	   what, kinks, np, kink_per);
	diag("%s: %zu parameters, %d with nonzero gradient, worst relative error %.2g",
	     what, np, nonzero, worst);
	ok(nonzero > (int)(np / 3), "%s: most gradients are nonzero", what);
	free(ana);
	return bad;
}

/* gradcheck of nn on 2 positions of an n x n board */
static int check_size(gt_nn *nn, int n, const char *what)
{
	nn_batch d;
	nn_batch_make(&d, gt_nn_arch(nn), 2, n, &rs);
	int bad = gradcheck(nn, &d, &GT_NN_LOSSW_DEFAULT, what);
	nn_batch_free(&d);
	return bad;
}

/* outputs (policy, value, score, ownership) and gradient of one training
 * step of a on d under GT_CONV=mode into out (np + B*(2N+3) floats) */
static void step_under(const gt_arch *a, const float *params, nn_batch *d, const char *mode,
                       float *out)
{
	gt_error e;
	setenv("GT_CONV", mode, 1);
	gt_nn *nn = gt_nn_new(a, "cpu", &e);
	unsetenv("GT_CONV");
	size_t np = gt_nn_nparams(nn), N = (size_t)d->n * d->n, k = 0;
	memcpy(gt_nn_params(nn), params, sizeof(float) * np);
	gt_nn_sync_params(nn);
	gt_nn_target t = nn_batch_target(d);
	gt_nn_out o;
	gt_nn_zero_grad(nn);
	gt_nn_forward(nn, d->B, d->n, d->planes, d->glob, 1, &o);
	gt_nn_backward(nn, &t, NULL, NULL);
	memcpy(out, gt_nn_grads(nn), sizeof(float) * np);
	k = np;
	for (size_t i = 0; i < d->B * (N + 1); i++)
		out[k++] = o.policy[i];
	for (int b = 0; b < d->B; b++) {
		out[k++] = o.value[b];
		out[k++] = o.score[b];
	}
	for (size_t i = 0; i < d->B * N; i++)
		out[k++] = o.own[i];
	gt_nn_free(nn);
}

/* global pooling blocks (nn.h gt_arch_gpool_block) */
static void gpool(void)
{
	gt_arch a;
	gt_error e;
	gt_arch_default(&a, 2, 5, 5, 3, 1);
	a.head_policy = 3;
	a.head_value = 3;
	a.value_hidden = 5;
	a.gpool_every = 1;
	a.gpool_channels = 2;
	gt_nn *nn = gt_nn_new(&a, "cpu", &e);
	ok(nn != NULL, "network b2c5 with global pooling in block 1");
	size_t np = gt_nn_nparams(nn);
	float *p = gt_nn_params(nn);
	for (size_t i = 0; i < np; i++)
		p[i] = (float)((nn_rand(&rs) * 2 - 1) * 0.5);
	/* the pooled channels mostly positive: fewer kinks of their ReLU
	 * within the finite differences' steps */
	for (int k = 0; k < gt_arch_ntensors(&a); k++) {
		gt_tensor t;
		gt_arch_tensor(&a, k, &t);
		if (!strcmp(t.name, "blk1.b1g"))
			for (size_t i = 0; i < t.size; i++)
				p[t.offset + i] = 1.0f;
	}
	/* the max over the board is piecewise linear in every parameter
	 * before it: a step of the differences that moves a max to another
	 * point crosses a kink */
	kink_per = 20;
	nn_batch d;
	nn_batch_make(&d, &a, 3, 5, &rs);
	is_int(gradcheck(nn, &d, &GT_NN_LOSSW_DEFAULT, "global pooling 5x5"), 0,
	       "global pooling: gradient matches finite differences");
	is_int(gradcheck(nn, &d, &(gt_nn_lossw){1, 0, 0, 0, 0}, "global pooling, policy"), 0,
	       "global pooling: gradient of the policy loss alone");
	is_int(check_size(nn, 2, "global pooling 2x2"), 0,
	       "global pooling: gradient on 2x2 with the same weights");

	/* a batch evaluates each row as if alone (the pooling is per board) */
	gt_nn_out o;
	gt_nn_forward(nn, 3, 5, d.planes, d.glob, 0, &o);
	float pol2[26], v2 = o.value[2];
	memcpy(pol2, o.policy + 2 * 26, sizeof pol2);
	gt_nn_forward(nn, 1, 5, d.planes + 2 * 5 * 25, d.glob + 2 * 3, 0, &o);
	double md = 0;
	for (int i = 0; i < 26; i++)
		md = fmax(md, fabs(pol2[i] - o.policy[i]));
	ok(md < 1e-5 && fabs(v2 - o.value[0]) < 1e-6,
	   "global pooling: row 2 of a batch equals the row alone (%.2g)", md);

	/* every convolution method gives the same step, Winograd and oneDNN
	 * taking the pooled blocks' second convolution of C - Cg inputs */
	nn_batch d9;
	nn_batch_make(&d9, &a, 4, 9, &rs);
	size_t nout = np + (size_t)4 * (2 * 81 + 3);
	float *ref = malloc(sizeof(float) * nout), *other = malloc(sizeof(float) * nout);
	step_under(&a, p, &d9, "im2col", ref);
	const char *modes[] = {"winograd", "onednn"};
	for (int k = 0; k < 2; k++) {
		step_under(&a, p, &d9, modes[k], other);
		double mo = 0, mg = 0, so = 0, sg = 0;
		for (size_t i = 0; i < nout; i++) {
			double dd = fabs(other[i] - ref[i]);
			if (i < np)
				mg = fmax(mg, dd), sg = fmax(sg, fabs(ref[i]));
			else
				mo = fmax(mo, dd), so = fmax(so, fabs(ref[i]));
		}
		ok(mo <= 1e-4 * so && mg <= 1e-4 * sg,
		   "global pooling by %s: outputs (%.2g of %.2g) and gradients (%.2g of %.2g) as im2col",
		   modes[k], mo, so, mg, sg);
	}
	free(ref);
	free(other);
	nn_batch_free(&d9);

	/* reduced precision: granted as for any network where the CPU has
	 * it (the pooling stays float32; tests/unit/prec_util.h compares the
	 * outputs), else float32 with the reason */
	const char *why = NULL;
	int bf = gt_bf16_available(NULL), i8 = gt_int8_available(NULL);
	is_int(gt_nn_precision(nn, GT_PREC_BF16, &why), bf ? GT_PREC_BF16 : GT_PREC_FP32,
	       "bf16 on global pooling blocks: %s", bf ? "granted" : why ? why : "(no reason)");
	ok(bf || why != NULL, "bf16: a reason where it is not granted");
	why = NULL;
	is_int(gt_nn_precision(nn, GT_PREC_INT8, &why), i8 ? GT_PREC_INT8 : GT_PREC_FP32,
	       "int8 on global pooling blocks: %s", i8 ? "granted" : why ? why : "(no reason)");
	ok(i8 || why != NULL, "int8: a reason where it is not granted");
	gt_nn_precision(nn, GT_PREC_FP32, NULL);
	ok(gt_nn_new(&a, "cuda", &e) == NULL, "the cuda backend refuses it: %s", e.text);

	/* Fixup init: the pooled blocks start as the identity too */
	gt_arch_init_params(&a, p, 3);
	gt_tensor t;
	double w2 = 0, b1g = 0, wg = 0;
	for (int k = 0; k < gt_arch_ntensors(&a); k++) {
		gt_arch_tensor(&a, k, &t);
		for (size_t i = 0; i < t.size; i++) {
			if (!strcmp(t.name, "blk1.w2"))
				w2 += fabs(p[t.offset + i]);
			if (!strcmp(t.name, "blk1.b1g"))
				b1g += fabs(p[t.offset + i]);
			if (!strcmp(t.name, "blk1.wg"))
				wg += fabs(p[t.offset + i]);
		}
		if (!strcmp(t.name, "blk1.w2"))
			ok(t.shape[0] == 5 && t.shape[1] == 3, "blk1.w2 is C x (C - Cg) x 3 x 3");
	}
	ok(w2 == 0 && b1g == 0 && wg > 0, "init: blk1.w2 and blk1.b1g zero, blk1.wg random");
	nn_batch_free(&d);
	gt_nn_free(nn);
}

/* the auxiliary policy head (nn.h GT_ARCH_AUX_POLICY) */
static void aux_head(void)
{
	gt_arch a, b;
	gt_error e;
	gt_arch_default(&a, 2, 4, 5, 3, 1);
	a.head_policy = 3;
	a.head_value = 3;
	a.value_hidden = 5;
	b = a;
	a.heads = GT_ARCH_AUX_POLICY;
	gt_nn *nn = gt_nn_new(&a, "cpu", &e), *plain = gt_nn_new(&b, "cpu", &e);
	ok(nn != NULL && plain != NULL, "network b2c4 with the auxiliary policy head");
	size_t np = gt_nn_nparams(nn), np0 = gt_nn_nparams(plain);
	is_int((int)(np - np0), 3 * 3 + 2, "the head adds Hp + 1 + 2Hp + 1 parameters");
	float *p = gt_nn_params(nn);
	for (size_t i = 0; i < np; i++)
		p[i] = (float)((nn_rand(&rs) * 2 - 1) * 0.2);
	kink_per = 50;
	nn_batch d;
	nn_batch_make(&d, &a, 3, 4, &rs);
	/* the two policies share P: alone and together */
	static const struct { const char *name; gt_nn_lossw w; } terms[] = {
		{"all terms", {1, 1, 0.5f, 0.5f, 0.15f}}, {"the auxiliary policy", {0, 0, 0, 0, 1}},
		{"both policies", {1, 0, 0, 0, 1}},
	};
	for (size_t k = 0; k < sizeof terms / sizeof terms[0]; k++)
		is_int(gradcheck(nn, &d, &terms[k].w, terms[k].name), 0,
		       "aux head: gradient of %s matches finite differences", terms[k].name);
	is_int(check_size(nn, 2, "aux head 2x2"), 0, "aux head: gradient on 2x2");

	/* the loss by hand: row b's cross-entropy of the auxiliary logits
	 * against apol, weighted by weight * aweight, mean over the batch */
	gt_nn_target t = nn_batch_target(&d);
	gt_nn_out o;
	gt_nn_loss l;
	gt_nn_forward(nn, d.B, d.n, d.planes, d.glob, 0, &o);
	gt_nn_eval_loss(nn, &t, NULL, &l);
	ok(o.aux_policy != NULL, "the forward gives the auxiliary logits");
	double want = 0;
	int N = d.n * d.n;
	for (int r = 0; r < d.B; r++) {
		const float *lg = o.aux_policy + r * (N + 1);
		double mx = -1e30, se = 0, ce = 0;
		for (int i = 0; i <= N; i++)
			mx = fmax(mx, lg[i]);
		for (int i = 0; i <= N; i++)
			se += exp(lg[i] - mx);
		for (int i = 0; i <= N; i++)
			ce -= d.apol[r * (N + 1) + i] * (lg[i] - mx - log(se));
		want += d.weight[r] * d.aweight[r] * ce / d.B;
	}
	is_dbl(l.aux_policy, want, 1e-6 * want, "auxiliary loss %.6f is the weighted cross-entropy",
	       l.aux_policy);
	double tot = l.policy + l.value + 0.5 * l.score + 0.5 * l.own + 0.15f * l.aux_policy;
	is_dbl(l.total, tot, 1e-9 * tot, "the total adds 0.15 of it");

	/* rows of aux_weight 0 add nothing; no target: no auxiliary loss and
	 * no gradient of the auxiliary parameters */
	gt_tensor aw;
	for (int k = 0; k < gt_arch_ntensors(&a); k++) {
		gt_arch_tensor(&a, k, &aw);
		if (!strcmp(aw.name, "pol.aux.w"))
			break;
	}
	t.aux_policy = NULL;
	gt_nn_zero_grad(nn);
	gt_nn_forward(nn, d.B, d.n, d.planes, d.glob, 1, NULL);
	gt_nn_backward(nn, &t, NULL, &l);
	double gsum = 0;
	for (size_t i = 0; i < 3 + 1 + 6 + 1; i++)
		gsum += fabs(gt_nn_grads(nn)[aw.offset + i]);
	ok(l.aux_policy == 0 && gsum == 0, "no target: auxiliary loss 0, its parameters' gradient 0");
	t = nn_batch_target(&d);
	float keep[2] = {d.aweight[0], d.aweight[1]};
	d.aweight[0] = d.aweight[1] = 0; /* row 2 is 0 already */
	gt_nn_zero_grad(nn);
	gt_nn_backward(nn, &t, NULL, &l);
	gsum = 0;
	for (size_t i = 0; i < 3 + 1 + 6 + 1; i++)
		gsum += fabs(gt_nn_grads(nn)[aw.offset + i]);
	ok(l.aux_policy == 0 && gsum == 0, "every row weight 0: auxiliary loss 0, no gradient");
	d.aweight[0] = keep[0];
	d.aweight[1] = keep[1];

	/* the other outputs are the network's without the head: its tensors
	 * sit between pol.pass.b and val.w */
	float *q = gt_nn_params(plain);
	size_t cut = aw.offset, rest = np0 - cut;
	memcpy(q, p, sizeof(float) * cut);
	memcpy(q + cut, p + cut + 11, sizeof(float) * rest);
	gt_nn_sync_params(plain);
	gt_nn_out o0;
	gt_nn_forward(nn, d.B, d.n, d.planes, d.glob, 0, &o);
	gt_nn_forward(plain, d.B, d.n, d.planes, d.glob, 0, &o0);
	int same = o0.aux_policy == NULL;
	for (int i = 0; i < d.B * (N + 1); i++)
		same &= o.policy[i] == o0.policy[i];
	for (int i = 0; i < d.B; i++)
		same &= o.value[i] == o0.value[i] && o.score[i] == o0.score[i];
	for (int i = 0; i < d.B * N; i++)
		same &= o.own[i] == o0.own[i];
	ok(same, "policy, value, score and ownership are bit for bit the network's without the head");
	ok(gt_nn_new(&a, "cuda", &e) == NULL, "the cuda backend refuses it: %s", e.text);
	a.heads = 2;
	ok(gt_arch_check(&a, &e) != 0, "unknown heads refused: %s", e.text);
	nn_batch_free(&d);
	gt_nn_free(nn);
	gt_nn_free(plain);
}

int main(void)
{
	gt_arch a;
	gt_error e;
	gt_arch_default(&a, 2, 4, 5, 3, 1);
	a.head_policy = 3;
	a.head_value = 3;
	a.value_hidden = 5;
	gt_nn *nn = gt_nn_new(&a, "cpu", &e);
	ok(nn != NULL, "network b2c4 created");
	ok(gt_nn_new(&a, "tpu", &e) == NULL, "unknown backend refused: %s", e.text);
	size_t np = gt_nn_nparams(nn);
	float *p = gt_nn_params(nn);
	/* random parameters everywhere (not Fixup's zeros, so that every path
	 * carries gradient), biases positive-ish so ReLUs are mixed */
	for (size_t i = 0; i < np; i++)
		p[i] = (float)((nn_rand(&rs) * 2 - 1) * 0.5);
	nn_batch d;
	nn_batch_make(&d, &a, 3, 4, &rs);

	static const struct { const char *name; gt_nn_lossw w; } terms[] = {
		{"policy", {1, 0, 0, 0, 0}}, {"value", {0, 1, 0, 0, 0}},
		{"score", {0, 0, 1, 0, 0}}, {"ownership", {0, 0, 0, 1, 0}},
		{"all terms", {1, 1, 0.5f, 0.5f, 0.15f}},
	};
	for (size_t k = 0; k < sizeof terms / sizeof terms[0]; k++)
		is_int(gradcheck(nn, &d, &terms[k].w, terms[k].name), 0,
		       "gradient of the %s loss matches finite differences", terms[k].name);

	/* convolutions split into chunks of one board */
	gt_nn_cpu_chunk(1);
	is_int(gradcheck(nn, &d, &GT_NN_LOSSW_DEFAULT, "one board per chunk"), 0,
	       "gradient with one board per convolution chunk");
	gt_nn_cpu_chunk(GT_NN_CPU_CHUNK_MAX);

	/* board size 2 and 7 with the same weights */
	is_int(check_size(nn, 7, "7x7"), 0, "gradient on 7x7 with the same weights");
	is_int(check_size(nn, 2, "2x2"), 0, "gradient on 2x2 with the same weights");

	/* a batch evaluates each row as if alone */
	gt_nn_out o;
	gt_nn_forward(nn, 3, 4, d.planes, d.glob, 0, &o);
	float pol2[17], v2 = o.value[2], s2 = o.score[2], own2 = o.own[2 * 16 + 5];
	memcpy(pol2, o.policy + 2 * 17, sizeof pol2);
	gt_nn_forward(nn, 1, 4, d.planes + 2 * 5 * 16, d.glob + 2 * 3, 0, &o);
	double md = 0;
	for (int i = 0; i < 17; i++)
		md = fmax(md, fabs(pol2[i] - o.policy[i]));
	ok(md < 1e-5 && fabs(v2 - o.value[0]) < 1e-6 && fabs(s2 - o.score[0]) < 1e-4 &&
	   fabs(own2 - o.own[5]) < 1e-6, "row 2 of a batch equals the row alone (%.2g)", md);

	/* gradients accumulate: twice backward = 2x */
	{
		gt_nn_target t = nn_batch_target(&d);
		float *g = gt_nn_grads(nn), *g1 = malloc(sizeof(float) * np);
		gt_nn_zero_grad(nn);
		gt_nn_forward(nn, d.B, d.n, d.planes, d.glob, 1, NULL);
		gt_nn_backward(nn, &t, NULL, NULL);
		memcpy(g1, g, sizeof(float) * np);
		gt_nn_backward(nn, &t, NULL, NULL);
		double m = 0;
		for (size_t i = 0; i < np; i++)
			m = fmax(m, fabs(g[i] - 2 * g1[i]));
		ok(m < 1e-5, "backward accumulates into the gradient");
		free(g1);
		gt_nn_forward(nn, d.B, d.n, d.planes, d.glob, 0, NULL);
		is_int(gt_nn_backward(nn, &t, NULL, NULL), GT_EINVAL,
		       "backward after a play-only forward is refused");
	}
	is_int(gt_nn_forward(nn, 1, 20, d.planes, d.glob, 0, NULL), GT_EINVAL,
	       "board larger than max_n refused");

	/* Fixup init: zero second convolutions make each block the identity */
	gt_arch_init_params(&a, p, 7);
	gt_tensor t;
	int found = 0;
	for (int k = 0; k < gt_arch_ntensors(&a); k++) {
		gt_arch_tensor(&a, k, &t);
		if (!strcmp(t.name, "blk1.w2")) {
			found = 1;
			double s = 0;
			for (size_t i = 0; i < t.size; i++)
				s += fabs(p[t.offset + i]);
			is_dbl(s, 0, 0, "Fixup init: blk1.w2 is zero");
		}
		if (!strcmp(t.name, "blk0.s"))
			is_dbl(p[t.offset], 1, 0, "Fixup init: blk0.s is 1");
	}
	ok(found, "tensor blk1.w2 exists");
	/* training end to end: AdamW from the Fixup init fits a small batch */
	{
		nn_batch f;
		nn_batch_make(&f, &a, 8, 5, &rs);
		gt_optim_conf oc = gt_optim_defaults(GT_OPTIM_ADAMW);
		oc.lr = 1e-2f;
		gt_optim *opt = gt_optim_new(&oc, np);
		gt_nn_target t = {f.pol, f.val, f.score, f.own, NULL, NULL, NULL};
		gt_nn_loss l0, l;
		for (int k = 0; k < 150; k++) {
			gt_nn_zero_grad(nn);
			gt_nn_forward(nn, f.B, f.n, f.planes, f.glob, 1, NULL);
			gt_nn_backward(nn, &t, NULL, k ? &l : &l0);
			gt_optim_step(opt, p, gt_nn_grads(nn));
			gt_nn_sync_params(nn);
		}
		diag("loss %.4f -> %.4f after 150 AdamW steps (policy %.3f -> %.3f, value %.3f -> %.3f, score %.3f -> %.3f, own %.3f -> %.3f)",
		     l0.total, l.total, l0.policy, l.policy, l0.value, l.value, l0.score, l.score, l0.own, l.own);
		/* the value loss cannot go below the entropy of its targets */
		double floor = 0;
		for (int b = 0; b < f.B; b++) {
			double q = (1 + f.val[b]) / 2;
			floor -= (q * log(q) + (1 - q) * log(1 - q)) / f.B;
		}
		diag("value loss floor (target entropy) %.4f", floor);
		ok(l.value - floor < 0.1 * (l0.value - floor),
		   "training removes 90%% of the value loss above its floor");
		ok(l.score < 0.05 * l0.score, "training fits the scores");
		ok(l.total < l0.total - 0.5, "total loss falls");
		gt_optim_free(opt);
		nn_batch_free(&f);
	}
	nn_batch_free(&d);
	gt_nn_free(nn);
	gpool();
	aux_head();
	return done_testing();
}
