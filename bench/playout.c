/*
 * playout: random playouts per second on one core (the foundation issue's
 * benchmark). A playout plays uniformly random legal moves that do not fill
 * the mover's own eye (an empty point whose neighbours are all the mover's
 * stones), passing when there is none, until two passes; full rules
 * (positional superko) on every move.
 * Usage: playout [seconds-per-size]
 */
#include "bench.h"
#include "board.h"
#include "util.h"
#include "gt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

static uint64_t rs = 88172645463325252ULL;
static inline uint32_t rnd(uint32_t n)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (uint32_t)(((rs >> 32) * (uint64_t)n) >> 32);
}

static int own_eye(const gt_board *b, int c, int p)
{
	int n = b->n, x = p % n, y = p / n;
	if (y > 0 && b->color[p - n] != c) return 0;
	if (y < n - 1 && b->color[p + n] != c) return 0;
	if (x > 0 && b->color[p - 1] != c) return 0;
	if (x < n - 1 && b->color[p + 1] != c) return 0;
	return 1;
}

static int playout(gt_board *b)
{
	int16_t cand[GT_MAX_PTS];
	while (!gt_board_over(b)) {
		int c = b->to_move, k = b->nempty, mv = GT_PASS(b->n);
		const int16_t *from = b->empty;
		while (k > 0) {
			int i = rnd(k), p = from[i];
			if (!own_eye(b, c, p) && gt_board_legal(b, c, p) == 0) {
				mv = p;
				break;
			}
			if (from != cand) { /* first rejection: work on a copy */
				memcpy(cand, from, k * sizeof cand[0]);
				from = cand;
			}
			cand[i] = cand[--k];
		}
		gt_board_play_legal(b, c, mv);
	}
	return b->nmoves;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 2.0;
	struct utsname u;
	char cpu[600] = "unknown cpu";
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f) {
		char line[512];
		while (fgets(line, sizeof line, f))
			if (strncmp(line, "model name", 10) == 0) {
				char *c = strchr(line, ':');
				snprintf(cpu, sizeof cpu, "%s", c ? c + 2 : line);
				cpu[strcspn(cpu, "\n")] = 0;
				break;
			}
		fclose(f);
	}
	uname(&u);
	printf("playout: machine %s, %s\n", u.nodename, cpu);
	const gt_rules *rules = gt_rules_find("tromp-taylor");
	int sizes[2] = {9, 19};
	for (int i = 0; i < 2; i++) {
		gt_board *b = gt_xmalloc(sizeof *b), *root = gt_xmalloc(sizeof *root);
		gt_board_init(root, sizes[i], rules, 7.5);
		long n = 0, moves = 0;
		double t0 = gt_now(), t;
		do {
			for (int k = 0; k < 100; k++) {
				gt_board_copy(b, root);
				moves += playout(b);
				n++;
			}
			t = gt_now() - t0;
		} while (t < secs);
		printf("playout: %dx%d %.0f playouts/s on one core (%.1f moves each, %.0f moves/s)\n", sizes[i],
		       sizes[i], n / t, (double)moves / n, moves / t);
		free(b);
		free(root);
	}
	return 0;
}
