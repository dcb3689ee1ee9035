/* test_ops_col2im.c - image.col2im (src/ops/col2im.c): the inferred struct
 * info, refused attributes, and the interpreter's image against a plain C
 * scatter of every block element written here (as im2col's inverse is
 * usually written: each column entry added at its image position). */
#include "check.h"
#include "op_check.h"

#include <stdio.h>

static void test_col2im_infer(void) {
#define TAPS(s) ", k: R.Tensor(" s ", \"int8\")"
  OPC_CHECK_INFER("x: R.Tensor((1, 4, 9), \"float32\")" TAPS("(2, 2)"), "R.image.col2im(x, k, shape=[1, 4, 4])",
                  "R.Tensor((1, 1, 4, 4), dtype=\"float32\")");
  OPC_CHECK_INFER("x: R.Tensor((1, \"m\", \"l\"), \"float32\")" TAPS("(\"a\", \"b\")"), "R.image.col2im(x, k, shape=[m, l, l])",
                  "R.Tensor((1, m, l, l), dtype=\"float32\")");
  OPC_CHECK_REFUSED("x: R.Tensor((1, 4, 9), \"float32\")" TAPS("(2, 2)"), "R.image.col2im(x, k, shape=[4, 4])",
                    "image.col2im: shape: expected 3 dims (C and one per block dim), got 2");
  OPC_CHECK_REFUSED("x: R.Tensor((4, 9), \"float32\")" TAPS("(2, 2)"), "R.image.col2im(x, k, shape=[1, 4, 4])",
                    "image.col2im: data must be (N, C * block size, blocks), got (4, 9)");
}

/* 2-D: image (C, H, W) from blocks (kh, kw) */
static void col_case(int c, int h, int w, int kh, int kw, const int *s, const int *d, const int *pad, unsigned seed) {
  int nbh = (h + pad[0] + pad[2] - d[0] * (kh - 1) - 1) / s[0] + 1, nbw = (w + pad[1] + pad[3] - d[1] * (kw - 1) - 1) / s[1] + 1;
  int rows = c * kh * kw, len = nbh * nbw;
  OpcBuf x[2] = {opc_buf(3, (int64_t[]){2, rows, len}, NULL), opc_buf(2, (int64_t[]){kh, kw}, NULL)};
  opc_fill_buf(&x[0], seed, -1, 1, false);
  opc_fill_buf(&x[1], seed, 0, 1, true); /* not read */
  double want[2 * 64 * 64] = {0};
  for (int n = 0; n < 2; n++)
    for (int r = 0; r < rows; r++)
      for (int bh = 0; bh < nbh; bh++)
        for (int bw = 0; bw < nbw; bw++) {
          int ch = r / (kh * kw), ky = r / kw % kh, kx = r % kw;
          int y = bh * s[0] - pad[0] + ky * d[0], z = bw * s[1] - pad[1] + kx * d[1];
          if (y < 0 || y >= h || z < 0 || z >= w) continue;
          want[((n * c + ch) * h + y) * w + z] += x[0].v[(n * rows + r) * len + bh * nbw + bw];
        }
  OpcBuf out = opc_buf(4, (int64_t[]){2, c, h, w}, want);
  char params[96], call[200];
  snprintf(params, sizeof params, "x: R.Tensor((2, %d, %d), \"float32\"), k: R.Tensor((%d, %d), \"int8\")", rows, len, kh, kw);
  snprintf(call, sizeof call,
           "R.image.col2im(x, k, shape=[%d, %d, %d], strides=[%d, %d], dilations=[%d, %d], pads=[%d, %d, %d, %d])",
           c, h, w, s[0], s[1], d[0], d[1], pad[0], pad[1], pad[2], pad[3]);
  opc_check_run(params, call, x, 2, &out, 1, 1e-5);
  opc_free(x, 2);
}

static void test_col2im_run(void) {
  col_case(1, 5, 5, 1, 5, (int[]){1, 1}, (int[]){1, 1}, (int[]){0, 0, 0, 0}, 1);
  col_case(2, 6, 5, 2, 3, (int[]){2, 1}, (int[]){1, 2}, (int[]){1, 0, 0, 1}, 3);
  col_case(1, 5, 5, 3, 3, (int[]){2, 2}, (int[]){1, 1}, (int[]){0, 1, 1, 0}, 5);
}

int main(void) {
  RUN(test_col2im_infer);
  RUN(test_col2im_run);
  return CHECK_DONE();
}
