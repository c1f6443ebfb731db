/* gt-selfplay: play self-play games with MCTS and write one game record per
 * line to stdout (gt-selfplay(1), gt-record(5)). */
#include "evcache.h"
#include "evpool.h"
#include "gpu.h"
#include "gt.h"
#include "record.h"
#include "selfplay.h"
#include "simd.h"
#include "util.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

const char *prog = "gt-selfplay";

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: gt-selfplay --model FILE|none [--games N] [--visits N] [--cheap-visits N]\n"
	    "                   [--full-prob P] [--board-size N] [--komi K] [--rules NAME]\n"
	    "                   [--max-moves N] [--pass-from N] [--threads T] [--parallel-games G] [--leaves B]\n"
	    "                   [--temp-early T] [--temp-final T] [--temp-halflife M]\n"
	    "                   [--seed S] [--worker NAME] [--sgf DIR] [--backend NAME]\n"
	    "                   [--cache-mb M] [--deterministic] [--precision P]\n"
	    "                   [--forced-playouts K] [--search SPEC] [--progress]\n"
	    "                   [--progress-every S] [-v]\n"
	    "Play self-play games with MCTS and write one game record (gt-record(5)) per\n"
	    "line to stdout, in game order.\n"
	    "  --model FILE|none     network, or none: uniform policy, value 0 (required)\n"
	    "  --games N             games to play (1)\n"
	    "  --visits N            visits of a full search, with root noise (100)\n"
	    "  --cheap-visits N      visits of a cheap search, no noise, no policy (25)\n"
	    "  --full-prob P         probability of a full search (0.25)\n"
	    "  --board-size N        2..19 (9)\n"
	    "  --komi K              (7)\n"
	    "  --rules NAME          chinese, tromp-taylor, ... (chinese)\n"
	    "  --max-moves N         then the game is ended by two passes (2*n*n)\n"
	    "  --pass-from N         the search passes only from move N on (n*n/2)\n"
	    "  --threads T           worker threads, one evaluator each (1)\n"
	    "  --parallel-games G    games in flight per thread (16)\n"
	    "  --leaves B            leaves per game per network call (1)\n"
	    "  --temp-early T        move temperature at the start (0.75)\n"
	    "  --temp-final T        move temperature late (0.15)\n"
	    "  --temp-halflife M     its half-life in moves on 19x19, scaled by n/19 (19)\n"
	    "  --seed S              0..2^53-1 (random)\n"
	    "  --worker NAME         the records' worker (none)\n"
	    "  --sgf DIR             also write each game as DIR/<game_id>.sgf\n"
	    "  --backend NAME        cpu, cuda or auto (cuda if a device answers) (cpu)\n"
	    "  --cache-mb M          evaluation cache in MiB, 0 for none (64)\n"
	    "  --deterministic       evaluate positions one by one: output independent\n"
	    "                        of --threads and --parallel-games with a network\n"
	    "  --precision P         network arithmetic: fp32, bf16, int8 (where the CPU has them) (fp32)\n"
	    "  --forced-playouts K   forced playouts sqrt(K P N) at the root of full searches\n"
	    "                        and policy target pruning (KataGo: 2) (0: off)\n"
	    "  --search SPEC         search settings, KEY=VALUE,... (forced, cpuct,\n"
	    "                        cpuct-log, cpuct-base, fpu, root-fpu, lcb, lcb-min-visits,\n"
	    "                        score-static, score-dynamic;\n"
	    "                        kata: KataGo's; gt-selfplay(1))\n"
	    "  --progress            rates on stderr (default when stderr is a terminal)\n"
	    "  --progress-every S    --progress, a line at most every S seconds as games\n"
	    "                        finish (1; 0: a line for every finished game)\n"
	    "  -v, --verbose         say the backend, precision and cache on stderr\n");
}

typedef struct out {
	const char *sgf;
	int serr;
	gt_error se;
	int progress;
	double every; /* seconds between progress lines at least */
	long games;
	double t0, last;
	int werr;
} out;

static void report(const out *o, const gt_selfplay_stats *st, int final)
{
	double t = gt_now() - o->t0;
	if (t <= 0)
		t = 1e-9;
	fprintf(stderr, "%s: %ld/%ld games, %.1f moves/s, %.0f evals/s, batch %.1f, %.0f s%s",
	        prog, st->games, o->games, st->moves / t, st->evals / t,
	        st->eval_calls ? (double)st->evals / st->eval_calls : 0.0, t,
	        final ? "\n" : isatty(2) ? "\r" : "\n");
}

static int sink(void *ctx, long index, const gt_record *r, const gt_selfplay_stats *st)
{
	out *o = ctx;
	(void)index;
	if (gt_record_write(r, stdout) != 0 || fflush(stdout) != 0 || ferror(stdout)) {
		o->werr = errno ? errno : EIO;
		return GT_EIO;
	}
	if (o->sgf && gt_selfplay_sgf_write(o->sgf, r, &o->se) != 0) {
		o->serr = 1;
		return GT_EIO;
	}
	if (o->progress) {
		double t = gt_now();
		if (t - o->last >= o->every && st->games < o->games) {
			o->last = t;
			report(o, st, 0);
		}
	}
	return 0;
}

/* a seed when --seed is not given: getrandom(2), else time and PID */
static uint64_t random_seed(void)
{
	uint64_t s = 0;
	if (getrandom(&s, sizeof s, 0) != sizeof s)
		s = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	return s & ((1ULL << 53) - 1);
}

/* -v: the model, its backend and the cache */
static void say_model(const gt_selfplay_params *p, const gt_evpool *pool)
{
	gt_error why;
	int aut = !strcmp(p->backend, "auto");
	gt_gpu_probe(&why);
	if (*pool->backend)
		cli_warn("model %s on backend %s%s%s%s, %s evaluations, cache %zu MiB",
		         pool->name, pool->backend, aut ? " (auto: " : "", aut ? why.text : "",
		         aut ? ")" : "", p->exact ? "exact (one by one)" : "batched",
		         p->cache_bytes >> 20);
	else
		cli_warn("model none (uniform policy, value 0)");
	if (*pool->backend && strcmp(pool->backend, "cuda") != 0)
		cli_warn("CPU kernels: %s (gt's own; OpenBLAS and oneDNN choose their own)",
		         gt_simd_kernels());
}

/* the cache's hits, the run's result and the exit status */
static int finish(const out *o, const gt_evpool *pool, int err, const gt_selfplay_stats *st,
                  int verbose)
{
	gt_evcache_stats sum;
	if (o->progress)
		report(o, st, 1);
	gt_evpool_cache_stats(pool, &sum);
	if ((verbose || o->progress) && sum.lookups)
		cli_warn("cache: %lld of %lld lookups hit (%.1f%%), %lld entries",
		         sum.hits, sum.lookups, 100.0 * sum.hits / sum.lookups, sum.entries);
	if (err == GT_EIO && o->serr)
		cli_die("--sgf: %s", o->se.text);
	if (err == GT_EIO)
		cli_die("write error: %s", strerror(o->werr));
	if (err)
		cli_die("%s", gt_strerror(err));
	if (cli_stop)
		cli_warn("stopped by a signal: %ld games written, %ld in progress dropped",
		         st->games, st->dropped);
	return cli_fshut(stdout, "stdout");
}

enum { O_MODEL = 256, O_GAMES, O_CHEAP, O_FULL, O_THREADS, O_LEAVES, O_TEARLY, O_TFINAL,
       O_THALF, O_WORKER, O_PROGRESS, O_SGF, O_BACKEND, O_CACHE, O_DET, O_PASSFROM, O_PREC,
       O_SEARCH, O_FORCED, O_EVERY };
static const struct option opts[] = {
	{ "model", required_argument, 0, O_MODEL },
	{ "games", required_argument, 0, O_GAMES },
	CLI_GAME_OPTS,
	{ "cheap-visits", required_argument, 0, O_CHEAP },
	{ "full-prob", required_argument, 0, O_FULL },
	{ "pass-from", required_argument, 0, O_PASSFROM },
	{ "threads", required_argument, 0, O_THREADS },
	{ "leaves", required_argument, 0, O_LEAVES },
	{ "temp-early", required_argument, 0, O_TEARLY },
	{ "temp-final", required_argument, 0, O_TFINAL },
	{ "temp-halflife", required_argument, 0, O_THALF },
	{ "worker", required_argument, 0, O_WORKER },
	{ "progress", no_argument, 0, O_PROGRESS },
	{ "progress-every", required_argument, 0, O_EVERY },
	{ "sgf", required_argument, 0, O_SGF },
	{ "backend", required_argument, 0, O_BACKEND },
	{ "cache-mb", required_argument, 0, O_CACHE },
	{ "deterministic", no_argument, 0, O_DET },
	{ "precision", required_argument, 0, O_PREC },
	{ "search", required_argument, 0, O_SEARCH },
	{ "forced-playouts", required_argument, 0, O_FORCED },
	{ "verbose", no_argument, 0, 'v' },
	CLI_OPTS_END,
};

int main(int argc, char **argv)
{
	gt_selfplay_params p;
	gt_selfplay_params_default(&p);
	p.seed = UINT64_MAX; /* none given */
	cli_game g = { &p.board_size, &p.max_moves, &p.visits, &p.parallel_games, &p.komi,
	               &p.rules, &p.seed, 0 };
	const char *model = NULL, *why;
	int verbose = 0, c;
	out o = { .progress = isatty(2), .every = 1 };
	while ((c = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		switch (c) {
		case O_MODEL: model = optarg; break;
		case O_GAMES: p.games = cli_int("--games", optarg, 1, 1000000000); break;
		case O_CHEAP: p.cheap_visits = cli_int("--cheap-visits", optarg, 1, 1000000); break;
		case O_FULL: p.full_prob = cli_double("--full-prob", optarg, 0, 1); break;
		case O_PASSFROM: p.search.pass_from = cli_int("--pass-from", optarg, 0, GT_MAX_HIST); break;
		case O_THREADS: p.threads = cli_int("--threads", optarg, 1, 256); break;
		case O_LEAVES: p.search.leaves = cli_int("--leaves", optarg, 1, 256); break;
		case O_TEARLY: p.temp_early = cli_double("--temp-early", optarg, 0, 100); break;
		case O_TFINAL: p.temp_final = cli_double("--temp-final", optarg, 0, 100); break;
		case O_THALF: p.temp_halflife = cli_double("--temp-halflife", optarg, 1e-3, 1e6); break;
		case O_WORKER: p.worker = optarg; break;
		case O_PROGRESS: o.progress = 1; break;
		case O_EVERY:
			o.every = cli_double("--progress-every", optarg, 0, 86400);
			o.progress = 1;
			break;
		case O_SGF: o.sgf = optarg; break;
		case O_BACKEND:
			if (strcmp(optarg, "cpu") && strcmp(optarg, "cuda") && strcmp(optarg, "auto"))
				cli_usage_die("--backend: '%s' is not cpu, cuda or auto", optarg);
			p.backend = optarg;
			break;
		case O_CACHE: p.cache_bytes = (size_t)cli_int("--cache-mb", optarg, 0, 1 << 20) << 20; break;
		case O_DET: p.exact = 1; break;
		case O_PREC: p.precision = cli_precision("--precision", optarg); break;
		case O_SEARCH: cli_search("--search", optarg, &p.search); break;
		case O_FORCED: p.search.forced_k = cli_double("--forced-playouts", optarg, 0, 100); break;
		case 'v': verbose = 1; break;
		default:
			if (!cli_game_opt(&g, c, optarg))
				cli_opt_other(c, usage);
		}
	}
	if (optind < argc)
		cli_usage_fail(usage, "unexpected argument '%s'", argv[optind]);
	if (!model)
		cli_usage_fail(usage, "--model FILE or --model none is required");
	if (p.seed == UINT64_MAX)
		p.seed = random_seed();
	gt_error e;
	if (gt_selfplay_check(&p, &e) != 0)
		cli_usage_die("%s", e.text);
	if (o.sgf && (why = cli_not_dir(o.sgf)))
		cli_die("--sgf: %s: %s", o.sgf, why);
	gt_evpool pool;
	if (gt_evpool_open(&pool, &p, model, &e) != 0)
		cli_die("%s: %s", model, e.text);
	p.model = pool.name;
	if (verbose)
		say_model(&p, &pool);
	if (*pool.backend)
		cli_precision_say(pool.name, p.precision, pool.precision, pool.precision_why, verbose);
	cli_catch_stop(1); /* a second signal kills at once */

	o.games = p.games;
	o.t0 = o.last = gt_now();
	if (o.progress)
		cli_warn("seed %llu, %ld games on %dx%d, threads %d x games in flight %d",
		         (unsigned long long)p.seed, p.games, p.board_size, p.board_size,
		         p.threads, p.parallel_games);
	gt_selfplay_stats st;
	int err = gt_selfplay_run(&p, pool.evs, sink, &o, &cli_stop, &st);
	int rc = finish(&o, &pool, err, &st, verbose);
	gt_evpool_close(&pool);
	return rc;
}
