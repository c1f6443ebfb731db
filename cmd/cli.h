/*
 * cli.h: what every gt command shares, in the manner of err(3) and sbase's
 * eprintf: diagnostics "PROG: message" on stderr, exit status 1 for a
 * failure and 2 for a usage error, option values parsed in base 10 with one
 * wording, the loop over file arguments, and the final check of stdout.
 * cmd/cli.c is compiled once and linked into every command (Makefile).
 *
 * Messages are lowercase and name the thing that is wrong; fmt is printf's.
 * SIGPIPE is left alone, so `gt-xxx | head` ends quietly.
 */
#ifndef GT_CMD_CLI_H
#define GT_CMD_CLI_H
#include <stdint.h>
#include <stdio.h>

/* prog: the command's name ("gt-augment"), the first word of every
 * message. Each cmd/gt-*.c defines it: const char *prog = "gt-xxx"; */
extern const char *prog;

/* cli_warn: "PROG: message\n" on stderr; goes on. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* cli_warn_errno: "PROG: message: strerror(errno)\n" on stderr; goes on. */
void cli_warn_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* cli_die: "PROG: message\n" on stderr, then exit(1). */
void cli_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* cli_die_errno: "PROG: message: strerror(errno)\n", then exit(1). */
void cli_die_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* cli_usage_die: "PROG: message\n" for a usage error, then exit(2). */
void cli_usage_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* cli_bad_value: "PROG: OPT: want WANT, got 'GOT'\n", then exit(2): the one
 * wording of a bad option value (e.g. "gt-train: --lr: want a number in
 * 0..10, got 'x'"). */
void cli_bad_value(const char *opt, const char *want, const char *got)
	__attribute__((noreturn));

/* cli_int: s as a decimal integer (base 10 always: "010" is ten) in
 * lo..hi, or cli_bad_value(opt, "LO..HI", s). */
long long cli_int(const char *opt, const char *s, long long lo, long long hi);

/* cli_u64: s as a decimal unsigned integer (digits only, no sign) in
 * lo..hi, for values up to 2^64-1 such as seeds; else cli_bad_value. */
uint64_t cli_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi);

/* cli_double: s as a finite number in lo..hi (NaN and out of range
 * refused), or cli_bad_value(opt, "a number in LO..HI", s). */
double cli_double(const char *opt, const char *s, double lo, double hi);

/* cli_size: s as a byte count, decimal digits with an optional suffix K,
 * M or G (also lowercase; powers of 1024), in lo..hi; else
 * cli_bad_value(opt, "a size in LO..HI", s) with LO and HI written with a
 * suffix where exact (1..1T). */
uint64_t cli_size(const char *opt, const char *s, uint64_t lo, uint64_t hi);

/* The loop over file arguments: no names, or a name "-", is stdin.
 *
 *	cli_files in;
 *	cli_files_init(&in, argc - optind, argv + optind);
 *	for (FILE *f; (f = cli_files_next(&in)); )
 *		... read f, named in.name ...
 *	bad |= in.failed;
 *
 * A file that cannot be opened is reported "PROG: NAME: strerror" and
 * skipped, and failed is set. */
typedef struct cli_files {
	char **names;     /* borrowed from argv */
	int n, i;         /* names, and the next one to open */
	FILE *f;          /* the open file (stdin for "-"), NULL between files */
	const char *name; /* its name ("-" for stdin) */
	int failed;       /* 1 once a file could not be opened */
} cli_files;

/* cli_files_init: the loop over the n names (n == 0: stdin once). */
void cli_files_init(cli_files *it, int n, char **names);

/* cli_files_next: close the previous file (not stdin), open the next one
 * ("rb") and return it, reporting and skipping those that cannot be opened;
 * NULL after the last. */
FILE *cli_files_next(cli_files *it);

/* cli_fshut: the final check of an output stream (sbase's fshut): fflush
 * and ferror; on an error "PROG: write error on NAME: strerror" and 1, else
 * 0. Use as: return cli_fshut(stdout, "stdout") | bad; */
int cli_fshut(FILE *f, const char *name);

#endif
