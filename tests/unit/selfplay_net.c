/* selfplay_net: self-play with a small random network (b1c8): exact
 * (batch-invariant) evaluation; the same seed gives the same games whatever
 * the threads and games in flight, with and without the evaluation cache;
 * the cache returns exactly what the network returns for the same feature
 * input and never mixes positions whose inputs differ; SGF output reads
 * back with the same moves and result. */
#include "tap.h"
#include "evcache.h"
#include "feat.h"
#include "model.h"
#include "neteval.h"
#include "selfplay.h"
#include "sgf.h"

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

static gt_model *model;

static void __attribute__((noreturn)) bail(const char *what)
{
	printf("Bail out! %s\n", what);
	exit(1);
}

static void open_net(gt_evaluator *ev, int exact)
{
	gt_error e;
	if (gt_neteval_open(model, NULL, ev, &e) != 0)
		bail(e.text);
	gt_neteval_set_exact(ev, exact);
}

/* nb random positions of 9x9 (0..40 random legal moves) */
static gt_board *positions(int nb, uint64_t seed)
{
	gt_board *bs = malloc(nb * sizeof *bs);
	gt_rng r;
	gt_rng_seed(&r, seed);
	for (int i = 0; i < nb; i++) {
		gt_board_init(&bs[i], 9, gt_rules_find("chinese"), 7);
		int k = (int)gt_rng_below(&r, 40);
		for (int j = 0; j < k; j++) {
			int16_t mv[GT_MAX_PTS];
			int c = gt_board_legal_moves(&bs[i], bs[i].to_move, mv);
			int m = c && gt_rng_below(&r, 10) ? mv[gt_rng_below(&r, c)] : GT_PASS(9);
			if (gt_board_over(&bs[i]) || gt_board_play(&bs[i], bs[i].to_move, m) != 0)
				break;
		}
	}
	return bs;
}

#define NP 82

/* evaluate boards[0..nb) in one call */
static void eval(gt_evaluator *ev, int nb, const gt_board *const *bp, float *l, float *v,
                 float *s)
{
	memset(s, 0, nb * sizeof *s);
	if (ev->eval(ev->ctx, 9, nb, bp, l, v, s, NULL) != 0)
		bail("eval failed");
}

static char *digest(const gt_record *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (gt_record_write(r, f) != 0)
		bail("gt_record_write");
	fclose(f);
	return buf;
}

typedef struct collect {
	long n;
	char *dig[64];
} collect;

static int sink(void *ctx, long index, const gt_record *r, const gt_selfplay_stats *st)
{
	collect *c = ctx;
	(void)st;
	if (index < 64)
		c->dig[index] = digest(r);
	c->n++;
	return 0;
}

static void collect_free(collect *c)
{
	for (int i = 0; i < 64; i++)
		free(c->dig[i]);
}

static int same(const collect *a, const collect *b, int n)
{
	for (int i = 0; i < n; i++)
		if (!a->dig[i] || !b->dig[i] || strcmp(a->dig[i], b->dig[i]))
			return 0;
	return 1;
}

/* run games with per-thread evaluators: exact network, cache of mb MiB */
static int run(gt_selfplay_params *p, collect *c, long long *hits, long long *lookups)
{
	gt_evaluator evs[4];
	memset(c, 0, sizeof *c);
	for (int t = 0; t < p->threads; t++) {
		open_net(&evs[t], p->exact);
		gt_evcache_wrap(&evs[t], p->cache_bytes / p->threads);
	}
	gt_selfplay_stats st;
	int r = gt_selfplay_run(p, evs, sink, c, NULL, &st);
	*hits = *lookups = 0;
	for (int t = 0; t < p->threads; t++) {
		gt_evcache_stats cs;
		if (gt_evcache_get_stats(&evs[t], &cs) == 0) {
			*hits += cs.hits;
			*lookups += cs.lookups;
		}
		gt_evaluator_close(&evs[t]);
	}
	return r;
}

int main(void)
{
	gt_arch a;
	gt_arch_default(&a, 1, 8, GT_FEAT_PLANES, GT_FEAT_GLOBALS, GT_FEAT_VERSION);
	gt_error e;
	model = gt_model_new_random(&a, 7, &e);
	if (!model)
		bail(e.text);

	/* exact evaluation: one call of 24 = 24 calls of 1 = a shuffled call */
	enum { NB = 24 };
	gt_board *bs = positions(NB, 3);
	const gt_board *bp[NB], *rev[NB];
	for (int i = 0; i < NB; i++) {
		bp[i] = &bs[i];
		rev[i] = &bs[NB - 1 - i];
	}
	static float L[NB * NP], V[NB], S[NB], L1[NB * NP], V1[NB], S1[NB], L2[NB * NP], V2[NB],
	       S2[NB];
	gt_evaluator ex, fast;
	open_net(&ex, 1);
	open_net(&fast, 0);
	is_str(gt_neteval_backend(&ex), "cpu", "backend cpu");
	ok(gt_neteval_backend(&(gt_evaluator){ 0 }) == NULL, "no backend for a non-network");
	eval(&ex, NB, bp, L, V, S);
	for (int i = 0; i < NB; i++)
		eval(&ex, 1, bp + i, L1 + i * NP, V1 + i, S1 + i);
	eval(&ex, NB, rev, L2, V2, S2);
	int diff = 0;
	for (int i = 0; i < NB; i++) {
		int j = NB - 1 - i;
		diff += memcmp(L + i * NP, L1 + i * NP, NP * 4) || V[i] != V1[i] || S[i] != S1[i];
		diff += memcmp(L + i * NP, L2 + j * NP, NP * 4) || V[i] != V2[j] || S[i] != S2[j];
	}
	is_int(diff, 0, "exact: outputs independent of the batch (24, 1 by 1, reversed)");
	/* batched: close to the exact outputs (the bound the man page gives) */
	eval(&fast, NB, bp, L2, V2, S2);
	double md = 0;
	for (int i = 0; i < NB * NP; i++)
		md = fmax(md, fabs(L2[i] - L[i]));
	for (int i = 0; i < NB; i++)
		md = fmax(md, fmax(fabs(V2[i] - V[i]), fabs(S2[i] - S[i]) / 20));
	ok(md < 1e-5, "batched: within 1e-5 of exact (max difference %g)", md);

	/* the cache returns the network's outputs bit for bit */
	gt_evaluator ce;
	open_net(&ce, 1);
	gt_evcache_wrap(&ce, 1 << 20);
	gt_evcache_stats cs;
	is_int(gt_evcache_get_stats(&ce, &cs), 0, "a caching evaluator");
	is_int(gt_evcache_get_stats(&ex, &cs), GT_EINVAL, "the plain one is not");
	eval(&ce, NB, bp, L2, V2, S2);
	eval(&ce, NB, rev, L1, V1, S1);
	diff = 0;
	for (int i = 0; i < NB; i++) {
		int j = NB - 1 - i;
		diff += memcmp(L + i * NP, L2 + i * NP, NP * 4) || V[i] != V2[i] || S[i] != S2[i];
		diff += memcmp(L + i * NP, L1 + j * NP, NP * 4) || V[i] != V1[j] || S[i] != S1[j];
	}
	is_int(diff, 0, "cached outputs equal the network's, first and second time");
	gt_evcache_get_stats(&ce, &cs);
	ok(cs.hits >= NB && cs.lookups == 2 * NB, "second call answered from the cache (%lld/%lld)",
	   cs.hits, cs.lookups);

	/* same stones, different inputs: move orders that transpose (other
	 * history planes), another komi, another side to move: each its own
	 * entry, each its own network output */
	gt_board t[4];
	const gt_rules *ch = gt_rules_find("chinese");
	int A = 2 * 9 + 2, B = 6 * 9 + 6, C = 2 * 9 + 6, D = 6 * 9 + 2;
	for (int k = 0; k < 4; k++)
		gt_board_init(&t[k], 9, ch, k == 2 ? 6.5 : 7);
	int ord[2][4] = { { A, B, C, D }, { C, D, A, B } };
	for (int k = 0; k < 4; k++)
		for (int m = 0; m < 4; m++)
			gt_board_play(&t[k], t[k].to_move, ord[k == 1][m]);
	gt_board_play(&t[3], t[3].to_move, GT_PASS(9)); /* pass changes the history too */
	ok(t[0].hash == t[1].hash && t[0].hash == t[2].hash && t[0].hash == t[3].hash,
	   "four positions with the same stones");
	const gt_board *tp[4] = { &t[0], &t[1], &t[2], &t[3] };
	float tl[4 * NP], tv[4], ts[4], ul[4 * NP], uv[4], us[4];
	eval(&ex, 4, tp, tl, tv, ts);
	ok(memcmp(tl, tl + NP, NP * 4) && memcmp(tl, tl + 2 * NP, NP * 4) &&
	   memcmp(tl, tl + 3 * NP, NP * 4), "the network tells them apart");
	gt_evaluator c2;
	open_net(&c2, 1);
	gt_evcache_wrap(&c2, 1 << 20);
	for (int k = 0; k < 4; k++)
		eval(&c2, 1, tp + k, ul + k * NP, uv + k, us + k);
	eval(&c2, 4, tp, ul, uv, us);
	ok(memcmp(tl, ul, sizeof tl) == 0 && memcmp(tv, uv, sizeof tv) == 0,
	   "the cache gives each its own outputs");
	gt_evcache_get_stats(&c2, &cs);
	ok(cs.entries == 4 && cs.hits == 4, "four entries, the second round all hits");
	gt_evaluator_close(&c2);

	/* a cache of one set (4 entries) stays exact while it replaces entries */
	gt_evaluator tiny;
	open_net(&tiny, 1);
	gt_evcache_wrap(&tiny, 4 * (sizeof(float) * (NP + 2) + 200));
	diff = 0;
	for (int round = 0; round < 3; round++) {
		eval(&tiny, NB, bp, L1, V1, S1);
		diff += memcmp(L, L1, sizeof L) != 0 || memcmp(V, V1, sizeof V) != 0;
	}
	gt_evcache_get_stats(&tiny, &cs);
	ok(diff == 0 && cs.capacity >= 4 && cs.entries <= cs.capacity,
	   "a tiny cache (%lld entries) is exact too", cs.capacity);
	gt_evaluator_close(&tiny);
	gt_evaluator_close(&ce);
	gt_evaluator_close(&ex);
	gt_evaluator_close(&fast);
	free(bs);

	/* self-play: the same seed, the same games whatever the batches */
	gt_selfplay_params p;
	gt_selfplay_params_default(&p);
	p.visits = 12;
	p.cheap_visits = 6;
	p.games = 24;
	p.seed = 99;
	p.exact = 1;
	p.model = "b1c8";
	p.threads = 2;
	p.parallel_games = 6;
	p.cache_bytes = 0;
	collect c1, c2c, c3;
	long long hits, lookups;
	is_int(run(&p, &c1, &hits, &lookups), 0, "24 games, 2 threads x 6 in flight, no cache");
	p.threads = 1;
	p.parallel_games = 1;
	run(&p, &c2c, &hits, &lookups);
	ok(same(&c1, &c2c, 24), "the same games with 1 thread x 1 game in flight");
	p.parallel_games = 16;
	p.cache_bytes = 8 << 20;
	run(&p, &c3, &hits, &lookups);
	ok(same(&c1, &c3, 24), "and with 16 in flight and the cache");
	ok(hits > 0, "the cache hit %lld of %lld lookups", hits, lookups);
	collect_free(&c2c);
	collect_free(&c3);
	p.threads = 2;
	p.parallel_games = 5;
	run(&p, &c3, &hits, &lookups);
	ok(same(&c1, &c3, 24), "and with 2 threads x 5 and the cache");
	collect_free(&c3);

	/* SGF: a game written to a folder reads back the same */
	char dir[] = "/tmp/gt-selfplay-sgf-XXXXXX";
	if (!mkdtemp(dir))
		bail("mkdtemp");
	gt_record r;
	gt_evaluator ev;
	open_net(&ev, 1);
	p.games = 24;
	is_int(gt_selfplay_game(&p, &ev, 5, &r), 0, "game 5 alone");
	char *d5 = digest(&r);
	is_str(d5, c1.dig[5], "equals game 5 of the run");
	free(d5);
	is_int(gt_selfplay_sgf_write(dir, &r, &e), 0, "written as SGF");
	char path[128];
	snprintf(path, sizeof path, "%s/%s.sgf", dir, r.game_id);
	gt_sgf_game *gs;
	int ng;
	is_int(gt_sgf_read_file(path, &gs, &ng, &e), 0, "%s reads back", path);
	int mv_ok = ng == 1 && gs[0].err == 0 && gs[0].nmoves == r.nmoves;
	for (int i = 0; mv_ok && i < r.nmoves; i++)
		mv_ok = gs[0].moves[i].pt == r.moves[i] && gs[0].moves[i].color == r.colors[i];
	ok(mv_ok, "the same %d moves and colours", r.nmoves);
	ok(gs[0].size == 9 && gs[0].komi == 7, "size and komi");
	char re[32];
	gt_sgf_result_str(&gs[0], re);
	is_str(re, r.result, "the same result");
	ok(r.winner == GT_WIN_DRAW ? gs[0].winner == GT_WIN_DRAW :
	   gs[0].has_margin && gs[0].margin == fabs(r.score), "margin %g (or a draw)", gs[0].margin);
	gt_board b;
	is_int(gt_sgf_replay(&gs[0], gt_rules_find("chinese"), &b, NULL, &e), 0,
	       "replays legally");
	is_dbl(gt_board_area(&b, NULL), r.score, 0, "to the same area score");
	is_str(gt_sgf_prop_get(&gs[0], "GN"), r.game_id, "GN is the game id");
	{
		char who[300], *text = NULL;
		snprintf(who, sizeof who, "%s (gt %s)", r.model, GT_VERSION);
		is_str(gt_sgf_prop_get(&gs[0], "PB"), who, "PB is the model and gt's version");
		const char *dt = gt_sgf_prop_get(&gs[0], "DT");
		ok(dt && strlen(dt) == 10 && dt[4] == '-' && dt[7] == '-', "DT is a date (%s)", dt ? dt : "-");
		FILE *f = fopen(path, "r");
		size_t cap = 0;
		ssize_t k = f ? getdelim(&text, &cap, 0, f) : -1;
		if (f)
			fclose(f);
		int searched = 0, comments = 0;
		for (int i = 0; i < r.npos; i++)
			searched += r.pos[i].has_root && r.pos[i].visits > 0;
		for (const char *q = k > 0 ? text : ""; (q = strstr(q, "C[win rate B ")); q++)
			comments++;
		ok(searched > 0 && comments == searched, "a comment on each of the %d searched moves (%d)",
		   searched, comments);
		free(text);
	}
	gt_sgf_free(gs, ng);
	/* nothing else left in the folder (the temporary file was renamed) */
	DIR *dd = opendir(dir);
	int files = 0;
	struct dirent *de;
	while ((de = readdir(dd)))
		if (de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")))
			files++;
	closedir(dd);
	is_int(files, 1, "one file in the folder");
	unlink(path);
	rmdir(dir);
	is_int(gt_selfplay_sgf_write("/nonexistent/dir", &r, &e), GT_EIO,
	       "a missing folder: GT_EIO (%s)", e.text);
	gt_selfplay_record_free(&r);
	gt_evaluator_close(&ev);
	collect_free(&c1);
	gt_model_free(model);
	return done_testing();
}
