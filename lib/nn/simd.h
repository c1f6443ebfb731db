/*
 * simd.h: which of gt's own vector kernels this process runs. The build
 * is for the x86-64 baseline (Makefile OPT); kernels for AVX2 and FMA are
 * compiled per function (GCC's target attribute or pragma) and chosen here
 * at run time by cpuid, as bf16.c and int8.c choose theirs for AMX. They
 * are the Winograd transforms (wino.c) and the batch-norm-and-activation
 * passes of KataGo's networks (katago.c); OpenBLAS and oneDNN choose
 * their own.
 */
#ifndef GT_SIMD_H
#define GT_SIMD_H

/* gt_simd_avx2: 1 when the AVX2+FMA kernels run: the CPU has AVX2 and FMA
 * (and the system saves the ymm state), and the environment variable
 * GT_NO_AVX2 is unset, empty or "0"; else 0 (and on other CPUs). Decided
 * once per process; thread-safe. */
int gt_simd_avx2(void);

/* gt_simd_why_not: NULL when gt_simd_avx2 is 1, else why not, a static
 * string ("GT_NO_AVX2 is set", "the CPU lacks AVX2 or FMA"). */
const char *gt_simd_why_not(void);

/* gt_simd_kernels: a static one-line description of the kernels chosen,
 * for -v: "avx2+fma" or "generic (WHY)". */
const char *gt_simd_kernels(void);

#endif
