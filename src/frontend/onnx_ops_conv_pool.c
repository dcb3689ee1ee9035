/* onnx_ops_conv_pool.c - converters of ONNX's linear algebra, convolution,
 * pooling, normalization, softmax and reduction ops onto the registry's
 * ops (2-D NCHW convolution and pooling; the rest by rank). */
#include <string.h>

#include "onnx_convert.h"

#define MAX_RANK 32


/* ---- matmul, gemm ------------------------------------------------------------------------- */

bool mlc_onnx__conv_matmul(MlcOnnxNode *n) {
  return (n->out[0] = mlc_onnx__emit2(n, "matmul", mlc_onnx__input(n, 0), mlc_onnx__input(n, 1))) != NULL;
}

static MlcGExpr *transpose2d(MlcOnnxNode *n, MlcGExpr *x) {
  int64_t perm[2] = {1, 0};
  MlcAttr a = attr("axes", mlc_onnx__av_ints(n->im->ctx, perm, 2));
  return mlc_onnx__emit_attrs(n, "permute_dims", &x, 1, 1, &a);
}

bool mlc_onnx__conv_gemm(MlcOnnxNode *n) {
  MlcGExpr *a = mlc_onnx__input(n, 0), *b = mlc_onnx__input(n, 1);
  int64_t ta, tb;
  double alpha, beta;
  if (!a || !b || !mlc_onnx__attr_int(n, "transA", 0, &ta) || !mlc_onnx__attr_int(n, "transB", 0, &tb) ||
      !mlc_onnx__attr_float(n, "alpha", 1.0, &alpha) || !mlc_onnx__attr_float(n, "beta", 1.0, &beta))
    return false;
  if (ta) a = transpose2d(n, a);
  if (tb && a) b = transpose2d(n, b);
  MlcGExpr *y = a && b ? mlc_onnx__emit2(n, "matmul", a, b) : NULL;
  if (y && alpha != 1.0) y = mlc_onnx__emit2(n, "multiply", y, mlc_onnx__scalar_like(n, y, alpha));
  if (y && n->n_in > 2 && n->in[2]) {
    MlcGExpr *c = n->in[2];
    if (beta != 1.0) c = mlc_onnx__emit2(n, "multiply", c, mlc_onnx__scalar_like(n, c, beta));
    y = c ? mlc_onnx__emit2(n, "add", y, c) : NULL;
  }
  return (n->out[0] = y) != NULL;
}

/* ---- convolution and pooling --------------------------------------------------------------- */

typedef struct Window {
  int64_t kernel[2], strides[2], dilations[2], pads[4];
} Window;

/* the window attributes of nd (1 or 2) spatial dims as a 2-D window; a 1-D
 * window is the 2-D one over (1, L): its H part is the identity (kernel,
 * stride and dilation 1, no padding).  auto_pad SAME_* is computed from
 * static sizes. */
static bool read_window(MlcOnnxNode *n, const MlcGExpr *x, const int64_t *kernel, int nd, Window *w) {
  int k, off = 2 - nd; /* the first 2-D slot the attributes fill */
  int64_t v[8];
  for (int i = 0; i < 2; i++) w->kernel[i] = i < off ? 1 : kernel[i - off], w->strides[i] = 1, w->dilations[i] = 1;
  memset(w->pads, 0, sizeof w->pads);
  if (!mlc_onnx__attr_ints(n, "strides", v, 8, &k)) return false;
  if (k == nd) memcpy(w->strides + off, v, (size_t)nd * sizeof *v);
  else if (k >= 0) return mlc_onnx__node_fail(n, "strides: %d values for a %d-D window", k, nd);
  if (!mlc_onnx__attr_ints(n, "dilations", v, 8, &k)) return false;
  if (k == nd) memcpy(w->dilations + off, v, (size_t)nd * sizeof *v);
  else if (k >= 0) return mlc_onnx__node_fail(n, "dilations: %d values for a %d-D window", k, nd);
  if (!mlc_onnx__attr_ints(n, "pads", v, 8, &k)) return false;
  if (k == 2 * nd)
    for (int i = 0; i < nd; i++) w->pads[off + i] = v[i], w->pads[2 + off + i] = v[nd + i];
  else if (k >= 0) return mlc_onnx__node_fail(n, "pads: %d values for a %d-D window", k, nd);
  for (int i = 0; i < 2; i++)
    if (w->kernel[i] < 1 || w->strides[i] < 1 || w->dilations[i] < 1 || w->pads[i] < 0 || w->pads[i + 2] < 0)
      return mlc_onnx__node_fail(n, "kernel, strides and dilations must be positive and pads not negative");
  const char *auto_pad = mlc_onnx__attr_str(n, "auto_pad", "NOTSET");
  if (!strcmp(auto_pad, "NOTSET") || !strcmp(auto_pad, "VALID")) {
    if (!strcmp(auto_pad, "VALID")) memset(w->pads, 0, sizeof w->pads);
    return true;
  }
  bool upper = !strcmp(auto_pad, "SAME_UPPER");
  if (!upper && strcmp(auto_pad, "SAME_LOWER")) return mlc_onnx__node_fail(n, "auto_pad '%s' is not supported", auto_pad);
  for (int i = off; i < 2; i++) {
    int64_t in;
    if (!mlc_onnx__const_dim(x, 2 + i - off, &in)) return mlc_onnx__node_fail(n, "auto_pad over a symbolic size is not supported");
    int64_t out = (in + w->strides[i] - 1) / w->strides[i];
    int64_t total = (out - 1) * w->strides[i] + (w->kernel[i] - 1) * w->dilations[i] + 1 - in;
    if (total < 0) total = 0;
    w->pads[i] = upper ? total / 2 : total - total / 2;
    w->pads[i + 2] = total - w->pads[i];
  }
  return true;
}

/* a 1-D (N, C, L) value as the 2-D (N, C, 1, L) one, and back */
static MlcGExpr *as_2d(MlcOnnxNode *n, MlcGExpr *x) {
  int64_t axis = 2;
  MlcAttr a = attr("axis", mlc_onnx__av_ints(n->im->ctx, &axis, 1));
  return x ? mlc_onnx__emit_attrs(n, "expand_dims", &x, 1, 1, &a) : NULL;
}

static MlcGExpr *from_2d(MlcOnnxNode *n, MlcGExpr *y) {
  int64_t axis = 2;
  MlcAttr a = attr("axis", mlc_onnx__av_ints(n->im->ctx, &axis, 1));
  return y ? mlc_onnx__emit_attrs(n, "squeeze", &y, 1, 1, &a) : NULL;
}

static int window_attrs(MlcCtx *ctx, const Window *w, MlcAttr *a, bool with_kernel) {
  int k = 0;
  if (with_kernel) a[k++] = attr("pool_size", mlc_onnx__av_ints(ctx, w->kernel, 2));
  a[k++] = attr("strides", mlc_onnx__av_ints(ctx, w->strides, 2));
  a[k++] = attr("padding", mlc_onnx__av_ints(ctx, w->pads, 4));
  a[k++] = attr("dilation", mlc_onnx__av_ints(ctx, w->dilations, 2));
  return k;
}

bool mlc_onnx__conv_conv(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0), *wt = mlc_onnx__input(n, 1);
  int rank;
  int64_t kernel[2], group;
  if (!x || !wt || !need_rank(n, x, &rank)) return false;
  if (rank != 3 && rank != 4) return mlc_onnx__node_fail(n, "convolution other than 1-D or 2-D (rank 3 or 4 input) is not supported");
  int nd = rank - 2;
  if (mlc_onnx__rank(wt) != rank) return mlc_onnx__node_fail(n, "the weight must have rank %d", rank);
  for (int i = 0; i < nd; i++)
    if (!mlc_onnx__const_dim(wt, 2 + i, &kernel[i])) return mlc_onnx__node_fail(n, "the kernel size must be static");
  Window w;
  if (!read_window(n, x, kernel, nd, &w) || !mlc_onnx__attr_int(n, "group", 1, &group)) return false;
  MlcAttr a[5];
  int k = window_attrs(ctx, &w, a, false);
  a[k++] = attr("groups", mlc_onnx__av_int(group));
  MlcGExpr *args[2] = {nd == 1 ? as_2d(n, x) : x, nd == 1 ? as_2d(n, wt) : wt};
  MlcGExpr *y = args[0] && args[1] ? mlc_onnx__emit_attrs(n, "nn.conv2d", args, 2, k, a) : NULL;
  if (y && n->n_in > 2 && n->in[2]) {
    /* bias (C,) -> (C, 1, 1), broadcast over N, H, W */
    int64_t axes[2] = {1, 2};
    MlcAttr e = attr("axis", mlc_onnx__av_ints(ctx, axes, 2));
    MlcGExpr *b = mlc_onnx__emit_attrs(n, "expand_dims", &n->in[2], 1, 1, &e);
    y = b ? mlc_onnx__emit2(n, "add", y, b) : NULL;
  }
  return (n->out[0] = nd == 1 ? from_2d(n, y) : y) != NULL;
}

static bool pool(MlcOnnxNode *n, const char *op) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int rank, k;
  int64_t kernel[8], ceil_mode, include_pad;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_ints(n, "kernel_shape", kernel, 8, &k) ||
      !mlc_onnx__attr_int(n, "ceil_mode", 0, &ceil_mode) || !mlc_onnx__attr_int(n, "count_include_pad", 0, &include_pad))
    return false;
  if ((rank != 3 && rank != 4) || k != rank - 2)
    return mlc_onnx__node_fail(n, "pooling other than 1-D or 2-D (rank 3 or 4 input) is not supported");
  if (n->n_out > 1 && n->proto->output[1] && *n->proto->output[1])
    return mlc_onnx__node_fail(n, "the Indices output is not supported");
  Window w;
  if (!read_window(n, x, kernel, k, &w)) return false;
  MlcAttr a[6];
  int na = window_attrs(ctx, &w, a, true);
  a[na++] = attr("ceil_mode", av_bool(ceil_mode != 0));
  if (!strcmp(op, "nn.avg_pool2d")) a[na++] = attr("count_include_pad", av_bool(include_pad != 0));
  MlcGExpr *in = k == 1 ? as_2d(n, x) : x;
  MlcGExpr *y = in ? mlc_onnx__emit_attrs(n, op, &in, 1, na, a) : NULL;
  return (n->out[0] = k == 1 ? from_2d(n, y) : y) != NULL;
}

bool mlc_onnx__conv_maxpool(MlcOnnxNode *n) { return pool(n, "nn.max_pool2d"); }
bool mlc_onnx__conv_avgpool(MlcOnnxNode *n) { return pool(n, "nn.avg_pool2d"); }

/* reduce x over axes 2.. with keepdims */
static bool global_pool(MlcOnnxNode *n, const char *op) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int rank;
  if (!x || !need_rank(n, x, &rank)) return false;
  if (rank < 3) return mlc_onnx__node_fail(n, "expects rank 3 or more");
  int64_t axes[MAX_RANK];
  for (int i = 2; i < rank; i++) axes[i - 2] = i;
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_ints(n->im->ctx, axes, rank - 2)), attr("keepdims", av_bool(true))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, op, &x, 1, 2, a)) != NULL;
}

bool mlc_onnx__conv_global_avgpool(MlcOnnxNode *n) { return global_pool(n, "mean"); }
bool mlc_onnx__conv_global_maxpool(MlcOnnxNode *n) { return global_pool(n, "max"); }

/* ---- normalization and softmax --------------------------------------------------------------- */

bool mlc_onnx__conv_batchnorm(MlcOnnxNode *n) {
  double eps;
  int64_t training = 0;
  if (!mlc_onnx__attr_float(n, "epsilon", 1e-5, &eps) || !mlc_onnx__attr_int(n, "training_mode", 0, &training))
    return false;
  if (training || n->n_out > 1) return mlc_onnx__node_fail(n, "training mode (running statistics outputs) is not supported");
  MlcGExpr *args[5];
  for (int i = 0; i < 5; i++)
    if (!(args[i] = mlc_onnx__input(n, i))) return false;
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_int(1)), attr("epsilon", mlc_onnx__av_float(eps))};
  MlcGExpr *t = mlc_onnx__emit_attrs(n, "nn.batch_norm", args, 5, 2, a);
  return (n->out[0] = mlc_onnx__item(n, t, 0)) != NULL;
}

static bool wants_output(const MlcOnnxNode *n, int i) {
  return i < n->n_out && n->proto->output[i] && *n->proto->output[i];
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
  if (rank > MAX_RANK) return mlc_onnx__node_fail(n, "inputs of rank over %d are not supported", MAX_RANK);
  if (axis < -rank || axis >= rank)
    return mlc_onnx__node_fail(n, "axis %lld is out of range for rank %d", (long long)axis, rank);
  if (axis < 0) axis += rank;
  int64_t axes[MAX_RANK];
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

static bool softmax(MlcOnnxNode *n, const char *op) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t axis;
  int rank;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "axis", n->opset >= 13 ? -1 : 1, &axis)) return false;
  if (axis < 0) axis += rank;
  MlcAttr a = attr("axis", mlc_onnx__av_int(n->opset >= 13 ? axis : -1));
  if (n->opset >= 13 || axis == rank - 1) {
    if (n->opset < 13) a = attr("axis", mlc_onnx__av_int(rank - 1));
    return (n->out[0] = mlc_onnx__emit_attrs(n, op, &x, 1, 1, &a)) != NULL;
  }
  /* before opset 13 the input is seen as 2-D: [prod(:axis), prod(axis:)] */
  int64_t dims[MAX_RANK], rows = 1, cols = 1;
  for (int i = 0; i < rank; i++) {
    if (!mlc_onnx__const_dim(x, i, &dims[i])) return mlc_onnx__node_fail(n, "a symbolic shape is not supported here");
    if (i < axis) rows *= dims[i];
    else cols *= dims[i];
  }
  int64_t flat[2] = {rows, cols};
  MlcAttr r1 = attr("shape", mlc_onnx__av_ints(n->im->ctx, flat, 2));
  MlcGExpr *x2 = mlc_onnx__emit_attrs(n, "reshape", &x, 1, 1, &r1);
  MlcGExpr *y2 = x2 ? mlc_onnx__emit_attrs(n, op, &x2, 1, 1, &a) : NULL;
  MlcAttr r2 = attr("shape", mlc_onnx__av_ints(n->im->ctx, dims, rank));
  return y2 && (n->out[0] = mlc_onnx__emit_attrs(n, "reshape", &y2, 1, 1, &r2)) != NULL;
}

bool mlc_onnx__conv_softmax(MlcOnnxNode *n) { return softmax(n, "nn.softmax"); }
bool mlc_onnx__conv_logsoftmax(MlcOnnxNode *n) { return softmax(n, "nn.log_softmax"); }

/* ---- reductions ----------------------------------------------------------------------------- */

typedef enum { PRE_NONE, PRE_ABS, PRE_SQUARE, PRE_EXP } Pre;
typedef enum { POST_NONE, POST_SQRT, POST_LOG } Post;

/* op(pre(x)) over the node's axes, then post; axes moved from an attribute
 * to an input at opset 13 for ReduceSum and 18 for the others */
static bool reduce(MlcOnnxNode *n, const char *op, Pre pre, Post post) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t axes[MAX_RANK], keepdims, noop;
  int k;
  int64_t since = !strcmp(op, "sum") && pre == PRE_NONE && post == POST_NONE ? 13 : 18;
  if (!x || !mlc_onnx__ints_attr_or_input(n, "axes", since, 1, axes, MAX_RANK, &k) ||
      !mlc_onnx__attr_int(n, "keepdims", 1, &keepdims) || !mlc_onnx__attr_int(n, "noop_with_empty_axes", 0, &noop))
    return false;
  if (k <= 0 && noop) {
    n->out[0] = x;
    return true;
  }
  MlcGExpr *y = x;
  if (pre == PRE_ABS) y = mlc_onnx__emit1(n, "abs", y);
  else if (pre == PRE_SQUARE) y = mlc_onnx__emit2(n, "multiply", y, y);
  else if (pre == PRE_EXP) y = mlc_onnx__emit1(n, "exp", y);
  if (!y) return false;
  MlcAttr a[2] = {attr("keepdims", av_bool(keepdims != 0)), attr("axis", mlc_onnx__av_ints(n->im->ctx, axes, k > 0 ? k : 0))};
  y = mlc_onnx__emit_attrs(n, op, &y, 1, k > 0 ? 2 : 1, a);
  if (y && post == POST_SQRT) y = mlc_onnx__emit1(n, "sqrt", y);
  else if (y && post == POST_LOG) y = mlc_onnx__emit1(n, "log", y);
  return (n->out[0] = y) != NULL;
}

bool mlc_onnx__conv_reduce_sum(MlcOnnxNode *n) { return reduce(n, "sum", PRE_NONE, POST_NONE); }
bool mlc_onnx__conv_reduce_mean(MlcOnnxNode *n) { return reduce(n, "mean", PRE_NONE, POST_NONE); }
bool mlc_onnx__conv_reduce_max(MlcOnnxNode *n) { return reduce(n, "max", PRE_NONE, POST_NONE); }
bool mlc_onnx__conv_reduce_min(MlcOnnxNode *n) { return reduce(n, "min", PRE_NONE, POST_NONE); }
bool mlc_onnx__conv_reduce_l1(MlcOnnxNode *n) { return reduce(n, "sum", PRE_ABS, POST_NONE); }
bool mlc_onnx__conv_reduce_l2(MlcOnnxNode *n) { return reduce(n, "sum", PRE_SQUARE, POST_SQRT); }
bool mlc_onnx__conv_reduce_sumsquare(MlcOnnxNode *n) { return reduce(n, "sum", PRE_SQUARE, POST_NONE); }
bool mlc_onnx__conv_reduce_logsum(MlcOnnxNode *n) { return reduce(n, "sum", PRE_NONE, POST_LOG); }
bool mlc_onnx__conv_reduce_logsumexp(MlcOnnxNode *n) { return reduce(n, "sum", PRE_EXP, POST_LOG); }
