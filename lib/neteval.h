/*
 * neteval.h: the network as a search evaluator (mcts.h gt_evaluator): a
 * batch of positions -> features (feat.h) -> one forward pass (nn.h) ->
 * policy logits, value, score and ownership from the side to move's view.
 * Used by gt-selfplay, gt-gtp and gt-elo so that all three evaluate
 * positions the same way.
 */
#ifndef GT_NETEVAL_H
#define GT_NETEVAL_H
#include "gt.h"
#include "mcts.h"
#include "model.h"

/* gt_neteval_open: an evaluator over a new network with model m's
 * parameters on backend (NULL: "cpu"). The evaluator owns the network and
 * its buffers (grown to the largest batch seen) and is not thread-safe:
 * open one per thread. m is borrowed for the call only. Fills *ev; returns
 * 0 or the error of gt_model_nn (in e). Free with gt_evaluator_close. */
int gt_neteval_open(const gt_model *m, const char *backend, gt_evaluator *ev, gt_error *e);

/* gt_neteval_open_file: the same from a model file path; "none" gives the
 * uniform evaluator (mcts.h). name (size bytes, may be NULL) receives the
 * model's name: "none", or the file's base name without ".bin.gz".
 * backend is gt_nn_new's: "cpu", "cuda", or "auto" (cuda when
 * gt_gpu_probe says a device answers, else cpu; gt_neteval_backend says
 * which). */
int gt_neteval_open_file(const char *path, const char *backend, gt_evaluator *ev,
                         char *name, size_t size, gt_error *e);

/* gt_neteval_backend: the backend name of a network evaluator ("cpu",
 * "cuda"), or NULL for an evaluator that is not a network (e.g. "none"). */
const char *gt_neteval_backend(const gt_evaluator *ev);

/* gt_neteval_max_n: the largest board size the evaluator ev can play:
 * its network's max_n (gt_arch), or GT_MAX_N for one that is not a
 * network (e.g. "none"). */
int gt_neteval_max_n(const gt_evaluator *ev);

/* gt_neteval_set_exact: with on != 0, every position is evaluated in a
 * forward pass of its own (batch 1), so that its outputs depend only on
 * the position, never on the other positions of the call or their number.
 * The CPU backend's GEMMs sum in an order that depends on the matrix shape
 * (OpenBLAS picks kernels by size), so outputs of batched calls differ in
 * the last bits (logits by about 1e-7) as the batch changes. Costs about a
 * quarter of the CPU throughput of b6c64 on 9x9 (batch 1 against 16).
 * Returns 0, or GT_EINVAL for an evaluator that is not a network (the
 * uniform one is exact anyway). */
int gt_neteval_set_exact(gt_evaluator *ev, int on);
/* gt_neteval_conv_batch: on = 1 lets the network's CPU forward choose its
 * 3x3 convolution method by the batch as well as the board (nn.h
 * gt_nn_conv_batch: Winograd from batches of 3 on 9x9, about 1.5 times
 * the positions per CPU-second at self-play's batches), for callers whose
 * outputs may depend on the batch anyway (gt-selfplay without
 * --deterministic). Returns 0, or GT_EINVAL for an evaluator that is not
 * a network. */
int gt_neteval_conv_batch(gt_evaluator *ev, int on);
/* gt_neteval_precision: ask for precision prec (GT_PREC_*, nn.h) in the
 * network's forwards and return the one in effect, with *why (why may be
 * NULL) saying why it is lower, as gt_nn_precision (gt_kata_precision
 * for KataGo networks). Returns -1 (*why NULL) for an evaluator
 * that is not a network. */
int gt_neteval_precision(gt_evaluator *ev, int prec, const char **why);

#endif
