/* check.c - data and plain C reference of the extern MLP (mlp_env_relu.py).
 *   check data DIR    writes DIR/weights.npz (w0 b0 w1 b1) and DIR/x.npy
 *   check out Y.npy   compares Y with relu(x w0^T + b0) w1^T + b1 computed
 *                     here, and prints "ok" or the first differing element */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mlcc/runtime.h"

enum { IN = 784, HID = 128, OUT = 10 };

/* a value in [-0.5, 0.5) from the element's index and the tensor's number */
static float value(int which, int64_t i) {
  uint32_t h = (uint32_t)(i * 2654435761u) ^ (uint32_t)(which * 40503u + 17u);
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (float)(h % 1000u) / 1000.0f - 0.5f;
}

static MlcrtTensor *make(int which, int32_t ndim, int64_t d0, int64_t d1) {
  int64_t shape[2] = {d0, d1};
  MlcrtTensor *t = NULL;
  if (mlcrt_tensor_create(ndim, shape, mlcrt_dtype(kDLFloat, 32), &t) != 0) return NULL;
  for (int64_t i = 0; i < mlcrt_tensor_numel(&t->dl); i++) ((float *)t->dl.data)[i] = value(which, i);
  return t;
}

static int write_data(const char *dir) {
  MlcrtTensor *t[5] = {make(1, 2, HID, IN), make(2, 1, HID, 0), make(3, 2, OUT, HID), make(4, 1, OUT, 0),
                       make(0, 2, 1, IN)};
  const char *names[4] = {"w0", "b0", "w1", "b1"};
  const DLTensor *dl[4];
  int rc = 0;
  for (int i = 0; i < 5; i++) rc |= !t[i];
  for (int i = 0; i < 4 && !rc; i++) dl[i] = &t[i]->dl;
  char path[4096];
  snprintf(path, sizeof path, "%s/weights.npz", dir);
  if (!rc && mlcrt_npz_save(path, 4, names, dl) != 0) rc = 1;
  snprintf(path, sizeof path, "%s/x.npy", dir);
  if (!rc && mlcrt_npy_save(path, &t[4]->dl) != 0) rc = 1;
  if (rc) fprintf(stderr, "check: %s\n", mlcrt_last_error());
  for (int i = 0; i < 5; i++) mlcrt_tensor_free(t[i]);
  return rc;
}

static int compare(const char *path) {
  MlcrtTensor *y = NULL;
  if (mlcrt_npy_load(path, &y) != 0) {
    printf("FAIL: %s\n", mlcrt_last_error());
    return 1;
  }
  if (y->dl.ndim != 2 || y->dl.shape[0] != 1 || y->dl.shape[1] != OUT || y->dl.dtype.code != kDLFloat) {
    printf("FAIL: the output is not a float32 tensor of shape (1, %d)\n", OUT);
    mlcrt_tensor_free(y);
    return 1;
  }
  double hid[HID];
  for (int j = 0; j < HID; j++) {
    double s = value(2, j);
    for (int k = 0; k < IN; k++) s += (double)value(0, k) * value(1, (int64_t)j * IN + k);
    hid[j] = s > 0 ? s : 0;
  }
  int rc = 0;
  for (int o = 0; o < OUT && !rc; o++) {
    double s = value(4, o);
    for (int j = 0; j < HID; j++) s += hid[j] * value(3, (int64_t)o * HID + j);
    float got = ((const float *)y->dl.data)[o];
    if (!(fabs(got - s) <= 1e-4 + 1e-4 * fabs(s))) {
      printf("FAIL: out[0, %d] = %.7g, the plain C reference %.7g\n", o, got, s);
      rc = 1;
    }
  }
  if (!rc) printf("ok\n");
  mlcrt_tensor_free(y);
  return rc;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "data")) return write_data(argv[2]);
  if (argc == 3 && !strcmp(argv[1], "out")) return compare(argv[2]);
  fprintf(stderr, "usage: check data DIR | check out Y.npy\n");
  return 2;
}
