/* test_onnx_crop.c - ONNX's CenterCropPad (src/frontend/onnx_ops_crop.c)
 * with a compile-time target shape, built and run: each output element is
 * what a plain C reference here reads, the input at the output's index
 * shifted by half the size difference (rounded down) per axis, or 0 past
 * the input; a run-time shape that is not integer is refused with a
 * located message (an integer one read at run time is checked by the
 * conformance tests, whose shape is an input). */
#include "check.h"
#include "onnx_build.h"

#include <math.h>
#include <stdio.h>

static char tmpdir[4096];

typedef struct CropCase { int64_t in[3]; int n_axes; int64_t axes[3], target[3]; } CropCase;

static const CropCase cases[] = {
    {{5, 8, 3}, 2, {0, 1}, {4, 11}},    /* crop (odd difference) and pad (odd) */
    {{6, 4, 3}, 3, {0, 1, 2}, {3, 7, 3}}, /* all axes: crop, pad, keep */
    {{4, 5, 2}, 1, {-1}, {5}},          /* a negative axis, padded */
};

static void crop_case(const CropCase *c, int idx) {
  int64_t out[3] = {c->in[0], c->in[1], c->in[2]}, off[3] = {0, 0, 0};
  for (int i = 0; i < c->n_axes; i++) {
    int a = (int)(c->axes[i] < 0 ? c->axes[i] + 3 : c->axes[i]);
    out[a] = c->target[i];
    off[a] = c->in[a] >= c->target[i] ? (c->in[a] - c->target[i]) / 2 : -((c->target[i] - c->in[a]) / 2);
  }
  float x[256], want[512];
  int64_t nin = c->in[0] * c->in[1] * c->in[2], nout = out[0] * out[1] * out[2];
  for (int64_t i = 0; i < nin; i++) x[i] = (float)(i % 17) - 8.5f;
  for (int64_t i = 0; i < out[0]; i++)
    for (int64_t j = 0; j < out[1]; j++)
      for (int64_t k = 0; k < out[2]; k++) {
        int64_t s[3] = {i + off[0], j + off[1], k + off[2]};
        bool in = s[0] >= 0 && s[0] < c->in[0] && s[1] >= 0 && s[1] < c->in[1] && s[2] >= 0 && s[2] < c->in[2];
        want[(i * out[1] + j) * out[2] + k] = in ? x[(s[0] * c->in[1] + s[1]) * c->in[2] + s[2]] : 0.0f;
      }
  char *ins[2] = {"x", "shape"}, *outs[1] = {"y"};
  Init shape = {"shape", 1, {c->n_axes}, c->target, (size_t)c->n_axes * sizeof(int64_t), ONNX__TENSOR_PROTO__DATA_TYPE__INT64};
  int64_t dims[1][4] = {{c->in[0], c->in[1], c->in[2]}};
  int rank[1] = {3};
  Onnx__AttributeProto *ax = int_attr("axes", 0);
  ax->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS, ax->has_i = 0, ax->n_ints = (size_t)c->n_axes, ax->ints = (int64_t *)c->axes;
  OneNode o = {"CenterCropPad", NULL, 18, ins, 2, outs, 1, &ax, 1, 1, (const int64_t (*)[4])dims, rank, &shape, 1, NULL};
  size_t len;
  uint8_t *buf = pack_one_node(&o, &len);
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/c%d", tmpdir, idx);
  MlcrtModel *rm = onnx_build_load(buf, len, dir);
  free(buf);
  free(ax);
  CHECK(rm != NULL);
  if (!rm) return;
  DLTensor xt = {.data = x, .device = {kDLCPU, 0}, .ndim = 3, .dtype = {kDLFloat, 32, 1}, .shape = dims[0]};
  DLTensor *in[1] = {&xt}, *res[1] = {NULL};
  int rc = mlcrt_model_run(rm, in, 1, res, 1);
  if (rc) printf("    run: %s\n", mlcrt_last_error());
  CHECK(rc == 0 && res[0]->ndim == 3 && res[0]->shape[0] == out[0] && res[0]->shape[1] == out[1] && res[0]->shape[2] == out[2]);
  if (rc == 0)
    for (int64_t i = 0; i < nout; i++) CHECK(((const float *)res[0]->data)[i] == want[i]);
  mlcrt_model_free(rm);
  bu_remove_dir(dir);
}

static void test_crop_run(void) {
  for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) crop_case(&cases[i], i);
}

static void test_crop_float_shape(void) {
  char *ins[2] = {"x", "shape"}, *outs[1] = {"y"};
  static const int64_t dims[2][4] = {{4, 4}, {2}};
  static const int rank[2] = {2, 1};
  OneNode o = {"CenterCropPad", NULL, 18, ins, 2, outs, 1, NULL, 0, 2, dims, rank, NULL, 0, NULL};
  size_t len;
  uint8_t *buf = pack_one_node(&o, &len);
  MlcCtx *ctx = mlc_ctx_new();
  CHECK(mlc_onnx_import(ctx, "model.onnx", buf, len, ".", NULL) == NULL);
  const char *want = "node 'node0' (CenterCropPad, opset 18): a shape computed at run time must be a 1-D int32 or int64 tensor";
  if (!strstr(mlc_error_msg(ctx), want)) printf("    got: %s\n", mlc_error_msg(ctx));
  CHECK(strstr(mlc_error_msg(ctx), want) != NULL);
  mlc_ctx_free(ctx);
  free(buf);
}

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-crop")) {
    printf("FAIL setup: cannot create a temporary directory\n");
    return 1;
  }
  RUN(test_crop_run);
  RUN(test_crop_float_shape);
  bu_remove_dir(tmpdir);
  return CHECK_DONE();
}
