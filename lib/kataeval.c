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
			const float *v = out.value + 3 * j;
			int superko = boards[i + j]->rules->ko != GT_KO_SIMPLE;
			double m = v[0] > v[1] ? v[0] : v[1];
			if (!superko && v[2] > m)
				m = v[2];
			double w = exp(v[0] - m), l = exp(v[1] - m), nr = superko ? 0.0 : exp(v[2] - m);
			double s = w + l + nr;
			value[i + j] = (float)((w - l) / s);
			if (score)
				score[i + j] = (float)(out.score[(size_t)j * S + 2] * in->lead_mult * (1.0 - nr / s));
		}
		if (own)
			for (size_t q = 0; q < (size_t)k * np; q++)
				own[(size_t)i * np + q] = tanhf(out.own[q]);
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
