/*
 * pull.h: the collector's side of the store (gt(7) "The store"): every
 * self-play batch uploaded under STORE/games/ read once, in name order,
 * whatever order the batches arrived in and however often the collector
 * runs; a state file remembers the batches consumed.
 */
#ifndef GT_PULL_H
#define GT_PULL_H
#include <stdio.h>
#include "gt.h"
#include "store.h"

/* Counts of gt_pull_batches. */
typedef struct gt_pull_stats {
	long batches;         /* batches written out completely */
	long bad;             /* batches skipped as corrupt or over a limit */
	long long records;    /* lines written */
	long old;             /* batches passed over as older than the newest taken */
	long long bytes;      /* the listed sizes of the batches read (as stored) */
	long long rejected;   /* records dropped: worker not the batch's folder */
} gt_pull_stats;

/* Which batches a pull takes; all zero (or a NULL pointer): every one. */
typedef struct gt_pull_pick {
	unsigned share_k, share_units; /* share_units > 0: only the batches whose
	                                * gt_pull_share(name, share_units) is share_k */
	long newest;         /* > 0: only the newest that many batches (by the
	                      * listing's time, then name) of those the state does
	                      * not list; the older ones are recorded "old" in the
	                      * state and never pulled */
} gt_pull_pick;

/* gt_pull_share: the share a batch name falls in, of units (> 0): its
 * FNV-1a 64-bit hash modulo units, the same on every machine and run, so
 * that the learning units of a run each take a disjoint part of the
 * store's batches without talking to each other (gt(7)). */
unsigned gt_pull_share(const char *name, unsigned units);

/* gt_pull_batches: for every object under the folder URL, or under one of
 * its sub-folders (FOLDER/NAME: a worker's own folder), named *.ndjson or
 * *.ndjson.gz that the state file does not list and pk picks (NULL: all),
 * in name order: download it (a remote store: into a temporary file in
 * TMPDIR, removed whatever happens, the download stopped at the size the
 * listing gave for the batch, or where the listing gives none at the most
 * bytes a batch that expands to max_batch can have; a local one is read in
 * place, a symbolic link not followed), decompress it (zlib; plain text
 * passes through) and check it whole first, then write its non-empty
 * lines, each ending in '\n', to out, flush and fsync out (when it is a
 * file), and only then append the batch to the state file ("name\tok" or
 * "name\tbad", one line per batch) and fsync that: a batch marked pulled
 * is on disk. The batches pk->newest passes over are appended as
 * "name\told" before any is read. A batch that is corrupt, truncated, has
 * a line longer than max_line bytes, expands beyond max_batch bytes, is
 * stored (or listed) larger than that allows or sends more bytes than its
 * listing gave is reported through o->warn, written nothing, and recorded
 * as bad. A batch the store fails to deliver (an
 * error after the retries, a redirect) is not recorded: the pull stops
 * with that error and the next pull takes it. The state file (absent =
 * empty) is read once: a last line cut short by a crash is dropped with a
 * warning (its batch comes again); a file with more than twice as many
 * lines as batches is compacted. Memory stays bounded (a 64 kB buffer,
 * whatever max_line is; the state in memory). A folder that does not
 * exist yet is empty (with a warning). A batch in a sub-folder was
 * uploaded by the account of that name (the store lets each worker write
 * only its own folder: gt(7)), so each of its records must have that
 * "worker": one that does not (or is no JSON object) is not written to
 * out but counted as rejected and, when rejects is not NULL, written to it
 * as a line of gt-validate's rejects ({"file","line","game_id","worker",
 * "model","reason":"uploader","detail","uploader"}). st (may be NULL) gets
 * the counts. Errors: GT_EIO (store, state file, out or rejects),
 * GT_EFORMAT (state file), the store's other errors. */
int gt_pull_batches(const gt_store_opts *o, const char *url, const char *state,
                    const gt_pull_pick *pk, size_t max_line, long long max_batch, FILE *out,
                    FILE *rejects, gt_pull_stats *st, gt_error *e);

#endif
