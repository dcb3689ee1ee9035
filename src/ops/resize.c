/* resize.c - image.resize2d (also resize2d_scaled, resize2d_dynamic): struct-info inference
 * and TE definition, NCHW only.
 *
 * resize2d follows ONNX Resize: per spatial dim, an output index maps to a
 * source coordinate by the coordinate transformation mode (in float64, the
 * formulas in the order ONNX's reference writes them), then to taps (1
 * nearest, 2 linear, 4 cubic) and their weights.  Those depend on one
 * output index only, so they are small per-dim tables (computes over
 * (out, taps)); the output reads the tables and sums taps_h * taps_w
 * terms unrolled.  Taps outside the input read the edge (ONNX pads with
 * edge values); cubic's exclude_outside zeroes them and renormalizes.
 * For resize2d and resize2d_scaled the spatial dims must be constants: the
 * mapping's constants are computed here.  resize2d_dynamic builds the same
 * kernel from expressions that read its scales (or sizes) and region from a
 * tensor and take the output's sizes as vars bound when the model runs.
 * Antialiasing (linear and cubic) sums a window per output position
 * instead of fixed taps (aa_tables below). */
#include <math.h>
#include <string.h>

#include "ops/op_internal.h"

static MlcExpr **earr(MlcCtx *ctx, int n) {
  return mlc_arena_array(&ctx->arena, (size_t)(n > 0 ? n : 1), sizeof(MlcExpr *));
}

static MlcExpr *i64(MlcCtx *ctx, int64_t v) { return mlc_op_i64(ctx, v); }
static MlcExpr *f64(MlcCtx *ctx, double v) { return mlc_e_float(ctx, MLC_F64, v); }
static MlcExpr *bin(MlcCtx *ctx, MlcBinOp op, MlcExpr *x, MlcExpr *y) { return mlc_e_bin(ctx, op, x, y); }

static MlcExpr *call1(MlcCtx *ctx, MlcIntrin op, MlcExpr *x) { return mlc_e_call(ctx, op, &x, 1); }

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

/* one spatial dim's mapping: sizes (int64) and float64 quantities, as
 * constants (resize2d, resize2d_scaled) or as expressions that read the
 * parameters tensor and the output's size vars (resize2d_dynamic) */
typedef struct ResizeDim {
  MlcExpr *in, *out;      /* int64 */
  MlcExpr *scale, *out_f; /* out_f: in * scale, the size the mapping assumes */
  MlcExpr *r0, *r1;       /* tf_crop_and_resize's region, as fractions of the dim */
} ResizeDim;

typedef struct Resize {
  ResizeDim dim[2];
  ResizeChoice method, coord, rounding;
  int taps;
  double alpha, extrap;
  bool exclude, antialias;
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
  int64_t excl, aa;
  if (!mlc_op_need_layout(ctx, a, "layout", "NCHW") || !choose(ctx, a, "method", method_names, R_NEAREST, "linear", &p->method) ||
      !choose(ctx, a, "coordinate_transformation_mode", coord_names, R_HALF_PIXEL, "half_pixel", &p->coord) ||
      !choose(ctx, a, "rounding_method", rounding_names, R_PREFER_FLOOR, "round_prefer_floor", &p->rounding) ||
      !mlc_op_attr_float(ctx, a, "cubic_alpha", -0.75, &p->alpha) ||
      !mlc_op_attr_int(ctx, a, "cubic_exclude", 0, &excl) ||
      !mlc_op_attr_float(ctx, a, "extrapolation_value", 0.0, &p->extrap) ||
      !mlc_op_attr_int(ctx, a, "antialias", 0, &aa))
    return false;
  p->exclude = excl != 0;
  p->antialias = aa != 0 && p->method != R_NEAREST;
  p->taps = p->method == R_NEAREST ? 1 : p->method == R_LINEAR ? 2 : 4;
  return true;
}

static bool resize_plan(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, Resize *p) {
  int64_t size[2];
  double scales[2], roi[4] = {0, 0, 1, 1};
  int n;
  if (!resize_choices(ctx, a, p) || !mlc_op_attr_ints_n(ctx, a, "size", 2, 0, 1, size)) return false;
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
    int64_t in;
    if (!mlc_e_is_const_int(x->tensor.shape[2 + d], &in) || in < 1)
      return mlc_op_fail(ctx, a, "the spatial dims of data %s must be positive constants", mlc_op_sinfo_str(ctx, x));
    double scale = scaled ? scales[d] : (double)size[d] / (double)in;
    if (!(scale > 0) || !isfinite(scale)) return mlc_op_fail(ctx, a, "scales must be positive");
    r->in = i64(ctx, in), r->out = i64(ctx, size[d]);
    r->scale = f64(ctx, scale);
    r->out_f = f64(ctx, scaled ? scale * (double)in : (double)size[d]);
    r->r0 = f64(ctx, roi[d]), r->r1 = f64(ctx, roi[2 + d]);
  }
  return true;
}

MlcSInfo *mlc_op_infer_resize2d(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_rank4(ctx, a, 0, "data (NCHW)");
  Resize p;
  if (!x || !resize_plan(ctx, a, x, &p)) return NULL;
  MlcExpr *s[4] = {x->tensor.shape[0], x->tensor.shape[1], p.dim[0].out, p.dim[1].out};
  return mlc_op_tensor_sinfo(ctx, s, 4, x->tensor.dtype);
}

/* float64 arithmetic, folded in double where both sides are constants (so
 * that the constant plans compute what they always did, at compile time) */
static bool fconst(const MlcExpr *e, double *v) {
  if (e->kind != MLC_EXPR_FLOAT) return false;
  *v = e->float_val;
  return true;
}

static MlcExpr *fop(MlcCtx *ctx, MlcBinOp op, MlcExpr *x, MlcExpr *y) {
  double a, b;
  if (fconst(x, &a) && fconst(y, &b)) {
    switch (op) {
    case MLC_BIN_ADD: return f64(ctx, a + b);
    case MLC_BIN_SUB: return f64(ctx, a - b);
    case MLC_BIN_MUL: return f64(ctx, a * b);
    case MLC_BIN_DIV: return f64(ctx, a / b);
    default: break;
    }
  }
  return bin(ctx, op, x, y);
}

static MlcExpr *fadd(MlcCtx *ctx, MlcExpr *x, double v) { return fop(ctx, MLC_BIN_ADD, x, f64(ctx, v)); }
static MlcExpr *fmul(MlcCtx *ctx, MlcExpr *x, double v) { return fop(ctx, MLC_BIN_MUL, x, f64(ctx, v)); }

/* the int64 size e as float64 */
static MlcExpr *as_f64(MlcCtx *ctx, MlcExpr *e) {
  int64_t v;
  return mlc_e_is_const_int(e, &v) ? f64(ctx, (double)v) : mlc_e_cast(ctx, MLC_F64, e);
}

/* one_v where out_f is 1, else other (chosen here when out_f is a constant) */
static MlcExpr *if_out1(MlcCtx *ctx, const ResizeDim *r, MlcExpr *one_v, MlcExpr *other) {
  double v;
  if (fconst(r->out_f, &v)) return v == 1 ? one_v : other;
  return mlc_e_select(ctx, bin(ctx, MLC_BIN_EQ, r->out_f, f64(ctx, 1)), one_v, other);
}

/* the source coordinate (float64) of output index o along r, as ONNX
 * writes it per mode */
static MlcExpr *src_coord(MlcCtx *ctx, const Resize *p, const ResizeDim *r, MlcExpr *o) {
  MlcExpr *x = mlc_e_cast(ctx, MLC_F64, o), *in = as_f64(ctx, r->in);
  MlcExpr *in1 = fadd(ctx, in, -1), *of1 = fadd(ctx, r->out_f, -1);
  switch (p->coord) {
  case R_ALIGN_CORNERS: return if_out1(ctx, r, f64(ctx, 0), fop(ctx, MLC_BIN_DIV, fop(ctx, MLC_BIN_MUL, x, in1), of1));
  case R_ASYMMETRIC: return fop(ctx, MLC_BIN_DIV, x, r->scale);
  case R_PYTORCH_HALF_PIXEL:
    return if_out1(ctx, r, f64(ctx, -0.5), fadd(ctx, fop(ctx, MLC_BIN_DIV, fadd(ctx, x, 0.5), r->scale), -0.5));
  case R_TF_HALF_PIXEL_FOR_NN: return fop(ctx, MLC_BIN_DIV, fadd(ctx, x, 0.5), r->scale);
  case R_TF_CROP_AND_RESIZE: {
    MlcExpr *span = fop(ctx, MLC_BIN_SUB, r->r1, r->r0);
    MlcExpr *c = if_out1(ctx, r, fop(ctx, MLC_BIN_DIV, fop(ctx, MLC_BIN_MUL, span, in1), f64(ctx, 2)),
                         fop(ctx, MLC_BIN_DIV, fop(ctx, MLC_BIN_MUL, fop(ctx, MLC_BIN_MUL, x, span), in1), of1));
    return fop(ctx, MLC_BIN_ADD, c, fop(ctx, MLC_BIN_MUL, r->r0, in1));
  }
  case R_HALF_PIXEL_SYMMETRIC: {
    MlcExpr *adjust = fop(ctx, MLC_BIN_DIV, as_f64(ctx, r->out), r->out_f);
    MlcExpr *offset = fop(ctx, MLC_BIN_MUL, fop(ctx, MLC_BIN_DIV, in, f64(ctx, 2)), fop(ctx, MLC_BIN_SUB, f64(ctx, 1), adjust));
    MlcExpr *c = fop(ctx, MLC_BIN_ADD, offset, fop(ctx, MLC_BIN_DIV, fadd(ctx, x, 0.5), r->scale));
    return fadd(ctx, c, -0.5);
  }
  default: return fadd(ctx, fop(ctx, MLC_BIN_DIV, fadd(ctx, x, 0.5), r->scale), -0.5);
  }
}

/* the int64 size e minus 1 */
static MlcExpr *isub1(MlcCtx *ctx, MlcExpr *e) {
  int64_t v;
  return mlc_e_is_const_int(e, &v) ? i64(ctx, v - 1) : bin(ctx, MLC_BIN_SUB, e, i64(ctx, 1));
}

static MlcExpr *clamp_index(MlcCtx *ctx, MlcExpr *e, MlcExpr *extent) {
  return bin(ctx, MLC_BIN_MIN, bin(ctx, MLC_BIN_MAX, e, i64(ctx, 0)), isub1(ctx, extent));
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

/* ONNX's cubic convolution weight of tap t (0..3) at fraction r (also
 * grid_sample's, sample.c) */
MlcExpr *mlc_op_cubic_weight(MlcCtx *ctx, double A, int t, MlcExpr *r) {
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
  return mlc_op_cubic_weight(ctx, p->alpha, t, r);
}

/* 1.0 when tap t (from first) lies inside the dim, else 0.0 */
static MlcExpr *tap_inside(MlcCtx *ctx, MlcExpr *first, int t, MlcExpr *in) {
  MlcExpr *pos = bin(ctx, MLC_BIN_ADD, first, i64(ctx, t));
  MlcExpr *c = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_GE, pos, i64(ctx, 0)), bin(ctx, MLC_BIN_LT, pos, in));
  return mlc_e_select(ctx, c, f64(ctx, 1), f64(ctx, 0));
}

typedef struct DimTables {
  MlcTeTensor *idx, *w, *inside; /* (out, taps) int64; (out, taps) float64; (out,) int64 */
} DimTables;

static bool dim_tables(MlcCtx *ctx, const Resize *p, int d, DimTables *t) {
  const ResizeDim *r = &p->dim[d];
  const char *hw = d ? "w" : "h";
  MlcExpr *shape[2] = {r->out, i64(ctx, p->taps)}, *ax[2], *ax1[1];
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
                      bin(ctx, MLC_BIN_LE, c, fadd(ctx, as_f64(ctx, r->in), -1)));
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

/* ---- antialiasing ------------------------------------------------------------------------------- */

/* ONNX's antialias (linear and cubic): the filter is stretched by 1 / scale
 * where the scale is below 1, so a dim's taps reach ceil(support / scale)
 * positions either side of the coordinate, a count that a scale read at
 * run time decides.  Each output position therefore sums over a window of
 * 2 H positions around floor(coordinate), H = 4 in + 4 (enough for the
 * smallest scale an output of at least one element allows, 1 / (2 in)),
 * where the filter is zero past its reach.  The weights are normalized per
 * output position (after exclude_outside zeroes those outside the input),
 * positions outside read the edge, and the dims are resized one after the
 * other, W then H, in float64, as ONNX's reference does. */
typedef struct AaTables {
  MlcTeTensor *base, *w; /* (out,) int64: the window's first position; (out, 2 H) float64 */
  MlcExpr *win;          /* 2 H */
} AaTables;

/* the filter's value at distance u >= 0 (in input positions times the scale) */
static MlcExpr *aa_filter(MlcCtx *ctx, const Resize *p, MlcExpr *u) {
  if (p->method == R_LINEAR) return bin(ctx, MLC_BIN_MAX, bin(ctx, MLC_BIN_SUB, f64(ctx, 1), u), f64(ctx, 0));
  double A = p->alpha;
  MlcExpr *near = fadd(ctx, bin(ctx, MLC_BIN_MUL, bin(ctx, MLC_BIN_MUL, fadd(ctx, fmul(ctx, u, A + 2), -(A + 3)), u), u), 1);
  MlcExpr *q = fadd(ctx, fmul(ctx, u, A), -5 * A);
  q = fadd(ctx, bin(ctx, MLC_BIN_MUL, q, u), 8 * A);
  MlcExpr *far = fadd(ctx, bin(ctx, MLC_BIN_MUL, q, u), -4 * A);
  return mlc_e_select(ctx, bin(ctx, MLC_BIN_LE, u, f64(ctx, 1)), near,
                      mlc_e_select(ctx, bin(ctx, MLC_BIN_LT, u, f64(ctx, 2)), far, f64(ctx, 0)));
}

static bool aa_tables(MlcCtx *ctx, const Resize *p, int d, AaTables *t) {
  const ResizeDim *r = &p->dim[d];
  const char *hw = d ? "w" : "h";
  MlcExpr *half = bin(ctx, MLC_BIN_ADD, bin(ctx, MLC_BIN_MUL, r->in, i64(ctx, 4)), i64(ctx, 4));
  t->win = bin(ctx, MLC_BIN_MUL, half, i64(ctx, 2));
  MlcExpr *ax1[1], *ax[2], *shape[2] = {r->out, t->win};
  mlc_op_axes(ctx, 1, ax1);
  MlcExpr *fl = mlc_e_cast(ctx, MLC_I64, call1(ctx, MLC_INTRIN_FLOOR, src_coord(ctx, p, r, ax1[0])));
  MlcExpr *oshape[1] = {r->out};
  t->base = mlc_te_compute(ctx, mlc_internf(ctx, "resize_aa_base_%s", hw), oshape, 1, ax1, bin(ctx, MLC_BIN_SUB, fl, half));
  mlc_op_axes(ctx, 2, ax);
  MlcExpr *c = src_coord(ctx, p, r, ax[0]), *cf = call1(ctx, MLC_INTRIN_FLOOR, c);
  MlcExpr *ratio = bin(ctx, MLC_BIN_SUB, c, cf), *s = bin(ctx, MLC_BIN_MIN, r->scale, f64(ctx, 1));
  MlcExpr *off = mlc_e_cast(ctx, MLC_F64, bin(ctx, MLC_BIN_SUB, ax[1], half));
  MlcExpr *u = call1(ctx, MLC_INTRIN_FABS, bin(ctx, MLC_BIN_MUL, bin(ctx, MLC_BIN_SUB, off, ratio), s));
  MlcExpr *w = aa_filter(ctx, p, u);
  if (p->exclude) {
    MlcExpr *pos = bin(ctx, MLC_BIN_ADD, bin(ctx, MLC_BIN_SUB, mlc_e_cast(ctx, MLC_I64, cf), half), ax[1]);
    w = bin(ctx, MLC_BIN_MUL, w, tap_inside(ctx, pos, 0, r->in));
  }
  MlcTeTensor *raw = mlc_te_compute(ctx, mlc_internf(ctx, "resize_aa_raw_%s", hw), shape, 2, ax, w);
  if (!t->base || !raw) return false;
  MlcExpr *k = mlc_te_var(ctx, "k"), *o[1], *win = t->win;
  mlc_op_axes(ctx, 1, o);
  MlcExpr *ri[2] = {o[0], k};
  MlcTeTensor *norm = mlc_te_reduce(ctx, mlc_internf(ctx, "resize_aa_norm_%s", hw), oshape, 1, o, MLC_TE_SUM,
                                    mlc_te_read(ctx, raw, ri, 2), &k, &win, 1);
  if (!norm) return false;
  mlc_op_axes(ctx, 2, ax);
  MlcExpr *wn = bin(ctx, MLC_BIN_DIV, mlc_te_read(ctx, raw, ax, 2), mlc_te_read(ctx, norm, ax, 1));
  t->w = mlc_te_compute(ctx, mlc_internf(ctx, "resize_aa_weight_%s", hw), shape, 2, ax, wn);
  return t->w != NULL;
}

/* sum over the window of t along dim `dim` of src (4-D, read as float64) into shape */
static MlcTeTensor *aa_pass(MlcCtx *ctx, const char *name, const AaTables *t, const MlcTeTensor *src, int dim,
                            MlcExpr *in, MlcExpr **shape) {
  MlcExpr **ax = earr(ctx, 4), *k = mlc_te_var(ctx, "k"), *xi[4], *ti[2], *win = t->win;
  mlc_op_axes(ctx, 4, ax);
  ti[0] = ax[dim], ti[1] = k;
  MlcExpr *pos = clamp_index(ctx, bin(ctx, MLC_BIN_ADD, mlc_te_read(ctx, t->base, &ax[dim], 1), k), in);
  for (int i = 0; i < 4; i++) xi[i] = i == dim ? pos : ax[i];
  MlcExpr *body =
      bin(ctx, MLC_BIN_MUL, mlc_te_read(ctx, t->w, ti, 2), mlc_op_cast(ctx, MLC_F64, mlc_te_read(ctx, src, xi, 4)));
  return mlc_te_reduce(ctx, name, shape, 4, ax, MLC_TE_SUM, body, &k, &win, 1);
}

/* the antialiased output (shape oshape) of x, in float64 */
static MlcTeTensor *aa_resize(MlcCtx *ctx, const Resize *p, const MlcTeTensor *x, MlcExpr **oshape) {
  AaTables th, tw;
  if (!aa_tables(ctx, p, 0, &th) || !aa_tables(ctx, p, 1, &tw)) return NULL;
  MlcExpr *mid[4] = {oshape[0], oshape[1], x->shape[2], oshape[3]};
  MlcTeTensor *t = aa_pass(ctx, "resize_aa_w", &tw, x, 3, x->shape[3], mid);
  return t ? aa_pass(ctx, "resize_aa_h", &th, t, 2, x->shape[2], oshape) : NULL;
}

/* the output (shape oshape) of x resized by plan p */
static bool resize_kernel(MlcCtx *ctx, const Resize *pp, const MlcTeTensor *x, MlcExpr **oshape, MlcTeTensor **outs,
                          int *n_outs) {
  Resize p = *pp;
  DimTables tab[2];
  if (!dim_tables(ctx, &p, 0, &tab[0]) || !dim_tables(ctx, &p, 1, &tab[1])) return false;
  MlcExpr **ax = earr(ctx, 4), *sum = NULL;
  mlc_op_axes(ctx, 4, ax);
  if (p.antialias) {
    MlcTeTensor *t = aa_resize(ctx, &p, x, oshape);
    if (!t) return false;
    sum = mlc_te_read(ctx, t, ax, 4);
  }
  for (int i = 0; i < p.taps && !p.antialias; i++)
    for (int j = 0; j < p.taps; j++) {
      MlcExpr *xi[4] = {ax[0], ax[1], read2(ctx, tab[0].idx, ax[2], i), read2(ctx, tab[1].idx, ax[3], j)};
      MlcExpr *v = mlc_te_read(ctx, x, xi, 4);
      if (!v) return false;
      if (p.taps > 1) {
        MlcExpr *w = bin(ctx, MLC_BIN_MUL, read2(ctx, tab[0].w, ax[2], i), read2(ctx, tab[1].w, ax[3], j));
        v = bin(ctx, MLC_BIN_MUL, w, mlc_op_cast(ctx, MLC_F64, v));
      }
      sum = sum ? bin(ctx, MLC_BIN_ADD, sum, v) : v;
    }
  MlcExpr *body = mlc_op_cast(ctx, x->dtype, sum);
  if (p.coord == R_TF_CROP_AND_RESIZE) {
    MlcExpr *ih = mlc_te_read(ctx, tab[0].inside, &ax[2], 1), *iw = mlc_te_read(ctx, tab[1].inside, &ax[3], 1);
    MlcExpr *ok = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_EQ, ih, i64(ctx, 1)), bin(ctx, MLC_BIN_EQ, iw, i64(ctx, 1)));
    body = mlc_op_select(ctx, ok, body, mlc_op_const(ctx, x->dtype, p.extrap));
  }
  outs[0] = mlc_te_compute(ctx, "resize2d", oshape, 4, ax, body);
  *n_outs = 1;
  return outs[0] != NULL;
}

bool mlc_op_te_resize2d(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                        int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_resize2d(ctx, a), *xs = mlc_op_tensor(ctx, a, 0, true);
  Resize p;
  if (!out || !xs || !resize_plan(ctx, a, xs, &p)) return false;
  return resize_kernel(ctx, &p, in[0], out->tensor.shape, outs, n_outs);
}

/* ======================================================================== */
/* image.resize2d_dynamic                                                   */
/* ======================================================================== */

/* resize2d_dynamic(data, params, shape=[n, c, oh, ow], policy=..., axes=...)
 * reads its scales (or sizes) and region when the model runs, from the
 * float64 tensor params = [kind, mask, v0..v3, roi starts 0..3, roi ends
 * 0..3] (what tensor_to_shape mode "resize" reads to bind oh and ow, so
 * both see the same values): v are the scales (policy "scales") or sizes
 * ("sizes", "not_larger", "not_smaller") of the 4 dims, those of the dims
 * outside `axes` unused.  The output dims come in as shape; the mapping's
 * scale of a resized dim is v (scales), out / in (sizes) or the least
 * ("not_larger") or greatest ("not_smaller") of v_a / in_a over the axes.
 * kind and mask are the executor's copy of policy and axes.  NCHW only
 * (no layout attribute). */
#define RESIZE_POLICIES(X) X(SCALES, "scales") X(SIZES, "sizes") X(NOT_LARGER, "not_larger") X(NOT_SMALLER, "not_smaller")
#define POLICY_ENUM(id, s) P_##id,
#define POLICY_NAME(id, s) s,
typedef enum { RESIZE_POLICIES(POLICY_ENUM) } ResizePolicy;
static const char *const policy_names[] = {RESIZE_POLICIES(POLICY_NAME) NULL};
#undef POLICY_ENUM
#undef POLICY_NAME

enum { DYN_PARAMS = 14 };

typedef struct DynResize {
  const MlcSInfo *x;
  MlcExpr **shape;
  int policy;
  bool listed[4];
} DynResize;

static bool dyn_args(MlcCtx *ctx, const MlcOpArgs *a, DynResize *q) {
  const MlcSInfo *pr;
  const char *pol;
  int n, na;
  bool present;
  int64_t axes[4];
  if (!(q->x = mlc_op_rank4(ctx, a, 0, "data (NCHW)")) || !(pr = mlc_op_tensor(ctx, a, 1, true)) ||
      !mlc_op_attr_shape(ctx, a, "shape", &q->shape, &n) || !mlc_op_attr_str(ctx, a, "policy", "scales", &pol) ||
      !mlc_op_attr_ints(ctx, a, "axes", axes, 4, &na, &present))
    return false;
  int64_t len;
  if (!mlc_dtype_eq(pr->tensor.dtype, MLC_F64) || pr->tensor.ndim != 1 || !pr->tensor.shape ||
      !mlc_e_is_const_int(pr->tensor.shape[0], &len) || len != DYN_PARAMS)
    return mlc_op_fail(ctx, a, "params: expected %d float64 values, got %s", DYN_PARAMS, mlc_op_sinfo_str(ctx, pr));
  if (n != 4) return mlc_op_fail(ctx, a, "shape: expected 4 dims, got %d", n);
  q->policy = -1;
  for (int i = 0; policy_names[i]; i++)
    if (!strcmp(policy_names[i], pol)) q->policy = i;
  if (q->policy < 0)
    return mlc_op_fail(ctx, a, "policy must be one of \"scales\", \"sizes\", \"not_larger\", \"not_smaller\", not \"%s\"", pol);
  for (int d = 0; d < 4; d++) q->listed[d] = !present;
  for (int i = 0; present && i < na; i++) {
    if (axes[i] < 0 || axes[i] > 3 || q->listed[axes[i]])
      return mlc_op_fail(ctx, a, "axes: %lld is out of range or given twice", (long long)axes[i]);
    q->listed[axes[i]] = true;
  }
  return true;
}

MlcSInfo *mlc_op_infer_resize2d_dynamic(MlcCtx *ctx, const MlcOpArgs *a) {
  DynResize q;
  Resize p;
  if (!dyn_args(ctx, a, &q) || !resize_choices(ctx, a, &p)) return NULL;
  if (!q.x->tensor.shape) return mlc_op_fail(ctx, a, "data needs known dims"), NULL;
  return mlc_op_tensor_sinfo(ctx, q.shape, 4, q.x->tensor.dtype);
}

static MlcExpr *param(MlcCtx *ctx, const MlcTeTensor *pt, int i) {
  MlcExpr *k = i64(ctx, i);
  return mlc_te_read(ctx, pt, &k, 1);
}

bool mlc_op_te_resize2d_dynamic(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                                int *n_outs) {
  DynResize q;
  Resize p;
  if (!mlc_op_infer_resize2d_dynamic(ctx, a) || !dyn_args(ctx, a, &q) || !resize_choices(ctx, a, &p)) return false;
  const MlcTeTensor *x = in[0], *pt = in[1];
  MlcExpr *s = NULL; /* the one scale of the aspect-keeping policies */
  for (int d = 0; d < 4 && q.policy >= P_NOT_LARGER; d++) {
    if (!q.listed[d]) continue;
    MlcExpr *v = bin(ctx, MLC_BIN_DIV, param(ctx, pt, 2 + d), as_f64(ctx, x->shape[d]));
    s = !s ? v : bin(ctx, q.policy == P_NOT_LARGER ? MLC_BIN_MIN : MLC_BIN_MAX, s, v);
  }
  for (int d = 0; d < 2; d++) {
    ResizeDim *r = &p.dim[d];
    int ax = 2 + d;
    MlcExpr *in_f = as_f64(ctx, x->shape[ax]);
    r->in = x->shape[ax], r->out = q.shape[ax];
    r->r0 = param(ctx, pt, 6 + ax), r->r1 = param(ctx, pt, 10 + ax);
    if (!q.listed[ax]) {
      r->scale = f64(ctx, 1), r->out_f = in_f;
    } else if (q.policy == P_SCALES) {
      r->scale = param(ctx, pt, 2 + ax), r->out_f = bin(ctx, MLC_BIN_MUL, r->scale, in_f);
    } else if (q.policy == P_SIZES) {
      r->out_f = as_f64(ctx, r->out), r->scale = bin(ctx, MLC_BIN_DIV, r->out_f, in_f);
    } else {
      r->scale = s, r->out_f = bin(ctx, MLC_BIN_MUL, s, in_f);
    }
  }
  return resize_kernel(ctx, &p, x, q.shape, outs, n_outs);
}
