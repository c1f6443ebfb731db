/* katafeat: KataGo's input features on hand-worked positions: ladders
 * (which first moves work), the pass-alive area, history and ko planes,
 * the komi inputs and their triangle wave (KataGo's nninputs.cpp by hand). */
#include "tap.h"
#include "board.h"
#include "gt.h"
#include "katafeat.h"

#define PL(pl, n, c, x, y) ((pl)[(c) * (n) * (n) + (y) * (n) + (x)])

static float pl[GT_KATAFEAT_PLANES * GT_MAX_PTS], g[GT_KATAFEAT_GLOBALS];

static int count(int n, int c)
{
	int s = 0;
	for (int p = 0; p < n * n; p++)
		s += pl[c * n * n + p] != 0;
	return s;
}

int main(void)
{
	static gt_board b;
	const gt_rules *cn = gt_rules_find("chinese");
	/* 2 liberties, attacker first: White E5 (4,4) with Black D5, E6, F4;
	 * both of White's liberties start a ladder that works on an empty board */
	const char *lad2 =
		". . . . . . . . ."
		". . . . . . . . ."
		". . . . . . . . ."
		". . . . X . . . ."
		". . . X O . . . ."
		". . . . . X . . ."
		". . . . . . . . ."
		". . . . . . . . ."
		". . . . . . . . .";
	gt_board_from_ascii(&b, 9, cn, 7.5, lad2, GT_BLACK);
	int16_t w[2];
	int nw = 0;
	ok(gt_katafeat_ladder(&b, 4 * 9 + 4, w, &nw) == 1 && nw == 2, "2 liberties: ladder, both moves work");
	gt_katafeat_encode(&b, -1, -1, NULL, pl, g);
	ok(PL(pl, 9, 14, 4, 4) == 1 && count(9, 14) == 1, "plane 14: the laddered white stone only");
	ok(PL(pl, 9, 17, 5, 4) == 1 && PL(pl, 9, 17, 4, 5) == 1 && count(9, 17) == 2,
	   "plane 17: both working moves (White is the opponent of Black to move)");
	/* a white breaker at H8 (7,1) on the up-right path */
	gt_board_from_ascii(&b, 9, cn, 7.5, lad2, GT_BLACK);
	gt_board_setup(&b, GT_WHITE, 1 * 9 + 7);
	ok(gt_katafeat_ladder(&b, 4 * 9 + 4, w, &nw) == 1 && nw == 1 && w[0] == 4 * 9 + 5,
	   "breaker up-right: only F5, driving White down-left, works");
	/* White to move: plane 17 is only for the opponent's groups */
	gt_board_from_ascii(&b, 9, cn, 7.5, lad2, GT_WHITE);
	gt_board_setup(&b, GT_WHITE, 1 * 9 + 7);
	gt_katafeat_encode(&b, -1, -1, NULL, pl, g);
	ok(count(9, 14) == 1 && count(9, 17) == 0, "own laddered group: plane 14, no plane 17");
	/* 1 liberty, defender first: White E5 with Black D5, E4, F5, F6 */
	const char *lad1 =
		". . . . . . . . ."
		". . . . . . . . ."
		". . . . . . . . ."
		". . . . X . . . ."
		". . . X O X . . ."
		". . . . . X . . ."
		". . . . . . . . ."
		". . . . . . . . ."
		". . . . . . . . .";
	gt_board_from_ascii(&b, 9, cn, 7.5, lad1, GT_WHITE);
	ok(gt_katafeat_ladder(&b, 4 * 9 + 4, NULL, NULL) == 1, "1 liberty: captured in a ladder");
	gt_board_from_ascii(&b, 9, cn, 7.5, lad1, GT_WHITE);
	gt_board_setup(&b, GT_WHITE, 7 * 9 + 1);
	ok(gt_katafeat_ladder(&b, 4 * 9 + 4, NULL, NULL) == 0, "1 liberty with a breaker at B2: escapes");
	gt_katafeat_encode(&b, -1, -1, NULL, pl, g);
	ok(count(9, 14) == 0, "no ladder plane");
	/* pass-alive: Black's two-eyed corner group inside White's wall */
	const char *alive =
		". X . X O . . . ."
		"X X X X O . . . ."
		"O O O O O . . . ."
		". . . . . . . . ."
		". . . . . . . . ."
		". . . . . . . . ."
		". . . . . . . . ."
		". . . . . . . . ."
		". . . . . . . . .";
	gt_board_from_ascii(&b, 9, cn, 7.5, alive, GT_BLACK);
	gt_katafeat_encode(&b, -1, -1, NULL, pl, g);
	ok(count(9, 18) == 8 && PL(pl, 9, 18, 0, 0) == 1 && PL(pl, 9, 18, 2, 0) == 1,
	   "plane 18: Black's pass-alive group and its two eyes (%d)", count(9, 18));
	ok(count(9, 19) == 73, "plane 19: White's stones and the empty region only White borders (%d)",
	   count(9, 19));
	/* liberties: exactly 1, 2, 3 (White's 8: no plane) */
	ok(count(9, 4) == 6 && PL(pl, 9, 4, 0, 1) == 1 && count(9, 3) == 0 && count(9, 5) == 0,
	   "liberty planes: Black's group has its two eyes (plane 4), White 8 liberties (none)");
	/* history, ko, komi */
	gt_board_init(&b, 9, cn, 7.5);
	int mv[] = {2 * 9 + 2, 3 * 9 + 3, 4 * 9 + 4};
	for (int i = 0; i < 3; i++)
		gt_board_play(&b, i % 2 ? GT_WHITE : GT_BLACK, mv[i]);
	gt_katafeat_encode(&b, -1, -1, NULL, pl, g);
	ok(PL(pl, 9, 9, 4, 4) == 1 && PL(pl, 9, 10, 3, 3) == 1 && PL(pl, 9, 11, 2, 2) == 1 &&
	   count(9, 12) == 0 && count(9, 13) == 0, "history planes 9..11: the last three moves");
	ok(g[5] == 7.5f / 20 && g[18] == 0.5f, "White, komi 7.5, 9x9: komi 0.375, wave 0.5 (%g %g)", g[5],
	   g[18]);
	ok(g[6] == 1 && g[7] == 0.5f && g[8] == 0, "chinese (positional superko): 1, 0.5; no suicide");
	gt_katafeat_encode(&b, GT_KO_SIMPLE, 0, NULL, pl, g);
	ok(count(9, 9) == 0 && count(9, 10) == 0 && g[6] == 0 && g[7] == 0, "max_history 0, simple ko");
	gt_board_play(&b, GT_WHITE, GT_PASS(9));
	gt_katafeat_encode(&b, -1, -1, NULL, pl, g);
	ok(g[0] == 1 && count(9, 9) == 0 && PL(pl, 9, 10, 4, 4) == 1 && g[14] == 1,
	   "a pass: global 0, the earlier moves shift, a pass would end the game");
	ok(g[5] == -7.5f / 20 && g[18] == -0.5f, "Black, komi 7.5: -0.375, wave -0.5 (%g)", g[18]);
	gt_board_init(&b, 9, gt_rules_find("tromp-taylor"), 7);
	gt_board_play(&b, GT_BLACK, 40);
	gt_katafeat_encode(&b, -1, -1, NULL, pl, g);
	ok(g[5] == 7.0f / 20 && g[18] == 0 && g[8] == 1, "komi 7 (drawable): wave 0; suicide legal");
	gt_board_init(&b, 10, cn, 7.5);
	gt_board_play(&b, GT_BLACK, 40);
	gt_katafeat_encode(&b, -1, -1, NULL, pl, g);
	ok(g[18] == -0.5f, "10x10 (even area), White komi 7.5: wave -0.5 (%g)", g[18]);
	/* simple ko: Black captures D5 at E5; White may not retake at D5 */
	const char *ko =
		". . . . . . . . ."
		". . . . . . . . ."
		". . . . . . . . ."
		". . . X O . . . ."
		". . X O . O . . ."
		". . . X O . . . ."
		". . . . . . . . ."
		". . . . . . . . ."
		". . . . . . . . .";
	gt_board_from_ascii(&b, 9, cn, 7.5, ko, GT_BLACK);
	gt_board_play(&b, GT_BLACK, 4 * 9 + 4);  /* captures D5 (3,4) */
	gt_katafeat_encode(&b, -1, -1, NULL, pl, g);
	ok(PL(pl, 9, 6, 3, 4) == 1 && count(9, 6) == 1, "plane 6: the simple-ko ban point");
	/* territory (KataGo's japanese): globals 9 and 10 set, no area planes,
	 * no komi wave, and White's komi carries KataGo's whiteBonusScore:
	 * +1 per black stone played, -1 per white one, passes not counted
	 * (four black and two white stones: 6.5 + 2 = 8.5 from White's view) */
	gt_board_init(&b, 9, gt_rules_find_play("japanese"), 6.5);
	int jm[] = {40, 41, 10, GT_PASS(9), 20, 30, 50};
	for (int i = 0, c = GT_BLACK; i < 7; i++, c = GT_OTHER(c))
		gt_board_play(&b, c, jm[i]);
	gt_katafeat_encode(&b, -1, -1, NULL, pl, g);
	ok(b.to_move == GT_WHITE && g[5] == 8.5f / 20, "japanese, White to move: komi 6.5 + 4 - 2 (%g)",
	   g[5] * 20);
	ok(g[9] == 1 && g[10] == 1 && g[11] == 0 && g[18] == 0 && g[6] == 0 && g[8] == 0,
	   "territory 1, seki tax 1, no wave, simple ko, no suicide");
	ok(count(9, 18) == 0 && count(9, 19) == 0, "no area planes before KataGo's second encore");
	b.rules = cn;
	gt_katafeat_encode(&b, -1, -1, NULL, pl, g);
	ok(g[9] == 0 && g[10] == 0 && g[5] == 6.5f / 20 && count(9, 18) == 2 && count(9, 19) == 4,
	   "the same board by area: no bonus, the stones as area (%g %d %d)", g[5] * 20, count(9, 18),
	   count(9, 19));
	return done_testing();
}
