/* conv_ref.h: the independent reference of the convolution tests (wino,
 * dnn): a direct k x k convolution (stride 1, zero padding k/2,
 * PyTorch's cross-correlation) summed in double, with the scale of its
 * rounding error, and the Winograd tile mean of that scale (wino.c's
 * tolerance note says why). */
#ifndef GT_TEST_CONV_REF_H
#define GT_TEST_CONV_REF_H
#include <math.h>
#include <stddef.h>

/* out[b][co][p] (NCHW, double) = bias[co] (0 when bias is NULL) + the sum
 * over ci, ky, kx of w[co][ci][ky][kx] x'[b][ci][y+ky-k/2][x+kx-k/2],
 * x' = relu(x) when relu, x NCHW; S[i] = the sum of |w||x'| + |bias| */
static void __attribute__((unused)) conv_direct(const float *w, const float *bias, const float *x, int B,
                                                int cin, int cout, int k, int n, int relu, double *out,
                                                double *S)
{
	int N = n * n, h = k / 2;
	for (int b = 0; b < B; b++)
		for (int co = 0; co < cout; co++)
			for (int y = 0; y < n; y++)
				for (int xx = 0; xx < n; xx++) {
					double s = bias ? bias[co] : 0, a = fabs(s);
					for (int ci = 0; ci < cin; ci++)
						for (int ky = 0; ky < k; ky++)
							for (int kx = 0; kx < k; kx++) {
								int sy = y + ky - h, sx = xx + kx - h;
								if (sy < 0 || sy >= n || sx < 0 || sx >= n)
									continue;
								double v = x[((size_t)b * cin + ci) * N + sy * n + sx];
								if (relu && v < 0)
									v = 0;
								double g = w[(((size_t)co * cin + ci) * k + ky) * k + kx];
								s += g * v;
								a += fabs(g * v);
							}
					size_t i = ((size_t)b * cout + co) * N + y * n + xx;
					out[i] = s;
					S[i] = a;
				}
}

/* S of each output := the mean of S over the on-board outputs of its
 * 4x4 Winograd tile (in place, for planes planes of n x n) */
static void __attribute__((unused)) tile_mean(double *S, int planes, int n)
{
	for (int q = 0; q < planes; q++)
		for (int ty = 0; ty < n; ty += 4)
			for (int tx = 0; tx < n; tx += 4) {
				double *s = S + (size_t)q * n * n, sum = 0;
				int ny = n - ty < 4 ? n - ty : 4, nx = n - tx < 4 ? n - tx : 4;
				for (int i = 0; i < ny; i++)
					for (int j = 0; j < nx; j++)
						sum += s[(ty + i) * n + tx + j];
				for (int i = 0; i < ny; i++)
					for (int j = 0; j < nx; j++)
						s[(ty + i) * n + tx + j] = sum / (ny * nx);
			}
}

#endif
