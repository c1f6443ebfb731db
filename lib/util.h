/*
 * util.h: little-endian byte order, hex digits and clocks.
 *
 * The file formats of gt (gt-model(5), gt-delta(5), the outer and unit
 * states, npz) store integers and floats little-endian whatever the host;
 * these helpers read and write them byte by byte (the compiler turns them
 * into plain loads and stores on a little-endian machine). p points to at
 * least 2, 4 or 8 bytes; no alignment is needed.
 *
 * Also the small things many modules need once: growing an array, a text
 * buffer, the ISO 8601 time of the JSON files, a warning line through a
 * caller's callback.
 */
#ifndef GT_UTIL_H
#define GT_UTIL_H
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline void gt_le_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void gt_le_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void gt_le_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t gt_le_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t gt_le_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t gt_le_get64(const uint8_t *p)
{
	return (uint64_t)gt_le_get32(p) | (uint64_t)gt_le_get32(p + 4) << 32;
}

/* float32 and float64 as their IEEE 754 bits, little-endian:
 * gt_le_putf, gt_le_getf (float, 4 bytes) and gt_le_putd, gt_le_getd
 * (double, 8 bytes), each the bits of T through the unsigned integer U of
 * its size. */
#define GT_LE_FLOAT(T, U, BITS, SUF)                        \
	static inline void gt_le_put##SUF(uint8_t *p, T x)  \
	{                                                   \
		U u;                                        \
		memcpy(&u, &x, sizeof u);                   \
		gt_le_put##BITS(p, u);                      \
	}                                                   \
	static inline T gt_le_get##SUF(const uint8_t *p)    \
	{                                                   \
		U u = gt_le_get##BITS(p);                   \
		T x;                                        \
		memcpy(&x, &u, sizeof x);                   \
		return x;                                   \
	}
GT_LE_FLOAT(float, uint32_t, 32, f)
GT_LE_FLOAT(double, uint64_t, 64, d)
#undef GT_LE_FLOAT

/* gt_le_putf_n, gt_le_getf_n: n float32 values to and from 4n bytes */
static inline void gt_le_putf_n(uint8_t *p, const float *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		gt_le_putf(p + 4 * i, x[i]);
}

static inline void gt_le_getf_n(const uint8_t *p, float *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		x[i] = gt_le_getf(p + 4 * i);
}

/* gt_hex: the n bytes at p as 2n lowercase hex digits and a NUL in
 * out[2n + 1]. Returns out. */
char *gt_hex(char *out, const void *p, size_t n);

/* gt_now: seconds on the monotonic clock (CLOCK_MONOTONIC), for intervals
 * and deadlines; its zero is arbitrary. */
double gt_now(void);

/* gt_wall: seconds since the Unix epoch on the wall clock (CLOCK_REALTIME),
 * microsecond resolution or better; it can jump when the clock is set. */
double gt_wall(void);

/* gt_sleep: sleep s seconds (nothing for s <= 0), resuming after a signal
 * until the time is up, but returning early once *stop (may be NULL) is
 * non-zero: the pause of a loop that SIGINT or SIGTERM ends. */
void gt_sleep(double s, const volatile sig_atomic_t *stop);

/* gt_grow: the array p (elements of size bytes, *cap of them; NULL when
 * *cap is 0) with room for at least need elements: when need > *cap, the
 * capacity doubles from *cap (from first, or 1, when *cap is 0) until it
 * holds need and p is reallocated (gt_xrealloc: aborts on out of memory,
 * as it does when the size overflows). Returns the array (the caller's);
 * *cap updated. As git's ALLOC_GROW. */
void *gt_grow(void *p, size_t *cap, size_t need, size_t size, size_t first);

/* GT_GROW(p, need, cap, first): gt_grow on the array p, whose capacity is
 * the integer lvalue cap (of any integer type), elements sizeof *p:
 *	GT_GROW(v, n + 1, cap, 16);
 *	v[n++] = x; */
#define GT_GROW(p, need, cap, first)                                               \
	do {                                                                       \
		if ((size_t)(need) > (size_t)(cap)) {                              \
			size_t gt_grow_cap_ = (size_t)(cap);                       \
			(p) = gt_grow((p), &gt_grow_cap_, (size_t)(need), sizeof *(p), \
			              (first));                                    \
			(cap) = (__typeof__(cap))gt_grow_cap_;                      \
		}                                                                  \
	} while (0)

/* gt_buf: a growing text buffer. Zero-initialise it ({0}); p is
 * NUL-terminated once anything is put (NULL before), n bytes long, cap
 * allocated; free(p) when done (the caller's). */
typedef struct gt_buf {
	char *p;
	size_t n, cap;
} gt_buf;

/* gt_buf_put: the n bytes at s appended (they may hold NULs); aborts on out
 * of memory (gt_xrealloc). */
void gt_buf_put(gt_buf *b, const void *s, size_t n);

/* gt_buf_puts: the string s appended. */
void gt_buf_puts(gt_buf *b, const char *s);

/* gt_buf_printf: printf's text appended, whatever its length. */
void gt_buf_printf(gt_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* gt_iso_time: t (seconds since the Unix epoch) as UTC ISO 8601 to the
 * second, "2026-01-02T03:04:05Z", the form of every time in gt's JSON
 * files, into out (n >= 21 bytes). Returns out, or NULL with out "" when
 * gmtime_r cannot represent t. */
char *gt_iso_time(char *out, size_t n, long long t);

/* gt_warnf, gt_vwarnf: a printf-style line (cut to 1023 bytes) through
 * the caller's warning callback, warn(ctx, line); nothing when warn is
 * NULL. The form of the library's warn/warn_ctx options (gt_store_opts). */
typedef void (*gt_warn_fn)(void *ctx, const char *msg);
void gt_warnf(gt_warn_fn warn, void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void gt_vwarnf(gt_warn_fn warn, void *ctx, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif
