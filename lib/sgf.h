/*
 * sgf.h: reading and writing Go game records in SGF (FF[3] and FF[4]).
 *
 * The reader takes a whole collection from memory (gt_sgf_parse) or a file
 * (gt_sgf_read_file) and returns one gt_sgf_game per game tree. Only the
 * main line is kept: the first variation at each branch. Each game carries
 * its own error: a bad game is reported (gt_sgf_game.err and .error: the
 * 1-based line and the byte offset in the input, and a text that starts
 * "game K:") and the other games still come out. The library does not know
 * file names: a caller prefixes them.
 *
 * What the reader accepts and how it interprets values (for the man page):
 *
 * - Syntax: whitespace (CR, LF, CRLF, tabs) between tokens; empty nodes
 *   ";;"; escapes "\]" "\\" (a backslash makes the next byte literal); a soft
 *   line break (backslash then LF, CR, CRLF or LFCR) is removed from text;
 *   FF[3] property names with lowercase letters use their uppercase letters
 *   ("CoPyright" is CP). Bytes before the first "(;" and between games are
 *   ignored. A variation whose first node has GM, FF or SZ is taken for
 *   the start of the next game (the game before it lacks its ')'). After a
 *   syntax error (an unterminated value, a missing ')', a stray byte) the
 *   game is reported and reading resumes from the error at the next "(;"
 *   whose first node has GM, FF or SZ; from then on every game must start
 *   that way (so stray variations of the broken game never pass for
 *   games). An unterminated value takes the rest of the input with it.
 *   Reading stays linear in the input whatever it holds.
 * - Board: SZ[N] with N 2..19; SZ missing means 19; SZ[c:r] with c == r is
 *   N, with c != r GT_EUNSUPPORTED "unsupported board size CxR"; any other
 *   size GT_EUNSUPPORTED, a value that is not a number GT_EFORMAT.
 * - Points: two lowercase letters, column then row, "aa" the top-left point,
 *   index y*N + x (y from the top). A move B[] or W[] is a pass, and so is
 *   B[tt]/W[tt] (every supported size is at most 19). Any other point off the
 *   board is GT_EOFFBOARD (so "ss" on 18x18). Whitespace around a point
 *   is ignored (FF[3] files break lines inside values). Setup lists (AB,
 *   AW, AE) take compressed rectangles "aa:cc" (either corner order); the
 *   last of AB/AW/AE for a point wins. Setup properties
 *   are honoured in every node before the first move; after a move they are
 *   GT_EUNSUPPORTED. A node with both B and W, or a move with several
 *   values, is GT_EFORMAT.
 * - Moves: the colour of each move is as written; consecutive moves by one
 *   colour are kept (the replay plays them as written).
 * - First player: PL if given before the first move, else the colour of the
 *   first move, else White when there is a handicap, else Black.
 * - Komi (KM): a decimal number, KM[] or no KM is 0; anything else is
 *   GT_EFORMAT. Values written times 50 are recognised and divided by 50:
 *   (a) when AP starts with "Foxwq" (any case) and |KM| >= 10, or
 *   (b) for any application when |KM| >= 100 and KM is a multiple of 25
 *   (KM[375] is 7.5; no real komi is that large). Then a komi with a
 *   quarter point (x.25, x.75) is moved to the half point between the two
 *   integers (6.25 and 6.75 are 6.5, 3.75 is 3.5, -3.75 is -3.5), keeping
 *   the no-draw intent of a fractional komi; any other value is rounded to
 *   the nearest multiple of 0.5. |komi| > 1000 after this is GT_EUNSUPPORTED.
 * - Handicap: HA[h] with h >= 2 gives the number of black setup stones
 *   actually placed (AB), or h when there are none (stones to be played as
 *   moves); otherwise 0 (setup stones without HA are a position, not a
 *   handicap). HA that is not an integer is GT_EFORMAT.
 * - Result (RE): "0", "Draw", "Jigo", "D" are a draw; "Void" no result; "?"
 *   or anything unrecognised unknown; "B+"/"W+" followed by a number (score,
 *   with that margin), "R" alone or before a non-letter ("B+R (150
 *   moves)") or "Resign" (resignation), "T"/"Time", "F"/"Forfeit", or
 *   nothing or anything else (winner known, method unknown); letters in
 *   any case, surrounding blanks ignored. The raw RE text is kept among
 *   the properties.
 * - Game information (PB, PW, DT, EV, RU, KM, RE, ...): every property of
 *   the root node, and the game-information properties (FF[4] list) of later
 *   main-line nodes, are kept as raw bytes after unescaping (no charset
 *   conversion; bytes that are not UTF-8 are never an error); the first
 *   occurrence of a name wins.
 */
#ifndef GT_SGF_H
#define GT_SGF_H
#include <stdint.h>
#include <stdio.h>

#include "board.h"
#include "gt.h"

/* Winner of a game (gt_sgf_game.winner): GT_WIN_* in gt.h. */
/* How the game was won (gt_sgf_game.method). */
enum { GT_BY_UNKNOWN = 0, GT_BY_SCORE, GT_BY_RESIGN, GT_BY_TIME, GT_BY_FORFEIT };

typedef struct gt_sgf_move {
	int color;     /* GT_BLACK or GT_WHITE, as written */
	int pt;        /* point y*n+x, or GT_PASS(n) */
	long offset;   /* byte offset of the move's node (its ';'), -1 if built */
	long line;     /* 1-based line of that node, -1 if built */
	char *comment; /* C[] written after the move (gt_sgf_set_comment), owned;
	                  NULL: none (the reader keeps none) */
} gt_sgf_move;

typedef struct gt_sgf_prop {
	char id[16];   /* property name, uppercase letters only, e.g. "PB" */
	char *val;     /* first value, unescaped, NUL-terminated (may hold NULs) */
	size_t len;    /* bytes in val */
} gt_sgf_prop;

/* One game. All pointers are owned by the game (gt_sgf_game_release). */
typedef struct gt_sgf_game {
	int index;             /* 1-based game number in its collection */
	long offset;           /* byte offset of the game's '(' (-1 if built) */
	long end;              /* byte offset just after its ')' (-1 if built or
	                          bad): the game's own bytes are [offset, end) */
	int err;               /* 0, or why this game could not be read (gt_err) */
	gt_error error;        /* if err: line, offset and "game K, ...: reason" */
	int size;              /* board size, 2..19 */
	double komi;           /* see the rules above */
	int handicap;          /* see the rules above */
	int first;             /* GT_BLACK or GT_WHITE: who moves first after setup */
	int nblack, nwhite;    /* setup stones */
	int16_t *black, *white; /* setup points in increasing point order */
	int nmoves;
	gt_sgf_move *moves;    /* the main line, nmoves entries */
	int winner;            /* GT_WIN_* */
	int method;            /* GT_BY_* */
	int has_margin;        /* 1 if RE gave a number */
	double margin;         /* winner's margin in points if has_margin */
	int nprops;
	gt_sgf_prop *props;    /* game information, raw */
	int cap_moves, cap_props, cap_black, cap_white; /* allocation sizes */
} gt_sgf_game;

/* gt_sgf_parse: read every game of the SGF collection buf[0..len). On
 * return *games is a new array of *ngames games (free with gt_sgf_free),
 * bad games included with their err set. Returns 0 when at least one game
 * tree was found; GT_EFORMAT (err filled, *games NULL, *ngames 0) when
 * there is none. */
int gt_sgf_parse(const char *buf, size_t len, gt_sgf_game **games, int *ngames,
                 gt_error *err);

/* A reader of the games of one collection, one game at a time, so that
 * memory holds the input and one game, not every game of it. */
typedef struct gt_sgf_reader gt_sgf_reader;
/* gt_sgf_reader_new: a reader of buf[0..len) (borrowed: it must outlive
 * the reader). Free with gt_sgf_reader_free. */
gt_sgf_reader *gt_sgf_reader_new(const char *buf, size_t len);
/* gt_sgf_reader_next: the next game tree into g (initialised here; the
 * caller releases it with gt_sgf_game_release), exactly as gt_sgf_parse
 * gives it, a bad game with its err set. Returns 1, or 0 when there is no
 * further game (g untouched). Linear in the input over all calls. */
int gt_sgf_reader_next(gt_sgf_reader *it, gt_sgf_game *g);
void gt_sgf_reader_free(gt_sgf_reader *it);

/* gt_sgf_read_file: gt_sgf_parse on the contents of path ("-" is stdin).
 * GT_EIO (errno kept, err names the file) when it cannot be read. */
int gt_sgf_read_file(const char *path, gt_sgf_game **games, int *ngames, gt_error *err);

/* gt_sgf_free: release n games and the array itself (NULL is fine). */
void gt_sgf_free(gt_sgf_game *games, int n);

/* gt_sgf_game_init: an empty game to build by hand for the writer: size n,
 * komi 0, Black first, result unknown, index 1. Release with
 * gt_sgf_game_release. Returns 0 or GT_EUNSUPPORTED for n out of 2..19. */
int gt_sgf_game_init(gt_sgf_game *g, int n);
/* gt_sgf_game_release: free what g owns (not g itself); g is zeroed. */
void gt_sgf_game_release(gt_sgf_game *g);
/* gt_sgf_add_move: append a move (pt a point or GT_PASS(n)). Returns 0 or
 * GT_EINVAL for a bad colour, GT_EOFFBOARD for a bad point. */
int gt_sgf_add_move(gt_sgf_game *g, int color, int pt);
/* gt_sgf_set_comment: the comment of move i (written as C[text] in its
 * node; copied, replaces an earlier one; NULL removes it). Returns 0 or
 * GT_EINVAL for a move out of range. */
int gt_sgf_set_comment(gt_sgf_game *g, int i, const char *text);
/* gt_sgf_add_setup: place (color GT_BLACK/GT_WHITE) or remove (GT_EMPTY) a
 * setup stone; keeps the lists sorted. Returns 0, GT_EINVAL, GT_EOFFBOARD. */
int gt_sgf_add_setup(gt_sgf_game *g, int color, int pt);
/* gt_sgf_prop_set: set game information id (uppercase, < 16 bytes) to the
 * len bytes at val (copied; replaces an earlier value). GT_EINVAL for a bad
 * id. The writer derives SZ KM HA RE PL AB AW from the struct fields, not
 * from these properties. */
int gt_sgf_prop_set(gt_sgf_game *g, const char *id, const char *val, size_t len);
/* gt_sgf_prop_get: the value of property id (borrowed, NUL-terminated), or
 * NULL if the game has none. */
const char *gt_sgf_prop_get(const gt_sgf_game *g, const char *id);

/* gt_sgf_result_parse: set winner, method, has_margin and margin of g from
 * an RE text such as "W+4.5" or "B+R" (the rules above; never fails: what
 * is not recognised is an unknown result). The RE property is not changed. */
void gt_sgf_result_parse(gt_sgf_game *g, const char *re);

/* gt_sgf_result_str: the result in SGF form from winner/method/margin
 * ("B+R", "W+3.5", "B+T", "B+F", "B+", "0", "Void", "?") into buf (32
 * bytes). Returns buf. */
char *gt_sgf_result_str(const gt_sgf_game *g, char *buf);

/* gt_sgf_point_str: SGF point of pt on an n board ("pd"; "" for a pass)
 * into buf (3 bytes). Returns buf. */
char *gt_sgf_point_str(int n, int pt, char *buf);
/* gt_sgf_point_parse: SGF point s[0..len) on an n board to a point index,
 * GT_PASS(n) for "" and "tt" (n <= 19). Returns GT_EOFFBOARD for a point
 * off the board, GT_EFORMAT for anything that is not a point. */
int gt_sgf_point_parse(int n, const char *s, size_t len);

/* gt_sgf_write_str: the game as FF[4] SGF text: GM FF CA AP SZ KM RU HA
 * PB PW and the other kept game information, RE (from the result fields,
 * omitted when unknown), AB AW PL (PL when there are setup stones or White
 * moves first), then the moves (with their comments, C), a pass always as
 * "[]", text escaped.
 * CA[UTF-8] is written when every text value is valid UTF-8; otherwise
 * the game's own CA is copied, or none is written. Returns a new
 * NUL-terminated string (free()) and its length in *len (if not NULL). */
char *gt_sgf_write_str(const gt_sgf_game *g, size_t *len);
/* gt_sgf_write: gt_sgf_write_str to f. Returns 0 or GT_EIO. */
int gt_sgf_write(FILE *f, const gt_sgf_game *g);

/* gt_sgf_replay: set b up as g's start position (size, komi, setup stones,
 * first player) under rules and play its moves, each by the colour written
 * (when one colour moves twice in a row, the simple-ko ban of the missing
 * reply is lifted; positional superko still applies).
 * *nplayed (if not NULL) gets the number of moves played, so a failing
 * move is g->moves[*nplayed] (move number *nplayed + 1). Returns 0 when
 * every move was legal; else the gt_err of the first illegal move (from
 * gt_board_play: GT_EOCCUPIED, GT_ESUICIDE, GT_ESUPERKO, ...) or of a bad
 * setup stone, with b left at the position before it and err filled: line
 * and offset of the move's node and text "game K, move M (W di): point
 * occupied" (M 1-based, reason from gt_strerror). A game that did not parse
 * returns its own err and error. */
int gt_sgf_replay(const gt_sgf_game *g, const gt_rules *rules, gt_board *b,
                  int *nplayed, gt_error *err);

#endif
