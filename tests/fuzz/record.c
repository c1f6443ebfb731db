/* record: one game record line (gt-record(5)) through gt-validate's checks */
#include "fuzz.h"
#include "record.h"
#include "validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), detail[256];
	const char *reason;
	gt_record r;
	gt_validate_opts o;
	gt_seen *seen = gt_seen_new();
	gt_seen_keys k;
	gt_validate_opts_init(&o);
	gt_record_init(&r);
	if (gt_validate_line(&r, s, size, &o, seen, &k, &reason, detail, sizeof detail) == 0)
		gt_seen_commit(seen, &k, -1);
	gt_record_release(&r);
	gt_seen_free(seen);
	free(s);
	return 0;
}
