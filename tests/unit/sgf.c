/*
 * sgf.c: the SGF reader and writer against hand-made files whose answers
 * are written down independently (shared/data/sgf/EXPECTED.md and the
 * cases below), round trips, coordinates, and a fuzz of malformed input.
 */
#include "sgf_util.h"

static const gt_rules *rules;

static int parse(const char *s, gt_sgf_game **g, int *n)
{
	gt_error e;
	return gt_sgf_parse(s, strlen(s), g, n, &e);
}

/* Parse a one-game string; returns its game (static, freed on the next
 * call; one(NULL) just frees). */
static gt_sgf_game *one(const char *s)
{
	static gt_sgf_game *g;
	static int n;
	gt_sgf_free(g, n);
	g = NULL;
	n = 0;
	if (!s)
		return NULL;
	if (parse(s, &g, &n) < 0 || n != 1) {
		diag("'%s' gave %d games", s, n);
		return NULL;
	}
	return g;
}

static gt_sgf_game *games;
static int ngames;
static char path[4096];
static const char *dir;

static int load(const char *name)
{
	gt_error e;
	gt_sgf_free(games, ngames);
	games = NULL;
	ngames = 0;
	snprintf(path, sizeof path, "%s/data/sgf/%s", dir, name);
	int rc = gt_sgf_read_file(path, &games, &ngames, &e);
	if (rc < 0)
		diag("%s: %s", name, e.text);
	return rc;
}

/* Replay game g under chinese rules; returns the board's area score
 * (Black's view, komi included) or NAN when a move was illegal. */
static double replay(const gt_sgf_game *g, int *err)
{
	static gt_board b;
	gt_error e;
	int np;
	*err = gt_sgf_replay(g, rules, &b, &np, &e);
	if (*err < 0)
		return NAN;
	return gt_board_area(&b, NULL);
}

/* Write, read back, compare. */
static void round_trip(const gt_sgf_game *g, const char *name)
{
	size_t len;
	char *s = gt_sgf_write_str(g, &len);
	gt_sgf_game *h = NULL;
	int n = 0;
	gt_error e;
	char why[256] = "";
	int rc = gt_sgf_parse(s, len, &h, &n, &e);
	ok(rc == 0 && n == 1 && same_game(g, &h[0], why, sizeof why),
	   "%s: read -> write -> read gives the same game", name);
	if (why[0])
		diag("  %s", why);
	if (n == 1) {
		size_t len2;
		char *s2 = gt_sgf_write_str(&h[0], &len2);
		ok(len2 == len && memcmp(s, s2, len) == 0, "%s: writing it again gives the same bytes", name);
		free(s2);
	}
	gt_sgf_free(h, n);
	free(s);
}

static void test_files(void)
{
	int err;
	double area;

	ok(load("pass-tt-19.sgf") == 0 && ngames == 1 && games[0].err == 0, "pass-tt-19 reads");
	is_int(games[0].size, 19, "pass-tt-19: 19x19");
	is_str(moves_gtp(&games[0]), "Q16 D4 Q4 D16 pass R14 pass pass", "pass-tt-19: tt is a pass");
	is_str(colours(&games[0]), "BWBWBWBW", "pass-tt-19: colours");
	ok(games[0].winner == GT_WIN_WHITE && games[0].method == GT_BY_RESIGN, "pass-tt-19: W+R");
	is_dbl(games[0].komi, 6.5, 0, "pass-tt-19: komi 6.5");
	replay(&games[0], &err);
	is_int(err, 0, "pass-tt-19: replays");
	round_trip(&games[0], "pass-tt-19");

	ok(load("pass-empty-9.sgf") == 0 && ngames == 1 && games[0].err == 0, "pass-empty-9 reads");
	is_int(games[0].size, 9, "pass-empty-9: 9x9");
	is_dbl(games[0].komi, 0, 0, "pass-empty-9: komi 0");
	is_str(moves_gtp(&games[0]), "E5 C7 pass pass", "pass-empty-9: moves");
	is_int(games[0].winner, GT_WIN_DRAW, "pass-empty-9: RE[0] is a draw");
	is_str(gt_sgf_prop_get(&games[0], "RU"), "Chinese", "pass-empty-9: RU kept as given");
	area = replay(&games[0], &err);
	is_int(err, 0, "pass-empty-9: replays");
	is_dbl(area, 0, 0, "pass-empty-9: final area score 0 agrees with the draw");
	round_trip(&games[0], "pass-empty-9");

	ok(load("no-sz.sgf") == 0 && ngames == 1 && games[0].err == 0, "no-sz reads");
	is_int(games[0].size, 19, "no-sz: missing SZ is 19");
	is_str(moves_gtp(&games[0]), "D16 Q4 D4 Q16", "no-sz: moves");

	ok(load("rect-9x13.sgf") == 0 && ngames == 1, "rect-9x13: one game");
	is_int(games[0].err, GT_EUNSUPPORTED, "rect-9x13: GT_EUNSUPPORTED");
	ok(strstr(games[0].error.text, "unsupported board size 9x13") != NULL,
	   "rect-9x13: says 'unsupported board size 9x13' (%s)", games[0].error.text);
	is_int(games[0].nmoves, 0, "rect-9x13: no move read as 9x9");
	ok(games[0].error.offset > 0 && games[0].error.line == 1, "rect-9x13: error has an offset");
	replay(&games[0], &err);
	is_int(err, GT_EUNSUPPORTED, "rect-9x13: replay refuses it too");

	ok(load("handicap-4.sgf") == 0 && ngames == 1 && games[0].err == 0, "handicap-4 reads");
	is_int(games[0].handicap, 4, "handicap-4: handicap 4");
	is_str(stones_gtp(&games[0], GT_BLACK), "D16 Q16 D4 Q4", "handicap-4: setup stones");
	is_int(games[0].nwhite, 0, "handicap-4: no white setup");
	is_int(games[0].first, GT_WHITE, "handicap-4: White moves first");
	is_str(moves_gtp(&games[0]), "R14 O17 K10 C10", "handicap-4: moves");
	is_str(colours(&games[0]), "WBWB", "handicap-4: colours");
	is_dbl(games[0].komi, 0.5, 0, "handicap-4: komi 0.5");
	ok(games[0].winner == GT_WIN_BLACK && games[0].method == GT_BY_SCORE &&
	   games[0].has_margin && games[0].margin == 12.5, "handicap-4: B+12.5");
	replay(&games[0], &err);
	is_int(err, 0, "handicap-4: replays");
	round_trip(&games[0], "handicap-4");

	ok(load("compressed-points.sgf") == 0 && ngames == 1 && games[0].err == 0, "compressed reads");
	is_str(stones_gtp(&games[0], GT_BLACK), "A9 B9 C9 A8 B8 C8", "compressed: AB[aa:cb]");
	is_str(stones_gtp(&games[0], GT_WHITE), "G3 H3 J3 G2 H2 J2 G1 H1 J1", "compressed: AW[gg:ii]");
	is_str(moves_gtp(&games[0]), "E5 D6", "compressed: moves");
	is_int(games[0].first, GT_BLACK, "compressed: PL[B]");
	is_int(games[0].handicap, 0, "compressed: no handicap (white stones too)");
	replay(&games[0], &err);
	is_int(err, 0, "compressed: replays");
	round_trip(&games[0], "compressed");

	ok(load("escapes.sgf") == 0 && ngames == 1 && games[0].err == 0, "escapes reads");
	is_str(gt_sgf_prop_get(&games[0], "PB"), "Ann ] the \\ first", "escapes: PB");
	is_str(gt_sgf_prop_get(&games[0], "C"), "line onecontinues here; a bracket ] inside",
	       "escapes: soft line break joins the comment");
	is_str(gt_sgf_prop_get(&games[0], "GN"), "x", "escapes: property after the comment");
	is_str(moves_gtp(&games[0]), "E5 G7", "escapes: moves");
	round_trip(&games[0], "escapes");

	ok(load("empty-nodes-crlf.sgf") == 0 && ngames == 1 && games[0].err == 0, "crlf reads");
	is_str(moves_gtp(&games[0]), "E5 C7 G3", "empty-nodes-crlf: moves");

	ok(load("variations.sgf") == 0 && ngames == 1 && games[0].err == 0, "variations reads");
	is_str(moves_gtp(&games[0]), "E5 C7 G3 G7 C3", "variations: main line");
	ok(games[0].winner == GT_WIN_BLACK && games[0].margin == 3.5, "variations: B+3.5");

	ok(load("fox-komi-x50.sgf") == 0 && ngames == 1 && games[0].err == 0, "fox reads");
	is_dbl(games[0].komi, 7.5, 0, "fox: KM[375] with AP[Foxwq] is 7.5");
	is_str(moves_gtp(&games[0]), "Q16 D16", "fox: moves");
	round_trip(&games[0], "fox");

	ok(load("shiftjis-names-no-ca.sgf") == 0 && ngames == 1 && games[0].err == 0, "shift-jis reads");
	is_str(gt_sgf_prop_get(&games[0], "PB"), "\x93\x8c\x8b\x9e", "shift-jis: PB raw bytes");
	is_str(gt_sgf_prop_get(&games[0], "PW"), "\x91\xe5\x8d\xe3", "shift-jis: PW raw bytes");
	is_str(moves_gtp(&games[0]), "Q16 D16 Q3", "shift-jis: moves");
	{
		char *s = gt_sgf_write_str(&games[0], NULL);
		ok(strstr(s, "CA[UTF-8]") == NULL, "shift-jis: writer does not claim UTF-8");
		free(s);
	}
	round_trip(&games[0], "shift-jis");

	ok(load("collection-two-broken.sgf") == 0 && ngames == 4, "collection: four games");
	if (ngames == 4) {
		size_t len;
		char *raw = slurp(path, &len);
		is_int(games[0].err, 0, "collection: game 1 reads");
		is_str(moves_gtp(&games[0]), "E5 C7 G3", "collection: game 1 moves");
		replay(&games[0], &err);
		is_int(err, 0, "collection: game 1 replays");
		is_int(games[1].err, 0, "collection: game 2 parses");
		gt_board b;
		gt_error e;
		int np;
		is_int(gt_sgf_replay(&games[1], rules, &b, &np, &e), GT_EOCCUPIED,
		       "collection: game 2 plays onto an occupied point");
		is_int(np, 1, "collection: game 2 stops before its 2nd move");
		ok(strstr(e.text, "game 2") && strstr(e.text, "move 2") && strstr(e.text, "occupied"),
		   "collection: game 2 message (%s)", e.text);
		ok(e.offset >= 0 && raw && (size_t)e.offset < len && strncmp(raw + e.offset, ";W[ee]", 6) == 0,
		   "collection: game 2 offset points at its node");
		is_int(e.line, 2, "collection: game 2 on line 2");
		is_int(games[2].err, GT_EOFFBOARD, "collection: game 3 is off the board");
		ok(strstr(games[2].error.text, "game 3") && strstr(games[2].error.text, "move 3"),
		   "collection: game 3 message (%s)", games[2].error.text);
		ok(raw && games[2].error.offset > 0 && strncmp(raw + games[2].error.offset, "zz]", 3) == 0,
		   "collection: game 3 offset points at zz");
		is_int(games[3].err, 0, "collection: game 4 reads");
		is_str(moves_gtp(&games[3]), "E5 C7 G3 G7", "collection: game 4 moves");
		ok(games[3].winner == GT_WIN_WHITE && games[3].margin == 2.5, "collection: game 4 W+2.5");
		is_int(games[3].index, 4, "collection: game 4 numbered 4");
		free(raw);
	}

	ok(load("markup-last-node.sgf") == 0 && ngames == 1 && games[0].err == 0, "markup reads");
	is_str(moves_gtp(&games[0]), "E5 C7 pass pass", "markup: the markup node is no move");
	area = replay(&games[0], &err);
	is_int(err, 0, "markup: replays");
	is_dbl(area, -7.5, 0, "markup: area score confirms W+7.5");
	ok(games[0].winner == GT_WIN_WHITE && games[0].margin == 7.5, "markup: W+7.5");

	ok(load("ss-on-18.sgf") == 0 && ngames == 1, "ss-on-18: one game");
	is_int(games[0].err, GT_EOFFBOARD, "ss-on-18: ss is off the board on 18x18");
	ok(strstr(games[0].error.text, "move 2") != NULL, "ss-on-18: at move 2 (%s)", games[0].error.text);

	ok(load("results.sgf") == 0 && ngames == 5, "results: five games");
	if (ngames == 5) {
		ok(games[0].winner == GT_WIN_BLACK && games[0].method == GT_BY_UNKNOWN && !games[0].has_margin,
		   "results: B+ is Black, margin unknown");
		is_int(games[1].winner, GT_WIN_NONE, "results: Void is no result");
		is_int(games[2].winner, GT_WIN_UNKNOWN, "results: ? is unknown");
		ok(games[3].winner == GT_WIN_WHITE && games[3].method == GT_BY_TIME, "results: W+T on time");
		is_int(games[4].winner, GT_WIN_DRAW, "results: Draw");
		is_dbl(games[4].komi, 7, 0, "results: integer komi 7");
		char buf[32];
		is_str(gt_sgf_result_str(&games[0], buf), "B+", "results: B+ written back");
		is_str(gt_sgf_result_str(&games[1], buf), "Void", "results: Void written back");
		is_str(gt_sgf_result_str(&games[3], buf), "W+T", "results: W+T written back");
		gt_sgf_game h;
		gt_sgf_game_init(&h, 9);
		gt_sgf_result_parse(&h, "W+4.5");
		is_str(gt_sgf_result_str(&h, buf), "W+4.5", "results: gt_sgf_result_parse W+4.5");
		gt_sgf_result_parse(&h, "Draw");
		is_str(gt_sgf_result_str(&h, buf), "0", "results: Draw is written 0");
		gt_sgf_game_release(&h);
		for (int i = 0; i < 5; i++)
			round_trip(&games[i], "results");
	}
	gt_sgf_free(games, ngames);
	games = NULL;
	ngames = 0;
}

static void test_komi(void)
{
	static const struct {
		const char *props;
		double komi;
	} k[] = {
		{"KM[375]AP[Foxwq]", 7.5}, {"KM[375]", 7.5}, {"KM[325]AP[foxwq:2]", 6.5},
		{"KM[0]AP[Foxwq]", 0}, {"KM[6.5]AP[Foxwq]", 6.5}, {"KM[25]AP[Foxwq]", 0.5},
		{"KM[-375]", -7.5}, {"KM[6.25]", 6.5}, {"KM[6.75]", 6.5}, {"KM[3.75]", 3.5},
		{"KM[-3.75]", -3.5}, {"KM[5.]", 5}, {"KM[ 5.5 ]", 5.5}, {"KM[]", 0}, {"", 0},
		{"KM[7]", 7}, {"KM[-0.5]", -0.5}, {"KM[6.3]", 6.5}, {"KM[120]", 120},
		{"KM[150]", 3},
	};
	char s[256];
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
		snprintf(s, sizeof s, "(;SZ[19]%s;B[aa])", k[i].props);
		gt_sgf_game *g = one(s);
		ok(g && g->err == 0 && g->komi == k[i].komi, "komi: %s is %g (got %g)", k[i].props,
		   k[i].komi, g ? g->komi : -999);
	}
	gt_sgf_game *g = one("(;KM[seven];B[aa])");
	ok(g && g->err == GT_EFORMAT && strstr(g->error.text, "KM"), "komi: KM[seven] is GT_EFORMAT");
	g = one("(;KM[1e9];B[aa])");
	ok(g && g->err == GT_EFORMAT, "komi: KM[1e9] is GT_EFORMAT");
	g = one("(;KM[5001];B[aa])");
	ok(g && g->err == GT_EUNSUPPORTED, "komi: KM[5001] is out of range");
}

static void test_results(void)
{
	static const struct {
		const char *re;
		int winner, method;
		double margin; /* -1: none */
	} r[] = {
		{"B+R", GT_WIN_BLACK, GT_BY_RESIGN, -1}, {"W+Resign", GT_WIN_WHITE, GT_BY_RESIGN, -1},
		{"B+R (after 150 moves)", GT_WIN_BLACK, GT_BY_RESIGN, -1},
		{"W+3.5", GT_WIN_WHITE, GT_BY_SCORE, 3.5}, {"B+12", GT_WIN_BLACK, GT_BY_SCORE, 12},
		{"B+T", GT_WIN_BLACK, GT_BY_TIME, -1}, {"W+Time", GT_WIN_WHITE, GT_BY_TIME, -1},
		{"B+F", GT_WIN_BLACK, GT_BY_FORFEIT, -1}, {"W+Forfeit", GT_WIN_WHITE, GT_BY_FORFEIT, -1},
		{"B+", GT_WIN_BLACK, GT_BY_UNKNOWN, -1}, {"W+", GT_WIN_WHITE, GT_BY_UNKNOWN, -1},
		{"0", GT_WIN_DRAW, GT_BY_UNKNOWN, -1}, {"Draw", GT_WIN_DRAW, GT_BY_UNKNOWN, -1},
		{"Jigo", GT_WIN_DRAW, GT_BY_UNKNOWN, -1}, {"Void", GT_WIN_NONE, GT_BY_UNKNOWN, -1},
		{"?", GT_WIN_UNKNOWN, GT_BY_UNKNOWN, -1}, {"", GT_WIN_UNKNOWN, GT_BY_UNKNOWN, -1},
		{"White wins by resignation", GT_WIN_UNKNOWN, GT_BY_UNKNOWN, -1},
		{" b+r ", GT_WIN_BLACK, GT_BY_RESIGN, -1},
	};
	char s[256];
	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
		snprintf(s, sizeof s, "(;SZ[9]RE[%s];B[ee])", r[i].re);
		gt_sgf_game *g = one(s);
		ok(g && g->err == 0 && g->winner == r[i].winner && g->method == r[i].method &&
		   g->has_margin == (r[i].margin >= 0) && (r[i].margin < 0 || g->margin == r[i].margin),
		   "result: RE[%s]", r[i].re);
		if (g)
			is_str(gt_sgf_prop_get(g, "RE"), r[i].re, "result: RE[%s] kept raw", r[i].re);
	}
}

static void test_syntax(void)
{
	gt_sgf_game *g, *gs;
	int n;

	g = one("(;FF[4]SZ[19:19];B[aa])");
	ok(g && g->err == 0 && g->size == 19, "SZ[19:19] is 19x19");
	g = one("(;SZ[1];B[aa])");
	ok(g && g->err == GT_EUNSUPPORTED, "SZ[1] unsupported");
	g = one("(;SZ[20];B[aa])");
	ok(g && g->err == GT_EUNSUPPORTED && strstr(g->error.text, "unsupported board size 20"),
	   "SZ[20] unsupported");
	g = one("(;SZ[nine];B[aa])");
	ok(g && g->err == GT_EFORMAT, "SZ[nine] malformed");
	g = one("(;SZ[2];B[aa];W[bb];B[tt])");
	ok(g && g->err == 0 && g->size == 2 && g->nmoves == 3 && g->moves[2].pt == 4, "2x2, tt a pass");
	g = one("(;AB[aa]SZ[9]AW[ii];W[ee])");
	ok(g && g->err == 0 && g->nblack == 1 && g->nwhite == 1 && g->white[0] == 80,
	   "SZ after AB in the root still applies to it");
	g = one("(;SZ[9];B[aa]AB[bb])");
	ok(g && g->err == GT_EUNSUPPORTED, "setup after the first move is unsupported");
	g = one("(;SZ[9];AB[bb];B[aa])");
	ok(g && g->err == 0 && g->nblack == 1 && g->black[0] == 10, "setup in a second node");
	g = one("(;SZ[9]AB[aa][bb]AE[aa];B[cc])");
	ok(g && g->err == 0 && g->nblack == 1 && g->black[0] == 10, "AE removes a setup stone");
	g = one("(;SZ[9];B[aa]W[bb])");
	ok(g && g->err == GT_EFORMAT, "B and W in one node is malformed");
	g = one("(;SZ[9];B[aa][bb])");
	ok(g && g->err == GT_EFORMAT, "a move with two values is malformed");
	g = one("(;SZ[9];B[a])");
	ok(g && g->err == GT_EFORMAT, "B[a] is not a point");
	g = one("(;SZ[9];B[ja])");
	ok(g && g->err == GT_EOFFBOARD, "B[ja] off a 9x9 board");
	g = one("(;SZ[9];B[Aa])");
	ok(g && g->err == GT_EOFFBOARD, "uppercase (FF[4] > 26) is off a 9x9 board");
	g = one("(;SZ[9]AB[tt];B[aa])");
	ok(g && g->err == GT_EOFFBOARD, "tt is no setup point");
	g = one("(;GaMe[1]SiZe[9]CoPyright[me];B[ee];W[dd])");
	ok(g && g->err == 0 && g->size == 9 && g->nmoves == 2 && gt_sgf_prop_get(g, "CP") &&
	   !strcmp(gt_sgf_prop_get(g, "CP"), "me"), "FF[3] lowercase letters in names");
	g = one("junk ( before ;\n(;SZ[9];B[ee])\ntrailing junk");
	ok(g && g->err == 0 && g->nmoves == 1, "junk before and after a game is ignored");
	g = one("(;SZ[9]C[a\\\r\nb\\\n\rc\\\rd];B[ee])");
	ok(g && !strcmp(gt_sgf_prop_get(g, "C"), "abcd"), "soft line breaks CRLF, LFCR, CR");
	g = one("(;SZ[9]PB[x\\:y\\\\]PW[a\nb];B[ee])");
	ok(g && !strcmp(gt_sgf_prop_get(g, "PB"), "x:y\\") && !strcmp(gt_sgf_prop_get(g, "PW"), "a\nb"),
	   "escaped bytes and hard line breaks");
	g = one("(;SZ[9] \t\r\n; \n B \r\n [ee] ;\tW[cc]\n)");
	ok(g && g->err == 0 && g->nmoves == 2, "whitespace between all tokens");
	g = one("(;SZ[9]HA[2]AB[cc][gg];W[ee])");
	ok(g && g->handicap == 2 && g->first == GT_WHITE, "HA[2] with two stones");
	g = one("(;SZ[9]HA[3]AB[cc][gg];W[ee])");
	ok(g && g->handicap == 2, "HA[3] with two stones placed counts two");
	g = one("(;SZ[9]HA[2];B[cc];B[gg];W[ee])");
	ok(g && g->handicap == 2 && g->first == GT_BLACK && !strcmp(colours(g), "BBW"),
	   "HA[2] placed as moves: consecutive moves kept");
	g = one("(;SZ[9]AB[cc][gg])");
	ok(g && g->handicap == 0 && g->first == GT_BLACK && g->nmoves == 0, "AB without HA is no handicap");
	g = one("(;SZ[9]HA[two];B[ee])");
	ok(g && g->err == GT_EFORMAT, "HA[two] malformed");
	g = one("(;SZ[9];W[ee];B[cc])");
	ok(g && g->first == GT_WHITE, "without PL the first move says who starts");
	g = one("(;SZ[9]PL[W];B[ee])");
	ok(g && g->first == GT_WHITE && !strcmp(colours(g), "B"), "PL kept, moves as written");
	g = one("(;SZ[9](;B[ee];W[cc](;B[gg])(;B[cg]))(;B[aa]))");
	ok(g && g->err == 0 && !strcmp(moves_gtp(g), "E5 C7 G3"), "nested variations: first each time");
	g = one("(;SZ[9];B[ee];C[x]TB[aa]W[cc])");
	ok(g && g->nmoves == 2 && !gt_sgf_prop_get(g, "C"), "comments in moves are not game info");
	g = one("(;SZ[9];B[ee]PW[late];W[cc])");
	ok(g && gt_sgf_prop_get(g, "PW") && !strcmp(gt_sgf_prop_get(g, "PW"), "late"),
	   "game info in a later node is kept");

	/* syntax errors and recovery */
	ok(parse("", &gs, &n) == GT_EFORMAT && n == 0 && !gs, "empty input: no game");
	ok(parse("no sgf here", &gs, &n) == GT_EFORMAT, "text: no game");
	g = one("(;SZ[9];B[ee];W[cc");
	ok(g && g->err == GT_EFORMAT && g->error.offset == 15, "unterminated value at its '['");
	g = one("(;SZ[9];B[ee];W[cc]");
	ok(g && g->err == GT_EFORMAT && g->error.offset == 19 && strstr(g->error.text, "missing"),
	   "missing ')' at the end");
	g = one("(;SZ[9];B[ee]%;W[cc])");
	ok(g && g->err == GT_EFORMAT && g->error.offset == 13, "stray byte at its offset");
	g = one("(;SZ[9];B[ee];W)");
	ok(g && g->err == GT_EFORMAT, "property without a value");
	g = one("(;SZ[9]()(;B[ee]))");
	ok(g && g->err == GT_EFORMAT, "empty game tree");
	const char *coll = "(;GM[1]SZ[9];B[ee];W[cc]\n(;GM[1]SZ[9];B[aa])\n(;B[bb])\n  (;FF[4]SZ[9];B[cc])\n";
	ok(parse(coll, &gs, &n) == 0 && n == 3, "recovery after a broken game");
	if (n == 3) {
		ok(gs[0].err == GT_EFORMAT, "recovery: the broken game is reported");
		ok(gs[1].err == 0 && gs[1].nmoves == 1 && gs[1].moves[0].pt == 0,
		   "recovery: the next game (at a line start with GM) reads");
		ok(gs[2].err == 0 && gs[2].nmoves == 1 && gs[2].moves[0].pt == 20 && gs[2].index == 3,
		   "recovery: and the one after");
	}
	gt_sgf_free(gs, n);

	/* broken collections are read in linear time (these took minutes
	 * when every broken game was read again to the end of the input) */
	{
		static const char *const unit[] = {"(;GM[1]SZ[9];B[aa];W[bb]\n", "(;GM[1]C[x\n",
			"(;GM[1]SZ[9];B[aa]%\n", "(;KM[x];B[aa])\n"};
		static const int want[] = {20000, 1, 20000, 20000};
		for (int u = 0; u < 4; u++) {
			size_t ul = strlen(unit[u]), k = 0;
			char *s = malloc(ul * 20000 + 2);
			for (int i = 0; i < 20000; i++, k += ul)
				memcpy(s + k, unit[u], ul);
			s[k++] = ']';
			int rc = gt_sgf_parse(s, k, &gs, &n, NULL), bad = 0;
			for (int i = 0; i < n; i++)
				bad += gs[i].err == GT_EFORMAT && (u < 2 || gs[i].error.line == i + 1);
			ok(rc == 0 && n == want[u] && bad == n, "20000 x '%.*s': %d games, all reported%s",
			   (int)ul - 1, unit[u], want[u], u < 2 ? "" : " with their line");
			gt_sgf_free(gs, n);
			free(s);
		}
	}
	ok(parse("(;GM[1]SZ[9];B[ee](;FF[4]SZ[9];B[aa])", &gs, &n) == 0 && n == 2 &&
	   gs[0].err == GT_EFORMAT && strstr(gs[0].error.text, "missing ')'") &&
	   gs[0].error.offset == 18 && gs[1].err == 0 && gs[1].nmoves == 1,
	   "a variation with GM/FF/SZ starts the next game: the one before lacks its ')'");
	gt_sgf_free(gs, n);

	/* deep nesting needs no recursion */
	{
		size_t depth = 200000, k = 0;
		char *s = malloc(8 * depth + 64);
		k += (size_t)sprintf(s, "(;SZ[9]");
		for (size_t i = 0; i < depth; i++) {
			memcpy(s + k, "(;B[", 4);
			k += 4;
			s[k++] = (char)('a' + i % 9);
			s[k++] = 'a';
			s[k++] = ']';
		}
		for (size_t i = 0; i <= depth; i++)
			s[k++] = ')';
		s[k] = 0;
		int rc = gt_sgf_parse(s, k, &gs, &n, NULL);
		ok(rc == 0 && n == 1 && gs[0].err == 0 && gs[0].nmoves == (int)depth,
		   "200000 nested variations read without recursion");
		gt_sgf_free(gs, n);
		free(s);
	}
}

static void test_points(void)
{
	static const struct {
		const char *sgf, *gtp;
	} v[] = {{"pd", "Q16"}, {"dp", "D4"}, {"aa", "A19"}, {"ss", "T1"}, {"jj", "K10"},
		 {"sa", "T19"}, {"as", "A1"}, {"ia", "J19"}, {"ha", "H19"}, {"", "pass"}, {"tt", "pass"}};
	char buf[8], p[3];
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		int pt = gt_sgf_point_parse(19, v[i].sgf, strlen(v[i].sgf));
		is_str(gt_vertex_str(19, pt, buf), v[i].gtp, "19x19 '%s' is %s", v[i].sgf, v[i].gtp);
		if (pt != GT_PASS(19))
			is_str(gt_sgf_point_str(19, gt_vertex_parse(19, v[i].gtp), p), v[i].sgf,
			       "19x19 %s is '%s'", v[i].gtp, v[i].sgf);
	}
	is_int(gt_sgf_point_parse(19, "aa", 2), 0, "aa is point 0");
	is_int(gt_sgf_point_parse(19, "ba", 2), 1, "ba is point 1 (x first)");
	is_int(gt_sgf_point_parse(19, "ab", 2), 19, "ab is point 19 (y from the top)");
	is_int(gt_sgf_point_parse(18, "ss", 2), GT_EOFFBOARD, "ss off 18x18");
	is_int(gt_sgf_point_parse(18, "rr", 2), 18 * 18 - 1, "rr last point of 18x18");
	is_int(gt_sgf_point_parse(9, "tt", 2), 81, "tt is a pass on 9x9");
	is_int(gt_sgf_point_parse(9, "a1", 2), GT_EFORMAT, "a1 is not a point");
	is_str(gt_sgf_point_str(9, 81, p), "", "pass is written []");
}

/* A ko on 5x5: Black captures at cb; White may not retake at bb at once,
 * but when the record has Black move again (White's move missing), Black
 * may play bb: the ko ban was on White's reply. */
static void test_replay_ko(void)
{
	static gt_board b;
	gt_error e;
	int np;
	const char *pos = "(;SZ[5]AB[ba][ab][bc]AW[ca][db][cc][bb]";
	char s[256];
	snprintf(s, sizeof s, "%s;B[cb];W[bb])", pos);
	gt_sgf_game *g = one(s);
	ok(g && gt_sgf_replay(g, rules, &b, &np, &e) == GT_EKO && np == 1 && strstr(e.text, "move 2 (W bb): ko"),
	   "immediate ko retake is refused at move 2 (%s)", g ? e.text : "");
	snprintf(s, sizeof s, "%s;B[cb];B[bb];W[ee])", pos);
	g = one(s);
	ok(g && gt_sgf_replay(g, rules, &b, &np, &e) == 0 && np == 3 && b.color[6] == GT_BLACK &&
	   b.captures[GT_BLACK] == 1, "Black moving twice may fill the ko point");
	snprintf(s, sizeof s, "%s;B[cb];W[ee];W[bb])", pos);
	g = one(s);
	ok(g && gt_sgf_replay(g, rules, &b, &np, &e) == 0 && np == 3 && b.color[6] == GT_WHITE,
	   "White moving twice may retake after its first move");
	snprintf(s, sizeof s, "(;SZ[5]AB[aa][ba]AW[ab][bb][ca];W[tt];B[ee])");
	g = one(s);
	ok(g && gt_sgf_replay(g, rules, &b, &np, &e) == GT_EINVAL && strstr(e.text, "setup stone"),
	   "setup stones without a liberty are reported (%s)", g ? e.text : "");
}

static void test_writer(void)
{
	gt_sgf_game g;
	char buf[32];
	is_int(gt_sgf_game_init(&g, 20), GT_EUNSUPPORTED, "init: 20 unsupported");
	gt_sgf_game_release(&g);
	is_int(gt_sgf_game_init(&g, 9), 0, "init 9x9");
	g.komi = 7.5;
	ok(gt_sgf_add_move(&g, GT_BLACK, 40) == 0 && gt_sgf_add_move(&g, GT_WHITE, 81) == 0 &&
	   gt_sgf_add_move(&g, GT_WHITE, 20) == 0, "moves added");
	is_int(gt_sgf_add_move(&g, 3, 0), GT_EINVAL, "bad colour refused");
	is_int(gt_sgf_add_move(&g, GT_BLACK, 82), GT_EOFFBOARD, "bad point refused");
	is_int(gt_sgf_add_setup(&g, GT_BLACK, 81), GT_EOFFBOARD, "setup off board refused");
	ok(gt_sgf_prop_set(&g, "PB", "a]b\\c", 5) == 0 && gt_sgf_prop_set(&g, "PW", "Ünï", 5) == 0 &&
	   gt_sgf_prop_set(&g, "RU", "chinese", 7) == 0, "props set");
	is_int(gt_sgf_prop_set(&g, "pb", "x", 1), GT_EINVAL, "lowercase id refused");
	g.winner = GT_WIN_WHITE;
	g.method = GT_BY_SCORE;
	g.has_margin = 1;
	g.margin = 3.5;
	is_str(gt_sgf_result_str(&g, buf), "W+3.5", "result string");
	char *s = gt_sgf_write_str(&g, NULL);
	is_str(s, "(;GM[1]FF[4]CA[UTF-8]AP[gt:" GT_VERSION "]SZ[9]KM[7.5]RU[chinese]\n"
	       "PB[a\\]b\\\\c]PW[Ünï]RE[W+3.5]\n;B[ee];W[];W[cc]\n)\n", "written text");
	free(s);
	round_trip(&g, "built game");
	gt_sgf_add_setup(&g, GT_BLACK, 0);
	gt_sgf_add_setup(&g, GT_WHITE, 80);
	gt_sgf_add_setup(&g, GT_BLACK, 80);
	ok(g.nblack == 2 && g.nwhite == 0 && g.black[1] == 80, "setup stone replaced");
	g.first = GT_WHITE;
	round_trip(&g, "built game with setup");
	gt_sgf_game_release(&g);
	ok(g.moves == NULL && g.nmoves == 0, "released");
}

/* Random truncations and mutations of the sample files: no crash, every
 * error has an offset inside the input and a text, every good game holds
 * legal data that the board accepts or refuses cleanly. */
static void test_fuzz(void)
{
	static const char *files[] = {"collection-two-broken.sgf", "compressed-points.sgf",
		"escapes.sgf", "handicap-4.sgf", "variations.sgf", "empty-nodes-crlf.sgf",
		"results.sgf", "markup-last-node.sgf", "rect-9x13.sgf", "fox-komi-x50.sgf"};
	static const char special[] = "[]();\\:\n ABWtSZ9";
	uint64_t seed = 12345;
	long cases = 0, bad_games = 0, good_games = 0, bad_err = 0, replayed = 0;
	gt_board b;
	for (size_t f = 0; f <= sizeof files / sizeof files[0]; f++) {
		size_t len;
		if (f == sizeof files / sizeof files[0])
			snprintf(path, sizeof path, "/usr/share/goban/M-95-3.mgt"); /* variations, markup */
		else
			snprintf(path, sizeof path, "%s/data/sgf/%s", dir, files[f]);
		char *orig = slurp(path, &len);
		if (!orig)
			continue;
		for (int t = 0; t < 600; t++) {
			char *m = malloc(len + 8);
			size_t mlen = len;
			memcpy(m, orig, len);
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			uint64_t r = seed >> 17;
			if (t < 150) {
				mlen = r % (len + 1); /* truncation */
			} else {
				int edits = 1 + (int)(r % 4);
				for (int e = 0; e < edits; e++) {
					seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
					r = seed >> 17;
					size_t at = r % len;
					if (r & 0x10000)
						m[at] = special[(r >> 20) % (sizeof special - 1)];
					else
						m[at] = (char)(r >> 24);
				}
			}
			gt_sgf_game *gs = NULL;
			int n = 0;
			gt_error e;
			int rc = gt_sgf_parse(m, mlen, &gs, &n, &e);
			cases++;
			if (rc != 0 && rc != GT_EFORMAT)
				bad_err++;
			for (int i = 0; i < n; i++) {
				gt_sgf_game *g = &gs[i];
				if (g->err) {
					bad_games++;
					if (g->err >= 0 || g->error.offset < 0 || (size_t)g->error.offset > mlen ||
					    !g->error.text[0])
						bad_err++;
				} else {
					good_games++;
					for (int k = 0; k < g->nmoves; k++)
						if (g->moves[k].pt < 0 || g->moves[k].pt > GT_PASS(g->size) ||
						    g->moves[k].offset < 0 || (size_t)g->moves[k].offset >= mlen)
							bad_err++;
					int np;
					if (gt_sgf_replay(g, rules, &b, &np, &e) == 0)
						replayed++;
					char *w = gt_sgf_write_str(g, NULL);
					gt_sgf_game *h = NULL;
					int hn = 0;
					char why[128];
					if (gt_sgf_parse(w, strlen(w), &h, &hn, NULL) != 0 || hn != 1 ||
					    !same_game(g, &h[0], why, sizeof why)) {
						bad_err++;
						diag("fuzz round trip of %s case %d: %s", path, t, why);
					}
					gt_sgf_free(h, hn);
					free(w);
				}
			}
			gt_sgf_free(gs, n);
			free(m);
		}
		free(orig);
	}
	diag("fuzz: %ld inputs, %ld good games (%ld replayed), %ld bad games", cases, good_games,
	     replayed, bad_games);
	ok(cases >= 6000, "fuzz: %ld mutated inputs read", cases);
	ok(bad_games > 500 && good_games > 500, "fuzz: both good and bad games seen");
	is_int(bad_err, 0, "fuzz: every error is negative with an offset inside the input and a text; "
	       "good games hold points on the board and round-trip");
}

int main(void)
{
	rules = gt_rules_find("chinese");
	ok(rules != NULL, "chinese rules exist");
	test_points();
	test_komi();
	test_results();
	test_syntax();
	test_writer();
	test_replay_ko();
	dir = shared_dir();
	if (!dir) {
		/* a clone without the project's shared/ beside it: CI always has it */
		diag("shared/ not found beside the checkout (GT_SRC/../shared): file tests skipped");
	} else {
		test_files();
		test_fuzz();
	}
	one(NULL); /* frees the last one() game */
	return done_testing();
}
