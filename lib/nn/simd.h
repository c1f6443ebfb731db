/*
 * simd.h: which of gt's own vector kernels this process runs. They are
 * the Winograd transforms (wino.c) and the batch-norm-and-activation
 * passes of KataGo's networks (katago.c); OpenBLAS and oneDNN choose
 * their own.
 * - x86-64: the build is for the x86-64 baseline (Makefile OPT); kernels
 *   for AVX2 and FMA are compiled per function (GCC's target attribute or
 *   pragma) and chosen here at run time by cpuid, as bf16.c and int8.c
 *   choose theirs for AMX.
 * - aarch64 (arm64): NEON is part of the architecture (armv8-a), so the
 *   kernels are NEON at compile time: the Winograd transforms by GCC's
 *   vector types, KataGo's passes by NEON intrinsics (the latter off under
 *   GT_NO_NEON). AMX, AVX2 and AVX-512 are not available there, as on an
 *   x86 CPU without them.
 */
#ifndef GT_SIMD_H
#define GT_SIMD_H

/* GT_X86: 1 when compiling for x86 (where the cpuid, AVX2, AVX-512 and
 * AMX code is built), else 0 */
#if defined(__x86_64__) || defined(__i386__)
#define GT_X86 1
#else
#define GT_X86 0
#endif

/* gt_simd_avx2: 1 when the AVX2+FMA kernels run: the CPU has AVX2 and FMA
 * (and the system saves the ymm state), and the environment variable
 * GT_NO_AVX2 is unset, empty or "0"; else 0 (and on other CPUs). Decided
 * once per process; thread-safe. */
int gt_simd_avx2(void);

/* gt_simd_neon: 1 when the NEON intrinsic kernels run: an aarch64 build
 * and the environment variable GT_NO_NEON unset, empty or "0"; else 0.
 * Decided once per process; thread-safe. */
int gt_simd_neon(void);

/* gt_simd_why_not: NULL when gt_simd_avx2 or gt_simd_neon is 1, else why
 * not, a static string ("GT_NO_AVX2 is set", "the CPU lacks AVX2 or FMA",
 * "GT_NO_NEON is set", "no vector kernels for this CPU"). */
const char *gt_simd_why_not(void);

/* gt_simd_kernels: a static one-line description of the kernels chosen,
 * for -v: "avx2+fma", "neon" or "generic (WHY)". */
const char *gt_simd_kernels(void);

#endif
