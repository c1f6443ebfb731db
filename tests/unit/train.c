/* Unit tests of lib/train: a run split by a state file equals the run in
 * one piece, bit for bit; evaluation does not change a run; state files of
 * other runs, corrupt or truncated ones are refused and leave the trainer
 * as it was; a non-finite step leaves the parameters and the optimizer
 * untouched; rows without ownership add no ownership loss, alone or mixed
 * with rows that have it; the auxiliary policy head's loss is the
 * cross-entropy against the rows' replies (by hand), rows without one add
 * nothing to it, it falls with training, and its runs resume bit for bit. */
#include "model.h"
#include "record.h"
#include "shard.h"
#include "testutil.h"
#include "train.h"
#include "record_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	check_aux();
	gt_shard_window_free(w);
	gt_model_free(m);
	test_rmdir(dir);
	return done_testing();
}
