/* gt-augment: apply the symmetries of the board to whole game records. */
#include "gt.h"
#include "record.h"
#include "rng.h"
#include "sym.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *prog = "gt-augment";

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
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_SYM:
			mode = O_SYM;
			fixed = (int)cli_int("--symmetry", optarg, 0, 7);
			break;
		case O_RANDOM: mode = O_RANDOM; break;
		case O_ALL: mode = O_ALL; break;
		case O_SEED:
			seed = cli_u64("--seed", optarg, 0, UINT64_MAX);
			break;
		case O_MAXLINE:
			max_line = (size_t)cli_size("--max-line", optarg, 1, 1ULL << 40);
			break;
		case 'h': usage(stdout); return 0;
		case O_VERSION: printf("gt-augment %s\n", GT_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	uint64_t rng = seed;
	gt_record rec;
	gt_record_init(&rec);
	cli_files in;
	cli_files_init(&in, argc - optind, argv + optind);
	for (FILE *f; (f = cli_files_next(&in));) {
		const char *name = in.name;
		gt_record_reader *rd = gt_record_reader_new(f, name, max_line);
		const char *line;
		size_t len;
		gt_error e;
		int rc;
		while ((rc = gt_record_read_line(rd, &line, &len, &e)) != 0) {
			if (rc < 0) {
				cli_warn("%s:%ld: %s", name, e.line, e.text);
				bad = 1;
				if (rc == GT_ETOOLONG)
					continue;
				break;
			}
			if (strspn(line, " \t\r") == len)
				continue;
			long lineno = e.line;
			if (gt_record_parse(&rec, line, len, &e)) {
				cli_warn("%s:%ld: %s", name, lineno, e.text);
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
				if (w == GT_EIO)
					cli_die_errno("write error on stdout");
				if (w) {
					cli_warn("%s:%ld: cannot write the record", name, lineno);
					bad = 1;
					break;
				}
			}
		}
		gt_record_reader_free(rd);
	}
	gt_record_release(&rec);
	return cli_fshut(stdout, "stdout") || in.failed || bad;
}
