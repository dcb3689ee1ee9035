/* onnx_ops_training.c - the converters of the ai.onnx.preview.training
 * optimizers (Adagrad, Adam, Momentum in its standard and Nesterov modes):
 * one update step of n tensors, composed of elementwise graph ops.
 *
 * Inputs are the learning rate R and the step count T (scalars), then n X's,
 * n G's and the n states of each kind; outputs the n new X's, then the new
 * states kind by kind.  The update formulas are ONNX's: every tensor gets
 * g = norm_coefficient * x + grad; the scalar factors that depend on T
 * (Adagrad's decayed rate, Adam's bias correction, Momentum's first-step
 * beta) are computed in float64 and cast to x's dtype.  The step count is
 * read when the model runs, so one compiled model serves every step. */
#include <string.h>

#include "onnx_convert.h"

static MlcGExpr *c(MlcOnnxNode *n, const MlcGExpr *like, double v) { return mlc_onnx__scalar_like(n, like, v); }
static MlcGExpr *mul(MlcOnnxNode *n, MlcGExpr *a, MlcGExpr *b) { return mlc_onnx__emit2(n, "multiply", a, b); }
static MlcGExpr *add(MlcOnnxNode *n, MlcGExpr *a, MlcGExpr *b) { return mlc_onnx__emit2(n, "add", a, b); }
static MlcGExpr *sub(MlcOnnxNode *n, MlcGExpr *a, MlcGExpr *b) { return mlc_onnx__emit2(n, "subtract", a, b); }
static MlcGExpr *div_(MlcOnnxNode *n, MlcGExpr *a, MlcGExpr *b) { return mlc_onnx__emit2(n, "divide", a, b); }

static MlcGExpr *cast(MlcOnnxNode *n, MlcGExpr *x, MlcDType t) {
  if (!x || mlc_dtype_eq(mlc_onnx__dtype_of(x), t)) return x;
  MlcAttr a = attr("dtype", mlc_onnx__av_dtype(t));
  return mlc_onnx__emit_attrs(n, "astype", &x, 1, 1, &a);
}

/* the tensors updated: (n_in - 2) / per inputs each of `per` kinds, as
 * many outputs per tensor as kinds - 1 (x and its states, not g); R and T
 * scalars (or one value), T an integer, every other input floating-point */
static bool check_io(MlcOnnxNode *n, int per, int *count) {
  if (n->n_in < 2 + per || (n->n_in - 2) % per)
    return mlc_onnx__node_fail(n, "expects R, T and %d inputs per tensor, has %d inputs", per, n->n_in);
  *count = (n->n_in - 2) / per;
  if (n->n_out != *count * (per - 1))
    return mlc_onnx__node_fail(n, "expects %d outputs for %d tensors, has %d", *count * (per - 1), *count, n->n_out);
  for (int i = 0; i < n->n_in; i++) {
    MlcGExpr *v = mlc_onnx__input(n, i);
    if (!v) return false;
    MlcDType t = mlc_onnx__dtype_of(v);
    if (i == 1 ? !mlc_dtype_is_int(t) : !mlc_dtype_is_float(t))
      return mlc_onnx__node_fail(n, "input %d must be %s", i, i == 1 ? "an integer (T)" : "floating-point");
    int r = mlc_onnx__rank(v);
    int64_t one;
    if (i < 2 && (r > 1 || (r == 1 && (!mlc_onnx__const_dim(v, 0, &one) || one != 1))))
      return mlc_onnx__node_fail(n, "input %d (%s) must be a scalar", i, i ? "T" : "R");
  }
  return true;
}

/* norm_coefficient * x + g */
static MlcGExpr *regularized(MlcOnnxNode *n, MlcGExpr *x, MlcGExpr *g, double norm) {
  return norm != 0 ? add(n, mul(n, c(n, x, norm), x), g) : g;
}

static MlcGExpr *t_f64(MlcOnnxNode *n) { return cast(n, n->in[1], MLC_F64); }

/* r / (1 + t * decay_factor); h += g^2; x -= r' g / (sqrt(h) + epsilon) */
static bool conv_adagrad(MlcOnnxNode *n) {
  double decay, eps, norm;
  int k;
  if (!mlc_onnx__attr_float(n, "decay_factor", 0, &decay) || !mlc_onnx__attr_float(n, "epsilon", 0, &eps) ||
      !mlc_onnx__attr_float(n, "norm_coefficient", 0, &norm) || !check_io(n, 3, &k))
    return false;
  MlcGExpr *t = t_f64(n), *one = mlc_onnx__const(n, mlc_onnx__scalar(n->im->ctx, MLC_F64, 1));
  MlcGExpr *r = div_(n, cast(n, n->in[0], MLC_F64), add(n, one, mul(n, t, c(n, one, decay))));
  for (int i = 0; i < k; i++) {
    MlcGExpr *x = n->in[2 + i], *g = regularized(n, x, n->in[2 + k + i], norm), *h = n->in[2 + 2 * k + i];
    MlcGExpr *h_new = add(n, h, mul(n, g, g));
    MlcGExpr *scale = add(n, mlc_onnx__emit1(n, "sqrt", h_new), c(n, x, eps));
    n->out[i] = sub(n, x, div_(n, mul(n, cast(n, r, mlc_onnx__dtype_of(x)), g), scale));
    n->out[k + i] = h_new;
    if (!n->out[i] || !n->out[k + i]) return false;
  }
  return true;
}

/* v = alpha v + (1 - alpha) g; h = beta h + (1 - beta) g^2;
 * x = (1 - norm_post) (x - r' v / (sqrt(h) + epsilon)), with
 * r' = r sqrt(1 - beta^t) / (1 - alpha^t) when t > 0, else r */
static bool conv_adam(MlcOnnxNode *n) {
  double alpha, beta, eps, norm, post;
  int k;
  if (!mlc_onnx__attr_float(n, "alpha", 0.9, &alpha) || !mlc_onnx__attr_float(n, "beta", 0.999, &beta) ||
      !mlc_onnx__attr_float(n, "epsilon", 0, &eps) || !mlc_onnx__attr_float(n, "norm_coefficient", 0, &norm) ||
      !mlc_onnx__attr_float(n, "norm_coefficient_post", 0, &post) || !check_io(n, 4, &k))
    return false;
  MlcGExpr *t = t_f64(n), *r = cast(n, n->in[0], MLC_F64);
  MlcGExpr *one = mlc_onnx__const(n, mlc_onnx__scalar(n->im->ctx, MLC_F64, 1));
  MlcGExpr *bias = div_(n, mlc_onnx__emit1(n, "sqrt", sub(n, one, mlc_onnx__emit2(n, "power", c(n, one, beta), t))),
                        sub(n, one, mlc_onnx__emit2(n, "power", c(n, one, alpha), t)));
  MlcGExpr *wa[3] = {mlc_onnx__emit2(n, "greater", n->in[1], mlc_onnx__scalar_like(n, n->in[1], 0)), mul(n, r, bias), r};
  MlcGExpr *r_adj = wa[0] && wa[1] && wa[2] ? mlc_onnx__emit(n, "where", wa, 3, (MlcAttrs){0}) : NULL;
  for (int i = 0; i < k; i++) {
    MlcGExpr *x = n->in[2 + i], *g = regularized(n, x, n->in[2 + k + i], norm);
    MlcGExpr *v = n->in[2 + 2 * k + i], *h = n->in[2 + 3 * k + i];
    MlcGExpr *v_new = add(n, mul(n, c(n, v, alpha), v), mul(n, c(n, g, 1 - alpha), g));
    MlcGExpr *h_new = add(n, mul(n, c(n, h, beta), h), mul(n, c(n, g, 1 - beta), mul(n, g, g)));
    MlcGExpr *scale = add(n, mlc_onnx__emit1(n, "sqrt", h_new), c(n, x, eps));
    MlcGExpr *x_new = sub(n, x, mul(n, cast(n, r_adj, mlc_onnx__dtype_of(x)), div_(n, v_new, scale)));
    n->out[i] = post != 0 ? mul(n, c(n, x, 1 - post), x_new) : x_new;
    n->out[k + i] = v_new, n->out[2 * k + i] = h_new;
    if (!n->out[i] || !v_new || !h_new) return false;
  }
  return true;
}

/* v = alpha v + beta' g (beta' = beta when t > 0, else 1); standard:
 * x -= r v; nesterov: x -= r (g + alpha v) */
static bool conv_momentum(MlcOnnxNode *n) {
  double alpha, beta, norm;
  int k;
  if (!mlc_onnx__attr(n, "alpha") || !mlc_onnx__attr(n, "beta") || !mlc_onnx__attr(n, "norm_coefficient") ||
      !mlc_onnx__attr(n, "mode"))
    return mlc_onnx__node_fail(n, "alpha, beta, mode and norm_coefficient are required");
  if (!mlc_onnx__attr_float(n, "alpha", 0, &alpha) || !mlc_onnx__attr_float(n, "beta", 0, &beta) ||
      !mlc_onnx__attr_float(n, "norm_coefficient", 0, &norm) || !check_io(n, 3, &k))
    return false;
  const char *mode = mlc_onnx__attr_str(n, "mode", "standard");
  bool nesterov = !strcmp(mode, "nesterov");
  if (!nesterov && strcmp(mode, "standard")) return mlc_onnx__node_fail(n, "mode '%s' is not 'standard' or 'nesterov'", mode);
  MlcGExpr *one = mlc_onnx__const(n, mlc_onnx__scalar(n->im->ctx, MLC_F64, 1));
  MlcGExpr *wa[3] = {mlc_onnx__emit2(n, "greater", n->in[1], mlc_onnx__scalar_like(n, n->in[1], 0)), c(n, one, beta), one};
  MlcGExpr *beta_adj = wa[0] ? mlc_onnx__emit(n, "where", wa, 3, (MlcAttrs){0}) : NULL;
  for (int i = 0; i < k; i++) {
    MlcGExpr *x = n->in[2 + i], *g = regularized(n, x, n->in[2 + k + i], norm), *v = n->in[2 + 2 * k + i];
    MlcDType t = mlc_onnx__dtype_of(x);
    MlcGExpr *v_new = add(n, mul(n, c(n, v, alpha), v), mul(n, cast(n, beta_adj, t), g));
    MlcGExpr *step = nesterov ? add(n, g, mul(n, c(n, v_new, alpha), v_new)) : v_new;
    n->out[i] = sub(n, x, mul(n, cast(n, n->in[0], t), step));
    n->out[k + i] = v_new;
    if (!n->out[i] || !v_new) return false;
  }
  return true;
}

static const struct { const char *op; MlcOnnxConvertFn fn; } training[] = {
    {"Adagrad", conv_adagrad},
    {"Adam", conv_adam},
    {"Momentum", conv_momentum},
};

MlcOnnxConvertFn mlc_onnx__training_converter(const char *op_type) {
  for (size_t i = 0; op_type && i < sizeof training / sizeof *training; i++)
    if (!strcmp(training[i].op, op_type)) return training[i].fn;
  return NULL;
}
