/* Unit tests of lib/train: a run split by a state file equals the run in
 * one piece, bit for bit; evaluation does not change a run; state files of
 * other runs, corrupt or truncated ones are refused and leave the trainer
 * as it was; a non-finite step leaves the parameters and the optimizer
 * untouched; rows without ownership add no ownership loss, alone or mixed
 * with rows that have it; the learning-rate schedule gives hand-worked
 * rates, the moving average of the parameters equals its closed form, and
 * both resume bit for bit; version 1 state files still load; the auxiliary
 * policy head's loss is the cross-entropy against the rows' replies (by
 * hand), rows without one add nothing to it, it falls with training, and
 * its runs resume bit for bit. */
#include "model.h"
#include "record.h"
#include "shard.h"
#include "testutil.h"
#include "train.h"
#include "record_gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char dir[512];

/* games on 7x7 into DIR/name, 100 rows a shard; drop_own (gen_shards): 0
 * every game with ownership, 1 none, 2 every other game without */
static void make_shards(const char *name, int games, int drop_own)
{
	char out[600];
	snprintf(out, sizeof out, "%s/%s", dir, name);
	gt_error e = {0};
	if (gen_shards(out, 7, 17, games, 100, 3, drop_own, &e) != 0)
		diag("%s: %s", out, e.text);
}

static gt_shard_window *window(const char *name)
{
	char out[600];
	snprintf(out, sizeof out, "%s/%s", dir, name);
	return test_window(out);
}

static int same_params(gt_trainer *a, gt_trainer *b)
{
	return gt_nn_nparams(gt_train_nn(a)) == gt_nn_nparams(gt_train_nn(b)) &&
	       !memcmp(gt_nn_params(gt_train_nn(a)), gt_nn_params(gt_train_nn(b)),
	               gt_nn_nparams(gt_train_nn(a)) * sizeof(float));
}

static void steps(gt_trainer *t, gt_shard_window *w, int k)
{
	gt_error e = {0};
	for (int i = 0; i < k; i++)
		if (gt_train_step(t, w, NULL, &e) < 0)
			diag("step: %s", e.text);
}

static void check_resume(const gt_model *m, gt_shard_window *w)
{
	char st[600], bad[600];
	snprintf(st, sizeof st, "%s/state", dir);
	snprintf(bad, sizeof bad, "%s/bad", dir);
	gt_error e = {0};
	for (int kind = GT_OPTIM_SGD; kind <= GT_OPTIM_ADAMW; kind++) {
		gt_trainer *a = test_trainer(m, kind, 0.01f, 5), *b = test_trainer(m, kind, 0.01f, 5);
		steps(a, w, 3);
		is_int(gt_train_save(a, st, &e), 0, "optimizer %d: save after 3 steps", kind);
		steps(a, w, 3);
		is_int(gt_train_load(b, st, &e), 0, "load into a new trainer (%s)", e.text);
		is_int(gt_train_get_counts(b)->step, 3, "at step 3");
		gt_train_eval_info vi;
		is_int(gt_train_eval(b, w, 40, 7, &vi, &e), 0, "evaluate in the middle");
		steps(b, w, 3);
		ok(same_params(a, b), "3 + save + load + eval + 3 steps == 6 steps, bit for bit");
		is_int(gt_train_get_counts(b)->samples, 6 * 16, "samples counted");
		gt_train_free(a);
		gt_train_free(b);
	}

	gt_trainer *a = test_trainer(m, GT_OPTIM_ADAMW, 0.01f, 5);
	steps(a, w, 2);
	gt_train_save(a, st, &e);
	gt_trainer *c = test_trainer(m, GT_OPTIM_ADAMW, 0.01f, 6);
	is_int(gt_train_load(c, st, &e), GT_EINVAL, "another seed refused (%s)", e.text);
	ok(strstr(e.text, "another run") != NULL, "says it belongs to another run");
	is_int(gt_train_get_counts(c)->step, 0, "the refused trainer is unchanged");
	gt_train_free(c);
	c = test_trainer(m, GT_OPTIM_ADAM, 0.01f, 5);
	is_int(gt_train_load(c, st, &e), GT_EINVAL, "another optimizer refused");
	gt_train_free(c);
	gt_arch a2 = m->arch;
	a2.channels++;
	gt_model *m2 = gt_model_new_random(&a2, 1, &e);
	c = test_trainer(m2, GT_OPTIM_ADAMW, 0.01f, 5);
	is_int(gt_train_load(c, st, &e), GT_EINVAL, "another architecture refused");
	gt_train_free(c);
	gt_model_free(m2);
	m2 = gt_model_new_random(&m->arch, 2, &e);
	c = test_trainer(m2, GT_OPTIM_ADAMW, 0.01f, 5);
	is_int(gt_train_load(c, st, &e), GT_EINVAL, "another starting model refused");
	gt_train_free(c);
	gt_model_free(m2);

	/* corrupt: one flipped byte in the parameters; truncated; missing */
	FILE *f = fopen(st, "rb");
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	rewind(f);
	char *buf = malloc(len);
	ok(fread(buf, 1, len, f) == (size_t)len, "read the state file (%ld bytes)", len);
	fclose(f);
	c = test_trainer(m, GT_OPTIM_ADAMW, 0.01f, 5);
	buf[len / 2] ^= 1;
	f = fopen(bad, "wb");
	fwrite(buf, 1, len, f);
	fclose(f);
	is_int(gt_train_load(c, bad, &e), GT_EFORMAT, "a flipped bit: refused (%s)", e.text);
	buf[len / 2] ^= 1;
	f = fopen(bad, "wb");
	fwrite(buf, 1, len - 3, f);
	fclose(f);
	is_int(gt_train_load(c, bad, &e), GT_EFORMAT, "truncated: refused (%s)", e.text);
	gt_trainer *fresh = test_trainer(m, GT_OPTIM_ADAMW, 0.01f, 5);
	ok(same_params(c, fresh) && gt_train_get_counts(c)->step == 0,
	   "the trainer is unchanged after refused loads");
	unlink(bad);
	is_int(gt_train_load(c, bad, &e), GT_ENOTFOUND, "missing: GT_ENOTFOUND");
	free(buf);
	gt_train_free(fresh);
	gt_train_free(c);
	gt_train_free(a);
}

static void check_nonfinite(const gt_model *m, gt_shard_window *w)
{
	gt_error e = {0};
	gt_trainer *t = test_trainer(m, GT_OPTIM_ADAM, 1e30f, 1);
	gt_train_step_info si;
	is_int(gt_train_step(t, w, &si, &e), 0, "lr 1e30: the first step is good");
	size_t n = gt_nn_nparams(gt_train_nn(t));
	float *p = malloc(n * sizeof(float));
	memcpy(p, gt_nn_params(gt_train_nn(t)), n * sizeof(float));
	float *mo, *vo;
	int64_t *os;
	gt_optim_state(gt_train_optim(t), &mo, &vo, &os);
	float m0 = mo[0];
	is_int(gt_train_step(t, w, &si, &e), 1, "the second is bad (overflow)");
	ok(!isfinite(si.loss.total) || !isfinite(si.grad_norm), "its loss or gradient is not finite");
	is_int(gt_train_step(t, w, &si, &e), 1, "and the third");
	ok(!memcmp(p, gt_nn_params(gt_train_nn(t)), n * sizeof(float)), "parameters untouched");
	ok(*os == 1 && mo[0] == m0, "optimizer state untouched");
	const gt_train_counts *k = gt_train_get_counts(t);
	ok(k->step == 3 && k->good == 1 && k->bad == 2 && k->bad_run == 2 && k->samples == 16,
	   "counts: 3 steps, 1 good, 2 bad, 2 in a row, 16 samples");
	free(p);
	gt_train_free(t);
}

static void check_ownership(const gt_model *m)
{
	gt_error e = {0};
	gt_shard_window *with = window("with"), *without = window("without"), *mixed = window("mixed");
	gt_trainer *t = test_trainer(m, GT_OPTIM_ADAMW, 0.001f, 1);
	gt_train_eval_info a, b, c;
	gt_train_eval(t, with, 100000, 64, &a, &e);
	gt_train_eval(t, without, 100000, 64, &b, &e);
	is_int(gt_train_eval(t, mixed, 100000, 50, &c, &e), 0, "evaluate the three sets");
	ok(a.loss.own > 0.1, "with ownership: ownership loss %.4f", a.loss.own);
	ok(b.loss.own == 0, "without: no ownership loss");
	/* mixed holds the odd games without ownership, the even games with:
	 * its ownership loss is the loss of the even games' rows only */
	gt_shard_window *even = window("even");
	gt_train_eval_info d;
	gt_train_eval(t, even, 100000, 64, &d, &e);
	diag("rows: with %ld, without %ld, mixed %ld, even %ld", a.rows, b.rows, c.rows, d.rows);
	is_dbl(c.loss.own * c.rows, d.loss.own * d.rows, 1e-3 * d.loss.own * d.rows,
	       "mixed batches: the rows without ownership add nothing to its loss");
	is_dbl(c.loss.policy * c.rows, a.loss.policy * a.rows, 1e-3 * a.loss.policy * a.rows,
	       "and the policy loss is all rows'");
	/* steps on rows without ownership leave the ownership head alone */
	gt_nn *nn = gt_train_nn(t);
	gt_tensor ow;
	for (int i = 0; i < gt_arch_ntensors(&m->arch); i++) {
		gt_arch_tensor(&m->arch, i, &ow);
		if (!strcmp(ow.name, "own.w"))
			break;
	}
	float *o0 = malloc(ow.size * sizeof(float));
	memcpy(o0, gt_nn_params(nn) + ow.offset, ow.size * sizeof(float));
	gt_optim_conf_get(gt_train_optim(t))->weight_decay = 0;
	steps(t, without, 3);
	ok(!memcmp(o0, gt_nn_params(nn) + ow.offset, ow.size * sizeof(float)),
	   "steps without ownership targets leave own.w unchanged");
	free(o0);
	gt_train_free(t);
	gt_shard_window_free(with);
	gt_shard_window_free(without);
	gt_shard_window_free(mixed);
	gt_shard_window_free(even);
}

/* ---- the schedule and the moving average ---- */

static void check_lr_at(void)
{
	gt_lr_sched s = {0};
	gt_error e = {0};
	ok(!gt_lr_sched_on(&s), "all zero: no schedule");
	is_dbl(gt_lr_at(&s, 0.01, 123456), 0.01, 0, "and a constant rate");
	s.warmup = 1000;
	is_int(gt_lr_parse_decay("2000:0.5,3000:0.1", &s, &e), 0, "parse 2000:0.5,3000:0.1");
	ok(gt_lr_sched_on(&s) && s.nstages == 2 && s.rows[1] == 3000 && s.factor[1] == 0.1,
	   "two stages");
	/* warm-up 1000 rows, x0.5 from 2000 rows, x0.1 from 3000 */
	static const struct { int64_t R; double lr; } v[] = {
		{0, 0}, {250, 0.0025}, {999, 0.00999}, {1000, 0.01}, {1999, 0.01},
		{2000, 0.005}, {2999, 0.005}, {3000, 0.001}, {1000000, 0.001},
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		is_dbl(gt_lr_at(&s, 0.01, v[i].R), v[i].lr, 1e-15, "rows %lld: lr %g",
		       (long long)v[i].R, v[i].lr);
	s.warmup = 5000; /* a decay within the warm-up multiplies it */
	is_dbl(gt_lr_at(&s, 0.01, 2500), 0.01 * 0.5 * 0.5, 1e-15, "decay inside the warm-up");

	static const char *bad[] = {"", "1000", "1000:", ":0.5", "0:0.5", "1000:0.5,",
	                            "1000:0.5,1000:0.1", "2000:0.5,1000:0.1", "1000:-1",
	                            "1000:1001", "1000:0.5x", "-5:0.5", "1e3:0.5",
	                            "1000000000000001:1"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		gt_lr_sched t = s;
		int rc = gt_lr_parse_decay(bad[i], &t, &e);
		ok(rc == GT_EINVAL && !memcmp(&t, &s, sizeof t), "'%s' refused, stages kept: %s",
		   bad[i], e.text);
	}
	char many[400] = "";
	for (int i = 1; i <= GT_LR_STAGES_MAX + 1; i++)
		snprintf(many + strlen(many), sizeof many - strlen(many), "%s%d:1", i > 1 ? "," : "",
		         i);
	is_int(gt_lr_parse_decay(many, &s, &e), GT_EINVAL, "%d stages refused (%s)",
	       GT_LR_STAGES_MAX + 1, e.text);
	many[strrchr(many, ',') - many] = 0;
	is_int(gt_lr_parse_decay(many, &s, &e), 0, "%d taken", GT_LR_STAGES_MAX);
}

static void check_ema_update(void)
{
	/* decay 0.5 over p1 = (1, 2), p2 = (3, 6), p3 = (5, 0), by hand:
	 * weights 0.25, 0.5, 1 of sum 1.75: (0.25 + 1.5 + 5) / 1.75 = 27/7,
	 * (0.5 + 3 + 0) / 1.75 = 2; after two: (0.5 + 3) / 1.5 = 7/3, 14/3 */
	float avg[2] = {100, -100}, p[3][2] = {{1, 2}, {3, 6}, {5, 0}};
	gt_ema_update(avg, p[0], 2, 0.5, 1);
	ok(avg[0] == 1 && avg[1] == 2, "the first update copies p");
	gt_ema_update(avg, p[1], 2, 0.5, 2);
	is_dbl(avg[0], 7.0 / 3, 1e-6, "two updates: 7/3");
	is_dbl(avg[1], 14.0 / 3, 1e-6, "and 14/3");
	gt_ema_update(avg, p[2], 2, 0.5, 3);
	is_dbl(avg[0], 27.0 / 7, 1e-6, "three updates: 27/7");
	is_dbl(avg[1], 2, 1e-6, "and 2");
}

/* a trainer of batch 16, lr 0.01, with the schedule and average given */
static gt_trainer *sched_trainer(const gt_model *m, int kind, const gt_lr_sched *s, double ema,
                                 uint64_t seed)
{
	return test_trainer_sched(m, kind, 0.01f, seed, s, ema);
}

static int same_avg(gt_trainer *a, gt_trainer *b)
{
	return gt_train_average(a) && gt_train_average(b) &&
	       !memcmp(gt_train_average(a), gt_train_average(b),
	               gt_nn_nparams(gt_train_nn(a)) * sizeof(float));
}

static void check_sched_steps(gt_model *m, gt_shard_window *w)
{
	gt_error e = {0};
	/* warm-up 64 rows, x0.5 from 96: batch 16 makes R 16, 32, ... */
	gt_lr_sched s = {.warmup = 64, .nstages = 1, .rows = {96}, .factor = {0.5}};
	gt_trainer *t = sched_trainer(m, GT_OPTIM_ADAMW, &s, 0, 1);
	static const float want[] = {0.0025f, 0.005f, 0.0075f, 0.01f, 0.01f, 0.005f, 0.005f};
	for (int i = 0; i < 7; i++) {
		steps(t, w, 1);
		ok(gt_optim_conf_get(gt_train_optim(t))->lr == want[i], "step %d (R %d): lr %g, want %g",
		   i + 1, 16 * (i + 1), gt_optim_conf_get(gt_train_optim(t))->lr, want[i]);
	}
	is_int(gt_train_rows_seen(t), 7 * 16, "rows seen");
	gt_train_free(t);
	/* a start that has seen 80 rows: past the warm-up, the decay at R 96 */
	uint64_t r0 = m->meta.rows;
	m->meta.rows = 80;
	t = sched_trainer(m, GT_OPTIM_ADAMW, &s, 0, 1);
	steps(t, w, 1);
	ok(gt_optim_conf_get(gt_train_optim(t))->lr == 0.005f, "start at 80 rows: step 1 at R 96 "
	   "has lr 0.005 (%g)", gt_optim_conf_get(gt_train_optim(t))->lr);
	is_int(gt_train_rows_seen(t), 96, "rows seen: the start's and the step's");
	char st[600];
	snprintf(st, sizeof st, "%s/rows.state", dir);
	gt_train_save(t, st, &e);
	m->meta.rows = r0;
	gt_trainer *u = sched_trainer(m, GT_OPTIM_ADAMW, &s, 0, 1);
	is_int(gt_train_load(u, st, &e), GT_EINVAL, "a start with other rows seen refused (%s)",
	       e.text);
	gt_train_free(u);
	gt_train_free(t);
	unlink(st);
	/* without a schedule the optimizer's rate is left as set */
	t = sched_trainer(m, GT_OPTIM_ADAMW, NULL, 0, 1);
	gt_optim_conf_get(gt_train_optim(t))->lr = 0.003f;
	steps(t, w, 2);
	ok(gt_optim_conf_get(gt_train_optim(t))->lr == 0.003f, "no schedule: lr as set");
	gt_train_free(t);
}

static void check_average(const gt_model *m, gt_shard_window *w)
{
	gt_error e = {0};
	const double d = 0.8;
	gt_trainer *t = sched_trainer(m, GT_OPTIM_SGD, NULL, d, 1);
	gt_trainer *plain = sched_trainer(m, GT_OPTIM_SGD, NULL, 0, 1);
	size_t n = gt_nn_nparams(gt_train_nn(t));
	ok(gt_train_average(plain) == NULL, "no average without ema");
	ok(!memcmp(gt_train_average(t), m->params, n * sizeof(float)),
	   "before any step the average is the start");
	/* the closed form sum_i d^(T-i) p_i / sum_i d^(T-i) in double over the
	 * parameters after each step */
	enum { T = 6 };
	double *num = calloc(n, sizeof(double)), den = 0;
	for (int k = 1; k <= T; k++) {
		steps(t, w, 1);
		steps(plain, w, 1);
		const float *p = gt_nn_params(gt_train_nn(t));
		for (size_t i = 0; i < n; i++)
			num[i] = num[i] * d + p[i];
		den = den * d + 1;
	}
	ok(same_params(t, plain), "the average leaves the steps as they were");
	double worst = 0, scale = 0;
	const float *avg = gt_train_average(t);
	for (size_t i = 0; i < n; i++) {
		worst = fmax(worst, fabs(avg[i] - num[i] / den));
		scale = fmax(scale, fabs(num[i] / den));
	}
	ok(worst <= 1e-6 * scale, "after %d steps the average is the closed form's within %.2g "
	   "(largest %.3g)", T, worst, scale);
	ok(memcmp(avg, gt_nn_params(gt_train_nn(t)), n * sizeof(float)) != 0,
	   "and not the last parameters");
	/* evaluation of the average: that of a network holding it, and the
	 * current parameters put back */
	gt_model *am = gt_train_model(t, m, NULL, 1);
	ok(am && !memcmp(am->params, avg, n * sizeof(float)), "gt_train_model(avg 1) holds it");
	gt_model *lm = gt_train_model(t, m, NULL, 0);
	ok(lm && !memcmp(lm->params, gt_nn_params(gt_train_nn(t)), n * sizeof(float)),
	   "gt_train_model(avg 0) the last parameters");
	gt_trainer *at = sched_trainer(am, GT_OPTIM_SGD, NULL, 0, 1);
	gt_train_eval_info va, vb;
	is_int(gt_train_eval_average(t, w, 200, 50, &va, &e), 0, "evaluate the average");
	gt_train_eval(at, w, 200, 50, &vb, &e);
	ok(va.loss.total == vb.loss.total && va.top1 == vb.top1,
	   "as a network of its parameters: loss %.6f", va.loss.total);
	ok(same_params(t, plain), "the current parameters put back, bit for bit");
	is_int(gt_train_eval_average(plain, w, 200, 50, &va, &e), GT_EINVAL,
	       "no average: GT_EINVAL");
	gt_train_free(at);
	gt_model_free(am);
	gt_model_free(lm);
	free(num);
	gt_train_free(plain);
	gt_train_free(t);
}

/* a version 1 state file (gt-train before the average: a 192-byte header
 * of the same fields, no average) made from a version 2 one without an
 * average, as the format says */
static void to_v1(const char *from, const char *to)
{
	size_t len = 0;
	char *b = slurp(from, &len);
	uint32_t v = 1, size = 192;
	memcpy(b + 8, &v, 4);
	memcpy(b + 12, &size, 4);
	memmove(b + 192, b + 256, len - 256 - 4);
	size_t n = len - 64 - 4;
	uint32_t crc = (uint32_t)crc32(0, (const Bytef *)b, (uInt)n);
	memcpy(b + n, &crc, 4);
	FILE *f = fopen(to, "wb");
	fwrite(b, 1, n + 4, f);
	fclose(f);
	free(b);
}

static void check_sched_resume(const gt_model *m, gt_shard_window *w)
{
	char st[600], st2[600], v1[600];
	snprintf(st, sizeof st, "%s/s.state", dir);
	snprintf(st2, sizeof st2, "%s/s2.state", dir);
	snprintf(v1, sizeof v1, "%s/v1.state", dir);
	gt_error e = {0};
	gt_lr_sched s = {.warmup = 48, .nstages = 2, .rows = {64, 96}, .factor = {0.5, 0.2}};
	for (int kind = GT_OPTIM_SGD; kind <= GT_OPTIM_ADAMW; kind++) {
		gt_trainer *a = sched_trainer(m, kind, &s, 0.75, 5);
		gt_trainer *b = sched_trainer(m, kind, &s, 0.75, 5);
		steps(a, w, 3);
		is_int(gt_train_save(a, st, &e), 0, "optimizer %d, schedule and ema: save after 3",
		       kind);
		steps(a, w, 4);
		is_int(gt_train_load(b, st, &e), 0, "load into a new trainer");
		steps(b, w, 4);
		ok(same_params(a, b) && same_avg(a, b),
		   "3 + save + load + 4 == 7 steps: parameters and average bit for bit");
		ok(gt_optim_conf_get(gt_train_optim(b))->lr ==
		   gt_optim_conf_get(gt_train_optim(a))->lr, "the same rate (%g)",
		   gt_optim_conf_get(gt_train_optim(b))->lr);
		gt_train_save(a, st, &e);
		gt_train_save(b, st2, &e);
		size_t la = 0, lb = 0;
		char *fa = slurp(st, &la), *fb = slurp(st2, &lb);
		ok(fa && fb && la == lb && !memcmp(fa, fb, la), "and the same state file bytes (%zu)",
		   la);
		free(fa);
		free(fb);
		gt_train_free(a);
		gt_train_free(b);
	}
	/* the average's decay is the run's */
	gt_trainer *a = sched_trainer(m, GT_OPTIM_ADAMW, &s, 0.75, 5);
	steps(a, w, 2);
	gt_train_save(a, st, &e);
	gt_trainer *c = sched_trainer(m, GT_OPTIM_ADAMW, &s, 0.5, 5);
	is_int(gt_train_load(c, st, &e), GT_EINVAL, "another ema decay refused (%s)", e.text);
	gt_train_free(c);
	c = sched_trainer(m, GT_OPTIM_ADAMW, &s, 0, 5);
	is_int(gt_train_load(c, st, &e), GT_EINVAL, "an average loaded without ema refused");
	gt_train_free(c);
	/* the schedule may change between restarts */
	gt_lr_sched s2 = {.warmup = 16};
	c = sched_trainer(m, GT_OPTIM_ADAMW, &s2, 0.75, 5);
	is_int(gt_train_load(c, st, &e), 0, "another schedule loads");
	gt_train_free(c);
	gt_train_free(a);

	/* version 1: loads without an average, goes on as a run in one piece */
	a = sched_trainer(m, GT_OPTIM_ADAMW, NULL, 0, 5);
	gt_trainer *b = sched_trainer(m, GT_OPTIM_ADAMW, NULL, 0, 5);
	steps(a, w, 3);
	gt_train_save(a, st, &e);
	to_v1(st, v1);
	steps(a, w, 3);
	is_int(gt_train_load(b, v1, &e), 0, "a version 1 state file loads");
	is_int(gt_train_get_counts(b)->step, 3, "at step 3");
	steps(b, w, 3);
	ok(same_params(a, b), "and goes on bit for bit");
	c = sched_trainer(m, GT_OPTIM_ADAMW, NULL, 0.75, 5);
	is_int(gt_train_load(c, v1, &e), GT_EINVAL, "version 1 with ema refused (%s)", e.text);
	gt_train_free(c);
	size_t len = 0;
	char *buf = slurp(v1, &len);
	buf[100] ^= 1;
	FILE *f = fopen(v1, "wb");
	fwrite(buf, 1, len, f);
	fclose(f);
	free(buf);
	c = sched_trainer(m, GT_OPTIM_ADAMW, NULL, 0, 5);
	is_int(gt_train_load(c, v1, &e), GT_EFORMAT, "version 1 with a flipped bit refused (%s)",
	       e.text);
	gt_train_free(c);
	gt_train_free(a);
	gt_train_free(b);
	unlink(st);
	unlink(st2);
	unlink(v1);
}

/* the auxiliary policy head on the rows of "with" */
static void check_aux(void)
{
	char out[600];
	snprintf(out, sizeof out, "%s/with", dir);
	gt_error e = {0};
	gt_arch a;
	gt_model_parse_arch("b1c8a", &a, &e);
	gt_model *m = gt_model_new_random(&a, 3, &e); /* check_resume's other start is seed 2 */
	gt_trainer *t = test_trainer(m, GT_OPTIM_ADAMW, 0.01f, 1);
	is_int(gt_train_window_flags(t), GT_SHARD_WINDOW_REPLY, "b1c8a: its windows keep the replies");
	gt_shard_window *w = gt_shard_window_open_with(out, 100000, 0, 1, GT_SHARD_WINDOW_REPLY, &e);
	gt_shard_window *nr = gt_shard_window_open(out, 100000, 0, 1, &e);
	gt_shard_window_info wi;
	gt_shard_window_get_info(w, &wi);
	ok(wi.reply_rows > 0 && wi.reply_rows < wi.rows, "%ld of %ld rows with a reply", wi.reply_rows,
	   wi.rows);
	gt_train_eval_info a0, b0;
	is_int(gt_train_eval(t, w, 100000, 64, &a0, &e), 0, "evaluate");
	/* by hand: the mean over rows of weight * [has a reply] * the
	 * cross-entropy of the forward's auxiliary logits */
	int n = wi.n, N = n * n;
	float *pl = malloc(sizeof(float) * 15 * N), gl[11], pn[N + 1], pm[1], wt[1];
	gt_shard_batch one = {pl, gl, NULL, NULL, NULL, NULL, NULL, wt, NULL, NULL, pn, pm};
	double want = 0;
	for (long r = 0; r < wi.rows; r++) {
		gt_shard_window_get(w, r, 0, &one, 0);
		gt_nn_out o;
		gt_nn_forward(gt_train_nn(t), 1, n, pl, gl, 0, &o);
		double mx = -1e30, se = 0, ce = 0;
		for (int i = 0; i <= N; i++)
			mx = fmax(mx, o.aux_policy[i]);
		for (int i = 0; i <= N; i++)
			se += exp(o.aux_policy[i] - mx);
		for (int i = 0; i <= N; i++)
			ce -= pn[i] * (o.aux_policy[i] - mx - log(se));
		want += wt[0] * (pm[0] != 0) * ce / wi.rows;
	}
	free(pl);
	is_dbl(a0.loss.aux_policy, want, 1e-5 * want, "auxiliary loss %.5f: the replies' cross-entropy",
	       a0.loss.aux_policy);
	double tot = a0.loss.policy + a0.loss.value + 0.5 * a0.loss.score + 0.5 * a0.loss.own +
	             0.15f * a0.loss.aux_policy;
	is_dbl(a0.loss.total, tot, 1e-6 * tot, "the total adds 0.15 of it");
	/* a window without the replies (as shards of older builds): no
	 * auxiliary loss, the rest the same; steps leave the head alone */
	is_int(gt_train_eval(t, nr, 100000, 64, &b0, &e), 0, "evaluate without the replies");
	ok(b0.loss.aux_policy == 0 && b0.loss.policy == a0.loss.policy && b0.loss.own == a0.loss.own,
	   "no replies: auxiliary loss 0, the other terms as with them");
	gt_tensor aw;
	for (int i = 0; i < gt_arch_ntensors(&a); i++) {
		gt_arch_tensor(&a, i, &aw);
		if (!strcmp(aw.name, "pol.aux.w"))
			break;
	}
	gt_nn *nn = gt_train_nn(t);
	size_t k = aw.size + 1 + 2 * aw.size + 1; /* pol.aux.w, .b, .pass.w, .pass.b */
	float *h0 = malloc(k * sizeof(float));
	memcpy(h0, gt_nn_params(nn) + aw.offset, k * sizeof(float));
	float wd = gt_optim_conf_get(gt_train_optim(t))->weight_decay;
	gt_optim_conf_get(gt_train_optim(t))->weight_decay = 0;
	steps(t, nr, 3);
	ok(!memcmp(h0, gt_nn_params(nn) + aw.offset, k * sizeof(float)),
	   "steps without replies leave the auxiliary head unchanged");
	gt_optim_conf_get(gt_train_optim(t))->weight_decay = wd;
	steps(t, w, 3);
	ok(memcmp(h0, gt_nn_params(nn) + aw.offset, k * sizeof(float)) != 0,
	   "steps with replies train it");
	free(h0);
	steps(t, w, 60);
	gt_train_eval_info a1;
	gt_train_eval(t, w, 100000, 64, &a1, &e);
	ok(a1.loss.aux_policy < a0.loss.aux_policy - 0.3, "66 steps: auxiliary loss %.3f -> %.3f",
	   a0.loss.aux_policy, a1.loss.aux_policy);
	gt_train_free(t);
	check_resume(m, w);
	gt_shard_window_free(w);
	gt_shard_window_free(nr);
	gt_model_free(m);
}

int main(void)
{
	test_tmpdir(dir, sizeof dir, "train");
	make_shards("with", 6, 0);
	make_shards("without", 6, 1);
	make_shards("mixed", 6, 2);
	/* the even games alone: every other game of the same generator */
	{
		char out[600];
		snprintf(out, sizeof out, "%s/even", dir);
		gt_shard_opts o;
		gt_shard_opts_init(&o);
		gt_error e = {0};
		gt_shard_writer *w = gt_shard_writer_new(out, &o, &e);
		gt_record r;
		gt_record_init(&r);
		for (int i = 0; i < 6; i += 2) {
			gen_record(&r, 7, 17, i);
			gt_shard_add_record(w, &r, &e);
		}
		gt_shard_flush(w, &e);
		gt_record_release(&r);
		gt_shard_writer_free(w);
	}
	gt_error e = {0};
	gt_arch a;
	gt_model_parse_arch("b1c8", &a, &e);
	gt_model *m = gt_model_new_random(&a, 1, &e);
	gt_shard_window *w = window("with");
	ok(m && w, "a b1c8 model and a 7x7 window");
	check_resume(m, w);
	check_nonfinite(m, w);
	check_ownership(m);
	check_lr_at();
	check_ema_update();
	check_sched_steps(m, w);
	check_average(m, w);
	check_sched_resume(m, w);
	check_aux();
	gt_shard_window_free(w);
	gt_model_free(m);
	test_rmdir(dir);
	return done_testing();
}
