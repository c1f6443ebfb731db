/* katacfg: KataGo's configuration format, hand-worked lines against the
 * rules of KataGo's cpp/core/config_parser.cpp (katacfg.h): comments,
 * quoting, @include, repeats, overrides and the rules' mutual exclusion,
 * typed values, the unused keys, and the errors that name file:line. */
#include "katacfg.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[4096];

#define at(name) test_path(dir, name)

static void put(const char *name, const char *text)
{
	FILE *f = fopen(at(name), "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* load name; the error text, or "" */
static const char *load(const char *name, gt_katacfg **c)
{
	static gt_error e;
	e.text[0] = 0;
	gt_katacfg_load(c, at(name), &e);
	return e.text;
}

/* the error of loading x.cfg holding text, the folder cut from its names */
static const char *load_err(const char *text)
{
	static char buf[300];
	gt_katacfg *c;
	put("x.cfg", text);
	const char *t = load("x.cfg", &c);
	gt_katacfg_free(c);
	size_t n = 0, dl = strlen(dir);
	for (const char *p = t; *p && n < sizeof buf - 1;)
		if (!strncmp(p, dir, dl) && p[dl] == '/')
			p += dl + 1;
		else
			buf[n++] = *p++;
	buf[n] = 0;
	return buf;
}

int main(void)
{
	test_tmpdir(dir, sizeof dir, "katacfg");
	gt_katacfg *c;
	gt_error e;

	put("a.cfg",
	    "# a comment\n"
	    "\n"
	    "   maxVisits = 500   # trailing comment\n"
	    "logFile = \"~/.katrain/katago_log.txt\"  # quoted, as KaTrain's\n"
	    "quoted = \"a \\\"b\\\" # not a comment\"\n"
	    "tabs\t=\tx y  \r\n"
	    "reportAnalysisWinratesAs=SIDETOMOVE\n"
	    "flag = TRUE\n"
	    "rules = japanese\n"
	    "@include sub/b.cfg  # the rest\n"
	    "after = 1\n");
	mkdir(at("sub"), 0755);
	put("sub/b.cfg", "maxVisits = 20\nkoRule = SIMPLE\n@include = \"c.cfg\"\n");
	put("sub/c.cfg", "deep = yes\n");
	is_str(load("a.cfg", &c), "", "a file with comments, quotes, CRLF and two levels of @include");
	is_str(gt_katacfg_str(c, "logFile"), "~/.katrain/katago_log.txt", "a quoted value");
	is_str(gt_katacfg_str(c, "quoted"), "a \"b\" # not a comment", "escapes and '#' in quotes");
	is_str(gt_katacfg_str(c, "tabs"), "x y", "tabs around '=' and a CR trimmed");
	is_str(gt_katacfg_str(c, "deep"), "yes", "an include's include, from the includer's folder");
	long long v = 0;
	is_int(gt_katacfg_int(c, "maxVisits", 1, 1000, &v, &e), 1, "maxVisits read");
	is_int(v, 20, "the include's later value counts");
	char w[300];
	ok(strstr(gt_katacfg_where(c, "maxVisits", w, sizeof w), "sub/b.cfg:1") != NULL,
	   "where: the included file and line (%s)", w);
	int b = 0;
	is_int(gt_katacfg_bool(c, "flag", &b, &e), 1, "a bool in upper case");
	is_int(b, 1, "TRUE is true");
	static const char *const who[] = { "BLACK", "WHITE", "SIDETOMOVE" };
	int k = -1;
	is_int(gt_katacfg_enum(c, "reportAnalysisWinratesAs", who, 3, &k, &e), 1, "an enum");
	is_int(k, 2, "SIDETOMOVE");
	is_int(gt_katacfg_int(c, "absent", 0, 1, &v, &e), 0, "an absent key: 0");
	is_int(gt_katacfg_int(c, "tabs", 0, 1, &v, &e), GT_EINVAL, "a word as an integer");
	ok(strstr(e.text, "a.cfg:6: tabs: want an integer in 0..1, got 'x y'") != NULL,
	   "its message names file:line, key, range and value (%s)", e.text);
	is_int(gt_katacfg_int(c, "after", 2, 5, &v, &e), GT_EINVAL, "an integer out of range");
	is_int(gt_katacfg_bool(c, "deep", &b, &e), GT_EINVAL, "yes is not a bool (KataGo's)");
	char *u = gt_katacfg_unused(c);
	is_str(u, "rules, koRule", "the keys never read, in order");
	free(u);
	gt_katacfg_use_prefix(c, "ko");
	u = gt_katacfg_unused(c);
	is_str(u, "rules", "a prefix marked used");
	free(u);

	/* overrides: KataGo's comma list; rules and the rule keys exclude each other */
	ok(gt_katacfg_override(c, " maxVisits = 7 ,, logFile=, scoringRule=AREA", &e) == 0,
	   "an override list with spaces, an empty piece and a removal");
	is_int(gt_katacfg_int(c, "maxVisits", 1, 1000, &v, &e), 1, "overridden key read");
	is_int(v, 7, "its new value");
	is_str(gt_katacfg_where(c, "maxVisits", w, sizeof w), "-override-config", "where: the override");
	ok(!gt_katacfg_has(c, "logFile"), "an empty value removes the key");
	ok(!gt_katacfg_has(c, "rules") && gt_katacfg_has(c, "koRule"),
	   "a rule key in an override removes rules, not the file's other rule keys");
	ok(gt_katacfg_override(c, "rules=chinese", &e) == 0 && !gt_katacfg_has(c, "koRule") &&
	   !gt_katacfg_has(c, "scoringRule") && gt_katacfg_has(c, "rules"),
	   "rules in an override removes every rule key");
	is_int(gt_katacfg_override(c, "maxVisits", &e), GT_EFORMAT, "a piece without '='");
	is_str(e.text, "-override-config: want KEY=VALUE, got 'maxVisits'", "its message");
	is_int(gt_katacfg_override(c, "a b=1", &e), GT_EFORMAT, "a key with a space");
	gt_katacfg_free(c);

	/* malformed lines: file:line and nothing loaded */
	is_str(load_err("a = 1\nkey\n"), "x.cfg:2: not KEY = VALUE (a key of letters, digits, '_' and '-')",
	       "a key without a value");
	is_str(load_err("a = 1\n\nkey value\n"), "x.cfg:3: not KEY = VALUE (a key of letters, digits, '_' and '-')",
	       "KEY VALUE without '='");
	ok(strstr(load_err("a =   # nothing\n"), "x.cfg:1: not KEY") != NULL, "an empty value");
	ok(strstr(load_err("a = \"open\n"), "x.cfg:1: not KEY") != NULL, "an unclosed quote");
	ok(strstr(load_err("a = \"x\" y\n"), "x.cfg:1: not KEY") != NULL, "text after the closing quote");
	ok(strstr(load_err("a = \"\"\n"), "x.cfg:1: not KEY") != NULL, "an empty quoted value");
	ok(strstr(load_err("k.e.y = 1\n"), "x.cfg:1: not KEY") != NULL, "a key with a dot");
	ok(strstr(load_err("a = 1 # x\nb = 2\na = 3\n"), "x.cfg:3: a set twice in this file") != NULL,
	   "a key twice in one file");
	ok(strstr(load_err("@inclde y.cfg\n"), "x.cfg:1: unsupported @ directive") != NULL,
	   "an unknown directive");
	ok(strstr(load_err("@include /etc/passwd\n"), "x.cfg:1: @include: an absolute path") != NULL,
	   "an absolute include refused (as KataGo)");
	ok(strstr(load_err("\n@include missing.cfg\n"), "x.cfg:2: @include: ") != NULL,
	   "a missing include: where it was named");
	ok(strstr(load_err("@include x.cfg\n"), "x.cfg:1: @include: ") != NULL &&
	   strstr(load_err("@include x.cfg\n"), "includes itself") != NULL, "a file including itself");
	put("y.cfg", "@include x.cfg\n");
	is_str(load_err("@include y.cfg\n"),
	       "y.cfg:1: @include: x.cfg: included twice, or includes itself",
	       "a cycle of two files: the include that closes it");
	FILE *f = fopen(at("nul.cfg"), "w");
	if (f) {
		fwrite("a = 1\0b = 2\n", 1, 12, f);
		fclose(f);
	}
	is_int(gt_katacfg_load(&c, at("nul.cfg"), &e), GT_EFORMAT, "a NUL byte: not a text file");
	is_int(e.offset, 5, "its offset");

	/* bounds: a file over the size cap is refused before it is read */
	f = fopen(at("big.cfg"), "w");
	for (int i = 0; f && i < GT_KATACFG_MAX_FILE / 16 + 1; i++)
		fputs("# padding line.\n", f);
	if (f)
		fclose(f);
	ok(gt_katacfg_load(&c, at("big.cfg"), &e) != 0 && c == NULL, "a file over 1 MiB refused (%s)",
	   e.text);
	f = fopen(at("many.cfg"), "w");
	for (int i = 0; f && i <= GT_KATACFG_MAX_KEYS; i++)
		fprintf(f, "k%d = %d\n", i, i);
	if (f)
		fclose(f);
	is_int(gt_katacfg_load(&c, at("many.cfg"), &e), GT_ETOOLONG, "more than 4096 keys refused");
	ok(strstr(e.text, "many.cfg:4097: more than 4096 keys") != NULL, "at the key over (%s)", e.text);
	ok(gt_katacfg_load(&c, at("."), &e) != 0, "a folder is not a configuration file (%s)", e.text);
	ok(gt_katacfg_load(&c, NULL, &e) == 0 && c && !gt_katacfg_unused(c), "no file: no keys");
	gt_katacfg_free(c);

	test_rmdir(dir);
	return done_testing();
}
