/* gt-sync: move objects between a machine and the store (see gt-sync(1)). */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "contrib.h"
#include "fs.h"
#include "gt.h"
#include "model.h"
#include "pull.h"
#include "release.h"
#include "store.h"

#include "cli.h"
#include "util.h"

const char *prog = "gt-sync";

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gt-sync [options] get URL [FILE|-]\n"
	        "       gt-sync [options] put FILE|- URL\n"
	        "       gt-sync [options] ls URL/\n"
	        "       gt-sync [options] latest STORE DIR\n"
	        "       gt-sync [options] pull STORE/games/ --state FILE\n"
	        "       gt-sync [options] contrib STORE GENERATION RECORDS|- [STATS]\n"
	        "options:\n"
	        "  --sha256 HEX      get: the object's sha256 must be HEX\n"
	        "  --bytes N         get: the object must be N bytes\n"
	        "  --overwrite       put: replace an existing object (pointer files)\n"
	        "  --state FILE      pull: names of consumed batches\n"
	        "  --max-line BYTES  pull: longest record line (default 64 MiB)\n"
	        "  --max-batch BYTES pull: largest decompressed batch (default 16 GiB)\n"
	        "  --share K/U       pull: only the batches whose name hashes to K of U\n"
	        "  --newest N        pull: only the N newest batches; the older marked old\n"
	        "  --stats FILE      pull: its counts and bytes as one JSON line in FILE\n"
	        "  --rejects FILE    pull: records not of their folder's worker appended to FILE\n"
	        "  --max-list N      ls, pull: most entries of one listing (default 1048576)\n"
	        "  --retries N       retries on connection errors, timeouts, 5xx (default 5)\n"
	        "  --timeout S       seconds per request, 0 = none (default 300)\n"
	        "  --netrc FILE      credentials file (default ~/.netrc)\n"
	        "  --insecure-token  send GT_STORE_TOKEN over plain http:// to other hosts\n"
	        "  --verify-key PEM  latest: latest.json must carry a valid Ed25519 signature\n"
	        "  --or-none         latest: print none when nothing is published yet\n"
	        "  --selfplay-args FILE  latest: write the published gt-selfplay options to FILE\n"
	        "  -q, --quiet       no messages about retries and skipped names\n"
	        "  -h, --help        this text\n"
	        "  --version         print the version\n"
	        "environment: GT_STORE_TOKEN (bearer token for HTTP stores),\n"
	        "  GT_STORE_INSECURE_TOKEN=1 (as --insecure-token)\n");
}

static void warn_cb(void *ctx, const char *msg)
{
	if (!*(int *)ctx)
		cli_warn("%s", msg);
}

static int fail(const char *what, int rc, const gt_error *e)
{
	cli_warn("%s%s%s", what ? what : "", what ? ": " : "",
	         e->text[0] ? e->text : gt_strerror(rc));
	return 1;
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmd_get(const gt_store_opts *o, const char *url, const char *file,
                   const char *sha, long long bytes)
{
	gt_error e = { 0 };
	int rc;
	const char *name = gt_store_basename(url);
	if (file && !strcmp(file, "-")) {
		if (sha || bytes >= 0) {
			cli_warn("--sha256 and --bytes need a FILE, not -");
			return 2;
		}
		rc = gt_store_get_stream(o, url, stdout, -1, &e);
		if (rc)
			return fail(NULL, rc, &e);
		return cli_fshut(stdout, "stdout");
	}
	char *path;
	if (!file || is_dir(file)) {
		const char *why;
		if (!gt_store_name_ok(name, &why)) {
			cli_warn("cannot use the URL's last part as a file name (%s); give FILE",
			         why);
			return 1;
		}
		path = gt_store_join(file ? file : ".", name);
	} else {
		path = gt_xstrdup(file);
	}
	rc = gt_store_get(o, url, path, sha, bytes, NULL, &e);
	free(path);
	return rc ? fail(NULL, rc, &e) : 0;
}

static int cmd_put(const gt_store_opts *o, const char *file, const char *url, int overwrite)
{
	gt_error e = { 0 };
	char buf[65536];
	size_t k;
	int rc;
	if (strcmp(file, "-")) {
		rc = gt_store_put_file(o, file, url, overwrite, NULL, &e);
		return rc ? fail(NULL, rc, &e) : 0;
	}
	if (!*gt_store_basename(url)) {
		cli_warn("put - needs an object name at the end of the URL");
		return 2;
	}
	FILE *in = tmpfile();     /* a put reads its input twice (digest, upload) */
	if (!in) {
		cli_warn_errno("cannot create a temporary file");
		return 1;
	}
	while ((k = fread(buf, 1, sizeof buf, stdin)) > 0)
		if (fwrite(buf, 1, k, in) != k) {
			cli_warn_errno("temporary file");
			fclose(in);
			return 1;
		}
	if (ferror(stdin)) {
		cli_warn("read error on stdin");
		fclose(in);
		return 1;
	}
	rc = gt_store_put(o, in, url, overwrite, NULL, &e);
	fclose(in);
	return rc ? fail(NULL, rc, &e) : 0;
}

static int cmd_ls(const gt_store_opts *o, const char *url)
{
	gt_error e = { 0 };
	gt_store_entry *v;
	size_t n;
	int rc = gt_store_list(o, url, &v, &n, &e);
	if (rc)
		return fail(NULL, rc, &e);
	for (size_t i = 0; i < n; i++) {
		char t[32] = "";
		json_t *j = json_object();
		json_object_set_new(j, "name", json_string(v[i].name));
		json_object_set_new(j, "bytes", v[i].bytes >= 0 ? json_integer(v[i].bytes) : json_null());
		if (v[i].mtime >= 0)
			gt_iso_time(t, sizeof t, v[i].mtime);
		json_object_set_new(j, "time", t[0] ? json_string(t) : json_null());
		char *s = json_dumps(j, JSON_COMPACT);
		puts(s);
		free(s);
		json_decref(j);
	}
	gt_store_entries_free(v, n);
	return 0;
}

/* validate_model: a downloaded model is installed only if lib/model reads
 * it (magic, sizes, gzip CRC, finite parameters): gt_release_fetch calls
 * this on the temporary file after the sha256 and size checks. */
static int validate_model(const char *path, void *ctx, gt_error *e)
{
	(void)ctx;
	int rc = gt_model_validate(path, NULL, NULL, e);
	if (rc && e) {
		char why[sizeof e->text];
		snprintf(why, sizeof why, "%s", e->text[0] ? e->text : gt_strerror(rc));
		gt_error_set(e, rc, e->line, e->offset, "not a valid model: %s", why);
	}
	return rc;
}

/* write_file: text into path atomically (gt_fs_write_atomic). */
static int write_file(const char *path, const char *text)
{
	gt_error e;
	if (gt_fs_write_atomic(path, text, strlen(text), &e) == 0)
		return 0;
	cli_warn("%s", e.text);
	return 1;
}

static int cmd_latest(const gt_store_opts *o, const char *store, const char *dir, const char *key,
                      int or_none, const char *args_file)
{
	gt_error e = { 0 };
	char *path, *pointer = NULL, args[512] = "";
	int fetched;
	int rc = gt_release_fetch(o, store, dir, key, validate_model, NULL, &path, &fetched,
	                          args_file ? &pointer : NULL, &e);
	if (rc)
		return fail(NULL, rc, &e);
	if (!path && or_none) {
		if (args_file && write_file(args_file, "\n"))
			return 1;
		puts("none");
		return 0;
	}
	if (!path) {
		cli_warn("%s: nothing published yet (no models/latest.json; --or-none prints none)",
		         store);
		return 1;
	}
	if (args_file) {
		rc = gt_release_selfplay_args(pointer, strlen(pointer), args, sizeof args - 1, &e);
		free(pointer);
		if (rc) {
			free(path);
			return fail("latest.json", rc, &e);
		}
		strcat(args, "\n");
		if (write_file(args_file, args)) {
			free(path);
			return 1;
		}
	}
	puts(path);
	free(path);
	return 0;
}

static int cmd_contrib(const gt_store_opts *o, const char *store, const char *gen,
                       const char *records, const char *vstats)
{
	gt_error e = { 0 };
	char *summary;
	FILE *f = strcmp(records, "-") ? fopen(records, "r") : stdin;
	if (!f) {
		cli_warn_errno("%s", records);
		return 1;
	}
	int rc = gt_contrib_update(o, store, gen, f, vstats, &summary, &e);
	if (f != stdin)
		fclose(f);
	if (rc)
		return fail("contrib", rc, &e);
	puts(summary);
	free(summary);
	return 0;
}

static int cmd_pull(const gt_store_opts *o, const char *url, const char *state,
                    const gt_pull_pick *pk, long long max_line, long long max_batch,
                    const char *stats, const char *rejects)
{
	gt_error e = { 0 };
	gt_pull_stats st;
	FILE *rf = rejects ? fopen(rejects, "a") : NULL;
	if (rejects && !rf) {
		cli_warn_errno("%s", rejects);
		return 1;
	}
	int rc = gt_pull_batches(o, url, state, pk, (size_t)max_line, max_batch, stdout, rf, &st, &e);
	if (rf && fclose(rf) != 0 && !rc)
		rc = gt_error_set(&e, GT_EIO, -1, -1, "%s: %s", rejects, strerror(errno));
	if (rc)
		return fail(NULL, rc, &e);
	if (stats) {
		char line[256];
		int k = snprintf(line, sizeof line, "{\"batches\":%ld,\"bad\":%ld,\"old\":%ld,"
		                 "\"records\":%lld,\"bytes\":%lld,\"rejected\":%lld}\n", st.batches,
		                 st.bad, st.old, st.records, st.bytes, st.rejected);
		if ((rc = gt_fs_write_atomic(stats, line, (size_t)k, &e)) != 0)
			return fail(NULL, rc, &e);
	}
	return 0;
}

/* share_arg: --share K/U into pk; a bad one is a usage error (exit 2) */
static void share_arg(const char *s, gt_pull_pick *pk)
{
	const char *slash = strchr(s, '/');
	char k[32];
	if (!slash || (size_t)(slash - s) >= sizeof k)
		cli_usage_die("--share: want K/U, got '%s'", s);
	snprintf(k, sizeof k, "%.*s", (int)(slash - s), s);
	pk->share_units = (unsigned)cli_int("--share (U)", slash + 1, 1, 1 << 20);
	pk->share_k = (unsigned)cli_int("--share (K)", k, 0, (long long)pk->share_units - 1);
}

/* the settings of the command line */
typedef struct args {
	gt_store_opts o;
	const char *sha, *state, *verify_key, *args_file, *stats, *rejects;
	gt_pull_pick pk;
	long long bytes, max_line, max_batch;
	int overwrite, quiet, or_none;
} args;

enum { O_SHA = 256, O_BYTES, O_OVERWRITE, O_STATE, O_MAXLINE, O_MAXBATCH, O_SHARE, O_NEWEST,
       O_STATS, O_REJECTS, O_VERIFY, O_ORNONE, O_ARGS, O_INSECURE, O_MAXLIST };
static const struct option lo[] = {
	{ "sha256", required_argument, NULL, O_SHA },
	{ "bytes", required_argument, NULL, O_BYTES },
	{ "overwrite", no_argument, NULL, O_OVERWRITE },
	{ "state", required_argument, NULL, O_STATE },
	{ "max-line", required_argument, NULL, O_MAXLINE },
	{ "max-batch", required_argument, NULL, O_MAXBATCH },
	{ "share", required_argument, NULL, O_SHARE },
	{ "newest", required_argument, NULL, O_NEWEST },
	{ "stats", required_argument, NULL, O_STATS },
	{ "rejects", required_argument, NULL, O_REJECTS },
	{ "verify-key", required_argument, NULL, O_VERIFY },
	{ "or-none", no_argument, NULL, O_ORNONE },
	{ "selfplay-args", required_argument, NULL, O_ARGS },
	{ "insecure-token", no_argument, NULL, O_INSECURE },
	{ "max-list", required_argument, NULL, O_MAXLIST },
	{ "quiet", no_argument, NULL, 'q' },
	CLI_STORE_OPTS,
	CLI_OPTS_END,
};

/* parse: the options of argv into A (a bad one: usage, exit 2); returns
 * the index of the first operand. A->o warns through A->quiet. */
static int parse(int argc, char **argv, args *A)
{
	int insecure_token = 0, c;
	*A = (args){ .bytes = -1, .max_line = 64LL << 20, .max_batch = 16LL << 30 };
	gt_store_opts_init(&A->o);
	A->o.warn = warn_cb;
	A->o.warn_ctx = &A->quiet;
	while ((c = getopt_long(argc, argv, "qh", lo, NULL)) != -1) {
		switch (c) {
		case O_SHA: A->sha = optarg; break;
		case O_BYTES: A->bytes = cli_int("--bytes", optarg, 0, (long long)1 << 50); break;
		case O_OVERWRITE: A->overwrite = 1; break;
		case O_STATE: A->state = optarg; break;
		case O_MAXLINE: A->max_line = cli_int("--max-line", optarg, 1, (long long)1 << 40); break;
		case O_MAXBATCH: A->max_batch = cli_int("--max-batch", optarg, 1, (long long)1 << 50); break;
		case O_SHARE: share_arg(optarg, &A->pk); break;
		case O_NEWEST: A->pk.newest = (long)cli_int("--newest", optarg, 1, 1L << 30); break;
		case O_STATS: A->stats = optarg; break;
		case O_REJECTS: A->rejects = optarg; break;
		case O_VERIFY: A->verify_key = optarg; break;
		case O_ORNONE: A->or_none = 1; break;
		case O_ARGS: A->args_file = optarg; break;
		case O_INSECURE: insecure_token = 1; break;
		case O_MAXLIST: A->o.max_list = cli_int("--max-list", optarg, 1, (long long)1 << 32); break;
		case 'q': A->quiet = 1; break;
		default:
			if (!cli_store_opt(&A->o, c, optarg))
				cli_opt_other(c, usage);
		}
	}
	gt_store_opts_env(&A->o);
	A->o.insecure_token |= insecure_token;
	return optind;
}

/* run: the verb a[0] with its na - 1 operands (a wrong verb or count:
 * usage, exit 2) */
static int run(args *A, int na, char **a)
{
	const char *verb = a[0];
	gt_store_opts *o = &A->o;
	if (!strcmp(verb, "get") && (na == 2 || na == 3))
		return cmd_get(o, a[1], na == 3 ? a[2] : NULL, A->sha, A->bytes);
	if (!strcmp(verb, "put") && na == 3)
		return cmd_put(o, a[1], a[2], A->overwrite);
	if (!strcmp(verb, "ls") && na == 2)
		return cmd_ls(o, a[1]);
	if (!strcmp(verb, "latest") && na == 3)
		return cmd_latest(o, a[1], a[2], A->verify_key, A->or_none, A->args_file);
	if (!strcmp(verb, "contrib") && (na == 4 || na == 5))
		return cmd_contrib(o, a[1], a[2], a[3], na == 5 ? a[4] : NULL);
	if (!strcmp(verb, "pull") && na == 2) {
		if (!A->state)
			cli_usage_die("pull needs --state FILE");
		return cmd_pull(o, a[1], A->state, &A->pk, A->max_line, A->max_batch, A->stats,
		                A->rejects);
	}
	cli_usage_fail(usage, "unknown verb or wrong number of arguments: %s", verb);
}

int main(int argc, char **argv)
{
	args A;
	int i = parse(argc, argv, &A);
	if (argc - i < 1)
		cli_usage_fail(usage, NULL);
	int rc = run(&A, argc - i, argv + i);
	return cli_fshut(stdout, "stdout") ? 1 : rc;
}
