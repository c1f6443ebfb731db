/*
 * sgfrec.c: SGF games to records and back (lib/sgfrec.h): the RU table,
 * results and margins, score_checkable, positions, a handicap game built
 * by hand through record -> SGF text -> game -> record, and game_id.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "sgf.h"
#include "sgfrec.h"
#include "tap.h"

/* the first game of SGF text s as a record (rules NULL: from RU) */
static int convert(const char *s, const gt_rules *rules, gt_record *r, gt_error *e)
{
	gt_sgf_game *g;
	int n;
	if (gt_sgf_parse(s, strlen(s), &g, &n, e))
		return -100;
	int rc = gt_sgfrec_to_record(&g[0], rules, r, e);
	gt_sgf_free(g, n);
	return rc;
}

int main(void)
{
	static const struct {
		const char *ru, *rules;
		int count;
	} rt[] = {
		{"Chinese", "chinese", GT_COUNT_AREA},       {"chinese-ogs", "chinese", GT_COUNT_AREA},
		{"CN", "chinese", GT_COUNT_AREA},            {"AGA", "chinese", GT_COUNT_AREA},
		{"aga-2004", "chinese", GT_COUNT_AREA},      {"New Zealand", "new-zealand", GT_COUNT_AREA},
		{"NZ", "new-zealand", GT_COUNT_AREA},        {"Ing SST", "new-zealand", GT_COUNT_AREA},
		{"Tromp-Taylor", "tromp-taylor", GT_COUNT_AREA}, {"tt", "tromp-taylor", GT_COUNT_AREA},
		{"Japanese", "chinese", GT_COUNT_TERRITORY}, {"JP", "chinese", GT_COUNT_TERRITORY},
		{"korean", "chinese", GT_COUNT_TERRITORY},   {"", "chinese", GT_COUNT_UNKNOWN},
		{"Kgs", "chinese", GT_COUNT_UNKNOWN},        {"Cnx", "chinese", GT_COUNT_UNKNOWN},
	};
	for (size_t i = 0; i < sizeof rt / sizeof rt[0]; i++) {
		const gt_rules *rules = NULL;
		int c = gt_sgfrec_rules(rt[i].ru, &rules);
		ok(c == rt[i].count && rules && !strcmp(rules->name, rt[i].rules), "RU[%s]: %s, counting %d",
		   rt[i].ru, rt[i].rules, rt[i].count);
	}
	const gt_rules *nr = NULL;
	ok(gt_sgfrec_rules(NULL, &nr) == GT_COUNT_UNKNOWN && nr, "no RU: chinese, unknown");

	gt_record r, r2;
	gt_record_init(&r);
	gt_record_init(&r2);
	gt_error e;

	/* results: margins, draws, methods */
	static const struct {
		const char *re, *result;
		int winner;
		double score;
		int checkable;
	} res[] = {
		{"B+3.5", "B+3.5", GT_WIN_BLACK, 3.5, 1},  {"W+0.5", "W+0.5", GT_WIN_WHITE, -0.5, 1},
		{"Jigo", "0", GT_WIN_DRAW, 0, 1},          {"B+R", "B+R", GT_WIN_BLACK, NAN, 0},
		{"W+Time", "W+T", GT_WIN_WHITE, NAN, 0},   {"B+F", "B+F", GT_WIN_BLACK, NAN, 0},
		{"W+", "W+", GT_WIN_WHITE, NAN, 0},        {"B+0", "B+", GT_WIN_BLACK, NAN, 0},
		{"Void", "?", GT_WIN_UNKNOWN, NAN, 0},     {"?", "?", GT_WIN_UNKNOWN, NAN, 0},
		{"B+0.1234567891", "B+0.12345679", GT_WIN_BLACK, 0.12345679, 1},
	};
	for (size_t i = 0; i < sizeof res / sizeof res[0]; i++) {
		char s[160];
		snprintf(s, sizeof s, "(;SZ[9]KM[7.5]RU[Chinese]RE[%s];B[ee];W[cc])", res[i].re);
		int rc = convert(s, NULL, &r, &e);
		ok(rc == 0 && !strcmp(r.result, res[i].result) && r.winner == res[i].winner &&
		   (isnan(res[i].score) ? isnan(r.score) : fabs(r.score - res[i].score) < 1e-12) &&
		   r.score_checkable == res[i].checkable,
		   "RE[%s]: result %s, winner, score, checkable %d (got %s)", res[i].re, res[i].result,
		   res[i].checkable, r.result);
	}

	/* positions of a W+2.5 game; weight 0 when the result is unknown */
	int rc = convert("(;SZ[5]KM[2.5]RE[W+2.5];B[cc];W[];B[bb])", NULL, &r, &e);
	ok(rc == 0 && r.npos == 3, "3 positions");
	ok(r.pos[0].policy[12] == 1 && r.pos[1].policy[25] == 1 && r.pos[2].policy[6] == 1,
	   "policies one-hot on C3, pass, B4");
	ok(r.pos[0].value == -1 && r.pos[1].value == 1 && r.pos[0].score == -2.5f &&
	   r.pos[1].score == 2.5f, "values and scores from the side to move (Black lost by 2.5)");
	ok(r.pos[0].weight == 1 && r.pos[0].full_search && r.pos[0].visits == 0, "weight 1, full_search, 0 visits");
	ok(!r.score_checkable, "no RU: not score_checkable");
	ok(!r.ownership, "not ended by two passes: no ownership");
	rc = convert("(;SZ[5]KM[2.5];B[cc];W[dd])", NULL, &r, &e);
	ok(rc == 0 && r.pos[0].weight == 0 && r.pos[1].weight == 0 && isnan(r.pos[0].value) &&
	   isnan(r.pos[0].score) && !strcmp(r.result, "?"), "no RE: weight 0, no value or score, result ?");

	/* ownership and --rules */
	rc = convert("(;SZ[5]KM[0.5]RE[B+24.5];B[cc];W[];B[])", gt_rules_find("new-zealand"), &r, &e);
	ok(rc == 0 && r.ownership && r.ownership[0] == 1 && r.score_checkable &&
	   !strcmp(r.rules, "new-zealand"), "two passes: ownership; a given ruleset counts by area");

	/* handicap: not score_checkable under area rules; round trip by hand */
	rc = convert("(;SZ[9]HA[2]KM[0.5]RU[Chinese]AB[cc][gg]RE[B+3.5];W[ee];B[ec];W[ce];W[dd])", NULL,
	             &r, &e);
	ok(rc == 0 && !r.score_checkable && r.nsetup[GT_BLACK] == 2 && r.first_to_move == GT_WHITE &&
	   r.colors[3] == GT_WHITE, "handicap 2: setup, White first, colours; not score_checkable");
	free(r.game_id);
	r.game_id = strdup("abc");
	gt_sgf_game g;
	ok(gt_sgfrec_from_record(&r, &g, &e) == 0 && g.handicap == 2, "record to SGF game: HA 2");
	char *text = gt_sgf_write_str(&g, NULL);
	ok(strstr(text, "HA[2]") && strstr(text, "AB[cc][gg]") && strstr(text, "RU[Chinese]") &&
	   strstr(text, "RE[B+3.5]") && strstr(text, "GN[abc]") && strstr(text, "PB[human]PW[human]") &&
	   strstr(text, "US[sgf]"), "SGF text: HA AB RU RE GN PB PW US");
	gt_sgf_game_release(&g);
	rc = convert(text, NULL, &r2, &e);
	free(text);
	int same = rc == 0 && r2.nmoves == r.nmoves && r2.komi == r.komi &&
	           !strcmp(r2.result, r.result) && r2.nsetup[GT_BLACK] == 2 &&
	           r2.first_to_move == r.first_to_move;
	for (int i = 0; same && i < r.nmoves; i++)
		same = r.moves[i] == r2.moves[i] && r.colors[i] == r2.colors[i];
	ok(same, "back to a record: the same moves, colours, setup, komi and result");

	/* the search's evaluation of a position becomes its move's comment:
	 * Black's win rate and the leader (worked by hand: White to move at
	 * 0.25 is Black's (1 - 0.25) / 2 = 37.5%; White ahead by 3.5) */
	r.pos[1].has_root = 1;
	r.pos[1].to_move = GT_BLACK;
	r.pos[1].root_value = 0.5f;
	r.pos[1].root_score = 1.0f;
	r.pos[1].visits = 100;
	r.pos[2].has_root = 1;
	r.pos[2].to_move = GT_WHITE;
	r.pos[2].root_value = 0.25f;
	r.pos[2].root_score = 3.5f;
	r.pos[2].visits = 400;
	ok(gt_sgfrec_from_record(&r, &g, &e) == 0, "record with searched positions to SGF");
	text = gt_sgf_write_str(&g, NULL);
	ok(strstr(text, ";B[ec]C[win rate B 75.0%, score lead B+1.0, visits 100]\n;W[ce]"
	                "C[win rate B 37.5%, score lead W+3.5, visits 400]\n") &&
	   !strstr(text, "W[ee]C"), "C[] on the searched moves only");
	gt_sgf_game_release(&g);
	gt_sgf_game_init(&g, 9);
	gt_sgfrec_set_date(&g, 86400 * 366);
	is_str(gt_sgf_prop_get(&g, "DT"), "1971-01-02", "DT of 366 days after 1970-01-01");
	gt_sgf_game_release(&g);
	free(text);

	/* komi out of range, illegal move */
	rc = convert("(;SZ[3]KM[9.5];B[bb])", NULL, &r, &e);
	ok(rc == GT_EUNSUPPORTED && strstr(e.text, "komi 9.5 out of range for 3x3"), "komi > N*N: %s", e.text);
	rc = convert("(;SZ[9];B[ee];W[ee])", NULL, &r, &e);
	ok(rc == GT_EOCCUPIED && !strcmp(e.text, "game 1, move 2 (W ee): point occupied"), "occupied: %s",
	   e.text);

	/* game_id */
	char id[65];
	ok(gt_sgfrec_game_id("abc", 3, 2, id) == 0 && strlen(id) == 64, "game_id: 64 hex digits");
	/* sha256 of "abc\0" "2", from sha256sum */
	is_str(id, "f19965ff65daf094e4e0e16d5a6715a4a2ca3bb46f34a5429821b2675d008f99", "game_id of game 2 of \"abc\": sha256 of abc, NUL, \"2\"");
	gt_record_release(&r);
	gt_record_release(&r2);
	return done_testing();
}
