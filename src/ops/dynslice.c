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
 * values "slice" checked, the clamp never acts).
 *
 * pad_dynamic(x, params, value, shape=[...], pad_mode=...): ONNX Pad whose
 * pads (or axes, or constant value) are read when the model runs.  params
 * is [pads (2q: begins, then ends), axes (q)] in int64, value x's dtype,
 * 0-d or of one element; `shape` is bound by tensor_to_shape mode "pad"
 * (constant) or "pad_copy" (edge, reflect, wrap: a dim that grows must not
 * be empty).  Per output dim d, the begin pad of the last j whose axis is d
 * (0 when none) shifts the index: q = o_d - begin; "constant" reads x
 * where 0 <= q < x_d and value elsewhere, "edge" clamps q, "wrap" takes it
 * modulo x_d, "reflect" folds it with period 2 (x_d - 1) (numpy's repeated
 * reflection).  Every index is clamped into [0, x_d - 1] at the end.
 *
 * one_hot_dynamic(indices, values, shape=[...], axis=a): ONNX OneHot whose
 * depth (the output's dim at a, bound at run time) or values are not known
 * at compile time: out[o] = values[1] where o_a equals the index at o
 * without a (a negative one counting from the depth), values[0]
 * elsewhere; an index out of range matches nothing.  Reads stay in bounds
 * whatever the values: indices are read at the output's other dims. */
#include <string.h>

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

#define PAD_MODES(X) X("constant") X("edge") X("reflect") X("wrap")

/* x of known shape, params 1-D int64 of 3q values, value of x's dtype with one element */
static const MlcSInfo *pad_args(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr ***shape, int *n, int64_t *q, int *mode) {
  static const char *const modes[] = {
#define X(m) m,
      PAD_MODES(X)
#undef X
  };
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true), *p = x ? mlc_op_tensor(ctx, a, 1, true) : NULL;
  const MlcSInfo *v = p ? mlc_op_tensor(ctx, a, 2, true) : NULL;
  const char *m;
  int64_t len, one;
  if (!v || !mlc_op_attr_shape(ctx, a, "shape", shape, n) || !mlc_op_attr_str(ctx, a, "pad_mode", "constant", &m))
    return NULL;
  *mode = -1;
  for (int i = 0; i < (int)(sizeof modes / sizeof *modes); i++)
    if (!strcmp(m, modes[i])) *mode = i;
  if (*mode < 0)
    return mlc_op_fail(ctx, a, "pad_mode: expected \"constant\", \"edge\", \"reflect\" or \"wrap\", got \"%s\"", m), NULL;
  if (!x->tensor.shape) return mlc_op_fail(ctx, a, "x: expected a tensor of known shape"), NULL;
  MlcDType t = p->tensor.dtype;
  if (t.code != MLC_TC_INT || t.bits != 64 || t.lanes != 1 || p->tensor.ndim != 1 || !p->tensor.shape ||
      !mlc_e_is_const_int(p->tensor.shape[0], &len) || len < 3 || len % 3 != 0)
    return mlc_op_fail(ctx, a, "params: expected a 1-D int64 tensor of 3q values (pads, axes), got %s",
                       mlc_op_sinfo_str(ctx, p)), NULL;
  if (!mlc_dtype_eq(v->tensor.dtype, x->tensor.dtype) || v->tensor.ndim > 1 ||
      (v->tensor.ndim == 1 && (!v->tensor.shape || !mlc_e_is_const_int(v->tensor.shape[0], &one) || one != 1)))
    return mlc_op_fail(ctx, a, "value: expected one element of x's dtype, got %s", mlc_op_sinfo_str(ctx, v)), NULL;
  if (*n != x->tensor.ndim)
    return mlc_op_fail(ctx, a, "shape: expected %d dims (x's rank), got %d", x->tensor.ndim, *n), NULL;
  *q = len / 3;
  return x;
}

MlcSInfo *mlc_op_infer_pad_dynamic(MlcCtx *ctx, const MlcOpArgs *a) {
  MlcExpr **shape;
  int n, mode;
  int64_t q;
  const MlcSInfo *x = pad_args(ctx, a, &shape, &n, &q, &mode);
  return x ? mlc_op_tensor_sinfo(ctx, shape, n, x->tensor.dtype) : NULL;
}

bool mlc_op_te_pad_dynamic(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                           int *n_outs) {
  const MlcTeTensor *x = in[0], *p = in[1], *v = in[2];
  MlcExpr **shape;
  int n, mode;
  int64_t q;
  if (!pad_args(ctx, a, &shape, &n, &q, &mode)) return false;
  MlcExpr **axes = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *axes);
  MlcExpr **idx = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *idx);
  mlc_op_axes(ctx, n, axes);
  MlcExpr *zero = mlc_op_i64(ctx, 0), *one = mlc_op_i64(ctx, 1), *rank = mlc_op_i64(ctx, n), *inside = NULL;
  for (int d = 0; d < n; d++) {
    MlcExpr *dim = x->shape[d], *last = bin(ctx, MLC_BIN_SUB, dim, one), *begin = zero;
    for (int64_t j = 0; j < q; j++) {
      MlcExpr *ax = param(ctx, p, 2 * q + j);
      ax = mlc_op_select(ctx, bin(ctx, MLC_BIN_LT, ax, zero), bin(ctx, MLC_BIN_ADD, ax, rank), ax);
      begin = mlc_op_select(ctx, bin(ctx, MLC_BIN_EQ, ax, mlc_op_i64(ctx, d)), param(ctx, p, j), begin);
    }
    MlcExpr *at = bin(ctx, MLC_BIN_SUB, axes[d], begin);
    if (mode == 0) {
      MlcExpr *c = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_GE, at, zero), bin(ctx, MLC_BIN_LT, at, dim));
      inside = inside ? bin(ctx, MLC_BIN_AND, inside, c) : c;
    } else if (mode == 2) { /* reflect: period 2 (d - 1), at least 1 so that a dim of 1 reflects onto itself */
      MlcExpr *period = bin(ctx, MLC_BIN_MAX, bin(ctx, MLC_BIN_MUL, last, mlc_op_i64(ctx, 2)), one);
      MlcExpr *r = bin(ctx, MLC_BIN_FLOORMOD, at, period);
      at = mlc_op_select(ctx, bin(ctx, MLC_BIN_LT, r, dim), r, bin(ctx, MLC_BIN_SUB, period, r));
    } else if (mode == 3) {
      at = bin(ctx, MLC_BIN_FLOORMOD, at, bin(ctx, MLC_BIN_MAX, dim, one));
    }
    idx[d] = clamp(ctx, at, zero, last);
  }
  MlcExpr *body = mlc_te_read(ctx, x, idx, n);
  if (inside) body = mlc_op_select(ctx, inside, body, mlc_te_read(ctx, v, v->ndim ? &zero : NULL, v->ndim));
  MlcTeTensor *t = mlc_te_compute(ctx, "T_pad_dynamic", shape, n, axes, body);
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}

/* indices of integer dtype, values 1-D of 2, shape the indices' with one dim inserted at axis */
static const MlcSInfo *one_hot_args(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr ***shape, int *n, int64_t *axis) {
  const MlcSInfo *ind = mlc_op_tensor(ctx, a, 0, true), *v = ind ? mlc_op_tensor(ctx, a, 1, true) : NULL;
  int64_t two;
  if (!v || !mlc_op_attr_shape(ctx, a, "shape", shape, n) || !mlc_op_attr_int(ctx, a, "axis", 0, axis)) return NULL;
  if (!ind->tensor.shape || !mlc_dtype_is_int(ind->tensor.dtype))
    return mlc_op_fail(ctx, a, "indices: expected integers of known shape, got %s", mlc_op_sinfo_str(ctx, ind)), NULL;
  if (v->tensor.ndim != 1 || !v->tensor.shape || !mlc_e_is_const_int(v->tensor.shape[0], &two) || two != 2)
    return mlc_op_fail(ctx, a, "values: expected 2 elements (off, on), got %s", mlc_op_sinfo_str(ctx, v)), NULL;
  if (*n != ind->tensor.ndim + 1)
    return mlc_op_fail(ctx, a, "shape: expected %d dims (the indices' rank + 1), got %d", ind->tensor.ndim + 1, *n), NULL;
  if (*axis < 0 || *axis >= *n) return mlc_op_fail(ctx, a, "axis %lld is out of range for rank %d", (long long)*axis, *n), NULL;
  return v;
}

MlcSInfo *mlc_op_infer_one_hot_dynamic(MlcCtx *ctx, const MlcOpArgs *a) {
  MlcExpr **shape;
  int n;
  int64_t axis;
  const MlcSInfo *v = one_hot_args(ctx, a, &shape, &n, &axis);
  return v ? mlc_op_tensor_sinfo(ctx, shape, n, v->tensor.dtype) : NULL;
}

bool mlc_op_te_one_hot_dynamic(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                               int *n_outs) {
  MlcExpr **shape;
  int n;
  int64_t axis;
  if (!one_hot_args(ctx, a, &shape, &n, &axis)) return false;
  MlcExpr **axes = mlc_arena_array(&ctx->arena, (size_t)n, sizeof *axes);
  MlcExpr **idx = mlc_arena_array(&ctx->arena, (size_t)n, sizeof *idx);
  mlc_op_axes(ctx, n, axes);
  for (int d = 0, k = 0; d < n; d++)
    if (d != axis) idx[k++] = axes[d];
  MlcExpr *i = mlc_op_cast(ctx, MLC_I64, mlc_te_read(ctx, in[0], idx, n - 1)), *depth = shape[axis];
  i = mlc_op_select(ctx, bin(ctx, MLC_BIN_LT, i, mlc_op_i64(ctx, 0)), bin(ctx, MLC_BIN_ADD, i, depth), i);
  MlcExpr *off = mlc_op_i64(ctx, 0), *on = mlc_op_i64(ctx, 1);
  MlcExpr *body = mlc_op_select(ctx, bin(ctx, MLC_BIN_EQ, i, axes[axis]), mlc_te_read(ctx, in[1], &on, 1),
                                mlc_te_read(ctx, in[1], &off, 1));
  MlcTeTensor *t = mlc_te_compute(ctx, "T_one_hot_dynamic", shape, n, axes, body);
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}
