/*
 * nn.h: the policy/value network (man5 gt-model): a residual tower of 3x3
 * convolutions with Fixup-style normalisation-free blocks and globally
 * pooled heads, forward for a batch and backward for training, behind a
 * backend interface ("cpu": im2col + OpenBLAS sgemm, and Winograd
 * F(4x4,3x3) for the 3x3 convolutions of play forwards (wino.h, GT_CONV),
 * lib/nn/nn_cpu.c; "cuda": lib/nn/cuda/, see gpu.h).
 *
 * All parameters live in ONE contiguous float array in the fixed order of
 * gt_arch_tensor() (the order of the model file), and the gradients in a
 * matching array, so saving, loading, zeroing, optimizer steps and
 * DiLoCo deltas are single loops over a flat vector.
 *
 * Network (B batch, n board size, N = n*n, C channels, L blocks):
 *   x0  = conv3x3(planes; in.w) + in.b + in.g . globals     (per channel)
 *   x_{l+1} = x_l + s_l * (conv3x3(relu(conv3x3(relu(x_l); w1)+b1); w2)+b2)
 *   a global pooling block (gt_arch_gpool_block) splits the first
 *   convolution's C outputs into Cr = C - Cg regular and Cg pooled ones:
 *     r = conv3x3(relu(x_l); w1) + b1, u = conv3x3(relu(x_l); w1g) + b1g,
 *     r += wg . [mean relu(u), mean relu(u) * (n-14)/10, max relu(u)]
 *     (per board and channel), x_{l+1} = x_l + s_l * (conv3x3(relu(r);
 *     w2) + b2), w2 being C x Cr (KataGo's gpool block, Wu 2019 sec. 3.2)
 *   t   = relu(x_L)
 *   policy: P = relu(pol.w t + pol.b) (1x1 conv to Hp channels)
 *           point logit = pol.out.w . P + pol.out.b; pass logit =
 *           pol.pass.w . [mean P, mean P*(n-14)/10] + pol.pass.b
 *   auxiliary policy (heads & GT_ARCH_AUX_POLICY): the opponent's reply
 *           from the same P, as a second output channel: pol.aux.w,
 *           pol.aux.b, pol.aux.pass.w, pol.aux.pass.b as the four above
 *           (KataGo's policy head's second channel, Wu 2019 sec. 3.4)
 *   value:  V = relu(val.w t + val.b) (1x1 conv to Hv channels)
 *           h = relu(fc1 [mean V, mean V*(n-14)/10]) (value_hidden units)
 *           value = tanh(fc2 . h), score = 20 * (score.w . h + score.b)
 *           ownership = tanh(own.w . V + own.b) per point
 * The pooling is KataGo's (mean and mean scaled by (n-14)/10; Wu 2019,
 * "Accelerating Self-Play Learning in Go"), so one set of weights plays
 * every board size.
 */
#ifndef GT_NN_H
#define GT_NN_H
#include <stddef.h>
#include <stdint.h>
#include "gt.h"

/* Architecture. gt_arch_check() gives the accepted ranges. The inputs
 * (in_planes, globals, feat_version) are the caller's: the network does
 * not know what they mean (gt's are feat.h's GT_FEAT_*). */
typedef struct gt_arch {
	int blocks;        /* residual blocks, 1..GT_ARCH_MAX_BLOCKS */
	int channels;      /* trunk channels, 1..GT_ARCH_MAX_CHANNELS */
	int in_planes;     /* spatial input planes */
	int globals;       /* global inputs */
	int feat_version;  /* version of the input features, 1.., kept as a tag */
	int head_policy;   /* policy head channels Hp */
	int head_value;    /* value head channels Hv */
	int value_hidden;  /* value head hidden units */
	int max_n;         /* largest board size, 2..GT_ARCH_MAX_N */
	int gpool_every;   /* 0: no global pooling blocks; K: blocks l > 0 with
	                    * l % K == 0 are (gt_arch_gpool_block) */
	int gpool_channels;/* Cg, their pooled channels, 1..channels-1 (0 if none) */
	int heads;         /* extra heads, GT_ARCH_* bits (0: none) */
} gt_arch;

/* heads bit 0: the auxiliary policy head, the opponent's reply */
#define GT_ARCH_AUX_POLICY 1
#define GT_ARCH_HEADS_KNOWN GT_ARCH_AUX_POLICY

#define GT_ARCH_MAX_BLOCKS 128
#define GT_ARCH_MAX_CHANNELS 1024
#define GT_ARCH_MAX_HEAD 1024
#define GT_ARCH_MAX_INPUTS 1024
#define GT_ARCH_MAX_N 19     /* board.h's GT_MAX_N */
#define GT_NN_SCORE_SCALE 20.0f /* score output = 20 * raw (points) */

/* One named view into the flat parameter array. */
typedef struct gt_tensor {
	char name[24];     /* "in.w", "blk0.w1", ... */
	size_t offset;     /* first float in the flat array */
	size_t size;       /* floats */
	int ndim, shape[4];/* PyTorch order, e.g. conv (out, in, 3, 3) */
} gt_tensor;

/* gt_arch_default: fill a with blocks, channels, the caller's inputs
 * (in_planes spatial planes and globals global inputs of feature version
 * feat_version; for gt's features GT_FEAT_PLANES, GT_FEAT_GLOBALS,
 * GT_FEAT_VERSION of feat.h) and the defaults for the rest (Hp = Hv = 32,
 * value_hidden = 64, max_n = GT_ARCH_MAX_N). Checks nothing. */
void gt_arch_default(gt_arch *a, int blocks, int channels, int in_planes, int globals,
                     int feat_version);
/* gt_arch_gpool_block: 1 if block l of a is a global pooling block
 * (gpool_every K > 0, l > 0 and l % K == 0: b6 with K 2 pools in blocks 2
 * and 4, as KataGo's g170 b6c96), else 0. gt_arch_has_gpool: 1 if any. */
int gt_arch_gpool_block(const gt_arch *a, int l);
int gt_arch_has_gpool(const gt_arch *a);
/* gt_arch_gpool_default: Cg for C channels, max(1, C/3) (KataGo's b6c96
 * pools 32 of 96); C must be at least 2. */
int gt_arch_gpool_default(int channels);
/* gt_arch_check: 0 if every field is in range, else GT_EFORMAT with the
 * field named in e. Never allocates, so it is safe on untrusted headers. */
int gt_arch_check(const gt_arch *a, gt_error *e);
/* gt_arch_ntensors: number of tensors; gt_arch_tensor: the i-th view
 * (0 <= i < ntensors) in file order. a must have passed gt_arch_check. */
int gt_arch_ntensors(const gt_arch *a);
void gt_arch_tensor(const gt_arch *a, int i, gt_tensor *t);
/* gt_arch_nparams: total floats of all tensors. */
size_t gt_arch_nparams(const gt_arch *a);
/* gt_arch_flops: multiply-adds x 2 of one forward position on an n board
 * (convolutions and 1x1 heads; elementwise work not counted). */
double gt_arch_flops(const gt_arch *a, int n);
/* gt_arch_init_params: random initial parameters from seed into params
 * (gt_arch_nparams floats): He-normal convolutions, the first convolution
 * of each block scaled by L^-1/2 and the second zero, s = 1, biases 0
 * (Fixup, Zhang et al. 2019, "Fixup Initialization"). Deterministic. */
void gt_arch_init_params(const gt_arch *a, float *params, uint64_t seed);

typedef struct gt_nn gt_nn;

/* Outputs of the last forward; arrays owned by the network, valid until
 * the next forward or free. */
typedef struct gt_nn_out {
	int batch, n;
	const float *policy; /* batch x (n*n+1) logits, pass last */
	const float *value;  /* batch, tanh in [-1,1], side to move's view */
	const float *score;  /* batch, points from the side to move's view */
	const float *own;    /* batch x n*n, tanh in [-1,1], side to move's view */
	const float *aux_policy; /* batch x (n*n+1) logits of the opponent's reply
	                          * (the move after the next, pass last); NULL
	                          * without the auxiliary policy head */
} gt_nn_out;

/* Training targets for the batch of the last forward (caller-owned). */
typedef struct gt_nn_target {
	const float *policy; /* batch x (n*n+1), a distribution (sums to 1) */
	const float *value;  /* batch, in [-1,1] (+1 won, 0 draw, -1 lost) */
	const float *score;  /* batch, points, side to move's view */
	const float *own;    /* batch x n*n in [-1,1]; NULL: no ownership loss */
	const float *weight; /* batch row weights; NULL: all 1 */
	/* the auxiliary policy head's (ignored by a network without it):
	 * aux_policy batch x (n*n+1), the opponent's reply, a distribution;
	 * NULL: no auxiliary loss. aux_weight: batch multipliers of the
	 * rows' weights for that loss (0: the row has no reply); NULL: all 1 */
	const float *aux_policy;
	const float *aux_weight;
} gt_nn_target;

/* Loss weights (defaults 1, 1, 0.5, 0.5, 0.15: gt-train(1)
 * --policy-weight ... --aux-policy-weight; 0.15 is Wu 2019's). */
typedef struct gt_nn_lossw {
	float policy, value, score, own, aux_policy;
} gt_nn_lossw;
#define GT_NN_LOSSW_DEFAULT ((gt_nn_lossw){1.0f, 1.0f, 0.5f, 0.5f, 0.15f})

/* Losses of a batch: each term sum_b weight_b * term_b / batch (not yet
 * multiplied by its loss weight); total = sum of lossw * term.
 *   policy: -sum_i target_i log softmax(logits)_i
 *   value:  binary cross-entropy of (1+value)/2 against (1+target)/2
 *   score:  Huber (delta 1) of (score - target) / 20
 *   own:    the value's cross-entropy per point, mean over the n*n points
 *   aux_policy: the policy's cross-entropy of the auxiliary head against
 *           the opponent's reply, each row's weight times its aux_weight
 *           (0 without the head or its target)
 * No L2 term: weight decay is the optimizer's (AdamW, lib/optim.h). */
typedef struct gt_nn_loss {
	double total, policy, value, score, own, aux_policy;
} gt_nn_loss;

/* gt_nn_new: a network of architecture a on backend ("cpu"; NULL means
 * "cpu"; "auto": cuda when a GPU is there and the network runs on it)
 * with zero parameters. Returns NULL with e filled on a bad architecture,
 * an unknown backend, or one that cannot run it (GT_EUNSUPPORTED: cuda
 * with global pooling blocks or the auxiliary policy head). Free with
 * gt_nn_free. */
gt_nn *gt_nn_new(const gt_arch *a, const char *backend, gt_error *e);
void gt_nn_free(gt_nn *nn);
const gt_arch *gt_nn_arch(const gt_nn *nn);
const char *gt_nn_backend_name(const gt_nn *nn);

/* The flat parameter and gradient arrays (gt_nn_nparams floats each),
 * owned by nn. After writing params call gt_nn_sync_params (the CPU
 * backend then remakes its Winograd filters at the next play forward; a
 * device backend uploads). */
float *gt_nn_params(gt_nn *nn);
float *gt_nn_grads(gt_nn *nn);
size_t gt_nn_nparams(const gt_nn *nn);
int gt_nn_sync_params(gt_nn *nn);
/* gt_nn_conv_batch: on = 1 lets the CPU backend choose the 3x3
 * convolutions' method by the batch too (wino.h, GT_CONV_AUTO_BATCH:
 * faster on small boards, but a position's outputs then differ by a few
 * 1e-6 with the batch it is in); 0 (the default): by the board alone.
 * GT_CONV=im2col|winograd overrides both; other backends ignore it. */
void gt_nn_conv_batch(gt_nn *nn, int on);
/* Arithmetic of play forwards (train = 0, gt_nn_precision) and of
 * training steps (gt_nn_train_precision), each float32 unless asked. */
enum { GT_PREC_FP32 = 0, GT_PREC_BF16 = 1, GT_PREC_INT8 = 2 };
/* gt_nn_precision: ask for prec in nn's play forwards and return the one
 * in effect. GT_PREC_BF16 (CPU backend): the 3x3 convolutions' GEMMs in
 * bfloat16 with float32 sums (bf16.h: weights rounded once per
 * gt_nn_sync_params, activations as they come; Winograd is not used), the
 * rest in float32; it needs AMX-BF16 or AVX512-BF16 (bf16.h) and no
 * GT_NO_BF16 in the environment, else GT_PREC_FP32 is returned and *why (when why is not NULL) says why
 * (a static string; NULL when the precision asked is in effect).
 * GT_PREC_INT8 (CPU backend): the same convolutions in 8-bit integers with
 * int32 sums (int8.h: weights quantized per output channel once per
 * gt_nn_sync_params, activations per board at each forward), the rest in
 * float32; it needs AMX-INT8 or AVX512-VNNI (int8.h; on arm64 the dot
 * product) and no GT_NO_INT8. Other backends:
 * GT_PREC_FP32 always. */
int gt_nn_precision(gt_nn *nn, int prec, const char **why);
/* gt_nn_train_precision: ask for prec in nn's training steps (forwards
 * with train = 1 and gt_nn_backward) and return the one in effect.
 * GT_PREC_BF16 (CPU backend; mixed precision): every 3x3 convolution of
 * the training forward, and the data gradient of the backward's (the
 * convolution of the output gradient with the transposed, flipped
 * kernel), in bfloat16 with float32 sums (bf16.h), the weights of both
 * rounded from the float32 parameters once per gt_nn_sync_params; the
 * weight gradients (oneDNN or im2col + sgemm), the parameters themselves
 * (the master weights), the optimizer's state and every other layer stay
 * float32. No loss scaling: bfloat16 has float32's 8 exponent bits, so
 * gradients do not underflow as in float16. It needs what gt_nn_precision's
 * GT_PREC_BF16 needs (bf16.h gt_bf16_available: AMX-BF16 or AVX512-BF16,
 * no GT_NO_BF16), else GT_PREC_FP32 is returned and *why (when why is not
 * NULL) says why (a static string; NULL when the precision asked is in
 * effect). GT_PREC_INT8 is not a training precision (GT_PREC_FP32, with
 * why). Other backends: GT_PREC_FP32 always. Independent of
 * gt_nn_precision. */
int gt_nn_train_precision(gt_nn *nn, int prec, const char **why);
/* gt_nn_precision_find: GT_PREC_* of "fp32", "bf16" or "int8", else -1. */
int gt_nn_precision_find(const char *name);
/* gt_nn_precision_name: "fp32", "bf16" or "int8". */
const char *gt_nn_precision_name(int prec);
/* gt_nn_precision_kernel: the CPU kernel that prec's products take now
 * ("amx-bf16", "avx512-bf16", "amx-int8", "avx512-vnni", "neon-dotprod";
 * bf16.h gt_bf16_kernel, int8.h gt_int8_kernel), *why (why may be NULL)
 * why not the tiles where it is not "amx-*" (NULL else); NULL for
 * GT_PREC_FP32 or where prec is not available (*why says why). */
const char *gt_nn_precision_kernel(int prec, const char **why);
/* gt_nn_zero_grad: grads = 0 (backward accumulates). */
void gt_nn_zero_grad(gt_nn *nn);

/* gt_nn_forward: evaluate batch positions of one board size n (2..max_n).
 * planes: batch x in_planes x n x n (NCHW float32); globals: batch x
 * globals. train = 1 keeps the activations for gt_nn_backward (more
 * memory); 0 for play. Buffers are allocated for the largest (batch, n)
 * seen and reused. Fills out (may be NULL). Returns 0 or GT_EINVAL. */
int gt_nn_forward(gt_nn *nn, int batch, int n, const float *planes,
                  const float *globals, int train, gt_nn_out *out);

/* gt_nn_backward: after gt_nn_forward(..., train=1), compute the loss of
 * the targets t with weights w and ADD its gradient with respect to every
 * parameter to gt_nn_grads. loss may be NULL. Returns 0, GT_EINVAL when
 * the last forward was not a training forward. */
int gt_nn_backward(gt_nn *nn, const gt_nn_target *t, const gt_nn_lossw *w,
                   gt_nn_loss *loss);

/* gt_nn_eval_loss: the loss of the last forward's outputs against t, without
 * gradients (for validation). */
int gt_nn_eval_loss(gt_nn *nn, const gt_nn_target *t, const gt_nn_lossw *w,
                    gt_nn_loss *loss);

/* gt_nn_error: the text of nn's last backend failure (on the cuda backend
 * a failed CUDA or cuBLAS call of gt_nn_forward, gt_nn_backward or
 * gt_nn_sync_params, which then return GT_EIO, or GT_ENOMEM when device
 * memory ran out); "" when there was none. Owned by nn. */
const char *gt_nn_error(const gt_nn *nn);

/* gt_nn_set_threads: BLAS threads for every CPU network in the process
 * (openblas_set_num_threads; 1 unless set before or after gt_nn_new). */
void gt_nn_set_threads(int nthreads);
/* gt_nn_threads_default: 1 BLAS thread unless gt_nn_set_threads was called
 * (what gt_nn_new does; for the other BLAS users, nn/katago.c). */
void gt_nn_threads_default(void);

#endif
