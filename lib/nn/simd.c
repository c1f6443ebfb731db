/* simd.c: the run-time choice of gt's vector kernels (see simd.h). */
#include "simd.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *why;  /* NULL: the vector kernels of this CPU */
static const char *kernels;

/* whether the environment variable name is set to other than "" or "0" */
static int env_set(const char *name)
{
	const char *s = getenv(name);
	return s && *s && strcmp(s, "0") != 0;
}

static void decide(void)
{
#if GT_X86
	if (env_set("GT_NO_AVX2")) {
		why = "GT_NO_AVX2 is set";
		kernels = "generic (GT_NO_AVX2 is set)";
		return;
	}
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
		kernels = "avx2+fma";
		return;
	}
	why = "the CPU lacks AVX2 or FMA";
	kernels = "generic (the CPU lacks AVX2 or FMA)";
#elif defined(__aarch64__)
	if (env_set("GT_NO_NEON")) {
		why = "GT_NO_NEON is set";
		kernels = "generic (GT_NO_NEON is set)";
		return;
	}
	kernels = "neon";
#else
	why = "no vector kernels for this CPU";
	kernels = "generic (no vector kernels for this CPU)";
#endif
}

const char *gt_simd_why_not(void)
{
	pthread_once(&once, decide);
	return why;
}

int gt_simd_avx2(void)
{
	return GT_X86 && gt_simd_why_not() == NULL;
}

int gt_simd_neon(void)
{
#ifdef __aarch64__
	return gt_simd_why_not() == NULL;
#else
	return 0;
#endif
}

const char *gt_simd_kernels(void)
{
	pthread_once(&once, decide);
	return kernels;
}
