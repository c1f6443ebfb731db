/* elo: match statistics against the vectors of shared/cases/elo-vectors.tsv
 * (copied below, one block per row) and against closed forms computed here
 * independently (exact Bernoulli SPRT, Clopper-Pearson, Phi). The vectors
 * give elo and CI to 2 decimals, so they are checked to 0.006. */
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

	/* Row 1: 220-0-180: +34.86 [0.87, 69.53]; SPRT [0,35] LLR about 2.0,
	 * continue. Exact Bernoulli LLR (no draws) = 2.0036. */
	ok(gt_elo_trinomial(220, 0, 180, &SPRT35, &r, &err) == 0, "220-0-180 rated");
	is_dbl(r.score, 0.55, 1e-12, "220-0-180 score");
	is_dbl(r.elo, 34.86, 0.006, "220-0-180 elo");
	is_dbl(r.ci_lo, 0.87, 0.006, "220-0-180 ci low");
	is_dbl(r.ci_hi, 69.53, 0.006, "220-0-180 ci high");
	is_dbl(r.llr, 2.0, 0.05, "220-0-180 llr about 2.0");
	is_dbl(r.llr, bernoulli_llr(220, 180, 0.5, gt_elo_to_score(35)), 0.01,
	       "220-0-180 llr = exact Bernoulli SPRT (no draws)");
	is_dbl(r.llr_lower, -bound, 1e-12, "lower bound log(beta/(1-alpha))");
	is_dbl(r.llr_upper, bound, 1e-12, "upper bound log((1-beta)/alpha)");
	is_int(r.sprt_result, GT_SPRT_CONTINUE, "220-0-180 continues");
	is_int(r.flags, 0, "220-0-180 no flags");
	is_dbl(r.los, 0.5 * erfc(-(40 / sqrt(400)) / sqrt(2)), 1e-12, "220-0-180 LOS = Phi(2)");

	/* Row 2: 55-0-45: same rate, wider interval. */
	ok(gt_elo_trinomial(55, 0, 45, NULL, &r, &err) == 0, "55-0-45 rated");
	is_dbl(r.elo, 34.86, 0.006, "55-0-45 elo");
	is_dbl(r.ci_lo, -33.11, 0.006, "55-0-45 ci low");
	is_dbl(r.ci_hi, 105.64, 0.006, "55-0-45 ci high");
	ok(!r.has_sprt, "no SPRT asked, none given");

	/* Row 3: 880-1863-759: +12.01 [4.14, 19.89]; SPRT [0,5] LLR about 2.95,
	 * accept H1 (BayesElo's 2.27 is another model). */
	ok(gt_elo_trinomial(880, 1863, 759, &SPRT5, &r, &err) == 0, "880-1863-759 rated");
	is_dbl(r.elo, 12.01, 0.006, "880-1863-759 elo");
	is_dbl(r.ci_lo, 4.14, 0.006, "880-1863-759 ci low");
	is_dbl(r.ci_hi, 19.89, 0.006, "880-1863-759 ci high");
	is_dbl((r.ci_hi - r.ci_lo) / 2, 7.87, 0.01, "880-1863-759 half-width about 7.87");
	is_dbl(r.llr, 2.95, 0.02, "880-1863-759 llr about 2.95");
	{
		double a[3] = { 0, 0.5, 1 };
		long c[3] = { 759, 1863, 880 };
		double ap = gt_elo_llr_approx(a, c, 3, 0.5, gt_elo_to_score(5));
		is_dbl(ap, r.llr, 0.01 * r.llr, "variance approximation within 1%% of the MLE LLR");
	}
	is_int(r.sprt_result, GT_SPRT_H1, "880-1863-759 accepts H1");

	/* Row 4: 18-1-1: 436.43, lower 263.98, upper unbounded, never nan. */
	ok(gt_elo_trinomial(18, 1, 1, &SPRT35, &r, &err) == 0, "18-1-1 rated");
	is_dbl(r.elo, 436.43, 0.006, "18-1-1 elo");
	is_dbl(r.ci_lo, 263.98, 0.006, "18-1-1 ci low");
	ok(r.flags & GT_ELO_F_HI_UNBOUNDED, "18-1-1 ci high flagged unbounded");
	is_dbl(r.ci_hi, GT_ELO_CLAMP, 0, "18-1-1 ci high holds the clamp");
	ok(!(r.flags & GT_ELO_F_INF), "18-1-1 elo itself finite");
	ok(all_finite(&r), "18-1-1 no nan or inf anywhere");
	{
		char *s = dump(&r);
		ok(strstr(s, "\"elo_ci95\":[263.98,null]") != NULL, "18-1-1 JSON ci [263.98,null]: %s", s);
		ok(strstr(s, "nan") == NULL && strstr(s, "inf") == NULL, "18-1-1 JSON has no nan/inf");
		free(s);
	}

	/* Row 5: 100-0-0: elo +inf flagged, finite lower bound, SPRT accepts H1. */
	ok(gt_elo_trinomial(100, 0, 0, &SPRT35, &r, &err) == 0, "100-0-0 rated");
	ok(r.flags & GT_ELO_F_INF, "100-0-0 elo flagged infinite");
	is_dbl(r.elo, GT_ELO_CLAMP, 0, "100-0-0 elo holds +clamp");
	ok(r.flags & GT_ELO_F_EXACT_CI, "100-0-0 exact CI");
	/* Clopper-Pearson: 100/100 wins, lower 95% bound of p is 0.025^(1/100) */
	is_dbl(r.ci_lo, gt_elo_from_score(pow(0.025, 0.01)), 1e-9, "100-0-0 ci low Clopper-Pearson");
	is_dbl(r.ci_lo, 570.1, 0.1, "100-0-0 ci low about 570");
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
	/* at most 1 - 0.025^(1/40) = 8.82% of games decisive: score within
	 * 0.5 +- 0.0441, i.e. +-30.7 Elo */
	is_dbl(r.ci_hi, gt_elo_from_score(0.5 + (1 - pow(0.025, 1.0 / 40)) / 2), 1e-9,
	       "0-40-0 ci high from the exact bound");
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
	is_dbl(r.ci_hi, -gt_elo_from_score(pow(0.025, 1.0 / 50)), 1e-9, "0-0-50 ci high Clopper-Pearson");
	is_int(r.sprt_result, GT_SPRT_H0, "0-0-50 accepts H0");

	/* Pentanomial: pairs. 100 pairs: 10 LL, 20 LD, 40 even, 20 DW, 10 WW.
	 * Per-game values 0, .25, .5, .75, 1: mean 0.5, variance
	 * (10*.25+20*.0625+0+20*.0625+10*.25)/100 = 0.075; CI 0.5 +- 1.96
	 * sqrt(0.075/100) = 0.5 +- 0.053676. */
	{
		long p[5] = { 10, 20, 40, 20, 10 };
		/* games: 40 even pairs as 20 LW + 20 DD: wins 20+20+20 = 60? count:
		 * LL 10 -> 20 losses; LD 20 -> 20 losses, 20 draws; LW 20 -> 20 w,
		 * 20 l; DD 20 -> 40 draws; DW 20 -> 20 draws 20 wins; WW -> 20 w */
		ok(gt_elo_pentanomial(p, 60, 80, 60, &SPRT35, &r, &err) == 0, "pentanomial rated");
		is_int(r.games, 200, "pentanomial games = 2 pairs");
		is_dbl(r.elo, 0, 1e-9, "pentanomial even match elo 0");
		double h = GT_ELO_Z95 * sqrt(0.075 / 100);
		is_dbl(r.ci_hi, gt_elo_from_score(0.5 + h), 1e-9, "pentanomial ci high from the pair variance");
		is_dbl(r.ci_hi, 37.44, 0.01, "pentanomial ci high about 37.44");
		/* the same games as independent: per-game variance 0.15 over 200
		 * games, the same 7.5e-4 as the pairs' 0.075 over 100 (these pairs
		 * are uncorrelated) */
		gt_elo_result t;
		gt_elo_trinomial(60, 80, 60, &SPRT35, &t, &err);
		is_dbl(t.ci_hi, gt_elo_from_score(0.5 + GT_ELO_Z95 * sqrt(0.15 / 200)), 1e-9, "trinomial of the same games");
		is_dbl(r.ci_hi, t.ci_hi, 1e-9, "uncorrelated pairs: same CI as trinomial");
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
