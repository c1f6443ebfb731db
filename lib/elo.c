/* elo.c: logistic Elo, confidence intervals, LOS and the GSPRT (elo.h). */
#include "elo.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REG_EPS 1e-3 /* fishtest's regularize(): a zero count becomes this */

double gt_elo_from_score(double s)
{
	if (isnan(s))
		s = 0.5;
	if (s <= 0)
		return -INFINITY;
	if (s >= 1)
		return INFINITY;
	return -400.0 * log10(1.0 / s - 1.0);
}

double gt_elo_to_score(double elo)
{
	return 1.0 / (1.0 + pow(10.0, -elo / 400.0));
}

static double phi(double x)
{
	return 0.5 * erfc(-x / sqrt(2.0));
}

double gt_elo_los(long wins, long losses)
{
	if (wins + losses <= 0)
		return 0.5;
	return phi((double)(wins - losses) / sqrt((double)(wins + losses)));
}

/* Regularized frequencies q (summing to 1) and their total n; 0 (q
 * unset) when k is not 2..8 or no outcome was counted. */
static double regularize(const long *count, int k, double *q)
{
	long total = 0;
	if (k < 2 || k > 8)
		return 0;
	for (int i = 0; i < k; i++)
		total += count[i] > 0 ? count[i] : 0;
	if (total == 0)
		return 0;
	double n = 0;
	for (int i = 0; i < k; i++) {
		q[i] = count[i] > 0 ? (double)count[i] : REG_EPS;
		n += q[i];
	}
	for (int i = 0; i < k; i++)
		q[i] /= n;
	return n;
}

/* The Lagrange multiplier t of the distribution closest (in likelihood) to
 * q with mean s: root of f(t) = sum q_i d_i / (1 + t d_i), d_i = a_i - s,
 * on (-1/(a_max - s), 1/(s - a_min)), where f falls from +inf to -inf. */
static double mle_t(const double *a, const double *q, int k, double s)
{
	double lo = -1.0 / (a[k - 1] - s), hi = 1.0 / (s - a[0]);
	for (int it = 0; it < 200; it++) {
		double t = 0.5 * (lo + hi), f = 0;
		if (t <= lo || t >= hi)
			break;
		for (int i = 0; i < k; i++)
			f += q[i] * (a[i] - s) / (1 + t * (a[i] - s));
		if (f > 0)
			lo = t;
		else
			hi = t;
	}
	return 0.5 * (lo + hi);
}

/* sum q_i log(p_i / q_i) for the constrained MLE p of mean s: -sum q_i
 * log(1 + t d_i), without normalizing p (it sums to 1 at the root). */
static double mle_loglik(const double *a, const double *q, int k, double s)
{
	double t = mle_t(a, q, k, s), ll = 0;
	for (int i = 0; i < k; i++) {
		double den = 1 + t * (a[i] - s);
		if (den < 1e-300)
			den = 1e-300;
		ll -= q[i] * log(den);
	}
	return ll;
}

double gt_elo_llr(const double *a, const long *count, int k, double s0, double s1)
{
	double q[8], n;
	if (!(s0 > 0 && s0 < 1 && s1 > 0 && s1 < 1) || s0 == s1 || !(n = regularize(count, k, q)))
		return 0;
	double llr = n * (mle_loglik(a, q, k, s1) - mle_loglik(a, q, k, s0));
	return isfinite(llr) ? llr : 0;
}

double gt_elo_llr_approx(const double *a, const long *count, int k, double s0, double s1)
{
	double q[8], m = 0, v = 0, n = regularize(count, k, q);
	if (!n)
		return 0;
	for (int i = 0; i < k; i++)
		m += q[i] * a[i];
	for (int i = 0; i < k; i++)
		v += q[i] * (a[i] - m) * (a[i] - m);
	if (!(v > 0))
		return 0;
	return n * (s1 - s0) * (2 * m - s0 - s1) / (2 * v);
}

/* The variance of the most likely distribution on the values a (k of
 * them, ascending, a[0] = 0) with mean s, for observed frequencies q of
 * mean m > s; a value not observed may get mass. Maximizing sum q_i log
 * p_i under sum p_i = 1 and sum p_i a_i = s gives, over the observed
 * values, p_i = q_i / (1 + t (a_i - s)) (Van den Bergh, Proposition 1.1)
 * with t at most 1/s, where the value 0 would take mass. When the
 * observed values cannot carry mean s (their mass at t = 1/s, s sum
 * q_i / a_i, is below 1), t = 1/s: p_i = s q_i / a_i, and the rest of the
 * mass sits on 0, the value that lowers the mean most for the least mass;
 * the variance is then sum p_i a_i^2 - s^2 = s (m - s). */
static double var_below(const double *a, const double *q, int k, double m, double s)
{
	double inv = 0, amax = 0;
	for (int i = 0; i < k; i++) {
		if (!(q[i] > 0))
			continue;
		inv = a[i] > 0 && isfinite(inv) ? inv + q[i] / a[i] : INFINITY;
		amax = a[i];
	}
	if (s * inv < 1)
		return s * (m - s);
	double lo = -1.0 / (amax - s), hi = 1.0 / s;
	for (int it = 0; it < 200; it++) {
		double t = 0.5 * (lo + hi), g = 0;
		if (t <= lo || t >= hi)
			break;
		for (int i = 0; i < k; i++)
			if (q[i] > 0)
				g += q[i] * (a[i] - s) / (1 + t * (a[i] - s));
		if (g > 0)
			lo = t;
		else
			hi = t;
	}
	double t = 0.5 * (lo + hi), v = 0;
	for (int i = 0; i < k; i++)
		if (q[i] > 0)
			v += q[i] * (a[i] - s) * (a[i] - s) / (1 + t * (a[i] - s));
	return v;
}

/* The lower end of the score interval (elo.h) of frequencies q of n
 * observations: bisection of f(s) = (m - s)^2 - (z^2/n) V(s) on [0, m],
 * where f(0) = m^2 > 0 and f(m) = -(z^2/n) (variance of q) <= 0. */
static double score_lower(const double *a, const double *q, int k, double n, double z)
{
	double m = 0, c = z * z / n;
	for (int i = 0; i < k; i++)
		m += q[i] * a[i];
	if (!(m > 0))
		return 0;
	double lo = 0, hi = m;
	for (int it = 0; it < 100 && lo < hi; it++) {
		double s = 0.5 * (lo + hi);
		if (s <= lo || s >= hi)
			break;
		if ((m - s) * (m - s) > c * var_below(a, q, k, m, s))
			lo = s;
		else
			hi = s;
	}
	return 0.5 * (lo + hi);
}

void gt_elo_score_ci(const double *a, const long *count, int k, double z, double *lo, double *hi)
{
	double q[8], qr[8], ar[8], n = 0;
	*lo = 0;
	*hi = 1;
	if (k < 2 || k > 8)
		return;
	for (int i = 0; i < k; i++)
		n += count[i] > 0 ? (double)count[i] : 0;
	if (!(n > 0))
		return;
	for (int i = 0; i < k; i++) {
		q[i] = count[i] > 0 ? (double)count[i] / n : 0;
		/* the upper end is the lower end of 1 - score */
		ar[i] = 1 - a[k - 1 - i];
		qr[i] = count[k - 1 - i] > 0 ? (double)count[k - 1 - i] / n : 0;
	}
	*lo = score_lower(a, q, k, n, z);
	*hi = 1 - score_lower(ar, qr, k, n, z);
}

static double clamp_elo(double e)
{
	if (e > GT_ELO_CLAMP)
		return GT_ELO_CLAMP;
	if (e < -GT_ELO_CLAMP)
		return -GT_ELO_CLAMP;
	return e;
}

static int check_sprt(const gt_elo_sprt *p, gt_error *err)
{
	if (!p)
		return 0;
	if (!(p->alpha > 0 && p->alpha <= 0.5 && p->beta > 0 && p->beta <= 0.5))
		return gt_error_set(err, GT_EINVAL, -1, -1,
		                    "sprt alpha and beta must be in (0, 0.5]");
	if (!(p->elo0 < p->elo1) || fabs(p->elo0) > 1000 || fabs(p->elo1) > 1000)
		return gt_error_set(err, GT_EINVAL, -1, -1,
		                    "sprt needs elo0 < elo1, both within +-1000");
	return 0;
}

/* Score, elo, CI and LLR from n observations: value a[i] seen count[i]
 * times. */
static void fill(gt_elo_result *r, const double *a, const long *count, int k,
                 const gt_elo_sprt *sprt)
{
	double n = 0, m = 0;
	for (int i = 0; i < k; i++) {
		n += (double)count[i];
		m += (double)count[i] * a[i];
	}
	m /= n;
	r->score = m;
	r->elo = gt_elo_from_score(m);
	if (!isfinite(r->elo))
		r->flags |= GT_ELO_F_INF;
	r->elo = clamp_elo(r->elo);

	double slo, shi;
	gt_elo_score_ci(a, count, k, GT_ELO_Z95, &slo, &shi);
	r->ci_lo = gt_elo_from_score(slo);
	r->ci_hi = gt_elo_from_score(shi);
	if (!isfinite(r->ci_lo))
		r->flags |= GT_ELO_F_LO_UNBOUNDED;
	if (!isfinite(r->ci_hi))
		r->flags |= GT_ELO_F_HI_UNBOUNDED;
	r->ci_lo = clamp_elo(r->ci_lo);
	r->ci_hi = clamp_elo(r->ci_hi);

	if (sprt) {
		r->has_sprt = 1;
		r->sprt = *sprt;
		r->llr = gt_elo_llr(a, count, k, gt_elo_to_score(sprt->elo0),
		                    gt_elo_to_score(sprt->elo1));
		r->llr_lower = log(sprt->beta / (1 - sprt->alpha));
		r->llr_upper = log((1 - sprt->beta) / sprt->alpha);
		r->sprt_result = r->llr >= r->llr_upper ? GT_SPRT_H1
		               : r->llr <= r->llr_lower ? GT_SPRT_H0 : GT_SPRT_CONTINUE;
	}
}

static int start(long wins, long draws, long losses, const gt_elo_sprt *sprt,
                 gt_elo_result *r, gt_error *err)
{
	memset(r, 0, sizeof *r);
	if (wins < 0 || draws < 0 || losses < 0)
		return gt_error_set(err, GT_EINVAL, -1, -1, "negative game count");
	if (wins + draws + losses == 0)
		return gt_error_set(err, GT_EINVAL, -1, -1, "no games: nothing to rate");
	int rc = check_sprt(sprt, err);
	if (rc)
		return rc;
	r->games = wins + draws + losses;
	r->wins = wins;
	r->draws = draws;
	r->losses = losses;
	r->los = gt_elo_los(wins, losses);
	if (wins + losses == 0)
		r->flags |= GT_ELO_F_NO_DECISIVE;
	return 0;
}

int gt_elo_trinomial(long wins, long draws, long losses, const gt_elo_sprt *sprt,
                     gt_elo_result *r, gt_error *err)
{
	static const double a[3] = { 0, 0.5, 1 };
	int rc = start(wins, draws, losses, sprt, r, err);
	if (rc)
		return rc;
	long count[3] = { losses, draws, wins };
	fill(r, a, count, 3, sprt);
	return 0;
}

int gt_elo_pentanomial(const long penta[5], long wins, long draws, long losses,
                       const gt_elo_sprt *sprt, gt_elo_result *r, gt_error *err)
{
	static const double a[5] = { 0, 0.25, 0.5, 0.75, 1 };
	long pairs = 0, points2 = 0;
	int rc = start(wins, draws, losses, sprt, r, err);
	if (rc)
		return rc;
	for (int k = 0; k < 5; k++) {
		if (penta[k] < 0)
			return gt_error_set(err, GT_EINVAL, -1, -1, "negative pair count");
		pairs += penta[k];
		points2 += k * penta[k];
	}
	if (pairs == 0)
		return gt_error_set(err, GT_EINVAL, -1, -1, "no game pairs: nothing to rate");
	if (r->games != 2 * pairs || points2 != 2 * wins + draws)
		return gt_error_set(err, GT_EINVAL, -1, -1,
		                    "pair counts (%ld pairs, %ld half points) disagree with "
		                    "%ld-%ld-%ld", pairs, points2, wins, draws, losses);
	r->pentanomial = 1;
	r->pairs = pairs;
	memcpy(r->penta, penta, sizeof r->penta);
	fill(r, a, penta, 5, sprt);
	return 0;
}

static json_t *num(double x, double unit)
{
	return json_real(round(x / unit) * unit + 0.0); /* + 0.0: no -0 */
}

json_t *gt_elo_json(const gt_elo_result *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "games", json_integer(r->games));
	json_object_set_new(o, "wins", json_integer(r->wins));
	json_object_set_new(o, "draws", json_integer(r->draws));
	json_object_set_new(o, "losses", json_integer(r->losses));
	json_object_set_new(o, "decisive", json_integer(r->wins + r->losses));
	if (r->pentanomial) {
		json_t *p = json_array();
		for (int k = 0; k < 5; k++)
			json_array_append_new(p, json_integer(r->penta[k]));
		json_object_set_new(o, "pairs", json_integer(r->pairs));
		json_object_set_new(o, "pentanomial", p);
	}
	json_object_set_new(o, "score", num(r->score, 1e-4));
	json_object_set_new(o, "elo", r->flags & GT_ELO_F_INF ? json_null() : num(r->elo, 0.01));
	json_t *ci = json_array();
	json_array_append_new(ci, r->flags & GT_ELO_F_LO_UNBOUNDED ? json_null() : num(r->ci_lo, 0.01));
	json_array_append_new(ci, r->flags & GT_ELO_F_HI_UNBOUNDED ? json_null() : num(r->ci_hi, 0.01));
	json_object_set_new(o, "elo_ci95", ci);
	json_object_set_new(o, "los", num(r->los, 1e-4));
	if (r->has_sprt) {
		static const char *res[] = { "continue", "H0", "H1" };
		json_t *s = json_object();
		json_object_set_new(s, "elo0", json_real(r->sprt.elo0));
		json_object_set_new(s, "elo1", json_real(r->sprt.elo1));
		json_object_set_new(s, "alpha", json_real(r->sprt.alpha));
		json_object_set_new(s, "beta", json_real(r->sprt.beta));
		json_object_set_new(s, "llr", num(r->llr, 1e-4));
		json_object_set_new(s, "lower", num(r->llr_lower, 1e-4));
		json_object_set_new(s, "upper", num(r->llr_upper, 1e-4));
		json_object_set_new(s, "result", json_string(res[r->sprt_result]));
		json_object_set_new(o, "sprt", s);
	}
	const char *note = NULL;
	if (r->flags & GT_ELO_F_NO_DECISIVE)
		note = "every game drawn: no decisive game, no evidence either way";
	else if ((r->flags & GT_ELO_F_INF) && r->score > 0.5)
		note = "every game won: elo is +infinity (null), only a lower bound is known";
	else if (r->flags & GT_ELO_F_INF)
		note = "every game lost: elo is -infinity (null), only an upper bound is known";
	if (note)
		json_object_set_new(o, "note", json_string(note));
	return o;
}

char *gt_elo_summary(const char *a, const char *b, const gt_elo_result *r)
{
	json_t *sum = json_object(), *st = gt_elo_json(r);
	json_object_set_new(sum, "a", json_string(a));
	json_object_set_new(sum, "b", json_string(b));
	const char *key;
	json_t *v;
	json_object_foreach(st, key, v)
		json_object_set(sum, key, v);
	json_decref(st);
	char *s = json_dumps(sum, JSON_COMPACT | JSON_REAL_PRECISION(10));
	json_decref(sum);
	return s;
}

int gt_elo_sprt_parse(const char *s, gt_elo_sprt *sp)
{
	double v[4] = { 0, 0, 0.05, 0.05 };
	int k = 0;
	for (const char *p = s;;) {
		char *end;
		errno = 0;
		if (k == 4)
			return GT_EFORMAT;
		v[k++] = strtod(p, &end);
		if (errno || end == p || !isfinite(v[k - 1]))
			return GT_EFORMAT;
		if (*end == 0)
			break;
		if (*end != ',')
			return GT_EFORMAT;
		p = end + 1;
	}
	if (k != 2 && k != 4)
		return GT_EFORMAT;
	if (!(v[0] < v[1]) || !(v[2] > 0 && v[2] <= 0.5) || !(v[3] > 0 && v[3] <= 0.5))
		return GT_EINVAL;
	sp->elo0 = v[0];
	sp->elo1 = v[1];
	sp->alpha = v[2];
	sp->beta = v[3];
	return 0;
}
