/*
 * sgf_util.h: helpers shared by the SGF tests (not part of the library):
 * where the shared data lives, GTP renderings of moves and setup stones,
 * and a field-by-field comparison of two games.
 */
#ifndef GT_TEST_SGF_UTIL_H
#define GT_TEST_SGF_UTIL_H
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "board.h"
#include "sgf.h"
#include "testutil.h"

/* $GT_SRC/../shared (the repo checkout's parent has shared/ beside it), or
 * NULL when it is not there. */
static __attribute__((unused)) const char *shared_dir(void)
{
	static char dir[4096];
	struct stat st;
	const char *src = getenv("GT_SRC");
	snprintf(dir, sizeof dir, "%s/../shared", src ? src : ".");
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? dir : NULL;
}

/* Debian's goban-original-games: professional games as .sgf and .mgt */
#define GOBAN "/usr/share/goban"

static int goban_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* goban_games: the names of GOBAN's .sgf and .mgt files, sorted; *n of
 * them, each malloc'd, freed with goban_games_free. NULL (and *n = 0)
 * when GOBAN cannot be opened. */
static __attribute__((unused)) char **goban_games(int *n)
{
	*n = 0;
	DIR *d = opendir(GOBAN);
	if (!d)
		return NULL;
	char **names = NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l > 4 && (!strcmp(de->d_name + l - 4, ".sgf") || !strcmp(de->d_name + l - 4, ".mgt"))) {
			names = realloc(names, (size_t)(*n + 1) * sizeof *names);
			names[(*n)++] = strdup(de->d_name);
		}
	}
	closedir(d);
	qsort(names, (size_t)*n, sizeof *names, goban_cmp);
	return names ? names : calloc(1, sizeof *names);
}

static __attribute__((unused)) void goban_games_free(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* "E5 C7 pass pass": the moves of g as GTP vertices. */
static __attribute__((unused)) const char *moves_gtp(const gt_sgf_game *g)
{
	static char buf[1 << 16];
	char v[8];
	size_t k = 0;
	buf[0] = 0;
	for (int i = 0; i < g->nmoves && k + 8 < sizeof buf; i++)
		k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", i ? " " : "",
		                      gt_vertex_str(g->size, g->moves[i].pt, v));
	return buf;
}

/* "A9 B9": setup stones of a colour as GTP vertices, in point order. */
static __attribute__((unused)) const char *stones_gtp(const gt_sgf_game *g, int color)
{
	static char buf[4096];
	char v[8];
	size_t k = 0;
	int n = color == GT_BLACK ? g->nblack : g->nwhite;
	const int16_t *a = color == GT_BLACK ? g->black : g->white;
	buf[0] = 0;
	for (int i = 0; i < n; i++)
		k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", i ? " " : "",
		                      gt_vertex_str(g->size, a[i], v));
	return buf;
}

/* "BWB...": the colours of the moves. */
static __attribute__((unused)) const char *colours(const gt_sgf_game *g)
{
	static char buf[1 << 12];
	int i;
	for (i = 0; i < g->nmoves && i < (int)sizeof buf - 1; i++)
		buf[i] = g->moves[i].color == GT_BLACK ? 'B' : 'W';
	buf[i] = 0;
	return buf;
}

/* 1 if a and b are the same game (what the writer keeps), else 0 with the
 * first difference in why. */
static int __attribute__((unused)) same_game(const gt_sgf_game *a, const gt_sgf_game *b,
                                             char *why, size_t size)
{
	static const char *const ids[] = {"PB", "PW", "RU", "DT", "EV", NULL};
#define DIFF(cond, ...) do { if (cond) { snprintf(why, size, __VA_ARGS__); return 0; } } while (0)
	DIFF(a->err != b->err, "err %d vs %d", a->err, b->err);
	DIFF(a->size != b->size, "size %d vs %d", a->size, b->size);
	DIFF(a->komi != b->komi, "komi %g vs %g", a->komi, b->komi);
	DIFF(a->handicap != b->handicap, "handicap %d vs %d", a->handicap, b->handicap);
	DIFF(a->first != b->first, "first %d vs %d", a->first, b->first);
	DIFF(a->nblack != b->nblack || a->nwhite != b->nwhite, "setup counts");
	for (int i = 0; i < a->nblack; i++)
		DIFF(a->black[i] != b->black[i], "black setup %d", i);
	for (int i = 0; i < a->nwhite; i++)
		DIFF(a->white[i] != b->white[i], "white setup %d", i);
	DIFF(a->nmoves != b->nmoves, "nmoves %d vs %d", a->nmoves, b->nmoves);
	for (int i = 0; i < a->nmoves; i++)
		DIFF(a->moves[i].color != b->moves[i].color || a->moves[i].pt != b->moves[i].pt,
		     "move %d", i + 1);
	DIFF(a->winner != b->winner || a->method != b->method || a->has_margin != b->has_margin ||
	     (a->has_margin && a->margin != b->margin), "result");
	for (int i = 0; ids[i]; i++) {
		const char *x = gt_sgf_prop_get(a, ids[i]), *y = gt_sgf_prop_get(b, ids[i]);
		DIFF(!x != !y || (x && strcmp(x, y)), "%s '%s' vs '%s'", ids[i], x ? x : "",
		     y ? y : "");
	}
#undef DIFF
	return 1;
}

#endif
