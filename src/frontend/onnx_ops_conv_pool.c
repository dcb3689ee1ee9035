/* onnx_ops_conv_pool.c - converters of ONNX's convolutions and pools (Conv,
 * ConvTranspose, DeformConv, CausalConvWithState, MaxPool, MaxUnpool,
 * AveragePool, the global pools, LpPool and GlobalLpPool) onto the registry's 2-D NCHW
 * ops; 1-D windows are lifted to 2-D, 3-D pools are two 2-D pools
 * (pool_nd), 3-D transposed convolutions are nn.conv3d_transpose, other 3-D
 * convolutions are refused. */
#include <math.h>
#include <string.h>

#include "onnx_convert.h"

/* the node's optional input i, NULL when omitted */
static MlcGExpr *opt_input(MlcOnnxNode *n, int i) { return i < n->n_in ? n->in[i] : NULL; }

static MlcGExpr *emit_ints(MlcOnnxNode *n, const char *op, MlcGExpr *x, const char *key, const int64_t *v, int k) {
  MlcAttr a = attr(key, mlc_onnx__av_ints(n->im->ctx, v, k));
  return x ? mlc_onnx__emit_attrs(n, op, &x, 1, 1, &a) : NULL;
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

/* ---- convolution and pooling --------------------------------------------------------------- */

/* a window of 1 to 3 spatial dims as ONNX gives it (pads: begins, then ends) */
typedef struct WindowNd {
  int nd;
  int64_t kernel[3], strides[3], dilations[3], pads[6];
} WindowNd;

/* a window of the registry's 2-D ops: (H, W) */
typedef struct Window {
  int64_t kernel[2], strides[2], dilations[2], pads[4];
} Window;

/* the window attributes of nd (1 to 3) spatial dims; auto_pad SAME_* is
 * computed from static sizes */
static bool read_window_nd(MlcOnnxNode *n, const MlcGExpr *x, const int64_t *kernel, int nd, WindowNd *w) {
  int k;
  int64_t v[8];
  w->nd = nd;
  for (int i = 0; i < nd; i++) w->kernel[i] = kernel[i], w->strides[i] = 1, w->dilations[i] = 1;
  memset(w->pads, 0, sizeof w->pads);
  if (!mlc_onnx__attr_ints(n, "strides", v, 8, &k)) return false;
  if (k == nd) memcpy(w->strides, v, (size_t)nd * sizeof *v);
  else if (k >= 0) return mlc_onnx__node_fail(n, "strides: %d values for a %d-D window", k, nd);
  if (!mlc_onnx__attr_ints(n, "dilations", v, 8, &k)) return false;
  if (k == nd) memcpy(w->dilations, v, (size_t)nd * sizeof *v);
  else if (k >= 0) return mlc_onnx__node_fail(n, "dilations: %d values for a %d-D window", k, nd);
  if (!mlc_onnx__attr_ints(n, "pads", v, 8, &k)) return false;
  if (k == 2 * nd) memcpy(w->pads, v, (size_t)(2 * nd) * sizeof *v);
  else if (k >= 0) return mlc_onnx__node_fail(n, "pads: %d values for a %d-D window", k, nd);
  for (int i = 0; i < nd; i++)
    if (w->kernel[i] < 1 || w->strides[i] < 1 || w->dilations[i] < 1 || w->pads[i] < 0 || w->pads[nd + i] < 0)
      return mlc_onnx__node_fail(n, "kernel, strides and dilations must be positive and pads not negative");
  const char *auto_pad = mlc_onnx__attr_str(n, "auto_pad", "NOTSET");
  if (!strcmp(auto_pad, "NOTSET") || !strcmp(auto_pad, "VALID")) {
    if (!strcmp(auto_pad, "VALID")) memset(w->pads, 0, sizeof w->pads);
    return true;
  }
  bool upper = !strcmp(auto_pad, "SAME_UPPER");
  if (!upper && strcmp(auto_pad, "SAME_LOWER")) return mlc_onnx__node_fail(n, "auto_pad '%s' is not supported", auto_pad);
  for (int i = 0; i < nd; i++) {
    int64_t in;
    if (!mlc_onnx__const_dim(x, 2 + i, &in)) return mlc_onnx__node_fail(n, "auto_pad over a symbolic size is not supported");
    int64_t out = (in + w->strides[i] - 1) / w->strides[i];
    int64_t total = (out - 1) * w->strides[i] + (w->kernel[i] - 1) * w->dilations[i] + 1 - in;
    if (total < 0) total = 0;
    w->pads[i] = upper ? total / 2 : total - total / 2;
    w->pads[nd + i] = total - w->pads[i];
  }
  return true;
}

/* dims h and w of wn as a 2-D window; -1 for either is the identity there
 * (kernel, stride and dilation 1, no padding) */
static Window window_2d(const WindowNd *wn, int h, int w) {
  Window r;
  int src[2] = {h, w};
  for (int i = 0; i < 2; i++) {
    int d = src[i];
    r.kernel[i] = d < 0 ? 1 : wn->kernel[d];
    r.strides[i] = d < 0 ? 1 : wn->strides[d];
    r.dilations[i] = d < 0 ? 1 : wn->dilations[d];
    r.pads[i] = d < 0 ? 0 : wn->pads[d];
    r.pads[2 + i] = d < 0 ? 0 : wn->pads[wn->nd + d];
  }
  return r;
}

/* the window attributes of nd (1 or 2) spatial dims as a 2-D window; a 1-D
 * window is the 2-D one over (1, L) */
static bool read_window(MlcOnnxNode *n, const MlcGExpr *x, const int64_t *kernel, int nd, Window *w) {
  WindowNd wn;
  if (!read_window_nd(n, x, kernel, nd, &wn)) return false;
  *w = nd == 1 ? window_2d(&wn, -1, 0) : window_2d(&wn, 0, 1);
  return true;
}

bool mlc_onnx__conv_window_2d(MlcOnnxNode *n, const MlcGExpr *x, const int64_t *kernel, int64_t *strides,
                              int64_t *dilations, int64_t *pads) {
  Window w;
  if (!read_window(n, x, kernel, 2, &w)) return false;
  memcpy(strides, w.strides, sizeof w.strides), memcpy(dilations, w.dilations, sizeof w.dilations);
  memcpy(pads, w.pads, sizeof w.pads);
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

/* what a pool computes besides its window */
typedef struct PoolKind {
  const char *op; /* nn.max_pool2d, nn.avg_pool2d */
  bool ceil, include_pad;
} PoolKind;

/* one 2-D pool of the rank-4 x over w */
static MlcGExpr *pool_2d(MlcOnnxNode *n, const PoolKind *pk, MlcGExpr *x, const Window *w) {
  MlcAttr a[6];
  int na = window_attrs(n->im->ctx, w, a, true);
  a[na++] = attr("ceil_mode", av_bool(pk->ceil));
  if (!strcmp(pk->op, "nn.avg_pool2d")) a[na++] = attr("count_include_pad", av_bool(pk->include_pad));
  return x ? mlc_onnx__emit_attrs(n, pk->op, &x, 1, na, a) : NULL;
}

/* x pooled over the window of 1 to 3 spatial dims: a 1-D window is the 2-D
 * one over (1, L); a 3-D window pools separably, (H, W) per depth slice and
 * then D over the results (N C D, 1, H, W) -> (N C, 1, D, OH OW).  That is
 * exact: the max of the slices' maxima is the window's max, and an
 * average's divisor (the window's count of data elements, or of data and
 * padding) is the product of its per-dim counts, so the average over D of
 * the (H, W) averages is the window's average. */
static MlcGExpr *pool_nd(MlcOnnxNode *n, const PoolKind *pk, MlcGExpr *x, const WindowNd *wn) {
  if (wn->nd == 1) {
    Window w = window_2d(wn, -1, 0);
    return from_2d(n, pool_2d(n, pk, as_2d(n, x), &w));
  }
  if (wn->nd == 2) {
    Window w = window_2d(wn, 0, 1);
    return pool_2d(n, pk, x, &w);
  }
  int64_t c, d, h, w, oh, ow, od;
  if (!mlc_onnx__const_dim(x, 1, &c) || !mlc_onnx__const_dim(x, 2, &d) || !mlc_onnx__const_dim(x, 3, &h) ||
      !mlc_onnx__const_dim(x, 4, &w))
    return mlc_onnx__node_fail(n, "3-D pooling needs constant channel and spatial dims"), NULL;
  Window hw = window_2d(wn, 1, 2), dd = window_2d(wn, 0, -1);
  int64_t s1[4] = {-1, 1, h, w};
  MlcGExpr *y = pool_2d(n, pk, emit_ints(n, "reshape", x, "shape", s1, 4), &hw);
  if (!y) return NULL;
  if (!mlc_onnx__const_dim(y, 2, &oh) || !mlc_onnx__const_dim(y, 3, &ow))
    return mlc_onnx__node_fail(n, "3-D pooling needs constant output sizes"), NULL;
  int64_t s2[4] = {-1, 1, d, oh * ow};
  y = pool_2d(n, pk, emit_ints(n, "reshape", y, "shape", s2, 4), &dd);
  if (!y) return NULL;
  if (!mlc_onnx__const_dim(y, 2, &od)) return mlc_onnx__node_fail(n, "3-D pooling needs constant output sizes"), NULL;
  int64_t s3[5] = {-1, c, od, oh, ow};
  return emit_ints(n, "reshape", y, "shape", s3, 5);
}

static bool pool(MlcOnnxNode *n, const char *op) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int rank, k;
  int64_t kernel[8], ceil_mode, include_pad;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_ints(n, "kernel_shape", kernel, 8, &k) ||
      !mlc_onnx__attr_int(n, "ceil_mode", 0, &ceil_mode) || !mlc_onnx__attr_int(n, "count_include_pad", 0, &include_pad))
    return false;
  if (rank < 3 || rank > 5 || k != rank - 2)
    return mlc_onnx__node_fail(n, "pooling other than 1-D, 2-D or 3-D (rank 3 to 5 input) is not supported");
  bool indices = n->n_out > 1 && n->proto->output[1] && *n->proto->output[1];
  if (indices && k == 3) return mlc_onnx__node_fail(n, "the Indices output of 3-D pooling is not supported");
  WindowNd w;
  if (!read_window_nd(n, x, kernel, k, &w)) return false;
  PoolKind pk = {op, ceil_mode != 0, include_pad != 0};
  if (!(n->out[0] = pool_nd(n, &pk, x, &w))) return false;
  if (!indices) return true;
  /* the flat positions of the maxima; a 1-D one over (N, C, 1, L) numbers
   * its elements as the 1-D input does */
  int64_t order;
  if (!mlc_onnx__attr_int(n, "storage_order", 0, &order)) return false;
  Window w2 = k == 1 ? window_2d(&w, -1, 0) : window_2d(&w, 0, 1);
  MlcAttr a[6];
  int na = window_attrs(n->im->ctx, &w2, a, true);
  a[na++] = attr("ceil_mode", av_bool(pk.ceil));
  a[na++] = attr("storage_order", mlc_onnx__av_int(order));
  MlcGExpr *in = k == 1 ? as_2d(n, x) : x;
  MlcGExpr *z = in ? mlc_onnx__emit_attrs(n, "nn.max_pool2d_indices", &in, 1, na, a) : NULL;
  return (n->out[1] = k == 1 ? from_2d(n, z) : z) != NULL;
}

bool mlc_onnx__conv_maxpool(MlcOnnxNode *n) { return pool(n, "nn.max_pool2d"); }
bool mlc_onnx__conv_avgpool(MlcOnnxNode *n) { return pool(n, "nn.avg_pool2d"); }

/* output_shape read at run time: its values bound as the output's dims
 * when the model runs (N and C checked equal to x's, none below the
 * unpooled size `in`), and y placed at the corner of a zero tensor of
 * that shape (center_crop_pad anchored at the start) */
static bool unpool_to_runtime_shape(MlcOnnxNode *n, MlcGExpr *x, MlcGExpr *y, const int64_t *in, int rank) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *t = mlc_onnx__i64_row(n, n->in[2]);
  MlcExpr *dims[MLC_ONNX_MAX_RANK], *ignored[MLC_ONNX_MAX_RANK];
  for (int i = 0; i < rank; i++) {
    dims[i] = i < 2 ? mlc_e_int(ctx, MLC_I64, in[i]) : mlc_onnx__fresh_dim(n);
    ignored[i] = mlc_onnx__fresh_dim(n);
  }
  MlcGExpr *over = mlc_onnx__emit2(n, "subtract", t, mlc_onnx__const(n, mlc_onnx__i64s(ctx, in, rank)));
  if (!mlc_onnx__bind_values(n, t, dims, rank) || !mlc_onnx__bind_values(n, over, ignored, rank)) return false;
  MlcAttr ca[2] = {attr("shape", mlc_onnx__av_exprs(ctx, dims, rank)), attr("anchor", mlc_onnx__av_str(ctx, "start"))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "center_crop_pad", &y, 1, 2, ca)) != NULL;
}

/* MaxUnpool: x's values at the flat positions `indices` gives (as MaxPool's
 * Indices output numbers them) of a zero tensor of the unpooled size,
 * (in - 1) * stride - pads + kernel per spatial dim; an output_shape given
 * places that at the corner of a zero tensor of its shape, as ONNX's
 * reference does (known at compile time with nn.pad, read at run time see
 * unpool_to_runtime_shape). */
bool mlc_onnx__conv_maxunpool(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0), *ix = mlc_onnx__input(n, 1);
  int rank, k;
  int64_t kernel[8], dims[MLC_ONNX_MAX_RANK], want[MLC_ONNX_MAX_RANK], numel = 1, wanted = 1;
  if (!x || !ix || !need_rank(n, x, &rank) || !mlc_onnx__attr_ints(n, "kernel_shape", kernel, 8, &k)) return false;
  if (rank < 3 || rank > 5 || k != rank - 2) return mlc_onnx__node_fail(n, "kernel_shape must have one value per spatial dim");
  WindowNd w;
  int given = -1;
  if (!read_window_nd(n, x, kernel, k, &w)) return false;
  bool runtime = opt_input(n, 2) && !(n->known_in[2] || n->in[2]->kind == MLC_G_CONST);
  int64_t len;
  if (runtime && (mlc_onnx__rank(n->in[2]) != 1 || !mlc_onnx__const_dim(n->in[2], 0, &len) || len != rank ||
                  !mlc_dtype_is_int(mlc_onnx__dtype_of(n->in[2]))))
    return mlc_onnx__node_fail(n, "input 2 (output_shape) must hold %d integers", rank);
  if (opt_input(n, 2) && !runtime && !mlc_onnx__known_ints(n, 2, want, MLC_ONNX_MAX_RANK, &given)) return false;
  if (given >= 0 && given != rank) return mlc_onnx__node_fail(n, "input 2 (output_shape) must have %d values", rank);
  for (int i = 0; i < rank; i++) {
    int64_t d;
    if (!mlc_onnx__const_dim(x, i, &d)) return mlc_onnx__node_fail(n, "symbolic input dims are not supported");
    dims[i] = i < 2 ? d : (d - 1) * w.strides[i - 2] - w.pads[i - 2] - w.pads[k + i - 2] + kernel[i - 2];
    if (dims[i] < 1 || dims[i] > ((int64_t)1 << 31)) return mlc_onnx__node_fail(n, "the output dims must be from 1 to 2^31");
    numel *= dims[i];
    if (numel > ((int64_t)1 << 31)) return mlc_onnx__node_fail(n, "an output over 2^31 elements is not supported");
    if (given >= 0 && (want[i] < dims[i] || (i < 2 && want[i] != dims[i])))
      return mlc_onnx__node_fail(n, "input 2 (output_shape): dim %d is %lld, the unpooled size is %lld", i,
                                 (long long)want[i], (long long)dims[i]);
    if (given >= 0 && (want[i] > ((int64_t)1 << 31) || (wanted *= want[i]) > ((int64_t)1 << 31)))
      return mlc_onnx__node_fail(n, "input 2 (output_shape): an output over 2^31 elements is not supported");
  }
  int64_t flat = -1;
  MlcAttr z[2] = {attr("shape", mlc_onnx__av_ints(ctx, &numel, 1)), attr("dtype", mlc_onnx__av_dtype(mlc_onnx__dtype_of(x)))};
  MlcGExpr *args[3] = {mlc_onnx__emit_attrs(n, "zeros", NULL, 0, 2, z), emit_ints(n, "reshape", ix, "shape", &flat, 1),
                       emit_ints(n, "reshape", x, "shape", &flat, 1)};
  MlcAttr ax = attr("axis", mlc_onnx__av_int(0));
  MlcGExpr *y = args[0] && args[1] && args[2] ? mlc_onnx__emit_attrs(n, "scatter_elements", args, 3, 1, &ax) : NULL;
  y = emit_ints(n, "reshape", y, "shape", dims, rank);
  if (y && runtime) return unpool_to_runtime_shape(n, x, y, dims, rank);
  bool grow = false;
  int64_t pads[2 * MLC_ONNX_MAX_RANK] = {0};
  for (int i = 0; i < rank && given >= 0; i++) pads[rank + i] = want[i] - dims[i], grow |= want[i] != dims[i];
  if (y && grow) {
    MlcAttr pa = attr("pad_width", mlc_onnx__av_ints(ctx, pads, 2 * rank));
    y = mlc_onnx__emit_attrs(n, "nn.pad", &y, 1, 1, &pa);
  }
  return (n->out[0] = y) != NULL;
}

/* reduce x over axes 2.. with keepdims */
static bool global_pool(MlcOnnxNode *n, const char *op) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int rank;
  if (!x || !need_rank(n, x, &rank)) return false;
  if (rank < 3) return mlc_onnx__node_fail(n, "expects rank 3 or more");
  int64_t axes[MLC_ONNX_MAX_RANK];
  for (int i = 2; i < rank; i++) axes[i - 2] = i;
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_ints(n->im->ctx, axes, rank - 2)), attr("keepdims", av_bool(true))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, op, &x, 1, 2, a)) != NULL;
}

bool mlc_onnx__conv_global_avgpool(MlcOnnxNode *n) { return global_pool(n, "mean"); }
bool mlc_onnx__conv_global_maxpool(MlcOnnxNode *n) { return global_pool(n, "max"); }

/* ---- DeformConv ------------------------------------------------------------------------------------- */

/* 2-D only; the bias is added after, per channel */
bool mlc_onnx__conv_deform_conv(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0), *w = mlc_onnx__input(n, 1), *off = mlc_onnx__input(n, 2);
  MlcGExpr *bias = opt_input(n, 3), *mask = opt_input(n, 4);
  int64_t kernel[2], group, ogroup;
  if (!x || !w || !off) return false;
  if (mlc_onnx__rank(x) != 4) return mlc_onnx__node_fail(n, "deformable convolution other than 2-D (rank 4 input) is not supported");
  for (int i = 0; i < 2; i++)
    if (!mlc_onnx__const_dim(w, 2 + i, &kernel[i])) return mlc_onnx__node_fail(n, "the kernel size must be static");
  Window win;
  if (!read_window(n, x, kernel, 2, &win) || !mlc_onnx__attr_int(n, "group", 1, &group) ||
      !mlc_onnx__attr_int(n, "offset_group", 1, &ogroup))
    return false;
  MlcAttr a[5];
  int k = window_attrs(ctx, &win, a, false);
  a[k++] = attr("groups", mlc_onnx__av_int(group));
  a[k++] = attr("offset_groups", mlc_onnx__av_int(ogroup));
  MlcGExpr *args[4] = {x, off, w, mask};
  MlcGExpr *y = mlc_onnx__emit_attrs(n, "nn.deform_conv2d", args, mask ? 4 : 3, k, a);
  if (y && bias) y = binop(n, "add", y, per_channel(n, bias, 4));
  return (n->out[0] = y) != NULL;
}

/* ---- CausalConvWithState ------------------------------------------------------------------------ */

/* x[:, :, begin:end] */
static MlcGExpr *slice_len(MlcOnnxNode *n, MlcGExpr *x, int64_t begin, int64_t end) {
  MlcCtx *ctx = n->im->ctx;
  int64_t axis = 2, one = 1;
  MlcAttr a[4] = {attr("axes", mlc_onnx__av_ints(ctx, &axis, 1)), attr("begin", mlc_onnx__av_ints(ctx, &begin, 1)),
                  attr("end", mlc_onnx__av_ints(ctx, &end, 1)), attr("strides", mlc_onnx__av_ints(ctx, &one, 1))};
  return x ? mlc_onnx__emit_attrs(n, "strided_slice", &x, 1, 4, a) : NULL;
}

/* A depthwise causal 1-D convolution carrying its last k - 1 inputs: the
 * sequence is past_state (or k - 1 zeros) followed by the input, convolved
 * without padding (a 1-D convolution with groups = channels, lifted to
 * 2-D), plus bias, then SiLU when asked; present_state is the sequence's
 * last k - 1 positions. */
bool mlc_onnx__conv_causal_conv_with_state(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0), *w = mlc_onnx__input(n, 1), *past = opt_input(n, 3);
  int64_t c, k, len;
  if (!x || !w) return false;
  if (mlc_onnx__rank(x) != 3 || mlc_onnx__rank(w) != 3)
    return mlc_onnx__node_fail(n, "input and weight must have rank 3 (batch, channels, length)");
  if (!mlc_onnx__const_dim(x, 1, &c) || !mlc_onnx__const_dim(x, 2, &len) || !mlc_onnx__const_dim(w, 2, &k))
    return mlc_onnx__node_fail(n, "symbolic channel, length or kernel sizes are not supported");
  const char *act = mlc_onnx__attr_str(n, "activation", "none");
  bool silu = !strcmp(act, "silu") || !strcmp(act, "swish");
  if (!silu && strcmp(act, "none")) return mlc_onnx__node_fail(n, "activation '%s' is not supported (none, silu, swish)", act);
  MlcGExpr *seq;
  if (past) {
    MlcGExpr *items[2] = {past, x};
    MlcAttr a = attr("axis", mlc_onnx__av_int(2));
    MlcGExpr *t = mlc_g_tuple(ctx, items, 2);
    seq = t ? mlc_onnx__emit_attrs(n, "concat", &t, 1, 1, &a) : NULL;
  } else {
    int64_t pw[6] = {0, 0, k - 1, 0, 0, 0};
    seq = emit_ints(n, "nn.pad", x, "pad_width", pw, 6);
  }
  int64_t one2[2] = {1, 1}, pads[4] = {0};
  MlcAttr a[4] = {attr("strides", mlc_onnx__av_ints(ctx, one2, 2)), attr("padding", mlc_onnx__av_ints(ctx, pads, 4)),
                  attr("dilation", mlc_onnx__av_ints(ctx, one2, 2)), attr("groups", mlc_onnx__av_int(c))};
  MlcGExpr *args[2] = {as_2d(n, seq), as_2d(n, w)};
  MlcGExpr *y = args[0] && args[1] ? from_2d(n, mlc_onnx__emit_attrs(n, "nn.conv2d", args, 2, 4, a)) : NULL;
  if (y && opt_input(n, 2)) y = binop(n, "add", y, per_channel(n, n->in[2], 3));
  if (y && silu) y = binop(n, "multiply", y, mlc_onnx__emit1(n, "sigmoid", y));
  if (!(n->out[0] = y)) return false;
  if (n->n_out > 1 && n->proto->output[1] && *n->proto->output[1])
    return (n->out[1] = slice_len(n, seq, len, len + k - 1)) != NULL;
  return true;
}

/* ---- ConvTranspose ------------------------------------------------------------------------------ */

/* The spatial attributes are held in ns slots: ns = 3 for a 3-D window,
 * 2 otherwise (a 1-D window is the 2-D one over (1, L), its H slot the
 * identity). */
static int tconv_slots(int nd) { return nd == 3 ? 3 : 2; }

/* an attribute of nd values in ns slots: dflt for each when absent, the
 * lifted slot the identity `ident` */
static bool slot_attr(MlcOnnxNode *n, const char *name, int nd, int64_t ident, int64_t dflt, int64_t *out) {
  int64_t v[8];
  int k, ns = tconv_slots(nd), lift = ns - nd;
  if (!mlc_onnx__attr_ints(n, name, v, 8, &k)) return false;
  if (k >= 0 && k != nd) return mlc_onnx__node_fail(n, "%s: %d values for a %d-D window", name, k, nd);
  for (int i = 0; i < ns; i++) out[i] = i < lift ? ident : k < 0 ? dflt : v[i - lift];
  return true;
}

/* pads (begins, then ends) of nd spatial dims in ns slots each;
 * *count -1 when absent */
static bool pads_attr(MlcOnnxNode *n, int nd, int64_t *pads, int *count) {
  int64_t v[8];
  int ns = tconv_slots(nd);
  if (!mlc_onnx__attr_ints(n, "pads", v, 8, count)) return false;
  memset(pads, 0, 2 * (size_t)ns * sizeof *pads);
  if (*count < 0) return true;
  if (*count != 2 * nd) return mlc_onnx__node_fail(n, "pads: %d values for a %d-D window", *count, nd);
  for (int i = 0; i < nd; i++) pads[ns - nd + i] = v[i], pads[2 * ns - nd + i] = v[nd + i];
  return true;
}

/* pads and output_padding from output_shape or auto_pad, as ONNX's
 * reference derives them; sizes in ns slots, a lifted slot the identity */
static bool tconv_pads(MlcOnnxNode *n, int nd, const int64_t *in, const int64_t *kern, const int64_t *s,
                       const int64_t *d, int64_t *pads, int64_t *opad) {
  int64_t given[8], oshape[3];
  int k, kp, ns = tconv_slots(nd);
  if (!mlc_onnx__attr_ints(n, "output_shape", given, 8, &k) || !pads_attr(n, nd, pads, &kp)) return false;
  const char *auto_pad = mlc_onnx__attr_str(n, "auto_pad", "NOTSET");
  bool same = !strcmp(auto_pad, "SAME_UPPER") || !strcmp(auto_pad, "SAME_LOWER");
  if (!same && strcmp(auto_pad, "NOTSET") && strcmp(auto_pad, "VALID"))
    return mlc_onnx__node_fail(n, "auto_pad '%s' is not supported", auto_pad);
  if (!strcmp(auto_pad, "VALID")) memset(pads, 0, 2 * (size_t)ns * sizeof *pads);
  if (k >= 0 && k != nd) return mlc_onnx__node_fail(n, "output_shape: %d values for a %d-D window", k, nd);
  for (int i = 0; i < ns && k >= 0; i++) oshape[i] = i < ns - nd ? 1 : given[i - (ns - nd)];
  for (int i = ns - nd; i < ns; i++) {
    int64_t full = s[i] * (in[i] - 1) + opad[i] + (kern[i] - 1) * d[i] + 1;
    if (same && kp < 0) {
      int64_t total = full - (k >= 0 ? oshape[i] : in[i] * s[i]);
      if (total < 0) return mlc_onnx__node_fail(n, "negative auto padding is not supported");
      bool upper = !strcmp(auto_pad, "SAME_UPPER");
      pads[i] = upper ? total / 2 : total - total / 2;
      pads[i + ns] = total - pads[i];
    } else if (k >= 0) {
      int64_t extra = oshape[i] - (full - pads[i] - pads[i + ns]);
      if (extra < 0) return mlc_onnx__node_fail(n, "an output_shape smaller than the full output is not supported");
      opad[i] += extra;
    }
  }
  return true;
}

/* a 1-D transposed convolution is the 2-D one over (1, L); a 3-D one is
 * nn.conv3d_transpose */
bool mlc_onnx__conv_convtranspose(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0), *w = mlc_onnx__input(n, 1);
  int rank;
  int64_t in[3] = {1, 1, 1}, kern[3] = {1, 1, 1}, s[3], d[3], opad[3], pads[6], group;
  if (!x || !w || !need_rank(n, x, &rank)) return false;
  if (rank < 3 || rank > 5)
    return mlc_onnx__node_fail(n, "transposed convolution other than 1-D, 2-D or 3-D (rank 3 to 5 input) is not supported");
  int nd = rank - 2, ns = tconv_slots(nd);
  if (mlc_onnx__rank(w) != rank) return mlc_onnx__node_fail(n, "the weight must have rank %d", rank);
  for (int i = 0; i < nd; i++)
    if (!mlc_onnx__const_dim(w, 2 + i, &kern[ns - nd + i]) || !mlc_onnx__const_dim(x, 2 + i, &in[ns - nd + i]))
      return mlc_onnx__node_fail(n, "symbolic spatial or kernel sizes are not supported");
  if (!slot_attr(n, "strides", nd, 1, 1, s) || !slot_attr(n, "dilations", nd, 1, 1, d) ||
      !slot_attr(n, "output_padding", nd, 0, 0, opad) || !mlc_onnx__attr_int(n, "group", 1, &group) ||
      !tconv_pads(n, nd, in, kern, s, d, pads, opad))
    return false;
  MlcAttr a[5] = {attr("strides", mlc_onnx__av_ints(ctx, s, ns)), attr("padding", mlc_onnx__av_ints(ctx, pads, 2 * ns)),
                  attr("output_padding", mlc_onnx__av_ints(ctx, opad, ns)), attr("dilation", mlc_onnx__av_ints(ctx, d, ns)),
                  attr("groups", mlc_onnx__av_int(group))};
  MlcGExpr *args[2] = {nd == 1 ? as_2d(n, x) : x, nd == 1 ? as_2d(n, w) : w};
  const char *op = nd == 3 ? "nn.conv3d_transpose" : "nn.conv2d_transpose";
  MlcGExpr *y = args[0] && args[1] ? mlc_onnx__emit_attrs(n, op, args, 2, 5, a) : NULL;
  if (y && nd == 1) y = from_2d(n, y);
  if (y && opt_input(n, 2)) y = binop(n, "add", y, per_channel(n, n->in[2], rank));
  return (n->out[0] = y) != NULL;
}

/* ---- Lp pools ------------------------------------------------------------------------------------------ */

/* |x|^p, and its sum's p-th root */
static MlcGExpr *abs_pow(MlcOnnxNode *n, MlcGExpr *x, int64_t p) {
  if (p == 2) return binop(n, "multiply", x, x);
  MlcGExpr *ax = mlc_onnx__emit1(n, "abs", x);
  return p == 1 ? ax : with_scalar(n, "power", ax, (double)p);
}

static MlcGExpr *root(MlcOnnxNode *n, MlcGExpr *s, int64_t p) {
  if (p == 1) return s;
  return p == 2 ? mlc_onnx__emit1(n, "sqrt", s) : with_scalar(n, "power", s, 1.0 / (double)p);
}

bool mlc_onnx__conv_global_lppool(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t p, axes[MLC_ONNX_MAX_RANK];
  int rank;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "p", 2, &p)) return false;
  if (rank < 3) return mlc_onnx__node_fail(n, "expects rank 3 or more");
  if (p < 1) return mlc_onnx__node_fail(n, "p = %lld is not supported", (long long)p);
  for (int i = 2; i < rank; i++) axes[i - 2] = i;
  return (n->out[0] = root(n, reduce_keep(n, "sum", abs_pow(n, x, p), axes, rank - 2), p)) != NULL;
}

/* a window's sum is its count_include_pad average times the window size */
bool mlc_onnx__conv_lppool(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t p, kern[8], ceil_mode;
  int rank, k;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "p", 2, &p) ||
      !mlc_onnx__attr_ints(n, "kernel_shape", kern, 8, &k) || !mlc_onnx__attr_int(n, "ceil_mode", 0, &ceil_mode))
    return false;
  if (rank < 3 || rank > 5 || k != rank - 2)
    return mlc_onnx__node_fail(n, "Lp pooling other than 1-D, 2-D or 3-D (rank 3 to 5 input) is not supported");
  if (ceil_mode) return mlc_onnx__node_fail(n, "ceil_mode is not supported");
  if (p < 1) return mlc_onnx__node_fail(n, "p = %lld is not supported", (long long)p);
  WindowNd w;
  if (!read_window_nd(n, x, kern, k, &w)) return false;
  int64_t volume = 1;
  for (int i = 0; i < k; i++) volume *= kern[i];
  PoolKind pk = {"nn.avg_pool2d", false, true};
  MlcGExpr *avg = pool_nd(n, &pk, abs_pow(n, x, p), &w);
  return (n->out[0] = root(n, with_scalar(n, "multiply", avg, (double)volume), p)) != NULL;
}
