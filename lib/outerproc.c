/* outerproc.c: the outer process of Decoupled DiLoCo over a store
 * (outerproc.h). */
#include "outerproc.h"
#include "delta.h"
#include "diloco.h"
#include "fs.h"
#include "model.h"
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
	strset seen;
	uint64_t pending_samples;
	char prev_sha[GT_SHA256_HEX]; /* the file sha256 of the version in force */
	char ptr_tag[GT_STORE_TAG]; /* the version of current.json this process
	                         * read or wrote last ("": none there) */
	gt_diloco_ptr staged;    /* the pointer of a step not committed yet */
	int has_staged;
};

void gt_outerproc_conf_init(gt_outerproc_conf *c)
{
	memset(c, 0, sizeof *c);
	gt_outer_cfg_default(&c->cfg);
	gt_outer_guard_default(&c->guard);
	c->grace = 0.5;
	c->poll = 0.5;
	c->lease_ttl = 30;
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
	if ((rc = gt_outer_guard_set(op->o, &op->c.guard, e)))
		goto out;
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
	gt_outerproc *op = gt_xcalloc(1, sizeof *op);
	op->c = *c;
	if (op->c.quorum <= 0)
		op->c.quorum = op->c.units > 0 ? op->c.units : 1;
	op->lock = -1;
	int rc = hold(op, e);
	if (!rc)
		rc = start(op, how ? how : &dummy, e);
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
	strset_free(&op->seen);
	if (op->lock >= 0)
		close(op->lock);
	free(op);
}

/* 1 when buf[len] is a delta of unit `unit` (its folder) signed by the
 * key unit_keys/<unit>.pub; else 0 with e's text saying why */
static int signed_by(const gt_outerproc *op, const char *unit, const uint8_t *buf, size_t len,
                     gt_error *e)
{
	gt_delta_hdr h;
	if (gt_delta_read_header(buf, len, &h, NULL, e))
		return 0;
	if (strcmp(h.unit, unit)) {
		gt_error_set(e, GT_EFORMAT, -1, -1, "unit %s in the folder of %s", h.unit, unit);
		return 0;
	}
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

/* get one listed delta (no more than the listing's bytes, -1 if it gave
 * none) and let the outer state decide on it */
static void look_at(gt_outerproc *op, const char *unit, const char *name, long long bytes,
                    uint64_t V)
{
	gt_error e = {0};
	gt_outer_cfg cfg;
	gt_outer_cfg_get(op->o, &cfg);
	uint64_t v, gen, seq;
	if (gt_diloco_delta_name_parse(name, &v, &gen, &seq))
		return;
	char key[512];
	snprintf(key, sizeof key, "%s/%s", unit, name);
	if (v > V || !strset_add(&op->seen, key))
		return; /* not ours yet (look again later), or looked at */
	gt_outerproc_delta d = {unit, name, GT_REFUSE_TOO_STALE, (int64_t)(V - v), 0, 0,
	                        "listed too late"};
	if (V - v > (uint64_t)cfg.s_max) {
		if (op->c.on_delta)
			op->c.on_delta(op->c.ctx, &d);
		return;
	}
	char *buf = NULL;
	size_t len = 0;
	char *url = gt_diloco_url(op->c.store, "deltas/%s/%s", unit, name);
	size_t max = (size_t)1 << 31;
	if (bytes >= 0 && (unsigned long long)bytes < max)
		max = (size_t)bytes;     /* never more than the listing promised */
	int rc = gt_store_get_mem(&op->c.so, url, max, &buf, &len, &e);
	free(url);
	if (rc) {
		warn(op, "%s: %s", key, e.text);
		free(buf);
		return;
	}
	gt_delta_hdr h;
	if (gt_delta_read_header((const uint8_t *)buf, len, &h, NULL, NULL) == 0)
		d.samples = h.samples;
	e.text[0] = 0;
	if (op->c.unit_keys && !signed_by(op, unit, (const uint8_t *)buf, len, &e))
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
	if (op->c.on_delta)
		op->c.on_delta(op->c.ctx, &d);
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
		for (size_t j = 0; j < nd && !stopped(op); j++)
			look_at(op, unit, ds[j].name, ds[j].bytes, V);
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
	int rc = gt_outer_step_scaled(op->o, scale, e);
	if (rc == GT_EREFUSED)
		op->pending_samples = 0;
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
		if (gt_outer_pending(op->o) < (size_t)op->c.quorum) {
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
			gt_outerproc_refusal r = {gt_outer_version(op->o) + 1, k, e->text};
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
