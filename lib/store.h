/*
 * store.h: the object store that workers and the trainer share (gt(7)
 * "The store"). A store is a URL:
 *   /plain/dir or file:///dir   a local directory (no server)
 *   http://host/... https://... any server that answers GET/HEAD, takes PUT
 *                               and lists a folder URL as nginx's JSON
 *                               autoindex (name, type, mtime, size)
 *   s3://bucket/prefix          an S3 bucket or an S3-compatible server
 *                               (store_s3.c: requests signed with AWS
 *                               Signature Version 4 by libcurl, ListObjectsV2
 *                               listings; credentials, region and endpoint
 *                               as the AWS tools find them)
 * Objects are immutable: a put of different bytes under an existing name is
 * refused (unless overwrite is asked for, for pointer files such as
 * models/latest.json). Downloads go to a temporary file next to the target,
 * are checked (byte count, optional sha256 and size), fsynced and renamed,
 * so nothing half-written ever appears under the final name.
 *
 * Names of objects (the last path component) are untrusted when they come
 * from a listing: gt_store_name_ok() is the one gate every listed name
 * passes before it is fetched or used as a local file name.
 *
 * HTTP credentials come from a netrc file or a bearer token, never from the
 * URL (a URL with user:password@ is refused). The token is sent over
 * https://, or over plain http:// only to the loopback host (localhost,
 * 127.x.x.x, [::1]) or with insecure_token set. Connection errors,
 * timeouts, HTTP 408, 429, 5xx and 3xx are retried with exponential
 * backoff and jitter; other 4xx are not. A redirect is never followed and
 * its body never taken for the object.
 *
 * A local store (a folder or file://) follows no symbolic link in its
 * last component: an object that is one cannot be read (O_NOFOLLOW) and a
 * listing skips it with a warning, so a link planted in a shared store
 * cannot make a reader send or train on a file outside it.
 *
 * Pointer files that more than one writer may replace (models/latest.json,
 * stats/contributions.json, the DiLoCo lease) are read with their version
 * (gt_store_get_tagged) and replaced only over that version
 * (gt_store_replace): atomically where the server honours If-Match and
 * If-None-Match (S3 since 2024, MinIO, Apache's mod_dav) and on a local
 * store (flock); elsewhere (nginx's WebDAV, s3rver) the version is read
 * again just before the put, which narrows the race without closing it.
 *
 * Each scheme is a table of operations in its own file (store_local.c,
 * store_http.c, store_s3.c; see store_scheme.h, private to lib/).
 */
#ifndef GT_STORE_H
#define GT_STORE_H
#include <jansson.h>
#include <stdio.h>
#include "gt.h"

/* Options shared by every store call; caller-owned, strings borrowed. */
typedef struct gt_store_opts {
	int retries;          /* extra attempts after a retryable failure (default 5) */
	double timeout_s;     /* whole-request timeout in seconds, 0 = none (default 300) */
	double connect_timeout_s; /* connect timeout in seconds (default 10) */
	double backoff_s;     /* first backoff delay; doubles per attempt, capped at 8 s,
	                       * times a random factor in [0.5, 1.5) (default 0.5) */
	const char *token;    /* sent as "Authorization: Bearer TOKEN", or NULL */
	int insecure_token;   /* 1: send the token over plain http:// to any host */
	const char *netrc;    /* netrc file for user/password, or NULL for ~/.netrc */
	/* max_list: the most entries (objects and sub-folders, each name
	 * counted whether or not it passes gt_store_name_ok) one listing may
	 * hold; more is GT_ETOOLONG, read no further. <= 0: GT_STORE_MAX_LIST.
	 * An S3 listing also stops after max_list / 100 + 1 pages
	 * (gt_store_list). */
	long long max_list;
	/* warn: called with one line of text (no newline) for each thing that
	 * was skipped or retried; NULL to stay silent. Names in the text are
	 * quoted with control characters escaped. */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
} gt_store_opts;

/* The default bound on the entries of one listing (gt_store_opts.max_list). */
#define GT_STORE_MAX_LIST (1LL << 20)

/* gt_store_opts_init: fill o with the defaults above. */
void gt_store_opts_init(gt_store_opts *o);

/* gt_store_opts_env: token from the environment variable GT_STORE_TOKEN
 * (borrowed; NULL when unset or empty) and insecure_token set when
 * GT_STORE_INSECURE_TOKEN is "1". */
void gt_store_opts_env(gt_store_opts *o);

/* gt_store_warn: a printf-style line (cut to 1023 bytes) through o->warn;
 * nothing when o or o->warn is NULL. */
void gt_store_warn(const gt_store_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* One object of a listing; name is owned by the array (gt_store_entries_free). */
typedef struct gt_store_entry {
	char *name;           /* a name that passed gt_store_name_ok() */
	long long bytes;      /* size, -1 if unknown */
	long long mtime;      /* seconds since the epoch, -1 if unknown */
	int folder;           /* 1: a sub-folder (gt_store_list_all only) */
} gt_store_entry;

/* Hex sha256 of 64 lowercase digits plus NUL. */
#define GT_SHA256_HEX 65

/* gt_store_quote: s in double quotes with '"', '\\' and control bytes
 * escaped, cut to fit buf (size bytes, at least 8); returns buf. For
 * messages about untrusted names. */
const char *gt_store_quote(const char *s, char *buf, size_t size);

/* gt_store_name_ok: 1 if name may be used as an object name and a local
 * file name: non-empty, at most 255 bytes, no "..", no '/', no '\\', no
 * control character (bytes < 0x20 and 0x7f), not starting with '.'
 * (hidden and temporary files). 0 otherwise; *why (may be NULL) then
 * points at a static phrase saying which rule failed. */
int gt_store_name_ok(const char *name, const char **why);

/* gt_store_parse_listing: parse nginx's JSON autoindex (an array of
 * {"name","type","mtime","size"}) into *ents and *n (new array, free with
 * gt_store_entries_free), regular files only, sorted by name. Names that
 * fail gt_store_name_ok are left out and reported through o->warn (o may
 * be NULL). Returns 0, GT_EFORMAT (e filled) if the text is not such an
 * array, or GT_ETOOLONG if it has more than o->max_list entries. */
int gt_store_parse_listing(const gt_store_opts *o, const char *json, size_t len,
                           gt_store_entry **ents, size_t *n, gt_error *e);

/* gt_store_list: list the objects directly under the folder URL (a trailing
 * '/' is added if missing): nginx JSON autoindex over HTTP, readdir for a
 * local store, ListObjectsV2 pages for S3. Same result and filtering as
 * gt_store_parse_listing. Every listing is bounded, against a server that
 * never stops: at most o->max_list entries in every scheme; an HTTP
 * listing at most 256 MiB of text; an S3 listing at most max_list / 100 + 1
 * pages (ListObjectsV2 gives up to 1000 keys a page), 16 MiB a page and
 * 512 MiB of text over all pages, and never the same continuation token
 * twice in a row. Past a bound the listing stops there with GT_ETOOLONG (e
 * names the URL and the bound).
 * Errors: GT_ENOTFOUND (no such folder), GT_EIO, GT_EFORMAT, GT_EINVAL,
 * GT_ETOOLONG. */
int gt_store_list(const gt_store_opts *o, const char *url,
                  gt_store_entry **ents, size_t *n, gt_error *e);

/* gt_store_list_all: gt_store_list with the sub-folders too (entries with
 * folder 1, named without a trailing '/'), sorted by name: readdir for a
 * local store, the "directory" entries of nginx's listing, the common
 * prefixes of an S3 listing. */
int gt_store_list_all(const gt_store_opts *o, const char *url, gt_store_entry **ents,
                      size_t *n, gt_error *e);

/* gt_store_entries_free: free an array from gt_store_list/parse_listing. */
void gt_store_entries_free(gt_store_entry *ents, size_t n);

/* gt_store_join: new string base + '/' + name (one slash between them); for
 * an HTTP base the name is percent-escaped. Caller frees. */
char *gt_store_join(const char *base, const char *name);

/* gt_store_local_path: *path receives the local file or folder behind url
 * (new string, caller frees) for a plain path or a file:// URL, NULL for a
 * URL of another scheme. Returns 0, or GT_EINVAL / GT_EUNSUPPORTED (e
 * filled) for a URL no scheme accepts. */
int gt_store_local_path(const char *url, char **path, gt_error *e);

/* gt_store_basename: the last path component of a URL or path (borrowed
 * pointer into url; "" if url ends with '/'). */
const char *gt_store_basename(const char *url);

/* gt_store_get: download url to the local file path. The bytes go to
 * "<dir>/.<name>.part" first; an existing partial file of that name is
 * resumed with an HTTP Range request. The byte count must match the
 * server's Content-Length; if sha256 (hex, may be NULL) or bytes (>= 0; -1
 * for no check) are given they must match too. A known size (bytes) is
 * also a bound while downloading: an answer announced larger is refused
 * before its body, and the download stops at the first byte past it, so
 * no more than bytes bytes are ever written. Then fsync and rename onto
 * path. A failed check deletes the temporary file (an interrupted
 * transfer keeps it, to be resumed). On success *got_sha (may be NULL)
 * receives the hex sha256.
 * Errors: GT_ENOTFOUND, GT_ETOOLONG (more bytes than bytes), GT_ECHECKSUM
 * (size or digest differ), GT_EIO (including a redirect, which is not
 * followed, after the retries), GT_EINVAL (bad URL or path, or a token
 * refused over plain http). */
int gt_store_get(const gt_store_opts *o, const char *url, const char *path,
                 const char *sha256, long long bytes, char got_sha[GT_SHA256_HEX],
                 gt_error *e);

/* Validation of a download before it is installed: path is the temporary
 * file; return 0 to accept, a negative gt_err (e filled) to refuse. */
typedef int (*gt_store_validate_fn)(const char *path, void *ctx, gt_error *e);

/* gt_store_get_validated: gt_store_get, and validate (may be NULL) called
 * on the temporary file after the checks, before the rename; its error is
 * returned as it is. */
int gt_store_get_validated(const gt_store_opts *o, const char *url, const char *path,
                           const char *sha256, long long bytes, gt_store_validate_fn validate,
                           void *vctx, char got_sha[GT_SHA256_HEX], gt_error *e);

/* gt_store_get_stream: download url and write its bytes to out (an answer
 * cut off is resumed with a Range request, or its bytes already written
 * skipped). max >= 0: no more than max bytes are written; an object
 * larger is GT_ETOOLONG (out then holds at most max bytes); -1: no bound.
 * Errors as gt_store_get. */
int gt_store_get_stream(const gt_store_opts *o, const char *url, FILE *out, long long max,
                        gt_error *e);

/* gt_store_get_mem: download a small object into a new NUL-terminated
 * buffer *buf (caller frees) of *len bytes; more than max bytes is
 * GT_ETOOLONG. Errors as gt_store_get. */
int gt_store_get_mem(const gt_store_opts *o, const char *url, size_t max,
                     char **buf, size_t *len, gt_error *e);

/* gt_store_get_json: download a small JSON document (a pointer or lease
 * file of at most max bytes) and parse it: *j receives a new reference
 * (caller json_decref), or NULL when the object is absent, which is no
 * error (returns 0). Errors: GT_EFORMAT (not JSON; e says where), those of
 * gt_store_get_mem. */
int gt_store_get_json(const gt_store_opts *o, const char *url, size_t max, json_t **j,
                      gt_error *e);

/* Room for an object's version tag (gt_store_get_tagged), NUL included. */
#define GT_STORE_TAG 256

/* gt_store_get_tagged: download a small object (at most max bytes) into a
 * new NUL-terminated buffer *buf of *len bytes (caller frees), and its
 * version into tag: the ETag the HTTP or S3 server sent, else (a local
 * store, a server without ETags) "sha256:" and the hex digest of the
 * bytes. An absent object is no error: *buf is NULL, *len 0 and tag "".
 * Errors as gt_store_get_mem. */
int gt_store_get_tagged(const gt_store_opts *o, const char *url, size_t max, char **buf,
                        size_t *len, char tag[GT_STORE_TAG], gt_error *e);

/* gt_store_replace: put the len bytes at buf under url only if the object
 * is still the version tag read by gt_store_get_tagged, or, with tag "",
 * only if there is still none. A local store checks under flock(2) and
 * renames; HTTP and S3 send If-Match: tag (If-None-Match: * for "") and a
 * server that honours it answers 412 when the object changed. Before the
 * put the version is read again and compared, which is all the protection
 * a server that ignores the condition gives (a writer between that read
 * and the put is not seen). After a 412 the object is read back: holding
 * these very bytes, it was this put, taken by the server with its answer
 * lost and then retried, and that is success. Returns 0, GT_ECONFLICT (e
 * says the object changed, appeared or went; nothing was written by this
 * call), or the errors of gt_store_put. */
int gt_store_replace(const gt_store_opts *o, const void *buf, size_t len, const char *url,
                     const char *tag, gt_error *e);

/* gt_store_put: upload the seekable stream in (from its start) to url.
 * Without overwrite the object is immutable: if url exists with the same
 * bytes this succeeds and *existed (may be NULL) is set to 1; different
 * bytes are GT_ECHECKSUM. With overwrite the object is replaced. A local
 * store writes a temporary file, fsyncs and renames (or links, for
 * immutable objects), creating missing folders.
 * Errors: GT_ECHECKSUM, GT_EIO, GT_EINVAL. */
int gt_store_put(const gt_store_opts *o, FILE *in, const char *url, int overwrite,
                 int *existed, gt_error *e);

/* gt_store_put_mem: gt_store_put of the len bytes at buf (borrowed), through
 * a temporary file. Same results and errors as gt_store_put. */
int gt_store_put_mem(const gt_store_opts *o, const void *buf, size_t len, const char *url,
                     int overwrite, int *existed, gt_error *e);

/* gt_store_put_file: gt_store_put of the local file path. A url ending in
 * '/' is a folder: the object is named after the file (its base name must
 * pass gt_store_name_ok, else GT_EINVAL). GT_EIO when the file cannot be
 * opened; else gt_store_put's results. */
int gt_store_put_file(const gt_store_opts *o, const char *path, const char *url, int overwrite,
                      int *existed, gt_error *e);

/* gt_store_sha256_stream: hex sha256 and size (may be NULL) of the bytes
 * of a stream from its start; leaves it positioned at the end. GT_EIO. */
int gt_store_sha256_stream(FILE *f, char hex[GT_SHA256_HEX], long long *bytes,
                           gt_error *e);

/* gt_store_sha256_file: the same for the local file path; GT_ENOTFOUND if
 * it does not exist, GT_EIO. */
int gt_store_sha256_file(const char *path, char hex[GT_SHA256_HEX], long long *bytes,
                         gt_error *e);

/* gt_store_sha256_ok: 1 if s is a sha256 in hex (64 hex digits, either
 * case), copied lowercased into out; 0 otherwise. */
int gt_store_sha256_ok(const char *s, char out[GT_SHA256_HEX]);

#endif
