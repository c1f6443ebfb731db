/* Tests of lib/tmpl: values, escaping of hostile strings, sections, JSON
 * pointers, formats, and templates that are refused. Expected texts are
 * written out by hand. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "tmpl.h"

/* fill: render t with the JSON text data; the output, or "ERROR: text" */
static char *fill(const char *t, const char *data)
{
	json_error_t je;
	json_t *j = json_loads(data, 0, &je);
	if (!j)
		return strdup("BAD JSON IN TEST");
	char *out;
	size_t n;
	gt_error e = {0};
	int rc = gt_tmpl_render(t, strlen(t), j, &out, &n, &e);
	json_decref(j);
	if (rc) {
		char *s = malloc(300);
		snprintf(s, 300, "ERROR line %ld: %s", e.line, e.text);
		return s;
	}
	if (strlen(out) != n) {
		free(out);
		return strdup("LENGTH MISMATCH");
	}
	return out;
}

static void check(const char *t, const char *data, const char *want, const char *name)
{
	char *got = fill(t, data);
	is_str(got, want, "%s", name);
	free(got);
}

/* refused: the template fails with a message that contains what */
static void refused(const char *t, const char *data, const char *what, const char *name)
{
	char *got = fill(t, data);
	ok(!strncmp(got, "ERROR", 5) && strstr(got, what), "%s", name);
	if (strncmp(got, "ERROR", 5) || !strstr(got, what))
		diag("  got '%s', want an error with '%s'", got, what);
	free(got);
}

int main(void)
{
	check("a {{x}} b", "{\"x\":\"hi\"}", "a hi b", "a string value");
	check("{{x}}|{{y}}|{{z}}|{{w}}|{{n}}", "{\"x\":12,\"y\":1.5,\"z\":true,\"n\":null}",
	      "12|1.5|true||", "integers, reals, booleans; null and missing are empty");
	check("{{x}}", "{\"x\":\"<script>alert('x')</script> & \\\"q\\\"\"}",
	      "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;",
	      "a hostile string is escaped");
	check("<a title=\"{{x}}\">", "{\"x\":\"\\\" onmouseover=\\\"evil()\"}",
	      "<a title=\"&quot; onmouseover=&quot;evil()\">", "a quote cannot leave an attribute");
	check("[{{x}}]", "{\"x\":\"a\\u0001b\\u007fc\\td\"}", "[a?b?c\td]",
	      "control characters become '?', a tab stays");
	check("{{ a.b.c }}", "{\"a\":{\"b\":{\"c\":\"deep\"}}}", "deep", "dotted names, spaces");
	check("{{#l}}<{{.}}>{{/l}}", "{\"l\":[1,2,3]}", "<1><2><3>", "a section over an array");
	check("{{#o}}{{k}}{{/o}}", "{\"o\":{\"k\":\"v\"}}", "v", "a section over an object");
	check("{{#l}}{{n}}{{top}};{{/l}}", "{\"top\":\"T\",\"l\":[{\"n\":1},{\"n\":2,\"top\":\"in\"}]}",
	      "1T;2in;", "names are looked up outward from the innermost context");
	check("{{#f}}x{{/f}}{{#n}}x{{/n}}{{#m}}x{{/m}}{{#e}}x{{/e}}{{#s}}x{{/s}}{{#z}}x{{/z}}{{#t}}y{{/t}}{{#o}}y{{/o}}",
	      "{\"f\":false,\"n\":null,\"e\":[],\"s\":\"\",\"z\":0,\"t\":true,\"o\":0.5}", "yy",
	      "false values hide a section");
	check("{{^e}}none{{/e}}{{^l}}none{{/l}}", "{\"e\":[],\"l\":[1]}", "none",
	      "an inverted section shows for a false value only");
	check("{{?l}}<t>{{#l}}{{.}}{{/l}}</t>{{/l}}{{?e}}<u>{{/e}}", "{\"l\":[1,2],\"e\":[]}", "<t>12</t>",
	      "{{?name}} shows a block once, in the same context");
	check("{{#a}}{{#b}}{{.}}{{/b}}|{{/a}}", "{\"a\":[{\"b\":[1,2]},{\"b\":[3]}]}", "12|3|",
	      "nested sections");
	check("{{#a}}{{#a}}x{{/a}}{{/a}}", "{\"a\":{\"a\":true}}", "x", "a section nested in one of its name");
	check("a{{! a comment }}b", "{}", "ab", "comments are left out");
	check("{{#l}}{{v|int}}{{/l}}", "{\"l\":[{\"v\":1234567}]}",
	      "<span class=\"f-int\" data-j=\"/l/0/v\">1,234,567</span>", "a formatted value carries its pointer");
	check("{{x|int}} {{y|int}} {{z|int}}", "{\"x\":-1234,\"y\":999.6,\"z\":12}",
	      "<span class=\"f-int\" data-j=\"/x\">-1,234</span> <span class=\"f-int\" data-j=\"/y\">1,000</span> "
	      "<span class=\"f-int\" data-j=\"/z\">12</span>", "int: rounding and separators");
	check("{{a|elo}}{{b|elo}}{{c|elo}}{{d|elo}}", "{\"a\":12.4,\"b\":-3.6,\"c\":\"+inf\",\"d\":null}",
	      "<span class=\"f-elo\" data-j=\"/a\">+12</span><span class=\"f-elo\" data-j=\"/b\">-4</span>"
	      "<span class=\"f-elo\" data-j=\"/c\">+inf</span><span class=\"f-elo\" data-j=\"/d\">\xe2\x80\x93</span>",
	      "elo: signed, infinite strings, null as a dash");
	check("{{a|f1}}{{a|f2}}{{p|pct}}", "{\"a\":2.345,\"p\":0.12345}",
	      "<span class=\"f-f1\" data-j=\"/a\">2.3</span><span class=\"f-f2\" data-j=\"/a\">2.35</span>"
	      "<span class=\"f-pct\" data-j=\"/p\">12.3%</span>", "f1, f2, pct");
	check("{{a|bytes}}{{b|bytes}}{{c|bytes}}", "{\"a\":1000,\"b\":27594,\"c\":3221225472}",
	      "<span class=\"f-bytes\" data-j=\"/a\">1000 B</span><span class=\"f-bytes\" data-j=\"/b\">26.9 KiB</span>"
	      "<span class=\"f-bytes\" data-j=\"/c\">3.0 GiB</span>", "bytes");
	check("{{t|time}}{{u|time}}", "{\"t\":\"2026-12-01T03:28:39Z\",\"u\":\"soon\"}",
	      "<span class=\"f-time\" data-j=\"/t\">2026-12-01 03:28</span><span class=\"f-time\" data-j=\"/u\">soon</span>",
	      "time");
	check("{{t|date}}", "{\"t\":\"2026-12-01T00:00:00Z\"}",
	      "<span class=\"f-date\" data-j=\"/t\">2026-12-01</span>", "date");
	check("{{n|text}}{{m|text}}", "{\"n\":\"<b>x</b>\",\"m\":7}",
	      "<span class=\"f-text\" data-j=\"/n\">&lt;b&gt;x&lt;/b&gt;</span><span class=\"f-text\" data-j=\"/m\">7</span>",
	      "text: escaped");
	check("{{e|text}}", "{\"e\":\"\"}", "<span class=\"f-text\" data-j=\"/e\">\xe2\x80\x93</span>",
	      "an empty string shows a dash, as null does");
	check("{{#o}}{{a-b|int}}{{/o}}", "{\"o\":{\"a-b\":1}}",
	      "<span class=\"f-int\" data-j=\"/o/a-b\">1</span>", "a key with '-'");
	refused("{{x", "{}", "closing }}", "an unclosed tag");
	refused("{{#a}}x", "{\"a\":1}", "never closed", "an unclosed section");
	refused("x{{/a}}", "{}", "not opened", "a close without an open");
	refused("{{#a}}{{#b}}{{/a}}{{/b}}", "{}", "another name", "crossed sections");
	refused("{{a b}}", "{}", "name", "a bad name");
	refused("{{x|money}}", "{\"x\":1}", "unknown format", "an unknown format");
	refused("\n\n{{x|int}}", "{\"x\":\"12\"}", "line 3", "a string where a number is wanted, with its line");
	refused("{{x|elo}}", "{\"x\":\"inf\"}", "format elo", "elo takes only +inf and -inf as strings");
	refused("{{#x|int}}{{/x}}", "{}", "name", "a format on a section");
	return done_testing();
}
