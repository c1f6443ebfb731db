/*
 * validate.c: throughput of gt-validate on 9x9 self-play-like records
 * (tests/unit/record_gen.h: about 80 moves, a 82-entry policy, board,
 * value and score at every position; 32 kB a record), one core.
 *
 * Prints records per second of CPU time for: a bare json_loadb of each line
 * (the reference: jansson's parsing alone, in the same run), the library
 * path (read, parse, validate with replay, hash), and the gt-validate
 * command from $GT_BIN (wall and CPU). The target is >= 1000/s.
 */
#include "bench.h"
#include "board.h"
#include "gt.h"
#include "record.h"
#include "validate.h"
#include "../tests/unit/record_gen.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NREC 2000

static double child_cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

int main(void)
{
	char path[] = "/tmp/gt-bench-validate.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w+b");
	gt_record r;
	gt_record_init(&r);
	for (int i = 0; i < NREC; i++) {
		gen_record(&r, 9, 42, i);
		gt_record_write(&r, f);
	}
	long bytes = ftell(f);

	/* reference: JSON parsing alone */
	rewind(f);
	gt_record_reader *rd = gt_record_reader_new(f, path, 0);
	const char *line;
	size_t len;
	gt_error e;
	int n = 0;
	double t0 = cpu_process();
	while (gt_record_read_line(rd, &line, &len, &e) > 0) {
		json_error_t je;
		json_t *o = json_loadb(line, len, 0, &je);
		n += o != NULL;
		json_decref(o);
	}
	double t_json = cpu_process() - t0;
	gt_record_reader_free(rd);

	/* the library path of gt-validate */
	rewind(f);
	rd = gt_record_reader_new(f, path, 0);
	gt_validate_opts o;
	gt_validate_opts_init(&o);
	int pass = 0;
	t0 = cpu_process();
	while (gt_record_read_line(rd, &line, &len, &e) > 0) {
		const char *why;
		char detail[256];
		uint8_t id[16], game[16];
		int has_id;
		if (!gt_record_parse_ex(&r, line, len, &e, &why) &&
		    !gt_validate_record(&r, &o, &why, detail, sizeof detail)) {
			gt_record_hashes(&r, id, &has_id, game);
			pass++;
		}
	}
	double t_lib = cpu_process() - t0;
	gt_record_reader_free(rd);
	gt_record_release(&r);
	fclose(f);

	printf("records: %d 9x9 games, %.1f MB, %d parsed by jansson, %d passed\n", NREC, bytes / 1e6, n, pass);
	printf("json_loadb alone (reference)  %8.0f records/s (CPU)\n", NREC / t_json);
	printf("parse + validate (library)    %8.0f records/s (CPU), %.2fx the reference time\n",
	       NREC / t_lib, t_lib / t_json);
	const char *bin = getenv("GT_BIN");
	if (bin) {
		char cmd[4096];
		snprintf(cmd, sizeof cmd, "'%s/gt-validate' '%s' > /dev/null", bin, path);
		double c0 = child_cpu(), w0 = gt_now();
		int st = system(cmd);
		double w = gt_now() - w0, c = child_cpu() - c0;
		printf("gt-validate command           %8.0f records/s (CPU), %.0f records/s wall, exit %d\n",
		       NREC / c, NREC / w, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	unlink(path);
	return pass == NREC ? 0 : 1;
}
