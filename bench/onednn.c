/* bench/onednn: one 3x3 convolution of a b6c96 trunk (96 -> 96
 * channels, bias, stride 1, zero padding 1) at gt-selfplay's batch (16
 * boards), boards per CPU-second on one thread: gt's ways (im2col +
 * OpenBLAS sgemm, Winograd F(4x4,3x3) of lib/nn/wino.h, im2col in
 * bfloat16 of lib/nn/bf16.h and in int8 of lib/nn/int8.h, on the kernel
 * each chooses: AMX or AVX-512, named on the line) against oneDNN 2.6's (Debian's
 * libdnnl): its own choice (convolution_auto) and direct in float32,
 * Winograd where it offers one, bf16 and int8 (u8 activations, s8
 * weights), first in its preferred blocked layouts, reordered once
 * outside the timing (a network kept in them pays no reorder per
 * layer), then "+reorders": from and to gt's layout at every call, as
 * GT_CONV=onednn runs them (lib/nn/dnn.h; from gt's channel-major layout
 * and from KataGo's networks' NCHW); gt's ways take its own
 * layouts. The ways alternate in windows of process
 * CPU time, 3 rounds, each starting with another way; each line gives
 * min/median/max boards per CPU-second and the ratio of the median to
 * gt's faster float32 way. oneDNN's float32 output is checked against
 * gt's Winograd (largest difference printed). One thread each:
 * OMP_NUM_THREADS=1 is set by re-executing itself.
 *   onednn [--window S] [--sizes 9,19] [--batch B]
 */
#include "bench.h"
#include "bf16.h"
#include "int8.h"
#include "dnn.h"
#include "nn.h"
#include "wino.h"

#include <cblas.h>
#include <math.h>
#include <oneapi/dnnl/dnnl.h>
#include <string.h>

#define C 96
#define WAYS 14

static double window = 1.0;

#define DN(x)                                                                   \
	do {                                                                    \
		dnnl_status_t s_ = (x);                                         \
		if (s_ != dnnl_success) {                                       \
			fprintf(stderr, "onednn: %s: status %d\n", #x, (int)s_); \
			exit(1);                                                \
		}                                                               \
	} while (0)

/* a oneDNN convolution in its preferred layouts, with its inputs
 * reordered from gt's float32 NCHW once */
typedef struct {
	dnnl_primitive_t p;
	dnnl_memory_t src, wei, bia, dst;
	char impl[64];
	/* drop-in: gt's float32 NCHW in and out reordered at every call */
	int dropin;
	dnnl_memory_t pin, pout;
	dnnl_primitive_t rin, rout;
} dconv;

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static void reorder(dnnl_memory_t from, dnnl_memory_t to)
{
	const dnnl_memory_desc_t *a, *b;
	DN(dnnl_memory_get_memory_desc(from, &a));
	DN(dnnl_memory_get_memory_desc(to, &b));
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t r;
	DN(dnnl_reorder_primitive_desc_create(&pd, a, eng, b, eng, NULL));
	DN(dnnl_primitive_create(&r, pd));
	dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
	DN(dnnl_primitive_execute(r, strm, 2, args));
	DN(dnnl_stream_wait(strm));
	dnnl_primitive_destroy(r);
	dnnl_primitive_desc_destroy(pd);
}

/* the reorder primitive from one memory to another; scale: the output
 * scale (int8), 0 for none */
static dnnl_primitive_t reorder_prim(dnnl_memory_t from, dnnl_memory_t to, float scale)
{
	const dnnl_memory_desc_t *a, *b;
	DN(dnnl_memory_get_memory_desc(from, &a));
	DN(dnnl_memory_get_memory_desc(to, &b));
	dnnl_primitive_attr_t attr;
	DN(dnnl_primitive_attr_create(&attr));
	if (scale != 0)
		DN(dnnl_primitive_attr_set_output_scales(attr, 1, 0, &scale));
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t r;
	DN(dnnl_reorder_primitive_desc_create(&pd, a, eng, b, eng, attr));
	DN(dnnl_primitive_create(&r, pd));
	dnnl_primitive_desc_destroy(pd);
	dnnl_primitive_attr_destroy(attr);
	return r;
}

static void run_reorder(dnnl_primitive_t r, dnnl_memory_t from, dnnl_memory_t to)
{
	dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
	DN(dnnl_primitive_execute(r, strm, 2, args));
}

/* a plain float32 memory over buf with dims and tag */
static dnnl_memory_t plain(int nd, const dnnl_dims_t dims, dnnl_format_tag_t tag, void *buf)
{
	dnnl_memory_desc_t md;
	dnnl_memory_t m;
	DN(dnnl_memory_desc_init_by_tag(&md, nd, dims, dnnl_f32, tag));
	DN(dnnl_memory_create(&m, &md, eng, buf));
	return m;
}

/* 0, or -1 when oneDNN has no implementation of alg for these types */
static int dconv_make(dconv *d, dnnl_alg_kind_t alg, dnnl_data_type_t st, dnnl_data_type_t wt, int B, int n,
                      float *in, float *w, float *bias, float *out)
{
	dnnl_dims_t sd = {B, C, n, n}, wd = {C, C, 3, 3}, bd = {C}, one = {1, 1};
	dnnl_memory_desc_t smd, wmd, bmd, dmd;
	DN(dnnl_memory_desc_init_by_tag(&smd, 4, sd, st, dnnl_format_tag_any));
	DN(dnnl_memory_desc_init_by_tag(&wmd, 4, wd, wt, dnnl_format_tag_any));
	DN(dnnl_memory_desc_init_by_tag(&bmd, 1, bd, dnnl_f32, dnnl_x));
	DN(dnnl_memory_desc_init_by_tag(&dmd, 4, sd, dnnl_f32, dnnl_format_tag_any));
	dnnl_convolution_desc_t cd;
	if (dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, alg, &smd, &wmd, &bmd, &dmd, one, one,
	                                       one) != dnnl_success)
		return -1;
	dnnl_primitive_attr_t attr;
	DN(dnnl_primitive_attr_create(&attr));
	if (st == dnnl_u8) { /* int8: the output scaled back to float32 */
		float s = 1.0f / (255.0f * 127.0f);
		DN(dnnl_primitive_attr_set_output_scales(attr, 1, 0, &s));
	}
	dnnl_primitive_desc_t pd;
	dnnl_status_t s = dnnl_primitive_desc_create(&pd, &cd, attr, eng, NULL);
	dnnl_primitive_attr_destroy(attr);
	if (s != dnnl_success)
		return -1;
	const char *impl = "?";
	dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
	snprintf(d->impl, sizeof d->impl, "%s", impl);
	DN(dnnl_primitive_create(&d->p, pd));
	DN(dnnl_memory_create(&d->src, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), eng,
	                      DNNL_MEMORY_ALLOCATE));
	DN(dnnl_memory_create(&d->wei, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), eng,
	                      DNNL_MEMORY_ALLOCATE));
	DN(dnnl_memory_create(&d->bia, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1), eng,
	                      DNNL_MEMORY_ALLOCATE));
	DN(dnnl_memory_create(&d->dst, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), eng,
	                      DNNL_MEMORY_ALLOCATE));
	dnnl_primitive_desc_destroy(pd);
	/* int8: the activations (in [0, 1)) and weights scaled into u8 and s8 */
	float *si = in, *sw = w;
	size_t ni = (size_t)B * C * n * n, nw = (size_t)C * C * 9;
	if (st == dnnl_u8) {
		si = malloc(ni * sizeof *si), sw = malloc(nw * sizeof *sw);
		for (size_t i = 0; i < ni; i++)
			si[i] = roundf(in[i] * 255.0f);
		for (size_t i = 0; i < nw; i++)
			sw[i] = roundf(w[i] * 127.0f);
	}
	dnnl_memory_t a = plain(4, sd, dnnl_nchw, si), b = plain(4, wd, dnnl_oihw, sw), c = plain(1, bd, dnnl_x, bias);
	reorder(a, d->src), reorder(b, d->wei), reorder(c, d->bia);
	dnnl_memory_destroy(a), dnnl_memory_destroy(b), dnnl_memory_destroy(c);
	if (si != in)
		free(si), free(sw);
	if (d->dropin) {
		d->pin = plain(4, sd, dnnl_nchw, in), d->pout = plain(4, sd, dnnl_nchw, out);
		d->rin = reorder_prim(d->pin, d->src, st == dnnl_u8 ? 255.0f : 0);
		d->rout = reorder_prim(d->dst, d->pout, 0);
	}
	return 0;
}

static void dconv_run(dconv *d)
{
	dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, d->src}, {DNNL_ARG_WEIGHTS, d->wei}, {DNNL_ARG_BIAS, d->bia},
	                           {DNNL_ARG_DST, d->dst}};
	if (d->dropin)
		run_reorder(d->rin, d->pin, d->src);
	DN(dnnl_primitive_execute(d->p, strm, 4, args));
	if (d->dropin)
		run_reorder(d->rout, d->dst, d->pout);
	DN(dnnl_stream_wait(strm));
}

/* out (NCHW float32) from d's output */
static void dconv_out(dconv *d, int B, int n, float *out)
{
	dnnl_dims_t sd = {B, C, n, n};
	dnnl_memory_t m = plain(4, sd, dnnl_nchw, out);
	reorder(d->dst, m);
	dnnl_memory_destroy(m);
}

static void dconv_free(dconv *d)
{
	dnnl_primitive_destroy(d->p);
	dnnl_memory_destroy(d->src), dnnl_memory_destroy(d->wei);
	dnnl_memory_destroy(d->bia), dnnl_memory_destroy(d->dst);
	if (d->dropin) {
		dnnl_primitive_destroy(d->rin), dnnl_primitive_destroy(d->rout);
		dnnl_memory_destroy(d->pin), dnnl_memory_destroy(d->pout);
	}
}

/* gt's ways, on one layer */
typedef struct {
	int B, n;
	float *in, *w, *bias, *out, *cols, *u, *scratch, *in_cm, *out_cm;
	uint16_t *wb, *bscratch;
	int8_t *wq;
	float *sq;
	uint8_t *qscratch;
} gtconv;

/* cols (9 Cc x B n n) = the im2col of in (Cc x B n n, channel-major) */
static void im2col_cm(const float *in, int Cc, int B, int n, float *cols)
{
	int N = B * n * n;
	for (int c = 0; c < Cc; c++)
		for (int k = 0; k < 9; k++) {
			int dy = k / 3 - 1, dx = k % 3 - 1;
			float *col = cols + (size_t)(c * 9 + k) * N;
			const float *src = in + (size_t)c * N;
			for (int b = 0; b < B; b++)
				for (int y = 0; y < n; y++)
					for (int x = 0; x < n; x++) {
						int yy = y + dy, xx = x + dx;
						col[(b * n + y) * n + x] = yy >= 0 && yy < n && xx >= 0 && xx < n
							? src[(b * n + yy) * n + xx] : 0.0f;
					}
		}
}

/* im2col + sgemm, as nn_cpu.c does it: (C x 9C) by (9C x B n n), the
 * boards channel-major */
static void gt_im2col(gtconv *g)
{
	int N = g->B * g->n * g->n;
	im2col_cm(g->in_cm, C, g->B, g->n, g->cols);
	for (int c = 0; c < C; c++)
		for (int j = 0; j < N; j++)
			g->out_cm[(size_t)c * N + j] = g->bias[c];
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, C, N, 9 * C, 1.0f, g->w, 9 * C, g->cols, N, 1.0f,
	            g->out_cm, N);
}

static void gt_wino(gtconv *g)
{
	size_t nn = (size_t)g->n * g->n;
	gt_wino_conv(&(gt_wino_conv_args){g->u, C, C, g->B, g->n, g->in, C * nn, nn, 0, g->bias, g->out, C * nn, nn,
	                                   0, g->scratch});
}

static void gt_bf16(gtconv *g)
{
	long N = (long)g->B * g->n * g->n;
	gt_bf16_conv3x3(&(gt_bf16_conv_args){g->wb, C, C, g->n, N, g->in_cm, (size_t)N, 0, g->bias, g->out_cm,
	                                     (size_t)N, 0, g->bscratch});
}

static void gt_int8(gtconv *g)
{
	long N = (long)g->B * g->n * g->n;
	gt_int8_conv3x3(&(gt_int8_conv_args){g->wq, g->sq, C, C, g->n, N, g->in_cm, (size_t)N, 0, g->bias,
	                                     g->out_cm, (size_t)N, 0, g->qscratch});
}

/* GT_CONV=onednn's forward (dnn.h): from and to gt's channel-major
 * layout */
static void gt_dnn(gtconv *g)
{
	size_t N = (size_t)g->n * g->n, BN = g->B * N;
	gt_dnn_conv(&(gt_dnn_conv_args){g->w, 1, C, C, 3, g->B, g->n, g->in_cm, N, BN, 0, g->bias, g->out_cm, N, BN,
	                                0});
}

/* the same from and to NCHW (KataGo's networks' layout, katago.c) */
static void gt_dnn_nchw(gtconv *g)
{
	size_t N = (size_t)g->n * g->n;
	gt_dnn_conv(&(gt_dnn_conv_args){g->w, 1, C, C, 3, g->B, g->n, g->in, C * N, N, 0, g->bias, g->out,
	                                C * N, N, 0});
}

typedef struct {
	const char *name;
	int onednn;
	dconv d;
	void (*gt)(gtconv *);
	double r[3];
} way;

static double rate(way *w, gtconv *g)
{
	int k = 0;
	double t0 = cpu_process(), dt;
	do {
		if (w->onednn)
			dconv_run(&w->d);
		else
			w->gt(g);
		k++;
	} while ((dt = cpu_process() - t0) < window);
	return k * g->B / dt;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static unsigned long long rng = 88172645463325252ULL;
static float frand(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (rng >> 40) / 16777216.0f;
}

static void size_run(int B, int n)
{
	size_t nn = (size_t)n * n, ni = (size_t)B * C * nn, nw = (size_t)C * C * 9;
	gtconv g = {.B = B, .n = n};
	g.in = malloc(ni * sizeof(float)), g.in_cm = malloc(ni * sizeof(float));
	g.out = malloc(ni * sizeof(float)), g.out_cm = malloc(ni * sizeof(float));
	g.w = malloc(nw * sizeof(float)), g.bias = malloc(C * sizeof(float));
	g.cols = malloc(ni * 9 * sizeof(float));
	g.u = malloc(gt_wino_filter_floats(C, C) * sizeof(float));
	g.scratch = malloc(gt_wino_scratch_floats(C, C) * sizeof(float));
	for (size_t i = 0; i < ni; i++) /* relu'd activations: non-negative */
		g.in[i] = frand();
	for (size_t i = 0; i < nw; i++)
		g.w[i] = 2.0f * frand() - 1.0f;
	for (int c = 0; c < C; c++)
		g.bias[c] = frand() - 0.5f;
	for (int b = 0; b < B; b++)
		for (int c = 0; c < C; c++)
			memcpy(g.in_cm + ((size_t)c * B + b) * nn, g.in + ((size_t)b * C + c) * nn, nn * sizeof(float));
	gt_wino_filter(g.w, C, C, g.u);
	int bf = gt_bf16_available(NULL);
	if (bf) {
		/* 64-byte aligned, as nn_cpu.c's (gt_xmalloc64) */
		g.wb = aligned_alloc(64, (gt_bf16_pack_size(C, 9 * C) * sizeof(uint16_t) + 63) / 64 * 64);
		g.bscratch = aligned_alloc(64, (gt_bf16_scratch_size(9 * C) * sizeof(uint16_t) + 63) / 64 * 64);
		gt_bf16_pack(g.w, C, 9 * C, 9 * C, g.wb);
	}

	int i8 = gt_int8_available(NULL);
	if (i8) {
		g.wq = aligned_alloc(64, (gt_int8_pack_size(C, 9 * C) + 63) / 64 * 64);
		g.sq = malloc(C * sizeof(float));
		g.qscratch = aligned_alloc(64, (gt_int8_scratch_size(C, n) + 63) / 64 * 64);
		gt_int8_pack(g.w, C, 9 * C, 9 * C, g.wq, g.sq);
	}
	char bfname[64], i8name[64];
	snprintf(bfname, sizeof bfname, "gt im2col bf16 (%s)", bf ? gt_bf16_kernel(NULL) : "-");
	snprintf(i8name, sizeof i8name, "gt im2col int8 (%s)", i8 ? gt_int8_kernel(NULL) : "-");

	way ways[WAYS];
	int nw_ = 0;
	ways[nw_++] = (way){.name = "gt im2col+sgemm fp32", .gt = gt_im2col};
	ways[nw_++] = (way){.name = "gt winograd fp32", .gt = gt_wino};
	if (bf)
		ways[nw_++] = (way){.name = bfname, .gt = gt_bf16};
	if (i8)
		ways[nw_++] = (way){.name = i8name, .gt = gt_int8};
	ways[nw_++] = (way){.name = "gt GT_CONV=onednn fp32 (dnn.h)", .gt = gt_dnn};
	ways[nw_++] = (way){.name = "gt GT_CONV=onednn fp32 (dnn.h) from NCHW", .gt = gt_dnn_nchw};
	struct {
		const char *name;
		dnnl_alg_kind_t alg;
		dnnl_data_type_t st, wt;
		int dropin;
	} dn[] = {{"onednn auto fp32", dnnl_convolution_auto, dnnl_f32, dnnl_f32, 0},
	          {"onednn direct fp32", dnnl_convolution_direct, dnnl_f32, dnnl_f32, 0},
	          {"onednn winograd fp32", dnnl_convolution_winograd, dnnl_f32, dnnl_f32, 0},
	          {"onednn auto bf16", dnnl_convolution_auto, dnnl_bf16, dnnl_bf16, 0},
	          {"onednn auto int8", dnnl_convolution_auto, dnnl_u8, dnnl_s8, 0},
	          {"onednn winograd fp32 +reorders", dnnl_convolution_winograd, dnnl_f32, dnnl_f32, 1},
	          {"onednn auto bf16 +reorders", dnnl_convolution_auto, dnnl_bf16, dnnl_bf16, 1},
	          {"onednn auto int8 +reorders", dnnl_convolution_auto, dnnl_u8, dnnl_s8, 1}};
	for (size_t i = 0; i < sizeof dn / sizeof dn[0]; i++) {
		way w = {.name = dn[i].name, .onednn = 1, .d.dropin = dn[i].dropin};
		if (dconv_make(&w.d, dn[i].alg, dn[i].st, dn[i].wt, B, n, g.in, g.w, g.bias, g.out) < 0) {
			printf("onednn: %dx%d: %s: no implementation here: skipped\n", n, n, dn[i].name);
			continue;
		}
		ways[nw_++] = w;
	}
	/* oneDNN's float32 against gt's Winograd */
	gt_wino(&g);
	float *o = malloc(ni * sizeof(float));
	for (int i = 0; i < nw_; i++) {
		if (!ways[i].onednn || ways[i].d.dropin || strstr(ways[i].name, "fp32") == NULL)
			continue;
		dconv_run(&ways[i].d);
		dconv_out(&ways[i].d, B, n, o);
		double m = 0, s = 0;
		for (size_t j = 0; j < ni; j++)
			m = fmax(m, fabs(o[j] - g.out[j])), s = fmax(s, fabs(g.out[j]));
		printf("onednn: %dx%d: %s (%s): largest difference from gt's Winograd %.2g (outputs up to %.3g)\n",
		       n, n, ways[i].name, ways[i].d.impl, m, s);
	}
	free(o);
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < nw_; i++) {
			way *w = &ways[(i + r) % nw_];
			w->r[r] = rate(w, &g);
		}
	double ref = 0;
	for (int i = 0; i < 2; i++) {
		qsort(ways[i].r, 3, sizeof(double), cmp);
		ref = fmax(ref, ways[i].r[1]);
	}
	for (int i = 0; i < nw_; i++) {
		if (i >= 2)
			qsort(ways[i].r, 3, sizeof(double), cmp);
		printf("onednn: %dx%d batch %d, %s%s%s%s: %.0f / %.0f / %.0f boards per CPU-second (x%.2f)\n", n, n,
		       B, ways[i].name, ways[i].onednn ? " [" : "", ways[i].onednn ? ways[i].d.impl : "",
		       ways[i].onednn ? "]" : "", ways[i].r[0], ways[i].r[1], ways[i].r[2], ways[i].r[1] / ref);
		if (ways[i].onednn)
			dconv_free(&ways[i].d);
	}
	free(g.in), free(g.in_cm), free(g.out), free(g.out_cm), free(g.w), free(g.bias), free(g.cols);
	free(g.u), free(g.scratch), free(g.wb), free(g.bscratch), free(g.wq), free(g.sq), free(g.qscratch);
}

/* the weight gradient of a training step's block convolution (C x C,
 * batch B on n x n): im2col + sgemm as nn_cpu.c under GT_CONV=im2col
 * against dnn.h's gt_dnn_wgrad (oneDNN, the default), alternating in
 * windows of CPU time, 3 rounds */
static void wgrad_run(int Cw, int B, int n)
{
	int N = n * n, BN = B * N;
	float *in = malloc(sizeof(float) * Cw * BN), *d = malloc(sizeof(float) * Cw * BN);
	float *col = malloc(sizeof(float) * 9 * Cw * BN), *dw = calloc((size_t)Cw * Cw * 9, sizeof(float));
	for (long i = 0; i < (long)Cw * BN; i++)
		in[i] = frand() - 0.3f, d[i] = frand() - 0.5f;
	double r[2][3];
	for (int round = 0; round < 3; round++)
		for (int w = 0; w < 2; w++) {
			int way = (w + round) % 2, k = 0;
			double t0 = cpu_process(), dt;
			do {
				if (way == 0) {
					im2col_cm(in, Cw, B, n, col);
					cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Cw, 9 * Cw, BN, 1.0f, d, BN, col, BN,
					            1.0f, dw, 9 * Cw);
				} else {
					gt_dnn_wgrad(&(gt_dnn_wgrad_args){Cw, Cw, 3, B, n, in, N, (size_t)BN, 1, d, N,
					                                  (size_t)BN, 1.0f, dw});
				}
				k++;
			} while ((dt = cpu_process() - t0) < window);
			r[way][round] = k * B / dt;
		}
	for (int w = 0; w < 2; w++)
		qsort(r[w], 3, sizeof(double), cmp);
	printf("onednn: weight gradient %d x %d channels, %dx%d batch %d: im2col+sgemm %.0f / %.0f / %.0f, "
	       "oneDNN (dnn.h) %.0f / %.0f / %.0f samples per CPU-second (x%.2f)\n", Cw, Cw, n, n, B, r[0][0],
	       r[0][1], r[0][2], r[1][0], r[1][1], r[1][2], r[1][1] / r[0][1]);
	free(in), free(d), free(col), free(dw);
}

int main(int argc, char **argv)
{
	const char *t = getenv("OMP_NUM_THREADS");
	if (!t || strcmp(t, "1")) { /* OpenMP reads it when it starts */
		setenv("OMP_NUM_THREADS", "1", 1);
		execv("/proc/self/exe", argv);
		perror("onednn: execv");
		return 1;
	}
	int B = 16, sizes[8] = {9, 19}, ns = 2;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--window"))
			window = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--batch"))
			B = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--sizes")) {
			ns = 0;
			for (char *s = argv[i + 1]; *s && ns < 8; s++) {
				sizes[ns++] = (int)strtol(s, &s, 10);
				if (!*s)
					break;
			}
		}
	}
	gt_nn_set_threads(1);
	openblas_set_num_threads(1);
	DN(dnnl_engine_create(&eng, dnnl_cpu, 0));
	DN(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
	const dnnl_version_t *v = dnnl_version();
	printf("onednn: oneDNN %d.%d.%d, one thread, window %.1f s of CPU\n", v->major, v->minor, v->patch,
	       window);
	for (int i = 0; i < ns; i++)
		if (sizes[i] >= 2 && sizes[i] <= 19)
			size_run(B, sizes[i]);
	wgrad_run(64, 256, 9);
	wgrad_run(96, 64, 19);
	dnnl_stream_destroy(strm);
	dnnl_engine_destroy(eng);
	return 0;
}
