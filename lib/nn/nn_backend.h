/*
 * nn_backend.h: what a backend of lib/nn implements (private to lib/nn/).
 * A backend keeps its own buffers in nn->state; nn->params and nn->grads
 * are the host master copies that callers see.
 */
#ifndef GT_NN_BACKEND_H
#define GT_NN_BACKEND_H
#include "nn.h"

typedef struct gt_nn_backend {
	const char *name;
	int (*init)(gt_nn *nn);                 /* set nn->state; 0 or gt_err */
	void (*release)(gt_nn *nn);             /* free nn->state */
	int (*sync_params)(gt_nn *nn);          /* host params changed */
	int (*forward)(gt_nn *nn, int batch, int n, const float *planes,
	               const float *globals, int train);   /* fills nn->out */
	/* backward: loss of the last training forward; grads != 0 adds the
	 * gradient to nn->grads. */
	int (*backward)(gt_nn *nn, const gt_nn_target *t, const gt_nn_lossw *w,
	                gt_nn_loss *loss, int grads);
} gt_nn_backend;

struct gt_nn {
	gt_arch arch;
	const gt_nn_backend *be;
	size_t nparams;
	float *params, *grads;
	int ntensors;
	gt_tensor *tensors;
	gt_nn_out out;
	void *state;
	int profile;          /* nonzero: the backend adds to prof_conv_s */
	double prof_conv_s;   /* seconds in 3x3 convolutions (im2col, GEMM, bias) */
	char errtext[200];    /* a backend's last error in words ("" if none) */
};

extern const gt_nn_backend gt_nn_backend_cpu;
#ifdef GT_CUDA
extern const gt_nn_backend gt_nn_backend_cuda; /* lib/nn/cuda/nn_cuda.cu */
#endif

/* gt_nn_cpu_chunk: columns (boards x n*n) per im2col chunk of the CPU
 * backend, 1..GT_NN_CPU_CHUNK_MAX (the default); at least one board is
 * always taken. For tests of the chunking and for tuning. */
#define GT_NN_CPU_CHUNK_MAX 1024
void gt_nn_cpu_chunk(int cols);

#endif
