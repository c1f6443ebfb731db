/* kataeval.c: a KataGo network as a search evaluator (see kataeval.h). */
#include "kataeval.h"
#include "feat.h"
#include "katafeat.h"
#include "katago.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct kataeval {
	gt_kata *k;
	gt_katafeat_ws *ws;
	gt_feat_buf in;
	int exact;
} kataeval;

/* win, loss and no-result probabilities from the value logits v[3] of a
 * position on b: the no-result outcome dropped under superko rules (area
 * scoring only), as KataGo does */
static void wln(const float *v, const gt_board *b, double *w, double *l, double *nr)
{
	int superko = b->rules->ko != GT_KO_SIMPLE;
	double m = v[0] > v[1] ? v[0] : v[1];
	if (!superko && v[2] > m)
		m = v[2];
	*w = exp(v[0] - m);
	*l = exp(v[1] - m);
	*nr = superko ? 0.0 : exp(v[2] - m);
	double s = *w + *l + *nr;
	*w /= s;
	*l /= s;
	*nr /= s;
}

static double softplus(double x)
{
	return x > 30 ? x : log1p(exp(x));
}

static int ke_eval(void *ctx, int n, int nb, const gt_board *const *boards, float *logits,
                   float *value, float *score, float *own)
{
	kataeval *ke = ctx;
	int np = n * n;
	gt_feat_buf_fit(&ke->in, nb, n, GT_KATAFEAT_PLANES, GT_KATAFEAT_GLOBALS);
	for (int i = 0; i < nb; i++) {
		int r = gt_katafeat_encode(boards[i], -1, -1, ke->ws,
		                           ke->in.planes + (size_t)i * GT_KATAFEAT_PLANES * np,
		                           ke->in.globals + (size_t)i * GT_KATAFEAT_GLOBALS);
		if (r)
			return r;
	}
	const gt_kata_info *in = gt_kata_info_of(ke->k);
	int step = ke->exact ? 1 : nb, S = in->score_outputs;
	for (int i = 0; i < nb; i += step) {
		int k = nb - i < step ? nb - i : step;
		gt_kata_out out;
		int r = gt_kata_forward(ke->k, k, n, ke->in.planes + (size_t)i * GT_KATAFEAT_PLANES * np,
		                        ke->in.globals + (size_t)i * GT_KATAFEAT_GLOBALS, &out);
		if (r)
			return r;
		memcpy(logits + (size_t)i * (np + 1), out.policy, (size_t)k * (np + 1) * sizeof(float));
		for (int j = 0; j < k; j++) {
			double w, l, nr;
			wln(out.value + 3 * j, boards[i + j], &w, &l, &nr);
			value[i + j] = (float)(w - l);
			if (score)
				score[i + j] = (float)(out.score[(size_t)j * S + 2] * in->lead_mult * (1.0 - nr));
		}
		if (own)
			for (size_t q = 0; q < (size_t)k * np; q++)
				own[(size_t)i * np + q] = tanhf(out.own[q]);
	}
	return 0;
}

/* every output of one position, post-processed as KataGo's NNEvaluator
 * does (cpp/neuralnet/nneval.cpp, v1.17.2): score mean and lead times
 * their multipliers and 1 - P(no result), the stdev and varTimeLeft
 * through softplus; the short-term errors from score outputs 5 and 6
 * (absent before model version 9: -1) */
static int ke_raw(void *ctx, const gt_board *b, float *logits, float *own, gt_eval_raw *o)
{
	kataeval *ke = ctx;
	int n = b->n, np = n * n;
	gt_feat_buf_fit(&ke->in, 1, n, GT_KATAFEAT_PLANES, GT_KATAFEAT_GLOBALS);
	int r = gt_katafeat_encode(b, -1, -1, ke->ws, ke->in.planes, ke->in.globals);
	gt_kata_out out;
	if (!r)
		r = gt_kata_forward(ke->k, 1, n, ke->in.planes, ke->in.globals, &out);
	if (r)
		return r;
	const gt_kata_info *in = gt_kata_info_of(ke->k);
	const float *sc = out.score;
	memcpy(logits, out.policy, (size_t)(np + 1) * sizeof *logits);
	for (int p = 0; p < np; p++)
		own[p] = tanhf(out.own[p]);
	wln(out.value, b, &o->win, &o->loss, &o->noresult);
	double mean = sc[0] * in->score_mean_mult, sd = softplus(sc[1]) * in->score_stdev_mult;
	o->score_mean = mean * (1 - o->noresult);
	o->score_mean_sq = (mean * mean + sd * sd) * (1 - o->noresult);
	o->lead = sc[2] * in->lead_mult * (1 - o->noresult);
	o->var_time_left = softplus(sc[3]) * in->var_time_mult;
	o->st_wr_error = o->st_score_error = -1;
	if (in->score_outputs >= 6) {
		if (in->version >= 14) {
			double s = softplus(sc[4] * 0.5), t = softplus(sc[5] * 0.5);
			o->st_wr_error = sqrt(s * s * in->st_value_mult);
			o->st_score_error = sqrt(t * t * in->st_score_mult);
		} else if (in->version >= 10) {
			o->st_wr_error = sqrt(softplus(sc[4]) * in->st_value_mult);
			o->st_score_error = sqrt(softplus(sc[5]) * in->st_score_mult);
		} else {
			o->st_wr_error = softplus(sc[4]);
			o->st_score_error = softplus(sc[5]) * 10.0;
		}
	}
	return 0;
}

static void ke_close(void *ctx)
{
	kataeval *ke = ctx;
	gt_kata_free(ke->k);
	gt_katafeat_ws_free(ke->ws);
	gt_feat_buf_release(&ke->in);
	free(ke);
}

int gt_kataeval_open(const char *path, const char *backend, gt_evaluator *ev, gt_error *e)
{
	memset(ev, 0, sizeof *ev);
	if (backend && strcmp(backend, "cpu") != 0 && strcmp(backend, "auto") != 0)
		return gt_error_set(e, GT_EUNSUPPORTED, -1, -1,
		                    "%s: KataGo networks run on the cpu backend only, not %s", path, backend);
	gt_kata *k;
	int r = gt_kata_read(path, &k, e);
	if (r)
		return r;
	kataeval *ke = gt_xcalloc(1, sizeof *ke);
	ke->k = k;
	ke->ws = gt_katafeat_ws_new();
	ev->ctx = ke;
	ev->eval = ke_eval;
	ev->close = ke_close;
	ev->name = "katago";
	ev->raw = ke_raw;
	return 0;
}

int gt_kataeval_is(const gt_evaluator *ev)
{
	return ev && ev->eval == ke_eval;
}

int gt_kataeval_conv_batch(gt_evaluator *ev, int on)
{
	if (!gt_kataeval_is(ev))
		return GT_EINVAL;
	gt_kata_conv_batch(((kataeval *)ev->ctx)->k, on);
	return 0;
}

int gt_kataeval_precision(gt_evaluator *ev, int prec, const char **why)
{
	if (!gt_kataeval_is(ev))
		return -1;
	return gt_kata_precision(((kataeval *)ev->ctx)->k, prec, why);
}

int gt_kataeval_set_exact(gt_evaluator *ev, int on)
{
	if (!gt_kataeval_is(ev))
		return GT_EINVAL;
	((kataeval *)ev->ctx)->exact = on != 0;
	return 0;
}
