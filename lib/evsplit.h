/*
 * evsplit.h: one evaluator (mcts.h gt_evaluator) over k evaluators of the
 * same network, each on its own thread: a call's positions are cut into
 * up to k consecutive slices evaluated side by side, the outputs in the
 * caller's order. gt-analyze's --threads: its searches' leaves, collected
 * under virtual loss into one batch, are evaluated on several cores.
 *
 * A slice holds at least GT_EVSPLIT_MIN positions, so a small batch stays
 * on fewer threads (one for a batch below 2 * GT_EVSPLIT_MIN). The
 * outputs of a position depend on its slice only as they depend on the
 * batch anyway (gt_neteval_set_exact makes them independent of both). The
 * wrapper itself is called from one thread at a time, like the evaluators
 * it holds.
 */
#ifndef GT_EVSPLIT_H
#define GT_EVSPLIT_H
#include "mcts.h"

#define GT_EVSPLIT_MIN 1 /* fewest positions a thread is given */

/* gt_evsplit_wrap: replace evs[0] by an evaluator over evs[0..k-1] (taken:
 * gt_evaluator_close closes them all; evs[1..k-1] are cleared). raw() is
 * evs[0]'s. k <= 1 leaves evs[0] as it is. Returns 0. */
int gt_evsplit_wrap(gt_evaluator *evs, int k);

#endif
