/* onnx_ops_grid.c - the converter of ONNX's AffineGrid onto
 * image.affine_grid.
 *
 * size (input 1) is (N, C, H, W) or (N, C, D, H, W): known at compile time
 * it gives the grid's static dims; read at run time its values are bound
 * when the model runs (each checked non-negative, N checked equal to
 * theta's). */
#include "onnx_convert.h"

bool mlc_onnx__conv_affine_grid(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *theta = mlc_onnx__input(n, 0), *size = mlc_onnx__input(n, 1);
  int64_t align, len, v[5];
  int k;
  if (!theta || !size || !mlc_onnx__attr_int(n, "align_corners", 0, &align)) return false;
  if (mlc_onnx__rank(size) != 1 || !mlc_onnx__const_dim(size, 0, &len) || (len != 4 && len != 5))
    return mlc_onnx__node_fail(n, "input 1 (size) must hold 4 or 5 values (N, C and the spatial sizes)");
  const MlcSInfo *ts = mlc_onnx__tensor_sinfo(theta);
  if (!ts || ts->tensor.ndim != 3 || !ts->tensor.shape) return mlc_onnx__node_fail(n, "theta must be 3-D");
  MlcExpr *dims[5];
  if (mlc_onnx__known_or_absent(n, 1)) {
    if (!mlc_onnx__known_ints(n, 1, v, 5, &k)) return false;
    int64_t batch;
    if (mlc_onnx__const_dim(theta, 0, &batch) && v[0] != batch)
      return mlc_onnx__node_fail(n, "size's N is %lld but theta holds %lld transforms", (long long)v[0], (long long)batch);
    int64_t numel = 1;
    for (int i = 2; i < len; i++) {
      if (v[i] < 0) return mlc_onnx__node_fail(n, "input 1 (size) must not be negative");
      if (v[i] > ((int64_t)1 << 31) || (numel *= v[i] ? v[i] : 1) > ((int64_t)1 << 31))
        return mlc_onnx__node_fail(n, "input 1 (size): a grid over 2^31 points is not supported");
      dims[i] = mlc_e_int(ctx, MLC_I64, v[i]);
    }
  } else {
    dims[0] = ts->tensor.shape[0]; /* checked equal */
    for (int i = 1; i < len; i++) dims[i] = mlc_onnx__fresh_dim(n);
    if (!mlc_onnx__bind_values(n, mlc_onnx__i64_row(n, size), dims, (int)len)) return false;
  }
  MlcAttr a[2] = {attr("shape", mlc_onnx__av_exprs(ctx, dims + 2, (int)len - 2)), attr("align_corners", av_bool(align != 0))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "image.affine_grid", &theta, 1, 2, a)) != NULL;
}
