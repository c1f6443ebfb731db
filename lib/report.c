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
#include "report_int.h"


void gt_report_opts_init(gt_report_opts *o)
{
	*o = (gt_report_opts){ .window = 250000, .max_workers = 100, .max_games = 6,
	                       .max_releases = 2000 };
}


void __attribute__((format(printf, 2, 3))) rp_warnf(rep *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	gt_vwarnf(r->o->warn, r->o->warn_ctx, fmt, ap);
	va_end(ap);
}

/* ---- small helpers ---- */

int rp_parse_iso(const char *s, long long *t)
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

json_t *rp_iso(long long t)
{
	char b[32];
	return gt_iso_time(b, sizeof b, t) ? json_string(b) : json_null();
}

double rp_num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* cnt: a count field as an integer, 0 when absent or not a number >= 0 */
long long rp_cnt(json_t *o, const char *k)
{
	double x = rp_num(o, k);
	return x >= 0 && x < 9e15 ? (long long)llround(x) : 0;
}

const char *rp_str(json_t *o, const char *k)
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
json_t *rp_jname(const char *s)
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
int rp_read_file(const char *path, size_t max, char **buf, size_t *len, long long *mtime)
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
		rp_warnf(r, "%s: not JSON (line %d: %s); left out", what, je.line, je.text);
	return j;
}

/* load_local: a local JSON file (NULL when absent or bad, with a warning
 * for bad) */
static json_t *load_local(rep *r, const char *path, size_t max, long long *mtime)
{
	char *b;
	size_t n;
	int rc = rp_read_file(path, max, &b, &n, mtime);
	if (rc) {
		if (rc != GT_ENOTFOUND)
			rp_warnf(r, "%s: %s; left out", path, gt_strerror(rc));
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
			rp_warnf(r, "%s: %s; left out", rel, e.text);
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
	const char *name = rp_str(l, "name"), *sha = rp_str(l, "sha256"), *why;
	if (!json_is_object(l) || !name || !gt_store_name_ok(name, &why)) {
		json_decref(l);
		free(b);
		return gt_error_set(r->e, GT_EFORMAT, -1, -1, "models/latest.json: not a pointer with a usable name");
	}
	strip_gz(name, r->model, sizeof r->model);
	json_t *c = json_object();
	json_object_set_new(c, "name", rp_jname(name));
	json_object_set_new(c, "sha256", sha ? rp_jname(sha) : json_null());
	json_object_set_new(c, "bytes", json_is_integer(json_object_get(l, "bytes")) ?
	                    json_integer(json_integer_value(json_object_get(l, "bytes"))) : json_null());
	json_object_set_new(c, "steps", jcount(rp_num(l, "steps")));
	json_object_set_new(c, "rows", jcount(rp_num(l, "rows")));
	json_object_set_new(c, "published", rp_str(l, "published") ? rp_jname(rp_str(l, "published")) : json_null());
	const char *sig = rp_str(l, "signature"), *code, *note;
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
			rp_warnf(r, "--verify-key: %s; the signature is not checked", e.text);
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
	if (rp_str(l, "series"))
		json_object_set_new(r->st, "series", rp_jname(rp_str(l, "series")));
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
	if (rp_str(j, "series")) {
		json_decref(h->series);
		h->series = rp_jname(rp_str(j, "series"));
	}
	if (!json_is_true(json_object_get(j, "released")))
		return;
	json_t *s = json_object_get(j, "stats"), *ci = json_object_get(s, "elo_ci95");
	long long w = rp_cnt(s, "wins"), l = rp_cnt(s, "losses");
	double elo = rp_num(s, "elo"), lo = NAN, hi = NAN;
	if (!isfinite(elo))
		elo = w > 0 && l == 0 ? INFINITY : l > 0 && w == 0 ? -INFINITY : NAN;
	if (json_is_array(ci) && json_array_size(ci) == 2) {
		json_t *a = json_array_get(ci, 0), *b = json_array_get(ci, 1);
		lo = json_is_number(a) ? json_number_value(a) : -INFINITY;
		hi = json_is_number(b) ? json_number_value(b) : INFINITY;
	}
	double gain = gt_report_chain_gain(elo, lo, hi);
	h->chain += gain;
	const char *name = rp_str(j, "candidate");
	json_t *o = json_object();
	json_object_set_new(o, "n", json_integer((json_int_t)json_array_size(h->all) + 1));
	json_object_set_new(o, "name", rp_jname(name));
	json_object_set_new(o, "steps", jcount(rp_num(j, "steps")));
	long long rows = name ? gt_model_name_number(name, 'd') : -1;
	json_object_set_new(o, "rows", rows >= 0 ? json_integer(rows) : json_null());
	json_object_set_new(o, "time", rp_str(j, "time") ? rp_jname(rp_str(j, "time")) : json_null());
	const char *ref = rp_str(s, "b");
	json_object_set_new(o, "reference", !ref ? json_null() :
	                    !strcmp(ref, "none") ? json_string("the uniform evaluator") : rp_jname(ref));
	json_object_set_new(o, "games", json_integer(rp_cnt(s, "games")));
	json_object_set_new(o, "wins", json_integer(w));
	json_object_set_new(o, "draws", json_integer(rp_cnt(s, "draws")));
	json_object_set_new(o, "losses", json_integer(l));
	json_object_set_new(o, "elo", jelo(elo));
	json_object_set_new(o, "elo_lo", jelo(lo));
	json_object_set_new(o, "elo_hi", jelo(hi));
	/* not shown to differ from 0: an interval that holds 0, or none */
	json_object_set_new(o, "interval_has_0", json_boolean(!(lo > 0 || hi < 0)));
	json_object_set_new(o, "gain", jnum(round(gain * 100) / 100));
	json_object_set_new(o, "chain", jnum(round(h->chain * 100) / 100));
	json_object_set_new(o, "hours", json_null());
	json_object_set_new(o, "reason", rp_str(j, "reason") ? rp_jname(rp_str(j, "reason")) : json_null());
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
		rp_warnf(r, "models/history.ndjson: %s; no releases shown", e.text);
	if (!rc) {
		long bad = each_line(b, n, history_line, r, &h);
		if (bad)
			rp_warnf(r, "models/history.ndjson: %ld lines that are not JSON objects left out", bad);
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
		const char *nm = rp_str(x, "name"), *cn = rp_str(cur, "name");
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
	int rc = rp_read_file(path, MAX_TEXT, &b, &n, NULL);
	if (!rc) {
		each_line(b, n, genline, r, NULL);
		free(b);
	} else if (rc != GT_ENOTFOUND) {
		rp_warnf(r, "%s: %s", path, gt_strerror(rc));
	}
	snprintf(path, sizeof path, "%s/gen", w);
	DIR *d = opendir(path);
	if (!d) {
		rp_warnf(r, "%s: %s; no data by generation", path, strerror(errno));
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
		json_object_set_new(g, "games", json_integer(rp_cnt(v, "records_out")));
		json_object_set_new(g, "positions", json_integer(rp_cnt(v, "positions")));
		json_object_set_new(g, "rejected", json_integer(rp_cnt(v, "rejected")));
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
	if (rp_read_file(path, MAX_TEXT, &b, &n, NULL))
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
		if (json_is_object(j) && !json_object_get(j, "keys") && !rp_parse_iso(rp_str(j, "time"), &t)) {
			rows += rp_cnt(j, "rows");
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
	json_object_set_new(w, "oldest", rp_iso(oldest));
	json_object_set_new(w, "newest", rp_iso(newest));
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
	const char *name = rp_str(j, "name");
	char buf[256];
	if (!name && json_is_integer(json_object_get(j, "generation"))) {
		char k[32];
		snprintf(k, sizeof k, "%lld", (long long)json_integer_value(json_object_get(j, "generation")));
		name = rp_str(json_object_get(r->genlines, k), "candidate");
	}
	if (!name)
		return;
	strip_gz(name, buf, sizeof buf);
	json_t *o = json_object();
	if (isfinite(rp_num(j, "cpu_hours")))
		json_object_set_new(o, "cpu", json_real(rp_num(j, "cpu_hours")));
	if (isfinite(rp_num(j, "gpu_hours")))
		json_object_set_new(o, "gpu", json_real(rp_num(j, "gpu_hours")));
	json_object_set_new(h->by_name, buf, o);
}

static void do_hours(rep *r)
{
	json_object_set_new(r->st, "hours_kind", json_null());
	if (!r->o->hours)
		return;
	char *b;
	size_t n;
	int rc = rp_read_file(r->o->hours, MAX_TEXT, &b, &n, NULL);
	if (rc) {
		rp_warnf(r, "%s: %s; no plot by hours", r->o->hours, gt_strerror(rc));
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
			const char *nm = rp_str(json_array_get(rel, i), "name");
			json_t *o = nm ? json_object_get(h.by_name, strip_gz(nm, buf, sizeof buf)) : NULL;
			if (json_object_get(o, k))
				kind = k;
		}
	}
	for (size_t i = 0; kind && i < json_array_size(rel); i++) {
		char buf[256];
		json_t *x = json_array_get(rel, i);
		const char *nm = rp_str(x, "name");
		json_t *o = nm ? json_object_get(h.by_name, strip_gz(nm, buf, sizeof buf)) : NULL;
		double v = rp_num(o, kind);
		json_object_set_new(x, "hours", jnum(isfinite(v) ? round(v * 1e4) / 1e4 : NAN));
	}
	if (kind)
		json_object_set_new(r->st, "hours_kind", json_string(!strcmp(kind, "gpu") ? "GPU-hours" : "CPU-hours"));
	json_decref(h.by_name);
}

/* ---- data over time ---- */

void rp_add_to(json_t *o, const char *k, long long v)
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
		json_object_set_new(b, "time", rp_iso(t));
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
		rp_add_to(b, "games", rp_cnt(g, "games"));
		rp_add_to(b, "positions", rp_cnt(g, "positions"));
		rp_add_to(b, "rejected", rp_cnt(g, "rejected"));
		const char *k;
		json_t *v;
		json_object_foreach(json_object_get(g, "by_reason"), k, v)
			if (json_is_integer(v) && json_integer_value(v) > 0)
				rp_add_to(json_object_get(b, "by_reason"), k, json_integer_value(v));
	}
	return a;
}


int rp_kv_cmp(const void *a, const void *b)
{
	const kv *x = a, *y = b;
	if (x->v != y->v)
		return x->v > y->v ? -1 : 1;
	return strcmp(x->k, y->k);
}

/* sorted: the members of o; with counts, only those that are integers
 * above 0, largest first, then by name; without, all of them by name; *n
 * of them */
kv *rp_sorted(json_t *o, size_t *n, int counts)
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
	qsort(v, k, sizeof *v, rp_kv_cmp);
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
		games += rp_cnt(v, "games");
		pos += rp_cnt(v, "positions");
		rej += rp_cnt(v, "rejected");
	}
	json_object_set_new(d, "games", json_integer(games));
	json_object_set_new(d, "positions", json_integer(pos));
	json_object_set_new(d, "rejected", json_integer(rej));
	size_t ng = json_array_size(r->gens);
	json_object_set_new(d, "generations", json_integer((json_int_t)ng));
	for (size_t i = 0; i < ng; i++)
		json_object_foreach(json_object_get(json_array_get(r->gens, i), "by_reason"), k, v)
			if (json_is_integer(v) && json_integer_value(v) > 0)
				rp_add_to(reasons, k, json_integer_value(v));
	size_t nr;
	kv *s = rp_sorted(reasons, &nr, 1);
	json_t *list = json_array();
	long long others = 0;
	for (size_t i = 0; i < nr; i++) {
		if (i < MAX_REASONS) {
			json_t *o = json_object();
			json_object_set_new(o, "reason", rp_jname(s[i].k));
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
		json_object_set_new(o, "time", rp_iso(json_integer_value(json_object_get(g, "t"))));
		json_object_set(o, "games", json_object_get(g, "games"));
		json_object_set(o, "positions", json_object_get(g, "positions"));
		json_object_set(o, "rejected", json_object_get(g, "rejected"));
		json_object_set_new(o, "rows", jcount(rp_num(l, "rows")));
		json_object_set_new(o, "steps", jcount(rp_num(l, "steps")));
		json_object_set_new(o, "candidate", rp_str(l, "candidate") ? rp_jname(rp_str(l, "candidate")) : json_null());
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
		v[k++].v = rp_cnt(x, "games");
	}
	qsort(v, k, sizeof *v, rp_kv_cmp);
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
				rp_add_to(day, key, rp_cnt(x, "games"));
				day_total += rp_cnt(x, "games");
			}
		}
	}
	json_t *others = json_object();
	long long og = 0, op = 0, orj = 0, oc = 0;
	for (size_t i = 0; i < k; i++) {
		json_t *w = v[i].j;
		if (i >= (size_t)r->o->max_workers) {
			oc++;
			og += rp_cnt(w, "games");
			op += rp_cnt(w, "positions");
			orj += rp_cnt(w, "rejected");
			continue;
		}
		json_t *o = json_object(), *f = json_object_get(first, v[i].k);
		json_object_set_new(o, "rank", json_integer((json_int_t)i + 1));
		json_object_set_new(o, "name", rp_jname(v[i].k));
		json_object_set_new(o, "games", json_integer(rp_cnt(w, "games")));
		json_object_set_new(o, "positions", json_integer(rp_cnt(w, "positions")));
		json_object_set_new(o, "rejected", json_integer(rp_cnt(w, "rejected")));
		json_object_set_new(o, "first", f ? rp_iso(json_integer_value(f)) : json_null());
		json_object_set_new(o, "last", rp_str(w, "last") ? rp_jname(rp_str(w, "last")) : json_null());
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
		json_object_set_new(u, "unit", rp_jname(id));
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
			rp_warnf(r, "diloco/current.json: %s; no learning units shown", e.text);
		json_object_set_new(r->st, "units", json_null());
		return;
	}
	json_t *U = json_object(), *units = json_object();
	json_object_set_new(U, "version", json_integer((json_int_t)p.version));
	json_object_set_new(U, "time", rp_iso((long long)p.time));
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
			json_object_set_new(u, "state", rp_str(h, "state") ? rp_jname(rp_str(h, "state")) : json_null());
			json_object_set_new(u, "last", isfinite(rp_num(h, "time")) ? rp_iso((long long)rp_num(h, "time")) : json_null());
			json_object_set_new(u, "version", jcount(rp_num(h, "version")));
			json_object_set_new(u, "rounds", jcount(rp_num(h, "deltas")));
			json_object_set_new(u, "samples", jcount(rp_num(h, "samples")));
			json_object_set_new(u, "loss", jnum(rp_num(h, "loss")));
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
				const char *id = rp_str(d, "unit");
				double base = rp_num(d, "base_version");
				int st = isfinite(base) && base + 1 < (double)vs[i].v;
				stale += st;
				if (id && gt_diloco_unit_ok(id) &&
				    (json_object_get(units, id) || json_object_size(units) < MAX_UNITS)) {
					json_t *u = unit_row(units, id);
					rp_add_to(u, "applied", 1);
					rp_add_to(u, "stale", st);
				}
			}
			json_t *o = json_object();
			json_object_set_new(o, "version", json_integer((json_int_t)vs[i].v));
			json_object_set_new(o, "time", vs[i].mtime >= 0 ? rp_iso(vs[i].mtime) : json_null());
			json_object_set_new(o, "deltas", json_integer((json_int_t)json_array_size(ds)));
			json_object_set_new(o, "samples", jcount(rp_num(L, "samples")));
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
	kv *us = rp_sorted(units, &nu, 0);
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

int rp_write_text(rep *r, const char *rel, const char *text, size_t n)
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

/* ---- totals and how to contribute ---- */

/* do_totals: status "totals": games, positions, compute hours and uploads
 * of the last day, the last week and all time (null where unknown) */
static void do_totals(rep *r)
{
	static const char *const win[] = { "day", "week", "all" };
	json_t *T = json_object(), *d = json_object_get(r->st, "data"), *rel = json_object_get(r->st, "releases");
	int hk = !json_is_null(json_object_get(r->st, "hours_kind"));
	/* compute: the newest release's cumulative hours less those of the
	 * newest release before the window began */
	double h_now = NAN;
	for (size_t i = 0; hk && i < json_array_size(rel) && !isfinite(h_now); i++)
		h_now = rp_num(json_array_get(rel, i), "hours");
	for (int w = 0; w < 3; w++) {
		long long since = w == 2 ? 0 : r->now - (w ? 7 : 1) * 86400LL;
		json_t *o = json_object();
		if (w == 2) {
			json_object_set_new(o, "games", json_integer(rp_cnt(d, "games")));
			json_object_set_new(o, "positions", json_integer(rp_cnt(d, "positions")));
		} else if (r->o->trainer) {
			long long g = 0, p = 0;
			for (size_t i = 0; i < json_array_size(r->gens); i++) {
				json_t *x = json_array_get(r->gens, i);
				if (json_integer_value(json_object_get(x, "t")) > since)
					g += rp_cnt(x, "games"), p += rp_cnt(x, "positions");
			}
			json_object_set_new(o, "games", json_integer(g));
			json_object_set_new(o, "positions", json_integer(p));
		} else {
			json_object_set_new(o, "games", json_null());
			json_object_set_new(o, "positions", json_null());
		}
		double before = 0;
		for (size_t i = 0; w < 2 && i < json_array_size(rel); i++) {
			json_t *x = json_array_get(rel, i);
			long long t;
			if (!rp_parse_iso(rp_str(x, "time"), &t) && t <= since && isfinite(rp_num(x, "hours"))) {
				before = rp_num(x, "hours");
				break;
			}
		}
		json_object_set_new(o, "hours", isfinite(h_now) ? json_real(round((h_now - before) * 100) / 100)
		                                                : json_null());
		json_object_set_new(o, "uploads", r->uploads_known ? json_integer(r->uploads[w]) : json_null());
		json_object_set_new(T, win[w], o);
	}
	json_object_set_new(r->st, "totals", T);
}

/* do_contribute: status "contribute": the store's URL for workers and
 * what to run, or null when the page cannot know the URL */
static void do_contribute(rep *r)
{
	const char *u = r->o->contribute;
	if (!u && (!strncmp(r->o->store, "http://", 7) || !strncmp(r->o->store, "https://", 8) ||
	           !strncmp(r->o->store, "s3://", 5)))
		u = r->o->store;
	if (!u || !*u) {
		json_object_set_new(r->st, "contribute", json_null());
		return;
	}
	json_t *c = json_object();
	json_object_set_new(c, "store", jtext(u));
	json_object_set_new(c, "command", json_string("gt-worker -c contribute.cfg"));
	json_object_set_new(r->st, "contribute", c);
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
	static const char *const order[] = { "games/", "matches/", ".svg", "viewer.js", "status.json",
	                                     "index.html" };
	for (size_t s = 0; s < sizeof order / sizeof *order; s++) {
		size_t ol = strlen(order[s]);
		int sub = order[s][ol - 1] == '/';
		char dir[4096];
		snprintf(dir, sizeof dir, "%s%s%.*s", r->stage, sub ? "/" : "", sub ? (int)ol - 1 : 0, order[s]);
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
			snprintf(rel, sizeof rel, "%s%s", sub ? order[s] : "", nm);
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
	int rc = rp_write_text(r, "status.json", json, strlen(json));
	free(json);
	if (rc)
		return rc;
	char path[4096], *t, *page;
	size_t n, pn;
	snprintf(path, sizeof path, "%s/report/index.html", r->o->share);
	if ((rc = rp_read_file(path, MAX_SMALL, &t, &n, NULL)))
		return gt_error_set(r->e, rc == GT_ENOTFOUND ? GT_EINVAL : rc, -1, -1, "%s: %s", path,
		                    gt_strerror(rc));
	rc = gt_tmpl_render(t, n, r->st, &page, &pn, r->e);
	free(t);
	if (rc) {
		char msg[sizeof r->e->text];
		snprintf(msg, sizeof msg, "%s", r->e->text);
		return gt_error_set(r->e, rc, r->e->line, -1, "%s: %s", path, msg);
	}
	rc = rp_write_text(r, "index.html", page, pn);
	free(page);
	if (rc)
		return rc;
	/* the page's game viewer, a file of the site */
	snprintf(path, sizeof path, "%s/report/viewer.js", r->o->share);
	if ((rc = rp_read_file(path, MAX_SMALL, &t, &n, NULL)))
		return gt_error_set(r->e, rc == GT_ENOTFOUND ? GT_EINVAL : rc, -1, -1, "%s: %s", path,
		                    gt_strerror(rc));
	rc = rp_write_text(r, "viewer.js", t, n);
	free(t);
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
	snprintf(games, sizeof games, "%s/matches", stage);
	mkdir(games, 0755);
	r.st = json_object();
	json_object_set_new(r.st, "format", json_integer(1));
	json_object_set_new(r.st, "generated", rp_iso(r.now));
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
		rp_do_games(&r);
		rp_do_matches(&r);
		do_totals(&r);
		do_contribute(&r);
		rc = rp_do_plots(&r);
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
