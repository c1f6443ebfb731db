/* sgfrec.c: SGF games to game records and back (see sgfrec.h). */
#include "sgfrec.h"
#include "util.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

static const struct {
	const char *key; /* normalised RU: lowercase letters and digits */
	int prefix;      /* 1: key is a prefix, 0: the whole text */
	const char *rules;
	int count;
} rule_map[] = {
	{"chinese", 1, "chinese", GT_COUNT_AREA},
	{"cn", 0, "chinese", GT_COUNT_AREA},
	{"aga", 1, "chinese", GT_COUNT_AREA},
	{"bga", 1, "chinese", GT_COUNT_AREA},
	{"newzealand", 1, "new-zealand", GT_COUNT_AREA},
	{"nz", 0, "new-zealand", GT_COUNT_AREA},
	{"ing", 1, "new-zealand", GT_COUNT_AREA},
	{"goe", 1, "new-zealand", GT_COUNT_AREA},
	{"tromptaylor", 1, "tromp-taylor", GT_COUNT_AREA},
	{"tt", 0, "tromp-taylor", GT_COUNT_AREA},
	{"japan", 1, "chinese", GT_COUNT_TERRITORY},
	{"jp", 0, "chinese", GT_COUNT_TERRITORY},
	{"korea", 1, "chinese", GT_COUNT_TERRITORY},
	{"kr", 0, "chinese", GT_COUNT_TERRITORY},
	{"ko", 0, "chinese", GT_COUNT_TERRITORY},
};

int gt_sgfrec_rules(const char *ru, const gt_rules **rules)
{
	char key[32];
	size_t k = 0;
	for (const char *s = ru ? ru : ""; *s && k < sizeof key - 1; s++)
		if (isalnum((unsigned char)*s) && !((unsigned char)*s & 0x80))
			key[k++] = (char)tolower((unsigned char)*s);
	key[k] = 0;
	for (size_t i = 0; k && i < sizeof rule_map / sizeof rule_map[0]; i++) {
		size_t l = strlen(rule_map[i].key);
		if (rule_map[i].prefix ? !strncmp(key, rule_map[i].key, l) : !strcmp(key, rule_map[i].key)) {
			*rules = gt_rules_find(rule_map[i].rules);
			return rule_map[i].count;
		}
	}
	*rules = gt_rules_find("chinese");
	return GT_COUNT_UNKNOWN;
}

const gt_rules *gt_sgfrec_play_rules(const char *ru)
{
	const gt_rules *r = gt_rules_find_play(ru);
	if (r)
		return r;
	int count = gt_sgfrec_rules(ru, &r);
	return count == GT_COUNT_UNKNOWN ? NULL :
	       count == GT_COUNT_TERRITORY ? gt_rules_find_play("japanese") : r;
}

const gt_rules *gt_sgfrec_katago_rules(const char *sc, const char *ko, const char *tax,
                                       int suicide, int button, const char **why)
{
	int terr = sc && !strcmp(sc, "TERRITORY");
	*why = !ko || !sc || suicide < 0 ? "ko, scoring and suicide are required" :
	       strcmp(sc, "AREA") && !terr ? "only AREA or TERRITORY scoring" :
	       !terr && tax && strcmp(tax, "NONE") ? "only tax NONE with AREA scoring" :
	       terr && tax && strcmp(tax, "SEKI") ? "only tax SEKI with TERRITORY scoring" :
	       button ? "no button" : NULL;
	int k = ko && !strcmp(ko, "SIMPLE") ? GT_KO_SIMPLE : ko && !strcmp(ko, "POSITIONAL") ?
	        GT_KO_POSITIONAL : ko && !strcmp(ko, "SITUATIONAL") ? GT_KO_SITUATIONAL : -1;
	for (int i = 0; !*why && i < GT_NRULES_ALL; i++) {
		const gt_rules *x = gt_rules_get(i);
		if (x->ko == k && x->multi_suicide == suicide && (x->scoring == GT_SCORE_TERRITORY) == terr)
			return x;
	}
	if (!*why)
		*why = "no ruleset of gt has that scoring, ko and suicide";
	return NULL;
}

/* length of the UTF-8 character at s (at most n bytes), 0 if not valid */
static size_t utf8_char(const unsigned char *s, size_t n)
{
	size_t l = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 :
	           (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	if (!l || l > n)
		return 0;
	unsigned cp = l == 1 ? s[0] : l == 2 ? s[0] & 0x1fu : l == 3 ? s[0] & 0x0fu : s[0] & 0x07u;
	for (size_t i = 1; i < l; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	static const unsigned min[5] = {0, 0, 0x80, 0x800, 0x10000};
	if (cp < min[l] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return l;
}

/* RU text into out[32]: valid UTF-8, no control bytes, cut at a character */
static void copy_text(char *out, size_t size, const char *val, size_t len)
{
	const unsigned char *s = (const unsigned char *)val;
	size_t o = 0, i = 0;
	while (i < len) {
		size_t l = s[i] < 0x20 || s[i] == 0x7f ? 1 : utf8_char(s + i, len - i);
		if (o + (l ? l : 1) > size - 1)
			break;
		if (!l || s[i] < 0x20 || s[i] == 0x7f) {
			out[o++] = s[i] < 0x20 || s[i] == 0x7f ? ' ' : '?';
			i++;
		} else {
			memcpy(out + o, s + i, l);
			o += l;
			i += l;
		}
	}
	out[o] = 0;
}

/* the result of g into r: result, winner, score (Black's view) */
static void set_result(const gt_sgf_game *g, gt_record *r)
{
	r->score = NAN;
	r->winner = GT_WIN_UNKNOWN;
	strcpy(r->result, "?");
	if (g->winner == GT_WIN_DRAW) {
		r->winner = GT_WIN_DRAW;
		strcpy(r->result, "0");
		r->score = 0;
		return;
	}
	if (g->winner != GT_WIN_BLACK && g->winner != GT_WIN_WHITE)
		return;
	r->winner = g->winner;
	const char *w = g->winner == GT_WIN_BLACK ? "B" : "W";
	double m = g->margin;
	if (g->method == GT_BY_SCORE && g->has_margin && m >= 0.001 && m < 1e6) {
		char t[48]; /* m in [0.001, 1e6): at most 12 characters */
		snprintf(t, sizeof t, "%.8g", m);
		m = strtod(t, NULL);
		r->result[0] = *w;
		r->result[1] = '+';
		snprintf(r->result + 2, sizeof r->result - 2, "%.13s", t);
		r->score = g->winner == GT_WIN_BLACK ? m : -m;
		return;
	}
	snprintf(r->result, sizeof r->result, "%s+%s", w,
	         g->method == GT_BY_RESIGN ? "R" : g->method == GT_BY_TIME ? "T" :
	         g->method == GT_BY_FORFEIT ? "F" : "");
}

int gt_sgfrec_to_record(const gt_sgf_game *g, const gt_rules *rules, gt_record *r,
                        gt_error *err)
{
	gt_record_release(r);
	if (g->err) {
		if (err)
			*err = g->error;
		return g->err;
	}
	const char *ru = gt_sgf_prop_get(g, "RU");
	const gt_rules *ru_rules;
	int count = gt_sgfrec_rules(ru, &ru_rules);
	if (rules)
		count = GT_COUNT_AREA;
	else
		rules = ru_rules;
	int n = g->size, npts = n * n;
	if (fabs(g->komi) > npts)
		return gt_error_set(err, GT_EUNSUPPORTED, -1, g->offset,
		                    "game %d: komi %g out of range for %dx%d", g->index, g->komi, n, n);

	gt_board *b = gt_xmalloc(sizeof *b);
	int rc = gt_sgf_replay(g, rules, b, NULL, err);
	if (rc) {
		free(b);
		return rc;
	}

	snprintf(r->rules, sizeof r->rules, "%s", rules->name);
	if (ru)
		for (int i = 0; i < g->nprops; i++)
			if (!strcmp(g->props[i].id, "RU"))
				copy_text(r->sgf_rules, sizeof r->sgf_rules, g->props[i].val,
				          g->props[i].len);
	r->komi = g->komi;
	r->board_size = n;
	r->model = gt_xstrdup("human");
	r->worker = gt_xstrdup("sgf");
	r->nsetup[GT_BLACK] = g->nblack;
	r->nsetup[GT_WHITE] = g->nwhite;
	r->setup[GT_BLACK] = gt_xmalloc(((size_t)g->nblack + 1) * sizeof(int16_t));
	r->setup[GT_WHITE] = gt_xmalloc(((size_t)g->nwhite + 1) * sizeof(int16_t));
	if (g->nblack)
		memcpy(r->setup[GT_BLACK], g->black, (size_t)g->nblack * sizeof(int16_t));
	if (g->nwhite)
		memcpy(r->setup[GT_WHITE], g->white, (size_t)g->nwhite * sizeof(int16_t));
	r->first_to_move = g->nmoves ? g->moves[0].color : g->first;
	r->nmoves = g->nmoves;
	r->moves = gt_xmalloc(((size_t)g->nmoves + 1) * sizeof(int16_t));
	r->colors = gt_xmalloc((size_t)g->nmoves + 1);
	for (int i = 0; i < g->nmoves; i++) {
		r->moves[i] = (int16_t)g->moves[i].pt;
		r->colors[i] = (uint8_t)g->moves[i].color;
	}

	set_result(g, r);
	r->score_checkable = count == GT_COUNT_AREA && g->handicap == 0 &&
	                     (r->winner == GT_WIN_DRAW || !isnan(r->score));
	if (b->passes >= 2) {
		r->ownership = gt_xmalloc((size_t)npts * sizeof(float));
		gt_board_area(b, r->ownership);
	}
	free(b);

	int known = r->winner == GT_WIN_BLACK || r->winner == GT_WIN_WHITE || r->winner == GT_WIN_DRAW;
	r->npos = g->nmoves;
	r->pos = gt_xcalloc((size_t)g->nmoves + 1, sizeof *r->pos);
	for (int i = 0; i < g->nmoves; i++) {
		gt_position *p = &r->pos[i];
		int c = g->moves[i].color;
		p->move_number = i;
		p->to_move = c;
		p->policy = gt_xcalloc((size_t)npts + 1, sizeof(float));
		p->policy[g->moves[i].pt] = 1;
		p->value = NAN;
		p->score = NAN;
		if (known) {
			int black = c == GT_BLACK;
			p->value = r->winner == GT_WIN_DRAW ? 0 :
			           (r->winner == GT_WIN_BLACK) == black ? 1 : -1;
			if (!isnan(r->score))
				p->score = (float)(black ? r->score : -r->score);
		}
		p->visits = 0;
		p->full_search = 1;
		p->weight = known ? 1 : 0;
	}
	return 0;
}

int gt_sgfrec_from_record(const gt_record *r, gt_sgf_game *g, gt_error *err)
{
	int n = r->board_size;
	if (gt_sgf_game_init(g, n))
		return gt_error_set(err, GT_EINVAL, -1, -1, "board_size %d not in 2..%d", n, GT_MAX_N);
	g->komi = r->komi;
	for (int c = GT_BLACK; c <= GT_WHITE; c++)
		for (int i = 0; i < r->nsetup[c]; i++)
			if (gt_sgf_add_setup(g, c, r->setup[c][i])) {
				gt_sgf_game_release(g);
				return gt_error_set(err, GT_EINVAL, -1, -1, "setup stone %d is off the board",
				                    r->setup[c][i]);
			}
	if (r->nsetup[GT_WHITE] == 0 && r->nsetup[GT_BLACK] >= 2)
		g->handicap = r->nsetup[GT_BLACK];
	g->first = r->colors && r->nmoves ? r->colors[0] : r->first_to_move;
	if (g->first != GT_WHITE)
		g->first = GT_BLACK;
	for (int i = 0; i < r->nmoves; i++) {
		int c = r->colors ? r->colors[i] : (i & 1) ? GT_OTHER(g->first) : g->first;
		if (gt_sgf_add_move(g, c, r->moves[i])) {
			gt_sgf_game_release(g);
			return gt_error_set(err, GT_EINVAL, -1, -1, "move %d is off the board", i + 1);
		}
	}
	gt_sgf_result_parse(g, r->result);
	const char *ru = r->sgf_rules[0] ? r->sgf_rules : r->rules;
	if (ru[0])
		gt_sgf_prop_set(g, "RU", ru, strlen(ru));
	if (r->model) {
		gt_sgf_prop_set(g, "PB", r->model, strlen(r->model));
		gt_sgf_prop_set(g, "PW", r->model, strlen(r->model));
	}
	if (r->worker)
		gt_sgf_prop_set(g, "US", r->worker, strlen(r->worker));
	if (r->game_id)
		gt_sgf_prop_set(g, "GN", r->game_id, strlen(r->game_id));
	for (int i = 0; i < r->npos; i++)
		if (r->pos[i].has_root && r->pos[i].move_number < g->nmoves) {
			char c[96];
			gt_sgfrec_comment(&r->pos[i], c, sizeof c);
			gt_sgf_set_comment(g, r->pos[i].move_number, c);
		}
	return 0;
}

void gt_sgfrec_comment(const gt_position *p, char *buf, size_t size)
{
	double sg = p->to_move == GT_WHITE ? -1 : 1;
	double v = sg * p->root_value, s = sg * p->root_score;
	snprintf(buf, size, "win rate B %.1f%%, score lead %s+%.1f, visits %d", 50 * (1 + v),
	         s < 0 ? "W" : "B", fabs(s), p->visits);
}

void gt_sgfrec_set_date(gt_sgf_game *g, time_t t)
{
	struct tm tm;
	char d[32];
	gmtime_r(&t, &tm);
	strftime(d, sizeof d, "%Y-%m-%d", &tm);
	gt_sgf_prop_set(g, "DT", d, strlen(d));
}

int gt_sgfrec_game_id(const char *buf, size_t len, int index, char *out)
{
	unsigned char md[32];
	unsigned int mdlen = 0;
	char idx[16];
	int il = snprintf(idx, sizeof idx, "%d", index);
	out[0] = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) &&
	         EVP_DigestUpdate(ctx, buf, len) && EVP_DigestUpdate(ctx, "", 1) &&
	         EVP_DigestUpdate(ctx, idx, (size_t)il) && EVP_DigestFinal_ex(ctx, md, &mdlen) &&
	         mdlen == 32;
	EVP_MD_CTX_free(ctx);
	if (!ok)
		return GT_ENOMEM;
	gt_hex(out, md, 32);
	return 0;
}
