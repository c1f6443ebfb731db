/*
 * nn_cpu.c: the CPU backend of lib/nn: convolutions as im2col + OpenBLAS
 * cblas_sgemm. Activations are kept channel-major over the whole batch,
 * [c][b*N + p] (N = n*n), so a convolution is a few large GEMMs of
 * (Cout x Cin*9) by (Cin*9 x columns), one per chunk of whole boards of
 * about 1024 columns (the im2col buffer stays in cache); inputs arrive
 * NCHW and are transposed once. Backward recomputes the im2col of the
 * layer inputs and gets input gradients as convolutions with flipped,
 * transposed kernels. See nn.h for the network and the loss.
 */
#include "nn.h"
#include "nn_backend.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct cpu {
	size_t cap_bn;     /* B*N the buffers hold */
	int cap_b, cap_train;
	int batch, n, trained; /* last forward; trained: activations kept */
	gt_nn_views p, g;
	float *xin, *glob, *col, *dcol, *rbuf;
	float *wt;         /* C x C*9: a block kernel transposed and flipped */
	float **Xo, **Vo, **Zo; /* owned: blocks+1, blocks, blocks (or 1, 1, 1) */
	float **X, **V, **Z;    /* this forward's views (aliases in play) */
	float *T, *P, *Vh, *gp, *gv, *hid, *vpre, *sraw, *opre;
	float *policy, *value, *score, *own, *tmp;
	float *dX, *dV, *dP, *dVh, *dpoint, *dpass, *dvpre, *dsr, *dopre, *dhid, *dgv;
} cpu;

/* Convolutions run over chunks of whole boards, about chunk_cols
 * columns each (at most max(chunk_cols, n*n)), so that the im2col buffer stays in cache and is small. */
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


static int cpu_init(gt_nn *nn)
{
	cpu *c = gt_xcalloc(1, sizeof *c);
	int L = nn->arch.blocks;
	gt_nn_views_init(&c->p, nn, nn->params);
	gt_nn_views_init(&c->g, nn, nn->grads);
	c->wt = gt_xmalloc(sizeof(float) * nn->arch.channels * nn->arch.channels * 9);
	c->X = gt_xcalloc((size_t)L + 1, sizeof(float *));
	c->V = gt_xcalloc((size_t)L, sizeof(float *));
	c->Z = gt_xcalloc((size_t)L, sizeof(float *));
	c->Xo = gt_xcalloc((size_t)L + 1, sizeof(float *));
	c->Vo = gt_xcalloc((size_t)L, sizeof(float *));
	c->Zo = gt_xcalloc((size_t)L, sizeof(float *));
	nn->state = c;
	return 0;
}

#define FREE_BUFS(c) do { \
	free(c->xin); free(c->glob); free(c->col); free(c->dcol); free(c->rbuf); \
	free(c->T); free(c->P); free(c->Vh); free(c->gp); free(c->gv); \
	free(c->hid); free(c->vpre); free(c->sraw); free(c->opre); \
	free(c->policy); free(c->value); free(c->score); free(c->own); free(c->tmp); \
	free(c->dX); free(c->dV); free(c->dP); free(c->dVh); \
	free(c->dpoint); free(c->dpass); free(c->dvpre); free(c->dsr); free(c->dopre); \
	free(c->dhid); free(c->dgv); } while (0)

static void free_acts(gt_nn *nn, cpu *c)
{
	int L = nn->arch.blocks;
	int nx = c->cap_train ? L + 1 : 1, nv = c->cap_train ? L : 1;
	for (int l = 0; l < nx; l++) {
		free(c->Xo[l]);
		c->Xo[l] = NULL;
	}
	for (int l = 0; l < nv; l++) {
		free(c->Vo[l]);
		free(c->Zo[l]);
		c->Vo[l] = c->Zo[l] = NULL;
	}
	FREE_BUFS(c);
}

static void cpu_release(gt_nn *nn)
{
	cpu *c = nn->state;
	free_acts(nn, c);
	gt_nn_views_release(&c->p);
	gt_nn_views_release(&c->g);
	free(c->X);
	free(c->V);
	free(c->Z);
	free(c->wt);
	free(c->Xo);
	free(c->Vo);
	free(c->Zo);
	free(c);
	nn->state = NULL;
}

static int cpu_sync(gt_nn *nn)
{
	return 0;
}

static float *fbuf(size_t n)
{
	return gt_xmalloc((n ? n : 1) * sizeof(float));
}

/* Make room for batch x n (and the training activations if train). */
static void ensure(gt_nn *nn, cpu *c, int batch, int n, int train)
{
	size_t bn = (size_t)batch * n * n;
	if (bn <= c->cap_bn && batch <= c->cap_b && (!train || c->cap_train))
		return;
	int L = nn->arch.blocks;
	size_t B = (size_t)(batch > c->cap_b ? batch : c->cap_b);
	size_t cb = bn > c->cap_bn ? bn : c->cap_bn;
	int tr = train || c->cap_train;
	const gt_arch *a = &nn->arch;
	size_t C = a->channels, Hp = a->head_policy, Hv = a->head_value;
	size_t kmax = (size_t)(a->in_planes > a->channels ? a->in_planes : a->channels) * 9;
	size_t maxN = (size_t)a->max_n * a->max_n;
	free_acts(nn, c);
	c->cap_bn = cb;
	c->cap_b = (int)B;
	c->cap_train = tr;
	for (int l = 0; l < (tr ? L + 1 : 1); l++)
		c->Xo[l] = fbuf(C * cb);
	for (int l = 0; l < (tr ? L : 1); l++) {
		c->Vo[l] = fbuf(C * cb);
		c->Zo[l] = fbuf(C * cb);
	}
	c->xin = fbuf((size_t)a->in_planes * cb);
	c->glob = fbuf((size_t)a->globals * B);
	size_t ccols = maxN > GT_NN_CPU_CHUNK_MAX ? maxN : GT_NN_CPU_CHUNK_MAX;
	c->col = fbuf(kmax * ccols);
	c->rbuf = fbuf(kmax / 9 * ccols);
	c->T = fbuf(C * cb);
	c->P = fbuf(Hp * cb);
	c->Vh = fbuf(Hv * cb);
	c->gp = fbuf(2 * Hp * B);
	c->gv = fbuf(2 * Hv * B);
	c->hid = fbuf((size_t)a->value_hidden * B);
	c->vpre = fbuf(B);
	c->sraw = fbuf(B);
	c->opre = fbuf(cb);
	c->policy = fbuf(cb + B);
	c->value = fbuf(B);
	c->score = fbuf(B);
	c->own = fbuf(cb);
	c->tmp = fbuf(cb > C * B ? cb : C * B);
	c->dpoint = fbuf(cb);
	c->dpass = fbuf(B);
	c->dvpre = fbuf(B);
	c->dsr = fbuf(B);
	c->dopre = fbuf(cb);
	if (tr) {
		c->dcol = fbuf(kmax * ccols);
		c->dX = fbuf(C * cb);
		c->dV = fbuf(C * cb);
		c->dP = fbuf(Hp * cb);
		c->dVh = fbuf(Hv * cb);
		c->dhid = fbuf((size_t)a->value_hidden * B);
		c->dgv = fbuf(2 * Hv * B);
	}
}

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

/* im2col of boards b0..b0+nb-1 into c->col; with relu, the boards'
 * relu is first taken into c->rbuf in one vectorised pass */
static void im2col_chunk(cpu *c, const float *in, int Cin, size_t BN, int b0, int nb,
                         int n, float *col, int relu)
{
	size_t N = (size_t)n * n, nc = nb * N;
	if (!relu) {
		im2col(in, Cin, BN, b0, nb, n, col);
		return;
	}
	for (int ci = 0; ci < Cin; ci++)
		relu_copy(c->rbuf + ci * nc, in + ci * BN + b0 * N, nc);
	im2col(c->rbuf, Cin, nc, 0, nb, n, col);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* out (Cout x BN) = W (Cout x Cin*9) * im2col(in or relu(in)) + bias[c] */
static void conv3x3(cpu *c, const float *in, int Cin, int Cout, int B, int n,
                    const float *W, const float *bias, float *out, int relu)
{
	size_t N = (size_t)n * n, BN = B * N;
	int K = Cin * 9, step = chunk_boards(n);
	for (int b0 = 0; b0 < B; b0 += step) {
		int nb = B - b0 < step ? B - b0 : step;
		int nc = (int)(nb * N);
		im2col_chunk(c, in, Cin, BN, b0, nb, n, c->col, relu);
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Cout, nc, K,
		            1.0f, W, K, c->col, nc, 0.0f, out + b0 * N, (int)BN);
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
 * cache. */
static void conv3x3_back(cpu *c, const float *in, int Cin, int Cout, int B, int n,
                         const float *W, const float *dout, float alpha, float *dW,
                         float *din, int relu, int acc)
{
	size_t N = (size_t)n * n, BN = B * N;
	int K = Cin * 9, Kt = Cout * 9, step = chunk_boards(n);
	if (din)
		for (int ci = 0; ci < Cin; ci++)
			for (int co = 0; co < Cout; co++)
				for (int k = 0; k < 9; k++)
					c->wt[(size_t)ci * Kt + co * 9 + k] = W[(size_t)co * K + ci * 9 + 8 - k];
	for (int b0 = 0; b0 < B; b0 += step) {
		int nb = B - b0 < step ? B - b0 : step;
		int nc = (int)(nb * N);
		im2col_chunk(c, in, Cin, BN, b0, nb, n, c->col, relu);
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Cout, K, nc, alpha,
		            dout + b0 * N, (int)BN, c->col, nc, 1.0f, dW, K);
		if (!din)
			continue;
		im2col(dout, Cout, BN, b0, nb, n, c->dcol);
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Cin, nc, Kt, alpha,
		            c->wt, Kt, c->dcol, nc, 0.0f, c->rbuf, nc);
		for (int ci = 0; ci < Cin; ci++) {
			float *d = din + ci * BN + b0 * N;
			const float *g = c->rbuf + (size_t)ci * nc, *x = in + ci * BN + b0 * N;
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

static int cpu_forward(gt_nn *nn, int B, int n, const float *planes,
                       const float *globals, int train)
{
	cpu *c = nn->state;
	const gt_arch *a = &nn->arch;
	const gt_nn_views *p = &c->p;
	int L = a->blocks, C = a->channels, Cin = a->in_planes, G = a->globals;
	int Hp = a->head_policy, Hv = a->head_value, H = a->value_hidden;
	size_t N = (size_t)n * n, BN = B * N;
	ensure(nn, c, B, n, train);
	c->batch = B;
	c->n = n;
	c->trained = train;
	float **X = c->X, **V = c->V, **Z = c->Z;
	for (int l = 0; l <= L; l++) {
		X[l] = c->Xo[train ? l : 0];
		if (l < L) {
			V[l] = c->Vo[train ? l : 0];
			Z[l] = c->Zo[train ? l : 0];
		}
	}

	/* input: NCHW to [c][b*N+p], conv, bias and globals per channel */
	for (int b = 0; b < B; b++)
		for (int ci = 0; ci < Cin; ci++)
			memcpy(c->xin + ci * BN + b * N, planes + ((size_t)b * Cin + ci) * N,
			       sizeof(float) * N);
	if (G > 0)
		memcpy(c->glob, globals, sizeof(float) * B * G);
	conv3x3(c, c->xin, Cin, C, B, n, p->in_w, p->in_b, X[0], 0);
	for (int o = 0; o < C && G > 0; o++)
		for (int b = 0; b < B; b++) {
			float add = 0, *r = X[0] + o * BN + b * N;
			for (int g = 0; g < G; g++)
				add += p->in_g[o * G + g] * c->glob[b * G + g];
			for (size_t i = 0; i < N; i++)
				r[i] += add;
		}

	/* residual blocks */
	for (int l = 0; l < L; l++) {
		double t0 = nn->profile ? now() : 0;
		conv3x3(c, X[l], C, C, B, n, p->blk[l].w1, p->blk[l].b1, V[l], 1);
		conv3x3(c, V[l], C, C, B, n, p->blk[l].w2, p->blk[l].b2, Z[l], 1);
		if (nn->profile)
			nn->prof_conv_s += now() - t0;
		float s = p->blk[l].s[0];
		const float *x = X[l], *z = Z[l];
		float *y = X[l + 1];
		for (size_t i = 0; i < (size_t)C * BN; i++)
			y[i] = x[i] + s * z[i];
	}
	relu_copy(c->T, X[L], (size_t)C * BN);

	/* policy head */
	conv1x1_relu(c->T, C, Hp, BN, p->pol_w, p->pol_b, c->P);
	cblas_sgemv(CblasRowMajor, CblasTrans, Hp, (int)BN, 1.0f, c->P, (int)BN,
	            p->pol_ow, 1, 0.0f, c->tmp, 1);
	pool(c->P, Hp, B, n, c->gp);
	for (int b = 0; b < B; b++) {
		float *row = c->policy + b * (N + 1);
		for (size_t q = 0; q < N; q++)
			row[q] = c->tmp[b * N + q] + p->pol_ob[0];
		float s = p->pol_pb[0];
		for (int j = 0; j < 2 * Hp; j++)
			s += p->pol_pw[j] * c->gp[b * 2 * Hp + j];
		row[N] = s;
	}

	/* value, score and ownership */
	conv1x1_relu(c->T, C, Hv, BN, p->val_w, p->val_b, c->Vh);
	pool(c->Vh, Hv, B, n, c->gv);
	for (int b = 0; b < B; b++) {
		float *h = c->hid + b * H, v = p->fc2_b[0], s = p->sc_b[0];
		for (int k = 0; k < H; k++) {
			float u = p->fc1_b[k];
			for (int j = 0; j < 2 * Hv; j++)
				u += p->fc1_w[k * 2 * Hv + j] * c->gv[b * 2 * Hv + j];
			h[k] = u > 0 ? u : 0;
			v += p->fc2_w[k] * h[k];
			s += p->sc_w[k] * h[k];
		}
		c->vpre[b] = v;
		c->value[b] = tanhf(v);
		c->sraw[b] = s;
		c->score[b] = GT_NN_SCORE_SCALE * s;
	}
	cblas_sgemv(CblasRowMajor, CblasTrans, Hv, (int)BN, 1.0f, c->Vh, (int)BN,
	            p->own_w, 1, 0.0f, c->opre, 1);
	for (size_t i = 0; i < BN; i++) {
		c->opre[i] += p->own_b[0];
		c->own[i] = tanhf(c->opre[i]);
	}
	nn->out.batch = B;
	nn->out.n = n;
	nn->out.policy = c->policy;
	nn->out.value = c->value;
	nn->out.score = c->score;
	nn->out.own = c->own;
	return 0;
}

/* sum of x[0..n) and, if y, of x[i]*y[i]: 8 float lanes over blocks of
 * 512 (vectorisable), the blocks added in double */
static double sum_f(const float *x, size_t n)
{
	double s = 0;
	for (size_t i0 = 0; i0 < n; i0 += 512) {
		size_t e = n - i0 < 512 ? n - i0 : 512, i = 0;
		float l[8] = {0};
		for (; i + 8 <= e; i += 8)
			for (int j = 0; j < 8; j++)
				l[j] += x[i0 + i + j];
		for (; i < e; i++)
			l[0] += x[i0 + i];
		s += ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
	}
	return s;
}

static double dot_f(const float *x, const float *y, size_t n)
{
	double s = 0;
	for (size_t i0 = 0; i0 < n; i0 += 512) {
		size_t e = n - i0 < 512 ? n - i0 : 512, i = 0;
		float l[8] = {0};
		for (; i + 8 <= e; i += 8)
			for (int j = 0; j < 8; j++)
				l[j] += x[i0 + i + j] * y[i0 + i + j];
		for (; i < e; i++)
			l[0] += x[i0 + i] * y[i0 + i];
		s += ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
	}
	return s;
}

static void rowsum_add(const float *m, int rows, size_t cols, float *acc)
{
	for (int r = 0; r < rows; r++)
		acc[r] += (float)sum_f(m + r * cols, cols);
}

static int cpu_backward(gt_nn *nn, const gt_nn_target *t, const gt_nn_lossw *w,
                        gt_nn_loss *loss, int grads)
{
	cpu *c = nn->state;
	const gt_arch *a = &nn->arch;
	const gt_nn_views *p = &c->p, *g = &c->g;
	int B = c->batch, n = c->n;
	int L = a->blocks, C = a->channels, Cin = a->in_planes, G = a->globals;
	int Hp = a->head_policy, Hv = a->head_value, H = a->value_hidden;
	size_t N = (size_t)n * n, BN = B * N;
	if (!c->batch)
		return GT_EINVAL;
	if (grads && !c->trained)
		return GT_EINVAL;

	/* loss and its gradient with respect to the head outputs */
	gt_nn_heads heads = {c->policy, c->vpre, c->sraw, c->opre};
	gt_nn_dheads dheads = {c->dpoint, c->dpass, c->dvpre, c->dsr, c->dopre};
	gt_nn_head_loss(B, N, &heads, t, w, loss, grads ? &dheads : NULL);
	if (!grads)
		return 0;

	float pscale = (float)(n - 14) / 10.0f;
	/* policy head */
	for (int h = 0; h < Hp; h++) {
		double sw = 0;
		const float *P = c->P + h * BN;
		float *dP = c->dP + h * BN;
		for (int b = 0; b < B; b++) {
			const float *dl = c->dpoint + b * N;
			float gpass = c->dpass[b];
			float dpool = (p->pol_pw[h] + p->pol_pw[Hp + h] * pscale) * gpass / N;
			for (size_t q = 0; q < N; q++) {
				sw += (double)dl[q] * P[b * N + q];
				float v = p->pol_ow[h] * dl[q] + dpool;
				dP[b * N + q] = P[b * N + q] > 0 ? v : 0;
			}
		}
		g->pol_ow[h] += (float)sw;
	}
	for (int b = 0; b < B; b++) {
		const float *dl = c->dpoint + b * N;
		double s = 0;
		for (size_t q = 0; q < N; q++)
			s += dl[q];
		g->pol_ob[0] += (float)s;
		g->pol_pb[0] += c->dpass[b];
		for (int j = 0; j < 2 * Hp; j++)
			g->pol_pw[j] += c->dpass[b] * c->gp[b * 2 * Hp + j];
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Hp, C, (int)BN, 1.0f,
	            c->dP, (int)BN, c->T, (int)BN, 1.0f, g->pol_w, C);
	rowsum_add(c->dP, Hp, BN, g->pol_b);
	float *dT = c->dX;
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, C, (int)BN, Hp, 1.0f,
	            p->pol_w, C, c->dP, (int)BN, 0.0f, dT, (int)BN);

	/* value and score MLP */
	for (int b = 0; b < B; b++) {
		float dv = c->dvpre[b], ds = c->dsr[b], *h = c->hid + b * H;
		float *dh = c->dhid + b * H;
		g->fc2_b[0] += dv;
		g->sc_b[0] += ds;
		for (int k = 0; k < H; k++) {
			g->fc2_w[k] += dv * h[k];
			g->sc_w[k] += ds * h[k];
			dh[k] = h[k] > 0 ? p->fc2_w[k] * dv + p->sc_w[k] * ds : 0;
			g->fc1_b[k] += dh[k];
			for (int j = 0; j < 2 * Hv; j++)
				g->fc1_w[k * 2 * Hv + j] += dh[k] * c->gv[b * 2 * Hv + j];
		}
		for (int j = 0; j < 2 * Hv; j++) {
			float s = 0;
			for (int k = 0; k < H; k++)
				s += p->fc1_w[k * 2 * Hv + j] * dh[k];
			c->dgv[b * 2 * Hv + j] = s;
		}
	}
	/* ownership and the value channels */
	{
		double s = 0;
		for (size_t i = 0; i < BN; i++)
			s += c->dopre[i];
		g->own_b[0] += (float)s;
	}
	for (int h = 0; h < Hv; h++) {
		const float *Vh = c->Vh + h * BN;
		float *dVh = c->dVh + h * BN;
		double sw = 0;
		for (int b = 0; b < B; b++) {
			float dpool = (c->dgv[b * 2 * Hv + h] + c->dgv[b * 2 * Hv + Hv + h] * pscale) / N;
			for (size_t q = 0; q < N; q++) {
				size_t i = b * N + q;
				sw += (double)c->dopre[i] * Vh[i];
				float v = p->own_w[h] * c->dopre[i] + dpool;
				dVh[i] = Vh[i] > 0 ? v : 0;
			}
		}
		g->own_w[h] += (float)sw;
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Hv, C, (int)BN, 1.0f,
	            c->dVh, (int)BN, c->T, (int)BN, 1.0f, g->val_w, C);
	rowsum_add(c->dVh, Hv, BN, g->val_b);
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, C, (int)BN, Hv, 1.0f,
	            p->val_w, C, c->dVh, (int)BN, 1.0f, dT, (int)BN);

	/* trunk: dX = dT * [x_L > 0], then the blocks in reverse */
	float *dX = c->dX;
	mask_pos(dX, c->X[L], (size_t)C * BN);
	for (int l = L - 1; l >= 0; l--) {
		float s = p->blk[l].s[0];
		const float *Z = c->Z[l], *V = c->V[l], *X = c->X[l];
		g->blk[l].s[0] += (float)dot_f(dX, Z, (size_t)C * BN);
		/* z = conv(relu(v)) + b2, dz = s dX */
		for (int o = 0; o < C; o++)
			g->blk[l].b2[o] += (float)(s * sum_f(dX + o * BN, BN));
		conv3x3_back(c, V, C, C, B, n, p->blk[l].w2, dX, s, g->blk[l].w2, c->dV, 1, 0);
		rowsum_add(c->dV, C, BN, g->blk[l].b1);
		/* v = conv(relu(x)) + b1 */
		conv3x3_back(c, X, C, C, B, n, p->blk[l].w1, c->dV, 1.0f, g->blk[l].w1, dX, 1, 1);
	}

	/* input convolution, its bias and the globals */
	rowsum_add(dX, C, BN, g->in_b);
	for (int o = 0; o < C && G > 0; o++)
		for (int b = 0; b < B; b++) {
			double s = 0;
			const float *r = dX + o * BN + b * N;
			for (size_t q = 0; q < N; q++)
				s += r[q];
			for (int k = 0; k < G; k++)
				g->in_g[o * G + k] += (float)s * c->glob[b * G + k];
		}
	conv3x3_back(c, c->xin, Cin, C, B, n, p->in_w, dX, 1.0f, g->in_w, NULL, 0, 0);
	return 0;
}

const gt_nn_backend gt_nn_backend_cpu = {
	.name = "cpu",
	.init = cpu_init,
	.release = cpu_release,
	.sync_params = cpu_sync,
	.forward = cpu_forward,
	.backward = cpu_backward,
};
