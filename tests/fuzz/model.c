/* model: network files (gt-model(5): gzip, header, parameters) */
#include "fuzz.h"
#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = fuzz_file(data, size, ".bin.gz");
	gt_model *m = NULL;
	gt_error e;
	if (p && gt_model_read(p, &m, &e) == 0)
		gt_model_free(m);
	return 0;
}
