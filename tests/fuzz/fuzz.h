/*
 * fuzz.h: what the parser fuzz harnesses (tests/fuzz/NAME.c) share. Each
 * harness defines LLVMFuzzerTestOneInput(data, size), libFuzzer's entry
 * point: built with clang -fsanitize=fuzzer it is a fuzzer (`make fuzz`);
 * built with tests/fuzz/driver.c it replays the files named on its
 * command line (make check: tests/cmd/fuzz.t over tests/fuzz/corpus/).
 * A harness must never crash, leak or read out of bounds on any input.
 */
#ifndef GT_FUZZ_H
#define GT_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* fuzz_file: data[0..size) written to a file of this process (in $TMPDIR
 * or /tmp, the same path on every call: it is rewritten), for the readers
 * that take a path; its path (static storage), or NULL when it cannot be
 * written. Removed at exit. */
static const char *fuzz_path;
static void fuzz_unlink(void)
{
	if (fuzz_path)
		unlink(fuzz_path);
}
static __attribute__((unused)) const char *fuzz_file(const uint8_t *data, size_t size,
                                                     const char *suffix)
{
	static char path[512];
	if (!fuzz_path) {
		const char *t = getenv("TMPDIR");
		snprintf(path, sizeof path, "%s/gt-fuzz-%ld%s", t ? t : "/tmp", (long)getpid(), suffix);
		fuzz_path = path;
		atexit(fuzz_unlink);
	}
	FILE *f = fopen(path, "wb");
	if (!f)
		return NULL;
	int bad = fwrite(data, 1, size, f) != size;
	bad |= fclose(f) != 0;
	return bad ? NULL : path;
}

/* fuzz_str: data as a new NUL-terminated string (free it) */
static __attribute__((unused)) char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

#endif
