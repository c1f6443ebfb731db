/* report.c: the run's status page (report.h, gt-report(1)). */
#include "report.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "board.h"
#include "diloco.h"
#include "model.h"
#include "record.h"
#include "sgf.h"
#include "sgfrec.h"
#include "sign.h"
#include "tmpl.h"
#include "util.h"

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

void gt_report_opts_init(gt_report_opts *o)
{
	*o = (gt_report_opts){ .window = 250000, .max_workers = 100, .max_games = 6,
	                       .max_releases = 2000 };
}

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
} rep;

static void __attribute__((format(printf, 2, 3))) warnf(rep *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	gt_vwarnf(r->o->warn, r->o->warn_ctx, fmt, ap);
	va_end(ap);
}

/* ---- small helpers ---- */

static int parse_iso(const char *s, long long *t)
{
	struct tm tm = {0};
	char z;
	if (!s || strlen(s) != 20 ||
	    sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
	           &tm.tm_min, &tm.tm_sec, &z) != 7 || z != 'Z')
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*t = (long long)timegm(&tm);
	return 0;
}

static json_t *iso(long long t)
{
	char b[32];
	return gt_iso_time(b, sizeof b, t) ? json_string(b) : json_null();
}

static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* cnt: a count field as an integer, 0 when absent or not a number >= 0 */
static long long cnt(json_t *o, const char *k)
{
	double x = num(o, k);
	return x >= 0 && x < 9e15 ? (long long)llround(x) : 0;
}

static const char *str(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* jnum: x as a JSON number, or null when not finite */
static json_t *jnum(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* jcount: x as a JSON integer when it is one, a real otherwise, null when
 * not finite */
static json_t *jcount(double x)
{
	if (isfinite(x) && x == floor(x) && fabs(x) < 9e15)
		return json_integer((json_int_t)x);
	return jnum(x);
}

/* jelo: an Elo value: a number, "+inf", "-inf", or null (NaN: unknown) */
static json_t *jelo(double x)
{
	if (isnan(x))
		return json_null();
	if (isinf(x))
		return json_string(x > 0 ? "+inf" : "-inf");
	return json_real(round(x * 100) / 100);
}

/* jname: s cut to MAX_NAME bytes at a UTF-8 character boundary */
static json_t *jname(const char *s)
{
	if (!s)
		return json_null();
	size_t n = strlen(s);
	if (n <= MAX_NAME)
		return json_string(s);
	n = MAX_NAME;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return json_stringn(s, n);
}

/* jtext: s as a JSON string, its bytes that are not ASCII made '?' when it
 * is not UTF-8 (a path or URL from the command line) */
static json_t *jtext(const char *s)
{
	json_t *j = json_string(s);
	if (j)
		return j;
	char *c = gt_xstrdup(s);
	for (char *p = c; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(c);
	free(c);
	return j;
}

static char *strip_gz(const char *name, char *buf, size_t n)
{
	snprintf(buf, n, "%s", name);
	size_t l = strlen(buf);
	if (l > 7 && !strcmp(buf + l - 7, ".bin.gz"))
		buf[l - 7] = 0;
	return buf;
}

/* pct_escape: new string with the bytes of s that are not unreserved in a
 * URL (RFC 3986) written as %XX */
static char *pct_escape(const char *s)
{
	char *o = gt_xmalloc(3 * strlen(s) + 1), *q = o;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~", *p))
			*q++ = (char)*p;
		else
			q += sprintf(q, "%%%02X", *p);
	}
	*q = 0;
	return o;
}

/* read_file: a local file into a new NUL-terminated buffer; 0, GT_ENOTFOUND,
 * GT_ETOOLONG or GT_EIO */
static int read_file(const char *path, size_t max, char **buf, size_t *len, long long *mtime)
{
	*buf = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return errno == ENOENT ? GT_ENOTFOUND : GT_EIO;
	struct stat sb;
	if (fstat(fileno(f), &sb) < 0 || !S_ISREG(sb.st_mode)) {
		fclose(f);
		return GT_EIO;
	}
	if ((unsigned long long)sb.st_size > max) {
		fclose(f);
		return GT_ETOOLONG;
	}
	if (mtime)
		*mtime = (long long)sb.st_mtime;
	char *b = gt_xmalloc((size_t)sb.st_size + 1);
	size_t n = fread(b, 1, (size_t)sb.st_size, f);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(b);
		return GT_EIO;
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}

/* as_json: the text b[n] (freed here) as JSON; NULL, with a warning
 * naming what, when it is not */
static json_t *as_json(rep *r, const char *what, char *b, size_t n)
{
	json_error_t je;
	json_t *j = json_loadb(b, n, 0, &je);
	free(b);
	if (!j)
		warnf(r, "%s: not JSON (line %d: %s); left out", what, je.line, je.text);
	return j;
}

/* load_local: a local JSON file (NULL when absent or bad, with a warning
 * for bad) */
static json_t *load_local(rep *r, const char *path, size_t max, long long *mtime)
{
	char *b;
	size_t n;
	int rc = read_file(path, max, &b, &n, mtime);
	if (rc) {
		if (rc != GT_ENOTFOUND)
			warnf(r, "%s: %s; left out", path, gt_strerror(rc));
		return NULL;
	}
	return as_json(r, path, b, n);
}

/* get_store: STORE/rel into a new buffer; 0, GT_ENOTFOUND, or an error (e
 * filled) */
static int get_store(rep *r, const char *rel, size_t max, char **buf, size_t *len, gt_error *e)
{
	char *url = gt_store_join(r->o->store, rel);
	int rc = gt_store_get_mem(&r->so, url, max, buf, len, e);
	free(url);
	return rc;
}

/* get_json: STORE/rel as JSON, NULL when absent; errors other than absence
 * are warnings */
static json_t *get_json(rep *r, const char *rel, size_t max)
{
	char *b;
	size_t n;
	gt_error e = {0};
	int rc = get_store(r, rel, max, &b, &n, &e);
	if (rc) {
		if (rc != GT_ENOTFOUND)
			warnf(r, "%s: %s; left out", rel, e.text);
		return NULL;
	}
	return as_json(r, rel, b, n);
}

/* each_line: call fn on every non-empty line of text that is a JSON object;
 * returns the number of lines that were not */
static long each_line(char *text, size_t len, void (*fn)(rep *, json_t *, void *), rep *r, void *ctx)
{
	long bad = 0;
	char *p = text, *end = text + len;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n > 0) {
			json_t *j = json_loadb(p, n, 0, NULL);
			if (json_is_object(j))
				fn(r, j, ctx);
			else
				bad++;
			json_decref(j);
		}
		p += n + 1;
	}
	return bad;
}

/* ---- the current network ---- */

static char *model_link(rep *r, const char *name)
{
	char *esc = pct_escape(name), *s;
	const char *store = r->o->store;
	size_t n;
	if (r->o->link) {
		n = strlen(r->o->link) + strlen(esc) + 2;
		s = gt_xmalloc(n);
		size_t l = strlen(r->o->link);
		snprintf(s, n, "%s%s%s", r->o->link, l && r->o->link[l - 1] == '/' ? "" : "/", esc);
	} else if (!r->o->dest) {
		n = strlen(esc) + 11;
		s = gt_xmalloc(n);
		snprintf(s, n, "../models/%s", esc);
	} else if (strstr(store, "://")) {
		n = strlen(store) + strlen(esc) + 10;
		s = gt_xmalloc(n);
		snprintf(s, n, "%s%smodels/%s", store, store[strlen(store) - 1] == '/' ? "" : "/", esc);
	} else {
		char *abs = realpath(store, NULL);
		const char *d = abs ? abs : store;
		n = strlen(d) + strlen(esc) + 20;
		s = gt_xmalloc(n);
		snprintf(s, n, "file://%s/models/%s", d, esc);
		free(abs);
	}
	free(esc);
	return s;
}

static int do_current(rep *r)
{
	char *b;
	size_t n;
	int rc = get_store(r, "models/latest.json", MAX_SMALL, &b, &n, r->e);
	if (rc == GT_ENOTFOUND) {
		json_object_set_new(r->st, "current", json_null());
		return 0;
	}
	if (rc)
		return rc;
	json_error_t je;
	json_t *l = json_loadb(b, n, 0, &je);
	const char *name = str(l, "name"), *sha = str(l, "sha256"), *why;
	if (!json_is_object(l) || !name || !gt_store_name_ok(name, &why)) {
		json_decref(l);
		free(b);
		return gt_error_set(r->e, GT_EFORMAT, -1, -1, "models/latest.json: not a pointer with a usable name");
	}
	strip_gz(name, r->model, sizeof r->model);
	json_t *c = json_object();
	json_object_set_new(c, "name", jname(name));
	json_object_set_new(c, "sha256", sha ? jname(sha) : json_null());
	json_object_set_new(c, "bytes", json_is_integer(json_object_get(l, "bytes")) ?
	                    json_integer(json_integer_value(json_object_get(l, "bytes"))) : json_null());
	json_object_set_new(c, "steps", jcount(num(l, "steps")));
	json_object_set_new(c, "rows", jcount(num(l, "rows")));
	json_object_set_new(c, "published", str(l, "published") ? jname(str(l, "published")) : json_null());
	const char *sig = str(l, "signature"), *code, *note;
	if (!sig) {
		code = "unsigned";
		note = "not signed";
	} else if (!r->o->verify_key) {
		code = "signed";
		note = "signed; not checked here (gt-report was given no key)";
	} else {
		gt_error e = {0};
		int v = gt_sign_pointer_verify(r->o->verify_key, b, n, &e);
		if (v == GT_EFORMAT)
			v = GT_ECHECKSUM;     /* a key twice: not what was signed */
		if (v == 0) {
			code = "verified";
			note = "signed, and the signature verifies with the run's public key";
		} else if (v == GT_ECHECKSUM) {
			code = "bad";
			note = "signed, but the signature does NOT verify with the run's public key";
		} else {
			warnf(r, "--verify-key: %s; the signature is not checked", e.text);
			code = "signed";
			note = "signed; not checked here (the key could not be read)";
		}
	}
	free(b);
	json_object_set_new(c, "signature", json_string(code));
	json_object_set_new(c, "signature_note", json_string(note));
	char *href = model_link(r, name);
	json_object_set_new(c, "href", jtext(href));
	free(href);
	json_object_set_new(c, "chain", json_null());
	json_object_set_new(r->st, "current", c);
	if (str(l, "series"))
		json_object_set_new(r->st, "series", jname(str(l, "series")));
	json_decref(l);
	return 0;
}

/* ---- releases ---- */

double gt_report_chain_gain(double elo, double lo, double hi)
{
	if (isfinite(elo))
		return elo;
	if (isinf(elo) && elo > 0)
		return isfinite(lo) && lo > 0 ? lo : 0;
	if (isinf(elo))
		return isfinite(hi) && hi < 0 ? hi : 0;
	return 0;
}

typedef struct hist {
	json_t *all;        /* releases, oldest first */
	long decisions;
	double chain;
	json_t *series;     /* of the last line that has one */
} hist;

static void history_line(rep *r, json_t *j, void *ctx)
{
	hist *h = ctx;
	h->decisions++;
	if (str(j, "series")) {
		json_decref(h->series);
		h->series = jname(str(j, "series"));
	}
	if (!json_is_true(json_object_get(j, "released")))
		return;
	json_t *s = json_object_get(j, "stats"), *ci = json_object_get(s, "elo_ci95");
	long long w = cnt(s, "wins"), l = cnt(s, "losses");
	double elo = num(s, "elo"), lo = NAN, hi = NAN;
	if (!isfinite(elo))
		elo = w > 0 && l == 0 ? INFINITY : l > 0 && w == 0 ? -INFINITY : NAN;
	if (json_is_array(ci) && json_array_size(ci) == 2) {
		json_t *a = json_array_get(ci, 0), *b = json_array_get(ci, 1);
		lo = json_is_number(a) ? json_number_value(a) : -INFINITY;
		hi = json_is_number(b) ? json_number_value(b) : INFINITY;
	}
	double gain = gt_report_chain_gain(elo, lo, hi);
	h->chain += gain;
	const char *name = str(j, "candidate");
	json_t *o = json_object();
	json_object_set_new(o, "n", json_integer((json_int_t)json_array_size(h->all) + 1));
	json_object_set_new(o, "name", jname(name));
	json_object_set_new(o, "steps", jcount(num(j, "steps")));
	long long rows = name ? gt_model_name_number(name, 'd') : -1;
	json_object_set_new(o, "rows", rows >= 0 ? json_integer(rows) : json_null());
	json_object_set_new(o, "time", str(j, "time") ? jname(str(j, "time")) : json_null());
	const char *ref = str(s, "b");
	json_object_set_new(o, "reference", !ref ? json_null() :
	                    !strcmp(ref, "none") ? json_string("the uniform evaluator") : jname(ref));
	json_object_set_new(o, "games", json_integer(cnt(s, "games")));
	json_object_set_new(o, "wins", json_integer(w));
	json_object_set_new(o, "draws", json_integer(cnt(s, "draws")));
	json_object_set_new(o, "losses", json_integer(l));
	json_object_set_new(o, "elo", jelo(elo));
	json_object_set_new(o, "elo_lo", jelo(lo));
	json_object_set_new(o, "elo_hi", jelo(hi));
	json_object_set_new(o, "gain", jnum(round(gain * 100) / 100));
	json_object_set_new(o, "chain", jnum(round(h->chain * 100) / 100));
	json_object_set_new(o, "hours", json_null());
	json_object_set_new(o, "reason", str(j, "reason") ? jname(str(j, "reason")) : json_null());
	json_array_append_new(h->all, o);
}

static int do_history(rep *r)
{
	hist h = { .all = json_array() };
	char *b;
	size_t n;
	gt_error e = {0};
	int rc = get_store(r, "models/history.ndjson", MAX_TEXT, &b, &n, &e);
	if (rc && rc != GT_ENOTFOUND)
		warnf(r, "models/history.ndjson: %s; no releases shown", e.text);
	if (!rc) {
		long bad = each_line(b, n, history_line, r, &h);
		if (bad)
			warnf(r, "models/history.ndjson: %ld lines that are not JSON objects left out", bad);
		free(b);
	}
	if (json_is_null(json_object_get(r->st, "series")) && h.series)
		json_object_set(r->st, "series", h.series);
	json_decref(h.series);
	size_t total = json_array_size(h.all), keep = total;
	if (keep > (size_t)r->o->max_releases)
		keep = (size_t)r->o->max_releases;
	json_t *rel = json_array();
	for (size_t i = 0; i < keep; i++)
		json_array_append(rel, json_array_get(h.all, total - 1 - i));
	json_decref(h.all);
	json_object_set_new(r->st, "decisions", json_integer(h.decisions));
	json_object_set_new(r->st, "releases_total", json_integer((json_int_t)total));
	json_object_set_new(r->st, "releases", rel);
	/* the current network's chain: its release (the newest of its name) */
	json_t *cur = json_object_get(r->st, "current");
	for (size_t i = 0; cur && i < keep; i++) {
		json_t *x = json_array_get(rel, i);
		const char *nm = str(x, "name"), *cn = str(cur, "name");
		if (nm && cn && !strcmp(nm, cn)) {
			json_object_set(cur, "chain", json_object_get(x, "chain"));
			json_object_set(cur, "elo", json_object_get(x, "elo"));
			break;
		}
	}
	return 0;
}

/* ---- the trainer's work folder ---- */

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void genline(rep *r, json_t *j, void *ctx)
{
	(void)ctx;
	json_t *g = json_object_get(j, "generation");
	if (!json_is_integer(g))
		return;
	char k[32];
	snprintf(k, sizeof k, "%lld", (long long)json_integer_value(g));
	json_object_set(r->genlines, k, j);
}

static void do_trainer(rep *r)
{
	const char *w = r->o->trainer;
	char path[4096];
	r->gens = json_array();
	r->genlines = json_object();
	if (!w)
		return;
	snprintf(path, sizeof path, "%s/generations.ndjson", w);
	char *b;
	size_t n;
	int rc = read_file(path, MAX_TEXT, &b, &n, NULL);
	if (!rc) {
		each_line(b, n, genline, r, NULL);
		free(b);
	} else if (rc != GT_ENOTFOUND) {
		warnf(r, "%s: %s", path, gt_strerror(rc));
	}
	snprintf(path, sizeof path, "%s/gen", w);
	DIR *d = opendir(path);
	if (!d) {
		warnf(r, "%s: %s; no data by generation", path, strerror(errno));
		return;
	}
	size_t cap = 64, ng = 0;
	char **names = gt_xmalloc(cap * sizeof *names);
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 4 || l > 9 || strspn(de->d_name, "0123456789") != l)
			continue;
		GT_GROW(names, ng + 1, cap, 64);
		/* zero-padded to 9 digits so that the text order is the number order */
		names[ng] = gt_xmalloc(16);
		snprintf(names[ng], 16, "%09ld", strtol(de->d_name, NULL, 10));
		ng++;
	}
	closedir(d);
	qsort(names, ng, sizeof *names, name_cmp);
	for (size_t i = 0; i < ng; i++) {
		long N = strtol(names[i], NULL, 10);
		long long t;
		snprintf(path, sizeof path, "%s/gen/%04ld/validate.json", w, N);
		json_t *v = load_local(r, path, MAX_TEXT, &t);
		if (!json_is_object(v)) {
			json_decref(v);
			continue;
		}
		snprintf(path, sizeof path, "%s/gen/%04ld/contrib.json", w, N);
		json_t *c = load_local(r, path, MAX_TEXT, NULL);
		json_t *g = json_object(), *by = json_object_get(v, "rejects_by_reason");
		json_object_set_new(g, "generation", json_integer(N));
		json_object_set_new(g, "t", json_integer(t));
		json_object_set_new(g, "games", json_integer(cnt(v, "records_out")));
		json_object_set_new(g, "positions", json_integer(cnt(v, "positions")));
		json_object_set_new(g, "rejected", json_integer(cnt(v, "rejected")));
		json_t *cw = json_object_get(c, "workers");
		json_object_set_new(g, "by_reason", json_is_object(by) ? json_incref(by) : json_object());
		json_object_set_new(g, "workers", json_is_object(cw) ? json_incref(cw) : json_object());
		json_array_append_new(r->gens, g);
		json_decref(v);
		json_decref(c);
	}
	for (size_t i = 0; i < ng; i++)
		free(names[i]);
	free(names);
}

/* the window: the newest shards of data/manifest holding window rows */
static json_t *window_of(rep *r)
{
	char path[4096], *b;
	size_t n;
	if (!r->o->trainer)
		return json_null();
	snprintf(path, sizeof path, "%s/data/manifest", r->o->trainer);
	if (read_file(path, MAX_TEXT, &b, &n, NULL))
		return json_null();
	long long rows = 0, shards = 0, oldest = -1, newest = -1;
	char *end = b + n, *p = end;
	while (p > b && rows < r->o->window) {
		char *q = p - 1;
		while (q > b && q[-1] != '\n')
			q--;
		json_t *j = json_loadb(q, (size_t)(p - q), 0, NULL);
		long long t;
		/* shards of KataGo's keys are not in gt-train's window */
		if (json_is_object(j) && !json_object_get(j, "keys") && !parse_iso(str(j, "time"), &t)) {
			rows += cnt(j, "rows");
			shards++;
			oldest = t;
			if (newest < 0)
				newest = t;
		}
		json_decref(j);
		p = q;
		if (p > b)
			p--;     /* the newline before this line */
	}
	free(b);
	if (shards == 0)
		return json_null();
	json_t *w = json_object();
	json_object_set_new(w, "rows", json_integer(rows < r->o->window ? rows : r->o->window));
	json_object_set_new(w, "limit", json_integer(r->o->window));
	json_object_set_new(w, "shards", json_integer(shards));
	json_object_set_new(w, "oldest", iso(oldest));
	json_object_set_new(w, "newest", iso(newest));
	json_object_set_new(w, "age_hours", json_real(round((r->now - oldest) / 36.0) / 100));
	return w;
}

/* ---- hours ---- */

typedef struct hours_ctx {
	json_t *by_name;  /* network name without .bin.gz -> {"cpu":H,"gpu":H} */
} hours_ctx;

static void hours_line(rep *r, json_t *j, void *ctx)
{
	hours_ctx *h = ctx;
	const char *name = str(j, "name");
	char buf[256];
	if (!name && json_is_integer(json_object_get(j, "generation"))) {
		char k[32];
		snprintf(k, sizeof k, "%lld", (long long)json_integer_value(json_object_get(j, "generation")));
		name = str(json_object_get(r->genlines, k), "candidate");
	}
	if (!name)
		return;
	strip_gz(name, buf, sizeof buf);
	json_t *o = json_object();
	if (isfinite(num(j, "cpu_hours")))
		json_object_set_new(o, "cpu", json_real(num(j, "cpu_hours")));
	if (isfinite(num(j, "gpu_hours")))
		json_object_set_new(o, "gpu", json_real(num(j, "gpu_hours")));
	json_object_set_new(h->by_name, buf, o);
}

static void do_hours(rep *r)
{
	json_object_set_new(r->st, "hours_kind", json_null());
	if (!r->o->hours)
		return;
	char *b;
	size_t n;
	int rc = read_file(r->o->hours, MAX_TEXT, &b, &n, NULL);
	if (rc) {
		warnf(r, "%s: %s; no plot by hours", r->o->hours, gt_strerror(rc));
		return;
	}
	hours_ctx h = { json_object() };
	each_line(b, n, hours_line, r, &h);
	free(b);
	json_t *rel = json_object_get(r->st, "releases");
	const char *kind = NULL;
	for (int pass = 0; pass < 2 && !kind; pass++) {
		const char *k = pass == 0 ? "gpu" : "cpu";
		for (size_t i = 0; i < json_array_size(rel); i++) {
			char buf[256];
			const char *nm = str(json_array_get(rel, i), "name");
			json_t *o = nm ? json_object_get(h.by_name, strip_gz(nm, buf, sizeof buf)) : NULL;
			if (json_object_get(o, k))
				kind = k;
		}
	}
	for (size_t i = 0; kind && i < json_array_size(rel); i++) {
		char buf[256];
		json_t *x = json_array_get(rel, i);
		const char *nm = str(x, "name");
		json_t *o = nm ? json_object_get(h.by_name, strip_gz(nm, buf, sizeof buf)) : NULL;
		double v = num(o, kind);
		json_object_set_new(x, "hours", jnum(isfinite(v) ? round(v * 1e4) / 1e4 : NAN));
	}
	if (kind)
		json_object_set_new(r->st, "hours_kind", json_string(!strcmp(kind, "gpu") ? "GPU-hours" : "CPU-hours"));
	json_decref(h.by_name);
}

/* ---- data over time ---- */

static void add_to(json_t *o, const char *k, long long v)
{
	json_object_set_new(o, k, json_integer(json_integer_value(json_object_get(o, k)) + v));
}

/* bins: the generations' counts in bins of width seconds, at most max
 * bins ending with the one that holds now, from the first with data */
static json_t *bins(rep *r, long long width, int max)
{
	json_t *a = json_array();
	size_t ng = json_array_size(r->gens);
	if (ng == 0)
		return a;
	long long last = r->now - ((r->now % width) + width) % width, first = last - (max - 1) * width;
	long long t0 = json_integer_value(json_object_get(json_array_get(r->gens, 0), "t"));
	t0 -= ((t0 % width) + width) % width;
	if (t0 > first)
		first = t0;
	if (first > last)
		return a;
	for (long long t = first; t <= last; t += width) {
		json_t *b = json_object();
		json_object_set_new(b, "time", iso(t));
		json_object_set_new(b, "games", json_integer(0));
		json_object_set_new(b, "positions", json_integer(0));
		json_object_set_new(b, "rejected", json_integer(0));
		json_object_set_new(b, "by_reason", json_object());
		json_array_append_new(a, b);
	}
	for (size_t i = 0; i < ng; i++) {
		json_t *g = json_array_get(r->gens, i);
		long long t = json_integer_value(json_object_get(g, "t"));
		if (t < first || t >= last + width)
			continue;
		json_t *b = json_array_get(a, (size_t)((t - first) / width));
		add_to(b, "games", cnt(g, "games"));
		add_to(b, "positions", cnt(g, "positions"));
		add_to(b, "rejected", cnt(g, "rejected"));
		const char *k;
		json_t *v;
		json_object_foreach(json_object_get(g, "by_reason"), k, v)
			if (json_is_integer(v) && json_integer_value(v) > 0)
				add_to(json_object_get(b, "by_reason"), k, json_integer_value(v));
	}
	return a;
}

/* a name, its count and its object, to sort by count (largest first),
 * then by name */
typedef struct kv {
	const char *k;
	long long v;
	json_t *j;
	long long x;   /* one more number that goes with it */
} kv;

static int kv_cmp(const void *a, const void *b)
{
	const kv *x = a, *y = b;
	if (x->v != y->v)
		return x->v > y->v ? -1 : 1;
	return strcmp(x->k, y->k);
}

/* sorted: the members of o; with counts, only those that are integers
 * above 0, largest first, then by name; without, all of them by name; *n
 * of them */
static kv *sorted(json_t *o, size_t *n, int counts)
{
	kv *v = gt_xmalloc((json_object_size(o) + 1) * sizeof *v);
	size_t k = 0;
	const char *key;
	json_t *x;
	json_object_foreach(o, key, x) {
		if (!counts || (json_is_integer(x) && json_integer_value(x) > 0)) {
			v[k].k = key;
			v[k].j = x;
			v[k++].v = counts ? json_integer_value(x) : 0;
		}
	}
	qsort(v, k, sizeof *v, kv_cmp);
	*n = k;
	return v;
}

static void do_data(rep *r, json_t *contrib)
{
	json_t *d = json_object(), *reasons = json_object();
	long long games = 0, pos = 0, rej = 0;
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(contrib, "workers"), k, v) {
		games += cnt(v, "games");
		pos += cnt(v, "positions");
		rej += cnt(v, "rejected");
	}
	json_object_set_new(d, "games", json_integer(games));
	json_object_set_new(d, "positions", json_integer(pos));
	json_object_set_new(d, "rejected", json_integer(rej));
	size_t ng = json_array_size(r->gens);
	json_object_set_new(d, "generations", json_integer((json_int_t)ng));
	for (size_t i = 0; i < ng; i++)
		json_object_foreach(json_object_get(json_array_get(r->gens, i), "by_reason"), k, v)
			if (json_is_integer(v) && json_integer_value(v) > 0)
				add_to(reasons, k, json_integer_value(v));
	size_t nr;
	kv *s = sorted(reasons, &nr, 1);
	json_t *list = json_array();
	long long others = 0;
	for (size_t i = 0; i < nr; i++) {
		if (i < MAX_REASONS) {
			json_t *o = json_object();
			json_object_set_new(o, "reason", jname(s[i].k));
			json_object_set_new(o, "count", json_integer(s[i].v));
			json_array_append_new(list, o);
		} else {
			others += s[i].v;
		}
	}
	free(s);
	json_decref(reasons);
	json_object_set_new(d, "reasons", list);
	json_object_set_new(d, "reasons_others", json_integer(others));
	json_object_set_new(d, "per_hour", bins(r, 3600, HOURS_SHOWN));
	json_object_set_new(d, "per_day", bins(r, 86400, DAYS_SHOWN));
	long long t0 = ng ? json_integer_value(json_object_get(json_array_get(r->gens, 0), "t")) : r->now;
	json_object_set_new(d, "rejects_by", json_string(r->now - t0 <= 72 * 3600 ? "hour" : "day"));
	json_object_set_new(d, "window", window_of(r));
	/* the trainer's generations, newest first */
	json_t *gl = json_array();
	for (size_t i = ng; i-- > 0 && json_array_size(gl) < (size_t)r->o->max_releases;) {
		json_t *g = json_array_get(r->gens, i), *o = json_object();
		char key[32];
		snprintf(key, sizeof key, "%lld", (long long)json_integer_value(json_object_get(g, "generation")));
		json_t *l = json_object_get(r->genlines, key);
		json_object_set(o, "generation", json_object_get(g, "generation"));
		json_object_set_new(o, "time", iso(json_integer_value(json_object_get(g, "t"))));
		json_object_set(o, "games", json_object_get(g, "games"));
		json_object_set(o, "positions", json_object_get(g, "positions"));
		json_object_set(o, "rejected", json_object_get(g, "rejected"));
		json_object_set_new(o, "rows", jcount(num(l, "rows")));
		json_object_set_new(o, "steps", jcount(num(l, "steps")));
		json_object_set_new(o, "candidate", str(l, "candidate") ? jname(str(l, "candidate")) : json_null());
		json_t *rel = json_object_get(l, "released");
		json_object_set_new(o, "released", json_is_boolean(rel) ? json_boolean(json_is_true(rel)) : json_null());
		json_array_append_new(gl, o);
	}
	json_object_set_new(d, "trainer_generations", gl);
	json_object_set_new(r->st, "data", d);
}

/* ---- contributors ---- */

static void do_workers(rep *r, json_t *contrib)
{
	json_t *ws = json_object_get(contrib, "workers"), *out = json_object(), *list = json_array();
	size_t n = json_object_size(ws), k = 0;
	kv *v = gt_xmalloc((n + 1) * sizeof *v);
	const char *key;
	json_t *x;
	json_object_foreach(ws, key, x) {
		if (!json_is_object(x))
			continue;
		v[k].k = key;
		v[k].j = x;
		v[k++].v = cnt(x, "games");
	}
	qsort(v, k, sizeof *v, kv_cmp);
	/* first seen and the last day's games, from the trainer's generations */
	json_t *first = json_object(), *day = json_object();
	long long day_total = 0;
	for (size_t i = 0; i < json_array_size(r->gens); i++) {
		json_t *g = json_array_get(r->gens, i);
		long long t = json_integer_value(json_object_get(g, "t"));
		json_object_foreach(json_object_get(g, "workers"), key, x) {
			if (!json_object_get(first, key))
				json_object_set_new(first, key, json_integer(t));
			if (t > r->now - 86400 && t <= r->now) {
				add_to(day, key, cnt(x, "games"));
				day_total += cnt(x, "games");
			}
		}
	}
	json_t *others = json_object();
	long long og = 0, op = 0, orj = 0, oc = 0;
	for (size_t i = 0; i < k; i++) {
		json_t *w = v[i].j;
		if (i >= (size_t)r->o->max_workers) {
			oc++;
			og += cnt(w, "games");
			op += cnt(w, "positions");
			orj += cnt(w, "rejected");
			continue;
		}
		json_t *o = json_object(), *f = json_object_get(first, v[i].k);
		json_object_set_new(o, "rank", json_integer((json_int_t)i + 1));
		json_object_set_new(o, "name", jname(v[i].k));
		json_object_set_new(o, "games", json_integer(cnt(w, "games")));
		json_object_set_new(o, "positions", json_integer(cnt(w, "positions")));
		json_object_set_new(o, "rejected", json_integer(cnt(w, "rejected")));
		json_object_set_new(o, "first", f ? iso(json_integer_value(f)) : json_null());
		json_object_set_new(o, "last", str(w, "last") ? jname(str(w, "last")) : json_null());
		json_object_set_new(o, "day_share", day_total > 0 ?
		                    json_real(round(1e4 * (double)json_integer_value(json_object_get(day, v[i].k)) /
		                                    (double)day_total) / 1e4) : json_null());
		json_array_append_new(list, o);
	}
	free(v);
	json_decref(first);
	json_decref(day);
	json_object_set_new(out, "total", json_integer((json_int_t)k));
	json_object_set_new(out, "list", list);
	if (oc) {
		json_object_set_new(others, "count", json_integer(oc));
		json_object_set_new(others, "games", json_integer(og));
		json_object_set_new(others, "positions", json_integer(op));
		json_object_set_new(others, "rejected", json_integer(orj));
		json_object_set_new(out, "others", others);
	} else {
		json_decref(others);
		json_object_set_new(out, "others", json_null());
	}
	json_object_set_new(out, "day_games", day_total > 0 ? json_integer(day_total) : json_null());
	json_object_set_new(r->st, "workers", out);
}

/* ---- learning units ---- */

typedef struct vent {
	uint64_t v;
	long long mtime;
} vent;

static int vent_cmp(const void *a, const void *b)
{
	const vent *x = a, *y = b;
	return x->v < y->v ? 1 : x->v > y->v ? -1 : 0;
}

static json_t *unit_row(json_t *units, const char *id)
{
	json_t *u = json_object_get(units, id);
	if (!u) {
		u = json_object();
		json_object_set_new(u, "unit", jname(id));
		json_object_set_new(u, "state", json_null());
		json_object_set_new(u, "last", json_null());
		json_object_set_new(u, "version", json_null());
		json_object_set_new(u, "rounds", json_null());
		json_object_set_new(u, "samples", json_null());
		json_object_set_new(u, "loss", json_null());
		json_object_set_new(u, "applied", json_integer(0));
		json_object_set_new(u, "stale", json_integer(0));
		json_object_set_new(u, "bytes_sent", json_null());
		json_object_set_new(units, id, u);
	}
	return u;
}

static void do_units(rep *r)
{
	gt_diloco_ptr p;
	gt_error e = {0};
	int rc = gt_diloco_ptr_read(&r->so, r->o->store, &p, NULL, &e);
	if (rc) {
		if (rc != GT_ENOTFOUND)
			warnf(r, "diloco/current.json: %s; no learning units shown", e.text);
		json_object_set_new(r->st, "units", json_null());
		return;
	}
	json_t *U = json_object(), *units = json_object();
	json_object_set_new(U, "version", json_integer((json_int_t)p.version));
	json_object_set_new(U, "time", iso((long long)p.time));
	/* heartbeats */
	gt_store_entry *ents;
	size_t n;
	char *url = gt_diloco_url(r->o->store, "heartbeats/");
	if (!gt_store_list(&r->so, url, &ents, &n, &e)) {
		for (size_t i = 0; i < n && json_object_size(units) < MAX_UNITS; i++) {
			size_t l = strlen(ents[i].name);
			if (l < 6 || strcmp(ents[i].name + l - 5, ".json"))
				continue;
			char id[64], rel[128];
			snprintf(id, sizeof id, "%.*s", (int)(l - 5 < 63 ? l - 5 : 63), ents[i].name);
			if (!gt_diloco_unit_ok(id))
				continue;
			snprintf(rel, sizeof rel, "diloco/heartbeats/%s", ents[i].name);
			json_t *h = get_json(r, rel, MAX_SMALL), *u;
			if (!json_is_object(h)) {
				json_decref(h);
				continue;
			}
			u = unit_row(units, id);
			json_object_set_new(u, "state", str(h, "state") ? jname(str(h, "state")) : json_null());
			json_object_set_new(u, "last", isfinite(num(h, "time")) ? iso((long long)num(h, "time")) : json_null());
			json_object_set_new(u, "version", jcount(num(h, "version")));
			json_object_set_new(u, "rounds", jcount(num(h, "deltas")));
			json_object_set_new(u, "samples", jcount(num(h, "samples")));
			json_object_set_new(u, "loss", jnum(num(h, "loss")));
			json_decref(h);
		}
		gt_store_entries_free(ents, n);
	}
	free(url);
	/* ledgers of the newest versions */
	json_t *versions = json_array();
	url = gt_diloco_url(r->o->store, "versions/");
	if (!gt_store_list(&r->so, url, &ents, &n, &e)) {
		vent *vs = gt_xmalloc((n + 1) * sizeof *vs);
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			char *end;
			const char *nm = ents[i].name;
			if (nm[0] != 'v' || nm[1] < '0' || nm[1] > '9')
				continue;
			errno = 0;
			unsigned long long x = strtoull(nm + 1, &end, 10);
			if (errno || strcmp(end, ".json"))
				continue;
			vs[k].v = x;
			vs[k++].mtime = ents[i].mtime;
		}
		qsort(vs, k, sizeof *vs, vent_cmp);
		json_object_set_new(U, "versions_total", json_integer((json_int_t)k));
		for (size_t i = 0; i < k && i < MAX_VERSIONS; i++) {
			char rel[64];
			snprintf(rel, sizeof rel, "diloco/versions/v%llu.json", (unsigned long long)vs[i].v);
			json_t *L = get_json(r, rel, MAX_TEXT), *ds = json_object_get(L, "deltas");
			long long stale = 0;
			for (size_t j = 0; j < json_array_size(ds); j++) {
				json_t *d = json_array_get(ds, j);
				const char *id = str(d, "unit");
				double base = num(d, "base_version");
				int st = isfinite(base) && base + 1 < (double)vs[i].v;
				stale += st;
				if (id && gt_diloco_unit_ok(id) &&
				    (json_object_get(units, id) || json_object_size(units) < MAX_UNITS)) {
					json_t *u = unit_row(units, id);
					add_to(u, "applied", 1);
					add_to(u, "stale", st);
				}
			}
			json_t *o = json_object();
			json_object_set_new(o, "version", json_integer((json_int_t)vs[i].v));
			json_object_set_new(o, "time", vs[i].mtime >= 0 ? iso(vs[i].mtime) : json_null());
			json_object_set_new(o, "deltas", json_integer((json_int_t)json_array_size(ds)));
			json_object_set_new(o, "samples", jcount(num(L, "samples")));
			json_object_set_new(o, "stale", json_integer(stale));
			json_array_append_new(versions, o);
			json_decref(L);
		}
		free(vs);
		gt_store_entries_free(ents, n);
	} else {
		json_object_set_new(U, "versions_total", json_integer(0));
	}
	free(url);
	/* bytes of each unit's deltas in the store; the units by name */
	size_t nu = 0;
	kv *us = sorted(units, &nu, 0);
	json_t *list = json_array();
	for (size_t i = 0; i < nu; i++) {
		const char *id = us[i].k;
		json_t *u = us[i].j;
		url = gt_diloco_url(r->o->store, "deltas/%s/", id);
		if (!gt_store_list(&r->so, url, &ents, &n, &e)) {
			long long bytes = 0;
			for (size_t i = 0; i < n; i++)
				bytes += ents[i].bytes > 0 ? ents[i].bytes : 0;
			json_object_set_new(u, "bytes_sent", json_integer(bytes));
			gt_store_entries_free(ents, n);
		}
		free(url);
		json_array_append(list, u);
	}
	free(us);
	json_decref(units);
	json_object_set_new(U, "units", list);
	json_object_set_new(U, "versions", versions);
	json_object_set_new(r->st, "units", U);
}

/* ---- recent games ---- */

char *gt_report_board_svg(int n, const unsigned char *color, int last, int px)
{
	/* a stone under 200 bytes, a grid line under 128 */
	px = px < 16 ? 16 : px > 4096 ? 4096 : px;
	size_t cap = 1024 + (size_t)n * n * 200 + (size_t)n * 128;
	char *s = gt_xmalloc(cap);
	size_t k = 0;
	double c = px / (n + 1.0), r = c * 0.47;
#define OUT(...) (k += (size_t)snprintf(s + k, cap - k, __VA_ARGS__))
	OUT("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
	    px, px, px, px);
	OUT("<rect width=\"%d\" height=\"%d\" fill=\"#dcb35c\"/>\n", px, px);
	OUT("<path stroke=\"#000\" stroke-width=\"1\" d=\"");
	for (int i = 0; i < n; i++)
		OUT("M%.1f %.1fH%.1fM%.1f %.1fV%.1f", c, c * (i + 1), c * n, c * (i + 1), c, c * n);
	OUT("\"/>\n");
	for (int p = 0; p < n * n; p++) {
		if (color[p] != GT_BLACK && color[p] != GT_WHITE)
			continue;
		int black = color[p] == GT_BLACK;
		OUT("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" stroke=\"#000\"/>\n", c * (p % n + 1),
		    c * (p / n + 1), r, black ? "#000" : "#fff");
		if (p == last)
			OUT("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
			    c * (p % n + 1), c * (p / n + 1), r * 0.5, black ? "#fff" : "#000");
	}
	OUT("</svg>\n");
#undef OUT
	return s;
}

/* batch_time: the time in a batch name WORKER-YYYYMMDDTHHMMSSZ-RAND..., or
 * the listing's mtime */
static long long batch_time(const gt_store_entry *en)
{
	const char *p = en->name, *q;
	while ((q = strchr(p, '-'))) {
		p = q + 1;
		char iso_[21];
		if (strlen(p) > 16 && p[8] == 'T' && p[15] == 'Z' && p[16] == '-') {
			snprintf(iso_, sizeof iso_, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", p, p + 4, p + 6, p + 9, p + 11,
			         p + 13);
			long long t;
			if (!parse_iso(iso_, &t))
				return t;
		}
	}
	return en->mtime;
}

static int write_text(rep *r, const char *rel, const char *text, size_t n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", r->stage, rel);
	FILE *f = fopen(path, "wb");
	if (!f)
		return gt_error_set(r->e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
	int bad = fwrite(text, 1, n, f) != n;
	bad |= fclose(f) != 0;
	return bad ? gt_error_set(r->e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno)) : 0;
}

/* show_game: replay a record line, write games/K.sgf and games/K.svg and
 * add its entry; 0 shown, 1 refused, 2 not of model (when not NULL) */
static int show_game(rep *r, const char *line, size_t len, const char *model, json_t *list)
{
	gt_record rec;
	gt_record_init(&rec);
	gt_error e = {0};
	gt_sgf_game g;
	gt_board *b = gt_xmalloc(sizeof *b);
	const gt_rules *rules;
	int rc = 1, last = -1;
	if (gt_record_parse(&rec, line, len, &e))
		goto out;
	if (model && (!rec.model || strcmp(rec.model, model))) {
		rc = 2;
		goto out;
	}
	if (!(rules = gt_rules_find(rec.rules)) || gt_board_init(b, rec.board_size, rules, rec.komi))
		goto out;
	for (int c = GT_BLACK; c <= GT_WHITE; c++)
		for (int i = 0; i < rec.nsetup[c]; i++)
			if (gt_board_setup(b, c, rec.setup[c][i]))
				goto out;
	gt_board_set_to_move(b, rec.first_to_move);
	for (int i = 0; i < rec.nmoves; i++) {
		if (gt_board_play(b, rec.colors[i], rec.moves[i]))
			goto out;
		last = rec.moves[i] < rec.board_size * rec.board_size ? rec.moves[i] : -1;
	}
	if (gt_sgfrec_from_record(&rec, &g, &e))
		goto out;
	size_t sl;
	char *sgf = gt_sgf_write_str(&g, &sl);
	gt_sgf_game_release(&g);
	size_t k = json_array_size(list) + 1;
	char rel_sgf[32], rel_svg[32];
	snprintf(rel_sgf, sizeof rel_sgf, "games/%zu.sgf", k);
	snprintf(rel_svg, sizeof rel_svg, "games/%zu.svg", k);
	char *svg = gt_report_board_svg(rec.board_size, b->color, last, 152);
	int w = write_text(r, rel_sgf, sgf, sl) || write_text(r, rel_svg, svg, strlen(svg));
	free(sgf);
	free(svg);
	if (w)
		goto out;
	json_t *o = json_object();
	json_object_set_new(o, "n", json_integer((json_int_t)k));
	json_object_set_new(o, "model", jname(rec.model));
	json_object_set_new(o, "worker", jname(rec.worker));
	json_object_set_new(o, "game_id", jname(rec.game_id));
	json_object_set_new(o, "board_size", json_integer(rec.board_size));
	json_object_set_new(o, "komi", json_real(rec.komi));
	json_object_set_new(o, "moves", json_integer(rec.nmoves));
	json_object_set_new(o, "result", jname(rec.result));
	json_object_set_new(o, "sgf", json_string(rel_sgf));
	json_object_set_new(o, "svg", json_string(rel_svg));
	json_array_append_new(list, o);
	rc = 0;
out:
	free(b);
	gt_record_release(&rec);
	return rc;
}

/* names_model: whether the record line has "model":"<model>" (blanks
 * allowed around ':'); a quick filter, the parse decides */
static int names_model(const char *line, size_t len, const char *model)
{
	size_t ml = strlen(model);
	const char *p = line, *end = line + len;
	while ((p = memmem(p, (size_t)(end - p), "\"model\"", 7))) {
		p += 7;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end || *p++ != ':')
			continue;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(end - p) > ml + 1 && *p == '"' && !memcmp(p + 1, model, ml) && p[ml + 1] == '"')
			return 1;
	}
	return 0;
}

/* scan: line numbers (in order) of the last want lines of the batch file,
 * only those naming model when model is not NULL; *nl of them */
static long scan(const char *path, const char *model, long *lines, int want)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	gt_record_reader *rd = gt_record_reader_new(f, path, (size_t)16 << 20);
	const char *line;
	size_t len;
	gt_error e;
	long i = 0, got = 0;
	int rc;
	while ((rc = gt_record_read_line(rd, &line, &len, &e)) != 0) {
		i++;
		if (rc < 0) {
			if (rc == GT_ETOOLONG)
				continue;
			break;
		}
		if (model && !names_model(line, len, model))
			continue;
		if (got == want)
			memmove(lines, lines + 1, (size_t)(want - 1) * sizeof *lines), got--;
		lines[got++] = i;
	}
	gt_record_reader_free(rd);
	fclose(f);
	return got;
}

/* pick: show lines[0..nl) of the batch file, newest (last) first */
static void pick(rep *r, const char *path, const long *lines, long nl, const char *model, json_t *list,
                 int want)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	gt_record_reader *rd = gt_record_reader_new(f, path, (size_t)16 << 20);
	char **keep = gt_xcalloc((size_t)nl + 1, sizeof *keep);
	size_t *klen = gt_xcalloc((size_t)nl + 1, sizeof *klen);
	const char *line;
	size_t len;
	gt_error e;
	long i = 0, j = 0;
	int rc;
	while (j < nl && (rc = gt_record_read_line(rd, &line, &len, &e)) != 0) {
		i++;
		if (rc < 0 && rc != GT_ETOOLONG)
			break;
		if (rc > 0 && i == lines[j]) {
			keep[j] = gt_xmalloc(len + 1);
			memcpy(keep[j], line, len);
			klen[j++] = len;
		} else if (i > lines[j]) {
			j++;
		}
	}
	for (long q = nl; q-- > 0 && json_array_size(list) < (size_t)want;)
		if (keep[q] && show_game(r, keep[q], klen[q], model, list) == 1)
			warnf(r, "a recent game that does not replay was left out");
	for (long q = 0; q < nl; q++)
		free(keep[q]);
	free(keep);
	free(klen);
	gt_record_reader_free(rd);
	fclose(f);
}

static void do_games(rep *r)
{
	json_t *list = json_array();
	int want = r->o->max_games, current = r->model[0] != 0;
	gt_store_entry *ents;
	size_t n;
	gt_error e = {0};
	char *url = gt_store_join(r->o->store, "games/");
	if (want > 0 && !gt_store_list(&r->so, url, &ents, &n, &e)) {
		/* the batches, newest first */
		kv *bs = gt_xmalloc((n + 1) * sizeof *bs);
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			size_t l = strlen(ents[i].name);
			if (!(l > 7 && !strcmp(ents[i].name + l - 7, ".ndjson")) &&
			    !(l > 10 && !strcmp(ents[i].name + l - 10, ".ndjson.gz")))
				continue;
			bs[k].k = ents[i].name;
			bs[k].j = NULL;
			bs[k].x = ents[i].bytes;
			bs[k++].v = batch_time(&ents[i]);
		}
		qsort(bs, k, sizeof *bs, kv_cmp);
		long *lines = gt_xmalloc((size_t)want * sizeof *lines);
		char path[4096];
		snprintf(path, sizeof path, "%s/batch.tmp", r->stage);
		/* the current network's games in the newest batches; else the
		 * newest games of any network */
		for (int pass = current ? 0 : 1; pass < 2 && json_array_size(list) == 0; pass++) {
			for (size_t i = 0; i < k && i < GAME_BATCHES && json_array_size(list) < (size_t)want; i++) {
				if (bs[i].x < 0 || bs[i].x > MAX_BATCH_BYTES)
					continue;     /* read no more than listed, and that bounded */
				char *bu = gt_store_join(r->o->store, "games/");
				char *u = gt_store_join(bu, bs[i].k);
				free(bu);
				int rc = gt_store_get(&r->so, u, path, NULL, bs[i].x, NULL, &e);
				free(u);
				if (rc) {
					warnf(r, "a batch of games/ could not be read: %s", e.text);
					continue;
				}
				long nl = scan(path, pass == 0 ? r->model : NULL, lines, want);
				pick(r, path, lines, nl, pass == 0 ? r->model : NULL, list, want);
				unlink(path);
				if (pass == 1)
					break;
			}
		}
		free(lines);
		free(bs);
		gt_store_entries_free(ents, n);
	}
	free(url);
	const char *m0 = str(json_array_get(list, 0), "model");
	int of_current = current && m0 && !strcmp(m0, r->model);
	json_object_set_new(r->st, "games_of_current", json_boolean(of_current));
	json_object_set_new(r->st, "games_note", json_string(
		of_current ? "The last self-play games of the current network, newest first." :
		json_array_size(list) ? "The current network has not played a self-play game yet: these are "
		                        "the newest games, each with the network that played it." :
		"No self-play game is in the store yet."));
	json_object_set_new(r->st, "games", list);
}

/* ---- plots ---- */

/* label: a reason as gnuplot may see it: [A-Za-z0-9._-] only, 20 bytes */
static void label(const char *s, char *out, size_t n)
{
	size_t k = 0;
	for (; *s && k + 1 < n && k < 20; s++)
		out[k++] = (isalnum((unsigned char)*s) || strchr("._-", *s)) && (unsigned char)*s < 0x80 ? *s : '?';
	out[k] = 0;
	if (!k)
		snprintf(out, n, "?");
}

static FILE *stage_open(rep *r, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", r->stage, name);
	return fopen(path, "w");
}

static int run_gnuplot(rep *r)
{
	char *src;
	size_t n;
	char path[4096];
	snprintf(path, sizeof path, "%s/report/plots.gp", r->o->share);
	int rc = read_file(path, MAX_SMALL, &src, &n, NULL);
	if (rc)
		return gt_error_set(r->e, rc == GT_ENOTFOUND ? GT_EINVAL : rc, -1, -1, "%s: %s", path,
		                    gt_strerror(rc));
	rc = write_text(r, "plots.gp", src, n);
	free(src);
	if (rc)
		return rc;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		warnf(r, "fork: %s; no plots", strerror(errno));
		return 0;
	}
	if (pid == 0) {
		int fd;
		if (chdir(r->stage) == 0 && (fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			execlp(r->o->gnuplot, r->o->gnuplot, "vars.gp", "plots.gp", (char *)NULL);
		}
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char *log = NULL;
		size_t ll;
		snprintf(path, sizeof path, "%s/gnuplot.log", r->stage);
		read_file(path, 4096, &log, &ll, NULL);
		warnf(r, "%s failed (%s); plots are missing: %.300s", r->o->gnuplot,
		      WIFEXITED(status) && WEXITSTATUS(status) == 127 ? "not found" : "exit status", log ? log : "");
		free(log);
	}
	return 0;
}

/* do_plots: data files and vars.gp, gnuplot, then status "plots" naming
 * the SVG files that exist */
static int do_plots(rep *r)
{
	json_t *plots = json_object(), *rel = json_object_get(r->st, "releases"),
	       *d = json_object_get(r->st, "data"), *U = json_object_get(r->st, "units");
	static const char *const names[] = { "elo_steps", "elo_time", "elo_hours", "games_hour",
	                                     "games_day", "rejects", "versions" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		json_object_set_new(plots, names[i], json_null());
	json_object_set_new(r->st, "plots", plots);
	if (!r->o->gnuplot || !r->o->gnuplot[0])
		return 0;
	FILE *f = stage_open(r, "elo.dat");
	size_t nrel = json_array_size(rel);
	int have_hours = 0;
	long long t_first = 0, t_last = 0;
	parse_iso(str(json_array_get(rel, nrel ? nrel - 1 : 0), "time"), &t_first);
	parse_iso(str(json_array_get(rel, 0), "time"), &t_last);
	/* the uniform evaluator at 0 steps, 0 Elo and 0 hours, when the
	 * oldest release listed is the first */
	json_t *first = json_array_get(rel, nrel ? nrel - 1 : 0);
	if (f && nrel && json_integer_value(json_object_get(first, "n")) == 1 &&
	    !strcmp(str(first, "reference") ? str(first, "reference") : "", "the uniform evaluator"))
		fprintf(f, "0 0 NaN 0\n");
	for (size_t i = nrel; f && i-- > 0;) {
		json_t *x = json_array_get(rel, i);
		long long t = 0;
		parse_iso(str(x, "time"), &t);
		double h = num(x, "hours");
		have_hours |= isfinite(h);
		char hs[32] = "NaN";
		if (isfinite(h))
			snprintf(hs, sizeof hs, "%.6g", h);
		fprintf(f, "%.0f %.2f %lld %s\n", num(x, "steps"), num(x, "chain"), t, hs);
	}
	if (f)
		fclose(f);
	static const char *const series[] = { "per_hour", "per_day" };
	static const char *const files[] = { "games_hour.dat", "games_day.dat" };
	for (int s = 0; s < 2; s++) {
		json_t *a = json_object_get(d, series[s]);
		if (!(f = stage_open(r, files[s])))
			continue;
		for (size_t i = 0; i < json_array_size(a); i++) {
			long long t = 0;
			parse_iso(str(json_array_get(a, i), "time"), &t);
			fprintf(f, "%lld %lld %lld\n", t, cnt(json_array_get(a, i), "games"),
			        cnt(json_array_get(a, i), "positions"));
		}
		fclose(f);
	}
	/* rejects: cumulative columns of the top reasons, then the rest */
	const char *by = str(d, "rejects_by");
	json_t *rb = json_object_get(d, by && !strcmp(by, "day") ? "per_day" : "per_hour");
	json_t *tot = json_object();
	long long all = 0;
	for (size_t i = 0; i < json_array_size(rb); i++) {
		const char *k;
		json_t *v;
		json_object_foreach(json_object_get(json_array_get(rb, i), "by_reason"), k, v) {
			add_to(tot, k, json_integer_value(v));
			all += json_integer_value(v);
		}
	}
	size_t nr;
	kv *top = sorted(tot, &nr, 1);
	int cols = nr > PLOT_REASONS ? PLOT_REASONS + 1 : (int)nr;
	char labels[(PLOT_REASONS + 1) * 24] = "";
	for (int c = 0; c < cols; c++) {
		char l[24];
		if (c == PLOT_REASONS)
			snprintf(l, sizeof l, "other");
		else
			label(top[c].k, l, sizeof l);
		strcat(labels, c ? " " : "");
		strcat(labels, l);
	}
	if ((f = stage_open(r, "rejects.dat"))) {
		for (size_t i = 0; all > 0 && i < json_array_size(rb); i++) {
			json_t *b = json_array_get(rb, i), *br = json_object_get(b, "by_reason");
			long long t = 0, sum = 0;
			parse_iso(str(b, "time"), &t);
			fprintf(f, "%lld", t);
			for (int c = 0; c < cols; c++) {
				if (c < PLOT_REASONS) {
					sum += json_integer_value(json_object_get(br, top[c].k));
				} else {
					sum = 0;
					const char *k;
					json_t *v;
					json_object_foreach(br, k, v)
						sum += json_integer_value(v);
				}
				fprintf(f, " %lld", sum);
			}
			fprintf(f, "\n");
		}
		fclose(f);
	}
	free(top);
	json_decref(tot);
	json_t *vs = json_object_get(U, "versions");
	if ((f = stage_open(r, "versions.dat"))) {
		for (size_t i = json_array_size(vs); i-- > 0;) {
			long long t;
			json_t *v = json_array_get(vs, i);
			if (!parse_iso(str(v, "time"), &t))
				fprintf(f, "%lld %lld %lld\n", t, cnt(v, "version"), cnt(v, "deltas"));
		}
		fclose(f);
	}
	if (!(f = stage_open(r, "vars.gp")))
		return gt_error_set(r->e, GT_EIO, -1, -1, "%s/vars.gp: %s", r->stage, strerror(errno));
	fprintf(f, "n_releases = %zu\nrel_span = %lld\nhave_hours = %d\nhours_label = \"%s\"\n", nrel,
	        t_last - t_first, have_hours, str(r->st, "hours_kind") ? str(r->st, "hours_kind") : "");
	for (int s = 0; s < 2; s++) {
		json_t *a = json_object_get(d, series[s]);
		size_t nb = json_array_size(a);
		long long from = 0, to = 0, w = s ? 86400 : 3600;
		parse_iso(str(json_array_get(a, 0), "time"), &from);
		parse_iso(str(json_array_get(a, nb ? nb - 1 : 0), "time"), &to);
		fprintf(f, "n_%s = %zu\n%s_from = %lld\n%s_to = %lld\n%s_tics = %lld\n", s ? "day" : "hour", nb,
		        s ? "day" : "hour", from, s ? "day" : "hour", to + w, s ? "day" : "hour",
		        w * (long long)((nb + 7) / 8 ? (nb + 7) / 8 : 1));
	}
	fprintf(f, "rej_n = %d\nrej_width = %d\nrej_labels = \"%s\"\n", all > 0 ? cols : 0,
	        by && !strcmp(by, "day") ? 86400 : 3600, labels);
	fprintf(f, "n_versions = %zu\n", json_array_size(vs));
	fclose(f);
	int rc = run_gnuplot(r);
	if (rc)
		return rc;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char file[64], path[4096];
		snprintf(file, sizeof file, "%s.svg", names[i]);
		for (char *p = file; *p; p++)
			if (*p == '_')
				*p = '-';
		snprintf(path, sizeof path, "%s/%s", r->stage, file);
		struct stat sb;
		if (!stat(path, &sb) && sb.st_size > 0)
			json_object_set_new(plots, names[i], json_string(file));
	}
	return 0;
}

/* ---- writing ---- */

static void remove_stage(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			char p[4096];
			snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
			struct stat sb;
			if (!lstat(p, &sb) && S_ISDIR(sb.st_mode))
				remove_stage(p);
			else
				unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

/* upload: every file made for the site to dest, index.html last */
static int upload(rep *r, const char *dest)
{
	static const char *const order[] = { "games", ".svg", "status.json", "index.html" };
	for (size_t s = 0; s < sizeof order / sizeof *order; s++) {
		int sub = !strcmp(order[s], "games");
		char dir[4096];
		snprintf(dir, sizeof dir, "%s%s", r->stage, sub ? "/games" : "");
		DIR *d = opendir(dir);
		if (!d)
			continue;
		struct dirent *de;
		int rc = 0;
		while (!rc && (de = readdir(d))) {
			const char *nm = de->d_name;
			size_t l = strlen(nm);
			int take = sub ? nm[0] != '.' : order[s][0] == '.' ? (l > 4 && !strcmp(nm + l - 4, ".svg"))
			                                                     : !strcmp(nm, order[s]);
			if (!take)
				continue;
			char path[4096 + 512], rel[300];
			snprintf(path, sizeof path, "%s/%s", dir, nm);
			snprintf(rel, sizeof rel, "%s%s", sub ? "games/" : "", nm);
			FILE *f = fopen(path, "rb");
			if (!f) {
				rc = gt_error_set(r->e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
				break;
			}
			char *url = gt_store_join(dest, rel);
			rc = gt_store_put(&r->so, f, url, 1, NULL, r->e);
			free(url);
			fclose(f);
		}
		closedir(d);
		if (rc)
			return rc;
	}
	return 0;
}

static int do_page(rep *r)
{
	char *json = json_dumps(r->st, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
	int rc = write_text(r, "status.json", json, strlen(json));
	free(json);
	if (rc)
		return rc;
	char path[4096], *t, *page;
	size_t n, pn;
	snprintf(path, sizeof path, "%s/report/index.html", r->o->share);
	if ((rc = read_file(path, MAX_SMALL, &t, &n, NULL)))
		return gt_error_set(r->e, rc == GT_ENOTFOUND ? GT_EINVAL : rc, -1, -1, "%s: %s", path,
		                    gt_strerror(rc));
	rc = gt_tmpl_render(t, n, r->st, &page, &pn, r->e);
	free(t);
	if (rc) {
		char msg[sizeof r->e->text];
		snprintf(msg, sizeof msg, "%s", r->e->text);
		return gt_error_set(r->e, rc, r->e->line, -1, "%s: %s", path, msg);
	}
	rc = write_text(r, "index.html", page, pn);
	free(page);
	return rc;
}

int gt_report_make(const gt_report_opts *o, char **where, gt_error *e)
{
	if (where)
		*where = NULL;
	if (!o->store || !o->share)
		return gt_error_set(e, GT_EINVAL, -1, -1, "no %s", o->store ? "share folder" : "store");
	if (!strstr(o->store, "://") || !strncmp(o->store, "file://", 7)) {
		const char *p = o->store;
		if (!strncmp(p, "file://", 7))
			p += strncmp(p + 7, "localhost/", 10) ? 7 : 16;
		struct stat sb;
		if (stat(p, &sb) < 0 || !S_ISDIR(sb.st_mode))
			return gt_error_set(e, GT_ENOTFOUND, -1, -1, "%s: not a store folder", o->store);
	}
	rep r = { .o = o, .e = e };
	if (o->so)
		r.so = *o->so;
	else
		gt_store_opts_init(&r.so);
	r.now = o->now ? o->now : (long long)time(NULL);
	const char *tmp = getenv("TMPDIR");
	char stage[4096];
	snprintf(stage, sizeof stage, "%s/gt-report.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(stage))
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", stage, strerror(errno));
	r.stage = stage;
	char games[4200];
	snprintf(games, sizeof games, "%s/games", stage);
	mkdir(games, 0755);
	r.st = json_object();
	json_object_set_new(r.st, "format", json_integer(1));
	json_object_set_new(r.st, "generated", iso(r.now));
	json_object_set_new(r.st, "store", jtext(o->store));
	json_object_set_new(r.st, "series", json_null());
	json_object_set_new(r.st, "trainer", json_boolean(o->trainer != NULL));
	int rc = do_current(&r);
	char *dest = NULL;
	if (!rc) {
		do_history(&r);
		do_trainer(&r);
		do_hours(&r);
		json_t *contrib = get_json(&r, "stats/contributions.json", MAX_TEXT);
		do_data(&r, contrib);
		do_workers(&r, contrib);
		json_decref(contrib);
		do_units(&r);
		do_games(&r);
		rc = do_plots(&r);
	}
	if (!rc)
		rc = do_page(&r);
	if (!rc) {
		dest = o->dest ? gt_xstrdup(o->dest) : gt_store_join(o->store, "site");
		rc = upload(&r, dest);
	}
	if (!rc && where)
		*where = gt_store_join(dest, "index.html");
	free(dest);
	json_decref(r.st);
	json_decref(r.gens);
	json_decref(r.genlines);
	remove_stage(stage);
	return rc;
}
