/*
 * sgf_gnugo.c: files written by gt_sgf_write are read by GNU Go (an
 * independent SGF reader): `gnugo --mode gtp`, `loadsgf FILE`, then
 * `list_stones black|white` and `get_komi` are compared with the stones
 * worked out by hand for the small games and with gt_board's final
 * position for real games with captures and passes.
 */
#include <ctype.h>
#include <unistd.h>

#include "sgf_util.h"

static char gnugo[4096];
static char tmpdir[512];

static int find_gnugo(void)
{
	const char *cands[] = {"/usr/games/gnugo", "/usr/bin/gnugo", "/usr/local/bin/gnugo"};
	const char *path = getenv("PATH");
	if (path) {
		char *p = strdup(path), *save = NULL;
		for (char *d = strtok_r(p, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			snprintf(gnugo, sizeof gnugo, "%s/gnugo", d);
			if (access(gnugo, X_OK) == 0) {
				free(p);
				return 1;
			}
		}
		free(p);
	}
	for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++)
		if (access(cands[i], X_OK) == 0) {
			snprintf(gnugo, sizeof gnugo, "%s", cands[i]);
			return 1;
		}
	return 0;
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort the space-separated vertices of s in place (uppercased). */
static char *sorted(char *s)
{
	char *tok[GT_MAX_PTS + 1], *save = NULL, *out;
	int n = 0;
	for (char *p = s; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	char *copy = strdup(s);
	for (char *t = strtok_r(copy, " \t\n", &save); t && n <= GT_MAX_PTS; t = strtok_r(NULL, " \t\n", &save))
		tok[n++] = t;
	qsort(tok, (size_t)n, sizeof *tok, cmpstr);
	out = s;
	out[0] = 0;
	for (int i = 0; i < n; i++) {
		strcat(out, i ? " " : "");
		strcat(out, tok[i]);
	}
	free(copy);
	return s;
}

/* Run GNU Go on file: fills black, white (sorted vertices) and komi.
 * Returns 0, or -1 when GNU Go refused the file. */
static int gnugo_read(const char *file, char *black, char *white, char *komi, size_t size)
{
	char cmds[4096 + 64], cmd[16384], line[4000];
	snprintf(cmds, sizeof cmds, "%s/cmds", tmpdir);
	FILE *f = fopen(cmds, "w");
	if (!f)
		return -1;
	fprintf(f, "loadsgf %s\nlist_stones black\nlist_stones white\nget_komi\nquit\n", file);
	fclose(f);
	snprintf(cmd, sizeof cmd, "%s --mode gtp < %s 2>&1", gnugo, cmds);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	int k = 0, bad = 0;
	char *out[3] = {black, white, komi};
	black[0] = white[0] = komi[0] = 0;
	while (fgets(line, sizeof line, p)) {
		line[strcspn(line, "\r\n")] = 0;
		if (line[0] == '?') {
			diag("gnugo: %s", line);
			bad = 1;
		}
		if (line[0] != '=')
			continue;
		if (k >= 1 && k <= 3) {
			const char *v = line + 1;
			while (*v == ' ')
				v++;
			snprintf(out[k - 1], size, "%s", v);
		}
		k++;
	}
	pclose(p);
	sorted(black);
	sorted(white);
	return bad || k < 4 ? -1 : 0;
}

/* Write g to dir/name and return the path. */
static const char *write_game(const gt_sgf_game *g, const char *name)
{
	static char path[4096 + 256];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "wb");
	int rc = f ? gt_sgf_write(f, g) : GT_EIO;
	if (f && fclose(f) != 0)
		rc = GT_EIO;
	ok(rc == 0, "%s written", name);
	return path;
}

/* Black and white stones of a board, sorted. */
static void board_stones(const gt_board *b, char *black, char *white)
{
	char v[8];
	black[0] = white[0] = 0;
	for (int i = 0; i < b->npts; i++)
		if (b->color[i]) {
			char *s = b->color[i] == GT_BLACK ? black : white;
			strcat(s, *s ? " " : "");
			strcat(s, gt_vertex_str(b->n, i, v));
		}
	sorted(black);
	sorted(white);
}

static char bl[4096], wh[4096], km[64], want[4096];

static void check_hand(const char *file, const char *name, const char *wb, const char *ww,
                       const char *wk)
{
	gt_sgf_game *g = NULL;
	int n = 0;
	gt_error e;
	if (gt_sgf_read_file(file, &g, &n, &e) < 0 || n != 1) {
		ok(0, "%s reads: %s", file, e.text);
		return;
	}
	const char *out = write_game(&g[0], name);
	ok(gnugo_read(out, bl, wh, km, sizeof bl) == 0, "%s: GNU Go loads it", name);
	snprintf(want, sizeof want, "%s", wb);
	is_str(bl, sorted(want), "%s: black stones", name);
	snprintf(want, sizeof want, "%s", ww);
	is_str(wh, sorted(want), "%s: white stones", name);
	is_str(km, wk, "%s: komi", name);
	gt_sgf_free(g, n);
}

static void check_board(const char *file, const char *name)
{
	static gt_board b;
	static char ob[4096], ow[4096];
	gt_sgf_game *g = NULL;
	int n = 0, np;
	gt_error e;
	if (gt_sgf_read_file(file, &g, &n, &e) < 0 || n != 1) {
		ok(0, "%s reads: %s", file, e.text);
		return;
	}
	ok(gt_sgf_replay(&g[0], gt_rules_find("chinese"), &b, &np, &e) == 0, "%s replays", name);
	board_stones(&b, ob, ow);
	const char *out = write_game(&g[0], name);
	ok(gnugo_read(out, bl, wh, km, sizeof bl) == 0, "%s: GNU Go loads it", name);
	is_str(bl, ob, "%s: GNU Go's black stones are gt_board's (%d moves, %d captured by B)",
	       name, g[0].nmoves, b.captures[GT_BLACK]);
	is_str(wh, ow, "%s: and the white stones (%d captured by W)", name, b.captures[GT_WHITE]);
	gt_sgf_free(g, n);
}

int main(void)
{
	const char *dir = shared_dir();
	char f[8192];
	if (!find_gnugo())
		skip_all("gnugo not found (PATH, /usr/games): install Debian's gnugo");
	if (!dir)
		skip_all("shared/ not found beside the checkout (GT_SRC/../shared)");
	test_tmpdir(tmpdir, sizeof tmpdir, "sgf-gnugo");

	/* files of shared/data/sgf, written again: the stones and komi GNU Go reads */
	static const struct {
		const char *file, *name, *black, *white, *komi;
	} hand[] = {
		{"handicap-4.sgf", "handicap-4.sgf", "D16 Q16 D4 Q4 O17 C10", "R14 K10", "0.5"},
		{"compressed-points.sgf", "compressed.sgf", "A9 B9 C9 A8 B8 C8 E5",
		 "G3 H3 J3 G2 H2 J2 G1 H1 J1 D6", "7.5"},
		{"escapes.sgf", "escapes.sgf", "E5", "G7", "7.5"},
		{"shiftjis-names-no-ca.sgf", "shiftjis.sgf", "Q16 Q3", "D16", "6.5"},
		{"fox-komi-x50.sgf", "fox.sgf", "Q16", "D16", "7.5"},
		{"pass-tt-19.sgf", "pass.sgf", "Q16 Q4", "D4 D16 R14", "6.5"},
	};
	for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++) {
		snprintf(f, sizeof f, "%s/data/sgf/%s", dir, hand[i].file);
		check_hand(f, hand[i].name, hand[i].black, hand[i].white, hand[i].komi);
	}

	/* real games with captures (and a pass, and a move in the root node) */
	static const char *real[] = {"Hon-41-1.mgt", "M-62-l05.sgf", "Hon-45-2.sgf", "Hon-74-4.sgf"};
	for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
		snprintf(f, sizeof f, "/usr/share/goban/%s", real[i]);
		if (access(f, R_OK) == 0)
			check_board(f, real[i]);
		else
			diag("%s missing: skipped (goban-original-games not installed)", f);
	}

	test_rmdir(tmpdir);
	return done_testing();
}
