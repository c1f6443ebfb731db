/*
 * diloco.h: the store layout of Decoupled DiLoCo (gt(7) "Learning units",
 * gt-outer(1), gt-unit(1)): the pointer to the current global version,
 * delta and version names, heartbeats, the outer process's lease, and the
 * learning unit's state file (inner optimizer moments and error-feedback
 * residual).
 *
 * Layout under STORE (a store URL, lib/store.h):
 *   diloco/current.json                 pointer, written last, over the
 *                                       version its writer read
 *                                       (gt_store_replace)
 *   diloco/versions/v<V>.bin.gz         global network of version V
 *   diloco/versions/v<V>.json           ledger of the deltas applied in V
 *   diloco/deltas/<unit>/<v>-<gen>-<seq>.delta   gt-delta(5), immutable
 *   diloco/heartbeats/<unit>.json       a unit's last sign of life
 *   diloco/lease.json                   {"owner","expires"} of gt-outer,
 *                                       replaced as current.json is
 * <v> and <seq> are decimal, <gen> 16 lowercase hex digits.
 *
 * The learning unit's rounds over this layout are lib/unit.h, the outer
 * process's cycle lib/outerproc.h.
 */
#ifndef GT_DILOCO_H
#define GT_DILOCO_H

#include <stddef.h>
#include <stdint.h>
#include "gt.h"
#include "store.h"

/* The pointer diloco/current.json:
 * {"version":V,"model":"v<V>.bin.gz","sha256":<hex of the file>,
 *  "bytes":N,"params_sha256":<hex of gt_delta_params_sha256>,"time":T} */
typedef struct gt_diloco_ptr {
	uint64_t version;
	char model[64];                   /* file name under diloco/versions/ */
	char sha256[GT_SHA256_HEX];       /* of the model file */
	long long bytes;                  /* of the model file */
	char params_sha256[GT_SHA256_HEX];
	double time;                      /* seconds since the epoch */
} gt_diloco_ptr;

/* gt_diloco_url: new string store + "/diloco/" + the printf-formatted
 * rest (caller frees). */
char *gt_diloco_url(const char *store, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* gt_diloco_ptr_parse / _format: the pointer's JSON. parse returns 0 or
 * GT_EFORMAT (e says why); format returns a new NUL-terminated string. */
int gt_diloco_ptr_parse(const char *json, size_t len, gt_diloco_ptr *p, gt_error *e);
char *gt_diloco_ptr_format(const gt_diloco_ptr *p);

/* gt_diloco_ptr_read: fetch and parse STORE/diloco/current.json; tag (may
 * be NULL) receives its version (gt_store_get_tagged), for a put that
 * must replace just that version (gt_store_replace), or "" when there is
 * no pointer. Returns 0, GT_ENOTFOUND (no pointer yet), or store/parse
 * errors. */
int gt_diloco_ptr_read(const gt_store_opts *o, const char *store, gt_diloco_ptr *p,
                       char *tag, gt_error *e);

/* gt_diloco_put_mem: upload buf[len] to url (gt_store_put_mem). Returns
 * gt_store_put's result. */
int gt_diloco_put_mem(const gt_store_opts *o, const void *buf, size_t len, const char *url,
                      int overwrite, gt_error *e);
/* gt_diloco_put_file: upload the local file path to url (gt_store_put_file). */
int gt_diloco_put_file(const gt_store_opts *o, const char *path, const char *url,
                       int overwrite, gt_error *e);

/* gt_diloco_delta_name: "<v>-<gen>-<seq>.delta" into buf (size bytes,
 * 80 suffice). gt_diloco_delta_name_parse: the reverse; 0 or GT_EFORMAT
 * for any other name. */
char *gt_diloco_delta_name(char *buf, size_t size, uint64_t v, uint64_t gen, uint64_t seq);
int gt_diloco_delta_name_parse(const char *name, uint64_t *v, uint64_t *gen, uint64_t *seq);

/* gt_diloco_unit_ok: 1 if s is a valid unit id (1..63 bytes of
 * [A-Za-z0-9._-], not starting with '.'), else 0. */
int gt_diloco_unit_ok(const char *s);

/* gt_diloco_lease_take: take or renew the outer process's lease
 * STORE/diloco/lease.json for owner (a string unique to the process) until
 * now + ttl_s. Refused (GT_EINVAL, the holder and its expiry in e) while
 * another owner holds an unexpired lease. The lease is replaced only over
 * the version read (gt_store_replace: If-Match, If-None-Match: * when
 * there is none, flock on a local store), then read back and must name
 * owner: of two processes that race, a server that honours the condition
 * refuses the second put, one that ignores it keeps the later writer, and
 * either way the other process is refused.
 * Returns 0, GT_EINVAL (held by another) or store errors. */
int gt_diloco_lease_take(const gt_store_opts *o, const char *store, const char *owner,
                         double ttl_s, gt_error *e);
/* gt_diloco_lease_drop: expire our lease at once (if we still hold it). */
int gt_diloco_lease_drop(const gt_store_opts *o, const char *store, const char *owner,
                         gt_error *e);

/* The unit's state file: the inner optimizer's moments m[n], v[n] (v may
 * be absent: NULL) and step count, the error-feedback residual r[n], the
 * number of process starts and delta counts. Format: magic "GTDUNIT1",
 * n, step, starts, deltas, samples (u64 LE each), flags (u64: bit 0 v
 * present), then m, v, r as float32 LE, and a CRC-32 of all before it. */
typedef struct gt_diloco_ustate {
	size_t n;
	int64_t step;
	uint64_t starts;     /* processes that loaded or created this state */
	uint64_t deltas;     /* deltas sent, all generations */
	uint64_t samples;    /* samples behind them */
	float *m, *v, *r;    /* owned: gt_diloco_ustate_release */
} gt_diloco_ustate;

/* gt_diloco_ustate_init: zeroed state of n values (v allocated if with_v). */
void gt_diloco_ustate_init(gt_diloco_ustate *s, size_t n, int with_v);
void gt_diloco_ustate_release(gt_diloco_ustate *s);
/* gt_diloco_ustate_save: atomic write (temporary, fsync, rename).
 * Returns 0 or GT_EIO. */
int gt_diloco_ustate_save(const gt_diloco_ustate *s, const char *path, gt_error *e);
/* gt_diloco_ustate_load: read into s (initialised by the caller with the
 * expected n and with_v; the file must match both). Returns 0,
 * GT_ENOTFOUND (no file), GT_EIO, GT_EFORMAT (bad magic, size or CRC),
 * GT_EINVAL (another n or optimizer). s is unchanged on error. */
int gt_diloco_ustate_load(gt_diloco_ustate *s, const char *path, gt_error *e);
/* gt_diloco_ustate_starts: the starts count in the header of the state
 * file at path (magic checked, nothing else); 0 when there is no such
 * file or it is not a unit state file. */
uint64_t gt_diloco_ustate_starts(const char *path);

#endif
