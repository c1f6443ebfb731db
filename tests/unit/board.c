/*
 * board.c: the rules engine against hand-worked positions and against an
 * independent, slow reference implementation (flood fill over a plain
 * array, every earlier board kept for superko) on thousands of random games.
 */
#include "board.h"
#include "gt.h"
#include "score.h"
#include "tap.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const gt_rules *TT, *CN, *NZ;

static int V(gt_board *b, const char *v)
{
	return gt_vertex_parse(b->n, v);
}

static int play(gt_board *b, const char *v)
{
	return gt_board_play(b, b->to_move, V(b, v));
}

/* ---- hand-worked positions ---- */

/* "Send two, return one": Black throws in at A5 (making A5-B5 a two-stone
 * group in atari), White captures both with C5, and Black's recapture at
 * B5 rebuilds the board of before the throw-in, with White to move instead
 * of Black. Positional superko forbids it, situational allows it. */
static const char *send_two =
	". X . X ."
	"O O X . ."
	". . . . ."
	". . . . ."
	". . . . .";

static void test_send_two_return_one(void)
{
	const gt_rules *rs[2] = {TT, NZ};
	for (int i = 0; i < 2; i++) {
		gt_board b;
		ok(gt_board_from_ascii(&b, 5, rs[i], 0.5, send_two, GT_BLACK) == 0, "%s: diagram", rs[i]->name);
		is_int(play(&b, "A5"), 0, "%s: black throws in at A5", rs[i]->name);
		is_int(play(&b, "C5"), 0, "%s: white captures two at C5", rs[i]->name);
		is_int(b.captures[GT_WHITE], 2, "%s: two stones captured", rs[i]->name);
		is_int(b.ko, -1, "%s: no simple ko after a two-stone capture", rs[i]->name);
		int r = play(&b, "B5");
		if (rs[i] == TT)
			is_int(r, GT_ESUPERKO, "positional superko forbids the return at B5");
		else
			is_int(r, 0, "situational superko allows the return at B5 (other side to move)");
		/* A5 instead is legal under both: it captures nothing */
		if (rs[i] == TT)
			is_int(gt_board_legal(&b, GT_BLACK, V(&b, "A5")), 0, "A5 is still legal");
	}
}

/* Multi-stone suicide: Black at C5 removes its own three stones. */
static const char *suicide =
	"X X . O ."
	"O O O . ."
	". . . . ."
	". . . . O"
	". . . O .";

static void test_suicide(void)
{
	gt_board b;
	char why[128];
	gt_board_from_ascii(&b, 5, TT, 7.5, suicide, GT_BLACK);
	is_int(gt_board_legal(&b, GT_BLACK, V(&b, "E1")), GT_ESUICIDE, "single-stone suicide illegal under tromp-taylor");
	is_int(play(&b, "C5"), 0, "multi-stone suicide legal under tromp-taylor");
	is_int(b.nstones[GT_BLACK], 0, "the three black stones are gone");
	is_int(b.captures[GT_WHITE], 3, "credited to White as captures");
	is_int(b.color[V(&b, "C5")], GT_EMPTY, "C5 is empty again");
	ok(gt_board_check(&b, why) == 0, "invariants after suicide (%s)", why);
	gt_board_from_ascii(&b, 5, CN, 7.5, suicide, GT_BLACK);
	is_int(gt_board_legal(&b, GT_BLACK, V(&b, "C5")), GT_ESUICIDE, "multi-stone suicide illegal under chinese");
	is_int(play(&b, "C5"), GT_ESUICIDE, "play refuses it and ...");
	is_int(b.nstones[GT_BLACK], 2, "... leaves the board unchanged");
	gt_board_from_ascii(&b, 5, NZ, 7.5, suicide, GT_BLACK);
	is_int(gt_board_legal(&b, GT_BLACK, V(&b, "E1")), GT_ESUICIDE, "single-stone suicide illegal under new-zealand");
}

/* Three independent kos; six captures in turn rebuild the first position,
 * so the sixth is cut off by positional superko. Ko 1 and 3 Black can take
 * (at C8 and C4), ko 2 White can (at H8). */
static const char *triple =
	". X O . . . O X ."
	"X O . O . O X . X"
	". X O . . . O X ."
	". . . . . . . . ."
	". X O . . . . . ."
	"X O . O . . . . ."
	". X O . . . . . ."
	". . . . . . . . ."
	". . . . . . . . .";

static void test_triple_ko(void)
{
	gt_board b;
	const char *seq[6] = {"C8", "H8", "C4", "B8", "G8", "B4"};
	gt_board_from_ascii(&b, 9, TT, 7.5, triple, GT_BLACK);
	for (int i = 0; i < 5; i++)
		is_int(play(&b, seq[i]), 0, "triple ko: capture %d at %s", i + 1, seq[i]);
	is_int(b.ko, V(&b, "H8"), "simple-ko ban point after G8 is H8");
	is_int(gt_board_legal(&b, GT_WHITE, V(&b, "H8")), GT_EKO, "white may not retake H8 at once");
	is_int(play(&b, "B4"), GT_ESUPERKO, "the sixth capture B4 repeats the start: superko");
	/* the ban is the other colour's: with Black to move again (SGF allows
	 * two moves in a row), H8 is no ko for Black */
	gt_board_set_to_move(&b, GT_BLACK);
	is_int(b.ko, -1, "changing the side to move lifts the simple-ko ban");
	/* the same cycle with a simple-ko ruleset goes round */
	gt_rules simple = *TT;
	simple.ko = GT_KO_SIMPLE;
	gt_board_from_ascii(&b, 9, &simple, 7.5, triple, GT_BLACK);
	int okall = 1;
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 6; i++)
			okall &= play(&b, seq[i]) == 0;
	ok(okall, "under simple ko the triple ko cycles three times");
}

/* A seki: the black group A4 B5 B4... (eye A5) and the white group (eye E5)
 * share the liberty C5, which neither side can fill. Area: black 9 stones +
 * A5 + the six points of the bottom right = 16, white 7 stones + E5 = 8,
 * C5 neutral. */
static const char *seki =
	". X . O ."
	"X X O O O"
	"O O O X X"
	"X X X X ."
	". . . . .";

static void test_seki(void)
{
	gt_board b, c;
	float own[25];
	gt_board_from_ascii(&b, 5, CN, 0.5, seki, GT_BLACK);
	is_dbl(gt_board_area(&b, own), 16 - 8 - 0.5, 1e-9, "seki: area score B+7.5");
	is_dbl(own[V(&b, "C5")], 0, 0, "the shared liberty C5 is neutral");
	is_dbl(own[V(&b, "A5")], 1, 0, "A5 is black's eye");
	is_dbl(own[V(&b, "E5")], -1, 0, "E5 is white's eye");
	is_dbl(own[V(&b, "B5")], 1, 0, "B5 black stone");
	is_int(gt_board_liberties(&b, V(&b, "B5")), 2, "black seki group has 2 liberties");
	is_int(gt_board_liberties(&b, V(&b, "D5")), 2, "white seki group has 2 liberties");
	/* filling the shared liberty loses the group: it is a seki */
	gt_board_copy(&c, &b);
	is_int(play(&c, "C5"), 0, "black may fill C5 ...");
	is_int(play(&c, "A5"), 0, "... and white captures at A5");
	is_int(c.nstones[GT_BLACK], 6, "three black stones lost");
	gt_board_copy(&c, &b);
	gt_board_set_to_move(&c, GT_WHITE);
	is_int(play(&c, "C5"), 0, "white may fill C5 ...");
	is_int(play(&c, "E5"), 0, "... and black captures at E5");
	is_int(c.nstones[GT_WHITE], 0, "all white stones lost");
	/* integer komi: a draw */
	gt_board_from_ascii(&b, 5, CN, 8, seki, GT_BLACK);
	is_dbl(gt_board_area(&b, NULL), 0, 0, "komi 8 makes it a draw (score 0)");
}

/* territory counting (Japanese), by hand: the 5x5 seki above, and a game
 * with prisoners and a dead stone */
static void test_territory(void)
{
	const gt_rules *jp = gt_rules_find_play("japanese");
	gt_board b, c;
	float own[25];
	uint8_t sk[25], dead[25] = {0};
	ok(jp && jp->scoring == GT_SCORE_TERRITORY && jp->ko == GT_KO_SIMPLE && !jp->multi_suicide,
	   "japanese: territory, simple ko, no suicide");
	ok(gt_rules_find_play("Korean") == jp, "korean is japanese (as KataGo)");
	ok(gt_rules_find_play("chinese") == CN, "find_play knows the area rulesets too");
	/* the seki: A5 and E5 are eyes of groups in seki, C5 their shared
	 * liberty; Black's 6 points of E2 and row 1 are territory: B+5.5 */
	gt_board_from_ascii(&b, 5, jp, 0.5, seki, GT_BLACK);
	is_dbl(gt_board_territory(&b, NULL, own, sk), 6 - 0.5, 1e-9, "seki: territory B+5.5");
	is_dbl(gt_board_score(&b, NULL), 6 - 0.5, 1e-9, "gt_board_score counts by territory");
	ok(own[V(&b, "A5")] == 0 && own[V(&b, "E5")] == 0 && own[V(&b, "C5")] == 0,
	   "the seki eyes and the shared liberty are no one's");
	ok(own[V(&b, "E2")] == 1 && own[V(&b, "A1")] == 1 && own[V(&b, "B5")] == 1 &&
	   own[V(&b, "D5")] == -1, "Black's territory +1, the seki stones their colour's");
	ok(sk[V(&b, "B5")] && sk[V(&b, "A4")] && sk[V(&b, "D5")] && sk[V(&b, "A3")] &&
	   !sk[V(&b, "D3")] && !sk[V(&b, "A2")], "seki: both groups at C5, not Black's living group");
	/* Black walls column B, White column C; White A3 captured by A2, A4;
	 * Black D3 captured by D2, D4, E3; Black E5 left dead in White's area.
	 * Black: A1 A3 A5 and 1 prisoner = 4; White: D1 D3 D5 E1 E2 E4 E5 and
	 * 2 prisoners (D3, the dead E5) = 9; komi 0.5: W+5.5 */
	static const char *const mv[] = {
		"bB1", "wC1", "bB2", "wC2", "bB3", "wC3", "bB4", "wC4", "bB5", "wC5", "wA3", "bA2",
		"wE3", "bA4", "wD2", "bD3", "wD4", "bE5",
	};
	gt_board_init(&b, 5, jp, 0.5);
	for (size_t i = 0; i < sizeof mv / sizeof mv[0]; i++)
		is_int(gt_board_play(&b, mv[i][0] == 'b' ? GT_BLACK : GT_WHITE, V(&b, mv[i] + 1)), 0,
		       "%s", mv[i]);
	ok(b.captures[GT_BLACK] == 1 && b.captures[GT_WHITE] == 1, "one prisoner each");
	dead[V(&b, "E5")] = 1;
	is_dbl(gt_board_territory(&b, dead, own, NULL), 4 - 9 - 0.5, 1e-9, "W+5.5 by territory");
	ok(own[V(&b, "E5")] == -1 && own[V(&b, "D3")] == -1 && own[V(&b, "A3")] == 1 &&
	   own[V(&b, "B3")] == 1, "the dead stone's and the captured points are territory");
	is_dbl(gt_board_territory(&b, NULL, NULL, NULL), 4 - 5 - 0.5, 1e-9,
	       "E5 alive: D5 and E4 are dame, no prisoner for it: W+1.5");
	/* play after two passes rebuilds the board: the prisoners stay */
	gt_board_play(&b, GT_WHITE, GT_PASS(5));
	gt_board_play(&b, GT_BLACK, GT_PASS(5));
	gt_board_copy(&c, &b);
	is_int(gt_score_play_on(&c, GT_WHITE, V(&c, "D5")), 0, "White D5 after two passes");
	is_int(gt_score_play_on(&c, GT_WHITE, V(&c, "E4")), 0, "and E4, capturing E5");
	ok(c.captures[GT_BLACK] == 1 && c.captures[GT_WHITE] == 2, "the prisoners kept, E5 added");
	is_dbl(gt_board_territory(&c, NULL, NULL, NULL), 4 - (5 + 2) - 0.5, 1e-9,
	       "W+3.5: D1 D3 E1 E2 E5 and 2 prisoners against 4");
}

static void test_vertices(void)
{
	char buf[8];
	struct { int n; const char *v; int x, y; } t[] = {
		{19, "Q16", 15, 3}, {19, "D4", 3, 15}, {19, "A19", 0, 0}, {19, "T1", 18, 18},
		{19, "K10", 9, 9}, {9, "J9", 8, 0}, {9, "A1", 0, 8}, {2, "B1", 1, 1},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		int p = gt_vertex_parse(t[i].n, t[i].v);
		is_int(p, t[i].y * t[i].n + t[i].x, "vertex %s on %d", t[i].v, t[i].n);
		is_str(gt_vertex_str(t[i].n, p, buf), t[i].v, "vertex %s prints back", t[i].v);
	}
	is_int(gt_vertex_parse(19, "i5"), GT_EFORMAT, "column I does not exist");
	is_int(gt_vertex_parse(9, "K5"), GT_EOFFBOARD, "K5 off a 9x9 board");
	is_int(gt_vertex_parse(9, "A10"), GT_EOFFBOARD, "A10 off a 9x9 board");
	is_int(gt_vertex_parse(9, "A0"), GT_EOFFBOARD, "A0 off the board");
	is_int(gt_vertex_parse(9, "PASS"), 81, "PASS");
	is_int(gt_vertex_parse(9, "d4x"), GT_EFORMAT, "trailing junk");
	is_int(gt_vertex_parse(9, "d4"), 5 * 9 + 3, "lowercase d4");
	is_str(gt_vertex_str(9, 81, buf), "pass", "pass prints");
}

static void test_misc(void)
{
	gt_board b;
	is_int(gt_board_init(&b, 1, TT, 0), GT_EUNSUPPORTED, "size 1 unsupported");
	is_int(gt_board_init(&b, 20, TT, 0), GT_EUNSUPPORTED, "size 20 unsupported");
	ok(gt_rules_find("japanese") == NULL, "unknown rules are NULL");
	ok(gt_rules_find("Chinese") == CN, "rules names are case-insensitive");
	ok(gt_rules_find("chinese-ogs") == CN, "chinese-ogs is chinese");
	gt_board_init(&b, 9, TT, 7.5);
	is_int(play(&b, "E5"), 0, "E5");
	is_int(play(&b, "E5"), GT_EOCCUPIED, "E5 again: occupied");
	is_int(play(&b, "pass"), 0, "white passes");
	is_int(play(&b, "pass"), 0, "black passes");
	ok(gt_board_over(&b), "two passes end the game");
	is_int(play(&b, "D4"), GT_EOVER, "no move after the end");
	is_dbl(gt_board_area(&b, NULL), 81 - 7.5, 1e-9, "lone stone owns the board");
	is_int(gt_board_undo(&b), 0, "undo");
	ok(!gt_board_over(&b), "undo reopens the game");
	is_int(b.to_move, GT_BLACK, "black to move after undo of its pass");
	gt_board_undo(&b);
	gt_board_undo(&b);
	is_int(b.nstones[GT_BLACK], 0, "undo back to the empty board");
	is_int(gt_board_undo(&b), GT_EINVAL, "nothing left to undo");
	b.max_moves = 3;
	play(&b, "A1");
	play(&b, "B1");
	play(&b, "C1");
	ok(gt_board_over(&b), "the move cap ends the game");
	/* 2x2: the smallest board */
	gt_board_init(&b, 2, TT, 0);
	is_int(play(&b, "A1"), 0, "2x2 A1");
	is_int(play(&b, "B2"), 0, "2x2 B2");
	is_int(play(&b, "B1"), 0, "2x2 B1 captures nothing yet");
	is_int(play(&b, "A2"), 0, "2x2 A2 captures A1 B1");
	is_int(b.nstones[GT_BLACK], 0, "black captured on 2x2");
	/* setup stones */
	gt_board_init(&b, 19, CN, 0.5);
	const char *hc[4] = {"D16", "Q16", "D4", "Q4"};
	for (int i = 0; i < 4; i++)
		gt_board_setup(&b, GT_BLACK, V(&b, hc[i]));
	gt_board_set_to_move(&b, GT_WHITE);
	is_int(b.nstones[GT_BLACK], 4, "four handicap stones");
	is_int(play(&b, "R14"), 0, "white moves first after handicap");
	is_int(gt_board_undo(&b), 0, "undo the first move ...");
	is_int(b.nstones[GT_BLACK], 4, "... keeps the handicap");
	is_int(b.to_move, GT_WHITE, "... and white to move");
}

/* ---- the independent reference: plain arrays and flood fills ---- */

typedef struct {
	int n;
	uint8_t c[GT_MAX_PTS];
} ref_pos;

static int ref_libs(const ref_pos *r, int p, uint8_t *grp)
{
	int n = r->n, stack[GT_MAX_PTS], sp = 0, libs = 0, col = r->c[p];
	uint8_t seen[GT_MAX_PTS] = {0};
	memset(grp, 0, n * n);
	stack[sp++] = p;
	grp[p] = 1;
	while (sp) {
		int s = stack[--sp], x = s % n, y = s / n;
		int nb[4] = {y > 0 ? s - n : -1, x > 0 ? s - 1 : -1, x < n - 1 ? s + 1 : -1, y < n - 1 ? s + n : -1};
		for (int k = 0; k < 4; k++) {
			int q = nb[k];
			if (q < 0)
				continue;
			if (r->c[q] == GT_EMPTY && !seen[q]) {
				seen[q] = 1;
				libs++;
			} else if (r->c[q] == col && !grp[q]) {
				grp[q] = 1;
				stack[sp++] = q;
			}
		}
	}
	return libs;
}

/* ref_play: 0 and the new position, or GT_ESUICIDE / GT_EOCCUPIED
 * (superko is the caller's: it compares with every earlier position). */
static int ref_play(const ref_pos *r, int c, int p, int multi_suicide, ref_pos *out)
{
	int n = r->n;
	uint8_t grp[GT_MAX_PTS];
	if (r->c[p] != GT_EMPTY)
		return GT_EOCCUPIED;
	*out = *r;
	out->c[p] = c;
	int x = p % n, y = p / n;
	int nb[4] = {y > 0 ? p - n : -1, x > 0 ? p - 1 : -1, x < n - 1 ? p + 1 : -1, y < n - 1 ? p + n : -1};
	int captured = 0;
	for (int k = 0; k < 4; k++) {
		int q = nb[k];
		if (q >= 0 && out->c[q] == GT_OTHER(c) && ref_libs(out, q, grp) == 0) {
			for (int s = 0; s < n * n; s++)
				if (grp[s]) {
					out->c[s] = GT_EMPTY;
					captured++;
				}
		}
	}
	if (ref_libs(out, p, grp) == 0) {
		int size = 0;
		for (int s = 0; s < n * n; s++)
			size += grp[s];
		if (size == 1 || !multi_suicide)
			return GT_ESUICIDE;
		for (int s = 0; s < n * n; s++)
			if (grp[s])
				out->c[s] = GT_EMPTY;
	}
	return 0;
}

static uint64_t rng_state = 12345;
static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

/* Random games: after every move the incremental state matches a
 * from-scratch recomputation (gt_board_check), exact liberties match a
 * flood fill, and the legality of EVERY point matches the reference
 * (occupied, suicide, positional or situational superko by comparing whole
 * boards with every earlier position). */
static void test_random_games(void)
{
	static const int sizes[] = {2, 3, 4, 5, 7, 9, 13, 19};
	static ref_pos hist[GT_MAX_HIST + 1];
	static int hist_tm[GT_MAX_HIST + 1];
	long moves = 0, checked = 0, games = 0, superko_seen = 0, suicide_seen = 0, bad_check = 0, bad_legal = 0,
	     bad_libs = 0;
	char why[128] = "";
	for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
		int n = sizes[si];
		int ngames = n <= 5 ? 400 : n <= 9 ? 60 : 6;
		for (int g = 0; g < ngames; g++) {
			const gt_rules *rules = (g % 3 == 0) ? TT : (g % 3 == 1) ? CN : NZ;
			gt_board b;
			gt_board_init(&b, n, rules, 7.5);
			b.max_moves = 3 * n * n;
			hist[0].n = n;
			memset(hist[0].c, 0, sizeof hist[0].c);
			hist_tm[0] = GT_BLACK;
			games++;
			while (!gt_board_over(&b)) {
				int c = b.to_move, k = b.nmoves;
				int16_t legal[GT_MAX_PTS];
				int nl = gt_board_legal_moves(&b, c, legal);
				/* full legality comparison on small boards, sampled on large */
				if (n <= 9 || k % 16 == 0) {
					for (int p = 0; p < n * n; p++) {
						ref_pos after;
						int want = ref_play(&hist[k], c, p, rules->multi_suicide, &after);
						if (want == 0) {
							for (int j = 0; j <= k; j++)
								if (memcmp(hist[j].c, after.c, n * n) == 0 &&
								    (rules->ko != GT_KO_SITUATIONAL || hist_tm[j] == GT_OTHER(c)))
									want = GT_ESUPERKO;
						}
						int got = gt_board_legal(&b, c, p);
						if (got == GT_EKO)
							got = GT_ESUPERKO; /* an immediate retake is a repetition too */
						if (want == GT_ESUPERKO)
							superko_seen++;
						if (want == GT_ESUICIDE && b.color[p] == GT_EMPTY)
							suicide_seen++;
						if (got != want && bad_legal++ < 5)
							diag("size %d move %d point %d: legal %d, reference %d", n, k, p, got, want);
						checked++;
					}
				}
				int mv = GT_PASS(n);
				if (nl > 0 && rnd() % 50 != 0)
					mv = legal[rnd() % nl];
				if (gt_board_play(&b, c, mv) != 0) {
					bad_legal++;
					break;
				}
				moves++;
				if (mv != GT_PASS(n))
					ref_play(&hist[k], c, mv, rules->multi_suicide, &hist[k + 1]);
				else
					hist[k + 1] = hist[k];
				hist_tm[k + 1] = b.to_move;
				if (memcmp(hist[k + 1].c, b.color, n * n) != 0 && bad_check++ < 5)
					diag("size %d move %d: board differs from the reference", n, k);
				if (gt_board_check(&b, why) != 0 && bad_check++ < 5)
					diag("size %d move %d: %s", n, k, why);
				if (k % 7 == 0)
					for (int p = 0; p < n * n; p++)
						if (b.color[p] != GT_EMPTY) {
							uint8_t grp[GT_MAX_PTS];
							if (gt_board_liberties(&b, p) != ref_libs(&hist[k + 1], p, grp))
								bad_libs++;
						}
			}
		}
	}
	diag("%ld random games, %ld moves, %ld legality checks (%ld superko, %ld suicide cases)", games, moves,
	     checked, superko_seen, suicide_seen);
	is_int(bad_check, 0, "incremental groups, pseudo-liberties, hash match a recomputation after every move");
	is_int(bad_legal, 0, "legality of every point matches the reference");
	is_int(bad_libs, 0, "exact liberties match a flood fill");
	ok(superko_seen > 0 && suicide_seen > 0, "the random games met superko and suicide cases");
}

/* A hash collision must never forbid a move: force one by corrupting the
 * stored hash of an earlier position to equal the candidate's. */
static void test_hash_collision(void)
{
	gt_board b, c;
	gt_board_init(&b, 9, TT, 7.5);
	play(&b, "E5");
	play(&b, "C3");
	gt_board_copy(&c, &b);
	gt_board_play(&c, GT_BLACK, V(&c, "G7"));
	b.hist_hash[1] = c.hash; /* pretend position 1 had the same hash */
	b.seen[(c.hash >> 6) & 63] |= 1ULL << (c.hash & 63);
	is_int(gt_board_legal(&b, GT_BLACK, V(&b, "G7")), 0, "a bare hash match does not forbid G7");
}

/* A build with GT_BOARD_CHECK (make SANITIZE=1) checks the invariants
 * after every move: a board whose stone count was spoiled by hand makes
 * the next move abort, saying what is broken. */
static void test_check_after_move(void)
{
#ifdef GT_BOARD_CHECK
	int fd[2];
	if (pipe(fd) != 0) {
		ok(0, "pipe");
		return;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], 2);
		gt_board b;
		gt_board_init(&b, 5, TT, 0);
		play(&b, "C3");
		b.nstones[GT_BLACK]++;
		play(&b, "D4");
		_exit(0);
	}
	close(fd[1]);
	char msg[2048] = "";
	size_t n = 0;
	ssize_t k;
	while (n < sizeof msg - 1 && (k = read(fd[0], msg + n, sizeof msg - 1 - n)) > 0)
		n += (size_t)k;
	msg[n] = 0;
	close(fd[0]);
	int st = 0;
	waitpid(pid, &st, 0);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "a broken invariant aborts the move");
	ok(strstr(msg, "board invariant broken after move 2, white D4: stone counts") != NULL,
	   "and says which: %.80s", msg);
#else
	diag("no invariant check after each move in this build (make SANITIZE=1 has one)");
#endif
}

int main(void)
{
	TT = gt_rules_find("tromp-taylor");
	CN = gt_rules_find("chinese");
	NZ = gt_rules_find("new-zealand");
	test_send_two_return_one();
	test_suicide();
	test_triple_ko();
	test_seki();
	test_territory();
	test_vertices();
	test_misc();
	test_hash_collision();
	test_random_games();
	test_check_after_move();
	return done_testing();
}
