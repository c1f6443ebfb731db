/*
 * dnn.h: convolutions by oneDNN (Debian's libdnnl 2.6: JIT kernels for
 * the CPU it runs on), for the CPU networks under GT_CONV=onednn (wino.h
 * GT_CONV_ONEDNN): the forward of a k x k convolution (stride 1, zero
 * padding k/2, PyTorch's cross-correlation), by oneDNN's Winograd
 * F(4x4,3x3) for 3x3 where it has one (AVX-512) and its own choice
 * otherwise, and the weight gradient. gt's arrays stay in gt's layouts,
 * given by strides: point (y, x) of channel c of board b is at p[b s_b +
 * c s_c + y n + x] (NCHW is s_b = C n^2, s_c = n^2; nn_cpu.c's
 * channel-major C x BN is s_b = n^2, s_c = B n^2). Each call reorders
 * them into oneDNN's blocked layouts and back (bench/onednn/conv.c
 * measures what that costs). Primitives are made once per shape and
 * thread and kept until the thread ends. oneDNN's threads follow
 * gt_nn_set_threads (OpenMP, per calling thread).
 */
#ifndef GT_DNN_H
#define GT_DNN_H
#include <stddef.h>

/* GT_DNNL: 1 when oneDNN is built in (the default), 0 in a build without
 * it (make DNNL=0, the default of make ARCH=arm64: Debian 12's
 * libdnnl-dev:arm64 does not install beside the amd64 one), where the
 * calls below do nothing and return -1, and the callers run gt's own
 * convolutions (GT_CONV=onednn as automatic). */
#ifndef GT_DNNL
#define GT_DNNL 1
#endif

/* gt_dnn_why_not: NULL when oneDNN is built in, else a static string
 * saying it is not ("oneDNN is not built in (make DNNL=0)"). */
const char *gt_dnn_why_not(void);

/* gt_dnn_set_threads: threads of each oneDNN call from now on (from
 * gt_nn_set_threads); 1 before any call. */
void gt_dnn_set_threads(int threads);

/* gt_dnn_version: a weights version (gt_dnn_conv_args wver) never given
 * before in this process, from 1 up: the reordered weights are kept by
 * pointer and version, and a network freed and another made at the same
 * address must not find the first one's (thread-safe). */
unsigned long gt_dnn_version(void);

/* out = (add ? out : 0) + bias (when not NULL) + conv(relu ? relu(in) :
 * in; w), w cout x cin x k x k floats (PyTorch's layout), k odd, boards
 * of n x n points. in and out must not overlap. wver: the version of the
 * values at w (gt_dnn_version: a new one whenever they change or are
 * made): a call with the same w and wver reuses the weights it
 * reordered before (up to 64 arrays per thread), 0 reorders them every
 * call (a scratch array). 0, or -1 when oneDNN refuses the shape or
 * memory runs out (nothing written to out then). */
typedef struct gt_dnn_conv_args {
	const float *w;
	unsigned long wver;
	int cin, cout, k, B, n;
	const float *in;
	size_t in_b, in_c;
	int relu;
	const float *bias;
	float *out;
	size_t out_b, out_c;
	int add;
} gt_dnn_conv_args;

int gt_dnn_conv(const gt_dnn_conv_args *a);

/* dw (cout x cin x k x k) += alpha * the gradient of sum(dout * conv(relu
 * ? relu(in) : in; w)) with respect to w, that is alpha * dout *
 * im2col(in)^T; in (cin channels) and dout (cout) in gt's layouts as
 * above. 0, or -1 as gt_dnn_conv (dw unchanged then). */
typedef struct gt_dnn_wgrad_args {
	int cin, cout, k, B, n;
	const float *in;
	size_t in_b, in_c;
	int relu;
	const float *dout;
	size_t dout_b, dout_c;
	float alpha;
	float *dw;
} gt_dnn_wgrad_args;

int gt_dnn_wgrad(const gt_dnn_wgrad_args *a);

#endif
