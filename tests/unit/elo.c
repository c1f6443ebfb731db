/* elo: match statistics against the vectors of shared/cases/elo-vectors.tsv
 * (copied below, one block per row) and against closed forms computed here
 * independently (exact Bernoulli SPRT, Wilson's interval, Phi). The vectors
 * give elo to 2 decimals, so it is checked to 0.006. Their CI columns are
 * the normal interval s +- 1.96 sqrt(v/n); gt's is the score interval
 * (gt_elo_score_ci), which agrees with them to a fraction of an Elo where
 * the normal approximation holds (rows 1, 3) and departs from them near a
 * score of 0 or 1, where the normal interval is too narrow (row 4): those
 * rows are checked against the closed forms and against tests/elo_ci.py,
 * an independent computation (golden-section search of the dual), whose
 * outputs are quoted as "elo_ci.py COUNTS: lo hi". */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "elo.h"
#include "tap.h"

static const gt_elo_sprt SPRT35 = { 0, 35, 0.05, 0.05 };
static const gt_elo_sprt SPRT5 = { 0, 5, 0.05, 0.05 };

static int all_finite(const gt_elo_result *r)
{
	return isfinite(r->score) && isfinite(r->elo) && isfinite(r->ci_lo) &&
	       isfinite(r->ci_hi) && isfinite(r->los) && isfinite(r->llr);
}

/* The JSON line as text, for checks of nulls and fields. */
static char *dump(const gt_elo_result *r)
{
	json_t *o = gt_elo_json(r);
	char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(10));
	json_decref(o);
	return s;
}

static double jnum(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

#define Z2 (GT_ELO_Z95 * GT_ELO_Z95) /* 3.8414588206941254 */

/* Wilson's score interval of x successes in n trials (Wilson 1927):
 * (p + z^2/2n +- z sqrt(p (1-p)/n + z^2/4n^2)) / (1 + z^2/n), p = x/n. */
static void wilson(double x, double n, double *lo, double *hi)
{
	double p = x / n, c = Z2 / n;
	double mid = (p + c / 2) / (1 + c);
	double h = GT_ELO_Z95 / (1 + c) * sqrt(p * (1 - p) / n + Z2 / (4 * n * n));
	*lo = mid - h;
	*hi = mid + h;
}

/* Exact SPRT log-likelihood ratio of a match without draws: each game a
 * Bernoulli trial with win probability s. */
static double bernoulli_llr(long w, long l, double s0, double s1)
{
	return w * log(s1 / s0) + l * log((1 - s1) / (1 - s0));
}

int main(void)
{
	gt_elo_result r;
	gt_error err;
	double bound = log(0.95 / 0.05); /* 2.944 */

	/* Formula sanity: E is the inverse of the logistic expectation. */
	is_dbl(gt_elo_from_score(0.5), 0, 1e-12, "E(0.5) = 0");
	is_dbl(gt_elo_from_score(10.0 / 11), 400, 1e-9, "E(10/11) = 400 (odds 10:1)");
	is_dbl(gt_elo_to_score(gt_elo_from_score(0.3)), 0.3, 1e-12, "to_score inverts from_score");
	ok(isinf(gt_elo_from_score(1)) && gt_elo_from_score(1) > 0, "E(1) = +inf");
	ok(isinf(gt_elo_from_score(0)) && gt_elo_from_score(0) < 0, "E(0) = -inf");
	is_dbl(gt_elo_los(10, 10), 0.5, 1e-12, "LOS of an even match is 0.5");
	/* Phi(1) = 0.841344746 (tables) for w - l = sqrt(w + l): 5 wins, 0 losses
	 * gives 5/sqrt(5) = sqrt 5: Phi(2.2360680) = 0.987326. */
	is_dbl(gt_elo_los(5, 0), 0.9873263406, 1e-9, "LOS(5-0) = Phi(sqrt 5)");
	is_dbl(gt_elo_los(13, 12), 0.5 * erfc(-(1 / 5.0) / sqrt(2)), 1e-12, "LOS(13-12) = Phi(1/5)");

	/* Row 1: 220-0-180: +34.86 [0.87, 69.53] (normal); SPRT [0,35] LLR
	 * about 2.0, continue. Exact Bernoulli LLR (no draws) = 2.0036. No
	 * draws: the score interval is Wilson's for 220 of 400, (0.55 +
	 * 0.0048018 +- 1.959964 sqrt(0.00061875 + 0.0000060)) / 1.0096036 =
	 * [0.5010010, 0.5980478] = [+0.70, +69.02]. */
	ok(gt_elo_trinomial(220, 0, 180, &SPRT35, &r, &err) == 0, "220-0-180 rated");
	is_dbl(r.score, 0.55, 1e-12, "220-0-180 score");
	is_dbl(r.elo, 34.86, 0.006, "220-0-180 elo");
	{
		double lo, hi;
		wilson(220, 400, &lo, &hi);
		is_dbl(r.ci_lo, gt_elo_from_score(lo), 1e-6, "220-0-180 ci low = Wilson");
		is_dbl(r.ci_hi, gt_elo_from_score(hi), 1e-6, "220-0-180 ci high = Wilson");
	}
	is_dbl(r.ci_lo, 0.70, 0.006, "220-0-180 ci low +0.70");
	is_dbl(r.ci_hi, 69.02, 0.006, "220-0-180 ci high +69.02");
	ok(fabs(r.ci_lo - 0.87) < 0.6 && fabs(r.ci_hi - 69.53) < 0.6,
	   "220-0-180 within 0.6 of the normal interval [0.87, 69.53]");
	is_dbl(r.llr, 2.0, 0.05, "220-0-180 llr about 2.0");
	is_dbl(r.llr, bernoulli_llr(220, 180, 0.5, gt_elo_to_score(35)), 0.01,
	       "220-0-180 llr = exact Bernoulli SPRT (no draws)");
	is_dbl(r.llr_lower, -bound, 1e-12, "lower bound log(beta/(1-alpha))");
	is_dbl(r.llr_upper, bound, 1e-12, "upper bound log((1-beta)/alpha)");
	is_int(r.sprt_result, GT_SPRT_CONTINUE, "220-0-180 continues");
	is_int(r.flags, 0, "220-0-180 no flags");
	is_dbl(r.los, 0.5 * erfc(-(40 / sqrt(400)) / sqrt(2)), 1e-12, "220-0-180 LOS = Phi(2)");

	/* Row 2: 55-0-45: same rate, wider interval: Wilson's for 55 of 100,
	 * [0.4524460, 0.6438546] = [-33.14, +102.86] (normal: [-33.11,
	 * +105.64]; the score interval leans toward 0.5). */
	ok(gt_elo_trinomial(55, 0, 45, NULL, &r, &err) == 0, "55-0-45 rated");
	is_dbl(r.elo, 34.86, 0.006, "55-0-45 elo");
	{
		double lo, hi;
		wilson(55, 100, &lo, &hi);
		is_dbl(r.ci_lo, gt_elo_from_score(lo), 1e-6, "55-0-45 ci low = Wilson");
		is_dbl(r.ci_hi, gt_elo_from_score(hi), 1e-6, "55-0-45 ci high = Wilson");
	}
	is_dbl(r.ci_lo, -33.14, 0.006, "55-0-45 ci low -33.14");
	is_dbl(r.ci_hi, 102.86, 0.006, "55-0-45 ci high +102.86");
	ok(!r.has_sprt, "no SPRT asked, none given");

	/* Row 3: 880-1863-759: +12.01 [4.14, 19.89]; SPRT [0,5] LLR about 2.95,
	 * accept H1 (BayesElo's 2.27 is another model). 3502 games: the score
	 * interval is the normal one to 0.01 (elo_ci.py 759 1863 880:
	 * 4.1363 19.8832). */
	ok(gt_elo_trinomial(880, 1863, 759, &SPRT5, &r, &err) == 0, "880-1863-759 rated");
	is_dbl(r.elo, 12.01, 0.006, "880-1863-759 elo");
	is_dbl(r.ci_lo, 4.1363, 0.0006, "880-1863-759 ci low");
	is_dbl(r.ci_hi, 19.8832, 0.0006, "880-1863-759 ci high");
	is_dbl(r.ci_lo, 4.14, 0.01, "880-1863-759 ci low within 0.01 of the vector");
	is_dbl(r.ci_hi, 19.89, 0.01, "880-1863-759 ci high within 0.01 of the vector");
	is_dbl((r.ci_hi - r.ci_lo) / 2, 7.87, 0.01, "880-1863-759 half-width about 7.87");
	is_dbl(r.llr, 2.95, 0.02, "880-1863-759 llr about 2.95");
	{
		double a[3] = { 0, 0.5, 1 };
		long c[3] = { 759, 1863, 880 };
		double ap = gt_elo_llr_approx(a, c, 3, 0.5, gt_elo_to_score(5));
		is_dbl(ap, r.llr, 0.01 * r.llr, "variance approximation within 1%% of the MLE LLR");
	}
	is_int(r.sprt_result, GT_SPRT_H1, "880-1863-759 accepts H1");

	/* Row 4: 18-1-1: 436.43, never nan. The normal interval, 0.925 +-
	 * 1.96 sqrt(0.0568750/20) = [0.8205, 1.0295] = [+263.98, unbounded],
	 * claims more than 20 games can show: it puts the lower end above the
	 * one a 20-0-0 match gets (Wilson: 20/(20 + z^2) = 0.8389, +286.6,
	 * while 19-0-1 would get +307). The score interval is finite at both
	 * ends (elo_ci.py 1 1 18: 183.2986 671.5274). */
	ok(gt_elo_trinomial(18, 1, 1, &SPRT35, &r, &err) == 0, "18-1-1 rated");
	is_dbl(r.elo, 436.43, 0.006, "18-1-1 elo");
	is_dbl(r.ci_lo, 183.2986, 0.0006, "18-1-1 ci low");
	is_dbl(r.ci_hi, 671.5274, 0.0006, "18-1-1 ci high, finite: a loss and a draw were seen");
	ok(!(r.flags & (GT_ELO_F_LO_UNBOUNDED | GT_ELO_F_HI_UNBOUNDED)), "18-1-1 no end unbounded");
	ok(!(r.flags & GT_ELO_F_INF), "18-1-1 elo itself finite");
	ok(all_finite(&r), "18-1-1 no nan or inf anywhere");
	{
		gt_elo_result w;
		gt_elo_trinomial(20, 0, 0, NULL, &w, &err);
		ok(w.ci_lo > r.ci_lo, "20-0-0's lower end (%g) above 18-1-1's (%g)", w.ci_lo, r.ci_lo);
		is_dbl(w.ci_lo, gt_elo_from_score(20 / (20 + Z2)), 1e-6, "20-0-0 ci low 20/(20 + z^2)");
	}
	{
		char *s = dump(&r);
		ok(strstr(s, "\"elo_ci95\":[183.3,671.53]") != NULL, "18-1-1 JSON ci [183.3,671.53]: %s", s);
		ok(strstr(s, "nan") == NULL && strstr(s, "inf") == NULL, "18-1-1 JSON has no nan/inf");
		free(s);
	}

	/* Row 5: 100-0-0: elo +inf flagged, finite lower bound, SPRT accepts H1. */
	ok(gt_elo_trinomial(100, 0, 0, &SPRT35, &r, &err) == 0, "100-0-0 rated");
	ok(r.flags & GT_ELO_F_INF, "100-0-0 elo flagged infinite");
	is_dbl(r.elo, GT_ELO_CLAMP, 0, "100-0-0 elo holds +clamp");
	/* Wilson at 100 of 100: 100 / (100 + z^2) = 0.9630065: +566.20 */
	is_dbl(r.ci_lo, gt_elo_from_score(100 / (100 + Z2)), 1e-6, "100-0-0 ci low 100/(100 + z^2)");
	is_dbl(r.ci_lo, 566.20, 0.006, "100-0-0 ci low +566.20");
	ok(r.flags & GT_ELO_F_HI_UNBOUNDED, "100-0-0 ci high unbounded");
	ok(!(r.flags & GT_ELO_F_LO_UNBOUNDED), "100-0-0 ci low bounded");
	is_int(r.sprt_result, GT_SPRT_H1, "100-0-0 accepts H1");
	ok(all_finite(&r), "100-0-0 no nan or inf anywhere");
	{
		char *s = dump(&r);
		json_t *o = json_loads(s, 0, NULL);
		ok(o && json_is_null(json_object_get(o, "elo")), "100-0-0 JSON elo null");
		ok(o && strstr(s, "every game won") != NULL, "100-0-0 JSON note says so: %s", s);
		json_decref(o);
		free(s);
	}

	/* Row 6: 0-40-0: elo 0, finite CI, distinguishable, no release. */
	ok(gt_elo_trinomial(0, 40, 0, &SPRT35, &r, &err) == 0, "0-40-0 rated");
	is_dbl(r.elo, 0, 1e-12, "0-40-0 elo 0");
	ok(r.flags & GT_ELO_F_NO_DECISIVE, "0-40-0 flagged no decisive game");
	/* every observation 1/2: hi = 1 - (1/2) / (1 + z^2/40) = 0.5438083,
	 * +30.52 (the most likely score distribution of mean s > 1/2 puts
	 * the missing mass on wins, variance (s - 1/2)(1 - s)) */
	is_dbl(r.ci_hi, gt_elo_from_score(1 - 0.5 / (1 + Z2 / 40)), 1e-6,
	       "0-40-0 ci high 1 - (1/2)/(1 + z^2/n)");
	is_dbl(r.ci_hi, 30.52, 0.006, "0-40-0 ci high +30.52");
	is_dbl(r.ci_lo, -r.ci_hi, 1e-9, "0-40-0 ci symmetric");
	ok(r.ci_hi > 25 && r.ci_hi < 35, "0-40-0 ci about +-30.7 (%g), not zero width", r.ci_hi);
	is_dbl(r.los, 0.5, 0, "0-40-0 LOS 0.5");
	ok(r.sprt_result != GT_SPRT_H1, "0-40-0 never accepts H1");
	ok(all_finite(&r), "0-40-0 no nan or inf");
	{
		char *s = dump(&r);
		json_t *o = json_loads(s, 0, NULL);
		is_dbl(jnum(o, "decisive"), 0, 0, "0-40-0 JSON decisive 0");
		ok(strstr(s, "every game drawn") != NULL, "0-40-0 JSON note: %s", s);
		json_decref(o);
		free(s);
	}
	/* The variance approximation collapses here; the MLE LLR does not:
	 * forty draws say about 40 log(0.9) = -4.2 (a draw-only H1 needs ~10%
	 * wins to reach 55%), not thousands. */
	ok(r.llr < -2 && r.llr > -10, "0-40-0 llr moderate (%g)", r.llr);

	/* Row 7: 0-0-0: a clear error, no division by zero. */
	err.text[0] = 0;
	is_int(gt_elo_trinomial(0, 0, 0, &SPRT35, &r, &err), GT_EINVAL, "0-0-0 is an error");
	ok(strstr(err.text, "no games") != NULL, "0-0-0 says 'no games' (%s)", err.text);
	is_int(gt_elo_trinomial(-1, 3, 0, NULL, &r, &err), GT_EINVAL, "negative count is an error");
	{
		gt_elo_sprt bad = { 5, 0, 0.05, 0.05 };
		is_int(gt_elo_trinomial(1, 1, 1, &bad, &r, &err), GT_EINVAL, "elo0 >= elo1 is an error");
		gt_elo_sprt bad2 = { 0, 5, 0, 0.05 };
		is_int(gt_elo_trinomial(1, 1, 1, &bad2, &r, &err), GT_EINVAL, "alpha 0 is an error");
	}

	/* Sequential: a 100-0 match fed one game at a time. The exact
	 * Bernoulli SPRT needs ceil(2.944 / log(0.5502/0.5)) = 31 wins; the
	 * regularized MLE stops within a few games of that, never after 1. */
	{
		int stop = 0;
		for (int n = 1; n <= 100 && !stop; n++) {
			gt_elo_trinomial(n, 0, 0, &SPRT35, &r, &err);
			if (!all_finite(&r))
				break;
			if (r.sprt_result == GT_SPRT_H1)
				stop = n;
			else if (r.sprt_result == GT_SPRT_H0)
				break;
		}
		int exact = (int)ceil(bound / log(gt_elo_to_score(35) / 0.5));
		diag("100-0 fed sequentially accepts H1 after %d games (exact Bernoulli: %d)", stop, exact);
		is_int(exact, 31, "exact Bernoulli SPRT stops at 31 wins");
		ok(stop >= 25 && stop <= 31, "sequential 100-0 accepts H1 after %d games", stop);
	}
	/* Zero draws: the LLR equals the exact Bernoulli SPRT for any mix. */
	{
		long w[] = { 3, 30, 60, 510 }, l[] = { 1, 25, 40, 490 };
		for (int i = 0; i < 4; i++) {
			gt_elo_trinomial(w[i], 0, l[i], &SPRT35, &r, &err);
			is_dbl(r.llr, bernoulli_llr(w[i], l[i], 0.5, gt_elo_to_score(35)),
			       0.002 * (w[i] + l[i]) + 0.01,
			       "%ld-0-%ld llr = exact Bernoulli (%g)", w[i], l[i], r.llr);
		}
		/* and a sequential 0-draw match with a 60% winner decides */
		int decided = 0;
		for (long n = 1; n <= 2000 && !decided; n++) {
			long wins = (n * 3) / 5;
			gt_elo_trinomial(wins, 0, n - wins, &SPRT35, &r, &err);
			decided = r.sprt_result;
			if (!all_finite(&r))
				break;
		}
		is_int(decided, GT_SPRT_H1, "zero-draw 60%% match accepts H1 (llr %g)", r.llr);
		ok(r.games < 2000, "... after %ld games", r.games);
	}
	/* All losses: symmetric to all wins. */
	ok(gt_elo_trinomial(0, 0, 50, &SPRT35, &r, &err) == 0, "0-0-50 rated");
	ok((r.flags & GT_ELO_F_INF) && r.elo == -GT_ELO_CLAMP, "0-0-50 elo -inf flagged");
	ok(r.flags & GT_ELO_F_LO_UNBOUNDED, "0-0-50 ci low unbounded");
	is_dbl(r.ci_hi, -gt_elo_from_score(50 / (50 + Z2)), 1e-6, "0-0-50 ci high -E(50/(50 + z^2))");
	is_int(r.sprt_result, GT_SPRT_H0, "0-0-50 accepts H0");

	/* Pentanomial: pairs. 100 pairs: 10 LL, 20 LD, 40 even, 20 DW, 10 WW.
	 * Per-game values 0, .25, .5, .75, 1: mean 0.5, variance
	 * (10*.25+20*.0625+0+20*.0625+10*.25)/100 = 0.075; normal CI 0.5 +-
	 * 1.96 sqrt(0.075/100) = 0.5 +- 0.053676 = +-37.44 Elo; the score
	 * interval is a little wider (elo_ci.py 10 20 40 20 10: -37.7855
	 * 37.7855). */
	{
		long p[5] = { 10, 20, 40, 20, 10 };
		/* games: 40 even pairs as 20 LW + 20 DD: wins 20+20+20 = 60? count:
		 * LL 10 -> 20 losses; LD 20 -> 20 losses, 20 draws; LW 20 -> 20 w,
		 * 20 l; DD 20 -> 40 draws; DW 20 -> 20 draws 20 wins; WW -> 20 w */
		ok(gt_elo_pentanomial(p, 60, 80, 60, &SPRT35, &r, &err) == 0, "pentanomial rated");
		is_int(r.games, 200, "pentanomial games = 2 pairs");
		is_dbl(r.elo, 0, 1e-9, "pentanomial even match elo 0");
		is_dbl(r.ci_hi, 37.7855, 0.0006, "pentanomial ci high");
		is_dbl(r.ci_lo, -r.ci_hi, 1e-6, "pentanomial ci symmetric");
		is_dbl(r.ci_hi, gt_elo_from_score(0.5 + GT_ELO_Z95 * sqrt(0.075 / 100)), 0.5,
		       "pentanomial ci within 0.5 of the normal interval's 37.44");
		/* the same games as independent: per-game variance 0.15 over 200
		 * games, the same 7.5e-4 as the pairs' 0.075 over 100 (these pairs
		 * are uncorrelated): about the same interval (elo_ci.py 60 80 60:
		 * -37.3189 37.3189) */
		gt_elo_result t;
		gt_elo_trinomial(60, 80, 60, &SPRT35, &t, &err);
		is_dbl(t.ci_hi, 37.3189, 0.0006, "trinomial of the same games");
		is_dbl(r.ci_hi, t.ci_hi, 0.5, "uncorrelated pairs: about the trinomial's CI");
		ok(r.llr < 0, "pentanomial even match llr < 0 (%g)", r.llr);
		char *s = dump(&r);
		ok(strstr(s, "\"pentanomial\":[10,20,40,20,10]") && strstr(s, "\"pairs\":100"), "pentanomial JSON: %s", s);
		free(s);
		/* A strong result: 2 LL, 5 LD, 30 even, 40 DW, 23 WW (pair score
		 * mean (0*2+.25*5+.5*30+.75*40+23)/100 = 0.6925). */
		long q[5] = { 2, 5, 30, 40, 23 };
		/* games: LL 2 -> 4 l; LD 5 -> 5 l 5 d; even 30 as DD -> 60 d;
		 * DW 40 -> 40 d 40 w; WW 23 -> 46 w: 86-105-9, 2w+d = 277 = sum k q[k] */
		ok(gt_elo_pentanomial(q, 86, 110, 9, &SPRT35, &r, &err) != 0, "inconsistent pair/game counts rejected");
		ok(gt_elo_pentanomial(q, 86, 105, 9, &SPRT35, &r, &err) == 0, "pentanomial 86-105-9 rated");
		is_dbl(r.score, 0.6925, 1e-12, "pentanomial score");
		is_int(r.sprt_result, GT_SPRT_H1, "pentanomial strong result accepts H1 (llr %g)", r.llr);
		long z[5] = { 0, 0, 0, 0, 0 };
		is_int(gt_elo_pentanomial(z, 0, 0, 0, NULL, &r, &err), GT_EINVAL, "no pairs is an error");

		/* the summary line: the players first, then gt_elo_json's keys */
		gt_elo_pentanomial(q, 86, 105, 9, &SPRT35, &r, &err);
		const char *head = "{\"a\":\"cand\",\"b\":\"cur\",\"games\":200,\"wins\":86,";
		char *sum = gt_elo_summary("cand", "cur", &r);
		ok(sum && !strncmp(sum, head, strlen(head)) &&
		   strstr(sum, "\"score\":0.6925") && !strchr(sum, '\n'), "summary line: %s", sum);
		free(sum);
	}

	/* One-sided matches in 5 pairs (issue 30): the interval must stay
	 * honest when every pair has the same outcome. With every pair scoring
	 * x the most likely distribution of mean s < x puts the missing mass
	 * on pairs lost twice (variance s (x - s)), and (x - s)^2 = (z^2/5)
	 * s (x - s) gives s = x / (1 + z^2/5) = x / 1.7682918. */
	{
		long won[5] = { 0, 0, 0, 0, 5 }, lost[5] = { 5, 0, 0, 0, 0 }, drawn[5] = { 0, 0, 5, 0, 0 };
		/* 10-0: s >= 1/1.7682918 = 0.5655175, +45.79 (the old exact
		 * bound, 0.025^(1/5) = 0.478, said -15.17) */
		ok(gt_elo_pentanomial(won, 10, 0, 0, NULL, &r, &err) == 0, "10-0 in 5 pairs rated");
		is_dbl(r.ci_lo, gt_elo_from_score(5 / (5 + Z2)), 1e-6, "10-0 ci low E(5/(5 + z^2))");
		is_dbl(r.ci_lo, 45.79, 0.006, "10-0 ci low +45.79, clearly above 0");
		ok((r.flags & GT_ELO_F_HI_UNBOUNDED) && (r.flags & GT_ELO_F_INF), "10-0 ci high and elo unbounded");
		char *s = dump(&r);
		ok(strstr(s, "\"elo\":null") && strstr(s, "\"elo_ci95\":[45.79,null]") != NULL, "10-0 JSON: %s", s);
		free(s);
		/* 0-10: the mirror image, s <= 1 - 0.5655175, -45.79 */
		ok(gt_elo_pentanomial(lost, 0, 0, 10, NULL, &r, &err) == 0, "0-10 in 5 pairs rated");
		is_dbl(r.ci_hi, -45.79, 0.006, "0-10 ci high -45.79");
		is_dbl(r.ci_hi, -gt_elo_from_score(5 / (5 + Z2)), 1e-6, "0-10 ci high -E(5/(5 + z^2))");
		ok(r.flags & GT_ELO_F_LO_UNBOUNDED, "0-10 ci low unbounded");
		s = dump(&r);
		ok(strstr(s, "\"elo_ci95\":[null,-45.79]") != NULL, "0-10 JSON: %s", s);
		free(s);
		/* ten draws: 0.5 / 1.7682918 = 0.2827588: +-161.70 */
		ok(gt_elo_pentanomial(drawn, 0, 10, 0, NULL, &r, &err) == 0, "0-10-0 in 5 pairs rated");
		is_dbl(r.ci_lo, gt_elo_from_score(0.5 / (1 + Z2 / 5)), 1e-6, "all draws ci low E(0.5/(1 + z^2/5))");
		is_dbl(r.ci_lo, -161.70, 0.006, "all draws ci low -161.70");
		is_dbl(r.ci_hi, -r.ci_lo, 1e-6, "all draws ci symmetric");
		ok(!(r.flags & (GT_ELO_F_LO_UNBOUNDED | GT_ELO_F_HI_UNBOUNDED)), "all draws ci bounded");

		/* 6-4, three pairs won twice and two lost twice: pair scores 0 or 1,
		 * so Wilson's interval for 3 of 5: (0.6 + 0.3841459 +- 1.959964
		 * sqrt(0.048 + 0.0384146)) / 1.7682918 = [0.2307243, 0.8823792] =
		 * [-209.20, +350.07] */
		long split[5] = { 2, 0, 0, 0, 3 };
		double wlo, whi;
		wilson(3, 5, &wlo, &whi);
		ok(gt_elo_pentanomial(split, 6, 0, 4, NULL, &r, &err) == 0, "6-4 as 3 WW + 2 LL rated");
		is_dbl(r.ci_lo, gt_elo_from_score(wlo), 1e-6, "6-4 (WW, LL) ci low = Wilson 3 of 5");
		is_dbl(r.ci_hi, gt_elo_from_score(whi), 1e-6, "6-4 (WW, LL) ci high = Wilson 3 of 5");
		is_dbl(r.ci_lo, -209.20, 0.006, "6-4 (WW, LL) ci low -209.20");
		is_dbl(r.ci_hi, 350.07, 0.006, "6-4 (WW, LL) ci high +350.07");
		/* 6-4, four pairs split and one won twice: pair scores 1/2 (4) and
		 * 1 (1), m = 0.6. Below m: at s < 0.6/1.7682918 = 0.3393105 the
		 * two values cannot carry the mean (s (0.8/0.5 + 0.2/1) < 1), the
		 * missing mass is on 0, V = s (m - s), the end s = m/(1 + z^2/5) =
		 * 0.3393105, -115.76. Above m: mass moves between 1/2 and 1 only,
		 * V = (s - 1/2)(1 - s), (s - 0.6)^2 = 0.7682918 (s - 1/2)(1 - s):
		 * 1.7682918 s^2 - 2.3524377 s + 0.7441459 = 0, s = 0.8122327,
		 * +254.42. (The normal interval, 0.6 +- 1.96 sqrt(0.04/5) =
		 * [0.4247, 0.7753], says [-52.73, +215.15].) */
		long even[5] = { 0, 0, 4, 0, 1 };
		ok(gt_elo_pentanomial(even, 6, 0, 4, NULL, &r, &err) == 0, "6-4 as 4 split + 1 WW rated");
		is_dbl(r.ci_lo, gt_elo_from_score(0.6 / (1 + Z2 / 5)), 1e-6, "6-4 (split) ci low E(m/(1 + z^2/5))");
		{
			double A = 1 + Z2 / 5, B = 1.2 + 1.5 * Z2 / 5, C = 0.36 + 0.5 * Z2 / 5;
			double hi = (B + sqrt(B * B - 4 * A * C)) / (2 * A);
			is_dbl(r.ci_hi, gt_elo_from_score(hi), 1e-6, "6-4 (split) ci high from the quadratic");
		}
		is_dbl(r.ci_lo, -115.76, 0.006, "6-4 (split) ci low -115.76");
		is_dbl(r.ci_hi, 254.42, 0.006, "6-4 (split) ci high +254.42");

		/* 124-13-63 in 100 pairs (results/9x9-from-zero/gnugo/
		 * gen0030-final-200.json): pentanomial 7, 6, 43, 7, 37, m = 0.6525,
		 * v = 0.0948688; normal 0.6525 +- 0.0603684 = [+64.76, +157.97];
		 * elo_ci.py 7 6 43 7 37: 63.1648 156.3579. */
		long gnugo[5] = { 7, 6, 43, 7, 37 };
		ok(gt_elo_pentanomial(gnugo, 124, 13, 63, NULL, &r, &err) == 0, "124-13-63 rated");
		is_dbl(r.elo, 109.45, 0.006, "124-13-63 elo +109.45");
		is_dbl(r.ci_lo, 63.1648, 0.0006, "124-13-63 ci low");
		is_dbl(r.ci_hi, 156.3579, 0.0006, "124-13-63 ci high");
		ok(fabs(r.ci_lo - 64.76) < 2 && fabs(r.ci_hi - 157.97) < 2,
		   "124-13-63 within 2 Elo of the normal interval");
	}
	/* Monotone in the games: over all 126 pentanomials of 5 pairs, one
	 * pair scoring half a point more never lowers either end, and every
	 * interval holds its score. The normal interval fails this: 9-1 (one
	 * pair 1.5, four 2) got a lower end of +318.8, above 10-0's. */
	{
		int bad = 0, held = 1;
		long p[5];
		for (p[0] = 0; p[0] <= 5; p[0]++)
			for (p[1] = 0; p[0] + p[1] <= 5; p[1]++)
				for (p[2] = 0; p[0] + p[1] + p[2] <= 5; p[2]++)
					for (p[3] = 0; p[0] + p[1] + p[2] + p[3] <= 5; p[3]++) {
						double a[5] = { 0, .25, .5, .75, 1 }, lo, hi;
						p[4] = 5 - p[0] - p[1] - p[2] - p[3];
						gt_elo_score_ci(a, p, 5, GT_ELO_Z95, &lo, &hi);
						double m = (p[1] * .25 + p[2] * .5 + p[3] * .75 + p[4]) / 5;
						held &= lo <= m + 1e-12 && m <= hi + 1e-12 && lo >= 0 && hi <= 1;
						for (int j = 0; j < 4; j++) {
							if (!p[j])
								continue;
							long u[5];
							double ulo, uhi;
							memcpy(u, p, sizeof u);
							u[j]--, u[j + 1]++;
							gt_elo_score_ci(a, u, 5, GT_ELO_Z95, &ulo, &uhi);
							bad += ulo < lo - 1e-9 || uhi < hi - 1e-9;
						}
					}
		is_int(bad, 0, "5 pairs: a better result never lowers an end");
		ok(held, "5 pairs: lo <= score <= hi, within [0, 1]");
	}
	{
		double a[2] = { 0, 1 }, lo = -1, hi = -1;
		long none[2] = { 0, 0 };
		gt_elo_score_ci(a, none, 2, GT_ELO_Z95, &lo, &hi);
		ok(lo == 0 && hi == 1, "nothing counted: [0, 1]");
		gt_elo_score_ci(a, none, 9, GT_ELO_Z95, &lo, &hi);
		ok(lo == 0 && hi == 1, "k out of range: [0, 1]");
	}

	/* --sprt's text */
	gt_elo_sprt sp = { 0, 0, 0, 0 };
	is_int(gt_elo_sprt_parse("-10,25.5", &sp), 0, "ELO0,ELO1");
	ok(sp.elo0 == -10 && sp.elo1 == 25.5 && sp.alpha == 0.05 && sp.beta == 0.05,
	   "alpha and beta 0.05 when left out");
	is_int(gt_elo_sprt_parse("0,5,0.1,0.5", &sp), 0, "ELO0,ELO1,ALPHA,BETA");
	ok(sp.elo0 == 0 && sp.elo1 == 5 && sp.alpha == 0.1 && sp.beta == 0.5, "all four taken");
	const char *syntax[] = { "", "5", "1,2,3", "1,2,3,4,5", "1,,2", "1,2,", "x,2", "1,inf",
	                         "1;2", "1,2 " };
	for (size_t i = 0; i < sizeof syntax / sizeof *syntax; i++)
		is_int(gt_elo_sprt_parse(syntax[i], &sp), GT_EFORMAT, "'%s' is no SPRT", syntax[i]);
	const char *range[] = { "5,5", "10,-10", "0,5,0,0.05", "0,5,0.05,0.6" };
	for (size_t i = 0; i < sizeof range / sizeof *range; i++)
		is_int(gt_elo_sprt_parse(range[i], &sp), GT_EINVAL, "'%s' out of range", range[i]);
	ok(sp.elo0 == 0 && sp.elo1 == 5 && sp.alpha == 0.1, "left unchanged by errors");
	return done_testing();
}
