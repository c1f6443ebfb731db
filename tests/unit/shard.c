/*
 * shard: lib/shard on hand-made records (no parser involved): rows and
 * their perspectives, skipped and non-finite positions, shard size and
 * manifest, the window and its symmetry (hand-checked case, then every
 * sample checked against an independent unpacking); the opponent's reply
 * (policy_next: the next position's policy, the move played next, none at
 * the end) by hand, under the window's symmetries, and absent from older
 * shards; KataGo's keys on the hand-made game, worked out by hand.
 */
#include "board.h"
#include "npz.h"
#include "shard.h"
#include "sym.h"
#include "testutil.h"

#include <unistd.h>

static char dir[256];

/* 9x9 vertices: E5 = 40, C3 = (2,6) = 56, D2 = (3,7) = 66, G7 = (6,2) = 24 */
#define E5 40
#define C3 56
#define D2 66
#define G7 24
#define N 9
#define NP 81

static float pol[6][NP + 1];
static float own[NP];
static int16_t moves[4] = {E5, C3, D2, G7};

/* a game: B E5, W C3, B D2, W G7; positions 0..5 with unique scores;
 * position 3 has no full search; position 4 a NaN in its policy;
 * Black won by 3.5 */
static void make_game(gt_record *r, gt_position *pos)
{
	memset(r, 0, sizeof *r);
	r->version = 1;
	snprintf(r->rules, sizeof r->rules, "chinese");
	r->komi = 7.5;
	r->board_size = N;
	r->first_to_move = GT_BLACK;
	r->nmoves = 4;
	r->moves = moves;
	r->winner = GT_WIN_BLACK;
	r->score = 3.5;
	for (int p = 0; p < NP; p++)
		own[p] = p % N < 4 ? 1.0f : p % N > 4 ? -1.0f : 0.0f;
	r->ownership = own;
	const int next[5] = {E5, C3, D2, G7, NP};
	memset(pol, 0, sizeof pol);
	for (int j = 0; j < 5; j++) {
		pos[j].move_number = j;
		pos[j].to_move = j % 2 ? GT_WHITE : GT_BLACK;
		pos[j].policy = pol[j];
		pol[j][next[j]] = 1;
		pos[j].value = j % 2 ? -1 : 1;
		pos[j].score = (j % 2 ? -3.5f : 3.5f) + 100 * j; /* identifies the row */
		pos[j].visits = 100;
		pos[j].full_search = j != 3;
		pos[j].weight = 1;
	}
	pol[4][0] = NAN;
	r->npos = 5;
	r->pos = pos;
}

/* r: a record on N under chinese rules with komi and the nmoves moves mv
 * (borrowed), everything else zero */
static void bare_record(gt_record *r, double komi, int nmoves, int16_t *mv)
{
	memset(r, 0, sizeof *r);
	snprintf(r->rules, sizeof r->rules, "chinese");
	r->board_size = N;
	r->komi = komi;
	r->nmoves = nmoves;
	r->moves = mv;
}

static int lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;
	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

/* the window of the newest rows of out's shards (sampler seed), asserted
 * to open under name, its info in *in; NULL (the error a diag line) when
 * it does not */
static gt_shard_window *window_opens(const char *out, long rows, uint64_t seed, const char *name,
                                    gt_shard_window_info *in)
{
	gt_error e = {0};
	gt_shard_window *w = gt_shard_window_open(out, rows, 0, seed, &e);
	if (!ok(w != NULL, "%s", name)) {
		diag("%s", e.text);
		return NULL;
	}
	gt_shard_window_get_info(w, in);
	return w;
}

static int bit(const uint8_t *packed, int C, int pb, long row, int c, int p)
{
	return (packed[((size_t)row * C + c) * pb + p / 8] >> (7 - p % 8)) & 1;
}

static void check_writer(void)
{
	char out[512], path[600];
	snprintf(out, sizeof out, "%s/data", dir);
	gt_shard_opts o;
	gt_shard_opts_init(&o);
	o.rows = 2;
	o.seed = 7;
	gt_error e = {0};
	gt_shard_writer *w = gt_shard_writer_new(out, &o, &e);
	ok(w != NULL, "writer");
	gt_record r;
	gt_position pos[5];
	make_game(&r, pos);
	is_int(gt_shard_add_record(w, &r, &e), 0, "add the game");
	const gt_shard_stats *st = gt_shard_writer_stats(w);
	is_int(st->skipped, 1, "one position without a full search skipped");
	is_int(st->nonfinite, 1, "one NaN row dropped");
	is_int(st->shards, 1, "a shard of 2 rows written at once");
	is_int(st->pending, 1, "one row pending");
	/* an illegal game: W plays onto E5 */
	int16_t bad[2] = {E5, E5};
	gt_record r2 = r;
	r2.moves = bad;
	r2.nmoves = 2;
	r2.npos = 3;
	int rc = gt_shard_add_record(w, &r2, &e);
	is_int(rc, GT_EOCCUPIED, "illegal move refused (%s)", e.text);
	is_int(st->bad_games, 1, "bad game counted");
	is_int(st->pending, 1, "its rows are not kept");
	is_int(gt_shard_flush(w, &e), 0, "flush");
	is_int(st->shards, 2, "two shards");
	is_int(st->rows, 3, "three rows");
	is_int(st->pending, 0, "nothing pending");
	gt_shard_writer_free(w);

	snprintf(path, sizeof path, "%s/manifest", out);
	is_int(lines(path), 2, "manifest has two lines");
	char link[256] = {0};
	snprintf(path, sizeof path, "%s/current", out);
	ssize_t ln = readlink(path, link, sizeof link - 1);
	ok(ln > 0 && strcmp(link, "run_000/games_00001.npz") == 0, "current -> %s", link);

	/* rows of both shards, by score */
	int found = 0;
	for (int s = 0; s < 2; s++) {
		snprintf(path, sizeof path, "%s/run_000/games_%05d.npz", out, s);
		gt_npz *z = gt_npz_open(path, &e);
		if (!ok(z != NULL, "open shard %d", s)) {
			diag("%s", e.text);
			continue;
		}
		gt_npz_array pk, po, va, sc, ow, mt, pn, pm;
		int64_t sm[1] = {5};
		gt_npz_load_as(z, "meta", GT_I4, 1, sm, &mt, &e);
		const int32_t *meta = mt.data;
		ok(meta[0] == 1 && meta[1] == N, "meta: format 1, 9x9");
		int C = meta[3], pb = (NP + 7) / 8;
		int64_t sp[3] = {-1, C, pb}, spol[2] = {-1, NP + 1}, sr[1] = {-1}, so[2] = {-1, NP};
		is_int(gt_npz_load_as(z, "binaryInputNCHWPacked", GT_U1, 3, sp, &pk, &e), 0, "planes");
		sr[0] = spol[0] = so[0] = sp[0];
		gt_npz_load_as(z, "policy", GT_F4, 2, spol, &po, &e);
		gt_npz_load_as(z, "value", GT_F4, 1, sr, &va, &e);
		gt_npz_load_as(z, "score", GT_F4, 1, sr, &sc, &e);
		gt_npz_load_as(z, "ownership", GT_F4, 2, so, &ow, &e);
		is_int(gt_npz_load_as(z, "policy_next", GT_F4, 2, spol, &pn, &e), 0, "policy_next");
		is_int(gt_npz_load_as(z, "policy_next_mask", GT_U1, 1, sr, &pm, &e), 0,
		       "policy_next_mask");
		is_int(sp[0], s == 0 ? 2 : 1, "shard %d rows", s);
		for (long i = 0; i < sp[0]; i++) {
			const float *P = (float *)po.data + i * (NP + 1), *O = (float *)ow.data + i * NP;
			const float *Q = (float *)pn.data + i * (NP + 1);
			int qm = ((uint8_t *)pm.data)[i];
			double qs = 0;
			for (int p = 0; p <= NP; p++)
				qs += Q[p];
			float v = ((float *)va.data)[i], score = ((float *)sc.data)[i];
			const uint8_t *B = pk.data;
			if (score == 3.5f) {
				found++;
				ok(P[E5] == 1 && v == 1, "position 0: policy on E5 (40), value +1 for Black");
				ok(O[0] == 1 && O[8] == -1, "position 0: ownership Black's view");
				ok(bit(B, C, pb, i, 0, 80) && !bit(B, C, pb, i, 1, E5) && !bit(B, C, pb, i, 2, E5),
				   "position 0: on-board plane set, no stones");
				ok(qm == 1 && Q[C3] == 1 && qs == 1,
				   "position 0: the reply is position 1's policy (C3), mask 1");
			} else if (score == 100 - 3.5f) {
				found++;
				ok(P[C3] == 1 && v == -1, "position 1: policy on C3, value -1 for White");
				ok(O[0] == -1 && O[8] == 1 && O[4] == 0, "position 1: ownership White's view");
				ok(!bit(B, C, pb, i, 1, E5) && bit(B, C, pb, i, 2, E5),
				   "position 1: E5 is the opponent's stone");
				ok(qm == 1 && Q[D2] == 1 && qs == 1,
				   "position 1: the reply is position 2's policy (D2), mask 1");
			} else if (score == 200 + 3.5f) {
				found++;
				ok(P[D2] == 1 && v == 1, "position 2: policy on D2");
				ok(bit(B, C, pb, i, 1, E5) && bit(B, C, pb, i, 2, C3) && !bit(B, C, pb, i, 1, C3),
				   "position 2: own E5, opponent C3");
				ok(qm == 2 && Q[G7] == 1 && qs == 1,
				   "position 2: position 3 had no full search: the move played, G7, mask 2");
			}
		}
		free(pk.data), free(po.data), free(va.data), free(sc.data), free(ow.data), free(mt.data);
		free(pn.data), free(pm.data);
		gt_npz_close(z);
	}
	is_int(found, 3, "the three kept rows are all there");
}

/* a handicap game: Black stones on C3 and G7 set up, White moves first */
static void check_handicap(void)
{
	char out[512], path[600];
	snprintf(out, sizeof out, "%s/hc", dir);
	gt_shard_opts o;
	gt_shard_opts_init(&o);
	o.enc = gt_shard_encoder_basic();
	gt_error e = {0};
	gt_shard_writer *w = gt_shard_writer_new(out, &o, &e);
	int16_t black[2] = {C3, G7}, mv[1] = {E5};
	static float p0[NP + 1];
	memset(p0, 0, sizeof p0);
	p0[E5] = 1;
	gt_position pos[1] = {{0, GT_WHITE, p0, NAN, NAN, 0, 1, 2.0f, 0, 0, 0}};
	gt_record r;
	bare_record(&r, 0.5, 1, mv);
	r.nsetup[GT_BLACK] = 2;
	r.setup[GT_BLACK] = black;
	r.first_to_move = GT_WHITE;
	r.winner = GT_WIN_WHITE;
	r.score = -12.5;
	r.npos = 1;
	r.pos = pos;
	is_int(gt_shard_add_record(w, &r, &e), 0, "handicap game added");
	gt_shard_flush(w, &e);
	gt_shard_writer_free(w);
	snprintf(path, sizeof path, "%s/run_000/games_00000.npz", out);
	gt_npz *z = gt_npz_open(path, &e);
	if (!ok(z != NULL, "handicap shard opens"))
		return;
	gt_npz_array pk, va, sc, gl, wt, pn, pm;
	gt_npz_load(z, "policy_next", &pn, &e);
	gt_npz_load(z, "policy_next_mask", &pm, &e);
	double qs = 0;
	for (int p = 0; p <= NP; p++)
		qs += ((float *)pn.data)[p];
	ok(((uint8_t *)pm.data)[0] == 0 && qs == 0, "the game's last move: no reply, mask 0, zeros");
	free(pn.data), free(pm.data);
	gt_npz_load(z, "binaryInputNCHWPacked", &pk, &e);
	gt_npz_load(z, "value", &va, &e);
	gt_npz_load(z, "score", &sc, &e);
	gt_npz_load(z, "globalInputNC", &gl, &e);
	gt_npz_load(z, "weight", &wt, &e);
	const uint8_t *B = pk.data;
	int pb = (NP + 7) / 8;
	ok(pk.shape[0] == 1 && bit(B, 5, pb, 0, 2, C3) && bit(B, 5, pb, 0, 2, G7) &&
	   !bit(B, 5, pb, 0, 1, C3), "White to move: the handicap stones are the opponent's");
	ok(((float *)va.data)[0] == 1 && ((float *)sc.data)[0] == 12.5f,
	   "value +1 and score +12.5 for White, from the result");
	is_dbl(((float *)gl.data)[0], 0.5 / 20, 1e-7, "komi global: +komi/20 for White");
	is_dbl(((float *)wt.data)[0], 2.0, 0, "weight kept");
	free(pk.data), free(va.data), free(sc.data), free(gl.data), free(wt.data);
	gt_npz_close(z);
}

/* test encoder: plane 0 own stones, 1 opponent stones, 2 the last move;
 * global 0 = number of stones */
static int test_encode(const gt_board *b, float *planes, float *globals, void *ctx)
{
	int np = b->n * b->n;
	memset(planes, 0, sizeof(float) * 3 * np);
	for (int p = 0; p < np; p++)
		if (b->color[p])
			planes[(b->color[p] == b->to_move ? 0 : 1) * np + p] = 1;
	if (b->nmoves && b->hist_move[b->nmoves - 1] < np)
		planes[2 * np + b->hist_move[b->nmoves - 1]] = 1;
	globals[0] = b->nstones[1] + b->nstones[2];
	return 0;
}

static void check_window(void)
{
	char out[512], path[600];
	snprintf(out, sizeof out, "%s/win", dir);
	gt_shard_encoder enc = {99, 3, 1, test_encode, NULL};
	gt_shard_opts o;
	gt_shard_opts_init(&o);
	o.rows = 50;
	o.seed = 1;
	o.enc = &enc;
	gt_error e = {0};
	gt_shard_writer *w = gt_shard_writer_new(out, &o, &e);
	/* 40 games of a random walk: each position's policy is one-hot on the
	 * move played before it (so that it sits where plane 2 has its bit) */
	uint64_t s = 99;
	int16_t mv[30];
	static float pp[30][NP + 1];
	gt_position pos[30];
	static float ow[NP];
	for (int g = 0; g < 40; g++) {
		gt_board b;
		gt_board_init(&b, N, gt_rules_find("chinese"), 7.5);
		int nm = 0;
		while (nm < 30) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			int p = (int)((s >> 33) % NP);
			if (gt_board_play(&b, b.to_move, p) == 0)
				mv[nm++] = (int16_t)p;
		}
		gt_record r;
		bare_record(&r, 7.5, nm, mv);
		for (int p = 0; p < NP; p++)
			ow[p] = (float)(p % 7) / 7;
		r.ownership = ow;
		for (int j = 1; j < nm; j++) {
			memset(pp[j], 0, sizeof pp[j]);
			pp[j][mv[j - 1]] = 1;
			pos[j - 1] = (gt_position){j, j % 2 ? GT_WHITE : GT_BLACK, pp[j], 0.5f, 1.0f * g,
			                           1, 1, 1.0f, 0, 0, 0};
		}
		r.npos = nm - 1;
		r.pos = pos;
		if (gt_shard_add_record(w, &r, &e))
			diag("add: %s", e.text);
	}
	gt_shard_flush(w, &e);
	const gt_shard_stats *st = gt_shard_writer_stats(w);
	is_int(st->rows, 40 * 29, "40 games, 29 rows each");
	is_int(st->shards, 24, "24 shards of up to 50 rows");
	gt_shard_writer_free(w);

	/* the window: the newest 120 rows (shards 23 (10 rows), 22, 21 and 60 of 20) */
	gt_shard_window_info in;
	gt_shard_window *win = window_opens(out, 120, 5, "window opens", &in);
	if (!win)
		return;
	is_int(in.rows, 120, "window holds 120 rows");
	is_int(in.shards, 4, "from the 4 newest shards");
	ok(in.n == N && in.nplanes == 3 && in.nglobals == 1 && in.feature_version == 99,
	   "window geometry 9x9, C 3, G 1, features 99");

	/* hand-checked: a row whose last move is D2 (3,7); symmetry 1 (rotate 90
	 * clockwise, (x,y) -> (8-y, x)) puts it at (1,3) = 28 */
	enum { B = 256 };
	float *planes = malloc(sizeof(float) * B * 3 * NP), *policy = malloc(sizeof(float) * B * (NP + 1));
	float *owo = malloc(sizeof(float) * B * NP), *glob = malloc(sizeof(float) * B);
	int *sym = malloc(sizeof(int) * B);
	long *idx = malloc(sizeof(long) * B);
	gt_shard_batch bt = {planes, glob, policy, NULL, NULL, owo, NULL, NULL, sym, idx, NULL, NULL};
	long row = -1;
	for (long i = 0; i < in.rows && row < 0; i++) {
		gt_shard_window_get(win, i, 0, &bt, 0);
		if (policy[D2] == 1)
			row = i;
	}
	if (row < 0) {
		/* no D2 in the walk: fall back to any row, checked by formula below */
		row = 0;
		diag("no row with D2; using row 0");
	}
	gt_shard_window_get(win, row, 0, &bt, 0);
	int p0 = -1;
	for (int p = 0; p <= NP; p++)
		if (policy[p] == 1)
			p0 = p;
	gt_shard_window_get(win, row, 1, &bt, 1);
	int x = p0 % N, y = p0 / N, q = y * 0 + x * N + (8 - y); /* (8-y, x) */
	if (p0 == D2)
		is_int(q, 28, "D2 under rotation 90 is (1,3) = 28");
	ok(policy[NP + 1 + q] == 1 && planes[3 * NP + 2 * NP + q] == 1,
	   "rotated: policy and last-move plane both at %d", q);
	ok(planes[2 * NP + p0] == 1 && policy[p0] == 1, "identity: both at %d", p0);
	/* ownership pattern (p % 7) / 7 Black's view: rotated point (8-y, x) of
	 * the original (x, y) carries its value */
	int okown = 1;
	for (int p = 0; p < NP; p++) {
		int px = p % N, py = p / N, pq = px * N + (8 - py);
		if (owo[NP + pq] != owo[p])
			okown = 0;
	}
	ok(okown, "ownership rotated with the planes");

	/* sampled batches: every sample's policy one-hot sits on the last-move
	 * plane's bit, and matches an unpacking by gt_sym_point */
	int consistent = 0, symseen[8] = {0};
	gt_shard_window_sample(win, B, &bt);
	for (int i = 0; i < B; i++) {
		int pa = -1, pl = -1, nb = 0;
		for (int p = 0; p < NP; p++) {
			if (policy[i * (NP + 1) + p] == 1)
				pa = p;
			if (planes[i * 3 * NP + 2 * NP + p] == 1)
				pl = p, nb++;
		}
		float ref[NP + 1];
		gt_shard_batch one = {NULL, NULL, ref, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
		gt_shard_window_get(win, idx[i], 0, &one, 0);
		int porig = -1;
		for (int p = 0; p < NP; p++)
			if (ref[p] == 1)
				porig = p;
		symseen[sym[i]]++;
		consistent += pa >= 0 && pa == pl && nb == 1 && pa == gt_sym_point(N, sym[i], porig);
	}
	is_int(consistent, B, "all %d samples: policy, planes and symmetry agree", B);
	int all8 = 1;
	for (int k = 0; k < 8; k++)
		all8 &= symseen[k] > 10;
	ok(all8, "all 8 symmetries drawn");

	/* the opponent's reply, kept by a window that asks for it: under each
	 * sample's symmetry as the policy, from an unpacking by gt_sym_point;
	 * the last row of a game has none; a window that does not ask gives
	 * zeros and mask 0 */
	{
		float *pn = malloc(sizeof(float) * B * (NP + 1)), pm[B], rn[NP + 1], rm[1];
		gt_shard_window *rw = gt_shard_window_open_with(out, 120, 9, 5, GT_SHARD_WINDOW_REPLY, &e);
		gt_shard_window_info ri;
		gt_shard_window_get_info(rw, &ri);
		ok(ri.rows == 120 && ri.reply_rows > 100 && ri.reply_rows < 120,
		   "reply window: %ld of 120 rows have a reply (a game's last row has none)",
		   ri.reply_rows);
		gt_shard_batch rb = {planes, glob, policy, NULL, NULL, NULL, NULL, NULL, sym, idx, pn, pm};
		gt_shard_batch one = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, rn, rm};
		gt_shard_window_sample(rw, B, &rb);
		int agree = 0, with = 0;
		for (int i = 0; i < B; i++) {
			gt_shard_window_get(rw, idx[i], 0, &one, 0);
			int g = pm[i] == rm[0] && pn[i * (NP + 1) + NP] == rn[NP];
			double sum = 0;
			for (int p = 0; p < NP; p++) {
				g &= pn[i * (NP + 1) + gt_sym_point(N, sym[i], p)] == rn[p];
				sum += rn[p];
			}
			g &= rm[0] == 1 ? sum + rn[NP] == 1 : rm[0] == 0 && sum + rn[NP] == 0;
			agree += g;
			with += pm[i] != 0;
		}
		is_int(agree, B, "all %d samples: the reply under the sample's symmetry", B);
		ok(with > B / 2 && with < B, "%d of %d samples with a reply", with, B);
		gt_shard_window_free(rw);
		gt_shard_window_get(win, 0, 3, &one, 0);
		double sum = 0;
		for (int p = 0; p <= NP; p++)
			sum += rn[p];
		ok(rm[0] == 0 && sum == 0, "a window without GT_SHARD_WINDOW_REPLY: zeros, mask 0");
		free(pn);
	}

	/* a corrupted newest shard is skipped by its sha256 */
	snprintf(path, sizeof path, "%s/run_000/games_00023.npz", out);
	FILE *f = fopen(path, "r+b");
	fseek(f, 40, SEEK_SET);
	fputc(0x55, f);
	fclose(f);
	gt_shard_window_free(win);
	win = gt_shard_window_open(out, 120, 9, 5, &e);
	gt_shard_window_get_info(win, &in);
	ok(in.skipped == 1 && strstr(in.last_skip, "sha256"), "corrupt shard skipped: %s", in.last_skip);
	is_int(in.rows, 120, "window still full");
	gt_shard_window_free(win);

	/* a torn manifest line (writer killed mid-line) is skipped, and the next
	 * writer starts on a fresh line */
	snprintf(path, sizeof path, "%s/manifest", out);
	f = fopen(path, "a");
	fputs("{\"file\":\"run_000/games_000", f);
	fclose(f);
	w = gt_shard_writer_new(out, &o, &e);
	gt_record r;
	bare_record(&r, 0, 2, mv);
	r.npos = 1;
	r.pos = pos;
	gt_shard_add_record(w, &r, &e);
	gt_shard_flush(w, &e);
	gt_shard_writer_free(w);
	is_int(lines(path), 26, "manifest: 24 + torn + 1 lines");
	win = gt_shard_window_open(out, 10, 0, 5, &e);
	gt_shard_window_get_info(win, &in);
	ok(win && in.rows == 10 && in.shards == 2, "window after a torn line: the new shard first");
	gt_shard_window_free(win);
	ok(gt_shard_window_open(out, 10, 13, 5, &e) == NULL, "no 13x13 shards: %s", e.text);
	free(planes), free(policy), free(owo), free(glob), free(sym), free(idx);
}

/* shards written by numpy alone (tests/shard_check.py mkshard), read by the
 * window: the format as documented, not as lib/shard happens to write it */
static void check_numpy_shards(void)
{
	char out[512], cmd[1024];
	const char *src = test_src();
	if (system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") != 0) {
		diag("no numpy: numpy-written shards not checked");
		return;
	}
	snprintf(out, sizeof out, "%s/np", dir);
	snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/tests/shard_check.py mkshard %s", src, out);
	is_int(system(cmd), 0, "numpy writes two 7x7 shards");
	/* 30 rows: all 20 of shard 1 (newest), the first 10 of shard 0 */
	gt_shard_window_info in;
	gt_shard_window *w = window_opens(out, 30, 3, "window over numpy's shards", &in);
	if (!w)
		return;
	ok(in.rows == 30 && in.shards == 2 && in.n == 7 && in.nplanes == 2 && in.nglobals == 1 &&
	   in.feature_version == 42, "30 rows of 7x7, 2 planes, 1 global, features 42");
	float planes[2 * 49], glob[1], policy[50], value[1], score[1], own[49], om[1], wt[1];
	gt_shard_batch b = {planes, glob, policy, value, score, own, om, wt, NULL, NULL, NULL, NULL};
	int good = 0;
	for (long row = 0; row < 30; row++) {
		int s = row < 20 ? 1 : 0, i = row < 20 ? (int)row : (int)row - 20;
		int k = (int)(row % 8), p = (i + 20 * s) % 49, q = gt_sym_point(7, k, p);
		gt_shard_window_get(w, row, k, &b, 0);
		int g = 1, stones = 0;
		for (int t = 0; t < 49; t++) {
			g &= planes[t] == 1;
			stones += planes[49 + t] == 1;
		}
		g &= stones == 1 && planes[49 + q] == 1 && policy[q] == 1 && policy[49] == 0;
		g &= value[0] == (i % 2 ? -1 : 1) && score[0] == 100 * s + i && wt[0] == 0.5f &&
		     om[0] == 1 && glob[0] == s;
		for (int t = 0; t < 49; t++) {
			int x = t % 7;
			g &= own[gt_sym_point(7, k, t)] == (x < 3 ? 1 : -1);
		}
		good += g;
	}
	is_int(good, 30, "every row as numpy wrote it, under symmetry row %% 8");
	gt_shard_window_free(w);
	/* shards without the opponent's reply (older builds): none */
	gt_error e = {0};
	w = gt_shard_window_open_with(out, 30, 0, 3, GT_SHARD_WINDOW_REPLY, &e);
	float pn[50], pm[1];
	gt_shard_batch r = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, pn, pm};
	gt_shard_window_get_info(w, &in);
	int none = w && in.rows == 30 && in.reply_rows == 0;
	for (long row = 0; none && row < 30; row++) {
		gt_shard_window_get(w, row, 1, &r, 0);
		none &= pm[0] == 0 && pn[0] == 0 && pn[49] == 0;
	}
	ok(none, "shards without policy_next: read, every row without a reply");
	gt_shard_window_free(w);
}

/* KataGo's keys (opts.katago_pos_len, gt-shard(5)) of the hand-made game on
 * an 11 x 11 grid, the values worked out by hand from KataGo's
 * cpp/dataio/trainingwrite.cpp: point (x, y) is y*11 + x, pass 121 */
static void check_katago_keys(void)
{
	char out[512], path[600];
	snprintf(out, sizeof out, "%s/kata", dir);
	gt_error e = {0};
	gt_shard_opts o;
	gt_shard_opts_init(&o);
	o.katago_pos_len = 20;
	ok(!gt_shard_writer_new(out, &o, &e), "position length 20 refused: %s", e.text);
	o.katago_pos_len = 7;
	gt_shard_writer *w = gt_shard_writer_new(out, &o, &e);
	gt_record r;
	gt_position pos[5];
	memset(pos, 0, sizeof pos); /* no root values */
	make_game(&r, pos);
	r.npos = 5;
	r.pos = pos;
	is_int(gt_shard_add_record(w, &r, &e), GT_EUNSUPPORTED, "9x9 on a 7 x 7 grid: %s", e.text);
	gt_shard_writer_free(w);
	o.katago_pos_len = 11;
	w = gt_shard_writer_new(out, &o, &e);
	is_int(gt_shard_add_record(w, &r, &e), 0, "the game with KataGo's keys");
	is_int(gt_shard_flush(w, &e), 0, "flushed");
	gt_shard_writer_free(w);
	/* rows of moves 0, 1, 2 (3: no full search; 4: NaN policy) */
	snprintf(path, sizeof path, "%s/run_000/games_00000.npz", out);
	gt_npz *z = gt_npz_open(path, &e);
	ok(z != NULL, "shard opens");
	if (!z)
		return;
	is_int(gt_npz_count(z), 7, "seven arrays, no meta");
	ok(gt_npz_find(z, "meta") == GT_ENOTFOUND && gt_npz_find(z, "policy") == GT_ENOTFOUND,
	   "none of gt's own");
	gt_npz_array bin, pol, tg, sd, vt;
	int64_t s_bin[3] = {3, 22, 16}, s_pol[3] = {3, 2, 122}, s_tg[2] = {3, 80}, s_sd[2] = {3, 362},
		s_vt[4] = {3, 5, 11, 11};
	int rc = gt_npz_load_as(z, "binaryInputNCHWPacked", GT_U1, 3, s_bin, &bin, &e);
	rc |= gt_npz_load_as(z, "policyTargetsNCMove", GT_I2, 3, s_pol, &pol, &e);
	rc |= gt_npz_load_as(z, "globalTargetsNC", GT_F4, 2, s_tg, &tg, &e);
	rc |= gt_npz_load_as(z, "scoreDistrN", GT_I1, 2, s_sd, &sd, &e);
	rc |= gt_npz_load_as(z, "valueTargetsNCHW", GT_I1, 4, s_vt, &vt, &e);
	gt_npz_close(z);
	is_int(rc, 0, "dtypes and shapes: %s", rc ? e.text : "");
	if (rc)
		return;
	const float *g = tg.data;
	int i = 0; /* the row of move 1 (White to move after B E5), by channel 51 */
	while (i < 3 && g[i * 80 + 51] != 1)
		i++;
	ok(i < 3, "the row of move 1");
	if (i < 3) {
		const uint8_t *b = (const uint8_t *)bin.data + i * 22 * 16;
		const int16_t *pp = (const int16_t *)pol.data + i * 2 * 122;
		const int8_t *d = (const int8_t *)sd.data + i * 362, *v = (const int8_t *)vt.data + i * 5 * 121;
		const float *t = g + i * 80;
		int e5 = 4 * 11 + 4, c3 = 6 * 11 + 2, off = 4 * 11 + 9;
		ok(!(b[0 * 16 + (off >> 3)] >> (7 - (off & 7)) & 1), "on board: (9, 4) is not");
		ok(b[2 * 16 + (e5 >> 3)] >> (7 - (e5 & 7)) & 1, "E5 is the opponent's stone, at 48");
		ok(b[9 * 16 + (e5 >> 3)] >> (7 - (e5 & 7)) & 1, "plane 9: the last move, E5");
		is_int(pp[c3], 32000, "policy: C3 at 68, 32000");
		is_int(pp[121], 0, "pass at 121: 0");
		is_int(pp[122 + 7 * 11 + 3], 32000, "next move's policy: D2 at 80");
		is_int(pp[122 + 5], 0, "... 0 elsewhere");
		ok(t[0] == 0 && t[1] == 1 && t[2] == 0, "White lost: win 0, loss 1, no result 0");
		is_dbl(t[20], 96.5, 0, "score from White's view (the row's)");
		ok(t[25] == 1 && t[26] == 1 && t[27] == 1 && t[28] == 1 && t[24] == 1 && t[33] == 1 &&
		   t[34] == 1, "weights: row 1, policy 1, ownership 1, next move 1, td 0 (no root "
		   "values), future boards 1, scoring 1");
		ok(t[4] == 0 && t[5] == 1 && t[19] == (float)96.5 && t[22] == 0,
		   "td-like targets: the result; variance time 0");
		is_dbl(t[47], 7.5, 0, "komi from White's view");
		ok(t[60] == 100 && t[63] == 3, "visits 100, data format 3");
		/* mid = 121 + 60; round(96.5) = 97: buckets 277 and 278, lambda 0 */
		ok(d[277] == 100 && d[278] == 0, "score distribution: 100 in bucket 277 (96.5)");
		ok(v[0] == -1 && v[8] == 1 && v[4] == 0 && v[3 * 11 + 8] == 1 && v[9] == 0,
		   "ownership from White's view, off the board 0");
		ok(v[121] == 0 && v[121 + 5] == 0, "seki channel 0");
		ok(v[242 + e5] == -1 && v[242 + c3] == 1 && v[242 + 7 * 11 + 3] == -1 &&
		   v[242 + 2 * 11 + 6] == 1 && v[363 + c3] == 1 && v[242 + 0] == 0,
		   "future boards (the last one): E5, D2 the opponent's, C3, G7 White's");
		ok(v[484] == -120 && v[484 + 8] == 120 && v[484 + 9] == 0, "scoring: ownership times 120");
	}
	free(bin.data), free(pol.data), free(tg.data), free(sd.data), free(vt.data);
	ok(gt_shard_window_open(out, 10, 0, 5, &e) == NULL && strstr(e.text, "no usable shard (0 skipped)"),
	   "the window skips KataGo's keys: %s", e.text);
}

int main(void)
{
	test_tmpdir(dir, sizeof dir, "shard");
	check_writer();
	check_handicap();
	check_window();
	check_numpy_shards();
	check_katago_keys();
	test_rmdir(dir);
	return done_testing();
}
