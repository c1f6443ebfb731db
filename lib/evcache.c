/* evcache.c: an exact evaluation cache keyed by the network's inputs
 * (see evcache.h). */
#include "evcache.h"
#include "feat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WAYS 4
#define STONE_WORDS ((2 * GT_MAX_PTS + 63) / 64)

/* Everything the features of a position are made of. */
typedef struct key {
	uint64_t hash;               /* of the fields below; 0 marks a free slot */
	uint64_t stones[STONE_WORDS];/* 2 bits per point: the colour */
	double komi;
	int16_t ko, hist[GT_FEAT_HISTORY];
	uint8_t n, to_move, rules;
	uint8_t pad[9];              /* zero: keys are compared with memcmp */
} key;
_Static_assert(sizeof(key) == 136, "key has no hidden padding");

typedef struct cache {
	gt_evaluator inner;
	size_t bytes;
	int n, stride;      /* board size of the table; floats per entry */
	size_t nsets;
	key *keys;          /* nsets * WAYS */
	uint32_t *used;     /* last use tick per slot */
	float *data;        /* per slot: logits (n*n+1), value, score */
	uint32_t tick;
	gt_evcache_stats st;
	/* scratch for the misses of a call */
	int cap, cap_n;     /* positions and board size the scratch holds */
	int *miss, *uniq;   /* position of each miss; index of its first copy */
	key *mkeys;
	const gt_board **mboards;
	float *mlogits, *mvalue, *mscore;
} cache;

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static void make_key(const gt_board *b, key *k)
{
	memset(k, 0, sizeof *k);
	int np = b->npts;
	for (int p = 0; p < np; p++)
		k->stones[(2 * p) >> 6] |= (uint64_t)b->color[p] << ((2 * p) & 63);
	k->komi = b->komi;
	k->ko = (int16_t)(b->ko >= 0 && b->ko < np ? b->ko : -1);
	for (int h = 0; h < GT_FEAT_HISTORY; h++)
		k->hist[h] = (int16_t)(h < b->nmoves ? b->hist_move[b->nmoves - 1 - h] : -1);
	k->n = (uint8_t)b->n;
	k->to_move = (uint8_t)b->to_move;
	k->rules = (uint8_t)(b->rules ? b->rules->id : 255);
	uint64_t komi;
	memcpy(&komi, &k->komi, sizeof komi);
	uint64_t h = b->hash;
	h = mix(h ^ (uint64_t)k->n << 56 ^ (uint64_t)k->to_move << 48 ^ (uint64_t)k->rules << 40 ^
	        (uint64_t)(uint16_t)k->ko);
	for (int i = 0; i < GT_FEAT_HISTORY; i++)
		h = mix(h ^ (uint64_t)(uint16_t)k->hist[i]);
	h = mix(h ^ komi);
	k->hash = h ? h : 1;
}

static int key_eq(const key *a, const key *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

/* (re)build the table for board size n */
static void table_init(cache *c, int n)
{
	gt_free_all(c->keys, c->used, c->data);
	c->n = n;
	c->stride = n * n + 3;
	size_t slot = sizeof(key) + sizeof(uint32_t) + (size_t)c->stride * sizeof(float);
	c->nsets = c->bytes / (slot * WAYS);
	size_t ns = c->nsets * WAYS;
	c->keys = ns ? gt_xcalloc(ns, sizeof *c->keys) : NULL;
	c->used = ns ? gt_xcalloc(ns, sizeof *c->used) : NULL;
	c->data = ns ? gt_xmalloc(ns * c->stride * sizeof *c->data) : NULL;
	c->st.entries = 0;
	c->st.capacity = (long long)ns;
}

/* find: the slot holding k, or -1 */
static long find(cache *c, const key *k)
{
	size_t s = (k->hash % c->nsets) * WAYS;
	for (int w = 0; w < WAYS; w++)
		if (c->keys[s + w].hash == k->hash && key_eq(&c->keys[s + w], k))
			return (long)(s + w);
	return -1;
}

/* victim: the slot to (over)write for k: its own, a free one, or the
 * least recently used of its set */
static long victim(cache *c, const key *k)
{
	size_t s = (k->hash % c->nsets) * WAYS;
	long fresh = -1, old = (long)s;
	for (int w = 0; w < WAYS; w++) {
		const key *x = &c->keys[s + w];
		if (x->hash == k->hash && key_eq(x, k))
			return (long)(s + w);
		if (x->hash == 0 && fresh < 0)
			fresh = (long)(s + w);
		if ((uint32_t)(c->tick - c->used[s + w]) > (uint32_t)(c->tick - c->used[old]))
			old = (long)(s + w);
	}
	if (fresh >= 0) {
		c->st.entries++;
		return fresh;
	}
	return old;
}

static int cache_eval(void *ctx, int n, int nb, const gt_board *const *boards, float *logits,
                      float *value, float *score, float *own)
{
	cache *c = ctx;
	if (own || nb < 1)
		return c->inner.eval(c->inner.ctx, n, nb, boards, logits, value, score, own);
	if (n != c->n)
		table_init(c, n);
	if (!c->nsets)
		return c->inner.eval(c->inner.ctx, n, nb, boards, logits, value, score, own);
	if (nb > c->cap || n > c->cap_n) { /* room for the larger of both (a size may change) */
		int cb = c->cap = nb > c->cap ? nb : c->cap, cn = c->cap_n = n > c->cap_n ? n : c->cap_n;
		c->miss = gt_xrealloc(c->miss, cb * sizeof *c->miss);
		c->uniq = gt_xrealloc(c->uniq, cb * sizeof *c->uniq);
		c->mkeys = gt_xrealloc(c->mkeys, cb * sizeof *c->mkeys);
		c->mboards = gt_xrealloc(c->mboards, cb * sizeof *c->mboards);
		c->mlogits = gt_xrealloc(c->mlogits, (size_t)cb * (cn * cn + 1) * sizeof(float));
		c->mvalue = gt_xrealloc(c->mvalue, cb * sizeof(float));
		c->mscore = gt_xrealloc(c->mscore, cb * sizeof(float));
	}
	int np1 = n * n + 1, m = 0, u = 0;
	c->tick++;
	for (int i = 0; i < nb; i++) {
		key *k = &c->mkeys[m];
		make_key(boards[i], k);
		c->st.lookups++;
		long s = find(c, k);
		if (s < 0) {
			/* a miss; evaluated once even if the call holds it twice */
			int j = 0;
			while (j < m && !(c->mkeys[j].hash == k->hash && key_eq(&c->mkeys[j], k)))
				j++;
			c->miss[m] = i;
			if (j < m) {
				c->uniq[m++] = c->uniq[j];
				c->st.hits++;
			} else {
				c->uniq[m++] = u;
				c->mboards[u++] = boards[i];
			}
			continue;
		}
		c->st.hits++;
		c->used[s] = c->tick;
		const float *d = c->data + (size_t)s * c->stride;
		memcpy(logits + (size_t)i * np1, d, np1 * sizeof(float));
		value[i] = d[np1];
		if (score)
			score[i] = d[np1 + 1];
	}
	if (!m)
		return 0;
	memset(c->mscore, 0, u * sizeof(float));
	int r = c->inner.eval(c->inner.ctx, n, u, c->mboards, c->mlogits, c->mvalue, c->mscore, NULL);
	if (r)
		return r;
	for (int j = 0; j < m; j++) {
		int i = c->miss[j], q = c->uniq[j];
		const float *l = c->mlogits + (size_t)q * np1;
		memcpy(logits + (size_t)i * np1, l, np1 * sizeof(float));
		value[i] = c->mvalue[q];
		if (score)
			score[i] = c->mscore[q];
		long s = victim(c, &c->mkeys[j]);
		memcpy(&c->keys[s], &c->mkeys[j], sizeof(key));
		c->used[s] = c->tick;
		float *d = c->data + (size_t)s * c->stride;
		memcpy(d, l, np1 * sizeof(float));
		d[np1] = c->mvalue[q];
		d[np1 + 1] = c->mscore[q];
	}
	return 0;
}

static void cache_close(void *ctx)
{
	cache *c = ctx;
	gt_evaluator_close(&c->inner);
	gt_free_all(c->keys, c->used, c->data, c->miss, c->uniq, c->mkeys, c->mboards, c->mlogits,
	            c->mvalue, c->mscore, c);
}

/* the inner evaluator's raw outputs, not cached (one position, rarely) */
static int cache_raw(void *ctx, const gt_board *b, float *logits, float *own, gt_eval_raw *out)
{
	cache *c = ctx;
	return c->inner.raw(c->inner.ctx, b, logits, own, out);
}

int gt_evcache_wrap(gt_evaluator *ev, size_t bytes)
{
	size_t slot = sizeof(key) + sizeof(uint32_t) + 5 * sizeof(float);
	if (bytes < slot * WAYS)
		return 0;
	cache *c = gt_xcalloc(1, sizeof *c);
	c->inner = *ev;
	c->bytes = bytes;
	ev->ctx = c;
	ev->eval = cache_eval;
	ev->close = cache_close;
	ev->name = c->inner.name;
	ev->raw = c->inner.raw ? cache_raw : NULL;
	return 0;
}

int gt_evcache_get_stats(const gt_evaluator *ev, gt_evcache_stats *st)
{
	if (ev->eval != cache_eval) {
		memset(st, 0, sizeof *st);
		return GT_EINVAL;
	}
	*st = ((const cache *)ev->ctx)->st;
	return 0;
}
