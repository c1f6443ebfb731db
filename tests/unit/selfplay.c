/* selfplay: many small games with the uniform evaluator; every record
 * replays legally and is scored and labelled right; the same seed gives the
 * same games whatever the threads and games in flight; stop and sink errors. */
#include "tap.h"
#include "selfplay.h"

/* check_record: replay r and check it against the rules and itself; returns
 * 0 or -1 with the reason in why. */
static int check_record(const gt_selfplay_params *p, const gt_record *r, char *why)
{
	int n = r->board_size, np = n * n + 1;
#define FAIL(...) do { snprintf(why, 200, __VA_ARGS__); return -1; } while (0)
	if (n != p->board_size || r->komi != p->komi || strcmp(r->rules, p->rules->name))
		FAIL("header");
	if (r->npos != r->nmoves)
		FAIL("%d positions for %d moves", r->npos, r->nmoves);
	if (!r->game_id || strlen(r->game_id) != 16 || r->seed != p->seed)
		FAIL("game id or seed");
	gt_board b;
	gt_board_init(&b, n, p->rules, p->komi);
	int cap = gt_selfplay_max_moves(p);
	if (r->nmoves > cap + 2)
		FAIL("%d moves, cap %d", r->nmoves, cap);
	for (int i = 0; i < r->nmoves; i++) {
		const gt_position *ps = &r->pos[i];
		if (ps->move_number != i || ps->to_move != b.to_move || r->colors[i] != b.to_move)
			FAIL("move %d: number or colour", i);
		if (ps->full_search != (ps->policy != NULL))
			FAIL("move %d: policy only on full searches", i);
		if (i >= cap) {
			if (ps->visits || ps->full_search || r->moves[i] != GT_PASS(n))
				FAIL("move %d: after the cap, passes without search", i);
		} else if (ps->visits < (ps->full_search ? p->visits : p->cheap_visits)) {
			FAIL("move %d: %d visits", i, ps->visits);
		}
		if (ps->policy) {
			double s = 0;
			for (int k = 0; k < np; k++) {
				if (ps->policy[k] < 0 || (ps->policy[k] > 0 && gt_board_legal(&b, b.to_move, k)))
					FAIL("move %d: policy on an illegal move %d", i, k);
				s += ps->policy[k];
			}
			if (fabs(s - 1) > 1e-4)
				FAIL("move %d: policy sums to %g", i, s);
		}
		if (gt_board_play(&b, b.to_move, r->moves[i]) != 0)
			FAIL("move %d illegal", i);
		char cw[128];
		if (gt_board_check(&b, cw) != 0)
			FAIL("board check after move %d: %s", i, cw);
	}
	if (b.passes != 2)
		FAIL("game not ended by two passes after %d moves", r->nmoves);
	float own[GT_MAX_PTS];
	double a = gt_board_area(&b, own);
	if (a != r->score)
		FAIL("score %g, area %g", r->score, a);
	if (memcmp(own, r->ownership, n * n * sizeof *own))
		FAIL("ownership");
	int w = a > 0 ? GT_WIN_BLACK : a < 0 ? GT_WIN_WHITE : GT_WIN_DRAW;
	char res[16];
	if (a > 0)
		snprintf(res, sizeof res, "B+%g", a);
	else if (a < 0)
		snprintf(res, sizeof res, "W+%g", -a);
	else
		snprintf(res, sizeof res, "0");
	if (r->winner != w || strcmp(r->result, res))
		FAIL("result %s winner %d, want %s", r->result, r->winner, res);
	for (int i = 0; i < r->npos; i++) {
		const gt_position *ps = &r->pos[i];
		double s = ps->to_move == GT_BLACK ? a : -a;
		if (ps->score != (float)s || ps->value != (s > 0 ? 1 : s < 0 ? -1 : 0))
			FAIL("position %d value %g score %g", i, ps->value, ps->score);
	}
	return 0;
#undef FAIL
}

/* a canonical text of a record, to compare runs */
static char *digest(const gt_record *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fprintf(f, "%s %s %s %g %d %s %g|", r->game_id, r->model, r->rules, r->komi,
	        r->board_size, r->result, r->score);
	for (int i = 0; i < r->nmoves; i++) {
		const gt_position *ps = &r->pos[i];
		fprintf(f, "%d:%d:%d:%d:%a:%a", r->moves[i], ps->to_move, ps->visits,
		        ps->full_search, ps->value, ps->score);
		for (int k = 0; ps->policy && k <= r->board_size * r->board_size; k++)
			fprintf(f, ",%a", ps->policy[k]);
		fputc(';', f);
	}
	for (int k = 0; k < r->board_size * r->board_size; k++)
		fprintf(f, "%a,", r->ownership[k]);
	fclose(f);
	return buf;
}

typedef struct collect {
	const gt_selfplay_params *p;
	long count, bad, out_of_order, last;
	long full, forced, positions, passes_end, capped, black, white, draw;
	long long moves;
	char **dig;    /* digests by index */
	long ndig;
	long stop_after;
	volatile sig_atomic_t *stop;
	int fail_at;   /* return an error from the sink at this index */
	char why[240];
} collect;

static int sink(void *ctx, long index, const gt_record *r, const gt_selfplay_stats *st)
{
	collect *c = ctx;
	(void)st;
	if (index <= c->last)
		c->out_of_order++;
	c->last = index;
	c->count++;
	char why[200];
	if (check_record(c->p, r, why) != 0) {
		if (!c->bad++)
			snprintf(c->why, sizeof c->why, "game %ld: %s", index, why);
	}
	for (int i = 0; i < r->npos; i++) {
		c->full += r->pos[i].full_search;
		c->forced += r->pos[i].visits == 0;
	}
	c->positions += r->npos;
	c->moves += r->nmoves;
	if (r->npos && r->pos[r->npos - 1].visits == 0)
		c->capped++;
	else
		c->passes_end++;
	c->black += r->winner == GT_WIN_BLACK;
	c->white += r->winner == GT_WIN_WHITE;
	c->draw += r->winner == GT_WIN_DRAW;
	if (index < c->ndig)
		c->dig[index] = digest(r);
	if (c->stop && c->count >= c->stop_after)
		*c->stop = 1;
	if (c->fail_at >= 0 && index == c->fail_at)
		return 42;
	return 0;
}

static void collect_init(collect *c, const gt_selfplay_params *p, long ndig)
{
	memset(c, 0, sizeof *c);
	c->p = p;
	c->last = -1;
	c->fail_at = -1;
	c->ndig = ndig;
	c->dig = calloc(ndig ? ndig : 1, sizeof *c->dig);
}

/* collect_run: q's games played by the evaluators evs into c, after
 * collect_init(c, q, ndig) */
static void collect_run(collect *c, const gt_selfplay_params *q, const gt_evaluator *evs, long ndig)
{
	collect_init(c, q, ndig);
	gt_selfplay_run(q, evs, sink, c, NULL, NULL);
}

static void collect_free(collect *c)
{
	for (long i = 0; i < c->ndig; i++)
		free(c->dig[i]);
	free(c->dig);
}

int main(void)
{
	gt_selfplay_params p;
	gt_selfplay_params_default(&p);
	is_dbl(gt_selfplay_temperature(&p, 0), 0.75, 1e-12, "temperature 0.75 at the start");
	is_dbl(gt_selfplay_temperature(&p, 9), 0.45, 1e-12, "halfway after 9 moves on 9x9");
	is_dbl(gt_selfplay_temperature(&p, 400), 0.15, 1e-6, "0.15 late");
	is_int(gt_selfplay_max_moves(&p), 162, "move cap 2*n*n by default");
	is_int(gt_selfplay_check(&p, NULL), 0, "defaults are valid");
	gt_selfplay_params bad = p;
	bad.board_size = 20;
	gt_error e;
	is_int(gt_selfplay_check(&bad, &e), GT_EINVAL, "board size 20 refused (%s)", e.text);
	bad = p;
	bad.full_prob = 1.5;
	is_int(gt_selfplay_check(&bad, &e), GT_EINVAL, "full-search probability 1.5 refused");

	gt_evaluator uni = gt_evaluator_uniform();
	gt_evaluator evs[2] = { uni, uni };
	char name[64];
	gt_evaluator ev;
	is_int(gt_selfplay_model_open(&p, "none", &ev, name, sizeof name, NULL, NULL, NULL, &e), 0, "--model none opens");
	is_str(name, "none", "named none");
	is_int(gt_selfplay_model_open(&p, "/nonexistent/x.bin.gz", &ev, name, sizeof name, NULL, NULL, NULL, &e), GT_EIO,
	       "a missing network file is an input/output error");

	/* 200 small games on 9x9, two threads, 8 games in flight each */
	p.visits = 12;
	p.cheap_visits = 4;
	p.games = 200;
	p.threads = 2;
	p.parallel_games = 8;
	p.seed = 12345;
	p.worker = "test";
	collect c;
	collect_init(&c, &p, 40);
	gt_selfplay_stats st;
	is_int(gt_selfplay_run(&p, evs, sink, &c, NULL, &st), 0, "200 games");
	is_int(c.count, 200, "200 records");
	is_int(st.games, 200, "counted");
	is_int(c.out_of_order, 0, "in game order");
	ok(c.bad == 0, "every record replays legally and is scored right%s%s", c.bad ? ": " : "",
	   c.why);
	is_int(st.moves, c.moves, "moves counted");
	is_int(st.dropped, 0, "none dropped");
	diag("%lld moves (%.1f per game), %ld ended by passes, %ld by the cap; B %ld W %ld draw %ld",
	     c.moves, (double)c.moves / c.count, c.passes_end, c.capped, c.black, c.white, c.draw);
	diag("%lld evaluations in %lld calls (mean batch %.1f)", st.evals, st.eval_calls,
	     (double)st.evals / st.eval_calls);
	double share = (double)c.full / c.positions;
	ok(fabs(share - 0.25) < 0.03, "full searches on %.3f of the positions (p = 0.25)", share);
	ok(st.evals / st.eval_calls > 5, "batches across games (mean %.1f)",
	   (double)st.evals / st.eval_calls);

	/* the same seed: the same games with one thread and one game in flight */
	gt_selfplay_params q = p;
	q.threads = 1;
	q.parallel_games = 1;
	q.games = 40;
	collect c1;
	collect_run(&c1, &q, evs, 40);
	int same = 1;
	for (int i = 0; i < 40; i++)
		same &= c.dig[i] && c1.dig[i] && strcmp(c.dig[i], c1.dig[i]) == 0;
	ok(same, "same seed, same games with 1 thread x 1 game and 2 threads x 8 games");
	gt_record r;
	is_int(gt_selfplay_game(&q, &uni, 17, &r), 0, "game 17 alone");
	char *d = digest(&r);
	is_str(d, c.dig[17], "equals game 17 of the run");
	free(d);
	gt_selfplay_record_free(&r);
	q.seed = 12346;
	collect c2;
	collect_run(&c2, &q, evs, 40);
	int differ = 0;
	for (int i = 0; i < 40; i++)
		differ += strcmp(c2.dig[i], c1.dig[i]) != 0;
	is_int(differ, 40, "another seed, other games");
	collect_free(&c1);
	collect_free(&c2);
	collect_free(&c);

	/* every position a full search, or none */
	q = p;
	q.games = 6;
	q.full_prob = 1;
	collect_run(&c, &q, evs, 0);
	ok(c.bad == 0 && c.full == c.positions - c.forced,
	   "full_prob 1: every searched position has a policy%s",
	   c.why);
	collect_free(&c);
	q.full_prob = 0;
	q.board_size = 5;
	q.rules = gt_rules_find("tromp-taylor");
	q.komi = 0.5;
	collect_run(&c, &q, evs, 0);
	ok(c.bad == 0 && c.full == 0, "full_prob 0 on 5x5 tromp-taylor: no policy%s", c.why);
	collect_free(&c);

	/* a stop after 5 records: no new games, the rest dropped or handed out */
	volatile sig_atomic_t stop = 0;
	q = p;
	q.games = 100;
	collect_init(&c, &q, 0);
	c.stop = &stop;
	c.stop_after = 5;
	is_int(gt_selfplay_run(&q, evs, sink, &c, &stop, &st), 0, "a stopped run succeeds");
	ok(c.count >= 5 && c.count < 100, "it ends early (%ld records, %ld dropped)", c.count,
	   st.dropped);
	ok(c.bad == 0 && c.out_of_order == 0, "with complete records in order");
	ok(st.dropped > 0 && st.dropped <= 2 * 8, "games in flight dropped (%ld)", st.dropped);
	collect_free(&c);

	/* the sink's error stops the run and is returned */
	collect_init(&c, &q, 0);
	c.fail_at = 3;
	is_int(gt_selfplay_run(&q, evs, sink, &c, NULL, &st), 42, "the sink's error is returned");
	is_int(c.count, 4, "no record after it");
	collect_free(&c);
	return done_testing();
}
