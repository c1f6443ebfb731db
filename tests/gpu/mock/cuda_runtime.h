/*
 * tests/gpu/mock/cuda_runtime.h: a host-only stand-in for the parts of the
 * CUDA runtime that lib/nn/cuda/nn_cuda.cu uses, so that its kernels, index
 * arithmetic, GEMM operands and buffer sizes can be run (under ASan) and
 * compared with the CPU backend on a machine without a GPU
 * (tests/gpu/mock/run). Kernels run sequentially over every (block,
 * thread); "device" memory is host memory. Not a model of timing,
 * concurrency or warp collectives (k_rowdot and k_pool are replaced).
 */
#ifndef GT_MOCK_CUDA_RUNTIME_H
#define GT_MOCK_CUDA_RUNTIME_H
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define __global__
#define __device__
#define __shared__ static

struct dim3 {
	unsigned x, y, z;
	dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct uint3 { unsigned x, y, z; };
static uint3 blockIdx, threadIdx;
static dim3 blockDim, gridDim;

typedef enum cudaError {
	cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
	cudaErrorNoDevice = 100,
} cudaError_t;
typedef struct mock_stream *cudaStream_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
#define cudaStreamNonBlocking 1

struct cudaDeviceProp {
	char name[256];
	int major, minor;
	size_t totalGlobalMem;
};

/* GT_MOCK_NODEVICE in the environment: behave as a machine without one */
static inline cudaError_t cudaGetDeviceCount(int *n)
{
	if (getenv("GT_MOCK_NODEVICE")) {
		*n = 0;
		return cudaErrorNoDevice;
	}
	*n = 1;
	return cudaSuccess;
}
static inline cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
static inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d)
{
	memset(p, 0, sizeof *p);
	strcpy(p->name, "mock device (host)");
	p->major = 9;
	p->totalGlobalMem = (size_t)1 << 30;
	return cudaSuccess;
}
static inline const char *cudaGetErrorString(cudaError_t e)
{
	return e == cudaSuccess ? "no error" : e == cudaErrorNoDevice ?
	       "no CUDA-capable device is detected" : e == cudaErrorMemoryAllocation ?
	       "out of memory" : "invalid argument";
}
static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }
static inline cudaError_t cudaMalloc(void **p, size_t n)
{
	*p = malloc(n);
	/* fill with NaN-ish garbage so reads of unwritten memory show */
	if (*p)
		memset(*p, 0xff, n);
	return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaMallocHost(void **p, size_t n) { return cudaMalloc(p, n); }
static inline cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }
static inline cudaError_t cudaFreeHost(void *p) { free(p); return cudaSuccess; }
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k,
                                          cudaStream_t st)
{
	if (!st)
		return cudaErrorInvalidValue;
	memcpy(d, s, n);
	return cudaSuccess;
}
static inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st)
{
	memset(d, v, n);
	return cudaSuccess;
}
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned f)
{
	*s = (cudaStream_t)malloc(1);
	return cudaSuccess;
}
static inline cudaError_t cudaStreamDestroy(cudaStream_t s) { free(s); return cudaSuccess; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t s) { return cudaSuccess; }

/* k<<<g, b, smem, st>>>(args) is rewritten to mock_launch(g, b, smem, st, k, args) */
template <typename F, typename... A>
static void mock_launch(dim3 g, dim3 b, size_t smem, cudaStream_t st, F f, A... args)
{
	if (!st || g.x < 1 || g.y < 1 || b.x < 1 || b.x > 1024 || g.y > 65535)
		abort();
	gridDim = g;
	blockDim = b;
	for (unsigned by = 0; by < g.y; by++)
		for (unsigned bx = 0; bx < g.x; bx++)
			for (unsigned tx = 0; tx < b.x; tx++) {
				blockIdx.x = bx;
				blockIdx.y = by;
				blockIdx.z = 0;
				threadIdx.x = tx;
				threadIdx.y = threadIdx.z = 0;
				f(args...);
			}
}
#endif
