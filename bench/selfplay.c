/*
 * selfplay: self-play throughput on 9x9 with `--model none` (the uniform
 * evaluator) and gt-selfplay's defaults (200 full / 50 cheap visits, p =
 * 0.25, 16 games in flight, one thread), with the evaluator's time measured
 * apart, so what is left is the cost of search and bookkeeping per visit.
 * Reference in the same run: random playout moves per second of the board
 * (bench/playout's light playouts), to express a visit in playout moves.
 * Usage: selfplay [seconds]
 */
#include "board.h"
#include "gt.h"
#include "mcts.h"
#include "selfplay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* the uniform evaluator with a stopwatch around it */
typedef struct timed {
	gt_evaluator inner;
	double secs;
} timed;

static int timed_eval(void *ctx, int n, int nb, const gt_board *const *boards, float *logits,
                      float *value, float *score, float *own)
{
	timed *t = ctx;
	double t0 = now();
	int r = t->inner.eval(t->inner.ctx, n, nb, boards, logits, value, score, own);
	t->secs += now() - t0;
	return r;
}

typedef struct tally {
	double deadline;
	long games;
} tally;

static int sink(void *ctx, long index, const gt_record *r, const gt_selfplay_stats *st)
{
	tally *t = ctx;
	(void)index, (void)r, (void)st;
	t->games++;
	return 0;
}

/* light random playout moves per second (uniform legal non-eye-filling) */
static double playout_moves_per_sec(double secs)
{
	gt_board *b = gt_xmalloc(sizeof *b), *root = gt_xmalloc(sizeof *root);
	gt_board_init(root, 9, gt_rules_find("tromp-taylor"), 7.5);
	gt_rng r;
	gt_rng_seed(&r, 1);
	long moves = 0;
	double t0 = now(), t;
	int16_t cand[GT_MAX_PTS];
	do {
		for (int k = 0; k < 50; k++) {
			gt_board_copy(b, root);
			while (!gt_board_over(b)) {
				int c = b->to_move, n = b->n, mv = GT_PASS(n), cnt = b->nempty;
				memcpy(cand, b->empty, cnt * sizeof cand[0]);
				while (cnt > 0) {
					int i = (int)gt_rng_below(&r, cnt), p = cand[i], x = p % n, y = p / n;
					int eye = (y == 0 || b->color[p - n] == c) && (y == n - 1 || b->color[p + n] == c) &&
					          (x == 0 || b->color[p - 1] == c) && (x == n - 1 || b->color[p + 1] == c);
					if (!eye && gt_board_legal(b, c, p) == 0) {
						mv = p;
						break;
					}
					cand[i] = cand[--cnt];
				}
				gt_board_play_legal(b, c, mv);
				moves++;
			}
		}
		t = now() - t0;
	} while (t < secs);
	free(b);
	free(root);
	return moves / t;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 5.0;
	double pm = playout_moves_per_sec(secs / 5);

	gt_selfplay_params p;
	gt_selfplay_params_default(&p);
	p.seed = 1;
	timed tv = { gt_evaluator_uniform(), 0 };
	gt_evaluator ev = { &tv, timed_eval, NULL, "none" };
	/* play batches of games until the time is spent */
	tally ta = { 0, 0 };
	gt_selfplay_stats st, sum;
	memset(&sum, 0, sizeof sum);
	double t0 = now(), t;
	long next = 0;
	do {
		p.games = 16;
		p.seed = 1000 + next++;
		gt_selfplay_run(&p, &ev, sink, &ta, NULL, &st);
		sum.moves += st.moves;
		sum.evals += st.evals;
		sum.eval_calls += st.eval_calls;
		t = now() - t0;
	} while (t < secs);
	double search = t - tv.secs;
	printf("selfplay: 9x9 --model none, %d/%d visits, p %.2f, %d games in flight, 1 thread\n",
	       p.visits, p.cheap_visits, p.full_prob, p.parallel_games);
	printf("selfplay: %ld games in %.1f s: %.0f games/hour, %.0f moves/s, %.1f moves/game\n",
	       ta.games, t, ta.games * 3600 / t, sum.moves / t, (double)sum.moves / ta.games);
	printf("selfplay: %lld evaluations (%.0f/s, mean batch %.1f, %.0f per game)\n", sum.evals,
	       sum.evals / t, (double)sum.evals / sum.eval_calls, (double)sum.evals / ta.games);
	printf("selfplay: evaluator %.2f us per position (%.1f%% of the time); search and "
	       "bookkeeping %.2f us per visit\n",
	       tv.secs / sum.evals * 1e6, 100 * tv.secs / t, search / sum.evals * 1e6);
	printf("selfplay: reference: %.0f random playout moves/s; one visit costs %.1f playout moves\n",
	       pm, search / sum.evals * pm);
	/* what a network would give: games/hour = 3600 / (evals per game / E +
	 * search time per game), at the network's evaluations per second E */
	double per_game = (double)sum.evals / ta.games, sgame = search / ta.games;
	printf("selfplay: projected with a network of 747 evals/s (KataGo b6c96, DESIGN 8): "
	       "%.0f games/hour\n", 3600 / (per_game / 747 + sgame));
	return 0;
}
