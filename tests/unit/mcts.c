/* mcts: the search on small positions with known evaluators: tactics
 * (a capture, saving a group in atari, passing to win or not passing to
 * lose), visit spreading, noise, move choice with temperature, batching
 * across searches, tree reuse and the memory bound; the same search on
 * several threads (gt_mcts_start). */
#include "tap.h"
#include "mcts.h"

#include <stdatomic.h>
#include <time.h>

/* The test evaluator: uniform policy, value tanh(area score / 4) for the side
 * to move (Tromp-Taylor area: stones plus empty regions reaching one colour
 * only), score the area score. Counts its calls and positions. */
typedef struct area_ctx {
	long calls, positions;
	int bias_move; /* a move given logit +2, or -1 */
} area_ctx;

static int area_eval(void *ctx, int n, int nb, const gt_board *const *boards,
                     float *logits, float *value, float *score, float *own)
{
	area_ctx *a = ctx;
	(void)own;
	a->calls++;
	a->positions += nb;
	for (int b = 0; b < nb; b++) {
		double s = gt_board_area(boards[b], NULL);
		if (boards[b]->to_move == GT_WHITE)
			s = -s;
		value[b] = (float)tanh(s / 4);
		score[b] = (float)s;
		for (int i = 0; i <= n * n; i++)
			logits[b * (n * n + 1) + i] = i == a->bias_move ? 2 : 0;
	}
	return 0;
}

static const gt_rules *rules;

static void setup(gt_board *b, int n, double komi, const char *diagram, int to_move)
{
	if (gt_board_from_ascii(b, n, rules, komi, diagram, to_move) != 0) {
		printf("Bail out! bad diagram\n");
		exit(1);
	}
}

/* the black group (9 stones) and the white pair B2-B1 both have one
 * liberty, C2 */
static const char *const group_atari =
	". . . . ."
	"O O O O O"
	"X X X X O"
	"X O . X O"
	"X O X X O";

static const char *vtx(int n, int pt)
{
	static char buf[4][8];
	static int k;
	k = (k + 1) & 3;
	return gt_vertex_str(n, pt, buf[k]);
}

/* a new tree of parameters p (NULL: the defaults) rooted at b after a
 * search of `visits` with ev; a failed search is a diag line */
static gt_mcts *searched(const gt_board *b, const gt_mcts_params *p, const gt_evaluator *ev,
                         int visits)
{
	gt_mcts *m = gt_mcts_new(p);
	gt_mcts_set_root(m, b);
	int err = gt_mcts_search(m, ev, visits, 0, NULL);
	if (err)
		diag("search: %s", gt_strerror(err));
	return m;
}

/* best move of a search of `visits` from b with the area evaluator */
static int best_move(const gt_board *b, int visits, int leaves, double *value)
{
	area_ctx ac = { 0, 0, -1 };
	gt_evaluator ev = { &ac, area_eval, NULL, "area", NULL };
	gt_mcts_params p;
	gt_mcts_params_default(&p);
	p.leaves = leaves;
	gt_mcts *m = searched(b, &p, &ev, visits);
	int mv = gt_mcts_choose(m, 0, NULL);
	if (value)
		*value = gt_mcts_root_value(m, NULL);
	gt_mcts_free(m);
	return mv;
}

static void test_tactics(void)
{
	gt_board b;
	int pass5 = GT_PASS(5);

	setup(&b, 5, 0.5,
	      ". . . . ."
	      ". . X . ."
	      ". X O X ."
	      ". . . . ."
	      ". . . . .", GT_BLACK);
	for (int leaves = 1; leaves <= 8; leaves += 7) {
		int mv = best_move(&b, 200, leaves, NULL);
		is_str(vtx(5, mv), "C2", "captures the stone in atari (leaves %d)", leaves);
	}

	/* the black group (9 stones) and the white pair B2-B1 both have one
	 * liberty, C2: capturing there saves the group */
	setup(&b, 5, 0.5, group_atari, GT_BLACK);
	for (int leaves = 1; leaves <= 8; leaves += 7) {
		int mv = best_move(&b, 200, leaves, NULL);
		is_str(vtx(5, mv), "C2", "saves the group in atari (leaves %d)", leaves);
	}
	gt_board_set_to_move(&b, GT_WHITE);
	is_str(vtx(5, best_move(&b, 200, 8, NULL)), "C2", "and White captures it there");

	/* White passed; Black leads 15 - 10 - 0.5 = 4.5 and passing ends it */
	setup(&b, 5, 0.5,
	      ". . X O ."
	      ". . X O ."
	      ". . X O ."
	      ". . X O ."
	      ". . X O .", GT_WHITE);
	gt_board_play(&b, GT_WHITE, pass5);
	double v;
	int mv = best_move(&b, 200, 8, &v);
	is_str(vtx(5, mv), "pass", "passes to win after the opponent's pass");
	ok(v > 0.5, "root value %.3f of the won position", v);

	/* White passed; White leads: Black must not pass */
	setup(&b, 5, 0.5,
	      ". X O . ."
	      ". X O . ."
	      ". X O . ."
	      ". X O . ."
	      ". X O . .", GT_WHITE);
	gt_board_play(&b, GT_WHITE, pass5);
	mv = best_move(&b, 200, 8, NULL);
	ok(mv != pass5, "does not pass to lose after the opponent's pass (plays %s)", vtx(5, mv));

	/* the ended position: search is done at once, choose says so */
	gt_board_play(&b, GT_BLACK, pass5);
	gt_mcts *m = gt_mcts_new(NULL);
	gt_evaluator uni = gt_evaluator_uniform();
	gt_mcts_set_root(m, &b);
	is_int(gt_mcts_search(m, &uni, 50, 0, NULL), 0, "search of an ended game succeeds");
	is_int(gt_mcts_visits(m), 0, "with no visits");
	is_int(gt_mcts_choose(m, 0, NULL), GT_EOVER, "choose on an ended game: GT_EOVER");
	gt_mcts_free(m);
}

static void test_spread(void)
{
	/* uniform priors, constant value 0, no FPU reduction: round robin */
	gt_board b;
	gt_board_init(&b, 5, rules, 0);
	gt_evaluator uni = gt_evaluator_uniform();
	for (int leaves = 1; leaves <= 8; leaves += 7) {
		gt_mcts_params p;
		gt_mcts_params_default(&p);
		p.fpu_reduction = p.root_fpu_reduction = 0;
		p.leaves = leaves;
		gt_mcts *m = searched(&b, &p, &uni, 1 + 26 * 4);
		int vis[26], lo = 1 << 30, hi = 0;
		int sum = gt_mcts_child_visits(m, vis);
		for (int i = 0; i < 26; i++) {
			lo = vis[i] < lo ? vis[i] : lo;
			hi = vis[i] > hi ? vis[i] : hi;
		}
		is_int(gt_mcts_visits(m), 105, "root visits reach the target (leaves %d)", leaves);
		is_int(sum, 104, "children hold all visits but the root's own");
		ok(lo == 4 && hi == 4, "visits spread evenly: 4 each (min %d max %d, leaves %d)",
		   lo, hi, leaves);
		gt_mcts_free(m);
	}
}

static void test_noise(void)
{
	gt_board b;
	gt_board_init(&b, 5, rules, 0.5);
	area_ctx ac = { 0, 0, 12 };  /* C3 favoured */
	gt_evaluator ev = { &ac, area_eval, NULL, "area", NULL };
	gt_mcts *m = searched(&b, NULL, &ev, 1);
	float clean[26], noised[26];
	double mean[26] = { 0 }, var0 = 0;
	gt_mcts_prior(m, 0, clean);
	gt_rng r;
	gt_rng_seed(&r, 7);
	int draws = 4000, sums = 1;
	for (int t = 0; t < draws; t++) {
		gt_mcts_begin(m, 1, 1, &r);
		gt_mcts_prior(m, 1, noised);
		double s = 0;
		for (int i = 0; i < 26; i++) {
			mean[i] += noised[i];
			s += noised[i];
		}
		double eta = (noised[0] - 0.75 * clean[0]) / 0.25 - 1.0 / 26;
		var0 += eta * eta;
		sums &= fabs(s - 1) < 1e-5;
	}
	ok(sums, "noised priors sum to 1");
	/* E[P'] = 0.75 P + 0.25 / k; Var eta_i = (1/k)(1 - 1/k) / (10.83 + 1) */
	double sd = sqrt((1.0 / 26) * (1 - 1.0 / 26) / 11.83);
	double worst = 0;
	for (int i = 0; i < 26; i++) {
		double z = fabs(mean[i] / draws - (0.75 * clean[i] + 0.25 / 26)) /
		           (0.25 * sd / sqrt(draws));
		worst = z > worst ? z : worst;
	}
	ok(worst < 5, "noised prior mean is 0.75 P + 0.25/k (worst z %.2f)", worst);
	is_dbl(sqrt(var0 / draws), sd, 0.1 * sd, "noise sd matches alpha = 10.83/k");
	gt_mcts_prior(m, 0, noised);
	ok(memcmp(noised, clean, sizeof clean) == 0, "clean priors kept under the noise");
	gt_mcts_begin(m, 1, 0, NULL);
	gt_mcts_prior(m, 1, noised);
	ok(memcmp(noised, clean, sizeof clean) == 0, "a search without noise restores them");
	gt_mcts_free(m);
}

static void test_choose(void)
{
	gt_board b;
	gt_board_init(&b, 5, rules, 0.5);
	area_ctx ac = { 0, 0, 12 };
	gt_evaluator ev = { &ac, area_eval, NULL, "area", NULL };
	gt_mcts *m = searched(&b, NULL, &ev, 300);
	int vis[26], best = 0;
	int sum = gt_mcts_child_visits(m, vis);
	for (int i = 1; i < 26; i++)
		if (vis[i] > vis[best])
			best = i;
	is_int(gt_mcts_choose(m, 0, NULL), best, "temperature 0 picks the most visited move");
	gt_rng r;
	gt_rng_seed(&r, 11);
	is_int(gt_mcts_choose(m, 0, &r), best, "also with an rng");

	float pol[26];
	is_int(gt_mcts_policy(m, pol), sum, "policy over the child visits");
	double ps = 0;
	for (int i = 0; i < 26; i++)
		ps += pol[i];
	is_dbl(ps, 1, 1e-5, "policy sums to 1");

	/* temperature 1: proportional to visits (chi-square over moves with an
	 * expected count >= 5, the rest pooled) */
	int draws = 20000;
	long cnt[26] = { 0 };
	for (int t = 0; t < draws; t++) {
		int mv = gt_mcts_choose(m, 1, &r);
		cnt[mv >= 0 && mv < 26 ? mv : 0]++;
	}
	double chi = 0, pe = 0, po = 0;
	int dof = -1, bad = 0;
	for (int i = 0; i < 26; i++) {
		double e = (double)draws * vis[i] / sum;
		if (vis[i] == 0 && cnt[i])
			bad = 1;
		if (e >= 5) {
			chi += (cnt[i] - e) * (cnt[i] - e) / e;
			dof++;
		} else {
			pe += e;
			po += cnt[i];
		}
	}
	if (pe > 0) {
		chi += (po - pe) * (po - pe) / (pe > 1e-9 ? pe : 1e-9);
		dof++;
	}
	/* mean dof, sd sqrt(2 dof): bound at dof + 5 sd */
	ok(!bad, "never a move without visits");
	ok(chi < dof + 5 * sqrt(2.0 * dof), "temperature 1 samples in proportion (chi-square %.1f, %d dof)",
	   chi, dof);

	/* low temperature concentrates on the best move */
	long top = 0;
	for (int t = 0; t < 2000; t++)
		top += gt_mcts_choose(m, 0.05, &r) == best;
	ok(top > 1900, "temperature 0.05 nearly greedy (%ld of 2000)", top);
	gt_mcts_free(m);
}

static void test_batching(void)
{
	/* k searches run together equal each run alone (deterministic evaluator,
	 * noise from per-search rngs with the same seeds) */
	enum { K = 5 };
	const char *pos[K] = {
		".........""........."".........""...X....."".........""...O....."".........""........."".........",
		".........""..X......"".........""........."".....O...""........."".........""........."".........",
		".........""........."".........""........."".........""........."".........""........."".........",
		"X........""O........"".........""........."".........""........."".........""........."".........",
		".........""........."".........""....XO..."".........""........."".........""........."".........",
	};
	gt_board b[K];
	gt_mcts *alone[K], *together[K];
	gt_rng ra[K], rt[K];
	area_ctx a1 = { 0, 0, -1 }, a2 = { 0, 0, -1 };
	gt_evaluator e1 = { &a1, area_eval, NULL, "area", NULL }, e2 = { &a2, area_eval, NULL, "area", NULL };
	gt_mcts_params p;
	gt_mcts_params_default(&p);
	p.leaves = 6;
	for (int j = 0; j < K; j++) {
		setup(&b[j], 9, 7, pos[j], j & 1 ? GT_WHITE : GT_BLACK);
		alone[j] = gt_mcts_new(&p);
		together[j] = gt_mcts_new(&p);
		gt_mcts_set_root(alone[j], &b[j]);
		gt_mcts_set_root(together[j], &b[j]);
		gt_rng_seed_stream(&ra[j], 5, j);
		gt_rng_seed_stream(&rt[j], 5, j);
		gt_mcts_search(alone[j], &e1, 150 + 20 * j, 1, &ra[j]);
		gt_mcts_begin(together[j], 150 + 20 * j, 1, &rt[j]);
	}
	is_int(gt_mcts_run_many(together, K, &e2), 0, "run_many of %d searches", K);
	int same = 1;
	for (int j = 0; j < K; j++) {
		int v1[82], v2[82];
		gt_mcts_child_visits(alone[j], v1);
		gt_mcts_child_visits(together[j], v2);
		same &= memcmp(v1, v2, sizeof v1) == 0;
		same &= gt_mcts_root_value(alone[j], NULL) == gt_mcts_root_value(together[j], NULL);
	}
	ok(same, "visits and values equal with 1 or %d searches in flight", K);
	is_int(a1.positions, a2.positions, "same positions evaluated");
	ok(a2.calls * 3 < a1.calls, "in fewer evaluator calls (%ld vs %ld)", a2.calls, a1.calls);
	diag("mean batch %.1f together, %.1f alone", (double)a2.positions / a2.calls,
	     (double)a1.positions / a1.calls);

	/* mixed board sizes are refused */
	gt_board small;
	gt_board_init(&small, 5, rules, 0);
	gt_mcts_set_root(together[1], &small);
	gt_mcts_begin(together[0], 10, 0, NULL);
	gt_mcts_begin(together[1], 10, 0, NULL);
	is_int(gt_mcts_run_many(together, 2, &e2), GT_EINVAL, "mixed sizes: GT_EINVAL");
	for (int j = 0; j < K; j++) {
		gt_mcts_free(alone[j]);
		gt_mcts_free(together[j]);
	}
}

static void test_reuse(void)
{
	gt_board b;
	gt_board_init(&b, 9, rules, 7);
	area_ctx ac = { 0, 0, -1 };
	gt_evaluator ev = { &ac, area_eval, NULL, "area", NULL };
	gt_mcts *m = searched(&b, NULL, &ev, 400);
	int vis[82];
	gt_mcts_child_visits(m, vis);
	int mv = gt_mcts_choose(m, 0, NULL);
	gt_mcts_stats st;
	gt_mcts_get_stats(m, &st);
	size_t before = st.nodes;
	is_int(gt_mcts_advance(m, mv), 0, "advance to the chosen move");
	is_int(gt_mcts_visits(m), vis[mv], "the new root keeps the child's %d visits", vis[mv]);
	gt_mcts_get_stats(m, &st);
	ok(st.nodes < before && st.nodes >= (size_t)vis[mv], "the tree keeps the subtree only (%zu of %zu nodes)",
	   st.nodes, before);
	is_int(gt_mcts_root(m)->nmoves, 1, "root position advanced");
	long evals = ac.positions;
	gt_mcts_search(m, &ev, 400, 0, NULL);
	is_int(gt_mcts_visits(m), 400, "search continues to the target");
	is_int(ac.positions - evals, 400 - vis[mv], "evaluating only the missing visits");
	int cv[82], sum = gt_mcts_child_visits(m, cv);
	is_int(sum, 399, "child visits = root visits - 1 after reuse");

	/* advancing by an unvisited move starts an empty tree */
	gt_mcts_set_root(m, &b);
	gt_mcts_search(m, &ev, 5, 0, NULL);
	gt_mcts_child_visits(m, cv);
	int unvisited = -1;
	for (int i = 0; i < 81 && unvisited < 0; i++)
		if (cv[i] == 0)
			unvisited = i;
	is_int(gt_mcts_advance(m, unvisited), 0, "advance by an unvisited move");
	is_int(gt_mcts_visits(m), 0, "starts from an empty tree");
	ok(gt_mcts_advance(m, unvisited) != 0, "an illegal move is refused");
	is_int(gt_mcts_root(m)->nmoves, 1, "and changes nothing");
	gt_mcts_free(m);

	/* the memory bound: a 64 KiB tree stops the search early but cleanly */
	gt_mcts_params p;
	gt_mcts_params_default(&p);
	p.max_bytes = 64 << 10;
	m = gt_mcts_new(&p);
	gt_mcts_set_root(m, &b);
	is_int(gt_mcts_search(m, &ev, 100000, 0, NULL), 0, "search under a small memory bound");
	gt_mcts_get_stats(m, &st);
	ok(gt_mcts_visits(m) > 10 && gt_mcts_visits(m) < 100000, "stops early (%d visits)",
	   gt_mcts_visits(m));
	ok(st.bytes / 2 <= p.max_bytes, "pool memory %zu within the bound", st.bytes);
	ok(gt_mcts_done(m), "and is done");
	gt_mcts_free(m);
}

static void test_errors(void)
{
	gt_board b;
	gt_board_init(&b, 5, rules, 0.5);
	gt_mcts *m = gt_mcts_new(NULL);
	gt_mcts_set_root(m, &b);
	is_int(gt_mcts_begin(m, 0, 0, NULL), GT_EINVAL, "0 visits refused");
	gt_mcts_begin(m, 10, 0, NULL);
	const gt_board *lv[8];
	is_int(gt_mcts_collect(m, 0, lv), 1, "first collect: the root alone");
	is_int(gt_mcts_collect(m, 0, lv), GT_EINVAL, "collect twice without apply refused");
	float logits[26] = { 0 }, value = NAN;
	is_int(gt_mcts_apply(m, logits, &value, NULL), GT_EINVAL, "NaN value refused");
	is_int(gt_mcts_visits(m), 0, "and the tree reset");
	gt_mcts_begin(m, 10, 0, NULL);
	gt_mcts_collect(m, 0, lv);
	value = 0;
	logits[3] = NAN;
	is_int(gt_mcts_apply(m, logits, &value, NULL), GT_EINVAL, "NaN logit refused");
	logits[3] = -INFINITY;
	for (int i = 0; i < 26; i++)
		logits[i] = -INFINITY;
	gt_mcts_begin(m, 10, 0, NULL);
	gt_mcts_collect(m, 0, lv);
	is_int(gt_mcts_apply(m, logits, &value, NULL), 0, "all logits -inf accepted");
	float pr[26];
	gt_mcts_prior(m, 0, pr);
	is_dbl(pr[7], 1.0 / 26, 1e-6, "as uniform priors");
	gt_mcts_free(m);
}

static void test_pass_from(void)
{
	/* with pass_from the search keeps passing out until that move */
	gt_board b;
	gt_board_init(&b, 5, rules, 0);
	gt_evaluator uni = gt_evaluator_uniform();
	for (int pf = 0; pf <= 3; pf += 3) {
		gt_mcts_params p;
		gt_mcts_params_default(&p);
		p.pass_from = pf;
		gt_mcts *m = searched(&b, &p, &uni, 200);
		float pol[26];
		gt_mcts_policy(m, pol);
		if (pf == 0)
			ok(pol[25] > 0, "pass_from 0: the pass is searched (%.3f)", pol[25]);
		else
			is_dbl(pol[25], 0, 0, "pass_from 3 at move 0: the pass is not searched");
		gt_mcts_free(m);
	}
	/* when nothing else is legal the pass stays: white facing a 3x3
	 * black group with two eyes */
	gt_board_from_ascii(&b, 3, rules, 0, "X . X  X X X  X X .", GT_WHITE);
	gt_mcts_params p;
	gt_mcts_params_default(&p);
	p.pass_from = 100;
	gt_mcts *m = gt_mcts_new(&p);
	gt_mcts_set_root(m, &b);
	is_int(gt_mcts_search(m, &uni, 10, 0, NULL), 0, "a search with only the pass legal works");
	float pol[10];
	gt_mcts_policy(m, pol);
	is_dbl(pol[9], 1, 1e-6, "and passes");
	gt_mcts_free(m);
}

/* an evaluator that also gives ownership: +0.5 everywhere from Black's
 * view, handed over from the side to move's view as the contract says */
static int own_eval(void *ctx, int n, int nb, const gt_board *const *boards,
                    float *logits, float *value, float *score, float *own)
{
	area_eval(ctx, n, nb, boards, logits, value, score, NULL);
	for (int b = 0; own && b < nb; b++)
		for (int i = 0; i < n * n; i++)
			own[b * n * n + i] = boards[b]->to_move == GT_BLACK ? 0.5f : -0.5f;
	return 0;
}

/* ownership: +1 (Black's view) on the point of the game's first move */
static int mark_eval(void *ctx, int n, int nb, const gt_board *const *boards,
                     float *logits, float *value, float *score, float *own)
{
	area_eval(ctx, n, nb, boards, logits, value, score, NULL);
	for (int b = 0; own && b < nb; b++)
		for (int i = 0; i < n * n; i++)
			own[b * n * n + i] = boards[b]->nmoves > 0 && boards[b]->hist_move[0] == i ?
			                     (boards[b]->to_move == GT_BLACK ? 1.0f : -1.0f) : 0.0f;
	return 0;
}

/* analysis: the moves ranked by visits with their values, bounds and
 * principal variations; ownership averaged over the evaluations */
static void test_analysis(void)
{
	gt_board b;
	/* black to move captures C3 (atari on the white stone) at C4 */
	setup(&b, 5, 0.5,
	      ". . . . ."
	      ". . . . ."
	      ". X O X ."
	      ". . X . ."
	      ". . . . .", GT_BLACK);
	area_ctx ac = { 0, 0, -1 };
	gt_evaluator ev = { &ac, own_eval, NULL, "own", NULL };
	gt_mcts_params p;
	gt_mcts_params_default(&p);
	p.leaves = 1;
	p.pass_from = 1000; /* no pass: no finished position in the tree */
	gt_mcts *m = gt_mcts_new(&p);
	gt_mcts_track_ownership(m, 1);
	gt_mcts_set_root(m, &b);
	is_int(gt_mcts_search(m, &ev, 300, 0, NULL), 0, "search of 300 visits");
	gt_mcts_move_info info[26];
	int k = gt_mcts_analysis(m, info, 8), cv[26], sum = 0, sorted = 1, pvok = 1;
	is_int(k, 21, "every legal move listed (21 points, no pass)");
	int child = gt_mcts_child_visits(m, cv);
	for (int i = 0; i < k; i++) {
		sum += info[i].visits;
		if (i && (info[i].visits > info[i - 1].visits || info[i].order != i))
			sorted = 0;
		if (info[i].npv < 1 || info[i].npv > 8 || info[i].pv[0] != info[i].move ||
		    (info[i].visits > 1 && info[i].npv < 2))
			pvok = 0;
	}
	is_int(sum, child, "the moves' visits are the children's (%d)", child);
	ok(sorted, "ranked by visits, order 0, 1, ...");
	ok(pvok, "each principal variation starts with its move, at most 8 long");
	is_str(vtx(5, info[0].move), "C4", "the capture first");
	is_int(info[0].visits, cv[info[0].move], "with its child's visits");
	ok(info[0].value > 0.3 && info[0].value <= 1, "its value %.3f is good for black", info[0].value);
	ok(info[0].lcb < info[0].value, "its lower bound %.3f below its value", info[0].lcb);
	ok(info[0].value - info[0].lcb < 2 * 1.96 / sqrt(info[0].visits) + 1e-9,
	   "and within 1.96 sqrt(s2/n) of it (s2 <= 1 for values in [-1, 1])");
	ok(info[k - 1].visits > 0 || isinf(info[k - 1].lcb), "unvisited moves have no bound");
	is_dbl(info[0].prior, 1.0 / 21, 1e-6, "uniform prior 1/21");
	float own[25];
	is_int(gt_mcts_ownership(m, own), 300, "one ownership sample per evaluation");
	int same = 1;
	for (int i = 0; i < 25; i++)
		same &= fabsf(own[i] - 0.5f) < 1e-6f;
	ok(same, "every point +0.5 from Black's view, whoever was to move at the leaves");
	float w[25];
	for (int i = 0; i < 25; i++)
		w[i] = 1; /* from the side to move's (Black's) view */
	gt_mcts_ownership_add(m, w);
	gt_mcts_ownership(m, own);
	is_dbl(own[0], (0.5 * 300 + 1) / 301, 1e-6, "an added sample counts once");
	gt_mcts_advance(m, info[0].move);
	is_int(gt_mcts_ownership(m, own), 0, "advancing the root clears the average");
	gt_mcts_free(m);

	/* finished positions in the tree add their area ownership */
	setup(&b, 3, 0.5,
	      "X X X"
	      "X . X"
	      "X X X", GT_WHITE);
	m = gt_mcts_new(NULL);
	gt_mcts_track_ownership(m, 1);
	gt_mcts_set_root(m, &b);
	gt_mcts_search(m, &ev, 50, 0, NULL);
	long ns = gt_mcts_ownership(m, own);
	ok(ns > 0 && own[4] > 0.5 + 1e-6, "a board that is Black's: ownership %.2f at the centre", own[4]);
	gt_mcts_free(m);
}

/* The fixed evaluator: at the root (no move played since setup) the logits
 * give priors fx_p over the moves listed in fx_move (others probability 0);
 * every position below a root move m is worth fx_q[m] to the root's side to
 * move, whatever happens after, so a child's Q is exactly its fx_q (and
 * its mean score fx_s[m]; the root's own score fx_root_s; 0 unless a test
 * sets them). */
enum { FX_K = 4 };
static const int fx_move[FX_K] = { 6, 7, 8, 12 };  /* B4 C4 D4 C3 on 5x5 */
static double fx_p[FX_K], fx_q[FX_K], fx_s[FX_K], fx_root_s;

static int fixed_eval(void *ctx, int n, int nb, const gt_board *const *boards,
                      float *logits, float *value, float *score, float *own)
{
	(void)ctx, (void)own;
	for (int b = 0; b < nb; b++) {
		const gt_board *bd = boards[b];
		float *l = logits + b * (n * n + 1);
		for (int i = 0; i <= n * n; i++)
			l[i] = bd->nmoves == 0 ? -INFINITY : 0;
		double q = -0.9, sc = 0; /* a root move outside fx_move */
		for (int k = 0; k < FX_K; k++) {
			if (bd->nmoves == 0)
				l[fx_move[k]] = (float)log(fx_p[k]);
			else if (bd->hist_move[0] == fx_move[k])
				q = fx_q[k], sc = fx_s[k];
		}
		/* the side to move after an odd number of moves is the root's opponent */
		value[b] = bd->nmoves == 0 ? 0 : (float)(bd->nmoves % 2 ? -q : q);
		score[b] = (float)(bd->nmoves == 0 ? fx_root_s : bd->nmoves % 2 ? -sc : sc);
	}
	return 0;
}

static void fixed_search(gt_mcts *m, const gt_board *b, int visits, int noise)
{
	gt_evaluator ev = { NULL, fixed_eval, NULL, "fixed", NULL };
	gt_rng r;
	gt_rng_seed(&r, 11);
	gt_mcts_set_root(m, b);
	int err = gt_mcts_begin(m, visits, noise, &r);
	if (!err)
		err = gt_mcts_run_many(&m, 1, &ev);
	if (err)
		diag("search: %s", gt_strerror(err));
}

/* forced playouts and policy target pruning (Wu 2019, section 3.1) */
static void test_forced(void)
{
	gt_board b;
	gt_board_init(&b, 5, rules, 0.5);
	gt_mcts_params p;
	gt_mcts_params_default(&p);
	p.noise_weight = 1e-9; /* noise on, priors the evaluator's to 1e-9 */
	p.pass_from = 1000;
	p.forced_k = 2;
	const double P[FX_K] = { 0.6, 0.25, 0.1, 0.05 }, Q[FX_K] = { 0.2, 0.1, -0.3, -0.5 };
	memcpy(fx_p, P, sizeof P);
	memcpy(fx_q, Q, sizeof Q);
	gt_mcts *m = gt_mcts_new(&p);
	fixed_search(m, &b, 201, 1);
	int v[26];
	double pv[26];
	float pol[26];
	int sum = gt_mcts_child_visits(m, v);
	is_int(sum, 200, "200 child visits after 201 (the root's own evaluation)");
	diag("visits B4 %d C4 %d D4 %d C3 %d", v[6], v[7], v[8], v[12]);
	/* every child got at least its forced playouts, sqrt(2 P N) at the
	 * last time it was chosen: D4 sqrt(2 * 0.1 * 200) = 6.3, C3 4.5 */
	int forced_ok = 1;
	for (int k = 0; k < FX_K; k++)
		forced_ok &= v[fx_move[k]] + 1 >= (int)sqrt(2 * P[k] * sum);
	ok(forced_ok, "each child has its forced playouts sqrt(2 P N) (less one in flight)");
	/* Hand-worked with the visits above: B4 is c*, with 137 visits (see the
	 * diag line; checked below). sqrt(N_root) = sqrt(201) = 14.177;
	 * PUCT(c*) = 0.2 + 1.1 * 0.6 * 14.177 / 138 = 0.26780.
	 * C4 (P 0.25, Q 0.1, 30 visits): forced sqrt(2 * 0.25 * 200) = 10;
	 *   fewest visits keeping it below c*: 1.1 * 0.25 * 14.177 / (0.26780 -
	 *   0.1) - 1 = 22.234; keeps max(30 - 10, 22.234) = 22.234.
	 * D4 (P 0.1, Q -0.3, 7 visits): forced 6.325; fewest 1.1 * 0.1 * 14.177
	 *   / 0.56780 - 1 = 1.7465; keeps max(0.675, 1.7465) = 1.7465.
	 * C3 (P 0.05, Q -0.5, 5 visits): forced 4.472; fewest 1.1 * 0.05 *
	 *   14.177 / 0.76780 - 1 = 0.0156; keeps max(0.528, 0.0156) = 0.528,
	 *   at most one visit: 0. */
	double want[FX_K] = { 137, 22.234, 1.7465, 0 };
	is_int(v[6], 137, "B4 is c* with 137 visits (the case worked above)");
	double psum = gt_mcts_pruned(m, pv);
	int near = 1, never_more = 1;
	for (int k = 0; k < FX_K; k++) {
		near &= fabs(pv[fx_move[k]] - want[k]) < 1e-3;
		never_more &= pv[fx_move[k]] <= v[fx_move[k]];
		diag("%s: visits %d pruned %.4f hand-worked %.4f", vtx(5, fx_move[k]), v[fx_move[k]],
		     pv[fx_move[k]], want[k]);
	}
	ok(near, "pruned visits as worked by hand");
	ok(never_more, "pruning never adds visits");
	is_dbl(pv[6], v[6], 0, "the most visited child is not pruned");
	gt_mcts_policy(m, pol);
	double tot = 0;
	for (int i = 0; i < 26; i++)
		tot += pol[i];
	is_dbl(tot, 1, 1e-6, "the pruned policy target sums to 1");
	is_dbl(pol[7], pv[7] / psum, 1e-6, "the policy target is the pruned visits' share");
	/* without noise there is nothing forced and nothing pruned */
	gt_mcts *m2 = gt_mcts_new(&p);
	fixed_search(m2, &b, 201, 0);
	int v2[26];
	gt_mcts_child_visits(m2, v2);
	gt_mcts_pruned(m2, pv);
	int same = 1;
	for (int i = 0; i < 26; i++)
		same &= pv[i] == v2[i];
	ok(same, "a search without noise: the target is the raw visits");
	ok(v2[12] < v[12], "forced playouts gave C3 more visits (%d) than none (%d)", v[12], v2[12]);
	/* with a temperature the choice follows the pruned visits: C3, pruned
	 * to 0, is never played */
	gt_rng r;
	gt_rng_seed(&r, 3);
	int c3 = 0;
	for (int t = 0; t < 2000; t++)
		c3 += gt_mcts_choose(m, 1.0, &r) == 12;
	is_int(c3, want[3] == 0 ? 0 : c3, "a pruned-away child is never chosen at temperature 1");
	gt_mcts_free(m2);
	gt_mcts_free(m);
}

/* fx_setup: the empty 5x5 board (komi 0.5), the default search without
 * passing, and the fixed evaluator's priors P and values Q */
static void fx_setup(gt_board *b, gt_mcts_params *p, const double *P, const double *Q)
{
	gt_board_init(b, 5, rules, 0.5);
	gt_mcts_params_default(p);
	p->pass_from = 1000;
	memcpy(fx_p, P, sizeof fx_p);
	memcpy(fx_q, Q, sizeof fx_q);
}

/* KataGo's score utility (gt_mcts_params score_static, score_dynamic):
 * four moves of equal prior and equal value, their scores for the root's
 * side +10, 0, -5 and -20 points on 5x5. Without it the visits are even;
 * with it they follow the scores (static 0.1: (2/pi) atan(S / 10) / 10 =
 * +0.0500, 0, -0.0295, -0.0705 added to Q). */
static void test_score_utility(void)
{
	gt_board b;
	gt_mcts_params p;
	const double P[FX_K] = { 0.25, 0.25, 0.25, 0.25 }, Q[FX_K] = { 0, 0, 0, 0 }, S[FX_K] = { 10, 0, -5, -20 };
	fx_setup(&b, &p, P, Q);
	memcpy(fx_s, S, sizeof S);
	const char *what[] = { "off", "static 0.1", "dynamic 0.3", "both (KataGo's 0.1, 0.3)" };
	const double st[] = { 0, 0.1, 0, 0.1 }, dy[] = { 0, 0, 0.3, 0.3 };
	for (int t = 0; t < 4; t++) {
		p.score_static = st[t], p.score_dynamic = dy[t];
		gt_mcts *m = gt_mcts_new(&p);
		fixed_search(m, &b, 201, 0);
		int v[26];
		gt_mcts_child_visits(m, v);
		diag("%s: visits B4 %d C4 %d D4 %d C3 %d", what[t], v[6], v[7], v[8], v[12]);
		if (t == 0)
			ok(v[6] == v[7] && v[7] == v[8] && v[8] == v[12],
			   "off: equal values, equal priors, visits even whatever the scores");
		else
			ok(v[6] > v[7] && v[7] > v[8] && v[8] > v[12], "%s: visits ordered by score", what[t]);
		/* the root's value: the mean of the values backed up (0 under the
		 * four, -0.9 under the few visits to other moves), no score in it */
		int in4 = v[6] + v[7] + v[8] + v[12];
		double sc, val = gt_mcts_root_value(m, &sc);
		is_dbl(val, -0.9 * (200 - in4) / 201, 1e-9, "%s: the search's value is the values' mean, the score "
		       "not in it", what[t]);
		gt_mcts_free(m);
	}
	/* the dynamic utility's centre: the root's score when the search
	 * begins, taken 20% towards 0 and kept within 0.75 n = 3.75 points of
	 * it (KataGo's recentScoreCenter), the root side's view */
	const double rs[] = { 18.75, 2, 100, -100 }, want[] = { 15, 1.6, 96.25, -96.25 };
	p.score_static = 0, p.score_dynamic = 0.3;
	for (int t = 0; t < 4; t++) {
		fx_root_s = rs[t];
		gt_mcts *m = gt_mcts_new(&p);
		fixed_search(m, &b, 21, 0);
		is_dbl(gt_mcts_score_center(m), want[t], 1e-4, "the centre with the root's network score %+g", rs[t]);
		gt_mcts_free(m);
	}
	/* where the centre lies decides the split: two moves of equal value
	 * worth +10 and +20 to the root's side; a centre of 15 (root score
	 * 18.75) between them separates them far more than one of 0 */
	const double S2[FX_K] = { 10, 20, -50, -50 };
	memcpy(fx_s, S2, sizeof S2);
	int gap[2];
	for (int t = 0; t < 2; t++) {
		fx_root_s = t ? 18.75 : 0;
		gt_mcts *m = gt_mcts_new(&p);
		fixed_search(m, &b, 201, 0);
		int v[26];
		gt_mcts_child_visits(m, v);
		gap[t] = v[7] - v[6];
		diag("root score %g: centre %.2f, visits +20: %d, +10: %d", fx_root_s, gt_mcts_score_center(m), v[7],
		     v[6]);
		/* a second search on the kept tree: the centre is the root's mean
		 * score now, shrunk and capped the same way */
		if (t) {
			double sc;
			gt_mcts_root_value(m, &sc);
			gt_rng r;
			gt_rng_seed(&r, 12);
			gt_mcts_begin(m, 301, 0, &r);
			gt_evaluator ev = { NULL, fixed_eval, NULL, "fixed", NULL };
			gt_mcts_run_many(&m, 1, &ev);
			double c = 0.8 * sc, cap = 3.75;
			c = c > sc + cap ? sc + cap : c < sc - cap ? sc - cap : c;
			is_dbl(gt_mcts_score_center(m), c, 1e-9, "a search on the kept tree: the centre from the root's "
			       "mean score then (%.3f)", sc);
		}
		gt_mcts_free(m);
	}
	ok(gap[1] > 2 * gap[0] && gap[0] >= 0, "the centre between the two scores splits their visits more (%d) "
	   "than a centre of 0 (%d)", gap[1], gap[0]);
	memset(fx_s, 0, sizeof fx_s);
	fx_root_s = 0;
}

/* LCB move selection and c_puct growth */
static void test_lcb(void)
{
	gt_board b;
	gt_mcts_params p;
	const double P[FX_K] = { 0.9, 0.05, 0.03, 0.02 }, Q[FX_K] = { 0.3, 0.4, -0.3, -0.5 };
	fx_setup(&b, &p, P, Q);
	gt_mcts *m = gt_mcts_new(&p);
	fixed_search(m, &b, 301, 0);
	int v[26];
	gt_mcts_child_visits(m, v);
	diag("visits B4 %d C4 %d D4 %d C3 %d", v[6], v[7], v[8], v[12]);
	/* node_lcb with no spread: q - 1.96 sqrt(1 / ((n + 1) n)) */
	double lb4 = 0.3 - 1.96 * sqrt(1.0 / ((v[6] + 1.0) * v[6]));
	double lc4 = 0.4 - 1.96 * sqrt(1.0 / ((v[7] + 1.0) * v[7]));
	ok(v[6] > v[7] && v[7] >= 0.15 * v[6], "B4 most visited, C4 above 15%% of it");
	int want = lc4 > lb4 ? 7 : 6;
	diag("lcb B4 %.4f C4 %.4f", lb4, lc4);
	is_int(gt_mcts_choose(m, 0, NULL), 6, "without lcb: the most visited");
	gt_mcts_free(m);
	p.lcb_select = 1;
	m = gt_mcts_new(&p);
	fixed_search(m, &b, 301, 0);
	is_int(gt_mcts_choose(m, 0, NULL), want, "with lcb: the higher lower bound (C4)");
	is_int(want, 7, "(the case has C4's bound above B4's)");
	p.lcb_min_visits = 0.99;
	gt_mcts_free(m);
	m = gt_mcts_new(&p);
	fixed_search(m, &b, 301, 0);
	is_int(gt_mcts_choose(m, 0, NULL), 6, "with lcb-min-visits 0.99: C4 is not eligible");
	gt_mcts_free(m);
	/* c_puct growth: 1.1 + 0.45 ln((N + 500) / 500), 1.31 at N = 300,
	 * weighs the prior more than the constant 1.1: B4, of prior 0.9 but a
	 * lower Q than C4, keeps more visits */
	gt_mcts_params_default(&p);
	p.pass_from = 1000;
	p.cpuct_log = 0.45;
	m = gt_mcts_new(&p);
	fixed_search(m, &b, 301, 0);
	int v3[26];
	gt_mcts_child_visits(m, v3);
	ok(v3[6] > v[6], "c_puct growth: B4 %d visits, more than %d", v3[6], v[6]);
	gt_mcts_free(m);
}

/* avoid and allow (gt_mcts_set_avoid, KataGo's avoid/allow): every
 * position the search evaluates is recorded with the moves that led to
 * it; a forbidden move must never be among them at a forbidden depth */
typedef struct rec_ctx {
	area_ctx ac;
	int root_to_move;
	int seen[4][GT_MAX_PTS + 1]; /* [depth][move]: evaluated positions reached by it */
	double s1, s2;               /* root-view scores returned: sum, sum of squares */
	long k;
} rec_ctx;

static int rec_eval(void *ctx, int n, int nb, const gt_board *const *boards,
                    float *logits, float *value, float *score, float *own)
{
	rec_ctx *r = ctx;
	int err = area_eval(&r->ac, n, nb, boards, logits, value, score, own);
	for (int b = 0; b < nb; b++) {
		for (int d = 0; d < 4 && d < boards[b]->nmoves; d++)
			r->seen[d][boards[b]->hist_move[d]]++;
		double x = boards[b]->to_move == r->root_to_move ? score[b] : -score[b];
		r->s1 += x;
		r->s2 += x * x;
		r->k++;
	}
	return err;
}

static void test_avoid(void)
{
	gt_board b;
	gt_board_init(&b, 5, rules, 0.5);
	int n = 5, c3 = gt_vertex_parse(n, "C3"), b2 = gt_vertex_parse(n, "B2"), d4 = gt_vertex_parse(n, "D4");
	static rec_ctx r;
	memset(&r, 0, sizeof r);
	r.ac.bias_move = -1;
	r.root_to_move = GT_BLACK;
	gt_evaluator ev = { &r, rec_eval, NULL, "rec", NULL };
	static gt_mcts_avoid av;
	memset(&av, 0, sizeof av);
	av.until[0][c3] = 1; /* Black: not C3 at the root */
	av.until[1][d4] = 2; /* White: not D4 at depth 1, D4 from depth 3 */
	gt_mcts *m = gt_mcts_new(NULL);
	gt_mcts_set_root(m, &b);
	gt_mcts_set_avoid(m, &av);
	ok(gt_mcts_search(m, &ev, 3000, 0, NULL) == 0, "avoid: a search of 3000 visits");
	ok(r.seen[0][c3] == 0, "Black's C3 never played at the root (%d positions)", r.seen[0][c3]);
	ok(r.seen[1][d4] == 0, "White's D4 never played at depth 1 (%d)", r.seen[1][d4]);
	ok(r.seen[2][c3] > 0, "Black's C3 searched at depth 2 (%d positions)", r.seen[2][c3]);
	ok(r.seen[3][d4] > 0, "White's D4 searched at depth 3 (%d positions)", r.seen[3][d4]);
	gt_mcts_move_info info[26];
	int k = gt_mcts_analysis(m, info, 4), listed = 0;
	for (int i = 0; i < k; i++)
		listed |= info[i].move == c3;
	ok(k == 25 && !listed, "the analysis leaves C3 out (%d moves)", k);
	/* root scores: the deviation of what the evaluator returned, from the
	 * root's view (no finished position in 5x5 at this depth) */
	gt_mcts_stats st;
	gt_mcts_get_stats(m, &st);
	double mean = r.s1 / r.k, sd = sqrt(r.s2 / r.k - mean * mean);
	ok(st.terminal == 0 && r.k == gt_mcts_visits(m) &&
	   fabs(gt_mcts_root_score_stdev(m) - sd) < 1e-9,
	   "root scoreStdev %.6f: the evaluator's root-view scores' %.6f", gt_mcts_root_score_stdev(m), sd);
	int pvok = 1;
	for (int i = 0; i < k; i++) {
		pvok &= info[i].pv_visits[0] == info[i].visits;
		for (int j = 1; j < info[i].npv; j++)
			pvok &= info[i].pv_visits[j] > 0 && info[i].pv_visits[j] < info[i].pv_visits[j - 1];
	}
	ok(pvok, "pvVisits: the move's visits, then fewer down the variation");
	double v, sc;
	int have = gt_mcts_root_eval(m, &v, &sc);
	ok(have && fabs(v - tanh(-0.5 / 4)) < 1e-6 && fabs(sc + 0.5) < 1e-6,
	   "the root's own evaluation kept: value %.4f score %.2f (empty board, komi 0.5)", v, sc);

	/* allow: only B2 and C3 for Black at the root */
	memset(&av, 0, sizeof av);
	for (int p = 0; p <= n * n; p++)
		av.until[0][p] = p == b2 || p == c3 ? 0 : 1;
	gt_mcts_set_avoid(m, &av);
	ok(gt_mcts_visits(m) == 0, "new restrictions drop the tree");
	memset(r.seen, 0, sizeof r.seen);
	gt_mcts_search(m, &ev, 400, 0, NULL);
	k = gt_mcts_analysis(m, info, 4);
	ok(k == 2 && (info[0].move == b2 || info[0].move == c3) && (info[1].move == b2 || info[1].move == c3) &&
	   info[0].visits + info[1].visits == 399, "allow B2,C3: only they, with all 399 child visits");
	int other = 0;
	for (int p = 0; p < n * n; p++)
		other += p != b2 && p != c3 ? r.seen[2][p] : 0;
	ok(other > 0, "Black plays other moves at depth 2 (%d positions)", other);
	int mv = gt_mcts_choose(m, 0, NULL);
	ok(mv == b2 || mv == c3, "the move chosen is allowed (%s)", vtx(n, mv));

	/* every root move forbidden: the search goes on over all of them */
	for (int p = 0; p <= n * n; p++)
		av.until[0][p] = 1;
	gt_mcts_set_avoid(m, &av);
	gt_mcts_search(m, &ev, 100, 0, NULL);
	ok(gt_mcts_visits(m) == 100 && gt_mcts_analysis(m, info, 4) > 0,
	   "everything forbidden: all moves searched (%d visits)", gt_mcts_visits(m));
	gt_mcts_set_avoid(m, NULL);
	ok(gt_mcts_visits(m) == 0, "dropping the restrictions drops the tree too");

	/* per-move ownership: the evaluator marks the point of the root move
	 * a position came through (+1 for Black, in its side to move's view),
	 * so each move's average is 1 on its own point and 0 elsewhere */
	gt_mcts_track_ownership(m, 1);
	gt_mcts_track_moves_ownership(m, 1);
	gt_mcts_set_root(m, &b);
	gt_evaluator oev = { &r.ac, mark_eval, NULL, "mark", NULL };
	gt_mcts_search(m, &oev, 300, 0, NULL);
	float one[25];
	long parts = 0, bad = 0, moves = 0;
	for (int mvp = 0; mvp < n * n; mvp++) {
		long c = gt_mcts_move_ownership(m, mvp, one);
		parts += c;
		moves += c > 0;
		for (int p = 0; c && p < 25; p++)
			bad += fabs(one[p] - (p == mvp)) > 1e-6;
	}
	parts += gt_mcts_move_ownership(m, GT_PASS(n), one);
	ok(moves > 20 && bad == 0, "each move's ownership is its own visits' (%ld moves, %ld wrong)", moves, bad);
	ok(parts == gt_mcts_ownership(m, one) - 1, "their samples: all but the root's own (%ld)", parts);
	gt_mcts_free(m);
}

/* ---- several threads ---- */

/* a thread's evaluator: the area evaluator, slowed down (a network takes
 * time), counting positions and the evaluations in progress at once over
 * all threads; fail_after > 0 answers a NaN value from that call on */
typedef struct mt_ctx {
	area_ctx a;
	atomic_int *busy, *most;
	long fail_after;
	int err_code;      /* != 0: return it from call fail_after on instead */
} mt_ctx;

static int mt_eval(void *ctx, int n, int nb, const gt_board *const *boards, float *logits,
                   float *value, float *score, float *own)
{
	mt_ctx *c = ctx;
	int now = atomic_fetch_add(c->busy, 1) + 1;
	for (int m = atomic_load(c->most); now > m && !atomic_compare_exchange_weak(c->most, &m, now);)
		;
	struct timespec ts = { 0, 300000 };  /* 0.3 ms */
	nanosleep(&ts, NULL);
	int r = area_eval(&c->a, n, nb, boards, logits, value, score, own);
	if (c->fail_after > 0 && c->a.calls >= c->fail_after) {
		if (c->err_code)
			r = c->err_code;
		else
			value[0] = NAN;
	}
	atomic_fetch_sub(c->busy, 1);
	return r;
}

#define MT_MAX 4
typedef struct mt_set {
	mt_ctx c[MT_MAX];
	gt_evaluator ev[MT_MAX];
	atomic_int busy, most;
} mt_set;

static void mt_init(mt_set *s)
{
	memset(s, 0, sizeof *s);
	atomic_init(&s->busy, 0);
	atomic_init(&s->most, 0);
	for (int t = 0; t < MT_MAX; t++) {
		s->c[t].a.bias_move = -1;
		s->c[t].busy = &s->busy;
		s->c[t].most = &s->most;
		s->ev[t] = (gt_evaluator){ &s->c[t], mt_eval, NULL, "mt", NULL };
	}
}

static long mt_positions(const mt_set *s)
{
	long k = 0;
	for (int t = 0; t < MT_MAX; t++)
		k += s->c[t].a.positions;
	return k;
}

/* the visit accounting of a finished threaded search of m with s */
static void mt_counts(gt_mcts *m, const mt_set *s, int want, const char *what)
{
	int vis[GT_MAX_PTS + 1];
	gt_mcts_stats st;
	gt_mcts_get_stats(m, &st);
	int nv = gt_mcts_visits(m);
	if (want > 0)
		is_int(nv, want, "%s: the root has the target's visits", what);
	is_int(gt_mcts_child_visits(m, vis), nv - 1, "%s: its children's visits add up to %d - 1",
	       what, nv);
	is_int(gt_mcts_check(m), 0, "%s: every node's visits add up, no virtual loss or leaf left",
	       what);
	is_int((int)(st.evals + st.terminal), nv,
	       "%s: evaluations %lld + ended positions %lld = visits", what, st.evals, st.terminal);
	is_int((int)mt_positions(s), (int)st.evals, "%s: the evaluators saw every evaluation once",
	       what);
}

static void test_threads(void)
{
	gt_board b;
	/* saving the 9-stone group in atari by capturing at C2 */
	setup(&b, 5, 0.5, group_atari, GT_BLACK);
	char what[64];
	for (int th = 2; th <= 4; th += 2)
		for (int leaves = 1; leaves <= 4; leaves += 3) {
			mt_set s;
			mt_init(&s);
			gt_mcts_params p;
			gt_mcts_params_default(&p);
			p.leaves = leaves;
			gt_mcts *m = gt_mcts_new(&p);
			gt_mcts_set_root(m, &b);
			snprintf(what, sizeof what, "%d threads, %d leaves", th, leaves);
			is_int(gt_mcts_search_threads(m, s.ev, th, 300, 0, NULL), 0, "%s: search", what);
			is_str(vtx(5, gt_mcts_choose(m, 0, NULL)), "C2", "%s: saves the group at C2", what);
			mt_counts(m, &s, 300, what);
			ok(atomic_load(&s.most) >= 2, "%s: evaluations ran side by side (at most %d at once)",
			   what, atomic_load(&s.most));
			/* the tree kept under the move, searched on to 600 */
			gt_mcts_advance(m, gt_mcts_choose(m, 0, NULL));
			int kept = gt_mcts_visits(m);
			is_int(gt_mcts_check(m), 0, "%s: the kept subtree's counts agree", what);
			is_int(gt_mcts_search_threads(m, s.ev, th, kept + 200, 0, NULL), 0,
			       "%s: search of the kept tree", what);
			is_int(gt_mcts_visits(m), kept + 200, "%s: kept %d + 200 visits", what, kept);
			is_int(gt_mcts_check(m), 0, "%s: and its counts agree", what);
			gt_mcts_free(m);
		}

	/* White's move there: capture the group (C2) */
	gt_board_set_to_move(&b, GT_WHITE);
	{
		mt_set s;
		mt_init(&s);
		gt_mcts *m = gt_mcts_new(NULL);
		gt_mcts_set_root(m, &b);
		gt_mcts_search_threads(m, s.ev, 3, 300, 0, NULL);
		is_str(vtx(5, gt_mcts_choose(m, 0, NULL)), "C2", "3 threads: White captures at C2");
		mt_counts(m, &s, 300, "3 threads, White");
		gt_mcts_free(m);
	}

	/* with noise and forced playouts (the root's priors change under the
	 * threads) */
	{
		mt_set s;
		mt_init(&s);
		gt_mcts_params p;
		gt_mcts_params_default(&p);
		p.forced_k = 2;
		gt_rng rng;
		gt_rng_seed(&rng, 7);
		gt_mcts *m = gt_mcts_new(&p);
		gt_mcts_set_root(m, &b);
		is_int(gt_mcts_search_threads(m, s.ev, 4, 250, 1, &rng), 0, "noised search, 4 threads");
		mt_counts(m, &s, 250, "noised, 4 threads");
		gt_mcts_free(m);
	}

	/* one thread is the one-threaded search exactly */
	{
		gt_board e;
		gt_board_init(&e, 5, rules, 0.5);
		area_ctx a1 = { 0, 0, 7 }, a2 = { 0, 0, 7 };
		gt_evaluator e1 = { &a1, area_eval, NULL, "area", NULL };
		gt_evaluator e2 = { &a2, area_eval, NULL, "area", NULL };
		gt_mcts *m1 = gt_mcts_new(NULL), *m2 = gt_mcts_new(NULL);
		gt_mcts_set_root(m1, &e);
		gt_mcts_set_root(m2, &e);
		gt_mcts_search(m1, &e1, 333, 0, NULL);
		gt_mcts_search_threads(m2, &e2, 1, 333, 0, NULL);
		int v1[26], v2[26];
		gt_mcts_child_visits(m1, v1);
		gt_mcts_child_visits(m2, v2);
		ok(memcmp(v1, v2, sizeof v1) == 0 && a1.calls == a2.calls,
		   "1 thread: the same visits and evaluator calls (%ld) as gt_mcts_search", a2.calls);
		gt_mcts_free(m1);
		gt_mcts_free(m2);
	}

	/* a search without a target, stopped from outside; results read
	 * under the lock meanwhile */
	{
		mt_set s;
		mt_init(&s);
		gt_board e;
		gt_board_init(&e, 7, rules, 0.5);
		gt_mcts *m = gt_mcts_new(NULL);
		gt_mcts_set_root(m, &e);
		gt_mcts_begin(m, 1000000000, 0, NULL);
		is_int(gt_mcts_start(m, s.ev, 4), 0, "start 4 threads");
		is_int(gt_mcts_start(m, s.ev, 4), GT_EINVAL, "a second start refused");
		is_int(gt_mcts_begin(m, 10, 0, NULL), GT_EINVAL, "begin refused while they run");
		is_int(gt_mcts_wait(m, 0.05), 0, "they run on");
		gt_mcts_move_info info[50];
		int seen = 0;
		for (int i = 0; i < 5; i++) {
			gt_mcts_lock(m);
			int k = gt_mcts_analysis(m, info, 8), sum = 0, nv = gt_mcts_visits(m);
			for (int j = 0; j < k; j++)
				sum += info[j].visits;
			seen += nv > 0 && sum == nv - 1;
			gt_mcts_unlock(m);
			gt_mcts_wait(m, 0.01);
		}
		is_int(seen, 5, "analysis under the lock: the children's visits add up each time");
		is_int(gt_mcts_stop(m), 0, "stopped");
		ok(gt_mcts_visits(m) > 50, "after %d visits", gt_mcts_visits(m));
		mt_counts(m, &s, 0, "stopped");
		is_int(gt_mcts_stop(m), 0, "a second stop: nothing to do");
		gt_mcts_free(m);
	}

	/* the memory bound reached by threads */
	{
		mt_set s;
		mt_init(&s);
		gt_board e;
		gt_board_init(&e, 9, rules, 7.5);
		gt_mcts_params p;
		gt_mcts_params_default(&p);
		p.max_bytes = 64 << 10;
		gt_mcts *m = gt_mcts_new(&p);
		gt_mcts_set_root(m, &e);
		is_int(gt_mcts_search_threads(m, s.ev, 4, 100000, 0, NULL), 0, "4 threads to a full tree");
		gt_mcts_stats st;
		gt_mcts_get_stats(m, &st);
		ok(gt_mcts_visits(m) < 100000 && st.bytes <= p.max_bytes,
		   "stops when full: %d visits in %zu bytes", gt_mcts_visits(m), st.bytes);
		mt_counts(m, &s, 0, "full");
		gt_mcts_free(m);
	}

	/* failures in a thread: a NaN value, an evaluator error */
	for (int kind = 0; kind < 2; kind++) {
		mt_set s;
		mt_init(&s);
		s.c[1].fail_after = 5;
		s.c[1].err_code = kind ? GT_EIO : 0;
		gt_board e;
		gt_board_init(&e, 5, rules, 0.5);
		gt_mcts *m = gt_mcts_new(NULL);
		gt_mcts_set_root(m, &e);
		int r = gt_mcts_search_threads(m, s.ev, 2, 100000, 0, NULL);
		is_int(r, kind ? GT_EIO : GT_EINVAL, "%s in thread 1: the search fails with it",
		       kind ? "an evaluator error" : "a NaN value");
		is_int(gt_mcts_check(m), 0, "and the tree left is consistent (%d visits)",
		       gt_mcts_visits(m));
		is_int(gt_mcts_search_threads(m, s.ev, 1, 50, 0, NULL), 0, "a search after it works");
		gt_mcts_free(m);
	}
}

int main(void)
{
	rules = gt_rules_find("tromp-taylor");
	test_tactics();
	test_spread();
	test_noise();
	test_choose();
	test_batching();
	test_reuse();
	test_errors();
	test_pass_from();
	test_analysis();
	test_forced();
	test_lcb();
	test_score_utility();
	test_avoid();
	test_threads();
	return done_testing();
}
