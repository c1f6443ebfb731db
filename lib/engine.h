/*
 * engine.h: the search behind gt-gtp (gt-gtp(1) is the user's view): genmove
 * by PUCT search (mcts.h) under the GTP time controls, live analysis in
 * the forms the GUIs speak, dead stones, and the search summary.
 *
 * Analysis commands (streaming, gtp.h), each "[color] [interval]" then
 * "key value" pairs as Leela Zero and KataGo take them (interval in
 * centiseconds; keys interval, minmoves, maxmoves, KataGo's avoid and
 * allow (gt_mcts_set_avoid), and for the kata- forms and analyze
 * ownership, rootInfo, pvVisits, pvEdgeVisits, movesOwnership):
 *   lz-analyze, lz-genmove_analyze      Leela Zero's info lines: winrate,
 *                                       prior and lcb in 1/10000
 *   kata-analyze, kata-genmove_analyze  KataGo's keys: winrate, scoreMean,
 *                                       scoreLead, prior, lcb as fractions
 *                                       and points, "ownership" after the
 *                                       moves
 *   analyze, genmove_analyze            Sabaki's (its engine-analysis
 *                                       guide): the lz- integers, which
 *                                       Sabaki 0.60 reads for analyze,
 *                                       with scoreLead
 * Every "interval" one line lists the searched moves ("info move ... pv
 * ..."), values from the side to move's view. The search goes on from the
 * tree kept so far for as long as no command arrives (pondering); the
 * genmove forms stop at the visits or the time of a genmove and end with
 * "play VERTEX". Without an interval a line comes every second.
 *
 * Dead stones (final_status_list, final_score): score.h's judgement from
 * the mean of two ownership maps: the playouts', and, with a network, the
 * network's ownership averaged over a search of max(100, visits) visits
 * from the position in which passing is not searched (so the search plays
 * the game out instead of ending it with dead stones on the board:
 * KataGo's conservative pass for its status search). Without a network the
 * playouts alone.
 */
#ifndef GT_ENGINE_H
#define GT_ENGINE_H
#include <stdio.h>

#include "gtp.h"
#include "mcts.h"

typedef struct gt_engine_params {
	int visits;        /* visits of a genmove, kept tree included: 100 */
	double resign;     /* > 0: resign when the search's value is below -resign; 0 */
	int pv_len;        /* longest principal variation in analysis: 15 (KataGo's) */
	double max_time;   /* > 0: a genmove searches at most this many seconds,
	                      whatever the time controls allow (KataGo's maxTime); 0 */
	FILE *log;         /* the search summary after each genmove; NULL: none */
	const char *name;  /* prefix of the summary's lines ("gt-gtp") */
	gt_mcts_params search; /* the search's settings: gt_mcts_params_default
	                          with leaves 1 (the status search takes them too,
	                          with pass_from INT_MAX) */
	int threads;       /* search threads, each with its own evaluator (mcts.h
	                      gt_mcts_start): 1 (the search of one thread exactly) */
} gt_engine_params;

#define GT_ENGINE_MAX_THREADS 1024 /* most search threads */

/* gt_engine_params_default: the defaults above. */
void gt_engine_params_default(gt_engine_params *p);

typedef struct gt_engine gt_engine;

/* gt_engine_new: an engine searching with ev[0..p->threads-1] (taken:
 * closed by gt_engine_free; ev[t] for search thread t, ev[0] also for the
 * raw outputs and everything outside the search) under p (copied; log and
 * name borrowed). kata-set-param numSearchThreads chooses 1 to p->threads
 * of them. */
gt_engine *gt_engine_new(const gt_engine_params *p, gt_evaluator *ev);
void gt_engine_free(gt_engine *e);

/* gt_engine_attach: make e g's genmove and judge of dead stones, limit
 * g's board sizes to those its network plays (gt_gtp_set_max_size of
 * gt_neteval_max_n), and register the analysis commands above and
 * gt-ownership (the ownership map of a search, for GoGui: its
 * gogui-analyze_commands line is added).
 * Also KataGo's kata-raw-nn, kata-get-param, kata-set-param,
 * kata-list-params and clear_cache (gt-gtp(1)).
 * Returns 0 or gt_gtp_register's error. */
int gt_engine_attach(gt_engine *e, gt_gtp *g);

#endif
