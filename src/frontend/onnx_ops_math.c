/* onnx_ops_math.c - converters of the elementwise math beyond arithmetic:
 * logical and bitwise ops, rounding, sign, trigonometric and hyperbolic
 * functions, Mod, IsNaN / IsInf, and the activations composed of
 * elementwise ops (Shrink, ThresholdedRelu, Celu, Mish, Softsign, Swish).
 *
 * Most nodes are one graph op (the table DIRECT_OPS); the rest read their
 * attributes and emit a few ops.  Composed activations follow the ONNX
 * function bodies literally, so their results agree with the reference to
 * rounding. */
#include <math.h>
#include <string.h>

#include "onnx_convert.h"

/* a scalar constant of x's dtype */
static MlcGExpr *k(MlcOnnxNode *n, const MlcGExpr *x, double v) { return mlc_onnx__scalar_like(n, x, v); }

static bool set_out(MlcOnnxNode *n, MlcGExpr *y) { return (n->out[0] = y) != NULL; }

static MlcGExpr *where(MlcOnnxNode *n, MlcGExpr *c, MlcGExpr *t, MlcGExpr *f) {
  MlcGExpr *args[3] = {c, t, f};
  return c && t && f ? mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}) : NULL;
}

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

/* SwiGLU(a, b) = Swish(a) b = a sigmoid(alpha a) b */
bool mlc_onnx__conv_swiglu(MlcOnnxNode *n) {
  MlcGExpr *a = mlc_onnx__input(n, 0), *b = mlc_onnx__input(n, 1);
  double alpha;
  if (!a || !b || !mlc_onnx__attr_float(n, "alpha", 1.0, &alpha)) return false;
  MlcGExpr *s = mlc_onnx__emit1(n, "sigmoid", mlc_onnx__emit2(n, "multiply", a, k(n, a, alpha)));
  return set_out(n, mlc_onnx__emit2(n, "multiply", mlc_onnx__emit2(n, "multiply", a, s), b));
}
