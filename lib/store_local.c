/* store_local.c: the local scheme of lib/store: a folder, or a file:// URL. */
#include "store_scheme.h"
#include "fs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* local_path: the path of a plain path or a file:// URL (new string);
 * %XX escapes of a file:// URL decoded. */
static char *local_path(const char *url)
{
	const char *p = url;
	int file = !strncmp(url, "file://", 7);
	if (file) {
		p = url + 7;
		if (!strncmp(p, "localhost/", 10))
			p += 9;
	}
	char *d = gt_xmalloc(strlen(p) + 1), *q = d;
	for (; *p; p++) {
		if (file && p[0] == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
			char h[3] = { p[1], p[2], 0 };
			*q++ = (char)strtol(h, NULL, 16);
			p += 2;
		} else {
			*q++ = *p;
		}
	}
	*q = 0;
	return d;
}

static int local_check(const char *url, gt_error *e)
{
	if (!strncmp(url, "file://", 7)) {
		const char *p = url + 7;
		if (!strncmp(p, "localhost/", 10))
			p += 9;
		if (*p != '/')
			return gt_error_set(e, GT_EINVAL, -1, -1, "file URL needs an absolute path: %s", url);
	}
	return 0;
}

/* open_error: GT_ENOTFOUND or GT_EIO for a failed open or stat of path */
static int open_error(const char *path, gt_error *e)
{
	if (errno == ELOOP)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: a symbolic link; not followed", path);
	return gt_error_set(e, errno == ENOENT ? GT_ENOTFOUND : GT_EIO, -1, -1, "%s: %s", path,
	                    strerror(errno));
}

/* open_object: the object at path for reading, a symbolic link not
 * followed (ELOOP), *st its status; -1 (errno set) when it cannot be
 * opened, is a link or is not a regular file (EISDIR, EINVAL). */
static int open_object(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		int err = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

static int local_head(const gt_store_opts *o, const char *url, long long *bytes, gt_error *e)
{
	char *path = local_path(url);
	struct stat st;
	int fd = open_object(path, &st), rc = fd < 0 ? open_error(path, e) : 0;
	*bytes = rc ? -1 : (long long)st.st_size;
	if (fd >= 0)
		close(fd);
	free(path);
	return rc;
}

static int local_get(const gt_store_opts *o, const char *url, gt_store_sink *s, long long *total,
                     int *keep, gt_error *e)
{
	char *path = local_path(url);
	char buf[65536];
	size_t k;
	struct stat st;
	int rc = 0, fd = open_object(path, &st);
	FILE *in = fd >= 0 ? fdopen(fd, "rb") : NULL;
	if (!in) {
		rc = open_error(path, e);
		if (fd >= 0)
			close(fd);
		free(path);
		return rc;
	}
	*total = (long long)st.st_size;
	rc = s->start(s, 0, "", e);
	while (!rc && (k = fread(buf, 1, sizeof buf, in)) > 0)
		rc = s->write(s, buf, k, e);
	if (!rc && ferror(in))
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: read error: %s", path, strerror(errno));
	fclose(in);
	free(path);
	return rc;
}

/* same_version: 0 if the file path is still the version match (its
 * sha256 tag), GT_ECONFLICT if it changed or went, GT_EIO (e filled). */
static int same_version(const char *path, const char *match, gt_error *e)
{
	char hex[GT_SHA256_HEX], tag[GT_STORE_TAG];
	int rc = gt_store_sha256_file(path, hex, NULL, e);
	if (rc == GT_ENOTFOUND)
		return GT_ECONFLICT;
	if (rc)
		return rc;
	gt_store_tag_of("", hex, tag);
	return strcmp(tag, match) ? GT_ECONFLICT : 0;
}

/* local_put: a temporary file in the target's folder (created if missing),
 * fsynced, then renamed over the target (overwrite) or linked to its name,
 * which fails if the name exists (*taken). With a match the target is
 * locked (flock on the file the name holds now) and compared first: a
 * writer waiting on the same lock finds another file under the name once
 * it gets the lock, and so sees the change. */
static int local_put(const gt_store_opts *o, FILE *in, long long n, const char *url, int overwrite,
                     const char *match, int *taken, gt_error *e)
{
	char *path = local_path(url), buf[65536];
	size_t k, dl = (size_t)(gt_store_basename(path) - path);
	gt_fs_atomic a = { .fd = -1 };
	int rc = 0;
	if (dl > 0) {               /* the folder, with its trailing '/' */
		char *dir = gt_xmalloc(dl + 1);
		memcpy(dir, path, dl);
		dir[dl] = 0;
		rc = gt_fs_mkdir_p(dir, e);
		free(dir);
	}
	if (!rc)
		rc = gt_fs_atomic_begin(&a, path, e);
	rewind(in);
	while (!rc && (k = fread(buf, 1, sizeof buf, in)) > 0)
		if (gt_fs_write_all(a.fd, buf, k) != 0)
			rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
	if (!rc && ferror(in))
		rc = gt_error_set(e, GT_EIO, -1, -1, "input: read error: %s", strerror(errno));
	if (!rc && overwrite && match) {
		int lk = open(path, O_RDONLY | O_CLOEXEC);
		if (lk < 0 && errno == ENOENT)
			*taken = 1;           /* gone since it was read */
		else if (lk < 0 || flock(lk, LOCK_EX) < 0)
			rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
		else if ((rc = same_version(path, match, e)) == GT_ECONFLICT)
			*taken = 1, rc = 0;
		else if (!rc)
			rc = gt_fs_atomic_commit(&a, e);
		if (lk >= 0)
			close(lk);            /* the lock goes with it, after the rename */
	} else if (!rc && overwrite) {
		rc = gt_fs_atomic_commit(&a, e);
	} else if (!rc) {
		if (fsync(a.fd) != 0)
			rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
		else if (link(a.tmp, path) == 0)
			gt_fs_sync_parent(path);
		else if (errno == EEXIST)   /* someone else was faster */
			*taken = 1;
		else
			rc = gt_error_set(e, GT_EIO, -1, -1, "cannot link %s: %s", path, strerror(errno));
	}
	gt_fs_atomic_abort(&a);      /* the temporary file, unless renamed */
	free(path);
	return rc;
}

static int local_list(const gt_store_opts *o, const char *url, gt_store_entry **v, size_t *n,
                      gt_error *e)
{
	char *path = local_path(url);
	DIR *d = opendir(path);
	struct dirent *de;
	if (!d) {
		int rc = open_error(path, e);
		free(path);
		return rc;
	}
	int rc = 0;
	while (!rc && (de = readdir(d))) {
		struct stat st;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
			char q[300];
			if (de->d_name[0] != '.')
				gt_store_warn(o, "skipping %s: a symbolic link (not followed)",
				              gt_store_quote(de->d_name, q, sizeof q));
			continue;
		}
		if (fstatat(dirfd(d), de->d_name, &st, 0) < 0)
			continue;
		if (S_ISREG(st.st_mode))
			rc = gt_store_entry_add(o, v, n, de->d_name, (long long)st.st_size,
			                        (long long)st.st_mtime, 0, e);
		else if (S_ISDIR(st.st_mode))
			rc = gt_store_entry_add(o, v, n, de->d_name, -1, (long long)st.st_mtime, 1, e);
	}
	closedir(d);
	free(path);
	return rc;
}

const gt_store_scheme gt_store_scheme_local = {
	.name = "file", .escape = 0, .check = local_check, .path = local_path,
	.head = local_head, .get = local_get, .put = local_put, .list = local_list,
};
