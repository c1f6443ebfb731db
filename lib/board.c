/*
 * board.c: the Go rules engine. See board.h for the representation.
 */
#include "board.h"
#include "gt.h"
#include "rng.h"

#include <ctype.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- rulesets: data, not branches ---- */

static const gt_rules rules_table[GT_NRULES_ALL] = {
	{"tromp-taylor", 0, GT_KO_POSITIONAL, 1, GT_SCORE_AREA},
	{"chinese", 1, GT_KO_POSITIONAL, 0, GT_SCORE_AREA},
	{"new-zealand", 2, GT_KO_SITUATIONAL, 1, GT_SCORE_AREA},
	{"japanese", 3, GT_KO_SIMPLE, 0, GT_SCORE_TERRITORY},
};

static const struct {
	const char *alias, *name;
} rules_alias[] = {
	{"tromp_taylor", "tromp-taylor"}, {"trompTaylor", "tromp-taylor"},
	{"tt", "tromp-taylor"}, {"chinese-ogs", "chinese"}, {"chinese_ogs", "chinese"},
	{"nz", "new-zealand"}, {"new_zealand", "new-zealand"}, {"korean", "japanese"},
};

/* the ruleset of that name or alias among the first n of the table */
static const gt_rules *find_in(const char *name, int n)
{
	if (!name)
		return NULL;
	for (int i = 0; i < n; i++)
		if (strcasecmp(name, rules_table[i].name) == 0)
			return &rules_table[i];
	for (size_t i = 0; i < sizeof rules_alias / sizeof rules_alias[0]; i++)
		if (strcasecmp(name, rules_alias[i].alias) == 0)
			return find_in(rules_alias[i].name, n);
	return NULL;
}

const gt_rules *gt_rules_find(const char *name)
{
	return find_in(name, GT_NRULES);
}

const gt_rules *gt_rules_find_play(const char *name)
{
	return find_in(name, GT_NRULES_ALL);
}

const gt_rules *gt_rules_get(int id)
{
	return id >= 0 && id < GT_NRULES_ALL ? &rules_table[id] : NULL;
}

/* ---- static tables: neighbours per size, Zobrist keys ---- */

static int16_t nbr_tab[GT_MAX_N + 1][GT_MAX_PTS][4]; /* -1 where off board */
static uint8_t nbr_cnt[GT_MAX_N + 1][GT_MAX_PTS];
static uint64_t zobrist[3][GT_MAX_PTS];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void tables_init(void)
{
	uint64_t s = 0x67742d7a6f627269ULL; /* "gt-zobri" */
	for (int c = 0; c < 3; c++)
		for (int p = 0; p < GT_MAX_PTS; p++)
			zobrist[c][p] = c ? gt_splitmix64(&s) : 0;
	for (int n = 2; n <= GT_MAX_N; n++)
		for (int p = 0; p < n * n; p++) {
			int x = p % n, y = p / n, k = 0;
			if (y > 0) nbr_tab[n][p][k++] = p - n;
			if (x > 0) nbr_tab[n][p][k++] = p - 1;
			if (x < n - 1) nbr_tab[n][p][k++] = p + 1;
			if (y < n - 1) nbr_tab[n][p][k++] = p + n;
			nbr_cnt[n][p] = k;
			for (int j = k; j < 4; j++)
				nbr_tab[n][p][j] = -1;
		}
}

#define FOR_NBR(b, p, q) \
	for (int q##_i = 0, q##_k = nbr_cnt[(b)->n][p], q; \
	     q##_i < q##_k && ((q = nbr_tab[(b)->n][p][q##_i]), 1); q##_i++)

/* ---- init, copy, setup ---- */

static void seen_add(gt_board *b, uint64_t h)
{
	b->seen[(h >> 6) & 63] |= 1ULL << (h & 63);
}


int gt_board_init(gt_board *b, int n, const gt_rules *rules, double komi)
{
	if (n < 2 || n > GT_MAX_N)
		return GT_EUNSUPPORTED;
	if (!rules)
		return GT_EINVAL;
	pthread_once(&tables_once, tables_init);
	memset(b, 0, offsetof(gt_board, hist_hash));
	b->n = n;
	b->npts = n * n;
	b->rules = rules;
	b->komi = komi;
	b->to_move = GT_BLACK;
	b->ko = -1;
	for (int p = 0; p < GT_MAX_PTS; p++) {
		b->root[p] = -1;
		b->next[p] = -1;
	}
	b->nempty = n * n;
	for (int p = 0; p < n * n; p++) {
		b->empty[p] = p;
		b->empty_at[p] = p;
	}
	b->setup_to_move = GT_BLACK;
	b->hist_hash[0] = 0;
	seen_add(b, 0);
	b->hist_to_move[0] = GT_BLACK;
	return 0;
}

void gt_board_copy(gt_board *dst, const gt_board *src)
{
	if (dst == src)
		return;
	memcpy(dst, src, offsetof(gt_board, hist_hash));
	memcpy(dst->hist_hash, src->hist_hash, (src->nmoves + 1) * sizeof src->hist_hash[0]);
	memcpy(dst->hist_to_move, src->hist_to_move, src->nmoves + 1);
	memcpy(dst->hist_move, src->hist_move, src->nmoves * sizeof src->hist_move[0]);
	memcpy(dst->hist_color, src->hist_color, src->nmoves);
}

static void empty_remove(gt_board *b, int p)
{
	int i = b->empty_at[p], last = b->empty[--b->nempty];
	b->empty[i] = last;
	b->empty_at[last] = i;
}

static void empty_add(gt_board *b, int p)
{
	b->empty_at[p] = b->nempty;
	b->empty[b->nempty++] = p;
}

static inline void lib_add(gt_board *b, int g, int p)
{
	b->plibs[g]++;
	b->lsum[g] += p;
	b->lsum2[g] += (int64_t)p * p;
}

static inline void lib_remove(gt_board *b, int g, int p)
{
	b->plibs[g]--;
	b->lsum[g] -= p;
	b->lsum2[g] -= (int64_t)p * p;
}

/* atari_lib: the single liberty of group g, or -1 if it has 0 or >= 2. */
static inline int atari_lib(const gt_board *b, int g)
{
	int64_t pl = b->plibs[g], s = b->lsum[g];
	if (pl == 0 || pl * b->lsum2[g] != s * s)
		return -1;
	return (int)(s / pl);
}

/* merge: join the groups with roots a and c; returns the new root. */
static int merge(gt_board *b, int a, int c)
{
	if (a == c)
		return a;
	if (b->gsize[a] < b->gsize[c]) {
		int t = a;
		a = c;
		c = t;
	}
	int s = c;
	do {
		b->root[s] = a;
		s = b->next[s];
	} while (s != c);
	int t = b->next[a];
	b->next[a] = b->next[c];
	b->next[c] = t;
	b->gsize[a] += b->gsize[c];
	b->plibs[a] += b->plibs[c];
	b->lsum[a] += b->lsum[c];
	b->lsum2[a] += b->lsum2[c];
	return a;
}

/* remove_group: take the group with root g off the board; returns stones. */
static int remove_group(gt_board *b, int g)
{
	int col = b->color[g], cnt = 0, s = g;
	do {
		b->color[s] = GT_EMPTY;
		b->hash ^= zobrist[col][s];
		empty_add(b, s);
		cnt++;
		s = b->next[s];
	} while (s != g);
	s = g;
	do {
		int nx = b->next[s];
		FOR_NBR(b, s, q) {
			if (b->color[q] != GT_EMPTY)
				lib_add(b, b->root[q], s);
		}
		b->root[s] = -1;
		b->next[s] = -1;
		s = nx;
	} while (s != g);
	b->nstones[col] -= cnt;
	return cnt;
}

/* place: put a stone of colour c on empty point p, merge, capture, and
 * remove the group again if it has no liberty (suicide). No legality
 * checks. Returns the number of opponent stones captured; *cap_pt gets
 * the captured point when exactly one stone was captured. */
static int place(gt_board *b, int c, int p, int *cap_pt)
{
	int oc = GT_OTHER(c), captured = 0;
	b->color[p] = c;
	b->root[p] = p;
	b->next[p] = p;
	b->gsize[p] = 1;
	b->plibs[p] = 0;
	b->lsum[p] = 0;
	b->lsum2[p] = 0;
	b->hash ^= zobrist[c][p];
	b->nstones[c]++;
	empty_remove(b, p);
	FOR_NBR(b, p, q) {
		if (b->color[q] == GT_EMPTY)
			lib_add(b, p, q);
		else
			lib_remove(b, b->root[q], p);
	}
	int g = p;
	FOR_NBR(b, p, q) {
		if (b->color[q] == c)
			g = merge(b, g, b->root[q]);
	}
	FOR_NBR(b, p, q) {
		if (b->color[q] == oc && b->plibs[b->root[q]] == 0) {
			if (cap_pt)
				*cap_pt = q;
			captured += remove_group(b, b->root[q]);
		}
	}
	b->captures[c] += captured;
	if (b->plibs[g] == 0)
		b->captures[oc] += remove_group(b, g);
	return captured;
}

int gt_board_setup(gt_board *b, int color, int pt)
{
	if (pt < 0 || pt >= b->npts)
		return GT_EOFFBOARD;
	if (b->nmoves > 0 || color < GT_EMPTY || color > GT_WHITE)
		return GT_EINVAL;
	gt_board save;
	int old = b->color[pt];
	if (old == color)
		return 0;
	gt_board_copy(&save, b);
	if (old != GT_EMPTY) {
		/* rebuild without that stone: setup positions are small */
		uint8_t col[GT_MAX_PTS];
		memcpy(col, b->color, sizeof col);
		col[pt] = GT_EMPTY;
		int tm = b->setup_to_move;
		gt_board_init(b, save.n, save.rules, save.komi);
		b->max_moves = save.max_moves;
		for (int p = 0; p < b->npts; p++)
			if (col[p] != GT_EMPTY)
				place(b, col[p], p, NULL);
		b->setup_to_move = b->to_move = tm;
		old = GT_EMPTY;
	}
	if (color != GT_EMPTY) {
		int before = b->nstones[GT_BLACK] + b->nstones[GT_WHITE];
		place(b, color, pt, NULL);
		if (b->nstones[GT_BLACK] + b->nstones[GT_WHITE] != before + 1) {
			gt_board_copy(b, &save);
			return GT_EINVAL;
		}
		b->captures[GT_BLACK] = b->captures[GT_WHITE] = 0;
	}
	memcpy(b->setup, b->color, sizeof b->setup);
	b->hist_hash[0] = b->hash;
	memset(b->seen, 0, sizeof b->seen);
	seen_add(b, b->hash);
	return 0;
}

void gt_board_set_to_move(gt_board *b, int color)
{
	if (color != b->to_move)
		b->ko = -1; /* the simple-ko ban was the other colour's */
	b->to_move = color;
	if (b->nmoves == 0) {
		b->setup_to_move = color;
		b->hist_to_move[0] = color;
	} else {
		b->hist_to_move[b->nmoves] = color;
	}
}

/* ---- legality ---- */

/* would_capture_or_live: classify the move of c at empty p.
 * Returns 0 when the new stone's group has a liberty after captures,
 * 1 for a single-stone suicide, 2 for a multi-stone suicide; fills the
 * hash of the position after the move. */
static int analyse(const gt_board *b, int c, int p, uint64_t *hash_after)
{
	int oc = GT_OTHER(c), lives = 0, friends = 0;
	uint64_t h = b->hash ^ zobrist[c][p];
	int seen[4], nseen = 0;
	FOR_NBR(b, p, q) {
		int col = b->color[q];
		if (col == GT_EMPTY) {
			lives = 1;
			continue;
		}
		int g = b->root[q], dup = 0;
		for (int i = 0; i < nseen; i++)
			dup |= seen[i] == g;
		if (dup)
			continue;
		seen[nseen++] = g;
		int al = atari_lib(b, g);
		if (col == c) {
			friends = 1;
			if (al != p)
				lives = 1; /* has another liberty */
		} else if (col == oc && al == p) {
			lives = 1;     /* captures */
			int s = g;
			do {
				h ^= zobrist[oc][s];
				s = b->next[s];
			} while (s != g);
		}
	}
	if (!lives) {
		/* suicide: the new stone and its friendly groups go */
		h ^= zobrist[c][p];
		for (int i = 0; i < nseen; i++) {
			int g = seen[i];
			if (b->color[g] != c)
				continue;
			int s = g;
			do {
				h ^= zobrist[c][s];
				s = b->next[s];
			} while (s != g);
		}
	}
	*hash_after = h;
	return lives ? 0 : friends ? 2 : 1;
}

/* from_setup: r = the setup position of b, no moves played. */
static void from_setup(const gt_board *b, gt_board *r)
{
	gt_board_init(r, b->n, b->rules, b->komi);
	r->max_moves = b->max_moves;
	for (int p = 0; p < b->npts; p++)
		if (b->setup[p] != GT_EMPTY)
			place(r, b->setup[p], p, NULL);
	memcpy(r->setup, b->setup, sizeof r->setup);
	r->hist_hash[0] = r->hash;
	memset(r->seen, 0, sizeof r->seen);
	seen_add(r, r->hash);
	gt_board_set_to_move(r, b->setup_to_move);
}

/* replay_to: rebuild the stones of the position after k moves of b. */
static void replay_to(const gt_board *b, int k, gt_board *r)
{
	from_setup(b, r);
	for (int i = 0; i < k; i++)
		if (b->hist_move[i] != GT_PASS(b->n))
			place(r, b->hist_color[i], b->hist_move[i], NULL);
}

/* repeats: 1 if the position after c plays p (hash h) occurred before,
 * confirmed by a whole-board comparison. */
static int repeats(const gt_board *b, int c, int p, uint64_t h)
{
	int ko = b->rules->ko, next = GT_OTHER(c);
	if (!(b->seen[(h >> 6) & 63] >> (h & 63) & 1))
		return 0;
	for (int k = b->nmoves; k >= 0; k--) {
		if (b->hist_hash[k] != h)
			continue;
		if (ko == GT_KO_SITUATIONAL && b->hist_to_move[k] != next)
			continue;
		/* confirm: the candidate position against position k */
		gt_board *cand = gt_xmalloc(sizeof *cand), *old = gt_xmalloc(sizeof *old);
		gt_board_copy(cand, b);
		place(cand, c, p, NULL);
		replay_to(b, k, old);
		int same = memcmp(cand->color, old->color, b->npts) == 0;
		free(cand);
		free(old);
		if (same)
			return 1;
	}
	return 0;
}

int gt_board_legal(const gt_board *b, int color, int pt)
{
	if (pt == GT_PASS(b->n))
		return gt_board_over(b) ? GT_EOVER : 0;
	if (pt < 0 || pt >= b->npts)
		return GT_EOFFBOARD;
	if (gt_board_over(b))
		return GT_EOVER;
	if (b->color[pt] != GT_EMPTY)
		return GT_EOCCUPIED;
	if (pt == b->ko && color == b->to_move)
		return GT_EKO;
	uint64_t h;
	int kind = analyse(b, color, pt, &h);
	if (kind == 1 || (kind == 2 && !b->rules->multi_suicide))
		return GT_ESUICIDE;
	if (b->rules->ko != GT_KO_SIMPLE && repeats(b, color, pt, h))
		return GT_ESUPERKO;
	return 0;
}

int gt_board_play(gt_board *b, int color, int pt)
{
	int r = gt_board_legal(b, color, pt);
	return r ? r : gt_board_play_legal(b, color, pt);
}

#ifdef GT_BOARD_CHECK
/* Debug builds (make SANITIZE=1 defines GT_BOARD_CHECK): the invariants
 * from scratch after every move, as Pachi's board_check in its debug
 * builds; a broken one is a bug in this file, so say which and abort. */
static void check_move(const gt_board *b, int color, int pt)
{
	char why[128], v[8], diagram[(GT_MAX_N + 2) * (2 * GT_MAX_N + 8)];
	if (gt_board_check(b, why) == 0)
		return;
	fprintf(stderr, "gt: board invariant broken after move %d, %s %s: %s\n%s", b->nmoves,
	        color == GT_BLACK ? "black" : "white", gt_vertex_str(b->n, pt, v), why,
	        gt_board_print(b, diagram, sizeof diagram));
	abort();
}
#endif

int gt_board_play_legal(gt_board *b, int color, int pt)
{
	if (b->nmoves >= GT_MAX_HIST)
		return GT_ETOOLONG;
	b->ko = -1;
	if (pt == GT_PASS(b->n)) {
		b->passes++;
	} else {
		int cap_pt = -1, cap = place(b, color, pt, &cap_pt);
		b->passes = 0;
		if (cap == 1 && b->gsize[b->root[pt]] == 1 && b->plibs[pt] == 1)
			b->ko = cap_pt;
	}
	b->hist_move[b->nmoves] = pt;
	b->hist_color[b->nmoves] = color;
	b->nmoves++;
	b->to_move = GT_OTHER(color);
	b->hist_hash[b->nmoves] = b->hash;
	b->hist_to_move[b->nmoves] = b->to_move;
	seen_add(b, b->hash);
#ifdef GT_BOARD_CHECK
	check_move(b, color, pt);
#endif
	return 0;
}

int gt_board_undo(gt_board *b)
{
	if (b->nmoves == 0)
		return GT_EINVAL;
	gt_board *r = gt_xmalloc(sizeof *r);
	int k = b->nmoves - 1, err = 0;
	from_setup(b, r);
	/* the moves were legal when played, so they replay the same way */
	for (int i = 0; i < k && !err; i++) {
		err = gt_board_play(r, b->hist_color[i], b->hist_move[i]);
		gt_board_set_to_move(r, b->hist_to_move[i + 1]);
	}
	if (!err)
		gt_board_copy(b, r);
	free(r);
	return err ? GT_EINVAL : 0;
}

int gt_board_over(const gt_board *b)
{
	return b->passes >= 2 || b->nmoves >= GT_MAX_HIST ||
	       (b->max_moves > 0 && b->nmoves >= b->max_moves);
}

int gt_board_legal_moves(const gt_board *b, int color, int16_t *moves)
{
	int k = 0;
	for (int p = 0; p < b->npts; p++)
		if (b->color[p] == GT_EMPTY && gt_board_legal(b, color, p) == 0)
			moves[k++] = p;
	return k;
}

int gt_board_liberties(const gt_board *b, int pt)
{
	if (pt < 0 || pt >= b->npts || b->color[pt] == GT_EMPTY)
		return 0;
	uint8_t mark[GT_MAX_PTS];
	int g = b->root[pt], s = g, libs = 0;
	memset(mark, 0, b->npts);
	do {
		FOR_NBR(b, s, q) {
			if (b->color[q] == GT_EMPTY && !mark[q]) {
				mark[q] = 1;
				libs++;
			}
		}
		s = b->next[s];
	} while (s != g);
	return libs;
}

double gt_board_area(const gt_board *b, float *own)
{
	int16_t region[GT_MAX_PTS], stack[GT_MAX_PTS];
	uint8_t seen[GT_MAX_PTS];
	int area[3] = {0, 0, 0};
	memset(seen, 0, b->npts);
	for (int p = 0; p < b->npts; p++) {
		int c = b->color[p];
		if (c != GT_EMPTY) {
			area[c]++;
			if (own)
				own[p] = c == GT_BLACK ? 1.0f : -1.0f;
			continue;
		}
		if (seen[p])
			continue;
		int nr = 0, sp = 0, reach = 0;
		stack[sp++] = p;
		seen[p] = 1;
		while (sp) {
			int s = stack[--sp];
			region[nr++] = s;
			FOR_NBR(b, s, q) {
				int qc = b->color[q];
				if (qc != GT_EMPTY)
					reach |= qc;
				else if (!seen[q]) {
					seen[q] = 1;
					stack[sp++] = q;
				}
			}
		}
		int owner = reach == GT_BLACK ? GT_BLACK : reach == GT_WHITE ? GT_WHITE : 0;
		if (owner)
			area[owner] += nr;
		if (own)
			for (int i = 0; i < nr; i++)
				own[region[i]] = owner == GT_BLACK ? 1.0f : owner == GT_WHITE ? -1.0f : 0.0f;
	}
	return area[GT_BLACK] - area[GT_WHITE] - b->komi;
}

/* ---- territory ---- */

/* the stones of the group of col[p] (by 4-connection on col) into grp,
 * marked in mark with tag; returns how many */
static int group_of(const gt_board *b, const uint8_t *col, int p, int *mark, int tag,
                    int16_t *grp)
{
	int k = 0, sp = 0, c = col[p];
	grp[k++] = (int16_t)p;
	mark[p] = tag;
	while (sp < k) {
		int s = grp[sp++];
		FOR_NBR(b, s, q) {
			if (col[q] == c && mark[q] != tag) {
				mark[q] = tag;
				grp[k++] = (int16_t)q;
			}
		}
	}
	return k;
}

/* the distinct liberties of the stones grp[0..k) on col, other than skip,
 * counted up to 2 (lmark and tag keep them apart) */
static int libs_upto2(const gt_board *b, const uint8_t *col, const int16_t *grp, int k,
                      int skip, int *lmark, int tag)
{
	int nl = 0;
	for (int i = 0; i < k && nl < 2; i++)
		FOR_NBR(b, grp[i], q) {
			if (col[q] == GT_EMPTY && q != skip && lmark[q] != tag) {
				lmark[q] = tag;
				nl++;
			}
		}
	return nl;
}

/* 1 if c at the empty point p of col captures nothing and leaves its group
 * with at most one liberty (a self-atari, or a suicide) */
static int bad_fill(const gt_board *b, uint8_t *col, int c, int p, int *mark,
                    int *lmark, int *tag, int16_t *grp)
{
	FOR_NBR(b, p, q) {
		if (col[q] != GT_OTHER(c))
			continue;
		int t = ++*tag, k = group_of(b, col, q, mark, t, grp);
		if (libs_upto2(b, col, grp, k, p, lmark, t) == 0)
			return 0; /* captures */
	}
	col[p] = (uint8_t)c;
	int t = ++*tag, k = group_of(b, col, p, mark, t, grp);
	int nl = libs_upto2(b, col, grp, k, -1, lmark, t);
	col[p] = GT_EMPTY;
	return nl <= 1;
}

double gt_board_territory(const gt_board *b, const uint8_t *dead, float *own, uint8_t *seki)
{
	uint8_t col[GT_MAX_PTS], sk[GT_MAX_PTS], seen[GT_MAX_PTS];
	int16_t grp[GT_MAX_PTS], region[GT_MAX_PTS];
	int mark[GT_MAX_PTS], lmark[GT_MAX_PTS];
	int score[3] = { 0, b->captures[GT_BLACK], b->captures[GT_WHITE] }, tag = 0;
	memcpy(col, b->color, sizeof col);
	for (int p = 0; dead && p < b->npts; p++)
		if (dead[p] && col[p] != GT_EMPTY) {
			score[GT_OTHER(col[p])]++;
			col[p] = GT_EMPTY;
		}
	memset(sk, 0, sizeof sk);
	memset(seen, 0, sizeof seen);
	for (int p = 0; p < b->npts; p++) {
		mark[p] = lmark[p] = 0;
		if (own)
			own[p] = col[p] == GT_BLACK ? 1.0f : col[p] == GT_WHITE ? -1.0f : 0.0f;
	}
	/* seki: a point next to both colours that neither may fill */
	for (int p = 0; p < b->npts; p++) {
		int reach = 0;
		if (col[p] != GT_EMPTY)
			continue;
		FOR_NBR(b, p, q) {
			reach |= col[q];
		}
		if (reach != (GT_BLACK | GT_WHITE) ||
		    !bad_fill(b, col, GT_BLACK, p, mark, lmark, &tag, grp) ||
		    !bad_fill(b, col, GT_WHITE, p, mark, lmark, &tag, grp))
			continue;
		FOR_NBR(b, p, q) {
			if (col[q] == GT_EMPTY || sk[q])
				continue;
			int k = group_of(b, col, q, mark, ++tag, grp);
			for (int i = 0; i < k; i++)
				sk[grp[i]] = 1;
		}
	}
	/* territory: empty regions bordered by one colour, no seki stone */
	for (int p = 0; p < b->npts; p++) {
		if (col[p] != GT_EMPTY || seen[p])
			continue;
		int nr = 0, sp = 0, reach = 0, in_seki = 0;
		region[nr++] = (int16_t)p;
		seen[p] = 1;
		while (sp < nr) {
			int s = region[sp++];
			FOR_NBR(b, s, q) {
				if (col[q] != GT_EMPTY) {
					reach |= col[q];
					in_seki |= sk[q];
				} else if (!seen[q]) {
					seen[q] = 1;
					region[nr++] = (int16_t)q;
				}
			}
		}
		if ((reach != GT_BLACK && reach != GT_WHITE) || in_seki)
			continue;
		score[reach] += nr;
		for (int i = 0; own && i < nr; i++)
			own[region[i]] = reach == GT_BLACK ? 1.0f : -1.0f;
	}
	if (seki)
		memcpy(seki, sk, (size_t)b->npts);
	return score[GT_BLACK] - score[GT_WHITE] - b->komi;
}

double gt_board_score(const gt_board *b, float *own)
{
	return b->rules->scoring == GT_SCORE_TERRITORY ? gt_board_territory(b, NULL, own, NULL) :
	       gt_board_area(b, own);
}

/* ---- invariant check ---- */

int gt_board_check(const gt_board *b, char *why)
{
	char dummy[128];
	if (!why)
		why = dummy;
	int16_t gid[GT_MAX_PTS], stack[GT_MAX_PTS];
	uint64_t h = 0;
	int cnt[3] = {0, 0, 0}, nempty = 0;
	for (int p = 0; p < b->npts; p++)
		gid[p] = -1;
	for (int p = 0; p < b->npts; p++) {
		int c = b->color[p];
		if (c > GT_WHITE) {
			snprintf(why, 128, "bad colour %d at %d", c, p);
			return -1;
		}
		if (c == GT_EMPTY) {
			nempty++;
			if (b->root[p] != -1) {
				snprintf(why, 128, "empty point %d has root %d", p, b->root[p]);
				return -1;
			}
			if (b->empty_at[p] < 0 || b->empty_at[p] >= b->nempty || b->empty[b->empty_at[p]] != p) {
				snprintf(why, 128, "empty point %d missing from the empty list", p);
				return -1;
			}
			continue;
		}
		cnt[c]++;
		h ^= zobrist[c][p];
		if (gid[p] >= 0)
			continue;
		/* flood fill the group from scratch */
		int sp = 0, size = 0, pl = 0;
		int32_t ls = 0;
		int64_t ls2 = 0;
		uint8_t member[GT_MAX_PTS];
		memset(member, 0, b->npts);
		stack[sp++] = p;
		gid[p] = p;
		while (sp) {
			int s = stack[--sp];
			member[s] = 1;
			size++;
			FOR_NBR(b, s, q) {
				if (b->color[q] == GT_EMPTY) {
					pl++;
					ls += q;
					ls2 += (int64_t)q * q;
				} else if (b->color[q] == c && gid[q] < 0) {
					gid[q] = p;
					stack[sp++] = q;
				}
			}
		}
		int r = b->root[p];
		if (r < 0 || r >= b->npts || !member[r]) {
			snprintf(why, 128, "stone %d has root %d outside its group", p, r);
			return -1;
		}
		/* the circular list visits exactly the members, all with root r */
		int s = r, walked = 0;
		do {
			if (!member[s] || b->root[s] != r) {
				snprintf(why, 128, "group list of %d reaches %d", r, s);
				return -1;
			}
			walked++;
			s = b->next[s];
		} while (s != r && walked <= size);
		if (walked != size || b->gsize[r] != size) {
			snprintf(why, 128, "group %d: size %d, list %d, recorded %d", r, size, walked, b->gsize[r]);
			return -1;
		}
		if (b->plibs[r] != pl || b->lsum[r] != ls || b->lsum2[r] != ls2) {
			snprintf(why, 128, "group %d: pseudo-liberties %d/%d sums %d/%d", r, b->plibs[r], pl,
			         (int)b->lsum[r], (int)ls);
			return -1;
		}
		if (pl == 0) {
			snprintf(why, 128, "group %d has no liberty", r);
			return -1;
		}
	}
	if (h != b->hash) {
		snprintf(why, 128, "hash differs");
		return -1;
	}
	if (cnt[1] != b->nstones[1] || cnt[2] != b->nstones[2] || nempty != b->nempty) {
		snprintf(why, 128, "stone counts %d/%d empty %d, recorded %d/%d/%d", cnt[1], cnt[2], nempty,
		         b->nstones[1], b->nstones[2], b->nempty);
		return -1;
	}
	if (b->hist_hash[b->nmoves] != b->hash) {
		snprintf(why, 128, "history hash differs");
		return -1;
	}
	return 0;
}

/* ---- printing, diagrams, coordinates ---- */

static const char gtp_cols[] = "ABCDEFGHJKLMNOPQRST";

char *gt_board_print(const gt_board *b, char *buf, int size)
{
	int len = 0, n = b->n;
#define PUT(...) do { if (len < size) len += snprintf(buf + len, size - len, __VA_ARGS__); } while (0)
	PUT("   ");
	for (int x = 0; x < n; x++)
		PUT(" %c", gtp_cols[x]);
	PUT("\n");
	for (int y = 0; y < n; y++) {
		PUT("%2d ", n - y);
		for (int x = 0; x < n; x++) {
			int c = b->color[y * n + x];
			PUT(" %c", c == GT_BLACK ? 'X' : c == GT_WHITE ? 'O' : '.');
		}
		PUT(" %2d\n", n - y);
	}
	PUT("   ");
	for (int x = 0; x < n; x++)
		PUT(" %c", gtp_cols[x]);
	PUT("\n");
#undef PUT
	if (size > 0 && len >= size)
		buf[size - 1] = 0;
	return buf;
}

int gt_board_from_ascii(gt_board *b, int n, const gt_rules *rules, double komi,
                        const char *diagram, int to_move)
{
	int r = gt_board_init(b, n, rules, komi), p = 0;
	if (r)
		return r;
	for (const char *s = diagram; *s; s++) {
		int c;
		if (*s == 'X' || *s == 'x' || *s == '#')
			c = GT_BLACK;
		else if (*s == 'O' || *s == 'o')
			c = GT_WHITE;
		else if (*s == '.' || *s == '+')
			c = GT_EMPTY;
		else if (isspace((unsigned char)*s) || *s == '|')
			continue;
		else
			return GT_EFORMAT;
		if (p >= n * n)
			return GT_EFORMAT;
		if (c != GT_EMPTY && gt_board_setup(b, c, p) != 0)
			return GT_EINVAL;
		p++;
	}
	if (p != n * n)
		return GT_EFORMAT;
	gt_board_set_to_move(b, to_move);
	return 0;
}

char *gt_vertex_str(int n, int pt, char *buf)
{
	if (pt == GT_PASS(n) || pt < 0 || pt > n * n)
		strcpy(buf, pt == GT_PASS(n) ? "pass" : "??");
	else
		snprintf(buf, 5, "%c%d", gtp_cols[pt % n], n - pt / n);
	return buf;
}

int gt_vertex_parse(int n, const char *s)
{
	if (!s || !*s)
		return GT_EFORMAT;
	if (strcasecmp(s, "pass") == 0)
		return GT_PASS(n);
	int col = toupper((unsigned char)s[0]);
	if (col < 'A' || col > 'Z' || col == 'I')
		return GT_EFORMAT;
	int x = col < 'I' ? col - 'A' : col - 'A' - 1;
	if (!isdigit((unsigned char)s[1]))
		return GT_EFORMAT;
	char *end;
	long row = strtol(s + 1, &end, 10);
	if (*end != 0 || end - (s + 1) > 2)
		return GT_EFORMAT;
	if (x >= n || row < 1 || row > n)
		return GT_EOFFBOARD;
	return (int)(n - row) * n + x;
}

int gt_color_parse(const char *s)
{
	if (!s)
		return GT_EINVAL;
	if (strcasecmp(s, "b") == 0 || strcasecmp(s, "black") == 0)
		return GT_BLACK;
	if (strcasecmp(s, "w") == 0 || strcasecmp(s, "white") == 0)
		return GT_WHITE;
	return GT_EINVAL;
}
