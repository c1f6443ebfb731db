/*
 * gtp.h: the engine side of the Go Text Protocol, version 2 (G. Farnebaeck,
 * "GTP - Go Text Protocol", draft 2, www.lysator.liu.se/~gunnar/gtp/).
 *
 * A gt_gtp holds a board (lib/board) and answers one command line at a
 * time: gt_gtp_exec() returns the full response text ("=[id] result\n\n"
 * or "?[id] message\n\n"), gt_gtp_run() loops over a stream. Move
 * generation is a callback so that gt-gtp plugs its search in; the default
 * plays a uniformly random legal move that does not fill one of its own
 * single-point eyes, and passes when there is none (for tests).
 *
 * Commands: protocol_version name version known_command list_commands quit
 * boardsize clear_board komi play genmove undo showboard final_score
 * time_settings time_left, and gt-rules NAME (a gt extension: set the
 * ruleset of lib/board, clearing the board). Error texts are the spec's:
 * "unknown command", "syntax error", "illegal move", "unacceptable size",
 * "cannot undo". After two consecutive passes lib/board ends the game, so
 * further moves are answered "illegal move" and genmove answers "pass"
 * without asking the callback (no cleanup phase).
 */
#ifndef GT_GTP_H
#define GT_GTP_H
#include <stdint.h>
#include <stdio.h>

#include "board.h"
#include "gt.h"

#define GT_GTP_RESIGN (-1) /* move a genmove callback returns to resign */

typedef struct gt_gtp gt_gtp;

/* gt_gtp_genmove_fn: choose a move for color (GT_BLACK/GT_WHITE, not
 * necessarily b->to_move) on b (borrowed, read-only: copy it to search).
 * budget_s is the time to spend in seconds (gt_gtp_budget), or -1 for no
 * limit. Store a point, GT_PASS(b->n) or GT_GTP_RESIGN in *move and return
 * 0; a negative gt_err fails the command ("? genmove failed: ..."). The move
 * must be legal; the engine plays it on its board. */
typedef int (*gt_gtp_genmove_fn)(void *user, const gt_board *b, int color,
                                 double budget_s, int *move);

/* gt_gtp_new: an engine with an empty n x n board under rules with komi.
 * name and version are what "name"/"version" answer (copied; NULL gives
 * "gt" and GT_VERSION). The default genmove is random with seed 1. Returns
 * NULL for a board lib/board refuses. Free with gt_gtp_free. */
gt_gtp *gt_gtp_new(int n, const gt_rules *rules, double komi,
                   const char *name, const char *version);
void gt_gtp_free(gt_gtp *g);

/* gt_gtp_set_genmove: use fn (with user) for genmove; fn NULL restores
 * the random default. */
void gt_gtp_set_genmove(gt_gtp *g, gt_gtp_genmove_fn fn, void *user);
/* gt_gtp_command_fn: an extra command. argv[0..argc-1] are its arguments
 * (borrowed). Write the result (success) or the error message (failure) to
 * out, size bytes, NUL-terminated; return 0 for success, -1 for failure.
 * Empty lines in out are dropped (one would end the response early). */
typedef int (*gt_gtp_command_fn)(void *user, gt_gtp *g, int argc, char **argv,
                                 char *out, size_t size);

/* gt_gtp_register: add command name (copied; up to 32 extra commands) or
 * replace a built-in one of that name; it then shows in list_commands and
 * known_command. Returns 0, or GT_EINVAL for a bad name (empty, with
 * white space or '#', all digits) or a full table. */
int gt_gtp_register(gt_gtp *g, const char *name, gt_gtp_command_fn fn, void *user);

/* gt_gtp_board_mut: the engine's board for an extra command that changes it
 * (e.g. handicap stones), borrowed. */
gt_board *gt_gtp_board_mut(gt_gtp *g);

/* gt_gtp_seed: seed the random default genmove (xorshift64*). */
void gt_gtp_seed(gt_gtp *g, uint64_t seed);

/* gt_gtp_board: the engine's current board (borrowed, valid until the next
 * command). */
const gt_board *gt_gtp_board(const gt_gtp *g);

/* gt_gtp_exec: process one input line (with or without its newline; CR and
 * other control characters removed, tabs as spaces, text from '#' on
 * ignored, as the spec's preprocessing says). Returns the response, owned by
 * g and valid until the next call, or NULL when the line held no command.
 * *quit (may be NULL) is set to 1 after "quit". */
const char *gt_gtp_exec(gt_gtp *g, const char *line, int *quit);

/* gt_gtp_run: read commands from in until EOF or quit, writing each
 * response to out and flushing it. Returns 0, or GT_EIO when writing
 * failed. */
int gt_gtp_run(gt_gtp *g, FILE *in, FILE *out);

/* gt_gtp_budget: seconds to spend on the next move of color from the
 * time_settings/time_left state: -1 when there is no limit (no
 * time_settings, or byo-yomi time with 0 stones as the spec defines "no
 * time limit"); in byo-yomi (time_left with stones > 0) time/stones;
 * otherwise remaining main time / max(10, expected own moves left), the
 * moves left estimated as 0.35 n^2 minus the colour's moves so far (a 9x9
 * game lasts about 2 x 28 moves, 19x19 about 2 x 126), plus a byo-yomi
 * period's time/stones when there is one. */
double gt_gtp_budget(const gt_gtp *g, int color);

/* gt_gtp_random_genmove: the default genmove (user: a uint64_t xorshift
 * state, nonzero). Exposed for tests and for gt-gtp --random. */
int gt_gtp_random_genmove(void *user, const gt_board *b, int color,
                          double budget_s, int *move);

#endif
