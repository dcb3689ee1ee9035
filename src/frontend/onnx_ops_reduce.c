/* onnx_ops_reduce.c - converters of ONNX's reductions (ReduceSum, ReduceMean,
 * ReduceMax, ReduceMin, ReduceProd, ReduceL1 / L2, ReduceSumSquare,
 * ReduceLogSum, ReduceLogSumExp), ArgMax / ArgMin, Hardmax, Softmax /
 * LogSoftmax, CumSum and CumProd onto the registry's reduction and scan ops.
 *
 * Axes moved from attributes to inputs in newer opsets; the reductions read
 * axes computed at run time when the model runs (reduce_to_shape), the
 * others need them known at compile time.  A CumSum / CumProd axis computed at run time is handled by
 * computing every axis and selecting on the axis value. */
#include <math.h>
#include <string.h>

#include "onnx_convert.h"

static bool set_out(MlcOnnxNode *n, MlcGExpr *y) { return (n->out[0] = y) != NULL; }

static MlcGExpr *where(MlcOnnxNode *n, MlcGExpr *c, MlcGExpr *t, MlcGExpr *f) {
  MlcGExpr *args[3] = {c, t, f};
  return c && t && f ? mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}) : NULL;
}

static bool is_known(const MlcOnnxNode *n, int i) {
  return i < n->n_in && n->in[i] && (n->known_in[i] || n->in[i]->kind == MLC_G_CONST);
}

/* ---- ArgMax, ArgMin, ReduceProd, Hardmax ----------------------------------------------------- */

static bool argreduce(MlcOnnxNode *n, const char *op) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t axis, keep, last;
  if (!x || !mlc_onnx__attr_int(n, "axis", 0, &axis) || !mlc_onnx__attr_int(n, "keepdims", 1, &keep) ||
      !mlc_onnx__attr_int(n, "select_last_index", 0, &last))
    return false;
  MlcAttr a[3] = {attr("axis", mlc_onnx__av_int(axis)), attr("keepdims", av_bool(keep != 0)),
                  attr("select_last_index", av_bool(last != 0))};
  return set_out(n, mlc_onnx__emit_attrs(n, op, &x, 1, 3, a));
}

bool mlc_onnx__conv_argmax(MlcOnnxNode *n) { return argreduce(n, "argmax"); }

bool mlc_onnx__conv_argmin(MlcOnnxNode *n) { return argreduce(n, "argmin"); }

static int64_t static_length(MlcOnnxNode *n, int i);

/* The product over axes read when the model runs: dim by dim, x replaced
 * by its product along d (kept 1 long, broadcast back by `where`) when d
 * is among the axes, so every position along a reduced dim holds the
 * product; the kept shape (bound from the axes, "reduce_keep") then reads
 * it at index 0 there (tile_to_shape), and without keepdims that is copied
 * into the shape that leaves those dims out.  x's dims must be static. */
static MlcGExpr *prod_runtime_axes(MlcOnnxNode *n, MlcGExpr *x, bool keepdims) {
  MlcCtx *ctx = n->im->ctx;
  MlcExpr *dims[MLC_ONNX_MAX_RANK];
  int rank = mlc_onnx__rank(x), k;
  if (rank < 1) return mlc_onnx__node_fail(n, "axes computed at run time of a scalar"), NULL;
  MlcGExpr *axes = mlc_onnx__input(n, 1);
  if (!axes || !mlc_onnx__runtime_shape(n, axes, x, "reduce_keep", dims, MLC_ONNX_MAX_RANK, &k)) return NULL;
  MlcAttr to_i64 = attr("dtype", mlc_onnx__av_dtype(MLC_I64));
  if (!mlc_dtype_eq(mlc_onnx__dtype_of(axes), MLC_I64) && !(axes = mlc_onnx__emit_attrs(n, "astype", &axes, 1, 1, &to_i64)))
    return NULL;
  /* the axes in range (checked by the binding), negative ones from the end */
  MlcGExpr *zero = mlc_onnx__scalar_like(n, axes, 0);
  MlcGExpr *norm = where(n, mlc_onnx__emit2(n, "less", axes, zero),
                         mlc_onnx__emit2(n, "add", axes, mlc_onnx__scalar_like(n, axes, rank)), axes);
  MlcGExpr *y = x;
  for (int d = 0; d < rank && y; d++) {
    int64_t ax = 0, one = d;
    MlcGExpr *hit = mlc_onnx__emit2(n, "equal", norm, mlc_onnx__scalar_like(n, axes, (double)d));
    MlcAttr i8 = attr("dtype", mlc_onnx__av_dtype(MLC_DT(MLC_TC_INT, 8, 1)));
    hit = hit ? mlc_onnx__emit_attrs(n, "astype", &hit, 1, 1, &i8) : NULL;
    MlcAttr any[2] = {attr("axis", mlc_onnx__av_ints(ctx, &ax, 1)), attr("keepdims", av_bool(false))};
    hit = hit ? mlc_onnx__emit_attrs(n, "max", &hit, 1, 2, any) : NULL;
    hit = mlc_onnx__emit2(n, "not_equal", hit, mlc_onnx__const(n, mlc_onnx__scalar(ctx, MLC_DT(MLC_TC_INT, 8, 1), 0)));
    MlcAttr pa[2] = {attr("axis", mlc_onnx__av_ints(ctx, &one, 1)), attr("keepdims", av_bool(true))};
    int64_t len;
    /* an empty dim: its product (1) either way, as `where` would broadcast
     * it back to 0; when d is not reduced the result is empty there and
     * nothing is read */
    if (mlc_onnx__const_dim(x, d, &len) && len == 0) y = mlc_onnx__emit_attrs(n, "prod", &y, 1, 2, pa);
    else y = where(n, hit, mlc_onnx__emit_attrs(n, "prod", &y, 1, 2, pa), y);
  }
  MlcAttr sa = attr("shape", mlc_onnx__av_exprs(ctx, dims, k));
  y = y ? mlc_onnx__emit_attrs(n, "tile_to_shape", &y, 1, 1, &sa) : NULL;
  if (!y || keepdims) return y;
  if (!mlc_onnx__runtime_shape(n, mlc_onnx__input(n, 1), x, "reduce_drop", dims, MLC_ONNX_MAX_RANK, &k)) return NULL;
  MlcAttr s2 = attr("shape", mlc_onnx__av_exprs(ctx, dims, k));
  return mlc_onnx__emit_attrs(n, "reshape_dynamic", &y, 1, 1, &s2);
}

/* axes: an attribute before opset 18, an input from it; none reduces all
 * (or nothing, with noop_with_empty_axes); read at run time, see
 * prod_runtime_axes */
bool mlc_onnx__conv_reduce_prod(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t axes[MLC_ONNX_MAX_RANK], keep, noop;
  int na;
  if (!x || !mlc_onnx__attr_int(n, "keepdims", 1, &keep) || !mlc_onnx__attr_int(n, "noop_with_empty_axes", 0, &noop))
    return false;
  if (n->opset >= 18 && !mlc_onnx__known_or_absent(n, 1) && static_length(n, 1) != 0)
    return set_out(n, prod_runtime_axes(n, x, keep != 0));
  if (n->opset >= 18 && !mlc_onnx__known_or_absent(n, 1)) na = 0; /* no axes, whatever their values */
  else if (!mlc_onnx__ints_attr_or_input(n, "axes", 18, 1, axes, MLC_ONNX_MAX_RANK, &na)) return false;
  if (na <= 0 && noop) return set_out(n, x);
  MlcAttr a[2] = {attr("keepdims", av_bool(keep != 0)), attr("axis", mlc_onnx__av_ints(n->im->ctx, axes, na))};
  return set_out(n, mlc_onnx__emit_attrs(n, "prod", &x, 1, na > 0 ? 2 : 1, a));
}

/* 1 where the first maximum along the axis is, else 0: argmax compared
 * with a constant ramp 0..d-1 laid along the axis (broadcasting does the rest) */
bool mlc_onnx__conv_hardmax(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t axis, d;
  int rank = x ? mlc_onnx__rank(x) : -1;
  if (!x || !mlc_onnx__attr_int(n, "axis", -1, &axis)) return false;
  if (n->opset < 13) return mlc_onnx__node_fail(n, "Hardmax before opset 13 (2-D coercion) is not supported");
  if (rank < 1 || rank > MLC_ONNX_MAX_RANK) return mlc_onnx__node_fail(n, "input rank %d is not supported", rank);
  if (axis < -rank || axis >= rank) return mlc_onnx__node_fail(n, "axis %lld is out of range for rank %d", (long long)axis, rank);
  if (axis < 0) axis += rank;
  if (!mlc_onnx__const_dim(x, (int)axis, &d) || d > (1 << 24))
    return mlc_onnx__node_fail(n, "a symbolic or huge dim along the axis is not supported");
  MlcTensorData *ramp = mlc_onnx__i64s(ctx, NULL, 0);
  ramp->ndim = rank;
  ramp->shape = mlc_arena_array(&ctx->arena, (size_t)rank, sizeof(int64_t));
  for (int i = 0; i < rank; i++) ramp->shape[i] = i == axis ? d : 1;
  ramp->nbytes = (size_t)d * sizeof(int64_t);
  ramp->data = mlc_arena_alloc(&ctx->arena, ramp->nbytes ? ramp->nbytes : 1);
  for (int64_t i = 0; i < d; i++) ((int64_t *)ramp->data)[i] = i;
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_int(axis)), attr("keepdims", av_bool(true))};
  MlcGExpr *idx = mlc_onnx__emit_attrs(n, "argmax", &x, 1, 2, a);
  MlcGExpr *hit = idx ? mlc_onnx__emit2(n, "equal", mlc_g_const(ctx, ramp), idx) : NULL;
  MlcAttr t = attr("dtype", mlc_onnx__av_dtype(mlc_onnx__dtype_of(x)));
  return hit && set_out(n, mlc_onnx__emit_attrs(n, "astype", &hit, 1, 1, &t));
}

/* ---- CumSum, CumProd ------------------------------------------------------------------------- */

static MlcGExpr *scan_along(MlcOnnxNode *n, const char *op, MlcGExpr *x, int64_t axis, bool exclusive, bool reverse) {
  MlcAttr a[3] = {attr("axis", mlc_onnx__av_int(axis)), attr("exclusive", av_bool(exclusive)),
                  attr("reverse", av_bool(reverse))};
  return mlc_onnx__emit_attrs(n, op, &x, 1, 3, a);
}

/* The axis is a second input.  Known at compile time, it is an attribute
 * of one scan; computed at run time, the result is the same shape along
 * any axis, so each axis gets its scan and the axis value picks one
 * (a rank-1 input has one axis to pick). */
static bool scan(MlcOnnxNode *n, const char *op) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *ax = mlc_onnx__input(n, 1);
  int64_t axis, exclusive, reverse;
  int na, rank = x ? mlc_onnx__rank(x) : -1;
  if (!x || !ax || !mlc_onnx__attr_int(n, "exclusive", 0, &exclusive) || !mlc_onnx__attr_int(n, "reverse", 0, &reverse))
    return false;
  if (is_known(n, 1) || rank == 1) {
    if (rank == 1) axis = 0;
    else if (!mlc_onnx__known_ints(n, 1, &axis, 1, &na)) return false;
    else if (na != 1) return mlc_onnx__node_fail(n, "input 1 (axis) must hold one value, has %d", na);
    return set_out(n, scan_along(n, op, x, axis, exclusive != 0, reverse != 0));
  }
  if (rank < 1 || rank > 4) return mlc_onnx__node_fail(n, "a run-time axis with input rank %d is not supported", rank);
  MlcGExpr *y = scan_along(n, op, x, rank - 1, exclusive != 0, reverse != 0);
  for (int d = rank - 2; d >= 0 && y; d--) {
    MlcGExpr *pos = mlc_onnx__emit2(n, "equal", ax, mlc_onnx__scalar_like(n, ax, d));
    MlcGExpr *neg = mlc_onnx__emit2(n, "equal", ax, mlc_onnx__scalar_like(n, ax, d - rank));
    y = where(n, mlc_onnx__emit2(n, "logical_or", pos, neg), scan_along(n, op, x, d, exclusive != 0, reverse != 0), y);
  }
  return set_out(n, y);
}

bool mlc_onnx__conv_cumsum(MlcOnnxNode *n) { return scan(n, "cumsum"); }

bool mlc_onnx__conv_cumprod(MlcOnnxNode *n) { return scan(n, "cumprod"); }

/* ---- Softmax, LogSoftmax --------------------------------------------------------------------- */

static bool softmax(MlcOnnxNode *n, const char *op) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t axis;
  int rank;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "axis", n->opset >= 13 ? -1 : 1, &axis)) return false;
  if (axis < 0) axis += rank;
  MlcAttr a = attr("axis", mlc_onnx__av_int(n->opset >= 13 ? axis : -1));
  if (n->opset >= 13 || axis == rank - 1) {
    if (n->opset < 13) a = attr("axis", mlc_onnx__av_int(rank - 1));
    return (n->out[0] = mlc_onnx__emit_attrs(n, op, &x, 1, 1, &a)) != NULL;
  }
  /* before opset 13 the input is seen as 2-D: [prod(:axis), prod(axis:)] */
  int64_t dims[MLC_ONNX_MAX_RANK], rows = 1, cols = 1;
  for (int i = 0; i < rank; i++) {
    if (!mlc_onnx__const_dim(x, i, &dims[i])) return mlc_onnx__node_fail(n, "a symbolic shape is not supported here");
    if (i < axis) rows *= dims[i];
    else cols *= dims[i];
  }
  int64_t flat[2] = {rows, cols};
  MlcAttr r1 = attr("shape", mlc_onnx__av_ints(n->im->ctx, flat, 2));
  MlcGExpr *x2 = mlc_onnx__emit_attrs(n, "reshape", &x, 1, 1, &r1);
  MlcGExpr *y2 = x2 ? mlc_onnx__emit_attrs(n, op, &x2, 1, 1, &a) : NULL;
  MlcAttr r2 = attr("shape", mlc_onnx__av_ints(n->im->ctx, dims, rank));
  return y2 && (n->out[0] = mlc_onnx__emit_attrs(n, "reshape", &y2, 1, 1, &r2)) != NULL;
}

bool mlc_onnx__conv_softmax(MlcOnnxNode *n) { return softmax(n, "nn.softmax"); }

bool mlc_onnx__conv_logsoftmax(MlcOnnxNode *n) { return softmax(n, "nn.log_softmax"); }

/* ---- reductions ----------------------------------------------------------------------------- */

typedef enum { PRE_NONE, PRE_ABS, PRE_SQUARE, PRE_EXP } Pre;
typedef enum { POST_NONE, POST_SQRT, POST_LOG } Post;

/* the static length of input i (a 1-D tensor), -1 when not known */
static int64_t static_length(MlcOnnxNode *n, int i) {
  int64_t len;
  return i < n->n_in && n->in[i] && mlc_onnx__rank(n->in[i]) == 1 && mlc_onnx__const_dim(n->in[i], 0, &len) ? len : -1;
}

/* op over axes read when the model runs: x reduced to its shape with 1 at
 * those axes (reduce_to_shape), and without keepdims that copied into the
 * shape that leaves them out */
static MlcGExpr *reduce_runtime_axes(MlcOnnxNode *n, MlcGExpr *x, MlcGExpr *y, const char *op, bool keepdims) {
  MlcCtx *ctx = n->im->ctx;
  MlcExpr *dims[MLC_ONNX_MAX_RANK];
  int k;
  if (mlc_onnx__rank(x) < 1) return mlc_onnx__node_fail(n, "axes computed at run time of a scalar"), NULL;
  if (!mlc_onnx__runtime_shape(n, mlc_onnx__input(n, 1), x, "reduce_keep", dims, MLC_ONNX_MAX_RANK, &k)) return NULL;
  /* bools reduce as 0/1 int8 (max: any, min: all) */
  MlcDType t = mlc_onnx__dtype_of(y);
  bool is_bool = t.code == MLC_TC_BOOL;
  MlcAttr to_i8 = attr("dtype", mlc_onnx__av_dtype(MLC_DT(MLC_TC_INT, 8, 1))), back = attr("dtype", mlc_onnx__av_dtype(t));
  if (is_bool && !(y = mlc_onnx__emit_attrs(n, "astype", &y, 1, 1, &to_i8))) return NULL;
  MlcAttr a[2] = {attr("shape", mlc_onnx__av_exprs(ctx, dims, k)), attr("kind", mlc_onnx__av_str(ctx, op))};
  y = mlc_onnx__emit_attrs(n, "reduce_to_shape", &y, 1, 2, a);
  if (y && is_bool) y = mlc_onnx__emit_attrs(n, "astype", &y, 1, 1, &back);
  if (!y || keepdims) return y;
  if (!mlc_onnx__runtime_shape(n, mlc_onnx__input(n, 1), x, "reduce_drop", dims, MLC_ONNX_MAX_RANK, &k)) return NULL;
  MlcAttr s = attr("shape", mlc_onnx__av_exprs(ctx, dims, k));
  return mlc_onnx__emit_attrs(n, "reshape_dynamic", &y, 1, 1, &s);
}

/* op(pre(x)) over the node's axes, then post; axes moved from an attribute
 * to an input at opset 13 for ReduceSum and 18 for the others.  Axes
 * computed at run time are read then (reduce_runtime_axes); their count,
 * known from the input's static length, fixes the result's rank. */
static bool reduce(MlcOnnxNode *n, const char *op, Pre pre, Post post) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t axes[MLC_ONNX_MAX_RANK], keepdims, noop;
  int k;
  int64_t since = !strcmp(op, "sum") && pre == PRE_NONE && post == POST_NONE ? 13 : 18;
  bool runtime = n->opset >= since && !mlc_onnx__known_or_absent(n, 1);
  if (runtime && static_length(n, 1) == 0) runtime = false, k = 0; /* no axes, whatever their values */
  else if (!runtime && !mlc_onnx__ints_attr_or_input(n, "axes", since, 1, axes, MLC_ONNX_MAX_RANK, &k)) return false;
  if (!x || !mlc_onnx__attr_int(n, "keepdims", 1, &keepdims) || !mlc_onnx__attr_int(n, "noop_with_empty_axes", 0, &noop))
    return false;
  if (!runtime && k <= 0 && noop) {
    n->out[0] = x;
    return true;
  }
  MlcGExpr *y = x;
  if (pre == PRE_ABS) y = mlc_onnx__emit1(n, "abs", y);
  else if (pre == PRE_SQUARE) y = mlc_onnx__emit2(n, "multiply", y, y);
  else if (pre == PRE_EXP) y = mlc_onnx__emit1(n, "exp", y);
  if (!y) return false;
  if (runtime) {
    y = reduce_runtime_axes(n, x, y, op, keepdims != 0);
  } else {
    MlcAttr a[2] = {attr("keepdims", av_bool(keepdims != 0)), attr("axis", mlc_onnx__av_ints(n->im->ctx, axes, k > 0 ? k : 0))};
    y = mlc_onnx__emit_attrs(n, op, &y, 1, k > 0 ? 2 : 1, a);
  }
  if (y && post == POST_SQRT) y = mlc_onnx__emit1(n, "sqrt", y);
  else if (y && post == POST_LOG) y = mlc_onnx__emit1(n, "log", y);
  return (n->out[0] = y) != NULL;
}

bool mlc_onnx__conv_reduce_sum(MlcOnnxNode *n) { return reduce(n, "sum", PRE_NONE, POST_NONE); }
bool mlc_onnx__conv_reduce_mean(MlcOnnxNode *n) { return reduce(n, "mean", PRE_NONE, POST_NONE); }
bool mlc_onnx__conv_reduce_max(MlcOnnxNode *n) { return reduce(n, "max", PRE_NONE, POST_NONE); }
bool mlc_onnx__conv_reduce_min(MlcOnnxNode *n) { return reduce(n, "min", PRE_NONE, POST_NONE); }
bool mlc_onnx__conv_reduce_l1(MlcOnnxNode *n) { return reduce(n, "sum", PRE_ABS, POST_NONE); }
bool mlc_onnx__conv_reduce_l2(MlcOnnxNode *n) { return reduce(n, "sum", PRE_SQUARE, POST_SQRT); }
bool mlc_onnx__conv_reduce_sumsquare(MlcOnnxNode *n) { return reduce(n, "sum", PRE_SQUARE, POST_NONE); }
bool mlc_onnx__conv_reduce_logsum(MlcOnnxNode *n) { return reduce(n, "sum", PRE_NONE, POST_LOG); }
bool mlc_onnx__conv_reduce_logsumexp(MlcOnnxNode *n) { return reduce(n, "sum", PRE_EXP, POST_LOG); }
