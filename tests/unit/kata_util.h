/* kata_util.h: helpers of the tests of lib/nn/katago.c (katago.c,
 * katago_synth.c). */
#ifndef GT_TEST_KATA_UTIL_H
#define GT_TEST_KATA_UTIL_H

#include "katago.h"
#include "nn.h"
#include "tap.h"

#include <math.h>
#include <string.h>

/* kata_raw: position b's raw outputs of the forward o (n x n, S score
 * outputs) into w, one after the other: policy (n n + 1), ownership
 * (n n), value (3), score (S); returns their count */
static inline int kata_raw(const gt_kata_out *o, int b, int n, int S, float *w)
{
	int N = n * n;
	memcpy(w, o->policy + (size_t)b * (N + 1), sizeof(float) * (N + 1));
	memcpy(w + N + 1, o->own + (size_t)b * N, sizeof(float) * N);
	memcpy(w + 2 * N + 1, o->value + (size_t)b * 3, sizeof(float) * 3);
	memcpy(w + 2 * N + 4, o->score + (size_t)b * S, sizeof(float) * S);
	return 2 * N + 4 + S;
}

/* kata_diff: the largest |x - y| / max(1, |y|) over count values */
static inline double kata_diff(const float *x, const float *y, int count)
{
	double d = 0;
	for (int j = 0; j < count; j++)
		d = fmax(d, fabs(x[j] - y[j]) / fmax(1.0, fabs(y[j])));
	return d;
}

/* kata_prec: k set to precision (GT_PREC_BF16, GT_PREC_INT8); 1 when in
 * effect, else 0 and a skip naming what and why */
static inline int kata_prec(gt_kata *k, int prec, const char *what)
{
	const char *why;
	if (gt_kata_precision(k, prec, &why) == prec)
		return 1;
	diag("SKIP %s in %s: %s", what, prec == GT_PREC_BF16 ? "bf16" : "int8",
	     why ? why : "not on this CPU");
	return 0;
}

#endif
