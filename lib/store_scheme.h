/*
 * store_scheme.h: the URL schemes behind lib/store (private to lib/).
 *
 * A scheme is one table of operations (gt_store_scheme) in its own file,
 * and one line in the table of prefixes in store.c (s3:// is store_s3.c:
 * the HTTP requests of store_http.c signed with SigV4, XML listings). store.c does what every scheme shares: choosing the scheme of a
 * URL, the temporary file, size, sha256 and rename of a download, the
 * immutability of objects (a put without overwrite compares an existing
 * object through head and get), the name gate and the order of listings.
 *
 * Bytes that a scheme downloads go to a sink (gt_store_sink): a file that
 * a download may resume, an output stream, memory, or a digest.
 */
#ifndef GT_STORE_SCHEME_H
#define GT_STORE_SCHEME_H
#include <stdio.h>
#include <curl/curl.h>
#include "store.h"

/* Where downloaded bytes go. A scheme that can resume a transfer calls
 * resume before each attempt; every scheme calls start before the first
 * byte of each answer, then write for the bytes in order. Each returns 0 or
 * a negative gt_err (e filled), which ends the transfer with that error.
 * An answer without bytes is started too (at 0). */
typedef struct gt_store_sink gt_store_sink;
struct gt_store_sink {
	/* resume: *from receives the offset the sink can go on from (0: the
	 * whole object) and validator (size bytes) the version of the object
	 * the held bytes are of ("" if unknown or nothing is held). restart:
	 * the held bytes do not fit the object; drop them (*from is then 0). */
	int (*resume)(gt_store_sink *s, int restart, long long *from, char *validator, size_t size,
	              gt_error *e);
	/* start: the answer's bytes begin at offset at of the object (0, or the
	 * *from of resume when the source honoured it); validator: the version
	 * the answer is of (an HTTP ETag), "" if unknown. */
	int (*start)(gt_store_sink *s, long long at, const char *validator, gt_error *e);
	int (*write)(gt_store_sink *s, const char *p, size_t n, gt_error *e);
	/* max: the most bytes the whole object may have, -1 for no bound. The
	 * sink's write refuses a byte past it (GT_ETOOLONG); a scheme may
	 * refuse a larger answer before its bytes come (HTTP: the announced
	 * Content-Length, CURLOPT_MAXFILESIZE_LARGE). */
	long long max;
};

/* A sink into memory: buf (owned, NUL-terminated after len bytes, NULL
 * before the first byte) grows up to max bytes (also sink.max); more is
 * GT_ETOOLONG. */
typedef struct gt_store_mem {
	gt_store_sink sink;
	char *buf;
	size_t len, cap, max;
} gt_store_mem;

/* gt_store_mem_init: an empty memory sink of at most max bytes. */
void gt_store_mem_init(gt_store_mem *m, size_t max);

/* The operations of a scheme. url is always one of the scheme's URLs, as
 * the caller gave it (check has accepted it). Errors: GT_ENOTFOUND for an
 * absent object or folder, GT_EIO (e filled) for the rest unless said. */
typedef struct gt_store_scheme {
	const char *name;     /* "file", "http" */
	int escape;           /* 1: gt_store_join percent-escapes names */
	/* check: 0 if url is usable, else GT_EINVAL (e says why) */
	int (*check)(const char *url, gt_error *e);
	/* path: the local file or folder behind url (new string), or NULL for
	 * a scheme whose objects are not local files */
	char *(*path)(const char *url);
	/* head: 0 if the object exists, *bytes its size (-1 if unknown) */
	int (*head)(const gt_store_opts *o, const char *url, long long *bytes, gt_error *e);
	/* get: the object's bytes into s. *total: the size the source
	 * announced for the whole object, -1 if unknown. *keep: set to 1 when
	 * a failure leaves bytes in s that a later try may resume from. */
	int (*get)(const gt_store_opts *o, const char *url, gt_store_sink *s, long long *total,
	           int *keep, gt_error *e);
	/* put: the n bytes of in (from its start) under url. overwrite 0: the
	 * name is new (store.c has checked); a scheme that can create it
	 * exclusively (link, If-None-Match: *) sets *taken to 1 and writes
	 * nothing if the name appeared meanwhile, others write anyway.
	 * overwrite 1 with match (not NULL): the object must still be the
	 * version match (a gt_store_get_tagged tag, which store.c has compared
	 * just before); a scheme that can check it atomically (flock, If-Match)
	 * sets *taken to 1 and writes nothing when it is not, others write
	 * anyway. */
	int (*put)(const gt_store_opts *o, FILE *in, long long n, const char *url, int overwrite,
	           const char *match, int *taken, gt_error *e);
	/* list: the objects and sub-folders directly under the folder url,
	 * each added with gt_store_entry_add (or gt_store_listing_add), in any
	 * order: store.c sorts them and leaves the folders out where asked */
	int (*list)(const gt_store_opts *o, const char *url, gt_store_entry **v, size_t *n,
	            gt_error *e);
} gt_store_scheme;

extern const gt_store_scheme gt_store_scheme_local;   /* store_local.c */
extern const gt_store_scheme gt_store_scheme_http;    /* store_http.c */
extern const gt_store_scheme gt_store_scheme_s3;      /* store_s3.c */

/* gt_store_scheme_of: *sc receives the scheme of url (a plain path is
 * local), which has checked it. Returns 0, GT_EINVAL (empty or refused
 * URL) or GT_EUNSUPPORTED (unknown scheme), e filled. */
int gt_store_scheme_of(const char *url, const gt_store_scheme **sc, gt_error *e);

/* gt_store_entry_add: append (name, bytes, mtime, folder) to the array *v
 * of *n entries if name passes gt_store_name_ok; a refused name is reported
 * through o->warn (hidden names, starting with '.', silently). With
 * gt_store_max_list(o) entries in *v already, nothing is added and
 * GT_ETOOLONG returned (e filled): the listing stops there. Returns 0
 * otherwise. */
int gt_store_entry_add(const gt_store_opts *o, gt_store_entry **v, size_t *n, const char *name,
                       long long bytes, long long mtime, int folder, gt_error *e);

/* gt_store_max_list: o->max_list, or GT_STORE_MAX_LIST when o is NULL or
 * it is not above 0. */
long long gt_store_max_list(const gt_store_opts *o);

/* gt_store_listing_add: the files and folders ("type":"directory") of
 * nginx's JSON autoindex appended to *v, *n as gt_store_parse_listing
 * reads them. Returns 0, GT_EFORMAT or GT_ETOOLONG (e filled). */
int gt_store_listing_add(const gt_store_opts *o, const char *json, size_t len,
                         gt_store_entry **v, size_t *n, gt_error *e);

/* gt_store_tag_of: the version tag of an object (gt_store_get_tagged)
 * from the validator a server sent ("" if none) and the hex sha256 of its
 * bytes, into tag. */
void gt_store_tag_of(const char *validator, const char *sha256_hex, char tag[GT_STORE_TAG]);

/* The HTTP requests of the http(s) scheme, for schemes that speak HTTP.
 * auth (may be NULL) is called on each libcurl handle after gt's own
 * options (bearer token, netrc, timeouts), to set more and to change the
 * request headers *hdr (a new list may replace it; the old one is then
 * the hook's to free): where a scheme signs its requests. shown (may be
 * NULL: the request URL) is the URL that messages name, denied (NULL: a
 * word on GT_STORE_TOKEN and netrc) what they add after HTTP 401 and 403.
 * Retries and errors as gt_store_opts says; GT_ENOTFOUND for HTTP 404,
 * GT_ECONFLICT for 409 and 412 (a condition of the request failed). */
typedef struct gt_store_http_auth {
	int (*prepare)(CURL *c, struct curl_slist **hdr, void *ctx, gt_error *e);
	void *ctx;
	const char *shown;
	const char *denied;
} gt_store_http_auth;

int gt_store_http_head(const gt_store_opts *o, const gt_store_http_auth *a, const char *url,
                       long long *bytes, gt_error *e);
int gt_store_http_get(const gt_store_opts *o, const gt_store_http_auth *a, const char *url,
                      gt_store_sink *s, long long *total, int *keep, gt_error *e);
/* gt_store_http_put: PUT the n bytes of in; cond (may be NULL) is a
 * header line sent with it, e.g. "If-None-Match: *". */
int gt_store_http_put(const gt_store_opts *o, const gt_store_http_auth *a, FILE *in, long long n,
                      const char *url, const char *cond, gt_error *e);

/* gt_store_http_cond: the condition header line for a put (into buf of
 * size bytes; returns buf, or NULL for none): "If-None-Match: *" without
 * overwrite, "If-Match: match" with a match that is an ETag (not a
 * "sha256:" tag). */
const char *gt_store_http_cond(int overwrite, const char *match, char *buf, size_t size);

#endif
