/* nn_loss.c: the training objective of lib/nn (the loss of nn.h) and its
 * gradient with respect to the raw head outputs, on the host, for every
 * backend (nn_backend.h). */
#include "nn.h"
#include "nn_backend.h"

#include <math.h>

/* softplus(a) - q a: binary cross-entropy of sigmoid(a) against q */
static double bce(double a, double q)
{
	double sp = a > 0 ? a + log1p(exp(-a)) : log1p(exp(a));
	return sp - q * a;
}

static double sigm(double a)
{
	return 1.0 / (1.0 + exp(-a));
}

/* the cross-entropy of the logits lg (N+1) against the target pi, and,
 * when point is not NULL, its gradient times scale into point (N) and
 * *pass: softmax * sum(pi) - pi */
static double policy_ce(const float *lg, const float *pi, size_t N, double scale, float *point,
                        float *pass)
{
	double mx = lg[0], se = 0, spi = 0, ce = 0;
	for (size_t i = 1; i <= N; i++)
		mx = lg[i] > mx ? lg[i] : mx;
	for (size_t i = 0; i <= N; i++)
		se += exp(lg[i] - mx);
	double lse = mx + log(se);
	for (size_t i = 0; i <= N; i++) {
		spi += pi[i];
		if (pi[i] != 0)
			ce -= pi[i] * (lg[i] - lse);
	}
	if (point) {
		for (size_t i = 0; i < N; i++)
			point[i] = (float)(scale * (exp(lg[i] - lse) * spi - pi[i]));
		*pass = (float)(scale * (exp(lg[N] - lse) * spi - pi[N]));
	}
	return ce;
}

/* value = tanh(v) = 2 sigmoid(2v) - 1, so the value's cross-entropy is
 * that of sigmoid(2v) against (1+target)/2; the same per ownership point */
void gt_nn_head_loss(int B, size_t N, const gt_nn_heads *h, const gt_nn_target *t,
                     const gt_nn_lossw *w, gt_nn_loss *loss, const gt_nn_dheads *d)
{
	double lp = 0, lv = 0, ls = 0, lo = 0, la = 0;
	int aux = h->aux && t->aux_policy;
	for (int b = 0; b < B; b++) {
		double wb = (t->weight ? t->weight[b] : 1.0) / B;
		lp += wb * policy_ce(h->policy + b * (N + 1), t->policy + b * (N + 1), N,
		                     wb * w->policy, d ? d->point + b * N : NULL,
		                     d ? d->pass + b : NULL);
		if (h->aux && d && !aux) { /* a head without a target: no gradient */
			for (size_t i = 0; i < N; i++)
				d->aux_point[b * N + i] = 0;
			d->aux_pass[b] = 0;
		}
		if (aux) {
			double wa = wb * (t->aux_weight ? t->aux_weight[b] : 1.0);
			la += wa * policy_ce(h->aux + b * (N + 1), t->aux_policy + b * (N + 1), N,
			                     wa * w->aux_policy, d ? d->aux_point + b * N : NULL,
			                     d ? d->aux_pass + b : NULL);
		}

		double av = 2.0 * h->vpre[b], qv = (1.0 + t->value[b]) / 2;
		lv += wb * bce(av, qv);
		double ds = h->sraw[b] - t->score[b] / GT_NN_SCORE_SCALE;
		ls += wb * (fabs(ds) <= 1 ? 0.5 * ds * ds : fabs(ds) - 0.5);
		if (d) {
			d->vpre[b] = (float)(wb * w->value * 2 * (sigm(av) - qv));
			d->sraw[b] = (float)(wb * w->score * (ds > 1 ? 1 : ds < -1 ? -1 : ds));
		}
		for (size_t q = 0; q < N; q++) {
			size_t i = b * N + q;
			if (!t->own) {
				if (d)
					d->opre[i] = 0;
				continue;
			}
			double ao = 2.0 * h->opre[i], qo = (1.0 + t->own[i]) / 2;
			lo += wb * bce(ao, qo) / N;
			if (d)
				d->opre[i] = (float)(wb * w->own * 2 * (sigm(ao) - qo) / N);
		}
	}
	if (loss) {
		loss->policy = lp;
		loss->value = lv;
		loss->score = ls;
		loss->own = lo;
		loss->aux_policy = la;
		loss->total = w->policy * lp + w->value * lv + w->score * ls + w->own * lo +
		              (aux ? w->aux_policy * la : 0);
	}
}
