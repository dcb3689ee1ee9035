/* onnx_ops.c - the table of ONNX op converters, and the converters of the
 * elementwise ops (one graph op each, possibly with a constant operand).
 *
 * The table lists each op type once with the opset range its converter
 * understands; the importer asks mlc_onnx__converter for the node's op type
 * at the model's opset.  Families with more to say (shapes, NN ops,
 * reductions) live in onnx_ops_*.c. */
#include <string.h>

#include "onnx_convert.h"

/* ---- elementwise ------------------------------------------------------------------ */

/* one graph op applied to the node's inputs in order */
static bool conv_direct(MlcOnnxNode *n, const char *op, int arity) {
  if (n->n_in < arity) return mlc_onnx__node_fail(n, "expects %d inputs, has %d", arity, n->n_in);
  for (int i = 0; i < arity; i++)
    if (!n->in[i]) return mlc_onnx__node_fail(n, "input %d is missing", i);
  n->out[0] = mlc_onnx__emit(n, op, n->in, arity, (MlcAttrs){0});
  return n->out[0] != NULL;
}

#define UNARY_OPS(X) \
  X(Abs, "abs") X(Neg, "negative") X(Exp, "exp") X(Log, "log") X(Sqrt, "sqrt") \
  X(Tanh, "tanh") X(Sigmoid, "sigmoid") X(Erf, "erf") X(Relu, "nn.relu")

#define BINARY_OPS(X) \
  X(Add, "add") X(Sub, "subtract") X(Mul, "multiply") X(Div, "divide") \
  X(Equal, "equal") X(Less, "less") X(LessOrEqual, "less_equal") X(Greater, "greater") \
  X(GreaterOrEqual, "greater_equal")

#define X(onnx, op) \
  static bool conv_##onnx(MlcOnnxNode *n) { return conv_direct(n, op, 1); }
UNARY_OPS(X)
#undef X
#define X(onnx, op) \
  static bool conv_##onnx(MlcOnnxNode *n) { return conv_direct(n, op, 2); }
BINARY_OPS(X)
#undef X

static bool conv_Where(MlcOnnxNode *n) { return conv_direct(n, "where", 3); }

/* the exponent may have another type than the base: cast it to the base's */
static bool conv_Pow(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *y = mlc_onnx__input(n, 1);
  if (!x || !y) return false;
  MlcDType t = mlc_onnx__dtype_of(x);
  if (!mlc_dtype_eq(t, mlc_onnx__dtype_of(y))) {
    MlcAttr a = {"dtype", mlc_onnx__av_dtype(t)};
    y = mlc_onnx__emit_attrs(n, "astype", &y, 1, 1, &a);
  }
  return y && (n->out[0] = mlc_onnx__emit2(n, "power", x, y)) != NULL;
}

/* Max, Min, Sum, Mean: variadic, folded pairwise left to right */
static bool variadic(MlcOnnxNode *n, const char *op) {
  MlcGExpr *acc = mlc_onnx__input(n, 0);
  for (int i = 1; acc && i < n->n_in; i++) acc = mlc_onnx__emit2(n, op, acc, mlc_onnx__input(n, i));
  return (n->out[0] = acc) != NULL;
}
static bool conv_Max(MlcOnnxNode *n) { return variadic(n, "maximum"); }
static bool conv_Min(MlcOnnxNode *n) { return variadic(n, "minimum"); }
static bool conv_Sum(MlcOnnxNode *n) { return variadic(n, "add"); }
static bool conv_Mean(MlcOnnxNode *n) {
  if (!variadic(n, "add")) return false;
  MlcGExpr *k = mlc_onnx__scalar_like(n, n->out[0], n->n_in);
  return (n->out[0] = mlc_onnx__emit2(n, "divide", n->out[0], k)) != NULL;
}

/* ---- activations composed of elementwise ops ------------------------------------------- */

static MlcGExpr *c(MlcOnnxNode *n, const MlcGExpr *like, double v) { return mlc_onnx__scalar_like(n, like, v); }

static bool conv_Reciprocal(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  return x && (n->out[0] = mlc_onnx__emit2(n, "divide", c(n, x, 1), x)) != NULL;
}

/* log(1 + exp(x)) */
static bool conv_Softplus(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  MlcGExpr *e = x ? mlc_onnx__emit1(n, "exp", x) : NULL;
  MlcGExpr *s = e ? mlc_onnx__emit2(n, "add", e, c(n, x, 1)) : NULL;
  return s && (n->out[0] = mlc_onnx__emit1(n, "log", s)) != NULL;
}

/* where(x < 0, neg(x), x) with neg built by the caller */
static MlcGExpr *select_negative(MlcOnnxNode *n, MlcGExpr *x, MlcGExpr *neg_branch) {
  MlcGExpr *cond = neg_branch ? mlc_onnx__emit2(n, "less", x, c(n, x, 0)) : NULL;
  MlcGExpr *args[3] = {cond, neg_branch, x};
  return cond ? mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}) : NULL;
}

static bool conv_LeakyRelu(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  double alpha;
  if (!x || !mlc_onnx__attr_float(n, "alpha", 0.01, &alpha)) return false;
  return (n->out[0] = select_negative(n, x, mlc_onnx__emit2(n, "multiply", x, c(n, x, alpha)))) != NULL;
}

static bool conv_PRelu(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *slope = mlc_onnx__input(n, 1);
  return x && slope && (n->out[0] = select_negative(n, x, mlc_onnx__emit2(n, "multiply", x, slope))) != NULL;
}

/* alpha * (exp(x) - 1) for x < 0, times gamma for Selu */
static bool elu_like(MlcOnnxNode *n, double alpha, double gamma) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  MlcGExpr *e = x ? mlc_onnx__emit1(n, "exp", x) : NULL;
  MlcGExpr *em1 = e ? mlc_onnx__emit2(n, "subtract", e, c(n, x, 1)) : NULL;
  MlcGExpr *neg = em1 ? mlc_onnx__emit2(n, "multiply", em1, c(n, x, alpha)) : NULL;
  MlcGExpr *y = select_negative(n, x, neg);
  if (y && gamma != 1.0) y = mlc_onnx__emit2(n, "multiply", y, c(n, x, gamma));
  return (n->out[0] = y) != NULL;
}

static bool conv_Elu(MlcOnnxNode *n) {
  double alpha;
  return mlc_onnx__attr_float(n, "alpha", 1.0, &alpha) && elu_like(n, alpha, 1.0);
}

static bool conv_Selu(MlcOnnxNode *n) {
  double alpha, gamma;
  return mlc_onnx__attr_float(n, "alpha", 1.67326319217681884765625, &alpha) &&
         mlc_onnx__attr_float(n, "gamma", 1.05070102214813232421875, &gamma) && elu_like(n, alpha, gamma);
}

/* max(0, min(1, alpha * x + beta)) */
static MlcGExpr *hard_sigmoid(MlcOnnxNode *n, MlcGExpr *x, double alpha, double beta) {
  MlcGExpr *t = mlc_onnx__emit2(n, "multiply", x, c(n, x, alpha));
  t = t ? mlc_onnx__emit2(n, "add", t, c(n, x, beta)) : NULL;
  t = t ? mlc_onnx__emit2(n, "minimum", t, c(n, x, 1)) : NULL;
  return t ? mlc_onnx__emit2(n, "maximum", t, c(n, x, 0)) : NULL;
}

static bool conv_HardSigmoid(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  double alpha, beta;
  if (!x || !mlc_onnx__attr_float(n, "alpha", 0.2, &alpha) || !mlc_onnx__attr_float(n, "beta", 0.5, &beta)) return false;
  return (n->out[0] = hard_sigmoid(n, x, alpha, beta)) != NULL;
}

static bool conv_HardSwish(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  MlcGExpr *h = x ? hard_sigmoid(n, x, 1.0 / 6, 0.5) : NULL;
  return h && (n->out[0] = mlc_onnx__emit2(n, "multiply", x, h)) != NULL;
}

/* Gelu (opset 20): the erf form, or the tanh approximation */
static bool conv_Gelu(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  const char *approx = mlc_onnx__attr_str(n, "approximate", "none");
  if (!x) return false;
  if (!strcmp(approx, "none")) return (n->out[0] = mlc_onnx__emit1(n, "nn.gelu", x)) != NULL;
  if (strcmp(approx, "tanh")) return mlc_onnx__node_fail(n, "approximate='%s' is not supported", approx);
  /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
  MlcGExpr *x3 = mlc_onnx__emit2(n, "multiply", x, x);
  x3 = x3 ? mlc_onnx__emit2(n, "multiply", x3, x) : NULL;
  MlcGExpr *t = x3 ? mlc_onnx__emit2(n, "multiply", x3, c(n, x, 0.044715)) : NULL;
  t = t ? mlc_onnx__emit2(n, "add", t, x) : NULL;
  t = t ? mlc_onnx__emit2(n, "multiply", t, c(n, x, 0.7978845608028654)) : NULL;
  t = t ? mlc_onnx__emit1(n, "tanh", t) : NULL;
  t = t ? mlc_onnx__emit2(n, "add", t, c(n, x, 1)) : NULL;
  t = t ? mlc_onnx__emit2(n, "multiply", t, x) : NULL;
  return t && (n->out[0] = mlc_onnx__emit2(n, "multiply", t, c(n, x, 0.5))) != NULL;
}

static bool conv_Identity(MlcOnnxNode *n) {
  if (n->n_in < 1 || !n->in[0]) return mlc_onnx__node_fail(n, "input 0 is missing");
  n->out[0] = n->in[0];
  n->known_out[0] = (MlcTensorData *)n->known_in[0];
  return true;
}

/* ---- the table ------------------------------------------------------------------------ */

typedef struct Entry {
  const char *op_type;
  int64_t since, until; /* opsets the converter understands */
  MlcOnnxConvertFn fn;
} Entry;

static const Entry table[] = {
#define X(onnx, op) {#onnx, 1, 99, conv_##onnx},
    UNARY_OPS(X) BINARY_OPS(X)
#undef X
    {"Where", 9, 99, conv_Where},
    {"Pow", 1, 99, conv_Pow},
    {"Max", 1, 99, conv_Max},
    {"Min", 1, 99, conv_Min},
    {"Sum", 1, 99, conv_Sum},
    {"Mean", 1, 99, conv_Mean},
    {"Reciprocal", 1, 99, conv_Reciprocal},
    {"Softplus", 1, 99, conv_Softplus},
    {"LeakyRelu", 1, 99, conv_LeakyRelu},
    {"PRelu", 1, 99, conv_PRelu},
    {"Elu", 1, 99, conv_Elu},
    {"Selu", 1, 99, conv_Selu},
    {"HardSigmoid", 1, 99, conv_HardSigmoid},
    {"HardSwish", 14, 99, conv_HardSwish},
    {"Gelu", 20, 99, conv_Gelu},
    {"Identity", 1, 99, conv_Identity},
#define X(onnx, since, fn) {onnx, since, 99, fn},
    MLC_ONNX_MORE_CONVERTERS(X)
#include "onnx_conv_a.def"
#include "onnx_conv_b.def"
#include "onnx_conv_c.def"
#include "onnx_conv_d.def"
#include "onnx_conv_quant.def"
#include "onnx_conv_rnn.def"
#include "onnx_conv_index.def"
#include "onnx_conv_control.def"
#undef X
};

MlcOnnxConvertFn mlc_onnx__converter(const char *op_type, int64_t opset) {
  if (!op_type) return NULL;
  for (size_t i = 0; i < sizeof table / sizeof *table; i++)
    if (strcmp(table[i].op_type, op_type) == 0 && opset >= table[i].since && opset <= table[i].until)
      return table[i].fn;
  return NULL;
}
