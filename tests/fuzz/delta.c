/* delta: learning-unit deltas (lib/delta: header, then the whole delta) */
#include "delta.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gt_delta_hdr h;
	gt_error e;
	uint64_t total = 0;
	if (gt_delta_read_header(data, size, &h, &total, &e) != 0 || h.nparams > (1u << 22))
		return 0;
	float *out = malloc((size_t)h.nparams * sizeof *out);
	if (!out)
		abort();
	gt_delta_unpack(data, size, &h, out, (size_t)h.nparams, &e);
	free(out);
	return 0;
}
