/*
 * gpu.h: whether the CUDA backend of lib/nn (lib/nn/cuda/nn_cuda.cu) can
 * run here, for the "auto" backend of gt_nn_new and for commands that say
 * what they chose. It knows nothing of the network (nn.h uses it, not the
 * other way round). Backends by name in gt_nn_new:
 *   "cpu"   im2col + OpenBLAS sgemm (lib/nn/nn_cpu.c), always there;
 *   "cuda"  cuBLAS BF16 tensor-core GEMMs with FP32 accumulation and FP32
 *           master weights; fails with GT_EUNSUPPORTED and the reason
 *           ("no CUDA device: <cudaGetErrorString>", "backend cuda: built
 *           without CUDA") when it cannot run;
 *   "auto"  "cuda" when gt_gpu_probe() says yes, else "cpu";
 *           gt_nn_backend_name() then tells which.
 * A command with --backend and a verbose flag says what "auto" chose:
 *   gt_nn *nn = gt_nn_new(&arch, backend, &e);   (NULL: print e.text)
 *   if (verbose && !strcmp(backend, "auto")) {
 *       gt_error why;
 *       gt_gpu_probe(&why);
 *       fprintf(stderr, "gt-x: backend %s (%s)\n", gt_nn_backend_name(nn), why.text);
 *   }
 * On the cuda backend gt_nn_sync_params() must follow every write of
 * gt_nn_params() (the device keeps its own copy); gt_nn_backward() adds
 * the device's gradient to the host gt_nn_grads() array; gt_nn_error()
 * says what failed on the device.
 */
#ifndef GT_GPU_H
#define GT_GPU_H
#include "gt.h"

/* gt_gpu_probe: 1 when libgt was built with CUDA and a device answers,
 * with e->text describing it ("NVIDIA H200, sm_90, 143771 MiB"); 0 when
 * not, with e->text saying why ("built without CUDA", "no CUDA device:
 * ..."). e may be NULL. Never prints; cheap enough to call once per run. */
int gt_gpu_probe(gt_error *e);

#endif
