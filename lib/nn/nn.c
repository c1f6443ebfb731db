/* nn.c: architecture, parameter layout and its named views,
 * initialisation and the backend dispatch of the network (see nn.h and
 * nn_backend.h; the CPU backend is nn_cpu.c, the loss nn_loss.c). */
#include "nn.h"
#include "nn_backend.h"
#include "gpu.h"
#include "dnn.h"
#include "bf16.h"
#include "int8.h"
#include "rng.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gt_arch_default(gt_arch *a, int blocks, int channels, int in_planes, int globals,
                     int feat_version)
{
	memset(a, 0, sizeof *a);
	a->blocks = blocks;
	a->channels = channels;
	a->in_planes = in_planes;
	a->globals = globals;
	a->feat_version = feat_version;
	a->head_policy = 32;
	a->head_value = 32;
	a->value_hidden = 64;
	a->max_n = GT_ARCH_MAX_N;
}

static int range(gt_error *e, const char *what, int v, int lo, int hi)
{
	if (v < lo || v > hi)
		return gt_error_set(e, GT_EFORMAT, -1, -1, "%s %d out of range %d..%d",
		                    what, v, lo, hi);
	return 0;
}

int gt_arch_check(const gt_arch *a, gt_error *e)
{
	int r;
	if ((r = range(e, "blocks", a->blocks, 1, GT_ARCH_MAX_BLOCKS)) ||
	    (r = range(e, "channels", a->channels, 1, GT_ARCH_MAX_CHANNELS)) ||
	    (r = range(e, "input planes", a->in_planes, 1, GT_ARCH_MAX_INPUTS)) ||
	    (r = range(e, "global inputs", a->globals, 0, GT_ARCH_MAX_INPUTS)) ||
	    (r = range(e, "feature version", a->feat_version, 1, 1000000)) ||
	    (r = range(e, "policy head channels", a->head_policy, 1, GT_ARCH_MAX_HEAD)) ||
	    (r = range(e, "value head channels", a->head_value, 1, GT_ARCH_MAX_HEAD)) ||
	    (r = range(e, "value hidden units", a->value_hidden, 1, GT_ARCH_MAX_HEAD)) ||
	    (r = range(e, "max board size", a->max_n, 2, GT_ARCH_MAX_N)) ||
	    (r = range(e, "global pooling period", a->gpool_every, 0, GT_ARCH_MAX_BLOCKS)))
		return r;
	if (a->gpool_every == 0 && a->gpool_channels != 0)
		return gt_error_set(e, GT_EFORMAT, -1, -1,
		                    "global pooling channels %d without global pooling blocks",
		                    a->gpool_channels);
	if (a->gpool_every > 0 &&
	    (r = range(e, "global pooling channels", a->gpool_channels, 1, a->channels - 1)))
		return r;
	if (a->heads & ~GT_ARCH_HEADS_KNOWN)
		return gt_error_set(e, GT_EFORMAT, -1, -1, "unknown heads 0x%x",
		                    (unsigned)(a->heads & ~GT_ARCH_HEADS_KNOWN));
	return 0;
}

int gt_arch_gpool_block(const gt_arch *a, int l)
{
	return a->gpool_every > 0 && l > 0 && l % a->gpool_every == 0;
}

int gt_arch_has_gpool(const gt_arch *a)
{
	for (int l = 0; l < a->blocks; l++)
		if (gt_arch_gpool_block(a, l))
			return 1;
	return 0;
}

int gt_arch_gpool_default(int channels)
{
	return channels / 3 > 1 ? channels / 3 : 1;
}

static void put(gt_tensor *list, int *k, size_t *off, const char *name,
                int d0, int d1, int d2, int d3)
{
	int dims[4] = {d0, d1, d2, d3};
	gt_tensor t;
	memset(&t, 0, sizeof t);
	snprintf(t.name, sizeof t.name, "%s", name);
	t.offset = *off;
	t.size = 1;
	for (int i = 0; i < 4 && dims[i] > 0; i++) {
		t.shape[t.ndim++] = dims[i];
		t.size *= (size_t)dims[i];
	}
	*off += t.size;
	if (list)
		list[*k] = t;
	(*k)++;
}

/* The file order of the tensors (man5 gt-model). */
static int layout(const gt_arch *a, gt_tensor *list, size_t *total)
{
	int k = 0, C = a->channels, Hp = a->head_policy, Hv = a->head_value;
	int H = a->value_hidden;
	size_t off = 0;
	char nm[24];
	put(list, &k, &off, "in.w", C, a->in_planes, 3, 3);
	put(list, &k, &off, "in.b", C, 0, 0, 0);
	if (a->globals > 0)
		put(list, &k, &off, "in.g", C, a->globals, 0, 0);
	for (int l = 0; l < a->blocks; l++) {
		/* a global pooling block: w1 and w1g, b1 and b1g adjacent, so that
		 * they are one convolution of C outputs */
		int G = gt_arch_gpool_block(a, l) ? a->gpool_channels : 0, R = C - G;
		snprintf(nm, sizeof nm, "blk%d.w1", l);
		put(list, &k, &off, nm, R, C, 3, 3);
		if (G) {
			snprintf(nm, sizeof nm, "blk%d.w1g", l);
			put(list, &k, &off, nm, G, C, 3, 3);
		}
		snprintf(nm, sizeof nm, "blk%d.b1", l);
		put(list, &k, &off, nm, R, 0, 0, 0);
		if (G) {
			snprintf(nm, sizeof nm, "blk%d.b1g", l);
			put(list, &k, &off, nm, G, 0, 0, 0);
			snprintf(nm, sizeof nm, "blk%d.wg", l);
			put(list, &k, &off, nm, R, 3 * G, 0, 0);
		}
		snprintf(nm, sizeof nm, "blk%d.w2", l);
		put(list, &k, &off, nm, C, R, 3, 3);
		snprintf(nm, sizeof nm, "blk%d.b2", l);
		put(list, &k, &off, nm, C, 0, 0, 0);
		snprintf(nm, sizeof nm, "blk%d.s", l);
		put(list, &k, &off, nm, 1, 0, 0, 0);
	}
	put(list, &k, &off, "pol.w", Hp, C, 0, 0);
	put(list, &k, &off, "pol.b", Hp, 0, 0, 0);
	put(list, &k, &off, "pol.out.w", Hp, 0, 0, 0);
	put(list, &k, &off, "pol.out.b", 1, 0, 0, 0);
	put(list, &k, &off, "pol.pass.w", 2 * Hp, 0, 0, 0);
	put(list, &k, &off, "pol.pass.b", 1, 0, 0, 0);
	if (a->heads & GT_ARCH_AUX_POLICY) {
		put(list, &k, &off, "pol.aux.w", Hp, 0, 0, 0);
		put(list, &k, &off, "pol.aux.b", 1, 0, 0, 0);
		put(list, &k, &off, "pol.aux.pass.w", 2 * Hp, 0, 0, 0);
		put(list, &k, &off, "pol.aux.pass.b", 1, 0, 0, 0);
	}
	put(list, &k, &off, "val.w", Hv, C, 0, 0);
	put(list, &k, &off, "val.b", Hv, 0, 0, 0);
	put(list, &k, &off, "val.fc1.w", H, 2 * Hv, 0, 0);
	put(list, &k, &off, "val.fc1.b", H, 0, 0, 0);
	put(list, &k, &off, "val.fc2.w", H, 0, 0, 0);
	put(list, &k, &off, "val.fc2.b", 1, 0, 0, 0);
	put(list, &k, &off, "score.w", H, 0, 0, 0);
	put(list, &k, &off, "score.b", 1, 0, 0, 0);
	put(list, &k, &off, "own.w", Hv, 0, 0, 0);
	put(list, &k, &off, "own.b", 1, 0, 0, 0);
	if (total)
		*total = off;
	return k;
}

int gt_arch_ntensors(const gt_arch *a)
{
	return layout(a, NULL, NULL);
}

void gt_arch_tensor(const gt_arch *a, int i, gt_tensor *t)
{
	int n = layout(a, NULL, NULL);
	gt_tensor *all = gt_xcalloc((size_t)n, sizeof *all);
	layout(a, all, NULL);
	if (i >= 0 && i < n)
		*t = all[i];
	else
		memset(t, 0, sizeof *t);
	free(all);
}

size_t gt_arch_nparams(const gt_arch *a)
{
	size_t total;
	layout(a, NULL, &total);
	return total;
}

double gt_arch_flops(const gt_arch *a, int n)
{
	double N = (double)n * n, C = a->channels;
	double f = 2.0 * N * C * a->in_planes * 9;
	for (int l = 0; l < a->blocks; l++) {
		double R = C - (gt_arch_gpool_block(a, l) ? a->gpool_channels : 0);
		f += 2.0 * N * C * C * 9 + 2.0 * N * R * C * 9;
		f += 2.0 * R * 3 * (C - R);
	}
	f += 2.0 * N * C * (a->head_policy + a->head_value);
	f += 2.0 * N * (a->head_policy + a->head_value);
	if (a->heads & GT_ARCH_AUX_POLICY)
		f += 2.0 * N * a->head_policy;
	return f;
}

/* uniforms in (0, 1) from splitmix64 (rng.h) and Box-Muller normals */
static double unif(uint64_t *s)
{
	return ((gt_splitmix64(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double normal(uint64_t *s)
{
	double u = unif(s), v = unif(s);
	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

void gt_arch_init_params(const gt_arch *a, float *params, uint64_t seed)
{
	int nt = gt_arch_ntensors(a);
	gt_tensor *ts = gt_xcalloc((size_t)nt, sizeof *ts);
	uint64_t s = seed ^ 0x6774206e6e2d696eULL;
	layout(a, ts, NULL);
	for (int i = 0; i < nt; i++) {
		const gt_tensor *t = &ts[i];
		float *p = params + t->offset;
		const char *dot = strrchr(t->name, '.');
		double sd = 0;
		int fan_in = t->size / (size_t)t->shape[0];
		if (!strcmp(dot, ".s")) {
			p[0] = 1;
			continue;
		}
		if (!strcmp(dot, ".w1") || !strcmp(dot, ".w1g") || !strcmp(t->name, "in.w") ||
		    !strcmp(t->name, "pol.w") || !strcmp(t->name, "val.w") ||
		    !strcmp(t->name, "val.fc1.w"))
			sd = sqrt(2.0 / fan_in);
		if (!strcmp(dot, ".w1") || !strcmp(dot, ".w1g"))
			sd /= sqrt((double)a->blocks);
		if (!strcmp(dot, ".wg"))
			sd = sqrt(1.0 / fan_in);
		if (!strcmp(t->name, "in.g"))
			sd = sqrt(1.0 / fan_in);
		if (t->ndim == 1 && t->size > 1 && strcmp(dot, ".b") &&
		    strcmp(dot, ".b1") && strcmp(dot, ".b1g") && strcmp(dot, ".b2"))
			sd = sqrt(1.0 / t->size);   /* output vectors */
		for (size_t j = 0; j < t->size; j++)
			p[j] = sd > 0 ? (float)(sd * normal(&s)) : 0.0f;
	}
	free(ts);
}

void gt_nn_views_init(gt_nn_views *v, const gt_nn *nn, float *base)
{
	const gt_tensor *t = nn->tensors;
	int L = nn->arch.blocks, k = 0;
	v->in_w = base + t[k++].offset;
	v->in_b = base + t[k++].offset;
	v->in_g = nn->arch.globals > 0 ? base + t[k++].offset : NULL;
	v->blk = gt_xcalloc((size_t)L, sizeof *v->blk);
	for (int l = 0; l < L; l++) {
		gt_nn_block_views *b = &v->blk[l];
		b->gpool = gt_arch_gpool_block(&nn->arch, l) ? nn->arch.gpool_channels : 0;
		b->w1 = base + t[k++].offset;
		if (b->gpool)
			k++;   /* w1g follows w1 */
		b->b1 = base + t[k++].offset;
		if (b->gpool) {
			k++;   /* b1g follows b1 */
			b->wg = base + t[k++].offset;
		}
		b->w2 = base + t[k++].offset;
		b->b2 = base + t[k++].offset;
		b->s = base + t[k++].offset;
	}
	float **f[] = {&v->pol_w, &v->pol_b, &v->pol_ow, &v->pol_ob, &v->pol_pw,
	               &v->pol_pb, &v->pol_aw, &v->pol_ab, &v->pol_apw, &v->pol_apb,
	               &v->val_w, &v->val_b, &v->fc1_w, &v->fc1_b,
	               &v->fc2_w, &v->fc2_b, &v->sc_w, &v->sc_b, &v->own_w, &v->own_b};
	int aux = (nn->arch.heads & GT_ARCH_AUX_POLICY) != 0;
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		*f[i] = i < 6 || i >= 10 || aux ? base + t[k++].offset : NULL;
}

void gt_nn_views_release(gt_nn_views *v)
{
	free(v->blk);
	v->blk = NULL;
}

static const gt_nn_backend *backends[] = {
	&gt_nn_backend_cpu,
#ifdef GT_CUDA
	&gt_nn_backend_cuda,
#endif
};
static int threads_set;

gt_nn *gt_nn_new(const gt_arch *a, const char *backend, gt_error *e)
{
	const gt_nn_backend *be = NULL;
	if (gt_arch_check(a, e))
		return NULL;
	if (!backend)
		backend = "cpu";
	if (!strcmp(backend, "auto"))
		backend = !gt_arch_has_gpool(a) && !a->heads && gt_gpu_probe(NULL) ? "cuda" : "cpu";
	for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
		if (!strcmp(backends[i]->name, backend))
			be = backends[i];
	if (!be && !strcmp(backend, "cuda")) {
		gt_error_set(e, GT_EUNSUPPORTED, -1, -1, "backend cuda: built without CUDA");
		return NULL;
	}
	if (!be) {
		gt_error_set(e, GT_ENOTFOUND, -1, -1, "unknown backend '%s'", backend);
		return NULL;
	}
	if (be != &gt_nn_backend_cpu && (gt_arch_has_gpool(a) || a->heads)) {
		gt_error_set(e, GT_EUNSUPPORTED, -1, -1,
		             "backend %s: no %s (use the cpu backend)", be->name,
		             gt_arch_has_gpool(a) ? "global pooling blocks" : "auxiliary policy head");
		return NULL;
	}
	gt_nn_threads_default();
	gt_nn *nn = gt_xcalloc(1, sizeof *nn);
	nn->arch = *a;
	nn->be = be;
	nn->ntensors = layout(a, NULL, &nn->nparams);
	nn->tensors = gt_xcalloc((size_t)nn->ntensors, sizeof *nn->tensors);
	layout(a, nn->tensors, NULL);
	nn->params = gt_xcalloc(nn->nparams, sizeof(float));
	nn->grads = gt_xcalloc(nn->nparams, sizeof(float));
	int r = be->init(nn);
	if (r) {
		gt_error_set(e, r, -1, -1, "%s", nn->errtext[0] ? nn->errtext : gt_strerror(r));
		gt_nn_free(nn);
		return NULL;
	}
	return nn;
}

void gt_nn_free(gt_nn *nn)
{
	if (!nn)
		return;
	if (nn->be && nn->state)
		nn->be->release(nn);
	gt_free_all(nn->tensors, nn->params, nn->grads, nn);
}

const gt_arch *gt_nn_arch(const gt_nn *nn) { return &nn->arch; }
const char *gt_nn_backend_name(const gt_nn *nn) { return nn->be->name; }
float *gt_nn_params(gt_nn *nn) { return nn->params; }
float *gt_nn_grads(gt_nn *nn) { return nn->grads; }
size_t gt_nn_nparams(const gt_nn *nn) { return nn->nparams; }
int gt_nn_sync_params(gt_nn *nn) { return nn->be->sync_params(nn); }

void gt_nn_conv_batch(gt_nn *nn, int on)
{
	if (nn->be->conv_batch)
		nn->be->conv_batch(nn, on);
}

int gt_nn_precision(gt_nn *nn, int prec, const char **why)
{
	if (why)
		*why = NULL;
	if (prec == GT_PREC_FP32 && !nn->be->precision)
		return GT_PREC_FP32;
	if (!nn->be->precision) {
		if (why)
			*why = "the backend computes in float32 only";
		return GT_PREC_FP32;
	}
	return nn->be->precision(nn, prec, why);
}

int gt_nn_train_precision(gt_nn *nn, int prec, const char **why)
{
	if (why)
		*why = NULL;
	if (prec == GT_PREC_FP32 && !nn->be->train_precision)
		return GT_PREC_FP32;
	if (!nn->be->train_precision) {
		if (why)
			*why = "the backend trains in float32 only";
		return GT_PREC_FP32;
	}
	return nn->be->train_precision(nn, prec, why);
}

int gt_nn_precision_find(const char *name)
{
	if (!strcmp(name, "fp32"))
		return GT_PREC_FP32;
	if (!strcmp(name, "bf16"))
		return GT_PREC_BF16;
	if (!strcmp(name, "int8"))
		return GT_PREC_INT8;
	return -1;
}

const char *gt_nn_precision_kernel(int prec, const char **why)
{
	if (why)
		*why = NULL;
	return prec == GT_PREC_BF16 ? gt_bf16_kernel(why) : prec == GT_PREC_INT8 ? gt_int8_kernel(why)
	                                                                         : NULL;
}

const char *gt_nn_precision_name(int prec)
{
	return prec == GT_PREC_BF16 ? "bf16" : prec == GT_PREC_INT8 ? "int8" : "fp32";
}
const char *gt_nn_error(const gt_nn *nn) { return nn->errtext; }

void gt_nn_zero_grad(gt_nn *nn)
{
	memset(nn->grads, 0, nn->nparams * sizeof(float));
}

int gt_nn_forward(gt_nn *nn, int batch, int n, const float *planes,
                  const float *globals, int train, gt_nn_out *out)
{
	if (batch < 1 || n < 2 || n > nn->arch.max_n || !planes ||
	    (nn->arch.globals > 0 && !globals))
		return GT_EINVAL;
	int r = nn->be->forward(nn, batch, n, planes, globals, train);
	if (r == 0 && out)
		*out = nn->out;
	return r;
}

int gt_nn_backward(gt_nn *nn, const gt_nn_target *t, const gt_nn_lossw *w,
                   gt_nn_loss *loss)
{
	if (!t || !t->policy || !t->value || !t->score)
		return GT_EINVAL;
	return nn->be->backward(nn, t, w ? w : &GT_NN_LOSSW_DEFAULT, loss, 1);
}

int gt_nn_eval_loss(gt_nn *nn, const gt_nn_target *t, const gt_nn_lossw *w,
                    gt_nn_loss *loss)
{
	if (!t || !t->policy || !t->value || !t->score)
		return GT_EINVAL;
	return nn->be->backward(nn, t, w ? w : &GT_NN_LOSSW_DEFAULT, loss, 0);
}

void gt_nn_threads_default(void)
{
	if (!threads_set)
		gt_nn_set_threads(1);
}

void gt_nn_set_threads(int nthreads)
{
	openblas_set_num_threads(nthreads < 1 ? 1 : nthreads);
	gt_dnn_set_threads(nthreads);
	threads_set = 1;
}
