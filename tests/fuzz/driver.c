/* driver.c: a main for the fuzz harnesses without libFuzzer: each file
 * named on the command line is read whole and given to
 * LLVMFuzzerTestOneInput once; exit 0 when every file was read (a crash
 * or a sanitizer report ends it otherwise). */
#include "fuzz.h"

int main(int argc, char **argv)
{
	int n = 0;
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			fprintf(stderr, "%s: cannot open %s\n", argv[0], argv[i]);
			return 1;
		}
		size_t cap = 1 << 16, len = 0, k;
		uint8_t *buf = malloc(cap);
		while (buf && (k = fread(buf + len, 1, cap - len, f)) > 0)
			if ((len += k) == cap)
				buf = realloc(buf, cap *= 2);
		fclose(f);
		if (!buf)
			abort();
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
		n++;
	}
	printf("%d inputs replayed\n", n);
	return 0;
}
