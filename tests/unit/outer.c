/* outer: Nesterov steps against hand-computed values, weighting and every
 * admission decision, the reduction to model replacement, save and load. */
#include "outer.h"
#include "tap.h"

#include <dirent.h>
#include <stdint.h>
#include <unistd.h>

/* a header for a delta from unit u (generation gen, seq) on version v of o */
static void hdr(gt_delta_hdr *h, const gt_outer *o, uint64_t v, const char *u, uint64_t gen,
		uint64_t seq, uint64_t samples, int codec)
{
	memset(h, 0, sizeof *h);
	h->base_version = v;
	if (gt_outer_version_sha256(o, v, h->base_sha256))
		memset(h->base_sha256, 0xee, 32);
	snprintf(h->unit, sizeof h->unit, "%s", u);
	h->generation = gen;
	h->seq = seq;
	h->inner_steps = 500;
	h->samples = samples;
	h->codec = codec;
	h->sum = GT_DELTA_SHA256;
	h->nparams = gt_outer_size(o);
}

static int admit1(gt_outer *o, uint64_t v, const char *u, uint64_t gen, uint64_t seq,
		uint64_t samples, const float *d, double *w)
{
	gt_delta_hdr h;
	gt_error e;
	hdr(&h, o, v, u, gen, seq, samples, GT_DELTA_FP32);
	return gt_outer_admit(o, &h, d, w, &e);
}

static void test_nesterov(void)
{
	/* Defaults lr 0.7, mu 0.9, one unit per step, so g = delta:
	 *   theta0 = (1, 2, 3), m0 = 0
	 *   g1 = (1, 0, -1): m1 = g1 = (1, 0, -1)
	 *        theta1 = theta0 - 0.7 (g1 + 0.9 m1) = theta0 - 0.7 (1.9, 0, -1.9)
	 *               = (-0.33, 2, 4.33)
	 *   g2 = (1, 1, 0):  m2 = 0.9 m1 + g2 = (1.9, 1, -0.9)
	 *        theta2 = theta1 - 0.7 (2.71, 1.9, -0.81) = (-2.227, 0.67, 4.897)
	 *   g3 = (0, 0, 2):  m3 = 0.9 m2 + g3 = (1.71, 0.9, 1.19)
	 *        theta3 = theta2 - 0.7 (1.539, 0.81, 3.071) = (-3.3043, 0.103, 2.7473) */
	const float theta0[3] = { 1, 2, 3 };
	const float g[3][3] = { { 1, 0, -1 }, { 1, 1, 0 }, { 0, 0, 2 } };
	const double want_t[3][3] = { { -0.33, 2, 4.33 }, { -2.227, 0.67, 4.897 },
		{ -3.3043, 0.103, 2.7473 } };
	const double want_m[3][3] = { { 1, 0, -1 }, { 1.9, 1, -0.9 }, { 1.71, 0.9, 1.19 } };
	gt_outer *o = NULL;
	gt_error e;
	is_int(gt_outer_new(&o, theta0, 3, NULL, &e), 0, "new outer state, defaults");
	is_int(gt_outer_version(o), 0, "version 0");
	for (int s = 0; s < 3; s++) {
		int d = admit1(o, (uint64_t)s, "u0", 7, (uint64_t)s, 1000, g[s], NULL);
		is_int(d, GT_ADMIT_FRESH, "step %d: delta admitted fresh", s + 1);
		is_int(gt_outer_step(o, &e), 0, "step %d", s + 1);
		const float *t = gt_outer_params(o), *m = gt_outer_momentum(o);
		for (int i = 0; i < 3; i++) {
			is_dbl(t[i], want_t[s][i], 2e-6, "step %d theta[%d] = %g", s + 1, i, want_t[s][i]);
			is_dbl(m[i], want_m[s][i], 2e-6, "step %d m[%d] = %g", s + 1, i, want_m[s][i]);
		}
	}
	is_int(gt_outer_version(o), 3, "version 3 after three steps");
	is_int(gt_outer_ledger_size(o), 3, "three ledger entries");
	const gt_outer_entry *x = gt_outer_ledger(o, 2);
	ok(x && x->version == 3 && x->base_version == 2 && x->seq == 2 && x->generation == 7
		&& strcmp(x->unit, "u0") == 0, "ledger entry 2: u0 gen 7 seq 2, v 2 -> 3");
	ok(gt_outer_ledger(o, 3) == NULL, "no entry 3");
	is_int(gt_outer_step(o, &e), GT_EINVAL, "a step with nothing pending is refused");
	gt_outer_free(o);

	gt_outer_cfg bad;
	gt_outer_cfg_default(&bad);
	bad.momentum = 1;
	is_int(gt_outer_new(&o, theta0, 3, &bad, &e), GT_EINVAL, "momentum 1 refused");
	is_int(gt_outer_new(&o, theta0, 0, NULL, &e), GT_EINVAL, "zero parameters refused");
}

static void test_admission(void)
{
	/* lr 1, mu 0: theta_{V+1} = theta_V - g, so g is read off directly. */
	gt_outer_cfg cfg;
	gt_outer *o = NULL;
	gt_error e;
	gt_delta_hdr h;
	double w;
	float t0[1] = { 0 }, one[1] = { 1 }, two[1] = { 2 }, neg[1] = { -1 };
	gt_outer_cfg_default(&cfg);
	cfg.lr = 1;
	cfg.momentum = 0;
	gt_outer_new(&o, t0, 1, &cfg, &e);
	for (uint64_t s = 0; s < 3; s++) { /* versions 1..3, theta -1 -2 -3 */
		admit1(o, s, "warm", 1, s, 10, one, NULL);
		gt_outer_step(o, &e);
	}
	is_dbl(gt_outer_params(o)[0], -3, 0, "warm-up: theta -3 at version 3");
	/* A fresh, 100 samples, w 100; B s=1, 100 samples, w 100/1.25 = 80;
	 * C s=2, 300 samples, w 300/1.5 = 200; D s=3 refused.
	 * g = (100*1 + 80*2 + 200*(-1)) / 380 = 60/380 = 0.15789474 */
	is_int(admit1(o, 3, "A", 1, 0, 100, one, &w), GT_ADMIT_FRESH, "A fresh: admitted");
	is_dbl(w, 100, 1e-12, "A weight 100");
	is_int(admit1(o, 2, "B", 1, 0, 100, two, &w), GT_ADMIT_STALE, "B staleness 1: admitted stale");
	is_dbl(w, 80, 1e-12, "B weight 100/(1+0.25) = 80");
	is_int(admit1(o, 1, "C", 1, 0, 300, neg, &w), GT_ADMIT_STALE, "C staleness 2 = S_max: admitted stale");
	is_dbl(w, 200, 1e-12, "C weight 300/(1+0.5) = 200");
	is_int(admit1(o, 0, "D", 1, 0, 100, one, &w), GT_REFUSE_TOO_STALE, "D staleness 3: too stale");
	is_dbl(w, 0, 0, "D weight 0");
	is_int(admit1(o, 3, "A", 1, 0, 100, one, &w), GT_REFUSE_DUPLICATE, "A again (pending): duplicate");
	is_int(admit1(o, 4, "E", 1, 0, 100, one, &w), GT_REFUSE_FUTURE, "base version 4 > 3: future");
	is_int(admit1(o, 3, "E", 1, 0, 0, one, &w), GT_REFUSE_FORMAT, "zero samples refused");
	hdr(&h, o, 3, "E", 1, 0, 100, GT_DELTA_FP32);
	h.base_sha256[5] ^= 1;
	is_int(gt_outer_admit(o, &h, one, &w, &e), GT_REFUSE_BASE_SHA, "wrong base sha256: refused");
	ok(strstr(e.text, "version 3") != NULL, "... saying: %s", e.text);
	hdr(&h, o, 2, "E", 1, 0, 100, GT_DELTA_FP32);
	gt_outer_version_sha256(o, 3, h.base_sha256); /* sha of 3 claimed for 2 */
	is_int(gt_outer_admit(o, &h, one, &w, &e), GT_REFUSE_BASE_SHA, "sha256 of another version: refused");
	hdr(&h, o, 3, "E", 1, 0, 100, GT_DELTA_FP32);
	h.nparams = 2;
	is_int(gt_outer_admit(o, &h, one, &w, &e), GT_REFUSE_SHAPE, "2 parameters for a 1-parameter model");
	is_int(gt_outer_pending(o), 3, "three pending: A, B, C");
	is_int(gt_outer_step(o, &e), 0, "step");
	is_dbl(gt_outer_params(o)[0], -3 - 60.0 / 380, 1e-6, "theta = -3 - 60/380 = -3.15789474");
	is_int(gt_outer_version(o), 4, "version 4");
	is_int(admit1(o, 4, "A", 1, 0, 100, one, &w), GT_REFUSE_DUPLICATE, "A again (in ledger): duplicate");
	is_int(admit1(o, 4, "A", 1, 1, 100, one, &w), GT_ADMIT_FRESH, "A seq 1: admitted");
	is_int(admit1(o, 4, "A", 2, 0, 100, one, &w), GT_ADMIT_FRESH, "A restarted (generation 2) seq 0: admitted");
	is_int(admit1(o, 1, "B", 1, 5, 100, one, &w), GT_REFUSE_TOO_STALE, "version 1 is now too stale");

	/* serialized deltas */
	static uint8_t buf[168 + 4 + 32];
	size_t len;
	hdr(&h, o, 4, "F", 1, 0, 100, GT_DELTA_FP32);
	gt_delta_pack(&h, two, NULL, buf, sizeof buf, &len, &e);
	buf[168] ^= 0x40;
	is_int(gt_outer_admit_packed(o, buf, len, &w, &e), GT_REFUSE_CHECKSUM, "corrupt payload: checksum refused");
	buf[168] ^= 0x40;
	is_int(gt_outer_admit_packed(o, buf, len - 1, &w, &e), GT_REFUSE_FORMAT, "truncated: format refused");
	is_int(gt_outer_admit_packed(o, buf, 10, &w, &e), GT_REFUSE_FORMAT, "10 bytes: format refused");
	is_int(gt_outer_admit_packed(o, buf, len, &w, &e), GT_ADMIT_FRESH, "intact: admitted");
	is_int(gt_outer_admit_packed(o, buf, len, &w, &e), GT_REFUSE_DUPLICATE, "the same file twice: duplicate");
	is_str(gt_outer_decision_name(GT_REFUSE_BASE_SHA), "base-sha256", "decision names");
	is_str(gt_outer_decision_name(GT_ADMIT_STALE), "stale", "decision name stale");
	gt_outer_free(o);
}

static uint64_t rng_s = 12345;
static double unif(void)
{
	uint64_t z = (rng_s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static void test_reduction(void)
{
	/* one unit, lr 1, momentum 0: theta_new = theta - (theta - theta_unit) */
	enum { N = 1000 };
	static float base[N], unit[N], d[N];
	static uint8_t buf[168 + 4 * N + 32];
	gt_outer_cfg cfg;
	gt_outer *o;
	gt_delta_hdr h;
	gt_error e;
	size_t len;
	gt_outer_cfg_default(&cfg);
	cfg.lr = 1;
	cfg.momentum = 0;
	for (int codec = GT_DELTA_FP32; codec <= GT_DELTA_INT8; codec += GT_DELTA_INT8) {
		for (size_t i = 0; i < N; i++) {
			base[i] = (float)(2 * unif() - 1);
			unit[i] = base[i] + (float)(0.01 * (2 * unif() - 1));
		}
		gt_outer_new(&o, base, N, &cfg, &e);
		gt_delta_compute(base, unit, N, d);
		hdr(&h, o, 0, "solo", 1, 0, 256 * 500, codec);
		gt_delta_pack(&h, d, NULL, buf, sizeof buf, &len, &e);
		is_int(gt_outer_admit_packed(o, buf, len, NULL, &e), GT_ADMIT_FRESH, "%s delta admitted",
			gt_delta_codec_name(codec));
		gt_outer_step(o, &e);
		double worst = 0;
		for (size_t i = 0; i < N; i++)
			worst = fmax(worst, fabs((double)gt_outer_params(o)[i] - unit[i]));
		/* fp32: a few ulps (w*d/w and theta - d); int8: half a step of
		 * the largest block scale, 0.01/254 */
		if (codec == GT_DELTA_FP32)
			ok(worst <= 4e-7, "fp32: theta_new = theta_unit to float tolerance (%.3g)", worst);
		else
			ok(worst <= 0.01 / 254 + 4e-7, "int8: theta_new = theta_unit within scale/254 (%.3g)", worst);
		gt_outer_free(o);
	}
}

/* End to end on a toy problem: f(theta) = sum_i a_i (theta_i - t*_i)^2 / 2,
 * a_i in [0.5, 1.5]. Five units each pull a version, run H = 10 SGD steps
 * (lr 0.1, gradient noise 0.01) and deliver an int8 delta with error
 * feedback after 1, 1, 2, 2 or 4 outer steps (staleness 0, 0, 1, 1, 3);
 * the outer optimizer (defaults) steps whenever something was
 * admitted. Unit 3 dies at step 20 and comes back at step 30 with a new
 * generation. The distance to t* must shrink 100-fold in 60 steps. */
static void test_toy(void)
{
	enum { N = 512, U = 5, H = 10, T = 60 };
	static float a[N], star[N], theta0[N], base[U][N], local[U][N], d[N];
	static uint8_t buf[168 + 2 * N + 32];
	static const int period[U] = { 1, 1, 2, 2, 4 };
	gt_delta_ef *ef[U];
	uint64_t v[U], gen[U], seq[U] = { 0 };
	int due[U], counts[9] = { 0 };
	gt_outer *o;
	gt_error e;
	double d0 = 0, d1 = 0;
	for (size_t i = 0; i < N; i++) {
		a[i] = (float)(0.5 + unif());
		star[i] = (float)(2 * unif() - 1);
		theta0[i] = 0;
		d0 += (double)star[i] * star[i];
	}
	gt_outer_new(&o, theta0, N, NULL, &e);
	for (int u = 0; u < U; u++) {
		ef[u] = gt_delta_ef_new(GT_DELTA_INT8, N);
		gen[u] = 100 + (uint64_t)u;
		due[u] = -1; /* pull at the first tick */
	}
	for (int t = 0; t < T; t++) {
		int pulled[U] = { 0 };
		for (int u = 0; u < U; u++) {
			if (u == 3 && t >= 20 && t < 30) {
				due[u] = -1; /* dead: absent, its work lost */
				continue;
			}
			if (due[u] == t) {
				gt_delta_hdr h;
				size_t len;
				hdr(&h, o, v[u], "toy", gen[u], seq[u]++, 256 * H, GT_DELTA_INT8);
				gt_delta_compute(base[u], local[u], N, d);
				gt_delta_pack(&h, d, ef[u], buf, sizeof buf, &len, &e);
				counts[gt_outer_admit_packed(o, buf, len, NULL, &e)]++;
			}
			if (due[u] <= t)
				pulled[u] = 1;
		}
		if (gt_outer_pending(o))
			gt_outer_step(o, &e);
		for (int u = 0; u < U; u++) {
			if (!pulled[u])
				continue;
			if (u == 3 && t == 30)
				gen[u] = 999; /* a new process */
			memcpy(base[u], gt_outer_params(o), sizeof base[u]);
			memcpy(local[u], base[u], sizeof local[u]);
			v[u] = gt_outer_version(o);
			for (int s = 0; s < H; s++)
				for (size_t i = 0; i < N; i++)
					local[u][i] -= 0.1f * (a[i] * (local[u][i] - star[i])
						+ (float)(0.02 * (unif() - 0.5)));
			due[u] = t + period[u];
		}
	}
	for (size_t i = 0; i < N; i++)
		d1 += ((double)gt_outer_params(o)[i] - star[i]) * (gt_outer_params(o)[i] - star[i]);
	diag("toy: %d outer steps, |theta - t*| %.4g -> %.4g; fresh %d, stale %d, too stale %d",
		(int)gt_outer_version(o), sqrt(d0), sqrt(d1), counts[GT_ADMIT_FRESH],
		counts[GT_ADMIT_STALE], counts[GT_REFUSE_TOO_STALE]);
	ok(sqrt(d1) < 0.01 * sqrt(d0), "toy problem: distance to the optimum shrinks 100-fold");
	ok(counts[GT_ADMIT_FRESH] > 0 && counts[GT_ADMIT_STALE] > 0, "both fresh and stale deltas admitted");
	ok(counts[GT_REFUSE_TOO_STALE] > 0, "the period-4 unit's deltas refused as too stale");
	is_int(counts[GT_REFUSE_DUPLICATE] + counts[GT_REFUSE_BASE_SHA] + counts[GT_REFUSE_FORMAT]
		+ counts[GT_REFUSE_CHECKSUM], 0, "no other refusal");
	for (int u = 0; u < U; u++)
		gt_delta_ef_free(ef[u]);
	gt_outer_free(o);
}

static int count_tmp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d)))
		n += strstr(de->d_name, ".tmp.") != NULL;
	if (d)
		closedir(d);
	return n;
}

static void test_save_load(void)
{
	const float theta0[3] = { 1, 2, 3 }, g[3] = { 0.5f, -0.25f, 1 };
	char dir[] = "/tmp/gt-outer-XXXXXX", path[64], path2[80];
	gt_outer *o, *l = NULL;
	gt_error e;
	double w;
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof path, "%s/outer.state", dir);
	gt_outer_new(&o, theta0, 3, NULL, &e);
	for (uint64_t s = 0; s < 4; s++) {
		admit1(o, s, "u1", 99, s, 64, g, NULL);
		admit1(o, s, "u2", 98, s, 32, g, NULL);
		gt_outer_step(o, &e);
	}
	is_int(gt_outer_save(o, path, &e), 0, "save");
	is_int(count_tmp(dir), 0, "no temporary file left");
	is_int(gt_outer_load(&l, path, &e), 0, "load");
	if (!l) {
		gt_outer_free(o);
		return;
	}
	is_int(gt_outer_version(l), 4, "version 4 restored");
	ok(memcmp(gt_outer_params(l), gt_outer_params(o), 12) == 0, "theta restored bit for bit");
	ok(memcmp(gt_outer_momentum(l), gt_outer_momentum(o), 12) == 0, "momentum restored bit for bit");
	is_int(gt_outer_ledger_size(l), 8, "8 ledger entries");
	const gt_outer_entry *a = gt_outer_ledger(o, 7), *b = gt_outer_ledger(l, 7);
	ok(b && b->version == a->version && b->generation == 98 && b->seq == 3 && b->samples == 32
		&& b->weight == a->weight && strcmp(b->unit, "u2") == 0, "last ledger entry restored");
	uint8_t s1[32], s2[32];
	int same = 1;
	for (uint64_t v = 2; v <= 4; v++) {
		same &= gt_outer_version_sha256(o, v, s1) == 0 && gt_outer_version_sha256(l, v, s2) == 0
			&& memcmp(s1, s2, 32) == 0;
	}
	ok(same, "sha256 of versions 2..4 restored");
	is_int(gt_outer_version_sha256(l, 1, s1), GT_ENOTFOUND, "version 1 (beyond S_max) not kept");
	gt_outer_cfg c;
	gt_outer_cfg_get(l, &c);
	ok(c.lr == 0.7 && c.momentum == 0.9 && c.s_max == 2 && c.stale_decay == 0.25, "settings restored");
	is_int(admit1(l, 3, "u1", 99, 3, 64, g, &w), GT_REFUSE_DUPLICATE, "after load: duplicate still refused");
	is_int(admit1(l, 3, "u1", 99, 4, 64, g, &w), GT_ADMIT_STALE, "after load: stale delta on version 3 admitted");
	/* the same steps on both give the same parameters */
	admit1(o, 3, "u1", 99, 4, 64, g, &w);
	gt_outer_step(o, &e);
	gt_outer_step(l, &e);
	ok(memcmp(gt_outer_params(l), gt_outer_params(o), 12) == 0, "loaded state steps like the original");

	/* corruption of the saved file */
	FILE *f = fopen(path, "rb");
	static uint8_t file[4096];
	size_t n = fread(file, 1, sizeof file, f);
	fclose(f);
	snprintf(path2, sizeof path2, "%s/bad.state", dir);
	gt_outer *z = NULL;
	size_t undetected = 0;
	for (size_t i = 0; i < n; i += 7) {
		uint8_t save = file[i];
		file[i] ^= 0x10;
		f = fopen(path2, "wb");
		fwrite(file, 1, n, f);
		fclose(f);
		if (gt_outer_load(&z, path2, &e) == 0) {
			undetected++;
			gt_outer_free(z);
		}
		file[i] = save;
	}
	is_int(undetected, 0, "a flipped bit every 7 bytes of %zu is detected", n);
	f = fopen(path2, "wb");
	fwrite(file, 1, n - 5, f);
	fclose(f);
	is_int(gt_outer_load(&z, path2, &e), GT_EFORMAT, "truncated file refused");
	file[24 + 5] = 0x10; /* P = 2^44 + 3: refused from the header, nothing allocated */
	f = fopen(path2, "wb");
	fwrite(file, 1, n, f);
	fclose(f);
	is_int(gt_outer_load(&z, path2, &e), GT_EFORMAT, "header claiming 2^44 parameters refused");
	file[24 + 5] = 0;
	file[56 + 4] = 1; /* ledger 2^32 + 8 entries */
	f = fopen(path2, "wb");
	fwrite(file, 1, n, f);
	fclose(f);
	is_int(gt_outer_load(&z, path2, &e), GT_EFORMAT, "header claiming 2^32 ledger entries refused");
	file[56 + 4] = 0;
	f = fopen(path2, "wb");
	fwrite(file, 1, n, f);
	fclose(f);
	is_int(gt_outer_load(&z, path2, &e), 0, "restored bytes load again");
	gt_outer_free(z);
	z = NULL;
	unlink(path2);
	is_int(gt_outer_load(&z, path2, &e), GT_EIO, "missing file: GT_EIO");
	snprintf(path2, sizeof path2, "%s/no/such/dir/x", dir);
	is_int(gt_outer_save(o, path2, &e), GT_EIO, "save into a missing folder: GT_EIO");
	/* save over an existing state replaces it */
	is_int(gt_outer_save(o, path, &e), 0, "save over the old state");
	gt_outer_free(l);
	l = NULL;
	gt_outer_load(&l, path, &e);
	ok(l && gt_outer_version(l) == 5, "replaced state has version 5");
	is_int(count_tmp(dir), 0, "still no temporary file left");
	gt_outer_free(l);
	gt_outer_free(o);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	test_nesterov();
	test_admission();
	test_reduction();
	test_toy();
	test_save_load();
	return done_testing();
}
