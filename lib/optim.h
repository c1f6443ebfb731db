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

#endif
