/* simd.c: the run-time choice of gt's vector kernels (see simd.h). */
#include "simd.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *why;  /* NULL: AVX2+FMA kernels */

static void decide(void)
{
	const char *s = getenv("GT_NO_AVX2");
	if (s && *s && strcmp(s, "0") != 0) {
		why = "GT_NO_AVX2 is set";
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return;
#endif
	why = "the CPU lacks AVX2 or FMA";
}

const char *gt_simd_why_not(void)
{
	pthread_once(&once, decide);
	return why;
}

int gt_simd_avx2(void)
{
	return gt_simd_why_not() == NULL;
}

const char *gt_simd_kernels(void)
{
	const char *w = gt_simd_why_not();
	if (!w)
		return "avx2+fma";
	return strcmp(w, "GT_NO_AVX2 is set") == 0 ? "generic (GT_NO_AVX2 is set)"
	                                           : "generic (the CPU lacks AVX2 or FMA)";
}
