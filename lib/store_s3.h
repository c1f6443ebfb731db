/*
 * store_s3.h: the parts of the s3:// scheme (store_s3.c) that the unit
 * tests reach: where a request goes and with which credentials, and the
 * reading of a ListObjectsV2 answer. Private to lib/ and tests/unit.
 *
 * An S3 URL is s3://BUCKET/KEY, KEY percent-escaped as gt_store_join
 * writes it. Requests go to
 *   ENDPOINT/BUCKET/KEY         path-style, for an endpoint from
 *                               AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or
 *                               the profile's endpoint_url (MinIO, Ceph,
 *                               R2 and other S3-compatible servers), and
 *                               for bucket names that are no DNS label
 *   https://BUCKET.s3.REGION.amazonaws.com/KEY   virtual-hosted, AWS
 * and are signed with AWS Signature Version 4 by libcurl
 * (CURLOPT_AWS_SIGV4), unless no credentials are found: then they go
 * unsigned (a bucket that allows anonymous reads).
 */
#ifndef GT_STORE_S3_H
#define GT_STORE_S3_H
#include "store_scheme.h"

/* Where and as whom the requests of a process go. */
typedef struct gt_s3_conf {
	char key[128];        /* access key id, "" for anonymous requests */
	char secret[128];
	char token[4096];     /* session token, "" if none */
	char region[64];
	char endpoint[512];   /* scheme://host[:port][/path], no trailing '/' */
	int custom;           /* 1: the endpoint was configured (path-style) */
	char source[160];     /* where the credentials came from, for messages */
} gt_s3_conf;

/* gt_s3_conf_load: fill c the way the AWS command-line tools do:
 *   profile      AWS_PROFILE, else AWS_DEFAULT_PROFILE, else "default"
 *   credentials  AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and
 *                AWS_SESSION_TOKEN), else aws_access_key_id,
 *                aws_secret_access_key and aws_session_token of the
 *                profile in AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials),
 *                else in AWS_CONFIG_FILE (~/.aws/config); none: anonymous
 *   region       AWS_REGION, AWS_DEFAULT_REGION, the profile's region in
 *                the config file, else us-east-1
 *   endpoint     AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's
 *                endpoint_url in the config file, else
 *                https://s3.REGION.amazonaws.com
 * The config file names profiles [default] and [profile NAME], the
 * credentials file [NAME]. Returns 0, or GT_EINVAL (e says why) for an
 * endpoint that is not http(s)://HOST..., a key or region with characters
 * outside printable ASCII, or a profile that names credentials gt cannot
 * use (role_arn, sso_*, credential_process: export the keys instead). */
int gt_s3_conf_load(gt_s3_conf *c, gt_error *e);

/* gt_s3_check: 0 if url is s3://BUCKET[/KEY] with a bucket name of 1..63
 * letters, digits, '.', '_' or '-'; else GT_EINVAL (e says why). */
int gt_s3_check(const char *url, gt_error *e);

/* gt_s3_http_url: the HTTP URL of the S3 URL url under c (new string,
 * caller frees): the key decoded and encoded again as AWS's UriEncode
 * does (every byte but letters, digits and -._~/ as %XX), and "?query"
 * when query is not NULL (query must be canonical already: parameters
 * sorted by name, values UriEncoded; libcurl signs it as given). url
 * must have passed gt_s3_check. */
char *gt_s3_http_url(const gt_s3_conf *c, const char *url, const char *query);

/* gt_s3_uri_encode: AWS's UriEncode of the NUL-terminated s: letters,
 * digits and -._~ kept (and '/' when keep_slash), every other byte %XX
 * with upper-case digits. New string; caller frees. */
char *gt_s3_uri_encode(const char *s, int keep_slash);

/* gt_s3_list_parse: read one ListObjectsV2 answer (xml, len bytes) of the
 * folder whose keys start with prefix (the folder's key and '/', or ""
 * for the bucket): each object directly under it (Contents: Key, Size,
 * LastModified) and each sub-folder (CommonPrefixes) appended to *v, *n
 * with gt_store_entry_add (so names are checked and refused ones reported
 * through o->warn); keys outside prefix and the folder's own key are left
 * out. *next receives a new string, the NextContinuationToken of a
 * truncated answer (IsTruncated true), or NULL. Returns 0, GT_EFORMAT
 * (e says where) for XML that is not well-formed, not a ListBucketResult,
 * or truncated without a token, or GT_ETOOLONG (read no further) when *v
 * would pass gt_store_max_list(o) entries. */
int gt_s3_list_parse(const gt_store_opts *o, const char *xml, size_t len, const char *prefix,
                     gt_store_entry **v, size_t *n, char **next, gt_error *e);

#endif
