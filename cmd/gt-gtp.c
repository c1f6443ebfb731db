/* gt-gtp: a GTP version 2 engine (lib/gtp) whose genmove and analysis are
 * a PUCT search with a network or "none" (lib/engine), or random moves
 * without --model (gt-gtp(1)). */
#include "engine.h"
#include "gt.h"
#include "gtp.h"
#include "neteval.h"

#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *prog = "gt-gtp";

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: gt-gtp [-q] [--model FILE|none] [--visits N] [--board-size N] [--komi K]\n"
	    "              [--rules NAME] [--seed S] [--resign-threshold V] [--backend NAME]\n"
	    "              [--precision P] [--threads N] [--max-file BYTES] [--name NAME]\n"
	    "              [--version-string V]\n"
	    "A Go engine speaking GTP version 2 on stdin and stdout, with live analysis.\n"
	    "  --model FILE|none     network, or none: uniform priors (random moves if absent)\n"
	    "  --visits N            search visits per move, kept tree included (100)\n"
	    "  --board-size N        initial board size, 2..19 (19)\n"
	    "  --komi K              initial komi (7.5)\n"
	    "  --rules NAME          chinese, tromp-taylor, ... (chinese)\n"
	    "  --seed S              seed of the random moves without --model (1)\n"
	    "  --resign-threshold V  resign when the search's value is below -V (off)\n"
	    "  --backend NAME        network backend: cpu, cuda, auto (cpu)\n"
	    "  --precision P         network arithmetic: fp32, bf16, int8 (AMX CPUs) (fp32)\n"
	    "  --threads N           search threads, each with its own copy of the network\n"
	    "                        (the online CPUs, at most 8; 1 with --model none)\n"
	    "  --max-file BYTES      largest file loadsgf reads (suffix K, M, G; 16M)\n"
	    "  --name NAME           what 'name' answers (gt); KataGo for Lizzie's KataGo mode\n"
	    "  --version-string V    what 'version' answers (gt's version)\n"
	    "  -q, --quiet           no search summary on stderr after each genmove\n");
}

int main(int argc, char **argv)
{
	enum { O_MODEL = 256, O_VISITS, O_RESIGN, O_BACKEND, O_PREC, O_MAXFILE, O_NAME, O_VERSTR,
	       O_THREADS };
	static const struct option opts[] = {
		{ "model", required_argument, 0, O_MODEL },
		{ "visits", required_argument, 0, O_VISITS },
		CLI_BOARD_OPTS,
		{ "size", required_argument, 0, CLI_O_SIZE },
		{ "resign-threshold", required_argument, 0, O_RESIGN },
		{ "backend", required_argument, 0, O_BACKEND },
		{ "precision", required_argument, 0, O_PREC },
		{ "max-file", required_argument, 0, O_MAXFILE },
		{ "threads", required_argument, 0, O_THREADS },
		{ "name", required_argument, 0, O_NAME },
		{ "version-string", required_argument, 0, O_VERSTR },
		{ "quiet", no_argument, 0, 'q' },
		CLI_OPTS_END,
	};
	const char *model = NULL, *backend = NULL, *name = "gt", *version = GT_VERSION;
	int size = 19, c, prec = GT_PREC_FP32, threads = 0;
	size_t max_file = GT_GTP_MAX_FILE;
	double komi = 7.5;
	const gt_rules *rules = gt_rules_find("chinese");
	uint64_t seed = 1;
	cli_game gm = { .board_size = &size, .komi = &komi, .rules = &rules, .seed = &seed };
	gt_engine_params ep;
	gt_engine_params_default(&ep);
	ep.log = stderr;
	ep.name = prog;
	while ((c = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
		switch (c) {
		case O_MODEL: model = optarg; break;
		case O_VISITS: ep.visits = (int)cli_int("--visits", optarg, 1, 10000000); break;
		case O_RESIGN: ep.resign = cli_double("--resign-threshold", optarg, 0, 1); break;
		case O_BACKEND: backend = optarg; break;
		case O_PREC: prec = cli_precision("--precision", optarg); break;
		case O_MAXFILE: max_file = (size_t)cli_size("--max-file", optarg, 1, 1ULL << 40); break;
		case O_NAME: name = cli_word("--name", optarg); break;
		case O_VERSTR: version = cli_word("--version-string", optarg); break;
		case O_THREADS:
			threads = (int)cli_int("--threads", optarg, 1, GT_ENGINE_MAX_THREADS);
			break;
		case 'q': ep.log = NULL; break;
		default:
			if (!cli_game_opt(&gm, c, optarg))
				cli_opt_other(c, usage);
		}
	}
	if (optind < argc)
		cli_usage_fail(usage, "unexpected argument '%s'", argv[optind]);
	gt_gtp *g = gt_gtp_new(size, rules, komi, name, version);
	gt_engine *e = NULL;
	gt_gtp_seed(g, seed);
	gt_gtp_set_max_file(g, max_file);
	if (model) {
		/* the uniform evaluator takes no time: threads would only wait
		 * for the tree's lock */
		ep.threads = threads ? threads : strcmp(model, "none") ? cli_search_threads() : 1;
		gt_evaluator *ev = gt_xcalloc(ep.threads, sizeof *ev);
		cli_evaluators(model, backend, prec, ep.threads, ev, NULL, 0);
		if (size > gt_neteval_max_n(&ev[0])) {
			gt_gtp_free(g);
			cli_die("--board-size %d: %s plays boards up to %dx%d", size, model,
			        gt_neteval_max_n(&ev[0]), gt_neteval_max_n(&ev[0]));
		}
		e = gt_engine_new(&ep, ev);
		free(ev);
		gt_engine_attach(e, g);
	}
	int rc = gt_gtp_run(g, stdin, stdout);
	gt_gtp_free(g);
	gt_engine_free(e);
	if (rc)
		cli_die_errno("write error");
	return 0;
}
