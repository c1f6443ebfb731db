/*
 * unit.h: a Decoupled DiLoCo learning unit (gt-unit(1), gt(7) "Learning
 * units"): rounds of H inner steps of lib/train from the newest global version
 * that the outer process (lib/outerproc.h) published under STORE/diloco
 * (lib/diloco.h), each sent back as a compressed pseudo-gradient with
 * error feedback (lib/delta.h).
 *
 * A round (gt_unit_round) is three steps, which a caller with a window of
 * its own may take one by one:
 *   gt_unit_pull   wait for the pointer STORE/diloco/current.json; when it
 *                  names the version of the last round, wait a bounded
 *                  time (wait_version) for a newer one; fetch a version
 *                  the unit does not hold into the cache, checked against
 *                  the pointer (file sha256 and size, params_sha256, the
 *                  architecture of the versions before), and make it the
 *                  base theta_v; with the first version make the trainer
 *                  and restore the state file
 *   gt_unit_train  set the network to theta_v and run H inner steps on a
 *                  window; the optimizer's moments carry over
 *   gt_unit_push   c = theta_v - theta_local + r, put C(c) (the codec) to
 *                  STORE/diloco/deltas/ID/<v>-<gen>-<seq>.delta, keep
 *                  r = c - D(C(c)) (error feedback, lib/delta.h), then
 *                  write the state file and the heartbeat
 *                  STORE/diloco/heartbeats/ID.json
 * between pull and train gt_unit_round opens the window: the newest
 * `window` rows of conf.data (gt-shard(5)), slice `slice` of `units`,
 * sampler seed train.seed + r in round r.
 *
 * A unit never waits for another. Each gt_unit draws a random generation
 * id (gt_delta_new_generation), so a unit killed at any moment and made
 * again sends its deltas under new names; with a state file it goes on
 * with the saved moments and residual, and its sampler seed moves by the
 * number of starts the file counts. A round cut short sends nothing.
 */
#ifndef GT_UNIT_H
#define GT_UNIT_H
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "gt.h"
#include "store.h"
#include "train.h"

/* What a unit does; caller-owned, strings borrowed for the unit's life. */
typedef struct gt_unit_conf {
	const char *store;      /* the store URL (lib/store.h); required */
	const char *data;       /* shard directory of gt_unit_round */
	const char *id;         /* unit id (gt_diloco_unit_ok); NULL: "u<slice>" */
	const char *state;      /* the unit state file (lib/diloco.h); NULL: none */
	const char *cache;      /* downloaded versions and outgoing deltas, made if
	                         * missing; NULL: the folder of state, else "." */
	int units, slice;       /* train on slice `slice` of `units` (0 of 1) */
	int board;              /* the window's board size; 0: the newest shard's */
	int codec;              /* enum gt_delta_codec (GT_DELTA_INT8) */
	long inner;             /* H, inner steps a round (500) */
	long window;            /* newest rows of the window before slicing (250000) */
	double step_sleep;      /* seconds slept after each inner step (0) */
	double poll;            /* seconds between looks for a first pointer (1) */
	double wait_version;    /* seconds gt_unit_pull waits for a version newer
	                         * than the last round's; < 0: the longer of 1 and
	                         * half the last round's inner steps (-1) */
	const char *sign_key;   /* Ed25519 private key (PEM) that signs each delta
	                         * (gt-delta(5)); NULL: unsigned */
	gt_train_conf train;    /* batch (256), optimizer (AdamW), loss weights,
	                         * seed (1), backend */
	gt_store_opts so;       /* store options (gt_store_opts_init); so.warn
	                         * also gets the unit's warnings: a heartbeat
	                         * that could not be put */
	volatile sig_atomic_t *stop; /* may be NULL; once non-zero, waits end and
	                         * a round stops without sending */
} gt_unit_conf;

/* gt_unit_conf_init: the defaults above (those of gt-unit(1)); store and
 * data NULL. */
void gt_unit_conf_init(gt_unit_conf *c);

/* What a round did: the fields of gt-unit(1)'s output line. */
typedef struct gt_unit_round_info {
	const char *unit;         /* the unit id (borrowed from the unit) */
	uint64_t generation;      /* this unit's generation id */
	uint64_t seq;             /* the delta's sequence number */
	uint64_t base_version;    /* v, the version it started from */
	long inner_steps;         /* good inner steps */
	uint64_t samples;         /* good steps x batch */
	double loss;              /* mean total loss of the good steps */
	double delta_bytes;       /* bytes of the delta put */
	double bytes_sent;        /* this unit's totals so far: deltas and */
	double bytes_received;    /* heartbeats sent; pointers and versions read */
	double train_s, round_s;  /* seconds in the inner steps, in the round */
	double start, end;        /* the round's start and end, seconds since the epoch */
} gt_unit_round_info;

#define GT_UNIT_STOPPED 1     /* *conf.stop was set: nothing more was done */

typedef struct gt_unit gt_unit;

/* gt_unit_new: a unit for conf c (copied; its strings borrowed). Makes the
 * cache folder and draws the generation id; no store access yet.
 * Returns 0 and sets *out (free with gt_unit_free), GT_EINVAL (no store,
 * a bad id, slice, count or codec; e says which) or GT_EIO (the cache
 * folder, no random generation). */
int gt_unit_new(gt_unit **out, const gt_unit_conf *c, gt_error *e);
void gt_unit_free(gt_unit *u);

/* gt_unit_id: the unit id (borrowed). gt_unit_version: the version the
 * unit holds, UINT64_MAX before the first pull. */
const char *gt_unit_id(const gt_unit *u);
uint64_t gt_unit_version(const gt_unit *u);

/* gt_unit_pull: the first step of a round (above). Returns 0,
 * GT_UNIT_STOPPED, or a negative gt_err with e filled: the pointer
 * unreadable, a version that does not download or check (GT_ECHECKSUM
 * where its parameters are not the pointer's, GT_EINVAL for another
 * architecture), no trainer for it (GT_EINVAL), the state file
 * (gt_diloco_ustate_load's errors but GT_ENOTFOUND). */
int gt_unit_pull(gt_unit *u, gt_error *e);

/* gt_unit_train: H inner steps on w (borrowed; rows must fit the
 * network: gt_train_check_window) from the base of the last pull.
 * Returns 0, GT_UNIT_STOPPED, or a negative gt_err with e filled: no
 * pull yet, a window that does not fit, no good step (GT_EINVAL). */
int gt_unit_train(gt_unit *u, gt_shard_window *w, gt_error *e);

/* gt_unit_push: the last step of a round after gt_unit_train: put the
 * delta, save the state file, put the heartbeat (a failure of this one is
 * only a warning through so.warn), and fill info (may be NULL). Returns 0
 * or a negative gt_err with e filled: no round trained or a non-finite
 * delta (GT_EINVAL), the store (residual and seq then unchanged), the
 * state file (gt_diloco_ustate_save; the delta was sent). */
int gt_unit_push(gt_unit *u, gt_unit_round_info *info, gt_error *e);

/* gt_unit_round: pull, the window of conf.data, train, push. Returns 0
 * with info filled, GT_UNIT_STOPPED, or the first error (GT_ENOTFOUND:
 * no window of conf.data; GT_EINVAL: fewer rows than units). */
int gt_unit_round(gt_unit *u, gt_unit_round_info *info, gt_error *e);

/* gt_unit_finish: the heartbeat with state "stopped", if the unit has
 * pulled a version. Returns 0 or the store's error. */
int gt_unit_finish(gt_unit *u, gt_error *e);

#endif
