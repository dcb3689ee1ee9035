/* gpu.c - the GPU services of each API (runtime.h, "GPU services"): the
 * entry the host code of a GPU module reaches through env->gpu. */
#include "rt.h"

const MlcrtGpu *mlcrt__gpu_opencl(void); /* gpu_opencl.c */
const MlcrtGpu *mlcrt__gpu_cuda(void);   /* gpu_cuda.c */

const MlcrtGpu *mlcrt_gpu(int32_t api) {
  switch (api) {
  case MLCRT_GPU_OPENCL: return mlcrt__gpu_opencl();
  case MLCRT_GPU_CUDA: return mlcrt__gpu_cuda();
  default: mlcrt_set_error("no GPU API numbered %d", (int)api); return NULL;
  }
}
