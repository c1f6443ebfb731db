/*
 * kataexport.h: a gt network written as a KataGo model file (KataGo's
 * model format version 8, inputs version 7: what KataGo's
 * cpp/neuralnet/desc.cpp reads and nn/katago.h reads back), so that
 * KataGo and its front ends can load what gt trains (gt-model(1) export,
 * man1 gt-model for what is exact and what is not).
 *
 * KataGo's network sees KataGo's 22 planes and 19 globals; gt's 15 planes
 * are functions of 11 of them (on board, own and opponent stones, stones
 * with 1 and 2 liberties, the ko plane, the last 5 moves) through a ReLU,
 * and gt's 11 globals an affine function of 8 (passes, komi, ko rule,
 * suicide) on gt's three rulesets and KataGo's simple-ko ones (as gt's
 * chinese, or tromp-taylor with suicide). So the file holds one extra residual
 * block first, whose first convolution and ReLU compute gt's planes from
 * 11 extra trunk channels carrying KataGo's, and whose second convolution
 * is gt's input convolution (its own output cancels the 11 channels); the
 * trunk is C + 11 channels wide. The constant biases gt adds to the trunk
 * (input bias, each block's b2) are carried in the next batch norm's bias.
 * The heads get one constant channel each (a batch-norm bias of 1) that
 * carries the biases KataGo's layers lack: the point and pass logits', the
 * ownership's; value = tanh(v) becomes the win/loss logits v, -v; score
 * and lead are gt's score; the no-result logit is -200.
 */
#ifndef GT_KATAEXPORT_H
#define GT_KATAEXPORT_H
#include "gt.h"
#include "model.h"

#define GT_KATAEXPORT_VERSION 8  /* KataGo model format version written */
#define GT_KATAEXPORT_EXTRA 11   /* extra trunk channels: KataGo's planes gt's use */

/* gt_kata_export: write m, a network of gt's features (feat.h version),
 * to path as a KataGo model: gzip when path ends in ".gz", else plain
 * (KataGo's .bin). name: the model name in the file (at most 96 of
 * [A-Za-z0-9_-]; NULL: gt_model_name's, other characters as '_').
 * Written atomically (fs.h). The auxiliary policy head is not written
 * (version 8 has no second policy channel; gt's search ignores it).
 * Returns 0, GT_EUNSUPPORTED (other input features), GT_EINVAL (bad name)
 * or GT_EIO, with the reason in e. */
int gt_kata_export(const gt_model *m, const char *path, const char *name, gt_error *e);

#endif
