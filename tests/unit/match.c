/* match: parameter checks; a match of none against none (games handed out
 * in order, pairs with one opening and swapped colours, statistics that
 * agree with the games, output independent of the games in flight); the
 * record line with the match fields; a sink that stops the match. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "tap.h"

typedef struct seen {
	int n;
	long index[64];
	int a_color[64];
	int opening[64];
	int16_t first[64][8];
	char line[64][4096];
	long wins, draws, losses;
	gt_elo_result last;
	int stop_after;
} seen;

static int sink(void *ctx, const gt_match_game *g, const gt_elo_result *r)
{
	seen *s = ctx;
	if (s->n < 64) {
		s->index[s->n] = g->index;
		s->a_color[s->n] = g->a_color;
		s->opening[s->n] = g->opening;
		for (int i = 0; i < 8 && i < g->rec.nmoves; i++)
			s->first[s->n][i] = g->rec.moves[i];
		size_t len;
		char *l = gt_match_game_format(g, &len, NULL);
		snprintf(s->line[s->n], sizeof s->line[s->n], "%s", l ? l : "");
		free(l);
	}
	s->n++;
	if (g->a_score == 1)
		s->wins++;
	else if (g->a_score == 0)
		s->losses++;
	else
		s->draws++;
	s->last = *r;
	return s->stop_after && s->n >= s->stop_after ? 7 : 0;
}

int main(void)
{
	gt_match_params p;
	gt_error e;
	gt_match_params_default(&p);
	is_int(gt_match_check(&p, &e), 0, "defaults are usable");
	p.games = 3;
	is_int(gt_match_check(&p, &e), GT_EINVAL, "odd games refused");
	ok(strstr(e.text, "even") != NULL, "with a reason: %s", e.text);
	p.games = 10;
	p.komi = 6.3;
	is_int(gt_match_check(&p, &e), GT_EINVAL, "komi 6.3 refused");
	p.komi = 7;
	p.has_sprt = 1;
	p.sprt = (gt_elo_sprt){ 10, 0, 0.05, 0.05 };
	is_int(gt_match_check(&p, &e), GT_EINVAL, "SPRT elo0 > elo1 refused");
	p.has_sprt = 0;

	gt_match_player a, b, g;
	is_int(gt_match_player_open(&a, "none", NULL, &e), 0, "player none");
	is_int(gt_match_player_open(&b, "none", NULL, &e), 0, "second player none");
	is_int(gt_match_player_open(&g, "gtp:", NULL, &e), GT_EINVAL, "gtp: without a command refused");
	is_int(gt_match_player_open(&g, "gtp:/usr/games/gnugo --mode gtp", NULL, &e), 0, "gtp player");
	is_int(g.kind, GT_MATCH_GTP, "of kind GTP");
	is_str(g.name, "gtp:/usr/games/gnugo --mode gtp", "named by its argument");
	gt_match_player_close(&g);

	p.board_size = 7;
	p.visits = 6;
	p.games = 10;
	p.seed = 42;
	p.parallel_games = 3;
	static seen s1;
	memset(&s1, 0, sizeof s1);
	gt_elo_result r;
	is_int(gt_match_run(&p, &a, &b, sink, &s1, &r, &e), 0, "none against none, 10 games on 7x7");
	is_int(s1.n, 10, "10 games handed out");
	int order = 1, colours = 1, openings = 1;
	for (int i = 0; i < s1.n; i++) {
		order &= s1.index[i] == i;
		colours &= s1.a_color[i] == (i % 2 ? GT_WHITE : GT_BLACK);
		if (i % 2)
			openings &= s1.opening[i] == 4 && s1.opening[i - 1] == 4 &&
			            memcmp(s1.first[i], s1.first[i - 1], 4 * sizeof(int16_t)) == 0;
	}
	ok(order, "in game order");
	ok(colours, "A Black in even games, White in odd ones");
	ok(openings, "both games of a pair start with the same 4 moves");
	ok(memcmp(s1.first[0], s1.first[2], 4 * sizeof(int16_t)) != 0, "pairs 0 and 1 open differently");
	is_int(r.games, 10, "statistics over 10 games");
	is_int(r.pairs, 5, "5 pairs");
	ok(r.pentanomial, "pentanomial");
	is_int(r.wins, s1.wins, "wins agree with the games");
	is_int(r.draws, s1.draws, "draws agree");
	is_int(r.losses, s1.losses, "losses agree");
	is_dbl(r.score, (s1.wins + s1.draws / 2.0) / 10, 1e-12, "score = (w + d/2) / games");

	json_error_t je;
	json_t *j = json_loads(s1.line[3], 0, &je);
	ok(j != NULL, "a game line is JSON");
	is_int(json_integer_value(json_object_get(j, "game")), 3, "with game");
	is_int(json_integer_value(json_object_get(j, "pair")), 1, "pair");
	is_str(json_string_value(json_object_get(j, "a")), "W", "a");
	is_str(json_string_value(json_object_get(j, "black")), "none", "black");
	is_int(json_integer_value(json_object_get(j, "board_size")), 7, "and the record's fields");
	ok(json_object_get(j, "reason") == NULL, "no reason for a scored game");
	json_decref(j);

	p.parallel_games = 1;
	static seen s2;
	memset(&s2, 0, sizeof s2);
	is_int(gt_match_run(&p, &a, &b, sink, &s2, &r, &e), 0, "again with one game in flight");
	int same = s2.n == s1.n;
	for (int i = 0; i < s1.n && same; i++)
		same = strcmp(s1.line[i], s2.line[i]) == 0;
	ok(same, "the same lines");

	static seen s3;
	memset(&s3, 0, sizeof s3);
	s3.stop_after = 3;
	is_int(gt_match_run(&p, &a, &b, sink, &s3, &r, &e), 7, "a sink's nonzero return stops the match");
	is_int(s3.n, 3, "after that game");

	gt_match_player_close(&a);
	gt_match_player_close(&b);
	return done_testing();
}
