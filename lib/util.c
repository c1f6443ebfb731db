/* util.c: hex digits and clocks (util.h). */
#include "util.h"

#include <errno.h>
#include <math.h>
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
