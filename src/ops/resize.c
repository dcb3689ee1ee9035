/* resize.c - nn.conv2d_transpose and image.resize2d (also resize2d_scaled):
 * struct-info inference and TE definitions, NCHW only.
 *
 * conv2d_transpose is written as the gather it is: output position o of a
 * spatial dim receives input position i through kernel tap k when
 * o + pad_before = i * stride + k * dilation, so the reduction runs over
 * (input channel of the group, kh, kw) and keeps the taps whose t = o +
 * pad - k * dilation is a non-negative multiple of the stride inside the
 * input; the read sits under if_then_else so no other position is read.
 *
 * resize2d follows ONNX Resize: per spatial dim, an output index maps to a
 * source coordinate by the coordinate transformation mode (in float64, the
 * formulas in the order ONNX's reference writes them), then to taps (1
 * nearest, 2 linear, 4 cubic) and their weights.  Those depend on one
 * output index only, so they are small per-dim tables (computes over
 * (out, taps)); the output reads the tables and sums taps_h * taps_w
 * terms unrolled.  Taps outside the input read the edge (ONNX pads with
 * edge values); cubic's exclude_outside zeroes them and renormalizes.
 * Sizes of the spatial dims must be constants: the coordinate constants
 * are computed here. */
#include <math.h>
#include <string.h>

#include "mlcc/arith.h"
#include "ops/op_internal.h"

static MlcExpr **earr(MlcCtx *ctx, int n) {
  return mlc_arena_array(&ctx->arena, (size_t)(n > 0 ? n : 1), sizeof(MlcExpr *));
}

static MlcExpr *i64(MlcCtx *ctx, int64_t v) { return mlc_op_i64(ctx, v); }
static MlcExpr *f64(MlcCtx *ctx, double v) { return mlc_e_float(ctx, MLC_F64, v); }
static MlcExpr *bin(MlcCtx *ctx, MlcBinOp op, MlcExpr *x, MlcExpr *y) { return mlc_e_bin(ctx, op, x, y); }

static MlcExpr *if_then_else(MlcCtx *ctx, MlcExpr *c, MlcExpr *t, MlcExpr *f) {
  MlcExpr *args[3] = {c, t, f};
  return mlc_e_call(ctx, MLC_INTRIN_IF_THEN_ELSE, args, 3);
}

static MlcExpr *call1(MlcCtx *ctx, MlcIntrin op, MlcExpr *x) { return mlc_e_call(ctx, op, &x, 1); }

static MlcExpr *cast_to(MlcCtx *ctx, MlcDType t, MlcExpr *e) {
  return e && !mlc_dtype_eq(e->dtype, t) ? mlc_e_cast(ctx, t, e) : e;
}

static const char *shape_str(MlcCtx *ctx, const MlcSInfo *s) {
  return s->tensor.shape ? mlc_op_shape_str(ctx, s->tensor.shape, s->tensor.ndim) : "(unknown)";
}

static const MlcSInfo *rank4(MlcCtx *ctx, const MlcOpArgs *a, int i, const char *what) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, i, false);
  if (x && x->tensor.ndim != 4) return mlc_op_fail(ctx, a, "%s must be 4-D, got %s", what, shape_str(ctx, x)), NULL;
  return x;
}

/* string attribute `name` is absent or `want` */
static bool need_layout(MlcCtx *ctx, const MlcOpArgs *a, const char *name, const char *want) {
  const char *s;
  if (mlc_op_param(a, name) < 0) return true;
  if (!mlc_op_attr_str(ctx, a, name, want, &s)) return false;
  return strcmp(s, want) == 0 || mlc_op_fail(ctx, a, "only %s is supported for %s, got \"%s\"", want, name, s);
}

/* n ints (1 given: repeated), each >= lo */
static bool read_ints(MlcCtx *ctx, const MlcOpArgs *a, const char *name, int want, int64_t dflt, int64_t lo,
                      int64_t *out) {
  int64_t v[4];
  int n;
  bool present;
  if (!mlc_op_attr_ints(ctx, a, name, v, 4, &n, &present)) return false;
  if (!present) n = 1, v[0] = dflt;
  if (n == 1)
    for (int i = 1; i < want; i++) v[i] = v[0];
  else if (n == 2 && want == 4) v[2] = v[0], v[3] = v[1];
  else if (n != want) return mlc_op_fail(ctx, a, "%s must be 1 or %d ints, got %d", name, want, n);
  for (int i = 0; i < want; i++) {
    if (v[i] < lo) return mlc_op_fail(ctx, a, "%s must be at least %lld, got %lld", name, (long long)lo, (long long)v[i]);
    out[i] = v[i];
  }
  return true;
}

/* ======================================================================== */
/* nn.conv2d_transpose                                                      */
/* ======================================================================== */

typedef struct TConv {
  int64_t stride[2], dil[2], pad[4], opad[2], groups;
  MlcDType dtype;
  MlcExpr *out[4];
} TConv;

static bool tconv_plan(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, const MlcSInfo *w, TConv *p) {
  bool present;
  char b1[32], b2[32];
  if (!need_layout(ctx, a, "data_layout", "NCHW") || !need_layout(ctx, a, "kernel_layout", "IOHW") ||
      !read_ints(ctx, a, "strides", 2, 1, 1, p->stride) || !read_ints(ctx, a, "dilation", 2, 1, 1, p->dil) ||
      !read_ints(ctx, a, "padding", 4, 0, 0, p->pad) || !read_ints(ctx, a, "output_padding", 2, 0, 0, p->opad) ||
      !mlc_op_attr_int(ctx, a, "groups", 1, &p->groups) || !mlc_op_attr_dtype(ctx, a, "out_dtype", &p->dtype, &present))
    return false;
  if (!present || p->dtype.code == MLC_TC_VOID) {
    if (!mlc_dtype_eq(x->tensor.dtype, w->tensor.dtype))
      return mlc_op_fail(ctx, a, "data is %s but weight is %s; give out_dtype to mix them",
                         mlc_dtype_str(x->tensor.dtype, b1), mlc_dtype_str(w->tensor.dtype, b2));
    p->dtype = x->tensor.dtype;
  }
  if (p->groups < 1) return mlc_op_fail(ctx, a, "groups must be positive, got %lld", (long long)p->groups);
  if (!x->tensor.shape || !w->tensor.shape) return mlc_op_fail(ctx, a, "data and weight need known dims");
  MlcExpr **xs = x->tensor.shape, **ws = w->tensor.shape;
  if (!mlc_op_dim_equal(xs[1], ws[0]))
    return mlc_op_fail(ctx, a, "channels differ: data %s has %s channels, weight %s (IOHW) takes %s",
                       shape_str(ctx, x), mlc_op_shape_str(ctx, &xs[1], 1), shape_str(ctx, w),
                       mlc_op_shape_str(ctx, &ws[0], 1));
  int64_t c;
  if (p->groups > 1 && (!mlc_e_is_const_int(ws[0], &c) || c % p->groups))
    return mlc_op_fail(ctx, a, "input channels of weight %s must be a constant multiple of groups=%lld",
                       shape_str(ctx, w), (long long)p->groups);
  p->out[0] = xs[0];
  p->out[1] = mlc_arith_mul(ctx, ws[1], i64(ctx, p->groups));
  for (int d = 0; d < 2; d++) {
    int64_t k;
    if (!mlc_e_is_const_int(ws[2 + d], &k))
      return mlc_op_fail(ctx, a, "the kernel size of weight %s must be constant", shape_str(ctx, w));
    /* (in - 1) * stride - pads + dilation * (k - 1) + 1 + output_padding */
    int64_t extra = -p->stride[d] - p->pad[d] - p->pad[d + 2] + p->dil[d] * (k - 1) + 1 + p->opad[d];
    p->out[2 + d] = mlc_arith_add(ctx, mlc_arith_mul(ctx, xs[2 + d], i64(ctx, p->stride[d])), i64(ctx, extra));
    int64_t o;
    if (mlc_e_is_const_int(p->out[2 + d], &o) && o < 1)
      return mlc_op_fail(ctx, a, "the output would be empty (dim %d is %lld)", 2 + d, (long long)o);
  }
  return true;
}

MlcSInfo *mlc_op_infer_conv2d_transpose(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = rank4(ctx, a, 0, "data (NCHW)"), *w = x ? rank4(ctx, a, 1, "weight (IOHW)") : NULL;
  TConv p;
  if (!w || !tconv_plan(ctx, a, x, w, &p)) return NULL;
  return mlc_op_tensor_sinfo(ctx, p.out, 4, p.dtype);
}

/* input index along spatial dim d for output o and tap k, and whether
 * that tap contributes */
static MlcExpr *tconv_src(MlcCtx *ctx, const TConv *p, int d, MlcExpr *o, MlcExpr *k, MlcExpr *in,
                          MlcExpr **valid) {
  MlcExpr *t = mlc_arith_add(ctx, o, mlc_arith_add(ctx, i64(ctx, p->pad[d]), mlc_arith_mul(ctx, k, i64(ctx, -p->dil[d]))));
  MlcExpr *s = i64(ctx, p->stride[d]);
  MlcExpr *i = p->stride[d] == 1 ? t : bin(ctx, MLC_BIN_FLOORDIV, t, s);
  MlcExpr *ok = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_GE, t, i64(ctx, 0)), bin(ctx, MLC_BIN_LT, i, in));
  if (p->stride[d] != 1) ok = bin(ctx, MLC_BIN_AND, ok, bin(ctx, MLC_BIN_EQ, bin(ctx, MLC_BIN_FLOORMOD, t, s), i64(ctx, 0)));
  *valid = *valid ? bin(ctx, MLC_BIN_AND, *valid, ok) : ok;
  return i;
}

bool mlc_op_te_conv2d_transpose(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                                int *n_outs) {
  const MlcSInfo *xs = mlc_op_tensor(ctx, a, 0, true), *ws = xs ? mlc_op_tensor(ctx, a, 1, true) : NULL;
  TConv p;
  if (!ws || !tconv_plan(ctx, a, xs, ws, &p)) return false;
  const MlcTeTensor *x = in[0], *w = in[1];
  MlcExpr **ax = earr(ctx, 4), **xi = earr(ctx, 4), **wi = earr(ctx, 4), *valid = NULL;
  mlc_op_axes(ctx, 4, ax);
  MlcExpr *rv[3] = {mlc_te_var(ctx, "rc"), mlc_te_var(ctx, "rh"), mlc_te_var(ctx, "rw")};
  int64_t cin = 0;
  mlc_e_is_const_int(w->shape[0], &cin);
  MlcExpr *cig = p.groups > 1 ? i64(ctx, cin / p.groups) : w->shape[0];
  MlcExpr *rext[3] = {cig, w->shape[2], w->shape[3]};
  MlcExpr *c = rv[0], *co = ax[1];
  if (p.groups > 1) { /* group g = co / (C_out / groups) owns input channels g * cig + rc */
    MlcExpr *g = bin(ctx, MLC_BIN_FLOORDIV, ax[1], w->shape[1]);
    c = mlc_arith_add(ctx, mlc_arith_mul(ctx, g, cig), rv[0]);
    co = bin(ctx, MLC_BIN_FLOORMOD, ax[1], w->shape[1]);
  }
  xi[0] = ax[0], xi[1] = c;
  xi[2] = tconv_src(ctx, &p, 0, ax[2], rv[1], x->shape[2], &valid);
  xi[3] = tconv_src(ctx, &p, 1, ax[3], rv[2], x->shape[3], &valid);
  wi[0] = c, wi[1] = co, wi[2] = rv[1], wi[3] = rv[2];
  MlcExpr *prod = bin(ctx, MLC_BIN_MUL, cast_to(ctx, p.dtype, mlc_te_read(ctx, x, xi, 4)),
                      cast_to(ctx, p.dtype, mlc_te_read(ctx, w, wi, 4)));
  MlcExpr *body = if_then_else(ctx, valid, prod, mlc_op_const(ctx, p.dtype, 0));
  outs[0] = mlc_te_reduce(ctx, "conv2d_transpose_nchw", p.out, 4, ax, MLC_TE_SUM, body, rv, rext, 3);
  *n_outs = 1;
  return outs[0] != NULL;
}

/* ======================================================================== */
/* image.resize2d                                                           */
/* ======================================================================== */

#define RESIZE_METHODS(X) X(NEAREST, "nearest_neighbor", 1) X(LINEAR, "linear", 2) X(CUBIC, "cubic", 4)
#define RESIZE_COORDS(X)                                                                     \
  X(HALF_PIXEL, "half_pixel", 0) X(ALIGN_CORNERS, "align_corners", 0) X(ASYMMETRIC, "asymmetric", 0) \
  X(PYTORCH_HALF_PIXEL, "pytorch_half_pixel", 0) X(TF_HALF_PIXEL_FOR_NN, "tf_half_pixel_for_nn", 0) \
  X(TF_CROP_AND_RESIZE, "tf_crop_and_resize", 0) X(HALF_PIXEL_SYMMETRIC, "half_pixel_symmetric", 0)
/* "round" (half away from zero) agrees with round_prefer_ceil on every
 * coordinate that is not clamped to 0 anyway */
#define RESIZE_ROUNDINGS(X)                                                                  \
  X(PREFER_FLOOR, "round_prefer_floor", 0) X(PREFER_CEIL, "round_prefer_ceil", 0)             \
  X(FLOOR, "floor", 0) X(CEIL, "ceil", 0) X(ROUND, "round", 0)

#define ENUM_ITEM(id, s, k) R_##id,
#define NAME_ITEM(id, s, k) s,
typedef enum { RESIZE_METHODS(ENUM_ITEM) RESIZE_COORDS(ENUM_ITEM) RESIZE_ROUNDINGS(ENUM_ITEM) } ResizeChoice;
static const char *const method_names[] = {RESIZE_METHODS(NAME_ITEM) NULL};
static const char *const coord_names[] = {RESIZE_COORDS(NAME_ITEM) NULL};
static const char *const rounding_names[] = {RESIZE_ROUNDINGS(NAME_ITEM) NULL};
#undef ENUM_ITEM
#undef NAME_ITEM

typedef struct ResizeDim {
  int64_t in, out;
  double scale, out_f; /* out_f: in * scale, the size the mapping assumes */
  double r0, r1;       /* tf_crop_and_resize's region, as fractions of the dim */
} ResizeDim;

typedef struct Resize {
  ResizeDim dim[2];
  ResizeChoice method, coord, rounding;
  int taps;
  double alpha, extrap;
  bool exclude;
} Resize;

/* the choice among names (its position plus base), or an error listing them */
static bool choose(MlcCtx *ctx, const MlcOpArgs *a, const char *name, const char *const *names, int base,
                   const char *dflt, ResizeChoice *out) {
  const char *s;
  if (!mlc_op_attr_str(ctx, a, name, dflt, &s)) return false;
  if (!strcmp(s, "nearest")) s = "nearest_neighbor";
  for (int i = 0; names[i]; i++)
    if (!strcmp(names[i], s)) return *out = (ResizeChoice)(base + i), true;
  MlcStrBuf sb = {0};
  for (int i = 0; names[i]; i++) mlc_sb_printf(&sb, "%s\"%s\"", i ? ", " : "", names[i]);
  bool r = mlc_op_fail(ctx, a, "%s must be one of %s, not \"%s\"", name, mlc_sb_cstr(&sb), s);
  mlc_vec_free(&sb);
  return r;
}

/* a float or a list of floats (ints accepted); *n = -1 when absent */
static bool read_floats(MlcCtx *ctx, const MlcOpArgs *a, const char *name, double *out, int cap, int *n) {
  int i = mlc_op_param(a, name);
  const MlcAttrValue *v = i >= 0 ? a->attr[i] : NULL;
  *n = -1;
  if (!v || v->kind == MLC_ATTR_NONE) return true;
  bool list = v->kind == MLC_ATTR_LIST;
  int cnt = list ? v->list.n : 1;
  if (cnt > cap) return mlc_op_fail(ctx, a, "%s: at most %d values, got %d", name, cap, cnt);
  for (int k = 0; k < cnt; k++) {
    const MlcAttrValue *e = list ? &v->list.items[k] : v;
    int64_t iv;
    if (e->kind == MLC_ATTR_FLOAT) out[k] = e->f;
    else if (e->kind == MLC_ATTR_INT) out[k] = (double)e->i;
    else if (e->kind == MLC_ATTR_EXPR && e->expr->kind == MLC_EXPR_FLOAT) out[k] = e->expr->float_val;
    else if (e->kind == MLC_ATTR_EXPR && mlc_e_is_const_int(e->expr, &iv)) out[k] = (double)iv;
    else return mlc_op_fail(ctx, a, "%s: expected numbers", name);
  }
  *n = cnt;
  return true;
}

static bool resize_choices(MlcCtx *ctx, const MlcOpArgs *a, Resize *p) {
  int64_t excl;
  if (!need_layout(ctx, a, "layout", "NCHW") || !choose(ctx, a, "method", method_names, R_NEAREST, "linear", &p->method) ||
      !choose(ctx, a, "coordinate_transformation_mode", coord_names, R_HALF_PIXEL, "half_pixel", &p->coord) ||
      !choose(ctx, a, "rounding_method", rounding_names, R_PREFER_FLOOR, "round_prefer_floor", &p->rounding) ||
      !mlc_op_attr_float(ctx, a, "cubic_alpha", -0.75, &p->alpha) ||
      !mlc_op_attr_int(ctx, a, "cubic_exclude", 0, &excl) ||
      !mlc_op_attr_float(ctx, a, "extrapolation_value", 0.0, &p->extrap))
    return false;
  p->exclude = excl != 0;
  p->taps = p->method == R_NEAREST ? 1 : p->method == R_LINEAR ? 2 : 4;
  return true;
}

static bool resize_plan(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, Resize *p) {
  int64_t size[2];
  double scales[2], roi[4] = {0, 0, 1, 1};
  int n;
  if (!resize_choices(ctx, a, p) || !read_ints(ctx, a, "size", 2, 0, 1, size)) return false;
  if (!x->tensor.shape) return mlc_op_fail(ctx, a, "data needs known dims");
  if (!read_floats(ctx, a, "roi", roi, 4, &n)) return false;
  if (n >= 0 && n != 4) return mlc_op_fail(ctx, a, "roi must be 4 floats (start h, start w, end h, end w), got %d", n);
  bool scaled = mlc_op_param(a, "scales") >= 0;
  if (scaled) {
    if (!read_floats(ctx, a, "scales", scales, 2, &n)) return false;
    if (n != 2) return mlc_op_fail(ctx, a, "scales must be 2 floats (h, w)");
  }
  for (int d = 0; d < 2; d++) {
    ResizeDim *r = &p->dim[d];
    if (!mlc_e_is_const_int(x->tensor.shape[2 + d], &r->in) || r->in < 1)
      return mlc_op_fail(ctx, a, "the spatial dims of data %s must be positive constants", shape_str(ctx, x));
    r->out = size[d];
    r->scale = scaled ? scales[d] : (double)r->out / (double)r->in;
    if (!(r->scale > 0) || !isfinite(r->scale)) return mlc_op_fail(ctx, a, "scales must be positive");
    r->out_f = scaled ? r->scale * (double)r->in : (double)r->out;
    r->r0 = roi[d], r->r1 = roi[2 + d];
  }
  return true;
}

MlcSInfo *mlc_op_infer_resize2d(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = rank4(ctx, a, 0, "data (NCHW)");
  Resize p;
  if (!x || !resize_plan(ctx, a, x, &p)) return NULL;
  MlcExpr *s[4] = {x->tensor.shape[0], x->tensor.shape[1], i64(ctx, p.dim[0].out), i64(ctx, p.dim[1].out)};
  return mlc_op_tensor_sinfo(ctx, s, 4, x->tensor.dtype);
}

static MlcExpr *fadd(MlcCtx *ctx, MlcExpr *x, double v) { return bin(ctx, MLC_BIN_ADD, x, f64(ctx, v)); }
static MlcExpr *fmul(MlcCtx *ctx, MlcExpr *x, double v) { return bin(ctx, MLC_BIN_MUL, x, f64(ctx, v)); }
static MlcExpr *fdiv(MlcCtx *ctx, MlcExpr *x, double v) { return bin(ctx, MLC_BIN_DIV, x, f64(ctx, v)); }

/* the source coordinate (float64) of output index o along r, as ONNX
 * writes it per mode */
static MlcExpr *src_coord(MlcCtx *ctx, const Resize *p, const ResizeDim *r, MlcExpr *o) {
  MlcExpr *x = mlc_e_cast(ctx, MLC_F64, o);
  double in1 = (double)(r->in - 1);
  switch (p->coord) {
  case R_ALIGN_CORNERS: return r->out_f == 1 ? f64(ctx, 0) : fdiv(ctx, fmul(ctx, x, in1), r->out_f - 1);
  case R_ASYMMETRIC: return fdiv(ctx, x, r->scale);
  case R_PYTORCH_HALF_PIXEL:
    if (r->out_f == 1) return f64(ctx, -0.5);
    return fadd(ctx, fdiv(ctx, fadd(ctx, x, 0.5), r->scale), -0.5);
  case R_TF_HALF_PIXEL_FOR_NN: return fdiv(ctx, fadd(ctx, x, 0.5), r->scale);
  case R_TF_CROP_AND_RESIZE: {
    MlcExpr *c = r->out_f == 1 ? f64(ctx, (r->r1 - r->r0) * in1 / 2)
                               : fdiv(ctx, fmul(ctx, fmul(ctx, x, r->r1 - r->r0), in1), r->out_f - 1);
    return fadd(ctx, c, r->r0 * in1);
  }
  case R_HALF_PIXEL_SYMMETRIC: {
    double adjust = (double)r->out / r->out_f, offset = (double)r->in / 2 * (1 - adjust);
    MlcExpr *c = bin(ctx, MLC_BIN_ADD, f64(ctx, offset), fdiv(ctx, fadd(ctx, x, 0.5), r->scale));
    return fadd(ctx, c, -0.5);
  }
  default: return fadd(ctx, fdiv(ctx, fadd(ctx, x, 0.5), r->scale), -0.5);
  }
}

static MlcExpr *clamp_index(MlcCtx *ctx, MlcExpr *e, int64_t extent) {
  return bin(ctx, MLC_BIN_MIN, bin(ctx, MLC_BIN_MAX, e, i64(ctx, 0)), i64(ctx, extent - 1));
}

/* the first tap's position: nearest rounds, linear and cubic floor (cubic
 * starts one before) */
static MlcExpr *first_tap(MlcCtx *ctx, const Resize *p, MlcExpr *c) {
  MlcExpr *f;
  if (p->method != R_NEAREST) {
    f = mlc_e_cast(ctx, MLC_I64, call1(ctx, MLC_INTRIN_FLOOR, c));
    return p->method == R_CUBIC ? bin(ctx, MLC_BIN_SUB, f, i64(ctx, 1)) : f;
  }
  switch (p->rounding) {
  case R_PREFER_FLOOR: f = call1(ctx, MLC_INTRIN_CEIL, fadd(ctx, c, -0.5)); break;
  case R_FLOOR: f = call1(ctx, MLC_INTRIN_FLOOR, c); break;
  case R_CEIL: f = call1(ctx, MLC_INTRIN_CEIL, c); break;
  default: f = call1(ctx, MLC_INTRIN_FLOOR, fadd(ctx, c, 0.5)); break;
  }
  return mlc_e_cast(ctx, MLC_I64, f);
}

/* ONNX's cubic convolution weight of tap t (0..3) at fraction r */
static MlcExpr *cubic_weight(MlcCtx *ctx, double A, int t, MlcExpr *r) {
  MlcExpr *one_r = bin(ctx, MLC_BIN_SUB, f64(ctx, 1), r);
  MlcExpr *s = t < 2 ? r : one_r; /* distance to the nearer centre tap */
  if (t == 1 || t == 2) { /* ((A + 2) s - (A + 3)) s^2 + 1 */
    MlcExpr *q = fadd(ctx, fmul(ctx, s, A + 2), -(A + 3));
    return fadd(ctx, bin(ctx, MLC_BIN_MUL, bin(ctx, MLC_BIN_MUL, q, s), s), 1);
  }
  MlcExpr *u = fadd(ctx, s, 1); /* ((A u - 5A) u + 8A) u - 4A */
  MlcExpr *q = fadd(ctx, fmul(ctx, u, A), -5 * A);
  q = fadd(ctx, bin(ctx, MLC_BIN_MUL, q, u), 8 * A);
  return fadd(ctx, bin(ctx, MLC_BIN_MUL, q, u), -4 * A);
}

static MlcExpr *tap_weight(MlcCtx *ctx, const Resize *p, int t, MlcExpr *r) {
  if (p->method == R_LINEAR) return t == 0 ? bin(ctx, MLC_BIN_SUB, f64(ctx, 1), r) : r;
  return cubic_weight(ctx, p->alpha, t, r);
}

/* 1.0 when tap t (from first) lies inside the dim, else 0.0 */
static MlcExpr *tap_inside(MlcCtx *ctx, MlcExpr *first, int t, int64_t in) {
  MlcExpr *pos = bin(ctx, MLC_BIN_ADD, first, i64(ctx, t));
  MlcExpr *c = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_GE, pos, i64(ctx, 0)), bin(ctx, MLC_BIN_LT, pos, i64(ctx, in)));
  return mlc_e_select(ctx, c, f64(ctx, 1), f64(ctx, 0));
}

typedef struct DimTables {
  MlcTeTensor *idx, *w, *inside; /* (out, taps) int64; (out, taps) float64; (out,) int64 */
} DimTables;

static bool dim_tables(MlcCtx *ctx, const Resize *p, int d, DimTables *t) {
  const ResizeDim *r = &p->dim[d];
  const char *hw = d ? "w" : "h";
  MlcExpr *shape[2] = {i64(ctx, r->out), i64(ctx, p->taps)}, *ax[2], *ax1[1];
  mlc_op_axes(ctx, 2, ax);
  MlcExpr *c = src_coord(ctx, p, r, ax[0]), *first = first_tap(ctx, p, c);
  MlcExpr *pos = clamp_index(ctx, p->taps > 1 ? bin(ctx, MLC_BIN_ADD, first, ax[1]) : first, r->in);
  t->idx = mlc_te_compute(ctx, mlc_internf(ctx, "resize_index_%s", hw), shape, 2, ax, pos);
  t->w = t->inside = NULL;
  if (p->taps > 1) {
    mlc_op_axes(ctx, 2, ax);
    c = src_coord(ctx, p, r, ax[0]);
    first = first_tap(ctx, p, c);
    MlcExpr *frac = bin(ctx, MLC_BIN_SUB, c, call1(ctx, MLC_INTRIN_FLOOR, c)), *sum = NULL, *body = NULL;
    MlcExpr *w[4];
    for (int k = 0; k < p->taps; k++) {
      w[k] = tap_weight(ctx, p, k, frac);
      if (p->exclude) w[k] = bin(ctx, MLC_BIN_MUL, w[k], tap_inside(ctx, first, k, r->in));
      sum = sum ? bin(ctx, MLC_BIN_ADD, sum, w[k]) : w[k];
    }
    for (int k = p->taps - 1; k >= 0; k--) {
      MlcExpr *v = p->exclude ? bin(ctx, MLC_BIN_DIV, w[k], sum) : w[k];
      body = body ? mlc_e_select(ctx, bin(ctx, MLC_BIN_EQ, ax[1], i64(ctx, k)), v, body) : v;
    }
    t->w = mlc_te_compute(ctx, mlc_internf(ctx, "resize_weight_%s", hw), shape, 2, ax, body);
    if (!t->w) return false;
  }
  if (p->coord == R_TF_CROP_AND_RESIZE) {
    mlc_op_axes(ctx, 1, ax1);
    c = src_coord(ctx, p, r, ax1[0]);
    MlcExpr *ok = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_GE, c, f64(ctx, 0)),
                      bin(ctx, MLC_BIN_LE, c, f64(ctx, (double)(r->in - 1))));
    t->inside = mlc_te_compute(ctx, mlc_internf(ctx, "resize_inside_%s", hw), shape, 1, ax1,
                               mlc_e_select(ctx, ok, i64(ctx, 1), i64(ctx, 0)));
    if (!t->inside) return false;
  }
  return t->idx != NULL;
}

static MlcExpr *read2(MlcCtx *ctx, const MlcTeTensor *t, MlcExpr *a0, int64_t a1) {
  MlcExpr *idx[2] = {a0, i64(ctx, a1)};
  return mlc_te_read(ctx, t, idx, 2);
}

bool mlc_op_te_resize2d(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                        int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_resize2d(ctx, a), *xs = mlc_op_tensor(ctx, a, 0, true);
  Resize p;
  DimTables tab[2];
  if (!out || !xs || !resize_plan(ctx, a, xs, &p) || !dim_tables(ctx, &p, 0, &tab[0]) ||
      !dim_tables(ctx, &p, 1, &tab[1]))
    return false;
  const MlcTeTensor *x = in[0];
  MlcExpr **ax = earr(ctx, 4), *sum = NULL;
  mlc_op_axes(ctx, 4, ax);
  for (int i = 0; i < p.taps; i++)
    for (int j = 0; j < p.taps; j++) {
      MlcExpr *xi[4] = {ax[0], ax[1], read2(ctx, tab[0].idx, ax[2], i), read2(ctx, tab[1].idx, ax[3], j)};
      MlcExpr *v = mlc_te_read(ctx, x, xi, 4);
      if (!v) return false;
      if (p.taps > 1) {
        MlcExpr *w = bin(ctx, MLC_BIN_MUL, read2(ctx, tab[0].w, ax[2], i), read2(ctx, tab[1].w, ax[3], j));
        v = bin(ctx, MLC_BIN_MUL, w, cast_to(ctx, MLC_F64, v));
      }
      sum = sum ? bin(ctx, MLC_BIN_ADD, sum, v) : v;
    }
  MlcExpr *body = cast_to(ctx, x->dtype, sum);
  if (p.coord == R_TF_CROP_AND_RESIZE) {
    MlcExpr *ih = mlc_te_read(ctx, tab[0].inside, &ax[2], 1), *iw = mlc_te_read(ctx, tab[1].inside, &ax[3], 1);
    MlcExpr *ok = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_EQ, ih, i64(ctx, 1)), bin(ctx, MLC_BIN_EQ, iw, i64(ctx, 1)));
    body = if_then_else(ctx, ok, body, mlc_op_const(ctx, x->dtype, p.extrap));
  }
  outs[0] = mlc_te_compute(ctx, "resize2d", out->tensor.shape, 4, ax, body);
  *n_outs = 1;
  return outs[0] != NULL;
}
