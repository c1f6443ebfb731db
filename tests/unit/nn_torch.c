/* nn_torch: gt's network, loss, gradients and optimizers against an
 * independent PyTorch float64 reference (tests/py/nn_torch.py), which
 * reads the weights from a gt model file with its own reader
 * (networks with global pooling blocks and the auxiliary policy head too)
 * (tests/py/gtmodel.py). Tolerance: max |gt - torch| <= 1e-4 * max |torch|
 * per output and per parameter tensor. */
#include "testutil.h"
#include "feat.h"
#include "nn_batch.h"
#include "model.h"
#include "nn.h"
#include "nn_backend.h"
#include "optim.h"

#include <unistd.h>

static char dir[] = "/tmp/gt-nn-torch.XXXXXX";

static void wr(const char *name, const float *p, size_t n)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s.f32", dir, name);
	FILE *f = fopen(path, "wb");
	fwrite(p, sizeof(float), n, f);
	fclose(f);
}

static float *rd(const char *name, size_t n)
{
	char path[256];
	snprintf(path, sizeof path, "%s/py_%s.f32", dir, name);
	float *p = calloc(n, sizeof(float));
	FILE *f = fopen(path, "rb");
	if (!f || fread(p, sizeof(float), n, f) != n)
		diag("cannot read %s", path);
	if (f)
		fclose(f);
	return p;
}

/* relative max error of got against the reference want */
static double relerr(const float *got, const float *want, size_t n)
{
	double md = 0, mw = 0;
	for (size_t i = 0; i < n; i++) {
		md = fmax(md, fabs((double)got[i] - want[i]));
		mw = fmax(mw, fabs(want[i]));
	}
	return mw > 0 ? md / mw : md;
}

static uint64_t rs = 777;
static double urand(void)
{
	return nn_rand(&rs);
}

/* forward, loss, gradients and optimizer steps of a network of arch */
static void check(const char *arch, const char *src)
{
	gt_arch a;
	gt_error e;
	diag("%s", arch);
	gt_model_parse_arch(arch, &a, &e);
	a.head_policy = 4;
	a.head_value = 5;
	a.value_hidden = 6;
	gt_model *m = gt_model_new(&a, &e);
	for (size_t i = 0; i < m->nparams; i++)
		m->params[i] = (float)((urand() * 2 - 1) * 0.3);
	char path[256];
	snprintf(path, sizeof path, "%s/model.bin.gz", dir);
	is_int(gt_model_write(path, m, &e), 0, "model written");

	int B = 4, n = 5, N = n * n;
	size_t npl = (size_t)B * a.in_planes * N;
	float *planes = malloc(sizeof(float) * npl), *glob = malloc(sizeof(float) * B * a.globals);
	float *tp = malloc(sizeof(float) * B * (N + 1)), tv[4], ts[4], tw[4];
	float *to = malloc(sizeof(float) * B * N);
	float *ta = malloc(sizeof(float) * B * (N + 1)), taw[4] = {1, 1, 0, 1};
	for (size_t i = 0; i < npl; i++)
		planes[i] = urand() < 0.35;
	for (int i = 0; i < B * a.globals; i++)
		glob[i] = (float)(urand() * 2 - 1);
	for (int b = 0; b < B; b++) {
		double s = 0;
		for (int i = 0; i <= N; i++)
			s += tp[b * (N + 1) + i] = (float)(urand() < 0.3 ? urand() : 0);
		tp[b * (N + 1) + N] += 0.1f;
		s += 0.1;
		for (int i = 0; i <= N; i++)
			tp[b * (N + 1) + i] /= (float)s;
		tv[b] = b == 3 ? 0 : (float)(urand() * 2 - 1);
		ts[b] = (float)(urand() * 80 - 40);
		tw[b] = (float)(0.5 + urand());
		for (int i = 0; i < N; i++)
			to[b * N + i] = (float)(urand() * 2 - 1);
		/* the opponent's reply: one-hot on even rows, spread on odd ones */
		s = 0;
		for (int i = 0; i <= N; i++)
			s += ta[b * (N + 1) + i] = b % 2 ? (float)urand() : i == 3 * b;
		for (int i = 0; i <= N; i++)
			ta[b * (N + 1) + i] /= (float)s;
	}
	gt_nn_lossw lw = {1.0f, 1.0f, 0.5f, 0.5f, 0.15f};
	float meta[7] = {(float)B, (float)n, lw.policy, lw.value, lw.score, lw.own, lw.aux_policy};
	wr("meta", meta, 7);
	wr("t_aux", ta, (size_t)B * (N + 1));
	wr("t_auxw", taw, B);
	wr("planes", planes, npl);
	wr("globals", glob, (size_t)B * a.globals);
	wr("t_policy", tp, (size_t)B * (N + 1));
	wr("t_value", tv, B);
	wr("t_score", ts, B);
	wr("t_own", to, (size_t)B * N);
	wr("t_weight", tw, B);

	/* gt: forward, loss, backward */
	gt_model *r = NULL;
	is_int(gt_model_read(path, &r, &e), 0, "model read back");
	gt_nn *nn = gt_nn_new(&r->arch, "cpu", &e);
	gt_nn_cpu_chunk(60);  /* 2 boards per im2col chunk: 2 chunks */
	memcpy(gt_nn_params(nn), r->params, r->nparams * sizeof(float));
	gt_nn_sync_params(nn);
	gt_nn_out o;
	gt_nn_loss l;
	gt_nn_target t = {tp, tv, ts, to, tw, ta, taw};
	gt_nn_zero_grad(nn);
	is_int(gt_nn_forward(nn, B, n, planes, glob, 1, &o), 0, "forward");
	is_int(gt_nn_backward(nn, &t, &lw, &l), 0, "backward");
	size_t np = gt_nn_nparams(nn);
	float *grads = gt_nn_grads(nn);

	/* optimizers: 3 steps with the gradient held fixed */
	gt_optim_conf oc[3] = {gt_optim_defaults(GT_OPTIM_SGD), gt_optim_defaults(GT_OPTIM_ADAM),
	                       gt_optim_defaults(GT_OPTIM_ADAMW)};
	float conf[6] = {0.01f, 0.9f, 0.01f, 0.9f, 0.999f, 1e-8f};
	float *delta[3];
	for (int k = 0; k < 3; k++) {
		oc[k].lr = conf[0];
		oc[k].momentum = conf[1];
		oc[k].nesterov = 1;
		oc[k].weight_decay = conf[2];
		oc[k].beta1 = conf[3];
		oc[k].beta2 = conf[4];
		oc[k].eps = conf[5];
		gt_optim *opt = gt_optim_new(&oc[k], np);
		float *p = malloc(sizeof(float) * np);
		memcpy(p, r->params, sizeof(float) * np);
		for (int s = 0; s < 3; s++)
			gt_optim_step(opt, p, grads);
		for (size_t i = 0; i < np; i++)
			p[i] -= r->params[i];
		delta[k] = p;
		int64_t *step;
		gt_optim_state(opt, NULL, NULL, &step);
		if (k == 0)
			is_int(*step, 3, "optimizer counts its steps");
		gt_optim_free(opt);
	}
	wr("grad_in", grads, np);
	wr("optconf", conf, 6);

	char cmd[1024];
	snprintf(cmd, sizeof cmd, "/usr/bin/python3 '%s/tests/py/nn_torch.py' '%s'", src, dir);
	int rc = system(cmd);
	is_int(rc, 0, "PyTorch reference ran");

	float *pp = rd("policy", (size_t)B * (N + 1)), *pv = rd("value", B), *ps = rd("score", B);
	float *po = rd("own", (size_t)B * N), *pl = rd("loss", 6), *pg = rd("grads", np);
	double er;
	er = relerr(o.policy, pp, (size_t)B * (N + 1));
	ok(er <= 1e-4, "policy logits match PyTorch (rel %.2g)", er);
	er = relerr(o.value, pv, B);
	ok(er <= 1e-4, "value matches PyTorch (rel %.2g)", er);
	er = relerr(o.score, ps, B);
	ok(er <= 1e-4, "score matches PyTorch (rel %.2g)", er);
	er = relerr(o.own, po, (size_t)B * N);
	ok(er <= 1e-4, "ownership matches PyTorch (rel %.2g)", er);
	if (a.heads & GT_ARCH_AUX_POLICY) {
		float *pa = rd("aux", (size_t)B * (N + 1));
		er = relerr(o.aux_policy, pa, (size_t)B * (N + 1));
		ok(er <= 1e-4, "auxiliary policy logits match PyTorch (rel %.2g)", er);
		free(pa);
	}
	float gl[6] = {(float)l.total, (float)l.policy, (float)l.value, (float)l.score, (float)l.own,
	               (float)l.aux_policy};
	static const char *lname[6] = {"total", "policy", "value", "score", "ownership",
	                               "auxiliary policy"};
	for (int k = 0; k < 6; k++)
		ok(fabs(gl[k] - pl[k]) <= 1e-4 * fabs(pl[k]) + 1e-7, "%s loss %.6f matches PyTorch %.6f",
		   lname[k], gl[k], pl[k]);
	int nt = gt_arch_ntensors(&a), bad = 0;
	double worst = 0;
	for (int k = 0; k < nt; k++) {
		gt_tensor tt;
		gt_arch_tensor(&a, k, &tt);
		er = relerr(grads + tt.offset, pg + tt.offset, tt.size);
		worst = fmax(worst, er);
		if (er > 1e-4) {
			bad++;
			diag("gradient of %s: rel %.3g", tt.name, er);
		}
	}
	ok(bad == 0, "%s: gradients of all %d tensors match PyTorch (worst rel %.2g)", arch, nt,
	   worst);
	static const char *oname[3] = {"sgd (nesterov)", "adam", "adamw"};
	static const char *ofile[3] = {"sgd", "adam", "adamw"};
	for (int k = 0; k < 3; k++) {
		float *pd = rd(ofile[k], np);
		er = relerr(delta[k], pd, np);
		ok(er <= 1e-4, "%s: 3 steps match torch.optim (rel %.2g)", oname[k], er);
		free(pd);
		free(delta[k]);
	}

	free(pp); free(pv); free(ps); free(po); free(pl); free(pg);
	free(planes); free(glob); free(tp); free(to); free(ta);
	gt_nn_free(nn);
	gt_model_free(m);
	gt_model_free(r);
}

int main(void)
{
	if (system("/usr/bin/python3 -c 'import torch, numpy' 2>/dev/null") != 0)
		skip_all("PyTorch (python3-torch for /usr/bin/python3) is not installed");
	if (!mkdtemp(dir))
		return 1;
	const char *src = getenv("GT_SRC");
	if (!src)
		src = ".";
	check("b2c8", src);
	/* global pooling blocks 1 and 2 (nn.h), 3 of the 8 channels pooled */
	check("b3c8g1p3", src);
	/* the auxiliary policy head (the opponent's reply), alone and with them */
	check("b2c8a", src);
	check("b3c8g1p3a", src);

	/* grad norm and clipping by hand */
	float gv[3] = {3, 4, 0};
	is_dbl(gt_grad_norm(gv, 3), 5, 1e-12, "gradient norm of (3,4,0)");
	is_dbl(gt_grad_clip(gv, 3, 1), 5, 1e-12, "clip returns the norm before");
	is_dbl(gt_grad_norm(gv, 3), 1, 1e-6, "clipped to norm 1");
	test_rmdir(dir);
	return done_testing();
}
