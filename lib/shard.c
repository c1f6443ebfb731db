/* shard.c: records to training rows, shard files and manifest, the
 * trainer's window (see shard.h and man5 gt-shard). */
#include "shard.h"
#include "katafeat.h"
#include "npz.h"
#include "sym.h"
#include "fs.h"
#include "rng.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include("feat.h")
#include "feat.h"
#define HAVE_FEAT 1
#endif
#endif

/* the arrays of a shard (gt-shard(5)) in the file's order, then "meta";
 * the writer's row buffers and the reader's arrays in the same order;
 * the last NOPT are absent from the shards of older builds */
enum { NCOLS = 10, NOPT = 2 };
static const struct {
	const char *name;
	gt_dtype t;
	int ndim;
} cols[NCOLS] = {
	{"binaryInputNCHWPacked", GT_U1, 3},
	{"globalInputNC", GT_F4, 2},
	{"policy", GT_F4, 2},
	{"value", GT_F4, 1},
	{"score", GT_F4, 1},
	{"ownership", GT_F4, 2},
	{"ownership_mask", GT_U1, 1},
	{"weight", GT_F4, 1},
	{"policy_next", GT_F4, 2},
	{"policy_next_mask", GT_U1, 1},
};

/* ---- random numbers: gt_splitmix64 (lib/rng.h) ---- */

/* uniform in 0..n-1 (Lemire's multiply-shift; bias below n / 2^64) */
static uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)gt_splitmix64(s) * n) >> 64);
}

/* ---- encoders ---- */

#define BASIC_PLANES 5
#define BASIC_GLOBALS 2

static int basic_encode(const gt_board *b, float *planes, float *globals, void *ctx)
{
	(void)ctx;
	int np = b->n * b->n, me = b->to_move;
	memset(planes, 0, sizeof(float) * BASIC_PLANES * np);
	for (int p = 0; p < np; p++) {
		planes[p] = 1;
		if (b->color[p] != GT_EMPTY)
			planes[(b->color[p] == me ? 1 : 2) * np + p] = 1;
	}
	if (b->ko >= 0 && b->ko < np)
		planes[3 * np + b->ko] = 1;
	int last = b->nmoves > 0 ? b->hist_move[b->nmoves - 1] : -1;
	if (last >= 0 && last < np)
		planes[4 * np + last] = 1;
	globals[0] = (float)((me == GT_WHITE ? b->komi : -b->komi) / 20.0);
	globals[1] = last == np;
	return 0;
}

static const gt_shard_encoder basic_enc = {0, BASIC_PLANES, BASIC_GLOBALS, basic_encode, NULL};

const gt_shard_encoder *gt_shard_encoder_basic(void)
{
	return &basic_enc;
}

#ifdef HAVE_FEAT
static int feat_encode(const gt_board *b, float *planes, float *globals, void *ctx)
{
	(void)ctx;
	return gt_feat_encode(b, planes, globals);
}
static const gt_shard_encoder default_enc = {GT_FEAT_VERSION, GT_FEAT_PLANES, GT_FEAT_GLOBALS,
                                             feat_encode, NULL};
#endif

const gt_shard_encoder *gt_shard_encoder_default(void)
{
#ifdef HAVE_FEAT
	return &default_enc;
#else
	return &basic_enc;
#endif
}

/* KataGo's inputs (lib/katafeat.h) under the rules of the board, with the
 * history KataGo's self-play shows; ctx is the ladder search's workspace */
static int katago_encode(const gt_board *b, float *planes, float *globals, void *ctx)
{
	return gt_katafeat_encode(b, -1, -1, ctx, planes, globals);
}

/* the extra floats of a row with KataGo's keys (globalTargetsNC's sources):
 * move number, komi from the side to move's view, area scoring, visits,
 * result known, game hash (6 chunks), globalTargetsNC 0..19 (the result
 * and the td-like targets), 22 (variance time), the td-like targets'
 * weight, next move's policy present, future boards present; then the
 * next move's policy (n*n+1) and the boards 8 and 32 moves on (2 * n*n) */
enum { KX_TURN, KX_KOMI, KX_AREA, KX_VISITS, KX_FINISHED, KX_HASH, KX_TD = KX_HASH + 6,
       KX_VARTIME = KX_TD + 20, KX_TDW, KX_NEXT, KX_FUTURE, KX_FIXED };
#define KX(np) (KX_FIXED + 3 * (np) + 1)
#define KATAGO_INPUTS 7 /* KataGo's inputs version, the manifest's feature_version */

void gt_shard_opts_init(gt_shard_opts *o)
{
	*o = (gt_shard_opts){ .rows = 10000, .level = 1 };
}

/* ---- row buffers, one per board size ---- */

typedef struct rows {
	int n, np, pb, C, G; /* board, points, packed bytes per plane, planes, globals */
	long cnt, cap;
	uint8_t *packed;     /* [cap, C, pb] */
	float *glob;         /* [cap, G] */
	float *pol;          /* [cap, np+1] */
	float *val, *score, *wt;
	float *own;          /* [cap, np] */
	uint8_t *omask;
	int reply;           /* pnext and pnmask are kept (a window may not ask) */
	float *pnext;        /* [cap, np+1]: the opponent's reply (policy_next) */
	uint8_t *pnmask;     /* [cap]: policy_next_mask */
	long *game;          /* game serial of each row */
	int X;               /* extra floats per row: KX(np) with KataGo's keys, else 0 */
	float *ext;          /* [cap, X] */
} rows;

static void rows_init(rows *r, int n, int C, int G, int X, int reply)
{
	memset(r, 0, sizeof *r);
	r->reply = reply;
	r->n = n;
	r->np = n * n;
	r->pb = (r->np + 7) / 8;
	r->C = C;
	r->G = G;
	r->X = X;
}

static void rows_reserve(rows *r, long cap)
{
	if (cap <= r->cap)
		return;
	r->packed = gt_xrealloc(r->packed, (size_t)cap * r->C * r->pb);
	r->glob = gt_xrealloc(r->glob, sizeof(float) * cap * (r->G ? r->G : 1));
	r->pol = gt_xrealloc(r->pol, sizeof(float) * cap * (r->np + 1));
	r->val = gt_xrealloc(r->val, sizeof(float) * cap);
	r->score = gt_xrealloc(r->score, sizeof(float) * cap);
	r->wt = gt_xrealloc(r->wt, sizeof(float) * cap);
	r->own = gt_xrealloc(r->own, sizeof(float) * cap * r->np);
	r->omask = gt_xrealloc(r->omask, cap);
	if (r->reply) {
		r->pnext = gt_xrealloc(r->pnext, sizeof(float) * cap * (r->np + 1));
		r->pnmask = gt_xrealloc(r->pnmask, cap);
	}
	r->game = gt_xrealloc(r->game, sizeof(long) * cap);
	if (r->X)
		r->ext = gt_xrealloc(r->ext, sizeof(float) * cap * r->X);
	r->cap = cap;
}

static void rows_release(rows *r)
{
	gt_free_all(r->packed, r->glob, r->pol, r->val, r->score, r->wt, r->own, r->omask, r->game,
	            r->ext, r->pnext, r->pnmask);
	memset(r, 0, sizeof *r);
}

/* copy row s of a to row d of b (same geometry) */
static void row_copy(rows *b, long d, const rows *a, long s)
{
	size_t pk = (size_t)a->C * a->pb;
	memcpy(b->packed + d * pk, a->packed + s * pk, pk);
	memcpy(b->glob + d * a->G, a->glob + s * a->G, sizeof(float) * a->G);
	memcpy(b->pol + d * (a->np + 1), a->pol + s * (a->np + 1), sizeof(float) * (a->np + 1));
	memcpy(b->own + d * a->np, a->own + s * a->np, sizeof(float) * a->np);
	b->val[d] = a->val[s];
	b->score[d] = a->score[s];
	b->wt[d] = a->wt[s];
	b->omask[d] = a->omask[s];
	if (a->reply) {
		memcpy(b->pnext + d * (a->np + 1), a->pnext + s * (a->np + 1),
		       sizeof(float) * (a->np + 1));
		b->pnmask[d] = a->pnmask[s];
	}
	b->game[d] = a->game[s];
	if (a->X)
		memcpy(b->ext + d * a->X, a->ext + s * a->X, sizeof(float) * a->X);
}

static void pack_planes(uint8_t *dst, const float *planes, int C, int np, int pb)
{
	memset(dst, 0, (size_t)C * pb);
	for (int c = 0; c < C; c++) {
		const float *pl = planes + (size_t)c * np;
		uint8_t *d = dst + (size_t)c * pb;
		for (int p = 0; p < np; p++)
			if (pl[p] != 0)
				d[p >> 3] |= (uint8_t)(0x80 >> (p & 7));
	}
}

/* ---- the writer ---- */

struct gt_shard_writer {
	char *out, *rundir;
	gt_shard_opts o;
	gt_shard_encoder enc;
	gt_shard_stats st;
	rows buf[GT_MAX_N + 1];  /* by board size */
	float *planes, *globals; /* scratch for one position */
	gt_board *board;
	/* with KataGo's keys: the encoder's workspace, and the current game's
	 * hash, colours after each move (kfuture 0 when the game cannot be
	 * replayed to its end) and root values and scores (White's view) per
	 * move number */
	gt_katafeat_ws *kws;
	uint64_t game_hash[2];
	gt_board *kboard;
	uint8_t *kcol;           /* [(nmoves + 1) * n*n] */
	float *kval, *kscore;    /* [nmoves] */
	uint8_t *khave;          /* [nmoves] */
	int kfuture;             /* kcol holds the whole game */
	size_t kcol_cap, kv_cap;
	long game_serial;
	uint64_t shard_serial;
};

static char *path_join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = gt_xmalloc(n);
	snprintf(s, n, "%s/%s", a, b);
	return s;
}

gt_shard_writer *gt_shard_writer_new(const char *outdir, const gt_shard_opts *o, gt_error *e)
{
	gt_shard_opts def;
	if (!o) {
		gt_shard_opts_init(&def);
		o = &def;
	}
	const gt_shard_encoder *enc = o->enc ? o->enc : gt_shard_encoder_default();
	gt_shard_encoder kenc = {KATAGO_INPUTS, GT_KATAFEAT_PLANES, GT_KATAFEAT_GLOBALS, katago_encode,
	                         NULL};
	if (o->katago_pos_len)
		enc = &kenc;
	if (o->katago_pos_len < 0 || o->katago_pos_len == 1 || o->katago_pos_len > GT_MAX_N ||
	    o->rows < 1 || o->rows > 100000000L || o->run < 0 || o->run > 999 || o->level < 0 ||
	    o->level > 9 || !enc->encode || enc->nplanes < 1 || enc->nplanes > 64 ||
	    enc->nglobals < 0 || enc->nglobals > 64) {
		gt_error_set(e, GT_EINVAL, -1, -1, "bad shard options");
		return NULL;
	}
	char run[16];
	snprintf(run, sizeof run, "run_%03d", o->run);
	char *rundir = path_join(outdir, run);
	if (gt_fs_mkdir_p(outdir, e) || gt_fs_mkdir_p(rundir, e)) {
		free(rundir);
		return NULL;
	}
	/* ".games_NNNNN.npz.tmp.PID" and ".current.tmp.PID" of dead writers */
	gt_fs_remove_stale(outdir);
	gt_fs_remove_stale(rundir);
	gt_shard_writer *w = gt_xcalloc(1, sizeof *w);
	w->out = gt_xstrdup(outdir);
	w->rundir = rundir;
	w->o = *o;
	w->enc = *enc;
	if (o->katago_pos_len) {
		w->enc.ctx = w->kws = gt_katafeat_ws_new();
		w->kboard = gt_xmalloc(sizeof *w->kboard);
	}
	w->planes = gt_xmalloc(sizeof(float) * enc->nplanes * GT_MAX_PTS);
	w->globals = gt_xmalloc(sizeof(float) * (enc->nglobals ? enc->nglobals : 1));
	w->board = gt_xmalloc(sizeof *w->board);
	return w;
}

void gt_shard_writer_free(gt_shard_writer *w)
{
	if (!w)
		return;
	for (int n = 0; n <= GT_MAX_N; n++)
		rows_release(&w->buf[n]);
	gt_katafeat_ws_free(w->kws);
	gt_free_all(w->planes, w->globals, w->board, w->kboard, w->kcol, w->kval, w->kscore, w->khave,
	            w->out, w->rundir, w);
}

const gt_shard_stats *gt_shard_writer_stats(const gt_shard_writer *w)
{
	return &w->st;
}

static int finite_all(const float *x, long n)
{
	for (long i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

/* a record's start on b: its size, rules and komi, setup stones and first
 * player */
static int replay_start(gt_board *b, const gt_record *r, const gt_rules *rules, gt_error *e)
{
	int rc = 0;
	gt_board_init(b, r->board_size, rules, r->komi);
	for (int c = GT_BLACK; c <= GT_WHITE && !rc; c++)
		for (int i = 0; i < r->nsetup[c] && !rc; i++)
			if ((rc = gt_board_setup(b, c, r->setup[c][i])) != 0)
				gt_error_set(e, rc, -1, -1, "setup stone %d: %s", i, gt_strerror(rc));
	if (!rc && r->first_to_move)
		gt_board_set_to_move(b, r->first_to_move);
	return rc;
}

/* play move i of r on b */
static int replay_move(gt_board *b, const gt_record *r, int i, gt_error *e)
{
	int color = r->colors ? r->colors[i] : b->to_move;
	if (color != b->to_move)
		gt_board_set_to_move(b, color);
	int rc = gt_board_play(b, color, r->moves[i]);
	if (rc)
		gt_error_set(e, rc, -1, -1, "move %d: %s", i + 1, gt_strerror(rc));
	return rc;
}

/* KataGo's keys: the game's hash, its colours after every move (for the
 * future-board targets) and its root values and scores by move number
 * (for the td-like targets) */
static void katago_game(gt_shard_writer *w, const gt_record *r, const gt_rules *rules)
{
	/* the hash: FNV-1a of its game_id (else of the seed and the game's
	 * serial), spread by splitmix64 */
	uint64_t h = 0xcbf29ce484222325ULL;
	char id[64];
	const char *g = r->game_id;
	if (!g) {
		snprintf(id, sizeof id, "%llu/%ld", (unsigned long long)w->o.seed, w->game_serial);
		g = id;
	}
	for (; *g; g++)
		h = (h ^ (unsigned char)*g) * 0x100000001b3ULL;
	w->game_hash[0] = gt_splitmix64(&h);
	w->game_hash[1] = gt_splitmix64(&h);

	int np = r->board_size * r->board_size, N = r->nmoves;
	size_t need = (size_t)(N + 1) * np;
	if (need > w->kcol_cap) {
		w->kcol = gt_xrealloc(w->kcol, need);
		w->kcol_cap = need;
	}
	gt_error e;
	gt_board *b = w->kboard;
	int good = replay_start(b, r, rules, &e) == 0;
	for (int t = 0; good; t++) {
		memcpy(w->kcol + (size_t)t * np, b->color, np);
		if (t == N)
			break;
		good = replay_move(b, r, t, &e) == 0;
	}
	w->kfuture = good; /* a game that cannot be replayed has no future boards */
	if ((size_t)N + 1 > w->kv_cap) {
		w->kval = gt_xrealloc(w->kval, sizeof(float) * (N + 1));
		w->kscore = gt_xrealloc(w->kscore, sizeof(float) * (N + 1));
		w->khave = gt_xrealloc(w->khave, N + 1);
		w->kv_cap = (size_t)N + 1;
	}
	memset(w->khave, 0, N + 1);
	for (int j = 0; j < r->npos; j++) {
		const gt_position *ps = &r->pos[j];
		int t = ps->move_number;
		if (t < 0 || t >= N || !ps->has_root || !isfinite(ps->root_value) ||
		    !isfinite(ps->root_score))
			continue;
		float sg = ps->to_move == GT_WHITE ? 1.0f : -1.0f;
		w->kval[t] = sg * ps->root_value;
		w->kscore[t] = sg * ps->root_score;
		w->khave[t] = 1;
	}
}

/* the score cap of KataGo's value targets: MAX_BOARD_AREA + EXTRA_SCORE_DISTR_RADIUS */
#define KATAGO_SCORE_CAP (19 * 19 + 60)

/* KataGo's keys: the extra floats x of the row at move t (side to move
 * pla) whose own result is v, score sc (side to move's view; NaN:
 * unknown), next: the next position when it is a training target, else
 * NULL. The td-like targets follow KataGo's fillValueTDTargets over the
 * root values of the moves t..N-1 (a move without one, such as a forced
 * pass, counts as the result) and the result, when the position has its
 * root value; else they repeat the result with weight 0. */
static void katago_row(const gt_shard_writer *w, const gt_record *r, const gt_board *b,
                       const gt_position *ps, const gt_position *next, float v, float sc, float *x)
{
	int n = b->n, np = n * n, N = r->nmoves, t = ps->move_number, pla = b->to_move;
	float sg = pla == GT_WHITE ? 1.0f : -1.0f; /* side to move's view from White's */
	x[KX_TURN] = (float)t;
	x[KX_KOMI] = (float)(sg * b->komi);
	x[KX_AREA] = b->rules->scoring == GT_SCORE_AREA;
	x[KX_VISITS] = (float)ps->visits;
	x[KX_FINISHED] = r->winner != GT_WIN_UNKNOWN;
	/* KataGo's 128-bit game hash in chunks of 22, 22, 20 bits a half */
	for (int k = 0; k < 2; k++) {
		uint64_t h = w->game_hash[k];
		x[KX_HASH + 3 * k] = (float)(h & 0x3FFFFF);
		x[KX_HASH + 3 * k + 1] = (float)(h >> 22 & 0x3FFFFF);
		x[KX_HASH + 3 * k + 2] = (float)(h >> 44 & 0xFFFFF);
	}
	/* White's win, loss and score at move i (i == N: the result) */
	double fs = isnan(sc) ? 0 : sc, wv = sg * v, wsc = sg * fs;
	int td = t >= N || w->khave[t];
	const double factor[5] = {0, 1 / (1 + np * 0.176), 1 / (1 + np * 0.056), 1 / (1 + np * 0.016), 1};
	for (int k = 0; k < 5; k++) {
		double win = 0, loss = 0, score = 0, left = 1;
		for (int i = td ? t : N; i <= N; i++) {
			double now = i == N ? left : left * factor[k];
			left -= now;
			int res = i == N || !w->khave[i]; /* a move without a root value: the result */
			double vi = res ? wv : w->kval[i], si = res ? wsc : w->kscore[i];
			win += now * (1 + sg * vi) / 2;
			loss += now * (1 - sg * vi) / 2;
			score += now * sg * si;
		}
		score = score > KATAGO_SCORE_CAP ? KATAGO_SCORE_CAP : score < -KATAGO_SCORE_CAP ? -KATAGO_SCORE_CAP : score;
		x[KX_TD + 4 * k] = (float)win;
		x[KX_TD + 4 * k + 1] = (float)loss;
		x[KX_TD + 4 * k + 2] = 0;
		x[KX_TD + 4 * k + 3] = (float)score;
	}
	/* the expected arrival time of the win-loss variance, in moves */
	double vt = 0;
	for (int i = t + 1; td && i <= N; i++) {
		double a = w->khave[i - 1] ? w->kval[i - 1] : wv;
		double c = i < N && w->khave[i] ? w->kval[i] : wv;
		vt += (i - t) * (c - a) * (c - a);
	}
	x[KX_VARTIME] = (float)vt;
	x[KX_TDW] = (float)td;
	/* the next move's policy */
	float *xp = x + KX_FIXED;
	x[KX_NEXT] = next != NULL;
	if (next)
		memcpy(xp, next->policy, sizeof(float) * (np + 1));
	else
		memset(xp, 0, sizeof(float) * (np + 1));
	/* the boards 8 and 32 moves on (the last one past the end) */
	x[KX_FUTURE] = w->kfuture;
	for (int k = 0; k < 2; k++) {
		float *f = xp + np + 1 + k * np;
		int at = t + (k ? 32 : 8);
		const uint8_t *col = w->kcol + (size_t)(at < N ? at : N) * np;
		for (int p = 0; p < np; p++)
			f[p] = !w->kfuture || col[p] == GT_EMPTY ? 0.0f : col[p] == pla ? 1.0f : -1.0f;
	}
}

/* The opponent's reply to position j of r (gt-shard(5), policy_next):
 * the next position's policy (*pol) when it is a training target, 1; else
 * the move played next (*move, a point or the pass n*n), 2; 0 when the
 * game ends before the reply or the next move is not the opponent's. */
static int reply_of(const gt_record *r, int j, const float **pol, int *move)
{
	const gt_position *ps = &r->pos[j], *next = j + 1 < r->npos ? &r->pos[j + 1] : NULL;
	int t = ps->move_number, np = r->board_size * r->board_size;
	*pol = NULL;
	*move = -1;
	if (t + 1 >= r->nmoves || (r->colors && r->colors[t + 1] == r->colors[t]))
		return 0;
	if (next && next->move_number == t + 1 && next->full_search && next->policy &&
	    finite_all(next->policy, np + 1)) {
		*pol = next->policy;
		return 1;
	}
	if (r->moves[t + 1] < 0 || r->moves[t + 1] > np)
		return 0;
	*move = r->moves[t + 1];
	return 2;
}

/* append the row of position ps (position j of r) on board b; 1 if kept,
 * 0 if non-finite */
static int add_row(gt_shard_writer *w, rows *rb, const gt_record *r, int j,
                   const gt_position *next, const gt_board *b, gt_error *e)
{
	const gt_position *ps = &r->pos[j];
	int np = rb->np;
	int rc = w->enc.encode(b, w->planes, w->globals, w->enc.ctx);
	if (rc)
		return gt_error_set(e, rc, -1, -1, "move %d: feature encoding failed", ps->move_number);
	float sign = b->to_move == GT_BLACK ? 1.0f : -1.0f, value = ps->value, score = ps->score;
	/* a position without value or score takes them from the game's result */
	if (isnan(value))
		value = r->winner == GT_WIN_BLACK ? sign : r->winner == GT_WIN_WHITE ? -sign
		        : r->winner == GT_WIN_DRAW ? 0.0f : NAN;
	if (isnan(score))
		score = (float)(sign * r->score);
	/* a score that stays NaN is unknown (a game won by resignation or on
	 * time): kept as NaN, and gt-train leaves the row out of the score
	 * loss; an infinite one is bad data */
	if (!finite_all(ps->policy, np + 1) || !isfinite(value) || isinf(score) ||
	    !isfinite(ps->weight) || !finite_all(w->globals, w->enc.nglobals) ||
	    !finite_all(w->planes, (long)w->enc.nplanes * np) ||
	    (r->ownership && !finite_all(r->ownership, np))) {
		w->st.nonfinite++;
		return 0;
	}
	rows_reserve(rb, rb->cnt < 64 ? 64 : rb->cnt + 1 > rb->cap ? 2 * rb->cap : rb->cap);
	long i = rb->cnt;
	pack_planes(rb->packed + (size_t)i * rb->C * rb->pb, w->planes, rb->C, np, rb->pb);
	memcpy(rb->glob + (size_t)i * rb->G, w->globals, sizeof(float) * rb->G);
	memcpy(rb->pol + (size_t)i * (np + 1), ps->policy, sizeof(float) * (np + 1));
	float *own = rb->own + (size_t)i * np;
	if (r->ownership)
		for (int p = 0; p < np; p++)
			own[p] = sign * r->ownership[p];
	else
		memset(own, 0, sizeof(float) * np);
	rb->omask[i] = r->ownership != NULL;
	rb->val[i] = value;
	rb->score[i] = score;
	rb->wt[i] = ps->weight;
	rb->game[i] = w->game_serial;
	if (rb->X)
		katago_row(w, r, b, ps, next, value, score, rb->ext + (size_t)i * rb->X);
	if (rb->reply) {
		const float *rp;
		int mv;
		float *dst = rb->pnext + (size_t)i * (np + 1);
		rb->pnmask[i] = (uint8_t)reply_of(r, j, &rp, &mv);
		if (rp)
			memcpy(dst, rp, sizeof(float) * (np + 1));
		else
			memset(dst, 0, sizeof(float) * (np + 1));
		if (mv >= 0)
			dst[mv] = 1;
	}
	rb->cnt++;
	return 1;
}

static int write_shard(gt_shard_writer *w, rows *rb, long nrows, gt_error *e);

int gt_shard_add_record(gt_shard_writer *w, const gt_record *r, gt_error *e)
{
	int n = r->board_size, rc = 0;
	if (n < 2 || n > GT_MAX_N) {
		w->st.bad_games++;
		return gt_error_set(e, GT_EUNSUPPORTED, -1, -1, "board size %d", n);
	}
	const gt_rules *rules = gt_rules_find(r->rules);
	if (!rules) {
		w->st.bad_games++;
		return gt_error_set(e, GT_EUNSUPPORTED, -1, -1, "unknown rules '%s'", r->rules);
	}
	if (w->o.katago_pos_len && n > w->o.katago_pos_len) {
		w->st.bad_games++;
		return gt_error_set(e, GT_EUNSUPPORTED, -1, -1,
		                    "board size %d larger than KataGo's position length %d", n,
		                    w->o.katago_pos_len);
	}
	rows *rb = &w->buf[n];
	if (!rb->n)
		rows_init(rb, n, w->enc.nplanes, w->enc.nglobals, w->o.katago_pos_len ? KX(n * n) : 0,
		          !w->o.katago_pos_len);
	long start = rb->cnt, nonfinite0 = w->st.nonfinite, skipped0 = w->st.skipped;
	gt_board *b = w->board;
	rc = replay_start(b, r, rules, e);
	int played = 0;
	w->game_serial++;
	if (w->o.katago_pos_len)
		katago_game(w, r, rules);
	for (int j = 0; j < r->npos && !rc; j++) {
		const gt_position *ps = &r->pos[j];
		if (ps->move_number < played || ps->move_number > r->nmoves) {
			rc = gt_error_set(e, GT_EFORMAT, -1, -1, "position %d: move_number %d out of order",
			                  j, ps->move_number);
			break;
		}
		while (played < ps->move_number && !rc)
			rc = replay_move(b, r, played++, e);
		if (rc)
			break;
		if (!ps->full_search || !ps->policy || !(ps->weight > 0)) {
			w->st.skipped++;
			continue;
		}
		if (ps->to_move != b->to_move && (ps->to_move == GT_BLACK || ps->to_move == GT_WHITE))
			gt_board_set_to_move(b, ps->to_move);
		/* the next move's policy, for KataGo's keys */
		const gt_position *next = j + 1 < r->npos ? &r->pos[j + 1] : NULL;
		if (next && (next->move_number != ps->move_number + 1 || !next->full_search ||
		             !next->policy || !finite_all(next->policy, n * n + 1)))
			next = NULL;
		int k = add_row(w, rb, r, j, next, b, e);
		if (k < 0)
			rc = k;
	}
	if (rc) {
		rb->cnt = start;
		w->st.nonfinite = nonfinite0;
		w->st.skipped = skipped0;
		w->st.bad_games++;
		return rc;
	}
	w->st.games++;
	w->st.pending += rb->cnt - start;
	while (rb->cnt >= w->o.rows)
		if ((rc = write_shard(w, rb, w->o.rows, e)) != 0)
			return rc;
	return 0;
}

int gt_shard_flush(gt_shard_writer *w, gt_error *e)
{
	for (int n = 2; n <= GT_MAX_N; n++) {
		rows *rb = &w->buf[n];
		while (rb->cnt > 0) {
			int rc = write_shard(w, rb, rb->cnt < w->o.rows ? rb->cnt : w->o.rows, e);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

static int next_index(const char *rundir)
{
	DIR *d = opendir(rundir);
	struct dirent *de;
	int next = 0;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		int k;
		char tail[8];
		if (sscanf(de->d_name, "games_%d.np%1s", &k, tail) == 2 && k >= next)
			next = k + 1;
	}
	closedir(d);
	return next;
}

/* append line + '\n' to OUT/manifest under an exclusive lock, after a '\n'
 * if a writer died in the middle of its line */
static int manifest_append(const char *out, const char *line, gt_error *e)
{
	char *path = path_join(out, "manifest");
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666), rc = 0;
	if (fd < 0) {
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
		free(path);
		return rc;
	}
	flock(fd, LOCK_EX);
	struct stat sb;
	size_t n = strlen(line);
	char *buf = gt_xmalloc(n + 2), last = '\n';
	size_t k = 0;
	if (fstat(fd, &sb) == 0 && sb.st_size > 0) {
		int rfd = open(path, O_RDONLY | O_CLOEXEC);
		if (rfd < 0 || pread(rfd, &last, 1, sb.st_size - 1) != 1)
			last = '\n';
		if (rfd >= 0)
			close(rfd);
	}
	if (last != '\n')
		buf[k++] = '\n';
	memcpy(buf + k, line, n);
	k += n;
	buf[k++] = '\n';
	ssize_t wr = write(fd, buf, k);
	if (wr != (ssize_t)k || fsync(fd) != 0)
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, wr < 0 ? strerror(errno) : "short write");
	free(buf);
	close(fd);
	free(path);
	return rc;
}

static int point_current(const char *out, const char *target)
{
	char tmp[64];
	snprintf(tmp, sizeof tmp, ".current.tmp.%ld", (long)getpid());
	char *tp = path_join(out, tmp), *cp = path_join(out, "current");
	unlink(tp);
	int rc = symlink(target, tp) == 0 && rename(tp, cp) == 0 ? 0 : -1;
	if (rc)
		unlink(tp);
	gt_fs_sync_dir(out);
	free(tp);
	free(cp);
	return rc;
}

/* ---- KataGo's keys ---- */

/* KataGo's constants (cpp/dataio/trainingwrite.cpp, cpp/neuralnet/nninputs.h) */
enum {
	KATAGO_GLOBAL_TARGETS = 80, /* globalTargetsNC's channels (data format 3) */
	KATAGO_VALUE_TARGETS = 5,   /* valueTargetsNCHW's channels */
	KATAGO_QVALUE_TARGETS = 3,  /* qValueTargetsNCMove's channels */
	KATAGO_SCORE_RADIUS = 60,   /* EXTRA_SCORE_DISTR_RADIUS */
	KATAGO_POLICY_SCALE = 32000 /* gt's shares times this fit int16 */
};

/* gt's policy sh (n*n+1 shares, pass last) as KataGo's counts at y*L+x,
 * the pass at L*L, into pr (L*L+1, zeros elsewhere) */
static void katago_policy(int16_t *pr, const float *sh, int n, int L)
{
	for (int p = 0; p < n * n; p++)
		pr[p / n * L + p % n] = (int16_t)lrintf(sh[p] * KATAGO_POLICY_SCALE);
	pr[L * L] = (int16_t)lrintf(sh[n * n] * KATAGO_POLICY_SCALE);
}

/* KataGo's arrays of the first R rows of rb into z (gt-shard(5), "KataGo's
 * keys": what trainingwrite.cpp's addRow writes, from gt's targets where
 * gt has them and KataGo's neutral values where it does not) */
static int katago_arrays(const gt_shard_writer *w, const rows *rb, long R, gt_npz_writer *z,
                         gt_error *e)
{
	int n = rb->n, np = rb->np, C = rb->C, L = w->o.katago_pos_len, A = L * L, PB = (A + 7) / 8;
	int SD = 2 * A + 2 * KATAGO_SCORE_RADIUS, mid = A + KATAGO_SCORE_RADIUS, NG = KATAGO_GLOBAL_TARGETS;
	uint8_t *bin = gt_xcalloc((size_t)R * C * PB, 1);
	int16_t *pol = gt_xcalloc((size_t)R * 2 * (A + 1), sizeof(int16_t));
	float *tg = gt_xcalloc((size_t)R * NG, sizeof(float));
	int8_t *sd = gt_xcalloc((size_t)R * SD, 1);
	int8_t *vt = gt_xcalloc((size_t)R * KATAGO_VALUE_TARGETS * A, 1);
	int16_t *qv = gt_xcalloc((size_t)R * KATAGO_QVALUE_TARGETS * (A + 1), sizeof(int16_t));
	for (long i = 0; i < R; i++) {
		const float *x = rb->ext + i * rb->X;
		/* the planes: gt's point y*n+x is KataGo's y*L+x */
		const uint8_t *src = rb->packed + (size_t)i * C * rb->pb;
		uint8_t *dst = bin + (size_t)i * C * PB;
		for (int c = 0; c < C; c++)
			for (int p = 0; p < np; p++)
				if (src[(size_t)c * rb->pb + (p >> 3)] & 0x80 >> (p & 7)) {
					int q = p / n * L + p % n;
					dst[(size_t)c * PB + (q >> 3)] |= (uint8_t)(0x80 >> (q & 7));
				}
		/* channel 0: the shares as counts (KataGo's trainer divides by
		 * the sum); channel 1 the next move's, absent: uniform 1 */
		int16_t *pr = pol + (size_t)i * 2 * (A + 1);
		katago_policy(pr, rb->pol + (size_t)i * (np + 1), n, L);
		if (x[KX_NEXT])
			katago_policy(pr + A + 1, x + KX_FIXED, n, L);
		else
			for (int q = 0; q <= A; q++)
				pr[A + 1 + q] = 1;
		/* the global targets */
		float *g = tg + (size_t)i * NG, sc = rb->score[i];
		int known = rb->omask[i] && !isnan(sc); /* ownership and score */
		memcpy(g, x + KX_TD, sizeof(float) * 20); /* the result, the td-like targets */
		g[20] = known ? sc : 0;
		g[22] = x[KX_VARTIME];
		g[24] = 1 - x[KX_TDW]; /* 1 - the td-like targets' weight */
		g[25] = rb->wt[i];
		g[26] = 1;
		g[27] = (float)known;
		g[28] = x[KX_NEXT];
		g[33] = x[KX_FUTURE];
		g[34] = (float)known;
		uint64_t s = w->o.seed ^ (uint64_t)rb->game[i] * 0x9e3779b97f4a7c15ULL ^
		             (uint64_t)x[KX_TURN] * 0xbf58476d1ce4e5b9ULL;
		for (int k = 0, use = 1; k < 5; k++) { /* history kept with KataGo's odds */
			use = use && (gt_splitmix64(&s) >> 11) * 0x1p-53 < 0.98;
			g[36 + k] = (float)use;
		}
		for (int k = 0; k < 6; k++)
			g[41 + k] = x[KX_HASH + k];
		g[47] = x[KX_KOMI];
		g[48] = x[KX_AREA];
		g[51] = x[KX_TURN];
		g[60] = x[KX_VISITS];
		g[62] = x[KX_FINISHED];
		g[63] = 3; /* KataGo's data format version */
		/* the score distribution, as KataGo fills it */
		int8_t *d = sd + (size_t)i * SD;
		if (known) {
			int center = (int)round(sc), lo = center + mid - 1, hi = center + mid;
			if (hi <= 0) {
				d[0] = 100;
			} else if (lo >= SD - 1) {
				d[SD - 1] = 100;
			} else {
				int up = (int)roundf((sc - ((float)center - 0.5f)) * 100.0f);
				d[lo] = (int8_t)(100 - up);
				d[hi] = (int8_t)up;
			}
		} else {
			d[mid - 1] = d[mid] = 50;
		}
		/* the final ownership rounded to -1, 0, +1, and as the scoring
		 * target (area scoring: the same, times 120); the boards 8 and 32
		 * moves on */
		int8_t *o = vt + (size_t)i * KATAGO_VALUE_TARGETS * A;
		const float *fut = x + KX_FIXED + np + 1;
		for (int p = 0, q; p < np; p++) {
			float f = rb->own[(size_t)i * np + p];
			int8_t own = (int8_t)(f >= 0.5f ? 1 : f <= -0.5f ? -1 : 0);
			q = p / n * L + p % n;
			o[q] = known ? own : 0;
			o[2 * A + q] = (int8_t)fut[p];
			o[3 * A + q] = (int8_t)fut[np + p];
			o[4 * A + q] = (int8_t)(known ? 120 * own : 0);
		}
	}
	int64_t s_bin[3] = {R, C, PB}, s_glob[2] = {R, rb->G}, s_pol[3] = {R, 2, A + 1},
		s_tg[2] = {R, NG}, s_sd[2] = {R, SD}, s_vt[4] = {R, KATAGO_VALUE_TARGETS, L, L},
		s_qv[3] = {R, KATAGO_QVALUE_TARGETS, A + 1};
	int rc = gt_npz_add(z, "binaryInputNCHWPacked", GT_U1, 3, s_bin, bin, e);
	if (!rc)
		rc = gt_npz_add(z, "globalInputNC", GT_F4, 2, s_glob, rb->glob, e);
	if (!rc)
		rc = gt_npz_add(z, "policyTargetsNCMove", GT_I2, 3, s_pol, pol, e);
	if (!rc)
		rc = gt_npz_add(z, "globalTargetsNC", GT_F4, 2, s_tg, tg, e);
	if (!rc)
		rc = gt_npz_add(z, "scoreDistrN", GT_I1, 2, s_sd, sd, e);
	if (!rc)
		rc = gt_npz_add(z, "valueTargetsNCHW", GT_I1, 4, s_vt, vt, e);
	if (!rc)
		rc = gt_npz_add(z, "qValueTargetsNCMove", GT_I2, 3, s_qv, qv, e);
	free(bin);
	free(pol);
	free(tg);
	free(sd);
	free(vt);
	free(qv);
	return rc;
}

/* shuffle the buffer, write its first nrows rows as a shard, keep the rest */
static int write_shard(gt_shard_writer *w, rows *rb, long nrows, gt_error *e)
{
	long cnt = rb->cnt;
	uint64_t s = w->o.seed ^ (0x5851f42d4c957f2dULL * (++w->shard_serial));
	rows sh;
	rows_init(&sh, rb->n, rb->C, rb->G, rb->X, rb->reply);
	rows_reserve(&sh, cnt);
	long *perm = gt_xmalloc(sizeof(long) * cnt);
	for (long i = 0; i < cnt; i++)
		perm[i] = i;
	for (long i = cnt - 1; i > 0; i--) {
		long j = (long)rng_below(&s, (uint64_t)i + 1), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (long i = 0; i < cnt; i++)
		row_copy(&sh, i, rb, perm[i]);
	free(perm);
	sh.cnt = cnt;
	/* the shuffled rows replace the buffer: a failed write keeps them all */
	rows_release(rb);
	*rb = sh;

	long *games = gt_xmalloc(sizeof(long) * nrows);
	memcpy(games, rb->game, sizeof(long) * nrows);
	qsort(games, nrows, sizeof(long), cmp_long);
	long ngames = nrows > 0;
	for (long i = 1; i < nrows; i++)
		ngames += games[i] != games[i - 1];
	free(games);

	int idx = next_index(w->rundir), rc = 0, n = rb->n, np = rb->np;
	char name[64], tmpname[96];
	snprintf(tmpname, sizeof tmpname, ".games_%05d.npz.tmp.%ld", idx, (long)getpid());
	char *tmp = path_join(w->rundir, tmpname), *final = NULL;
	FILE *f = fopen(tmp, "wb");
	unsigned char sha[32];
	uint64_t bytes = 0;
	if (!f) {
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	gt_npz_writer *z = gt_npz_writer_new(f, w->o.level);
	int64_t R = nrows;
	int64_t s_packed[3] = {R, rb->C, rb->pb}, s_glob[2] = {R, rb->G}, s_pol[2] = {R, np + 1},
		s_row[1] = {R}, s_own[2] = {R, np}, s_meta[1] = {5};
	int32_t meta[5] = {GT_SHARD_FORMAT, n, w->enc.version, rb->C, rb->G};
	const int64_t *shape[NCOLS] = {s_packed, s_glob, s_pol, s_row, s_row, s_own, s_row, s_row,
	                               s_pol, s_row};
	const void *data[NCOLS] = {rb->packed, rb->glob, rb->pol, rb->val, rb->score, rb->own,
	                           rb->omask, rb->wt, rb->pnext, rb->pnmask};
	if (w->o.katago_pos_len)
		rc = katago_arrays(w, rb, nrows, z, e);
	for (int c = 0; c < NCOLS && !rc && !w->o.katago_pos_len; c++)
		rc = gt_npz_add(z, cols[c].name, cols[c].t, cols[c].ndim, shape[c], data[c], e);
	if (!rc && !w->o.katago_pos_len)
		rc = gt_npz_add(z, "meta", GT_I4, 1, s_meta, meta, e);
	if (!rc)
		rc = gt_npz_finish(z, sha, &bytes, e);
	gt_npz_writer_free(z);
	if (!rc && fsync(fileno(f)) != 0)
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: fsync: %s", tmp, strerror(errno));
	if (fclose(f) != 0 && !rc)
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", tmp, strerror(errno));
	if (rc)
		goto out;
	/* link, not rename: never replace a shard another writer just made */
	for (;; idx++) {
		snprintf(name, sizeof name, "games_%05d.npz", idx);
		free(final);
		final = path_join(w->rundir, name);
		if (link(tmp, final) == 0)
			break;
		if (errno != EEXIST || idx >= 99999) {
			rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", final, strerror(errno));
			goto out;
		}
	}
	gt_fs_sync_dir(w->rundir);

	char rel[96], hex[65], when[32];
	snprintf(rel, sizeof rel, "run_%03d/%s", w->o.run, name);
	gt_hex(hex, sha, 32);
	gt_iso_time(when, sizeof when, time(NULL));
	json_t *j = json_pack("{s:s, s:I, s:I, s:i, s:i, s:i, s:i, s:s, s:s, s:I}", "file", rel,
	                      "rows", (json_int_t)nrows, "games", (json_int_t)ngames, "board_size", n,
	                      "feature_version", w->enc.version, "planes", rb->C, "globals", rb->G,
	                      "time", when, "sha256", hex, "bytes", (json_int_t)bytes);
	if (w->o.katago_pos_len) { /* not gt's arrays: gt's readers skip the line */
		json_object_set_new(j, "keys", json_string("katago"));
		json_object_set_new(j, "pos_len", json_integer(w->o.katago_pos_len));
	}
	char *line = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	rc = manifest_append(w->out, line, e);
	if (!rc) {
		point_current(w->out, rel);
		w->st.rows += nrows;
		w->st.pending -= nrows;
		w->st.shards++;
		/* drop the written rows */
		long rest = rb->cnt - nrows;
		for (long i = 0; i < rest; i++)
			row_copy(rb, i, rb, nrows + i);
		rb->cnt = rest;
		if (w->o.on_shard)
			w->o.on_shard(line, w->o.ctx);
	} else {
		unlink(final); /* not in the manifest: not a shard */
	}
	free(line);
out:
	unlink(tmp);
	free(tmp);
	free(final);
	return rc;
}

/* ---- the window ---- */

struct gt_shard_window {
	rows r;
	gt_shard_window_info info;
	uint64_t rng;
	int *symtab; /* [8][np] */
	long slice, slices; /* rows seen: slice, slice + slices, ... (0, 1: all) */
	int reply;   /* GT_SHARD_WINDOW_REPLY: policy_next and its mask kept */
};

typedef struct mentry {
	char *file, *sha;
	long rows;
	int n, version;
} mentry;

static int read_manifest(const char *out, mentry **list, int *count, gt_error *e)
{
	char *path = path_join(out, "manifest");
	FILE *f = fopen(path, "r");
	*list = NULL;
	*count = 0;
	if (!f) {
		int rc = gt_error_set(e, errno == ENOENT ? GT_ENOTFOUND : GT_EIO, -1, -1, "%s: %s", path,
		                      strerror(errno));
		free(path);
		return rc;
	}
	free(path);
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int cnt = 0, max = 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		json_t *j = json_loadb(line, (size_t)len, 0, NULL);
		const char *file = NULL, *sha = NULL;
		json_int_t rows = 0;
		int n = 0, ver = 0;
		if (j && !json_object_get(j, "keys") && /* KataGo's keys: not for gt */
		    json_unpack(j, "{s:s, s:I, s:i, s:i, s:s}", "file", &file, "rows", &rows,
		                     "board_size", &n, "feature_version", &ver, "sha256", &sha) == 0 &&
		    rows > 0 && !strstr(file, "..") && file[0] != '/') {
			GT_GROW(*list, cnt + 1, max, 64);
			(*list)[cnt++] = (mentry){gt_xstrdup(file), gt_xstrdup(sha), (long)rows, n, ver};
		}
		json_decref(j); /* lines that do not parse (a torn last line) are skipped */
	}
	free(line);
	fclose(f);
	*count = cnt;
	return 0;
}

/* load up to want rows of shard m into w; returns rows taken, or a negative
 * error with why filled */
static long window_take(gt_shard_window *w, const char *out, const mentry *m, long want,
                        char *why, size_t whylen)
{
	char *path = path_join(out, m->file);
	gt_error e = {0};
	gt_npz *z = gt_npz_open(path, &e);
	free(path);
	if (!z) {
		snprintf(why, whylen, "%s", e.text);
		return GT_EFORMAT;
	}
	unsigned char sha[32];
	char hex[65];
	gt_npz_sha256(z, sha);
	gt_hex(hex, sha, 32);
	if (strcmp(hex, m->sha) != 0) {
		snprintf(why, whylen, "%s: sha256 differs from the manifest", m->file);
		gt_npz_close(z);
		return GT_ECHECKSUM;
	}
	rows *r = &w->r;
	gt_npz_array a[NCOLS + 1];
	memset(a, 0, sizeof a);
	int64_t s_meta[1] = {5};
	int rc = gt_npz_load_as(z, "meta", GT_I4, 1, s_meta, &a[NCOLS], &e);
	const int32_t *meta = a[NCOLS].data;
	if (!rc && (meta[0] != GT_SHARD_FORMAT || meta[1] != r->n || meta[2] != w->info.feature_version ||
	            meta[3] != r->C || meta[4] != r->G))
		rc = gt_error_set(&e, GT_EFORMAT, -1, -1, "%s: meta differs from the window's", m->file);
	int64_t R = -1;
	int64_t s_packed[3] = {R, r->C, r->pb}, s_glob[2] = {R, r->G}, s_pol[2] = {R, r->np + 1},
		s_own[2] = {R, r->np};
	int64_t s_val[1] = {R}, s_score[1] = {R}, s_wt[1] = {R}, s_om[1] = {R};
	int64_t s_pn[2] = {R, r->np + 1}, s_pm[1] = {R};
	int64_t *shape[NCOLS] = {s_packed, s_glob, s_pol, s_val, s_score, s_own, s_om, s_wt, s_pn, s_pm};
	/* the opponent's reply: only when the window keeps it and the shard
	 * has it (older shards do not: their rows have none) */
	int ncols = r->reply && gt_npz_find(z, cols[NCOLS - NOPT].name) >= 0 ? NCOLS : NCOLS - NOPT;
	for (int c = 0; c < ncols && !rc; c++) {
		rc = gt_npz_load_as(z, cols[c].name, cols[c].t, cols[c].ndim, shape[c], &a[c], &e);
		R = s_packed[0];
		for (int k = 1; c == 0 && k < NCOLS; k++)
			shape[k][0] = R; /* every array has the rows of the first */
	}
	gt_npz_close(z);
	long k = 0;
	if (rc) {
		snprintf(why, whylen, "%s", e.text);
	} else {
		k = R < want ? (long)R : want;
		long i = r->cnt;
		rows_reserve(r, i + k);
		memcpy(r->packed + (size_t)i * r->C * r->pb, a[0].data, (size_t)k * r->C * r->pb);
		memcpy(r->glob + (size_t)i * r->G, a[1].data, sizeof(float) * k * r->G);
		memcpy(r->pol + (size_t)i * (r->np + 1), a[2].data, sizeof(float) * k * (r->np + 1));
		memcpy(r->val + i, a[3].data, sizeof(float) * k);
		memcpy(r->score + i, a[4].data, sizeof(float) * k);
		memcpy(r->own + (size_t)i * r->np, a[5].data, sizeof(float) * k * r->np);
		memcpy(r->omask + i, a[6].data, k);
		memcpy(r->wt + i, a[7].data, sizeof(float) * k);
		if (r->reply && ncols == NCOLS) {
			const uint8_t *pm = a[9].data;
			memcpy(r->pnext + (size_t)i * (r->np + 1), a[8].data, sizeof(float) * k * (r->np + 1));
			for (long j = 0; j < k; j++) { /* 0, 1 or 2; anything else: none */
				r->pnmask[i + j] = pm[j] <= 2 ? pm[j] : 0;
				w->info.reply_rows += r->pnmask[i + j] != 0;
			}
		} else if (r->reply) {
			memset(r->pnext + (size_t)i * (r->np + 1), 0, sizeof(float) * k * (r->np + 1));
			memset(r->pnmask + i, 0, k);
		}
		r->cnt += k;
	}
	for (int i = 0; i <= NCOLS; i++)
		free(a[i].data);
	return rc ? rc : k;
}

gt_shard_window *gt_shard_window_open(const char *outdir, long want, int board_size, uint64_t seed,
                                      gt_error *e)
{
	return gt_shard_window_open_with(outdir, want, board_size, seed, 0, e);
}

gt_shard_window *gt_shard_window_open_with(const char *outdir, long want, int board_size,
                                           uint64_t seed, int flags, gt_error *e)
{
	if (want < 1 || board_size < 0 || board_size > GT_MAX_N) {
		gt_error_set(e, GT_EINVAL, -1, -1, "bad window size or board size");
		return NULL;
	}
	mentry *m;
	int cnt;
	if (read_manifest(outdir, &m, &cnt, e))
		return NULL;
	gt_shard_window *w = gt_xcalloc(1, sizeof *w);
	w->rng = seed;
	w->reply = (flags & GT_SHARD_WINDOW_REPLY) != 0;
	int n = board_size, ver = -1;
	for (int i = cnt - 1; i >= 0 && w->r.cnt < want; i--) {
		if (!n || ver < 0) {
			if (n && m[i].n != n)
				goto skip_size;
			n = m[i].n;
			ver = m[i].version;
		}
		if (m[i].n != n || m[i].version != ver) {
skip_size:
			w->info.skipped++;
			snprintf(w->info.last_skip, sizeof w->info.last_skip,
			         "%s: board size %d, feature version %d", m[i].file, m[i].n, m[i].version);
			continue;
		}
		if (!w->r.n) {
			/* geometry from the first shard's meta: read it through a probe */
			char *path = path_join(outdir, m[i].file);
			gt_error pe = {0};
			gt_npz *z = gt_npz_open(path, &pe);
			free(path);
			gt_npz_array a = {0};
			int64_t s5[1] = {5};
			if (!z || gt_npz_load_as(z, "meta", GT_I4, 1, s5, &a, &pe) != 0) {
				gt_npz_close(z);
				w->info.skipped++;
				snprintf(w->info.last_skip, sizeof w->info.last_skip, "%s", pe.text);
				if (board_size == 0)
					n = 0, ver = -1;
				continue;
			}
			gt_npz_close(z);
			const int32_t *meta = a.data;
			if (meta[1] == n && meta[3] >= 1 && meta[3] <= 64 && meta[4] >= 0 && meta[4] <= 64)
				rows_init(&w->r, n, meta[3], meta[4], 0, w->reply);
			free(a.data);
			if (!w->r.n) {
				w->info.skipped++;
				snprintf(w->info.last_skip, sizeof w->info.last_skip, "%s: bad meta", m[i].file);
				continue;
			}
			w->info.feature_version = ver;
		}
		long k = window_take(w, outdir, &m[i], want - w->r.cnt, w->info.last_skip,
		                     sizeof w->info.last_skip);
		if (k < 0)
			w->info.skipped++;
		else if (k > 0)
			w->info.shards++;
	}
	for (int i = 0; i < cnt; i++) {
		free(m[i].file);
		free(m[i].sha);
	}
	free(m);
	if (w->r.cnt == 0) {
		gt_error_set(e, GT_ENOTFOUND, -1, -1, "%s: no usable shard (%d skipped%s%s)", outdir,
		             w->info.skipped, w->info.skipped ? ": " : "", w->info.last_skip);
		gt_shard_window_free(w);
		return NULL;
	}
	rows *r = &w->r;
	w->info.rows = r->cnt;
	w->slice = 0;
	w->slices = 1;
	w->info.n = r->n;
	w->info.nplanes = r->C;
	w->info.nglobals = r->G;
	w->symtab = gt_xmalloc(sizeof(int) * GT_NSYM * r->np);
	for (int k = 0; k < GT_NSYM; k++)
		for (int p = 0; p < r->np; p++)
			w->symtab[k * r->np + p] = gt_sym_point(r->n, k, p);
	return w;
}

void gt_shard_window_free(gt_shard_window *w)
{
	if (!w)
		return;
	rows_release(&w->r);
	free(w->symtab);
	free(w);
}

void gt_shard_window_get_info(const gt_shard_window *w, gt_shard_window_info *info)
{
	*info = w->info;
}

int gt_shard_window_slice(gt_shard_window *w, int slice, int slices)
{
	if (slices < 1 || slice < 0 || slice >= slices || w->r.cnt < slices)
		return GT_EINVAL;
	w->slice = slice;
	w->slices = slices;
	w->info.rows = (w->r.cnt - slice + slices - 1) / slices;
	return 0;
}

/* dst[sym[p]] = src[p] for the np points; the pass (np) stays last */
static void sym_policy(float *dst, const float *src, const int *sym, int np)
{
	for (int p = 0; p < np; p++)
		dst[sym[p]] = src[p];
	dst[np] = src[np];
}

int gt_shard_window_get(const gt_shard_window *w, long row, int k, gt_shard_batch *b, int i)
{
	const rows *r = &w->r;
	if (row < 0 || row >= w->info.rows || k < 0 || k >= GT_NSYM || i < 0)
		return GT_EINVAL;
	row = row * w->slices + w->slice;
	int np = r->np, C = r->C, pb = r->pb;
	const int *sym = w->symtab + k * np;
	if (b->planes) {
		float *dst = b->planes + (size_t)i * C * np;
		const uint8_t *src = r->packed + (size_t)row * C * pb;
		memset(dst, 0, sizeof(float) * C * np);
		for (int c = 0; c < C; c++, dst += np, src += pb)
			for (int j = 0; j < pb; j++) {
				unsigned v = src[j];
				for (int p = 8 * j; v; p++, v = (v << 1) & 0xff)
					if ((v & 0x80) && p < np)
						dst[sym[p]] = 1;
			}
	}
	if (b->globals)
		memcpy(b->globals + (size_t)i * r->G, r->glob + (size_t)row * r->G, sizeof(float) * r->G);
	if (b->policy)
		sym_policy(b->policy + (size_t)i * (np + 1), r->pol + (size_t)row * (np + 1), sym, np);
	if (b->ownership) {
		float *dst = b->ownership + (size_t)i * np;
		const float *src = r->own + (size_t)row * np;
		for (int p = 0; p < np; p++)
			dst[sym[p]] = src[p];
	}
	if (b->value)
		b->value[i] = r->val[row];
	if (b->score)
		b->score[i] = r->score[row];
	if (b->weight)
		b->weight[i] = r->wt[row];
	if (b->ownership_mask)
		b->ownership_mask[i] = r->omask[row];
	if (b->policy_next) {
		float *dst = b->policy_next + (size_t)i * (np + 1);
		if (r->reply)
			sym_policy(dst, r->pnext + (size_t)row * (np + 1), sym, np);
		else
			memset(dst, 0, sizeof(float) * (np + 1));
	}
	if (b->policy_next_mask)
		b->policy_next_mask[i] = r->reply ? r->pnmask[row] : 0;
	if (b->sym)
		b->sym[i] = k;
	if (b->index)
		b->index[i] = row;
	return 0;
}

void gt_shard_window_sample(gt_shard_window *w, int B, gt_shard_batch *b)
{
	for (int i = 0; i < B; i++) {
		long row = (long)rng_below(&w->rng, (uint64_t)w->info.rows);
		int k = (int)rng_below(&w->rng, GT_NSYM);
		gt_shard_window_get(w, row, k, b, i);
	}
}
