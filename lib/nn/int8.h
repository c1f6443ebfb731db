/*
 * int8.h: 3x3 convolutions in 8-bit integers with 32-bit integer sums,
 * for the CPU networks' play forwards under --precision int8 (nn.h
 * gt_nn_precision), by the AMX-INT8 tile instructions (tdpbsud: a 16 x 64
 * signed by 64 x 16 unsigned byte product per instruction, summed exactly
 * in int32) or, on a CPU without them, by AVX512-VNNI's vpdpbusd (16 lanes
 * of 4 unsigned by signed byte products, exact in int32; AMD Zen 4 and
 * later, Intel Ice Lake and later) on the same packs: the same sums, so
 * the same results.
 *
 * Quantization (symmetric, no zero points):
 *   weights: per output channel (row m of the cout x cin 9 matrix), a
 *     scale sw[m] = max_k |w[m][k]| / 127 (float), qw = round(w 127 / max)
 *     in -127..127, made once per parameter change (gt_int8_pack);
 *   activations: the input of a 3x3 convolution is relu'd (>= 0) or the
 *     network's 0/1 input features, so unsigned: per board (the n x n
 *     columns of one position, all channels), computed dynamically at each
 *     call (one max per board, no calibration): sa = max / 255 (float),
 *     qa = min(255, round(x (255 / max))) with the float product
 *     x * fl(255 / max) rounded to nearest even; qa = 0 and sa = 0 for a
 *     board of zeros. Per board, not per batch, so that a position's
 *     evaluation does not depend on the others in its batch.
 * out[m][j] = fl(sum_k qw[m][k] qa[k][j]) (sw[m] sa[j]) + bias[m] (or +
 * out), in float32: the sums are exact, the dequantization rounds once or
 * twice (float32's 2^-24 each).
 *
 * The kernels are compiled for their instructions in int8.c alone (target
 * attributes) and called only when gt_int8_available says the CPU and the
 * kernel allow it, so that the same binary runs on any x86-64 with AVX2.
 * On a CPU with AVX2 and FMA but neither VNNI (AMD Zen 2 and 3, Intel
 * Haswell to Comet Lake), or with GT_NO_VNNI set, the same products by
 * vpmaddubsw and vpmaddwd (the "avx2" kernel): vpmaddubsw adds pairs of
 * products into int16 with saturation, so that kernel quantizes the
 * activations to 0..127 instead of 0..255 (gt_int8_top; 2 x 127 x 127
 * fits in int16, so its sums are exact too, of coarser activations).
 * GT_NO_AMX
 * in the environment takes the tiles out of the choice (to test or
 * measure the AVX-512 kernel on a CPU that has both). On arm64 the same products
 * by the dot-product instructions (sdot, Armv8.2 DotProd, Linux's
 * HWCAP_ASIMDDP; target attribute likewise), with the same results: the
 * unsigned activations enter as qa - 128 and each row's sum gets 128
 * sum_k qw back, exact in int32. Elsewhere it is never available.
 */
#ifndef GT_INT8_H
#define GT_INT8_H
#include <stddef.h>
#include <stdint.h>

/* gt_int8_available: 1 when gt_int8_gemm and gt_int8_conv3x3 may be
 * called: the environment variable GT_NO_INT8 is unset, empty or "0", and
 * either the CPU has AMX-TILE, AMX-INT8 (cpuid) and AVX512BW/VL (for the
 * packing) and Linux grants the process the AMX state (arch_prctl
 * ARCH_REQ_XCOMP_PERM, asked once per process), or the CPU has AVX512F,
 * BW, VL and AVX512-VNNI (GT_NO_AVX512 unset), or AVX2, FMA and AVX-VNNI;
 * else 0, and *why (when why is not NULL) says why not, a static string
 * ("GT_NO_INT8 is set", "the CPU has neither AMX-INT8, AVX512-VNNI nor
 * AVX-VNNI", "GT_NO_AVX512 is set"); on arm64: GT_NO_INT8 unset and the CPU has
 * the int8 dot product, else "the CPU has no int8 dot product
 * (asimddp)"). Thread-safe. */
int gt_int8_available(const char **why);

/* gt_int8_top: the largest activation byte of the kernel the next
 * product takes: 255, or 127 on the "avx2" kernel (its pairs of products
 * sum in int16). The convolution quantizes each board to 0..top (sa = max
 * / top); gt_int8_gemm's B must hold bytes of at most top. Only when
 * gt_int8_available. */
float gt_int8_top(void);

/* gt_int8_kernel: the kernel the next product takes: "amx-int8" (*why
 * NULL), "avx512-vnni" (*why: why not the tiles, "GT_NO_AMX is set", "the
 * CPU has no AMX tiles of this kind", "the kernel refuses the AMX state"),
 * "avx-vnni" (*why: "GT_NO_AVX512 is set" or "the CPU has no AVX-512
 * VNNI"), "neon-dotprod" on arm64, or NULL (not available, *why as
 * gt_int8_available says). why may be NULL. Thread-safe. */
const char *gt_int8_kernel(const char **why);

/* The packs and the scratch below are best 64-byte aligned (gt_xmalloc64):
 * the tiles' rows are 64 bytes. */

/* gt_int8_pack_size: bytes of the packed form of an M x K matrix (M
 * rounded up to the kernel's 32 rows, K to 64). */
size_t gt_int8_pack_size(int M, int K);

/* gt_int8_pack: A (M x K floats, row-major, row stride lda) quantized per
 * row as said above into pa (gt_int8_pack_size bytes, zeros padding:
 * element (m, k) at gt_int8_pack_at(K, m, k)) and sw (M scales; 0 for a
 * row of zeros); portable C, any CPU. */
void gt_int8_pack(const float *A, int M, int K, int lda, int8_t *pa, float *sw);

/* gt_int8_pack_at: where element (m, k) of an M x K matrix is in its
 * pack: blocks of 32 rows, each 64 k at a time as 32 rows of 64 bytes
 * (the two tiles of a step, loaded whole). */
size_t gt_int8_pack_at(int K, int m, int k);

/* gt_int8_scratch_size: bytes of scratch that gt_int8_gemm and
 * gt_int8_conv3x3 need for cin input channels (K = cin 9 for the
 * convolution; gt_int8_gemm's K counts as cin) on boards of at most nmax
 * x nmax. */
size_t gt_int8_scratch_size(int cin, int nmax);

/* gt_int8_gemm: C (M x N floats, row stride ldc) = (add ? C : bias[m],
 * or 0 when bias is NULL) + (sw[m] sb[j]) sum_k qa[m][k] B[k][j], A packed
 * by gt_int8_pack (M x K, scales sw), B (K x N bytes, unsigned, row
 * stride ldb) with column scales sb (N floats). Scratch holds
 * gt_int8_scratch_size(K, 0) bytes. Only when gt_int8_available (else it
 * aborts). */
void gt_int8_gemm(int M, int N, int K, const int8_t *pa, const float *sw, const uint8_t *B,
                  int ldb, const float *sb, const float *bias, float *C, int ldc, int add,
                  uint8_t *scratch);

/* gt_int8_board_max: the max (>= 0) of one board that its activation
 * scale is made of as said above, of x (relu'd if relu: max(x, 0)), cin
 * channels of N points at x[c * x_c + p]; -1 when relu is 0 and some
 * x < 0 (then unsigned bytes cannot hold it). Portable C. */
float gt_int8_board_max(const float *x, int cin, size_t x_c, int N, int relu);

/* gt_int8_conv3x3: a 3x3 convolution (stride 1, zero padding 1, PyTorch's
 * cross-correlation) in int8 as the product of w with the im2col of in,
 * the im2col never stored: each board is quantized (its scale from
 * gt_int8_board_max) and the bytes are packed into the kernel's layout
 * as they are read. Columns as gt_bf16_conv3x3 (bf16.h): cols columns of
 * whole boards of n x n points, column j of channel c at in[c in_c + j];
 * likewise out. out = (add ? out : bias, or 0 when bias is NULL) +
 * dequantized conv(relu ? relu(in) : in). The same result as gt_int8_gemm
 * of the quantized im2col with each column's board scale. Returns 0, or
 * -1 when relu is 0 and the input has a negative value (nothing written:
 * the caller takes another precision for that convolution). Scratch holds
 * gt_int8_scratch_size(cin, n) bytes. Only when gt_int8_available. */
typedef struct gt_int8_conv_args {
	const int8_t *w;     /* gt_int8_pack of the cout x (cin 9) weights */
	const float *sw;     /* their cout scales */
	int cin, cout, n;    /* channels, board size */
	long cols;           /* columns: boards times n n */
	const float *in;
	size_t in_c;
	int relu;
	const float *bias;   /* cout, or NULL */
	float *out;
	size_t out_c;
	int add;
	uint8_t *scratch;    /* gt_int8_scratch_size(cin, n) */
} gt_int8_conv_args;

int gt_int8_conv3x3(const gt_int8_conv_args *a);

#endif
