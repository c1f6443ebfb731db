/* int8: 8-bit integer products (lib/nn/int8.h) against sums in double
 * here, the convolution against the product of its im2col, then whole
 * networks in int8 (--precision int8) against float32 on 1,000 real
 * positions, and GT_NO_INT8 forcing float32.
 *
 * Exactness. The kernel's sums of qw qa (|qw| <= 127, qa <= 255, K <=
 * 864 terms: below 2^25 < 2^31) are exact in int32, so each output must be
 * (sum_k qw qa) sw sa (+ base) as computed here in double from the
 * quantized numbers (quantized here by int8.h's formulas, independently
 * of the kernel), up to the dequantization's float32 roundings: the sum
 * to float (2^-24 relative), sw sa (2^-24) and the multiply-add (2^-24 of
 * the result), within 2^-22 (|sum sw sa| + |base|).
 *
 * Quantization error. With x = qa sa + ea, |ea| <= sa/2, and w = qw sw +
 * ew, |ew| <= sw/2 (round to nearest; x <= max so qa never clips, |w| <=
 * max so qw never clips), x w - qa sa qw sw = x ew + w ea - ea ew, so
 *   |C - sum_k x_k w_k| <= sum_k (|x_k| sw/2 + |w_k| sa/2 + sa sw/4)
 * plus the float32 roundings of the scales (sa = fl(max/255) and the
 * multiplier fl(255/max) are not exact inverses: about 2^-22 of |x| per
 * term) and of the dequantization, within 2^-20 sum_k |x_k||w_k| + 2^-22
 * |base|; the test asserts that bound (the measured worst is printed).
 *
 * Networks: a b6 network has 13 3x3 convolutions, each erring by up to
 * the bound above; in practice the errors of 864 terms cancel (random
 * signs), about 0.3% of an output's scale per layer. The bounds on the
 * 1,000 positions (Debian's goban-original-games, every 7th from move 10;
 * KataGo's g170 b6c96 from the shared data and a random gt b6c96) are set
 * from the measured differences with a margin of about 2: measured on
 * KataGo's network, every move's probability within 0.0547 of float32's
 * (mean of the largest per position 0.0090) and the value within 0.1114
 * (the random gt network: 0.0000 and 0.0016), so the tests allow 0.1
 * and 0.2, and the same best move in 90% of the positions.
 *
 * The products and the networks run on each kernel family the CPU has:
 * AMX-INT8 tiles, and AVX512-VNNI (alone, or beside the tiles with
 * GT_NO_AMX=1); on arm64 the dot product (sdot). Where the CPU has none
 * of them the int8 parts are skipped (said as a skip with the reason);
 * the float32 fallback is tested everywhere with GT_NO_INT8, which
 * emulates such a CPU.
 */
#include "tap.h"
#include "amx.h"
#include "int8.h"
#include "model.h"
#include "neteval.h"
#include "nn.h"
#include "nn_batch.h"
#include "prec_util.h"

#include <string.h>

static uint64_t rs = 8;

/* row m of W (K) quantized as int8.h says into q, its scale returned */
static float quant_w(const float *w, int K, int8_t *q)
{
	float mx = 0;
	for (int k = 0; k < K; k++)
		mx = fmaxf(mx, fabsf(w[k]));
	float inv = mx > 0 ? 127.0f / mx : 0.0f;
	for (int k = 0; k < K; k++)
		q[k] = (int8_t)nearbyintf(w[k] * inv);
	return mx / 127.0f;
}

/* the largest activation byte of the kernel under test: 255, or 127 on
 * the "avx2" kernel (int8.h) */
static float top = 255;

/* the activation multiplier and scale of a maximum, as int8.h says */
static void act_scale(float mx, float *inv, float *sa)
{
	*inv = mx > 0 ? top / mx : 0.0f;
	*sa = mx / top;
}

static uint8_t quant_a(float x, float inv)
{
	float q = nearbyintf(x * inv);
	return (uint8_t)(q > top ? top : q);
}

/* one product of M x K weights by K x N activations (>= 0, columns in
 * groups of G sharing a scale), against the double sums; worst fraction
 * of the quantization bound into *wq; returns 1 if every output is the
 * exact dequantized sum */
static int check_gemm(int M, int K, int N, int G, int mode, double *wq)
{
	float *A = malloc(sizeof(float) * M * K), *X = malloc(sizeof(float) * K * N);
	float *C = malloc(sizeof(float) * M * N), *C0 = malloc(sizeof(float) * M * N);
	float *bias = malloc(sizeof(float) * M), *sw = malloc(sizeof(float) * M);
	float *sb = malloc(sizeof(float) * N), *inv = malloc(sizeof(float) * N);
	int8_t *qw = malloc((size_t)M * K);
	uint8_t *qa = malloc((size_t)K * N);
	for (int i = 0; i < M * K; i++)
		A[i] = (float)(nn_randn(&rs) * (i % 17 == 0 ? 1 : 0.1));
	for (int i = 0; i < K * N; i++)
		X[i] = i % 5 == 0 ? 0.0f : (float)fabs(nn_randn(&rs));
	for (int i = 0; i < M; i++)
		bias[i] = mode == 1 ? (float)nn_randn(&rs) : 0.0f;
	for (int i = 0; i < M * N; i++)
		C0[i] = C[i] = mode == 2 ? (float)nn_randn(&rs) : 12345.0f;
	for (int j0 = 0; j0 < N; j0 += G) {
		float mx = 0;
		for (int k = 0; k < K; k++)
			for (int j = j0; j < j0 + G && j < N; j++)
				mx = fmaxf(mx, X[(size_t)k * N + j]);
		for (int j = j0; j < j0 + G && j < N; j++)
			act_scale(mx, &inv[j], &sb[j]);
	}
	for (int k = 0; k < K; k++)
		for (int j = 0; j < N; j++)
			qa[(size_t)k * N + j] = quant_a(X[(size_t)k * N + j], inv[j]);
	int8_t *pa = malloc(gt_int8_pack_size(M, K));
	uint8_t *sc = malloc(gt_int8_scratch_size(K, 0));
	gt_int8_pack(A, M, K, K, pa, sw);
	int same = 1;
	for (int m = 0; m < M; m++) {
		same &= quant_w(A + (size_t)m * K, K, qw + (size_t)m * K) == sw[m];
		for (int k = 0; k < K; k++)
			same &= qw[(size_t)m * K + k] == pa[gt_int8_pack_at(K, m, k)];
	}
	gt_int8_gemm(M, N, K, pa, sw, qa, N, sb, mode == 1 ? bias : NULL, C, N, mode == 2, sc);
	int exact = 1;
	double worst = 0;
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			double base = mode == 2 ? C0[m * N + n] : bias[m], q = 0, s = 0, bound = 0, S = 0;
			for (int k = 0; k < K; k++) {
				double x = X[(size_t)k * N + n], w = A[(size_t)m * K + k];
				q += (double)qw[(size_t)m * K + k] * qa[(size_t)k * N + n];
				s += x * w;
				S += fabs(x * w);
				bound += fabs(x) * sw[m] / 2 + fabs(w) * sb[n] / 2 + (double)sb[n] * sw[m] / 4;
			}
			double deq = q * sw[m] * sb[n], got = C[m * N + n];
			exact &= fabs(got - (deq + base)) <= ldexp(1, -22) * (fabs(deq) + fabs(base));
			bound += ldexp(1, -20) * S + ldexp(1, -22) * fabs(base);
			worst = fmax(worst, fabs(got - (s + base)) / bound);
		}
	ok(same, "gemm %dx%dx%d: the weights quantized per row as int8.h says", M, K, N);
	ok(exact, "gemm %dx%dx%d%s: the exact int32 sums dequantized (within 2^-22)", M, K, N,
	   mode == 1 ? " with bias" : mode == 2 ? " added" : "");
	ok(worst <= 1, "gemm %dx%dx%d: within the quantization bound of the float product "
	   "(worst %.3f of it)", M, K, N, worst);
	*wq = fmax(*wq, worst);
	free(A), free(X), free(C), free(C0), free(bias), free(sw), free(sb), free(inv), free(qw);
	free(qa), free(pa), free(sc);
	return exact;
}

/* the largest sums: every weight +-127 and every activation byte the
 * top (255, or 127 on the avx2 kernel, whose pairs of products then
 * reach 2 x 127 x 127 = 32258 in int16, just short of saturating), K =
 * 864: C = K 127 top sw sb exactly (here sw = sb = 1 / 127 / top: whole
 * numbers are exact in float) */
static void check_extreme(const char *k)
{
	int M = 64, N = 64, K = 864;
	float *A = malloc(sizeof(float) * M * K), *C = malloc(sizeof(float) * M * N);
	float *sw = malloc(sizeof(float) * M), *sb = malloc(sizeof(float) * N);
	uint8_t *B = malloc((size_t)K * N);
	for (int m = 0; m < M; m++)
		for (int i = 0; i < K; i++)
			A[(size_t)m * K + i] = m & 1 ? -1.0f : 1.0f;
	memset(B, (int)top, (size_t)K * N);
	for (int j = 0; j < N; j++)
		sb[j] = 1;
	int8_t *pa = malloc(gt_int8_pack_size(M, K));
	uint8_t *sc = malloc(gt_int8_scratch_size(K, 0));
	gt_int8_pack(A, M, K, K, pa, sw);
	for (int m = 0; m < M; m++)
		sw[m] = 1;
	gt_int8_gemm(M, N, K, pa, sw, B, N, sb, NULL, C, N, 0, sc);
	int bad = 0;
	for (int m = 0; m < M; m++)
		for (int j = 0; j < N; j++)
			bad += C[(size_t)m * N + j] != (m & 1 ? -1.0f : 1.0f) * K * 127 * top;
	is_int(bad, 0, "%s: the largest sums (weights +-127, bytes %.0f, K %d) exact: no pair "
	       "saturates", k, top, K);
	free(A), free(C), free(sw), free(sb), free(B), free(pa), free(sc);
}

/* gt_int8_conv3x3 on B boards of n x n, cin -> cout channels,
 * channel-major [c][b N + p], against gt_int8_gemm of the quantized
 * im2col built here with each board's scale: equal to the bit */
static int check_conv(int cin, int cout, int n, int B, int relu, int mode)
{
	int N = n * n, BN = B * N, K = cin * 9;
	float *w = malloc(sizeof(float) * cout * K), *x = malloc(sizeof(float) * cin * BN);
	float *bias = malloc(sizeof(float) * cout), *sw = malloc(sizeof(float) * cout);
	float *y = malloc(sizeof(float) * cout * BN), *y0 = malloc(sizeof(float) * cout * BN);
	float *sb = malloc(sizeof(float) * BN), *inv = malloc(sizeof(float) * BN);
	uint8_t *col = malloc((size_t)K * BN);
	for (int i = 0; i < cout * K; i++)
		w[i] = (float)(nn_randn(&rs) * 0.1);
	for (int i = 0; i < cin * BN; i++)
		x[i] = relu ? (float)nn_randn(&rs) : (float)fabs(nn_randn(&rs)) * (i % 3 != 0);
	for (int i = 0; i < cout; i++)
		bias[i] = (float)nn_randn(&rs);
	for (int i = 0; i < cout * BN; i++)
		y[i] = y0[i] = mode == 2 ? (float)nn_randn(&rs) : 0.0f;
	for (int b = 0; b < B; b++) {
		float mx = 0;
		for (int ci = 0; ci < cin; ci++)
			for (int p = 0; p < N; p++)
				mx = fmaxf(mx, x[(size_t)ci * BN + b * N + p]);
		for (int p = 0; p < N; p++)
			act_scale(mx, &inv[b * N + p], &sb[b * N + p]);
	}
	for (int ci = 0; ci < cin; ci++)
		for (int o = 0; o < 9; o++)
			for (int j = 0; j < BN; j++) {
				int b = j / N, p = j % N, yy = p / n + o / 3 - 1, xx = p % n + o % 3 - 1;
				float v = yy >= 0 && yy < n && xx >= 0 && xx < n
					? x[(size_t)ci * BN + b * N + yy * n + xx] : 0.0f;
				col[(size_t)(ci * 9 + o) * BN + j] = quant_a(v < 0 ? 0.0f : v, inv[j]);
			}
	int8_t *pa = malloc(gt_int8_pack_size(cout, K));
	uint8_t *sc = malloc(gt_int8_scratch_size(cin, n));
	gt_int8_pack(w, cout, K, K, pa, sw);
	gt_int8_gemm(cout, BN, K, pa, sw, col, BN, sb, mode == 1 ? bias : NULL, y0, BN, mode == 2,
	             sc);
	int rc = gt_int8_conv3x3(&(gt_int8_conv_args){pa, sw, cin, cout, n, BN, x, BN, relu,
	                                              mode == 1 ? bias : NULL, y, BN, mode == 2, sc});
	int same = rc == 0 && memcmp(y, y0, sizeof(float) * cout * BN) == 0;
	/* a negative input without relu: refused, nothing written */
	x[cin * BN - 1] = -1;
	memcpy(y0, y, sizeof(float) * cout * BN);
	if (!relu)
		same &= gt_int8_conv3x3(&(gt_int8_conv_args){pa, sw, cin, cout, n, BN, x, BN, 0, NULL,
		                                             y, BN, 0, sc}) == -1 &&
		        memcmp(y, y0, sizeof(float) * cout * BN) == 0;
	free(w), free(x), free(bias), free(sw), free(y), free(y0), free(sb), free(inv), free(col);
	free(pa), free(sc);
	return same;
}

/* the products and the networks on the kernel that gt_int8_kernel names
 * now (k) */
static void kernel_checks(gt_evaluator *ev, const char *k)
{
	diag("the int8 kernel: %s", k);
	top = strcmp(k, "avx2") == 0 ? 127 : 255;
	is_dbl(gt_int8_top(), top, 0, "%s: activations quantized to 0..%.0f", k, top);
	static const int shapes[][4] = {
		{96, 864, 972, 81}, {96, 864, 361, 361}, {96, 198, 81, 81}, {16, 144, 81, 9},
		{33, 9, 5, 5}, {1, 1, 1, 1}, {32, 64, 32, 32}, {96, 135, 257, 100},
		{7, 31, 300, 4}, {40, 200, 70, 70},
	};
	double wq = 0;
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		check_gemm(shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], (int)i % 3, &wq);
	diag("%s: gemm: worst error %.3f of the quantization bound", k, wq);
	check_extreme(k);
	int bad = 0, cases = 0;
	for (int n = 2; n <= 19; n++)
		for (int mo = 0; mo < 3; mo++, cases++)
			bad += !check_conv(1 + (n * 7 + mo) % 20, 1 + (n * 5 + mo * 11) % 40, n,
			                   1 + (n + mo) % 5, (n + mo) & 1, mo);
	static const int big[][4] = {{96, 96, 9, 16}, {96, 96, 19, 3}, {22, 96, 19, 2},
	                             {15, 16, 9, 7}, {16, 16, 13, 5}, {96, 96, 2, 70},
	                             {32, 32, 9, 64}, {96, 96, 9, 64}, {128, 128, 19, 2}};
	for (int i = 0; i < 9; i++, cases++)
		bad += !check_conv(big[i][0], big[i][1], big[i][2], big[i][3], i & 1, i % 3);
	is_int(bad, 0, "%s: conv3x3 (quantized per board, im2col packed as read) equals the "
	       "product of the quantized im2col: %d shapes, boards 2..19, relu, bias, added; "
	       "a negative input without relu refused", k, cases);
	prec_real(ev, GT_PREC_INT8, 0.1, 0.2);
}

/* gt_amx_shift_masks (amx.h, the packers' masks of both reduced
 * precisions) against the rule point by point: every board size, every
 * start within three boards, every column count up to 256 */
static void check_shift_masks(void)
{
	long bad = 0, calls = 0;
	for (int n = 2; n <= 19; n++) {
		int N = n * n;
		for (long n0 = 0; n0 < 3 * N; n0 += n0 < N ? 1 : 7)
			for (int nc = 1; nc <= 256; nc += nc < 40 ? 1 : 27) {
				uint16_t mk[16][9];
				long shift[9];
				memset(mk, 0xa5, sizeof mk);
				gt_amx_shift_masks(n, n0, nc, &mk[0][0], shift);
				calls++;
				for (int o = 0; o < 9; o++)
					bad += shift[o] != (long)(o / 3 - 1) * n + (o % 3 - 1);
				for (int g = 0; 16 * g < nc; g++)
					for (int o = 0; o < 9; o++) {
						unsigned want = 0;
						for (int l = 0; l < 16 && 16 * g + l < nc; l++) {
							long c = (n0 + 16 * g + l) % N;
							int y = (int)c / n + o / 3 - 1, x = (int)c % n + o % 3 - 1;
							want |= (unsigned)(y >= 0 && y < n && x >= 0 && x < n) << l;
						}
						bad += mk[g][o] != want;
					}
			}
	}
	ok(bad == 0, "the 3x3 shift masks of %ld calls (boards 2-19, starts, 1-256 columns): %ld wrong", calls,
	   bad);
}

int main(void)
{
	check_shift_masks();
	const char *why;
	gt_evaluator ev;
	gt_model *m = prec_open(&ev);
	/* GT_NO_INT8: a CPU without the instructions, emulated */
	int avail = prec_env("GT_NO_INT8", gt_int8_available, GT_PREC_INT8, &ev, &why);
	is_int(gt_nn_precision_find("int8"), GT_PREC_INT8, "\"int8\" names GT_PREC_INT8");
	is_str(gt_nn_precision_name(GT_PREC_INT8), "int8", "GT_PREC_INT8 is named int8");
	/* the board maximum (portable): relu'd, or -1 for a negative input */
	float xs[6] = {0.5f, -2, 3, 0, 1, 2.5f};
	is_dbl(gt_int8_board_max(xs, 2, 3, 3, 1), 3, 0, "board max of relu(x) over 2 channels");
	is_dbl(gt_int8_board_max(xs, 2, 3, 3, 0), -1, 0, "board max: a negative input is -1");
	is_dbl(gt_int8_board_max(xs + 3, 1, 3, 3, 0), 2.5, 0, "board max of a non-negative board");

	if (!avail) {
		diag("SKIP the int8 products and networks: %s", why);
	} else {
		prec_kernels(&ev, gt_int8_kernel, "amx-int8", kernel_checks);
	}
	gt_evaluator_close(&ev);
	gt_model_free(m);
	return done_testing();
}
