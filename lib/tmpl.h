/*
 * tmpl.h: a small template engine that fills an HTML page from a JSON value
 * (gt-report(1) and its template share/gt/report/index.html). The syntax is
 * a subset of Mustache:
 *
 *   {{name}}          the value, HTML-escaped: a string as it is, an integer
 *                     in decimal, a real as %g, true or false; nothing for
 *                     null, a missing name, an object or an array
 *   {{name|FMT}}      the value formatted for reading (FMT below), escaped,
 *                     inside <span class="f-FMT" data-j="POINTER">...</span>
 *                     where POINTER is the value's JSON pointer (RFC 6901)
 *                     in the data, so that a script can check every number
 *                     of the page against the JSON it came from
 *   {{#name}}...{{/name}}  the block once for each element of an array (the
 *                     element is the context inside), once for an object or
 *                     any other true value (the value is the context), and
 *                     not at all for false, null, a missing name, 0, "" or []
 *   {{^name}}...{{/name}}  the block once where {{#name}} would show nothing
 *   {{?name}}...{{/name}}  the block once where {{#name}} would show something,
 *                     in the same context (the head of a table of rows)
 *   {{!...}}          a comment, left out
 *
 * name is "." (the context itself) or keys of [A-Za-z0-9_-] joined by '.';
 * the first key is looked up in the innermost context that has it, then
 * outward, the rest inside the value found.
 *
 * Escaping: & < > " ' become &amp; &lt; &gt; &quot; &#39;, and control
 * characters other than tab, newline and carriage return become '?', so a
 * value is safe as element text and inside a double-quoted attribute. (A
 * value used as a URL must be made safe by whoever put it in the data.)
 *
 * FMT: int (rounded to an integer, thousands separated by ','), elo (a
 * signed integer such as +12 or -3; the strings "+inf" and "-inf" shown as
 * they are), f1, f2 (one or two decimals), pct (a fraction shown as a
 * percentage with one decimal and '%'), bytes (B below 1024, else KiB, MiB
 * or GiB with one decimal), time (a UTC time written YYYY-MM-DDTHH:MM:SSZ,
 * shown as "YYYY-MM-DD HH:MM"; another string as it is), date (the same
 * shown as "YYYY-MM-DD"), text (a string as it is). null, a missing value
 * or "" shows "–" (U+2013) in every format, so no element is left empty.
 */
#ifndef GT_TMPL_H
#define GT_TMPL_H
#include <jansson.h>
#include <stddef.h>
#include "gt.h"

/* gt_tmpl_render: fill the template tmpl[0..len) from data (borrowed). On
 * success *out is a new NUL-terminated string (caller frees) of *outlen
 * bytes. Errors: GT_EFORMAT with e->line the template's line and e->text
 * the reason: a tag not closed, a section closed by another name or never
 * closed, a bad name, an unknown FMT, or a value a FMT cannot show (a
 * string or object where a number is wanted). *out is NULL on error. */
int gt_tmpl_render(const char *tmpl, size_t len, json_t *data, char **out, size_t *outlen,
                   gt_error *e);

#endif
