/* make_data.c - writes the end-to-end test's weights (weights.npz, keyed by
 * the graph's parameter names) and an input batch (x.npy) into a directory,
 * through the runtime's own .npz/.npy writers, so the test needs no numpy.
 *   make_data DIR BATCH */
#include <stdio.h>
#include <stdlib.h>

#include "data.h"
#include "mlcc/runtime.h"

static MlcrtTensor *make(int which, int32_t ndim, int64_t d0, int64_t d1) {
  int64_t shape[2] = {d0, d1};
  MlcrtTensor *t = NULL;
  if (mlcrt_tensor_create(ndim, shape, mlcrt_dtype(kDLFloat, 32), &t) != 0) return NULL;
  int64_t n = mlcrt_tensor_numel(&t->dl);
  for (int64_t i = 0; i < n; i++) ((float *)t->dl.data)[i] = e2e_value(which, i);
  return t;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: make_data DIR BATCH\n");
    return 2;
  }
  char path[4096];
  MlcrtTensor *w[4] = {make(E2E_W0, 2, E2E_IN, E2E_HIDDEN), make(E2E_B0, 1, E2E_HIDDEN, 0),
                       make(E2E_W1, 2, E2E_OUT, E2E_HIDDEN), make(E2E_B1, 1, E2E_OUT, 0)};
  MlcrtTensor *x = make(E2E_X, 2, atoll(argv[2]), E2E_IN);
  const char *names[4] = {"w0", "b0", "w1", "b1"};
  const DLTensor *dl[4];
  int rc = 0;
  for (int i = 0; i < 4; i++) {
    if (!w[i]) rc = 1;
    else dl[i] = &w[i]->dl;
  }
  snprintf(path, sizeof path, "%s/weights.npz", argv[1]);
  if (rc == 0 && x && mlcrt_npz_save(path, 4, names, dl) != 0) rc = 1;
  snprintf(path, sizeof path, "%s/x.npy", argv[1]);
  if (rc == 0 && x && mlcrt_npy_save(path, &x->dl) != 0) rc = 1;
  if (rc != 0 || !x) fprintf(stderr, "make_data: %s\n", mlcrt_last_error());
  for (int i = 0; i < 4; i++) mlcrt_tensor_free(w[i]);
  mlcrt_tensor_free(x);
  return rc != 0 || !x;
}
