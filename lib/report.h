/*
 * report.h: the status of a training run as a static web page
 * (gt-report(1), which documents every field of status.json).
 *
 * gt_report_make reads the store (models/latest.json, models/history.ndjson,
 * stats/contributions.json, the newest batches under games/ and, when the
 * run has learning units, diloco/), optionally the trainer's work folder
 * (generations.ndjson, gen/NNNN/validate.json and contrib.json,
 * data/manifest), computes one JSON object, status.json, draws its plots
 * with gnuplot (share/gt/report/plots.gp over data files written here),
 * fills the page from the template share/gt/report/index.html (tmpl.h),
 * and writes status.json, index.html, the plots (SVG) and the recent games
 * (SGF and an SVG picture of each final position) to a folder or back into
 * the store, index.html last.
 *
 * Everything read is untrusted: names and reasons reach the page only
 * through the template's escaping and gnuplot only as numbers or as labels
 * cut to [A-Za-z0-9._-]; lists are bounded (the limits below); a source
 * that is missing or does not parse leaves its part of the page empty with
 * a warning, never an error.
 */
#ifndef GT_REPORT_H
#define GT_REPORT_H
#include "gt.h"
#include "store.h"

/* Options of gt_report_make; strings borrowed. */
typedef struct gt_report_opts {
	const gt_store_opts *so;  /* store options (NULL: defaults) */
	const char *store;        /* the store's URL */
	const char *dest;         /* a folder or store URL for the site; NULL: STORE/site */
	const char *trainer;      /* the trainer's work folder, or NULL */
	const char *hours;        /* NDJSON lines {"generation":N or "name":NET,
	                           * "cpu_hours":H or "gpu_hours":H}, or NULL */
	const char *verify_key;   /* Ed25519 public key (PEM) for latest.json, or NULL */
	const char *share;        /* the folder holding report/index.html and report/plots.gp */
	const char *gnuplot;      /* the gnuplot program (PATH searched); NULL or "": no plots */
	const char *link;         /* URL of the store's models/ folder as the page should
	                           * link it; NULL: ../models when dest is NULL, else
	                           * the store's URL */
	const char *contribute;   /* the store's URL as workers reach it, for the page's
	                           * "how to contribute"; NULL: the store's URL when it
	                           * is http(s):// or s3://, else no such section */
	long long window;         /* the training window in rows (250000) */
	int max_workers;          /* contributors listed, the rest summed (100) */
	int max_games;            /* recent games shown (6) */
	int max_releases;         /* newest releases listed and plotted (2000) */
	long long now;            /* the page's time in seconds since the epoch; 0: the clock */
	/* warn: one line for each source skipped or line refused (may be NULL) */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
} gt_report_opts;

/* gt_report_opts_init: the defaults above, every pointer NULL. */
void gt_report_opts_init(gt_report_opts *o);

/* gt_report_make: make and write the page (see above). *where (may be
 * NULL) receives the URL or path of the written index.html (new string,
 * caller frees). Returns 0; GT_EINVAL (no store, or no template or plots
 * in the share folder), GT_ENOTFOUND (a local store folder that does not
 * exist), GT_EFORMAT (a broken template, or a latest.json that is not a
 * pointer), GT_EIO (the temporary folder), or the store's errors for
 * reading models/latest.json and writing the site. A gnuplot that fails
 * or cannot be started is a warning: the page goes without plots. */
int gt_report_make(const gt_report_opts *o, char **where, gt_error *e);

/* gt_report_board_svg: an SVG picture (new string, caller frees) of the
 * position color[n*n] (GT_EMPTY, GT_BLACK, GT_WHITE in point order, row 0
 * at the top; n 2..19), px pixels wide and high (16..4096, clamped), with
 * the last move's point marked (last < 0: none). */
char *gt_report_board_svg(int n, const unsigned char *color, int last, int px);

/* gt_report_chain_gain: what one match adds to the chained Elo: elo when
 * finite; when one side won every decisive game (elo infinite), the finite
 * bound of the 95% interval (lo for +inf, hi for -inf) or 0 when that bound
 * is on the other side of 0 or unknown; 0 for a match without decisive
 * games (elo NaN). */
double gt_report_chain_gain(double elo, double lo, double hi);

#endif
