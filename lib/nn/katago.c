/* katago.c: KataGo's model files and their forward pass on the CPU (see
 * katago.h). The layer order follows KataGo's cpp/neuralnet/desc.cpp, the
 * arithmetic its Eigen backend (read, not copied). The 3x3 convolutions
 * run by Winograd F(4x4,3x3) (wino.h) where gt_conv_winograd says, with
 * filters transformed at the first forward that needs them. A batch norm
 * that directly follows a convolution is folded into its weights and bias
 * at load (fold_bn); the others (before a convolution, after a sum of
 * residuals) and the activations run in one pass over the data, by AVX2
 * and FMA where gt_simd_avx2 says, by NEON where gt_simd_neon says
 * (simd.h); a ReLU right before a
 * convolution goes into the convolution's input. */
#include "katago.h"
#include "nn.h"
#include "bf16.h"
#include "dnn.h"
#include "int8.h"
#include "simd.h"
#include "wino.h"

#include <cblas.h>
#if GT_X86
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { ACT_RELU = 0, ACT_MISH = 1, ACT_SILU = 2, ACT_IDENTITY = 3 };
enum { BLK_ORDINARY = 0, BLK_GPOOL = 1, BLK_NESTED = 2 };
#define MAX_DEPTH 4    /* nested bottleneck blocks inside each other */
#define MAX_KERNEL 9   /* largest convolution side */

typedef struct kconv {
	int ky, kx, cin, cout;
	float *w;          /* cout x (cin*ky*kx), (ci, y, x) order within a row */
	float *b;          /* cout biases (a batch norm folded in: fold_bn), or NULL */
	float *u;          /* 3x3: the Winograd filters (wino.h), once made */
	uint16_t *wb;      /* 3x3: w in bfloat16 (bf16.h), once made */
	int8_t *wq;        /* 3x3: w in int8 (int8.h), once made */
	float *sq;         /* its cout scales */
	unsigned long ver; /* dnn.h's version of w (gt_dnn_version, when read) */
} kconv;

static void track(int *maxc, int c)
{
	if (c > *maxc)
		*maxc = c;
}

typedef struct kbn {
	int c;
	float *scale, *bias; /* merged: y = x * scale + bias */
	int folded;          /* 1: scale and bias are in the convolution before
	                      * it (fold_bn): only the activation is left */
} kbn;

typedef struct kmat {
	int cin, cout;
	float *w;          /* cin x cout (the file's order) */
} kmat;

typedef struct kblock {
	int kind;
	kbn pre; int pre_act;
	kconv c1;                  /* regular conv (nested: the 1x1 pre conv) */
	kconv gc; kbn gbn; int gact; kmat gmul; /* gpool branch */
	kbn mid; int mid_act;      /* nested: post BN */
	kconv c2;                  /* final conv (nested: the 1x1 post conv) */
	int nsub;
	struct kblock *sub;
} kblock;

struct gt_kata {
	gt_kata_info info;
	kconv in_conv; kmat in_mul;
	int nblocks; kblock *blocks;
	kbn tip; int tip_act;
	/* policy head */
	kconv p1, g1; kbn g1bn; int g1act; kmat gbias; kbn p1bn; int p1act; kconv p2;
	kmat pass1; float *pass_b; int pass_act; kmat pass2; /* pass_b, pass2: v15 */
	/* value head */
	kconv v1; kbn v1bn; int v1act; kmat v2; float *v2b; int v2act;
	kmat v3; float *v3b; kmat sv3; float *sv3b; kconv own;
	int maxc, depths;  /* most channels of a layer; block nesting levels */
	size_t maxk;
	/* buffers */
	size_t cap;        /* floats of each activation buffer */
	float *x, *a, *r, *t, *col, *pool, *tmp;
	size_t cap_pool;
	float *out_policy, *out_value, *out_score, *out_own;
	int cap_b, cap_n;
	int conv_mode;     /* GT_CONV_* (wino.h), from GT_CONV at gt_kata_read */
	int vec;           /* gt_simd_avx2 or gt_simd_neon at gt_kata_read */
	int wino;          /* 1: 3x3 filters transformed; -1: too large, im2col */
	int wino_now;      /* this forward uses them */
	int dnn_now;       /* this forward's convolutions by oneDNN (dnn.h) */
	float *wscratch;   /* gt_wino_conv's scratch */
	int prec;          /* 3x3 convolutions' GT_PREC_* (gt_kata_precision) */
	uint16_t *bscratch;/* gt_bf16_gemm's scratch, once made */
	uint8_t *qscratch; /* gt_int8_conv3x3's scratch, once made */
	float *lin, *lout; /* bf16/int8: a layer's input and output, channel-major
	                    * for the whole batch (cap floats each, grow) */
	int cm_now;        /* this forward's trunk is channel-major (trunk_cm) */
	float *xh;         /* then the trunk's output position-major, for the
	                    * heads (cap floats, grow) */
};

/* ---- reading ---- */

typedef struct rd {
	gzFile f;
	int binary;
	size_t total;       /* floats read so far */
	gt_error *e;
	int depth, maxdepth;
	int version;
	int maxc;           /* most channels of any layer's input or output */
	size_t maxk;        /* largest cin * ky * kx */
	char tok[160];
} rd;

static int rd_token(rd *r, const char *what)
{
	int c, len = 0;
	while ((c = gzgetc(r->f)) != -1 && isspace(c))
		;
	while (c != -1 && !isspace(c)) {
		if (len + 1 >= (int)sizeof r->tok)
			return gt_error_set(r->e, GT_EFORMAT, -1, -1, "katago model: %s: token too long", what);
		r->tok[len++] = (char)c;
		c = gzgetc(r->f);
	}
	r->tok[len] = 0;
	if (!len)
		return gt_error_set(r->e, GT_EFORMAT, -1, -1, "katago model: truncated at %s", what);
	return 0;
}

static int rd_int(rd *r, const char *what, int lo, int hi, int *v)
{
	int rc = rd_token(r, what);
	if (rc)
		return rc;
	char *end;
	long x = strtol(r->tok, &end, 10);
	if (*end || end == r->tok)
		return gt_error_set(r->e, GT_EFORMAT, -1, -1, "katago model: %s: not a number: %.40s", what, r->tok);
	if (x < lo || x > hi)
		return gt_error_set(r->e, GT_EFORMAT, -1, -1, "katago model: %s %ld out of range %d..%d",
		                    what, x, lo, hi);
	*v = (int)x;
	return 0;
}

static int rd_float(rd *r, const char *what, float *v)
{
	int rc = rd_token(r, what);
	if (rc)
		return rc;
	char *end;
	float x = strtof(r->tok, &end);
	if (*end || end == r->tok || !isfinite(x))
		return gt_error_set(r->e, GT_EFORMAT, -1, -1, "katago model: %s: bad number %.40s", what, r->tok);
	*v = x;
	return 0;
}

/* rd_floats: count floats of layer what into a new array (*out). The array
 * grows as data arrives (at most 1 Mi floats ahead of it). */
static int rd_floats(rd *r, const char *what, size_t count, float **out)
{
	*out = NULL;
	if (count > GT_KATA_MAX_PARAMS - r->total)
		return gt_error_set(r->e, GT_EFORMAT, -1, -1,
		                    "katago model: %s: more than %lu parameters", what, GT_KATA_MAX_PARAMS);
	if (r->binary) {
		int c, skipped = 0;
		while ((c = gzgetc(r->f)) != '@') {
			if (c == -1 || ++skipped > 100)
				return gt_error_set(r->e, GT_EFORMAT, -1, -1,
				                    "katago model: %s: no @BIN@ float block", what);
		}
		char tag[4];
		if (gzread(r->f, tag, 4) != 4 || memcmp(tag, "BIN@", 4) != 0)
			return gt_error_set(r->e, GT_EFORMAT, -1, -1, "katago model: %s: no @BIN@ float block", what);
	}
	size_t cap = count < (1u << 20) ? count : (1u << 20), got = 0;
	float *w = gt_xmalloc((cap ? cap : 1) * sizeof(float));
	while (got < count) {
		if (got == cap) {
			cap = cap * 2 < count ? cap * 2 : count;
			w = gt_xrealloc(w, cap * sizeof(float));
		}
		if (r->binary) {
			size_t want = cap - got;
			int k = gzread(r->f, w + got, (unsigned)(want * sizeof(float)));
			if (k <= 0 || k % 4) {
				free(w);
				return gt_error_set(r->e, GT_EFORMAT, -1, -1,
				                    "katago model: %s: truncated (%zu of %zu floats)", what,
				                    got + (k > 0 ? (size_t)k / 4 : 0), count);
			}
			for (size_t i = got; i < got + (size_t)k / 4; i++) {
				uint8_t *p = (uint8_t *)&w[i];
				uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				             (uint32_t)p[3] << 24;
				memcpy(&w[i], &u, 4);
				if (!isfinite(w[i])) {
					free(w);
					return gt_error_set(r->e, GT_EFORMAT, -1, -1,
					                    "katago model: %s: non-finite weight", what);
				}
			}
			got += (size_t)k / 4;
		} else {
			int rc = rd_float(r, what, &w[got]);
			if (rc) {
				free(w);
				return rc;
			}
			got++;
		}
	}
	r->total += count;
	*out = w;
	return 0;
}

static int rd_name(rd *r, const char *what)
{
	return rd_token(r, what);
}

static int rd_conv(rd *r, kconv *c, const char *what)
{
	int rc, dy, dx;
	if ((rc = rd_name(r, what)) || (rc = rd_int(r, what, 1, MAX_KERNEL, &c->ky)) ||
	    (rc = rd_int(r, what, 1, MAX_KERNEL, &c->kx)) ||
	    (rc = rd_int(r, what, 1, GT_KATA_MAX_CHANNELS, &c->cin)) ||
	    (rc = rd_int(r, what, 1, GT_KATA_MAX_CHANNELS, &c->cout)) ||
	    (rc = rd_int(r, what, 1, 64, &dy)) || (rc = rd_int(r, what, 1, 64, &dx)))
		return rc;
	if (c->ky % 2 == 0 || c->kx % 2 == 0)
		return gt_error_set(r->e, GT_EFORMAT, -1, -1, "katago model: %s: even convolution size", what);
	if (dy != 1 || dx != 1)
		return gt_error_set(r->e, GT_EUNSUPPORTED, -1, -1,
		                    "katago model version %d: dilated convolution (%s) not supported",
		                    r->version, what);
	float *f;
	size_t K = (size_t)c->cin * c->ky * c->kx;
	track(&r->maxc, c->cin), track(&r->maxc, c->cout);
	if (K > r->maxk)
		r->maxk = K;
	if ((rc = rd_floats(r, what, K * c->cout, &f)))
		return rc;
	/* file order y, x, ic, oc -> oc, ic, y, x */
	c->w = gt_xmalloc(K * c->cout * sizeof(float));
	c->ver = gt_dnn_version();
	size_t i = 0;
	for (int y = 0; y < c->ky; y++)
		for (int x = 0; x < c->kx; x++)
			for (int ic = 0; ic < c->cin; ic++)
				for (int oc = 0; oc < c->cout; oc++)
					c->w[(size_t)oc * K + ((size_t)ic * c->ky + y) * c->kx + x] = f[i++];
	free(f);
	return 0;
}

static int rd_bn(rd *r, kbn *b, const char *what)
{
	int rc, has_scale, has_bias;
	float eps;
	if ((rc = rd_name(r, what)) || (rc = rd_int(r, what, 1, GT_KATA_MAX_CHANNELS, &b->c)) ||
	    (rc = rd_float(r, what, &eps)) || (rc = rd_int(r, what, 0, 1, &has_scale)) ||
	    (rc = rd_int(r, what, 0, 1, &has_bias)))
		return rc;
	if (!(eps > 0))
		return gt_error_set(r->e, GT_EFORMAT, -1, -1, "katago model: %s: epsilon not positive", what);
	float *mean = NULL, *var = NULL, *scale = NULL, *bias = NULL;
	if ((rc = rd_floats(r, what, b->c, &mean)) || (rc = rd_floats(r, what, b->c, &var)) ||
	    (has_scale && (rc = rd_floats(r, what, b->c, &scale))) ||
	    (has_bias && (rc = rd_floats(r, what, b->c, &bias)))) {
		free(mean), free(var), free(scale), free(bias);
		return rc;
	}
	b->scale = gt_xmalloc(b->c * sizeof(float));
	b->bias = gt_xmalloc(b->c * sizeof(float));
	for (int i = 0; i < b->c; i++) {
		float s = (scale ? scale[i] : 1.0f) / sqrtf(var[i] + eps);
		b->scale[i] = s;
		b->bias[i] = (bias ? bias[i] : 0.0f) - s * mean[i];
	}
	free(mean), free(var), free(scale), free(bias);
	return 0;
}

static int rd_act(rd *r, int *act, const char *what)
{
	int rc = rd_name(r, what);
	if (rc)
		return rc;
	*act = ACT_RELU;
	if (r->version < 11)
		return 0;
	if ((rc = rd_token(r, what)))
		return rc;
	if (strcmp(r->tok, "ACTIVATION_RELU") == 0)
		*act = ACT_RELU;
	else if (strcmp(r->tok, "ACTIVATION_MISH") == 0)
		*act = ACT_MISH;
	else if (strcmp(r->tok, "ACTIVATION_SILU") == 0)
		*act = ACT_SILU;
	else if (strcmp(r->tok, "ACTIVATION_IDENTITY") == 0)
		*act = ACT_IDENTITY;
	else
		return gt_error_set(r->e, GT_EUNSUPPORTED, -1, -1,
		                    "katago model version %d: activation %.40s (%s) not supported",
		                    r->version, r->tok, what);
	return 0;
}

static int rd_mat(rd *r, kmat *m, const char *what)
{
	int rc;
	if ((rc = rd_name(r, what)) || (rc = rd_int(r, what, 1, 3 * GT_KATA_MAX_CHANNELS, &m->cin)) ||
	    (rc = rd_int(r, what, 1, GT_KATA_MAX_CHANNELS, &m->cout)))
		return rc;
	track(&r->maxc, m->cin), track(&r->maxc, m->cout);
	return rd_floats(r, what, (size_t)m->cin * m->cout, &m->w);
}

static int rd_bias(rd *r, float **b, int want, const char *what)
{
	int rc, c;
	if ((rc = rd_name(r, what)) || (rc = rd_int(r, what, 1, GT_KATA_MAX_CHANNELS, &c)))
		return rc;
	if (c != want)
		return gt_error_set(r->e, GT_EFORMAT, -1, -1, "katago model: %s: %d channels, expected %d",
		                    what, c, want);
	return rd_floats(r, what, c, b);
}

static int bad(rd *r, const char *what)
{
	return gt_error_set(r->e, GT_EFORMAT, -1, -1, "katago model: %s: channel counts do not match", what);
}

static int rd_stack(rd *r, int nblocks, int C, kblock *blocks, gt_kata_info *info);

static int rd_block(rd *r, kblock *b, int C, gt_kata_info *info)
{
	int rc = rd_token(r, "block kind");
	if (rc)
		return rc;
	if (strcmp(r->tok, "ordinary_block") == 0)
		b->kind = BLK_ORDINARY;
	else if (strcmp(r->tok, "gpool_block") == 0)
		b->kind = BLK_GPOOL;
	else if (strcmp(r->tok, "nested_bottleneck_block") == 0)
		b->kind = BLK_NESTED;
	else if (strncmp(r->tok, "transformer", 11) == 0)
		return gt_error_set(r->e, GT_EUNSUPPORTED, -1, -1,
		                    "katago model version %d: block kind %.40s not supported", r->version, r->tok);
	else
		return gt_error_set(r->e, GT_EFORMAT, -1, -1, "katago model: unknown block kind %.40s", r->tok);
	if ((rc = rd_name(r, "block name")))
		return rc;
	if (b->kind == BLK_NESTED) {
		if (r->depth >= MAX_DEPTH)
			return gt_error_set(r->e, GT_EUNSUPPORTED, -1, -1,
			                    "katago model version %d: nested_bottleneck_block deeper than %d",
			                    r->version, MAX_DEPTH);
		if ((rc = rd_int(r, "nested blocks", 1, GT_KATA_MAX_BLOCKS, &b->nsub)) ||
		    (rc = rd_bn(r, &b->pre, "nested pre bn")) || (rc = rd_act(r, &b->pre_act, "nested pre act")) ||
		    (rc = rd_conv(r, &b->c1, "nested pre conv")))
			return rc;
		if (b->pre.c != C || b->c1.cin != C)
			return bad(r, "nested pre conv");
		b->sub = gt_xcalloc(b->nsub, sizeof(kblock));
		r->depth++;
		if (r->depth > r->maxdepth)
			r->maxdepth = r->depth;
		rc = rd_stack(r, b->nsub, b->c1.cout, b->sub, info);
		r->depth--;
		if (rc || (rc = rd_bn(r, &b->mid, "nested post bn")) ||
		    (rc = rd_act(r, &b->mid_act, "nested post act")) || (rc = rd_conv(r, &b->c2, "nested post conv")))
			return rc;
		if (b->mid.c != b->c1.cout || b->c2.cin != b->c1.cout || b->c2.cout != C)
			return bad(r, "nested post conv");
		return 0;
	}
	if ((rc = rd_bn(r, &b->pre, "block pre bn")) || (rc = rd_act(r, &b->pre_act, "block pre act")) ||
	    (rc = rd_conv(r, &b->c1, "block conv1")))
		return rc;
	if (b->pre.c != C || b->c1.cin != C)
		return bad(r, "block conv1");
	if (b->kind == BLK_GPOOL) {
		info->gpool_blocks++;
		if ((rc = rd_conv(r, &b->gc, "gpool conv")) || (rc = rd_bn(r, &b->gbn, "gpool bn")) ||
		    (rc = rd_act(r, &b->gact, "gpool act")) || (rc = rd_mat(r, &b->gmul, "gpool mul")))
			return rc;
		if (b->gc.cin != C || b->gbn.c != b->gc.cout || b->gmul.cin != 3 * b->gc.cout ||
		    b->gmul.cout != b->c1.cout)
			return bad(r, "gpool block");
	}
	if ((rc = rd_bn(r, &b->mid, "block mid bn")) || (rc = rd_act(r, &b->mid_act, "block mid act")) ||
	    (rc = rd_conv(r, &b->c2, "block conv2")))
		return rc;
	if (b->mid.c != b->c1.cout || b->c2.cin != b->c1.cout || b->c2.cout != C)
		return bad(r, "block conv2");
	return 0;
}

static int rd_stack(rd *r, int nblocks, int C, kblock *blocks, gt_kata_info *info)
{
	for (int i = 0; i < nblocks; i++) {
		int rc = rd_block(r, &blocks[i], C, info);
		if (rc)
			return rc;
	}
	return 0;
}

static int rd_zeros(rd *r, int k, const char *what)
{
	for (int i = 0; i < k; i++) {
		int v, rc = rd_int(r, what, -1000000, 1000000, &v);
		if (rc)
			return rc;
		if (v != 0)
			return gt_error_set(r->e, GT_EUNSUPPORTED, -1, -1,
			                    "katago model version %d: %s option %d not supported", r->version, what, v);
	}
	return 0;
}

static int rd_model(rd *r, gt_kata *k)
{
	gt_kata_info *in = &k->info;
	int rc = rd_token(r, "model name");
	if (rc)
		return rc;
	if (strlen(r->tok) > 96)
		return gt_error_set(r->e, GT_EFORMAT, -1, -1, "katago model: name longer than 96 characters");
	snprintf(in->name, sizeof in->name, "%.96s", r->tok);
	if ((rc = rd_token(r, "model version")))
		return rc;
	char *end;
	long v = strtol(r->tok, &end, 10);
	if (*end || end == r->tok)
		return gt_error_set(r->e, GT_EFORMAT, -1, -1, "katago model: no version number after the name");
	if (v < GT_KATA_MIN_VERSION || v > GT_KATA_MAX_VERSION)
		return gt_error_set(r->e, GT_EUNSUPPORTED, -1, -1,
		                    "katago model version %ld not supported (versions %d to %d are)", v,
		                    GT_KATA_MIN_VERSION, GT_KATA_MAX_VERSION);
	r->version = in->version = (int)v;
	if ((rc = rd_int(r, "input planes", 1, 1024, &in->in_planes)) ||
	    (rc = rd_int(r, "global inputs", 1, 1024, &in->globals)))
		return rc;
	if (in->in_planes != 22 || in->globals != 19)
		return gt_error_set(r->e, GT_EUNSUPPORTED, -1, -1,
		                    "katago model version %d: %d planes and %d globals (only KataGo's 22 and 19)",
		                    in->version, in->in_planes, in->globals);
	in->lead_mult = in->score_mean_mult = in->score_stdev_mult = 20.0;
	in->var_time_mult = 40.0;
	in->st_value_mult = 0.25;
	in->st_score_mult = 30.0;
	if (in->version >= 13) {
		/* tdScore, scoreMean, scoreStdev, lead, varianceTime,
		 * shorttermValueError, shorttermScoreError */
		float m[7];
		for (int i = 0; i < 7; i++)
			if ((rc = rd_float(r, "post-process multipliers", &m[i])))
				return rc;
		in->score_mean_mult = m[1];
		in->score_stdev_mult = m[2];
		in->lead_mult = m[3];
		in->var_time_mult = m[4];
		in->st_value_mult = m[5];
		in->st_score_mult = m[6];
	}
	if (in->version >= 15) {
		int meta, pa;
		if ((rc = rd_int(r, "meta encoder version", 0, 1000, &meta)))
			return rc;
		if (meta != 0)
			return gt_error_set(r->e, GT_EUNSUPPORTED, -1, -1,
			                    "katago model version %d: SGF metadata encoder not supported", in->version);
		if ((rc = rd_int(r, "pass-alive option", 0, 1, &pa)) || (rc = rd_zeros(r, 6, "model")))
			return rc;
	}
	/* trunk */
	int dilated;
	if ((rc = rd_name(r, "trunk")) || (rc = rd_int(r, "trunk blocks", 1, GT_KATA_MAX_BLOCKS, &in->blocks)) ||
	    (rc = rd_int(r, "trunk channels", 1, GT_KATA_MAX_CHANNELS, &in->channels)) ||
	    (rc = rd_int(r, "mid channels", 1, GT_KATA_MAX_CHANNELS, &in->mid)) ||
	    (rc = rd_int(r, "regular channels", 1, GT_KATA_MAX_CHANNELS, &in->regular)) ||
	    (rc = rd_int(r, "dilated channels", 0, GT_KATA_MAX_CHANNELS, &dilated)) ||
	    (rc = rd_int(r, "gpool channels", 1, GT_KATA_MAX_CHANNELS, &in->gpool)))
		return rc;
	if (in->version >= 15) {
		int norm;
		if ((rc = rd_int(r, "trunk norm kind", 0, 1000, &norm)))
			return rc;
		if (norm != 0)
			return gt_error_set(r->e, GT_EUNSUPPORTED, -1, -1,
			                    "katago model version %d: trunk norm kind %d (RMS norm) not supported",
			                    in->version, norm);
		if ((rc = rd_zeros(r, 5, "trunk")))
			return rc;
	}
	int C = in->channels;
	if ((rc = rd_conv(r, &k->in_conv, "initial conv")) || (rc = rd_mat(r, &k->in_mul, "initial matmul")))
		return rc;
	if (k->in_conv.cin != in->in_planes || k->in_conv.cout != C || k->in_mul.cin != in->globals ||
	    k->in_mul.cout != C)
		return bad(r, "trunk input");
	k->nblocks = in->blocks;
	k->blocks = gt_xcalloc(in->blocks, sizeof(kblock));
	if ((rc = rd_stack(r, in->blocks, C, k->blocks, in)))
		return rc;
	for (int i = 0; i < in->blocks; i++)
		in->nested += k->blocks[i].kind == BLK_NESTED;
	if ((rc = rd_bn(r, &k->tip, "trunk tip bn")) || (rc = rd_act(r, &k->tip_act, "trunk tip act")))
		return rc;
	if (k->tip.c != C)
		return bad(r, "trunk tip");
	in->activation = k->tip_act;
	/* policy head */
	if ((rc = rd_name(r, "policy head")))
		return rc;
	in->policy_outputs = in->version >= 12 ? 2 : 1;
	if ((rc = rd_conv(r, &k->p1, "policy p1 conv")) || (rc = rd_conv(r, &k->g1, "policy g1 conv")) ||
	    (rc = rd_bn(r, &k->g1bn, "policy g1 bn")) || (rc = rd_act(r, &k->g1act, "policy g1 act")) ||
	    (rc = rd_mat(r, &k->gbias, "policy gpool bias")) || (rc = rd_bn(r, &k->p1bn, "policy p1 bn")) ||
	    (rc = rd_act(r, &k->p1act, "policy p1 act")) || (rc = rd_conv(r, &k->p2, "policy p2 conv")) ||
	    (rc = rd_mat(r, &k->pass1, "policy pass")))
		return rc;
	int P = k->p1.cout, G = k->g1.cout;
	if (k->p1.cin != C || k->g1.cin != C || k->g1bn.c != G || k->gbias.cin != 3 * G || k->gbias.cout != P ||
	    k->p1bn.c != P || k->p2.cin != P || k->p2.cout != in->policy_outputs || k->pass1.cin != 3 * G)
		return bad(r, "policy head");
	if (in->version >= 15) {
		if ((rc = rd_bias(r, &k->pass_b, k->pass1.cout, "policy pass bias")) ||
		    (rc = rd_act(r, &k->pass_act, "policy pass act")) || (rc = rd_mat(r, &k->pass2, "policy pass2")))
			return rc;
		if (k->pass2.cin != k->pass1.cout || k->pass2.cout != in->policy_outputs)
			return bad(r, "policy pass");
	} else if (k->pass1.cout != in->policy_outputs)
		return bad(r, "policy pass");
	in->head_policy = P;
	in->head_gpool = G;
	/* value head */
	if ((rc = rd_name(r, "value head")) || (rc = rd_conv(r, &k->v1, "value v1 conv")) ||
	    (rc = rd_bn(r, &k->v1bn, "value v1 bn")) || (rc = rd_act(r, &k->v1act, "value v1 act")) ||
	    (rc = rd_mat(r, &k->v2, "value v2 mul")))
		return rc;
	int V = k->v1.cout, H = k->v2.cout;
	in->score_outputs = in->version >= 9 ? 6 : 4;
	if ((rc = rd_bias(r, &k->v2b, H, "value v2 bias")) || (rc = rd_act(r, &k->v2act, "value v2 act")) ||
	    (rc = rd_mat(r, &k->v3, "value v3 mul")) || (rc = rd_bias(r, &k->v3b, 3, "value v3 bias")) ||
	    (rc = rd_mat(r, &k->sv3, "value sv3 mul")) ||
	    (rc = rd_bias(r, &k->sv3b, in->score_outputs, "value sv3 bias")) ||
	    (rc = rd_conv(r, &k->own, "ownership conv")))
		return rc;
	if (k->v1.cin != C || k->v1bn.c != V || k->v2.cin != 3 * V || k->v3.cin != H || k->v3.cout != 3 ||
	    k->sv3.cin != H || k->sv3.cout != in->score_outputs || k->own.cin != V || k->own.cout != 1)
		return bad(r, "value head");
	in->head_value = V;
	in->value_hidden = H;
	in->params = r->total;
	return 0;
}

static int is_txt(const char *path)
{
	size_t l = strlen(path);
	return (l >= 4 && strcmp(path + l - 4, ".txt") == 0) ||
	       (l >= 7 && strcmp(path + l - 7, ".txt.gz") == 0);
}

int gt_kata_sniff(const char *path)
{
	gzFile f = gzopen(path, "rb");
	if (!f)
		return GT_EIO;
	char buf[257];
	int k = gzread(f, buf, 256);
	gzclose(f);
	if (k < 0)
		return GT_EIO;
	buf[k] = 0;
	int i = 0;
	while (i < k && isspace((unsigned char)buf[i]))
		i++;
	int s = i;
	while (i < k && (isalnum((unsigned char)buf[i]) || buf[i] == '_' || buf[i] == '-' || buf[i] == '.'))
		i++;
	if (i == s || i - s > 96 || i >= k || !isspace((unsigned char)buf[i]))
		return 0;
	while (i < k && isspace((unsigned char)buf[i]))
		i++;
	int d = i;
	while (i < k && isdigit((unsigned char)buf[i]))
		i++;
	return i > d && i - d < 6 && i < k && isspace((unsigned char)buf[i]);
}

static void free_conv(kconv *c) { free(c->w); free(c->b); free(c->u); free(c->wb); free(c->wq); free(c->sq); }
static void free_bn(kbn *b) { free(b->scale); free(b->bias); }

static void free_blocks(kblock *b, int n)
{
	for (int i = 0; b && i < n; i++) {
		free_bn(&b[i].pre), free_conv(&b[i].c1), free_conv(&b[i].gc), free_bn(&b[i].gbn);
		free(b[i].gmul.w), free_bn(&b[i].mid), free_conv(&b[i].c2);
		free_blocks(b[i].sub, b[i].nsub);
	}
	free(b);
}

void gt_kata_conv_batch(gt_kata *k, int on)
{
	k->conv_mode = gt_conv_batch_mode(k->conv_mode, on);
}

int gt_kata_precision(gt_kata *k, int prec, const char **why)
{
	if (why)
		*why = NULL;
	k->prec = prec == GT_PREC_BF16 && gt_bf16_available(why) ? GT_PREC_BF16
	          : prec == GT_PREC_INT8 && gt_int8_available(why) ? GT_PREC_INT8 : GT_PREC_FP32;
	return k->prec;
}

void gt_kata_free(gt_kata *k)
{
	if (!k)
		return;
	free_conv(&k->in_conv), free(k->in_mul.w);
	free_blocks(k->blocks, k->nblocks);
	free_bn(&k->tip);
	free_conv(&k->p1), free_conv(&k->g1), free_bn(&k->g1bn), free(k->gbias.w), free_bn(&k->p1bn);
	free_conv(&k->p2), free(k->pass1.w), free(k->pass_b), free(k->pass2.w);
	free_conv(&k->v1), free_bn(&k->v1bn), free(k->v2.w), free(k->v2b), free(k->v3.w), free(k->v3b);
	free(k->sv3.w), free(k->sv3b), free_conv(&k->own);
	free(k->x), free(k->a), free(k->r), free(k->t), free(k->col), free(k->pool), free(k->tmp);
	free(k->lin), free(k->lout), free(k->xh);
	free(k->out_policy), free(k->out_value), free(k->out_score), free(k->out_own);
	free(k->wscratch);
	free(k->bscratch);
	free(k->qscratch);
	free(k);
}

/* fold_bn: the batch norm b that follows convolution c (at inference an
 * affine map per channel: y = x scale + bias) goes into c: its output
 * channel co's weights times scale[co], its bias bias[co]; m (or NULL), a
 * matrix whose outputs are added to c's before b (a gpool branch's
 * biases), has its output columns scaled alike. b keeps only its
 * activation (folded). Exact up to rounding: zero padding pads c's input,
 * not its output. */
static void fold_bn(kconv *c, kbn *b, kmat *m)
{
	size_t K = (size_t)c->cin * c->ky * c->kx;
	c->b = gt_xmalloc(sizeof(float) * c->cout);
	for (int co = 0; co < c->cout; co++) {
		for (size_t i = 0; i < K; i++)
			c->w[(size_t)co * K + i] *= b->scale[co];
		c->b[co] = b->bias[co];
	}
	for (int i = 0; m && i < m->cin; i++)
		for (int co = 0; co < m->cout; co++)
			m->w[(size_t)i * m->cout + co] *= b->scale[co];
	b->folded = 1;
}

/* The batch norms that directly follow a convolution folded into it: each
 * block's mid norm after its conv1 (and gpool biases), a gpool branch's
 * after its conv, the heads' g1, p1 (and gpool biases) and v1. Not the
 * pre-activation norms of blocks and the trunk's tip (they follow a sum of
 * residuals), nor a nested block's mid norm (it follows its blocks). */
static void fold_blocks(kblock *b, int nb)
{
	for (int i = 0; i < nb; i++) {
		if (b[i].kind == BLK_NESTED) {
			fold_blocks(b[i].sub, b[i].nsub);
			continue;
		}
		fold_bn(&b[i].c1, &b[i].mid, b[i].kind == BLK_GPOOL ? &b[i].gmul : NULL);
		if (b[i].kind == BLK_GPOOL)
			fold_bn(&b[i].gc, &b[i].gbn, NULL);
	}
}

static void fold_all(gt_kata *k)
{
	fold_blocks(k->blocks, k->nblocks);
	fold_bn(&k->g1, &k->g1bn, NULL);
	fold_bn(&k->p1, &k->p1bn, &k->gbias);
	fold_bn(&k->v1, &k->v1bn, NULL);
}

int gt_kata_read(const char *path, gt_kata **out, gt_error *e)
{
	*out = NULL;
	gzFile f = gzopen(path, "rb");
	if (!f)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: cannot open", path);
	gzbuffer(f, 1 << 16);
	rd r = {.f = f, .binary = !is_txt(path), .e = e};
	gt_kata *k = gt_xcalloc(1, sizeof *k);
	k->info.binary = r.binary;
	int rc = rd_model(&r, k);
	k->maxc = r.maxc;
	k->maxk = r.maxk;
	k->depths = r.maxdepth + 1;
	if (!rc) {
		/* the end of the data must follow (gzip CRC checked by reading to it) */
		int c;
		while ((c = gzgetc(f)) != -1 && isspace(c))
			;
		if (c != -1)
			rc = gt_error_set(e, GT_EFORMAT, -1, -1, "katago model: data after the value head");
		else {
			int err;
			const char *msg = gzerror(f, &err);
			if (err != Z_OK && err != Z_STREAM_END)
				rc = gt_error_set(e, GT_EFORMAT, -1, -1, "katago model: %s", msg);
		}
	}
	gzclose(f);
	if (rc) {
		char t[sizeof e->text];
		if (e) {
			snprintf(t, sizeof t, "%.100s: %.150s", path, e->text);
			memcpy(e->text, t, sizeof t);
		}
		gt_kata_free(k);
		return rc;
	}
	fold_all(k);
	gt_nn_threads_default();
	k->conv_mode = gt_conv_mode_env();
	k->vec = gt_simd_avx2() || gt_simd_neon();
	*out = k;
	return 0;
}

const gt_kata_info *gt_kata_info_of(const gt_kata *k)
{
	return &k->info;
}

/* ---- forward ---- */

static float act1(int act, float x)
{
	switch (act) {
	case ACT_RELU:
		return x > 0 ? x : 0;
	case ACT_MISH: {
		float sp = x > 20 ? x : log1pf(expf(x));
		return x * tanhf(sp);
	}
	case ACT_SILU:
		return x / (1.0f + expf(-x));
	default:
		return x;
	}
}

/* yo[0..N) = relu(xi s + t) (relu 1) or xi s + t, by the vector kernel
 * of the CPU (simd.h): AVX2 and FMA 8 points a vector, NEON 4, the rest
 * one by one (fused multiply-add throughout) */
#if GT_X86
#define AFFINE_VEC 1
__attribute__((target("avx2,fma"))) static void affine_vec(const float *xi, float *yo, int N, float s,
                                                         float t, int relu)
{
	__m256 vs = _mm256_set1_ps(s), vt = _mm256_set1_ps(t), z = _mm256_setzero_ps();
	int i = 0;
	if (relu)
		for (; i + 8 <= N; i += 8)
			_mm256_storeu_ps(yo + i, _mm256_max_ps(_mm256_fmadd_ps(_mm256_loadu_ps(xi + i), vs, vt), z));
	else
		for (; i + 8 <= N; i += 8)
			_mm256_storeu_ps(yo + i, _mm256_fmadd_ps(_mm256_loadu_ps(xi + i), vs, vt));
#elif defined(__aarch64__)
#define AFFINE_VEC 1
static void affine_vec(const float *xi, float *yo, int N, float s, float t, int relu)
{
	float32x4_t vt = vdupq_n_f32(t), z = vdupq_n_f32(0);
	int i = 0;
	if (relu)
		for (; i + 4 <= N; i += 4)
			vst1q_f32(yo + i, vmaxq_f32(vfmaq_n_f32(vt, vld1q_f32(xi + i), s), z));
	else
		for (; i + 4 <= N; i += 4)
			vst1q_f32(yo + i, vfmaq_n_f32(vt, vld1q_f32(xi + i), s));
#endif
#ifdef AFFINE_VEC
	for (; i < N; i++) {
		float v = fmaf(xi[i], s, t);
		yo[i] = relu && !(v > 0) ? 0.0f : v;
	}
}
#endif

/* The trunk's two layouts of B positions of C channels of N points:
 * position-major (NCHW: position p's channel c at (p C + c) N) and, in
 * bf16 and int8 with several positions, channel-major (channel c's
 * position p at (c B + p) N: the reduced-precision kernels' columns, so
 * that the trunk's convolutions need no gather and scatter; trunk_cm).
 * at: the offset of position p's channel c in layout cm. */
static inline size_t at(int cm, int B, int C, int N, int p, int c)
{
	return cm ? ((size_t)c * B + p) * N : ((size_t)p * C + c) * N;
}

/* yo[0..len) = act(xi s + t) of one channel (folded: act(xi)) */
static void bn_span(const kbn *b, int act, int vec, int c, size_t len, const float *xi, float *yo)
{
	float s = b->folded ? 1.0f : b->scale[c], t = b->folded ? 0.0f : b->bias[c];
	if (b->folded && act == ACT_IDENTITY) {
		if (yo != xi)
			memcpy(yo, xi, sizeof(float) * len);
	}
#ifdef AFFINE_VEC
	else if (vec && (act == ACT_RELU || act == ACT_IDENTITY))
		affine_vec(xi, yo, (int)len, s, t, act == ACT_RELU);
#endif
	else if (act == ACT_RELU)
		for (size_t i = 0; i < len; i++) {
			float v = xi[i] * s + t;
			yo[i] = v > 0 ? v : 0.0f;
		}
	else
		for (size_t i = 0; i < len; i++)
			yo[i] = act1(act, xi[i] * s + t);
}

/* y = act(bn(x)) for B positions of C channels of N points in layout cm
 * (at), or y = act(x) when b is folded into the convolution before
 * (fold_bn); y may be x. ReLU and identity by the vector kernel where
 * vec (k->vec). Channel-major, a channel's B positions are one span. */
static void bn_act(const kbn *b, int act, int vec, int B, int N, const float *x, float *y, int cm)
{
	if (cm) {
		for (int c = 0; c < b->c; c++)
			bn_span(b, act, vec, c, (size_t)B * N, x + at(1, B, b->c, N, 0, c),
			        y + at(1, B, b->c, N, 0, c));
		return;
	}
	for (int p = 0; p < B; p++)
		for (int c = 0; c < b->c; c++)
			bn_span(b, act, vec, c, (size_t)N, x + at(0, B, b->c, N, p, c), y + at(0, B, b->c, N, p, c));
}

/* y (layout ycm) = x (layout xcm), C channels of B positions of N points */
static void relayout(int B, int C, int N, const float *x, int xcm, float *y, int ycm)
{
	for (int p = 0; p < B; p++)
		for (int c = 0; c < C; c++)
			memcpy(y + at(ycm, B, C, N, p, c), x + at(xcm, B, C, N, p, c), sizeof(float) * N);
}

/* Transformed filters larger than this (floats) are not made: such
 * networks keep im2col (b6c96: 3.5M floats). */
#define WINO_MAX_FLOATS ((size_t)1 << 28)

/* Apply f to every convolution of blocks (and their nested blocks) and of
 * k's trunk input and heads; sums what f returns. */
static size_t each_block_conv(kblock *b, int nb, size_t (*f)(kconv *))
{
	size_t s = 0;
	for (int i = 0; i < nb; i++)
		s += f(&b[i].c1) + f(&b[i].gc) + f(&b[i].c2) + each_block_conv(b[i].sub, b[i].nsub, f);
	return s;
}

static size_t each_conv(gt_kata *k, size_t (*f)(kconv *))
{
	return f(&k->in_conv) + each_block_conv(k->blocks, k->nblocks, f) + f(&k->p1) + f(&k->g1) +
	       f(&k->p2) + f(&k->v1) + f(&k->own);
}

static size_t wino_floats(kconv *c)
{
	return c->w && c->ky == 3 && c->kx == 3 ? gt_wino_filter_floats(c->cout, c->cin) : 0;
}

static size_t wino_make(kconv *c)
{
	size_t f = wino_floats(c);
	if (f && !c->u) {
		c->u = gt_xmalloc(sizeof(float) * f);
		gt_wino_filter(c->w, c->cout, c->cin, c->u);
	}
	return f;
}

static size_t bf16_make(kconv *c)
{
	if (!c->w || c->ky != 3 || c->kx != 3 || c->wb)
		return 0;
	c->wb = gt_xmalloc64(sizeof(uint16_t) * gt_bf16_pack_size(c->cout, c->cin * 9));
	gt_bf16_pack(c->w, c->cout, c->cin * 9, c->cin * 9, c->wb);
	return 0;
}

static size_t int8_make(kconv *c)
{
	if (!c->w || c->ky != 3 || c->kx != 3 || c->wq)
		return 0;
	c->wq = gt_xmalloc64(gt_int8_pack_size(c->cout, c->cin * 9));
	c->sq = gt_xmalloc(sizeof(float) * c->cout);
	gt_int8_pack(c->w, c->cout, c->cin * 9, c->cin * 9, c->wq, c->sq);
	return 0;
}

/* 1 when the 3x3 convolutions of a forward of B positions on n x n go by
 * Winograd (the filters are transformed at the first such forward) */
static int use_wino(gt_kata *k, int n, int B)
{
	if (k->prec == GT_PREC_BF16) {
		if (!k->bscratch) {
			each_conv(k, bf16_make);
			k->bscratch = gt_xmalloc64(sizeof(uint16_t) * gt_bf16_scratch_size((int)k->maxk));
		}
		return 0;
	}
	if (k->prec == GT_PREC_INT8) {
		if (!k->qscratch) {
			each_conv(k, int8_make);
			k->qscratch = gt_xmalloc64(gt_int8_scratch_size(k->maxc, GT_ARCH_MAX_N));
		}
		return 0;
	}
	if (!gt_conv_winograd(k->conv_mode, n, B) || k->wino < 0)
		return 0;
	if (!k->wino) {
		if (each_conv(k, wino_floats) > WINO_MAX_FLOATS) {
			k->wino = -1;
			return 0;
		}
		each_conv(k, wino_make);
		k->wscratch = gt_xmalloc(sizeof(float) * gt_wino_scratch_floats(k->maxc, k->maxc));
		k->wino = 1;
	}
	return 1;
}

/* y (B x cout x N) = conv(relu ? relu(x) : x (B x cin x N)) + c's bias
 * (if any), zero padding; add != 0 adds to y; by Winograd when c has its
 * transformed filters and this forward uses them (use_wino), in bfloat16
 * or int8 when c has its pack and the network is in that precision (int8:
 * a position whose input has a negative value in float32 after relu). */
/* conv of the whole batch in bf16 or int8 (c's pack, the network's
 * precision): the positions' planes (B x cin x N) gathered channel-major
 * (cin x B N, the kernels' columns), one call, the outputs scattered back
 * (and gathered first when add): one pass over the data each way, against
 * the convolution's 9 cin products per output. 0 when done, -1 when not
 * (not in that precision, or int8 refused a negative input: the caller
 * goes position by position). */
static int conv_lowp(gt_kata *k, const kconv *c, int B, int n, const float *x, float *y, int add,
                     int relu)
{
	int N = n * n;
	long BN = (long)B * N;
	int bf = c->wb && k->prec == GT_PREC_BF16, q = c->wq && k->prec == GT_PREC_INT8;
	if (!bf && !q)
		return -1;
	if (!k->lin) {
		k->lin = gt_xmalloc(k->cap * sizeof(float));
		k->lout = gt_xmalloc(k->cap * sizeof(float));
	}
	relayout(B, c->cin, N, x, 0, k->lin, 1);
	if (add)
		relayout(B, c->cout, N, y, 0, k->lout, 1);
	if (bf)
		gt_bf16_conv3x3(&(gt_bf16_conv_args){c->wb, c->cin, c->cout, n, BN, k->lin, (size_t)BN,
		                                     relu, c->b, k->lout, (size_t)BN, add, k->bscratch});
	else if (gt_int8_conv3x3(&(gt_int8_conv_args){c->wq, c->sq, c->cin, c->cout, n, BN, k->lin,
	                                              (size_t)BN, relu, c->b, k->lout, (size_t)BN, add,
	                                              k->qscratch}) != 0)
		return -1;
	relayout(B, c->cout, N, k->lout, 1, y, 0);
	return 0;
}

static void conv(gt_kata *k, const kconv *c, int B, int n, const float *x, float *y, int add, int relu)
{
	int N = n * n, K = c->cin * c->ky * c->kx;
	/* oneDNN in float32: every convolution when the network is in
	 * float32 and takes it (gt_conv_onednn), and in bf16 or int8 those
	 * without a reduced-precision pack (the 5x5 input convolution, the
	 * heads' 1x1) */
	int dnn = k->dnn_now || (k->prec != GT_PREC_FP32 && !c->wb && !c->wq &&
	                         gt_conv_onednn(k->conv_mode));
	if (dnn && c->ky == c->kx && c->ky % 2 &&
	    gt_dnn_conv(&(gt_dnn_conv_args){c->w, c->ver, c->cin, c->cout, c->ky, B, n, x, (size_t)c->cin * N, N,
	                                    relu, c->b, y, (size_t)c->cout * N, N, add}) == 0)
		return;
	if (c->u && k->wino_now) {
		gt_wino_conv(&(gt_wino_conv_args){c->u, c->cin, c->cout, B, n, x,
		                                  (size_t)c->cin * N, N, relu, c->b, y,
		                                  (size_t)c->cout * N, N, add, k->wscratch});
		return;
	}
	if (B > 1 && conv_lowp(k, c, B, n, x, y, add, relu) == 0)
		return;
	for (int p = 0; p < B; p++) {
		const float *xp = x + (size_t)p * c->cin * N;
		float *yp = y + (size_t)p * c->cout * N;
		const float *src = xp;
		if (c->wb && k->prec == GT_PREC_BF16) {
			gt_bf16_conv3x3(&(gt_bf16_conv_args){c->wb, c->cin, c->cout, n, N, xp, N, relu, c->b,
			                                     yp, N, add, k->bscratch});
			continue;
		}
		if (c->wq && k->prec == GT_PREC_INT8 &&
		    gt_int8_conv3x3(&(gt_int8_conv_args){c->wq, c->sq, c->cin, c->cout, n, N, xp, N, relu,
		                                         c->b, yp, N, add, k->qscratch}) == 0)
			continue;
		if (c->ky > 1 || c->kx > 1) {
			int hy = c->ky / 2, hx = c->kx / 2;
			for (int ci = 0; ci < c->cin; ci++)
				for (int ky = 0; ky < c->ky; ky++)
					for (int kx = 0; kx < c->kx; kx++) {
						float *row = k->col + ((size_t)(ci * c->ky + ky) * c->kx + kx) * N;
						const float *in = xp + (size_t)ci * N;
						int dy = ky - hy, dx = kx - hx;
						int x0 = dx < 0 ? -dx : 0, x1 = dx > 0 ? n - dx : n;
						for (int yy = 0; yy < n; yy++) {
							int sy = yy + dy;
							float *o = row + yy * n;
							if (sy < 0 || sy >= n || x1 <= x0) {
								memset(o, 0, sizeof(float) * n);
								continue;
							}
							for (int xx = 0; xx < x0; xx++)
								o[xx] = 0.0f;
							memcpy(o + x0, in + sy * n + x0 + dx, sizeof(float) * (x1 - x0));
							for (int xx = x1; xx < n; xx++)
								o[xx] = 0.0f;
						}
					}
			src = k->col;
			if (relu) /* relu(0) = 0: the padding stays */
				bn_act(&(kbn){c->cin * c->ky * c->kx, NULL, NULL, 1}, ACT_RELU, k->vec, 1, N,
				       k->col, k->col, 0);
		} else if (relu) {
			bn_act(&(kbn){c->cin, NULL, NULL, 1}, ACT_RELU, k->vec, 1, N, xp, k->col, 0);
			src = k->col;
		}
		if (c->b)
			for (int co = 0; co < c->cout; co++)
				for (int i = 0; i < N; i++)
					yp[(size_t)co * N + i] = (add ? yp[(size_t)co * N + i] : 0.0f) + c->b[co];
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, c->cout, N, K, 1.0f, c->w, K, src, N,
		            add || c->b ? 1.0f : 0.0f, yp, N);
	}
}

/* out (B x 3C) = pool3 of x (B x C x N, layout cm: at): mean, scaled
 * mean, max. */
static void pool3(int B, int C, int N, const float *x, float *out, int cm)
{
	float sq = (sqrtf((float)N) - 14.0f) * 0.1f;
	for (int p = 0; p < B; p++)
		for (int c = 0; c < C; c++) {
			const float *xi = x + at(cm, B, C, N, p, c);
			float s = 0, m = -1.0f;
			for (int i = 0; i < N; i++) {
				s += xi[i];
				m = xi[i] > m ? xi[i] : m;
			}
			float mean = s / (float)N;
			out[(size_t)p * 3 * C + c] = mean;
			out[(size_t)p * 3 * C + C + c] = mean * sq;
			out[(size_t)p * 3 * C + 2 * C + c] = m;
		}
}

/* y (B x cout) = x (B x cin) . m (+ add * y) */
static void matmul(const kmat *m, int B, const float *x, float *y, int add)
{
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, m->cout, m->cin, 1.0f, x, m->cin, m->w,
	            m->cout, add ? 1.0f : 0.0f, y, m->cout);
}

static void run_stack(gt_kata *k, const kblock *blocks, int nb, int B, int n, float *x, int depth);

/* a convolution of the trunk, x and y in its layout (k->cm_now, at): when
 * channel-major, c's bf16 or int8 pack on the whole batch with no gather
 * or scatter (trunk_cm: every convolution of the trunk has one); where
 * int8 refuses a negative input, by conv position by position through
 * xh. Else conv. */
static void conv_trunk(gt_kata *k, const kconv *c, int B, int n, const float *x, float *y, int add,
                       int relu)
{
	if (!k->cm_now) {
		conv(k, c, B, n, x, y, add, relu);
		return;
	}
	int N = n * n;
	long BN = (long)B * N;
	if (k->prec == GT_PREC_BF16) {
		gt_bf16_conv3x3(&(gt_bf16_conv_args){c->wb, c->cin, c->cout, n, BN, x, (size_t)BN, relu,
		                                     c->b, y, (size_t)BN, add, k->bscratch});
		return;
	}
	if (gt_int8_conv3x3(&(gt_int8_conv_args){c->wq, c->sq, c->cin, c->cout, n, BN, x, (size_t)BN,
	                                         relu, c->b, y, (size_t)BN, add, k->qscratch}) == 0)
		return;
	float *xp = k->xh, *yp = k->xh + k->cap;
	relayout(B, c->cin, N, x, 1, xp, 0);
	if (add)
		relayout(B, c->cout, N, y, 1, yp, 0);
	conv(k, c, B, n, xp, yp, add, relu);
	relayout(B, c->cout, N, yp, 0, y, 1);
}

/* the missing pack of a convolution in bf16 (no_wb) or int8 (no_wq) */
static size_t no_wb(kconv *c) { return c->w && !c->wb; }
static size_t no_wq(kconv *c) { return c->w && !c->wq; }

/* 1 when this forward's trunk may be channel-major: bf16 or int8 (the
 * packs made: use_wino), several positions, and every convolution of the
 * blocks with a pack (3x3 all: not the nested bottleneck blocks' 1x1) */
static int trunk_cm(gt_kata *k, int B)
{
	if (B < 2 || (k->prec != GT_PREC_BF16 && k->prec != GT_PREC_INT8))
		return 0;
	return each_block_conv(k->blocks, k->nblocks, k->prec == GT_PREC_BF16 ? no_wb : no_wq) == 0;
}

/* x[p][c][i] += bias[p][c] for the B positions, C channels and N points
 * (x in layout cm: at) */
static void add_channel_bias(float *x, const float *bias, int B, int C, int N, int cm)
{
	for (int p = 0; p < B; p++)
		for (int c = 0; c < C; c++) {
			float *xc = x + at(cm, B, C, N, p, c), v = bias[(size_t)p * C + c];
			for (int i = 0; i < N; i++)
				xc[i] += v;
		}
}

/* scratch buffers for a depth: a, r, t, pool; each cap floats (pool: B x 3 x maxC) */
static void run_block(gt_kata *k, const kblock *b, int B, int n, float *x, int depth)
{
	int N = n * n;
	size_t off = (size_t)depth * k->cap;
	float *a = k->a + off, *r = k->r + off, *t = k->t + off;
	float *pool = k->pool + (size_t)depth * k->cap_pool;
	int cm = k->cm_now;
	bn_act(&b->pre, b->pre_act, k->vec, B, N, x, a, cm);
	conv_trunk(k, &b->c1, B, n, a, r, 0, 0);
	if (b->kind == BLK_NESTED) {
		run_stack(k, b->sub, b->nsub, B, n, r, depth + 1);
	} else if (b->kind == BLK_GPOOL) {
		int G = b->gc.cout;
		conv_trunk(k, &b->gc, B, n, a, t, 0, 0);
		bn_act(&b->gbn, b->gact, k->vec, B, N, t, t, cm);
		pool3(B, G, N, t, pool, cm);
		float *bias = pool + (size_t)B * 3 * G;
		matmul(&b->gmul, B, pool, bias, 0);
		add_channel_bias(r, bias, B, b->c1.cout, N, cm);
	}
	/* the mid norm folded into conv1 (fold_bn) and a ReLU: in conv2's input */
	if (b->mid.folded && b->mid_act == ACT_RELU) {
		conv_trunk(k, &b->c2, B, n, r, x, 1, 1);
		return;
	}
	bn_act(&b->mid, b->mid_act, k->vec, B, N, r, a, cm);
	conv_trunk(k, &b->c2, B, n, a, x, 1, 0);
}

static void run_stack(gt_kata *k, const kblock *blocks, int nb, int B, int n, float *x, int depth)
{
	for (int i = 0; i < nb; i++)
		run_block(k, &blocks[i], B, n, x, depth);
}

static void grow(gt_kata *k, int B, int n)
{
	if (B <= k->cap_b && n <= k->cap_n)
		return;
	k->cap_b = B > k->cap_b ? B : k->cap_b;
	k->cap_n = n > k->cap_n ? n : k->cap_n;
	size_t N = (size_t)k->cap_n * k->cap_n, Bc = (size_t)k->cap_b;
	k->cap = Bc * k->maxc * N;
	k->cap_pool = Bc * 6 * (size_t)k->maxc;
	size_t d = (size_t)k->depths;
	k->x = gt_xrealloc(k->x, Bc * k->info.channels * N * sizeof(float));
	k->a = gt_xrealloc(k->a, d * k->cap * sizeof(float));
	k->r = gt_xrealloc(k->r, d * k->cap * sizeof(float));
	k->t = gt_xrealloc(k->t, d * k->cap * sizeof(float));
	k->pool = gt_xrealloc(k->pool, d * k->cap_pool * sizeof(float));
	k->col = gt_xrealloc(k->col, k->maxk * N * sizeof(float));
	if (k->lin) { /* made by the first reduced-precision convolution */
		k->lin = gt_xrealloc(k->lin, k->cap * sizeof(float));
		k->lout = gt_xrealloc(k->lout, k->cap * sizeof(float));
	}
	if (k->xh) /* made by the first channel-major trunk */
		k->xh = gt_xrealloc(k->xh, 2 * k->cap * sizeof(float));
	k->out_policy = gt_xrealloc(k->out_policy, Bc * (N + 1) * sizeof(float));
	k->out_value = gt_xrealloc(k->out_value, Bc * 3 * sizeof(float));
	k->out_score = gt_xrealloc(k->out_score, Bc * k->info.score_outputs * sizeof(float));
	k->out_own = gt_xrealloc(k->out_own, Bc * N * sizeof(float));
}

int gt_kata_forward(gt_kata *k, int B, int n, const float *planes, const float *globals,
                    gt_kata_out *out)
{
	if (B < 1 || n < 2 || n > 19 || !planes || !globals)
		return GT_EINVAL;
	grow(k, B, n);
	k->dnn_now = k->prec == GT_PREC_FP32 && gt_conv_onednn(k->conv_mode);
	k->wino_now = !k->dnn_now && use_wino(k, n, B);
	int N = n * n, C = k->info.channels;
	float *x = k->x, *a = k->a, *r = k->r, *t = k->t, *pool = k->pool;
	/* trunk: channel-major in bf16 and int8 (trunk_cm), position-major
	 * (x) again for the heads */
	int cm = k->cm_now = trunk_cm(k, B);
	if (cm && !k->xh)
		k->xh = gt_xmalloc(2 * k->cap * sizeof(float));
	conv(k, &k->in_conv, B, n, planes, cm ? a : x, 0, 0);
	if (cm)
		relayout(B, C, N, a, 0, x, 1);
	matmul(&k->in_mul, B, globals, pool, 0);
	add_channel_bias(x, pool, B, C, N, cm);
	run_stack(k, k->blocks, k->nblocks, B, n, x, 0);
	bn_act(&k->tip, k->tip_act, k->vec, B, N, x, x, cm);
	if (cm) {
		relayout(B, C, N, x, 1, k->xh, 0);
		x = k->xh;
	}
	/* policy head: r = p1, t = g1 */
	int P = k->p1.cout, G = k->g1.cout, PO = k->info.policy_outputs;
	conv(k, &k->p1, B, n, x, r, 0, 0);
	conv(k, &k->g1, B, n, x, t, 0, 0);
	bn_act(&k->g1bn, k->g1act, k->vec, B, N, t, t, 0);
	pool3(B, G, N, t, pool, 0);
	float *bias = pool + (size_t)B * 3 * G;
	matmul(&k->gbias, B, pool, bias, 0);
	add_channel_bias(r, bias, B, P, N, 0);
	bn_act(&k->p1bn, k->p1act, k->vec, B, N, r, r, 0);
	conv(k, &k->p2, B, n, r, a, 0, 0);
	/* pass: pass1 (and, from version 15, bias, activation, pass2) */
	float *h = bias, *h2 = bias + (size_t)B * k->pass1.cout;
	matmul(&k->pass1, B, pool, h, 0);
	if (k->pass2.w) {
		for (int p = 0; p < B; p++)
			for (int c = 0; c < k->pass1.cout; c++) {
				float *v = &h[(size_t)p * k->pass1.cout + c];
				*v = act1(k->pass_act, *v + k->pass_b[c]);
			}
		matmul(&k->pass2, B, h, h2, 0);
		h = h2;
	}
	for (int p = 0; p < B; p++) {
		float *o = k->out_policy + (size_t)p * (N + 1);
		memcpy(o, a + (size_t)p * PO * N, N * sizeof(float));
		o[N] = h[(size_t)p * PO];
	}
	/* value head: t = v1 */
	int V = k->v1.cout, H = k->v2.cout, S = k->info.score_outputs;
	conv(k, &k->v1, B, n, x, t, 0, 0);
	bn_act(&k->v1bn, k->v1act, k->vec, B, N, t, t, 0);
	float sq = (sqrtf((float)N) - 14.0f) * 0.1f;
	for (int p = 0; p < B; p++)
		for (int c = 0; c < V; c++) {
			const float *ti = t + ((size_t)p * V + c) * N;
			float s = 0;
			for (int i = 0; i < N; i++)
				s += ti[i];
			float mean = s / (float)N;
			pool[(size_t)p * 3 * V + c] = mean;
			pool[(size_t)p * 3 * V + V + c] = mean * sq;
			pool[(size_t)p * 3 * V + 2 * V + c] = mean * (sq * sq - 0.1f);
		}
	float *hid = pool + (size_t)B * 3 * V;
	matmul(&k->v2, B, pool, hid, 0);
	for (int p = 0; p < B; p++)
		for (int c = 0; c < H; c++) {
			float *v = &hid[(size_t)p * H + c];
			*v = act1(k->v2act, *v + k->v2b[c]);
		}
	matmul(&k->v3, B, hid, k->out_value, 0);
	matmul(&k->sv3, B, hid, k->out_score, 0);
	for (int p = 0; p < B; p++) {
		for (int c = 0; c < 3; c++)
			k->out_value[(size_t)p * 3 + c] += k->v3b[c];
		for (int c = 0; c < S; c++)
			k->out_score[(size_t)p * S + c] += k->sv3b[c];
	}
	conv(k, &k->own, B, n, t, k->out_own, 0, 0);
	if (out) {
		out->batch = B;
		out->n = n;
		out->policy = k->out_policy;
		out->value = k->out_value;
		out->score = k->out_score;
		out->own = k->out_own;
	}
	return 0;
}
