/* engine.c: gt-gtp's search: genmove, analysis, dead stones (engine.h). */
#include "engine.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "neteval.h"
#include "score.h"
#include "sym.h"
#include "util.h"

enum { A_LZ = 1, A_KATA, A_SABAKI };

/* the arguments of an analysis command */
typedef struct an_args {
	int kind;          /* A_* */
	int color;         /* analyse for this colour; 0: the side to move */
	double interval;   /* seconds between lines */
	int minmoves, maxmoves;
	int ownership, root_info, pv_visits, pv_edge_visits, moves_own;
	int has_avoid;     /* avoid or allow given: the search is restricted by avoid */
	gt_mcts_avoid avoid;
} an_args;

struct gt_engine {
	gt_engine_params p;
	gt_mcts_params mp; /* the search's parameters (kata-set-param) */
	gt_evaluator *ev;  /* p.threads evaluators, one per search thread; ev[0]
	                      also for everything outside the search */
	int threads;       /* search threads in use (numSearchThreads), <= p.threads */
	int network;       /* the evaluator has an ownership head */
	gt_mcts *m;        /* the game's search (its tree is kept) */
	int have_raw;      /* root_raw holds the raw evaluation of the search's root */
	gt_eval_raw root_raw;
	int has_root;
	gt_mcts *sm;       /* the search behind the judgement of dead stones */
	const gt_board *boards[1];
	float logits[GT_MAX_PTS + 1], value[1], score[1], own[GT_MAX_PTS];
	gt_mcts_move_info info[GT_MAX_PTS + 1];
	char *line;        /* an analysis line being built */
	size_t len, cap;
};

void gt_engine_params_default(gt_engine_params *p)
{
	p->visits = 100;
	p->resign = 0;
	p->pv_len = 15;
	p->max_time = 0;
	p->log = NULL;
	p->name = "gt-gtp";
	gt_mcts_params_default(&p->search);
	p->search.leaves = 1; /* as gt-elo: the same search, move for move */
	p->threads = 1;
}

/* the game's search and the status search (final_status_list,
 * final_score) from the settings e->mp, any before them freed with their
 * trees */
static void new_searches(gt_engine *e)
{
	gt_mcts_free(e->m);
	gt_mcts_free(e->sm);
	gt_mcts_params mp = e->mp;
	e->m = gt_mcts_new(&mp);
	gt_mcts_track_ownership(e->m, 1);
	mp.pass_from = INT_MAX; /* the status search plays the game out */
	e->sm = gt_mcts_new(&mp);
	gt_mcts_track_ownership(e->sm, 1);
}

gt_engine *gt_engine_new(const gt_engine_params *p, gt_evaluator *ev)
{
	gt_engine *e = gt_xcalloc(1, sizeof *e);
	e->p = *p;
	if (e->p.pv_len < 1)
		e->p.pv_len = 1;
	if (e->p.threads < 1)
		e->p.threads = 1;
	e->threads = e->p.threads;
	e->ev = gt_xmalloc(e->p.threads * sizeof *e->ev);
	for (int t = 0; t < e->p.threads; t++) {
		e->ev[t] = ev[t];
		memset(&ev[t], 0, sizeof ev[t]);
	}
	e->network = gt_neteval_backend(e->ev) != NULL;
	e->cap = 4096;
	e->line = gt_xmalloc(e->cap);
	e->mp = p->search;
	new_searches(e);
	return e;
}

void gt_engine_free(gt_engine *e)
{
	if (!e)
		return;
	gt_mcts_free(e->m);
	gt_mcts_free(e->sm);
	for (int t = 0; t < e->p.threads; t++)
		gt_evaluator_close(&e->ev[t]);
	free(e->ev);
	free(e->line);
	free(e);
}

/* ---- the search ---- */

/* 1 if b continues the game at the search's root: same start, the root's
 * moves a prefix of b's */
static int continues(const gt_board *root, const gt_board *b)
{
	if (root->n != b->n || root->rules != b->rules || root->komi != b->komi ||
	    root->setup_to_move != b->setup_to_move || root->nmoves > b->nmoves ||
	    memcmp(root->setup, b->setup, b->npts) != 0)
		return 0;
	for (int i = 0; i < root->nmoves; i++)
		if (root->hist_move[i] != b->hist_move[i] || root->hist_color[i] != b->hist_color[i])
			return 0;
	return 1;
}

/* put the search's root at b with color to move, keeping the tree where b
 * continues it; a finished game goes on as a new start */
static void prepare(gt_engine *e, const gt_board *b, int color)
{
	gt_board *c = NULL;
	if (color != b->to_move || gt_board_over(b)) {
		c = gt_xmalloc(sizeof *c);
		if (gt_board_over(b))
			gt_score_board_from(c, b);
		else
			gt_board_copy(c, b);
		gt_board_set_to_move(c, color);
		b = c;
	}
	if (!c && e->has_root && continues(gt_mcts_root(e->m), b)) {
		const gt_board *r = gt_mcts_root(e->m);
		int i = r->nmoves;
		for (; i < b->nmoves; i++)
			if (b->hist_color[i] != gt_mcts_root(e->m)->to_move ||
			    gt_mcts_advance(e->m, b->hist_move[i]) != 0)
				break;
		if (i == b->nmoves && gt_mcts_root(e->m)->to_move == b->to_move)
			return;
	}
	gt_mcts_set_root(e->m, b);
	e->has_root = 1;
	free(c);
}

/* one evaluation of the search m: > 0 positions evaluated, 0 when the
 * search is done, or an error */
static int step(gt_engine *e, gt_mcts *m)
{
	int k = gt_mcts_collect(m, 0, e->boards);
	if (k <= 0)
		return k;
	int n = gt_mcts_root(m)->n;
	e->score[0] = 0;
	int err = e->ev->eval(e->ev->ctx, n, k, e->boards, e->logits, e->value, e->score, e->own);
	if (!err)
		err = gt_mcts_apply_own(m, e->logits, e->value, e->score, e->own);
	return err ? err : k;
}

/* a kept tree's ownership average starts empty: add the root's own */
static int seed_ownership(gt_engine *e)
{
	float o[GT_MAX_PTS];
	if (gt_mcts_visits(e->m) == 0 || gt_mcts_ownership(e->m, o) > 0)
		return 0;
	const gt_board *r = gt_mcts_root(e->m);
	e->score[0] = 0;
	int err = e->ev->eval(e->ev->ctx, r->n, 1, &r, e->logits, e->value, e->score, e->own);
	if (!err)
		gt_mcts_ownership_add(e->m, e->own);
	return err;
}

/* ---- analysis lines ---- */

static void lput(gt_engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lput(gt_engine *e, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int k = vsnprintf(e->line + e->len, e->cap - e->len, fmt, ap);
		va_end(ap);
		if (k >= 0 && e->len + (size_t)k < e->cap) {
			e->len += (size_t)k;
			return;
		}
		e->cap = 2 * e->cap + (k > 0 ? (size_t)k : 0) + 256;
		e->line = gt_xrealloc(e->line, e->cap);
	}
}

/* n*n ownership values o (Black's view) from the side to move's */
static void put_own(gt_engine *e, const gt_board *r, const float *o)
{
	double sg = r->to_move == GT_WHITE ? -1 : 1;
	for (int p = 0; p < r->npts; p++)
		lput(e, " %.6f", sg * o[p]);
}

/* the line of the moves searched so far (and ownership), in e->line.
 * lz-analyze: Leela Zero's integers (1/10000); analyze: the same integers
 * (what Sabaki reads: an integer win rate in 1/10000, since 0.60 always
 * for analyze) with scoreLead; kata-analyze: KataGo's keys and fractions.
 * utility is the value alone (KataGo's winLossUtilityFactor 1; the score
 * utility of gt_mcts_params, when on, steers the search but is not added
 * here) and every visit weighs 1. */
static void build_line(gt_engine *e, const an_args *a)
{
	const gt_board *r = gt_mcts_root(e->m);
	int k = gt_mcts_analysis(e->m, e->info, e->p.pv_len), shown = 0;
	char v[8];
	e->len = 0;
	lput(e, "%s", "");
	for (int i = 0; i < k && shown < a->maxmoves; i++) {
		const gt_mcts_move_info *x = &e->info[i];
		if (x->visits == 0 && i >= a->minmoves)
			break;
		double wr = (1 + x->value) / 2, lcb = x->visits ? (1 + x->lcb) / 2 : 0;
		double ulcb = x->visits ? x->lcb : -1;
		lput(e, "%sinfo move %s visits %d", shown++ ? " " : "", gt_vertex_str(r->n, x->move, v),
		     x->visits);
		if (a->kind != A_KATA) {
			lcb = lcb < 0 ? 0 : lcb > 1 ? 1 : lcb;
			lput(e, " winrate %d", (int)lround(wr * 10000));
			if (a->kind == A_SABAKI)
				lput(e, " scoreLead %.6f", x->score);
			lput(e, " prior %d lcb %d", (int)lround(x->prior * 10000), (int)lround(lcb * 10000));
		} else {
			lput(e, " edgeVisits %d utility %.6f winrate %.6f scoreMean %.6f scoreStdev %.6f"
			     " scoreLead %.6f scoreSelfplay %.6f prior %.6f lcb %.6f utilityLcb %.6f weight %d",
			     x->visits, x->value, wr, x->score, x->score_stdev, x->score, x->score, x->prior,
			     lcb, ulcb, x->visits);
		}
		lput(e, " order %d pv", x->order);
		for (int j = 0; j < x->npv; j++)
			lput(e, " %s", gt_vertex_str(r->n, x->pv[j], v));
		for (int t = 0; t < 2; t++)
			if (t ? a->pv_edge_visits : a->pv_visits) {
				lput(e, t ? " pvEdgeVisits" : " pvVisits");
				for (int j = 0; j < x->npv; j++)
					lput(e, " %d", x->pv_visits[j]);
			}
		if (a->moves_own) {
			float o[GT_MAX_PTS];
			gt_mcts_move_ownership(e->m, x->move, o);
			lput(e, " movesOwnership");
			put_own(e, r, o);
		}
	}
	if (a->root_info) {
		double s, val = gt_mcts_root_value(e->m, &s);
		int nv = gt_mcts_visits(e->m);
		lput(e, " rootInfo visits %d utility %.6f winrate %.6f scoreMean %.6f scoreStdev %.6f"
		     " scoreLead %.6f scoreSelfplay %.6f weight %d", nv, val, (1 + val) / 2, s,
		     gt_mcts_root_score_stdev(e->m), s, s, nv);
		const gt_eval_raw *w = &e->root_raw;
		if (e->have_raw && w->st_wr_error >= 0)
			lput(e, " rawStWrError %.6f rawStScoreError %.6f", w->st_wr_error, w->st_score_error);
		if (e->have_raw && w->var_time_left >= 0)
			lput(e, " rawVarTimeLeft %.6f", w->var_time_left);
	}
	if (a->ownership) {
		float o[GT_MAX_PTS];
		gt_mcts_ownership(e->m, o);
		lput(e, " ownership");
		put_own(e, r, o);
	}
}

/* ---- search with reports ---- */

/* the begun search of e->m on e->threads threads (gt_mcts_start) up to its
 * visits (INT_MAX: until a command arrives) and budget seconds from t0;
 * with io, a line every a->interval (*shown set after one). The threads
 * run while this thread waits, reads the tree under its lock and polls
 * the input. Returns 0 or the search's error. */
static int search_threads(gt_engine *e, int visits, double budget, gt_gtp_io *io,
                          const an_args *a, double t0, int *shown)
{
	int err = gt_mcts_start(e->m, e->ev, e->threads);
	double next = t0 + (a ? a->interval : 0);
	while (!err) {
		double t = gt_now();
		if (!io) { /* genmove: until done or out of time */
			gt_mcts_wait(e->m, budget >= 0 ? t0 + budget - t : -1);
			break;
		}
		int fin = gt_mcts_wait(e->m, 0);
		if (visits != INT_MAX && (fin || (budget >= 0 && t - t0 >= budget)))
			break;
		if (t >= next) {
			gt_mcts_lock(e->m);
			int nv = gt_mcts_visits(e->m);
			if (nv > 0)
				build_line(e, a);
			gt_mcts_unlock(e->m);
			if (nv > 0) {
				if (e->len && gt_gtp_io_line(io, "%s", e->line))
					break;
				next = t + a->interval;
				*shown = 1;
			}
		}
		/* input is polled every 5 ms while the threads run (a command
		 * stops the search), waited for when they have ended */
		if (gt_gtp_io_wait(io, fin ? next - t : 0)) {
			/* as one thread, which steps once before it looks: a
			 * command stops the search once the root has a visit */
			gt_mcts_lock(e->m);
			int nv = gt_mcts_visits(e->m);
			gt_mcts_unlock(e->m);
			if (nv > 0 || fin)
				break;
		}
		if (!fin) {
			double dt = next - gt_now();
			gt_mcts_wait(e->m, dt < 0.005 ? (dt > 0 ? dt : 0) : 0.005);
		}
	}
	int r = gt_mcts_stop(e->m);
	return err ? err : r;
}

/* search from b for color up to `visits` root visits (INT_MAX: until
 * stopped) and budget seconds (-1: no limit); with io, report every
 * a->interval and stop when a command arrives. Returns 0 or an error. */
static int search(gt_engine *e, const gt_board *b, int color, int visits, double budget,
                  gt_gtp_io *io, const an_args *a)
{
	prepare(e, b, color);
	int mo = a && a->moves_own;
	if (mo) { /* per-move averages need the whole tree's visits: a new tree */
		gt_board *c = gt_xmalloc(sizeof *c);
		gt_board_copy(c, gt_mcts_root(e->m));
		gt_mcts_set_root(e->m, c);
		free(c);
	}
	gt_mcts_track_moves_ownership(e->m, mo);
	gt_mcts_set_avoid(e->m, a && a->has_avoid ? &a->avoid : NULL);
	int err = io && a->ownership ? seed_ownership(e) : 0;
	e->have_raw = 0;
	if (!err && a && a->root_info) {
		float lg[GT_MAX_PTS + 1], ow[GT_MAX_PTS];
		err = gt_evaluator_raw(e->ev, gt_mcts_root(e->m), lg, ow, &e->root_raw);
		e->have_raw = !err;
	}
	if (!err)
		err = gt_mcts_begin(e->m, visits, 0, NULL);
	double t0 = gt_now(), next = t0 + (a ? a->interval : 0);
	int shown = 0;
	if (!err && e->threads > 1)
		err = search_threads(e, visits, budget, io, a, t0, &shown);
	while (!err && e->threads <= 1) {
		int done = gt_mcts_done(e->m);
		if (!done) {
			int r = step(e, e->m);
			err = r < 0 ? r : 0;
		}
		double t = gt_now();
		if (visits != INT_MAX && (done || (budget >= 0 && t - t0 >= budget)))
			break;
		if (!io)
			continue;
		if (t >= next && gt_mcts_visits(e->m) > 0) {
			build_line(e, a);
			if (e->len && gt_gtp_io_line(io, "%s", e->line))
				break;
			next = t + a->interval;
			shown = 1;
		}
		if (gt_gtp_io_wait(io, done ? next - t : 0))
			break;
	}
	if (err) {
		e->has_root = 0;
		return err;
	}
	if (io && !shown && visits != INT_MAX && gt_mcts_visits(e->m) > 0) {
		build_line(e, a); /* a genmove shows its search at least once */
		if (e->len)
			gt_gtp_io_line(io, "%s", e->line);
	}
	return 0;
}

/* the summary of the search after a genmove to the log */
static void summary(gt_engine *e, int color, int move)
{
	if (!e->p.log)
		return;
	const gt_board *r = gt_mcts_root(e->m);
	char v[8];
	double s, val = gt_mcts_root_value(e->m, &s);
	int k = gt_mcts_analysis(e->m, e->info, e->p.pv_len);
	fprintf(e->p.log, "%s: genmove %s: %s  visits %d  winrate %.1f%%  scoreLead %+.1f  pv",
	        e->p.name, color == GT_WHITE ? "W" : "B",
	        move == GT_GTP_RESIGN ? "resign" : gt_vertex_str(r->n, move, v),
	        gt_mcts_visits(e->m), 50 * (1 + val), s);
	for (int j = 0; k > 0 && j < e->info[0].npv; j++)
		fprintf(e->p.log, " %s", gt_vertex_str(r->n, e->info[0].pv[j], v));
	fprintf(e->p.log, "\n");
	for (int i = 0; i < k && i < 5 && e->info[i].visits > 0; i++) {
		const gt_mcts_move_info *x = &e->info[i];
		fprintf(e->p.log, "%s:   %-4s visits %6d  winrate %5.1f%%  lcb %5.1f%%  prior %5.1f%%  scoreLead %+6.1f  pv",
		        e->p.name, gt_vertex_str(r->n, x->move, v), x->visits, 50 * (1 + x->value),
		        50 * (1 + x->lcb), 100 * x->prior, x->score);
		for (int j = 0; j < x->npv; j++)
			fprintf(e->p.log, " %s", gt_vertex_str(r->n, x->pv[j], v));
		fprintf(e->p.log, "\n");
	}
	fflush(e->p.log);
}

/* the move after a search (resign, or the most visited), the summary, and
 * the tree kept below it */
static int pick(gt_engine *e, int color, int *move)
{
	if (e->p.resign > 0 && gt_mcts_visits(e->m) > 0 &&
	    gt_mcts_root_value(e->m, NULL) < -e->p.resign) {
		summary(e, color, GT_GTP_RESIGN);
		*move = GT_GTP_RESIGN;
		return 0;
	}
	int mv = gt_mcts_choose(e->m, 0, NULL);
	if (mv < 0) {
		e->has_root = 0;
		return mv;
	}
	summary(e, color, mv);
	gt_mcts_advance(e->m, mv); /* the game plays it next: keep the tree */
	*move = mv;
	return 0;
}

/* the seconds a genmove may take: the time controls' budget (-1 none)
 * within max_time */
static double move_budget(const gt_engine *e, double budget_s)
{
	if (e->p.max_time > 0 && (budget_s < 0 || budget_s > e->p.max_time))
		return e->p.max_time;
	return budget_s;
}

static int genmove(void *user, const gt_board *b, int color, double budget_s, int *move)
{
	gt_engine *e = user;
	int err = search(e, b, color, e->p.visits, move_budget(e, budget_s), NULL, NULL);
	return err ? err : pick(e, color, move);
}

/* ---- analysis commands ---- */

/* avoid|allow COLOR V,V,... DEPTH (KataGo's GTP extensions) at argv[0..3]
 * into a; seen[c] counts avoid (1) and allow (2) keys per colour so far */
static int parse_avoid(gt_gtp_io *io, int n, char **argv, an_args *a, int *seen)
{
	int allow = argv[0][1] == 'l', color = gt_color_parse(argv[1]);
	char *end;
	long d = strtol(argv[3], &end, 10);
	if (color < 0 || end == argv[3] || *end || d < 1 || d > 1000000000)
		return gt_gtp_io_fail(io, "syntax error: %s %s %s %s", argv[0], argv[1], argv[2], argv[3]);
	int c = color == GT_WHITE;
	if ((allow && seen[c]) || (!allow && (seen[c] & 2)))
		return gt_gtp_io_fail(io, "syntax error: allow given twice or with avoid for %s", argv[1]);
	seen[c] |= allow ? 2 : 1;
	int *u = a->avoid.until[c];
	if (allow)
		for (int p = 0; p <= n * n; p++)
			u[p] = (int)d;
	for (char *s = argv[2], *t; *s; s = t) {
		char v[16];
		size_t k = strcspn(s, ",");
		t = s + k + (s[k] == ',');
		if (k == 0)
			continue;
		int pt = k < sizeof v ? (memcpy(v, s, k), v[k] = 0, gt_vertex_parse(n, v)) : GT_EFORMAT;
		if (pt < 0)
			return gt_gtp_io_fail(io, "syntax error: %s: bad vertex %.*s", argv[0], (int)(k < 16 ? k : 16), s);
		u[pt] = allow ? 0 : (int)d;
	}
	a->has_avoid = 1;
	return 0;
}

static int parse_args(gt_gtp_io *io, int kind, int n, int argc, char **argv, an_args *a)
{
	char *end;
	int i = 0, seen[2] = { 0, 0 };
	memset(a, 0, sizeof *a);
	a->kind = kind;
	a->interval = 1;
	a->maxmoves = INT_MAX;
	if (i < argc && gt_color_parse(argv[i]) > 0)
		a->color = gt_color_parse(argv[i++]);
	if (i < argc) {
		double t = strtod(argv[i], &end);
		if (end != argv[i] && !*end) {
			if (!(t >= 0 && t < 1e7))
				return gt_gtp_io_fail(io, "syntax error: interval %s", argv[i]);
			a->interval = t / 100;
			i++;
		}
	}
	for (; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			return gt_gtp_io_fail(io, "syntax error: %s without a value", k);
		if (!strcmp(k, "avoid") || !strcmp(k, "allow")) {
			if (i + 3 >= argc)
				return gt_gtp_io_fail(io, "syntax error: %s COLOR VERTICES UNTILDEPTH", k);
			if (parse_avoid(io, n, argv + i, a, seen))
				return -1;
			i += 2;
			continue;
		}
		int isbool = !strcmp(v, "true") || !strcmp(v, "false");
		long x = strtol(v, &end, 10);
		double t = strtod(v, &end);
		if (!strcmp(k, "interval") && end != v && !*end && t >= 0 && t < 1e7) {
			a->interval = t / 100;
		} else if ((!strcmp(k, "minmoves") || !strcmp(k, "maxmoves")) && end != v && !*end &&
		           x >= 0 && x < 1000000000 && t == (double)x) {
			*(k[1] == 'i' ? &a->minmoves : &a->maxmoves) = (int)x;
		} else if (kind != A_LZ && !strcmp(k, "ownership") && isbool) {
			a->ownership = v[0] == 't';
		} else if (kind != A_LZ && !strcmp(k, "rootInfo") && isbool) {
			a->root_info = v[0] == 't';
		} else if (kind != A_LZ && !strcmp(k, "pvVisits") && isbool) {
			a->pv_visits = v[0] == 't';
		} else if (kind != A_LZ && !strcmp(k, "pvEdgeVisits") && isbool) {
			a->pv_edge_visits = v[0] == 't';
		} else if (kind != A_LZ && !strcmp(k, "movesOwnership") && isbool) {
			a->moves_own = v[0] == 't';
		} else {
			return gt_gtp_io_fail(io, "syntax error: %s %s", k, v);
		}
	}
	if (a->interval < 0.01)
		a->interval = 0.01; /* a line per 10 ms at most */
	return 0;
}

static int analyze_kind(int kind, void *user, gt_gtp *g, int argc, char **argv, gt_gtp_io *io)
{
	gt_engine *e = user;
	an_args a;
	const gt_board *b = gt_gtp_board(g);
	if (parse_args(io, kind, b->n, argc, argv, &a))
		return -1;
	gt_gtp_io_begin(io);
	if (search(e, b, a.color ? a.color : b->to_move, INT_MAX, -1, io, &a))
		e->has_root = 0; /* the response ends empty: the search failed */
	return 0;
}

static int genmove_kind(int kind, void *user, gt_gtp *g, int argc, char **argv, gt_gtp_io *io)
{
	gt_engine *e = user;
	an_args a;
	char v[8];
	int move, err;
	if (parse_args(io, kind, gt_gtp_board(g)->n, argc, argv, &a))
		return -1;
	if (!a.color)
		return gt_gtp_io_fail(io, "syntax error: no colour");
	gt_gtp_io_begin(io);
	double budget = move_budget(e, gt_gtp_budget(g, a.color));
	err = search(e, gt_gtp_board(g), a.color, e->p.visits, budget, io, &a);
	if (!err)
		err = pick(e, a.color, &move);
	if (err)
		return 0; /* the response ends without a play line */
	if (move != GT_GTP_RESIGN && gt_gtp_play(g, a.color, move) != 0)
		return 0;
	gt_gtp_io_line(io, "play %s", move == GT_GTP_RESIGN ? "resign" :
	               gt_vertex_str(gt_gtp_board(g)->n, move, v));
	return 0;
}

#define KIND(fn, k) \
	static int fn##_##k(void *u, gt_gtp *g, int c, char **v, gt_gtp_io *io) \
	{ return fn(k, u, g, c, v, io); }
KIND(analyze_kind, A_LZ)
KIND(analyze_kind, A_KATA)
KIND(analyze_kind, A_SABAKI)
KIND(genmove_kind, A_LZ)
KIND(genmove_kind, A_KATA)
KIND(genmove_kind, A_SABAKI)

/* gt-ownership: GoGui's dboard of the ownership after a genmove's search
 * (Black's view, rows from the top) */
static int c_ownership(void *user, gt_gtp *g, int argc, char **argv, char *out, size_t size)
{
	gt_engine *e = user;
	const gt_board *b = gt_gtp_board(g);
	an_args a = { .kind = A_KATA, .interval = 1, .maxmoves = INT_MAX, .ownership = 1 };
	int err = search(e, b, b->to_move, e->p.visits, -1, NULL, &a);
	if (!err)
		err = seed_ownership(e);
	if (err) {
		snprintf(out, size, "search failed: %s", gt_strerror(err));
		return -1;
	}
	float o[GT_MAX_PTS];
	gt_mcts_ownership(e->m, o);
	size_t k = 0;
	out[0] = 0;
	for (int p = 0; p < b->npts && k < size; p++)
		k += (size_t)snprintf(out + k, size - k, "%s%.2f", p == 0 ? "" : p % b->n ? " " : "\n",
		                      o[p]);
	return 0;
}

/* ---- KataGo's commands ---- */

/* KataGo's symmetry k (its getSymLoc: flip x by bit 1, y by bit 0, then
 * transpose by bit 2) as gt's (sym.h) */
static const int kata_sym[GT_NSYM] = { 0, 7, 5, 2, 4, 1, 3, 6 };

/* dst = src with every stone and move moved by gt symmetry k (the same
 * game, turned): 0 or the error of a move (none for a legal game) */
static int sym_board(gt_board *dst, const gt_board *src, int k)
{
	int n = src->n, err = gt_board_init(dst, n, src->rules, src->komi);
	for (int p = 0; p < src->npts && !err; p++)
		if (src->setup[p] != GT_EMPTY)
			err = gt_board_setup(dst, src->setup[p], gt_sym_point(n, k, p));
	dst->max_moves = src->max_moves;
	gt_board_set_to_move(dst, src->setup_to_move);
	for (int i = 0; i < src->nmoves && !err; i++)
		err = gt_board_play(dst, src->hist_color[i], gt_sym_point(n, k, src->hist_move[i]));
	if (!err && dst->to_move != src->to_move)
		gt_board_set_to_move(dst, src->to_move);
	return err;
}

/* the position of the game for color to move (a finished game goes on as
 * a new start), in a new board */
static gt_board *position_for(const gt_board *b, int color)
{
	gt_board *c = gt_xmalloc(sizeof *c);
	if (gt_board_over(b))
		gt_score_board_from(c, b);
	else
		gt_board_copy(c, b);
	if (c->to_move != color)
		gt_board_set_to_move(c, color);
	return c;
}

/* one kata-raw-nn block of the position b under KataGo's symmetry ks */
static int raw_nn(gt_engine *e, const gt_board *b, int ks, char *out, size_t size, size_t *k)
{
	int n = b->n, np = b->npts, gs = kata_sym[ks];
	gt_board *t = gt_xmalloc(sizeof *t);
	float lg[GT_MAX_PTS + 1], ow[GT_MAX_PTS];
	gt_eval_raw r;
	int err = sym_board(t, b, gs);
	if (!err)
		err = gt_evaluator_raw(e->ev, t, lg, ow, &r);
	/* softmax over the legal moves of the turned board */
	double pr[GT_MAX_PTS + 1], mx = -INFINITY, sum = 0;
	for (int p = 0; !err && p <= np; p++) {
		pr[p] = p == np || gt_board_legal(t, t->to_move, p) == 0 ? lg[p] : NAN;
		if (!isnan(pr[p]) && pr[p] > mx)
			mx = pr[p];
	}
	for (int p = 0; !err && p <= np; p++)
		if (!isnan(pr[p]))
			sum += pr[p] = exp(pr[p] - mx);
	free(t);
	if (err)
		return err;
	double w = b->to_move == GT_WHITE ? 1 : -1; /* to White's view */
#define OUT(...) (*k += (size_t)snprintf(out + *k, *k < size ? size - *k : 0, __VA_ARGS__))
	OUT("%ssymmetry %d\nwhiteWin %.6f\nwhiteLoss %.6f\nnoResult %.6f\nwhiteLead %.3f\n"
	    "whiteScoreSelfplay %.3f\nwhiteScoreSelfplaySq %.3f\nvarTimeLeft %.3f\n"
	    "shorttermWinlossError %.3f\nshorttermScoreError %.3f\npolicy\n", *k ? "\n" : "", ks,
	    w > 0 ? r.win : r.loss, w > 0 ? r.loss : r.win, r.noresult, w * r.lead, w * r.score_mean,
	    r.score_mean_sq, r.var_time_left, r.st_wr_error, r.st_score_error);
	for (int p = 0; p < np; p++) {
		double q = pr[gt_sym_point(n, gs, p)];
		if (isnan(q))
			OUT("    NAN%s", (p + 1) % n ? " " : "\n");
		else
			OUT("%8.6f%s", q / sum, (p + 1) % n ? " " : "\n");
	}
	OUT("policyPass %8.6f\nwhiteOwnership\n", pr[np] / sum);
	for (int p = 0; p < np; p++)
		OUT("%9.7f%s", w * ow[gt_sym_point(n, gs, p)], (p + 1) % n ? " " : "\n");
#undef OUT
	return 0;
}

/* kata-raw-nn [COLOR] SYMMETRY [OPTIMISM]: the network's outputs for the
 * position (KataGo's format, White's view); OPTIMISM is accepted and
 * ignored (gt's networks have no optimistic policy) */
static int c_raw_nn(void *user, gt_gtp *g, int argc, char **argv, char *out, size_t size)
{
	gt_engine *e = user;
	const gt_board *b = gt_gtp_board(g);
	int i = 0, color = b->to_move, s0 = 0, s1 = GT_NSYM;
	char *end;
	if (i < argc && gt_color_parse(argv[i]) > 0)
		color = gt_color_parse(argv[i++]);
	int bad = i >= argc;
	if (!bad && strcmp(argv[i], "all") != 0) {
		long x = strtol(argv[i], &end, 10);
		bad = end == argv[i] || *end || x < 0 || x >= GT_NSYM;
		s0 = (int)x, s1 = s0 + 1;
	}
	i++;
	if (!bad && i < argc) {
		double opt = strtod(argv[i], &end);
		bad = end == argv[i] || *end || !(opt >= 0 && opt <= 1);
		i++;
	}
	if (bad || i != argc) {
		snprintf(out, size, "syntax error: kata-raw-nn [COLOR] SYMMETRY [OPTIMISM] (SYMMETRY 0-7 or all)");
		return -1;
	}
	gt_board *c = position_for(b, color);
	size_t k = 0;
	int err = 0;
	for (int ks = s0; ks < s1 && !err; ks++)
		err = raw_nn(e, c, ks, out, size, &k);
	free(c);
	if (err || k >= size) {
		snprintf(out, size, "kata-raw-nn failed: %s", err ? gt_strerror(err) : "answer too long");
		return -1;
	}
	return 0;
}

/* clear_cache: forget the search tree (KataGo: the tree and its cache) */
static int c_clear_cache(void *user, gt_gtp *g, int argc, char **argv, char *out, size_t size)
{
	gt_engine *e = user;
	e->has_root = 0;
	out[0] = 0;
	return 0;
}

/* the parameters of kata-get-param and kata-set-param: KataGo's names of
 * gt's search settings */
enum { P_INT, P_DBL, P_BOOL };
static const struct param {
	const char *name;
	int type;
	double lo, hi;
} params[] = {
	{ "maxVisits", P_INT, 1, 1e9 },
	{ "numSearchThreads", P_INT, 1, GT_ENGINE_MAX_THREADS },
	{ "cpuctExploration", P_DBL, 0, 100 },
	{ "cpuctExplorationLog", P_DBL, 0, 100 },
	{ "cpuctExplorationBase", P_DBL, 1, 1e9 },
	{ "fpuReductionMax", P_DBL, 0, 10 },
	{ "rootFpuReductionMax", P_DBL, 0, 10 },
	{ "useLcbForSelection", P_BOOL, 0, 1 },
	{ "minVisitPropForLCB", P_DBL, 0, 1 },
	{ "analysisPVLen", P_INT, 1, GT_MCTS_PV_MAX },
	{ "staticScoreUtilityFactor", P_DBL, 0, 1 },
	{ "dynamicScoreUtilityFactor", P_DBL, 0, 1 },
};
#define NPARAMS (int)(sizeof params / sizeof params[0])

/* the setting of parameter i */
static double *param_dbl(gt_engine *e, int i)
{
	double *d[] = { NULL, NULL, &e->mp.cpuct, &e->mp.cpuct_log, &e->mp.cpuct_base,
	                &e->mp.fpu_reduction, &e->mp.root_fpu_reduction, NULL, &e->mp.lcb_min_visits,
	                NULL, &e->mp.score_static, &e->mp.score_dynamic };
	return d[i];
}

static int *param_int(gt_engine *e, int i)
{
	int *d[] = { &e->p.visits, &e->threads, NULL, NULL, NULL, NULL, NULL, &e->mp.lcb_select, NULL,
	             &e->p.pv_len, NULL, NULL };
	return d[i];
}

static int find_param(const char *name)
{
	for (int i = 0; i < NPARAMS; i++)
		if (!strcmp(params[i].name, name))
			return i;
	return -1;
}

static int c_get_param(void *user, gt_gtp *g, int argc, char **argv, char *out, size_t size)
{
	gt_engine *e = user;
	int i = argc == 1 ? find_param(argv[0]) : -1;
	if (i < 0) {
		snprintf(out, size, argc == 1 ? "unknown parameter %.64s" : "syntax error", argv[0]);
		return -1;
	}
	if (params[i].type == P_DBL)
		snprintf(out, size, "%g", *param_dbl(e, i));
	else if (params[i].type == P_BOOL)
		snprintf(out, size, "%s", *param_int(e, i) ? "true" : "false");
	else
		snprintf(out, size, "%d", *param_int(e, i));
	return 0;
}

static int c_set_param(void *user, gt_gtp *g, int argc, char **argv, char *out, size_t size)
{
	gt_engine *e = user;
	int i = argc == 2 ? find_param(argv[0]) : -1;
	if (i < 0) {
		snprintf(out, size, argc == 2 ? "unknown parameter %.64s" : "syntax error", argv[0]);
		return -1;
	}
	const struct param *q = &params[i];
	char *end;
	double x = strtod(argv[1], &end);
	int bad = end == argv[1] || *end || !(x >= q->lo && x <= q->hi) ||
	          (q->type == P_INT && x != floor(x));
	if (q->type == P_BOOL) {
		bad = strcmp(argv[1], "true") && strcmp(argv[1], "false");
		x = argv[1][0] == 't';
	}
	if (!bad && q->type == P_INT && param_int(e, i) == &e->threads && x > e->p.threads) {
		snprintf(out, size, "numSearchThreads: %.64s is more than the %d evaluators opened"
		         " (gt-gtp --threads)", argv[1], e->p.threads);
		return -1;
	}
	if (bad) {
		snprintf(out, size, "%s: %.64s is not %s in %g..%g", q->name, argv[1],
		         q->type == P_BOOL ? "true or false, or" : q->type == P_INT ? "an integer" :
		         "a number", q->lo, q->hi);
		return -1;
	}
	if (q->type == P_DBL)
		*param_dbl(e, i) = x;
	else
		*param_int(e, i) = (int)x;
	/* new searches with the new settings (the trees are dropped) */
	new_searches(e);
	e->has_root = 0;
	out[0] = 0;
	return 0;
}

static int c_list_params(void *user, gt_gtp *g, int argc, char **argv, char *out, size_t size)
{
	size_t k = 0;
	out[0] = 0;
	for (int i = 0; i < NPARAMS && k < size; i++)
		k += (size_t)snprintf(out + k, size - k, "%s%s", i ? " " : "", params[i].name);
	return 0;
}

/* ---- dead stones ---- */

static int status(void *user, const gt_board *b, uint8_t *st)
{
	gt_engine *e = user;
	float po[GT_MAX_PTS], so[GT_MAX_PTS];
	int err = gt_score_playouts(b, gt_score_default_playouts(b->n), b->hash ^ 0x5ca1ab1e, po);
	if (!err && !e->network) {
		gt_score_status(b, po, NULL, st);
		return 0;
	}
	gt_board *c = gt_xmalloc(sizeof *c);
	if (!err)
		err = gt_score_board_from(c, b);
	if (!err)
		err = gt_mcts_set_root(e->sm, c);
	free(c);
	if (!err)
		err = gt_mcts_begin(e->sm, e->p.visits > 100 ? e->p.visits : 100, 0, NULL);
	if (!err && e->threads > 1 && !(err = gt_mcts_start(e->sm, e->ev, e->threads))) {
		gt_mcts_wait(e->sm, -1);
		err = gt_mcts_stop(e->sm);
	}
	for (int r = 1; !err && r > 0 && e->threads <= 1;)
		err = (r = step(e, e->sm)) < 0 ? r : 0;
	if (!err) {
		gt_mcts_ownership(e->sm, so);
		gt_score_status(b, so, po, st);
	}
	return err;
}

int gt_engine_attach(gt_engine *e, gt_gtp *g)
{
	static const struct {
		const char *name;
		gt_gtp_stream_fn fn;
	} cmds[] = {
		{ "lz-analyze", analyze_kind_A_LZ },
		{ "lz-genmove_analyze", genmove_kind_A_LZ },
		{ "kata-analyze", analyze_kind_A_KATA },
		{ "kata-genmove_analyze", genmove_kind_A_KATA },
		{ "analyze", analyze_kind_A_SABAKI },
		{ "genmove_analyze", genmove_kind_A_SABAKI },
	};
	gt_gtp_set_genmove(g, genmove, e);
	gt_gtp_set_status(g, status, e);
	gt_gtp_set_max_size(g, gt_neteval_max_n(e->ev));
	int err = 0;
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0] && !err; i++)
		err = gt_gtp_register_stream(g, cmds[i].name, cmds[i].fn, e);
	static const struct {
		const char *name;
		gt_gtp_command_fn fn;
	} plain[] = {
		{ "gt-ownership", c_ownership },
		{ "kata-raw-nn", c_raw_nn },
		{ "clear_cache", c_clear_cache },
		{ "kata-get-param", c_get_param },
		{ "kata-set-param", c_set_param },
		{ "kata-list-params", c_list_params },
	};
	for (size_t i = 0; i < sizeof plain / sizeof plain[0] && !err; i++)
		err = gt_gtp_register(g, plain[i].name, plain[i].fn, e);
	if (!err)
		err = gt_gtp_add_analyze(g, "dboard/Ownership/gt-ownership");
	return err;
}
