/*
 * evpool.h: the evaluators of a self-play run's worker threads
 * (gt-selfplay(1), lib/selfplay.h): one per thread, each opened by
 * gt_selfplay_model_open (a network with its own share of the cache, or
 * the uniform evaluator for "none"), and their cache counters summed.
 */
#ifndef GT_EVPOOL_H
#define GT_EVPOOL_H
#include "evcache.h"
#include "gt.h"
#include "mcts.h"
#include "selfplay.h"

typedef struct gt_evpool {
	gt_evaluator *evs;   /* n evaluators, owned; evs[t] for thread t */
	int n;
	char name[256];      /* the model's name for the records: the file's
	                        base name without .bin.gz, or "none" */
	const char *backend; /* "cpu", "cuda"; "" for none (static) */
	int precision;       /* GT_PREC_* in effect (gt_selfplay_model_open) */
	const char *precision_why; /* why lower than asked, or NULL (static) */
} gt_evpool;

/* gt_evpool_open: p->threads evaluators of the model argument path
 * ("none" or a network file, gt_selfplay_model_open) into pool, which the
 * caller closes with gt_evpool_close. Returns 0, or the first error (text
 * in e) with nothing left open. */
int gt_evpool_open(gt_evpool *pool, const gt_selfplay_params *p, const char *path,
                   gt_error *e);

/* gt_evpool_cache_stats: lookups, hits and entries of the evaluators'
 * caches summed into *sum (all 0 where there is no cache). */
void gt_evpool_cache_stats(const gt_evpool *pool, gt_evcache_stats *sum);

/* gt_evpool_close: close every evaluator and free the array. */
void gt_evpool_close(gt_evpool *pool);

#endif
