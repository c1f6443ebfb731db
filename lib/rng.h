/*
 * rng.h: a seeded pseudo-random generator for search and self-play.
 *
 * xoshiro256** 1.0 (Blackman and Vigna, "Scrambled linear pseudorandom number
 * generators", 2018; https://prng.di.unimi.it/) seeded through splitmix64,
 * as its authors recommend. The state is a plain caller-owned struct: copy it
 * to fork a stream, keep one per game so that games are reproducible whatever
 * the order they are played in. Not for cryptography.
 *
 * Every sampler is a pure function of the state, so the same seed gives the
 * same draws on every run (libm's exp/log/sqrt are assumed to be the same
 * library on the machines that must agree).
 */
#ifndef GT_RNG_H
#define GT_RNG_H
#include <stdint.h>

typedef struct gt_rng {
	uint64_t s[4];
} gt_rng;

/* gt_splitmix64: advances *x and returns the next splitmix64 output (Steele,
 * Lea, Flood, "Fast splittable pseudorandom number generators", 2014). Also a
 * good 64-bit mixer for deriving seeds: gt_splitmix64(&(uint64_t){a ^ b}). */
uint64_t gt_splitmix64(uint64_t *x);

/* gt_rng_seed: the state for a seed (any value, 0 included). */
void gt_rng_seed(gt_rng *r, uint64_t seed);

/* gt_rng_seed_stream: the state of stream `stream` (e.g. a game index) of a
 * seed; different (seed, stream) pairs give unrelated sequences. */
void gt_rng_seed_stream(gt_rng *r, uint64_t seed, uint64_t stream);

/* gt_rng_next: 64 uniform random bits. */
uint64_t gt_rng_next(gt_rng *r);

/* gt_rng_uniform: a double uniform in [0, 1) with 53 random bits. */
double gt_rng_uniform(gt_rng *r);

/* gt_rng_below: an integer uniform in [0, n), without modulo bias
 * (Lemire, "Fast random integer generation in an interval", 2019);
 * n = 0 returns 0. */
uint64_t gt_rng_below(gt_rng *r, uint64_t n);

/* gt_rng_normal: a standard normal draw (Marsaglia's polar method; the
 * second value of each pair is discarded so the state alone determines the
 * stream). */
double gt_rng_normal(gt_rng *r);

/* gt_rng_gamma: a Gamma(shape, 1) draw, shape > 0 (Marsaglia and Tsang, "A
 * simple method for generating gamma variables", 2000; for shape < 1 the
 * boost Gamma(shape+1) * U^(1/shape) of the same paper). Returns 0 for
 * shape <= 0. */
double gt_rng_gamma(gt_rng *r, double shape);

/* gt_rng_dirichlet: k >= 1 values of a symmetric Dirichlet(alpha) draw into
 * out[k] (normalised Gamma(alpha) draws; they sum to 1). If every gamma draw
 * underflows to 0 (tiny alpha), one uniformly chosen entry gets 1, the limit
 * of the distribution. */
void gt_rng_dirichlet(gt_rng *r, double alpha, int k, double *out);

/* gt_rng_choose: an index in [0, k) drawn with probability w[i] / sum(w)
 * (weights >= 0); if all weights are 0, the first index. */
int gt_rng_choose(gt_rng *r, const double *w, int k);

#endif
