/* engine.c: gt-gtp's search: genmove, analysis, dead stones (engine.h). */
#include "engine.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "neteval.h"
#include "score.h"
#include "util.h"

enum { A_LZ = 1, A_KATA, A_SABAKI };

/* the arguments of an analysis command */
typedef struct an_args {
	int kind;          /* A_* */
	int color;         /* analyse for this colour; 0: the side to move */
	double interval;   /* seconds between lines */
	int minmoves, maxmoves;
	int ownership, root_info;
} an_args;

struct gt_engine {
	gt_engine_params p;
	gt_evaluator ev;
	int network;       /* the evaluator has an ownership head */
	gt_mcts *m;        /* the game's search (its tree is kept) */
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
	p->log = NULL;
	p->name = "gt-gtp";
}

gt_engine *gt_engine_new(const gt_engine_params *p, gt_evaluator *ev)
{
	gt_engine *e = gt_xcalloc(1, sizeof *e);
	e->p = *p;
	if (e->p.pv_len < 1)
		e->p.pv_len = 1;
	e->ev = *ev;
	memset(ev, 0, sizeof *ev);
	e->network = gt_neteval_backend(&e->ev) != NULL;
	e->cap = 4096;
	e->line = gt_xmalloc(e->cap);
	gt_mcts_params mp;
	gt_mcts_params_default(&mp);
	mp.leaves = 1; /* as gt-elo: the same search, move for move */
	e->m = gt_mcts_new(&mp);
	gt_mcts_track_ownership(e->m, 1);
	mp.pass_from = INT_MAX; /* the status search plays the game out */
	e->sm = gt_mcts_new(&mp);
	gt_mcts_track_ownership(e->sm, 1);
	return e;
}

void gt_engine_free(gt_engine *e)
{
	if (!e)
		return;
	gt_mcts_free(e->m);
	gt_mcts_free(e->sm);
	gt_evaluator_close(&e->ev);
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
	int err = e->ev.eval(e->ev.ctx, n, k, e->boards, e->logits, e->value, e->score, e->own);
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
	int err = e->ev.eval(e->ev.ctx, r->n, 1, &r, e->logits, e->value, e->score, e->own);
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

/* the line of the moves searched so far (and ownership), in e->line */
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
		lput(e, "%sinfo move %s visits %d", shown++ ? " " : "", gt_vertex_str(r->n, x->move, v),
		     x->visits);
		if (a->kind == A_LZ) {
			lcb = lcb < 0 ? 0 : lcb > 1 ? 1 : lcb;
			lput(e, " winrate %d prior %d lcb %d", (int)lround(wr * 10000),
			     (int)lround(x->prior * 10000), (int)lround(lcb * 10000));
		} else {
			lput(e, " edgeVisits %d winrate %.6f scoreMean %.6f scoreLead %.6f scoreSelfplay %.6f"
			     " prior %.6f lcb %.6f", x->visits, wr, x->score, x->score, x->score, x->prior, lcb);
		}
		lput(e, " order %d pv", x->order);
		for (int j = 0; j < x->npv; j++)
			lput(e, " %s", gt_vertex_str(r->n, x->pv[j], v));
	}
	if (a->root_info) {
		double s, val = gt_mcts_root_value(e->m, &s);
		lput(e, " rootInfo visits %d winrate %.6f scoreMean %.6f scoreLead %.6f scoreSelfplay %.6f",
		     gt_mcts_visits(e->m), (1 + val) / 2, s, s, s);
	}
	if (a->ownership) {
		float o[GT_MAX_PTS];
		gt_mcts_ownership(e->m, o);
		double sg = r->to_move == GT_WHITE ? -1 : 1; /* the side to move's view */
		lput(e, " ownership");
		for (int p = 0; p < r->npts; p++)
			lput(e, " %.6f", sg * o[p]);
	}
}

/* ---- search with reports ---- */

/* search from b for color up to `visits` root visits (INT_MAX: until
 * stopped) and budget seconds (-1: no limit); with io, report every
 * a->interval and stop when a command arrives. Returns 0 or an error. */
static int search(gt_engine *e, const gt_board *b, int color, int visits, double budget,
                  gt_gtp_io *io, const an_args *a)
{
	prepare(e, b, color);
	int err = io && a->ownership ? seed_ownership(e) : 0;
	if (!err)
		err = gt_mcts_begin(e->m, visits, 0, NULL);
	double t0 = gt_now(), next = t0 + (a ? a->interval : 0);
	int shown = 0;
	while (!err) {
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

static int genmove(void *user, const gt_board *b, int color, double budget_s, int *move)
{
	gt_engine *e = user;
	int err = search(e, b, color, e->p.visits, budget_s, NULL, NULL);
	return err ? err : pick(e, color, move);
}

/* ---- analysis commands ---- */

static int parse_args(gt_gtp_io *io, int kind, int argc, char **argv, an_args *a)
{
	char *end;
	int i = 0;
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
	if (parse_args(io, kind, argc, argv, &a))
		return -1;
	const gt_board *b = gt_gtp_board(g);
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
	if (parse_args(io, kind, argc, argv, &a))
		return -1;
	if (!a.color)
		return gt_gtp_io_fail(io, "syntax error: no colour");
	gt_gtp_io_begin(io);
	err = search(e, gt_gtp_board(g), a.color, e->p.visits, gt_gtp_budget(g, a.color), io, &a);
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
	an_args a = { A_KATA, 0, 1, 0, INT_MAX, 1, 0 };
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
	for (int r = 1; !err && r > 0;)
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
	gt_gtp_set_max_size(g, gt_neteval_max_n(&e->ev));
	int err = 0;
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0] && !err; i++)
		err = gt_gtp_register_stream(g, cmds[i].name, cmds[i].fn, e);
	if (!err)
		err = gt_gtp_register(g, "gt-ownership", c_ownership, e);
	if (!err)
		err = gt_gtp_add_analyze(g, "dboard/Ownership/gt-ownership");
	return err;
}
