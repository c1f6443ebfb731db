/* Tests of lib/report's pure parts: the chained Elo's rule for one match
 * (share/gt/examples/9x9-from-zero's rule, worked out by hand) and the
 * picture of a position (stones counted in the SVG text). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "report.h"
#include "tap.h"

static int count(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

int main(void)
{
	is_dbl(gt_report_chain_gain(35.5, -10, 80), 35.5, 0, "a finite Elo counts as it is");
	is_dbl(gt_report_chain_gain(-12, -90, 60), -12, 0, "a negative one too");
	is_dbl(gt_report_chain_gain(INFINITY, 28.37, INFINITY), 28.37, 0,
	       "every game won: the interval's lower end");
	is_dbl(gt_report_chain_gain(INFINITY, -5, INFINITY), 0, 0, "every game won, lower end below 0: nothing");
	is_dbl(gt_report_chain_gain(INFINITY, NAN, NAN), 0, 0, "every game won, no interval: nothing");
	is_dbl(gt_report_chain_gain(-INFINITY, -INFINITY, -80.25), -80.25, 0,
	       "every game lost: the interval's upper end");
	is_dbl(gt_report_chain_gain(-INFINITY, -INFINITY, 3), 0, 0, "every game lost, upper end above 0: nothing");
	is_dbl(gt_report_chain_gain(NAN, NAN, NAN), 0, 0, "no decisive game: nothing");

	/* 3x3: black at A3 (point 0) and B2 (4), white at C1 (8), last move C1 */
	unsigned char c[9] = { GT_BLACK, GT_EMPTY, GT_EMPTY, GT_EMPTY, GT_BLACK, GT_EMPTY, GT_EMPTY, GT_EMPTY,
	                       GT_WHITE };
	char *s = gt_report_board_svg(3, c, 8, 100);
	ok(!strncmp(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\"", 60), "an SVG of 100 px");
	is_int(count(s, "fill=\"#000\""), 2, "two black stones");
	is_int(count(s, "fill=\"#fff\""), 1, "one white stone");
	is_int(count(s, "fill=\"none\""), 1, "one mark on the last move");
	/* the grid: 3 lines each way, from 25 to 75 px (cell 100/4) */
	is_int(count(s, "M25.0 25.0H75.0"), 1, "the first horizontal line");
	is_int(count(s, "M75.0 25.0V75.0"), 1, "the last vertical line");
	ok(strstr(s, "cx=\"25.0\" cy=\"25.0\"") != NULL, "A3 at the top left");
	ok(strstr(s, "cx=\"75.0\" cy=\"75.0\" r=\"11.8\" fill=\"#fff\"") != NULL, "C1 white at the bottom right");
	free(s);
	return done_testing();
}
