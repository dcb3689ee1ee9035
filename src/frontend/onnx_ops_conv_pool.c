/* onnx_ops_conv_pool.c - converters of ONNX's convolutions and pools (Conv,
 * ConvTranspose, MaxPool, AveragePool, the global pools, LpPool and
 * GlobalLpPool) onto the registry's 2-D NCHW ops; 1-D windows are lifted
 * to 2-D, 3-D ones are refused. */
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
  int64_t axes[MLC_ONNX_MAX_RANK];
  for (int i = 2; i < rank; i++) axes[i - 2] = i;
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_ints(n->im->ctx, axes, rank - 2)), attr("keepdims", av_bool(true))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, op, &x, 1, 2, a)) != NULL;
}

bool mlc_onnx__conv_global_avgpool(MlcOnnxNode *n) { return global_pool(n, "mean"); }
bool mlc_onnx__conv_global_maxpool(MlcOnnxNode *n) { return global_pool(n, "max"); }

/* ---- ConvTranspose ------------------------------------------------------------------------------ */

/* a 2-element attribute, or dflt for both when absent */
static bool pair_attr(MlcOnnxNode *n, const char *name, int64_t dflt, int64_t *out) {
  int64_t v[8];
  int k;
  if (!mlc_onnx__attr_ints(n, name, v, 8, &k)) return false;
  if (k < 0) return out[0] = out[1] = dflt, true;
  if (k != 2) return mlc_onnx__node_fail(n, "%s: windows other than 2-D are not supported", name);
  out[0] = v[0], out[1] = v[1];
  return true;
}

/* pads and output_padding from output_shape or auto_pad, as ONNX's
 * reference derives them */
static bool tconv_pads(MlcOnnxNode *n, const int64_t *in, const int64_t *kern, const int64_t *s, const int64_t *d,
                       int64_t *pads, int64_t *opad) {
  int64_t oshape[8];
  int k, kp;
  if (!mlc_onnx__attr_ints(n, "output_shape", oshape, 8, &k) || !mlc_onnx__attr_ints(n, "pads", pads, 4, &kp)) return false;
  const char *auto_pad = mlc_onnx__attr_str(n, "auto_pad", "NOTSET");
  bool same = !strcmp(auto_pad, "SAME_UPPER") || !strcmp(auto_pad, "SAME_LOWER");
  if (!same && strcmp(auto_pad, "NOTSET") && strcmp(auto_pad, "VALID"))
    return mlc_onnx__node_fail(n, "auto_pad '%s' is not supported", auto_pad);
  if (kp >= 0 && kp != 4) return mlc_onnx__node_fail(n, "pads: windows other than 2-D are not supported");
  if (kp < 0 || !strcmp(auto_pad, "VALID")) memset(pads, 0, 4 * sizeof *pads);
  if (k >= 0 && k != 2) return mlc_onnx__node_fail(n, "output_shape: only 2 spatial dims are supported");
  for (int i = 0; i < 2; i++) {
    int64_t full = s[i] * (in[i] - 1) + opad[i] + (kern[i] - 1) * d[i] + 1;
    if (same && kp < 0) {
      int64_t total = full - (k >= 0 ? oshape[i] : in[i] * s[i]);
      if (total < 0) return mlc_onnx__node_fail(n, "negative auto padding is not supported");
      bool upper = !strcmp(auto_pad, "SAME_UPPER");
      pads[i] = upper ? total / 2 : total - total / 2;
      pads[i + 2] = total - pads[i];
    } else if (k >= 0) {
      int64_t extra = oshape[i] - (full - pads[i] - pads[i + 2]);
      if (extra < 0) return mlc_onnx__node_fail(n, "an output_shape smaller than the full output is not supported");
      opad[i] += extra;
    }
  }
  return true;
}

bool mlc_onnx__conv_convtranspose(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0), *w = mlc_onnx__input(n, 1);
  int rank;
  int64_t in[2], kern[2], s[2], d[2], opad[2], pads[4], group;
  if (!x || !w || !need_rank(n, x, &rank)) return false;
  if (rank != 4) return mlc_onnx__node_fail(n, "transposed convolution other than 2-D (rank 4 input) is not supported");
  if (!mlc_onnx__const_dim(w, 2, &kern[0]) || !mlc_onnx__const_dim(w, 3, &kern[1]) || !mlc_onnx__const_dim(x, 2, &in[0]) ||
      !mlc_onnx__const_dim(x, 3, &in[1]))
    return mlc_onnx__node_fail(n, "symbolic spatial or kernel sizes are not supported");
  if (!pair_attr(n, "strides", 1, s) || !pair_attr(n, "dilations", 1, d) || !pair_attr(n, "output_padding", 0, opad) ||
      !mlc_onnx__attr_int(n, "group", 1, &group) || !tconv_pads(n, in, kern, s, d, pads, opad))
    return false;
  MlcAttr a[5] = {attr("strides", mlc_onnx__av_ints(ctx, s, 2)), attr("padding", mlc_onnx__av_ints(ctx, pads, 4)),
                  attr("output_padding", mlc_onnx__av_ints(ctx, opad, 2)), attr("dilation", mlc_onnx__av_ints(ctx, d, 2)),
                  attr("groups", mlc_onnx__av_int(group))};
  MlcGExpr *args[2] = {x, w};
  MlcGExpr *y = mlc_onnx__emit_attrs(n, "nn.conv2d_transpose", args, 2, 5, a);
  if (y && opt_input(n, 2)) y = binop(n, "add", y, per_channel(n, n->in[2], 4));
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
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t p, kern[8], s[2], d[2], pads[8] = {0}, ceil_mode, in[2];
  int rank, k, kp;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "p", 2, &p) ||
      !mlc_onnx__attr_ints(n, "kernel_shape", kern, 8, &k) || !mlc_onnx__attr_int(n, "ceil_mode", 0, &ceil_mode))
    return false;
  if (rank != 4 || k != 2) return mlc_onnx__node_fail(n, "Lp pooling other than 2-D is not supported");
  if (ceil_mode) return mlc_onnx__node_fail(n, "ceil_mode is not supported");
  if (p < 1) return mlc_onnx__node_fail(n, "p = %lld is not supported", (long long)p);
  if (!pair_attr(n, "strides", 1, s) || !pair_attr(n, "dilations", 1, d) || !mlc_onnx__attr_ints(n, "pads", pads, 8, &kp))
    return false;
  if (kp >= 0 && kp != 4) return mlc_onnx__node_fail(n, "pads: windows other than 2-D are not supported");
  const char *auto_pad = mlc_onnx__attr_str(n, "auto_pad", "NOTSET");
  if (!strcmp(auto_pad, "VALID")) memset(pads, 0, sizeof pads);
  else if (!strcmp(auto_pad, "SAME_UPPER") || !strcmp(auto_pad, "SAME_LOWER")) {
    if (!mlc_onnx__const_dim(x, 2, &in[0]) || !mlc_onnx__const_dim(x, 3, &in[1]))
      return mlc_onnx__node_fail(n, "auto_pad over a symbolic size is not supported");
    for (int i = 0; i < 2; i++) {
      int64_t out = (in[i] + s[i] - 1) / s[i], total = (out - 1) * s[i] + (kern[i] - 1) * d[i] + 1 - in[i];
      if (total < 0) total = 0;
      pads[i] = !strcmp(auto_pad, "SAME_UPPER") ? total / 2 : total - total / 2;
      pads[i + 2] = total - pads[i];
    }
  } else if (strcmp(auto_pad, "NOTSET")) {
    return mlc_onnx__node_fail(n, "auto_pad '%s' is not supported", auto_pad);
  }
  MlcAttr a[6] = {attr("pool_size", mlc_onnx__av_ints(ctx, kern, 2)), attr("strides", mlc_onnx__av_ints(ctx, s, 2)),
                  attr("padding", mlc_onnx__av_ints(ctx, pads, 4)), attr("dilation", mlc_onnx__av_ints(ctx, d, 2)),
                  attr("count_include_pad", av_bool(true)), attr("ceil_mode", av_bool(false))};
  MlcGExpr *xp = abs_pow(n, x, p);
  MlcGExpr *avg = xp ? mlc_onnx__emit_attrs(n, "nn.avg_pool2d", &xp, 1, 6, a) : NULL;
  return (n->out[0] = root(n, with_scalar(n, "multiply", avg, (double)(kern[0] * kern[1])), p)) != NULL;
}
