/*
 * fs.h: files written whole or not at all, folders, and whole reads and
 * writes on file descriptors.
 *
 * An atomic write puts the bytes in a temporary file in the target's folder,
 * named ".NAME.tmp.PID.XXXXXX" (hidden from listings and globs, and
 * recognisable by gt_fs_remove_stale), mode 0644 where the file system keeps
 * modes; it is fsynced, renamed over the target, and the folder is fsynced.
 * A reader sees the old file or the new one, never a part, and a crash at
 * any moment leaves one of them on disk (the rename(2) and fsync(2) contract
 * of POSIX). A failed write removes its temporary file.
 */
#ifndef GT_FS_H
#define GT_FS_H
#include "gt.h"

#include <stddef.h>

/* gt_fs_write_all: write n bytes of p to fd, retrying short writes and
 * EINTR. Returns 0, or -1 with errno set (EIO where write returned 0). */
int gt_fs_write_all(int fd, const void *p, size_t n);

/* gt_fs_read_all: read exactly n bytes from fd into p, retrying short reads
 * and EINTR. Returns 0, or -1 at end of file (errno 0) or on an error
 * (errno set). */
int gt_fs_read_all(int fd, void *p, size_t n);

/* gt_fs_open_head: open path for reading and read its first n bytes into
 * head: the start of a reader that checks a file's header (and the size it
 * claims against *size, the file's size in bytes) before it allocates for
 * the rest. Returns the open descriptor, positioned at byte n, which the
 * caller closes; or GT_EIO (cannot open or stat, errno kept) or GT_EFORMAT
 * (the file is shorter than n bytes: "truncated header", e->offset its
 * size), e naming path, the descriptor then closed. */
int gt_fs_open_head(const char *path, void *head, size_t n, long long *size, gt_error *e);
/* gt_fs_read_regular: the whole of the regular file path, of at most max
 * bytes, into a new NUL-terminated *buf (caller frees) of *len bytes: for
 * a path an untrusted party names. The file is opened without blocking
 * (a FIFO with no writer does not hang) and refused unless it is a regular
 * file (GT_EINVAL: "a character device", "a FIFO", "a directory" ...);
 * one larger than max is refused from its size before a byte is read, and
 * one that grows past max while read stops there (GT_ETOOLONG). Memory:
 * at most max + 2 bytes. Errors: GT_EIO (cannot open or read, errno's
 * text), GT_EINVAL, GT_ETOOLONG; e names path and why. */
int gt_fs_read_regular(const char *path, size_t max, char **buf, size_t *len, gt_error *e);

/* gt_fs_open_regular_write: open path for writing, created (0644) if it
 * does not exist, emptied if it does, but only a regular file: a device,
 * FIFO (opened without blocking) or directory is GT_EINVAL and left as it
 * is. Returns the descriptor (caller closes), or GT_EIO / GT_EINVAL (e
 * names path and why). */
int gt_fs_open_regular_write(const char *path, gt_error *e);

/* gt_fs_write_atomic: replace the file path by the len bytes at buf,
 * atomically (see above). Returns 0, or GT_EIO with errno kept and e naming
 * the file (or its folder) and the reason. */
int gt_fs_write_atomic(const char *path, const void *buf, size_t len, gt_error *e);

/* The streaming form, for writers that produce their output piece by piece:
 *
 *	gt_fs_atomic a;
 *	if (gt_fs_atomic_begin(&a, path, e)) return GT_EIO;
 *	... write to a.fd (or gzdopen/fdopen a dup of it, closed before commit) ...
 *	return ok ? gt_fs_atomic_commit(&a, e) : (gt_fs_atomic_abort(&a), rc);
 */
typedef struct gt_fs_atomic {
	int fd;      /* the temporary file, open for writing; -1 once closed */
	char *tmp;   /* its path (owned) */
	char *path;  /* the target's path (owned copy) */
} gt_fs_atomic;

/* gt_fs_atomic_begin: create the temporary file of an atomic write of path.
 * Returns 0, or GT_EIO (errno kept, e filled) with *a left empty. */
int gt_fs_atomic_begin(gt_fs_atomic *a, const char *path, gt_error *e);

/* gt_fs_atomic_commit: fsync and close the temporary file, rename it over
 * the target and fsync the folder. Releases a whether or not it succeeds;
 * on failure the temporary file is removed. Returns 0, or GT_EIO with errno
 * kept and e naming the file or folder. */
int gt_fs_atomic_commit(gt_fs_atomic *a, gt_error *e);

/* gt_fs_atomic_abort: close and remove the temporary file and release a
 * (errno is kept). Safe on an empty or released a. */
void gt_fs_atomic_abort(gt_fs_atomic *a);

/* gt_fs_mkdir_p: create the folder dir and its missing parents (mode 0777
 * less the umask), like mkdir -p. Returns 0 (also when it exists), or
 * GT_EIO with e naming the part that could not be made or is not a folder. */
int gt_fs_mkdir_p(const char *dir, gt_error *e);

/* gt_fs_sync_dir: fsync the folder dir, so that names created, renamed or
 * linked in it are on disk. Returns 0, or -1 with errno. */
int gt_fs_sync_dir(const char *dir);

/* gt_fs_sync_parent: gt_fs_sync_dir of the folder that holds path ("." for
 * a bare name). Returns 0, or -1 with errno. */
int gt_fs_sync_parent(const char *path);

/* gt_fs_remove_stale: remove the temporary files left in dir by processes
 * that are gone: names that start with '.' and hold ".tmp.PID", where PID is
 * followed by nothing or by '.' and a mkstemp suffix, and no process PID
 * exists; a ".tmp." not followed by such a PID is removed too. Errors are
 * ignored (what cannot be removed stays). */
void gt_fs_remove_stale(const char *dir);
/* gt_fs_remove_stale_of: the same for the temporary files of one file
 * path only (".NAME.tmp.PID..." in its folder), for a command that
 * writes path atomically and shares its folder with others. */
void gt_fs_remove_stale_of(const char *path);

#endif
