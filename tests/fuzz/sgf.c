/* sgf: SGF collections (lib/sgf's reader, lib/sgfrec's replay to records) */
#include "fuzz.h"
#include "sgf.h"
#include "sgfrec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gt_sgf_reader *it = gt_sgf_reader_new((const char *)data, size);
	gt_sgf_game g;
	gt_record r;
	gt_error e;
	gt_record_init(&r);
	for (int k = 0; k < 64 && gt_sgf_reader_next(it, &g); k++) {
		if (!g.err)
			gt_sgfrec_to_record(&g, NULL, &r, &e);
		gt_sgf_game_release(&g);
	}
	gt_record_release(&r);
	gt_sgf_reader_free(it);
	return 0;
}
