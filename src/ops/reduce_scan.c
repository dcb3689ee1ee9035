/* reduce_scan.c - the reductions the TE cannot write as one (argmax /
 * argmin, prod) and the scans (cumsum / cumprod).
 *
 * The TE has sum, max and min reductions only, so:
 *  - argmax is two reductions: the max along the axis, then the least (or,
 *    with select_last_index, the greatest) index whose value equals it;
 *  - prod halves each reduced axis level by level (pairwise products, the
 *    odd element multiplied by 1) until it is 1 long, which needs constant
 *    extents and costs log2(n) small computes;
 *  - cumsum is a sum over k <= i (O(n^2) reads, any extent), and cumprod a
 *    Hillis-Steele scan (step 1, 2, 4, ...; constant extents).
 * Index arithmetic is int64 throughout, like the TE's axes. */
#include <string.h>

#include "mlcc/arith.h"
#include "ops/op_internal.h"

#define SCAN_MAX_NDIM 16

static MlcExpr **earr(MlcCtx *ctx, int n) {
  return mlc_arena_array(&ctx->arena, (size_t)(n > 0 ? n : 1), sizeof(MlcExpr *));
}

static MlcExpr *i64(MlcCtx *ctx, int64_t v) { return mlc_op_i64(ctx, v); }

static bool one_out(MlcTeTensor *t, MlcTeTensor **outs, int *n_outs) {
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}

static bool check_rank(MlcCtx *ctx, const MlcOpArgs *a, int ndim) {
  if (ndim > SCAN_MAX_NDIM) return mlc_op_fail(ctx, a, "rank %d is over the supported %d", ndim, SCAN_MAX_NDIM);
  return true;
}

/* idx with dim d replaced by v (a fresh array) */
static MlcExpr **with_dim(MlcCtx *ctx, MlcExpr **idx, int ndim, int d, MlcExpr *v) {
  MlcExpr **r = earr(ctx, ndim);
  memcpy(r, idx, (size_t)ndim * sizeof *r);
  r[d] = v;
  return r;
}

/* ======================================================================== */
/* argmax, argmin                                                           */
/* ======================================================================== */

typedef struct ArgAttrs {
  int axis;
  bool keep, last;
} ArgAttrs;

static bool arg_attrs(MlcCtx *ctx, const MlcOpArgs *a, int ndim, ArgAttrs *o) {
  int64_t axis;
  if (!check_rank(ctx, a, ndim) || !mlc_op_attr_int(ctx, a, "axis", 0, &axis) ||
      !mlc_op_attr_bool(ctx, a, "keepdims", true, &o->keep) ||
      !mlc_op_attr_bool(ctx, a, "select_last_index", false, &o->last))
    return false;
  return mlc_op_axis(ctx, a, axis, ndim, &o->axis);
}

/* shape without (or with 1 at) the axis */
static int arg_shape(MlcCtx *ctx, MlcExpr **shape, int ndim, const ArgAttrs *o, MlcExpr **out) {
  int n = 0;
  for (int d = 0; d < ndim; d++) {
    if (d != o->axis) out[n++] = shape ? shape[d] : NULL;
    else if (o->keep) out[n++] = i64(ctx, 1);
  }
  return n;
}

MlcSInfo *mlc_op_infer_argreduce(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, false);
  ArgAttrs o;
  if (!x || !arg_attrs(ctx, a, x->tensor.ndim, &o)) return NULL;
  MlcExpr **shape = earr(ctx, x->tensor.ndim);
  int n = arg_shape(ctx, x->tensor.shape, x->tensor.ndim, &o, shape);
  return mlc_op_tensor_sinfo(ctx, x->tensor.shape ? shape : NULL, n, MLC_I64);
}

/* the input index of output index `oidx` with v at the axis */
static MlcExpr **arg_index(MlcCtx *ctx, int ndim, const ArgAttrs *o, MlcExpr **oidx, MlcExpr *v) {
  MlcExpr **idx = earr(ctx, ndim);
  for (int d = 0, k = 0; d < ndim; d++) {
    if (d == o->axis) {
      idx[d] = v;
      if (o->keep) k++;
    } else {
      idx[d] = oidx[k++];
    }
  }
  return idx;
}

bool mlc_op_te_argreduce(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                         int *n_outs) {
  const MlcTeTensor *x = in[0];
  ArgAttrs o;
  if (!arg_attrs(ctx, a, x->ndim, &o)) return false;
  bool is_max = strcmp(a->op->name, "argmax") == 0;
  /* the extreme value, kept as a 1 at the axis */
  ArgAttrs kept = o;
  kept.keep = true;
  MlcExpr **mshape = earr(ctx, x->ndim), **maxes = earr(ctx, x->ndim);
  arg_shape(ctx, x->shape, x->ndim, &kept, mshape);
  mlc_op_axes(ctx, x->ndim, maxes);
  MlcExpr *r = mlc_te_var(ctx, "r0"), *ext = x->shape[o.axis];
  MlcExpr *v = mlc_te_read(ctx, x, with_dim(ctx, maxes, x->ndim, o.axis, r), x->ndim);
  MlcTeTensor *m = mlc_te_reduce(ctx, is_max ? "maxval" : "minval", mshape, x->ndim, maxes,
                                 is_max ? MLC_TE_MAX : MLC_TE_MIN, v, &r, &ext, 1);
  if (!m) return false;
  /* the first (or last) index holding it */
  MlcExpr **shape = earr(ctx, x->ndim), **axes = earr(ctx, x->ndim);
  int n = arg_shape(ctx, x->shape, x->ndim, &o, shape);
  mlc_op_axes(ctx, n, axes);
  MlcExpr *k = mlc_te_var(ctx, "k0");
  MlcExpr *xv = mlc_te_read(ctx, x, arg_index(ctx, x->ndim, &o, axes, k), x->ndim);
  MlcExpr *mv = mlc_te_read(ctx, m, arg_index(ctx, x->ndim, &o, axes, i64(ctx, 0)), x->ndim);
  MlcExpr *miss = o.last ? i64(ctx, -1) : mlc_te_max_value(ctx, MLC_I64);
  MlcExpr *body = mlc_e_select(ctx, mlc_e_bin(ctx, MLC_BIN_EQ, xv, mv), k, miss);
  return one_out(mlc_te_reduce(ctx, a->op->name, shape, n, axes, o.last ? MLC_TE_MAX : MLC_TE_MIN, body, &k, &ext, 1),
                 outs, n_outs);
}

/* ======================================================================== */
/* prod                                                                     */
/* ======================================================================== */

/* t with dim d halved: out[.., j, ..] = t[.., 2j, ..] * t[.., 2j + 1, ..],
 * the last factor 1 past an odd end */
static MlcTeTensor *halve(MlcCtx *ctx, const MlcTeTensor *t, int d, int64_t n) {
  MlcExpr **shape = with_dim(ctx, t->shape, t->ndim, d, i64(ctx, (n + 1) / 2)), **axes = earr(ctx, t->ndim);
  mlc_op_axes(ctx, t->ndim, axes);
  MlcExpr *j2 = mlc_e_bin(ctx, MLC_BIN_MUL, axes[d], i64(ctx, 2));
  MlcExpr *j2p = mlc_e_bin(ctx, MLC_BIN_ADD, j2, i64(ctx, 1));
  MlcExpr *lo = mlc_te_read(ctx, t, with_dim(ctx, axes, t->ndim, d, j2), t->ndim);
  MlcExpr *hi;
  if (n % 2 == 0) {
    hi = mlc_te_read(ctx, t, with_dim(ctx, axes, t->ndim, d, j2p), t->ndim);
  } else { /* the clamp keeps the unused read in bounds: select reads both sides */
    MlcExpr *in = mlc_e_bin(ctx, MLC_BIN_MIN, j2p, i64(ctx, n - 1));
    hi = mlc_e_select(ctx, mlc_e_bin(ctx, MLC_BIN_LT, j2p, i64(ctx, n)),
                      mlc_te_read(ctx, t, with_dim(ctx, axes, t->ndim, d, in), t->ndim), mlc_op_const(ctx, t->dtype, 1));
  }
  return mlc_te_compute(ctx, "prod_step", shape, t->ndim, axes, mlc_e_bin(ctx, MLC_BIN_MUL, lo, hi));
}

/* t with dim d made 1 long by its product (an empty product is 1) */
static MlcTeTensor *prod_axis(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor *t, int d) {
  int64_t n;
  if (!mlc_e_is_const_int(t->shape[d], &n))
    return mlc_op_fail(ctx, a, "a product over a symbolic dim is not supported"), NULL;
  if (n == 0) {
    MlcExpr **shape = with_dim(ctx, t->shape, t->ndim, d, i64(ctx, 1)), **axes = earr(ctx, t->ndim);
    mlc_op_axes(ctx, t->ndim, axes);
    return mlc_te_compute(ctx, "prod_empty", shape, t->ndim, axes, mlc_op_const(ctx, t->dtype, 1));
  }
  for (; t && n > 1; n = (n + 1) / 2) t = halve(ctx, t, d, n);
  return t;
}

/* the reduced axes from attribute "axis" (absent or None: all) */
static bool prod_axes(MlcCtx *ctx, const MlcOpArgs *a, int ndim, bool *on) {
  memset(on, 0, (size_t)SCAN_MAX_NDIM * sizeof *on);
  if (!check_rank(ctx, a, ndim)) return false;
  int p = mlc_op_param(a, "axis");
  const MlcAttrValue *v = p >= 0 ? a->attr[p] : NULL;
  if (!v || v->kind == MLC_ATTR_NONE) {
    for (int d = 0; d < ndim; d++) on[d] = true;
    return true;
  }
  int64_t vals[SCAN_MAX_NDIM];
  int n;
  bool present;
  if (!mlc_op_attr_ints(ctx, a, "axis", vals, SCAN_MAX_NDIM, &n, &present)) return false;
  for (int i = 0; i < n; i++) {
    int d;
    if (!mlc_op_axis(ctx, a, vals[i], ndim, &d)) return false;
    if (on[d]) return mlc_op_fail(ctx, a, "axis %lld is given twice", (long long)vals[i]);
    on[d] = true;
  }
  return true;
}

bool mlc_op_te_prod(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                    int *n_outs) {
  MlcTeTensor *t = in[0];
  bool on[SCAN_MAX_NDIM], keep;
  if (!prod_axes(ctx, a, t->ndim, on) || !mlc_op_attr_bool(ctx, a, "keepdims", false, &keep)) return false;
  int nd = t->ndim;
  for (int d = 0; d < nd && t; d++)
    if (on[d]) t = prod_axis(ctx, a, t, d);
  if (!t) return false;
  /* the result, read from the 1-long dims at index 0 */
  MlcExpr **shape = earr(ctx, nd), **axes = earr(ctx, nd), **idx = earr(ctx, nd);
  int n = 0;
  for (int d = 0; d < nd; d++)
    if (!on[d] || keep) shape[n++] = t->shape[d];
  mlc_op_axes(ctx, n, axes);
  for (int d = 0, o = 0; d < nd; d++) {
    if (on[d] && !keep) idx[d] = i64(ctx, 0);
    else if (on[d]) idx[d] = i64(ctx, 0), o++;
    else idx[d] = axes[o++];
  }
  return one_out(mlc_te_compute(ctx, "prod", shape, n, axes, mlc_te_read(ctx, t, idx, nd)), outs, n_outs);
}

/* ======================================================================== */
/* cumsum, cumprod                                                          */
/* ======================================================================== */

typedef struct CumAttrs {
  bool has_axis, exclusive, reverse;
  int axis;
  MlcDType dtype; /* of the result: the input's unless given */
} CumAttrs;

static bool cum_attrs(MlcCtx *ctx, const MlcOpArgs *a, int ndim, MlcDType in_dtype, CumAttrs *o) {
  int p = mlc_op_param(a, "axis");
  const MlcAttrValue *v = p >= 0 ? a->attr[p] : NULL;
  int64_t axis;
  bool present;
  o->has_axis = v && v->kind != MLC_ATTR_NONE;
  o->axis = 0;
  if (!check_rank(ctx, a, ndim) || !mlc_op_attr_bool(ctx, a, "exclusive", false, &o->exclusive) ||
      !mlc_op_attr_bool(ctx, a, "reverse", false, &o->reverse) ||
      !mlc_op_attr_dtype(ctx, a, "dtype", &o->dtype, &present))
    return false;
  if (!present) o->dtype = in_dtype;
  if (o->has_axis &&
      (!mlc_op_attr_int(ctx, a, "axis", 0, &axis) || !mlc_op_axis(ctx, a, axis, ndim, &o->axis)))
    return false;
  return true;
}

/* without an axis the scan runs over the flattened data */
MlcSInfo *mlc_op_infer_cumulative(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, false);
  CumAttrs o;
  if (!x || !cum_attrs(ctx, a, x->tensor.ndim, x->tensor.dtype, &o)) return NULL;
  if (o.has_axis) return mlc_op_tensor_sinfo(ctx, x->tensor.shape, x->tensor.ndim, o.dtype);
  MlcExpr *numel = i64(ctx, 1);
  for (int d = 0; x->tensor.shape && d < x->tensor.ndim; d++) numel = mlc_arith_mul(ctx, numel, x->tensor.shape[d]);
  return mlc_op_tensor_sinfo(ctx, x->tensor.shape ? &numel : NULL, 1, o.dtype);
}

/* x cast to dtype t, flattened to 1-D when `flat` (row-major unravel) */
static MlcTeTensor *cum_input(MlcCtx *ctx, const MlcTeTensor *x, bool flat, MlcDType t) {
  if (!flat) {
    MlcExpr **axes = earr(ctx, x->ndim);
    mlc_op_axes(ctx, x->ndim, axes);
    return mlc_te_compute(ctx, "scan_in", x->shape, x->ndim, axes, mlc_e_cast(ctx, t, mlc_te_read(ctx, x, axes, x->ndim)));
  }
  MlcExpr *numel = i64(ctx, 1), *f = mlc_te_var(ctx, "ax0"), **idx = earr(ctx, x->ndim);
  for (int d = x->ndim - 1; d >= 0; d--) {
    MlcExpr *q = mlc_e_bin(ctx, MLC_BIN_FLOORDIV, f, numel);
    idx[d] = d == 0 ? q : mlc_e_bin(ctx, MLC_BIN_FLOORMOD, q, x->shape[d]);
    numel = mlc_arith_mul(ctx, numel, x->shape[d]);
  }
  return mlc_te_compute(ctx, "scan_in", &numel, 1, &f, mlc_e_cast(ctx, t, mlc_te_read(ctx, x, idx, x->ndim)));
}

/* sum over r of x[.., r, ..] where r <= i (reverse: r >= i; exclusive: strictly) */
static MlcTeTensor *cumsum(MlcCtx *ctx, const MlcTeTensor *x, const CumAttrs *o) {
  MlcExpr **axes = earr(ctx, x->ndim), *r = mlc_te_var(ctx, "r0"), *n = x->shape[o->axis];
  mlc_op_axes(ctx, x->ndim, axes);
  MlcBinOp cmp = o->reverse ? (o->exclusive ? MLC_BIN_GT : MLC_BIN_GE) : (o->exclusive ? MLC_BIN_LT : MLC_BIN_LE);
  MlcExpr *v = mlc_te_read(ctx, x, with_dim(ctx, axes, x->ndim, o->axis, r), x->ndim);
  MlcExpr *body = mlc_e_select(ctx, mlc_e_bin(ctx, cmp, r, axes[o->axis]), v, mlc_op_const(ctx, x->dtype, 0));
  return mlc_te_reduce(ctx, "cumsum", x->shape, x->ndim, axes, MLC_TE_SUM, body, &r, &n, 1);
}

/* p counted from the scan's start: n-1-p when reversed */
static MlcExpr *scan_pos(MlcCtx *ctx, MlcExpr *p, int64_t n, bool reverse) {
  return reverse ? mlc_e_bin(ctx, MLC_BIN_SUB, i64(ctx, n - 1), p) : p;
}

/* z[p] = z[p] * z[p - s] for p >= s, along the axis in scan order */
static MlcTeTensor *scan_step(MlcCtx *ctx, const MlcTeTensor *z, int d, int64_t s) {
  MlcExpr **axes = earr(ctx, z->ndim);
  mlc_op_axes(ctx, z->ndim, axes);
  MlcExpr *back = mlc_e_bin(ctx, MLC_BIN_MAX, mlc_e_bin(ctx, MLC_BIN_SUB, axes[d], i64(ctx, s)), i64(ctx, 0));
  MlcExpr *prev = mlc_e_select(ctx, mlc_e_bin(ctx, MLC_BIN_GE, axes[d], i64(ctx, s)),
                               mlc_te_read(ctx, z, with_dim(ctx, axes, z->ndim, d, back), z->ndim),
                               mlc_op_const(ctx, z->dtype, 1));
  MlcExpr *body = mlc_e_bin(ctx, MLC_BIN_MUL, mlc_te_read(ctx, z, axes, z->ndim), prev);
  return mlc_te_compute(ctx, "cumprod_step", z->shape, z->ndim, axes, body);
}

/* Hillis-Steele over the scan order, then each output reads its position
 * (one back, or 1 at the start, when exclusive) */
static MlcTeTensor *cumprod(MlcCtx *ctx, const MlcOpArgs *a, const MlcTeTensor *x, const CumAttrs *o) {
  int d = o->axis;
  int64_t n;
  if (!mlc_e_is_const_int(x->shape[d], &n))
    return mlc_op_fail(ctx, a, "a product scan over a symbolic dim is not supported"), NULL;
  MlcExpr **axes = earr(ctx, x->ndim);
  mlc_op_axes(ctx, x->ndim, axes);
  MlcExpr *src = mlc_te_read(ctx, x, with_dim(ctx, axes, x->ndim, d, scan_pos(ctx, axes[d], n, o->reverse)), x->ndim);
  const MlcTeTensor *z = mlc_te_compute(ctx, "cumprod_order", x->shape, x->ndim, axes, src);
  for (int64_t s = 1; z && s < n; s *= 2) z = scan_step(ctx, z, d, s);
  if (!z) return NULL;
  MlcExpr **oaxes = earr(ctx, x->ndim);
  mlc_op_axes(ctx, x->ndim, oaxes);
  MlcExpr *p = scan_pos(ctx, oaxes[d], n, o->reverse), *body;
  if (o->exclusive) {
    MlcExpr *back = mlc_e_bin(ctx, MLC_BIN_MAX, mlc_e_bin(ctx, MLC_BIN_SUB, p, i64(ctx, 1)), i64(ctx, 0));
    body = mlc_e_select(ctx, mlc_e_bin(ctx, MLC_BIN_GT, p, i64(ctx, 0)),
                        mlc_te_read(ctx, z, with_dim(ctx, oaxes, x->ndim, d, back), x->ndim),
                        mlc_op_const(ctx, x->dtype, 1));
  } else {
    body = mlc_te_read(ctx, z, with_dim(ctx, oaxes, x->ndim, d, p), x->ndim);
  }
  return mlc_te_compute(ctx, "cumprod", x->shape, x->ndim, oaxes, body);
}

bool mlc_op_te_cumulative(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                          int *n_outs) {
  CumAttrs o;
  if (!cum_attrs(ctx, a, in[0]->ndim, in[0]->dtype, &o)) return false;
  if (!o.has_axis && in[0]->ndim == 0) return mlc_op_fail(ctx, a, "data must have at least one dim, got a scalar");
  MlcTeTensor *x = cum_input(ctx, in[0], !o.has_axis, o.dtype);
  if (!x) return false;
  bool is_sum = strcmp(a->op->name, "cumsum") == 0;
  return one_out(is_sum ? cumsum(ctx, x, &o) : cumprod(ctx, a, x, &o), outs, n_outs);
}
