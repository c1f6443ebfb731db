/*
 * record_gen.h: a generator of self-play-like game records for tests and
 * benchmarks. It plays random legal games on lib/board (no filling of
 * one's own single-point eyes), ends them with two passes after a random
 * number of moves, and fills every position as a search would: the board,
 * a visit-share policy over a dozen legal moves including the move played
 * (visits random, pass last), the value and score from the side to move's
 * view that the final area score implies, and the final ownership.
 * Everything comes from a seeded splitmix64 (lib/rng), so a seed gives one
 * corpus. gen_shards writes such games as training shards.
 */
#ifndef GT_RECORD_GEN_H
#define GT_RECORD_GEN_H
#include "board.h"
#include "gt.h"
#include "record.h"
#include "rng.h"
#include "shard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int gen_below(uint64_t *s, int n)
{
	return (int)(gt_splitmix64(s) % (uint64_t)n);
}

static int gen_own_eye(const gt_board *b, int c, int p)
{
	int n = b->n, x = p % n, y = p / n;
	if (x > 0 && b->color[p - 1] != c) return 0;
	if (x < n - 1 && b->color[p + 1] != c) return 0;
	if (y > 0 && b->color[p - n] != c) return 0;
	if (y < n - 1 && b->color[p + n] != c) return 0;
	return 1;
}

/* gen_record: fill r (initialised by the caller, released first) with one
 * game on an n board under rules "chinese" or "tromp-taylor", komi 7.5
 * (9x9 and up) or 0.5..3.5, game number idx (for game_id and seed). */
static void gen_record(gt_record *r, int n, uint64_t seed, int idx)
{
	uint64_t s = seed * 1000003ULL + (uint64_t)idx;
	gt_splitmix64(&s);
	gt_record_release(r);
	int npts = n * n, tt = gen_below(&s, 2);
	strcpy(r->rules, tt ? "tromp-taylor" : "chinese");
	r->komi = n >= 9 ? 7.5 : 0.5 + gen_below(&s, 4);
	r->board_size = n;
	r->model = gt_xstrdup("gen-b6c64-s1200-d50000");
	char id[64];
	snprintf(id, sizeof id, "w%d", idx % 3);
	r->worker = gt_xstrdup(id);
	snprintf(id, sizeof id, "%016llx%08x", (unsigned long long)seed, idx);
	r->game_id = gt_xstrdup(id);
	r->seed = gt_splitmix64(&s) | 1;
	gt_board *b = gt_xmalloc(sizeof *b);
	gt_board_init(b, n, gt_rules_find(r->rules), r->komi);
	int target = npts * 3 / 4 + gen_below(&s, npts / 2 + 1), cap = target + 2;
	r->moves = gt_xmalloc(cap * sizeof *r->moves);
	r->colors = gt_xmalloc(cap);
	r->pos = gt_xcalloc(cap, sizeof *r->pos);
	r->boards = gt_xmalloc((size_t)cap * npts);
	int16_t legal[GT_MAX_PTS];
	while (!gt_board_over(b) && r->nmoves < cap) {
		int c = b->to_move, m = GT_PASS(n);
		int nl = gt_board_legal_moves(b, c, legal), ng = 0;
		for (int i = 0; i < nl; i++) /* keep the moves that fill no own eye */
			if (!gen_own_eye(b, c, legal[i]))
				legal[ng++] = legal[i];
		if (r->nmoves < target && ng)
			m = legal[gen_below(&s, ng)];
		gt_position *p = &r->pos[r->npos];
		p->move_number = r->nmoves;
		p->to_move = c;
		for (int q = 0; q < npts; q++)
			r->boards[(size_t)r->npos * npts + q] = ".XO"[b->color[q]];
		p->full_search = gen_below(&s, 4) != 0;
		p->visits = p->full_search ? 400 : 100;
		p->weight = 1;
		p->policy = gt_xcalloc(npts + 1, sizeof(float));
		int left = p->visits, k = gen_below(&s, p->visits / 2) + p->visits / 4;
		p->policy[m] += (float)k; /* the move played gets the most */
		left -= k;
		for (int j = 0; j < 12 && left > 0 && ng; j++) {
			int q = legal[gen_below(&s, ng)], v = j == 11 ? left : gen_below(&s, left + 1);
			p->policy[q] += (float)v;
			left -= v;
		}
		p->policy[m] += (float)left;
		for (int q = 0; q <= npts; q++)
			p->policy[q] /= (float)p->visits;
		r->npos++;
		r->colors[r->nmoves] = (uint8_t)c;
		r->moves[r->nmoves++] = (int16_t)m;
		gt_board_play(b, c, m);
	}
	r->ownership = gt_xmalloc(npts * sizeof(float));
	r->score = gt_board_area(b, r->ownership);
	r->winner = r->score > 0 ? GT_WIN_BLACK : r->score < 0 ? GT_WIN_WHITE : GT_WIN_DRAW;
	if (r->score == 0)
		strcpy(r->result, "0");
	else
		snprintf(r->result, sizeof r->result, "%c+%g", r->score > 0 ? 'B' : 'W',
		         r->score > 0 ? r->score : -r->score);
	for (int i = 0; i < r->npos; i++) {
		gt_position *p = &r->pos[i];
		double sc = p->to_move == GT_BLACK ? r->score : -r->score;
		p->score = (float)sc;
		p->value = sc > 0 ? 1.0f : sc < 0 ? -1.0f : 0.0f;
	}
	free(b);
}

/* gen_shards: the games gen_record(r, n, seed, i), i = 0..games-1, as
 * training shards in the folder out (created): rows a shard, shuffled by
 * shuffle_seed (gt_shard_opts). drop_own k > 0 removes the ownership of
 * the games i with i % k == k - 1 (1: every game, 2: every other one).
 * Returns 0, or a negative gt_err at the first error (e filled). */
static __attribute__((unused)) int gen_shards(const char *out, int n, uint64_t seed, int games,
                                              long rows, uint64_t shuffle_seed, int drop_own,
                                              gt_error *e)
{
	gt_shard_opts o;
	gt_shard_opts_init(&o);
	o.rows = rows;
	o.seed = shuffle_seed;
	gt_shard_writer *w = gt_shard_writer_new(out, &o, e);
	if (!w)
		return GT_EIO;
	gt_record r;
	gt_record_init(&r);
	int rc = 0;
	for (int i = 0; i < games && rc == 0; i++) {
		gen_record(&r, n, seed, i);
		if (drop_own > 0 && i % drop_own == drop_own - 1) {
			free(r.ownership);
			r.ownership = NULL;
		}
		rc = gt_shard_add_record(w, &r, e);
	}
	if (rc == 0)
		rc = gt_shard_flush(w, e);
	gt_record_release(&r);
	gt_shard_writer_free(w);
	return rc;
}

#endif
