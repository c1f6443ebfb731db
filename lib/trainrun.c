/* trainrun.c: a whole gt-train run over lib/train (trainrun.h). */
#include "trainrun.h"
#include "fs.h"
#include "optim.h"
#include "shard.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gt_trainrun {
	gt_trainrun_conf c;
	gt_trainrun_out out;
	const gt_model *parent;
	uint8_t parent_sha[32];
	int has_parent_sha;
	gt_trainer *t;
	gt_shard_window *w, *vw; /* training rows, held-out rows (or NULL) */
	gt_trainrun_metrics iv;  /* the sums since the last metrics line */
};

void gt_trainrun_conf_init(gt_trainrun_conf *c)
{
	*c = (gt_trainrun_conf){ .window = 250000, .steps = 1000, .checkpoint_every = 100,
	                         .log_every = 10, .val_rows = 4096, .max_bad = 10 };
	gt_train_conf_init(&c->train);
}

/* ---- metrics lines ---- */

/* ",\"key\":v" with %.6g, or null where v is not finite */
static int json_num(char *buf, size_t size, const char *key, double v)
{
	return isfinite(v) ? snprintf(buf, size, ",\"%s\":%.6g", key, v) :
	                     snprintf(buf, size, ",\"%s\":null", key);
}

/* v's fields ",\"<pre>policy\":x" ... "<pre>top1" at buf + n (size
 * bytes in all); returns the new n */
static size_t eval_json(char *buf, size_t n, size_t size, const char *pre,
                        const gt_train_eval_info *v, int aux)
{
	static const char *const key[] = {"policy", "value", "score", "ownership", "aux_policy",
	                                  "total", "top1"};
	double x[] = {v->loss.policy, v->loss.value, v->loss.score, v->loss.own,
	              v->loss.aux_policy, v->loss.total, v->top1};
	for (int i = 0; i < 7 && n < size; i++) {
		char k[32];
		if (i == 4 && !aux)
			continue;
		snprintf(k, sizeof k, "%s%s", pre, key[i]);
		n += json_num(buf + n, size - n, k, x[i]);
	}
	return n;
}

char *gt_trainrun_metrics_json(const gt_trainrun_metrics *m, char *buf, size_t size)
{
	double g = m->good ? (double)m->good : NAN;
	double busy = m->sample_s + m->step_s;
	size_t n = 0;
#define PUT(...) do { if (n < size) n += snprintf(buf + n, size - n, __VA_ARGS__); } while (0)
#define NUM(key, v) do { if (n < size) n += json_num(buf + n, size - n, key, v); } while (0)
	PUT("{\"step\":%lld,\"samples\":%lld", (long long)m->k->step, (long long)m->k->samples);
	NUM("policy", m->loss.policy / g);
	NUM("value", m->loss.value / g);
	NUM("score", m->loss.score / g);
	NUM("ownership", m->loss.own / g);
	if (m->aux)
		NUM("aux_policy", m->loss.aux_policy / g);
	NUM("total", m->loss.total / g);
	NUM("lr", m->lr);
	NUM("grad_norm", m->grad_norm / g);
	NUM("samples_per_s", busy > 0 ? m->steps * (double)m->batch / busy : NAN);
	NUM("data_share", busy > 0 ? m->sample_s / busy : NAN);
	PUT(",\"bad_steps\":%lld", (long long)m->k->bad);
	if (m->val) {
		PUT(",\"val_rows\":%ld", m->val->rows);
		n = eval_json(buf, n, size, "val_", m->val, m->aux);
	}
	if (m->val_avg)
		n = eval_json(buf, n, size, "ema_val_", m->val_avg, m->aux);
	PUT("}");
#undef NUM
#undef PUT
	return buf;
}

char *gt_trainrun_metrics_text(const gt_trainrun_metrics *m, char *buf, size_t size)
{
	double g = m->good ? (double)m->good : NAN;
	double busy = m->sample_s + m->step_s;
	int n = snprintf(buf, size, "step %lld loss %.4f (policy %.4f)", (long long)m->k->step,
	                 m->loss.total / g, m->loss.policy / g);
	if (m->val && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - n, " held-out policy %.4f top-1 %.3f",
		              m->val->loss.policy, m->val->top1);
	if (n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - n, ", %.0f samples/s, %lld bad",
		         busy > 0 ? m->steps * (double)m->batch / busy : 0.0, (long long)m->k->bad);
	return buf;
}

/* ---- the run ---- */

static void __attribute__((format(printf, 2, 3))) note(gt_trainrun *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = gt_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	if (r->out.note)
		r->out.note(r->out.ctx, s);
	free(s);
}

/* e's text behind "prefix: " */
static int prefixed(gt_error *e, int code, const char *prefix)
{
	char t[sizeof e->text];
	memcpy(t, e->text, sizeof t);
	return gt_error_set(e, code, e->line, e->offset, "%s: %s", prefix, t);
}

gt_trainrun *gt_trainrun_open(const gt_model *parent, const uint8_t *parent_sha,
                              const gt_trainrun_conf *c, const gt_trainrun_out *out,
                              gt_error *e)
{
	gt_trainrun *r = gt_xcalloc(1, sizeof *r);
	gt_shard_window_info wi;
	int err;
	r->c = *c;
	if (!r->c.val_every)
		r->c.val_every = r->c.log_every;
	r->out = *out;
	r->parent = parent;
	if ((r->has_parent_sha = parent_sha != NULL))
		memcpy(r->parent_sha, parent_sha, 32);
	uint64_t seed = c->train.seed;
	if (c->export_avg && !(c->train.ema > 0)) {
		gt_error_set(e, GT_EINVAL, -1, -1, "--export ema without --ema");
		goto fail;
	}
	if (!(r->t = gt_train_new(parent, &c->train, e)))
		goto fail;
	int flags = gt_train_window_flags(r->t);
	if (!(r->w = gt_shard_window_open_with(c->data, c->window, c->board_size, seed, flags, e)))
		goto fail;
	gt_shard_window_get_info(r->w, &wi);
	if ((err = gt_train_check_window(r->t, r->w, e)) != 0) {
		prefixed(e, err, c->data);
		goto fail;
	}
	if (c->verbose || wi.skipped)
		note(r, "%s: %ld rows of %dx%d from %d shards, %d shards skipped%s%s", c->data,
		     wi.rows, wi.n, wi.n, wi.shards, wi.skipped, wi.skipped ? "; the last: " : "",
		     wi.skipped ? wi.last_skip : "");
	if (flags && (c->verbose || wi.reply_rows < wi.rows / 2))
		note(r, "%s: %ld of %ld rows with the opponent's reply (the auxiliary policy's "
		     "target; shards of older builds have none)", c->data, wi.reply_rows, wi.rows);
	r->iv.aux = flags != 0;
	if (c->valdir) {
		r->vw = gt_shard_window_open_with(c->valdir, c->val_rows, wi.n, seed, flags, e);
		if (!r->vw || (err = gt_train_check_window(r->t, r->vw, e)) != 0) {
			prefixed(e, r->vw ? err : GT_EIO, "--validate");
			goto fail;
		}
	}
	if (c->state) {
		gt_fs_remove_stale_of(c->state); /* of a run killed mid-write */
		err = gt_train_load(r->t, c->state, e);
		if (err == 0)
			note(r, "%s: resuming at step %lld", c->state,
			     (long long)gt_train_get_counts(r->t)->step);
		else if (err != GT_ENOTFOUND)
			goto fail;
	}
	r->iv.k = gt_train_get_counts(r->t);
	r->iv.batch = c->train.batch;
	return r;
fail:
	gt_trainrun_free(r);
	return NULL;
}

void gt_trainrun_free(gt_trainrun *r)
{
	if (!r)
		return;
	gt_shard_window_free(r->vw);
	gt_shard_window_free(r->w);
	gt_train_free(r->t);
	free(r);
}

const gt_train_counts *gt_trainrun_counts(const gt_trainrun *r)
{
	return gt_train_get_counts(r->t);
}

int gt_trainrun_precision(const gt_trainrun *r, const char **why)
{
	return gt_train_precision(r->t, why);
}

/* a metrics line of the steps since the last one, with held-out figures
 * when val; 0 or an error */
static int metrics(gt_trainrun *r, int val, gt_error *e)
{
	gt_train_eval_info vi, va;
	int err, avg = val && gt_train_average(r->t);
	if (val && (err = gt_train_eval(r->t, r->vw, r->c.val_rows, r->c.train.batch, &vi, e)))
		return prefixed(e, err, "--validate");
	if (avg && (err = gt_train_eval_average(r->t, r->vw, r->c.val_rows, r->c.train.batch, &va,
	                                        e)))
		return prefixed(e, err, "--validate");
	r->iv.lr = gt_optim_conf_get(gt_train_optim(r->t))->lr;
	r->iv.val = val ? &vi : NULL;
	r->iv.val_avg = avg ? &va : NULL;
	if (r->out.line)
		r->out.line(r->out.ctx, &r->iv);
	const gt_train_counts *k = r->iv.k;
	int batch = r->iv.batch, aux = r->iv.aux;
	memset(&r->iv, 0, sizeof r->iv);
	r->iv.k = k;
	r->iv.batch = batch;
	r->iv.aux = aux;
	return 0;
}

int gt_trainrun_steps(gt_trainrun *r, volatile sig_atomic_t *stop, gt_error *e)
{
	const gt_trainrun_conf *c = &r->c;
	const gt_train_counts *k = r->iv.k;
	gt_trainrun_metrics *iv = &r->iv;
	int err;
	/* the starting network's held-out figures, as step 0 */
	if (r->vw && k->step == 0 && c->steps > 0 && (err = metrics(r, 1, e)))
		return err;
	while (k->step < c->steps && !(stop && *stop)) {
		gt_train_step_info si;
		int rc = gt_train_step(r->t, r->w, &si, e);
		if (rc < 0)
			return rc;
		iv->steps++;
		iv->sample_s += si.sample_s;
		iv->step_s += si.step_s;
		if (rc == 0) {
			iv->good++;
			iv->loss.policy += si.loss.policy;
			iv->loss.value += si.loss.value;
			iv->loss.score += si.loss.score;
			iv->loss.own += si.loss.own;
			iv->loss.aux_policy += si.loss.aux_policy;
			iv->loss.total += si.loss.total;
			iv->grad_norm += si.grad_norm;
		} else {
			note(r, "step %lld: non-finite loss or gradient, skipped (%lld in a row)",
			     (long long)k->step, (long long)k->bad_run);
		}
		int last = k->step == c->steps || (stop && *stop) || k->bad_run >= c->max_bad;
		int do_val = r->vw && (k->step % c->val_every == 0 || last);
		if ((k->step % c->log_every == 0 || do_val || last) && (err = metrics(r, do_val, e)))
			return err;
		if (k->bad_run >= c->max_bad)
			return 1;
		if (c->state && k->step % c->checkpoint_every == 0 && k->step < c->steps &&
		    (err = gt_train_save(r->t, c->state, e)))
			return err;
	}
	return 0;
}

int gt_trainrun_save(gt_trainrun *r, gt_error *e)
{
	return r->c.state ? gt_train_save(r->t, r->c.state, e) : 0;
}

const char *gt_trainrun_write(gt_trainrun *r, const char *series, const char *out, char *buf,
                              size_t size, char **line, gt_error *e)
{
	gt_model *m = gt_train_model(r->t, r->parent, r->has_parent_sha ? r->parent_sha : NULL,
	                             r->c.export_avg);
	char name[160], hex[65];
	uint8_t dg[32];
	if (series)
		snprintf(m->meta.series, sizeof m->meta.series, "%s", series);
	gt_model_name(m, name, sizeof name);
	if (!out) {
		snprintf(buf, size, "%s.bin.gz", name);
		out = buf;
	}
	if (gt_model_write(out, m, e) != 0 || gt_model_sha256_file(out, dg, e) != 0) {
		gt_model_free(m);
		return NULL;
	}
	json_t *j = json_pack("{s:s, s:s, s:s, s:I, s:I}", "model", out, "name", name, "sha256",
	                      gt_sha256_hex(dg, hex), "steps", (json_int_t)m->meta.steps, "rows",
	                      (json_int_t)m->meta.rows);
	*line = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(j);
	gt_model_free(m);
	return out;
}
