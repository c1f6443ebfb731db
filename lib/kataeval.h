/*
 * kataeval.h: a KataGo network (nn/katago.h) behind the search's evaluator
 * interface (mcts.h gt_evaluator), with KataGo's features of the position
 * (katafeat.h) for the ko rule of the board's rules. Outputs mapped to
 * gt's, from the side to move's view:
 *   logits    KataGo's policy logits (pass last)
 *   value     P(win) - P(loss) of the win/loss/no-result softmax (the
 *             no-result outcome dropped under superko rules, as KataGo does)
 *   score     KataGo's score lead (raw * 20, or the file's lead multiplier
 *             from model version 13), times 1 - P(no result)
 *   ownership tanh of the ownership head
 * gt_neteval_open_file (neteval.h) opens one when a file is a KataGo
 * network, so every command that takes --model takes one.
 */
#ifndef GT_KATAEVAL_H
#define GT_KATAEVAL_H
#include "gt.h"
#include "mcts.h"

/* gt_kataeval_open: read the KataGo network at path and fill *ev. backend:
 * NULL, "cpu" or "auto" (KataGo networks run on the CPU; "cuda" is refused
 * with GT_EUNSUPPORTED). The evaluator owns the network, is not
 * thread-safe (open one per thread) and is freed by gt_evaluator_close.
 * Errors of gt_kata_read, in e. */
int gt_kataeval_open(const char *path, const char *backend, gt_evaluator *ev, gt_error *e);

/* gt_kataeval_is: 1 when ev is a KataGo evaluator. */
int gt_kataeval_is(const gt_evaluator *ev);

/* gt_kataeval_set_exact: as gt_neteval_set_exact (one forward pass per
 * position). Returns 0, or GT_EINVAL when ev is not a KataGo evaluator. */
int gt_kataeval_set_exact(gt_evaluator *ev, int on);
/* gt_kataeval_conv_batch: as gt_neteval_conv_batch (neteval.h). */
int gt_kataeval_conv_batch(gt_evaluator *ev, int on);
/* gt_kataeval_precision: gt_kata_precision (katago.h) of ev's network;
 * -1 when ev is not a KataGo evaluator. */
int gt_kataeval_precision(gt_evaluator *ev, int prec, const char **why);

#endif
