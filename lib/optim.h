/*
 * optim.h: optimizers over flat parameter/gradient arrays (nn.h keeps all
 * parameters in one vector): SGD with momentum, Adam, AdamW. The state
 * (moments and step count) is flat arrays the trainer can save and
 * restore with gt_optim_state.
 *
 *   sgd:   m = mu m + g + wd p;  p -= lr (nesterov ? g + wd p + mu m : m)
 *   adam:  g' = g + wd p (L2 through the gradient); m = b1 m + (1-b1) g';
 *          v = b2 v + (1-b2) g'^2; p -= lr mhat / (sqrt(vhat) + eps)
 *          with mhat = m / (1-b1^t), vhat = v / (1-b2^t)
 *          (Kingma and Ba 2015, "Adam", Algorithm 1)
 *   adamw: as adam on g, and p -= lr wd p decoupled (Loshchilov and
 *          Hutter 2019, "Decoupled Weight Decay Regularization")
 */
#ifndef GT_OPTIM_H
#define GT_OPTIM_H
#include <stddef.h>
#include <stdint.h>
#include "gt.h"

enum { GT_OPTIM_SGD = 0, GT_OPTIM_ADAM = 1, GT_OPTIM_ADAMW = 2 };

typedef struct gt_optim_conf {
	int kind;          /* GT_OPTIM_* */
	float lr;          /* learning rate */
	float momentum;    /* sgd */
	int nesterov;      /* sgd */
	float beta1, beta2, eps; /* adam, adamw */
	float weight_decay;
} gt_optim_conf;

/* gt_optim_defaults: lr 1e-3, momentum 0.9, betas 0.9/0.999, eps 1e-8,
 * weight decay 0 (1e-4 for adamw) for kind. */
gt_optim_conf gt_optim_defaults(int kind);

typedef struct gt_optim gt_optim;

/* gt_optim_new: an optimizer for n parameters (state zero, step 0);
 * NULL for an unknown kind. Free with gt_optim_free. */
gt_optim *gt_optim_new(const gt_optim_conf *c, size_t n);
void gt_optim_free(gt_optim *o);
/* gt_optim_conf_get / set: the configuration (e.g. to change lr). */
gt_optim_conf *gt_optim_conf_get(gt_optim *o);

/* gt_optim_step: one update of params (n floats) from grads (n floats).
 * grads is read only. */
void gt_optim_step(gt_optim *o, float *params, const float *grads);

/* gt_optim_state: the state for checkpoints, owned by o: *m and *v are n
 * floats each (v NULL for sgd; m is the momentum buffer), *step the
 * number of steps taken. Write into them to restore. Returns n. */
size_t gt_optim_state(gt_optim *o, float **m, float **v, int64_t **step);

/* gt_grad_norm: Euclidean norm of n floats (double accumulation). */
double gt_grad_norm(const float *g, size_t n);
/* gt_grad_clip: scale g so its norm is at most max_norm; returns the norm
 * before clipping. */
double gt_grad_clip(float *g, size_t n, double max_norm);

/* A learning-rate schedule by rows seen (gt-train(1) --lr-warmup and
 * --lr-decay). R is the network's rows seen once the step is taken (its
 * start's meta.rows, the run's rows before the step and the step's
 * batch); the step's learning rate is
 *   lr x min(1, R / warmup) x factor[i]   (warmup 0: no warm-up)
 * with i the last stage whose rows[i] <= R (factor 1 before the first):
 * a linear warm-up from 0 (Goyal et al. 2017, "Accurate, Large Minibatch
 * SGD", section 2.2) and KataGo's step decay (its g170 run lowered the
 * rate in steps late in the run; Wu 2019, "Accelerating Self-Play
 * Learning in Go", appendix). All zero: a constant rate. */
#define GT_LR_STAGES_MAX 16
typedef struct gt_lr_sched {
	int64_t warmup;                  /* rows of warm-up, 0 none */
	int nstages;                     /* 0..GT_LR_STAGES_MAX */
	int64_t rows[GT_LR_STAGES_MAX];  /* strictly increasing, > 0 */
	double factor[GT_LR_STAGES_MAX]; /* >= 0, of the base rate */
} gt_lr_sched;

/* gt_lr_sched_on: whether s changes the rate at all (not all zero). */
int gt_lr_sched_on(const gt_lr_sched *s);

/* gt_lr_at: the rate of a step that brings the rows seen to R (>= 0)
 * under s with base rate lr (formula above). */
double gt_lr_at(const gt_lr_sched *s, double lr, int64_t R);

/* gt_lr_parse_decay: "ROWS:FACTOR[,ROWS:FACTOR...]" into s's stages
 * (ROWS a decimal integer 1..10^15, strictly increasing; FACTOR a number
 * 0..1000; at most GT_LR_STAGES_MAX). Returns 0, or GT_EINVAL with e
 * naming the stage and the reason (s's stages then unchanged). */
int gt_lr_parse_decay(const char *text, gt_lr_sched *s, gt_error *e);

/* gt_ema_update: one update of an exponential moving average of
 * parameters with the bias correction of Adam's moments (Kingma and Ba
 * 2015, section 3), kept as the average itself:
 *   avg += w (p - avg),  w = (1 - decay) / (1 - decay^t)
 * where t >= 1 counts the updates, this one included: after t updates avg
 * is sum_i decay^(t-i) p_i / sum_i decay^(t-i) over the p_i given (t = 1
 * copies p: the starting avg weighs nothing). decay in [0, 1); n floats. */
void gt_ema_update(float *avg, const float *p, size_t n, double decay, int64_t t);

#endif
