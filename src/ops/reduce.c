/* reduce.c - reductions (sum, mean, max, min) and the normalizations built on
 * them (nn.softmax, nn.log_softmax, nn.layer_norm, nn.batch_norm): struct-info
 * inference and TE definitions.
 *
 * Every op here works over a set of axes of its input, so the axes are read
 * and normalized by one helper (RedAxes) and the index arithmetic of "the
 * input read at the kept output axes plus the reduce vars" is written once
 * (red_index).  The numerically sensitive ops use the stable textbook forms:
 * softmax subtracts the max before exp, and layer_norm's variance is a second
 * pass over (x - mean) rather than E[x^2] - E[x]^2. */
#include <string.h>

#include "mlcc/arith.h"
#include "ops/op_internal.h"

#define RED_MAX_NDIM 16

/* the axes an op works over, normalized to [0, ndim) in the order given */
typedef struct RedAxes {
  int n;
  int list[RED_MAX_NDIM];
  bool on[RED_MAX_NDIM];
} RedAxes;

/* the ops of the sum/mean/max/min family */
#define RED_OPS(X)                          \
  X("sum", MLC_TE_SUM, false)               \
  X("mean", MLC_TE_SUM, true)               \
  X("max", MLC_TE_MAX, false)               \
  X("min", MLC_TE_MIN, false)

static MlcExpr **earr(MlcCtx *ctx, int n) {
  return mlc_arena_array(&ctx->arena, (size_t)(n > 0 ? n : 1), sizeof(MlcExpr *));
}

static bool check_rank(MlcCtx *ctx, const MlcOpArgs *a, int ndim) {
  if (ndim > RED_MAX_NDIM)
    return mlc_op_fail(ctx, a, "rank %d is over the supported %d", ndim, RED_MAX_NDIM);
  return true;
}

static bool add_axis(MlcCtx *ctx, const MlcOpArgs *a, int64_t v, int ndim, RedAxes *ax) {
  int d;
  if (!mlc_op_axis(ctx, a, v, ndim, &d)) return false;
  if (ax->on[d]) return mlc_op_fail(ctx, a, "axis %lld is given twice", (long long)v);
  ax->on[d] = true;
  ax->list[ax->n++] = d;
  return true;
}

/* Axes from attribute `name`: absent or None means every axis when
 * all_when_absent (reductions), else the single default axis dflt. */
static bool read_axes(MlcCtx *ctx, const MlcOpArgs *a, const char *name, int ndim,
                      bool all_when_absent, int64_t dflt, RedAxes *ax) {
  memset(ax, 0, sizeof *ax);
  if (!check_rank(ctx, a, ndim)) return false;
  int p = mlc_op_param(a, name);
  const MlcAttrValue *v = p >= 0 ? a->attr[p] : NULL;
  if (!v || v->kind == MLC_ATTR_NONE) {
    if (!all_when_absent) return add_axis(ctx, a, dflt, ndim, ax);
    for (int d = 0; d < ndim; d++) ax->on[d] = true, ax->list[ax->n++] = d;
    return true;
  }
  int64_t vals[RED_MAX_NDIM];
  int n = 0;
  bool present;
  if (!mlc_op_attr_ints(ctx, a, name, vals, RED_MAX_NDIM, &n, &present)) return false;
  for (int i = 0; i < n; i++)
    if (!add_axis(ctx, a, vals[i], ndim, ax)) return false;
  return true;
}

/* The shape left when the axes are reduced (kept as 1 with keepdims). */
static int red_shape(MlcCtx *ctx, MlcExpr **shape, int ndim, const RedAxes *ax, bool keepdims,
                     MlcExpr **out) {
  int n = 0;
  for (int d = 0; d < ndim; d++) {
    if (!ax->on[d]) out[n++] = shape ? shape[d] : NULL;
    else if (keepdims) out[n++] = mlc_op_i64(ctx, 1);
  }
  return n;
}

/* The input index for output index `oidx` (of the reduced shape, with or
 * without kept dims) and one var per reduced axis (`rv`, in axis order). */
static MlcExpr **red_index(MlcCtx *ctx, int ndim, const RedAxes *ax, bool keepdims, MlcExpr **oidx,
                           MlcExpr **rv) {
  MlcExpr **idx = earr(ctx, ndim);
  int o = 0, r = 0;
  for (int d = 0; d < ndim; d++) {
    if (ax->on[d]) {
      idx[d] = rv[r++];
      if (keepdims) o++;
    } else {
      idx[d] = oidx[o++];
    }
  }
  return idx;
}

/* reduce vars and their extents over the marked axes, in axis order */
static int red_vars(MlcCtx *ctx, const MlcTeTensor *x, const RedAxes *ax, MlcExpr **rv, MlcExpr **rext) {
  int r = 0;
  for (int d = 0; d < x->ndim; d++) {
    if (!ax->on[d]) continue;
    rv[r] = mlc_te_var(ctx, mlc_internf(ctx, "r%d", r));
    rext[r] = x->shape[d];
    r++;
  }
  return r;
}

/* the product of the reduced extents (int64) */
static MlcExpr *red_size(MlcCtx *ctx, const MlcTeTensor *x, const RedAxes *ax) {
  MlcExpr *c = mlc_op_i64(ctx, 1);
  for (int d = 0; d < x->ndim; d++)
    if (ax->on[d]) c = mlc_arith_mul(ctx, c, x->shape[d]);
  return c;
}

/* the same as a value of dtype t: an immediate when the extents are constants */
static MlcExpr *red_count(MlcCtx *ctx, const MlcTeTensor *x, const RedAxes *ax, MlcDType t) {
  MlcExpr *c = red_size(ctx, x, ax);
  int64_t v;
  if (c && mlc_e_is_const_int(c, &v)) return mlc_op_const(ctx, t, (double)v);
  return c ? mlc_e_cast(ctx, t, c) : NULL;
}

/* sum/max/min of x over ax into the reduced shape; no reduce axes: a copy */
static MlcTeTensor *red_compute(MlcCtx *ctx, const char *name, const MlcTeTensor *x, const RedAxes *ax,
                                bool keepdims, MlcTeReduce op, MlcExpr *(*body)(MlcCtx *, const MlcTeTensor *,
                                                                                 MlcExpr **, void *),
                                void *user) {
  MlcExpr **shape = earr(ctx, x->ndim), **axes = earr(ctx, x->ndim);
  int n = red_shape(ctx, x->shape, x->ndim, ax, keepdims, shape);
  mlc_op_axes(ctx, n, axes);
  MlcExpr **rv = earr(ctx, ax->n), **rext = earr(ctx, ax->n);
  int nr = red_vars(ctx, x, ax, rv, rext);
  MlcExpr *val = body(ctx, x, red_index(ctx, x->ndim, ax, keepdims, axes, rv), user);
  if (nr == 0) return mlc_te_compute(ctx, name, shape, n, axes, val);
  return mlc_te_reduce(ctx, name, shape, n, axes, op, val, rv, rext, nr);
}

static MlcExpr *body_read(MlcCtx *ctx, const MlcTeTensor *x, MlcExpr **idx, void *user) {
  (void)user;
  return mlc_te_read(ctx, x, idx, x->ndim);
}

/* ---- sum, mean, max, min ---------------------------------------------------------- */

static int red_op(const MlcOpArgs *a, MlcTeReduce *op, bool *mean) {
  static const struct { const char *name; MlcTeReduce op; bool mean; } table[] = {
#define X(n, o, m) {n, o, m},
      RED_OPS(X)
#undef X
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(table[i].name, a->op->name) == 0) {
      *op = table[i].op, *mean = table[i].mean;
      return 1;
    }
  return 0;
}

MlcSInfo *mlc_op_infer_reduce(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, false);
  RedAxes ax;
  bool keep;
  if (!x || !read_axes(ctx, a, "axis", x->tensor.ndim, true, 0, &ax) ||
      !mlc_op_attr_bool(ctx, a, "keepdims", false, &keep))
    return NULL;
  MlcExpr **shape = earr(ctx, x->tensor.ndim);
  int n = red_shape(ctx, x->tensor.shape, x->tensor.ndim, &ax, keep, shape);
  return mlc_sinfo_tensor(ctx, x->tensor.shape ? shape : NULL, n, x->tensor.dtype);
}

/* x / count, the summand of a mean whose count is symbolic */
static MlcExpr *body_scaled(MlcCtx *ctx, const MlcTeTensor *x, MlcExpr **idx, void *user) {
  return mlc_e_bin(ctx, MLC_BIN_DIV, mlc_te_read(ctx, x, idx, x->ndim), user);
}

/* A mean divides the sum by the count afterwards when the count is a
 * constant; a symbolic count may name sizes the reduced shape has lost, which
 * a compute reading only the sum could not see, so then each summand is
 * divided instead (floats only: integer division would truncate each). */
static MlcTeTensor *mean_compute(MlcCtx *ctx, const MlcOpArgs *a, const MlcTeTensor *x, const RedAxes *ax,
                                 bool keep) {
  MlcExpr *size = red_size(ctx, x, ax);
  if (!size) return NULL;
  if (!mlc_e_is_const_int(size, NULL)) {
    if (!mlc_dtype_is_float(x->dtype))
      return mlc_op_fail(ctx, a, "an integer mean over symbolic dims is not supported"), NULL;
    return red_compute(ctx, "mean", x, ax, keep, MLC_TE_SUM, body_scaled, red_count(ctx, x, ax, x->dtype));
  }
  MlcTeTensor *r = red_compute(ctx, "sum", x, ax, keep, MLC_TE_SUM, body_read, NULL);
  if (!r) return NULL;
  MlcExpr **axes = earr(ctx, r->ndim);
  mlc_op_axes(ctx, r->ndim, axes);
  MlcExpr *v = mlc_e_bin(ctx, MLC_BIN_DIV, mlc_te_read(ctx, r, axes, r->ndim), red_count(ctx, x, ax, x->dtype));
  return mlc_te_compute(ctx, "mean", r->shape, r->ndim, axes, v);
}

bool mlc_op_te_reduce(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                      int *n_outs) {
  const MlcTeTensor *x = in[0];
  RedAxes ax;
  bool keep, mean;
  MlcTeReduce op;
  if (!red_op(a, &op, &mean))
    return mlc_op_fail(ctx, a, "not a reduction of this family");
  if (!read_axes(ctx, a, "axis", x->ndim, true, 0, &ax) ||
      !mlc_op_attr_bool(ctx, a, "keepdims", false, &keep))
    return false;
  MlcTeTensor *r = mean && ax.n > 0 ? mean_compute(ctx, a, x, &ax, keep)
                                    : red_compute(ctx, a->op->name, x, &ax, keep, op, body_read, NULL);
  if (!r) return false;
  outs[0] = r;
  *n_outs = 1;
  return true;
}

/* ---- softmax, log_softmax ----------------------------------------------------------- */

typedef struct SoftmaxCtx {
  const MlcTeTensor *max; /* over the axis, keepdims */
  int axis;
} SoftmaxCtx;

/* exp(x - max), the summand of the normalizer */
static MlcExpr *body_exp_shifted(MlcCtx *ctx, const MlcTeTensor *x, MlcExpr **idx, void *user) {
  const SoftmaxCtx *s = user;
  MlcExpr **midx = earr(ctx, x->ndim);
  memcpy(midx, idx, (size_t)x->ndim * sizeof *midx);
  midx[s->axis] = mlc_op_i64(ctx, 0);
  MlcExpr *d = mlc_e_bin(ctx, MLC_BIN_SUB, mlc_te_read(ctx, x, idx, x->ndim),
                         mlc_te_read(ctx, s->max, midx, x->ndim));
  return mlc_e_call(ctx, MLC_INTRIN_EXP, &d, 1);
}

/* What inference and legalization both check: float data of rank >= 1 and
 * one axis (default the last), normalized into ax.  A known dtype is
 * required because the op computes in it (exp, log, division). */
static bool softmax_axis(MlcCtx *ctx, const MlcOpArgs *a, int ndim, MlcDType t, RedAxes *ax) {
  char b[32];
  int64_t axis;
  memset(ax, 0, sizeof *ax);
  if (ndim == 0) return mlc_op_fail(ctx, a, "data must have at least one dim, got a scalar");
  if (!mlc_dtype_is_float(t)) return mlc_op_fail(ctx, a, "data must be float, got %s", mlc_dtype_str(t, b));
  return check_rank(ctx, a, ndim) && mlc_op_attr_int(ctx, a, "axis", -1, &axis) && add_axis(ctx, a, axis, ndim, ax);
}

MlcSInfo *mlc_op_infer_softmax(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true);
  RedAxes ax;
  if (!x || !softmax_axis(ctx, a, x->tensor.ndim, x->tensor.dtype, &ax)) return NULL;
  return a->val[0]->sinfo;
}

bool mlc_op_te_softmax(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                       int *n_outs) {
  const MlcTeTensor *x = in[0];
  bool is_log = strcmp(a->op->name, "nn.log_softmax") == 0;
  RedAxes ax;
  if (!softmax_axis(ctx, a, x->ndim, x->dtype, &ax)) return false;
  SoftmaxCtx s = {.axis = ax.list[0]};
  /* max and sum keep the axis (as 1) so that every read below is x's rank */
  MlcTeTensor *mx = red_compute(ctx, "maxelem", x, &ax, true, MLC_TE_MAX, body_read, NULL);
  s.max = mx;
  MlcTeTensor *sum = mx ? red_compute(ctx, "expsum", x, &ax, true, MLC_TE_SUM, body_exp_shifted, &s) : NULL;
  if (!sum) return false;
  MlcExpr **axes = earr(ctx, x->ndim), **ridx = earr(ctx, x->ndim);
  mlc_op_axes(ctx, x->ndim, axes);
  memcpy(ridx, axes, (size_t)x->ndim * sizeof *ridx);
  ridx[s.axis] = mlc_op_i64(ctx, 0);
  MlcExpr *total = mlc_te_read(ctx, sum, ridx, x->ndim), *v;
  if (is_log) {
    MlcExpr *shifted = mlc_e_bin(ctx, MLC_BIN_SUB, mlc_te_read(ctx, x, axes, x->ndim),
                                 mlc_te_read(ctx, mx, ridx, x->ndim));
    v = mlc_e_bin(ctx, MLC_BIN_SUB, shifted, mlc_e_call(ctx, MLC_INTRIN_LOG, &total, 1));
  } else {
    v = mlc_e_bin(ctx, MLC_BIN_DIV, body_exp_shifted(ctx, x, axes, &s), total);
  }
  outs[0] = mlc_te_compute(ctx, is_log ? "log_softmax" : "softmax", x->shape, x->ndim, axes, v);
  *n_outs = 1;
  return outs[0] != NULL;
}

/* ---- layer_norm ------------------------------------------------------------------------ */

static bool need_float(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x) {
  char b[32];
  if (x->tensor.dtype.code == MLC_TC_VOID || mlc_dtype_is_float(x->tensor.dtype)) return true;
  return mlc_op_fail(ctx, a, "data must be float, got %s", mlc_dtype_str(x->tensor.dtype, b));
}

/* the name of parameter i, from the signature ("T:gamma" -> "gamma") */
static const char *param_name(MlcCtx *ctx, const MlcOpArgs *a, int i) {
  MlcOpParam ps[MLC_OP_MAX_PARAMS];
  int n = mlc_op_sig_parse(a->op, ps);
  return i < n ? mlc_intern(ctx, ps[i].name) : "?";
}

/* parameter pi is a tensor whose dims are data's at ax, in ax's order */
static bool check_affine(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, int pi, const RedAxes *ax) {
  const MlcSInfo *p = mlc_op_tensor(ctx, a, pi, false);
  if (!p) return false;
  const char *pname = param_name(ctx, a, pi);
  char b1[32], b2[32];
  MlcDType s = x->tensor.dtype, t = p->tensor.dtype;
  if (s.code != MLC_TC_VOID && t.code != MLC_TC_VOID && !mlc_dtype_eq(s, t))
    return mlc_op_fail(ctx, a, "%s has dtype %s, data has %s", pname, mlc_dtype_str(t, b1),
                       mlc_dtype_str(s, b2));
  if (!x->tensor.shape || !p->tensor.shape) {
    if (p->tensor.ndim == ax->n) return true;
  } else if (p->tensor.ndim == ax->n) {
    bool ok = true;
    for (int i = 0; i < ax->n; i++) ok = ok && mlc_op_dim_equal(p->tensor.shape[i], x->tensor.shape[ax->list[i]]);
    if (ok) return true;
  }
  MlcExpr **want = earr(ctx, ax->n);
  for (int i = 0; i < ax->n; i++) want[i] = x->tensor.shape ? x->tensor.shape[ax->list[i]] : NULL;
  return mlc_op_fail(ctx, a, "%s must have shape %s (data's dims at the axes), got %s", pname,
                     x->tensor.shape ? mlc_op_shape_str(ctx, want, ax->n) : "of rank n",
                     p->tensor.shape ? mlc_op_shape_str(ctx, p->tensor.shape, p->tensor.ndim) : "unknown");
}

MlcSInfo *mlc_op_infer_layer_norm(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, false);
  RedAxes ax;
  if (!x || !need_float(ctx, a, x) || !read_axes(ctx, a, "axes", x->tensor.ndim, false, -1, &ax) ||
      !check_affine(ctx, a, x, 1, &ax) || !check_affine(ctx, a, x, 2, &ax))
    return NULL;
  return mlc_sinfo_tensor(ctx, x->tensor.shape, x->tensor.ndim, x->tensor.dtype);
}

typedef struct NormCtx {
  const MlcTeTensor *sum; /* keepdims */
  MlcExpr *count;         /* in data's dtype */
} NormCtx;

/* x - mean, with mean read from the keepdims sum */
static MlcExpr *centered(MlcCtx *ctx, const MlcTeTensor *x, MlcExpr **idx, const NormCtx *s, const RedAxes *ax) {
  MlcExpr **midx = earr(ctx, x->ndim);
  for (int d = 0; d < x->ndim; d++) midx[d] = ax->on[d] ? mlc_op_i64(ctx, 0) : idx[d];
  MlcExpr *mean = mlc_e_bin(ctx, MLC_BIN_DIV, mlc_te_read(ctx, s->sum, midx, x->ndim), s->count);
  return mlc_e_bin(ctx, MLC_BIN_SUB, mlc_te_read(ctx, x, idx, x->ndim), mean);
}

typedef struct SqCtx { const NormCtx *n; const RedAxes *ax; } SqCtx;

static MlcExpr *body_sq(MlcCtx *ctx, const MlcTeTensor *x, MlcExpr **idx, void *user) {
  const SqCtx *s = user;
  MlcExpr *c = centered(ctx, x, idx, s->n, s->ax);
  return mlc_e_bin(ctx, MLC_BIN_MUL, c, c);
}

/* v * gamma[...] + beta[...], each when present; idx for the affine params */
static MlcExpr *affine(MlcCtx *ctx, MlcExpr *v, const MlcTeTensor *gamma, const MlcTeTensor *beta,
                       MlcExpr **pidx, int pn) {
  if (gamma) v = mlc_e_bin(ctx, MLC_BIN_MUL, v, mlc_te_read(ctx, gamma, pidx, pn));
  if (beta) v = mlc_e_bin(ctx, MLC_BIN_ADD, v, mlc_te_read(ctx, beta, pidx, pn));
  return v;
}

bool mlc_op_te_layer_norm(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                          int *n_outs) {
  const MlcTeTensor *x = in[0];
  RedAxes ax;
  double eps;
  bool center, scale;
  if (n_in != 3) return mlc_op_fail(ctx, a, "expected 3 tensor inputs, got %d", n_in);
  if (!read_axes(ctx, a, "axes", x->ndim, false, -1, &ax) ||
      !mlc_op_attr_float(ctx, a, "epsilon", 1e-5, &eps) || !mlc_op_attr_bool(ctx, a, "center", true, &center) ||
      !mlc_op_attr_bool(ctx, a, "scale", true, &scale))
    return false;
  NormCtx nc = {.count = red_count(ctx, x, &ax, x->dtype)};
  nc.sum = red_compute(ctx, "ln_sum", x, &ax, true, MLC_TE_SUM, body_read, NULL);
  SqCtx sq = {&nc, &ax};
  MlcTeTensor *sqsum = nc.sum ? red_compute(ctx, "ln_sqsum", x, &ax, true, MLC_TE_SUM, body_sq, &sq) : NULL;
  if (!sqsum) return false;
  MlcExpr **axes = earr(ctx, x->ndim), **ridx = earr(ctx, x->ndim), **pidx = earr(ctx, ax.n);
  mlc_op_axes(ctx, x->ndim, axes);
  for (int d = 0; d < x->ndim; d++) ridx[d] = ax.on[d] ? mlc_op_i64(ctx, 0) : axes[d];
  for (int i = 0; i < ax.n; i++) pidx[i] = axes[ax.list[i]];
  MlcExpr *var = mlc_e_bin(ctx, MLC_BIN_DIV, mlc_te_read(ctx, sqsum, ridx, x->ndim), nc.count);
  MlcExpr *den = mlc_e_bin(ctx, MLC_BIN_ADD, var, mlc_op_const(ctx, x->dtype, eps));
  MlcExpr *v = mlc_e_bin(ctx, MLC_BIN_MUL, centered(ctx, x, axes, &nc, &ax),
                         mlc_e_call(ctx, MLC_INTRIN_RSQRT, &den, 1));
  v = affine(ctx, v, scale ? in[1] : NULL, center ? in[2] : NULL, pidx, ax.n);
  outs[0] = mlc_te_compute(ctx, "layer_norm", x->shape, x->ndim, axes, v);
  *n_outs = 1;
  return outs[0] != NULL;
}

/* ---- batch_norm (inference form) ---------------------------------------------------------- */

static bool bn_attrs(MlcCtx *ctx, const MlcOpArgs *a, int ndim, RedAxes *ax) {
  bool training;
  if (!mlc_op_attr_bool(ctx, a, "training", false, &training)) return false;
  if (training) return mlc_op_fail(ctx, a, "training=True is not supported (inference form only)");
  if (ndim == 0) return mlc_op_fail(ctx, a, "data must have at least one dim, got a scalar");
  return read_axes(ctx, a, "axis", ndim, false, 1, ax);
}

MlcSInfo *mlc_op_infer_batch_norm(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, false);
  RedAxes ax;
  if (!x || !need_float(ctx, a, x) || !bn_attrs(ctx, a, x->tensor.ndim, &ax)) return NULL;
  for (int pi = 1; pi <= 4; pi++)
    if (!check_affine(ctx, a, x, pi, &ax)) return NULL;
  MlcSInfo *f[3] = {mlc_sinfo_tensor(ctx, x->tensor.shape, x->tensor.ndim, x->tensor.dtype)};
  for (int i = 1; i < 3; i++) {
    const MlcSInfo *p = a->val[i + 2]->sinfo;
    f[i] = mlc_sinfo_tensor(ctx, p->tensor.shape, p->tensor.ndim, p->tensor.dtype);
  }
  return mlc_sinfo_tuple(ctx, f, 3);
}

/* a copy of a 1-D moving statistic: the op returns them unchanged */
static MlcTeTensor *copy1(MlcCtx *ctx, const char *name, const MlcTeTensor *t) {
  MlcExpr **axes = earr(ctx, t->ndim);
  mlc_op_axes(ctx, t->ndim, axes);
  return mlc_te_compute(ctx, name, t->shape, t->ndim, axes, mlc_te_read(ctx, t, axes, t->ndim));
}

bool mlc_op_te_batch_norm(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                          int *n_outs) {
  const MlcTeTensor *x = in[0];
  RedAxes ax;
  double eps;
  bool center, scale;
  if (n_in != 5) return mlc_op_fail(ctx, a, "expected 5 tensor inputs, got %d", n_in);
  if (!bn_attrs(ctx, a, x->ndim, &ax) || !mlc_op_attr_float(ctx, a, "epsilon", 1e-5, &eps) ||
      !mlc_op_attr_bool(ctx, a, "center", true, &center) || !mlc_op_attr_bool(ctx, a, "scale", true, &scale))
    return false;
  MlcExpr **axes = earr(ctx, x->ndim);
  mlc_op_axes(ctx, x->ndim, axes);
  MlcExpr **c = &axes[ax.list[0]];
  MlcExpr *den = mlc_e_bin(ctx, MLC_BIN_ADD, mlc_te_read(ctx, in[4], c, 1), mlc_op_const(ctx, x->dtype, eps));
  MlcExpr *v = mlc_e_bin(ctx, MLC_BIN_SUB, mlc_te_read(ctx, x, axes, x->ndim), mlc_te_read(ctx, in[3], c, 1));
  v = mlc_e_bin(ctx, MLC_BIN_DIV, v, mlc_e_call(ctx, MLC_INTRIN_SQRT, &den, 1));
  v = affine(ctx, v, scale ? in[1] : NULL, center ? in[2] : NULL, c, 1);
  outs[0] = mlc_te_compute(ctx, "batch_norm", x->shape, x->ndim, axes, v);
  outs[1] = copy1(ctx, "moving_mean", in[3]);
  outs[2] = copy1(ctx, "moving_var", in[4]);
  *n_outs = 3;
  return outs[0] && outs[1] && outs[2];
}
