/*
 * elo.h: match statistics for gt-elo and gt-publish.
 *
 * All Elo here is LOGISTIC Elo: a score s (wins + draws/2 per game, 0..1)
 * corresponds to E(s) = -400 log10(1/s - 1), and back s = 1/(1 + 10^(-E/400))
 * (Elo, "The Rating of Chessplayers", the logistic form used by fishtest and
 * by Leela Zero's match tables). This is NOT BayesElo (Coulom), whose draw
 * model gives other numbers for the same match.
 *
 * Nothing here returns NaN. An infinite or unbounded value is always flagged
 * (GT_ELO_F_*) and the double then holds a finite clamp, +-GT_ELO_CLAMP, so
 * arithmetic on it cannot poison a caller; the JSON writer prints null for
 * every flagged value.
 */
#ifndef GT_ELO_H
#define GT_ELO_H
#include <jansson.h>

#include "gt.h"

#define GT_ELO_CLAMP 2000.0            /* stands for +-infinity, see flags */
#define GT_ELO_Z95 1.959963984540054   /* two-sided 95% normal quantile */

/* SPRT decision. */
enum { GT_SPRT_CONTINUE = 0, GT_SPRT_H0 = 1, GT_SPRT_H1 = 2 };

/* Flags of a gt_elo_result. */
enum {
	GT_ELO_F_INF = 1,         /* score is 0 or 1: elo is +-infinity, the field is +-GT_ELO_CLAMP */
	GT_ELO_F_LO_UNBOUNDED = 2, /* the CI has no lower end (ci_lo = -GT_ELO_CLAMP) */
	GT_ELO_F_HI_UNBOUNDED = 4, /* the CI has no upper end (ci_hi = +GT_ELO_CLAMP) */
	GT_ELO_F_NO_DECISIVE = 8, /* games were played but every one was drawn */
};

/* SPRT parameters: H0 elo = elo0 against H1 elo = elo1 (logistic Elo),
 * alpha = P(accept H1 | H0), beta = P(accept H0 | H1). */
typedef struct gt_elo_sprt {
	double elo0, elo1;
	double alpha, beta;
} gt_elo_sprt;

/* Everything gt-elo reports about one match, from the candidate's view. */
typedef struct gt_elo_result {
	long games, wins, draws, losses;
	int pentanomial;       /* 1: pairs/penta are set and drive elo, CI and LLR */
	long pairs;            /* colour-swapped game pairs */
	long penta[5];         /* pairs scoring 0, 0.5, 1, 1.5, 2 */
	double score;          /* (wins + draws/2) / games, 0..1 */
	double elo;            /* E(score) */
	double ci_lo, ci_hi;   /* 95% confidence interval of elo */
	double los;            /* likelihood of superiority, 0..1 */
	unsigned flags;        /* GT_ELO_F_* */
	int has_sprt;
	gt_elo_sprt sprt;
	double llr;            /* generalized log-likelihood ratio H1 over H0 */
	double llr_lower;      /* log(beta / (1 - alpha)): accept H0 at or below */
	double llr_upper;      /* log((1 - beta) / alpha): accept H1 at or above */
	int sprt_result;       /* GT_SPRT_* */
} gt_elo_result;

/* gt_elo_from_score: logistic Elo E(s) = -400 log10(1/s - 1); s is clamped
 * to [0, 1] (NaN counts as 0.5); -INFINITY at 0 and +INFINITY at 1 are the
 * only infinite returns. */
double gt_elo_from_score(double s);

/* gt_elo_to_score: expected score 1/(1 + 10^(-elo/400)) of a logistic Elo
 * difference. */
double gt_elo_to_score(double elo);

/* gt_elo_los: likelihood of superiority, Phi((w - l) / sqrt(w + l)), the
 * normal approximation to the probability that the candidate is stronger
 * given the decisive games (draws carry no information about it; see the
 * chessprogramming wiki "Match Statistics"). 0.5 when w + l = 0. */
double gt_elo_los(long wins, long losses);

/* gt_elo_llr: generalized log-likelihood ratio of an empirical score
 * distribution for mean score s1 against s0: n observations, value a[i] in
 * [0, 1] seen count[i] times (k values, strictly ascending, a[0] = 0 and
 * a[k-1] = 1). Counts of 0 are replaced by 1e-3 (fishtest's regularize), so
 * a match without draws or without losses still moves the LLR. For each
 * hypothesis the distribution of largest likelihood with mean s is found as
 * p_i = q_i / (1 + t (a_i - s)) with t the root of sum q_i (a_i - s) /
 * (1 + t (a_i - s)) = 0 (M. Van den Bergh, "Support of the MLE for
 * multinomial distributions", hardy.uhasselt.be/Fishtest/
 * support_MLE_multinomial.pdf, Proposition 1.1; fishtest's LLRcalc.LLR), and
 * LLR = N sum q_i log(p1_i / p0_i). 0 for no observations or s0 = s1. Never
 * NaN for 0 < s0, s1 < 1. */
double gt_elo_llr(const double *a, const long *count, int k, double s0, double s1);

/* gt_elo_llr_approx: the closed-form approximation of the same LLR through
 * the sample mean m and variance v (regularized counts as above):
 * N (s1 - s0)(2m - s0 - s1) / (2v) (Van den Bergh, "A simple approximation
 * of the GSPRT", hardy.uhasselt.be/Fishtest/GSPRT_approximation.pdf;
 * fishtest's LLR_alt2). For comparison only: when the variance nearly
 * vanishes (every game drawn) it becomes huge after one or two games, so
 * decisions use gt_elo_llr. */
double gt_elo_llr_approx(const double *a, const long *count, int k, double s0, double s1);

/* gt_elo_score_ci: the score interval of the mean of n observations, value
 * a[i] in [0, 1] seen count[i] times (k values, 2..8, strictly ascending,
 * a[0] = 0 and a[k-1] = 1): into lo, hi (0 <= lo <= mean <= hi <= 1) the
 * ends of {s : (m - s)^2 <= z^2 V(s) / n}, m the sample mean and V(s) the
 * variance of the most likely distribution of mean s given the counts (the
 * one gt_elo_llr tests, Van den Bergh's Proposition 1.1, with unobserved
 * values allowed mass, unregularized). This is the score test inverted,
 * as Wilson's interval is for a proportion (E. B. Wilson, "Probable
 * inference, the law of succession, and statistical inference", JASA 22,
 * 1927): the variance is the one the hypothesis s implies, not the
 * sample's, so it never shrinks to zero width when every observation is
 * equal. Closed forms: win/loss data (values 0 and 1 only) give exactly
 * Wilson's interval; all observations equal to x give
 * [x / (1 + z^2/n), 1 - (1 - x) / (1 + z^2/n)] (the lower end is 0 for
 * x = 0 and the upper 1 for x = 1: unbounded). Far from 0 and 1 it agrees
 * with the normal interval m +- z sqrt(v / n) as n grows. lo = 0, hi = 1
 * when nothing was counted or k is out of range. */
void gt_elo_score_ci(const double *a, const long *count, int k, double z, double *lo, double *hi);

/* gt_elo_trinomial: fill r from a match's wins, draws and losses (games are
 * independent). CI: gt_elo_score_ci over the per-game scores {0, 1/2, 1}
 * with z = GT_ELO_Z95, mapped through E; the lower end is unbounded only
 * when every game was lost, the upper only when every game was won.
 * sprt may be NULL (no test); with it, llr is gt_elo_llr over
 * {0, 1/2, 1} with s0 = gt_elo_to_score(elo0), s1 likewise (fishtest's
 * logistic SPRT). Returns 0; GT_EINVAL (and text in err) for negative
 * counts, no games, or SPRT parameters out of range (alpha, beta in
 * (0, 0.5], elo0 < elo1). */
int gt_elo_trinomial(long wins, long draws, long losses, const gt_elo_sprt *sprt,
                     gt_elo_result *r, gt_error *err);

/* gt_elo_pentanomial: the same for games played in colour-swapped pairs
 * (each opening once with each colour): penta[k] pairs scored k/2 points of
 * 2. Score, elo, CI and LLR use the pair scores as observations (values
 * k/4 per game), which removes the colour and opening variance the
 * trinomial model ignores (fishtest's pentanomial model); wins, draws,
 * losses are the games' and give games and LOS. Returns GT_EINVAL when the
 * counts disagree (wins + draws + losses != 2 pairs, or 2 wins + draws !=
 * sum k penta[k]), for no pairs, or as gt_elo_trinomial. */
int gt_elo_pentanomial(const long penta[5], long wins, long draws, long losses,
                       const gt_elo_sprt *sprt, gt_elo_result *r, gt_error *err);

/* gt_elo_json: r as a JSON object, new reference (json_decref it):
 * {"games","wins","draws","losses","score","elo","elo_ci95":[lo,hi],"los",
 *  "decisive": wins + losses,
 *  "pairs","pentanomial":[5 counts]   (pentanomial results only)
 *  "sprt":{"elo0","elo1","alpha","beta","llr","lower","upper",
 *          "result":"H0"|"H1"|"continue"}   (only with an SPRT)
 *  "note": "..."                          (only for a degenerate match)}
 * An infinite elo and unbounded CI ends are null; numbers are rounded to
 * 2 decimals (elo), 4 (score, los, llr): dump with JSON_REAL_PRECISION(10)
 * to print them short. */
json_t *gt_elo_json(const gt_elo_result *r);

/* gt_elo_summary: the summary line of a match of a against b (gt-elo(1)),
 * without newline, in a new string (caller frees): {"a","b", then the keys
 * of gt_elo_json(r)}, compact, numbers printed short. NULL only when
 * jansson fails (out of memory). */
char *gt_elo_summary(const char *a, const char *b, const gt_elo_result *r);

/* gt_elo_sprt_parse: an SPRT written "ELO0,ELO1" or "ELO0,ELO1,ALPHA,BETA"
 * (alpha and beta 0.05 when left out) into sp. Returns 0; GT_EFORMAT when
 * s is not 2 or 4 finite numbers separated by commas; GT_EINVAL unless
 * elo0 < elo1 and alpha, beta are in (0, 0.5]. sp is unchanged on error. */
int gt_elo_sprt_parse(const char *s, gt_elo_sprt *sp);

#endif
