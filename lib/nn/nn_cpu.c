/*
 * nn_cpu.c: the CPU backend of lib/nn, the reference that the others are
 * tested against: convolutions as im2col + OpenBLAS cblas_sgemm, and the
 * 3x3 convolutions by Winograd F(4x4,3x3) (wino.h) where that is faster
 * (GT_CONV chooses: gt_conv_winograd; play forwards by the board alone
 * unless gt_nn_conv_batch, training steps by board and batch, and then
 * the input gradients of the backward too, the weight gradients staying
 * im2col). The transformed filters are computed at the first such forward
 * after gt_nn_new or gt_nn_sync_params. Under gt_nn_precision
 * GT_PREC_BF16 (where bf16.h is available) play forwards take every 3x3
 * convolution by im2col and a bfloat16 GEMM instead (AMX tiles, float32
 * sums; the weights rounded once per parameter change); under
 * GT_PREC_INT8 (where int8.h is available) by int8 products instead (AMX
 * tiles, int32 sums; weights quantized once per parameter change,
 * activations per board at each forward), a convolution whose input has
 * a negative value (the input features, if ever) staying float32. Under
 * gt_nn_train_precision GT_PREC_BF16 (mixed precision) training forwards
 * take every 3x3 convolution in bfloat16 the same way, and the backward
 * the input gradients of the blocks' convolutions too (the convolution
 * of the output gradient with the transposed, flipped kernel, packed
 * from the float32 parameters once per parameter change); the weight
 * gradients stay float32 (oneDNN, or im2col + sgemm). See
 * nn.h for the network, nn_loss.c for the loss.
 *
 * Activations are kept channel-major over the whole batch, [c][b*N + p],
 * so a convolution is a few large GEMMs of (Cout x Cin*9) by (Cin*9 x
 * columns), one per chunk of whole boards of about 1024 columns (the
 * im2col buffer stays in cache); inputs arrive NCHW and are transposed
 * once. Backward recomputes the im2col of the layer inputs and gets input
 * gradients as convolutions with flipped, transposed kernels.
 *
 * One forward/backward pair per layer (llm.c's train_gpt2.c), with B
 * boards of n x n, N = n*n, BN = B*N columns, C channels, Cin input
 * planes, G globals, L blocks, Hp and Hv head channels, H hidden units:
 *   input_forward   planes (B x Cin x N, NCHW), globals (B x G)
 *                   -> xin (Cin x BN), glob (B x G) -> X[0] (C x BN)
 *   block_forward   X[l] -> V[l] -> Z[l] -> X[l+1] (each C x BN), l < L
 *   (trunk)         T = relu(X[L]) (C x BN)
 *   policy_forward  T -> P (Hp x BN) -> gp (B x 2Hp) -> policy (B x (N+1))
 *                   (and apolicy (B x (N+1)), the auxiliary head's, from P)
 *   value_forward   T -> Vh (Hv x BN) -> gv (B x 2Hv) -> hid (B x H)
 *                   -> vpre, value, sraw, score (B); Vh -> opre, own (BN)
 * Each X_backward takes the gradient of X_forward's output, adds the
 * gradients of the layer's parameters to nn->grads and writes (or adds,
 * as said) the gradient of its input. A play forward keeps one X, V and
 * Z (each block works in place); a training forward keeps every layer's.
 * All activations and scratch are views into one buffer (acts_point),
 * sized from these shapes for the largest (B, BN) seen.
 */
#include "bf16.h"
#include "dnn.h"
#include "int8.h"
#include "nn.h"
#include "nn_backend.h"
#include "util.h"
#include "wino.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Under AddressSanitizer (make check SANITIZE=1) every view is followed
 * by a poisoned guard of GUARD floats, so that running off the end of
 * one is caught as it would be between separate allocations. */
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#define GUARD 16
#else
#define GUARD 0
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#endif

/* The activations, scratch and activation gradients: views into one
 * buffer. BN and B are the capacities (cap_bn, cap_b). */
typedef struct acts {
	float *xin;           /* Cin x BN: the input planes, channel-major */
	float *glob;          /* B x G: the global inputs */
	float *X;             /* (L+1) x C x BN in training, else C x BN */
	float *V, *Z;         /* L x C x BN in training, else C x BN each */
	float *T;             /* C x BN: relu(X[L]) */
	float *P, *Vh;        /* Hp x BN, Hv x BN: the heads' 1x1 convolutions */
	float *gp, *gv;       /* B x 2Hp, B x 2Hv: their pooled means */
	float *hid;           /* B x H: the value MLP's hidden units */
	float *vpre, *sraw;   /* B: value before tanh, score / 20 */
	float *opre;          /* BN: ownership before tanh */
	float *policy;        /* B x (N+1) <= BN + B: the outputs */
	float *apolicy;       /* B x (N+1): the auxiliary policy (0 floats without it) */
	float *value, *score; /* B */
	float *own;           /* BN */
	float *tmp;           /* BN: the point logits before their bias */
	float *col;           /* Kmax x cols: im2col of one chunk (Kmax = 9 max(Cin, C)) */
	float *rbuf;          /* Kmax/9 x cols: a chunk's relu(input) or input gradient */
	/* training only (NULL after play forwards alone) */
	float *dcol;          /* Kmax x cols: im2col of a chunk's output gradient */
	float *wt;            /* C x C*9: a block kernel transposed and flipped */
	float *dX, *dV;       /* C x BN: gradients of X[l] (and T), V[l] */
	float *dP, *dVh;      /* Hp x BN, Hv x BN */
	float *dhid, *dgv;    /* B x H, B x 2Hv */
	float *dpoint, *dpass;/* BN, B: of the policy logits */
	float *dapoint, *dapass; /* BN, B: of the auxiliary policy's (or 0 floats) */
	float *dvpre, *dsr;   /* B, B */
	float *dopre;         /* BN */
	float *gw;            /* C x BN: an input gradient by Winograd, before the ReLU's mask */
	/* global pooling blocks (Cg their pooled channels; 0 floats if none) */
	float *gpp;           /* B x 3Cg: a block's pooled [mean, scaled mean, max] */
	float *gbias;         /* B x C: the biases made from them */
	float *gmax;          /* B x Cg: each max's point (-1: every value <= 0), exact */
	float *dgpp;          /* B x 3Cg: their gradient (training) */
} acts;

typedef struct cpu {
	gt_nn_views p, g;  /* views of nn->params and nn->grads */
	acts act;          /* views into buf */
	float *buf;
	size_t nbuf;       /* floats in buf */
	size_t cap_bn;     /* B*N the buffer holds */
	int cap_b, cap_train;
	int batch, n, trained; /* last forward; trained: activations kept */
	int conv_mode;     /* GT_CONV_* (wino.h), from GT_CONV at gt_nn_new */
	float *wu;         /* Winograd filters: in.w, then each block's w1, w2 */
	int wu_ok;         /* wu holds the transforms of the current params */
	float *wscratch;   /* gt_wino_conv's scratch */
	int prec;          /* play forwards' GT_PREC_* (gt_nn_precision) */
	int tprec;         /* training steps' (gt_nn_train_precision) */
	int lowp_now;      /* the last forward's: prec, or tprec in training */
	uint16_t *wb;      /* bf16.h packs of in.w, then each block's w1, w2 */
	int wb_ok;         /* wb holds the current params */
	uint16_t *wbt;     /* bf16.h packs of each block's w1, w2 transposed and
	                    * flipped (conv3x3_back's W'), for tprec GT_PREC_BF16 */
	int wbt_ok;        /* wbt holds the current params */
	uint16_t *bscratch;/* gt_bf16_gemm's scratch */
	int dnn_now;       /* this forward's 3x3 convolutions by oneDNN (dnn.h),
	                    * and then the backward's too */
	int wgrad_dnn;     /* the backward's weight gradients by oneDNN */
	unsigned long wver;/* dnn.h's weights version: a new one (gt_dnn_version) at
	                    * gt_nn_new and at every parameter sync */
	int8_t *wq;        /* int8.h packs of in.w, then each block's w1, w2 */
	float *sq;         /* their scales: C per convolution, in that order */
	int wq_ok;         /* wq holds the current params */
	uint8_t *qscratch; /* gt_int8_conv3x3's scratch */
	int train_wino;    /* the last training forward used Winograd: so do the
	                    * input gradients of its backward */
	float *wut;        /* Winograd filters of a block kernel transposed, flipped
	                    * (C x C, made with wu) */
} cpu;

/* Transformed filters larger than this (floats) are not made: such
 * networks keep im2col (b6c96: 4M floats). */
#define WINO_MAX_FLOATS ((size_t)1 << 28)

/* Convolutions run over chunks of whole boards, about chunk_cols columns
 * each (at most max(chunk_cols, n*n)), so that the im2col buffer stays in
 * cache and is small. */
static int chunk_cols = GT_NN_CPU_CHUNK_MAX;

void gt_nn_cpu_chunk(int cols)
{
	chunk_cols = cols < 1 ? 1 : cols > GT_NN_CPU_CHUNK_MAX ? GT_NN_CPU_CHUNK_MAX : cols;
}

static int chunk_boards(int n)
{
	int nb = chunk_cols / (n * n);
	return nb < 1 ? 1 : nb;
}

/* ------------------------------------------------------------ buffers */

/* Point the views of v into base for B boards and BN columns, with train
 * the views that backward needs too (else those are NULL); base NULL
 * only counts. Returns the floats needed. Each view's offset is a
 * multiple of 16 floats (64 bytes, a cache line); the gap after it is
 * poisoned under ASan. */
static size_t acts_point(acts *v, const gt_arch *a, size_t B, size_t BN, int train,
                         float *base)
{
	size_t C = a->channels, Cin = a->in_planes, G = a->globals, L = a->blocks;
	size_t Hp = a->head_policy, Hv = a->head_value, H = a->value_hidden;
	size_t kmax = (Cin > C ? Cin : C) * 9, maxN = (size_t)a->max_n * a->max_n;
	size_t cols = maxN > GT_NN_CPU_CHUNK_MAX ? maxN : GT_NN_CPU_CHUNK_MAX;
	size_t nx = train ? L + 1 : 1, nv = train ? L : 1, Cg = a->gpool_channels;
	size_t aux = (a->heads & GT_ARCH_AUX_POLICY) != 0;
	struct { float **view; size_t size; int train; } list[] = {
		{&v->xin, Cin * BN, 0}, {&v->glob, G * B, 0},
		{&v->X, nx * C * BN, 0}, {&v->V, nv * C * BN, 0}, {&v->Z, nv * C * BN, 0},
		{&v->T, C * BN, 0}, {&v->P, Hp * BN, 0}, {&v->Vh, Hv * BN, 0},
		{&v->gp, 2 * Hp * B, 0}, {&v->gv, 2 * Hv * B, 0}, {&v->hid, H * B, 0},
		{&v->vpre, B, 0}, {&v->sraw, B, 0}, {&v->opre, BN, 0},
		{&v->policy, BN + B, 0}, {&v->value, B, 0}, {&v->score, B, 0}, {&v->own, BN, 0},
		{&v->tmp, BN, 0}, {&v->col, kmax * cols, 0}, {&v->rbuf, kmax / 9 * cols, 0},
		{&v->dcol, kmax * cols, 1}, {&v->wt, C * C * 9, 1},
		{&v->dX, C * BN, 1}, {&v->dV, C * BN, 1}, {&v->dP, Hp * BN, 1},
		{&v->dVh, Hv * BN, 1}, {&v->dhid, H * B, 1}, {&v->dgv, 2 * Hv * B, 1},
		{&v->dpoint, BN, 1}, {&v->dpass, B, 1}, {&v->dvpre, B, 1}, {&v->dsr, B, 1},
		{&v->dopre, BN, 1}, {&v->gw, C * BN, 1},
		{&v->gpp, 3 * Cg * B, 0}, {&v->gbias, C * B, 0}, {&v->gmax, Cg * B, 0},
		{&v->dgpp, 3 * Cg * B, 1},
		{&v->apolicy, aux * (BN + B), 0}, {&v->dapoint, aux * BN, 1},
		{&v->dapass, aux * B, 1},
	};
	size_t off = 0;
	for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) {
		if (list[i].train && !train) {
			*list[i].view = NULL;
			continue;
		}
		size_t next = off + (list[i].size + 15) / 16 * 16 + GUARD;
		*list[i].view = base ? base + off : NULL;
		if (base && next > off + list[i].size)
			ASAN_POISON_MEMORY_REGION(base + off + list[i].size,
			                          sizeof(float) * (next - off - list[i].size));
		off = next;
	}
	return off;
}

static void free_acts(cpu *c)
{
	if (c->buf)
		ASAN_UNPOISON_MEMORY_REGION(c->buf, c->nbuf * sizeof(float));
	free(c->buf);
	c->buf = NULL;
}

/* Make room for batch x n (and the training activations if train). */
static void ensure(gt_nn *nn, cpu *c, int batch, int n, int train)
{
	size_t bn = (size_t)batch * n * n;
	if (bn <= c->cap_bn && batch <= c->cap_b && (!train || c->cap_train))
		return;
	c->cap_bn = bn > c->cap_bn ? bn : c->cap_bn;
	c->cap_b = batch > c->cap_b ? batch : c->cap_b;
	c->cap_train = train || c->cap_train;
	free_acts(c);
	c->nbuf = acts_point(&c->act, &nn->arch, c->cap_b, c->cap_bn, c->cap_train, NULL);
	c->buf = gt_xmalloc(c->nbuf * sizeof(float));
	acts_point(&c->act, &nn->arch, c->cap_b, c->cap_bn, c->cap_train, c->buf);
}

static int cpu_init(gt_nn *nn)
{
	cpu *c = gt_xcalloc(1, sizeof *c);
	gt_nn_views_init(&c->p, nn, nn->params);
	gt_nn_views_init(&c->g, nn, nn->grads);
	c->conv_mode = gt_conv_mode_env();
	c->wver = gt_dnn_version();
	nn->state = c;
	return 0;
}

static void cpu_release(gt_nn *nn)
{
	cpu *c = nn->state;
	free_acts(c);
	gt_nn_views_release(&c->p);
	gt_nn_views_release(&c->g);
	free(c->wu);
	free(c->wscratch);
	free(c->wut);
	free(c->wb);
	free(c->wbt);
	free(c->bscratch);
	free(c->wq);
	free(c->sq);
	free(c->qscratch);
	free(c);
	nn->state = NULL;
}

static int cpu_sync(gt_nn *nn)
{
	cpu *c = nn->state;
	c->wu_ok = 0;
	c->wb_ok = 0;
	c->wbt_ok = 0;
	c->wver = gt_dnn_version();
	c->wq_ok = 0;
	return 0;
}

/* The input channels of 3x3 convolution k (0 the input's, 1 + 2 l and
 * 2 + 2 l block l's w1 and w2; each has C outputs): w2 of a global
 * pooling block takes its Cr = C - Cg regular channels. */
static int conv_cin(const gt_arch *a, int k)
{
	if (k == 0)
		return a->in_planes;
	if (k & 1 || !gt_arch_gpool_block(a, (k - 2) / 2))
		return a->channels;
	return a->channels - a->gpool_channels;
}

/* Where the pack of convolution k starts in wb (prec GT_PREC_BF16, in
 * 16-bit elements) or wq (GT_PREC_INT8, bytes); k = 2 L + 1: their size. */
static size_t pack_at(const gt_arch *a, int prec, int k)
{
	size_t at = 0;
	for (int j = 0; j < k; j++)
		at += prec == GT_PREC_BF16 ? gt_bf16_pack_size(a->channels, conv_cin(a, j) * 9)
		                           : gt_int8_pack_size(a->channels, conv_cin(a, j) * 9);
	return at;
}

/* Where the Winograd filters of convolution k start in wu; k = 2 L + 1:
 * their size. */
static size_t wino_at(const gt_arch *a, int k)
{
	size_t at = 0;
	for (int j = 0; j < k; j++)
		at += gt_wino_filter_floats(a->channels, conv_cin(a, j));
	return at;
}

/* Where the pack of the transposed, flipped kernel of convolution k
 * (1 + 2 l or 2 + 2 l, block l's w1 or w2: conv_cin(k) x C*9) starts in
 * wbt; k = 2 L + 1: their size. */
static size_t packt_at(const gt_arch *a, int k)
{
	size_t at = 0;
	for (int j = 1; j < k; j++)
		at += gt_bf16_pack_size(conv_cin(a, j), a->channels * 9);
	return at;
}

/* wt (Cin x Cout*9) = W (Cout x Cin*9) transposed and flipped:
 * wt[ci][co][k] = W[co][ci][8 - k], k = ky*3 + kx: the kernel whose
 * convolution of a layer's output gradient is its input gradient */
static void flip_kernel(const float *W, int Cin, int Cout, float *wt)
{
	int K = Cin * 9, Kt = Cout * 9;
	for (int ci = 0; ci < Cin; ci++)
		for (int co = 0; co < Cout; co++)
			for (int k = 0; k < 9; k++)
				wt[(size_t)ci * Kt + co * 9 + k] = W[(size_t)co * K + ci * 9 + 8 - k];
}

/* The bfloat16 packs of each block convolution's flipped kernel into wbt
 * (training in GT_PREC_BF16; act.wt, a training view, as the float32
 * scratch), made when stale. */
static void bf16_back_weights(gt_nn *nn, cpu *c)
{
	const gt_arch *a = &nn->arch;
	int C = a->channels, L = a->blocks;
	if (c->wbt_ok)
		return;
	if (!c->wbt)
		c->wbt = gt_xmalloc64(sizeof(uint16_t) * packt_at(a, 2 * L + 1));
	for (int k = 1; k <= 2 * L; k++) {
		int cin = conv_cin(a, k);
		const float *w = k & 1 ? c->p.blk[(k - 1) / 2].w1 : c->p.blk[(k - 1) / 2].w2;
		flip_kernel(w, cin, C, c->act.wt);
		gt_bf16_pack(c->act.wt, cin, C * 9, C * 9, c->wbt + packt_at(a, k));
	}
	c->wbt_ok = 1;
}

/* The packs of every 3x3 convolution's weights in the precision of this
 * forward, c->lowp_now (bf16.h's in wb, int8.h's in wq with their scales
 * in sq, C per convolution), made when stale. */
static void lowp_weights(gt_nn *nn, cpu *c)
{
	const gt_arch *a = &nn->arch;
	int C = a->channels, Cin = a->in_planes, L = a->blocks, prec = c->lowp_now;
	int bf = prec == GT_PREC_BF16;
	size_t all = pack_at(a, prec, 2 * L + 1);
	if (bf ? c->wb_ok : c->wq_ok)
		return;
	if (bf && !c->wb) {
		c->wb = gt_xmalloc64(sizeof(uint16_t) * all);
		c->bscratch = gt_xmalloc64(sizeof(uint16_t) *
		                         gt_bf16_scratch_size((Cin > C ? Cin : C) * 9));
	}
	if (!bf && !c->wq) {
		c->wq = gt_xmalloc64(all);
		c->sq = gt_xmalloc(sizeof(float) * C * (1 + 2 * L));
		c->qscratch = gt_xmalloc64(gt_int8_scratch_size(Cin > C ? Cin : C, a->max_n));
	}
	for (int k = 0; k <= 2 * L; k++) {
		int K = conv_cin(a, k) * 9;
		const float *w = !k ? c->p.in_w : k & 1 ? c->p.blk[(k - 1) / 2].w1
		                                        : c->p.blk[(k - 1) / 2].w2;
		if (bf)
			gt_bf16_pack(w, C, K, K, c->wb + pack_at(a, prec, k));
		else
			gt_int8_pack(w, C, K, K, c->wq + pack_at(a, prec, k), c->sq + (size_t)k * C);
	}
	if (bf)
		c->wb_ok = 1;
	else
		c->wq_ok = 1;
}

/* The Winograd filters of every 3x3 convolution (wu: in.w, then blk l's
 * w1 and w2), made when stale; 0, or -1 when the network is too large for
 * them (then im2col is used). */
static int wino_filters(gt_nn *nn, cpu *c)
{
	const gt_arch *a = &nn->arch;
	int C = a->channels, Cin = a->in_planes, L = a->blocks;
	size_t all = wino_at(a, 2 * L + 1), fb = gt_wino_filter_floats(C, C);
	if (all > WINO_MAX_FLOATS)
		return -1;
	if (c->wu_ok)
		return 0;
	if (!c->wu) {
		c->wu = gt_xmalloc(sizeof(float) * all);
		c->wscratch = gt_xmalloc(sizeof(float) *
		                         gt_wino_scratch_floats(Cin > C ? Cin : C, C));
		c->wut = gt_xmalloc(sizeof(float) * fb);
	}
	gt_wino_filter(c->p.in_w, C, Cin, c->wu);
	for (int l = 0; l < L; l++) {
		gt_wino_filter(c->p.blk[l].w1, C, C, c->wu + wino_at(a, 1 + 2 * l));
		gt_wino_filter(c->p.blk[l].w2, C, conv_cin(a, 2 + 2 * l), c->wu + wino_at(a, 2 + 2 * l));
	}
	c->wu_ok = 1;
	return 0;
}

/* --------------------------------------------------------- primitives */

/* im2col for a 3x3 convolution with zero padding 1, boards b0..b0+nb-1 of
 * [ci][b*N + y*n + x] data whose rows hold BN floats:
 * col[(ci*9 + ky*3 + kx)][(b-b0)*N + y*n + x] = in[ci][b, y+ky-1, x+kx-1]
 * (0 off the board). Each board is one shifted block copy, then the
 * wrapped row and column are zeroed. */
static void im2col(const float *in, int Cin, size_t BN, int b0, int nb, int n,
                   float *col)
{
	long N = (long)n * n, nc = nb * N;
	for (int ci = 0; ci < Cin; ci++)
		for (int ky = 0; ky < 3; ky++)
			for (int kx = 0; kx < 3; kx++) {
				float *row = col + (size_t)(ci * 9 + ky * 3 + kx) * nc;
				long dy = ky - 1, dx = kx - 1, shift = dy * n + dx;
				long p0 = shift < 0 ? -shift : 0, p1 = shift > 0 ? N - shift : N;
				for (int b = 0; b < nb; b++) {
					float *o = row + b * N;
					const float *src = in + ci * BN + (size_t)(b0 + b) * N;
					if (p0)
						memset(o, 0, sizeof(float) * p0);
					memcpy(o + p0, src + p0 + shift, sizeof(float) * (p1 - p0));
					if (p1 < N)
						memset(o + p1, 0, sizeof(float) * (N - p1));
					if (dy < 0)
						memset(o, 0, sizeof(float) * n);
					else if (dy > 0)
						memset(o + N - n, 0, sizeof(float) * n);
					if (dx < 0)
						for (long y = 0; y < n; y++)
							o[y * n] = 0;
					else if (dx > 0)
						for (long y = 0; y < n; y++)
							o[y * n + n - 1] = 0;
				}
			}
}

static void relu_copy(float *restrict o, const float *restrict x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		o[i] = x[i] > 0 ? x[i] : 0.0f;
}

/* d[i] = 0 where v[i] <= 0 (the ReLU's derivative) */
static void mask_pos(float *restrict d, const float *restrict v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = v[i] > 0 ? d[i] : 0.0f;
}

/* d[i] += u[i] where v[i] > 0 */
static void add_masked(float *restrict d, const float *restrict u,
                       const float *restrict v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] += v[i] > 0 ? u[i] : 0.0f;
}

/* im2col of boards b0..b0+nb-1 into col; with relu, the boards' relu
 * is first taken into rbuf in one vectorised pass */
static void im2col_chunk(cpu *c, const float *in, int Cin, size_t BN, int b0, int nb,
                         int n, float *col, int relu)
{
	size_t N = (size_t)n * n, nc = nb * N;
	if (!relu) {
		im2col(in, Cin, BN, b0, nb, n, col);
		return;
	}
	for (int ci = 0; ci < Cin; ci++)
		relu_copy(c->act.rbuf + ci * nc, in + ci * BN + b0 * N, nc);
	im2col(c->act.rbuf, Cin, nc, 0, nb, n, col);
}

/* out (Cout x BN) = W (Cout x Cin*9) * im2col(in or relu(in)) + bias[c];
 * by Winograd with the transformed filters U when U is not NULL, else,
 * when k >= 0 (the convolution's place: 0 the input's, 1 + 2 l and 2 + 2 l
 * block l's), in this forward's precision c->lowp_now (the play
 * precision, or the training one) with the packs of wb or wq
 * (bf16.h, int8.h: the im2col packed as it is read); the int8 way takes
 * float32 for an input with negative values */
static void conv3x3(cpu *c, const gt_arch *a, const float *in, int Cin, int Cout, int B,
                    int n, const float *W, const float *U, int k, const float *bias,
                    float *out, int relu)
{
	size_t N = (size_t)n * n, BN = B * N;
	if (c->dnn_now && gt_dnn_conv(&(gt_dnn_conv_args){W, c->wver, Cin, Cout, 3, B, n, in, N, BN,
	                                                  relu, bias, out, N, BN, 0}) == 0)
		return;
	if (U) {
		gt_wino_conv(&(gt_wino_conv_args){U, Cin, Cout, B, n, in, N, BN, relu, bias, out,
		                                  N, BN, 0, c->wscratch});
		return;
	}
	size_t at = k >= 0 ? pack_at(a, c->lowp_now, k) : 0;
	if (k >= 0 && c->lowp_now == GT_PREC_BF16) {
		gt_bf16_conv3x3(&(gt_bf16_conv_args){c->wb + at, Cin, Cout, n, (long)BN, in, BN, relu,
		                                     bias, out, BN, 0, c->bscratch});
		return;
	}
	if (k >= 0 && c->lowp_now == GT_PREC_INT8 &&
	    gt_int8_conv3x3(&(gt_int8_conv_args){c->wq + at, c->sq + (size_t)k * Cout, Cin, Cout,
	                                         n, (long)BN, in, BN, relu, bias, out, BN, 0,
	                                         c->qscratch}) == 0)
		return;
	int K = Cin * 9, step = chunk_boards(n);
	for (int b0 = 0; b0 < B; b0 += step) {
		int nb = B - b0 < step ? B - b0 : step;
		int nc = (int)(nb * N);
		im2col_chunk(c, in, Cin, BN, b0, nb, n, c->act.col, relu);
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Cout, nc, K,
		            1.0f, W, K, c->act.col, nc, 0.0f, out + b0 * N, (int)BN);
	}
	for (int o = 0; o < Cout; o++) {
		float bb = bias[o], *r = out + o * BN;
		for (size_t i = 0; i < BN; i++)
			r[i] += bb;
	}
}

/* Backward of out = alpha * conv3x3(relu?(in); W): dW += alpha * dout
 * im2col(relu?(in))^T, and if din is not NULL, the gradient with respect
 * to relu?(in), g, computed as the 3x3 convolution of dout with the
 * transposed, spatially flipped kernel W'[ci][co][ky][kx] =
 * W[co][ci][2-ky][2-kx] (the forward's GEMM shape, no col2im scatter),
 * goes through the ReLU's derivative [in > 0] (when relu) and is stored
 * into din (acc 0) or added to it (acc 1), chunk by chunk while it is in
 * cache. wb not NULL: that convolution in bfloat16 with wb, the pack of
 * W' (bf16_back_weights; training in GT_PREC_BF16); the weight gradient
 * stays float32. */
static void conv3x3_back(cpu *c, const float *in, int Cin, int Cout, int B, int n,
                         const float *W, const float *dout, float alpha, float *dW,
                         float *din, int relu, int acc, const uint16_t *wb)
{
	size_t N = (size_t)n * n, BN = B * N;
	int K = Cin * 9, Kt = Cout * 9, step = chunk_boards(n);
	float *wt = c->act.wt, *rbuf = c->act.rbuf;
	if (din && !wb)
		flip_kernel(W, Cin, Cout, wt);
	/* the weight gradient by oneDNN (dnn.h) unless GT_CONV=im2col: 2.5
	 * times im2col + sgemm on 9x9, batch 256, 64 channels (bench/onednn);
	 * under GT_CONV=onednn the input gradient too, as the convolution of
	 * dout with W' */
	int wdone = c->wgrad_dnn && gt_dnn_wgrad(&(gt_dnn_wgrad_args){Cin, Cout, 3, B, n, in, N, BN, relu,
	                                                            dout, N, BN, alpha, dW}) == 0;
	float *g = c->act.gw;
	int gdone = 0;
	if (din && wb) {
		/* bfloat16 products, float32 sums (bf16.h): the same
		 * convolution of dout with W', whole, then masked below */
		gt_bf16_conv3x3(&(gt_bf16_conv_args){wb, Cout, Cin, n, (long)BN, dout, BN, 0, NULL,
		                                     g, BN, 0, c->bscratch});
		gdone = 1;
	}
	gdone = gdone || (din && Cin == Cout && c->dnn_now &&
		gt_dnn_conv(&(gt_dnn_conv_args){wt, 0, Cout, Cin, 3, B, n, dout, N, BN, 0, NULL, g, N, BN, 0}) == 0);
	if (din && !gdone && c->train_wino && Cin == Cout) {
		/* the same convolution of dout with W' by Winograd (the forward's
		 * filters were transformed the same way), whole, then masked;
		 * wut holds a block's C x C (wino_filters) */
		gt_wino_filter(wt, Cin, Cout, c->wut);
		gt_wino_conv(&(gt_wino_conv_args){c->wut, Cout, Cin, B, n, dout, N, BN, 0, NULL, g,
		                                  N, BN, 0, c->wscratch});
		gdone = 1;
	}
	if (gdone) {
		size_t m = (size_t)Cin * BN;
		if (!relu && !acc)
			for (size_t i = 0; i < m; i++)
				din[i] = alpha * g[i];
		else if (!relu)
			for (size_t i = 0; i < m; i++)
				din[i] += alpha * g[i];
		else if (!acc)
			for (size_t i = 0; i < m; i++)
				din[i] = in[i] > 0 ? alpha * g[i] : 0.0f;
		else
			for (size_t i = 0; i < m; i++)
				din[i] += in[i] > 0 ? alpha * g[i] : 0.0f;
		din = NULL;
	}
	for (int b0 = 0; b0 < B; b0 += step) {
		int nb = B - b0 < step ? B - b0 : step;
		int nc = (int)(nb * N);
		if (!wdone) {
			im2col_chunk(c, in, Cin, BN, b0, nb, n, c->act.col, relu);
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Cout, K, nc, alpha,
			            dout + b0 * N, (int)BN, c->act.col, nc, 1.0f, dW, K);
		}
		if (!din)
			continue;
		im2col(dout, Cout, BN, b0, nb, n, c->act.dcol);
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Cin, nc, Kt, alpha,
		            wt, Kt, c->act.dcol, nc, 0.0f, rbuf, nc);
		for (int ci = 0; ci < Cin; ci++) {
			float *d = din + ci * BN + b0 * N;
			const float *g = rbuf + (size_t)ci * nc, *x = in + ci * BN + b0 * N;
			if (!relu && !acc)
				memcpy(d, g, sizeof(float) * nc);
			else if (!relu)
				for (int i = 0; i < nc; i++)
					d[i] += g[i];
			else if (!acc)
				for (int i = 0; i < nc; i++)
					d[i] = x[i] > 0 ? g[i] : 0.0f;
			else
				add_masked(d, g, x, (size_t)nc);
		}
	}
}

/* out (Cout x BN) = relu(W (Cout x Cin) * in + bias) */
static void conv1x1_relu(const float *in, int Cin, int Cout, size_t BN,
                         const float *W, const float *bias, float *out)
{
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Cout, (int)BN, Cin,
	            1.0f, W, Cin, in, (int)BN, 0.0f, out, (int)BN);
	for (int o = 0; o < Cout; o++) {
		float bb = bias[o], *r = out + o * BN;
		for (size_t i = 0; i < BN; i++) {
			float v = r[i] + bb;
			r[i] = v > 0 ? v : 0;
		}
	}
}

/* pooled[b][h] = mean_p in[h][b*N+p], pooled[b][H+h] = that * (n-14)/10 */
static void pool(const float *in, int H, int B, int n, float *pooled)
{
	size_t N = (size_t)n * n, BN = B * N;
	for (int h = 0; h < H; h++)
		for (int b = 0; b < B; b++) {
			const float *r = in + h * BN + b * N;
			double s = 0;
			for (size_t p = 0; p < N; p++)
				s += r[p];
			float m = (float)(s / N);
			pooled[b * 2 * H + h] = m;
			pooled[b * 2 * H + H + h] = m * (float)(n - 14) / 10.0f;
		}
}

/* sum of x[0..n) (y NULL) or of x[i]*y[i]: 8 float lanes over blocks of
 * 512 (vectorisable), the blocks added in double. Inlined into sum_f and
 * dot_f, so that each has its own loop without the test of y. */
static inline __attribute__((always_inline)) double lanes(const float *x, const float *y,
                                                          size_t n)
{
	double s = 0;
	for (size_t i0 = 0; i0 < n; i0 += 512) {
		size_t e = n - i0 < 512 ? n - i0 : 512, i = 0;
		float l[8] = {0};
		for (; i + 8 <= e; i += 8)
			for (int j = 0; j < 8; j++)
				l[j] += y ? x[i0 + i + j] * y[i0 + i + j] : x[i0 + i + j];
		for (; i < e; i++)
			l[0] += y ? x[i0 + i] * y[i0 + i] : x[i0 + i];
		s += ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
	}
	return s;
}

static double sum_f(const float *x, size_t n)
{
	return lanes(x, NULL, n);
}

static double dot_f(const float *x, const float *y, size_t n)
{
	return lanes(x, y, n);
}

static void rowsum_add(const float *m, int rows, size_t cols, float *acc)
{
	for (int r = 0; r < rows; r++)
		acc[r] += (float)sum_f(m + r * cols, cols);
}

/* ------------------------------------------------------------- layers */

/* x0 (C x BN) = conv3x3(planes; in_w) + in_b + in_g . globals per board
 * and channel; planes (B x Cin x N) are kept transposed in xin, globals
 * (B x G) in glob. */
static void input_forward(cpu *c, const gt_arch *a, int B, int n, const float *planes,
                          const float *globals, const float *U, int k, float *x0)
{
	const gt_nn_views *p = &c->p;
	int C = a->channels, Cin = a->in_planes, G = a->globals;
	size_t N = (size_t)n * n, BN = B * N;
	float *xin = c->act.xin, *glob = c->act.glob;
	for (int b = 0; b < B; b++)
		for (int ci = 0; ci < Cin; ci++)
			memcpy(xin + ci * BN + b * N, planes + ((size_t)b * Cin + ci) * N,
			       sizeof(float) * N);
	if (G > 0)
		memcpy(glob, globals, sizeof(float) * B * G);
	conv3x3(c, a, xin, Cin, C, B, n, p->in_w, U, k, p->in_b, x0, 0);
	for (int o = 0; o < C && G > 0; o++)
		for (int b = 0; b < B; b++) {
			float add = 0, *r = x0 + o * BN + b * N;
			for (int g = 0; g < G; g++)
				add += p->in_g[o * G + g] * glob[b * G + g];
			for (size_t i = 0; i < N; i++)
				r[i] += add;
		}
}

/* dx0 (C x BN): the gradient of x0; adds those of in_w, in_b, in_g. */
static void input_backward(cpu *c, const gt_arch *a, int B, int n, const float *dx0)
{
	const gt_nn_views *p = &c->p, *g = &c->g;
	int C = a->channels, Cin = a->in_planes, G = a->globals;
	size_t N = (size_t)n * n, BN = B * N;
	rowsum_add(dx0, C, BN, g->in_b);
	for (int o = 0; o < C && G > 0; o++)
		for (int b = 0; b < B; b++) {
			double s = 0;
			const float *r = dx0 + o * BN + b * N;
			for (size_t q = 0; q < N; q++)
				s += r[q];
			for (int k = 0; k < G; k++)
				g->in_g[o * G + k] += (float)s * c->act.glob[b * G + k];
		}
	conv3x3_back(c, c->act.xin, Cin, C, B, n, p->in_w, dx0, 1.0f, g->in_w, NULL, 0, 0, NULL);
}

/* The pooling of a global pooling block: of u (G x BN, the pooled
 * channels before their ReLU) into pp (B x 3G) the mean, the mean times
 * (n-14)/10 and the max of relu(u) per board and channel (KataGo's), and
 * into amax (B x G) the first point of each max (-1 when u <= 0 there
 * everywhere, the max then 0). */
static void gpool_pool(const float *u, int G, int B, int n, float *pp, float *amax)
{
	size_t N = (size_t)n * n, BN = B * N;
	for (int g = 0; g < G; g++)
		for (int b = 0; b < B; b++) {
			const float *r = u + g * BN + b * N;
			double s = 0;
			float m = 0;
			int at = -1;
			for (size_t p = 0; p < N; p++)
				if (r[p] > 0) {
					s += r[p];
					if (r[p] > m)
						m = r[p], at = (int)p;
				}
			float mean = (float)(s / N);
			pp[b * 3 * G + g] = mean;
			pp[b * 3 * G + G + g] = mean * (float)(n - 14) / 10.0f;
			pp[b * 3 * G + 2 * G + g] = m;
			amax[b * G + g] = (float)at;
		}
}

/* Global pooling block, forward: v (C x BN) holds the first convolution's
 * regular channels (Cr rows) and then its pooled ones (Cg); adds to the
 * regular ones the biases wg . gpool_pool(pooled) per board. */
static void gpool_forward(cpu *c, const gt_nn_block_views *bp, int C, int B, int n, float *v)
{
	int G = bp->gpool, R = C - G;
	size_t N = (size_t)n * n, BN = B * N;
	acts *a = &c->act;
	gpool_pool(v + R * BN, G, B, n, a->gpp, a->gmax);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, R, 3 * G, 1.0f, a->gpp, 3 * G,
	            bp->wg, 3 * G, 0.0f, a->gbias, R);
	for (int r = 0; r < R; r++)
		for (int b = 0; b < B; b++) {
			float add = a->gbias[b * R + r], *o = v + r * BN + b * N;
			for (size_t p = 0; p < N; p++)
				o[p] += add;
		}
}

/* Global pooling block, backward: dv (C x BN) holds on entry the gradient
 * of the regular channels after their biases (Cr rows); adds the gradient
 * of wg into bg and writes that of the pooled channels' rows of dv. v is
 * the forward's. */
static void gpool_backward(cpu *c, const gt_nn_block_views *bp, const gt_nn_block_views *bg,
                           int C, int B, int n, const float *v, float *dv)
{
	int G = bp->gpool, R = C - G;
	size_t N = (size_t)n * n, BN = B * N;
	acts *a = &c->act;
	float pscale = (float)(n - 14) / 10.0f;
	gpool_pool(v + R * BN, G, B, n, a->gpp, a->gmax);
	for (int r = 0; r < R; r++)
		for (int b = 0; b < B; b++)
			a->gbias[b * R + r] = (float)sum_f(dv + r * BN + b * N, N);
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, R, 3 * G, B, 1.0f, a->gbias, R,
	            a->gpp, 3 * G, 1.0f, bg->wg, 3 * G);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, 3 * G, R, 1.0f, a->gbias, R,
	            bp->wg, 3 * G, 0.0f, a->dgpp, 3 * G);
	for (int g = 0; g < G; g++)
		for (int b = 0; b < B; b++) {
			const float *d = a->dgpp + b * 3 * G, *u = v + (R + g) * BN + b * N;
			float dm = (d[g] + d[G + g] * pscale) / (float)N, *o = dv + (R + g) * BN + b * N;
			for (size_t p = 0; p < N; p++)
				o[p] = u[p] > 0 ? dm : 0.0f;
			int at = (int)a->gmax[b * G + g];
			if (at >= 0)
				o[at] += d[2 * G + g];
		}
}

/* Residual block, each array C x BN:
 *   v = conv3x3(relu(x); w1) + b1, z = conv3x3(relu(v); w2) + b2,
 *   y = x + s z (y may be x); of a global pooling block, gpool_forward
 *   adds its biases to v's regular rows before the second convolution,
 *   which takes those rows only; by Winograd with the transformed w1, w2
 *   in U1, U2 when U1 is not NULL, else in the play precision when k >= 0
 *   (w1's place for conv3x3, w2's the next). */
static void block_forward(gt_nn *nn, cpu *c, const gt_nn_block_views *bp, int B, int n,
                          const float *U1, const float *U2, int k, const float *x, float *v,
                          float *z, float *y)
{
	int C = nn->arch.channels;
	size_t BN = (size_t)B * n * n;
	double t0 = nn->profile ? gt_now() : 0;
	conv3x3(c, &nn->arch, x, C, C, B, n, bp->w1, U1, k, bp->b1, v, 1);
	if (bp->gpool)
		gpool_forward(c, bp, C, B, n, v);
	conv3x3(c, &nn->arch, v, C - bp->gpool, C, B, n, bp->w2, U1 ? U2 : NULL,
	        k >= 0 ? k + 1 : -1, bp->b2, z, 1);
	if (nn->profile)
		nn->prof_conv_s += gt_now() - t0;
	float s = bp->s[0];
	for (size_t i = 0; i < (size_t)C * BN; i++)
		y[i] = x[i] + s * z[i];
}

/* dx (C x BN): the gradient of y on entry, of x on return (dy passes
 * through the skip; the block's part is added); adds the gradients of
 * w1, b1, w2, b2, s into bg. Uses dV. l: the block's index (its packs of
 * the flipped kernels when the last forward was in bfloat16). */
static void block_backward(cpu *c, const gt_arch *a, const gt_nn_block_views *bp,
                           const gt_nn_block_views *bg, int l, int B, int n, const float *x,
                           const float *v, const float *z, float *dx)
{
	int C = a->channels, bf = c->lowp_now == GT_PREC_BF16;
	const uint16_t *wb1 = bf ? c->wbt + packt_at(a, 1 + 2 * l) : NULL;
	const uint16_t *wb2 = bf ? c->wbt + packt_at(a, 2 + 2 * l) : NULL;
	size_t BN = (size_t)B * n * n;
	float s = bp->s[0], *dv = c->act.dV;
	bg->s[0] += (float)dot_f(dx, z, (size_t)C * BN);
	/* z = conv(relu(v)) + b2, dz = s dy */
	for (int o = 0; o < C; o++)
		bg->b2[o] += (float)(s * sum_f(dx + o * BN, BN));
	conv3x3_back(c, v, C - bp->gpool, C, B, n, bp->w2, dx, s, bg->w2, dv, 1, 0, wb2);
	if (bp->gpool)
		gpool_backward(c, bp, bg, C, B, n, v, dv);
	rowsum_add(dv, C, BN, bg->b1);
	/* v = conv(relu(x)) + b1 */
	conv3x3_back(c, x, C, C, B, n, bp->w1, dv, 1.0f, bg->w1, dx, 1, 1, wb1);
}

/* The logits of one output channel of the policy head from P (Hp x BN)
 * and its pooled gp (B x 2Hp): point logits ow . P + ob, pass logit
 * pw . gp + pb, into out (B x (N+1), pass last). */
static void policy_logits(cpu *c, int Hp, int B, int n, const float *ow, const float *ob,
                          const float *pw, const float *pb, float *out)
{
	acts *v = &c->act;
	size_t N = (size_t)n * n, BN = B * N;
	cblas_sgemv(CblasRowMajor, CblasTrans, Hp, (int)BN, 1.0f, v->P, (int)BN,
	            ow, 1, 0.0f, v->tmp, 1);
	for (int b = 0; b < B; b++) {
		float *row = out + b * (N + 1);
		for (size_t q = 0; q < N; q++)
			row[q] = v->tmp[b * N + q] + ob[0];
		float s = pb[0];
		for (int j = 0; j < 2 * Hp; j++)
			s += pw[j] * v->gp[b * 2 * Hp + j];
		row[N] = s;
	}
}

/* Policy head: P (Hp x BN) = relu(pol_w T + pol_b); point logits
 * pol_ow . P + pol_ob; gp (B x 2Hp) = pool(P); pass logit pol_pw . gp +
 * pol_pb; into policy (B x (N+1), pass last); the auxiliary policy the
 * same by pol_aw, pol_ab, pol_apw, pol_apb into apolicy. */
static void policy_forward(cpu *c, const gt_arch *a, int B, int n)
{
	const gt_nn_views *p = &c->p;
	acts *v = &c->act;
	int C = a->channels, Hp = a->head_policy;
	size_t N = (size_t)n * n, BN = B * N;
	conv1x1_relu(v->T, C, Hp, BN, p->pol_w, p->pol_b, v->P);
	pool(v->P, Hp, B, n, v->gp);
	policy_logits(c, Hp, B, n, p->pol_ow, p->pol_ob, p->pol_pw, p->pol_pb, v->policy);
	if (p->pol_aw)
		policy_logits(c, Hp, B, n, p->pol_aw, p->pol_ab, p->pol_apw, p->pol_apb, v->apolicy);
}

/* The gradients of one output channel's parameters (gow, gob, gpw, gpb)
 * from the gradients of its logits dl (BN) and dpass (B). */
static void policy_out_grads(cpu *c, int Hp, int B, int n, const float *dl, const float *dpass,
                             float *gow, float *gob, float *gpw, float *gpb)
{
	acts *v = &c->act;
	size_t N = (size_t)n * n, BN = B * N;
	for (int h = 0; h < Hp; h++) {
		double sw = 0;
		const float *P = v->P + h * BN;
		for (size_t i = 0; i < BN; i++)
			sw += (double)dl[i] * P[i];
		gow[h] += (float)sw;
	}
	for (int b = 0; b < B; b++) {
		double s = 0;
		for (size_t q = 0; q < N; q++)
			s += dl[b * N + q];
		gob[0] += (float)s;
		gpb[0] += dpass[b];
		for (int j = 0; j < 2 * Hp; j++)
			gpw[j] += dpass[b] * v->gp[b * 2 * Hp + j];
	}
}

/* From dpoint (BN) and dpass (B), the gradients of the logits (and
 * dapoint, dapass of the auxiliary policy's): dP and the head's parameter
 * gradients; dT (C x BN) = the gradient of T through this head (stored). */
static void policy_backward(cpu *c, const gt_arch *a, int B, int n, float *dT)
{
	const gt_nn_views *p = &c->p, *g = &c->g;
	acts *v = &c->act;
	int C = a->channels, Hp = a->head_policy, aux = p->pol_aw != NULL;
	size_t N = (size_t)n * n, BN = B * N;
	float pscale = (float)(n - 14) / 10.0f;
	policy_out_grads(c, Hp, B, n, v->dpoint, v->dpass, g->pol_ow, g->pol_ob, g->pol_pw,
	                 g->pol_pb);
	if (aux)
		policy_out_grads(c, Hp, B, n, v->dapoint, v->dapass, g->pol_aw, g->pol_ab, g->pol_apw,
		                 g->pol_apb);
	for (int h = 0; h < Hp; h++) {
		const float *P = v->P + h * BN;
		float *dP = v->dP + h * BN;
		for (int b = 0; b < B; b++) {
			const float *dl = v->dpoint + b * N;
			float dpool = (p->pol_pw[h] + p->pol_pw[Hp + h] * pscale) * v->dpass[b] / N;
			for (size_t q = 0; q < N; q++) {
				float d = p->pol_ow[h] * dl[q] + dpool;
				dP[b * N + q] = P[b * N + q] > 0 ? d : 0;
			}
			if (!aux)
				continue;
			const float *da = v->dapoint + b * N;
			float apool = (p->pol_apw[h] + p->pol_apw[Hp + h] * pscale) * v->dapass[b] / N;
			for (size_t q = 0; q < N; q++)
				if (P[b * N + q] > 0)
					dP[b * N + q] += p->pol_aw[h] * da[q] + apool;
		}
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Hp, C, (int)BN, 1.0f,
	            v->dP, (int)BN, v->T, (int)BN, 1.0f, g->pol_w, C);
	rowsum_add(v->dP, Hp, BN, g->pol_b);
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, C, (int)BN, Hp, 1.0f,
	            p->pol_w, C, v->dP, (int)BN, 0.0f, dT, (int)BN);
}

/* Value head: Vh (Hv x BN) = relu(val_w T + val_b), gv (B x 2Hv) =
 * pool(Vh), hid (B x H) = relu(fc1 gv), vpre = fc2 . hid, value =
 * tanh(vpre), sraw = score.w . hid + score.b, score = 20 sraw; ownership
 * opre (BN) = own_w . Vh + own_b, own = tanh(opre). */
static void value_forward(cpu *c, const gt_arch *a, int B, int n)
{
	const gt_nn_views *p = &c->p;
	acts *v = &c->act;
	int C = a->channels, Hv = a->head_value, H = a->value_hidden;
	size_t N = (size_t)n * n, BN = B * N;
	conv1x1_relu(v->T, C, Hv, BN, p->val_w, p->val_b, v->Vh);
	pool(v->Vh, Hv, B, n, v->gv);
	for (int b = 0; b < B; b++) {
		float *h = v->hid + b * H, val = p->fc2_b[0], s = p->sc_b[0];
		for (int k = 0; k < H; k++) {
			float u = p->fc1_b[k];
			for (int j = 0; j < 2 * Hv; j++)
				u += p->fc1_w[k * 2 * Hv + j] * v->gv[b * 2 * Hv + j];
			h[k] = u > 0 ? u : 0;
			val += p->fc2_w[k] * h[k];
			s += p->sc_w[k] * h[k];
		}
		v->vpre[b] = val;
		v->value[b] = tanhf(val);
		v->sraw[b] = s;
		v->score[b] = GT_NN_SCORE_SCALE * s;
	}
	cblas_sgemv(CblasRowMajor, CblasTrans, Hv, (int)BN, 1.0f, v->Vh, (int)BN,
	            p->own_w, 1, 0.0f, v->opre, 1);
	for (size_t i = 0; i < BN; i++) {
		v->opre[i] += p->own_b[0];
		v->own[i] = tanhf(v->opre[i]);
	}
}

/* From dvpre, dsr (B) and dopre (BN): the value MLP's, the score's, the
 * ownership's and the value channels' gradients; the gradient of T
 * through this head is added to dT (C x BN). */
static void value_backward(cpu *c, const gt_arch *a, int B, int n, float *dT)
{
	const gt_nn_views *p = &c->p, *g = &c->g;
	acts *v = &c->act;
	int C = a->channels, Hv = a->head_value, H = a->value_hidden;
	size_t N = (size_t)n * n, BN = B * N;
	float pscale = (float)(n - 14) / 10.0f;
	/* value and score MLP */
	for (int b = 0; b < B; b++) {
		float dv = v->dvpre[b], ds = v->dsr[b], *h = v->hid + b * H;
		float *dh = v->dhid + b * H;
		g->fc2_b[0] += dv;
		g->sc_b[0] += ds;
		for (int k = 0; k < H; k++) {
			g->fc2_w[k] += dv * h[k];
			g->sc_w[k] += ds * h[k];
			dh[k] = h[k] > 0 ? p->fc2_w[k] * dv + p->sc_w[k] * ds : 0;
			g->fc1_b[k] += dh[k];
			for (int j = 0; j < 2 * Hv; j++)
				g->fc1_w[k * 2 * Hv + j] += dh[k] * v->gv[b * 2 * Hv + j];
		}
		for (int j = 0; j < 2 * Hv; j++) {
			float s = 0;
			for (int k = 0; k < H; k++)
				s += p->fc1_w[k * 2 * Hv + j] * dh[k];
			v->dgv[b * 2 * Hv + j] = s;
		}
	}
	/* ownership and the value channels */
	{
		double s = 0;
		for (size_t i = 0; i < BN; i++)
			s += v->dopre[i];
		g->own_b[0] += (float)s;
	}
	for (int h = 0; h < Hv; h++) {
		const float *Vh = v->Vh + h * BN;
		float *dVh = v->dVh + h * BN;
		double sw = 0;
		for (int b = 0; b < B; b++) {
			float dpool = (v->dgv[b * 2 * Hv + h] + v->dgv[b * 2 * Hv + Hv + h] * pscale) / N;
			for (size_t q = 0; q < N; q++) {
				size_t i = b * N + q;
				sw += (double)v->dopre[i] * Vh[i];
				float d = p->own_w[h] * v->dopre[i] + dpool;
				dVh[i] = Vh[i] > 0 ? d : 0;
			}
		}
		g->own_w[h] += (float)sw;
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Hv, C, (int)BN, 1.0f,
	            v->dVh, (int)BN, v->T, (int)BN, 1.0f, g->val_w, C);
	rowsum_add(v->dVh, Hv, BN, g->val_b);
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, C, (int)BN, Hv, 1.0f,
	            p->val_w, C, v->dVh, (int)BN, 1.0f, dT, (int)BN);
}

/* ------------------------------------------------------------ network */

static int cpu_forward(gt_nn *nn, int B, int n, const float *planes,
                       const float *globals, int train)
{
	cpu *c = nn->state;
	const gt_arch *a = &nn->arch;
	int L = a->blocks, C = a->channels;
	size_t BN = (size_t)B * n * n;
	ensure(nn, c, B, n, train);
	c->batch = B;
	c->n = n;
	c->trained = train;
	acts *v = &c->act;
	size_t layer = train ? (size_t)C * c->cap_bn : 0; /* X[l] = X + l layer */
	/* bfloat16 or int8 in play forwards as gt_nn_precision asked,
	 * bfloat16 in training as gt_nn_train_precision asked (and then in
	 * the backward's input gradients: bf16_back_weights); else oneDNN or
	 * Winograd in training forwards too, chosen by board and batch (a
	 * training step's outputs depend on its batch anyway), and then for
	 * the input gradients of the backward */
	c->lowp_now = train ? c->tprec : c->prec;
	int bf = c->lowp_now != GT_PREC_FP32;
	int mode = train ? gt_conv_batch_mode(c->conv_mode, 1) : c->conv_mode;
	c->dnn_now = !bf && gt_conv_onednn(mode);
	int wino = !bf && !c->dnn_now && gt_conv_winograd(mode, n, B) && wino_filters(nn, c) == 0;
	c->train_wino = train && wino;
	c->wgrad_dnn = train && mode != GT_CONV_IM2COL;
	if (bf)
		lowp_weights(nn, c);
	if (train && c->lowp_now == GT_PREC_BF16)
		bf16_back_weights(nn, c);

	input_forward(c, a, B, n, planes, globals, wino ? c->wu : NULL, bf ? 0 : -1, v->X);
	for (int l = 0; l < L; l++)
		block_forward(nn, c, &c->p.blk[l], B, n, wino ? c->wu + wino_at(a, 1 + 2 * l) : NULL,
		              wino ? c->wu + wino_at(a, 2 + 2 * l) : NULL, bf ? 1 + 2 * l : -1,
		              v->X + l * layer,
		              v->V + l * layer, v->Z + l * layer, v->X + (l + 1) * layer);
	relu_copy(v->T, v->X + L * layer, (size_t)C * BN);
	policy_forward(c, a, B, n);
	value_forward(c, a, B, n);

	nn->out.batch = B;
	nn->out.n = n;
	nn->out.policy = v->policy;
	nn->out.value = v->value;
	nn->out.score = v->score;
	nn->out.own = v->own;
	nn->out.aux_policy = c->p.pol_aw ? v->apolicy : NULL;
	return 0;
}

static int cpu_backward(gt_nn *nn, const gt_nn_target *t, const gt_nn_lossw *w,
                        gt_nn_loss *loss, int grads)
{
	cpu *c = nn->state;
	const gt_arch *a = &nn->arch;
	int B = c->batch, n = c->n, L = a->blocks, C = a->channels;
	size_t N = (size_t)n * n, BN = B * N;
	if (!c->batch)
		return GT_EINVAL;
	if (grads && !c->trained)
		return GT_EINVAL;
	acts *v = &c->act;

	/* the loss and its gradient with respect to the head outputs */
	gt_nn_heads heads = {v->policy, v->vpre, v->sraw, v->opre,
	                     c->p.pol_aw ? v->apolicy : NULL};
	gt_nn_dheads dheads = {v->dpoint, v->dpass, v->dvpre, v->dsr, v->dopre, v->dapoint,
	                       v->dapass};
	gt_nn_head_loss(B, N, &heads, t, w, loss, grads ? &dheads : NULL);
	if (!grads)
		return 0;

	size_t layer = (size_t)C * c->cap_bn;
	float *dX = v->dX;  /* the gradient of T, then of X[L], ..., X[0] */
	policy_backward(c, a, B, n, dX);
	value_backward(c, a, B, n, dX);
	mask_pos(dX, v->X + L * layer, (size_t)C * BN);
	for (int l = L - 1; l >= 0; l--)
		block_backward(c, a, &c->p.blk[l], &c->g.blk[l], l, B, n, v->X + l * layer,
		               v->V + l * layer, v->Z + l * layer, dX);
	input_backward(c, a, B, n, dX);
	return 0;
}

static void cpu_conv_batch(gt_nn *nn, int on)
{
	cpu *c = nn->state;
	c->conv_mode = gt_conv_batch_mode(c->conv_mode, on);
}

static int cpu_precision(gt_nn *nn, int prec, const char **why)
{
	cpu *c = nn->state;
	/* global pooling blocks too: their convolutions are packed with the
	 * regular channels' count (conv_cin), the pooling and its biases stay
	 * float32 */
	c->prec = prec == GT_PREC_BF16 && gt_bf16_available(why) ? GT_PREC_BF16
	          : prec == GT_PREC_INT8 && gt_int8_available(why) ? GT_PREC_INT8 : GT_PREC_FP32;
	return c->prec;
}

/* Mixed precision (nn.h gt_nn_train_precision): the 3x3 convolutions'
 * products in bfloat16 and their sums in float32, forward and input
 * gradients, from float32 master weights. bfloat16 keeps float32's
 * exponent range, so small gradients do not flush to zero as they would
 * in float16: no loss scaling is needed, only the 2^-8 relative rounding
 * of each factor. Global pooling blocks are trained this way too (their
 * pooling, as every layer but the 3x3 convolutions, stays float32). */
static int cpu_train_precision(gt_nn *nn, int prec, const char **why)
{
	cpu *c = nn->state;
	if (why)
		*why = NULL;
	if (prec == GT_PREC_INT8) {
		if (why)
			*why = "int8 is a play precision, not a training one";
		return c->tprec = GT_PREC_FP32;
	}
	c->tprec = prec == GT_PREC_BF16 && gt_bf16_available(why) ? GT_PREC_BF16 : GT_PREC_FP32;
	return c->tprec;
}

const gt_nn_backend gt_nn_backend_cpu = {
	.name = "cpu",
	.init = cpu_init,
	.release = cpu_release,
	.sync_params = cpu_sync,
	.conv_batch = cpu_conv_batch,
	.precision = cpu_precision,
	.train_precision = cpu_train_precision,
	.forward = cpu_forward,
	.backward = cpu_backward,
};
