/* dnn: convolutions by oneDNN (lib/nn/dnn.h) against a direct
 * convolution summed in double here (conv_ref.h, the independent
 * reference): the forward of every board size 2 to 19, the channel
 * counts in use (gt's 15 input planes, KataGo's 22, 16 to 96) and odd
 * ones, kernels 1, 3 and 5 (KataGo's input convolution), batches 1 to 33,
 * both of gt's layouts (NCHW with add, channel-major over the batch),
 * with and without ReLU and bias; then the weight gradient, and a whole
 * training network with GT_CONV=onednn against GT_CONV=im2col.
 *
 * Tolerance, as wino.c's: |error| <= 2e-5 S, S the sum of |w||x| +
 * |bias| averaged over the output's 4x4 tile (oneDNN takes Winograd
 * F(4x4,3x3) for 3x3 where it has one, whose error depends on the whole
 * tile). The weight gradient of w[co][ci][ky][kx] sums B n^2 products
 * dout x, held to 1e-5 of the sum of their magnitudes (float sums in
 * blocks; measured below). */
#include "tap.h"
#include "conv_ref.h"
#include "dnn.h"
#include "nn.h"
#include "nn_batch.h"
#include "model.h"
#include "optim.h"

#include <stdlib.h>
#include <string.h>

#define FWD_TOL 2e-5
#define WGRAD_TOL 1e-5

static uint64_t rs = 2027;
static unsigned long wver; /* each check's weights are new: a new version */
static double worst_fwd, worst_wgrad;

static void fill(float *p, size_t k, double scale, double shift)
{
	for (size_t i = 0; i < k; i++)
		p[i] = (float)(nn_randn(&rs) * scale + shift);
}

/* [b][c][p] (NCHW) to [c][b][p] (channel-major over the batch) */
static void to_cm(const float *x, int B, int C, int N, float *y)
{
	for (int b = 0; b < B; b++)
		for (int c = 0; c < C; c++)
			memcpy(y + ((size_t)c * B + b) * N, x + ((size_t)b * C + c) * N, sizeof(float) * N);
}

static void check_fwd(int cin, int cout, int k, int n, int B, int relu, int bias_on)
{
	int N = n * n;
	size_t nx = (size_t)B * cin * N, ny = (size_t)B * cout * N, nw = (size_t)cout * cin * k * k;
	float *w = malloc(sizeof(float) * nw), *bias = malloc(sizeof(float) * cout);
	float *x = malloc(sizeof(float) * nx), *xcm = malloc(sizeof(float) * nx);
	float *y1 = malloc(sizeof(float) * ny), *y2 = malloc(sizeof(float) * ny), *pre = malloc(sizeof(float) * ny);
	double *ref = malloc(sizeof(double) * ny), *S = malloc(sizeof(double) * ny);
	fill(w, nw, 1.0 / sqrt((double)k * k * cin), 0);
	fill(bias, cout, 0.3, 0);
	fill(x, nx, 1, 0);
	fill(pre, ny, 1, 0);
	to_cm(x, B, cin, N, xcm);
	const float *bp = bias_on ? bias : NULL;
	conv_direct(w, bp, x, B, cin, cout, k, n, relu, ref, S);
	tile_mean(S, B * cout, n);
	memcpy(y1, pre, sizeof(float) * ny);
	int r1 = gt_dnn_conv(&(gt_dnn_conv_args){w, 0, cin, cout, k, B, n, x, (size_t)cin * N, N, relu, bp, y1,
	                                         (size_t)cout * N, N, 1});
	int r2 = gt_dnn_conv(&(gt_dnn_conv_args){w, ++wver, cin, cout, k, B, n, xcm, N, (size_t)B * N, relu, bp, y2, N,
	                                         (size_t)B * N, 0});
	double e1 = 0, e2 = 0;
	for (int b = 0; b < B; b++)
		for (int co = 0; co < cout; co++)
			for (int p = 0; p < N; p++) {
				size_t i = ((size_t)b * cout + co) * N + p, j = ((size_t)co * B + b) * N + p;
				double s = S[i] > 1e-30 ? S[i] : 1e-30;
				e1 = fmax(e1, fabs((double)y1[i] - pre[i] - ref[i]) / (s + fabs(pre[i])));
				e2 = fmax(e2, fabs(y2[j] - ref[i]) / s);
			}
	worst_fwd = fmax(worst_fwd, fmax(e1, e2));
	ok(r1 == 0 && r2 == 0 && e1 <= FWD_TOL && e2 <= FWD_TOL,
	   "forward cin %d cout %d %dx%d kernel, %dx%d batch %d%s%s: |error| / sum|w||x|: %.2g (NCHW add), "
	   "%.2g (channel-major)", cin, cout, k, k, n, n, B, relu ? " relu" : "", bias_on ? " bias" : "", e1, e2);
	free(w), free(bias), free(x), free(xcm), free(y1), free(y2), free(pre), free(ref), free(S);
}

static void check_wgrad(int cin, int cout, int n, int B, int relu)
{
	int N = n * n;
	size_t nx = (size_t)B * cin * N, nd = (size_t)B * cout * N, nw = (size_t)cout * cin * 9;
	float *x = malloc(sizeof(float) * nx), *xcm = malloc(sizeof(float) * nx);
	float *d = malloc(sizeof(float) * nd), *dcm = malloc(sizeof(float) * nd);
	float *g1 = malloc(sizeof(float) * nw), *g2 = malloc(sizeof(float) * nw), *pre = malloc(sizeof(float) * nw);
	fill(x, nx, 1, 0);
	fill(d, nd, 1, 0);
	fill(pre, nw, 1, 0);
	to_cm(x, B, cin, N, xcm);
	to_cm(d, B, cout, N, dcm);
	float alpha = 0.75f;
	memcpy(g1, pre, sizeof(float) * nw);
	memcpy(g2, pre, sizeof(float) * nw);
	int r1 = gt_dnn_wgrad(&(gt_dnn_wgrad_args){cin, cout, 3, B, n, x, (size_t)cin * N, N, relu, d,
	                                           (size_t)cout * N, N, alpha, g1});
	int r2 = gt_dnn_wgrad(&(gt_dnn_wgrad_args){cin, cout, 3, B, n, xcm, N, (size_t)B * N, relu, dcm, N,
	                                           (size_t)B * N, alpha, g2});
	double e1 = 0, e2 = 0;
	for (int co = 0; co < cout; co++)
		for (int ci = 0; ci < cin; ci++)
			for (int ky = 0; ky < 3; ky++)
				for (int kx = 0; kx < 3; kx++) {
					double s = 0, a = 0;
					for (int b = 0; b < B; b++)
						for (int y = 0; y < n; y++)
							for (int xx = 0; xx < n; xx++) {
								int sy = y + ky - 1, sx = xx + kx - 1;
								if (sy < 0 || sy >= n || sx < 0 || sx >= n)
									continue;
								double v = x[((size_t)b * cin + ci) * N + sy * n + sx];
								if (relu && v < 0)
									v = 0;
								double t = d[((size_t)b * cout + co) * N + y * n + xx] * v;
								s += t, a += fabs(t);
							}
					size_t i = ((size_t)co * cin + ci) * 9 + ky * 3 + kx;
					double want = pre[i] + alpha * s, sc = alpha * a + fabs(pre[i]) + 1e-30;
					e1 = fmax(e1, fabs(g1[i] - want) / sc);
					e2 = fmax(e2, fabs(g2[i] - want) / sc);
				}
	worst_wgrad = fmax(worst_wgrad, fmax(e1, e2));
	ok(r1 == 0 && r2 == 0 && e1 <= WGRAD_TOL && e2 <= WGRAD_TOL,
	   "weight gradient cin %d cout %d %dx%d batch %d%s: |error| / sum|dout x|: %.2g (NCHW), %.2g "
	   "(channel-major)", cin, cout, n, n, B, relu ? " relu" : "", e1, e2);
	free(x), free(xcm), free(d), free(dcm), free(g1), free(g2), free(pre);
}

/* a training step of a b2c16 network, GT_CONV=onednn against
 * GT_CONV=im2col (oneDNN's forward, input and weight gradients against
 * OpenBLAS's): outputs, loss and gradients agree */
static void check_net(int n)
{
	gt_error e;
	gt_arch a;
	gt_model_parse_arch("b2c16", &a, &e);
	gt_nn *nn[2];
	const char *mode[2] = {"im2col", "onednn"};
	nn_batch d;
	nn_batch_make(&d, &a, 5, n, &rs);
	float *pol[2];
	size_t np1 = (size_t)5 * (n * n + 1);
	for (int m = 0; m < 2; m++) {
		setenv("GT_CONV", mode[m], 1);
		nn[m] = gt_nn_new(&a, "cpu", &e);
		gt_arch_init_params(&a, gt_nn_params(nn[m]), 7);
		gt_nn_zero_grad(nn[m]);
		gt_nn_out o;
		nn_batch_forward(nn[m], &d, 1, &o);
		pol[m] = malloc(sizeof(float) * np1);
		memcpy(pol[m], o.policy, sizeof(float) * np1);
		gt_nn_target t = nn_batch_target(&d);
		gt_nn_backward(nn[m], &t, NULL, NULL);
	}
	unsetenv("GT_CONV");
	size_t np = gt_nn_nparams(nn[0]);
	const float *g0 = gt_nn_grads(nn[0]), *g1 = gt_nn_grads(nn[1]);
	double eg = 0, big = 0;
	for (size_t i = 0; i < np; i++)
		big = fmax(big, fabs(g0[i]));
	for (size_t i = 0; i < np; i++)
		eg = fmax(eg, fabs(g0[i] - g1[i]) / big);
	double ep = 0;
	for (size_t i = 0; i < np1; i++)
		ep = fmax(ep, fabs(pol[0][i] - pol[1][i]));
	free(pol[0]), free(pol[1]);
	ok(ep < 1e-4 && eg < 1e-4,
	   "b2c16 %dx%d batch 5, GT_CONV=onednn against im2col: policy within %.2g, gradients within %.2g of the "
	   "largest", n, n, ep, eg);
	gt_nn_free(nn[0]), gt_nn_free(nn[1]);
	nn_batch_free(&d);
}

/* A network freed and another made in its place (the same parameter
 * array, as malloc gives back what was freed): the second one's oneDNN
 * outputs must be its own, not those of the first one's weights as
 * reordered and kept under the same pointer (a fault found when
 * tests/unit/train_bf16 ran beside other tests). Each network's policy
 * under GT_CONV=onednn against the same network's under im2col. */
static void check_remade(void)
{
	gt_error e;
	gt_arch a;
	gt_model_parse_arch("b2c16", &a, &e);
	nn_batch d;
	nn_batch_make(&d, &a, 3, 9, &rs);
	size_t np1 = (size_t)3 * (81 + 1);
	float *ref = malloc(sizeof(float) * np1);
	const float *first = NULL;
	int same = 0;
	double worst = 0;
	for (int k = 0; k < 4; k++) {
		for (int m = 0; m < 2; m++) {
			setenv("GT_CONV", m ? "onednn" : "im2col", 1);
			gt_nn *nn = gt_nn_new(&a, "cpu", &e);
			gt_arch_init_params(&a, gt_nn_params(nn), 100 + k);
			if (m) {
				if (!first)
					first = gt_nn_params(nn);
				else
					same += gt_nn_params(nn) == first;
			}
			gt_nn_out o;
			nn_batch_forward(nn, &d, 0, &o);
			for (size_t i = 0; i < np1; i++)
				if (m)
					worst = fmax(worst, fabs(o.policy[i] - ref[i]));
				else
					ref[i] = o.policy[i];
			gt_nn_free(nn);
		}
	}
	unsetenv("GT_CONV");
	ok(worst < 1e-4, "4 networks made one after another, each freed: oneDNN's outputs are each one's own "
	   "(policy within %.2g of im2col's; %d of 3 at the first one's address)", worst, same);
	free(ref);
	nn_batch_free(&d);
}

int main(void)
{
	gt_nn_set_threads(1);
	if (gt_dnn_why_not()) {
		/* make DNNL=0 (ARCH=arm64): the calls refuse and write nothing;
		 * GT_CONV=onednn runs gt's own convolutions */
		float w[9] = {1}, x[4] = {1, 2, 3, 4}, y[4] = {7, 7, 7, 7}, dw[9] = {5};
		is_int(gt_dnn_conv(&(gt_dnn_conv_args){w, 0, 1, 1, 3, 1, 2, x, 4, 4, 0, NULL, y, 4, 4, 0}), -1,
		       "%s: gt_dnn_conv refuses", gt_dnn_why_not());
		ok(y[0] == 7 && y[3] == 7, "and leaves out as it was");
		is_int(gt_dnn_wgrad(&(gt_dnn_wgrad_args){1, 1, 3, 1, 2, x, 4, 4, 0, y, 4, 4, 1.0f, dw}), -1,
		       "gt_dnn_wgrad refuses");
		ok(dw[0] == 5 && dw[8] == 0, "and leaves dw as it was");
		check_net(9);
		return done_testing();
	}
	ok(gt_dnn_why_not() == NULL, "oneDNN is built in");
	for (int n = 2; n <= 19; n++)
		check_fwd(3, 16, 3, n, n % 3 + 1, n & 1, n % 4 != 0);
	static const int ch[][2] = {{15, 64}, {22, 96}, {16, 16}, {64, 64}, {96, 96}, {1, 5}, {7, 33}};
	static const int sizes[] = {7, 9, 13, 19};
	for (int i = 0; i < 7; i++)
		for (int j = 0; j < 4; j++)
			check_fwd(ch[i][0], ch[i][1], 3, sizes[j], 1 + (i + j) % 3, (i + j) & 1, 1);
	check_fwd(22, 32, 5, 19, 2, 0, 0); /* KataGo's 5x5 input convolution */
	check_fwd(22, 32, 5, 9, 3, 0, 1);
	check_fwd(16, 8, 1, 9, 4, 1, 1);
	check_fwd(16, 16, 3, 9, 33, 1, 1);
	for (int n = 2; n <= 19; n += 3)
		check_wgrad(5, 8, n, 1 + n % 4, n & 1);
	check_wgrad(15, 64, 9, 7, 0);
	check_wgrad(64, 64, 9, 16, 1);
	check_wgrad(32, 32, 19, 3, 1);
	check_remade();
	/* two threads: the same sums within the same bounds */
	gt_nn_set_threads(2);
	check_fwd(64, 64, 3, 19, 4, 1, 1);
	check_wgrad(64, 64, 9, 16, 1);
	gt_nn_set_threads(1);
	diag("worst |error| / scale: forward %.2g (bound %g), weight gradient %.2g (bound %g)", worst_fwd, FWD_TOL,
	     worst_wgrad, WGRAD_TOL);
	check_net(9);
	check_net(19);
	return done_testing();
}
