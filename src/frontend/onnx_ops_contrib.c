/* onnx_ops_contrib.c - converters of the ONNX Runtime contrib ops (domain
 * com.microsoft) that fused and quantized exports use, composed of graph
 * ops and of the default domain's converters: Gelu, BiasGelu, FastGelu,
 * QuickGelu, FusedMatMul, FusedConv, SkipLayerNormalization and
 * DynamicQuantizeMatMul.  Their meaning is ONNX Runtime's contrib operator
 * documentation's; attributes they define that we do not implement are
 * refused by name. */
#include <math.h>
#include <string.h>

#include "onnx_convert.h"

static MlcGExpr *cst(MlcOnnxNode *n, const MlcGExpr *like, double v) { return mlc_onnx__scalar_like(n, like, v); }

static MlcGExpr *opt_in(MlcOnnxNode *n, int i) { return i < n->n_in ? n->in[i] : NULL; }

static bool wants(const MlcOnnxNode *n, int i) {
  return i < n->n_out && n->proto->output[i] && *n->proto->output[i];
}

/* converter fn run as a sub-node c of n (its attributes, inputs in[0..k)) */
static bool sub_node(MlcOnnxNode *n, MlcOnnxConvertFn fn, MlcGExpr **in, int k, MlcOnnxNode *c, int n_out) {
  *c = *n;
  memset(c->in, 0, sizeof c->in);
  memset(c->known_in, 0, sizeof c->known_in);
  memset(c->out, 0, sizeof c->out);
  memset(c->known_out, 0, sizeof c->known_out);
  for (int i = 0; i < k; i++) c->in[i] = in[i];
  c->n_in = k, c->n_out = n_out;
  return fn(c);
}

/* ---- GELU family ---------------------------------------------------------------------- */

static MlcGExpr *gelu_tanh(MlcOnnxNode *n, MlcGExpr *x) {
  /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
  MlcGExpr *x3 = mlc_onnx__emit2(n, "multiply", mlc_onnx__emit2(n, "multiply", x, x), x);
  MlcGExpr *t = mlc_onnx__emit2(n, "add", mlc_onnx__emit2(n, "multiply", x3, cst(n, x, 0.044715)), x);
  t = mlc_onnx__emit1(n, "tanh", mlc_onnx__emit2(n, "multiply", t, cst(n, x, 0.7978845608028654)));
  t = mlc_onnx__emit2(n, "multiply", mlc_onnx__emit2(n, "add", t, cst(n, x, 1)), x);
  return mlc_onnx__emit2(n, "multiply", t, cst(n, x, 0.5));
}

static bool conv_gelu(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  return x && (n->out[0] = mlc_onnx__emit1(n, "nn.gelu", x)) != NULL;
}

static bool conv_bias_gelu(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *b = mlc_onnx__input(n, 1);
  return x && b && (n->out[0] = mlc_onnx__emit1(n, "nn.gelu", mlc_onnx__emit2(n, "add", x, b))) != NULL;
}

static bool conv_fast_gelu(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *b = opt_in(n, 1);
  if (x && b) x = mlc_onnx__emit2(n, "add", x, b);
  return x && (n->out[0] = gelu_tanh(n, x)) != NULL;
}

static bool conv_quick_gelu(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  double alpha;
  if (!x || !mlc_onnx__attr_float(n, "alpha", 1.702, &alpha)) return false;
  MlcGExpr *s = mlc_onnx__emit1(n, "sigmoid", mlc_onnx__emit2(n, "multiply", x, cst(n, x, alpha)));
  return (n->out[0] = mlc_onnx__emit2(n, "multiply", x, s)) != NULL;
}

/* ---- FusedMatMul, FusedConv ------------------------------------------------------------- */

/* x with its last two dims swapped (rank 2 or more) */
static MlcGExpr *swap_last(MlcOnnxNode *n, MlcGExpr *x) {
  int r = mlc_onnx__rank(x);
  if (r < 2) return x;
  int64_t axes[32];
  if (r > 32) return mlc_onnx__node_fail(n, "inputs of rank over 32 are not supported"), NULL;
  for (int i = 0; i < r; i++) axes[i] = i;
  axes[r - 2] = r - 1, axes[r - 1] = r - 2;
  MlcAttr a = attr("axes", mlc_onnx__av_ints(n->im->ctx, axes, r));
  return mlc_onnx__emit_attrs(n, "permute_dims", &x, 1, 1, &a);
}

static bool conv_fused_matmul(MlcOnnxNode *n) {
  MlcGExpr *a = mlc_onnx__input(n, 0), *b = mlc_onnx__input(n, 1);
  int64_t ta, tb, tba, tbb;
  double alpha;
  if (!a || !b || !mlc_onnx__attr_int(n, "transA", 0, &ta) || !mlc_onnx__attr_int(n, "transB", 0, &tb) ||
      !mlc_onnx__attr_int(n, "transBatchA", 0, &tba) || !mlc_onnx__attr_int(n, "transBatchB", 0, &tbb) ||
      !mlc_onnx__attr_float(n, "alpha", 1.0, &alpha))
    return false;
  if (tba || tbb) return mlc_onnx__node_fail(n, "transBatchA and transBatchB are not supported");
  if (ta) a = swap_last(n, a);
  if (tb) b = swap_last(n, b);
  MlcGExpr *y = a && b ? mlc_onnx__emit2(n, "matmul", a, b) : NULL;
  if (y && alpha != 1.0) y = mlc_onnx__emit2(n, "multiply", y, cst(n, y, alpha));
  return (n->out[0] = y) != NULL;
}

/* the activation named by the node's `activation` and `activation_params` */
static MlcGExpr *fused_activation(MlcOnnxNode *n, MlcGExpr *y) {
  const char *act = mlc_onnx__attr_str(n, "activation", NULL);
  const Onnx__AttributeProto *pa = mlc_onnx__attr(n, "activation_params");
  double p0 = pa && pa->n_floats > 0 ? pa->floats[0] : NAN, p1 = pa && pa->n_floats > 1 ? pa->floats[1] : NAN;
  if (!act || !y || !strcmp(act, "Identity")) return y;
  if (!strcmp(act, "Relu")) return mlc_onnx__emit1(n, "nn.relu", y);
  if (!strcmp(act, "Sigmoid")) return mlc_onnx__emit1(n, "sigmoid", y);
  if (!strcmp(act, "Tanh")) return mlc_onnx__emit1(n, "tanh", y);
  if (!strcmp(act, "LeakyRelu")) {
    MlcGExpr *args[3] = {mlc_onnx__emit2(n, "less", y, cst(n, y, 0)),
                         mlc_onnx__emit2(n, "multiply", y, cst(n, y, isnan(p0) ? 0.01 : p0)), y};
    return args[0] && args[1] ? mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}) : NULL;
  }
  if (!strcmp(act, "Clip")) {
    if (isnan(p0) || isnan(p1)) return mlc_onnx__node_fail(n, "Clip needs activation_params (min, max)"), NULL;
    return mlc_onnx__emit2(n, "minimum", mlc_onnx__emit2(n, "maximum", y, cst(n, y, p0)), cst(n, y, p1));
  }
  if (!strcmp(act, "HardSigmoid")) {
    MlcGExpr *v = mlc_onnx__emit2(n, "add", mlc_onnx__emit2(n, "multiply", y, cst(n, y, isnan(p0) ? 0.2 : p0)),
                                  cst(n, y, isnan(p1) ? 0.5 : p1));
    return mlc_onnx__emit2(n, "minimum", mlc_onnx__emit2(n, "maximum", v, cst(n, y, 0)), cst(n, y, 1));
  }
  return mlc_onnx__node_fail(n, "activation '%s' is not supported (Relu, Sigmoid, Tanh, LeakyRelu, Clip, "
                                "HardSigmoid are)", act), NULL;
}

static bool conv_fused_conv(MlcOnnxNode *n) {
  MlcGExpr *in[3] = {mlc_onnx__input(n, 0), mlc_onnx__input(n, 1), opt_in(n, 2)}, *z = opt_in(n, 3);
  MlcOnnxNode c;
  if (!in[0] || !in[1] || !sub_node(n, mlc_onnx__conv_conv, in, 3, &c, 1)) return false;
  MlcGExpr *y = c.out[0];
  if (z) y = mlc_onnx__emit2(n, "add", y, z);
  return (n->out[0] = fused_activation(n, y)) != NULL;
}

/* ---- SkipLayerNormalization ------------------------------------------------------------- */

static bool conv_skip_layernorm(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *skip = mlc_onnx__input(n, 1), *gamma = mlc_onnx__input(n, 2);
  MlcGExpr *beta = opt_in(n, 3), *bias = opt_in(n, 4);
  double eps;
  if (!x || !skip || !gamma || !mlc_onnx__attr_float(n, "epsilon", 1e-12, &eps)) return false;
  if (wants(n, 1) || wants(n, 2)) return mlc_onnx__node_fail(n, "the mean and inv_std_var outputs are not supported");
  int r = mlc_onnx__rank(x);
  if (r < 1) return mlc_onnx__node_fail(n, "the input must have rank 1 or more");
  MlcGExpr *s = mlc_onnx__emit2(n, "add", x, skip);
  if (bias) s = mlc_onnx__emit2(n, "add", s, bias);
  if (!beta) beta = mlc_onnx__emit2(n, "multiply", gamma, cst(n, gamma, 0));
  int64_t axis = r - 1;
  MlcGExpr *args[3] = {s, gamma, beta};
  MlcAttr a[2] = {attr("axes", mlc_onnx__av_ints(n->im->ctx, &axis, 1)), attr("epsilon", mlc_onnx__av_float(eps))};
  MlcGExpr *y = s && beta ? mlc_onnx__emit_attrs(n, "nn.layer_norm", args, 3, 2, a) : NULL;
  if (!y) return false;
  n->out[0] = y;
  if (n->n_out > 3) n->out[3] = s;
  return true;
}

/* ---- DynamicQuantizeMatMul ---------------------------------------------------------------- */

/* A (float) quantized to uint8 over its range, times B (int8/uint8 with its
 * scale and zero point) in int32, scaled back: acc * (a_scale * b_scale) + bias */
static bool conv_dynamic_quantize_matmul(MlcOnnxNode *n) {
  MlcGExpr *a = mlc_onnx__input(n, 0), *b = mlc_onnx__input(n, 1), *bs = mlc_onnx__input(n, 2);
  MlcGExpr *bzp = opt_in(n, 3), *bias = opt_in(n, 4);
  if (!a || !b || !bs) return false;
  MlcOnnxNode q, mm;
  if (!sub_node(n, mlc_onnx__conv_dynamic_quantize_linear, &a, 1, &q, 3)) return false;
  MlcGExpr *mi[4] = {q.out[0], b, q.out[2], bzp};
  if (!sub_node(n, mlc_onnx__conv_matmul_integer, mi, bzp ? 4 : 3, &mm, 1)) return false;
  MlcAttr f32 = attr("dtype", mlc_onnx__av_dtype(MLC_DT(MLC_TC_FLOAT, 32, 1)));
  MlcGExpr *acc = mlc_onnx__emit_attrs(n, "astype", &mm.out[0], 1, 1, &f32);
  MlcGExpr *y = mlc_onnx__emit2(n, "multiply", acc, mlc_onnx__emit2(n, "multiply", q.out[1], bs));
  if (y && bias) y = mlc_onnx__emit2(n, "add", y, bias);
  return (n->out[0] = y) != NULL;
}

/* ---- the table -------------------------------------------------------------------------- */

static const struct { const char *op; MlcOnnxConvertFn fn; } contrib[] = {
    {"Gelu", conv_gelu},
    {"BiasGelu", conv_bias_gelu},
    {"FastGelu", conv_fast_gelu},
    {"QuickGelu", conv_quick_gelu},
    {"FusedMatMul", conv_fused_matmul},
    {"FusedConv", conv_fused_conv},
    {"SkipLayerNormalization", conv_skip_layernorm},
    {"DynamicQuantizeMatMul", conv_dynamic_quantize_matmul},
};

MlcOnnxConvertFn mlc_onnx__contrib_converter(const char *op_type) {
  for (size_t i = 0; op_type && i < sizeof contrib / sizeof *contrib; i++)
    if (!strcmp(contrib[i].op, op_type)) return contrib[i].fn;
  return NULL;
}
