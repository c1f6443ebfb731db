/*
 * train.h: the training loop of gt-train as a library (gt-train(1)): one
 * optimizer step at a time on batches drawn from a shard window, held-out
 * evaluation, and checkpoints (the "state file") that make a killed run
 * continue bit-identically. A DiLoCo learning unit runs the same steps.
 *
 * One step (llm.c's loop, over lib/nn and lib/optim):
 *   batch  = B rows of the window drawn uniformly with replacement, each
 *            under a random one of the 8 symmetries, from the trainer's own
 *            generator (so the state file holds the sampler's state)
 *   zero_grad; forward(train); backward(targets, loss weights)
 *   if loss and gradient norm are finite: optimizer step (a "good" step)
 *            at the schedule's rate for the rows seen after it (with
 *            conf.sched), then the moving average updated (with conf.ema)
 *   else: parameters and optimizer state untouched (a "bad" step, counted)
 *
 * The auxiliary policy head (nn.h GT_ARCH_AUX_POLICY) learns the
 * opponent's reply (gt-shard(5) policy_next) of the rows that have one,
 * with loss weight lossw.aux_policy (0.15); rows without one (the game's
 * last move, shards of older builds) add nothing to that term.
 *
 * Ownership: rows whose game carried no ownership (ownership_mask 0, e.g.
 * human games) add no ownership loss: a batch with no such row trains the
 * ownership head normally, a batch of them only passes no ownership target,
 * and in a mixed batch those rows get the network's own prediction as the
 * target (zero gradient) and their entropy is taken off the reported loss.
 *
 * Everything is deterministic for a given start, configuration, window
 * and number of BLAS threads: the same run gives the same bits.
 */
#ifndef GT_TRAIN_H
#define GT_TRAIN_H
#include <stddef.h>
#include <stdint.h>
#include "gt.h"
#include "model.h"
#include "nn.h"
#include "optim.h"
#include "shard.h"

#define GT_TRAIN_STATE_MAGIC "GTTRAIN1"

typedef struct gt_train_conf {
	int batch;             /* rows per step, 1..65536 */
	gt_optim_conf optim;   /* optimizer kind and hyperparameters */
	gt_nn_lossw lossw;     /* loss weights (GT_NN_LOSSW_DEFAULT) */
	uint64_t seed;         /* the sampler's generator */
	const char *backend;   /* lib/nn backend; NULL: "cpu" */
	gt_lr_sched sched;     /* the rate by rows seen (optim.h gt_lr_at, base
	                          optim.lr); all zero: optim.lr left as it is */
	double ema;            /* decay a good step of the parameters' moving
	                          average (optim.h gt_ema_update), 0..1; 0: none */
	int precision;         /* the steps' arithmetic, nn.h GT_PREC_FP32 (0, the
	                          default) or GT_PREC_BF16 (gt_nn_train_precision:
	                          float32 where it is not available) */
} gt_train_conf;

/* gt_train_conf_init: batch 256, AdamW defaults (optim.h), default loss
 * weights, seed 0, CPU backend, constant rate, no average, float32. */
void gt_train_conf_init(gt_train_conf *c);

/* Counters of a run; saved in the state file. */
typedef struct gt_train_counts {
	int64_t step;      /* steps attempted (good + bad) */
	int64_t good;      /* optimizer steps taken */
	int64_t bad;       /* steps skipped for a non-finite loss or gradient */
	int64_t bad_run;   /* bad steps since the last good one */
	int64_t samples;   /* rows of the good steps */
} gt_train_counts;

/* What one step did. Loss terms are the batch's, before the loss weights
 * (nn.h gt_nn_loss); grad_norm the Euclidean norm of the gradient;
 * sample_s / step_s the seconds spent drawing the batch and in forward,
 * backward and optimizer. */
typedef struct gt_train_step_info {
	int good;          /* 1 applied, 0 skipped */
	gt_nn_loss loss;
	double grad_norm;
	double sample_s, step_s;
} gt_train_step_info;

/* Held-out evaluation: loss terms (weighted means over rows, before the
 * loss weights; total with them) and the policy's top-1 accuracy: the
 * share of rows whose largest logit is the target's largest entry. */
typedef struct gt_train_eval_info {
	long rows;
	gt_nn_loss loss;
	double top1;
} gt_train_eval_info;

typedef struct gt_trainer gt_trainer;

/* gt_train_new: a trainer starting from m's parameters (m borrowed, only
 * read here) with configuration c (copied; backend string borrowed).
 * The start's digest (sha256 of the architecture and the parameters)
 * ties state files to this start. Returns NULL with e filled: a bad
 * batch or optimizer (GT_EINVAL), a model this build cannot run
 * (gt_model_nn's errors). Free with gt_train_free. */
gt_trainer *gt_train_new(const gt_model *m, const gt_train_conf *c, gt_error *e);
void gt_train_free(gt_trainer *t);

/* Borrowed views: the network (current parameters), the optimizer (e.g.
 * to change the learning rate between steps), the counters. */
gt_nn *gt_train_nn(gt_trainer *t);
gt_optim *gt_train_optim(gt_trainer *t);
const gt_train_counts *gt_train_get_counts(const gt_trainer *t);

/* gt_train_precision: the arithmetic of t's steps (GT_PREC_*): c->precision
 * where the network can train in it, else GT_PREC_FP32 with *why (why may
 * be NULL; a static string, NULL when what was asked is in effect). */
int gt_train_precision(const gt_trainer *t, const char **why);

/* gt_train_window_flags: the flags of gt_shard_window_open_with that the
 * network's windows need: GT_SHARD_WINDOW_REPLY with the auxiliary policy
 * head (the opponent's reply of each row, its target), else 0. */
int gt_train_window_flags(const gt_trainer *t);

/* gt_train_check_window: 0 if w's rows fit the network (feature version,
 * planes, globals, board size <= max_n), else GT_EUNSUPPORTED with the
 * difference in e. */
int gt_train_check_window(const gt_trainer *t, const gt_shard_window *w, gt_error *e);

/* gt_train_step: one step on a batch drawn from w (which must pass
 * gt_train_check_window). Fills info (may be NULL). Returns 0 for a good
 * step, 1 for a bad one (skipped, counted in bad and bad_run), or a
 * negative gt_err with e filled (the window does not fit). */
int gt_train_step(gt_trainer *t, gt_shard_window *w, gt_train_step_info *info, gt_error *e);

/* gt_train_eval: the loss and top-1 accuracy of the current network on
 * the first min(rows, window rows) rows of w under the identity symmetry,
 * in forwards of at most batch rows. Uses neither the sampler nor the
 * gradients, so it does not change the run. Returns 0 or a negative
 * gt_err with e filled. */
int gt_train_eval(gt_trainer *t, const gt_shard_window *w, long rows, int batch,
                  gt_train_eval_info *info, gt_error *e);

/* gt_train_rows_seen: the network's rows seen, its start's meta.rows
 * and the samples of the run: what the schedule's R counts. */
int64_t gt_train_rows_seen(const gt_trainer *t);

/* gt_train_average: the moving average of the parameters (borrowed,
 * gt_nn_nparams floats; the start's parameters before the first good
 * step), or NULL without conf.ema. */
const float *gt_train_average(const gt_trainer *t);

/* gt_train_eval_average: gt_train_eval of the moving average's
 * parameters in place of the current ones, which are put back bit for
 * bit after it. GT_EINVAL without conf.ema; else as gt_train_eval. */
int gt_train_eval_average(gt_trainer *t, const gt_shard_window *w, long rows, int batch,
                          gt_train_eval_info *info, gt_error *e);

/* gt_train_model: a new model (caller frees) holding the current
 * parameters (avg 1 with conf.ema: the moving average's), with parent's
 * architecture and series, meta.steps = parent's + good steps, meta.rows
 * = parent's + samples, meta.parent = parent_sha (NULL: all zero). */
gt_model *gt_train_model(gt_trainer *t, const gt_model *parent, const uint8_t parent_sha[32],
                         int avg);

/* gt_train_save: write the state file to path atomically (temporary name
 * in the same directory, fsync, rename): magic, the start's digest,
 * architecture, optimizer kind, batch, seed, counters, sampler state, the
 * optimizer's step count, the start's rows seen, the average's decay and
 * updates, then parameters, optimizer moments and the average as raw
 * little-endian float32, and a CRC-32 of everything before it (version 2;
 * gt-train(1) "The state file"). Returns 0 or GT_EIO. */
int gt_train_save(const gt_trainer *t, const char *path, gt_error *e);

/* gt_train_load: restore parameters, optimizer state, sampler and counters
 * from a state file written by gt_train_save for the same start, and the
 * same architecture, optimizer kind, batch, seed and average's decay
 * (learning rate, schedule and other hyperparameters may differ); version
 * 1 files (before the average) load as runs without one. Returns 0;
 * GT_ENOTFOUND when path
 * does not exist; GT_EIO; GT_EFORMAT (not a state file, truncated, CRC);
 * GT_EINVAL when it belongs to another run (what differs said in e). The
 * trainer is unchanged on any error. */
int gt_train_load(gt_trainer *t, const char *path, gt_error *e);

#endif
