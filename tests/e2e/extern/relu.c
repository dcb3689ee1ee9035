/* relu.c - the user's env.relu of the extern MLP: out = max(x, 0) over a
 * float32 tensor of any shape.  The model finds it by its C name, the
 * extern's name with '.' as '_'. */
#include "mlcc/runtime.h"

int32_t env_relu(DLTensor *const *args, int32_t n_args, const MlcrtEnv *env) {
  if (n_args != 2) {
    env->set_error("env.relu takes (x, out)");
    return -1;
  }
  int64_t n = 1;
  for (int32_t d = 0; d < args[0]->ndim; d++) n *= args[0]->shape[d];
  const float *x = args[0]->data;
  float *out = args[1]->data;
  for (int64_t i = 0; i < n; i++) out[i] = x[i] > 0 ? x[i] : 0;
  return 0;
}
