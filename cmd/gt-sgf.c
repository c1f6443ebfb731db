/* gt-sgf: SGF game files to game records (gt-record(5)), and back. */
#include "fs.h"
#include "gt.h"
#include "record.h"
#include "sgf.h"
#include "sgfrec.h"

#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *prog = "gt-sgf";
static int progress;

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gt-sgf [--rules NAME] [--max-file BYTES] [--progress] [FILE ...]\n"
	        "       gt-sgf --to-sgf [-o DIR] [--max-line BYTES] [FILE ...]\n"
	        "SGF games to NDJSON game records on stdout (gt-record(5)), or records to SGF.\n"
	        "  --rules NAME   replay every game under NAME (tromp-taylor, chinese, new-zealand)\n"
	        "                 and count numeric results as area scores; default: from RU\n"
	        "  --max-file BYTES  largest SGF file read (suffix K, M, G; default 256M)\n"
	        "  --to-sgf       read records, write SGF: a collection on stdout, or with\n"
	        "  -o DIR         one file per game in DIR, named by its game_id\n"
	        "  --max-line BYTES  longest record read (suffix K, M, G; default 64M)\n"
	        "  --progress     counts on stderr (default when stderr is a terminal)\n"
	        "  -h, --help     this text;  --version  the version\n");
}

/* the whole of f in a new buffer (NUL-terminated); NULL with errno on an
 * error, EFBIG when f holds more than max bytes */
static char *slurp(FILE *f, size_t max, size_t *len)
{
	size_t cap = 1 << 16, n = 0, k;
	char *buf = gt_xmalloc(cap);
	while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += k;
		if (n > max) {
			free(buf);
			errno = EFBIG;
			return NULL;
		}
		if (cap - n - 1 == 0)
			buf = gt_xrealloc(buf, cap *= 2);
	}
	if (ferror(f)) {
		int e = errno;
		free(buf);
		errno = e ? e : EIO;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

static int write_record(const gt_record *r)
{
	int w = gt_record_write(r, stdout);
	if (w == GT_EIO) {
		cli_die_errno("write error on stdout");
	}
	return w;
}

/* the SGF file f, named name, to records on stdout, one game at a time
 * (memory: the file and one game); returns 0, or 1 if a game or the file
 * was bad */
static int sgf_to_records(FILE *f, const char *name, const gt_rules *rules, size_t max,
                          long *ngames, long *nout)
{
	int bad = 0, n = 0;
	size_t len = 0;
	char *buf = slurp(f, max, &len);
	if (!buf) {
		if (errno == EFBIG)
			cli_warn("%s: larger than --max-file (%zu bytes); skipped", name, max);
		else
			cli_warn_errno("%s", name);
		return 1;
	}
	gt_sgf_reader *it = gt_sgf_reader_new(buf, len);
	gt_sgf_game g;
	gt_record r;
	gt_record_init(&r);
	gt_error e;
	for (; gt_sgf_reader_next(it, &g); gt_sgf_game_release(&g)) {
		char id[65];
		(*ngames)++;
		n++;
		if (gt_sgfrec_to_record(&g, rules, &r, &e)) {
			cli_warn("%s: %s", name, e.text);
			bad = 1;
			continue;
		}
		if (gt_sgfrec_game_id(buf + g.offset, (size_t)(g.end - g.offset), g.index, id)) {
			cli_warn("%s: game %d: sha256 failed", name, g.index);
			bad = 1;
			continue;
		}
		r.game_id = gt_xstrdup(id);
		if (write_record(&r)) {
			cli_warn("%s: game %d: cannot write the record", name, g.index);
			bad = 1;
			continue;
		}
		(*nout)++;
	}
	if (n == 0) {
		cli_warn("%s: no SGF game found", name);
		bad = 1;
	}
	gt_record_release(&r);
	gt_sgf_reader_free(it);
	free(buf);
	return bad;
}

/* a game_id usable as a file name: [0-9A-Za-z_-], 1 to 200 bytes */
static int safe_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n > 200)
		return 0;
	return strspn(s, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-") == n;
}

/* text[0..len) to dir/name atomically (gt_fs_write_atomic) */
static int write_atomic(const char *dir, const char *name, const char *text, size_t len)
{
	size_t dl = strlen(dir) + strlen(name) + 2;
	char *path = gt_xmalloc(dl);
	snprintf(path, dl, "%s/%s", dir, name);
	gt_error e;
	int rc = gt_fs_write_atomic(path, text, len, &e);
	if (rc)
		cli_warn("%s", e.text);
	free(path);
	return rc ? 1 : 0;
}

/* the file name of record r (its line, len bytes) in a --to-sgf -o DIR:
 * <game_id>[-s<symmetry>].sgf, or the line's sha256 for a game_id that is
 * no safe name; 0, or -1 if sha256 failed */
static int sgf_name(const gt_record *r, const char *line, size_t len, char *fname, size_t size)
{
	char id[65];
	if (!safe_name(r->game_id) && gt_sgfrec_game_id(line, len, 0, id))
		return -1;
	int n = snprintf(fname, size, "%s", safe_name(r->game_id) ? r->game_id : id);
	if (r->symmetry)
		n += snprintf(fname + n, size - n, "-s%d", r->symmetry);
	snprintf(fname + n, size - n, ".sgf");
	return 0;
}

/* the records of f, named name, to SGF; returns 0 or 1 */
static int records_to_sgf(FILE *f, const char *name, const char *dir, size_t max_line,
                          long *ngames, long *nout)
{
	int bad = 0;
	cli_records it;
	cli_records_init(&it, f, name, max_line, 1);
	gt_record r;
	gt_record_init(&r);
	gt_error e;
	while (cli_records_next(&it)) {
		(*ngames)++;
		gt_sgf_game g;
		if (gt_record_parse(&r, it.line, it.len, &e) || gt_sgfrec_from_record(&r, &g, &e)) {
			cli_records_warn(&it, e.text);
			continue;
		}
		size_t tl;
		char *text = gt_sgf_write_str(&g, &tl), fname[256];
		gt_sgf_game_release(&g);
		if (!dir) {
			if (fwrite(text, 1, tl, stdout) != tl)
				cli_die_errno("write error on stdout");
			(*nout)++;
		} else if (sgf_name(&r, it.line, it.len, fname, sizeof fname)) {
			cli_records_warn(&it, "sha256 failed");
			free(text);
			continue;
		} else if (write_atomic(dir, fname, text, tl)) {
			bad = 1;
		} else {
			(*nout)++;
		}
		free(text);
		if (progress && *ngames % 1000 == 0)
			cli_warn("%ld records, %ld games written", *ngames, *nout);
	}
	gt_record_release(&r);
	bad |= it.bad != 0;
	cli_records_release(&it);
	return bad;
}

enum { O_RULES = 256, O_TOSGF, O_MAXFILE, O_PROGRESS };
static const struct option lo[] = {
	{"rules", required_argument, NULL, O_RULES},
	{"to-sgf", no_argument, NULL, O_TOSGF},
	{"output", required_argument, NULL, 'o'},
	CLI_MAXLINE_OPT,
	{"max-file", required_argument, NULL, O_MAXFILE},
	{"progress", no_argument, NULL, O_PROGRESS},
	CLI_OPTS_END,
};

int main(int argc, char **argv)
{
	const gt_rules *rules = NULL;
	const char *dir = NULL, *why;
	int to_sgf = 0, c, bad = 0;
	size_t max_line = (size_t)64 << 20, max_file = (size_t)256 << 20;
	progress = isatty(2);
	while ((c = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
		switch (c) {
		case O_RULES:
			if (!(rules = gt_rules_find(optarg)))
				cli_usage_die("--rules: unknown ruleset %s (tromp-taylor, chinese, new-zealand)",
				              optarg);
			break;
		case O_TOSGF: to_sgf = 1; break;
		case 'o': dir = optarg; break;
		case CLI_O_MAXLINE: max_line = cli_max_line(optarg); break;
		case O_MAXFILE: max_file = (size_t)cli_size("--max-file", optarg, 1, 1ULL << 40); break;
		case O_PROGRESS: progress = 1; break;
		default: cli_opt_other(c, usage);
		}
	}
	if (dir && !to_sgf)
		cli_usage_die("-o needs --to-sgf");
	if (rules && to_sgf)
		cli_usage_die("--rules is for SGF input, not with --to-sgf");
	if (dir && (why = cli_not_dir(dir)))
		cli_die("%s: %s", dir, why);
	long ngames = 0, nout = 0;
	cli_files in;
	cli_files_init(&in, argc - optind, argv + optind);
	for (FILE *f; (f = cli_files_next(&in));) {
		if (to_sgf)
			bad |= records_to_sgf(f, in.name, dir, max_line, &ngames, &nout);
		else
			bad |= sgf_to_records(f, in.name, rules, max_file, &ngames, &nout);
		if (progress && !to_sgf && in.i % 100 == 0)
			cli_warn("%d files, %ld games, %ld records", in.i, ngames, nout);
	}
	bad |= in.failed;
	if (progress)
		cli_warn("%ld %s read, %ld %s written, %ld skipped", ngames,
		         to_sgf ? "records" : "games", nout, to_sgf ? "games" : "records", ngames - nout);
	return cli_fshut(stdout, "stdout") ? 1 : bad;
}
