/* wino: 3x3 convolutions by Winograd F(4x4,3x3) (lib/nn/wino.h) against a
 * direct convolution summed in double here (the independent reference),
 * with im2col + sgemm, the CPU backend's reference method, measured
 * against the same sums; then whole networks (a gt network and KataGo's
 * g170 b6c96) with GT_CONV=winograd against GT_CONV=im2col.
 *
 * Tolerance. Each output is a sum of 9 Cin products w x plus a bias, and
 * rounding error is judged against S = sum |w| |x| + |bias|, the scale of
 * a direct sum's error (a float sum errs by at most about 9 Cin u S,
 * u = 2^-24 = 6e-8, and typically by sqrt(9 Cin) u S or less).
 * F(4x4,3x3) transforms the 6x6 input tile with entries up to 5 (B^T), the
 * filter with fractions down to 1/24 (G) and the products with entries up
 * to 8 (A^T): the terms it sums are larger than the products w x and
 * cancel, and the error of one output depends on the whole tile (Barabasz
 * et al., "Error analysis and improving the accuracy of Winograd
 * convolution for deep neural networks", ACM TOMS 46(4), 2020). So S is
 * taken as the mean of S over the outputs of the output's 4x4 tile, and
 * the test allows |winograd - exact| <= 2e-5 S (about 340 u S); measured
 * here: at most 9e-6 S with 1 to 3 input channels, under 3e-6 S from 16
 * (errors average out over channels). im2col is held to 1e-6 S (measured
 * 3.5e-7 S). Whole networks agree within 1e-4 of max(1, |output|). */
#include "tap.h"
#include "nn_batch.h"
#include "nn.h"
#include "wino.h"
#include "dnn.h"
#include "conv_ref.h"
#include "optim.h"

#include <cblas.h>

static uint64_t rs = 2026;

/* im2col + sgemm per board (NCHW), as katago.c and nn_cpu.c do */
static void im2col_conv(const float *w, const float *bias, const float *x, int B, int cin,
                        int cout, int n, int relu, float *out)
{
	int N = n * n;
	float *col = malloc(sizeof(float) * 9 * cin * N);
	for (int b = 0; b < B; b++) {
		for (int ci = 0; ci < cin; ci++)
			for (int k = 0; k < 9; k++)
				for (int y = 0; y < n; y++)
					for (int xx = 0; xx < n; xx++) {
						int sy = y + k / 3 - 1, sx = xx + k % 3 - 1;
						float v = sy < 0 || sy >= n || sx < 0 || sx >= n ? 0.0f
						        : x[((size_t)b * cin + ci) * N + sy * n + sx];
						col[(size_t)(ci * 9 + k) * N + y * n + xx] = relu && v < 0 ? 0.0f : v;
					}
		float *o = out + (size_t)b * cout * N;
		for (int co = 0; co < cout; co++)
			for (int p = 0; p < N; p++)
				o[co * N + p] = bias[co];
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, cout, N, 9 * cin, 1.0f, w,
		            9 * cin, col, N, 1.0f, o, N);
	}
	free(col);
}

#define WINO_TOL 2e-5
#define IM2COL_TOL 1e-6

static double worst_wino, worst_im2col;

/* one shape: Winograd in both layouts (NCHW with add, channel-major over
 * the batch with store) and im2col, each against the double sums */
static void check_shape(int cin, int cout, int n, int B, int relu)
{
	int N = n * n;
	size_t nx = (size_t)B * cin * N, ny = (size_t)B * cout * N;
	float *w = malloc(sizeof(float) * cout * cin * 9), *bias = malloc(sizeof(float) * cout);
	float *x = malloc(sizeof(float) * nx), *xcm = malloc(sizeof(float) * nx);
	float *y1 = malloc(sizeof(float) * ny), *y2 = malloc(sizeof(float) * ny);
	float *y3 = malloc(sizeof(float) * ny), *pre = malloc(sizeof(float) * ny);
	double *ref = malloc(sizeof(double) * ny), *S = malloc(sizeof(double) * ny);
	float *u = malloc(sizeof(float) * gt_wino_filter_floats(cout, cin));
	float *scratch = malloc(sizeof(float) * gt_wino_scratch_floats(cin, cout));
	double ws = 1.0 / sqrt(9.0 * cin);
	for (int i = 0; i < cout * cin * 9; i++)
		w[i] = (float)(nn_randn(&rs) * ws);
	for (int i = 0; i < cout; i++)
		bias[i] = (float)(nn_rand(&rs) - 0.5);
	for (size_t i = 0; i < nx; i++)
		x[i] = (float)(nn_randn(&rs));
	for (size_t i = 0; i < ny; i++)
		pre[i] = (float)(nn_rand(&rs) * 2 - 1);
	/* channel-major copy: [ci][b*N + p] */
	for (int b = 0; b < B; b++)
		for (int ci = 0; ci < cin; ci++)
			memcpy(xcm + ((size_t)ci * B + b) * N, x + ((size_t)b * cin + ci) * N,
			       sizeof(float) * N);
	conv_direct(w, bias, x, B, cin, cout, 3, n, relu, ref, S);
	tile_mean(S, B * cout, n);
	gt_wino_filter(w, cout, cin, u);
	/* NCHW, added to pre */
	memcpy(y1, pre, sizeof(float) * ny);
	gt_wino_conv(&(gt_wino_conv_args){u, cin, cout, B, n, x, (size_t)cin * N, N, relu,
	                                  bias, y1, (size_t)cout * N, N, 1, scratch});
	/* channel-major, stored */
	gt_wino_conv(&(gt_wino_conv_args){u, cin, cout, B, n, xcm, N, (size_t)B * N, relu,
	                                  bias, y2, N, (size_t)B * N, 0, scratch});
	im2col_conv(w, bias, x, B, cin, cout, n, relu, y3);
	double e1 = 0, e2 = 0, e3 = 0;
	for (int b = 0; b < B; b++)
		for (int co = 0; co < cout; co++)
			for (int p = 0; p < N; p++) {
				size_t i = ((size_t)b * cout + co) * N + p;
				size_t j = ((size_t)co * B + b) * N + p;
				double s = S[i] > 1e-30 ? S[i] : 1e-30;
				e1 = fmax(e1, fabs((double)y1[i] - pre[i] - ref[i]) / (s + fabs(pre[i])));
				e2 = fmax(e2, fabs(y2[j] - ref[i]) / s);
				e3 = fmax(e3, fabs(y3[i] - ref[i]) / s);
			}
	double ew = fmax(e1, e2);
	worst_wino = fmax(worst_wino, ew);
	worst_im2col = fmax(worst_im2col, e3);
	ok(ew <= WINO_TOL && e3 <= IM2COL_TOL,
	   "cin %d cout %d %dx%d batch %d%s: |error| / sum|w||x|: winograd %.2g (NCHW add) "
	   "%.2g (channel-major), im2col %.2g", cin, cout, n, n, B, relu ? " relu" : "", e1, e2, e3);
	free(w), free(bias), free(x), free(xcm), free(y1), free(y2), free(y3), free(pre);
	free(ref), free(S), free(u), free(scratch);
}

/* the largest |a - b| relative to max(1, |b|) over k values */
static double maxrel(const float *a, const float *b, size_t k)
{
	double m = 0;
	for (size_t i = 0; i < k; i++)
		m = fmax(m, fabs((double)a[i] - b[i]) / fmax(1.0, fabs(b[i])));
	return m;
}

/* a gt network b3c32 (random weights, not Fixup's zeros) on n x n: the
 * outputs under GT_CONV=winograd against GT_CONV=im2col, then again
 * after a training step (forward, backward, an AdamW step, sync) of the
 * winograd network whose weights are copied to the other: the transformed
 * filters must follow the new weights */
static void check_gtnet(int n, int B)
{
	gt_arch a;
	gt_error e;
	gt_arch_default(&a, 3, 32, 22, 19, 1);
	setenv("GT_CONV", "im2col", 1);
	gt_nn *ref = gt_nn_new(&a, "cpu", &e);
	setenv("GT_CONV", "winograd", 1);
	gt_nn *wn = gt_nn_new(&a, "cpu", &e);
	unsetenv("GT_CONV");
	size_t np = gt_nn_nparams(ref);
	float *p = gt_nn_params(wn);
	for (size_t i = 0; i < np; i++)
		p[i] = (float)(nn_randn(&rs) * 0.15);
	nn_batch d;
	nn_batch_make(&d, &a, B, n, &rs);
	size_t N = (size_t)n * n, k = (size_t)B * (N + 1);
	float *pol = malloc(sizeof(float) * k), *val = malloc(sizeof(float) * B);
	float *own = malloc(sizeof(float) * B * N);
	gt_optim_conf oc = gt_optim_defaults(GT_OPTIM_ADAMW);
	oc.lr = 0.002f;
	gt_optim *opt = gt_optim_new(&oc, np);
	gt_nn_out o;
	double moved = 0;
	for (int round = 0; round < 2; round++) {
		memcpy(gt_nn_params(ref), p, sizeof(float) * np);
		gt_nn_sync_params(ref);
		gt_nn_sync_params(wn);
		gt_nn_forward(ref, B, n, d.planes, d.glob, 0, &o);
		memcpy(pol, o.policy, sizeof(float) * k);
		memcpy(val, o.value, sizeof(float) * B);
		memcpy(own, o.own, sizeof(float) * B * N);
		gt_nn_forward(wn, B, n, d.planes, d.glob, 0, &o);
		double mp = maxrel(o.policy, pol, k), mv = maxrel(o.value, val, B);
		double mo = maxrel(o.own, own, B * N);
		if (round)
			ok(moved > 1e-3, "the training step moved the outputs (%.2g)", moved);
		ok(mp < 1e-4 && mv < 1e-4 && mo < 1e-4,
		   "gt b3c32 %dx%d batch %d%s: winograd against im2col: policy %.2g value %.2g "
		   "ownership %.2g", n, n, B, round ? " after a training step" : "", mp, mv, mo);
		gt_nn_target t = nn_batch_target(&d);
		if (!round) {
			/* training gradients: the winograd network's forward and
			 * input gradients by Winograd, the reference's by im2col
			 * (tests/unit/nn_torch checks those against PyTorch) */
			gt_nn_loss lr_, lw;
			gt_nn_zero_grad(ref);
			gt_nn_forward(ref, B, n, d.planes, d.glob, 1, NULL);
			gt_nn_backward(ref, &t, NULL, &lr_);
			gt_nn_zero_grad(wn);
			gt_nn_forward(wn, B, n, d.planes, d.glob, 1, NULL);
			gt_nn_backward(wn, &t, NULL, &lw);
			const float *gr = gt_nn_grads(ref), *gw = gt_nn_grads(wn);
			double big = 0, dg = 0;
			for (size_t i = 0; i < np; i++) {
				big = fmax(big, fabs(gr[i]));
				dg = fmax(dg, fabs((double)gw[i] - gr[i]));
			}
			ok(dg <= 1e-4 * big && fabs(lw.total - lr_.total) <= 1e-5 * fmax(1, fabs(lr_.total)),
			   "gt b3c32 %dx%d batch %d: training by winograd against im2col: gradients "
			   "within %.2g of the largest (%.3g), loss %.6g against %.6g", n, n, B,
			   dg / big, big, lw.total, lr_.total);
		}
		/* a training step of the winograd network, then its play
		 * forward again */
		gt_nn_zero_grad(wn);
		gt_nn_forward(wn, B, n, d.planes, d.glob, 1, NULL);
		gt_nn_backward(wn, &t, NULL, NULL);
		gt_optim_step(opt, p, gt_nn_grads(wn));
		gt_nn_sync_params(wn);
		gt_nn_forward(wn, B, n, d.planes, d.glob, 0, &o);
		moved = maxrel(o.policy, pol, k);
	}
	gt_optim_free(opt);
	nn_batch_free(&d);
	free(pol), free(val), free(own);
	gt_nn_free(ref);
	gt_nn_free(wn);
}

int main(void)
{
	/* transforms of a hand case: one channel, w = the 3x3 box, x = 1
	 * everywhere on 5x5: each output counts its in-board neighbours */
	{
		float w[9], x[25], y[25], u[36];
		float *scratch = malloc(sizeof(float) * gt_wino_scratch_floats(1, 1));
		for (int i = 0; i < 9; i++)
			w[i] = 1;
		for (int i = 0; i < 25; i++)
			x[i] = 1;
		gt_wino_filter(w, 1, 1, u);
		gt_wino_conv(&(gt_wino_conv_args){u, 1, 1, 1, 5, x, 25, 25, 0, NULL, y, 25, 25, 0,
		                                  scratch});
		double m = 0;
		for (int yy = 0; yy < 5; yy++)
			for (int xx = 0; xx < 5; xx++) {
				int cnt = (yy > 0 && yy < 4 ? 3 : 2) * (xx > 0 && xx < 4 ? 3 : 2);
				m = fmax(m, fabs(y[yy * 5 + xx] - cnt));
			}
		ok(m < 1e-5, "box filter on 5x5 ones: neighbour counts (max error %.2g)", m);
		free(scratch);
	}
	/* every board size, a few channels */
	for (int n = 2; n <= 19; n++)
		check_shape(3, 16, n, n % 3 + 1, n & 1);
	/* the channel counts in use and odd ones, on the common board sizes */
	static const int ch[] = {1, 3, 16, 32, 96};
	static const int sizes[] = {7, 9, 13, 19};
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 4; j++)
			check_shape(ch[i], ch[(i + j) % 5], sizes[j], 1 + (i + j) % 3, (i + j) & 1);
	/* batches that span chunks of 64 tiles (wino.c) */
	check_shape(16, 16, 9, 64, 1);
	check_shape(32, 32, 19, 7, 1);
	check_shape(16, 8, 2, 64, 0);
	check_shape(96, 96, 19, 2, 1);
	check_shape(8, 16, 13, 33, 0);
	diag("worst |error| / sum|w||x|: winograd %.3g, im2col %.3g (u = 2^-24 = 5.96e-8)",
	     worst_wino, worst_im2col);

	is_int(gt_conv_winograd(GT_CONV_IM2COL, 19, 16), 0, "GT_CONV=im2col: im2col on 19x19");
	is_int(gt_conv_winograd(GT_CONV_WINOGRAD, 2, 1), 1, "GT_CONV=winograd: winograd on 2x2");
	/* the automatic choice by the board alone: a position's outputs must
	 * not depend on its batch (gt-elo(1): the same games whatever
	 * --parallel-games), and 9x9 at batch 1 is slower by Winograd */
	int same = 1;
	for (int n = 2; n <= 19; n++)
		for (int b = 2; b <= 64; b++)
			same &= gt_conv_winograd(GT_CONV_AUTO, n, b) == gt_conv_winograd(GT_CONV_AUTO, n, 1);
	ok(same, "automatic: the same method for every batch on each board 2..19");
	is_int(gt_conv_batch_mode(GT_CONV_AUTO, 1), GT_CONV_AUTO_BATCH, "by the batch: automatic follows it");
	is_int(gt_conv_batch_mode(GT_CONV_IM2COL, 1), GT_CONV_IM2COL, "by the batch: GT_CONV=im2col stays");
	is_int(gt_conv_batch_mode(GT_CONV_AUTO_BATCH, 0), GT_CONV_AUTO, "by the batch: off again");
	if (!gt_conv_winograd_auto()) {
		/* a build without AVX-512 vectors: im2col wherever it chooses */
		int any = 0;
		for (int n = 2; n <= 19; n++)
			for (int b = 1; b <= 64; b++)
				any |= gt_conv_winograd(GT_CONV_AUTO, n, b) | gt_conv_winograd(GT_CONV_AUTO_BATCH, n, b);
		ok(!any, "no AVX-512 vectors in this build: the automatic modes choose im2col everywhere");
		is_int(gt_conv_winograd(GT_CONV_WINOGRAD, 9, 1), 1, "and GT_CONV=winograd still forces Winograd");
		diag("the rules for builds with AVX-512 vectors not checked: this build has none");
	} else {
	is_int(gt_conv_winograd(GT_CONV_AUTO, 19, 1), 1, "automatic: winograd on 19x19");
	is_int(gt_conv_winograd(GT_CONV_AUTO, 9, 16), 0, "automatic: im2col on 9x9");
	/* gt-selfplay without --deterministic: by the batch too (bench/wino:
	 * on 9x9 batch 1 is slower by Winograd, 16 faster) */
	is_int(gt_conv_winograd(GT_CONV_AUTO_BATCH, 9, 1), 0, "by the batch: im2col for one 9x9 position");
	is_int(gt_conv_winograd(GT_CONV_AUTO_BATCH, 9, 3), 1, "by the batch: winograd from 3 9x9 positions");
	is_int(gt_conv_winograd(GT_CONV_AUTO_BATCH, 19, 1), 1, "by the batch: winograd on 19x19 at batch 1");
	}
	/* oneDNN in float32: GT_CONV=onednn always; gt-selfplay's forwards by
	 * the batch where oneDNN is built in and the CPU has AVX-512F, or AVX2
	 * and FMA (cpuid, asked here independently); never the
	 * batch-independent mode */
	is_int(gt_conv_onednn(GT_CONV_ONEDNN), 1, "oneDNN: GT_CONV=onednn");
	is_int(gt_conv_onednn(GT_CONV_AUTO), 0, "oneDNN: never in the automatic mode by the board");
	is_int(gt_conv_onednn(GT_CONV_IM2COL), 0, "oneDNN: not under GT_CONV=im2col");
	is_int(gt_conv_onednn(GT_CONV_WINOGRAD), 0, "oneDNN: not under GT_CONV=winograd");
	{
		int want = 0;
#if defined(__x86_64__)
		unsigned ea, eb, ec, ed;
		__asm__("cpuid" : "=a"(ea), "=b"(eb), "=c"(ec), "=d"(ed) : "a"(7), "c"(0));
		want = (eb >> 16) & 1; /* AVX512F: leaf 7, EBX bit 16 */
		int avx2 = (eb >> 5) & 1; /* AVX2: leaf 7, EBX bit 5 */
		__asm__("cpuid" : "=a"(ea), "=b"(eb), "=c"(ec), "=d"(ed) : "a"(1), "c"(0));
		want |= avx2 && ((ec >> 12) & 1) && ((ec >> 27) & 1) && ((ec >> 28) & 1);
		/* FMA, OSXSAVE, AVX: leaf 1, ECX bits 12, 27, 28 */
#endif
		want &= gt_dnn_why_not() == NULL;
		is_int(gt_conv_onednn(GT_CONV_AUTO_BATCH), want,
		       "oneDNN by the batch: %s", want ? "AVX-512F or AVX2 and FMA, and oneDNN here: taken"
		                                       : "no AVX2 or no oneDNN here: not taken");
	}
	setenv("GT_CONV", "winograd", 1);
	is_int(gt_conv_mode_env(), GT_CONV_WINOGRAD, "GT_CONV=winograd read");
	setenv("GT_CONV", "im2col", 1);
	is_int(gt_conv_mode_env(), GT_CONV_IM2COL, "GT_CONV=im2col read");
	setenv("GT_CONV", "fast", 1);
	is_int(gt_conv_mode_env(), GT_CONV_AUTO, "GT_CONV=fast: automatic");
	unsetenv("GT_CONV");

	/* whole networks */
	check_gtnet(9, 5);
	check_gtnet(19, 2);
	check_gtnet(2, 3);
	return done_testing();
}
