/*
 * outerproc.h: the outer process of Decoupled DiLoCo over a store
 * (gt-outer(1), gt(7) "Learning units"): the cycle that turns the learning
 * units' deltas (lib/unit.h) into global versions with the outer optimizer
 * of lib/outer.h, in the store layout of lib/diloco.h.
 *
 *   gt_outerproc_open    lock the state folder, take the store's lease,
 *                        load the state or make version 0, and finish a
 *                        version whose pointer a crash left unwritten
 *   gt_outerproc_scan    list the units (heartbeats/) and their deltas,
 *                        get and admit or refuse each one not looked at
 *   gt_outerproc_step    the outer step over the admitted deltas: version
 *                        V+1's network and ledger put, the state saved
 *   gt_outerproc_commit  the pointer current.json of that version, last
 *   gt_outerproc_run     the loop of all of it: lease renewal, scans,
 *                        a version once quorum deltas are in and the
 *                        grace time is over
 *   gt_outerproc_close   drop the lease, unlock, free
 *
 * Crash safety: the payload (network, ledger) is put before the state is
 * saved, the pointer after. A crash before the state leaves version V in
 * force and its deltas unapplied (they are admitted again after a restart;
 * a version file no pointer names is overwritten). A crash between state
 * and pointer is finished by the next gt_outerproc_open, which puts the
 * state's network, ledger and pointer again before anything else. The
 * ledger in the state refuses a delta applied before, so none is applied
 * twice.
 *
 * Each delta's fate is told once (on_delta), also across restarts: a
 * refused delta's "unit/name" is appended to DIR/refused (with those of
 * the deltas of a version the guard refused), an applied one is in the
 * ledger, and a new process looks at neither again. Only a delta that
 * was pending (admitted, not applied) when a process died is looked at,
 * and told, again.
 *
 * Files: DIR/outer.state (gt_outer_save), DIR/base.bin.gz (version 0's
 * architecture and metadata), DIR/lock (flock(2), one process per
 * folder), DIR/publish.bin.gz (a network on its way to the store),
 * DIR/refused (a line "unit/name" per delta refused).
 */
#ifndef GT_OUTERPROC_H
#define GT_OUTERPROC_H
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "gt.h"
#include "outer.h"
#include "store.h"

/* A delta looked at by a scan (gt-outer(1)'s "delta" event). Strings
 * borrowed for the duration of the callback. */
typedef struct gt_outerproc_delta {
	const char *unit;        /* unit id */
	const char *name;        /* <v>-<gen>-<seq>.delta */
	int decision;            /* enum gt_outer_decision */
	int64_t staleness;       /* V - v when it was looked at */
	uint64_t samples;        /* from its header; 0 when that does not parse */
	double weight;           /* 0 when refused */
	const char *why;         /* the decision's reason (gt_outer_admit's text) */
} gt_outerproc_delta;

/* A version refused by the guard (gt-outer(1)'s "refused" event). */
typedef struct gt_outerproc_refusal {
	uint64_t version;        /* the V+1 that was not made */
	size_t deltas;           /* the pending deltas dropped */
	const char *why;         /* gt_outer_step's text */
	const char *const *names; /* the deltas dropped, "unit/name", `deltas` of them */
} gt_outerproc_refusal;

/* A version made (gt-outer(1)'s "version" event). */
typedef struct gt_outerproc_version {
	uint64_t version;        /* V+1 */
	size_t deltas;           /* k, the deltas applied */
	uint64_t samples;        /* their samples */
	double scale;            /* k/U below U units, else 1 */
	double time;             /* when the step began, seconds since the epoch */
	double probe;            /* its probe loss (conf.probe); NAN without one */
} gt_outerproc_version;

/* What the outer process does; caller-owned, strings borrowed for the
 * process's life. */
typedef struct gt_outerproc_conf {
	const char *store;       /* the store URL; required */
	const char *dir;         /* the state folder, made if missing; required */
	const char *init;        /* version 0's network when dir holds no state */
	const char *owner;       /* the lease's owner; NULL: "host:realpath(dir)" */
	gt_outer_cfg cfg;        /* outer settings of a new state (gt_outer_cfg_default) */
	gt_outer_guard guard;    /* the defence of the outer step (gt_outer_guard_default) */
	const char *unit_keys;   /* a folder of Ed25519 public keys, UNIT.pub for the unit
	                          * UNIT: only deltas signed by their unit's key are
	                          * admitted (others "unsigned"); NULL: no check,
	                          * only with insecure_units */
	int insecure_units;      /* 1: run without unit_keys (anyone who can write
	                          * to the store is a unit); 0: open refuses */
	int units;               /* U: a version of k < U deltas scales g by k/U; 0: off */
	int quorum;              /* units whose deltas make a version; 0: U, or 1;
	                          * with U, at most U less the units set aside */
	double grace;            /* seconds to wait for more once quorum are in (0.5) */
	double poll;             /* seconds between scans (0.5) */
	double lease_ttl;        /* the lease's time to live, seconds (30) */
	gt_store_opts so;        /* store options (the defaults but 3 retries);
	                          * so.warn also gets the process's warnings: a
	                          * scan that failed, a delta that did not get */
	volatile sig_atomic_t *stop; /* may be NULL; non-zero ends gt_outerproc_run */
	/* callbacks, each may be NULL, all given ctx */
	void (*on_delta)(void *ctx, const gt_outerproc_delta *d);
	/* on_saved: version's state is saved and its pointer not yet put */
	void (*on_saved)(void *ctx, uint64_t version);
	void (*on_version)(void *ctx, const gt_outerproc_version *v);
	void (*on_refused)(void *ctx, const gt_outerproc_refusal *r);
	/* on_aside: a step set `unit` aside (bounded influence, lib/outer.h) */
	void (*on_aside)(void *ctx, uint64_t version, const char *unit, double ratio);
	/* The probe check: a shard directory (lib/shard.h) of positions the
	 * versions are judged on, e.g. the trainer's held-out shards; NULL:
	 * none. Its first probe_rows rows (the newest shards; 2048) are
	 * evaluated on the CPU (gt_train_eval: the total loss, with the
	 * default loss weights) for version V at open and for each candidate
	 * V+1, which is refused (the guard's refusal: on_refused, deltas
	 * dropped, V stays) when its loss is over V's plus probe_tolerance
	 * nats (0.05), or cannot be computed. */
	const char *probe;
	long probe_rows;
	double probe_tolerance;
	const char *const *readmit; /* units set aside to admit again at open, NULL-ended; may be NULL */
	void *ctx;
} gt_outerproc_conf;

/* gt_outerproc_conf_init: the defaults above (those of gt-outer(1)). */
void gt_outerproc_conf_init(gt_outerproc_conf *c);

/* How gt_outerproc_open found the state and the store. */
enum gt_outerproc_start {
	GT_OUTERPROC_RESUMED = 0,   /* state and pointer at the same version */
	GT_OUTERPROC_INIT = 1,      /* no pointer: the state's version (0 from
	                             * conf.init when there was no state) put */
	GT_OUTERPROC_RECOVERED = 2, /* the pointer behind the state: the state's
	                             * version put again, pointer last */
};

typedef struct gt_outerproc gt_outerproc;

/* gt_outerproc_open: the outer process for conf c (copied; its strings
 * borrowed): make dir, lock dir/lock, take the lease
 * (gt_diloco_lease_take), then load dir/outer.state or make version 0
 * from c->init, and put the store in step with the state (above). *how
 * (may be NULL) gets an enum gt_outerproc_start. Returns 0 and sets *out
 * (gt_outerproc_close it), or a negative gt_err with e filled and nothing
 * held: GT_EINVAL (no store or dir, another process holds the folder or
 * the lease, no state and no c->init, a store already ahead of or without
 * a state; a probe folder that holds no rows the network fits), GT_EIO
 * and the store's and state's errors. */
int gt_outerproc_open(gt_outerproc **out, const gt_outerproc_conf *c, int *how,
                      gt_error *e);

/* gt_outerproc_close: drop the lease (errors ignored), unlock and free.
 * Safe on NULL. */
void gt_outerproc_close(gt_outerproc *op);

/* gt_outerproc_probe_loss: the probe loss of the version in force (NAN
 * without conf.probe). */
double gt_outerproc_probe_loss(const gt_outerproc *op);

/* gt_outerproc_outer: the outer optimizer state (borrowed): version,
 * parameters, pending deltas, ledger. */
const gt_outer *gt_outerproc_outer(const gt_outerproc *op);

/* gt_outerproc_scan: look at the deltas not decided on before (each name
 * once, by this process or one before it on DIR): those of versions after V are left for a later scan, those
 * older than V - S_max refused without a download ("too-stale"); of the
 * others of one unit (a unit is its folder, and the header must name it)
 * the newest is got and admitted or refused (gt_outer_admit_packed), and
 * once one is admitted the unit's others wait, undecided, for the next
 * version (one delta a unit a version; a unit's quorum vote is that
 * delta); on_delta for each decision. A delta that cannot be got is a
 * warning and is not looked at again. Returns 0 (also
 * when the store has no units yet), or the store's error for a listing
 * (e filled). */
int gt_outerproc_scan(gt_outerproc *op, gt_error *e);

/* gt_outerproc_step: make version V+1 from the pending deltas
 * (gt_outer_step_scaled, scale k/U when units > k), put its network
 * STORE/diloco/versions/v<V+1>.bin.gz and ledger v<V+1>.json, save the
 * state; fill v (may be NULL). The pointer waits for
 * gt_outerproc_commit. Returns 0, GT_EINVAL (nothing pending),
 * GT_EREFUSED (the guard refused V+1: the deltas are dropped, V stays,
 * e says why), or the store's and state's errors (the state on disk then
 * still says V). */
int gt_outerproc_step(gt_outerproc *op, gt_outerproc_version *v, gt_error *e);

/* gt_outerproc_commit: put the pointer of the version the last step
 * made. Returns 0, GT_EINVAL (no step to commit), or the store's error. */
int gt_outerproc_commit(gt_outerproc *op, gt_error *e);

/* gt_outerproc_run: until *conf.stop or `versions` versions made (0: no
 * limit): renew the lease every third of its time to live, scan every
 * poll seconds (a failed scan is a warning), and once quorum deltas are
 * pending and grace seconds have passed, step, on_saved, commit,
 * on_version; a step the guard refuses is on_refused and the loop goes
 * on. Returns 0, or the first error of the lease, a step or a
 * commit (e filled). */
int gt_outerproc_run(gt_outerproc *op, long versions, gt_error *e);

#endif
