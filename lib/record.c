/* record.c: the NDJSON game record: streaming reader, parser, writer,
 * symmetry (gt-record(5) is the format's truth). */
#include "record.h"
#include "board.h"
#include "sym.h"

#include <errno.h>
#include <float.h>
#include <stddef.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

void gt_record_init(gt_record *r)
{
	memset(r, 0, sizeof *r);
	r->version = GT_RECORD_VERSION;
	r->first_to_move = GT_BLACK;
	r->score = NAN;
	r->score_checkable = 1;
}

void gt_record_release(gt_record *r)
{
	free(r->model);
	free(r->worker);
	free(r->game_id);
	free(r->setup[GT_BLACK]);
	free(r->setup[GT_WHITE]);
	free(r->moves);
	free(r->colors);
	free(r->ownership);
	for (int i = 0; i < r->npos && r->pos; i++)
		free(r->pos[i].policy);
	free(r->pos);
	free(r->boards);
	gt_record_init(r);
}

const char *gt_winner_str(int w)
{
	switch (w) {
	case GT_WIN_BLACK: return "B";
	case GT_WIN_WHITE: return "W";
	case GT_WIN_DRAW: return "draw";
	}
	return "?";
}

int gt_winner_parse(const char *s)
{
	if (!strcmp(s, "B"))
		return GT_WIN_BLACK;
	if (!strcmp(s, "W"))
		return GT_WIN_WHITE;
	if (!strcmp(s, "draw"))
		return GT_WIN_DRAW;
	if (!strcmp(s, "?"))
		return GT_WIN_UNKNOWN;
	return GT_EFORMAT;
}

/* ---- reader ---- */

#define RD_IN 65536
#define RD_OUT 262144

struct gt_record_reader {
	FILE *f;
	char *name;
	size_t max_line;
	int gz;             /* 1: gzip stream, -1: not decided yet */
	int zdone;          /* inflate reached the end of a member */
	z_stream zs;
	unsigned char *in;
	char *out;
	size_t outpos, outlen;
	char *line;
	size_t len, cap;
	int skipping;       /* inside an over-long line */
	long lineno;
	int eof;
};

gt_record_reader *gt_record_reader_new(FILE *f, const char *name, size_t max_line)
{
	gt_record_reader *rd = gt_xcalloc(1, sizeof *rd);
	rd->f = f;
	rd->name = gt_xstrdup(name ? name : "-");
	rd->max_line = max_line ? max_line : ((size_t)64 << 20);
	rd->gz = -1;
	rd->in = gt_xmalloc(RD_IN);
	rd->out = gt_xmalloc(RD_OUT);
	return rd;
}

void gt_record_reader_free(gt_record_reader *rd)
{
	if (!rd)
		return;
	if (rd->gz == 1)
		inflateEnd(&rd->zs);
	free(rd->name);
	free(rd->in);
	free(rd->out);
	free(rd->line);
	free(rd);
}

/* Refill rd->out; returns bytes available, 0 at the end, or a gt_err. */
static int rd_fill(gt_record_reader *rd, gt_error *e)
{
	rd->outpos = rd->outlen = 0;
	if (rd->gz == -1) {
		size_t n = fread(rd->in, 1, RD_IN, rd->f);
		if (n >= 2 && rd->in[0] == 0x1f && rd->in[1] == 0x8b) {
			rd->gz = 1;
			memset(&rd->zs, 0, sizeof rd->zs);
			if (inflateInit2(&rd->zs, 16 + MAX_WBITS) != Z_OK)
				return gt_error_set(e, GT_EIO, rd->lineno + 1, -1, "%s: zlib init failed", rd->name);
			rd->zs.next_in = rd->in;
			rd->zs.avail_in = (unsigned)n;
		} else {
			rd->gz = 0;
			memcpy(rd->out, rd->in, n);
			rd->outlen = n;
			if (n == 0 && ferror(rd->f))
				return gt_error_set(e, GT_EIO, rd->lineno + 1, -1, "%s: %s", rd->name, strerror(errno));
			return (int)n;
		}
	}
	if (rd->gz == 0) {
		size_t n = fread(rd->out, 1, RD_OUT, rd->f);
		if (n == 0 && ferror(rd->f))
			return gt_error_set(e, GT_EIO, rd->lineno + 1, -1, "%s: %s", rd->name, strerror(errno));
		rd->outlen = n;
		return (int)n;
	}
	while (rd->outlen == 0) {
		if (rd->zs.avail_in == 0) {
			size_t n = fread(rd->in, 1, RD_IN, rd->f);
			if (n == 0) {
				if (ferror(rd->f))
					return gt_error_set(e, GT_EIO, rd->lineno + 1, -1, "%s: %s", rd->name, strerror(errno));
				if (!rd->zdone)
					return gt_error_set(e, GT_EFORMAT, rd->lineno + 1, -1, "%s: truncated gzip stream", rd->name);
				return 0;
			}
			rd->zs.next_in = rd->in;
			rd->zs.avail_in = (unsigned)n;
		}
		if (rd->zdone) { /* another gzip member follows */
			inflateReset(&rd->zs);
			rd->zdone = 0;
		}
		rd->zs.next_out = (unsigned char *)rd->out;
		rd->zs.avail_out = RD_OUT;
		int z = inflate(&rd->zs, Z_NO_FLUSH);
		rd->outlen = RD_OUT - rd->zs.avail_out;
		if (z == Z_STREAM_END)
			rd->zdone = 1;
		else if (z != Z_OK && !(z == Z_BUF_ERROR && rd->outlen))
			return gt_error_set(e, GT_EFORMAT, rd->lineno + 1, -1, "%s: corrupt gzip stream (%s)",
			                    rd->name, rd->zs.msg ? rd->zs.msg : "inflate failed");
	}
	return (int)rd->outlen;
}

int gt_record_read_line(gt_record_reader *rd, const char **line, size_t *len, gt_error *e)
{
	rd->len = 0;
	if (rd->eof)
		return 0;
	for (;;) {
		if (rd->outpos == rd->outlen) {
			int r = rd_fill(rd, e);
			if (r < 0) {
				rd->eof = 1;
				rd->skipping = 0;
				return r;
			}
			if (r == 0) {
				rd->eof = 1;
				if (rd->skipping) {
					rd->skipping = 0;
					rd->lineno++;
					return gt_error_set(e, GT_ETOOLONG, rd->lineno, -1,
					                    "line longer than %zu bytes", rd->max_line);
				}
				if (rd->len == 0)
					return 0;
				rd->lineno++;
				break;
			}
		}
		char *p = rd->out + rd->outpos;
		size_t avail = rd->outlen - rd->outpos;
		char *nl = memchr(p, '\n', avail);
		size_t n = nl ? (size_t)(nl - p) : avail;
		if (!rd->skipping) {
			if (rd->len + n > rd->max_line) {
				rd->skipping = 1;
				rd->len = 0;
				if (rd->cap > RD_OUT) { /* do not keep a huge buffer */
					free(rd->line);
					rd->line = NULL;
					rd->cap = 0;
				}
			} else {
				if (rd->len + n + 1 > rd->cap) {
					size_t c = rd->cap ? rd->cap : 4096;
					while (c < rd->len + n + 1)
						c *= 2;
					rd->line = gt_xrealloc(rd->line, c);
					rd->cap = c;
				}
				memcpy(rd->line + rd->len, p, n);
				rd->len += n;
			}
		}
		rd->outpos += n + (nl != NULL);
		if (nl) {
			rd->lineno++;
			if (rd->skipping) {
				rd->skipping = 0;
				return gt_error_set(e, GT_ETOOLONG, rd->lineno, -1,
				                    "line longer than %zu bytes", rd->max_line);
			}
			break;
		}
	}
	if (!rd->line) {
		rd->line = gt_xmalloc(4096);
		rd->cap = 4096;
	}
	rd->line[rd->len] = 0;
	*line = rd->line;
	*len = rd->len;
	if (e) {
		e->line = rd->lineno;
		e->offset = -1;
		e->text[0] = 0;
	}
	return 1;
}

/* ---- parser ---- */

typedef struct pctx {
	gt_error *e;
	const char **reason;
} pctx;

static int __attribute__((format(printf, 3, 4))) fail(pctx *c, const char *reason, const char *fmt, ...)
{
	if (c->reason)
		*c->reason = reason;
	if (c->e) {
		va_list ap;
		c->e->offset = -1;
		va_start(ap, fmt);
		vsnprintf(c->e->text, sizeof c->e->text, fmt, ap);
		va_end(ap);
	}
	return GT_EFORMAT;
}

/*
 * The parsed JSON tree the record is read from: a plain value type filled
 * by the fast parser below (or converted from jansson's tree, see
 * gt_record_parse_ex), in the per-thread arena.
 */
enum { JV_NULL, JV_TRUE, JV_FALSE, JV_INT, JV_REAL, JV_STR, JV_ARR, JV_OBJ };
typedef struct jv {
	int t;
	size_t n;              /* string length, array size, object members */
	union {
		long long i;
		double d;
		const char *s;     /* NUL-terminated */
		struct jv *a;      /* array items, object values */
	} u;
	const char **keys;     /* object keys, n of them */
} jv;

static jv *jv_get(const jv *o, const char *k)
{
	if (!o || o->t != JV_OBJ)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], k))
			return &o->u.a[i];
	return NULL;
}

static int jv_is_null(const jv *v) { return v && v->t == JV_NULL; }
static int jv_is_string(const jv *v) { return v && v->t == JV_STR; }
static int jv_is_integer(const jv *v) { return v && v->t == JV_INT; }
static int jv_is_real(const jv *v) { return v && v->t == JV_REAL; }
static int jv_is_number(const jv *v) { return v && (v->t == JV_INT || v->t == JV_REAL); }
static int jv_is_boolean(const jv *v) { return v && (v->t == JV_TRUE || v->t == JV_FALSE); }
static int jv_is_true(const jv *v) { return v && v->t == JV_TRUE; }
static int jv_is_array(const jv *v) { return v && v->t == JV_ARR; }
static int jv_is_object(const jv *v) { return v && v->t == JV_OBJ; }
static const char *jv_str(const jv *v) { return v->u.s; }
static size_t jv_len(const jv *v) { return v->n; }
static long long jv_int(const jv *v) { return v->u.i; }
static double jv_real(const jv *v) { return v->u.d; }
static double jv_num(const jv *v) { return v->t == JV_INT ? (double)v->u.i : v->u.d; }
static size_t jv_size(const jv *v) { return v && v->t == JV_ARR ? v->n : 0; }
static jv *jv_at(const jv *v, size_t i) { return v && v->t == JV_ARR && i < v->n ? &v->u.a[i] : NULL; }

static int get_str(pctx *c, jv *o, const char *k, int required, const char **out)
{
	jv *v = jv_get(o, k);
	*out = NULL;
	if (!v || jv_is_null(v)) {
		if (required)
			return fail(c, "field", "missing field \"%s\"", k);
		return 0;
	}
	if (!jv_is_string(v))
		return fail(c, "field", "field \"%s\" is not a string", k);
	*out = jv_str(v);
	if (strlen(*out) != jv_len(v))
		return fail(c, "field", "field \"%s\" contains a NUL", k);
	return 0;
}

static int get_num(pctx *c, jv *o, const char *k, int required, double *out)
{
	jv *v = jv_get(o, k);
	if (!v || jv_is_null(v)) {
		if (required)
			return fail(c, "field", "missing field \"%s\"", k);
		*out = NAN;
		return 0;
	}
	if (!jv_is_number(v))
		return fail(c, "field", "field \"%s\" is not a number", k);
	*out = jv_num(v);
	return 0;
}

static int get_int(pctx *c, jv *o, const char *k, int required, long long lo, long long hi,
                   long long def, long long *out)
{
	jv *v = jv_get(o, k);
	*out = def;
	if (!v || jv_is_null(v)) {
		if (required)
			return fail(c, "field", "missing field \"%s\"", k);
		return 0;
	}
	if (!jv_is_integer(v))
		return fail(c, "field", "field \"%s\" is not an integer", k);
	*out = jv_int(v);
	if (*out < lo || *out > hi)
		return fail(c, "field", "field \"%s\" is %lld, outside %lld..%lld", k, *out, lo, hi);
	return 0;
}

static int get_bool(pctx *c, jv *o, const char *k, int def, int *out)
{
	jv *v = jv_get(o, k);
	*out = def;
	if (!v || jv_is_null(v))
		return 0;
	if (!jv_is_boolean(v))
		return fail(c, "field", "field \"%s\" is not a boolean", k);
	*out = jv_is_true(v);
	return 0;
}

/* A float array of exactly want entries into a new array *out. */
static int get_floats(pctx *c, jv *a, const char *what, const char *reason, size_t want, float **out)
{
	if (!jv_is_array(a))
		return fail(c, reason, "%s is not an array", what);
	size_t n = jv_size(a);
	if (n != want)
		return fail(c, reason, "%s has %zu entries, want %zu", what, n, want);
	float *f = gt_xmalloc(want * sizeof *f);
	for (size_t i = 0; i < n; i++) {
		jv *v = jv_at(a, i);
		double d;
		if (jv_is_real(v))
			d = jv_real(v);
		else if (jv_is_integer(v))
			d = (double)jv_int(v);
		else {
			free(f);
			return fail(c, reason, "%s[%zu] is not a number", what, i);
		}
		if (!(fabs(d) <= FLT_MAX)) {
			free(f);
			return fail(c, "nonfinite", "%s[%zu] = %g is not a finite float", what, i, d);
		}
		f[i] = (float)d;
	}
	*out = f;
	return 0;
}

static int parse_vertices(pctx *c, jv *a, int n, const char *what, const char *reason,
                          int16_t **out, int *count)
{
	if (!jv_is_array(a))
		return fail(c, reason, "%s is not an array", what);
	size_t m = jv_size(a);
	if (m > 100000)
		return fail(c, "length", "%s has %zu entries", what, m);
	int16_t *v = gt_xmalloc((m ? m : 1) * sizeof *v);
	for (size_t i = 0; i < m; i++) {
		jv *s = jv_at(a, i);
		int p = jv_is_string(s) ? gt_vertex_parse(n, jv_str(s)) : GT_EFORMAT;
		if (p < 0 || (jv_is_string(s) && strlen(jv_str(s)) != jv_len(s))) {
			free(v);
			return fail(c, reason, "%s[%zu] is not a vertex on a %dx%d board", what, i, n, n);
		}
		v[i] = (int16_t)p;
	}
	*out = v;
	*count = (int)m;
	return 0;
}

static int parse_color(const char *s)
{
	if (!strcmp(s, "B"))
		return GT_BLACK;
	if (!strcmp(s, "W"))
		return GT_WHITE;
	return GT_EFORMAT;
}

static int parse_obj(pctx *c, gt_record *r, jv *o)
{
	const char *s;
	long long ll;
	double d;
	jv *v;

	/* identification first, so that a failure later can still name them */
	if (get_str(c, o, "model", 0, &s)) return GT_EFORMAT;
	r->model = s ? gt_xstrdup(s) : NULL;
	if (get_str(c, o, "worker", 0, &s)) return GT_EFORMAT;
	r->worker = s ? gt_xstrdup(s) : NULL;
	if (get_str(c, o, "game_id", 0, &s)) return GT_EFORMAT;
	r->game_id = s ? gt_xstrdup(s) : NULL;

	if (get_int(c, o, "version", 1, 0, INT32_MAX, 0, &ll)) return GT_EFORMAT;
	r->version = (int)ll;
	if (r->version != GT_RECORD_VERSION)
		return fail(c, "version", "version %d not supported (want %d)", r->version, GT_RECORD_VERSION);
	if (get_str(c, o, "rules", 1, &s)) return GT_EFORMAT;
	if (strlen(s) >= sizeof r->rules)
		return fail(c, "rules", "rules name too long");
	strcpy(r->rules, s);
	if (get_str(c, o, "sgf_rules", 0, &s)) return GT_EFORMAT;
	if (s) {
		if (strlen(s) >= sizeof r->sgf_rules)
			return fail(c, "field", "sgf_rules too long");
		strcpy(r->sgf_rules, s);
	}
	if (get_num(c, o, "komi", 1, &r->komi)) return GT_EFORMAT;
	if (get_int(c, o, "board_size", 1, INT32_MIN, INT32_MAX, 0, &ll)) return GT_EFORMAT;
	if (ll < 2 || ll > GT_MAX_N)
		return fail(c, "board-size", "board_size %lld not in 2..%d", ll, GT_MAX_N);
	int n = r->board_size = (int)ll, npts = n * n;
	v = jv_get(o, "seed");
	if (v && jv_is_string(v)) {
		const char *h = jv_str(v);
		char *end;
		size_t hl = strlen(h);
		errno = 0;
		r->seed = strtoull(h, &end, 16);
		if (hl == 0 || hl > 16 || *end || errno || h[0] == '-' || h[0] == '+' || h[0] == ' ')
			return fail(c, "field", "seed \"%.40s\" is not 1-16 hex digits", h);
	} else if (v && jv_is_integer(v) && jv_int(v) >= 0) {
		r->seed = (uint64_t)jv_int(v);
	} else if (v && !jv_is_null(v)) {
		return fail(c, "field", "seed is not a hex string");
	}
	if (get_int(c, o, "symmetry", 0, 0, 7, 0, &ll)) return GT_EFORMAT;
	r->symmetry = (int)ll;

	v = jv_get(o, "setup");
	if (v && !jv_is_null(v)) {
		if (!jv_is_object(v))
			return fail(c, "setup", "setup is not an object");
		static const char *key[3] = {NULL, "B", "W"};
		for (int col = GT_BLACK; col <= GT_WHITE; col++) {
			jv *a = jv_get(v, key[col]);
			if (!a)
				continue;
			if (parse_vertices(c, a, n, col == GT_BLACK ? "setup.B" : "setup.W", "setup",
			                   &r->setup[col], &r->nsetup[col]))
				return GT_EFORMAT;
			for (int i = 0; i < r->nsetup[col]; i++)
				if (r->setup[col][i] == GT_PASS(n))
					return fail(c, "setup", "setup stone \"pass\"");
		}
	}

	v = jv_get(o, "moves");
	if (!v)
		return fail(c, "field", "missing field \"moves\"");
	if (parse_vertices(c, v, n, "moves", "move", &r->moves, &r->nmoves))
		return GT_EFORMAT;
	if (get_str(c, o, "first_to_move", 0, &s)) return GT_EFORMAT;
	r->first_to_move = GT_BLACK;
	if (s && (r->first_to_move = parse_color(s)) < 0)
		return fail(c, "colors", "first_to_move \"%.20s\" is not B or W", s);
	r->colors = gt_xmalloc(r->nmoves ? r->nmoves : 1);
	if (get_str(c, o, "colors", 0, &s)) return GT_EFORMAT;
	if (s) {
		if (strlen(s) != (size_t)r->nmoves)
			return fail(c, "colors", "colors has %zu letters for %d moves", strlen(s), r->nmoves);
		for (int i = 0; i < r->nmoves; i++) {
			if (s[i] != 'B' && s[i] != 'W')
				return fail(c, "colors", "colors[%d] is not B or W", i);
			r->colors[i] = s[i] == 'B' ? GT_BLACK : GT_WHITE;
		}
		if (r->nmoves)
			r->first_to_move = r->colors[0];
	} else {
		for (int i = 0; i < r->nmoves; i++)
			r->colors[i] = (i & 1) ? GT_OTHER(r->first_to_move) : r->first_to_move;
	}

	if (get_str(c, o, "result", 1, &s)) return GT_EFORMAT;
	if (strlen(s) >= sizeof r->result)
		return fail(c, "result", "result \"%.20s...\" too long", s);
	strcpy(r->result, s);
	if (get_str(c, o, "winner", 1, &s)) return GT_EFORMAT;
	if ((r->winner = gt_winner_parse(s)) < 0)
		return fail(c, "result", "winner \"%.20s\" is not B, W, draw or ?", s);
	if (get_num(c, o, "score", 0, &r->score)) return GT_EFORMAT;
	if (get_bool(c, o, "score_checkable", 1, &r->score_checkable)) return GT_EFORMAT;

	v = jv_get(o, "ownership");
	if (v && !jv_is_null(v) && get_floats(c, v, "ownership", "ownership", (size_t)npts, &r->ownership))
		return GT_EFORMAT;

	v = jv_get(o, "positions");
	if (!v || jv_is_null(v))
		return 0;
	if (!jv_is_array(v))
		return fail(c, "positions", "positions is not an array");
	size_t np = jv_size(v);
	if (np > (size_t)r->nmoves + 1)
		return fail(c, "positions", "%zu positions for %d moves", np, r->nmoves);
	r->pos = gt_xcalloc(np ? np : 1, sizeof *r->pos);
	for (size_t i = 0; i < np; i++) {
		jv *p = jv_at(v, i);
		gt_position *ps = &r->pos[i];
		char what[48];
		r->npos = (int)i + 1;
		ps->value = ps->score = NAN;
		ps->weight = 1;
		ps->full_search = 1;
		if (!jv_is_object(p))
			return fail(c, "positions", "positions[%zu] is not an object", i);
		if (get_int(c, p, "move_number", 1, 0, r->nmoves, 0, &ll)) return GT_EFORMAT;
		ps->move_number = (int)ll;
		if (get_str(c, p, "to_move", 1, &s)) return GT_EFORMAT;
		if ((ps->to_move = parse_color(s)) < 0)
			return fail(c, "field", "positions[%zu].to_move is not B or W", i);
		jv *b = jv_get(p, "board");
		if (b && !jv_is_null(b)) {
			if (!jv_is_string(b) || jv_len(b) != (size_t)npts)
				return fail(c, "board", "positions[%zu].board is not a string of %d points", i, npts);
			if (i == 0)
				r->boards = gt_xmalloc(np * npts);
			else if (!r->boards)
				return fail(c, "board", "positions[%zu] has a board, earlier ones none", i);
			const char *bs = jv_str(b);
			for (int k = 0; k < npts; k++)
				if (bs[k] != '.' && bs[k] != 'X' && bs[k] != 'O')
					return fail(c, "board", "positions[%zu].board[%d] is not . X or O", i, k);
			memcpy(r->boards + i * npts, bs, npts);
		} else if (r->boards) {
			return fail(c, "board", "positions[%zu] has no board, earlier ones have", i);
		}
		jv *pol = jv_get(p, "policy");
		snprintf(what, sizeof what, "positions[%zu].policy", i);
		if (pol && !jv_is_null(pol) && get_floats(c, pol, what, "policy", (size_t)npts + 1, &ps->policy))
			return GT_EFORMAT;
		if (get_num(c, p, "value", 0, &d)) return GT_EFORMAT;
		if (fabs(d) > FLT_MAX)
			return fail(c, "nonfinite", "positions[%zu].value out of float range", i);
		ps->value = (float)d;
		if (get_num(c, p, "score", 0, &d)) return GT_EFORMAT;
		if (fabs(d) > FLT_MAX)
			return fail(c, "nonfinite", "positions[%zu].score out of float range", i);
		ps->score = (float)d;
		if (get_int(c, p, "visits", 0, 0, INT32_MAX, 0, &ll)) return GT_EFORMAT;
		ps->visits = (int)ll;
		if (get_bool(c, p, "full_search", 1, &ps->full_search)) return GT_EFORMAT;
		if (get_num(c, p, "weight", 0, &d)) return GT_EFORMAT;
		if (isnan(d))
			d = 1;
		if (!(d >= 0 && d <= FLT_MAX))
			return fail(c, "field", "positions[%zu].weight is negative or too large", i);
		ps->weight = (float)d;
	}
	return 0;
}

/*
 * Memory of a parse. A record line holds thousands of numbers; malloc and
 * free of a node for each were half the time of gt-validate. While a line
 * is parsed, every node (ours, and jansson's on the fallback path: this
 * module installs json_set_alloc_funcs once) comes from a per-thread chain
 * of blocks, all dropped at once when the parse ends; free() of a pointer
 * into a block is a no-op. Outside a parse the functions are malloc/free.
 */
#define ARENA_BLOCK ((size_t)1 << 20)
#define ARENA_KEEP ((size_t)64 << 20)
typedef struct ablock {
	struct ablock *next;
	size_t size, used;
	max_align_t data[];
} ablock;
static _Thread_local ablock *arena;
static _Thread_local int arena_on;

static void *ar_alloc(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (!arena || arena->size - arena->used < n) {
		size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;
		ablock *b = gt_xmalloc(sizeof *b + size);
		b->size = size;
		b->used = 0;
		b->next = arena;
		arena = b;
	}
	void *p = (char *)arena->data + arena->used;
	arena->used += n;
	return p;
}

static void *ar_malloc(size_t n)
{
	return arena_on ? ar_alloc(n) : malloc(n);
}

static void ar_free(void *p)
{
	for (ablock *b = arena; b; b = b->next)
		if ((char *)p >= (char *)b->data && (char *)p < (char *)b->data + b->size)
			return;
	free(p);
}

/* the stack of values of the arrays and objects being parsed */
static _Thread_local struct {
	jv *v;
	const char **k;
	size_t n, cap;
} jst;

static void arena_begin(void)
{
	static int installed; /* first call comes before any thread would parse */
	if (!installed) {
		json_set_alloc_funcs(ar_malloc, ar_free);
		installed = 1;
	}
	arena_on = 1;
}

static void arena_end(void)
{
	arena_on = 0;
	/* keep one block (the newest, if not huge) for the next parse */
	ablock *keep = arena && arena->size <= ARENA_KEEP ? arena : NULL;
	ablock *b = keep ? keep->next : arena;
	while (b) {
		ablock *next = b->next;
		free(b);
		b = next;
	}
	arena = keep;
	if (keep) {
		keep->next = NULL;
		keep->used = 0;
	}
	jst.n = 0;
	if (jst.cap > 65536) {
		free(jst.v);
		free(jst.k);
		jst.v = NULL;
		jst.k = NULL;
		jst.cap = 0;
	}
}

static void jst_push(const jv *v, const char *k)
{
	if (jst.n == jst.cap) {
		jst.cap = jst.cap ? 2 * jst.cap : 1024;
		jst.v = gt_xrealloc(jst.v, jst.cap * sizeof *jst.v);
		jst.k = gt_xrealloc(jst.k, jst.cap * sizeof *jst.k);
	}
	jst.v[jst.n] = *v;
	jst.k[jst.n] = k;
	jst.n++;
}

/*
 * The fast parser: strict RFC 8259 JSON into jv nodes. It gives up (returns
 * -1) on anything it does not accept, including rare valid input (objects
 * of more than 64 members, numbers of more than 63 characters that need
 * strtod, nesting beyond jansson's 2048 levels); jansson then parses the
 * line and is the judge of what is valid and of every error message. So
 * it must accept nothing that jansson refuses (tests/unit/record.c checks
 * that on mutated records).
 */
typedef struct jp {
	const unsigned char *p, *end;
	int depth;
} jp;

static int jp_value(jp *J, jv *out);

static void jp_ws(jp *J)
{
	while (J->p < J->end && (*J->p == ' ' || *J->p == '\t' || *J->p == '\n' || *J->p == '\r'))
		J->p++;
}

static int hex4(const unsigned char *s)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		int c = s[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		                  c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* length of the valid UTF-8 sequence at s (RFC 3629), 0 if invalid */
static int utf8_len(const unsigned char *s, const unsigned char *end)
{
	int c = s[0], n;
	unsigned lo = 0x80, hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0) lo = 0xa0;
		if (c == 0xed) hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0) lo = 0x90;
		if (c == 0xf4) hi = 0x8f;
	} else
		return 0;
	if (end - s < n)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* a string at J->p ('"') into a NUL-terminated arena copy */
static int jp_string(jp *J, const char **out, size_t *outlen)
{
	const unsigned char *s = ++J->p, *p = s;
	while (p < J->end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
		p++;
	if (p < J->end && *p == '"') { /* plain ASCII: the common case */
		size_t n = (size_t)(p - s);
		char *d = ar_alloc(n + 1);
		memcpy(d, s, n);
		d[n] = 0;
		*out = d;
		*outlen = n;
		J->p = p + 1;
		return 0;
	}
	/* escapes or UTF-8: the decoded text is never longer than the raw */
	const unsigned char *q = p;
	while (q < J->end && *q != '"')
		q += *q == '\\' && q + 1 < J->end ? 2 : 1;
	if (q >= J->end)
		return -1;
	char *d = ar_alloc((size_t)(q - s) + 1);
	size_t n = (size_t)(p - s);
	memcpy(d, s, n);
	while (p < q) {
		unsigned c = *p;
		if (c < 0x20)
			return -1;
		if (c >= 0x80) {
			int l = utf8_len(p, q);
			if (!l)
				return -1;
			memcpy(d + n, p, (size_t)l);
			n += (size_t)l;
			p += l;
			continue;
		}
		if (c != '\\') {
			d[n++] = (char)c;
			p++;
			continue;
		}
		if (q - p < 2)
			return -1;
		c = p[1];
		p += 2;
		switch (c) {
		case '"': case '\\': case '/': d[n++] = (char)c; continue;
		case 'b': d[n++] = '\b'; continue;
		case 'f': d[n++] = '\f'; continue;
		case 'n': d[n++] = '\n'; continue;
		case 'r': d[n++] = '\r'; continue;
		case 't': d[n++] = '\t'; continue;
		case 'u': break;
		default: return -1;
		}
		if (q - p < 4)
			return -1;
		long u = hex4(p);
		p += 4;
		if (u <= 0 || (u >= 0xdc00 && u <= 0xdfff))
			return -1; /* \u0000 (jansson refuses it) or a lone low surrogate */
		if (u >= 0xd800 && u <= 0xdbff) {
			if (q - p < 6 || p[0] != '\\' || p[1] != 'u')
				return -1;
			long lo = hex4(p + 2);
			if (lo < 0xdc00 || lo > 0xdfff)
				return -1;
			p += 6;
			u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
		}
		/* the UTF-8 of u is at most as long as its escape */
		if (u < 0x80) {
			d[n++] = (char)u;
		} else if (u < 0x800) {
			d[n++] = (char)(0xc0 | u >> 6);
			d[n++] = (char)(0x80 | (u & 0x3f));
		} else if (u < 0x10000) {
			d[n++] = (char)(0xe0 | u >> 12);
			d[n++] = (char)(0x80 | ((u >> 6) & 0x3f));
			d[n++] = (char)(0x80 | (u & 0x3f));
		} else {
			d[n++] = (char)(0xf0 | u >> 18);
			d[n++] = (char)(0x80 | ((u >> 12) & 0x3f));
			d[n++] = (char)(0x80 | ((u >> 6) & 0x3f));
			d[n++] = (char)(0x80 | (u & 0x3f));
		}
	}
	d[n] = 0;
	*out = d;
	*outlen = n;
	J->p = q + 1;
	return 0;
}

static const double pow10_exact[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int jp_number(jp *J, jv *out)
{
	const unsigned char *s = J->p, *p = s, *e = J->end;
	int neg = 0, isreal = 0, ndig = 0, fdig = 0;
	uint64_t m = 0;
	long ex = 0;
	if (*p == '-') {
		neg = 1;
		p++;
	}
	if (p < e && *p == '0') {
		p++;
		ndig = 0; /* a leading 0 adds no significant digit */
	} else if (p < e && *p >= '1' && *p <= '9') {
		while (p < e && *p >= '0' && *p <= '9') {
			if (ndig < 19)
				m = m * 10 + (uint64_t)(*p - '0');
			ndig++;
			p++;
		}
	} else {
		return -1;
	}
	if (p < e && *p == '.') {
		isreal = 1;
		p++;
		if (p >= e || *p < '0' || *p > '9')
			return -1;
		while (p < e && *p >= '0' && *p <= '9') {
			if (ndig == 0 && *p == '0') { /* leading zeros of 0.000x */
				fdig++;
			} else {
				if (ndig < 19) {
					m = m * 10 + (uint64_t)(*p - '0');
					fdig++;
				}
				ndig++;
			}
			p++;
		}
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		int eneg = 0;
		isreal = 1;
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		if (p >= e || *p < '0' || *p > '9')
			return -1;
		while (p < e && *p >= '0' && *p <= '9') {
			if (ex < 100000)
				ex = ex * 10 + (*p - '0');
			p++;
		}
		if (eneg)
			ex = -ex;
	}
	J->p = p;
	if (!isreal) {
		if (ndig > 18)
			goto slow;
		out->t = JV_INT;
		out->u.i = neg ? -(long long)m : (long long)m;
		return 0;
	}
	long e10 = ex - fdig;
	if (ndig <= 15 && e10 >= -22 && e10 <= 22) { /* exact operands, one rounding */
		double d = (double)m;
		d = e10 < 0 ? d / pow10_exact[-e10] : d * pow10_exact[e10];
		out->t = JV_REAL;
		out->u.d = neg ? -d : d;
		return 0;
	}
slow:;
	char buf[64];
	size_t n = (size_t)(p - s);
	if (n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	char *end;
	errno = 0;
	if (!isreal) {
		long long v = strtoll(buf, &end, 10);
		if (errno || *end)
			return -1;
		out->t = JV_INT;
		out->u.i = v;
		return 0;
	}
	double d = strtod(buf, &end);
	if (*end || isinf(d))
		return -1;
	out->t = JV_REAL;
	out->u.d = d;
	return 0;
}

static int jp_container(jp *J, jv *out, int obj)
{
	size_t base = jst.n;
	if (++J->depth > JSON_PARSER_MAX_DEPTH)
		return -1;
	J->p++;
	jp_ws(J);
	if (J->p < J->end && *J->p == (obj ? '}' : ']')) {
		J->p++;
	} else {
		for (;;) {
			const char *key = NULL;
			size_t klen;
			jv v;
			if (obj) {
				if (J->p >= J->end || *J->p != '"' || jp_string(J, &key, &klen) || strlen(key) != klen)
					return -1;
				jp_ws(J);
				if (J->p >= J->end || *J->p != ':')
					return -1;
				J->p++;
				jp_ws(J);
			}
			if (jp_value(J, &v))
				return -1;
			jst_push(&v, key);
			jp_ws(J);
			if (J->p >= J->end)
				return -1;
			if (*J->p == ',') {
				J->p++;
				jp_ws(J);
				continue;
			}
			if (*J->p != (obj ? '}' : ']'))
				return -1;
			J->p++;
			break;
		}
	}
	size_t n = jst.n - base;
	if (obj && n > 64)
		return -1; /* jansson's hash table finds the duplicates */
	out->t = obj ? JV_OBJ : JV_ARR;
	out->n = n;
	out->u.a = ar_alloc((n ? n : 1) * sizeof(jv));
	memcpy(out->u.a, jst.v + base, n * sizeof(jv));
	out->keys = NULL;
	if (obj) {
		out->keys = ar_alloc((n ? n : 1) * sizeof(char *));
		memcpy(out->keys, jst.k + base, n * sizeof(char *));
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				if (!strcmp(out->keys[i], out->keys[j]))
					return -1;
	}
	jst.n = base;
	J->depth--;
	return 0;
}

static int jp_value(jp *J, jv *out)
{
	if (J->p >= J->end)
		return -1;
	out->keys = NULL;
	out->n = 0;
	switch (*J->p) {
	case '{': return jp_container(J, out, 1);
	case '[': return jp_container(J, out, 0);
	case '"':
		out->t = JV_STR;
		return jp_string(J, &out->u.s, &out->n);
	case 't':
		if (J->end - J->p < 4 || memcmp(J->p, "true", 4))
			return -1;
		J->p += 4;
		out->t = JV_TRUE;
		return 0;
	case 'f':
		if (J->end - J->p < 5 || memcmp(J->p, "false", 5))
			return -1;
		J->p += 5;
		out->t = JV_FALSE;
		return 0;
	case 'n':
		if (J->end - J->p < 4 || memcmp(J->p, "null", 4))
			return -1;
		J->p += 4;
		out->t = JV_NULL;
		return 0;
	default:
		if (*J->p == '-' || (*J->p >= '0' && *J->p <= '9'))
			return jp_number(J, out);
		return -1;
	}
}

/* jansson's tree as jv nodes (the fallback path) */
static void jv_from_json(jv *out, json_t *j)
{
	memset(out, 0, sizeof *out);
	switch (json_typeof(j)) {
	case JSON_OBJECT: {
		const char *k;
		json_t *v;
		size_t i = 0, n = json_object_size(j);
		out->t = JV_OBJ;
		out->n = n;
		out->u.a = ar_alloc((n ? n : 1) * sizeof(jv));
		out->keys = ar_alloc((n ? n : 1) * sizeof(char *));
		json_object_foreach(j, k, v) {
			out->keys[i] = k;
			jv_from_json(&out->u.a[i++], v);
		}
		break;
	}
	case JSON_ARRAY: {
		size_t n = json_array_size(j);
		out->t = JV_ARR;
		out->n = n;
		out->u.a = ar_alloc((n ? n : 1) * sizeof(jv));
		for (size_t i = 0; i < n; i++)
			jv_from_json(&out->u.a[i], json_array_get(j, i));
		break;
	}
	case JSON_STRING:
		out->t = JV_STR;
		out->u.s = json_string_value(j);
		out->n = json_string_length(j);
		break;
	case JSON_INTEGER: out->t = JV_INT; out->u.i = json_integer_value(j); break;
	case JSON_REAL: out->t = JV_REAL; out->u.d = json_real_value(j); break;
	case JSON_TRUE: out->t = JV_TRUE; break;
	case JSON_FALSE: out->t = JV_FALSE; break;
	default: out->t = JV_NULL; break;
	}
}

/* 1 if the text has a NaN or Infinity token outside strings (JSON has
 * none, some writers emit them) */
static int bare_nonfinite(const char *s, size_t len)
{
	int in = 0;
	for (size_t i = 0; i < len; i++) {
		if (in) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				in = 0;
		} else if (s[i] == '"') {
			in = 1;
		} else if ((s[i] == 'N' || s[i] == 'n' || s[i] == 'I' || s[i] == 'i') && i + 3 <= len &&
		           (!strncasecmp(s + i, "nan", 3) || !strncasecmp(s + i, "inf", 3))) {
			return 1;
		}
	}
	return 0;
}

static _Thread_local int fast_off;

void gt_record_fastjson(int on)
{
	fast_off = !on;
}

int gt_record_parse_ex(gt_record *r, const char *line, size_t len, gt_error *e, const char **reason)
{
	pctx c = {e, reason};
	jv top;
	int rc;
	gt_record_release(r);
	if (reason)
		*reason = NULL;
	arena_begin();
	jp J = {(const unsigned char *)line, (const unsigned char *)line + len, 0};
	jp_ws(&J);
	int fast = !fast_off && J.p < J.end && *J.p == '{' && !jp_value(&J, &top);
	if (fast) {
		jp_ws(&J);
		fast = J.p == J.end;
	}
	if (!fast) {
		json_error_t je;
		jst.n = 0;
		json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
		if (!o) {
			arena_end();
			const char *why = "json";
			switch (json_error_code(&je)) {
			case json_error_invalid_utf8: why = "utf8"; break;
			case json_error_numeric_overflow: why = "nonfinite"; break;
			case json_error_stack_overflow: why = "nesting"; break;
			default:
				if (bare_nonfinite(line, len))
					why = "nonfinite";
			}
			fail(&c, why, "invalid JSON at byte %d: %s", je.position, je.text);
			if (e)
				e->offset = je.position;
			return GT_EFORMAT;
		}
		jv_from_json(&top, o); /* o stays valid: the arena is dropped at the end */
	}
	if (!jv_is_object(&top))
		rc = fail(&c, "json", "not a JSON object");
	else
		rc = parse_obj(&c, r, &top);
	arena_end();
	return rc;
}

int gt_record_parse(gt_record *r, const char *line, size_t len, gt_error *e)
{
	return gt_record_parse_ex(r, line, len, e, NULL);
}

/* ---- writer ---- */

typedef struct buf {
	char *p;
	size_t len, cap;
	int bad;            /* a value could not be written */
	char why[128];
} buf;

static void b_need(buf *b, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 1024;
		while (c < b->len + n + 1)
			c *= 2;
		b->p = gt_xrealloc(b->p, c);
		b->cap = c;
	}
}

static void b_put(buf *b, const char *s, size_t n)
{
	b_need(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void b_s(buf *b, const char *s) { b_put(b, s, strlen(s)); }

static void __attribute__((format(printf, 2, 3))) b_f(buf *b, const char *fmt, ...)
{
	va_list ap;
	b_need(b, 64);
	va_start(ap, fmt);
	int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= b->cap - b->len) {
		b_need(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	if (n > 0)
		b->len += (size_t)n;
}

/* a JSON string with escapes */
static void b_str(buf *b, const char *s)
{
	b_need(b, strlen(s) + 2);
	b->p[b->len++] = '"';
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\') {
			char e[2] = {'\\', (char)ch};
			b_put(b, e, 2);
		} else if (ch < 0x20) {
			b_f(b, "\\u%04x", ch);
		} else {
			b_put(b, (const char *)&ch, 1);
		}
	}
	b_put(b, "\"", 1);
}

/* float compactly: 7 significant digits round-trip within 1e-6 for |x| <= 1 */
static void b_flt(buf *b, double x, const char *what)
{
	if (!isfinite(x)) {
		if (!b->bad)
			snprintf(b->why, sizeof b->why, "%s is not finite", what);
		b->bad = 1;
		b_s(b, "0");
		return;
	}
	if (x == 0)
		x = 0; /* no "-0" */
	b_f(b, "%.7g", x);
}

static void b_dbl(buf *b, double x, const char *what)
{
	if (!isfinite(x)) {
		if (!b->bad)
			snprintf(b->why, sizeof b->why, "%s is not finite", what);
		b->bad = 1;
		b_s(b, "0");
		return;
	}
	if (x == 0)
		x = 0;
	b_f(b, "%.15g", x);
}

static void b_vertices(buf *b, int n, const int16_t *v, int m, const char *what)
{
	char vs[8];
	b_s(b, "[");
	for (int i = 0; i < m; i++) {
		if (v[i] < 0 || v[i] > GT_PASS(n)) {
			if (!b->bad)
				snprintf(b->why, sizeof b->why, "%s[%d] = %d is off the board", what, i, v[i]);
			b->bad = 1;
			continue;
		}
		if (i)
			b_s(b, ",");
		b_s(b, "\"");
		b_s(b, gt_vertex_str(n, v[i], vs));
		b_s(b, "\"");
	}
	b_s(b, "]");
}

char *gt_record_format(const gt_record *r, size_t *len, gt_error *e)
{
	buf b = {0};
	int n = r->board_size, npts = n * n;
	if (n < 2 || n > GT_MAX_N) {
		gt_error_set(e, GT_EINVAL, -1, -1, "board_size %d not in 2..%d", n, GT_MAX_N);
		return NULL;
	}
	b_f(&b, "{\"version\":%d,\"rules\":", r->version);
	b_str(&b, r->rules);
	if (r->sgf_rules[0]) {
		b_s(&b, ",\"sgf_rules\":");
		b_str(&b, r->sgf_rules);
	}
	b_s(&b, ",\"komi\":");
	b_dbl(&b, r->komi, "komi");
	b_f(&b, ",\"board_size\":%d", n);
	if (r->model) {
		b_s(&b, ",\"model\":");
		b_str(&b, r->model);
	}
	if (r->worker) {
		b_s(&b, ",\"worker\":");
		b_str(&b, r->worker);
	}
	if (r->game_id) {
		b_s(&b, ",\"game_id\":");
		b_str(&b, r->game_id);
	}
	if (r->seed)
		b_f(&b, ",\"seed\":\"%016" PRIx64 "\"", r->seed);
	if (r->symmetry)
		b_f(&b, ",\"symmetry\":%d", r->symmetry & 7);
	if (r->nsetup[GT_BLACK] || r->nsetup[GT_WHITE]) {
		b_s(&b, ",\"setup\":{\"B\":");
		b_vertices(&b, n, r->setup[GT_BLACK], r->nsetup[GT_BLACK], "setup.B");
		b_s(&b, ",\"W\":");
		b_vertices(&b, n, r->setup[GT_WHITE], r->nsetup[GT_WHITE], "setup.W");
		b_s(&b, "}");
	}
	b_s(&b, ",\"moves\":");
	b_vertices(&b, n, r->moves, r->nmoves, "moves");
	int first = r->colors && r->nmoves ? r->colors[0] : r->first_to_move;
	if (first != GT_WHITE)
		first = GT_BLACK;
	int alternate = 1;
	for (int i = 0; r->colors && i < r->nmoves; i++)
		if (r->colors[i] != ((i & 1) ? GT_OTHER(first) : first))
			alternate = 0;
	if (!alternate) {
		b_s(&b, ",\"colors\":\"");
		for (int i = 0; i < r->nmoves; i++)
			b_put(&b, r->colors[i] == GT_WHITE ? "W" : "B", 1);
		b_s(&b, "\"");
	} else if (first == GT_WHITE) {
		b_s(&b, ",\"first_to_move\":\"W\"");
	}
	b_s(&b, ",\"result\":");
	b_str(&b, r->result);
	b_s(&b, ",\"winner\":");
	b_str(&b, gt_winner_str(r->winner));
	if (!isnan(r->score)) {
		b_s(&b, ",\"score\":");
		b_dbl(&b, r->score, "score");
	}
	if (!r->score_checkable)
		b_s(&b, ",\"score_checkable\":false");
	if (r->ownership) {
		b_s(&b, ",\"ownership\":[");
		for (int i = 0; i < npts; i++) {
			if (i)
				b_s(&b, ",");
			b_flt(&b, r->ownership[i], "ownership");
		}
		b_s(&b, "]");
	}
	if (r->npos) {
		b_s(&b, ",\"positions\":[");
		for (int i = 0; i < r->npos; i++) {
			const gt_position *p = &r->pos[i];
			b_f(&b, "%s{\"move_number\":%d,\"to_move\":\"%s\"", i ? "," : "", p->move_number,
			    p->to_move == GT_WHITE ? "W" : "B");
			if (r->boards) {
				b_s(&b, ",\"board\":\"");
				b_put(&b, r->boards + (size_t)i * npts, (size_t)npts);
				b_s(&b, "\"");
			}
			if (p->policy) {
				b_s(&b, ",\"policy\":[");
				for (int k = 0; k <= npts; k++) {
					if (k)
						b_s(&b, ",");
					b_flt(&b, p->policy[k], "policy");
				}
				b_s(&b, "]");
			}
			if (!isnan(p->value)) {
				b_s(&b, ",\"value\":");
				b_flt(&b, p->value, "value");
			}
			if (!isnan(p->score)) {
				b_s(&b, ",\"score\":");
				b_flt(&b, p->score, "position score");
			}
			b_f(&b, ",\"visits\":%d,\"full_search\":%s", p->visits, p->full_search ? "true" : "false");
			if (p->weight != 1) {
				b_s(&b, ",\"weight\":");
				b_flt(&b, p->weight, "weight");
			}
			b_s(&b, "}");
		}
		b_s(&b, "]");
	}
	b_s(&b, "}\n");
	if (b.bad) {
		gt_error_set(e, GT_EINVAL, -1, -1, "%s", b.why);
		free(b.p);
		return NULL;
	}
	if (len)
		*len = b.len;
	return b.p;
}

int gt_record_write(const gt_record *r, FILE *f)
{
	size_t len;
	char *s = gt_record_format(r, &len, NULL);
	if (!s)
		return GT_EINVAL;
	size_t w = fwrite(s, 1, len, f);
	free(s);
	return w == len ? 0 : GT_EIO;
}

/* ---- symmetry ---- */

int gt_record_sym_compose(int a, int b)
{
	for (int c = 0; c < GT_NSYM; c++) {
		int same = 1;
		for (int p = 0; p < 9 && same; p++)
			same = gt_sym_point(3, c, p) == gt_sym_point(3, b, gt_sym_point(3, a, p));
		if (same)
			return c;
	}
	return 0; /* not reached: D4 is a group */
}

void gt_record_sym(gt_record *r, int k)
{
	int n = r->board_size, npts = n * n;
	k &= 7;
	if (n < 2 || n > GT_MAX_N || k == 0)
		return;
	for (int i = 0; i < r->nmoves; i++)
		r->moves[i] = (int16_t)gt_sym_point(n, k, r->moves[i]);
	for (int c = GT_BLACK; c <= GT_WHITE; c++)
		for (int i = 0; i < r->nsetup[c]; i++)
			r->setup[c][i] = (int16_t)gt_sym_point(n, k, r->setup[c][i]);
	float tmp[GT_MAX_PTS];
	if (r->ownership) {
		gt_sym_apply_f(n, k, tmp, r->ownership);
		memcpy(r->ownership, tmp, npts * sizeof *tmp);
	}
	for (int i = 0; i < r->npos; i++) {
		float *pol = r->pos[i].policy;
		if (pol) {
			gt_sym_apply_f(n, k, tmp, pol);
			memcpy(pol, tmp, npts * sizeof *tmp); /* pol[npts], pass, stays */
		}
		if (r->boards) {
			char *bs = r->boards + (size_t)i * npts, t[GT_MAX_PTS];
			for (int p = 0; p < npts; p++)
				t[gt_sym_point(n, k, p)] = bs[p];
			memcpy(bs, t, npts);
		}
	}
	r->symmetry = gt_record_sym_compose(r->symmetry & 7, k);
}
