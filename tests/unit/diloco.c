/* Unit tests of lib/diloco and the DiLoCo reduction: one learning unit
 * with H inner steps, an fp32 delta and an outer step of lr 1, momentum 0
 * equals plain training (lib/train) from the same model with the same
 * batches, to float tolerance; delta names, the pointer and the unit state
 * file round-trip and refuse bad input; window slices are disjoint and
 * cover the window. */
#include "delta.h"
#include "diloco.h"
#include "model.h"
#include "outer.h"
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

static char dir[512];

/* games on 7x7 into DIR/d, 100 rows a shard, and a window over them */
static gt_shard_window *make_window(int games)
{
	char out[600];
	snprintf(out, sizeof out, "%s/d", dir);
	gt_error e = {0};
	if (gen_shards(out, 7, 17, games, 100, 3, 0, &e) != 0)
		diag("%s: %s", out, e.text);
	return test_window(out);
}

/* a trainer of batch 16 with the default optimizer, AdamW at lr 1e-3 */
static gt_trainer *trainer(const gt_model *m)
{
	return test_trainer(m, GT_OPTIM_ADAMW, 1e-3f, 7);
}

/* plain training for H steps against one unit round + outer step */
static void check_reduction(const gt_model *m, gt_shard_window *w, int H, int codec,
                            double tol)
{
	gt_error e = {0};
	size_t n = m->nparams;
	gt_trainer *plain = trainer(m), *unit = trainer(m);
	for (int i = 0; i < H; i++) {
		gt_train_step(plain, w, NULL, &e);
		gt_train_step(unit, w, NULL, &e);
	}
	float *delta = gt_xmalloc(sizeof(float) * n);
	gt_delta_compute(m->params, gt_nn_params(gt_train_nn(unit)), n, delta);
	gt_delta_hdr h;
	memset(&h, 0, sizeof h);
	gt_delta_params_sha256(m->params, n, h.base_sha256);
	strcpy(h.unit, "u0");
	h.generation = 1;
	h.inner_steps = (uint64_t)H;
	h.samples = 16 * (uint64_t)H;
	h.codec = codec;
	h.sum = GT_DELTA_SHA256;
	h.nparams = n;
	size_t cap = gt_delta_packed_bytes(&h), len = 0;
	uint8_t *buf = gt_xmalloc(cap);
	int rc = gt_delta_pack(&h, delta, NULL, buf, cap, &len, &e);
	gt_outer_cfg cfg;
	gt_outer_cfg_default(&cfg);
	cfg.lr = 1;
	cfg.momentum = 0;
	gt_outer *o = NULL;
	rc |= gt_outer_new(&o, m->params, n, &cfg, &e);
	int d = rc ? -1 : gt_outer_admit_packed(o, buf, len, NULL, &e);
	ok(rc == 0 && d == GT_ADMIT_FRESH, "H=%d %s: delta packed and admitted", H,
	   gt_delta_codec_name(codec));
	rc = d == GT_ADMIT_FRESH ? gt_outer_step(o, &e) : -1;
	double maxd = 0, maxp = 0;
	const float *p = gt_nn_params(gt_train_nn(plain));
	if (rc == 0)
		for (size_t i = 0; i < n; i++) {
			maxd = fmax(maxd, fabs((double)gt_outer_params(o)[i] - p[i]));
			maxp = fmax(maxp, fabs((double)p[i] - m->params[i]));
		}
	ok(rc == 0 && maxd <= tol && maxp > 0,
	   "H=%d %s, outer lr 1 momentum 0: version 1 = plain training (max diff %.3g, moved %.3g)",
	   H, gt_delta_codec_name(codec), maxd, maxp);
	gt_outer_free(o);
	free(buf);
	free(delta);
	gt_train_free(plain);
	gt_train_free(unit);
}

/* a version of k of U deltas: g scaled by k/U, momentum too */
static void check_scaled(const gt_model *m)
{
	gt_error e = {0};
	size_t n = m->nparams;
	float *delta = gt_xmalloc(sizeof(float) * n);
	for (size_t i = 0; i < n; i++)
		delta[i] = 0.001f * (float)((int)(i % 7) - 3);
	gt_delta_hdr h;
	memset(&h, 0, sizeof h);
	gt_delta_params_sha256(m->params, n, h.base_sha256);
	strcpy(h.unit, "u0");
	h.generation = 1;
	h.inner_steps = 1;
	h.samples = 16;
	h.nparams = n;
	gt_outer_cfg cfg;
	gt_outer_cfg_default(&cfg);
	gt_outer *o = NULL;
	gt_outer_new(&o, m->params, n, &cfg, &e);
	int d = gt_outer_admit(o, &h, delta, NULL, &e);
	int rc = gt_outer_step_scaled(o, 0.25, &e);
	double maxd = 0, maxm = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		double g = 0.25 * delta[i], mm = g;
		double want = m->params[i] - cfg.lr * (g + cfg.momentum * mm);
		maxd = fmax(maxd, fabs(gt_outer_params(o)[i] - want));
		maxm = fmax(maxm, fabs(gt_outer_momentum(o)[i] - mm));
	}
	ok(d == GT_ADMIT_FRESH && rc == 0 && maxd < 1e-6 && maxm < 1e-7,
	   "a version of 1 of 4 deltas: g and momentum scaled by 1/4 (max diff %.2g, %.2g)", maxd,
	   maxm);
	h.seq = 1;
	gt_outer_admit(o, &h, delta, NULL, &e);
	ok(gt_outer_step_scaled(o, 0, &e) == GT_EINVAL && gt_outer_step_scaled(o, 1.5, &e) ==
	   GT_EINVAL, "scale out of (0, 1] refused");
	gt_outer_free(o);
	free(delta);
}

static void check_slices(gt_shard_window *w)
{
	gt_shard_window_info wi;
	gt_shard_window_get_info(w, &wi);
	long total = wi.rows;
	int U = 3;
	char *seen = gt_xcalloc((size_t)total, 1);
	long sum = 0, bad = 0;
	gt_shard_batch b;
	memset(&b, 0, sizeof b);
	long idx[1];
	int sym[1];
	b.index = idx;
	b.sym = sym;
	for (int k = 0; k < U; k++) {
		if (gt_shard_window_slice(w, k, U)) {
			bad++;
			continue;
		}
		gt_shard_window_get_info(w, &wi);
		sum += wi.rows;
		for (long r = 0; r < wi.rows; r++) {
			if (gt_shard_window_get(w, r, 0, &b, 0) || idx[0] % U != k || seen[idx[0]]++)
				bad++;
		}
		if (gt_shard_window_get(w, wi.rows, 0, &b, 0) != GT_EINVAL)
			bad++;
	}
	long missing = 0;
	for (long r = 0; r < total; r++)
		missing += !seen[r];
	ok(!bad && sum == total && !missing, "%d slices of %ld rows: disjoint, cover the window", U,
	   total);
	ok(gt_shard_window_slice(w, 3, 3) == GT_EINVAL && gt_shard_window_slice(w, 0, 0) ==
	   GT_EINVAL, "slice out of range refused");
	gt_shard_window_slice(w, 0, 1);
	gt_shard_window_get_info(w, &wi);
	is_int(wi.rows, total, "slice 0 of 1 is the whole window again");
	free(seen);
}

static void check_names(void)
{
	char name[96];
	uint64_t v, g, s;
	gt_diloco_delta_name(name, sizeof name, 12, 0xabcdefULL, 3);
	is_str(name, "12-0000000000abcdef-3.delta", "delta name");
	ok(gt_diloco_delta_name_parse(name, &v, &g, &s) == 0 && v == 12 && g == 0xabcdef &&
	   s == 3, "delta name parses back");
	const char *badn[] = {"12-abc-3.delta", "x-0000000000abcdef-3.delta",
	                      "012-0000000000abcdef-3.delta", "12-0000000000abcdef-3.delta.tmp",
	                      "12-0000000000ABCDEF-3.delta", "12-0000000000abcdef-.delta", ""};
	int refused = 0;
	for (size_t i = 0; i < sizeof badn / sizeof *badn; i++)
		refused += gt_diloco_delta_name_parse(badn[i], &v, &g, &s) == GT_EFORMAT;
	is_int(refused, (long)(sizeof badn / sizeof *badn), "malformed delta names refused");
	ok(gt_diloco_unit_ok("u0") && gt_diloco_unit_ok("a.b-c_9") && !gt_diloco_unit_ok("") &&
	   !gt_diloco_unit_ok(".u") && !gt_diloco_unit_ok("a/b") && !gt_diloco_unit_ok("a b"),
	   "unit ids");
	char *u = gt_diloco_url("file:///s/", "deltas/%s/%s", "u0", name);
	is_str(u, "file:///s/diloco/deltas/u0/12-0000000000abcdef-3.delta", "store URLs");
	free(u);
}

static void check_pointer(void)
{
	gt_diloco_ptr p, q;
	memset(&p, 0, sizeof p);
	p.version = 42;
	strcpy(p.model, "v42.bin.gz");
	memset(p.sha256, 'a', 64);
	memset(p.params_sha256, 'b', 64);
	p.bytes = 1234;
	p.time = 1.5;
	char *s = gt_diloco_ptr_format(&p);
	gt_error e = {0};
	ok(gt_diloco_ptr_parse(s, strlen(s), &q, &e) == 0 && q.version == 42 &&
	   !strcmp(q.model, "v42.bin.gz") && !strcmp(q.sha256, p.sha256) &&
	   !strcmp(q.params_sha256, p.params_sha256) && q.bytes == 1234,
	   "pointer round-trips");
	free(s);
	const char *bad[] = {"{}", "[1]", "{\"version\":-1,\"model\":\"v\",\"sha256\":\"aa\"}",
	                     "{\"version\":1,\"model\":\"../x\",\"sha256\":\"" /* truncated */,
	                     "not json"};
	int refused = 0;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		refused += gt_diloco_ptr_parse(bad[i], strlen(bad[i]), &q, &e) == GT_EFORMAT;
	is_int(refused, (long)(sizeof bad / sizeof *bad), "malformed pointers refused");
}

static void check_ustate(void)
{
	char path[600];
	snprintf(path, sizeof path, "%s/state", dir);
	gt_error e = {0};
	gt_diloco_ustate a, b;
	gt_diloco_ustate_init(&a, 1000, 1);
	for (int i = 0; i < 1000; i++) {
		a.m[i] = (float)i;
		a.v[i] = (float)i / 3;
		a.r[i] = -(float)i / 7;
	}
	a.step = 77;
	a.starts = 2;
	a.deltas = 5;
	a.samples = 640;
	gt_diloco_ustate_init(&b, 1000, 1);
	ok(gt_diloco_ustate_load(&b, path, &e) == GT_ENOTFOUND, "no state file: not found");
	ok(gt_diloco_ustate_save(&a, path, &e) == 0 && gt_diloco_ustate_load(&b, path, &e) == 0 &&
	   b.step == 77 && b.starts == 2 && b.deltas == 5 && b.samples == 640 &&
	   !memcmp(a.m, b.m, 4000) && !memcmp(a.v, b.v, 4000) && !memcmp(a.r, b.r, 4000),
	   "unit state round-trips");
	gt_diloco_ustate c;
	gt_diloco_ustate_init(&c, 999, 1);
	ok(gt_diloco_ustate_load(&c, path, &e) == GT_EINVAL, "state of another size refused");
	gt_diloco_ustate_release(&c);
	gt_diloco_ustate_init(&c, 1000, 0);
	ok(gt_diloco_ustate_load(&c, path, &e) == GT_EINVAL, "state of another optimizer refused");
	gt_diloco_ustate_release(&c);
	FILE *f = fopen(path, "r+b");
	fseek(f, 100, SEEK_SET);
	fputc(0x55, f);
	fclose(f);
	b.step = 0;
	ok(gt_diloco_ustate_load(&b, path, &e) == GT_EFORMAT && b.step == 0,
	   "corrupt state refused, nothing changed");
	if (truncate(path, 500) == 0)
		ok(gt_diloco_ustate_load(&b, path, &e) == GT_EFORMAT, "truncated state refused");
	gt_diloco_ustate_release(&a);
	gt_diloco_ustate_release(&b);
}

int main(void)
{
	test_tmpdir(dir, sizeof dir, "diloco");
	gt_error e = {0};
	gt_arch a;
	gt_model_parse_arch("b1c8", &a, &e);
	gt_model *m = gt_model_new_random(&a, 1, &e);
	gt_shard_window *w = make_window(6);
	ok(m && w, "a b1c8 model and a 7x7 window");
	check_reduction(m, w, 1, GT_DELTA_FP32, 1e-6);
	check_reduction(m, w, 4, GT_DELTA_FP32, 1e-6);
	check_reduction(m, w, 1, GT_DELTA_INT8, 1e-4);
	check_scaled(m);
	check_slices(w);
	check_names();
	check_pointer();
	check_ustate();
	gt_shard_window_free(w);
	gt_model_free(m);
	test_rmdir(dir);
	return done_testing();
}
