/* gt-publish: decide from a match summary whether to release a candidate
 * network, and release it to the store (see gt-publish(1)). */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gt.h"
#include "model.h"
#include "sign.h"
#include "store.h"

#include "cli.h"

const char *prog = "gt-publish";

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gt-elo ... | gt-publish --candidate FILE --store STORE [options]\n"
	        "options:\n"
	        "  --candidate FILE  the candidate network (.bin.gz)\n"
	        "  --store STORE     the store (folder, file:// or http(s):// URL)\n"
	        "  --threshold ELO   release when elo > ELO (default 20)\n"
	        "  --every-steps S   release when the steps cross a multiple of S (default 10000; 0: never)\n"
	        "  --series NAME     series recorded in latest.json and the history\n"
	        "  --curriculum FILE self-play settings by step, published in latest.json\n"
	        "  --name NAME       published name (default: from the model, SERIES-bBcC-sS-dR.bin.gz)\n"
	        "  --steps N         training steps (default: the model's)\n"
	        "  --retries N       HTTP retries (default 5)\n"
	        "  --timeout S       seconds per request (default 300)\n"
	        "  --netrc FILE      credentials file (default ~/.netrc)\n"
	        "  --sign-key PEM    sign latest.json with this Ed25519 private key\n"
	        "  -h, --help        this text\n"
	        "  --version         print the version\n"
	        "environment: GT_STORE_TOKEN (bearer token for HTTP stores)\n");
}

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	cli_warn("%s", msg);
}

static void now_iso(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* put_text: write text under url (replacing it). */
static int put_text(const gt_store_opts *o, const char *url, const char *text, gt_error *e)
{
	FILE *f = tmpfile();
	if (!f)
		return gt_error_set(e, GT_EIO, -1, -1, "temporary file: %s", strerror(errno));
	size_t n = strlen(text);
	int rc;
	if (fwrite(text, 1, n, f) != n || fflush(f) != 0)
		rc = gt_error_set(e, GT_EIO, -1, -1, "temporary file: %s", strerror(errno));
	else
		rc = gt_store_put(o, f, url, 1, NULL, e);
	fclose(f);
	return rc;
}

/* append_history: add one line to STORE/models/history.ndjson, keeping what
 * is there (read, append, replace). */
static int append_history(const gt_store_opts *o, const char *store, json_t *entry, gt_error *e)
{
	char *url = gt_store_join(store, "models/history.ndjson"), *old = NULL;
	size_t len = 0;
	int rc = gt_store_get_mem(o, url, (size_t)256 << 20, &old, &len, e);
	if (rc == GT_ENOTFOUND) {
		rc = 0;
		old = gt_xcalloc(1, 1);
		len = 0;
	}
	if (!rc) {
		char *line = json_dumps(entry, JSON_COMPACT | JSON_REAL_PRECISION(10));
		size_t n = len + strlen(line) + 3;
		char *all = gt_xmalloc(n);
		snprintf(all, n, "%s%s%s\n", old, len && old[len - 1] != '\n' ? "\n" : "", line);
		rc = put_text(o, url, all, e);
		free(all);
		free(line);
	}
	free(old);
	free(url);
	return rc;
}

/* prev_steps: steps of the model latest.json names now; -1 if none. */
static int prev_steps(const gt_store_opts *o, const char *store, long long *steps, gt_error *e)
{
	char *url = gt_store_join(store, "models/latest.json"), *buf;
	size_t len;
	int rc = gt_store_get_mem(o, url, 1 << 20, &buf, &len, e);
	free(url);
	*steps = -1;
	if (rc == GT_ENOTFOUND)
		return 0;
	if (rc)
		return rc;
	json_t *j = json_loadb(buf, len, 0, NULL);
	free(buf);
	json_t *s = json_object_get(j, "steps");
	if (json_is_integer(s))
		*steps = (long long)json_integer_value(s);
	else if (j && json_is_string(json_object_get(j, "name")))
		*steps = gt_model_name_number(json_string_value(json_object_get(j, "name")), 's');
	json_decref(j);
	return 0;
}

/* release: the model under its name first, the pointer last. */
static int release(const gt_store_opts *o, const char *store, const char *cand, const char *name,
                   const char *series, const char *sign_key, long long steps, long long rows,
                   const char *selfplay, const gt_store_match *m, json_t *entry, gt_error *e)
{
	char sha[GT_SHA256_HEX], when[32];
	long long bytes;
	int existed = 0, rc;
	FILE *f = fopen(cand, "rb");
	if (!f)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", cand, strerror(errno));
	char *dir = gt_store_join(store, "models/");
	char *url = gt_store_join(dir, name);
	free(dir);
	char sig[GT_SIGN_HEX] = "", msg[512];
	rc = gt_store_sha256_stream(f, sha, &bytes, e);
	if (!rc && sign_key) {   /* sign before anything is uploaded */
		int ml = gt_sign_pointer_message(name, sha, bytes, msg, sizeof msg);
		rc = ml < 0 ? gt_error_set(e, GT_EINVAL, -1, -1, "cannot form the signed message")
		            : gt_sign(sign_key, msg, (size_t)ml, sig, e);
	}
	if (!rc)
		rc = gt_store_put(o, f, url, 0, &existed, e);
	fclose(f);
	free(url);
	if (rc)
		return rc;
	now_iso(when, sizeof when);
	json_t *l = json_object();
	json_object_set_new(l, "name", json_string(name));
	json_object_set_new(l, "sha256", json_string(sha));
	json_object_set_new(l, "bytes", json_integer(bytes));
	json_object_set_new(l, "steps", steps >= 0 ? json_integer(steps) : json_null());
	json_object_set_new(l, "rows", rows >= 0 ? json_integer(rows) : json_null());
	json_object_set_new(l, "elo", isfinite(m->elo) ? json_real(m->elo) : json_null());
	json_object_set_new(l, "published", json_string(when));
	if (series)
		json_object_set_new(l, "series", json_string(series));
	if (selfplay)
		json_object_set_new(l, "selfplay", json_loads(selfplay, 0, NULL));
	if (sig[0])
		json_object_set_new(l, "signature", json_string(sig));
	char *text = json_dumps(l, JSON_COMPACT | JSON_REAL_PRECISION(10));
	size_t n = strlen(text) + 2;
	char *line = gt_xmalloc(n);
	snprintf(line, n, "%s\n", text);
	url = gt_store_join(store, "models/latest.json");
	rc = put_text(o, url, line, e);
	free(url);
	free(line);
	free(text);
	json_object_set_new(entry, "sha256", json_string(sha));
	json_object_set_new(entry, "bytes", json_integer(bytes));
	json_decref(l);
	return rc;
}

/* read_curriculum: the settings for steps from the curriculum file path
 * into *settings (new JSON text or NULL). Returns 0, or 1 with a message. */
static int read_curriculum(const char *path, long long steps, char **settings)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, cap = 0, k;
	gt_error e = { 0 };
	if (!f) {
		cli_warn_errno("%s", path);
		return 1;
	}
	do {
		if (len + 4096 + 1 > cap) {
			cap = (cap ? cap * 2 : 8192);
			if (cap > (16u << 20)) {
				cli_warn("%s: larger than 16 MiB", path);
				free(text);
				fclose(f);
				return 1;
			}
			text = gt_xrealloc(text, cap);
		}
		k = fread(text + len, 1, 4096, f);
		len += k;
	} while (k > 0);
	int err = ferror(f);
	fclose(f);
	if (err) {
		cli_warn("%s: read error", path);
		free(text);
		return 1;
	}
	text[len] = 0;
	int rc = gt_store_curriculum_pick(text, len, steps < 0 ? 0 : steps, settings, &e);
	free(text);
	if (rc) {
		cli_warn("%s: %s", path, e.text);
		return 1;
	}
	return 0;
}

/* swapped: 1 (and why) when the summary's player b, not a, is the
 * candidate: gt-elo counts wins from a's side, so a match run as
 * "gt-elo reference candidate" would otherwise publish the loser. Players
 * are named by their file's base name without .bin.gz, as gt-elo does. */
static int swapped(const char *line, size_t len, const char *cand, char *why, size_t size)
{
	json_t *j = json_loadb(line, len, 0, NULL);
	const char *a = json_string_value(json_object_get(j, "a"));
	const char *b = json_string_value(json_object_get(j, "b"));
	const char *base = strrchr(cand, '/');
	char stem[256];
	snprintf(stem, sizeof stem, "%s", base ? base + 1 : cand);
	size_t l = strlen(stem);
	if (l > 7 && strcmp(stem + l - 7, ".bin.gz") == 0)
		stem[l - 7] = 0;
	int bad = a && b && strcmp(a, stem) != 0 && strcmp(b, stem) == 0;
	if (bad)
		snprintf(why, size, "bad summary: the candidate %.120s is player b, not a "
		         "(gt-elo counts wins for a: run gt-elo CANDIDATE REFERENCE)", stem);
	json_decref(j);
	return bad;
}

int main(int argc, char **argv)
{
	enum { O_CAND = 256, O_STORE, O_THRESH, O_EVERY, O_SERIES, O_NAME, O_STEPS, O_CURR,
	       O_RETRIES, O_TIMEOUT, O_NETRC, O_SIGN, O_VERSION };
	static const struct option lo[] = {
		{ "candidate", required_argument, NULL, O_CAND },
		{ "store", required_argument, NULL, O_STORE },
		{ "threshold", required_argument, NULL, O_THRESH },
		{ "every-steps", required_argument, NULL, O_EVERY },
		{ "series", required_argument, NULL, O_SERIES },
		{ "name", required_argument, NULL, O_NAME },
		{ "steps", required_argument, NULL, O_STEPS },
		{ "curriculum", required_argument, NULL, O_CURR },
		{ "retries", required_argument, NULL, O_RETRIES },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "netrc", required_argument, NULL, O_NETRC },
		{ "sign-key", required_argument, NULL, O_SIGN },
		{ "version", no_argument, NULL, O_VERSION },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	gt_store_opts o;
	const char *cand = NULL, *store = NULL, *series = NULL, *name = NULL, *why;
	const char *sign_key = NULL, *curriculum = NULL;
	double threshold = 20;
	long long every = 10000, steps = -1;
	int c, rc;
	gt_store_opts_init(&o);
	o.warn = warn_cb;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_CAND: cand = optarg; break;
		case O_STORE: store = optarg; break;
		case O_THRESH: threshold = cli_double("--threshold", optarg, -10000, 10000); break;
		case O_EVERY: every = cli_int("--every-steps", optarg, 0, 1LL << 50); break;
		case O_SERIES: series = optarg; break;
		case O_NAME: name = optarg; break;
		case O_CURR: curriculum = optarg; break;
		case O_STEPS: steps = cli_int("--steps", optarg, 0, 1LL << 50); break;
		case O_RETRIES: o.retries = (int)cli_int("--retries", optarg, 0, 100); break;
		case O_TIMEOUT: o.timeout_s = cli_double("--timeout", optarg, 0, 86400 * 7); break;
		case O_NETRC: o.netrc = optarg; break;
		case O_SIGN: sign_key = optarg; break;
		case 'h': usage(stdout); return 0;
		case O_VERSION: printf("gt-publish %s\n", GT_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || !cand || !store) {
		cli_warn("--candidate and --store are required; no other arguments");
		usage(stderr);
		return 2;
	}
	o.token = getenv("GT_STORE_TOKEN");
	/* the candidate must be a model lib/model reads; its header gives
	 * the published name, the steps and the rows */
	gt_error e = { 0 };
	gt_model *model;
	char mname[160], *selfplay = NULL;
	if ((rc = gt_model_read(cand, &model, &e)) != 0)
		cli_die("%s: not a valid model: %s", cand, e.text[0] ? e.text : gt_strerror(rc));
	gt_model_name(model, mname, sizeof mname - 8);
	strcat(mname, ".bin.gz");
	long long rows = (long long)model->meta.rows;
	if (steps < 0)
		steps = (long long)model->meta.steps;
	gt_model_free(model);
	if (!name)
		name = mname;
	if (!gt_store_name_ok(name, &why))
		cli_usage_die("%s: not usable as a published name (%s)", name, why);
	if (curriculum && (rc = read_curriculum(curriculum, steps, &selfplay)) != 0)
		return rc;

	gt_store_match m;
	char reason[300], when[32], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int released = 0, bad = 0;
	long long prev = -1;
	json_t *stats = NULL;
	/* the summary is gt-elo's last line: the per-game lines come first */
	char *cur = NULL;
	size_t ccap = 0;
	ssize_t cn;
	n = 0;
	while ((cn = getline(&cur, &ccap, stdin)) > 0) {
		if (strspn(cur, " \t\r\n") == (size_t)cn)
			continue;
		char *t = line;
		size_t tc = cap;
		line = cur, cap = ccap, n = cn;
		cur = t, ccap = tc;
	}
	free(cur);
	if (n <= 0) {
		snprintf(reason, sizeof reason, "bad summary: no line on stdin");
		bad = 1;
	} else if ((rc = gt_store_match_parse(line, (size_t)n, &m, &e)) != 0) {
		snprintf(reason, sizeof reason, "bad summary: %s", e.text);
		bad = 1;
	} else if (swapped(line, (size_t)n, cand, reason, sizeof reason)) {
		bad = 1;
	} else {
		stats = json_loadb(line, (size_t)n, 0, NULL);
		if ((rc = prev_steps(&o, store, &prev, &e)) != 0) {
			cli_warn("%s", e.text);
			free(line);
			free(selfplay);
			json_decref(stats);
			return 1;
		}
		released = gt_store_publish_decide(&m, threshold, steps, prev, every, reason, sizeof reason);
	}
	free(line);

	json_t *entry = json_object();
	now_iso(when, sizeof when);
	json_object_set_new(entry, "time", json_string(when));
	if (series)
		json_object_set_new(entry, "series", json_string(series));
	json_object_set_new(entry, "candidate", json_string(name));
	json_object_set_new(entry, "steps", steps >= 0 ? json_integer(steps) : json_null());
	if (selfplay)
		json_object_set_new(entry, "selfplay", json_loads(selfplay, 0, NULL));
	json_object_set_new(entry, "released", json_boolean(released));
	json_object_set_new(entry, "reason", json_string(reason));
	json_object_set_new(entry, "threshold", json_real(threshold));
	json_object_set_new(entry, "every_steps", json_integer(every));
	json_object_set_new(entry, "stats", stats ? stats : json_null());
	rc = 0;
	if (released)
		rc = release(&o, store, cand, name, series, sign_key, steps, rows, selfplay, &m, entry, &e);
	free(selfplay);
	if (rc) {
		json_object_set_new(entry, "released", json_false());
		json_object_set_new(entry, "error", json_string(e.text));
		cli_warn("release failed: %s", e.text);
	}
	gt_error he = { 0 };
	int hrc = append_history(&o, store, entry, &he);
	if (hrc)
		cli_warn("cannot append to the history: %s", he.text);
	char *s = json_dumps(entry, JSON_COMPACT | JSON_REAL_PRECISION(10));
	puts(s);
	free(s);
	json_decref(entry);
	if (bad)
		cli_warn("%s", reason);
	return cli_fshut(stdout, "stdout") || bad || rc || hrc ? 1 : 0;
}
