/*
 * katago.h: KataGo's networks (model files of KataGo's own format, model
 * versions 8 to 15: ".bin.gz", ".bin", ".txt.gz", ".txt") read and
 * evaluated on the CPU (cblas_sgemm; the 3x3 convolutions by Winograd
 * F(4x4,3x3) where GT_CONV and gt_conv_winograd say, wino.h), so that
 * gt's commands can play with
 * and compare against the public KataGo networks (man5 gt-model,
 * "KATAGO NETWORKS").
 *
 * The network is the one KataGo's own backends compute (the layer order of
 * KataGo's cpp/neuralnet/desc.cpp and the arithmetic of its Eigen backend,
 * Wu 2019, "Accelerating Self-Play Learning in Go"):
 *   x = conv(planes) + matmul(globals)                    (trunk input)
 *   ordinary block:  x += conv2(act(bn2(conv1(act(bn1(x))))))
 *   gpool block:     a = act(bn1(x)); r = conv1(a);
 *                    g = act(bng(convg(a))); r += matmul(pool3(g));
 *                    x += conv2(act(bn2(r)))
 *   nested bottleneck block: x += post(inner blocks(pre(x))), 1x1 pre/post
 *   t = act(bn_tip(x))
 *   policy: p = conv_p1(t); g = act(bn_g1(conv_g1(t))); p += matmul(pool3(g));
 *           point logits = conv_p2(act(bn_p1(p))); pass = matmul(pool3(g))
 *   value:  v = act(bn_v1(conv_v1(t))); h = act(matmul(poolv(v)) + b);
 *           win/loss/no-result logits = matmul(h) + b; score values
 *           (mean, stdev, lead, variance time, ...) = matmul(h) + b;
 *           ownership = conv_own(v) (before tanh)
 * pool3: mean, mean * (sqrt(N) - 14) / 10, max over the N points;
 * poolv: mean, mean * (sqrt(N) - 14) / 10, mean * ((sqrt(N)-14)^2/100 - 0.1).
 * Batch norm (or Fixup's scale and bias, stored by KataGo as batch norm
 * layers) is applied as y = x * scale / sqrt(var + eps) + (bias - mean * ...).
 * Everything is from the side to move's view.
 */
#ifndef GT_KATAGO_H
#define GT_KATAGO_H
#include "gt.h"

#define GT_KATA_MIN_VERSION 8
#define GT_KATA_MAX_VERSION 15
#define GT_KATA_MAX_CHANNELS 4096      /* any one layer's channels */
#define GT_KATA_MAX_BLOCKS 256         /* blocks of one stack */
#define GT_KATA_MAX_PARAMS (1UL << 28) /* refuse larger files (1 GiB of floats) */

typedef struct gt_kata gt_kata;

/* What gt-model describe shows of a KataGo network. */
typedef struct gt_kata_info {
	char name[100];         /* the model's own name (KataGo: at most 96 chars) */
	int version;            /* model format version, 8..15 */
	int in_planes, globals; /* spatial and global inputs (22, 19 for 8..15) */
	int blocks, channels;   /* trunk blocks (top level) and trunk channels */
	int mid, regular, gpool;/* the trunk's declared mid, regular and gpool channels */
	int nested;             /* top-level blocks that are nested bottlenecks */
	int gpool_blocks;       /* global-pooling blocks (at any depth) */
	int head_policy;        /* policy head channels (p1) */
	int head_gpool;         /* policy head pooled channels (g1) */
	int head_value;         /* value head channels (v1) */
	int value_hidden;       /* value head hidden units (v2) */
	int score_outputs;      /* score-value outputs (4 for version 8, 6 after) */
	int policy_outputs;     /* policy output channels (1, 2 from version 12) */
	int activation;         /* trunk activation: 0 relu, 1 mish, 2 silu, 3 identity */
	int binary;             /* 1: floats were "@BIN@" blocks; 0: text */
	double lead_mult;       /* lead = raw * lead_mult (20 before version 13) */
	/* KataGo's other post-process multipliers (the file's from version 13,
	 * else KataGo's defaults): score mean 20, score stdev 20, varTimeLeft
	 * 40, short-term value error 0.25, short-term score error 30 */
	double score_mean_mult, score_stdev_mult, var_time_mult, st_value_mult, st_score_mult;
	size_t params;          /* floats read */
} gt_kata_info;

/* Raw outputs of the last forward; owned by k, valid until the next forward
 * or free. */
typedef struct gt_kata_out {
	int batch, n;
	const float *policy; /* batch x (n*n+1) logits, pass last */
	const float *value;  /* batch x 3: win, loss, no-result logits */
	const float *score;  /* batch x score_outputs, raw (before KataGo's multipliers) */
	const float *own;    /* batch x n*n, before tanh */
} gt_kata_out;

/* gt_kata_sniff: 1 when path holds (possibly gzipped) a file that starts as
 * a KataGo model does (a name token, then a version number), 0 when not
 * (e.g. a gt model, whose first bytes are "GTNN"), GT_EIO when it cannot be
 * read. Reads at most 256 bytes. */
int gt_kata_sniff(const char *path);

/* gt_kata_read: read a KataGo model file (gzip or not: zlib reads both;
 * floats as "@BIN@" blocks unless the name ends in ".txt" or ".txt.gz").
 * Every header number is range-checked before anything is allocated, and
 * float arrays grow with the data actually read, so a truncated or hostile
 * file costs no more memory than its own size. Versions outside 8..15,
 * meta encoders, RMS norms, transformer blocks and dilated convolutions are
 * refused with GT_EUNSUPPORTED naming the version and the layer kind.
 * Errors: GT_EIO (cannot open), GT_EFORMAT (malformed or truncated, with
 * the layer named in e), GT_EUNSUPPORTED. On success *out is new (free
 * with gt_kata_free). */
int gt_kata_read(const char *path, gt_kata **out, gt_error *e);
void gt_kata_free(gt_kata *k);
/* gt_kata_conv_batch: as gt_nn_conv_batch (nn.h) for a KataGo network. */
void gt_kata_conv_batch(gt_kata *k, int on);
/* gt_kata_precision: as gt_nn_precision (nn.h) for a KataGo network: with
 * GT_PREC_BF16 its 3x3 convolutions go by im2col in bfloat16 (bf16.h),
 * with GT_PREC_INT8 in int8 (int8.h; a position whose convolution input
 * has a negative value in float32), the rest (1x1 convolutions, heads,
 * Winograd not used) in float32. */
int gt_kata_precision(gt_kata *k, int prec, const char **why);
const gt_kata_info *gt_kata_info_of(const gt_kata *k);

/* gt_kata_forward: the network on batch positions of one board size n
 * (2..19). planes: batch x in_planes x n x n (NCHW); globals: batch x
 * globals (katafeat.h gives KataGo's). Buffers grow to the largest
 * (batch, n) seen. Returns 0 or GT_EINVAL. Not thread-safe (one gt_kata per
 * thread). */
int gt_kata_forward(gt_kata *k, int batch, int n, const float *planes, const float *globals,
                    gt_kata_out *out);

#endif
