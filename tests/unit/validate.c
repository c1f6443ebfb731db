/* Unit tests of lib/validate's handling of one input line: a generated
 * game passes, then counts as a duplicate once committed, by its game_id
 * and, under another id, by its seed and moves; the seen file gets the
 * hashes' lines; lines that are no record get reason codes; the rejects
 * line has its keys in order, '?' for bytes outside printable ASCII and
 * null for what a record lacks. */
#include "record.h"
#include "record_gen.h"
#include "testutil.h"
#include "validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	gt_validate_opts o;
	gt_validate_opts_init(&o);
	gt_seen *seen = gt_seen_new();
	gt_record r, p;
	gt_record_init(&r);
	gt_record_init(&p);
	gen_record(&r, 7, 11, 0);
	gt_error e = {0};
	size_t len;
	char *line = gt_record_format(&r, &len, &e), detail[256], hx[33];
	const char *reason = "x";
	gt_seen_keys k;
	ok(line != NULL, "a generated game as a line");
	if (!line)
		return done_testing();
	len--; /* the newline */
	is_int(gt_validate_line(&p, line, len, &o, seen, &k, &reason, detail, sizeof detail), 0,
	       "passes: %s", reason ? detail : "");
	uint8_t id[16], game[16];
	int has_id;
	gt_record_hashes(&r, id, &has_id, game);
	ok(k.has_id && has_id && !memcmp(k.id, id, 16) && !memcmp(k.game, game, 16),
	   "its keys are gt_record_hashes'");

	/* committed: the seen file gets both hashes in one write */
	FILE *tf = tmpfile();
	ok(tf && gt_seen_commit(seen, &k, fileno(tf)) == 0, "committed");
	char want[80], got[80] = "";
	snprintf(want, sizeof want, "%s\n", gt_hash_hex(id, hx));
	snprintf(want + 33, sizeof want - 33, "%s\n", gt_hash_hex(game, hx));
	rewind(tf);
	size_t n = fread(got, 1, sizeof got - 1, tf);
	got[n] = 0;
	is_str(got, want, "the seen file: id, then game");
	fclose(tf);
	is_int(gt_seen_count(seen), 2, "two hashes seen");

	/* now a duplicate by id; and by seed and moves under another id */
	is_int(gt_validate_line(&p, line, len, &o, seen, &k, &reason, detail, sizeof detail),
	       GT_EFORMAT, "the same line again is refused");
	is_str(reason, "duplicate-id", "as a duplicate id");
	snprintf(want, sizeof want, "game_id seen before (%s)", gt_hash_hex(id, hx));
	is_str(detail, want, "naming its hash");
	free(r.game_id);
	r.game_id = gt_xstrdup("another");
	free(line);
	line = gt_record_format(&r, &len, &e);
	is_int(gt_validate_line(&p, line, len - 1, &o, seen, &k, &reason, detail, sizeof detail),
	       GT_EFORMAT, "the same game under another id is refused");
	is_str(reason, "duplicate-game", "as a duplicate game");
	ok(gt_seen_commit(seen, &k, -1) == 0 && gt_seen_count(seen) == 3, "no seen file: only the set");

	/* not records */
	is_int(gt_validate_line(&p, "not json", 8, &o, seen, &k, &reason, detail, sizeof detail),
	       GT_EFORMAT, "not JSON");
	is_str(reason, "json", "reason json");
	ok(strstr(detail, "invalid JSON") != NULL, "detail: %s", detail);
	is_int(gt_validate_line(&p, "{}", 2, &o, seen, &k, &reason, detail, sizeof detail),
	       GT_EFORMAT, "an empty object");
	ok(reason && strcmp(reason, "json"), "a reason of the parser: %s (%s)", reason, detail);

	/* the rejects line */
	char *j = gt_validate_reject_json("in\x01.ndjson", 12, NULL, "too-long", "caf\xc3\xa9");
	is_str(j, "{\"file\":\"in?.ndjson\",\"line\":12,\"game_id\":null,\"worker\":null,"
	          "\"model\":null,\"reason\":\"too-long\",\"detail\":\"caf??\"}",
	       "a line that could not be read");
	free(j);
	j = gt_validate_reject_json("-", 3, &r, "duplicate-game", "d");
	is_str(j, "{\"file\":\"-\",\"line\":3,\"game_id\":\"another\",\"worker\":\"w0\","
	          "\"model\":\"gen-b6c64-s1200-d50000\",\"reason\":\"duplicate-game\",\"detail\":\"d\"}",
	       "a record's line");
	free(j);
	free(line);
	gt_record_release(&r);
	gt_record_release(&p);
	gt_seen_free(seen);
	return done_testing();
}
