/* util.c: hex digits, clocks, growing arrays and text, ISO times and
 * warnings (util.h). */
#include "util.h"
#include "gt.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

char *gt_hex(char *out, const void *p, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hx[b[i] >> 4];
		out[2 * i + 1] = hx[b[i] & 15];
	}
	out[2 * n] = 0;
	return out;
}

double gt_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double gt_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void gt_sleep(double s, const volatile sig_atomic_t *stop)
{
	if (!(s > 0))
		return;
	struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
	while (!(stop && *stop) && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

void *gt_grow(void *p, size_t *cap, size_t need, size_t size, size_t first)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : first ? first : 1;
	while (c < need)
		c = c > SIZE_MAX / 2 ? need : 2 * c;
	/* a product that wraps asks for SIZE_MAX: gt_xrealloc's abort */
	p = gt_xrealloc(p, size && c > SIZE_MAX / size ? SIZE_MAX : c * size);
	*cap = c;
	return p;
}

void gt_buf_put(gt_buf *b, const void *s, size_t n)
{
	b->p = gt_grow(b->p, &b->cap, b->n + n + 1, 1, 1024);
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

void gt_buf_puts(gt_buf *b, const char *s)
{
	gt_buf_put(b, s, strlen(s));
}

void gt_buf_printf(gt_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (k <= 0)
		return;
	b->p = gt_grow(b->p, &b->cap, b->n + (size_t)k + 1, 1, 1024);
	va_start(ap, fmt);
	vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)k;
}

char *gt_iso_time(char *out, size_t n, long long t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (n)
		out[0] = 0;
	if (!gmtime_r(&tt, &tm) || !strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return NULL;
	return out;
}

void gt_vwarnf(gt_warn_fn warn, void *ctx, const char *fmt, va_list ap)
{
	if (!warn)
		return;
	char msg[1024];
	vsnprintf(msg, sizeof msg, fmt, ap);
	warn(ctx, msg);
}

void gt_warnf(gt_warn_fn warn, void *ctx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	gt_vwarnf(warn, ctx, fmt, ap);
	va_end(ap);
}
