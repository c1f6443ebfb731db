/*
 * board.h: the Go rules engine (gt(7) "Go").
 *
 * Points are indexed i = y*n + x with x the column from the left and y the
 * row from the TOP, so GTP A19 on 19x19 is 0; the pass move is n*n
 * (GT_PASS(n)). The board is a plain fixed-size struct: search copies it with
 * gt_board_copy() (or memcpy of the whole struct).
 *
 * Groups are circular lists of stones with a root point; each root keeps its
 * stone count and its pseudo-liberties (the number of stone/empty adjacencies,
 * counted with multiplicity) with the sum and the sum of squares of those
 * liberty points, all updated incrementally as stones are placed and
 * captured (the libego/GNU Go "lib_sum" technique): a group has no liberty
 * iff its pseudo-liberty count is 0, and exactly one distinct liberty iff
 * plibs * sum2 == sum * sum. The exact liberty count is computed on demand
 * (gt_board_liberties) for the features.
 *
 * Superko keeps a history of Zobrist hashes of every position of the game;
 * a hash match is confirmed by rebuilding that position from the stored
 * setup and moves and comparing the whole board, so a hash collision can
 * never forbid a legal move.
 */
#ifndef GT_BOARD_H
#define GT_BOARD_H
#include <stdint.h>

#define GT_MAX_N 19
#define GT_MAX_PTS (GT_MAX_N * GT_MAX_N)
#define GT_PASS(n) ((n) * (n))
#define GT_MAX_HIST 1600 /* moves a board can hold (history for superko) */

enum { GT_EMPTY = 0, GT_BLACK = 1, GT_WHITE = 2 };
#define GT_OTHER(c) (3 - (c))

/* Ko rule of a ruleset. */
enum { GT_KO_SIMPLE = 0, GT_KO_POSITIONAL = 1, GT_KO_SITUATIONAL = 2 };
/* Scoring of a ruleset: area (stones and surrounded points, Chinese,
 * Tromp-Taylor) or territory (surrounded points and prisoners, Japanese
 * and Korean). */
enum { GT_SCORE_AREA = 0, GT_SCORE_TERRITORY = 1 };

/* A ruleset is data: the engine's callers never branch on its name. */
typedef struct gt_rules {
	const char *name;       /* "tromp-taylor", "chinese", "new-zealand", "japanese" */
	int id;                 /* index in the table, 0..GT_NRULES-1 (a network input) */
	int ko;                 /* GT_KO_* */
	int multi_suicide;      /* 1: multi-stone suicide is legal (single-stone never is) */
	int scoring;            /* GT_SCORE_* */
} gt_rules;
#define GT_NRULES 3     /* the area rulesets: self-play, records, training */
#define GT_NRULES_ALL 4 /* and the territory ruleset of play and analysis */

/* gt_rules_find: the area ruleset of that name (case-insensitive;
 * "chinese-ogs" is an alias of "chinese", "tromp_taylor" of
 * "tromp-taylor"), or NULL for an unknown name or a territory ruleset
 * (self-play and records are scored by area only). Static storage. */
const gt_rules *gt_rules_find(const char *name);
/* gt_rules_find_play: gt_rules_find, or the territory ruleset of play and
 * analysis: "japanese" (KataGo's japanese: simple ko, no suicide,
 * territory scoring, seki points not counted), "korean" its alias (as in
 * KataGo). NULL for an unknown name. Static storage. */
const gt_rules *gt_rules_find_play(const char *name);
/* gt_rules_get: the ruleset with that id (0..GT_NRULES_ALL-1), or NULL. */
const gt_rules *gt_rules_get(int id);

typedef struct gt_board {
	int n;                        /* board size, 2..19 */
	int npts;                     /* n*n */
	const gt_rules *rules;
	double komi;                  /* added to White's score */
	int to_move;                  /* GT_BLACK or GT_WHITE */
	int ko;                       /* point the side to move may not take back (simple ko), or -1 */
	int passes;                   /* consecutive passes at the end of the history */
	int nmoves;                   /* moves played (passes included) since setup */
	int max_moves;                /* move cap (0: GT_MAX_HIST) */
	int captures[3];              /* stones captured BY colour [GT_BLACK], [GT_WHITE] */
	int nstones[3];               /* stones on the board per colour */
	uint64_t hash;                /* Zobrist hash of the stones (not the side to move) */
	uint8_t color[GT_MAX_PTS];    /* GT_EMPTY, GT_BLACK, GT_WHITE */
	int16_t root[GT_MAX_PTS];     /* group root of a stone; -1 on empty points */
	int16_t next[GT_MAX_PTS];     /* next stone of the same group (circular) */
	int16_t gsize[GT_MAX_PTS];    /* at a root: stones in the group */
	int16_t plibs[GT_MAX_PTS];    /* at a root: pseudo-liberties */
	int32_t lsum[GT_MAX_PTS];     /* at a root: sum of pseudo-liberty points */
	int64_t lsum2[GT_MAX_PTS];    /* at a root: sum of their squares */
	int nempty;                   /* empty points, listed in empty[0..nempty) */
	int16_t empty[GT_MAX_PTS];    /* the empty points, in no particular order */
	int16_t empty_at[GT_MAX_PTS]; /* index of an empty point in empty[] */
	uint64_t seen[64];            /* 4096-bit filter of history hashes: a clear
	                                 bit proves a position is new */
	/* history: the setup position, then every move and the hash after it */
	uint8_t setup[GT_MAX_PTS];
	int setup_to_move;
	uint64_t hist_hash[GT_MAX_HIST + 1]; /* [0] setup, [k] after move k */
	uint8_t hist_to_move[GT_MAX_HIST + 1];
	int16_t hist_move[GT_MAX_HIST];      /* point or pass */
	uint8_t hist_color[GT_MAX_HIST];
} gt_board;

/* gt_board_init: an empty n x n board (2..19), Black to move. Returns 0,
 * or GT_EUNSUPPORTED for a size out of range, GT_EINVAL for NULL rules. */
int gt_board_init(gt_board *b, int n, const gt_rules *rules, double komi);

/* gt_board_copy: dst = src, copying only the used part of the history. */
void gt_board_copy(gt_board *dst, const gt_board *src);

/* gt_board_setup: place a setup stone (handicap, AB/AW) before any move;
 * color GT_EMPTY removes one. Setup stones must not leave a group without
 * liberties. Returns 0, GT_EOFFBOARD, GT_EINVAL after moves were played or
 * when the stone would have no liberty. */
int gt_board_setup(gt_board *b, int color, int pt);
/* gt_board_set_to_move: who moves next (only before the first move, or to
 * record consecutive moves by one colour, as SGF allows). */
void gt_board_set_to_move(gt_board *b, int color);

/* gt_board_legal: 0 if color may play pt (a point or GT_PASS(n)) now, else
 * the reason: GT_EOFFBOARD, GT_EOCCUPIED, GT_ESUICIDE, GT_EKO,
 * GT_ESUPERKO, GT_EOVER. Does not change the board. */
int gt_board_legal(const gt_board *b, int color, int pt);

/* gt_board_play: play color at pt (a point or GT_PASS(n)); on success the
 * other colour is to move and 0 is returned; on failure the board is
 * unchanged and the reason of gt_board_legal (or GT_ETOOLONG when the
 * history is full) returned. */
int gt_board_play(gt_board *b, int color, int pt);

/* gt_board_play_legal: play a move that gt_board_legal has just accepted
 * for this colour on this very board (skips the second check; search and
 * playouts use it). Returns 0 or GT_ETOOLONG. */
int gt_board_play_legal(gt_board *b, int color, int pt);

/* gt_board_undo: take back the last move by replaying the game from the
 * setup (O(moves)); returns GT_EINVAL when there is nothing to undo. */
int gt_board_undo(gt_board *b);

/* gt_board_over: 1 after two consecutive passes or at the move cap. */
int gt_board_over(const gt_board *b);

/* gt_board_legal_moves: writes the legal points for color (passing is
 * always legal and NOT included) to moves[] (room for GT_MAX_PTS), returns
 * how many. */
int gt_board_legal_moves(const gt_board *b, int color, int16_t *moves);

/* gt_board_liberties: the exact number of distinct liberties of the group
 * at pt (0 for an empty point). */
int gt_board_liberties(const gt_board *b, int pt);

/* gt_board_area: area score, Black's stones and empty points reaching only
 * black minus White's, minus komi (Black's view, so W+7.5 is -7.5).
 * If own is not NULL it receives n*n values from Black's view: +1 black
 * stone or black area, -1 white, 0 dame or neutral. */
double gt_board_area(const gt_board *b, float *own);

/* gt_board_territory: the territory score (Japanese counting; Black's
 * view, komi included): Black's territory and prisoners minus White's,
 * minus komi. dead (may be NULL: no stone dead) marks with a non-zero
 * byte the stones judged dead; they are taken off first and counted as
 * the opponent's prisoners, with b->captures (stones captured in play).
 * Territory: an empty region, after that, bordered by one colour's stones
 * only, none of them in seki. Seki (the rule of the Japanese rules, as
 * KataGo's "tax SEKI" counts none of a seki's points): a group next to a
 * shared liberty that neither colour may fill without putting its own
 * stones in atari or capturing nothing by suicide; the points of the
 * regions such a group borders are no one's. own (may be NULL) gets n*n
 * values, Black's view: +1 black stone or territory (a dead white stone's
 * point in it too), -1 white, 0 dame and seki points. seki (may be NULL)
 * gets n*n bytes: 1 on the stones of groups in seki. */
double gt_board_territory(const gt_board *b, const uint8_t *dead, float *own, uint8_t *seki);

/* gt_board_score: the score of the finished position b by its rules,
 * every stone alive: gt_board_area for area rules, gt_board_territory
 * for territory rules (Black's view, komi included; own as theirs). */
double gt_board_score(const gt_board *b, float *own);

/* gt_board_check: recompute groups, pseudo-liberties and sums, stone counts
 * and the hash from scratch and compare with the incremental state; returns
 * 0 if they agree, else -1 (and describes the first difference in why, if
 * not NULL, up to 128 bytes). For tests and debug builds. */
int gt_board_check(const gt_board *b, char *why);

/* gt_board_print: ASCII diagram of the board into buf (size bytes), rows from
 * the top with GTP coordinates, X black, O white, . empty. Returns buf. */
char *gt_board_print(const gt_board *b, char *buf, int size);

/* gt_board_from_ascii: set up a position from rows of 'X' 'O' '.' (spaces
 * ignored, one string of n*n cells after ignoring whitespace and '|').
 * For tests. Returns 0 or GT_EFORMAT / GT_EINVAL. */
int gt_board_from_ascii(gt_board *b, int n, const gt_rules *rules, double komi,
                        const char *diagram, int to_move);

/* ---- coordinates ---- */

/* gt_vertex_str: GTP vertex of pt on an n board ("D4", "pass"), columns skip
 * I, row 1 at the bottom. buf needs 5 bytes. Returns buf. */
char *gt_vertex_str(int n, int pt, char *buf);
/* gt_vertex_parse: GTP vertex (case-insensitive, "pass") to a point index or
 * GT_PASS(n); returns GT_EOFFBOARD or GT_EFORMAT on bad input. */
int gt_vertex_parse(int n, const char *s);
/* gt_color_parse: "b"/"black"/"w"/"white" (case-insensitive) to a colour, or
 * GT_EINVAL. */
int gt_color_parse(const char *s);

#endif
