/* kataexport: gt networks written as KataGo models (kataexport.h) and read
 * back by gt's KataGo reader (nn/katago.c, itself checked against KataGo's
 * own outputs in tests/unit/katago.c) give the gt network's outputs on
 * positions of random games: policy logits, value, score, ownership, for
 * ordinary and global pooling blocks, a trunk narrower than the 15 planes,
 * the auxiliary policy head (not written), the three rulesets, komi of
 * either sign and board sizes 5 to 19. The planes are also checked one by
 * one: gt's from KataGo's by the export's formulas equal gt's own except
 * at KataGo's superko bans (counted). */
#include "tap.h"
#include "board.h"
#include "feat.h"
#include "gt.h"
#include "kataexport.h"
#include "katafeat.h"
#include "katago.h"
#include "model.h"
#include "nn.h"
#include "rng.h"

#include <stdlib.h>
#include <unistd.h>

static double unif(gt_rng *r)
{
	return (double)(gt_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* every parameter random: weights uniform with variance 1/fan-in (x 2 for
 * the second convolutions, so that blocks matter), biases in [-0.5, 0.5],
 * each block's s in [0.5, 1.5] */
static void randomise(gt_model *m, uint64_t seed)
{
	gt_rng r;
	gt_rng_seed(&r, seed);
	for (int i = 0; i < gt_arch_ntensors(&m->arch); i++) {
		gt_tensor t;
		gt_arch_tensor(&m->arch, i, &t);
		float *p = m->params + t.offset;
		size_t fan = t.ndim >= 2 ? t.size / (size_t)t.shape[0] : t.size;
		double a = t.ndim >= 2 ? sqrt(3.0 / (double)fan) : 0.5;
		if (strstr(t.name, ".w2"))
			a *= 1.4;
		for (size_t j = 0; j < t.size; j++)
			p[j] = (float)((2 * unif(&r) - 1) * a);
		if (strstr(t.name, ".s"))
			p[0] = (float)(0.5 + unif(&r));
	}
}

/* gt's planes from KataGo's as the exported extra block computes them */
static void gt_from_kata(const float *kp, int N, float *out)
{
	const float *on = kp, *own = kp + N, *opp = kp + 2 * N, *l1 = kp + 3 * N, *l2 = kp + 4 * N;
	for (int p = 0; p < N; p++) {
		float r[GT_FEAT_PLANES] = {
			on[p], own[p], opp[p],
			fmaxf(own[p] + l1[p] - 1, 0), fmaxf(own[p] + l2[p] - 1, 0), fmaxf(own[p] - l1[p] - l2[p], 0),
			fmaxf(opp[p] + l1[p] - 1, 0), fmaxf(opp[p] + l2[p] - 1, 0), fmaxf(opp[p] - l1[p] - l2[p], 0),
			kp[6 * N + p], kp[9 * N + p], kp[10 * N + p], kp[11 * N + p], kp[12 * N + p], kp[13 * N + p],
		};
		for (int f = 0; f < GT_FEAT_PLANES; f++)
			out[f * N + p] = r[f];
	}
}

typedef struct errs {
	double logit, value, score, own;
	int positions, superko, plane_bad, glob_bad;
} errs;

/* one position: gt's network on gt's features against the export on
 * KataGo's (for the ko rule kko: -1 the board's, or KataGo's simple ko) */
static void compare(gt_nn *nn, gt_kata *k, const gt_board *b, int kko, gt_katafeat_ws *ws, errs *er)
{
	int n = b->n, N = n * n;
	static float fp[GT_FEAT_PLANES * GT_MAX_PTS], fg[GT_FEAT_GLOBALS];
	static float kp[GT_KATAFEAT_PLANES * GT_MAX_PTS], kg[GT_KATAFEAT_GLOBALS];
	static float mp[GT_FEAT_PLANES * GT_MAX_PTS];
	gt_feat_encode(b, fp, fg);
	gt_katafeat_encode(b, kko, -1, ws, kp, kg);
	/* the planes: equal but where KataGo's ko plane has a superko ban */
	gt_from_kata(kp, N, mp);
	int sk = 0;
	for (int p = 0; p < N; p++)
		sk |= kp[6 * N + p] != 0 && p != b->ko;
	if (sk) {
		er->superko++;
		return;
	}
	er->plane_bad += memcmp(mp, fp, sizeof(float) * GT_FEAT_PLANES * N) != 0;
	/* the globals: gt's as the export maps KataGo's */
	float mg[GT_FEAT_GLOBALS] = {kg[5], kg[0], kg[1], kg[2], kg[3], kg[4],
	                             kg[7] + kg[8] - 0.5f * kg[6], 1 - kg[8], 0.5f * kg[6] - kg[7], 1, kg[8]};
	er->glob_bad += memcmp(mg, fg, sizeof mg) != 0;
	gt_nn_out o;
	gt_kata_out ko;
	gt_nn_forward(nn, 1, n, fp, fg, 0, &o);
	gt_kata_forward(k, 1, n, kp, kg, &ko);
	for (int i = 0; i <= N; i++)
		er->logit = fmax(er->logit, fabs(o.policy[i] - ko.policy[i]));
	/* KataGo's value: P(win) - P(loss), the no-result dropped under superko */
	double w = ko.value[0], l = ko.value[1], nr = ko.value[2], mx = fmax(w, l);
	double pnr = kko == GT_KO_SIMPLE ? exp(nr - mx) : 0;
	double v = (exp(w - mx) - exp(l - mx)) / (exp(w - mx) + exp(l - mx) + pnr);
	er->value = fmax(er->value, fabs(o.value[0] - v));
	er->score = fmax(er->score, fabs(o.score[0] - 20.0 * ko.score[2]));
	er->score = fmax(er->score, fabs(o.score[0] - 20.0 * ko.score[0]));
	for (int i = 0; i < N; i++)
		er->own = fmax(er->own, fabs(o.own[i] - tanh(ko.own[i])));
	er->positions++;
}

/* random games on sizes, rulesets and komis; evaluate every other
 * position; two of the four chinese games shown to the export as KataGo's
 * "chinese" (simple ko) */
static void games(gt_nn *nn, gt_kata *k, uint64_t seed, errs *er)
{
	static const int sizes[] = {5, 7, 9, 13, 19};
	static const double komis[] = {7.5, -4.5, 0, 3, 6.5};
	static gt_board b;
	gt_rng r;
	gt_rng_seed(&r, seed);
	gt_katafeat_ws *ws = gt_katafeat_ws_new();
	int16_t moves[GT_MAX_PTS];
	for (int g = 0; g < 12; g++) {
		int kko = g == 4 || g == 10 ? GT_KO_SIMPLE : -1;
		int n = sizes[g % 5];
		gt_board_init(&b, n, gt_rules_get(g % 3), komis[g % 5]);
		int len = n * n * (n <= 9 ? 3 : 1);
		for (int t = 0; t < len && !gt_board_over(&b); t++) {
			if (t % 2 == 0 || n <= 7)
				compare(nn, k, &b, kko, ws, er);
			int c = b.to_move, nm = gt_board_legal_moves(&b, c, moves);
			int pt = nm == 0 || unif(&r) < 0.04 ? GT_PASS(n) : moves[gt_rng_next(&r) % (uint64_t)nm];
			gt_board_play(&b, c, pt);
		}
	}
	gt_katafeat_ws_free(ws);
}

int main(void)
{
	static const char *archs[] = {"b2c16", "b3c24g2", "b2c8a", "b4c12g1p7"};
	char dir[] = "/tmp/gt-kataexport-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char path[128];
	snprintf(path, sizeof path, "%s/net.bin.gz", dir);
	for (size_t ai = 0; ai < sizeof archs / sizeof *archs; ai++) {
		gt_arch a;
		gt_error e;
		ok(gt_model_parse_arch(archs[ai], &a, &e) == 0, "%s: parsed", archs[ai]);
		gt_model *m = gt_model_new(&a, &e);
		randomise(m, 100 + ai);
		int rc = gt_kata_export(m, path, NULL, &e);
		ok(rc == 0, "%s: exported (%s)", archs[ai], rc ? e.text : "ok");
		gt_kata *k = NULL;
		rc = gt_kata_read(path, &k, &e);
		ok(rc == 0, "%s: read back by gt's KataGo reader (%s)", archs[ai], rc ? e.text : "ok");
		if (rc) {
			gt_model_free(m);
			continue;
		}
		const gt_kata_info *in = gt_kata_info_of(k);
		ok(in->version == 8 && in->blocks == a.blocks + 1 && in->channels == a.channels + 11 &&
		   in->gpool_blocks == (a.gpool_every ? (a.blocks - 1) / a.gpool_every : 0),
		   "%s: version 8, %d blocks (one extra), %d channels (11 extra), %d gpool blocks", archs[ai],
		   in->blocks, in->channels, in->gpool_blocks);
		gt_nn *nn = gt_model_nn(m, "cpu", &e);
		errs er = {0};
		games(nn, k, 7 + ai, &er);
		diag("%s: %d positions (and %d with a superko ban, skipped): largest errors logit %.2g, "
		     "value %.2g, score %.2g, ownership %.2g", archs[ai], er.positions, er.superko, er.logit,
		     er.value, er.score, er.own);
		ok(er.positions > 500, "%s: %d positions compared", archs[ai], er.positions);
		is_int(er.plane_bad, 0, "%s: gt's planes from KataGo's equal gt's", archs[ai]);
		is_int(er.glob_bad, 0, "%s: gt's globals from KataGo's equal gt's", archs[ai]);
		ok(er.logit < 2e-4, "%s: policy logits within 2e-4 (%.2g)", archs[ai], er.logit);
		ok(er.value < 2e-5, "%s: value within 2e-5 (%.2g)", archs[ai], er.value);
		ok(er.score < 2e-3, "%s: score within 2e-3 points (%.2g)", archs[ai], er.score);
		ok(er.own < 2e-5, "%s: ownership within 2e-5 (%.2g)", archs[ai], er.own);
		gt_nn_free(nn);
		gt_kata_free(k);
		gt_model_free(m);
	}
	/* refusals */
	gt_arch a;
	gt_error e;
	gt_model_parse_arch("b1c8", &a, &e);
	gt_model *m = gt_model_new(&a, &e);
	ok(gt_kata_export(m, path, "bad name", &e) == GT_EINVAL && strstr(e.text, "model name"),
	   "a model name with a space: refused (%s)", e.text);
	m->arch.feat_version = 2;
	ok(gt_kata_export(m, path, NULL, &e) == GT_EUNSUPPORTED && strstr(e.text, "features"),
	   "other input features: refused (%s)", e.text);
	gt_model_free(m);
	unlink(path);
	rmdir(dir);
	return done_testing();
}
