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
 * model's name: "none", or the file's base name without ".bin.gz". */
int gt_neteval_open_file(const char *path, const char *backend, gt_evaluator *ev,
                         char *name, size_t size, gt_error *e);

#endif
