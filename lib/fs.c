/* fs.c: atomic writes, folders, whole reads and writes (fs.h). */
#include "fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* all n bytes through read(2) or write(2), retried after EINTR and short
 * counts; a count of 0 is the end: errno eof (EIO for a write, 0 for a
 * read's end of file) */
static int io_all(int fd, char *b, size_t n, int writing, int eof)
{
	while (n) {
		ssize_t k = writing ? write(fd, b, n) : read(fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = eof;
			return -1;
		}
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

int gt_fs_write_all(int fd, const void *p, size_t n)
{
	return io_all(fd, (char *)p, n, 1, EIO);
}

int gt_fs_read_all(int fd, void *p, size_t n)
{
	return io_all(fd, p, n, 0, 0);
}

/* the folder part of path, as a new string ("." for a bare name) */
static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return gt_xstrdup(".");
	while (s > path && s[-1] == '/')
		s--;
	if (s == path)
		return gt_xstrdup("/");
	char *d = gt_xmalloc((size_t)(s - path) + 1);
	memcpy(d, path, (size_t)(s - path));
	d[s - path] = 0;
	return d;
}

int gt_fs_open_head(const char *path, void *head, size_t n, long long *size, gt_error *e)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		int err = errno;
		close(fd);
		errno = err;
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(err));
	}
	if ((unsigned long long)st.st_size < n || gt_fs_read_all(fd, head, n)) {
		close(fd);
		return gt_error_set(e, GT_EFORMAT, -1, (long)st.st_size, "%s: truncated header",
		                    path);
	}
	*size = (long long)st.st_size;
	return fd;
}

/* open_regular: open path with flags (O_NONBLOCK added: a FIFO does not
 * wait for its other end) and *st its status; the descriptor, or GT_EIO,
 * or GT_EINVAL (closed) when it is no regular file, e naming path and
 * what it is */
static int open_regular(const char *path, int flags, struct stat *st, gt_error *e)
{
	int fd = open(path, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
	if (fd < 0 && (errno == ENXIO || errno == EISDIR))   /* a FIFO no one reads */
		return gt_error_set(e, GT_EINVAL, -1, -1, "%s: %s, not a regular file", path,
		                    errno == EISDIR ? "a directory" : "a FIFO");
	if (fd < 0)
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(errno));
	const char *what;
	if (fstat(fd, st)) {
		int err = errno;
		close(fd);
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(err));
	}
	if (S_ISREG(st->st_mode))
		return fd;
	what = S_ISDIR(st->st_mode) ? "a directory" : S_ISCHR(st->st_mode) ? "a character device"
	     : S_ISBLK(st->st_mode) ? "a block device" : S_ISFIFO(st->st_mode) ? "a FIFO"
	     : S_ISSOCK(st->st_mode) ? "a socket" : "something else";
	close(fd);
	return gt_error_set(e, GT_EINVAL, -1, -1, "%s: %s, not a regular file", path, what);
}

int gt_fs_read_regular(const char *path, size_t max, char **buf, size_t *len, gt_error *e)
{
	struct stat st;
	*buf = NULL;
	*len = 0;
	int fd = open_regular(path, O_RDONLY, &st, e);
	if (fd < 0)
		return fd;
	if ((unsigned long long)st.st_size > max) {
		close(fd);
		return gt_error_set(e, GT_ETOOLONG, -1, -1, "%s: %lld bytes, more than the %zu allowed",
		                    path, (long long)st.st_size, max);
	}
	/* the size stat gave, and one byte more to see a file that grew */
	size_t cap = (size_t)st.st_size + 1, n = 0;
	char *b = gt_xmalloc(cap + 1);
	int rc = 0;
	for (;;) {
		ssize_t k = read(fd, b + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = gt_error_set(e, GT_EIO, -1, (long)n, "%s: %s", path, strerror(errno));
			break;
		}
		if (k == 0)
			break;
		n += (size_t)k;
		if (n > max) {
			rc = gt_error_set(e, GT_ETOOLONG, -1, -1, "%s: grew past the %zu bytes allowed "
			                  "while read", path, max);
			break;
		}
		if (n == cap) {
			cap = cap * 2 < max + 1 ? cap * 2 : max + 1;
			b = gt_xrealloc(b, cap + 1);
		}
	}
	close(fd);
	if (rc) {
		free(b);
		return rc;
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}

int gt_fs_open_regular_write(const char *path, gt_error *e)
{
	struct stat st;
	int fd = open_regular(path, O_WRONLY | O_CREAT, &st, e);
	if (fd >= 0 && ftruncate(fd, 0)) {
		int err = errno;
		close(fd);
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(err));
	}
	return fd;
}

int gt_fs_sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = fsync(fd), err = errno;
	close(fd);
	errno = err;
	return rc ? -1 : 0;
}

int gt_fs_sync_parent(const char *path)
{
	char *d = dir_of(path);
	int rc = gt_fs_sync_dir(d), err = errno;
	free(d);
	errno = err;
	return rc;
}

int gt_fs_atomic_begin(gt_fs_atomic *a, const char *path, gt_error *e)
{
	const char *s = strrchr(path, '/');
	size_t dl = s ? (size_t)(s - path) + 1 : 0, n = strlen(path) + 48;
	a->fd = -1;
	a->path = gt_xstrdup(path);
	a->tmp = gt_xmalloc(n);
	snprintf(a->tmp, n, "%.*s.%s.tmp.%ld.XXXXXX", (int)dl, path, path + dl, (long)getpid());
	a->fd = mkstemp(a->tmp);
	if (a->fd >= 0) {
		/* mkstemp's 0600 made readable; best effort: some file systems keep no modes */
		if (fchmod(a->fd, 0644) != 0)
			errno = 0;
		return 0;
	}
	int err = errno;
	free(a->tmp);
	free(a->path);
	a->tmp = a->path = NULL;
	errno = err;
	return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(err));
}

void gt_fs_atomic_abort(gt_fs_atomic *a)
{
	int err = errno;
	if (a->fd >= 0)
		close(a->fd);
	if (a->tmp)
		unlink(a->tmp);
	free(a->tmp);
	free(a->path);
	a->fd = -1;
	a->tmp = a->path = NULL;
	errno = err;
}

int gt_fs_atomic_commit(gt_fs_atomic *a, gt_error *e)
{
	int rc = 0, err = 0;
	if (fsync(a->fd) != 0) {
		err = errno;
		close(a->fd);
	} else if (close(a->fd) != 0 || rename(a->tmp, a->path) != 0) {
		err = errno;
	}
	a->fd = -1;
	if (err) {
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", a->path, strerror(err));
		gt_fs_atomic_abort(a);
		errno = err;
		return rc;
	}
	/* the rename is durable once the folder is: a folder that cannot be
	 * synced at all (EINVAL: some network and FUSE file systems) is not an error */
	if (gt_fs_sync_parent(a->path) != 0 && errno != EINVAL) {
		err = errno;
		char *d = dir_of(a->path);
		rc = gt_error_set(e, GT_EIO, -1, -1, "%s: %s", d, strerror(err));
		free(d);
	}
	free(a->tmp);
	free(a->path);
	a->tmp = a->path = NULL;
	errno = err;
	return rc;
}

int gt_fs_write_atomic(const char *path, const void *buf, size_t len, gt_error *e)
{
	gt_fs_atomic a;
	int rc = gt_fs_atomic_begin(&a, path, e);
	if (rc)
		return rc;
	if (gt_fs_write_all(a.fd, buf, len) != 0) {
		int err = errno;
		gt_fs_atomic_abort(&a);
		errno = err;
		return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", path, strerror(err));
	}
	return gt_fs_atomic_commit(&a, e);
}

/* mkdir(d) unless it is a folder already */
static int mkdir_one(const char *d, gt_error *e)
{
	if (mkdir(d, 0777) == 0)
		return 0;
	int err = errno;
	struct stat sb;
	if (stat(d, &sb) == 0) {
		if (S_ISDIR(sb.st_mode))
			return 0;
		errno = ENOTDIR;
		return gt_error_set(e, GT_EIO, -1, -1, "%s: not a directory", d);
	}
	errno = err;
	return gt_error_set(e, GT_EIO, -1, -1, "%s: %s", d, strerror(err));
}

int gt_fs_mkdir_p(const char *dir, gt_error *e)
{
	char *buf = gt_xstrdup(dir);
	int rc = 0;
	for (char *p = buf + 1; *p && !rc; p++)
		if (*p == '/' && p[-1] != '/') {
			*p = 0;
			rc = mkdir_one(buf, e);
			*p = '/';
		}
	if (!rc)
		rc = mkdir_one(buf, e);
	free(buf);
	return rc;
}

/* gt_fs_remove_stale, of the names that start with prefix ("": all) */
static void remove_stale(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *t = strstr(de->d_name, ".tmp.");
		if (de->d_name[0] != '.' || !t || strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		char *end;
		long pid = strtol(t + 5, &end, 10);
		if (end[0] == '.' && end[1] && strlen(end) == 7)
			end += 7; /* the mkstemp suffix of gt_fs_atomic_begin */
		if (*end || pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH)) {
			size_t n = strlen(dir) + strlen(de->d_name) + 2;
			char *p = gt_xmalloc(n);
			snprintf(p, n, "%s/%s", dir, de->d_name);
			unlink(p);
			free(p);
		}
	}
	closedir(d);
}

void gt_fs_remove_stale(const char *dir)
{
	remove_stale(dir, "");
}

void gt_fs_remove_stale_of(const char *path)
{
	const char *s = strrchr(path, '/');
	size_t n = strlen(path) + 8;
	char *d = dir_of(path), *prefix = gt_xmalloc(n);
	snprintf(prefix, n, ".%s.tmp.", s ? s + 1 : path);
	remove_stale(d, prefix);
	free(prefix);
	free(d);
}
