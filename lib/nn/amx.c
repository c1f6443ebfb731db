/*
 * amx.c: the AMX tile state and configuration, and the masks of the 3x3
 * shifts, shared by bf16.c and int8.c (amx.h).
 */
#include "amx.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* env set to anything but "" and "0" */
static int env_set(const char *env)
{
	const char *s = env ? getenv(env) : NULL;
	return s && *s && strcmp(s, "0") != 0;
}

/* For each board size n (2..19) and 3x3 shift o, bit i of ring[n - 2][o]
 * says whether point i mod n^2 moved by o is on the board, for i up to
 * past n^2 + 256 columns and a 16-bit read: a group's 16 masks are one
 * read at its first column. Made once (pthread_once). */
#define RING_BITS (19 * 19 + 256 + 32)
static uint8_t ring[18][9][(RING_BITS + 7) / 8 + 4];
static pthread_once_t ring_once = PTHREAD_ONCE_INIT;

static void ring_make(void)
{
	for (int n = 2; n <= 19; n++) {
		int N = n * n;
		for (int i = 0; i < RING_BITS; i++) {
			int y = (i % N) / n, x = (i % N) % n;
			for (int o = 0; o < 9; o++) {
				int yy = y + o / 3 - 1, xx = x + o % 3 - 1;
				if (yy >= 0 && yy < n && xx >= 0 && xx < n)
					ring[n - 2][o][i >> 3] |= (uint8_t)(1u << (i & 7));
			}
		}
	}
}

void gt_amx_shift_masks(int n, long n0, int nc, uint16_t *mk, long shift[9])
{
	pthread_once(&ring_once, ring_make);
	int p0 = (int)(n0 % ((long)n * n));
	for (int o = 0; o < 9; o++)
		shift[o] = (long)(o / 3 - 1) * n + (o % 3 - 1);
	for (int g = 0; 16 * g < nc; g++) {
		int pos = p0 + 16 * g, left = nc - 16 * g;
		uint32_t keep = left >= 16 ? 0xffffu : (1u << left) - 1;
		for (int o = 0; o < 9; o++) {
			const uint8_t *r = &ring[n - 2][o][pos >> 3];
			uint32_t v = (uint32_t)r[0] | (uint32_t)r[1] << 8 | (uint32_t)r[2] << 16;
			mk[9 * g + o] = (uint16_t)((v >> (pos & 7)) & keep);
		}
	}
}

int gt_amx_choose(const char *env, const char *env_msg, int kind_bit, int amx_more, int avx512,
                  int avx2, const char *no512_msg, const char *cpu_msg, const char **why)
{
	/* per kind_bit: 0 unknown, else 1 + the index of the AMX answer */
	static const char *const answers[] = {NULL, "the CPU has no AMX tiles of this kind",
	                                      "the kernel refuses the AMX state"};
	static int cache[32];
	const char *w = NULL;
	int k;
	if (env_set(env)) {
		w = env_msg;
		k = GT_KERN_NONE;
	} else {
		int c = __atomic_load_n(&cache[kind_bit & 31], __ATOMIC_ACQUIRE);
		if (!c) {
			/* racing first calls both ask: the answer is the same */
			const char *a = gt_amx_why_not(NULL, NULL, kind_bit, amx_more, answers[1]);
			c = a == NULL ? 1 : a == answers[1] ? 2 : 3;
			__atomic_store_n(&cache[kind_bit & 31], c, __ATOMIC_RELEASE);
		}
		w = c == 1 && env_set("GT_NO_AMX") ? "GT_NO_AMX is set" : answers[c - 1];
		if (w == NULL) {
			k = GT_KERN_AMX;
		} else if (avx512 && !env_set("GT_NO_AVX512")) {
			k = GT_KERN_AVX512;
		} else {
			k = avx2 ? GT_KERN_AVX2 : GT_KERN_NONE;
			w = avx512 ? "GT_NO_AVX512 is set" : avx2 ? no512_msg : cpu_msg;
		}
	}
	if (why)
		*why = w;
	return k;
}

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

/* 0 unknown, 1 granted, -1 refused */
static int amx_perm;

int gt_amx_permit(void)
{
	int st = __atomic_load_n(&amx_perm, __ATOMIC_ACQUIRE);
	if (!st) {
		/* racing first calls both ask: the answer is the same */
		st = syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0 ? 1 : -1;
		__atomic_store_n(&amx_perm, st, __ATOMIC_RELEASE);
	}
	return st > 0 ? 0 : -1;
}

const char *gt_amx_why_not(const char *env, const char *env_msg, int kind_bit, int cpu_more,
                           const char *cpu_msg)
{
	unsigned a, b, c, d;
	if (env_set(env))
		return env_msg;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(d & (1u << 24)) || !(d & (1u << kind_bit)) ||
	    !cpu_more)
		return cpu_msg;
	if (gt_amx_permit() != 0)
		return "the kernel refuses the AMX state";
	return NULL;
}

__attribute__((target("amx-tile"))) void gt_amx_tiles(void)
{
	struct {
		uint8_t palette, start_row, zero[14];
		uint16_t colsb[16];
		uint8_t rows[16];
	} cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.palette = 1;
	for (int t = 0; t < 8; t++) {
		cfg.colsb[t] = 64;
		cfg.rows[t] = 16;
	}
	/* the intrinsic's asm names only the first 8 bytes as read: the
	 * stores to the rest must not be dropped */
	__asm__ volatile("" : : "r"(&cfg) : "memory");
	_tile_loadconfig(&cfg);
}
#else
int gt_amx_permit(void)
{
	return -1;
}

const char *gt_amx_why_not(const char *env, const char *env_msg, int kind_bit, int cpu_more,
                           const char *cpu_msg)
{
	return env_set(env) ? env_msg : cpu_msg;
}

void gt_amx_tiles(void)
{
}
#endif
