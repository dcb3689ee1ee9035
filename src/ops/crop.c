/* crop.c - center_crop_pad(x, shape=[...], anchor=...): x cropped or
 * zero-padded on every dim to `shape` around its centre (ONNX
 * CenterCropPad), the extra element of an odd difference cut or added at
 * the end; with anchor="start", at the end only (x at the corner of the
 * result, as MaxUnpool places its output in output_shape).
 *
 * The target dims may be symbolic (read when the model runs), so the
 * offset of each dim is computed in the kernel from the two sizes:
 * off = (in - out) // 2 when cropping, -((out - in) // 2) when padding (0
 * anchored at the start), and out[i] = x[i + off] where that is inside x,
 * else 0.  The read is clamped
 * into x as well, so no size, however wrong, reads outside it. */
#include <string.h>

#include "ops/op_internal.h"

#define CROP_MAX_NDIM 16

static bool crop_args(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo **x, MlcExpr ***shape, int *n, bool *start) {
  const char *anchor;
  *x = mlc_op_tensor(ctx, a, 0, true);
  if (!*x || !mlc_op_attr_shape(ctx, a, "shape", shape, n) || !mlc_op_attr_str(ctx, a, "anchor", "center", &anchor)) return false;
  *start = !strcmp(anchor, "start");
  if (!*start && strcmp(anchor, "center"))
    return mlc_op_fail(ctx, a, "anchor: expected \"center\" or \"start\", got \"%s\"", anchor);
  if (!(*x)->tensor.shape) return mlc_op_fail(ctx, a, "x: expected a tensor of known shape");
  if ((*x)->tensor.ndim > CROP_MAX_NDIM) return mlc_op_fail(ctx, a, "x: at most %d dims", CROP_MAX_NDIM);
  if (*n != (*x)->tensor.ndim) return mlc_op_fail(ctx, a, "shape: expected %d dims (x's rank), got %d", (*x)->tensor.ndim, *n);
  return true;
}

MlcSInfo *mlc_op_infer_center_crop_pad(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x;
  MlcExpr **shape;
  int n;
  bool start;
  if (!crop_args(ctx, a, &x, &shape, &n, &start)) return NULL;
  return mlc_op_tensor_sinfo(ctx, shape, n, x->tensor.dtype);
}

bool mlc_op_te_center_crop_pad(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                               int *n_outs) {
  const MlcSInfo *xs;
  MlcExpr **shape, *ax[CROP_MAX_NDIM], *idx[CROP_MAX_NDIM], *inside = NULL;
  int n;
  bool start;
  if (!crop_args(ctx, a, &xs, &shape, &n, &start)) return false;
  const MlcTeTensor *x = in[0];
  MlcExpr *zero = mlc_op_i64(ctx, 0), *two = mlc_op_i64(ctx, 2);
  mlc_op_axes(ctx, n, ax);
  for (int d = 0; d < n; d++) {
    MlcExpr *len = x->shape[d], *out = shape[d];
    MlcExpr *crop = mlc_e_bin(ctx, MLC_BIN_FLOORDIV, mlc_e_bin(ctx, MLC_BIN_SUB, len, out), two);
    MlcExpr *pad = mlc_e_bin(ctx, MLC_BIN_SUB, zero, mlc_e_bin(ctx, MLC_BIN_FLOORDIV, mlc_e_bin(ctx, MLC_BIN_SUB, out, len), two));
    MlcExpr *off = start ? zero : mlc_e_select(ctx, mlc_e_bin(ctx, MLC_BIN_GE, len, out), crop, pad);
    MlcExpr *i = mlc_e_bin(ctx, MLC_BIN_ADD, ax[d], off);
    MlcExpr *ok = mlc_e_bin(ctx, MLC_BIN_AND, mlc_e_bin(ctx, MLC_BIN_GE, i, zero), mlc_e_bin(ctx, MLC_BIN_LT, i, len));
    inside = inside ? mlc_e_bin(ctx, MLC_BIN_AND, inside, ok) : ok;
    idx[d] = mlc_e_bin(ctx, MLC_BIN_MAX, mlc_e_bin(ctx, MLC_BIN_MIN, i, mlc_e_bin(ctx, MLC_BIN_SUB, len, mlc_op_i64(ctx, 1))), zero);
  }
  MlcExpr *v = mlc_te_read(ctx, x, idx, n);
  if (inside) v = mlc_op_select(ctx, inside, v, mlc_op_const(ctx, x->dtype, 0));
  outs[0] = mlc_te_compute(ctx, "center_crop_pad", shape, n, ax, v);
  *n_outs = 1;
  return outs[0] != NULL;
}
