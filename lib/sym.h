/*
 * sym.h: the 8 symmetries of the square board (the dihedral group D4),
 * shared by gt-augment, the features and the trainer.
 *
 * Symmetry k in 0..7 maps (x, y) as follows, x column from the left, y row
 * from the top, m = n-1:
 *   0 identity (x, y)        4 transpose      (y, x)
 *   1 rotate 90 clockwise    (m-y, x)         5 flip left-right (m-x, y)
 *   2 rotate 180             (m-x, m-y)       6 anti-transpose  (m-y, m-x)
 *   3 rotate 270 clockwise   (y, m-x)         7 flip top-bottom (x, m-y)
 * The pass move GT_PASS(n) maps to itself.
 */
#ifndef GT_SYM_H
#define GT_SYM_H

#define GT_NSYM 8

/* gt_sym_point: image of point pt (or pass) under symmetry k on an n board. */
int gt_sym_point(int n, int k, int pt);
/* gt_sym_inverse: the symmetry j with gt_sym_point(n, j, gt_sym_point(n, k, p)) == p. */
int gt_sym_inverse(int k);
/* gt_sym_apply_f: dst[sym(p)] = src[p] for the n*n points of one plane
 * (float); dst and src must not overlap. */
void gt_sym_apply_f(int n, int k, float *dst, const float *src);

#endif
