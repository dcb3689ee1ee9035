/* dynslice.c - slice_dynamic(x, params, shape=[...]): ONNX Slice whose
 * starts, ends, axes and steps are read when the model runs.  params is the
 * 1-D int64 tensor [starts, ends, axes, steps] (q values each); `shape` is
 * the output's, bound by tensor_to_shape mode "slice", which checks the axes
 * (in range, none twice) and steps (not 0) and computes each length with
 * numpy's clamping.  The kernel reads the same values: per output dim d,
 * the last j whose axis is d gives the begin (starts[j], counted from the
 * end when negative, clamped into [0, x_d] for a positive step and
 * [-1, x_d - 1] for a negative one) and the step; a dim no axis names is
 * x's, read whole.  out[o] = x[begin + o * step], the index clamped into
 * [0, x_d - 1] so that it never leaves x whatever the values are (with the
 * values "slice" checked, the clamp never acts). */
#include "mlcc/arith.h"
#include "ops/op_internal.h"

/* x of known shape and params a 1-D int64 tensor of 4q values, q >= 1 */
static const MlcSInfo *slice_args(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr ***shape, int *n, int64_t *q) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true), *p = x ? mlc_op_tensor(ctx, a, 1, true) : NULL;
  int64_t len;
  if (!p || !mlc_op_attr_shape(ctx, a, "shape", shape, n)) return NULL;
  if (!x->tensor.shape) return mlc_op_fail(ctx, a, "x: expected a tensor of known shape"), NULL;
  MlcDType t = p->tensor.dtype;
  if (t.code != MLC_TC_INT || t.bits != 64 || t.lanes != 1 || p->tensor.ndim != 1 || !p->tensor.shape ||
      !mlc_e_is_const_int(p->tensor.shape[0], &len) || len < 4 || len % 4 != 0)
    return mlc_op_fail(ctx, a, "params: expected a 1-D int64 tensor of 4q values (starts, ends, axes, steps), got %s",
                       mlc_op_sinfo_str(ctx, p)), NULL;
  if (*n != x->tensor.ndim)
    return mlc_op_fail(ctx, a, "shape: expected %d dims (x's rank), got %d", x->tensor.ndim, *n), NULL;
  *q = len / 4;
  return x;
}

MlcSInfo *mlc_op_infer_slice_dynamic(MlcCtx *ctx, const MlcOpArgs *a) {
  MlcExpr **shape;
  int n;
  int64_t q;
  const MlcSInfo *x = slice_args(ctx, a, &shape, &n, &q);
  return x ? mlc_op_tensor_sinfo(ctx, shape, n, x->tensor.dtype) : NULL;
}

static MlcExpr *bin(MlcCtx *ctx, MlcBinOp op, MlcExpr *x, MlcExpr *y) { return mlc_e_bin(ctx, op, x, y); }

static MlcExpr *clamp(MlcCtx *ctx, MlcExpr *v, MlcExpr *lo, MlcExpr *hi) {
  return bin(ctx, MLC_BIN_MAX, bin(ctx, MLC_BIN_MIN, v, hi), lo);
}

/* params[i], as int64 */
static MlcExpr *param(MlcCtx *ctx, const MlcTeTensor *p, int64_t i) {
  MlcExpr *at = mlc_op_i64(ctx, i);
  return mlc_te_read(ctx, p, &at, 1);
}

bool mlc_op_te_slice_dynamic(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                             int *n_outs) {
  const MlcTeTensor *x = in[0], *p = in[1];
  MlcExpr **shape;
  int n;
  int64_t q;
  if (!slice_args(ctx, a, &shape, &n, &q)) return false;
  MlcExpr **axes = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *axes);
  MlcExpr **idx = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *idx);
  mlc_op_axes(ctx, n, axes);
  MlcExpr *zero = mlc_op_i64(ctx, 0), *one = mlc_op_i64(ctx, 1), *rank = mlc_op_i64(ctx, n);
  for (int d = 0; d < n; d++) {
    MlcExpr *dim = x->shape[d], *last = bin(ctx, MLC_BIN_SUB, dim, one);
    MlcExpr *begin = zero, *step = one;
    for (int64_t j = 0; j < q; j++) {
      MlcExpr *ax = param(ctx, p, 2 * q + j), *s = param(ctx, p, 3 * q + j), *b = param(ctx, p, j);
      ax = mlc_op_select(ctx, bin(ctx, MLC_BIN_LT, ax, zero), bin(ctx, MLC_BIN_ADD, ax, rank), ax);
      b = mlc_op_select(ctx, bin(ctx, MLC_BIN_LT, b, zero), bin(ctx, MLC_BIN_ADD, b, dim), b);
      b = mlc_op_select(ctx, bin(ctx, MLC_BIN_GT, s, zero), clamp(ctx, b, zero, dim),
                        clamp(ctx, b, mlc_op_i64(ctx, -1), last));
      MlcExpr *here = bin(ctx, MLC_BIN_EQ, ax, mlc_op_i64(ctx, d));
      begin = mlc_op_select(ctx, here, b, begin);
      step = mlc_op_select(ctx, here, s, step);
    }
    idx[d] = clamp(ctx, bin(ctx, MLC_BIN_ADD, begin, bin(ctx, MLC_BIN_MUL, axes[d], step)), zero, last);
  }
  MlcTeTensor *t = mlc_te_compute(ctx, "T_slice_dynamic", shape, n, axes, mlc_te_read(ctx, x, idx, n));
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}
