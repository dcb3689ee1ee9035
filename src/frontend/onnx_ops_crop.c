/* onnx_ops_crop.c - the converter of ONNX's CenterCropPad: each named axis
 * cropped to the target size around its centre (strided_slice, the extra
 * element of an odd difference dropped at the end) or zero-padded to it
 * (nn.pad, the extra element added at the end), with the input's dims
 * static.  A target shape (input 1) read at run time binds the named
 * axes' dims from its values and is center_crop_pad (src/ops/crop.c). */
#include <string.h>

#include "onnx_convert.h"

/* a target shape read at run time: its values bound (checked non-negative)
 * as the named axes' dims, and center_crop_pad to the shape they make */
static bool crop_pad_at_run_time(MlcOnnxNode *n, MlcGExpr *x, int rank, const int64_t *axes, int na) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *t = n->in[1];
  MlcExpr *vals[MLC_ONNX_MAX_RANK], *dims[MLC_ONNX_MAX_RANK];
  int64_t len;
  int k;
  bool seen[MLC_ONNX_MAX_RANK] = {0};
  if (mlc_onnx__rank(t) != 1 || !mlc_onnx__const_dim(t, 0, &len) || len != na)
    return mlc_onnx__node_fail(n, "input 1 (shape) must hold one value per axis (%d)", na);
  const MlcSInfo *xs = mlc_onnx__tensor_sinfo(x);
  if (!xs || !xs->tensor.shape) return mlc_onnx__node_fail(n, "input of unknown shape");
  for (int i = 0; i < rank; i++) dims[i] = xs->tensor.shape[i];
  if (!mlc_onnx__runtime_shape(n, t, NULL, "values", vals, MLC_ONNX_MAX_RANK, &k)) return false;
  for (int i = 0; i < na; i++) {
    int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (a < 0 || a >= rank || seen[a]) return mlc_onnx__node_fail(n, "axes: %lld is out of range or repeated", (long long)axes[i]);
    seen[a] = true;
    dims[a] = vals[i];
  }
  MlcAttr sa = attr("shape", mlc_onnx__av_exprs(ctx, dims, rank));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "center_crop_pad", &x, 1, 1, &sa)) != NULL;
}

bool mlc_onnx__conv_center_crop_pad(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t target[MLC_ONNX_MAX_RANK], axes[MLC_ONNX_MAX_RANK], dims[MLC_ONNX_MAX_RANK];
  int rank, k, na;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__input(n, 1) || !mlc_onnx__attr_ints(n, "axes", axes, MLC_ONNX_MAX_RANK, &na))
    return false;
  if (na < 0) {
    na = rank;
    for (int i = 0; i < rank; i++) axes[i] = i;
  }
  if (!mlc_onnx__known_or_absent(n, 1)) return crop_pad_at_run_time(n, x, rank, axes, na);
  if (!mlc_onnx__known_ints(n, 1, target, MLC_ONNX_MAX_RANK, &k)) return false;
  if (k != na) return mlc_onnx__node_fail(n, "input 1 (shape) has %d values for %d axes", k, na);
  bool seen[MLC_ONNX_MAX_RANK] = {0};
  int64_t pads[2 * MLC_ONNX_MAX_RANK] = {0}, sl_axes[MLC_ONNX_MAX_RANK], begin[MLC_ONNX_MAX_RANK], end[MLC_ONNX_MAX_RANK];
  int n_sl = 0;
  bool any_pad = false;
  for (int i = 0; i < na; i++) {
    int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (a < 0 || a >= rank || seen[a]) return mlc_onnx__node_fail(n, "axes: %lld is out of range or repeated", (long long)axes[i]);
    seen[a] = true;
    if (!mlc_onnx__const_dim(x, (int)a, &dims[a])) return mlc_onnx__node_fail(n, "symbolic input dims are not supported");
    if (target[i] < 0) return mlc_onnx__node_fail(n, "input 1 (shape) must not be negative");
    if (target[i] < dims[a]) {
      int64_t start = (dims[a] - target[i]) / 2;
      sl_axes[n_sl] = a, begin[n_sl] = start, end[n_sl++] = start + target[i];
    } else if (target[i] > dims[a]) {
      pads[a] = (target[i] - dims[a]) / 2, pads[rank + a] = target[i] - dims[a] - pads[a];
      any_pad = true;
    }
  }
  MlcGExpr *y = x;
  if (n_sl) {
    int64_t ones[MLC_ONNX_MAX_RANK];
    for (int i = 0; i < n_sl; i++) ones[i] = 1;
    MlcAttr a[4] = {attr("axes", mlc_onnx__av_ints(ctx, sl_axes, n_sl)), attr("begin", mlc_onnx__av_ints(ctx, begin, n_sl)),
                    attr("end", mlc_onnx__av_ints(ctx, end, n_sl)), attr("strides", mlc_onnx__av_ints(ctx, ones, n_sl))};
    y = mlc_onnx__emit_attrs(n, "strided_slice", &y, 1, 4, a);
  }
  if (y && any_pad) {
    MlcAttr a = attr("pad_width", mlc_onnx__av_ints(ctx, pads, 2 * rank));
    y = mlc_onnx__emit_attrs(n, "nn.pad", &y, 1, 1, &a);
  }
  return (n->out[0] = y) != NULL;
}
