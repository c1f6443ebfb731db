/* sgf.c: SGF FF[3]/FF[4] reader and FF[4] writer (see sgf.h for the rules). */
#include "sgf.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

/* ---- game building ---- */

int gt_sgf_game_init(gt_sgf_game *g, int n)
{
	memset(g, 0, sizeof *g);
	g->index = 1;
	g->offset = -1;
	g->end = -1;
	g->error.line = -1;
	g->error.offset = -1;
	g->size = n;
	g->first = GT_BLACK;
	g->winner = GT_WIN_UNKNOWN;
	if (n < 2 || n > GT_MAX_N)
		return GT_EUNSUPPORTED;
	return 0;
}

void gt_sgf_game_release(gt_sgf_game *g)
{
	for (int i = 0; i < g->nprops; i++)
		free(g->props[i].val);
	free(g->props);
	for (int i = 0; i < g->nmoves; i++)
		free(g->moves[i].comment);
	gt_free_all(g->moves, g->black, g->white);
	memset(g, 0, sizeof *g);
}

void gt_sgf_free(gt_sgf_game *games, int n)
{
	if (!games)
		return;
	for (int i = 0; i < n; i++)
		gt_sgf_game_release(&games[i]);
	free(games);
}

static void move_push(gt_sgf_game *g, int color, int pt, long offset, long line)
{
	GT_GROW(g->moves, g->nmoves + 1, g->cap_moves, 64);
	g->moves[g->nmoves++] = (gt_sgf_move){color, pt, offset, line, NULL};
}

int gt_sgf_add_move(gt_sgf_game *g, int color, int pt)
{
	if (color != GT_BLACK && color != GT_WHITE)
		return GT_EINVAL;
	if (pt < 0 || pt > GT_PASS(g->size))
		return GT_EOFFBOARD;
	move_push(g, color, pt, -1, -1);
	return 0;
}

int gt_sgf_set_comment(gt_sgf_game *g, int i, const char *text)
{
	if (i < 0 || i >= g->nmoves)
		return GT_EINVAL;
	free(g->moves[i].comment);
	g->moves[i].comment = text ? gt_xstrdup(text) : NULL;
	return 0;
}

/* Remove pt from a sorted list; returns the new count. */
static int list_remove(int16_t *a, int n, int pt)
{
	for (int i = 0; i < n; i++)
		if (a[i] == pt) {
			memmove(a + i, a + i + 1, (size_t)(n - i - 1) * sizeof *a);
			return n - 1;
		}
	return n;
}

/* Insert pt into a sorted list (room for it is there); returns the count. */
static int list_insert(int16_t *a, int n, int pt)
{
	int i = n;
	while (i > 0 && a[i - 1] > pt)
		i--;
	if (i > 0 && a[i - 1] == pt)
		return n;
	memmove(a + i + 1, a + i, (size_t)(n - i) * sizeof *a);
	a[i] = (int16_t)pt;
	return n + 1;
}

int gt_sgf_add_setup(gt_sgf_game *g, int color, int pt)
{
	if (color != GT_EMPTY && color != GT_BLACK && color != GT_WHITE)
		return GT_EINVAL;
	if (pt < 0 || pt >= g->size * g->size)
		return GT_EOFFBOARD;
	if (!g->black) {
		g->black = gt_xmalloc(GT_MAX_PTS * sizeof *g->black);
		g->white = gt_xmalloc(GT_MAX_PTS * sizeof *g->white);
		g->cap_black = g->cap_white = GT_MAX_PTS;
	}
	g->nblack = list_remove(g->black, g->nblack, pt);
	g->nwhite = list_remove(g->white, g->nwhite, pt);
	if (color == GT_BLACK)
		g->nblack = list_insert(g->black, g->nblack, pt);
	else if (color == GT_WHITE)
		g->nwhite = list_insert(g->white, g->nwhite, pt);
	return 0;
}

static gt_sgf_prop *prop_find(const gt_sgf_game *g, const char *id)
{
	for (int i = 0; i < g->nprops; i++)
		if (strcmp(g->props[i].id, id) == 0)
			return &g->props[i];
	return NULL;
}

static int id_ok(const char *id)
{
	size_t n = strlen(id);
	if (n == 0 || n >= sizeof ((gt_sgf_prop *)0)->id)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (id[i] < 'A' || id[i] > 'Z')
			return 0;
	return 1;
}

/* Append (or replace) a property taking ownership of val (malloc'd). */
static void prop_put(gt_sgf_game *g, const char *id, char *val, size_t len)
{
	gt_sgf_prop *p = prop_find(g, id);
	if (p) {
		free(p->val);
	} else {
		GT_GROW(g->props, g->nprops + 1, g->cap_props, 16);
		p = &g->props[g->nprops++];
		memset(p->id, 0, sizeof p->id);
		strcpy(p->id, id);
	}
	p->val = val;
	p->len = len;
}

int gt_sgf_prop_set(gt_sgf_game *g, const char *id, const char *val, size_t len)
{
	if (!id || !id_ok(id) || (!val && len))
		return GT_EINVAL;
	char *v = gt_xmalloc(len + 1);
	if (len)
		memcpy(v, val, len);
	v[len] = 0;
	prop_put(g, id, v, len);
	return 0;
}

const char *gt_sgf_prop_get(const gt_sgf_game *g, const char *id)
{
	gt_sgf_prop *p = prop_find(g, id);
	return p ? p->val : NULL;
}

/* ---- points ---- */

char *gt_sgf_point_str(int n, int pt, char *buf)
{
	if (n < 1 || pt < 0 || pt >= n * n) {
		buf[0] = 0;
		return buf;
	}
	buf[0] = (char)('a' + pt % n);
	buf[1] = (char)('a' + pt / n);
	buf[2] = 0;
	return buf;
}

int gt_sgf_point_parse(int n, const char *s, size_t len)
{
	if (len == 0)
		return GT_PASS(n);
	if (len != 2)
		return GT_EFORMAT;
	int v[2];
	for (int i = 0; i < 2; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 'a' && c <= 'z')
			v[i] = c - 'a';
		else if (c >= 'A' && c <= 'Z')
			v[i] = 26 + c - 'A'; /* FF[4] boards over 26 */
		else
			return GT_EFORMAT;
	}
	if (v[0] == 19 && v[1] == 19 && n <= 19)
		return GT_PASS(n);
	if (v[0] >= n || v[1] >= n)
		return GT_EOFFBOARD;
	return v[1] * n + v[0];
}

/* ---- reader ---- */

typedef struct rd {
	const char *buf;
	size_t len, pos;
	size_t line_pos;   /* line cache: line_no is the line at line_pos */
	long line_no;
	size_t end_rb;     /* 1 + position of the last ']' in buf, 0 if none */
} rd;

static long line_at(rd *r, size_t pos)
{
	if (pos > r->len)
		pos = r->len;
	for (size_t i = pos; i < r->line_pos; i++) /* backwards: within a game */
		if (r->buf[i] == '\n')
			r->line_no--;
	for (size_t i = r->line_pos; i < pos; i++)
		if (r->buf[i] == '\n')
			r->line_no++;
	r->line_pos = pos;
	return r->line_no;
}

static void skip_ws(rd *r)
{
	while (r->pos < r->len && isspace((unsigned char)r->buf[r->pos]))
		r->pos++;
}

/* A raw property value: buf[start..end) between '[' and ']'. */
typedef struct rawval {
	size_t start, end;
} rawval;

/* One property of a node as read: name, node offset, values. */
typedef struct rawprop {
	char id[16];
	size_t offset;     /* of the name */
	int nval;
	int first;         /* index of its first value in the node's value list */
} rawprop;

typedef struct node {
	size_t offset;     /* of ';' */
	int nprop, cap_prop;
	rawprop *prop;
	int nval, cap_val;
	rawval *val;
} node;

static void node_release(node *nd)
{
	free(nd->prop);
	free(nd->val);
}

/* Read one value at r->pos (which is '['); on success r->pos is after ']'. */
static int read_value(rd *r, rawval *v)
{
	size_t i = r->pos + 1;
	if (r->end_rb <= i) /* no ']' ahead: fail now, not after a scan */
		return GT_EFORMAT;
	while (i < r->len && r->buf[i] != ']') {
		if (r->buf[i] == '\\')
			i++;
		i++;
	}
	if (i >= r->len)
		return GT_EFORMAT;
	v->start = r->pos + 1;
	v->end = i;
	r->pos = i + 1;
	return 0;
}

/* Read the properties of a node; r->pos is just after ';'. Stops before the
 * next ';', '(' or ')'. Returns 0 or GT_EFORMAT with *bad the offset. */
static int read_node(rd *r, node *nd, size_t *bad)
{
	nd->nprop = 0;
	nd->nval = 0;
	for (;;) {
		skip_ws(r);
		if (r->pos >= r->len) {
			*bad = r->pos;
			return GT_EFORMAT;
		}
		char c = r->buf[r->pos];
		if (c == ';' || c == '(' || c == ')')
			return 0;
		if (!isalpha((unsigned char)c)) {
			*bad = r->pos;
			return GT_EFORMAT;
		}
		rawprop p;
		memset(&p, 0, sizeof p);
		p.offset = r->pos;
		int k = 0;
		while (r->pos < r->len && isalpha((unsigned char)r->buf[r->pos])) {
			char ch = r->buf[r->pos++];
			if (ch >= 'A' && ch <= 'Z' && k < (int)sizeof p.id - 1)
				p.id[k++] = ch;
		}
		p.first = nd->nval;
		for (;;) {
			skip_ws(r);
			if (r->pos >= r->len || r->buf[r->pos] != '[')
				break;
			rawval v;
			size_t at = r->pos;
			if (read_value(r, &v) < 0) {
				*bad = at;
				return GT_EFORMAT;
			}
			GT_GROW(nd->val, nd->nval + 1, nd->cap_val, 16);
			nd->val[nd->nval++] = v;
			p.nval++;
		}
		if (p.nval == 0) {
			*bad = p.offset;
			return GT_EFORMAT;
		}
		GT_GROW(nd->prop, nd->nprop + 1, nd->cap_prop, 8);
		nd->prop[nd->nprop++] = p;
	}
}

/* Unescape a raw value: "\" + newline (LF, CR, CRLF, LFCR) is removed, "\"
 * + any other byte is that byte. Returns a new NUL-terminated string. */
static char *unescape(const char *s, size_t n, size_t *outlen)
{
	char *o = gt_xmalloc(n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n) {
			i++;
			if (s[i] == '\n' || s[i] == '\r') {
				if (i + 1 < n && (s[i + 1] == '\n' || s[i + 1] == '\r') && s[i + 1] != s[i])
					i++;
				continue;
			}
		}
		o[k++] = s[i];
	}
	o[k] = 0;
	*outlen = k;
	return o;
}

/* Game-information properties of FF[4], kept from any main-line node. */
static int is_game_info(const char *id)
{
	static const char *const ids[] = {
		"AN", "BR", "BT", "CP", "DT", "EV", "GN", "GC", "ON", "OT", "PB", "PC",
		"PW", "RE", "RO", "RU", "SO", "TM", "US", "WR", "WT", "KM", "HA", NULL
	};
	for (int i = 0; ids[i]; i++)
		if (strcmp(id, ids[i]) == 0)
			return 1;
	return 0;
}

/* State of the game being read. */
typedef struct gstate {
	gt_sgf_game *g;
	rd *r;
	int dead;          /* a semantic error was recorded: read syntax only */
	int nnodes;        /* main-line nodes so far */
	int setup_seen;
	int pl_seen;         /* PL given before the first move */
	uint8_t setup[GT_MAX_PTS];
} gstate;

static void game_fail(gstate *s, int code, size_t offset, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void game_fail(gstate *s, int code, size_t offset, const char *fmt, ...)
{
	if (s->dead)
		return;
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	s->dead = 1;
	s->g->err = code;
	gt_error_set(&s->g->error, code, line_at(s->r, offset), (long)offset,
	             "game %d: %s", s->g->index, msg);
}

/* Trimmed copy of a raw value into buf (size bytes); 0 or -1 if too long. */
static int value_str(const rd *r, const rawval *v, char *buf, size_t size)
{
	size_t a = v->start, b = v->end;
	while (a < b && isspace((unsigned char)r->buf[a]))
		a++;
	while (b > a && isspace((unsigned char)r->buf[b - 1]))
		b--;
	if (b - a >= size)
		return -1;
	memcpy(buf, r->buf + a, b - a);
	buf[b - a] = 0;
	return 0;
}

static int parse_int(const char *s, long *out)
{
	char *end;
	if (!*s)
		return -1;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (*end || errno)
		return -1;
	*out = v;
	return 0;
}

static void do_size(gstate *s, const node *nd, const rawprop *p)
{
	char buf[32];
	const rawval *v = &nd->val[p->first];
	long c, rr;
	char *colon;
	if (value_str(s->r, v, buf, sizeof buf) < 0) {
		game_fail(s, GT_EFORMAT, v->start, "bad SZ value");
		return;
	}
	if ((colon = strchr(buf, ':'))) {
		*colon = 0;
		if (parse_int(buf, &c) < 0 || parse_int(colon + 1, &rr) < 0) {
			game_fail(s, GT_EFORMAT, v->start, "bad SZ value");
			return;
		}
		if (c != rr) {
			game_fail(s, GT_EUNSUPPORTED, v->start, "unsupported board size %ldx%ld", c, rr);
			return;
		}
	} else if (parse_int(buf, &c) < 0) {
		game_fail(s, GT_EFORMAT, v->start, "bad SZ value");
		return;
	}
	if (c < 2 || c > GT_MAX_N) {
		game_fail(s, GT_EUNSUPPORTED, v->start, "unsupported board size %ld", c);
		return;
	}
	s->g->size = (int)c;
}

static const char *color_name(int c)
{
	return c == GT_BLACK ? "B" : "W";
}

/* The bytes of a point value without surrounding whitespace (FF[3] files
 * break lines inside values: "W[oq\r\n]"). */
static const char *point_text(const rd *r, const rawval *v, size_t *len)
{
	size_t a = v->start, b = v->end;
	while (a < b && isspace((unsigned char)r->buf[a]))
		a++;
	while (b > a && isspace((unsigned char)r->buf[b - 1]))
		b--;
	*len = b - a;
	return r->buf + a;
}

static void do_setup(gstate *s, const node *nd, const rawprop *p, int color)
{
	gt_sgf_game *g = s->g;
	int n = g->size;
	if (g->nmoves > 0) {
		game_fail(s, GT_EUNSUPPORTED, p->offset, "setup stones (%s) after the first move", p->id);
		return;
	}
	for (int k = 0; k < p->nval; k++) {
		const rawval *v = &nd->val[p->first + k];
		size_t len;
		const char *t = point_text(s->r, v, &len);
		int a, b;
		if (len == 0)
			continue;
		if (len == 5 && t[2] == ':') {
			a = gt_sgf_point_parse(n, t, 2);
			b = gt_sgf_point_parse(n, t + 3, 2);
		} else {
			a = b = gt_sgf_point_parse(n, t, len);
		}
		if (a == GT_PASS(n) || b == GT_PASS(n))
			a = GT_EOFFBOARD;
		if (a < 0 || b < 0) {
			int e = a < 0 ? a : b;
			game_fail(s, e, v->start, "%s[%.*s]: %s", p->id, (int)(len > 8 ? 8 : len), t,
			          e == GT_EOFFBOARD ? "off the board" : "bad point");
			return;
		}
		int x0 = a % n, y0 = a / n, x1 = b % n, y1 = b / n;
		if (x0 > x1) {
			int t2 = x0; x0 = x1; x1 = t2;
		}
		if (y0 > y1) {
			int t2 = y0; y0 = y1; y1 = t2;
		}
		for (int y = y0; y <= y1; y++)
			for (int x = x0; x <= x1; x++)
				s->setup[y * n + x] = (uint8_t)color;
	}
	s->setup_seen = 1;
}

static int parse_color(const rd *r, const rawval *v)
{
	char buf[16];
	if (value_str(r, v, buf, sizeof buf) < 0)
		return GT_EINVAL;
	if (!strcasecmp(buf, "b") || !strcasecmp(buf, "black"))
		return GT_BLACK;
	if (!strcasecmp(buf, "w") || !strcasecmp(buf, "white"))
		return GT_WHITE;
	return GT_EINVAL;
}

/* Interpret one main-line node. */
static void do_node(gstate *s, const node *nd)
{
	gt_sgf_game *g = s->g;
	int root = s->nnodes++ == 0;
	int have_move = 0;
	if (s->dead)
		return;
	if (root)
		for (int i = 0; i < nd->nprop; i++)
			if (strcmp(nd->prop[i].id, "SZ") == 0) {
				do_size(s, nd, &nd->prop[i]);
				if (s->dead)
					return;
			}
	for (int i = 0; i < nd->nprop && !s->dead; i++) {
		const rawprop *p = &nd->prop[i];
		const char *id = p->id;
		if (!strcmp(id, "B") || !strcmp(id, "W")) {
			int color = id[0] == 'B' ? GT_BLACK : GT_WHITE;
			const rawval *v = &nd->val[p->first];
			size_t len;
			const char *t = point_text(s->r, v, &len);
			if (have_move) {
				game_fail(s, GT_EFORMAT, p->offset, "move %d: two moves in one node", g->nmoves);
				return;
			}
			if (p->nval != 1) {
				game_fail(s, GT_EFORMAT, p->offset, "move %d: several values", g->nmoves + 1);
				return;
			}
			int pt = gt_sgf_point_parse(g->size, t, len);
			if (pt < 0) {
				game_fail(s, pt, v->start, "move %d (%s %.*s): %s", g->nmoves + 1, id,
				          (int)(len > 8 ? 8 : len), t,
				          pt == GT_EOFFBOARD ? "off the board" : "bad point");
				return;
			}
			move_push(g, color, pt, (long)nd->offset, line_at(s->r, nd->offset));
			have_move = 1;
		} else if (!strcmp(id, "AB")) {
			do_setup(s, nd, p, GT_BLACK);
		} else if (!strcmp(id, "AW")) {
			do_setup(s, nd, p, GT_WHITE);
		} else if (!strcmp(id, "AE")) {
			do_setup(s, nd, p, GT_EMPTY);
		} else if (!strcmp(id, "PL")) {
			if (g->nmoves == 0) {
				int c = parse_color(s->r, &nd->val[p->first]);
				if (c < 0) {
					game_fail(s, GT_EFORMAT, p->offset, "bad PL value");
					return;
				}
				g->first = c;
				s->pl_seen = 1;
			}
		} else if (id[0] && (root || is_game_info(id)) && !prop_find(g, id)) {
			const rawval *v = &nd->val[p->first];
			size_t len;
			char *val = unescape(s->r->buf + v->start, v->end - v->start, &len);
			prop_put(g, id, val, len);
		}
	}
}

/* *s without the spaces around it: *s moves past the leading ones; returns
 * the length up to the trailing ones */
static size_t trim(const char **s)
{
	size_t n = strlen(*s);
	while (n && isspace((unsigned char)**s))
		(*s)++, n--;
	while (n && isspace((unsigned char)(*s)[n - 1]))
		n--;
	return n;
}

void gt_sgf_result_parse(gt_sgf_game *g, const char *re)
{
	char buf[64];
	size_t n = trim(&re);
	if (n >= sizeof buf)
		n = sizeof buf - 1;
	memcpy(buf, re, n);
	buf[n] = 0;
	g->winner = GT_WIN_UNKNOWN;
	g->method = GT_BY_UNKNOWN;
	g->has_margin = 0;
	g->margin = 0;
	if (!strcmp(buf, "0") || !strcasecmp(buf, "draw") || !strcasecmp(buf, "jigo") ||
	    !strcasecmp(buf, "d")) {
		g->winner = GT_WIN_DRAW;
		return;
	}
	if (!strcasecmp(buf, "void")) {
		g->winner = GT_WIN_NONE;
		return;
	}
	if (n < 2 || buf[1] != '+')
		return;
	if (buf[0] == 'B' || buf[0] == 'b')
		g->winner = GT_WIN_BLACK;
	else if (buf[0] == 'W' || buf[0] == 'w')
		g->winner = GT_WIN_WHITE;
	else
		return;
	const char *m = buf + 2;
	char c = (char)toupper((unsigned char)m[0]);
	if (isdigit((unsigned char)m[0]) || (m[0] == '.' && isdigit((unsigned char)m[1]))) {
		char *end;
		double v = strtod(m, &end);
		if (isfinite(v)) {
			g->method = GT_BY_SCORE;
			g->has_margin = 1;
			g->margin = v;
		}
	} else if (c == 'R' && (!m[1] || !isalpha((unsigned char)m[1]) || !strcasecmp(m, "resign"))) {
		g->method = GT_BY_RESIGN;
	} else if (c == 'T' && (!m[1] || !strcasecmp(m, "time"))) {
		g->method = GT_BY_TIME;
	} else if (c == 'F' && (!m[1] || !strcasecmp(m, "forfeit"))) {
		g->method = GT_BY_FORFEIT;
	}
}

/* Komi from KM (see sgf.h). */
static int komi_value(const char *km, const char *ap, double *out)
{
	char buf[64];
	size_t n = trim(&km);
	if (n == 0) {
		*out = 0;
		return 0;
	}
	if (n >= sizeof buf)
		return GT_EFORMAT;
	memcpy(buf, km, n);
	buf[n] = 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)buf[i]) && buf[i] != '.' &&
		    !(i == 0 && (buf[i] == '-' || buf[i] == '+')))
			return GT_EFORMAT;
	char *end;
	double k = strtod(buf, &end);
	if (*end || !isfinite(k))
		return GT_EFORMAT;
	int fox = ap && strncasecmp(ap, "foxwq", 5) == 0;
	if ((fox && fabs(k) >= 10) || (fabs(k) >= 100 && fmod(k, 25) == 0))
		k /= 50;
	double q = k * 4;
	if (q == floor(q) && fmod(fabs(q), 2) == 1)
		k = floor(k) + 0.5;
	else
		k = round(k * 2) / 2;
	if (fabs(k) > 1000)
		return GT_EUNSUPPORTED;
	*out = k + 0.0; /* no -0 */
	return 0;
}

/* After the game tree: derive the struct fields from what was read. */
static void finish_game(gstate *s, size_t offset)
{
	gt_sgf_game *g = s->g;
	int n = g->size;
	if (s->dead)
		return;
	if (s->setup_seen)
		for (int i = 0; i < n * n; i++)
			if (s->setup[i])
				gt_sgf_add_setup(g, s->setup[i], i);
	const char *km = gt_sgf_prop_get(g, "KM");
	if (km) {
		int e = komi_value(km, gt_sgf_prop_get(g, "AP"), &g->komi);
		if (e < 0) {
			game_fail(s, e, offset, e == GT_EFORMAT ? "bad KM value '%.20s'" :
			          "komi out of range '%.20s'", km);
			return;
		}
	}
	const char *ha = gt_sgf_prop_get(g, "HA");
	long h = -1;
	if (ha) {
		char buf[32];
		rd tmp = {ha, strlen(ha), 0, 0, 1, 0};
		rawval v = {0, tmp.len};
		if (value_str(&tmp, &v, buf, sizeof buf) < 0 || (buf[0] && parse_int(buf, &h) < 0)) {
			game_fail(s, GT_EFORMAT, offset, "bad HA value '%.20s'", ha);
			return;
		}
		if (!buf[0])
			h = -1;
	}
	if (h >= 2)
		g->handicap = g->nblack > 0 ? g->nblack : (h > n * n ? n * n : (int)h);
	const char *re = gt_sgf_prop_get(g, "RE");
	if (re)
		gt_sgf_result_parse(g, re);
	if (!s->pl_seen) {
		if (g->nmoves > 0)
			g->first = g->moves[0].color;
		else if (g->handicap >= 2)
			g->first = GT_WHITE;
	}
}

/* Does the game tree at pos ('(', whitespace, ';') start with a root node,
 * one with GM, FF or SZ? Looks at most ROOT_LOOK bytes ahead, so that
 * checking many candidates stays linear. */
#define ROOT_LOOK 4096
static int looks_like_root(const rd *r, size_t pos)
{
	rd t = *r;
	node nd;
	size_t bad;
	int found = 0;
	memset(&nd, 0, sizeof nd);
	if (t.len > pos + ROOT_LOOK)
		t.len = pos + ROOT_LOOK;
	t.pos = pos + 1;
	skip_ws(&t);
	t.pos++; /* ';' */
	read_node(&t, &nd, &bad);
	for (int i = 0; i < nd.nprop; i++)
		if (!strcmp(nd.prop[i].id, "GM") || !strcmp(nd.prop[i].id, "FF") ||
		    !strcmp(nd.prop[i].id, "SZ"))
			found = 1;
	node_release(&nd);
	return found;
}

/* Read one game tree at r->pos ('('), following the main line. Returns 0
 * with r->pos after its ')', or GT_EFORMAT with *bad and *why set and
 * *resume where the search for the next game goes on (never before *bad,
 * so that reading a collection stays linear). A variation that starts with
 * a root node (GM, FF or SZ) is taken for the next game: this one lacked
 * its ')'. */
static int parse_tree(rd *r, gstate *s, size_t *bad, size_t *resume, const char **why)
{
	int depth = 0, main_line = 1, rc = 0;
	node nd;
	memset(&nd, 0, sizeof nd);
	for (;;) {
		skip_ws(r);
		if (r->pos >= r->len) {
			*bad = r->pos;
			*why = "unexpected end of input (missing ')')";
			rc = GT_EFORMAT;
			break;
		}
		char c = r->buf[r->pos];
		if (c == '(') {
			size_t at = r->pos++;
			skip_ws(r);
			if (r->pos >= r->len || r->buf[r->pos] != ';') {
				*bad = at;
				*why = "game tree without a node";
				rc = GT_EFORMAT;
				break;
			}
			if (depth > 0 && looks_like_root(r, at)) {
				*bad = at;
				*why = "next game starts before this one ends (missing ')')";
				rc = GT_EFORMAT;
				break;
			}
			depth++;
		} else if (c == ')') {
			r->pos++;
			main_line = 0;
			if (--depth == 0)
				break;
		} else if (c == ';') {
			nd.offset = r->pos++;
			if (read_node(r, &nd, bad) < 0) {
				*why = *bad >= r->len ? "unexpected end of input (missing ')')" :
				       r->buf[*bad] == '[' ? "unterminated property value" :
				       isalpha((unsigned char)r->buf[*bad]) ? "property without a value" :
				       "unexpected character";
				rc = GT_EFORMAT;
				break;
			}
			if (main_line)
				do_node(s, &nd);
		} else {
			*bad = r->pos;
			*why = "unexpected character";
			rc = GT_EFORMAT;
			break;
		}
	}
	node_release(&nd);
	if (rc < 0)
		*resume = *bad >= r->len || r->buf[*bad] != '[' ? *bad : r->len;
	return rc;
}

/* Move r->pos to the next '(' followed by optional whitespace and ';'; when
 * strict, its first node must also be a root node. Returns 1 if one was
 * found. */
static int find_game(rd *r, int strict)
{
	for (size_t i = r->pos; i < r->len; i++) {
		if (r->buf[i] != '(')
			continue;
		size_t j = i + 1;
		while (j < r->len && isspace((unsigned char)r->buf[j]))
			j++;
		if (j >= r->len || r->buf[j] != ';')
			continue;
		if (strict && !looks_like_root(r, i))
			continue;
		r->pos = i;
		return 1;
	}
	r->pos = r->len;
	return 0;
}

struct gt_sgf_reader {
	rd r;
	int n, strict;
	gstate s;
};

gt_sgf_reader *gt_sgf_reader_new(const char *buf, size_t len)
{
	gt_sgf_reader *it = gt_xcalloc(1, sizeof *it);
	it->r = (rd){buf, len, 0, 0, 1, 0};
	const char *rb = len ? memrchr(buf, ']', len) : NULL;
	it->r.end_rb = rb ? (size_t)(rb - buf) + 1 : 0;
	return it;
}

void gt_sgf_reader_free(gt_sgf_reader *it)
{
	free(it);
}

int gt_sgf_reader_next(gt_sgf_reader *it, gt_sgf_game *g)
{
	rd *r = &it->r;
	gstate *s = &it->s;
	if (!find_game(r, it->strict))
		return 0;
	gt_sgf_game_init(g, 19);
	g->index = ++it->n;
	g->offset = (long)r->pos;
	memset(s, 0, sizeof *s);
	s->g = g;
	s->r = r;
	size_t bad = r->pos, resume = r->pos;
	const char *why = "";
	if (parse_tree(r, s, &bad, &resume, &why) < 0) {
		game_fail(s, GT_EFORMAT, bad, "%s", why);
		r->pos = resume > (size_t)g->offset ? resume : (size_t)g->offset + 1;
		it->strict = 1;
	} else {
		g->end = (long)r->pos;
		finish_game(s, (size_t)g->offset);
	}
	return 1;
}

int gt_sgf_parse(const char *buf, size_t len, gt_sgf_game **games, int *ngames, gt_error *err)
{
	gt_sgf_reader *it = gt_sgf_reader_new(buf, len);
	gt_sgf_game *gs = NULL;
	int n = 0, cap = 0;
	*games = NULL;
	*ngames = 0;
	for (;;) {
		GT_GROW(gs, n + 1, cap, 4);
		if (!gt_sgf_reader_next(it, &gs[n]))
			break;
		n++;
	}
	gt_sgf_reader_free(it);
	if (n == 0) {
		free(gs);
		return gt_error_set(err, GT_EFORMAT, -1, -1, "no SGF game found");
	}
	*games = gs;
	*ngames = n;
	return 0;
}

int gt_sgf_read_file(const char *path, gt_sgf_game **games, int *ngames, gt_error *err)
{
	int is_stdin = strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	size_t len = 0, cap = 1 << 16;
	char *buf;
	*games = NULL;
	*ngames = 0;
	if (!f)
		return gt_error_set(err, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
	buf = gt_xmalloc(cap);
	for (;;) {
		if (len == cap)
			buf = gt_xrealloc(buf, cap *= 2);
		size_t k = fread(buf + len, 1, cap - len, f);
		len += k;
		if (k == 0)
			break;
	}
	int bad = ferror(f), e = errno;
	if (!is_stdin)
		fclose(f);
	if (bad) {
		free(buf);
		errno = e;
		return gt_error_set(err, GT_EIO, -1, -1, "%s: %s", path, strerror(e));
	}
	int rc = gt_sgf_parse(buf, len, games, ngames, err);
	free(buf);
	if (rc < 0 && err) {
		char t[sizeof err->text];
		snprintf(t, sizeof t, "%s", err->text);
		gt_error_set(err, rc, err->line, err->offset, "%s: %s", path, t);
	}
	return rc;
}

/* ---- result ---- */

char *gt_sgf_result_str(const gt_sgf_game *g, char *buf)
{
	const char *w = g->winner == GT_WIN_BLACK ? "B" : "W";
	switch (g->winner) {
	case GT_WIN_DRAW:
		strcpy(buf, "0");
		return buf;
	case GT_WIN_NONE:
		strcpy(buf, "Void");
		return buf;
	case GT_WIN_BLACK:
	case GT_WIN_WHITE:
		break;
	default:
		strcpy(buf, "?");
		return buf;
	}
	if (g->method == GT_BY_SCORE && g->has_margin && fabs(g->margin) < 1e6)
		snprintf(buf, 32, "%s+%.10g", w, g->margin);
	else
		snprintf(buf, 32, "%s+%s", w, g->method == GT_BY_RESIGN ? "R" :
		         g->method == GT_BY_TIME ? "T" : g->method == GT_BY_FORFEIT ? "F" : "");
	return buf;
}

/* ---- writer ---- */

/* id[escaped text] */
static void sb_prop(gt_buf *b, const char *id, const char *v, size_t n)
{
	gt_buf_puts(b, id);
	gt_buf_put(b, "[", 1);
	for (size_t i = 0; i < n; i++) {
		if (v[i] == ']' || v[i] == '\\')
			gt_buf_put(b, "\\", 1);
		gt_buf_put(b, v + i, 1);
	}
	gt_buf_put(b, "]", 1);
}

static int utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned c = s[i];
		int k;
		unsigned min;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			k = 1, min = 0x80, c &= 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			k = 2, min = 0x800, c &= 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			k = 3, min = 0x10000, c &= 0x07;
		} else {
			return 0;
		}
		if (i + (size_t)k >= n)
			return 0;
		for (int j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return 0;
			c = (c << 6) | (s[i + j] & 0x3f);
		}
		if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			return 0;
		i += (size_t)k + 1;
	}
	return 1;
}

/* Properties the writer derives itself (never copied from props). */
static int is_derived(const char *id)
{
	static const char *const ids[] = {
		"GM", "FF", "CA", "AP", "SZ", "KM", "HA", "RE", "PL", "AB", "AW", "AE",
		"B", "W", "RU", "PB", "PW", NULL
	};
	for (int i = 0; ids[i]; i++)
		if (strcmp(id, ids[i]) == 0)
			return 1;
	return 0;
}

char *gt_sgf_write_str(const gt_sgf_game *g, size_t *len)
{
	gt_buf b = {0};
	char tmp[64], pt[3];
	int n = g->size, utf8 = 1;
	for (int i = 0; i < g->nprops; i++)
		if ((is_game_info(g->props[i].id) || !strcmp(g->props[i].id, "GC")) &&
		    !utf8_valid((const unsigned char *)g->props[i].val, g->props[i].len))
			utf8 = 0;
	gt_buf_puts(&b, "(;GM[1]FF[4]");
	if (utf8) {
		gt_buf_puts(&b, "CA[UTF-8]");
	} else {
		const char *ca = gt_sgf_prop_get(g, "CA");
		if (ca)
			sb_prop(&b, "CA", ca, strlen(ca));
	}
	gt_buf_puts(&b, "AP[gt:" GT_VERSION "]");
	snprintf(tmp, sizeof tmp, "SZ[%d]KM[%.10g]", n, g->komi);
	gt_buf_puts(&b, tmp);
	const gt_sgf_prop *p;
	if ((p = prop_find(g, "RU")))
		sb_prop(&b, "RU", p->val, p->len);
	if (g->handicap > 0) {
		snprintf(tmp, sizeof tmp, "HA[%d]", g->handicap);
		gt_buf_puts(&b, tmp);
	}
	gt_buf_puts(&b, "\n");
	if ((p = prop_find(g, "PB")))
		sb_prop(&b, "PB", p->val, p->len);
	if ((p = prop_find(g, "PW")))
		sb_prop(&b, "PW", p->val, p->len);
	for (int i = 0; i < g->nprops; i++) {
		p = &g->props[i];
		if (!is_derived(p->id) && (is_game_info(p->id) || !strcmp(p->id, "GC")))
			sb_prop(&b, p->id, p->val, p->len);
	}
	if (g->winner != GT_WIN_UNKNOWN) {
		gt_sgf_result_str(g, tmp);
		sb_prop(&b, "RE", tmp, strlen(tmp));
	}
	for (int c = 0; c < 2; c++) {
		int k = c ? g->nwhite : g->nblack;
		const int16_t *a = c ? g->white : g->black;
		if (!k)
			continue;
		gt_buf_puts(&b, c ? "\nAW" : "\nAB");
		for (int i = 0; i < k; i++) {
			if (i && i % 16 == 0)
				gt_buf_puts(&b, "\n");
			snprintf(tmp, sizeof tmp, "[%s]", gt_sgf_point_str(n, a[i], pt));
			gt_buf_puts(&b, tmp);
		}
	}
	if (g->nblack || g->nwhite || g->first == GT_WHITE)
		gt_buf_puts(&b, g->first == GT_WHITE ? "PL[W]" : "PL[B]");
	gt_buf_puts(&b, "\n");
	for (int i = 0; i < g->nmoves; i++) {
		const gt_sgf_move *m = &g->moves[i];
		snprintf(tmp, sizeof tmp, ";%s[%s]", color_name(m->color),
		         gt_sgf_point_str(n, m->pt, pt));
		gt_buf_puts(&b, tmp);
		if (m->comment)
			sb_prop(&b, "C", m->comment, strlen(m->comment));
		if (i % 12 == 11 || i == g->nmoves - 1 || m->comment)
			gt_buf_puts(&b, "\n");
	}
	gt_buf_puts(&b, ")\n");
	if (len)
		*len = b.n;
	return b.p;
}

int gt_sgf_write(FILE *f, const gt_sgf_game *g)
{
	size_t n;
	char *s = gt_sgf_write_str(g, &n);
	int ok = fwrite(s, 1, n, f) == n;
	free(s);
	return ok ? 0 : GT_EIO;
}

/* ---- replay ---- */

int gt_sgf_replay(const gt_sgf_game *g, const gt_rules *rules, gt_board *b,
                  int *nplayed, gt_error *err)
{
	char pt[3];
	int rc;
	if (nplayed)
		*nplayed = 0;
	if (g->err) {
		if (err)
			*err = g->error;
		return g->err;
	}
	rc = gt_board_init(b, g->size, rules, g->komi);
	if (rc < 0)
		return gt_error_set(err, rc, -1, g->offset, "game %d: %s", g->index, gt_strerror(rc));
	for (int c = GT_BLACK; c <= GT_WHITE; c++) {
		int k = c == GT_BLACK ? g->nblack : g->nwhite;
		const int16_t *a = c == GT_BLACK ? g->black : g->white;
		for (int i = 0; i < k; i++)
			if ((rc = gt_board_setup(b, c, a[i])) < 0)
				return gt_error_set(err, rc, -1, g->offset, "game %d: setup stone %s[%s]: %s",
				                    g->index, c == GT_BLACK ? "AB" : "AW",
				                    gt_sgf_point_str(g->size, a[i], pt),
				                    rc == GT_EINVAL ? "no liberty" : gt_strerror(rc));
	}
	gt_board_set_to_move(b, g->first);
	for (int i = 0; i < g->nmoves; i++) {
		const gt_sgf_move *m = &g->moves[i];
		if (b->to_move != m->color) /* two moves in a row by one colour */
			gt_board_set_to_move(b, m->color);
		if ((rc = gt_board_play(b, m->color, m->pt)) < 0)
			return gt_error_set(err, rc, m->line, m->offset, "game %d, move %d (%s %s): %s",
			                    g->index, i + 1, color_name(m->color),
			                    m->pt == GT_PASS(g->size) ? "pass" :
			                    gt_sgf_point_str(g->size, m->pt, pt), gt_strerror(rc));
		if (nplayed)
			*nplayed = i + 1;
	}
	return 0;
}
