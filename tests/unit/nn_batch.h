/*
 * nn_batch.h: seeded random inputs and targets for the tests and
 * benchmarks of lib/nn (tests/unit/nn_grad.c, nn_torch.c,
 * tests/gpu/nncmp.h, bench/nn.c). Header only, static functions.
 */
#ifndef GT_TEST_NN_BATCH_H
#define GT_TEST_NN_BATCH_H
#include "nn.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* nn_rand: uniform in (0, 1) from the 64-bit linear congruential
 * generator of Knuth's MMIX with state *s (53 bits of the state). */
static inline double nn_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((*s >> 11) + 0.5) / 9007199254740992.0;
}

/* nn_randn: a standard normal (Box-Muller) from nn_rand. */
static inline double nn_randn(uint64_t *s)
{
	double u = nn_rand(s);
	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * nn_rand(s));
}

/* B positions on n x n boards (N = n*n) for architecture a: planes
 * (B x in_planes x N) 1 with probability 0.4, globals (B x globals)
 * in [-1, 1]; targets: policy (B x (N+1)) a random distribution, value
 * in [-1, 1], score in [-40, 40], ownership (B x N) in [-1, 1], row
 * weights in [0.5, 1.5]; the auxiliary policy's (the opponent's reply)
 * apol (B x (N+1)) a random distribution, aweight 1, but 0 for every
 * third row (b % 3 == 2: a row without a reply). */
typedef struct nn_batch {
	int B, n;
	float *planes, *glob, *pol, *val, *score, *own, *weight, *apol, *aweight;
} nn_batch;

/* nn_batch_make: draw d from s (arrays malloc'd; nn_batch_free). */
static inline void nn_batch_make(nn_batch *d, const gt_arch *a, int B, int n, uint64_t *s)
{
	int N = n * n;
	d->B = B;
	d->n = n;
	d->planes = malloc(sizeof(float) * B * a->in_planes * N);
	d->glob = malloc(sizeof(float) * B * (a->globals + 1));
	d->pol = malloc(sizeof(float) * B * (N + 1));
	d->val = malloc(sizeof(float) * B);
	d->score = malloc(sizeof(float) * B);
	d->own = malloc(sizeof(float) * B * N);
	d->weight = malloc(sizeof(float) * B);
	d->apol = malloc(sizeof(float) * B * (N + 1));
	d->aweight = malloc(sizeof(float) * B);
	for (int i = 0; i < B * a->in_planes * N; i++)
		d->planes[i] = nn_rand(s) < 0.4;
	for (int i = 0; i < B * a->globals; i++)
		d->glob[i] = (float)(nn_rand(s) * 2 - 1);
	for (int b = 0; b < B; b++) {
		double sum = 0;
		for (int i = 0; i <= N; i++)
			sum += d->pol[b * (N + 1) + i] = (float)nn_rand(s);
		for (int i = 0; i <= N; i++)
			d->pol[b * (N + 1) + i] /= (float)sum;
		d->val[b] = (float)(nn_rand(s) * 2 - 1);
		d->score[b] = (float)(nn_rand(s) * 80 - 40);
		d->weight[b] = (float)(0.5 + nn_rand(s));
		for (int i = 0; i < N; i++)
			d->own[b * N + i] = (float)(nn_rand(s) * 2 - 1);
	}
	/* from a stream of their own, so that *s moves as before they were */
	uint64_t as = *s ^ 0x6175782d706f6cULL;
	for (int b = 0; b < B; b++) {
		double sum = 0;
		for (int i = 0; i <= N; i++)
			sum += d->apol[b * (N + 1) + i] = (float)nn_rand(&as);
		for (int i = 0; i <= N; i++)
			d->apol[b * (N + 1) + i] /= (float)sum;
		d->aweight[b] = b % 3 == 2 ? 0.0f : 1.0f;
	}
}

static inline void nn_batch_free(nn_batch *d)
{
	free(d->planes);
	free(d->glob);
	free(d->pol);
	free(d->val);
	free(d->score);
	free(d->own);
	free(d->weight);
	free(d->apol);
	free(d->aweight);
}

/* nn_batch_target: d's targets (weighted rows) for gt_nn_backward. */
static inline gt_nn_target nn_batch_target(const nn_batch *d)
{
	gt_nn_target t = {d->pol, d->val, d->score, d->own, d->weight, d->apol, d->aweight};
	return t;
}

/* nn_batch_forward: gt_nn_forward of d's positions (train 0 or 1). */
static inline int nn_batch_forward(gt_nn *nn, const nn_batch *d, int train, gt_nn_out *out)
{
	return gt_nn_forward(nn, d->B, d->n, d->planes, d->glob, train, out);
}

#endif
