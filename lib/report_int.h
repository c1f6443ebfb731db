/*
 * report_int.h: what the parts of gt-report share (report.c: the sources
 * and the writing; report_games.c: the recent and the match games;
 * report_plot.c: gnuplot). Not a public interface.
 */
#ifndef GT_REPORT_INT_H
#define GT_REPORT_INT_H
#include <jansson.h>
#include <stddef.h>

#include "report.h"

typedef struct rep {
	const gt_report_opts *o;
	gt_store_opts so;
	gt_error *e;
	long long now;
	char *stage;       /* the temporary folder the site is made in */
	json_t *st;        /* status.json */
	json_t *gens;      /* the trainer's generations, oldest first: {"generation",
	                    * "t","games","positions","rejected","by_reason","workers"} */
	json_t *genlines;  /* generations.ndjson lines by generation number (text key) */
	char model[256];   /* the current network without .bin.gz; "" when none */
	int uploads_known; /* games/ was listed: */
	long long uploads[3];   /* batches in games/ of the last day, week, all time */
	long long first_batch;  /* the oldest batch's time (0: none) */
} rep;

/* a name, its count and its object, to sort by count (largest first),
 * then by name */
typedef struct kv {
	const char *k;
	long long v;
	json_t *j;
	long long x;   /* one more number that goes with it */
} kv;

/* Bounds on what is read and shown (besides those of gt_report_opts). */
#define MAX_TEXT ((size_t)256 << 20)     /* history, generations, manifest */
#define MAX_SMALL ((size_t)1 << 20)      /* latest.json, a heartbeat */
#define MAX_NAME 100                     /* bytes of a name or reason shown */
#define MAX_REASONS 12                   /* reasons listed, the rest summed */
#define PLOT_REASONS 6                   /* reasons stacked, the rest as "other" */
#define MAX_UNITS 200
#define MAX_VERSIONS 50
#define GAME_BATCHES 8                   /* newest batches searched for games */
#define MAX_BATCH_BYTES ((long long)64 << 20)
#define HOURS_SHOWN 48
#define DAYS_SHOWN 60

/* rp_warnf: one warning line through the options' warn callback */
void __attribute__((format(printf, 2, 3))) rp_warnf(rep *r, const char *fmt, ...);
/* rp_parse_iso: "YYYY-MM-DDTHH:MM:SSZ" (s may be NULL) into seconds since
 * the epoch; 0, or -1 when s is not one */
int rp_parse_iso(const char *s, long long *t);
/* rp_iso: t as such a JSON string (null when out of range) */
json_t *rp_iso(long long t);
/* rp_num, rp_cnt, rp_str: o's member k as a double (NaN when not a
 * number), a count (0 when absent or not a number >= 0), a string (NULL) */
double rp_num(json_t *o, const char *k);
long long rp_cnt(json_t *o, const char *k);
const char *rp_str(json_t *o, const char *k);
/* rp_jname: s (may be NULL: null) cut to MAX_NAME bytes at a UTF-8
 * character boundary, as a JSON string */
json_t *rp_jname(const char *s);
/* rp_read_file: a local file of at most max bytes into a new
 * NUL-terminated *buf; 0, GT_ENOTFOUND, GT_ETOOLONG or GT_EIO */
int rp_read_file(const char *path, size_t max, char **buf, size_t *len, long long *mtime);
/* rp_write_text: text[n] as the file rel of the site being made; 0 or
 * GT_EIO (r->e filled) */
int rp_write_text(rep *r, const char *rel, const char *text, size_t n);
/* rp_add_to: o[k] += v (an integer member, 0 when absent) */
void rp_add_to(json_t *o, const char *k, long long v);
/* rp_kv_cmp: by v, largest first, then by k (qsort) */
int rp_kv_cmp(const void *a, const void *b);
/* rp_sorted: the members of o (new array, caller frees, borrowed
 * pointers); with counts only integers above 0, by rp_kv_cmp; without,
 * all by name; *n of them */
kv *rp_sorted(json_t *o, size_t *n, int counts);

/* rp_do_games: status "games", "games_of_current", "games_note" and the
 * files games/K.sgf, games/K.svg */
void rp_do_games(rep *r);
/* rp_do_matches: status "match" and the files matches/K.sgf, K.svg */
void rp_do_matches(rep *r);
/* rp_do_plots: the data files, gnuplot, status "plots"; 0 or an error */
int rp_do_plots(rep *r);

#endif
