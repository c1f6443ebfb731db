/* store_s3: the parts of the s3:// scheme that need no server (store_s3.h):
 * AWS's UriEncode, the request URL (path-style and virtual-hosted), the
 * credentials and endpoint from the environment and the ~/.aws files, and
 * ListObjectsV2 answers (the example answers of the S3 API reference,
 * shortened); and gt_store_replace on a local store (versions by sha256,
 * GT_ECONFLICT when the object changed). */
#include "tap.h"
#include "store_s3.h"

#include <unistd.h>

static int nwarned;

/* count_warn: the store's warnings, counted */
static void count_warn(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
	nwarned++;
}

static const char page1[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
	"<Name>gt</Name><Prefix>run1/games/</Prefix><KeyCount>4</KeyCount><MaxKeys>3</MaxKeys>"
	"<Delimiter>/</Delimiter><IsTruncated>true</IsTruncated>"
	"<Contents><Key>run1/games/</Key><Size>0</Size></Contents>"
	"<Contents><Key>run1/games/a-1.ndjson.gz</Key><LastModified>2026-11-29T09:41:01.000Z</LastModified>"
	"<ETag>&quot;d41d8cd98f00b204e9800998ecf8427e&quot;</ETag><Size>612</Size>"
	"<StorageClass>STANDARD</StorageClass></Contents>"
	"<Contents><Key>run1/games/b&amp;c.ndjson</Key><LastModified>2026-11-29T09:41:02.000Z</LastModified>"
	"<Size>7</Size></Contents>"
	"<CommonPrefixes><Prefix>run1/games/alice/</Prefix></CommonPrefixes>"
	"<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>"
	"</ListBucketResult>";

static const char page2[] =
	"<ListBucketResult><IsTruncated>false</IsTruncated>"
	"<Contents><Key>run1/games/c.ndjson.gz</Key><Size>9</Size></Contents>"
	"<Contents><Key>run1/other/x</Key><Size>1</Size></Contents>"
	"<Contents><Key>run1/games/../../etc/passwd</Key><Size>1</Size></Contents>"
	"</ListBucketResult>";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

int main(void)
{
	char *s = gt_s3_uri_encode("a b/c+d~e_f.g-h%", 1);
	is_str(s, "a%20b/c%2Bd~e_f.g-h%25", "UriEncode keeps letters, digits, -._~ and '/' when asked");
	free(s);
	s = gt_s3_uri_encode("a/b=c", 0);
	is_str(s, "a%2Fb%3Dc", "and escapes '/' in a query value");
	free(s);

	gt_error e = { 0 };
	ok(gt_s3_check("s3://gt/run1/games/", &e) == 0, "s3://gt/run1/games/ is an S3 URL");
	ok(gt_s3_check("s3://u:p@gt/x", &e) == GT_EINVAL && strstr(e.text, "credentials"),
	   "credentials in the URL are refused: %s", e.text);
	ok(gt_s3_check("s3:///x", &e) == GT_EINVAL, "an empty bucket is refused");

	gt_s3_conf c = { .region = "eu-west-1", .endpoint = "https://s3.eu-west-1.amazonaws.com" };
	s = gt_s3_http_url(&c, "s3://gt-store/run1/a%20b.json", NULL);
	is_str(s, "https://gt-store.s3.eu-west-1.amazonaws.com/run1/a%20b.json", "AWS: virtual-hosted");
	free(s);
	s = gt_s3_http_url(&c, "s3://gt.store/run1/x", NULL);
	is_str(s, "https://s3.eu-west-1.amazonaws.com/gt.store/run1/x", "a bucket with a dot: path-style");
	free(s);
	gt_s3_conf m = { .region = "us-east-1", .endpoint = "http://127.0.0.1:9000", .custom = 1 };
	s = gt_s3_http_url(&m, "s3://gt", "delimiter=%2F&list-type=2&prefix=");
	is_str(s, "http://127.0.0.1:9000/gt?delimiter=%2F&list-type=2&prefix=", "an endpoint: path-style, the query");
	free(s);

	/* configuration from the environment and the files */
	char dir[] = "/tmp/gt-s3-XXXXXX", cred[64], cfg[64];
	if (!mkdtemp(dir))
		return 1;
	snprintf(cred, sizeof cred, "%s/credentials", dir);
	snprintf(cfg, sizeof cfg, "%s/config", dir);
	write_file(cred, "[default]\naws_access_key_id = AKDEFAULT\naws_secret_access_key = sdefault\n"
	                 "\n[p2]\naws_access_key_id=AKP2\n  ; indented\naws_secret_access_key = s p2x\n"
	                 "[sso]\nsso_start_url = https://x\n");
	write_file(cfg, "[default]\nregion = eu-central-1\n[profile p2]\nregion = ap-south-1\n"
	                "endpoint_url = http://minio.local:9000/\n[profile sso]\nsso_session = x\n");
	static const char *const vars[] = { "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
		"AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION",
		"AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3" };
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		unsetenv(vars[i]);
	setenv("AWS_SHARED_CREDENTIALS_FILE", cred, 1);
	setenv("AWS_CONFIG_FILE", cfg, 1);
	ok(gt_s3_conf_load(&c, &e) == 0, "the default profile");
	is_str(c.key, "AKDEFAULT", "its key");
	is_str(c.region, "eu-central-1", "its region from the config file");
	is_str(c.endpoint, "https://s3.eu-central-1.amazonaws.com", "AWS's endpoint for the region");
	is_int(c.custom, 0, "not custom");
	setenv("AWS_PROFILE", "p2", 1);
	ok(gt_s3_conf_load(&c, &e) == GT_EINVAL, "a secret with a space is refused: %s", e.text);
	write_file(cred, "[p2]\naws_access_key_id=AKP2\naws_secret_access_key = sp2\n");
	ok(gt_s3_conf_load(&c, &e) == 0, "AWS_PROFILE=p2");
	is_str(c.secret, "sp2", "its secret");
	is_str(c.endpoint, "http://minio.local:9000", "its endpoint_url, without the trailing '/'");
	is_int(c.custom, 1, "custom: path-style");
	is_str(c.region, "ap-south-1", "its region");
	setenv("AWS_ACCESS_KEY_ID", "AKENV", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "senv", 1);
	setenv("AWS_SESSION_TOKEN", "tok", 1);
	setenv("AWS_REGION", "us-west-2", 1);
	setenv("AWS_ENDPOINT_URL", "https://r2.example.com", 1);
	ok(gt_s3_conf_load(&c, &e) == 0, "the environment");
	ok(!strcmp(c.key, "AKENV") && !strcmp(c.token, "tok") && !strcmp(c.region, "us-west-2") &&
	   !strcmp(c.endpoint, "https://r2.example.com"), "comes before the files");
	setenv("AWS_ENDPOINT_URL", "ftp://x", 1);
	ok(gt_s3_conf_load(&c, &e) == GT_EINVAL, "an endpoint that is not http(s): %s", e.text);
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		unsetenv(vars[i]);
	setenv("AWS_PROFILE", "sso", 1);
	write_file(cred, "");
	ok(gt_s3_conf_load(&c, &e) == GT_EINVAL && strstr(e.text, "sso_session"),
	   "a profile of SSO credentials is refused with a hint: %s", e.text);
	setenv("AWS_PROFILE", "none", 1);
	ok(gt_s3_conf_load(&c, &e) == 0 && !c.key[0], "no credentials: anonymous");
	unsetenv("AWS_PROFILE");
	unlink(cred);
	unlink(cfg);
	rmdir(dir);

	/* listings */
	gt_store_opts o = { .warn = count_warn };
	gt_store_entry *v = NULL;
	size_t n = 0;
	char *next = NULL;
	ok(gt_s3_list_parse(&o, page1, sizeof page1 - 1, "run1/games/", &v, &n, &next, &e) == 0,
	   "a truncated page");
	is_str(next ? next : "(null)", "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=", "its continuation token");
	is_int((long)n, 3, "two objects and a folder (the folder's own key left out)");
	if (n == 3) {
		is_str(v[0].name, "a-1.ndjson.gz", "a name");
		is_int(v[0].bytes, 612, "its size");
		is_int(v[0].mtime, 1795945261, "its time");
		is_str(v[1].name, "b&c.ndjson", "an entity decoded");
		ok(!strcmp(v[2].name, "alice") && v[2].folder, "the common prefix is a folder");
	}
	free(next);
	next = NULL;
	nwarned = 0;
	ok(gt_s3_list_parse(&o, page2, sizeof page2 - 1, "run1/games/", &v, &n, &next, &e) == 0 && !next,
	   "the last page");
	is_int((long)n, 4, "adds one object");
	is_int(nwarned, 1, "a key outside the folder is reported");
	gt_store_entries_free(v, n);
	v = NULL;
	n = 0;
	ok(gt_s3_list_parse(&o, "<ListBucketResult><Contents>", 28, "", &v, &n, &next, &e) == GT_EFORMAT,
	   "XML cut short: %s", e.text);
	ok(gt_s3_list_parse(&o, "<Error><Code>x</Code></Error>", 29, "", &v, &n, &next, &e) == GT_EFORMAT,
	   "not a ListBucketResult");
	static const char notok[] = "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>";
	ok(gt_s3_list_parse(&o, notok, sizeof notok - 1, "", &v, &n, &next, &e) == GT_EFORMAT,
	   "truncated without a token: %s", e.text);
	gt_store_entries_free(v, n);

	/* versioned replacement on a local store */
	char sd[] = "/tmp/gt-rep-XXXXXX", url[128], tag[GT_STORE_TAG], tag2[GT_STORE_TAG], *buf;
	size_t len;
	if (!mkdtemp(sd))
		return 1;
	snprintf(url, sizeof url, "file://%s/models/latest.json", sd);
	ok(gt_store_get_tagged(&o, url, 1000, &buf, &len, tag, &e) == 0 && !buf && !tag[0],
	   "an absent pointer: no bytes, tag \"\"");
	ok(gt_store_replace(&o, "one\n", 4, url, "", &e) == 0, "created when none is there");
	ok(gt_store_replace(&o, "two\n", 4, url, "", &e) == GT_ECONFLICT, "not created again: %s", e.text);
	ok(gt_store_get_tagged(&o, url, 1000, &buf, &len, tag, &e) == 0 && len == 4 && !memcmp(buf, "one\n", 4),
	   "read with its version");
	free(buf);
	is_str(tag, "sha256:2c8b08da5ce60398e1f19af0e5dccc744df274b826abe585eaba68c525434806",
	       "the version of a local file is its sha256");
	ok(gt_store_replace(&o, "two\n", 4, url, tag, &e) == 0, "replaced over that version");
	ok(gt_store_replace(&o, "three\n", 6, url, tag, &e) == GT_ECONFLICT && strstr(e.text, "changed"),
	   "not over the old one: %s", e.text);
	ok(gt_store_get_tagged(&o, url, 1000, &buf, &len, tag2, &e) == 0 && len == 4 && !memcmp(buf, "two\n", 4),
	   "which stays");
	free(buf);
	char path[128];
	snprintf(path, sizeof path, "%s/models/latest.json", sd);
	unlink(path);
	ok(gt_store_replace(&o, "four\n", 5, url, tag2, &e) == GT_ECONFLICT && strstr(e.text, "went away"),
	   "a pointer removed since it was read: %s", e.text);
	snprintf(path, sizeof path, "%s/models", sd);
	rmdir(path);
	rmdir(sd);
	return done_testing();
}
