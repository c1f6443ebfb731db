/* record.c: the NDJSON game record: streaming reader, parser, writer,
 * symmetry (gt-record(5) is the format's truth). */
#include "record.h"
#include "board.h"
#include "sym.h"
#include "util.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
	gt_free_all(r->model, r->worker, r->game_id, r->setup[GT_BLACK], r->setup[GT_WHITE],
	            r->moves, r->colors, r->ownership);
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
	gt_free_all(rd->name, rd->in, rd->out, rd->line, rd);
}

/* rd_read: up to n bytes from the reader's file with read(2), so that
 * records that arrive through a pipe are seen as soon as they are written
 * (fread would wait for a full buffer). Returns the bytes read, 0 at the
 * end; -1 on an error (errno kept; EINTR too, so that a signal handler's
 * stop flag is seen by the caller). */
static ssize_t rd_read(gt_record_reader *rd, unsigned char *buf, size_t n)
{
	return read(fileno(rd->f), buf, n);
}

/* Refill rd->out; returns bytes available, 0 at the end, or a gt_err. */
static int rd_fill(gt_record_reader *rd, gt_error *e)
{
	rd->outpos = rd->outlen = 0;
	if (rd->gz == -1) {
		/* at least two bytes (or the end) to recognise gzip's magic */
		size_t n = 0;
		while (n < 2) {
			ssize_t r = rd_read(rd, rd->in + n, RD_IN - n);
			if (r < 0)
				return gt_error_set(e, GT_EIO, rd->lineno + 1, -1, "%s: %s", rd->name, strerror(errno));
			if (r == 0)
				break;
			n += (size_t)r;
		}
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
			return (int)n;
		}
	}
	if (rd->gz == 0) {
		ssize_t n = rd_read(rd, (unsigned char *)rd->out, RD_OUT);
		if (n < 0)
			return gt_error_set(e, GT_EIO, rd->lineno + 1, -1, "%s: %s", rd->name, strerror(errno));
		rd->outlen = (size_t)n;
		return (int)n;
	}
	while (rd->outlen == 0) {
		if (rd->zs.avail_in == 0) {
			ssize_t n = rd_read(rd, rd->in, RD_IN);
			if (n < 0)
				return gt_error_set(e, GT_EIO, rd->lineno + 1, -1, "%s: %s", rd->name, strerror(errno));
			if (n == 0) {
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

/*
 * Memory of a parse. The tree of a record line has thousands of nodes (a
 * 9x9 self-play record: some 7000 numbers); malloc and free of each were
 * a quarter of the instructions of gt-validate. While a line is parsed and
 * read, or a record is built and dumped, jansson's allocations come from a
 * per-thread chain of blocks (this module installs json_set_alloc_funcs
 * once), dropped all at once at the end, so the tree is never freed node
 * by node; free() of a pointer into a block is a no-op. Outside these the
 * functions are malloc and free. Under AddressSanitizer there is no arena:
 * jansson's memory stays visible to it.
 */
#if defined(__SANITIZE_ADDRESS__)
#define GT_ARENA 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GT_ARENA 0
#endif
#endif
#ifndef GT_ARENA
#define GT_ARENA 1
#endif

#define ARENA_BLOCK ((size_t)1 << 20)
#define ARENA_KEEP ((size_t)64 << 20)
typedef struct ablock {
	struct ablock *next;
	size_t size, used;
	max_align_t data[];
} ablock;
static _Thread_local ablock *arena;
static _Thread_local int arena_on;

static void *ar_malloc(size_t n)
{
	if (!arena_on)
		return malloc(n);
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

static void ar_free(void *p)
{
	for (ablock *b = arena; b; b = b->next)
		if ((char *)p >= (char *)b->data && (char *)p < (char *)b->data + b->size)
			return;
	free(p);
}

static void ar_install(void)
{
	json_set_alloc_funcs(ar_malloc, ar_free);
}

/* Start a parse or a dump: 1 if the jansson values made until arena_end
 * live in the arena (they must then not be freed), 0 if they must be
 * json_decref'd. */
static int arena_begin(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	if (!GT_ARENA)
		return 0;
	pthread_once(&once, ar_install);
	arena_on = 1;
	return 1;
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

/* A JSON value of the record (borrowed from the tree of the line): NULL for
 * an absent key or a JSON null, so that "missing" and "null" read alike. */
static json_t *get(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_null(v) ? NULL : v;
}

/* A number as a double: JSON integers and reals alike. */
static double num(const json_t *v)
{
	return json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v);
}

/* The value of key k into *v when it is of one of the JSON types in the
 * mask types (bits 1 << json_type; what names them: "a string"); absent
 * (or null): *v NULL and 0, or the missing-field failure when required;
 * of another type: the failure, naming what. */
static int field(pctx *c, json_t *o, const char *k, int required, unsigned types,
                 const char *what, json_t **v)
{
	*v = get(o, k);
	if (!*v)
		return required ? fail(c, "field", "missing field \"%s\"", k) : 0;
	if (!(types & 1u << json_typeof(*v)))
		return fail(c, "field", "field \"%s\" is not %s", k, what);
	return 0;
}

/* Strings from jansson hold no NUL: json_loadb without JSON_ALLOW_NUL
 * refuses "\u0000". */
static int get_str(pctx *c, json_t *o, const char *k, int required, const char **out)
{
	json_t *v;
	int rc = field(c, o, k, required, 1u << JSON_STRING, "a string", &v);
	*out = !rc && v ? json_string_value(v) : NULL;
	return rc;
}

/* absent: NAN */
static int get_num(pctx *c, json_t *o, const char *k, int required, double *out)
{
	json_t *v;
	int rc = field(c, o, k, required, 1u << JSON_INTEGER | 1u << JSON_REAL, "a number", &v);
	if (!rc)
		*out = v ? num(v) : NAN;
	return rc;
}

static int get_int(pctx *c, json_t *o, const char *k, int required, long long lo, long long hi,
                   long long def, long long *out)
{
	json_t *v;
	*out = def;
	int rc = field(c, o, k, required, 1u << JSON_INTEGER, "an integer", &v);
	if (rc || !v)
		return rc;
	*out = json_integer_value(v);
	if (*out < lo || *out > hi)
		return fail(c, "field", "field \"%s\" is %lld, outside %lld..%lld", k, *out, lo, hi);
	return 0;
}

static int get_bool(pctx *c, json_t *o, const char *k, int def, int *out)
{
	json_t *v;
	*out = def;
	int rc = field(c, o, k, 0, 1u << JSON_TRUE | 1u << JSON_FALSE, "a boolean", &v);
	if (!rc && v)
		*out = json_is_true(v);
	return rc;
}

/* A float array of exactly want entries into a new array *out. */
static int get_floats(pctx *c, json_t *a, const char *what, const char *reason, size_t want, float **out)
{
	if (!json_is_array(a))
		return fail(c, reason, "%s is not an array", what);
	size_t n = json_array_size(a);
	if (n != want)
		return fail(c, reason, "%s has %zu entries, want %zu", what, n, want);
	float *f = gt_xmalloc(want * sizeof *f);
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(a, i);
		if (!json_is_number(v)) {
			free(f);
			return fail(c, reason, "%s[%zu] is not a number", what, i);
		}
		double d = num(v);
		if (!(fabs(d) <= FLT_MAX)) {
			free(f);
			return fail(c, "nonfinite", "%s[%zu] = %g is not a finite float", what, i, d);
		}
		f[i] = (float)d;
	}
	*out = f;
	return 0;
}

static int parse_vertices(pctx *c, json_t *a, int n, const char *what, const char *reason,
                          int16_t **out, int *count)
{
	if (!json_is_array(a))
		return fail(c, reason, "%s is not an array", what);
	size_t m = json_array_size(a);
	if (m > 100000)
		return fail(c, "length", "%s has %zu entries", what, m);
	int16_t *v = gt_xmalloc((m ? m : 1) * sizeof *v);
	for (size_t i = 0; i < m; i++) {
		const char *s = json_string_value(json_array_get(a, i));
		int p = s ? gt_vertex_parse(n, s) : GT_EFORMAT;
		if (p < 0) {
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

static int parse_obj(pctx *c, gt_record *r, json_t *o)
{
	const char *s;
	long long ll;
	double d;
	json_t *v;

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
	v = get(o, "seed");
	if (json_is_string(v)) {
		const char *h = json_string_value(v);
		char *end;
		size_t hl = strlen(h);
		errno = 0;
		r->seed = strtoull(h, &end, 16);
		if (hl == 0 || hl > 16 || *end || errno || h[0] == '-' || h[0] == '+' || h[0] == ' ')
			return fail(c, "field", "seed \"%.40s\" is not 1-16 hex digits", h);
	} else if (json_is_integer(v) && json_integer_value(v) >= 0) {
		r->seed = (uint64_t)json_integer_value(v);
	} else if (v) {
		return fail(c, "field", "seed is not a hex string");
	}
	if (get_int(c, o, "symmetry", 0, 0, 7, 0, &ll)) return GT_EFORMAT;
	r->symmetry = (int)ll;

	v = get(o, "setup");
	if (v) {
		if (!json_is_object(v))
			return fail(c, "setup", "setup is not an object");
		static const char *key[3] = {NULL, "B", "W"};
		for (int col = GT_BLACK; col <= GT_WHITE; col++) {
			json_t *a = json_object_get(v, key[col]);
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

	v = json_object_get(o, "moves");
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

	v = get(o, "ownership");
	if (v && get_floats(c, v, "ownership", "ownership", (size_t)npts, &r->ownership))
		return GT_EFORMAT;

	v = get(o, "positions");
	if (!v)
		return 0;
	if (!json_is_array(v))
		return fail(c, "positions", "positions is not an array");
	size_t np = json_array_size(v);
	if (np > (size_t)r->nmoves + 1)
		return fail(c, "positions", "%zu positions for %d moves", np, r->nmoves);
	r->pos = gt_xcalloc(np ? np : 1, sizeof *r->pos);
	for (size_t i = 0; i < np; i++) {
		json_t *p = json_array_get(v, i);
		gt_position *ps = &r->pos[i];
		char what[48];
		r->npos = (int)i + 1;
		ps->value = ps->score = NAN;
		ps->weight = 1;
		ps->full_search = 1;
		if (!json_is_object(p))
			return fail(c, "positions", "positions[%zu] is not an object", i);
		if (get_int(c, p, "move_number", 1, 0, r->nmoves, 0, &ll)) return GT_EFORMAT;
		ps->move_number = (int)ll;
		if (get_str(c, p, "to_move", 1, &s)) return GT_EFORMAT;
		if ((ps->to_move = parse_color(s)) < 0)
			return fail(c, "field", "positions[%zu].to_move is not B or W", i);
		json_t *b = get(p, "board");
		if (b) {
			if (!json_is_string(b) || json_string_length(b) != (size_t)npts)
				return fail(c, "board", "positions[%zu].board is not a string of %d points", i, npts);
			if (i == 0)
				r->boards = gt_xmalloc(np * npts);
			else if (!r->boards)
				return fail(c, "board", "positions[%zu] has a board, earlier ones none", i);
			const char *bs = json_string_value(b);
			for (int k = 0; k < npts; k++)
				if (bs[k] != '.' && bs[k] != 'X' && bs[k] != 'O')
					return fail(c, "board", "positions[%zu].board[%d] is not . X or O", i, k);
			memcpy(r->boards + i * npts, bs, npts);
		} else if (r->boards) {
			return fail(c, "board", "positions[%zu] has no board, earlier ones have", i);
		}
		json_t *pol = get(p, "policy");
		snprintf(what, sizeof what, "positions[%zu].policy", i);
		if (pol && get_floats(c, pol, what, "policy", (size_t)npts + 1, &ps->policy))
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
		if (get_num(c, p, "root_value", 0, &d)) return GT_EFORMAT;
		if (!isnan(d)) {
			if (!(d >= -1 && d <= 1))
				return fail(c, "field", "positions[%zu].root_value is not in [-1,1]", i);
			ps->has_root = 1;
			ps->root_value = (float)d;
			if (get_num(c, p, "root_score", 0, &d)) return GT_EFORMAT;
			if (!(fabs(d) <= FLT_MAX))
				return fail(c, "field", "positions[%zu].root_score is missing or out of float range", i);
			ps->root_score = (float)d;
		} else if (get(p, "root_score")) {
			return fail(c, "field", "positions[%zu].root_score without root_value", i);
		}
	}
	return 0;
}

/* 1 if the text has a NaN or Infinity token outside strings (JSON has
 * none, some writers emit them): the reason "nonfinite" for such a line
 * rather than "json". */
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

int gt_record_parse_ex(gt_record *r, const char *line, size_t len, gt_error *e, const char **reason)
{
	pctx c = {e, reason};
	json_error_t je;
	gt_record_release(r);
	if (reason)
		*reason = NULL;
	int in_arena = arena_begin();
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (!o) {
		if (in_arena)
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
	int rc = json_is_object(o) ? parse_obj(&c, r, o) : fail(&c, "json", "not a JSON object");
	if (in_arena)
		arena_end(); /* the tree goes with it */
	else
		json_decref(o);
	return rc;
}

int gt_record_parse(gt_record *r, const char *line, size_t len, gt_error *e)
{
	return gt_record_parse_ex(r, line, len, e, NULL);
}

/* ---- writer ---- */

/*
 * The record is built as a jansson tree and dumped with JSON_COMPACT |
 * JSON_REAL_PRECISION(7). A float goes in as a JSON integer when it is
 * integral (policy zeros, values and ownership of +-1: "0", "-1", shorter
 * to write and to read than jansson's "0.0") and as a real otherwise; 7
 * significant digits round-trip float32 within 1e-6 for |x| <= 1 and write
 * komi and scores (multiples of 0.5) exactly. Non-finite values are refused
 * before the tree is dumped.
 */
typedef struct wctx {
	int bad;            /* a value cannot be written */
	char why[128];
} wctx;

static json_t *jnum(wctx *w, double x, const char *what)
{
	if (!isfinite(x)) {
		if (!w->bad)
			snprintf(w->why, sizeof w->why, "%s is not finite", what);
		w->bad = 1;
		return json_integer(0);
	}
	if (x == rint(x) && fabs(x) < 1e15)
		return json_integer((json_int_t)x); /* also makes -0 "0" */
	return json_real(x);
}

static json_t *jfloats(wctx *w, const float *f, int n, const char *what)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, jnum(w, f[i], what));
	return a;
}

static json_t *jvertices(wctx *w, int n, const int16_t *v, int m, const char *what)
{
	json_t *a = json_array();
	char vs[8];
	for (int i = 0; i < m; i++) {
		if (v[i] < 0 || v[i] > GT_PASS(n)) {
			if (!w->bad)
				snprintf(w->why, sizeof w->why, "%s[%d] = %d is off the board", what, i, v[i]);
			w->bad = 1;
			continue;
		}
		json_array_append_new(a, json_string(gt_vertex_str(n, v[i], vs)));
	}
	return a;
}

/* set k of o to v (a new reference, stolen); strings must be valid UTF-8 */
static void put(wctx *w, json_t *o, const char *k, json_t *v)
{
	if (!v) { /* json_string refuses invalid UTF-8 */
		if (!w->bad)
			snprintf(w->why, sizeof w->why, "%s is not valid UTF-8", k);
		w->bad = 1;
		return;
	}
	json_object_set_new_nocheck(o, k, v);
}

/* the text of json_dump_callback, in memory */
static int obuf_put(const char *s, size_t n, void *data)
{
	gt_buf_put(data, s, n);
	return 0;
}

char *gt_record_format(const gt_record *r, size_t *len, gt_error *e)
{
	wctx w = {0};
	int n = r->board_size, npts = n * n;
	if (n < 2 || n > GT_MAX_N) {
		gt_error_set(e, GT_EINVAL, -1, -1, "board_size %d not in 2..%d", n, GT_MAX_N);
		return NULL;
	}
	int in_arena = arena_begin();
	json_t *o = json_object();
	put(&w, o, "version", json_integer(r->version));
	put(&w, o, "rules", json_string(r->rules));
	if (r->sgf_rules[0])
		put(&w, o, "sgf_rules", json_string(r->sgf_rules));
	put(&w, o, "komi", jnum(&w, r->komi, "komi"));
	put(&w, o, "board_size", json_integer(n));
	if (r->model)
		put(&w, o, "model", json_string(r->model));
	if (r->worker)
		put(&w, o, "worker", json_string(r->worker));
	if (r->game_id)
		put(&w, o, "game_id", json_string(r->game_id));
	if (r->seed) {
		char hex[17];
		snprintf(hex, sizeof hex, "%016" PRIx64, r->seed);
		put(&w, o, "seed", json_string(hex));
	}
	if (r->symmetry)
		put(&w, o, "symmetry", json_integer(r->symmetry & 7));
	if (r->nsetup[GT_BLACK] || r->nsetup[GT_WHITE]) {
		json_t *s = json_object();
		put(&w, s, "B", jvertices(&w, n, r->setup[GT_BLACK], r->nsetup[GT_BLACK], "setup.B"));
		put(&w, s, "W", jvertices(&w, n, r->setup[GT_WHITE], r->nsetup[GT_WHITE], "setup.W"));
		put(&w, o, "setup", s);
	}
	put(&w, o, "moves", jvertices(&w, n, r->moves, r->nmoves, "moves"));
	int first = r->colors && r->nmoves ? r->colors[0] : r->first_to_move;
	if (first != GT_WHITE)
		first = GT_BLACK;
	int alternate = 1;
	for (int i = 0; r->colors && i < r->nmoves; i++)
		if (r->colors[i] != ((i & 1) ? GT_OTHER(first) : first))
			alternate = 0;
	if (!alternate) {
		char *cs = gt_xmalloc((size_t)r->nmoves + 1);
		for (int i = 0; i < r->nmoves; i++)
			cs[i] = r->colors[i] == GT_WHITE ? 'W' : 'B';
		cs[r->nmoves] = 0;
		put(&w, o, "colors", json_string(cs));
		free(cs);
	} else if (first == GT_WHITE) {
		put(&w, o, "first_to_move", json_string("W"));
	}
	put(&w, o, "result", json_string(r->result));
	put(&w, o, "winner", json_string(gt_winner_str(r->winner)));
	if (!isnan(r->score))
		put(&w, o, "score", jnum(&w, r->score, "score"));
	if (!r->score_checkable)
		put(&w, o, "score_checkable", json_false());
	if (r->ownership)
		put(&w, o, "ownership", jfloats(&w, r->ownership, npts, "ownership"));
	if (r->npos) {
		json_t *ps = json_array();
		for (int i = 0; i < r->npos; i++) {
			const gt_position *p = &r->pos[i];
			json_t *j = json_object();
			put(&w, j, "move_number", json_integer(p->move_number));
			put(&w, j, "to_move", json_string(p->to_move == GT_WHITE ? "W" : "B"));
			if (r->boards)
				put(&w, j, "board", json_stringn(r->boards + (size_t)i * npts, (size_t)npts));
			if (p->policy)
				put(&w, j, "policy", jfloats(&w, p->policy, npts + 1, "policy"));
			if (!isnan(p->value))
				put(&w, j, "value", jnum(&w, p->value, "value"));
			if (!isnan(p->score))
				put(&w, j, "score", jnum(&w, p->score, "position score"));
			put(&w, j, "visits", json_integer(p->visits));
			put(&w, j, "full_search", json_boolean(p->full_search));
			if (p->weight != 1)
				put(&w, j, "weight", jnum(&w, p->weight, "weight"));
			if (p->has_root) {
				put(&w, j, "root_value", jnum(&w, p->root_value, "root value"));
				put(&w, j, "root_score", jnum(&w, p->root_score, "root score"));
			}
			json_array_append_new(ps, j);
		}
		put(&w, o, "positions", ps);
	}
	gt_buf b = {0};
	if (!w.bad) {
		b.p = gt_grow(b.p, &b.cap, 65536, 1, 0);
		json_dump_callback(o, obuf_put, &b, JSON_COMPACT | JSON_REAL_PRECISION(7));
		gt_buf_puts(&b, "\n");
	}
	if (in_arena)
		arena_end(); /* the tree goes with it */
	else
		json_decref(o);
	if (w.bad) {
		gt_error_set(e, GT_EINVAL, -1, -1, "%s", w.why);
		return NULL;
	}
	if (len)
		*len = b.n;
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
