/* onnx_values.c - the pieces converters use to compute sizes from values
 * read at run time and bind them (tensor_to_shape, mode "values"): int64
 * rows, constants, concatenation, the binding itself and fresh size vars.
 * A binding whose entry is a constant checks the value equal to it, one
 * whose entry is a fresh var checks it non-negative; that is how a
 * converter states what must hold of the values when the model runs. */
#include "onnx_convert.h"

MlcGExpr *mlc_onnx__i64_row(MlcOnnxNode *n, MlcGExpr *t) {
  int64_t one = 1;
  MlcAttr ra = attr("shape", mlc_onnx__av_ints(n->im->ctx, &one, 1)), ca = attr("dtype", mlc_onnx__av_dtype(MLC_I64));
  if (t && mlc_onnx__rank(t) == 0) t = mlc_onnx__emit_attrs(n, "reshape", &t, 1, 1, &ra);
  if (t && !mlc_dtype_eq(mlc_onnx__dtype_of(t), MLC_I64)) t = mlc_onnx__emit_attrs(n, "astype", &t, 1, 1, &ca);
  return t;
}

MlcGExpr *mlc_onnx__i64_const(MlcOnnxNode *n, int64_t v) { return mlc_onnx__const(n, mlc_onnx__i64s(n->im->ctx, &v, 1)); }

MlcGExpr *mlc_onnx__join(MlcOnnxNode *n, MlcGExpr **items, int k) {
  for (int i = 0; i < k; i++)
    if (!items[i]) return NULL;
  MlcGExpr *t = mlc_g_tuple(n->im->ctx, items, k);
  MlcAttr a = attr("axis", mlc_onnx__av_int(0));
  return t ? mlc_onnx__emit_attrs(n, "concat", &t, 1, 1, &a) : NULL;
}

bool mlc_onnx__bind_values(MlcOnnxNode *n, MlcGExpr *t, MlcExpr **dims, int k) {
  MlcCtx *ctx = n->im->ctx;
  MlcAttr ta[2] = {attr("shape", mlc_onnx__av_exprs(ctx, dims, k)), attr("mode", mlc_onnx__av_str(ctx, "values"))};
  return t && mlc_onnx__emit_attrs(n, "tensor_to_shape", &t, 1, 2, ta);
}

MlcExpr *mlc_onnx__fresh_dim(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  return mlc_e_var(ctx, mlc_internf(ctx, "r%u", n->im->fresh++), MLC_I64);
}
