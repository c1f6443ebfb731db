/*
 * selfplay.h: self-play games with MCTS, written as game records
 * (gt-selfplay(1); record format gt-record(5)).
 *
 * Per move (KataGo, Wu 2019, arXiv:1902.10565, section 3.1 and appendix):
 *   - playout cap randomisation: with probability full_prob a full search of
 *     `visits` with root Dirichlet noise, whose visit shares are recorded
 *     as the policy target (full_search true); otherwise a cheap search of
 *     `cheap_visits` without noise, recorded without a policy;
 *   - the move is drawn from the root's visit counts raised to 1/T, with
 *     T = T_final + (T_early - T_final) * 0.5^(moves / (halflife * n / 19))
 *     (KataGo's chosenMoveTemperature*, the half-life scaled by the board's
 *     side as in KataGo's Search::interpolateEarly); T = 0 plays the most
 *     visited move;
 *   - the tree below the played move is kept for the next search.
 * A game ends after two passes and is scored by area. A game still going
 * after max_moves moves is ended by passes: the players pass without a
 * search (positions with visits 0, no policy), so every record ends by two
 * passes and gt-validate can check its area score; such a game has at most
 * max_moves + 2 moves.
 *
 * Games are numbered 0, 1, ...; game i draws all its randomness from stream
 * i of the seed (gt_rng_seed_stream), and each search's course depends only
 * on its own leaves, so the records depend only on (parameters, seed, i)
 * with an evaluator whose outputs do not depend on the batch (the uniform
 * one; a network with exact = 1): not on threads, on the games in flight,
 * on the cache or on timing. A batched network's outputs can differ in the
 * last bits with the batch (neteval.h), which changes a game only when it
 * flips a choice between nearly equal children. Records are handed out in
 * game order.
 */
#ifndef GT_SELFPLAY_H
#define GT_SELFPLAY_H
#include <signal.h>
#include <stdint.h>
#include "board.h"
#include "gt.h"
#include "mcts.h"
#include "record.h"
#include "sgf.h"

typedef struct gt_selfplay_params {
	int board_size;          /* 9 */
	const gt_rules *rules;   /* chinese */
	double komi;             /* 7 */
	int max_moves;           /* move cap (then two passes); 0 means 2 * n * n */
	int visits;              /* full search, 200 */
	int cheap_visits;        /* cheap search, 50 */
	double full_prob;        /* probability of a full search, 0.25 */
	double temp_early;       /* 0.75 (KataGo chosenMoveTemperatureEarly) */
	double temp_final;       /* 0.15 (KataGo chosenMoveTemperature) */
	double temp_halflife;    /* 19 moves at 19x19 (KataGo), scaled by n/19 */
	int parallel_games;      /* games in flight per thread, 16 */
	int threads;             /* worker threads, 1; each has its own evaluator */
	long games;              /* games to play, 1 */
	uint64_t seed;           /* 0 */
	gt_mcts_params search;   /* gt_mcts_params_default, but leaves = 1 and
	                            pass_from -1: n*n/2 moves */
	const char *model;       /* record "model" (borrowed), "none" */
	const char *worker;      /* record "worker" (borrowed), NULL */
	/* how gt_selfplay_model_open opens a network */
	const char *backend;     /* "cpu", "cuda" or "auto" (borrowed), "cpu" */
	int exact;               /* 0; 1: batch-invariant evaluations (gt_neteval_set_exact) */
	int precision;           /* GT_PREC_FP32; GT_PREC_BF16 (gt_neteval_precision) */
	size_t cache_bytes;      /* evaluation cache of a run, shared out over the
	                            threads (evcache.h), 64 MiB; 0: none */
} gt_selfplay_params;

/* gt_selfplay_params_default: the defaults above. */
void gt_selfplay_params_default(gt_selfplay_params *p);

/* gt_selfplay_check: 0 if p is usable, else GT_EINVAL with the reason in
 * e; among the checks, komi must be a multiple of 0.5 within +-n*n (the
 * records gt-validate accepts, gt-record(5)), so the default komi 7 is
 * refused on 2x2. */
int gt_selfplay_check(const gt_selfplay_params *p, gt_error *e);

/* gt_selfplay_temperature: the move-choice temperature at move number m
 * (moves played before it). */
double gt_selfplay_temperature(const gt_selfplay_params *p, int m);

/* gt_selfplay_max_moves: the move cap p implies (max_moves or 2*n*n). */
int gt_selfplay_max_moves(const gt_selfplay_params *p);

typedef struct gt_selfplay_stats {
	long games;           /* records handed to the sink */
	long dropped;         /* games abandoned by a stop */
	long long moves;      /* moves of finished games */
	long long played;     /* moves played after a search, in all games */
	long long evals;      /* positions evaluated */
	long long eval_calls; /* evaluator calls */
} gt_selfplay_stats;

/* The sink receives each finished game: index i (0-based), the record
 * (borrowed for the call) and the statistics so far. Calls come one at a
 * time, in increasing index order, from any worker thread. Returning
 * nonzero stops the run; gt_selfplay_run then returns that value. */
typedef int (*gt_selfplay_sink)(void *ctx, long index, const gt_record *r,
                                const gt_selfplay_stats *st);

/* gt_selfplay_run: play p->games games on p->threads threads, thread t
 * evaluating with evals[t] (p->threads evaluators, borrowed; the same one
 * may be given for all threads if it is thread-safe). When *stop (may be
 * NULL) becomes nonzero, e.g. from a signal handler, no new game starts,
 * games in progress are dropped, and the finished ones still waiting for an
 * earlier game are handed out (in index order, with gaps). Returns 0, the
 * first evaluator or search error, or the sink's nonzero value; *st (may be
 * NULL) receives the final statistics. */
int gt_selfplay_run(const gt_selfplay_params *p, const gt_evaluator *evals,
                    gt_selfplay_sink sink, void *ctx,
                    volatile sig_atomic_t *stop, gt_selfplay_stats *st);

/* gt_selfplay_game: play game `index` alone on the calling thread (the same
 * record gt_selfplay_run would give it) into r, which the caller releases
 * with gt_selfplay_record_free. Returns 0 or an error. */
int gt_selfplay_game(const gt_selfplay_params *p, const gt_evaluator *ev, long index,
                     gt_record *r);

/* gt_selfplay_record_free: free what a record made by this module owns and
 * zero it. (Records from gt_record_parse are released with
 * gt_record_release.) */
void gt_selfplay_record_free(gt_record *r);

/* gt_selfplay_model_open: the evaluator of one worker thread for a --model
 * argument: "none" gives gt_evaluator_uniform() (no cache: it costs
 * nothing); a network file a network evaluator (neteval.h) on p->backend,
 * exact if p->exact, in p->precision where it can be, behind a cache of
 * p->cache_bytes / p->threads bytes (evcache.h). name receives the model's
 * name for the records (the file's base name without .bin.gz, or "none");
 * backend (may be NULL) the backend's name ("cpu", "cuda"; "" for none);
 * prec (may be NULL) the precision in effect and why (may be NULL) why it
 * is lower than p->precision (NULL if it is not; gt_neteval_precision).
 * Returns 0 or the error of gt_neteval_open_file (in e). Close with
 * gt_evaluator_close. */
int gt_selfplay_model_open(const gt_selfplay_params *p, const char *path, gt_evaluator *ev,
                           char *name, size_t size, const char **backend, int *prec,
                           const char **why, gt_error *e);

/* gt_selfplay_sgf: the record as an SGF game (sgf.h) into g, which the
 * caller releases with gt_sgf_game_release: gt_sgfrec_from_record's game
 * (size, komi, moves, result, rules RU, game id GN, worker US, a comment
 * C with the search's win rate, score lead and visits on each searched
 * move), the model and gt's version as both players (PB, PW: "NAME (gt
 * 0.1.0)") and today's date (DT, UTC). Returns 0 or the error of sgf.h. */
int gt_selfplay_sgf(const gt_record *r, gt_sgf_game *g);

/* gt_selfplay_sgf_write: write the record as SGF to dir/<game_id>.sgf
 * atomically (a temporary file in dir, fsync, rename). Returns 0, GT_EIO
 * (errno kept; e names the file), or GT_EINVAL for a record without a
 * usable game id. */
int gt_selfplay_sgf_write(const char *dir, const gt_record *r, gt_error *e);

#endif
