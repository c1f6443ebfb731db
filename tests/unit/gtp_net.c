/* gtp_net: gt-gtp with a network that plays boards up to 9x9 (issue 17,
 * item 14): boardsize 13 is "unacceptable size" and the 9x9 game goes on,
 * never a failure at genmove; loadsgf of a 13x13 game is refused; and the
 * command gt-gtp refuses --board-size 13 with such a network at the start
 * (when $GT_BIN is set, as make check sets it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "gtp.h"
#include "model.h"
#include "neteval.h"
#include "testutil.h"

static void say(gt_gtp *g, const char *line, const char *want, const char *name)
{
	const char *got = gt_gtp_exec(g, line, NULL);
	is_str(got, want, "%s", name);
}

/* the output of a shell command line in buf (size bytes); its exit status */
static int run(const char *cmd, char *buf, size_t size)
{
	FILE *p = popen(cmd, "r");
	size_t n = p ? fread(buf, 1, size - 1, p) : 0;
	buf[n] = 0;
	return p ? pclose(p) : -1;
}

int main(void)
{
	char dir[256], path[512], sgf[512], cmd[2048], out[4096];
	test_tmpdir(dir, sizeof dir, "gtp_net");
	snprintf(path, sizeof path, "%s/n9.bin.gz", dir);
	gt_arch a;
	gt_error e;
	gt_model_parse_arch("b1c8", &a, &e);
	a.max_n = 9;
	gt_model *m = gt_model_new_random(&a, 7, &e);
	ok(m && gt_model_write(path, m, &e) == 0, "a b1c8 network for boards up to 9x9");
	gt_model_free(m);

	gt_evaluator ev;
	ok(gt_neteval_open_file(path, "cpu", &ev, NULL, 0, &e) == 0, "opened: %s", e.text);
	is_int(gt_neteval_max_n(&ev), 9, "gt_neteval_max_n: 9");
	gt_evaluator un = gt_evaluator_uniform();
	is_int(gt_neteval_max_n(&un), GT_MAX_N, "the uniform evaluator plays every size");

	gt_engine_params ep;
	gt_engine_params_default(&ep);
	ep.visits = 8;
	gt_engine *en = gt_engine_new(&ep, &ev);
	gt_gtp *g = gt_gtp_new(9, gt_rules_find("chinese"), 7.5, NULL, NULL);
	ok(gt_engine_attach(en, g) == 0, "engine attached");
	say(g, "1 boardsize 13", "?1 unacceptable size\n\n", "boardsize 13: unacceptable size");
	is_int(gt_gtp_board(g)->n, 9, "the board stays 9x9");
	say(g, "2 boardsize 19", "?2 unacceptable size\n\n", "boardsize 19: unacceptable size");
	say(g, "3 boardsize 7", "=3 \n\n", "boardsize 7 is fine");
	say(g, "4 boardsize 9", "=4 \n\n", "boardsize 9 is fine");
	const char *r = gt_gtp_exec(g, "5 genmove b", NULL);
	ok(r && r[0] == '=', "genmove on 9x9 answers a move: %s", r ? r : "(null)");
	snprintf(sgf, sizeof sgf, "%s/g13.sgf", dir);
	FILE *f = fopen(sgf, "w");
	fputs("(;GM[1]FF[4]SZ[13]KM[7.5];B[gg];W[dd])\n", f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "6 loadsgf %s", sgf);
	say(g, cmd, "?6 cannot load file: board size 13 is more than 9\n\n",
	    "loadsgf of a 13x13 game refused");
	is_int(gt_gtp_board(g)->n, 9, "the 9x9 game is kept");
	gt_gtp_free(g);
	gt_engine_free(en);

	const char *bin = getenv("GT_BIN");
	if (bin) {
		snprintf(cmd, sizeof cmd, "printf 'boardsize 13\\nboardsize 9\\ngenmove b\\nquit\\n' | "
		         "'%s/gt-gtp' -q --model '%s' --board-size 9 --visits 4 2>&1", bin, path);
		int st = run(cmd, out, sizeof out);
		is_int(st, 0, "gt-gtp --model (9x9 network): exit 0");
		ok(strncmp(out, "? unacceptable size\n\n= \n\n= ", 26) == 0,
		   "gt-gtp: boardsize 13 refused, then 9x9 and a move:\n%s", out);
		snprintf(cmd, sizeof cmd, "'%s/gt-gtp' --model '%s' --board-size 13 < /dev/null 2>&1",
		         bin, path);
		st = run(cmd, out, sizeof out);
		ok(st != 0 && strstr(out, "--board-size 13: ") && strstr(out, "plays boards up to 9x9"),
		   "gt-gtp --board-size 13 with it: refused at the start: %s", out);
	}
	test_rmdir(dir);
	return done_testing();
}
