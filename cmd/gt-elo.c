/* gt-elo: play a match between two players and print one game record per
 * game, then a summary line with Elo, its 95% interval, LOS and an optional
 * SPRT (gt-elo(1), lib/match.h, lib/elo.h). */
#include "elo.h"
#include "gt.h"
#include "match.h"
#include "neteval.h"
#include "nn.h"
#include "record.h"
#include "sgf.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *prog = "gt-elo";

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: gt-elo [--games N] [--parallel-games G] [--visits N] [--visits-b N] [--board-size N]\n"
	    "              [--komi K] [--rules NAME] [--max-moves N] [--opening-moves K]\n"
	    "              [--seed S] [--sprt ELO0,ELO1[,ALPHA,BETA]] [--records FILE]\n"
	    "              [--sgf DIR] [--gtp-timeout S] [--backend NAME] [--precision P[,P]]\n"
	    "              [--search SPEC] [--search-a SPEC] [--search-b SPEC] [--progress] A B\n"
	    "Play a match of A against B (each a network file, none, or gtp:COMMAND) in\n"
	    "colour-swapped pairs; print one game record per game, then a summary line.\n"
	    "  --games N             games, even (400)\n"
	    "  --parallel-games G    games in flight, network calls batched (8)\n"
	    "  --visits N            search visits per move of network players (100)\n"
	    "  --visits-b N          B's visits instead (equal time for unequal networks)\n"
	    "  --board-size N        2..19 (9)\n"
	    "  --komi K              (7)\n"
	    "  --rules NAME          chinese, tromp-taylor, ... (chinese)\n"
	    "  --max-moves N         move cap, then two passes (2*n*n)\n"
	    "  --opening-moves K     random opening moves per pair (4)\n"
	    "  --seed S              0..2^53-1 (0)\n"
	    "  --sprt E0,E1[,A,B]    stop when the SPRT decides (alpha, beta 0.05)\n"
	    "  --records FILE        game records to FILE instead of stdout\n"
	    "  --sgf DIR             also write each game to DIR/game-NNNNNN.sgf\n"
	    "  --gtp-timeout S       seconds per GTP response (60)\n"
	    "  --backend NAME        network backend: cpu, cuda, auto (cpu)\n"
	    "  --precision P[,P]     network arithmetic, of both or of A,B: fp32, bf16, int8 (fp32)\n"
	    "  --search SPEC         search settings of both players, KEY=VALUE,...\n"
	    "                        (cpuct, cpuct-log, cpuct-base, fpu, root-fpu, forced,\n"
	    "                        lcb, lcb-min-visits, score-static, score-dynamic;\n"
	    "                        kata: KataGo's; gt-elo(1))\n"
	    "  --search-a SPEC       of A only; --search-b SPEC of B only\n"
	    "  --progress            the score after each pair on stderr\n");
}

typedef struct out {
	FILE *rec;
	const char *sgf;
	const gt_match_params *p;
	int progress;
	const char *a, *b;
	int werr;
	char errtext[300];
} out;

static int write_sgf(out *o, const gt_match_game *g)
{
	gt_sgf_game sg;
	if (gt_match_game_sgf(g, &sg) != 0)
		return GT_EINVAL;
	char path[4096];
	snprintf(path, sizeof path, "%s/game-%06ld.sgf", o->sgf, g->index);
	FILE *f = fopen(path, "w");
	int err = f ? gt_sgf_write(f, &sg) : GT_EIO;
	if (f && fclose(f) != 0)
		err = GT_EIO;
	gt_sgf_game_release(&sg);
	if (err)
		snprintf(o->errtext, sizeof o->errtext, "%.200s: %s", path, strerror(errno));
	return err;
}

/* an Elo for the progress line: "inf"/"-inf" where lib/elo flags it */
static void fmt_elo(char *buf, double v, unsigned flagged)
{
	if (flagged)
		snprintf(buf, 32, "%sinf", v < 0 ? "-" : "");
	else
		snprintf(buf, 32, "%.1f", v);
}

static int sink(void *ctx, const gt_match_game *g, const gt_elo_result *r)
{
	out *o = ctx;
	gt_error e;
	size_t len;
	char *line = gt_match_game_format(g, &len, &e);
	if (!line) {
		snprintf(o->errtext, sizeof o->errtext, "game %ld: %s", g->index, e.text);
		return GT_EINVAL;
	}
	int bad = fwrite(line, 1, len, o->rec) != len || fflush(o->rec) != 0;
	free(line);
	if (bad) {
		snprintf(o->errtext, sizeof o->errtext, "write error: %s", strerror(errno));
		return GT_EIO;
	}
	if (o->sgf && write_sgf(o, g) != 0)
		return GT_EIO;
	if (o->progress && g->index % 2 == 1) {
		char elo[32], lo[32], hi[32];
		fmt_elo(elo, r->elo, r->flags & GT_ELO_F_INF);
		fmt_elo(lo, r->ci_lo, r->flags & GT_ELO_F_LO_UNBOUNDED);
		fmt_elo(hi, r->ci_hi, r->flags & GT_ELO_F_HI_UNBOUNDED);
		fprintf(stderr, "%s: %ld/%ld games: %s %ld-%ld-%ld, score %.3f, elo %s [%s, %s]",
		        prog, r->games, o->p->games, o->a, r->wins, r->draws, r->losses, r->score,
		        elo, lo, hi);
		if (r->has_sprt)
			fprintf(stderr, ", llr %.2f (%.2f, %.2f)", r->llr, r->llr_lower, r->llr_upper);
		fputc('\n', stderr);
	}
	return 0;
}

/* the player of argument spec into pl, or exit: 2 for a gtp: spec
 * without a command, 1 for a network that cannot be opened */
static void open_player(gt_match_player *pl, const char *spec, const char *backend,
                        int prec, int verbose, gt_match_player *other)
{
	gt_error e;
	if (gt_match_player_open(pl, spec, backend, &e) == 0) {
		int got = pl->kind == GT_MATCH_MODEL ?
			cli_precision_set(&pl->ev, pl->name, prec, verbose) : -1;
		/* the same network in two precisions: two names */
		size_t len = strlen(pl->name);
		if (got > GT_PREC_FP32 && len + 6 < sizeof pl->name)
			snprintf(pl->name + len, 6, "+%s", gt_nn_precision_name(got));
		return;
	}
	cli_warn("%s", e.text);
	if (other)
		gt_match_player_close(other);
	exit(strncmp(spec, "gtp:", 4) == 0 ? 2 : 1);
}

enum { O_GAMES = 256, O_OPENING, O_SPRT, O_RECORDS, O_SGF, O_TIMEOUT, O_BACKEND,
       O_PROGRESS, O_PREC, O_SEARCH, O_SEARCH_A, O_SEARCH_B, O_VISITS_B };
static const struct option opts[] = {
	{ "games", required_argument, 0, O_GAMES },
	CLI_GAME_OPTS,
	{ "opening-moves", required_argument, 0, O_OPENING },
	{ "sprt", required_argument, 0, O_SPRT },
	{ "records", required_argument, 0, O_RECORDS },
	{ "sgf", required_argument, 0, O_SGF },
	{ "gtp-timeout", required_argument, 0, O_TIMEOUT },
	{ "backend", required_argument, 0, O_BACKEND },
	{ "progress", no_argument, 0, O_PROGRESS },
	{ "precision", required_argument, 0, O_PREC },
	{ "search", required_argument, 0, O_SEARCH },
	{ "search-a", required_argument, 0, O_SEARCH_A },
	{ "search-b", required_argument, 0, O_SEARCH_B },
	{ "visits-b", required_argument, 0, O_VISITS_B },
	CLI_OPTS_END,
};

int main(int argc, char **argv)
{
	gt_match_params p;
	gt_match_params_default(&p);
	cli_game g = { &p.board_size, &p.max_moves, &p.visits, &p.parallel_games, &p.komi,
	               &p.rules, &p.seed, 0 };
	out o = { .rec = stdout, .p = &p };
	const char *records = NULL, *backend = NULL;
	int c, r, prec[2] = {GT_PREC_FP32, GT_PREC_FP32};
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case O_GAMES: p.games = cli_int("--games", optarg, 2, 100000000); break;
		case O_OPENING: p.opening_moves = cli_int("--opening-moves", optarg, 0, GT_MAX_HIST); break;
		case O_SPRT:
			if ((r = gt_elo_sprt_parse(optarg, &p.sprt)))
				cli_bad_value("--sprt", r == GT_EINVAL ? "elo0 < elo1 and alpha, beta in "
				              "(0, 0.5]" : "ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA", optarg);
			p.has_sprt = 1;
			break;
		case O_RECORDS: records = optarg; break;
		case O_SGF: o.sgf = optarg; break;
		case O_TIMEOUT: p.gtp_timeout = cli_double("--gtp-timeout", optarg, 0, 1e6); break;
		case O_BACKEND: backend = optarg; break;
		case O_PROGRESS: o.progress = 1; break;
		case O_SEARCH:
			cli_search("--search", optarg, &p.search);
			cli_search("--search", optarg, &p.search_b);
			break;
		case O_SEARCH_A: cli_search("--search-a", optarg, &p.search); break;
		case O_SEARCH_B: cli_search("--search-b", optarg, &p.search_b); break;
		case O_VISITS_B: p.visits_b = (int)cli_int("--visits-b", optarg, 1, 1000000); break;
		case O_PREC: {
			char a[16];
			const char *comma = strchr(optarg, ',');
			snprintf(a, sizeof a, "%.*s", comma ? (int)(comma - optarg) : 15, optarg);
			prec[0] = prec[1] = cli_precision("--precision", a);
			if (comma)
				prec[1] = cli_precision("--precision", comma + 1);
			break;
		}
		default:
			if (!cli_game_opt(&g, c, optarg))
				cli_opt_other(c, usage);
		}
	}
	if (argc - optind != 2)
		cli_usage_fail(usage, "want two players, A and B");
	gt_error e;
	if (gt_match_check(&p, &e) != 0)
		cli_usage_die("%s", e.text);
	gt_match_player pa, pb;
	open_player(&pa, argv[optind], backend, prec[0], o.progress, NULL);
	open_player(&pb, argv[optind + 1], backend, prec[1], o.progress, &pa);
	o.a = pa.name;
	o.b = pb.name;
	if (o.sgf && mkdir(o.sgf, 0777) != 0 && errno != EEXIST)
		cli_die_errno("%s", o.sgf);
	if (records && !(o.rec = fopen(records, "w")))
		cli_die_errno("%s", records);

	gt_elo_result res;
	int status = gt_match_run(&p, &pa, &pb, sink, &o, &res, &e) != 0;
	if (status) {
		cli_warn("%s", o.errtext[0] ? o.errtext : e.text);
	} else {
		char *s = gt_elo_summary(pa.name, pb.name, &res);
		if (!s || puts(s) == EOF)
			status = 1;
		free(s);
		if (o.progress && res.has_sprt && res.sprt_result != GT_SPRT_CONTINUE)
			cli_warn("SPRT accepted %s after %ld games",
			         res.sprt_result == GT_SPRT_H1 ? "H1" : "H0", res.games);
	}
	gt_match_player_close(&pa);
	gt_match_player_close(&pb);
	if (records && fclose(o.rec) != 0 && !status) {
		cli_warn_errno("%s", records);
		status = 1;
	}
	return cli_fshut(stdout, "stdout") ? 1 : status;
}
