/* pull.c: the batches of a store folder not consumed yet, once each (gt-sync pull);
 * a share of them, or the newest only. */
#include "pull.h"
#include "fs.h"
#include "util.h"

#include <errno.h>
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
	GT_GROW(s->v, s->n + 1, s->cap, 64);
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
		if (!gt_store_name_ok(line, NULL) || mark < 0) {
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

/* scan_batch: read all of gz; with out == NULL only check it (line length,
 * total size, gzip integrity), else copy its non-empty lines to out.
 * Returns 0, or GT_EFORMAT with the reason in why (check pass), or GT_EIO. */
static int scan_batch(gzFile gz, FILE *out, size_t max_line, long long max_batch,
                      long long *lines, char *why, size_t whysz)
{
	char buf[1 << 16];
	long long total = 0, nl = 0;
	size_t cur = 0;
	int z;
	*lines = 0;
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
					if (out)
						putc('\n', out);
				}
				cur = 0;
				continue;
			}
			if (++cur > max_line) {
				snprintf(why, whysz, "line %lld longer than %zu bytes (--max-line)", nl + 1, max_line);
				return GT_EFORMAT;
			}
			if (out)
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
		if (out)
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

int gt_pull_batches(const gt_store_opts *o, const char *url, const char *statepath,
                    const gt_pull_pick *pk, size_t max_line, long long max_batch, FILE *out,
                    gt_pull_stats *st, gt_error *e)
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
	if ((rc = gt_store_list(o, url, &ents, &n, e)) == GT_ENOTFOUND) {
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
			path = gt_store_join(local, name);
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
			char *u = gt_store_join(url, name);
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
		char why[200] = "";
		long long lines = 0;
		gzFile g = NULL;
		int bad = 0;
		if (gz && !gz_magic(path)) {
			snprintf(why, sizeof why, "not gzip data");
			bad = 1;
		} else if (!(g = gzopen(path, "rb"))) {
			rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
		} else {
			gzbuffer(g, 1 << 16);
			bad = scan_batch(g, NULL, max_line, max_batch, &lines, why, sizeof why) != 0;
			if (!bad) {
				gzrewind(g);
				if (scan_batch(g, out, max_line, max_batch, &lines, why, sizeof why) != 0)
					bad = 1;   /* changed under us (local store); lines already out */
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
			st->records += lines;
		}
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
