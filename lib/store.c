/* store.c: get, put and list over the URL schemes of store_scheme.h, and
 * latest and pull. */
#include "store_scheme.h"
#include "sign.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

void gt_store_opts_init(gt_store_opts *o)
{
	memset(o, 0, sizeof *o);
	o->retries = 5;
	o->timeout_s = 300;
	o->connect_timeout_s = 10;
	o->backoff_s = 0.5;
}

void gt_store_warn(const gt_store_opts *o, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	if (!o || !o->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	o->warn(o->warn_ctx, buf);
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

static void hexify(const unsigned char *d, char hex[GT_SHA256_HEX])
{
	for (int i = 0; i < 32; i++)
		sprintf(hex + 2 * i, "%02x", d[i]);
	hex[64] = 0;
}

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
	hexify(d, hex);
	if (bytes)
		*bytes = n;
	return 0;
}

static int sha256_path(const char *path, char hex[GT_SHA256_HEX], long long *bytes, gt_error *e)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return gt_error_set(e, errno == ENOENT ? GT_ENOTFOUND : GT_EIO, -1, -1,
		                    "%s: %s", path, strerror(errno));
	int r = gt_store_sha256_stream(f, hex, bytes, e);
	fclose(f);
	return r;
}

/* hex_ok: 64 hex digits; copies them lowercased into out. */
static int hex_ok(const char *s, char out[GT_SHA256_HEX])
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

/* A download into a file opened r+b that may hold the start of the object
 * from an earlier try: resumed if the source can (the object's ETag, kept
 * in etag_path, must not have changed), else rewritten. */
typedef struct file_sink {
	gt_store_sink sink;
	FILE *f;
	const char *name;
	const char *etag_path;
} file_sink;

static int file_resume(gt_store_sink *sk, int restart, long long *from, char *validator,
                       size_t size, gt_error *e)
{
	file_sink *s = (file_sink *)sk;
	struct stat st;
	if (restart && ftruncate(fileno(s->f), 0) < 0)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", s->name, strerror(errno));
	fflush(s->f);
	if (fstat(fileno(s->f), &st) < 0)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", s->name, strerror(errno));
	*from = st.st_size;
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
	if (fwrite(p, 1, n, s->f) != n)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", s->name, strerror(errno));
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
	m->sink = (gt_store_sink){ whole_resume, mem_start, mem_write };
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
	EVP_DigestUpdate(h->c, p, n);
	h->n += (long long)n;
	return 0;
}

/* ---- get ---- */

static int get_impl(const gt_store_opts *o, const char *url, const char *path,
                    const char *sha256, long long bytes, char got_sha[GT_SHA256_HEX],
                    gt_store_validate_fn validate, void *vctx, gt_error *e)
{
	char want[GT_SHA256_HEX], have[GT_SHA256_HEX];
	if (sha256 && !hex_ok(sha256, want))
		return gt_error_set(e, GT_EINVAL, -1, -1, "not a sha256 (64 hex digits): %s", sha256);
	const gt_store_scheme *sc;
	int rc = gt_store_scheme_of(url, &sc, e);
	if (rc)
		return rc;
	const char *name = gt_store_basename(path);
	if (!*name)
		return gt_error_set(e, GT_EINVAL, -1, -1, "no file name in %s", path);
	char *dir = gt_store_dir_of(path);
	size_t tl = strlen(dir) + strlen(name) + 16;
	char *tmp = gt_xmalloc(tl);
	snprintf(tmp, tl, "%s/.%s.part", dir, name);
	free(dir);
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
	file_sink s = { { file_resume, file_start, file_write }, f, tmp, etag };
	rc = sc->get(o, url, &s.sink, &total, &keep_tmp, e);
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
		rc = gt_error_set(e, GT_ECHECKSUM, -1, -1, "%s: %lld bytes, expected %lld", url, got, bytes);
	if (!rc && sha256 && strcmp(have, want))
		rc = gt_error_set(e, GT_ECHECKSUM, -1, -1, "%s: sha256 %s, expected %s", url, have, want);
	if (!rc && validate)
		rc = validate(tmp, vctx, e);
	if (!rc && rename(tmp, path) < 0)
		rc = gt_error_set(e, GT_EIO, -1, -1, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
	if (!rc) {
		gt_store_sync_parent(path);
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
	return get_impl(o, url, path, sha256, bytes, got_sha, NULL, NULL, e);
}

int gt_store_get_stream(const gt_store_opts *o, const char *url, FILE *out, gt_error *e)
{
	const gt_store_scheme *sc;
	stream_sink s = { { stream_resume, stream_start, stream_write }, out, 0, 0 };
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
	hash_sink h = { { whole_resume, hash_start, hash_write }, EVP_MD_CTX_new(), 0 };
	unsigned char d[32];
	char hex[GT_SHA256_HEX];
	if (!h.c)
		gt_xmalloc((size_t)-1);
	EVP_DigestInit_ex(h.c, EVP_sha256(), NULL);
	rc = sc->get(o, url, &h.sink, &total, &keep, e);
	EVP_DigestFinal_ex(h.c, d, NULL);
	EVP_MD_CTX_free(h.c);
	if (rc)
		return rc;
	hexify(d, hex);
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
	rc = sc->put(o, in, n, url, overwrite, &taken, e);
	if (!rc && taken)          /* created meanwhile by someone else */
		rc = same_object(o, sc, url, sha, n, existed, e);
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

void gt_store_entry_add(const gt_store_opts *o, gt_store_entry **v, size_t *n, const char *name,
                        long long bytes, long long mtime)
{
	const char *why;
	char q[300];
	if (!gt_store_name_ok(name, &why)) {
		if (why != WHY_HIDDEN)
			gt_store_warn(o, "refusing listed name %s: %s", gt_store_quote(name, q, sizeof q), why);
		return;
	}
	if (*n == 0 || (*n >= 16 && (*n & (*n - 1)) == 0))
		*v = gt_xrealloc(*v, (*n < 16 ? 16 : 2 * *n) * sizeof **v);
	(*v)[*n].name = gt_xstrdup(name);
	(*v)[*n].bytes = bytes;
	(*v)[*n].mtime = mtime;
	(*n)++;
}

/* sorted: v by name, never NULL */
static gt_store_entry *sorted(gt_store_entry *v, size_t n)
{
	if (!v)
		return gt_xcalloc(1, sizeof *v);
	qsort(v, n, sizeof *v, entry_cmp);
	return v;
}

int gt_store_parse_listing(const gt_store_opts *o, const char *json, size_t len,
                           gt_store_entry **ents, size_t *n, gt_error *e)
{
	json_error_t je;
	json_t *a = json_loadb(json, len, 0, &je);
	gt_store_entry *v = NULL;
	size_t k = 0;
	*ents = NULL;
	*n = 0;
	if (!a)
		return gt_error_set(e, GT_EFORMAT, je.line, je.position, "listing: %s", je.text);
	if (!json_is_array(a)) {
		json_decref(a);
		return gt_error_set(e, GT_EFORMAT, 1, 0, "listing is not a JSON array");
	}
	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *it = json_array_get(a, i);
		const char *name = json_string_value(json_object_get(it, "name"));
		const char *type = json_string_value(json_object_get(it, "type"));
		json_t *size = json_object_get(it, "size");
		const char *mt = json_string_value(json_object_get(it, "mtime"));
		if (!name) {
			gt_store_warn(o, "listing entry %zu has no name; skipped", i + 1);
			continue;
		}
		if (type && strcmp(type, "file"))
			continue;
		gt_store_entry_add(o, &v, &k, name, json_is_integer(size) ? (long long)json_integer_value(size) : -1,
		                   mt ? (long long)curl_getdate(mt, NULL) : -1);
	}
	json_decref(a);
	*ents = sorted(v, k);
	*n = k;
	return 0;
}

int gt_store_list(const gt_store_opts *o, const char *url, gt_store_entry **ents,
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
	if (rc) {
		gt_store_entries_free(v, k);
		return rc;
	}
	*ents = sorted(v, k);
	*n = k;
	return 0;
}

/* ---- latest ---- */

int gt_store_latest(const gt_store_opts *o, const char *store, const char *dir,
                    const char *verify_key, gt_store_validate_fn validate, void *vctx,
                    char **path, int *fetched, gt_error *e)
{
	return gt_store_latest_pointer(o, store, dir, verify_key, validate, vctx, path, fetched,
	                               NULL, e);
}

int gt_store_latest_pointer(const gt_store_opts *o, const char *store, const char *dir,
                            const char *verify_key, gt_store_validate_fn validate, void *vctx,
                            char **path, int *fetched, char **pointer, gt_error *e)
{
	char *buf, want[GT_SHA256_HEX], have[GT_SHA256_HEX];
	size_t len;
	int rc, dummy;
	const char *why;
	char q[300];
	*path = NULL;
	if (!fetched)
		fetched = &dummy;
	*fetched = 0;
	char *pu = gt_store_join(store, "models/latest.json");
	rc = gt_store_get_mem(o, pu, 1 << 20, &buf, &len, e);
	if (rc) {
		free(pu);
		return rc;
	}
	json_error_t je;
	json_t *j = json_loadb(buf, len, 0, &je);
	if (pointer)
		*pointer = NULL;
	if (j && pointer)
		*pointer = buf;
	else
		free(buf);
	if (!j) {
		rc = gt_error_set(e, GT_EFORMAT, je.line, je.position, "%s: %s", pu, je.text);
		free(pu);
		return rc;
	}
	const char *name = json_string_value(json_object_get(j, "name"));
	const char *sha = json_string_value(json_object_get(j, "sha256"));
	json_t *jb = json_object_get(j, "bytes");
	if (!name || !gt_store_name_ok(name, &why))
		rc = gt_error_set(e, GT_EFORMAT, -1, -1, "%s: bad \"name\" %s: %s", pu,
		                  name ? gt_store_quote(name, q, sizeof q) : "(none)", name ? why : "missing");
	else if (!hex_ok(sha, want))
		rc = gt_error_set(e, GT_EFORMAT, -1, -1, "%s: \"sha256\" missing or not 64 hex digits", pu);
	else if (!json_is_integer(jb) || json_integer_value(jb) < 0)
		rc = gt_error_set(e, GT_EFORMAT, -1, -1, "%s: \"bytes\" missing or negative", pu);
	if (!rc && verify_key) {
		char msg[512];
		const char *sig = json_string_value(json_object_get(j, "signature"));
		int ml = gt_sign_pointer_message(name, want, (long long)json_integer_value(jb), msg, sizeof msg);
		if (ml < 0)
			rc = gt_error_set(e, GT_EFORMAT, -1, -1, "%s: cannot form the signed message", pu);
		else if (!sig)
			rc = gt_error_set(e, GT_ECHECKSUM, -1, -1, "%s is not signed; refusing it", pu);
		else if ((rc = gt_sign_verify(verify_key, msg, (size_t)ml, sig, e)) == GT_ECHECKSUM)
			gt_error_set(e, rc, -1, -1, "%s: signature does not verify; refusing it", pu);
	}
	free(pu);
	if (rc) {
		json_decref(j);
		if (pointer) {
			free(*pointer);
			*pointer = NULL;
		}
		return rc;
	}
	long long bytes = (long long)json_integer_value(jb);
	char *dest = gt_store_join(dir, name);
	char *mu = NULL;
	if (sha256_path(dest, have, NULL, NULL) == 0 && !strcmp(have, want))
		goto done;
	if ((rc = gt_store_mkdirs(dir, e)) != 0)
		goto done;
	mu = gt_store_join(store, "models/");
	{
		char *u = gt_store_join(mu, name);
		rc = get_impl(o, u, dest, want, bytes, NULL, validate, vctx, e);
		free(u);
	}
	if (!rc)
		*fetched = 1;
done:
	free(mu);
	json_decref(j);
	if (rc)
		free(dest);
	else
		*path = dest;
	if (rc && pointer) {
		free(*pointer);
		*pointer = NULL;
	}
	return rc;
}

/* ---- pull ---- */

/* The pull state: consumed batch names, sorted, each ok or bad. */
typedef struct seen {
	char *name;
	int bad;
} seen;

typedef struct state {
	seen *v;
	size_t n, cap;
} state;

static int seen_cmp(const void *a, const void *b)
{
	return strcmp(((const seen *)a)->name, ((const seen *)b)->name);
}

static int state_has(const state *s, const char *name)
{
	seen key = { (char *)name, 0 };
	return s->n && bsearch(&key, s->v, s->n, sizeof *s->v, seen_cmp) != NULL;
}

static void state_add(state *s, const char *name, int bad)
{
	size_t i = s->n;
	if (state_has(s, name))
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = gt_xrealloc(s->v, s->cap * sizeof *s->v);
	}
	while (i > 0 && strcmp(s->v[i - 1].name, name) > 0)
		i--;
	memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof *s->v);
	s->v[i].name = gt_xstrdup(name);
	s->v[i].bad = bad;
	s->n++;
}

static void state_free(state *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
}

static int state_load(state *s, const char *path, gt_error *e)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	long ln = 0;
	if (!f)
		return errno == ENOENT ? 0 : gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof line, f)) {
		ln++;
		size_t l = strlen(line);
		if (l && line[l - 1] == '\n')
			line[--l] = 0;
		char *tab = strchr(line, '\t');
		if (tab)
			*tab++ = 0;
		if (!gt_store_name_ok(line, NULL) || (tab && strcmp(tab, "ok") && strcmp(tab, "bad"))) {
			fclose(f);
			return gt_error_set(e, GT_EFORMAT, ln, -1, "%s:%ld: not \"name<TAB>ok|bad\"", path, ln);
		}
		state_add(s, line, tab && !strcmp(tab, "bad"));
	}
	int bad = ferror(f);
	fclose(f);
	if (bad)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: read error", path);
	return 0;
}

static int state_save(const state *s, const char *path, gt_error *e)
{
	size_t l = strlen(path) + 16;
	char *tmp = gt_xmalloc(l);
	snprintf(tmp, l, "%s.XXXXXX", path);
	int fd = mkstemp(tmp), rc = 0;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(tmp);
		return rc;
	}
	fchmod(fd, 0644);
	for (size_t i = 0; i < s->n; i++)
		fprintf(f, "%s\t%s\n", s->v[i].name, s->v[i].bad ? "bad" : "ok");
	if (fflush(f) != 0 || ferror(f) || fsync(fd) != 0)
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", tmp, strerror(errno));
	fclose(f);
	if (!rc && rename(tmp, path) < 0)
		rc = gt_error_set(e, GT_EIO, -1, -1, "cannot rename to %s: %s", path, strerror(errno));
	if (rc)
		unlink(tmp);
	else
		gt_store_sync_parent(path);
	free(tmp);
	return rc;
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

/* scan_batch: read all of gz; with out == NULL only check it (line length,
 * total size, gzip integrity), else copy its non-empty lines to out.
 * Returns 0, or GT_EFORMAT with the reason in why (check pass), or GT_EIO. */
static int scan_batch(gzFile gz, FILE *out, size_t max_line, long long max_batch,
                      long long *lines, char *why, size_t whysz)
{
	char buf[1 << 16];
	long long total = 0, nl = 0;
	size_t cur = 0;
	int z;
	*lines = 0;
	for (;;) {
		z = gzread(gz, buf, sizeof buf);
		if (z <= 0)
			break;
		total += z;
		if (max_batch >= 0 && total > max_batch) {
			snprintf(why, whysz, "expands beyond %lld bytes (--max-batch)", max_batch);
			return GT_EFORMAT;
		}
		for (int i = 0; i < z; i++) {
			if (buf[i] == '\n') {
				if (cur) {
					nl++;
					if (out)
						putc('\n', out);
				}
				cur = 0;
				continue;
			}
			if (++cur > max_line) {
				snprintf(why, whysz, "line %lld longer than %zu bytes (--max-line)", nl + 1, max_line);
				return GT_EFORMAT;
			}
			if (out)
				putc(buf[i], out);
		}
	}
	int err;
	const char *msg = gzerror(gz, &err);
	if (z < 0 || (err != Z_OK && err != Z_STREAM_END)) {
		snprintf(why, whysz, "corrupt or truncated: %s", msg && *msg ? msg : "read error");
		return GT_EFORMAT;
	}
	if (cur) {
		nl++;
		if (out)
			putc('\n', out);
	}
	*lines = nl;
	return 0;
}

/* gz_magic: 1 if the file starts with the gzip magic bytes. */
static int gz_magic(const char *path)
{
	unsigned char m[2] = { 0, 0 };
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t k = fread(m, 1, 2, f);
	fclose(f);
	return k == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

int gt_store_pull(const gt_store_opts *o, const char *url, const char *statepath,
                  size_t max_line, long long max_batch, FILE *out,
                  gt_store_pull_stats *st, gt_error *e)
{
	gt_store_pull_stats dummy;
	gt_store_entry *ents = NULL;
	size_t n = 0;
	state s = { 0 };
	char *local = NULL;
	int rc;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof *st);
	if ((rc = gt_store_local_path(url, &local, e)) != 0)
		return rc;
	if ((rc = state_load(&s, statepath, e)) != 0)
		goto out;
	if ((rc = gt_store_list(o, url, &ents, &n, e)) == GT_ENOTFOUND) {
		gt_store_warn(o, "%s: no such folder yet; nothing to pull", url);
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;
	for (size_t i = 0; i < n && !rc; i++) {
		const char *name = ents[i].name;
		int gz = ends_with(name, ".ndjson.gz");
		if (!gz && !ends_with(name, ".ndjson"))
			continue;
		if (state_has(&s, name))
			continue;
		char *path = NULL, tmpl[4096] = "";
		if (local) {
			path = gt_store_join(local, name);
		} else {
			const char *td = getenv("TMPDIR");
			snprintf(tmpl, sizeof tmpl, "%s/gt-pull.XXXXXX", td && *td ? td : "/tmp");
			int fd = mkstemp(tmpl);
			FILE *f = fd >= 0 ? fdopen(fd, "w+b") : NULL;
			if (!f) {
				rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", tmpl, strerror(errno));
				if (fd >= 0) {
					close(fd);
					unlink(tmpl);
				}
				break;
			}
			char *u = gt_store_join(url, name);
			rc = gt_store_get_stream(o, u, f, e);
			free(u);
			if (fclose(f) != 0 && !rc)
				rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", tmpl, strerror(errno));
			if (rc == GT_ENOTFOUND) {   /* removed since the listing */
				gt_store_warn(o, "%s vanished from the store; skipped", name);
				unlink(tmpl);
				rc = 0;
				continue;
			}
			if (rc) {
				unlink(tmpl);
				break;
			}
			path = gt_xstrdup(tmpl);
		}
		char why[200] = "";
		long long lines = 0;
		gzFile g = NULL;
		int bad = 0;
		if (gz && !gz_magic(path)) {
			snprintf(why, sizeof why, "not gzip data");
			bad = 1;
		} else if (!(g = gzopen(path, "rb"))) {
			rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
		} else {
			gzbuffer(g, 1 << 16);
			bad = scan_batch(g, NULL, max_line, max_batch, &lines, why, sizeof why) != 0;
			if (!bad) {
				gzrewind(g);
				if (scan_batch(g, out, max_line, max_batch, &lines, why, sizeof why) != 0)
					bad = 1;   /* changed under us (local store); lines already out */
				if (fflush(out) != 0 || ferror(out))
					rc = gt_error_set(e, GT_EIO, -1, -1, "write error on output: %s", strerror(errno));
			}
			gzclose(g);
		}
		if (tmpl[0])
			unlink(tmpl);
		free(path);
		if (rc)
			break;
		if (bad) {
			char q[300];
			gt_store_warn(o, "skipping batch %s: %s", gt_store_quote(name, q, sizeof q), why);
			st->bad++;
		} else {
			st->batches++;
			st->records += lines;
		}
		state_add(&s, name, bad);
		rc = state_save(&s, statepath, e);
	}
out:
	gt_store_entries_free(ents, n);
	state_free(&s);
	free(local);
	return rc;
}
