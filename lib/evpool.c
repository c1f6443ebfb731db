/* evpool.c: a self-play run's evaluators, one per worker thread (evpool.h). */
#include "evpool.h"

#include <stdlib.h>
#include <string.h>

int gt_evpool_open(gt_evpool *pool, const gt_selfplay_params *p, const char *path,
                   gt_error *e)
{
	memset(pool, 0, sizeof *pool);
	pool->evs = gt_xcalloc(p->threads, sizeof *pool->evs);
	pool->backend = "";
	for (; pool->n < p->threads; pool->n++) {
		int r = gt_selfplay_model_open(p, path, &pool->evs[pool->n], pool->name,
		                               sizeof pool->name, &pool->backend,
		                               &pool->precision, &pool->precision_why, e);
		if (r) {
			gt_evpool_close(pool);
			return r;
		}
	}
	return 0;
}

void gt_evpool_cache_stats(const gt_evpool *pool, gt_evcache_stats *sum)
{
	gt_evcache_stats cs;
	memset(sum, 0, sizeof *sum);
	for (int t = 0; t < pool->n; t++)
		if (gt_evcache_get_stats(&pool->evs[t], &cs) == 0) {
			sum->lookups += cs.lookups;
			sum->hits += cs.hits;
			sum->entries += cs.entries;
		}
}

void gt_evpool_close(gt_evpool *pool)
{
	for (int t = 0; t < pool->n; t++)
		gt_evaluator_close(&pool->evs[t]);
	free(pool->evs);
	pool->evs = NULL;
	pool->n = 0;
}
