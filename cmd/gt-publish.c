/* gt-publish: decide from a match summary whether to release a candidate
 * network, and release it to the store (see gt-publish(1)). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gt.h"
#include "release.h"
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
	        "  --insecure-token  send GT_STORE_TOKEN over plain http:// to other hosts\n"
	        "  -h, --help        this text\n"
	        "  --version         print the version\n"
	        "environment: GT_STORE_TOKEN (bearer token for HTTP stores),\n"
	        "  GT_STORE_INSECURE_TOKEN=1 (as --insecure-token)\n");
}

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	cli_warn("%s", msg);
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
	int rc = gt_release_curriculum_pick(text, len, steps < 0 ? 0 : steps, settings, &e);
	free(text);
	if (rc) {
		cli_warn("%s: %s", path, e.text);
		return 1;
	}
	return 0;
}

/* last_line: the last non-empty line of f (gt-elo prints its per-game
 * lines first) as a new string of *len bytes, or NULL when there is none. */
static char *last_line(FILE *f, size_t *len)
{
	char *line = NULL, *cur = NULL;
	size_t cap = 0, ccap = 0;
	ssize_t n = 0, cn;
	while ((cn = getline(&cur, &ccap, f)) > 0) {
		if (strspn(cur, " \t\r\n") == (size_t)cn)
			continue;
		char *t = line;
		size_t tc = cap;
		line = cur, cap = ccap, n = cn;
		cur = t, ccap = tc;
	}
	free(cur);
	*len = n > 0 ? (size_t)n : 0;
	return line;
}

int main(int argc, char **argv)
{
	enum { O_CAND = 256, O_STORE, O_THRESH, O_EVERY, O_SERIES, O_NAME, O_STEPS, O_CURR,
	       O_SIGN, O_INSECURE };
	static const struct option lo[] = {
		{ "candidate", required_argument, NULL, O_CAND },
		{ "store", required_argument, NULL, O_STORE },
		{ "threshold", required_argument, NULL, O_THRESH },
		{ "every-steps", required_argument, NULL, O_EVERY },
		{ "series", required_argument, NULL, O_SERIES },
		{ "name", required_argument, NULL, O_NAME },
		{ "steps", required_argument, NULL, O_STEPS },
		{ "curriculum", required_argument, NULL, O_CURR },
		{ "sign-key", required_argument, NULL, O_SIGN },
		{ "insecure-token", no_argument, NULL, O_INSECURE },
		CLI_STORE_OPTS,
		CLI_OPTS_END,
	};
	gt_store_opts o;
	gt_release_cand cand;
	gt_error e = { 0 }, he = { 0 };
	const char *curriculum = NULL, *why;
	char *selfplay = NULL, *line, *entry;
	size_t len;
	int c, insecure_token = 0;
	gt_store_opts_init(&o);
	o.warn = warn_cb;
	gt_release_cand_init(&cand);
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_CAND: cand.path = optarg; break;
		case O_STORE: cand.store = optarg; break;
		case O_THRESH: cand.threshold = cli_double("--threshold", optarg, -10000, 10000); break;
		case O_EVERY: cand.every = cli_int("--every-steps", optarg, 0, 1LL << 50); break;
		case O_SERIES: cand.series = optarg; break;
		case O_NAME: cand.name = optarg; break;
		case O_CURR: curriculum = optarg; break;
		case O_STEPS: cand.steps = cli_int("--steps", optarg, 0, 1LL << 50); break;
		case O_SIGN: cand.sign_key = optarg; break;
		case O_INSECURE: insecure_token = 1; break;
		default:
			if (!cli_store_opt(&o, c, optarg))
				cli_opt_other(c, usage);
		}
	}
	if (optind != argc || !cand.path || !cand.store)
		cli_usage_fail(usage, "--candidate and --store are required; no other arguments");
	gt_store_opts_env(&o);
	o.insecure_token |= insecure_token;
	if (gt_release_cand_read(&cand, &e) != 0)
		cli_die("%s", e.text);
	if (!gt_store_name_ok(cand.name, &why))
		cli_usage_die("%s: not usable as a published name (%s)", cand.name, why);
	if (curriculum && read_curriculum(curriculum, cand.steps, &selfplay) != 0)
		return 1;
	cand.selfplay = selfplay;
	line = last_line(stdin, &len);
	if (gt_release_cand_decide(&o, &cand, line, len, &e) != 0)
		cli_die("%s", e.text);
	if (cand.released && gt_release_cand_publish(&o, &cand, &e) != 0)
		cli_warn("release failed: %s", cand.error);
	int hrc = gt_release_cand_history(&o, &cand, &entry, &he);
	if (hrc)
		cli_warn("cannot append to the history: %s", he.text);
	puts(entry);
	gt_free_all(entry, line, selfplay);
	if (cand.bad)
		cli_warn("%s", cand.reason);
	return cli_fshut(stdout, "stdout") || cand.bad || cand.error[0] || hrc ? 1 : 0;
}
