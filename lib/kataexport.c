/* kataexport.c: a gt network as a KataGo model file (see kataexport.h).
 * The layer order and text of KataGo's format are those nn/katago.c reads
 * (KataGo's cpp/neuralnet/desc.cpp, model version 8, read, not copied). */
#include "kataexport.h"
#include "feat.h"
#include "fs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define KPLANES 22   /* KataGo's inputs version 7 */
#define KGLOBALS 19
#define NFEAT GT_FEAT_PLANES
#define NX GT_KATAEXPORT_EXTRA

/* KataGo's planes that gt's are made of (katafeat.h): on board, own,
 * opponent, 1 and 2 liberties, the ko plane, the last 5 moves */
static const int kraw[NX] = {0, 1, 2, 3, 4, 6, 9, 10, 11, 12, 13};

/* gt's plane f = relu(feat_coef[f][0..NX) . raw + feat_coef[f][NX]) for
 * 0/1 planes raw = KataGo's kraw: own stones with 1 liberty = relu(own +
 * lib1 - 1), with 3 or more = relu(own - lib1 - lib2); the rest copies */
static const float feat_coef[NFEAT][NX + 1] = {
	{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},    /* 0 on board */
	{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},    /* 1 own */
	{0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0},    /* 2 opponent */
	{0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, -1},   /* 3 own, 1 liberty */
	{0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, -1},   /* 4 own, 2 */
	{0, 1, 0, -1, -1, 0, 0, 0, 0, 0, 0, 0},  /* 5 own, 3 or more */
	{0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, -1},   /* 6 opponent, 1 */
	{0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, -1},   /* 7 opponent, 2 */
	{0, 0, 1, -1, -1, 0, 0, 0, 0, 0, 0, 0},  /* 8 opponent, 3 or more */
	{0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0},    /* 9 ko */
	{0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0},    /* 10..14 the last moves */
	{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0},
	{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0},
	{0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0},
	{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
};

/* raw plane j = the sum of gt's planes raw_of[j] (the extra block's second
 * convolution subtracts it: the extra channels are 0 after it) */
static const int raw_of[NX][2] = {
	{0, -1}, {1, -1}, {2, -1}, {3, 6}, {4, 7}, {9, -1}, {10, -1}, {11, -1}, {12, -1}, {13, -1}, {14, -1},
};

/* gt's global j = coef[j] . KataGo's globals + cst[j] (KataGo's: 0..4
 * passes, 5 komi / 20, 6 and 7 the ko rule: simple 0,0, positional 1,0.5,
 * situational 1,-0.5; 8 suicide). The ruleset one-hot is exact for gt's
 * rulesets (tromp-taylor: positional superko and suicide; chinese:
 * positional, no suicide; new-zealand: situational, suicide) and for
 * KataGo's simple ko, as gt's chinese without suicide (KataGo's
 * "chinese") and as tromp-taylor with it: on these four points of
 * (ko rule, suicide) an affine map gives any values. The superko input is
 * 1 (every gt ruleset has superko). */
static void glob_map(float coef[GT_FEAT_GLOBALS][KGLOBALS], float cst[GT_FEAT_GLOBALS])
{
	memset(coef, 0, sizeof(float) * GT_FEAT_GLOBALS * KGLOBALS);
	memset(cst, 0, sizeof(float) * GT_FEAT_GLOBALS);
	coef[0][5] = 1;                         /* komi */
	for (int h = 0; h < 5; h++)
		coef[1 + h][h] = 1;             /* passes */
	coef[6][6] = -0.5f, coef[6][7] = 1, coef[6][8] = 1; /* tromp-taylor */
	coef[7][8] = -1, cst[7] = 1;            /* chinese: no suicide */
	coef[8][6] = 0.5f, coef[8][7] = -1;     /* new-zealand: situational */
	cst[9] = 1;                             /* superko */
	coef[10][8] = 1;                        /* suicide */
}

typedef struct kw {
	gzFile gz;
	int ok;
} kw;

static void put_text(kw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_text(kw *w, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (w->ok && (k < 0 || k >= (int)sizeof buf || gzwrite(w->gz, buf, (unsigned)k) != k))
		w->ok = 0;
}

/* "@BIN@", n float32 little-endian, newline (KataGo's binary floats) */
static void put_floats(kw *w, const float *f, size_t n)
{
	put_text(w, "@BIN@");
	uint8_t buf[4096];
	size_t k = 0;
	for (size_t i = 0; i < n && w->ok; i++) {
		uint32_t u;
		memcpy(&u, &f[i], 4);
		for (int b = 0; b < 4; b++)
			buf[k++] = (uint8_t)(u >> (8 * b));
		if (k == sizeof buf || i + 1 == n) {
			if (gzwrite(w->gz, buf, (unsigned)k) != (int)k)
				w->ok = 0;
			k = 0;
		}
	}
	put_text(w, "\n");
}

/* a convolution, W in PyTorch order (cout, cin, k, k); the file's is
 * (y, x, cin, cout) */
static void put_conv(kw *w, const char *name, int k, int cin, int cout, const float *W)
{
	put_text(w, "%s\n%d\n%d\n%d\n%d\n1\n1\n", name, k, k, cin, cout);
	size_t n = (size_t)k * k * cin * cout, i = 0;
	float *f = gt_xmalloc(n * sizeof(float));
	for (int y = 0; y < k; y++)
		for (int x = 0; x < k; x++)
			for (int ic = 0; ic < cin; ic++)
				for (int oc = 0; oc < cout; oc++)
					f[i++] = W[(((size_t)oc * cin + ic) * k + y) * k + x];
	put_floats(w, f, n);
	free(f);
}

/* a batch norm that only adds bias (NULL: 0): mean 0, variance 1,
 * epsilon 1e-20 (1 + 1e-20 is 1 in float32), scale 1 */
static void put_bn(kw *w, const char *name, int c, const float *bias)
{
	put_text(w, "%s\n%d\n1e-20\n1\n1\n", name, c);
	float *f = gt_xcalloc((size_t)c, sizeof(float));
	put_floats(w, f, c); /* mean */
	for (int i = 0; i < c; i++)
		f[i] = 1;
	put_floats(w, f, c); /* variance */
	put_floats(w, f, c); /* scale */
	for (int i = 0; i < c; i++)
		f[i] = bias ? bias[i] : 0;
	put_floats(w, f, c);
	free(f);
}

/* a matrix, W in the file's order (cin, cout) */
static void put_mat(kw *w, const char *name, int cin, int cout, const float *W)
{
	put_text(w, "%s\n%d\n%d\n", name, cin, cout);
	put_floats(w, W, (size_t)cin * cout);
}

static void put_bias(kw *w, const char *name, int c, const float *b)
{
	put_text(w, "%s\n%d\n", name, c);
	put_floats(w, b, c);
}

static const float *tensor(const gt_model *m, const char *name)
{
	gt_tensor t;
	for (int i = 0; i < gt_arch_ntensors(&m->arch); i++) {
		gt_arch_tensor(&m->arch, i, &t);
		if (!strcmp(t.name, name))
			return m->params + t.offset;
	}
	fprintf(stderr, "kataexport: no tensor %s\n", name); /* a bug: names come from nn.c */
	abort();
}

static float *zeros(size_t n)
{
	return gt_xcalloc(n ? n : 1, sizeof(float));
}

/* the input convolution, its global matrix and the extra block; beta
 * receives the trunk's constant (in.b + in.g . glob_const) */
static void put_input(kw *w, const gt_model *m, float *beta)
{
	const gt_arch *a = &m->arch;
	int C = a->channels, T = C + NX, NG = GT_FEAT_GLOBALS;
	const float *inw = tensor(m, "in.w"), *inb = tensor(m, "in.b"), *ing = tensor(m, "in.g");
	float *W = zeros((size_t)T * KPLANES * 9);
	for (int j = 0; j < NX; j++)
		W[((size_t)(C + j) * KPLANES + kraw[j]) * 9 + 4] = 1;
	put_conv(w, "conv1", 3, KPLANES, T, W);
	free(W);
	float coef[GT_FEAT_GLOBALS][KGLOBALS], cst[GT_FEAT_GLOBALS];
	glob_map(coef, cst);
	float *M = zeros((size_t)KGLOBALS * T);
	for (int c = 0; c < C; c++) {
		double b = inb[c];
		for (int j = 0; j < NG; j++) {
			b += (double)ing[c * NG + j] * cst[j];
			for (int k = 0; k < KGLOBALS; k++)
				M[k * T + c] += ing[c * NG + j] * coef[j][k];
		}
		beta[c] = (float)b;
	}
	put_mat(w, "ginputw", KGLOBALS, T, M);
	free(M);
	/* the extra block: gt's planes from KataGo's, then gt's input conv */
	put_text(w, "ordinary_block\nrblock_gtin\n");
	put_bn(w, "rblock_gtin/norm1", T, NULL);
	put_text(w, "rblock_gtin/actv1\n");
	W = zeros((size_t)NFEAT * T * 9);
	float fb[NFEAT];
	for (int f = 0; f < NFEAT; f++) {
		for (int j = 0; j < NX; j++)
			W[((size_t)f * T + C + j) * 9 + 4] = feat_coef[f][j];
		fb[f] = feat_coef[f][NX];
	}
	put_conv(w, "rblock_gtin/w1", 3, T, NFEAT, W);
	free(W);
	put_bn(w, "rblock_gtin/norm2", NFEAT, fb);
	put_text(w, "rblock_gtin/actv2\n");
	W = zeros((size_t)T * NFEAT * 9);
	memcpy(W, inw, sizeof(float) * C * NFEAT * 9);
	for (int j = 0; j < NX; j++)
		for (int i = 0; i < 2; i++)
			if (raw_of[j][i] >= 0)
				W[((size_t)(C + j) * NFEAT + raw_of[j][i]) * 9 + 4] = -1;
	put_conv(w, "rblock_gtin/w2", 3, NFEAT, T, W);
	free(W);
}

/* gt's block l (gt_arch_gpool_block: a KataGo gpool block); beta: the
 * trunk's constant before it, after it on return */
static void put_block(kw *w, const gt_model *m, int l, float *beta)
{
	const gt_arch *a = &m->arch;
	int C = a->channels, T = C + NX, gp = gt_arch_gpool_block(a, l);
	int G = gp ? a->gpool_channels : 0, R = C - G;
	char nm[64], pre[24];
	snprintf(pre, sizeof pre, "rblock%d", l);
#define T_(suffix) (snprintf(nm, sizeof nm, "blk%d." suffix, l), tensor(m, nm))
#define N_(suffix) (snprintf(nm, sizeof nm, "%s/" suffix, pre), nm)
	const float *w1 = T_("w1"), *b1 = T_("b1"), *w2 = T_("w2"), *b2 = T_("b2"), s = *T_("s");
	put_text(w, "%s\n%s\n", gp ? "gpool_block" : "ordinary_block", pre);
	put_bn(w, N_("norm1"), T, beta);
	put_text(w, "%s\n", N_("actv1"));
	/* a convolution of the trunk (T in) from gt's (C in) */
	size_t wn = (size_t)(R > G ? R : G) * T * 9;
	float *W = zeros(wn);
	for (int o = 0; o < R; o++)
		memcpy(W + (size_t)o * T * 9, w1 + (size_t)o * C * 9, sizeof(float) * C * 9);
	put_conv(w, N_("w1"), 3, T, R, W);
	if (gp) {
		const float *w1g = T_("w1g"), *b1g = T_("b1g"), *wg = T_("wg");
		memset(W, 0, sizeof(float) * wn);
		for (int o = 0; o < G; o++)
			memcpy(W + (size_t)o * T * 9, w1g + (size_t)o * C * 9, sizeof(float) * C * 9);
		put_conv(w, N_("w1g"), 3, T, G, W);
		put_bn(w, N_("normg"), G, b1g);
		put_text(w, "%s\n", N_("actvg"));
		float *M = zeros((size_t)3 * G * R);
		for (int r = 0; r < R; r++)
			for (int j = 0; j < 3 * G; j++)
				M[(size_t)j * R + r] = wg[(size_t)r * 3 * G + j];
		put_mat(w, N_("w1r"), 3 * G, R, M);
		free(M);
	}
	free(W);
	put_bn(w, N_("norm2"), R, b1);
	put_text(w, "%s\n", N_("actv2"));
	W = zeros((size_t)T * R * 9);
	for (size_t i = 0; i < (size_t)C * R * 9; i++)
		W[i] = s * w2[i];
	put_conv(w, N_("w2"), 3, R, T, W);
	free(W);
	for (int c = 0; c < C; c++)
		beta[c] += s * b2[c];
#undef T_
#undef N_
}

/* the heads, from the trunk's tip (T channels, gt's first C) */
static void put_heads(kw *w, const gt_model *m)
{
	const gt_arch *a = &m->arch;
	int C = a->channels, T = C + NX, Hp = a->head_policy, Hv = a->head_value, H = a->value_hidden;
	/* policy: P and its copy for the pooling, each with a constant channel */
	const float *pw = tensor(m, "pol.w"), *pb = tensor(m, "pol.b");
	float *W = zeros((size_t)(Hp > Hv ? Hp + 1 : Hv + 1) * T);
	for (int o = 0; o < Hp; o++)
		memcpy(W + (size_t)o * T, pw + (size_t)o * C, sizeof(float) * C);
	float *b = zeros((size_t)(Hp > Hv ? Hp : Hv) + 1);
	memcpy(b, pb, sizeof(float) * Hp);
	b[Hp] = 1;
	put_text(w, "policyhead\n");
	put_conv(w, "p1/w", 1, T, Hp + 1, W);
	put_conv(w, "g1/w", 1, T, Hp + 1, W);
	put_bn(w, "g1/norm", Hp + 1, b);
	put_text(w, "g1/actv\n");
	float *M = zeros((size_t)3 * (Hp + 1) * (Hp + 1));
	put_mat(w, "matmulg2w", 3 * (Hp + 1), Hp + 1, M);
	free(M);
	put_bn(w, "p1/norm", Hp + 1, b);
	put_text(w, "p1/actv\n");
	const float *ow = tensor(m, "pol.out.w"), *ob = tensor(m, "pol.out.b");
	float *v = zeros((size_t)3 * (Hp + 1));
	memcpy(v, ow, sizeof(float) * Hp);
	v[Hp] = *ob;
	put_conv(w, "p2/w", 1, Hp + 1, 1, v);
	/* pass: [mean, scaled mean, max] of the pooled copy */
	const float *sw = tensor(m, "pol.pass.w"), *sb = tensor(m, "pol.pass.b");
	memset(v, 0, sizeof(float) * 3 * (Hp + 1));
	memcpy(v, sw, sizeof(float) * Hp);
	v[Hp] = *sb;
	memcpy(v + Hp + 1, sw + Hp, sizeof(float) * Hp);
	put_mat(w, "matmulpass", 3 * (Hp + 1), 1, v);
	free(v);
	/* value: V with a constant channel */
	const float *vw = tensor(m, "val.w"), *vb = tensor(m, "val.b");
	memset(W, 0, sizeof(float) * (Hv + 1) * T);
	for (int o = 0; o < Hv; o++)
		memcpy(W + (size_t)o * T, vw + (size_t)o * C, sizeof(float) * C);
	memcpy(b, vb, sizeof(float) * Hv);
	b[Hv] = 1;
	put_text(w, "valuehead\n");
	put_conv(w, "v1/w", 1, T, Hv + 1, W);
	put_bn(w, "v1/norm", Hv + 1, b);
	put_text(w, "v1/actv\n");
	free(W), free(b);
	const float *f1 = tensor(m, "val.fc1.w"), *f1b = tensor(m, "val.fc1.b");
	M = zeros((size_t)3 * (Hv + 1) * H);
	for (int h = 0; h < H; h++)
		for (int j = 0; j < Hv; j++) {
			M[(size_t)j * H + h] = f1[(size_t)h * 2 * Hv + j];
			M[(size_t)(Hv + 1 + j) * H + h] = f1[(size_t)h * 2 * Hv + Hv + j];
		}
	put_mat(w, "v2/w", 3 * (Hv + 1), H, M);
	free(M);
	put_bias(w, "v2/b", H, f1b);
	put_text(w, "v2/actv\n");
	/* win, loss, no result: v, -v, -200; score mean and lead: gt's score */
	const float *f2 = tensor(m, "val.fc2.w"), *f2b = tensor(m, "val.fc2.b");
	const float *scw = tensor(m, "score.w"), *scb = tensor(m, "score.b");
	M = zeros((size_t)4 * H);
	for (int h = 0; h < H; h++)
		M[h * 3] = f2[h], M[h * 3 + 1] = -f2[h];
	put_mat(w, "v3/w", H, 3, M);
	float vb3[4] = {*f2b, -*f2b, -200, 0};
	put_bias(w, "v3/b", 3, vb3);
	memset(M, 0, sizeof(float) * 4 * H);
	for (int h = 0; h < H; h++)
		M[h * 4] = M[h * 4 + 2] = scw[h];
	put_mat(w, "sv3/w", H, 4, M);
	free(M);
	float sb4[4] = {*scb, 0, *scb, 0};
	put_bias(w, "sv3/b", 4, sb4);
	const float *ow2 = tensor(m, "own.w"), *ob2 = tensor(m, "own.b");
	v = zeros((size_t)Hv + 1);
	memcpy(v, ow2, sizeof(float) * Hv);
	v[Hv] = *ob2;
	put_conv(w, "vownership/w", 1, Hv + 1, 1, v);
	free(v);
}

static int name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n < 1 || n > 96)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-'))
			return 0;
	return 1;
}

int gt_kata_export(const gt_model *m, const char *path, const char *name, gt_error *e)
{
	const gt_arch *a = &m->arch;
	if (a->feat_version != GT_FEAT_VERSION || a->in_planes != GT_FEAT_PLANES ||
	    a->globals != GT_FEAT_GLOBALS)
		return gt_error_set(e, GT_EUNSUPPORTED, -1, -1,
		                    "katago export: input features version %d with %d planes and %d globals "
		                    "(only gt's version %d, %d and %d)",
		                    a->feat_version, a->in_planes, a->globals, GT_FEAT_VERSION, GT_FEAT_PLANES,
		                    GT_FEAT_GLOBALS);
	char nbuf[128];
	if (!name) {
		gt_model_name(m, nbuf, sizeof nbuf);
		for (char *p = nbuf; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			      *p == '-'))
				*p = '_';
		nbuf[96] = 0;
		name = nbuf;
	}
	if (!name_ok(name))
		return gt_error_set(e, GT_EINVAL, -1, -1,
		                    "katago export: model name %.40s: 1 to 96 of [A-Za-z0-9_-]", name);
	int r = gt_model_check_path(path, e);
	if (r)
		return r;
	gt_fs_atomic fa;
	if ((r = gt_fs_atomic_begin(&fa, path, e)))
		return r;
	size_t pl = strlen(path);
	int gz = pl >= 3 && !strcmp(path + pl - 3, ".gz");
	int fd2 = dup(fa.fd);
	kw w = {fd2 >= 0 ? gzdopen(fd2, gz ? "wb6" : "wbT") : NULL, 1};
	if (!w.gz) {
		if (fd2 >= 0)
			close(fd2);
		gt_fs_atomic_abort(&fa);
		return gt_error_set(e, GT_EIO, -1, -1, "%s: cannot write", path);
	}
	int C = a->channels, T = C + NX, G = gt_arch_has_gpool(a) ? a->gpool_channels : 0;
	int mid = C > NFEAT ? C : NFEAT;
	put_text(&w, "%s\n%d\n%d\n%d\n", name, GT_KATAEXPORT_VERSION, KPLANES, KGLOBALS);
	/* trunk: blocks, channels, mid, regular, dilated, gpool channels */
	put_text(&w, "trunk\n%d\n%d\n%d\n%d\n0\n%d\n", a->blocks + 1, T, mid, G ? C - G : mid, G ? G : 1);
	float *beta = zeros((size_t)T);
	put_input(&w, m, beta);
	for (int l = 0; l < a->blocks; l++)
		put_block(&w, m, l, beta);
	put_bn(&w, "trunk/norm", T, beta);
	put_text(&w, "trunk/actv\n");
	free(beta);
	put_heads(&w, m);
	int ok = w.ok;
	if (gzclose(w.gz) != Z_OK)
		ok = 0;
	if (!ok) {
		gt_fs_atomic_abort(&fa);
		return gt_error_set(e, GT_EIO, -1, -1, "%s: write failed", path);
	}
	return gt_fs_atomic_commit(&fa, e);
}
