/* katacfg: KataGo configuration files (lib/katacfg: the file, its
 * getters and the unused keys) and the same bytes as an -override-config
 * list */
#include "fuzz.h"
#include "katacfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size, ".cfg");
	gt_katacfg *c;
	gt_error e;
	if (!path || gt_katacfg_load(&c, path, &e) != 0)
		gt_katacfg_load(&c, NULL, &e);
	char *s = malloc(size + 1);
	if (s) {
		memcpy(s, data, size);
		s[size] = 0;
		gt_katacfg_override(c, s, &e);
		free(s);
	}
	static const char *const who[] = { "BLACK", "WHITE", "SIDETOMOVE" };
	long long v;
	double d;
	int b;
	char w[300];
	gt_katacfg_int(c, "maxVisits", 1, 1000, &v, &e);
	gt_katacfg_double(c, "maxTime", 0, 1e20, &d, &e);
	gt_katacfg_bool(c, "ponderingEnabled", &b, &e);
	gt_katacfg_enum(c, "reportAnalysisWinratesAs", who, 3, &b, &e);
	gt_katacfg_where(c, "rules", w, sizeof w);
	gt_katacfg_use_prefix(c, "log");
	free(gt_katacfg_unused(c));
	gt_katacfg_free(c);
	return 0;
}
