/*
 * tap.h: a minimal Test Anything Protocol producer for gt's C unit tests.
 * Each test program prints "ok N - name" / "not ok N - name" lines and the
 * plan at the end ("1..N"); prove(1) reads them. The exit status is the
 * number of failures (capped at 255), so a failing test also fails the run.
 *
 *   ok(cond, "fmt", ...)          one assertion
 *   is_int(got, want, "fmt", ...) integers, prints both on failure
 *   is_dbl(got, want, tol, ...)   |got - want| <= tol
 *   is_str(got, want, ...)        strcmp
 *   diag("fmt", ...)              a "# " comment line
 *   skip_all("reason")            "1..0 # SKIP reason" and exit 0
 *   return done_testing();        prints the plan, returns the exit status
 */
#ifndef GT_TAP_H
#define GT_TAP_H
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_fail;

static void tap_vreport(int pass, const char *fmt, va_list ap)
{
	tap_n++;
	if (!pass)
		tap_fail++;
	printf("%sok %d - ", pass ? "" : "not ", tap_n);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

static int __attribute__((format(printf, 2, 3), unused)) ok(int pass, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vreport(pass, fmt, ap);
	va_end(ap);
	return pass;
}

static void __attribute__((format(printf, 1, 2), unused)) diag(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
}

#define is_int(got, want, ...) do { long long g_ = (long long)(got), w_ = (long long)(want); \
	if (!ok(g_ == w_, __VA_ARGS__)) diag("  got %lld, want %lld", g_, w_); } while (0)
#define is_dbl(got, want, tol, ...) do { double g_ = (double)(got), w_ = (double)(want); \
	if (!ok(fabs(g_ - w_) <= (tol), __VA_ARGS__)) diag("  got %.9g, want %.9g (tol %g)", g_, w_, (double)(tol)); } while (0)
#define is_str(got, want, ...) do { const char *g_ = (got), *w_ = (want); \
	if (!ok(g_ && w_ && strcmp(g_, w_) == 0, __VA_ARGS__)) diag("  got '%s', want '%s'", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); } while (0)

static void __attribute__((unused, noreturn)) skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

static int __attribute__((unused)) done_testing(void)
{
	printf("1..%d\n", tap_n);
	if (tap_fail)
		printf("# %d of %d failed\n", tap_fail, tap_n);
	return tap_fail > 255 ? 255 : tap_fail;
}
#endif
