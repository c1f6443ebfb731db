/* gtp.c: GTP version 2 engine core (gtp.h). */
#include "gtp.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "gt.h"
#include "lines.h"
#include "score.h"
#include "sgf.h"
#include "sgfrec.h"
#include "util.h"

#define MAXARGS 400   /* set_free_handicap takes up to n*n - 1 vertices */
#define MAXEXTRA 32
#define MAXANALYZE 16

struct gt_gtp_io {
	gt_gtp *g;
	gt_lines *rd;   /* NULL under gt_gtp_exec */
	FILE *out;      /* NULL: into the response buffer */
	const char *id;
	int begun, werr;
	char err[256];
};

typedef struct move {
	int16_t pt;
	uint8_t color;
} move;

struct gt_gtp {
	gt_board b;
	gt_board *base;  /* the start of the game: setup stones, first player */
	move *hist;      /* the moves played since base */
	int nhist, caphist;
	int n;
	int max_n;       /* largest board size boardsize and loadsgf accept */
	size_t max_file; /* largest file loadsgf reads, in bytes */
	const gt_rules *rules;
	double komi;
	char *name, *version;
	gt_gtp_genmove_fn genmove;
	void *user;
	gt_gtp_status_fn status;
	void *status_user;
	uint64_t rng;
	/* the last judgement of dead stones and what it was for */
	int st_valid;
	uint64_t st_hash;
	int st_to_move, st_n;
	double st_komi;
	const gt_rules *st_rules;
	uint8_t st[GT_MAX_PTS];
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
		gt_gtp_stream_fn sfn;
		void *user;
	} extra[MAXEXTRA];
	int nanalyze;
	char *analyze[MAXANALYZE];
	/* the response being built */
	char *res;
	size_t len, cap;
};

/* ---- response text ---- */

static void put(gt_gtp *g, const char *s, size_t n)
{
	g->res = gt_grow(g->res, &g->cap, g->len + n + 1, 1, 256);
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
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (k > (int)sizeof buf - 1)
		k = sizeof buf - 1;
	put(g, buf, k > 0 ? (size_t)k : 0);
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

/* ---- the game ---- */

static void hist_push(gt_gtp *g, int color, int pt)
{
	GT_GROW(g->hist, g->nhist + 1, g->caphist, 256);
	g->hist[g->nhist++] = (move){ (int16_t)pt, (uint8_t)color };
}

/* the board of the game's start (once, before the first move) */
static void keep_base(gt_gtp *g)
{
	if (g->nhist == 0)
		gt_board_copy(g->base, &g->b);
}

/* b = the game after its first k moves; returns 0 or the error of the
 * first move refused */
static int replay(gt_gtp *g, gt_board *b, int k)
{
	gt_board_copy(b, g->base);
	for (int i = 0; i < k; i++) {
		int err = gt_score_play_on(b, g->hist[i].color, g->hist[i].pt);
		if (err)
			return err;
	}
	return 0;
}

static int reset(gt_gtp *g, int n)
{
	gt_board b;
	if (gt_board_init(&b, n, g->rules, g->komi) != 0)
		return -1;
	gt_board_copy(&g->b, &b);
	gt_board_copy(g->base, &b);
	g->nhist = 0;
	g->n = n;
	return 0;
}

gt_gtp *gt_gtp_new(int n, const gt_rules *rules, double komi,
                   const char *name, const char *version)
{
	gt_gtp *g = gt_xcalloc(1, sizeof *g);
	if (gt_board_init(&g->b, n, rules, komi) != 0) {
		free(g);
		return NULL;
	}
	g->base = gt_xmalloc(sizeof *g->base);
	gt_board_copy(g->base, &g->b);
	g->n = n;
	g->max_n = GT_MAX_N;
	g->max_file = GT_GTP_MAX_FILE;
	g->rules = rules;
	g->komi = komi;
	g->name = gt_xstrdup(name ? name : "gt");
	g->version = gt_xstrdup(version ? version : GT_VERSION);
	g->rng = 1;
	static const char *const std[] = {
		"plist/Dead stones/final_status_list dead",
		"plist/Seki stones/final_status_list seki",
		"string/Final score/final_score",
	};
	for (int i = 0; i < 3; i++)
		gt_gtp_add_analyze(g, std[i]);
	return g;
}

void gt_gtp_free(gt_gtp *g)
{
	if (!g)
		return;
	for (int i = 0; i < g->nextra; i++)
		free(g->extra[i].name);
	for (int i = 0; i < g->nanalyze; i++)
		free(g->analyze[i]);
	gt_free_all(g->base, g->hist, g->name, g->version, g->res, g);
}

void gt_gtp_set_genmove(gt_gtp *g, gt_gtp_genmove_fn fn, void *user)
{
	g->genmove = fn;
	g->user = user;
}

void gt_gtp_set_status(gt_gtp *g, gt_gtp_status_fn fn, void *user)
{
	g->status = fn;
	g->status_user = user;
	g->st_valid = 0;
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

int gt_gtp_add_analyze(gt_gtp *g, const char *line)
{
	if (!line || !*line || strchr(line, '\n') || g->nanalyze == MAXANALYZE)
		return GT_EINVAL;
	g->analyze[g->nanalyze++] = gt_xstrdup(line);
	return 0;
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

int gt_gtp_fixed_handicap(int n, int k, int *pts)
{
	int odd = n % 2 == 1;
	int max = n < 7 ? 0 : n == 7 || !odd ? 4 : 9;
	if (k < 2 || k > max)
		return GT_EINVAL;
	int e = n <= 12 ? 2 : 3, lo = e, hi = n - 1 - e, mid = n / 2;
	/* (x, y) with y from the top, in the spec's order */
	int xy[9][2] = {
		{ lo, hi }, { hi, lo }, { lo, lo }, { hi, hi }, /* D4 Q16 D16 Q4 */
		{ lo, mid }, { hi, mid }, { mid, lo }, { mid, hi }, /* D10 Q10 K16 K4 */
		{ mid, mid },
	};
	/* which of the nine for each k (the centre for odd k from 5) */
	static const int pick[10][9] = {
		{ 0 }, { 0 }, { 0, 1 }, { 0, 1, 2 }, { 0, 1, 2, 3 }, { 0, 1, 2, 3, 8 },
		{ 0, 1, 2, 3, 4, 5 }, { 0, 1, 2, 3, 4, 5, 8 }, { 0, 1, 2, 3, 4, 5, 6, 7 },
		{ 0, 1, 2, 3, 4, 5, 6, 7, 8 },
	};
	for (int i = 0; i < k; i++) {
		const int *p = xy[pick[k][i]];
		pts[i] = p[1] * n + p[0];
	}
	return k;
}

/* place_free_handicap's choice: the fixed placement as far as it goes,
 * then each further stone on the empty point (off the first line from 5x5)
 * farthest from the stones placed (squared distance; ties: lowest index) */
static int free_handicap(int n, int k, int *pts)
{
	int max = n < 7 ? 0 : n == 7 || n % 2 == 0 ? 4 : 9;
	int m = gt_gtp_fixed_handicap(n, k < max ? k : max, pts);
	if (m < 0)
		m = 0;
	uint8_t used[GT_MAX_PTS] = {0};
	for (int i = 0; i < m; i++)
		used[pts[i]] = 1;
	int edge = n >= 5 ? 1 : 0;
	while (m < k) {
		int best = -1, bd = -1;
		for (int p = 0; p < n * n; p++) {
			int x = p % n, y = p / n;
			if (used[p] || x < edge || y < edge || x >= n - edge || y >= n - edge)
				continue;
			int d = m ? 1 << 30 : -((2 * x - n + 1) * (2 * x - n + 1) + (2 * y - n + 1) * (2 * y - n + 1));
			for (int i = 0; i < m; i++) {
				int dx = x - pts[i] % n, dy = y - pts[i] / n;
				if (dx * dx + dy * dy < d)
					d = dx * dx + dy * dy;
			}
			if (d > bd) {
				bd = d;
				best = p;
			}
		}
		if (best < 0)
			break;
		used[best] = 1;
		pts[m++] = best;
	}
	return m;
}

/* ---- dead stones ---- */

static int judge(gt_gtp *g)
{
	const gt_board *b = &g->b;
	if (g->st_valid && g->st_hash == b->hash && g->st_to_move == b->to_move &&
	    g->st_n == b->n && g->st_komi == b->komi && g->st_rules == b->rules)
		return 0;
	int err;
	if (g->status) {
		err = g->status(g->status_user, b, g->st);
	} else {
		float own[GT_MAX_PTS];
		err = gt_score_playouts(b, gt_score_default_playouts(b->n), b->hash ^ 0x5ca1ab1e, own);
		if (!err)
			gt_score_status(b, own, NULL, g->st);
	}
	if (err)
		return err;
	for (int p = 0; p < b->npts; p++)
		if (b->color[p] == GT_EMPTY)
			g->st[p] = GT_STATUS_NONE;
		else if (g->st[p] == GT_STATUS_NONE)
			g->st[p] = GT_STATUS_ALIVE;
	if (b->rules->scoring == GT_SCORE_TERRITORY) {
		/* the living groups in seki by the counting's rule */
		uint8_t dead[GT_MAX_PTS], seki[GT_MAX_PTS];
		for (int p = 0; p < b->npts; p++)
			dead[p] = g->st[p] == GT_STATUS_DEAD;
		gt_board_territory(b, dead, NULL, seki);
		for (int p = 0; p < b->npts; p++)
			if (seki[p] && g->st[p] == GT_STATUS_ALIVE)
				g->st[p] = GT_STATUS_SEKI;
	}
	g->st_valid = 1;
	g->st_hash = b->hash;
	g->st_to_move = b->to_move;
	g->st_n = b->n;
	g->st_komi = b->komi;
	g->st_rules = b->rules;
	return 0;
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

static int c_boardsize(gt_gtp *g, int argc, char **argv, int *quit)
{
	long n;
	if (argc != 1 || parse_int(argv[0], -1000000, 1000000, &n))
		return fail(g, "syntax error");
	if (n < 2 || n > g->max_n || reset(g, (int)n))
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
	g->base->komi = k;
	return 0;
}

static int c_get_komi(gt_gtp *g, int argc, char **argv, int *quit)
{
	putf(g, "%g", g->komi);
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
	if (pt < 0 || gt_gtp_play(g, color, pt) != 0)
		return fail(g, "illegal move");
	return 0;
}

int gt_gtp_play(gt_gtp *g, int color, int move)
{
	keep_base(g);
	int err = gt_score_play_on(&g->b, color, move);
	if (!err)
		hist_push(g, color, move);
	return err;
}

/* the move of the genmove callback (or the default) for color, not yet
 * played: 0 with *move set, or -1 with the error response */
static int choose(gt_gtp *g, int color, int *move)
{
	int rc;
	*move = GT_PASS(g->n);
	double budget = gt_gtp_budget(g, color);
	const gt_board *pos = &g->b;
	gt_board *fresh = NULL;
	if (gt_board_over(pos)) { /* the game goes on: search a new start */
		fresh = gt_xmalloc(sizeof *fresh);
		gt_score_board_from(fresh, pos);
		pos = fresh;
	}
	if (g->genmove)
		rc = g->genmove(g->user, pos, color, budget, move);
	else
		rc = gt_gtp_random_genmove(&g->rng, pos, color, budget, move);
	free(fresh);
	if (rc < 0) {
		putf(g, "genmove failed: %s", gt_strerror(rc));
		return -1;
	}
	return 0;
}

/* play the chosen move and answer its vertex (or resign) */
static int play_chosen(gt_gtp *g, int color, int move)
{
	char v[8];
	int rc = 0;
	if (move == GT_GTP_RESIGN) {
		puts_(g, "resign");
		return 0;
	}
	if (move < 0 || move > GT_PASS(g->n) || (rc = gt_gtp_play(g, color, move)) != 0) {
		putf(g, "genmove failed: engine chose an illegal move (%s)",
		     gt_strerror(move < 0 || move > GT_PASS(g->n) ? GT_EOFFBOARD : rc));
		return -1;
	}
	puts_(g, gt_vertex_str(g->n, move, v));
	return 0;
}

/* kgs-genmove_cleanup's choice in place of a pass while stones of the
 * opponent judged dead are left: a legal move on a liberty of the dead group
 * with the fewest liberties (lowest point first); else move as it was */
static int cleanup_move(gt_gtp *g, int color, int move)
{
	gt_board *fresh = NULL;
	if (move == GT_PASS(g->n) && judge(g) == 0) {
		const gt_board *b = &g->b;
		if (gt_board_over(b)) { /* the game goes on: legal moves of a new start */
			fresh = gt_xmalloc(sizeof *fresh);
			gt_score_board_from(fresh, b);
			b = fresh;
		}
		int best = -1, bl = 1 << 30;
		for (int p = 0; p < b->npts; p++)
			if (b->color[p] == GT_OTHER(color) && g->st[p] == GT_STATUS_DEAD &&
			    gt_board_liberties(b, p) < bl) {
				bl = gt_board_liberties(b, p);
				best = p;
			}
		for (int q = best; best >= 0 && move == GT_PASS(g->n);) {
			int n = b->n, x = q % n, y = q / n;
			int nb[4] = { x > 0 ? q - 1 : -1, x < n - 1 ? q + 1 : -1,
			              y > 0 ? q - n : -1, y < n - 1 ? q + n : -1 };
			for (int i = 0; i < 4; i++)
				if (nb[i] >= 0 && b->color[nb[i]] == GT_EMPTY &&
				    gt_board_legal(b, color, nb[i]) == 0) {
					move = nb[i];
					break;
				}
			q = b->next[q];
			if (q == best)
				break;
		}
	}
	free(fresh);
	return move;
}

/* genmove COLOR, and with cleanup kgs-genmove_cleanup (cleanup_move) */
static int genmove(gt_gtp *g, int argc, char **argv, int cleanup)
{
	int color, move;
	if (argc != 1 || (color = gt_color_parse(argv[0])) < 0)
		return fail(g, "syntax error");
	if (choose(g, color, &move))
		return -1;
	if (cleanup)
		move = cleanup_move(g, color, move);
	return play_chosen(g, color, move);
}

static int c_genmove(gt_gtp *g, int argc, char **argv, int *quit)
{
	return genmove(g, argc, argv, 0);
}

static int c_genmove_cleanup(gt_gtp *g, int argc, char **argv, int *quit)
{
	return genmove(g, argc, argv, 1);
}

static int c_undo(gt_gtp *g, int argc, char **argv, int *quit)
{
	if (g->nhist == 0)
		return fail(g, "cannot undo");
	g->nhist--;
	replay(g, &g->b, g->nhist);
	return 0;
}

static int c_showboard(gt_gtp *g, int argc, char **argv, int *quit)
{
	char buf[8192];
	gt_board_print(&g->b, buf, sizeof buf);
	puts_(g, "\n");
	put_lines(g, buf);
	return 0;
}

static int empty_game(const gt_gtp *g)
{
	for (int p = 0; p < g->b.npts; p++)
		if (g->b.color[p] != GT_EMPTY)
			return 0;
	return g->nhist == 0;
}

/* place the k handicap stones pts as setup, White to move, and answer them */
static void place_handicap(gt_gtp *g, const int *pts, int k)
{
	char v[8];
	for (int i = 0; i < k; i++) {
		gt_board_setup(&g->b, GT_BLACK, pts[i]);
		putf(g, "%s%s", i ? " " : "", gt_vertex_str(g->n, pts[i], v));
	}
	gt_board_set_to_move(&g->b, GT_WHITE);
	gt_board_copy(g->base, &g->b);
}

static int c_fixed_handicap(gt_gtp *g, int argc, char **argv, int *quit)
{
	long k;
	int pts[9];
	if (argc != 1 || parse_int(argv[0], 0, 1000000, &k))
		return fail(g, "syntax error");
	if (gt_gtp_fixed_handicap(g->n, (int)k, pts) < 0)
		return fail(g, "invalid number of stones");
	if (!empty_game(g))
		return fail(g, "board not empty");
	place_handicap(g, pts, (int)k);
	return 0;
}

static int c_place_free_handicap(gt_gtp *g, int argc, char **argv, int *quit)
{
	long k;
	int pts[GT_MAX_PTS];
	if (argc != 1 || parse_int(argv[0], 0, 1000000, &k))
		return fail(g, "syntax error");
	if (k < 2 || k > g->b.npts - 1)
		return fail(g, "invalid number of stones");
	if (!empty_game(g))
		return fail(g, "board not empty");
	place_handicap(g, pts, free_handicap(g->n, (int)k, pts));
	return 0;
}

static int c_set_free_handicap(gt_gtp *g, int argc, char **argv, int *quit)
{
	int pts[GT_MAX_PTS];
	uint8_t seen[GT_MAX_PTS] = {0};
	if (argc < 1)
		return fail(g, "syntax error");
	if (argc > g->b.npts - 1)
		return fail(g, "bad vertex list");
	for (int i = 0; i < argc; i++) {
		int pt = gt_vertex_parse(g->n, argv[i]);
		if (pt == GT_EFORMAT)
			return fail(g, "syntax error");
		if (pt < 0 || pt == GT_PASS(g->n) || seen[pt])
			return fail(g, "bad vertex list");
		seen[pt] = 1;
		pts[i] = pt;
	}
	if (!empty_game(g))
		return fail(g, "board not empty");
	place_handicap(g, pts, argc);
	g->len = 0; /* set_free_handicap answers nothing */
	put(g, "", 0);
	return 0;
}

static int c_final_score(gt_gtp *g, int argc, char **argv, int *quit)
{
	int err = judge(g);
	if (err) {
		putf(g, "cannot score: %s", gt_strerror(err));
		return -1;
	}
	double s = gt_score_final(&g->b, g->st, NULL);
	if (s > 0)
		putf(g, "B+%g", s);
	else if (s < 0)
		putf(g, "W+%g", -s);
	else
		puts_(g, "0");
	return 0;
}

static int c_final_status_list(gt_gtp *g, int argc, char **argv, int *quit)
{
	static const char *const names[] = { "", "alive", "dead", "seki" };
	int want = 0;
	for (int i = 1; argc == 1 && i < 4; i++)
		if (strcmp(argv[0], names[i]) == 0)
			want = i;
	if (!want)
		return fail(g, "syntax error");
	int err = judge(g);
	if (err) {
		putf(g, "cannot judge: %s", gt_strerror(err));
		return -1;
	}
	/* one group a line */
	const gt_board *b = &g->b;
	uint8_t done[GT_MAX_PTS] = {0};
	int lines = 0;
	char v[8];
	for (int p = 0; p < b->npts; p++) {
		if (b->color[p] == GT_EMPTY || done[p] || g->st[p] != want)
			continue;
		if (lines++)
			puts_(g, "\n");
		for (int q = b->root[p], first = 1;; first = 0) {
			done[q] = 1;
			putf(g, "%s%s", first ? "" : " ", gt_vertex_str(b->n, q, v));
			q = b->next[q];
			if (q == b->root[p])
				break;
		}
	}
	return 0;
}

static void set_time(gt_gtp *g, double m, double t, int s)
{
	g->has_settings = 1;
	g->main_time = m;
	g->byo_time = t;
	g->byo_stones = s;
	g->has_left[GT_BLACK] = g->has_left[GT_WHITE] = 0;
}

static int c_time_settings(gt_gtp *g, int argc, char **argv, int *quit)
{
	double m, t;
	long s;
	if (argc != 3 || parse_num(argv[0], &m) || parse_num(argv[1], &t) ||
	    parse_int(argv[2], 0, 1000000, &s) || m < 0 || t < 0)
		return fail(g, "syntax error");
	set_time(g, m, t, (int)s);
	return 0;
}

/* kgs-time_settings none | absolute M | byoyomi M T P | canadian M T S:
 * byo-yomi periods count as one period of T for one stone at a time */
static int c_kgs_time_settings(gt_gtp *g, int argc, char **argv, int *quit)
{
	double m = 0, t = 0;
	long s = 0;
	int bad = argc < 1;
	if (bad)
		;
	else if (!strcmp(argv[0], "none") && argc == 1)
		g->has_settings = 0;
	else if (!strcmp(argv[0], "absolute") && argc == 2 && !parse_num(argv[1], &m) && m >= 0)
		set_time(g, m, 0, 0);
	else if (!strcmp(argv[0], "byoyomi") && argc == 4 && !parse_num(argv[1], &m) &&
	         !parse_num(argv[2], &t) && !parse_int(argv[3], 1, 1000000, &s) && m >= 0 && t > 0)
		set_time(g, m, t, 1);
	else if (!strcmp(argv[0], "canadian") && argc == 4 && !parse_num(argv[1], &m) &&
	         !parse_num(argv[2], &t) && !parse_int(argv[3], 1, 1000000, &s) && m >= 0 && t > 0)
		set_time(g, m, t, (int)s);
	else
		bad = 1;
	return bad ? fail(g, "syntax error") : 0;
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

static void set_rules(gt_gtp *g, const gt_rules *r);

static int c_rules(gt_gtp *g, int argc, char **argv, int *quit)
{
	const gt_rules *r;
	if (argc != 1)
		return fail(g, "syntax error");
	if (!(r = gt_rules_find_play(argv[0])))
		return fail(g, "unknown rules");
	g->rules = r;
	reset(g, g->n);
	return 0;
}

/* kgs-rules: KGS's names (japanese, chinese, aga, new_zealand) as
 * gt_sgfrec_play_rules maps them (japanese is played by territory); the
 * game is kept, replayed under the new rules (cleared when a move is no
 * longer legal) */
static int c_kgs_rules(gt_gtp *g, int argc, char **argv, int *quit)
{
	const gt_rules *r;
	if (argc != 1)
		return fail(g, "syntax error");
	if (!(r = gt_sgfrec_play_rules(argv[0])))
		return fail(g, "unknown rules");
	set_rules(g, r);
	return 0;
}

/* the game under rules r, kept (replayed; cleared when a move is no
 * longer legal) */
static void set_rules(gt_gtp *g, const gt_rules *r)
{
	g->rules = r;
	g->base->rules = r;
	if (replay(g, &g->b, g->nhist) != 0)
		reset(g, g->n);
}

/* kata-get-rules: KataGo's JSON of the rules in play (its rules page):
 * no handicap bonus; friendlyPassOk false for Tromp-Taylor's combination
 * (positional superko with suicide) and for territory rules, as in
 * KataGo's table; territory rules are KataGo's japanese (tax SEKI) */
static int c_kata_get_rules(gt_gtp *g, int argc, char **argv, int *quit)
{
	static const char *const ko[] = { "SIMPLE", "POSITIONAL", "SITUATIONAL" };
	const gt_rules *r = g->rules;
	int terr = r->scoring == GT_SCORE_TERRITORY;
	int friendly = !terr && !(r->ko == GT_KO_POSITIONAL && r->multi_suicide);
	putf(g, "{\"friendlyPassOk\":%s,\"hasButton\":false,\"ko\":\"%s\",\"scoring\":\"%s\","
	     "\"suicide\":%s,\"tax\":\"%s\",\"whiteHandicapBonus\":\"0\"}",
	     friendly ? "true" : "false", ko[r->ko], terr ? "TERRITORY" : "AREA",
	     r->multi_suicide ? "true" : "false", terr ? "SEKI" : "NONE");
	return 0;
}

/* kata-set-rules RULES: a name (as gt_sgfrec_play_rules: japanese and
 * korean by territory) or KataGo's JSON, matched on scoring, ko and
 * suicide among gt's rulesets (AREA with tax NONE, or TERRITORY with tax
 * SEKI; no button; the handicap bonus and friendlyPassOk are not rules
 * gt plays by) */
static int c_kata_set_rules(gt_gtp *g, int argc, char **argv, int *quit)
{
	const gt_rules *r = NULL;
	if (argc < 1)
		return fail(g, "syntax error");
	if (argv[0][0] != '{') {
		if (argc != 1 || !(r = gt_sgfrec_play_rules(argv[0])))
			return fail(g, "unknown rules");
		set_rules(g, r);
		return 0;
	}
	size_t len = 0;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *text = gt_xmalloc(len + 1);
	text[0] = 0;
	for (int i = 0; i < argc; i++)
		strcat(strcat(text, i ? " " : ""), argv[i]);
	json_t *o = json_loads(text, 0, NULL);
	free(text);
	const char *why = NULL;
	if (!json_is_object(o))
		why = "not a JSON object";
	else
		r = gt_sgfrec_katago_rules(json_string_value(json_object_get(o, "scoring")),
		                           json_string_value(json_object_get(o, "ko")),
		                           json_string_value(json_object_get(o, "tax")),
		                           json_is_boolean(json_object_get(o, "suicide")) ?
		                           json_is_true(json_object_get(o, "suicide")) : -1,
		                           json_is_true(json_object_get(o, "hasButton")), &why);
	json_decref(o);
	if (!r) {
		putf(g, "rules not supported: %s", why);
		return -1;
	}
	set_rules(g, r);
	return 0;
}

/* stop: KataGo's end of pondering; an analysis here already stops at any
 * command, so there is nothing left to stop */
static int c_stop(gt_gtp *g, int argc, char **argv, int *quit)
{
	return 0;
}

/* loadsgf FILE [N]: the first game of FILE (a regular file of at most
 * max_file bytes) up to (not including) its move N, under the ruleset its
 * RU names (the current one if RU is missing or unknown), with its size
 * and komi; answers the colour to move */
static int c_loadsgf(gt_gtp *g, int argc, char **argv, int *quit)
{
	long upto = -1;
	if (argc < 1 || argc > 2 || (argc == 2 && parse_int(argv[1], 1, 1000000, &upto)))
		return fail(g, "syntax error");
	char *text = NULL;
	size_t len = 0;
	int rc = 0;
	gt_error e;
	if (gt_fs_read_regular(argv[0], g->max_file, &text, &len, &e) != 0) {
		putf(g, "cannot load file: %s", e.text);
		return -1;
	}
	/* the first game only: memory is the file and one game */
	gt_sgf_reader *it = gt_sgf_reader_new(text, len);
	gt_sgf_game game, *sg = &game;
	int got = gt_sgf_reader_next(it, sg);
	gt_sgf_reader_free(it);
	free(text);
	if (!got)
		return fail(g, "cannot load file: no SGF game found");
	if (sg->err || sg->size > g->max_n) {
		if (sg->err)
			putf(g, "cannot load file: %s", sg->error.text);
		else
			putf(g, "cannot load file: board size %d is more than %d", sg->size, g->max_n);
		gt_sgf_game_release(sg);
		return -1;
	}
	const gt_rules *r = g->rules, *ru = gt_sgfrec_play_rules(gt_sgf_prop_get(sg, "RU"));
	if (ru)
		r = ru;
	gt_board *b = gt_xmalloc(sizeof *b);
	gt_board_init(b, sg->size, r, sg->komi);
	for (int i = 0; i < sg->nblack && !rc; i++)
		rc = gt_board_setup(b, GT_BLACK, sg->black[i]);
	for (int i = 0; i < sg->nwhite && !rc; i++)
		rc = gt_board_setup(b, GT_WHITE, sg->white[i]);
	gt_board_set_to_move(b, sg->nmoves ? sg->moves[0].color : sg->first);
	gt_board *save = gt_xmalloc(sizeof *save);
	int k = upto < 0 || upto - 1 > sg->nmoves ? sg->nmoves : (int)upto - 1, i = 0;
	if (!rc) {
		gt_board_copy(save, b); /* the new game's start */
		for (; i < k && !rc; i++)
			rc = gt_score_play_on(b, sg->moves[i].color, sg->moves[i].pt);
	}
	if (rc) {
		putf(g, "cannot load file: game 1, %s %d: %s", i ? "move" : "setup", i, gt_strerror(rc));
	} else {
		gt_board_copy(g->base, save);
		gt_board_copy(&g->b, b);
		g->nhist = 0;
		for (int j = 0; j < k; j++)
			hist_push(g, sg->moves[j].color, sg->moves[j].pt);
		g->n = sg->size;
		g->komi = sg->komi;
		g->rules = r;
		puts_(g, g->b.to_move == GT_WHITE ? "white" : "black");
	}
	free(save);
	free(b);
	gt_sgf_game_release(sg);
	return rc ? -1 : 0;
}

/* printsgf [FILE]: the game as SGF, in the response or to FILE */
static int c_printsgf(gt_gtp *g, int argc, char **argv, int *quit)
{
	if (argc > 1)
		return fail(g, "syntax error");
	gt_sgf_game sg;
	gt_sgf_game_init(&sg, g->n);
	sg.komi = g->komi;
	for (int p = 0; p < g->base->npts; p++)
		if (g->base->color[p] != GT_EMPTY)
			gt_sgf_add_setup(&sg, g->base->color[p], p);
	sg.first = g->nhist ? g->hist[0].color : g->base->to_move;
	for (int i = 0; i < g->nhist; i++)
		gt_sgf_add_move(&sg, g->hist[i].color, g->hist[i].pt);
	gt_sgf_prop_set(&sg, "RU", g->rules->name, strlen(g->rules->name));
	char who[256];
	snprintf(who, sizeof who, "%s %s", g->name, g->version);
	gt_sgf_prop_set(&sg, "PB", who, strlen(who));
	gt_sgf_prop_set(&sg, "PW", who, strlen(who));
	size_t len;
	char *text = gt_sgf_write_str(&sg, &len);
	gt_sgf_game_release(&sg);
	int rc = 0;
	if (argc == 1 && strcmp(argv[0], "-") != 0) {
		/* a regular file only: never a device or a FIFO that blocks */
		gt_error e;
		int fd = gt_fs_open_regular_write(argv[0], &e);
		if (fd < 0) {
			putf(g, "cannot write file: %s", e.text);
			rc = -1;
		} else {
			int bad = gt_fs_write_all(fd, text, len) != 0, err = errno;
			if (close(fd) != 0 && !bad)
				bad = 1, err = errno;
			if (bad) {
				putf(g, "cannot write file: %s: %s", argv[0], strerror(err));
				rc = -1;
			}
		}
	} else {
		put_lines(g, text);
	}
	free(text);
	return rc;
}

static int c_gogui_analyze_commands(gt_gtp *g, int argc, char **argv, int *quit)
{
	for (int i = 0; i < g->nanalyze; i++)
		putf(g, "%s%s", i ? "\n" : "", g->analyze[i]);
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
	{ "get_komi", c_get_komi },
	{ "play", c_play },
	{ "genmove", c_genmove },
	{ "undo", c_undo },
	{ "showboard", c_showboard },
	{ "fixed_handicap", c_fixed_handicap },
	{ "place_free_handicap", c_place_free_handicap },
	{ "set_free_handicap", c_set_free_handicap },
	{ "final_score", c_final_score },
	{ "final_status_list", c_final_status_list },
	{ "time_settings", c_time_settings },
	{ "time_left", c_time_left },
	{ "kgs-time_settings", c_kgs_time_settings },
	{ "kgs-rules", c_kgs_rules },
	{ "kgs-genmove_cleanup", c_genmove_cleanup },
	{ "loadsgf", c_loadsgf },
	{ "printsgf", c_printsgf },
	{ "gogui-analyze_commands", c_gogui_analyze_commands },
	{ "gt-rules", c_rules },
	{ "kata-get-rules", c_kata_get_rules },
	{ "kata-set-rules", c_kata_set_rules },
	{ "stop", c_stop },
	{ "clear_cache", c_stop },
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

static int add_extra(gt_gtp *g, const char *name, gt_gtp_command_fn fn, gt_gtp_stream_fn sfn,
                     void *user)
{
	if (!name || !*name || (!fn && !sfn) || strpbrk(name, " \t\r\n#") ||
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
	g->extra[i].sfn = sfn;
	g->extra[i].user = user;
	return 0;
}

int gt_gtp_register(gt_gtp *g, const char *name, gt_gtp_command_fn fn, void *user)
{
	return add_extra(g, name, fn, NULL, user);
}

int gt_gtp_register_stream(gt_gtp *g, const char *name, gt_gtp_stream_fn fn, void *user)
{
	return add_extra(g, name, NULL, fn, user);
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

/* ---- streaming ---- */

int gt_gtp_io_fail(gt_gtp_io *io, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(io->err, sizeof io->err, fmt, ap);
	va_end(ap);
	for (char *p = io->err; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return -1;
}

static int io_write(gt_gtp_io *io, const char *s, size_t n)
{
	if (!io->out) {
		put(io->g, s, n);
		return 0;
	}
	if (io->werr || fwrite(s, 1, n, io->out) != n || fflush(io->out) == EOF) {
		io->werr = 1;
		return GT_EIO;
	}
	return 0;
}

int gt_gtp_io_begin(gt_gtp_io *io)
{
	if (io->begun)
		return 0;
	io->begun = 1;
	char head[64];
	int k = snprintf(head, sizeof head, "=%s\n", io->id);
	return io_write(io, head, (size_t)k);
}

int gt_gtp_io_line(gt_gtp_io *io, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = gt_xmalloc(k > 0 ? (size_t)k + 2 : 2);
	vsnprintf(s, (size_t)k + 1, fmt, ap2);
	va_end(ap2);
	int rc = gt_gtp_io_begin(io);
	size_t o = 0;
	for (int i = 0; i < k; i++) /* no empty line inside: it would end the response */
		if (s[i] != '\n' || (o > 0 && s[o - 1] != '\n'))
			s[o++] = s[i];
	while (o > 0 && s[o - 1] == '\n')
		o--;
	if (!rc && o > 0) {
		s[o++] = '\n';
		rc = io_write(io, s, o);
	}
	free(s);
	return rc;
}

int gt_gtp_io_wait(gt_gtp_io *io, double seconds)
{
	return !io->rd || io->werr || gt_lines_wait(io->rd, seconds);
}

/* ---- one command ---- */

static int exec_line(gt_gtp *g, const char *line, int *quit, gt_lines *rd, FILE *out)
{
	char *buf = gt_xmalloc(strlen(line) + 1), **argv, *save = NULL;
	size_t k = 0;
	int argc = 0, q = 0;
	argv = gt_xmalloc((MAXARGS + 3) * sizeof *argv);
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
	g->len = 0;
	put(g, "", 0);
	if (argc == 0) {
		free(argv);
		free(buf);
		return 0;
	}
	const char *id = "";
	int a = 0;
	if (strspn(argv[0], "0123456789") == strlen(argv[0])) {
		id = argv[0];
		a = 1;
	}
	int rc, streamed = 0;
	gt_gtp_io io = { g, rd, out, id, 0, 0, "" };
	if (a >= argc) {
		rc = fail(g, "syntax error");
	} else {
		int c = find(argv[a]), x = find_extra(g, argv[a]);
		if (c < 0 && x < 0) {
			rc = fail(g, "unknown command");
		} else if (argc == MAXARGS + 3) {
			rc = fail(g, "syntax error");
		} else if (x >= 0 && g->extra[x].sfn) {
			rc = g->extra[x].sfn(g->extra[x].user, g, argc - a - 1, argv + a + 1, &io) == 0 ? 0 : -1;
			if (io.begun) {
				streamed = 1;
				io_write(&io, "\n", 1);
			} else if (rc) {
				fail(g, io.err[0] ? io.err : "failed");
			}
		} else if (x >= 0) {
			rc = run_extra(g, x, argc - a - 1, argv + a + 1);
		} else {
			rc = commands[c].fn(g, argc - a - 1, argv + a + 1, &q);
		}
	}
	if (!streamed) {
		/* "=id result" or "?id message", then an empty line */
		char *body = gt_xstrdup(g->res);
		g->len = 0;
		put(g, rc == 0 ? "=" : "?", 1);
		puts_(g, id);
		puts_(g, " ");
		puts_(g, body);
		puts_(g, "\n\n");
		free(body);
		if (out && (fputs(g->res, out) == EOF || fflush(out) == EOF))
			io.werr = 1;
	}
	free(argv);
	free(buf);
	if (quit)
		*quit = q;
	return io.werr ? GT_EIO : 1;
}

const char *gt_gtp_exec(gt_gtp *g, const char *line, int *quit)
{
	int r = exec_line(g, line, quit, NULL, NULL);
	return r == 0 ? NULL : g->res;
}

void gt_gtp_set_max_size(gt_gtp *g, int n)
{
	g->max_n = n < 2 ? 2 : n > GT_MAX_N ? GT_MAX_N : n;
}

void gt_gtp_set_max_file(gt_gtp *g, size_t bytes)
{
	g->max_file = bytes ? bytes : 1;
}

int gt_gtp_run(gt_gtp *g, FILE *in, FILE *out)
{
	gt_lines *rd = gt_lines_new(in, GT_GTP_MAX_LINE);
	int quit = 0, err = 0;
	char *line;
	size_t len;
	while (!quit && !err && (line = gt_lines_get(rd, &len)) != NULL) {
		if (len == (size_t)-1) { /* dropped: answer it, read on */
			err = fprintf(out, "? command line too long (more than %d bytes)\n\n",
			              GT_GTP_MAX_LINE) < 0 || fflush(out) == EOF;
			continue;
		}
		err = exec_line(g, line, &quit, rd, out) < 0;
	}
	gt_lines_free(rd);
	return err || ferror(out) ? GT_EIO : 0;
}
