/* gt-analyze: KataGo's analysis-engine protocol on stdin and stdout over a
 * gt network (lib/analyze; gt-analyze(1)). */
#include "analyze.h"
#include "evcache.h"
#include "evsplit.h"
#include "gt.h"
#include "lines.h"
#include "neteval.h"

#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *prog = "gt-analyze";

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: gt-analyze --model FILE|none [--visits N] [--parallel N] [--report-as WHO]\n"
	    "                  [--ownership] [--policy] [--deterministic] [--backend NAME]\n"
	    "                  [--precision P] [--threads N]\n"
	    "       gt-analyze analysis -config FILE -model FILE [-override-config K=V,...]\n"
	    "                  [-analysis-threads N] [--option ...]   (KataGo's command line)\n"
	    "KataGo's analysis-engine protocol: JSON queries (or gt game records) on stdin,\n"
	    "one JSON answer a searched position on stdout.\n"
	    "  --model FILE|none  the network, or none: uniform priors, value 0\n"
	    "  --visits N         maxVisits of a query without one (100)\n"
	    "  --parallel N       positions searched at once, their leaves in one batch (16)\n"
	    "  --report-as WHO    black, white or side: whose view values are from (black)\n"
	    "  --ownership, --policy  include them in the answers to game records\n"
	    "  --deterministic    answers that do not depend on the batch (slower on CPU)\n"
	    "  --backend NAME     cpu, cuda or auto (cpu)\n"
	    "  --precision P      network arithmetic: fp32, bf16, int8 (where the CPU has them) (fp32)\n"
	    "  --threads N        a search's leaves in flight, the batch evaluated on N threads\n"
	    "                     with a copy of the network each (1)\n");
}

/* KataGo's analysis keys with a meaning in gt-analyze (gt-analyze(1)
 * KATAGO COMPATIBILITY) into p, *det and *cache (bytes) */
static void kata_config(cli_kata *k, gt_analyze_params *p, int *det, size_t *cache, int *threads)
{
	static const char *const who[] = { "BLACK", "WHITE", "SIDETOMOVE" }; /* GT_REPORT_* */
	long long v;
	if (cli_kata_int(k, "maxVisits", 1, 1000000000, &v))
		p->visits = (int)v;
	if (cli_kata_int(k, "maxPlayouts", 1, 1LL << 50, &v) && v < 1000000000)
		p->max_visits = (int)v;
	if (cli_kata_int(k, "numAnalysisThreads", 1, 4096, &v))
		p->parallel = (int)v;
	if (k->analysis_threads)
		p->parallel = k->analysis_threads;
	if (cli_kata_int(k, "numSearchThreadsPerAnalysisThread", 1, 1024, &v) ||
	    cli_kata_int(k, "numSearchThreads", 1, 1024, &v))
		*threads = (int)v;
	cli_kata_enum(k, "reportAnalysisWinratesAs", who, 3, &p->report);
	/* moves after the first (KataGo's range), within what gt reports */
	if (cli_kata_int(k, "analysisPVLen", 1, 100, &v))
		p->pv_len = v < GT_MCTS_PV_MAX - 1 ? (int)v + 1 : GT_MCTS_PV_MAX;
	cli_kata_search(k, &p->search, 0);
	cli_kata_bool(k, "forDeterministicTesting", det);
	/* 2^v entries of a 19x19 evaluation (evcache.c's slot: a 136-byte key,
	 * a stamp and 364 floats), within gt's 64 MiB; -1 none */
	if (cli_kata_int(k, "nnCacheSizePowerOfTwo", -1, 48, &v))
		*cache = v < 0 ? 0 : v < 20 && ((size_t)1596 << v) < *cache ? (size_t)1596 << v : *cache;
}

/* write the answers waiting; 0, or -1 on a write error */
static int flush_out(gt_analyzer *a)
{
	for (char *s; (s = gt_analyzer_output(a)); free(s))
		if (fputs(s, stdout) == EOF || putchar('\n') == EOF) {
			free(s);
			return -1;
		}
	return fflush(stdout) == EOF ? -1 : 0;
}

int main(int argc, char **argv)
{
	enum { O_MODEL = 256, O_VISITS, O_PAR, O_REPORT, O_OWN, O_POL, O_DET, O_BACKEND, O_PREC,
	       O_THREADS };
	static const struct option opts[] = {
		{ "model", required_argument, 0, O_MODEL }, { "visits", required_argument, 0, O_VISITS },
		{ "parallel", required_argument, 0, O_PAR }, { "report-as", required_argument, 0, O_REPORT },
		{ "ownership", no_argument, 0, O_OWN }, { "policy", no_argument, 0, O_POL },
		{ "deterministic", no_argument, 0, O_DET }, { "backend", required_argument, 0, O_BACKEND },
		{ "precision", required_argument, 0, O_PREC },
		{ "threads", required_argument, 0, O_THREADS },
		CLI_OPTS_END,
	};
	gt_analyze_params p;
	gt_analyze_params_default(&p);
	const char *model = NULL, *backend = NULL;
	int det = 0, c, prec = GT_PREC_FP32, threads = 0;
	size_t cache = (size_t)64 << 20;
	cli_kata k;
	if (cli_kata_args(&argc, argv, "analysis", &k)) {
		model = k.model;
		kata_config(&k, &p, &det, &cache, &threads);
		cli_kata_done(&k);
	}
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case O_MODEL: model = optarg; break;
		case O_VISITS: p.visits = (int)cli_int("--visits", optarg, 1, 1000000000); break;
		case O_PAR: p.parallel = (int)cli_int("--parallel", optarg, 1, 4096); break;
		case O_REPORT:
			p.report = !strcmp(optarg, "black") ? GT_REPORT_BLACK : !strcmp(optarg, "white") ?
			           GT_REPORT_WHITE : !strcmp(optarg, "side") ? GT_REPORT_SIDE : -1;
			if (p.report < 0)
				cli_bad_value("--report-as", "black, white or side", optarg);
			break;
		case O_OWN: p.ownership = 1; break;
		case O_POL: p.policy = 1; break;
		case O_DET: det = 1; break;
		case O_BACKEND: backend = optarg; break;
		case O_PREC: prec = cli_precision("--precision", optarg); break;
		case O_THREADS: threads = (int)cli_int("--threads", optarg, 1, 1024); break;
		default: cli_opt_other(c, usage);
		}
	}
	if (optind < argc)
		cli_usage_fail(usage, "unexpected argument '%s'", argv[optind]);
	if (!model)
		cli_usage_fail(usage, "--model is required");
	gt_error e;
	char name[256];
	/* 1 by default: measured slower with 2 on a loaded 2-core machine
	 * (gt-analyze(1) PERFORMANCE) */
	if (!threads)
		threads = 1;
	gt_evaluator *evs = gt_xcalloc(threads, sizeof *evs), ev;
	cli_evaluators(model, backend, prec, threads, evs, name, sizeof name);
	for (int t = 0; det && t < threads; t++)
		gt_neteval_set_exact(&evs[t], 1);
	if (threads > 1)
		p.search.leaves = threads; /* KataGo's numSearchThreads per search */
	gt_evsplit_wrap(evs, threads);
	ev = evs[0];
	free(evs);
	gt_evcache_wrap(&ev, cache);
	p.model = name;
	gt_analyzer *a = gt_analyzer_new(&p, &ev);
	gt_lines *in = gt_lines_new(stdin, (size_t)64 << 20);
	long lineno = 0;
	int busy = 0, rc = 0;
	for (;;) {
		/* new input: wait for it when idle, else take what has come (an
		 * action may stop a search; a bound on the turns waiting keeps a
		 * long input from being read into memory at once) */
		while (gt_analyzer_queued(a) < 65536 && (!busy || gt_lines_wait(in, 0))) {
			size_t len;
			char *l = gt_lines_get(in, &len);
			if (!l)
				break;
			gt_analyzer_add(a, l, len, ++lineno);
			busy = 1;
		}
		if (flush_out(a))
			break;
		busy = gt_analyzer_step(a, &e);
		if (busy < 0) {
			cli_warn("%s", e.text);
			rc = 1;
		}
		/* at the end of input: done when idle, or at once with
		 * -quit-without-waiting */
		if (flush_out(a) || busy < 0 || ((!busy || k.quit_without_waiting) && gt_lines_eof(in)))
			break;
	}
	rc |= gt_analyzer_errors(a) > 0;
	gt_lines_free(in);
	gt_analyzer_free(a);
	gt_evaluator_close(&ev);
	return cli_fshut(stdout, "stdout") | rc;
}
