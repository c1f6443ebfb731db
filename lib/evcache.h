/*
 * evcache.h: a cache of position evaluations in front of an evaluator
 * (mcts.h gt_evaluator), so that a position met again (a transposition in
 * one tree, the same opening in another game) is not evaluated twice.
 *
 * An entry is found by a hash of the position and confirmed by comparing
 * everything the network's input features (feat.h) are made of: the board
 * size, every point's colour, the side to move, the simple-ko point, the
 * last GT_FEAT_HISTORY moves (points and passes), komi and ruleset. Two
 * positions share an entry only when their feature inputs are identical,
 * so a hit returns what the evaluator returned for the same input; with an
 * evaluator whose outputs do not depend on the batch (gt_neteval_set_exact)
 * the results with and without the cache are the same bit for bit.
 *
 * Memory is fixed at the first call (or a change of board size, which
 * empties the cache): as many entries as fit in the given bytes, in sets of
 * 4 with the least recently used entry of a set replaced. Calls that ask
 * for ownership bypass the cache. Not thread-safe: one cache per thread,
 * like the network evaluators it wraps.
 */
#ifndef GT_EVCACHE_H
#define GT_EVCACHE_H
#include <stddef.h>
#include "mcts.h"

/* gt_evcache_wrap: replace *ev by a caching evaluator over it, using at
 * most `bytes` of memory for entries. The wrapper takes ownership of the
 * evaluator it wraps (gt_evaluator_close closes both). bytes too small for
 * one set of entries (0 in particular) leaves *ev as it is. Returns 0. */
int gt_evcache_wrap(gt_evaluator *ev, size_t bytes);

typedef struct gt_evcache_stats {
	long long lookups;   /* positions asked for */
	long long hits;      /* answered from the cache */
	long long entries;   /* entries in use */
	long long capacity;  /* entries that fit */
} gt_evcache_stats;

/* gt_evcache_get_stats: the counters of a caching evaluator; returns 0, or
 * GT_EINVAL (st zeroed) when ev is not one. */
int gt_evcache_get_stats(const gt_evaluator *ev, gt_evcache_stats *st);

#endif
