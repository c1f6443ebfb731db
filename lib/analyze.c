/* analyze.c: KataGo's analysis-engine protocol over gt's search
 * (analyze.h). */
#include "analyze.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "record.h"
#include "score.h"
#include "util.h"
#include "sgfrec.h"

/* A query: the game and what to report; shared by its turns. */
typedef struct query {
	int refs;
	char *id;
	int n;
	const gt_rules *rules;
	double komi;
	int nsetup;
	int16_t *setup_pt;
	uint8_t *setup_color;
	int first;          /* colour to move at turn 0 */
	int nmoves;
	int16_t *moves;
	uint8_t *colors;
	int visits, pv_len, ownership, policy, moves_own, pv_visits;
	gt_mcts_avoid *avoid; /* avoidMoves and allowMoves; NULL: none */
	double report_every; /* seconds; 0: no reports during the search */
	double root_fpu;     /* < 0: the default */
} query;

/* A turn to search. */
typedef struct task {
	query *q;
	int turn;
	int terminated;
	long seq;            /* its place among the final answers */
} task;

/* A search in flight. */
typedef struct slot {
	task t;
	gt_mcts *m;
	double next_report;
	int off, k;          /* this round's slice of the batch */
	int have_raw;        /* raw: 1 computed, -1 none, 0 not yet (raw_root) */
	gt_eval_raw raw;
} slot;

struct gt_analyzer {
	gt_analyze_params p;
	const gt_evaluator *ev;
	task *queue;
	long head, tail, cap;    /* queued turns: queue[head..tail) */
	slot *slots;
	int nslots;
	char **out;
	long ohead, otail, ocap; /* answers waiting: out[ohead..otail) */
	long next_seq, emit_seq; /* final answers go out in the order queued */
	struct done { long seq; char *s; } *done;
	int ndone, capdone;
	long errors;
	/* the batch */
	const gt_board **boards;
	float *logits, *value, *score, *own;
	gt_mcts_move_info info[GT_MAX_PTS + 1];
};

void gt_analyze_params_default(gt_analyze_params *p)
{
	*p = (gt_analyze_params){ .visits = 100, .parallel = 16, .pv_len = 15,
	                          .report = GT_REPORT_BLACK, .model = "none" };
	gt_mcts_params_default(&p->search);
	p->search.leaves = 1;
}

gt_analyzer *gt_analyzer_new(const gt_analyze_params *p, const gt_evaluator *ev)
{
	gt_analyzer *a = gt_xcalloc(1, sizeof *a);
	a->p = *p;
	if (a->p.parallel < 1)
		a->p.parallel = 1;
	if (a->p.search.leaves < 1)
		a->p.search.leaves = 1;
	a->ev = ev;
	a->slots = gt_xcalloc((size_t)a->p.parallel, sizeof *a->slots);
	size_t cap = (size_t)a->p.parallel * a->p.search.leaves;
	a->boards = gt_xmalloc(cap * sizeof *a->boards);
	a->logits = gt_xmalloc(cap * (GT_MAX_PTS + 1) * sizeof *a->logits);
	a->value = gt_xmalloc(cap * sizeof *a->value);
	a->score = gt_xmalloc(cap * sizeof *a->score);
	a->own = gt_xmalloc(cap * GT_MAX_PTS * sizeof *a->own);
	return a;
}

static void query_unref(query *q)
{
	if (!q || --q->refs > 0)
		return;
	gt_free_all(q->id, q->setup_pt, q->setup_color, q->moves, q->colors, q->avoid, q);
}

void gt_analyzer_free(gt_analyzer *a)
{
	if (!a)
		return;
	for (long i = a->head; i < a->tail; i++)
		query_unref(a->queue[i].q);
	for (int i = 0; i < a->nslots; i++) {
		query_unref(a->slots[i].t.q);
		gt_mcts_free(a->slots[i].m);
	}
	for (long i = a->ohead; i < a->otail; i++)
		free(a->out[i]);
	for (int i = 0; i < a->ndone; i++)
		free(a->done[i].s);
	gt_free_all(a->done, a->queue, a->slots, a->out, a->boards, a->logits, a->value, a->score,
	            a->own, a);
}

/* ---- output ---- */

/* room for one more at the tail of a queue arr[head..tail) of elements of
 * size bytes: moved to the front, or grown */
static void *room(void *arr, long *head, long *tail, long *cap, size_t size)
{
	if (*tail < *cap)
		return arr;
	if (*head > 0) {
		memmove(arr, (char *)arr + *head * size, (size_t)(*tail - *head) * size);
		*tail -= *head;
		*head = 0;
	}
	size_t c = (size_t)*cap;
	arr = gt_grow(arr, &c, (size_t)*tail + 1, size, 64);
	*cap = (long)c;
	return arr;
}

static void out_push(gt_analyzer *a, char *s)
{
	a->out = room(a->out, &a->ohead, &a->otail, &a->ocap, sizeof *a->out);
	a->out[a->otail++] = s;
}

static char *dump(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(9) | JSON_ENSURE_ASCII);
	json_decref(o);
	return s ? s : gt_xstrdup("{\"error\":\"an answer could not be written\"}");
}

/* queue o (stolen) as an answer line now (errors, warnings, actions,
 * reports during a search) */
static void emit(gt_analyzer *a, json_t *o)
{
	out_push(a, dump(o));
}

/* the final answer o (stolen) of the turn queued seq-th: out once those
 * queued before it are, so that answers come in the order of the queries
 * and turns whatever finishes first */
static void final(gt_analyzer *a, long seq, json_t *o)
{
	GT_GROW(a->done, a->ndone + 1, a->capdone, 16);
	a->done[a->ndone++] = (struct done){ seq, dump(o) };
	for (int i = 0; i < a->ndone;) {
		if (a->done[i].seq != a->emit_seq) {
			i++;
			continue;
		}
		out_push(a, a->done[i].s);
		a->done[i] = a->done[--a->ndone];
		a->emit_seq++;
		i = 0;
	}
}

char *gt_analyzer_output(gt_analyzer *a)
{
	return a->ohead < a->otail ? a->out[a->ohead++] : NULL;
}

long gt_analyzer_queued(const gt_analyzer *a)
{
	return a->tail - a->head;
}

long gt_analyzer_errors(const gt_analyzer *a)
{
	return a->errors;
}

static json_t *with_id(const char *id)
{
	json_t *o = json_object();
	if (id)
		json_object_set_new(o, "id", json_string(id));
	return o;
}

/* an error or warning line (kind "error", "warning") */
static json_t *note(const char *kind, const char *id, const char *field, const char *fmt,
                    va_list ap)
{
	char msg[512];
	vsnprintf(msg, sizeof msg, fmt, ap);
	json_t *o = with_id(id);
	json_object_set_new(o, kind, json_string(msg));
	if (field)
		json_object_set_new(o, "field", json_string(field));
	return o;
}

static void error(gt_analyzer *a, const char *id, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void error(gt_analyzer *a, const char *id, const char *field, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(a, note("error", id, field, fmt, ap));
	va_end(ap);
	a->errors++;
}

/* the final answer of turn t is an error */
static void turn_error(gt_analyzer *a, const task *t, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void turn_error(gt_analyzer *a, const task *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	json_t *o = note("error", t->q->id, NULL, fmt, ap);
	va_end(ap);
	json_object_set_new(o, "turnNumber", json_integer(t->turn));
	final(a, t->seq, o);
	a->errors++;
}

static void warning(gt_analyzer *a, const char *id, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void warning(gt_analyzer *a, const char *id, const char *field, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(a, note("warning", id, field, fmt, ap));
	va_end(ap);
}

/* ---- the turns' positions ---- */

/* b = the position of q at turn t, with the side that moves there to move;
 * a game that ended goes on as a new start. Returns 0 or the error of the
 * first illegal move or setup stone; *bad (may be NULL) its index (-1 for
 * a setup stone). */
static int position(const query *q, int t, gt_board *b, int *bad)
{
	int err = gt_board_init(b, q->n, q->rules, q->komi);
	for (int i = 0; i < q->nsetup && !err; i++)
		if ((err = gt_board_setup(b, q->setup_color[i], q->setup_pt[i])) && bad)
			*bad = -1;
	if (err)
		return err;
	gt_board_set_to_move(b, q->nmoves ? q->colors[0] : q->first);
	for (int i = 0; i < t; i++)
		if ((err = gt_score_play_on(b, q->colors[i], q->moves[i]))) {
			if (bad)
				*bad = i;
			return err;
		}
	if (gt_board_over(b)) {
		gt_board *c = gt_xmalloc(sizeof *c);
		gt_score_board_from(c, b);
		gt_board_copy(b, c);
		free(c);
	}
	if (t < q->nmoves && q->colors[t] != b->to_move)
		gt_board_set_to_move(b, q->colors[t]);
	return 0;
}

static void enqueue(gt_analyzer *a, query *q, int turn)
{
	a->queue = room(a->queue, &a->head, &a->tail, &a->cap, sizeof *a->queue);
	q->refs++;
	a->queue[a->tail++] = (task){ q, turn, 0, a->next_seq++ };
}

/* ---- queries ---- */

/* a point "D4", "pass" or KataGo's "(x,y)" (x from the left, y from the
 * top) on an n board; GT_EFORMAT or GT_EOFFBOARD */
static int parse_loc(int n, const char *s)
{
	int x, y, k = 0;
	if (s[0] == '(' && sscanf(s, "(%d,%d)%n", &x, &y, &k) == 2 && s[k] == 0)
		return x >= 0 && y >= 0 && x < n && y < n ? y * n + x : GT_EOFFBOARD;
	return gt_vertex_parse(n, s);
}

/* [["B","D4"], ...] into pts/colors (new arrays); 0 or -1 with the error
 * answered */
static int parse_pairs(gt_analyzer *a, const char *id, json_t *v, const char *field, int n,
                       int *count, int16_t **pts, uint8_t **colors)
{
	*count = 0;
	*pts = NULL;
	*colors = NULL;
	if (!v)
		return 0;
	if (!json_is_array(v)) {
		error(a, id, field, "%s is not an array", field);
		return -1;
	}
	size_t k = json_array_size(v);
	if (k > GT_MAX_HIST) {
		error(a, id, field, "%s: %zu entries, at most %d", field, k, GT_MAX_HIST);
		return -1;
	}
	*pts = gt_xmalloc((k + 1) * sizeof **pts);
	*colors = gt_xmalloc(k + 1);
	for (size_t i = 0; i < k; i++) {
		json_t *e = json_array_get(v, i);
		json_t *c = json_array_get(e, 0), *l = json_array_get(e, 1);
		int color = json_is_string(c) ? gt_color_parse(json_string_value(c)) : -1;
		int pt = json_is_string(l) ? parse_loc(n, json_string_value(l)) : GT_EFORMAT;
		if (!json_is_array(e) || json_array_size(e) != 2 || color < 0 || pt < 0) {
			error(a, id, field, "%s[%zu] is not a [player, location] pair on %dx%d", field, i, n, n);
			free(*pts);
			free(*colors);
			*pts = NULL;
			*colors = NULL;
			return -1;
		}
		(*pts)[i] = (int16_t)pt;
		(*colors)[i] = (uint8_t)color;
	}
	*count = (int)k;
	return 0;
}

/* fields gt cannot honour: answered with a warning when they ask for
 * something */
static const char *const unsupported[] = {
	"includeOwnershipStdev", "includeMovesOwnershipStdev",
	"includeNoResultValue", "overrideSettings",
	"rootPolicyTemperature", "whiteHandicapBonus", "priority", "priorities", "humanSLProfile",
	NULL
};
static const char *const known[] = {
	"id", "moves", "initialStones", "initialPlayer", "rules", "komi", "boardXSize",
	"boardYSize", "analyzeTurns", "maxVisits", "includeOwnership", "includePolicy",
	"analysisPVLen", "rootFpuReductionMax", "reportDuringSearchEvery", "includeMovesOwnership",
	"includePVVisits", "avoidMoves", "allowMoves", NULL
};

static int in_list(const char *const *l, const char *k)
{
	for (int i = 0; l[i]; i++)
		if (!strcmp(l[i], k))
			return 1;
	return 0;
}

static int asks(json_t *v)
{
	return !(json_is_null(v) || json_is_false(v) || (json_is_integer(v) && !json_integer_value(v)) ||
	         (json_is_array(v) && !json_array_size(v)) || (json_is_object(v) && !json_object_size(v)));
}

/* a number field in lo..hi, or def when absent; -1 with the error answered */
static int num_field(gt_analyzer *a, const char *id, json_t *o, const char *k, double lo, double hi,
                     int integer, double def, double *out)
{
	json_t *v = json_object_get(o, k);
	*out = def;
	if (!v)
		return 0;
	double x = json_is_number(v) ? json_number_value(v) : NAN;
	if (!(x >= lo && x <= hi) || (integer && x != floor(x))) {
		error(a, id, k, "%s must be %s in %g..%g", k, integer ? "an integer" : "a number", lo, hi);
		return -1;
	}
	*out = x;
	return 0;
}

static int bool_field(gt_analyzer *a, const char *id, json_t *o, const char *k, int def, int *out)
{
	json_t *v = json_object_get(o, k);
	*out = def;
	if (!v)
		return 0;
	if (!json_is_boolean(v)) {
		error(a, id, k, "%s must be true or false", k);
		return -1;
	}
	*out = json_is_true(v);
	return 0;
}

/* the rules of a query: a name gt_sgfrec_play_rules knows (japanese and
 * korean by territory; warned when played as another) or KataGo's JSON
 * object (gt_sgfrec_katago_rules); -1 with the error answered */
static int parse_rules(gt_analyzer *a, const char *id, json_t *v, const gt_rules **r)
{
	if (!v) {
		error(a, id, "rules", "rules is required");
		return -1;
	}
	if (json_is_object(v)) {
		const char *why;
		json_t *su = json_object_get(v, "suicide");
		*r = gt_sgfrec_katago_rules(json_string_value(json_object_get(v, "scoring")),
		                            json_string_value(json_object_get(v, "ko")),
		                            json_string_value(json_object_get(v, "tax")),
		                            json_is_boolean(su) ? json_is_true(su) : -1,
		                            json_is_true(json_object_get(v, "hasButton")), &why);
		if (!*r)
			error(a, id, "rules", "rules not supported: %s", why);
		return *r ? 0 : -1;
	}
	if (!json_is_string(v)) {
		error(a, id, "rules", "rules must be a string");
		return -1;
	}
	const char *s = json_string_value(v);
	if ((*r = gt_rules_find_play(s)))
		return 0;
	if (!(*r = gt_sgfrec_play_rules(s))) {
		error(a, id, "rules", "unknown rules '%.64s' (tromp-taylor, chinese, japanese, new-zealand)", s);
		return -1;
	}
	if (strcmp(s, (*r)->name))
		warning(a, id, "rules", "%.64s played as %s", s, (*r)->name);
	return 0;
}

/* avoidMoves or allowMoves (field) of a query on an n board into q->avoid
 * (KataGo's Analysis_Engine.md: dicts of player, moves and untilDepth;
 * allowMoves at most one per player and not with avoidMoves for it);
 * seen[c] has bit 1 for avoid, 2 for allow. 0, or -1 with the error
 * answered */
static int parse_avoid(gt_analyzer *a, const char *id, json_t *v, const char *field, int n,
                       query *q, int *seen)
{
	int allow = field[0] == 'a' && field[1] == 'l';
	if (!v)
		return 0;
	if (!json_is_array(v) || json_array_size(v) > 64) {
		error(a, id, field, "%s must be an array of at most 64 objects", field);
		return -1;
	}
	for (size_t i = 0; i < json_array_size(v); i++) {
		json_t *d = json_array_get(v, i), *mv = json_object_get(d, "moves");
		json_t *ud = json_object_get(d, "untilDepth");
		const char *pl = json_string_value(json_object_get(d, "player"));
		int color = pl ? gt_color_parse(pl) : -1;
		if (!json_is_object(d) || color < 0 || !json_is_array(mv) || !json_is_integer(ud) ||
		    json_integer_value(ud) < 1 || json_integer_value(ud) > 1000000000) {
			error(a, id, field, "%s[%zu] must be {\"player\": B or W, \"moves\": [...], "
			      "\"untilDepth\": a positive integer}", field, i);
			return -1;
		}
		int c = color == GT_WHITE, d0 = (int)json_integer_value(ud);
		if ((allow && seen[c]) || (!allow && (seen[c] & 2))) {
			error(a, id, field, "%s[%zu]: allowMoves at most once for %s, and not with avoidMoves",
			      field, i, pl);
			return -1;
		}
		seen[c] |= allow ? 2 : 1;
		if (!q->avoid)
			q->avoid = gt_xcalloc(1, sizeof *q->avoid);
		int *u = q->avoid->until[c];
		if (allow)
			for (int p = 0; p <= n * n; p++)
				u[p] = d0;
		for (size_t j = 0; j < json_array_size(mv); j++) {
			json_t *l = json_array_get(mv, j);
			int pt = json_is_string(l) ? parse_loc(n, json_string_value(l)) : GT_EFORMAT;
			if (pt < 0) {
				error(a, id, field, "%s[%zu].moves[%zu] is not a location on %dx%d", field, i, j, n, n);
				return -1;
			}
			u[pt] = allow ? 0 : d0;
		}
	}
	return 0;
}

static void action(gt_analyzer *a, const char *id, json_t *o)
{
	const char *act = json_string_value(json_object_get(o, "action"));
	if (!act) {
		error(a, id, "action", "action must be a string");
		return;
	}
	json_t *echo = json_deep_copy(o);
	if (!strcmp(act, "query_version")) {
		json_object_set_new(echo, "version", json_string(GT_VERSION));
		json_object_set_new(echo, "git_hash", json_string("<omitted>"));
	} else if (!strcmp(act, "query_models")) {
		json_t *m = json_object();
		json_object_set_new(m, "name", json_string(a->p.model));
		json_object_set_new(m, "internalName", json_string(a->p.model));
		json_object_set_new(echo, "models", json_pack("[o]", m));
	} else if (!strcmp(act, "terminate") || !strcmp(act, "terminate_all")) {
		const char *tid = json_string_value(json_object_get(o, "terminateId"));
		json_t *turns = json_object_get(o, "turnNumbers");
		if (act[9] == 0 && !tid) {
			json_decref(echo);
			error(a, id, "terminateId", "terminate needs a terminateId");
			return;
		}
		for (int pass = 0; pass < 2; pass++) {
			long n = pass ? a->nslots : a->tail - a->head;
			for (long i = 0; i < n; i++) {
				task *t = pass ? &a->slots[i].t : &a->queue[a->head + i];
				int hit = !tid || !strcmp(t->q->id, tid);
				if (hit && json_is_array(turns)) {
					hit = 0;
					for (size_t j = 0; j < json_array_size(turns); j++)
						hit |= json_integer_value(json_array_get(turns, j)) == t->turn;
				}
				t->terminated |= hit;
			}
		}
	} else if (strcmp(act, "clear_cache") != 0) {
		json_decref(echo);
		error(a, id, "action", "unknown action '%.64s'", act);
		return;
	}
	emit(a, echo);
}

/* a KataGo query object: checked, warned, its turns queued */
static void add_query(gt_analyzer *a, json_t *o)
{
	const char *id = json_string_value(json_object_get(o, "id"));
	if (!id) {
		error(a, NULL, "id", "query has no string id");
		return;
	}
	if (json_object_get(o, "action")) {
		action(a, id, o);
		return;
	}
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		if (in_list(unsupported, k)) {
			if (asks(v))
				warning(a, id, k, "%s is not supported by gt: ignored", k);
		} else if (!in_list(known, k)) {
			warning(a, id, k, "unexpected field %s: ignored", k);
		}
	}
	double xs, ys, komi, visits, pvlen, fpu, every;
	if (!json_object_get(o, "boardXSize") || !json_object_get(o, "boardYSize")) {
		error(a, id, "boardXSize", "boardXSize and boardYSize are required");
		return;
	}
	if (num_field(a, id, o, "boardXSize", 2, GT_MAX_N, 1, 19, &xs) ||
	    num_field(a, id, o, "boardYSize", 2, GT_MAX_N, 1, 19, &ys))
		return;
	if (xs != ys) {
		error(a, id, "boardYSize", "non-square boards (%gx%g) are not supported", xs, ys);
		return;
	}
	query *q = gt_xcalloc(1, sizeof *q);
	q->refs = 1;
	q->id = gt_xstrdup(id);
	q->n = (int)xs;
	q->pv_len = a->p.pv_len;
	int bad = parse_rules(a, id, json_object_get(o, "rules"), &q->rules) ||
	          num_field(a, id, o, "komi", -q->n * q->n, q->n * q->n, 0, 7.5, &komi) ||
	          num_field(a, id, o, "maxVisits", 1, 1e9, 1, a->p.visits, &visits) ||
	          num_field(a, id, o, "analysisPVLen", 1, GT_MCTS_PV_MAX - 1, 1, a->p.pv_len - 1, &pvlen) ||
	          num_field(a, id, o, "rootFpuReductionMax", 0, 10, 0, -1, &fpu) ||
	          num_field(a, id, o, "reportDuringSearchEvery", 0.001, 1e6, 0, 0, &every) ||
	          bool_field(a, id, o, "includeOwnership", 0, &q->ownership) ||
	          bool_field(a, id, o, "includePolicy", 0, &q->policy) ||
	          bool_field(a, id, o, "includeMovesOwnership", 0, &q->moves_own) ||
	          bool_field(a, id, o, "includePVVisits", 0, &q->pv_visits) ||
	          parse_pairs(a, id, json_object_get(o, "moves"), "moves", q->n, &q->nmoves, &q->moves,
	                      &q->colors) ||
	          parse_pairs(a, id, json_object_get(o, "initialStones"), "initialStones", q->n,
	                      &q->nsetup, &q->setup_pt, &q->setup_color);
	int seen[2] = { 0, 0 };
	bad = bad || parse_avoid(a, id, json_object_get(o, "avoidMoves"), "avoidMoves", q->n, q, seen) ||
	      parse_avoid(a, id, json_object_get(o, "allowMoves"), "allowMoves", q->n, q, seen);
	if (!bad && !json_is_array(json_object_get(o, "moves"))) {
		error(a, id, "moves", "moves is required (an array)");
		bad = 1;
	}
	q->first = GT_BLACK;
	json_t *ip = json_object_get(o, "initialPlayer");
	if (!bad && ip && (!json_is_string(ip) || (q->first = gt_color_parse(json_string_value(ip))) < 0)) {
		error(a, id, "initialPlayer", "initialPlayer must be B or W");
		bad = 1;
	}
	for (int i = 0; !bad && i < q->nsetup; i++)
		if (q->setup_pt[i] == GT_PASS(q->n)) {
			error(a, id, "initialStones", "initialStones[%d] is a pass", i);
			bad = 1;
		}
	if (bad) {
		query_unref(q);
		return;
	}
	q->komi = komi;
	q->visits = a->p.max_visits > 0 && visits > a->p.max_visits ? a->p.max_visits : (int)visits;
	q->pv_len = (int)pvlen + 1;
	q->root_fpu = fpu;
	q->report_every = every;
	/* the whole game must be legal */
	gt_board *b = gt_xmalloc(sizeof *b);
	int at = 0, err = position(q, q->nmoves, b, &at);
	free(b);
	if (err) {
		char v[8];
		if (at < 0)
			error(a, id, "initialStones", "illegal initial stones: %s", gt_strerror(err));
		else
			error(a, id, "moves", "illegal move %d (%s %s): %s", at + 1,
			      q->colors[at] == GT_WHITE ? "W" : "B", gt_vertex_str(q->n, q->moves[at], v),
			      gt_strerror(err));
		query_unref(q);
		return;
	}
	json_t *turns = json_object_get(o, "analyzeTurns");
	if (!turns) {
		enqueue(a, q, q->nmoves);
	} else if (!json_is_array(turns)) {
		error(a, id, "analyzeTurns", "analyzeTurns is not an array");
	} else {
		uint8_t seen[GT_MAX_HIST + 1] = {0};
		size_t nt = json_array_size(turns);
		for (size_t i = 0; i < nt; i++) {
			json_t *t = json_array_get(turns, i);
			if (!json_is_integer(t) || json_integer_value(t) < 0 ||
			    json_integer_value(t) > q->nmoves) {
				error(a, id, "analyzeTurns", "analyzeTurns[%zu] is not a turn in 0..%d", i, q->nmoves);
				query_unref(q);
				return;
			}
		}
		for (size_t i = 0; i < nt; i++) {
			int t = (int)json_integer_value(json_array_get(turns, i));
			if (!seen[t]++)
				enqueue(a, q, t); /* each turn once */
		}
	}
	query_unref(q);
}

/* a gt record: every turn of its game */
static void add_record(gt_analyzer *a, const char *line, size_t len, long lineno)
{
	gt_record r;
	gt_error e;
	char idbuf[32];
	gt_record_init(&r);
	e.line = lineno;
	if (gt_record_parse(&r, line, len, &e) != 0) {
		snprintf(idbuf, sizeof idbuf, "line %ld", lineno);
		error(a, r.game_id ? r.game_id : idbuf, NULL, "not a game record: %s", e.text);
		gt_record_release(&r);
		return;
	}
	const gt_rules *rules = gt_rules_find(r.rules);
	if (!rules)
		gt_sgfrec_rules(r.rules, &rules);
	query *q = gt_xcalloc(1, sizeof *q);
	q->refs = 1;
	snprintf(idbuf, sizeof idbuf, "line %ld", lineno);
	q->id = gt_xstrdup(r.game_id ? r.game_id : idbuf);
	q->n = r.board_size;
	q->rules = rules;
	q->komi = r.komi;
	q->nsetup = r.nsetup[GT_BLACK] + r.nsetup[GT_WHITE];
	q->setup_pt = gt_xmalloc(((size_t)q->nsetup + 1) * sizeof *q->setup_pt);
	q->setup_color = gt_xmalloc((size_t)q->nsetup + 1);
	for (int c = GT_BLACK, k = 0; c <= GT_WHITE; c++)
		for (int i = 0; i < r.nsetup[c]; i++, k++) {
			q->setup_pt[k] = r.setup[c][i];
			q->setup_color[k] = (uint8_t)c;
		}
	q->first = r.first_to_move;
	q->nmoves = r.nmoves;
	q->moves = gt_xmalloc(((size_t)r.nmoves + 1) * sizeof *q->moves);
	q->colors = gt_xmalloc((size_t)r.nmoves + 1);
	memcpy(q->moves, r.moves, (size_t)r.nmoves * sizeof *q->moves);
	memcpy(q->colors, r.colors, (size_t)r.nmoves);
	q->visits = a->p.max_visits > 0 && a->p.visits > a->p.max_visits ? a->p.max_visits :
	            a->p.visits;
	q->pv_len = a->p.pv_len;
	q->ownership = a->p.ownership;
	q->policy = a->p.policy;
	q->root_fpu = -1;
	gt_record_release(&r);
	gt_board *b = gt_xmalloc(sizeof *b);
	int at = 0, err = position(q, q->nmoves, b, &at);
	free(b);
	if (err)
		error(a, q->id, "moves", "illegal move %d of the record: %s", at + 1, gt_strerror(err));
	for (int t = 0; !err && t <= q->nmoves; t++)
		enqueue(a, q, t);
	query_unref(q);
}

void gt_analyzer_add(gt_analyzer *a, const char *line, size_t len, long lineno)
{
	if (len == (size_t)-1) {
		error(a, NULL, NULL, "line %ld is too long", lineno);
		return;
	}
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	if (i == len)
		return; /* an empty line */
	json_error_t je;
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (!o || !json_is_object(o)) {
		error(a, NULL, NULL, "line %ld: %s", lineno, o ? "not a JSON object" : je.text);
		json_decref(o);
		return;
	}
	if (json_object_get(o, "board_size"))
		add_record(a, line, len, lineno);
	else
		add_query(a, o);
	json_decref(o);
}

/* ---- searches ---- */

/* the value v (root side to move's view) as reported */
static int flip(const gt_analyzer *a, int to_move)
{
	return a->p.report == GT_REPORT_WHITE ? to_move == GT_BLACK :
	       a->p.report == GT_REPORT_BLACK ? to_move == GT_WHITE : 0;
}

/* ownership own (Black's view) as reported */
static json_t *own_array(const gt_analyzer *a, const gt_board *r, const float *own)
{
	double os = a->p.report == GT_REPORT_WHITE || (a->p.report == GT_REPORT_SIDE &&
	            r->to_move == GT_WHITE) ? -1 : 1;
	json_t *ar = json_array();
	for (int p = 0; p < r->npts; p++)
		json_array_append_new(ar, json_real(os * own[p]));
	return ar;
}

/* the raw evaluation of s's root into s->raw (once): the evaluator's raw
 * outputs when it has more than the search's (a KataGo network: one more
 * evaluation), else the search's own evaluation of the root. 0, or -1
 * when there is none */
static int raw_root(gt_analyzer *a, slot *s)
{
	if (s->have_raw)
		return s->have_raw > 0 ? 0 : -1;
	double v, sc;
	s->have_raw = -1;
	if (a->ev->raw) {
		float *lg = gt_xmalloc((GT_MAX_PTS + 1) * sizeof *lg), *ow = gt_xmalloc(GT_MAX_PTS * sizeof *ow);
		if (gt_evaluator_raw(a->ev, gt_mcts_root(s->m), lg, ow, &s->raw) == 0)
			s->have_raw = 1;
		gt_free_all(lg, ow);
	} else if (gt_mcts_root_eval(s->m, &v, &sc)) {
		s->raw = (gt_eval_raw){ .win = (1 + v) / 2, .loss = (1 - v) / 2, .lead = sc,
		                        .score_mean = sc, .score_mean_sq = sc * sc, .var_time_left = -1,
		                        .st_wr_error = -1, .st_score_error = -1 };
		s->have_raw = 1;
	}
	return s->have_raw > 0 ? 0 : -1;
}

static json_t *answer(gt_analyzer *a, const slot *s, int during)
{
	const query *q = s->t.q;
	const gt_board *r = gt_mcts_root(s->m);
	int fl = flip(a, r->to_move), k = gt_mcts_analysis(s->m, a->info, q->pv_len);
	double sg = fl ? -1 : 1;
	char v[8];
	json_t *o = with_id(q->id), *infos = json_array();
	json_object_set_new(o, "isDuringSearch", json_boolean(during));
	json_object_set_new(o, "turnNumber", json_integer(s->t.turn));
	for (int i = 0; i < k && a->info[i].visits > 0; i++) {
		const gt_mcts_move_info *x = &a->info[i];
		json_t *m = json_object(), *pv = json_array();
		double wr = (1 + sg * x->value) / 2, lcb = (1 + sg * x->lcb) / 2;
		json_object_set_new(m, "move", json_string(gt_vertex_str(r->n, x->move, v)));
		json_object_set_new(m, "visits", json_integer(x->visits));
		json_object_set_new(m, "edgeVisits", json_integer(x->visits));
		json_object_set_new(m, "winrate", json_real(wr));
		json_object_set_new(m, "scoreLead", json_real(sg * x->score));
		json_object_set_new(m, "scoreMean", json_real(sg * x->score));
		json_object_set_new(m, "scoreSelfplay", json_real(sg * x->score));
		json_object_set_new(m, "scoreStdev", json_real(x->score_stdev));
		json_object_set_new(m, "prior", json_real(x->prior));
		json_object_set_new(m, "lcb", json_real(lcb));
		/* gt's utility is the value alone, and every visit weighs 1 */
		json_object_set_new(m, "utility", json_real(sg * x->value));
		json_object_set_new(m, "utilityLcb", json_real(sg * x->lcb));
		json_object_set_new(m, "weight", json_real(x->visits));
		json_object_set_new(m, "order", json_integer(x->order));
		for (int j = 0; j < x->npv; j++)
			json_array_append_new(pv, json_string(gt_vertex_str(r->n, x->pv[j], v)));
		json_object_set_new(m, "pv", pv);
		if (q->pv_visits) {
			json_t *pvv = json_array();
			for (int j = 0; j < x->npv; j++)
				json_array_append_new(pvv, json_integer(x->pv_visits[j]));
			json_object_set_new(m, "pvEdgeVisits", json_deep_copy(pvv));
			json_object_set_new(m, "pvVisits", pvv);
		}
		if (q->moves_own) {
			float own[GT_MAX_PTS];
			gt_mcts_move_ownership(s->m, x->move, own);
			json_object_set_new(m, "ownership", own_array(a, r, own));
		}
		json_array_append_new(infos, m);
	}
	json_object_set_new(o, "moveInfos", infos);
	double sc, val = gt_mcts_root_value(s->m, &sc);
	json_t *ri = json_object();
	json_object_set_new(ri, "currentPlayer", json_string(r->to_move == GT_WHITE ? "W" : "B"));
	json_object_set_new(ri, "visits", json_integer(gt_mcts_visits(s->m)));
	json_object_set_new(ri, "winrate", json_real((1 + sg * val) / 2));
	json_object_set_new(ri, "scoreLead", json_real(sg * sc));
	json_object_set_new(ri, "scoreMean", json_real(sg * sc));
	json_object_set_new(ri, "scoreSelfplay", json_real(sg * sc));
	json_object_set_new(ri, "scoreStdev", json_real(gt_mcts_root_score_stdev(s->m)));
	json_object_set_new(ri, "utility", json_real(sg * val));
	json_object_set_new(ri, "weight", json_real(gt_mcts_visits(s->m)));
	if (raw_root(a, (slot *)s) == 0) {
		const gt_eval_raw *w = &s->raw;
		double sd = w->score_mean_sq - w->score_mean * w->score_mean;
		json_object_set_new(ri, "rawWinrate", json_real((1 + sg * (w->win - w->loss)) / 2));
		json_object_set_new(ri, "rawLead", json_real(sg * w->lead));
		json_object_set_new(ri, "rawScoreSelfplay", json_real(sg * w->score_mean));
		json_object_set_new(ri, "rawScoreSelfplayStdev", json_real(sd > 0 ? sqrt(sd) : 0));
		json_object_set_new(ri, "rawNoResultProb", json_real(w->noresult));
		if (w->st_wr_error >= 0) {
			json_object_set_new(ri, "rawStWrError", json_real(w->st_wr_error));
			json_object_set_new(ri, "rawStScoreError", json_real(w->st_score_error));
		}
		if (w->var_time_left >= 0)
			json_object_set_new(ri, "rawVarTimeLeft", json_real(w->var_time_left));
	}
	json_object_set_new(o, "rootInfo", ri);
	if (q->ownership) {
		float own[GT_MAX_PTS];
		gt_mcts_ownership(s->m, own); /* Black's view */
		json_object_set_new(o, "ownership", own_array(a, r, own));
	}
	if (q->policy) {
		float pr[GT_MAX_PTS + 1];
		json_t *ar = json_array();
		int have = gt_mcts_prior(s->m, 0, pr) == 0;
		for (int p = 0; p <= r->npts; p++) {
			int legal = p == r->npts || gt_board_legal(r, r->to_move, p) == 0;
			json_array_append_new(ar, have && legal ? json_real(pr[p]) : json_integer(-1));
		}
		json_object_set_new(o, "policy", ar);
	}
	return o;
}

static void no_results(gt_analyzer *a, const task *t)
{
	json_t *o = with_id(t->q->id);
	json_object_set_new(o, "isDuringSearch", json_false());
	json_object_set_new(o, "noResults", json_true());
	json_object_set_new(o, "turnNumber", json_integer(t->turn));
	final(a, t->seq, o);
}

static void finish(gt_analyzer *a, int i)
{
	slot *s = &a->slots[i];
	if (gt_mcts_visits(s->m) > 0)
		final(a, s->t.seq, answer(a, s, 0));
	else
		no_results(a, &s->t);
	query_unref(s->t.q);
	gt_mcts_free(s->m);
	/* keep the others in the order they started, so that the turns of a
	 * query searched together are answered in order */
	memmove(s, s + 1, (size_t)(a->nslots - i - 1) * sizeof *s);
	memset(&a->slots[--a->nslots], 0, sizeof *s);
}

/* start the next queued turn in a free slot */
static int start(gt_analyzer *a)
{
	task t = a->queue[a->head++];
	if (t.terminated) {
		no_results(a, &t);
		query_unref(t.q);
		return 0;
	}
	gt_board *b = gt_xmalloc(sizeof *b);
	int err = position(t.q, t.turn, b, NULL);
	gt_mcts_params mp = a->p.search;
	if (t.q->root_fpu >= 0)
		mp.root_fpu_reduction = t.q->root_fpu;
	slot *s = &a->slots[a->nslots];
	memset(s, 0, sizeof *s);
	s->t = t;
	s->m = gt_mcts_new(&mp);
	gt_mcts_track_ownership(s->m, t.q->ownership || t.q->moves_own);
	gt_mcts_track_moves_ownership(s->m, t.q->moves_own);
	if (!err)
		err = gt_mcts_set_root(s->m, b);
	if (!err)
		gt_mcts_set_avoid(s->m, t.q->avoid);
	if (!err)
		err = gt_mcts_begin(s->m, t.q->visits, 0, NULL);
	free(b);
	if (err) {
		turn_error(a, &t, "turn %d: %s", t.turn, gt_strerror(err));
		query_unref(t.q);
		gt_mcts_free(s->m);
		memset(s, 0, sizeof *s);
		return 0;
	}
	s->next_report = t.q->report_every > 0 ? gt_now() + t.q->report_every : INFINITY;
	a->nslots++;
	return 1;
}

int gt_analyzer_step(gt_analyzer *a, gt_error *e)
{
	while (a->nslots < a->p.parallel && a->head < a->tail)
		start(a);
	if (a->nslots == 0)
		return a->head < a->tail;
	int total = 0, want_own = 0, err = 0, n = -1;
	/* one board size a call: the first in flight; the others wait */
	for (int i = 0; i < a->nslots; i++) {
		slot *s = &a->slots[i];
		s->k = 0;
		if (s->t.terminated || gt_mcts_done(s->m))
			continue;
		if (n < 0)
			n = gt_mcts_root(s->m)->n;
		if (gt_mcts_root(s->m)->n != n)
			continue;
		int k = gt_mcts_collect(s->m, 0, a->boards + total);
		if (k < 0) {
			err = k;
			break;
		}
		s->off = total;
		s->k = k;
		total += k;
		want_own |= gt_mcts_tracks_ownership(s->m) && k > 0;
	}
	if (!err && total > 0) {
		memset(a->score, 0, (size_t)total * sizeof *a->score);
		err = a->ev->eval(a->ev->ctx, n, total, a->boards, a->logits, a->value, a->score,
		                  want_own ? a->own : NULL);
	}
	size_t stride = (size_t)n * n + 1;
	for (int i = 0; !err && i < a->nslots; i++) {
		slot *s = &a->slots[i];
		if (s->k)
			err = gt_mcts_apply_own(s->m, a->logits + s->off * stride, a->value + s->off,
			                        a->score + s->off, want_own ? a->own + (size_t)s->off * n * n : NULL);
	}
	if (err) {
		gt_error_set(e, err, -1, -1, "evaluation failed: %s", gt_strerror(err));
		for (int i = 0; i < a->nslots; i++) {
			turn_error(a, &a->slots[i].t, "turn %d: %s", a->slots[i].t.turn, e->text);
			query_unref(a->slots[i].t.q);
			gt_mcts_free(a->slots[i].m);
		}
		a->nslots = 0;
		return err;
	}
	double t = INFINITY;
	for (int i = 0; i < a->nslots; i++) {
		slot *s = &a->slots[i];
		if (s->t.terminated || gt_mcts_done(s->m)) {
			finish(a, i--);
			continue;
		}
		if (s->next_report < INFINITY) {
			if (t == INFINITY)
				t = gt_now();
			if (t >= s->next_report && gt_mcts_visits(s->m) > 0) {
				emit(a, answer(a, s, 1));
				s->next_report = t + s->t.q->report_every;
			}
		}
	}
	return a->nslots > 0 || a->head < a->tail;
}
