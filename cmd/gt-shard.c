/* gt-shard: game records to training shards (gt-shard(1), gt-shard(5)). */
#include "gt.h"
#include "record.h"
#include "shard.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gt-shard -o DIR [--rows R] [--seed S] [--run N] [--level L]\n"
	           "                [--progress] [FILE ...]\n");
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static void print_line(const char *line, void *ctx)
{
	(void)ctx;
	printf("%s\n", line);
	fflush(stdout);
}

/* one input; returns the number of records refused (or -1 if it cannot be opened) */
static long shard_file(gt_shard_writer *w, const char *name, int progress)
{
	FILE *f = strcmp(name, "-") == 0 ? stdin : fopen(name, "rb");
	if (!f) {
		fprintf(stderr, "gt-shard: %s: %s\n", name, strerror(errno));
		return -1;
	}
	gt_record_reader *rd = gt_record_reader_new(f, name, 64 << 20);
	gt_record rec;
	gt_record_init(&rec);
	long bad = 0, n = 0;
	const char *line;
	size_t len;
	gt_error e;
	int rc;
	while (!stop && (rc = gt_record_read_line(rd, &line, &len, &e)) != 0) {
		if (rc < 0) {
			if (stop)
				break; /* a read interrupted by the signal */
			fprintf(stderr, "gt-shard: %s:%ld: %s\n", name, e.line, e.text);
			bad++;
			if (rc != GT_ETOOLONG)
				break;
			continue;
		}
		long lineno = e.line;
		n++;
		if (gt_record_parse(&rec, line, len, &e) != 0 ||
		    gt_shard_add_record(w, &rec, &e) != 0) {
			fprintf(stderr, "gt-shard: %s:%ld: %s\n", name, lineno, e.text);
			bad++;
		}
		if (progress && n % 1000 == 0) {
			const gt_shard_stats *st = gt_shard_writer_stats(w);
			fprintf(stderr, "gt-shard: %s: %ld records, %ld rows, %ld shards\n", name, n,
			        st->rows + st->pending, st->shards);
		}
	}
	gt_record_release(&rec);
	gt_record_reader_free(rd);
	if (f != stdin)
		fclose(f);
	return bad;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"out", required_argument, NULL, 'o'},
		{"rows", required_argument, NULL, 'r'},
		{"seed", required_argument, NULL, 's'},
		{"run", required_argument, NULL, 'R'},
		{"level", required_argument, NULL, 'L'},
		{"progress", no_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	gt_shard_opts o;
	gt_shard_opts_init(&o);
	const char *out = NULL;
	int progress = isatty(2), c;
	long v;
	while ((c = getopt_long(argc, argv, "o:r:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'r':
			if (parse_long(optarg, 1, 100000000L, &v)) {
				fprintf(stderr, "gt-shard: --rows: want 1..100000000, got '%s'\n", optarg);
				return 2;
			}
			o.rows = v;
			break;
		case 's': {
			char *end;
			errno = 0;
			unsigned long long s = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-') {
				fprintf(stderr, "gt-shard: --seed: want an unsigned integer, got '%s'\n", optarg);
				return 2;
			}
			o.seed = s;
			break;
		}
		case 'R':
			if (parse_long(optarg, 0, 999, &v)) {
				fprintf(stderr, "gt-shard: --run: want 0..999, got '%s'\n", optarg);
				return 2;
			}
			o.run = (int)v;
			break;
		case 'L':
			if (parse_long(optarg, 0, 9, &v)) {
				fprintf(stderr, "gt-shard: --level: want 0..9, got '%s'\n", optarg);
				return 2;
			}
			o.level = (int)v;
			break;
		case 'p': progress = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("gt-shard %s\n", GT_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!out) {
		fprintf(stderr, "gt-shard: no output directory (-o DIR)\n");
		usage(stderr);
		return 2;
	}
	o.on_shard = print_line;
	gt_error e = {0};
	gt_shard_writer *w = gt_shard_writer_new(out, &o, &e);
	if (!w) {
		fprintf(stderr, "gt-shard: %s\n", e.text);
		return 1;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal; /* no SA_RESTART: a blocked read returns */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	long bad = 0;
	int failed = 0;
	if (optind == argc) {
		long b = shard_file(w, "-", progress);
		bad += b < 0 ? 0 : b;
		failed |= b != 0;
	}
	for (int i = optind; i < argc && !stop; i++) {
		long b = shard_file(w, argv[i], progress);
		bad += b < 0 ? 0 : b;
		failed |= b != 0;
	}
	/* at the end, or on SIGTERM / SIGINT: what is buffered becomes whole shards */
	if (gt_shard_flush(w, &e) != 0) {
		fprintf(stderr, "gt-shard: %s\n", e.text);
		failed = 1;
	}
	const gt_shard_stats *st = gt_shard_writer_stats(w);
	if (st->nonfinite)
		fprintf(stderr, "gt-shard: %ld rows with NaN or infinity dropped\n", st->nonfinite);
	if (bad)
		fprintf(stderr, "gt-shard: %ld records refused\n", bad);
	if (progress || stop)
		fprintf(stderr, "gt-shard: %s%ld games, %ld rows in %ld shards, %ld positions skipped\n",
		        stop ? "stopped by a signal: " : "", st->games, st->rows, st->shards,
		        st->skipped);
	failed |= st->nonfinite > 0;
	gt_shard_writer_free(w);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "gt-shard: stdout: %s\n", strerror(errno));
		failed = 1;
	}
	return failed ? 1 : 0;
}
