/* outer.c: the Decoupled DiLoCo outer optimizer: admission, weighted
 * averaging, Nesterov step, ledger, atomic save and load. */
#include "outer.h"
#include "fs.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/evp.h>

#define OUTER_MAGIC "gtouter\n"
#define OUTER_FORMAT 3            /* 2: ledger entries carry the delta's norm;
                                   * 3: the units' influence records follow */
#define OUTER_HEADER 72
#define ENTRY_BYTES_1 112
#define ENTRY_BYTES 120
#define LEDGER_MAX ((uint64_t)1 << 28)
#define SKETCH 1024               /* count-sketch bins of a unit's pulls */
#define UNITS_MAX 4096            /* influence records kept (least recent dropped) */
#define UNIT_BYTES (64 + 8 + 8 + 8 + 8 + 4 * SKETCH)

/* a unit's influence record: the count sketch of its decayed sum of pulls
 * (its applied delta minus the version's average) and the decayed sum of
 * their squared norms */
typedef struct unitrec {
	char unit[GT_DELTA_UNIT_MAX + 1];
	uint64_t last;       /* the version its last pull went into */
	uint64_t n;          /* pulls counted */
	double q;            /* decayed sum of ||pull||^2 (sketched) */
	int aside;
	float sk[SKETCH];
} unitrec;

struct gt_outer {
	gt_outer_cfg cfg;
	gt_outer_guard guard;
	size_t n;
	uint64_t version;
	float *theta, *m;
	float *acc;          /* sum of w * delta of the pending deltas */
	float *scratch;      /* decoded packed delta */
	gt_outer_judge_fn judge; /* gt_outer_set_judge; NULL: none */
	void *judge_ctx;
	double wsum;
	/* sha256 of versions V-s_max..V: ring indexed by v % (s_max+1) */
	uint64_t *sha_v;
	uint8_t (*sha)[32];
	gt_outer_entry *ledger, *pend;
	size_t nledger, capledger, npend, cappend;
	uint32_t *bucket;    /* count sketch: bin (low bits) and sign (bit 31) of i */
	float (*psk)[SKETCH]; /* the sketches of the pending applied deltas */
	size_t cappsk;
	unitrec *units;
	size_t nunits, capunits;
	char aside_new[8][GT_DELTA_UNIT_MAX + 1]; /* set aside by the last step */
	double aside_ratio[8];
	size_t naside_new;
};

void gt_outer_cfg_default(gt_outer_cfg *cfg)
{
	cfg->lr = 0.7;
	cfg->momentum = 0.9;
	cfg->s_max = 2;
	cfg->stale_decay = 0.25;
}

void gt_outer_guard_default(gt_outer_guard *g)
{
	*g = (gt_outer_guard){ .max_value = 1000, .norm_ratio = 4, .clip_ratio = 2,
	                       .samples_ratio = 4, .norm_window = 16, .max_param = 10000,
	                       .max_growth = 10, .center = GT_OUTER_CENTER_MOMENTUM,
	                       .influence_ratio = 2.0, .influence_window = 16 };
}

static int nonneg(double x)
{
	return isfinite(x) && x >= 0;
}

int gt_outer_guard_set(gt_outer *o, const gt_outer_guard *g, gt_error *e)
{
	if (!nonneg(g->max_value) || !nonneg(g->norm_ratio) || !nonneg(g->clip_ratio)
			|| !nonneg(g->samples_ratio)
			|| g->norm_window < 1 || g->norm_window > 1024 || !nonneg(g->max_param)
			|| !nonneg(g->max_growth) || !nonneg(g->influence_ratio)
			|| g->influence_window < 2 || g->influence_window > 100000
			|| (g->center != GT_OUTER_CENTER_ZERO && g->center != GT_OUTER_CENTER_MOMENTUM))
		return gt_error_set(e, GT_EINVAL, -1, -1, "bad outer guard settings");
	o->guard = *g;
	return 0;
}

void gt_outer_guard_get(const gt_outer *o, gt_outer_guard *g)
{
	*g = o->guard;
}

const char *gt_outer_decision_name(int d)
{
	static const char *names[] = { "fresh", "stale", "too-stale", "duplicate", "checksum",
		"base-sha256", "future", "shape", "format", "value", "norm", "unsigned", "surplus", "aside" };
	return d >= 0 && d < (int)(sizeof names / sizeof *names) ? names[d] : "unknown";
}

static int cfg_ok(const gt_outer_cfg *c)
{
	return isfinite(c->lr) && c->lr > 0 && isfinite(c->momentum) && c->momentum >= 0
		&& c->momentum < 1 && c->s_max >= 0 && c->s_max <= GT_OUTER_SMAX_MAX
		&& isfinite(c->stale_decay) && c->stale_decay >= 0;
}

static gt_outer *alloc(size_t n, const gt_outer_cfg *cfg)
{
	gt_outer *o = gt_xcalloc(1, sizeof *o);
	o->cfg = *cfg;
	gt_outer_guard_default(&o->guard);
	o->n = n;
	o->theta = gt_xcalloc(n, sizeof *o->theta);
	o->m = gt_xcalloc(n, sizeof *o->m);
	o->acc = gt_xcalloc(n, sizeof *o->acc);
	o->scratch = gt_xcalloc(n, sizeof *o->scratch);
	o->sha_v = gt_xcalloc((size_t)cfg->s_max + 1, sizeof *o->sha_v);
	o->sha = gt_xcalloc((size_t)cfg->s_max + 1, sizeof *o->sha);
	for (int i = 0; i <= cfg->s_max; i++)
		o->sha_v[i] = UINT64_MAX; /* empty slot */
	o->bucket = gt_xmalloc(n * sizeof *o->bucket);
	for (size_t i = 0; i < n; i++) {
		uint64_t z = (uint64_t)i + 0x9e3779b97f4a7c15ULL; /* splitmix64 */
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
		o->bucket[i] = (uint32_t)(z % SKETCH) | (uint32_t)(z >> 63) << 31;
	}
	return o;
}

void gt_outer_free(gt_outer *o)
{
	if (!o)
		return;
	gt_free_all(o->theta, o->m, o->acc, o->scratch, o->sha_v, o->sha, o->ledger, o->pend,
	            o->bucket, o->psk, o->units, o);
}

static int record_sha(gt_outer *o)
{
	size_t slot = o->version % ((uint64_t)o->cfg.s_max + 1);
	if (gt_delta_params_sha256(o->theta, o->n, o->sha[slot]))
		return GT_EIO;
	o->sha_v[slot] = o->version;
	return 0;
}

int gt_outer_new(gt_outer **out, const float *theta0, size_t n, const gt_outer_cfg *cfg,
		gt_error *e)
{
	gt_outer_cfg def;
	gt_outer *o;
	if (!cfg) {
		gt_outer_cfg_default(&def);
		cfg = &def;
	}
	if (!cfg_ok(cfg))
		return gt_error_set(e, GT_EINVAL, -1, -1, "bad outer settings");
	if (n == 0 || n > GT_DELTA_MAX_PARAMS)
		return gt_error_set(e, GT_EINVAL, -1, -1, "parameter count %zu out of range", n);
	for (size_t i = 0; i < n; i++)
		if (!isfinite(theta0[i]))
			return gt_error_set(e, GT_EINVAL, -1, -1, "parameter %zu is not finite", i);
	o = alloc(n, cfg);
	memcpy(o->theta, theta0, n * sizeof *theta0);
	if (record_sha(o)) {
		gt_outer_free(o);
		return gt_error_set(e, GT_EIO, -1, -1, "sha256 failed");
	}
	*out = o;
	return 0;
}

uint64_t gt_outer_version(const gt_outer *o) { return o->version; }
size_t gt_outer_size(const gt_outer *o) { return o->n; }
void gt_outer_cfg_get(const gt_outer *o, gt_outer_cfg *cfg) { *cfg = o->cfg; }
const float *gt_outer_params(const gt_outer *o) { return o->theta; }
const float *gt_outer_momentum(const gt_outer *o) { return o->m; }
size_t gt_outer_pending(const gt_outer *o) { return o->npend; }

int gt_outer_unit_pending(const gt_outer *o, const char *unit)
{
	for (size_t i = 0; i < o->npend; i++)
		if (!strncmp(o->pend[i].unit, unit, sizeof o->pend[i].unit))
			return 1;
	return 0;
}
size_t gt_outer_ledger_size(const gt_outer *o) { return o->nledger; }

const gt_outer_entry *gt_outer_ledger(const gt_outer *o, size_t i)
{
	return i < o->nledger ? &o->ledger[i] : NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *x, size_t n)
{
	qsort(x, n, sizeof *x, cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static unitrec *unit_find(const gt_outer *o, const char *unit)
{
	for (size_t i = 0; i < o->nunits; i++)
		if (!strncmp(o->units[i].unit, unit, GT_DELTA_UNIT_MAX))
			return &o->units[i];
	return NULL;
}

/* the record of unit, made (in the place of the least recent one when
 * UNITS_MAX are kept, never one set aside) if there is none */
static unitrec *unit_get(gt_outer *o, const char *unit)
{
	unitrec *r = unit_find(o, unit);
	if (r)
		return r;
	if (o->nunits < UNITS_MAX) {
		GT_GROW(o->units, o->nunits + 1, o->capunits, 8);
		r = &o->units[o->nunits++];
	} else {
		for (size_t i = 0; i < o->nunits; i++)
			if (!o->units[i].aside && (!r || o->units[i].last < r->last))
				r = &o->units[i];
		if (!r)
			r = &o->units[0];
	}
	memset(r, 0, sizeof *r);
	snprintf(r->unit, sizeof r->unit, "%s", unit);
	return r;
}

static double sk_sq(const float *sk)
{
	double q = 0;
	for (int b = 0; b < SKETCH; b++)
		q += (double)sk[b] * sk[b];
	return q;
}

/* the record decayed to version v: gamma^(v - last) */
static void unit_decay(const gt_outer *o, unitrec *r, uint64_t v)
{
	double gm = 1 - 1.0 / o->guard.influence_window;
	double f = v > r->last ? pow(gm, (double)(v - r->last)) : 1;
	for (int b = 0; b < SKETCH; b++)
		r->sk[b] = (float)(r->sk[b] * f);
	r->q *= f * f;
	r->last = v > r->last ? v : r->last;
}

/* ||S_r|| over the median of the other units' ||S|| at version v (those
 * with a pull in the last influence_window versions, not set aside),
 * decayed alike; 0 with fewer than 2 others */
static double unit_ratio(const gt_outer *o, const unitrec *r, uint64_t v)
{
	double gm = 1 - 1.0 / o->guard.influence_window, nv[UNITS_MAX];
	size_t k = 0;
	for (size_t i = 0; i < o->nunits; i++) {
		const unitrec *x = &o->units[i];
		if (x == r || x->aside || x->n == 0 || x->last + (uint64_t)o->guard.influence_window < v)
			continue;
		nv[k++] = sqrt(sk_sq(x->sk)) * pow(gm, (double)(v > x->last ? v - x->last : 0));
	}
	if (k < 2)
		return 0;
	double med = median(nv, k);
	return med > 0 ? sqrt(sk_sq(r->sk)) * pow(gm, (double)(v > r->last ? v - r->last : 0)) / med : 0;
}

int gt_outer_unit_influence(const gt_outer *o, const char *unit, double *ratio, uint64_t *n)
{
	const unitrec *r = unit_find(o, unit);
	if (!r)
		return -1;
	*ratio = unit_ratio(o, r, o->version);
	*n = r->n;
	return r->aside;
}

size_t gt_outer_aside_new(const gt_outer *o, size_t i, const char **unit, double *ratio)
{
	if (i < o->naside_new) {
		*unit = o->aside_new[i];
		*ratio = o->aside_ratio[i];
	}
	return o->naside_new;
}

size_t gt_outer_units_aside(const gt_outer *o)
{
	size_t k = 0;
	for (size_t i = 0; i < o->nunits; i++)
		k += o->units[i].aside != 0;
	return k;
}

int gt_outer_readmit(gt_outer *o, const char *unit)
{
	unitrec *r = unit_find(o, unit);
	if (!r || !r->aside)
		return GT_ENOTFOUND;
	memset(r->sk, 0, sizeof r->sk);
	r->q = 0;
	r->n = 0;
	r->aside = 0;
	return 0;
}

const gt_outer_entry *gt_outer_pending_entry(const gt_outer *o, size_t i)
{
	return i < o->npend ? &o->pend[i] : NULL;
}

int gt_outer_version_sha256(const gt_outer *o, uint64_t v, uint8_t out[32])
{
	size_t slot = v % ((uint64_t)o->cfg.s_max + 1);
	if (v > o->version || o->sha_v[slot] != v)
		return GT_ENOTFOUND;
	memcpy(out, o->sha[slot], 32);
	return 0;
}

static int same(const gt_outer_entry *a, const gt_delta_hdr *h)
{
	return a->generation == h->generation && a->seq == h->seq
		&& strncmp(a->unit, h->unit, sizeof a->unit) == 0;
}

static void push(gt_outer_entry **v, size_t *n, size_t *cap, const gt_outer_entry *x)
{
	GT_GROW(*v, *n + 1, *cap, 16);
	(*v)[(*n)++] = *x;
}

/* the reference distance and samples of the last norm_window admitted
 * deltas (pending ones first, then the ledger's newest) with a known
 * distance: the median over their units of each unit's median distance
 * (a unit cannot move it while fewer than half of the units are its),
 * and the median samples; 1 when at least 3 are known, else 0 */
static int recent_reference(const gt_outer *o, double *dist, double *samples)
{
	double nv[1024], sv[1024], um[1024], uv[1024];
	const char *un[1024];
	size_t k = 0, want = (size_t)o->guard.norm_window, nu = 0;
	for (size_t i = o->npend + o->nledger; i > 0 && k < want; i--) {
		const gt_outer_entry *x = i > o->nledger ? &o->pend[i - 1 - o->nledger] : &o->ledger[i - 1];
		if (x->norm > 0) {
			un[k] = x->unit;
			nv[k] = x->norm;
			sv[k++] = (double)x->samples;
		}
	}
	if (k < 3)
		return 0;
	for (size_t i = 0; i < k; i++) {
		size_t j = 0, n = 0;
		while (j < i && strcmp(un[j], un[i]))
			j++;
		if (j < i)
			continue; /* that unit's median is taken */
		for (j = i; j < k; j++)
			if (!strcmp(un[j], un[i]))
				uv[n++] = nv[j];
		um[nu++] = median(uv, n);
	}
	*dist = median(um, nu);
	*samples = median(sv, k);
	return 1;
}

int gt_outer_admit(gt_outer *o, const gt_delta_hdr *h, const float *delta, double *weight,
		gt_error *e)
{
	uint8_t sha[32];
	uint64_t s;
	double w;
	gt_outer_entry ent;
	if (weight)
		*weight = 0;
	if (!h || !delta)
		return gt_error_set(e, GT_EINVAL, -1, -1, "no delta");
	if (h->nparams != o->n)
		return gt_error_set(e, GT_REFUSE_SHAPE, -1, -1, "%llu parameters, the model has %zu",
			(unsigned long long)h->nparams, o->n);
	if (h->samples == 0)
		return gt_error_set(e, GT_REFUSE_FORMAT, -1, -1, "zero samples");
	if (h->base_version > o->version)
		return gt_error_set(e, GT_REFUSE_FUTURE, -1, -1, "base version %llu is newer than %llu",
			(unsigned long long)h->base_version, (unsigned long long)o->version);
	s = o->version - h->base_version;
	if (s > (uint64_t)o->cfg.s_max)
		return gt_error_set(e, GT_REFUSE_TOO_STALE, -1, -1,
			"staleness %llu (version %llu, now %llu) over %d",
			(unsigned long long)s, (unsigned long long)h->base_version,
			(unsigned long long)o->version, o->cfg.s_max);
	for (size_t i = 0; i < o->nledger; i++)
		if (same(&o->ledger[i], h))
			return gt_error_set(e, GT_REFUSE_DUPLICATE, -1, -1,
				"%s generation %016llx seq %llu already applied in version %llu",
				h->unit, (unsigned long long)h->generation, (unsigned long long)h->seq,
				(unsigned long long)o->ledger[i].version);
	for (size_t i = 0; i < o->npend; i++)
		if (same(&o->pend[i], h))
			return gt_error_set(e, GT_REFUSE_DUPLICATE, -1, -1,
				"%s generation %016llx seq %llu already pending", h->unit,
				(unsigned long long)h->generation, (unsigned long long)h->seq);
	if (gt_outer_unit_pending(o, h->unit))
		return gt_error_set(e, GT_REFUSE_SURPLUS, -1, -1,
			"%s already has a delta in version %llu (one a unit a version)", h->unit,
			(unsigned long long)o->version + 1);
	const unitrec *ur = unit_find(o, h->unit);
	if (ur && ur->aside)
		return gt_error_set(e, GT_REFUSE_ASIDE, -1, -1,
			"%s is set aside: its pulls kept one direction (gt_outer_readmit)", h->unit);
	if (gt_outer_version_sha256(o, h->base_version, sha) || memcmp(sha, h->base_sha256, 32))
		return gt_error_set(e, GT_REFUSE_BASE_SHA, -1, -1,
			"base sha256 is not that of version %llu", (unsigned long long)h->base_version);
	/* centred clipping (Karimireddy, He and Jaggi 2021): the distance
	 * from the centre c = (1 - mu) m, the average of the past versions'
	 * pseudo-gradients that the Nesterov buffer holds (or 0) */
	const double cw = o->guard.center == GT_OUTER_CENTER_MOMENTUM ? 1 - o->cfg.momentum : 0;
	double sq = 0;
	for (size_t i = 0; i < o->n; i++) {
		if (!isfinite(delta[i]))
			return gt_error_set(e, GT_REFUSE_VALUE, -1, -1, "value %zu is not finite", i);
		if (o->guard.max_value > 0 && fabs(delta[i]) > o->guard.max_value)
			return gt_error_set(e, GT_REFUSE_VALUE, -1, -1, "value %zu is %g, beyond %g", i,
				delta[i], o->guard.max_value);
		double r = (double)delta[i] - cw * o->m[i];
		sq += r * r;
	}
	double norm = sqrt(sq), med_norm, med_samples, clip = 1;
	const char *what = cw > 0 ? "distance from the centre" : "norm";
	uint64_t samples = h->samples;
	char note[160] = "";
	if (recent_reference(o, &med_norm, &med_samples)) {
		if (o->guard.norm_ratio > 0 && norm > o->guard.norm_ratio * med_norm)
			return gt_error_set(e, GT_REFUSE_NORM, -1, -1,
				"%s %g over %g x the reference %g of the last admitted deltas", what, norm,
				o->guard.norm_ratio, med_norm);
		if (o->guard.clip_ratio > 0 && norm > o->guard.clip_ratio * med_norm) {
			clip = o->guard.clip_ratio * med_norm / norm;
			snprintf(note, sizeof note, ", %s %g clipped to %g", what, norm, norm * clip);
		}
		if (o->guard.samples_ratio > 0 && (double)samples > o->guard.samples_ratio * med_samples)
			samples = (uint64_t)(o->guard.samples_ratio * med_samples);
	}
	if (o->guard.max_samples && samples > o->guard.max_samples)
		samples = o->guard.max_samples;
	if (samples != h->samples) {
		size_t l = strlen(note);
		snprintf(note + l, sizeof note - l, ", samples %llu taken as %llu",
			(unsigned long long)h->samples, (unsigned long long)samples);
	}
	w = (double)samples / (1 + o->cfg.stale_decay * (double)s);
	GT_GROW(o->psk, o->npend + 1, o->cappsk, 16);
	float *sk = o->psk[o->npend];
	memset(sk, 0, sizeof *o->psk);
	for (size_t i = 0; i < o->n; i++) {
		double c = cw * o->m[i], x = c + clip * ((double)delta[i] - c);
		o->acc[i] += (float)(w * x);
		uint32_t bk = o->bucket[i];
		sk[bk & 0x7fffffff] += (float)(bk >> 31 ? -x : x);
	}
	o->wsum += w;
	memset(&ent, 0, sizeof ent);
	ent.version = o->version + 1;
	ent.base_version = h->base_version;
	memcpy(ent.unit, h->unit, sizeof ent.unit);
	ent.unit[GT_DELTA_UNIT_MAX] = 0;
	ent.generation = h->generation;
	ent.seq = h->seq;
	ent.samples = samples;
	ent.weight = w;
	ent.norm = norm * clip;
	push(&o->pend, &o->npend, &o->cappend, &ent);
	if (weight)
		*weight = w;
	if (s == 0)
		return gt_error_set(e, GT_ADMIT_FRESH, -1, -1, "fresh, weight %g%s", w, note);
	return gt_error_set(e, GT_ADMIT_STALE, -1, -1, "staleness %llu, weight %g%s",
		(unsigned long long)s, w, note);
}

int gt_outer_admit_packed(gt_outer *o, const uint8_t *buf, size_t len, double *weight,
		gt_error *e)
{
	gt_delta_hdr h;
	int rc;
	if (weight)
		*weight = 0;
	rc = gt_delta_read_header(buf, len, &h, NULL, e);
	if (rc == 0 && h.nparams != o->n)
		return gt_error_set(e, GT_REFUSE_SHAPE, -1, -1, "%llu parameters, the model has %zu",
			(unsigned long long)h.nparams, o->n);
	if (rc == 0)
		rc = gt_delta_unpack(buf, len, &h, o->scratch, o->n, e);
	if (rc == GT_ECHECKSUM)
		return GT_REFUSE_CHECKSUM;
	if (rc)
		return GT_REFUSE_FORMAT;
	return gt_outer_admit(o, &h, o->scratch, weight, e);
}

/* bounded influence: each pending unit's pull, its applied delta less
 * the average of the version's (sketched: sketches are linear), into its
 * decayed record; a unit whose decayed sum of pulls is over
 * influence_ratio times the median of the other units' is set aside.
 * Nothing to learn from a version of one delta. */
static void influence(gt_outer *o, uint64_t v)
{
	o->naside_new = 0;
	if (o->npend < 2 || o->guard.influence_ratio <= 0)
		return;
	float gsk[SKETCH];
	memset(gsk, 0, sizeof gsk);
	for (size_t i = 0; i < o->npend; i++)
		for (int b = 0; b < SKETCH; b++)
			gsk[b] += (float)(o->pend[i].weight / o->wsum) * o->psk[i][b];
	for (size_t i = 0; i < o->npend; i++) {
		unitrec *r = unit_get(o, o->pend[i].unit);
		unit_decay(o, r, v);
		double q = 0;
		for (int b = 0; b < SKETCH; b++) {
			double d = (double)o->psk[i][b] - gsk[b];
			r->sk[b] += (float)d;
			q += d * d;
		}
		r->q += q;
		r->n++;
	}
	for (size_t i = 0; i < o->npend; i++) {
		unitrec *r = unit_find(o, o->pend[i].unit);
		double ratio = unit_ratio(o, r, v);
		if (!r->aside && r->n >= 4 && ratio > o->guard.influence_ratio) {
			r->aside = 1;
			if (o->naside_new < 8) {
				snprintf(o->aside_new[o->naside_new], sizeof o->aside_new[0], "%s", r->unit);
				o->aside_ratio[o->naside_new++] = ratio;
			}
		}
	}
}

void gt_outer_set_judge(gt_outer *o, gt_outer_judge_fn fn, void *ctx)
{
	o->judge = fn;
	o->judge_ctx = ctx;
}

int gt_outer_step(gt_outer *o, gt_error *e)
{
	return gt_outer_step_scaled(o, 1.0, e);
}

int gt_outer_step_scaled(gt_outer *o, double scale, gt_error *e)
{
	const float lr = (float)o->cfg.lr, mu = (float)o->cfg.momentum;
	float inv;
	int rc;
	o->naside_new = 0;
	if (o->npend == 0)
		return gt_error_set(e, GT_EINVAL, -1, -1, "no admitted deltas");
	if (!(scale > 0 && scale <= 1))
		return gt_error_set(e, GT_EINVAL, -1, -1, "step scale %g not in (0, 1]", scale);
	inv = (float)(scale / o->wsum);
	/* the new parameters into scratch first: a version that fails the
	 * guard's check is refused and nothing changes but the pending */
	double sq0 = 0, sq1 = 0;
	const char *why = NULL;
	size_t at = 0;
	for (size_t i = 0; i < o->n; i++) {
		float g = o->acc[i] * inv, m = mu * o->m[i] + g;
		float t = o->theta[i] - lr * (g + mu * m);
		o->scratch[i] = t;
		sq0 += (double)o->theta[i] * o->theta[i];
		sq1 += (double)t * t;
		if (!why && (!isfinite(t) || !isfinite(m)))
			why = "not finite", at = i;
		else if (!why && o->guard.max_param > 0 && fabs(t) > o->guard.max_param)
			why = "beyond max_param", at = i;
	}
	/* growth against the norm of the current parameters, at least that of
	 * all ones (a network at zero may grow to a root mean square of
	 * max_growth) */
	double floor0 = fmax(sqrt(sq0), sqrt((double)o->n));
	if (!why && o->guard.max_growth > 0 && !(sqrt(sq1) <= o->guard.max_growth * floor0))
		why = "grown beyond max_growth";
	char jwhy[512] = "";
	if (!why && o->judge && o->judge(o->judge_ctx, o->scratch, o->n, jwhy, sizeof jwhy)) {
		why = "judged";
		if (!jwhy[0])
			snprintf(jwhy, sizeof jwhy, "its judge refused it");
	}
	if (why) {
		memset(o->acc, 0, o->n * sizeof *o->acc);
		o->wsum = 0;
		o->npend = 0;
		if (!strcmp(why, "judged"))
			return gt_error_set(e, GT_EREFUSED, -1, -1,
				"version %llu refused: %s; the pending deltas are dropped",
				(unsigned long long)o->version + 1, jwhy);
		if (!strcmp(why, "grown beyond max_growth"))
			return gt_error_set(e, GT_EREFUSED, -1, -1,
				"version %llu refused: parameter norm %g, was %g (over %g x %g); the pending deltas are dropped",
				(unsigned long long)o->version + 1, sqrt(sq1), sqrt(sq0), o->guard.max_growth, floor0);
		return gt_error_set(e, GT_EREFUSED, -1, -1,
			"version %llu refused: parameter %zu %s (%g); the pending deltas are dropped",
			(unsigned long long)o->version + 1, at, why, (double)o->scratch[at]);
	}
	influence(o, o->version + 1);
	for (size_t i = 0; i < o->n; i++) {
		float g = o->acc[i] * inv;
		o->m[i] = mu * o->m[i] + g;
		o->theta[i] = o->scratch[i];
		o->acc[i] = 0;
	}
	o->wsum = 0;
	o->version++;
	for (size_t i = 0; i < o->npend; i++)
		push(&o->ledger, &o->nledger, &o->capledger, &o->pend[i]);
	o->npend = 0;
	rc = record_sha(o);
	if (rc)
		return gt_error_set(e, rc, -1, -1, "sha256 failed");
	return 0;
}

/* Serialization: little-endian, see gt_outer_save in outer.h. Header:
 *   0 magic "gtouter\n"   8 u32 format   12 u32 s_max   16 u64 V   24 u64 P
 *  32 f64 lr  40 f64 momentum  48 f64 stale_decay  56 u64 ledger entries L
 *  64 u64 sha entries K
 * then theta (4P), m (4P), K x (u64 version, sha256[32]), L entries of
 * ENTRY_BYTES (u64 version, base_version, generation, seq, samples,
 * f64 weight, unit[64] NUL-padded, f64 norm), u64 unit records U, U
 * records of UNIT_BYTES (unit[64] NUL-padded, u64 last, u64 n, f64 q,
 * u64 aside, f32 sketch[SKETCH]), then sha256 of everything before.
 * Format 1 (read, never written) had no norm: 112-byte entries; formats 1
 * and 2 no unit records. */

static uint64_t nsha(const gt_outer *o)
{
	uint64_t k = 0;
	for (int i = 0; i <= o->cfg.s_max; i++)
		k += o->sha_v[i] != UINT64_MAX;
	return k;
}

int gt_outer_save(const gt_outer *o, const char *path, gt_error *e)
{
	uint64_t k = nsha(o);
	size_t size = OUTER_HEADER + 8 * o->n + k * 40 + o->nledger * ENTRY_BYTES + 8
		+ o->nunits * UNIT_BYTES + 32;
	uint8_t *b = gt_xcalloc(1, size), *p = b;
	unsigned dl = 0;

	memcpy(p, OUTER_MAGIC, 8);
	gt_le_put64(p + 8, OUTER_FORMAT | (uint64_t)o->cfg.s_max << 32);
	gt_le_put64(p + 16, o->version);
	gt_le_put64(p + 24, o->n);
	gt_le_putd(p + 32, o->cfg.lr);
	gt_le_putd(p + 40, o->cfg.momentum);
	gt_le_putd(p + 48, o->cfg.stale_decay);
	gt_le_put64(p + 56, o->nledger);
	gt_le_put64(p + 64, k);
	p += OUTER_HEADER;
	for (size_t i = 0; i < o->n; i++, p += 4)
		gt_le_putf(p, o->theta[i]);
	for (size_t i = 0; i < o->n; i++, p += 4)
		gt_le_putf(p, o->m[i]);
	for (uint64_t v = o->version + 1 - k; v <= o->version; v++, p += 40) {
		size_t slot = v % ((uint64_t)o->cfg.s_max + 1);
		gt_le_put64(p, v);
		memcpy(p + 8, o->sha[slot], 32);
	}
	for (size_t i = 0; i < o->nledger; i++, p += ENTRY_BYTES) {
		const gt_outer_entry *x = &o->ledger[i];
		gt_le_put64(p, x->version);
		gt_le_put64(p + 8, x->base_version);
		gt_le_put64(p + 16, x->generation);
		gt_le_put64(p + 24, x->seq);
		gt_le_put64(p + 32, x->samples);
		gt_le_putd(p + 40, x->weight);
		memcpy(p + 48, x->unit, strnlen(x->unit, GT_DELTA_UNIT_MAX));
		gt_le_putd(p + 112, x->norm);
	}
	gt_le_put64(p, o->nunits);
	p += 8;
	for (size_t i = 0; i < o->nunits; i++, p += UNIT_BYTES) {
		const unitrec *r = &o->units[i];
		memcpy(p, r->unit, strnlen(r->unit, GT_DELTA_UNIT_MAX));
		gt_le_put64(p + 64, r->last);
		gt_le_put64(p + 72, r->n);
		gt_le_putd(p + 80, r->q);
		gt_le_put64(p + 88, (uint64_t)r->aside);
		for (int b = 0; b < SKETCH; b++)
			gt_le_putf(p + 96 + 4 * b, r->sk[b]);
	}
	if (!EVP_Digest(b, size - 32, p, &dl, EVP_sha256(), NULL) || dl != 32) {
		free(b);
		return gt_error_set(e, GT_EIO, -1, -1, "sha256 failed");
	}

	int rc = gt_fs_write_atomic(path, b, size, e), err = errno;
	free(b);
	errno = err;
	return rc;
}

int gt_outer_load(gt_outer **out, const char *path, gt_error *e)
{
	uint8_t h[OUTER_HEADER], sum[32], *b = NULL, *p;
	long long fsize;
	gt_outer_cfg cfg;
	uint64_t fmt, v, n, nl, k, size, eb;
	unsigned dl = 0;
	gt_outer *o = NULL;
	int rc = 0, fd = gt_fs_open_head(path, h, sizeof h, &fsize, e);
	if (fd < 0)
		return fd;
	if (memcmp(h, OUTER_MAGIC, 8)) {
		rc = gt_error_set(e, GT_EFORMAT, -1, 0, "%s: not an outer state (bad magic)", path);
		goto out;
	}
	fmt = gt_le_get64(h + 8);
	cfg.s_max = (int)(fmt >> 32 & 0x7fffffff);
	fmt &= 0xffffffff;
	v = gt_le_get64(h + 16);
	n = gt_le_get64(h + 24);
	cfg.lr = gt_le_getd(h + 32);
	cfg.momentum = gt_le_getd(h + 40);
	cfg.stale_decay = gt_le_getd(h + 48);
	nl = gt_le_get64(h + 56);
	k = gt_le_get64(h + 64);
	if (fmt > OUTER_FORMAT) {
		rc = gt_error_set(e, GT_EUNSUPPORTED, -1, 8, "%s: format %llu is newer than %d",
			path, (unsigned long long)fmt, OUTER_FORMAT);
		goto out;
	}
	eb = fmt == 1 ? ENTRY_BYTES_1 : ENTRY_BYTES;
	if ((fmt != 1 && fmt != OUTER_FORMAT) || (gt_le_get64(h + 8) >> 63) || !cfg_ok(&cfg) || n == 0
			|| n > GT_DELTA_MAX_PARAMS || nl > LEDGER_MAX || k == 0
			|| k > (uint64_t)cfg.s_max + 1 || k > v + 1) {
		rc = gt_error_set(e, GT_EFORMAT, -1, 8, "%s: bad header", path);
		goto out;
	}
	size = OUTER_HEADER + 8 * n + 40 * k + eb * nl + 32;
	uint64_t nun = 0;
	if (fmt >= 3) {
		/* the units' count sits just before their records, after the ledger */
		uint8_t cnt[8];
		if ((uint64_t)fsize < size + 8 || pread(fd, cnt, 8, (off_t)(size - 32)) != 8) {
			rc = gt_error_set(e, GT_EFORMAT, -1, (long)fsize, "%s: truncated", path);
			goto out;
		}
		nun = gt_le_get64(cnt);
		if (nun > UNITS_MAX) {
			rc = gt_error_set(e, GT_EFORMAT, -1, (long)(size - 32), "%s: %llu unit records",
				path, (unsigned long long)nun);
			goto out;
		}
		size += 8 + nun * UNIT_BYTES;
	}
	if ((uint64_t)fsize != size) {
		rc = gt_error_set(e, GT_EFORMAT, -1, (long)fsize,
			"%s: %lld bytes, header says %llu", path, fsize, (unsigned long long)size);
		goto out;
	}
	b = gt_xmalloc(size);
	memcpy(b, h, OUTER_HEADER);
	if (gt_fs_read_all(fd, b + OUTER_HEADER, size - OUTER_HEADER)) {
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: short read", path);
		goto out;
	}
	if (!EVP_Digest(b, size - 32, sum, &dl, EVP_sha256(), NULL) || dl != 32) {
		rc = gt_error_set(e, GT_EIO, -1, -1, "sha256 failed");
		goto out;
	}
	if (memcmp(sum, b + size - 32, 32)) {
		rc = gt_error_set(e, GT_ECHECKSUM, -1, (long)(size - 32), "%s: sha256 mismatch", path);
		goto out;
	}
	o = alloc(n, &cfg);
	o->version = v;
	p = b + OUTER_HEADER;
	for (size_t i = 0; i < n; i++, p += 4)
		o->theta[i] = gt_le_getf(p);
	for (size_t i = 0; i < n; i++, p += 4)
		o->m[i] = gt_le_getf(p);
	for (size_t i = 0; i < n; i++)
		if (!isfinite(o->theta[i]) || !isfinite(o->m[i])) {
			rc = gt_error_set(e, GT_EFORMAT, -1, -1, "%s: value %zu not finite", path, i);
			goto out;
		}
	for (uint64_t j = 0; j < k; j++, p += 40) {
		uint64_t sv = gt_le_get64(p);
		size_t slot = sv % ((uint64_t)cfg.s_max + 1);
		if (sv != v + 1 - k + j) {
			rc = gt_error_set(e, GT_EFORMAT, -1, (long)(p - b), "%s: bad version list", path);
			goto out;
		}
		o->sha_v[slot] = sv;
		memcpy(o->sha[slot], p + 8, 32);
	}
	for (uint64_t j = 0; j < nl; j++, p += eb) {
		gt_outer_entry x;
		memset(&x, 0, sizeof x);
		x.version = gt_le_get64(p);
		x.base_version = gt_le_get64(p + 8);
		x.generation = gt_le_get64(p + 16);
		x.seq = gt_le_get64(p + 24);
		x.samples = gt_le_get64(p + 32);
		x.weight = gt_le_getd(p + 40);
		memcpy(x.unit, p + 48, GT_DELTA_UNIT_MAX);
		x.norm = eb > ENTRY_BYTES_1 ? gt_le_getd(p + 112) : 0;
		if (p[48 + GT_DELTA_UNIT_MAX] || x.version > v || x.version == 0 || !(x.norm >= 0)
				|| !isfinite(x.norm)) {
			rc = gt_error_set(e, GT_EFORMAT, -1, (long)(p - b), "%s: bad ledger entry %llu",
				path, (unsigned long long)j);
			goto out;
		}
		push(&o->ledger, &o->nledger, &o->capledger, &x);
	}
	if (fmt >= 3)
		p += 8;
	for (uint64_t j = 0; j < nun; j++, p += UNIT_BYTES) {
		unitrec *r = unit_get(o, "");
		memcpy(r->unit, p, GT_DELTA_UNIT_MAX);
		r->last = gt_le_get64(p + 64);
		r->n = gt_le_get64(p + 72);
		r->q = gt_le_getd(p + 80);
		r->aside = gt_le_get64(p + 88) != 0;
		int bad = p[GT_DELTA_UNIT_MAX] || !r->unit[0] || !(r->q >= 0) || !isfinite(r->q)
			|| r->last > v || gt_le_get64(p + 88) > 1 || unit_find(o, r->unit) != r;
		for (int b = 0; b < SKETCH && !bad; b++) {
			r->sk[b] = gt_le_getf(p + 96 + 4 * b);
			bad = !isfinite(r->sk[b]);
		}
		if (bad) {
			rc = gt_error_set(e, GT_EFORMAT, -1, (long)(p - b), "%s: bad unit record %llu",
				path, (unsigned long long)j);
			goto out;
		}
	}
out:
	close(fd);
	free(b);
	if (rc) {
		gt_outer_free(o);
		return rc;
	}
	*out = o;
	return 0;
}
