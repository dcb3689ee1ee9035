/* onnx_ops_norm.c - converters of ONNX's normalizations: BatchNormalization
 * and LayerNormalization onto the registry's ops, and the ones composed
 * from reductions and elementwise ops (InstanceNormalization, GroupNormalization,
 * RMSNormalization, LpNormalization, MeanVarianceNormalization, LRN).
 *
 * Compositions follow the formulas of ONNX's own function bodies and
 * reference code (same order of operations where it matters for rounding,
 * e.g. MeanVarianceNormalization's sqrt(E[x^2] - E[x]^2) + 1e-9). */
#include <math.h>
#include <string.h>

#include "onnx_convert.h"

/* ints of x's static dims; false + error when one is symbolic */
static bool static_dims(MlcOnnxNode *n, const MlcGExpr *x, int rank, int64_t *dims) {
  for (int i = 0; i < rank; i++)
    if (!mlc_onnx__const_dim(x, i, &dims[i])) return mlc_onnx__node_fail(n, "symbolic input dims are not supported");
  return true;
}

static MlcGExpr *emit_ints(MlcOnnxNode *n, const char *op, MlcGExpr *x, const char *key, const int64_t *v, int k) {
  MlcAttr a = attr(key, mlc_onnx__av_ints(n->im->ctx, v, k));
  return x ? mlc_onnx__emit_attrs(n, op, &x, 1, 1, &a) : NULL;
}

static MlcGExpr *reshape(MlcOnnxNode *n, MlcGExpr *x, const int64_t *shape, int k) {
  return emit_ints(n, "reshape", x, "shape", shape, k);
}

/* mean (or sum, ...) of x over axes, keeping dims */
static MlcGExpr *reduce_keep(MlcOnnxNode *n, const char *op, MlcGExpr *x, const int64_t *axes, int k) {
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_ints(n->im->ctx, axes, k)), attr("keepdims", av_bool(true))};
  return x ? mlc_onnx__emit_attrs(n, op, &x, 1, 2, a) : NULL;
}

static MlcGExpr *binop(MlcOnnxNode *n, const char *op, MlcGExpr *x, MlcGExpr *y) {
  return x && y ? mlc_onnx__emit2(n, op, x, y) : NULL;
}

static MlcGExpr *with_scalar(MlcOnnxNode *n, const char *op, MlcGExpr *x, double v) {
  return x ? binop(n, op, x, mlc_onnx__scalar_like(n, x, v)) : NULL;
}

/* v of shape (C,) as (C, 1, ..., 1) against a rank-`rank` NC... tensor */
static MlcGExpr *per_channel(MlcOnnxNode *n, MlcGExpr *v, int rank) {
  int64_t axes[MLC_ONNX_MAX_RANK];
  for (int i = 0; i < rank - 2; i++) axes[i] = i + 1;
  return rank > 2 ? emit_ints(n, "expand_dims", v, "axis", axes, rank - 2) : v;
}

/* ---- BatchNormalization, LayerNormalization -------------------------------------------------- */

static bool wants_output(const MlcOnnxNode *n, int i) {
  return i < n->n_out && n->proto->output[i] && *n->proto->output[i];
}

/* Training mode (opset 14 on): the batch's own mean and (population)
 * variance over every axis but the channels normalize x, and the running
 * statistics move toward them: running * momentum + batch * (1 - momentum).
 * args: x, scale, bias, running mean, running var. */
static bool batchnorm_training(MlcOnnxNode *n, MlcGExpr **args, double eps) {
  MlcCtx *ctx = n->im->ctx;
  double momentum;
  int rank;
  if (!mlc_onnx__attr_float(n, "momentum", 0.9, &momentum) || !need_rank(n, args[0], &rank)) return false;
  if (rank < 2) return mlc_onnx__node_fail(n, "training mode needs an input of rank 2 or more");
  int64_t axes[MLC_ONNX_MAX_RANK];
  for (int i = 0, k = 0; i < rank; i++)
    if (i != 1) axes[k++] = i;
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_ints(ctx, axes, rank - 1)), attr("keepdims", av_bool(false))};
  MlcGExpr *mean = mlc_onnx__emit_attrs(n, "mean", &args[0], 1, 2, a);
  MlcGExpr *dev = binop(n, "subtract", args[0], per_channel(n, mean, rank));
  MlcGExpr *sq = binop(n, "multiply", dev, dev);
  MlcGExpr *var = sq ? mlc_onnx__emit_attrs(n, "mean", &sq, 1, 2, a) : NULL;
  if (!var) return false;
  MlcGExpr *bn[5] = {args[0], args[1], args[2], mean, var};
  MlcAttr b[2] = {attr("axis", mlc_onnx__av_int(1)), attr("epsilon", mlc_onnx__av_float(eps))};
  if (!(n->out[0] = mlc_onnx__item(n, mlc_onnx__emit_attrs(n, "nn.batch_norm", bn, 5, 2, b), 0))) return false;
  for (int i = 1; i <= 2; i++) {
    if (!wants_output(n, i)) continue;
    MlcGExpr *run = with_scalar(n, "multiply", args[2 + i], momentum);
    MlcGExpr *batch = with_scalar(n, "multiply", i == 1 ? mean : var, 1 - momentum);
    if (!(n->out[i] = binop(n, "add", run, batch))) return false;
  }
  return true;
}

bool mlc_onnx__conv_batchnorm(MlcOnnxNode *n) {
  double eps;
  int64_t training = 0;
  if (!mlc_onnx__attr_float(n, "epsilon", 1e-5, &eps) || !mlc_onnx__attr_int(n, "training_mode", 0, &training))
    return false;
  bool modern = n->opset >= 14 && n->n_out <= 3;
  if ((training && !modern) || (!training && n->n_out > 1))
    return mlc_onnx__node_fail(n, "training mode (running statistics outputs) is not supported before opset 14");
  MlcGExpr *args[5];
  for (int i = 0; i < 5; i++)
    if (!(args[i] = mlc_onnx__input(n, i))) return false;
  if (training) return batchnorm_training(n, args, eps);
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_int(1)), attr("epsilon", mlc_onnx__av_float(eps))};
  MlcGExpr *t = mlc_onnx__emit_attrs(n, "nn.batch_norm", args, 5, 2, a);
  return (n->out[0] = mlc_onnx__item(n, t, 0)) != NULL;
}

/* LayerNormalization's optional Mean and InvStdDev outputs, kept-dims
 * shaped, in the stash_type precision and by the formula of its function
 * body: 1 / sqrt(E[x^2] - E[x]^2 + epsilon) */
static bool layernorm_stats(MlcOnnxNode *n, MlcGExpr *x, const int64_t *axes, int k, double eps) {
  MlcCtx *ctx = n->im->ctx;
  int64_t stash;
  MlcDType t;
  if (!mlc_onnx__attr_int(n, "stash_type", 1, &stash)) return false;
  if (!mlc_onnx__dtype((int32_t)stash, &t) || !mlc_dtype_is_float(t))
    return mlc_onnx__node_fail(n, "stash_type %s is not supported", mlc_onnx__dtype_name((int32_t)stash));
  if (!mlc_dtype_eq(t, mlc_onnx__dtype_of(x))) {
    MlcAttr c = attr("dtype", mlc_onnx__av_dtype(t));
    if (!(x = mlc_onnx__emit_attrs(n, "astype", &x, 1, 1, &c))) return false;
  }
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_ints(ctx, axes, k)), attr("keepdims", av_bool(true))};
  MlcGExpr *mean = mlc_onnx__emit_attrs(n, "mean", &x, 1, 2, a);
  if (!mean) return false;
  n->out[1] = mean;
  if (!wants_output(n, 2)) return true;
  MlcGExpr *sq = mlc_onnx__emit2(n, "multiply", x, x);
  MlcGExpr *msq = sq ? mlc_onnx__emit_attrs(n, "mean", &sq, 1, 2, a) : NULL;
  MlcGExpr *var = mlc_onnx__emit2(n, "subtract", msq, mlc_onnx__emit2(n, "multiply", mean, mean));
  MlcGExpr *sd = mlc_onnx__emit1(n, "sqrt", mlc_onnx__emit2(n, "add", var, mlc_onnx__scalar_like(n, mean, eps)));
  return (n->out[2] = mlc_onnx__emit2(n, "divide", mlc_onnx__scalar_like(n, mean, 1.0), sd)) != NULL;
}

bool mlc_onnx__conv_layernorm(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0), *scale = mlc_onnx__input(n, 1);
  int64_t axis;
  double eps;
  int rank;
  if (!x || !scale || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "axis", -1, &axis) ||
      !mlc_onnx__attr_float(n, "epsilon", 1e-5, &eps))
    return false;
  if (rank > MLC_ONNX_MAX_RANK) return mlc_onnx__node_fail(n, "inputs of rank over %d are not supported", MLC_ONNX_MAX_RANK);
  if (axis < -rank || axis >= rank)
    return mlc_onnx__node_fail(n, "axis %lld is out of range for rank %d", (long long)axis, rank);
  if (axis < 0) axis += rank;
  int64_t axes[MLC_ONNX_MAX_RANK];
  for (int i = (int)axis; i < rank; i++) axes[i - axis] = i;
  if ((wants_output(n, 1) || wants_output(n, 2)) && !layernorm_stats(n, x, axes, rank - (int)axis, eps)) return false;
  MlcGExpr *bias = n->n_in > 2 ? n->in[2] : NULL;
  if (!bias) {
    MlcGExpr *zero = mlc_onnx__scalar_like(n, scale, 0);
    bias = mlc_onnx__emit2(n, "multiply", scale, zero);
    if (!bias) return false;
  }
  MlcGExpr *args[3] = {x, scale, bias};
  MlcAttr a[2] = {attr("axes", mlc_onnx__av_ints(ctx, axes, rank - (int)axis)), attr("epsilon", mlc_onnx__av_float(eps))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "nn.layer_norm", args, 3, 2, a)) != NULL;
}

/* ---- normalizations --------------------------------------------------------------------------------- */

/* (x - mean) / sqrt(var + eps) over axes, var the mean of squared deviations */
static MlcGExpr *standardize(MlcOnnxNode *n, MlcGExpr *x, const int64_t *axes, int k, double eps) {
  MlcGExpr *dev = binop(n, "subtract", x, reduce_keep(n, "mean", x, axes, k));
  MlcGExpr *var = reduce_keep(n, "mean", binop(n, "multiply", dev, dev), axes, k);
  return binop(n, "divide", dev, mlc_onnx__emit1(n, "sqrt", with_scalar(n, "add", var, eps)));
}

bool mlc_onnx__conv_instancenorm(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *scale = mlc_onnx__input(n, 1), *bias = mlc_onnx__input(n, 2);
  int rank;
  double eps;
  int64_t axes[MLC_ONNX_MAX_RANK];
  if (!x || !scale || !bias || !need_rank(n, x, &rank) || !mlc_onnx__attr_float(n, "epsilon", 1e-5, &eps)) return false;
  if (rank < 3) return mlc_onnx__node_fail(n, "expects rank 3 or more");
  for (int i = 2; i < rank; i++) axes[i - 2] = i;
  MlcGExpr *y = standardize(n, x, axes, rank - 2, eps);
  y = binop(n, "add", binop(n, "multiply", y, per_channel(n, scale, rank)), per_channel(n, bias, rank));
  return (n->out[0] = y) != NULL;
}

bool mlc_onnx__conv_mvn(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t axes[MLC_ONNX_MAX_RANK] = {0, 2, 3};
  int k;
  if (!x || !mlc_onnx__attr_ints(n, "axes", axes, MLC_ONNX_MAX_RANK, &k)) return false;
  if (k < 0) k = 3;
  MlcGExpr *mean = reduce_keep(n, "mean", x, axes, k);
  MlcGExpr *ex2 = reduce_keep(n, "mean", binop(n, "multiply", x, x), axes, k);
  MlcGExpr *std = mlc_onnx__emit1(n, "sqrt", binop(n, "subtract", ex2, binop(n, "multiply", mean, mean)));
  return (n->out[0] = binop(n, "divide", binop(n, "subtract", x, mean), with_scalar(n, "add", std, 1e-9))) != NULL;
}

bool mlc_onnx__conv_lpnorm(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t axis, p;
  int rank;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "axis", -1, &axis) || !mlc_onnx__attr_int(n, "p", 2, &p))
    return false;
  if (p != 1 && p != 2) return mlc_onnx__node_fail(n, "p = %lld is not supported", (long long)p);
  MlcGExpr *norm = p == 1 ? reduce_keep(n, "sum", mlc_onnx__emit1(n, "abs", x), &axis, 1)
                          : mlc_onnx__emit1(n, "sqrt", reduce_keep(n, "sum", binop(n, "multiply", x, x), &axis, 1));
  /* a zero norm means a zero slice, which ONNX leaves zero */
  MlcGExpr *zero = binop(n, "equal", norm, norm ? mlc_onnx__scalar_like(n, norm, 0) : NULL);
  MlcGExpr *args[3] = {zero, norm ? mlc_onnx__scalar_like(n, norm, 1) : NULL, norm};
  MlcGExpr *den = zero ? mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}) : NULL;
  return (n->out[0] = binop(n, "divide", x, den)) != NULL;
}

bool mlc_onnx__conv_rmsnorm(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *scale = mlc_onnx__input(n, 1);
  int64_t axis, axes[MLC_ONNX_MAX_RANK];
  double eps;
  int rank;
  if (!x || !scale || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "axis", -1, &axis) ||
      !mlc_onnx__attr_float(n, "epsilon", 1e-5, &eps))
    return false;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return mlc_onnx__node_fail(n, "axis is out of range");
  for (int i = (int)axis; i < rank; i++) axes[i - axis] = i;
  MlcGExpr *ms = reduce_keep(n, "mean", binop(n, "multiply", x, x), axes, rank - (int)axis);
  MlcGExpr *rms = mlc_onnx__emit1(n, "sqrt", with_scalar(n, "add", ms, eps));
  return (n->out[0] = binop(n, "multiply", binop(n, "divide", x, rms), scale)) != NULL;
}

/* x (N, C, ...) normalized per group of C / G channels; scale and bias per
 * group (opset 18) or per channel (21) */
bool mlc_onnx__conv_groupnorm(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *scale = mlc_onnx__input(n, 1), *bias = mlc_onnx__input(n, 2);
  int64_t g, dims[MLC_ONNX_MAX_RANK], axis2 = 2;
  double eps;
  int rank;
  if (!x || !scale || !bias || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "num_groups", 1, &g) ||
      !mlc_onnx__attr_float(n, "epsilon", 1e-5, &eps))
    return false;
  if (rank < 2 || !static_dims(n, x, rank, dims)) return rank < 2 ? mlc_onnx__node_fail(n, "expects rank 2 or more") : false;
  if (g < 1 || dims[1] % g) return mlc_onnx__node_fail(n, "num_groups must divide the channels");
  int64_t grouped[3] = {dims[0], g, -1};
  MlcGExpr *y = standardize(n, reshape(n, x, grouped, 3), &axis2, 1, eps);
  if (n->opset < 21) {
    int64_t per[4] = {dims[0], g, dims[1] / g, -1};
    MlcGExpr *s4 = per_channel(n, scale, 4), *b4 = per_channel(n, bias, 4);
    y = binop(n, "add", binop(n, "multiply", reshape(n, y, per, 4), s4), b4);
    return (n->out[0] = reshape(n, y, dims, rank)) != NULL;
  }
  y = reshape(n, y, dims, rank);
  y = binop(n, "add", binop(n, "multiply", y, per_channel(n, scale, rank)), per_channel(n, bias, rank));
  return (n->out[0] = y) != NULL;
}

/* LRN: the channel window's sum of squares as an average pool over
 * (N, 1, C, rest) with count_include_pad */
bool mlc_onnx__conv_lrn(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t size, dims[MLC_ONNX_MAX_RANK];
  double alpha, beta, bias;
  int rank;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "size", 1, &size) ||
      !mlc_onnx__attr_float(n, "alpha", 1e-4, &alpha) || !mlc_onnx__attr_float(n, "beta", 0.75, &beta) ||
      !mlc_onnx__attr_float(n, "bias", 1.0, &bias))
    return false;
  if (rank < 3 || !static_dims(n, x, rank, dims)) return rank < 3 ? mlc_onnx__node_fail(n, "expects rank 3 or more") : false;
  if (size < 1) return mlc_onnx__node_fail(n, "size must be positive");
  int64_t flat[4] = {dims[0], 1, dims[1], -1}, lo = (size - 1) / 2, hi = size - 1 - lo;
  int64_t pool[2] = {size, 1}, pads[4] = {lo, 0, hi, 0}, one[2] = {1, 1};
  MlcAttr a[5] = {attr("pool_size", mlc_onnx__av_ints(ctx, pool, 2)), attr("padding", mlc_onnx__av_ints(ctx, pads, 4)),
                  attr("strides", mlc_onnx__av_ints(ctx, one, 2)), attr("count_include_pad", av_bool(true)),
                  attr("ceil_mode", av_bool(false))};
  MlcGExpr *sq = reshape(n, binop(n, "multiply", x, x), flat, 4);
  MlcGExpr *avg = sq ? mlc_onnx__emit_attrs(n, "nn.avg_pool2d", &sq, 1, 5, a) : NULL;
  MlcGExpr *den = with_scalar(n, "add", with_scalar(n, "multiply", reshape(n, avg, dims, rank), alpha), bias);
  return (n->out[0] = binop(n, "divide", x, with_scalar(n, "power", den, beta))) != NULL;
}
