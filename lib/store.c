/* store.c: get, put and list over the URL schemes of store_scheme.h. */
#include "store_scheme.h"
#include "fs.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void gt_store_opts_init(gt_store_opts *o)
{
	*o = (gt_store_opts){ .retries = 5, .timeout_s = 300, .connect_timeout_s = 10,
	                      .backoff_s = 0.5 };
}

void gt_store_opts_env(gt_store_opts *o)
{
	const char *t = getenv("GT_STORE_TOKEN"), *i = getenv("GT_STORE_INSECURE_TOKEN");
	o->token = t && *t ? t : NULL;
	o->insecure_token = i && !strcmp(i, "1");
}

void gt_store_warn(const gt_store_opts *o, const char *fmt, ...)
{
	va_list ap;
	if (!o)
		return;
	va_start(ap, fmt);
	gt_vwarnf(o->warn, o->warn_ctx, fmt, ap);
	va_end(ap);
}

const char *gt_store_quote(const char *s, char *buf, size_t size)
{
	size_t k = 0;
	buf[k++] = '"';
	for (; *s && k + 6 < size; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			buf[k++] = '\\';
			buf[k++] = (char)c;
		} else if (c == '\n') {
			buf[k++] = '\\';
			buf[k++] = 'n';
		} else if (c < 0x20 || c == 0x7f) {
			k += (size_t)snprintf(buf + k, size - k, "\\x%02x", c);
		} else {
			buf[k++] = (char)c;
		}
	}
	buf[k++] = '"';
	buf[k] = 0;
	return buf;
}

static const char WHY_HIDDEN[] = "starts with '.'";

int gt_store_name_ok(const char *name, const char **why)
{
	const char *w = NULL;
	if (!name || !*name)
		w = "empty";
	else if (strlen(name) > 255)
		w = "longer than 255 bytes";
	else if (strstr(name, ".."))
		w = "contains \"..\"";
	else if (name[0] == '/')
		w = "starts with '/'";
	else if (strchr(name, '/') || strchr(name, '\\'))
		w = "contains a path separator";
	else {
		for (const unsigned char *p = (const unsigned char *)name; *p; p++)
			if (*p < 0x20 || *p == 0x7f) {
				w = "contains a control character";
				break;
			}
		if (!w && name[0] == '.')
			w = WHY_HIDDEN;
	}
	if (why)
		*why = w;
	return w == NULL;
}

/* ---- URLs ---- */

/* The schemes by URL prefix; a URL without "://" is a local path. */
static const struct {
	const char *prefix;
	const gt_store_scheme *scheme;
} schemes[] = {
	{ "file://", &gt_store_scheme_local },
	{ "http://", &gt_store_scheme_http },
	{ "https://", &gt_store_scheme_http },
	{ "s3://", &gt_store_scheme_s3 },
};

static const gt_store_scheme *scheme_by_prefix(const char *url)
{
	for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++)
		if (!strncmp(url, schemes[i].prefix, strlen(schemes[i].prefix)))
			return schemes[i].scheme;
	return strstr(url, "://") ? NULL : &gt_store_scheme_local;
}

int gt_store_scheme_of(const char *url, const gt_store_scheme **sc, gt_error *e)
{
	*sc = NULL;
	if (!url || !*url)
		return gt_error_set(e, GT_EINVAL, -1, -1, "empty store URL");
	const gt_store_scheme *s = scheme_by_prefix(url);
	if (!s)
		return gt_error_set(e, GT_EUNSUPPORTED, -1, -1, "unsupported store URL scheme: %s", url);
	int rc = s->check ? s->check(url, e) : 0;
	if (!rc)
		*sc = s;
	return rc;
}

int gt_store_local_path(const char *url, char **path, gt_error *e)
{
	const gt_store_scheme *sc;
	int rc = gt_store_scheme_of(url, &sc, e);
	*path = !rc && sc->path ? sc->path(url) : NULL;
	return rc;
}

char *gt_store_join(const char *base, const char *name)
{
	const gt_store_scheme *sc = scheme_by_prefix(base);
	int escape = sc && sc->escape;
	size_t bl = strlen(base), k = 0;
	char *s = gt_xmalloc(bl + 1 + 3 * strlen(name) + 1);
	memcpy(s, base, bl);
	k = bl;
	if (bl == 0 || base[bl - 1] != '/')
		s[k++] = '/';
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (escape && !(isalnum(*p) || strchr("-._~/", *p)))
			k += (size_t)sprintf(s + k, "%%%02X", *p);
		else
			s[k++] = (char)*p;
	}
	s[k] = 0;
	return s;
}

const char *gt_store_basename(const char *url)
{
	const char *s = strrchr(url, '/');
	return s ? s + 1 : url;
}

/* ---- sha256 ---- */

int gt_store_sha256_stream(FILE *f, char hex[GT_SHA256_HEX], long long *bytes, gt_error *e)
{
	unsigned char buf[65536], d[32];
	long long n = 0;
	size_t k;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	if (!c)
		gt_xmalloc((size_t)-1);
	EVP_DigestInit_ex(c, EVP_sha256(), NULL);
	rewind(f);
	while ((k = fread(buf, 1, sizeof buf, f)) > 0) {
		EVP_DigestUpdate(c, buf, k);
		n += (long long)k;
	}
	EVP_DigestFinal_ex(c, d, NULL);
	EVP_MD_CTX_free(c);
	if (ferror(f))
		return gt_error_set(e, GT_EIO, -1, n, "read error: %s", strerror(errno));
	gt_hex(hex, d, 32);
	if (bytes)
		*bytes = n;
	return 0;
}

int gt_store_sha256_file(const char *path, char hex[GT_SHA256_HEX], long long *bytes, gt_error *e)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return gt_error_set(e, errno == ENOENT ? GT_ENOTFOUND : GT_EIO, -1, -1,
		                    "%s: %s", path, strerror(errno));
	int r = gt_store_sha256_stream(f, hex, bytes, e);
	fclose(f);
	return r;
}

int gt_store_sha256_ok(const char *s, char out[GT_SHA256_HEX])
{
	if (!s || strlen(s) != 64)
		return 0;
	for (int i = 0; i < 64; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return 0;
		out[i] = (char)tolower((unsigned char)s[i]);
	}
	out[64] = 0;
	return 1;
}

/* ---- sinks ---- */

/* past_max: GT_ETOOLONG when n more bytes after the first have would run
 * past the sink's max, else 0. */
static int past_max(const gt_store_sink *s, long long have, size_t n, gt_error *e)
{
	if (s->max < 0 || have + (long long)n <= s->max)
		return 0;
	return gt_error_set(e, GT_ETOOLONG, -1, -1, "more than the %lld bytes expected; stopped there",
	                    s->max);
}

/* A download into a file opened r+b that may hold the start of the object
 * from an earlier try: resumed if the source can (the object's ETag, kept
 * in etag_path, must not have changed), else rewritten. */
typedef struct file_sink {
	gt_store_sink sink;
	FILE *f;
	const char *name;
	const char *etag_path;
	long long at;         /* bytes of the object in f */
} file_sink;

static int file_resume(gt_store_sink *sk, int restart, long long *from, char *validator,
                       size_t size, gt_error *e)
{
	file_sink *s = (file_sink *)sk;
	struct stat st;
	fflush(s->f);
	if (fstat(fileno(s->f), &st) < 0)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", s->name, strerror(errno));
	if (sk->max >= 0 && st.st_size > sk->max)
		restart = 1;          /* more than the object may have: not of it */
	if (restart && ftruncate(fileno(s->f), 0) < 0)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", s->name, strerror(errno));
	*from = restart ? 0 : st.st_size;
	validator[0] = 0;
	FILE *t = *from > 0 ? fopen(s->etag_path, "r") : NULL;
	if (t) {
		if (!fgets(validator, (int)size, t))
			validator[0] = 0;
		validator[strcspn(validator, "\r\n")] = 0;
		fclose(t);
	}
	return 0;
}

static int file_start(gt_store_sink *sk, long long at, const char *validator, gt_error *e)
{
	file_sink *s = (file_sink *)sk;
	s->at = at;
	if (at > 0) {
		fseeko(s->f, 0, SEEK_END);
		return 0;
	}
	fflush(s->f);
	if (ftruncate(fileno(s->f), 0) < 0)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", s->name, strerror(errno));
	rewind(s->f);
	FILE *t = validator[0] ? fopen(s->etag_path, "w") : NULL;
	if (t) {
		fprintf(t, "%s\n", validator);
		fclose(t);
	} else {
		unlink(s->etag_path);
	}
	return 0;
}

static int file_write(gt_store_sink *sk, const char *p, size_t n, gt_error *e)
{
	file_sink *s = (file_sink *)sk;
	int rc = past_max(sk, s->at, n, e);
	if (rc)
		return rc;
	if (fwrite(p, 1, n, s->f) != n)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", s->name, strerror(errno));
	s->at += (long long)n;
	return 0;
}

/* An output stream: a resumed answer goes on where the last one broke off,
 * a whole one has the bytes already written dropped. */
typedef struct stream_sink {
	gt_store_sink sink;
	FILE *f;
	long long written;
	long long skip;       /* bytes of this answer to drop */
} stream_sink;

static int stream_resume(gt_store_sink *sk, int restart, long long *from, char *validator,
                         size_t size, gt_error *e)
{
	*from = ((stream_sink *)sk)->written;
	validator[0] = 0;
	return 0;
}

static int stream_start(gt_store_sink *sk, long long at, const char *validator, gt_error *e)
{
	stream_sink *s = (stream_sink *)sk;
	s->skip = s->written - at;
	return 0;
}

static int stream_write(gt_store_sink *sk, const char *p, size_t n, gt_error *e)
{
	stream_sink *s = (stream_sink *)sk;
	if (s->skip > 0) {
		size_t d = (long long)n < s->skip ? n : (size_t)s->skip;
		s->skip -= (long long)d;
		p += d;
		n -= d;
	}
	int rc = past_max(sk, s->written, n, e);
	if (rc)
		return rc;
	if (n && fwrite(p, 1, n, s->f) != n)
		return gt_error_set(e, GT_EIO, -1, -1, "write error: %s", strerror(errno));
	s->written += (long long)n;
	return 0;
}

/* Memory and digest sinks start over on every answer. */
static int whole_resume(gt_store_sink *sk, int restart, long long *from, char *validator,
                        size_t size, gt_error *e)
{
	*from = 0;
	validator[0] = 0;
	return 0;
}

static int mem_start(gt_store_sink *sk, long long at, const char *validator, gt_error *e)
{
	((gt_store_mem *)sk)->len = 0;
	return 0;
}

static int mem_write(gt_store_sink *sk, const char *p, size_t n, gt_error *e)
{
	gt_store_mem *m = (gt_store_mem *)sk;
	if (m->len + n > m->max)
		return gt_error_set(e, GT_ETOOLONG, -1, -1, "object larger than %zu bytes", m->max);
	if (m->len + n + 1 > m->cap) {
		m->cap = (m->len + n + 1) * 2;
		m->buf = gt_xrealloc(m->buf, m->cap);
	}
	memcpy(m->buf + m->len, p, n);
	m->len += n;
	m->buf[m->len] = 0;
	return 0;
}

void gt_store_mem_init(gt_store_mem *m, size_t max)
{
	memset(m, 0, sizeof *m);
	m->sink = (gt_store_sink){ whole_resume, mem_start, mem_write, (long long)max };
	m->max = max;
}

typedef struct hash_sink {
	gt_store_sink sink;
	EVP_MD_CTX *c;
	long long n;
} hash_sink;

static int hash_start(gt_store_sink *sk, long long at, const char *validator, gt_error *e)
{
	hash_sink *h = (hash_sink *)sk;
	EVP_DigestInit_ex(h->c, EVP_sha256(), NULL);
	h->n = 0;
	return 0;
}

static int hash_write(gt_store_sink *sk, const char *p, size_t n, gt_error *e)
{
	hash_sink *h = (hash_sink *)sk;
	int rc = past_max(sk, h->n, n, e);
	if (rc)
		return rc;
	EVP_DigestUpdate(h->c, p, n);
	h->n += (long long)n;
	return 0;
}

/* ---- get ---- */

int gt_store_get_validated(const gt_store_opts *o, const char *url, const char *path,
                           const char *sha256, long long bytes, gt_store_validate_fn validate,
                           void *vctx, char got_sha[GT_SHA256_HEX], gt_error *e)
{
	char want[GT_SHA256_HEX], have[GT_SHA256_HEX];
	if (sha256 && !gt_store_sha256_ok(sha256, want))
		return gt_error_set(e, GT_EINVAL, -1, -1, "not a sha256 (64 hex digits): %s", sha256);
	const gt_store_scheme *sc;
	int rc = gt_store_scheme_of(url, &sc, e);
	if (rc)
		return rc;
	const char *name = gt_store_basename(path);
	if (!*name)
		return gt_error_set(e, GT_EINVAL, -1, -1, "no file name in %s", path);
	size_t tl = strlen(path) + 16;
	char *tmp = gt_xmalloc(tl);
	snprintf(tmp, tl, "%.*s.%s.part", (int)(name - path), path, name);
	char *etag = gt_xmalloc(tl + 5);
	snprintf(etag, tl + 5, "%s.etag", tmp);

	int keep_tmp = 0;
	int fd = open(tmp, O_RDWR | O_CREAT, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "r+b") : NULL;
	long long total = -1;
	if (!f) {
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(tmp);
		free(etag);
		return rc;
	}
	file_sink s = { { file_resume, file_start, file_write, bytes >= 0 ? bytes : -1 }, f, tmp, etag, 0 };
	rc = sc->get(o, url, &s.sink, &total, &keep_tmp, e);
	struct stat pst;
	if (rc && keep_tmp && fflush(f) == 0 && fstat(fileno(f), &pst) == 0 && pst.st_size == 0)
		keep_tmp = 0;         /* nothing came to resume from */
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		if (!rc)
			rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", tmp, strerror(errno));
	long long got = -1;
	if (!rc)
		rc = gt_store_sha256_stream(f, have, &got, e);
	fclose(f);
	if (!rc && total >= 0 && got != total)
		rc = gt_error_set(e, GT_ECHECKSUM, -1, -1, "%s: got %lld bytes, the server announced %lld",
		                  url, got, total);
	if (!rc && bytes >= 0 && got != bytes)
		rc = gt_error_set(e, got > bytes ? GT_ETOOLONG : GT_ECHECKSUM, -1, -1,
		                  "%s: %lld bytes, expected %lld", url, got, bytes);
	if (!rc && sha256 && strcmp(have, want))
		rc = gt_error_set(e, GT_ECHECKSUM, -1, -1, "%s: sha256 %s, expected %s", url, have, want);
	if (!rc && validate)
		rc = validate(tmp, vctx, e);
	if (!rc && rename(tmp, path) < 0)
		rc = gt_error_set(e, GT_EIO, -1, -1, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
	if (!rc) {
		gt_fs_sync_parent(path);
		if (got_sha)
			memcpy(got_sha, have, GT_SHA256_HEX);
	} else if (!keep_tmp) {
		unlink(tmp);
	}
	if (!rc || !keep_tmp)
		unlink(etag);
	free(etag);
	free(tmp);
	return rc;
}

int gt_store_get(const gt_store_opts *o, const char *url, const char *path,
                 const char *sha256, long long bytes, char got_sha[GT_SHA256_HEX],
                 gt_error *e)
{
	return gt_store_get_validated(o, url, path, sha256, bytes, NULL, NULL, got_sha, e);
}

int gt_store_get_stream(const gt_store_opts *o, const char *url, FILE *out, long long max,
                        gt_error *e)
{
	const gt_store_scheme *sc;
	stream_sink s = { { stream_resume, stream_start, stream_write, max >= 0 ? max : -1 }, out, 0, 0 };
	long long total = -1;
	int keep = 0, rc = gt_store_scheme_of(url, &sc, e);
	if (!rc)
		rc = sc->get(o, url, &s.sink, &total, &keep, e);
	if (!rc && total >= 0 && s.written != total)
		rc = gt_error_set(e, GT_ECHECKSUM, -1, -1, "%s: byte count differs from Content-Length", url);
	return rc;
}

int gt_store_get_mem(const gt_store_opts *o, const char *url, size_t max,
                     char **buf, size_t *len, gt_error *e)
{
	const gt_store_scheme *sc;
	gt_store_mem m;
	long long total = -1;
	int keep = 0, rc = gt_store_scheme_of(url, &sc, e);
	*buf = NULL;
	*len = 0;
	gt_store_mem_init(&m, max);
	if (!rc)
		rc = sc->get(o, url, &m.sink, &total, &keep, e);
	if (rc) {
		free(m.buf);
		return rc;
	}
	if (!m.buf)
		m.buf = gt_xcalloc(1, 1);
	*buf = m.buf;
	*len = m.len;
	return 0;
}

int gt_store_get_json(const gt_store_opts *o, const char *url, size_t max, json_t **j,
                      gt_error *e)
{
	char *buf;
	size_t len;
	json_error_t je;
	int rc = gt_store_get_mem(o, url, max, &buf, &len, e);
	*j = NULL;
	if (rc)
		return rc == GT_ENOTFOUND ? 0 : rc;
	*j = json_loadb(buf, len, 0, &je);
	free(buf);
	if (!*j)
		return gt_error_set(e, GT_EFORMAT, je.line, je.position, "%s: %s", url, je.text);
	return 0;
}

/* A memory sink that keeps the validator of the answer. */
typedef struct tagged_sink {
	gt_store_mem m;
	char validator[GT_STORE_TAG];
} tagged_sink;

static int tagged_start(gt_store_sink *sk, long long at, const char *validator, gt_error *e)
{
	tagged_sink *t = (tagged_sink *)sk;
	snprintf(t->validator, sizeof t->validator, "%s", validator);
	return mem_start(sk, at, validator, e);
}

void gt_store_tag_of(const char *validator, const char *sha256_hex, char tag[GT_STORE_TAG])
{
	if (validator && *validator)
		snprintf(tag, GT_STORE_TAG, "%s", validator);
	else
		snprintf(tag, GT_STORE_TAG, "sha256:%s", sha256_hex);
}

int gt_store_get_tagged(const gt_store_opts *o, const char *url, size_t max, char **buf,
                        size_t *len, char tag[GT_STORE_TAG], gt_error *e)
{
	const gt_store_scheme *sc;
	tagged_sink t = { .validator = "" };
	long long total = -1;
	int keep = 0, rc = gt_store_scheme_of(url, &sc, e);
	*buf = NULL;
	*len = 0;
	tag[0] = 0;
	gt_store_mem_init(&t.m, max);
	t.m.sink.start = tagged_start;
	if (!rc)
		rc = sc->get(o, url, &t.m.sink, &total, &keep, e);
	if (rc) {
		free(t.m.buf);
		return rc == GT_ENOTFOUND ? 0 : rc;
	}
	if (!t.m.buf)
		t.m.buf = gt_xcalloc(1, 1);
	unsigned char d[32];
	char hex[GT_SHA256_HEX];
	EVP_Digest(t.m.buf, t.m.len, d, NULL, EVP_sha256(), NULL);
	gt_hex(hex, d, 32);
	gt_store_tag_of(t.validator, hex, tag);
	*buf = t.m.buf;
	*len = t.m.len;
	return 0;
}

/* ---- put ---- */

static int differs(const char *url, long long theirs, long long ours, gt_error *e)
{
	return gt_error_set(e, GT_ECHECKSUM, -1, -1,
	                    "%s exists with different content (%lld bytes there, %lld here); "
	                    "objects are immutable", url, theirs, ours);
}

/* same_object: whether url holds the n bytes of digest sha: 0 if so
 * (*existed = 1), GT_ECHECKSUM if it holds others, GT_ENOTFOUND if none. */
static int same_object(const gt_store_opts *o, const gt_store_scheme *sc, const char *url,
                       const char *sha, long long n, int *existed, gt_error *e)
{
	long long theirs = -1, total = -1;
	int keep = 0, rc = sc->head(o, url, &theirs, e);
	if (rc)
		return rc;
	if (theirs >= 0 && theirs != n)
		return differs(url, theirs, n, e);
	hash_sink h = { { whole_resume, hash_start, hash_write, n }, EVP_MD_CTX_new(), 0 };
	unsigned char d[32];
	char hex[GT_SHA256_HEX];
	if (!h.c)
		gt_xmalloc((size_t)-1);
	EVP_DigestInit_ex(h.c, EVP_sha256(), NULL);
	rc = sc->get(o, url, &h.sink, &total, &keep, e);
	EVP_DigestFinal_ex(h.c, d, NULL);
	EVP_MD_CTX_free(h.c);
	if (rc == GT_ETOOLONG)     /* more bytes there than here */
		return differs(url, theirs, n, e);
	if (rc)
		return rc;
	gt_hex(hex, d, 32);
	if (h.n != n || strcmp(hex, sha))
		return differs(url, h.n, n, e);
	*existed = 1;
	return 0;
}

int gt_store_put(const gt_store_opts *o, FILE *in, const char *url, int overwrite,
                 int *existed, gt_error *e)
{
	const gt_store_scheme *sc;
	char sha[GT_SHA256_HEX];
	long long n;
	int dummy, taken = 0;
	if (!existed)
		existed = &dummy;
	*existed = 0;
	int rc = gt_store_scheme_of(url, &sc, e);
	if (rc || (rc = gt_store_sha256_stream(in, sha, &n, e)) != 0)
		return rc;
	if (!*gt_store_basename(url))
		return gt_error_set(e, GT_EINVAL, -1, -1, "no object name in %s", url);
	if (!overwrite && (rc = same_object(o, sc, url, sha, n, existed, e)) != GT_ENOTFOUND)
		return rc;
	rc = sc->put(o, in, n, url, overwrite, NULL, &taken, e);
	if (!rc && taken)          /* created meanwhile by someone else */
		rc = same_object(o, sc, url, sha, n, existed, e);
	return rc;
}

/* conflict: the GT_ECONFLICT of gt_store_replace */
static int conflict(const char *url, const char *tag, const char *now, gt_error *e)
{
	return gt_error_set(e, GT_ECONFLICT, -1, -1, "%s %s since it was read; not overwritten", url,
	                    !*tag ? "appeared" : !*now ? "went away" : "changed");
}

int gt_store_replace(const gt_store_opts *o, const void *buf, size_t len, const char *url,
                     const char *tag, gt_error *e)
{
	const gt_store_scheme *sc;
	char now[GT_STORE_TAG], *old = NULL;
	size_t olen;
	int taken = 0, rc = gt_store_scheme_of(url, &sc, e);
	if (rc)
		return rc;
	if (!*gt_store_basename(url))
		return gt_error_set(e, GT_EINVAL, -1, -1, "no object name in %s", url);
	/* what a server that ignores the condition leaves to the client */
	if ((rc = gt_store_get_tagged(o, url, (size_t)1 << 30, &old, &olen, now, e)) != 0)
		return rc;
	free(old);
	if (strcmp(now, tag))
		return conflict(url, tag, now, e);
	FILE *f = tmpfile();
	if (!f)
		return gt_error_set(e, GT_EIO, -1, -1, "temporary file: %s", strerror(errno));
	if (fwrite(buf, 1, len, f) != len || fflush(f) != 0)
		rc = gt_error_set(e, GT_EIO, -1, -1, "temporary file: %s", strerror(errno));
	else
		rc = sc->put(o, f, (long long)len, url, *tag != 0, *tag ? tag : NULL, &taken, e);
	fclose(f);
	if (!rc && taken) {
		/* refused (412): another writer came first, or this very put was
		 * taken, its answer lost and the retry refused; the object read
		 * back tells which */
		char *back = NULL, t[GT_STORE_TAG];
		size_t blen = 0;
		gt_error be = {0};
		int same = gt_store_get_tagged(o, url, len + 1, &back, &blen, t, &be) == 0 && back &&
		           blen == len && !memcmp(back, buf, len);
		free(back);
		rc = same ? 0 : conflict(url, tag, "?", e);
	}
	return rc;
}

int gt_store_put_mem(const gt_store_opts *o, const void *buf, size_t len, const char *url,
                     int overwrite, int *existed, gt_error *e)
{
	FILE *f = tmpfile();
	int rc;
	if (!f)
		return gt_error_set(e, GT_EIO, -1, -1, "temporary file: %s", strerror(errno));
	if (fwrite(buf, 1, len, f) != len || fflush(f) != 0)
		rc = gt_error_set(e, GT_EIO, -1, -1, "temporary file: %s", strerror(errno));
	else
		rc = gt_store_put(o, f, url, overwrite, existed, e);
	fclose(f);
	return rc;
}

int gt_store_put_file(const gt_store_opts *o, const char *path, const char *url, int overwrite,
                      int *existed, gt_error *e)
{
	const char *why, *name = gt_store_basename(path);
	char *target = NULL;
	int rc;
	FILE *f = fopen(path, "rb");
	if (!f)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
	if (*gt_store_basename(url))
		target = gt_xstrdup(url);
	else if (gt_store_name_ok(name, &why))
		target = gt_store_join(url, name);
	if (target)
		rc = gt_store_put(o, f, target, overwrite, existed, e);
	else
		rc = gt_error_set(e, GT_EINVAL, -1, -1, "%s: not usable as an object name (%s)", path, why);
	fclose(f);
	free(target);
	return rc;
}

/* ---- listing ---- */

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const gt_store_entry *)a)->name, ((const gt_store_entry *)b)->name);
}

void gt_store_entries_free(gt_store_entry *ents, size_t n)
{
	for (size_t i = 0; ents && i < n; i++)
		free(ents[i].name);
	free(ents);
}

long long gt_store_max_list(const gt_store_opts *o)
{
	return o && o->max_list > 0 ? o->max_list : GT_STORE_MAX_LIST;
}

int gt_store_entry_add(const gt_store_opts *o, gt_store_entry **v, size_t *n, const char *name,
                       long long bytes, long long mtime, int folder, gt_error *e)
{
	const char *why;
	char q[300];
	if (!gt_store_name_ok(name, &why)) {
		if (why != WHY_HIDDEN)
			gt_store_warn(o, "refusing listed name %s: %s", gt_store_quote(name, q, sizeof q), why);
		return 0;
	}
	if ((long long)*n >= gt_store_max_list(o))
		return gt_error_set(e, GT_ETOOLONG, -1, -1, "more than %lld entries (--max-list); "
		                    "stopped there", gt_store_max_list(o));
	if (*n == 0 || (*n >= 16 && (*n & (*n - 1)) == 0))
		*v = gt_xrealloc(*v, (*n < 16 ? 16 : 2 * *n) * sizeof **v);
	(*v)[*n].name = gt_xstrdup(name);
	(*v)[*n].bytes = bytes;
	(*v)[*n].mtime = mtime;
	(*v)[*n].folder = folder != 0;
	(*n)++;
	return 0;
}

/* sorted: v by name, never NULL; with files_only the folders dropped */
static gt_store_entry *sorted(gt_store_entry *v, size_t *n, int files_only)
{
	size_t k = 0;
	if (!v)
		return gt_xcalloc(1, sizeof *v);
	for (size_t i = 0; i < *n; i++) {
		if (files_only && v[i].folder)
			free(v[i].name);
		else
			v[k++] = v[i];
	}
	*n = k;
	qsort(v, k, sizeof *v, entry_cmp);
	return v;
}

int gt_store_parse_listing(const gt_store_opts *o, const char *json, size_t len,
                           gt_store_entry **ents, size_t *n, gt_error *e)
{
	gt_store_entry *v = NULL;
	size_t k = 0;
	int rc = gt_store_listing_add(o, json, len, &v, &k, e);
	*ents = NULL;
	*n = 0;
	if (rc) {
		gt_store_entries_free(v, k);
		return rc;
	}
	*ents = sorted(v, &k, 1);
	*n = k;
	return 0;
}

int gt_store_listing_add(const gt_store_opts *o, const char *json, size_t len,
                         gt_store_entry **v, size_t *k, gt_error *e)
{
	json_error_t je;
	json_t *a = json_loadb(json, len, 0, &je);
	if (!a)
		return gt_error_set(e, GT_EFORMAT, je.line, je.position, "listing: %s", je.text);
	if (!json_is_array(a)) {
		json_decref(a);
		return gt_error_set(e, GT_EFORMAT, 1, 0, "listing is not a JSON array");
	}
	int rc = 0;
	for (size_t i = 0; i < json_array_size(a) && !rc; i++) {
		json_t *it = json_array_get(a, i);
		const char *name = json_string_value(json_object_get(it, "name"));
		const char *type = json_string_value(json_object_get(it, "type"));
		json_t *size = json_object_get(it, "size");
		const char *mt = json_string_value(json_object_get(it, "mtime"));
		if (!name) {
			gt_store_warn(o, "listing entry %zu has no name; skipped", i + 1);
			continue;
		}
		int folder = type && !strcmp(type, "directory");
		if (type && strcmp(type, "file") && !folder)
			continue;
		rc = gt_store_entry_add(o, v, k, name,
		                        json_is_integer(size) ? (long long)json_integer_value(size) : -1,
		                        mt ? (long long)curl_getdate(mt, NULL) : -1, folder, e);
	}
	json_decref(a);
	return rc;
}

/* list: gt_store_list and gt_store_list_all */
static int list(const gt_store_opts *o, const char *url, int files_only, gt_store_entry **ents,
                size_t *n, gt_error *e)
{
	const gt_store_scheme *sc;
	gt_store_entry *v = NULL;
	size_t k = 0;
	*ents = NULL;
	*n = 0;
	int rc = gt_store_scheme_of(url, &sc, e);
	if (!rc)
		rc = sc->list(o, url, &v, &k, e);
	if (rc == GT_ETOOLONG && e && strncmp(e->text, "listing of ", 11)) {
		char t[sizeof e->text];
		snprintf(t, sizeof t, "%s", e->text);
		gt_error_set(e, rc, -1, -1, "listing of %s: %s", url, t);
	}
	if (rc) {
		gt_store_entries_free(v, k);
		return rc;
	}
	*ents = sorted(v, &k, files_only);
	*n = k;
	return 0;
}

int gt_store_list(const gt_store_opts *o, const char *url, gt_store_entry **ents,
                  size_t *n, gt_error *e)
{
	return list(o, url, 1, ents, n, e);
}

int gt_store_list_all(const gt_store_opts *o, const char *url, gt_store_entry **ents,
                      size_t *n, gt_error *e)
{
	return list(o, url, 0, ents, n, e);
}
