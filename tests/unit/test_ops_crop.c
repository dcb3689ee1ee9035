/* test_ops_crop.c - center_crop_pad (src/ops/crop.c): the inferred struct
 * info, refused attributes, and the interpreter's result against a plain C
 * crop and pad written here from ONNX's definition (crop start (in - out)
 * // 2, pad before (out - in) // 2, the rest at the end; anchored at the
 * start, everything at the end). */
#include "check.h"
#include "op_check.h"

#include <stdio.h>

static void test_crop_infer(void) {
  OPC_CHECK_INFER("x: R.Tensor((8, 5), \"float32\")", "R.center_crop_pad(x, shape=[3, 9])",
                  "R.Tensor((3, 9), dtype=\"float32\")");
  OPC_CHECK_INFER("x: R.Tensor((8, \"n\"), \"int32\")", "R.center_crop_pad(x, shape=[n, 2])",
                  "R.Tensor((n, 2), dtype=\"int32\")");
  OPC_CHECK_REFUSED("x: R.Tensor((8, 5), \"float32\")", "R.center_crop_pad(x, shape=[3])",
                    "center_crop_pad: shape: expected 2 dims (x's rank), got 1");
  OPC_CHECK_REFUSED("x: R.Tensor((8, 5), \"float32\")", "R.center_crop_pad(x, shape=[3, 3], anchor=\"end\")",
                    "center_crop_pad: anchor: expected \"center\" or \"start\", got \"end\"");
}

/* x (h, w) to (oh, ow), around the centre or from the start */
static void crop_case(int h, int w, int oh, int ow, bool start, unsigned seed) {
  OpcBuf x = opc_buf(2, (int64_t[]){h, w}, NULL);
  opc_fill_buf(&x, seed, -1, 1, false);
  double want[32 * 32];
  int in[2] = {h, w}, out[2] = {oh, ow}, off[2];
  for (int d = 0; d < 2; d++) off[d] = start ? 0 : in[d] >= out[d] ? (in[d] - out[d]) / 2 : -((out[d] - in[d]) / 2);
  for (int i = 0; i < oh; i++)
    for (int j = 0; j < ow; j++) {
      int si = i + off[0], sj = j + off[1];
      want[i * ow + j] = si >= 0 && si < h && sj >= 0 && sj < w ? x.v[si * w + sj] : 0;
    }
  OpcBuf y = opc_buf(2, (int64_t[]){oh, ow}, want);
  char params[64], call[96];
  snprintf(params, sizeof params, "x: R.Tensor((%d, %d), \"float32\")", h, w);
  snprintf(call, sizeof call, "R.center_crop_pad(x, shape=[%d, %d], anchor=\"%s\")", oh, ow, start ? "start" : "center");
  opc_check_run(params, call, &x, 1, &y, 1, 0);
  opc_free(&x, 1);
}

static void test_crop_run(void) {
  crop_case(8, 5, 3, 9, false, 1); /* crop by an odd difference, pad by an even one */
  crop_case(6, 7, 9, 4, false, 3); /* pad by an odd difference, crop by an odd one */
  crop_case(5, 5, 5, 5, false, 5); /* unchanged */
  crop_case(4, 6, 0, 2, false, 7); /* cropped to nothing */
  crop_case(6, 7, 9, 4, true, 9);  /* from the start: padded and cut at the end */
}

int main(void) {
  RUN(test_crop_infer);
  RUN(test_crop_run);
  return CHECK_DONE();
}
