/*
 * bf16.h: matrix products in bfloat16 with float32 accumulation, for the
 * CPU networks' play forwards under --precision bf16 (nn.h
 * gt_nn_precision). bfloat16 is float32 cut to its top 16 bits (sign, 8
 * exponent bits, 7 stored mantissa bits: 8 significant bits, a relative
 * rounding error of at most 2^-9 = 0.2% per number, rounded to nearest
 * even here); the products of two of them are exact in float32 and are
 * summed in float32 (AVX512-BF16's vdpbf16ps, two products per lane and
 * instruction).
 *
 * The kernel is compiled for AVX512-BF16 in bf16.c alone and called only
 * when gt_bf16_available says the CPU has it, so that the same binary runs
 * on any x86-64 (and elsewhere, where it is never available).
 */
#ifndef GT_BF16_H
#define GT_BF16_H
#include <stddef.h>
#include <stdint.h>

/* gt_bf16_available: 1 when gt_bf16_gemm may be called: the CPU has
 * AVX512F, AVX512BW, AVX512VL and AVX512-BF16 (__builtin_cpu_supports)
 * and the environment variable GT_NO_BF16 is unset, empty or "0"; else 0,
 * and *why (when why is not NULL) says why not, a static string ("GT_NO_BF16
 * is set", "the CPU has no AVX512-BF16"). */
int gt_bf16_available(const char **why);

/* gt_bf16_pack_floats: 16-bit elements of the packed form of an M x K
 * matrix (M rounded up to the kernel's 8 rows, K to even). */
size_t gt_bf16_pack_size(int M, int K);

/* gt_bf16_pack: A (M x K floats, row-major, row stride lda) rounded to
 * bfloat16 (nearest even) into pa (gt_bf16_pack_size elements), in the
 * kernel's order; portable C, any CPU. */
void gt_bf16_pack(const float *A, int M, int K, int lda, uint16_t *pa);

/* gt_bf16_scratch_size: 16-bit elements of scratch that gt_bf16_gemm
 * needs for K (any M, N). */
size_t gt_bf16_scratch_size(int K);

/* gt_bf16_gemm: C (M x N floats, row stride ldc) = A B, A packed by
 * gt_bf16_pack (M x K), B (K x N floats, row stride ldb) rounded to
 * bfloat16 on the fly (nearest even), products summed in float32. Only
 * when gt_bf16_available. */
void gt_bf16_gemm(int M, int N, int K, const uint16_t *pa, const float *B, int ldb,
                  float *C, int ldc, uint16_t *scratch);

#endif
