/* test_onnx_datadep.c - ONNX ops whose output size depends on the data,
 * through the compiled model's executor: a NonZero model run on inputs
 * with different numbers of non-zeros (none, some, all), each result's
 * shape and coordinates compared with a plain scan here; a Compress model
 * (condition fixed as an initializer, x a graph input) against the slices
 * picked here. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "onnx_build.h"

static MlcrtModel *build(const OneNode *o, char *dir, size_t cap) {
  size_t len;
  uint8_t *buf = pack_one_node(o, &len);
  MlcrtModel *m = bu_make_tmpdir(dir, cap, "mlcc-datadep") ? onnx_build_load(buf, len, dir) : NULL;
  free(buf);
  return m;
}

static const int64_t X_DIMS[1][4] = {{3, 4}};
static const int X_RANK[1] = {2};

/* NonZero on x (3, 4): coordinates [2, count], row-major order */
static void test_nonzero(void) {
  char *ins[1] = {"x"}, *outs[1] = {"y"}, dir[4096];
  MlcrtModel *m = build(&(OneNode){"NonZero", NULL, 13, ins, 1, outs, 1, NULL, 0, 1, X_DIMS, X_RANK, NULL, 0, NULL},
                        dir, sizeof dir);
  CHECK(m != NULL);
  if (!m) {
    bu_remove_dir(dir);
    return;
  }
  for (int trial = 0; trial < 4; trial++) {
    float x[12];
    for (int i = 0; i < 12; i++) x[i] = trial == 0 ? 0.0f : trial == 3 ? (float)i - 20.0f : (float)((i * (trial + 2)) % 5 == 0) * 1.5f;
    int64_t want[24];
    int k = 0;
    for (int i = 0; i < 12; i++) k += x[i] != 0;
    for (int i = 0, j = 0; i < 12; i++)
      if (x[i] != 0) want[j] = i / 4, want[k + j] = i % 4, j++;
    DLTensor xt = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, (int64_t *)X_DIMS[0], NULL, 0}, *in[1] = {&xt}, *y = NULL;
    CHECK(mlcrt_model_run(m, in, 1, &y, 1) == 0);
    CHECK(y && y->ndim == 2 && y->shape[0] == 2 && y->shape[1] == k);
    CHECK(y && y->dtype.code == kDLInt && y->dtype.bits == 64);
    if (y && y->ndim == 2 && y->shape[1] == k) CHECK(k == 0 || memcmp(y->data, want, sizeof *want * 2 * (size_t)k) == 0);
  }
  mlcrt_model_free(m);
  bu_remove_dir(dir);
}

/* Compress of x (3, 4) along axis 1 by a condition of length 3 (the last column left out) */
static void test_compress(void) {
  char *ins[2] = {"x", "c"}, *outs[1] = {"y"}, dir[4096];
  const uint8_t cond[3] = {1, 0, 1};
  Init c = {"c", 1, {3}, cond, sizeof cond, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL};
  Onnx__AttributeProto *attrs[1] = {int_attr("axis", 1)};
  MlcrtModel *m = build(&(OneNode){"Compress", NULL, 13, ins, 2, outs, 1, attrs, 1, 1, X_DIMS, X_RANK, &c, 1, NULL},
                        dir, sizeof dir);
  free(attrs[0]);
  CHECK(m != NULL);
  if (m) {
    float x[12], want[6];
    for (int i = 0; i < 12; i++) x[i] = (float)i * 0.5f - 2.0f;
    for (int r = 0; r < 3; r++) want[2 * r] = x[4 * r], want[2 * r + 1] = x[4 * r + 2];
    DLTensor xt = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, (int64_t *)X_DIMS[0], NULL, 0}, *in[1] = {&xt}, *y = NULL;
    CHECK(mlcrt_model_run(m, in, 1, &y, 1) == 0);
    CHECK(y && y->ndim == 2 && y->shape[0] == 3 && y->shape[1] == 2);
    CHECK(y && y->ndim == 2 && y->shape[1] == 2 && memcmp(y->data, want, sizeof want) == 0);
    mlcrt_model_free(m);
  }
  bu_remove_dir(dir);
}

int main(void) {
  RUN(test_nonzero);
  RUN(test_compress);
  return CHECK_DONE();
}
