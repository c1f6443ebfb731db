/* gtnet: the PyTorch bridge (share/gt/python/gtnet.py) against gt: a gt
 * network read and written back by it is byte-identical, and its
 * torch.nn.Module's forward (float64) equals gt's CPU forward within
 * max |gt - torch| <= 1e-4 * (1 + |torch|) (float32 against float64); of
 * format version 1 (b2c16) and 2 (b3c16g1, global pooling blocks;
 * b2c16a, the auxiliary policy head). */
#include "testutil.h"
#include "feat.h"
#include "gt.h"
#include "model.h"
#include "nn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/gt-gtnet.XXXXXX";

static int same_file(const char *a, const char *b)
{
	FILE *f = fopen(a, "rb"), *g = fopen(b, "rb");
	int same = f && g, c, d;
	while (same && ((c = getc(f)) != EOF) | ((d = getc(g)) != EOF))
		same = c == d;
	if (f)
		fclose(f);
	if (g)
		fclose(g);
	return same;
}

/* a random network of arch through gtnet.py */
static void check(const char *arch)
{
	enum { B = 3, n = 7, N = n * n };
	gt_arch a;
	gt_error e;
	gt_model_parse_arch(arch, &a, &e);
	gt_model *m = gt_model_new_random(&a, 9, &e);
	/* random init leaves the second convolutions 0: give them values */
	for (size_t i = 0; i < m->nparams; i++)
		m->params[i] += 0.01f * (float)((int)((i * 2654435761u) % 200) - 100) / 100.0f;
	char path[300], path2[300], cmd[800];
	snprintf(path, sizeof path, "%s/model.bin.gz", dir);
	snprintf(path2, sizeof path2, "%s/again.bin.gz", dir);
	ok(gt_model_write(path, m, &e) == 0, "write a %s network", arch);
	static float planes[B * GT_FEAT_PLANES * N], glob[B * GT_FEAT_GLOBALS];
	unsigned long long s = 5;
	for (size_t i = 0; i < sizeof planes / sizeof planes[0]; i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		planes[i] = (float)((s >> 33) % 2);
	}
	for (size_t i = 0; i < sizeof glob / sizeof glob[0]; i++)
		glob[i] = (float)(i % 5) * 0.2f - 0.3f;
	snprintf(cmd, sizeof cmd, "%s/planes.f32", dir);
	FILE *f = fopen(cmd, "wb");
	fwrite(planes, sizeof planes, 1, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "%s/globals.f32", dir);
	f = fopen(cmd, "wb");
	fwrite(glob, sizeof glob, 1, f);
	fclose(f);
	const char *src = getenv("GT_SRC");
	snprintf(cmd, sizeof cmd, "GT_SRC=%s /usr/bin/python3 %s/tests/py/gtnet_check.py %s %d %d",
	         src ? src : ".", src ? src : ".", dir, B, n);
	ok(system(cmd) == 0, "gtnet.py: read, write, forward");
	ok(same_file(path, path2), "read and written back by gtnet.py: byte-identical");
	gt_nn *nn = gt_model_nn(m, "cpu", &e);
	gt_nn_out o;
	gt_nn_forward(nn, B, n, planes, glob, 0, &o);
	int W = 2 * N + 3 + (a.heads & GT_ARCH_AUX_POLICY ? N + 1 : 0); /* floats a row */
	static float py[B * (N + 1 + 1 + 1 + N + N + 1)];
	snprintf(cmd, sizeof cmd, "%s/py_out.f32", dir);
	f = fopen(cmd, "rb");
	int got = f && fread(py, sizeof(float) * B * W, 1, f) == 1;
	if (f)
		fclose(f);
	ok(got, "PyTorch outputs read");
	double emax = 0;
	for (int b = 0; b < B && got; b++) {
		const float *r = py + b * W;
		for (int i = 0; i < W; i++) {
			double g = i <= N ? o.policy[b * (N + 1) + i] : i == N + 1 ? o.value[b] :
			           i == N + 2 ? o.score[b] : i < 2 * N + 3 ? o.own[b * N + i - N - 3] :
			           o.aux_policy[b * (N + 1) + i - 2 * N - 3];
			double d = fabs(g - r[i]) / (1 + fabs(r[i]));
			emax = d > emax || !isfinite(d) ? d : emax;
		}
	}
	diag("value %g %g, policy[0] %g %g", o.value[0], py[N + 1], o.policy[0], py[0]);
	ok(got && emax <= 1e-4, "%s: torch.nn.Module forward equals gt's (%.2g)", arch, emax);
	gt_nn_free(nn);
	gt_model_free(m);
}

int main(void)
{
	if (system("/usr/bin/python3 -c 'import torch, numpy' 2>/dev/null") != 0)
		skip_all("no /usr/bin/python3 with torch and numpy");
	if (!mkdtemp(dir))
		skip_all("no temporary folder");
	check("b2c16");
	check("b3c16g1");  /* global pooling blocks 1 and 2: format version 2 */
	check("b2c16a");   /* the auxiliary policy head: format version 2 too */
	test_rmdir(dir);
	return done_testing();
}
