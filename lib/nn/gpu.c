/* gpu.c: CUDA availability for backend selection (see gpu.h). The CUDA
 * side is lib/nn/cuda/nn_cuda.cu, built in when GT_CUDA is defined. */
#include "gpu.h"

#include <stddef.h>

#ifdef GT_CUDA
/* lib/nn/cuda/nn_cuda.cu: 1 and a description, or 0 and the reason. */
int gt_cuda_probe(char *text, size_t len);
#endif

int gt_gpu_probe(gt_error *e)
{
#ifdef GT_CUDA
	char text[200];
	int r = gt_cuda_probe(text, sizeof text);
	gt_error_set(e, r ? GT_OK : GT_EUNSUPPORTED, -1, -1, "%s", text);
	return r;
#else
	gt_error_set(e, GT_EUNSUPPORTED, -1, -1, "built without CUDA");
	return 0;
#endif
}
