/* nn_cuda: backend selection by name ("cpu", "cuda", "auto") with and
 * without a CUDA device: "cuda" fails cleanly with GT_EUNSUPPORTED and
 * a one-line reason where there is no device (or no CUDA build), "auto"
 * falls back to the CPU and computes exactly what "cpu" computes; where a
 * device answers, "cuda" and "auto" both give the cuda backend. */
#include "tap.h"
#include "gpu.h"
#include "nn.h"
#include "nn_backend.h"

static int __attribute__((unused)) prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

int main(void)
{
	gt_arch a;
	gt_error e, pe;
	gt_arch_default(&a, 1, 8, 4, 2, 1);
	a.head_policy = 3;
	a.head_value = 3;
	a.value_hidden = 5;

	int have = gt_gpu_probe(&pe);
	diag("gt_gpu_probe: %d, %s", have, pe.text);
	ok(pe.text[0] != 0, "the probe says what it found");
	is_int(gt_gpu_probe(NULL), have, "the probe gives the same answer twice (and takes NULL)");

	memset(&e, 0, sizeof e);
	gt_nn *cu = gt_nn_new(&a, "cuda", &e);
	if (!have) {
		ok(cu == NULL, "backend cuda refused without a device: %s", e.text);
#ifdef GT_CUDA
		ok(prefix(e.text, "no CUDA device: ") && strlen(e.text) > strlen("no CUDA device: "),
		   "the reason is 'no CUDA device: <cuda error>'");
		ok(strchr(e.text, '\n') == NULL, "the reason is one line");
		is_str(e.text, pe.text, "the same reason as the probe");
		/* the backend itself returns GT_EUNSUPPORTED and leaves no state */
		gt_nn fake;
		memset(&fake, 0, sizeof fake);
		fake.arch = a;
		is_int(gt_nn_backend_cuda.init(&fake), GT_EUNSUPPORTED,
		       "cuda init returns GT_EUNSUPPORTED");
		ok(fake.state == NULL, "and keeps no state");
		ok(prefix(fake.errtext, "no CUDA device: "), "with the reason: %s", fake.errtext);
#else
		is_str(e.text, "backend cuda: built without CUDA", "the reason names the build");
		is_str(pe.text, "built without CUDA", "the probe says so too");
#endif
	} else {
		ok(cu != NULL, "backend cuda on %s", pe.text);
		if (cu)
			is_str(gt_nn_backend_name(cu), "cuda", "named cuda");
	}
	gt_nn_free(cu);

	/* auto */
	gt_nn *au = gt_nn_new(&a, "auto", &e);
	ok(au != NULL, "backend auto always gives a network");
	if (!au)
		return done_testing();
	is_str(gt_nn_backend_name(au), have ? "cuda" : "cpu", "auto chose %s",
	       have ? "cuda (a device is present)" : "cpu (no device)");
	is_str(gt_nn_error(au), "", "no backend error after creation");

	/* auto without a device computes what cpu computes, bit for bit */
	gt_nn *cp = gt_nn_new(&a, "cpu", &e);
	gt_arch_init_params(&a, gt_nn_params(cp), 7);
	memcpy(gt_nn_params(au), gt_nn_params(cp), sizeof(float) * gt_nn_nparams(cp));
	is_int(gt_nn_sync_params(au), 0, "parameters synced");
	int n = 5, N = 25, B = 2;
	float planes[2 * 4 * 25], glob[4];
	for (int i = 0; i < B * a.in_planes * N; i++)
		planes[i] = (float)((i * 7 + 3) % 5 == 0);
	for (int i = 0; i < B * a.globals; i++)
		glob[i] = 0.25f * (float)i - 0.5f;
	gt_nn_out oa, oc;
	is_int(gt_nn_forward(au, B, n, planes, glob, 0, &oa), 0, "forward on auto");
	float pa[2 * 26], va[2];
	memcpy(pa, oa.policy, sizeof pa);
	memcpy(va, oa.value, sizeof va);
	is_int(gt_nn_forward(cp, B, n, planes, glob, 0, &oc), 0, "forward on cpu");
	double md = 0, big = 1;
	for (int i = 0; i < B * (N + 1); i++) {
		md = fmax(md, fabs(pa[i] - oc.policy[i]));
		big = fmax(big, fabs(oc.policy[i]));
	}
	for (int b = 0; b < B; b++)
		md = fmax(md, fabs(va[b] - oc.value[b]));
	if (have)
		ok(md < 2e-2 * big, "auto (cuda) agrees with cpu to BF16 precision (%.2g)", md);
	else
		ok(md == 0, "auto (cpu) equals cpu exactly (%.2g)", md);
	gt_nn_free(cp);
	gt_nn_free(au);

	/* unknown names are still refused */
	ok(gt_nn_new(&a, "gpu", &e) == NULL, "unknown backend refused: %s", e.text);
	return done_testing();
}
