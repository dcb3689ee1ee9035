/* onnx_ops_loss.c - converters of ONNX's loss functions,
 * NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, composed of graph
 * ops.
 *
 * The class a target names is selected with a bool mask over C (target ==
 * iota, and target != ignore_index) instead of a gather: an ignored or out
 * of range index then selects nothing and contributes loss 0 and weight 0
 * with no index clamping, and the masked values go through `where`, not a
 * multiply, so a -inf log-probability of a class not picked cannot turn
 * into -inf * 0 = NaN.  Each target position holds one class, so summing
 * the masked values over C is exact. */
#include <string.h>

#include "onnx_convert.h"

#define MAX_CLASSES (1 << 20) /* bounds the iota constant built at import */


typedef enum { RED_NONE, RED_SUM, RED_MEAN } Reduction;

/* what both losses read off the node */
typedef struct LossAttrs {
  Reduction reduction;
  bool has_ii;
  int64_t ii;
} LossAttrs;

static bool read_loss_attrs(MlcOnnxNode *n, LossAttrs *la) {
  const char *red = mlc_onnx__attr_str(n, "reduction", "mean");
  if (!red) red = "mean";
  if (!strcmp(red, "none")) la->reduction = RED_NONE;
  else if (!strcmp(red, "sum")) la->reduction = RED_SUM;
  else if (!strcmp(red, "mean")) la->reduction = RED_MEAN;
  else return mlc_onnx__node_fail(n, "reduction '%s' is not supported (expected none, sum or mean)", red);
  la->has_ii = mlc_onnx__attr(n, "ignore_index") != NULL;
  la->ii = 0;
  return !la->has_ii || mlc_onnx__attr_int(n, "ignore_index", 0, &la->ii);
}

static MlcGExpr *emit_ints(MlcOnnxNode *n, const char *op, MlcGExpr *x, const char *key, const int64_t *v, int k) {
  MlcAttr a = attr(key, mlc_onnx__av_ints(n->im->ctx, v, k));
  return x ? mlc_onnx__emit_attrs(n, op, &x, 1, 1, &a) : NULL;
}

static MlcGExpr *astype(MlcOnnxNode *n, MlcGExpr *x, MlcDType t) {
  MlcAttr a = attr("dtype", mlc_onnx__av_dtype(t));
  return x ? mlc_onnx__emit_attrs(n, "astype", &x, 1, 1, &a) : NULL;
}

/* sum of x over axis 1 (the classes), dropping it */
static MlcGExpr *sum_classes(MlcOnnxNode *n, MlcGExpr *x) {
  int64_t axis = 1;
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_ints(n->im->ctx, &axis, 1)), attr("keepdims", av_bool(false))};
  return x ? mlc_onnx__emit_attrs(n, "sum", &x, 1, 2, a) : NULL;
}

/* the sum of every element, a 0-d tensor */
static MlcGExpr *sum_all(MlcOnnxNode *n, MlcGExpr *x) {
  MlcAttr a = attr("keepdims", av_bool(false));
  return x ? mlc_onnx__emit_attrs(n, "sum", &x, 1, 1, &a) : NULL;
}

/* the int64 constant 0..c-1 shaped (1, c, 1, ..., 1), rank `rank` */
static MlcGExpr *class_iota(MlcOnnxNode *n, int64_t c, int rank) {
  MlcCtx *ctx = n->im->ctx;
  int64_t *v = mlc_arena_array(&ctx->arena, (size_t)c, sizeof *v);
  for (int64_t i = 0; i < c; i++) v[i] = i;
  MlcTensorData *d = mlc_onnx__i64s(ctx, v, (int)c);
  d->shape = mlc_arena_array(&ctx->arena, (size_t)rank, sizeof *d->shape);
  for (int i = 0; i < rank; i++) d->shape[i] = i == 1 ? c : 1;
  d->ndim = rank;
  return mlc_g_const(ctx, d);
}

/* (N, C, d1..dk) bool: true where class c is the target of its position
 * and that target is not ignored */
static MlcGExpr *class_mask(MlcOnnxNode *n, MlcGExpr *target, int64_t c, int rank, const LossAttrs *la) {
  if (!mlc_dtype_eq(mlc_onnx__dtype_of(target), MLC_I64_T)) target = astype(n, target, MLC_I64_T);
  int64_t axis = 1;
  MlcGExpr *t = emit_ints(n, "expand_dims", target, "axis", &axis, 1);
  MlcGExpr *mask = t ? mlc_onnx__emit2(n, "equal", t, class_iota(n, c, rank)) : NULL;
  if (!mask || !la->has_ii) return mask;
  MlcGExpr *kept = mlc_onnx__emit2(n, "not_equal", t, mlc_onnx__scalar_like(n, t, (double)la->ii));
  return kept ? mlc_onnx__emit2(n, "logical_and", mask, kept) : NULL;
}

/* v's value at each position's target class (0 where none is selected) */
static MlcGExpr *pick(MlcOnnxNode *n, MlcGExpr *mask, MlcGExpr *v, MlcGExpr *zero) {
  MlcGExpr *args[3] = {mask, v, zero};
  return mask && v ? sum_classes(n, mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0})) : NULL;
}

/* the checks both losses need: shapes (N, C, d1..dk) / (N, d1..dk) / (C),
 * an integer target, a static class count */
static bool check_operands(MlcOnnxNode *n, MlcGExpr *logp, MlcGExpr *target, MlcGExpr *weight, int *rank,
                           int64_t *c) {
  *rank = mlc_onnx__rank(logp);
  if (*rank < 0 || mlc_onnx__rank(target) < 0) return mlc_onnx__node_fail(n, "inputs of unknown rank are not supported");
  if (*rank < 2 || *rank > MLC_ONNX_MAX_RANK) return mlc_onnx__node_fail(n, "the input must have rank 2 to %d, got %d", MLC_ONNX_MAX_RANK, *rank);
  if (mlc_onnx__rank(target) != *rank - 1)
    return mlc_onnx__node_fail(n, "the target must have rank %d (one less than the input), got %d", *rank - 1,
                                mlc_onnx__rank(target));
  if (!mlc_dtype_is_int(mlc_onnx__dtype_of(target))) return mlc_onnx__node_fail(n, "the target must be an integer tensor");
  if (!mlc_dtype_is_float(mlc_onnx__dtype_of(logp))) return mlc_onnx__node_fail(n, "the input must be a float tensor");
  if (weight && mlc_onnx__rank(weight) != 1) return mlc_onnx__node_fail(n, "the weight must have rank 1");
  if (!mlc_onnx__const_dim(logp, 1, c)) return mlc_onnx__node_fail(n, "a symbolic class count is not supported");
  if (*c < 1 || *c > MAX_CLASSES) return mlc_onnx__node_fail(n, "a class count of %lld is not supported", (long long)*c);
  return true;
}

/* -logp[target] * weight[target], reduced; NULL + error */
static MlcGExpr *nll(MlcOnnxNode *n, MlcGExpr *logp, MlcGExpr *target, MlcGExpr *weight, const LossAttrs *la) {
  int rank;
  int64_t c;
  if (!check_operands(n, logp, target, weight, &rank, &c)) return NULL;
  MlcGExpr *mask = class_mask(n, target, c, rank, la);
  MlcGExpr *zero = mlc_onnx__scalar_like(n, logp, 0);
  MlcGExpr *loss = mlc_onnx__emit1(n, "negative", pick(n, mask, logp, zero));
  MlcGExpr *w = NULL; /* the weight of each position; NULL: 1 where a class is selected */
  if (weight) {
    int64_t axes[MLC_ONNX_MAX_RANK];
    axes[0] = 0;
    for (int i = 2; i < rank; i++) axes[i - 1] = i;
    w = pick(n, mask, emit_ints(n, "expand_dims", weight, "axis", axes, rank - 1), zero);
    loss = loss && w ? mlc_onnx__emit2(n, "multiply", loss, w) : NULL;
  }
  if (!loss || la->reduction == RED_NONE) return loss;
  MlcGExpr *total = sum_all(n, loss);
  if (la->reduction == RED_SUM) return total;
  if (!w) w = sum_classes(n, astype(n, mask, mlc_onnx__dtype_of(logp)));
  MlcGExpr *wsum = sum_all(n, w);
  return total && wsum ? mlc_onnx__emit2(n, "divide", total, wsum) : NULL;
}

static MlcGExpr *opt_input(MlcOnnxNode *n, int i) { return i < n->n_in ? n->in[i] : NULL; }

bool mlc_onnx__conv_nllloss(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *target = mlc_onnx__input(n, 1);
  LossAttrs la;
  if (!x || !target || !read_loss_attrs(n, &la)) return false;
  return (n->out[0] = nll(n, x, target, opt_input(n, 2), &la)) != NULL;
}

bool mlc_onnx__conv_sce_loss(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *target = mlc_onnx__input(n, 1);
  LossAttrs la;
  if (!x || !target || !read_loss_attrs(n, &la)) return false;
  if (mlc_onnx__rank(x) < 2) return mlc_onnx__node_fail(n, "the input must have rank 2 or more");
  MlcAttr a = attr("axis", mlc_onnx__av_int(1));
  MlcGExpr *logp = mlc_onnx__emit_attrs(n, "nn.log_softmax", &x, 1, 1, &a);
  if (!logp) return false;
  if (n->n_out > 1) n->out[1] = logp;
  return (n->out[0] = nll(n, logp, target, opt_input(n, 2), &la)) != NULL;
}
