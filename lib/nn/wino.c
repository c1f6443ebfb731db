/* wino.c: 3x3 convolutions by Winograd F(4x4,3x3) (see wino.h for the
 * transforms and their source). Per chunk of TILES tiles:
 *   1. per input channel, each board's plane is copied into a
 *      zero-bordered plane of 4 T1 + 2 columns (T1 = ceil(n/4)), and the
 *      6x6 tiles of W consecutive tiles are transformed at once (with the
 *      ReLU), one tile per vector lane, into V[xi][ci][tile];
 *   2. M[xi] (cout x tiles) = U[xi] (cout x cin) V[xi] (cin x tiles), 36
 *      cblas_sgemm calls;
 *   3. per output channel, W tiles at once: Y = A^T M A, plus the bias,
 *      stored (cropped to the board) or added (a tile's rows as 4-lane
 *      vectors).
 * The steps of a chunk (wino_kern.h) are compiled twice: for the build's
 * baseline and, unless that has AVX2 already, for AVX2+FMA; gt_wino_conv
 * takes the second where gt_simd_avx2 says (simd.h). */
#include "wino.h"
#include "simd.h"
#include "dnn.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#ifndef TILES
#define TILES 64  /* tiles per chunk (a multiple of W) */
#endif
#define W 16      /* tiles per vector (input_transform spells out 16) */
typedef float vf __attribute__((vector_size(W * sizeof(float))));
typedef int vi __attribute__((vector_size(W * sizeof(int))));

int gt_conv_mode_env(void)
{
	const char *s = getenv("GT_CONV");
	if (s && !strcmp(s, "im2col"))
		return GT_CONV_IM2COL;
	if (s && !strcmp(s, "winograd"))
		return GT_CONV_WINOGRAD;
	if (s && !strcmp(s, "onednn"))
		return GT_CONV_ONEDNN;
	return GT_CONV_AUTO;
}

int gt_conv_winograd_auto(void)
{
#ifdef __AVX512F__
	return 1;
#else
	return 0;
#endif
}

int gt_conv_onednn(int mode)
{
	if (mode == GT_CONV_ONEDNN)
		return 1;
	if (mode != GT_CONV_AUTO_BATCH || gt_dnn_why_not())
		return 0;
#if defined(__x86_64__) && defined(__GNUC__)
	return __builtin_cpu_supports("avx512f") ||
	       (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
#else
	return 0;
#endif
}

int gt_conv_winograd(int mode, int n, int batch)
{
	if (mode == GT_CONV_IM2COL || mode == GT_CONV_ONEDNN)
		return 0;
	if (mode == GT_CONV_WINOGRAD)
		return 1;
	if (!gt_conv_winograd_auto())
		return 0;
	if (mode == GT_CONV_AUTO_BATCH) {
		/* fitted to bench/wino's ratios (b6c96, batch 1 to 16, n 2 to
		 * 19): the useful points less 3.5 per tile, over the batch */
		int t = (n + 3) / 4;
		return batch * (n * n - 3.5 * t * t) >= 140;
	}
	/* by the board alone, so that a position's outputs do not depend on
	 * the batch it is evaluated in (gt-elo's same games whatever
	 * --parallel-games): the boards where bench/wino measured Winograd
	 * faster at every batch, 1 included */
	(void)batch;
	return n >= 14;
}

int gt_conv_batch_mode(int mode, int on)
{
	if (mode == GT_CONV_AUTO && on)
		return GT_CONV_AUTO_BATCH;
	if (mode == GT_CONV_AUTO_BATCH && !on)
		return GT_CONV_AUTO;
	return mode;
}

size_t gt_wino_filter_floats(int cout, int cin)
{
	return (size_t)36 * cout * cin;
}

void gt_wino_filter(const float *w, int cout, int cin, float *u)
{
	static const double G[6][3] = {
		{1.0 / 4, 0, 0},
		{-1.0 / 6, -1.0 / 6, -1.0 / 6},
		{-1.0 / 6, 1.0 / 6, -1.0 / 6},
		{1.0 / 24, 1.0 / 12, 1.0 / 6},
		{1.0 / 24, -1.0 / 12, 1.0 / 6},
		{0, 0, 1},
	};
	size_t plane = (size_t)cout * cin;
	for (int co = 0; co < cout; co++)
		for (int ci = 0; ci < cin; ci++) {
			const float *g = w + ((size_t)co * cin + ci) * 9;
			double t[6][3];  /* G g */
			for (int i = 0; i < 6; i++)
				for (int k = 0; k < 3; k++)
					t[i][k] = G[i][0] * g[k] + G[i][1] * g[3 + k] + G[i][2] * g[6 + k];
			for (int i = 0; i < 6; i++)
				for (int j = 0; j < 6; j++)
					u[(i * 6 + j) * plane + (size_t)co * cin + ci] =
						(float)(t[i][0] * G[j][0] + t[i][1] * G[j][1] + t[i][2] * G[j][2]);
		}
}

/* the padded planes of a chunk: at most TILES / T + 2 boards of
 * (4 T1 + 2)^2 <= 36 T floats each */
#define PAD_FLOATS (36 * (TILES + 2 * 25))

/* floats from one xi to the next in V (c = cin) and M (c = cout): 16
 * more than the c x TILES matrix, so that the 36 vectors of one tile's
 * transform do not fall in the same cache set */
static size_t xstride(int c)
{
	return (size_t)c * TILES + 16;
}

size_t gt_wino_scratch_floats(int cin, int cout)
{
	return 36 * (xstride(cin) + xstride(cout)) + PAD_FLOATS;
}

/* B^T x for six vectors x0..x5 (one column or row of a tile) */
#define BT6(x, o)                                                          \
	do {                                                                   \
		vf a_ = (x)[4] - 4 * (x)[2], b_ = (x)[3] - 4 * (x)[1];             \
		vf c_ = (x)[4] - (x)[2], d_ = 2 * ((x)[3] - (x)[1]);               \
		(o)[0] = 4 * (x)[0] - 5 * (x)[2] + (x)[4];                         \
		(o)[1] = a_ + b_;                                                  \
		(o)[2] = a_ - b_;                                                  \
		(o)[3] = c_ + d_;                                                  \
		(o)[4] = c_ - d_;                                                  \
		(o)[5] = 4 * (x)[1] - 5 * (x)[3] + (x)[5];                         \
	} while (0)

/* A^T m for six vectors m0..m5 into four */
#define AT4(m, o)                                                          \
	do {                                                                   \
		vf p_ = (m)[1] + (m)[2], q_ = (m)[1] - (m)[2];                     \
		vf r_ = (m)[3] + (m)[4], s_ = (m)[3] - (m)[4];                     \
		(o)[0] = (m)[0] + p_ + r_;                                         \
		(o)[1] = q_ + 2 * s_;                                              \
		(o)[2] = p_ + 4 * r_;                                              \
		(o)[3] = q_ + 8 * s_ + (m)[5];                                     \
	} while (0)

/* 4 lanes (a tile's row) and lanes 4 i to 4 i + 3 of a vf */
typedef float v4 __attribute__((vector_size(4 * sizeof(float))));
#define QUARTER(v, i) __builtin_shufflevector((v), (v), 4 * (i), 4 * (i) + 1, 4 * (i) + 2, 4 * (i) + 3)

/* unaligned vector load and store (macros: a function passing vectors
 * wider than the target's registers would change the ABI) */
#define VLOAD(v, p) memcpy(&(v), (p), sizeof(vf))
#define VSTORE(p, v) memcpy((p), &(v), sizeof(vf))

/* r[i][l] := r[l][i], a 16 x 16 transpose in 4 stages of 16 two-vector
 * shuffles (stage h pairs vectors h apart and interleaves blocks of h) */
#define UNPAREN(...) __VA_ARGS__
/* one stage: each vector i with (i & h) == 0 and vector i + h become the
 * shuffles LO and HI (index lists in parentheses) of the two */
#define STAGE(h, LO, HI)                                                   \
	for (int i = 0; i < 16; i++)                                           \
		if (!(i & (h))) {                                                  \
			vf p = r[i], q = r[i + (h)];                                   \
			r[i] = __builtin_shufflevector(p, q, UNPAREN LO);              \
			r[i + (h)] = __builtin_shufflevector(p, q, UNPAREN HI);        \
		}

/* the kernels, for the x86-64 baseline (or what OPT says) and, chosen at
 * run time (simd.h), for AVX2 and FMA: the 16-lane vectors in two ymm
 * registers, the products' operands in FMA */
#define KERN(name) name##_base
#include "wino_kern.h"
#undef KERN
#if defined(__x86_64__) && !defined(__AVX2__)
#define WINO_AVX2 1
#ifdef __clang__ /* (make fuzz) */
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
#define KERN(name) name##_avx2
#include "wino_kern.h"
#undef KERN
#ifdef __clang__
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

void gt_wino_conv(const gt_wino_conv_args *a)
{
	int T1 = (a->n + 3) / 4;
	long total = (long)a->B * T1 * T1;
	float *V = a->scratch, *M = V + 36 * xstride(a->cin);
	float *pad = M + 36 * xstride(a->cout);
	void (*chunk)(const gt_wino_conv_args *, long, int, float *, float *, float *) = chunk_base;
#ifdef WINO_AVX2
	if (gt_simd_avx2())
		chunk = chunk_avx2;
#endif
	for (long t0 = 0; t0 < total; t0 += TILES) {
		int nt = total - t0 < TILES ? (int)(total - t0) : TILES;
		chunk(a, t0, nt, V, M, pad);
	}
}
