/* katago_synth: lib/nn/katago.c on small random KataGo models of model
 * versions 8, 11, 13 and 15 written by tests/py/katago_synth.py (text
 * floats, ".txt"), with the layer kinds that KataGo's b6c96 lacks
 * (nested-bottleneck blocks holding a gpool block, Mish and SiLU, the
 * version-13 multipliers, the version-15 pass layers), against that
 * script's NumPy float64 forward, written apart from katago.c. Tolerance:
 * |gt - numpy| <= 1e-4 * (1 + |numpy|) (float32 against float64).
 * And a version-11 model without the nested block ("flat": every block
 * convolution 3x3, so that in bf16 and int8 a batch's trunk is
 * channel-major, lib/nn/katago.c trunk_cm), whose Mish and SiLU give the
 * convolutions negative inputs, which int8 refuses: in bf16 and int8 a
 * batch of 3 positions against each alone (the channel-major trunk's
 * way back to float32 position by position), within 1e-5 for int8 and
 * 0.01 for bf16 (tests/unit/katago.c). */
#include "testutil.h"
#include "gt.h"
#include "katago.h"
#include "nn.h"
#include "kata_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/gt-katago-synth.XXXXXX";

int main(void)
{
	if (system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") != 0)
		skip_all("no /usr/bin/python3 with numpy");
	if (!mkdtemp(dir))
		skip_all("no temporary folder");
	const char *src = getenv("GT_SRC");
	int versions[] = {8, 11, 13, 15};
	enum { n = 7, B = 2, N = n * n };
	for (int vi = 0; vi < 4; vi++) {
		int v = versions[vi];
		char model[300], in[300], out[300], cmd[1200];
		snprintf(model, sizeof model, "%s/m%d.txt", dir, v);
		snprintf(in, sizeof in, "%s/in%d.f32", dir, v);
		snprintf(out, sizeof out, "%s/out%d.txt", dir, v);
		snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/tests/py/katago_synth.py gen %d %s",
		         src ? src : ".", v, model);
		if (system(cmd) != 0) {
			ok(0, "version %d: generate", v);
			continue;
		}
		gt_kata *k;
		gt_error e;
		if (gt_kata_read(model, &k, &e) != 0) {
			ok(0, "version %d: read: %s", v, e.text);
			continue;
		}
		const gt_kata_info *info = gt_kata_info_of(k);
		ok(info->version == v && info->nested == 1 && info->gpool_blocks == 2 && !info->binary,
		   "version %d: read (1 nested block, 2 gpool blocks, text floats)", v);
		static float x[B * (22 * N + 19)], planes[B * 22 * N], globals[B * 19];
		unsigned long long s = 11 + v;
		for (size_t i = 0; i < sizeof x / sizeof x[0]; i++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			x[i] = (float)((s >> 40) % 1000) / 1000.0f * ((s >> 20) % 3 == 0);
		}
		for (int b = 0; b < B; b++) {
			memcpy(planes + b * 22 * N, x + b * (22 * N + 19), sizeof(float) * 22 * N);
			memcpy(globals + b * 19, x + b * (22 * N + 19) + 22 * N, sizeof(float) * 19);
		}
		FILE *f = fopen(in, "wb");
		fwrite(x, sizeof x, 1, f);
		fclose(f);
		snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/tests/py/katago_synth.py fwd %s %s %d %d > %s",
		         src ? src : ".", model, in, n, B, out);
		if (system(cmd) != 0) {
			ok(0, "version %d: numpy forward", v);
			gt_kata_free(k);
			continue;
		}
		gt_kata_out o;
		gt_kata_forward(k, B, n, planes, globals, &o);
		int S = info->score_outputs, bad = 0;
		double emax = 0;
		f = fopen(out, "r");
		for (int b = 0; b < B; b++) {
			int cnt = N + 1 + 3 + S + N;
			for (int i = 0; i < cnt; i++) {
				double ref, got;
				if (fscanf(f, "%lf", &ref) != 1) {
					bad = 1;
					break;
				}
				if (i <= N)
					got = o.policy[b * (N + 1) + i];
				else if (i < N + 4)
					got = o.value[b * 3 + i - N - 1];
				else if (i < N + 4 + S)
					got = o.score[b * S + i - N - 4];
				else
					got = o.own[b * N + i - N - 4 - S];
				double d = fabs(got - ref) / (1 + fabs(ref));
				emax = d > emax ? d : emax;
			}
		}
		fclose(f);
		ok(!bad && emax <= 1e-4, "version %d: policy, pass, value, score, ownership agree (%.2g)", v,
		   emax);
		gt_kata_free(k);
	}
	/* the flat model: batch against alone in bf16 and int8 */
	char model[300], cmd[1200];
	snprintf(model, sizeof model, "%s/flat.txt", dir);
	snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/tests/py/katago_synth.py gen 11 %s flat",
	         src ? src : ".", model);
	gt_kata *k;
	gt_error e;
	if (system(cmd) != 0 || gt_kata_read(model, &k, &e) != 0) {
		ok(0, "flat: generate and read");
	} else {
		ok(gt_kata_info_of(k)->nested == 0, "flat: no nested block");
		enum { n = 7, N = n * n, B = 3 };
		static float planes[B * 22 * N], globals[B * 19];
		unsigned long long s = 99;
		for (int i = 0; i < B * 22 * N; i++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			planes[i] = (float)((s >> 40) % 1000) / 1000.0f * ((s >> 20) % 3 == 0);
		}
		for (int i = 0; i < B * 19; i++)
			globals[i] = (float)(i % 5) * 0.1f;
		static const int precs[2] = {GT_PREC_BF16, GT_PREC_INT8};
		for (int pi = 0; pi < 2; pi++) {
			const char *pn = precs[pi] == GT_PREC_BF16 ? "bf16" : "int8";
			if (!kata_prec(k, precs[pi], "flat"))
				continue;
			int S = gt_kata_info_of(k)->score_outputs, W = 2 * N + 4 + S;
			static float whole[B * (2 * N + 4 + 8)], one[2 * N + 4 + 8];
			gt_kata_out o;
			gt_kata_forward(k, B, n, planes, globals, &o);
			for (int b = 0; b < B; b++)
				kata_raw(&o, b, n, S, whole + b * W);
			double d = 0;
			for (int b = 0; b < B; b++) {
				gt_kata_forward(k, 1, n, planes + b * 22 * N, globals + b * 19, &o);
				kata_raw(&o, 0, n, S, one);
				d = fmax(d, kata_diff(whole + b * W, one, W));
			}
			ok(d <= (precs[pi] == GT_PREC_INT8 ? 1e-5 : 1e-2),
			   "flat in %s: %d positions in one batch as each alone (%.2g)", pn, B, d);
		}
		gt_kata_free(k);
	}
	test_rmdir(dir);
	return done_testing();
}
