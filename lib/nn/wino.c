/* wino.c: 3x3 convolutions by Winograd F(4x4,3x3) (see wino.h for the
 * transforms and their source). Per chunk of TILES tiles:
 *   1. per input channel, each board's plane is copied into a
 *      zero-bordered plane of 4 T1 + 2 columns (T1 = ceil(n/4)), and the
 *      6x6 tiles of W consecutive tiles are transformed at once (with the
 *      ReLU), one tile per vector lane, into V[xi][ci][tile];
 *   2. M[xi] (cout x tiles) = U[xi] (cout x cin) V[xi] (cin x tiles), 36
 *      cblas_sgemm calls;
 *   3. per output channel, W tiles at once: Y = A^T M A, plus the bias,
 *      stored (cropped to the board) or added. */
#include "wino.h"

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

int gt_conv_winograd(int mode, int n, int batch)
{
	if (mode == GT_CONV_IM2COL || mode == GT_CONV_ONEDNN)
		return 0;
	if (mode == GT_CONV_WINOGRAD)
		return 1;
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

/* unaligned vector load and store (macros: a function passing vectors
 * wider than the target's registers would change the ABI) */
#define VLOAD(v, p) memcpy(&(v), (p), sizeof(vf))
#define VSTORE(p, v) memcpy((p), &(v), sizeof(vf))

/* dst[0..k) = src[0..k) for a short k: inline moves, where memcpy of a
 * variable size would be a call */
static inline void copy_short(float *restrict dst, const float *restrict src, int k)
{
	int x = 0;
	for (; x + 8 <= k; x += 8)
		memcpy(dst + x, src + x, sizeof(float) * 8);
	/* no loop for the rest: GCC would make it a call of memmove */
	if (x + 4 <= k) {
		memcpy(dst + x, src + x, sizeof(float) * 4);
		x += 4;
	}
	if (x + 2 <= k) {
		memcpy(dst + x, src + x, sizeof(float) * 2);
		x += 2;
	}
	if (x < k)
		dst[x] = src[x];
}

/* The tiles t0..t0+nt-1 of the batch: V (36 x cin x TILES, xi stride
 * xstride(cin)) */
static void input_transform(const gt_wino_conv_args *a, long t0, int nt, float *V, float *pad)
{
	int n = a->n, T1 = (n + 3) / 4, T = T1 * T1, wd = 4 * T1 + 2;
	size_t ps = (size_t)wd * wd;
	int b0 = (int)(t0 / T), b1 = (int)((t0 + nt - 1) / T);
	int off[TILES + W];
	for (int l = 0; l < nt; l++) {
		long t = t0 + l;
		int b = (int)(t / T), r = (int)(t % T), ty = r / T1, tx = r % T1;
		off[l] = (int)((b - b0) * ps) + 4 * ty * wd + 4 * tx;
	}
	/* lanes past the last tile repeat the first (their results are not
	 * used) */
	for (int l = nt; l < TILES + W; l++)
		off[l] = off[0];
	memset(pad, 0, sizeof(float) * ps * (b1 - b0 + 1));
	size_t cs = TILES, xs = xstride(a->cin);
	for (int ci = 0; ci < a->cin; ci++) {
		/* the boards' planes of channel ci inside their zero borders */
		for (int b = b0; b <= b1; b++) {
			const float *src = a->in + (size_t)b * a->in_b + (size_t)ci * a->in_c;
			float *dst = pad + (b - b0) * ps + wd + 1;
			for (int y = 0; y < n; y++)
				copy_short(dst + y * wd, src + y * n, n);
		}
		for (int g = 0; g < nt; g += W) {
			/* the vectors are built from scalars in registers: through
			 * memory, their loads would wait for 16 scalar stores each */
			const float *p[W];
			for (int l = 0; l < W; l++)
				p[l] = pad + off[g + l];
			vf x[6], t[6][6], o[6], zero = {0};
			for (int j = 0; j < 6; j++) {
				for (int i = 0; i < 6; i++) {
					int k = i * wd + j;
					x[i] = (vf){p[0][k], p[1][k], p[2][k], p[3][k], p[4][k], p[5][k],
					            p[6][k], p[7][k], p[8][k], p[9][k], p[10][k], p[11][k],
					            p[12][k], p[13][k], p[14][k], p[15][k]};
					if (a->relu) /* relu(0) = 0: the zero border stays */
						x[i] = (vf)((vi)x[i] & (x[i] > zero));
				}
				BT6(x, o);
				for (int i = 0; i < 6; i++)
					t[i][j] = o[i];
			}
			float *v = V + (size_t)ci * cs + g;
			for (int i = 0; i < 6; i++) {
				BT6(t[i], o);
				for (int j = 0; j < 6; j++)
					VSTORE(v + (i * 6 + j) * xs, o[j]);
			}
		}
	}
}

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

static inline void transpose16(vf r[16])
{
	STAGE(8, (0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23),
	      (8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31));
	STAGE(4, (0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27),
	      (4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31));
	STAGE(2, (0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29),
	      (2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31));
	STAGE(1, (0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30),
	      (1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31));
}

/* Y = A^T M A of the tiles t0..t0+nt-1, M (36 x cout x TILES, xi stride
 * xstride(cout)), plus the bias, into out: computed with a tile per lane,
 * then transposed to a tile per vector (its 4 rows of 4) */
static void output_transform(const gt_wino_conv_args *a, long t0, int nt, const float *M)
{
	int n = a->n, T1 = (n + 3) / 4, T = T1 * T1;
	size_t cs = TILES, xs = xstride(a->cout);
	size_t dst0[TILES];
	int rows[TILES], cols[TILES];
	for (int l = 0; l < nt; l++) {
		long t = t0 + l;
		int b = (int)(t / T), r = (int)(t % T), ty = r / T1, tx = r % T1;
		dst0[l] = (size_t)b * a->out_b + (size_t)(4 * ty) * n + 4 * tx;
		rows[l] = n - 4 * ty < 4 ? n - 4 * ty : 4;
		cols[l] = n - 4 * tx < 4 ? n - 4 * tx : 4;
	}
	for (int co = 0; co < a->cout; co++) {
		float bias = a->bias ? a->bias[co] : 0.0f;
		float *out = a->out + (size_t)co * a->out_c;
		for (int g = 0; g < nt; g += W) {
			const float *m = M + (size_t)co * cs + g;
			vf s[4][6], x[6], o[4], y[16];
			for (int j = 0; j < 6; j++) {
				for (int i = 0; i < 6; i++)
					VLOAD(x[i], m + (i * 6 + j) * xs);
				AT4(x, o);
				for (int r = 0; r < 4; r++)
					s[r][j] = o[r];
			}
			for (int r = 0; r < 4; r++) {
				AT4(s[r], o);
				for (int c = 0; c < 4; c++)
					y[r * 4 + c] = o[c] + bias;
			}
			transpose16(y);
			int ln = nt - g < W ? nt - g : W;
			for (int l = 0; l < ln; l++) {
				float z[16], *dst = out + dst0[g + l];
				int ny = rows[g + l], nx = cols[g + l];
				if (!a->add && nx == 4) {
					VSTORE(z, y[l]);
					for (int i = 0; i < ny; i++)
						memcpy(dst + i * n, z + 4 * i, sizeof(float) * 4);
				} else {
					/* elements of the vector, not of a copy in memory:
					 * loads of part of a wide store stall */
					for (int i = 0; i < ny; i++)
						for (int j = 0; j < nx; j++)
							dst[i * n + j] = (a->add ? dst[i * n + j] : 0.0f) + y[l][4 * i + j];
				}
			}
		}
	}
}

void gt_wino_conv(const gt_wino_conv_args *a)
{
	int T1 = (a->n + 3) / 4;
	long total = (long)a->B * T1 * T1;
	float *V = a->scratch, *M = V + 36 * xstride(a->cin);
	float *pad = M + 36 * xstride(a->cout);
	size_t ucs = (size_t)a->cout * a->cin;
	for (long t0 = 0; t0 < total; t0 += TILES) {
		int nt = total - t0 < TILES ? (int)(total - t0) : TILES;
		input_transform(a, t0, nt, V, pad);
		for (int xi = 0; xi < 36; xi++)
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, a->cout, nt, a->cin,
			            1.0f, a->u + xi * ucs, a->cin,
			            V + xi * xstride(a->cin), TILES, 0.0f, M + xi * xstride(a->cout),
			            TILES);
		output_transform(a, t0, nt, M);
	}
}
