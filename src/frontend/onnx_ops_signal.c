/* onnx_ops_signal.c - the converters of ONNX's DFT onto signal.dft and of
 * the window functions (HannWindow, HammingWindow, BlackmanWindow) into
 * constants.
 *
 * Opsets 17 to 19 give the axis as an attribute (default 1), opset 20 as
 * input 2 (default -2); dft_length (input 1) must be known at compile time.
 * An axis computed at run time is served when every axis it may name gives
 * the same output shape: each gets its transform and the axis value picks
 * one (as CumSum does); otherwise the output's shape would depend on the
 * value, which is refused. */
#include <math.h>

#include "onnx_convert.h"

#define DFT_TWO_PI 6.283185307179586476925286766559

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

/* ---- HannWindow, HammingWindow, BlackmanWindow ------------------------------------------------ */

/* The window of `size` points (input 0, known at compile time) is a
 * constant: w[i] = a0 + a1 cos(2 pi i / N) + a2 cos(4 pi i / N) with
 * N = size (periodic, the default) or size - 1 (symmetric), computed here
 * in float64 and cast to output_datatype. */
#define WINDOW_MAX_SIZE ((int64_t)1 << 24)

static bool window(MlcOnnxNode *n, double a0, double a1, double a2) {
  MlcCtx *ctx = n->im->ctx;
  int64_t size, periodic, otype;
  int k;
  MlcDType t;
  if (!mlc_onnx__input(n, 0) || !mlc_onnx__known_ints(n, 0, &size, 1, &k) || !mlc_onnx__attr_int(n, "periodic", 1, &periodic) ||
      !mlc_onnx__attr_int(n, "output_datatype", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, &otype))
    return false;
  if (k != 1 || size < 1 || size > WINDOW_MAX_SIZE)
    return mlc_onnx__node_fail(n, "input 0 (size) must be one value from 1 to 2^24");
  if (!mlc_onnx__dtype((int32_t)otype, &t) || t.code == MLC_TC_BOOL)
    return mlc_onnx__node_fail(n, "output_datatype %s is not supported", mlc_onnx__dtype_name((int32_t)otype));
  MlcTensorData *d = mlc_tensor_data_new(ctx, MLC_DT(MLC_TC_FLOAT, 64, 1), &size, 1);
  if (!d) return false;
  double den = (double)(periodic ? size : size - 1);
  for (int64_t i = 0; i < size; i++) {
    double x = den > 0 ? DFT_TWO_PI * (double)i / den : 0;
    ((double *)d->data)[i] = a0 + a1 * cos(x) + a2 * cos(2 * x);
  }
  MlcGExpr *w = mlc_onnx__const(n, d);
  if (w && !mlc_dtype_eq(t, d->dtype)) {
    MlcAttr a = attr("dtype", mlc_onnx__av_dtype(t));
    w = mlc_onnx__emit_attrs(n, "astype", &w, 1, 1, &a);
  }
  return (n->out[0] = w) != NULL;
}

bool mlc_onnx__conv_hann_window(MlcOnnxNode *n) { return window(n, 0.5, -0.5, 0); }
bool mlc_onnx__conv_hamming_window(MlcOnnxNode *n) { return window(n, 25.0 / 46, -21.0 / 46, 0); }
bool mlc_onnx__conv_blackman_window(MlcOnnxNode *n) { return window(n, 0.42, -0.5, 0.08); }
