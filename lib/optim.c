/* optim.c: SGD, Adam, AdamW over flat arrays (see optim.h for formulas). */
#include "optim.h"
#include "gt.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct gt_optim {
	gt_optim_conf c;
	size_t n;
	float *m, *v;
	int64_t step;
};

gt_optim_conf gt_optim_defaults(int kind)
{
	gt_optim_conf c = {kind, 1e-3f, 0.9f, 0, 0.9f, 0.999f, 1e-8f, 0};
	if (kind == GT_OPTIM_ADAMW)
		c.weight_decay = 1e-4f;
	return c;
}

gt_optim *gt_optim_new(const gt_optim_conf *c, size_t n)
{
	if (c->kind < GT_OPTIM_SGD || c->kind > GT_OPTIM_ADAMW)
		return NULL;
	gt_optim *o = gt_xcalloc(1, sizeof *o);
	o->c = *c;
	o->n = n;
	o->m = gt_xcalloc(n ? n : 1, sizeof(float));
	if (c->kind != GT_OPTIM_SGD)
		o->v = gt_xcalloc(n ? n : 1, sizeof(float));
	return o;
}

void gt_optim_free(gt_optim *o)
{
	if (!o)
		return;
	gt_free_all(o->m, o->v, o);
}

gt_optim_conf *gt_optim_conf_get(gt_optim *o)
{
	return &o->c;
}

void gt_optim_step(gt_optim *o, float *p, const float *g)
{
	const gt_optim_conf *c = &o->c;
	float lr = c->lr, wd = c->weight_decay;
	o->step++;
	if (c->kind == GT_OPTIM_SGD) {
		float mu = c->momentum;
		for (size_t i = 0; i < o->n; i++) {
			float gi = g[i] + wd * p[i];
			o->m[i] = mu * o->m[i] + gi;
			p[i] -= lr * (c->nesterov ? gi + mu * o->m[i] : o->m[i]);
		}
		return;
	}
	float b1 = c->beta1, b2 = c->beta2, eps = c->eps;
	double bc1 = 1.0 - pow(b1, (double)o->step), bc2 = 1.0 - pow(b2, (double)o->step);
	float a = (float)(lr / bc1), sb = (float)(1.0 / sqrt(bc2));
	int decoupled = c->kind == GT_OPTIM_ADAMW;
	for (size_t i = 0; i < o->n; i++) {
		float gi = decoupled ? g[i] : g[i] + wd * p[i];
		if (decoupled)
			p[i] -= lr * wd * p[i];
		o->m[i] = b1 * o->m[i] + (1 - b1) * gi;
		o->v[i] = b2 * o->v[i] + (1 - b2) * gi * gi;
		p[i] -= a * o->m[i] / (sqrtf(o->v[i]) * sb + eps);
	}
}

size_t gt_optim_state(gt_optim *o, float **m, float **v, int64_t **step)
{
	if (m)
		*m = o->m;
	if (v)
		*v = o->v;
	if (step)
		*step = &o->step;
	return o->n;
}

double gt_grad_norm(const float *g, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += (double)g[i] * g[i];
	return sqrt(s);
}

double gt_grad_clip(float *g, size_t n, double max_norm)
{
	double norm = gt_grad_norm(g, n);
	if (norm > max_norm && norm > 0) {
		float k = (float)(max_norm / norm);
		for (size_t i = 0; i < n; i++)
			g[i] *= k;
	}
	return norm;
}

int gt_lr_sched_on(const gt_lr_sched *s)
{
	return s->warmup > 0 || s->nstages > 0;
}

double gt_lr_at(const gt_lr_sched *s, double lr, int64_t R)
{
	if (s->warmup > 0 && R < s->warmup)
		lr *= (double)R / (double)s->warmup;
	double f = 1;
	for (int i = 0; i < s->nstages && s->rows[i] <= R; i++)
		f = s->factor[i];
	return lr * f;
}

int gt_lr_parse_decay(const char *text, gt_lr_sched *s, gt_error *e)
{
	int64_t rows[GT_LR_STAGES_MAX];
	double factor[GT_LR_STAGES_MAX];
	int n = 0;
	const char *p = text;
	for (;;) {
		if (n == GT_LR_STAGES_MAX)
			return gt_error_set(e, GT_EINVAL, -1, -1, "more than %d stages",
			                    GT_LR_STAGES_MAX);
		char *end;
		errno = 0;
		long long r = *p >= '0' && *p <= '9' ? strtoll(p, &end, 10) : -1;
		if (r < 1 || r > 1000000000000000LL || errno || *end != ':')
			return gt_error_set(e, GT_EINVAL, -1, -1,
			                    "stage %d: want ROWS:FACTOR with ROWS 1..10^15", n + 1);
		p = end + 1;
		errno = 0;
		double f = *p >= '0' && *p <= '9' ? strtod(p, &end) : -1;
		if (!(f >= 0 && f <= 1000) || errno || (*end != ',' && *end != 0))
			return gt_error_set(e, GT_EINVAL, -1, -1, "stage %d: FACTOR not in 0..1000",
			                    n + 1);
		if (n > 0 && r <= rows[n - 1])
			return gt_error_set(e, GT_EINVAL, -1, -1,
			                    "stage %d: rows %lld not above the stage before's", n + 1, r);
		rows[n] = r;
		factor[n++] = f;
		if (*end == 0)
			break;
		p = end + 1;
	}
	memcpy(s->rows, rows, (size_t)n * sizeof *rows);
	memcpy(s->factor, factor, (size_t)n * sizeof *factor);
	s->nstages = n;
	return 0;
}

void gt_ema_update(float *avg, const float *p, size_t n, double decay, int64_t t)
{
	if (t <= 1) {
		memcpy(avg, p, n * sizeof *avg);
		return;
	}
	float w = (float)((1 - decay) / (1 - pow(decay, (double)t)));
	for (size_t i = 0; i < n; i++)
		avg[i] += w * (p[i] - avg[i]);
}
