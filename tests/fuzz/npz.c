/* npz: training shards (lib/npz's reader: zip directory, NPY headers,
 * arrays) */
#include "fuzz.h"
#include "npz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = fuzz_file(data, size, ".npz");
	gt_error e;
	gt_npz *z = p ? gt_npz_open(p, &e) : NULL;
	if (!z)
		return 0;
	for (int i = 0; i < gt_npz_count(z); i++) {
		gt_npz_array a;
		if (gt_npz_info(z, i, &a) != 0 ||
		    (uint64_t)a.count * gt_dtype_size(a.dtype) > ((uint64_t)64 << 20))
			continue;
		char name[sizeof a.name];
		memcpy(name, a.name, sizeof name);
		if (gt_npz_load(z, name, &a, &e) == 0)
			free(a.data);
	}
	gt_npz_close(z);
	return 0;
}
