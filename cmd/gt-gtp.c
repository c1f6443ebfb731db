/* gt-gtp: a GTP version 2 engine (lib/gtp) whose genmove and analysis are
 * a PUCT search with a network or "none" (lib/engine), or random moves
 * without --model (gt-gtp(1)). */
#include "engine.h"
#include "gt.h"
#include "gtp.h"
#include "katacfg.h"
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
	    "  --rules NAME          chinese, japanese, tromp-taylor, ... (chinese)\n"
	    "  --seed S              seed of the random moves without --model (1)\n"
	    "  --resign-threshold V  resign when the search's value is below -V (off)\n"
	    "  --backend NAME        network backend: cpu, cuda, auto (cpu)\n"
	    "  --precision P         network arithmetic: fp32, bf16, int8 (where the CPU has them) (fp32)\n"
	    "  --threads N           search threads, each with its own copy of the network\n"
	    "                        (the online CPUs, at most 8; 1 with --model none)\n"
	    "  --max-file BYTES      largest file loadsgf reads (suffix K, M, G; 16M)\n"
	    "  --name NAME           what 'name' answers (gt); KataGo for Lizzie's KataGo mode\n"
	    "  --version-string V    what 'version' answers (gt's version)\n"
	    "  --max-time S          longest search of a genmove in seconds (no limit)\n"
	    "  -q, --quiet           no search summary on stderr after each genmove\n"
	    "       gt-gtp gtp -config FILE -model FILE [-override-config K=V,...] [--option ...]\n"
	    "KataGo's command line, its config's keys read as gt-gtp(1) says.\n");
}

/* KataGo's GTP keys with a meaning in gt-gtp (gt-gtp(1) KATAGO
 * COMPATIBILITY) into ep, *size and *rules */
static void kata_config(cli_kata *k, gt_engine_params *ep, int *size, const gt_rules **rules,
                        int *threads)
{
	long long v;
	double d;
	int b;
	if (cli_kata_int(k, "maxVisits", 1, 1LL << 50, &v))
		ep->visits = v < 10000000 ? (int)v : 10000000;
	if (cli_kata_double(k, "maxTime", 0, 1e20, &d))
		ep->max_time = d;
	if (cli_kata_int(k, "defaultBoardSize", 2, GT_MAX_N, &v))
		*size = (int)v;
	if (cli_kata_int(k, "numSearchThreads", 1, GT_ENGINE_MAX_THREADS, &v))
		*threads = (int)v;
	if (cli_kata_int(k, "analysisPVLen", 1, 100, &v)) /* KataGo's range, within gt's */
		ep->pv_len = v < GT_MCTS_PV_MAX ? (int)v : GT_MCTS_PV_MAX;
	cli_kata_rules(k, rules);
	cli_kata_search(k, &ep->search, 1);
	/* resignation: KataGo's threshold is a value in -1..0 (its default
	 * -0.9), after resignConsecTurns turns (gt-gtp: 1) */
	double thr = -0.9;
	cli_kata_double(k, "resignThreshold", -1, 0, &thr);
	if (cli_kata_bool(k, "allowResignation", &b) && b)
		ep->resign = thr < 0 ? -thr : 1e-9; /* 0 would be off */
	if (cli_kata_int(k, "resignConsecTurns", 1, 1000000, &v) && v != 1)
		gt_katacfg_unuse(k->cfg, "resignConsecTurns");
	/* gt-gtp ponders only in its analysis commands; the limits of
	 * pondering mean something only with it on */
	if (cli_kata_bool(k, "ponderingEnabled", &b) && b)
		gt_katacfg_unuse(k->cfg, "ponderingEnabled");
	else
		for (int i = 0; i < 3; i++)
			gt_katacfg_str(k->cfg, (const char *[]){ "maxVisitsPondering",
			               "maxPlayoutsPondering", "maxTimePondering" }[i]);
	/* gt-gtp reports from the side to move's view */
	static const char *const who[] = { "BLACK", "WHITE", "SIDETOMOVE" };
	if (cli_kata_enum(k, "reportAnalysisWinratesAs", who, 3, &b) && b != 2)
		gt_katacfg_unuse(k->cfg, "reportAnalysisWinratesAs");
}

int main(int argc, char **argv)
{
	enum { O_MODEL = 256, O_VISITS, O_RESIGN, O_BACKEND, O_PREC, O_MAXFILE, O_NAME, O_VERSTR,
	       O_MAXTIME, O_THREADS };
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
		{ "max-time", required_argument, 0, O_MAXTIME },
		{ "quiet", no_argument, 0, 'q' },
		CLI_OPTS_END,
	};
	const char *model = NULL, *backend = NULL, *name = "gt", *version = GT_VERSION;
	int size = 19, c, prec = GT_PREC_FP32, threads = 0;
	size_t max_file = GT_GTP_MAX_FILE;
	double komi = 7.5;
	const gt_rules *rules = gt_rules_find("chinese");
	uint64_t seed = 1;
	cli_game gm = { .board_size = &size, .komi = &komi, .rules = &rules, .seed = &seed,
	                .territory = 1 };
	gt_engine_params ep;
	gt_engine_params_default(&ep);
	ep.log = stderr;
	ep.name = prog;
	cli_kata k;
	if (cli_kata_args(&argc, argv, "gtp", &k)) {
		model = k.model;
		kata_config(&k, &ep, &size, &rules, &threads);
		cli_kata_done(&k);
	}
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
		case O_MAXTIME: ep.max_time = cli_double("--max-time", optarg, 0, 1e9); break;
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
