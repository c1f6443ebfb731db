/* gt-augment: apply the symmetries of the board to whole game records. */
#include "gt.h"
#include "record.h"
#include "rng.h"
#include "sym.h"

#include "cli.h"

#include <getopt.h>
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

enum { O_SYM = 256, O_RANDOM, O_ALL, O_SEED };

/* rec under symmetries k0..k1-1 to stdout, each one record; 0, or 1 if
 * one could not be written */
static int write_syms(gt_record *rec, int k0, int k1)
{
	for (int k = k0, prev = 0; k < k1; k++) {
		/* step from the previous symmetry to k: apply inverse(prev), then k */
		gt_record_sym(rec, gt_record_sym_compose(gt_sym_inverse(prev), k));
		prev = k;
		int w = gt_record_write(rec, stdout);
		if (w == GT_EIO)
			cli_die_errno("write error on stdout");
		if (w)
			return 1;
	}
	return 0;
}

static const struct option lo[] = {
	{"symmetry", required_argument, NULL, O_SYM},
	{"random", no_argument, NULL, O_RANDOM},
	{"all", no_argument, NULL, O_ALL},
	{"seed", required_argument, NULL, O_SEED},
	CLI_MAXLINE_OPT,
	CLI_OPTS_END,
};

int main(int argc, char **argv)
{
	int mode = O_RANDOM, fixed = 0, c, bad = 0;
	uint64_t rng = 0;
	size_t max_line = (size_t)64 << 20;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_SYM:
			mode = O_SYM;
			fixed = (int)cli_int("--symmetry", optarg, 0, 7);
			break;
		case O_RANDOM: mode = O_RANDOM; break;
		case O_ALL: mode = O_ALL; break;
		case O_SEED: rng = cli_u64("--seed", optarg, 0, UINT64_MAX); break;
		case CLI_O_MAXLINE: max_line = cli_max_line(optarg); break;
		default: cli_opt_other(c, usage);
		}
	}
	gt_record rec;
	gt_record_init(&rec);
	cli_files in;
	cli_files_init(&in, argc - optind, argv + optind);
	for (FILE *f; (f = cli_files_next(&in));) {
		cli_records it;
		gt_error e;
		cli_records_init(&it, f, in.name, max_line, 1);
		while (cli_records_next(&it)) {
			if (gt_record_parse(&rec, it.line, it.len, &e)) {
				cli_records_warn(&it, e.text);
				continue;
			}
			int k0 = mode == O_SYM ? fixed : mode == O_RANDOM ? (int)(gt_splitmix64(&rng) >> 61) : 0;
			if (write_syms(&rec, k0, mode == O_ALL ? GT_NSYM : k0 + 1))
				cli_records_warn(&it, "cannot write the record");
		}
		bad |= it.bad != 0;
		cli_records_release(&it);
	}
	gt_record_release(&rec);
	return cli_fshut(stdout, "stdout") || in.failed || bad;
}
