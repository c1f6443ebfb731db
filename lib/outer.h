/*
 * outer.h: the outer optimizer of Decoupled DiLoCo (arXiv 2604.21428)
 * over DiLoCo's outer Nesterov step (arXiv 2311.08105, Alg. 1).
 *
 * The state is the float32 master parameters theta[P] of the global
 * version V, the Nesterov momentum buffer m[P], the sha256 of the
 * parameters of the last S_max+1 versions, and a ledger of every applied
 * delta: (unit, generation, seq) with the version it went into.
 *
 * Learning units send deltas (lib/delta.h) computed from some version
 * v <= V. Each is admitted or refused on arrival (gt_outer_admit), then
 * gt_outer_step applies the admitted ones and makes version V+1:
 *
 *   s_i  = V - v_i                         staleness, admitted if <= S_max
 *   w_i  = samples_i / (1 + c * s_i)       c = 0.25 (stale_decay)
 *   g    = sum_i w_i delta_i / sum_i w_i
 *   m    = mu * m + g                      mu = 0.9 (momentum)
 *   theta = theta - lr * (g + mu * m)      lr = 0.7
 *
 * The last two lines are PyTorch's torch.optim.SGD with nesterov=True,
 * dampening 0 and no weight decay, the outer optimizer of DiLoCo (whose
 * paper gives lr 0.7, momentum 0.9); m starts at zero, which makes the
 * first step m = g as PyTorch does. With lr 1, mu 0 and one delta this
 * is theta = theta_unit: plain model replacement.
 */
#ifndef GT_OUTER_H
#define GT_OUTER_H
#include <stddef.h>
#include <stdint.h>

#include "delta.h"
#include "gt.h"

typedef struct gt_outer_cfg {
	double lr;           /* outer learning rate, > 0; default 0.7 */
	double momentum;     /* Nesterov momentum mu in [0, 1); default 0.9 */
	int s_max;           /* largest admitted staleness, 0..GT_OUTER_SMAX_MAX; default 2 */
	double stale_decay;  /* c in 1/(1 + c s), >= 0; default 0.25 */
} gt_outer_cfg;
#define GT_OUTER_SMAX_MAX 64

/* Admission decisions (gt_outer_admit's non-negative results). */
enum gt_outer_decision {
	GT_ADMIT_FRESH = 0,        /* s = 0 */
	GT_ADMIT_STALE = 1,        /* 0 < s <= S_max: admitted, down-weighted */
	GT_REFUSE_TOO_STALE = 2,   /* s > S_max */
	GT_REFUSE_DUPLICATE = 3,   /* (unit, generation, seq) already applied or pending */
	GT_REFUSE_CHECKSUM = 4,    /* checksum mismatch */
	GT_REFUSE_BASE_SHA = 5,    /* base sha256 is not that of version v */
	GT_REFUSE_FUTURE = 6,      /* v > V: from another outer process or a bug */
	GT_REFUSE_SHAPE = 7,       /* parameter count is not P */
	GT_REFUSE_FORMAT = 8,      /* malformed, truncated, or zero samples */
	GT_REFUSE_VALUE = 9,       /* a value not finite or beyond guard.max_value */
	GT_REFUSE_NORM = 10,       /* L2 norm over guard.norm_ratio x the recent median */
	GT_REFUSE_UNSIGNED = 11,   /* no valid signature by a known unit key (lib/outerproc) */
	GT_REFUSE_SURPLUS = 12,    /* the unit already has a delta pending for V+1 */
	GT_REFUSE_ASIDE = 13,      /* the unit is set aside (bounded influence) */
};
#define GT_OUTER_ADMITTED(d) ((d) == GT_ADMIT_FRESH || (d) == GT_ADMIT_STALE)

/* gt_outer_cfg_default: lr 0.7, momentum 0.9, s_max 2, stale_decay 0.25. */
void gt_outer_cfg_default(gt_outer_cfg *cfg);

/*
 * The outer step's defence against deltas that are well-formed but
 * hostile or broken (a unit gone wrong, a stolen unit key). Process
 * settings, not saved with the state.
 *
 * Centred clipping (Karimireddy, He and Jaggi, "Learning from History for
 * Byzantine Robust Optimization", ICML 2021, one iteration): a delta x is
 * judged by its L2 distance d = ||x - c|| from the centre c = (1 - mu) m
 * (center GT_OUTER_CENTER_MOMENTUM: the exponential average of the past
 * versions' pseudo-gradients that the Nesterov buffer m holds; 0 at
 * version 0) or from c = 0 (GT_OUTER_CENTER_ZERO: plain norm clipping).
 * The reference r is the median over units of each unit's median applied
 * distance among the last norm_window admitted deltas (kept in the ledger,
 * so a restart keeps them): a unit has one value in it, so fewer than half
 * of the units cannot move it, and distances are kept as applied (after
 * clipping), so an admitted outlier does not raise it. Once 3 distances
 * are known a delta with d over norm_ratio r is refused and one over
 * clip_ratio r is moved to c + (x - c) clip_ratio r / d before it is
 * averaged: g = c + sum_i w_i min(1, clip_ratio r / d_i) (x_i - c) /
 * sum_i w_i, which is the plain weighted mean when nothing is clipped.
 * Before 3 distances are known, max_value and the check of the new
 * version below hold.
 *
 * Bounded influence: a unit's pull in a version is its applied delta
 * (after clipping) less the version's average g. The outer state keeps,
 * per unit, the decayed sum S of its pulls (decay 1 - 1/influence_window
 * a version; as a count sketch of 1024 bins, Charikar, Chen and
 * Farach-Colton 2002, which keeps norms within a few per cent): ||S|| is
 * the displacement the unit has asked for along its own direction over
 * about influence_window versions. From its 4th pull on, a unit whose
 * ||S|| is over influence_ratio times the median ||S|| of the other units
 * (those with a pull in the window, not set aside; at least 2) is set
 * aside: its later deltas are refused ("aside") until gt_outer_readmit.
 * Pulls at random cancel and grow ||S|| as the root of their number,
 * pulls one way as their number, so a unit that pushes one direction,
 * even under the clip, is set aside, and one that stays under the budget
 * displaces the network along its own direction no more than
 * influence_ratio honest units do. Versions of one delta teach nothing and are
 * not counted. The records are saved with the state.
 * The weight's samples are clamped to max_samples and, once 3 are known,
 * to samples_ratio times the median samples of the same recent deltas. A new version
 * whose parameters are not finite, exceed max_param in magnitude, or
 * whose L2 norm is over max_growth times the current one (or times
 * sqrt(P), when that is more: parameters near zero may grow to a root mean
 * square of max_growth) is refused: the pending deltas are dropped and
 * version V stays.
 */
typedef struct gt_outer_guard {
	double max_value;      /* refuse a delta with |value| over this (1000; 0: off) */
	double norm_ratio;     /* refuse over this x the reference distance (4; 0: off) */
	double clip_ratio;     /* clip to this x the reference distance (2; 0: off) */
	int norm_window;       /* the recent admitted deltas of the reference (16), 1..1024 */
	uint64_t max_samples;  /* samples of a delta clamped to this (0: no fixed cap) */
	double samples_ratio;  /* ... and to this x the median samples (4; 0: off) */
	double max_param;      /* refuse a version with |theta_i| over this (10000; 0: off) */
	double max_growth;     /* refuse a version with ||theta|| grown over this factor (10; 0: off) */
	int center;            /* enum gt_outer_center (GT_OUTER_CENTER_MOMENTUM) */
	double influence_ratio; /* set a unit aside over this (2; 0: off), below */
	int influence_window;  /* W, versions of the influence's decay 1 - 1/W (16), 2..100000 */
} gt_outer_guard;
enum gt_outer_center { GT_OUTER_CENTER_ZERO = 0, GT_OUTER_CENTER_MOMENTUM = 1 };

/* gt_outer_guard_default: the defaults above. */
void gt_outer_guard_default(gt_outer_guard *g);

/* gt_outer_decision_name: "fresh", "stale", "too-stale", "duplicate",
 * "checksum", "base-sha256", "future", "shape", "format", "value",
 * "norm", "unsigned", "surplus", "aside"; "unknown" otherwise. Static
 * storage. */
const char *gt_outer_decision_name(int d);

/* The outer state. Opaque; gt_outer_new and gt_outer_load return a new
 * object the caller frees with gt_outer_free. */
typedef struct gt_outer gt_outer;

/* gt_outer_new: version 0 with parameters theta0[n] (copied), momentum 0,
 * an empty ledger; cfg NULL means the defaults. Returns 0 and sets *out,
 * or GT_EINVAL (bad cfg, n of 0 or over GT_DELTA_MAX_PARAMS, a value not
 * finite) or GT_EIO (OpenSSL). */
int gt_outer_new(gt_outer **out, const float *theta0, size_t n, const gt_outer_cfg *cfg,
		gt_error *e);
void gt_outer_free(gt_outer *o);

/* gt_outer_guard_set / _get: the defence settings (gt_outer_guard); a new
 * or loaded state has the defaults. GT_EINVAL for a setting out of range
 * (negative, not finite, norm_window outside 1..1024). */
int gt_outer_guard_set(gt_outer *o, const gt_outer_guard *g, gt_error *e);
void gt_outer_guard_get(const gt_outer *o, gt_outer_guard *g);

uint64_t gt_outer_version(const gt_outer *o);       /* V */
size_t gt_outer_size(const gt_outer *o);            /* P */
void gt_outer_cfg_get(const gt_outer *o, gt_outer_cfg *cfg);
const float *gt_outer_params(const gt_outer *o);    /* theta[P], borrowed */
const float *gt_outer_momentum(const gt_outer *o);  /* m[P], borrowed */
/* gt_outer_version_sha256: sha256 of version v's parameters (as
 * gt_delta_params_sha256) into out[32], for V - S_max <= v <= V.
 * Returns 0 or GT_ENOTFOUND. */
int gt_outer_version_sha256(const gt_outer *o, uint64_t v, uint8_t out[32]);

/* gt_outer_admit: decide on a delta h, delta[h->nparams] (already decoded
 * and checked) and, if it is admitted, add it to the pending step with its
 * weight (*weight, may be NULL; 0 when refused). Checks in this order:
 * shape, zero samples (format), future, too stale, duplicate, surplus (a
 * unit, h->unit, has at most one delta in a version: a second one while
 * its first is pending is refused), base sha256, values, norm.
 * Returns the decision (enum gt_outer_decision, e's text says why) or a
 * negative gt_err for a bad argument. */
int gt_outer_admit(gt_outer *o, const gt_delta_hdr *h, const float *delta, double *weight,
		gt_error *e);
/* gt_outer_admit_packed: the same for a serialized delta buf[len]
 * (gt-delta(5)); a bad checksum is GT_REFUSE_CHECKSUM, anything
 * malformed or truncated GT_REFUSE_FORMAT, a count other than P
 * GT_REFUSE_SHAPE (refused from the header, before decoding). */
int gt_outer_admit_packed(gt_outer *o, const uint8_t *buf, size_t len, double *weight,
		gt_error *e);
/* gt_outer_pending: how many admitted deltas wait for the next step (one
 * per unit: the number of distinct units in it). */
size_t gt_outer_pending(const gt_outer *o);
/* gt_outer_unit_pending: 1 when unit has a delta pending, else 0. */
int gt_outer_unit_pending(const gt_outer *o, const char *unit);

/* gt_outer_step: apply the pending deltas (formula above), move them to
 * the ledger under version V+1, record the new parameters' sha256 and make
 * V+1 current. Returns 0; GT_EINVAL if nothing is pending; GT_EREFUSED when
 * the new version fails the guard's check (not finite, max_param,
 * max_growth) or its judge (gt_outer_set_judge): the pending deltas are dropped and V, theta and m are
 * unchanged; GT_EIO if OpenSSL fails (the state is then unchanged but for
 * theta and m). */
int gt_outer_step(gt_outer *o, gt_error *e);

/* gt_outer_step_scaled: the same with g multiplied by scale in (0, 1]
 * before the momentum update: partial participation, e.g. k/U when only k
 * of U learning units' deltas make this version, so that U deltas spread
 * over several versions move theta (and m) about as one synchronous
 * DiLoCo step of all U would. GT_EINVAL for a scale out of range. */
int gt_outer_step_scaled(gt_outer *o, double scale, gt_error *e);

/* A judge of a new version (e.g. gt-outer(1)'s probe loss): called by the
 * step once the guard's checks pass, with the new parameters theta_new[n]
 * (borrowed for the call; gt_outer_params still gives version V's). It
 * returns 0 to let the version be made, or non-zero to refuse it, with
 * why[whylen] saying why (NUL-ended); a refusal is the guard's: the
 * pending deltas are dropped, V stays, the step returns GT_EREFUSED with
 * "version V+1 refused: <why>; ...". */
typedef int (*gt_outer_judge_fn)(void *ctx, const float *theta_new, size_t n, char *why,
                                 size_t whylen);

/* gt_outer_set_judge: judge every later step with fn(ctx, ...); fn NULL:
 * none (the default). Not saved with the state. */
void gt_outer_set_judge(gt_outer *o, gt_outer_judge_fn fn, void *ctx);

/* The ledger: entry i < gt_outer_ledger_size of the applied deltas in the
 * order applied. */
typedef struct gt_outer_entry {
	uint64_t version;       /* the version it went into (V after its step) */
	uint64_t base_version;  /* v */
	char unit[GT_DELTA_UNIT_MAX + 1];
	uint64_t generation, seq, samples;
	double weight;          /* w before normalisation */
	double norm;            /* L2 distance of the delta from the centre as applied
	                         * (after clipping; states before it: the norm as
	                         * received; 0: unknown, format 1) */
} gt_outer_entry;
size_t gt_outer_ledger_size(const gt_outer *o);
const gt_outer_entry *gt_outer_ledger(const gt_outer *o, size_t i); /* borrowed; NULL past the end */
/* gt_outer_unit_influence: unit's ratio ||S|| / (the others' median) into *ratio and
 * its pulls counted into *n; returns 1 when it is set aside, 0 when not,
 * -1 for a unit without a record. */
int gt_outer_unit_influence(const gt_outer *o, const char *unit, double *ratio, uint64_t *n);
/* gt_outer_aside_new: the units the last step set aside: their number;
 * with i below it, *unit (borrowed) and *ratio of the i-th (8 at most). */
size_t gt_outer_aside_new(const gt_outer *o, size_t i, const char **unit, double *ratio);
/* gt_outer_units_aside: how many units are set aside. */
size_t gt_outer_units_aside(const gt_outer *o);
/* gt_outer_readmit: unit admitted again, its record emptied; 0 or
 * GT_ENOTFOUND (not set aside). */
int gt_outer_readmit(gt_outer *o, const char *unit);
/* gt_outer_pending_entry: pending delta i < gt_outer_pending, as its
 * ledger entry will be (borrowed until the next admit or step; NULL past
 * the end). */
const gt_outer_entry *gt_outer_pending_entry(const gt_outer *o, size_t i);

/* gt_outer_save: write the state (cfg, V, theta, m, version sha256s,
 * ledger; not the pending deltas) to path atomically: a temporary file in
 * the same directory, fsync, rename, fsync of the directory. The format
 * ends with a sha256 of all before it. Returns 0 or GT_EIO (e says what,
 * errno is kept; the temporary file is removed). */
int gt_outer_save(const gt_outer *o, const char *path, gt_error *e);
/* gt_outer_load: read a state written by gt_outer_save into a new object
 * *out. Sizes in the header are checked against the file's size before
 * anything large is allocated. Returns 0; GT_EIO (cannot read),
 * GT_EFORMAT (malformed, wrong size), GT_ECHECKSUM, GT_EUNSUPPORTED
 * (newer format). */
int gt_outer_load(gt_outer **out, const char *path, gt_error *e);

#endif
