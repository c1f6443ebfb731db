/*
 * testutil.h: helpers the C unit tests share, beside tap.h (which it includes).
 *
 *   test_tmpdir(dir, size, "name")  a new folder $TMPDIR/gt-name.XXXXXX
 *   test_rmdir(dir)                 removes it with all it holds
 *   test_path(dir, "name")          dir/name (one of four rotating buffers)
 *   test_src()                      the source tree: $GT_SRC or "."
 *   slurp(path, &len)               a whole file in memory
 *   test_window(path)               a shard window over path's shards
 *   test_trainer(m, kind, lr, seed) a trainer of batch 16
 *   test_trainer_sched(...)         the same with a schedule and an average
 * (tests/unit/record_gen.h makes records and shards to train on.)
 */
#ifndef GT_TEST_UTIL_H
#define GT_TEST_UTIL_H
#include "shard.h"
#include "tap.h"
#include "train.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* test_tmpdir: makes a new folder $TMPDIR/gt-NAME.XXXXXX ($TMPDIR or /tmp)
 * and writes its path into dir (size bytes); skip_all when it cannot. */
static __attribute__((unused)) void test_tmpdir(char *dir, size_t size, const char *name)
{
	snprintf(dir, size, "%s/gt-%s.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
	if (!mkdtemp(dir))
		skip_all("no temporary directory");
}

/* test_rmdir: removes dir and everything in it (rm -rf); a diag line when
 * that fails. */
static __attribute__((unused)) void test_rmdir(const char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
}

/* test_path: "DIR/NAME" in static storage, four in turn (so a call may
 * take two or three of them as arguments); "" past 4096 bytes. */
static __attribute__((unused)) const char *test_path(const char *dir, const char *name)
{
	static char buf[4][4096];
	static int k;
	k = (k + 1) % 4;
	if (snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name) >= (int)sizeof buf[k])
		buf[k][0] = 0;
	return buf[k];
}

/* test_src: the source tree, for its fixtures: $GT_SRC (make check sets
 * it) or the current folder. */
static __attribute__((unused)) const char *test_src(void)
{
	const char *s = getenv("GT_SRC");
	return s ? s : ".";
}

/* slurp: the whole file at path in a new buffer (free it) with a NUL after
 * the *len bytes read; NULL when it cannot be opened. */
static __attribute__((unused)) void *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)(n > 0 ? n : 0) + 1);
	*len = fread(b, 1, (size_t)(n > 0 ? n : 0), f);
	b[*len] = 0;
	fclose(f);
	return b;
}

/* test_window: a window over the newest 100000 rows of the shards in path
 * (any board size, sampler seed 1); NULL with a diag line when it does not
 * open. */
static __attribute__((unused)) gt_shard_window *test_window(const char *path)
{
	gt_error e = {0};
	gt_shard_window *w = gt_shard_window_open(path, 100000, 0, 1, &e);
	if (!w)
		diag("%s: %s", path, e.text);
	return w;
}

/* test_trainer_sched: a trainer of m (borrowed) with batch 16, the
 * defaults of optimizer kind (GT_OPTIM_*) but learning rate lr, seed, the
 * schedule sched (NULL: none) and the average's decay ema (0: none); NULL
 * with a diag line when it cannot be made. test_trainer: without schedule
 * and average. */
static __attribute__((unused)) gt_trainer *test_trainer_sched(const gt_model *m, int kind,
                                                              float lr, uint64_t seed,
                                                              const gt_lr_sched *sched,
                                                              double ema)
{
	gt_train_conf c;
	gt_train_conf_init(&c);
	c.batch = 16;
	c.optim = gt_optim_defaults(kind);
	c.optim.lr = lr;
	c.seed = seed;
	if (sched)
		c.sched = *sched;
	c.ema = ema;
	gt_error e = {0};
	gt_trainer *t = gt_train_new(m, &c, &e);
	if (!t)
		diag("trainer: %s", e.text);
	return t;
}

static __attribute__((unused)) gt_trainer *test_trainer(const gt_model *m, int kind, float lr,
                                                        uint64_t seed)
{
	return test_trainer_sched(m, kind, lr, seed, NULL, 0);
}
#endif
