/* feat.c: position to network input (see feat.h, man5 gt-model). */
#include "feat.h"
#include "gt.h"
#include "sym.h"

#include <string.h>

void gt_feat_buf_fit(gt_feat_buf *fb, int nb, int n, int nplanes, int nglobals)
{
	if (nb <= fb->cap_pos && n <= fb->cap_n)
		return;
	fb->cap_pos = nb > fb->cap_pos ? nb : fb->cap_pos;
	fb->cap_n = n > fb->cap_n ? n : fb->cap_n;
	size_t sp = (size_t)fb->cap_pos * nplanes * fb->cap_n * fb->cap_n;
	fb->planes = gt_xrealloc(fb->planes, sp * sizeof(float));
	fb->globals = gt_xrealloc(fb->globals, (size_t)fb->cap_pos * nglobals * sizeof(float));
}

void gt_feat_buf_release(gt_feat_buf *fb)
{
	gt_free_all(fb->planes, fb->globals);
	*fb = (gt_feat_buf){ 0 };
}

int gt_feat_encode_sym(const gt_board *b, int k, float *planes, float *globals)
{
	if (!b || b->n < 2 || b->n > GT_MAX_N || !b->rules)
		return GT_EINVAL;
	int n = b->n, np = n * n, me = b->to_move;
	if (planes) {
		int sym[GT_MAX_PTS];
		for (int p = 0; p < np; p++)
			sym[p] = gt_sym_point(n, k, p);
		memset(planes, 0, sizeof(float) * GT_FEAT_PLANES * np);
		for (int p = 0; p < np; p++) {
			int q = sym[p], c = b->color[p];
			planes[0 * np + q] = 1;
			if (c == GT_EMPTY)
				continue;
			int libs = gt_board_liberties(b, p);
			int l = libs >= 3 ? 2 : libs - 1;
			if (l < 0)
				l = 0;
			int base = c == me ? 1 : 2, lbase = c == me ? 3 : 6;
			planes[base * np + q] = 1;
			planes[(lbase + l) * np + q] = 1;
		}
		if (b->ko >= 0 && b->ko < np)
			planes[9 * np + sym[b->ko]] = 1;
		for (int h = 0; h < GT_FEAT_HISTORY && h < b->nmoves; h++) {
			int m = b->hist_move[b->nmoves - 1 - h];
			if (m >= 0 && m < np)
				planes[(10 + h) * np + sym[m]] = 1;
		}
	}
	if (globals) {
		memset(globals, 0, sizeof(float) * GT_FEAT_GLOBALS);
		globals[0] = (float)((me == GT_WHITE ? b->komi : -b->komi) / 20.0);
		for (int h = 0; h < GT_FEAT_HISTORY && h < b->nmoves; h++)
			if (b->hist_move[b->nmoves - 1 - h] == np)
				globals[1 + h] = 1;
		/* gt's networks learn area rules only: a territory ruleset is
		 * shown as chinese (its value and score are then area's) */
		const gt_rules *r = b->rules->scoring == GT_SCORE_AREA ? b->rules : gt_rules_find("chinese");
		if (r->id >= 0 && r->id < 3)
			globals[6 + r->id] = 1;
		globals[9] = r->ko != GT_KO_SIMPLE;
		globals[10] = r->multi_suicide != 0;
	}
	return 0;
}

int gt_feat_encode(const gt_board *b, float *planes, float *globals)
{
	return gt_feat_encode_sym(b, 0, planes, globals);
}
