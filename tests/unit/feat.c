/* feat: the input features on hand-worked positions, and symmetry:
 * features of a transformed game equal the transformed features. */
#include "tap.h"
#include "board.h"
#include "feat.h"
#include "gt.h"
#include "sym.h"

#define PL(pl, n, c, p) ((pl)[(c) * (n) * (n) + (p)])

static unsigned long long rs = 2024;
static unsigned rnd(unsigned k)
{
	rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rs >> 33) % k);
}

static int plane_sum(const float *pl, int n, int c)
{
	int s = 0;
	for (int p = 0; p < n * n; p++)
		s += PL(pl, n, c, p) != 0;
	return s;
}

int main(void)
{
	static gt_board b, t;
	float pl[GT_FEAT_PLANES * GT_MAX_PTS], g[GT_FEAT_GLOBALS];
	float pl2[GT_FEAT_PLANES * GT_MAX_PTS], g2[GT_FEAT_GLOBALS];
	const gt_rules *chinese = gt_rules_find("chinese"), *tt = gt_rules_find("tromp-taylor");

	/* liberties, hand-counted: X(1,0) 1 liberty, X(0,1) 2, O(2,0) 2, O(1,1) 2 */
	is_int(gt_board_from_ascii(&b, 5, chinese, 7.5,
	                           ". X O . ."
	                           "X O . . ."
	                           ". . . . ."
	                           ". . . . ."
	                           ". . . . .", GT_BLACK), 0, "position 1");
	is_int(gt_feat_encode(&b, pl, g), 0, "encode");
	is_int(plane_sum(pl, 5, 0), 25, "on-board plane all ones");
	ok(PL(pl, 5, 1, 1) == 1 && PL(pl, 5, 1, 5) == 1 && plane_sum(pl, 5, 1) == 2,
	   "own stones (black to move)");
	ok(PL(pl, 5, 2, 2) == 1 && PL(pl, 5, 2, 6) == 1 && plane_sum(pl, 5, 2) == 2,
	   "opponent stones");
	ok(PL(pl, 5, 3, 1) == 1 && plane_sum(pl, 5, 3) == 1, "own 1 liberty: B2 (x1,y0)");
	ok(PL(pl, 5, 4, 5) == 1 && plane_sum(pl, 5, 4) == 1, "own 2 liberties: (x0,y1)");
	is_int(plane_sum(pl, 5, 5), 0, "own 3+ liberties: none");
	is_int(plane_sum(pl, 5, 6), 0, "opponent 1 liberty: none");
	ok(PL(pl, 5, 7, 2) == 1 && PL(pl, 5, 7, 6) == 1 && plane_sum(pl, 5, 7) == 2,
	   "opponent 2 liberties");
	is_dbl(g[0], -7.5 / 20, 1e-7, "komi from Black's view is -7.5/20");
	ok(g[6] == 0 && g[7] == 1 && g[8] == 0, "ruleset one-hot: chinese is id 1");
	ok(g[9] == 1 && g[10] == 0, "chinese: superko, no multi-stone suicide");
	for (int h = 0; h < 5; h++)
		ok(g[1 + h] == 0 && plane_sum(pl, 5, 10 + h) == 0, "no move %d ago", h + 1);
	gt_board_set_to_move(&b, GT_WHITE);
	gt_feat_encode(&b, pl, g);
	is_dbl(g[0], 7.5 / 20, 1e-7, "komi from White's view is +7.5/20");
	ok(PL(pl, 5, 1, 2) == 1 && PL(pl, 5, 2, 1) == 1, "white to move: own is white");
	ok(PL(pl, 5, 6, 1) == 1 && PL(pl, 5, 4, 2) == 1, "white to move: liberty planes swap");

	/* ko: black captures at (2,1); white may not retake at (1,1) */
	gt_board_from_ascii(&b, 5, tt, 6,
	                    ". X O . ."
	                    "X O . O ."
	                    ". X O . ."
	                    ". . . . ."
	                    ". . . . .", GT_BLACK);
	is_int(gt_board_play(&b, GT_BLACK, 7), 0, "black captures");
	gt_feat_encode(&b, pl, g);
	ok(b.ko == 6 && PL(pl, 5, 9, 6) == 1 && plane_sum(pl, 5, 9) == 1, "ko-ban plane at (1,1)");
	ok(PL(pl, 5, 10, 7) == 1 && plane_sum(pl, 5, 10) == 1, "last move plane");
	ok(PL(pl, 5, 6, 7) == 1, "the capturing stone is in atari (opponent 1 liberty)");
	ok(g[6] == 1 && g[9] == 1 && g[10] == 1, "tromp-taylor: id 0, superko, multi-suicide");
	is_int(gt_board_play(&b, GT_WHITE, 25), 0, "white passes");
	is_int(gt_board_play(&b, GT_BLACK, 20), 0, "black plays A1");
	gt_feat_encode(&b, pl, g);
	ok(PL(pl, 5, 10, 20) == 1 && plane_sum(pl, 5, 11) == 0 && PL(pl, 5, 12, 7) == 1,
	   "history planes: A1 1 ago, pass 2 ago, capture 3 ago");
	ok(g[1] == 0 && g[2] == 1 && g[3] == 0, "pass flag 2 moves ago");
	is_int(plane_sum(pl, 5, 9), 0, "ko ban gone after other moves");
	ok(gt_feat_encode(&b, NULL, g) == 0 && gt_feat_encode(&b, pl, NULL) == 0,
	   "either output may be NULL");

	/* symmetry: random games with captures on 7x7 and their images */
	int n = 7, np = n * n, games_ok = 1, direct_ok = 1, moves_total = 0;
	for (int game = 0; game < 3; game++) {
		gt_board_init(&b, n, tt, 7.5);
		int16_t mv[GT_MAX_PTS];
		int hist[200], nm = 0;
		for (int i = 0; i < 60; i++) {
			int k = gt_board_legal_moves(&b, b.to_move, mv);
			int m = rnd(10) == 0 || k == 0 ? np : mv[rnd(k)];
			if (gt_board_play(&b, b.to_move, m) != 0)
				break;
			hist[nm++] = m;
			if (gt_board_over(&b))
				break;
		}
		moves_total += nm;
		for (int k = 0; k < GT_NSYM; k++) {
			gt_board_init(&t, n, tt, 7.5);
			for (int i = 0; i < nm; i++)
				if (gt_board_play(&t, t.to_move, gt_sym_point(n, k, hist[i])) != 0)
					games_ok = 0;
			gt_feat_encode_sym(&b, k, pl, g);
			gt_feat_encode(&t, pl2, g2);
			if (memcmp(pl, pl2, sizeof(float) * GT_FEAT_PLANES * np) ||
			    memcmp(g, g2, sizeof g))
				games_ok = 0;
			/* and the same by transforming the planes afterwards */
			float p0[GT_FEAT_PLANES * GT_MAX_PTS];
			gt_feat_encode(&b, p0, NULL);
			for (int c = 0; c < GT_FEAT_PLANES; c++)
				gt_sym_apply_f(n, k, pl2 + c * np, p0 + c * np);
			if (memcmp(pl, pl2, sizeof(float) * GT_FEAT_PLANES * np))
				direct_ok = 0;
		}
	}
	ok(games_ok, "features of transformed games equal transformed features (3 games, %d moves, 8 symmetries)",
	   moves_total);
	ok(direct_ok, "gt_feat_encode_sym equals gt_sym_apply_f of each plane");
	gt_board_init(&b, 2, tt, 0);
	is_int(gt_feat_encode(&b, pl, g), 0, "2x2 board encodes");
	b.n = 20;
	is_int(gt_feat_encode(&b, pl, g), GT_EINVAL, "board size 20 refused");
	return done_testing();
}
