/*
 * int8.c: 8-bit integer 3x3 convolutions with int32 sums (int8.h), by
 * AMX-INT8 tiles, or by AVX512-VNNI (vpdpbusd, block512) on the same
 * packs where the CPU has no tiles, or by the dot product on arm64.
 *
 * tdpbsud multiplies a tile of 16 rows x 64 signed bytes of A (the
 * weights) by a tile of 16 rows x 16 quads of unsigned bytes of B (B's
 * rows 4p..4p+3 interleaved: the quad (B[4p][n], ..., B[4p+3][n]) is row
 * p's n-th 32-bit word) and adds the 16 x 16 int32 sums to a tile of C. A
 * block of 32 x 32 of C is 4 such tiles, fed by 2 tiles of A and 2 of B
 * per 64 values of k (the 8 tile registers), as bf16.c's bfloat16 blocks
 * with k twice as deep. A is packed once per parameter change (blocks of
 * 32 rows, each step's two 16 x 64 byte tiles contiguous, zeros padding
 * to 32 rows and 64 k: gt_int8_pack_at); B is packed NC
 * columns at a time into the quad layout, 16 columns per group. Every
 * block's sums go through a 32 x 32 int32 buffer and are dequantized
 * from there (one float multiply-add per element).
 *
 * The convolution quantizes the NC columns of a chunk and the halo its
 * 3x3 shifts reach (n + 1 columns each side) once per channel into
 * bytes, then packs the im2col from those bytes: each 64 columns of a row
 * are one masked 64-byte load at the row's shift (the masks say which
 * columns' points are on the board), four rows interleaved into quads.
 * The callers' packs and scratch are 64-byte aligned (gt_xmalloc64), so
 * that no tile row straddles two cache lines (measured: unaligned, bf16
 * and int8 ran at 0.6 and 0.75 of the speed).
 */
#include "int8.h"
#include "amx.h"
#include "gt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MT 32   /* rows of C per block: two tiles */
#define KT 64   /* k per tile */
#define NT 32   /* columns of C per block: two tiles */
#define NC 256  /* columns of B packed at a time (a multiple of NT) */

static int kpad(int K)
{
	return (K + KT - 1) / KT * KT;
}

size_t gt_int8_pack_size(int M, int K)
{
	return (size_t)(M + MT - 1) / MT * MT * kpad(K);
}

size_t gt_int8_scratch_size(int cin, int nmax)
{
	size_t qw = NC + 2 * (nmax + 1);
	return (size_t)kpad(cin * 9) * NC + (size_t)cin * qw + sizeof(float) * (qw + 16);
}

size_t gt_int8_pack_at(int K, int m, int k)
{
	return (size_t)(m / MT) * MT * kpad(K) + (size_t)(k / KT) * KT * MT + (size_t)(m % MT) * KT +
	       k % KT;
}

void gt_int8_pack(const float *A, int M, int K, int lda, int8_t *pa, float *sw)
{
	int Kp = kpad(K), Mp = (M + MT - 1) / MT * MT;
	memset(pa, 0, (size_t)Mp * Kp);
	for (int m = 0; m < M; m++) {
		const float *r = A + (size_t)m * lda;
		float mx = 0;
		for (int k = 0; k < K; k++)
			mx = fabsf(r[k]) > mx ? fabsf(r[k]) : mx;
		sw[m] = mx / 127.0f;
		float inv = mx > 0 ? 127.0f / mx : 0.0f;
		for (int k = 0; k < K; k++) {
			float q = nearbyintf(r[k] * inv);
			pa[gt_int8_pack_at(K, m, k)] = (int8_t)(q > 127 ? 127 : q < -127 ? -127 : q);
		}
	}
}

float gt_int8_board_max(const float *x, int cin, size_t x_c, int N, int relu)
{
	float mx = 0, mn = 0;
	for (int c = 0; c < cin; c++) {
		const float *r = x + (size_t)c * x_c;
		for (int p = 0; p < N; p++) {
			mx = r[p] > mx ? r[p] : mx;
			mn = r[p] < mn ? r[p] : mn;
		}
	}
	if (!relu && mn < 0)
		return -1;
	return mx;
}

/* what the products are dequantized with */
typedef struct deq {
	const float *sw, *bias; /* rows' scales, bias (or NULL) */
	int add;
} deq;

/* B of gt_int8_gemm, and the im2col of gt_int8_conv3x3 with each board's
 * scales, for the packers below */
typedef struct gemm_b {
	const uint8_t *B;
	const float *sb;
	int ldb, K;
} gemm_b;

typedef struct conv_ctx {
	const gt_int8_conv_args *a;
	const float *scale; /* per board: sa, top / max (0 for 0) */
	float top;          /* the largest byte (gt_int8_top) */
} conv_ctx;

/* how B's columns n0..n0+nc-1 are packed into bp, and their scales into
 * sb (nc floats) */
typedef void packer(const void *ctx, int n0, int nc, uint8_t *bp, float *sb);

/* C (M x N, row stride ldc) = dequantized A B as int8.h says, A packed in
 * pa (M x K), B packed by pack(ctx) into scratch NC columns at a time */
typedef void driver(int M, int N, int K, const int8_t *pa, float *C, long ldc, const deq *dq,
                    uint8_t *scratch, packer *pack, const void *ctx);

/* gt_int8_board_max's answer */
typedef float maxer(const float *x, int cin, size_t x_c, int N, int relu);

/* the kernels of one family: its driver, its packers of gt_int8_gemm's B
 * and of the convolution's im2col, its board maximum */
typedef struct kernels {
	driver *drive;
	packer *pack_gemm, *pack_conv;
	maxer *board_max;
	float top; /* the largest activation byte (gt_int8_top) */
} kernels;

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__)
#include <immintrin.h>

/* the kernel family of int8.c's own beside amx.h's: AVX2 without VNNI
 * (vpmaddubsw, block_madd) */
#define GT_KERN_MADD 4

/* the kernel family of the next product (amx.h gt_amx_choose), env the
 * variable that forces float32 (NULL: the family regardless); GT_NO_VNNI
 * takes the two VNNI families out, so that a CPU with AVX2 and FMA
 * falls to GT_KERN_MADD */
static int family_env(const char *env, const char **why)
{
	int bw = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	         __builtin_cpu_supports("avx512vl");
	int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
	const char *nv = getenv("GT_NO_VNNI");
	int novnni = nv && *nv && strcmp(nv, "0") != 0;
	int vnni = avx2 && __builtin_cpu_supports("avxvnni") && !novnni;
	const char *w;
	int k = gt_amx_choose(env, "GT_NO_INT8 is set", 25, bw,
	                      bw && __builtin_cpu_supports("avx512vnni") && !novnni, vnni,
	                      "the CPU has no AVX-512 VNNI",
	                      "the CPU has neither AMX-INT8, AVX512-VNNI, AVX-VNNI nor AVX2", &w);
	if (k == GT_KERN_NONE && avx2 && strcmp(w, "GT_NO_INT8 is set") != 0) {
		k = GT_KERN_MADD;
		w = novnni ? "GT_NO_VNNI is set"
		    : strcmp(w, "GT_NO_AVX512 is set") == 0 ? w
		                                            : "the CPU has neither AVX512-VNNI nor AVX-VNNI";
	}
	if (why)
		*why = w;
	return k;
}

static int family(const char **why)
{
	return family_env("GT_NO_INT8", why);
}

int gt_int8_available(const char **why)
{
	const char *w;
	int k = family(&w);
	if (why)
		*why = k == GT_KERN_NONE ? w : NULL;
	return k != GT_KERN_NONE;
}

const char *gt_int8_kernel(const char **why)
{
	int k = family(why);
	return k == GT_KERN_AMX      ? "amx-int8"
	       : k == GT_KERN_AVX512 ? "avx512-vnni"
	       : k == GT_KERN_AVX2   ? "avx-vnni"
	       : k == GT_KERN_MADD   ? "avx2"
	                             : NULL;
}

#define TARGET __attribute__((target("amx-tile,amx-int8,avx512f,avx512bw,avx512vl")))

/* the 32 x 32 block of int32 sums of rows a (packed A, row stride Kp) and
 * the column groups b0, b1 (row stride 64 bytes) into acc (32 x 32) */
TARGET static void block(int Kp, const int8_t *a, const uint8_t *b0, const uint8_t *b1,
                         int32_t *acc)
{
	_tile_zero(0);
	_tile_zero(1);
	_tile_zero(2);
	_tile_zero(3);
	for (int k = 0; k < Kp; k += KT) {
		_tile_loadd(4, a + (size_t)k * 32, 64);
		_tile_loadd(5, a + (size_t)k * 32 + 1024, 64);
		_tile_loadd(6, b0 + (size_t)k * 16, 64);
		_tile_loadd(7, b1 + (size_t)k * 16, 64);
		_tile_dpbsud(0, 4, 6);
		_tile_dpbsud(1, 4, 7);
		_tile_dpbsud(2, 5, 6);
		_tile_dpbsud(3, 5, 7);
	}
	_tile_stored(0, acc, 128);
	_tile_stored(1, acc + 16, 128);
	_tile_stored(2, acc + 16 * 32, 128);
	_tile_stored(3, acc + 16 * 32 + 16, 128);
}

#define TARGETV __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

/* the block of block() by AVX512-VNNI: vpdpbusd adds the 4 products of
 * unsigned by signed bytes of each 32-bit quad to an int32 lane (exact),
 * so each of 16 lanes of a column group takes one quad of row m's A
 * (broadcast) times its column's quad of B: the packs of the tiles serve
 * as they are. 8 rows by the 2 column groups a pass (16 accumulators);
 * only the first rows rows (in passes of 8) and cols columns (in groups
 * of 16) are computed, the rest of acc left as it was. */
TARGETV static void block512(int Kp, const int8_t *a, const uint8_t *b0, const uint8_t *b1,
                             int32_t *acc, int rows, int cols)
{
	int two = cols > 16;
	for (int r0 = 0; r0 < rows; r0 += 8) {
		__m512i s0[8], s1[8];
		#pragma GCC unroll 8
		for (int r = 0; r < 8; r++)
			s0[r] = s1[r] = _mm512_setzero_si512();
		for (int k = 0; k < Kp; k += KT) {
			/* this step's rows: 64 bytes each, row r0 + r at r 64 */
			const int8_t *as = a + (size_t)k * 32 + (size_t)r0 * KT;
			const uint8_t *x0p = b0 + (size_t)k * 16, *x1p = b1 + (size_t)k * 16;
			if (two) {
				for (int q = 0; q < KT / 4; q++) {
					__m512i x0 = _mm512_loadu_si512(x0p + 64 * q);
					__m512i x1 = _mm512_loadu_si512(x1p + 64 * q);
					#pragma GCC unroll 8
					for (int r = 0; r < 8; r++) {
						int32_t w;
						memcpy(&w, as + r * KT + 4 * q, 4);
						__m512i wv = _mm512_set1_epi32(w);
						s0[r] = _mm512_dpbusd_epi32(s0[r], x0, wv);
						s1[r] = _mm512_dpbusd_epi32(s1[r], x1, wv);
					}
				}
			} else {
				for (int q = 0; q < KT / 4; q++) {
					__m512i x0 = _mm512_loadu_si512(x0p + 64 * q);
					#pragma GCC unroll 8
					for (int r = 0; r < 8; r++) {
						int32_t w;
						memcpy(&w, as + r * KT + 4 * q, 4);
						s0[r] = _mm512_dpbusd_epi32(s0[r], x0, _mm512_set1_epi32(w));
					}
				}
			}
		}
		#pragma GCC unroll 8
		for (int r = 0; r < 8; r++) {
			_mm512_storeu_si512(acc + (r0 + r) * 32, s0[r]);
			if (two)
				_mm512_storeu_si512(acc + (r0 + r) * 32 + 16, s1[r]);
		}
	}
}

/* rows m0.. (rows of them) and columns j.. (cols) of C from acc; sb at
 * the block's first column */
TARGET static void dequant512(const int32_t *acc, int rows, int cols, int m0, const float *sb,
                           const deq *q, float *c, long ldc)
{
	for (int h = 0; h < 2 && 16 * h < cols; h++) {
		int left = cols - 16 * h;
		__mmask16 mk = left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);
		__m512 s = _mm512_maskz_loadu_ps(mk, sb + 16 * h);
		for (int r = 0; r < rows; r++) {
			float *o = c + (size_t)r * ldc + 16 * h;
			__m512 v = _mm512_cvtepi32_ps(_mm512_loadu_si512(acc + r * 32 + 16 * h));
			__m512 sc = _mm512_mul_ps(s, _mm512_set1_ps(q->sw[m0 + r]));
			__m512 base = q->add ? _mm512_maskz_loadu_ps(mk, o)
			              : _mm512_set1_ps(q->bias ? q->bias[m0 + r] : 0.0f);
			_mm512_mask_storeu_ps(o, mk, _mm512_fmadd_ps(v, sc, base));
		}
	}
}

/* four rows of 16 bytes interleaved into 16 quads at o (SSE2: inlined
 * into each family's packer, compiled for its target there) */
static inline __attribute__((always_inline)) void quads(__m128i r0, __m128i r1, __m128i r2, __m128i r3, uint8_t *o)
{
	__m128i l01 = _mm_unpacklo_epi8(r0, r1), h01 = _mm_unpackhi_epi8(r0, r1);
	__m128i l23 = _mm_unpacklo_epi8(r2, r3), h23 = _mm_unpackhi_epi8(r2, r3);
	_mm_storeu_si128((__m128i *)o, _mm_unpacklo_epi16(l01, l23));
	_mm_storeu_si128((__m128i *)(o + 16), _mm_unpackhi_epi16(l01, l23));
	_mm_storeu_si128((__m128i *)(o + 32), _mm_unpacklo_epi16(h01, h23));
	_mm_storeu_si128((__m128i *)(o + 48), _mm_unpackhi_epi16(h01, h23));
}

/* columns n0..n0+nc-1 of B (K rows) into bp: per group of 16 columns,
 * Kp/4 rows of 16 quads (zeros past K and past the columns) */
TARGET static void pack_gemm512(const void *ctx, int n0, int nc, uint8_t *bp, float *sb)
{
	const gemm_b *g = ctx;
	int Kp = kpad(g->K);
	memcpy(sb, g->sb + n0, sizeof(float) * nc);
	for (int gr = 0; gr * 16 < nc; gr++) {
		int left = nc - 16 * gr;
		__mmask16 m = left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);
		const uint8_t *col = g->B + n0 + 16 * gr;
		uint8_t *o = bp + (size_t)gr * Kp * 16;
		for (int p = 0; 4 * p < Kp; p++) {
			__m128i r[4];
			for (int i = 0; i < 4; i++)
				r[i] = _mm_maskz_loadu_epi8(4 * p + i < g->K ? m : 0,
				                            col + (size_t)(4 * p + i) * g->ldb);
			quads(r[0], r[1], r[2], r[3], o + (size_t)p * 64);
		}
	}
}


/* gt_int8_board_max by AVX512 (the same max: max is exact; +0 for a
 * board of zeros of either sign, as the portable one) */
TARGET static float board_max512(const float *x, int cin, size_t x_c, int N, int relu)
{
	__m512 mx = _mm512_setzero_ps(), mn = _mm512_setzero_ps();
	for (int c = 0; c < cin; c++) {
		const float *r = x + (size_t)c * x_c;
		for (int p = 0; p < N; p += 16) {
			__mmask16 m = N - p >= 16 ? 0xffff : (__mmask16)((1u << (N - p)) - 1);
			__m512 v = _mm512_maskz_loadu_ps(m, r + p);
			mx = _mm512_max_ps(mx, v);
			mn = _mm512_min_ps(mn, v);
		}
	}
	if (!relu && _mm512_reduce_min_ps(mn) < 0)
		return -1;
	float m = _mm512_reduce_max_ps(mx);
	return m > 0 ? m : 0.0f;
}

/* the layout both conv packers share for columns n0..n0+nc-1: K rows
 * padded to Kp; after the packed B (bp) cin rows of QW bytes, the
 * quantized columns n0 - h + i (qb), then the inverse scales of the
 * quantized span lo..lo+span-1 (iv); fills iv and the columns' scales sb */
typedef struct conv_span {
	int Kp, h, QW, span;
	long lo;
	uint8_t *qb;
	float *iv;
} conv_span;

static inline __attribute__((always_inline)) conv_span span_of(const conv_ctx *cc, int n0, int nc,
                                                               uint8_t *bp, float *sb)
{
	const gt_int8_conv_args *a = cc->a;
	int n = a->n, N = n * n;
	conv_span c;
	c.Kp = kpad(a->cin * 9);
	c.h = n + 1;
	c.QW = NC + 2 * c.h;
	c.qb = bp + (size_t)c.Kp * NC;
	c.lo = n0 - c.h < 0 ? 0 : n0 - c.h;
	long hi = n0 + nc + c.h > a->cols ? a->cols : n0 + nc + c.h;
	c.span = (int)(hi - c.lo);
	c.iv = (float *)(c.qb + ((size_t)a->cin * c.QW + 63) / 64 * 64);
	for (long j = c.lo; j < hi; j++)
		c.iv[j - c.lo] = cc->scale[2 * (j / N) + 1];
	for (int j = 0; j < nc; j++)
		sb[j] = cc->scale[2 * ((n0 + j) / N)];
	return c;
}

/* rows 4p..4p+3 of the im2col (row k = ci 9 + shift index): each row's
 * source in the quantized rows (base + ci QW + shift[s]), its shift
 * index, and whether it is a row of the input (live) or padding; *ci and
 * *s walk on to row 4p+4 */
static inline __attribute__((always_inline)) void quad_rows(const uint8_t *base, int QW,
                                                            const long shift[9], int cin, int *ci,
                                                            int *s, const uint8_t *src[4],
                                                            int sh[4], int live[4])
{
	for (int i = 0; i < 4; i++) {
		live[i] = *ci < cin;
		sh[i] = *s;
		src[i] = base + (live[i] ? (size_t)*ci * QW + shift[*s] : 0);
		if (++*s == 9) {
			*s = 0;
			++*ci;
		}
	}
}

/* columns n0..n0+nc-1 of the im2col of a->in (relu'd if a->relu),
 * quantized by board, into bp as pack_gemm lays out B: row k = ci 9 +
 * ky 3 + kx of column j (point (y, x) of a board) is in[ci][j + (ky-1) n
 * + (kx-1)] where the point (y+ky-1, x+kx-1) is on the board, else 0 */
TARGET static void pack_conv512(const void *ctx, int n0, int nc, uint8_t *bp, float *sb)
{
	const conv_ctx *cc = ctx;
	const gt_int8_conv_args *a = cc->a;
	const conv_span c = span_of(cc, n0, nc, bp, sb);
	const int n = a->n, h = c.h, QW = c.QW, Kp = c.Kp, span = c.span;
	const long lo = c.lo;
	uint8_t *qb = c.qb;
	const float *iv = c.iv;
	/* quantize: qb[ci][j - (n0 - h)] for j in lo..lo+span-1 */
	const __m512 zero = _mm512_setzero_ps(), top = _mm512_set1_ps(255.0f);
	for (int ci = 0; ci < a->cin; ci++) {
		const float *src = a->in + (size_t)ci * a->in_c + lo;
		uint8_t *dst = qb + (size_t)ci * QW + (lo - (n0 - h));
		for (int j = 0; j < span; j += 16) {
			int left = span - j;
			__mmask16 m = left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);
			__m512 x = _mm512_maskz_loadu_ps(m, src + j);
			if (a->relu)
				x = _mm512_max_ps(x, zero);
			x = _mm512_min_ps(_mm512_mul_ps(x, _mm512_maskz_loadu_ps(m, iv + j)), top);
			__m512i q = _mm512_cvtps_epi32(x);
			_mm_mask_storeu_epi8(dst + j, m, _mm512_cvtusepi32_epi8(q));
		}
	}
	/* the masks of each group of 16 columns for each shift */
	long shift[9];
	__mmask16 mk[NC / 16][9];
	int ng = (nc + 15) / 16;
	gt_amx_shift_masks(n, n0, nc, &mk[0][0], shift);
	/* the masks of 64 columns (4 groups) at a time */
	__mmask64 mk4[NC / 64][9];
	int ng4 = (ng + 3) / 4;
	for (int g = 0; g < ng4; g++)
		for (int o = 0; o < 9; o++) {
			uint64_t m = 0;
			for (int j = 0; j < 4 && 4 * g + j < ng; j++)
				m |= (uint64_t)mk[4 * g + j][o] << (16 * j);
			mk4[g][o] = m;
		}
	/* row quad by row quad, each along the columns, 64 at a time: the
	 * quads interleaved within each 128-bit lane (16 columns), then the
	 * lanes transposed so that each group's 64 bytes are together */
	const uint8_t *base = qb + h;
	int ci = 0, s = 0; /* row 4p's channel and shift */
	for (int p = 0; 4 * p < Kp; p++) {
		const uint8_t *src[4];
		int sh[4], live[4];
		quad_rows(base, QW, shift, a->cin, &ci, &s, src, sh, live);
		uint8_t *out = bp + (size_t)p * 64;
		for (int g = 0; g < ng4; g++) {
			__m512i r[4];
			for (int i = 0; i < 4; i++)
				r[i] = _mm512_maskz_loadu_epi8(live[i] ? mk4[g][sh[i]] : 0, src[i] + 64 * g);
			__m512i l01 = _mm512_unpacklo_epi8(r[0], r[1]), h01 = _mm512_unpackhi_epi8(r[0], r[1]);
			__m512i l23 = _mm512_unpacklo_epi8(r[2], r[3]), h23 = _mm512_unpackhi_epi8(r[2], r[3]);
			__m512i q0 = _mm512_unpacklo_epi16(l01, l23), q1 = _mm512_unpackhi_epi16(l01, l23);
			__m512i q2 = _mm512_unpacklo_epi16(h01, h23), q3 = _mm512_unpackhi_epi16(h01, h23);
			__m512i t0 = _mm512_shuffle_i64x2(q0, q1, 0x44), t1 = _mm512_shuffle_i64x2(q0, q1, 0xee);
			__m512i t2 = _mm512_shuffle_i64x2(q2, q3, 0x44), t3 = _mm512_shuffle_i64x2(q2, q3, 0xee);
			uint8_t *o = out + (size_t)4 * g * Kp * 16;
			size_t gs = (size_t)Kp * 16;
			_mm512_storeu_si512(o, _mm512_shuffle_i64x2(t0, t2, 0x88));
			_mm512_storeu_si512(o + gs, _mm512_shuffle_i64x2(t0, t2, 0xdd));
			_mm512_storeu_si512(o + 2 * gs, _mm512_shuffle_i64x2(t1, t3, 0x88));
			_mm512_storeu_si512(o + 3 * gs, _mm512_shuffle_i64x2(t1, t3, 0xdd));
		}
	}
}

/* _tile_release where the tiles were used (its own target: drive_body
 * is inlined into drivers of other targets too) */
TARGET static void tiles_release(void)
{
	_tile_release();
}

/* the AVX2 + AVX-VNNI kernels of the same packs (pack_gemm256,
 * pack_conv256: the same bytes as pack_gemm512, pack_conv512); the
 * packers, board maximum and dequantization need AVX2 and FMA alone
 * (TARGETA), and serve block_madd's family too */
#define TARGET2 __attribute__((target("avx2,fma,avxvnni")))
#define TARGETA __attribute__((target("avx2,fma")))

/* the passes of block256 and block_madd: a column group's row of 16
 * quads is two vectors of 8, so 4 rows by one group a pass (8
 * accumulators, 2 vectors of B and 4 broadcast quads of A per quad row:
 * the 16 registers of AVX2 hold them); the groups one after the other.
 * Only the first rows rows (in passes of 4) and cols columns (in groups
 * of 16) are computed, the rest of acc left as it was. DOT(s, x, w): s
 * plus, in each int32 lane, the quad of x's unsigned bytes times w's
 * signed quad. One body for the two targets (a macro: each function's
 * intrinsics must be compiled for its own target). */
#define BLOCK256_PASSES(DOT)                                                                   \
	for (int g = 0; 16 * g < cols; g++) {                                                  \
		const uint8_t *bg = g ? b1 : b0;                                               \
		for (int r0 = 0; r0 < rows; r0 += 4) {                                         \
			__m256i s0[4], s1[4];                                                  \
			_Pragma("GCC unroll 4") for (int r = 0; r < 4; r++) s0[r] = s1[r] =    \
				_mm256_setzero_si256();                                        \
			for (int k = 0; k < Kp; k += KT) {                                     \
				const int8_t *as = a + (size_t)k * 32 + (size_t)r0 * KT;       \
				const uint8_t *xp = bg + (size_t)k * 16;                       \
				_Pragma("GCC unroll 2") for (int q = 0; q < KT / 4; q++) {     \
					__m256i x0 = _mm256_loadu_si256((const __m256i *)(xp + 64 * q));      \
					__m256i x1 =                                           \
						_mm256_loadu_si256((const __m256i *)(xp + 64 * q + 32)); \
					_Pragma("GCC unroll 4") for (int r = 0; r < 4; r++) {  \
						int32_t w;                                     \
						memcpy(&w, as + r * KT + 4 * q, 4);            \
						__m256i wv = _mm256_set1_epi32(w);             \
						s0[r] = DOT(s0[r], x0, wv);                    \
						s1[r] = DOT(s1[r], x1, wv);                    \
					}                                                      \
				}                                                              \
			}                                                                      \
			_Pragma("GCC unroll 4") for (int r = 0; r < 4; r++) {                  \
				_mm256_storeu_si256((__m256i *)(acc + (r0 + r) * 32 + 16 * g), s0[r]);     \
				_mm256_storeu_si256((__m256i *)(acc + (r0 + r) * 32 + 16 * g + 8), s1[r]); \
			}                                                                      \
		}                                                                              \
	}

/* block512 by AVX-VNNI's 256-bit vpdpbusd (VEX), in BLOCK256_PASSES: the
 * int32 sums are block512's, exactly. */
TARGET2 static void block256(int Kp, const int8_t *a, const uint8_t *b0, const uint8_t *b1,
                             int32_t *acc, int rows, int cols)
{
#define DOT_VNNI(s, x, w) _mm256_dpbusd_avx_epi32(s, x, w)
	BLOCK256_PASSES(DOT_VNNI)
#undef DOT_VNNI
}

/* block256 by AVX2 alone (a CPU without VNNI: AMD Zen 2 and 3, Intel
 * Haswell to Comet Lake): vpmaddubsw multiplies the unsigned bytes of B
 * by the signed bytes of A and adds adjacent pairs into int16 lanes with
 * saturation, vpmaddwd by ones adds the two pairs of each quad into
 * int32, exactly as vpdpbusd's quad when no pair saturates: with B's
 * bytes at most 127 (gt_int8_top) a pair is at most 2 x 127 x 127 =
 * 32258 < 2^15, so the sums are exact. */
TARGETA static void block_madd(int Kp, const int8_t *a, const uint8_t *b0, const uint8_t *b1,
                               int32_t *acc, int rows, int cols)
{
	const __m256i ones = _mm256_set1_epi16(1);
#define DOT_MADD(s, x, w) _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_maddubs_epi16(x, w), ones))
	BLOCK256_PASSES(DOT_MADD)
#undef DOT_MADD
}

/* the lanes of 8 below left (left < 8) set, as _mm256_maskload's masks */
TARGETA static inline __m256i first8(int left)
{
	return _mm256_cmpgt_epi32(_mm256_set1_epi32(left), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* dequant512 by AVX2, 8 columns at a time: the same float operations
 * (the sum converted, sc = sb sw a float product, one fused multiply-add
 * onto the base), so the same results */
TARGETA static void dequant256(const int32_t *acc, int rows, int cols, int m0, const float *sb,
                               const deq *q, float *c, long ldc)
{
	for (int h = 0; 8 * h < cols; h++) {
		int left = cols - 8 * h, full = left >= 8;
		__m256i mk = first8(left);
		__m256 s = full ? _mm256_loadu_ps(sb + 8 * h) : _mm256_maskload_ps(sb + 8 * h, mk);
		for (int r = 0; r < rows; r++) {
			float *o = c + (size_t)r * ldc + 8 * h;
			__m256 v = _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)(acc + r * 32 + 8 * h)));
			__m256 sc = _mm256_mul_ps(s, _mm256_set1_ps(q->sw[m0 + r]));
			__m256 base = !q->add ? _mm256_set1_ps(q->bias ? q->bias[m0 + r] : 0.0f)
			              : full  ? _mm256_loadu_ps(o)
			                      : _mm256_maskload_ps(o, mk);
			__m256 y = _mm256_fmadd_ps(v, sc, base);
			if (full)
				_mm256_storeu_ps(o, y);
			else
				_mm256_maskstore_ps(o, mk, y);
		}
	}
}

/* pack_gemm512 by AVX2: the rows' bytes past the columns read as zeros */
TARGETA static void pack_gemm256(const void *ctx, int n0, int nc, uint8_t *bp, float *sb)
{
	const gemm_b *g = ctx;
	int Kp = kpad(g->K);
	memcpy(sb, g->sb + n0, sizeof(float) * nc);
	for (int gr = 0; gr * 16 < nc; gr++) {
		int left = nc - 16 * gr;
		const uint8_t *col = g->B + n0 + 16 * gr;
		uint8_t *o = bp + (size_t)gr * Kp * 16;
		for (int p = 0; 4 * p < Kp; p++) {
			__m128i r[4];
			for (int i = 0; i < 4; i++) {
				const uint8_t *src = col + (size_t)(4 * p + i) * g->ldb;
				if (4 * p + i >= g->K) {
					r[i] = _mm_setzero_si128();
				} else if (left >= 16) {
					r[i] = _mm_loadu_si128((const __m128i *)src);
				} else {
					uint8_t t[16] = {0};
					memcpy(t, src, left);
					r[i] = _mm_loadu_si128((const __m128i *)t);
				}
			}
			quads(r[0], r[1], r[2], r[3], o + (size_t)p * 64);
		}
	}
}

/* gt_int8_board_max by AVX2 (the same max: max is exact; +0 for a board
 * of zeros of either sign) */
TARGETA static float board_max256(const float *x, int cin, size_t x_c, int N, int relu)
{
	__m256 mx = _mm256_setzero_ps(), mn = _mm256_setzero_ps();
	__m256i tail = first8(N % 8);
	for (int c = 0; c < cin; c++) {
		const float *r = x + (size_t)c * x_c;
		int p = 0;
		for (; p + 8 <= N; p += 8) {
			__m256 v = _mm256_loadu_ps(r + p);
			mx = _mm256_max_ps(mx, v);
			mn = _mm256_min_ps(mn, v);
		}
		if (p < N) {
			__m256 v = _mm256_maskload_ps(r + p, tail);
			mx = _mm256_max_ps(mx, v);
			mn = _mm256_min_ps(mn, v);
		}
	}
	float h[8], m = 0, l = 0;
	_mm256_storeu_ps(h, mn);
	for (int i = 0; i < 8; i++)
		l = h[i] < l ? h[i] : l;
	if (!relu && l < 0)
		return -1;
	_mm256_storeu_ps(h, mx);
	for (int i = 0; i < 8; i++)
		m = h[i] > m ? h[i] : m;
	return m;
}

/* 32 bytes, byte i 0xff where bit i of m is set (the masks of
 * pack_conv512's masked loads, to and with) */
TARGETA static inline __m256i bytes_of(uint32_t m)
{
	const __m256i pick = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2,
	                                      2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
	const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ull);
	__m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32((int)m), pick);
	return _mm256_cmpeq_epi8(_mm256_and_si256(v, bit), bit);
}

/* pack_conv512 by AVX2: the same bytes. The quantization 8 columns at a
 * time (the same float operations and rounding: max with 0, the product
 * by the inverse scale, min with the top (255, or 127 for block_madd), to int32 by the rounding mode,
 * round to nearest even), the tails by _mm256_maskload_ps and bytes
 * stored one by one; the im2col 32 columns (two groups) at a time by
 * unmasked 32-byte loads anded with the masks of the columns on the board
 * (they read at most 31 bytes past the quantized rows: the scratch's
 * inverse scales, never used) */
TARGETA static void pack_conv256(const void *ctx, int n0, int nc, uint8_t *bp, float *sb)
{
	const conv_ctx *cc = ctx;
	const gt_int8_conv_args *a = cc->a;
	const conv_span c = span_of(cc, n0, nc, bp, sb);
	const int n = a->n, h = c.h, QW = c.QW, Kp = c.Kp, span = c.span;
	const long lo = c.lo;
	uint8_t *qb = c.qb;
	const float *iv = c.iv;
	const __m256 zero = _mm256_setzero_ps(), top = _mm256_set1_ps(cc->top);
	__m256i tail = first8(span % 8);
	for (int ci = 0; ci < a->cin; ci++) {
		const float *src = a->in + (size_t)ci * a->in_c + lo;
		uint8_t *dst = qb + (size_t)ci * QW + (lo - (n0 - h));
		for (int j = 0; j < span; j += 8) {
			int full = span - j >= 8;
			__m256 x = full ? _mm256_loadu_ps(src + j) : _mm256_maskload_ps(src + j, tail);
			__m256 v = full ? _mm256_loadu_ps(iv + j) : _mm256_maskload_ps(iv + j, tail);
			if (a->relu)
				x = _mm256_max_ps(x, zero);
			x = _mm256_min_ps(_mm256_mul_ps(x, v), top);
			__m256i q = _mm256_cvtps_epi32(x);
			__m128i w = _mm_packus_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
			w = _mm_packus_epi16(w, w);
			if (full) {
				_mm_storel_epi64((__m128i *)(dst + j), w);
			} else {
				uint8_t t[16];
				_mm_storeu_si128((__m128i *)t, w);
				memcpy(dst + j, t, span - j);
			}
		}
	}
	long shift[9];
	uint16_t mk[NC / 16][9];
	int ng = (nc + 15) / 16, ng2 = (ng + 1) / 2;
	gt_amx_shift_masks(n, n0, nc, &mk[0][0], shift);
	/* the byte masks of 32 columns (2 groups) at a time */
	__m256i mv[NC / 32][9];
	for (int g = 0; g < ng2; g++)
		for (int o = 0; o < 9; o++)
			mv[g][o] = bytes_of(mk[2 * g][o] | (2 * g + 1 < ng ? (uint32_t)mk[2 * g + 1][o] << 16 : 0));
	const uint8_t *base = qb + h;
	size_t gs = (size_t)Kp * 16;
	int ci = 0, s = 0;
	for (int p = 0; 4 * p < Kp; p++) {
		const uint8_t *src[4];
		int sh[4], live[4];
		quad_rows(base, QW, shift, a->cin, &ci, &s, src, sh, live);
		uint8_t *out = bp + (size_t)p * 64;
		for (int g = 0; g < ng2; g++) {
			__m256i r[4];
			for (int i = 0; i < 4; i++)
				r[i] = live[i] ? _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(src[i] + 32 * g)),
				                                  mv[g][sh[i]])
				               : _mm256_setzero_si256();
			/* per 128-bit lane (one group of 16 columns): the quads of
			 * columns 0-3, 4-7, 8-11, 12-15 */
			__m256i l01 = _mm256_unpacklo_epi8(r[0], r[1]), h01 = _mm256_unpackhi_epi8(r[0], r[1]);
			__m256i l23 = _mm256_unpacklo_epi8(r[2], r[3]), h23 = _mm256_unpackhi_epi8(r[2], r[3]);
			__m256i q0 = _mm256_unpacklo_epi16(l01, l23), q1 = _mm256_unpackhi_epi16(l01, l23);
			__m256i q2 = _mm256_unpacklo_epi16(h01, h23), q3 = _mm256_unpackhi_epi16(h01, h23);
			uint8_t *o = out + (size_t)2 * g * gs;
			_mm256_storeu_si256((__m256i *)o, _mm256_permute2x128_si256(q0, q1, 0x20));
			_mm256_storeu_si256((__m256i *)(o + 32), _mm256_permute2x128_si256(q2, q3, 0x20));
			_mm256_storeu_si256((__m256i *)(o + gs), _mm256_permute2x128_si256(q0, q1, 0x31));
			_mm256_storeu_si256((__m256i *)(o + gs + 32), _mm256_permute2x128_si256(q2, q3, 0x31));
		}
	}
}

/* the driver of each family, fam a constant: block (AMX), block512 or
 * block256 on 32 x 32 blocks of C, dequantized by dequant512 or
 * dequant256 (inlined into each family's driver, compiled for its
 * target) */
static inline __attribute__((always_inline)) void
drive_body(int fam, int M, int N, int K, const int8_t *pa, float *C, long ldc, const deq *dq0,
           uint8_t *scratch, packer *pack, const void *ctx)
{
	if (fam == GT_KERN_AMX)
		gt_amx_tiles();
	int Kp = kpad(K);
	_Alignas(64) int32_t acc[MT * NT];
	float sb[NC];
	deq dq = *dq0;
	for (int n0 = 0; n0 < N; n0 += NC) {
		int nc = N - n0 < NC ? N - n0 : NC;
		pack(ctx, n0, nc, scratch, sb);
		/* the tile loads are asm without memory operands: the packed
		 * stores must be done before them */
		__asm__ volatile("" ::: "memory");
		for (int j = 0; j < nc; j += NT) {
			const uint8_t *b0 = scratch + (size_t)(j / 16) * Kp * 16, *b1 = b0 + (size_t)Kp * 16;
			int cols = nc - j < NT ? nc - j : NT;
			for (int m = 0; m < M; m += MT) {
				int rows = M - m < MT ? M - m : MT;
				float *c = C + (size_t)m * ldc + n0 + j;
				if (fam == GT_KERN_AMX)
					block(Kp, pa + (size_t)m * Kp, b0, b1, acc);
				else if (fam == GT_KERN_AVX512)
					block512(Kp, pa + (size_t)m * Kp, b0, b1, acc, rows, cols);
				else if (fam == GT_KERN_AVX2)
					block256(Kp, pa + (size_t)m * Kp, b0, b1, acc, rows, cols);
				else
					block_madd(Kp, pa + (size_t)m * Kp, b0, b1, acc, rows, cols);
				__asm__ volatile("" ::: "memory");
				if (fam == GT_KERN_AVX2 || fam == GT_KERN_MADD)
					dequant256(acc, rows, cols, m, sb + j, &dq, c, ldc);
				else
					dequant512(acc, rows, cols, m, sb + j, &dq, c, ldc);
			}
		}
	}
	if (fam == GT_KERN_AMX)
		tiles_release();
}

TARGET static void drive_amx(int M, int N, int K, const int8_t *pa, float *C, long ldc,
                             const deq *dq, uint8_t *scratch, packer *pack, const void *ctx)
{
	drive_body(GT_KERN_AMX, M, N, K, pa, C, ldc, dq, scratch, pack, ctx);
}

TARGET static void drive512(int M, int N, int K, const int8_t *pa, float *C, long ldc,
                            const deq *dq, uint8_t *scratch, packer *pack, const void *ctx)
{
	drive_body(GT_KERN_AVX512, M, N, K, pa, C, ldc, dq, scratch, pack, ctx);
}

TARGET2 static void drive256(int M, int N, int K, const int8_t *pa, float *C, long ldc,
                             const deq *dq, uint8_t *scratch, packer *pack, const void *ctx)
{
	drive_body(GT_KERN_AVX2, M, N, K, pa, C, ldc, dq, scratch, pack, ctx);
}

TARGETA static void drive_madd(int M, int N, int K, const int8_t *pa, float *C, long ldc,
                               const deq *dq, uint8_t *scratch, packer *pack, const void *ctx)
{
	drive_body(GT_KERN_MADD, M, N, K, pa, C, ldc, dq, scratch, pack, ctx);
}

/* the kernels of the family the CPU and GT_NO_AMX, GT_NO_AVX512 choose
 * now (GT_NO_INT8 is gt_int8_available's: a network already in int8
 * goes on in it); abort where the CPU has none */
static const kernels *kernels_now(void)
{
	static const kernels amx = {drive_amx, pack_gemm512, pack_conv512, board_max512, 255};
	static const kernels v512 = {drive512, pack_gemm512, pack_conv512, board_max512, 255};
	static const kernels v256 = {drive256, pack_gemm256, pack_conv256, board_max256, 255};
	static const kernels madd = {drive_madd, pack_gemm256, pack_conv256, board_max256, 127};
	switch (family_env(NULL, NULL)) {
	case GT_KERN_AMX:
		return &amx;
	case GT_KERN_AVX512:
		return &v512;
	case GT_KERN_AVX2:
		return &v256;
	case GT_KERN_MADD:
		return &madd;
	}
	abort(); /* never available here */
}

#define INT8_KERNEL 1
#elif defined(__aarch64__) && defined(__linux__) && defined(__GNUC__)
/* arm64 with the dot-product instructions (Armv8.2 DotProd, optional
 * before Armv8.4; Linux's HWCAP_ASIMDDP): sdot, 4 products of signed
 * bytes summed into each int32 lane. The activations are unsigned, so
 * each column holds qa - 128 (qa ^ 0x80 as a signed byte) and each row's
 * sum gains 128 sum_k qw back: exact in int32 as on AMX, the same
 * dequantization (fmaf of the float sum by sb sw), so the same result. */
#include <arm_neon.h>
#include <sys/auxv.h>
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1 << 20)
#endif

static const char no_env[] = "GT_NO_INT8 is set";

int gt_int8_available(const char **why)
{
	const char *no = gt_amx_why_not("GT_NO_INT8", no_env, 25, 0,
	                                "the CPU has no int8 dot product (asimddp)");
	if (no != no_env && (getauxval(AT_HWCAP) & HWCAP_ASIMDDP))
		no = NULL;
	if (why)
		*why = no;
	return no == NULL;
}

const char *gt_int8_kernel(const char **why)
{
	return gt_int8_available(why) ? "neon-dotprod" : NULL;
}

#define DP __attribute__((target("arch=armv8.2-a+dotprod")))

/* C[m][n0 + j] for the M rows of pa and the nc columns of colb (each Kp
 * signed bytes, qa - 128), sb their scales */
DP static void dot_block(int M, int K, int nc, const int8_t *pa, const int8_t *colb,
                         const float *sb, const deq *q, float *C, long ldc, int n0)
{
	int Kp = kpad(K), nk = Kp / KT;
	for (int m = 0; m < M; m++) {
		/* row m: KT bytes at row + kb KT MT for each k block kb */
		const int8_t *row = pa + (size_t)(m / MT) * MT * Kp + (size_t)(m % MT) * KT;
		int32x4_t rv = vdupq_n_s32(0);
		const int8x16_t ones = vdupq_n_s8(1);
		for (int kb = 0; kb < nk; kb++)
			for (int i = 0; i < KT; i += 16)
				rv = vdotq_s32(rv, vld1q_s8(row + (size_t)kb * KT * MT + i), ones);
		int32_t back = 128 * vaddvq_s32(rv);
		float sw = q->sw[m], b0 = q->bias ? q->bias[m] : 0.0f;
		float *c = C + (size_t)m * ldc + n0;
		int j = 0;
		for (; j + 4 <= nc; j += 4) {
			const int8_t *b = colb + (size_t)j * Kp;
			int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0;
			for (int kb = 0; kb < nk; kb++)
				for (int i = 0; i < KT; i += 16) {
					int8x16_t r = vld1q_s8(row + (size_t)kb * KT * MT + i);
					int k = kb * KT + i;
					a0 = vdotq_s32(a0, r, vld1q_s8(b + k));
					a1 = vdotq_s32(a1, r, vld1q_s8(b + Kp + k));
					a2 = vdotq_s32(a2, r, vld1q_s8(b + 2 * (size_t)Kp + k));
					a3 = vdotq_s32(a3, r, vld1q_s8(b + 3 * (size_t)Kp + k));
				}
			int32_t s[4] = {vaddvq_s32(a0), vaddvq_s32(a1), vaddvq_s32(a2), vaddvq_s32(a3)};
			for (int l = 0; l < 4; l++)
				c[j + l] = fmaf((float)(s[l] + back), sb[j + l] * sw, q->add ? c[j + l] : b0);
		}
		for (; j < nc; j++) {
			const int8_t *b = colb + (size_t)j * Kp;
			int32x4_t a0 = vdupq_n_s32(0);
			for (int kb = 0; kb < nk; kb++)
				for (int i = 0; i < KT; i += 16)
					a0 = vdotq_s32(a0, vld1q_s8(row + (size_t)kb * KT * MT + i),
					               vld1q_s8(b + kb * KT + i));
			c[j] = fmaf((float)(vaddvq_s32(a0) + back), sb[j] * sw, q->add ? c[j] : b0);
		}
	}
}

/* C = dequantized A B as int8.h says, NC columns at a time (scratch holds
 * Kp NC bytes: gt_int8_scratch_size) */
static void drive(int M, int N, int K, const int8_t *pa, float *C, long ldc, const deq *dq,
                  uint8_t *scratch, packer *pack, const void *ctx)
{
	float sb[NC];
	for (int n0 = 0; n0 < N; n0 += NC) {
		int nc = N - n0 < NC ? N - n0 : NC;
		pack(ctx, n0, nc, scratch, sb);
		dot_block(M, K, nc, pa, (const int8_t *)scratch, sb, dq, C, ldc, n0);
	}
}

static void pack_gemm(const void *ctx, int n0, int nc, uint8_t *bp, float *sb)
{
	int8_t *colb = (int8_t *)bp;
	const gemm_b *g = ctx;
	int Kp = kpad(g->K);
	memcpy(sb, g->sb + n0, sizeof(float) * nc);
	for (int j = 0; j < nc; j++) {
		int8_t *o = colb + (size_t)j * Kp;
		for (int k = 0; k < g->K; k++)
			o[k] = (int8_t)(g->B[(size_t)k * g->ldb + n0 + j] ^ 0x80);
		memset(o + g->K, 0, Kp - g->K);
	}
}


/* columns n0..n0+nc-1 of the im2col of a->in (relu'd if a->relu),
 * quantized by board: row k = ci 9 + ky 3 + kx of column j (point (y, x)
 * of board b) is in[ci][b n n + (y+ky-1) n + (x+kx-1)] where that point
 * is on the board, else 0 */
static void pack_conv(const void *ctx, int n0, int nc, uint8_t *bp, float *sb)
{
	int8_t *colb = (int8_t *)bp;
	const conv_ctx *cc = ctx;
	const gt_int8_conv_args *a = cc->a;
	int K = a->cin * 9, Kp = kpad(K), n = a->n, N = n * n;
	for (int j = 0; j < nc; j++) {
		long col = n0 + j, b = col / N;
		int p = (int)(col % N), y = p / n, x = p % n;
		float iv = cc->scale[2 * b + 1];
		sb[j] = cc->scale[2 * b];
		int8_t *o = colb + (size_t)j * Kp;
		for (int ci = 0; ci < a->cin; ci++) {
			const float *src = a->in + (size_t)ci * a->in_c + b * N;
			for (int ky = 0; ky < 3; ky++)
				for (int kx = 0; kx < 3; kx++) {
					int yy = y + ky - 1, xx = x + kx - 1;
					float v = yy >= 0 && yy < n && xx >= 0 && xx < n ? src[yy * n + xx] : 0.0f;
					if (a->relu && !(v > 0))
						v = 0;
					v = fminf(v * iv, 255.0f);
					*o++ = (int8_t)((uint8_t)nearbyintf(v) ^ 0x80);
				}
		}
		memset(o, 0, Kp - K);
	}
}


/* gt_int8_board_max as it is (the NEON code GCC makes of it) */
static float board_max(const float *x, int cin, size_t x_c, int N, int relu)
{
	return gt_int8_board_max(x, cin, x_c, N, relu);
}

/* the one family */
static const kernels *kernels_now(void)
{
	static const kernels k = {drive, pack_gemm, pack_conv, board_max, 255};
	return &k;
}
#define INT8_KERNEL 1
#endif

#ifdef INT8_KERNEL
/* the same for every family: the driver, packers and board maximum
 * are each one's (kernels_now) */
void gt_int8_gemm(int M, int N, int K, const int8_t *pa, const float *sw, const uint8_t *B,
                  int ldb, const float *sb, const float *bias, float *C, int ldc, int add,
                  uint8_t *scratch)
{
	gemm_b g = {B, sb, ldb, K};
	deq dq = {sw, bias, add};
	const kernels *ks = kernels_now();
	ks->drive(M, N, K, pa, C, ldc, &dq, scratch, ks->pack_gemm, &g);
}

float gt_int8_top(void)
{
	return kernels_now()->top;
}

int gt_int8_conv3x3(const gt_int8_conv_args *a)
{
	int N = a->n * a->n;
	long boards = a->cols / N;
	const kernels *ks = kernels_now();
	float *scale = gt_xmalloc(sizeof(float) * 2 * (size_t)boards);
	for (long b = 0; b < boards; b++) {
		float mx = ks->board_max(a->in + b * N, a->cin, a->in_c, N, a->relu);
		if (mx < 0) {
			free(scale);
			return -1;
		}
		scale[2 * b] = mx / ks->top;
		scale[2 * b + 1] = mx > 0 ? ks->top / mx : 0.0f;
	}
	conv_ctx cc = {a, scale, ks->top};
	deq dq = {a->sw, a->add ? NULL : a->bias, a->add};
	ks->drive(a->cout, (int)a->cols, a->cin * 9, a->w, a->out, (long)a->out_c, &dq, a->scratch,
	          ks->pack_conv, &cc);
	free(scale);
	return 0;
}
#else
int gt_int8_available(const char **why)
{
	/* as on an x86 CPU without it: GT_NO_INT8 first */
	const char *no = gt_amx_why_not("GT_NO_INT8", "GT_NO_INT8 is set", 25, 0,
	                                "the CPU has neither AMX-INT8, AVX512-VNNI nor AVX-VNNI");
	if (why)
		*why = no;
	return 0;
}

const char *gt_int8_kernel(const char **why)
{
	gt_int8_available(why);
	return NULL;
}

float gt_int8_top(void)
{
	abort(); /* never available here */
}

void gt_int8_gemm(int M, int N, int K, const int8_t *pa, const float *sw, const uint8_t *B,
                  int ldb, const float *sb, const float *bias, float *C, int ldc, int add,
                  uint8_t *scratch)
{
	(void)M, (void)N, (void)K, (void)pa, (void)sw, (void)B, (void)ldb, (void)sb, (void)bias,
		(void)C, (void)ldc, (void)add, (void)scratch;
	abort(); /* never available here */
}

int gt_int8_conv3x3(const gt_int8_conv_args *a)
{
	(void)a;
	abort(); /* never available here */
}
#endif
