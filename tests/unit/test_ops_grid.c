/* test_ops_grid.c - image.affine_grid (src/ops/grid.c): the inferred struct
 * info, refused inputs, and the interpreter's grid against a plain C one
 * written here from ONNX's definition (normalized coordinates (x, y[, z],
 * 1), x along the last spatial dim, times theta). */
#include "check.h"
#include "op_check.h"

#include <stdio.h>

static void test_grid_infer(void) {
  OPC_CHECK_INFER("t: R.Tensor((2, 2, 3), \"float32\")", "R.image.affine_grid(t, shape=[5, 6])",
                  "R.Tensor((2, 5, 6, 2), dtype=\"float32\")");
  OPC_CHECK_INFER("t: R.Tensor((\"n\", 3, 4), \"float32\")", "R.image.affine_grid(t, shape=[n, 2, 3], align_corners=True)",
                  "R.Tensor((n, n, 2, 3, 3), dtype=\"float32\")");
  OPC_CHECK_REFUSED("t: R.Tensor((2, 3, 4), \"float32\")", "R.image.affine_grid(t, shape=[5, 6])",
                    "image.affine_grid: theta must be (N, 2, 3) for 2 spatial dims, got (2, 3, 4)");
  OPC_CHECK_REFUSED("t: R.Tensor((2, 2, 3), \"float32\")", "R.image.affine_grid(t, shape=[5])",
                    "image.affine_grid: shape: expected 2 or 3 spatial dims, got 1");
}

static double ref_coord(int p, int s, bool align) {
  if (align) return s > 1 ? -1 + 2.0 * p / (s - 1) : -1;
  return -1 + (2.0 * p + 1) / s;
}

/* nd spatial dims of sizes sp, N = 2 transforms */
static void grid_case(int nd, const int *sp, bool align, unsigned seed) {
  enum { N = 2 };
  OpcBuf t = opc_buf(3, (int64_t[]){N, nd, nd + 1}, NULL);
  opc_fill_buf(&t, seed, -2, 2, false);
  int pts = 1;
  for (int i = 0; i < nd; i++) pts *= sp[i];
  double want[N * 64 * 3];
  for (int b = 0; b < N; b++)
    for (int q = 0; q < pts; q++) {
      int pos[3], r = q;
      for (int i = nd - 1; i >= 0; i--) pos[i] = r % sp[i], r /= sp[i];
      double c[4];
      for (int j = 0; j < nd; j++) c[j] = ref_coord(pos[nd - 1 - j], sp[nd - 1 - j], align);
      c[nd] = 1;
      for (int i = 0; i < nd; i++) {
        double s = 0;
        for (int j = 0; j <= nd; j++) s += t.v[(b * nd + i) * (nd + 1) + j] * c[j];
        want[(b * pts + q) * nd + i] = s;
      }
    }
  int64_t oshape[5] = {N};
  for (int i = 0; i < nd; i++) oshape[1 + i] = sp[i];
  oshape[1 + nd] = nd;
  OpcBuf y = opc_buf(nd + 2, oshape, want);
  char params[64], call[96];
  snprintf(params, sizeof params, "t: R.Tensor((%d, %d, %d), \"float32\")", N, nd, nd + 1);
  if (nd == 2)
    snprintf(call, sizeof call, "R.image.affine_grid(t, shape=[%d, %d], align_corners=%s)", sp[0], sp[1], align ? "True" : "False");
  else
    snprintf(call, sizeof call, "R.image.affine_grid(t, shape=[%d, %d, %d], align_corners=%s)", sp[0], sp[1], sp[2],
             align ? "True" : "False");
  opc_check_run(params, call, &t, 1, &y, 1, 1e-5);
  opc_free(&t, 1);
}

static void test_grid_run(void) {
  grid_case(2, (int[]){3, 4}, false, 1);
  grid_case(2, (int[]){5, 1}, true, 3);   /* a dim of one point: -1 when aligned */
  grid_case(3, (int[]){2, 3, 4}, false, 5);
  grid_case(3, (int[]){3, 2, 2}, true, 7);
}

int main(void) {
  RUN(test_grid_infer);
  RUN(test_grid_run);
  return CHECK_DONE();
}
