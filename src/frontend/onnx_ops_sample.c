/* onnx_ops_sample.c - the converters of ONNX's GridSample onto
 * image.grid_sample and RoiAlign onto vision.roi_align.  Opset 16 spells the modes "bilinear" and "bicubic",
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

/* RoiAlign: opset 10 has no coordinate_transformation_mode (the older,
 * unshifted rule); opset 16 adds it, half_pixel by default */
bool mlc_onnx__conv_roi_align(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *args[3] = {mlc_onnx__input(n, 0), mlc_onnx__input(n, 1), mlc_onnx__input(n, 2)};
  int64_t oh, ow, ratio;
  double scale;
  if (!args[0] || !args[1] || !args[2] || !mlc_onnx__attr_int(n, "output_height", 1, &oh) ||
      !mlc_onnx__attr_int(n, "output_width", 1, &ow) || !mlc_onnx__attr_int(n, "sampling_ratio", 0, &ratio) ||
      !mlc_onnx__attr_float(n, "spatial_scale", 1.0, &scale))
    return false;
  const char *mode = mlc_onnx__attr_str(n, "mode", "avg");
  const char *coord = mlc_onnx__attr_str(n, "coordinate_transformation_mode", n->opset < 16 ? "output_half_pixel" : "half_pixel");
  MlcAttr a[6] = {attr("output_height", mlc_onnx__av_int(oh)), attr("output_width", mlc_onnx__av_int(ow)),
                  attr("sampling_ratio", mlc_onnx__av_int(ratio)), attr("spatial_scale", mlc_onnx__av_float(scale)),
                  attr("mode", mlc_onnx__av_str(ctx, mode)), attr("coordinate_transformation_mode", mlc_onnx__av_str(ctx, coord))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "vision.roi_align", args, 3, 6, a)) != NULL;
}
