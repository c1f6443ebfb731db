/* make OUT: a b2c8 network in the format of the build linked, and its
 * outputs; eval IN: the outputs of IN. Inputs: gen() below (the same as
 * tests/unit/model.c's fixture_inputs). v1-b2c8.bin.gz and v1-b2c8.out
 * are `make` of this program linked with libgt.a of commit d2e1e28, the
 * last before format version 2:
 *   cc -Ilib -Ilib/nn -I/usr/include/x86_64-linux-gnu/openblas-pthread \
 *      v1-b2c8.c build/opt/libgt.a -ldnnl -lgomp -lopenblas -ljansson -lcurl \
 *      -lexpat -lcrypto -lz -lm -lpthread && ./a.out make v1-b2c8.bin.gz > v1-b2c8.out */
#include "model.h"
#include "nn.h"
#include "feat.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
enum { B = 2, n = 7, N = n * n };
static float planes[B * GT_FEAT_PLANES * N], glob[B * GT_FEAT_GLOBALS];
static void gen(void)
{
	unsigned long long s = 11;
	for (size_t i = 0; i < sizeof planes / sizeof planes[0]; i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		planes[i] = (float)((s >> 33) % 2);
	}
	for (size_t i = 0; i < sizeof glob / sizeof glob[0]; i++)
		glob[i] = (float)(i % 5) * 0.2f - 0.3f;
}
int main(int argc, char **argv)
{
	gt_error e;
	gt_model *m = NULL;
	gen();
	if (!strcmp(argv[1], "make")) {
		gt_arch a;
		gt_model_parse_arch("b2c8", &a, &e);
		m = gt_model_new_random(&a, 5, &e);
		for (size_t i = 0; i < m->nparams; i++)
			m->params[i] += 0.01f * (float)((int)((i * 2654435761u) % 200) - 100) / 100.0f;
		strcpy(m->meta.series, "v1");
		m->meta.steps = 3;
		m->meta.rows = 300;
		if (gt_model_write(argv[2], m, &e))
			return 1;
	} else if (gt_model_read(argv[2], &m, &e)) {
		fprintf(stderr, "%s\n", e.text);
		return 1;
	}
	gt_nn *nn = gt_model_nn(m, "cpu", &e);
	gt_nn_out o;
	gt_nn_forward(nn, B, n, planes, glob, 0, &o);
	for (int i = 0; i < B * (N + 1); i++)
		printf("%a\n", o.policy[i]);
	for (int i = 0; i < B; i++)
		printf("%a\n%a\n", o.value[i], o.score[i]);
	for (int i = 0; i < B * N; i++)
		printf("%a\n", o.own[i]);
	gt_nn_free(nn);
	gt_model_free(m);
	return 0;
}
