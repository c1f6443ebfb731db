/* evsplit.c: a batch cut into slices evaluated on threads (evsplit.h). */
#include "evsplit.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct split {
	gt_evaluator *inner; /* k evaluators, owned */
	int k;
} split;

/* one slice's call */
typedef struct slice {
	const gt_evaluator *ev;
	int n, nb;
	const gt_board *const *boards;
	float *logits, *value, *score, *own;
	int err;
} slice;

static void *slice_run(void *arg)
{
	slice *s = arg;
	s->err = s->ev->eval(s->ev->ctx, s->n, s->nb, s->boards, s->logits, s->value, s->score,
	                     s->own);
	return NULL;
}

static int split_eval(void *ctx, int n, int nb, const gt_board *const *boards, float *logits,
                      float *value, float *score, float *own)
{
	split *c = ctx;
	int ns = nb / GT_EVSPLIT_MIN;
	if (ns > c->k)
		ns = c->k;
	if (ns <= 1)
		return c->inner[0].eval(c->inner[0].ctx, n, nb, boards, logits, value, score, own);
	slice sl[ns];
	pthread_t th[ns];
	int started[ns];
	size_t np = (size_t)n * n;
	for (int i = 0, off = 0; i < ns; i++) {
		int m = nb / ns + (i < nb % ns);
		sl[i] = (slice){ &c->inner[i], n, m, boards + off, logits + off * (np + 1), value + off,
		                 score ? score + off : NULL, own ? own + off * np : NULL, 0 };
		off += m;
	}
	/* slices 1.. on their threads, slice 0 here (and any slice whose
	 * thread could not start) */
	for (int i = 1; i < ns; i++)
		started[i] = pthread_create(&th[i], NULL, slice_run, &sl[i]) == 0;
	slice_run(&sl[0]);
	int err = sl[0].err;
	for (int i = 1; i < ns; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else
			slice_run(&sl[i]);
		if (!err)
			err = sl[i].err;
	}
	return err;
}

static void split_close(void *ctx)
{
	split *c = ctx;
	for (int i = 0; i < c->k; i++)
		gt_evaluator_close(&c->inner[i]);
	free(c->inner);
	free(c);
}

static int split_raw(void *ctx, const gt_board *b, float *logits, float *own, gt_eval_raw *out)
{
	split *c = ctx;
	return gt_evaluator_raw(&c->inner[0], b, logits, own, out);
}

int gt_evsplit_wrap(gt_evaluator *evs, int k)
{
	if (k <= 1)
		return 0;
	split *c = gt_xcalloc(1, sizeof *c);
	c->k = k;
	c->inner = gt_xmalloc(k * sizeof *c->inner);
	memcpy(c->inner, evs, k * sizeof *evs);
	memset(evs, 0, k * sizeof *evs);
	evs[0] = (gt_evaluator){ c, split_eval, split_close, c->inner[0].name,
	                         c->inner[0].raw ? split_raw : NULL };
	return 0;
}
