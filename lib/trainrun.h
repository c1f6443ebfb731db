/*
 * trainrun.h: a whole gt-train run (gt-train(1)) over lib/train: the
 * window of training rows and the held-out one, resuming from the state
 * file, the steps with a metrics line every few, checkpoints, the stop
 * after too many non-finite steps in a row or on a signal, and the new
 * network written under its name.
 *
 * The library prints nothing: metrics lines and notes (the window read, a
 * resumed run, a skipped step) go to the caller's callbacks, which gt-train
 * writes to stdout and stderr. Error texts are the whole message gt-train
 * prints (a problem of the held-out rows starts with "--validate: ").
 */
#ifndef GT_TRAINRUN_H
#define GT_TRAINRUN_H
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "gt.h"
#include "model.h"
#include "nn.h"
#include "train.h"

typedef struct gt_trainrun_conf {
	gt_train_conf train;   /* the trainer's; train.seed also seeds the windows */
	const char *data;      /* shard directory (gt-shard(5)), borrowed */
	long window;           /* newest rows to sample from, 250000 */
	int board_size;        /* train on this size's shards; 0: the newest shard's */
	long steps;            /* steps of the whole run, resumed ones included, 1000 */
	const char *state;     /* state file to resume from and write; NULL: none */
	long checkpoint_every; /* steps between checkpoints, 100 */
	long log_every;        /* steps between metrics lines, 10 */
	const char *valdir;    /* held-out shard directory; NULL: none */
	long val_every;        /* steps between held-out evaluations; 0: log_every */
	long val_rows;         /* held-out rows evaluated, 4096 */
	long max_bad;          /* stop after this many non-finite steps in a row, 10 */
	int verbose;           /* 1: a note on the window even when no shard was skipped */
	int export_avg;        /* 1: write the moving average (train.ema), not the
	                          last parameters */
} gt_trainrun_conf;

/* gt_trainrun_conf_init: gt_train_conf_init and the defaults above. */
void gt_trainrun_conf_init(gt_trainrun_conf *c);

/* What one metrics line reports: the steps since the previous line. */
typedef struct gt_trainrun_metrics {
	const gt_train_counts *k;      /* the run's counters after the step */
	long steps, good;              /* steps since the previous line, good ones */
	gt_nn_loss loss;               /* sums of the good steps' loss terms */
	double grad_norm;              /* sum of their gradient norms */
	double sample_s, step_s;       /* seconds drawing batches and stepping */
	double lr;                     /* the optimizer's learning rate */
	int batch;                     /* rows per step */
	const gt_train_eval_info *val; /* held-out figures, or NULL */
	const gt_train_eval_info *val_avg; /* the same of the moving average, or NULL */
	int aux;                       /* the network has the auxiliary policy head */
} gt_trainrun_metrics;

/* gt_trainrun_metrics_json: the metrics line of gt-train(1) without its
 * newline, into buf (size bytes; 1024 hold any): {"step","samples",
 * "policy","value","score","ownership",["aux_policy",]"total" (means over
 * the good steps), "lr","grad_norm" (mean), "samples_per_s","data_share"
 * (of the time), "bad_steps", and with held-out figures "val_rows",
 * "val_policy","val_value","val_score","val_ownership",["val_aux_policy",]
 * "val_total","val_top1", and of the moving average "ema_val_policy" ...
 * "ema_val_top1"} (the aux_policy keys when m->aux), numbers
 * %.6g, null where not finite. Returns buf. */
char *gt_trainrun_metrics_json(const gt_trainrun_metrics *m, char *buf, size_t size);

/* gt_trainrun_metrics_text: the same in words for --progress, into buf
 * (size bytes; 256 hold any): "step S loss L (policy P)[ held-out policy
 * V top-1 T], R samples/s, B bad". Returns buf. */
char *gt_trainrun_metrics_text(const gt_trainrun_metrics *m, char *buf, size_t size);

/* Where a run's output goes; ctx is handed back. line receives each
 * metrics line as it is made, note a diagnostic text (no newline). */
typedef struct gt_trainrun_out {
	void (*line)(void *ctx, const gt_trainrun_metrics *m);
	void (*note)(void *ctx, const char *text);
	void *ctx;
} gt_trainrun_out;

typedef struct gt_trainrun gt_trainrun;

/* gt_trainrun_open: a run starting from parent (borrowed until
 * gt_trainrun_free; parent_sha its file's sha256 for the new network's
 * meta.parent, NULL for none) with configuration c (copied, its strings
 * borrowed) and output out (copied): the trainer, the training window
 * (a note on its rows when c->verbose or a shard was skipped), the
 * held-out window, and the state file's steps when it exists (with a
 * note; first the temporary files of the state file left by a killed
 * run are removed, gt_fs_remove_stale_of). Returns NULL with e filled on any error: the trainer's, the
 * windows', a window that does not fit the network, a state file that
 * cannot be read or belongs to another run. */
gt_trainrun *gt_trainrun_open(const gt_model *parent, const uint8_t *parent_sha,
                              const gt_trainrun_conf *c, const gt_trainrun_out *out,
                              gt_error *e);
void gt_trainrun_free(gt_trainrun *r);

/* gt_trainrun_counts: the run's counters (borrowed). */
const gt_train_counts *gt_trainrun_counts(const gt_trainrun *r);

/* gt_trainrun_precision: the arithmetic of the run's steps (train.h
 * gt_train_precision: GT_PREC_*, *why when not c->train.precision). */
int gt_trainrun_precision(const gt_trainrun *r, const char **why);

/* gt_trainrun_steps: steps until c->steps, a non-zero *stop (stop may be
 * NULL), or c->max_bad bad steps in a row. A fresh run with held-out rows
 * first reports the starting network's figures as step 0. A metrics line
 * comes every log_every steps and after the last, with the held-out
 * figures every val_every steps and after the last (those of the
 * moving average beside them with train.ema); a note for each bad
 * step; a checkpoint to the state file every checkpoint_every steps
 * before the last. Returns 0 (all steps done, or stopped), 1 (stopped by
 * bad steps: the parameters are the last good ones), or a negative gt_err
 * with e filled. */
int gt_trainrun_steps(gt_trainrun *r, volatile sig_atomic_t *stop, gt_error *e);

/* gt_trainrun_save: write the state file, if the run has one (atomic,
 * gt_train_save). Returns 0 or GT_EIO with e filled. */
int gt_trainrun_save(gt_trainrun *r, gt_error *e);

/* gt_trainrun_write: the new network (gt_train_model, the moving
 * average's parameters with c->export_avg; series replaced by
 * series when not NULL) written to out, or, out NULL, to its name
 * (gt_model_name) and ".bin.gz" in the current folder, held in buf (size
 * bytes; 200 hold any); and for stdout the line {"model","name","sha256",
 * "steps","rows"} without newline in a new string *line (caller frees).
 * Returns the path written (out or buf), or NULL with e filled on an error
 * of gt_model_write or gt_model_sha256_file. */
const char *gt_trainrun_write(gt_trainrun *r, const char *series, const char *out, char *buf,
                              size_t size, char **line, gt_error *e);

#endif
