/* onnx_ops_resize.c - converters of ONNX's Resize and Upsample onto
 * image.resize2d (image.resize2d_scaled when scales rather than sizes are
 * given), NCHW.  Where the scales, sizes or region are computed at run
 * time, they are cast to float64 and gathered into image.resize2d_dynamic's
 * params (src/ops/resize.c), from which tensor_to_shape mode "resize" binds
 * the output's dims when the model runs; the batch and channel dims must
 * come out unchanged (checked there).  Static resizing of the batch or
 * channel dims is refused with "not supported". */
#include <math.h>
#include <string.h>

#include "onnx_convert.h"

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

/* ---- Resize, Upsample ------------------------------------------------------------------------------ */

typedef struct ResizeReq {
  int64_t size[2];
  double scales[2], roi[4];
  bool scaled, has_roi;
  const char *method, *coord, *rounding;
  double alpha, extrap;
  int64_t exclude, antialias;
} ResizeReq;

static bool emit_resize(MlcOnnxNode *n, MlcGExpr *x, const ResizeReq *r) {
  MlcCtx *ctx = n->im->ctx;
  MlcAttr a[12];
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
  a[k++] = attr("antialias", mlc_onnx__av_int(r->antialias));
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
  if (!resize_method(n, mlc_onnx__attr_str(n, "mode", "nearest"), r) ||
      !mlc_onnx__attr_float(n, "cubic_coeff_a", -0.75, &r->alpha) ||
      !mlc_onnx__attr_int(n, "exclude_outside", 0, &r->exclude) ||
      !mlc_onnx__attr_float(n, "extrapolation_value", 0.0, &r->extrap) || !mlc_onnx__attr_int(n, "antialias", 0, &r->antialias))
    return false;
  r->coord = mlc_onnx__attr_str(n, "coordinate_transformation_mode", "half_pixel");
  r->rounding = mlc_onnx__attr_str(n, "nearest_mode", "round_prefer_floor");
  return true;
}

/* ---- scales, sizes or region computed at run time ------------------------------------------------------ */

/* a 1-D float64 constant */
static MlcGExpr *f64s(MlcOnnxNode *n, const double *v, int k) {
  MlcCtx *ctx = n->im->ctx;
  MlcTensorData *d = mlc_arena_alloc(&ctx->arena, sizeof *d);
  d->dtype = MLC_F64;
  d->ndim = 1;
  d->shape = mlc_arena_alloc(&ctx->arena, sizeof(int64_t));
  d->shape[0] = k;
  d->nbytes = (size_t)k * 8;
  d->data = mlc_arena_alloc(&ctx->arena, d->nbytes ? d->nbytes : 1);
  if (k) memcpy(d->data, v, d->nbytes);
  return mlc_onnx__const(n, d);
}

/* the static length of optional input i (0 when omitted); -1 + error when
 * it is no 1-D numeric tensor of static length */
static int64_t input_len(MlcOnnxNode *n, int i) {
  MlcGExpr *t = opt_input(n, i);
  int64_t len;
  if (!t) return 0;
  MlcDType dt = mlc_onnx__dtype_of(t);
  if (mlc_onnx__rank(t) != 1 || !mlc_onnx__const_dim(t, 0, &len) ||
      (dt.code != MLC_TC_FLOAT && dt.code != MLC_TC_INT && dt.code != MLC_TC_BFLOAT))
    return mlc_onnx__node_fail(n, "input %d: a 1-D numeric tensor of static length is expected", i), -1;
  return len;
}

static MlcGExpr *as_f64(MlcOnnxNode *n, MlcGExpr *t) {
  if (mlc_dtype_eq(mlc_onnx__dtype_of(t), MLC_F64)) return t;
  MlcAttr c = attr("dtype", mlc_onnx__av_dtype(MLC_F64));
  return mlc_onnx__emit_attrs(n, "astype", &t, 1, 1, &c);
}

static const char *const policy_ops[] = {"scales", "sizes", "not_larger", "not_smaller"};

/* x resized by the values of input vi (scales when kind is 0, else sizes
 * under policy kind) over axes[0..na), with region input ri (-1: none) */
static bool resize_runtime(MlcOnnxNode *n, MlcGExpr *x, const ResizeReq *r, int vi, int ri, int kind,
                           const int64_t *axes, int na) {
  MlcCtx *ctx = n->im->ctx;
  int64_t vlen = input_len(n, vi), rlen = ri >= 0 ? input_len(n, ri) : 0;
  if (vlen < 0 || rlen < 0) return false;
  if (vlen != na) return mlc_onnx__node_fail(n, "input %d has %lld values, expected %d", vi, (long long)vlen, na);
  bool crop = !strcmp(r->coord, "tf_crop_and_resize") && rlen > 0;
  if (crop && rlen != 2 * na) return mlc_onnx__node_fail(n, "roi has %lld values, expected %d", (long long)rlen, 2 * na);
  int pos[4] = {-1, -1, -1, -1}, mask = 0;
  for (int i = 0; i < na; i++) {
    int64_t a = axes[i] < 0 ? axes[i] + 4 : axes[i];
    if (a < 0 || a > 3 || pos[a] >= 0) return mlc_onnx__node_fail(n, "axis %lld is out of range or repeated", (long long)axes[i]);
    pos[a] = i, mask |= 1 << a;
  }
  /* params = take([values, roi?, kind, mask, 1, 0, 1], idx) */
  int base = na + (crop ? 2 * na : 0);
  double dflt[5] = {kind, mask, 1, 0, 1};
  int64_t idx[14] = {base, base + 1}, listed[4];
  int nl = 0;
  for (int d = 0; d < 4; d++) {
    bool on = pos[d] >= 0;
    idx[2 + d] = on ? pos[d] : base + 2;
    idx[6 + d] = on && crop ? na + pos[d] : base + 3;
    idx[10 + d] = on && crop ? 2 * na + pos[d] : base + 4;
    if (on) listed[nl++] = d;
  }
  MlcGExpr *parts[3];
  int np = 0;
  if (!(parts[np++] = as_f64(n, mlc_onnx__input(n, vi)))) return false;
  if (crop && !(parts[np++] = as_f64(n, mlc_onnx__input(n, ri)))) return false;
  if (!(parts[np++] = f64s(n, dflt, 5))) return false;
  MlcGExpr *tuple = mlc_g_tuple(ctx, parts, np);
  MlcAttr ca = attr("axis", mlc_onnx__av_int(0));
  MlcGExpr *joined = tuple ? mlc_onnx__emit_attrs(n, "concat", &tuple, 1, 1, &ca) : NULL;
  MlcGExpr *ti[2] = {joined, mlc_onnx__const(n, mlc_onnx__i64s(ctx, idx, 14))};
  MlcGExpr *params = joined && ti[1] ? mlc_onnx__emit_attrs(n, "take", ti, 2, 1, &ca) : NULL;
  const MlcSInfo *xs = mlc_onnx__tensor_sinfo(x);
  if (!params || !xs || !xs->tensor.shape) return params ? mlc_onnx__node_fail(n, "input of unknown shape") : false;
  /* N and C keep x's dims (the executor checks they come out so), H and W are new where resized */
  MlcExpr *dims[4];
  for (int d = 0; d < 4; d++)
    dims[d] = d >= 2 && pos[d] >= 0 ? mlc_e_var(ctx, mlc_internf(ctx, "r%u", n->im->fresh++), MLC_I64_T)
                                    : xs->tensor.shape[d];
  MlcGExpr *args[2] = {params, x};
  MlcAttr ta[2] = {attr("shape", mlc_onnx__av_exprs(ctx, dims, 4)), attr("mode", mlc_onnx__av_str(ctx, "resize"))};
  if (!mlc_onnx__emit_attrs(n, "tensor_to_shape", args, 2, 2, ta)) return false;
  MlcAttr a[11];
  int k = 0;
  a[k++] = attr("shape", mlc_onnx__av_exprs(ctx, dims, 4));
  a[k++] = attr("policy", mlc_onnx__av_str(ctx, policy_ops[kind]));
  a[k++] = attr("axes", mlc_onnx__av_ints(ctx, listed, nl));
  a[k++] = attr("method", mlc_onnx__av_str(ctx, r->method));
  a[k++] = attr("coordinate_transformation_mode", mlc_onnx__av_str(ctx, r->coord));
  a[k++] = attr("rounding_method", mlc_onnx__av_str(ctx, r->rounding));
  a[k++] = attr("cubic_alpha", mlc_onnx__av_float(r->alpha));
  a[k++] = attr("cubic_exclude", mlc_onnx__av_int(r->exclude));
  a[k++] = attr("extrapolation_value", mlc_onnx__av_float(r->extrap));
  a[k++] = attr("antialias", mlc_onnx__av_int(r->antialias));
  MlcGExpr *xp[2] = {x, params};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "image.resize2d_dynamic", xp, 2, k, a)) != NULL;
}

/* the policy's kind (1 stretch, 2 not_larger, 3 not_smaller); -1 + error */
static int sizes_kind(MlcOnnxNode *n) {
  const char *policy = mlc_onnx__attr_str(n, "keep_aspect_ratio_policy", "stretch");
  if (!strcmp(policy, "stretch")) return 1;
  if (!strcmp(policy, "not_larger")) return 2;
  if (!strcmp(policy, "not_smaller")) return 3;
  return mlc_onnx__node_fail(n, "keep_aspect_ratio_policy '%s' is not supported", policy), -1;
}

bool mlc_onnx__conv_resize(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int rank, ks = -1, kz = -1, kr = -1, na = 4;
  int64_t dims[4], axes[4] = {0, 1, 2, 3};
  double sc[8], sz[8], roi[16], full_sc[4], full_sz[4], full_roi[8];
  ResizeReq r = {.has_roi = false};
  if (!x || !need_rank(n, x, &rank)) return false;
  if (rank != 4) return mlc_onnx__node_fail(n, "resizing other than 2-D (rank 4 input) is not supported");
  if (!resize_attrs(n, &r)) return false;
  if (n->opset < 11) {
    r.coord = "asymmetric", r.rounding = "floor";
    if (!mlc_onnx__known_or_absent(n, 1)) return resize_runtime(n, x, &r, 1, -1, 0, axes, na);
    if (!static_dims(n, x, 4, dims) || !known_floats(n, 1, sc, 8, &ks)) return false;
  } else {
    int64_t av[8];
    int k;
    if (!mlc_onnx__attr_ints(n, "axes", av, 8, &k)) return false;
    if (k > 4) return mlc_onnx__node_fail(n, "axes has %d values", k);
    if (k >= 0) na = k, memcpy(axes, av, (size_t)k * sizeof *av);
    if (!mlc_onnx__known_or_absent(n, 1) || !mlc_onnx__known_or_absent(n, 2) || !mlc_onnx__known_or_absent(n, 3)) {
      int64_t slen = input_len(n, 2);
      int kind = slen > 0 ? 0 : sizes_kind(n);
      if (slen < 0 || kind < 0) return false;
      return resize_runtime(n, x, &r, kind ? 3 : 2, 1, kind, axes, na);
    }
    if (!static_dims(n, x, 4, dims) || !known_floats(n, 1, roi, 16, &kr) || !known_floats(n, 2, sc, 8, &ks) ||
        !known_floats(n, 3, sz, 8, &kz))
      return false;
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
  if (!resize_method(n, mlc_onnx__attr_str(n, "mode", "nearest"), &r)) return false;
  if (n->opset >= 9 && !mlc_onnx__known_or_absent(n, 1)) {
    static const int64_t all[4] = {0, 1, 2, 3};
    return resize_runtime(n, x, &r, 1, -1, 0, all, 4);
  }
  if (!static_dims(n, x, 4, dims)) return false;
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
