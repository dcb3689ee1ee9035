/* onnx_ops_resize.c - converters of the second wave: padding, tiling, element
 * gathers and scatters, one-hot, transposed convolution, resizing, the
 * depth/space shuffles, and normalizations and pools composed from
 * registry ops (instance, group, RMS, Lp, mean-variance, LRN, Lp pools).
 *
 * Compositions follow the formulas of ONNX's own function bodies and
 * reference code (same order of operations where it matters for rounding,
 * e.g. MeanVarianceNormalization's sqrt(E[x^2] - E[x]^2) + 1e-9).  What
 * cannot be expressed with static shapes and compile-time attributes
 * (sizes computed at run time, antialiasing, 1-D or 3-D windows) is
 * refused with "not supported". */
#include <math.h>
#include <string.h>

#include "onnx_convert.h"

#define MAX_RANK 32

static MlcAttrValue av_floats(MlcCtx *ctx, const double *v, int n) {
  MlcAttrValue *items = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *items);
  for (int i = 0; i < n; i++) items[i] = mlc_onnx__av_float(v[i]);
  return (MlcAttrValue){.kind = MLC_ATTR_LIST, .list = {items, n}};
}

/* the node's optional input i, NULL when omitted */
static MlcGExpr *opt_input(MlcOnnxNode *n, int i) { return i < n->n_in ? n->in[i] : NULL; }

/* the compile-time value of input i, NULL when absent or computed at run time */
static const MlcTensorData *known_data(MlcOnnxNode *n, int i) {
  if (!opt_input(n, i)) return NULL;
  if (n->known_in[i]) return n->known_in[i];
  return n->in[i]->kind == MLC_G_CONST ? n->in[i]->constant : NULL;
}


/* input i's values as doubles (float or int tensor known at compile time);
 * *count -1 when the input is omitted */
static bool known_floats(MlcOnnxNode *n, int i, double *out, int cap, int *count) {
  *count = -1;
  if (!opt_input(n, i)) return true;
  const MlcTensorData *d = known_data(n, i);
  if (!d) return mlc_onnx__node_fail(n, "input %d computed at run time is not supported (it must be known at compile time)", i);
  int64_t k = mlc_tensor_data_numel(d);
  if (k > cap) return mlc_onnx__node_fail(n, "input %d has %lld values, at most %d are supported", i, (long long)k, cap);
  MlcDType t = d->dtype;
  for (int64_t j = 0; j < k; j++) {
    if (t.code == MLC_TC_FLOAT && t.bits == 32) out[j] = ((const float *)d->data)[j];
    else if (t.code == MLC_TC_FLOAT && t.bits == 64) out[j] = ((const double *)d->data)[j];
    else if (t.code == MLC_TC_INT && t.bits == 64) out[j] = (double)((const int64_t *)d->data)[j];
    else if (t.code == MLC_TC_INT && t.bits == 32) out[j] = ((const int32_t *)d->data)[j];
    else return mlc_onnx__node_fail(n, "input %d: this dtype is not supported here", i);
  }
  *count = (int)k;
  return true;
}

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

static MlcGExpr *permute(MlcOnnxNode *n, MlcGExpr *x, const int64_t *axes, int k) {
  return emit_ints(n, "permute_dims", x, "axes", axes, k);
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
  int64_t axes[MAX_RANK];
  for (int i = 0; i < rank - 2; i++) axes[i] = i + 1;
  return rank > 2 ? emit_ints(n, "expand_dims", v, "axis", axes, rank - 2) : v;
}

/* ---- Pad ----------------------------------------------------------------------------------- */

bool mlc_onnx__conv_pad(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int rank, k, na = -1;
  int64_t pads[2 * MAX_RANK], axes[MAX_RANK], full[2 * MAX_RANK] = {0};
  double value = 0;
  bool present = false;
  if (!x || !need_rank(n, x, &rank)) return false;
  if (n->opset < 11) {
    if (!mlc_onnx__attr_ints(n, "pads", pads, 2 * MAX_RANK, &k) || !mlc_onnx__attr_float(n, "value", 0, &value))
      return false;
  } else if (!mlc_onnx__known_ints(n, 1, pads, 2 * MAX_RANK, &k) || !mlc_onnx__known_scalar(n, 2, &value, &present) ||
             (n->opset >= 18 && !mlc_onnx__known_ints(n, 3, axes, MAX_RANK, &na))) {
    return false;
  }
  if (na < 0) {
    na = rank;
    for (int i = 0; i < rank; i++) axes[i] = i;
  }
  if (k != 2 * na) return mlc_onnx__node_fail(n, "pads has %d values, expected %d", k, 2 * na);
  for (int i = 0; i < na; i++) {
    int64_t ax = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (ax < 0 || ax >= rank) return mlc_onnx__node_fail(n, "axis %lld is out of range", (long long)axes[i]);
    full[ax] = pads[i], full[rank + ax] = pads[na + i];
  }
  const char *mode = mlc_onnx__attr_str(n, "mode", "constant");
  if (strcmp(mode, "constant") && strcmp(mode, "edge") && strcmp(mode, "reflect") && strcmp(mode, "wrap"))
    return mlc_onnx__node_fail(n, "mode '%s' is not supported", mode);
  MlcAttr a[3] = {attr("pad_width", mlc_onnx__av_ints(ctx, full, 2 * rank)), attr("pad_value", mlc_onnx__av_float(value)),
                  attr("pad_mode", mlc_onnx__av_str(ctx, mode))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "nn.pad", &x, 1, 3, a)) != NULL;
}

/* ---- Tile, GatherElements, ScatterElements, OneHot ------------------------------------------- */

bool mlc_onnx__conv_tile(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t reps[MAX_RANK];
  int k, rank;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__known_ints(n, 1, reps, MAX_RANK, &k)) return false;
  if (k != rank) return mlc_onnx__node_fail(n, "repeats has %d values, the input has rank %d", k, rank);
  return (n->out[0] = emit_ints(n, "tile", x, "repeats", reps, k)) != NULL;
}

bool mlc_onnx__conv_gather_elements(MlcOnnxNode *n) {
  MlcGExpr *args[2] = {mlc_onnx__input(n, 0), mlc_onnx__input(n, 1)};
  int64_t axis;
  if (!args[0] || !args[1] || !mlc_onnx__attr_int(n, "axis", 0, &axis)) return false;
  MlcAttr a = attr("axis", mlc_onnx__av_int(axis));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "gather_elements", args, 2, 1, &a)) != NULL;
}

bool mlc_onnx__conv_scatter_elements(MlcOnnxNode *n) {
  MlcGExpr *args[3] = {mlc_onnx__input(n, 0), mlc_onnx__input(n, 1), mlc_onnx__input(n, 2)};
  int64_t axis;
  if (!args[0] || !args[1] || !args[2] || !mlc_onnx__attr_int(n, "axis", 0, &axis)) return false;
  const char *red = mlc_onnx__attr_str(n, "reduction", "none");
  if (strcmp(red, "none") && strcmp(red, "add") && strcmp(red, "mul") && strcmp(red, "max") && strcmp(red, "min"))
    return mlc_onnx__node_fail(n, "reduction '%s' is not supported", red);
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_int(axis)), attr("reduction", mlc_onnx__av_str(n->im->ctx, red))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "scatter_elements", args, 3, 2, a)) != NULL;
}

bool mlc_onnx__conv_onehot(MlcOnnxNode *n) {
  MlcGExpr *ind = mlc_onnx__input(n, 0);
  double depth, vals[2];
  bool present;
  int k;
  int64_t axis;
  if (!ind || !mlc_onnx__input(n, 1) || !mlc_onnx__input(n, 2) || !mlc_onnx__known_scalar(n, 1, &depth, &present) ||
      !known_floats(n, 2, vals, 2, &k) || !mlc_onnx__attr_int(n, "axis", -1, &axis))
    return false;
  if (k != 2) return mlc_onnx__node_fail(n, "values must hold 2 elements (off, on), got %d", k);
  MlcDType t = mlc_onnx__dtype_of(n->in[2]);
  if (!mlc_dtype_is_int(mlc_onnx__dtype_of(ind))) {
    MlcAttr c = attr("dtype", mlc_onnx__av_dtype(MLC_I64_T));
    if (!(ind = mlc_onnx__emit_attrs(n, "astype", &ind, 1, 1, &c))) return false;
  }
  MlcAttr a[5] = {attr("depth", mlc_onnx__av_int((int64_t)depth)), attr("on_value", mlc_onnx__av_float(vals[1])),
                  attr("off_value", mlc_onnx__av_float(vals[0])), attr("axis", mlc_onnx__av_int(axis)),
                  attr("dtype", mlc_onnx__av_dtype(t))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "one_hot", &ind, 1, 5, a)) != NULL;
}

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

/* ---- Resize, Upsample ------------------------------------------------------------------------------ */

typedef struct ResizeReq {
  int64_t size[2];
  double scales[2], roi[4];
  bool scaled, has_roi;
  const char *method, *coord, *rounding;
  double alpha, extrap;
  int64_t exclude;
} ResizeReq;

static bool emit_resize(MlcOnnxNode *n, MlcGExpr *x, const ResizeReq *r) {
  MlcCtx *ctx = n->im->ctx;
  MlcAttr a[11];
  int k = 0;
  a[k++] = attr("size", mlc_onnx__av_ints(ctx, r->size, 2));
  if (r->scaled) a[k++] = attr("scales", av_floats(ctx, r->scales, 2));
  if (r->has_roi) a[k++] = attr("roi", av_floats(ctx, r->roi, 4));
  a[k++] = attr("method", mlc_onnx__av_str(ctx, r->method));
  a[k++] = attr("coordinate_transformation_mode", mlc_onnx__av_str(ctx, r->coord));
  a[k++] = attr("rounding_method", mlc_onnx__av_str(ctx, r->rounding));
  a[k++] = attr("cubic_alpha", mlc_onnx__av_float(r->alpha));
  a[k++] = attr("cubic_exclude", mlc_onnx__av_int(r->exclude));
  a[k++] = attr("extrapolation_value", mlc_onnx__av_float(r->extrap));
  const char *op = r->scaled ? "image.resize2d_scaled" : "image.resize2d";
  return (n->out[0] = mlc_onnx__emit_attrs(n, op, &x, 1, k, a)) != NULL;
}

static bool resize_method(MlcOnnxNode *n, const char *mode, ResizeReq *r) {
  if (!strcmp(mode, "nearest")) r->method = "nearest_neighbor";
  else if (!strcmp(mode, "linear") || !strcmp(mode, "bilinear")) r->method = "linear";
  else if (!strcmp(mode, "cubic")) r->method = "cubic";
  else return mlc_onnx__node_fail(n, "mode '%s' is not supported", mode);
  return true;
}

/* an output size computed in double: it must be a positive int32 */
static bool out_size(MlcOnnxNode *n, double v, int64_t *out) {
  if (!(v >= 1)) return mlc_onnx__node_fail(n, "an empty output is not supported");
  if (!(v <= (double)INT32_MAX)) return mlc_onnx__node_fail(n, "output size %g is too large", v);
  *out = (int64_t)v;
  return true;
}

/* scales of the 4 dims, those of N and C must be 1; the output size is
 * floor(in * scale) as ONNX computes it */
static bool from_scales(MlcOnnxNode *n, const int64_t *dims, const double *sc, ResizeReq *r) {
  if (sc[0] != 1 || sc[1] != 1) return mlc_onnx__node_fail(n, "resizing the batch or channel dims is not supported");
  for (int i = 0; i < 2; i++) {
    if (!(sc[2 + i] > 0)) return mlc_onnx__node_fail(n, "scales must be positive");
    r->scales[i] = sc[2 + i];
    if (!out_size(n, floor((double)dims[2 + i] * sc[2 + i]), &r->size[i])) return false;
  }
  r->scaled = true;
  return true;
}

/* the spatial entries of a per-dim list given for `axes` (or all 4 dims) */
static bool spatial_of(MlcOnnxNode *n, const int64_t *axes, int na, const double *v, int k, double dflt, double *out4) {
  for (int i = 0; i < 4; i++) out4[i] = dflt;
  if (k != na) return mlc_onnx__node_fail(n, "expected %d values, got %d", na, k);
  for (int i = 0; i < na; i++) {
    int64_t ax = axes[i] < 0 ? axes[i] + 4 : axes[i];
    if (ax < 0 || ax > 3) return mlc_onnx__node_fail(n, "axis %lld is out of range", (long long)axes[i]);
    out4[ax] = v[i];
  }
  return true;
}

/* sizes given: stretch, or keep the aspect ratio with one scale */
static bool from_sizes(MlcOnnxNode *n, const int64_t *dims, const double *sz, const int64_t *axes, int na, ResizeReq *r) {
  if (sz[0] != (double)dims[0] || sz[1] != (double)dims[1])
    return mlc_onnx__node_fail(n, "resizing the batch or channel dims is not supported");
  const char *policy = mlc_onnx__attr_str(n, "keep_aspect_ratio_policy", "stretch");
  if (!strcmp(policy, "stretch")) {
    return out_size(n, trunc(sz[2]), &r->size[0]) && out_size(n, trunc(sz[3]), &r->size[1]);
  }
  bool larger = !strcmp(policy, "not_smaller");
  if (!larger && strcmp(policy, "not_larger")) return mlc_onnx__node_fail(n, "keep_aspect_ratio_policy '%s' is not supported", policy);
  double s = larger ? 0 : INFINITY;
  for (int i = 0; i < na; i++) {
    int64_t ax = axes[i] < 0 ? axes[i] + 4 : axes[i];
    if (ax < 0 || ax > 3) return mlc_onnx__node_fail(n, "axis %lld is out of range", (long long)axes[i]);
    double q = sz[ax] / (double)dims[ax];
    s = larger ? fmax(s, q) : fmin(s, q);
  }
  for (int i = 0; i < 2; i++) {
    r->scales[i] = s;
    if (!out_size(n, nearbyint(s * (double)dims[2 + i]), &r->size[i])) return false;
  }
  r->scaled = true;
  return true;
}

static bool resize_attrs(MlcOnnxNode *n, ResizeReq *r) {
  int64_t antialias = 0;
  if (!resize_method(n, mlc_onnx__attr_str(n, "mode", "nearest"), r) ||
      !mlc_onnx__attr_float(n, "cubic_coeff_a", -0.75, &r->alpha) ||
      !mlc_onnx__attr_int(n, "exclude_outside", 0, &r->exclude) ||
      !mlc_onnx__attr_float(n, "extrapolation_value", 0.0, &r->extrap) || !mlc_onnx__attr_int(n, "antialias", 0, &antialias))
    return false;
  if (antialias && strcmp(r->method, "nearest_neighbor")) return mlc_onnx__node_fail(n, "antialias is not supported");
  r->coord = mlc_onnx__attr_str(n, "coordinate_transformation_mode", "half_pixel");
  r->rounding = mlc_onnx__attr_str(n, "nearest_mode", "round_prefer_floor");
  return true;
}

bool mlc_onnx__conv_resize(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int rank, ks = -1, kz = -1, kr = -1, na = 4;
  int64_t dims[4], axes[4] = {0, 1, 2, 3};
  double sc[8], sz[8], roi[16], full_sc[4], full_sz[4], full_roi[8];
  ResizeReq r = {.has_roi = false};
  if (!x || !need_rank(n, x, &rank)) return false;
  if (rank != 4) return mlc_onnx__node_fail(n, "resizing other than 2-D (rank 4 input) is not supported");
  if (!static_dims(n, x, 4, dims) || !resize_attrs(n, &r)) return false;
  if (n->opset < 11) {
    r.coord = "asymmetric", r.rounding = "floor";
    if (!known_floats(n, 1, sc, 8, &ks)) return false;
  } else {
    if (!known_floats(n, 1, roi, 16, &kr) || !known_floats(n, 2, sc, 8, &ks) || !known_floats(n, 3, sz, 8, &kz)) return false;
    int64_t av[8];
    int k;
    if (!mlc_onnx__attr_ints(n, "axes", av, 8, &k)) return false;
    if (k > 4) return mlc_onnx__node_fail(n, "axes has %d values", k);
    if (k >= 0) na = k, memcpy(axes, av, (size_t)k * sizeof *av);
  }
  if (ks > 0) {
    if (!spatial_of(n, axes, na, sc, ks, 1.0, full_sc) || !from_scales(n, dims, full_sc, &r)) return false;
  } else if (kz > 0) {
    if (!spatial_of(n, axes, na, sz, kz, -1, full_sz)) return false;
    for (int i = 0; i < 4; i++)
      if (full_sz[i] < 0) full_sz[i] = (double)dims[i];
    if (!from_sizes(n, dims, full_sz, axes, na, &r)) return false;
  } else {
    return mlc_onnx__node_fail(n, "neither scales nor sizes given");
  }
  if (!strcmp(r.coord, "tf_crop_and_resize") && kr > 0) {
    if (kr != 2 * na) return mlc_onnx__node_fail(n, "roi has %d values, expected %d", kr, 2 * na);
    if (!spatial_of(n, axes, na, roi, na, 0.0, full_roi) || !spatial_of(n, axes, na, roi + na, na, 1.0, full_roi + 4))
      return false;
    r.roi[0] = full_roi[2], r.roi[1] = full_roi[3], r.roi[2] = full_roi[6], r.roi[3] = full_roi[7];
    r.has_roi = true;
  }
  return emit_resize(n, x, &r);
}

/* Upsample: asymmetric coordinates, nearest rounds down */
bool mlc_onnx__conv_upsample(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int rank, k = -1;
  int64_t dims[4];
  double sc[8];
  ResizeReq r = {.coord = "asymmetric", .rounding = "floor", .alpha = -0.75};
  if (!x || !need_rank(n, x, &rank)) return false;
  if (rank != 4) return mlc_onnx__node_fail(n, "upsampling other than 2-D (rank 4 input) is not supported");
  if (!static_dims(n, x, 4, dims) || !resize_method(n, mlc_onnx__attr_str(n, "mode", "nearest"), &r)) return false;
  if (n->opset >= 9) {
    if (!known_floats(n, 1, sc, 8, &k)) return false;
  } else {
    const Onnx__AttributeProto *a = mlc_onnx__attr(n, "scales");
    if (a && a->n_floats <= 8)
      for (k = 0; k < (int)a->n_floats; k++) sc[k] = a->floats[k];
  }
  if (k != 4) return mlc_onnx__node_fail(n, "scales must have 4 values");
  return from_scales(n, dims, sc, &r) && emit_resize(n, x, &r);
}

/* ---- DepthToSpace, SpaceToDepth ------------------------------------------------------------------ */

static bool shuffle(MlcOnnxNode *n, bool to_space) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int rank;
  int64_t d[4], b;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "blocksize", 0, &b)) return false;
  if (rank != 4) return mlc_onnx__node_fail(n, "only rank 4 (NCHW) input is supported");
  if (!static_dims(n, x, 4, d)) return false;
  if (b < 1) return mlc_onnx__node_fail(n, "blocksize must be positive");
  if (!to_space) {
    if (d[2] % b || d[3] % b) return mlc_onnx__node_fail(n, "the spatial dims are not multiples of blocksize");
    int64_t s1[6] = {d[0], d[1], d[2] / b, b, d[3] / b, b}, p[6] = {0, 3, 5, 1, 2, 4};
    int64_t s2[4] = {d[0], d[1] * b * b, d[2] / b, d[3] / b};
    return (n->out[0] = reshape(n, permute(n, reshape(n, x, s1, 6), p, 6), s2, 4)) != NULL;
  }
  if (d[1] % (b * b)) return mlc_onnx__node_fail(n, "the channels are not a multiple of blocksize^2");
  const char *mode = mlc_onnx__attr_str(n, "mode", "DCR");
  bool crd = !strcmp(mode, "CRD");
  if (!crd && strcmp(mode, "DCR")) return mlc_onnx__node_fail(n, "mode '%s' is not supported", mode);
  int64_t c = d[1] / (b * b);
  int64_t dcr[6] = {d[0], b, b, c, d[2], d[3]}, crd_s[6] = {d[0], c, b, b, d[2], d[3]};
  int64_t pdcr[6] = {0, 3, 4, 1, 5, 2}, pcrd[6] = {0, 1, 4, 2, 5, 3};
  int64_t s2[4] = {d[0], c, d[2] * b, d[3] * b};
  MlcGExpr *y = reshape(n, x, crd ? crd_s : dcr, 6);
  return (n->out[0] = reshape(n, permute(n, y, crd ? pcrd : pdcr, 6), s2, 4)) != NULL;
}

bool mlc_onnx__conv_depth_to_space(MlcOnnxNode *n) { return shuffle(n, true); }
bool mlc_onnx__conv_space_to_depth(MlcOnnxNode *n) { return shuffle(n, false); }

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
  int64_t axes[MAX_RANK];
  if (!x || !scale || !bias || !need_rank(n, x, &rank) || !mlc_onnx__attr_float(n, "epsilon", 1e-5, &eps)) return false;
  if (rank < 3) return mlc_onnx__node_fail(n, "expects rank 3 or more");
  for (int i = 2; i < rank; i++) axes[i - 2] = i;
  MlcGExpr *y = standardize(n, x, axes, rank - 2, eps);
  y = binop(n, "add", binop(n, "multiply", y, per_channel(n, scale, rank)), per_channel(n, bias, rank));
  return (n->out[0] = y) != NULL;
}

bool mlc_onnx__conv_mvn(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t axes[MAX_RANK] = {0, 2, 3};
  int k;
  if (!x || !mlc_onnx__attr_ints(n, "axes", axes, MAX_RANK, &k)) return false;
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
  int64_t axis, axes[MAX_RANK];
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
  int64_t g, dims[MAX_RANK], axis2 = 2;
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
  int64_t size, dims[MAX_RANK];
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
  int64_t p, axes[MAX_RANK];
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

/* ---- EyeLike ---------------------------------------------------------------------------------------------- */

/* a float64 constant cast to the wanted dtype; the cast folds at import */
bool mlc_onnx__conv_eyelike(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t dims[2], k, dt;
  int rank;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "k", 0, &k) || !mlc_onnx__attr_int(n, "dtype", -1, &dt))
    return false;
  if (rank != 2) return mlc_onnx__node_fail(n, "expects a 2-D input");
  if (!static_dims(n, x, 2, dims)) return false;
  if (dims[0] * dims[1] > ((int64_t)1 << 24)) return mlc_onnx__node_fail(n, "a constant this large is not supported");
  MlcDType t = mlc_onnx__dtype_of(x);
  if (dt >= 0 && !mlc_onnx__dtype((int32_t)dt, &t)) return mlc_onnx__node_fail(n, "dtype %lld is not supported", (long long)dt);
  MlcTensorData *d = mlc_arena_alloc(&ctx->arena, sizeof *d);
  d->dtype = MLC_F64;
  d->ndim = 2;
  d->shape = mlc_arena_array(&ctx->arena, 2, sizeof(int64_t));
  d->shape[0] = dims[0], d->shape[1] = dims[1];
  d->nbytes = (size_t)(dims[0] * dims[1]) * sizeof(double);
  double *v = mlc_arena_array(&ctx->arena, (size_t)(dims[0] * dims[1] > 0 ? dims[0] * dims[1] : 1), sizeof(double));
  for (int64_t i = 0; i < dims[0]; i++)
    for (int64_t j = 0; j < dims[1]; j++) v[i * dims[1] + j] = j - i == k ? 1.0 : 0.0;
  d->data = v;
  MlcGExpr *c = mlc_onnx__const(n, d);
  MlcAttr a = attr("dtype", mlc_onnx__av_dtype(t));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "astype", &c, 1, 1, &a)) != NULL;
}

/* ---- Einsum ----------------------------------------------------------------------------------------------- */

#define EINSUM_MAX 26

/* the equation's operand and output labels, spaces dropped; implicit mode
 * (no "->") outputs the labels seen once, in alphabetical order */
static bool einsum_parse(MlcOnnxNode *n, const char *eq, char ops[2][EINSUM_MAX + 1], int n_ops, char *out) {
  char buf[4 * EINSUM_MAX], *w = buf;
  for (const char *c = eq; *c && w < buf + sizeof buf - 1; c++)
    if (*c != ' ') *w++ = *c;
  *w = 0;
  char *arrow = strstr(buf, "->"), *lhs = buf;
  if (arrow) *arrow = 0;
  for (int k = 0; k < n_ops; k++) {
    char *comma = strchr(lhs, ',');
    if ((comma != NULL) != (k + 1 < n_ops)) return mlc_onnx__node_fail(n, "the equation does not name %d operands", n_ops);
    if (comma) *comma = 0;
    if (strlen(lhs) > EINSUM_MAX) return mlc_onnx__node_fail(n, "operand %d has too many labels", k);
    strcpy(ops[k], lhs);
    lhs = comma ? comma + 1 : lhs + strlen(lhs);
  }
  int seen[128] = {0};
  for (int k = 0; k < n_ops; k++)
    for (const char *c = ops[k]; *c; c++) {
      if (*c < 'A' || *c > 'z' || (*c > 'Z' && *c < 'a'))
        return mlc_onnx__node_fail(n, "equation '%s': ellipsis and non-letter labels are not supported", eq);
      if (strchr(c + 1, *c)) return mlc_onnx__node_fail(n, "equation '%s': a repeated label in one operand (a diagonal) is not supported", eq);
      seen[(int)*c]++;
    }
  if (arrow) {
    if (strlen(arrow + 2) > EINSUM_MAX) return mlc_onnx__node_fail(n, "the output has too many labels");
    strcpy(out, arrow + 2);
    for (const char *c = out; *c; c++)
      if (*c < 0 || !seen[(int)*c] || strchr(c + 1, *c))
        return mlc_onnx__node_fail(n, "equation '%s': output label '%c' is not supported", eq, *c);
    return true;
  }
  w = out;
  for (int c = 'A'; c <= 'z'; c++)
    if (seen[c] == 1) *w++ = (char)c;
  *w = 0;
  return true;
}

/* x (labels s) laid out over all labels L: permuted into L's order, unit
 * dims where it lacks a label */
static MlcGExpr *einsum_align(MlcOnnxNode *n, MlcGExpr *x, const char *s, const char *all) {
  int r = (int)strlen(s), nl = (int)strlen(all), k = 0;
  int64_t perm[EINSUM_MAX], missing[2 * EINSUM_MAX];
  bool identity = true;
  for (int i = 0; i < nl; i++) {
    const char *p = strchr(s, all[i]);
    if (p) identity &= (perm[k] = p - s) == k, k++;
  }
  if (!identity) x = permute(n, x, perm, r);
  k = 0;
  for (int i = 0; i < nl; i++)
    if (!strchr(s, all[i])) missing[k++] = i;
  return k && x ? emit_ints(n, "expand_dims", x, "axis", missing, k) : x;
}

/* one or two operands: align both over all labels (output labels first),
 * multiply, and sum the rest away */
bool mlc_onnx__conv_einsum(MlcOnnxNode *n) {
  const char *eq = mlc_onnx__attr_str(n, "equation", NULL);
  char ops[2][EINSUM_MAX + 1], out[EINSUM_MAX + 1], all[2 * EINSUM_MAX + 1];
  if (!eq) return mlc_onnx__node_fail(n, "the equation attribute is missing");
  if (n->n_in < 1 || n->n_in > 2) return mlc_onnx__node_fail(n, "einsum of %d operands is not supported", n->n_in);
  if (!einsum_parse(n, eq, ops, n->n_in, out)) return false;
  size_t nall = strlen(out);
  memcpy(all, out, nall + 1);
  for (int k = 0; k < n->n_in; k++)
    for (const char *c = ops[k]; *c; c++)
      if (!strchr(all, *c)) all[nall++] = *c, all[nall] = 0;
  MlcGExpr *y = NULL;
  for (int k = 0; k < n->n_in; k++) {
    MlcGExpr *x = mlc_onnx__input(n, k);
    int rank;
    if (!x || !need_rank(n, x, &rank)) return false;
    if (rank != (int)strlen(ops[k])) return mlc_onnx__node_fail(n, "operand %d has rank %d, the equation gives it %d labels", k, rank, (int)strlen(ops[k]));
    x = einsum_align(n, x, ops[k], all);
    y = k ? binop(n, "multiply", y, x) : x;
    if (!y) return false;
  }
  int no = (int)strlen(out), nl = (int)strlen(all);
  if (nl > no) {
    int64_t axes[2 * EINSUM_MAX];
    for (int i = no; i < nl; i++) axes[i - no] = i;
    MlcAttr a[2] = {attr("axis", mlc_onnx__av_ints(n->im->ctx, axes, nl - no)), attr("keepdims", av_bool(false))};
    y = mlc_onnx__emit_attrs(n, "sum", &y, 1, 2, a);
  }
  return (n->out[0] = y) != NULL;
}
