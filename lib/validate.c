/* validate.c: the checks of gt-validate(1) (see validate.h). */
#include "validate.h"

#include "fs.h"
#include "util.h"
#include "board.h"
#include "sym.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int __attribute__((format(printf, 5, 6)))
bad(const char **reason, char *detail, size_t size, const char *why, const char *fmt, ...)
{
	*reason = why;
	if (detail && size) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(detail, size, fmt, ap);
		va_end(ap);
	}
	return GT_EFORMAT;
}

void gt_validate_opts_init(gt_validate_opts *o)
{
	*o = (gt_validate_opts){ .min_moves = 10, .max_moves = 500, .max_weight = 4,
	                         .max_visits = 1000000 };
}

int gt_validate_name(const char *s)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");
	return n >= 1 && n <= GT_VALIDATE_NAME_MAX && !s[n];
}

int gt_validate_accept(gt_validate_opts *o, const char *key, const char *s, gt_error *e)
{
	char *copy = gt_xstrdup(s), *save = NULL, *t;
	int rc = 0;
	for (t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
		char *end;
		errno = 0;
		if (!strcmp(key, "board-size")) {
			long n = strtol(t, &end, 10);
			if (*end || errno || end == t || n < 2 || n > GT_MAX_N)
				rc = gt_error_set(e, GT_EINVAL, -1, -1, "board size \"%.20s\" not in 2..%d", t,
				                  GT_MAX_N);
			else
				o->board_sizes |= (uint32_t)1 << n;
		} else if (!strcmp(key, "komi")) {
			double k = strtod(t, &end);
			if (*end || errno || end == t || !isfinite(k) || fabs(k) > GT_MAX_PTS ||
			    k * 2 != floor(k * 2))
				rc = gt_error_set(e, GT_EINVAL, -1, -1, "komi \"%.20s\" is not a multiple of 0.5", t);
			else if (o->nkomi >= GT_VALIDATE_KOMI_MAX)
				rc = gt_error_set(e, GT_EINVAL, -1, -1, "more than %d komi values",
				                  GT_VALIDATE_KOMI_MAX);
			else
				o->komi[o->nkomi++] = k;
		} else if (!strcmp(key, "rules")) {
			const gt_rules *ru = gt_rules_find(t);
			if (!ru)
				rc = gt_error_set(e, GT_EINVAL, -1, -1, "rules \"%.20s\" not known", t);
			else
				o->rules |= (uint32_t)1 << ru->id;
		} else {
			rc = gt_error_set(e, GT_EINVAL, -1, -1, "no setting %s", key);
		}
	}
	if (!rc && !*s)
		rc = gt_error_set(e, GT_EINVAL, -1, -1, "no %s given", key);
	free(copy);
	return rc;
}

/* what the run accepts, and the bounds of a stranger's names and numbers */
static int check_run(const gt_record *r, const gt_validate_opts *o, const char **reason,
                     char *detail, size_t size)
{
	static const char *what[3] = {"worker", "model", "game_id"};
	const char *name[3] = {r->worker, r->model, r->game_id};
	for (int i = 0; i < 3; i++)
		if (name[i] && !gt_validate_name(name[i]))
			return bad(reason, detail, size, "name",
			           "%s is not 1 to %d characters of A-Z a-z 0-9 . _ - (%zu bytes)", what[i],
			           GT_VALIDATE_NAME_MAX, strlen(name[i]));
	int n = r->board_size;
	if (o->board_sizes && !(o->board_sizes >> n & 1))
		return bad(reason, detail, size, "board-size", "board size %d is not one this run takes", n);
	const gt_rules *ru = gt_rules_find(r->rules);
	if (o->rules && !(o->rules >> ru->id & 1))
		return bad(reason, detail, size, "rules", "rules %s are not those this run takes", ru->name);
	if (o->nkomi) {
		int i = 0;
		while (i < o->nkomi && o->komi[i] != r->komi)
			i++;
		if (i == o->nkomi)
			return bad(reason, detail, size, "komi", "komi %g is not one this run takes", r->komi);
	}
	/* a score no board of this size can give (area score within n*n + komi) */
	double smax = n * n + fabs(r->komi) + GT_VALIDATE_TOL;
	if (!isnan(r->score) && !(fabs(r->score) <= smax))
		return bad(reason, detail, size, "result", "score %g beyond what a %dx%d board gives",
		           r->score, n, n);
	for (int i = 0; i < r->npos; i++) {
		const gt_position *p = &r->pos[i];
		if (!(p->weight >= 0 && p->weight <= o->max_weight))
			return bad(reason, detail, size, "weight", "position %d: weight %g not in 0..%g", i,
			           p->weight, o->max_weight);
		if (p->visits < 0 || p->visits > o->max_visits)
			return bad(reason, detail, size, "visits", "position %d: %d visits, more than %ld", i,
			           p->visits, o->max_visits);
		if ((!isnan(p->score) && !(fabs(p->score) <= smax)) ||
		    (p->has_root && !(fabs(p->root_score) <= smax)))
			return bad(reason, detail, size, "score",
			           "position %d: score beyond what a %dx%d board gives", i, n, n);
	}
	return 0;
}

/* Winner and Black's score stated by a result string: returns 0 and sets
 * *w (GT_WIN_*) and *score (NAN when the margin is not a number), or -1. */
static int parse_result(const char *s, int *w, double *score)
{
	*score = NAN;
	if (!strcmp(s, "0") || !strcmp(s, "Draw") || !strcmp(s, "draw")) {
		*w = GT_WIN_DRAW;
		*score = 0;
		return 0;
	}
	if (!strcmp(s, "?") || !strcmp(s, "Void") || !strcmp(s, "")) {
		*w = GT_WIN_UNKNOWN;
		return 0;
	}
	if ((s[0] != 'B' && s[0] != 'W') || s[1] != '+')
		return -1;
	*w = s[0] == 'B' ? GT_WIN_BLACK : GT_WIN_WHITE;
	const char *m = s + 2;
	if (!*m || !strcmp(m, "R") || !strcmp(m, "Resign") || !strcmp(m, "T") || !strcmp(m, "Time") ||
	    !strcmp(m, "F") || !strcmp(m, "Forfeit"))
		return 0;
	char *end;
	errno = 0;
	double d = strtod(m, &end);
	if (*end || errno || !isfinite(d) || !(d > 0) || m[0] == '-' || m[0] == '+' || m[0] == ' ')
		return -1;
	*score = *w == GT_WIN_BLACK ? d : -d;
	return 0;
}

static int winner_of(double score)
{
	return score > 0 ? GT_WIN_BLACK : score < 0 ? GT_WIN_WHITE : GT_WIN_DRAW;
}

static char *vtx(int n, int p, char *buf)
{
	return gt_vertex_str(n, p, buf);
}

/* Checks of one position against the replayed board b (k moves played). */
static int check_position(const gt_record *r, int i, const gt_board *b, int want_to_move,
                          const char **reason, char *detail, size_t size)
{
	const gt_position *p = &r->pos[i];
	int n = r->board_size, npts = n * n;
	char v[8];
	if (p->to_move != want_to_move)
		return bad(reason, detail, size, "to-move", "position %d (move %d): to_move %s, replay says %s",
		           i, p->move_number, p->to_move == GT_BLACK ? "B" : "W",
		           want_to_move == GT_BLACK ? "B" : "W");
	if (r->boards) {
		const char *bs = r->boards + (size_t)i * npts;
		static const char sym[3] = {'.', 'X', 'O'};
		for (int q = 0; q < npts; q++)
			if (bs[q] != sym[b->color[q]])
				return bad(reason, detail, size, "board",
				           "position %d (move %d): board has '%c' at %s, replay '%c'",
				           i, p->move_number, bs[q], vtx(n, q, v), sym[b->color[q]]);
	}
	if (p->policy) {
		double sum = 0;
		for (int q = 0; q <= npts; q++) {
			float x = p->policy[q];
			if (!isfinite(x) || x < 0)
				return bad(reason, detail, size, "policy", "position %d (move %d): policy[%d] = %g",
				           i, p->move_number, q, x);
			sum += x;
			if (x > 0) {
				if (q < npts && b->color[q] != GT_EMPTY)
					return bad(reason, detail, size, "policy",
					           "position %d (move %d): policy %g on occupied %s",
					           i, p->move_number, x, vtx(n, q, v));
				int lg = gt_board_legal(b, want_to_move, q);
				if (lg)
					return bad(reason, detail, size, "policy",
					           "position %d (move %d): policy %g on illegal %s (%s)",
					           i, p->move_number, x, vtx(n, q, v), gt_strerror(lg));
			}
		}
		if (fabs(sum - 1) > GT_VALIDATE_TOL)
			return bad(reason, detail, size, "policy", "position %d (move %d): policy sums to %.6g",
			           i, p->move_number, sum);
	}
	if (!isnan(p->value)) {
		if (!(p->value >= -1 && p->value <= 1))
			return bad(reason, detail, size, "value", "position %d (move %d): value %g outside [-1,1]",
			           i, p->move_number, p->value);
		if (r->winner == GT_WIN_BLACK || r->winner == GT_WIN_WHITE || r->winner == GT_WIN_DRAW) {
			double want = r->winner == GT_WIN_DRAW ? 0 :
			              (r->winner == GT_WIN_BLACK) == (want_to_move == GT_BLACK) ? 1 : -1;
			if (fabs(p->value - want) > GT_VALIDATE_TOL)
				return bad(reason, detail, size, "value",
				           "position %d (move %d): value %g, but %s to move %s",
				           i, p->move_number, p->value, want_to_move == GT_BLACK ? "B" : "W",
				           want > 0 ? "won" : want < 0 ? "lost" : "drew");
		}
	}
	if (!isnan(p->score) && !isnan(r->score)) {
		double want = want_to_move == GT_BLACK ? r->score : -r->score;
		if (fabs(p->score - want) > GT_VALIDATE_TOL)
			return bad(reason, detail, size, "score",
			           "position %d (move %d): score %g, game score %g from %s's view is %g",
			           i, p->move_number, p->score, r->score, want_to_move == GT_BLACK ? "B" : "W", want);
	}
	return 0;
}

static int replay(const gt_record *r, const gt_rules *rules, const gt_validate_opts *o, gt_board *b,
                  const char **reason, char *detail, size_t size)
{
	int n = r->board_size, npts = n * n, rc;
	char v[8];
	if (gt_board_init(b, n, rules, r->komi))
		return bad(reason, detail, size, "board-size", "board size %d not supported", n);
	for (int c = GT_BLACK; c <= GT_WHITE; c++)
		for (int i = 0; i < r->nsetup[c]; i++) {
			int q = r->setup[c][i];
			if (q < 0 || q >= npts || b->color[q] != GT_EMPTY)
				return bad(reason, detail, size, "setup", "setup stone %s repeated or off the board",
				           q >= 0 && q < npts ? vtx(n, q, v) : "?");
			if ((rc = gt_board_setup(b, c, q)))
				return bad(reason, detail, size, "setup", "setup stone %s: %s", vtx(n, q, v),
				           gt_strerror(rc));
		}
	if (r->nmoves)
		gt_board_set_to_move(b, r->colors ? r->colors[0] : r->first_to_move);
	else
		gt_board_set_to_move(b, r->first_to_move == GT_WHITE ? GT_WHITE : GT_BLACK);
	/* a failing position is reported after the moves and the result, which
	 * are more often the cause */
	const char *pend = NULL;
	char pdetail[256];
	int pi = 0, last = -1;
	for (int k = 0; k <= r->nmoves; k++) {
		int c = k < r->nmoves ? (r->colors ? r->colors[k] : ((k & 1) ? GT_OTHER(r->first_to_move)
		                                                              : r->first_to_move))
		                      : b->to_move;
		for (; pi < r->npos && r->pos[pi].move_number == k; pi++) {
			if (r->pos[pi].move_number <= last)
				break;
			if (!pend)
				check_position(r, pi, b, c, &pend, pdetail, sizeof pdetail);
			last = k;
		}
		if (pi < r->npos && r->pos[pi].move_number <= last)
			return bad(reason, detail, size, "positions",
			           "position %d: move_number %d is not after the previous position's %d",
			           pi, r->pos[pi].move_number, last);
		if (k == r->nmoves)
			break;
		if (c != b->to_move)
			gt_board_set_to_move(b, c);
		int m = r->moves[k];
		if ((rc = gt_board_play(b, c, m)))
			return bad(reason, detail, size, "illegal-move", "move %d (%s %s): %s", k + 1,
			           c == GT_BLACK ? "B" : "W", vtx(n, m, v), gt_strerror(rc));
	}
	if (pi < r->npos)
		return bad(reason, detail, size, "positions", "position %d: move_number %d out of order",
		           pi, r->pos[pi].move_number);

	/* the result against area scoring of the final position */
	float own[GT_MAX_PTS];
	int ended = b->passes >= 2;
	if (ended && r->score_checkable) {
		double area = gt_board_area(b, own);
		if (isnan(r->score))
			return bad(reason, detail, size, "result", "no score, area scoring gives %g", area);
		if (fabs(r->score - area) > GT_VALIDATE_TOL)
			return bad(reason, detail, size, "result", "score %g, area scoring gives %g", r->score, area);
		if (r->winner != winner_of(area))
			return bad(reason, detail, size, "result", "winner %s, area scoring gives %g",
			           gt_winner_str(r->winner), area);
		int rw;
		double rs;
		parse_result(r->result, &rw, &rs);
		if (isnan(rs) || fabs(rs - area) > GT_VALIDATE_TOL)
			return bad(reason, detail, size, "result", "result \"%s\", area scoring gives %g",
			           r->result, area);
		if (r->ownership)
			for (int q = 0; q < npts; q++)
				if (fabs(r->ownership[q] - own[q]) > GT_VALIDATE_TOL)
					return bad(reason, detail, size, "ownership",
					           "ownership %g at %s, final position says %g",
					           r->ownership[q], vtx(n, q, v), own[q]);
	} else if (!o->allow_unscored) {
		return bad(reason, detail, size, "unscored", "%s, so area scoring cannot check the result",
		           !ended ? "the game did not end by two passes" : "score_checkable is false");
	}
	if (pend)
		return bad(reason, detail, size, pend, "%s", pdetail);
	return 0;
}

int gt_validate_record(const gt_record *r, const gt_validate_opts *o, const char **reason,
                       char *detail, size_t size)
{
	gt_validate_opts def;
	if (!o) {
		gt_validate_opts_init(&def);
		o = &def;
	}
	int n = r->board_size;
	if (r->version != GT_RECORD_VERSION)
		return bad(reason, detail, size, "version", "version %d not supported", r->version);
	const gt_rules *rules = gt_rules_find(r->rules);
	if (!rules)
		return bad(reason, detail, size, "rules", "rules \"%s\" not supported", r->rules);
	if (n < 2 || n > GT_MAX_N)
		return bad(reason, detail, size, "board-size", "board size %d not in 2..%d", n, GT_MAX_N);
	if (!isfinite(r->komi) || fabs(r->komi) > n * n || r->komi * 2 != floor(r->komi * 2))
		return bad(reason, detail, size, "komi", "komi %g is not a multiple of 0.5 within +-%d",
		           r->komi, n * n);
	int rc = check_run(r, o, reason, detail, size);
	if (rc)
		return rc;
	if (r->nmoves < o->min_moves || r->nmoves > o->max_moves)
		return bad(reason, detail, size, "length", "%d moves, not within %d..%d", r->nmoves,
		           o->min_moves, o->max_moves);
	if (r->nmoves > GT_MAX_HIST)
		return bad(reason, detail, size, "length", "%d moves, more than the board holds (%d)",
		           r->nmoves, GT_MAX_HIST);
	/* result, winner and score agree with each other */
	int rw;
	double rs;
	if (parse_result(r->result, &rw, &rs))
		return bad(reason, detail, size, "result", "result \"%s\" not understood", r->result);
	if (rw != r->winner && !(rw == GT_WIN_UNKNOWN && r->winner == GT_WIN_NONE))
		return bad(reason, detail, size, "result", "result \"%s\" but winner %s", r->result,
		           gt_winner_str(r->winner));
	if (!isnan(r->score)) {
		if (!isfinite(r->score))
			return bad(reason, detail, size, "result", "score is not finite");
		if (!isnan(rs) && fabs(rs - r->score) > GT_VALIDATE_TOL)
			return bad(reason, detail, size, "result", "result \"%s\" but score %g", r->result,
			           r->score);
		if (r->winner != GT_WIN_UNKNOWN && r->winner != GT_WIN_NONE && winner_of(r->score) != r->winner)
			return bad(reason, detail, size, "result", "winner %s but score %g",
			           gt_winner_str(r->winner), r->score);
	} else if (!isnan(rs)) {
		return bad(reason, detail, size, "result", "result \"%s\" but no score", r->result);
	}
	if (r->ownership)
		for (int q = 0; q < n * n; q++)
			if (!(r->ownership[q] >= -1 && r->ownership[q] <= 1))
				return bad(reason, detail, size, "ownership", "ownership[%d] = %g outside [-1,1]", q,
				           r->ownership[q]);
	gt_board *b = gt_xmalloc(sizeof *b);
	rc = replay(r, rules, o, b, reason, detail, size);
	free(b);
	return rc;
}

/* ---- duplicates ---- */

struct gt_seen {
	uint8_t (*slot)[16];
	size_t cap, count;
	int has_zero;
};

static const uint8_t zero16[16];

gt_seen *gt_seen_new(void)
{
	gt_seen *s = gt_xcalloc(1, sizeof *s);
	s->cap = 1024;
	s->slot = gt_xcalloc(s->cap, 16);
	return s;
}

void gt_seen_free(gt_seen *s)
{
	if (s) {
		free(s->slot);
		free(s);
	}
}

static size_t seen_find(const gt_seen *s, const uint8_t h[16])
{
	uint64_t x;
	memcpy(&x, h, 8);
	size_t i = (size_t)x & (s->cap - 1);
	while (memcmp(s->slot[i], zero16, 16) && memcmp(s->slot[i], h, 16))
		i = (i + 1) & (s->cap - 1);
	return i;
}

int gt_seen_has(const gt_seen *s, const uint8_t h[16])
{
	if (!memcmp(h, zero16, 16))
		return s->has_zero;
	return memcmp(s->slot[seen_find(s, h)], zero16, 16) != 0;
}

int gt_seen_add(gt_seen *s, const uint8_t h[16])
{
	if (!memcmp(h, zero16, 16)) {
		int was = s->has_zero;
		s->has_zero = 1;
		return !was;
	}
	size_t i = seen_find(s, h);
	if (memcmp(s->slot[i], zero16, 16))
		return 0;
	memcpy(s->slot[i], h, 16);
	if (++s->count * 2 > s->cap) {
		gt_seen old = *s;
		s->cap *= 2;
		s->slot = gt_xcalloc(s->cap, 16);
		for (size_t j = 0; j < old.cap; j++)
			if (memcmp(old.slot[j], zero16, 16))
				memcpy(s->slot[seen_find(s, old.slot[j])], old.slot[j], 16);
		free(old.slot);
	}
	return 1;
}

size_t gt_seen_count(const gt_seen *s)
{
	return s->count + (size_t)s->has_zero;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int gt_seen_load(gt_seen *s, FILE *f, long long *whole, gt_error *e)
{
	char line[128];
	long no = 0;
	*whole = 0;
	while (fgets(line, sizeof line, f)) {
		uint8_t h[16];
		no++;
		size_t l = strlen(line);
		if (feof(f) && (l == 0 || line[l - 1] != '\n'))
			break; /* a torn last line: not loaded, not counted in *whole */
		if (l != 33 || line[32] != '\n')
			return gt_error_set(e, GT_EFORMAT, no, -1, "not a 32-digit hash");
		for (int i = 0; i < 16; i++) {
			int a = hexval(line[2 * i]), b = hexval(line[2 * i + 1]);
			if (a < 0 || b < 0)
				return gt_error_set(e, GT_EFORMAT, no, -1, "not a 32-digit hash");
			h[i] = (uint8_t)(a << 4 | b);
		}
		gt_seen_add(s, h);
		*whole += 33;
	}
	if (ferror(f))
		return gt_error_set(e, GT_EIO, no + 1, -1, "%s", strerror(errno));
	return 0;
}

char *gt_hash_hex(const uint8_t h[16], char *out)
{
	return gt_hex(out, h, 16);
}

static void sha16(const void *p, size_t n, uint8_t out[16])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	EVP_Digest(p, n, md, &len, EVP_sha256(), NULL);
	memcpy(out, md, 16);
}

void gt_record_hashes(const gt_record *r, uint8_t id[16], int *has_id, uint8_t game[16])
{
	*has_id = r->game_id != NULL;
	if (r->game_id) {
		size_t l = strlen(r->game_id);
		char *k = gt_xmalloc(l + 8);
		memcpy(k, "id", 3);
		memcpy(k + 3, r->game_id, l + 1);
		k[l + 4] = (char)r->symmetry;
		sha16(k, l + 5, id);
		free(k);
	} else {
		memset(id, 0, 16);
	}
	/* the key bytes under each symmetry; the smallest is hashed */
	const gt_rules *ru = gt_rules_find(r->rules);
	int n = r->board_size, nst = r->nsetup[1] + r->nsetup[2];
	size_t cap = 64 + 3 * (size_t)(r->nmoves + nst + 2), len = 0;
	uint8_t *k = gt_xmalloc(cap), *best = gt_xmalloc(cap);
	for (int sym = 0; sym < GT_NSYM; sym++) {
		size_t o = 0;
		memcpy(k, "game2", 6);
		o = 6;
		k[o++] = (uint8_t)n;
		k[o++] = (uint8_t)(ru ? ru->id : 255);
		gt_le_put64(k + o, (uint64_t)(int64_t)lrint(r->komi * 2));
		o += 8;
#define PUT16(x) do { gt_le_put16(k + o, (uint16_t)(x)); o += 2; } while (0)
		for (int c = 1; c <= 2; c++) {
			PUT16(r->nsetup[c]);
			/* setup stones as a set: their images, sorted */
			size_t at = o;
			for (int i = 0; i < r->nsetup[c]; i++) {
				int q = gt_sym_point(n, sym, r->setup[c][i]), j = i;
				/* insertion sort by value, big-endian so bytes compare as numbers */
				while (j > 0 && ((k[at + 2 * (j - 1)] << 8) | k[at + 2 * (j - 1) + 1]) > q) {
					k[at + 2 * j] = k[at + 2 * (j - 1)];
					k[at + 2 * j + 1] = k[at + 2 * (j - 1) + 1];
					j--;
				}
				k[at + 2 * j] = (uint8_t)(q >> 8);
				k[at + 2 * j + 1] = (uint8_t)q;
			}
			o += 2 * (size_t)r->nsetup[c];
		}
		PUT16(r->nmoves);
		for (int i = 0; i < r->nmoves; i++) {
			int q = gt_sym_point(n, sym, r->moves[i]);
			k[o++] = (uint8_t)(q >> 8);
			k[o++] = (uint8_t)q;
			k[o++] = r->colors ? r->colors[i] : (uint8_t)((i & 1) ? GT_OTHER(r->first_to_move)
			                                                      : r->first_to_move);
		}
#undef PUT16
		if (sym == 0 || memcmp(k, best, o) < 0) {
			memcpy(best, k, o);
			len = o;
		}
	}
	sha16(best, len, game);
	free(best);
	free(k);
}

int gt_seen_check(const gt_seen *s, const gt_record *r, gt_seen_keys *k, const char **reason,
                  char *detail, size_t size)
{
	char hx[33];
	gt_record_hashes(r, k->id, &k->has_id, k->game);
	if (k->has_id && gt_seen_has(s, k->id))
		return bad(reason, detail, size, "duplicate-id", "game_id seen before (%s)",
		           gt_hash_hex(k->id, hx));
	if (gt_seen_has(s, k->game))
		return bad(reason, detail, size, "duplicate-game", "the same game (moves under a symmetry, rules, komi) seen before (%s)",
		           gt_hash_hex(k->game, hx));
	return 0;
}

int gt_seen_commit(gt_seen *s, const gt_seen_keys *k, int fd)
{
	char buf[68], hx[33];
	int n = 0;
	if (k->has_id)
		gt_seen_add(s, k->id);
	gt_seen_add(s, k->game);
	if (fd < 0)
		return 0;
	if (k->has_id)
		n += snprintf(buf + n, sizeof buf - n, "%s\n", gt_hash_hex(k->id, hx));
	n += snprintf(buf + n, sizeof buf - n, "%s\n", gt_hash_hex(k->game, hx));
	return gt_fs_write_all(fd, buf, (size_t)n);
}

/* ---- one input line ---- */

int gt_validate_line(gt_record *r, const char *line, size_t len, const gt_validate_opts *o,
                     const gt_seen *seen, gt_seen_keys *k, const char **reason, char *detail,
                     size_t size)
{
	gt_error e;
	*reason = NULL;
	if (gt_record_parse_ex(r, line, len, &e, reason)) {
		if (!*reason)
			*reason = "json";
		snprintf(detail, size, "%s", e.text);
		return GT_EFORMAT;
	}
	if (gt_validate_record(r, o, reason, detail, size))
		return GT_EFORMAT;
	return gt_seen_check(seen, r, k, reason, detail, size);
}

/* text safe for JSON: bytes outside printable ASCII become '?', and more
 * than 200 bytes are cut to 200 and "..." (a name of megabytes stays out
 * of the rejects file); NULL null */
static json_t *ascii(const char *s)
{
	if (!s)
		return json_null();
	size_t l = strnlen(s, 201);
	char *t = gt_xmalloc(l + 4);
	memcpy(t, s, l);
	strcpy(t + (l > 200 ? 200 : l), l > 200 ? "..." : "");
	for (char *p = t; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	json_t *j = json_string(t);
	free(t);
	return j;
}

char *gt_validate_reject_json(const char *file, long line, const gt_record *r,
                              const char *reason, const char *detail)
{
	json_t *o = json_pack("{so sI so so so ss so}", "file", ascii(file), "line", (json_int_t)line,
	                      "game_id", ascii(r ? r->game_id : NULL),
	                      "worker", ascii(r ? r->worker : NULL),
	                      "model", ascii(r ? r->model : NULL), "reason", reason,
	                      "detail", ascii(detail));
	char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	if (!s)
		abort(); /* out of memory */
	json_decref(o);
	return s;
}

/* ---- statistics ---- */

#define STATS_MAX_KEYS 10000

struct gt_vstats {
	long in, out, rejected, positions, moves, bwins2, decided;
	json_t *by_reason, *by_worker, *by_model;
};

gt_vstats *gt_vstats_new(void)
{
	gt_vstats *st = gt_xcalloc(1, sizeof *st);
	st->by_reason = json_object();
	st->by_worker = json_object();
	st->by_model = json_object();
	if (!st->by_reason || !st->by_worker || !st->by_model)
		abort(); /* out of memory */
	return st;
}

void gt_vstats_free(gt_vstats *st)
{
	if (!st)
		return;
	json_decref(st->by_reason);
	json_decref(st->by_worker);
	json_decref(st->by_model);
	free(st);
}

void gt_vstats_accept(gt_vstats *st, const gt_record *r)
{
	st->in++;
	st->out++;
	st->positions += r->npos;
	st->moves += r->nmoves;
	if (r->winner == GT_WIN_BLACK || r->winner == GT_WIN_WHITE || r->winner == GT_WIN_DRAW) {
		st->decided++;
		st->bwins2 += r->winner == GT_WIN_BLACK ? 2 : r->winner == GT_WIN_DRAW ? 1 : 0;
	}
}

static void bump(json_t *o, const char *key)
{
	if (!json_object_get(o, key) && json_object_size(o) >= STATS_MAX_KEYS)
		key = "(others)";
	json_t *v = json_object_get(o, key);
	json_object_set_new(o, key, json_integer(v ? json_integer_value(v) + 1 : 1));
}

void gt_vstats_reject(gt_vstats *st, const char *reason, const char *worker, const char *model)
{
	st->in++;
	st->rejected++;
	/* a name the checks refuse is not a key of the summary */
	if (worker && !gt_validate_name(worker))
		worker = "(bad name)";
	if (model && !gt_validate_name(model))
		model = "(bad name)";
	bump(st->by_reason, reason ? reason : "?");
	bump(st->by_worker, worker ? worker : "?");
	bump(st->by_model, model ? model : "?");
}

long gt_vstats_rejected(const gt_vstats *st)
{
	return st->rejected;
}

char *gt_vstats_json(const gt_vstats *st)
{
	json_t *o = json_pack("{sI sI sI sO sO sO sI so so}",
	                      "records_in", (json_int_t)st->in, "records_out", (json_int_t)st->out,
	                      "rejected", (json_int_t)st->rejected,
	                      "rejects_by_reason", st->by_reason, "rejects_by_worker", st->by_worker,
	                      "rejects_by_model", st->by_model, "positions", (json_int_t)st->positions,
	                      "mean_game_length", st->out ? json_real((double)st->moves / st->out) : json_null(),
	                      "black_win_rate", st->decided ? json_real(st->bwins2 / (2.0 * st->decided)) : json_null());
	char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(6));
	json_decref(o);
	if (!s)
		abort(); /* out of memory */
	char *copy = gt_xstrdup(s);
	free(s);
	return copy;
}
