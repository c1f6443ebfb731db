/* gt-shard: game records to training shards (gt-shard(1), gt-shard(5)). */
#include "gt.h"
#include "record.h"
#include "shard.h"
#include "board.h"

#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *prog = "gt-shard";

static void usage(FILE *f)
{
	fprintf(f, "usage: gt-shard -o DIR [--rows R] [--seed S] [--run N] [--level L]\n"
	           "                [--board-size LIST] [--katago-keys [--pos-len L]] [--progress]\n"
	           "                [FILE ...]\n");
}

static void print_line(const char *line, void *ctx)
{
	(void)ctx;
	printf("%s\n", line);
	fflush(stdout);
}

static uint32_t sizes;            /* --board-size: bit n, n x n taken; 0 all */
static long games_of[GT_MAX_N + 1]; /* records taken by board size */

/* one input; returns the number of records refused */
static long shard_file(gt_shard_writer *w, FILE *f, const char *name, int progress)
{
	cli_records it;
	cli_records_init(&it, f, name, 64 << 20, 0);
	gt_record rec;
	gt_record_init(&rec);
	long n = 0;
	gt_error e;
	while (!cli_stop && cli_records_next(&it)) {
		n++;
		if (gt_record_parse(&rec, it.line, it.len, &e) != 0)
			cli_records_warn(&it, e.text);
		else if (sizes && !(sizes >> rec.board_size & 1))
			cli_records_warn(&it, "board size not one of --board-size");
		else if (gt_shard_add_record(w, &rec, &e) != 0)
			cli_records_warn(&it, e.text);
		else
			games_of[rec.board_size]++;
		if (progress && n % 1000 == 0) {
			const gt_shard_stats *st = gt_shard_writer_stats(w);
			cli_warn("%s: %ld records, %ld rows, %ld shards", name, n,
			         st->rows + st->pending, st->shards);
		}
	}
	gt_record_release(&rec);
	cli_records_release(&it);
	return it.bad;
}

/* --board-size N[,N...] into sizes (a bad one: a usage error, exit 2) */
static void sizes_arg(const char *arg)
{
	char *copy = gt_xstrdup(arg), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		sizes |= (uint32_t)1 << cli_int("--board-size", t, 2, GT_MAX_N);
	free(copy);
	if (!sizes)
		cli_usage_die("--board-size: no size given");
}

/* report: the warnings at the end (rows dropped, records refused, games of
 * several sizes; with progress or after a signal, the totals); returns 1
 * when rows were dropped */
static int report(const gt_shard_stats *st, long bad, int progress)
{
	if (st->nonfinite)
		cli_warn("%ld rows with NaN or infinity dropped", st->nonfinite);
	if (bad)
		cli_warn("%ld records refused", bad);
	/* games of several sizes are never mixed in a shard, but say so: a
	 * trainer that takes the newest shard's size would follow the few */
	int nsizes = 0;
	char said[256] = "";
	for (int n = 2; n <= GT_MAX_N; n++)
		if (games_of[n]) {
			size_t l = strlen(said);
			snprintf(said + l, sizeof said - l, "%s%dx%d %ld", nsizes++ ? ", " : "", n, n,
			         games_of[n]);
		}
	if (nsizes > 1)
		cli_warn("games of %d board sizes (%s), each size in shards of its own", nsizes, said);
	if (progress || cli_stop)
		cli_warn("%s%ld games, %ld rows in %ld shards, %ld positions skipped",
		         cli_stop ? "stopped by a signal: " : "", st->games, st->rows, st->shards,
		         st->skipped);
	return st->nonfinite > 0;
}

static const struct option opts[] = {
	{"out", required_argument, NULL, 'o'},
	{"rows", required_argument, NULL, 'r'},
	{"seed", required_argument, NULL, 's'},
	{"run", required_argument, NULL, 'R'},
	{"level", required_argument, NULL, 'L'},
	{"progress", no_argument, NULL, 'p'},
	{"board-size", required_argument, NULL, 'b'},
	{"katago-keys", no_argument, NULL, 'K'},
	{"pos-len", required_argument, NULL, 'P'},
	CLI_OPTS_END,
};

int main(int argc, char **argv)
{
	gt_shard_opts o;
	gt_shard_opts_init(&o);
	const char *out = NULL;
	int progress = isatty(2), c, katago = 0, pos_len = 0;
	while ((c = getopt_long(argc, argv, "o:r:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'r': o.rows = cli_int("--rows", optarg, 1, 100000000L); break;
		case 's': o.seed = cli_u64("--seed", optarg, 0, UINT64_MAX); break;
		case 'R': o.run = (int)cli_int("--run", optarg, 0, 999); break;
		case 'L': o.level = (int)cli_int("--level", optarg, 0, 9); break;
		case 'p': progress = 1; break;
		case 'K': katago = 1; break;
		case 'P': pos_len = (int)cli_int("--pos-len", optarg, 2, GT_MAX_N); break;
		case 'b': sizes_arg(optarg); break;
		default: cli_opt_other(c, usage);
		}
	}
	if (!out)
		cli_usage_fail(usage, "no output directory (-o DIR)");
	if (pos_len && !katago)
		cli_usage_fail(usage, "--pos-len is for --katago-keys");
	if (katago)
		o.katago_pos_len = pos_len ? pos_len : GT_MAX_N;
	o.on_shard = print_line;
	gt_error e = {0};
	gt_shard_writer *w = gt_shard_writer_new(out, &o, &e);
	if (!w)
		cli_die("%s", e.text);
	cli_catch_stop(0);

	long bad = 0;
	int failed = 0;
	cli_files in;
	cli_files_init(&in, argc - optind, argv + optind);
	for (FILE *f; !cli_stop && (f = cli_files_next(&in));) {
		long b = shard_file(w, f, in.name, progress);
		bad += b;
		failed |= b != 0;
	}
	failed |= in.failed;
	/* at the end, or on SIGTERM / SIGINT: what is buffered becomes whole shards */
	if (gt_shard_flush(w, &e) != 0) {
		cli_warn("%s", e.text);
		failed = 1;
	}
	failed |= report(gt_shard_writer_stats(w), bad, progress);
	gt_shard_writer_free(w);
	return cli_fshut(stdout, "stdout") || failed;
}
