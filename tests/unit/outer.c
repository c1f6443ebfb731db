/* outer: Nesterov steps against hand-computed values, weighting and every
 * admission decision, the reduction to model replacement, save and load. */
#include "outer.h"
#include "tap.h"

#include <dirent.h>
#include <stdint.h>
#include <unistd.h>
#include <openssl/evp.h>

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
	/* the weights of the formula, not the guard's clamp of samples
	 * (test_guard) */
	gt_outer_guard g;
	gt_outer_guard_get(o, &g);
	g.samples_ratio = 0;
	gt_outer_guard_set(o, &g, &e);
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
	is_int(admit1(o, 4, "A", 2, 0, 100, one, &w), GT_REFUSE_SURPLUS,
	       "A restarted (generation 2) seq 0 while A seq 1 is pending: surplus (one a unit a version)");
	hdr(&h, o, 4, "A", 2, 0, 100, GT_DELTA_FP32);
	gt_outer_admit(o, &h, one, &w, &e);
	ok(strstr(e.text, "A already has a delta in version 5") != NULL, "... saying: %s", e.text);
	is_int(gt_outer_pending(o), 1, "one pending");
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
	int due[U], counts[16] = { 0 };
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
				char name[16];
				snprintf(name, sizeof name, "toy%d", u);
				hdr(&h, o, v[u], name, gen[u], seq[u]++, 256 * H, GT_DELTA_INT8);
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
		+ counts[GT_REFUSE_CHECKSUM] + counts[GT_REFUSE_ASIDE], 0, "no other refusal (none set aside)");
	for (int u = 0; u < U; u++) {
		char name[16];
		double r = 0;
		uint64_t n = 0;
		snprintf(name, sizeof name, "toy%d", u);
		gt_outer_unit_influence(o, name, &r, &n);
		diag("toy%d: influence ratio %.3f after %llu pulls", u, r, (unsigned long long)n);
	}
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


/* The attacks of issue 17 item 1 on the outer step, each with the run
 * going on: a well-formed delta of -3e38 everywhere, one of 100 times the
 * honest norm, a huge samples, and a version that would blow up. */
static int all_finite(const gt_outer *o)
{
	for (size_t i = 0; i < gt_outer_size(o); i++)
		if (!isfinite(gt_outer_params(o)[i]) || !isfinite(gt_outer_momentum(o)[i]))
			return 0;
	return 1;
}

static void test_guard(void)
{
	enum { N = 64 };
	static float theta0[N], honest[N], huge[N], big[N], keep[N];
	gt_outer *o;
	gt_error e;
	gt_outer_guard g;
	double w;
	uint64_t seq = 0;
	for (size_t i = 0; i < N; i++) {
		theta0[i] = (float)(0.1 * (2 * unif() - 1));
		huge[i] = -3e38f;
	}
	gt_outer_new(&o, theta0, N, NULL, &e);
	gt_outer_guard_get(o, &g);
	ok(g.max_value == 1000 && g.norm_ratio == 4 && g.clip_ratio == 2 && g.norm_window == 16
		&& g.samples_ratio == 4 && g.max_samples == 0 && g.max_param == 10000 && g.max_growth == 10,
		"guard defaults");
	/* honest deltas: values about 0.01, norm about 0.046 */
#define HONEST(v) do { \
		for (size_t i = 0; i < N; i++) \
			honest[i] = (float)(0.01 * (2 * unif() - 1)); \
		d = admit1(o, v, "honest", 1, seq++, 1000, honest, &w); \
	} while (0)
	int d;
	is_int(admit1(o, 0, "mallory", 1, 0, 1000, huge, &w), GT_REFUSE_VALUE,
		"a delta of -3e38 everywhere, first of all: refused");
	is_dbl(w, 0, 0, "with weight 0");
	HONEST(0);
	is_int(d, GT_ADMIT_FRESH, "an honest delta beside it: admitted");
	is_int(gt_outer_step(o, &e), 0, "the version is made");
	ok(all_finite(o), "its parameters are finite");
	/* the same with the value bound off: the new version is refused */
	g.max_value = 0;
	gt_outer_guard_set(o, &g, &e);
	memcpy(keep, gt_outer_params(o), sizeof keep);
	is_int(admit1(o, 1, "mallory", 1, 1, 1000, huge, &w), GT_ADMIT_FRESH,
		"max_value off and no norms known yet: the -3e38 delta gets in");
	HONEST(1);
	is_int(gt_outer_step(o, &e), GT_EREFUSED, "but the version it makes is refused (%s)", e.text);
	is_int(gt_outer_version(o), 1, "version 1 stays");
	ok(!memcmp(keep, gt_outer_params(o), sizeof keep) && all_finite(o), "with its parameters");
	is_int(gt_outer_pending(o), 0, "the deltas are dropped");
	for (size_t i = 0; i < N; i++)
		big[i] = 20; /* finite, under every value bound */
	g.norm_ratio = 0;
	gt_outer_guard_set(o, &g, &e);
	admit1(o, 1, "mallory", 1, 2, 1000, big, &w);
	is_int(gt_outer_step(o, &e), GT_EREFUSED, "a version of root mean square 27: refused (%s)", e.text);
	ok(!memcmp(keep, gt_outer_params(o), sizeof keep), "version 1's parameters stay");
	gt_outer_guard_default(&g);
	g.center = GT_OUTER_CENTER_ZERO; /* plain norm clipping here; centred below */
	gt_outer_guard_set(o, &g, &e);
	/* the run goes on with honest deltas */
	for (uint64_t v = 1; v < 5; v++) {
		HONEST(v);
		gt_outer_step(o, &e);
	}
	is_int(gt_outer_version(o), 5, "honest deltas make versions 2 to 5");
	ok(all_finite(o), "parameters finite");
	/* the median rule, once 3 norms are known */
	for (size_t i = 0; i < N; i++)
		big[i] = 1; /* norm 8, about 170 times the honest ones, values under max_value */
	is_int(admit1(o, gt_outer_version(o), "mallory", 1, 3, 1000, big, &w), GT_REFUSE_NORM,
		"a delta of 170 times the median norm: refused");
	for (size_t i = 0; i < N; i++)
		big[i] = 0.03f; /* norm 0.24, about 5 times */
	is_int(admit1(o, gt_outer_version(o), "mallory", 1, 4, 1000, big, &w), GT_REFUSE_NORM,
		"5 times: refused");
	for (size_t i = 0; i < N; i++)
		big[i] = 0.018f; /* norm 0.144, about 3 times */
	/* 3 times: admitted, scaled down to twice the median (norm clipping):
	 * theta = theta - lr (g + mu (mu m + g)) with g = delta 2 median / norm */
	double nv[16], med;
	size_t k = 0;
	for (size_t i = gt_outer_ledger_size(o); i > 0 && k < 16; i--)
		nv[k++] = gt_outer_ledger(o, i - 1)->norm;
	for (size_t i = 0; i < k; i++) /* sort, few */
		for (size_t j = i + 1; j < k; j++)
			if (nv[j] < nv[i]) {
				double t = nv[i];
				nv[i] = nv[j];
				nv[j] = t;
			}
	med = k % 2 ? nv[k / 2] : (nv[k / 2 - 1] + nv[k / 2]) / 2;
	memcpy(keep, gt_outer_params(o), sizeof keep);
	float mom[N];
	memcpy(mom, gt_outer_momentum(o), sizeof mom);
	uint64_t V = gt_outer_version(o);
	gt_delta_hdr h;
	hdr(&h, o, V, "mallory", 1, 5, 1000, GT_DELTA_FP32);
	is_int(gt_outer_admit(o, &h, big, &w, &e), GT_ADMIT_FRESH, "3 times: admitted");
	ok(strstr(e.text, "clipped") != NULL, "... clipped (%s)", e.text);
	is_int(gt_outer_step(o, &e), 0, "and stepped");
	double c = 2 * med / (0.018 * 8), worst = 0;
	for (size_t i = 0; i < N; i++) {
		double gi = c * 0.018, mi = 0.9 * mom[i] + gi;
		worst = fmax(worst, fabs(gt_outer_params(o)[i] - (keep[i] - 0.7 * (gi + 0.9 * mi))));
	}
	ok(worst < 1e-6, "theta moved by the clipped delta (norm %g, median %g; off by %g)", 0.018 * 8,
		med, worst);
	const gt_outer_entry *x = gt_outer_ledger(o, gt_outer_ledger_size(o) - 1);
	ok(x && fabs(x->norm - 2 * med) < 1e-6, "its norm in the ledger as applied, twice the median (%g)",
	   x ? x->norm : 0);
	/* a huge samples is clamped */
	HONEST(gt_outer_version(o));
	gt_outer_step(o, &e);
	for (size_t i = 0; i < N; i++)
		honest[i] = (float)(0.01 * (2 * unif() - 1));
	V = gt_outer_version(o);
	is_int(admit1(o, V, "mallory", 1, 6, (uint64_t)1 << 62, honest, &w), GT_ADMIT_FRESH,
		"a delta claiming 2^62 samples: admitted");
	is_dbl(w, 4000, 0, "its weight clamped to 4 times the median samples");
	g.max_samples = 2500;
	gt_outer_guard_set(o, &g, &e);
	is_int(admit1(o, V, "mallory", 1, 7, (uint64_t)1 << 62, honest, &w), GT_REFUSE_SURPLUS,
		"a second delta of mallory in the same version: surplus");
	gt_outer_step(o, &e);
	V = gt_outer_version(o);
	is_int(admit1(o, V, "mallory", 1, 7, (uint64_t)1 << 62, honest, &w), GT_ADMIT_FRESH,
		"again with max_samples 2500");
	is_dbl(w, 2500, 0, "its weight clamped to 2500");
	g.norm_window = 0;
	is_int(gt_outer_guard_set(o, &g, &e), GT_EINVAL, "a norm window of 0 refused");
	gt_outer_free(o);
#undef HONEST
}

/* Centred clipping against hand-worked values (outer.h): P = 2, lr 1,
 * mu 0.5, no staleness decay, weights 100 each.
 * Version 1: A (1,0), B (0,1), C (1,1); no reference yet, centre 0:
 *   g = (2/3, 2/3), m = g, theta1 = -1.5 g = (-1, -1); distances 1, 1, sqrt 2.
 * Version 2: centre c = 0.5 m = (1/3, 1/3); reference: the median of the
 * units' medians {1, 1, sqrt 2} = 1.
 *   A (1,0):  x - c = (2/3, -1/3), d = sqrt(5)/3, kept
 *   M c+(3,0): d = 3 > 2 r: clipped to (2, 0), applied distance 2
 *   B (0,1):  x - c = (-1/3, 2/3), kept (reference now the median of
 *             A 0.873, B 1, C 1.414, M 2 = 1.207)
 *   g = c + ((2/3,-1/3) + (2,0) + (-1/3,2/3)) / 3 = (10/9, 4/9)
 *   m = 0.5 m + g = (13/9, 7/9), theta2 = theta1 - (g + 0.5 m)
 *     = (-51/18, -33/18).
 * Version 3: c = 0.5 m = (13/18, 7/18); reference the median of the units'
 * medians A 0.873, B 0.873, C 1.414, M 2 = 1.1435: a delta 5 from c is
 * refused (over 4 r = 4.574), one 4.5 from c admitted and clipped to 2 r. */
static void test_centred(void)
{
	const float z[2] = { 0, 0 };
	gt_outer_cfg cfg = { .lr = 1, .momentum = 0.5, .s_max = 2, .stale_decay = 0 };
	gt_outer *o;
	gt_error e;
	double w;
	gt_delta_hdr h;
	gt_outer_new(&o, z, 2, &cfg, &e);
	float a[2] = { 1, 0 }, b[2] = { 0, 1 }, c[2] = { 1, 1 };
	admit1(o, 0, "A", 1, 0, 100, a, &w);
	admit1(o, 0, "B", 1, 0, 100, b, &w);
	admit1(o, 0, "C", 1, 0, 100, c, &w);
	is_int(gt_outer_step(o, &e), 0, "centred: version 1");
	is_dbl(gt_outer_params(o)[0], -1, 1e-6, "theta1 = (-1, -1)");
	float mx[2] = { 1.0f / 3 + 3, 1.0f / 3 };
	is_int(admit1(o, 1, "A", 1, 1, 100, a, &w), GT_ADMIT_FRESH, "A at sqrt(5)/3 from the centre");
	hdr(&h, o, 1, "M", 1, 0, 100, GT_DELTA_FP32);
	is_int(gt_outer_admit(o, &h, mx, &w, &e), GT_ADMIT_FRESH, "M at 3 from the centre: admitted");
	ok(strstr(e.text, "distance from the centre 3 clipped to 2") != NULL, "... clipped to 2 r (%s)", e.text);
	is_int(admit1(o, 1, "B", 1, 1, 100, b, &w), GT_ADMIT_FRESH, "B");
	is_int(gt_outer_step(o, &e), 0, "version 2");
	is_dbl(gt_outer_params(o)[0], -51.0 / 18, 1e-5, "theta2[0] = -51/18");
	is_dbl(gt_outer_params(o)[1], -33.0 / 18, 1e-5, "theta2[1] = -33/18");
	is_dbl(gt_outer_momentum(o)[0], 13.0 / 9, 1e-5, "m2 = (13/9, 7/9)");
	const gt_outer_entry *x = gt_outer_ledger(o, 4);
	ok(x && !strcmp(x->unit, "M") && fabs(x->norm - 2) < 1e-6, "M's distance in the ledger as applied: 2");
	float far[2] = { 13.0f / 18, 7.0f / 18 + 5 }, near[2] = { 13.0f / 18, 7.0f / 18 + 4.5f };
	hdr(&h, o, 2, "M", 1, 1, 100, GT_DELTA_FP32);
	is_int(gt_outer_admit(o, &h, far, &w, &e), GT_REFUSE_NORM, "5 from the centre: refused");
	ok(strstr(e.text, "over 4 x the reference 1.143") != NULL, "... against the reference 1.1435 (%s)", e.text);
	hdr(&h, o, 2, "M", 1, 2, 100, GT_DELTA_FP32);
	is_int(gt_outer_admit(o, &h, near, &w, &e), GT_ADMIT_FRESH, "4.5 from the centre: admitted");
	ok(strstr(e.text, "clipped to 2.28") != NULL, "... clipped to 2 r = 2.287 (%s)", e.text);
	gt_outer_free(o);

	/* one unit far from the centre every version, honest units at 1: the
	 * reference stays 1 and her applied distance 2 */
	gt_outer_new(&o, z, 2, &cfg, &e);
	double lastref = 0;
	for (uint64_t v = 0; v < 12; v++) {
		const float *m = gt_outer_momentum(o);
		float cx = 0.5f * m[0], cy = 0.5f * m[1];
		float ha[2] = { cx + 1, cy }, hb[2] = { cx, cy + 1 }, hc[2] = { cx - 1, cy };
		float mm[2] = { cx + 3.9f * (v ? 1 : 0.1f), cy };
		admit1(o, v, "A", 1, v, 100, ha, &w);
		admit1(o, v, "B", 1, v, 100, hb, &w);
		admit1(o, v, "C", 1, v, 100, hc, &w);
		hdr(&h, o, v, "M", 1, v, 100, GT_DELTA_FP32);
		gt_outer_admit(o, &h, mm, &w, &e);
		const char *p = strstr(e.text, "clipped to ");
		if (p)
			lastref = atof(p + 11) / 2;
		gt_outer_step(o, &e);
	}
	is_dbl(lastref, 1, 1e-6, "after 12 versions of M at 3.9 r the reference is still 1");
	gt_outer_free(o);
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
		&& b->weight == a->weight && strcmp(b->unit, "u2") == 0 && b->norm == a->norm
		&& a->norm > 0, "last ledger entry restored, its norm too");
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

	/* a state of format 1 (112-byte ledger entries, no norm) still loads */
	{
		FILE *f1 = fopen(path, "rb");
		static uint8_t b2[4096], b1[4096];
		size_t n2 = fread(b2, 1, sizeof b2, f1), n1 = 0;
		fclose(f1);
		uint64_t P = 3, K = b2[64], L = b2[56];
		size_t head = 72 + 8 * P + 40 * K;
		memcpy(b1, b2, head);
		b1[8] = 1; /* format 1 */
		n1 = head;
		for (uint64_t j = 0; j < L; j++, n1 += 112)
			memcpy(b1 + n1, b2 + head + 120 * j, 112);
		unsigned dl;
		EVP_Digest(b1, n1, b1 + n1, &dl, EVP_sha256(), NULL);
		n1 += 32;
		snprintf(path2, sizeof path2, "%s/v1.state", dir);
		f1 = fopen(path2, "wb");
		fwrite(b1, 1, n1, f1);
		fclose(f1);
		gt_outer *v1 = NULL;
		is_int(gt_outer_load(&v1, path2, &e), 0, "a format 1 state (%zu bytes, was %zu) loads", n1, n2);
		ok(v1 && gt_outer_ledger_size(v1) == L && gt_outer_ledger(v1, L - 1)->norm == 0
			&& gt_outer_ledger(v1, L - 1)->samples == gt_outer_ledger(o, L - 1)->samples,
			"its ledger without norms");
		gt_outer_free(v1);
		unlink(path2);
	}

	/* corruption of the saved file */
	FILE *f = fopen(path, "rb");
	static uint8_t file[16384];
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

/* a judge that records what it was given and refuses when told to */
static struct { int calls, refuse; float got[3]; size_t n; } judged;
static int judge(void *ctx, const float *theta, size_t n, char *why, size_t len)
{
	(void)ctx;
	judged.calls++;
	judged.n = n;
	memcpy(judged.got, theta, sizeof judged.got);
	if (judged.refuse)
		snprintf(why, len, "probe loss 9.0000, version 0's 5.0000");
	return judged.refuse;
}

static void test_judge(void)
{
	/* theta0 = (1, 2, 3), g = (1, 0, -1), lr 0.7, mu 0.9 (test_nesterov):
	 * the candidate is (-0.33, 2, 4.33) */
	const float theta0[3] = { 1, 2, 3 }, g[3] = { 1, 0, -1 };
	const double want[3] = { -0.33, 2, 4.33 };
	gt_outer *o = NULL;
	gt_error e;
	gt_outer_new(&o, theta0, 3, NULL, &e);
	gt_outer_set_judge(o, judge, NULL);
	judged.refuse = 1;
	admit1(o, 0, "u0", 1, 0, 1000, g, NULL);
	is_int(gt_outer_step(o, &e), GT_EREFUSED, "a version its judge refuses: refused");
	ok(strstr(e.text, "version 1 refused: probe loss 9.0000, version 0's 5.0000") != NULL,
	   "with the judge's reason (%s)", e.text);
	is_int(judged.calls, 1, "the judge was asked once");
	is_int((long)judged.n, 3, "with the 3 parameters");
	for (int i = 0; i < 3; i++)
		is_dbl(judged.got[i], want[i], 2e-6, "of the candidate: theta[%d] = %g", i, want[i]);
	is_int(gt_outer_version(o), 0, "version 0 stays");
	ok(!memcmp(gt_outer_params(o), theta0, sizeof theta0), "with its parameters");
	is_dbl(gt_outer_momentum(o)[0], 0, 0, "and its momentum");
	is_int(gt_outer_pending(o), 0, "the deltas are dropped");
	judged.refuse = 0;
	admit1(o, 0, "u0", 1, 1, 1000, g, NULL);
	is_int(gt_outer_step(o, &e), 0, "a version it lets pass is made");
	for (int i = 0; i < 3; i++)
		is_dbl(gt_outer_params(o)[i], want[i], 2e-6, "theta[%d] = %g", i, want[i]);
	/* the guard's own refusal comes first: the judge is not asked */
	const float huge[3] = { 1e30f, 1e30f, 1e30f };
	gt_outer_guard gd;
	gt_outer_guard_get(o, &gd);
	gd.max_value = 0;
	gt_outer_guard_set(o, &gd, &e);
	admit1(o, 1, "u0", 1, 2, 1000, huge, NULL);
	is_int(gt_outer_step(o, &e), GT_EREFUSED, "a version beyond max_param: refused");
	is_int(judged.calls, 2, "without asking the judge");
	gt_outer_free(o);
}

int main(void)
{
	test_nesterov();
	test_admission();
	test_reduction();
	test_toy();
	test_guard();
	test_centred();
	test_save_load();
	test_judge();
	return done_testing();
}
