/* Unit tests of lib/trainrun: the metrics line and its words against
 * hand-worked figures; the schedule of metrics lines and held-out figures
 * over a run; a run stopped and resumed through its state file writes the
 * network of the run in one piece; non-finite steps stop a run; a stop
 * request before the first step runs none. */
#include "model.h"
#include "record_gen.h"
#include "testutil.h"
#include "trainrun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[512];

/* what a run handed out: the steps of its metrics lines, whether each had
 * held-out figures, and its notes */
typedef struct seen {
	int n;
	long step[64];
	int val[64];
	char notes[1024];
} seen;

static void on_line(void *ctx, const gt_trainrun_metrics *m)
{
	seen *s = ctx;
	if (s->n < 64) {
		s->step[s->n] = (long)m->k->step;
		s->val[s->n] = m->val != NULL;
	}
	s->n++;
}

static void on_note(void *ctx, const char *text)
{
	seen *s = ctx;
	size_t l = strlen(s->notes);
	snprintf(s->notes + l, sizeof s->notes - l, "%s|", text);
}

static void test_metrics_format(void)
{
	/* two good steps of three: policy 3 + 5 -> 4; 3 steps * 8 rows over
	 * 0.5 + 1.5 s -> 12 rows/s, of which 0.25 drawing batches */
	gt_train_counts k = { .step = 30, .good = 28, .bad = 2, .bad_run = 0, .samples = 224 };
	gt_trainrun_metrics m = { .k = &k, .steps = 3, .good = 2,
	                          .loss = { .total = 12, .policy = 8, .value = 1, .score = 0.5,
	                                    .own = 0.25 },
	                          .grad_norm = 3, .sample_s = 0.5, .step_s = 1.5, .lr = 0.001,
	                          .batch = 8 };
	char buf[1024];
	is_str(gt_trainrun_metrics_json(&m, buf, sizeof buf),
	       "{\"step\":30,\"samples\":224,\"policy\":4,\"value\":0.5,\"score\":0.25,"
	       "\"ownership\":0.125,\"total\":6,\"lr\":0.001,\"grad_norm\":1.5,"
	       "\"samples_per_s\":12,\"data_share\":0.25,\"bad_steps\":2}", "metrics line");
	is_str(gt_trainrun_metrics_text(&m, buf, sizeof buf),
	       "step 30 loss 6.0000 (policy 4.0000), 12 samples/s, 2 bad", "in words");
	gt_train_eval_info vi = { .rows = 20, .loss = { .total = 2, .policy = 1.5, .value = 0.25,
	                                               .score = 0.125, .own = NAN },
	                          .top1 = 0.375 };
	m.good = 0;
	m.sample_s = m.step_s = 0;
	m.val = &vi;
	is_str(gt_trainrun_metrics_json(&m, buf, sizeof buf),
	       "{\"step\":30,\"samples\":224,\"policy\":null,\"value\":null,\"score\":null,"
	       "\"ownership\":null,\"total\":null,\"lr\":0.001,\"grad_norm\":null,"
	       "\"samples_per_s\":null,\"data_share\":null,\"bad_steps\":2,\"val_rows\":20,"
	       "\"val_policy\":1.5,\"val_value\":0.25,\"val_score\":0.125,\"val_ownership\":null,"
	       "\"val_total\":2,\"val_top1\":0.375}", "no good step, no time: null; held-out figures");
	is_str(gt_trainrun_metrics_text(&m, buf, sizeof buf),
	       "step 30 loss nan (policy nan) held-out policy 1.5000 top-1 0.375, 0 samples/s, 2 bad",
	       "in words");
	gt_train_eval_info va = { .rows = 20, .loss = { .total = 1.75, .policy = 1.25, .value = 0.5,
	                                               .score = 0.0625, .own = 0.125 },
	                          .top1 = 0.5 };
	m.val_avg = &va;
	is_str(strstr(gt_trainrun_metrics_json(&m, buf, sizeof buf), "\"val_top1\""),
	       "\"val_top1\":0.375,\"ema_val_policy\":1.25,\"ema_val_value\":0.5,"
	       "\"ema_val_score\":0.0625,\"ema_val_ownership\":0.125,\"ema_val_total\":1.75,"
	       "\"ema_val_top1\":0.5}", "the moving average's held-out figures after them");
}

static void conf(gt_trainrun_conf *c, const char *data, long steps)
{
	gt_trainrun_conf_init(c);
	c->train.batch = 4;
	c->train.seed = 5;
	c->data = data;
	c->steps = steps;
}

/* the file written by the run of c from m, in a new buffer (*len bytes) */
static char *run_to_file(const gt_model *m, const gt_trainrun_conf *c, const char *out,
                         size_t *len, seen *s)
{
	gt_trainrun_out o = { on_line, on_note, s };
	gt_error e = {0};
	gt_trainrun *r = gt_trainrun_open(m, NULL, c, &o, &e);
	if (!r) {
		diag("open: %s", e.text);
		return NULL;
	}
	char buf[200], *line = NULL;
	int st = gt_trainrun_steps(r, NULL, &e);
	if (st == 0)
		st = gt_trainrun_save(r, &e);
	if (st != 0 || !gt_trainrun_write(r, NULL, out, buf, sizeof buf, &line, &e))
		diag("run: %d %s", st, e.text);
	free(line);
	gt_trainrun_free(r);
	return slurp(out, len);
}

int main(void)
{
	test_metrics_format();

	test_tmpdir(dir, sizeof dir, "trainrun");
	char data[600], val[600], state[600], one[600], two[600];
	snprintf(data, sizeof data, "%s/data", dir);
	snprintf(val, sizeof val, "%s/val", dir);
	snprintf(state, sizeof state, "%s/state", dir);
	snprintf(one, sizeof one, "%s/one.bin.gz", dir);
	snprintf(two, sizeof two, "%s/two.bin.gz", dir);
	gt_error e = {0};
	gt_arch a;
	gt_model_parse_arch("b1c8", &a, &e);
	gt_model *m = gt_model_new_random(&a, 3, &e);
	ok(m && gen_shards(data, 7, 17, 6, 100, 3, 0, &e) == 0 &&
	   gen_shards(val, 7, 18, 2, 100, 3, 0, &e) == 0, "a b1c8 model, 7x7 shards: %s", e.text);
	if (!m)
		return done_testing();

	/* 7 steps, a line every 3, held-out figures every 5: step 0 (the
	 * start), 3, 5, 6 and the last */
	gt_trainrun_conf c;
	conf(&c, data, 7);
	c.log_every = 3;
	c.valdir = val;
	c.val_every = 5;
	c.val_rows = 20;
	seen s = {0};
	size_t l1 = 0, l2 = 0;
	char *m1 = run_to_file(m, &c, one, &l1, &s);
	is_int(s.n, 5, "five metrics lines");
	long want[] = {0, 3, 5, 6, 7};
	int wantv[] = {1, 0, 1, 0, 1};
	for (int i = 0; i < 5 && i < s.n; i++)
		ok(s.step[i] == want[i] && s.val[i] == wantv[i], "line %d: step %ld, held-out %d", i,
		   s.step[i], s.val[i]);
	is_str(s.notes, "", "no note: no shard skipped, not verbose");

	/* the same run in two pieces through a state file */
	conf(&c, data, 4);
	c.state = state;
	c.checkpoint_every = 2;
	memset(&s, 0, sizeof s);
	free(run_to_file(m, &c, two, &l2, &s));
	c.steps = 7;
	memset(&s, 0, sizeof s);
	char *m2 = run_to_file(m, &c, two, &l2, &s);
	char want_note[700];
	snprintf(want_note, sizeof want_note, "%s: resuming at step 4|", state);
	is_str(s.notes, want_note, "the second piece resumes");
	ok(m1 && m2 && l1 == l2 && !memcmp(m1, m2, l1), "and writes the network of the whole run");
	free(m1);
	free(m2);

	/* a learning rate that overflows: bad steps, then a stop */
	conf(&c, data, 20);
	c.train.optim = gt_optim_defaults(GT_OPTIM_SGD);
	c.train.optim.lr = 1e30f;
	c.max_bad = 2;
	c.verbose = 1;
	memset(&s, 0, sizeof s);
	gt_trainrun_out o = { on_line, on_note, &s };
	gt_trainrun *r = gt_trainrun_open(m, NULL, &c, &o, &e);
	int st = r ? gt_trainrun_steps(r, NULL, &e) : -1;
	is_int(st, 1, "stopped by non-finite steps");
	ok(r && gt_trainrun_counts(r)->bad_run == 2, "two in a row");
	ok(strstr(s.notes, "non-finite loss or gradient, skipped (2 in a row)") != NULL &&
	   strstr(s.notes, " rows of 7x7 from ") != NULL, "noted, and the window (verbose)");
	gt_trainrun_free(r);

	/* a stop asked before the first step */
	conf(&c, data, 5);
	volatile sig_atomic_t stop = 1;
	memset(&s, 0, sizeof s);
	r = gt_trainrun_open(m, NULL, &c, &o, &e);
	st = r ? gt_trainrun_steps(r, &stop, &e) : -1;
	ok(st == 0 && gt_trainrun_counts(r)->step == 0 && s.n == 0, "a stop runs no step");
	gt_trainrun_free(r);

	/* a held-out folder without shards */
	snprintf(want_note, sizeof want_note, "%s/none", dir);
	conf(&c, data, 5);
	c.valdir = want_note;
	r = gt_trainrun_open(m, NULL, &c, &o, &e);
	ok(!r && !strncmp(e.text, "--validate: ", 12), "a bad held-out folder: %s", e.text);

	gt_model_free(m);
	test_rmdir(dir);
	return done_testing();
}
