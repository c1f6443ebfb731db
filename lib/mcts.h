/*
 * mcts.h: PUCT Monte-Carlo tree search over gt_board positions, with a
 * pluggable position evaluator (the network, or a built-in stand-in).
 *
 * The search follows AlphaZero (Silver et al. 2018) as modified by KataGo
 * (Wu, "Accelerating self-play learning in Go", 2019, arXiv:1902.10565):
 *
 *   select   argmax over children of  Q + c_puct * P * sqrt(N_parent) / (1 + N_child)
 *            Q and N count virtual losses in flight; N_parent is the node's
 *            own visit count (so a freshly expanded node still follows P).
 *   FPU      an unvisited child is valued Q_parent - r * sqrt(visited policy
 *            mass) (KataGo's first-play-urgency reduction; r = 0.2 below the
 *            root, 0.1 at the root, 0 at a root with Dirichlet noise).
 *   backup   values are from the side to move's view; a node stores the sum
 *            of the values seen by the player who moved INTO it, so a parent
 *            maximises its children's Q directly.
 *   leaves   positions that ended (two passes or the move cap) are valued by
 *            the area score: +1/-1/0 by its sign, without calling the
 *            evaluator; the others are evaluated in batches: collect up to B
 *            leaves under virtual loss, evaluate them in one call, back up.
 *   noise    at the root of a full search: P' = 0.75 P + 0.25 Dir(alpha),
 *            alpha = 10.83 / (legal moves, pass included) (KataGo's total
 *            concentration 10.83 and weight 0.25).
 *   reuse    after a move the tree below the played child becomes the new
 *            root (its visits count towards the next search's target).
 *
 * A search object owns its tree in two pools (nodes, edges) that grow on
 * demand up to params.max_bytes and are reused between moves and games;
 * advancing the root copies the kept subtree into the spare pools, so memory
 * is bounded by the live tree. Searches of many games run side by side
 * through the step functions gt_mcts_collect / gt_mcts_apply: a driver
 * collects leaves from G searches, evaluates the G*B positions in one
 * evaluator call, and hands each search its slice back. A search's course
 * depends only on its own leaves and their evaluations, so with a
 * deterministic evaluator the results do not depend on G.
 *
 * One search may also run on several threads (gt_mcts_start: tree
 * parallelism, as KataGo's numSearchThreads): each thread descends under
 * virtual loss, evaluates its leaves with its own evaluator outside the
 * tree's lock and backs them up under it; the descents and backups are
 * serialised by one mutex per search (KataGo locks per node), the
 * evaluations, where the time goes with a network, run side by side.
 * Otherwise not thread-safe: one thread per gt_mcts at a time (different
 * searches may run on different threads), and while its threads run only
 * gt_mcts_wait, gt_mcts_stop, and the results between gt_mcts_lock and
 * gt_mcts_unlock.
 */
#ifndef GT_MCTS_H
#define GT_MCTS_H
#include <stddef.h>
#include <stdint.h>
#include "board.h"
#include "gt.h"
#include "rng.h"

/*
 * A position evaluator. eval() evaluates nb >= 1 positions of one board size
 * n (boards[b]->n == n for all b; the boards are borrowed for the call):
 *
 *   logits     nb x (n*n+1): policy logits (natural logarithms of unnormalised
 *              move probabilities), points in board order then pass. The
 *              search keeps the legal moves only and softmaxes over them, so
 *              entries of illegal moves are ignored; -INFINITY means
 *              probability 0. NaN or +INFINITY on a legal move is an error.
 *   value      nb: expected result for the side to move, in [-1, 1]
 *              (+1 a win); values outside are clamped, NaN is an error.
 *   score      nb: expected final area score from the side to move's view,
 *              in points, komi included. The search fills it with 0 before
 *              the call; an evaluator without a score head may leave it.
 *   ownership  NULL, or nb x (n*n): expected final ownership from the side
 *              to move's view in [-1, 1]. The search passes NULL.
 *
 * Returns 0 or a negative gt_err, which the search passes on. The evaluator
 * must be deterministic (same positions, same outputs, whatever nb and the
 * other positions of the batch) for self-play to be reproducible.
 * close(ctx), if not NULL, frees ctx (gt_evaluator_close).
 */
/*
 * The outputs of one evaluation beyond the search's (KataGo's kata-raw-nn
 * and the raw values of its analysis rootInfo), from the side to move's
 * view. A quantity the network does not predict is -1, as KataGo writes
 * the outputs an older network lacks.
 */
typedef struct gt_eval_raw {
	double win, loss, noresult; /* probabilities (sum 1); noresult 0 without such a head */
	double lead;                /* score lead, points */
	double score_mean;          /* expected final score (KataGo's scoreSelfplay), points */
	double score_mean_sq;       /* its expected square, points^2 (score_mean^2
	                               without a variance head, as KataGo's old nets) */
	double var_time_left;       /* KataGo's varTimeLeft; -1: none */
	double st_wr_error;         /* short-term win/loss error; -1: none */
	double st_score_error;      /* short-term score error, points; -1: none */
} gt_eval_raw;

typedef struct gt_evaluator {
	void *ctx;
	int (*eval)(void *ctx, int n, int nb, const gt_board *const *boards,
	            float *logits, float *value, float *score, float *ownership);
	void (*close)(void *ctx);
	const char *name;       /* for messages and records, e.g. "none" */
	/* raw (may be NULL): one position's outputs with everything the network
	 * predicts: logits[n*n+1] and own[n*n] as eval's, *out the rest.
	 * Returns 0 or a negative gt_err. gt_evaluator_raw falls back to eval. */
	int (*raw)(void *ctx, const gt_board *b, float *logits, float *own, gt_eval_raw *out);
} gt_evaluator;

/* gt_evaluator_raw: one evaluation of b with everything ev predicts:
 * ev->raw when set, else ev->eval of b alone with win = (1 + value) / 2,
 * loss = 1 - win, noresult 0, lead = score_mean = score, score_mean_sq
 * = score^2, the others -1.
 * logits[n*n+1], own[n*n] (side to move's view) as eval's. Returns 0 or
 * the evaluator's error. */
int gt_evaluator_raw(const gt_evaluator *ev, const gt_board *b, float *logits, float *own,
                     gt_eval_raw *out);

/* gt_evaluator_uniform: the evaluator of `--model none`: every logit 0
 * (uniform priors over the legal moves), value 0, score 0. Stateless and
 * thread-safe; close is NULL. */
gt_evaluator gt_evaluator_uniform(void);

/* gt_evaluator_close: calls ev->close(ev->ctx) if set and clears *ev. */
void gt_evaluator_close(gt_evaluator *ev);

typedef struct gt_mcts_params {
	double cpuct;              /* c_puct, 1.1 (KataGo paper, appendix) */
	double fpu_reduction;      /* r below the root, 0.2 (KataGo fpuReductionMax) */
	double root_fpu_reduction; /* r at a root without noise, 0.1 (KataGo) */
	double noise_concentration;/* total Dirichlet concentration, 10.83 (KataGo) */
	double noise_weight;       /* weight of the noise, 0.25 (AlphaZero, KataGo) */
	int leaves;                /* most leaves per gt_mcts_collect call, 8 */
	size_t max_bytes;          /* bound on tree memory (both pools), 64 MiB */
	int pass_from;             /* the search considers passing only once this many
	                              moves were played (or when nothing else is
	                              legal); 0, the default: always */
	/* KataGo's levers (Wu 2019, sections 3.1 and appendix; KataGo's
	 * cpuctExplorationLog and useLcbForSelection); 0 turns each off */
	double forced_k;           /* forced playouts at a noised root: a child with
	                              fewer than sqrt(forced_k * P * N) visits (P its
	                              noised prior, N the root's child visits) is
	                              chosen first; the policy target and the moves
	                              chosen with a temperature then use the pruned
	                              visits (gt_mcts_pruned); KataGo 2. Default 0 */
	double cpuct_log;          /* c_puct grows with the parent's visits N:
	                              cpuct + cpuct_log * ln((N + cpuct_base) /
	                              cpuct_base); KataGo 0.45. Default 0 */
	double cpuct_base;         /* 500 (KataGo cpuctExplorationBase) */
	int lcb_select;            /* 1: gt_mcts_choose at temperature 0 plays the
	                              child with the highest lower confidence bound
	                              (mcts_move_info.lcb) among those with at least
	                              lcb_min_visits of the most visited child's
	                              visits (KataGo minVisitPropForLCB). Default 0 */
	double lcb_min_visits;     /* 0.15 */
	/* KataGo's score utility (its staticScoreUtilityFactor and
	 * dynamicScoreUtilityFactor; Search::getScoreUtility): in the PUCT
	 * choice a child's value Q becomes Q + score_static * su(S, 0, 2) +
	 * score_dynamic * su(S, C, 0.75), su(S, C, k) = (2/pi) atan((S - C) /
	 * (k n)), S the child's mean score (points, the mover's view), n the
	 * board's side, C the root's mean score when the search began (its
	 * network score before any visit) taken 20% towards 0 and kept within
	 * 0.75 n of it (gt_mcts_score_center). KataGo takes su's expectation
	 * over the scores' spread; gt takes it at the mean. The search's
	 * value, the win rates shown and the move chosen (by visits, or by
	 * the LCB of the value) are unchanged. KataGo 0.1 and 0.3. Default 0
	 * and 0 (off) */
	double score_static;
	double score_dynamic;
} gt_mcts_params;

/* gt_mcts_params_default: fills p with the defaults listed above. */
void gt_mcts_params_default(gt_mcts_params *p);

typedef struct gt_mcts gt_mcts;

/* gt_mcts_new: a search object with a copy of p (NULL: defaults) and an
 * empty tree; gt_mcts_set_root must be called before a search. Owned by the
 * caller (gt_mcts_free). */
gt_mcts *gt_mcts_new(const gt_mcts_params *p);
void gt_mcts_free(gt_mcts *m);

/* gt_mcts_set_root: drop the tree and search from a copy of b. Keeps the
 * pools' memory. Returns 0, or GT_EINVAL when b's side to move is not a
 * colour. */
int gt_mcts_set_root(gt_mcts *m, const gt_board *b);

/* gt_mcts_root: the root position (borrowed; valid until the next call that
 * changes the root). */
const gt_board *gt_mcts_root(const gt_mcts *m);

/* gt_mcts_advance: play move (a point or pass) at the root for the side to
 * move, and keep the subtree under that move as the new tree (or an empty
 * tree if it was never visited). Any search in progress is abandoned.
 * Returns 0 or gt_board_play's error (then nothing changed). */
int gt_mcts_advance(gt_mcts *m, int move);

/*
 * Moves the search must not explore (KataGo's avoid and allow of its
 * analysis commands, avoidMoves and allowMoves of its analysis engine):
 * until[c][move] (c 0 for Black, 1 for White; move a point or pass) is the
 * depth, in plies below the root (the root's own moves at depth 0), from
 * which colour c may play move in the search: the move is not explored at
 * a depth below it; 0 (or less) allows it everywhere. allow is avoid on
 * every other move. A node where every legal move is forbidden searches
 * them all as if nothing were (so the search never stalls).
 */
typedef struct gt_mcts_avoid {
	int until[2][GT_MAX_PTS + 1];
} gt_mcts_avoid;

/* gt_mcts_set_avoid: search under a (copied), or without restrictions for
 * NULL. A change of the restrictions drops the tree (its visits were
 * spent under the old ones); the restrictions are dropped by
 * gt_mcts_set_root and gt_mcts_advance (their depths count from a root).
 * Forbidden root moves are left out of gt_mcts_analysis, and
 * gt_mcts_choose never plays one while another move is allowed. */
void gt_mcts_set_avoid(gt_mcts *m, const gt_mcts_avoid *a);

/* gt_mcts_begin: start a search that ends when the root has `visits` visits
 * in all (visits kept from earlier searches count; at least 1). With noise
 * (and rng not NULL) Dirichlet noise is mixed into the root priors for this
 * search (from clean priors each time) and the root FPU reduction is 0;
 * rng is borrowed until the search ends. Returns 0 or GT_EINVAL. */
int gt_mcts_begin(gt_mcts *m, int visits, int noise, gt_rng *rng);

/* gt_mcts_collect: descend from the root up to max_leaves times (at most
 * params.leaves; <= 0 means params.leaves), stopping at nodes that need an
 * evaluation; ended positions are backed up at once. Writes the positions
 * to evaluate to boards[] (borrowed, valid until gt_mcts_apply) and returns
 * how many, or a negative gt_err. Returns 0 exactly when the search is done
 * (target reached, tree memory full, or the root position has ended). */
int gt_mcts_collect(gt_mcts *m, int max_leaves, const gt_board **boards);

/* gt_mcts_apply: the evaluations of the positions of the last
 * gt_mcts_collect, in the same order, with the evaluator's layout (logits
 * k x (n*n+1), value k, score k or NULL). Expands the leaves and backs up.
 * Returns 0, or GT_EINVAL for a NaN value or logit (the search is then
 * reset to an empty tree at the same root). */
int gt_mcts_apply(gt_mcts *m, const float *logits, const float *value, const float *score);

/* gt_mcts_apply_own: gt_mcts_apply with the leaves' ownership too: own
 * is k x (n*n) from each leaf's side to move's view (the evaluator's
 * layout), or NULL; used only while ownership is tracked. */
int gt_mcts_apply_own(gt_mcts *m, const float *logits, const float *value, const float *score,
                      const float *own);

/* gt_mcts_done: 1 when the current search has nothing left to do. */
int gt_mcts_done(const gt_mcts *m);

/* gt_mcts_search: begin, then collect/evaluate/apply until done, with ev
 * called once per collect. Returns 0 or the first error. */
int gt_mcts_search(gt_mcts *m, const gt_evaluator *ev, int visits, int noise, gt_rng *rng);

/* gt_mcts_run_many: run k already begun searches (all on one board size)
 * to the end together, each evaluator call taking the leaves of all of them
 * that are not done (up to k * params.leaves positions), with ownership
 * when one of them tracks it. Returns 0, the first error, or GT_EINVAL for
 * mixed board sizes. */
int gt_mcts_run_many(gt_mcts *const *ms, int k, const gt_evaluator *ev);

/* ---- search threads ---- */

/* gt_mcts_start: run the begun search on `threads` threads (>= 1), thread
 * t evaluating with evs[t] (borrowed until gt_mcts_stop; the same
 * thread-safe evaluator, e.g. the uniform one, may fill every entry).
 * Each thread collects up to params.leaves leaves at a time under virtual
 * loss (a descent that meets a leaf in flight goes elsewhere or waits for
 * another thread's backup); the search's target is never passed, as in
 * one thread. The threads end when the search is done or fails, or at
 * gt_mcts_stop. Returns 0, GT_EINVAL (threads already running, no begun
 * search, leaves of gt_mcts_collect in flight) or GT_ENOMEM (no thread
 * could be created; with some, the search runs on those). */
int gt_mcts_start(gt_mcts *m, const gt_evaluator *evs, int threads);

/* gt_mcts_wait: wait up to `seconds` (< 0: without limit, 0: not at all)
 * for the threads of gt_mcts_start to end; returns 1 when they have (or
 * none run), else 0. */
int gt_mcts_wait(gt_mcts *m, double seconds);

/* gt_mcts_stop: stop the threads of gt_mcts_start (each first backs up
 * the leaves it is evaluating) and join them. Returns 0 or the first
 * error of an evaluation or backup (the tree is then dropped, as
 * gt_mcts_apply does). Without threads returns 0. */
int gt_mcts_stop(gt_mcts *m);

/* gt_mcts_lock, gt_mcts_unlock: hold the search's tree still while its
 * threads run, to read results (gt_mcts_visits, gt_mcts_analysis, ...). */
void gt_mcts_lock(gt_mcts *m);
void gt_mcts_unlock(gt_mcts *m);

/* gt_mcts_search_threads: gt_mcts_search on `threads` threads with evs[t]
 * (gt_mcts_start); threads <= 1 is gt_mcts_search with evs[0] exactly.
 * Returns 0 or the first error. */
int gt_mcts_search_threads(gt_mcts *m, const gt_evaluator *evs, int threads, int visits,
                           int noise, gt_rng *rng);

/* gt_mcts_check: 0 when the tree's counts agree, else GT_EINVAL: no leaf
 * in flight, no virtual loss left on any node, and every expanded node
 * has one visit more than its children together (its own evaluation;
 * a finished position is visited without children). For tests. */
int gt_mcts_check(const gt_mcts *m);

/* ---- results ---- */

/* gt_mcts_visits: root visits (completed, reused ones included). */
int gt_mcts_visits(const gt_mcts *m);

/* gt_mcts_root_value: mean value at the root from the root's side to move's
 * view (0 before any visit); *score (if not NULL) the mean score. */
double gt_mcts_root_value(const gt_mcts *m, double *score);

/* gt_mcts_score_center: the centre C of the dynamic score utility this
 * search (gt_mcts_params score_dynamic), in points from the root's side to
 * move's view; NaN until taken (the root's first visit of the search). */
double gt_mcts_score_center(const gt_mcts *m);

/* gt_mcts_child_visits: visits[n*n+1] (pass last) receive the root's
 * children's visit counts (0 for unvisited and illegal moves); returns their
 * sum. */
int gt_mcts_child_visits(const gt_mcts *m, int *visits);

/* gt_mcts_policy: policy[n*n+1] receives the root children's visit shares
 * (the training target; sums to 1), of the pruned visits (gt_mcts_pruned)
 * after a search with forced playouts; if no child was visited, the root's
 * priors (clean, without noise). Returns the number of child visits
 * (before pruning). */
int gt_mcts_policy(const gt_mcts *m, float *policy);

/* gt_mcts_prior: prior[n*n+1] receives the root's priors (0 for illegal
 * moves), with the current search's Dirichlet noise mixed in if noised and
 * there is some, else the evaluator's (clean) priors. Returns 0, or
 * GT_EINVAL before the root is expanded. */
int gt_mcts_prior(const gt_mcts *m, int noised, float *prior);

/* gt_mcts_pruned: visits[n*n+1] (pass last) receive the root children's
 * visits after policy target pruning (Wu 2019, section 3.1) when the current
 * search used forced playouts (a noised root, params.forced_k > 0), else
 * their visit counts. Pruning: c* is the most visited child (as
 * gt_mcts_choose); every other child c loses up to its forced playouts
 * sqrt(forced_k * P(c) * N) (N the children's visits, P the noised prior),
 * but no more than keeps its PUCT value Q(c) + cpuct * P(c) * sqrt(N_root) /
 * (1 + n) below c*'s; a child left with at most one visit is dropped. c*
 * is never reduced and no child gains. Returns the sum of the values. */
double gt_mcts_pruned(const gt_mcts *m, double *visits);

/* gt_mcts_choose: the move to play: with temperature t <= 0 the most
 * visited child (ties: higher prior, then lower index), or with
 * params.lcb_select the highest LCB among the children with at least
 * lcb_min_visits of its visits (ties: the most visited); else a child drawn
 * with probability proportional to visits^(1/t) (KataGo's
 * chooseIndexWithTemperature; the pruned visits after forced playouts).
 * Without child visits, the highest prior.
 * Returns a point or pass, or GT_EOVER when the root position has ended
 * or was never expanded. */
int gt_mcts_choose(const gt_mcts *m, double t, gt_rng *rng);

/* ---- analysis (gt-gtp's analyze commands, gt-analyze) ---- */

#define GT_MCTS_PV_MAX 32   /* longest principal variation reported */
#define GT_MCTS_LCB_Z 1.96  /* z of the lower confidence bound */

/* One move at the root. Values and scores are from the root's side to
 * move's view. */
typedef struct gt_mcts_move_info {
	int move;          /* point or pass */
	int visits;        /* completed visits of the child (0: never visited) */
	double value;      /* mean value in [-1, 1]; the root's for an unvisited move */
	double score;      /* mean score in points; the root's for an unvisited move */
	double prior;      /* the evaluator's prior (without noise) */
	double lcb;        /* lower confidence bound of value: mean - 1.96 sqrt(s2/n),
	                      s2 = (sum of squared deviations + 1) / (n + 1), a variance
	                      with a prior of one pseudo-sample of variance 1 (so one
	                      visit is uncertain); -INFINITY for an unvisited move */
	double score_stdev;/* standard deviation of the scores backed up through the
	                      move (0 for one visit; the root's for an unvisited move) */
	int order;         /* rank: most visits first (ties: higher prior, lower index) */
	int npv;           /* moves in pv */
	int16_t pv[GT_MCTS_PV_MAX]; /* the move, then the most visited child down the
	                              tree (ties: higher prior) while it was visited */
	int pv_visits[GT_MCTS_PV_MAX]; /* visits of the position after each move of pv */
} gt_mcts_move_info;

/* gt_mcts_analysis: every move of the expanded root (but those forbidden
 * there, gt_mcts_set_avoid) into info (room for n*n+1 entries), ranked by
 * order, with principal variations of at most
 * pv_max moves (<= GT_MCTS_PV_MAX). Returns the number of moves; 0 when
 * the root was never expanded. */
int gt_mcts_analysis(const gt_mcts *m, gt_mcts_move_info *info, int pv_max);

/* gt_mcts_track_ownership: with on, the search averages the ownership of
 * every evaluation (the evaluator is asked for it) and of every visit that
 * ended in a finished position (its area ownership) since the root was set
 * or advanced, as KataGo averages ownership over its tree (each visit adds
 * one node). Clears the average. */
void gt_mcts_track_ownership(gt_mcts *m, int on);
/* gt_mcts_tracks_ownership: 1 while ownership is tracked. */
int gt_mcts_tracks_ownership(const gt_mcts *m);
/* gt_mcts_ownership_add: add one sample own[n*n] from the root's side to
 * move's view (e.g. the evaluator's ownership of the root position, for a
 * kept tree whose evaluations are not in the average). */
void gt_mcts_ownership_add(gt_mcts *m, const float *own);
/* gt_mcts_track_moves_ownership: with on (and ownership tracked), each
 * sample of the average is also added to the average of the root move its
 * visit went through (KataGo's per-move ownership); the root's own
 * evaluation belongs to no move. Costs (n*n+1) * n*n doubles while on.
 * Clears the averages. */
void gt_mcts_track_moves_ownership(gt_mcts *m, int on);
/* gt_mcts_move_ownership: the average of the visits through root move
 * `move` into own[n*n], Black's view; 0 everywhere without samples.
 * Returns the samples. */
long gt_mcts_move_ownership(const gt_mcts *m, int move, float *own);

/* gt_mcts_root_score_stdev: standard deviation of the scores backed up at
 * the root (0 before two visits). */
double gt_mcts_root_score_stdev(const gt_mcts *m);

/* gt_mcts_root_eval: the evaluator's value and score of the root position
 * (the side to move's view) from the evaluation that expanded it; 0 when
 * the root was expanded in an earlier tree (kept by gt_mcts_advance) or
 * not yet, else 1. */
int gt_mcts_root_eval(const gt_mcts *m, double *value, double *score);

/* gt_mcts_ownership: the average into own[n*n], Black's view (+1 Black's),
 * in [-1, 1]; 0 everywhere without samples. Returns the samples. */
long gt_mcts_ownership(const gt_mcts *m, float *own);

/* Counters since gt_mcts_new (for progress and benchmarks). */
typedef struct gt_mcts_stats {
	long long evals;     /* positions handed to the evaluator */
	long long terminal;  /* visits that ended in a finished position */
	long long collisions;/* descents that met a leaf already in flight */
	size_t nodes, edges; /* live tree size */
	size_t bytes;        /* pool memory held */
} gt_mcts_stats;
void gt_mcts_get_stats(const gt_mcts *m, gt_mcts_stats *st);

#endif
