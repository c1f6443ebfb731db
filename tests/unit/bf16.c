/* bf16: bfloat16 matrix products (lib/nn/bf16.h) against sums in double
 * here, then whole networks in bfloat16 (--precision bf16) against float32
 * on 1,000 real positions, and GT_NO_BF16 forcing float32.
 *
 * Bounds. bfloat16 keeps 8 significant bits: rounding to nearest errs by
 * at most u = 2^-8 of the number (the unit roundoff of an 8-bit
 * significand, as 2^-24 is float32's). A product of two rounded numbers
 * errs by at most (1+u)^2 - 1 = 2^-7 + 2^-16 of |a||b|, and the float32
 * sum of K such products adds at most K 2^-24 of sum |a||b| (float32's own
 * bound), so |C - exact| <= (2^-7 + 2^-16 + K 2^-24) sum_k |a_k||b_k| for
 * each element; the test asserts that bound (measured: up to 0.7 of it
 * on the smallest products, where few terms leave little room for the
 * errors' random signs to cancel). The products also agree with the same
 * sums of the rounded numbers in double to float32's accuracy, so the
 * rounding is to nearest even as assumed.
 *
 * A network repeats this in each of its 3x3 convolutions (13 in a b6
 * network: the input and two per block), each erring by up to 2^-7 of the
 * sum of |w||x| at its outputs, and the errors pass on through the layers
 * after it; with random signs they add in quadrature, about sqrt(13 x 2)
 * 2^-8 = 2% of an activation's scale at worst, typically a fraction of it. The policy (softmax of logits of order
 * 1 to 10) then moves by at most a few % of a logit, and the value (in
 * [-1, 1], after a tanh of gain at most 1) by at most 2% of its pre-tanh
 * scale, a few hundredths. The tests allow, on each position,
 * |p_bf16 - p_fp32| <= 0.03 for every move's probability and
 * |v_bf16 - v_fp32| <= 0.05 for the value, and over all positions the same
 * best move in at least 90%
 * (near ties may swap), on a trained network (KataGo's g170 b6c96, the
 * shared data, skipped when absent) and a gt b6c96 network of random
 * weights; the positions are every 7th from move 10 of Debian's
 * goban-original-games (professional 19x19 games; skipped when absent).
 * The measured largest differences are printed as diagnostics (KataGo's
 * network: probability 0.0076, value 0.0245, mean per position 0.0016 for
 * the probabilities; the random network's policy is nearly uniform, its
 * value moved by 0.0007).
 *
 * The products and the networks run on each kernel family the CPU has:
 * AMX-BF16 tiles, and AVX512-BF16 (alone, or beside the tiles with
 * GT_NO_AMX=1); where the CPU has neither the bfloat16 parts are skipped
 * (said as a skip with the reason); the float32 fallback is tested
 * everywhere with GT_NO_BF16, which emulates such a CPU.
 */
#include "tap.h"
#include "bf16.h"
#include "kataeval.h"
#include "model.h"
#include "neteval.h"
#include "nn.h"
#include "nn_batch.h"
#include "prec_util.h"
#include "sgf_util.h"

#include <string.h>

static uint64_t rs = 22;

/* x rounded to bfloat16 (8 significant bits), nearest even, in double:
 * the independent rounding the kernel's is checked against */
static double round8(float x)
{
	if (x == 0)
		return 0;
	int ex;
	double f = frexp(x, &ex);           /* x = f 2^ex, 0.5 <= |f| < 1 */
	return ldexp(nearbyint(ldexp(f, 8)), ex - 8); /* 8 bits, ties to even */
}

/* one product of M x K by K x N, random normal entries (a few zeros,
 * a few large), against the double sums */
static double check_gemm(int M, int K, int N, int add)
{
	float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N);
	float *C = malloc(sizeof(float) * M * N), *C0 = malloc(sizeof(float) * M * N);
	for (int i = 0; i < M * K; i++)
		A[i] = (float)(nn_randn(&rs) * (i % 17 == 0 ? 10 : 0.1));
	for (int i = 0; i < K * N; i++)
		B[i] = i % 5 == 0 ? 0.0f : (float)nn_randn(&rs);
	for (int i = 0; i < M * N; i++)
		C0[i] = C[i] = add ? (float)nn_randn(&rs) : 12345.0f;
	uint16_t *pa = malloc(sizeof(uint16_t) * gt_bf16_pack_size(M, K));
	uint16_t *sc = malloc(sizeof(uint16_t) * gt_bf16_scratch_size(K));
	gt_bf16_pack(A, M, K, K, pa);
	gt_bf16_gemm(M, N, K, pa, B, N, C, N, add, sc);
	double worst = 0, wround = 0, bound = ldexp(1, -7) + ldexp(1, -16) + K * ldexp(1, -24);
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			double s = add ? C0[m * N + n] : 0, S = 0, s8 = s, S8 = fabs(s);
			for (int k = 0; k < K; k++) {
				s += (double)A[m * K + k] * B[k * N + n];
				S += fabs((double)A[m * K + k] * B[k * N + n]);
				s8 += round8(A[m * K + k]) * round8(B[k * N + n]);
				S8 += fabs(round8(A[m * K + k]) * round8(B[k * N + n]));
			}
			double r = fabs(C[m * N + n] - s) / (S > 0 ? S : 1);
			worst = fmax(worst, r / bound);
			wround = fmax(wround, fabs(C[m * N + n] - s8) / (S8 > 0 ? S8 : 1) /
			                      ((K + 1) * ldexp(1, -24)));
		}
	ok(worst <= 1, "gemm %dx%dx%d%s: within (2^-7 + 2^-16 + K 2^-24) sum |a||b| "
	   "(worst %.3f of it)", M, K, N, add ? " added" : "", worst);
	ok(wround <= 1, "gemm %dx%dx%d: the sums of the numbers rounded to 8 bits (nearest "
	   "even) within (K+1) 2^-24 (worst %.3f of it)", M, K, N, wround);
	free(A), free(B), free(C), free(C0), free(pa), free(sc);
	return worst;
}

/* gt_bf16_conv3x3 on B boards of n x n, cin -> cout channels,
 * channel-major [c][b N + p], against gt_bf16_gemm of the im2col built
 * here: the same roundings and the same sums, so equal to the bit */
static int check_conv(int cin, int cout, int n, int B, int relu, int mode)
{
	int N = n * n, BN = B * N, K = cin * 9;
	float *w = malloc(sizeof(float) * cout * K), *x = malloc(sizeof(float) * cin * BN);
	float *col = malloc(sizeof(float) * K * BN), *bias = malloc(sizeof(float) * cout);
	float *y = malloc(sizeof(float) * cout * BN), *y0 = malloc(sizeof(float) * cout * BN);
	for (int i = 0; i < cout * K; i++)
		w[i] = (float)(nn_randn(&rs) * 0.1);
	for (int i = 0; i < cin * BN; i++)
		x[i] = (float)nn_randn(&rs);
	for (int i = 0; i < cout; i++)
		bias[i] = (float)nn_randn(&rs);
	for (int i = 0; i < cout * BN; i++)
		y[i] = y0[i] = mode == 2 ? (float)nn_randn(&rs) : 0.0f;
	for (int ci = 0; ci < cin; ci++)
		for (int o = 0; o < 9; o++)
			for (int j = 0; j < BN; j++) {
				int b = j / N, p = j % N, yy = p / n + o / 3 - 1, xx = p % n + o % 3 - 1;
				float v = yy >= 0 && yy < n && xx >= 0 && xx < n
					? x[(size_t)ci * BN + b * N + yy * n + xx] : 0.0f;
				col[(size_t)(ci * 9 + o) * BN + j] = relu && v < 0 ? 0.0f : v;
			}
	uint16_t *pa = malloc(sizeof(uint16_t) * gt_bf16_pack_size(cout, K));
	uint16_t *sc = malloc(sizeof(uint16_t) * gt_bf16_scratch_size(K));
	gt_bf16_pack(w, cout, K, K, pa);
	gt_bf16_gemm(cout, BN, K, pa, col, BN, y0, BN, mode == 2, sc);
	if (mode == 1)
		for (int co = 0; co < cout; co++)
			for (int j = 0; j < BN; j++)
				y0[(size_t)co * BN + j] += bias[co];
	gt_bf16_conv3x3(&(gt_bf16_conv_args){pa, cin, cout, n, BN, x, BN, relu,
	                                     mode == 1 ? bias : NULL, y, BN, mode == 2, sc});
	double d = 0;
	for (int i = 0; i < cout * BN; i++)
		d = fmax(d, fabs(y[i] - y0[i]) / fmax(1, fabs(y0[i])));
	free(w), free(x), free(col), free(bias), free(y), free(y0), free(pa), free(sc);
	/* the bias is added before the products in the tiles, after them
	 * here: one float32 rounding apart */
	return mode == 1 ? d <= 4 * ldexp(1, -24) * 50 : d == 0;
}

/* the products and the networks on the kernel that gt_bf16_kernel names
 * now (k) */
static void kernel_checks(gt_evaluator *ev, const char *k)
{
	diag("the bfloat16 kernel: %s", k);
	static const int shapes[][3] = {
		{96, 864, 972}, {96, 864, 361}, {96, 198, 81}, {16, 144, 81}, {33, 9, 5},
		{1, 1, 1}, {32, 64, 32}, {96, 135, 257}, {7, 31, 300},
	};
	double worst = 0;
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		worst = fmax(worst, check_gemm(shapes[i][0], shapes[i][1], shapes[i][2], (int)i & 1));
	diag("%s: gemm: worst error %.3f of the bound", k, worst);
	int bad = 0, cases = 0;
	for (int n = 2; n <= 19; n++)
		for (int m = 0; m < 3; m++, cases++)
			bad += !check_conv(1 + (n * 7 + m) % 20, 1 + (n * 5 + m * 11) % 40, n,
			                   1 + (n + m) % 4, (n + m) & 1, m);
	static const int big[][4] = {{96, 96, 9, 16}, {96, 96, 19, 3}, {22, 96, 19, 2},
	                             {15, 16, 9, 7}, {16, 16, 13, 5}, {32, 32, 9, 64},
	                             {96, 96, 9, 64}, {128, 128, 19, 2}};
	for (int i = 0; i < 8; i++, cases++)
		bad += !check_conv(big[i][0], big[i][1], big[i][2], big[i][3], i & 1, i % 3);
	is_int(bad, 0, "%s: conv3x3 (im2col packed as read) equals the product of the im2col: "
	       "%d shapes, boards 2..19, relu, bias, added", k, cases);
	prec_real(ev, GT_PREC_BF16, 0.03, 0.05);
}

int main(void)
{
	const char *why;
	gt_evaluator ev;
	gt_model *m = prec_open(&ev);
	/* GT_NO_BF16: a CPU without the instructions, emulated */
	int avail = prec_env("GT_NO_BF16", gt_bf16_available, GT_PREC_BF16, &ev, &why);
	gt_evaluator none = gt_evaluator_uniform();
	is_int(gt_neteval_precision(&none, GT_PREC_BF16, &why), -1, "none: not a network");

	if (!avail) {
		diag("SKIP the bfloat16 products and networks: %s", why);
	} else {
		prec_kernels(&ev, gt_bf16_kernel, "amx-bf16", kernel_checks);
	}
	gt_evaluator_close(&ev);
	gt_model_free(m);
	return done_testing();
}
