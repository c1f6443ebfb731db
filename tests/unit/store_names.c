/* store_names: the name gate and the listing parser of lib/store, with the
 * regression case store-listing-traversal.json (a hostile listing). */
#include "tap.h"
#include "store.h"

/* /work/shared/cases/store-listing-traversal.json, byte for byte
 * (also tests/nginx/store-listing-traversal.json, served by nginx). */
static const char traversal[] =
	"[\n"
	"{ \"name\":\"worker1-20261129-0001.ndjson.gz\", \"type\":\"file\", \"mtime\":\"Sun, 29 Nov 2026 09:41:01 GMT\", \"size\":612 },\n"
	"{ \"name\":\"../../../../etc/cron.d/evil\", \"type\":\"file\", \"mtime\":\"Sun, 29 Nov 2026 09:41:02 GMT\", \"size\":40 },\n"
	"{ \"name\":\"/etc/passwd\", \"type\":\"file\", \"mtime\":\"Sun, 29 Nov 2026 09:41:03 GMT\", \"size\":1200 },\n"
	"{ \"name\":\"sub/../../x\", \"type\":\"file\", \"mtime\":\"Sun, 29 Nov 2026 09:41:04 GMT\", \"size\":10 },\n"
	"{ \"name\":\"ok\\nname\", \"type\":\"file\", \"mtime\":\"Sun, 29 Nov 2026 09:41:05 GMT\", \"size\":10 }\n"
	"]\n";

static char warned[8][512];
static int nwarned;

static void collect(void *ctx, const char *msg)
{
	(void)ctx;
	if (nwarned < 8)
		snprintf(warned[nwarned], sizeof warned[0], "%s", msg);
	nwarned++;
}

int main(void)
{
	static const struct { const char *name; int ok; } names[] = {
		{ "worker1-20261129-0001.ndjson.gz", 1 },
		{ "run1-b6c64-s1200-d50000.bin.gz", 1 },
		{ "latest.json", 1 },
		{ "with space", 1 },
		{ "", 0 }, { ".", 0 }, { "..", 0 }, { "a..b", 0 }, { "../x", 0 },
		{ "/etc/passwd", 0 }, { "a/b", 0 }, { "a\\b", 0 }, { "ok\nname", 0 },
		{ "tab\there", 0 }, { "del\x7f", 0 }, { ".hidden", 0 }, { ".x.part", 0 },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const char *why = NULL;
		int got = gt_store_name_ok(names[i].name, &why);
		is_int(got, names[i].ok, "name_ok(\"%s\") == %d", names[i].name[0] == 'o' ? "ok\\nname" : names[i].name,
		       names[i].ok);
		ok(names[i].ok ? why == NULL : why != NULL && *why, "reason given exactly when refused (%zu)", i);
	}
	char longname[300];
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = 0;
	is_int(gt_store_name_ok(longname, NULL), 0, "a 299-byte name is refused");

	gt_store_opts o;
	gt_store_opts_init(&o);
	o.warn = collect;
	gt_store_entry *v = NULL;
	size_t n = 99;
	gt_error e = { 0 };
	int rc = gt_store_parse_listing(&o, traversal, strlen(traversal), &v, &n, &e);
	is_int(rc, 0, "hostile listing parses");
	is_int(n, 1, "only one name of the hostile listing is admitted");
	if (n >= 1) {
		is_str(v[0].name, "worker1-20261129-0001.ndjson.gz", "the admitted name is the batch");
		is_int(v[0].bytes, 612, "its size");
		is_int(v[0].mtime, 1795945261LL, "its mtime (Sun, 29 Nov 2026 09:41:01 GMT)");
	}
	is_int(nwarned, 4, "four names refused with a message");
	ok(nwarned >= 4 && strstr(warned[0], "../../../../etc/cron.d/evil") && strstr(warned[0], ".."),
	   "message names the traversal: %s", warned[0]);
	ok(nwarned >= 4 && strstr(warned[1], "/etc/passwd"), "message names the absolute path");
	ok(nwarned >= 4 && strstr(warned[3], "ok\\nname") && !strchr(warned[3], '\n'),
	   "newline in a name is escaped in the message: %s", warned[3]);
	gt_store_entries_free(v, n);

	static const char dirs[] = "[{\"name\":\"models\",\"type\":\"directory\",\"mtime\":\"Sun, 29 Nov 2026 09:41:01 GMT\"},"
		"{\"name\":\"b\",\"type\":\"file\",\"size\":2},{\"name\":\"a\",\"type\":\"file\",\"size\":1}]";
	nwarned = 0;
	rc = gt_store_parse_listing(&o, dirs, strlen(dirs), &v, &n, &e);
	is_int(rc, 0, "listing with a folder parses");
	is_int(n, 2, "folders are left out");
	if (n == 2) {
		is_str(v[0].name, "a", "sorted by name");
		is_int(v[0].mtime, -1, "missing mtime is -1");
	}
	gt_store_entries_free(v, n);

	rc = gt_store_parse_listing(&o, "{\"name\":1}", 10, &v, &n, &e);
	is_int(rc, GT_EFORMAT, "an object instead of an array is malformed");
	rc = gt_store_parse_listing(&o, "[{\"name\":", 9, &v, &n, &e);
	is_int(rc, GT_EFORMAT, "truncated JSON is malformed");
	ok(e.text[0] != 0, "with a message: %s", e.text);

	char *j = gt_store_join("http://h/store/games", "a b%c.gz");
	is_str(j, "http://h/store/games/a%20b%25c.gz", "join escapes names for HTTP");
	free(j);
	j = gt_store_join("/srv/store/", "a b");
	is_str(j, "/srv/store/a b", "join keeps local names as they are");
	free(j);
	is_str(gt_store_basename("http://h/x/y.gz"), "y.gz", "basename");
	is_str(gt_store_basename("http://h/x/"), "", "basename of a folder URL is empty");
	return done_testing();
}
