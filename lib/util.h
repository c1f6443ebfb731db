/*
 * util.h: little-endian byte order, hex digits and clocks.
 *
 * The file formats of gt (gt-model(5), gt-delta(5), the outer and unit
 * states, npz) store integers and floats little-endian whatever the host;
 * these helpers read and write them byte by byte (the compiler turns them
 * into plain loads and stores on a little-endian machine). p points to at
 * least 2, 4 or 8 bytes; no alignment is needed.
 */
#ifndef GT_UTIL_H
#define GT_UTIL_H
#include <signal.h>
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

/* float32 and float64 as their IEEE 754 bits, little-endian */
static inline void gt_le_putf(uint8_t *p, float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	gt_le_put32(p, u);
}

static inline float gt_le_getf(const uint8_t *p)
{
	uint32_t u = gt_le_get32(p);
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static inline void gt_le_putd(uint8_t *p, double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	gt_le_put64(p, u);
}

static inline double gt_le_getd(const uint8_t *p)
{
	uint64_t u = gt_le_get64(p);
	double d;
	memcpy(&d, &u, 8);
	return d;
}

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

#endif
