/*
 * feat.h: the network's input encoding of a position (man5 gt-model,
 * "INPUT FEATURES"). Version GT_FEAT_VERSION; a model file records the
 * version it was trained with and gt refuses to mix them.
 *
 * Spatial planes, GT_FEAT_PLANES x n x n float32 (0 or 1), for any board
 * size 2..19, everything from the side to move's view:
 *    0 on board (all 1; kept so that a padded 19x19 batch can mask)
 *    1 own stones                2 opponent stones
 *    3 own stones in groups with 1 liberty   4 with 2   5 with 3 or more
 *    6 opponent stones, 1 liberty            7 with 2   8 with 3 or more
 *    9 the simple-ko ban point (b->ko)
 *   10..14 the last 5 moves: plane 10+k holds the stone of the move k+1
 *          moves ago (nothing for a pass or when there is no such move)
 * Global inputs, GT_FEAT_GLOBALS float32:
 *    0 komi from the side to move's view / 20 (White's komi is +, Black's -)
 *    1..5 the move k = 1..5 moves ago was a pass
 *    6..8 ruleset one-hot by rules->id (GT_NRULES = 3)
 *    9 rules->ko is positional or situational superko
 *   10 rules->multi_suicide
 * A territory ruleset (japanese) is shown as chinese (6..10): gt's
 * networks are trained by area only, so their value and score are area's.
 */
#ifndef GT_FEAT_H
#define GT_FEAT_H
#include "board.h"

#define GT_FEAT_VERSION 1
#define GT_FEAT_PLANES 15
#define GT_FEAT_GLOBALS 11
#define GT_FEAT_HISTORY 5

/* gt_feat_encode: write the planes of b into planes (GT_FEAT_PLANES *
 * n * n floats, plane-major: planes[c*n*n + p]) and the global inputs into
 * globals (GT_FEAT_GLOBALS floats). Either pointer may be NULL to skip
 * that part. Caller owns both arrays. Returns 0, or GT_EINVAL for a board
 * whose size is out of 2..19 or has no rules. */
int gt_feat_encode(const gt_board *b, float *planes, float *globals);

/* gt_feat_encode_sym: the same, with every spatial plane mapped by
 * symmetry k (lib/sym.h): out[c][sym(k, p)] = in[c][p], which equals the
 * encoding of the transformed position. Globals do not depend on k. */
int gt_feat_encode_sym(const gt_board *b, int k, float *planes, float *globals);

/* gt_feat_buf: an evaluator's input planes and globals for a batch of
 * positions, grown to the largest batch and board size asked for (never
 * shrunk). Start zeroed; gt_feat_buf_fit before each batch; free the
 * arrays with gt_feat_buf_release. Any encoding (planes and globals a
 * position given by the caller: GT_FEAT_ or GT_KATAFEAT_ sizes). */
typedef struct gt_feat_buf {
	float *planes;  /* [cap_pos][nplanes][cap_n * cap_n] at most (owned) */
	float *globals; /* [cap_pos][nglobals] (owned) */
	int cap_pos;    /* positions' worth of room (at the largest n seen) */
	int cap_n;
} gt_feat_buf;

/* gt_feat_buf_fit: room for nb positions of n x n, with nplanes planes and
 * nglobals globals each (the same on every call for one buffer). */
void gt_feat_buf_fit(gt_feat_buf *fb, int nb, int n, int nplanes, int nglobals);
void gt_feat_buf_release(gt_feat_buf *fb);

#endif
