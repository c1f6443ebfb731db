/*
 * wino.h: 3x3 convolutions (stride 1, zero padding 1, cross-correlation as
 * in PyTorch and KataGo) by Winograd's minimal filtering F(4x4,3x3), for
 * the forward passes of the CPU networks (nn_cpu.c, katago.c); im2col +
 * sgemm stays the reference they are tested against (tests/unit/wino.c).
 *
 * Source of the transforms: A. Lavin and S. Gray, "Fast Algorithms for
 * Convolutional Neural Networks", CVPR 2016 (arXiv:1509.09308), section
 * 4.2, F(4x4,3x3) with the points 0, 1, -1, 2, -2 and infinity:
 *   Y = A^T [ (G g G^T) . (B^T d B) ] A     (. elementwise)
 * for a 6x6 input tile d, a 3x3 filter g and a 4x4 output tile Y, with
 *   B^T = [ 4  0 -5  0  1  0 ]   G = [  1/4    0     0   ]
 *         [ 0 -4 -4  1  1  0 ]       [ -1/6  -1/6  -1/6  ]
 *         [ 0  4 -4 -1  1  0 ]       [ -1/6   1/6  -1/6  ]
 *         [ 0 -2 -1  2  1  0 ]       [  1/24  1/12  1/6  ]
 *         [ 0  2 -1 -2  1  0 ]       [  1/24 -1/12  1/6  ]
 *         [ 0  4  0 -5  0  1 ]       [  0      0     1   ]
 *   A^T = [ 1  1  1  1  1  0 ]
 *         [ 0  1 -1  2 -2  0 ]
 *         [ 0  1  1  4  4  0 ]
 *         [ 0  1 -1  8 -8  1 ]
 * A board of n x n is covered by ceil(n/4)^2 tiles (the last row and
 * column of tiles padded with zeros and cropped); the 36 products of a
 * layer are 36 GEMMs (Cout x Cin) x (Cin x tiles), batched over boards
 * and tiles, in chunks of 64 tiles so that the transformed
 * data stays in cache. The transforms are vectorised over tiles.
 *
 * Accuracy: F(4x4,3x3) rounds more than a direct sum (the transforms have
 * entries up to 8 and fractions down to 1/24, and the error of an output
 * depends on its whole tile): against a direct convolution in double the
 * error measured is at most 9e-6 (1 to 3 input channels) and 3e-6 (16 to
 * 96) of sum |w||x| averaged over the output's tile, against 3.5e-7 for
 * im2col + sgemm (tests/unit/wino.c states the bound, 2e-5).
 */
#ifndef GT_WINO_H
#define GT_WINO_H
#include <stddef.h>

/* How 3x3 convolutions are computed (environment variable GT_CONV). */
enum {
	GT_CONV_AUTO = 0,     /* unset: Winograd where it is measured faster */
	GT_CONV_IM2COL = 1,   /* GT_CONV=im2col: always im2col + sgemm */
	GT_CONV_WINOGRAD = 2, /* GT_CONV=winograd: always Winograd (3x3 only) */
	GT_CONV_AUTO_BATCH = 3, /* not from GT_CONV: GT_CONV_AUTO by board and batch,
	                         * for callers whose outputs may depend on the
	                         * batch (gt_conv_batch_mode) */
	GT_CONV_ONEDNN = 4,   /* GT_CONV=onednn: oneDNN's convolutions (dnn.h) in
	                       * float32 forwards and weight gradients, gt's
	                       * im2col where oneDNN refuses a shape */
};
/* gt_conv_batch_mode: the mode to use instead of mode when a caller lets
 * outputs depend on the batch (gt-selfplay without --deterministic):
 * GT_CONV_AUTO becomes GT_CONV_AUTO_BATCH, the others stay. */
int gt_conv_batch_mode(int mode, int on);

/* gt_conv_mode_env: the mode GT_CONV asks for ("im2col", "winograd",
 * "onednn"; unset, empty or anything else: GT_CONV_AUTO). */
int gt_conv_mode_env(void);

/* gt_conv_winograd: 1 when the 3x3 convolutions of a forward of batch
 * positions on n x n boards (2..19) are to use Winograd under mode, 0
 * for im2col. GT_CONV_AUTO decides by the board alone, never by the
 * batch, so that one position gets the same outputs in any batch (a
 * switch of method changes them by a few 1e-6, enough to change a game):
 * Winograd on 14x14 to 19x19, where bench/wino measured it faster at
 * every batch (b6c96, one thread: 1.1 times at batch 1, 1.8 to 2.2 at
 * 16; gt-selfplay(1) PERFORMANCE); im2col below, where batch 1 is slower
 * by Winograd (0.55 to 0.65 on 9x9) though batches of 3 and more are
 * faster (1.4 to 1.6 at 16: GT_CONV=winograd). batch is used by
 * GT_CONV_AUTO_BATCH only, fitted to bench/wino's ratios over batch 1 to
 * 16 and boards 2 to 19: Winograd when batch (n^2 - 3.5 ceil(n/4)^2) >=
 * 140 (any batch on 14x14 and up, 2 positions on 11x11 to 13x13, 3 on
 * 8x8 to 10x10, 4 on 7x7). */
int gt_conv_winograd(int mode, int n, int batch);

/* gt_conv_winograd_auto: 1 when the automatic modes may choose Winograd at
 * all: only in a build whose vectors of 16 floats are one register
 * (-march=native on an AVX-512 CPU, where the rules above were fitted).
 * Elsewhere, the portable build included, the transforms run as two
 * AVX2 halves or worse and Winograd lost to im2col in every self-play
 * measured on a 2-core AMD EPYC with AVX2 (2026-12-03, one thread, CPU
 * seconds: b2c16 9x9 at 32 games in flight 10.9 against 5.5; b4c32 36.6
 * against 21.3; b6c96 195 against 139; KataGo's b6c96 9x9 at 16 26.7
 * against 22.6; gt's b6c96 19x19 at 8 21.5 against 20.1 and at 1 7.2
 * against 5.9), so the automatic modes choose im2col there; GT_CONV=winograd
 * still forces it. */
int gt_conv_winograd_auto(void);
/* (GT_CONV_ONEDNN: 0, gt's Winograd is not used) */

/* gt_conv_onednn: 1 when a float32 forward under mode takes oneDNN's
 * convolutions (dnn.h): GT_CONV_ONEDNN, and GT_CONV_AUTO_BATCH (the play
 * forwards of gt-selfplay, whose outputs may depend on the batch) where
 * oneDNN is built in and the CPU has AVX-512F, or AVX2 and FMA (cpuid at
 * run time): there oneDNN's own AVX-512 kernels beat gt's im2col by 2 to
 * 3 times in self-play (measured on a 2-core AMD EPYC, Zen 5 class,
 * 2026-12-05, gt-selfplay(1) PERFORMANCE), its AVX2 kernels by 1.1 to
 * 1.6 times (a Zen 3 EPYC, 2026-12-06: b6c96 networks on 9x9 and 19x19;
 * gt's Winograd was 1.1 times oneDNN on 19x19 with KataGo's network,
 * 1.0 with gt's, and slower than im2col on 9x9), and the training steps'
 * forwards and input gradients (their mode is GT_CONV_AUTO_BATCH too:
 * 1.6 times the samples per CPU-second there, gt-train(1)).
 * GT_CONV_AUTO stays gt's own (its outputs must not depend on the
 * batch). 0 elsewhere. */
int gt_conv_onednn(int mode);

/* gt_wino_filter_floats: floats of the transformed filters of a cout x
 * cin x 3 x 3 convolution (36 cout cin). */
size_t gt_wino_filter_floats(int cout, int cin);

/* gt_wino_filter: u (36 x cout x cin, u[xi][co][ci] with xi = 6 i + j)
 * = G w[co][ci] G^T of the PyTorch-order weights w (cout x cin x 3 x 3),
 * computed in double. */
void gt_wino_filter(const float *w, int cout, int cin, float *u);

/* gt_wino_scratch_floats: floats of scratch that gt_wino_conv needs for
 * up to cin input and cout output channels (any batch and board size). */
size_t gt_wino_scratch_floats(int cin, int cout);

/* One convolution: out = conv3x3(relu ? relu(in) : in; w) + bias, stored
 * (add 0) or added to out (add 1). Point (y, x) of channel c of board b
 * is in[b * in_b + c * in_c + y * n + x] (in_b, in_c are strides in
 * floats: NCHW is in_b = cin n^2, in_c = n^2; channel-major over the
 * batch is in_b = n^2, in_c = B n^2); likewise out. in and out must not
 * overlap. */
typedef struct gt_wino_conv_args {
	const float *u;       /* gt_wino_filter of the weights */
	int cin, cout, B, n;  /* channels, boards, board size 2..19 */
	const float *in;
	size_t in_b, in_c;
	int relu;
	const float *bias;    /* cout, or NULL */
	float *out;
	size_t out_b, out_c;
	int add;
	float *scratch;       /* gt_wino_scratch_floats(>= cin, >= cout) */
} gt_wino_conv_args;

void gt_wino_conv(const gt_wino_conv_args *a);

#endif
