/*
 * contrib.h: how much each worker gave: games, positions and rejected
 * records per worker name, summed over the training generations of a run
 * in STORE/stats/contributions.json (gt-sync(1) contrib).
 */
#ifndef GT_CONTRIB_H
#define GT_CONTRIB_H
#include <stdio.h>
#include "gt.h"
#include "store.h"

/* gt_contrib_update: count one generation's contributions and add
 * them to STORE/stats/contributions.json ({"workers":{NAME:{"games",
 * "positions","rejected","generations","last"}},"generations":[ids],
 * "updated"}), replacing the version of it read (gt_store_replace: a
 * conditional put; another writer in between makes it read and add
 * again, three times at most, then GT_ECONFLICT). records: the
 * accepted game records (gt-record(5), one a line), counted by their
 * "worker" ("?" when absent) with their positions; vstats (may be NULL):
 * gt-validate's --stats file, whose "rejects_by_worker" are added as
 * "rejected". A generation id already among the last 1000 counted is not
 * counted again (a rerun after a crash). *summary receives a new JSON text
 * {"generation","workers":{...},"counted_before":true?} of this
 * generation's counts (caller frees). Names that are not 1 to 64
 * characters of [A-Za-z0-9._-] count as "(bad name)" and names past the
 * first 10000 of the file as "(others)", so the file stays under about
 * 2 MB. Errors: GT_EFORMAT (a record line,
 * vstats or the store's file is not JSON), GT_EIO, GT_ECONFLICT, the
 * store's errors. */
int gt_contrib_update(const gt_store_opts *o, const char *store, const char *generation,
                      FILE *records, const char *vstats, char **summary, gt_error *e);

#endif
