/*
 * prec_util.h: helpers shared by the tests of the play precisions (bf16,
 * int8; not part of the library): 1,000 real 19x19 positions and a
 * network's outputs in a precision against float32 on them.
 */
#ifndef GT_TEST_PREC_UTIL_H
#define GT_TEST_PREC_UTIL_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "board.h"
#include "kataeval.h"
#include "neteval.h"
#include "nn.h"
#include "sgf.h"
#include "sgf_util.h"
#include "tap.h"

#define NPOS 1000
#define BATCH 8

/* NPOS, or fewer where the environment variable GT_PREC_POSITIONS says
 * (1..NPOS; tests/cmd/arm64.t under emulation) */
static int prec_npos(void)
{
	const char *s = getenv("GT_PREC_POSITIONS");
	int n = s ? atoi(s) : 0;
	return n >= 1 && n <= NPOS ? n : NPOS;
}

/* the 19x19 positions: every 7th from move 10 of the goban games, up to
 * prec_npos(); returns how many (0 without the package) */
static __attribute__((unused)) gt_board *prec_positions(int *count)
{
	gt_board *pos = malloc(sizeof(gt_board) * NPOS);
	int np = 0, nn, want = prec_npos();
	char **names = goban_games(&nn);
	if (!names) {
		*count = 0;
		return pos;
	}
	const gt_rules *rules = gt_rules_find("chinese");
	static gt_board b;
	for (int i = 0; i < nn && np < want; i++) {
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
		for (int k = 0; k < gs[0].nmoves && np < want; k++) {
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
static void prec_evaluate(gt_evaluator *ev, const gt_board *pos, int np, float *logits, float *value)
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
static void prec_softmax(const float *l, double *p)
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

/* ev in float32 and in precision prec on the positions: on each, every
 * move's probability within dpb and the value within dvb of float32, the
 * same best move on 90% of them; the largest differences said in a
 * diagnostic */
static __attribute__((unused)) void prec_compare(const char *what, gt_evaluator *ev,
                                                 const gt_board *pos, int np, int prec,
                                                 double dpb, double dvb)
{
	float *l32 = malloc(sizeof(float) * np * 362), *lq = malloc(sizeof(float) * np * 362);
	float *v32 = malloc(sizeof(float) * np), *vq = malloc(sizeof(float) * np);
	const char *why;
	is_int(gt_neteval_precision(ev, GT_PREC_FP32, &why), GT_PREC_FP32, "%s: fp32", what);
	prec_evaluate(ev, pos, np, l32, v32);
	const char *name = gt_nn_precision_name(prec);
	is_int(gt_neteval_precision(ev, prec, &why), prec, "%s: %s", what, name);
	prec_evaluate(ev, pos, np, lq, vq);
	double dp = 0, dv = 0, sum = 0;
	int same = 0, inside = 0, moved = 0;
	for (int i = 0; i < np; i++) {
		double p32[362], pq[362], d = 0;
		prec_softmax(l32 + (size_t)i * 362, p32);
		prec_softmax(lq + (size_t)i * 362, pq);
		int b32 = 0, bq = 0;
		for (int k = 0; k < 362; k++) {
			d = fmax(d, fabs(pq[k] - p32[k]));
			b32 = p32[k] > p32[b32] ? k : b32;
			bq = pq[k] > pq[bq] ? k : bq;
		}
		double v = fabs(vq[i] - v32[i]);
		inside += d <= dpb && v <= dvb;
		moved += d > 0 || v > 0;
		dp = fmax(dp, d);
		dv = fmax(dv, v);
		sum += d;
		same += b32 == bq;
	}
	is_int(inside, np, "%s: %d positions: every move's probability within %g and the "
	       "value within %g of float32", what, np, dpb, dvb);
	ok(same >= 0.9 * np, "%s: the same best move in %d of %d positions (>= 90%%)", what, same, np);
	ok(moved > 0, "%s: %s was used (outputs differ from float32 on %d positions)", what, name,
	   moved);
	diag("%s: %s: largest |dp| %.4f (mean of the largest per position %.4f), largest |dv| %.4f",
	     what, name, dp, sum / np, dv);
	free(l32), free(lq), free(v32), free(vq);
}

/* prec_open: a random gt b6c96 network (seed 7) into ev on the CPU,
 * both steps asserted; the model, for gt_model_free after
 * gt_evaluator_close(ev) (NULL when it failed) */
static __attribute__((unused)) gt_model *prec_open(gt_evaluator *ev)
{
	gt_arch a;
	gt_error e;
	ok(gt_model_parse_arch("b6c96", &a, &e) == 0, "arch b6c96");
	gt_model *m = gt_model_new_random(&a, 7, &e);
	ok(m && gt_neteval_open(m, "cpu", ev, &e) == 0, "a random gt b6c96 network");
	return m;
}

/* GT_NO_BF16 or GT_NO_INT8 (env) set to 1 emulates a CPU without the
 * instructions: available (gt_bf16_available, gt_int8_available) says
 * no and why, and the evaluator ev (a network) takes fp32 for prec and
 * says why; "0" counts as unset. Returns available's answer with env
 * unset, *why its reason. */
static __attribute__((unused)) int prec_env(const char *env, int (*available)(const char **),
                                            int prec, gt_evaluator *ev, const char **why)
{
	char want[64];
	snprintf(want, sizeof want, "%s is set", env);
	setenv(env, "1", 1);
	is_int(available(why), 0, "%s=1: not available", env);
	is_str(*why, want, "%s=1: says why", env);
	is_int(gt_neteval_precision(ev, prec, why), GT_PREC_FP32, "%s=1: %s asked, fp32 in effect",
	       env, gt_nn_precision_name(prec));
	is_str(*why, want, "%s=1: the evaluator says why", env);
	setenv(env, "0", 1);
	int avail = available(why);
	unsetenv(env);
	is_int(available(NULL), avail, "%s=0 is unset", env);
	return avail;
}

/* prec_compare on the positions for ev (a gt network) and KataGo's g170
 * b6c96 (the shared data), each skipped with a diagnostic when absent */
static __attribute__((unused)) void prec_real(gt_evaluator *ev, int prec, double dpb, double dvb)
{
	gt_error e;
	int np;
	gt_board *pos = prec_positions(&np);
	if (!np) {
		diag("SKIP the networks on real positions: " GOBAN " not found (Debian's "
		     "goban-original-games)");
	} else {
		is_int(np, prec_npos(), "%d positions from the goban games", prec_npos());
		prec_compare("gt b6c96 (random weights)", ev, pos, np, prec, dpb, dvb);
		/* global pooling blocks (KataGo's g170 b6c96 has them; gt's
		 * b6c96g2 pools in blocks 2 and 4 the same way) */
		gt_arch ga;
		gt_model *gm = NULL;
		gt_evaluator gev;
		if (gt_model_parse_arch("b6c96g2", &ga, &e) == 0 &&
		    (gm = gt_model_new_random(&ga, 7, &e)) && gt_neteval_open(gm, "cpu", &gev, &e) == 0) {
			prec_compare("gt b6c96g2 (global pooling, random weights)", &gev, pos, np, prec, dpb,
			             dvb);
			gt_evaluator_close(&gev);
		} else {
			ok(0, "a random gt b6c96g2 network: %s", e.text);
		}
		gt_model_free(gm);
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
			prec_compare("KataGo g170 b6c96", &kev, pos, np, prec, dpb, dvb);
			gt_evaluator_close(&kev);
		}
	}
	free(pos);
}

/* prec_kernels: checks(ev, kernel) on each kernel family of a reduced
 * precision that the CPU has (kernel: gt_bf16_kernel or gt_int8_kernel):
 * the one chosen now (the tiles first where there are tiles, "amx"
 * names them), then, with GT_NO_AMX=1, the AVX-512 kernel beside the
 * tiles; where there are no tiles GT_NO_AMX=1 must leave the choice as
 * it was; then, with GT_NO_AVX512=1 too, the AVX2 kernel (int8's
 * AVX-VNNI) where the CPU has it; then, with GT_NO_VNNI=1 too, int8's
 * plain AVX2 kernel where it is not the one checked already. Each kernel
 * not on this CPU is a skip with its reason. */
static __attribute__((unused)) void prec_kernels(gt_evaluator *ev,
                                                 const char *(*kernel)(const char **),
                                                 const char *amx,
                                                 void (*checks)(gt_evaluator *, const char *))
{
	const char *why, *k = kernel(&why), *k2;
	ok(k != NULL, "available: a kernel is named (%s)", k ? k : "none");
	if (!k)
		return;
	checks(ev, k);
	setenv("GT_NO_AMX", "1", 1);
	k2 = kernel(&why);
	if (strcmp(k, amx) == 0) {
		is_str(why, "GT_NO_AMX is set", "GT_NO_AMX=1: the tiles set aside, and why");
		if (k2)
			checks(ev, k2);
		else
			diag("SKIP the AVX-512 kernel beside the tiles: the CPU has not its instructions");
	} else {
		is_str(k2, k, "GT_NO_AMX=1 where there are no tiles: the same kernel (%s)", k);
		diag("SKIP the %s kernel: %s", amx, why ? why : "not on this CPU");
	}
	/* and after an AVX-512 kernel, with GT_NO_AVX512=1, the AVX2 family
	 * (int8's AVX-VNNI) where the CPU has it, else float32 */
	const char *k3 = NULL;
	if (k2 && strncmp(k2, "avx512", 6) == 0) {
		setenv("GT_NO_AVX512", "1", 1);
		k3 = kernel(&why);
		if (k3 && strcmp(k3, k2) != 0) {
			checks(ev, k3);
		} else {
			ok(k3 == NULL, "GT_NO_AVX512=1: not the AVX-512 kernel (%s)", k3 ? k3 : "none");
			diag("SKIP an AVX2 kernel: %s", why ? why : "none for this precision");
		}
		unsetenv("GT_NO_AVX512");
	}
	/* and, with GT_NO_VNNI=1 and the other two, int8's plain AVX2 kernel
	 * (vpmaddubsw) where the CPU has AVX2 and another kernel ran above */
	setenv("GT_NO_AVX512", "1", 1);
	setenv("GT_NO_VNNI", "1", 1);
	const char *k4 = kernel(&why);
	if (k4 && strcmp(k4, k) != 0 && (!k2 || strcmp(k4, k2) != 0) && (!k3 || strcmp(k4, k3) != 0)) {
		is_str(why, "GT_NO_VNNI is set", "GT_NO_VNNI=1: the VNNI kernels set aside, and why");
		checks(ev, k4);
	} else {
		diag("SKIP a plain AVX2 kernel beside the others: %s", k4 ? "it is the one above"
		                                                          : "none for this precision");
	}
	unsetenv("GT_NO_VNNI");
	unsetenv("GT_NO_AVX512");
	unsetenv("GT_NO_AMX");
}

#endif
