/* release: the release decision of gt-publish and the parser of
 * gt-elo's summary line. */
#include "tap.h"
#include "release.h"

static gt_release_match parse(const char *s, int *rc)
{
	gt_release_match m;
	gt_error e = { 0 };
	*rc = gt_release_match_parse(s, strlen(s), &m, &e);
	return m;
}

int main(void)
{
	int rc;
	gt_release_match m = parse("{\"a\":\"c\",\"b\":\"r\",\"games\":100,\"wins\":60,\"draws\":4,\"losses\":36,"
	                         "\"score\":0.62,\"elo\":85.0,\"elo_ci95\":[20.1,150.2],\"los\":0.99}", &rc);
	is_int(rc, 0, "a gt-elo summary parses");
	is_int(m.games, 100, "games");
	is_int(m.wins, 60, "wins");
	is_int(m.draws, 4, "draws");
	is_int(m.losses, 36, "losses");
	is_dbl(m.elo, 85.0, 1e-12, "elo");

	m = parse("{\"games\":5,\"wins\":5,\"draws\":0,\"losses\":0,\"elo\":null}", &rc);
	is_int(rc, 0, "elo null with all games won parses");
	ok(isinf(m.elo) && m.elo > 0, "as +infinity");
	m = parse("{\"games\":5,\"wins\":0,\"draws\":0,\"losses\":5,\"elo\":null}", &rc);
	ok(rc == 0 && isinf(m.elo) && m.elo < 0, "all lost: -infinity");

	static const char *bad[] = {
		"", "not json", "[1,2]", "{\"games\":10,\"wins\":5,\"draws\":0,\"losses\":4,\"elo\":3}",
		"{\"games\":10,\"wins\":-1,\"draws\":11,\"losses\":0,\"elo\":3}",
		"{\"games\":10,\"wins\":5,\"draws\":0,\"losses\":5}",
		"{\"games\":10,\"wins\":5,\"draws\":0,\"losses\":5,\"elo\":\"high\"}",
		"{\"games\":10,\"wins\":5.5,\"draws\":0,\"losses\":4.5,\"elo\":0}",
		"{\"games\":10,\"wins\":5,\"draws\":0,\"losses\":5,\"elo\":null}",
		"{\"games\":10,\"wins\":5,\"draws\":0,\"losses\":5,\"elo\":0",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		gt_error e = { 0 };
		gt_release_match_parse(bad[i], strlen(bad[i]), &m, &e);
		rc = gt_release_match_parse(bad[i], strlen(bad[i]), &m, &e);
		is_int(rc, GT_EFORMAT, "corrupt summary %zu refused", i);
		ok(e.text[0] != 0, "with a reason: %s", e.text);
	}

	/* decision table: match, threshold, steps, previous steps, every -> release */
	static const struct {
		long w, d, l;
		double elo, thr;
		long long steps, prev, every;
		int want;
		const char *why;
	} t[] = {
		{ 60, 4, 36, 85, 20, 1200, 1000, 10000, 1, "> threshold" },
		{ 52, 0, 48, 13.9, 20, 1200, 1000, 10000, 0, "<= threshold" },
		{ 52, 0, 48, 20, 20, 1200, 1000, 10000, 0, "<= threshold" },      /* not strictly above */
		{ 52, 0, 48, 20.01, 20, 1200, 1000, 10000, 1, "> threshold" },
		{ 40, 0, 60, -70, 20, 10000, 9000, 10000, 1, "crossed" },         /* step rule */
		{ 40, 0, 60, -70, 20, 25000, 19999, 10000, 1, "crossed" },
		{ 40, 0, 60, -70, 20, 19999, 10000, 10000, 0, "no multiple" },
		{ 40, 0, 60, -70, 20, 9999, -1, 10000, 0, "no multiple" },        /* nothing published */
		{ 40, 0, 60, -70, 20, 10000, -1, 10000, 1, "crossed" },
		{ 40, 0, 60, -70, 20, 50000, 0, 0, 0, "no multiple" },            /* rule off */
		{ 0, 100, 0, 0, -50, 20000, 1000, 10000, 0, "no decisive" },      /* all draws */
		{ 0, 0, 0, 0, -50, 20000, 1000, 10000, 0, "no decisive" },        /* no games */
		{ 3, 0, 0, INFINITY, 20, 10, 5, 10000, 1, "elo inf >" },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		gt_release_match mm = { t[i].w + t[i].d + t[i].l, t[i].w, t[i].d, t[i].l, t[i].elo };
		char why[256] = "";
		int got = gt_release_decide(&mm, t[i].thr, t[i].steps, t[i].prev, t[i].every,
		                                  why, sizeof why);
		is_int(got, t[i].want, "row %zu: release=%d (%s)", i, t[i].want, why);
		const char *key = t[i].why;
		if (!strcmp(key, "elo inf >"))
			key = "inf > threshold";
		ok(strstr(why, key) != NULL, "row %zu: reason says \"%s\"", i, key);
	}
	return done_testing();
}
