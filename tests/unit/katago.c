/* katago: gt's reader, features and forward pass of KataGo's g170 b6c96
 * network against KataGo's own raw outputs for the positions of
 * shared/data/katago/g170-b6c96-reference.ndjson (KataGo v1.17.2, Eigen
 * backend, identity symmetry; README.md there).
 *
 * Tolerances: both sides compute the same float32 network (KataGo's Eigen
 * backend, gt's OpenBLAS im2col GEMMs), so only the order of float32 sums
 * differs: about 1e-6 relative per layer, growing to a few 1e-6 absolute in
 * the outputs after the 6 blocks and the heads. A wrong feature plane, a
 * transposed weight or a misread layer moves outputs by 1e-2 and more.
 * Stated bounds (absolute): policy probability 1e-4, ownership 1e-4, win
 * rate 1e-4, score lead 1e-3 points (the lead is raw * 20, so its float
 * error is 20 times the others').
 * Also: the legal points (KataGo's -1 entries) agree exactly.
 * KataGo's rawWinrate is (1 + P(win) - P(loss)) / 2 (a no-result counts
 * half), the lead is the third score output * 20 * (1 - P(no result)). The
 * analysis engine shows the network no moves before the root (its default
 * analysisIgnorePreRootHistory), so neither does this test: the history
 * planes are checked by hand in katafeat.c's test instead.
 * Every position is evaluated three times, with GT_CONV=im2col, with
 * GT_CONV=winograd (the 3x3 convolutions by Winograd F(4x4,3x3), whose
 * float error is larger: tests/unit/wino.c) and with GT_CONV=onednn
 * (oneDNN's convolutions, lib/nn/dnn.h), against the same bounds, and
 * the last two are compared with the first.
 * In bf16 and int8 (where the CPU has them), the positions of each board
 * size in one batch against each alone: a batch's trunk is channel-major
 * (lib/nn/katago.c trunk_cm), one position's is not, and the quantization
 * is per position, so int8's outputs agree to float32 rounding (1e-5);
 * bf16's depend on the batch at bfloat16's resolution (0.0035 on 19x19,
 * the same before the trunk was channel-major), so within 0.01 there. */
#include "tap.h"
#include "board.h"
#include "gt.h"
#include "katafeat.h"
#include "katago.h"
#include "nn.h"
#include "kata_util.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TOL_POLICY 1e-4
#define TOL_OWN 1e-4
#define TOL_WIN 1e-4
#define TOL_LEAD 1e-3

static const char *data_dir(void)
{
	static char dir[4096];
	struct stat st;
	const char *d = getenv("GT_KATAGO_DATA");
	if (d)
		snprintf(dir, sizeof dir, "%s", d);
	else {
		const char *src = getenv("GT_SRC");
		snprintf(dir, sizeof dir, "%s/../shared/data/katago", src ? src : ".");
	}
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? dir : NULL;
}

/* k on the position b (KataGo's features planes, globals) against the
 * reference j; emax (policy, ownership, win rate, lead) keeps the largest
 * errors, raw gets the raw outputs (policy, ownership, value, score). */
static void check_pos(gt_kata *k, const char *how, const char *id, const gt_board *b, json_t *j,
                      const float *planes, const float *globals, double emax[4], float *raw)
{
	gt_kata_out out;
	int n = b->n, N = n * n;
	gt_kata_forward(k, 1, n, planes, globals, &out);
	/* the raw outputs, for comparing the two ways */
	kata_raw(&out, 0, n, gt_kata_info_of(k)->score_outputs, raw);
	json_t *pol = json_object_get(j, "policy"), *own = json_object_get(j, "ownership");
	/* policy: softmax over the legal moves */
	double mx = -1e30, sum = 0, e_pol = 0;
	int legal_ok = 1;
	for (int p = 0; p <= N; p++) {
		int lg = p == N || (b->color[p] == GT_EMPTY && p != b->ko &&
		                    gt_board_legal(b, b->to_move, p) != GT_ESUICIDE);
		double ref = json_number_value(json_array_get(pol, p));
		if (lg != (ref >= 0))
			legal_ok = 0;
		if (lg && out.policy[p] > mx)
			mx = out.policy[p];
	}
	for (int p = 0; p <= N; p++)
		if (json_number_value(json_array_get(pol, p)) >= 0)
			sum += exp(out.policy[p] - mx);
	for (int p = 0; p <= N; p++) {
		double ref = json_number_value(json_array_get(pol, p));
		if (ref < 0)
			continue;
		double d = fabs(exp(out.policy[p] - mx) / sum - ref);
		e_pol = d > e_pol ? d : e_pol;
	}
	double e_own = 0;
	for (int p = 0; p < N; p++) {
		double d = fabs(tanh(out.own[p]) - json_number_value(json_array_get(own, p)));
		e_own = d > e_own ? d : e_own;
	}
	const float *v = out.value;
	double m = fmax(fmax(v[0], v[1]), v[2]);
	double w = exp(v[0] - m), l = exp(v[1] - m), nr = exp(v[2] - m), s = w + l + nr;
	double win = 0.5 * (1.0 + (w - l) / s), lead = out.score[2] * 20.0 * (1.0 - nr / s);
	double e_win = fabs(win - json_number_value(json_object_get(j, "rawWinrate")));
	double e_lead = fabs(lead - json_number_value(json_object_get(j, "rawLead")));
	ok(legal_ok, "%s %s: legal points agree", id, how);
	ok(e_pol <= TOL_POLICY && e_own <= TOL_OWN && e_win <= TOL_WIN && e_lead <= TOL_LEAD,
	   "%s %s: policy %.2g, ownership %.2g, win rate %.2g, lead %.2g", id, how, e_pol, e_own,
	   e_win, e_lead);
	emax[0] = fmax(emax[0], e_pol);
	emax[1] = fmax(emax[1], e_own);
	emax[2] = fmax(emax[2], e_win);
	emax[3] = fmax(emax[3], e_lead);
}

/* value output j of one position by k (another network: k's own outputs
 * are left as they were) */
static float raw_fp32_value(gt_kata *k, int n, const float *planes, const float *globals, int j)
{
	gt_kata_out o;
	gt_kata_forward(k, 1, n, planes, globals, &o);
	return o.value[j];
}

int main(void)
{
	const char *dir = data_dir();
	if (!dir)
		skip_all("shared/data/katago not found (GT_SRC/../shared or GT_KATAGO_DATA)");
	char path[4200];
	snprintf(path, sizeof path, "%s/g170-b6c96-s175395328-d26788732.bin.gz", dir);
	gt_error e;
	static const char *modes[3] = {"im2col", "winograd", "onednn"};
	gt_kata *km[3];
	int rc = 0, nk = 0;
	for (; nk < 3 && rc == 0; nk++) {
		setenv("GT_CONV", modes[nk], 1);
		rc = gt_kata_read(path, &km[nk], &e);
	}
	unsetenv("GT_CONV");
	if (rc != 0) {
		for (int i = 0; i < nk - 1; i++)
			gt_kata_free(km[i]);
		ok(0, "read %s: %s", path, e.text);
		return done_testing();
	}
	gt_kata *k = km[0];
	const gt_kata_info *in = gt_kata_info_of(k);
	ok(in->version == 8 && in->blocks == 6 && in->channels == 96 && in->gpool_blocks == 2,
	   "b6c96: version %d, %d blocks of %d channels, %d gpool", in->version, in->blocks,
	   in->channels, in->gpool_blocks);
	snprintf(path, sizeof path, "%s/g170-b6c96-reference.ndjson", dir);
	FILE *f = fopen(path, "r");
	ok(f != NULL, "open %s", path);
	if (!f)
		return done_testing();
	static char line[1 << 20];
	static float planes[GT_KATAFEAT_PLANES * GT_MAX_PTS], globals[GT_KATAFEAT_GLOBALS];
	double emax[3][4] = {{0}}; /* each mode: policy, ownership, win rate, lead */
	double dmax[3] = {0};      /* each against im2col, raw outputs */
	int npos = 0;
	/* each position's size and inputs, for the batches below */
	static int sizes[16];
	static float bplanes[16][GT_KATAFEAT_PLANES * GT_MAX_PTS], bglobals[16][GT_KATAFEAT_GLOBALS];
	while (fgets(line, sizeof line, f)) {
		json_error_t je;
		json_t *j = json_loads(line, 0, &je);
		if (!j)
			continue;
		const char *id = json_string_value(json_object_get(j, "id"));
		json_t *q = json_object_get(j, "query");
		int n = (int)json_integer_value(json_object_get(q, "boardXSize"));
		double komi = json_number_value(json_object_get(q, "komi"));
		static gt_board b;
		gt_board_init(&b, n, gt_rules_find("chinese"), komi);
		json_t *moves = json_object_get(q, "moves");
		int bad = 0;
		for (size_t i = 0; i < json_array_size(moves); i++) {
			json_t *m = json_array_get(moves, i);
			int c = gt_color_parse(json_string_value(json_array_get(m, 0)));
			int pt = gt_vertex_parse(n, json_string_value(json_array_get(m, 1)));
			if (c < 0 || pt < 0 || gt_board_play(&b, c, pt) != 0)
				bad = 1;
		}
		ok(!bad, "%s: %zu moves replayed", id, json_array_size(moves));
		/* KataGo's "chinese" is simple ko; its analysis engine hides the
		 * moves before the root (analysisIgnorePreRootHistory) */
		gt_katafeat_encode(&b, GT_KO_SIMPLE, 0, NULL, planes, globals);
		if (npos < 16) {
			sizes[npos] = n;
			memcpy(bplanes[npos], planes, sizeof planes);
			memcpy(bglobals[npos], globals, sizeof globals);
		}
		static float raw[3][2 * GT_MAX_PTS + 16];
		for (int mode = 0; mode < 3; mode++)
			check_pos(km[mode], modes[mode], id, &b, j, planes, globals, emax[mode], raw[mode]);
		int N = n * n;
		for (int mode = 1; mode < 3; mode++)
			for (int i = 0; i < 2 * N + 4 + in->score_outputs; i++)
				dmax[mode] = fmax(dmax[mode], fabs(raw[mode][i] - raw[0][i]) / fmax(1.0, fabs(raw[0][i])));
		npos++;
		json_decref(j);
	}
	fclose(f);
	ok(npos == 16, "%d positions", npos);
	for (int mode = 0; mode < 3; mode++)
		diag("%s: largest errors over %d positions: policy %.3g (tolerance %g), ownership "
		     "%.3g (%g), win rate %.3g (%g), lead %.3g points (%g)",
		     modes[mode], npos, emax[mode][0], TOL_POLICY, emax[mode][1],
		     TOL_OWN, emax[mode][2], TOL_WIN, emax[mode][3], TOL_LEAD);
	for (int mode = 1; mode < 3; mode++)
		ok(dmax[mode] < 1e-4, "%s against im2col: raw outputs within %.2g of max(1, |im2col|)",
		   modes[mode], dmax[mode]);
	/* bf16 and int8: a batch of each size against its positions alone */
	static const int precs[2] = {GT_PREC_BF16, GT_PREC_INT8};
	for (int pi = 0; pi < 2; pi++) {
		const char *why, *pname = precs[pi] == GT_PREC_BF16 ? "bf16" : "int8";
		if (!kata_prec(k, precs[pi], "batches"))
			continue;
		static const int ns[3] = {9, 13, 19};
		for (int si = 0; si < 3; si++) {
			int n = ns[si], N = n * n, B = 0, idx[16];
			for (int i = 0; i < npos && i < 16; i++)
				if (sizes[i] == n)
					idx[B++] = i;
			if (B < 2)
				continue;
			static float bp[16 * GT_KATAFEAT_PLANES * GT_MAX_PTS], bg[16 * GT_KATAFEAT_GLOBALS];
			for (int i = 0; i < B; i++) {
				memcpy(bp + (size_t)i * GT_KATAFEAT_PLANES * N, bplanes[idx[i]],
				       sizeof(float) * GT_KATAFEAT_PLANES * N);
				memcpy(bg + (size_t)i * GT_KATAFEAT_GLOBALS, bglobals[idx[i]],
				       sizeof(float) * GT_KATAFEAT_GLOBALS);
			}
			int S = in->score_outputs, W = 2 * N + 4 + S;
			static float whole[16 * (2 * GT_MAX_PTS + 16)], one[2 * GT_MAX_PTS + 16];
			gt_kata_out o;
			gt_kata_forward(k, B, n, bp, bg, &o);
			for (int i = 0; i < B; i++)
				kata_raw(&o, i, n, S, whole + (size_t)i * W);
			double d = 0, moved = 0;
			for (int i = 0; i < B; i++) {
				gt_kata_forward(k, 1, n, bplanes[idx[i]], bglobals[idx[i]], &o);
				kata_raw(&o, 0, n, S, one);
				d = fmax(d, kata_diff(whole + (size_t)i * W, one, W));
				/* and the precision was in effect: float32 moves the outputs */
				for (int j = 0; j < 3; j++)
					moved = fmax(moved, fabs(o.value[j] - raw_fp32_value(km[1], n, bplanes[idx[i]],
					                                                 bglobals[idx[i]], j)));
			}
			ok(d <= (precs[pi] == GT_PREC_INT8 ? 1e-5 : 1e-2), "%s: %d positions of %dx%d in one batch as each alone (%.2g)", pname, B,
			   n, n, d);
			ok(moved > 0, "%s: %dx%d: the outputs differ from float32's (%.2g)", pname, n, n, moved);
		}
		gt_kata_precision(k, GT_PREC_FP32, &why);
	}
	for (int mode = 0; mode < 3; mode++)
		gt_kata_free(km[mode]);
	return done_testing();
}
