/*
 * score.h: the end of a game: which stones are dead, and the score that
 * agrees with it (gt-gtp's final_status_list and final_score, the cleanup
 * of kgs-genmove_cleanup).
 *
 * Dead stones are judged from an ownership map (+1 Black owns the point,
 * -1 White, Black's view): the stones of a group are dead when their mean
 * ownership, from the group's colour's view, is below -0.3 (the opponent
 * owns their points more often than not), alive above +0.3, and in seki
 * (or unsettled) in between. The map comes from the network's ownership averaged over a
 * short search (KataGo's way, see lib/engine) where that is decisive for
 * a group, and else from light Monte-Carlo playouts (the way of the
 * classic engines, e.g. Pachi: light local replies and random moves,
 * gt_score_playouts), played to two passes and scored by area. On a finished board a playout kills a
 * dead group (its owner cannot make two eyes in the opponent's area),
 * never a group with two real eyes, and a seki group about half the time,
 * so the playouts alone separate the three without a network; a network
 * that is sure (a group's mean beyond +-0.5) overrules them (big eye
 * spaces, seki, unsettled shapes). The playouts' weakness is an open area
 * with room to live in: stones that cannot live there against good play
 * may live in random play. Measured on 10 finished GNU Go level-1 games
 * on 9x9 (4 in tests/unit/gtpclient): gt_score_final with these dead
 * stones equals GNU Go's final_score (--chinese-rules) in 8; the two
 * others were left unsettled in Black's or White's open area.
 */
#ifndef GT_SCORE_H
#define GT_SCORE_H
#include <stdint.h>
#include "board.h"

/* Status of a point (gt_score_status). */
enum { GT_STATUS_NONE = 0, GT_STATUS_ALIVE = 1, GT_STATUS_DEAD = 2, GT_STATUS_SEKI = 3 };

/* gt_score_board_from: dst = a board with src's stones as its setup
 * position, src's size, rules, komi, side to move and prisoners
 * (captures), and no moves (so no ko ban, no superko history and no
 * passes). Used where a finished game
 * goes on (GTP allows moves after two passes) and to start playouts.
 * Returns 0 or gt_board_setup's error. */
int gt_score_board_from(gt_board *dst, const gt_board *src);

/* gt_score_play_on: gt_board_play, but a game that has ended (two passes,
 * or a full history) goes on from gt_score_board_from of its position.
 * b is unchanged on failure. Returns 0 or gt_board_play's error. */
int gt_score_play_on(gt_board *b, int color, int pt);

/* gt_score_playouts: own[n*n] = the mean final area ownership (Black's
 * view, in [-1, 1]) of k playouts from b, each at most 3*n*n moves, drawn
 * from seed (the same arguments give the same map). A playout move: a
 * capture of a group in atari at or next to the last move, else the escape
 * of one's own group in atari there, else a random liberty of the last
 * move's group (a contact reply), else a random point; never one's own
 * single-point eye nor a self-atari of two or more stones; a pass when
 * nothing is left.
 * Returns 0 or GT_EINVAL for k < 1. */
int gt_score_playouts(const gt_board *b, int k, uint64_t seed, float *own);

/* gt_score_default_playouts: the playouts gt uses on an n x n board:
 * 40000 / n^2, at least 64 (493 on 9x9, 110 on 19x19). */
int gt_score_default_playouts(int n);

/* gt_score_status: status[n*n] from own[n*n] (Black's view): NONE on empty
 * points, and for every stone its group's status by the thresholds above;
 * with fallback (may be NULL; n*n, Black's view), a group whose mean in
 * own is within +-0.5 (own not decisive) takes its status from fallback. */
void gt_score_status(const gt_board *b, const float *own, const float *fallback,
                     uint8_t *status);

/* gt_score_final: the score of b by its rules (Black's view, komi
 * included) with the stones marked GT_STATUS_DEAD dead (status NULL:
 * every stone alive). Area rules: a dead stone counts as a stone of the
 * other colour (removed and its point given to the capturer), and
 * own[n*n] (may be NULL) is the resulting area ownership
 * (gt_board_area's). Territory rules: gt_board_territory with those dead
 * stones (prisoners, territory, no seki point counted), own its map. */
double gt_score_final(const gt_board *b, const uint8_t *status, float *own);

#endif
