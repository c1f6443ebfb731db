/*
 * record.c: lib/record (reader, parser, writer, symmetries) and
 * lib/validate against hand-worked records and generated games.
 *
 * With arguments it is the corpus generator of the command tests:
 *   record gen COUNT SEED SIZE   COUNT generated records on stdout
 */
#include "board.h"
#include "gt.h"
#include "record.h"
#include "sym.h"
#include "tap.h"
#include "validate.h"
#include "record_gen.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* A 5x5 game worked out by hand. Black walls column C, White column D;
 * White invades the corner at A5 (liberties A4, B5) and Black captures it
 * with A4, B5. Final position: Black stones C1-C5, A4, B5 and territory
 * A5, A1-A3, B1-B4: 15 points; White D1-D5, E1-E5: 10 points; komi 2.5:
 * B+2.5. Position 0 is before move 12 (White A5; column C black, D white),
 * position 1 before move 15 (Black B5, after W A5, B A4, W pass). Point
 * index: A5 0, B5 1, C5 2, A4 5. */
static const char *HAND =
	"{\"version\":1,\"rules\":\"chinese\",\"komi\":2.5,\"board_size\":5,\"game_id\":\"hand1\","
	"\"moves\":[\"C5\",\"D5\",\"C4\",\"D4\",\"C3\",\"D3\",\"C2\",\"D2\",\"C1\",\"D1\",\"pass\","
	"\"A5\",\"A4\",\"pass\",\"B5\",\"pass\",\"pass\"],"
	"\"result\":\"B+2.5\",\"winner\":\"B\",\"score\":2.5,"
	"\"ownership\":[1,1,1,-1,-1,1,1,1,-1,-1,1,1,1,-1,-1,1,1,1,-1,-1,1,1,1,-1,-1],"
	"\"positions\":["
	"{\"move_number\":11,\"to_move\":\"W\",\"board\":\"..XO...XO...XO...XO...XO.\","
	"\"policy\":[1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],\"value\":-1,\"score\":-2.5},"
	"{\"move_number\":14,\"to_move\":\"B\",\"board\":\"O.XO.X.XO...XO...XO...XO.\","
	"\"policy\":[0,0.75,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.25],\"value\":1,\"score\":2.5}]}";

static const char *validate_str(const char *line, const gt_validate_opts *o, char *detail)
{
	gt_record r;
	gt_error e = {0};
	const char *reason = NULL;
	gt_record_init(&r);
	if (!gt_record_parse_ex(&r, line, strlen(line), &e, &reason)) {
		if (!gt_validate_record(&r, o, &reason, detail, 256))
			reason = "ok";
	} else if (detail) {
		snprintf(detail, 256, "%s", e.text);
	}
	gt_record_release(&r);
	return reason;
}

/* replace the first occurrence of from in s by to; new string */
static char *subst(const char *s, const char *from, const char *to)
{
	const char *p = strstr(s, from);
	if (!p)
		return gt_xstrdup(s);
	size_t a = (size_t)(p - s), lf = strlen(from), lt = strlen(to), ls = strlen(s);
	char *t = gt_xmalloc(ls - lf + lt + 1);
	memcpy(t, s, a);
	memcpy(t + a, to, lt);
	memcpy(t + a + lt, p + lf, ls - a - lf + 1);
	return t;
}

static void test_hand(void)
{
	gt_record r;
	gt_error e = {0};
	gt_validate_opts o;
	char detail[256];
	gt_validate_opts_init(&o);
	gt_record_init(&r);
	is_int(gt_record_parse(&r, HAND, strlen(HAND), &e), 0, "hand record parses");
	is_int(r.nmoves, 17, "17 moves");
	is_int(r.moves[11], 0, "move 12 is A5 = point 0");
	is_int(r.moves[14], 1, "move 15 is B5 = point 1");
	is_int(r.moves[16], GT_PASS(5), "last move is a pass");
	is_int(r.colors[11], GT_WHITE, "move 12 by White");
	is_int(r.winner, GT_WIN_BLACK, "winner B");
	is_dbl(r.score, 2.5, 0, "score 2.5");
	is_int(r.npos, 2, "two positions");
	is_dbl(r.pos[1].policy[25], 0.25, 0, "pass entry last");
	const char *why = "";
	is_int(gt_validate_record(&r, &o, &why, detail, sizeof detail), 0, "hand record validates");
	if (why && strcmp(why, ""))
		diag("%s: %s", why, detail);
	gt_record_release(&r);

	/* each hand-made error is caught with its reason */
	static const struct { const char *from, *to, *reason; } cases[] = {
		{"\"score\":2.5,\"own", "\"score\":3.5,\"own", "result"},
		{"\"B+2.5\"", "\"B+3.5\"", "result"},
		{"\"winner\":\"B\"", "\"winner\":\"W\"", "result"},
		{"\"komi\":2.5", "\"komi\":3.5", "result"},        /* then score should be 1.5 */
		{"\"komi\":2.5", "\"komi\":2.25", "komi"},
		{"\"komi\":2.5", "\"komi\":1e308", "komi"},
		{"\"komi\":2.5", "\"komi\":1e400", "nonfinite"},
		{"\"chinese\"", "\"japanese\"", "rules"},
		{"\"version\":1", "\"version\":2", "version"},
		{"\"board_size\":5", "\"board_size\":20", "board-size"},
		{"\"A4\",\"pass\"", "\"A5\",\"pass\"", "illegal-move"},   /* onto White's A5 */
		{"\"C2\"", "\"C9\"", "move"},
		{"O.XO.X.XO", "O.XO...XO", "board"},
		{"\"to_move\":\"B\"", "\"to_move\":\"W\"", "to-move"},
		{"0.75,0,0", "0.7,0,0", "policy"},                      /* sums to 0.95 */
		{"[0,0.75,0,0,", "[0,0,0.75,0,", "policy"},             /* mass on C5 (black stone) */
		{"\"value\":1,", "\"value\":-1,", "value"},
		{"\"value\":1,", "\"value\":1.5,", "value"},
		{"\"score\":2.5}", "\"score\":-2.5}", "score"},
		{"[1,1,1,-1,-1,1", "[1,1,-1,-1,-1,1", "ownership"},
		{"\"move_number\":14", "\"move_number\":11", "positions"},
		{"\"pass\",\"pass\"]", "\"pass\",\"C1\"]", "illegal-move"},
		{"\"hand1\"", "7", "field"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *s = subst(HAND, cases[i].from, cases[i].to);
		ok(strcmp(s, HAND) != 0, "case %zu applies", i);
		const char *got = validate_str(s, &o, detail);
		if (!got)
			got = "(none)";
		if (!ok(!strcmp(got, cases[i].reason), "hand record with %s: %s", cases[i].to, cases[i].reason))
			diag("  got %s: %s", got, detail);
		free(s);
	}
	/* a game that does not end by two passes needs the flag */
	char *s = subst(HAND, ",\"pass\",\"pass\"]", ",\"pass\"]");
	is_str(validate_str(s, &o, detail), "unscored", "one final pass: unscored");
	o.allow_unscored = 1;
	is_str(validate_str(s, &o, detail), "ok", "one final pass with --allow-unscored-results passes");
	free(s);
	s = subst(HAND, "\"winner\":\"B\"", "\"winner\":\"B\",\"score_checkable\":false");
	is_str(validate_str(s, &o, detail), "ok", "score_checkable false with the flag passes");
	o.allow_unscored = 0;
	is_str(validate_str(s, &o, detail), "unscored", "score_checkable false without the flag");
	free(s);
	o.min_moves = 18;
	is_str(validate_str(HAND, &o, detail), "length", "17 moves < --min-moves 18");
}

/* Setup stones and moves that do not alternate, as gt-sgf writes them: a
 * 5x5 board with Black stones on B2 and D4, White first (C3), then Black
 * twice (C2, E5), then two passes. All empty points form one region that
 * touches both colours: Black 4 stones, White 1, komi 0.5: B+2.5. */
static void test_setup_colors(void)
{
	const char *line =
		"{\"version\":1,\"rules\":\"tromp-taylor\",\"sgf_rules\":\"Japanese\",\"komi\":0.5,"
		"\"board_size\":5,\"setup\":{\"B\":[\"B2\",\"D4\"]},\"moves\":[\"C3\",\"C2\",\"E5\","
		"\"pass\",\"pass\"],\"colors\":\"WBBWB\",\"result\":\"B+2.5\",\"winner\":\"B\",\"score\":2.5}";
	gt_record r, q;
	gt_error e = {0};
	gt_validate_opts o;
	char detail[256];
	const char *why = NULL;
	gt_validate_opts_init(&o);
	o.min_moves = 0;
	gt_record_init(&r);
	gt_record_init(&q);
	is_int(gt_record_parse(&r, line, strlen(line), &e), 0, "setup record parses");
	is_int(r.nsetup[GT_BLACK], 2, "two black setup stones");
	is_int(r.setup[GT_BLACK][1], 8, "D4 is point 8 (x 3, y 1)");
	is_int(r.first_to_move, GT_WHITE, "White moves first");
	ok(r.colors[0] == GT_WHITE && r.colors[1] == GT_BLACK && r.colors[2] == GT_BLACK, "colors W B B");
	is_str(r.sgf_rules, "Japanese", "sgf_rules kept");
	ok(!gt_validate_record(&r, &o, &why, detail, sizeof detail), "setup record validates (%s)",
	   why ? detail : "ok");
	char *s = gt_record_format(&r, NULL, &e);
	ok(s && strstr(s, "\"setup\":{\"B\":[\"B2\",\"D4\"],\"W\":[]}") && strstr(s, "\"colors\":\"WBBWB\"") &&
	   strstr(s, "\"sgf_rules\":\"Japanese\""), "written with setup, colors, sgf_rules");
	ok(s && !gt_record_parse(&q, s, strlen(s), &e) && q.nsetup[GT_BLACK] == 2 && q.colors[2] == GT_BLACK,
	   "and read back");
	free(s);
	/* alternating from White: first_to_move instead of colors */
	free(r.colors);
	r.colors = NULL;
	r.nmoves = 2;
	s = gt_record_format(&r, NULL, &e);
	ok(s && strstr(s, "\"first_to_move\":\"W\"") && !strstr(s, "colors"), "alternating from W: first_to_move");
	free(s);
	/* a setup stone with no liberty is refused */
	char *bad = subst(line, "\"setup\":{\"B\":[\"B2\",\"D4\"]}", "\"setup\":{\"B\":[\"A1\"],\"W\":[\"A2\",\"B1\"]}");
	is_str(validate_str(bad, &o, detail), "setup", "a setup stone without liberties");
	free(bad);
	gt_record_release(&r);
	gt_record_release(&q);
}

static void test_adversarial_parse(void)
{
	char detail[256];
	gt_validate_opts o;
	gt_validate_opts_init(&o);
	size_t depth = 100000;
	char *deep = gt_xmalloc(2 * depth + 1);
	memset(deep, '[', depth);
	memset(deep + depth, ']', depth);
	deep[2 * depth] = 0;
	is_str(validate_str(deep, &o, detail), "nesting", "nesting 10^5 deep");
	free(deep);
	is_str(validate_str("{\"komi\":NaN}", &o, detail), "nonfinite", "NaN literal");
	is_str(validate_str("{\"komi\":-Infinity}", &o, detail), "nonfinite", "-Infinity literal");
	is_str(validate_str("{\"version\":123456789012345678901234567890}", &o, detail), "nonfinite",
	       "integer overflow");
	is_str(validate_str("{\"game_id\":\"\xff\xfe\"}", &o, detail), "utf8", "invalid UTF-8");
	is_str(validate_str("[1,2]", &o, detail), "json", "an array is not a record");
	is_str(validate_str("{\"version\":1,", &o, detail), "json", "truncated JSON");
	/* a policy of 10^6 entries */
	size_t n = 1000000;
	char *big = gt_xmalloc(2 * n + strlen(HAND) + 1);
	char *p = subst(HAND, "\"policy\":[1,", "\"policy\":[@");
	char *at = strchr(p, '@');
	size_t pre = (size_t)(at - p);
	memcpy(big, p, pre);
	for (size_t i = 0; i < n; i++)
		memcpy(big + pre + 2 * i, "0,", 2);
	strcpy(big + pre + 2 * n, at + 1);
	is_str(validate_str(big, &o, detail), "policy", "a policy of 10^6 entries");
	free(p);
	free(big);
	/* the identification survives a later failure */
	gt_record r;
	gt_error e = {0};
	const char *why = NULL;
	gt_record_init(&r);
	char *s = subst(HAND, "\"version\":1", "\"worker\":\"bob\",\"version\":3");
	ok(gt_record_parse_ex(&r, s, strlen(s), &e, &why) == GT_EFORMAT && r.worker &&
	   !strcmp(r.worker, "bob") && r.game_id && !strcmp(r.game_id, "hand1"),
	   "worker and game_id kept after a version failure");
	free(s);
	gt_record_release(&r);
}

/* the 3-3 point C7 and D7 on 9x9 under each symmetry, worked out by hand
 * from the table in sym.h: C7 is (x 2, y 2), D7 is (3, 2), m = 8 */
static void test_sym_hand(void)
{
	static const char *c7[8] = {"C7", "G7", "G3", "C3", "C7", "G7", "G3", "C3"};
	static const char *d7[8] = {"D7", "G6", "F3", "C4", "C6", "F7", "G4", "D3"};
	for (int k = 0; k < 8; k++) {
		gt_record r;
		gt_error e = {0};
		char v[8];
		const char *line = "{\"version\":1,\"rules\":\"chinese\",\"komi\":7.5,\"board_size\":9,"
		                   "\"moves\":[\"C7\",\"D7\",\"pass\"],\"result\":\"?\",\"winner\":\"?\"}";
		gt_record_init(&r);
		gt_record_parse(&r, line, strlen(line), &e);
		gt_record_sym(&r, k);
		is_str(gt_vertex_str(9, r.moves[0], v), c7[k], "symmetry %d maps C7 to %s", k, c7[k]);
		is_str(gt_vertex_str(9, r.moves[1], v), d7[k], "symmetry %d maps D7 to %s", k, d7[k]);
		is_int(r.moves[2], GT_PASS(9), "symmetry %d keeps pass", k);
		is_int(r.symmetry, k, "symmetry field %d", k);
		gt_record_release(&r);
	}
}

static void test_generated(void)
{
	static const int sizes[] = {2, 3, 5, 7, 9, 13, 19};
	gt_validate_opts o;
	gt_validate_opts_init(&o);
	o.min_moves = 0;
	int pass = 0, total = 0, roundtrip = 0, symok = 0, inv = 0, sums = 0;
	double maxerr = 0;
	for (int si = 0; si < 7; si++)
		for (int g = 0; g < (sizes[si] >= 13 ? 2 : 6); g++) {
			gt_record r, q;
			gt_error e = {0};
			char detail[256];
			const char *why = NULL;
			gt_record_init(&r);
			gt_record_init(&q);
			gen_record(&r, sizes[si], 7, g);
			total++;
			if (!gt_validate_record(&r, &o, &why, detail, sizeof detail))
				pass++;
			else
				diag("size %d game %d: %s: %s", sizes[si], g, why, detail);
			size_t len;
			char *s = gt_record_format(&r, &len, &e);
			if (s && !gt_record_parse(&q, s, len, &e)) {
				char *s2 = gt_record_format(&q, NULL, &e);
				int same = s2 && !strcmp(s, s2) && q.npos == r.npos && q.nmoves == r.nmoves;
				for (int i = 0; same && i < r.npos; i++)
					for (int k = 0; k <= r.board_size * r.board_size; k++) {
						double d = fabs(q.pos[i].policy[k] - r.pos[i].policy[k]);
						if (d > maxerr)
							maxerr = d;
					}
				roundtrip += same;
				free(s2);
			} else {
				diag("round trip: %s", e.text);
			}
			/* every symmetry: validates, inverse restores, sums and pass kept */
			int n = r.board_size, npts = n * n;
			for (int k = 0; k < 8; k++) {
				gt_record_sym(&q, k);
				if (!gt_validate_record(&q, &o, &why, detail, sizeof detail))
					symok++;
				else
					diag("size %d game %d sym %d: %s: %s", n, g, k, why, detail);
				int good = 1;
				for (int i = 0; i < q.npos; i++) {
					double a = 0, b = 0;
					for (int t = 0; t <= npts; t++) {
						a += q.pos[i].policy[t];
						b += r.pos[i].policy[t];
					}
					good &= fabs(a - b) < 1e-5 && fabs(q.pos[i].policy[npts] - r.pos[i].policy[npts]) < 1e-6;
				}
				sums += good;
				gt_record_sym(&q, gt_sym_inverse(k));
				char *s3 = gt_record_format(&q, NULL, &e);
				inv += s3 && !strcmp(s3, s);
				free(s3);
			}
			free(s);
			gt_record_release(&r);
			gt_record_release(&q);
		}
	is_int(pass, total, "all %d generated games validate", total);
	is_int(roundtrip, total, "format -> parse -> format is stable");
	ok(maxerr <= 1e-6, "policy round-trips within 1e-6 (max error %g)", maxerr);
	is_int(symok, 8 * total, "every symmetry of every game validates");
	is_int(sums, 8 * total, "policy sums and pass entries kept under every symmetry");
	is_int(inv, 8 * total, "inverse(K) after K is the identity");
}

static void test_compose(void)
{
	int good = 0;
	for (int a = 0; a < 8; a++)
		for (int b = 0; b < 8; b++) {
			int c = gt_record_sym_compose(a, b), same = 1;
			for (int p = 0; p < 49; p++)
				same &= gt_sym_point(7, c, p) == gt_sym_point(7, b, gt_sym_point(7, a, p));
			good += same;
		}
	is_int(good, 64, "compose(a, b) is b after a on a 7x7 board");
}

/* read all lines of a file through the reader into a "|"-joined string */
static char *read_all(const char *path, size_t max_line, int *codes, int ncodes)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return gt_xstrdup("(cannot open)");
	gt_record_reader *rd = gt_record_reader_new(f, path, max_line);
	char *out = gt_xstrdup("");
	const char *line;
	size_t len;
	gt_error e;
	int rc, i = 0;
	while ((rc = gt_record_read_line(rd, &line, &len, &e)) != 0) {
		if (i < ncodes)
			codes[i++] = rc > 0 ? (int)e.line : rc;
		size_t ol = strlen(out);
		out = gt_xrealloc(out, ol + (rc > 0 ? len : 3) + 2);
		if (rc > 0) {
			memcpy(out + ol, line, len);
			strcpy(out + ol + len, "|");
		} else {
			strcpy(out + ol, "ERR|");
		}
		if (rc < 0 && rc != GT_ETOOLONG)
			break;
	}
	gt_record_reader_free(rd);
	fclose(f);
	return out;
}

/* JSON corner cases in an unknown field and in komi: the reason each gets */
static void test_json_cases(void)
{
	static const struct { const char *val, *field, *komi; } cases[] = {
		{"01", "json", "json"}, {"1.", "json", "json"}, {".5", "json", "json"},
		{"+1", "json", "json"}, {"1e", "json", "json"}, {"0x10", "json", "json"},
		{"1e400", "nonfinite", "nonfinite"}, {"-1e400", "nonfinite", "nonfinite"},
		{"12345678901234567890", "nonfinite", "nonfinite"},
		{"NaN", "nonfinite", "nonfinite"}, {"Infinity", "nonfinite", "nonfinite"},
		{"\"\\u0000\"", "json", "json"}, {"\"\\ud800\"", "json", "json"},
		{"\"\xc0\x80\"", "utf8", "utf8"}, {"\"\xed\xa0\x80\"", "utf8", "utf8"}, {"\"\xff\"", "utf8", "utf8"},
		{"\"a\\x\"", "json", "json"}, {"\"\x01\"", "json", "json"}, {"[1,]", "json", "json"},
		{"{\"a\":1,\"a\":2}", "json", "json"}, {"tru", "json", "json"},
		{"2.5", "ok", "ok"}, {"25e-1", "ok", "ok"}, {"-0", "ok", "result"}, {"null", "ok", "field"},
		{"\"\\u00e9\\ud83d\\ude00\"", "ok", "field"}, {"[[[[[]]]]]", "ok", "field"},
	};
	gt_validate_opts o;
	char detail[256];
	gt_validate_opts_init(&o);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *s = subst(HAND, "\"version\":1,", "\"version\":1,\"x\":@,");
		char *t = subst(s, "@", cases[i].val);
		const char *got = validate_str(t, &o, detail);
		if (!ok(got && !strcmp(got, cases[i].field), "unknown field %s: %s", cases[i].val, cases[i].field))
			diag("  got %s: %s", got ? got : "(none)", detail);
		free(t);
		free(s);
		s = subst(HAND, "\"komi\":2.5", "\"komi\":@");
		t = subst(s, "@", cases[i].val);
		got = validate_str(t, &o, detail);
		if (!ok(got && !strcmp(got, cases[i].komi), "komi %s: %s", cases[i].val, cases[i].komi))
			diag("  got %s: %s", got ? got : "(none)", detail);
		free(t);
		free(s);
	}
	/* the byte offset of a syntax error */
	gt_record r;
	gt_error e = {0};
	const char *why = NULL;
	gt_record_init(&r);
	ok(gt_record_parse_ex(&r, "{\"version\":1,]", 14, &e, &why) == GT_EFORMAT && e.offset == 14 &&
	   strstr(e.text, "at byte 14"), "syntax error at byte 14 (%s)", e.text);
	gt_record_release(&r);
}

/* The writer: integral floats as integers, others to 7 digits, integers
 * and reals both read where a float is expected, NaN and Inf refused with
 * nothing written. */
static void test_writer(void)
{
	gt_record r, q;
	gt_error e = {0};
	gt_record_init(&r);
	gt_record_init(&q);
	gt_record_parse(&r, HAND, strlen(HAND), &e);
	r.pos[1].value = 1.0f;
	r.pos[0].value = -1.0f;
	r.pos[1].score = -0.0f;
	r.pos[0].policy[0] = 0.1234567f;
	r.pos[0].policy[1] = 1e-5f;
	r.pos[0].weight = 0.5f;
	size_t len;
	char *s = gt_record_format(&r, &len, &e);
	ok(s && len == strlen(s) && s[len - 1] == '\n', "formatted: one line of *len bytes");
	ok(s && strstr(s, "\"value\":1,") && strstr(s, "\"value\":-1,") && strstr(s, "\"score\":0,") &&
	   strstr(s, "\"policy\":[0.1234567,1e-5,0,"), "1.0 -1.0 -0.0 as 1 -1 0, reals to 7 digits");
	ok(s && strstr(s, "\"weight\":0.5}") && strstr(s, "\"komi\":2.5,") && strstr(s, "\"score\":2.5,\"own"),
	   "weight, komi and score");
	ok(s && !gt_record_parse(&q, s, len, &e) && q.pos[0].value == -1.0f && q.pos[1].score == 0 &&
	   fabs(q.pos[0].policy[0] - 0.1234567) < 1e-7 && q.pos[0].weight == 0.5f, "and read back");
	free(s);
	char *t = subst(HAND, "\"value\":1,", "\"value\":1.0,");
	char *u = subst(t, "\"komi\":2.5", "\"komi\":2.5e0");
	char *v = subst(u, "0.75,0,0", "0.75,0.0,0e0");
	ok(!gt_record_parse(&q, v, strlen(v), &e) && q.pos[1].value == 1.0f && q.komi == 2.5 &&
	   q.pos[1].policy[2] == 0 && q.pos[1].policy[1] == 0.75f, "1.0, 2.5e0, 0.0, 0e0 read as floats");
	free(t);
	free(u);
	free(v);

	static const char *bad[] = {"policy", "weight", "ownership", "komi", "score"};
	for (int k = 0; k < 5; k++)
		for (int inf = 0; inf < 2; inf++) {
			/* NaN game scores are left out: +Inf there */
			float x = inf ? -INFINITY : k == 4 ? INFINITY : NAN;
			gt_record_release(&q);
			gt_record_parse(&q, HAND, strlen(HAND), &e);
			switch (k) {
			case 0: q.pos[1].policy[3] = x; break;
			case 1: q.pos[0].weight = x; break;
			case 2: q.ownership[24] = x; break;
			case 3: q.komi = x; break;
			case 4: q.score = x; break;
			}
			FILE *f = tmpfile();
			int rc = gt_record_write(&q, f);
			long at = ftell(f);
			fclose(f);
			e.text[0] = 0;
			char *s2 = gt_record_format(&q, NULL, &e);
			ok(rc == GT_EINVAL && at == 0 && !s2 && strstr(e.text, bad[k]) && strstr(e.text, "not finite"),
			   "%s %g: GT_EINVAL, nothing written (%s)", bad[k], x, e.text);
			free(s2);
		}
	/* a move off the board, a string that is not UTF-8 */
	gt_record_release(&q);
	gt_record_parse(&q, HAND, strlen(HAND), &e);
	q.moves[3] = 500;
	s = gt_record_format(&q, NULL, &e);
	ok(!s && strstr(e.text, "off the board"), "a move off the board is refused (%s)", e.text);
	q.moves[3] = 0;
	free(q.worker);
	q.worker = gt_xstrdup("w\xff");
	s = gt_record_format(&q, NULL, &e);
	ok(!s && strstr(e.text, "worker"), "a worker name that is not UTF-8 is refused (%s)", e.text);
	free(q.worker);
	q.worker = gt_xstrdup("w\"\\\n\x01\xc3\xa9");
	s = gt_record_format(&q, &len, &e);
	ok(s && !gt_record_parse(&r, s, len, &e) && !strcmp(r.worker, q.worker), "escapes round-trip");
	free(s);
	gt_record_release(&r);
	gt_record_release(&q);
}

static void test_reader(void)
{
	char path[] = "/tmp/gt-record-test.XXXXXX";
	int fd = mkstemp(path);
	int codes[8];
	char *s;
	FILE *f = fdopen(fd, "wb");
	fputs("one\ntwo\r\n\nthree-is-too-long\nfour\nfive", f);
	fclose(f);
	memset(codes, 0, sizeof codes);
	s = read_all(path, 10, codes, 8);
	is_str(s, "one|two\r||ERR|four|five|", "plain lines, the over-long one skipped, last without newline");
	is_int(codes[3], GT_ETOOLONG, "over-long line reported");
	is_int(codes[4], 5, "line numbers go on after it");
	is_int(codes[5], 6, "last line number 6");
	free(s);

	/* two gzip members, a 300 kB line in the middle */
	gzFile z = gzopen(path, "wb");
	gzputs(z, "alpha\n");
	gzclose(z);
	z = gzopen(path, "ab");
	char *long_line = gt_xmalloc(300001);
	memset(long_line, 'x', 300000);
	long_line[300000] = 0;
	gzputs(z, long_line);
	gzputs(z, "\nbeta\n");
	gzclose(z);
	s = read_all(path, 1000, codes, 8);
	is_str(s, "alpha|ERR|beta|", "gzip, two members, over-long line skipped");
	free(s);
	s = read_all(path, 400000, codes, 8);
	ok(strlen(s) == 300000 + 12, "gzip, long line kept when under the limit");
	free(s);
	free(long_line);

	/* truncated gzip: the complete lines, then an error */
	z = gzopen(path, "wb");
	for (int i = 0; i < 2000; i++)
		gzprintf(z, "line %d with some text to compress\n", i);
	gzclose(z);
	if (truncate(path, 3000) == 0) {
		int c2[4000];
		s = read_all(path, 1000, c2, 4000);
		size_t nl = 0;
		for (char *p = s; *p; p++)
			nl += *p == '|';
		char *err = strstr(s, "ERR|");
		ok(err && err[4] == 0 && nl > 10 && nl < 2000, "truncated gzip: %zu lines then an error", nl - 1);
		is_int(c2[nl - 1], GT_EFORMAT, "truncated gzip is GT_EFORMAT");
		ok(!strncmp(s, "line 0 with", 11), "its first line is intact");
		free(s);
	}
	unlink(path);
}

static void test_seen(void)
{
	gt_seen *s = gt_seen_new();
	uint8_t h[16];
	int fresh = 0, found = 0;
	for (int i = 0; i < 5000; i++) {
		memset(h, 0, 16);
		memcpy(h, &i, sizeof i);
		h[15] = 1;
		fresh += gt_seen_add(s, h);
	}
	for (int i = 0; i < 10000; i++) {
		memset(h, 0, 16);
		memcpy(h, &i, sizeof i);
		h[15] = 1;
		found += gt_seen_has(s, h);
	}
	is_int(fresh, 5000, "5000 new hashes");
	is_int(found, 5000, "exactly those found among 10000");
	memset(h, 0, 16);
	h[15] = 1;
	is_int(gt_seen_add(s, h), 0, "adding again reports not new");
	is_int((long long)gt_seen_count(s), 5000, "count");
	gt_seen_free(s);

	gt_record a, b;
	uint8_t ia[16], ga[16], ib[16], gb[16];
	int hid;
	gt_record_init(&a);
	gt_record_init(&b);
	gen_record(&a, 5, 1, 0);
	gen_record(&b, 5, 1, 0);
	gt_record_hashes(&a, ia, &hid, ga);
	gt_record_hashes(&b, ib, &hid, gb);
	ok(!memcmp(ia, ib, 16) && !memcmp(ga, gb, 16), "same game, same hashes");
	free(b.game_id);
	b.game_id = gt_xstrdup("other");
	gt_record_hashes(&b, ib, &hid, gb);
	ok(memcmp(ia, ib, 16) && !memcmp(ga, gb, 16), "other id: id hash differs, game hash same");
	/* the attack of issue 17: the same moves sent again as a new game */
	b.seed ^= 1;
	gt_record_hashes(&b, ib, &hid, gb);
	ok(!memcmp(ga, gb, 16), "other seed: game hash the same");
	b.seed = 0;
	b.symmetry = 5;
	gt_record_hashes(&b, ib, &hid, gb);
	ok(!memcmp(ga, gb, 16), "no seed, another symmetry field: game hash the same");
	b.symmetry = 0;
	for (int k = 1; k < 8; k++) {
		gt_record_sym(&b, k);
		gt_record_hashes(&b, ib, &hid, gb);
		ok(!memcmp(ga, gb, 16), "the game under symmetry %d: game hash the same", k);
		gt_record_sym(&b, gt_sym_inverse(k));
	}
	b.komi += 1;
	gt_record_hashes(&b, ib, &hid, gb);
	ok(memcmp(ga, gb, 16), "other komi: game hash differs");
	b.komi -= 1;
	snprintf(b.rules, sizeof b.rules, "%s", strcmp(a.rules, "chinese") ? "chinese" : "tromp-taylor");
	gt_record_hashes(&b, ib, &hid, gb);
	ok(memcmp(ga, gb, 16), "other rules: game hash differs");
	snprintf(b.rules, sizeof b.rules, "%s", a.rules);
	b.moves[0] = b.moves[0] == 0 ? 1 : 0;
	gt_record_hashes(&b, ib, &hid, gb);
	ok(memcmp(ga, gb, 16), "another first move: game hash differs");
	gt_record_release(&a);
	gt_record_release(&b);
}

/* The search's root value and score of a position: written, read back,
 * checked, and absent by default. */
static void test_root(void)
{
	gt_record r, q;
	gt_error e = {0};
	gt_record_init(&r);
	gt_record_init(&q);
	gt_record_parse(&r, HAND, strlen(HAND), &e);
	ok(!r.pos[0].has_root, "no root_value: none");
	char *s = gt_record_format(&r, NULL, &e);
	ok(s && !strstr(s, "root_"), "and none written");
	free(s);
	r.pos[1].has_root = 1;
	r.pos[1].root_value = -0.25f;
	r.pos[1].root_score = 3.5f;
	size_t len;
	s = gt_record_format(&r, &len, &e);
	ok(s && strstr(s, "\"root_value\":-0.25,\"root_score\":3.5}"), "root_value and root_score written");
	ok(s && !gt_record_parse(&q, s, len, &e) && q.pos[1].has_root && q.pos[1].root_value == -0.25f &&
	   q.pos[1].root_score == 3.5f && !q.pos[0].has_root, "and read back");
	free(s);
	static const struct { const char *from, *to, *why; } bad[] = {
		{"\"score\":2.5}]}", "\"score\":2.5,\"root_value\":1.5,\"root_score\":0}]}", "root_value 1.5"},
		{"\"score\":2.5}]}", "\"score\":2.5,\"root_score\":2}]}", "root_score alone"},
		{"\"score\":2.5}]}", "\"score\":2.5,\"root_value\":0.5}]}", "root_value alone"},
	};
	for (int i = 0; i < 3; i++) {
		char *t = subst(HAND, bad[i].from, bad[i].to);
		ok(strcmp(t, HAND) && gt_record_parse(&q, t, strlen(t), &e) == GT_EFORMAT &&
		   strstr(e.text, "root_"), "%s refused (%s)", bad[i].why, e.text);
		free(t);
	}
	gt_record_release(&r);
	gt_record_release(&q);
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "gen")) {
		gt_record r;
		gt_record_init(&r);
		int count = (int)strtol(argv[2], NULL, 10), size = (int)strtol(argv[4], NULL, 10);
		uint64_t seed = strtoull(argv[3], NULL, 10);
		for (int i = 0; i < count; i++) {
			gen_record(&r, size, seed, i);
			if (gt_record_write(&r, stdout))
				return 1;
		}
		gt_record_release(&r);
		return fflush(stdout) != 0;
	}
	test_hand();
	test_setup_colors();
	test_adversarial_parse();
	test_sym_hand();
	test_compose();
	test_json_cases();
	test_writer();
	test_root();
	test_generated();
	test_reader();
	test_seen();
	return done_testing();
}
