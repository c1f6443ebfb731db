/* release.c: the release pointer (models/latest.json) read and installed,
 * the decision to release a network, its release (network, pointer,
 * history), and the self-play settings published with it. */
#include "release.h"
#include "fs.h"
#include "model.h"
#include "sign.h"
#include "store.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the pointer ---- */

/* Where the store keeps what it publishes, under the store URL. */
#define POINTER "models/latest.json"
#define HISTORY "models/history.ndjson"
#define MODELS "models/"

/* The pointer last installed, kept in the install folder: the sequence
 * number a pointer must not go below. Hidden: no published name starts
 * with '.' (gt_store_name_ok), so no network can be called that. */
#define INSTALLED ".latest.json"

/* pointer_seq: the "seq" of the pointer j, 0 when it has none, -1 when it
 * is not an integer >= 1 */
static long long pointer_seq(json_t *j)
{
	json_t *s = json_object_get(j, "seq");
	if (!s)
		return 0;
	return json_is_integer(s) && json_integer_value(s) >= 1 ? (long long)json_integer_value(s) : -1;
}

/* installed: the "seq" and name (into name, size bytes; "" if none) of
 * the pointer installed in dir; *seq -1 when nothing was installed there.
 * GT_EFORMAT when that file is unreadable (e says to remove it). */
static int installed(const char *dir, long long *seq, char *name, size_t size, gt_error *e)
{
	char *p = gt_store_join(dir, INSTALLED);
	json_error_t je;
	json_t *j = json_load_file(p, 0, &je);
	int rc = 0;
	*seq = -1;
	name[0] = 0;
	if (!j && access(p, F_OK) == 0)
		rc = gt_error_set(e, GT_EFORMAT, -1, -1, "%s: %s (remove it to accept any pointer again)",
		                  p, je.text);
	if (j) {
		*seq = pointer_seq(j);
		snprintf(name, size, "%s", json_string_value(json_object_get(j, "name")) ?
		         json_string_value(json_object_get(j, "name")) : "");
		if (*seq < 0)
			rc = gt_error_set(e, GT_EFORMAT, -1, -1, "%s: bad \"seq\" (remove it to accept any "
			                  "pointer again)", p);
	}
	json_decref(j);
	free(p);
	return rc;
}

/* pointer_check: the fields of the pointer j (from url) that a worker acts
 * on; 0 or GT_EFORMAT with e saying which */
static int pointer_check(json_t *j, const char *url, char want[GT_SHA256_HEX], gt_error *e)
{
	const char *name = json_string_value(json_object_get(j, "name"));
	const char *sha = json_string_value(json_object_get(j, "sha256"));
	json_t *jb = json_object_get(j, "bytes");
	const char *why;
	char q[300];
	if (!name || !gt_store_name_ok(name, &why))
		return gt_error_set(e, GT_EFORMAT, -1, -1, "%s: bad \"name\" %s: %s", url,
		                    name ? gt_store_quote(name, q, sizeof q) : "(none)", name ? why : "missing");
	if (!gt_store_sha256_ok(sha, want))
		return gt_error_set(e, GT_EFORMAT, -1, -1, "%s: \"sha256\" missing or not 64 hex digits", url);
	if (!json_is_integer(jb) || json_integer_value(jb) < 0)
		return gt_error_set(e, GT_EFORMAT, -1, -1, "%s: \"bytes\" missing or negative", url);
	if (pointer_seq(j) < 0)
		return gt_error_set(e, GT_EFORMAT, -1, -1, "%s: \"seq\" is not an integer >= 1", url);
	return 0;
}

/* pointer_trust: with verify_key, the pointer text's signature must verify
 * and it must carry a "seq"; then its seq must not be below the one
 * installed in dir. 0, or GT_ECHECKSUM (refused; e says why in one line),
 * or the key's or the installed pointer's error. */
static int pointer_trust(const char *url, const char *text, size_t len, json_t *j,
                         const char *verify_key, const char *dir, gt_error *e)
{
	gt_error ve = { 0 };
	long long seq = pointer_seq(j), have;
	char iname[256];
	int rc = 0;
	if (verify_key) {
		rc = gt_sign_pointer_verify(verify_key, text, len, &ve);
		if (rc == GT_ECHECKSUM && !json_object_get(j, "signature"))
			return gt_error_set(e, rc, -1, -1, "%s is not signed; refusing it", url);
		if (rc == GT_ECHECKSUM)
			return gt_error_set(e, rc, -1, -1, "%s: signature does not verify (%s); refusing it",
			                    url, ve.text);
		if (rc)
			return gt_error_set(e, rc, ve.line, ve.offset, "%s", ve.text);
		if (seq == 0)
			return gt_error_set(e, GT_ECHECKSUM, -1, -1, "%s: signed but without a \"seq\"; "
			                    "refusing it", url);
	}
	if ((rc = installed(dir, &have, iname, sizeof iname, e)) != 0)
		return rc;
	if (seq < have) {
		char q[300];
		return gt_error_set(e, GT_ECHECKSUM, -1, -1, "%s: sequence %lld is older than the %lld "
		                    "installed (%s); refusing it (a replayed or rolled-back pointer)",
		                    url, seq, have, gt_store_quote(iname, q, sizeof q));
	}
	return 0;
}

int gt_release_fetch(const gt_store_opts *o, const char *store, const char *dir,
                     const char *verify_key, gt_store_validate_fn validate, void *vctx,
                     char **path, int *fetched, char **pointer, gt_error *e)
{
	char *buf, want[GT_SHA256_HEX], have[GT_SHA256_HEX];
	size_t len;
	int rc, dummy;
	*path = NULL;
	if (!fetched)
		fetched = &dummy;
	*fetched = 0;
	if (pointer)
		*pointer = NULL;
	char *pu = gt_store_join(store, POINTER);
	rc = gt_store_get_mem(o, pu, 1 << 20, &buf, &len, e);
	if (rc) {
		free(pu);
		return rc == GT_ENOTFOUND ? 0 : rc;   /* nothing published yet */
	}
	json_error_t je;
	json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!j || !json_is_object(j)) {
		rc = gt_error_set(e, GT_EFORMAT, je.line, je.position, "%s: %s", pu,
		                  j ? "not a JSON object" : je.text);
		json_decref(j);
		free(buf);
		free(pu);
		return rc;
	}
	rc = pointer_check(j, pu, want, e);
	if (!rc)
		rc = pointer_trust(pu, buf, len, j, verify_key, dir, e);
	free(pu);
	if (rc) {
		json_decref(j);
		free(buf);
		return rc;
	}
	const char *name = json_string_value(json_object_get(j, "name"));
	long long bytes = (long long)json_integer_value(json_object_get(j, "bytes"));
	long long seq = pointer_seq(j), iseq;
	char iname[256];
	char *dest = gt_store_join(dir, name);
	char *mu = NULL;
	if (gt_store_sha256_file(dest, have, NULL, NULL) == 0 && !strcmp(have, want))
		goto done;
	if ((rc = gt_fs_mkdir_p(dir, e)) != 0)
		goto done;
	mu = gt_store_join(store, MODELS);
	{
		char *u = gt_store_join(mu, name);
		rc = gt_store_get_validated(o, u, dest, want, bytes, validate, vctx, NULL, e);
		free(u);
	}
	if (!rc)
		*fetched = 1;
done:
	/* the sequence installed, for the next pointer to be measured by */
	if (!rc && (installed(dir, &iseq, iname, sizeof iname, NULL) != 0 || seq > iseq ||
	            strcmp(iname, name))) {
		char *ip = gt_store_join(dir, INSTALLED);
		rc = gt_fs_write_atomic(ip, buf, len, e);
		free(ip);
	}
	free(mu);
	json_decref(j);
	if (rc)
		free(dest);
	else
		*path = dest;
	if (!rc && pointer)
		*pointer = buf;
	else
		free(buf);
	return rc;
}

/* ---- the decision ---- */

static int count_field(json_t *j, const char *k, long *v, gt_error *e)
{
	json_t *x = json_object_get(j, k);
	if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > (1LL << 40))
		return gt_error_set(e, GT_EFORMAT, 1, -1, "summary: \"%s\" missing or not a count", k);
	*v = (long)json_integer_value(x);
	return 0;
}

int gt_release_match_parse(const char *line, size_t len, gt_release_match *m, gt_error *e)
{
	json_error_t je;
	int rc;
	json_t *j = json_loadb(line, len, 0, &je);
	memset(m, 0, sizeof *m);
	if (!j)
		return gt_error_set(e, GT_EFORMAT, 1, je.position, "summary: %s", je.text);
	if (!json_is_object(j))
		rc = gt_error_set(e, GT_EFORMAT, 1, 0, "summary: not a JSON object");
	else if ((rc = count_field(j, "games", &m->games, e)) || (rc = count_field(j, "wins", &m->wins, e)) ||
	         (rc = count_field(j, "draws", &m->draws, e)) || (rc = count_field(j, "losses", &m->losses, e)))
		;
	else if (m->wins + m->draws + m->losses != m->games)
		rc = gt_error_set(e, GT_EFORMAT, 1, -1, "summary: wins + draws + losses != games");
	else {
		json_t *x = json_object_get(j, "elo");
		if (json_is_number(x) && isfinite(json_number_value(x)))
			m->elo = json_number_value(x);
		else if (json_is_null(x) && m->wins > 0 && m->losses == 0)
			m->elo = INFINITY;
		else if (json_is_null(x) && m->losses > 0 && m->wins == 0)
			m->elo = -INFINITY;
		else if (json_is_null(x) && m->wins + m->losses == 0)
			m->elo = 0;
		else
			rc = gt_error_set(e, GT_EFORMAT, 1, -1, "summary: \"elo\" missing or not a number");
	}
	json_decref(j);
	return rc;
}

int gt_release_decide(const gt_release_match *m, double threshold, long long steps,
                      long long prev_steps, long long every, char *why, size_t why_size)
{
	if (m->wins + m->losses == 0) {
		snprintf(why, why_size, "no decisive games");
		return 0;
	}
	if (m->elo > threshold) {
		snprintf(why, why_size, "elo %.2f > threshold %.2f", m->elo, threshold);
		return 1;
	}
	long long prev = prev_steps < 0 ? 0 : prev_steps;
	if (every > 0 && steps >= 0 && steps / every > prev / every) {
		snprintf(why, why_size, "steps %lld crossed a multiple of %lld (published: %lld)",
		         steps, every, prev_steps);
		return 1;
	}
	snprintf(why, why_size, "elo %.2f <= threshold %.2f and steps %lld crossed no multiple of %lld",
	         m->elo, threshold, steps, every);
	return 0;
}

/* ---- the release ---- */

/* prev_steps: steps of the network latest.json names now (-1 if none),
 * its "seq" (0 if none; seq may be NULL), and its version into tag
 * (gt_store_get_tagged; "" if none), which the pointer's replacement must
 * still find. */
static int prev_steps(const gt_store_opts *o, const char *store, long long *steps, long long *seq,
                      char tag[GT_STORE_TAG], gt_error *e)
{
	char *url = gt_store_join(store, POINTER), *buf;
	size_t len;
	int rc = gt_store_get_tagged(o, url, 1 << 20, &buf, &len, tag, e);
	free(url);
	*steps = -1;
	if (seq)
		*seq = 0;
	if (rc)
		return rc;
	json_t *j = buf ? json_loadb(buf, len, 0, NULL) : NULL;
	free(buf);
	if (seq && j && pointer_seq(j) > 0)
		*seq = pointer_seq(j);
	json_t *s = json_object_get(j, "steps");
	if (json_is_integer(s))
		*steps = (long long)json_integer_value(s);
	else if (j && json_is_string(json_object_get(j, "name")))
		*steps = gt_model_name_number(json_string_value(json_object_get(j, "name")), 's');
	json_decref(j);
	return 0;
}

/* swapped: 1 (and why) when the summary's player b, not a, is the
 * candidate: gt-elo counts wins from a's side, so a match run as
 * "gt-elo reference candidate" would otherwise publish the loser. Players
 * are named by their file's base name without .bin.gz, as gt-elo does. */
static int swapped(const char *line, size_t len, const char *cand, char *why, size_t size)
{
	json_t *j = json_loadb(line, len, 0, NULL);
	const char *a = json_string_value(json_object_get(j, "a"));
	const char *b = json_string_value(json_object_get(j, "b"));
	const char *base = strrchr(cand, '/');
	char stem[256];
	snprintf(stem, sizeof stem, "%s", base ? base + 1 : cand);
	size_t l = strlen(stem);
	if (l > 7 && strcmp(stem + l - 7, ".bin.gz") == 0)
		stem[l - 7] = 0;
	int bad = a && b && strcmp(a, stem) != 0 && strcmp(b, stem) == 0;
	if (bad)
		snprintf(why, size, "bad summary: the candidate %.120s is player b, not a "
		         "(gt-elo counts wins for a: run gt-elo CANDIDATE REFERENCE)", stem);
	json_decref(j);
	return bad;
}

void gt_release_cand_init(gt_release_cand *c)
{
	*c = (gt_release_cand){ .threshold = 20, .every = 10000, .steps = -1, .rows = -1,
	                        .bytes = -1 };
}

int gt_release_cand_read(gt_release_cand *c, gt_error *e)
{
	gt_model *model;
	int rc = gt_model_read(c->path, &model, e);
	if (rc) {
		char why[sizeof e->text];
		snprintf(why, sizeof why, "%s", e && e->text[0] ? e->text : gt_strerror(rc));
		return gt_error_set(e, rc, -1, -1, "%s: not a valid model: %s", c->path, why);
	}
	gt_model_name(model, c->own_name, sizeof c->own_name - 8);
	strcat(c->own_name, ".bin.gz");
	c->rows = (long long)model->meta.rows;
	if (c->steps < 0)
		c->steps = (long long)model->meta.steps;
	gt_model_free(model);
	if (!c->name)
		c->name = c->own_name;
	return 0;
}

int gt_release_cand_decide(const gt_store_opts *o, gt_release_cand *c, const char *summary,
                           size_t len, gt_error *e)
{
	gt_error pe = { 0 };
	long long prev = -1;
	int rc;
	c->bad = 1;
	c->released = 0;
	c->summary = NULL;
	c->summary_len = 0;
	if (!summary || !len)
		snprintf(c->reason, sizeof c->reason, "bad summary: no line on stdin");
	else if (gt_release_match_parse(summary, len, &c->match, &pe) != 0)
		snprintf(c->reason, sizeof c->reason, "bad summary: %s", pe.text);
	else if (!swapped(summary, len, c->path, c->reason, sizeof c->reason)) {
		if ((rc = prev_steps(o, c->store, &prev, NULL, c->pointer_tag, e)) != 0)
			return rc;
		c->bad = 0;
		c->summary = summary;
		c->summary_len = len;
		c->released = gt_release_decide(&c->match, c->threshold, c->steps, prev, c->every,
		                                c->reason, sizeof c->reason);
	}
	gt_iso_time(c->time, sizeof c->time, time(NULL));
	return 0;
}

/* put_line: text and a '\n' under url, replacing the version tag of it
 * (gt_store_replace: GT_ECONFLICT if another writer came first). */
static int put_line(const gt_store_opts *o, const char *url, const char *text, const char *tag,
                    gt_error *e)
{
	size_t n = strlen(text);
	char *line = gt_xmalloc(n + 1);
	memcpy(line, text, n);
	line[n] = '\n';
	int rc = gt_store_replace(o, line, n + 1, url, tag, e);
	free(line);
	return rc;
}

/* publish: the network under its name first, the pointer last. */
static int publish(const gt_store_opts *o, gt_release_cand *c, gt_error *e)
{
	char sha[GT_SHA256_HEX], when[32];
	long long bytes;
	int existed = 0, rc;
	FILE *f = fopen(c->path, "rb");
	if (!f)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", c->path, strerror(errno));
	char *dir = gt_store_join(c->store, MODELS);
	char *url = gt_store_join(dir, c->name);
	free(dir);
	char sig[GT_SIGN_HEX] = "", now_tag[GT_STORE_TAG];
	long long steps_now;       /* (the pointer is replaced over the version decide read) */
	rc = gt_store_sha256_stream(f, sha, &bytes, e);
	if (!rc)
		rc = prev_steps(o, c->store, &steps_now, &c->seq, now_tag, e);
	c->seq++;
	gt_iso_time(when, sizeof when, time(NULL));
	json_t *l = json_object();
	json_object_set_new(l, "name", json_string(c->name));
	json_object_set_new(l, "sha256", json_string(sha));
	json_object_set_new(l, "bytes", json_integer(bytes));
	json_object_set_new(l, "seq", json_integer(c->seq));
	json_object_set_new(l, "steps", c->steps >= 0 ? json_integer(c->steps) : json_null());
	json_object_set_new(l, "rows", c->rows >= 0 ? json_integer(c->rows) : json_null());
	json_object_set_new(l, "elo", isfinite(c->match.elo) ? json_real(c->match.elo) : json_null());
	json_object_set_new(l, "published", json_string(when));
	if (c->series)
		json_object_set_new(l, "series", json_string(c->series));
	if (c->selfplay)
		json_object_set_new(l, "selfplay", json_loads(c->selfplay, 0, NULL));
	char *text = json_dumps(l, JSON_COMPACT | JSON_REAL_PRECISION(10));
	if (!rc && c->sign_key)     /* sign before anything is uploaded */
		rc = gt_sign_pointer(c->sign_key, text, strlen(text), sig, e);
	if (!rc)
		rc = gt_store_put(o, f, url, 0, &existed, e);
	fclose(f);
	free(url);
	if (!rc) {
		memcpy(c->sha256, sha, sizeof sha);
		c->bytes = bytes;
	}
	if (!rc && sig[0]) {
		json_object_set_new(l, "signature", json_string(sig));
		free(text);
		text = json_dumps(l, JSON_COMPACT | JSON_REAL_PRECISION(10));
	}
	if (!rc) {
		url = gt_store_join(c->store, POINTER);
		rc = put_line(o, url, text, c->pointer_tag, e);
		free(url);
	}
	free(text);
	json_decref(l);
	return rc;
}

int gt_release_cand_publish(const gt_store_opts *o, gt_release_cand *c, gt_error *e)
{
	int rc = publish(o, c, e);
	if (rc) {
		c->released = 0;
		snprintf(c->error, sizeof c->error, "%s", e && e->text[0] ? e->text : gt_strerror(rc));
	}
	return rc;
}

int gt_release_cand_history(const gt_store_opts *o, const gt_release_cand *c, char **entry,
                            gt_error *e)
{
	json_t *j = json_object();
	json_object_set_new(j, "time", json_string(c->time));
	if (c->series)
		json_object_set_new(j, "series", json_string(c->series));
	json_object_set_new(j, "candidate", json_string(c->name));
	json_object_set_new(j, "steps", c->steps >= 0 ? json_integer(c->steps) : json_null());
	if (c->selfplay)
		json_object_set_new(j, "selfplay", json_loads(c->selfplay, 0, NULL));
	json_object_set_new(j, "released", json_boolean(c->released));
	json_object_set_new(j, "reason", json_string(c->reason));
	json_object_set_new(j, "threshold", json_real(c->threshold));
	json_object_set_new(j, "every_steps", json_integer(c->every));
	json_t *stats = c->summary ? json_loadb(c->summary, c->summary_len, 0, NULL) : NULL;
	json_object_set_new(j, "stats", stats ? stats : json_null());
	if (c->bytes >= 0) {
		json_object_set_new(j, "sha256", json_string(c->sha256));
		json_object_set_new(j, "bytes", json_integer(c->bytes));
	}
	if (c->released && c->seq > 0)
		json_object_set_new(j, "seq", json_integer(c->seq));
	if (c->error[0])
		json_object_set_new(j, "error", json_string(c->error));
	*entry = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(10));
	json_decref(j);

	/* an append: read, add, replace over what was read; another writer
	 * between the two (a second release) makes it read again */
	char *url = gt_store_join(c->store, HISTORY), *old = NULL, tag[GT_STORE_TAG];
	size_t len = 0;
	int rc = GT_ECONFLICT;
	for (int tries = 0; rc == GT_ECONFLICT && tries < 5; tries++) {
		if ((rc = gt_store_get_tagged(o, url, (size_t)256 << 20, &old, &len, tag, e)) != 0)
			break;
		if (!old)
			old = gt_xcalloc(1, 1);
		size_t n = len + strlen(*entry) + 2;
		char *all = gt_xmalloc(n);
		snprintf(all, n, "%s%s%s", old, len && old[len - 1] != '\n' ? "\n" : "", *entry);
		rc = put_line(o, url, all, tag, e);
		free(all);
		free(old);
		old = NULL;
	}
	free(url);
	return rc;
}

/* ---- self-play settings and the curriculum ---- */

/* The settings a store may publish with a network: JSON key, gt-selfplay
 * option, kind ('i' integer, 'n' number, 'r' rules name) and range (the
 * ranges gt-selfplay accepts, visits capped lower: a published setting
 * must not be able to stall every worker). */
static const struct setting {
	const char *key, *option;
	char kind;
	double lo, hi;
} settings[] = {
	{ "board_size", "--board-size", 'i', 2, 19 },
	{ "komi", "--komi", 'n', -1000, 1000 },
	{ "rules", "--rules", 'r', 0, 0 },
	{ "visits", "--visits", 'i', 1, 100000 },
	{ "cheap_visits", "--cheap-visits", 'i', 1, 100000 },
	{ "full_prob", "--full-prob", 'n', 0, 1 },
	{ "max_moves", "--max-moves", 'i', 1, 1000 },
	{ "temp_early", "--temp-early", 'n', 0, 100 },
	{ "temp_final", "--temp-final", 'n', 0, 100 },
	{ "temp_halflife", "--temp-halflife", 'n', 1e-3, 1e6 },
	{ "forced_playouts", "--forced-playouts", 'n', 0, 100 },
};
#define NSETTINGS (sizeof settings / sizeof settings[0])

/* setting_check: 0 if key is a known setting and v is of its kind and in
 * its range; else GT_EFORMAT with the reason in e (line for messages). */
static int setting_check(const char *key, json_t *v, long line, gt_error *e)
{
	char q[80];
	for (size_t i = 0; i < NSETTINGS; i++) {
		const struct setting *s = &settings[i];
		if (strcmp(key, s->key))
			continue;
		if (s->kind == 'r') {
			const char *r = json_string_value(v);
			size_t n = r ? strlen(r) : 0;
			if (!r || n < 1 || n > 32 || strspn(r, "abcdefghijklmnopqrstuvwxyz-") != n)
				return gt_error_set(e, GT_EFORMAT, line, -1,
				                    "\"%s\" must be a rules name (a-z and -)", key);
			return 0;
		}
		if (!json_is_number(v) || (s->kind == 'i' && !json_is_integer(v)))
			return gt_error_set(e, GT_EFORMAT, line, -1, "\"%s\" must be %s", key,
			                    s->kind == 'i' ? "an integer" : "a number");
		double x = json_number_value(v);
		if (!(x >= s->lo && x <= s->hi))
			return gt_error_set(e, GT_EFORMAT, line, -1, "\"%s\" must be in %g..%g", key,
			                    s->lo, s->hi);
		return 0;
	}
	return gt_error_set(e, GT_EFORMAT, line, -1, "unknown self-play setting %s",
	                    gt_store_quote(key, q, sizeof q));
}

int gt_release_curriculum_pick(const char *text, size_t len, long long steps,
                               char **settings_json, gt_error *e)
{
	json_t *acc = json_object();
	long long prev = -1;
	long line = 0;
	int rc = 0, any = 0;
	*settings_json = NULL;
	for (size_t at = 0; at < len && !rc;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		const char *l = text + at;
		at += n + 1;
		line++;
		size_t sp = 0;
		while (sp < n && (l[sp] == ' ' || l[sp] == '\t' || l[sp] == '\r'))
			sp++;
		if (sp == n || l[sp] == '#')
			continue;
		json_error_t je;
		json_t *j = json_loadb(l, n, 0, &je);
		json_t *fs = j ? json_object_get(j, "from_step") : NULL;
		if (!j)
			rc = gt_error_set(e, GT_EFORMAT, line, je.position, "curriculum line %ld: %s", line, je.text);
		else if (!json_is_object(j))
			rc = gt_error_set(e, GT_EFORMAT, line, -1, "curriculum line %ld: not a JSON object", line);
		else if (!json_is_integer(fs) || json_integer_value(fs) < 0)
			rc = gt_error_set(e, GT_EFORMAT, line, -1,
			                  "curriculum line %ld: \"from_step\" missing or negative", line);
		else if (json_integer_value(fs) <= prev)
			rc = gt_error_set(e, GT_EFORMAT, line, -1,
			                  "curriculum line %ld: \"from_step\" not greater than the line before", line);
		if (!rc) {
			const char *k;
			json_t *v;
			gt_error ke = { 0 };
			prev = (long long)json_integer_value(fs);
			json_object_foreach(j, k, v) {
				if (!strcmp(k, "from_step"))
					continue;
				if (setting_check(k, v, line, &ke)) {
					rc = gt_error_set(e, GT_EFORMAT, line, -1, "curriculum line %ld: %s", line,
					                  ke.text);
					break;
				}
				/* every line holds all its settings: later lines
				 * inherit the earlier ones, so only the step that
				 * applies counts */
				if (prev <= steps)
					json_object_set(acc, k, v);
			}
			if (prev <= steps)
				any = 1;
		}
		json_decref(j);
	}
	if (!rc && line == 0)
		rc = gt_error_set(e, GT_EFORMAT, -1, -1, "curriculum: no lines");
	if (!rc && any)
		*settings_json = json_dumps(acc, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(10));
	json_decref(acc);
	return rc;
}

int gt_release_selfplay_args(const char *pointer, size_t len, char *buf, size_t size,
                             gt_error *e)
{
	json_error_t je;
	json_t *j = json_loadb(pointer, len, 0, &je);
	int rc = 0;
	size_t k = 0;
	if (size)
		buf[0] = 0;
	if (!j)
		return gt_error_set(e, GT_EFORMAT, je.line, je.position, "latest.json: %s", je.text);
	json_t *sp = json_object_get(j, "selfplay");
	if (sp && !json_is_null(sp) && !json_is_object(sp))
		rc = gt_error_set(e, GT_EFORMAT, -1, -1, "latest.json: \"selfplay\" is not an object");
	/* in the table's order, so the same settings give the same text */
	for (size_t i = 0; !rc && json_is_object(sp) && i < NSETTINGS; i++) {
		json_t *v = json_object_get(sp, settings[i].key);
		char val[64];
		if (!v)
			continue;
		if ((rc = setting_check(settings[i].key, v, -1, e)) != 0)
			break;
		if (settings[i].kind == 'r')
			snprintf(val, sizeof val, "%s", json_string_value(v));
		else if (settings[i].kind == 'i')
			snprintf(val, sizeof val, "%lld", (long long)json_integer_value(v));
		else
			snprintf(val, sizeof val, "%.10g", json_number_value(v));
		int w = snprintf(buf + k, size - k, "%s%s %s", k ? " " : "", settings[i].option, val);
		if (w < 0 || (size_t)w >= size - k)
			rc = gt_error_set(e, GT_ETOOLONG, -1, -1, "self-play settings: buffer too small");
		else
			k += (size_t)w;
	}
	const char *key;
	json_t *v;
	if (!rc && json_is_object(sp))
		json_object_foreach(sp, key, v)
			if ((rc = setting_check(key, v, -1, e)) != 0)
				break;
	if (rc && size)
		buf[0] = 0;
	json_decref(j);
	return rc;
}
