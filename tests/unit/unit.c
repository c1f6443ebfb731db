/* unit: a learning unit's rounds over a folder store without gt-unit: the
 * fp32 delta of a round is exactly theta_v minus plain training's
 * parameters after the same H steps (lib/train, same seed and window),
 * and with an outer step of lr 1, momentum 0 version 1 is plain training;
 * the delta's name, heartbeat, state file and cache; a round from the
 * same version when none is newer; a stop; a restart's generation and
 * counts; a version whose parameters do not match the pointer; bad
 * settings. */
#include "delta.h"
#include "diloco.h"
#include "model.h"
#include "outerproc.h"
#include "record_gen.h"
#include "testutil.h"
#include "unit.h"

#include <dirent.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

static char dir[512], store[600], data[600], state[600], cache[600];

enum { H = 3, BATCH = 16, SEED = 5 };

static void conf(gt_unit_conf *c)
{
	gt_unit_conf_init(c);
	c->store = store;
	c->data = data;
	c->state = state;
	c->inner = H;
	c->train.batch = BATCH;
	c->train.seed = SEED;
	c->window = 1000;
	c->codec = GT_DELTA_FP32;
	c->wait_version = 0;
}

/* files in STORE/diloco/deltas/u0 */
static int ndeltas(void)
{
	char p[700];
	snprintf(p, sizeof p, "%s/diloco/deltas/u0", store);
	DIR *d = opendir(p);
	int n = 0;
	for (struct dirent *de; d && (de = readdir(d));)
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* plain training: H steps of a trainer with the unit's settings from m on
 * the window round 0 of the unit opens */
static gt_trainer *plain(const gt_model *m)
{
	gt_error e = {0};
	gt_unit_conf c;
	conf(&c);
	gt_trainer *t = gt_train_new(m, &c.train, &e);
	gt_shard_window *w = gt_shard_window_open(data, c.window, 0, SEED, &e);
	for (int i = 0; t && w && i < H; i++)
		gt_train_step(t, w, NULL, &e);
	gt_shard_window_free(w);
	return t;
}

static json_t *heartbeat(void)
{
	char p[700];
	snprintf(p, sizeof p, "%s/diloco/heartbeats/u0.json", store);
	return json_load_file(p, 0, NULL);
}

int main(void)
{
	test_tmpdir(dir, sizeof dir, "unit");
	snprintf(store, sizeof store, "%s/store", dir);
	snprintf(data, sizeof data, "%s/d", dir);
	snprintf(cache, sizeof cache, "%s/u", dir);
	snprintf(state, sizeof state, "%s/u/state", dir);
	gt_error e = {0};
	ok(gen_shards(data, 7, 17, 6, 100, 3, 0, &e) == 0, "7x7 shards");
	gt_arch a;
	gt_model_parse_arch("b1c8", &a, &e);
	gt_model *m0 = gt_model_new_random(&a, 1, &e);
	char p0[600], outer[600];
	snprintf(p0, sizeof p0, "%s/m0.bin.gz", dir);
	snprintf(outer, sizeof outer, "%s/outer", dir);
	gt_model_write(p0, m0, &e);
	size_t n = m0->nparams;

	/* a unit before any version: a stop ends its wait */
	gt_unit_conf c;
	conf(&c);
	volatile sig_atomic_t stop = 1;
	c.stop = &stop;
	gt_unit *u = NULL;
	is_int(gt_unit_new(&u, &c, &e), 0, "a unit");
	is_str(gt_unit_id(u), "u0", "its id is u<slice>");
	is_int(gt_unit_round(u, NULL, &e), GT_UNIT_STOPPED, "no pointer yet: stopped while it waits");
	is_int(gt_unit_finish(u, &e), 0, "no heartbeat before a version");
	ok(!heartbeat(), "none in the store");
	gt_unit_free(u);
	stop = 0;

	/* version 0 by the outer process, lr 1 and momentum 0 */
	gt_outerproc_conf oc;
	gt_outerproc_conf_init(&oc);
	oc.store = store;
	oc.dir = outer;
	oc.init = p0;
	oc.cfg.lr = 1;
	oc.cfg.momentum = 0;
	oc.insecure_units = 1;
	gt_outerproc *op = NULL;
	is_int(gt_outerproc_open(&op, &oc, NULL, &e), 0, "version 0 published");

	/* round 0: the delta is theta_0 - plain training */
	is_int(gt_unit_new(&u, &c, &e), 0, "a unit with a state file");
	gt_unit_round_info r;
	int rc = gt_unit_round(u, &r, &e);
	is_int(rc, 0, "round 0");
	if (rc)
		diag("%s", e.text);
	uint64_t gen = r.generation;
	ok(r.seq == 0 && r.base_version == 0 && r.inner_steps == H && r.samples == H * BATCH &&
	   isfinite(r.loss) && r.loss > 0 && !strcmp(r.unit, "u0"),
	   "seq 0 from version 0, %d good steps, %d samples, loss %.4f", H, H * BATCH, r.loss);
	gt_delta_hdr h;
	memset(&h, 0, sizeof h);
	h.codec = GT_DELTA_FP32;
	h.nparams = n;
	is_dbl(r.delta_bytes, (double)gt_delta_packed_bytes(&h), 0, "delta_bytes: an fp32 delta");
	char name[96], path[900];
	gt_diloco_delta_name(name, sizeof name, 0, gen, 0);
	snprintf(path, sizeof path, "%s/diloco/deltas/u0/%s", store, name);
	float *delta = NULL;
	ok(gt_delta_load(path, &h, &delta, &e) == 0 && h.samples == H * BATCH &&
	   h.inner_steps == H && !strcmp(h.unit, "u0") && h.generation == gen,
	   "STORE/diloco/deltas/u0/%s", name);
	gt_trainer *t = plain(m0);
	const float *tp = gt_nn_params(gt_train_nn(t));
	double maxd = 0, moved = 0;
	for (size_t i = 0; delta && i < n; i++) {
		maxd = fmax(maxd, fabs((double)delta[i] - ((double)m0->params[i] - tp[i])));
		moved = fmax(moved, fabs(delta[i]));
	}
	ok(delta && maxd < 1e-7 && moved > 0,
	   "the delta is theta_0 - plain training's (max diff %.2g, largest %.2g)", maxd, moved);
	free(delta);
	json_t *hb = heartbeat();
	ok(hb && !strcmp(json_string_value(json_object_get(hb, "state")), "training") &&
	   json_integer_value(json_object_get(hb, "deltas")) == 1 &&
	   json_integer_value(json_object_get(hb, "version")) == 0, "heartbeat: training, 1 delta");
	json_decref(hb);
	is_int(gt_diloco_ustate_starts(state), 1, "the state file: one start");
	char v0c[700], v1c[700];
	snprintf(v0c, sizeof v0c, "%s/v0.bin.gz", cache);
	snprintf(v1c, sizeof v1c, "%s/v1.bin.gz", cache);
	snprintf(path, sizeof path, "%s/%s", cache, name);
	ok(access(v0c, F_OK) == 0 && access(path, F_OK) != 0,
	   "the cache holds version 0, not the delta sent");

	/* the outer step: version 1 is plain training */
	gt_outerproc_scan(op, &e);
	ok(gt_outerproc_step(op, NULL, &e) == 0 && gt_outerproc_commit(op, &e) == 0, "version 1");
	maxd = 0;
	for (size_t i = 0; i < n; i++)
		maxd = fmax(maxd, fabs((double)gt_outer_params(gt_outerproc_outer(op))[i] - tp[i]));
	ok(maxd < 1e-6, "outer lr 1, momentum 0: version 1 = plain training (max diff %.2g)", maxd);
	gt_train_free(t);

	/* round 1 from version 1, round 2 again from version 1 */
	double got = r.bytes_received;
	is_int(gt_unit_round(u, &r, &e), 0, "round 1");
	ok(r.seq == 1 && r.base_version == 1 && gt_unit_version(u) == 1 &&
	   r.bytes_received > got, "seq 1 from version 1, downloaded");
	ok(access(v1c, F_OK) == 0 && access(v0c, F_OK) != 0, "the cache holds version 1 only");
	is_int(gt_unit_round(u, &r, &e), 0, "round 2");
	ok(r.seq == 2 && r.base_version == 1, "no newer version: seq 2 from version 1 again");
	is_int(ndeltas(), 3, "three deltas in the store");

	/* a stop in the round: nothing sent */
	stop = 1;
	is_int(gt_unit_round(u, &r, &e), GT_UNIT_STOPPED, "a stopped round");
	is_int(ndeltas(), 3, "sends nothing");
	stop = 0;
	is_int(gt_unit_finish(u, &e), 0, "finish");
	hb = heartbeat();
	ok(hb && !strcmp(json_string_value(json_object_get(hb, "state")), "stopped"),
	   "heartbeat: stopped");
	json_decref(hb);
	gt_unit_free(u);

	/* a restart: another generation, the state's counts go on */
	is_int(gt_unit_new(&u, &c, &e), 0, "the unit made again");
	is_int(gt_unit_round(u, &r, &e), 0, "its first round");
	ok(r.generation != gen && r.seq == 0, "a new generation, seq 0");
	gt_diloco_ustate st;
	gt_diloco_ustate_init(&st, n, 1);
	ok(gt_diloco_ustate_load(&st, state, &e) == 0 && st.starts == 2 && st.deltas == 4 &&
	   st.samples == 4 * H * BATCH && st.step == 4 * H,
	   "state: 2 starts, 4 deltas, %d samples, %d optimizer steps", 4 * H * BATCH, 4 * H);
	gt_diloco_ustate_release(&st);
	gt_unit_free(u);

	/* a pointer whose params_sha256 is not the version's */
	gt_store_opts so;
	gt_store_opts_init(&so);
	gt_diloco_ptr p;
	gt_diloco_ptr_read(&so, store, &p, NULL, &e);
	memset(p.params_sha256, 'a', 64);
	char *s = gt_diloco_ptr_format(&p);
	snprintf(path, sizeof path, "%s/diloco/current.json", store);
	FILE *f = fopen(path, "w");
	fputs(s, f);
	fclose(f);
	free(s);
	snprintf(path, sizeof path, "%s/u2", dir);
	c.cache = path;
	c.state = NULL;
	is_int(gt_unit_new(&u, &c, &e), 0, "a unit with another cache");
	ok(gt_unit_pull(u, &e) == GT_ECHECKSUM && strstr(e.text, "params_sha256"),
	   "a version whose parameters are not the pointer's is refused (%s)", e.text);
	gt_unit_free(u);

	/* bad settings */
	conf(&c);
	c.slice = 1;
	ok(gt_unit_new(&u, &c, &e) == GT_EINVAL, "slice 1 of 1 refused");
	conf(&c);
	c.id = "a/b";
	ok(gt_unit_new(&u, &c, &e) == GT_EINVAL, "unit id a/b refused");
	conf(&c);
	c.store = NULL;
	ok(gt_unit_new(&u, &c, &e) == GT_EINVAL, "no store refused");

	gt_outerproc_close(op);
	gt_model_free(m0);
	test_rmdir(dir);
	return done_testing();
}
