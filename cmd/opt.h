/*
 * opt.h: option values for the commands that share one wording of usage
 * errors ("PROG: --opt: want 1..100, got 'x'", exit status 2). Included by
 * a cmd/gt-*.c file after it defines `static const char *prog`.
 */
#ifndef GT_CMD_OPT_H
#define GT_CMD_OPT_H
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* die_usage: the usage error for option opt and exit 2. */
static void __attribute__((noreturn, unused)) die_usage(const char *opt, const char *want, const char *got)
{
	fprintf(stderr, "%s: %s: want %s, got '%s'\n", prog, opt, want, got);
	exit(2);
}

/* num_long: s as a decimal integer in lo..hi, or a usage error. */
static long __attribute__((unused)) num_long(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		char want[64];
		snprintf(want, sizeof want, "%ld..%ld", lo, hi);
		die_usage(opt, want, s);
	}
	return v;
}

/* num_double: s as a number in lo..hi (NaN refused), or a usage error. */
static double __attribute__((unused)) num_double(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi)) {
		char want[64];
		snprintf(want, sizeof want, "a number in %g..%g", lo, hi);
		die_usage(opt, want, s);
	}
	return v;
}
#endif
