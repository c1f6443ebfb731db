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
 * Where the CPU has no AMX-BF16 the bfloat16 parts are skipped (said as a
 * skip with the reason); the float32 fallback is tested everywhere with
 * GT_NO_BF16, which emulates such a CPU.
 */
#include "tap.h"
#include "bf16.h"
#include "kataeval.h"
#include "model.h"
#include "neteval.h"
#include "nn.h"
#include "nn_batch.h"
#include "sgf_util.h"

#include <string.h>

#define NPOS 1000
#define BATCH 8

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

/* the 19x19 positions: every 7th from move 10 of the goban games, up to
 * NPOS; returns how many (0 without the package) */
static gt_board *positions(int *count)
{
	gt_board *pos = malloc(sizeof(gt_board) * NPOS);
	int np = 0, nn;
	char **names = goban_games(&nn);
	if (!names) {
		*count = 0;
		return pos;
	}
	const gt_rules *rules = gt_rules_find("chinese");
	static gt_board b;
	for (int i = 0; i < nn && np < NPOS; i++) {
		char path[4096];
		gt_sgf_game *gs = NULL;
		int ng = 0;
		gt_error e;
		snprintf(path, sizeof path, GOBAN "/%s", names[i]);
		if (gt_sgf_read_file(path, &gs, &ng, &e) < 0 || ng != 1 || gs[0].err ||
		    gs[0].size != 19 || gs[0].nblack || gs[0].nwhite) {
			if (gs)
				gt_sgf_free(gs, ng);
			continue;
		}
		gt_board_init(&b, 19, rules, 7.5);
		for (int k = 0; k < gs[0].nmoves && np < NPOS; k++) {
			if (gt_board_play(&b, gs[0].moves[k].color, gs[0].moves[k].pt) != 0)
				break;
			if (k >= 10 && k % 7 == 3)
				pos[np++] = b;
		}
		gt_sgf_free(gs, ng);
	}
	goban_games_free(names, nn);
	*count = np;
	return pos;
}

/* evaluations of the positions by ev into logits (np x 362) and value */
static void evaluate(gt_evaluator *ev, const gt_board *pos, int np, float *logits, float *value)
{
	static float score[BATCH], own[BATCH * 361];
	for (int i = 0; i < np; i += BATCH) {
		const gt_board *bs[BATCH];
		int nb = np - i < BATCH ? np - i : BATCH;
		for (int j = 0; j < nb; j++)
			bs[j] = &pos[i + j];
		ev->eval(ev->ctx, 19, nb, bs, logits + (size_t)i * 362, value + i, score, own);
	}
}

/* the softmax of the finite logits of one position */
static void softmax(const float *l, double *p)
{
	double m = -INFINITY, s = 0;
	for (int i = 0; i < 362; i++)
		if (isfinite(l[i]))
			m = fmax(m, l[i]);
	for (int i = 0; i < 362; i++)
		s += p[i] = isfinite(l[i]) ? exp(l[i] - m) : 0;
	for (int i = 0; i < 362; i++)
		p[i] /= s;
}

/* ev in float32 and in bfloat16 on the positions, within the bounds */
static void compare(const char *what, gt_evaluator *ev, const gt_board *pos, int np)
{
	float *l32 = malloc(sizeof(float) * np * 362), *l16 = malloc(sizeof(float) * np * 362);
	float *v32 = malloc(sizeof(float) * np), *v16 = malloc(sizeof(float) * np);
	const char *why;
	is_int(gt_neteval_precision(ev, GT_PREC_FP32, &why), GT_PREC_FP32, "%s: fp32", what);
	evaluate(ev, pos, np, l32, v32);
	is_int(gt_neteval_precision(ev, GT_PREC_BF16, &why), GT_PREC_BF16, "%s: bf16", what);
	evaluate(ev, pos, np, l16, v16);
	double dp = 0, dv = 0, sum = 0;
	int same = 0, inside = 0, moved = 0;
	for (int i = 0; i < np; i++) {
		double p32[362], p16[362], d = 0;
		softmax(l32 + (size_t)i * 362, p32);
		softmax(l16 + (size_t)i * 362, p16);
		int b32 = 0, b16 = 0;
		for (int k = 0; k < 362; k++) {
			d = fmax(d, fabs(p16[k] - p32[k]));
			b32 = p32[k] > p32[b32] ? k : b32;
			b16 = p16[k] > p16[b16] ? k : b16;
		}
		double v = fabs(v16[i] - v32[i]);
		inside += d <= 0.03 && v <= 0.05;
		moved += d > 0 || v > 0;
		dp = fmax(dp, d);
		dv = fmax(dv, v);
		sum += d;
		same += b32 == b16;
	}
	is_int(inside, np, "%s: %d positions: every move's probability within 0.03 and the "
	       "value within 0.05 of float32", what, np);
	ok(same >= 0.9 * np, "%s: the same best move in %d of %d positions (>= 90%%)", what, same, np);
	ok(moved > 0, "%s: bfloat16 was used (outputs differ from float32 on %d positions)", what,
	   moved);
	diag("%s: largest |dp| %.4f (mean of the largest per position %.4f), largest |dv| %.4f",
	     what, dp, sum / np, dv);
	free(l32), free(l16), free(v32), free(v16);
}

int main(void)
{
	const char *why;
	/* GT_NO_BF16: a CPU without AMX-BF16, emulated */
	setenv("GT_NO_BF16", "1", 1);
	is_int(gt_bf16_available(&why), 0, "GT_NO_BF16=1: not available");
	is_str(why, "GT_NO_BF16 is set", "GT_NO_BF16=1: says why");
	gt_arch a;
	gt_error e;
	ok(gt_model_parse_arch("b6c96", &a, &e) == 0, "arch b6c96");
	gt_model *m = gt_model_new_random(&a, 7, &e);
	gt_evaluator ev;
	ok(m && gt_neteval_open(m, "cpu", &ev, &e) == 0, "a random gt b6c96 network");
	is_int(gt_neteval_precision(&ev, GT_PREC_BF16, &why), GT_PREC_FP32,
	       "GT_NO_BF16=1: bf16 asked, fp32 in effect");
	is_str(why, "GT_NO_BF16 is set", "GT_NO_BF16=1: the evaluator says why");
	setenv("GT_NO_BF16", "0", 1);
	int avail = gt_bf16_available(&why);
	unsetenv("GT_NO_BF16");
	is_int(gt_bf16_available(NULL), avail, "GT_NO_BF16=0 is unset");
	gt_evaluator none = gt_evaluator_uniform();
	is_int(gt_neteval_precision(&none, GT_PREC_BF16, &why), -1, "none: not a network");

	if (!avail) {
		diag("SKIP the bfloat16 products and networks: %s", why);
	} else {
		static const int shapes[][3] = {
			{96, 864, 972}, {96, 864, 361}, {96, 198, 81}, {16, 144, 81}, {33, 9, 5},
			{1, 1, 1}, {32, 64, 32}, {96, 135, 257}, {7, 31, 300},
		};
		double worst = 0;
		for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
			worst = fmax(worst, check_gemm(shapes[i][0], shapes[i][1], shapes[i][2], (int)i & 1));
		diag("gemm: worst error %.3f of the bound", worst);
		int bad = 0, cases = 0;
		for (int n = 2; n <= 19; n++)
			for (int m = 0; m < 3; m++, cases++)
				bad += !check_conv(1 + (n * 7 + m) % 20, 1 + (n * 5 + m * 11) % 40, n,
				                   1 + (n + m) % 4, (n + m) & 1, m);
		static const int big[][4] = {{96, 96, 9, 16}, {96, 96, 19, 3}, {22, 96, 19, 2},
		                             {15, 16, 9, 7}, {16, 16, 13, 5}};
		for (int i = 0; i < 5; i++, cases++)
			bad += !check_conv(big[i][0], big[i][1], big[i][2], big[i][3], i & 1, i % 3);
		is_int(bad, 0, "conv3x3 (im2col packed as read) equals the product of the im2col: "
		       "%d shapes, boards 2..19, relu, bias, added", cases);
		int np;
		gt_board *pos = positions(&np);
		if (!np) {
			diag("SKIP the networks on real positions: " GOBAN " not found (Debian's "
			     "goban-original-games)");
		} else {
			is_int(np, NPOS, "%d positions from the goban games", NPOS);
			compare("gt b6c96 (random weights)", &ev, pos, np);
			char path[4096];
			const char *src = getenv("GT_SRC"), *kd = getenv("GT_KATAGO_DATA");
			if (kd)
				snprintf(path, sizeof path, "%s/g170-b6c96-s175395328-d26788732.bin.gz", kd);
			else
				snprintf(path, sizeof path, "%s/../shared/data/katago/"
				         "g170-b6c96-s175395328-d26788732.bin.gz", src ? src : ".");
			gt_evaluator kev;
			if (gt_kataeval_open(path, "cpu", &kev, &e) != 0) {
				diag("SKIP KataGo's g170 b6c96: %s", e.text);
			} else {
				compare("KataGo g170 b6c96", &kev, pos, np);
				gt_evaluator_close(&kev);
			}
		}
		free(pos);
	}
	gt_evaluator_close(&ev);
	gt_model_free(m);
	return done_testing();
}
