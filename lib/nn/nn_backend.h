/*
 * nn_backend.h: what a backend of lib/nn implements, and the host code
 * that every backend calls (private to lib/nn/ and its tests): the named
 * views of the flat parameter array (nn.c) and the loss with its gradient
 * with respect to the head outputs (nn_loss.c), so that the training
 * objective and the tensor order exist once. A backend keeps its own
 * buffers in nn->state; nn->params and nn->grads are the host master
 * copies that callers see.
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
	void (*conv_batch)(gt_nn *nn, int on);  /* gt_nn_conv_batch; NULL: nothing to do */
	/* gt_nn_precision: the precision now in effect, *why when lower than
	 * asked; NULL: float32 only */
	int (*precision)(gt_nn *nn, int prec, const char **why);
	/* gt_nn_train_precision: the same for training steps; NULL: float32 only */
	int (*train_precision)(gt_nn *nn, int prec, const char **why);
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

/* Named views of a flat parameter (or gradient) array of nn, in the file
 * order of gt_arch_tensor (man5 gt-model). Shapes as in nn.h: C channels,
 * Cin input planes, G globals, Hp, Hv head channels, H value hidden
 * units; PyTorch order (out, in, ky, kx). */
typedef struct gt_nn_block_views {
	float *w1, *b1;   /* C x C x 3 x 3, C: first convolution (of a global
	                   * pooling block: w1 then w1g, b1 then b1g, adjacent) */
	float *wg;        /* Cr x 3Cg: pooled to biases (global pooling block), else NULL */
	float *w2, *b2;   /* C x Cr x 3 x 3, C: second convolution (Cr = C - Cg) */
	float *s;         /* 1: the Fixup scalar */
	int gpool;        /* Cg: global pooling channels; 0 for an ordinary block */
} gt_nn_block_views;

typedef struct gt_nn_views {
	float *in_w, *in_b, *in_g;   /* C x Cin x 3 x 3, C, C x G (NULL if G = 0) */
	gt_nn_block_views *blk;      /* blocks entries */
	float *pol_w, *pol_b;        /* Hp x C, Hp: 1x1 convolution */
	float *pol_ow, *pol_ob;      /* Hp, 1: point logits */
	float *pol_pw, *pol_pb;      /* 2Hp, 1: pass logit from the pooled P */
	float *pol_aw, *pol_ab;      /* Hp, 1: the auxiliary policy's point logits */
	float *pol_apw, *pol_apb;    /* 2Hp, 1: and its pass logit (all four NULL
	                              * without the head) */
	float *val_w, *val_b;        /* Hv x C, Hv: 1x1 convolution */
	float *fc1_w, *fc1_b;        /* H x 2Hv, H: value MLP */
	float *fc2_w, *fc2_b;        /* H, 1: value */
	float *sc_w, *sc_b;          /* H, 1: score */
	float *own_w, *own_b;        /* Hv, 1: ownership */
} gt_nn_views;

/* gt_nn_views_init: point v into base (gt_nn_nparams floats; only offsets
 * are taken, so base may be device memory). v->blk is allocated: release
 * with gt_nn_views_release. */
void gt_nn_views_init(gt_nn_views *v, const gt_nn *nn, float *base);
void gt_nn_views_release(gt_nn_views *v);

/* The raw head outputs of a batch of B rows on boards of N points, as a
 * backend keeps them (host memory; rows may be strided by more rows). */
typedef struct gt_nn_heads {
	const float *policy; /* B x (N+1) logits, pass last */
	const float *vpre;   /* B: the value before tanh */
	const float *sraw;   /* B: the score / GT_NN_SCORE_SCALE */
	const float *opre;   /* B x N: the ownership before tanh */
	const float *aux;    /* B x (N+1): the auxiliary policy's logits; NULL: none */
} gt_nn_heads;

/* The gradient of the (weighted) loss with respect to them. */
typedef struct gt_nn_dheads {
	float *point;        /* B x N: the points' policy logits */
	float *pass;         /* B: the pass logit */
	float *vpre, *sraw;  /* B each */
	float *opre;         /* B x N */
	float *aux_point;    /* B x N, B: of the auxiliary policy's logits */
	float *aux_pass;     /* (written when heads.aux is not NULL) */
} gt_nn_dheads;

/* gt_nn_head_loss: the loss of nn.h (gt_nn_loss) of the heads h of B rows
 * of N points against t with weights w into loss (may be NULL) and, when
 * d is not NULL, its gradient with respect to the raw head outputs into
 * d (every entry written). In double on the host, O(B N): one training
 * objective for every backend. */
void gt_nn_head_loss(int B, size_t N, const gt_nn_heads *h, const gt_nn_target *t,
                     const gt_nn_lossw *w, gt_nn_loss *loss, const gt_nn_dheads *d);

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
