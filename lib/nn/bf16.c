/*
 * bf16.c: bfloat16 matrix products with float32 accumulation (bf16.h), by
 * AMX-BF16 tiles, or by AVX512-BF16 where the CPU has no tiles.
 *
 * tdpbf16ps multiplies a tile of 16 rows x 32 bfloat16 of A by a tile of
 * 16 rows x 16 pairs of B (B's rows 2p and 2p+1 interleaved: the pair
 * (B[2p][n], B[2p+1][n]) is row p's n-th 32-bit word) and adds the 16 x 16
 * float32 products to a tile of C. A block of 32 x 32 of C is 4 such
 * tiles, fed by 2 tiles of A and 2 of B per 32 values of k (the 8 tile
 * registers). A is packed once per parameter change (row-major bfloat16,
 * rows rounded up to 32 and k to 32 with zeros); B is packed NC columns at
 * a time into the pair layout, 16 columns per group (AVX512-BF16's
 * vcvtne2ps2bf16, then a shuffle of 16-bit words). Partial blocks of C go
 * through a 32 x 32 buffer.
 *
 * On this project's Xeon (Sapphire Rapids class) AVX512-BF16's own
 * vdpbf16ps was measured slower than OpenBLAS's float32 sgemm (84 against
 * 125 GFLOP/s at 96 x 864 x 960, one core: it issues at the rate of a
 * float32 FMA, two products per lane, on one port where FMAs have two),
 * so the tiles come first where the CPU has both. On AMD Zen 4 (no AMX)
 * vdpbf16ps issues at about 2.1 times the float32 FMA rate per core
 * (issue 34's measurement), so there it is the bfloat16 kernel
 * (block512): the same packs, 8 rows by 32 columns a pass.
 *
 * The process asks Linux for the AMX state once (arch_prctl
 * ARCH_REQ_XCOMP_PERM, Linux 5.16 and later); each call loads the tile
 * configuration (per thread) and releases it at the end.
 */
#include "bf16.h"
#include "amx.h"
#include "gt.h"

#include <stdlib.h>
#include <string.h>

#define MT 32   /* rows of C per block: two tiles */
#define KT 32   /* k per tile */
#define NT 32   /* columns of C per block: two tiles */
#define NC 256  /* columns of B packed at a time (a multiple of NT) */

static int kpad(int K)
{
	return (K + KT - 1) / KT * KT;
}

size_t gt_bf16_pack_size(int M, int K)
{
	return (size_t)(M + MT - 1) / MT * MT * kpad(K);
}

size_t gt_bf16_scratch_size(int K)
{
	return (size_t)kpad(K) * NC;
}

/* x rounded to bfloat16, nearest even (NaN is not expected) */
static uint16_t bf16_round(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	u += 0x7fff + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

void gt_bf16_pack(const float *A, int M, int K, int lda, uint16_t *pa)
{
	int Kp = kpad(K), Mp = (M + MT - 1) / MT * MT;
	for (int m = 0; m < Mp; m++)
		for (int k = 0; k < Kp; k++)
			pa[(size_t)m * Kp + k] = m < M && k < K ? bf16_round(A[(size_t)m * lda + k]) : 0;
}

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__)
#include <immintrin.h>

/* the kernel family of the next product (amx.h gt_amx_choose) */
static int family(const char **why)
{
	int f = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bf16");
	return gt_amx_choose("GT_NO_BF16", "GT_NO_BF16 is set", 22, f, f, 0, NULL,
	                     "the CPU has neither AMX-BF16 nor AVX512-BF16", why);
}

int gt_bf16_available(const char **why)
{
	const char *w;
	int k = family(&w);
	if (why)
		*why = k == GT_KERN_NONE ? w : NULL;
	return k != GT_KERN_NONE;
}

const char *gt_bf16_kernel(const char **why)
{
	int k = family(why);
	return k == GT_KERN_AMX ? "amx-bf16" : k == GT_KERN_AVX512 ? "avx512-bf16" : NULL;
}

#define TARGET __attribute__((target("amx-tile,amx-bf16,avx512bf16,avx512f,avx512bw")))

/* columns n0..n0+nc-1 (nc <= NC) of B (K rows) into bp: per group of 16
 * columns, Kp/2 rows of 16 pairs (zeros past K and past the columns) */
TARGET static void pack_b(const float *B, int ldb, int K, int n0, int nc, uint16_t *bp)
{
	int P = kpad(K) / 2;
	const __m512i idx = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9,
	                                     24, 8, 23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17,
	                                     1, 16, 0);
	for (int g = 0; g * 16 < nc; g++) {
		uint16_t *o = bp + (size_t)g * P * 32;
		int left = nc - 16 * g;
		__mmask16 m = left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);
		const float *col = B + n0 + 16 * g;
		int p = 0;
		for (; 2 * p + 1 < K; p++) {
			__m512 r0 = _mm512_maskz_loadu_ps(m, col + (size_t)(2 * p) * ldb);
			__m512 r1 = _mm512_maskz_loadu_ps(m, col + (size_t)(2 * p + 1) * ldb);
			__m512i x = (__m512i)_mm512_cvtne2ps_pbh(r1, r0);
			_mm512_storeu_si512(o + (size_t)p * 32, _mm512_permutexvar_epi16(idx, x));
		}
		for (; p < P; p++) {
			__m512 r0 = 2 * p < K ? _mm512_maskz_loadu_ps(m, col + (size_t)(2 * p) * ldb)
			                      : _mm512_setzero_ps();
			__m512i x = (__m512i)_mm512_cvtne2ps_pbh(_mm512_setzero_ps(), r0);
			_mm512_storeu_si512(o + (size_t)p * 32, _mm512_permutexvar_epi16(idx, x));
		}
	}
}

/* the 32 x 32 block of C from rows a (packed A, row stride Kp) and the
 * column groups b0, b1 (row stride 64 bytes), into c (row stride ldc),
 * added to c's values if add, else to bt's (32 rows of 16 floats, the
 * same for both column tiles) if bt is not NULL, else to zeros */
TARGET static void block(int Kp, const uint16_t *a, const uint16_t *b0, const uint16_t *b1,
                         float *c, long ldc, int add, const float *bt)
{
	long sa = (long)Kp * 2;
	if (add) {
		_tile_loadd(0, c, ldc * 4);
		_tile_loadd(1, c + 16, ldc * 4);
		_tile_loadd(2, c + 16 * ldc, ldc * 4);
		_tile_loadd(3, c + 16 * ldc + 16, ldc * 4);
	} else if (bt) {
		_tile_loadd(0, bt, 64);
		_tile_loadd(1, bt, 64);
		_tile_loadd(2, bt + 256, 64);
		_tile_loadd(3, bt + 256, 64);
	} else {
		_tile_zero(0);
		_tile_zero(1);
		_tile_zero(2);
		_tile_zero(3);
	}
	for (int k = 0; k < Kp; k += KT) {
		_tile_loadd(4, a + k, sa);
		_tile_loadd(5, a + 16 * (size_t)Kp + k, sa);
		_tile_loadd(6, b0 + (size_t)k * 16, 64);
		_tile_loadd(7, b1 + (size_t)k * 16, 64);
		_tile_dpbf16ps(0, 4, 6);
		_tile_dpbf16ps(1, 4, 7);
		_tile_dpbf16ps(2, 5, 6);
		_tile_dpbf16ps(3, 5, 7);
	}
	_tile_stored(0, c, ldc * 4);
	_tile_stored(1, c + 16, ldc * 4);
	_tile_stored(2, c + 16 * ldc, ldc * 4);
	_tile_stored(3, c + 16 * ldc + 16, ldc * 4);
}

#define TARGET512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

/* the block of block() by AVX512-BF16: vdpbf16ps adds the two products of
 * each 32-bit pair of its bfloat16 operands to a float32 lane (the CPU's
 * order of the two, denormals flushed to zero), so each of 16 lanes of a
 * column group takes one pair of row m's A (broadcast) times its column's
 * pair of B: the packs of the tiles serve as they are. 8 rows by the 2
 * column groups a pass (16 accumulators); only the first rows rows (in
 * passes of 8) and cols columns (in groups of 16) are computed, the rest
 * of the block left as it was. */
TARGET512 static void block512(int Kp, const uint16_t *a, const uint16_t *b0, const uint16_t *b1,
                               float *c, long ldc, int add, const float *bt, int rows, int cols)
{
	int P = Kp / 2, two = cols > 16;
	for (int r0 = 0; r0 < rows; r0 += 8) {
		__m512 s0[8], s1[8];
		#pragma GCC unroll 8
		for (int r = 0; r < 8; r++) {
			float *cr = c + (size_t)(r0 + r) * ldc;
			s0[r] = add ? _mm512_loadu_ps(cr) : bt ? _mm512_loadu_ps(bt + (r0 + r) * 16)
			                                         : _mm512_setzero_ps();
			s1[r] = !two ? s0[r] : add ? _mm512_loadu_ps(cr + 16) : s0[r];
		}
		const uint16_t *ar = a + (size_t)r0 * Kp;
		if (two) {
			for (int p = 0; p < P; p++) {
				__m512bh x0 = (__m512bh)_mm512_loadu_si512(b0 + (size_t)p * 32);
				__m512bh x1 = (__m512bh)_mm512_loadu_si512(b1 + (size_t)p * 32);
				#pragma GCC unroll 8
				for (int r = 0; r < 8; r++) {
					uint32_t w;
					memcpy(&w, ar + (size_t)r * Kp + 2 * p, 4);
					__m512bh wv = (__m512bh)_mm512_set1_epi32((int)w);
					s0[r] = _mm512_dpbf16_ps(s0[r], wv, x0);
					s1[r] = _mm512_dpbf16_ps(s1[r], wv, x1);
				}
			}
		} else {
			for (int p = 0; p < P; p++) {
				__m512bh x0 = (__m512bh)_mm512_loadu_si512(b0 + (size_t)p * 32);
				#pragma GCC unroll 8
				for (int r = 0; r < 8; r++) {
					uint32_t w;
					memcpy(&w, ar + (size_t)r * Kp + 2 * p, 4);
					s0[r] = _mm512_dpbf16_ps(s0[r], (__m512bh)_mm512_set1_epi32((int)w), x0);
				}
			}
		}
		#pragma GCC unroll 8
		for (int r = 0; r < 8; r++) {
			float *cr = c + (size_t)(r0 + r) * ldc;
			_mm512_storeu_ps(cr, s0[r]);
			if (two)
				_mm512_storeu_ps(cr + 16, s1[r]);
		}
	}
}

/* how B's columns n0..n0+nc-1 are packed into bp */
typedef void packer(const void *ctx, int n0, int nc, uint16_t *bp);

/* C = (add ? C : bias per row, or 0) + A B, B packed by pack(ctx) */
TARGET static void drive(int M, int N, int K, const uint16_t *pa, float *C, long ldc, int add,
                         const float *bias, uint16_t *scratch, packer *pack, const void *ctx)
{
	int amx = family(NULL) == GT_KERN_AMX;
	if (amx)
		gt_amx_tiles();
	int Kp = kpad(K), P = Kp / 2;
	_Alignas(64) float tmp[MT * NT];
	float *bts = NULL;
	if (bias && !add) {
		/* per block of 32 rows, 32 rows of 16 copies of the bias */
		int Mb = (M + MT - 1) / MT;
		bts = gt_xmalloc(sizeof(float) * Mb * MT * 16);
		for (int m = 0; m < Mb * MT; m++)
			for (int j = 0; j < 16; j++)
				bts[(size_t)m * 16 + j] = m < M ? bias[m] : 0.0f;
	}
	for (int n0 = 0; n0 < N; n0 += NC) {
		int nc = N - n0 < NC ? N - n0 : NC;
		pack(ctx, n0, nc, scratch);
		/* the tile loads are asm without memory operands: the packed
		 * stores must be done before them */
		__asm__ volatile("" ::: "memory");
		for (int j = 0; j < nc; j += NT) {
			const uint16_t *b0 = scratch + (size_t)(j / 16) * P * 32, *b1 = b0 + (size_t)P * 32;
			int cols = nc - j < NT ? nc - j : NT;
			for (int m = 0; m < M; m += MT) {
				int rows = M - m < MT ? M - m : MT;
				float *c = C + (size_t)m * ldc + n0 + j;
				const float *bt = bts ? bts + (size_t)m * 16 : NULL;
				if (rows == MT && cols == NT) {
					if (amx)
						block(Kp, pa + (size_t)m * Kp, b0, b1, c, ldc, add, bt);
					else
						block512(Kp, pa + (size_t)m * Kp, b0, b1, c, ldc, add, bt, MT, NT);
					continue;
				}
				if (add)
					for (int r = 0; r < rows; r++)
						memcpy(tmp + r * NT, c + (size_t)r * ldc, sizeof(float) * cols);
				__asm__ volatile("" ::: "memory");
				if (amx)
					block(Kp, pa + (size_t)m * Kp, b0, b1, tmp, NT, add, bt);
				else
					block512(Kp, pa + (size_t)m * Kp, b0, b1, tmp, NT, add, bt, rows, cols);
				__asm__ volatile("" ::: "memory");
				for (int r = 0; r < rows; r++)
					memcpy(c + (size_t)r * ldc, tmp + r * NT, sizeof(float) * cols);
			}
		}
	}
	if (amx)
		_tile_release();
	free(bts);
}

typedef struct gemm_b {
	const float *B;
	int ldb, K;
} gemm_b;

static void pack_gemm(const void *ctx, int n0, int nc, uint16_t *bp)
{
	const gemm_b *g = ctx;
	pack_b(g->B, g->ldb, g->K, n0, nc, bp);
}

void gt_bf16_gemm(int M, int N, int K, const uint16_t *pa, const float *B, int ldb,
                  float *C, int ldc, int add, uint16_t *scratch)
{
	gemm_b g = {B, ldb, K};
	drive(M, N, K, pa, C, ldc, add, NULL, scratch, pack_gemm, &g);
}

/* columns n0..n0+nc-1 of the im2col of a->in (relu'd if a->relu) into bp,
 * as pack_b lays out B: row k = ci 9 + ky 3 + kx of column j (point
 * (y, x) of a board) is in[ci][j + (ky-1) n + (kx-1)] where the point
 * (y+ky-1, x+kx-1) is on the board, else 0. Each 16 columns of a row are
 * one masked load at that shift: the masks say which columns' points are
 * on the board for each of the 9 shifts. */
TARGET static void pack_conv(const void *ctx, int n0, int nc, uint16_t *bp)
{
	const gt_bf16_conv_args *a = ctx;
	int K = a->cin * 9, P = kpad(K) / 2, n = a->n;
	const __m512i idx = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9,
	                                     24, 8, 23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17,
	                                     1, 16, 0);
	const __m512 zero = _mm512_setzero_ps();
	/* the masks of each group of 16 columns for each shift */
	long shift[9];
	__mmask16 mk[NC / 16][9];
	int ng = (nc + 15) / 16;
	gt_amx_shift_masks(n, n0, nc, &mk[0][0], shift);
	/* row pair by row pair, each along the columns: the reads of a
	 * channel are sequential and stay in L1 over its 9 shifts */
	const float *base = a->in + n0;
	int ci = 0, s = 0; /* row 2p's channel and shift */
	for (int p = 0; p < P; p++) {
		int ci1 = s == 8 ? ci + 1 : ci, s1 = s == 8 ? 0 : s + 1;
		int live0 = ci < a->cin, live1 = ci1 < a->cin;
		const float *src0 = base + (live0 ? (size_t)ci * a->in_c + shift[s] : 0);
		const float *src1 = base + (live1 ? (size_t)ci1 * a->in_c + shift[s1] : 0);
		uint16_t *out = bp + (size_t)p * 32;
		for (int g = 0; g < ng; g++) {
			__m512 r0 = _mm512_maskz_loadu_ps(live0 ? mk[g][s] : 0, src0 + 16 * g);
			__m512 r1 = _mm512_maskz_loadu_ps(live1 ? mk[g][s1] : 0, src1 + 16 * g);
			if (a->relu) {
				r0 = _mm512_max_ps(r0, zero);
				r1 = _mm512_max_ps(r1, zero);
			}
			__m512i v = (__m512i)_mm512_cvtne2ps_pbh(r1, r0);
			_mm512_storeu_si512(out + (size_t)g * P * 32, _mm512_permutexvar_epi16(idx, v));
		}
		ci = s1 == 8 ? ci1 + 1 : ci1;
		s = s1 == 8 ? 0 : s1 + 1;
	}
}

void gt_bf16_conv3x3(const gt_bf16_conv_args *a)
{
	drive(a->cout, (int)a->cols, a->cin * 9, a->w, a->out, (long)a->out_c, a->add, a->bias,
	      a->scratch, pack_conv, a);
}
#else
int gt_bf16_available(const char **why)
{
	/* as on an x86 CPU without it: GT_NO_BF16 first */
	const char *no = gt_amx_why_not("GT_NO_BF16", "GT_NO_BF16 is set", 22, 0,
	                                "the CPU has neither AMX-BF16 nor AVX512-BF16");
	if (why)
		*why = no;
	return 0;
}

const char *gt_bf16_kernel(const char **why)
{
	gt_bf16_available(why);
	return NULL;
}

void gt_bf16_gemm(int M, int N, int K, const uint16_t *pa, const float *B, int ldb,
                  float *C, int ldc, int add, uint16_t *scratch)
{
	(void)M, (void)N, (void)K, (void)pa, (void)B, (void)ldb, (void)C, (void)ldc, (void)add,
		(void)scratch;
	abort(); /* never available here */
}

void gt_bf16_conv3x3(const gt_bf16_conv_args *a)
{
	(void)a;
	abort(); /* never available here */
}
#endif
