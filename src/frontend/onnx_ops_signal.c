/* onnx_ops_signal.c - the converter of ONNX's DFT onto signal.dft.
 *
 * Opsets 17 to 19 give the axis as an attribute (default 1), opset 20 as
 * input 2 (default -2); dft_length (input 1) must be known at compile time.
 * An axis computed at run time is served when every axis it may name gives
 * the same output shape: each gets its transform and the axis value picks
 * one (as CumSum does); otherwise the output's shape would depend on the
 * value, which is refused. */
#include "onnx_convert.h"

typedef struct DftAttrs {
  bool inverse, onesided;
  int64_t len; /* 0: the axis' length */
} DftAttrs;

static MlcGExpr *dft_along(MlcOnnxNode *n, MlcGExpr *x, int64_t axis, const DftAttrs *d) {
  MlcAttr a[4] = {attr("axis", mlc_onnx__av_int(axis)), attr("inverse", av_bool(d->inverse)),
                  attr("onesided", av_bool(d->onesided)), attr("dft_length", mlc_onnx__av_int(d->len))};
  return mlc_onnx__emit_attrs(n, "signal.dft", &x, 1, 4, a);
}

/* the output length along axis ax of x (static dims), -1 when that axis
 * cannot be transformed */
static int64_t out_len(MlcOnnxNode *n, MlcGExpr *x, int ax, const DftAttrs *d) {
  int64_t in;
  if (!mlc_onnx__const_dim(x, ax, &in)) return -1;
  bool real_out = d->inverse && d->onesided;
  int64_t len = d->len ? d->len : real_out ? 2 * (in - 1) : in;
  if (len < 1) return -1;
  return real_out || !d->onesided ? len : len / 2 + 1;
}

/* every axis but the last transformed, the axis value picking one */
static MlcGExpr *dft_runtime_axis(MlcOnnxNode *n, MlcGExpr *x, MlcGExpr *axis, int rank, const DftAttrs *d) {
  int64_t first[MLC_ONNX_MAX_RANK];
  for (int c = 0; c < rank - 1; c++)
    for (int i = 0; i < rank - 1; i++) {
      int64_t v = i == c ? out_len(n, x, i, d) : -1;
      if (i != c && !mlc_onnx__const_dim(x, i, &v)) v = -1;
      if (c == 0) first[i] = v;
      if (v < 0 || v != first[i])
        return mlc_onnx__node_fail(n, "input 2 (axis) computed at run time is not supported here: the axes it may "
                                      "name give different output shapes (it must be known at compile time)"),
               NULL;
    }
  MlcGExpr *y = dft_along(n, x, rank - 2, d);
  for (int i = rank - 3; i >= 0 && y; i--) {
    MlcGExpr *pos = mlc_onnx__emit2(n, "equal", axis, mlc_onnx__scalar_like(n, axis, i));
    MlcGExpr *neg = mlc_onnx__emit2(n, "equal", axis, mlc_onnx__scalar_like(n, axis, i - rank));
    MlcGExpr *args[3] = {mlc_onnx__emit2(n, "logical_or", pos, neg), dft_along(n, x, i, d), y};
    y = args[0] && args[1] ? mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}) : NULL;
  }
  return y;
}

bool mlc_onnx__conv_dft(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t inverse, onesided, axis = n->opset < 20 ? 1 : -2, v;
  int rank, k;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "inverse", 0, &inverse) ||
      !mlc_onnx__attr_int(n, "onesided", 0, &onesided))
    return false;
  DftAttrs d = {inverse != 0, onesided != 0, 0};
  if (n->n_in > 1 && n->in[1]) {
    if (!mlc_onnx__known_ints(n, 1, &v, 1, &k)) return false;
    if (k != 1 || v < 1) return mlc_onnx__node_fail(n, "input 1 (dft_length) must be one positive value");
    d.len = v;
  }
  if (n->opset < 20) {
    if (!mlc_onnx__attr_int(n, "axis", 1, &axis)) return false;
  } else if (n->n_in > 2 && n->in[2]) {
    bool known = n->known_in[2] || n->in[2]->kind == MLC_G_CONST;
    if (!known) return (n->out[0] = dft_runtime_axis(n, x, n->in[2], rank, &d)) != NULL;
    if (!mlc_onnx__known_ints(n, 2, &axis, 1, &k)) return false;
    if (k != 1) return mlc_onnx__node_fail(n, "input 2 (axis) must hold one value, has %d", k);
  }
  return (n->out[0] = dft_along(n, x, axis, &d)) != NULL;
}
