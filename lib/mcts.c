/* mcts.c: PUCT search with FPU reduction, virtual loss batching, root
 * Dirichlet noise and tree reuse (see mcts.h for the formulas' sources). */
#include "mcts.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { N_NEW = 0, N_PENDING, N_EXPANDED, N_TERMINAL };

/* A node of the tree: a position reached by a move (the root: the search's
 * position). w and s sum values and scores from the view of the player who
 * moved into the node. */
typedef struct node {
	int32_t parent;   /* -1 at the root */
	int32_t edge;     /* first of nedge edges in the edge pool; -1 until expanded */
	int32_t n;        /* completed visits */
	int32_t vl;       /* virtual losses of leaves in flight below (and at) it */
	int16_t nedge;
	uint8_t state;    /* N_* */
	double w, s;
	double w2;        /* sum of squared values (for the LCB) */
	double s2;        /* sum of squared scores (for their deviation) */
} node;

/* A move out of an expanded node; child is -1 until first visited. */
typedef struct edge {
	int32_t child;
	float prior;
	int16_t move;
} edge;

/* Leaves in flight between a collect and its apply: the step functions'
 * (gt_mcts.ls) or one search thread's. */
typedef struct leafset {
	int n;                    /* leaves collected */
	unsigned gen;             /* the tree's generation at the collect */
	int32_t *node;
	int16_t *move;            /* the root move a leaf's path went through; -1: the root */
	gt_board *board;
} leafset;

struct worker;

struct gt_mcts {
	gt_mcts_params p;
	gt_board root_board;
	int have_root;
	node *nodes, *nodes2;     /* live and spare pools */
	edge *edges, *edges2;
	size_t nnodes, nedges, capn, cape, capn2, cape2;
	/* the current search */
	int active, target, noise, full, noised;
	/* the score utility's centre (the root player's view) and whether it
	 * was taken this search */
	double score_center;
	int center_set;
	gt_rng *rng;
	float clean[GT_MAX_PTS + 1];  /* root priors before noise */
	/* leaves in flight between collect and apply: the step functions'
	 * own, and the count over every leaf set (the search threads' too) */
	leafset ls;
	int inflight;
	unsigned gen;             /* bumped when the tree is dropped or renumbered:
	                             leaves collected before are stale */
	/* search threads (gt_mcts_start): mu guards the tree while they run,
	 * cv signals applied leaves, ended signals ended threads */
	pthread_mutex_t mu;
	pthread_cond_t cv, ended;
	struct worker *wk;
	int nwk, running, werr;
	atomic_int stop;
	gt_mcts_stats st;
	/* ownership averaged over the evaluations since the root was set
	 * (gt_mcts_track_ownership): sums from Black's view */
	int own_on;
	long own_n;
	double own_sum[GT_MAX_PTS];
	/* per root move (gt_mcts_track_moves_ownership): sums [move * npts + p]
	 * and counts [move], Black's view */
	double *own_mv;
	long *own_mv_n;
	/* gt_mcts_set_avoid: on, the deepest depth restricted, and the depths */
	int avoid_on, avoid_max;
	gt_mcts_avoid avoid;
	/* the evaluation that expanded the root (gt_mcts_root_eval) */
	int root_eval;
	double root_value, root_score;
};

/* ---- evaluators ---- */

static int uniform_eval(void *ctx, int n, int nb, const gt_board *const *boards,
                        float *logits, float *value, float *score, float *ownership)
{
	(void)ctx, (void)boards;
	size_t stride = (size_t)n * n + 1;
	if (nb < 1)
		return GT_EINVAL; /* the contract: nb >= 1, as for a network */
	memset(logits, 0, nb * stride * sizeof *logits);
	for (int b = 0; b < nb; b++) {
		value[b] = 0;
		if (score)
			score[b] = 0;
	}
	if (ownership)
		memset(ownership, 0, (size_t)nb * n * n * sizeof *ownership);
	return 0;
}

gt_evaluator gt_evaluator_uniform(void)
{
	gt_evaluator ev = { NULL, uniform_eval, NULL, "none", NULL };
	return ev;
}

int gt_evaluator_raw(const gt_evaluator *ev, const gt_board *b, float *logits, float *own,
                     gt_eval_raw *out)
{
	if (ev->raw)
		return ev->raw(ev->ctx, b, logits, own, out);
	float v = 0, sc = 0;
	int err = ev->eval(ev->ctx, b->n, 1, &b, logits, &v, &sc, own);
	if (err)
		return err;
	double x = v > 1 ? 1 : v < -1 ? -1 : v;
	*out = (gt_eval_raw){ .win = (1 + x) / 2, .loss = (1 - x) / 2, .noresult = 0, .lead = sc,
	                      .score_mean = sc, .score_mean_sq = (double)sc * sc, .var_time_left = -1,
	                      .st_wr_error = -1, .st_score_error = -1 };
	return 0;
}

void gt_evaluator_close(gt_evaluator *ev)
{
	if (ev->close)
		ev->close(ev->ctx);
	memset(ev, 0, sizeof *ev);
}

/* ---- pools ---- */

void gt_mcts_params_default(gt_mcts_params *p)
{
	*p = (gt_mcts_params){ .cpuct = 1.1, .fpu_reduction = 0.2, .root_fpu_reduction = 0.1,
	                       .noise_concentration = 10.83, .noise_weight = 0.25, .leaves = 8,
	                       .max_bytes = (size_t)64 << 20, .pass_from = 0, .forced_k = 0,
	                       .cpuct_log = 0, .cpuct_base = 500, .lcb_select = 0,
	                       .lcb_min_visits = 0.15, .score_static = 0, .score_dynamic = 0 };
}

static void leafset_init(leafset *ls, int cap)
{
	ls->n = 0;
	ls->node = gt_xmalloc(cap * sizeof *ls->node);
	ls->move = gt_xmalloc(cap * sizeof *ls->move);
	ls->board = gt_xmalloc(cap * sizeof *ls->board);
}

static void leafset_free(leafset *ls)
{
	gt_free_all(ls->node, ls->move, ls->board);
}

gt_mcts *gt_mcts_new(const gt_mcts_params *p)
{
	gt_mcts *m = gt_xcalloc(1, sizeof *m);
	if (p)
		m->p = *p;
	else
		gt_mcts_params_default(&m->p);
	if (m->p.leaves < 1)
		m->p.leaves = 1;
	leafset_init(&m->ls, m->p.leaves);
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->cv, NULL);
	pthread_cond_init(&m->ended, NULL);
	return m;
}

void gt_mcts_free(gt_mcts *m)
{
	if (!m)
		return;
	gt_mcts_stop(m);
	pthread_mutex_destroy(&m->mu);
	pthread_cond_destroy(&m->cv);
	pthread_cond_destroy(&m->ended);
	leafset_free(&m->ls);
	gt_free_all(m->nodes, m->nodes2, m->edges, m->edges2, m->own_mv, m->own_mv_n, m);
}

static size_t pool_bytes(size_t capn, size_t cape)
{
	return capn * sizeof(node) + cape * sizeof(edge);
}

/* reserve: room for kn more nodes and ke more edges in the live pools
 * within max_bytes; returns 0, or -1 when the bound forbids it. */
static int reserve(gt_mcts *m, size_t kn, size_t ke)
{
	size_t wn = m->nnodes + kn, we = m->nedges + ke;
	if (wn <= m->capn && we <= m->cape)
		return 0;
	if (pool_bytes(wn, we) > m->p.max_bytes)
		return -1;
	size_t cn = m->capn, ce = m->cape;
	if (wn > cn)
		cn = wn > 2 * cn ? wn : 2 * cn;
	if (we > ce)
		ce = we > 2 * ce ? we : 2 * ce;
	if (cn < 256)
		cn = 256;
	if (ce < 4096)
		ce = 4096;
	while (pool_bytes(cn, ce) > m->p.max_bytes) {
		/* shrink the growth back towards what is needed */
		if (cn > wn)
			cn = wn + (cn - wn) / 2;
		if (ce > we)
			ce = we + (ce - we) / 2;
		if (pool_bytes(cn, ce) > m->p.max_bytes && cn == wn && ce == we)
			return -1;
	}
	if (cn != m->capn) {
		m->nodes = gt_xrealloc(m->nodes, cn * sizeof *m->nodes);
		m->capn = cn;
	}
	if (ce != m->cape) {
		m->edges = gt_xrealloc(m->edges, ce * sizeof *m->edges);
		m->cape = ce;
	}
	return 0;
}

static int32_t new_node(gt_mcts *m, int32_t parent)
{
	node *nd = &m->nodes[m->nnodes];
	memset(nd, 0, sizeof *nd);
	nd->parent = parent;
	nd->edge = -1;
	nd->state = N_NEW;
	return (int32_t)m->nnodes++;
}

/* ---- root ---- */

static void own_reset(gt_mcts *m)
{
	m->own_n = 0;
	if (m->own_on)
		memset(m->own_sum, 0, sizeof m->own_sum);
	if (m->own_mv) {
		memset(m->own_mv, 0, (size_t)(GT_MAX_PTS + 1) * GT_MAX_PTS * sizeof *m->own_mv);
		memset(m->own_mv_n, 0, (GT_MAX_PTS + 1) * sizeof *m->own_mv_n);
	}
}

/* add one ownership sample: own[npts] from the view of colour `view`, of
 * a visit through root move mv (-1: none) */
static void own_add(gt_mcts *m, const float *own, int view, int mv)
{
	double sg = view == GT_WHITE ? -1 : 1;
	int np = m->root_board.npts;
	for (int i = 0; i < np; i++)
		m->own_sum[i] += sg * own[i];
	m->own_n++;
	if (m->own_mv && mv >= 0) {
		double *d = m->own_mv + (size_t)mv * np;
		for (int i = 0; i < np; i++)
			d[i] += sg * own[i];
		m->own_mv_n[mv]++;
	}
}

static void clear_tree(gt_mcts *m)
{
	m->nnodes = m->nedges = 0;
	if (reserve(m, 1, 0) < 0) {
		/* max_bytes below one node: still keep a root */
		m->nodes = gt_xrealloc(m->nodes, sizeof *m->nodes);
		m->capn = 1;
	}
	new_node(m, -1);
	m->active = m->full = m->noised = 0;
	m->ls.n = m->inflight = 0;
	m->gen++;
	m->rng = NULL;
	m->root_eval = 0;
	own_reset(m);
}

int gt_mcts_set_root(gt_mcts *m, const gt_board *b)
{
	if (b->to_move != GT_BLACK && b->to_move != GT_WHITE)
		return GT_EINVAL;
	gt_board_copy(&m->root_board, b);
	m->have_root = 1;
	m->avoid_on = 0;
	clear_tree(m);
	return 0;
}

void gt_mcts_set_avoid(gt_mcts *m, const gt_mcts_avoid *a)
{
	int on = 0, mx = 0;
	for (int c = 0; a && c < 2; c++)
		for (int i = 0; i <= GT_MAX_PTS; i++)
			if (a->until[c][i] > 0) {
				on = 1;
				mx = a->until[c][i] > mx ? a->until[c][i] : mx;
			}
	if (on == m->avoid_on && (!on || !memcmp(&m->avoid, a, sizeof *a)))
		return;
	m->avoid_on = on;
	m->avoid_max = mx;
	if (on)
		m->avoid = *a;
	if (m->have_root)
		clear_tree(m);
}

/* 1 when the search must not explore move for colour c at depth d */
static int avoided(const gt_mcts *m, int c, int d, int move)
{
	return m->avoid_on && d < m->avoid_max && d < m->avoid.until[c == GT_WHITE][move];
}

const gt_board *gt_mcts_root(const gt_mcts *m)
{
	return &m->root_board;
}

/* copy the subtree at old node `top` into the spare pools (breadth first, so
 * a node's index is below its children's), then swap the pools */
static void keep_subtree(gt_mcts *m, int32_t top)
{
	if (m->capn2 < m->capn) {
		m->nodes2 = gt_xrealloc(m->nodes2, m->capn * sizeof *m->nodes2);
		m->capn2 = m->capn;
	}
	if (m->cape2 < m->cape) {
		m->edges2 = gt_xrealloc(m->edges2, m->cape * sizeof *m->edges2);
		m->cape2 = m->cape;
	}
	node *dn = m->nodes2;
	edge *de = m->edges2;
	size_t head = 0, tail = 1, ne = 0;
	dn[0] = m->nodes[top];
	dn[0].parent = -1;
	while (head < tail) {
		node *nd = &dn[head];
		nd->vl = 0;
		if (nd->state == N_PENDING)
			nd->state = N_NEW;
		if (nd->edge >= 0) {
			memcpy(&de[ne], &m->edges[nd->edge], nd->nedge * sizeof *de);
			nd->edge = (int32_t)ne;
			for (int i = 0; i < nd->nedge; i++, ne++) {
				if (de[ne].child < 0)
					continue;
				dn[tail] = m->nodes[de[ne].child];
				dn[tail].parent = (int32_t)head;
				de[ne].child = (int32_t)tail++;
			}
		}
		head++;
	}
	node *tn = m->nodes;
	m->nodes = m->nodes2, m->nodes2 = tn;
	edge *te = m->edges;
	m->edges = m->edges2, m->edges2 = te;
	size_t c = m->capn;
	m->capn = m->capn2, m->capn2 = c;
	c = m->cape;
	m->cape = m->cape2, m->cape2 = c;
	m->nnodes = tail;
	m->nedges = ne;
}

int gt_mcts_advance(gt_mcts *m, int move)
{
	if (!m->have_root)
		return GT_EINVAL;
	int err = gt_board_play(&m->root_board, m->root_board.to_move, move);
	if (err)
		return err;
	const node *r = &m->nodes[0];
	int32_t child = -1;
	for (int i = 0; r->edge >= 0 && i < r->nedge; i++)
		if (m->edges[r->edge + i].move == move)
			child = m->edges[r->edge + i].child;
	if (child >= 0 && m->nodes[child].state != N_PENDING &&
	    m->nodes[child].state != N_NEW) {
		keep_subtree(m, child);
		m->active = m->full = m->noised = 0;
		m->ls.n = m->inflight = 0;
		m->gen++;
		m->rng = NULL;
		m->root_eval = 0;
		own_reset(m); /* the kept subtree's evaluations are not in the sums */
	} else {
		clear_tree(m);
	}
	m->avoid_on = 0;
	return 0;
}

/* ---- noise ---- */

static void apply_noise(gt_mcts *m)
{
	node *r = &m->nodes[0];
	edge *e = &m->edges[r->edge];
	double eta[GT_MAX_PTS + 1];
	int k = r->nedge;
	double wt = m->p.noise_weight;
	gt_rng_dirichlet(m->rng, m->p.noise_concentration / k, k, eta);
	for (int i = 0; i < k; i++) {
		m->clean[i] = e[i].prior;
		e[i].prior = (float)((1 - wt) * e[i].prior + wt * eta[i]);
	}
	m->noised = 1;
}

static void remove_noise(gt_mcts *m)
{
	node *r = &m->nodes[0];
	if (!m->noised || r->edge < 0)
		return;
	for (int i = 0; i < r->nedge; i++)
		m->edges[r->edge + i].prior = m->clean[i];
	m->noised = 0;
}

int gt_mcts_begin(gt_mcts *m, int visits, int noise, gt_rng *rng)
{
	if (!m->have_root || visits < 1 || m->nwk)
		return GT_EINVAL;
	if (m->inflight)
		clear_tree(m); /* an abandoned round: its virtual losses are stale */
	remove_noise(m);
	m->target = visits;
	m->center_set = 0;
	m->noise = noise && rng && m->p.noise_weight > 0;
	m->rng = rng;
	m->full = 0;
	m->active = 1;
	if (m->noise && m->nodes[0].state == N_EXPANDED)
		apply_noise(m);
	return 0;
}

/* ---- descent ---- */

/* backup: add value v and score sc (view of the player who moved into c) at
 * c and, alternating the sign, at every ancestor; unvl: also remove one
 * virtual loss on the way. */
static void backup(gt_mcts *m, int32_t c, double v, double sc, int unvl)
{
	while (c >= 0) {
		node *nd = &m->nodes[c];
		nd->n++;
		nd->w += v;
		nd->w2 += v * v;
		nd->s += sc;
		nd->s2 += sc * sc;
		if (unvl)
			nd->vl--;
		v = -v;
		sc = -sc;
		c = nd->parent;
	}
}

/* c_puct at a node of n visits (KataGo's cpuctExplorationLog growth) */
static double cpuct_at(const gt_mcts_params *p, double n)
{
	if (p->cpuct_log == 0 || p->cpuct_base <= 0)
		return p->cpuct;
	return p->cpuct + p->cpuct_log * log((n + p->cpuct_base) / p->cpuct_base);
}

/* score_utility: p's score utility of mean score sc (points) against
 * the centre (both the mover's view) on a board of side n (gt_mcts_params
 * score_static, score_dynamic; KataGo's ScoreValue::
 * whiteScoreValueOfScoreSmoothNoDrawAdjust, scales 2 and 0.75 there) */
static double score_utility(const gt_mcts_params *p, double sc, double center, int n)
{
	const double two_pi = 0.63661977236758134;
	return p->score_static * two_pi * atan(sc / (2.0 * n)) +
	       p->score_dynamic * two_pi * atan((sc - center) / (0.75 * n));
}

/* forced_root: 1 while the current search forces playouts at its root */
static int forced_root(const gt_mcts *m)
{
	return m->noise && m->p.forced_k > 0;
}

/* forced_child: at a root with forced playouts, the child furthest below
 * its sqrt(k P N) forced visits (N the children's visits and virtual
 * losses), or -1 when none is below */
static int forced_child(const gt_mcts *m, const node *nd, const edge *e)
{
	double ntot = 0;
	for (int i = 0; i < nd->nedge; i++)
		if (e[i].child >= 0)
			ntot += m->nodes[e[i].child].n + m->nodes[e[i].child].vl;
	int bi = -1;
	double most = 0;
	for (int i = 0; i < nd->nedge && ntot > 0; i++) {
		if (avoided(m, m->root_board.to_move, 0, e[i].move))
			continue;
		double nc = e[i].child >= 0 ? m->nodes[e[i].child].n + m->nodes[e[i].child].vl : 0;
		double lack = sqrt(m->p.forced_k * e[i].prior * ntot) - nc;
		if (lack > most) {
			most = lack;
			bi = i;
		}
	}
	return bi;
}

/* select_edge: the edge to descend from node cur at depth d with colour
 * c to move (PUCT, skipping moves forbidden there) */
static int select_edge(const gt_mcts *m, int32_t cur, int c, int d)
{
	const node *nd = &m->nodes[cur];
	const edge *e = &m->edges[nd->edge];
	if (cur == 0 && forced_root(m)) {
		int f = forced_child(m, nd, e);
		if (f >= 0)
			return f;
	}
	double sq = sqrt((double)(nd->n + nd->vl));
	double cp = cpuct_at(&m->p, nd->n + nd->vl);
	double parent_q = nd->n > 0 ? -nd->w / nd->n : 0;
	double mass = 0;
	for (int i = 0; i < nd->nedge; i++) {
		int32_t c = e[i].child;
		if (c >= 0 && m->nodes[c].n + m->nodes[c].vl > 0)
			mass += e[i].prior;
	}
	double r = cur != 0 ? m->p.fpu_reduction : m->noise ? 0 : m->p.root_fpu_reduction;
	double fpu = parent_q - r * sqrt(mass);
	/* the score utility: unvisited children take the parent's mean score */
	int su = m->p.score_static != 0 || m->p.score_dynamic != 0;
	double center = 0, parent_s = 0;
	if (su) {
		center = c == m->root_board.to_move ? m->score_center : -m->score_center;
		parent_s = nd->n > 0 ? -nd->s / nd->n : center;
	}
	int filter = m->avoid_on && d < m->avoid_max;
	for (;;) {
		double best = -INFINITY;
		int bi = -1;
		for (int i = 0; i < nd->nedge; i++) {
			if (filter && avoided(m, c, d, e[i].move))
				continue;
			int32_t ci = e[i].child;
			double q = fpu, nc = 0, sc = parent_s;
			if (ci >= 0) {
				const node *ch = &m->nodes[ci];
				nc = ch->n + ch->vl;
				if (nc > 0)
					q = (ch->w - ch->vl) / nc;
				if (ch->n > 0)
					sc = ch->s / ch->n;
			}
			if (su)
				q += score_utility(&m->p, sc, center, m->root_board.n);
			double u = q + cp * e[i].prior * sq / (1 + nc);
			if (u > best || bi < 0) {
				best = u;
				bi = i;
			}
		}
		if (bi >= 0 || !filter)
			return bi < 0 ? 0 : bi;
		filter = 0; /* everything forbidden: search them all */
	}
}

/* a visit that ended in a finished position: its ownership by the rules
 * (area, or territory with seki and dame points no one's) */
static void own_terminal(gt_mcts *m, const gt_board *b, int mv)
{
	float own[GT_MAX_PTS];
	gt_board_score(b, own);
	own_add(m, own, GT_BLACK, mv);
}

/* descend: one path from the root into b. Returns 1 with *leaf set for a
 * node to evaluate (virtual loss added on its path), 0 after backing up an
 * ended position, 2 for a collision with a leaf in flight, or an error. */
static int descend(gt_mcts *m, gt_board *b, int32_t *leaf, int16_t *root_move)
{
	gt_board_copy(b, &m->root_board);
	int32_t cur = 0;
	*root_move = -1;
	for (int d = 0;; d++) {
		node *nd = &m->nodes[cur];
		if (nd->state == N_TERMINAL) {
			backup(m, cur, nd->w / nd->n, nd->s / nd->n, 0);
			m->st.terminal++;
			if (m->own_on)
				own_terminal(m, b, *root_move);
			return 0;
		}
		if (nd->state == N_PENDING) {
			m->st.collisions++;
			return 2;
		}
		if (nd->state == N_NEW) {
			nd->state = N_PENDING;
			for (int32_t c = cur; c >= 0; c = m->nodes[c].parent)
				m->nodes[c].vl++;
			*leaf = cur;
			return 1;
		}
		if (d == 0 && !m->center_set && nd->n > 0) {
			/* the centre: the root's mean score when the search began
			 * (with a new tree, its network score) taken 20% towards 0
			 * and kept within 0.75 n of it (KataGo's recentScoreCenter:
			 * dynamicScoreCenterZeroWeight 0.2, dynamicScoreCenterScale
			 * 0.75 of its GTP config) */
			double mean, cap = 0.75 * m->root_board.n;
			gt_mcts_root_value(m, &mean);
			double c = 0.8 * mean;
			m->score_center = c > mean + cap ? mean + cap : c < mean - cap ? mean - cap : c;
			m->center_set = 1;
		}
		int i = select_edge(m, cur, b->to_move, d);
		edge *e = &m->edges[nd->edge + i];
		if (d == 0)
			*root_move = e->move;
		/* the edges were the legal moves of this very position */
		int err = gt_board_play_legal(b, b->to_move, e->move);
		if (err)
			return err;
		if (e->child < 0) {
			int32_t c = new_node(m, cur); /* room reserved by the caller */
			e->child = c;
			if (gt_board_over(b)) {
				double a = gt_board_score(b, NULL);
				double sc = b->to_move == GT_BLACK ? -a : a; /* mover's view */
				m->nodes[c].state = N_TERMINAL;
				backup(m, c, sc > 0 ? 1 : sc < 0 ? -1 : 0, sc, 0);
				m->st.terminal++;
				if (m->own_on)
					own_terminal(m, b, *root_move);
				return 0;
			}
		}
		cur = e->child;
	}
}

int gt_mcts_done(const gt_mcts *m)
{
	if (!m->have_root || !m->active || gt_board_over(&m->root_board))
		return 1;
	return m->inflight == 0 && (m->nodes[0].n >= m->target || m->full);
}

/* collect: up to max_leaves leaves into ls (empty), counted in flight */
static int collect(gt_mcts *m, leafset *ls, int max_leaves)
{
	if (gt_mcts_done(m))
		return 0;
	if (max_leaves <= 0 || max_leaves > m->p.leaves)
		max_leaves = m->p.leaves;
	size_t per_leaf = (size_t)m->root_board.npts + 1;
	int collisions = 0;
	ls->gen = m->gen;
	while (ls->n < max_leaves && m->nodes[0].n + m->inflight < m->target) {
		/* room for the edges of every leaf in flight, other sets' too */
		if (reserve(m, 1, (m->inflight + 1) * per_leaf) < 0) {
			m->full = 1;
			break;
		}
		int32_t leaf = -1;
		int r = descend(m, &ls->board[ls->n], &leaf, &ls->move[ls->n]);
		if (r < 0) {
			ls->n = 0;
			gt_mcts_set_root(m, &m->root_board);
			return r;
		}
		if (r == 1) {
			ls->node[ls->n++] = leaf;
			m->inflight++;
			if (leaf == 0)
				break; /* the root itself: nothing else to find */
		} else if (r == 2 && ++collisions >= max_leaves) {
			break;
		}
	}
	m->st.evals += ls->n;
	return ls->n;
}

int gt_mcts_collect(gt_mcts *m, int max_leaves, const gt_board **boards)
{
	if (m->ls.n)
		return GT_EINVAL; /* the last collect was not applied */
	int k = collect(m, &m->ls, max_leaves);
	for (int i = 0; i < k; i++)
		boards[i] = &m->ls.board[i];
	return k;
}

/* expand: the edges of leaf c at position b from the evaluator's logits:
 * softmax over the legal moves, points in board order then pass. */
static int expand(gt_mcts *m, int32_t c, const gt_board *b, const float *logits)
{
	int16_t moves[GT_MAX_PTS + 1];
	double p[GT_MAX_PTS + 1];
	int k = gt_board_legal_moves(b, b->to_move, moves);
	if (k == 0 || b->nmoves >= m->p.pass_from)
		moves[k++] = (int16_t)GT_PASS(b->n);
	double mx = -INFINITY;
	for (int i = 0; i < k; i++) {
		float l = logits[moves[i]];
		if (isnan(l) || l == INFINITY)
			return GT_EINVAL;
		if (l > mx)
			mx = l;
	}
	double sum = 0;
	for (int i = 0; i < k; i++) {
		p[i] = mx == -INFINITY ? 1 : exp(logits[moves[i]] - mx);
		sum += p[i];
	}
	edge *e = &m->edges[m->nedges];
	for (int i = 0; i < k; i++) {
		e[i].child = -1;
		e[i].prior = (float)(p[i] / sum);
		e[i].move = moves[i];
	}
	node *nd = &m->nodes[c];
	nd->edge = (int32_t)m->nedges;
	nd->nedge = (int16_t)k;
	nd->state = N_EXPANDED;
	m->nedges += k;
	return 0;
}

int gt_mcts_apply(gt_mcts *m, const float *logits, const float *value, const float *score)
{
	return gt_mcts_apply_own(m, logits, value, score, NULL);
}

/* apply: the evaluations of ls's leaves; a set collected before the tree
 * was dropped is discarded */
static int apply(gt_mcts *m, leafset *ls, const float *logits, const float *value,
                 const float *score, const float *own)
{
	if (ls->gen != m->gen) {
		ls->n = 0;
		return 0;
	}
	size_t stride = (size_t)m->root_board.npts + 1;
	int err = 0;
	for (int i = 0; i < ls->n && !err; i++) {
		double v = value[i], sc = score ? score[i] : 0;
		if (isnan(v) || isnan(sc)) {
			err = GT_EINVAL;
			break;
		}
		v = v > 1 ? 1 : v < -1 ? -1 : v;
		int32_t c = ls->node[i];
		err = expand(m, c, &ls->board[i], logits + i * stride);
		if (err)
			break;
		if (c == 0) {
			m->root_eval = 1;
			m->root_value = v;
			m->root_score = sc;
			if (m->noise)
				apply_noise(m);
		}
		backup(m, c, -v, -sc, 1);
		if (own && m->own_on) {
			const float *o = own + (size_t)i * m->root_board.npts;
			for (int k = 0; k < m->root_board.npts; k++)
				if (isnan(o[k]))
					err = GT_EINVAL;
			if (!err)
				own_add(m, o, ls->board[i].to_move, ls->move[i]);
		}
	}
	m->inflight -= ls->n;
	ls->n = 0;
	if (err) {
		gt_mcts_set_root(m, &m->root_board);
		return err;
	}
	return 0;
}

int gt_mcts_apply_own(gt_mcts *m, const float *logits, const float *value, const float *score,
                      const float *own)
{
	return apply(m, &m->ls, logits, value, score, own);
}

int gt_mcts_run_many(gt_mcts *const *ms, int k, const gt_evaluator *ev)
{
	if (k <= 0)
		return 0;
	int n = ms[0]->root_board.n, cap = 0, want_own = 0;
	for (int j = 0; j < k; j++) {
		if (ms[j]->root_board.n != n)
			return GT_EINVAL;
		cap += ms[j]->p.leaves;
		want_own |= ms[j]->own_on;
	}
	size_t stride = (size_t)n * n + 1;
	const gt_board **boards = gt_xmalloc(cap * sizeof *boards);
	float *logits = gt_xmalloc(cap * stride * sizeof *logits);
	float *value = gt_xmalloc(cap * sizeof *value);
	float *score = gt_xmalloc(cap * sizeof *score);
	float *own = want_own ? gt_xmalloc((size_t)cap * n * n * sizeof *own) : NULL;
	int *count = gt_xmalloc(k * sizeof *count);
	int err = 0;
	for (;;) {
		int total = 0;
		for (int j = 0; j < k && !err; j++) {
			int r = gt_mcts_collect(ms[j], 0, boards + total);
			if (r < 0)
				err = r;
			else
				total += count[j] = r;
		}
		if (err || total == 0)
			break;
		memset(score, 0, total * sizeof *score);
		err = ev->eval(ev->ctx, n, total, boards, logits, value, score, own);
		if (err)
			break;
		for (int j = 0, off = 0; j < k && !err; off += count[j], j++)
			if (count[j])
				err = gt_mcts_apply_own(ms[j], logits + off * stride, value + off, score + off,
				                        own ? own + (size_t)off * n * n : NULL);
	}
	gt_free_all(own, boards, logits, value, score, count);
	return err;
}

int gt_mcts_search(gt_mcts *m, const gt_evaluator *ev, int visits, int noise, gt_rng *rng)
{
	int err = gt_mcts_begin(m, visits, noise, rng);
	if (err)
		return err;
	return gt_mcts_run_many(&m, 1, ev);
}

/* ---- search threads ---- */

/* One search thread: its evaluator, leaves and the evaluator's outputs. */
typedef struct worker {
	gt_mcts *m;
	const gt_evaluator *ev;
	pthread_t th;
	leafset ls;
	const gt_board **boards;
	float *logits, *value, *score, *own;
} worker;

/* a search thread: collect under the lock, evaluate outside it, apply
 * under it, until the search is done, stopped or failed */
static void *worker_main(void *arg)
{
	worker *w = arg;
	gt_mcts *m = w->m;
	int n = m->root_board.n;
	pthread_mutex_lock(&m->mu);
	while (!atomic_load(&m->stop) && !m->werr) {
		int k = collect(m, &w->ls, 0);
		if (k < 0) {
			m->werr = k;
			break;
		}
		if (k == 0) {
			if (gt_mcts_done(m))
				break;
			/* every path met a leaf in flight, or the target is in
			 * flight: wait for another thread's apply */
			pthread_cond_wait(&m->cv, &m->mu);
			continue;
		}
		float *own = m->own_on ? w->own : NULL;
		pthread_mutex_unlock(&m->mu);
		for (int i = 0; i < k; i++) {
			w->boards[i] = &w->ls.board[i];
			w->score[i] = 0;
		}
		int err = w->ev->eval(w->ev->ctx, n, k, w->boards, w->logits, w->value, w->score, own);
		pthread_mutex_lock(&m->mu);
		if (!err)
			err = apply(m, &w->ls, w->logits, w->value, w->score, own);
		else if (w->ls.gen == m->gen)
			gt_mcts_set_root(m, &m->root_board); /* virtual losses left behind */
		w->ls.n = 0;
		if (err && !m->werr)
			m->werr = err;
		pthread_cond_broadcast(&m->cv);
	}
	m->running--;
	pthread_cond_broadcast(&m->cv);
	pthread_cond_broadcast(&m->ended);
	pthread_mutex_unlock(&m->mu);
	return NULL;
}

int gt_mcts_start(gt_mcts *m, const gt_evaluator *evs, int threads)
{
	if (m->nwk || threads < 1 || !m->have_root || !m->active)
		return GT_EINVAL;
	if (m->inflight)
		return GT_EINVAL; /* leaves of gt_mcts_collect not applied */
	int n = m->root_board.n, np = n * n, lv = m->p.leaves;
	m->wk = gt_xcalloc(threads, sizeof *m->wk);
	atomic_store(&m->stop, 0);
	m->werr = 0;
	pthread_mutex_lock(&m->mu);
	for (int t = 0; t < threads; t++) {
		worker *w = &m->wk[t];
		w->m = m;
		w->ev = &evs[t];
		leafset_init(&w->ls, lv);
		w->boards = gt_xmalloc(lv * sizeof *w->boards);
		w->logits = gt_xmalloc((size_t)lv * (np + 1) * sizeof *w->logits);
		w->value = gt_xmalloc(lv * sizeof *w->value);
		w->score = gt_xmalloc(lv * sizeof *w->score);
		w->own = gt_xmalloc((size_t)lv * np * sizeof *w->own);
		if (pthread_create(&w->th, NULL, worker_main, w) != 0) {
			leafset_free(&w->ls);
			gt_free_all(w->boards, w->logits, w->value, w->score, w->own);
			if (t == 0) {
				pthread_mutex_unlock(&m->mu);
				free(m->wk);
				m->wk = NULL;
				return GT_ENOMEM;
			}
			break; /* search with the threads there are */
		}
		m->nwk++;
		m->running++;
	}
	pthread_mutex_unlock(&m->mu);
	return 0;
}

int gt_mcts_wait(gt_mcts *m, double seconds)
{
	pthread_mutex_lock(&m->mu);
	if (seconds < 0) {
		while (m->running > 0)
			pthread_cond_wait(&m->ended, &m->mu);
	} else if (m->running > 0 && seconds > 0) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		double end = ts.tv_sec + ts.tv_nsec * 1e-9 + seconds;
		ts.tv_sec = (time_t)end;
		ts.tv_nsec = (long)((end - (double)ts.tv_sec) * 1e9);
		if (ts.tv_nsec >= 1000000000L)
			ts.tv_nsec = 999999999L;
		while (m->running > 0 && pthread_cond_timedwait(&m->ended, &m->mu, &ts) == 0)
			;
	}
	int done = m->running == 0;
	pthread_mutex_unlock(&m->mu);
	return done;
}

int gt_mcts_stop(gt_mcts *m)
{
	if (!m->nwk)
		return 0;
	atomic_store(&m->stop, 1);
	pthread_mutex_lock(&m->mu);
	pthread_cond_broadcast(&m->cv);
	pthread_mutex_unlock(&m->mu);
	for (int t = 0; t < m->nwk; t++) {
		worker *w = &m->wk[t];
		pthread_join(w->th, NULL);
		leafset_free(&w->ls);
		gt_free_all(w->boards, w->logits, w->value, w->score, w->own);
	}
	free(m->wk);
	m->wk = NULL;
	m->nwk = 0;
	return m->werr;
}

void gt_mcts_lock(gt_mcts *m)
{
	pthread_mutex_lock(&m->mu);
}

void gt_mcts_unlock(gt_mcts *m)
{
	pthread_mutex_unlock(&m->mu);
}

int gt_mcts_search_threads(gt_mcts *m, const gt_evaluator *evs, int threads, int visits,
                           int noise, gt_rng *rng)
{
	if (threads <= 1)
		return gt_mcts_search(m, evs, visits, noise, rng);
	int err = gt_mcts_begin(m, visits, noise, rng);
	if (!err)
		err = gt_mcts_start(m, evs, threads);
	if (err)
		return err;
	gt_mcts_wait(m, -1);
	return gt_mcts_stop(m);
}

/* gt_mcts_check: the tree's counts (mcts.h) */
int gt_mcts_check(const gt_mcts *m)
{
	if (m->inflight)
		return GT_EINVAL;
	for (size_t c = 0; c < m->nnodes; c++) {
		const node *nd = &m->nodes[c];
		if (nd->vl != 0 || nd->state == N_PENDING)
			return GT_EINVAL;
		if (nd->state != N_EXPANDED)
			continue;
		long sum = 0;
		for (int i = 0; i < nd->nedge; i++) {
			int32_t ch = m->edges[nd->edge + i].child;
			if (ch >= 0) {
				if ((size_t)ch >= m->nnodes || m->nodes[ch].parent != (int32_t)c)
					return GT_EINVAL;
				sum += m->nodes[ch].n;
			}
		}
		if (sum + 1 != nd->n)
			return GT_EINVAL;
	}
	return 0;
}

/* ---- results ---- */

int gt_mcts_visits(const gt_mcts *m)
{
	return m->nodes[0].n;
}

double gt_mcts_score_center(const gt_mcts *m)
{
	return m->center_set ? m->score_center : NAN;
}

double gt_mcts_root_value(const gt_mcts *m, double *score)
{
	const node *r = &m->nodes[0];
	if (score)
		*score = r->n ? -r->s / r->n : 0;
	return r->n ? -r->w / r->n : 0;
}

int gt_mcts_child_visits(const gt_mcts *m, int *visits)
{
	const node *r = &m->nodes[0];
	int sum = 0;
	memset(visits, 0, (m->root_board.npts + 1) * sizeof *visits);
	for (int i = 0; r->edge >= 0 && i < r->nedge; i++) {
		const edge *e = &m->edges[r->edge + i];
		if (e->child >= 0) {
			visits[e->move] = m->nodes[e->child].n;
			sum += visits[e->move];
		}
	}
	return sum;
}

static float clean_prior(const gt_mcts *m, int i)
{
	return m->noised ? m->clean[i] : m->edges[m->nodes[0].edge + i].prior;
}

int gt_mcts_prior(const gt_mcts *m, int noised, float *prior)
{
	const node *r = &m->nodes[0];
	if (r->edge < 0)
		return GT_EINVAL;
	memset(prior, 0, (m->root_board.npts + 1) * sizeof *prior);
	for (int i = 0; i < r->nedge; i++)
		prior[m->edges[r->edge + i].move] =
			noised ? m->edges[r->edge + i].prior : clean_prior(m, i);
	return 0;
}

static double node_lcb(const node *nd);

static int child_n(const gt_mcts *m, const edge *e)
{
	return e->child >= 0 ? m->nodes[e->child].n : 0;
}

/* 1 when root edge i is forbidden (gt_mcts_set_avoid) */
static int root_avoided(const gt_mcts *m, int i)
{
	return avoided(m, m->root_board.to_move, 0, m->edges[m->nodes[0].edge + i].move);
}

/* the root's most visited edge (ties: higher clean prior, lower index),
 * among the allowed ones when one is */
static int most_visited(const gt_mcts *m)
{
	const node *r = &m->nodes[0];
	const edge *e = &m->edges[r->edge];
	int best = -1;
	for (int pass = 0; pass < 2 && best < 0; pass++)
		for (int i = 0; i < r->nedge; i++) {
			if (!pass && root_avoided(m, i))
				continue;
			int v = child_n(m, &e[i]), vb = best < 0 ? -1 : child_n(m, &e[best]);
			if (v > vb || (v == vb && clean_prior(m, i) > clean_prior(m, best)))
				best = i;
		}
	return best;
}

/* pruned: the root edges' visits after policy target pruning into pv[nedge]
 * (see gt_mcts_pruned); returns their sum */
static double pruned(const gt_mcts *m, double *pv)
{
	const node *r = &m->nodes[0];
	const edge *e = &m->edges[r->edge];
	double ntot = 0, sum = 0;
	for (int i = 0; i < r->nedge; i++)
		ntot += pv[i] = child_n(m, &e[i]);
	if (!forced_root(m) || ntot == 0) {
		return ntot;
	}
	int b = most_visited(m);
	const node *cb = &m->nodes[e[b].child];
	double sq = sqrt((double)r->n), cp = cpuct_at(&m->p, r->n);
	double ub = cb->w / cb->n + cp * e[b].prior * sq / (1 + cb->n);
	for (int i = 0; i < r->nedge; i++) {
		if (i == b || pv[i] == 0) {
			sum += pv[i];
			continue;
		}
		const node *ch = &m->nodes[e[i].child];
		double forced = sqrt(m->p.forced_k * e[i].prior * ntot);
		double gap = ub - ch->w / ch->n, keep = pv[i];
		/* fewest visits n' with Q + cp P sq / (1 + n') <= ub */
		if (gap > 0) {
			double need = cp * e[i].prior * sq / gap - 1;
			keep = pv[i] - forced > need ? pv[i] - forced : need;
			if (keep > pv[i])
				keep = pv[i];
		}
		pv[i] = keep <= 1 ? 0 : keep;
		sum += pv[i];
	}
	return sum;
}

double gt_mcts_pruned(const gt_mcts *m, double *visits)
{
	const node *r = &m->nodes[0];
	double pv[GT_MAX_PTS + 1], sum = 0;
	memset(visits, 0, (m->root_board.npts + 1) * sizeof *visits);
	if (r->edge < 0)
		return 0;
	sum = pruned(m, pv);
	for (int i = 0; i < r->nedge; i++)
		visits[m->edges[r->edge + i].move] = pv[i];
	return sum;
}

int gt_mcts_policy(const gt_mcts *m, float *policy)
{
	int visits[GT_MAX_PTS + 1];
	double pv[GT_MAX_PTS + 1];
	int np = m->root_board.npts + 1;
	int sum = gt_mcts_child_visits(m, visits);
	if (sum == 0) {
		if (gt_mcts_prior(m, 0, policy) < 0)
			memset(policy, 0, np * sizeof *policy);
		return 0;
	}
	double psum = gt_mcts_pruned(m, pv);
	for (int i = 0; i < np; i++)
		policy[i] = (float)(pv[i] / psum);
	return sum;
}

int gt_mcts_choose(const gt_mcts *m, double t, gt_rng *rng)
{
	const node *r = &m->nodes[0];
	if (r->edge < 0 || gt_board_over(&m->root_board))
		return GT_EOVER;
	const edge *e = &m->edges[r->edge];
	int k = r->nedge, best = most_visited(m), vmax = child_n(m, &e[best]);
	if (vmax > 0 && (t <= 0 || !rng) && m->p.lcb_select) {
		/* KataGo's LCB selection among the well-visited children */
		double lb = node_lcb(&m->nodes[e[best].child]);
		int pick = best;
		for (int i = 0; i < k; i++) {
			int v = child_n(m, &e[i]);
			if (i == best || v == 0 || v < m->p.lcb_min_visits * vmax || root_avoided(m, i))
				continue;
			double l = node_lcb(&m->nodes[e[i].child]);
			if (l > lb) {
				lb = l;
				pick = i;
			}
		}
		return e[pick].move;
	}
	if (vmax == 0 || t <= 0 || !rng)
		return e[best].move;
	double pv[GT_MAX_PTS + 1], w[GT_MAX_PTS + 1], pmax = 0;
	pruned(m, pv);
	for (int i = 0; i < k; i++)
		if (pv[i] > pmax)
			pmax = pv[i];
	double lmax = log(pmax);
	for (int i = 0; i < k; i++)
		w[i] = pv[i] > 0 ? exp((log(pv[i]) - lmax) / t) : 0;
	return e[gt_rng_choose(rng, w, k)].move;
}

void gt_mcts_get_stats(const gt_mcts *m, gt_mcts_stats *st)
{
	*st = m->st;
	st->nodes = m->nnodes;
	st->edges = m->nedges;
	st->bytes = pool_bytes(m->capn, m->cape) + pool_bytes(m->capn2, m->cape2);
}

/* ---- analysis ---- */

void gt_mcts_track_ownership(gt_mcts *m, int on)
{
	m->own_on = on != 0;
	m->own_n = 0;
	memset(m->own_sum, 0, sizeof m->own_sum);
	own_reset(m);
}

void gt_mcts_track_moves_ownership(gt_mcts *m, int on)
{
	if (on && !m->own_mv) {
		m->own_mv = gt_xmalloc((size_t)(GT_MAX_PTS + 1) * GT_MAX_PTS * sizeof *m->own_mv);
		m->own_mv_n = gt_xmalloc((GT_MAX_PTS + 1) * sizeof *m->own_mv_n);
	} else if (!on) {
		gt_free_all(m->own_mv, m->own_mv_n);
		m->own_mv = NULL;
		m->own_mv_n = NULL;
	}
	own_reset(m);
}

long gt_mcts_move_ownership(const gt_mcts *m, int move, float *own)
{
	int np = m->root_board.npts;
	long k = m->own_mv && move >= 0 && move <= np ? m->own_mv_n[move] : 0;
	for (int i = 0; i < np; i++)
		own[i] = k ? (float)(m->own_mv[(size_t)move * np + i] / k) : 0.0f;
	return k;
}

/* the standard deviation of the scores backed up at a node */
static double node_score_stdev(const node *nd)
{
	if (nd->n < 2)
		return 0;
	double mean = nd->s / nd->n, var = nd->s2 / nd->n - mean * mean;
	return var > 0 ? sqrt(var) : 0;
}

double gt_mcts_root_score_stdev(const gt_mcts *m)
{
	return node_score_stdev(&m->nodes[0]);
}

int gt_mcts_root_eval(const gt_mcts *m, double *value, double *score)
{
	*value = m->root_eval ? m->root_value : 0;
	*score = m->root_eval ? m->root_score : 0;
	return m->root_eval;
}

int gt_mcts_tracks_ownership(const gt_mcts *m)
{
	return m->own_on;
}

void gt_mcts_ownership_add(gt_mcts *m, const float *own)
{
	if (m->own_on)
		own_add(m, own, m->root_board.to_move, -1);
}

long gt_mcts_ownership(const gt_mcts *m, float *own)
{
	int np = m->root_board.npts;
	for (int i = 0; i < np; i++)
		own[i] = m->own_n ? (float)(m->own_sum[i] / m->own_n) : 0.0f;
	return m->own_n;
}

/* lower confidence bound of a node's mean value (the mover's view):
 * mean - z sqrt(s2 / n), s2 = (sum of squared deviations + 1) / (n + 1) */
static double node_lcb(const node *nd)
{
	double mean = nd->w / nd->n;
	double dev = nd->w2 - nd->n * mean * mean;
	double s2 = ((dev > 0 ? dev : 0) + 1) / (nd->n + 1);
	return mean - GT_MCTS_LCB_Z * sqrt(s2 / nd->n);
}

/* the most visited child of node c (ties: higher prior, then the lower
 * edge index), or -1 when none was visited */
static int best_child(const gt_mcts *m, int32_t c)
{
	const node *nd = &m->nodes[c];
	int best = -1, bv = 0;
	float bp = 0;
	for (int i = 0; nd->edge >= 0 && i < nd->nedge; i++) {
		const edge *e = &m->edges[nd->edge + i];
		int v = e->child >= 0 ? m->nodes[e->child].n : 0;
		float pr = c == 0 ? clean_prior(m, i) : e->prior;
		if (v > 0 && (v > bv || (v == bv && pr > bp))) {
			best = i;
			bv = v;
			bp = pr;
		}
	}
	return best;
}

static int info_cmp(const void *a, const void *b)
{
	const gt_mcts_move_info *x = a, *y = b;
	if (x->visits != y->visits)
		return x->visits > y->visits ? -1 : 1;
	if (x->prior != y->prior)
		return x->prior > y->prior ? -1 : 1;
	return x->move < y->move ? -1 : x->move > y->move;
}

int gt_mcts_analysis(const gt_mcts *m, gt_mcts_move_info *info, int pv_max)
{
	const node *r = &m->nodes[0];
	if (r->edge < 0)
		return 0;
	if (pv_max > GT_MCTS_PV_MAX)
		pv_max = GT_MCTS_PV_MAX;
	double rq = r->n ? -r->w / r->n : 0, rs = r->n ? -r->s / r->n : 0;
	int k = 0;
	for (int i = 0; i < r->nedge; i++) {
		const edge *e = &m->edges[r->edge + i];
		if (root_avoided(m, i) && child_n(m, e) == 0)
			continue; /* forbidden (and not searched all the same) */
		gt_mcts_move_info *x = &info[k++];
		memset(x, 0, sizeof *x);
		x->move = e->move;
		x->prior = clean_prior(m, i);
		x->value = rq;
		x->score = rs;
		x->score_stdev = node_score_stdev(r);
		x->lcb = -INFINITY;
		if (e->child >= 0 && m->nodes[e->child].n > 0) {
			const node *ch = &m->nodes[e->child];
			x->visits = ch->n;
			x->value = ch->w / ch->n;
			x->score = ch->s / ch->n;
			x->score_stdev = node_score_stdev(ch);
			x->lcb = node_lcb(ch);
		}
		x->pv[0] = e->move;
		x->pv_visits[0] = x->visits;
		x->npv = pv_max > 0 ? 1 : 0;
		for (int32_t c = e->child; c >= 0 && x->npv < pv_max; ) {
			int j = best_child(m, c);
			if (j < 0)
				break;
			const edge *ce = &m->edges[m->nodes[c].edge + j];
			x->pv_visits[x->npv] = m->nodes[ce->child].n;
			x->pv[x->npv++] = ce->move;
			c = ce->child;
		}
	}
	qsort(info, k, sizeof *info, info_cmp);
	for (int i = 0; i < k; i++)
		info[i].order = i;
	return k;
}
