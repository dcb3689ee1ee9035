/* sample.c - bilinear sampling: image.grid_sample, the input sampled at the
 * positions a grid gives (ONNX GridSample, PyTorch's grid_sample), for any
 * number r >= 1 of spatial dims; and vision.roi_align (below).
 *
 * data is (N, C, d_1 .. d_r), grid (N, o_1 .. o_r, r) with normalized
 * positions in [-1, 1], last component first (x is the innermost dim), and
 * the output (N, C, o_1 .. o_r).  It is built in two computes:
 *  - the coordinates (N, o_1 .. o_r, r): each normalized position mapped to
 *    the input's pixel space (align_corners: -1 and 1 are the corner pixels'
 *    centres, else their outer edges), rounded half to even for nearest
 *    (the conformance data do so in 3-D too), then
 *    brought inside the input when outside: clamped (border) or reflected
 *    at the borders until inside (reflection);
 *  - the output: per spatial dim the taps (1 nearest, 2 linear, 4 cubic
 *    with Keys' a = -0.75) around the coordinate, the product of their
 *    weights times the data at their position, summed over the taps of
 *    every dim (2^r or 4^r terms, unrolled).  A tap outside the input reads
 *    0 (zeros), the edge (border) or its reflection (reflection).
 * Positions are computed in float32 (float64 for float64 data), the sums in
 * float64.  Reads are clamped into the input, so no tap can read outside
 * it.  The spatial dims of data must be constants (the borders are). */
#include <math.h>
#include <string.h>

#include "ops/op_internal.h"

#define GS_MAX_DIMS 3 /* 4^3 cubic taps at most */

#define GS_METHODS(X) X(NEAREST, "nearest", 1) X(LINEAR, "linear", 2) X(CUBIC, "cubic", 4)
#define GS_PADDINGS(X) X(ZEROS, "zeros") X(BORDER, "border") X(REFLECTION, "reflection")

#define M_ENUM(id, s, taps) GS_##id,
#define P_ENUM(id, s) GS_PAD_##id,
typedef enum { GS_METHODS(M_ENUM) } GsMethod;
typedef enum { GS_PADDINGS(P_ENUM) } GsPadding;
#undef M_ENUM
#undef P_ENUM
#define M_NAME(id, s, taps) s,
#define M_TAPS(id, s, taps) taps,
#define P_NAME(id, s) s,
static const char *const method_names[] = {GS_METHODS(M_NAME) NULL};
static const int method_taps[] = {GS_METHODS(M_TAPS)};
static const char *const padding_names[] = {GS_PADDINGS(P_NAME) NULL};
#undef M_NAME
#undef M_TAPS
#undef P_NAME

typedef struct GridSample {
  int r;                    /* spatial dims */
  int64_t dim[GS_MAX_DIMS]; /* their extents */
  GsMethod method;
  GsPadding padding;
  bool align;
  MlcDType ct; /* the dtype positions are computed in */
} GridSample;

static MlcExpr *i64(MlcCtx *ctx, int64_t v) { return mlc_op_i64(ctx, v); }
static MlcExpr *bin(MlcCtx *ctx, MlcBinOp op, MlcExpr *x, MlcExpr *y) { return mlc_e_bin(ctx, op, x, y); }
static MlcExpr *call1(MlcCtx *ctx, MlcIntrin op, MlcExpr *x) { return mlc_e_call(ctx, op, &x, 1); }

/* position of name among names, or an error listing them */
static bool choose(MlcCtx *ctx, const MlcOpArgs *a, const char *attr, const char *const *names, const char *dflt,
                   int *out) {
  const char *s;
  if (!mlc_op_attr_str(ctx, a, attr, dflt, &s)) return false;
  for (int i = 0; names[i]; i++)
    if (!strcmp(names[i], s)) return *out = i, true;
  return mlc_op_fail(ctx, a, "%s must be one of \"%s\", \"%s\", \"%s\", not \"%s\"", attr, names[0], names[1],
                     names[2], s);
}

static bool gs_plan(MlcCtx *ctx, const MlcOpArgs *a, GridSample *p) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true), *g = mlc_op_tensor(ctx, a, 1, true);
  int method, padding;
  if (!x || !g || !choose(ctx, a, "method", method_names, "linear", &method) ||
      !choose(ctx, a, "padding_mode", padding_names, "zeros", &padding) ||
      !mlc_op_attr_bool(ctx, a, "align_corners", false, &p->align))
    return false;
  p->method = (GsMethod)method;
  p->padding = (GsPadding)padding;
  p->r = x->tensor.ndim - 2;
  if (p->r < 1 || p->r > GS_MAX_DIMS)
    return mlc_op_fail(ctx, a, "data must have 1 to %d spatial dims (rank 3 to %d), got rank %d", GS_MAX_DIMS,
                       GS_MAX_DIMS + 2, x->tensor.ndim);
  if (g->tensor.ndim != x->tensor.ndim)
    return mlc_op_fail(ctx, a, "grid must have data's rank %d, got %d", x->tensor.ndim, g->tensor.ndim);
  if (!x->tensor.shape || !g->tensor.shape) return mlc_op_fail(ctx, a, "data and grid need known dims");
  int64_t last;
  if (!mlc_e_is_const_int(g->tensor.shape[p->r + 1], &last) || last != p->r)
    return mlc_op_fail(ctx, a, "grid's last dim must be %d (one position per spatial dim), grid is %s", p->r,
                       mlc_op_sinfo_str(ctx, g));
  if (!mlc_op_dim_equal(x->tensor.shape[0], g->tensor.shape[0]))
    return mlc_op_fail(ctx, a, "data %s and grid %s differ in batch", mlc_op_sinfo_str(ctx, x), mlc_op_sinfo_str(ctx, g));
  for (int i = 0; i < p->r; i++)
    if (!mlc_e_is_const_int(x->tensor.shape[2 + i], &p->dim[i]) || p->dim[i] < 1)
      return mlc_op_fail(ctx, a, "the spatial dims of data %s must be positive constants", mlc_op_sinfo_str(ctx, x));
  MlcDType t = x->tensor.dtype;
  char buf[32];
  if (!mlc_dtype_is_float(t)) return mlc_op_fail(ctx, a, "data must be floating-point, got %s", mlc_dtype_str(t, buf));
  if (!mlc_dtype_is_float(g->tensor.dtype))
    return mlc_op_fail(ctx, a, "grid must be floating-point, got %s", mlc_dtype_str(g->tensor.dtype, buf));
  p->ct = t.bits == 64 ? MLC_F64 : MLC_F32;
  return true;
}

MlcSInfo *mlc_op_infer_grid_sample(MlcCtx *ctx, const MlcOpArgs *a) {
  GridSample p;
  if (!gs_plan(ctx, a, &p)) return NULL;
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true), *g = mlc_op_tensor(ctx, a, 1, true);
  MlcExpr *shape[GS_MAX_DIMS + 2] = {x->tensor.shape[0], x->tensor.shape[1]};
  for (int i = 0; i < p.r; i++) shape[2 + i] = g->tensor.shape[1 + i];
  return mlc_op_tensor_sinfo(ctx, shape, p.r + 2, x->tensor.dtype);
}

static MlcExpr *cf(MlcCtx *ctx, const GridSample *p, double v) { return mlc_e_float(ctx, p->ct, v); }

/* the borders positions are reflected at / must stay within */
static void borders(const GridSample *p, int i, double *lo, double *hi) {
  *lo = p->align ? 0.0 : -0.5;
  *hi = p->align ? (double)p->dim[i] - 1 : (double)p->dim[i] - 0.5;
}

/* x reflected at lo and hi until inside: by the distance past the border
 * d, k = floor(d / (hi - lo)) whole reflections and the rest r, even k
 * lands at the near border + r, odd at the far border - r */
static MlcExpr *reflect(MlcCtx *ctx, const GridSample *p, MlcExpr *x, double lo, double hi) {
  double range = hi - lo;
  if (range <= 0) return cf(ctx, p, lo);
  MlcExpr *res[2];
  for (int side = 0; side < 2; side++) {
    MlcExpr *d = side ? bin(ctx, MLC_BIN_SUB, x, cf(ctx, p, hi)) : bin(ctx, MLC_BIN_SUB, cf(ctx, p, lo), x);
    MlcExpr *k = call1(ctx, MLC_INTRIN_FLOOR, bin(ctx, MLC_BIN_DIV, d, cf(ctx, p, range)));
    MlcExpr *r = bin(ctx, MLC_BIN_SUB, d, bin(ctx, MLC_BIN_MUL, k, cf(ctx, p, range)));
    MlcExpr *half = call1(ctx, MLC_INTRIN_FLOOR, bin(ctx, MLC_BIN_MUL, k, cf(ctx, p, 0.5)));
    MlcExpr *even = bin(ctx, MLC_BIN_EQ, bin(ctx, MLC_BIN_MUL, half, cf(ctx, p, 2)), k);
    MlcExpr *near = side ? bin(ctx, MLC_BIN_SUB, cf(ctx, p, hi), r) : bin(ctx, MLC_BIN_ADD, cf(ctx, p, lo), r);
    MlcExpr *far = side ? bin(ctx, MLC_BIN_ADD, cf(ctx, p, lo), r) : bin(ctx, MLC_BIN_SUB, cf(ctx, p, hi), r);
    res[side] = mlc_e_select(ctx, even, near, far);
  }
  MlcExpr *below = bin(ctx, MLC_BIN_LT, x, cf(ctx, p, lo)), *above = bin(ctx, MLC_BIN_GT, x, cf(ctx, p, hi));
  return mlc_e_select(ctx, below, res[0], mlc_e_select(ctx, above, res[1], x));
}

/* the pixel-space coordinate of normalized position v along spatial dim i */
static MlcExpr *coordinate(MlcCtx *ctx, const GridSample *p, int i, MlcExpr *v) {
  double len = (double)p->dim[i], lo, hi;
  MlcExpr *n1 = bin(ctx, MLC_BIN_ADD, mlc_op_cast(ctx, p->ct, v), cf(ctx, p, 1));
  MlcExpr *x = p->align ? bin(ctx, MLC_BIN_MUL, bin(ctx, MLC_BIN_DIV, n1, cf(ctx, p, 2)), cf(ctx, p, len - 1))
                        : bin(ctx, MLC_BIN_DIV, bin(ctx, MLC_BIN_SUB, bin(ctx, MLC_BIN_MUL, n1, cf(ctx, p, len)), cf(ctx, p, 1)),
                              cf(ctx, p, 2));
  if (p->method == GS_NEAREST) x = call1(ctx, MLC_INTRIN_ROUND, x);
  borders(p, i, &lo, &hi);
  if (p->padding == GS_PAD_BORDER) {
    MlcExpr *c = bin(ctx, MLC_BIN_MIN, bin(ctx, MLC_BIN_MAX, x, cf(ctx, p, 0)), cf(ctx, p, len - 1));
    MlcExpr *out = bin(ctx, MLC_BIN_OR, bin(ctx, MLC_BIN_LT, x, cf(ctx, p, lo)), bin(ctx, MLC_BIN_GT, x, cf(ctx, p, hi)));
    x = mlc_e_select(ctx, out, c, x);
  } else if (p->padding == GS_PAD_REFLECTION) {
    x = reflect(ctx, p, x, lo, hi);
  }
  return x;
}

/* coords[n, o.., i]: the coordinate along spatial dim i */
static MlcTeTensor *coordinates(MlcCtx *ctx, const GridSample *p, const MlcTeTensor *g) {
  int nd = g->ndim;
  MlcExpr **ax = mlc_arena_array(&ctx->arena, (size_t)nd, sizeof *ax), **gi = mlc_arena_array(&ctx->arena, (size_t)nd, sizeof *gi);
  mlc_op_axes(ctx, nd, ax);
  memcpy(gi, ax, (size_t)nd * sizeof *gi);
  MlcExpr *body = NULL;
  for (int i = p->r - 1; i >= 0; i--) {
    gi[nd - 1] = i64(ctx, p->r - 1 - i); /* the grid holds the innermost dim's position first */
    MlcExpr *c = coordinate(ctx, p, i, mlc_te_read(ctx, g, gi, nd));
    body = body ? mlc_e_select(ctx, bin(ctx, MLC_BIN_EQ, ax[nd - 1], i64(ctx, i)), c, body) : c;
  }
  return mlc_te_compute(ctx, "grid_sample_coord", g->shape, nd, ax, body);
}

/* One tap along one dim: where it reads and with what weight. */
typedef struct Tap {
  MlcExpr *index;  /* int64, inside the dim */
  MlcExpr *weight; /* float64; NULL for nearest */
  MlcExpr *inside; /* zeros padding: whether the tap is inside the dim (NULL: always) */
} Tap;

/* tap t of a coordinate c along dim i */
static Tap tap(MlcCtx *ctx, const GridSample *p, int i, MlcExpr *c, int t) {
  Tap r = {0};
  int taps = method_taps[p->method];
  MlcExpr *pos;
  /* far outside, every tap is outside too: the clamp changes no result and
   * keeps the conversions to integers in range */
  c = bin(ctx, MLC_BIN_MIN, bin(ctx, MLC_BIN_MAX, c, cf(ctx, p, -4)), cf(ctx, p, (double)p->dim[i] + 4));
  if (taps == 1) {
    pos = mlc_e_cast(ctx, MLC_I64, c);
  } else {
    MlcExpr *f = call1(ctx, MLC_INTRIN_FLOOR, c);
    MlcExpr *frac = mlc_op_cast(ctx, MLC_F64, bin(ctx, MLC_BIN_SUB, c, f));
    pos = bin(ctx, MLC_BIN_ADD, mlc_e_cast(ctx, MLC_I64, f), i64(ctx, taps == 4 ? t - 1 : t));
    r.weight = taps == 2 ? (t ? frac : bin(ctx, MLC_BIN_SUB, mlc_e_float(ctx, MLC_F64, 1), frac))
                         : mlc_op_cubic_weight(ctx, -0.75, t, frac);
  }
  int64_t d = p->dim[i];
  if (p->padding == GS_PAD_ZEROS) {
    r.inside = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_GE, pos, i64(ctx, 0)), bin(ctx, MLC_BIN_LT, pos, i64(ctx, d)));
  } else if (p->padding == GS_PAD_REFLECTION) {
    double lo, hi;
    borders(p, i, &lo, &hi);
    GridSample q = *p;
    q.ct = MLC_F64;
    pos = mlc_e_cast(ctx, MLC_I64, reflect(ctx, &q, mlc_e_cast(ctx, MLC_F64, pos), lo, hi));
  }
  r.index = bin(ctx, MLC_BIN_MIN, bin(ctx, MLC_BIN_MAX, pos, i64(ctx, 0)), i64(ctx, d - 1));
  return r;
}

bool mlc_op_te_grid_sample(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                           int *n_outs) {
  GridSample p;
  const MlcSInfo *out = mlc_op_infer_grid_sample(ctx, a);
  if (!out || !gs_plan(ctx, a, &p)) return false;
  const MlcTeTensor *x = in[0];
  MlcTeTensor *coord = coordinates(ctx, &p, in[1]);
  if (!coord) return false;
  int nd = p.r + 2, taps = method_taps[p.method], terms = 1;
  MlcExpr *ax[GS_MAX_DIMS + 2], *ci[GS_MAX_DIMS + 2], *c[GS_MAX_DIMS];
  mlc_op_axes(ctx, nd, ax);
  ci[0] = ax[0];
  for (int i = 0; i < p.r; i++) ci[1 + i] = ax[2 + i];
  for (int i = 0; i < p.r; i++) {
    ci[p.r + 1] = i64(ctx, i);
    c[i] = mlc_te_read(ctx, coord, ci, p.r + 2);
    terms *= taps;
  }
  Tap tp[GS_MAX_DIMS][4];
  for (int i = 0; i < p.r; i++)
    for (int t = 0; t < taps; t++) tp[i][t] = tap(ctx, &p, i, c[i], t);
  MlcExpr *sum = NULL;
  for (int k = 0; k < terms; k++) {
    MlcExpr *xi[GS_MAX_DIMS + 2] = {ax[0], ax[1]}, *w = NULL, *inside = NULL;
    for (int i = p.r - 1, rest = k; i >= 0; i--, rest /= taps) {
      const Tap *t = &tp[i][rest % taps];
      xi[2 + i] = t->index;
      if (t->weight) w = w ? bin(ctx, MLC_BIN_MUL, w, t->weight) : t->weight;
      if (t->inside) inside = inside ? bin(ctx, MLC_BIN_AND, inside, t->inside) : t->inside;
    }
    MlcExpr *v = mlc_op_cast(ctx, MLC_F64, mlc_te_read(ctx, x, xi, nd));
    if (inside) v = mlc_e_select(ctx, inside, v, mlc_e_float(ctx, MLC_F64, 0));
    if (w) v = bin(ctx, MLC_BIN_MUL, w, v);
    sum = sum ? bin(ctx, MLC_BIN_ADD, sum, v) : v;
  }
  outs[0] = mlc_te_compute(ctx, "grid_sample", out->tensor.shape, nd, ax, mlc_op_cast(ctx, x->dtype, sum));
  *n_outs = 1;
  return outs[0] != NULL;
}

/* ======================================================================== */
/* vision.roi_align                                                         */
/* ======================================================================== */

/* data (N, C, H, W), rois (R, 4) as (x1, y1, x2, y2) in data coordinates
 * times spatial_scale, batch_indices (R,): the output (R, C, oh, ow) pools
 * each region's bins, each over sampling_ratio^2 points evenly inside it,
 * read bilinearly as ONNX Runtime does (a point more than a pixel outside
 * counts 0, one less than a pixel outside reads the edge); "avg" averages
 * the points, "max" takes the largest weighted corner of any point.  The
 * half_pixel mode shifts the regions by half a pixel; output_half_pixel
 * (the older rule) does not, and makes regions at least 1 x 1.  The point
 * count is fixed (sampling_ratio >= 1): the adaptive count (0) depends on
 * the regions' data. */

typedef struct RoiAlign {
  int64_t oh, ow, ratio, h, w;
  double scale;
  bool half_pixel, is_max;
} RoiAlign;

static bool roi_plan(MlcCtx *ctx, const MlcOpArgs *a, RoiAlign *p) {
  const MlcSInfo *x = mlc_op_rank4(ctx, a, 0, "data (NCHW)"), *r = x ? mlc_op_tensor(ctx, a, 1, true) : NULL;
  const MlcSInfo *b = r ? mlc_op_tensor(ctx, a, 2, true) : NULL;
  const char *mode, *coord;
  if (!b || !mlc_op_attr_int(ctx, a, "output_height", 1, &p->oh) || !mlc_op_attr_int(ctx, a, "output_width", 1, &p->ow) ||
      !mlc_op_attr_int(ctx, a, "sampling_ratio", 0, &p->ratio) || !mlc_op_attr_float(ctx, a, "spatial_scale", 1.0, &p->scale) ||
      !mlc_op_attr_str(ctx, a, "mode", "avg", &mode) ||
      !mlc_op_attr_str(ctx, a, "coordinate_transformation_mode", "half_pixel", &coord))
    return false;
  if (strcmp(mode, "avg") && strcmp(mode, "max")) return mlc_op_fail(ctx, a, "mode must be \"avg\" or \"max\", not \"%s\"", mode);
  if (strcmp(coord, "half_pixel") && strcmp(coord, "output_half_pixel"))
    return mlc_op_fail(ctx, a, "coordinate_transformation_mode must be \"half_pixel\" or \"output_half_pixel\", not \"%s\"", coord);
  p->is_max = !strcmp(mode, "max");
  p->half_pixel = !strcmp(coord, "half_pixel");
  if (p->oh < 1 || p->ow < 1) return mlc_op_fail(ctx, a, "output_height and output_width must be positive");
  if (p->ratio < 1)
    return mlc_op_fail(ctx, a, "sampling_ratio %lld is not supported (the adaptive count depends on the regions' values; "
                               "give a positive one)", (long long)p->ratio);
  if (p->ratio > 64) return mlc_op_fail(ctx, a, "sampling_ratio %lld is over the supported 64", (long long)p->ratio);
  if (!x->tensor.shape || !mlc_e_is_const_int(x->tensor.shape[2], &p->h) || !mlc_e_is_const_int(x->tensor.shape[3], &p->w) ||
      p->h < 1 || p->w < 1)
    return mlc_op_fail(ctx, a, "the spatial dims of data %s must be positive constants", mlc_op_sinfo_str(ctx, x));
  int64_t four;
  if (r->tensor.ndim != 2 || !r->tensor.shape || !mlc_e_is_const_int(r->tensor.shape[1], &four) || four != 4)
    return mlc_op_fail(ctx, a, "rois must be (R, 4), got %s", mlc_op_sinfo_str(ctx, r));
  if (b->tensor.ndim != 1 || !mlc_dtype_is_int(b->tensor.dtype) || !mlc_op_dim_equal(b->tensor.shape[0], r->tensor.shape[0]))
    return mlc_op_fail(ctx, a, "batch_indices must be integers, one per region (%s), got %s", mlc_op_sinfo_str(ctx, r),
                       mlc_op_sinfo_str(ctx, b));
  if (!mlc_dtype_is_float(x->tensor.dtype) || !mlc_dtype_is_float(r->tensor.dtype))
    return mlc_op_fail(ctx, a, "data and rois must be floating-point");
  return true;
}

MlcSInfo *mlc_op_infer_roi_align(MlcCtx *ctx, const MlcOpArgs *a) {
  RoiAlign p;
  if (!roi_plan(ctx, a, &p)) return NULL;
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true), *r = mlc_op_tensor(ctx, a, 1, true);
  MlcExpr *s[4] = {r->tensor.shape[0], x->tensor.shape[1], i64(ctx, p.oh), i64(ctx, p.ow)};
  return mlc_op_tensor_sinfo(ctx, s, 4, x->tensor.dtype);
}

static MlcExpr *f64c(MlcCtx *ctx, double v) { return mlc_e_float(ctx, MLC_F64, v); }

/* one sample coordinate along a dim of extent n: the edge rules, then the
 * low and high pixels and the fraction; *in false-valued expr when it
 * lies more than a pixel outside */
static void roi_axis(MlcCtx *ctx, MlcExpr *v, int64_t n, MlcExpr **lo, MlcExpr **hi, MlcExpr **frac, MlcExpr **in) {
  *in = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_GE, v, f64c(ctx, -1)), bin(ctx, MLC_BIN_LE, v, f64c(ctx, (double)n)));
  /* past n the point counts 0 anyway: the clamp keeps the conversion in range */
  MlcExpr *c = bin(ctx, MLC_BIN_MIN, bin(ctx, MLC_BIN_MAX, v, f64c(ctx, 0)), f64c(ctx, (double)n));
  MlcExpr *l = mlc_e_cast(ctx, MLC_I64, c);
  MlcExpr *at_end = bin(ctx, MLC_BIN_GE, l, i64(ctx, n - 1));
  *lo = mlc_e_select(ctx, at_end, i64(ctx, n - 1), l);
  *hi = mlc_e_select(ctx, at_end, i64(ctx, n - 1), bin(ctx, MLC_BIN_ADD, l, i64(ctx, 1)));
  *frac = mlc_e_select(ctx, at_end, f64c(ctx, 0), bin(ctx, MLC_BIN_SUB, c, mlc_e_cast(ctx, MLC_F64, l)));
}

bool mlc_op_te_roi_align(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                         int *n_outs) {
  RoiAlign p;
  const MlcSInfo *out = mlc_op_infer_roi_align(ctx, a);
  if (!out || !roi_plan(ctx, a, &p)) return false;
  const MlcTeTensor *x = in[0], *rois = in[1], *bidx = in[2];
  MlcExpr *ax[4], *iy = mlc_te_var(ctx, "iy"), *ix = mlc_te_var(ctx, "ix");
  mlc_op_axes(ctx, 4, ax);
  MlcExpr *r = ax[0], *b = mlc_e_cast(ctx, MLC_I64, mlc_te_read(ctx, bidx, &r, 1));
  b = bin(ctx, MLC_BIN_MIN, bin(ctx, MLC_BIN_MAX, b, i64(ctx, 0)), bin(ctx, MLC_BIN_SUB, x->shape[0], i64(ctx, 1)));
  double off = p.half_pixel ? 0.5 : 0;
  MlcExpr *corner[4];
  for (int k = 0; k < 4; k++) {
    MlcExpr *ri[2] = {r, i64(ctx, k)};
    corner[k] = bin(ctx, MLC_BIN_SUB, bin(ctx, MLC_BIN_MUL, mlc_op_cast(ctx, MLC_F64, mlc_te_read(ctx, rois, ri, 2)), f64c(ctx, p.scale)),
                    f64c(ctx, off));
  }
  /* per dim (0: y, 1: x): the sample position */
  MlcExpr *pos[2], *o[2] = {ax[2], ax[3]}, *it[2] = {iy, ix};
  int64_t bins[2] = {p.oh, p.ow};
  for (int d = 0; d < 2; d++) {
    MlcExpr *start = corner[1 - d], *size = bin(ctx, MLC_BIN_SUB, corner[3 - d], start);
    if (!p.half_pixel) size = bin(ctx, MLC_BIN_MAX, size, f64c(ctx, 1));
    MlcExpr *bin_size = bin(ctx, MLC_BIN_DIV, size, f64c(ctx, (double)bins[d]));
    MlcExpr *step = bin(ctx, MLC_BIN_ADD, mlc_e_cast(ctx, MLC_F64, o[d]),
                        bin(ctx, MLC_BIN_DIV, bin(ctx, MLC_BIN_ADD, mlc_e_cast(ctx, MLC_F64, it[d]), f64c(ctx, 0.5)),
                            f64c(ctx, (double)p.ratio)));
    pos[d] = bin(ctx, MLC_BIN_ADD, start, bin(ctx, MLC_BIN_MUL, step, bin_size));
  }
  MlcExpr *lo[2], *hi[2], *fr[2], *inside[2];
  roi_axis(ctx, pos[0], p.h, &lo[0], &hi[0], &fr[0], &inside[0]);
  roi_axis(ctx, pos[1], p.w, &lo[1], &hi[1], &fr[1], &inside[1]);
  MlcExpr *val = NULL;
  for (int t = 0; t < 4; t++) {
    MlcExpr *yy = t >> 1 ? hi[0] : lo[0], *xx = t & 1 ? hi[1] : lo[1];
    MlcExpr *wy = t >> 1 ? fr[0] : bin(ctx, MLC_BIN_SUB, f64c(ctx, 1), fr[0]);
    MlcExpr *wx = t & 1 ? fr[1] : bin(ctx, MLC_BIN_SUB, f64c(ctx, 1), fr[1]);
    MlcExpr *xi[4] = {b, ax[1], yy, xx};
    MlcExpr *v = bin(ctx, MLC_BIN_MUL, bin(ctx, MLC_BIN_MUL, wy, wx), mlc_op_cast(ctx, MLC_F64, mlc_te_read(ctx, x, xi, 4)));
    val = val ? bin(ctx, p.is_max ? MLC_BIN_MAX : MLC_BIN_ADD, val, v) : v;
  }
  val = mlc_e_select(ctx, bin(ctx, MLC_BIN_AND, inside[0], inside[1]), val, f64c(ctx, 0));
  MlcExpr *rv[2] = {iy, ix}, *rext[2] = {i64(ctx, p.ratio), i64(ctx, p.ratio)};
  MlcTeTensor *acc = mlc_te_reduce(ctx, p.is_max ? "roi_align_max" : "roi_align_sum", out->tensor.shape, 4, ax,
                                   p.is_max ? MLC_TE_MAX : MLC_TE_SUM, val, rv, rext, 2);
  if (!acc) return false;
  MlcExpr *oax[4];
  mlc_op_axes(ctx, 4, oax);
  MlcExpr *v = mlc_te_read(ctx, acc, oax, 4);
  if (!p.is_max) v = bin(ctx, MLC_BIN_DIV, v, f64c(ctx, (double)(p.ratio * p.ratio)));
  outs[0] = mlc_te_compute(ctx, "roi_align", out->tensor.shape, 4, oax, mlc_op_cast(ctx, x->dtype, v));
  *n_outs = 1;
  return outs[0] != NULL;
}
