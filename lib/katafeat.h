/*
 * katafeat.h: KataGo's input features of a gt position (KataGo's
 * "version 7" inputs, used by its model versions 8 to 16: KataGo's
 * cpp/neuralnet/nninputs.cpp fillRowV7), computed as KataGo computes them
 * so that KataGo's networks (nn/katago.h) see what they were trained on.
 *
 * Spatial planes, GT_KATAFEAT_PLANES x n x n (0 or 1), side to move's view:
 *    0 on board            1 own stones         2 opponent stones
 *    3,4,5 stones of groups with exactly 1, 2, 3 liberties
 *    6 the simple-ko ban point, and points banned by superko (not simple ko)
 *    7,8 encore bans (always 0: gt plays no encore)
 *    9..13 the moves 1..5 moves ago (alternating colours; a pass marks no point)
 *   14 stones in groups that a ladder captures (1 liberty: the defender
 *      moves first; 2 liberties: the attacker does), KataGo's ladder search
 *   15,16 the same on the position 1 and 2 moves ago
 *   17 for an opponent group of 2 liberties that a ladder captures, the
 *      attacker's working first moves
 *   18,19 own and opponent's area: pass-alive groups and territory
 *      (Benson), other stones, empty regions bordered by one colour only
 *      (area rules; 0 under territory rules, as KataGo before its second
 *      encore)
 *   20,21 second-encore stones (always 0)
 * Global inputs, GT_KATAFEAT_GLOBALS:
 *    0..4 the move 1..5 moves ago was a pass
 *    5 komi from the side to move's view / 20 (clipped to +-(n*n + 20));
 *      under territory rules with KataGo's whiteBonusScore added to
 *      White's komi: +1 for each black stone played since the setup, -1
 *      for each white one (moves before a game was resumed after two
 *      passes are not in gt's history and not counted)
 *    6,7 ko rule: simple 0,0; positional 1,0.5; situational 1,-0.5
 *    8 multi-stone suicide legal       9 territory scoring
 *   10 seki tax (territory rules: KataGo's japanese is TAX_SEKI), 11 (0)
 *   12,13 encore phase (0)
 *   14 a pass now would end the game (the last move was a pass)
 *   15,16 playout doubling advantage (0)   17 button (0)
 *   18 the komi-parity wave of area scoring (a triangle wave of the komi
 *      against the board's parity, KataGo's "komi wave"; 0 under
 *      territory rules)
 * Differences from KataGo, where gt's games differ: two passes always end
 * the game (KataGo's friendly-pass suppression is not modelled) and a
 * drawn game counts half (KataGo's drawEquivalentWinsForWhite 0.5).
 */
#ifndef GT_KATAFEAT_H
#define GT_KATAFEAT_H
#include "board.h"

#define GT_KATAFEAT_PLANES 22
#define GT_KATAFEAT_GLOBALS 19
#define GT_KATAFEAT_LADDER_BUDGET 25000 /* KataGo's node budget of one ladder search */

/* A workspace of gt_katafeat_encode (about 1 MB for 19x19), reused across
 * calls by one thread: new with gt_katafeat_ws_new, freed by _free. */
typedef struct gt_katafeat_ws gt_katafeat_ws;
gt_katafeat_ws *gt_katafeat_ws_new(void);
void gt_katafeat_ws_free(gt_katafeat_ws *ws);

/* gt_katafeat_encode: the planes of b into planes (GT_KATAFEAT_PLANES * n
 * * n floats, plane-major) and the globals into globals
 * (GT_KATAFEAT_GLOBALS floats), for the ko rule ko (GT_KO_*; -1: b's
 * rules') with at most max_history earlier moves shown (0..5; -1: 5, as
 * KataGo plays; KataGo's analysis engine shows none by default,
 * analysisIgnorePreRootHistory, and the planes 15 and 16 then repeat 14).
 * The ko rule is separate because KataGo's "chinese" is simple ko where
 * gt's is positional superko. Either array may be NULL. Returns 0 or
 * GT_EINVAL (no rules, bad size). ws: the ladder search's boards and
 * lists, kept between calls (NULL: allocated and freed in the call). */
int gt_katafeat_encode(const gt_board *b, int ko, int max_history, gt_katafeat_ws *ws,
                       float *planes, float *globals);

/* gt_katafeat_ladder: 1 when the group at pt (1 or 2 liberties) is captured
 * by a ladder as KataGo's search decides it (1 liberty: the defender moves
 * first; 2: the attacker does, and working (room for 2, may be NULL)
 * receives the attacker's first moves that work, *nworking their number);
 * 0 when not or pt is not such a stone. For tests. */
int gt_katafeat_ladder(const gt_board *b, int pt, int16_t *working, int *nworking);

/* gt_katafeat_area: KataGo's calculateArea with every option on (pass-
 * alive groups and territory, other stones, and empty regions bordered by
 * one colour) into area (n*n of GT_EMPTY, GT_BLACK, GT_WHITE); suicide:
 * multi-stone suicide legal when judging pass-alive regions. For tests. */
void gt_katafeat_area(const gt_board *b, int suicide, uint8_t *area);

#endif
