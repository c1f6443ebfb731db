/* gt-gtp: a GTP version 2 engine (lib/gtp) whose genmove is a PUCT search
 * with a network, "none" (uniform priors), or random moves without
 * --model (gt-gtp(1)). */
#include "gt.h"
#include "gtp.h"
#include "mcts.h"
#include "neteval.h"
#include "util.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *prog = "gt-gtp";

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: gt-gtp [--model FILE|none] [--visits N] [--board-size N] [--komi K]\n"
	    "              [--rules NAME] [--seed S] [--resign-threshold V] [--backend NAME]\n"
	    "A Go engine speaking GTP version 2 on stdin and stdout.\n"
	    "  --model FILE|none     network, or none: uniform priors (random moves if absent)\n"
	    "  --visits N            search visits per move, kept tree included (100)\n"
	    "  --board-size N        initial board size, 2..19 (19)\n"
	    "  --komi K              initial komi (7.5)\n"
	    "  --rules NAME          chinese, tromp-taylor, ... (chinese)\n"
	    "  --seed S              seed of the random moves without --model (1)\n"
	    "  --resign-threshold V  resign when the search's value is below -V (off)\n"
	    "  --backend NAME        network backend: cpu, cuda, auto (cpu)\n");
}

typedef struct engine {
	gt_evaluator ev;
	gt_mcts *m;
	int has_root;
	int visits;
	double resign;  /* > 0: resign below -resign */
	const gt_board **boards;
	float *logits, value[1], score[1];
} engine;

/* 1 if b continues the game at the search's root: same start, the root's
 * moves a prefix of b's */
static int continues(const gt_board *root, const gt_board *b)
{
	if (root->n != b->n || root->rules != b->rules || root->komi != b->komi ||
	    root->setup_to_move != b->setup_to_move || root->nmoves > b->nmoves ||
	    memcmp(root->setup, b->setup, b->npts) != 0)
		return 0;
	for (int i = 0; i < root->nmoves; i++)
		if (root->hist_move[i] != b->hist_move[i] || root->hist_color[i] != b->hist_color[i])
			return 0;
	return 1;
}

/* put the search's root at b, keeping the tree where b continues it */
static void sync_root(engine *x, const gt_board *b)
{
	if (x->has_root && continues(gt_mcts_root(x->m), b)) {
		const gt_board *r = gt_mcts_root(x->m);
		int i = r->nmoves;
		for (; i < b->nmoves; i++) {
			if (b->hist_color[i] != gt_mcts_root(x->m)->to_move ||
			    gt_mcts_advance(x->m, b->hist_move[i]) != 0)
				break;
		}
		if (i == b->nmoves && gt_mcts_root(x->m)->to_move == b->to_move)
			return;
	}
	gt_mcts_set_root(x->m, b);
	x->has_root = 1;
}

static int genmove(void *user, const gt_board *b, int color, double budget_s, int *move)
{
	engine *x = user;
	if (color != b->to_move) {
		gt_board c;
		gt_board_copy(&c, b);
		gt_board_set_to_move(&c, color);
		gt_mcts_set_root(x->m, &c);
		x->has_root = 1;
	} else {
		sync_root(x, b);
	}
	double t0 = gt_now();
	int err = gt_mcts_begin(x->m, x->visits, 0, NULL);
	int n = b->n;
	while (!err) {
		int k = gt_mcts_collect(x->m, 0, x->boards);
		if (k <= 0) {
			err = k;
			break;
		}
		x->score[0] = 0;
		err = x->ev.eval(x->ev.ctx, n, k, x->boards, x->logits, x->value, x->score, NULL);
		if (!err)
			err = gt_mcts_apply(x->m, x->logits, x->value, x->score);
		if (budget_s >= 0 && gt_now() - t0 >= budget_s)
			break;
	}
	if (err) {
		x->has_root = 0;
		return err;
	}
	if (x->resign > 0 && gt_mcts_visits(x->m) > 0 && gt_mcts_root_value(x->m, NULL) < -x->resign) {
		*move = GT_GTP_RESIGN;
		return 0;
	}
	int mv = gt_mcts_choose(x->m, 0, NULL);
	if (mv < 0) {
		x->has_root = 0;
		return mv;
	}
	gt_mcts_advance(x->m, mv); /* the engine plays it next: keep the tree */
	*move = mv;
	return 0;
}

int main(int argc, char **argv)
{
	enum { O_MODEL = 256, O_VISITS, O_SIZE, O_KOMI, O_RULES, O_SEED, O_RESIGN, O_BACKEND, O_VERSION };
	static const struct option opts[] = {
		{ "model", required_argument, 0, O_MODEL },
		{ "visits", required_argument, 0, O_VISITS },
		{ "board-size", required_argument, 0, O_SIZE },
		{ "size", required_argument, 0, O_SIZE },
		{ "komi", required_argument, 0, O_KOMI },
		{ "rules", required_argument, 0, O_RULES },
		{ "seed", required_argument, 0, O_SEED },
		{ "resign-threshold", required_argument, 0, O_RESIGN },
		{ "backend", required_argument, 0, O_BACKEND },
		{ "version", no_argument, 0, O_VERSION },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *model = NULL, *backend = NULL;
	int size = 19;
	double komi = 7.5;
	const gt_rules *rules = gt_rules_find("chinese");
	uint64_t seed = 1;
	engine x;
	memset(&x, 0, sizeof x);
	x.visits = 100;
	int c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case O_MODEL: model = optarg; break;
		case O_VISITS: x.visits = cli_int("--visits", optarg, 1, 10000000); break;
		case O_SIZE: size = cli_int("--board-size", optarg, 2, GT_MAX_N); break;
		case O_KOMI: komi = cli_double("--komi", optarg, -1000, 1000); break;
		case O_RULES:
			if (!(rules = gt_rules_find(optarg)))
				cli_usage_die("--rules: unknown ruleset '%s'", optarg);
			break;
		case O_SEED: seed = (uint64_t)cli_int("--seed", optarg, 0, (1LL << 53) - 1); break;
		case O_RESIGN: x.resign = cli_double("--resign-threshold", optarg, 0, 1); break;
		case O_BACKEND: backend = optarg; break;
		case O_VERSION: printf("gt-gtp %s\n", GT_VERSION); return 0;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		cli_warn("unexpected argument '%s'", argv[optind]);
		usage(stderr);
		return 2;
	}
	gt_gtp *g = gt_gtp_new(size, rules, komi, "gt", GT_VERSION);
	if (!g)
		cli_usage_die("cannot make a %dx%d board", size, size);
	gt_gtp_seed(g, seed);
	if (model) {
		gt_error e;
		char name[256];
		if (gt_neteval_open_file(model, backend, &x.ev, name, sizeof name, &e) != 0) {
			cli_warn("%s", e.text);
			gt_gtp_free(g);
			return 1;
		}
		gt_mcts_params mp;
		gt_mcts_params_default(&mp);
		mp.leaves = 1; /* as gt-elo: the same search, move for move */
		x.m = gt_mcts_new(&mp);
		x.boards = gt_xmalloc(mp.leaves * sizeof *x.boards);
		x.logits = gt_xmalloc((size_t)mp.leaves * (GT_MAX_PTS + 1) * sizeof *x.logits);
		gt_gtp_set_genmove(g, genmove, &x);
	}
	int err = gt_gtp_run(g, stdin, stdout);
	gt_gtp_free(g);
	if (model) {
		gt_mcts_free(x.m);
		gt_evaluator_close(&x.ev);
		free(x.boards);
		free(x.logits);
	}
	if (err)
		cli_die_errno("write error");
	return 0;
}
