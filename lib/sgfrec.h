/*
 * sgfrec.h: SGF games (sgf.h) to game records (record.h) and back, for
 * gt-sgf(1), whose man page states these rules for users.
 *
 * SGF to record (gt_sgfrec_to_record):
 *
 * - Rules: the RU text names the ruleset the moves are replayed under and
 *   how the result was counted (gt_sgfrec_rules). The record's rules field
 *   gets the replay ruleset, sgf_rules the RU text as given (cut to 31
 *   bytes at a character boundary; control bytes become spaces and bytes
 *   that are not UTF-8 become '?', so that the record stays valid JSON).
 * - Setup stones, the first player and the colour of every move are kept
 *   (colors are written by the record writer only when moves do not
 *   alternate).
 * - Result: a draw is "0" with score 0; a win by a number of points is
 *   "B+m"/"W+m" with the game score +-m (Black's view); resignation, time,
 *   forfeit and an unstated method are "B+R", "B+T", "B+F", "B+" with no
 *   score; Void, "?", an unrecognised or missing RE are "?" (unknown).
 * - score_checkable is 1 only for a draw or a win by points counted by area
 *   (the RU is an area ruleset, or the caller forced a ruleset) in a game
 *   without handicap (HA): area rules compensate White for handicap stones,
 *   which the engine's area count does not. Everything else (resignation,
 *   time, forfeit, territory counting, rules unknown, handicap) is 0.
 * - Ownership: the engine's area ownership of the final position when the
 *   game ended by two consecutive passes; none otherwise.
 * - Positions: one per move, move_number i, to_move the colour of move i,
 *   policy one-hot on the move played (pass included), visits 0,
 *   full_search 1; value +1/-1/0 for the side to move when the winner is
 *   known, score (side to move's view) only when the game score is known;
 *   weight 1, or 0 for every position of a game whose result is unknown.
 * - model "human", worker "sgf"; game_id is left to the caller
 *   (gt_sgfrec_game_id).
 */
#ifndef GT_SGFREC_H
#define GT_SGFREC_H
#include <time.h>

#include "board.h"
#include "gt.h"
#include "record.h"
#include "sgf.h"

/* How the result of a ruleset is counted (gt_sgfrec_rules). */
enum { GT_COUNT_UNKNOWN = 0, GT_COUNT_AREA = 1, GT_COUNT_TERRITORY = 2 };

/* gt_sgfrec_rules: the supported ruleset closest to an SGF RU text (NULL
 * or "" for none) and how that text's games are counted. Matching ignores
 * case and every byte that is not a letter or digit:
 *   Chinese, CN, AGA, BGA (area)             chinese, area
 *   New Zealand, NZ, Ing, Goe, Ing SST (area) new-zealand, area
 *   Tromp-Taylor, TT                          tromp-taylor, area
 *   Japanese, JP, Korean, KR, KO (territory)  chinese, territory
 *   missing or anything else                  chinese, unknown
 * (prefixes "chinese", "aga", "newzealand", "ing", "tromptaylor",
 * "japan", "korea" suffice). Chinese is the closest supported ruleset for
 * territory rules too: no suicide, and positional superko in place of
 * simple ko. Returns GT_COUNT_*; *rules gets static storage. */
int gt_sgfrec_rules(const char *ru, const gt_rules **rules);

/* gt_sgfrec_play_rules: the ruleset gt-gtp and gt-analyze play a name or
 * RU text by: gt_rules_find_play's name (territory "japanese" included),
 * else gt_sgfrec_rules' ruleset, with "japanese" for a territory text
 * (Japanese, JP, Korean, KR, KO); NULL when neither knows the text. */
const gt_rules *gt_sgfrec_play_rules(const char *ru);

/* gt_sgfrec_katago_rules: the ruleset of KataGo's rules as JSON fields
 * (its rules page: scoring "AREA" or "TERRITORY", ko "SIMPLE",
 * "POSITIONAL" or "SITUATIONAL", tax (NULL: none given), suicide 1 or 0
 * (-1: missing), hasButton), matched on scoring, ko and suicide among
 * gt's rulesets: AREA with tax NONE, or TERRITORY with tax SEKI, and no
 * button (the handicap bonus and friendlyPassOk are not rules gt plays
 * by). NULL with *why a reason when gt has none. */
const gt_rules *gt_sgfrec_katago_rules(const char *scoring, const char *ko, const char *tax,
                                       int suicide, int button, const char **why);

/* gt_sgfrec_to_record: replay the good game g (g->err == 0) under rules
 * (NULL: from its RU by gt_sgfrec_rules; a given ruleset also makes a
 * numeric result count as area) and fill r (released first) by the rules
 * above. Returns 0; the game's own err (and error) when it did not parse;
 * the gt_sgf_replay error of an illegal move with err's text "game K, move
 * M (W di): point occupied"; GT_EUNSUPPORTED "game K: komi X out of range
 * for NxN" when |komi| > N*N (gt-record(5)). r is released on error. */
int gt_sgfrec_to_record(const gt_sgf_game *g, const gt_rules *rules, gt_record *r,
                        gt_error *err);

/* gt_sgfrec_from_record: g (initialised here; release with
 * gt_sgf_game_release) as the SGF game of record r: size, komi, setup (HA
 * is the number of black setup stones when there are at least 2 and no
 * white ones), first player, moves with their colours, RE from the result,
 * RU from sgf_rules or else rules, PB and PW from model (who played both
 * sides), US from worker, GN from game_id, and for each move whose
 * position carries the search's evaluation (root_value) a comment C of
 * gt_sgfrec_comment.
 * Returns 0 or GT_EINVAL (err filled) for a record with a board size or a
 * move out of range. */
int gt_sgfrec_from_record(const gt_record *r, gt_sgf_game *g, gt_error *err);

/* gt_sgfrec_comment: the comment of a move from its searched position p
 * (p->has_root) into buf (size bytes): "win rate B 54.3%, score lead
 * B+2.1, visits 100" -- Black's win rate and the leader, from the search
 * before the move (the side to move's values turned round when White
 * moved). */
void gt_sgfrec_comment(const gt_position *p, char *buf, size_t size);

/* gt_sgfrec_set_date: DT[YYYY-MM-DD] of time t, UTC. */
void gt_sgfrec_set_date(gt_sgf_game *g, time_t t);

/* gt_sgfrec_game_id: the game_id of game index (1-based) of an SGF file
 * whose own bytes (from its '(' to its ')', gt_sgf_game offset and end)
 * are buf[0..len): the SHA-256 of those bytes, a NUL byte and the index in
 * decimal, as 64 lowercase hex digits in out (65 bytes with the NUL); so
 * the ids of a file's games cost one pass over the file. Returns 0, or GT_ENOMEM when OpenSSL cannot allocate (out is
 * then ""). */
int gt_sgfrec_game_id(const char *buf, size_t len, int index, char *out);

#endif
