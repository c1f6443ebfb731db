/* selfplay.c: many games in flight per thread, their searches' leaves
 * evaluated together; finished records handed out in game order. */
#include "selfplay.h"
#include "evcache.h"
#include "neteval.h"
#include "fs.h"
#include "sgfrec.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void gt_selfplay_params_default(gt_selfplay_params *p)
{
	*p = (gt_selfplay_params){ .board_size = 9, .rules = gt_rules_find("chinese"), .komi = 7,
	                           .max_moves = 0, .visits = 100, .cheap_visits = 25,
	                           .full_prob = 0.25, .temp_early = 0.75, .temp_final = 0.15,
	                           .temp_halflife = 19, .parallel_games = 16, .threads = 1,
	                           .games = 1, .seed = 0, .model = "none", .worker = NULL,
	                           .backend = "cpu", .exact = 0,
	                           .cache_bytes = (size_t)64 << 20 };
	gt_mcts_params_default(&p->search);
	p->search.leaves = 1;
	p->search.pass_from = -1; /* n*n/2 once the board size is known */
}

int gt_selfplay_max_moves(const gt_selfplay_params *p)
{
	return p->max_moves > 0 ? p->max_moves : 2 * p->board_size * p->board_size;
}

int gt_selfplay_check(const gt_selfplay_params *p, gt_error *e)
{
	const char *why = NULL;
	int n = p->board_size;
	if (n < 2 || n > GT_MAX_N)
		why = "board size must be 2..19";
	else if (!p->rules)
		why = "no rules";
	else if (!isfinite(p->komi) || fabs(p->komi) > n * n || p->komi * 2 != floor(p->komi * 2))
		return gt_error_set(e, GT_EINVAL, -1, -1, "komi %g is not a multiple of 0.5 within "
		                    "+-%d, the points of a %dx%d board (gt-validate refuses such "
		                    "games): give --komi", p->komi, n * n, n, n);
	else if (gt_selfplay_max_moves(p) > GT_MAX_HIST - 2)
		why = "move cap above the board's history";
	else if (p->visits < 1 || p->cheap_visits < 1)
		why = "visits must be at least 1";
	else if (!(p->full_prob >= 0 && p->full_prob <= 1))
		why = "full-search probability must be in [0, 1]";
	else if (!(p->temp_early >= 0 && p->temp_final >= 0 && p->temp_halflife > 0))
		why = "bad temperature schedule";
	else if (p->parallel_games < 1 || p->threads < 1 || p->games < 0)
		why = "parallel games and threads must be at least 1";
	else if (p->search.leaves < 1)
		why = "leaves must be at least 1";
	if (why)
		return gt_error_set(e, GT_EINVAL, -1, -1, "%s", why);
	return 0;
}

double gt_selfplay_temperature(const gt_selfplay_params *p, int m)
{
	double halflives = m / (p->temp_halflife * p->board_size / 19.0);
	return p->temp_final + (p->temp_early - p->temp_final) * pow(0.5, halflives);
}

/* ---- one game ---- */

typedef struct game {
	gt_mcts *m;
	gt_rng rng;
	long index;
	uint64_t id;
	int active, full;
	int nmoves, cap;
	int16_t *moves;
	gt_position *pos;
	int off, nleaf;   /* this round's slice of the batch */
} game;

static void game_begin_search(const gt_selfplay_params *p, game *g)
{
	g->full = gt_rng_uniform(&g->rng) < p->full_prob;
	gt_mcts_begin(g->m, g->full ? p->visits : p->cheap_visits, g->full, &g->rng);
}

static void game_start(const gt_selfplay_params *p, game *g, long index)
{
	gt_board b;
	gt_board_init(&b, p->board_size, p->rules, p->komi);
	b.max_moves = gt_selfplay_max_moves(p);
	g->index = index;
	gt_rng_seed_stream(&g->rng, p->seed, (uint64_t)index);
	g->id = gt_rng_next(&g->rng);
	g->nmoves = 0;
	g->active = 1;
	gt_mcts_set_root(g->m, &b);
	game_begin_search(p, g);
}

static void game_drop(game *g)
{
	for (int i = 0; i < g->nmoves; i++) {
		free(g->pos[i].policy);
		g->pos[i].policy = NULL;
	}
	g->nmoves = 0;
	g->active = 0;
}

void gt_selfplay_record_free(gt_record *r)
{
	gt_free_all(r->model, r->worker, r->game_id, r->moves, r->colors, r->ownership, r->boards);
	for (int i = 0; i < r->npos; i++)
		free(r->pos[i].policy);
	free(r->pos);
	memset(r, 0, sizeof *r);
}

/* game_record: move the finished game into r (the game's buffers are
 * handed over) and score it. */
static void game_record(const gt_selfplay_params *p, game *g, gt_record *r)
{
	const gt_board *b = gt_mcts_root(g->m);
	int n = p->board_size;
	memset(r, 0, sizeof *r);
	r->version = GT_RECORD_VERSION;
	snprintf(r->rules, sizeof r->rules, "%s", p->rules->name);
	r->komi = p->komi;
	r->board_size = n;
	r->model = p->model ? gt_xstrdup(p->model) : NULL;
	r->worker = p->worker ? gt_xstrdup(p->worker) : NULL;
	char id[17];
	snprintf(id, sizeof id, "%016llx", (unsigned long long)g->id);
	r->game_id = gt_xstrdup(id);
	r->seed = p->seed;
	r->first_to_move = GT_BLACK;
	r->nmoves = g->nmoves;
	r->moves = gt_xmalloc((g->nmoves ? g->nmoves : 1) * sizeof *r->moves);
	r->colors = gt_xmalloc(g->nmoves ? g->nmoves : 1);
	for (int i = 0; i < g->nmoves; i++) {
		r->moves[i] = g->moves[i];
		r->colors[i] = g->pos[i].to_move;
	}
	r->ownership = gt_xmalloc(n * n * sizeof *r->ownership);
	double a = gt_board_area(b, r->ownership);
	r->score = a;
	r->score_checkable = 1;
	if (a > 0) {
		r->winner = GT_WIN_BLACK;
		snprintf(r->result, sizeof r->result, "B+%g", a);
	} else if (a < 0) {
		r->winner = GT_WIN_WHITE;
		snprintf(r->result, sizeof r->result, "W+%g", -a);
	} else {
		r->winner = GT_WIN_DRAW;
		snprintf(r->result, sizeof r->result, "0");
	}
	r->npos = g->nmoves;
	r->pos = gt_xmalloc((g->nmoves ? g->nmoves : 1) * sizeof *r->pos);
	for (int i = 0; i < g->nmoves; i++) {
		gt_position *ps = &r->pos[i];
		*ps = g->pos[i];
		g->pos[i].policy = NULL;
		double s = ps->to_move == GT_BLACK ? a : -a;
		ps->score = (float)s;
		ps->value = s > 0 ? 1.0f : s < 0 ? -1.0f : 0.0f;
	}
	g->nmoves = 0;
	g->active = 0;
}

/* game_move: the search at the root is done: record the position, choose
 * and play the move. Returns 1 when the game has ended, 0 to go on, or an
 * error. */
static int game_move(const gt_selfplay_params *p, game *g)
{
	const gt_board *b = gt_mcts_root(g->m);
	int np = b->npts + 1;
	if (g->nmoves == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 128;
		g->moves = gt_xrealloc(g->moves, g->cap * sizeof *g->moves);
		g->pos = gt_xrealloc(g->pos, g->cap * sizeof *g->pos);
	}
	gt_position *ps = &g->pos[g->nmoves];
	memset(ps, 0, sizeof *ps);
	ps->move_number = b->nmoves;
	ps->to_move = b->to_move;
	ps->visits = gt_mcts_visits(g->m);
	ps->full_search = g->full;
	ps->weight = 1;
	if (ps->visits > 0) { /* the search's own evaluation, for SGF comments */
		double sc;
		ps->root_value = (float)gt_mcts_root_value(g->m, &sc);
		ps->root_score = (float)sc;
		ps->has_root = 1;
	}
	if (g->full) {
		ps->policy = gt_xmalloc(np * sizeof *ps->policy);
		gt_mcts_policy(g->m, ps->policy);
	}
	int mv = gt_mcts_choose(g->m, gt_selfplay_temperature(p, b->nmoves), &g->rng);
	if (mv < 0) {
		free(ps->policy);
		return mv;
	}
	g->moves[g->nmoves++] = (int16_t)mv;
	int err = gt_mcts_advance(g->m, mv);
	if (err)
		return err;
	const gt_board *nb = gt_mcts_root(g->m);
	if (!gt_board_over(nb)) {
		game_begin_search(p, g);
		return 0;
	}
	/* Ended by the move cap: the players pass (without a search, visits 0)
	 * so that the record ends by two passes and its area score can be
	 * checked. The passes are not played on the capped board; they change
	 * nothing on it. */
	for (int k = nb->passes, c = nb->to_move; k < 2; k++, c = GT_OTHER(c)) {
		if (g->nmoves == g->cap) {
			g->cap *= 2;
			g->moves = gt_xrealloc(g->moves, g->cap * sizeof *g->moves);
			g->pos = gt_xrealloc(g->pos, g->cap * sizeof *g->pos);
		}
		ps = &g->pos[g->nmoves];
		memset(ps, 0, sizeof *ps);
		ps->move_number = g->nmoves;
		ps->to_move = c;
		ps->weight = 1;
		g->moves[g->nmoves++] = (int16_t)GT_PASS(nb->n);
	}
	return 1;
}

/* ---- the run ---- */

typedef struct pending {
	long index;
	gt_record r;
} pending;

typedef struct shared {
	const gt_selfplay_params *p;
	const gt_evaluator *evs;   /* one per thread */
	gt_selfplay_sink sink;
	void *ctx;
	volatile sig_atomic_t *stop;
	pthread_mutex_t mu;
	long next_game, next_out;
	pending *pend;
	int npend, cap;
	atomic_int abort;
	atomic_llong evals, calls, played;
	gt_record *keep;  /* gt_selfplay_game: move the record here */
	int err;
	gt_selfplay_stats st;
} shared;

static int stopping(shared *sh)
{
	return atomic_load(&sh->abort) || (sh->stop && *sh->stop);
}

static void fail(shared *sh, int err)
{
	pthread_mutex_lock(&sh->mu);
	if (!sh->err)
		sh->err = err;
	pthread_mutex_unlock(&sh->mu);
	atomic_store(&sh->abort, 1);
}

static long take_game(shared *sh)
{
	long i = -1;
	pthread_mutex_lock(&sh->mu);
	if (!stopping(sh) && sh->next_game < sh->p->games)
		i = sh->next_game++;
	pthread_mutex_unlock(&sh->mu);
	return i;
}

/* hand out pending records, in order; all of them when `all` (after a stop).
 * Called with the lock held. */
static void flush(shared *sh, int all)
{
	for (;;) {
		int k = -1;
		for (int i = 0; i < sh->npend; i++) {
			long x = sh->pend[i].index;
			if (x == sh->next_out || (all && (k < 0 || x < sh->pend[k].index)))
				k = i;
			if (x == sh->next_out)
				break;
		}
		if (k < 0)
			return;
		pending pd = sh->pend[k];
		sh->pend[k] = sh->pend[--sh->npend];
		sh->next_out = pd.index + 1;
		if (sh->keep && !sh->err) {
			*sh->keep = pd.r; /* gt_selfplay_game takes it */
			sh->keep = NULL;
			continue;
		}
		if (!sh->err) {
			sh->st.games++;
			sh->st.evals = atomic_load(&sh->evals);
			sh->st.eval_calls = atomic_load(&sh->calls);
			sh->st.played = atomic_load(&sh->played);
			int r = sh->sink ? sh->sink(sh->ctx, pd.index, &pd.r, &sh->st) : 0;
			if (r) {
				sh->err = r;
				atomic_store(&sh->abort, 1);
			}
		}
		gt_selfplay_record_free(&pd.r);
	}
}

static void finish_game(shared *sh, const gt_selfplay_params *p, game *g)
{
	pending pd;
	pd.index = g->index;
	game_record(p, g, &pd.r);
	pthread_mutex_lock(&sh->mu);
	GT_GROW(sh->pend, sh->npend + 1, sh->cap, 16);
	sh->pend[sh->npend++] = pd;
	sh->st.moves += pd.r.nmoves;
	flush(sh, 0);
	pthread_mutex_unlock(&sh->mu);
}

/* settle: play the moves whose searches are done; end the game if over. */
static int settle(shared *sh, const gt_selfplay_params *p, game *g)
{
	while (g->active && gt_mcts_done(g->m)) {
		int r = game_move(p, g);
		if (r < 0)
			return r;
		atomic_fetch_add(&sh->played, 1);
		if (r == 1)
			finish_game(sh, p, g);
	}
	return 0;
}

typedef struct worker {
	shared *sh;
	int t;
} worker;

static void *work(void *arg)
{
	worker *w = arg;
	shared *sh = w->sh;
	const gt_selfplay_params *p = sh->p;
	const gt_evaluator *ev = &sh->evs[w->t];
	int ng = p->parallel_games, n = p->board_size;
	size_t stride = (size_t)n * n + 1, cap = (size_t)ng * p->search.leaves;
	game *gs = gt_xcalloc(ng, sizeof *gs);
	gt_mcts_params sp = p->search;
	if (sp.pass_from < 0) /* no pass in the first half of n*n moves */
		sp.pass_from = n * n / 2;
	for (int j = 0; j < ng; j++)
		gs[j].m = gt_mcts_new(&sp);
	const gt_board **boards = gt_xmalloc(cap * sizeof *boards);
	float *logits = gt_xmalloc(cap * stride * sizeof *logits);
	float *value = gt_xmalloc(cap * sizeof *value);
	float *score = gt_xmalloc(cap * sizeof *score);
	int err = 0, more = 1;
	while (!err) {
		int total = 0, active = 0;
		for (int j = 0; j < ng && !err; j++) {
			game *g = &gs[j];
			while (!g->active && more) {
				long i = take_game(sh);
				if (i < 0) {
					more = 0;
					break;
				}
				game_start(p, g, i);
				err = settle(sh, p, g);
			}
			if (!g->active || err)
				continue;
			active++;
			int k = gt_mcts_collect(g->m, 0, boards + total);
			if (k < 0) {
				err = k;
				break;
			}
			g->off = total;
			g->nleaf = k;
			total += k;
		}
		if (err || !active || stopping(sh))
			break;
		if (total > 0) { /* every leaf may have been a finished game */
			memset(score, 0, total * sizeof *score);
			err = ev->eval(ev->ctx, n, total, boards, logits, value, score, NULL);
			atomic_fetch_add(&sh->evals, total);
			atomic_fetch_add(&sh->calls, 1);
		}
		for (int j = 0; j < ng && !err; j++) {
			game *g = &gs[j];
			if (!g->active)
				continue;
			if (g->nleaf)
				err = gt_mcts_apply(g->m, logits + g->off * stride, value + g->off,
				                    score + g->off);
			g->nleaf = 0;
			if (!err)
				err = settle(sh, p, g);
		}
	}
	if (err)
		fail(sh, err);
	long dropped = 0;
	for (int j = 0; j < ng; j++) {
		if (gs[j].active) {
			dropped++;
			game_drop(&gs[j]);
		}
		gt_mcts_free(gs[j].m);
		free(gs[j].moves);
		free(gs[j].pos);
	}
	pthread_mutex_lock(&sh->mu);
	sh->st.dropped += dropped;
	pthread_mutex_unlock(&sh->mu);
	gt_free_all(gs, boards, logits, value, score);
	return NULL;
}

/* shared_init: a run's shared state for p and its evaluators, nothing
 * played; shared_end: the games still pending handed out, the state
 * released (sh.err and the counters kept). */
static void shared_init(shared *sh, const gt_selfplay_params *p, const gt_evaluator *evs)
{
	memset(sh, 0, sizeof *sh);
	sh->p = p;
	sh->evs = evs;
	atomic_init(&sh->abort, 0);
	atomic_init(&sh->evals, 0);
	atomic_init(&sh->calls, 0);
	atomic_init(&sh->played, 0);
	pthread_mutex_init(&sh->mu, NULL);
}

static void shared_end(shared *sh)
{
	pthread_mutex_lock(&sh->mu);
	flush(sh, 1);
	pthread_mutex_unlock(&sh->mu);
	pthread_mutex_destroy(&sh->mu);
	free(sh->pend);
	sh->pend = NULL;
}

int gt_selfplay_run(const gt_selfplay_params *p, const gt_evaluator *evals,
                    gt_selfplay_sink sink, void *ctx,
                    volatile sig_atomic_t *stop, gt_selfplay_stats *st)
{
	int err = gt_selfplay_check(p, NULL);
	if (err)
		return err;
	shared sh;
	shared_init(&sh, p, evals);
	sh.sink = sink;
	sh.ctx = ctx;
	sh.stop = stop;
	worker *ws = gt_xcalloc(p->threads, sizeof *ws);
	pthread_t *tid = gt_xcalloc(p->threads, sizeof *tid);
	int started = 0;
	for (int t = 0; t < p->threads; t++) {
		ws[t].sh = &sh;
		ws[t].t = t;
	}
	for (int t = 1; t < p->threads; t++) {
		if (pthread_create(&tid[t], NULL, work, &ws[t]) != 0) {
			/* fewer threads: the games are shared out dynamically */
			break;
		}
		started = t;
	}
	work(&ws[0]);
	for (int t = 1; t <= started; t++)
		pthread_join(tid[t], NULL);
	shared_end(&sh);
	if (st) {
		*st = sh.st;
		st->evals = atomic_load(&sh.evals);
		st->eval_calls = atomic_load(&sh.calls);
		st->played = atomic_load(&sh.played);
	}
	free(ws);
	free(tid);
	return sh.err;
}

int gt_selfplay_game(const gt_selfplay_params *p, const gt_evaluator *ev, long index,
                     gt_record *r)
{
	gt_selfplay_params q = *p;
	q.threads = 1;
	q.parallel_games = 1;
	q.games = index + 1;
	int err = gt_selfplay_check(&q, NULL);
	if (err || index < 0)
		return err ? err : GT_EINVAL;
	/* game i depends only on (seed, i): start the run at i */
	shared sh;
	shared_init(&sh, &q, ev);
	sh.next_game = sh.next_out = index;
	memset(r, 0, sizeof *r);
	sh.keep = r;
	worker w = { &sh, 0 };
	work(&w);
	shared_end(&sh);
	if (!sh.err && sh.keep)
		sh.err = GT_EINVAL;
	return sh.err;
}

int gt_selfplay_model_open(const gt_selfplay_params *p, const char *path, gt_evaluator *ev,
                           char *name, size_t size, const char **backend, int *prec,
                           const char **why, gt_error *e)
{
	int r = gt_neteval_open_file(path, p->backend, ev, name, size, e);
	if (r)
		return r;
	const char *be = gt_neteval_backend(ev);
	if (backend)
		*backend = be ? be : "";
	int pr = gt_neteval_precision(ev, p->precision, why);
	if (prec)
		*prec = pr < 0 ? GT_PREC_FP32 : pr;
	if (!be)
		return 0;
	/* --deterministic: batch 1 everywhere; otherwise outputs depend on
	 * the batch already, and the convolutions may follow it too */
	if (p->exact)
		gt_neteval_set_exact(ev, 1);
	else
		gt_neteval_conv_batch(ev, 1);
	return gt_evcache_wrap(ev, p->cache_bytes / (p->threads > 0 ? p->threads : 1));
}

int gt_selfplay_sgf(const gt_record *r, gt_sgf_game *g)
{
	int err = gt_sgfrec_from_record(r, g, NULL);
	if (err)
		return err;
	char who[300];
	snprintf(who, sizeof who, "%s (gt %s)", r->model ? r->model : "none", GT_VERSION);
	gt_sgf_prop_set(g, "PB", who, strlen(who));
	gt_sgf_prop_set(g, "PW", who, strlen(who));
	gt_sgfrec_set_date(g, time(NULL));
	return 0;
}

int gt_selfplay_sgf_write(const char *dir, const gt_record *r, gt_error *e)
{
	const char *id = r->game_id;
	if (!id || !*id || strspn(id, "0123456789abcdefABCDEF") != strlen(id) || strlen(id) > 64)
		return gt_error_set(e, GT_EINVAL, -1, -1, "record without a usable game id");
	gt_sgf_game g;
	int err = gt_selfplay_sgf(r, &g);
	if (err)
		return gt_error_set(e, err, -1, -1, "game %s: %s", id, gt_strerror(err));
	size_t len;
	char *text = gt_sgf_write_str(&g, &len);
	gt_sgf_game_release(&g);
	size_t dl = strlen(dir);
	char *path = gt_xmalloc(dl + 80);
	snprintf(path, dl + 80, "%s/%s.sgf", dir, id);
	err = gt_fs_write_atomic(path, text, len, e);
	int saved = errno;
	free(text);
	free(path);
	errno = saved;
	return err;
}
