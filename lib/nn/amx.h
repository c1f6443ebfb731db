/*
 * amx.h: what bf16.c and int8.c share to drive the AMX tiles: the
 * process's permission for the tile state, the tile configuration, and
 * the masks of the im2col's 3x3 shifts that their packings read with.
 */
#ifndef GT_AMX_H
#define GT_AMX_H
#include <stdint.h>

/* gt_amx_permit: 0 when Linux grants the process the AMX tile state
 * (arch_prctl ARCH_REQ_XCOMP_PERM, Linux 5.16 and later, asked once per
 * process), else -1 (and on other systems). Thread-safe. */
int gt_amx_permit(void);

/* gt_amx_why_not: NULL when a kind of AMX tile product may be used, else
 * why not, a static string: env_msg when the environment variable env
 * (the one that forces float32) is set, not empty and not "0"; cpu_msg
 * when the CPU lacks AMX-TILE or the kind (cpuid leaf 7, bit kind_bit of
 * EDX: 22 AMX-BF16, 25 AMX-INT8) or the caller's other features
 * (cpu_more 0); "the kernel refuses the AMX state" when gt_amx_permit
 * fails. On other systems cpu_msg unless env_msg. Thread-safe. */
const char *gt_amx_why_not(const char *env, const char *env_msg, int kind_bit, int cpu_more,
                           const char *cpu_msg);

/* The kernel families of a reduced precision (bf16.c, int8.c): AMX
 * tiles, AVX-512, and AVX2 with the 256-bit VEX forms of AVX-512's
 * instructions (int8.c's AVX-VNNI). */
enum { GT_KERN_NONE, GT_KERN_AMX, GT_KERN_AVX512, GT_KERN_AVX2 };

/* gt_amx_choose: the kernel family that a reduced precision's products
 * take now: GT_KERN_NONE when the environment variable env (the one that
 * forces float32) is set, not empty and not "0" (*why = env_msg);
 * GT_KERN_AMX when the AMX tile product of the kind may be used (as
 * gt_amx_why_not says, with amx_more the caller's other features) and
 * GT_NO_AMX is unset, empty or "0" (*why = NULL); else GT_KERN_AVX512 when
 * avx512 (the caller's AVX-512 features: 1 when the CPU has them) and
 * GT_NO_AVX512 is unset, empty or "0", *why saying why not AMX
 * ("GT_NO_AMX is set", "the CPU has no AMX tiles of this kind", "the
 * kernel refuses the AMX state"); else GT_KERN_AVX2 when avx2 (the
 * caller's AVX2 family: 1 when the CPU has its features; 0 for a
 * precision without one), *why = "GT_NO_AVX512 is set" where avx512, else
 * no512_msg (why not the AVX-512 kernel: the CPU lacks it); else
 * GT_KERN_NONE, *why = "GT_NO_AVX512 is set" where avx512, else cpu_msg.
 * The CPU's AMX answers are asked once per kind_bit; the environment is
 * read at each call. why may be NULL. Thread-safe. */
int gt_amx_choose(const char *env, const char *env_msg, int kind_bit, int amx_more, int avx512,
                  int avx2, const char *no512_msg, const char *cpu_msg, const char **why);

/* gt_amx_tiles: load this thread's tile configuration: the 8 tiles of
 * 16 rows of 64 bytes (release with _tile_release). Only once
 * gt_amx_permit and the CPU's AMX-TILE say so. */
void gt_amx_tiles(void);

/* gt_amx_shift_masks: for columns n0..n0+nc-1 (nc <= 16 ng) of whole
 * boards of n x n points, in groups of 16 columns, which columns' points
 * moved by each 3x3 shift o (dy = o/3 - 1, dx = o%3 - 1) are on the
 * board: bit l of mk[9 g + o] for column n0 + 16 g + l (0 past nc); and
 * shift[o] = dy n + dx, the offset of that point. n 2..19, n0 >= 0,
 * nc <= 256.
 * Portable C: each group's masks one read of a table made at the first
 * call (tests/unit/int8 checks them against the point-by-point rule). */
void gt_amx_shift_masks(int n, long n0, int nc, uint16_t *mk, long shift[9]);

#endif
