/* gtp.c: GTP version 2 engine core (gtp.h). */
#include "gtp.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gt.h"

#define MAXARGS 16
#define MAXEXTRA 32

struct gt_gtp {
	gt_board b;
	int n;
	const gt_rules *rules;
	double komi;
	char *name, *version;
	gt_gtp_genmove_fn genmove;
	void *user;
	uint64_t rng;
	/* time_settings and time_left (seconds) */
	int has_settings;
	double main_time, byo_time;
	int byo_stones;
	int has_left[3];
	double time_left[3];
	int stones_left[3];
	/* extra commands */
	int nextra;
	struct {
		char *name;
		gt_gtp_command_fn fn;
		void *user;
	} extra[MAXEXTRA];
	/* the response being built */
	char *res;
	size_t len, cap;
};

/* ---- response text ---- */

static void put(gt_gtp *g, const char *s, size_t n)
{
	if (g->len + n + 1 > g->cap) {
		g->cap = 2 * (g->len + n + 1) + 64;
		g->res = gt_xrealloc(g->res, g->cap);
	}
	memcpy(g->res + g->len, s, n);
	g->len += n;
	g->res[g->len] = 0;
}

static void puts_(gt_gtp *g, const char *s)
{
	put(g, s, strlen(s));
}

static void putf(gt_gtp *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(gt_gtp *g, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (k > (int)sizeof buf - 1)
		k = sizeof buf - 1;
	put(g, buf, k > 0 ? (size_t)k : 0);
}

/* ---- engine ---- */

gt_gtp *gt_gtp_new(int n, const gt_rules *rules, double komi,
                   const char *name, const char *version)
{
	gt_gtp *g = gt_xcalloc(1, sizeof *g);
	if (gt_board_init(&g->b, n, rules, komi) != 0) {
		free(g);
		return NULL;
	}
	g->n = n;
	g->rules = rules;
	g->komi = komi;
	g->name = gt_xstrdup(name ? name : "gt");
	g->version = gt_xstrdup(version ? version : GT_VERSION);
	g->rng = 1;
	return g;
}

void gt_gtp_free(gt_gtp *g)
{
	if (!g)
		return;
	for (int i = 0; i < g->nextra; i++)
		free(g->extra[i].name);
	free(g->name);
	free(g->version);
	free(g->res);
	free(g);
}

void gt_gtp_set_genmove(gt_gtp *g, gt_gtp_genmove_fn fn, void *user)
{
	g->genmove = fn;
	g->user = user;
}

void gt_gtp_seed(gt_gtp *g, uint64_t seed)
{
	g->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
}

const gt_board *gt_gtp_board(const gt_gtp *g)
{
	return &g->b;
}

gt_board *gt_gtp_board_mut(gt_gtp *g)
{
	return &g->b;
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545F4914F6CDD1Dull;
}

/* 1 if every on-board neighbour of pt is a stone of color. */
static int own_eye(const gt_board *b, int color, int pt)
{
	int n = b->n, x = pt % n, y = pt / n;
	if (x > 0 && b->color[pt - 1] != color)
		return 0;
	if (x < n - 1 && b->color[pt + 1] != color)
		return 0;
	if (y > 0 && b->color[pt - n] != color)
		return 0;
	if (y < n - 1 && b->color[pt + n] != color)
		return 0;
	return 1;
}

int gt_gtp_random_genmove(void *user, const gt_board *b, int color,
                          double budget_s, int *move)
{
	int16_t moves[GT_MAX_PTS];
	uint64_t *rng = user;
	int k = gt_board_legal_moves(b, color, moves), m = 0;
	for (int i = 0; i < k; i++)
		if (!own_eye(b, color, moves[i]))
			moves[m++] = moves[i];
	if (!*rng)
		*rng = 1;
	*move = m ? moves[xorshift(rng) % (uint64_t)m] : GT_PASS(b->n);
	return 0;
}

double gt_gtp_budget(const gt_gtp *g, int color)
{
	if (color != GT_BLACK && color != GT_WHITE)
		return -1;
	if (!g->has_settings || (g->byo_time > 0 && g->byo_stones == 0))
		return -1;
	double per_byo = g->byo_stones > 0 ? g->byo_time / g->byo_stones : 0;
	double main = g->main_time;
	if (g->has_left[color]) {
		if (g->stones_left[color] > 0)
			return g->time_left[color] / g->stones_left[color];
		main = g->time_left[color];
	}
	double own_moves = (g->b.nmoves + (color == GT_BLACK ? 1 : 0)) / 2;
	double left = 0.35 * g->n * g->n - own_moves;
	if (left < 10)
		left = 10;
	double t = main / left + per_byo;
	return t > 0 ? t : 0;
}

/* ---- parsing helpers ---- */

static int parse_int(const char *s, long lo, long hi, long *v)
{
	char *end;
	errno = 0;
	long x = strtol(s, &end, 10);
	if (errno || end == s || *end || x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

static int parse_num(const char *s, double *v)
{
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(x))
		return -1;
	*v = x;
	return 0;
}

/* ---- commands: each fills the result and returns 0, or fills the error
 * message and returns -1 ---- */

typedef int (*cmd_fn)(gt_gtp *g, int argc, char **argv, int *quit);

static int fail(gt_gtp *g, const char *msg)
{
	puts_(g, msg);
	return -1;
}

static int c_protocol_version(gt_gtp *g, int argc, char **argv, int *quit)
{
	puts_(g, "2");
	return 0;
}

static int c_name(gt_gtp *g, int argc, char **argv, int *quit)
{
	puts_(g, g->name);
	return 0;
}

static int c_version(gt_gtp *g, int argc, char **argv, int *quit)
{
	puts_(g, g->version);
	return 0;
}

static int c_known_command(gt_gtp *g, int argc, char **argv, int *quit);
static int c_list_commands(gt_gtp *g, int argc, char **argv, int *quit);

static int c_quit(gt_gtp *g, int argc, char **argv, int *quit)
{
	*quit = 1;
	return 0;
}

static int reset(gt_gtp *g, int n)
{
	gt_board b;
	if (gt_board_init(&b, n, g->rules, g->komi) != 0)
		return -1;
	gt_board_copy(&g->b, &b);
	g->n = n;
	return 0;
}

static int c_boardsize(gt_gtp *g, int argc, char **argv, int *quit)
{
	long n;
	if (argc != 1 || parse_int(argv[0], -1000000, 1000000, &n))
		return fail(g, "syntax error");
	if (n < 2 || n > GT_MAX_N || reset(g, (int)n))
		return fail(g, "unacceptable size");
	return 0;
}

static int c_clear_board(gt_gtp *g, int argc, char **argv, int *quit)
{
	reset(g, g->n);
	return 0;
}

static int c_komi(gt_gtp *g, int argc, char **argv, int *quit)
{
	double k;
	if (argc != 1 || parse_num(argv[0], &k) || fabs(k) > 1000)
		return fail(g, "syntax error");
	g->komi = k;
	g->b.komi = k;
	return 0;
}

static int c_play(gt_gtp *g, int argc, char **argv, int *quit)
{
	if (argc != 2)
		return fail(g, "syntax error");
	int color = gt_color_parse(argv[0]);
	int pt = gt_vertex_parse(g->n, argv[1]);
	if (color < 0 || pt == GT_EFORMAT)
		return fail(g, "syntax error");
	if (pt < 0 || gt_board_play(&g->b, color, pt) != 0)
		return fail(g, "illegal move");
	return 0;
}

static int c_genmove(gt_gtp *g, int argc, char **argv, int *quit)
{
	int color, move = GT_PASS(g->n), rc;
	char v[8];
	if (argc != 1 || (color = gt_color_parse(argv[0])) < 0)
		return fail(g, "syntax error");
	if (gt_board_over(&g->b)) {
		puts_(g, "pass"); /* the game is over: nothing to search, nothing played */
		return 0;
	}
	double budget = gt_gtp_budget(g, color);
	if (g->genmove)
		rc = g->genmove(g->user, &g->b, color, budget, &move);
	else
		rc = gt_gtp_random_genmove(&g->rng, &g->b, color, budget, &move);
	if (rc < 0) {
		putf(g, "genmove failed: %s", gt_strerror(rc));
		return -1;
	}
	if (move == GT_GTP_RESIGN) {
		puts_(g, "resign");
		return 0;
	}
	if (move < 0 || move > GT_PASS(g->n) || (rc = gt_board_play(&g->b, color, move)) != 0) {
		putf(g, "genmove failed: engine chose an illegal move (%s)",
		     gt_strerror(move < 0 || move > GT_PASS(g->n) ? GT_EOFFBOARD : rc));
		return -1;
	}
	puts_(g, gt_vertex_str(g->n, move, v));
	return 0;
}

static int c_undo(gt_gtp *g, int argc, char **argv, int *quit)
{
	if (gt_board_undo(&g->b) != 0)
		return fail(g, "cannot undo");
	return 0;
}

/* Append text without its empty lines (one would end the response) and
 * without a final newline. */
static void put_lines(gt_gtp *g, const char *text)
{
	size_t start = g->len;
	for (const char *p = text; *p; ) {
		const char *e = strchr(p, '\n');
		size_t k = e ? (size_t)(e - p) : strlen(p);
		if (k > 0) {
			put(g, p, k);
			put(g, "\n", 1);
		}
		p += k + (e != NULL);
	}
	if (g->len > start)
		g->res[--g->len] = 0;
}

static int c_showboard(gt_gtp *g, int argc, char **argv, int *quit)
{
	char buf[8192];
	gt_board_print(&g->b, buf, sizeof buf);
	puts_(g, "\n");
	put_lines(g, buf);
	return 0;
}

static int c_final_score(gt_gtp *g, int argc, char **argv, int *quit)
{
	double s = gt_board_area(&g->b, NULL);
	if (s > 0)
		putf(g, "B+%g", s);
	else if (s < 0)
		putf(g, "W+%g", -s);
	else
		puts_(g, "0");
	return 0;
}

static int c_time_settings(gt_gtp *g, int argc, char **argv, int *quit)
{
	double m, t;
	long s;
	if (argc != 3 || parse_num(argv[0], &m) || parse_num(argv[1], &t) ||
	    parse_int(argv[2], 0, 1000000, &s) || m < 0 || t < 0)
		return fail(g, "syntax error");
	g->has_settings = 1;
	g->main_time = m;
	g->byo_time = t;
	g->byo_stones = (int)s;
	g->has_left[GT_BLACK] = g->has_left[GT_WHITE] = 0;
	return 0;
}

static int c_time_left(gt_gtp *g, int argc, char **argv, int *quit)
{
	int color;
	double t;
	long s;
	if (argc != 3 || (color = gt_color_parse(argv[0])) < 0 || parse_num(argv[1], &t) ||
	    parse_int(argv[2], 0, 1000000, &s) || t < 0)
		return fail(g, "syntax error");
	g->has_left[color] = 1;
	g->time_left[color] = t;
	g->stones_left[color] = (int)s;
	return 0;
}

static int c_rules(gt_gtp *g, int argc, char **argv, int *quit)
{
	const gt_rules *r;
	if (argc != 1)
		return fail(g, "syntax error");
	if (!(r = gt_rules_find(argv[0])))
		return fail(g, "unknown rules");
	g->rules = r;
	reset(g, g->n);
	return 0;
}

static const struct {
	const char *name;
	cmd_fn fn;
} commands[] = {
	{ "protocol_version", c_protocol_version },
	{ "name", c_name },
	{ "version", c_version },
	{ "known_command", c_known_command },
	{ "list_commands", c_list_commands },
	{ "quit", c_quit },
	{ "boardsize", c_boardsize },
	{ "clear_board", c_clear_board },
	{ "komi", c_komi },
	{ "play", c_play },
	{ "genmove", c_genmove },
	{ "undo", c_undo },
	{ "showboard", c_showboard },
	{ "final_score", c_final_score },
	{ "time_settings", c_time_settings },
	{ "time_left", c_time_left },
	{ "gt-rules", c_rules },
};
#define NCOMMANDS (int)(sizeof commands / sizeof commands[0])

static int find(const char *name)
{
	for (int i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return i;
	return -1;
}

static int find_extra(const gt_gtp *g, const char *name)
{
	for (int i = 0; i < g->nextra; i++)
		if (strcmp(g->extra[i].name, name) == 0)
			return i;
	return -1;
}

int gt_gtp_register(gt_gtp *g, const char *name, gt_gtp_command_fn fn, void *user)
{
	if (!name || !*name || !fn || strpbrk(name, " \t\r\n#") ||
	    strspn(name, "0123456789") == strlen(name))
		return GT_EINVAL;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 32 || *p == 127)
			return GT_EINVAL;
	int i = find_extra(g, name);
	if (i < 0) {
		if (g->nextra == MAXEXTRA)
			return GT_EINVAL;
		i = g->nextra++;
		g->extra[i].name = gt_xstrdup(name);
	}
	g->extra[i].fn = fn;
	g->extra[i].user = user;
	return 0;
}

static int c_known_command(gt_gtp *g, int argc, char **argv, int *quit)
{
	if (argc != 1)
		return fail(g, "syntax error");
	puts_(g, find(argv[0]) >= 0 || find_extra(g, argv[0]) >= 0 ? "true" : "false");
	return 0;
}

static int c_list_commands(gt_gtp *g, int argc, char **argv, int *quit)
{
	int first = 1;
	for (int i = 0; i < NCOMMANDS; i++) {
		puts_(g, first ? "" : "\n");
		puts_(g, commands[i].name);
		first = 0;
	}
	for (int i = 0; i < g->nextra; i++) {
		if (find(g->extra[i].name) >= 0)
			continue; /* replaces a built-in: listed once */
		puts_(g, "\n");
		puts_(g, g->extra[i].name);
	}
	return 0;
}

static int run_extra(gt_gtp *g, int i, int argc, char **argv)
{
	char *out = gt_xmalloc(65536);
	out[0] = 0;
	int rc = g->extra[i].fn(g->extra[i].user, g, argc, argv, out, 65536) == 0 ? 0 : -1;
	out[65535] = 0;
	put_lines(g, out);
	free(out);
	return rc;
}

const char *gt_gtp_exec(gt_gtp *g, const char *line, int *quit)
{
	char *buf = gt_xmalloc(strlen(line) + 1), *argv[MAXARGS + 3], *save = NULL;
	size_t k = 0;
	int argc = 0, q = 0;
	/* preprocessing (spec 3.1): drop control characters but HT and LF,
	 * cut at '#', HT becomes a space; the line ends at LF */
	for (const unsigned char *p = (const unsigned char *)line; *p && *p != '\n' && *p != '#'; p++) {
		if (*p == '\t')
			buf[k++] = ' ';
		else if (*p >= 32 && *p != 127)
			buf[k++] = (char)*p;
	}
	buf[k] = 0;
	for (char *t = strtok_r(buf, " ", &save); t && argc < MAXARGS + 3; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	if (argc == 0) {
		free(buf);
		return NULL;
	}
	const char *id = "";
	int a = 0;
	if (strspn(argv[0], "0123456789") == strlen(argv[0])) {
		id = argv[0];
		a = 1;
	}
	g->len = 0;
	put(g, "", 0);
	int rc;
	if (a >= argc) {
		rc = fail(g, "syntax error");
	} else {
		int c = find(argv[a]), x = find_extra(g, argv[a]);
		if (c < 0 && x < 0)
			rc = fail(g, "unknown command");
		else if (argc == MAXARGS + 3)
			rc = fail(g, "syntax error");
		else if (x >= 0)
			rc = run_extra(g, x, argc - a - 1, argv + a + 1);
		else
			rc = commands[c].fn(g, argc - a - 1, argv + a + 1, &q);
	}
	/* "=id result" or "?id message", then an empty line */
	char *body = gt_xstrdup(g->res);
	g->len = 0;
	put(g, rc == 0 ? "=" : "?", 1);
	puts_(g, id);
	puts_(g, " ");
	puts_(g, body);
	puts_(g, "\n\n");
	free(body);
	free(buf);
	if (quit)
		*quit = q;
	return g->res;
}

int gt_gtp_run(gt_gtp *g, FILE *in, FILE *out)
{
	char *line = NULL;
	size_t cap = 0;
	int quit = 0;
	while (!quit && getline(&line, &cap, in) >= 0) {
		const char *r = gt_gtp_exec(g, line, &quit);
		if (r && (fputs(r, out) == EOF || fflush(out) == EOF)) {
			free(line);
			return GT_EIO;
		}
	}
	free(line);
	return ferror(out) ? GT_EIO : 0;
}
