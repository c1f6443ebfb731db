/* tmpl.c: the template engine of tmpl.h. */
#include "tmpl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define MAX_DEPTH 32

/* put_esc: s[0..n) HTML-escaped (tmpl.h) */
static void put_esc(gt_buf *b, const char *s, size_t n)
{
	size_t i0 = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		const char *r = NULL;
		switch (ch) {
		case '&': r = "&amp;"; break;
		case '<': r = "&lt;"; break;
		case '>': r = "&gt;"; break;
		case '"': r = "&quot;"; break;
		case '\'': r = "&#39;"; break;
		default:
			if ((ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') || ch == 0x7f)
				r = "?";
		}
		if (r) {
			gt_buf_put(b, s + i0, i - i0);
			gt_buf_puts(b, r);
			i0 = i + 1;
		}
	}
	gt_buf_put(b, s + i0, n - i0);
}

typedef struct frame {
	json_t *v;   /* borrowed */
	char *ptr;   /* its JSON pointer (owned) */
} frame;

typedef struct ctx {
	const char *t;
	size_t len;
	frame st[MAX_DEPTH];
	int depth;
	gt_buf out;
	gt_error *e;
} ctx;

static long line_at(const ctx *c, size_t pos)
{
	long l = 1;
	for (size_t i = 0; i < pos && i < c->len; i++)
		l += c->t[i] == '\n';
	return l;
}

static int fail(ctx *c, size_t pos, const char *fmt, const char *arg)
{
	char msg[200];
	snprintf(msg, sizeof msg, fmt, arg);
	return gt_error_set(c->e, GT_EFORMAT, line_at(c, pos), (long)pos, "template line %ld: %s",
	                    line_at(c, pos), msg);
}

/* A tag {{...}} at t[at]: its kind ('!', '#', '^', '/' or 0 for a value),
 * its name [name, name + nlen), its format (or NULL) and the position
 * after its "}}". */
typedef struct tag {
	size_t at, end;
	char kind;
	const char *name, *fmt;
	size_t nlen, flen;
} tag;

static int name_ok(const char *s, size_t n)
{
	if (n == 1 && s[0] == '.')
		return 1;
	if (n == 0 || s[0] == '.' || s[n - 1] == '.')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		      ch == '_' || ch == '-' || (ch == '.' && s[i + 1] != '.')))
			return 0;
	}
	return 1;
}

/* next_tag: the first tag at or after from and before to; 0 found, 1 none,
 * or an error. */
static int next_tag(ctx *c, size_t from, size_t to, tag *g)
{
	const char *t = c->t;
	size_t i = from;
	for (; i + 1 < to; i++)
		if (t[i] == '{' && t[i + 1] == '{')
			break;
	if (i + 1 >= to)
		return 1;
	size_t a = i + 2, b = a;
	while (b + 1 < to && !(t[b] == '}' && t[b + 1] == '}'))
		b++;
	if (b + 1 >= to)
		return fail(c, i, "%s", "a tag without its closing }}");
	g->at = i;
	g->end = b + 2;
	g->kind = strchr("!#^?/", t[a]) ? t[a] : 0;
	if (g->kind == '!')
		return 0;
	if (g->kind)
		a++;
	while (a < b && t[a] == ' ')
		a++;
	while (b > a && t[b - 1] == ' ')
		b--;
	const char *bar = memchr(t + a, '|', b - a);
	g->name = t + a;
	g->nlen = bar ? (size_t)(bar - (t + a)) : b - a;
	g->fmt = bar ? bar + 1 : NULL;
	g->flen = bar ? (size_t)(t + b - (bar + 1)) : 0;
	if (!name_ok(g->name, g->nlen) || (g->fmt && g->kind))
		return fail(c, i, "%s", "a tag whose name is not keys of [A-Za-z0-9_-] joined by '.'");
	return 0;
}

static int same_name(const tag *a, const tag *b)
{
	return a->nlen == b->nlen && !memcmp(a->name, b->name, a->nlen);
}

/* find_close: the tag that closes section s, searching from s->end */
static int find_close(ctx *c, const tag *s, size_t to, tag *close)
{
	tag open[MAX_DEPTH];
	int n = 0, rc;
	size_t i = s->end;
	while (!(rc = next_tag(c, i, to, close))) {
		i = close->end;
		if (close->kind == '#' || close->kind == '^' || close->kind == '?') {
			if (n == MAX_DEPTH)
				return fail(c, close->at, "%s", "sections nested too deep");
			open[n++] = *close;
		} else if (close->kind == '/') {
			if (n == 0) {
				if (same_name(close, s))
					return 0;
				return fail(c, close->at, "%s", "a section closed by another name");
			}
			if (!same_name(close, &open[--n]))
				return fail(c, close->at, "%s", "a section closed by another name");
		}
	}
	return rc < 0 ? rc : fail(c, s->at, "%s", "a section that is never closed");
}

/* ptr_add: new pointer p + "/" + key (key escaped as RFC 6901 says) */
static char *ptr_add(const char *p, const char *key, size_t klen)
{
	gt_buf b = {0};
	gt_buf_puts(&b, p);
	gt_buf_put(&b, "/", 1);
	for (size_t i = 0; i < klen; i++) {
		if (key[i] == '~')
			gt_buf_puts(&b, "~0");
		else if (key[i] == '/')
			gt_buf_puts(&b, "~1");
		else
			gt_buf_put(&b, key + i, 1);
	}
	return b.p;
}

/* lookup: the value of a name (NULL when missing) and its pointer (new
 * string) in *ptr */
static json_t *lookup(ctx *c, const char *name, size_t n, char **ptr)
{
	frame *top = &c->st[c->depth - 1];
	if (n == 1 && name[0] == '.') {
		*ptr = gt_xstrdup(top->ptr);
		return top->v;
	}
	size_t k = strcspn(name, ".|}");
	if (k > n)
		k = n;
	char key[256];
	snprintf(key, sizeof key, "%.*s", (int)(k < 255 ? k : 255), name);
	int f = c->depth - 1;
	while (f > 0 && !(json_is_object(c->st[f].v) && json_object_get(c->st[f].v, key)))
		f--;
	json_t *v = json_is_object(c->st[f].v) ? json_object_get(c->st[f].v, key) : NULL;
	*ptr = ptr_add(c->st[f].ptr, name, k);
	while (k < n) {
		name += k + 1;
		n -= k + 1;
		k = strcspn(name, ".|}");
		if (k > n)
			k = n;
		snprintf(key, sizeof key, "%.*s", (int)(k < 255 ? k : 255), name);
		v = json_is_object(v) ? json_object_get(v, key) : NULL;
		char *p = ptr_add(*ptr, name, k);
		free(*ptr);
		*ptr = p;
	}
	return v;
}

static int truthy(json_t *v)
{
	if (!v || json_is_null(v) || json_is_false(v))
		return 0;
	if (json_is_array(v))
		return json_array_size(v) > 0;
	if (json_is_string(v))
		return json_string_length(v) > 0;
	if (json_is_number(v))
		return json_number_value(v) != 0;
	return 1;
}

/* group: digits of a decimal integer text with ',' every three */
static void group(const char *d, char *s, size_t n)
{
	size_t k = 0, len = strlen(d), start = d[0] == '-' || d[0] == '+';
	for (size_t i = 0; i < len && k + 2 < n; i++) {
		if (i > start && (len - i) % 3 == 0)
			s[k++] = ',';
		s[k++] = d[i];
	}
	s[k] = 0;
}

/* format: v shown by fmt into s[n]; 0, or -1 for a value fmt cannot show */
static int format(json_t *v, const char *fmt, char *s, size_t n)
{
	char d[64];
	if (!v || json_is_null(v) || (json_is_string(v) && !json_string_length(v))) {
		snprintf(s, n, "\xe2\x80\x93");
		return 0;
	}
	int num = json_is_number(v);
	double x = num ? json_number_value(v) : NAN;
	int when = !strcmp(fmt, "time") || !strcmp(fmt, "date");
	if (!strcmp(fmt, "text") || (when && json_is_string(v))) {
		if (json_is_string(v)) {
			const char *t = json_string_value(v);
			if (when && strlen(t) == 20 && t[10] == 'T' && t[19] == 'Z')
				snprintf(s, n, fmt[0] == 't' ? "%.10s %.5s" : "%.10s", t, t + 11);
			else
				snprintf(s, n, "%s", t);
		} else if (json_is_integer(v)) {
			snprintf(s, n, "%lld", (long long)json_integer_value(v));
		} else if (num) {
			snprintf(s, n, "%g", x);
		} else if (json_is_boolean(v)) {
			snprintf(s, n, "%s", json_is_true(v) ? "true" : "false");
		} else {
			return -1;
		}
		return 0;
	}
	if (!strcmp(fmt, "elo") && json_is_string(v)) {
		const char *t = json_string_value(v);
		if (strcmp(t, "+inf") && strcmp(t, "-inf"))
			return -1;
		snprintf(s, n, "%s", t);
		return 0;
	}
	if (!num || !isfinite(x))
		return -1;
	if (!strcmp(fmt, "int")) {
		if (json_is_integer(v))
			snprintf(d, sizeof d, "%lld", (long long)json_integer_value(v));
		else
			snprintf(d, sizeof d, "%.0f", x);
		group(d, s, n);
	} else if (!strcmp(fmt, "elo")) {
		snprintf(s, n, "%+.0f", x);
	} else if (!strcmp(fmt, "f1")) {
		snprintf(s, n, "%.1f", x);
	} else if (!strcmp(fmt, "f2")) {
		snprintf(s, n, "%.2f", x);
	} else if (!strcmp(fmt, "pct")) {
		snprintf(s, n, "%.1f%%", 100 * x);
	} else if (!strcmp(fmt, "bytes")) {
		static const char *unit[] = { "KiB", "MiB", "GiB", "TiB" };
		if (fabs(x) < 1024) {
			snprintf(s, n, "%.0f B", x);
		} else {
			int u = 0;
			x /= 1024;
			while (fabs(x) >= 1024 && u < 3) {
				x /= 1024;
				u++;
			}
			snprintf(s, n, "%.1f %s", x, unit[u]);
		}
	} else {
		return -1;
	}
	return 0;
}

static const char *const FMTS[] = { "int", "elo", "f1", "f2", "pct", "bytes", "time", "date", "text" };

static int value(ctx *c, const tag *g)
{
	char *ptr;
	json_t *v = lookup(c, g->name, g->nlen, &ptr);
	int rc = 0;
	if (!g->fmt) {
		char s[64];
		if (json_is_string(v))
			put_esc(&c->out, json_string_value(v), strlen(json_string_value(v)));
		else if (json_is_integer(v))
			snprintf(s, sizeof s, "%lld", (long long)json_integer_value(v)), gt_buf_puts(&c->out, s);
		else if (json_is_real(v))
			snprintf(s, sizeof s, "%g", json_real_value(v)), gt_buf_puts(&c->out, s);
		else if (json_is_boolean(v))
			gt_buf_puts(&c->out, json_is_true(v) ? "true" : "false");
		free(ptr);
		return 0;
	}
	char fmt[16];
	size_t k = 0;
	for (; k < sizeof FMTS / sizeof *FMTS; k++)
		if (strlen(FMTS[k]) == g->flen && !memcmp(FMTS[k], g->fmt, g->flen))
			break;
	if (k == sizeof FMTS / sizeof *FMTS) {
		free(ptr);
		return fail(c, g->at, "%s", "an unknown format after '|'");
	}
	snprintf(fmt, sizeof fmt, "%s", FMTS[k]);
	const char *text = NULL;
	char small[128];
	if (!strcmp(fmt, "text") && json_is_string(v) && json_string_length(v)) {
		text = json_string_value(v);
	} else if (format(v, fmt, small, sizeof small) == 0) {
		text = small;
	} else {
		char what[300];
		snprintf(what, sizeof what, "%s: not a value the format %s shows", ptr, fmt);
		rc = fail(c, g->at, "%s", what);
	}
	if (text) {
		gt_buf_puts(&c->out, "<span class=\"f-");
		gt_buf_puts(&c->out, fmt);
		gt_buf_puts(&c->out, "\" data-j=\"");
		put_esc(&c->out, ptr, strlen(ptr));
		gt_buf_puts(&c->out, "\">");
		put_esc(&c->out, text, strlen(text));
		gt_buf_puts(&c->out, "</span>");
	}
	free(ptr);
	return rc;
}

static int render(ctx *c, size_t from, size_t to);

/* push: render [from, to) with v as the context */
static int push(ctx *c, json_t *v, char *ptr, size_t at, size_t from, size_t to)
{
	if (c->depth == MAX_DEPTH) {
		free(ptr);
		return fail(c, at, "%s", "sections nested too deep");
	}
	c->st[c->depth].v = v;
	c->st[c->depth].ptr = ptr;
	c->depth++;
	int rc = render(c, from, to);
	c->depth--;
	free(ptr);
	return rc;
}

static int section(ctx *c, const tag *g, const tag *close)
{
	char *ptr;
	json_t *v = lookup(c, g->name, g->nlen, &ptr);
	int rc = 0;
	if (g->kind == '^' || g->kind == '?') {
		if (truthy(v) == (g->kind == '?'))
			rc = render(c, g->end, close->at);
	} else if (json_is_array(v)) {
		for (size_t i = 0; !rc && i < json_array_size(v); i++) {
			char idx[32];
			int il = snprintf(idx, sizeof idx, "%zu", i);
			rc = push(c, json_array_get(v, i), ptr_add(ptr, idx, (size_t)il), g->at, g->end,
			          close->at);
		}
	} else if (truthy(v)) {
		rc = push(c, v, gt_xstrdup(ptr), g->at, g->end, close->at);
	}
	free(ptr);
	return rc;
}

static int render(ctx *c, size_t from, size_t to)
{
	size_t i = from;
	tag g;
	int rc;
	while (!(rc = next_tag(c, i, to, &g))) {
		gt_buf_put(&c->out, c->t + i, g.at - i);
		i = g.end;
		if (g.kind == '!')
			continue;
		if (g.kind == '/')
			return fail(c, g.at, "%s", "a section closed that was not opened");
		if (g.kind == '#' || g.kind == '^' || g.kind == '?') {
			tag close;
			if ((rc = find_close(c, &g, to, &close)) || (rc = section(c, &g, &close)))
				return rc;
			i = close.end;
			continue;
		}
		if ((rc = value(c, &g)))
			return rc;
	}
	if (rc < 0)
		return rc;
	gt_buf_put(&c->out, c->t + i, to - i);
	return 0;
}

int gt_tmpl_render(const char *tmpl, size_t len, json_t *data, char **out, size_t *outlen,
                   gt_error *e)
{
	ctx c = { .t = tmpl, .len = len, .e = e };
	c.st[0].v = data;
	c.st[0].ptr = gt_xstrdup("");
	c.depth = 1;
	gt_buf_put(&c.out, "", 0);
	int rc = render(&c, 0, len);
	free(c.st[0].ptr);
	if (rc) {
		free(c.out.p);
		*out = NULL;
		return rc;
	}
	*out = c.out.p;
	if (outlen)
		*outlen = c.out.n;
	return 0;
}
