/*
 * bench.h: what the benchmarks in bench/ share (not part of the library):
 * CPU clocks in seconds and a temporary folder (wall clock: lib/util.h
 * gt_now). Benchmarks report ratios
 * against a reference measured in the same run (bench/run).
 */
#ifndef GT_BENCH_H
#define GT_BENCH_H
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "util.h" /* gt_now: wall-clock seconds (monotonic) */

/* bench_clock: clock id's time in seconds (clock_gettime) */
static __attribute__((unused)) double bench_clock(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* cpu_thread, cpu_process: CPU seconds of the calling thread, of the
 * process; on a shared machine shares of time are taken from CPU time,
 * which other processes do not inflate */
static __attribute__((unused)) double cpu_thread(void)
{
	return bench_clock(CLOCK_THREAD_CPUTIME_ID);
}

static __attribute__((unused)) double cpu_process(void)
{
	return bench_clock(CLOCK_PROCESS_CPUTIME_ID);
}

/* bench_tmpdir: makes a new folder $TMPDIR/gt-bench-NAME.XXXXXX ($TMPDIR or
 * /tmp) into dir (size bytes); 0, or -1 when it cannot. */
static __attribute__((unused)) int bench_tmpdir(char *dir, size_t size, const char *name)
{
	snprintf(dir, size, "%s/gt-bench-%s.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
	return mkdtemp(dir) ? 0 : -1;
}

/* bench_katago_path: into path (size bytes) the file name of shared data
 * of KataGo (e.g. its g170 b6c96 network) in $GT_KATAGO_DATA, else in
 * $GT_SRC/../shared/data/katago (GT_SRC defaults to .) */
static __attribute__((unused)) void bench_katago_path(char *path, size_t size, const char *name)
{
	const char *d = getenv("GT_KATAGO_DATA"), *src = getenv("GT_SRC");
	if (d)
		snprintf(path, size, "%s/%s", d, name);
	else
		snprintf(path, size, "%s/../shared/data/katago/%s", src ? src : ".", name);
}

/* bench_rmdir: removes dir and everything in it (rm -rf); 0, or 1 when
 * that fails (an exit status) */
static __attribute__((unused)) int bench_rmdir(const char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) != 0;
}
#endif
