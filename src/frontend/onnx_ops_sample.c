/* onnx_ops_sample.c - the converter of ONNX's GridSample onto
 * image.grid_sample.  Opset 16 spells the modes "bilinear" and "bicubic",
 * opset 20 "linear" and "cubic" (and adds N-D inputs); both reach the op's
 * "linear" and "cubic". */
#include <string.h>

#include "onnx_convert.h"

bool mlc_onnx__conv_grid_sample(MlcOnnxNode *n) {
  MlcGExpr *args[2] = {mlc_onnx__input(n, 0), mlc_onnx__input(n, 1)};
  int64_t align;
  if (!args[0] || !args[1] || !mlc_onnx__attr_int(n, "align_corners", 0, &align)) return false;
  const char *mode = mlc_onnx__attr_str(n, "mode", n->opset < 20 ? "bilinear" : "linear");
  const char *padding = mlc_onnx__attr_str(n, "padding_mode", "zeros");
  if (!strcmp(mode, "bilinear")) mode = "linear";
  else if (!strcmp(mode, "bicubic")) mode = "cubic";
  MlcCtx *ctx = n->im->ctx;
  MlcAttr a[3] = {attr("method", mlc_onnx__av_str(ctx, mode)), attr("padding_mode", mlc_onnx__av_str(ctx, padding)),
                  attr("align_corners", av_bool(align != 0))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "image.grid_sample", args, 2, 3, a)) != NULL;
}
