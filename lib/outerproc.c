/* outerproc.c: the outer process of Decoupled DiLoCo over a store
 * (outerproc.h). */
#include "outerproc.h"
#include "delta.h"
#include "diloco.h"
#include "fs.h"
#include "model.h"
#include "shard.h"
#include "train.h"
#include "util.h"

#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* a set of strings (the delta names already looked at), open addressing */
typedef struct strset {
	char **slot;
	size_t cap, n;
} strset;

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* 1 if s was added, 0 if it was there */
static int strset_add(strset *ss, const char *s)
{
	if (2 * (ss->n + 1) > ss->cap) {
		strset big = {gt_xcalloc(ss->cap ? 2 * ss->cap : 256, sizeof(char *)),
		              ss->cap ? 2 * ss->cap : 256, 0};
		for (size_t i = 0; i < ss->cap; i++)
			if (ss->slot[i]) {
				size_t j = hash_str(ss->slot[i]) & (big.cap - 1);
				while (big.slot[j])
					j = (j + 1) & (big.cap - 1);
				big.slot[j] = ss->slot[i];
				big.n++;
			}
		free(ss->slot);
		*ss = big;
	}
	size_t j = hash_str(s) & (ss->cap - 1);
	for (; ss->slot[j]; j = (j + 1) & (ss->cap - 1))
		if (!strcmp(ss->slot[j], s))
			return 0;
	ss->slot[j] = gt_xstrdup(s);
	ss->n++;
	return 1;
}

/* 1 if s is in the set */
static int strset_has(const strset *ss, const char *s)
{
	if (!ss->cap)
		return 0;
	for (size_t j = hash_str(s) & (ss->cap - 1); ss->slot[j]; j = (j + 1) & (ss->cap - 1))
		if (!strcmp(ss->slot[j], s))
			return 1;
	return 0;
}

static void strset_free(strset *ss)
{
	for (size_t i = 0; i < ss->cap; i++)
		free(ss->slot[i]);
	free(ss->slot);
}

struct gt_outerproc {
	gt_outerproc_conf c;
	char owner[4400];
	int lock;                /* fd of dir/lock, -1: none */
	int leased;
	gt_outer *o;
	gt_model *base;          /* architecture and metadata of version 0 */
	strset seen;             /* unit/name of the deltas decided on */
	strset waited;           /* ... and of those that waited behind their
	                          * unit's delta of the next version */
	uint64_t pending_samples;
	char prev_sha[GT_SHA256_HEX]; /* the file sha256 of the version in force */
	char ptr_tag[GT_STORE_TAG]; /* the version of current.json this process
	                         * read or wrote last ("": none there) */
	gt_diloco_ptr staged;    /* the pointer of a step not committed yet */
	int has_staged;
	int fates;               /* fd of DIR/refused, appended; -1: none */
	char **dropped;          /* unit/name of the deltas of the last refused version */
	size_t ndropped;
	gt_trainer *probe_t;     /* conf.probe: the network the probe rows are run on */
	gt_shard_window *probe_w; /* ... and those rows */
	double probe_cur;        /* the probe loss of version V */
	double probe_next;       /* ... of the candidate last judged */
};

void gt_outerproc_conf_init(gt_outerproc_conf *c)
{
	memset(c, 0, sizeof *c);
	gt_outer_cfg_default(&c->cfg);
	gt_outer_guard_default(&c->guard);
	c->grace = 0.5;
	c->poll = 0.5;
	c->lease_ttl = 30;
	c->probe_rows = 2048;
	c->probe_tolerance = 0.05;
	gt_store_opts_init(&c->so);
	c->so.retries = 3;
}

const gt_outer *gt_outerproc_outer(const gt_outerproc *op)
{
	return op->o;
}

static int stopped(const gt_outerproc *op)
{
	return op->c.stop && *op->c.stop;
}

static void warn(const gt_outerproc *op, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void warn(const gt_outerproc *op, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	gt_vwarnf(op->c.so.warn, op->c.so.warn_ctx, fmt, ap);
	va_end(ap);
}

static char *path_in(const gt_outerproc *op, const char *name)
{
	size_t n = strlen(op->c.dir) + strlen(name) + 2;
	char *p = gt_xmalloc(n);
	snprintf(p, n, "%s/%s", op->c.dir, name);
	return p;
}

#define FATES_LINE 512

/* the deltas whose fate is told (in DIR/refused) and not told again: a
 * refusal is final; an applied delta is in the ledger */
static void record_fate(gt_outerproc *op, const char *key)
{
	char line[FATES_LINE + 1];
	int n = snprintf(line, sizeof line, "%s\n", key);
	if (op->fates >= 0 && n > 0 && n < (int)sizeof line && write(op->fates, line, (size_t)n) != n)
		warn(op, "%s/refused: cannot append", op->c.dir);
}

/* seen: the ledger's deltas and DIR/refused's, decided on before this
 * process (a restart does not look at them again) */
static int load_fates(gt_outerproc *op, gt_error *e)
{
	const gt_outer *o = op->o;
	char key[FATES_LINE + 2], name[96];
	for (size_t i = 0; i < gt_outer_ledger_size(o); i++) {
		const gt_outer_entry *x = gt_outer_ledger(o, i);
		gt_diloco_delta_name(name, sizeof name, x->base_version, x->generation, x->seq);
		snprintf(key, sizeof key, "%s/%s", x->unit, name);
		strset_add(&op->seen, key);
	}
	char *fp = path_in(op, "refused");
	FILE *f = fopen(fp, "r");
	long ln = 0;
	while (f && fgets(key, sizeof key, f)) {
		size_t n = strlen(key);
		ln++;
		if (n && key[n - 1] == '\n')
			key[--n] = 0;
		else if (!feof(f)) { /* over FATES_LINE: not ours */
			fclose(f);
			int rc = gt_error_set(e, GT_EFORMAT, ln, -1, "%s: line %ld too long", fp, ln);
			free(fp);
			return rc;
		}
		if (n) /* a line cut by a crash: that delta is decided on again */
			strset_add(&op->seen, key);
	}
	if (f)
		fclose(f);
	op->fates = open(fp, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	int rc = op->fates < 0 ? gt_error_set(e, GT_EIO, -1, -1, "%s: cannot open", fp) : 0;
	free(fp);
	return rc;
}

static void drop_list_free(gt_outerproc *op)
{
	for (size_t i = 0; i < op->ndropped; i++)
		free(op->dropped[i]);
	free(op->dropped);
	op->dropped = NULL;
	op->ndropped = 0;
}

/* the ledger of version v as JSON {"version","samples","deltas":[...]};
 * *samples gets the sum */
static char *ledger_json(const gt_outer *o, uint64_t v, uint64_t *samples)
{
	json_t *arr = json_array();
	*samples = 0;
	for (size_t i = 0; i < gt_outer_ledger_size(o); i++) {
		const gt_outer_entry *le = gt_outer_ledger(o, i);
		if (le->version != v)
			continue;
		char gen[17], name[96];
		snprintf(gen, sizeof gen, "%016" PRIx64, le->generation);
		gt_diloco_delta_name(name, sizeof name, le->base_version, le->generation, le->seq);
		json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:I,s:I,s:I,s:f}", "unit",
		                                     le->unit, "name", name, "generation", gen,
		                                     "seq", (json_int_t)le->seq, "base_version",
		                                     (json_int_t)le->base_version, "samples",
		                                     (json_int_t)le->samples, "weight", le->weight));
		*samples += le->samples;
	}
	json_t *j = json_pack("{s:I,s:I,s:o}", "version", (json_int_t)v, "samples",
	                      (json_int_t)*samples, "deltas", arr);
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	return s;
}

/* the network of the state's version with version 0's metadata moved on */
static gt_model *version_model(const gt_outerproc *op, gt_error *e)
{
	uint64_t v = gt_outer_version(op->o);
	gt_model *m = gt_model_new(&op->base->arch, e);
	if (!m)
		return NULL;
	memcpy(m->params, gt_outer_params(op->o), sizeof(float) * m->nparams);
	m->meta = op->base->meta;
	m->meta.steps = op->base->meta.steps + v;
	uint64_t rows = 0;
	for (size_t i = 0; i < gt_outer_ledger_size(op->o); i++)
		rows += gt_outer_ledger(op->o, i)->samples;
	m->meta.rows = op->base->meta.rows + rows;
	memset(m->meta.parent, 0, 32);
	if (op->prev_sha[0])
		for (int i = 0; i < 32; i++) {
			unsigned b;
			sscanf(op->prev_sha + 2 * i, "%2x", &b);
			m->meta.parent[i] = (uint8_t)b;
		}
	return m;
}

/* put the network and ledger of the state's version; p gets its pointer */
static int put_payload(gt_outerproc *op, gt_diloco_ptr *p, gt_error *e)
{
	uint64_t v = gt_outer_version(op->o);
	gt_model *m = version_model(op, e);
	if (!m)
		return GT_EINVAL;
	char *tmp = path_in(op, "publish.bin.gz");
	uint8_t dg[32], ps[32];
	struct stat sb;
	int rc = gt_model_write(tmp, m, e);
	if (!rc)
		rc = gt_model_sha256_file(tmp, dg, e);
	if (!rc && stat(tmp, &sb))
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: cannot stat", tmp);
	if (!rc && gt_delta_params_sha256(m->params, m->nparams, ps))
		rc = gt_error_set(e, GT_EIO, -1, -1, "sha256 failed");
	if (rc)
		goto out;
	memset(p, 0, sizeof *p);
	p->version = v;
	snprintf(p->model, sizeof p->model, "v%" PRIu64 ".bin.gz", v);
	gt_sha256_hex(dg, p->sha256);
	gt_sha256_hex(ps, p->params_sha256);
	p->bytes = (long long)sb.st_size;
	gt_error t = {0};
	char *url = gt_diloco_url(op->c.store, "versions/%s", p->model);
	/* overwrite: a version that no pointer names yet may be a crashed
	 * attempt's, with other deltas in it */
	rc = gt_diloco_put_file(&op->c.so, tmp, url, 1, &t);
	free(url);
	if (rc) {
		gt_error_set(e, rc, -1, -1, "put %s: %s", p->model, t.text);
		goto out;
	}
	uint64_t samples;
	char *lj = ledger_json(op->o, v, &samples);
	url = gt_diloco_url(op->c.store, "versions/v%" PRIu64 ".json", v);
	rc = gt_diloco_put_mem(&op->c.so, lj, strlen(lj), url, 1, &t);
	free(url);
	free(lj);
	if (rc)
		gt_error_set(e, rc, -1, -1, "put ledger of v%" PRIu64 ": %s", v, t.text);
out:
	unlink(tmp);
	free(tmp);
	gt_model_free(m);
	return rc;
}

/* put_pointer: current.json replaced over the version op->ptr_tag
 * (gt_store_replace: If-Match, or If-None-Match: * for the first), then
 * read back for the tag of the next put. Another writer is GT_ECONFLICT
 * and never overwritten: one that came before the put (the server's 412,
 * or the version read just before it), or one whose pointer the read
 * back finds in place of this one (a server that ignores the condition). */
static int put_pointer(gt_outerproc *op, gt_diloco_ptr *p, gt_error *e)
{
	gt_error t = {0};
	p->time = gt_wall();
	char *s = gt_diloco_ptr_format(p), *back = NULL, tag[GT_STORE_TAG];
	size_t n = strlen(s), blen = 0;
	char *url = gt_diloco_url(op->c.store, "current.json");
	int rc = gt_store_replace(&op->c.so, s, n, url, op->ptr_tag, &t);
	if (!rc)
		rc = gt_store_get_tagged(&op->c.so, url, 1 << 16, &back, &blen, tag, &t);
	if (!rc && back && blen == n && !memcmp(back, s, n))
		snprintf(op->ptr_tag, sizeof op->ptr_tag, "%s", tag);
	else if (!rc)
		rc = gt_error_set(&t, GT_ECONFLICT, -1, -1,
		                  "%s was replaced by another writer right after this one's put; "
		                  "not overwritten", url);
	free(back);
	free(url);
	free(s);
	if (rc)
		return gt_error_set(e, rc, -1, -1, "put pointer: %s", t.text);
	snprintf(op->prev_sha, sizeof op->prev_sha, "%s", p->sha256);
	return 0;
}

static int save_state(gt_outerproc *op, gt_error *e)
{
	char *sp = path_in(op, "outer.state");
	int rc = gt_outer_save(op->o, sp, e);
	free(sp);
	return rc;
}

/* the probe loss (total, default loss weights) of parameters theta[n] */
static int probe_eval(gt_outerproc *op, const float *theta, size_t n, double *loss, gt_error *e)
{
	gt_nn *nn = gt_train_nn(op->probe_t);
	if (gt_nn_nparams(nn) != n)
		return gt_error_set(e, GT_EINVAL, -1, -1, "probe: %zu parameters, the network has %zu",
		                    n, gt_nn_nparams(nn));
	memcpy(gt_nn_params(nn), theta, n * sizeof(float));
	gt_nn_sync_params(nn);
	gt_train_eval_info info;
	int rc = gt_train_eval(op->probe_t, op->probe_w, op->c.probe_rows, 256, &info, e);
	if (!rc)
		*loss = info.loss.total;
	return rc;
}

/* the judge of a version (gt_outer_set_judge): refused when its probe
 * loss is over V's plus the tolerance, or not known */
static int probe_judge(void *ctx, const float *theta, size_t n, char *why, size_t len)
{
	gt_outerproc *op = ctx;
	gt_error t = {0};
	double loss = NAN;
	if (probe_eval(op, theta, n, &loss, &t)) {
		snprintf(why, len, "probe loss not computed: %s", t.text);
		return 1;
	}
	op->probe_next = loss;
	if (!(loss <= op->probe_cur + op->c.probe_tolerance)) {
		snprintf(why, len, "probe loss %.4f, version %" PRIu64 "'s %.4f (worse by over %g)",
		         loss, gt_outer_version(op->o), op->probe_cur, op->c.probe_tolerance);
		return 1;
	}
	return 0;
}

/* rc with e's text prefixed by the probe folder */
static int probe_fail(const gt_outerproc *op, int rc, gt_error *e)
{
	char t[sizeof e->text];
	snprintf(t, sizeof t, "%s", e->text);
	return gt_error_set(e, rc, -1, -1, "probe %s: %s", op->c.probe, t);
}

/* conf.probe: its rows, a network to run them on, version V's loss */
static int probe_open(gt_outerproc *op, gt_error *e)
{
	if (!op->c.probe)
		return 0;
	if (op->c.probe_rows < 1 || !(op->c.probe_tolerance >= 0))
		return gt_error_set(e, GT_EINVAL, -1, -1, "probe: rows %ld, tolerance %g",
		                    op->c.probe_rows, op->c.probe_tolerance);
	gt_train_conf tc;
	gt_train_conf_init(&tc);
	int rc;
	if (!(op->probe_t = gt_train_new(op->base, &tc, e)))
		return probe_fail(op, GT_EINVAL, e);
	op->probe_w = gt_shard_window_open_with(op->c.probe, op->c.probe_rows, 0, 0,
	                                        gt_train_window_flags(op->probe_t), e);
	if (!op->probe_w)
		return probe_fail(op, GT_EINVAL, e);
	if ((rc = gt_train_check_window(op->probe_t, op->probe_w, e)) ||
	    (rc = probe_eval(op, gt_outer_params(op->o), gt_outer_size(op->o), &op->probe_cur, e)))
		return probe_fail(op, rc, e);
	gt_outer_set_judge(op->o, probe_judge, op);
	return 0;
}

double gt_outerproc_probe_loss(const gt_outerproc *op)
{
	return op->probe_t ? op->probe_cur : NAN;
}

/* load the state, or make version 0 from init; then put the store in
 * step with it (a pointer behind the state is finished) */
static int start(gt_outerproc *op, int *how, gt_error *e)
{
	char *sp = path_in(op, "outer.state"), *bp = path_in(op, "base.bin.gz");
	int rc = GT_EINVAL;
	gt_diloco_ptr p;
	gt_error t = {0};
	int have_ptr = gt_diloco_ptr_read(&op->c.so, op->c.store, &p, op->ptr_tag, &t);
	if (have_ptr && have_ptr != GT_ENOTFOUND) {
		rc = gt_error_set(e, have_ptr, -1, -1, "pointer: %s", t.text);
		goto out;
	}
	if (access(sp, F_OK) == 0) {
		if ((rc = gt_outer_load(&op->o, sp, e)) || (rc = gt_model_read(bp, &op->base, e)))
			goto out;
		if (gt_outer_size(op->o) != op->base->nparams) {
			rc = gt_error_set(e, GT_EFORMAT, -1, -1,
			                  "%s: state and base.bin.gz differ in size", op->c.dir);
			goto out;
		}
	} else {
		if (!op->c.init) {
			gt_error_set(e, rc, -1, -1, "%s: no outer state; give --init MODEL", op->c.dir);
			goto out;
		}
		if (have_ptr == 0) {
			gt_error_set(e, rc, -1, -1,
			             "the store already holds version %" PRIu64 " but %s has no state",
			             p.version, op->c.dir);
			goto out;
		}
		if ((rc = gt_model_read(op->c.init, &op->base, e)) ||
		    (rc = gt_model_write(bp, op->base, e)) ||
		    (rc = gt_outer_new(&op->o, op->base->params, op->base->nparams, &op->c.cfg, e)))
			goto out;
		have_ptr = GT_ENOTFOUND;
	}
	if ((rc = gt_outer_guard_set(op->o, &op->c.guard, e)) || (rc = probe_open(op, e)))
		goto out;
	for (const char *const *u = op->c.readmit; u && *u; u++)
		if (gt_outer_readmit(op->o, *u))
			warn(op, "--readmit %s: not set aside", *u);
	uint64_t V = gt_outer_version(op->o);
	rc = GT_EINVAL;
	if (have_ptr == 0 && p.version > V) {
		gt_error_set(e, rc, -1, -1, "the store is at version %" PRIu64 ", the state at %" PRIu64,
		             p.version, V);
		goto out;
	}
	if (have_ptr == 0 && p.version == V) {
		snprintf(op->prev_sha, sizeof op->prev_sha, "%s", p.sha256);
		*how = GT_OUTERPROC_RESUMED;
		rc = 0;
		goto out;
	}
	/* first start, or a crash between the state and the pointer */
	*how = have_ptr == 0 ? GT_OUTERPROC_RECOVERED : GT_OUTERPROC_INIT;
	gt_diloco_ptr np;
	if (!(rc = put_payload(op, &np, e)) && !(rc = save_state(op, e)))
		rc = put_pointer(op, &np, e);
out:
	free(sp);
	free(bp);
	return rc;
}

/* the lock on dir/lock and the lease on the store */
static int hold(gt_outerproc *op, gt_error *e)
{
	int rc = gt_fs_mkdir_p(op->c.dir, e);
	if (rc)
		return rc;
	char *lp = path_in(op, "lock");
	op->lock = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(lp);
	if (op->lock < 0 || flock(op->lock, LOCK_EX | LOCK_NB))
		return gt_error_set(e, GT_EINVAL, -1, -1,
		                    "%s: another gt-outer holds this state directory", op->c.dir);
	if (op->c.owner) {
		snprintf(op->owner, sizeof op->owner, "%s", op->c.owner);
	} else {
		char host[256] = "localhost", real[PATH_MAX];
		gethostname(host, sizeof host - 1);
		if (!realpath(op->c.dir, real))
			snprintf(real, sizeof real, "%s", op->c.dir);
		snprintf(op->owner, sizeof op->owner, "%s:%s", host, real);
	}
	rc = gt_diloco_lease_take(&op->c.so, op->c.store, op->owner, op->c.lease_ttl, e);
	op->leased = rc == 0;
	return rc;
}

int gt_outerproc_open(gt_outerproc **out, const gt_outerproc_conf *c, int *how,
                      gt_error *e)
{
	int dummy;
	if (!c->store || !c->dir)
		return gt_error_set(e, GT_EINVAL, -1, -1, "no store or state folder");
	if (!c->unit_keys && !c->insecure_units)
		return gt_error_set(e, GT_EINVAL, -1, -1,
		                    "no unit keys: a unit is its key (--unit-keys DIR); "
		                    "--insecure-units admits unsigned deltas");
	gt_outerproc *op = gt_xcalloc(1, sizeof *op);
	op->c = *c;
	if (op->c.quorum <= 0)
		op->c.quorum = op->c.units > 0 ? op->c.units : 1;
	op->lock = -1;
	op->fates = -1;
	int rc = hold(op, e);
	if (!rc)
		rc = start(op, how ? how : &dummy, e);
	if (!rc)
		rc = load_fates(op, e);
	if (rc) {
		gt_outerproc_close(op);
		return rc;
	}
	*out = op;
	return 0;
}

void gt_outerproc_close(gt_outerproc *op)
{
	if (!op)
		return;
	gt_error e = {0};
	if (op->leased)
		gt_diloco_lease_drop(&op->c.so, op->c.store, op->owner, &e);
	gt_outer_free(op->o);
	gt_model_free(op->base);
	gt_shard_window_free(op->probe_w);
	gt_train_free(op->probe_t);
	strset_free(&op->seen);
	strset_free(&op->waited);
	drop_list_free(op);
	if (op->fates >= 0)
		close(op->fates);
	if (op->lock >= 0)
		close(op->lock);
	free(op);
}

/* 1 when buf[len] is signed by the key unit_keys/<unit>.pub; else 0
 * with e's text saying why */
static int signed_by(const gt_outerproc *op, const char *unit, const uint8_t *buf, size_t len,
                     gt_error *e)
{
	char key[4096];
	snprintf(key, sizeof key, "%s/%s.pub", op->c.unit_keys, unit);
	int rc = access(key, R_OK) ? GT_ENOTFOUND : gt_delta_verify(buf, len, key, e);
	if (rc == GT_ENOTFOUND)
		gt_error_set(e, rc, -1, -1, "no key for unit %s", unit);
	else if (rc) {
		char t[sizeof e->text];
		snprintf(t, sizeof t, "%s", e->text);
		gt_error_set(e, rc, -1, -1, "signature: %s", t);
	}
	return rc == 0;
}

/* the fate of a delta: on_delta; a refusal recorded for good */
static void tell(gt_outerproc *op, gt_outerproc_delta *d)
{
	if (!GT_OUTER_ADMITTED(d->decision)) {
		char key[FATES_LINE];
		snprintf(key, sizeof key, "%s/%s", d->unit, d->name);
		record_fate(op, key);
	}
	if (op->c.on_delta)
		op->c.on_delta(op->c.ctx, d);
}

/* get the listed delta `key` (unit/name) of base version v and let the
 * outer state decide on it */
static void decide(gt_outerproc *op, const char *unit, const char *name, const char *key,
                   uint64_t v, long long bytes, uint64_t V)
{
	gt_error e = {0};
	gt_outerproc_delta d = {unit, name, GT_REFUSE_FORMAT, (int64_t)(V - v), 0, 0, ""};
	char *buf = NULL;
	size_t len = 0;
	char *url = gt_diloco_url(op->c.store, "deltas/%s/%s", unit, name);
	size_t max = (size_t)1 << 31;
	if (bytes >= 0 && (unsigned long long)bytes < max)
		max = (size_t)bytes;     /* never more than the listing promised */
	int rc = gt_store_get_mem(&op->c.so, url, max, &buf, &len, &e);
	free(url);
	strset_add(&op->seen, key);
	if (rc) {
		warn(op, "%s: %s", key, e.text);
		free(buf);
		return;
	}
	gt_delta_hdr h;
	int hr = gt_delta_read_header((const uint8_t *)buf, len, &h, NULL, NULL);
	if (hr == 0)
		d.samples = h.samples;
	e.text[0] = 0;
	/* a unit is its folder (and, with keys, the key of that name): a delta
	 * naming another unit would escape the rule of one delta a unit */
	if (hr == 0 && strcmp(h.unit, unit))
		gt_error_set(&e, GT_EFORMAT, -1, -1, "unit %s in the folder of %s", h.unit, unit);
	else if (hr == 0 && op->c.unit_keys && !signed_by(op, unit, (const uint8_t *)buf, len, &e))
		d.decision = GT_REFUSE_UNSIGNED;
	else
		d.decision = gt_outer_admit_packed(op->o, (const uint8_t *)buf, len, &d.weight, &e);
	free(buf);
	if (d.decision < 0) {
		warn(op, "%s: %s", key, e.text);
		return;
	}
	if (GT_OUTER_ADMITTED(d.decision))
		op->pending_samples += d.samples;
	d.why = e.text;
	tell(op, &d);
}

/* a delta listed by a scan */
typedef struct listed {
	const char *name;
	uint64_t v, gen, seq;
	long long bytes;   /* the listing's size, -1 if it gave none */
} listed;

static int newer_first(const void *a, const void *b)
{
	const listed *x = a, *y = b;
	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? 1 : -1;
	return x->gen < y->gen ? 1 : x->gen > y->gen ? -1 : 0;
}

/* the deltas of one unit (ds[nd], as listed) not decided on yet: those of
 * versions after V are left for a later scan; the others newest first,
 * one admitted at most: while the unit has a delta pending the rest wait
 * for the next version, until they are too stale */
static void look_at_unit(gt_outerproc *op, const char *unit, const gt_store_entry *ds,
                         size_t nd, uint64_t V)
{
	gt_outer_cfg cfg;
	gt_outer_cfg_get(op->o, &cfg);
	listed *l = gt_xcalloc(nd ? nd : 1, sizeof *l);
	size_t k = 0;
	char key[512];
	for (size_t j = 0; j < nd; j++) {
		listed x = {ds[j].name, 0, 0, 0, ds[j].bytes};
		if (gt_diloco_delta_name_parse(x.name, &x.v, &x.gen, &x.seq) || x.v > V)
			continue;
		snprintf(key, sizeof key, "%s/%s", unit, x.name);
		if (!strset_has(&op->seen, key))
			l[k++] = x;
	}
	qsort(l, k, sizeof *l, newer_first);
	for (size_t j = 0; j < k && !stopped(op); j++) {
		snprintf(key, sizeof key, "%s/%s", unit, l[j].name);
		if (V - l[j].v > (uint64_t)cfg.s_max) {
			char why[160];
			snprintf(why, sizeof why, "staleness %" PRIu64 " over %d: %s", V - l[j].v,
			         cfg.s_max,
			         strset_has(&op->waited, key)
			                 ? "waited behind the unit's newer deltas (one a unit a version)"
			                 : "listed too late");
			gt_outerproc_delta d = {unit, l[j].name, GT_REFUSE_TOO_STALE,
			                        (int64_t)(V - l[j].v), 0, 0, why};
			strset_add(&op->seen, key);
			tell(op, &d);
		} else if (gt_outer_unit_influence(op->o, unit, &(double){0}, &(uint64_t){0}) == 1) {
			gt_outerproc_delta d = {unit, l[j].name, GT_REFUSE_ASIDE, (int64_t)(V - l[j].v), 0,
			                        0, "the unit is set aside: its pulls kept one direction"};
			strset_add(&op->seen, key);
			tell(op, &d);
		} else if (gt_outer_unit_pending(op->o, unit)) {
			strset_add(&op->waited, key);
		} else {
			decide(op, unit, l[j].name, key, l[j].v, l[j].bytes, V);
		}
	}
	free(l);
}

int gt_outerproc_scan(gt_outerproc *op, gt_error *e)
{
	gt_store_entry *units = NULL, *ds = NULL;
	size_t nu = 0, nd = 0;
	gt_error t = {0};
	char *url = gt_diloco_url(op->c.store, "heartbeats/");
	int rc = gt_store_list(&op->c.so, url, &units, &nu, &t);
	free(url);
	if (rc == GT_ENOTFOUND)
		return 0;
	if (rc)
		return gt_error_set(e, rc, -1, -1, "heartbeats: %s", t.text);
	uint64_t V = gt_outer_version(op->o);
	for (size_t i = 0; i < nu && !stopped(op); i++) {
		char unit[256];
		size_t ln = strlen(units[i].name);
		if (ln < 6 || strcmp(units[i].name + ln - 5, ".json"))
			continue;
		snprintf(unit, sizeof unit, "%.*s", (int)(ln - 5), units[i].name);
		if (!gt_diloco_unit_ok(unit))
			continue;
		url = gt_diloco_url(op->c.store, "deltas/%s/", unit);
		rc = gt_store_list(&op->c.so, url, &ds, &nd, &t);
		free(url);
		if (rc == GT_ENOTFOUND)
			continue;
		if (rc) {
			gt_store_entries_free(units, nu);
			return gt_error_set(e, rc, -1, -1, "deltas of %s: %s", unit, t.text);
		}
		look_at_unit(op, unit, ds, nd, V);
		gt_store_entries_free(ds, nd);
	}
	gt_store_entries_free(units, nu);
	return 0;
}

int gt_outerproc_step(gt_outerproc *op, gt_outerproc_version *v, gt_error *e)
{
	size_t k = gt_outer_pending(op->o);
	double t = gt_wall();
	double scale = op->c.units > 0 && k < (size_t)op->c.units ? (double)k / op->c.units : 1.0;
	drop_list_free(op);
	op->dropped = gt_xcalloc(k ? k : 1, sizeof *op->dropped);
	for (size_t i = 0; i < k; i++) {
		const gt_outer_entry *x = gt_outer_pending_entry(op->o, i);
		char name[96], key[FATES_LINE];
		gt_diloco_delta_name(name, sizeof name, x->base_version, x->generation, x->seq);
		snprintf(key, sizeof key, "%s/%s", x->unit, name);
		op->dropped[op->ndropped++] = gt_xstrdup(key);
	}
	int rc = gt_outer_step_scaled(op->o, scale, e);
	if (rc == GT_EREFUSED) {
		op->pending_samples = 0;
		for (size_t i = 0; i < op->ndropped; i++)
			record_fate(op, op->dropped[i]);
	} else {
		drop_list_free(op);
	}
	if (!rc && op->probe_t)
		op->probe_cur = op->probe_next;
	const char *au = NULL;
	double ar = 0;
	size_t na = rc ? 0 : gt_outer_aside_new(op->o, 0, &au, &ar);
	for (size_t i = 0; op->c.on_aside && i < na; i++) {
		gt_outer_aside_new(op->o, i, &au, &ar);
		op->c.on_aside(op->c.ctx, gt_outer_version(op->o), au, ar);
	}
	if (!rc)
		rc = put_payload(op, &op->staged, e);
	if (!rc)
		rc = save_state(op, e);
	if (rc)
		return rc;
	op->has_staged = 1;
	if (v) {
		v->version = op->staged.version;
		v->deltas = k;
		v->samples = op->pending_samples;
		v->scale = scale;
		v->time = t;
		v->probe = op->probe_t ? op->probe_cur : NAN;
	}
	op->pending_samples = 0;
	return 0;
}

int gt_outerproc_commit(gt_outerproc *op, gt_error *e)
{
	if (!op->has_staged)
		return gt_error_set(e, GT_EINVAL, -1, -1, "no version to commit");
	int rc = put_pointer(op, &op->staged, e);
	if (!rc)
		op->has_staged = 0;
	return rc;
}

int gt_outerproc_run(gt_outerproc *op, long versions, gt_error *e)
{
	long made = 0;
	double ready = 0, renewed = gt_wall();
	int rc = 0;
	while (!rc && !stopped(op) && (!versions || made < versions)) {
		if (gt_wall() - renewed > op->c.lease_ttl / 3) {
			if ((rc = gt_diloco_lease_take(&op->c.so, op->c.store, op->owner,
			                               op->c.lease_ttl, e)))
				break;
			renewed = gt_wall();
		}
		gt_error t = {0};
		if (gt_outerproc_scan(op, &t)) {
			warn(op, "%s", t.text);
			gt_sleep(op->c.poll, op->c.stop);
			continue;
		}
		size_t need = (size_t)op->c.quorum, aside = gt_outer_units_aside(op->o);
		if (op->c.units > 0 && (size_t)op->c.units < need + aside)
			need = (size_t)op->c.units > aside + 1 ? (size_t)op->c.units - aside : 1;
		if (gt_outer_pending(op->o) < need) {
			gt_sleep(op->c.poll, op->c.stop);
			continue;
		}
		if (!ready)
			ready = gt_wall();
		if (gt_wall() - ready < op->c.grace) {
			gt_sleep(fmin(op->c.poll, op->c.grace), op->c.stop);
			continue;
		}
		gt_outerproc_version v;
		size_t k = gt_outer_pending(op->o);
		if ((rc = gt_outerproc_step(op, &v, e)) == GT_EREFUSED) {
			gt_outerproc_refusal r = {gt_outer_version(op->o) + 1, k, e->text,
			                          (const char *const *)op->dropped};
			if (op->c.on_refused)
				op->c.on_refused(op->c.ctx, &r);
			else
				warn(op, "%s", e->text);
			rc = 0;
			ready = 0;
			continue;
		}
		if (rc)
			break;
		if (op->c.on_saved)
			op->c.on_saved(op->c.ctx, v.version);
		if ((rc = gt_outerproc_commit(op, e)))
			break;
		if (op->c.on_version)
			op->c.on_version(op->c.ctx, &v);
		made++;
		ready = 0;
	}
	return rc;
}
