/* gtp: conversations with the GTP engine core. Expected responses follow
 * the GTP version 2 draft (www.lysator.liu.se/~gunnar/gtp/): "=[id] result"
 * or "?[id] message" then an empty line; the error texts are the spec's. */
#include <stdint.h>
#include <stdio.h>

#include "board.h"
#include "gtp.h"
#include "tap.h"

/* line -> exact response (NULL: no response) */
static void say(gt_gtp *g, const char *line, const char *want, const char *name)
{
	const char *got = gt_gtp_exec(g, line, NULL);
	if (!want) {
		ok(got == NULL, "%s: no response", name);
		if (got)
			diag("  got '%s'", got);
		return;
	}
	is_str(got, want, "%s", name);
}

struct cb {
	int calls, color, move;
	double budget;
};

static int fixed_genmove(void *user, const gt_board *b, int color, double budget_s, int *move)
{
	struct cb *c = user;
	c->calls++;
	c->color = color;
	c->budget = budget_s;
	*move = c->move;
	return 0;
}

static int failing_genmove(void *user, const gt_board *b, int color, double budget_s, int *move)
{
	return GT_EIO;
}

static int x_echo(void *user, gt_gtp *g, int argc, char **argv, char *out, size_t size)
{
	size_t k = 0;
	if (argc == 0) {
		snprintf(out, size, "need arguments");
		return -1;
	}
	out[0] = 0;
	for (int i = 0; i < argc && k < size; i++)
		k += snprintf(out + k, size - k, "%s%s", i ? " " : "", argv[i]);
	return 0;
}

static int x_lines(void *user, gt_gtp *g, int argc, char **argv, char *out, size_t size)
{
	snprintf(out, size, "a\n\nb\n");
	return 0;
}

static int x_name(void *user, gt_gtp *g, int argc, char **argv, char *out, size_t size)
{
	snprintf(out, size, "%s", (const char *)user);
	return 0;
}

/* places a black setup stone (a handicap-like extension using board_mut) */
static int x_stone(void *user, gt_gtp *g, int argc, char **argv, char *out, size_t size)
{
	gt_board *b = gt_gtp_board_mut(g);
	int pt = argc == 1 ? gt_vertex_parse(b->n, argv[0]) : GT_EFORMAT;
	if (pt < 0 || gt_board_setup(b, GT_BLACK, pt) != 0) {
		snprintf(out, size, "syntax error");
		return -1;
	}
	return 0;
}

int main(void)
{
	const gt_rules *chinese = gt_rules_find("chinese");
	gt_gtp *g = gt_gtp_new(9, chinese, 7.5, "gt-test", "1.2.3");
	int quit = 0;
	ok(g != NULL, "engine created");
	ok(gt_gtp_new(25, chinese, 7.5, NULL, NULL) == NULL, "25x25 refused");

	/* administrative commands */
	say(g, "protocol_version", "= 2\n\n", "protocol_version");
	say(g, "1 protocol_version\n", "=1 2\n\n", "id echoed");
	say(g, "name", "= gt-test\n\n", "name");
	say(g, "version", "= 1.2.3\n\n", "version");
	say(g, "known_command play", "= true\n\n", "known_command play");
	say(g, "known_command genmove", "= true\n\n", "known_command genmove");
	say(g, "known_command xyzzy", "= false\n\n", "known_command unknown");
	say(g, "known_command", "? syntax error\n\n", "known_command without argument");
	say(g, "list_commands",
	    "= protocol_version\nname\nversion\nknown_command\nlist_commands\nquit\n"
	    "boardsize\nclear_board\nkomi\nplay\ngenmove\nundo\nshowboard\nfinal_score\n"
	    "time_settings\ntime_left\ngt-rules\n\n", "list_commands");
	say(g, "xyzzy", "? unknown command\n\n", "unknown command");
	say(g, "7 xyzzy 1 2", "?7 unknown command\n\n", "unknown command with id");
	say(g, "Name", "? unknown command\n\n", "command names are case-sensitive");

	/* preprocessing: empty lines, comments, CR, tabs, control characters */
	say(g, "", NULL, "empty line");
	say(g, "\n", NULL, "newline only");
	say(g, "  \t \r\n", NULL, "white space only");
	say(g, "# a comment", NULL, "comment line");
	say(g, "   # indented comment", NULL, "indented comment");
	say(g, "2 name\r\n", "=2 gt-test\n\n", "CRLF tolerated");
	say(g, "3\tname # trailing comment\r\n", "=3 gt-test\n\n", "tab and trailing comment");
	say(g, "na\001me\033", "= gt-test\n\n", "control characters removed");
	say(g, "4 known_command#play", "?4 syntax error\n\n", "'#' cuts the arguments");

	/* board size and komi */
	say(g, "boardsize 1", "? unacceptable size\n\n", "boardsize 1");
	say(g, "boardsize 20", "? unacceptable size\n\n", "boardsize 20");
	say(g, "boardsize x", "? syntax error\n\n", "boardsize x");
	say(g, "boardsize 9.5", "? syntax error\n\n", "boardsize 9.5");
	say(g, "boardsize", "? syntax error\n\n", "boardsize without argument");
	say(g, "5 boardsize 5", "=5 \n\n", "boardsize 5");
	is_int(gt_gtp_board(g)->n, 5, "board is 5x5");
	say(g, "komi abc", "? syntax error\n\n", "komi abc");
	say(g, "komi 0", "= \n\n", "komi 0");
	say(g, "final_score", "= 0\n\n", "empty board, komi 0: a draw '0'");
	say(g, "komi 6.5", "= \n\n", "komi 6.5");
	say(g, "final_score", "= W+6.5\n\n", "empty board, komi 6.5: W+6.5");

	/* play */
	say(g, "play b C3", "= \n\n", "play b C3");
	say(g, "final_score", "= B+18.5\n\n", "one black stone owns the 5x5 board: 25 - 6.5");
	say(g, "play w C3", "? illegal move\n\n", "play on a stone");
	say(g, "play w F3", "? illegal move\n\n", "play off the 5x5 board");
	say(g, "play w I3", "? syntax error\n\n", "column I does not exist");
	say(g, "play x C2", "? syntax error\n\n", "bad colour");
	say(g, "play w", "? syntax error\n\n", "play without vertex");
	say(g, "play w c2 d2", "? syntax error\n\n", "play with extra argument");
	say(g, "play WHITE c2", "= \n\n", "colour and vertex case-insensitive");
	say(g, "play black pass", "= \n\n", "black passes");
	/* suicide: white stone at A1 with black at A2 and B1 */
	say(g, "play w A2", "= \n\n", "white A2");
	say(g, "play b B1", "= \n\n", "black B1");
	say(g, "play w pass", "= \n\n", "white passes");
	say(g, "play b A1", "= \n\n", "black A1 (not suicide: captures nothing but has B1)");
	{
		char want[4096], diagram[2048];
		gt_board_print(gt_gtp_board(g), diagram, sizeof diagram);
		diagram[strlen(diagram) - 1] = 0; /* the response ends with the empty line */
		snprintf(want, sizeof want, "=9 \n%s\n\n", diagram);
		say(g, "9 showboard", want, "showboard is the board diagram");
		ok(strstr(want, "X") != NULL && strstr(want, "\n\n") == want + strlen(want) - 2,
		   "showboard has no empty line inside");
	}

	/* undo */
	say(g, "undo", "= \n\n", "undo");
	is_int(gt_gtp_board(g)->color[gt_vertex_parse(5, "A1")], GT_EMPTY, "undo removed A1");
	say(g, "clear_board", "= \n\n", "clear_board");
	say(g, "undo", "? cannot undo\n\n", "undo on a cleared board");
	is_int(gt_gtp_board(g)->n, 5, "clear_board keeps the size");
	is_dbl(gt_gtp_board(g)->komi, 6.5, 0, "clear_board keeps komi");

	/* simple ko on 5x5: black takes at B3... build the shape
	 *   . X O . .      row 5
	 *   X O . O .      row 4    black plays C4 capturing B4? use a
	 *   . X O . .      row 3    classic ko: white B4 in atari, black C4
	 * takes, white B4 retakes immediately: illegal. */
	say(g, "play b B5", "= \n\n", "ko setup 1");
	say(g, "play w C5", "= \n\n", "ko setup 2");
	say(g, "play b A4", "= \n\n", "ko setup 3");
	say(g, "play w B4", "= \n\n", "ko setup 4");
	say(g, "play b B3", "= \n\n", "ko setup 5");
	say(g, "play w C3", "= \n\n", "ko setup 6");
	say(g, "play b E1", "= \n\n", "ko setup 7 (tenuki)");
	say(g, "play w D4", "= \n\n", "ko setup 8");
	say(g, "play b C4", "= \n\n", "black C4 captures B4");
	is_int(gt_gtp_board(g)->color[gt_vertex_parse(5, "B4")], GT_EMPTY, "B4 captured");
	say(g, "play w B4", "? illegal move\n\n", "immediate ko retake is an illegal move");
	say(g, "play w E2", "= \n\n", "ko threat");
	say(g, "play b E3", "= \n\n", "answer");
	say(g, "play w B4", "= \n\n", "ko retaken after a threat");
	/* white A5 is not suicide: it takes B5's last liberty */
	say(g, "play w A5", "= \n\n", "capturing into a surrounded point is legal");
	is_int(gt_gtp_board(g)->color[gt_vertex_parse(5, "B5")], GT_EMPTY, "B5 captured");
	/* suicide: black A2 and B1 (GTP may play one colour twice), white A1 */
	say(g, "clear_board", "= \n\n", "clear");
	say(g, "play b A2", "= \n\n", "black A2");
	say(g, "play b B1", "= \n\n", "black B1 again");
	say(g, "play w A1", "? illegal move\n\n", "single-stone suicide is an illegal move");

	/* genmove: default random, then a callback */
	say(g, "boardsize 9", "= \n\n", "back to 9x9");
	{
		const char *r = gt_gtp_exec(g, "genmove b", NULL);
		ok(r && r[0] == '=' && r[1] == ' ', "random genmove succeeds");
		char v[16] = "";
		sscanf(r + 2, "%15s", v);
		int pt = gt_vertex_parse(9, v);
		ok(pt >= 0 && pt < 81, "random genmove gives an on-board vertex %s", v);
		ok(pt >= 0 && pt < 81 && gt_gtp_board(g)->color[pt] == GT_BLACK, "and plays it");
	}
	struct cb cb = { 0, 0, 40, 0 }; /* E5 on 9x9 */
	gt_gtp_set_genmove(g, fixed_genmove, &cb);
	say(g, "clear_board", "= \n\n", "clear");
	say(g, "10 genmove w", "=10 E5\n\n", "callback genmove answers its vertex");
	is_int(cb.color, GT_WHITE, "callback got white");
	is_int(gt_gtp_board(g)->color[40], GT_WHITE, "E5 played for white");
	is_dbl(cb.budget, -1, 0, "no time settings: budget -1 (no limit)");
	say(g, "genmove b", "? genmove failed: engine chose an illegal move (point occupied)\n\n",
	    "an illegal move from the callback is an error");
	cb.move = GT_PASS(9);
	say(g, "genmove b", "= pass\n\n", "pass");
	cb.move = GT_GTP_RESIGN;
	say(g, "genmove w", "= resign\n\n", "resign");
	is_int(gt_gtp_board(g)->nmoves, 2, "resign is not played");
	say(g, "genmove", "? syntax error\n\n", "genmove without colour");
	say(g, "play w pass", "= \n\n", "white passes after black's pass: game over");
	say(g, "play b C3", "? illegal move\n\n", "no move after two passes");
	cb.calls = 0;
	say(g, "genmove b", "= pass\n\n", "genmove after the game ended: pass");
	is_int(cb.calls, 0, "without asking the callback");
	say(g, "undo", "= \n\n", "undo the last pass");
	cb.move = 30; /* D6 */
	say(g, "genmove w", "= D6\n\n", "the game goes on after undo");
	say(g, "undo", "= \n\n", "undo D6");
	say(g, "undo", "= \n\n", "undo black's pass");
	is_int(gt_gtp_board(g)->nmoves, 1, "one move (E5) left");
	say(g, "genmove z", "? syntax error\n\n", "genmove bad colour");
	gt_gtp_set_genmove(g, failing_genmove, NULL);
	say(g, "genmove b", "? genmove failed: input/output error\n\n", "failing callback");
	gt_gtp_set_genmove(g, fixed_genmove, &cb);

	/* time: budgets */
	say(g, "clear_board", "= \n\n", "clear");
	say(g, "time_settings 300 0 0", "= \n\n", "time_settings absolute 300 s");
	/* 0.35 * 81 = 28.35 moves left for black at move 0 */
	is_dbl(gt_gtp_budget(g, GT_BLACK), 300 / 28.35, 1e-9, "budget 300 / 28.35");
	say(g, "time_left b 100 0", "= \n\n", "time_left b 100 0");
	is_dbl(gt_gtp_budget(g, GT_BLACK), 100 / 28.35, 1e-9, "budget 100 / 28.35");
	say(g, "time_left b 5 0", "= \n\n", "time_left b 5 0");
	is_dbl(gt_gtp_budget(g, GT_BLACK), 5 / 28.35, 1e-9, "budget 5 / 28.35");
	gt_gtp_set_genmove(g, NULL, NULL);
	for (int i = 0; i < 40; i++)
		gt_gtp_exec(g, i % 2 ? "genmove w" : "genmove b", NULL);
	is_int(gt_gtp_board(g)->nmoves, 40, "40 random moves played");
	is_dbl(gt_gtp_budget(g, GT_BLACK), 0.5, 1e-9, "late in the game: at least 10 moves left assumed");
	say(g, "clear_board", "= \n\n", "clear");
	gt_gtp_set_genmove(g, fixed_genmove, &cb);
	say(g, "time_settings 600 30 5", "= \n\n", "time_settings canadian");
	is_dbl(gt_gtp_budget(g, GT_WHITE), 600 / 28.35 + 6, 1e-9, "main share plus a byo-yomi share");
	say(g, "time_left w 25 4", "= \n\n", "time_left in byo-yomi");
	is_dbl(gt_gtp_budget(g, GT_WHITE), 25 / 4.0, 1e-9, "byo-yomi: time / stones");
	cb.move = 40;
	say(g, "genmove w", "= E5\n\n", "genmove under time");
	is_dbl(cb.budget, 6.25, 1e-9, "callback receives the budget");
	say(g, "time_settings 0 1 0", "= \n\n", "time_settings 0 1 0: no time limit");
	is_dbl(gt_gtp_budget(g, GT_BLACK), -1, 0, "no limit");
	say(g, "time_settings 1 2", "? syntax error\n\n", "time_settings needs 3 numbers");
	say(g, "time_left q 1 0", "? syntax error\n\n", "time_left bad colour");

	/* rules */
	say(g, "gt-rules tromp-taylor", "= \n\n", "gt-rules tromp-taylor");
	is_str(gt_gtp_board(g)->rules->name, "tromp-taylor", "rules set");
	say(g, "gt-rules go-moku", "? unknown rules\n\n", "unknown rules");

	/* extra commands */
	is_int(gt_gtp_register(g, "gt-echo", x_echo, NULL), 0, "register gt-echo");
	is_int(gt_gtp_register(g, "gt-lines", x_lines, NULL), 0, "register gt-lines");
	is_int(gt_gtp_register(g, "gt-stone", x_stone, NULL), 0, "register gt-stone");
	is_int(gt_gtp_register(g, "12", x_echo, NULL), GT_EINVAL, "a number is no command name");
	is_int(gt_gtp_register(g, "a b", x_echo, NULL), GT_EINVAL, "nor a name with a space");
	is_int(gt_gtp_register(g, "", x_echo, NULL), GT_EINVAL, "nor an empty name");
	say(g, "known_command gt-echo", "= true\n\n", "extra command known");
	say(g, "3 gt-echo x  y", "=3 x y\n\n", "extra command runs with its arguments");
	say(g, "gt-echo", "? need arguments\n\n", "extra command failure");
	say(g, "gt-lines", "= a\nb\n\n", "empty lines of an extra command dropped");
	say(g, "clear_board", "= \n\n", "clear");
	say(g, "gt-stone D4", "= \n\n", "extra command changes the board");
	is_int(gt_gtp_board(g)->color[gt_vertex_parse(9, "D4")], GT_BLACK, "D4 is black");
	say(g, "play w D4", "? illegal move\n\n", "and play sees it");
	is_int(gt_gtp_register(g, "name", x_name, "other"), 0, "replace the built-in name");
	say(g, "name", "= other\n\n", "replaced name");
	{
		const char *r = gt_gtp_exec(g, "list_commands", NULL);
		ok(r && strstr(r, "\ngt-rules\ngt-echo\ngt-lines\ngt-stone\n\n") != NULL,
		   "list_commands lists extras after the built-ins");
		const char *p = r ? strstr(r, "name") : NULL;
		ok(p && !strstr(p + 1, "\nname\n"), "a replaced built-in is listed once");
	}

	/* quit */
	say(g, "quit", "= \n\n", "quit");
	gt_gtp_exec(g, "11 quit", &quit);
	is_int(quit, 1, "quit flag set");
	is_str(gt_gtp_exec(g, "11 quit", NULL), "=11 \n\n", "quit with id");
	gt_gtp_free(g);

	/* the stream loop stops at quit */
	{
		const char *in = "1 boardsize 7\r\n\n# c\nplay b D4\n2 final_score\nquit\nname\n";
		char out[512] = "";
		FILE *fi = fmemopen((void *)in, strlen(in), "r");
		FILE *fo = fmemopen(out, sizeof out, "w");
		g = gt_gtp_new(19, chinese, 0.5, NULL, NULL);
		is_int(gt_gtp_run(g, fi, fo), 0, "run returns 0");
		fclose(fi);
		fclose(fo);
		is_str(out, "=1 \n\n= \n\n=2 B+48.5\n\n= \n\n", "run: a session ending at quit");
		gt_gtp_free(g);
	}

	/* self-play with the random genmove: every move legal, ends by passes */
	{
		g = gt_gtp_new(9, chinese, 7.5, NULL, NULL);
		gt_gtp_seed(g, 12345);
		int moves = 0, errors = 0;
		char why[128] = "";
		while (!gt_board_over(gt_gtp_board(g)) && moves < 1000) {
			const char *r = gt_gtp_exec(g, moves % 2 ? "genmove w" : "genmove b", NULL);
			if (r[0] != '=')
				errors++;
			moves++;
		}
		ok(errors == 0 && gt_gtp_board(g)->passes == 2, "random self-play ends by two passes after %d moves", moves);
		is_int(gt_board_check(gt_gtp_board(g), why), 0, "board consistent %s", why);
		const char *r = gt_gtp_exec(g, "final_score", NULL);
		ok(r[0] == '=' && (r[2] == 'B' || r[2] == 'W' || r[2] == '0'), "final score %.*s", (int)strcspn(r, "\n"), r);
		gt_gtp_free(g);
	}
	return done_testing();
}
