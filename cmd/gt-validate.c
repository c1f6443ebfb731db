/* gt-validate: check game records, pass the good ones through unchanged. */
#include "board.h"
#include "gt.h"
#include "record.h"
#include "validate.h"

#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
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
	        "                   [--progress] [FILE ...]\n"
	        "Check NDJSON game records (gt-record(5), gzip or plain; stdin when no FILE) and\n"
	        "write each one that passes, unchanged, to stdout.\n"
	        "  --rejects FILE   one NDJSON line per rejected record (line, reason, detail)\n"
	        "  --seen FILE      hashes of records seen by earlier runs; accepted ones are appended\n"
	        "  --stats[=FILE]   JSON summary to stderr or FILE at the end\n"
	        "  --max-line BYTES longest line read (suffix K, M, G; default 64M)\n"
	        "  --min-moves N, --max-moves N   accepted game length (default 10..500)\n"
	        "  --allow-unscored-results       accept games whose result area scoring cannot check\n"
	        "  --progress       a count on stderr every 1000 records (default when it is a terminal)\n"
	        "  -h, --help       this text;  --version  the version\n"
	        "Exit status: 0 all records passed, 1 some were rejected or an error, 2 usage.\n");
}

/* text safe for JSON: bytes outside printable ASCII become '?' */
static json_t *ascii(const char *s)
{
	if (!s)
		return json_null();
	char *t = gt_xstrdup(s);
	for (char *p = t; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	json_t *j = json_string(t);
	free(t);
	return j;
}

typedef struct run {
	gt_validate_opts opts;
	size_t max_line;
	FILE *rejects;
	const char *rejects_name;
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
	const char *gid = r ? r->game_id : NULL, *worker = r ? r->worker : NULL,
	           *model = r ? r->model : NULL;
	gt_vstats_reject(R->st, reason, worker, model);
	if (!R->rejects) {
		cli_warn("%s:%ld: %s: %s", file, line, reason, detail);
		return;
	}
	json_t *o = json_pack("{so sI so so so ss so}", "file", ascii(file), "line", (json_int_t)line,
	                      "game_id", ascii(gid), "worker", ascii(worker), "model", ascii(model),
	                      "reason", reason, "detail", ascii(detail));
	char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	if (!s)
		abort(); /* out of memory */
	fprintf(R->rejects, "%s\n", s);
	free(s);
	json_decref(o);
}

static int blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

static int do_file(run *R, FILE *f, const char *name)
{
	gt_record_reader *rd = gt_record_reader_new(f, name, R->max_line);
	const char *line;
	size_t len;
	gt_error e;
	int rc;
	char detail[256];
	while ((rc = gt_record_read_line(rd, &line, &len, &e)) != 0) {
		if (rc == GT_ETOOLONG) {
			reject(R, name, e.line, NULL, "too-long", e.text);
			continue;
		}
		if (rc < 0) {
			reject(R, name, e.line, NULL, rc == GT_EIO ? "io" : "gzip", e.text);
			break;
		}
		if (blank(line, len))
			continue;
		if (R->progress && ++R->nread % 1000 == 0)
			fprintf(stderr, "\r%s: %ld records, %ld rejected", prog, R->nread, gt_vstats_rejected(R->st));
		long lineno = e.line;
		const char *reason = NULL;
		if (gt_record_parse_ex(&R->rec, line, len, &e, &reason)) {
			reject(R, name, lineno, &R->rec, reason ? reason : "json", e.text);
			continue;
		}
		if (gt_validate_record(&R->rec, &R->opts, &reason, detail, sizeof detail)) {
			reject(R, name, lineno, &R->rec, reason, detail);
			continue;
		}
		uint8_t id[16], game[16];
		int has_id;
		char hx[33];
		gt_record_hashes(&R->rec, id, &has_id, game);
		if (has_id && gt_seen_has(R->seen, id)) {
			snprintf(detail, sizeof detail, "game_id seen before (%s)", gt_hash_hex(id, hx));
			reject(R, name, lineno, &R->rec, "duplicate-id", detail);
			continue;
		}
		if (gt_seen_has(R->seen, game)) {
			snprintf(detail, sizeof detail, "same seed and moves seen before (%s)", gt_hash_hex(game, hx));
			reject(R, name, lineno, &R->rec, "duplicate-game", detail);
			continue;
		}
		if (fwrite(line, 1, len, stdout) != len || putchar('\n') == EOF) {
			cli_die_errno("write error on stdout");
		}
		if (has_id)
			gt_seen_add(R->seen, id);
		gt_seen_add(R->seen, game);
		if (R->seen_fd >= 0) {
			char buf[68];
			int n = 0;
			if (has_id)
				n += snprintf(buf + n, sizeof buf - n, "%s\n", gt_hash_hex(id, hx));
			n += snprintf(buf + n, sizeof buf - n, "%s\n", gt_hash_hex(game, hx));
			if (write(R->seen_fd, buf, (size_t)n) != n) { /* one write: atomic append */
				cli_die_errno("writing the seen file");
			}
		}
		gt_vstats_accept(R->st, &R->rec);
	}
	gt_record_reader_free(rd);
	return 0;
}

int main(int argc, char **argv)
{
	enum { O_REJECTS = 256, O_SEEN, O_STATS, O_MAXLINE, O_MINMOVES, O_MAXMOVES, O_UNSCORED, O_PROGRESS,
	       O_VERSION };
	static const struct option lo[] = {
		{"rejects", required_argument, NULL, O_REJECTS},
		{"seen", required_argument, NULL, O_SEEN},
		{"stats", optional_argument, NULL, O_STATS},
		{"max-line", required_argument, NULL, O_MAXLINE},
		{"min-moves", required_argument, NULL, O_MINMOVES},
		{"max-moves", required_argument, NULL, O_MAXMOVES},
		{"allow-unscored-results", no_argument, NULL, O_UNSCORED},
		{"progress", no_argument, NULL, O_PROGRESS},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, O_VERSION},
		{NULL, 0, NULL, 0},
	};
	run R;
	memset(&R, 0, sizeof R);
	gt_validate_opts_init(&R.opts);
	R.max_line = (size_t)64 << 20;
	R.seen_fd = -1;
	const char *seen_name = NULL, *stats_name = NULL;
	int stats = 0, c;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_REJECTS: R.rejects_name = optarg; break;
		case O_SEEN: seen_name = optarg; break;
		case O_STATS: stats = 1; stats_name = optarg; break;
		case O_MAXLINE:
			R.max_line = (size_t)cli_size("--max-line", optarg, 1, 1ULL << 40);
			break;
		case O_MINMOVES:
			R.opts.min_moves = (int)cli_int("--min-moves", optarg, 0, GT_MAX_HIST);
			break;
		case O_MAXMOVES:
			R.opts.max_moves = (int)cli_int("--max-moves", optarg, 0, GT_MAX_HIST);
			break;
		case O_UNSCORED: R.opts.allow_unscored = 1; break;
		case O_PROGRESS: R.progress = 1; break;
		case 'h': usage(stdout); return 0;
		case O_VERSION: printf("gt-validate %s\n", GT_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (R.opts.min_moves > R.opts.max_moves)
		cli_usage_die("--min-moves %d is more than --max-moves %d", R.opts.min_moves,
		              R.opts.max_moves);
	if (R.rejects_name && !(R.rejects = fopen(R.rejects_name, "w")))
		cli_die_errno("%s", R.rejects_name);
	R.seen = gt_seen_new();
	if (seen_name) {
		FILE *f = fopen(seen_name, "r");
		gt_error e;
		if (f) {
			int rc = gt_seen_load(R.seen, f, &e);
			fclose(f);
			if (rc)
				cli_die("%s:%ld: %s", seen_name, e.line, e.text);
		} else if (errno != ENOENT) {
			cli_die_errno("%s", seen_name);
		}
		if ((R.seen_fd = open(seen_name, O_WRONLY | O_APPEND | O_CREAT, 0644)) < 0)
			cli_die_errno("%s", seen_name);
	}
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
	R.failed |= cli_fshut(stdout, "stdout");
	if (R.rejects && fclose(R.rejects)) {
		cli_warn_errno("%s", R.rejects_name);
		R.failed = 1;
	}
	if (R.seen_fd >= 0 && close(R.seen_fd)) {
		cli_warn_errno("%s", seen_name);
		R.failed = 1;
	}
	if (stats) {
		char *s = gt_vstats_json(R.st);
		FILE *f = stats_name ? fopen(stats_name, "w") : stderr;
		if (!f || fprintf(f, "%s\n", s) < 0 || (stats_name && fclose(f))) {
			cli_warn_errno("%s", stats_name ? stats_name : "stderr");
			R.failed = 1;
		}
		free(s);
	}
	int rejected = gt_vstats_rejected(R.st) > 0;
	gt_vstats_free(R.st);
	gt_seen_free(R.seen);
	return R.failed || rejected ? 1 : 0;
}
