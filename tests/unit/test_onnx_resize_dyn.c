/* test_onnx_resize_dyn.c - ONNX Resize (opsets 10, 13, 19) whose scales are a graph input, so
 * that only the compiled model's executor sees them: the output's shape
 * follows the values of each run, its elements match linear resizing
 * computed here in plain C, and values Resize does not allow (a scale that
 * is 0, negative, NaN or too large, a batch or channel dim that would
 * change) come back through the runtime's error path with a message, after
 * which the model still runs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "onnx_build.h"

#define H 4
#define W 5

static float x_data[H * W];

static bool asymmetric; /* Resize-10's coordinates, else half_pixel */

/* ONNX's linear weights along one dim (edges repeated): out[o] from in[0..n) */
static double lin1(const double *in, int n, double scale, int o) {
  double c = asymmetric ? (double)o / scale : ((double)o + 0.5) / scale - 0.5, f = floor(c), r = c - f;
  int i0 = (int)f, i1 = i0 + 1;
  i0 = i0 < 0 ? 0 : i0 > n - 1 ? n - 1 : i0;
  i1 = i1 < 0 ? 0 : i1 > n - 1 ? n - 1 : i1;
  return (1 - r) * in[i0] + r * in[i1];
}

/* x resized by (sh, sw) to (oh, ow), W first, then H */
static void ref(double sh, double sw, int oh, int ow, double *out) {
  double row[W], tmp[H * 64], col[H];
  for (int i = 0; i < H; i++) {
    for (int j = 0; j < W; j++) row[j] = x_data[i * W + j];
    for (int j = 0; j < ow; j++) tmp[i * ow + j] = lin1(row, W, sw, j);
  }
  for (int j = 0; j < ow; j++) {
    for (int i = 0; i < H; i++) col[i] = tmp[i * ow + j];
    for (int i = 0; i < oh; i++) out[i * ow + j] = lin1(col, H, sh, i);
  }
}

static int run(MlcrtModel *m, const float s[4], DLTensor **y) {
  int64_t xd[4] = {1, 1, H, W}, sd[1] = {4};
  DLTensor x = {x_data, {kDLCPU, 0}, 4, {kDLFloat, 32, 1}, xd, NULL, 0};
  DLTensor st = {(void *)s, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, sd, NULL, 0};
  DLTensor *in[2] = {&x, &st};
  *y = NULL;
  return mlcrt_model_run(m, in, 2, y, 1);
}

static bool fails_with(MlcrtModel *m, const float s[4], const char *want) {
  DLTensor *y;
  if (run(m, s, &y) == 0) return false;
  if (!strstr(mlcrt_last_error(), want)) printf("    message: %s\n", mlcrt_last_error());
  return strstr(mlcrt_last_error(), want) != NULL;
}

static void check_resize_scales(int opset) {
  char *ins[3] = {"x", "", "s"}, *ins10[2] = {"x", "s"}, *gins[2] = {"x", "s"}, *outs[1] = {"y"};
  const int64_t dims[2][4] = {{1, 1, H, W}, {4}};
  const int rank[2] = {4, 1};
  Onnx__AttributeProto *attrs[1] = {str_attr("mode", "linear")};
  asymmetric = opset < 11;
  OneNode o = {.op = "Resize", .opset = opset, .ins = opset < 11 ? ins10 : ins, .n_in = opset < 11 ? 2 : 3, .outs = outs, .n_out = 1, .attrs = attrs,
               .n_attrs = 1, .n_gin = 2, .in_dims = dims, .in_rank = rank, .gins = gins};
  size_t len;
  uint8_t *buf = pack_one_node(&o, &len);
  free(attrs[0]);
  char dir[4096];
  MlcrtModel *m = bu_make_tmpdir(dir, sizeof dir, "mlcc-resize") ? onnx_build_load(buf, len, dir) : NULL;
  free(buf);
  CHECK(m != NULL);
  static const float cases[][4] = {{1, 1, 2, 1.5f}, {1, 1, 0.5f, 0.6f}, {1, 1, 1, 3}, {1, 1, 0.3f, 12.5f}};
  for (size_t c = 0; m && c < sizeof cases / sizeof *cases; c++) {
    int oh = (int)floor(H * (double)cases[c][2]), ow = (int)floor(W * (double)cases[c][3]);
    double want[64 * 64];
    ref(cases[c][2], cases[c][3], oh, ow, want);
    DLTensor *y;
    CHECK(run(m, cases[c], &y) == 0);
    CHECK(y && y->ndim == 4 && y->shape[0] == 1 && y->shape[1] == 1 && y->shape[2] == oh && y->shape[3] == ow);
    if (!y || y->ndim != 4 || y->shape[2] != oh || y->shape[3] != ow) continue;
    for (int i = 0; i < oh * ow; i++) CHECK(fabs(((float *)y->data)[i] - want[i]) < 1e-5);
  }
  if (m) {
    CHECK(fails_with(m, (float[]){1, 1, 0, 2}, "scale 0 of dim 2 is not a positive number"));
    CHECK(fails_with(m, (float[]){1, 1, 2, -1}, "scale -1 of dim 3"));
    CHECK(fails_with(m, (float[]){1, 1, NAN, 2}, "is not a positive number"));
    CHECK(fails_with(m, (float[]){1, 1, 0.1f, 2}, "dim 2 would be resized to 0"));
    CHECK(fails_with(m, (float[]){1, 1, 1e9f, 1}, "not a size from 1 to"));
    CHECK(fails_with(m, (float[]){1, 1, 1e5f, 1e5f}, "may hold"));
    CHECK(fails_with(m, (float[]){2, 1, 1, 1}, "differs from the size the graph expects"));
    DLTensor *y;
    CHECK(run(m, cases[0], &y) == 0);
    mlcrt_model_free(m);
  }
  bu_remove_dir(dir);
}

static void test_resize_scales(void) {
  check_resize_scales(10);
  check_resize_scales(13);
  check_resize_scales(19);
}

int main(void) {
  for (int i = 0; i < H * W; i++) x_data[i] = (float)((i * 7) % 11) - 4.5f;
  RUN(test_resize_scales);
  return check__failures != 0;
}
