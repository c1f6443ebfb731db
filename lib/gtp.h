/*
 * gtp.h: the engine side of the Go Text Protocol, version 2 (G. Farnebaeck,
 * "GTP - Go Text Protocol", draft 2, www.lysator.liu.se/~gunnar/gtp/).
 *
 * A gt_gtp holds a game (lib/board) and answers one command line at a
 * time: gt_gtp_exec() returns the full response text ("=[id] result\n\n"
 * or "?[id] message\n\n"), gt_gtp_run() loops over a stream. Move
 * generation and the judgement of dead stones are callbacks so that gt-gtp
 * plugs its search in (lib/engine); the defaults play a uniformly random
 * legal move that does not fill one of its own single-point eyes (passing
 * when there is none) and judge dead stones by light playouts (score.h).
 *
 * Commands (gt-gtp(1) says what each does): protocol_version name version
 * known_command list_commands quit boardsize clear_board komi get_komi
 * play genmove undo showboard fixed_handicap place_free_handicap
 * set_free_handicap final_score final_status_list time_settings time_left
 * kgs-time_settings kgs-rules kgs-genmove_cleanup loadsgf printsgf
 * gogui-analyze_commands gt-rules kata-get-rules kata-set-rules stop
 * clear_cache, and those registered. Error texts are
 * the spec's: "unknown command", "syntax error", "illegal move",
 * "unacceptable size", "cannot undo", "board not empty", "invalid number
 * of stones", "bad vertex list", "cannot load file".
 *
 * Two consecutive passes do not end the game here (the spec leaves the
 * end of a game to the controller): a move after them goes on from the
 * position on the board as a new start (gt_score_board_from: positions
 * before the passes no longer count for superko). The game is kept as its
 * start position and its moves, so undo replays it.
 *
 * Streaming commands (gt_gtp_register_stream: the analysis commands) write
 * their response a line at a time while they work and stop when the next
 * command arrives, as Leela Zero's lz-analyze and KataGo's kata-analyze do:
 * "=[id]" and a newline, lines of text, and the empty line that ends every
 * response.
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

/* gt_gtp_status_fn: judge the stones of b (borrowed): status[n*n] receives
 * GT_STATUS_* of score.h for every point (NONE on empty points). Returns 0
 * or a negative gt_err. */
typedef int (*gt_gtp_status_fn)(void *user, const gt_board *b, uint8_t *status);

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
/* gt_gtp_set_status: use fn (with user) to judge dead stones; fn NULL
 * restores the default (gt_score_playouts with gt_score_default_playouts,
 * seeded by the position's hash). The last judgement is kept until the
 * position, komi or judge changes. */
void gt_gtp_set_status(gt_gtp *g, gt_gtp_status_fn fn, void *user);

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

/* The channel of a streaming command. */
typedef struct gt_gtp_io gt_gtp_io;

/* gt_gtp_stream_fn: a streaming command. Check the arguments first and
 * fail with gt_gtp_io_fail (an ordinary "? message" response); then
 * gt_gtp_io_begin, lines with gt_gtp_io_line, and gt_gtp_io_wait to learn
 * when to stop. Return 0 (after begin the response is ended by the empty
 * line whatever is returned) or -1 after gt_gtp_io_fail. */
typedef int (*gt_gtp_stream_fn)(void *user, gt_gtp *g, int argc, char **argv, gt_gtp_io *io);

/* gt_gtp_register_stream: as gt_gtp_register, for a streaming command. */
int gt_gtp_register_stream(gt_gtp *g, const char *name, gt_gtp_stream_fn fn, void *user);

/* gt_gtp_io_fail: the error message of a streaming command that has not
 * begun (printf-style, one line). Returns -1. */
int gt_gtp_io_fail(gt_gtp_io *io, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* gt_gtp_io_begin: write "=[id]" and a newline (once). Returns 0, or
 * GT_EIO when writing failed. */
int gt_gtp_io_begin(gt_gtp_io *io);
/* gt_gtp_io_line: one line of the response (printf-style, without the
 * newline; an empty line is not written), written and flushed at once.
 * Returns 0 or GT_EIO. */
int gt_gtp_io_line(gt_gtp_io *io, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* gt_gtp_io_wait: 1 when input is waiting (the next command, or the end of
 * input): the command must stop; 0 when none came within seconds (0: do
 * not wait). Under gt_gtp_exec, and on an input that cannot be polled,
 * always 1. */
int gt_gtp_io_wait(gt_gtp_io *io, double seconds);

/* gt_gtp_add_analyze: add a line to the gogui-analyze_commands answer
 * (GoGui's "type/label/command", copied; up to 16). Returns 0 or
 * GT_EINVAL. */
int gt_gtp_add_analyze(gt_gtp *g, const char *line);

/* gt_gtp_play: play move (a point, GT_PASS(n)) for color in the game, as
 * "play" does (a streaming genmove plays its move with it). Returns 0 or
 * the reason it is illegal (gt_board_play's). */
int gt_gtp_play(gt_gtp *g, int color, int move);

/* gt_gtp_board_mut: the engine's board for an extra command that changes it
 * (e.g. setup stones before the first move), borrowed. */
gt_board *gt_gtp_board_mut(gt_gtp *g);

/* gt_gtp_set_max_size: the largest board size (2..GT_MAX_N, clamped) that
 * boardsize accepts ("unacceptable size" above it) and loadsgf loads, for
 * a genmove that cannot play larger boards (a network's largest size);
 * GT_MAX_N by default. The current board is not changed. */
void gt_gtp_set_max_size(gt_gtp *g, int n);

/* The default bound on the files loadsgf reads (gt_gtp_set_max_file). */
#define GT_GTP_MAX_FILE ((size_t)16 << 20)

/* gt_gtp_set_max_file: the largest file, in bytes (at least 1), that
 * loadsgf reads; GT_GTP_MAX_FILE by default. loadsgf reads only regular
 * files (gt_fs_read_regular: a device, FIFO or directory is refused
 * without blocking) and parses only their first game, so its memory is
 * bounded by this; printsgf writes only a regular file. */
void gt_gtp_set_max_file(gt_gtp *g, size_t bytes);

/* gt_gtp_seed: seed the random default genmove (xorshift64*). */
void gt_gtp_seed(gt_gtp *g, uint64_t seed);

/* gt_gtp_board: the engine's current board (borrowed, valid until the next
 * command). */
const gt_board *gt_gtp_board(const gt_gtp *g);

/* gt_gtp_exec: process one input line (with or without its newline; CR and
 * other control characters removed, tabs as spaces, text from '#' on
 * ignored, as the spec's preprocessing says). Returns the response, owned by
 * g and valid until the next call, or NULL when the line held no command.
 * *quit (may be NULL) is set to 1 after "quit". Streaming commands stop at
 * their first gt_gtp_io_wait. */
const char *gt_gtp_exec(gt_gtp *g, const char *line, int *quit);

/* The longest command line gt_gtp_run reads, in bytes (without its
 * newline); a longer one is answered "? command line too long (more than
 * N bytes)" without an id, its bytes dropped as they come (memory stays
 * bounded), and the next line is read. */
#define GT_GTP_MAX_LINE (1 << 20)

/* gt_gtp_run: read commands from in until EOF or quit, writing each
 * response to out and flushing it; lines longer than GT_GTP_MAX_LINE are
 * refused as above. in is read through its file descriptor
 * (poll and read, so that a streaming command sees the next command
 * arrive); a FILE without one (fmemopen) is read with getline. Returns 0,
 * or GT_EIO when writing failed. */
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
 * state, nonzero). Exposed for tests and for gt-gtp without --model. */
int gt_gtp_random_genmove(void *user, const gt_board *b, int color,
                          double budget_s, int *move);

/* gt_gtp_fixed_handicap: the points of the spec's fixed handicap of k
 * stones on an n x n board into pts (room for 9), as GNU Go places them:
 * star points on the 3rd line up to 12x12 and the 4th line from 13x13;
 * 2 to 9 stones on odd sizes from 9x9, 2 to 4 on 7x7 and even sizes from
 * 8x8, none below 7x7. Returns k, or GT_EINVAL for a k not allowed. */
int gt_gtp_fixed_handicap(int n, int k, int *pts);

#endif
