/*
 * selfplay: self-play throughput on 9x9 at gt-selfplay's defaults (200
 * full / 50 cheap visits, p = 0.25, one leaf per game and call).
 *
 * 1. --model none, one thread: the cost of search and bookkeeping per
 *    visit, with the uniform evaluator's time taken out; reference in the
 *    same run: light random playout moves per second.
 * 2. A random b6c64 network on T threads (default 2) with G games in
 *    flight each (default 8), no evaluation cache: network evaluations per
 *    second, mean batch, moves per second and games per hour (moves per
 *    second over the mean length of the games finished), with the time in
 *    the forward pass, in the features and in the rest (search and
 *    bookkeeping) measured per thread. Reference in the same run: T
 *    threads each calling gt_nn_forward alone at the mean batch size
 *    reached; the ratio of the two rates is the share of the time the
 *    network gets in self-play.
 * Games in flight finish together about G x T x (evaluations per game,
 * about 5,300) / (evaluations per second) after the start: about 50 s on
 * two unshared cores with the defaults (T 2, G 8), several times that on
 * a loaded machine; games/hour needs finished games, so give a longer run
 * (480 s gave 42 games) for a figure to trust. Default 120 s.
 * Usage: selfplay [seconds-of-network-self-play [threads [games-in-flight]]]
 */
#include "bench.h"
#include "board.h"
#include "feat.h"
#include "gt.h"
#include "mcts.h"
#include "model.h"
#include "nn.h"
#include "selfplay.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- 1. search cost with the uniform evaluator ---- */

typedef struct timed {
	gt_evaluator inner;
	double secs;
} timed;

static int timed_eval(void *ctx, int n, int nb, const gt_board *const *boards, float *logits,
                      float *value, float *score, float *own)
{
	timed *t = ctx;
	double t0 = gt_now();
	int r = t->inner.eval(t->inner.ctx, n, nb, boards, logits, value, score, own);
	t->secs += gt_now() - t0;
	return r;
}

typedef struct tally {
	long games;
	long long moves;
	double deadline;
	volatile sig_atomic_t *stop;
} tally;

static int sink(void *ctx, long index, const gt_record *r, const gt_selfplay_stats *st)
{
	tally *t = ctx;
	(void)index, (void)st;
	t->games++;
	t->moves += r->nmoves;
	return 0;
}

/* stops a run at the deadline */
static void *watch(void *arg)
{
	tally *t = arg;
	while (!*t->stop && gt_now() < t->deadline) {
		struct timespec d = { 0, 50000000 };
		nanosleep(&d, NULL);
	}
	*t->stop = 1;
	return NULL;
}

/* light random playout moves per second (uniform legal non-eye-filling) */
static double playout_moves_per_sec(double secs)
{
	gt_board *b = gt_xmalloc(sizeof *b), *root = gt_xmalloc(sizeof *root);
	gt_board_init(root, 9, gt_rules_find("tromp-taylor"), 7.5);
	gt_rng r;
	gt_rng_seed(&r, 1);
	long moves = 0;
	double t0 = gt_now(), t;
	int16_t cand[GT_MAX_PTS];
	do {
		for (int k = 0; k < 50; k++) {
			gt_board_copy(b, root);
			while (!gt_board_over(b)) {
				int c = b->to_move, n = b->n, mv = GT_PASS(n), cnt = b->nempty;
				memcpy(cand, b->empty, cnt * sizeof cand[0]);
				while (cnt > 0) {
					int i = (int)gt_rng_below(&r, cnt), p = cand[i], x = p % n, y = p / n;
					int eye = (y == 0 || b->color[p - n] == c) && (y == n - 1 || b->color[p + n] == c) &&
					          (x == 0 || b->color[p - 1] == c) && (x == n - 1 || b->color[p + 1] == c);
					if (!eye && gt_board_legal(b, c, p) == 0) {
						mv = p;
						break;
					}
					cand[i] = cand[--cnt];
				}
				gt_board_play_legal(b, c, mv);
				moves++;
			}
		}
		t = gt_now() - t0;
	} while (t < secs);
	free(b);
	free(root);
	return moves / t;
}

static void uniform_part(double secs)
{
	double pm = playout_moves_per_sec(secs / 5);
	gt_selfplay_params p;
	gt_selfplay_params_default(&p);
	timed tv = { gt_evaluator_uniform(), 0 };
	gt_evaluator ev = { &tv, timed_eval, NULL, "none", NULL };
	tally ta = { 0, 0, 0, NULL };
	gt_selfplay_stats st, sum;
	memset(&sum, 0, sizeof sum);
	double t0 = gt_now(), t;
	long next = 0;
	do {
		p.games = 16;
		p.seed = 1000 + next++;
		gt_selfplay_run(&p, &ev, sink, &ta, NULL, &st);
		sum.evals += st.evals;
		sum.eval_calls += st.eval_calls;
		t = gt_now() - t0;
	} while (t < secs);
	double search = t - tv.secs;
	printf("selfplay: none: 9x9, %d/%d visits, p %.2f, %d games in flight, 1 thread: "
	       "%.0f games/hour, %.1f moves/game, %.0f visits/game\n",
	       p.visits, p.cheap_visits, p.full_prob, p.parallel_games, ta.games * 3600 / t,
	       (double)ta.moves / ta.games, (double)sum.evals / ta.games);
	printf("selfplay: none: search and bookkeeping %.2f us per visit = %.1f random playout "
	       "moves (reference %.0f moves/s)\n",
	       search / sum.evals * 1e6, search / sum.evals * pm, pm);
}

/* ---- 2. a network ---- */

/* the network evaluator of lib/neteval with stopwatches around the
 * features and the forward pass */
typedef struct bnet {
	gt_nn *nn;
	float *planes, *globals;
	int cap;
	double t_feat, t_fwd;  /* thread CPU seconds */
	double c_first, c_last;/* thread CPU clock at the first and latest call */
} bnet;

static int bnet_eval(void *ctx, int n, int nb, const gt_board *const *boards, float *logits,
                     float *value, float *score, float *own)
{
	bnet *b = ctx;
	int np = n * n;
	if (nb > b->cap) {
		b->cap = nb;
		b->planes = gt_xrealloc(b->planes, (size_t)nb * GT_FEAT_PLANES * np * sizeof(float));
		b->globals = gt_xrealloc(b->globals, (size_t)nb * GT_FEAT_GLOBALS * sizeof(float));
	}
	double t0 = cpu_thread();
	if (b->c_first == 0)
		b->c_first = t0;
	for (int i = 0; i < nb; i++)
		gt_feat_encode(boards[i], b->planes + (size_t)i * GT_FEAT_PLANES * np,
		               b->globals + (size_t)i * GT_FEAT_GLOBALS);
	double t1 = cpu_thread();
	gt_nn_out out;
	int r = gt_nn_forward(b->nn, nb, n, b->planes, b->globals, 0, &out);
	b->c_last = cpu_thread();
	b->t_feat += t1 - t0;
	b->t_fwd += b->c_last - t1;
	if (r)
		return r;
	memcpy(logits, out.policy, (size_t)nb * (np + 1) * sizeof(float));
	memcpy(value, out.value, nb * sizeof(float));
	if (score)
		memcpy(score, out.score, nb * sizeof(float));
	if (own)
		memcpy(own, out.own, (size_t)nb * np * sizeof(float));
	return 0;
}

/* reference: a thread forwarding batches of `batch` positions */
typedef struct fwd {
	gt_nn *nn;
	int batch;
	double secs;
	long positions;
	double elapsed, cpu;
} fwd;

static void *forward_loop(void *arg)
{
	fwd *f = arg;
	int n = 9, np = n * n;
	float *planes = gt_xmalloc((size_t)f->batch * GT_FEAT_PLANES * np * sizeof(float));
	float *globals = gt_xmalloc((size_t)f->batch * GT_FEAT_GLOBALS * sizeof(float));
	gt_rng r;
	gt_rng_seed(&r, 5);
	for (int i = 0; i < f->batch; i++) { /* positions of a random game */
		gt_board b;
		gt_board_init(&b, n, gt_rules_find("chinese"), 7);
		int k = (int)gt_rng_below(&r, 60);
		for (int j = 0; j < k; j++) {
			int16_t mv[GT_MAX_PTS];
			int c = gt_board_legal_moves(&b, b.to_move, mv);
			gt_board_play(&b, b.to_move, c ? mv[gt_rng_below(&r, c)] : GT_PASS(n));
		}
		gt_feat_encode(&b, planes + (size_t)i * GT_FEAT_PLANES * np,
		               globals + (size_t)i * GT_FEAT_GLOBALS);
	}
	gt_nn_forward(f->nn, f->batch, n, planes, globals, 0, NULL); /* warm up */
	double t0 = gt_now(), c0 = cpu_thread();
	do {
		gt_nn_forward(f->nn, f->batch, n, planes, globals, 0, NULL);
		f->positions += f->batch;
	} while (gt_now() - t0 < f->secs);
	f->elapsed = gt_now() - t0;
	f->cpu = cpu_thread() - c0;
	free(planes);
	free(globals);
	return NULL;
}

/* positions per second of wall time (all threads) and per CPU second of
 * one thread */
static double reference(const gt_model *m, int threads, int batch, double secs, double *per_cpu)
{
	fwd f[64];
	pthread_t tid[64];
	double rate = 0, pos = 0, c = 0;
	for (int t = 0; t < threads; t++) {
		f[t] = (fwd){ gt_model_nn(m, NULL, NULL), batch, secs, 0, 0, 0 };
		pthread_create(&tid[t], NULL, forward_loop, &f[t]);
	}
	for (int t = 0; t < threads; t++) {
		pthread_join(tid[t], NULL);
		rate += f[t].positions / f[t].elapsed;
		pos += f[t].positions;
		c += f[t].cpu;
		gt_nn_free(f[t].nn);
	}
	*per_cpu = pos / c;
	return rate;
}

static void network_part(double secs, int threads, int games)
{
	gt_arch a;
	gt_arch_default(&a, 6, 64, GT_FEAT_PLANES, GT_FEAT_GLOBALS, GT_FEAT_VERSION);
	gt_model *m = gt_model_new_random(&a, 1, NULL);
	gt_selfplay_params p;
	gt_selfplay_params_default(&p);
	p.threads = threads;
	p.parallel_games = games;
	p.games = 1000000;
	p.seed = 1;
	p.cache_bytes = 0;
	bnet *bn = gt_xcalloc(threads, sizeof *bn);
	gt_evaluator *evs = gt_xcalloc(threads, sizeof *evs);
	for (int t = 0; t < threads; t++) {
		bn[t].nn = gt_model_nn(m, NULL, NULL);
		evs[t] = (gt_evaluator){ &bn[t], bnet_eval, NULL, "b6c64", NULL };
	}
	volatile sig_atomic_t stop = 0;
	tally ta = { 0, 0, 0, &stop };
	gt_selfplay_stats st;
	double t0 = gt_now();
	ta.deadline = t0 + secs;
	pthread_t w;
	pthread_create(&w, NULL, watch, &ta);
	gt_selfplay_run(&p, evs, sink, &ta, &stop, &st);
	double t = gt_now() - t0, fwd_s = 0, feat_s = 0, busy = 0;
	pthread_join(w, NULL);
	for (int i = 0; i < threads; i++) {
		fwd_s += bn[i].t_fwd;
		feat_s += bn[i].t_feat;
		busy += bn[i].c_last - bn[i].c_first;
		gt_nn_free(bn[i].nn);
		free(bn[i].planes);
		free(bn[i].globals);
	}
	double batch = (double)st.evals / st.eval_calls, rate = st.evals / t;
	double mpg = ta.games ? (double)ta.moves / ta.games : 0;
	printf("selfplay: b6c64 9x9, %d/%d visits, %d threads x %d games in flight, no cache, "
	       "%.0f s: %lld network evaluations, %.0f/s (wall), %.0f per thread CPU second, "
	       "mean batch %.1f\n", p.visits, p.cheap_visits, threads, games, t, st.evals, rate,
	       st.evals / busy, batch);
	printf("selfplay: CPU time of the %d threads (%.0f s; %.0f%% of %d cores' wall time): "
	       "forward %.1f%%, features %.1f%%, search and bookkeeping %.1f%%\n", threads, busy,
	       100 * busy / (threads * t), threads, 100 * fwd_s / busy, 100 * feat_s / busy,
	       100 * (busy - fwd_s - feat_s) / busy);
	if (ta.games)
		printf("selfplay: %lld moves played, %ld games finished (%.1f moves/game): %.0f "
		       "games/hour measured; %.0f games/hour on %d unshared cores\n", st.played,
		       ta.games, mpg, st.played / t * 3600 / mpg,
		       st.played / busy * threads * 3600 / mpg, threads);
	else
		printf("selfplay: %lld moves played (%.2f/s), no game finished: run longer for "
		       "games/hour\n", st.played, st.played / t);
	int b = (int)(batch + 0.5);
	double per_cpu, ref = reference(m, threads, b, secs / 4 < 3 ? 3 : secs / 4, &per_cpu);
	printf("selfplay: reference: gt_nn_forward alone, %d threads at batch %d: %.0f "
	       "positions/s (wall), %.0f per thread CPU second\n", threads, b, ref, per_cpu);
	printf("selfplay: self-play evaluations / forward alone: %.3f per CPU second (overhead "
	       "%.1f%%), %.3f by the wall clock (load of other processes included)\n",
	       st.evals / busy / per_cpu, 100 * (1 - st.evals / busy / per_cpu), rate / ref);
	free(bn);
	free(evs);
	gt_model_free(m);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 120.0;
	int threads = argc > 2 ? atoi(argv[2]) : 2, games = argc > 3 ? atoi(argv[3]) : 8;
	if (threads < 1 || threads > 64 || games < 1)
		return 2;
	uniform_part(3);
	network_part(secs, threads, games);
	return 0;
}
