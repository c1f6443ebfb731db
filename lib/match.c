/* match.c: games in flight between two players, network searches batched
 * per player, GTP engines driven in turn; results counted per pair in
 * order (match.h). */
#include "match.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gtpclient.h"
#include "neteval.h"
#include "rng.h"
#include "sgfrec.h"
#include "util.h"

/* ---- players ---- */

int gt_match_player_open(gt_match_player *pl, const char *spec, const char *backend,
                         gt_error *e)
{
	memset(pl, 0, sizeof *pl);
	if (strncmp(spec, "gtp:", 4) == 0) {
		const char *cmd = spec + 4;
		if (!*cmd || strspn(cmd, " \t") == strlen(cmd))
			return gt_error_set(e, GT_EINVAL, -1, -1, "%s: no engine command after gtp:", spec);
		pl->kind = GT_MATCH_GTP;
		pl->command = gt_xstrdup(cmd);
		snprintf(pl->name, sizeof pl->name, "%s", spec);
		return 0;
	}
	pl->kind = GT_MATCH_MODEL;
	int rc = gt_neteval_open_file(spec, backend, &pl->ev, pl->name, sizeof pl->name, e);
	if (!rc)
		snprintf(pl->program, sizeof pl->program, "%.100s (gt %s)", pl->name, GT_VERSION);
	return rc;
}

void gt_match_player_close(gt_match_player *pl)
{
	if (pl->kind == GT_MATCH_MODEL)
		gt_evaluator_close(&pl->ev);
	free(pl->command);
	memset(pl, 0, sizeof *pl);
}

/* ---- parameters ---- */

void gt_match_params_default(gt_match_params *p)
{
	*p = (gt_match_params){ .board_size = 9, .rules = gt_rules_find("chinese"), .komi = 7,
	                        .max_moves = 0, .visits = 100, .opening_moves = 4,
	                        .parallel_games = 8, .games = 400, .seed = 0, .gtp_timeout = 60 };
	gt_mcts_params_default(&p->search);
	p->search.leaves = 1;
	p->search_b = p->search;
}

static int max_moves(const gt_match_params *p)
{
	return p->max_moves > 0 ? p->max_moves : 2 * p->board_size * p->board_size;
}

int gt_match_check(const gt_match_params *p, gt_error *e)
{
	const char *why = NULL;
	if (p->board_size < 2 || p->board_size > GT_MAX_N)
		why = "board size must be 2..19";
	else if (!p->rules)
		why = "no rules";
	else if (!isfinite(p->komi) || fabs(p->komi) > 1000 || p->komi * 2 != floor(p->komi * 2))
		why = "komi must be a multiple of 0.5 up to 1000";
	else if (max_moves(p) > GT_MAX_HIST - 2)
		why = "move cap above the board's history";
	else if (p->opening_moves < 0 || p->opening_moves >= max_moves(p))
		why = "opening moves must be 0 or more and below the move cap";
	else if (p->visits < 1)
		why = "visits must be at least 1";
	else if (p->parallel_games < 1)
		why = "parallel games must be at least 1";
	else if (p->games < 2 || p->games % 2)
		why = "games must be an even number, at least 2 (colour-swapped pairs)";
	else if (p->search.leaves < 1)
		why = "leaves must be at least 1";
	else if (p->has_sprt && !(p->sprt.elo0 < p->sprt.elo1 && p->sprt.alpha > 0 &&
	                          p->sprt.alpha <= 0.5 && p->sprt.beta > 0 && p->sprt.beta <= 0.5))
		why = "SPRT needs elo0 < elo1 and alpha, beta in (0, 0.5]";
	if (why)
		return gt_error_set(e, GT_EINVAL, -1, -1, "%s", why);
	return 0;
}

/* ---- the record line ---- */

char *gt_match_game_format(const gt_match_game *g, size_t *len, gt_error *e)
{
	size_t k;
	char *s = gt_record_format(&g->rec, &k, e);
	if (!s)
		return NULL;
	while (k > 0 && (s[k - 1] == '\n' || s[k - 1] == '}'))
		if (s[--k] == '}')
			break;
	/* s[0..k) is the record without its closing brace */
	json_t *x = json_object();
	json_object_set_new(x, "game", json_integer(g->index));
	json_object_set_new(x, "pair", json_integer(g->pair));
	json_object_set_new(x, "black", json_string(g->black ? g->black : "?"));
	json_object_set_new(x, "white", json_string(g->white ? g->white : "?"));
	json_object_set_new(x, "a", json_string(g->a_color == GT_BLACK ? "B" : "W"));
	json_object_set_new(x, "opening", json_integer(g->opening));
	if (g->reason[0])
		json_object_set_new(x, "reason", json_string(g->reason));
	char *t = json_dumps(x, JSON_COMPACT);
	json_decref(x);
	if (!t) {
		free(s);
		gt_error_set(e, GT_EINVAL, -1, -1, "player name is not valid UTF-8");
		return NULL;
	}
	size_t tk = strlen(t);
	char *out = gt_xmalloc(k + tk + 2);
	memcpy(out, s, k);
	out[k] = ',';
	memcpy(out + k + 1, t + 1, tk - 1); /* t without its opening brace */
	out[k + tk] = '\n';
	out[k + tk + 1] = 0;
	free(s);
	free(t);
	if (len)
		*len = k + tk + 1;
	return out;
}

int gt_match_game_sgf(const gt_match_game *g, gt_sgf_game *sg)
{
	int err = gt_sgfrec_from_record(&g->rec, sg, NULL);
	if (err)
		return err;
	const char *b = g->black_program && *g->black_program ? g->black_program : g->black;
	const char *w = g->white_program && *g->white_program ? g->white_program : g->white;
	gt_sgf_prop_set(sg, "PB", b ? b : "?", strlen(b ? b : "?"));
	gt_sgf_prop_set(sg, "PW", w ? w : "?", strlen(w ? w : "?"));
	if (g->reason[0])
		gt_sgf_prop_set(sg, "GC", g->reason, strlen(g->reason));
	gt_sgfrec_set_date(sg, time(NULL));
	for (int i = 0; i < g->nsearched; i++)
		if (g->searched[i].move_number < sg->nmoves) {
			char c[96];
			gt_sgfrec_comment(&g->searched[i], c, sizeof c);
			gt_sgf_set_comment(sg, g->searched[i].move_number, c);
		}
	return 0;
}

/* ---- games in flight ---- */

typedef struct slot {
	int active;
	long index;
	int a_color;
	gt_board b;           /* the game, with the move cap */
	gt_mcts *m[2];        /* network players' searches (A, B) */
	gt_gtpc *c[2];        /* GTP players' engines */
	int has_rules[2];     /* the engine knows gt-rules */
	int searching;
	int asked;            /* a GTP engine's genmove is unanswered */
	int opening;
	int nmoves, cap;
	int16_t *moves;
	gt_position *pos;     /* the network players' searched positions */
	int npos, cappos;
	int ended;            /* by resignation or forfeit */
	int winner;
	char result[16];
	char reason[160];
	int off, nleaf;       /* this round's slice of its player's batch */
} slot;

typedef struct run {
	const gt_match_params *p;
	gt_match_player *pl[2];
	gt_error *e;
	slot *s;
	int ns;
	long next_game;
	gt_match_game **done; /* finished games waiting for their pair */
	int ndone, capdone;
	long next_pair;
	long penta[5], wins, draws, losses;
	gt_elo_result res;
	int stop;
} run;

static int fatal(run *r, int k, int err, const char *text)
{
	return gt_error_set(r->e, err < 0 ? err : GT_EIO, -1, -1, "%s: %s",
	                    r->pl[k]->name, text);
}

static void push_move(slot *s, int mv)
{
	GT_GROW(s->moves, s->nmoves + 1, s->cap, 128);
	s->moves[s->nmoves++] = (int16_t)mv;
}

/* keep the search's evaluation of the position before the next move */
static void searched(slot *s, const gt_mcts *m)
{
	GT_GROW(s->pos, s->npos + 1, s->cappos, 64);
	gt_position *p = &s->pos[s->npos++];
	double sc;
	memset(p, 0, sizeof *p);
	p->move_number = s->nmoves;
	p->to_move = s->b.to_move;
	p->value = p->score = NAN;
	p->visits = gt_mcts_visits(m);
	p->has_root = 1;
	p->root_value = (float)gt_mcts_root_value(m, &sc);
	p->root_score = (float)sc;
}

/* the player (0 A, 1 B) who plays color in s */
static int player_of(const slot *s, int color)
{
	return color == s->a_color ? 0 : 1;
}

static void lose(slot *s, int color, char how, const char *fmt, const char *a, const char *b)
{
	int w = GT_OTHER(color);
	s->ended = 1;
	s->winner = w == GT_BLACK ? GT_WIN_BLACK : GT_WIN_WHITE;
	snprintf(s->result, sizeof s->result, "%c+%c", w == GT_BLACK ? 'B' : 'W', how);
	snprintf(s->reason, sizeof s->reason, fmt, a, b);
}

/* an opening move: uniform among legal points off the first line, else
 * among all legal points, else pass */
static int opening_move(const gt_board *b, gt_rng *rng)
{
	int16_t mv[GT_MAX_PTS], in[GT_MAX_PTS];
	int k = gt_board_legal_moves(b, b->to_move, mv), m = 0, n = b->n;
	for (int i = 0; i < k; i++) {
		int x = mv[i] % n, y = mv[i] / n;
		if (x > 0 && y > 0 && x < n - 1 && y < n - 1)
			in[m++] = mv[i];
	}
	if (m)
		return in[gt_rng_below(rng, (uint64_t)m)];
	if (k)
		return mv[gt_rng_below(rng, (uint64_t)k)];
	return GT_PASS(n);
}

/* play mv by the side to move on every copy of the game: the board, the
 * searches, and the engines other than `from` (-1: all). Returns 0 (also
 * when an engine refused: then the game is lost by it) or a fatal error. */
static int play(run *r, slot *s, int mv, int from)
{
	int color = s->b.to_move, err;
	char v[8];
	gt_error ge;
	if ((err = gt_board_play(&s->b, color, mv)) != 0)
		return gt_error_set(r->e, err, -1, -1, "internal: a checked move was refused");
	push_move(s, mv);
	gt_vertex_str(s->b.n, mv, v);
	for (int k = 0; k < 2; k++) {
		if (s->m[k] && (err = gt_mcts_advance(s->m[k], mv)) != 0)
			return gt_error_set(r->e, err, -1, -1, "internal: search refused %s", v);
		if (s->c[k] && k != from) {
			int rc = gt_gtpc_play(s->c[k], color, v, &ge);
			if (rc < 0)
				return fatal(r, k, rc, ge.text);
			if (rc == 1 && !s->ended) {
				int kc = k == 0 ? s->a_color : GT_OTHER(s->a_color);
				lose(s, kc, 'F', "refused the legal move %s: %.100s", v, ge.text);
			}
		}
	}
	return 0;
}

/* the engine's "name version" (its own answers) as the player's program */
static int engine_program(run *r, slot *s, int k)
{
	char name[64] = "", version[64] = "";
	gt_error ge;
	int rc = gt_gtpc_cmd(s->c[k], name, sizeof name, &ge, "name");
	if (rc >= 0)
		rc = gt_gtpc_cmd(s->c[k], version, sizeof version, &ge, "version");
	if (rc < 0)
		return fatal(r, k, rc, ge.text);
	for (char *p = name; *p; p++)
		if (*p == '\n')
			*p = ' ';
	snprintf(r->pl[k]->program, sizeof r->pl[k]->program, "%s%s%s", name[0] ? name : "?",
	         version[0] ? " " : "", version);
	return 0;
}

static int engine_setup(run *r, slot *s, int k)
{
	const gt_match_params *p = r->p;
	gt_error ge;
	char resp[64];
	int rc;
	if (!s->c[k]) {
		if ((rc = gt_gtpc_open(&s->c[k], r->pl[k]->command, &ge)) != 0)
			return fatal(r, k, rc, ge.text);
		gt_gtpc_set_timeout(s->c[k], p->gtp_timeout);
		rc = gt_gtpc_cmd(s->c[k], resp, sizeof resp, &ge, "known_command gt-rules");
		if (rc < 0)
			return fatal(r, k, rc, ge.text);
		s->has_rules[k] = rc == 0 && strcmp(resp, "true") == 0;
		if (!r->pl[k]->program[0] && (rc = engine_program(r, s, k)) < 0)
			return rc;
	}
	char what[80];
	snprintf(what, sizeof what, "boardsize %d", p->board_size);
	rc = gt_gtpc_boardsize(s->c[k], p->board_size, &ge);
	if (rc == 0 && s->has_rules[k]) {
		snprintf(what, sizeof what, "gt-rules %s", p->rules->name);
		rc = gt_gtpc_cmd(s->c[k], NULL, 0, &ge, "gt-rules %s", p->rules->name);
	}
	if (rc == 0) {
		snprintf(what, sizeof what, "komi %g", p->komi);
		rc = gt_gtpc_komi(s->c[k], p->komi, &ge);
	}
	if (rc == 0) {
		snprintf(what, sizeof what, "clear_board");
		rc = gt_gtpc_clear_board(s->c[k], &ge);
	}
	if (rc < 0)
		return fatal(r, k, rc, ge.text);
	if (rc == 1) {
		char t[300];
		snprintf(t, sizeof t, "engine refused %s: %.200s", what, ge.text);
		return fatal(r, k, GT_EUNSUPPORTED, t);
	}
	return 0;
}

static int slot_start(run *r, slot *s, long index)
{
	const gt_match_params *p = r->p;
	int err;
	s->active = 1;
	s->index = index;
	s->a_color = index % 2 == 0 ? GT_BLACK : GT_WHITE;
	s->searching = 0;
	s->asked = 0;
	s->nmoves = 0;
	s->npos = 0;
	s->ended = 0;
	s->reason[0] = 0;
	gt_board_init(&s->b, p->board_size, p->rules, p->komi);
	s->b.max_moves = max_moves(p);
	for (int k = 0; k < 2; k++)
		if (r->pl[k]->kind == GT_MATCH_GTP && (err = engine_setup(r, s, k)) != 0)
			return err;
	gt_board start;
	gt_board_copy(&start, &s->b);
	start.max_moves = 0; /* the searches see no cap, as gt-gtp's does not */
	for (int k = 0; k < 2; k++)
		if (s->m[k])
			gt_mcts_set_root(s->m[k], &start);
	gt_rng rng;
	gt_rng_seed_stream(&rng, p->seed, (uint64_t)(index / 2));
	for (int i = 0; i < p->opening_moves && !s->ended && !gt_board_over(&s->b); i++)
		if ((err = play(r, s, opening_move(&s->b, &rng), -1)) != 0)
			return err;
	s->opening = s->nmoves;
	return 0;
}

/* advance the game as far as it goes without an evaluation: 1 when it has
 * ended, 0 when a search needs leaves, or a fatal error */
static int step(run *r, slot *s)
{
	gt_error ge;
	char v[64];
	for (;;) {
		if (s->ended || gt_board_over(&s->b))
			return 1;
		int color = s->b.to_move, k = player_of(s, color);
		if (r->pl[k]->kind == GT_MATCH_MODEL) {
			if (!s->searching) {
				int err = gt_mcts_begin(s->m[k], k == 1 && r->p->visits_b ? r->p->visits_b : r->p->visits,
				                        0, NULL);
				if (err)
					return gt_error_set(r->e, err, -1, -1, "search: %s", gt_strerror(err));
				s->searching = 1;
			}
			if (!gt_mcts_done(s->m[k]))
				return 0;
			s->searching = 0;
			int mv = gt_mcts_choose(s->m[k], 0, NULL);
			if (mv < 0)
				return gt_error_set(r->e, mv, -1, -1, "search chose no move: %s", gt_strerror(mv));
			searched(s, s->m[k]);
			int err = play(r, s, mv, k);
			if (err)
				return err;
			continue;
		}
		/* ask, and take the answer at the next step: meanwhile the other
		 * games' engines think and the networks evaluate */
		if (!s->asked) {
			int rc = gt_gtpc_genmove_send(s->c[k], color, &ge);
			if (rc < 0)
				return fatal(r, k, rc, ge.text);
			s->asked = 1;
			return 0;
		}
		s->asked = 0;
		int rc = gt_gtpc_genmove_recv(s->c[k], v, sizeof v, &ge);
		if (rc < 0)
			return fatal(r, k, rc, ge.text);
		if (rc == 1) {
			lose(s, color, 'F', "genmove failed: %.100s%s", ge.text, "");
			return 1;
		}
		if (strcmp(v, "resign") == 0) {
			lose(s, color, 'R', "resigned%s%s", "", "");
			return 1;
		}
		int mv = gt_vertex_parse(s->b.n, v);
		int why = mv < 0 ? mv : gt_board_legal(&s->b, color, mv);
		if (why) {
			lose(s, color, 'F', "illegal move %s (%s)", v, gt_strerror(why));
			return 1;
		}
		int err = play(r, s, mv, k);
		if (err)
			return err;
	}
}

/* the finished game of s as a gt_match_game (new) */
static gt_match_game *finish(run *r, slot *s)
{
	const gt_match_params *p = r->p;
	gt_match_game *g = gt_xcalloc(1, sizeof *g);
	gt_record *rec = &g->rec;
	int n = p->board_size;
	g->index = s->index;
	g->pair = s->index / 2;
	g->a_color = s->a_color;
	g->opening = s->opening;
	g->black = r->pl[player_of(s, GT_BLACK)]->name;
	g->white = r->pl[player_of(s, GT_WHITE)]->name;
	g->black_program = r->pl[player_of(s, GT_BLACK)]->program;
	g->white_program = r->pl[player_of(s, GT_WHITE)]->program;
	snprintf(g->reason, sizeof g->reason, "%s", s->reason);
	gt_record_init(rec);
	rec->version = GT_RECORD_VERSION;
	snprintf(rec->rules, sizeof rec->rules, "%s", p->rules->name);
	rec->komi = p->komi;
	rec->board_size = n;
	/* each game its own seed, so that the two games of a pair that repeat
	 * each other's moves are not one game twice for gt-validate */
	uint64_t x = p->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(s->index + 1));
	rec->seed = gt_splitmix64(&x);
	char id[17];
	snprintf(id, sizeof id, "%016llx", (unsigned long long)rec->seed);
	rec->game_id = gt_xstrdup(id);
	rec->first_to_move = GT_BLACK;
	if (!s->ended) /* two passes, or the cap: then two recorded passes */
		for (int k = s->b.passes; k < 2; k++)
			push_move(s, GT_PASS(n));
	rec->nmoves = s->nmoves;
	rec->moves = gt_xmalloc((s->nmoves ? s->nmoves : 1) * sizeof *rec->moves);
	memcpy(rec->moves, s->moves, s->nmoves * sizeof *rec->moves);
	g->nsearched = s->npos;
	g->searched = gt_xmalloc((s->npos ? s->npos : 1) * sizeof *g->searched);
	if (s->npos)
		memcpy(g->searched, s->pos, s->npos * sizeof *g->searched);
	if (s->ended) {
		rec->winner = s->winner;
		snprintf(rec->result, sizeof rec->result, "%s", s->result);
		rec->score = NAN;
		rec->score_checkable = 0;
	} else {
		rec->ownership = gt_xmalloc(n * n * sizeof *rec->ownership);
		double a = gt_board_area(&s->b, rec->ownership);
		rec->score = a;
		rec->score_checkable = 1;
		rec->winner = a > 0 ? GT_WIN_BLACK : a < 0 ? GT_WIN_WHITE : GT_WIN_DRAW;
		if (a > 0)
			snprintf(rec->result, sizeof rec->result, "B+%g", a);
		else if (a < 0)
			snprintf(rec->result, sizeof rec->result, "W+%g", -a);
		else
			snprintf(rec->result, sizeof rec->result, "0");
	}
	int aw = s->a_color == GT_BLACK ? GT_WIN_BLACK : GT_WIN_WHITE;
	g->a_score = rec->winner == GT_WIN_DRAW ? 0.5 : rec->winner == aw ? 1 : 0;
	s->active = 0;
	return g;
}

static void game_free(gt_match_game *g)
{
	if (!g)
		return;
	gt_record_release(&g->rec);
	free(g->searched);
	free(g);
}

static gt_match_game *take_done(run *r, long index)
{
	for (int i = 0; i < r->ndone; i++)
		if (r->done[i]->index == index) {
			gt_match_game *g = r->done[i];
			r->done[i] = r->done[--r->ndone];
			return g;
		}
	return NULL;
}

static int has_done(const run *r, long index)
{
	for (int i = 0; i < r->ndone; i++)
		if (r->done[i]->index == index)
			return 1;
	return 0;
}

/* count complete pairs in order; hand their games to the sink */
static int count_pairs(run *r, gt_match_sink sink, void *ctx)
{
	while (!r->stop && has_done(r, 2 * r->next_pair) && has_done(r, 2 * r->next_pair + 1)) {
		gt_match_game *g[2] = { take_done(r, 2 * r->next_pair),
		                        take_done(r, 2 * r->next_pair + 1) };
		double pts = 0;
		for (int j = 0; j < 2; j++) {
			pts += g[j]->a_score;
			if (g[j]->a_score == 1)
				r->wins++;
			else if (g[j]->a_score == 0)
				r->losses++;
			else
				r->draws++;
		}
		r->penta[(int)lround(pts * 2)]++;
		r->next_pair++;
		int err = gt_elo_pentanomial(r->penta, r->wins, r->draws, r->losses,
		                             r->p->has_sprt ? &r->p->sprt : NULL, &r->res, r->e);
		int rc = 0;
		for (int j = 0; j < 2; j++) {
			if (!err && !rc && sink)
				rc = sink(ctx, g[j], &r->res);
			game_free(g[j]);
		}
		if (err)
			return err;
		if (rc)
			return rc;
		if (r->p->has_sprt && r->res.sprt_result != GT_SPRT_CONTINUE)
			r->stop = 1;
	}
	return 0;
}

/* step_count: the slot's game on by one move (step); a game that ends is kept
 * among the done ones and the complete pairs counted. <0 on error. */
static int step_count(run *r, slot *s, gt_match_sink sink, void *ctx)
{
	int st = step(r, s);
	if (st != 1)
		return st < 0 ? st : 0;
	GT_GROW(r->done, r->ndone + 1, r->capdone, 16);
	r->done[r->ndone++] = finish(r, s);
	return count_pairs(r, sink, ctx);
}

int gt_match_run(const gt_match_params *p, gt_match_player *a, gt_match_player *b,
                 gt_match_sink sink, void *ctx, gt_elo_result *res, gt_error *e)
{
	int err = gt_match_check(p, e);
	if (err)
		return err;
	run R;
	memset(&R, 0, sizeof R);
	R.p = p;
	R.pl[0] = a;
	R.pl[1] = b;
	R.e = e;
	R.ns = p->parallel_games + p->parallel_games % 2;
	if (R.ns > p->games)
		R.ns = (int)p->games;
	R.s = gt_xcalloc(R.ns, sizeof *R.s);
	for (int j = 0; j < R.ns; j++)
		for (int k = 0; k < 2; k++)
			if (R.pl[k]->kind == GT_MATCH_MODEL)
				{
				gt_mcts_params sp = k == 0 ? p->search : p->search_b;
				sp.leaves = p->search.leaves;
				R.s[j].m[k] = gt_mcts_new(&sp);
			}
	int n = p->board_size;
	size_t stride = (size_t)n * n + 1, cap = (size_t)R.ns * p->search.leaves;
	const gt_board **boards[2];
	float *logits[2], *value[2], *score[2];
	for (int k = 0; k < 2; k++) {
		boards[k] = gt_xmalloc(cap * sizeof *boards[k]);
		logits[k] = gt_xmalloc(cap * stride * sizeof *logits[k]);
		value[k] = gt_xmalloc(cap * sizeof *value[k]);
		score[k] = gt_xmalloc(cap * sizeof *score[k]);
	}
	err = 0;
	while (!err && !R.stop) {
		int active = 0, total[2] = { 0, 0 };
		for (int j = 0; j < R.ns && !err && !R.stop; j++) {
			slot *s = &R.s[j];
			while (!s->active && R.next_game < p->games && !err && !R.stop) {
				err = slot_start(&R, s, R.next_game++);
				if (!err)
					err = step_count(&R, s, sink, ctx);
			}
			if (!s->active || err || R.stop)
				continue;
			active++;
			int k = player_of(s, s->b.to_move);
			s->nleaf = 0;
			if (s->asked)
				continue; /* its engine is thinking */
			int got = gt_mcts_collect(s->m[k], 0, boards[k] + total[k]);
			if (got < 0) {
				err = gt_error_set(e, got, -1, -1, "search: %s", gt_strerror(got));
				break;
			}
			s->off = total[k];
			s->nleaf = got;
			total[k] += got;
		}
		if (err || R.stop || !active)
			break;
		for (int k = 0; k < 2 && !err; k++) {
			if (!total[k])
				continue;
			memset(score[k], 0, total[k] * sizeof *score[k]);
			const gt_evaluator *ev = &R.pl[k]->ev;
			int rc = ev->eval(ev->ctx, n, total[k], boards[k], logits[k], value[k], score[k], NULL);
			if (rc)
				err = fatal(&R, k, rc, gt_strerror(rc));
		}
		for (int j = 0; j < R.ns && !err && !R.stop; j++) {
			slot *s = &R.s[j];
			if (!s->active)
				continue;
			int k = player_of(s, s->b.to_move);
			if (s->nleaf) {
				int rc = gt_mcts_apply(s->m[k], logits[k] + s->off * stride, value[k] + s->off,
				                       score[k] + s->off);
				if (rc) {
					err = fatal(&R, k, rc, "the network's output was not usable");
					break;
				}
			}
			s->nleaf = 0;
			err = step_count(&R, s, sink, ctx);
		}
	}
	for (int j = 0; j < R.ns; j++) {
		for (int k = 0; k < 2; k++) {
			gt_mcts_free(R.s[j].m[k]);
			gt_gtpc_close(R.s[j].c[k]);
		}
		free(R.s[j].moves);
		free(R.s[j].pos);
	}
	for (int i = 0; i < R.ndone; i++)
		game_free(R.done[i]);
	free(R.done);
	free(R.s);
	for (int k = 0; k < 2; k++)
		gt_free_all(boards[k], logits[k], value[k], score[k]);
	if (res) {
		if (R.next_pair > 0)
			*res = R.res;
		else
			memset(res, 0, sizeof *res);
	}
	return err;
}
