/* elemwise.c - elementwise ops: binary arithmetic and comparisons under
 * numpy broadcasting, where, the unary math and activation functions, clip,
 * astype, and the creation ops full / zeros / ones.
 *
 * One TE function serves each family; the op's name picks the scalar
 * function from a table, so adding an op of an existing family is one line
 * in ops.def and one here.  Activations are written with the TIR's own math
 * intrinsics (relu = max(x, 0), gelu = 0.5x(1 + erf(x/sqrt 2)),
 * silu = x * sigmoid(x)), which the interpreter and the C generator share. */
#include <string.h>

#include "ops/op_internal.h"

/* the op's name without its namespace, for the output compute: "relu" */
static const char *out_name(MlcCtx *ctx, const MlcOpArgs *a) {
  const char *dot = strrchr(a->op->name, '.');
  return mlc_intern(ctx, dot ? dot + 1 : a->op->name);
}

static const char *dt_str(MlcCtx *ctx, MlcDType t) {
  char buf[32];
  return mlc_intern(ctx, mlc_dtype_str(t, buf));
}

/* ======================================================================== */
/* struct info                                                              */
/* ======================================================================== */

/* x1 and x2 as tensors of one known dtype */
static bool binary_operands(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo **x1, const MlcSInfo **x2) {
  if (!(*x1 = mlc_op_tensor(ctx, a, 0, true)) || !(*x2 = mlc_op_tensor(ctx, a, 1, true))) return false;
  if (!mlc_dtype_eq((*x1)->tensor.dtype, (*x2)->tensor.dtype))
    return mlc_op_fail(ctx, a, "dtypes differ: x1 is %s, x2 is %s", dt_str(ctx, (*x1)->tensor.dtype),
                       dt_str(ctx, (*x2)->tensor.dtype));
  return true;
}

MlcSInfo *mlc_op_infer_broadcast(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x1, *x2;
  if (!binary_operands(ctx, a, &x1, &x2)) return NULL;
  return mlc_op_broadcast_sinfo(ctx, a, x1, x2, x1->tensor.dtype);
}

MlcSInfo *mlc_op_infer_compare(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x1, *x2;
  if (!binary_operands(ctx, a, &x1, &x2)) return NULL;
  return mlc_op_broadcast_sinfo(ctx, a, x1, x2, MLC_BOOL);
}

MlcSInfo *mlc_op_infer_where(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *c = mlc_op_tensor(ctx, a, 0, true), *x1, *x2;
  if (!c) return NULL;
  if (!mlc_dtype_eq(c->tensor.dtype, MLC_BOOL))
    return mlc_op_fail(ctx, a, "condition: expected a bool tensor, got %s", dt_str(ctx, c->tensor.dtype)),
           NULL;
  MlcOpArgs values = *a; /* x1, x2 at positions 0, 1 for the shared checks */
  values.val[0] = a->val[1], values.val[1] = a->val[2];
  if (!binary_operands(ctx, &values, &x1, &x2)) return NULL;
  MlcSInfo *cx = mlc_op_broadcast_sinfo(ctx, a, c, x1, x1->tensor.dtype);
  return cx ? mlc_op_broadcast_sinfo(ctx, a, cx, x2, x1->tensor.dtype) : NULL;
}

/* clip's bounds are numbers; the other unary ops have no attributes */
MlcSInfo *mlc_op_infer_unary(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, false);
  if (!x) return NULL;
  double lo, hi;
  if (mlc_op_param(a, "min") >= 0) {
    if (!mlc_op_attr_float(ctx, a, "min", 0, &lo) || !mlc_op_attr_float(ctx, a, "max", 0, &hi)) return NULL;
    if (lo > hi) return mlc_op_fail(ctx, a, "min %g is greater than max %g", lo, hi), NULL;
  }
  return a->val[0]->sinfo;
}

/* also the struct info of softmax-like ops, whose axis is checked here */
MlcSInfo *mlc_op_infer_unary_float(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true);
  if (!x) return NULL;
  if (!mlc_dtype_is_float(x->tensor.dtype))
    return mlc_op_fail(ctx, a, "expected a float tensor, got %s", dt_str(ctx, x->tensor.dtype)), NULL;
  int64_t axis;
  int ax;
  if (mlc_op_param(a, "axis") >= 0 &&
      (!mlc_op_attr_int(ctx, a, "axis", -1, &axis) || !mlc_op_axis(ctx, a, axis, x->tensor.ndim, &ax)))
    return NULL;
  return a->val[0]->sinfo;
}

MlcSInfo *mlc_op_infer_astype(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, false);
  MlcDType t;
  bool present;
  if (!x || !mlc_op_attr_dtype(ctx, a, "dtype", &t, &present)) return NULL;
  if (!present) return mlc_op_fail(ctx, a, "dtype: expected a dtype such as \"float32\""), NULL;
  return mlc_op_tensor_sinfo(ctx, x->tensor.shape, x->tensor.ndim, t);
}

/* bitcast: x's elements' bits read as dtype, which takes as many bytes */
MlcSInfo *mlc_op_infer_bitcast(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, false);
  MlcDType t, f;
  bool present;
  char bf[32], bt[32];
  if (!x || !mlc_op_attr_dtype(ctx, a, "dtype", &t, &present)) return NULL;
  if (!present) return mlc_op_fail(ctx, a, "dtype: expected a dtype such as \"int32\""), NULL;
  f = x->tensor.dtype;
  if (f.code != MLC_TC_VOID && (mlc_dtype_bytes(f) != mlc_dtype_bytes(t) || (f.bits < 8 && f.code != MLC_TC_BOOL) ||
                                (t.bits < 8 && t.code != MLC_TC_BOOL) || t.lanes != 1 || f.lanes != 1))
    return mlc_op_fail(ctx, a, "cannot read %s as %s: a bitcast needs two dtypes of one byte size",
                       mlc_dtype_str(f, bf), mlc_dtype_str(t, bt)), NULL;
  return mlc_op_tensor_sinfo(ctx, x->tensor.shape, x->tensor.ndim, t);
}

/* full's dtype defaults to its fill value's kind; zeros / ones need one */
static bool full_dtype(MlcCtx *ctx, const MlcOpArgs *a, MlcDType *t) {
  bool present;
  if (!mlc_op_attr_dtype(ctx, a, "dtype", t, &present)) return false;
  if (present) return true;
  int i = mlc_op_param(a, "fill_value");
  const MlcAttrValue *v = i >= 0 ? a->attr[i] : NULL;
  if (!v) return mlc_op_fail(ctx, a, "dtype: expected a dtype such as \"float32\"");
  *t = v->kind == MLC_ATTR_FLOAT ? MLC_F32 : v->kind == MLC_ATTR_BOOL ? MLC_BOOL : MLC_I32;
  return true;
}

static bool fill_value(MlcCtx *ctx, const MlcOpArgs *a, double *v) {
  if (mlc_op_param(a, "fill_value") >= 0) return mlc_op_attr_float(ctx, a, "fill_value", 0, v);
  *v = strcmp(a->op->name, "ones") == 0;
  return true;
}

MlcSInfo *mlc_op_infer_full(MlcCtx *ctx, const MlcOpArgs *a) {
  MlcExpr **shape;
  int n;
  MlcDType t;
  double v;
  if (!mlc_op_attr_shape(ctx, a, "shape", &shape, &n) || !fill_value(ctx, a, &v) || !full_dtype(ctx, a, &t))
    return NULL;
  return mlc_op_tensor_sinfo(ctx, shape, n, t);
}

/* ======================================================================== */
/* tensor expressions                                                       */
/* ======================================================================== */

static bool one_out(MlcTeTensor *t, MlcTeTensor **outs, int *n_outs) {
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}

/* out = f(inputs read under broadcasting), over the broadcast shape */
typedef MlcExpr *(*CombineFn)(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr **vals);

static bool broadcast_compute(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **ins, int n_in,
                              CombineFn f, MlcTeTensor **outs, int *n_outs) {
  MlcExpr **shape = ins[0]->shape;
  int n = ins[0]->ndim;
  for (int i = 1; i < n_in; i++)
    if (!mlc_op_broadcast_shapes(ctx, a, shape, n, ins[i]->shape, ins[i]->ndim, &shape, &n)) return false;
  MlcExpr **axes = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *axes);
  MlcExpr *vals[3];
  mlc_op_axes(ctx, n, axes);
  for (int i = 0; i < n_in; i++) vals[i] = mlc_op_read_broadcast(ctx, ins[i], axes, n);
  MlcExpr *body = f(ctx, a, vals);
  return body && one_out(mlc_te_compute(ctx, out_name(ctx, a), shape, n, axes, body), outs, n_outs);
}

#define BINARY_OPS(X)                                                             \
  X("add", ADD) X("subtract", SUB) X("multiply", MUL) X("divide", DIV)            \
  X("maximum", MAX) X("minimum", MIN) X("equal", EQ) X("not_equal", NE)           \
  X("less", LT) X("less_equal", LE) X("greater", GT) X("greater_equal", GE)

static const struct { const char *name; MlcBinOp op; } binary_ops[] = {
#define X(name, op) {name, MLC_BIN_##op},
    BINARY_OPS(X)
#undef X
};

/* pow has no integer form in the TIR: integers go through float64 */
static MlcExpr *power(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) {
  MlcDType t = x->dtype;
  bool wide = !mlc_dtype_is_float(t);
  MlcExpr *args[2] = {wide ? mlc_e_cast(ctx, MLC_F64, x) : x, wide ? mlc_e_cast(ctx, MLC_F64, y) : y};
  MlcExpr *r = mlc_e_call(ctx, MLC_INTRIN_POW, args, 2);
  return wide ? mlc_e_cast(ctx, t, r) : r;
}

static MlcExpr *binary_body(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr **v) {
  if (strcmp(a->op->name, "power") == 0) return power(ctx, v[0], v[1]);
  for (size_t i = 0; i < sizeof binary_ops / sizeof *binary_ops; i++)
    if (strcmp(binary_ops[i].name, a->op->name) == 0) return mlc_e_bin(ctx, binary_ops[i].op, v[0], v[1]);
  mlc_op_fail(ctx, a, "has no binary definition");
  return NULL;
}

bool mlc_op_te_binary(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **ins, int n_in, MlcTeTensor **outs,
                      int *n_outs) {
  return broadcast_compute(ctx, a, ins, 2, binary_body, outs, n_outs);
}

static MlcExpr *where_body(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr **v) {
  return mlc_e_select(ctx, v[0], v[1], v[2]);
}

bool mlc_op_te_where(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **ins, int n_in, MlcTeTensor **outs,
                     int *n_outs) {
  return broadcast_compute(ctx, a, ins, 3, where_body, outs, n_outs);
}

/* ---- unary --------------------------------------------------------------------- */

static MlcExpr *intrin1(MlcCtx *ctx, MlcIntrin op, MlcExpr *x) { return mlc_e_call(ctx, op, &x, 1); }

static MlcExpr *k(MlcCtx *ctx, MlcExpr *like, double v) { return mlc_op_const(ctx, like->dtype, v); }

static MlcExpr *u_negative(MlcCtx *ctx, MlcExpr *x) {
  return mlc_dtype_is_float(x->dtype) ? mlc_e_neg(ctx, x) : mlc_e_bin(ctx, MLC_BIN_SUB, k(ctx, x, 0), x);
}

static MlcExpr *u_abs(MlcCtx *ctx, MlcExpr *x) {
  if (mlc_dtype_is_float(x->dtype)) return intrin1(ctx, MLC_INTRIN_FABS, x);
  if (x->dtype.code != MLC_TC_INT) return x; /* unsigned and bool are their own magnitude */
  return mlc_e_select(ctx, mlc_e_bin(ctx, MLC_BIN_LT, x, k(ctx, x, 0)), u_negative(ctx, x), x);
}

static MlcExpr *u_relu(MlcCtx *ctx, MlcExpr *x) { return mlc_e_bin(ctx, MLC_BIN_MAX, x, k(ctx, x, 0)); }

static MlcExpr *u_gelu(MlcCtx *ctx, MlcExpr *x) {
  MlcExpr *e = intrin1(ctx, MLC_INTRIN_ERF, mlc_e_bin(ctx, MLC_BIN_MUL, x, k(ctx, x, 0.70710678118654752440)));
  MlcExpr *half_x = mlc_e_bin(ctx, MLC_BIN_MUL, k(ctx, x, 0.5), x);
  return mlc_e_bin(ctx, MLC_BIN_MUL, half_x, mlc_e_bin(ctx, MLC_BIN_ADD, k(ctx, x, 1), e));
}

static MlcExpr *u_silu(MlcCtx *ctx, MlcExpr *x) {
  return mlc_e_bin(ctx, MLC_BIN_MUL, x, intrin1(ctx, MLC_INTRIN_SIGMOID, x));
}

/* name, the intrinsic it is (or -1), the builder otherwise */
#define UNARY_OPS(X)                                                              \
  X("negative", -1, u_negative) X("abs", -1, u_abs) X("nn.relu", -1, u_relu)     \
  X("nn.gelu", -1, u_gelu) X("nn.silu", -1, u_silu)                               \
  X("exp", MLC_INTRIN_EXP, NULL) X("log", MLC_INTRIN_LOG, NULL)                   \
  X("sqrt", MLC_INTRIN_SQRT, NULL) X("rsqrt", MLC_INTRIN_RSQRT, NULL)             \
  X("tanh", MLC_INTRIN_TANH, NULL) X("sigmoid", MLC_INTRIN_SIGMOID, NULL)         \
  X("erf", MLC_INTRIN_ERF, NULL)

static const struct {
  const char *name;
  int intrin;
  MlcExpr *(*build)(MlcCtx *, MlcExpr *);
} unary_ops[] = {
#define X(name, intrin, build) {name, intrin, build},
    UNARY_OPS(X)
#undef X
};

static MlcExpr *unary_body(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr **v) {
  for (size_t i = 0; i < sizeof unary_ops / sizeof *unary_ops; i++) {
    if (strcmp(unary_ops[i].name, a->op->name) != 0) continue;
    return unary_ops[i].build ? unary_ops[i].build(ctx, v[0]) : intrin1(ctx, (MlcIntrin)unary_ops[i].intrin, v[0]);
  }
  mlc_op_fail(ctx, a, "has no unary definition");
  return NULL;
}

bool mlc_op_te_unary(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **ins, int n_in, MlcTeTensor **outs,
                     int *n_outs) {
  return broadcast_compute(ctx, a, ins, 1, unary_body, outs, n_outs);
}

static MlcExpr *clip_body(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr **v) {
  double lo, hi;
  if (!mlc_op_attr_float(ctx, a, "min", 0, &lo) || !mlc_op_attr_float(ctx, a, "max", 0, &hi)) return NULL;
  MlcExpr *low = mlc_e_bin(ctx, MLC_BIN_MAX, v[0], k(ctx, v[0], lo));
  return mlc_e_bin(ctx, MLC_BIN_MIN, low, k(ctx, v[0], hi));
}

bool mlc_op_te_clip(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **ins, int n_in, MlcTeTensor **outs,
                    int *n_outs) {
  return broadcast_compute(ctx, a, ins, 1, clip_body, outs, n_outs);
}

static MlcExpr *astype_body(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr **v) {
  MlcDType t;
  bool present;
  if (!mlc_op_attr_dtype(ctx, a, "dtype", &t, &present)) return NULL;
  return mlc_e_cast(ctx, t, v[0]);
}

bool mlc_op_te_astype(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **ins, int n_in, MlcTeTensor **outs,
                      int *n_outs) {
  return broadcast_compute(ctx, a, ins, 1, astype_body, outs, n_outs);
}

static MlcExpr *bitcast_body(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr **v) {
  MlcDType t;
  bool present;
  if (!mlc_op_attr_dtype(ctx, a, "dtype", &t, &present)) return NULL;
  return mlc_e_call_typed(ctx, MLC_INTRIN_REINTERPRET, t, v, 1);
}

bool mlc_op_te_bitcast(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **ins, int n_in, MlcTeTensor **outs,
                       int *n_outs) {
  return broadcast_compute(ctx, a, ins, 1, bitcast_body, outs, n_outs);
}

bool mlc_op_te_full(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **ins, int n_in, MlcTeTensor **outs,
                    int *n_outs) {
  MlcExpr **shape;
  int n;
  MlcDType t;
  double v;
  if (!mlc_op_attr_shape(ctx, a, "shape", &shape, &n) || !fill_value(ctx, a, &v) || !full_dtype(ctx, a, &t))
    return false;
  MlcExpr **axes = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *axes);
  mlc_op_axes(ctx, n, axes);
  return one_out(mlc_te_compute(ctx, out_name(ctx, a), shape, n, axes, mlc_op_const(ctx, t, v)), outs, n_outs);
}
