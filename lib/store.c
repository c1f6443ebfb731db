/* store.c: get, put, list, latest and pull over a local folder or HTTP. */
#include "store.h"
#include "sign.h"

#include <ctype.h>
#include <curl/curl.h>
#include <dirent.h>
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

static void __attribute__((format(printf, 2, 3))) warn(const gt_store_opts *o, const char *fmt, ...)
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

enum { K_LOCAL = 1, K_HTTP = 2 };

/* kind: which backend url needs (K_LOCAL, K_HTTP, or a negative gt_err with
 * e filled); for K_LOCAL *path gets the new local path. */
static int kind(const char *url, char **path, gt_error *e)
{
	if (path)
		*path = NULL;
	if (!url || !*url) {
		return gt_error_set(e, GT_EINVAL, -1, -1, "empty store URL");
	}
	if (!strncmp(url, "http://", 7) || !strncmp(url, "https://", 8)) {
		const char *a = strstr(url, "://") + 3;
		size_t alen = strcspn(a, "/?#");
		if (memchr(a, '@', alen)) {
			return gt_error_set(e, GT_EINVAL, -1, -1,
			                    "credentials in a URL are refused; use a netrc file or GT_STORE_TOKEN");
		}
		return K_HTTP;
	}
	const char *p = url;
	if (!strncmp(url, "file://", 7)) {
		p = url + 7;
		if (!strncmp(p, "localhost/", 10))
			p += 9;
		if (*p != '/') {
			return gt_error_set(e, GT_EINVAL, -1, -1, "file URL needs an absolute path: %s", url);
		}
	} else if (strstr(url, "://")) {
		return gt_error_set(e, GT_EUNSUPPORTED, -1, -1, "unsupported store URL scheme: %s", url);
	}
	if (path) {
		char *d = gt_xmalloc(strlen(p) + 1), *q = d;
		for (; *p; p++) {
			if (url != p && p[0] == '%' && isxdigit((unsigned char)p[1]) &&
			    isxdigit((unsigned char)p[2]) && !strncmp(url, "file://", 7)) {
				char h[3] = { p[1], p[2], 0 };
				*q++ = (char)strtol(h, NULL, 16);
				p += 2;
			} else {
				*q++ = *p;
			}
		}
		*q = 0;
		*path = d;
	}
	return K_LOCAL;
}

char *gt_store_join(const char *base, const char *name)
{
	int http = !strncmp(base, "http://", 7) || !strncmp(base, "https://", 8);
	size_t bl = strlen(base), k = 0;
	char *s = gt_xmalloc(bl + 1 + 3 * strlen(name) + 1);
	memcpy(s, base, bl);
	k = bl;
	if (bl == 0 || base[bl - 1] != '/')
		s[k++] = '/';
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (http && !(isalnum(*p) || strchr("-._~/", *p)))
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

/* dir_of: new string with the folder part of path ("." if none). */
static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return gt_xstrdup(".");
	if (s == path)
		return gt_xstrdup("/");
	char *d = gt_xmalloc((size_t)(s - path) + 1);
	memcpy(d, path, (size_t)(s - path));
	d[s - path] = 0;
	return d;
}

static void fsync_dir(const char *path)
{
	char *d = dir_of(path);
	int fd = open(d, O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(d);
}

/* mkdirs: create path and its parents (like mkdir -p). */
static int mkdirs(const char *path, gt_error *e)
{
	char *p = gt_xstrdup(path);
	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == 0) {
			char c = *s;
			*s = 0;
			if (mkdir(p, 0755) < 0 && errno != EEXIST) {
				int r = gt_error_set(e, GT_EIO, -1, -1, "cannot create %s: %s", p, strerror(errno));
				free(p);
				return r;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return 0;
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

/* ---- HTTP ---- */

/* One HTTP request, retried. The sink sees the body of a GET; begin runs
 * before each attempt (to rewind an upload or set a resume offset). */
typedef struct req {
	const char *method;       /* "GET", "HEAD", "PUT" */
	FILE *upload;
	long long upload_len;
	int (*begin)(struct req *r);
	int (*sink)(struct req *r, const char *p, size_t n); /* 0, or a gt_err to abort */
	void *ctx;
	long long range_from;     /* > 0: ask for bytes range_from- */
	char if_range[256];       /* sent as If-Range with a range when not empty */
	char etag[256];           /* ETag of the last answer, "" if none */
	CURL *curl;
	long code;                /* HTTP status of the last attempt */
	long long cl;             /* Content-Length of the last answer, -1 unknown */
	int sink_err;
	gt_error *e;
} req;

static size_t write_cb(char *p, size_t size, size_t nmemb, void *ud)
{
	req *r = ud;
	size_t n = size * nmemb;
	if (r->code == 0)
		curl_easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &r->code);
	if (r->sink) {
		int rc = r->sink(r, p, n);
		if (rc) {
			r->sink_err = rc;
			return 0;
		}
	}
	return n;
}

static size_t header_cb(char *p, size_t size, size_t nmemb, void *ud)
{
	req *r = ud;
	size_t n = size * nmemb;
	if (n > 5 && !strncasecmp(p, "ETag:", 5)) {
		size_t a = 5, b = n;
		while (a < b && (p[a] == ' ' || p[a] == '\t'))
			a++;
		while (b > a && (p[b - 1] == '\r' || p[b - 1] == '\n' || p[b - 1] == ' '))
			b--;
		if (b - a < sizeof r->etag) {
			memcpy(r->etag, p + a, b - a);
			r->etag[b - a] = 0;
		}
	} else if (n > 5 && !strncmp(p, "HTTP/", 5)) {
		r->etag[0] = 0;      /* a new answer (after a redirect or 100) */
	}
	return n;
}

static unsigned jitter_seed;

static void backoff_sleep(const gt_store_opts *o, int attempt)
{
	double d = o->backoff_s;
	for (int i = 0; i < attempt && d < 8; i++)
		d *= 2;
	if (d > 8)
		d = 8;
	if (!jitter_seed)
		jitter_seed = (unsigned)time(NULL) ^ ((unsigned)getpid() << 16);
	d *= 0.5 + (double)rand_r(&jitter_seed) / ((double)RAND_MAX + 1.0);
	struct timespec ts = { (time_t)d, (long)((d - (double)(time_t)d) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int retryable(CURLcode c, long code)
{
	switch (c) {
	case CURLE_HTTP_RETURNED_ERROR:
		return code >= 500 || code == 408 || code == 429;
	case CURLE_COULDNT_CONNECT: case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_OPERATION_TIMEDOUT: case CURLE_RECV_ERROR: case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING: case CURLE_PARTIAL_FILE: case CURLE_SSL_CONNECT_ERROR:
		return 1;
	default:
		return 0;
	}
}

static int curl_ready;

/* http: run r against url with retries. Returns 0 for a 2xx answer,
 * GT_ENOTFOUND for 404, the sink's error, or GT_EIO (e filled). */
static int http(const gt_store_opts *o, const char *url, req *r, gt_error *e)
{
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT))
			return gt_error_set(e, GT_EIO, -1, -1, "cannot initialise libcurl");
		curl_ready = 1;
	}
	struct curl_slist *hdr = NULL;
	if (o->token && *o->token) {
		size_t n = strlen(o->token) + 32;
		char *h = gt_xmalloc(n);
		snprintf(h, n, "Authorization: Bearer %s", o->token);
		hdr = curl_slist_append(hdr, h);
		memset(h, 0, n);
		free(h);
	}
	hdr = curl_slist_append(hdr, "Expect:");
	int rc = GT_EIO, restarted = 0;
	r->e = e;
	for (int attempt = 0; ; attempt++) {
		char errbuf[CURL_ERROR_SIZE] = "";
		char range[64], ifr[300];
		struct curl_slist *h2 = NULL;
		r->code = 0;
		r->etag[0] = 0;
		r->if_range[0] = 0;
		r->cl = -1;
		r->sink_err = 0;
		if (r->begin && (rc = r->begin(r)) != 0)
			break;
		CURL *c = curl_easy_init();
		if (!c) {
			rc = gt_error_set(e, GT_EIO, -1, -1, "cannot create a libcurl handle");
			break;
		}
		r->curl = c;
		curl_easy_setopt(c, CURLOPT_URL, url);
		curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
		curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
		curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
		curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, header_cb);
		curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
		curl_easy_setopt(c, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
		if (o->netrc)
			curl_easy_setopt(c, CURLOPT_NETRC_FILE, o->netrc);
		if (o->timeout_s > 0)
			curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(o->timeout_s * 1000));
		if (o->connect_timeout_s > 0)
			curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(o->connect_timeout_s * 1000));
		if (!strcmp(r->method, "HEAD")) {
			curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
		} else if (!strcmp(r->method, "PUT")) {
			curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
			curl_easy_setopt(c, CURLOPT_READDATA, r->upload);
			curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->upload_len);
			curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_cb);
			curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
		} else {
			curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_cb);
			curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
			if (r->range_from > 0) {
				snprintf(range, sizeof range, "%lld-", r->range_from);
				curl_easy_setopt(c, CURLOPT_RANGE, range);
				if (r->if_range[0]) {
					snprintf(ifr, sizeof ifr, "If-Range: %s", r->if_range);
					for (struct curl_slist *l = hdr; l; l = l->next)
						h2 = curl_slist_append(h2, l->data);
					h2 = curl_slist_append(h2, ifr);
				}
			}
		}
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, h2 ? h2 : hdr);
		CURLcode cc = curl_easy_perform(c);
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->code);
		curl_off_t cl = -1;
		curl_easy_getinfo(c, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
		r->cl = cl;
		curl_easy_cleanup(c);
		curl_slist_free_all(h2);
		r->curl = NULL;
		if (cc == CURLE_OK) {
			rc = 0;
			break;
		}
		if (r->sink_err) {
			rc = r->sink_err;
			break;
		}
		if (cc == CURLE_HTTP_RETURNED_ERROR && r->code == 404) {
			rc = gt_error_set(e, GT_ENOTFOUND, -1, -1, "%s: not found (HTTP 404)", url);
			break;
		}
		if (cc == CURLE_HTTP_RETURNED_ERROR && r->code == 416 && r->range_from > 0 && !restarted) {
			/* the partial file does not fit the object: start over */
			restarted = 1;
			r->range_from = -1;
			attempt--;
			continue;
		}
		const char *what = cc == CURLE_HTTP_RETURNED_ERROR ? "" : (*errbuf ? errbuf : curl_easy_strerror(cc));
		char msg[CURL_ERROR_SIZE + 64];
		if (cc == CURLE_HTTP_RETURNED_ERROR)
			snprintf(msg, sizeof msg, "HTTP %ld%s", r->code,
			         r->code == 401 || r->code == 403 ? " (check GT_STORE_TOKEN or the netrc file)" : "");
		else
			snprintf(msg, sizeof msg, "%s", what);
		if (!retryable(cc, r->code) || attempt >= o->retries) {
			rc = gt_error_set(e, GT_EIO, -1, -1, "%s %s: %s%s", r->method, url, msg,
			                  retryable(cc, r->code) ? " (retries exhausted)" : "");
			break;
		}
		warn(o, "%s %s: %s; retrying (%d of %d)", r->method, url, msg, attempt + 1, o->retries);
		backoff_sleep(o, attempt);
	}
	curl_slist_free_all(hdr);
	return rc;
}

/* ---- sinks ---- */

typedef struct file_sink {
	FILE *f;
	const char *name;
	const char *etag_path;   /* where the partial file's ETag is kept, or NULL */
	long long skip;      /* bytes of a 200 answer to drop (stream resume) */
	long long written;
	int first;
} file_sink;

/* Resumable download into a file opened r+b: append on 206, restart on 200. */
static int file_begin(req *r)
{
	file_sink *s = r->ctx;
	if (r->range_from < 0) {      /* restart requested */
		if (ftruncate(fileno(s->f), 0) < 0)
			return gt_error_set(r->e, GT_EIO, -1, -1, "%s: %s", s->name, strerror(errno));
	}
	fflush(s->f);
	struct stat st;
	if (fstat(fileno(s->f), &st) < 0)
		return gt_error_set(r->e, GT_EIO, -1, -1, "%s: %s", s->name, strerror(errno));
	r->range_from = st.st_size;
	s->first = 1;
	if (r->range_from > 0 && s->etag_path) {
		/* resume only the same version of the object: If-Range */
		FILE *t = fopen(s->etag_path, "r");
		if (t) {
			if (!fgets(r->if_range, sizeof r->if_range, t))
				r->if_range[0] = 0;
			r->if_range[strcspn(r->if_range, "\r\n")] = 0;
			fclose(t);
		}
	}
	return 0;
}

static int file_write(req *r, const char *p, size_t n)
{
	file_sink *s = r->ctx;
	if (s->first) {
		s->first = 0;
		if (r->code == 206) {
			fseeko(s->f, 0, SEEK_END);
		} else {
			fflush(s->f);
			if (ftruncate(fileno(s->f), 0) < 0)
				return gt_error_set(r->e, GT_EIO, -1, -1, "%s: %s", s->name, strerror(errno));
			rewind(s->f);
			r->range_from = 0;
			if (s->etag_path) {
				FILE *t = r->etag[0] ? fopen(s->etag_path, "w") : NULL;
				if (t) {
					fprintf(t, "%s\n", r->etag);
					fclose(t);
				} else {
					unlink(s->etag_path);
				}
			}
		}
	}
	if (fwrite(p, 1, n, s->f) != n)
		return gt_error_set(r->e, GT_EIO, -1, -1, "%s: %s", s->name, strerror(errno));
	return 0;
}

/* Stream sink: resumes by Range after a failure, drops repeated bytes. */
static int stream_begin(req *r)
{
	file_sink *s = r->ctx;
	r->range_from = s->written > 0 ? s->written : 0;
	s->first = 1;
	s->skip = 0;
	return 0;
}

static int stream_write(req *r, const char *p, size_t n)
{
	file_sink *s = r->ctx;
	if (s->first) {
		s->first = 0;
		s->skip = r->code == 206 ? 0 : s->written;
	}
	if (s->skip > 0) {
		size_t d = (long long)n < s->skip ? n : (size_t)s->skip;
		s->skip -= (long long)d;
		p += d;
		n -= d;
	}
	if (n && fwrite(p, 1, n, s->f) != n)
		return gt_error_set(r->e, GT_EIO, -1, -1, "write error: %s", strerror(errno));
	s->written += (long long)n;
	return 0;
}

typedef struct mem_sink {
	char *buf;
	size_t len, cap, max;
} mem_sink;

static int mem_begin(req *r)
{
	((mem_sink *)r->ctx)->len = 0;
	r->range_from = 0;
	return 0;
}

static int mem_write(req *r, const char *p, size_t n)
{
	mem_sink *m = r->ctx;
	if (m->len + n > m->max)
		return gt_error_set(r->e, GT_ETOOLONG, -1, -1, "object larger than %zu bytes", m->max);
	if (m->len + n + 1 > m->cap) {
		m->cap = (m->len + n + 1) * 2;
		m->buf = gt_xrealloc(m->buf, m->cap);
	}
	memcpy(m->buf + m->len, p, n);
	m->len += n;
	m->buf[m->len] = 0;
	return 0;
}

typedef struct hash_sink {
	EVP_MD_CTX *c;
	long long n;
} hash_sink;

static int hash_begin(req *r)
{
	hash_sink *h = r->ctx;
	EVP_DigestInit_ex(h->c, EVP_sha256(), NULL);
	h->n = 0;
	r->range_from = 0;
	return 0;
}

static int hash_write(req *r, const char *p, size_t n)
{
	hash_sink *h = r->ctx;
	EVP_DigestUpdate(h->c, p, n);
	h->n += (long long)n;
	return 0;
}

static int upload_begin(req *r)
{
	rewind(r->upload);
	return 0;
}

/* ---- get ---- */

/* copy_stream: all of in to out. */
static int copy_stream(FILE *in, FILE *out, const char *what, gt_error *e)
{
	char buf[65536];
	size_t k;
	while ((k = fread(buf, 1, sizeof buf, in)) > 0)
		if (fwrite(buf, 1, k, out) != k)
			return gt_error_set(e, GT_EIO, -1, -1, "write error: %s", strerror(errno));
	if (ferror(in))
		return gt_error_set(e, GT_EIO, -1, -1, "%s: read error: %s", what, strerror(errno));
	return 0;
}

static int get_impl(const gt_store_opts *o, const char *url, const char *path,
                    const char *sha256, long long bytes, char got_sha[GT_SHA256_HEX],
                    gt_store_validate_fn validate, void *vctx, gt_error *e)
{
	char want[GT_SHA256_HEX], have[GT_SHA256_HEX];
	char *src = NULL;
	if (sha256 && !hex_ok(sha256, want))
		return gt_error_set(e, GT_EINVAL, -1, -1, "not a sha256 (64 hex digits): %s", sha256);
	int k = kind(url, &src, e);
	if (k < 0)
		return k;
	const char *name = gt_store_basename(path);
	if (!*name) {
		free(src);
		return gt_error_set(e, GT_EINVAL, -1, -1, "no file name in %s", path);
	}
	char *dir = dir_of(path);
	size_t tl = strlen(dir) + strlen(name) + 16;
	char *tmp = gt_xmalloc(tl);
	snprintf(tmp, tl, "%s/.%s.part", dir, name);
	free(dir);
	char *etag = gt_xmalloc(tl + 5);
	snprintf(etag, tl + 5, "%s.etag", tmp);

	int rc = 0, keep_tmp = 0;
	int fd = open(tmp, O_RDWR | O_CREAT, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "r+b") : NULL;
	long long total = -1;
	if (!f) {
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(tmp);
		free(etag);
		free(src);
		return rc;
	}
	if (k == K_LOCAL) {
		FILE *in = fopen(src, "rb");
		if (!in) {
			rc = gt_error_set(e, errno == ENOENT ? GT_ENOTFOUND : GT_EIO, -1, -1,
			                  "%s: %s", src, strerror(errno));
		} else {
			struct stat st;
			if (ftruncate(fd, 0) < 0)
				rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", tmp, strerror(errno));
			if (!rc && fstat(fileno(in), &st) == 0)
				total = st.st_size;
			if (!rc)
				rc = copy_stream(in, f, src, e);
			fclose(in);
		}
	} else {
		file_sink s = { .f = f, .name = tmp, .etag_path = etag };
		req r = { .method = "GET", .begin = file_begin, .sink = file_write, .ctx = &s };
		rc = http(o, url, &r, e);
		if (!rc && r.cl >= 0)
			total = (r.code == 206 ? r.range_from : 0) + r.cl;
		if (rc == GT_EIO && !(r.code >= 400 && r.code < 500))
			keep_tmp = 1;   /* interrupted or server trouble: keep the partial file to resume */
	}
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
		fsync_dir(path);
		if (got_sha)
			memcpy(got_sha, have, GT_SHA256_HEX);
	} else if (!keep_tmp) {
		unlink(tmp);
	}
	if (!rc || !keep_tmp)
		unlink(etag);
	free(etag);
	free(tmp);
	free(src);
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
	char *src = NULL;
	int k = kind(url, &src, e), rc;
	if (k < 0)
		return k;
	if (k == K_LOCAL) {
		FILE *in = fopen(src, "rb");
		if (!in)
			rc = gt_error_set(e, errno == ENOENT ? GT_ENOTFOUND : GT_EIO, -1, -1,
			                  "%s: %s", src, strerror(errno));
		else {
			rc = copy_stream(in, out, src, e);
			fclose(in);
		}
		free(src);
		return rc;
	}
	file_sink s = { .f = out, .name = "output" };
	req r = { .method = "GET", .begin = stream_begin, .sink = stream_write, .ctx = &s };
	rc = http(o, url, &r, e);
	if (!rc && r.cl >= 0 && s.written != (r.code == 206 ? r.range_from : 0) + r.cl)
		rc = gt_error_set(e, GT_ECHECKSUM, -1, -1, "%s: byte count differs from Content-Length", url);
	return rc;
}

int gt_store_get_mem(const gt_store_opts *o, const char *url, size_t max,
                     char **buf, size_t *len, gt_error *e)
{
	char *src = NULL;
	int k = kind(url, &src, e), rc = 0;
	mem_sink m = { .max = max };
	*buf = NULL;
	*len = 0;
	if (k < 0)
		return k;
	if (k == K_LOCAL) {
		FILE *in = fopen(src, "rb");
		char tmp[65536];
		size_t n;
		req r = { .ctx = &m, .e = e };
		if (!in)
			rc = gt_error_set(e, errno == ENOENT ? GT_ENOTFOUND : GT_EIO, -1, -1,
			                  "%s: %s", src, strerror(errno));
		else {
			while (!rc && (n = fread(tmp, 1, sizeof tmp, in)) > 0)
				rc = mem_write(&r, tmp, n);
			if (!rc && ferror(in))
				rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", src, strerror(errno));
			fclose(in);
		}
		free(src);
	} else {
		req r = { .method = "GET", .begin = mem_begin, .sink = mem_write, .ctx = &m };
		rc = http(o, url, &r, e);
	}
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

static int put_local(FILE *in, const char *path, const char *url, int overwrite, int *existed,
                     const char *sha, long long n, gt_error *e)
{
	char have[GT_SHA256_HEX];
	long long hn;
	int rc;
	if (!*gt_store_basename(path))
		return gt_error_set(e, GT_EINVAL, -1, -1, "no object name in %s", url);
	char *dir = dir_of(path);
	if ((rc = mkdirs(dir, e)) != 0) {
		free(dir);
		return rc;
	}
	if (!overwrite && (rc = sha256_path(path, have, &hn, e)) != GT_ENOTFOUND) {
		free(dir);
		if (rc)
			return rc;
		if (hn != n || strcmp(have, sha))
			return differs(url, hn, n, e);
		*existed = 1;
		return 0;
	}
	size_t tl = strlen(dir) + strlen(gt_store_basename(path)) + 16;
	char *tmp = gt_xmalloc(tl);
	snprintf(tmp, tl, "%s/.%s.XXXXXX", dir, gt_store_basename(path));
	free(dir);
	int fd = mkstemp(tmp);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!f) {
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(tmp);
		return rc;
	}
	fchmod(fd, 0644);
	rewind(in);
	rc = copy_stream(in, f, "input", e);
	if (!rc && (fflush(f) != 0 || fsync(fd) != 0))
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", tmp, strerror(errno));
	fclose(f);
	if (!rc && overwrite && rename(tmp, path) < 0)
		rc = gt_error_set(e, GT_EIO, -1, -1, "cannot rename to %s: %s", path, strerror(errno));
	if (!rc && !overwrite && link(tmp, path) < 0) {
		if (errno == EEXIST) {      /* someone else was faster */
			rc = sha256_path(path, have, &hn, e);
			if (!rc && (hn != n || strcmp(have, sha)))
				rc = differs(url, hn, n, e);
			if (!rc)
				*existed = 1;
		} else {
			rc = gt_error_set(e, GT_EIO, -1, -1, "cannot link %s: %s", path, strerror(errno));
		}
	}
	if (rc || !overwrite)
		unlink(tmp);
	if (!rc)
		fsync_dir(path);
	free(tmp);
	return rc;
}

int gt_store_put(const gt_store_opts *o, FILE *in, const char *url, int overwrite,
                 int *existed, gt_error *e)
{
	char sha[GT_SHA256_HEX];
	long long n;
	char *path = NULL;
	int dummy, rc;
	if (!existed)
		existed = &dummy;
	*existed = 0;
	int k = kind(url, &path, e);
	if (k < 0)
		return k;
	if ((rc = gt_store_sha256_stream(in, sha, &n, e)) != 0) {
		free(path);
		return rc;
	}
	if (k == K_LOCAL) {
		rc = put_local(in, path, url, overwrite, existed, sha, n, e);
		free(path);
		return rc;
	}
	if (!*gt_store_basename(url))
		return gt_error_set(e, GT_EINVAL, -1, -1, "no object name in %s", url);
	if (!overwrite) {
		req h = { .method = "HEAD" };
		rc = http(o, url, &h, e);
		if (rc == 0) {
			if (h.cl >= 0 && h.cl != n)
				return differs(url, h.cl, n, e);
			hash_sink hs = { .c = EVP_MD_CTX_new() };
			unsigned char d[32];
			char theirs[GT_SHA256_HEX];
			req g = { .method = "GET", .begin = hash_begin, .sink = hash_write, .ctx = &hs };
			rc = http(o, url, &g, e);
			EVP_DigestFinal_ex(hs.c, d, NULL);
			EVP_MD_CTX_free(hs.c);
			if (rc)
				return rc;
			hexify(d, theirs);
			if (hs.n != n || strcmp(theirs, sha))
				return differs(url, hs.n, n, e);
			*existed = 1;
			return 0;
		}
		if (rc != GT_ENOTFOUND)
			return rc;
	}
	req p = { .method = "PUT", .upload = in, .upload_len = n, .begin = upload_begin };
	return http(o, url, &p, e);
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

/* admit: gate one listed name; 1 to keep it. */
static int admit(const gt_store_opts *o, const char *name)
{
	const char *why;
	char q[300];
	if (gt_store_name_ok(name, &why))
		return 1;
	if (why != WHY_HIDDEN)
		warn(o, "refusing listed name %s: %s", gt_store_quote(name, q, sizeof q), why);
	return 0;
}

int gt_store_parse_listing(const gt_store_opts *o, const char *json, size_t len,
                           gt_store_entry **ents, size_t *n, gt_error *e)
{
	json_error_t je;
	json_t *a = json_loadb(json, len, 0, &je);
	*ents = NULL;
	*n = 0;
	if (!a)
		return gt_error_set(e, GT_EFORMAT, je.line, je.position, "listing: %s", je.text);
	if (!json_is_array(a)) {
		json_decref(a);
		return gt_error_set(e, GT_EFORMAT, 1, 0, "listing is not a JSON array");
	}
	size_t cnt = json_array_size(a), k = 0;
	gt_store_entry *v = gt_xcalloc(cnt ? cnt : 1, sizeof *v);
	for (size_t i = 0; i < cnt; i++) {
		json_t *it = json_array_get(a, i);
		const char *name = json_string_value(json_object_get(it, "name"));
		const char *type = json_string_value(json_object_get(it, "type"));
		json_t *size = json_object_get(it, "size");
		const char *mt = json_string_value(json_object_get(it, "mtime"));
		if (!name) {
			warn(o, "listing entry %zu has no name; skipped", i + 1);
			continue;
		}
		if (type && strcmp(type, "file"))
			continue;
		if (!admit(o, name))
			continue;
		v[k].name = gt_xstrdup(name);
		v[k].bytes = json_is_integer(size) ? (long long)json_integer_value(size) : -1;
		time_t t = mt ? curl_getdate(mt, NULL) : -1;
		v[k].mtime = (long long)t;
		k++;
	}
	json_decref(a);
	qsort(v, k, sizeof *v, entry_cmp);
	*ents = v;
	*n = k;
	return 0;
}

int gt_store_list(const gt_store_opts *o, const char *url, gt_store_entry **ents,
                  size_t *n, gt_error *e)
{
	char *path = NULL;
	int k = kind(url, &path, e), rc;
	*ents = NULL;
	*n = 0;
	if (k < 0)
		return k;
	if (k == K_HTTP) {
		char *u = gt_store_join(url, ""), *buf;
		size_t len;
		rc = gt_store_get_mem(o, u, (size_t)256 << 20, &buf, &len, e);
		free(u);
		if (rc)
			return rc;
		rc = gt_store_parse_listing(o, buf, len, ents, n, e);
		free(buf);
		return rc;
	}
	DIR *d = opendir(path);
	if (!d) {
		rc = gt_error_set(e, errno == ENOENT ? GT_ENOTFOUND : GT_EIO, -1, -1,
		                  "%s: %s", path, strerror(errno));
		free(path);
		return rc;
	}
	size_t cap = 16, cnt = 0;
	gt_store_entry *v = gt_xmalloc(cap * sizeof *v);
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat st;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (!admit(o, de->d_name))
			continue;
		if (cnt == cap)
			v = gt_xrealloc(v, (cap *= 2) * sizeof *v);
		v[cnt].name = gt_xstrdup(de->d_name);
		v[cnt].bytes = (long long)st.st_size;
		v[cnt].mtime = (long long)st.st_mtime;
		cnt++;
	}
	closedir(d);
	free(path);
	qsort(v, cnt, sizeof *v, entry_cmp);
	*ents = v;
	*n = cnt;
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
	if ((rc = mkdirs(dir, e)) != 0)
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
		fsync_dir(path);
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
	int k = kind(url, &local, e);
	if (k < 0)
		return k;
	if ((rc = state_load(&s, statepath, e)) != 0)
		goto out;
	if ((rc = gt_store_list(o, url, &ents, &n, e)) == GT_ENOTFOUND) {
		warn(o, "%s: no such folder yet; nothing to pull", url);
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
		if (k == K_LOCAL) {
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
				warn(o, "%s vanished from the store; skipped", name);
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
			warn(o, "skipping batch %s: %s", gt_store_quote(name, q, sizeof q), why);
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
