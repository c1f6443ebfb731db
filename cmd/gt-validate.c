/* gt-validate: check game records, pass the good ones through unchanged. */
#include "board.h"
#include "gt.h"
#include "record.h"
#include "validate.h"

#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *prog = "gt-validate";

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gt-validate [--rejects FILE] [--seen FILE] [--stats[=FILE]] [--max-line BYTES]\n"
	        "                   [--min-moves N] [--max-moves N] [--allow-unscored-results]\n"
	        "                   [--board-size LIST] [--komi LIST] [--rules LIST]\n"
	        "                   [--max-weight W] [--max-visits N]\n"
	        "                   [--progress] [FILE ...]\n"
	        "Check NDJSON game records (gt-record(5), gzip or plain; stdin when no FILE) and\n"
	        "write each one that passes, unchanged, to stdout.\n"
	        "  --rejects FILE   one NDJSON line per rejected record (line, reason, detail)\n"
	        "  --seen FILE      hashes of records seen by earlier runs; accepted ones are appended\n"
	        "  --stats[=FILE]   JSON summary to stderr or FILE at the end\n"
	        "  --max-line BYTES longest line read (suffix K, M, G; default 64M)\n"
	        "  --min-moves N, --max-moves N   accepted game length (default 10..500)\n"
	        "  --allow-unscored-results       accept games whose result area scoring cannot check\n"
	        "  --board-size LIST, --komi LIST, --rules LIST   what the run takes (comma-separated;\n"
	        "                   default anything the format allows)\n"
	        "  --max-weight W   largest position weight (4)\n"
	        "  --max-visits N   most visits of a position (1000000)\n"
	        "  --progress       a count on stderr every 1000 records (default when it is a terminal)\n"
	        "  -h, --help       this text;  --version  the version\n"
	        "Exit status: 0 all records passed, 1 some were rejected or an error, 2 usage.\n");
}

typedef struct run {
	gt_validate_opts opts;
	size_t max_line;
	FILE *rejects;
	const char *rejects_name, *seen_name;
	int seen_fd;
	gt_seen *seen;
	gt_vstats *st;
	gt_record rec;
	int failed;         /* an error other than rejected records */
	int progress;       /* a count on stderr every 1000 records */
	long nread;
} run;

static void reject(run *R, const char *file, long line, const gt_record *r, const char *reason,
                   const char *detail)
{
	gt_vstats_reject(R->st, reason, r ? r->worker : NULL, r ? r->model : NULL);
	if (!R->rejects) {
		cli_warn("%s:%ld: %s: %s", file, line, reason, detail);
		return;
	}
	char *s = gt_validate_reject_json(file, line, r, reason, detail);
	fprintf(R->rejects, "%s\n", s);
	free(s);
}

static void do_file(run *R, FILE *f, const char *name)
{
	gt_record_reader *rd = gt_record_reader_new(f, name, R->max_line);
	const char *line, *reason;
	size_t len;
	gt_error e;
	int rc;
	char detail[256];
	gt_seen_keys k;
	while ((rc = gt_record_read_line(rd, &line, &len, &e)) != 0) {
		if (rc < 0) {
			reject(R, name, e.line, NULL,
			       rc == GT_ETOOLONG ? "too-long" : rc == GT_EIO ? "io" : "gzip", e.text);
			if (rc == GT_ETOOLONG)
				continue;
			break;
		}
		if (strspn(line, " \t\r") == len)
			continue;
		if (R->progress && ++R->nread % 1000 == 0)
			fprintf(stderr, "\r%s: %ld records, %ld rejected", prog, R->nread, gt_vstats_rejected(R->st));
		if (gt_validate_line(&R->rec, line, len, &R->opts, R->seen, &k, &reason, detail,
		                     sizeof detail)) {
			reject(R, name, e.line, &R->rec, reason, detail);
			continue;
		}
		if (fwrite(line, 1, len, stdout) != len || putchar('\n') == EOF)
			cli_die_errno("write error on stdout");
		if (gt_seen_commit(R->seen, &k, R->seen_fd) != 0)
			cli_die_errno("%s: writing the seen file", R->seen_name);
		gt_vstats_accept(R->st, &R->rec);
	}
	gt_record_reader_free(rd);
}

/* --seen FILE: its hashes into R->seen, and the file open to append; a
 * torn last line (a write cut short) is dropped with a warning */
static void open_seen(run *R)
{
	FILE *f = fopen(R->seen_name, "r");
	gt_error e;
	long long whole = 0, size = 0;
	if (f) {
		int rc = gt_seen_load(R->seen, f, &whole, &e);
		if (rc == 0 && fseeko(f, 0, SEEK_END) == 0)
			size = ftello(f);
		fclose(f);
		if (rc)
			cli_die("%s:%ld: %s", R->seen_name, e.line, e.text);
	} else if (errno != ENOENT) {
		cli_die_errno("%s", R->seen_name);
	}
	if ((R->seen_fd = open(R->seen_name, O_WRONLY | O_APPEND | O_CREAT, 0644)) < 0)
		cli_die_errno("%s", R->seen_name);
	if (size > whole) {
		cli_warn("%s: a torn last line (%lld bytes, a write cut short) dropped", R->seen_name,
		         size - whole);
		if (ftruncate(R->seen_fd, (off_t)whole) != 0)
			cli_die_errno("%s: cutting the torn line", R->seen_name);
	}
}

/* the end of the run: close the outputs, --stats; 1 on an error */
static int finish(run *R, int stats, const char *stats_name)
{
	int failed = cli_fshut(stdout, "stdout");
	if (R->rejects && fclose(R->rejects)) {
		cli_warn_errno("%s", R->rejects_name);
		failed = 1;
	}
	if (R->seen_fd >= 0 && close(R->seen_fd)) {
		cli_warn_errno("%s", R->seen_name);
		failed = 1;
	}
	if (stats) {
		char *s = gt_vstats_json(R->st);
		FILE *f = stats_name ? fopen(stats_name, "w") : stderr;
		if (!f || fprintf(f, "%s\n", s) < 0 || (stats_name && fclose(f))) {
			cli_warn_errno("%s", stats_name ? stats_name : "stderr");
			failed = 1;
		}
		free(s);
	}
	return failed;
}

enum { O_REJECTS = 256, O_SEEN, O_STATS, O_MINMOVES, O_MAXMOVES, O_UNSCORED,
       O_PROGRESS, O_SIZE, O_KOMI, O_RULES, O_MAXWEIGHT, O_MAXVISITS };
static const struct option lo[] = {
	{"rejects", required_argument, NULL, O_REJECTS},
	{"seen", required_argument, NULL, O_SEEN},
	{"stats", optional_argument, NULL, O_STATS},
	CLI_MAXLINE_OPT,
	{"min-moves", required_argument, NULL, O_MINMOVES},
	{"max-moves", required_argument, NULL, O_MAXMOVES},
	{"allow-unscored-results", no_argument, NULL, O_UNSCORED},
	{"progress", no_argument, NULL, O_PROGRESS},
	{"board-size", required_argument, NULL, O_SIZE},
	{"komi", required_argument, NULL, O_KOMI},
	{"rules", required_argument, NULL, O_RULES},
	{"max-weight", required_argument, NULL, O_MAXWEIGHT},
	{"max-visits", required_argument, NULL, O_MAXVISITS},
	CLI_OPTS_END,
};

int main(int argc, char **argv)
{
	run R;
	memset(&R, 0, sizeof R);
	gt_validate_opts_init(&R.opts);
	R.max_line = (size_t)64 << 20;
	R.seen_fd = -1;
	const char *stats_name = NULL;
	int stats = 0, c;
	gt_error e;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_REJECTS: R.rejects_name = optarg; break;
		case O_SEEN: R.seen_name = optarg; break;
		case O_STATS: stats = 1; stats_name = optarg; break;
		case CLI_O_MAXLINE: R.max_line = cli_max_line(optarg); break;
		case O_MINMOVES: R.opts.min_moves = (int)cli_int("--min-moves", optarg, 0, GT_MAX_HIST); break;
		case O_MAXMOVES: R.opts.max_moves = (int)cli_int("--max-moves", optarg, 0, GT_MAX_HIST); break;
		case O_UNSCORED: R.opts.allow_unscored = 1; break;
		case O_PROGRESS: R.progress = 1; break;
		case O_SIZE: case O_KOMI: case O_RULES:
			if (gt_validate_accept(&R.opts, c == O_SIZE ? "board-size" : c == O_KOMI ? "komi" : "rules",
			                       optarg, &e))
				cli_usage_die("--%s: %s", c == O_SIZE ? "board-size" : c == O_KOMI ? "komi" : "rules",
				              e.text);
			break;
		case O_MAXWEIGHT: R.opts.max_weight = cli_double("--max-weight", optarg, 0, 1e30); break;
		case O_MAXVISITS: R.opts.max_visits = cli_int("--max-visits", optarg, 0, INT32_MAX); break;
		default: cli_opt_other(c, usage);
		}
	}
	if (R.opts.min_moves > R.opts.max_moves)
		cli_usage_die("--min-moves %d is more than --max-moves %d", R.opts.min_moves,
		              R.opts.max_moves);
	if (R.rejects_name && !(R.rejects = fopen(R.rejects_name, "w")))
		cli_die_errno("%s", R.rejects_name);
	R.seen = gt_seen_new();
	if (R.seen_name)
		open_seen(&R);
	R.st = gt_vstats_new();
	if (isatty(STDERR_FILENO))
		R.progress = 1;
	gt_record_init(&R.rec);
	cli_files in;
	cli_files_init(&in, argc - optind, argv + optind);
	for (FILE *f; (f = cli_files_next(&in));)
		do_file(&R, f, in.name);
	R.failed |= in.failed;
	gt_record_release(&R.rec);
	if (R.progress && R.nread >= 1000)
		fputc('\n', stderr);
	R.failed |= finish(&R, stats, stats_name);
	int rejected = gt_vstats_rejected(R.st) > 0;
	gt_vstats_free(R.st);
	gt_seen_free(R.seen);
	return R.failed || rejected ? 1 : 0;
}
