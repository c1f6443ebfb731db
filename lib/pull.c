/* pull.c: the batches of a store folder not consumed yet, once each (gt-sync pull);
 * a share of them, or the newest only. */
#include "pull.h"
#include "fs.h"

#include <errno.h>
#include <fcntl.h>
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

/* The pull state: the consumed batch names with their marks, in a hash
 * table (open addressing, FNV-1a, linear probing), and the state file
 * open for appending: one line per batch, written once, so a run costs
 * the batches it pulls, not the size of the history. */
typedef struct seen {
	char *name;           /* NULL: an empty slot */
	int mark;
} seen;

typedef struct state {
	seen *v;
	size_t n, cap;        /* cap a power of two, n < cap / 2 */
	const char *path;
	int fd;               /* the state file, O_APPEND; -1 before it is opened */
} state;

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 14695981039346656037ULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h;
}

/* slot: the slot of name in s->v, or the empty slot where it would go */
static seen *slot(const state *s, const char *name)
{
	size_t i = (size_t)fnv1a(name) & (s->cap - 1);
	while (s->v[i].name && strcmp(s->v[i].name, name))
		i = (i + 1) & (s->cap - 1);
	return &s->v[i];
}

static int state_has(const state *s, const char *name)
{
	return s->n && slot(s, name)->name != NULL;
}

/* state_put: name with its mark in the table (a later mark replaces an
 * earlier one); returns 1 if the name is new */
static int state_put(state *s, const char *name, int mark)
{
	if (2 * (s->n + 1) > s->cap) {
		seen *old = s->v;
		size_t oc = s->cap;
		s->cap = oc ? 2 * oc : 1024;
		s->v = gt_xcalloc(s->cap, sizeof *s->v);
		for (size_t i = 0; i < oc; i++)
			if (old[i].name)
				*slot(s, old[i].name) = old[i];
		free(old);
	}
	seen *x = slot(s, name);
	if (x->name) {
		x->mark = mark;
		return 0;
	}
	x->name = gt_xstrdup(name);
	x->mark = mark;
	s->n++;
	return 1;
}

static void state_free(state *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->v[i].name);
	free(s->v);
	if (s->fd >= 0)
		close(s->fd);
}

/* state_compact: rewrite the state file with one line per batch
 * (atomically); for a file holding many more lines than batches */
static int state_compact(state *s, gt_error *e)
{
	size_t len = 0, k = 0;
	for (size_t i = 0; i < s->cap; i++)
		if (s->v[i].name)
			len += strlen(s->v[i].name) + 5;
	char *buf = gt_xmalloc(len + 1);
	for (size_t i = 0; i < s->cap; i++)
		if (s->v[i].name)
			k += (size_t)sprintf(buf + k, "%s\t%s\n", s->v[i].name, mark_name[s->v[i].mark]);
	int rc = gt_fs_write_atomic(s->path, buf, k, e);
	free(buf);
	return rc;
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

/* state_load: read the state file (absent = empty) and open it for
 * appending. A last line without its newline (a write cut by a crash) is
 * dropped with a warning and cut off the file; its batch is pulled again.
 * A file holding more than twice as many lines as batches is compacted. */
static int state_load(const gt_store_opts *o, state *s, const char *path, gt_error *e)
{
	s->path = path;
	s->fd = -1;
	int fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
	struct stat st;
	if (fd < 0 && errno == ENOENT)
		return 0;             /* made by the first line appended */
	if (fd < 0 || fstat(fd, &st) < 0) {
		int rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	s->fd = fd;
	if (st.st_size == 0)
		return 0;
	size_t size = (size_t)st.st_size, lines = 0;
	char *buf = gt_xmalloc(size + 1);
	if (pread(fd, buf, size, 0) != (ssize_t)size) {
		free(buf);
		return gt_error_set(e, GT_EIO, -1, -1, "%s: read error", path);
	}
	buf[size] = 0;
	size_t whole = size;
	while (whole > 0 && buf[whole - 1] != '\n')
		whole--;
	for (char *l = buf, *end = buf + whole; l < end; lines++) {
		char *nl = memchr(l, '\n', (size_t)(end - l));
		*nl = 0;
		char *tab = strchr(l, '\t');
		if (tab)
			*tab++ = 0;
		int mark = !tab || !strcmp(tab, "ok") ? MARK_OK : !strcmp(tab, "bad") ? MARK_BAD
		         : !strcmp(tab, "old") ? MARK_OLD : -1;
		if (!batch_name_ok(l) || mark < 0) {
			free(buf);
			return gt_error_set(e, GT_EFORMAT, (long)lines + 1, -1,
			                    "%s:%zu: not \"name<TAB>ok|bad|old\"", path, lines + 1);
		}
		state_put(s, l, mark);
		l = nl + 1;
	}
	free(buf);
	if (whole < size) {
		gt_store_warn(o, "%s: the last line was cut short (%zu bytes without a newline, "
		              "a crash while it was written); dropped, its batch is pulled again",
		              path, size - whole);
		if (ftruncate(fd, (off_t)whole) < 0 || fsync(fd) < 0)
			return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
	}
	if (lines > 2 * s->n + 1024) {
		int rc = state_compact(s, e);
		if (rc)
			return rc;
		close(s->fd);
		s->fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (s->fd < 0)
			return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
	}
	return 0;
}

/* state_add: name with its mark in the table and one line appended to the
 * state file; with sync, the file is then fsynced (a batch marked is on
 * disk). A name already there is left as it is. */
static int state_add(state *s, const char *name, int mark, int sync, gt_error *e)
{
	if (!state_put(s, name, mark))
		return 0;
	char line[300];
	int k = snprintf(line, sizeof line, "%s\t%s\n", name, mark_name[mark]);
	if (k < 0 || (size_t)k >= sizeof line)
		return gt_error_set(e, GT_EINVAL, -1, -1, "batch name too long for the state file");
	if (s->fd < 0) {
		s->fd = open(s->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (s->fd < 0)
			return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", s->path, strerror(errno));
		gt_fs_sync_parent(s->path);
	}
	if (gt_fs_write_all(s->fd, line, (size_t)k) != 0 || (sync && fdatasync(s->fd) != 0))
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", s->path, strerror(errno));
	return 0;
}

/* state_sync: fsync the state file */
static int state_sync(state *s, gt_error *e)
{
	if (fdatasync(s->fd) != 0)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", s->path, strerror(errno));
	return 0;
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

/* a non-empty line of scan_batch ends: counted in nl, and its newline
 * written to out (with own, the owner's check decides: owner_line) */
static void line_end(owner_check *oc, FILE *out, int own, long long *nl)
{
	++*nl;
	if (own)
		owner_line(oc, out, *nl);
	else if (out)
		putc('\n', out);
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
				if (cur)
					line_end(oc, out, own, &nl);
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
	if (cur)
		line_end(oc, out, own, &nl);
	*lines = nl;
	return 0;
}

/* gt_pull_share: FNV-1a 64 of the name, modulo units. */
unsigned gt_pull_share(const char *name, unsigned units)
{
	return units ? (unsigned)(fnv1a(name) % units) : 0;
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
 * older ones marked old in the state (*old counts them; the state file is
 * fsynced once after them). Returns 0 with a new array *picked of *np
 * entries in name order, or the state file's error. */
static int pick(const gt_store_entry *ents, size_t n, const gt_pull_pick *pk, state *s,
                cand **picked, size_t *np, long *old, gt_error *e)
{
	cand *c = gt_xmalloc((n ? n : 1) * sizeof *c);
	size_t k = 0;
	int rc = 0;
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
		for (size_t j = 0; j < drop && !rc; j++)
			rc = state_add(s, c[j].name, MARK_OLD, 0, e);
		if (!rc)
			rc = state_sync(s, e);
		*old = (long)drop;
		memmove(c, c + drop, (size_t)pk->newest * sizeof *c);
		k = (size_t)pk->newest;
		qsort(c, k, sizeof *c, cand_idx_cmp);
	}
	*picked = c;
	*np = k;
	return rc;
}

/* gz_magic: 1 if the file fd starts with the gzip magic bytes. */
static int gz_magic(int fd)
{
	unsigned char m[2] = { 0, 0 };
	return pread(fd, m, 2, 0) == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

/* out_sync: fsync out when it is a file (a pipe or terminal cannot be):
 * the records are on disk before the state says they were pulled. */
static int out_sync(FILE *out, gt_error *e)
{
	if (fflush(out) != 0 || ferror(out))
		return gt_error_set(e, GT_EIO, -1, -1, "write error on output: %s", strerror(errno));
	if (fsync(fileno(out)) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP &&
	    errno != EBADF)
		return gt_error_set(e, GT_EIO, -1, -1, "output: fsync: %s", strerror(errno));
	return 0;
}

/* download: the batch at url into a new temporary file in TMPDIR, at most
 * max bytes written (more is GT_ETOOLONG: the batch is bad); *fd receives
 * the file, open (the name is already removed). Other errors: the
 * store's, the batch not taken. */
static int download(const gt_store_opts *o, const char *url, long long max, int *fd, gt_error *e)
{
	const char *td = getenv("TMPDIR");
	char tmpl[4096];
	snprintf(tmpl, sizeof tmpl, "%s/gt-pull.XXXXXX", td && *td ? td : "/tmp");
	int f = mkstemp(tmpl);
	FILE *w = f >= 0 ? fdopen(dup(f), "wb") : NULL;
	*fd = -1;
	if (!w) {
		int rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", tmpl, strerror(errno));
		if (f >= 0) {
			close(f);
			unlink(tmpl);
		}
		return rc;
	}
	unlink(tmpl);               /* gone with the descriptor, whatever happens */
	int rc = gt_store_get_stream(o, url, w, max, e);
	if (fclose(w) != 0 && !rc)
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", tmpl, strerror(errno));
	if (rc)
		close(f);
	else
		*fd = f;
	return rc;
}

/* gz_bound: the most bytes a batch may have as stored, for one that
 * expands to at most max_batch: the same for plain text; for gzip the
 * worst case of deflate (stored blocks: 5 bytes per 65535) and a header. */
static long long gz_bound(long long max_batch, int gz)
{
	if (!gz || max_batch < 0)
		return max_batch;
	return max_batch + max_batch / 8192 + 65536;
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
	state s = { .fd = -1 };
	char *local = NULL;
	int rc;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof *st);
	if ((rc = gt_store_local_path(url, &local, e)) != 0)
		return rc;
	if ((rc = state_load(o, &s, statepath, e)) != 0)
		goto out;
	if ((rc = list_batches(o, url, &ents, &n, e)) == GT_ENOTFOUND) {
		gt_store_warn(o, "%s: no such folder yet; nothing to pull", url);
		rc = 0;
		goto out;
	}
	if (rc)
		goto out;
	if ((rc = pick(ents, n, pk, &s, &picked, &np, &st->old, e)) != 0)
		goto out;
	for (size_t j = 0; j < np && !rc; j++) {
		const char *name = picked[j].name;
		long long size = ents[picked[j].idx].bytes;
		int gz = ends_with(name, ".ndjson.gz"), fd = -1, bad = 0, link = 0;
		char why[200] = "", q[300];
		if (local) {
			char *path = batch_url(local, name);
			fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
			link = fd < 0 && errno == ELOOP;
			if (fd < 0 && !link)
				rc = gt_error_set(e, errno == ENOENT ? GT_ENOTFOUND : GT_EIO, -1, -1, "%s: %s",
				                  path, strerror(errno));
			free(path);
		} else if (size >= 0 && max_batch >= 0 && size > gz_bound(max_batch, gz)) {
			snprintf(why, sizeof why, "listed as %lld bytes, more than %lld as stored "
			         "(--max-batch)", size, gz_bound(max_batch, gz));
			bad = 1;
		} else {
			/* never more than the listing promised */
			char *u = batch_url(url, name);
			rc = download(o, u, size >= 0 ? size : gz_bound(max_batch, gz), &fd, e);
			free(u);
		}
		if (rc == GT_ENOTFOUND || link) {   /* removed or swapped since the listing */
			gt_store_warn(o, "%s %s; skipped", gt_store_quote(name, q, sizeof q),
			              link ? "is a symbolic link (not followed)" : "vanished from the store");
			rc = 0;
			continue;
		}
		if (rc == GT_ETOOLONG) {   /* its bytes are bad: more than a batch may be */
			if (size >= 0)
				snprintf(why, sizeof why, "more than the %lld bytes its listing promised; "
				         "stopped there", size);
			else
				snprintf(why, sizeof why, "more than %lld bytes as stored (--max-batch)",
				         gz_bound(max_batch, gz));
			bad = 1;
			rc = 0;
		}
		if (rc)                    /* the store failed: not marked, pulled next time */
			break;
		struct stat fst;
		if (!bad && !local && size >= 0 && fstat(fd, &fst) == 0 && fst.st_size != size) {
			snprintf(why, sizeof why, "%lld bytes, its listing gave %lld",
			         (long long)fst.st_size, size);
			bad = 1;
		}
		long long lines = 0;
		gzFile g = NULL;
		char owner[256] = "";
		const char *sl = strchr(name, '/');
		if (sl)
			snprintf(owner, sizeof owner, "%.*s", (int)(sl - name), name);
		owner_check oc = { .owner = sl ? owner : NULL, .batch = name, .rej = rejects };
		if (!bad && gz && !gz_magic(fd)) {
			snprintf(why, sizeof why, "not gzip data");
			bad = 1;
		} else if (bad) {
			;               /* refused while downloading */
		} else if (lseek(fd, 0, SEEK_SET) < 0 || !(g = gzdopen(dup(fd), "rb"))) {
			rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", name, strerror(errno));
		} else {
			gzbuffer(g, 1 << 16);
			bad = scan_batch(g, NULL, NULL, max_line, max_batch, &lines, why, sizeof why) != 0;
			if (!bad) {
				gzrewind(g);
				if (scan_batch(g, out, &oc, max_line, max_batch, &lines, why, sizeof why) != 0)
					bad = 1;   /* changed under us (local store); lines already out */
				if (rejects && (fflush(rejects) != 0 || ferror(rejects)))
					rc = gt_error_set(e, GT_EIO, -1, -1, "write error on the rejects: %s",
					                  strerror(errno));
				if (!rc)
					rc = out_sync(out, e);
			}
			gzclose(g);
		}
		if (fd >= 0)
			close(fd);
		free(oc.line);
		if (rc)
			break;
		if (size > 0)
			st->bytes += size;
		if (bad) {
			gt_store_warn(o, "skipping batch %s: %s", gt_store_quote(name, q, sizeof q), why);
			st->bad++;
		} else {
			st->batches++;
			st->records += lines - oc.dropped;
			st->rejected += oc.dropped;
			if (oc.dropped)
				gt_store_warn(o, "batch %s: %lld records whose worker is not %s dropped",
				              gt_store_quote(name, q, sizeof q), oc.dropped, owner);
		}
		rc = state_add(&s, name, bad ? MARK_BAD : MARK_OK, 1, e);
	}
out:
	free(picked);
	gt_store_entries_free(ents, n);
	state_free(&s);
	free(local);
	return rc;
}
