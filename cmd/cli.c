/* cli.c: diagnostics, option values, the file loop and the final stdout
 * check shared by the commands (cli.h). */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* "PROG: message[: strerror(err)]\n" on stderr */
static void vmsg(int err, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	if (err >= 0)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(-1, fmt, ap);
	va_end(ap);
}

void cli_warn_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;
	va_start(ap, fmt);
	vmsg(err, fmt, ap);
	va_end(ap);
}

void cli_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(-1, fmt, ap);
	va_end(ap);
	exit(1);
}

void cli_die_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;
	va_start(ap, fmt);
	vmsg(err, fmt, ap);
	va_end(ap);
	exit(1);
}

void cli_usage_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(-1, fmt, ap);
	va_end(ap);
	exit(2);
}

void cli_bad_value(const char *opt, const char *want, const char *got)
{
	fprintf(stderr, "%s: %s: want %s, got '%s'\n", prog, opt, want, got);
	exit(2);
}

long long cli_int(const char *opt, const char *s, long long lo, long long hi)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		char want[64];
		snprintf(want, sizeof want, "%lld..%lld", lo, hi);
		cli_bad_value(opt, want, s);
	}
	return v;
}

/* digits only, base 10, no overflow: 0, or -1 */
static int digits(const char *s, char **end, unsigned long long *v)
{
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, end, 10);
	return errno ? -1 : 0;
}

uint64_t cli_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
	char *end;
	unsigned long long v;
	if (digits(s, &end, &v) || *end || v < lo || v > hi) {
		char want[64];
		snprintf(want, sizeof want, "%llu..%llu", (unsigned long long)lo,
		         (unsigned long long)hi);
		cli_bad_value(opt, want, s);
	}
	return v;
}

double cli_double(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || !(v >= lo && v <= hi)) {
		char want[80];
		snprintf(want, sizeof want, "a number in %g..%g", lo, hi);
		cli_bad_value(opt, want, s);
	}
	return v;
}

/* v with the largest exact suffix: 1T, 64M, 1000 */
static void size_str(char *buf, size_t n, uint64_t v)
{
	static const char suf[] = "KMGT";
	int k = 0;
	while (k < 4 && v && v % 1024 == 0) {
		v /= 1024;
		k++;
	}
	snprintf(buf, n, k ? "%llu%c" : "%llu", (unsigned long long)v, suf[k ? k - 1 : 0]);
}

uint64_t cli_size(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
	char *end;
	unsigned long long v;
	int ok = digits(s, &end, &v) == 0;
	if (ok && *end) {
		int sh = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 :
		         *end == 'G' || *end == 'g' ? 30 : -1;
		ok = sh > 0 && !end[1] && v <= (UINT64_MAX >> sh);
		if (ok)
			v <<= sh;
		end += ok;
	}
	if (!ok || *end || v < lo || v > hi) {
		char want[80], a[24], b[24];
		size_str(a, sizeof a, lo);
		size_str(b, sizeof b, hi);
		snprintf(want, sizeof want, "a size in %s..%s", a, b);
		cli_bad_value(opt, want, s);
	}
	return v;
}

void cli_files_init(cli_files *it, int n, char **names)
{
	static char *dash[] = {"-"};
	it->names = n > 0 ? names : dash;
	it->n = n > 0 ? n : 1;
	it->i = 0;
	it->f = NULL;
	it->name = NULL;
	it->failed = 0;
}

FILE *cli_files_next(cli_files *it)
{
	if (it->f && it->f != stdin)
		fclose(it->f);
	it->f = NULL;
	while (it->i < it->n) {
		it->name = it->names[it->i++];
		it->f = strcmp(it->name, "-") ? fopen(it->name, "rb") : stdin;
		if (it->f)
			return it->f;
		cli_warn_errno("%s", it->name);
		it->failed = 1;
	}
	return NULL;
}

int cli_fshut(FILE *f, const char *name)
{
	if (fflush(f) == 0 && !ferror(f))
		return 0;
	cli_warn("write error on %s: %s", name, strerror(errno ? errno : EIO));
	return 1;
}
