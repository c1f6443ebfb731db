/* gtp: GTP command lines (lib/gtp, the random default genmove), one a line;
 * loadsgf and printsgf are left out (they open files named by the input):
 * a line with "sgf" once the control characters GTP drops are gone */
#include "fuzz.h"
#include "gtp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), *save = NULL;
	gt_gtp *g = gt_gtp_new(9, gt_rules_find("chinese"), 7.5, NULL, NULL);
	int quit = 0, k = 0;
	for (char *l = strtok_r(s, "\n", &save); l && !quit && k < 64; l = strtok_r(NULL, "\n", &save), k++)
	{
		char *c = strdup(l), *w = c;
		for (const char *q = l; *q; q++)
			if ((unsigned char)*q >= 32 && *q != 127)
				*w++ = *q;
		*w = 0;
		if (!strstr(c, "sgf"))
			gt_gtp_exec(g, l, &quit);
		free(c);
	}
	gt_gtp_free(g);
	free(s);
	return 0;
}
