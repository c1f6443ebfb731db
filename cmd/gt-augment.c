/* gt-augment: apply the symmetries of the board to whole game records. */
#include "gt.h"
#include "record.h"
#include "rng.h"
#include "sym.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "gt-augment";

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gt-augment [--random [--seed N] | --symmetry K | --all] [--max-line BYTES] [FILE ...]\n"
	        "Apply the board symmetries to NDJSON game records (gt-record(5); stdin when no FILE).\n"
	        "  --random       one random symmetry per game (the default), from --seed (default 0)\n"
	        "  --symmetry K   symmetry K (0..7, table in gt-augment(1)) for every game\n"
	        "  --all          all 8 symmetries: 8 records per game\n"
	        "  --max-line BYTES  longest line read (suffix K, M, G; default 64M)\n"
	        "  -h, --help     this text;  --version  the version\n");
}

/* a decimal number 0..hi, with a K/M/G suffix (powers of 1024) if suffix */
static int parse_num(const char *s, unsigned long long hi, int suffix, unsigned long long *out)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (suffix && *end) {
		int sh = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 :
		         *end == 'G' || *end == 'g' ? 30 : -1;
		if (sh < 0 || end[1] || v > (hi >> sh))
			return -1;
		v <<= sh;
		end++;
	}
	if (*end || v > hi)
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	enum { O_SYM = 256, O_RANDOM, O_ALL, O_SEED, O_MAXLINE, O_VERSION };
	static const struct option lo[] = {
		{"symmetry", required_argument, NULL, O_SYM},
		{"random", no_argument, NULL, O_RANDOM},
		{"all", no_argument, NULL, O_ALL},
		{"seed", required_argument, NULL, O_SEED},
		{"max-line", required_argument, NULL, O_MAXLINE},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, O_VERSION},
		{NULL, 0, NULL, 0},
	};
	int mode = O_RANDOM, fixed = 0, c, bad = 0;
	uint64_t seed = 0;
	size_t max_line = (size_t)64 << 20;
	unsigned long long v;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_SYM:
			if (parse_num(optarg, 7, 0, &v)) {
				fprintf(stderr, "%s: --symmetry: not a number in 0..7: %s\n", prog, optarg);
				return 2;
			}
			mode = O_SYM;
			fixed = (int)v;
			break;
		case O_RANDOM: mode = O_RANDOM; break;
		case O_ALL: mode = O_ALL; break;
		case O_SEED:
			if (parse_num(optarg, UINT64_MAX, 0, &v)) {
				fprintf(stderr, "%s: --seed: not a number in 0..%" PRIu64 ": %s\n", prog,
				        UINT64_MAX, optarg);
				return 2;
			}
			seed = v;
			break;
		case O_MAXLINE:
			if (parse_num(optarg, 1ULL << 40, 1, &v) || v == 0) {
				fprintf(stderr, "%s: --max-line: not a size in 1..1T: %s\n", prog, optarg);
				return 2;
			}
			max_line = (size_t)v;
			break;
		case 'h': usage(stdout); return 0;
		case O_VERSION: printf("gt-augment %s\n", GT_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	uint64_t rng = seed;
	gt_record rec;
	gt_record_init(&rec);
	int nfiles = argc - optind;
	for (int i = 0; i < (nfiles ? nfiles : 1); i++) {
		const char *name = nfiles ? argv[optind + i] : "-";
		int std = !strcmp(name, "-");
		FILE *f = std ? stdin : fopen(name, "rb");
		if (!f) {
			fprintf(stderr, "%s: %s: %s\n", prog, name, strerror(errno));
			bad = 1;
			continue;
		}
		gt_record_reader *rd = gt_record_reader_new(f, name, max_line);
		const char *line;
		size_t len;
		gt_error e;
		int rc;
		while ((rc = gt_record_read_line(rd, &line, &len, &e)) != 0) {
			if (rc < 0) {
				fprintf(stderr, "%s: %s:%ld: %s\n", prog, name, e.line, e.text);
				bad = 1;
				if (rc == GT_ETOOLONG)
					continue;
				break;
			}
			if (strspn(line, " \t\r") == len)
				continue;
			long lineno = e.line;
			if (gt_record_parse(&rec, line, len, &e)) {
				fprintf(stderr, "%s: %s:%ld: %s\n", prog, name, lineno, e.text);
				bad = 1;
				continue;
			}
			int k0 = mode == O_SYM ? fixed : mode == O_RANDOM ? (int)(gt_splitmix64(&rng) >> 61) : 0;
			int k1 = mode == O_ALL ? GT_NSYM : k0 + 1, prev = 0;
			for (int k = k0; k < k1; k++) {
				/* step from the previous symmetry to k: apply inverse(prev), then k */
				gt_record_sym(&rec, gt_record_sym_compose(gt_sym_inverse(prev), k));
				prev = k;
				int w = gt_record_write(&rec, stdout);
				if (w == GT_EIO) {
					fprintf(stderr, "%s: write error on stdout: %s\n", prog, strerror(errno));
					return 1;
				}
				if (w) {
					fprintf(stderr, "%s: %s:%ld: cannot write the record\n", prog, name, lineno);
					bad = 1;
					break;
				}
			}
		}
		gt_record_reader_free(rd);
		if (!std)
			fclose(f);
	}
	gt_record_release(&rec);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: write error on stdout: %s\n", prog, strerror(errno));
		return 1;
	}
	return bad;
}
