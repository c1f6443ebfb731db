/*
 * record.h: the NDJSON game record (man page gt-record(5) is
 * the truth). One game per line, read and written one
 * line at a time, so memory does not grow with the input.
 *
 * Perspectives: the game-level score and ownership are Black's view
 * (score > 0: Black won by that much; ownership +1 Black, -1 White). A
 * position's value and score are the side to move's view.
 */
#ifndef GT_RECORD_H
#define GT_RECORD_H
#include <stdint.h>
#include <stdio.h>
#include "gt.h"

#define GT_RECORD_VERSION 1

/* Winner of a game: GT_WIN_* in gt.h. */

/* One searched (or human-played) position of a game. */
typedef struct gt_position {
	int move_number;   /* moves played before this position (0-based) */
	int to_move;       /* GT_BLACK or GT_WHITE */
	float *policy;     /* n*n+1 visit shares, pass last, sums to 1; NULL if none */
	float value;       /* side to move's view: +1 won, -1 lost, 0 draw */
	float score;       /* final score from the side to move's view */
	int visits;        /* search visits (0 for human games) */
	int full_search;   /* 1: a full search, policy is a training target */
	float weight;      /* training weight of this position (default 1) */
	/* Added after the first draft (zero-initialised means none): */
	int has_root;      /* 1: the search's own evaluation follows */
	float root_value;  /* the search's mean value at the root, side to move's view, [-1,1] */
	float root_score;  /* the search's mean score at the root, side to move's view */
} gt_position;

typedef struct gt_record {
	int version;
	char rules[32];      /* ruleset the moves are replayed under */
	char sgf_rules[32];  /* RU of an SGF source, as given ("" if none) */
	double komi;
	int board_size;
	char *model, *worker, *game_id; /* owned strings, may be NULL */
	uint64_t seed;       /* self-play seed (0 if none) */
	int nsetup[3];       /* setup stones: count of [GT_BLACK], [GT_WHITE] */
	int16_t *setup[3];   /* setup stone points per colour (handicap) */
	int first_to_move;   /* colour of the first move (GT_BLACK normally) */
	int nmoves;
	int16_t *moves;      /* point index or GT_PASS(n) */
	uint8_t *colors;     /* colour of each move (alternating unless SGF said otherwise) */
	char result[16];     /* "B+4.5", "W+R", "0" (draw), "?" ... */
	int winner;          /* GT_WIN_* */
	double score;        /* Black's view area score; NAN when unknown */
	int score_checkable; /* 0 when the result came from resignation, time or
	                        territory counting and area scoring cannot recheck it */
	float *ownership;    /* n*n, Black's view, final; NULL if none */
	int npos;
	gt_position *pos;    /* positions in move order */
	/* Fields added after the first draft; gt_record_init zeroes them. */
	char *boards;        /* npos*n*n chars '.' 'X' 'O', the board of each
	                        position in point order; NULL if none carried */
	int symmetry;        /* symmetry gt-augment applied (lib/sym.h), 0 none */
} gt_record;

/* gt_record_init / gt_record_release: a caller-owned record; release frees
 * everything it owns and leaves it initialised (reusable). */
void gt_record_init(gt_record *r);
void gt_record_release(gt_record *r);

/* A streaming reader of NDJSON records from a FILE (gzip detected by its
 * magic and read through zlib). Lines longer than max_line bytes are
 * skipped with GT_ETOOLONG without being held in memory. */
typedef struct gt_record_reader gt_record_reader;
/* gt_record_reader_new: reads from f (not closed by the reader); name is
 * used in messages. Returns a new reader owned by the caller. */
gt_record_reader *gt_record_reader_new(FILE *f, const char *name, size_t max_line);
void gt_record_reader_free(gt_record_reader *rd);
/* gt_record_read_line: the next raw line (without newline) in *line
 * (borrowed, valid until the next call) and its length; returns 1 for a
 * line, 0 at the end, or a negative gt_err (GT_ETOOLONG for an over-long
 * line, which is skipped; GT_EIO/GT_EFORMAT for a truncated or corrupt
 * gzip stream, after which the reader is at its end). e->line is the line
 * number. */
int gt_record_read_line(gt_record_reader *rd, const char **line, size_t *len, gt_error *e);

/* gt_record_parse: parse one JSON line into r (released first). Checks
 * types and shapes only (not Go legality: that is the validator's replay).
 * Returns 0 or GT_EFORMAT with e->text naming the field (e->line is left
 * as the caller set it; e->offset is the byte of a JSON syntax error). */
int gt_record_parse(gt_record *r, const char *line, size_t len, gt_error *e);

/* gt_record_parse_ex: gt_record_parse, and *reason (if not NULL) gets a
 * static reason code for a failure (gt-validate(1) lists them): "json",
 * "utf8", "nonfinite", "nesting", "version", "field", "rules",
 * "board-size", "length", "move", "setup", "colors", "result", "policy",
 * "ownership", "board", "positions". Fields read before the failure
 * (model, worker, game_id) stay filled so that a caller can report them.
 * After a successful parse, colors is always filled (alternating from
 * first_to_move unless the line had "colors"), missing position values
 * and scores are NAN, and a missing game score is NAN.
 * Lines are parsed with jansson (json_loadb, JSON_REJECT_DUPLICATES);
 * e->offset of a syntax error is its json_error_t.position. */
int gt_record_parse_ex(gt_record *r, const char *line, size_t len, gt_error *e,
                       const char **reason);

/* gt_record_format: r as one compact JSON line with newline, in a new
 * NUL-terminated string (caller frees) of *len bytes. Returns NULL (with e
 * filled) for a record that cannot be written: a board size out of range, a
 * move off the board, a non-finite float, a string that is not UTF-8.
 * Floats are written with 7 significant digits, integral ones as JSON
 * integers (jansson, JSON_REAL_PRECISION(7)). */
char *gt_record_format(const gt_record *r, size_t *len, gt_error *e);

/* gt_record_sym: apply symmetry k (lib/sym.h) in place to moves, setup
 * stones, boards, policies (the pass entry stays last) and ownership;
 * r->symmetry becomes the composition. Scores, values and komi unchanged. */
void gt_record_sym(gt_record *r, int k);

/* gt_record_sym_compose: the symmetry c with sym(c, p) == sym(b, sym(a, p)). */
int gt_record_sym_compose(int a, int b);

/* gt_winner_str / gt_winner_parse: "B", "W", "draw", "?" and back
 * (GT_EFORMAT for anything else). */
const char *gt_winner_str(int winner);
int gt_winner_parse(const char *s);

/* gt_record_write: write r as one compact JSON line (with newline) to f.
 * Floats round-trip to within 1e-6. colors may be NULL (moves alternate
 * from first_to_move); NAN position values and scores and a NAN game score
 * are left out; every position's weight is written unless it is 1. Returns 0, GT_EIO, or GT_EINVAL for
 * a record gt_record_format refuses (nothing is written then). */
int gt_record_write(const gt_record *r, FILE *f);

#endif
