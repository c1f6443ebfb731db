/*
 * match.h: matches between two players (gt-elo(1)): many games in flight on
 * one thread, the searches of network players sharing evaluator batches as
 * in lib/selfplay, external GTP engines driven through lib/gtpclient, and
 * the statistics of lib/elo after every colour-swapped pair.
 *
 * A player is a network file, "none" (uniform priors, value 0), or
 * "gtp:COMMAND", an external GTP engine run as /bin/sh -c COMMAND (one
 * process per game in flight, reused for the next game with clear_board).
 *
 * Games: game i belongs to pair p = i / 2; A plays Black in game 2p and
 * White in game 2p + 1. Both games of a pair start with the same opening:
 * `opening_moves` moves drawn uniformly from stream p of the seed
 * (gt_rng_seed_stream) among the legal points off the first line (any
 * legal point when there is none), played for the players without a
 * search. From there a network player searches `visits` visits (PUCT,
 * no noise; the tree below the moves played is kept, as gt-gtp does) and
 * plays the most visited move; a GTP engine is asked "genmove". A game ends
 * by two passes and is scored by area (lib/board) under the match's rules
 * whoever the players are; when the move cap is reached the game is ended
 * by two passes that are recorded but not searched or sent to the engines
 * (as gt-selfplay does), so every scored record ends with two passes. An
 * engine that resigns loses ("B+R"/"W+R"); an engine that answers
 * genmove with a move the rules forbid (occupied, suicide, ko, superko)
 * or an unreadable vertex, or that refuses a legal move of its opponent,
 * loses by forfeit ("B+F"/"W+F") with the reason recorded. An engine that
 * dies, times out or speaks something else than GTP stops the match with
 * an error.
 *
 * Results are handed out in game order, and statistics are taken over
 * complete pairs in pair order (pentanomial, lib/elo), so the output
 * depends only on the parameters and the seed, not on the games in flight,
 * when the players are deterministic (network searches are; GTP engines
 * may not be). With an SPRT the match stops after the first pair at which
 * the test decides; games still in flight are dropped.
 */
#ifndef GT_MATCH_H
#define GT_MATCH_H
#include <stdint.h>

#include "board.h"
#include "elo.h"
#include "gt.h"
#include "mcts.h"
#include "record.h"
#include "sgf.h"

enum { GT_MATCH_MODEL = 1, GT_MATCH_GTP = 2 };

typedef struct gt_match_player {
	int kind;            /* GT_MATCH_MODEL or GT_MATCH_GTP */
	char name[256];      /* model name ("none", file base name) or "gtp:COMMAND" */
	gt_evaluator ev;     /* GT_MATCH_MODEL: owned */
	char *command;       /* GT_MATCH_GTP: the shell command, owned */
	char program[128];   /* the program as SGF names it (PB, PW): "NAME (gt
	                        VERSION)" for a network, the engine's own "name
	                        version" answers for GTP (once it was started) */
} gt_match_player;

/* gt_match_player_open: the player of a command-line argument: "gtp:CMD"
 * (CMD not empty; nothing is started yet), "none", or a network file
 * (opened on backend, NULL meaning "cpu", through gt_neteval_open_file;
 * see lib/nn/gpu.h for the names). Names longer
 * than the name field are cut. Returns 0, or an error with text in e
 * (GT_EINVAL for "gtp:" without a command). Close with
 * gt_match_player_close. */
int gt_match_player_open(gt_match_player *pl, const char *spec, const char *backend,
                         gt_error *e);
void gt_match_player_close(gt_match_player *pl);

typedef struct gt_match_params {
	int board_size;        /* 9 */
	const gt_rules *rules; /* chinese */
	double komi;           /* 7 */
	int max_moves;         /* move cap, then two passes; 0 means 2 * n * n */
	int visits;            /* visits per move of network players, 100 */
	int visits_b;          /* B's visits if not 0 (A has visits), 0 */
	int opening_moves;     /* random opening moves per pair, 4 */
	int parallel_games;    /* games in flight, 8 (rounded up to even) */
	long games;            /* games, an even number >= 2, 400 */
	uint64_t seed;         /* 0 */
	double gtp_timeout;    /* seconds per GTP response, 60 */
	int has_sprt;          /* 1: stop when sprt decides */
	gt_elo_sprt sprt;
	gt_mcts_params search; /* A's search: gt_mcts_params_default, but leaves = 1 */
	gt_mcts_params search_b; /* B's, the same by default; leaves is search's */
} gt_match_params;

/* gt_match_params_default: the defaults above. */
void gt_match_params_default(gt_match_params *p);

/* gt_match_check: 0 if p is usable, else GT_EINVAL with the reason in e. */
int gt_match_check(const gt_match_params *p, gt_error *e);

/* One finished game as handed to the sink. */
typedef struct gt_match_game {
	long index;            /* game number, 0-based */
	long pair;             /* index / 2 */
	int a_color;           /* GT_BLACK or GT_WHITE: the colour A played */
	int opening;           /* opening moves at the start of rec.moves */
	double a_score;        /* A's points: 1 win, 0.5 draw, 0 loss */
	char reason[160];      /* why the game ended otherwise than by two
	                          passes or the move cap ("" if it did not) */
	const char *black, *white; /* player names (borrowed) */
	const char *black_program, *white_program; /* their programs (borrowed) */
	gt_record rec;         /* the record: moves, result, winner, score,
	                          ownership (scored games); no positions */
	int nsearched;         /* the network players' searches, one per move
	                          they chose (move_number, to_move, visits,
	                          root_value, root_score), for the SGF comments;
	                          not in the record: their last bits depend on
	                          the games in flight (the network's batch) */
	gt_position *searched;
} gt_match_game;

/* gt_match_game_format: the game as one gt-record(5) line with newline in
 * a new string (caller frees), *len bytes: gt_record_format's fields, then
 * "game" (index), "pair", "black" and "white" (player names), "a" ("B" or
 * "W": the colour of the first player), "opening" (moves), and "reason"
 * when set. NULL (e filled) if the record cannot be written. */
char *gt_match_game_format(const gt_match_game *g, size_t *len, gt_error *e);

/* gt_match_game_sgf: the game as an SGF game (sgf.h) into sg, which the
 * caller releases with gt_sgf_game_release: gt_sgfrec_from_record's game
 * (moves, result, rules, game id), a comment with the search's win rate,
 * score lead and visits on each move of a network player (searched), the
 * players' programs as PB and PW, the reason of an unusual end as GC, today's date
 * as DT. Returns 0 or GT_EINVAL. */
int gt_match_game_sgf(const gt_match_game *g, gt_sgf_game *sg);

/* The sink receives the games of each pair that counts, when the pair is
 * complete, in game order, with the statistics of the pairs up to and
 * including that one. Returning nonzero stops the match; gt_match_run then
 * returns that value. */
typedef int (*gt_match_sink)(void *ctx, const gt_match_game *g, const gt_elo_result *r);

/* gt_match_run: play the match of a against b (players borrowed). *res
 * receives the statistics of the pairs played (pentanomial, from A's view;
 * res->games 0 when none finished). Returns 0, the sink's nonzero value, or a negative
 * gt_err with text in e (an evaluator, search or GTP engine failure). */
int gt_match_run(const gt_match_params *p, gt_match_player *a, gt_match_player *b,
                 gt_match_sink sink, void *ctx, gt_elo_result *res, gt_error *e);

#endif
