/* fs: atomic writes (whole and streamed), mkdir -p, stale temporaries. */
#include "fs.h"
#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/gt-fs-XXXXXX";

static const char *at(const char *name)
{
	static char buf[4][256];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
	return buf[k];
}

/* the whole content of path, or NULL */
static char *slurp(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = 0;
	return buf;
}

/* entries of d whose name contains s */
static int count(const char *d, const char *s)
{
	DIR *dd = opendir(d);
	struct dirent *de;
	int n = 0;
	while (dd && (de = readdir(dd)))
		n += strstr(de->d_name, s) != NULL;
	if (dd)
		closedir(dd);
	return n;
}

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
}

static void test_atomic(void)
{
	gt_error e;
	struct stat sb;
	is_int(gt_fs_write_atomic(at("a"), "first", 5, &e), 0, "atomic write of a new file");
	is_str(slurp(at("a")), "first", "its bytes");
	ok(stat(at("a"), &sb) == 0 && (sb.st_mode & 0777) == 0644, "mode 0644");
	is_int(gt_fs_write_atomic(at("a"), "second!", 7, &e), 0, "atomic write over it");
	is_str(slurp(at("a")), "second!", "replaced whole");
	is_int(count(dir, ".tmp."), 0, "no temporary file left");

	errno = 0;
	is_int(gt_fs_write_atomic(at("none/b"), "x", 1, &e), GT_EIO, "a missing folder: GT_EIO");
	ok(errno == ENOENT, "errno kept (ENOENT)");
	ok(strstr(e.text, "none/b") && strstr(e.text, strerror(ENOENT)), "message names the file: %s",
	   e.text);

	gt_fs_atomic a;
	is_int(gt_fs_atomic_begin(&a, at("s"), &e), 0, "streaming: begin");
	ok(a.fd >= 0 && strncmp(a.tmp, at(".s.tmp."), strlen(at(".s.tmp."))) == 0,
	   "the temporary is hidden, in the same folder: %s", a.tmp);
	ok(access(at("s"), F_OK) != 0, "nothing at the target before commit");
	ok(gt_fs_write_all(a.fd, "one,", 4) == 0 && gt_fs_write_all(a.fd, "two", 3) == 0,
	   "two pieces written");
	is_int(gt_fs_atomic_commit(&a, &e), 0, "commit");
	is_str(slurp(at("s")), "one,two", "the pieces, in order");
	ok(a.tmp == NULL && a.path == NULL && a.fd < 0, "commit releases the struct");

	is_int(gt_fs_atomic_begin(&a, at("s"), &e), 0, "begin again");
	gt_fs_write_all(a.fd, "junk", 4);
	gt_fs_atomic_abort(&a);
	is_str(slurp(at("s")), "one,two", "abort keeps the old file");
	is_int(count(dir, ".tmp."), 0, "and removes its temporary");
	gt_fs_atomic_abort(&a); /* twice is harmless */

	int fd = open(at("r"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	char buf[8];
	ok(fd >= 0 && gt_fs_write_all(fd, "abcdef", 6) == 0 && lseek(fd, 0, SEEK_SET) == 0 &&
	   gt_fs_read_all(fd, buf, 6) == 0 && memcmp(buf, "abcdef", 6) == 0, "write_all, read_all");
	errno = 0;
	ok(gt_fs_read_all(fd, buf, 1) == -1 && errno == 0, "read_all at the end: -1, errno 0");
	close(fd);
}

static void test_dirs(void)
{
	gt_error e;
	struct stat sb;
	is_int(gt_fs_mkdir_p(at("p/q//r/"), &e), 0, "mkdir -p of three levels");
	ok(stat(at("p/q/r"), &sb) == 0 && S_ISDIR(sb.st_mode), "they exist");
	is_int(gt_fs_mkdir_p(at("p/q/r"), &e), 0, "an existing folder is fine");
	touch(at("f"));
	is_int(gt_fs_mkdir_p(at("f"), &e), GT_EIO, "a file in the way: GT_EIO");
	ok(strstr(e.text, "not a directory") != NULL, "said: %s", e.text);
	is_int(gt_fs_mkdir_p(at("f/g"), &e), GT_EIO, "a file as a parent: GT_EIO");
	is_int(gt_fs_sync_dir(dir), 0, "sync_dir");
	is_int(gt_fs_sync_parent(at("a")), 0, "sync_parent");
	ok(gt_fs_sync_dir(at("missing")) == -1 && errno == ENOENT, "sync_dir of a missing folder");
}

static void test_stale(void)
{
	char name[64];
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	gt_error e;
	gt_fs_mkdir_p(at("st"), &e);
	snprintf(name, sizeof name, "st/.x.tmp.%ld", (long)child);
	touch(at(name));
	snprintf(name, sizeof name, "st/.y.tmp.%ld.AbC123", (long)child);
	touch(at(name));
	touch(at("st/.z.tmp.junk"));
	snprintf(name, sizeof name, "st/.mine.tmp.%ld", (long)getpid());
	touch(at(name));
	snprintf(name, sizeof name, "st/.mine2.tmp.%ld.AbC123", (long)getpid());
	touch(at(name));
	touch(at("st/plain.tmp.1"));
	gt_fs_remove_stale(at("st"));
	is_int(count(at("st"), ".x.tmp.") + count(at("st"), ".y.tmp.") + count(at("st"), ".z.tmp."), 0,
	       "temporaries of a gone process, and unparsable ones, removed");
	is_int(count(at("st"), ".mine"), 2, "those of a live process kept");
	is_int(count(at("st"), "plain.tmp"), 1, "names without a leading dot kept");
}

int main(void)
{
	if (!mkdtemp(dir))
		skip_all("mkdtemp failed");
	test_atomic();
	test_dirs();
	test_stale();
	char cmd[64];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
