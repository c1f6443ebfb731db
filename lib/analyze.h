/*
 * analyze.h: KataGo's analysis-engine protocol (KataGo docs/Analysis_Engine
 * .md; gt-analyze(1) is the user's view) over gt's search: one JSON query a
 * line in, one JSON answer a line out per position searched.
 *
 * A query names a game (boardXSize = boardYSize, rules, komi,
 * initialStones, initialPlayer, moves) and which of its turns to analyse
 * (analyzeTurns; default the last); each turn is searched to maxVisits
 * (mcts.h, the search of gt-gtp) and answered with the moves searched
 * (moveInfos: move, visits, edgeVisits, winrate, scoreLead, scoreMean,
 * scoreSelfplay, scoreStdev, prior, lcb, utility, utilityLcb, weight, order,
 * pv, and on request pvVisits and the move's ownership), rootInfo (with
 * the network's raw values), and on request the ownership (averaged over
 * the search, mcts.h) and the network's policy.
 * A gt game record (gt-record(5)) is a query too: every turn of the game,
 * its id the game_id. Positions of many queries are searched side by side,
 * their leaves evaluated in one call (the network's batch); with an
 * evaluator whose outputs do not depend on the batch (gt_neteval_set_exact)
 * an answer does not depend on what else is in flight. Final answers are
 * handed out in the order their turns were queued, whatever finishes
 * first; error, warning and action lines at once.
 *
 * Errors are KataGo's {"id":..,"error":..,"field":..} lines (the query is
 * then not searched); avoidMoves and allowMoves restrict the search
 * (gt_mcts_set_avoid); a field gt cannot honour (includeOwnershipStdev,
 * overrideSettings, ...), a field it does not know, and rules
 * it plays differently are answered with a {"id":..,"warning":..,"field":..}
 * line, and the query goes on. Actions: query_version, query_models,
 * clear_cache, terminate, terminate_all.
 */
#ifndef GT_ANALYZE_H
#define GT_ANALYZE_H
#include <stddef.h>

#include "gt.h"
#include "mcts.h"

/* Whose view values, scores and ownership are reported from (KataGo's
 * reportAnalysisWinratesAs). */
enum { GT_REPORT_BLACK = 0, GT_REPORT_WHITE = 1, GT_REPORT_SIDE = 2 };

typedef struct gt_analyze_params {
	int visits;        /* maxVisits of a query without one: 100 */
	int max_visits;    /* > 0: no search goes past this many visits, whatever
	                      a query asks (KataGo's maxPlayouts: an analysis
	                      tree starts empty); 0 */
	int parallel;      /* positions searched at once: 16 */
	int pv_len;        /* analysisPVLen of a query without one: 15 */
	int report;        /* GT_REPORT_BLACK (KataGo's analysis default) */
	int ownership;     /* includeOwnership of a record: 0 */
	int policy;        /* includePolicy of a record: 0 */
	const char *model; /* the model's name for query_models (borrowed): "none" */
	gt_mcts_params search; /* gt_mcts_params_default with leaves 1 */
} gt_analyze_params;

/* gt_analyze_params_default: the defaults above. */
void gt_analyze_params_default(gt_analyze_params *p);

typedef struct gt_analyzer gt_analyzer;

/* gt_analyzer_new: an analyzer searching with ev (borrowed; used by the
 * caller's thread only). Free with gt_analyzer_free. */
gt_analyzer *gt_analyzer_new(const gt_analyze_params *p, const gt_evaluator *ev);
void gt_analyzer_free(gt_analyzer *a);

/* gt_analyzer_add: one input line (len bytes, not NUL-terminated needed;
 * lineno for messages): a query, an action or a record. Answers that need
 * no search (errors, warnings, actions) are queued for output at once, the
 * turns to search are queued for gt_analyzer_step. */
void gt_analyzer_add(gt_analyzer *a, const char *line, size_t len, long lineno);

/* gt_analyzer_step: start queued turns up to params.parallel in flight,
 * evaluate one leaf of each search in flight in one evaluator call, and
 * queue the answers of the searches that are done (and the reports during
 * a search that reportDuringSearchEvery asks for). Returns 1 while turns
 * are queued or in flight, 0 when idle, or a negative gt_err of the
 * evaluator (e filled; the turns in flight are answered with an error). */
int gt_analyzer_step(gt_analyzer *a, gt_error *e);

/* gt_analyzer_output: the next answer, one JSON object without newline in
 * a new string (the caller frees), or NULL when none is waiting. */
char *gt_analyzer_output(gt_analyzer *a);

/* gt_analyzer_queued: turns waiting to start. */
long gt_analyzer_queued(const gt_analyzer *a);

/* gt_analyzer_errors: error lines answered so far. */
long gt_analyzer_errors(const gt_analyzer *a);

#endif
