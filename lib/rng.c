/* rng.c: xoshiro256** with uniform, normal, gamma and Dirichlet draws. */
#include "rng.h"

#include <math.h>

uint64_t gt_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void gt_rng_seed(gt_rng *r, uint64_t seed)
{
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		r->s[i] = gt_splitmix64(&x);
	/* splitmix64 never gives four zero words in a row, so the state is valid */
}

void gt_rng_seed_stream(gt_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed;
	uint64_t a = gt_splitmix64(&x);
	x = stream ^ 0x6a09e667f3bcc909ULL;
	uint64_t b = gt_splitmix64(&x);
	gt_rng_seed(r, a ^ (b * 0x9e3779b97f4a7c15ULL));
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t gt_rng_next(gt_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double gt_rng_uniform(gt_rng *r)
{
	return (double)(gt_rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t gt_rng_below(gt_rng *r, uint64_t n)
{
	if (n == 0)
		return 0;
	unsigned __int128 m = (unsigned __int128)gt_rng_next(r) * n;
	uint64_t low = (uint64_t)m;
	if (low < n) {
		uint64_t threshold = -n % n;
		while (low < threshold) {
			m = (unsigned __int128)gt_rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

double gt_rng_normal(gt_rng *r)
{
	double u, v, s;
	do {
		u = 2 * gt_rng_uniform(r) - 1;
		v = 2 * gt_rng_uniform(r) - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);
	return u * sqrt(-2 * log(s) / s);
}

double gt_rng_gamma(gt_rng *r, double shape)
{
	if (!(shape > 0))
		return 0;
	if (shape < 1) {
		/* Gamma(a) = Gamma(a + 1) * U^(1/a); U in (0, 1] */
		double g = gt_rng_gamma(r, shape + 1);
		double u = 1 - gt_rng_uniform(r);
		return g * exp(log(u) / shape);
	}
	double d = shape - 1.0 / 3, c = 1 / sqrt(9 * d);
	for (;;) {
		double x, v;
		do {
			x = gt_rng_normal(r);
			v = 1 + c * x;
		} while (v <= 0);
		v = v * v * v;
		double u = 1 - gt_rng_uniform(r);
		if (u < 1 - 0.0331 * x * x * x * x)
			return d * v;
		if (log(u) < 0.5 * x * x + d * (1 - v + log(v)))
			return d * v;
	}
}

void gt_rng_dirichlet(gt_rng *r, double alpha, int k, double *out)
{
	double sum = 0;
	for (int i = 0; i < k; i++) {
		out[i] = gt_rng_gamma(r, alpha);
		sum += out[i];
	}
	if (k <= 0)
		return;
	if (!(sum > 0)) {
		for (int i = 0; i < k; i++)
			out[i] = 0;
		out[gt_rng_below(r, (uint64_t)k)] = 1;
		return;
	}
	for (int i = 0; i < k; i++)
		out[i] /= sum;
}

int gt_rng_choose(gt_rng *r, const double *w, int k)
{
	double sum = 0;
	for (int i = 0; i < k; i++)
		sum += w[i] > 0 ? w[i] : 0;
	if (!(sum > 0))
		return 0;
	double x = gt_rng_uniform(r) * sum;
	int last = 0;
	for (int i = 0; i < k; i++) {
		if (!(w[i] > 0))
			continue;
		last = i;
		if (x < w[i])
			return i;
		x -= w[i];
	}
	return last; /* rounding at the top end */
}
