/* consumer.c - a program that uses a compiled model the way a deployment
 * does: through the generated model.h, linked against model.so and the
 * runtime library alone, and checked against a plain C computation of the
 * same network (data.h).
 *   consumer PARAMS N...        create the model with the weights file
 *                               PARAMS ("-": embedded), run batches of N
 *   consumer --npz FILE N       check the first array of FILE (what
 *                               `mlcc run` saved) for a batch of N
 * Prints one line per check and exits non-zero on the first mismatch. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "model.h"

static int check(const char *what, int64_t n, const DLTensor *y) {
  if (y->ndim != 2 || y->shape[0] != n || y->shape[1] != E2E_OUT || y->dtype.code != kDLFloat || y->dtype.bits != 32) {
    printf("FAIL %s: output is not float32 (%lld, %d)\n", what, (long long)n, E2E_OUT);
    return 1;
  }
  float *x = malloc((size_t)(n * E2E_IN + 1) * sizeof *x);
  double *want = malloc((size_t)(n * E2E_OUT + 1) * sizeof *want);
  if (!x || !want) return 1;
  for (int64_t i = 0; i < n * E2E_IN; i++) x[i] = e2e_value(E2E_X, i);
  e2e_reference(n, x, want);
  const float *got = (const float *)y->data;
  int bad = 0;
  for (int64_t i = 0; i < n * E2E_OUT && !bad; i++)
    if (fabs(got[i] - want[i]) > 1e-4 * (1 + fabs(want[i]))) {
      printf("FAIL %s: element %lld is %.7g, want %.7g\n", what, (long long)i, got[i], want[i]);
      bad = 1;
    }
  if (!bad) printf("ok %s\n", what);
  free(x);
  free(want);
  return bad;
}

static int run_batch(MlcrtModel *m, const char *label, int64_t n) {
  int64_t shape[2] = {n, E2E_IN};
  MlcrtTensor *x = NULL;
  if (mlcrt_tensor_create(2, shape, mlcrt_dtype(kDLFloat, 32), &x) != 0) return 1;
  for (int64_t i = 0; i < n * E2E_IN; i++) ((float *)x->dl.data)[i] = e2e_value(E2E_X, i);
  DLTensor *in[MODEL_NUM_INPUTS] = {&x->dl}, *out[MODEL_NUM_OUTPUTS];
  char what[128];
  snprintf(what, sizeof what, "%s, batch %lld", label, (long long)n);
  int rc = model_run(m, in, out);
  if (rc != 0) printf("FAIL %s: %s\n", what, mlcrt_last_error());
  else rc = check(what, n, out[0]);
  mlcrt_tensor_free(x);
  return rc;
}

static int check_npz(const char *path, int64_t n) {
  MlcrtNpz *z = NULL;
  if (mlcrt_npz_load(path, &z) != 0 || z->n < 1) {
    printf("FAIL %s: %s\n", path, mlcrt_last_error());
    mlcrt_npz_free(z);
    return 1;
  }
  char what[128];
  snprintf(what, sizeof what, "mlcc run output '%s'", z->names[0]);
  int rc = check(what, n, &z->tensors[0]->dl);
  mlcrt_npz_free(z);
  return rc;
}

int main(int argc, char **argv) {
  if (argc >= 4 && !strcmp(argv[1], "--npz")) return check_npz(argv[2], atoll(argv[3]));
  if (argc < 3) {
    fprintf(stderr, "usage: consumer PARAMS|- N... | consumer --npz FILE N\n");
    return 2;
  }
  if (MODEL_NUM_INPUTS != 1 || MODEL_NUM_OUTPUTS != 1 || strcmp(model_input_names[0], "x") != 0) {
    printf("FAIL model.h: expected one input 'x' and one output\n");
    return 1;
  }
  const char *params = strcmp(argv[1], "-") ? argv[1] : NULL;
  MlcrtModel *m = model_create(params);
  if (!m) {
    printf("FAIL model_create(%s): %s\n", params ? params : "embedded", mlcrt_last_error());
    return 1;
  }
  const char *label = params ? "consumer with params.bin" : "consumer with embedded weights";
  int rc = 0;
  for (int i = 2; i < argc && rc == 0; i++) rc = run_batch(m, label, atoll(argv[i]));
  model_free(m);
  return rc;
}
