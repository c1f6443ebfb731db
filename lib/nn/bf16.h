/*
 * bf16.h: matrix products in bfloat16 with float32 accumulation, for the
 * CPU networks' play forwards under --precision bf16 (nn.h
 * gt_nn_precision). bfloat16 is float32 cut to its top 16 bits (sign, 8
 * exponent bits, 7 stored mantissa bits: 8 significant bits, a relative
 * rounding error of at most 2^-8 = 0.4% per number, rounded to nearest
 * even here); the products of two of them are exact in float32 and are
 * summed in float32, by the AMX-BF16 tile instructions (tdpbf16ps: a
 * 16 x 32 by 32 x 16 product per instruction) or, on a CPU without them,
 * by AVX512-BF16's vdpbf16ps (16 lanes of two products each; AMD Zen 4
 * and later, Intel Cooper Lake), on the same packs.
 *
 * The kernels are compiled for their instructions in bf16.c alone (target
 * attributes) and called only when gt_bf16_available says the CPU and the
 * kernel allow it, so that the same binary runs on any x86-64 (and
 * elsewhere, where it is never available). GT_NO_AMX in the environment
 * takes the tiles out of the choice (to test or measure the AVX-512
 * kernel on a CPU that has both).
 */
#ifndef GT_BF16_H
#define GT_BF16_H
#include <stddef.h>
#include <stdint.h>

/* gt_bf16_available: 1 when gt_bf16_gemm may be called: the environment
 * variable GT_NO_BF16 is unset, empty or "0", and either the CPU has
 * AMX-TILE, AMX-BF16 (cpuid), AVX512BW and AVX512-BF16 (for the packing)
 * and Linux grants the process the AMX state (arch_prctl
 * ARCH_REQ_XCOMP_PERM, asked once per process), or the CPU has AVX512F,
 * BW, VL and AVX512-BF16; else 0, and *why (when why is not NULL) says why
 * not, a static string ("GT_NO_BF16 is set", "the CPU has neither
 * AMX-BF16 nor AVX512-BF16"). Thread-safe. */
int gt_bf16_available(const char **why);

/* gt_bf16_kernel: the kernel the next product takes: "amx-bf16" (*why
 * NULL), "avx512-bf16" (*why: why not the tiles, "GT_NO_AMX is set", "the
 * CPU has no AMX tiles of this kind", "the kernel refuses the AMX state")
 * or NULL (not available, *why as gt_bf16_available says). why may be
 * NULL. Thread-safe. */
const char *gt_bf16_kernel(const char **why);

/* gt_bf16_pack_size: 16-bit elements of the packed form of an M x K
 * matrix (M rounded up to the kernel's 8 rows, K to even). */
size_t gt_bf16_pack_size(int M, int K);

/* gt_bf16_pack: A (M x K floats, row-major, row stride lda) rounded to
 * bfloat16 (nearest even) into pa (gt_bf16_pack_size elements), in the
 * kernel's order (rows of 32 and k of 32 padded with zeros); portable C,
 * any CPU. */
void gt_bf16_pack(const float *A, int M, int K, int lda, uint16_t *pa);

/* gt_bf16_scratch_size: 16-bit elements of scratch that gt_bf16_gemm
 * needs for K (any M, N). */
size_t gt_bf16_scratch_size(int K);

/* gt_bf16_gemm: C (M x N floats, row stride ldc) = A B (add 0) or
 * C + A B (add 1), A packed by gt_bf16_pack (M x K), B (K x N floats, row
 * stride ldb) rounded to bfloat16 on the fly (nearest even), products
 * summed in float32; scratch holds gt_bf16_scratch_size(K) elements. Only
 * when gt_bf16_available (else it aborts). */
void gt_bf16_gemm(int M, int N, int K, const uint16_t *pa, const float *B, int ldb,
                  float *C, int ldc, int add, uint16_t *scratch);

/* gt_bf16_conv3x3: a 3x3 convolution (stride 1, zero padding 1, PyTorch's
 * cross-correlation) in bfloat16 as the product of w with the im2col of
 * in, the im2col never stored: it is rounded into the kernel's packing as
 * it is read. The cols columns are whole boards of n x n points, column j
 * of channel c at in[c * in_c + j] (channel-major: nn_cpu.c's layout, or
 * one NCHW board with in_c = n n); likewise out. out = (add ? out : bias,
 * or 0 when bias is NULL) + conv(relu ? relu(in) : in); bias is ignored
 * with add. The same sums as gt_bf16_gemm of the im2col. Only when
 * gt_bf16_available. */
typedef struct gt_bf16_conv_args {
	const uint16_t *w;   /* gt_bf16_pack of the cout x (cin 9) weights */
	int cin, cout, n;    /* channels, board size */
	long cols;           /* columns: boards times n n */
	const float *in;
	size_t in_c;
	int relu;
	const float *bias;   /* cout, or NULL */
	float *out;
	size_t out_c;
	int add;
	uint16_t *scratch;   /* gt_bf16_scratch_size(cin 9) */
} gt_bf16_conv_args;

void gt_bf16_conv3x3(const gt_bf16_conv_args *a);

#endif
