/* katacfg.c: KataGo's configuration files (katacfg.h). */
#include "katacfg.h"
#include "fs.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEY 128

typedef struct entry {
	char *key, *val;
	int file;  /* index in files, or -1: an override */
	long line;
	int used;
} entry;

struct gt_katacfg {
	entry *e;
	int n, cap;
	char *files[GT_KATACFG_MAX_FILES]; /* the names as the messages give them */
	char *real[GT_KATACFG_MAX_FILES];  /* realpath(3) of each, for repeats */
	int nfiles;
};

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int is_key_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* s[0..*len) without the spaces at both ends; returns the new start */
static const char *trim(const char *s, size_t *len)
{
	while (*len && is_space(*s))
		s++, (*len)--;
	while (*len && is_space(s[*len - 1]))
		(*len)--;
	return s;
}

static int find(const gt_katacfg *c, const char *key)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->e[i].key, key))
			return i;
	return -1;
}

static void drop(gt_katacfg *c, int i)
{
	free(c->e[i].key);
	free(c->e[i].val);
	memmove(c->e + i, c->e + i + 1, (size_t)(c->n - i - 1) * sizeof *c->e);
	c->n--;
}

/* set key (klen bytes) to val (vlen bytes) from file:line; 0 or GT_ETOOLONG */
static int set(gt_katacfg *c, const char *key, size_t klen, const char *val, size_t vlen,
               int file, long line)
{
	char *k = gt_xmalloc(klen + 1), *v = gt_xmalloc(vlen + 1);
	memcpy(k, key, klen);
	k[klen] = 0;
	memcpy(v, val, vlen);
	v[vlen] = 0;
	int i = find(c, k);
	if (i >= 0) {
		free(k);
		free(c->e[i].val);
	} else {
		if (c->n >= GT_KATACFG_MAX_KEYS) {
			free(k);
			free(v);
			return GT_ETOOLONG;
		}
		if (c->n == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 32;
			entry *ne = gt_xmalloc((size_t)c->cap * sizeof *ne);
			if (c->n)
				memcpy(ne, c->e, (size_t)c->n * sizeof *ne);
			free(c->e);
			c->e = ne;
		}
		i = c->n++;
		c->e[i].key = k;
		c->e[i].used = 0;
	}
	c->e[i].val = v;
	c->e[i].file = file;
	c->e[i].line = line;
	return 0;
}

/* one trimmed line (not empty, not a comment, not a directive) as KEY =
 * VALUE: 1 with the key in key[0..*klen) and the value (unescaped) in a
 * new *val, 0 for a line that is only a comment after all, -1 malformed */
static int parse_kv(const char *s, size_t len, char *key, size_t *klen, char **val, size_t *vlen)
{
	size_t i = 0, k = 0;
	while (i < len && is_key_char(s[i]))
		if (k < MAX_KEY)
			key[k++] = s[i++];
		else
			return -1;
	*klen = k;
	if (!k)
		return s[0] == '#' ? 0 : -1;
	while (i < len && is_space(s[i]))
		i++;
	if (i >= len || s[i] != '=')
		return -1;
	i++;
	while (i < len && is_space(s[i]))
		i++;
	char *v = gt_xmalloc(len - i + 1);
	size_t n = 0;
	if (i < len && s[i] == '"') {
		for (i++; i < len && s[i] != '"'; i++) {
			if (s[i] == '\\' && ++i >= len)
				break;
			v[n++] = s[i];
		}
		/* after the closing quote: nothing, or a comment */
		size_t rest = i < len ? len - i - 1 : 0;
		const char *r = i < len ? trim(s + i + 1, &rest) : NULL;
		if (!r || (rest && r[0] != '#') || !n) {
			free(v);
			return -1;
		}
	} else {
		size_t end = i;
		while (end < len && s[end] != '#')
			end++;
		size_t vl = end - i;
		const char *t = trim(s + i, &vl);
		memcpy(v, t, vl);
		n = vl;
		if (!n) {
			free(v);
			return -1;
		}
	}
	v[n] = 0;
	*val = v;
	*vlen = n;
	return 1;
}

static int read_file(gt_katacfg *c, const char *path, gt_error *e);

/* "@include FILE" of the file fi at line: the file read in its turn */
static int include(gt_katacfg *c, int fi, long line, const char *s, size_t len, gt_error *e)
{
	const char *name = c->files[fi];
	size_t k = 0;
	while (k < len && s[k] != '#')
		k++;
	len = k;
	size_t d = 0;
	while (d < len && !is_space(s[d]) && s[d] != '=')
		d++;
	if (d != 8 || memcmp(s, "@include", 8))
		return gt_error_set(e, GT_EFORMAT, line, -1, "%s:%ld: unsupported @ directive", name, line);
	const char *p = s + d;
	size_t pl = len - d;
	while (pl && (is_space(*p) || *p == '='))
		p++, pl--;
	p = trim(p, &pl);
	if (pl && (*p == '\'' || *p == '"') && pl >= 2 && p[pl - 1] == *p)
		p++, pl -= 2;
	if (!pl)
		return gt_error_set(e, GT_EFORMAT, line, -1, "%s:%ld: @include without a file", name,
		                    line);
	if (*p == '/')
		return gt_error_set(e, GT_EFORMAT, line, -1,
		                    "%s:%ld: @include: an absolute path is not supported (as KataGo)",
		                    name, line);
	const char *slash = strrchr(name, '/');
	size_t dl = slash ? (size_t)(slash - name + 1) : 0;
	char *full = gt_xmalloc(dl + pl + 1);
	memcpy(full, name, dl);
	memcpy(full + dl, p, pl);
	full[dl + pl] = 0;
	int rc = read_file(c, full, e);
	free(full);
	if (rc && e && e->line < 0) { /* the file as a whole: say where it was named */
		char t[sizeof e->text];
		snprintf(t, sizeof t, "%s", e->text);
		gt_error_set(e, rc, line, -1, "%.100s:%ld: @include: %s", name, line, t);
	}
	return rc;
}

static int read_file(gt_katacfg *c, const char *path, gt_error *e)
{
	if (c->nfiles >= GT_KATACFG_MAX_FILES)
		return gt_error_set(e, GT_ETOOLONG, -1, -1, "%s: more than %d configuration files",
		                    path, GT_KATACFG_MAX_FILES);
	char *real = realpath(path, NULL);
	for (int i = 0; real && i < c->nfiles; i++)
		if (c->real[i] && !strcmp(c->real[i], real)) {
			free(real);
			return gt_error_set(e, GT_EINVAL, -1, -1,
			                    "%s: included twice, or includes itself", path);
		}
	int fi = c->nfiles++;
	c->files[fi] = strcpy(gt_xmalloc(strlen(path) + 1), path);
	c->real[fi] = real;
	char *buf;
	size_t len;
	gt_error fe;
	int rc = gt_fs_read_regular(path, GT_KATACFG_MAX_FILE, &buf, &len, &fe);
	if (rc)
		return gt_error_set(e, rc, -1, -1, "%s", fe.text);
	const char *nul = memchr(buf, 0, len);
	if (nul) {
		long at = (long)(nul - buf);
		free(buf);
		return gt_error_set(e, GT_EFORMAT, -1, at,
		                    "%s: a NUL byte at offset %ld: not a configuration file", path, at);
	}
	/* the keys this file has set: a second time is an error */
	char **mine = NULL;
	size_t nmine = 0;
	long line = 0;
	rc = 0;
	for (size_t at = 0; at < len && !rc;) {
		size_t l = strcspn(buf + at, "\n");
		const char *s = buf + at;
		at += l + 1;
		line++;
		s = trim(s, &l);
		if (!l || s[0] == '#')
			continue;
		if (s[0] == '@') {
			rc = include(c, fi, line, s, l, e);
			continue;
		}
		char key[MAX_KEY + 1], *val;
		size_t kl, vl;
		int got = parse_kv(s, l, key, &kl, &val, &vl);
		if (got < 0) {
			rc = gt_error_set(e, GT_EFORMAT, line, -1,
			                  "%s:%ld: not KEY = VALUE (a key of letters, digits, '_' and '-')",
			                  path, line);
			break;
		}
		if (!got)
			continue;
		key[kl] = 0;
		for (size_t i = 0; i < nmine; i++)
			if (!strcmp(mine[i], key))
				rc = gt_error_set(e, GT_EFORMAT, line, -1, "%s:%ld: %s set twice in this file",
				                  path, line, key);
		if (!rc && set(c, key, kl, val, vl, fi, line))
			rc = gt_error_set(e, GT_ETOOLONG, line, -1, "%s:%ld: more than %d keys", path,
			                  line, GT_KATACFG_MAX_KEYS);
		free(val);
		if (!rc) {
			char **nm = gt_xmalloc((nmine + 1) * sizeof *nm);
			if (nmine)
				memcpy(nm, mine, nmine * sizeof *nm);
			free(mine);
			mine = nm;
			mine[nmine++] = c->e[find(c, key)].key;
		}
	}
	free(mine);
	free(buf);
	return rc;
}

int gt_katacfg_add(gt_katacfg *c, const char *path, gt_error *e)
{
	return read_file(c, path, e);
}

int gt_katacfg_load(gt_katacfg **out, const char *path, gt_error *e)
{
	gt_katacfg *c = gt_xcalloc(1, sizeof *c);
	int rc = path ? read_file(c, path, e) : 0;
	if (rc) {
		gt_katacfg_free(c);
		c = NULL;
	}
	*out = c;
	return rc;
}

void gt_katacfg_free(gt_katacfg *c)
{
	if (!c)
		return;
	while (c->n)
		drop(c, c->n - 1);
	free(c->e);
	for (int i = 0; i < c->nfiles; i++) {
		free(c->files[i]);
		free(c->real[i]);
	}
	free(c);
}

/* KataGo's one pair of keys that exclude each other (its
 * Setup::getMutexKeySets): the rules by name, or rule by rule */
static const char *const rule_keys[] = {
	"koRule", "scoringRule", "multiStoneSuicideLegal", "taxRule", "hasButton",
	"whiteBonusPerHandicapStone", "friendlyPassOk", "whiteHandicapBonus",
};

static int is_rule_key(const char *k, size_t n)
{
	for (size_t i = 0; i < sizeof rule_keys / sizeof rule_keys[0]; i++)
		if (strlen(rule_keys[i]) == n && !memcmp(rule_keys[i], k, n))
			return 1;
	return 0;
}

int gt_katacfg_override(gt_katacfg *c, const char *s, gt_error *e)
{
	/* first pass: check, and see which side of the rules it names */
	int names_rules = 0, names_rule = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			for (int i = c->n - 1; i >= 0; i--)
				if ((names_rules && is_rule_key(c->e[i].key, strlen(c->e[i].key))) ||
				    (names_rule && !strcmp(c->e[i].key, "rules")))
					drop(c, i);
		}
		for (const char *p = s; *p;) {
			size_t l = strcspn(p, ",");
			const char *piece = p;
			p += l + (p[l] == ',');
			piece = trim(piece, &l);
			if (!l)
				continue;
			const char *eq = memchr(piece, '=', l);
			size_t kl = eq ? (size_t)(eq - piece) : 0;
			const char *k = eq ? trim(piece, &kl) : piece;
			size_t vl = eq ? l - (size_t)(eq - piece) - 1 : 0;
			const char *v = eq ? trim(eq + 1, &vl) : NULL;
			int bad = !eq || !kl || kl > MAX_KEY;
			for (size_t i = 0; !bad && i < kl; i++)
				bad = !is_key_char(k[i]);
			if (bad)
				return gt_error_set(e, GT_EFORMAT, -1, -1,
				                    "-override-config: want KEY=VALUE, got '%.*s'",
				                    (int)(l < 64 ? l : 64), piece);
			if (pass == 0) {
				names_rules |= kl == 5 && !memcmp(k, "rules", 5);
				names_rule |= is_rule_key(k, kl);
				continue;
			}
			char key[MAX_KEY + 1];
			memcpy(key, k, kl);
			key[kl] = 0;
			int i = find(c, key);
			if (!vl) {
				if (i >= 0)
					drop(c, i);
			} else if (set(c, key, kl, v, vl, -1, -1)) {
				return gt_error_set(e, GT_ETOOLONG, -1, -1, "-override-config: more than %d keys",
				                    GT_KATACFG_MAX_KEYS);
			}
		}
	}
	return 0;
}

int gt_katacfg_has(const gt_katacfg *c, const char *key)
{
	return find(c, key) >= 0;
}

const char *gt_katacfg_str(gt_katacfg *c, const char *key)
{
	int i = find(c, key);
	if (i < 0)
		return NULL;
	c->e[i].used = 1;
	return c->e[i].val;
}

char *gt_katacfg_where(const gt_katacfg *c, const char *key, char *buf, size_t n)
{
	int i = find(c, key);
	if (i < 0)
		snprintf(buf, n, "%s", "");
	else if (c->e[i].file < 0)
		snprintf(buf, n, "-override-config");
	else
		snprintf(buf, n, "%s:%ld", c->files[c->e[i].file], c->e[i].line);
	return buf;
}

/* "WHERE: KEY: want WANT, got 'VALUE'" */
static int bad(const gt_katacfg *c, const char *key, const char *val, const char *want,
               gt_error *e)
{
	char w[300];
	gt_katacfg_where(c, key, w, sizeof w);
	int i = find(c, key);
	return gt_error_set(e, GT_EINVAL, i >= 0 ? c->e[i].line : -1, -1,
	                    "%.160s: %s: want %s, got '%.40s'", w, key, want, val);
}

int gt_katacfg_int(gt_katacfg *c, const char *key, long long lo, long long hi,
                   long long *v, gt_error *e)
{
	const char *s = gt_katacfg_str(c, key);
	if (!s)
		return 0;
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || end == s || *end || x < lo || x > hi) {
		char want[64];
		snprintf(want, sizeof want, "an integer in %lld..%lld", lo, hi);
		return bad(c, key, s, want, e);
	}
	*v = x;
	return 1;
}

int gt_katacfg_double(gt_katacfg *c, const char *key, double lo, double hi, double *v,
                      gt_error *e)
{
	const char *s = gt_katacfg_str(c, key);
	if (!s)
		return 0;
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(x) || !(x >= lo && x <= hi)) {
		char want[80];
		snprintf(want, sizeof want, "a number in %g..%g", lo, hi);
		return bad(c, key, s, want, e);
	}
	*v = x;
	return 1;
}

int gt_katacfg_bool(gt_katacfg *c, const char *key, int *v, gt_error *e)
{
	const char *s = gt_katacfg_str(c, key);
	if (!s)
		return 0;
	if (strcasecmp(s, "true") && strcasecmp(s, "false"))
		return bad(c, key, s, "true or false", e);
	*v = !strcasecmp(s, "true");
	return 1;
}

int gt_katacfg_enum(gt_katacfg *c, const char *key, const char *const *names, int n, int *v,
                    gt_error *e)
{
	const char *s = gt_katacfg_str(c, key);
	if (!s)
		return 0;
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i])) {
			*v = i;
			return 1;
		}
	char want[200] = "one of";
	for (int i = 0; i < n; i++)
		snprintf(want + strlen(want), sizeof want - strlen(want), "%s %s", i ? "," : "",
		         names[i]);
	return bad(c, key, s, want, e);
}

void gt_katacfg_unuse(gt_katacfg *c, const char *key)
{
	int i = find(c, key);
	if (i >= 0)
		c->e[i].used = 0;
}

void gt_katacfg_use_prefix(gt_katacfg *c, const char *prefix)
{
	size_t l = strlen(prefix);
	for (int i = 0; i < c->n; i++)
		if (!strncmp(c->e[i].key, prefix, l))
			c->e[i].used = 1;
}

char *gt_katacfg_unused(const gt_katacfg *c)
{
	size_t len = 0;
	for (int i = 0; i < c->n; i++)
		if (!c->e[i].used)
			len += strlen(c->e[i].key) + 2;
	if (!len)
		return NULL;
	char *s = gt_xmalloc(len + 1), *p = s;
	for (int i = 0; i < c->n; i++)
		if (!c->e[i].used)
			p += sprintf(p, "%s%s", p == s ? "" : ", ", c->e[i].key);
	return s;
}
