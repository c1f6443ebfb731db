/* neteval.c: the network behind the search's evaluator interface. */
#include "neteval.h"
#include "feat.h"
#include "kataeval.h"
#include "katago.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct neteval {
	gt_nn *nn;
	gt_feat_buf in;
	int exact;     /* one forward pass per position */
} neteval;

static int ne_eval(void *ctx, int n, int nb, const gt_board *const *boards, float *logits,
                   float *value, float *score, float *own)
{
	neteval *ne = ctx;
	int np = n * n;
	gt_feat_buf_fit(&ne->in, nb, n, GT_FEAT_PLANES, GT_FEAT_GLOBALS);
	for (int i = 0; i < nb; i++) {
		int r = gt_feat_encode(boards[i], ne->in.planes + (size_t)i * GT_FEAT_PLANES * np,
		                       ne->in.globals + (size_t)i * GT_FEAT_GLOBALS);
		if (r)
			return r;
	}
	int step = ne->exact ? 1 : nb;
	for (int i = 0; i < nb; i += step) {
		int k = nb - i < step ? nb - i : step;
		gt_nn_out out;
		int r = gt_nn_forward(ne->nn, k, n, ne->in.planes + (size_t)i * GT_FEAT_PLANES * np,
		                      ne->in.globals + (size_t)i * GT_FEAT_GLOBALS, 0, &out);
		if (r)
			return r;
		memcpy(logits + (size_t)i * (np + 1), out.policy, (size_t)k * (np + 1) * sizeof(float));
		memcpy(value + i, out.value, (size_t)k * sizeof(float));
		if (score)
			memcpy(score + i, out.score, (size_t)k * sizeof(float));
		if (own)
			memcpy(own + (size_t)i * np, out.own, (size_t)k * np * sizeof(float));
	}
	return 0;
}

static void ne_close(void *ctx)
{
	neteval *ne = ctx;
	gt_nn_free(ne->nn);
	gt_feat_buf_release(&ne->in);
	free(ne);
}

int gt_neteval_open(const gt_model *m, const char *backend, gt_evaluator *ev, gt_error *e)
{
	memset(ev, 0, sizeof *ev);
	gt_nn *nn = gt_model_nn(m, backend, e);
	if (!nn)
		return GT_EUNSUPPORTED;
	neteval *ne = gt_xcalloc(1, sizeof *ne);
	ne->nn = nn;
	ev->ctx = ne;
	ev->eval = ne_eval;
	ev->close = ne_close;
	ev->name = "network";
	return 0;
}

const char *gt_neteval_backend(const gt_evaluator *ev)
{
	if (gt_kataeval_is(ev))
		return "cpu";
	if (ev->eval != ne_eval)
		return NULL;
	return gt_nn_backend_name(((const neteval *)ev->ctx)->nn);
}

int gt_neteval_max_n(const gt_evaluator *ev)
{
	if (ev->eval != ne_eval)
		return GT_MAX_N;
	int n = gt_nn_arch(((const neteval *)ev->ctx)->nn)->max_n;
	return n < GT_MAX_N ? n : GT_MAX_N;
}

int gt_neteval_conv_batch(gt_evaluator *ev, int on)
{
	if (gt_kataeval_is(ev))
		return gt_kataeval_conv_batch(ev, on);
	if (ev->eval != ne_eval)
		return GT_EINVAL;
	gt_nn_conv_batch(((neteval *)ev->ctx)->nn, on);
	return 0;
}

int gt_neteval_precision(gt_evaluator *ev, int prec, const char **why)
{
	if (why)
		*why = NULL;
	if (gt_kataeval_is(ev))
		return gt_kataeval_precision(ev, prec, why);
	if (ev->eval != ne_eval)
		return -1;
	return gt_nn_precision(((neteval *)ev->ctx)->nn, prec, why);
}

int gt_neteval_set_exact(gt_evaluator *ev, int on)
{
	if (gt_kataeval_is(ev))
		return gt_kataeval_set_exact(ev, on);
	if (ev->eval != ne_eval)
		return GT_EINVAL;
	((neteval *)ev->ctx)->exact = on != 0;
	return 0;
}

int gt_neteval_open_file(const char *path, const char *backend, gt_evaluator *ev, char *name,
                         size_t size, gt_error *e)
{
	memset(ev, 0, sizeof *ev);
	if (strcmp(path, "none") == 0) {
		*ev = gt_evaluator_uniform();
		if (name && size)
			snprintf(name, size, "none");
		return 0;
	}
	int r;
	if (gt_kata_sniff(path) == 1) {
		r = gt_kataeval_open(path, backend, ev, e);
	} else {
		gt_model *m;
		r = gt_model_read(path, &m, e);
		if (r)
			return r;
		r = gt_neteval_open(m, backend, ev, e);
		gt_model_free(m);
	}
	if (r)
		return r;
	if (name && size) {
		const char *base = strrchr(path, '/');
		base = base ? base + 1 : path;
		snprintf(name, size, "%s", base);
		size_t l = strlen(name);
		if (l > 7 && strcmp(name + l - 7, ".bin.gz") == 0)
			name[l - 7] = 0;
		else if (l > 4 && strcmp(name + l - 4, ".bin") == 0)
			name[l - 4] = 0;
	}
	return 0;
}
