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
  X(Add, "add") X(Sub, "subtract") X(Mul, "multiply") X(Div, "divide") X(Pow, "power") \
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
    {"Identity", 1, 99, conv_Identity},
#define X(onnx, since, fn) {onnx, since, 99, fn},
    MLC_ONNX_MORE_CONVERTERS(X)
#undef X
};

MlcOnnxConvertFn mlc_onnx__converter(const char *op_type, int64_t opset) {
  if (!op_type) return NULL;
  for (size_t i = 0; i < sizeof table / sizeof *table; i++)
    if (strcmp(table[i].op_type, op_type) == 0 && opset >= table[i].since && opset <= table[i].until)
      return table[i].fn;
  return NULL;
}
