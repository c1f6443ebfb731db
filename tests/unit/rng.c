/* rng: xoshiro256** known answers, determinism, and the moments of every
 * sampler over many draws with fixed seeds (bounds at about 5 standard
 * errors, so a correct generator passes for any seed). */
#include "tap.h"
#include "rng.h"

static void moments(const double *x, int n, double *mean, double *var)
{
	double s = 0, s2 = 0;
	for (int i = 0; i < n; i++)
		s += x[i];
	*mean = s / n;
	for (int i = 0; i < n; i++)
		s2 += (x[i] - *mean) * (x[i] - *mean);
	*var = s2 / (n - 1);
}

#define N 200000
static double xs[N];

int main(void)
{
	gt_rng r, r2;

	/* reference outputs: splitmix64 from 0, xoshiro256** from {1,2,3,4} */
	uint64_t x = 0;
	ok(gt_splitmix64(&x) == 0xe220a8397b1dcdafULL, "splitmix64 first output from 0");
	r.s[0] = 1, r.s[1] = 2, r.s[2] = 3, r.s[3] = 4;
	uint64_t want[4] = { 11520, 0, 1509978240, 1215971899390074240ULL };
	int good = 1;
	for (int i = 0; i < 4; i++)
		good &= gt_rng_next(&r) == want[i];
	ok(good, "xoshiro256** reference outputs from {1,2,3,4}");

	gt_rng_seed(&r, 42);
	gt_rng_seed(&r2, 42);
	good = 1;
	for (int i = 0; i < 1000; i++)
		good &= gt_rng_next(&r) == gt_rng_next(&r2);
	ok(good, "same seed, same stream");
	gt_rng_seed_stream(&r, 42, 0);
	gt_rng_seed_stream(&r2, 42, 1);
	int same = 0;
	for (int i = 0; i < 1000; i++)
		same += gt_rng_next(&r) == gt_rng_next(&r2);
	is_int(same, 0, "streams 0 and 1 of a seed differ");
	gt_rng_seed(&r, 0);
	ok(r.s[0] | r.s[1] | r.s[2] | r.s[3], "seed 0 gives a nonzero state");

	double mean, var;
	gt_rng_seed(&r, 1);
	int inrange = 1;
	for (int i = 0; i < N; i++) {
		xs[i] = gt_rng_uniform(&r);
		inrange &= xs[i] >= 0 && xs[i] < 1;
	}
	ok(inrange, "uniform in [0, 1)");
	moments(xs, N, &mean, &var);
	is_dbl(mean, 0.5, 5 * sqrt(1.0 / 12 / N), "uniform mean");
	is_dbl(var, 1.0 / 12, 0.002, "uniform variance");

	/* below: chi-square over 7 bins, 6 degrees of freedom; 22.46 is the
	 * 0.999 quantile */
	long cnt[7] = { 0 };
	inrange = 1;
	for (int i = 0; i < 70000; i++) {
		uint64_t k = gt_rng_below(&r, 7);
		inrange &= k < 7;
		cnt[k < 7 ? k : 0]++;
	}
	double chi = 0;
	for (int k = 0; k < 7; k++)
		chi += (cnt[k] - 10000.0) * (cnt[k] - 10000.0) / 10000.0;
	ok(inrange, "below(7) in range");
	ok(chi < 22.46, "below(7) uniform (chi-square %.2f < 22.46)", chi);
	is_int(gt_rng_below(&r, 0), 0, "below(0) is 0");
	is_int(gt_rng_below(&r, 1), 0, "below(1) is 0");

	for (int i = 0; i < N; i++)
		xs[i] = gt_rng_normal(&r);
	moments(xs, N, &mean, &var);
	is_dbl(mean, 0, 5 / sqrt(N), "normal mean");
	is_dbl(var, 1, 5 * sqrt(2.0 / N), "normal variance");

	double shapes[] = { 0.05, 0.3, 1, 2.5, 30 };
	for (int s = 0; s < 5; s++) {
		double a = shapes[s];
		int pos = 1;
		for (int i = 0; i < N; i++) {
			xs[i] = gt_rng_gamma(&r, a);
			pos &= xs[i] >= 0;
		}
		moments(xs, N, &mean, &var);
		ok(pos, "gamma(%g) >= 0", a);
		is_dbl(mean, a, 5 * sqrt(a / N), "gamma(%g) mean", a);
		/* Var of the sample variance ~ (mu4 - sigma^4)/N; mu4 = 3a^2 + 6a */
		is_dbl(var, a, 5 * sqrt((2 * a * a + 6 * a) / N), "gamma(%g) variance", a);
	}
	is_dbl(gt_rng_gamma(&r, 0), 0, 0, "gamma(0) is 0");

	/* Dirichlet as used for root noise: alpha = 10.83 / k on k = 82 moves */
	int k = 82, draws = 4000;
	double alpha = 10.83 / k, d[82], sum1[82] = { 0 }, sumsq0 = 0;
	int sums = 1;
	for (int t = 0; t < draws; t++) {
		gt_rng_dirichlet(&r, alpha, k, d);
		double s = 0;
		for (int i = 0; i < k; i++) {
			s += d[i];
			sum1[i] += d[i];
		}
		sumsq0 += (d[0] - 1.0 / k) * (d[0] - 1.0 / k);
		sums &= fabs(s - 1) < 1e-9;
	}
	ok(sums, "Dirichlet draws sum to 1");
	double sd = sqrt((1.0 / k) * (1 - 1.0 / k) / (k * alpha + 1));
	double worst = 0;
	for (int i = 0; i < k; i++) {
		double z = fabs(sum1[i] / draws - 1.0 / k) / (sd / sqrt(draws));
		if (z > worst)
			worst = z;
	}
	ok(worst < 5, "Dirichlet(10.83/82) mean 1/82 per move (worst z %.2f)", worst);
	is_dbl(sqrt(sumsq0 / draws), sd, 0.15 * sd, "Dirichlet standard deviation of one entry");
	gt_rng_dirichlet(&r, 1e-300, 5, d);
	ok(d[0] + d[1] + d[2] + d[3] + d[4] == 1, "Dirichlet with underflowing alpha is one-hot");

	/* choose: proportional to weights; chi-square, 3 dof, 0.999 quantile 16.27 */
	double w[5] = { 1, 0, 2, 3, 4 };
	long c[5] = { 0 };
	for (int i = 0; i < 100000; i++)
		c[gt_rng_choose(&r, w, 5)]++;
	is_int(c[1], 0, "choose never picks a zero weight");
	chi = 0;
	for (int i = 0; i < 5; i++) {
		if (w[i] == 0)
			continue;
		double e = 100000 * w[i] / 10;
		chi += (c[i] - e) * (c[i] - e) / e;
	}
	ok(chi < 16.27, "choose proportional to weights (chi-square %.2f < 16.27)", chi);
	double zero[3] = { 0, 0, 0 };
	is_int(gt_rng_choose(&r, zero, 3), 0, "choose with all-zero weights gives 0");
	return done_testing();
}
