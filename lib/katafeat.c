/* katafeat.c: KataGo's version-7 input features (see katafeat.h). The
 * ladder search and the pass-alive area follow KataGo's cpp/game/board.cpp
 * (searchIsLadderCaptured, calculateAreaForPla; read, not copied), on gt's
 * board. */
#include "katafeat.h"
#include "gt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* neighbours in KataGo's order: up, left, right, down; returns how many */
static int nbrs(int n, int p, int *out)
{
	int x = p % n, y = p / n, k = 0;
	if (y > 0)
		out[k++] = p - n;
	if (x > 0)
		out[k++] = p - 1;
	if (x < n - 1)
		out[k++] = p + 1;
	if (y < n - 1)
		out[k++] = p + n;
	return k;
}

static int libs(const gt_board *b, int p)
{
	return gt_board_liberties(b, p);
}

static int head(const gt_board *b, int p)
{
	return b->root[p];
}

/* whether v is among the n values of a */
static int among(const int *a, int n, int v)
{
	for (int j = 0; j < n; j++)
		if (a[j] == v)
			return 1;
	return 0;
}

/* distinct liberties of the group at p appended to list[start+len..],
 * skipping those already in list[start..start+len); returns how many added */
static int find_libs(const gt_board *b, int p, int16_t *list, int start, int len)
{
	int n = b->n, added = 0, q = p, nb[4];
	do {
		int k = nbrs(n, q, nb);
		for (int i = 0; i < k; i++) {
			if (b->color[nb[i]] != GT_EMPTY)
				continue;
			int dup = 0;
			for (int j = start; j < start + len + added; j++)
				if (list[j] == nb[i]) {
					dup = 1;
					break;
				}
			if (!dup) {
				list[start + len + added] = (int16_t)nb[i];
				added++;
			}
		}
		q = b->next[q];
	} while (q != p);
	return added;
}

/* capturing moves that gain liberties for the group at p (the liberties of
 * adjacent opponent groups in atari), appended as find_libs does */
static int find_caps(const gt_board *b, int p, int16_t *list, int start, int len)
{
	int n = b->n, opp = GT_OTHER(b->color[p]), added = 0, q = p, nb[4];
	int seen[GT_MAX_PTS], nseen = 0;
	do {
		int k = nbrs(n, q, nb);
		for (int i = 0; i < k; i++) {
			if (b->color[nb[i]] != opp || libs(b, nb[i]) != 1)
				continue;
			int h = head(b, nb[i]);
			if (among(seen, nseen, h))
				continue;
			added += find_libs(b, nb[i], list, start, len + added);
			seen[nseen++] = h;
		}
		q = b->next[q];
	} while (q != p);
	return added;
}

static int has_caps(const gt_board *b, int p)
{
	int n = b->n, opp = GT_OTHER(b->color[p]), q = p, nb[4];
	do {
		int k = nbrs(n, q, nb);
		for (int i = 0; i < k; i++)
			if (b->color[nb[i]] == opp && libs(b, nb[i]) == 1)
				return 1;
		q = b->next[q];
	} while (q != p);
	return 0;
}

static int immediate_libs(const gt_board *b, int p)
{
	int nb[4], k = nbrs(b->n, p, nb), c = 0;
	for (int i = 0; i < k; i++)
		c += b->color[nb[i]] == GT_EMPTY;
	return c;
}

/* KataGo's getBoundNumLibertiesAfterPlay (per direction, with multiplicity) */
static void bound_libs_after(const gt_board *b, int p, int pla, int *lo, int *hi)
{
	int nb[4], k = nbrs(b->n, p, nb), imm = 0, caps = 0, capstones = 0, conn = 0, maxconn = 0;
	for (int i = 0; i < k; i++) {
		int c = b->color[nb[i]];
		if (c == GT_EMPTY)
			imm++;
		else if (c == GT_OTHER(pla)) {
			if (libs(b, nb[i]) == 1) {
				caps++;
				capstones += b->gsize[head(b, nb[i])];
			}
		} else {
			int l = libs(b, nb[i]) - 1;
			conn += l;
			maxconn = l > maxconn ? l : maxconn;
		}
	}
	*lo = caps + (maxconn > imm ? maxconn : imm);
	*hi = imm + capstones + conn;
}

/* KataGo's getNumLibertiesAfterPlay: liberties a stone of pla at p would
 * have (captures counted), or max if at least max */
static int libs_after(const gt_board *b, int p, int pla, int max)
{
	int n = b->n, nb[4], k = nbrs(n, p, nb), nl = 0, ncap = 0, capheads[4];
	int16_t lst[GT_MAX_PTS];
	for (int i = 0; i < k; i++) {
		int c = b->color[nb[i]];
		if (c == GT_EMPTY || (c == GT_OTHER(pla) && libs(b, nb[i]) == 1)) {
			lst[nl++] = (int16_t)nb[i];
			if (nl >= max)
				return max;
			if (c != GT_EMPTY) {
				int h = head(b, nb[i]);
				if (!among(capheads, ncap, h))
					capheads[ncap++] = h;
			}
		}
	}
	int conn[4], nconn = 0;
	for (int i = 0; i < k; i++) {
		if (b->color[nb[i]] != pla)
			continue;
		int h = head(b, nb[i]);
		if (among(conn, nconn, h))
			continue;
		conn[nconn++] = h;
		int q = nb[i], nb2[4];
		do {
			int k2 = nbrs(n, q, nb2);
			for (int a = 0; a < k2; a++) {
				int l = nb2[a], c = b->color[l];
				if (l == p)
					continue;
				int empty = c == GT_EMPTY;
				if (c == GT_OTHER(pla))
					empty |= among(capheads, ncap, head(b, l));
				if (!empty)
					continue;
				int dup2 = 0;
				for (int j = 0; j < nl; j++)
					dup2 |= lst[j] == l;
				if (!dup2) {
					lst[nl++] = (int16_t)l;
					if (nl >= max)
						return max;
				}
			}
			q = b->next[q];
		} while (q != nb[i]);
	}
	return nl;
}

/* KataGo's wouldBeKoCapture: every neighbour of the empty point p is the
 * other colour's (of pla), exactly one direction is a capturable stone */
static int ko_capture(const gt_board *b, int p, int pla)
{
	if (b->color[p] != GT_EMPTY)
		return 0;
	int nb[4], k = nbrs(b->n, p, nb), cap = -1;
	for (int i = 0; i < k; i++) {
		if (b->color[nb[i]] != GT_OTHER(pla))
			return 0;
		if (libs(b, nb[i]) == 1) {
			if (cap >= 0)
				return 0;
			cap = nb[i];
		}
	}
	return cap >= 0 && b->gsize[head(b, cap)] == 1;
}

static int heuristic_conn_x2(const gt_board *b, int p, int pla)
{
	int nb[4], k = nbrs(b->n, p, nb), s = 0;
	for (int i = 0; i < k; i++)
		if (b->color[nb[i]] == pla) {
			int l = libs(b, nb[i]);
			if (l > 1)
				s += l * 2 - 3;
		}
	return s;
}

/* KataGo's isLegal with simple ko only and no suicide */
static int ladder_legal(const gt_board *b, int p, int pla)
{
	if (b->color[p] != GT_EMPTY || p == b->ko)
		return 0;
	int nb[4], k = nbrs(b->n, p, nb);
	for (int i = 0; i < k; i++) {
		int c = b->color[nb[i]];
		if (c == GT_EMPTY)
			return 1;
		int l = libs(b, nb[i]);
		if (c == pla && l > 1)
			return 1;
		if (c != pla && l == 1)
			return 1;
	}
	return 0;
}

static const gt_rules ladder_rules = {"katago-ladder", 0, GT_KO_SIMPLE, 0, GT_SCORE_AREA};

typedef struct ladder {
	gt_board *bd;      /* boards by depth */
	int cap;
	int nodes, aborted, stack;
	int16_t *buf;      /* move lists of all depths */
	size_t nbuf;
	int loc;
} ladder;

static gt_board *ladder_board(ladder *l, int d)
{
	if (d >= l->cap) {
		int c = l->cap ? l->cap * 2 : 16;
		while (c <= d)
			c *= 2;
		l->bd = gt_xrealloc(l->bd, (size_t)c * sizeof(gt_board));
		l->cap = c;
	}
	return &l->bd[d];
}

/* play p for pla on the board of depth d into depth d+1; 0 if it cannot */
static int ladder_play(ladder *l, int d, int p, int pla)
{
	gt_board *nb = ladder_board(l, d + 1), *b = &l->bd[d];
	gt_board_copy(nb, b);
	nb->to_move = pla;
	return gt_board_play_legal(nb, pla, p) == 0;
}

/* one node of KataGo's searchIsLadderCaptured at depth d (the board is
 * l->bd[d]); returns 1 when the attacker wins from here */
static int ladder_node(ladder *l, int d, int start, int defender_first)
{
	if (l->aborted)
		return 0;
	if (d >= l->stack - 1)
		return 1;
	if (l->nodes >= GT_KATAFEAT_LADDER_BUDGET) {
		l->aborted = 1;
		return 0;
	}
	const gt_board *b = &l->bd[d];
	int pla = b->color[l->loc], opp = GT_OTHER(pla);
	int defender = (d % 2 == 0) == (defender_first != 0);
	int nl = libs(b, l->loc);
	if (!defender && nl <= 1)
		return 1;
	if (!defender && nl >= 3)
		return 0;
	if (defender && nl >= 2)
		return 0;
	if (defender && b->ko >= 0)
		return 0;
	int16_t *mv = l->buf + start;
	int len = 0;
	if (defender) {
		len = find_caps(b, l->loc, l->buf, start, 0);
		len += find_libs(b, l->loc, l->buf, start, len);
		int lo, hi;
		bound_libs_after(b, mv[len - 1], pla, &lo, &hi);
		if (lo >= 3)
			return 0;
		if (len == 1 && hi <= 1)
			return 1;
	} else {
		len = find_libs(b, l->loc, l->buf, start, 0);
		if (len != 2)
			return 0;
		int l0 = immediate_libs(b, mv[0]), l1 = immediate_libs(b, mv[1]);
		if (l0 == 0 && l1 == 0 && ko_capture(b, mv[0], opp) && ko_capture(b, mv[1], opp) &&
		    libs_after(b, mv[0], pla, 3) <= 2 && libs_after(b, mv[1], pla, 3) <= 2 &&
		    !has_caps(b, l->loc))
			return 1;
		int n = b->n, dx = abs(mv[0] % n - mv[1] % n), dy = abs(mv[0] / n - mv[1] / n);
		if (dx + dy != 1) {
			if (l0 >= 3 && l1 >= 3)
				return 0;
			else if (l0 >= 3)
				len = 1;
			else if (l1 >= 3) {
				mv[0] = mv[1];
				len = 1;
			}
		}
		if (len > 1) {
			l0 = l0 * 2 + heuristic_conn_x2(b, mv[0], pla);
			l1 = l1 * 2 + heuristic_conn_x2(b, mv[1], pla);
			if (l1 > l0) {
				int16_t t = mv[0];
				mv[0] = mv[1];
				mv[1] = t;
			}
		}
	}
	int p = defender ? pla : opp;
	for (int i = 0; i < len; i++) {
		if (!ladder_legal(&l->bd[d], mv[i], p))
			continue;
		if (!ladder_play(l, d, mv[i], p))
			continue;
		l->nodes++;
		int r = ladder_node(l, d + 1, start + len, defender_first);
		if (l->aborted)
			return 0;
		if (defender && !r)
			return 0;
		if (!defender && r)
			return 1;
	}
	return defender;
}

/* searchIsLadderCaptured from the board l->bd[0] */
static int ladder_search(ladder *l, int loc, int defender_first)
{
	gt_board *b = &l->bd[0];
	if (b->color[loc] == GT_EMPTY)
		return 0;
	int nl = libs(b, loc);
	if (nl > 2 || (defender_first && nl > 1))
		return 0;
	int ko = b->ko;
	if (defender_first)
		b->ko = -1;
	l->loc = loc;
	l->nodes = 0;
	l->aborted = 0;
	l->stack = b->npts * 3 / 2 + 1;
	int r = ladder_node(l, 0, 0, defender_first);
	l->bd[0].ko = ko; /* l->bd may have moved */
	return l->aborted ? 0 : r;
}

/* ladder_init: l's root board is a copy of b with the ladder's rules
 * (simple ko, no suicide, no move cap); keeps l's buffers */
static void ladder_init(ladder *l, const gt_board *b)
{
	gt_board *r = ladder_board(l, 0);
	gt_board_copy(r, b);
	r->rules = &ladder_rules;
	r->passes = 0;
	r->max_moves = 0;
	/* depth x (captures + liberties): the lists of all depths together */
	size_t need = (size_t)(b->npts * 3 / 2 + 2) * (b->npts + 4);
	if (need > l->nbuf) {
		l->buf = gt_xrealloc(l->buf, sizeof(int16_t) * need);
		l->nbuf = need;
	}
}

struct gt_katafeat_ws {
	ladder l;
	gt_board prev;
};

gt_katafeat_ws *gt_katafeat_ws_new(void)
{
	return gt_xcalloc(1, sizeof(gt_katafeat_ws));
}

void gt_katafeat_ws_free(gt_katafeat_ws *ws)
{
	if (!ws)
		return;
	gt_free_all(ws->l.bd, ws->l.buf, ws);
}

/* searchIsLadderCapturedAttackerFirst2Libs on l->bd[0], then restores it */
static int ladder_2libs(ladder *l, int loc, int16_t *working, int *nworking)
{
	gt_board *b = &l->bd[0];
	*nworking = 0;
	if (b->color[loc] == GT_EMPTY || libs(b, loc) != 2)
		return 0;
	int pla = b->color[loc], opp = GT_OTHER(pla);
	int16_t mv[GT_MAX_PTS];
	find_libs(b, loc, mv, 0, 0);
	int works[2] = {0, 0};
	gt_board save;
	for (int i = 0; i < 2; i++) {
		if (!ladder_legal(b, mv[i], opp))
			continue;
		gt_board_copy(&save, b);
		b->to_move = opp;
		if (gt_board_play_legal(b, opp, mv[i]) == 0)
			works[i] = ladder_search(l, loc, 1);
		b = &l->bd[0]; /* ladder_search may have moved the boards */
		gt_board_copy(b, &save);
	}
	for (int i = 0; i < 2; i++)
		if (works[i])
			working[(*nworking)++] = mv[i];
	return works[0] || works[1];
}

/* iterLadders: plane[p] = 1 for stones in laddered groups; plane17 (may be
 * NULL) receives the working moves against opponent 2-liberty groups */
static void iter_ladders(ladder *lw, const gt_board *b, int opp, float *plane, float *plane17)
{
	ladder_init(lw, b);
	int heads[GT_MAX_PTS], vals[GT_MAX_PTS], nh = 0;
	for (int p = 0; p < b->npts; p++) {
		int c = b->color[p];
		if (c == GT_EMPTY)
			continue;
		int nl = libs(b, p);
		if (nl != 1 && nl != 2)
			continue;
		int h = head(b, p), k;
		for (k = 0; k < nh; k++)
			if (heads[k] == h)
				break;
		if (k < nh) {
			if (vals[k])
				plane[p] = 1;
			continue;
		}
		int16_t working[2];
		int nw = 0, r;
		if (nl == 1)
			r = ladder_search(lw, p, 1);
		else
			r = ladder_2libs(lw, p, working, &nw);
		heads[nh] = h;
		vals[nh++] = r;
		if (!r)
			continue;
		plane[p] = 1;
		if (plane17 && c == opp && nl > 1)
			for (int i = 0; i < nw; i++)
				plane17[working[i]] = 1;
	}
}

int gt_katafeat_ladder(const gt_board *b, int pt, int16_t *working, int *nworking)
{
	int16_t w[2];
	int nw = 0, r = 0;
	if (pt < 0 || pt >= b->npts || b->color[pt] == GT_EMPTY)
		return 0;
	gt_katafeat_ws *ws = gt_katafeat_ws_new();
	ladder_init(&ws->l, b);
	int nl = libs(b, pt);
	if (nl == 1)
		r = ladder_search(&ws->l, pt, 1);
	else if (nl == 2)
		r = ladder_2libs(&ws->l, pt, w, &nw);
	gt_katafeat_ws_free(ws);
	if (working)
		memcpy(working, w, sizeof(int16_t) * nw);
	if (nworking)
		*nworking = nw;
	return r;
}

/* ---- pass-alive area: KataGo's calculateAreaForPla (Benson's algorithm
 * with KataGo's territory marking) ---- */

static int adj_to_head(const gt_board *b, int p, int pla, int h)
{
	int nb[4], k = nbrs(b->n, p, nb);
	for (int i = 0; i < k; i++)
		if (b->color[nb[i]] == pla && head(b, nb[i]) == h)
			return 1;
	return 0;
}

static int adj_to_pla(const gt_board *b, int p, int pla)
{
	int nb[4], k = nbrs(b->n, p, nb);
	for (int i = 0; i < k; i++)
		if (b->color[nb[i]] == pla)
			return 1;
	return 0;
}

static void area_for(const gt_board *b, int pla, int suicide, uint8_t *result)
{
	int n = b->n, N = b->npts, opp = GT_OTHER(pla), nb[4];
	int16_t region[GT_MAX_PTS];
	int16_t members[GT_MAX_PTS]; /* points of all regions, region by region */
	int rstart[GT_MAX_PTS], rlen[GT_MAX_PTS], vstart[GT_MAX_PTS], vlen[GT_MAX_PTS];
	int internal[GT_MAX_PTS], has_opp[GT_MAX_PTS], dead_border[GT_MAX_PTS];
	int vital[GT_MAX_PTS * 4];
	int nregions = 0, nvital = 0, nmembers = 0, any_pla = 0;
	for (int p = 0; p < N; p++)
		region[p] = -1;
	for (int p0 = 0; p0 < N; p0++) {
		if (region[p0] != -1)
			continue;
		if (b->color[p0] != GT_EMPTY) {
			any_pla |= b->color[p0] == pla;
			continue;
		}
		int ri = nregions++;
		rstart[ri] = nmembers;
		vstart[ri] = nvital;
		internal[ri] = has_opp[ri] = dead_border[ri] = 0;
		int k = nbrs(n, p0, nb), vl = 0;
		for (int i = 0; i < k; i++) {
			if (b->color[nb[i]] != pla)
				continue;
			int h = head(b, nb[i]);
			if (!among(vital + vstart[ri], vl, h))
				vital[vstart[ri] + vl++] = h;
		}
		/* breadth-first over empty and opponent points */
		int qh = nmembers, qt = nmembers;
		members[qt++] = (int16_t)p0;
		region[p0] = (int16_t)ri;
		while (qh < qt) {
			int p = members[qh++];
			if (vl > 0 && (suicide || b->color[p] == GT_EMPTY)) {
				int nv = 0;
				for (int j = 0; j < vl; j++)
					if (adj_to_head(b, p, pla, vital[vstart[ri] + j]))
						vital[vstart[ri] + nv++] = vital[vstart[ri] + j];
				vl = nv;
			}
			if (internal[ri] < 2 && !adj_to_pla(b, p, pla))
				internal[ri]++;
			if (b->color[p] == opp)
				has_opp[ri] = 1;
			k = nbrs(n, p, nb);
			for (int i = 0; i < k; i++) {
				int a = nb[i];
				if ((b->color[a] == GT_EMPTY || b->color[a] == opp) && region[a] == -1) {
					members[qt++] = (int16_t)a;
					region[a] = (int16_t)ri;
				}
			}
		}
		nmembers = qt;
		rlen[ri] = qt - rstart[ri];
		vlen[ri] = vl;
		nvital += vl;
	}
	/* vital regions per group head; kill groups with fewer than two */
	int count[GT_MAX_PTS], killed[GT_MAX_PTS];
	memset(count, 0, sizeof count);
	memset(killed, 0, sizeof killed);
	for (int r = 0; r < nregions; r++)
		for (int j = 0; j < vlen[r]; j++)
			count[vital[vstart[r] + j]]++;
	for (;;) {
		int any = 0;
		for (int h = 0; h < N; h++) {
			if (b->color[h] != pla || head(b, h) != h || killed[h] || count[h] >= 2)
				continue;
			killed[h] = 1;
			any = 1;
			int q = h;
			do {
				int k = nbrs(n, q, nb);
				for (int i = 0; i < k; i++) {
					int r = region[nb[i]];
					if (r >= 0 && !dead_border[r] && b->color[nb[i]] != pla) {
						dead_border[r] = 1;
						for (int j = 0; j < vlen[r]; j++)
							count[vital[vstart[r] + j]]--;
					}
				}
				q = b->next[q];
			} while (q != h);
		}
		if (!any)
			break;
	}
	for (int p = 0; p < N; p++)
		if (b->color[p] == pla && !killed[head(b, p)])
			result[p] = (uint8_t)pla;
	for (int r = 0; r < nregions; r++) {
		int mark = internal[r] <= 1 && !dead_border[r] && any_pla;
		mark = mark || (!has_opp[r] && !dead_border[r] && any_pla);
		for (int j = 0; j < rlen[r]; j++) {
			int p = members[rstart[r] + j];
			if (mark)
				result[p] = (uint8_t)pla;
			else if (!has_opp[r] && any_pla && result[p] == GT_EMPTY)
				result[p] = (uint8_t)pla;
		}
	}
}

void gt_katafeat_area(const gt_board *b, int suicide, uint8_t *area)
{
	memset(area, GT_EMPTY, b->npts);
	area_for(b, GT_BLACK, suicide, area);
	area_for(b, GT_WHITE, suicide, area);
	for (int p = 0; p < b->npts; p++)
		if (area[p] == GT_EMPTY)
			area[p] = b->color[p];
}

/* ---- the features ---- */

int gt_katafeat_encode(const gt_board *b, int ko, int max_history, gt_katafeat_ws *ws,
                       float *planes, float *globals)
{
	if (!b || b->n < 2 || b->n > GT_MAX_N || !b->rules)
		return GT_EINVAL;
	if (ko < 0)
		ko = b->rules->ko;
	int n = b->n, N = n * n, pla = b->to_move, opp = GT_OTHER(pla);
	int over = gt_board_over(b), territory = b->rules->scoring == GT_SCORE_TERRITORY;
	/* history: the moves 1..5 ago, while colours alternate */
	int hist = over ? 1 : 5, included = 0;
	if (max_history >= 0 && max_history < hist)
		hist = max_history;
	float g[GT_KATAFEAT_GLOBALS] = {0};
	int histpt[5] = {-1, -1, -1, -1, -1};
	for (int h = 0; h < hist && h < b->nmoves; h++) {
		int want = h % 2 == 0 ? opp : pla;
		if (b->hist_color[b->nmoves - 1 - h] != want)
			break;
		included = h + 1;
		int m = b->hist_move[b->nmoves - 1 - h];
		if (m == N)
			g[h] = 1;
		else
			histpt[h] = m;
	}
	if (planes) {
		memset(planes, 0, sizeof(float) * GT_KATAFEAT_PLANES * N);
		for (int p = 0; p < N; p++) {
			planes[p] = 1;
			int c = b->color[p];
			if (c == GT_EMPTY)
				continue;
			planes[(c == pla ? 1 : 2) * N + p] = 1;
			int l = libs(b, p);
			if (l >= 1 && l <= 3)
				planes[(2 + l) * N + p] = 1;
		}
		if (b->ko >= 0 && b->ko < N)
			planes[6 * N + b->ko] = 1;
		if (ko != GT_KO_SIMPLE && !over)
			for (int p = 0; p < N; p++)
				if (b->color[p] == GT_EMPTY && p != b->ko && gt_board_legal(b, pla, p) == GT_ESUPERKO)
					planes[6 * N + p] = 1;
		for (int h = 0; h < 5; h++)
			if (histpt[h] >= 0)
				planes[(9 + h) * N + histpt[h]] = 1;
		gt_katafeat_ws *own = ws ? NULL : gt_katafeat_ws_new();
		if (!ws)
			ws = own;
		iter_ladders(&ws->l, b, opp, planes + 14 * N, planes + 17 * N);
		gt_board *prev = &ws->prev;
		int have = 0;
		for (int k = 1; k <= 2; k++) {
			if (included >= k) {
				if (!have)
					gt_board_copy(prev, b);
				have = 1;
				if (gt_board_undo(prev) != 0)
					have = 0;
			}
			iter_ladders(&ws->l, have ? prev : b, opp, planes + (14 + k) * N, NULL);
		}
		gt_katafeat_ws_free(own);
		uint8_t area[GT_MAX_PTS];
		gt_katafeat_area(b, b->rules->multi_suicide, area);
		for (int p = 0; p < N && !territory; p++) {
			if (area[p] == pla)
				planes[18 * N + p] = 1;
			else if (area[p] == opp)
				planes[19 * N + p] = 1;
		}
	}
	if (globals) {
		/* territory: KataGo's whiteBonusScore, a point to White for each
		 * black stone played and to Black for each white one (so that
		 * the net's area-like count comes out as territory) */
		double wk = b->komi;
		for (int i = 0; territory && i < b->nmoves; i++)
			if (b->hist_move[i] != N)
				wk += b->hist_color[i] == GT_BLACK ? 1 : -1;
		float komi = (float)(pla == GT_WHITE ? wk : -wk);
		float clip = (float)N + 20.0f;
		komi = komi > clip ? clip : komi < -clip ? -clip : komi;
		g[5] = komi / 20.0f;
		if (ko == GT_KO_POSITIONAL) {
			g[6] = 1.0f;
			g[7] = 0.5f;
		} else if (ko == GT_KO_SITUATIONAL) {
			g[6] = 1.0f;
			g[7] = -0.5f;
		}
		g[8] = b->rules->multi_suicide ? 1.0f : 0.0f;
		g[9] = g[10] = territory ? 1.0f : 0.0f; /* territory scoring, tax SEKI */
		g[14] = !over && b->passes >= 1 ? 1.0f : 0.0f;
		float floor_;
		if (territory)
			floor_ = komi; /* no komi wave before KataGo's second encore */
		else if (N % 2 == 0)
			floor_ = floorf(komi / 2.0f) * 2.0f;
		else
			floor_ = floorf((komi - 1.0f) / 2.0f) * 2.0f + 1.0f;
		float delta = komi - floor_;
		delta = delta < 0 ? 0 : delta > 2 ? 2 : delta;
		g[18] = delta < 0.5f ? delta : delta < 1.5f ? 1.0f - delta : delta - 2.0f;
		memcpy(globals, g, sizeof g);
	}
	return 0;
}
