/* gtp: conversations with the GTP engine core. Expected responses follow
 * the GTP version 2 draft (www.lysator.liu.se/~gunnar/gtp/): "=[id] result"
 * or "?[id] message" then an empty line; the error texts are the spec's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* a streaming command: two lines, then as many more as gt_gtp_io_wait
 * allows (it writes the next command to the pipe of user after the first
 * wait that finds nothing) */
struct pipe_ctx {
	int wfd;
	int waits, lines;
};

static int x_stream(void *user, gt_gtp *g, int argc, char **argv, gt_gtp_io *io)
{
	struct pipe_ctx *c = user;
	if (argc > 0)
		return gt_gtp_io_fail(io, "no arguments, got %s", argv[0]);
	gt_gtp_io_line(io, "info a");
	gt_gtp_io_line(io, "info b\n\nc\n"); /* no empty line gets out */
	c->lines = 2;
	while (!gt_gtp_io_wait(io, 0.01)) {
		c->waits++;
		gt_gtp_io_line(io, "more %d", c->waits);
		c->lines++;
		if (c->waits == 3 && c->wfd >= 0) {
			(void)!write(c->wfd, "name\n", 5);
			close(c->wfd);
			c->wfd = -1;
		}
	}
	return 0;
}

/* the 9x9 finished position of tests/cmd/gtp-sabaki.t: Black A-D, White
 * E-J, a dead white stone B6 and a dead black one G6 (GNU Go 3.8
 * --chinese-rules: final_status_list dead B6 G6, final_score W+16.5) */
static const char *const finished[] = {
	". X . X O . O . .", /* rows from 1 (bottom) up */
	"X X X X O O O O O",
	". X . X O . O . .",
	"X X X X O O O O O",
	". . . X O . . . .",
	". O . X O . X . .",
	". . . X O . . . .",
	"X X X X O O O O O",
	". X . X O . O . .",
};

static void play_finished(gt_gtp *g)
{
	char cmd[32];
	gt_gtp_exec(g, "boardsize 9", NULL);
	gt_gtp_exec(g, "komi 7.5", NULL);
	for (int y = 0; y < 9; y++)
		for (int x = 0; x < 9; x++) {
			char c = finished[y][2 * x];
			if (c == '.')
				continue;
			snprintf(cmd, sizeof cmd, "play %c %c%d", c == 'X' ? 'b' : 'w', "ABCDEFGHJ"[x], y + 1);
			gt_gtp_exec(g, cmd, NULL);
		}
	gt_gtp_exec(g, "play b pass", NULL);
	gt_gtp_exec(g, "play w pass", NULL);
}

/* the handicap commands, the end of the game, SGF, KGS extensions,
 * streaming */
static void test_more(void)
{
	const gt_rules *chinese = gt_rules_find("chinese");
	gt_gtp *g = gt_gtp_new(9, chinese, 7.5, NULL, NULL);
	int pts[9];

	/* fixed handicap: the points GNU Go 3.8 answers (as sets) */
	is_int(gt_gtp_fixed_handicap(9, 5, pts), 5, "9x9: 5 stones");
	is_int(gt_gtp_fixed_handicap(7, 5, pts), GT_EINVAL, "7x7: at most 4");
	is_int(gt_gtp_fixed_handicap(8, 5, pts), GT_EINVAL, "8x8: at most 4");
	is_int(gt_gtp_fixed_handicap(6, 2, pts), GT_EINVAL, "6x6: none");
	is_int(gt_gtp_fixed_handicap(19, 10, pts), GT_EINVAL, "19x19: at most 9");
	is_int(gt_gtp_fixed_handicap(19, 1, pts), GT_EINVAL, "at least 2");
	say(g, "1 fixed_handicap 5", "=1 C3 G7 C7 G3 E5\n\n", "fixed_handicap 5 on 9x9 (GNU Go: C7 G7 E5 C3 G3)");
	is_int(gt_gtp_board(g)->to_move, GT_WHITE, "White to move after handicap");
	say(g, "fixed_handicap 2", "? board not empty\n\n", "a second handicap: board not empty");
	say(g, "undo", "? cannot undo\n\n", "handicap stones are not moves");
	say(g, "play w E6", "= \n\n", "white plays");
	say(g, "undo", "= \n\n", "undo it");
	is_int(gt_gtp_board(g)->color[gt_vertex_parse(9, "E5")], GT_BLACK, "the handicap stays");
	say(g, "boardsize 19", "= \n\n", "19x19");
	say(g, "fixed_handicap 9", "= D4 Q16 D16 Q4 D10 Q10 K16 K4 K10\n\n",
	    "fixed_handicap 9 on 19x19 (GNU Go: D16 K16 Q16 D10 K10 Q10 D4 K4 Q4)");
	say(g, "clear_board", "= \n\n", "clear");
	say(g, "fixed_handicap 3", "= D4 Q16 D16\n\n", "fixed_handicap 3 (GNU Go: D16 Q16 D4)");
	say(g, "boardsize 13", "= \n\n", "13x13");
	say(g, "fixed_handicap 6", "= D4 K10 D10 K4 D7 K7\n\n", "fixed_handicap 6 on 13x13 (GNU Go: D10 K10 D7 K7 D4 K4)");
	say(g, "boardsize 7", "= \n\n", "7x7");
	say(g, "fixed_handicap 5", "? invalid number of stones\n\n", "fixed_handicap 5 on 7x7");
	say(g, "fixed_handicap x", "? syntax error\n\n", "fixed_handicap x");
	say(g, "place_free_handicap 1", "? invalid number of stones\n\n", "place_free_handicap 1");
	say(g, "place_free_handicap 49", "? invalid number of stones\n\n", "place_free_handicap 49 on 7x7");
	say(g, "place_free_handicap 4", "= C3 E5 C5 E3\n\n", "place_free_handicap 4 on 7x7: the fixed points");
	say(g, "boardsize 9", "= \n\n", "9x9");
	{
		const char *r = gt_gtp_exec(g, "place_free_handicap 12", NULL);
		char *s = gt_xstrdup(r + 2), *save = NULL;
		int k = 0, edge = 0, dup = 0;
		for (char *t = strtok_r(s, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
			int p = gt_vertex_parse(9, t);
			k++;
			edge += p % 9 == 0 || p % 9 == 8 || p / 9 == 0 || p / 9 == 8;
			dup += gt_gtp_board(g)->color[p] != GT_BLACK;
		}
		free(s);
		ok(k == 12 && edge == 0 && dup == 0 && gt_gtp_board(g)->nstones[GT_BLACK] == 12,
		   "place_free_handicap 12 on 9x9: 12 black stones off the first line (%d, %d, %d)", k, edge, dup);
	}
	say(g, "clear_board", "= \n\n", "clear");
	say(g, "set_free_handicap A1 A1", "? bad vertex list\n\n", "a vertex twice: bad vertex list");
	say(g, "set_free_handicap A1 pass", "? bad vertex list\n\n", "pass: bad vertex list");
	say(g, "set_free_handicap A1 Z9", "? bad vertex list\n\n", "off the board: bad vertex list");
	say(g, "set_free_handicap A1 x", "? syntax error\n\n", "not a vertex: syntax error");
	say(g, "set_free_handicap", "? syntax error\n\n", "no vertex: syntax error");
	say(g, "set_free_handicap D4 F6", "= \n\n", "set_free_handicap D4 F6");
	ok(gt_gtp_board(g)->color[gt_vertex_parse(9, "D4")] == GT_BLACK &&
	   gt_gtp_board(g)->color[gt_vertex_parse(9, "F6")] == GT_BLACK &&
	   gt_gtp_board(g)->to_move == GT_WHITE, "two black stones, White to move");
	say(g, "play w C3", "= \n\n", "a move");
	say(g, "set_free_handicap E5 F5", "? board not empty\n\n", "then: board not empty");

	/* komi */
	say(g, "komi 6.5", "= \n\n", "komi 6.5");
	say(g, "get_komi", "= 6.5\n\n", "get_komi");

	/* KGS time settings */
	say(g, "kgs-time_settings canadian 0 30 10", "= \n\n", "canadian");
	is_dbl(gt_gtp_budget(g, GT_BLACK), 3, 1e-9, "canadian 30 s for 10 stones: 3 s a move");
	say(g, "kgs-time_settings byoyomi 0 5 3", "= \n\n", "byoyomi");
	is_dbl(gt_gtp_budget(g, GT_BLACK), 5, 1e-9, "byo-yomi periods of 5 s: 5 s a move");
	say(g, "kgs-time_settings absolute 283.5", "= \n\n", "absolute");
	is_dbl(gt_gtp_budget(g, GT_BLACK), 283.5 / 27.35, 1e-9, "absolute 283.5 s: / 27.35 moves");
	say(g, "kgs-time_settings none", "= \n\n", "none");
	is_dbl(gt_gtp_budget(g, GT_BLACK), -1, 0, "no limit");
	say(g, "kgs-time_settings canadian 0 30", "? syntax error\n\n", "canadian needs 3 numbers");
	say(g, "kgs-time_settings hourglass 60", "? syntax error\n\n", "unknown system");

	/* KGS rules: the game is kept */
	say(g, "kgs-rules new_zealand", "= \n\n", "kgs-rules new_zealand");
	is_str(gt_gtp_board(g)->rules->name, "new-zealand", "new-zealand rules");
	is_int(gt_gtp_board(g)->color[gt_vertex_parse(9, "C3")], GT_WHITE, "the game kept");
	say(g, "kgs-rules japanese", "= \n\n", "kgs-rules japanese");
	is_str(gt_gtp_board(g)->rules->name, "japanese", "japanese rules (territory counting)");
	say(g, "kgs-rules chinese", "= \n\n", "kgs-rules chinese");
	say(g, "kgs-rules go-moku", "? unknown rules\n\n", "kgs-rules unknown");

	/* the end of a game: dead stones and the score that agrees */
	play_finished(g);
	say(g, "final_status_list dead", "= B6\nG6\n\n", "final_status_list dead: B6, G6 (as GNU Go)");
	say(g, "final_status_list seki", "= \n\n", "final_status_list seki: none");
	{
		const char *r = gt_gtp_exec(g, "final_status_list alive", NULL);
		ok(r && strncmp(r, "= ", 2) == 0 && strstr(r, "D5") && strstr(r, "E5") && !strstr(r, "B6"),
		   "final_status_list alive: the walls, not B6");
	}
	say(g, "final_status_list", "? syntax error\n\n", "final_status_list without argument");
	say(g, "final_status_list dying", "? syntax error\n\n", "final_status_list dying");
	say(g, "final_score", "= W+16.5\n\n", "final_score W+16.5 (as GNU Go)");
	/* Japanese counting of the same game: Black 15 points of territory
	 * (B6's among them) and 1 prisoner (B6), White 21 (G6's) and 1 (G6),
	 * komi 7.5: W+13.5, as GNU Go 3.8 --japanese-rules */
	say(g, "kgs-rules japanese", "= \n\n", "kgs-rules japanese, the game kept");
	say(g, "final_score", "= W+13.5\n\n", "final_score by territory W+13.5 (as GNU Go)");
	say(g, "kgs-rules chinese", "= \n\n", "kgs-rules chinese");
	/* cleanup: a pass is not taken while dead stones are left */
	struct cb pc = { 0, 0, GT_PASS(9), 0 };
	gt_gtp_set_genmove(g, fixed_genmove, &pc);
	{
		const char *r = gt_gtp_exec(g, "kgs-genmove_cleanup b", NULL);
		ok(r && (!strcmp(r, "= A6\n\n") || !strcmp(r, "= C6\n\n") || !strcmp(r, "= B5\n\n") ||
		         !strcmp(r, "= B7\n\n")), "kgs-genmove_cleanup b: next to B6, not pass (%.*s)",
		   r ? (int)strcspn(r, "\n") : 0, r ? r : "");
	}
	say(g, "genmove w", "= pass\n\n", "genmove w passes (the callback)");
	gt_gtp_set_genmove(g, NULL, NULL);

	/* SGF: printsgf and loadsgf */
	char path[] = "/tmp/gt-gtp-sgf-XXXXXX";
	int fd = mkstemp(path);
	ok(fd >= 0, "temporary file");
	close(fd);
	gt_gtp_exec(g, "boardsize 9", NULL);
	gt_gtp_exec(g, "komi 5.5", NULL);
	gt_gtp_exec(g, "fixed_handicap 2", NULL);
	gt_gtp_exec(g, "play w E5", NULL);
	gt_gtp_exec(g, "play b D4", NULL);
	gt_gtp_exec(g, "play w pass", NULL);
	gt_gtp_exec(g, "play b pass", NULL);
	gt_gtp_exec(g, "play w F6", NULL);
	{
		const char *r = gt_gtp_exec(g, "printsgf", NULL);
		ok(r && strstr(r, "SZ[9]KM[5.5]") && strstr(r, "AB[gc][cg]PL[W]") &&
		   strstr(r, ";W[ee];B[df];W[];B[];W[fd]") && !strstr(r, "\n\n\n"),
		   "printsgf: size, komi, handicap, moves, passes");
	}
	char cmd[96];
	snprintf(cmd, sizeof cmd, "printsgf %s", path);
	say(g, cmd, "= \n\n", "printsgf FILE");
	gt_board before;
	gt_board_copy(&before, gt_gtp_board(g));
	say(g, "clear_board", "= \n\n", "clear");
	snprintf(cmd, sizeof cmd, "loadsgf %s", path);
	say(g, cmd, "= black\n\n", "loadsgf FILE: Black to move");
	ok(memcmp(before.color, gt_gtp_board(g)->color, 81) == 0, "the same position");
	say(g, "get_komi", "= 5.5\n\n", "and komi");
	say(g, "undo", "= \n\n", "undo after loadsgf");
	is_int(gt_gtp_board(g)->color[gt_vertex_parse(9, "F6")], GT_EMPTY, "F6 taken back");
	snprintf(cmd, sizeof cmd, "loadsgf %s 3", path);
	say(g, cmd, "= white\n\n", "loadsgf FILE 3: before move 3 (White's pass)");
	ok(gt_gtp_board(g)->color[gt_vertex_parse(9, "E5")] == GT_WHITE &&
	   gt_gtp_board(g)->color[gt_vertex_parse(9, "D4")] == GT_BLACK && gt_gtp_board(g)->nmoves == 2,
	   "two moves played");
	snprintf(cmd, sizeof cmd, "loadsgf %s 1", path);
	say(g, cmd, "= white\n\n", "loadsgf FILE 1: the handicap position, White to move");
	unlink(path);
	char want[300];
	snprintf(want, sizeof want, "? cannot load file: %s: No such file or directory\n\n", path);
	say(g, cmd, want, "a missing file, named with the reason");
	say(g, "loadsgf", "? syntax error\n\n", "loadsgf without a file");
	is_int(gt_gtp_board(g)->nstones[GT_BLACK], 2, "the position is kept after a failed load");

	/* gogui-analyze_commands */
	{
		const char *r = gt_gtp_exec(g, "gogui-analyze_commands", NULL);
		ok(r && strstr(r, "plist/Dead stones/final_status_list dead\n"), "gogui-analyze_commands");
	}

	/* a streaming command under gt_gtp_exec: it stops at the first wait */
	struct pipe_ctx pc2 = { -1, 0, 0 };
	is_int(gt_gtp_register_stream(g, "gt-stream", x_stream, &pc2), 0, "register a streaming command");
	say(g, "7 gt-stream", "=7\ninfo a\ninfo b\nc\n\n", "its lines, one response");
	say(g, "8 gt-stream x", "?8 no arguments, got x\n\n", "a failure before it begins");
	gt_gtp_free(g);

	/* and under gt_gtp_run on a pipe: it goes on until the next command
	 * (which it writes itself after its third wait, then ends the input) */
	{
		int p[2];
		char out[4096] = "";
		if (pipe(p) != 0)
			return;
		(void)!write(p[1], "1 gt-stream\n", 12);
		FILE *fi = fdopen(p[0], "r");
		FILE *fo = fmemopen(out, sizeof out, "w");
		g = gt_gtp_new(9, chinese, 7.5, NULL, NULL);
		struct pipe_ctx pc3 = { p[1], 0, 0 };
		gt_gtp_register_stream(g, "gt-stream", x_stream, &pc3);
		int rc = gt_gtp_run(g, fi, fo);
		fclose(fi);
		fclose(fo);
		is_int(rc, 0, "run returns 0");
		is_str(out, "=1\ninfo a\ninfo b\nc\nmore 1\nmore 2\nmore 3\n\n= gt\n\n",
		       "lines until the next command, then the empty line, then its answer");
		is_int(pc3.waits, 3, "three waits found nothing");
		gt_gtp_free(g);
	}
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
	    "boardsize\nclear_board\nkomi\nget_komi\nplay\ngenmove\nundo\nshowboard\n"
	    "fixed_handicap\nplace_free_handicap\nset_free_handicap\nfinal_score\n"
	    "final_status_list\ntime_settings\ntime_left\nkgs-time_settings\nkgs-rules\n"
	    "kgs-genmove_cleanup\nloadsgf\nprintsgf\ngogui-analyze_commands\ngt-rules\n"
	    "kata-get-rules\nkata-set-rules\nstop\nclear_cache\n\n",
	    "list_commands");
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
	say(g, "play w pass", "= \n\n", "white passes after black's pass");
	say(g, "play b C3", "= \n\n", "a move after two passes: the game goes on (GTP)");
	is_int(gt_gtp_board(g)->color[gt_vertex_parse(9, "C3")], GT_BLACK, "C3 is on the board");
	is_int(gt_gtp_board(g)->color[40], GT_WHITE, "and E5 still");
	say(g, "play w C3", "? illegal move\n\n", "the board goes on: C3 is taken");
	say(g, "undo", "= \n\n", "undo C3");
	is_int(gt_gtp_board(g)->passes, 2, "back after the two passes");
	cb.calls = 0;
	cb.move = GT_PASS(9);
	say(g, "genmove b", "= pass\n\n", "genmove after two passes");
	is_int(cb.calls, 1, "asks the callback");
	is_int(cb.color, GT_BLACK, "for black");
	say(g, "undo", "= \n\n", "undo that pass");
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
		ok(r && strstr(r, "\nclear_cache\ngt-echo\ngt-lines\ngt-stone\n\n") != NULL,
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
	test_more();
	return done_testing();
}
