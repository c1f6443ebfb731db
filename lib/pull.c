/* pull.c: the batches of a store folder not consumed yet, once each (gt-sync pull);
 * a share of them, or the newest only. */
#include "pull.h"
#include "fs.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* A batch in the pull state: pulled, refused, or passed over as older
 * than the newest ones taken (gt_pull_pick.newest). */
enum { MARK_OK, MARK_BAD, MARK_OLD };
static const char *const mark_name[] = { "ok", "bad", "old" };

/* The pull state: consumed batch names, sorted, each with its mark. */
typedef struct seen {
	char *name;
	int mark;
} seen;

typedef struct state {
	seen *v;
	size_t n, cap;
} state;

static int seen_cmp(const void *a, const void *b)
{
	return strcmp(((const seen *)a)->name, ((const seen *)b)->name);
}

static int state_has(const state *s, const char *name)
{
	seen key = { (char *)name, 0 };
	return s->n && bsearch(&key, s->v, s->n, sizeof *s->v, seen_cmp) != NULL;
}

static void state_add(state *s, const char *name, int mark)
{
	size_t i = s->n;
	if (state_has(s, name))
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = gt_xrealloc(s->v, s->cap * sizeof *s->v);
	}
	while (i > 0 && strcmp(s->v[i - 1].name, name) > 0)
		i--;
	memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof *s->v);
	s->v[i].name = gt_xstrdup(name);
	s->v[i].mark = mark;
	s->n++;
}

static void state_free(state *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
}

/* batch_name_ok: a batch's name in the state: NAME, or FOLDER/NAME for a
 * batch in a worker's folder, each part passing gt_store_name_ok */
static int batch_name_ok(const char *name)
{
	const char *sl = strchr(name, '/');
	if (!sl)
		return gt_store_name_ok(name, NULL);
	char f[256];
	if ((size_t)(sl - name) >= sizeof f)
		return 0;
	memcpy(f, name, (size_t)(sl - name));
	f[sl - name] = 0;
	return gt_store_name_ok(f, NULL) && gt_store_name_ok(sl + 1, NULL);
}

static int state_load(state *s, const char *path, gt_error *e)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	long ln = 0;
	if (!f)
		return errno == ENOENT ? 0 : gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof line, f)) {
		ln++;
		size_t l = strlen(line);
		if (l && line[l - 1] == '\n')
			line[--l] = 0;
		char *tab = strchr(line, '\t');
		if (tab)
			*tab++ = 0;
		int mark = !tab || !strcmp(tab, "ok") ? MARK_OK : !strcmp(tab, "bad") ? MARK_BAD
		         : !strcmp(tab, "old") ? MARK_OLD : -1;
		if (!batch_name_ok(line) || mark < 0) {
			fclose(f);
			return gt_error_set(e, GT_EFORMAT, ln, -1, "%s:%ld: not \"name<TAB>ok|bad|old\"", path, ln);
		}
		state_add(s, line, mark);
	}
	int bad = ferror(f);
	fclose(f);
	if (bad)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: read error", path);
	return 0;
}

static int state_save(const state *s, const char *path, gt_error *e)
{
	size_t len = 0, k = 0;
	for (size_t i = 0; i < s->n; i++)
		len += strlen(s->v[i].name) + 5;
	char *buf = gt_xmalloc(len + 1);
	for (size_t i = 0; i < s->n; i++)
		k += (size_t)sprintf(buf + k, "%s\t%s\n", s->v[i].name, mark_name[s->v[i].mark]);
	int rc = gt_fs_write_atomic(path, buf, k, e);
	free(buf);
	return rc;
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

/* The records of a batch in a worker's folder: each must name that worker
 * (the account that uploaded it), or it is dropped with a reason. */
typedef struct owner_check {
	const char *owner;    /* the folder, or NULL: no check */
	const char *batch;    /* FOLDER/NAME, for the rejects */
	FILE *rej;            /* the rejects' lines, or NULL */
	char *line;           /* the line so far (grown up to max_line bytes) */
	size_t len, cap;
	long long dropped;
} owner_check;

/* str_or_null: the string member k of r, or JSON null */
static json_t *str_or_null(json_t *r, const char *k)
{
	json_t *v = json_object_get(r, k);
	return json_is_string(v) ? json_incref(v) : json_null();
}

/* owner_line: the line of oc (number ln) to out if its worker is the
 * owner, else a reject line to oc->rej */
static void owner_line(owner_check *oc, FILE *out, long long ln)
{
	json_t *r = json_loadb(oc->line, oc->len, 0, NULL);
	const char *w = json_string_value(json_object_get(r, "worker"));
	if (w && !strcmp(w, oc->owner)) {
		fwrite(oc->line, 1, oc->len, out);
		putc('\n', out);
	} else {
		oc->dropped++;
		char detail[400];
		snprintf(detail, sizeof detail, "worker %.100s%s%s in a batch uploaded under %.100s/",
		         w ? "\"" : "", w ? w : "(none)", w ? "\"" : "", oc->owner);
		json_t *j = json_pack("{ss sI so so so ss ss ss}", "file", oc->batch, "line", (json_int_t)ln,
		                      "game_id", str_or_null(r, "game_id"), "worker", str_or_null(r, "worker"),
		                      "model", str_or_null(r, "model"), "reason", "uploader",
		                      "detail", detail, "uploader", oc->owner);
		char *t = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII) : NULL;
		if (t && oc->rej)
			fprintf(oc->rej, "%s\n", t);
		free(t);
		json_decref(j);
	}
	json_decref(r);
	oc->len = 0;
}

/* scan_batch: read all of gz; with out == NULL only check it (line length,
 * total size, gzip integrity), else copy its non-empty lines to out (with
 * oc->owner, only those whose worker is the owner; see owner_check).
 * Returns 0, or GT_EFORMAT with the reason in why (check pass), or GT_EIO. */
static int scan_batch(gzFile gz, FILE *out, owner_check *oc, size_t max_line, long long max_batch,
                      long long *lines, char *why, size_t whysz)
{
	char buf[1 << 16];
	long long total = 0, nl = 0;
	size_t cur = 0;
	int z, own = out && oc && oc->owner;
	*lines = 0;
	if (own)
		oc->len = 0;
	for (;;) {
		z = gzread(gz, buf, sizeof buf);
		if (z <= 0)
			break;
		total += z;
		if (max_batch >= 0 && total > max_batch) {
			snprintf(why, whysz, "expands beyond %lld bytes (--max-batch)", max_batch);
			return GT_EFORMAT;
		}
		for (int i = 0; i < z; i++) {
			if (buf[i] == '\n') {
				if (cur) {
					nl++;
					if (own)
						owner_line(oc, out, nl);
					else if (out)
						putc('\n', out);
				}
				cur = 0;
				continue;
			}
			if (++cur > max_line) {
				snprintf(why, whysz, "line %lld longer than %zu bytes (--max-line)", nl + 1, max_line);
				return GT_EFORMAT;
			}
			if (own) {
				if (oc->len == oc->cap) {
					oc->cap = oc->cap ? 2 * oc->cap : 4096;
					oc->line = gt_xrealloc(oc->line, oc->cap);
				}
				oc->line[oc->len++] = buf[i];
			}
			else if (out)
				putc(buf[i], out);
		}
	}
	int err;
	const char *msg = gzerror(gz, &err);
	if (z < 0 || (err != Z_OK && err != Z_STREAM_END)) {
		snprintf(why, whysz, "corrupt or truncated: %s", msg && *msg ? msg : "read error");
		return GT_EFORMAT;
	}
	if (cur) {
		nl++;
		if (own)
			owner_line(oc, out, nl);
		else if (out)
			putc('\n', out);
	}
	*lines = nl;
	return 0;
}

/* gt_pull_share: FNV-1a 64 of the name, modulo units. */
unsigned gt_pull_share(const char *name, unsigned units)
{
	uint64_t h = 14695981039346656037ULL;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return units ? (unsigned)(h % units) : 0;
}

typedef struct cand {
	long long mtime;
	const char *name;
	size_t idx;
} cand;

static int cand_time_cmp(const void *a, const void *b)
{
	const cand *x = a, *y = b;
	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cand_idx_cmp(const void *a, const void *b)
{
	const cand *x = a, *y = b;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* pick: the entries of ents (in name order) that a pull takes: batches
 * (*.ndjson, *.ndjson.gz) the state does not list, in the share; with
 * newest > 0 only the newest of those by listing time, then name, the
 * older ones marked old in the state (*old counts them). Returns a new
 * array of *np entries in name order. */
static cand *pick(const gt_store_entry *ents, size_t n, const gt_pull_pick *pk, state *s,
                  size_t *np, long *old)
{
	cand *c = gt_xmalloc((n ? n : 1) * sizeof *c);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *name = ents[i].name;
		if (!ends_with(name, ".ndjson.gz") && !ends_with(name, ".ndjson"))
			continue;
		if (state_has(s, name))
			continue;
		if (pk && pk->share_units && gt_pull_share(name, pk->share_units) != pk->share_k)
			continue;
		c[k].mtime = ents[i].mtime, c[k].name = name, c[k].idx = i;
		k++;
	}
	*old = 0;
	if (pk && pk->newest > 0 && k > (size_t)pk->newest) {
		qsort(c, k, sizeof *c, cand_time_cmp);
		size_t drop = k - (size_t)pk->newest;
		for (size_t j = 0; j < drop; j++)
			state_add(s, c[j].name, MARK_OLD);
		*old = (long)drop;
		memmove(c, c + drop, (size_t)pk->newest * sizeof *c);
		k = (size_t)pk->newest;
		qsort(c, k, sizeof *c, cand_idx_cmp);
	}
	*np = k;
	return c;
}

/* gz_magic: 1 if the file starts with the gzip magic bytes. */
static int gz_magic(const char *path)
{
	unsigned char m[2] = { 0, 0 };
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t k = fread(m, 1, 2, f);
	fclose(f);
	return k == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const gt_store_entry *)a)->name, ((const gt_store_entry *)b)->name);
}

/* list_batches: the objects of the folder url and of each of its
 * sub-folders (a worker's own folder: FOLDER/NAME), sorted by name */
static int list_batches(const gt_store_opts *o, const char *url, gt_store_entry **ents, size_t *n,
                        gt_error *e)
{
	gt_store_entry *top = NULL, *v = NULL;
	size_t nt = 0, k = 0, cap = 0;
	int rc = gt_store_list_all(o, url, &top, &nt, e);
	for (size_t i = 0; !rc && i < nt; i++) {
		gt_store_entry *sub = NULL;
		size_t ns = 0;
		if (top[i].folder) {
			char *fu = gt_store_join(url, top[i].name);
			rc = gt_store_list(o, fu, &sub, &ns, e);
			free(fu);
			if (rc == GT_ENOTFOUND)    /* gone since the listing */
				rc = 0;
		}
		for (size_t j = 0; !rc && j < (top[i].folder ? ns : 1); j++) {
			if (k == cap) {
				cap = cap ? 2 * cap : 64;
				v = gt_xrealloc(v, cap * sizeof *v);
			}
			const gt_store_entry *x = top[i].folder ? &sub[j] : &top[i];
			size_t l = strlen(top[i].name) + strlen(x->name) + 2;
			v[k] = *x;
			v[k].folder = 0;
			v[k].name = gt_xmalloc(l);
			snprintf(v[k].name, l, "%s%s%s", top[i].folder ? top[i].name : "",
			         top[i].folder ? "/" : "", x->name);
			k++;
		}
		gt_store_entries_free(sub, ns);
	}
	gt_store_entries_free(top, nt);
	if (rc) {
		gt_store_entries_free(v, k);
		return rc;
	}
	if (k)
		qsort(v, k, sizeof *v, entry_cmp);
	*ents = v ? v : gt_xcalloc(1, sizeof *v);
	*n = k;
	return 0;
}

/* batch_url: the URL of the batch FOLDER/NAME or NAME under base (new) */
static char *batch_url(const char *base, const char *name)
{
	const char *sl = strchr(name, '/');
	if (!sl)
		return gt_store_join(base, name);
	char *f = gt_xstrdup(name);
	f[sl - name] = 0;
	char *d = gt_store_join(base, f), *u = gt_store_join(d, sl + 1);
	free(d);
	free(f);
	return u;
}

int gt_pull_batches(const gt_store_opts *o, const char *url, const char *statepath,
                    const gt_pull_pick *pk, size_t max_line, long long max_batch, FILE *out,
                    FILE *rejects, gt_pull_stats *st, gt_error *e)
{
	gt_pull_stats dummy;
	gt_store_entry *ents = NULL;
	size_t n = 0, np = 0;
	cand *picked = NULL;
	state s = { 0 };
	char *local = NULL;
	int rc;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof *st);
	if ((rc = gt_store_local_path(url, &local, e)) != 0)
		return rc;
	if ((rc = state_load(&s, statepath, e)) != 0)
		goto out;
	if ((rc = list_batches(o, url, &ents, &n, e)) == GT_ENOTFOUND) {
		gt_store_warn(o, "%s: no such folder yet; nothing to pull", url);
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;
	picked = pick(ents, n, pk, &s, &np, &st->old);
	if (st->old && (rc = state_save(&s, statepath, e)) != 0)
		goto out;
	for (size_t j = 0; j < np && !rc; j++) {
		const char *name = picked[j].name;
		long long size = ents[picked[j].idx].bytes;
		int gz = ends_with(name, ".ndjson.gz");
		char *path = NULL, tmpl[4096] = "";
		if (local) {
			path = batch_url(local, name);
		} else {
			const char *td = getenv("TMPDIR");
			snprintf(tmpl, sizeof tmpl, "%s/gt-pull.XXXXXX", td && *td ? td : "/tmp");
			int fd = mkstemp(tmpl);
			FILE *f = fd >= 0 ? fdopen(fd, "w+b") : NULL;
			if (!f) {
				rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", tmpl, strerror(errno));
				if (fd >= 0) {
					close(fd);
					unlink(tmpl);
				}
				break;
			}
			char *u = batch_url(url, name);
			rc = gt_store_get_stream(o, u, f, e);
			free(u);
			if (fclose(f) != 0 && !rc)
				rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", tmpl, strerror(errno));
			if (rc == GT_ENOTFOUND) {   /* removed since the listing */
				gt_store_warn(o, "%s vanished from the store; skipped", name);
				unlink(tmpl);
				rc = 0;
				continue;
			}
			if (rc) {
				unlink(tmpl);
				break;
			}
			path = gt_xstrdup(tmpl);
		}
		char why[200] = "", owner[256] = "";
		const char *sl = strchr(name, '/');
		long long lines = 0;
		gzFile g = NULL;
		int bad = 0;
		if (sl)
			snprintf(owner, sizeof owner, "%.*s", (int)(sl - name), name);
		owner_check oc = { .owner = sl ? owner : NULL, .batch = name, .rej = rejects };
		if (gz && !gz_magic(path)) {
			snprintf(why, sizeof why, "not gzip data");
			bad = 1;
		} else if (!(g = gzopen(path, "rb"))) {
			rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
		} else {
			gzbuffer(g, 1 << 16);
			bad = scan_batch(g, NULL, NULL, max_line, max_batch, &lines, why, sizeof why) != 0;
			if (!bad) {
				gzrewind(g);
				if (scan_batch(g, out, &oc, max_line, max_batch, &lines, why, sizeof why) != 0)
					bad = 1;   /* changed under us (local store); lines already out */
				if (rejects && (fflush(rejects) != 0 || ferror(rejects)))
					rc = gt_error_set(e, GT_EIO, -1, -1, "write error on the rejects: %s", strerror(errno));
				if (fflush(out) != 0 || ferror(out))
					rc = gt_error_set(e, GT_EIO, -1, -1, "write error on output: %s", strerror(errno));
			}
			gzclose(g);
		}
		if (tmpl[0])
			unlink(tmpl);
		free(path);
		if (rc)
			break;
		if (size > 0)
			st->bytes += size;
		if (bad) {
			char q[300];
			gt_store_warn(o, "skipping batch %s: %s", gt_store_quote(name, q, sizeof q), why);
			st->bad++;
		} else {
			st->batches++;
			st->records += lines - oc.dropped;
			st->rejected += oc.dropped;
			if (oc.dropped) {
				char q[300];
				gt_store_warn(o, "batch %s: %lld records whose worker is not %s dropped",
				              gt_store_quote(name, q, sizeof q), oc.dropped, owner);
			}
		}
		free(oc.line);
		state_add(&s, name, bad ? MARK_BAD : MARK_OK);
		rc = state_save(&s, statepath, e);
	}
out:
	free(picked);
	gt_store_entries_free(ents, n);
	state_free(&s);
	free(local);
	return rc;
}
