/* store_s3.c: the s3:// scheme of lib/store (store_s3.h): the requests of
 * store_http.c, signed with AWS Signature Version 4 by libcurl, and
 * ListObjectsV2 listings read with expat. */
#include "store_s3.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* sha256 of no bytes: the payload hash of GET, HEAD and a listing */
static const char EMPTY_SHA256[] =
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/* ---- configuration ---- */

/* env: the variable name when set and not empty, copied into out (size
 * bytes); 1 if it was, 0 if not. A longer value is GT_EINVAL. */
static int env(const char *name, char *out, size_t size, int *toolong)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return 0;
	if (strlen(v) >= size) {
		*toolong = 1;
		return 0;
	}
	memcpy(out, v, strlen(v) + 1);
	return 1;
}

/* slurp: the text of the file named by the variable var, else of
 * $HOME/rel (new string, caller frees; at most 1 MiB), or NULL when there
 * is none; *path receives the file's name. */
static char *slurp(const char *var, const char *rel, char *path, size_t size)
{
	const char *v = getenv(var), *home = getenv("HOME");
	if (v && *v)
		snprintf(path, size, "%s", v);
	else if (home && *home)
		snprintf(path, size, "%s/%s", home, rel);
	else
		return NULL;
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 20, n;
	char *buf = gt_xmalloc(cap + 1);
	n = fread(buf, 1, cap, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

/* ini_get: the value of key in [section] of an INI text (the AWS files:
 * "key = value" lines, '#' and ';' comments, indented lines belong to the
 * key above them and are skipped) into out (size bytes, spaces at both
 * ends cut); 1 if found, 0 if not (or too long). */
static int ini_get(const char *text, const char *section, const char *key, char *out, size_t size)
{
	int in = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		size_t len = strcspn(l, "\n");
		while (len && (l[len - 1] == '\r' || l[len - 1] == ' ' || l[len - 1] == '\t'))
			len--;
		if (!len || l[0] == '#' || l[0] == ';' || l[0] == ' ' || l[0] == '\t')
			continue;
		if (l[0] == '[') {
			const char *a = l + 1, *b = memchr(l, ']', len);
			if (!b)
				continue;
			while (a < b && (*a == ' ' || *a == '\t'))
				a++;
			const char *z = b;
			while (z > a && (z[-1] == ' ' || z[-1] == '\t'))
				z--;
			in = (size_t)(z - a) == strlen(section) && !memcmp(a, section, (size_t)(z - a));
			continue;
		}
		const char *eq = memchr(l, '=', len);
		if (!in || !eq)
			continue;
		const char *kz = eq;
		while (kz > l && (kz[-1] == ' ' || kz[-1] == '\t'))
			kz--;
		if ((size_t)(kz - l) != strlen(key) || memcmp(l, key, (size_t)(kz - l)))
			continue;
		const char *v = eq + 1, *vz = l + len;
		while (v < vz && (*v == ' ' || *v == '\t'))
			v++;
		if ((size_t)(vz - v) >= size)
			return 0;
		memcpy(out, v, (size_t)(vz - v));
		out[vz - v] = 0;
		return 1;
	}
	return 0;
}

/* printable: 1 if s holds only printable ASCII without spaces */
static int printable(const char *s)
{
	for (; *s; s++)
		if (*s <= ' ' || *s >= 0x7f)
			return 0;
	return 1;
}

/* keys_from: the credentials of [section] in text, if both keys are there */
static int keys_from(gt_s3_conf *c, const char *text, const char *section, const char *file)
{
	if (!text || !ini_get(text, section, "aws_access_key_id", c->key, sizeof c->key) ||
	    !ini_get(text, section, "aws_secret_access_key", c->secret, sizeof c->secret)) {
		c->key[0] = c->secret[0] = 0;
		return 0;
	}
	if (!ini_get(text, section, "aws_session_token", c->token, sizeof c->token))
		c->token[0] = 0;
	snprintf(c->source, sizeof c->source, "[%s] of %s", section, file);
	return 1;
}

/* other_creds: the name of a kind of credentials gt does not read that
 * [section] of text names, or NULL */
static const char *other_creds(const char *text, const char *section)
{
	static const char *const kinds[] = { "role_arn", "credential_process", "sso_start_url",
	                                     "sso_session", "web_identity_token_file" };
	char v[2048];
	for (size_t i = 0; text && i < sizeof kinds / sizeof kinds[0]; i++)
		if (ini_get(text, section, kinds[i], v, sizeof v))
			return kinds[i];
	return NULL;
}

int gt_s3_conf_load(gt_s3_conf *c, gt_error *e)
{
	char profile[96], csect[112], cred_path[4096], cfg_path[4096];
	int toolong = 0, rc = 0;
	memset(c, 0, sizeof *c);
	if (!env("AWS_PROFILE", profile, sizeof profile, &toolong) &&
	    !env("AWS_DEFAULT_PROFILE", profile, sizeof profile, &toolong))
		strcpy(profile, "default");
	if (!strcmp(profile, "default"))
		strcpy(csect, "default");
	else
		snprintf(csect, sizeof csect, "profile %s", profile);
	char *cred = slurp("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials", cred_path, sizeof cred_path);
	char *cfg = slurp("AWS_CONFIG_FILE", ".aws/config", cfg_path, sizeof cfg_path);

	if (env("AWS_ACCESS_KEY_ID", c->key, sizeof c->key, &toolong) &&
	    env("AWS_SECRET_ACCESS_KEY", c->secret, sizeof c->secret, &toolong)) {
		env("AWS_SESSION_TOKEN", c->token, sizeof c->token, &toolong);
		snprintf(c->source, sizeof c->source, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
	} else if (!keys_from(c, cred, profile, cred_path) && !keys_from(c, cfg, csect, cfg_path)) {
		const char *k = other_creds(cred, profile);
		if (!k)
			k = other_creds(cfg, csect);
		c->key[0] = c->secret[0] = c->token[0] = 0;
		if (k)
			rc = gt_error_set(e, GT_EINVAL, -1, -1,
			                  "AWS profile %s uses %s, which gt does not read; export "
			                  "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN "
			                  "(aws configure export-credentials --format env)", profile, k);
		snprintf(c->source, sizeof c->source, "no credentials (anonymous requests)");
	}
	if (!env("AWS_REGION", c->region, sizeof c->region, &toolong) &&
	    !env("AWS_DEFAULT_REGION", c->region, sizeof c->region, &toolong) &&
	    !(cfg && ini_get(cfg, csect, "region", c->region, sizeof c->region)))
		strcpy(c->region, "us-east-1");
	if (env("AWS_ENDPOINT_URL_S3", c->endpoint, sizeof c->endpoint, &toolong) ||
	    env("AWS_ENDPOINT_URL", c->endpoint, sizeof c->endpoint, &toolong) ||
	    (cfg && ini_get(cfg, csect, "endpoint_url", c->endpoint, sizeof c->endpoint)))
		c->custom = 1;
	else
		snprintf(c->endpoint, sizeof c->endpoint, "https://s3.%s.amazonaws.com", c->region);
	free(cred);
	free(cfg);
	if (rc)
		return rc;

	size_t el = strlen(c->endpoint);
	while (el && c->endpoint[el - 1] == '/')
		c->endpoint[--el] = 0;
	const char *host = strstr(c->endpoint, "://");
	if (toolong)
		return gt_error_set(e, GT_EINVAL, -1, -1, "an AWS_ variable is too long");
	if ((strncmp(c->endpoint, "http://", 7) && strncmp(c->endpoint, "https://", 8)) || !host[3] ||
	    strpbrk(c->endpoint, "@?# ") || !printable(c->endpoint))
		return gt_error_set(e, GT_EINVAL, -1, -1,
		                    "S3 endpoint %s: not http(s)://HOST[:PORT] (no user, query or spaces)",
		                    c->endpoint);
	if (strspn(c->region, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") !=
	    strlen(c->region))
		return gt_error_set(e, GT_EINVAL, -1, -1, "AWS region '%s': letters, digits, '-' and '_' only",
		                    c->region);
	if (!printable(c->key) || !printable(c->secret) || !printable(c->token))
		return gt_error_set(e, GT_EINVAL, -1, -1,
		                    "AWS credentials from %s hold spaces or bytes outside printable ASCII",
		                    c->source);
	return 0;
}

/* ---- URLs ---- */

int gt_s3_check(const char *url, gt_error *e)
{
	const char *b = url + 5;
	size_t bl = strcspn(b, "/");
	if (bl == 0 || bl > 63)
		return gt_error_set(e, GT_EINVAL, -1, -1, "%s: an S3 URL is s3://BUCKET/KEY (bucket of 1 to "
		                    "63 bytes)", url);
	for (size_t i = 0; i < bl; i++)
		if (!isalnum((unsigned char)b[i]) && !strchr("._-", b[i]))
			return gt_error_set(e, GT_EINVAL, -1, -1,
			                    b[i] == '@' || b[i] == ':'
			                    ? "%s: credentials in a URL are refused; use AWS_ACCESS_KEY_ID or "
			                      "AWS_PROFILE"
			                    : "%s: bucket names are letters, digits, '.', '_' and '-'", url);
	return 0;
}

char *gt_s3_uri_encode(const char *s, int keep_slash)
{
	char *out = gt_xmalloc(3 * strlen(s) + 1), *q = out;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (isalnum(*p) || strchr("-._~", *p) || (keep_slash && *p == '/'))
			*q++ = (char)*p;
		else
			q += sprintf(q, "%%%02X", *p);
	}
	*q = 0;
	return out;
}

/* unescape: s with its %XX escapes decoded (new string) */
static char *unescape(const char *s)
{
	char *out = gt_xmalloc(strlen(s) + 1), *q = out;
	for (; *s; s++) {
		if (s[0] == '%' && isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2])) {
			char h[3] = { s[1], s[2], 0 };
			*q++ = (char)strtol(h, NULL, 16);
			s += 2;
		} else {
			*q++ = *s;
		}
	}
	*q = 0;
	return out;
}

/* key_of: the decoded key of an S3 URL (new string; "" for the bucket) */
static char *key_of(const char *url)
{
	const char *b = url + 5;
	size_t bl = strcspn(b, "/");
	return unescape(b[bl] ? b + bl + 1 : "");
}

/* dns_bucket: 1 if the bucket can be a host name label of a TLS wildcard
 * (3..63 lowercase letters, digits and '-', no dots) */
static int dns_bucket(const char *b, size_t bl)
{
	if (bl < 3 || bl > 63 || b[0] == '-' || b[bl - 1] == '-')
		return 0;
	for (size_t i = 0; i < bl; i++)
		if (!(islower((unsigned char)b[i]) || isdigit((unsigned char)b[i]) || b[i] == '-'))
			return 0;
	return 1;
}

char *gt_s3_http_url(const gt_s3_conf *c, const char *url, const char *query)
{
	const char *b = url + 5;
	size_t bl = strcspn(b, "/");
	char *key = key_of(url), *ek = gt_s3_uri_encode(key, 1);
	size_t n = strlen(c->endpoint) + bl + strlen(ek) + (query ? strlen(query) : 0) + 8;
	char *u = gt_xmalloc(n);
	if (!c->custom && dns_bucket(b, bl)) {
		const char *h = strstr(c->endpoint, "://") + 3;
		snprintf(u, n, "%.*s%.*s.%s/%s", (int)(h - c->endpoint), c->endpoint, (int)bl, b, h, ek);
	} else {
		snprintf(u, n, "%s/%.*s%s%s", c->endpoint, (int)bl, b, *ek ? "/" : "", ek);
	}
	if (query) {
		strcat(u, "?");
		strcat(u, query);
	}
	free(key);
	free(ek);
	return u;
}

/* ---- requests ---- */

/* One operation's requests: the configuration, and what the signing hook
 * adds to each request. */
typedef struct s3op {
	gt_s3_conf conf;
	char sigv4[96];               /* "aws:amz:REGION:s3" */
	char payload[GT_SHA256_HEX];  /* hex sha256 of the request body */
	char denied[256];             /* the word after HTTP 401 and 403 */
	gt_store_http_auth auth;
} s3op;

/* s3_prepare: sign the request (the hook of store_http.c): the bearer
 * token of HTTP stores and the empty Expect header go (libcurl 7.88 would
 * sign a header it does not send), the payload hash and the session token
 * come, libcurl signs. Anonymous requests go unsigned. */
static int s3_prepare(CURL *c, struct curl_slist **hdr, void *ctx, gt_error *e)
{
	s3op *q = ctx;
	struct curl_slist *h = NULL;
	char line[sizeof q->conf.token + 32];
	for (struct curl_slist *l = *hdr; l; l = l->next)
		if (strncasecmp(l->data, "Authorization:", 14) && strncasecmp(l->data, "Expect:", 7))
			h = curl_slist_append(h, l->data);
	curl_slist_free_all(*hdr);
	curl_easy_setopt(c, CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
	if (q->conf.key[0]) {
		snprintf(line, sizeof line, "x-amz-content-sha256: %s", q->payload);
		h = curl_slist_append(h, line);
		if (q->conf.token[0]) {
			snprintf(line, sizeof line, "x-amz-security-token: %s", q->conf.token);
			h = curl_slist_append(h, line);
		}
		curl_easy_setopt(c, CURLOPT_AWS_SIGV4, q->sigv4);
		curl_easy_setopt(c, CURLOPT_USERNAME, q->conf.key);
		curl_easy_setopt(c, CURLOPT_PASSWORD, q->conf.secret);
	}
	*hdr = h;
	return 0;
}

/* s3op_init: the configuration for requests about url (the URL messages
 * name) */
static int s3op_init(s3op *q, const char *url, gt_error *e)
{
	int rc = gt_s3_conf_load(&q->conf, e);
	if (rc)
		return rc;
	snprintf(q->sigv4, sizeof q->sigv4, "aws:amz:%s:s3", q->conf.region);
	memcpy(q->payload, EMPTY_SHA256, sizeof EMPTY_SHA256);
	if (q->conf.key[0])
		snprintf(q->denied, sizeof q->denied,
		         " (check the AWS credentials from %s, the bucket's policy and the clock)",
		         q->conf.source);
	else
		snprintf(q->denied, sizeof q->denied,
		         " (no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
		         "or AWS_PROFILE)");
	q->auth = (gt_store_http_auth){ s3_prepare, q, url, q->denied };
	return 0;
}

static int s3_check(const char *url, gt_error *e)
{
	return gt_s3_check(url, e);
}

static int s3_head(const gt_store_opts *o, const char *url, long long *bytes, gt_error *e)
{
	s3op q;
	int rc = s3op_init(&q, url, e);
	*bytes = -1;
	if (rc)
		return rc;
	char *u = gt_s3_http_url(&q.conf, url, NULL);
	rc = gt_store_http_head(o, &q.auth, u, bytes, e);
	free(u);
	return rc;
}

static int s3_get(const gt_store_opts *o, const char *url, gt_store_sink *s, long long *total,
                  int *keep, gt_error *e)
{
	s3op q;
	int rc = s3op_init(&q, url, e);
	if (rc)
		return rc;
	char *u = gt_s3_http_url(&q.conf, url, NULL);
	rc = gt_store_http_get(o, &q.auth, u, s, total, keep, e);
	free(u);
	return rc;
}

static int s3_put(const gt_store_opts *o, FILE *in, long long n, const char *url, int overwrite,
                  const char *match, int *taken, gt_error *e)
{
	s3op q;
	char cond[GT_STORE_TAG + 16];
	int rc = s3op_init(&q, url, e);
	if (rc || (rc = gt_store_sha256_stream(in, q.payload, NULL, e)) != 0)
		return rc;
	char *u = gt_s3_http_url(&q.conf, url, NULL);
	rc = gt_store_http_put(o, &q.auth, in, n, u, gt_store_http_cond(overwrite, match, cond, sizeof cond),
	                       e);
	free(u);
	if (rc == GT_ECONFLICT) {   /* 412: the condition failed, nothing written */
		*taken = 1;
		rc = 0;
	}
	return rc;
}

/* The bounds of one listing against a server that never stops
 * (gt_store_list): the bytes of one page and of all pages together; the
 * pages are at most max_list / 100 + 1 (a page holds up to 1000 keys). */
#define S3_PAGE_BYTES ((size_t)16 << 20)
#define S3_LIST_BYTES ((long long)512 << 20)

static int s3_list(const gt_store_opts *o, const char *url, gt_store_entry **v, size_t *n,
                   gt_error *e)
{
	s3op q;
	int rc = s3op_init(&q, url, e);
	if (rc)
		return rc;
	const char *b = url + 5;
	size_t bl = strcspn(b, "/");
	char *bucket = gt_xmalloc(bl + 6), *key = key_of(url), *token = NULL;
	snprintf(bucket, bl + 6, "s3://%.*s", (int)bl, b);
	size_t kl = strlen(key);
	char *prefix = gt_xmalloc(kl + 2);
	snprintf(prefix, kl + 2, "%s%s", key, kl && key[kl - 1] != '/' ? "/" : "");
	char *eprefix = gt_s3_uri_encode(prefix, 0);
	long long max_pages = gt_store_max_list(o) / 100 + 1, bytes = 0;
	for (long long page = 0; !rc; page++) {
		char *et = token ? gt_s3_uri_encode(token, 0) : NULL;
		size_t ql = strlen(eprefix) + (et ? strlen(et) : 0) + 96;
		char *query = gt_xmalloc(ql), *next = NULL;
		/* parameters sorted by name, as the canonical request has them */
		snprintf(query, ql, "%s%s%sdelimiter=%%2F&list-type=2&prefix=%s",
		         et ? "continuation-token=" : "", et ? et : "", et ? "&" : "", eprefix);
		char *u = gt_s3_http_url(&q.conf, bucket, query);
		gt_store_mem m;
		long long total = -1;
		int keep = 0;
		gt_store_mem_init(&m, S3_PAGE_BYTES);
		rc = gt_store_http_get(o, &q.auth, u, &m.sink, &total, &keep, e);
		if (rc == GT_ENOTFOUND)
			rc = gt_error_set(e, GT_EIO, -1, -1, "%s: no such bucket (HTTP 404)", bucket);
		else if (rc == GT_ETOOLONG)
			rc = gt_error_set(e, rc, -1, -1, "listing of %s: page %lld is more than %zu bytes; "
			                  "stopped there", url, page + 1, S3_PAGE_BYTES);
		bytes += (long long)m.len;
		if (!rc)
			rc = gt_s3_list_parse(o, m.buf ? m.buf : "", m.len, prefix, v, n, &next, e);
		if (rc == GT_ETOOLONG && strncmp(e->text, "listing of ", 11)) {
			char t[sizeof e->text];
			snprintf(t, sizeof t, "%s", e->text);
			gt_error_set(e, rc, -1, -1, "listing of %s: %s", url, t);
		}
		if (!rc && next && token && !strcmp(next, token))
			rc = gt_error_set(e, GT_EFORMAT, -1, -1, "listing of %s: the same continuation token "
			                  "twice", url);
		if (!rc && next && page + 1 >= max_pages)
			rc = gt_error_set(e, GT_ETOOLONG, -1, -1, "listing of %s: more than %lld pages "
			                  "(--max-list %lld / 100 + 1); stopped there", url, max_pages,
			                  gt_store_max_list(o));
		if (!rc && next && bytes >= S3_LIST_BYTES)
			rc = gt_error_set(e, GT_ETOOLONG, -1, -1, "listing of %s: more than %lld bytes over "
			                  "%lld pages; stopped there", url, S3_LIST_BYTES, page + 1);
		gt_free_all(m.buf, u, query, et, token);
		token = next;
		if (!token)
			break;
	}
	gt_free_all(token, eprefix, prefix, key, bucket);
	return rc;
}

/* ---- ListObjectsV2 answers ---- */

/* What the parser is reading. */
enum { F_NONE, F_KEY, F_SIZE, F_MTIME, F_PREFIX, F_TRUNCATED, F_TOKEN };

typedef struct lp {
	const gt_store_opts *o;
	const char *prefix;
	size_t plen;
	gt_store_entry **v;
	size_t *n;
	int depth, root_ok, in_contents, in_prefixes, field;
	char text[4096];      /* the field's text so far */
	size_t tl;
	int toolong;
	char key[4096];
	long long size, mtime;
	int truncated;
	char *next;
	XML_Parser x;
	int rc;               /* an entry refused the listing (GT_ETOOLONG) */
	gt_error *e;
} lp;

/* add: the full key k of an object (folder 0) or common prefix (1) as an
 * entry named by what follows the listing's prefix */
static void add(lp *p, const char *k, long long size, long long mtime, int folder)
{
	char q[300];
	if (strncmp(k, p->prefix, p->plen)) {
		gt_store_warn(p->o, "listing: key %s is outside the folder; skipped",
		              gt_store_quote(k, q, sizeof q));
		return;
	}
	char *name = gt_xstrdup(k + p->plen);
	size_t l = strlen(name);
	if (folder && l && name[l - 1] == '/')
		name[--l] = 0;
	/* the folder's own marker object, and keys a delimiter should have
	 * rolled up, are no entries of this folder */
	if (l && !strchr(name, '/') && !p->rc &&
	    (p->rc = gt_store_entry_add(p->o, p->v, p->n, name, size, mtime, folder, p->e)) != 0)
		XML_StopParser(p->x, XML_FALSE);
	free(name);
}

static long long parse_size(const char *s)
{
	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 18)
		return -1;
	return strtoll(s, NULL, 10);
}

/* parse_time: ISO 8601 "2026-01-02T03:04:05.000Z" as seconds since the
 * epoch, -1 if it is not one */
static long long parse_time(const char *s)
{
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
	           &tm.tm_min, &tm.tm_sec) != 6)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (long long)timegm(&tm);
}

static void XMLCALL on_start(void *ud, const XML_Char *el, const XML_Char **attr)
{
	lp *p = ud;
	p->depth++;
	p->field = F_NONE;
	p->tl = 0;
	p->toolong = 0;
	if (p->depth == 1) {
		p->root_ok = !strcmp(el, "ListBucketResult");
	} else if (p->depth == 2) {
		p->in_contents = !strcmp(el, "Contents");
		p->in_prefixes = !strcmp(el, "CommonPrefixes");
		if (p->in_contents) {
			p->key[0] = 0;
			p->size = p->mtime = -1;
		}
		if (!strcmp(el, "IsTruncated"))
			p->field = F_TRUNCATED;
		else if (!strcmp(el, "NextContinuationToken"))
			p->field = F_TOKEN;
	} else if (p->depth == 3 && p->in_contents) {
		p->field = !strcmp(el, "Key") ? F_KEY : !strcmp(el, "Size") ? F_SIZE
		           : !strcmp(el, "LastModified") ? F_MTIME : F_NONE;
	} else if (p->depth == 3 && p->in_prefixes && !strcmp(el, "Prefix")) {
		p->field = F_PREFIX;
	}
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
	lp *p = ud;
	if (p->field == F_NONE)
		return;
	if (p->tl + (size_t)len >= sizeof p->text) {
		p->toolong = 1;
		return;
	}
	memcpy(p->text + p->tl, s, (size_t)len);
	p->tl += (size_t)len;
}

static void XMLCALL on_end(void *ud, const XML_Char *el)
{
	lp *p = ud;
	p->text[p->tl] = 0;
	if (p->toolong && p->field != F_NONE) {
		gt_store_warn(p->o, "listing: a %s longer than %zu bytes; skipped", el, sizeof p->text - 1);
		p->text[0] = 0;
		if (p->field == F_KEY)
			p->key[0] = 0;
		p->field = F_NONE;
	}
	switch (p->field) {
	case F_KEY: memcpy(p->key, p->text, p->tl + 1); break;
	case F_SIZE: p->size = parse_size(p->text); break;
	case F_MTIME: p->mtime = parse_time(p->text); break;
	case F_PREFIX: if (p->tl) add(p, p->text, -1, -1, 1); break;
	case F_TRUNCATED: p->truncated = !strcmp(p->text, "true"); break;
	case F_TOKEN: free(p->next); p->next = p->tl ? gt_xstrdup(p->text) : NULL; break;
	}
	p->field = F_NONE;
	p->tl = 0;
	if (p->depth == 2 && p->in_contents && p->key[0])
		add(p, p->key, p->size, p->mtime, 0);
	if (p->depth == 2)
		p->in_contents = p->in_prefixes = 0;
	p->depth--;
}

int gt_s3_list_parse(const gt_store_opts *o, const char *xml, size_t len, const char *prefix,
                     gt_store_entry **v, size_t *n, char **next, gt_error *e)
{
	lp p = { .o = o, .prefix = prefix, .plen = strlen(prefix), .v = v, .n = n, .e = e };
	XML_Parser x = XML_ParserCreate(NULL);
	int rc = 0;
	*next = NULL;
	if (!x)
		gt_xmalloc((size_t)-1);
	p.x = x;
	XML_SetUserData(x, &p);
	XML_SetElementHandler(x, on_start, on_end);
	XML_SetCharacterDataHandler(x, on_text);
	if (len > (size_t)1 << 30)
		rc = gt_error_set(e, GT_ETOOLONG, -1, -1, "listing: a page of more than 1 GiB");
	else if (XML_Parse(x, xml, (int)len, 1) == XML_STATUS_ERROR)
		rc = p.rc ? p.rc : gt_error_set(e, GT_EFORMAT, (long)XML_GetCurrentLineNumber(x),
		                  (long)XML_GetCurrentByteIndex(x), "listing: XML error at line %lu: %s",
		                  (unsigned long)XML_GetCurrentLineNumber(x),
		                  XML_ErrorString(XML_GetErrorCode(x)));
	else if (!p.root_ok)
		rc = gt_error_set(e, GT_EFORMAT, 1, 0, "listing: not a ListBucketResult");
	else if (p.truncated && !p.next)
		rc = gt_error_set(e, GT_EFORMAT, -1, -1, "listing: truncated without a continuation token");
	XML_ParserFree(x);
	if (!rc && p.truncated)
		*next = p.next;
	else
		free(p.next);
	return rc;
}

const gt_store_scheme gt_store_scheme_s3 = {
	.name = "s3", .escape = 1, .check = s3_check,
	.head = s3_head, .get = s3_get, .put = s3_put, .list = s3_list,
};
