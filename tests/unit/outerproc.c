/* outerproc: the outer process over a folder store without gt-outer:
 * version 0 from a network, the folder lock and the store lease, a scan's
 * decisions (fresh, checksum, duplicate, future left for later,
 * too-stale listed too late), a version's network checked against the
 * Nesterov step worked out here, the crash between state and pointer
 * finished by the next open, a state behind the store refused, the run
 * loop and the k/U scale, a pointer another writer replaced since it was
 * read (a lost race) reported and not overwritten. */
#include "delta.h"
#include "diloco.h"
#include "fs.h"
#include "model.h"
#include "outerproc.h"
#include "testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

static char dir[512], store[600];

/* what the callbacks saw */
typedef struct seen {
	int n, fresh, stale, dup, checksum, base_sha, too_stale, future, other;
	uint64_t saved;
	gt_outerproc_version v;
	int versions;
} seen;

static void on_delta(void *ctx, const gt_outerproc_delta *d)
{
	seen *s = ctx;
	s->n++;
	switch (d->decision) {
	case GT_ADMIT_FRESH: s->fresh++; break;
	case GT_ADMIT_STALE: s->stale++; break;
	case GT_REFUSE_DUPLICATE: s->dup++; break;
	case GT_REFUSE_CHECKSUM: s->checksum++; break;
	case GT_REFUSE_BASE_SHA: s->base_sha++; break;
	case GT_REFUSE_TOO_STALE: s->too_stale++; break;
	case GT_REFUSE_FUTURE: s->future++; break;
	default: s->other++; break;
	}
}

static void on_saved(void *ctx, uint64_t v)
{
	((seen *)ctx)->saved = v;
}

static void on_version(void *ctx, const gt_outerproc_version *v)
{
	seen *s = ctx;
	s->v = *v;
	s->versions++;
}

static void conf(gt_outerproc_conf *c, const char *state, seen *s)
{
	static char init[600];
	snprintf(init, sizeof init, "%s/m0.bin.gz", dir);
	gt_outerproc_conf_init(c);
	c->store = store;
	c->dir = state;
	c->init = init;
	c->poll = 0.01;
	c->grace = 0;
	c->insecure_units = 1;
	c->on_delta = on_delta;
	c->on_saved = on_saved;
	c->on_version = on_version;
	c->ctx = s;
	memset(s, 0, sizeof *s);
}

/* STORE/diloco/ + the printf-formatted rest, in one of two static buffers */
static __attribute__((format(printf, 1, 2))) char *spath(const char *fmt, ...)
{
	static char p[2][1200];
	static int k;
	char rest[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rest, sizeof rest, fmt, ap);
	va_end(ap);
	k ^= 1;
	snprintf(p[k], sizeof p[k], "%.600s/diloco/%.400s", store, rest);
	return p[k];
}

/* the pointer's version, -1 without one */
static long ptr_version(void)
{
	gt_diloco_ptr p;
	gt_store_opts o;
	gt_store_opts_init(&o);
	gt_error e;
	return gt_diloco_ptr_read(&o, store, &p, NULL, &e) ? -1 : (long)p.version;
}

/* a delta of unit u on version v of o (base sha from o unless bad_sum),
 * values d, put as STORE/diloco/deltas/<dirunit>/<v>-<gen>-<seq>.delta
 * with a heartbeat for dirunit */
static void put_delta(const gt_outer *o, const char *dirunit, const char *u, uint64_t v,
                      uint64_t gen, uint64_t seq, uint64_t samples, const float *d,
                      int bad_sum)
{
	gt_delta_hdr h;
	memset(&h, 0, sizeof h);
	h.base_version = v;
	gt_outer_version_sha256(o, v, h.base_sha256);
	snprintf(h.unit, sizeof h.unit, "%s", u);
	h.generation = gen;
	h.seq = seq;
	h.inner_steps = 1;
	h.samples = samples;
	h.codec = GT_DELTA_FP32;
	h.sum = GT_DELTA_SHA256;
	h.nparams = gt_outer_size(o);
	char name[96], folder[1200], path[1300];
	gt_diloco_delta_name(name, sizeof name, v, gen, seq);
	snprintf(folder, sizeof folder, "%s", spath("deltas/%s", dirunit));
	gt_error e;
	gt_fs_mkdir_p(folder, &e);
	snprintf(path, sizeof path, "%s/%s", folder, name);
	if (gt_delta_save(path, &h, d, NULL, &e))
		diag("%s: %s", path, e.text);
	if (bad_sum) {
		FILE *f = fopen(path, "r+b");
		fseek(f, -1, SEEK_END);
		fputc(0x42, f);
		fclose(f);
	}
	gt_fs_mkdir_p(spath("heartbeats"), &e);
	FILE *f = fopen(spath("heartbeats/%s.json", dirunit), "w");
	fputs("{}", f);
	fclose(f);
}

static int file_exists(const char *p)
{
	return access(p, F_OK) == 0;
}

int main(void)
{
	test_tmpdir(dir, sizeof dir, "outerproc");
	snprintf(store, sizeof store, "%s/store", dir);
	gt_error e = {0};
	gt_arch a;
	gt_model_parse_arch("b1c8", &a, &e);
	gt_model *m0 = gt_model_new_random(&a, 3, &e);
	char p0[600], s1[600], s2[600], s3[600];
	snprintf(p0, sizeof p0, "%s/m0.bin.gz", dir);
	snprintf(s1, sizeof s1, "%s/outer", dir);
	snprintf(s2, sizeof s2, "%s/outer2", dir);
	snprintf(s3, sizeof s3, "%s/outer3", dir);
	ok(m0 && gt_model_write(p0, m0, &e) == 0, "a b1c8 network as version 0");
	size_t n = m0->nparams;

	/* version 0 */
	gt_outerproc_conf c;
	seen s;
	conf(&c, s1, &s);
	gt_outerproc *op = NULL;
	int how = -1;
	is_int(gt_outerproc_open(&op, &c, &how, &e), 0, "open: a new state from --init");
	is_int(how, GT_OUTERPROC_INIT, "started as init");
	const gt_outer *o = gt_outerproc_outer(op);
	is_int(ptr_version(), 0, "the pointer names version 0");
	gt_model *v0 = NULL;
	ok(gt_model_read(spath("versions/v0.bin.gz"), &v0, &e) == 0 &&
	   !memcmp(v0->params, m0->params, sizeof(float) * n), "v0.bin.gz holds the --init network");
	ok(file_exists(spath("versions/v0.json")), "and v0.json, its ledger");
	gt_model_free(v0);

	/* one process per folder, one per store */
	gt_outerproc_conf c2;
	seen s_2;
	conf(&c2, s1, &s_2);
	gt_outerproc *op2 = NULL;
	ok(gt_outerproc_open(&op2, &c2, NULL, &e) == GT_EINVAL && strstr(e.text, "holds this state"),
	   "a second process on the same folder is refused (%s)", e.text);
	conf(&c2, s2, &s_2);
	ok(gt_outerproc_open(&op2, &c2, NULL, &e) == GT_EINVAL && strstr(e.text, "lease held by"),
	   "a second process on the same store is refused (%s)", e.text);

	/* a scan: nothing yet, then deltas of two units on version 0 */
	is_int(gt_outerproc_scan(op, &e), 0, "a scan of a store without units");
	float *d0 = gt_xmalloc(sizeof(float) * n), *d1 = gt_xmalloc(sizeof(float) * n);
	for (size_t i = 0; i < n; i++) {
		d0[i] = 0.01f * (float)((int)(i % 5) - 2);
		d1[i] = 0.002f * (float)((int)(i % 3) - 1);
	}
	put_delta(o, "u0", "u0", 0, 0xa0, 0, 100, d0, 0);
	put_delta(o, "u1", "u1", 0, 0xb0, 0, 300, d1, 0);
	put_delta(o, "u1", "u1", 0, 0xb0, 1, 300, d1, 1);       /* bad checksum */
	put_delta(o, "u2", "u0", 0, 0xa0, 0, 100, d0, 0);       /* u0's in u2's folder */
	put_delta(o, "u0", "u0", 1, 0xa0, 1, 100, d0, 0);       /* "version 1" */
	is_int(gt_outerproc_scan(op, &e), 0, "a scan of three units");
	ok(s.fresh == 2 && s.checksum == 1 && s.other == 1 && s.n == 4,
	   "two fresh, a bad checksum, another unit's delta in u2's folder (format); the future "
	   "delta not looked at (%d events)", s.n);
	is_int(gt_outer_pending(o), 2, "two deltas pending");
	gt_outerproc_scan(op, &e);
	is_int(s.n, 4, "a second scan looks at nothing again");

	/* version 1: g = (100 d0 + 300 d1) / 400, m = g,
	 * theta1 = theta0 - 0.7 (g + 0.9 m) (outer.h, DiLoCo's defaults) */
	gt_outerproc_version v;
	is_int(gt_outerproc_step(op, &v, &e), 0, "step");
	ok(v.version == 1 && v.deltas == 2 && v.samples == 400 && v.scale == 1,
	   "version 1 of 2 deltas, 400 samples, scale 1");
	is_int(ptr_version(), 0, "before the commit the pointer still names version 0");
	gt_model *v1 = NULL;
	double maxd = 0;
	if (gt_model_read(spath("versions/v1.bin.gz"), &v1, &e) == 0)
		for (size_t i = 0; i < n; i++) {
			double g = (100.0 * d0[i] + 300.0 * d1[i]) / 400;
			maxd = fmax(maxd, fabs(v1->params[i] - (m0->params[i] - 0.7 * 1.9 * g)));
		}
	ok(v1 && maxd < 1e-6, "v1.bin.gz is the Nesterov step from version 0 (max diff %.2g)", maxd);
	uint8_t dg[32];
	gt_model_sha256_file(spath("versions/v0.bin.gz"), dg, &e);
	ok(v1 && v1->meta.steps == m0->meta.steps + 1 && v1->meta.rows == m0->meta.rows + 400 &&
	   !memcmp(v1->meta.parent, dg, 32), "its steps, rows and parent (v0.bin.gz's sha256)");
	gt_model_free(v1);

	/* a crash between the state and the pointer */
	char cp[1300];
	snprintf(cp, sizeof cp, "cp -r '%s' '%s'", s1, s3); /* the state at version 1 */
	gt_outerproc_close(op);
	conf(&c, s1, &s);
	is_int(gt_outerproc_open(&op, &c, &how, &e), 0, "open after a crash before the pointer");
	is_int(how, GT_OUTERPROC_RECOVERED, "recovered");
	is_int(ptr_version(), 1, "the pointer names version 1");
	json_t *lj = json_load_file(spath("versions/v1.json"), 0, NULL);
	ok(lj && json_integer_value(json_object_get(lj, "samples")) == 400 &&
	   json_array_size(json_object_get(lj, "deltas")) == 2, "v1.json: two deltas, 400 samples");
	json_decref(lj);
	gt_outerproc_close(op);
	ok(system(cp) == 0, "a copy of the state at version 1");
	conf(&c, s1, &s);
	is_int(gt_outerproc_open(&op, &c, &how, &e), 0, "open once more");
	is_int(how, GT_OUTERPROC_RESUMED, "state and store in step");
	o = gt_outerproc_outer(op);

	/* the deltas listed again: each fate told once, so the applied ones
	 * (in the ledger) and the refused ones (in DIR/refused) are not looked
	 * at again; the one that named version 1 before there was one is */
	char rp[700];
	snprintf(rp, sizeof rp, "%s/refused", s1);
	size_t rn = 0;
	char *rl = slurp(rp, &rn);
	ok(rl && strstr(rl, "u1/0-00000000000000b0-1.delta\n") && strstr(rl, "u2/0-00000000000000a0-0.delta\n"),
	   "DIR/refused lists the refused deltas (%s)", rl ? rl : "none");
	free(rl);
	gt_outerproc_scan(op, &e);
	ok(s.base_sha == 1 && s.n == 1,
	   "after a restart: no applied delta relabelled, no refusal told again; a wrong base sha256 (%d events)",
	   s.n);
	put_delta(o, "u0", "u0", 1, 0xa0, 2, 100, d0, 0);
	gt_outerproc_scan(op, &e);
	ok(s.fresh == 1 && s.n == 2, "a delta of version 1: fresh");
	gt_outerproc_step(op, &v, &e);
	is_int(gt_outerproc_commit(op, &e), 0, "version 2");
	is_int(gt_outerproc_commit(op, &e), GT_EINVAL, "nothing more to commit");
	is_int(gt_outerproc_step(op, &v, &e), GT_EINVAL, "no step without a pending delta");

	/* the run loop: one version of one delta */
	put_delta(o, "u1", "u1", 2, 0xb0, 2, 300, d1, 0);
	is_int(gt_outerproc_run(op, 1, &e), 0, "run until one version");
	ok(s.versions == 1 && s.saved == 3 && s.v.version == 3 && ptr_version() == 3,
	   "on_saved and on_version of version 3, the pointer at 3");
	put_delta(o, "u0", "u0", 0, 0xa0, 7, 100, d0, 0);
	gt_outerproc_scan(op, &e);
	ok(s.too_stale == 1 && gt_outer_pending(o) == 0, "a delta of version 0 at version 3: too stale");
	volatile sig_atomic_t stop = 1;
	gt_outerproc_close(op);

	/* a state behind the store, no state for a store that has one */
	conf(&c, s3, &s);
	ok(gt_outerproc_open(&op, &c, NULL, &e) == GT_EINVAL && strstr(e.text, "store is at version 3"),
	   "a state behind the store is refused (%s)", e.text);
	conf(&c, s2, &s);
	ok(gt_outerproc_open(&op, &c, NULL, &e) == GT_EINVAL && strstr(e.text, "already holds"),
	   "a new state for a store that has versions is refused (%s)", e.text);

	/* U units: a version of 1 of 4 deltas is scaled by 1/4; stop ends the run */
	conf(&c, s1, &s);
	c.units = 4;
	c.quorum = 1;
	c.stop = &stop;
	is_int(gt_outerproc_open(&op, &c, NULL, &e), 0, "open with 4 units, quorum 1");
	is_int(gt_outerproc_run(op, 0, &e), 0, "a stopped run returns at once");
	stop = 0;
	put_delta(gt_outerproc_outer(op), "u1", "u1", 3, 0xb0, 3, 300, d1, 0);
	gt_outerproc_scan(op, &e);
	int rc = gt_outerproc_step(op, &v, &e);
	ok(rc == 0 && v.scale == 0.25 && v.version == 4,
	   "version 4 of 1 delta of 4 units: scale 0.25");
	if (rc)
		diag("%s", e.text);
	/* another writer's pointer between this process's read of current.json
	 * and its put (a second outer process, a hand): the commit fails with
	 * GT_ECONFLICT, saying so, and the other pointer stays */
	const char theirs[] = "{\"version\":99,\"by\":\"someone else\"}\n";
	char tmp[1300];
	snprintf(tmp, sizeof tmp, "%s.tmp", spath("current.json"));
	FILE *f = fopen(tmp, "w");
	fputs(theirs, f);
	fclose(f);
	rename(tmp, spath("current.json"));
	is_int(gt_outerproc_commit(op, &e), GT_ECONFLICT, "a pointer changed since it was read: conflict");
	ok(strstr(e.text, "diloco/current.json changed since it was read; not overwritten") != NULL,
	   "reported (%s)", e.text);
	char back[256] = "";
	f = fopen(spath("current.json"), "r");
	if (f) {
		size_t nb = fread(back, 1, sizeof back - 1, f);
		back[nb] = 0;
		fclose(f);
	}
	is_str(back, theirs, "the other writer's pointer is not overwritten");
	is_int(gt_outerproc_commit(op, &e), GT_ECONFLICT, "nor at a second try");
	gt_outerproc_close(op);

	free(d0);
	free(d1);
	gt_model_free(m0);
	test_rmdir(dir);
	return done_testing();
}
