/* onnx_ops_math.c - converters of the second wave: logical and bitwise ops,
 * rounding, sign, trigonometric and hyperbolic functions, Mod, IsNaN /
 * IsInf, ArgMax / ArgMin, ReduceProd, CumSum, Trilu, Hardmax, and the
 * activations composed of elementwise ops (Shrink, ThresholdedRelu, Celu,
 * Mish, Softsign, Swish).
 *
 * Most nodes are one graph op (the table DIRECT_OPS); the rest read their
 * attributes and compile-time inputs and emit a few ops.  Composed
 * activations follow the ONNX function bodies literally, so their results
 * agree with the reference to rounding. */
#include <math.h>
#include <string.h>

#include "onnx_convert.h"

#define MAX_RANK 16


/* a scalar constant of x's dtype */
static MlcGExpr *k(MlcOnnxNode *n, const MlcGExpr *x, double v) { return mlc_onnx__scalar_like(n, x, v); }

static bool set_out(MlcOnnxNode *n, MlcGExpr *y) { return (n->out[0] = y) != NULL; }

/* ---- one op each ----------------------------------------------------------------------- */

static bool direct(MlcOnnxNode *n, const char *op, int arity) {
  MlcGExpr *args[2];
  for (int i = 0; i < arity; i++)
    if (!(args[i] = mlc_onnx__input(n, i))) return false;
  return set_out(n, mlc_onnx__emit(n, op, args, arity, (MlcAttrs){0}));
}

#define DIRECT_OPS(X)                                                                           \
  X(not, "logical_not", 1) X(and, "logical_and", 2) X(or, "logical_or", 2)                      \
  X(xor, "logical_xor", 2) X(bitwise_not, "bitwise_not", 1) X(bitwise_and, "bitwise_and", 2)    \
  X(bitwise_or, "bitwise_or", 2) X(bitwise_xor, "bitwise_xor", 2) X(floor, "floor", 1)          \
  X(ceil, "ceil", 1) X(round, "round", 1) X(sin, "sin", 1) X(cos, "cos", 1) X(tan, "tan", 1)    \
  X(sign, "sign", 1) X(isnan, "isnan", 1) X(sinh, "sinh", 1) X(cosh, "cosh", 1)                 \
  X(asin, "asin", 1) X(acos, "acos", 1) X(atan, "atan", 1) X(asinh, "asinh", 1)                 \
  X(acosh, "acosh", 1) X(atanh, "atanh", 1)

#define X(name, op, arity) \
  bool mlc_onnx__conv_##name(MlcOnnxNode *n) { return direct(n, op, arity); }
DIRECT_OPS(X)
#undef X

/* ---- attributes picking the op ------------------------------------------------------------ */

bool mlc_onnx__conv_bitshift(MlcOnnxNode *n) {
  const char *dir = mlc_onnx__attr_str(n, "direction", NULL);
  if (!dir) return mlc_onnx__node_fail(n, "attribute 'direction' (LEFT or RIGHT) is missing");
  bool left = strcmp(dir, "LEFT") == 0;
  if (!left && strcmp(dir, "RIGHT") != 0)
    return mlc_onnx__node_fail(n, "direction '%s' is not supported (LEFT or RIGHT)", dir);
  return direct(n, left ? "left_shift" : "right_shift", 2);
}

/* fmod = 0: the divisor's sign (integers); 1: the dividend's, like C's fmod */
bool mlc_onnx__conv_mod(MlcOnnxNode *n) {
  int64_t fmod;
  if (!mlc_onnx__attr_int(n, "fmod", 0, &fmod)) return false;
  return direct(n, fmod ? "mod" : "floor_mod", 2);
}

bool mlc_onnx__conv_isinf(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t pos, neg;
  if (!x || !mlc_onnx__attr_int(n, "detect_positive", 1, &pos) || !mlc_onnx__attr_int(n, "detect_negative", 1, &neg))
    return false;
  MlcDType t = mlc_onnx__dtype_of(x);
  if (!mlc_dtype_is_float(t)) {
    char buf[32];
    return mlc_onnx__node_fail(n, "input must be a float tensor, not %s", mlc_dtype_str(t, buf));
  }
  if (pos && neg) return set_out(n, mlc_onnx__emit1(n, "isinf", x));
  if (pos || neg) return set_out(n, mlc_onnx__emit2(n, "equal", x, k(n, x, pos ? INFINITY : -INFINITY)));
  return set_out(n, mlc_onnx__emit2(n, "less", x, x)); /* never true, NaN included */
}

/* ---- reductions and scans ------------------------------------------------------------------ */

static MlcGExpr *where(MlcOnnxNode *n, MlcGExpr *c, MlcGExpr *t, MlcGExpr *f) {
  MlcGExpr *args[3] = {c, t, f};
  return c && t && f ? mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}) : NULL;
}

static bool is_known(const MlcOnnxNode *n, int i) {
  return i < n->n_in && n->in[i] && (n->known_in[i] || n->in[i]->kind == MLC_G_CONST);
}

static MlcGExpr *cumsum_along(MlcOnnxNode *n, MlcGExpr *x, int64_t axis, bool exclusive, bool reverse) {
  MlcAttr a[3] = {attr("axis", mlc_onnx__av_int(axis)), attr("exclusive", av_bool(exclusive)),
                  attr("reverse", av_bool(reverse))};
  return mlc_onnx__emit_attrs(n, "cumsum", &x, 1, 3, a);
}

/* The axis is a second input.  Known at compile time, it is an attribute
 * of one cumsum; computed at run time, the result is the same shape along
 * any axis, so each axis gets its cumsum and the axis value picks one
 * (a rank-1 input has one axis to pick). */
bool mlc_onnx__conv_cumsum(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *ax = mlc_onnx__input(n, 1);
  int64_t axis, exclusive, reverse;
  int na, rank = x ? mlc_onnx__rank(x) : -1;
  if (!x || !ax || !mlc_onnx__attr_int(n, "exclusive", 0, &exclusive) || !mlc_onnx__attr_int(n, "reverse", 0, &reverse))
    return false;
  if (is_known(n, 1) || rank == 1) {
    if (rank == 1) axis = 0;
    else if (!mlc_onnx__known_ints(n, 1, &axis, 1, &na)) return false;
    else if (na != 1) return mlc_onnx__node_fail(n, "input 1 (axis) must hold one value, has %d", na);
    return set_out(n, cumsum_along(n, x, axis, exclusive != 0, reverse != 0));
  }
  if (rank < 1 || rank > 4) return mlc_onnx__node_fail(n, "a run-time axis with input rank %d is not supported", rank);
  MlcGExpr *y = cumsum_along(n, x, rank - 1, exclusive != 0, reverse != 0);
  for (int d = rank - 2; d >= 0 && y; d--) {
    MlcGExpr *pos = mlc_onnx__emit2(n, "equal", ax, mlc_onnx__scalar_like(n, ax, d));
    MlcGExpr *neg = mlc_onnx__emit2(n, "equal", ax, mlc_onnx__scalar_like(n, ax, d - rank));
    y = where(n, mlc_onnx__emit2(n, "logical_or", pos, neg), cumsum_along(n, x, d, exclusive != 0, reverse != 0), y);
  }
  return set_out(n, y);
}

/* column - row of an r x c matrix, as an int64 constant */
static MlcGExpr *diagonal_offsets(MlcOnnxNode *n, int64_t r, int64_t c) {
  MlcCtx *ctx = n->im->ctx;
  MlcTensorData *d = mlc_onnx__i64s(ctx, NULL, 0);
  d->ndim = 2;
  d->shape = mlc_arena_array(&ctx->arena, 2, sizeof(int64_t));
  d->shape[0] = r, d->shape[1] = c;
  d->nbytes = (size_t)(r * c) * sizeof(int64_t);
  d->data = mlc_arena_alloc(&ctx->arena, d->nbytes ? d->nbytes : 1);
  for (int64_t i = 0; i < r; i++)
    for (int64_t j = 0; j < c; j++) ((int64_t *)d->data)[i * c + j] = j - i;
  return mlc_g_const(ctx, d);
}

/* k computed at run time: compare a constant offsets matrix with it */
static bool trilu_runtime_k(MlcOnnxNode *n, MlcGExpr *x, bool upper) {
  int rank = mlc_onnx__rank(x);
  int64_t r, c;
  if (rank < 2 || !mlc_onnx__const_dim(x, rank - 2, &r) || !mlc_onnx__const_dim(x, rank - 1, &c) || r * c > (1 << 24))
    return mlc_onnx__node_fail(n, "a run-time k with symbolic, huge or missing matrix dims is not supported");
  MlcGExpr *kk = n->in[1];
  if (!mlc_dtype_eq(mlc_onnx__dtype_of(kk), MLC_I64_T)) return mlc_onnx__node_fail(n, "input 1 (k) must be int64");
  MlcGExpr *mask = mlc_onnx__emit2(n, upper ? "greater_equal" : "less_equal", diagonal_offsets(n, r, c), kk);
  return set_out(n, where(n, mask, x, k(n, x, 0)));
}


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

/* axes: an attribute before opset 18, an input from it; none reduces all
 * (or nothing, with noop_with_empty_axes) */
bool mlc_onnx__conv_reduce_prod(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t axes[MAX_RANK], keep, noop;
  int na;
  if (!x || !mlc_onnx__ints_attr_or_input(n, "axes", 18, 1, axes, MAX_RANK, &na) ||
      !mlc_onnx__attr_int(n, "keepdims", 1, &keep) || !mlc_onnx__attr_int(n, "noop_with_empty_axes", 0, &noop))
    return false;
  if (na <= 0 && noop) return set_out(n, x);
  MlcAttr a[2] = {attr("keepdims", av_bool(keep != 0)), attr("axis", mlc_onnx__av_ints(n->im->ctx, axes, na))};
  return set_out(n, mlc_onnx__emit_attrs(n, "prod", &x, 1, na > 0 ? 2 : 1, a));
}

bool mlc_onnx__conv_trilu(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t upper, kk = 0;
  int nk;
  if (!x || !mlc_onnx__attr_int(n, "upper", 1, &upper)) return false;
  if (n->n_in > 1 && n->in[1] && !is_known(n, 1)) return trilu_runtime_k(n, x, upper != 0);
  if (!mlc_onnx__known_ints(n, 1, &kk, 1, &nk)) return false;
  if (nk == 0) return mlc_onnx__node_fail(n, "input 1 (k) is empty, expected one value");
  MlcAttr a = attr("k", mlc_onnx__av_int(nk < 0 ? 0 : kk));
  return set_out(n, mlc_onnx__emit_attrs(n, upper ? "triu" : "tril", &x, 1, 1, &a));
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
  if (rank < 1 || rank > MAX_RANK) return mlc_onnx__node_fail(n, "input rank %d is not supported", rank);
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

/* ---- activations --------------------------------------------------------------------------- */


/* x + bias below -lambd, x - bias above lambd, 0 between */
bool mlc_onnx__conv_shrink(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  double lambd, bias;
  if (!x || !mlc_onnx__attr_float(n, "lambd", 0.5, &lambd) || !mlc_onnx__attr_float(n, "bias", 0.0, &bias)) return false;
  MlcGExpr *hi = where(n, mlc_onnx__emit2(n, "greater", x, k(n, x, lambd)), mlc_onnx__emit2(n, "subtract", x, k(n, x, bias)),
                       k(n, x, 0));
  return set_out(n, where(n, mlc_onnx__emit2(n, "less", x, k(n, x, -lambd)), mlc_onnx__emit2(n, "add", x, k(n, x, bias)), hi));
}

bool mlc_onnx__conv_thresholded_relu(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  double alpha;
  if (!x || !mlc_onnx__attr_float(n, "alpha", 1.0, &alpha)) return false;
  return set_out(n, where(n, mlc_onnx__emit2(n, "greater", x, k(n, x, alpha)), x, k(n, x, 0)));
}

/* max(0, x) + min(0, alpha (exp(x / alpha) - 1)) */
bool mlc_onnx__conv_celu(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  double alpha;
  if (!x || !mlc_onnx__attr_float(n, "alpha", 1.0, &alpha)) return false;
  if (alpha == 0) return mlc_onnx__node_fail(n, "alpha must not be 0");
  MlcGExpr *e = mlc_onnx__emit1(n, "exp", mlc_onnx__emit2(n, "divide", x, k(n, x, alpha)));
  MlcGExpr *neg = mlc_onnx__emit2(n, "multiply", mlc_onnx__emit2(n, "subtract", e, k(n, x, 1)), k(n, x, alpha));
  MlcGExpr *lo = mlc_onnx__emit2(n, "minimum", neg, k(n, x, 0));
  return set_out(n, mlc_onnx__emit2(n, "add", mlc_onnx__emit2(n, "maximum", x, k(n, x, 0)), lo));
}

/* x tanh(softplus(x)) */
bool mlc_onnx__conv_mish(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  if (!x) return false;
  MlcGExpr *sp = mlc_onnx__emit1(n, "log", mlc_onnx__emit2(n, "add", mlc_onnx__emit1(n, "exp", x), k(n, x, 1)));
  return set_out(n, mlc_onnx__emit2(n, "multiply", x, mlc_onnx__emit1(n, "tanh", sp)));
}

/* x / (1 + |x|) */
bool mlc_onnx__conv_softsign(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  if (!x) return false;
  MlcGExpr *den = mlc_onnx__emit2(n, "add", mlc_onnx__emit1(n, "abs", x), k(n, x, 1));
  return set_out(n, mlc_onnx__emit2(n, "divide", x, den));
}

/* x sigmoid(alpha x) */
bool mlc_onnx__conv_swish(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  double alpha;
  if (!x || !mlc_onnx__attr_float(n, "alpha", 1.0, &alpha)) return false;
  MlcGExpr *s = mlc_onnx__emit1(n, "sigmoid", mlc_onnx__emit2(n, "multiply", x, k(n, x, alpha)));
  return set_out(n, mlc_onnx__emit2(n, "multiply", x, s));
}
