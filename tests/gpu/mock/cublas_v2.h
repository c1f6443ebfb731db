/* tests/gpu/mock/cublas_v2.h: cublasGemmEx (BF16 in, FP32 out) and
 * cublasSgemm by definition, column-major, with cuBLAS's argument checks
 * (leading dimensions, sizes), on the host. */
#ifndef GT_MOCK_CUBLAS_V2_H
#define GT_MOCK_CUBLAS_V2_H
#include "cuda_runtime.h"
#include "cuda_bf16.h"

typedef enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_ALLOC_FAILED = 3,
               CUBLAS_STATUS_INVALID_VALUE = 7, CUBLAS_STATUS_NOT_SUPPORTED = 15 } cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
typedef enum { CUDA_R_32F = 0, CUDA_R_16BF = 14 } cudaDataType;
typedef enum { CUBLAS_COMPUTE_32F = 68 } cublasComputeType_t;
typedef enum { CUBLAS_GEMM_DEFAULT = -1 } cublasGemmAlgo_t;
typedef struct mock_blas { cudaStream_t st; } *cublasHandle_t;

static inline cublasStatus_t cublasCreate(cublasHandle_t *h)
{
	*h = (cublasHandle_t)calloc(1, sizeof **h);
	return CUBLAS_STATUS_SUCCESS;
}
static inline cublasStatus_t cublasDestroy(cublasHandle_t h) { free(h); return CUBLAS_STATUS_SUCCESS; }
static inline cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s)
{
	h->st = s;
	return CUBLAS_STATUS_SUCCESS;
}
static inline const char *cublasGetStatusString(cublasStatus_t s)
{
	return s == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS" : "CUBLAS_STATUS_INVALID_VALUE";
}

static inline float mock_ld(const void *p, cudaDataType t, size_t i)
{
	return t == CUDA_R_16BF ? __bfloat162float(((const __nv_bfloat16 *)p)[i])
	                        : ((const float *)p)[i];
}

/* C (m x n, ldc) = alpha op(A) op(B) + beta C, column-major */
static inline cublasStatus_t mock_gemm(cublasOperation_t ta, cublasOperation_t tb, int m,
                                       int n, int k, const float *alpha, const void *A,
                                       cudaDataType at, int lda, const void *B,
                                       cudaDataType bt, int ldb, const float *beta, float *C,
                                       int ldc)
{
	if (m < 0 || n < 0 || k < 0 || lda < (ta == CUBLAS_OP_N ? (m > 1 ? m : 1) : (k > 1 ? k : 1)) ||
	    ldb < (tb == CUBLAS_OP_N ? (k > 1 ? k : 1) : (n > 1 ? n : 1)) || ldc < (m > 1 ? m : 1))
		return CUBLAS_STATUS_INVALID_VALUE;
	for (int j = 0; j < n; j++)
		for (int i = 0; i < m; i++) {
			double s = 0;
			for (int l = 0; l < k; l++) {
				float a = mock_ld(A, at, ta == CUBLAS_OP_N ? i + (size_t)l * lda : l + (size_t)i * lda);
				float b = mock_ld(B, bt, tb == CUBLAS_OP_N ? l + (size_t)j * ldb : j + (size_t)l * ldb);
				s += (double)a * b;
			}
			float *c = C + i + (size_t)j * ldc;
			/* beta 0 must not read C (it may hold garbage) */
			*c = (float)(*alpha * s + (*beta != 0 ? *beta * *c : 0));
		}
	return CUBLAS_STATUS_SUCCESS;
}

static inline cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta,
                                          cublasOperation_t tb, int m, int n, int k,
                                          const void *alpha, const void *A, cudaDataType at,
                                          int lda, const void *B, cudaDataType bt, int ldb,
                                          const void *beta, void *C, cudaDataType ct, int ldc,
                                          cublasComputeType_t ctype, cublasGemmAlgo_t algo)
{
	if (!h->st || at != CUDA_R_16BF || bt != CUDA_R_16BF || ct != CUDA_R_32F ||
	    ctype != CUBLAS_COMPUTE_32F)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	return mock_gemm(ta, tb, m, n, k, (const float *)alpha, A, at, lda, B, bt, ldb,
	                 (const float *)beta, (float *)C, ldc);
}

static inline cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta,
                                         cublasOperation_t tb, int m, int n, int k,
                                         const float *alpha, const float *A, int lda,
                                         const float *B, int ldb, const float *beta, float *C,
                                         int ldc)
{
	if (!h->st)
		return CUBLAS_STATUS_NOT_SUPPORTED;
	return mock_gemm(ta, tb, m, n, k, alpha, A, CUDA_R_32F, lda, B, CUDA_R_32F, ldb, beta, C,
	                 ldc);
}
#endif
