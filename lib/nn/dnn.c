/* dnn.c: convolutions by oneDNN for the CPU networks (dnn.h). */
#include "dnn.h"

static unsigned long dnn_versions;

unsigned long gt_dnn_version(void)
{
	return __atomic_add_fetch(&dnn_versions, 1, __ATOMIC_RELAXED);
}

#if GT_DNNL
#include <oneapi/dnnl/dnnl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE__
#include <immintrin.h>
#endif

/* libgomp's, which Debian's libdnnl runs its threads on */
void omp_set_num_threads(int n);

static int dnn_threads = 1;

const char *gt_dnn_why_not(void)
{
	return NULL;
}

void gt_dnn_set_threads(int threads)
{
	__atomic_store_n(&dnn_threads, threads < 1 ? 1 : threads, __ATOMIC_RELAXED);
}

enum { FWD, WGRAD };

/* what makes a primitive: the kind, the shape and gt's strides (of in,
 * then of out or dout) */
typedef struct key {
	int kind, cin, cout, k, B, n, relu, add, bias, threads;
	size_t s[4];
} key;

typedef struct entry {
	key key;
	dnnl_primitive_t conv, r_in, r_w, r_out, r_dout;
	/* gt's (plain, strided) and oneDNN's (blocked) memory descriptors */
	dnnl_memory_desc_t in_md, out_md, w_md, bias_md;
	dnnl_memory_desc_t src_b, w_b, dst_b;
	struct entry *next;
} entry;

/* weights reordered into a primitive's layout, kept while their
 * pointer and version are the same */
typedef struct wcache {
	const float *w;
	unsigned long ver;
	dnnl_memory_desc_t md;
	void *buf;
	struct wcache *next;
} wcache;

#define WCACHE_MAX 64

/* per thread: the engine, stream, primitives, reordered weights and
 * blocked buffers */
typedef struct tstate {
	dnnl_engine_t eng;
	dnnl_stream_t strm;
	entry *cache;
	wcache *wc;
	void *buf[4];
	size_t cap[4];
} tstate;

static pthread_key_t tkey;
static pthread_once_t tonce = PTHREAD_ONCE_INIT;

static void entry_free(entry *e)
{
	dnnl_primitive_t p[5] = {e->conv, e->r_in, e->r_w, e->r_out, e->r_dout};
	for (int i = 0; i < 5; i++)
		if (p[i])
			dnnl_primitive_destroy(p[i]);
	free(e);
}

static void tstate_free(void *v)
{
	tstate *t = v;
	while (t->cache) {
		entry *e = t->cache;
		t->cache = e->next;
		entry_free(e);
	}
	while (t->wc) {
		wcache *w = t->wc;
		t->wc = w->next;
		free(w->buf);
		free(w);
	}
	for (int i = 0; i < 4; i++)
		free(t->buf[i]);
	if (t->strm)
		dnnl_stream_destroy(t->strm);
	if (t->eng)
		dnnl_engine_destroy(t->eng);
	free(t);
}

static void tkey_make(void)
{
	pthread_key_create(&tkey, tstate_free);
}

static tstate *tstate_get(void)
{
	pthread_once(&tonce, tkey_make);
	tstate *t = pthread_getspecific(tkey);
	if (t)
		return t;
	t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	if (dnnl_engine_create(&t->eng, dnnl_cpu, 0) != dnnl_success ||
	    dnnl_stream_create(&t->strm, t->eng, dnnl_stream_default_flags) != dnnl_success ||
	    pthread_setspecific(tkey, t) != 0) {
		tstate_free(t);
		return NULL;
	}
	return t;
}

/* buffer i of t, of at least size bytes (64-byte aligned) */
static void *tbuf(tstate *t, int i, size_t size)
{
	if (t->cap[i] < size) {
		free(t->buf[i]);
		size_t cap = (size + 63) / 64 * 64;
		t->buf[i] = aligned_alloc(64, cap);
		t->cap[i] = t->buf[i] ? cap : 0;
	}
	return t->buf[i];
}

static dnnl_primitive_t reorder_make(dnnl_engine_t eng, const dnnl_memory_desc_t *from,
                                     const dnnl_memory_desc_t *to, int sum)
{
	dnnl_primitive_attr_t attr = NULL;
	dnnl_post_ops_t po = NULL;
	dnnl_primitive_desc_t pd = NULL;
	dnnl_primitive_t r = NULL;
	if (sum && (dnnl_primitive_attr_create(&attr) != dnnl_success ||
	            dnnl_post_ops_create(&po) != dnnl_success ||
	            dnnl_post_ops_append_sum(po, 1.0f) != dnnl_success ||
	            dnnl_primitive_attr_set_post_ops(attr, po) != dnnl_success))
		goto out;
	if (dnnl_reorder_primitive_desc_create(&pd, from, eng, to, eng, attr) == dnnl_success)
		dnnl_primitive_create(&r, pd);
out:
	if (pd)
		dnnl_primitive_desc_destroy(pd);
	if (po)
		dnnl_post_ops_destroy(po);
	if (attr)
		dnnl_primitive_attr_destroy(attr);
	return r;
}

/* the plain, strided descriptor of B x C boards of n x n in gt's layout */
static int plain_md(dnnl_memory_desc_t *md, int B, int C, int n, size_t sb, size_t sc)
{
	dnnl_dims_t d = {B, C, n, n}, s = {(dnnl_dim_t)sb, (dnnl_dim_t)sc, n, 1};
	return dnnl_memory_desc_init_by_strides(md, 4, d, dnnl_f32, s) == dnnl_success ? 0 : -1;
}

static int any_md(dnnl_memory_desc_t *md, int a, int b, int c, int d)
{
	dnnl_dims_t x = {a, b, c, d};
	return dnnl_memory_desc_init_by_tag(md, 4, x, dnnl_f32, dnnl_format_tag_any) == dnnl_success ? 0 : -1;
}

/* the forward's primitives for key k, or NULL */
static entry *fwd_make(tstate *t, const key *k)
{
	entry *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->key = *k;
	dnnl_dims_t wd = {k->cout, k->cin, k->k, k->k}, bd = {k->cout}, one = {1, 1};
	dnnl_dims_t pad = {k->k / 2, k->k / 2};
	dnnl_memory_desc_t src, w, dst;
	if (plain_md(&e->in_md, k->B, k->cin, k->n, k->s[0], k->s[1]) ||
	    plain_md(&e->out_md, k->B, k->cout, k->n, k->s[2], k->s[3]) ||
	    dnnl_memory_desc_init_by_tag(&e->w_md, 4, wd, dnnl_f32, dnnl_oihw) != dnnl_success ||
	    dnnl_memory_desc_init_by_tag(&e->bias_md, 1, bd, dnnl_f32, dnnl_x) != dnnl_success ||
	    any_md(&src, k->B, k->cin, k->n, k->n) || any_md(&dst, k->B, k->cout, k->n, k->n) ||
	    any_md(&w, k->cout, k->cin, k->k, k->k))
		goto fail;
	dnnl_primitive_desc_t pd = NULL;
	/* Winograd for 3x3 where oneDNN has it (measured 1.2 to 1.3 times its
	 * direct convolution with the reorders: bench/onednn/conv.c) */
	dnnl_alg_kind_t algs[2] = {dnnl_convolution_winograd, dnnl_convolution_auto};
	for (int i = k->k == 3 ? 0 : 1; i < 2 && !pd; i++) {
		dnnl_convolution_desc_t cd;
		if (dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, algs[i], &src, &w,
		                                       k->bias ? &e->bias_md : NULL, &dst, one, pad,
		                                       pad) != dnnl_success ||
		    dnnl_primitive_desc_create(&pd, &cd, NULL, t->eng, NULL) != dnnl_success)
			pd = NULL;
	}
	if (!pd)
		goto fail;
	e->src_b = *dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
	e->w_b = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
	e->dst_b = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
	dnnl_status_t st = dnnl_primitive_create(&e->conv, pd);
	dnnl_primitive_desc_destroy(pd);
	if (st != dnnl_success)
		goto fail;
	e->r_in = reorder_make(t->eng, &e->in_md, &e->src_b, 0);
	e->r_w = reorder_make(t->eng, &e->w_md, &e->w_b, 0);
	e->r_out = reorder_make(t->eng, &e->dst_b, &e->out_md, k->add);
	if (!e->r_in || !e->r_w || !e->r_out)
		goto fail;
	return e;
fail:
	entry_free(e);
	return NULL;
}

/* the weight gradient's primitives for key k (s[2], s[3]: dout's
 * strides), or NULL */
static entry *wgrad_make(tstate *t, const key *k)
{
	entry *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->key = *k;
	dnnl_dims_t wd = {k->cout, k->cin, k->k, k->k}, one = {1, 1}, pad = {k->k / 2, k->k / 2};
	dnnl_memory_desc_t src, w, dst;
	if (plain_md(&e->in_md, k->B, k->cin, k->n, k->s[0], k->s[1]) ||
	    plain_md(&e->out_md, k->B, k->cout, k->n, k->s[2], k->s[3]) ||
	    dnnl_memory_desc_init_by_tag(&e->w_md, 4, wd, dnnl_f32, dnnl_oihw) != dnnl_success ||
	    any_md(&src, k->B, k->cin, k->n, k->n) || any_md(&dst, k->B, k->cout, k->n, k->n) ||
	    any_md(&w, k->cout, k->cin, k->k, k->k))
		goto fail;
	dnnl_convolution_desc_t fd, bd;
	dnnl_primitive_desc_t fpd = NULL, bpd = NULL;
	if (dnnl_convolution_forward_desc_init(&fd, dnnl_forward_training, dnnl_convolution_direct, &src, &w,
	                                       NULL, &dst, one, pad, pad) != dnnl_success ||
	    dnnl_primitive_desc_create(&fpd, &fd, NULL, t->eng, NULL) != dnnl_success)
		goto fail;
	dnnl_status_t st = dnnl_convolution_backward_weights_desc_init(&bd, dnnl_convolution_direct, &src, &w, NULL,
	                                                               &dst, one, pad, pad);
	if (st == dnnl_success)
		st = dnnl_primitive_desc_create(&bpd, &bd, NULL, t->eng, fpd);
	dnnl_primitive_desc_destroy(fpd);
	if (st != dnnl_success)
		goto fail;
	e->src_b = *dnnl_primitive_desc_query_md(bpd, dnnl_query_src_md, 0);
	e->w_b = *dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_weights_md, 0);
	e->dst_b = *dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_dst_md, 0);
	st = dnnl_primitive_create(&e->conv, bpd);
	dnnl_primitive_desc_destroy(bpd);
	if (st != dnnl_success)
		goto fail;
	e->r_in = reorder_make(t->eng, &e->in_md, &e->src_b, 0);
	e->r_dout = reorder_make(t->eng, &e->out_md, &e->dst_b, 0);
	e->r_w = reorder_make(t->eng, &e->w_b, &e->w_md, 0);
	if (!e->r_in || !e->r_dout || !e->r_w)
		goto fail;
	return e;
fail:
	entry_free(e);
	return NULL;
}

/* k zeroed (padding too: keys are compared with memcmp) and set */
static void key_set(key *k, int kind, int cin, int cout, int ks, int B, int n, int relu, int add, int bias,
                    size_t s0, size_t s1, size_t s2, size_t s3)
{
	memset(k, 0, sizeof *k);
	k->kind = kind, k->cin = cin, k->cout = cout, k->k = ks, k->B = B, k->n = n;
	k->relu = relu, k->add = add, k->bias = bias;
	/* oneDNN balances a primitive's work over the threads it is made for:
	 * OpenMP's count for this thread is set before it is made */
	k->threads = __atomic_load_n(&dnn_threads, __ATOMIC_RELAXED);
	omp_set_num_threads(k->threads);
	k->s[0] = s0, k->s[1] = s1, k->s[2] = s2, k->s[3] = s3;
}

/* the thread's entry for k, made when new; moved to the front */
static entry *lookup(tstate *t, const key *k)
{
	entry **p = &t->cache;
	for (; *p; p = &(*p)->next)
		if (!memcmp(&(*p)->key, k, sizeof *k)) {
			entry *e = *p;
			*p = e->next;
			e->next = t->cache;
			t->cache = e;
			return e;
		}
	entry *e = k->kind == FWD ? fwd_make(t, k) : wgrad_make(t, k);
	if (e) {
		e->next = t->cache;
		t->cache = e;
	}
	return e;
}

static dnnl_memory_t mem(tstate *t, const dnnl_memory_desc_t *md, const void *p)
{
	dnnl_memory_t m = NULL;
	if (dnnl_memory_create(&m, md, t->eng, (void *)p) != dnnl_success)
		return NULL;
	return m;
}

static int run(tstate *t, dnnl_primitive_t p, int n, const dnnl_exec_arg_t *args)
{
	return dnnl_primitive_execute(p, t->strm, n, args) == dnnl_success ? 0 : -1;
}

/* runs the reorder r from one memory to the other */
static int reorder_run(tstate *t, dnnl_primitive_t r, dnnl_memory_t from, dnnl_memory_t to)
{
	return run(t, r, 2, (dnnl_exec_arg_t[]){{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
}

/* 1 when the first n memories of m were all made */
static int mems_made(const dnnl_memory_t *m, int n)
{
	for (int i = 0; i < n; i++)
		if (!m[i])
			return 0;
	return 1;
}

/* destroys the memories of m (n of them) that were made */
static void mems_free(dnnl_memory_t *m, int n)
{
	for (int i = 0; i < n; i++)
		if (m[i])
			dnnl_memory_destroy(m[i]);
}

/* relu in place over a blocked buffer (its padding is zeros): x > 0 ? x
 * : 0, -0 and NaN to +0; by SSE's maxps(x, 0), which returns its second
 * operand unless x > 0, so the same values (GCC at -O2 left the loop
 * scalar: 4.6% of 19x19 self-play with gt's b6c96) */
static void relu_buf(float *p, size_t bytes)
{
	size_t n = bytes / sizeof(float), i = 0;
#ifdef __SSE__
	const __m128 z = _mm_setzero_ps();
	for (; i + 4 <= n; i += 4)
		_mm_storeu_ps(p + i, _mm_max_ps(_mm_loadu_ps(p + i), z));
#endif
	for (; i < n; i++)
		p[i] = p[i] > 0 ? p[i] : 0.0f;
}

/* e's weights from w (version ver, 0: changed since any call) in its
 * layout: kept ones, or reordered into a kept buffer (ver != 0) or into
 * the thread's buffer 1; NULL when memory runs out or oneDNN fails */
static void *weights(tstate *t, entry *e, const float *w, unsigned long ver)
{
	size_t size = dnnl_memory_desc_get_size(&e->w_b);
	wcache **p = &t->wc, *hit = NULL;
	int count = 0;
	if (ver)
		for (; *p; p = &(*p)->next, count++)
			if ((*p)->w == w && dnnl_memory_desc_equal(&(*p)->md, &e->w_b)) {
				hit = *p;
				*p = hit->next; /* to the front, below */
				break;
			}
	if (hit && hit->ver == ver) {
		hit->next = t->wc;
		t->wc = hit;
		return hit->buf;
	}
	void *buf;
	if (!ver)
		buf = tbuf(t, 1, size);
	else {
		if (!hit) {
			if (count >= WCACHE_MAX) { /* the least recently used goes */
				wcache **q = &t->wc;
				while ((*q)->next)
					q = &(*q)->next;
				hit = *q;
				*q = NULL;
				free(hit->buf);
			} else if (!(hit = calloc(1, sizeof *hit)))
				return NULL;
			hit->w = w;
			hit->md = e->w_b;
			hit->buf = aligned_alloc(64, (size + 63) / 64 * 64);
		}
		hit->ver = 0;
		hit->next = t->wc;
		t->wc = hit;
		buf = hit->buf;
	}
	if (!buf)
		return NULL;
	dnnl_memory_t m[2] = {mem(t, &e->w_md, w), mem(t, &e->w_b, buf)};
	int rc = mems_made(m, 2) && reorder_run(t, e->r_w, m[0], m[1]) == 0 &&
		dnnl_stream_wait(t->strm) == dnnl_success ? 0 : -1;
	mems_free(m, 2);
	if (rc)
		return NULL;
	if (ver)
		hit->ver = ver;
	return buf;
}

int gt_dnn_conv(const gt_dnn_conv_args *a)
{
	tstate *t = tstate_get();
	if (!t)
		return -1;
	key k;
	key_set(&k, FWD, a->cin, a->cout, a->k, a->B, a->n, a->relu, a->add, a->bias != NULL, a->in_b, a->in_c,
	        a->out_b, a->out_c);
	entry *e = lookup(t, &k);
	if (!e)
		return -1;
	size_t ssz = dnnl_memory_desc_get_size(&e->src_b);
	void *sb = tbuf(t, 0, ssz), *db = tbuf(t, 2, dnnl_memory_desc_get_size(&e->dst_b));
	void *wb = sb && db ? weights(t, e, a->w, a->wver) : NULL;
	if (!wb)
		return -1;
	/* in, its blocked copy, the weights, the blocked output, out, the bias */
	dnnl_memory_t m[6] = {mem(t, &e->in_md, a->in), mem(t, &e->src_b, sb), mem(t, &e->w_b, wb),
	                      mem(t, &e->dst_b, db), mem(t, &e->out_md, a->out),
	                      a->bias ? mem(t, &e->bias_md, a->bias) : NULL};
	int rc = -1;
	if (!mems_made(m, a->bias ? 6 : 5) || reorder_run(t, e->r_in, m[0], m[1]) ||
	    dnnl_stream_wait(t->strm) != dnnl_success)
		goto out;
	if (a->relu)
		relu_buf(sb, ssz);
	dnnl_exec_arg_t ca[4] = {{DNNL_ARG_SRC, m[1]}, {DNNL_ARG_WEIGHTS, m[2]}, {DNNL_ARG_DST, m[3]},
	                         {DNNL_ARG_BIAS, m[5]}};
	if (run(t, e->conv, a->bias ? 4 : 3, ca) || reorder_run(t, e->r_out, m[3], m[4]) ||
	    dnnl_stream_wait(t->strm) != dnnl_success)
		goto out;
	rc = 0;
out:
	mems_free(m, 6);
	return rc;
}

int gt_dnn_wgrad(const gt_dnn_wgrad_args *a)
{
	tstate *t = tstate_get();
	if (!t)
		return -1;
	key k;
	key_set(&k, WGRAD, a->cin, a->cout, a->k, a->B, a->n, a->relu, 0, 0, a->in_b, a->in_c, a->dout_b,
	        a->dout_c);
	entry *e = lookup(t, &k);
	if (!e)
		return -1;
	size_t ssz = dnnl_memory_desc_get_size(&e->src_b), nw = (size_t)a->cout * a->cin * a->k * a->k;
	void *sb = tbuf(t, 0, ssz), *db = tbuf(t, 1, dnnl_memory_desc_get_size(&e->dst_b)),
	     *wb = tbuf(t, 2, dnnl_memory_desc_get_size(&e->w_b));
	float *g = tbuf(t, 3, nw * sizeof(float));
	if (!sb || !db || !wb || !g)
		return -1;
	dnnl_memory_t m[6] = {mem(t, &e->in_md, a->in), mem(t, &e->src_b, sb), mem(t, &e->out_md, a->dout),
	                      mem(t, &e->dst_b, db), mem(t, &e->w_b, wb), mem(t, &e->w_md, g)};
	int rc = -1;
	if (!mems_made(m, 6) || reorder_run(t, e->r_in, m[0], m[1]) || reorder_run(t, e->r_dout, m[2], m[3]) ||
	    dnnl_stream_wait(t->strm) != dnnl_success)
		goto out;
	if (a->relu)
		relu_buf(sb, ssz);
	if (run(t, e->conv, 3,
	        (dnnl_exec_arg_t[]){{DNNL_ARG_SRC, m[1]}, {DNNL_ARG_DIFF_DST, m[3]}, {DNNL_ARG_DIFF_WEIGHTS, m[4]}}) ||
	    reorder_run(t, e->r_w, m[4], m[5]) || dnnl_stream_wait(t->strm) != dnnl_success)
		goto out;
	for (size_t i = 0; i < nw; i++)
		a->dw[i] += a->alpha * g[i];
	rc = 0;
out:
	mems_free(m, 6);
	return rc;
}
#else
const char *gt_dnn_why_not(void)
{
	return "oneDNN is not built in (make DNNL=0)";
}

void gt_dnn_set_threads(int threads)
{
}

int gt_dnn_conv(const gt_dnn_conv_args *a)
{
	return -1;
}

int gt_dnn_wgrad(const gt_dnn_wgrad_args *a)
{
	return -1;
}
#endif
