/* unit.c: a Decoupled DiLoCo learning unit's rounds (unit.h). */
#include "unit.h"
#include "delta.h"
#include "diloco.h"
#include "fs.h"
#include "model.h"
#include "nn.h"
#include "optim.h"
#include "shard.h"
#include "util.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* bytes counted for one read of the pointer */
#define PTR_BYTES 200

struct gt_unit {
	gt_unit_conf c;
	char id[GT_DELTA_UNIT_MAX + 1];
	char *cache;
	uint64_t generation, seq;
	gt_trainer *t;
	gt_model *model;          /* the base: the version of the last pull */
	uint64_t version;         /* its number; UINT64_MAX: none yet */
	uint8_t base_sha[32];     /* its parameters' sha256 */
	float *delta;             /* n */
	gt_diloco_ustate st;
	long pulls;               /* rounds begun: r of the next one */
	long r;                   /* the round of the last pull */
	double bytes_sent, bytes_received;
	double t0, train_s;       /* start of the round; its inner steps' seconds */
	double last_train_s;      /* the previous round's, for wait_version */
	long good;                /* good steps of the last train */
	double loss;              /* their summed loss */
};

void gt_unit_conf_init(gt_unit_conf *c)
{
	memset(c, 0, sizeof *c);
	c->units = 1;
	c->codec = GT_DELTA_INT8;
	c->inner = 500;
	c->window = 250000;
	c->poll = 1;
	c->wait_version = -1;
	gt_train_conf_init(&c->train);
	c->train.seed = 1;
	gt_store_opts_init(&c->so);
}

static int stopped(const gt_unit *u)
{
	return u->c.stop && *u->c.stop;
}

static void warn(const gt_unit *u, const char *what, const gt_error *e)
{
	if (u->c.so.warn) {
		char msg[400];
		snprintf(msg, sizeof msg, "%s: %s", what, e->text);
		u->c.so.warn(u->c.so.warn_ctx, msg);
	}
}

/* the folder of path, or "." */
static char *folder_of(const char *path)
{
	const char *sl = path ? strrchr(path, '/') : NULL;
	if (!sl || sl == path)
		return gt_xstrdup(".");
	char *d = gt_xmalloc((size_t)(sl - path) + 1);
	memcpy(d, path, (size_t)(sl - path));
	d[sl - path] = 0;
	return d;
}

int gt_unit_new(gt_unit **out, const gt_unit_conf *c, gt_error *e)
{
	char id[GT_DELTA_UNIT_MAX + 1];
	if (!c->store)
		return gt_error_set(e, GT_EINVAL, -1, -1, "no store");
	if (c->units < 1 || c->slice < 0 || c->slice >= c->units)
		return gt_error_set(e, GT_EINVAL, -1, -1, "slice %d of %d units", c->slice, c->units);
	if (c->inner < 1 || c->window < 1 || !gt_delta_codec_name(c->codec))
		return gt_error_set(e, GT_EINVAL, -1, -1, "bad inner steps, window or codec");
	if (c->id)
		snprintf(id, sizeof id, "%s", c->id);
	else
		snprintf(id, sizeof id, "u%d", c->slice);
	if (!gt_diloco_unit_ok(id) || (c->id && strcmp(id, c->id)))
		return gt_error_set(e, GT_EINVAL, -1, -1, "bad unit id");
	char *cache = c->cache ? gt_xstrdup(c->cache) : folder_of(c->state);
	int rc = gt_fs_mkdir_p(cache, e);
	uint64_t gen = 0;
	if (!rc && gt_delta_new_generation(&gen))
		rc = gt_error_set(e, GT_EIO, -1, -1, "no random generation id");
	if (rc) {
		free(cache);
		return rc;
	}
	gt_unit *u = gt_xcalloc(1, sizeof *u);
	u->c = *c;
	memcpy(u->id, id, sizeof id);
	u->c.id = u->id;
	u->cache = cache;
	u->generation = gen;
	u->version = UINT64_MAX;
	/* a restarted unit draws other batches than the run before it */
	if (c->state)
		u->c.train.seed += gt_diloco_ustate_starts(c->state) * 0x9e3779b97f4a7c15ULL;
	*out = u;
	return 0;
}

void gt_unit_free(gt_unit *u)
{
	if (!u)
		return;
	gt_train_free(u->t);
	gt_model_free(u->model);
	gt_diloco_ustate_release(&u->st);
	gt_free_all(u->delta, u->cache, u);
}

const char *gt_unit_id(const gt_unit *u) { return u->id; }
uint64_t gt_unit_version(const gt_unit *u) { return u->version; }

/* fetch version p into the cache and make it the base */
static int fetch_version(gt_unit *u, const gt_diloco_ptr *p, gt_error *e)
{
	gt_error t = {0};
	char path[4096], hex[GT_SHA256_HEX];
	snprintf(path, sizeof path, "%s/%s", u->cache, p->model);
	uint8_t dg[32];
	struct stat sb;
	if (stat(path, &sb) != 0 || gt_model_sha256_file(path, dg, &t) != 0 ||
	    strcmp(gt_sha256_hex(dg, hex), p->sha256)) {
		char *url = gt_diloco_url(u->c.store, "versions/%s", p->model);
		int rc = gt_store_get(&u->c.so, url, path, p->sha256, p->bytes, NULL, &t);
		free(url);
		if (rc)
			return gt_error_set(e, rc, -1, -1, "version %" PRIu64 ": %s", p->version,
			                    t.text);
		u->bytes_received += (double)p->bytes;
	}
	gt_model *m = NULL;
	int rc = gt_model_read(path, &m, e);
	if (rc)
		return rc;
	uint8_t ps[32];
	if (gt_delta_params_sha256(m->params, m->nparams, ps) != 0 ||
	    strcmp(gt_sha256_hex(ps, hex), p->params_sha256))
		rc = gt_error_set(e, GT_ECHECKSUM, -1, -1,
		                  "%s: parameters do not match the pointer's params_sha256", path);
	else if (u->model && (u->model->nparams != m->nparams ||
	                      memcmp(&u->model->arch, &m->arch, sizeof m->arch)))
		rc = gt_error_set(e, GT_EINVAL, -1, -1, "version %" PRIu64 " has another architecture",
		                  p->version);
	if (rc) {
		gt_model_free(m);
		return rc;
	}
	/* the previous version is no longer needed locally */
	if (u->model) {
		char old[4096];
		snprintf(old, sizeof old, "%s/v%" PRIu64 ".bin.gz", u->cache, u->version);
		if (strcmp(old, path))
			unlink(old);
	}
	gt_model_free(u->model);
	u->model = m;
	u->version = p->version;
	memcpy(u->base_sha, ps, 32);
	return 0;
}

/* the trainer on the first version, with the saved state restored */
static int start_trainer(gt_unit *u, gt_error *e)
{
	u->t = gt_train_new(u->model, &u->c.train, e);
	if (!u->t)
		return GT_EINVAL;
	float *m, *v;
	int64_t *step;
	size_t n = gt_optim_state(gt_train_optim(u->t), &m, &v, &step);
	gt_diloco_ustate_init(&u->st, n, v != NULL);
	u->delta = gt_xmalloc(sizeof(float) * n);
	if (u->c.state) {
		int rc = gt_diloco_ustate_load(&u->st, u->c.state, e);
		if (rc && rc != GT_ENOTFOUND)
			return rc;
		memcpy(m, u->st.m, sizeof(float) * n);
		if (v)
			memcpy(v, u->st.v, sizeof(float) * n);
		*step = u->st.step;
	}
	u->st.starts++;
	return 0;
}

/* the pointer into p, counting its bytes */
static int read_ptr(gt_unit *u, gt_diloco_ptr *p, gt_error *e)
{
	int rc = gt_diloco_ptr_read(&u->c.so, u->c.store, p, NULL, e);
	if (rc == 0)
		u->bytes_received += PTR_BYTES;
	return rc;
}

int gt_unit_pull(gt_unit *u, gt_error *e)
{
	gt_diloco_ptr p;
	gt_error t = {0};
	int rc;
	u->t0 = gt_wall();
	u->r = u->pulls++;
	u->good = 0;
	while ((rc = read_ptr(u, &p, &t)) == GT_ENOTFOUND && !stopped(u))
		gt_sleep(u->c.poll, u->c.stop);
	if (stopped(u))
		return GT_UNIT_STOPPED;
	if (rc)
		return gt_error_set(e, rc, -1, -1, "pointer: %s", t.text);
	/* a bounded wait for the outer process (never for another unit): a
	 * round from the version just used repeats much of the last delta */
	double wait = u->c.wait_version >= 0 ? u->c.wait_version : fmax(1, u->last_train_s / 2);
	double until = gt_wall() + wait;
	while (p.version == u->version && gt_wall() < until && !stopped(u)) {
		gt_diloco_ptr q;
		gt_sleep(fmin(0.05, wait), u->c.stop);
		if (read_ptr(u, &q, &t) == 0)
			p = q;
	}
	if (stopped(u))
		return GT_UNIT_STOPPED;
	if (p.version != u->version && (rc = fetch_version(u, &p, e)) != 0)
		return rc;
	if (!u->t && (rc = start_trainer(u, e)) != 0)
		return rc;
	return 0;
}

int gt_unit_train(gt_unit *u, gt_shard_window *w, gt_error *e)
{
	if (!u->t)
		return gt_error_set(e, GT_EINVAL, -1, -1, "no version pulled");
	int rc = gt_train_check_window(u->t, w, e);
	if (rc)
		return rc;
	gt_nn *nn = gt_train_nn(u->t);
	memcpy(gt_nn_params(nn), u->model->params, sizeof(float) * u->model->nparams);
	gt_nn_sync_params(nn);
	double t1 = gt_wall();
	u->good = 0;
	u->loss = 0;
	for (long i = 0; i < u->c.inner && !stopped(u); i++) {
		gt_train_step_info info;
		rc = gt_train_step(u->t, w, &info, e);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			u->good++;
			u->loss += info.loss.total;
		}
		gt_sleep(u->c.step_sleep, u->c.stop);
	}
	if (stopped(u))
		return GT_UNIT_STOPPED;
	u->train_s = u->last_train_s = gt_wall() - t1;
	if (!u->good)
		return gt_error_set(e, GT_EINVAL, -1, -1, "round %ld: no good inner step", u->r);
	return 0;
}

/* the heartbeat STORE/diloco/heartbeats/ID.json with state what */
static int heartbeat(gt_unit *u, const char *what, double loss, gt_error *e)
{
	char gen[17];
	snprintf(gen, sizeof gen, "%016" PRIx64, u->generation);
	json_t *j = json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:f,s:s}", "unit", u->id, "generation",
	                      gen, "seq", (json_int_t)u->seq, "version",
	                      (json_int_t)(u->version == UINT64_MAX ? -1 : (json_int_t)u->version),
	                      "deltas", (json_int_t)u->st.deltas, "samples",
	                      (json_int_t)u->st.samples, "time", gt_wall(), "state", what);
	if (isfinite(loss))
		json_object_set_new(j, "loss", json_real(loss));
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	char *url = gt_diloco_url(u->c.store, "heartbeats/%s.json", u->id);
	int rc = gt_diloco_put_mem(&u->c.so, s, strlen(s), url, 1, e);
	u->bytes_sent += (double)strlen(s);
	free(url);
	free(s);
	return rc;
}

/* the optimizer's moments and step into the state, and the file written */
static int save_state(gt_unit *u, gt_error *e)
{
	float *m, *v;
	int64_t *step;
	size_t n = gt_optim_state(gt_train_optim(u->t), &m, &v, &step);
	memcpy(u->st.m, m, sizeof(float) * n);
	if (v)
		memcpy(u->st.v, v, sizeof(float) * n);
	u->st.step = *step;
	return gt_diloco_ustate_save(&u->st, u->c.state, e);
}

int gt_unit_push(gt_unit *u, gt_unit_round_info *info, gt_error *e)
{
	if (!u->t || !u->good)
		return gt_error_set(e, GT_EINVAL, -1, -1, "no round trained");
	size_t n = u->model->nparams;
	/* delta + residual, compressed; residual = what compression lost */
	const float *loc = gt_nn_params(gt_train_nn(u->t));
	for (size_t i = 0; i < n; i++)
		u->delta[i] = u->model->params[i] - loc[i] + u->st.r[i];
	float *dec = gt_xmalloc(sizeof(float) * n);
	size_t cap = gt_delta_payload_bytes(u->c.codec, n);
	uint8_t *buf = gt_xmalloc(cap);
	int rc = gt_delta_encode(u->c.codec, u->delta, n, buf, cap, dec);
	free(buf);
	if (rc) {
		free(dec);
		return gt_error_set(e, GT_EINVAL, -1, -1,
		                    "round %ld: delta not encodable (non-finite)", u->r);
	}
	gt_delta_hdr h;
	memset(&h, 0, sizeof h);
	h.base_version = u->version;
	memcpy(h.base_sha256, u->base_sha, 32);
	snprintf(h.unit, sizeof h.unit, "%s", u->id);
	h.generation = u->generation;
	h.seq = u->seq;
	h.inner_steps = (uint64_t)u->good;
	h.samples = (uint64_t)u->good * (uint64_t)u->c.train.batch;
	h.codec = u->c.codec;
	h.sum = GT_DELTA_SHA256;
	h.nparams = n;
	h.sig = u->c.sign_key != NULL;
	char name[96], path[4096];
	gt_diloco_delta_name(name, sizeof name, h.base_version, h.generation, h.seq);
	snprintf(path, sizeof path, "%s/%s", u->cache, name);
	rc = gt_delta_save_signed(path, &h, u->delta, NULL, u->c.sign_key, e);
	if (rc == 0) {
		gt_error t = {0};
		char *url = gt_diloco_url(u->c.store, "deltas/%s/%s", u->id, name);
		rc = gt_diloco_put_file(&u->c.so, path, url, 0, &t);
		free(url);
		unlink(path);
		if (rc)
			gt_error_set(e, rc, -1, -1, "put %s: %s", name, t.text);
	}
	if (rc) {
		free(dec);
		return rc;
	}
	double sent = (double)gt_delta_packed_bytes(&h);
	u->bytes_sent += sent;
	for (size_t i = 0; i < n; i++)
		u->st.r[i] = u->delta[i] - dec[i];
	free(dec);
	u->seq++;
	u->st.deltas++;
	u->st.samples += h.samples;
	if (u->c.state && (rc = save_state(u, e)) != 0)
		return rc;
	gt_error t = {0};
	if (heartbeat(u, "training", u->loss / (double)u->good, &t))
		warn(u, "heartbeat", &t);
	if (info) {
		double end = gt_wall();
		memset(info, 0, sizeof *info);
		info->unit = u->id;
		info->generation = u->generation;
		info->seq = h.seq;
		info->base_version = u->version;
		info->inner_steps = u->good;
		info->samples = h.samples;
		info->loss = u->loss / (double)u->good;
		info->delta_bytes = sent;
		info->bytes_sent = u->bytes_sent;
		info->bytes_received = u->bytes_received;
		info->train_s = u->train_s;
		info->round_s = end - u->t0;
		info->start = u->t0;
		info->end = end;
	}
	u->good = 0;
	return 0;
}

int gt_unit_round(gt_unit *u, gt_unit_round_info *info, gt_error *e)
{
	int rc = gt_unit_pull(u, e);
	if (rc)
		return rc;
	int flags = u->t ? gt_train_window_flags(u->t) : 0;
	gt_shard_window *w = gt_shard_window_open_with(u->c.data, u->c.window, u->c.board,
	                                               u->c.train.seed + (uint64_t)u->r, flags, e);
	if (!w)
		return GT_ENOTFOUND;
	if (gt_shard_window_slice(w, u->c.slice, u->c.units) != 0)
		rc = gt_error_set(e, GT_EINVAL, -1, -1, "%s: fewer rows than --units", u->c.data);
	else
		rc = gt_unit_train(u, w, e);
	gt_shard_window_free(w);
	return rc ? rc : gt_unit_push(u, info, e);
}

int gt_unit_finish(gt_unit *u, gt_error *e)
{
	return u->t ? heartbeat(u, "stopped", NAN, e) : 0;
}
