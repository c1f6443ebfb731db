/*
 * nn_cuda.cu: the CUDA backend of lib/nn ("cuda"; see nn.h for the
 * network and the loss, lib/nn/nn_cpu.c for the reference it is tested
 * against, lib/nn/gpu.h for selection).
 *
 * Layout as on the CPU: activations channel-major over the whole batch,
 * [c][b*N + p] (N = n*n), FP32 on the device. A 3x3 convolution is an
 * explicit im2col into BF16 (relu and a scale fused) and ONE cuBLAS GEMM
 * (Cout x Cin*9) by (Cin*9 x B*N) on BF16 tensor cores with FP32
 * accumulation and FP32 output. Its input gradient is the same
 * convolution of the output gradient with the flipped, transposed kernel
 * (W'[ci][co][8-k] = W[co][ci][k]), so backward needs no col2im. The
 * 1x1 heads are FP32 cuBLAS SGEMMs; pooling, the value MLP and every
 * elementwise step are kernels below.
 *
 * Weights: FP32 master copy on the device (uploaded from nn->params by
 * sync_params) plus BF16 copies of the 3x3 kernels and their flips.
 * Gradients: computed into a device FP32 array, then copied to the host
 * and added to nn->grads (the host arrays are the master copies that the
 * optimizer sees). Buffers are allocated for the largest (batch, n,
 * train) seen and reused; per call only the inputs (planes, globals), the
 * outputs and the loss's output gradients cross the bus.
 *
 * The loss and its gradient with respect to the head outputs are computed
 * on the host in double from the downloaded outputs (O(batch * N) work)
 * by gt_nn_head_loss (nn_loss.c), the code the CPU backend calls.
 *
 * Every CUDA and cuBLAS call is checked; a failure is written to
 * nn->errtext (gt_nn_error) and returned as GT_EIO (GT_ENOMEM when
 * device memory ran out). Nothing here prints.
 *
 * One network is used by one thread at a time (as on the CPU). Create
 * networks after any fork(): the CUDA runtime does not survive one.
 * Tests: tests/unit/nn_cuda*.c and tests/gpu/run on a GPU;
 * tests/gpu/mock/run runs this file on the host, without a GPU, against
 * a mock of the runtime and cuBLAS (GT_CUDA_MOCK: k_rowdot and k_pool
 * are then replaced by sequential versions).
 */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "nn.h"
#include "nn_backend.h"
#include "util.h"
int gt_cuda_probe(char *text, size_t len);
}

#define GT_STR2(x) #x
#define GT_STR(x) GT_STR2(x)
typedef __nv_bfloat16 bf16;

#ifndef GT_CUDA_MOCK
#include <dlfcn.h>
#include <pthread.h>
/* cuBLAS is opened with dlopen when a network starts on this backend, not
 * linked: linking it costs every gt command about 200 MB of resident memory
 * for its relocations, also on machines that never use a GPU. */
static struct {
	decltype(&cublasCreate_v2) create;
	decltype(&cublasDestroy_v2) destroy;
	decltype(&cublasSetStream_v2) set_stream;
	decltype(&cublasSgemm_v2) sgemm;
	cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
	                          const void *, const void *, cudaDataType, int, const void *,
	                          cudaDataType, int, const void *, void *, cudaDataType, int,
	                          cublasComputeType_t, cublasGemmAlgo_t);
	decltype(&cublasGetStatusString) status_string;
	char why[200];
} blas;
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;

static void blas_open(void)
{
	const char *names[] = {"libcublas.so." GT_STR(CUBLAS_VER_MAJOR), "libcublas.so"};
	void *h = NULL;
	for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(blas.why, sizeof blas.why, "cannot load cuBLAS: %s", dlerror());
		return;
	}
#define SYM(f, name) do { *(void **)&blas.f = dlsym(h, name); \
	if (!blas.f) { snprintf(blas.why, sizeof blas.why, "cuBLAS has no %s", name); return; } } while (0)
	SYM(create, "cublasCreate_v2");
	SYM(destroy, "cublasDestroy_v2");
	SYM(set_stream, "cublasSetStream_v2");
	SYM(sgemm, "cublasSgemm_v2");
	SYM(gemm_ex, "cublasGemmEx");
	SYM(status_string, "cublasGetStatusString");
#undef SYM
}

/* blas_load: 0 when cuBLAS is usable, else -1 with the reason in why. */
static int blas_load(const char **why)
{
	pthread_once(&blas_once, blas_open);
	*why = blas.why;
	return blas.why[0] ? -1 : 0;
}
#undef cublasCreate
#undef cublasDestroy
#undef cublasSetStream
#undef cublasSgemm
#define cublasCreate blas.create
#define cublasDestroy blas.destroy
#define cublasSetStream blas.set_stream
#define cublasSgemm blas.sgemm
#define cublasGemmEx blas.gemm_ex
#define cublasGetStatusString blas.status_string
#else
static int blas_load(const char **why)
{
	*why = "";
	return 0;
}
#endif

/* ---------------------------------------------------------------- errors */

static int seterr(gt_nn *nn, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(nn->errtext, sizeof nn->errtext, fmt, ap);
	va_end(ap);
	return code;
}

static int cuda_fail(gt_nn *nn, cudaError_t e, const char *call, int line)
{
	cudaGetLastError(); /* clear a non-sticky error */
	return seterr(nn, e == cudaErrorMemoryAllocation ? GT_ENOMEM : GT_EIO,
	              "cuda: %s: %s (nn_cuda.cu:%d)", call, cudaGetErrorString(e), line);
}

static int blas_fail(gt_nn *nn, cublasStatus_t s, const char *call, int line)
{
	return seterr(nn, s == CUBLAS_STATUS_ALLOC_FAILED ? GT_ENOMEM : GT_EIO,
	              "cublas: %s: %s (nn_cuda.cu:%d)", call, cublasGetStatusString(s), line);
}

/* CK/CB: return from the calling function (which has gt_nn *nn) on error. */
#define CK(call) do { cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) return cuda_fail(nn, e_, #call, __LINE__); } while (0)
#define CB(call) do { cublasStatus_t s_ = (call); \
	if (s_ != CUBLAS_STATUS_SUCCESS) return blas_fail(nn, s_, #call, __LINE__); } while (0)
/* After a kernel launch: launch errors (bad configuration) show here,
 * faults inside kernels at the next synchronising call. */
#define CL(what) CK(cudaGetLastError())
#define TRY(x) do { int r_ = (x); if (r_) return r_; } while (0)

/* ------------------------------------------------------------------ state */

typedef struct cu {
	cudaStream_t st;
	cublasHandle_t blas;
	float *dparam, *dgrad, *hgrad; /* device params and grads; pinned host grads */
	gt_nn_views p, g;              /* views of dparam and dgrad */
	bf16 *wbf;                     /* in_w, w1[l], w2[l], w1f[l], w2f[l] in BF16 */
	bf16 *in_wb, **w1b, **w2b, **w1f, **w2f;

	size_t cap_bn;
	int cap_b, cap_train;
	int batch, lay_b, n, trained; /* lay_b: the batch computed (see cu_forward) */
	float **X, **V, **Z;           /* this forward's activations (aliases in play) */
	float **Xo, **Vo, **Zo;        /* owned: L+1, L, L (1, 1, 1 without training) */
	float *in_raw, *xin, *glob;    /* NCHW planes and globals; planes channel-major */
	bf16 *col, *hb;                /* im2col (Kmax x BN); a BF16 C x BN operand */
	float *T, *P, *Vh, *gp, *gv, *hid, *red;
	float *dout;                   /* policy, value, score, own | vpre, sraw, opre */
	float *dX, *dV, *dU, *dP, *dVh, *dh, *dgv, *rsb, *dhead;
	float *hin, *hout, *hdhead;    /* pinned host copies */
} cu;

/* Offsets into the output block (floats), for batch B and N points. */
typedef struct outlay {
	size_t policy, value, score, own, vpre, sraw, opre, play, all;
} outlay;

static outlay out_layout(size_t B, size_t N)
{
	outlay o;
	o.policy = 0;
	o.value = o.policy + B * (N + 1);
	o.score = o.value + B;
	o.own = o.score + B;
	o.play = o.own + B * N;       /* what play downloads */
	o.vpre = o.play;
	o.sraw = o.vpre + B;
	o.opre = o.sraw + B;
	o.all = o.opre + B * N;
	return o;
}

/* Output gradients: dpoint (BN), dpass (B), dvpre (B), dsr (B), dopre (BN). */
typedef struct headlay {
	size_t point, pass, vpre, sr, opre, all;
} headlay;

static headlay head_layout(size_t B, size_t N)
{
	headlay h;
	h.point = 0;
	h.pass = B * N;
	h.vpre = h.pass + B;
	h.sr = h.vpre + B;
	h.opre = h.sr + B;
	h.all = h.opre + B * N;
	return h;
}

/* --------------------------------------------------------------- kernels */

#define THREADS 256
#define GSL(i, n) for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; \
	i < (n); i += (size_t)blockDim.x * gridDim.x)

static unsigned grid(size_t n)
{
	size_t b = (n + THREADS - 1) / THREADS;
	if (b < 1)
		b = 1;
	return (unsigned)(b > 1048576 ? 1048576 : b);
}

/* x over BN columns, y over rows (rows <= 65535) */
static dim3 grid2(size_t BN, int rows)
{
	return dim3(grid(BN), (unsigned)rows);
}

/* NCHW planes (B x Cin x N) to channel-major (Cin x B*N). */
__global__ void k_nchw_cm(const float *src, int B, int Cin, int N, float *dst)
{
	size_t total = (size_t)B * Cin * N, BN = (size_t)B * N;
	GSL(i, total) {
		size_t b = i / ((size_t)Cin * N), ci = (i / N) % Cin, p = i % N;
		dst[ci * BN + b * N + p] = src[i];
	}
}

/* col[(ci*9 + ky*3 + kx)][b*N + y*n + x] = f(in[ci][b, y+ky-1, x+kx-1]),
 * 0 off the board; f = relu when relu is set, times *scale when scale.
 * Grid: x over b*N + p, y over the Cin*9 rows (at most 9216 < 65536). */
__global__ void k_im2col(const float *in, int Cin, int B, int n, int relu,
                         const float *scale, bf16 *col)
{
	int N = n * n, BN = B * N, row = blockIdx.y, ci = row / 9, k = row % 9;
	int dy = k / 3 - 1, dx = k % 3 - 1;
	float sc = scale ? scale[0] : 1.0f;
	const float *src = in + (size_t)ci * BN;
	bf16 *dst = col + (size_t)row * BN;
	for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < BN; j += blockDim.x * gridDim.x) {
		int b = j / N, p = j - b * N, y = p / n, x = p - y * n;
		int yy = y + dy, xx = x + dx;
		float v = 0;
		if (yy >= 0 && yy < n && xx >= 0 && xx < n) {
			v = src[b * N + yy * n + xx];
			if (relu && !(v > 0))
				v = 0;
		}
		dst[j] = __float2bfloat16(v * sc);
	}
}

/* out[i] = bf16(in[i] * (*scale)) (scale may be NULL) */
__global__ void k_bf16(const float *in, size_t total, const float *scale, bf16 *out)
{
	float sc = scale ? scale[0] : 1.0f;
	GSL(i, total)
		out[i] = __float2bfloat16(in[i] * sc);
}

/* The flipped kernel of a 3x3 convolution W (C x C x 9):
 * wf[ci][co*9 + 8-k] = W[co][ci*9 + k]. */
__global__ void k_flip(const float *w, int C, bf16 *wf)
{
	size_t total = (size_t)C * C * 9;
	GSL(i, total) {
		size_t co = i / ((size_t)C * 9), ci = (i / 9) % C, k = i % 9;
		wf[ci * C * 9 + co * 9 + 8 - k] = __float2bfloat16(w[i]);
	}
}

/* X0[o][b*N+p] += in_b[o] + sum_g in_g[o][g] glob[b][g] */
__global__ void k_in_add(float *X0, int C, int B, int N, int G, const float *in_b,
                         const float *in_g, const float *glob)
{
	size_t BN = (size_t)B * N, total = (size_t)C * BN;
	GSL(i, total) {
		size_t o = i / BN, b = (i % BN) / N;
		float add = in_b[o];
		for (int g = 0; g < G; g++)
			add += in_g[o * G + g] * glob[b * G + g];
		X0[i] += add;
	}
}

/* out[o][i] = f(out[o][i] + bias[o]), f = relu when relu; grid y = channel */
__global__ void k_bias(float *out, int BN, const float *bias, int relu)
{
	float bb = bias[blockIdx.y];
	float *r = out + (size_t)blockIdx.y * BN;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < BN; i += blockDim.x * gridDim.x) {
		float v = r[i] + bb;
		r[i] = relu && !(v > 0) ? 0.0f : v;
	}
}

/* y = x + s[0] (z + b[c]) with c = blockIdx.y (grid2), the second
 * convolution's bias and the residual in one pass; z += b[c] as well when
 * keepz (training keeps z for the gradient of s). y may be x. */
__global__ void k_residual(const float *x, float *z, const float *b, const float *s, int BN,
                           int keepz, float *y)
{
	float sc = s[0], bb = b[blockIdx.y];
	size_t o = (size_t)blockIdx.y * BN;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < BN; i += blockDim.x * gridDim.x) {
		float zz = z[o + i] + bb;
		if (keepz)
			z[o + i] = zz;
		y[o + i] = x[o + i] + sc * zz;
	}
}

__global__ void k_relu(const float *x, size_t total, float *y)
{
	GSL(i, total)
		y[i] = x[i] > 0 ? x[i] : 0.0f;
}

/* d[i] = x[i] > 0 ? d[i] : 0 */
__global__ void k_mask(float *d, const float *x, size_t total)
{
	GSL(i, total)
		if (!(x[i] > 0))
			d[i] = 0;
}

/* d[i] += x[i] > 0 ? u[i] : 0 */
__global__ void k_add_masked(float *d, const float *u, const float *x, size_t total)
{
	GSL(i, total)
		if (x[i] > 0)
			d[i] += u[i];
}

#ifndef GT_CUDA_MOCK /* tests/gpu/mock/run has sequential versions of these */
__device__ float warp_sum(float v)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	return v;
}

/* One warp per (h, b): s = sum_p in[h][b*N+p]. mode 0: pooled[b][h] = s/N
 * and pooled[b][H+h] = s/N * (n-14)/10 (KataGo's pooling); mode 1:
 * out[h*B + b] = s. */
__global__ void k_pool(const float *in, int H, int B, int n, float *out, int mode)
{
	size_t N = (size_t)n * n, BN = B * N;
	size_t w = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
	int lane = threadIdx.x % 32;
	if (w >= (size_t)H * B)
		return;
	size_t h = w / B, b = w % B;
	const float *r = in + h * BN + b * N;
	float s = 0;
	for (size_t p = lane; p < N; p += 32)
		s += r[p];
	s = warp_sum(s);
	if (lane)
		return;
	if (mode == 0) {
		float m = s / (float)N;
		out[b * 2 * H + h] = m;
		out[b * 2 * H + H + h] = m * (float)(n - 14) / 10.0f;
	} else
		out[h * B + b] = s;
}

/* One block per row r: out[r] = (acc ? out[r] : 0) + sc * sum_i A[r*ld+i] *
 * (v ? v[(vrow ? r*ld : 0) + i] : 1), sc = scale ? scale[0] : 1. */
__global__ void k_rowdot(const float *A, const float *v, int vrow, size_t cols, size_t ld,
                         const float *scale, int acc, float *out)
{
	__shared__ float sh[THREADS / 32];
	size_t r = blockIdx.x;
	const float *a = A + r * ld, *b = v ? v + (vrow ? r * ld : 0) : NULL;
	float s = 0;
	for (size_t i = threadIdx.x; i < cols; i += blockDim.x)
		s += b ? a[i] * b[i] : a[i];
	s = warp_sum(s);
	if (threadIdx.x % 32 == 0)
		sh[threadIdx.x / 32] = s;
	__syncthreads();
	if (threadIdx.x == 0) {
		float t = 0;
		for (int k = 0; k < (int)(blockDim.x / 32); k++)
			t += sh[k];
		if (scale)
			t *= scale[0];
		out[r] = acc ? out[r] + t : t;
	}
}
#else
#include "reduce.h"
#endif

/* point logits: policy[b*(N+1)+q] = ob + sum_h ow[h] P[h][b*N+q] */
__global__ void k_pol_points(const float *P, int Hp, int B, int N, const float *ow,
                             const float *ob, float *policy)
{
	size_t BN = (size_t)B * N;
	GSL(i, BN) {
		float s = ob[0];
		for (int h = 0; h < Hp; h++)
			s += ow[h] * P[h * BN + i];
		policy[(i / N) * (N + 1) + i % N] = s;
	}
}

/* pass logit: policy[b*(N+1)+N] = pb + pw . gp[b] */
__global__ void k_pol_pass(const float *gp, int Hp, int B, int N, const float *pw,
                           const float *pb, float *policy)
{
	GSL(b, (size_t)B) {
		float s = pb[0];
		for (int j = 0; j < 2 * Hp; j++)
			s += pw[j] * gp[b * 2 * Hp + j];
		policy[b * (N + 1) + N] = s;
	}
}

/* value MLP per row b */
__global__ void k_value(const float *gv, int B, int Hv, int H, const float *fc1_w,
                        const float *fc1_b, const float *fc2_w, const float *fc2_b,
                        const float *sc_w, const float *sc_b, float *hid, float *vpre,
                        float *value, float *sraw, float *score)
{
	GSL(b, (size_t)B) {
		float *h = hid + b * H, v = fc2_b[0], s = sc_b[0];
		const float *x = gv + b * 2 * Hv;
		for (int k = 0; k < H; k++) {
			float u = fc1_b[k];
			for (int j = 0; j < 2 * Hv; j++)
				u += fc1_w[k * 2 * Hv + j] * x[j];
			h[k] = u > 0 ? u : 0.0f;
			v += fc2_w[k] * h[k];
			s += sc_w[k] * h[k];
		}
		vpre[b] = v;
		value[b] = tanhf(v);
		sraw[b] = s;
		score[b] = GT_NN_SCORE_SCALE * s;
	}
}

/* ownership: opre[i] = ob + sum_h ow[h] Vh[h][i], own[i] = tanh(opre[i]) */
__global__ void k_own(const float *Vh, int Hv, size_t BN, const float *ow, const float *ob,
                      float *opre, float *own)
{
	GSL(i, BN) {
		float s = ob[0];
		for (int h = 0; h < Hv; h++)
			s += ow[h] * Vh[h * BN + i];
		opre[i] = s;
		own[i] = tanhf(s);
	}
}

/* dP[h][b*N+q] = P > 0 ? ow[h] dpoint[b*N+q] + (pw[h] + pw[Hp+h] ps) dpass[b]/N : 0 */
__global__ void k_dP(const float *P, int Hp, int B, int N, const float *dpoint,
                     const float *dpass, const float *ow, const float *pw, float ps,
                     float *dP)
{
	size_t BN = (size_t)B * N, total = (size_t)Hp * BN;
	GSL(i, total) {
		size_t h = i / BN, j = i % BN;
		float v = ow[h] * dpoint[j] + (pw[h] + pw[Hp + h] * ps) * dpass[j / N] / (float)N;
		dP[i] = P[i] > 0 ? v : 0.0f;
	}
}

/* out[j] += sum_b a[b] * m[b*ld + j], j < cols (a NULL: all ones) */
__global__ void k_colgemv(const float *a, const float *m, int B, int cols, int ld, float *out)
{
	GSL(j, (size_t)cols) {
		float s = 0;
		for (int b = 0; b < B; b++)
			s += (a ? a[b] : 1.0f) * m[(size_t)b * ld + j];
		out[j] += s;
	}
}

/* value MLP backward per row: dh[b][k], dgv[b][j] */
__global__ void k_value_back(const float *hid, const float *dvpre, const float *dsr, int B,
                             int Hv, int H, const float *fc1_w, const float *fc2_w,
                             const float *sc_w, float *dh, float *dgv)
{
	GSL(b, (size_t)B) {
		const float *h = hid + b * H;
		float *d = dh + b * H, dv = dvpre[b], ds = dsr[b];
		for (int k = 0; k < H; k++)
			d[k] = h[k] > 0 ? fc2_w[k] * dv + sc_w[k] * ds : 0.0f;
		for (int j = 0; j < 2 * Hv; j++) {
			float s = 0;
			for (int k = 0; k < H; k++)
				s += fc1_w[k * 2 * Hv + j] * d[k];
			dgv[b * 2 * Hv + j] = s;
		}
	}
}

/* fc1_w[k][j] += sum_b dh[b][k] gv[b][j] */
__global__ void k_fc1_grad(const float *dh, const float *gv, int B, int Hv, int H, float *g)
{
	GSL(i, (size_t)H * 2 * Hv) {
		size_t k = i / (2 * Hv), j = i % (2 * Hv);
		float s = 0;
		for (int b = 0; b < B; b++)
			s += dh[(size_t)b * H + k] * gv[(size_t)b * 2 * Hv + j];
		g[i] += s;
	}
}

/* dVh[h][i] = Vh > 0 ? ow[h] dopre[i] + (dgv[b][h] + dgv[b][Hv+h] ps)/N : 0 */
__global__ void k_dVh(const float *Vh, int Hv, int B, int N, const float *dopre,
                      const float *ow, const float *dgv, float ps, float *dVh)
{
	size_t BN = (size_t)B * N, total = (size_t)Hv * BN;
	GSL(i, total) {
		size_t h = i / BN, j = i % BN, b = j / N;
		float v = ow[h] * dopre[j] + (dgv[b * 2 * Hv + h] + dgv[b * 2 * Hv + Hv + h] * ps) / (float)N;
		dVh[i] = Vh[i] > 0 ? v : 0.0f;
	}
}

/* in_g[o][k] += sum_b rsb[o*B + b] glob[b][k]; in_b[o] += sum_b rsb[o*B+b] */
__global__ void k_in_grad(const float *rsb, const float *glob, int C, int B, int G,
                          float *g_in_g, float *g_in_b)
{
	GSL(i, (size_t)C * (G + 1)) {
		size_t o = i / (G + 1), k = i % (G + 1);
		float s = 0;
		for (int b = 0; b < B; b++)
			s += rsb[o * B + b] * (k < (size_t)G ? glob[(size_t)b * G + k] : 1.0f);
		if (k < (size_t)G)
			g_in_g[o * G + k] += s;
		else
			g_in_b[o] += s;
	}
}

/* ------------------------------------------------------------ GEMM helpers */

/* Row-major C (M x N) = alpha op(A) op(B) + beta C, as the column-major call
 * with the operands swapped. A, B BF16; C FP32; FP32 accumulation. */
static cublasStatus_t gemm_bf16(cublasHandle_t h, int ta, int tb, int M, int N, int K,
                                float alpha, const bf16 *A, int lda, const bf16 *B,
                                int ldb, float beta, float *C, int ldc)
{
	return cublasGemmEx(h, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
	                    N, M, K, &alpha, B, CUDA_R_16BF, ldb, A, CUDA_R_16BF, lda, &beta,
	                    C, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

static cublasStatus_t gemm_f32(cublasHandle_t h, int ta, int tb, int M, int N, int K,
                               float alpha, const float *A, int lda, const float *B,
                               int ldb, float beta, float *C, int ldc)
{
	return cublasSgemm(h, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
	                   N, M, K, &alpha, B, ldb, A, lda, &beta, C, ldc);
}

/* ------------------------------------------------------------ lifecycle */

extern "C" int gt_cuda_probe(char *text, size_t len)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count < 1) {
		snprintf(text, len, "no CUDA device: %s",
		         e != cudaSuccess ? cudaGetErrorString(e) : "none found");
		cudaGetLastError();
		return 0;
	}
	int dev = 0;
	cudaDeviceProp prop;
	if ((e = cudaGetDevice(&dev)) != cudaSuccess ||
	    (e = cudaGetDeviceProperties(&prop, dev)) != cudaSuccess) {
		snprintf(text, len, "no CUDA device: %s", cudaGetErrorString(e));
		cudaGetLastError();
		return 0;
	}
	if (prop.major < 8) {
		snprintf(text, len, "no CUDA device: %.64s is sm_%d%d, BF16 needs sm_80 or newer",
		         prop.name, prop.major, prop.minor);
		return 0;
	}
	snprintf(text, len, "%.64s, sm_%d%d, %zu MiB", prop.name, prop.major, prop.minor,
	         (size_t)(prop.totalGlobalMem >> 20));
	return 1;
}

#define DFREE(p) do { if (p) cudaFree(p); (p) = NULL; } while (0)
#define HFREE(p) do { if (p) cudaFreeHost(p); (p) = NULL; } while (0)

/* The activation buffers, one table for ensure and free_acts: where each
 * pointer lives, how many elements and of what kind. */
enum { BUF_F32, BUF_BF16, BUF_HOST }; /* device floats, device BF16, pinned host floats */
typedef struct cubuf {
	void **p;
	size_t n;
	int kind;
} cubuf;

static void put(cubuf *t, int *k, void *p, size_t n, int kind)
{
	t[*k].p = (void **)p;
	t[*k].n = n;
	t[*k].kind = kind;
	(*k)++;
}

/* The buffers for B boards and cb columns (cb/B bounds every board size:
 * B*(N+1) <= cb + B) and, with tr, those of backward, into t (room for
 * 3 L + 40 entries). Returns how many. */
static int cu_bufs(const gt_arch *a, cu *c, size_t B, size_t cb, int tr, cubuf *t)
{
	int L = a->blocks, k = 0;
	size_t C = a->channels, Hp = a->head_policy, Hv = a->head_value, H = a->value_hidden;
	size_t Cin = a->in_planes, G = a->globals;
	size_t kmax = (Cin > C ? Cin : C) * 9;
	outlay o = out_layout(B, cb / B + 1);
	headlay hl = head_layout(B, cb / B + 1);
	for (int l = 0; l < (tr ? L + 1 : 1); l++)
		put(t, &k, &c->Xo[l], C * cb, BUF_F32);
	for (int l = 0; l < (tr ? L : 1); l++) {
		put(t, &k, &c->Vo[l], C * cb, BUF_F32);
		put(t, &k, &c->Zo[l], C * cb, BUF_F32);
	}
	cubuf named[] = {
		{(void **)&c->in_raw, Cin * cb, BUF_F32}, {(void **)&c->xin, Cin * cb, BUF_F32},
		{(void **)&c->glob, G * B, BUF_F32}, {(void **)&c->col, kmax * cb, BUF_BF16},
		{(void **)&c->T, C * cb, BUF_F32}, {(void **)&c->P, Hp * cb, BUF_F32},
		{(void **)&c->Vh, Hv * cb, BUF_F32}, {(void **)&c->gp, 2 * Hp * B, BUF_F32},
		{(void **)&c->gv, 2 * Hv * B, BUF_F32}, {(void **)&c->hid, H * B, BUF_F32},
		{(void **)&c->red, C > B ? C : B, BUF_F32}, {(void **)&c->dout, o.all, BUF_F32},
		{(void **)&c->hin, Cin * cb + G * B, BUF_HOST}, {(void **)&c->hout, o.all, BUF_HOST},
	};
	cubuf back[] = {   /* backward's */
		{(void **)&c->hb, C * cb, BUF_BF16}, {(void **)&c->dX, C * cb, BUF_F32},
		{(void **)&c->dV, C * cb, BUF_F32}, {(void **)&c->dU, C * cb, BUF_F32},
		{(void **)&c->dP, Hp * cb, BUF_F32}, {(void **)&c->dVh, Hv * cb, BUF_F32},
		{(void **)&c->dh, H * B, BUF_F32}, {(void **)&c->dgv, 2 * Hv * B, BUF_F32},
		{(void **)&c->rsb, C * B, BUF_F32}, {(void **)&c->dhead, hl.all, BUF_F32},
		{(void **)&c->hdhead, hl.all, BUF_HOST},
	};
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
		t[k++] = named[i];
	for (size_t i = 0; tr && i < sizeof back / sizeof back[0]; i++)
		t[k++] = back[i];
	return k;
}

static void free_acts(gt_nn *nn, cu *c)
{
	cubuf *t = (cubuf *)gt_xcalloc(3 * (size_t)nn->arch.blocks + 40, sizeof *t);
	int k = cu_bufs(&nn->arch, c, 1, 1, 1, t);
	for (int i = 0; i < k; i++) {
		if (*t[i].p && t[i].kind == BUF_HOST)
			cudaFreeHost(*t[i].p);
		else if (*t[i].p)
			cudaFree(*t[i].p);
		*t[i].p = NULL;
	}
	free(t);
	c->cap_bn = 0;
	c->cap_b = c->cap_train = 0;
}

static void cu_release(gt_nn *nn)
{
	cu *c = (cu *)nn->state;
	if (!c)
		return;
	if (c->st)
		cudaStreamSynchronize(c->st);
	free_acts(nn, c);
	DFREE(c->dparam);
	DFREE(c->dgrad);
	DFREE(c->wbf);
	HFREE(c->hgrad);
	if (c->blas)
		cublasDestroy(c->blas);
	if (c->st)
		cudaStreamDestroy(c->st);
	gt_nn_views_release(&c->p);
	gt_nn_views_release(&c->g);
	free(c->w1b); free(c->w2b); free(c->w1f); free(c->w2f);
	free(c->X); free(c->V); free(c->Z);
	free(c->Xo); free(c->Vo); free(c->Zo);
	free(c);
	nn->state = NULL;
	cudaGetLastError();
}

static int cu_sync(gt_nn *nn);

static int cu_init(gt_nn *nn)
{
	char why[160];
	if (!gt_cuda_probe(why, sizeof why))
		return seterr(nn, GT_EUNSUPPORTED, "%s", why);
	const char *bwhy;
	if (blas_load(&bwhy))
		return seterr(nn, GT_EUNSUPPORTED, "%s", bwhy);
	const gt_arch *a = &nn->arch;
	int L = a->blocks, C = a->channels;
	cu *c = (cu *)gt_xcalloc(1, sizeof *c);
	nn->state = c;
	c->w1b = (bf16 **)gt_xcalloc((size_t)L, sizeof(bf16 *));
	c->w2b = (bf16 **)gt_xcalloc((size_t)L, sizeof(bf16 *));
	c->w1f = (bf16 **)gt_xcalloc((size_t)L, sizeof(bf16 *));
	c->w2f = (bf16 **)gt_xcalloc((size_t)L, sizeof(bf16 *));
	c->X = (float **)gt_xcalloc((size_t)L + 1, sizeof(float *));
	c->V = (float **)gt_xcalloc((size_t)L, sizeof(float *));
	c->Z = (float **)gt_xcalloc((size_t)L, sizeof(float *));
	c->Xo = (float **)gt_xcalloc((size_t)L + 1, sizeof(float *));
	c->Vo = (float **)gt_xcalloc((size_t)L, sizeof(float *));
	c->Zo = (float **)gt_xcalloc((size_t)L, sizeof(float *));
	/* on failure gt_nn_new calls release, which frees what was made */
	CK(cudaStreamCreateWithFlags(&c->st, cudaStreamNonBlocking));
	CB(cublasCreate(&c->blas));
	CB(cublasSetStream(c->blas, c->st));
	size_t np = nn->nparams, k1 = (size_t)a->in_planes * 9 * C, kb = (size_t)C * C * 9;
	CK(cudaMalloc((void **)&c->dparam, np * sizeof(float)));
	CK(cudaMalloc((void **)&c->dgrad, np * sizeof(float)));
	CK(cudaMallocHost((void **)&c->hgrad, np * sizeof(float)));
	CK(cudaMalloc((void **)&c->wbf, (k1 + 4 * (size_t)L * kb) * sizeof(bf16)));
	gt_nn_views_init(&c->p, nn, c->dparam);
	gt_nn_views_init(&c->g, nn, c->dgrad);
	c->in_wb = c->wbf;
	for (int l = 0; l < L; l++) {
		c->w1b[l] = c->wbf + k1 + (4 * (size_t)l + 0) * kb;
		c->w2b[l] = c->wbf + k1 + (4 * (size_t)l + 1) * kb;
		c->w1f[l] = c->wbf + k1 + (4 * (size_t)l + 2) * kb;
		c->w2f[l] = c->wbf + k1 + (4 * (size_t)l + 3) * kb;
	}
	return cu_sync(nn);
}

/* Upload nn->params and make the BF16 kernels and their flips. */
static int cu_sync(gt_nn *nn)
{
	cu *c = (cu *)nn->state;
	const gt_arch *a = &nn->arch;
	int L = a->blocks, C = a->channels;
	size_t k1 = (size_t)a->in_planes * 9 * C, kb = (size_t)C * C * 9;
	nn->errtext[0] = 0;
	CK(cudaMemcpyAsync(c->dparam, nn->params, nn->nparams * sizeof(float),
	                   cudaMemcpyHostToDevice, c->st));
	k_bf16<<<grid(k1), THREADS, 0, c->st>>>(c->p.in_w, k1, NULL, c->in_wb);
	CL("k_bf16");
	for (int l = 0; l < L; l++) {
		k_bf16<<<grid(kb), THREADS, 0, c->st>>>(c->p.blk[l].w1, kb, NULL, c->w1b[l]);
		k_bf16<<<grid(kb), THREADS, 0, c->st>>>(c->p.blk[l].w2, kb, NULL, c->w2b[l]);
		k_flip<<<grid(kb), THREADS, 0, c->st>>>(c->p.blk[l].w1, C, c->w1f[l]);
		k_flip<<<grid(kb), THREADS, 0, c->st>>>(c->p.blk[l].w2, C, c->w2f[l]);
		CL("k_flip");
	}
	/* the host array may change as soon as we return */
	CK(cudaStreamSynchronize(c->st));
	return 0;
}

static int buf_alloc(gt_nn *nn, const cubuf *b)
{
	size_t bytes = (b->n ? b->n : 1) * (b->kind == BUF_BF16 ? sizeof(bf16) : sizeof(float));
	if (b->kind == BUF_HOST)
		CK(cudaMallocHost(b->p, bytes));
	else
		CK(cudaMalloc(b->p, bytes));
	return 0;
}

/* Make room for batch x n (and the training activations if train). */
static int ensure(gt_nn *nn, cu *c, int batch, int n, int train)
{
	size_t bn = (size_t)batch * n * n;
	if (bn <= c->cap_bn && batch <= c->cap_b && (!train || c->cap_train))
		return 0;
	size_t B = (size_t)(batch > c->cap_b ? batch : c->cap_b);
	size_t cb = bn > c->cap_bn ? bn : c->cap_bn;
	int tr = train || c->cap_train, r = 0;
	free_acts(nn, c);
	cubuf *t = (cubuf *)gt_xcalloc(3 * (size_t)nn->arch.blocks + 40, sizeof *t);
	int k = cu_bufs(&nn->arch, c, B, cb, tr, t);
	for (int i = 0; i < k && !r; i++)
		r = buf_alloc(nn, &t[i]);
	free(t);
	if (r)
		return r;
	c->cap_bn = cb;
	c->cap_b = (int)B;
	c->cap_train = tr;
	return 0;
}

/* ------------------------------------------------------------- forward */

/* out (Cout x BN) = W (Cout x Cin*9) * im2col(f(in)) + bias, f = relu when
 * relu. With nn->profile the stream is synchronised around it and the
 * time added to nn->prof_conv_s. */
static int conv3x3(gt_nn *nn, cu *c, const float *in, int Cin, int Cout, int B, int n,
                   const bf16 *W, const float *bias, float *out, int relu)
{
	size_t BN = (size_t)B * n * n;
	double t0 = 0;
	if (nn->profile) {
		CK(cudaStreamSynchronize(c->st));
		t0 = gt_now();
	}
	k_im2col<<<grid2(BN, 9 * Cin), THREADS, 0, c->st>>>(in, Cin, B, n, relu, NULL, c->col);
	CL("k_im2col");
	CB(gemm_bf16(c->blas, 0, 0, Cout, (int)BN, Cin * 9, 1.0f, W, Cin * 9, c->col, (int)BN,
	             0.0f, out, (int)BN));
	if (bias) {
		k_bias<<<grid2(BN, Cout), THREADS, 0, c->st>>>(out, (int)BN, bias, 0);
		CL("k_bias");
	}
	if (nn->profile) {
		CK(cudaStreamSynchronize(c->st));
		nn->prof_conv_s += gt_now() - t0;
	}
	return 0;
}

/* A play forward computes a batch padded with empty boards to a multiple
 * of 8, so that every GEMM dimension and leading dimension B*n*n is too
 * (cuBLAS's tensor-core kernels want 16-byte alignment; a search's batch
 * of leaves can be any size). Training batches are computed as given. */
static int cu_forward(gt_nn *nn, int Bu, int n, const float *planes, const float *globals,
                      int train)
{
	cu *c = (cu *)nn->state;
	const gt_arch *a = &nn->arch;
	const gt_nn_views *p = &c->p;
	int L = a->blocks, C = a->channels, Cin = a->in_planes, G = a->globals;
	int Hp = a->head_policy, Hv = a->head_value, H = a->value_hidden;
	int B = train ? Bu : (Bu + 7) / 8 * 8;
	size_t N = (size_t)n * n, BN = B * N, BNu = (size_t)Bu * N;
	nn->errtext[0] = 0;
	c->batch = 0;
	TRY(ensure(nn, c, B, n, train));
	float **X = c->X, **V = c->V, **Z = c->Z;
	for (int l = 0; l <= L; l++) {
		X[l] = c->Xo[train ? l : 0];
		if (l < L) {
			V[l] = c->Vo[train ? l : 0];
			Z[l] = c->Zo[train ? l : 0];
		}
	}
	outlay o = out_layout(B, N);

	/* inputs through pinned memory */
	memcpy(c->hin, planes, sizeof(float) * Cin * BNu);
	memset(c->hin + Cin * BNu, 0, sizeof(float) * Cin * (BN - BNu));
	if (G > 0) {
		memcpy(c->hin + Cin * BN, globals, sizeof(float) * G * Bu);
		memset(c->hin + Cin * BN + (size_t)G * Bu, 0, sizeof(float) * G * (B - Bu));
	}
	CK(cudaMemcpyAsync(c->in_raw, c->hin, sizeof(float) * Cin * BN, cudaMemcpyHostToDevice,
	                   c->st));
	if (G > 0)
		CK(cudaMemcpyAsync(c->glob, c->hin + Cin * BN, sizeof(float) * G * B,
		                   cudaMemcpyHostToDevice, c->st));
	k_nchw_cm<<<grid(Cin * BN), THREADS, 0, c->st>>>(c->in_raw, B, Cin, (int)N, c->xin);
	CL("k_nchw_cm");

	/* input convolution, bias and globals */
	TRY(conv3x3(nn, c, c->xin, Cin, C, B, n, c->in_wb, NULL, X[0], 0));
	k_in_add<<<grid(C * BN), THREADS, 0, c->st>>>(X[0], C, B, (int)N, G, p->in_b, p->in_g,
	                                              c->glob);
	CL("k_in_add");

	/* residual blocks: v = conv(relu x) + b1, z = conv(relu v) + b2, x += s z */
	for (int l = 0; l < L; l++) {
		TRY(conv3x3(nn, c, X[l], C, C, B, n, c->w1b[l], p->blk[l].b1, V[l], 1));
		TRY(conv3x3(nn, c, V[l], C, C, B, n, c->w2b[l], NULL, Z[l], 1));
		k_residual<<<grid2(BN, C), THREADS, 0, c->st>>>(X[l], Z[l], p->blk[l].b2,
		                                                p->blk[l].s, (int)BN, train,
		                                                X[l + 1]);
		CL("k_residual");
	}
	k_relu<<<grid(C * BN), THREADS, 0, c->st>>>(X[L], C * BN, c->T);
	CL("k_relu");

	/* policy head */
	float *out = c->dout;
	CB(gemm_f32(c->blas, 0, 0, Hp, (int)BN, C, 1.0f, p->pol_w, C, c->T, (int)BN, 0.0f, c->P,
	            (int)BN));
	k_bias<<<grid2(BN, Hp), THREADS, 0, c->st>>>(c->P, (int)BN, p->pol_b, 1);
	k_pol_points<<<grid(BN), THREADS, 0, c->st>>>(c->P, Hp, B, (int)N, p->pol_ow, p->pol_ob,
	                                              out + o.policy);
	k_pool<<<grid((size_t)Hp * B * 32), THREADS, 0, c->st>>>(c->P, Hp, B, n, c->gp, 0);
	k_pol_pass<<<grid(B), THREADS, 0, c->st>>>(c->gp, Hp, B, (int)N, p->pol_pw, p->pol_pb,
	                                           out + o.policy);
	CL("policy head");

	/* value, score and ownership */
	CB(gemm_f32(c->blas, 0, 0, Hv, (int)BN, C, 1.0f, p->val_w, C, c->T, (int)BN, 0.0f, c->Vh,
	            (int)BN));
	k_bias<<<grid2(BN, Hv), THREADS, 0, c->st>>>(c->Vh, (int)BN, p->val_b, 1);
	k_pool<<<grid((size_t)Hv * B * 32), THREADS, 0, c->st>>>(c->Vh, Hv, B, n, c->gv, 0);
	k_value<<<grid(B), THREADS, 0, c->st>>>(c->gv, B, Hv, H, p->fc1_w, p->fc1_b, p->fc2_w,
	                                        p->fc2_b, p->sc_w, p->sc_b, c->hid, out + o.vpre,
	                                        out + o.value, out + o.sraw, out + o.score);
	k_own<<<grid(BN), THREADS, 0, c->st>>>(c->Vh, Hv, BN, p->own_w, p->own_b, out + o.opre,
	                                       out + o.own);
	CL("value head");

	CK(cudaMemcpyAsync(c->hout, c->dout, sizeof(float) * (train ? o.all : o.play),
	                   cudaMemcpyDeviceToHost, c->st));
	CK(cudaStreamSynchronize(c->st));
	c->batch = Bu;
	c->lay_b = B;
	c->n = n;
	c->trained = train;
	nn->out.batch = Bu;
	nn->out.n = n;
	nn->out.policy = c->hout + o.policy;
	nn->out.value = c->hout + o.value;
	nn->out.score = c->hout + o.score;
	nn->out.own = c->hout + o.own;
	return 0;
}

/* ------------------------------------------------------------- backward */

/* rowdot launch: out[r] (+)= scale * sum_i A[r][i] v[..i] for rows r */
static int rowdot(gt_nn *nn, cu *c, const float *A, const float *v, int vrow, int rows,
                  size_t cols, size_t ld, const float *scale, int acc, float *out)
{
	k_rowdot<<<rows, THREADS, 0, c->st>>>(A, v, vrow, cols, ld, scale, acc, out);
	CL("k_rowdot");
	return 0;
}

static int cu_backward(gt_nn *nn, const gt_nn_target *t, const gt_nn_lossw *w,
                       gt_nn_loss *loss, int grads)
{
	cu *c = (cu *)nn->state;
	const gt_arch *a = &nn->arch;
	const gt_nn_views *p = &c->p, *g = &c->g;
	int B = c->batch, n = c->n;
	int L = a->blocks, C = a->channels, Cin = a->in_planes, G = a->globals;
	int Hp = a->head_policy, Hv = a->head_value, H = a->value_hidden;
	size_t N = (size_t)n * n, BN = B * N, CBN = (size_t)C * BN;
	if (!B)
		return GT_EINVAL;
	if (grads && !c->trained)
		return GT_EINVAL;
	nn->errtext[0] = 0;
	outlay o = out_layout(c->lay_b, N);
	if (!c->trained) {
		/* a play forward downloaded no raw outputs: fetch them now */
		CK(cudaMemcpyAsync(c->hout + o.play, c->dout + o.play,
		                   sizeof(float) * (o.all - o.play), cudaMemcpyDeviceToHost, c->st));
		CK(cudaStreamSynchronize(c->st));
	}
	headlay hl = head_layout(B, N);
	gt_nn_heads heads = {c->hout + o.policy, c->hout + o.vpre, c->hout + o.sraw,
	                     c->hout + o.opre, NULL}; /* no auxiliary head (gt_nn_new) */
	float *hd = c->hdhead;
	gt_nn_dheads dheads = {hd + hl.point, hd + hl.pass, hd + hl.vpre, hd + hl.sr, hd + hl.opre,
	                       NULL, NULL};
	gt_nn_head_loss(B, N, &heads, t, w, loss, grads ? &dheads : NULL);
	if (!grads)
		return 0;
	float *dh = c->dhead;
	CK(cudaMemcpyAsync(dh, c->hdhead, sizeof(float) * hl.all, cudaMemcpyHostToDevice, c->st));
	CK(cudaMemsetAsync(c->dgrad, 0, nn->nparams * sizeof(float), c->st));
	float ps = (float)(n - 14) / 10.0f;

	/* policy head */
	k_dP<<<grid(Hp * BN), THREADS, 0, c->st>>>(c->P, Hp, B, (int)N, dh + hl.point,
	                                           dh + hl.pass, p->pol_ow, p->pol_pw, ps, c->dP);
	CL("k_dP");
	TRY(rowdot(nn, c, c->P, dh + hl.point, 0, Hp, BN, BN, NULL, 1, g->pol_ow));
	TRY(rowdot(nn, c, dh + hl.point, NULL, 0, 1, BN, BN, NULL, 1, g->pol_ob));
	TRY(rowdot(nn, c, dh + hl.pass, NULL, 0, 1, B, B, NULL, 1, g->pol_pb));
	k_colgemv<<<grid(2 * Hp), THREADS, 0, c->st>>>(dh + hl.pass, c->gp, B, 2 * Hp, 2 * Hp,
	                                               g->pol_pw);
	CL("k_colgemv");
	CB(gemm_f32(c->blas, 0, 1, Hp, C, (int)BN, 1.0f, c->dP, (int)BN, c->T, (int)BN, 1.0f,
	            g->pol_w, C));
	TRY(rowdot(nn, c, c->dP, NULL, 0, Hp, BN, BN, NULL, 1, g->pol_b));
	float *dT = c->dX;
	CB(gemm_f32(c->blas, 1, 0, C, (int)BN, Hp, 1.0f, p->pol_w, C, c->dP, (int)BN, 0.0f, dT,
	            (int)BN));

	/* value and score MLP */
	k_value_back<<<grid(B), THREADS, 0, c->st>>>(c->hid, dh + hl.vpre, dh + hl.sr, B, Hv, H,
	                                             p->fc1_w, p->fc2_w, p->sc_w, c->dh, c->dgv);
	CL("k_value_back");
	TRY(rowdot(nn, c, dh + hl.vpre, NULL, 0, 1, B, B, NULL, 1, g->fc2_b));
	TRY(rowdot(nn, c, dh + hl.sr, NULL, 0, 1, B, B, NULL, 1, g->sc_b));
	k_colgemv<<<grid(H), THREADS, 0, c->st>>>(dh + hl.vpre, c->hid, B, H, H, g->fc2_w);
	k_colgemv<<<grid(H), THREADS, 0, c->st>>>(dh + hl.sr, c->hid, B, H, H, g->sc_w);
	k_fc1_grad<<<grid((size_t)H * 2 * Hv), THREADS, 0, c->st>>>(c->dh, c->gv, B, Hv, H,
	                                                            g->fc1_w);
	CL("value grads");
	k_colgemv<<<grid(H), THREADS, 0, c->st>>>(NULL, c->dh, B, H, H, g->fc1_b);
	CL("k_colgemv");

	/* ownership and the value channels */
	TRY(rowdot(nn, c, dh + hl.opre, NULL, 0, 1, BN, BN, NULL, 1, g->own_b));
	k_dVh<<<grid(Hv * BN), THREADS, 0, c->st>>>(c->Vh, Hv, B, (int)N, dh + hl.opre, p->own_w,
	                                            c->dgv, ps, c->dVh);
	CL("k_dVh");
	TRY(rowdot(nn, c, c->Vh, dh + hl.opre, 0, Hv, BN, BN, NULL, 1, g->own_w));
	CB(gemm_f32(c->blas, 0, 1, Hv, C, (int)BN, 1.0f, c->dVh, (int)BN, c->T, (int)BN, 1.0f,
	            g->val_w, C));
	TRY(rowdot(nn, c, c->dVh, NULL, 0, Hv, BN, BN, NULL, 1, g->val_b));
	CB(gemm_f32(c->blas, 1, 0, C, (int)BN, Hv, 1.0f, p->val_w, C, c->dVh, (int)BN, 1.0f, dT,
	            (int)BN));

	/* trunk: dX = dT [x_L > 0], then the blocks in reverse */
	float *dX = c->dX;
	k_mask<<<grid(CBN), THREADS, 0, c->st>>>(dX, c->X[L], CBN);
	CL("k_mask");
	for (int l = L - 1; l >= 0; l--) {
		const float *s = p->blk[l].s;
		/* s grad: sum over channels of dX . Z */
		TRY(rowdot(nn, c, dX, c->Z[l], 1, C, BN, BN, NULL, 0, c->red));
		TRY(rowdot(nn, c, c->red, NULL, 0, 1, C, C, NULL, 1, g->blk[l].s));
		/* dz = s dX; b2 and w2 */
		TRY(rowdot(nn, c, dX, NULL, 0, C, BN, BN, s, 1, g->blk[l].b2));
		k_bf16<<<grid(CBN), THREADS, 0, c->st>>>(dX, CBN, s, c->hb);
		k_im2col<<<grid2(BN, 9 * C), THREADS, 0, c->st>>>(c->V[l], C, B, n, 1, NULL, c->col);
		CL("w2 operands");
		CB(gemm_bf16(c->blas, 0, 1, C, C * 9, (int)BN, 1.0f, c->hb, (int)BN, c->col, (int)BN,
		             1.0f, g->blk[l].w2, C * 9));
		/* dV = conv(dz; flipped w2) [v > 0] */
		k_im2col<<<grid2(BN, 9 * C), THREADS, 0, c->st>>>(dX, C, B, n, 0, s, c->col);
		CL("k_im2col");
		CB(gemm_bf16(c->blas, 0, 0, C, (int)BN, C * 9, 1.0f, c->w2f[l], C * 9, c->col,
		             (int)BN, 0.0f, c->dV, (int)BN));
		k_mask<<<grid(CBN), THREADS, 0, c->st>>>(c->dV, c->V[l], CBN);
		CL("k_mask");
		TRY(rowdot(nn, c, c->dV, NULL, 0, C, BN, BN, NULL, 1, g->blk[l].b1));
		/* w1 */
		k_bf16<<<grid(CBN), THREADS, 0, c->st>>>(c->dV, CBN, NULL, c->hb);
		k_im2col<<<grid2(BN, 9 * C), THREADS, 0, c->st>>>(c->X[l], C, B, n, 1, NULL, c->col);
		CL("w1 operands");
		CB(gemm_bf16(c->blas, 0, 1, C, C * 9, (int)BN, 1.0f, c->hb, (int)BN, c->col, (int)BN,
		             1.0f, g->blk[l].w1, C * 9));
		/* dX += conv(dV; flipped w1) [x > 0] */
		k_im2col<<<grid2(BN, 9 * C), THREADS, 0, c->st>>>(c->dV, C, B, n, 0, NULL, c->col);
		CL("k_im2col");
		CB(gemm_bf16(c->blas, 0, 0, C, (int)BN, C * 9, 1.0f, c->w1f[l], C * 9, c->col,
		             (int)BN, 0.0f, c->dU, (int)BN));
		k_add_masked<<<grid(CBN), THREADS, 0, c->st>>>(dX, c->dU, c->X[l], CBN);
		CL("k_add_masked");
	}

	/* input convolution, its bias and the globals */
	k_pool<<<grid((size_t)C * B * 32), THREADS, 0, c->st>>>(dX, C, B, n, c->rsb, 1);
	k_in_grad<<<grid((size_t)C * (G + 1)), THREADS, 0, c->st>>>(c->rsb, c->glob, C, B, G,
	                                                            g->in_g, g->in_b);
	k_bf16<<<grid(CBN), THREADS, 0, c->st>>>(dX, CBN, NULL, c->hb);
	k_im2col<<<grid2(BN, 9 * Cin), THREADS, 0, c->st>>>(c->xin, Cin, B, n, 0, NULL, c->col);
	CL("input grads");
	CB(gemm_bf16(c->blas, 0, 1, C, Cin * 9, (int)BN, 1.0f, c->hb, (int)BN, c->col, (int)BN,
	             1.0f, g->in_w, Cin * 9));

	/* add the device gradient to the host master copy */
	CK(cudaMemcpyAsync(c->hgrad, c->dgrad, nn->nparams * sizeof(float),
	                   cudaMemcpyDeviceToHost, c->st));
	CK(cudaStreamSynchronize(c->st));
	for (size_t i = 0; i < nn->nparams; i++)
		nn->grads[i] += c->hgrad[i];
	return 0;
}

extern "C" const gt_nn_backend gt_nn_backend_cuda = {
	"cuda", cu_init, cu_release, cu_sync, cu_forward, cu_backward, NULL, NULL, NULL,
};
