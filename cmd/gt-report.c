/* gt-report: the run's status as a static web page (see gt-report(1)). */
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gt.h"
#include "report.h"
#include "store.h"

const char *prog = "gt-report";

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gt-report [options] STORE\n"
	        "  -o, --out DEST      the site's folder or store URL (default STORE/site)\n"
	        "  -t, --trainer DIR   the trainer's work folder: data by generation, rejects, window\n"
	        "  --window ROWS       the training window in rows (default 250000)\n"
	        "  --hours FILE        CPU- or GPU-hours by generation or network (NDJSON)\n"
	        "  --verify-key PEM    check the signature of models/latest.json\n"
	        "  --link URL          the store's models/ folder as the page links it\n"
	        "  --share DIR         the folder of report/index.html and report/plots.gp\n"
	        "                      (default $GT_SHARE, else ../share/gt beside the program)\n"
	        "  --gnuplot PROG      the plotting program (default gnuplot; '' for none)\n"
	        "  --workers N         contributors listed, the rest summed (default 100)\n"
	        "  --games N           recent games and match games shown (default 6 each)\n"
	        "  --releases N        newest releases listed (default 2000)\n"
	        "  --contribute URL    the store's URL for workers, for \"How to contribute\"\n"
	        "                      (default the store's when http(s):// or s3://)\n"
	        "  --retries N, --timeout S, --netrc FILE   as for gt-sync\n"
	        "  -q, --quiet         no line on stdout naming the page\n"
	        "  -h, --help, --version\n"
	        "environment: GT_STORE_TOKEN, GT_SHARE\n");
}

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	cli_warn("%s", msg);
}

/* default_share: $GT_SHARE, else the first of DIR/../share/gt (installed)
 * and DIR/../../../share/gt (build/san/bin of the source tree) holding
 * report/index.html, for the program in DIR */
static const char *default_share(char *buf, size_t n)
{
	const char *env = getenv("GT_SHARE");
	char exe[PATH_MAX], t[PATH_MAX + 64];
	ssize_t l;
	if (env && *env)
		return env;
	if ((l = readlink("/proc/self/exe", exe, sizeof exe - 1)) <= 0)
		return NULL;
	exe[l] = 0;
	const char *dir = dirname(exe);
	for (int up = 1; up <= 3; up += 2) {
		snprintf(buf, n, "%s/%s../share/gt", dir, up == 3 ? "../../" : "");
		snprintf(t, sizeof t, "%s/report/index.html", buf);
		if (access(t, R_OK) == 0)
			return buf;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	enum { O_WINDOW = 256, O_HOURS, O_KEY, O_LINK, O_SHARE, O_GNUPLOT, O_WORKERS, O_GAMES,
	       O_RELEASES, O_CONTRIBUTE };
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' }, { "trainer", required_argument, NULL, 't' },
		{ "window", required_argument, NULL, O_WINDOW }, { "hours", required_argument, NULL, O_HOURS },
		{ "verify-key", required_argument, NULL, O_KEY }, { "link", required_argument, NULL, O_LINK },
		{ "share", required_argument, NULL, O_SHARE }, { "gnuplot", required_argument, NULL, O_GNUPLOT },
		{ "workers", required_argument, NULL, O_WORKERS }, { "games", required_argument, NULL, O_GAMES },
		{ "releases", required_argument, NULL, O_RELEASES },
		{ "contribute", required_argument, NULL, O_CONTRIBUTE },
		{ "quiet", no_argument, NULL, 'q' },
		CLI_STORE_OPTS,
		CLI_OPTS_END,
	};
	gt_store_opts so;
	gt_store_opts_init(&so);
	so.warn = warn_cb;
	gt_report_opts o;
	gt_report_opts_init(&o);
	o.so = &so;
	o.gnuplot = "gnuplot";
	o.warn = warn_cb;
	int c, quiet = 0;
	char share[PATH_MAX + 16];
	while ((c = getopt_long(argc, argv, "o:t:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': o.dest = optarg; break;
		case 't': o.trainer = optarg; break;
		case O_WINDOW: o.window = cli_int("--window", optarg, 1, 1LL << 40); break;
		case O_HOURS: o.hours = optarg; break;
		case O_KEY: o.verify_key = optarg; break;
		case O_LINK: o.link = optarg; break;
		case O_SHARE: o.share = optarg; break;
		case O_GNUPLOT: o.gnuplot = optarg; break;
		case O_WORKERS: o.max_workers = (int)cli_int("--workers", optarg, 0, 100000); break;
		case O_GAMES: o.max_games = (int)cli_int("--games", optarg, 0, 100); break;
		case O_RELEASES: o.max_releases = (int)cli_int("--releases", optarg, 0, 1000000); break;
		case O_CONTRIBUTE: o.contribute = optarg; break;
		case 'q': quiet = 1; break;
		default:
			if (!cli_store_opt(&so, c, optarg))
				cli_opt_other(c, usage);
		}
	}
	if (optind != argc - 1)
		cli_usage_fail(usage, NULL);
	o.store = argv[optind];
	gt_store_opts_env(&so);
	if (!o.share && !(o.share = default_share(share, sizeof share)))
		cli_die("cannot find the share folder (report/index.html); give --share");
	char *where = NULL;
	gt_error e = {0};
	if (gt_report_make(&o, &where, &e))
		cli_die("%s", e.text);
	if (!quiet)
		printf("%s\n", where);
	free(where);
	return cli_fshut(stdout, "stdout");
}
