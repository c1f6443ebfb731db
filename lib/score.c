/* score.c: dead stones from ownership, light playouts, the final score
 * (see score.h). */
#include "score.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gt.h"
#include "rng.h"

int gt_score_board_from(gt_board *dst, const gt_board *src)
{
	int err = gt_board_init(dst, src->n, src->rules, src->komi);
	for (int p = 0; p < src->npts && !err; p++)
		if (src->color[p] != GT_EMPTY)
			err = gt_board_setup(dst, src->color[p], p);
	if (!err) {
		gt_board_set_to_move(dst, src->to_move);
		dst->captures[GT_BLACK] = src->captures[GT_BLACK];
		dst->captures[GT_WHITE] = src->captures[GT_WHITE];
	}
	return err;
}

int gt_score_play_on(gt_board *b, int color, int pt)
{
	if (!gt_board_over(b))
		return gt_board_play(b, color, pt);
	gt_board *nb = gt_xmalloc(sizeof *nb);
	int err = gt_score_board_from(nb, b);
	if (!err)
		err = gt_board_play(nb, color, pt);
	if (!err)
		gt_board_copy(b, nb);
	free(nb);
	return err;
}

/* 1 if every on-board neighbour of pt is a stone of color */
static int own_eye(const gt_board *b, int color, int pt)
{
	int n = b->n, x = pt % n, y = pt / n;
	return (x == 0 || b->color[pt - 1] == color) && (x == n - 1 || b->color[pt + 1] == color) &&
	       (y == 0 || b->color[pt - n] == color) && (y == n - 1 || b->color[pt + n] == color);
}

/* the liberty of the group at p when it has exactly one, else -1 (the
 * pseudo-liberty sums of lib/board) */
static int atari_lib(const gt_board *b, int p)
{
	int r = b->root[p];
	int64_t k = b->plibs[r], s = b->lsum[r];
	if (k <= 0 || k * b->lsum2[r] != s * s)
		return -1;
	return (int)(s / k);
}

/* a move answering the last one (at last, by the opponent of c): capture
 * a group of the opponent's in atari among last and its neighbours, else
 * save a group of c's in atari next to last by its liberty; -1 if none */
static int reply(const gt_board *b, int c, int last)
{
	int n = b->n, x = last % n, y = last / n;
	int nb[5] = { last, x > 0 ? last - 1 : -1, x < n - 1 ? last + 1 : -1,
	              y > 0 ? last - n : -1, y < n - 1 ? last + n : -1 };
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < 5; i++) {
			int q = nb[i];
			if (q < 0 || b->color[q] != (pass ? c : GT_OTHER(c)))
				continue;
			int l = atari_lib(b, q);
			if (l >= 0 && !own_eye(b, c, l) && gt_board_legal(b, c, l) == 0)
				return l;
		}
	return -1;
}

/* 1 if c at empty p captures nothing and leaves a group of two or more
 * stones with a single liberty (a self-atari that playouts avoid) */
static int self_atari(const gt_board *b, int c, int p)
{
	int n = b->n, x = p % n, y = p / n, size = 1;
	int nb[4] = { x > 0 ? p - 1 : -1, x < n - 1 ? p + 1 : -1, y > 0 ? p - n : -1,
	              y < n - 1 ? p + n : -1 };
	int16_t libs[8];
	int nl = 0, roots[4], nr = 0;
	for (int i = 0; i < 4; i++) {
		int q = nb[i];
		if (q < 0)
			continue;
		if (b->color[q] == GT_EMPTY) {
			if (nl < 2 && (nl == 0 || libs[0] != q))
				libs[nl++] = (int16_t)q;
		} else if (b->color[q] == GT_OTHER(c) && atari_lib(b, q) == p) {
			return 0; /* a capture */
		} else if (b->color[q] == c) {
			int r = b->root[q], dup = 0;
			for (int j = 0; j < nr; j++)
				dup |= roots[j] == r;
			if (!dup)
				roots[nr++] = r;
		}
	}
	for (int j = 0; j < nr && nl < 2; j++) {
		size += b->gsize[roots[j]];
		for (int q = roots[j];;) {
			int qx = q % n, qy = q / n;
			int qn[4] = { qx > 0 ? q - 1 : -1, qx < n - 1 ? q + 1 : -1,
			              qy > 0 ? q - n : -1, qy < n - 1 ? q + n : -1 };
			for (int i = 0; i < 4 && nl < 2; i++)
				if (qn[i] >= 0 && qn[i] != p && b->color[qn[i]] == GT_EMPTY &&
				    (nl == 0 || libs[0] != qn[i]))
					libs[nl++] = (int16_t)qn[i];
			q = b->next[q];
			if (q == roots[j])
				break;
		}
	}
	return nl < 2 && size >= 2;
}

/* a random liberty of the group at last that c may play (not its own eye),
 * or -1 */
static int contact(const gt_board *b, int c, int last, gt_rng *rng)
{
	int16_t libs[GT_MAX_PTS];
	int k = 0, n = b->n, r = b->root[last];
	uint8_t seen[GT_MAX_PTS];
	memset(seen, 0, (size_t)b->npts);
	for (int q = r;;) {
		int x = q % n, y = q / n;
		int nb[4] = { x > 0 ? q - 1 : -1, x < n - 1 ? q + 1 : -1, y > 0 ? q - n : -1,
		              y < n - 1 ? q + n : -1 };
		for (int i = 0; i < 4; i++)
			if (nb[i] >= 0 && b->color[nb[i]] == GT_EMPTY && !seen[nb[i]]) {
				seen[nb[i]] = 1;
				libs[k++] = (int16_t)nb[i];
			}
		q = b->next[q];
		if (q == r)
			break;
	}
	while (k > 0) {
		int i = (int)gt_rng_below(rng, (uint64_t)k);
		int p = libs[i];
		libs[i] = libs[--k];
		if (!own_eye(b, c, p) && !self_atari(b, c, p) && gt_board_legal(b, c, p) == 0)
			return p;
	}
	return -1;
}

/* one playout from b (changed) to two passes or the cap: replies to the
 * last move first (reply), else a uniformly random legal move that does
 * not fill an eye of the mover's own */
static void playout(gt_board *b, gt_rng *rng)
{
	int16_t cand[GT_MAX_PTS];
	int cap = 3 * b->npts;
	for (int m = 0; m < cap && !gt_board_over(b); m++) {
		int c = b->to_move, k = b->nempty, mv = GT_PASS(b->n);
		int last = b->nmoves ? b->hist_move[b->nmoves - 1] : GT_PASS(b->n);
		int r = last < b->npts ? reply(b, c, last) : -1;
		if (r < 0 && last < b->npts && b->color[last] == GT_OTHER(c))
			r = contact(b, c, last, rng);
		if (r >= 0)
			k = 0, mv = r;
		memcpy(cand, b->empty, (size_t)k * sizeof *cand);
		while (k > 0) {
			int i = (int)gt_rng_below(rng, (uint64_t)k);
			int p = cand[i];
			cand[i] = cand[--k];
			if (!own_eye(b, c, p) && !self_atari(b, c, p) && gt_board_legal(b, c, p) == 0) {
				mv = p;
				break;
			}
		}
		if (gt_board_play_legal(b, c, mv) != 0)
			break; /* the history is full: score as it stands */
	}
}

int gt_score_playouts(const gt_board *b, int k, uint64_t seed, float *own)
{
	if (k < 1)
		return GT_EINVAL;
	gt_board *start = gt_xmalloc(sizeof *start), *w = gt_xmalloc(sizeof *w);
	double sum[GT_MAX_PTS] = {0};
	float o[GT_MAX_PTS];
	int err = gt_score_board_from(start, b);
	gt_rng rng;
	gt_rng_seed(&rng, seed);
	for (int i = 0; i < k && !err; i++) {
		gt_board_copy(w, start);
		playout(w, &rng);
		gt_board_area(w, o);
		for (int p = 0; p < b->npts; p++)
			sum[p] += o[p];
	}
	for (int p = 0; p < b->npts; p++)
		own[p] = (float)(sum[p] / k);
	free(start);
	free(w);
	return err;
}

int gt_score_default_playouts(int n)
{
	int k = 40000 / (n * n);
	return k < 64 ? 64 : k;
}

/* the mean of own over the group at p, from the group's colour's view */
static double group_mean(const gt_board *b, const float *own, int p)
{
	double sum = 0;
	int k = 0, r = b->root[p];
	for (int q = r;;) {
		sum += own[q];
		k++;
		q = b->next[q];
		if (q == r)
			break;
	}
	return (b->color[p] == GT_BLACK ? sum : -sum) / k;
}

void gt_score_status(const gt_board *b, const float *own, const float *fallback,
                     uint8_t *status)
{
	memset(status, GT_STATUS_NONE, (size_t)b->npts);
	for (int p = 0; p < b->npts; p++) {
		if (b->color[p] == GT_EMPTY || status[p] != GT_STATUS_NONE)
			continue;
		double g = group_mean(b, own, p);
		if (fallback && fabs(g) <= 0.5)
			g = group_mean(b, fallback, p);
		int st = g < -0.3 ? GT_STATUS_DEAD : g > 0.3 ? GT_STATUS_ALIVE : GT_STATUS_SEKI;
		for (int q = b->root[p];;) {
			status[q] = (uint8_t)st;
			q = b->next[q];
			if (q == b->root[p])
				break;
		}
	}
}

double gt_score_final(const gt_board *b, const uint8_t *status, float *own)
{
	if (b->rules->scoring == GT_SCORE_TERRITORY) {
		uint8_t dead[GT_MAX_PTS];
		for (int p = 0; p < b->npts; p++)
			dead[p] = status && b->color[p] != GT_EMPTY && status[p] == GT_STATUS_DEAD;
		return gt_board_territory(b, dead, own, NULL);
	}
	gt_board *c = gt_xmalloc(sizeof *c);
	gt_board_copy(c, b);
	for (int p = 0; status && p < b->npts; p++)
		if (b->color[p] != GT_EMPTY && status[p] == GT_STATUS_DEAD)
			c->color[p] = (uint8_t)GT_OTHER(b->color[p]);
	double s = gt_board_area(c, own);
	free(c);
	return s;
}
