/* contrib.c: per-worker contributions counted into STORE/stats/contributions.json. */
#include "contrib.h"
#include "validate.h"
#include "util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* add_count: j[k] += v for an integer member (absent = 0). */
static void add_count(json_t *j, const char *k, long long v)
{
	json_t *x = json_object_get(j, k);
	long long have = json_is_integer(x) ? (long long)json_integer_value(x) : 0;
	json_object_set_new(j, k, json_integer(have + v));
}

#define CONTRIB_KEEP 1000   /* generation ids remembered against double counting */
#define CONTRIB_MAX_WORKERS 10000 /* names counted one by one; the rest "(others)" */

/* worker_of: the object for worker w in obj, created empty if missing;
 * a name gt_validate_name refuses counts as "(bad name)", and past
 * CONTRIB_MAX_WORKERS names a new one as "(others)", so that the file
 * stays small whatever the names a stranger sends
 * (borrowed). */
static json_t *worker_of(json_t *obj, const char *w)
{
	if (!gt_validate_name(w) && strcmp(w, "?") && strcmp(w, "(others)"))
		w = "(bad name)";
	if (!json_object_get(obj, w) && json_object_size(obj) >= CONTRIB_MAX_WORKERS)
		w = "(others)";
	json_t *x = json_object_get(obj, w);
	if (!json_is_object(x)) {
		x = json_object();
		json_object_set_new(obj, w, x);
	}
	return x;
}

/* merge: one generation's counts gw (id generation) added to the file's
 * object all; 1 (and gen's "counted_before") when all has counted it */
static int merge(json_t *all, json_t *gw, const char *generation, json_t *gen)
{
	char when[32];
	json_t *gl = json_object_get(all, "generations");
	if (!json_is_array(gl)) {
		gl = json_array();
		json_object_set_new(all, "generations", gl);
	}
	for (size_t i = 0; i < json_array_size(gl); i++) {
		const char *g = json_string_value(json_array_get(gl, i));
		if (g && !strcmp(g, generation)) {
			json_object_set_new(gen, "counted_before", json_true());
			return 1;
		}
	}
	json_array_append_new(gl, json_string(generation));
	while (json_array_size(gl) > CONTRIB_KEEP)
		json_array_remove(gl, 0);
	gt_iso_time(when, sizeof when, time(NULL));
	json_object_set_new(all, "updated", json_string(when));
	json_t *aw = json_object_get(all, "workers");
	if (!json_is_object(aw)) {
		aw = json_object();
		json_object_set_new(all, "workers", aw);
	}
	const char *w;
	json_t *v;
	json_object_foreach(gw, w, v) {
		json_t *x = worker_of(aw, w);
		add_count(x, "games", 0);
		add_count(x, "positions", 0);
		add_count(x, "rejected", 0);
		const char *k;
		json_t *c;
		json_object_foreach(v, k, c)
			add_count(x, k, (long long)json_integer_value(c));
		add_count(x, "generations", 1);
		json_object_set_new(x, "last", json_string(when));
	}
	return 0;
}

int gt_contrib_update(const gt_store_opts *o, const char *store, const char *generation,
                      FILE *records, const char *vstats, char **summary, gt_error *e)
{
	json_t *gen = json_object(), *gw = json_object(), *all = NULL, *vs = NULL;
	char *line = NULL, *url = NULL, *old = NULL;
	size_t cap = 0, olen = 0;
	ssize_t n;
	long lineno = 0;
	int rc = 0;
	*summary = NULL;
	json_object_set_new(gen, "generation", json_string(generation));
	json_object_set(gen, "workers", gw);
	while (!rc && (n = getline(&line, &cap, records)) > 0) {
		lineno++;
		if (strspn(line, " \t\r\n") == (size_t)n)
			continue;
		json_error_t je;
		json_t *r = json_loadb(line, (size_t)n, 0, &je);
		if (!json_is_object(r)) {
			rc = gt_error_set(e, GT_EFORMAT, lineno, -1, "records line %ld: %s", lineno,
			                  r ? "not a JSON object" : je.text);
			json_decref(r);
			break;
		}
		const char *w = json_string_value(json_object_get(r, "worker"));
		json_t *x = worker_of(gw, w && *w ? w : "?");
		add_count(x, "games", 1);
		add_count(x, "positions", (long long)json_array_size(json_object_get(r, "positions")));
		json_decref(r);
	}
	free(line);
	if (!rc && ferror(records))
		rc = gt_error_set(e, GT_EIO, lineno, -1, "records: read error");
	if (!rc && vstats) {
		json_error_t je;
		vs = json_load_file(vstats, 0, &je);
		json_t *rw = json_object_get(vs, "rejects_by_worker");
		if (!vs)
			rc = gt_error_set(e, GT_EFORMAT, je.line, je.position, "%s: %s", vstats, je.text);
		else if (rw && !json_is_object(rw))
			rc = gt_error_set(e, GT_EFORMAT, -1, -1, "%s: \"rejects_by_worker\" is not an object",
			                  vstats);
		const char *w;
		json_t *v;
		if (!rc)
			json_object_foreach(rw, w, v)
				if (json_is_integer(v) && json_integer_value(v) > 0)
					add_count(worker_of(gw, w), "rejected", (long long)json_integer_value(v));
	}
	if (rc)
		goto out;
	url = gt_store_join(store, "stats/contributions.json");
	/* read, add, and replace the version read (gt_store_replace): a
	 * writer that came in between is read again, up to three times */
	for (int tries = 0;; tries++) {
		char tag[GT_STORE_TAG];
		if ((rc = gt_store_get_tagged(o, url, (size_t)64 << 20, &old, &olen, tag, e)) != 0)
			goto out;
		json_error_t je = {0};
		all = old ? json_loadb(old, olen, 0, &je) : json_object();
		if (!json_is_object(all)) {
			rc = gt_error_set(e, GT_EFORMAT, je.line, je.position, "%s: %s", url,
			                  all ? "not a JSON object" : je.text);
			goto out;
		}
		if (merge(all, gw, generation, gen))
			break;
		char *text = json_dumps(all, JSON_INDENT(1) | JSON_SORT_KEYS);
		size_t tl = strlen(text);
		text = gt_xrealloc(text, tl + 1);
		text[tl] = '\n';
		rc = gt_store_replace(o, text, tl + 1, url, tag, e);
		free(text);
		if (rc != GT_ECONFLICT || tries == 2)
			break;
		free(old);
		old = NULL;
		json_decref(all);
		all = NULL;
	}
	if (!rc)
		*summary = json_dumps(gen, JSON_COMPACT | JSON_SORT_KEYS);
out:
	free(old);
	free(url);
	json_decref(all);
	json_decref(vs);
	json_decref(gw);
	json_decref(gen);
	return rc;
}
