/* store_http.c: the http:// and https:// scheme of lib/store (libcurl):
 * retries with backoff, resumed downloads, nginx's JSON listings. */
#include "store_scheme.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* One HTTP request, retried. The sink receives the body of a GET and says
 * before each attempt where it can resume; an upload is rewound. */
typedef struct req {
	const char *method;       /* "GET", "HEAD", "PUT" */
	FILE *upload;
	long long upload_len;
	gt_store_sink *sink;
	long long range_from;     /* > 0: ask for bytes range_from- */
	char if_range[256];       /* sent as If-Range with a range when not empty */
	char etag[256];           /* ETag of the last answer, "" if none */
	CURL *curl;
	long code;                /* HTTP status of the last attempt */
	long long cl;             /* Content-Length of the last answer, -1 unknown */
	int started;              /* the sink's start was called for this answer */
	int sink_err;
	gt_error *e;
} req;

static size_t write_cb(char *p, size_t size, size_t nmemb, void *ud)
{
	req *r = ud;
	size_t n = size * nmemb;
	if (r->code == 0)
		curl_easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &r->code);
	if (!r->sink || r->code < 200 || r->code > 299)
		return n;   /* not the object (the body of a redirect): dropped */
	int rc = 0;
	if (!r->started) {
		r->started = 1;
		rc = r->sink->start(r->sink, r->code == 206 ? r->range_from : 0, r->etag, r->e);
	}
	if (!rc)
		rc = r->sink->write(r->sink, p, n, r->e);
	if (rc) {
		r->sink_err = rc;
		return 0;
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

/* loopback: 1 if the host of the http(s) URL is localhost, 127.x.x.x or
 * [::1], where a plain connection does not leave the machine. */
static int loopback(const char *url)
{
	const char *h = strstr(url, "://") + 3;
	size_t n = h[0] == '[' ? strcspn(h, "]") + 1 : strcspn(h, ":/?#");
	return (n == 9 && !strncasecmp(h, "localhost", 9)) || (n == 5 && !strncmp(h, "[::1]", 5)) ||
	       (n >= 9 && n <= 15 && !strncmp(h, "127.", 4) && strspn(h, "0123456789.") == n);
}

/* token_check: GT_EINVAL when the bearer token would go over plain
 * http:// to another machine without insecure_token. */
static int token_check(const gt_store_opts *o, const char *url, gt_error *e)
{
	if (!o->token || !*o->token || o->insecure_token || strncmp(url, "http://", 7) || loopback(url))
		return 0;
	return gt_error_set(e, GT_EINVAL, -1, -1,
	                    "refusing to send the bearer token over plain http:// (use https://, or "
	                    "--insecure-token or GT_STORE_INSECURE_TOKEN=1 to allow it)");
}

/* http: run r against url with retries, a (may be NULL) preparing each
 * handle. Returns 0 for a 2xx answer, GT_ENOTFOUND for 404, the sink's
 * error, or GT_EIO (e filled). */
static int http(const gt_store_opts *o, const gt_store_http_auth *a, const char *url, req *r,
                gt_error *e)
{
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT))
			return gt_error_set(e, GT_EIO, -1, -1, "cannot initialise libcurl");
		curl_ready = 1;
	}
	int rc = token_check(o, url, e);
	if (rc)
		return rc;
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
	int restarted = 0, restart = 0;
	rc = GT_EIO;
	r->e = e;
	for (int attempt = 0; ; attempt++) {
		char errbuf[CURL_ERROR_SIZE] = "";
		char range[64], ifr[300];
		struct curl_slist *h2 = NULL;
		r->code = 0;
		r->etag[0] = 0;
		r->if_range[0] = 0;
		r->cl = -1;
		r->started = 0;
		r->sink_err = 0;
		r->range_from = 0;
		if (r->upload)
			rewind(r->upload);
		if (r->sink && (rc = r->sink->resume(r->sink, restart, &r->range_from, r->if_range,
		                                     sizeof r->if_range, e)) != 0)
			break;
		restart = 0;
		CURL *c = curl_easy_init();
		if (!c) {
			rc = gt_error_set(e, GT_EIO, -1, -1, "cannot create a libcurl handle");
			break;
		}
		for (struct curl_slist *l = hdr; l; l = l->next)
			h2 = curl_slist_append(h2, l->data);
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
			/* an answer announced larger than the object may be
			 * is refused before its body (0 would mean no limit:
			 * the sink's own bound does that case) */
			if (r->sink && r->sink->max > r->range_from)
				curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE,
				                 (curl_off_t)(r->sink->max - r->range_from));
			if (r->range_from > 0) {
				snprintf(range, sizeof range, "%lld-", r->range_from);
				curl_easy_setopt(c, CURLOPT_RANGE, range);
				if (r->if_range[0]) {
					snprintf(ifr, sizeof ifr, "If-Range: %s", r->if_range);
					h2 = curl_slist_append(h2, ifr);
				}
			}
		}
		if (a && a->prepare && (rc = a->prepare(c, &h2, a->ctx, e)) != 0) {
			curl_easy_cleanup(c);
			curl_slist_free_all(h2);
			break;
		}
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, h2);
		CURLcode cc = curl_easy_perform(c);
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->code);
		curl_off_t cl = -1;
		curl_easy_getinfo(c, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
		r->cl = cl;
		/* a 3xx (curl follows no redirect) is not the object: an
		 * error that is retried, its body dropped */
		int redirect = cc == CURLE_OK && (r->code < 200 || r->code > 299);
		char where[200] = "";
		if (redirect) {
			char *loc = NULL;
			curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &loc);
			if (loc)
				gt_store_quote(loc, where, sizeof where);
		}
		curl_easy_cleanup(c);
		curl_slist_free_all(h2);
		r->curl = NULL;
		if (cc == CURLE_OK && !redirect) {   /* an empty answer starts the sink too */
			rc = r->sink && !r->started
			     ? r->sink->start(r->sink, r->code == 206 ? r->range_from : 0, r->etag, e) : 0;
			break;
		}
		if (r->sink_err) {
			rc = r->sink_err;
			break;
		}
		if (cc == CURLE_FILESIZE_EXCEEDED) {
			rc = gt_error_set(e, GT_ETOOLONG, -1, -1, "%s %s: the answer is larger than the %lld "
			                  "bytes expected; refused", r->method, url, r->sink ? r->sink->max : -1);
			break;
		}
		if (cc == CURLE_HTTP_RETURNED_ERROR && r->code == 404) {
			rc = gt_error_set(e, GT_ENOTFOUND, -1, -1, "%s: not found (HTTP 404)", url);
			break;
		}
		if (cc == CURLE_HTTP_RETURNED_ERROR && r->code == 416 && r->range_from > 0 && !restarted) {
			/* the partial file does not fit the object: start over */
			restarted = 1;
			restart = 1;
			attempt--;
			continue;
		}
		const char *what = cc == CURLE_HTTP_RETURNED_ERROR ? "" : (*errbuf ? errbuf : curl_easy_strerror(cc));
		char msg[CURL_ERROR_SIZE + 64];
		if (redirect)
			snprintf(msg, sizeof msg, "HTTP %ld, a redirect%s%s (not followed)", r->code,
			         where[0] ? " to " : "", where);
		else if (cc == CURLE_HTTP_RETURNED_ERROR)
			snprintf(msg, sizeof msg, "HTTP %ld%s", r->code,
			         r->code == 401 || r->code == 403 ? " (check GT_STORE_TOKEN or the netrc file)" : "");
		else
			snprintf(msg, sizeof msg, "%s", what);
		int again = redirect || retryable(cc, r->code);
		if (!again || attempt >= o->retries) {
			rc = gt_error_set(e, GT_EIO, -1, -1, "%s %s: %s%s", r->method, url, msg,
			                  again ? " (retries exhausted)" : "");
			break;
		}
		gt_store_warn(o, "%s %s: %s; retrying (%d of %d)", r->method, url, msg, attempt + 1, o->retries);
		backoff_sleep(o, attempt);
	}
	curl_slist_free_all(hdr);
	return rc;
}

int gt_store_http_head(const gt_store_opts *o, const gt_store_http_auth *a, const char *url,
                       long long *bytes, gt_error *e)
{
	req r = { .method = "HEAD" };
	int rc = http(o, a, url, &r, e);
	*bytes = rc ? -1 : r.cl;
	return rc;
}

int gt_store_http_get(const gt_store_opts *o, const gt_store_http_auth *a, const char *url,
                      gt_store_sink *s, long long *total, int *keep, gt_error *e)
{
	req r = { .method = "GET", .sink = s };
	int rc = http(o, a, url, &r, e);
	if (!rc && r.cl >= 0)
		*total = (r.code == 206 ? r.range_from : 0) + r.cl;
	if (rc == GT_EIO && !(r.code >= 400 && r.code < 500))
		*keep = 1;   /* interrupted or server trouble: what came may be resumed */
	return rc;
}

int gt_store_http_put(const gt_store_opts *o, const gt_store_http_auth *a, FILE *in, long long n,
                      const char *url, gt_error *e)
{
	req r = { .method = "PUT", .upload = in, .upload_len = n };
	return http(o, a, url, &r, e);
}

/* ---- the scheme ---- */

static int http_check(const char *url, gt_error *e)
{
	const char *a = strstr(url, "://") + 3;
	size_t alen = strcspn(a, "/?#");
	if (memchr(a, '@', alen))
		return gt_error_set(e, GT_EINVAL, -1, -1,
		                    "credentials in a URL are refused; use a netrc file or GT_STORE_TOKEN");
	return 0;
}

static int http_head(const gt_store_opts *o, const char *url, long long *bytes, gt_error *e)
{
	return gt_store_http_head(o, NULL, url, bytes, e);
}

static int http_get(const gt_store_opts *o, const char *url, gt_store_sink *s, long long *total,
                    int *keep, gt_error *e)
{
	return gt_store_http_get(o, NULL, url, s, total, keep, e);
}

static int http_put(const gt_store_opts *o, FILE *in, long long n, const char *url, int overwrite,
                    int *taken, gt_error *e)
{
	return gt_store_http_put(o, NULL, in, n, url, e);
}

/* http_list: the folder URL's nginx JSON autoindex */
static int http_list(const gt_store_opts *o, const char *url, gt_store_entry **v, size_t *n,
                     gt_error *e)
{
	char *u = gt_store_join(url, "");
	gt_store_mem m;
	long long total = -1;
	int keep = 0;
	gt_store_mem_init(&m, (size_t)256 << 20);
	int rc = gt_store_http_get(o, NULL, u, &m.sink, &total, &keep, e);
	free(u);
	if (!rc)
		rc = gt_store_parse_listing(o, m.buf ? m.buf : "", m.len, v, n, e);
	free(m.buf);
	return rc;
}

const gt_store_scheme gt_store_scheme_http = {
	.name = "http", .escape = 1, .check = http_check,
	.head = http_head, .get = http_get, .put = http_put, .list = http_list,
};
