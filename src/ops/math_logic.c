/* math_logic.c - the elementwise ops beyond arithmetic: rounding, sign,
 * trigonometric and hyperbolic functions, NaN / infinity tests, logical and
 * bitwise ops, shifts, and the two remainders (floor_mod, mod).
 *
 * As in elemwise.c, one TE function serves each arity and a table maps the
 * op's name to the builder of its scalar expression.  The TIR has math
 * intrinsics for exp/log/sqrt/sin/cos but none for the inverse trigonometric
 * functions or for bit operations, so those are composed here from what it
 * has, which keeps the interpreter and every code generator unchanged:
 * atan is a cheap rational guess refined by one Newton step on
 * sin(y) - r cos(y) (cubic convergence there, so float precision after one
 * step); bit ops split each operand into its bits with floordiv/floormod in
 * int64 (two's complement comes out of floor division on negatives) and put
 * the combined bits back together; shifts multiply or divide by a power of
 * two built from the shift amount's bits.  Nothing here can overflow a signed
 * type: products that may wrap are done in uint64. */
#include <math.h>
#include <string.h>

#include "ops/op_internal.h"

#define PI 3.14159265358979323846

static const char *dt_str(MlcCtx *ctx, MlcDType t) {
  char buf[32];
  return mlc_intern(ctx, mlc_dtype_str(t, buf));
}

/* ======================================================================== */
/* struct info                                                              */
/* ======================================================================== */

typedef bool (*DTypeOk)(MlcDType t);

static bool is_bool(MlcDType t) { return t.code == MLC_TC_BOOL; }
static bool is_int(MlcDType t) { return mlc_dtype_is_int(t); }
static bool is_float(MlcDType t) { return mlc_dtype_is_float(t); }

/* tensor parameter i with a known dtype that `ok` accepts ("a bool tensor") */
static const MlcSInfo *operand(MlcCtx *ctx, const MlcOpArgs *a, int i, DTypeOk ok, const char *what) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, i, true);
  if (x && !ok(x->tensor.dtype))
    return mlc_op_fail(ctx, a, "expected %s, got %s", what, dt_str(ctx, x->tensor.dtype)), NULL;
  return x;
}

/* the op's one or two operands of one accepted dtype, broadcast, as dtype
 * `out` (void: the operands' dtype) */
static MlcSInfo *infer_checked(MlcCtx *ctx, const MlcOpArgs *a, DTypeOk ok, const char *what, MlcDType out) {
  const MlcSInfo *x = operand(ctx, a, 0, ok, what);
  if (!x) return NULL;
  MlcDType t = out.code == MLC_TC_VOID ? x->tensor.dtype : out;
  if (mlc_op_param(a, "x2") < 0) return mlc_op_tensor_sinfo(ctx, x->tensor.shape, x->tensor.ndim, t);
  const MlcSInfo *y = operand(ctx, a, 1, ok, what);
  if (!y) return NULL;
  if (!mlc_dtype_eq(x->tensor.dtype, y->tensor.dtype))
    return mlc_op_fail(ctx, a, "dtypes differ: x1 is %s, x2 is %s", dt_str(ctx, x->tensor.dtype),
                       dt_str(ctx, y->tensor.dtype)),
           NULL;
  return mlc_op_broadcast_sinfo(ctx, a, x, y, t);
}

MlcSInfo *mlc_op_infer_to_bool(MlcCtx *ctx, const MlcOpArgs *a) {
  return infer_checked(ctx, a, is_float, "a float tensor", MLC_BOOL);
}

MlcSInfo *mlc_op_infer_logical(MlcCtx *ctx, const MlcOpArgs *a) {
  return infer_checked(ctx, a, is_bool, "a bool tensor", MLC_BOOL);
}

MlcSInfo *mlc_op_infer_unary_int(MlcCtx *ctx, const MlcOpArgs *a) {
  return infer_checked(ctx, a, is_int, "an integer tensor", MLC_VOID);
}

MlcSInfo *mlc_op_infer_broadcast_int(MlcCtx *ctx, const MlcOpArgs *a) {
  return infer_checked(ctx, a, is_int, "an integer tensor", MLC_VOID);
}

/* ======================================================================== */
/* scalar builders                                                          */
/* ======================================================================== */

static MlcExpr *k(MlcCtx *ctx, const MlcExpr *like, double v) { return mlc_op_const(ctx, like->dtype, v); }
static MlcExpr *i64(MlcCtx *ctx, int64_t v) { return mlc_e_int(ctx, MLC_I64, v); }
static MlcExpr *bin(MlcCtx *ctx, MlcBinOp op, MlcExpr *x, MlcExpr *y) { return mlc_e_bin(ctx, op, x, y); }
static MlcExpr *add(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) { return bin(ctx, MLC_BIN_ADD, x, y); }
static MlcExpr *sub(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) { return bin(ctx, MLC_BIN_SUB, x, y); }
static MlcExpr *mul(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) { return bin(ctx, MLC_BIN_MUL, x, y); }
static MlcExpr *dvd(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) { return bin(ctx, MLC_BIN_DIV, x, y); }
static MlcExpr *call1(MlcCtx *ctx, MlcIntrin op, MlcExpr *x) { return mlc_e_call(ctx, op, &x, 1); }
static MlcExpr *u_neg_float(MlcCtx *ctx, MlcExpr *x) { return mlc_e_neg(ctx, x); }

/* ---- rounding, sign ---------------------------------------------------------------- */

/* integers are already whole: floor / ceil / round of one is itself */
static MlcExpr *whole(MlcCtx *ctx, MlcIntrin op, MlcExpr *x) {
  return mlc_dtype_is_float(x->dtype) ? call1(ctx, op, x) : x;
}
static MlcExpr *u_floor(MlcCtx *ctx, MlcExpr *x) { return whole(ctx, MLC_INTRIN_FLOOR, x); }
static MlcExpr *u_ceil(MlcCtx *ctx, MlcExpr *x) { return whole(ctx, MLC_INTRIN_CEIL, x); }
/* the intrinsic rounds half to even, as ONNX's Round does */
static MlcExpr *u_round(MlcCtx *ctx, MlcExpr *x) { return whole(ctx, MLC_INTRIN_ROUND, x); }

/* -1 / 0 / 1; a float NaN or -0 falls through to x itself */
static MlcExpr *u_sign(MlcCtx *ctx, MlcExpr *x) {
  if (x->dtype.code == MLC_TC_BOOL) return x;
  MlcExpr *pos = bin(ctx, MLC_BIN_GT, x, k(ctx, x, 0));
  if (x->dtype.code == MLC_TC_UINT) return mlc_e_select(ctx, pos, k(ctx, x, 1), k(ctx, x, 0));
  MlcExpr *neg = mlc_e_select(ctx, bin(ctx, MLC_BIN_LT, x, k(ctx, x, 0)), k(ctx, x, -1), x);
  return mlc_e_select(ctx, pos, k(ctx, x, 1), neg);
}

/* ---- trigonometric and hyperbolic ---------------------------------------------------- */

static MlcExpr *u_sin(MlcCtx *ctx, MlcExpr *x) { return call1(ctx, MLC_INTRIN_SIN, x); }
static MlcExpr *u_cos(MlcCtx *ctx, MlcExpr *x) { return call1(ctx, MLC_INTRIN_COS, x); }
static MlcExpr *u_tan(MlcCtx *ctx, MlcExpr *x) { return dvd(ctx, u_sin(ctx, x), u_cos(ctx, x)); }

/* atan(r) for |r| <= 1: pi/4 r - r(|r| - 1)(0.2447 + 0.0663|r|) is within
 * 0.0015 of it; one Newton step on f(y) = sin y - r cos y (f' = cos y +
 * r sin y >= 0.7 on this range, f'' = -f vanishes at the root) leaves an
 * error far below float32's resolution */
static MlcExpr *atan_unit(MlcCtx *ctx, MlcExpr *r) {
  MlcExpr *m = call1(ctx, MLC_INTRIN_FABS, r);
  MlcExpr *corr = mul(ctx, mul(ctx, r, sub(ctx, m, k(ctx, r, 1))), add(ctx, k(ctx, r, 0.2447), mul(ctx, k(ctx, r, 0.0663), m)));
  MlcExpr *y = sub(ctx, mul(ctx, k(ctx, r, PI / 4), r), corr);
  MlcExpr *s = u_sin(ctx, y), *c = u_cos(ctx, y);
  MlcExpr *f = sub(ctx, s, mul(ctx, r, c)), *df = add(ctx, c, mul(ctx, r, s));
  return sub(ctx, y, dvd(ctx, f, df));
}

/* |x| > 1: sign(x) pi/2 - atan(1/x), so that infinities give +-pi/2 */
static MlcExpr *u_atan(MlcCtx *ctx, MlcExpr *x) {
  MlcExpr *big = bin(ctx, MLC_BIN_GT, call1(ctx, MLC_INTRIN_FABS, x), k(ctx, x, 1));
  MlcExpr *inv = dvd(ctx, k(ctx, x, 1), x);
  MlcExpr *y = atan_unit(ctx, mlc_e_select(ctx, big, inv, x));
  MlcExpr *half_pi = mlc_e_select(ctx, bin(ctx, MLC_BIN_LT, x, k(ctx, x, 0)), k(ctx, x, -PI / 2), k(ctx, x, PI / 2));
  return mlc_e_select(ctx, big, sub(ctx, half_pi, y), y);
}

/* atan(x / sqrt(1 - x^2)); |x| = 1 divides by zero into +-inf, which atan
 * maps to +-pi/2; |x| > 1 takes sqrt of a negative into NaN */
static MlcExpr *u_asin(MlcCtx *ctx, MlcExpr *x) {
  MlcExpr *c = call1(ctx, MLC_INTRIN_SQRT, sub(ctx, k(ctx, x, 1), mul(ctx, x, x)));
  return u_atan(ctx, dvd(ctx, x, c));
}

static MlcExpr *u_acos(MlcCtx *ctx, MlcExpr *x) { return sub(ctx, k(ctx, x, PI / 2), u_asin(ctx, x)); }

static MlcExpr *u_sinh(MlcCtx *ctx, MlcExpr *x) {
  MlcExpr *d = sub(ctx, call1(ctx, MLC_INTRIN_EXP, x), call1(ctx, MLC_INTRIN_EXP, u_neg_float(ctx, x)));
  return mul(ctx, d, k(ctx, x, 0.5));
}

static MlcExpr *u_cosh(MlcCtx *ctx, MlcExpr *x) {
  MlcExpr *s = add(ctx, call1(ctx, MLC_INTRIN_EXP, x), call1(ctx, MLC_INTRIN_EXP, u_neg_float(ctx, x)));
  return mul(ctx, s, k(ctx, x, 0.5));
}

/* sign(x) log(|x| + sqrt(x^2 + 1)): the odd form keeps negatives accurate */
static MlcExpr *u_asinh(MlcCtx *ctx, MlcExpr *x) {
  MlcExpr *m = call1(ctx, MLC_INTRIN_FABS, x);
  MlcExpr *r = call1(ctx, MLC_INTRIN_SQRT, add(ctx, mul(ctx, x, x), k(ctx, x, 1)));
  MlcExpr *l = call1(ctx, MLC_INTRIN_LOG, add(ctx, m, r));
  return mlc_e_select(ctx, bin(ctx, MLC_BIN_LT, x, k(ctx, x, 0)), u_neg_float(ctx, l), l);
}

static MlcExpr *u_acosh(MlcCtx *ctx, MlcExpr *x) {
  MlcExpr *r = call1(ctx, MLC_INTRIN_SQRT, sub(ctx, mul(ctx, x, x), k(ctx, x, 1)));
  return call1(ctx, MLC_INTRIN_LOG, add(ctx, x, r));
}

static MlcExpr *u_atanh(MlcCtx *ctx, MlcExpr *x) {
  MlcExpr *q = dvd(ctx, add(ctx, k(ctx, x, 1), x), sub(ctx, k(ctx, x, 1), x));
  return mul(ctx, call1(ctx, MLC_INTRIN_LOG, q), k(ctx, x, 0.5));
}

/* ---- NaN / infinity, logic --------------------------------------------------------- */

/* NaN is the one value unequal to itself */
static MlcExpr *u_isnan(MlcCtx *ctx, MlcExpr *x) { return bin(ctx, MLC_BIN_NE, x, x); }

static MlcExpr *u_isinf(MlcCtx *ctx, MlcExpr *x) {
  return bin(ctx, MLC_BIN_EQ, call1(ctx, MLC_INTRIN_FABS, x), k(ctx, x, INFINITY));
}

static MlcExpr *u_logical_not(MlcCtx *ctx, MlcExpr *x) { return mlc_e_not(ctx, x); }
static MlcExpr *b_logical_and(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) { return bin(ctx, MLC_BIN_AND, x, y); }
static MlcExpr *b_logical_or(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) { return bin(ctx, MLC_BIN_OR, x, y); }
static MlcExpr *b_logical_xor(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) { return bin(ctx, MLC_BIN_NE, x, y); }

/* ---- bits ------------------------------------------------------------------------------ */

/* bit i (0 or 1, int64) of s, x's value sign-extended to int64; bit 63 is
 * the sign, which has no positive power of two to divide by */
static MlcExpr *bit(MlcCtx *ctx, MlcExpr *s, int i) {
  if (i == 63) return mlc_e_select(ctx, bin(ctx, MLC_BIN_LT, s, i64(ctx, 0)), i64(ctx, 1), i64(ctx, 0));
  MlcExpr *q = i == 0 ? s : bin(ctx, MLC_BIN_FLOORDIV, s, i64(ctx, INT64_C(1) << i));
  return bin(ctx, MLC_BIN_FLOORMOD, q, i64(ctx, 2));
}

typedef MlcExpr *(*BitFn)(MlcCtx *ctx, MlcExpr *p, MlcExpr *q);

static MlcExpr *bit_and(MlcCtx *ctx, MlcExpr *p, MlcExpr *q) { return mul(ctx, p, q); }
static MlcExpr *bit_or(MlcCtx *ctx, MlcExpr *p, MlcExpr *q) { return bin(ctx, MLC_BIN_MAX, p, q); }
static MlcExpr *bit_xor(MlcCtx *ctx, MlcExpr *p, MlcExpr *q) { return bin(ctx, MLC_BIN_NE, p, q); }

/* x op y bit by bit: the sum of combined bits times their weights fits in
 * int64 without overflow (bit 63 adds INT64_MIN to a non-negative sum), and
 * the final cast keeps the low bits, which is the result at x's width */
static MlcExpr *bitwise(MlcCtx *ctx, MlcExpr *x, MlcExpr *y, BitFn f) {
  MlcDType t = x->dtype;
  MlcExpr *s = mlc_e_cast(ctx, MLC_I64, x), *r = mlc_e_cast(ctx, MLC_I64, y), *acc = i64(ctx, 0);
  for (int i = 0; i < t.bits; i++) {
    MlcExpr *b = f(ctx, bit(ctx, s, i), bit(ctx, r, i));
    if (b->dtype.code == MLC_TC_BOOL) b = mlc_e_cast(ctx, MLC_I64, b);
    MlcExpr *w = i == 63 ? mlc_e_select(ctx, bin(ctx, MLC_BIN_NE, b, i64(ctx, 0)), i64(ctx, INT64_MIN), i64(ctx, 0))
                         : mul(ctx, b, i64(ctx, INT64_C(1) << i));
    acc = add(ctx, acc, w);
  }
  return mlc_e_cast(ctx, t, acc);
}

static MlcExpr *b_bitwise_and(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) { return bitwise(ctx, x, y, bit_and); }
static MlcExpr *b_bitwise_or(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) { return bitwise(ctx, x, y, bit_or); }
static MlcExpr *b_bitwise_xor(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) { return bitwise(ctx, x, y, bit_xor); }

/* ~x = -1 - x in two's complement; in int64 that cannot overflow */
static MlcExpr *u_bitwise_not(MlcCtx *ctx, MlcExpr *x) {
  return mlc_e_cast(ctx, x->dtype, sub(ctx, i64(ctx, -1), mlc_e_cast(ctx, MLC_I64, x)));
}

#define U64 MLC_DT(MLC_TC_UINT, 64, 1)

/* 2^n as uint64 for 0 <= n < 64, from n's six low bits; n's higher bits
 * (and negative n, seen as huge) are the caller's business */
static MlcExpr *pow2(MlcCtx *ctx, MlcExpr *n) {
  MlcExpr *s = mlc_e_cast(ctx, MLC_I64, n), *p = mlc_e_int(ctx, U64, 1);
  for (int j = 0; j < 6; j++) {
    MlcExpr *f = mlc_e_int(ctx, U64, INT64_C(1) << (1 << j));
    MlcExpr *on = bin(ctx, MLC_BIN_NE, bit(ctx, s, j), i64(ctx, 0));
    p = mul(ctx, p, mlc_e_select(ctx, on, f, mlc_e_int(ctx, U64, 1)));
  }
  return p;
}

/* the shift amount y moves every bit out (negative y counts as huge); a
 * signed right shift is decided by the sign alone from width - 1 on, which
 * also keeps its power of two below 2^63 */
static MlcExpr *shift_out(MlcCtx *ctx, MlcExpr *x, MlcExpr *y, bool sgn) {
  int limit = x->dtype.bits - (sgn ? 1 : 0);
  return bin(ctx, MLC_BIN_GE, mlc_e_cast(ctx, U64, y), mlc_e_int(ctx, U64, limit));
}

/* x * 2^y in uint64, which wraps by definition; the cast keeps x's width */
static MlcExpr *b_left_shift(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) {
  MlcExpr *v = mlc_e_cast(ctx, x->dtype, mul(ctx, mlc_e_cast(ctx, U64, x), pow2(ctx, y)));
  return mlc_e_select(ctx, shift_out(ctx, x, y, false), k(ctx, x, 0), v);
}

/* unsigned: x / 2^y; signed: floor(x / 2^y), the arithmetic shift, which
 * saturates at -1 for negatives shifted out */
static MlcExpr *b_right_shift(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) {
  bool sgn = x->dtype.code == MLC_TC_INT;
  MlcExpr *wide = mlc_e_cast(ctx, sgn ? MLC_I64 : U64, x), *p = pow2(ctx, y);
  if (sgn) p = mlc_e_cast(ctx, MLC_I64, p);
  MlcExpr *v = mlc_e_cast(ctx, x->dtype, bin(ctx, sgn ? MLC_BIN_FLOORDIV : MLC_BIN_DIV, wide, p));
  MlcExpr *out = sgn ? mlc_e_select(ctx, bin(ctx, MLC_BIN_LT, x, k(ctx, x, 0)), k(ctx, x, -1), k(ctx, x, 0)) : k(ctx, x, 0);
  return mlc_e_select(ctx, shift_out(ctx, x, y, sgn), out, v);
}

/* ---- remainders ------------------------------------------------------------------------- */

/* the divisor's sign (numpy's %); mod: the dividend's (C's fmod / %) */
static MlcExpr *b_floor_mod(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) { return bin(ctx, MLC_BIN_FLOORMOD, x, y); }
static MlcExpr *b_mod(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) { return bin(ctx, MLC_BIN_MOD, x, y); }

/* ======================================================================== */
/* tensor expressions                                                       */
/* ======================================================================== */

#define UNARY2_OPS(X)                                                                    \
  X("floor", u_floor) X("ceil", u_ceil) X("round", u_round) X("sign", u_sign)            \
  X("sin", u_sin) X("cos", u_cos) X("tan", u_tan) X("atan", u_atan) X("asin", u_asin)   \
  X("acos", u_acos) X("sinh", u_sinh) X("cosh", u_cosh) X("asinh", u_asinh)             \
  X("acosh", u_acosh) X("atanh", u_atanh) X("isnan", u_isnan) X("isinf", u_isinf)       \
  X("logical_not", u_logical_not) X("bitwise_not", u_bitwise_not)

#define BINARY2_OPS(X)                                                                   \
  X("logical_and", b_logical_and) X("logical_or", b_logical_or)                          \
  X("logical_xor", b_logical_xor) X("bitwise_and", b_bitwise_and)                        \
  X("bitwise_or", b_bitwise_or) X("bitwise_xor", b_bitwise_xor)                          \
  X("left_shift", b_left_shift) X("right_shift", b_right_shift)                          \
  X("floor_mod", b_floor_mod) X("mod", b_mod)

static const struct { const char *name; MlcExpr *(*build)(MlcCtx *, MlcExpr *); } unary2[] = {
#define X(name, fn) {name, fn},
    UNARY2_OPS(X)
#undef X
};

static const struct { const char *name; MlcExpr *(*build)(MlcCtx *, MlcExpr *, MlcExpr *); } binary2[] = {
#define X(name, fn) {name, fn},
    BINARY2_OPS(X)
#undef X
};

/* out = body(inputs read under broadcasting) over the broadcast shape */
static bool broadcast_compute(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **ins, int n_in, MlcTeTensor **outs,
                              int *n_outs) {
  MlcExpr **shape = ins[0]->shape;
  int n = ins[0]->ndim;
  if (n_in == 2 && !mlc_op_broadcast_shapes(ctx, a, shape, n, ins[1]->shape, ins[1]->ndim, &shape, &n)) return false;
  MlcExpr **axes = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *axes);
  mlc_op_axes(ctx, n, axes);
  MlcExpr *v[2];
  for (int i = 0; i < n_in; i++) v[i] = mlc_op_read_broadcast(ctx, ins[i], axes, n);
  MlcExpr *body = NULL;
  if (n_in == 1) {
    for (size_t i = 0; i < sizeof unary2 / sizeof *unary2 && !body; i++)
      if (strcmp(unary2[i].name, a->op->name) == 0) body = unary2[i].build(ctx, v[0]);
  } else {
    for (size_t i = 0; i < sizeof binary2 / sizeof *binary2 && !body; i++)
      if (strcmp(binary2[i].name, a->op->name) == 0) body = binary2[i].build(ctx, v[0], v[1]);
  }
  if (!body) return mlc_op_fail(ctx, a, "has no %s definition", n_in == 1 ? "unary" : "binary");
  outs[0] = mlc_te_compute(ctx, mlc_intern(ctx, a->op->name), shape, n, axes, body);
  *n_outs = 1;
  return outs[0] != NULL;
}

bool mlc_op_te_unary2(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **ins, int n_in, MlcTeTensor **outs,
                      int *n_outs) {
  if (n_in != 1) return mlc_op_fail(ctx, a, "expected 1 tensor input, got %d", n_in);
  return broadcast_compute(ctx, a, ins, 1, outs, n_outs);
}

bool mlc_op_te_binary2(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **ins, int n_in, MlcTeTensor **outs,
                       int *n_outs) {
  if (n_in != 2) return mlc_op_fail(ctx, a, "expected 2 tensor inputs, got %d", n_in);
  return broadcast_compute(ctx, a, ins, 2, outs, n_outs);
}
