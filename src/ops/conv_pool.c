/* conv_pool.c - nn.conv2d and the 2-D pools (max, avg, adaptive avg; the
 * positions of the maxima):
 * struct-info inference and TE definitions.
 *
 * Convolution and pooling share one description of a sliding window (Win:
 * strides, four paddings, dilation, ceil mode) and one output-size rule,
 *   out = (in + pad_before + pad_after - dilation * (k - 1) - 1 [+ stride - 1 in
 *         ceil mode]) // stride + 1,
 * in ceil mode less the last window when it would start in the trailing
 * padding (ceil_last_window), which stays symbolic when `in` is.  Padding is a separate `pad_temp`
 * compute guarded by T.if_then_else, so the reduction itself reads in
 * bounds and the padding value differs per op (0, or the lowest value for
 * max pooling); the padded extent also covers the windows ceil mode adds.
 * Only NCHW data and OIHW kernels are accepted: other layouts are refused
 * rather than silently transposed. */
#include <string.h>

#include "mlcc/arith.h"
#include "mlcc/text.h"
#include "ops/op_internal.h"

static MlcExpr **earr(MlcCtx *ctx, int n) {
  return mlc_arena_array(&ctx->arena, (size_t)(n > 0 ? n : 1), sizeof(MlcExpr *));
}

static MlcExpr *simp(MlcCtx *ctx, MlcExpr *e) {
  if (!e) return NULL;
  MlcAnalyzer az;
  mlc_arith_init(&az, ctx);
  MlcExpr *r = mlc_arith_simplify(&az, e);
  mlc_arith_free(&az);
  return r;
}

static MlcExpr *add(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) { return mlc_arith_add(ctx, x, y); }
static MlcExpr *mul(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) { return mlc_arith_mul(ctx, x, y); }
static MlcExpr *i64(MlcCtx *ctx, int64_t v) { return mlc_op_i64(ctx, v); }

/* a dim for messages: 4, n, h + 2 */
static const char *dim_str(MlcCtx *ctx, const MlcExpr *e) {
  int64_t v;
  if (mlc_e_is_const_int(e, &v)) return mlc_internf(ctx, "%lld", (long long)v);
  MlcStrBuf sb = {0};
  mlc_print_expr(e, &sb);
  const char *r = mlc_intern(ctx, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return r;
}

/* out_dtype when given, else the inputs' common dtype (an error when they differ) */
static bool out_dtype(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x1, const char *n1,
                      const MlcSInfo *x2, const char *n2, MlcDType *out) {
  bool present;
  if (!mlc_op_attr_dtype(ctx, a, "out_dtype", out, &present)) return false;
  if (present && out->code != MLC_TC_VOID) return true;
  MlcDType s = x1->tensor.dtype, t = x2->tensor.dtype;
  char b1[32], b2[32];
  if (s.code != MLC_TC_VOID && t.code != MLC_TC_VOID && !mlc_dtype_eq(s, t))
    return mlc_op_fail(ctx, a, "%s is %s but %s is %s; give out_dtype to mix them", n1,
                       mlc_dtype_str(s, b1), n2, mlc_dtype_str(t, b2));
  *out = s.code != MLC_TC_VOID ? s : t;
  return true;
}

/* ---- sliding windows: conv2d and pools --------------------------------------------- */

typedef struct Win {
  int64_t stride[2], dil[2];
  int64_t pad[4]; /* top, left, bottom, right */
  bool ceil;
} Win;

/* one or two positive ints (strides, dilation, pool_size) */
static bool read_pair(MlcCtx *ctx, const MlcOpArgs *a, const char *name, int64_t dflt, int64_t out[2]) {
  int64_t v[2];
  int n = 0;
  bool present;
  if (!mlc_op_attr_ints(ctx, a, name, v, 2, &n, &present)) return false;
  if (!present) v[0] = v[1] = dflt, n = 2;
  if (n == 1) v[1] = v[0];
  else if (n != 2) return mlc_op_fail(ctx, a, "%s must be one or two ints, got %d", name, n);
  if (v[0] < 1 || v[1] < 1)
    return mlc_op_fail(ctx, a, "%s must be positive, got (%lld, %lld)", name, (long long)v[0], (long long)v[1]);
  out[0] = v[0], out[1] = v[1];
  return true;
}

/* padding: 1 int (all sides), 2 (top = bottom, left = right) or 4 (top, left, bottom, right) */
static bool read_padding(MlcCtx *ctx, const MlcOpArgs *a, int64_t pad[4]) {
  int64_t v[4] = {0};
  int n = 0;
  bool present;
  if (!mlc_op_attr_ints(ctx, a, "padding", v, 4, &n, &present)) return false;
  if (!present) n = 1;
  if (n == 1) v[1] = v[2] = v[3] = v[0];
  else if (n == 2) v[2] = v[0], v[3] = v[1];
  else if (n != 4) return mlc_op_fail(ctx, a, "padding must be 1, 2 or 4 ints, got %d", n);
  for (int i = 0; i < 4; i++) {
    if (v[i] < 0) return mlc_op_fail(ctx, a, "padding must not be negative, got %lld", (long long)v[i]);
    pad[i] = v[i];
  }
  return true;
}

static bool read_win(MlcCtx *ctx, const MlcOpArgs *a, bool has_ceil, Win *w) {
  memset(w, 0, sizeof *w);
  if (!read_pair(ctx, a, "strides", 1, w->stride) || !read_pair(ctx, a, "dilation", 1, w->dil) ||
      !read_padding(ctx, a, w->pad))
    return false;
  return !has_ceil || mlc_op_attr_bool(ctx, a, "ceil_mode", false, &w->ceil);
}

/* every named layout attribute is absent or `want` */
static bool check_layouts(MlcCtx *ctx, const MlcOpArgs *a, const char *const *names, const char *const *want,
                          int n) {
  for (int i = 0; i < n; i++) {
    const char *s;
    if (mlc_op_param(a, names[i]) < 0) continue;
    if (!mlc_op_attr_str(ctx, a, names[i], want[i], &s)) return false;
    if (strcmp(s, want[i]) != 0)
      return mlc_op_fail(ctx, a, "only %s is supported for %s, got \"%s\"", want[i], names[i], s);
  }
  return true;
}

/* the dilated window extent dil * (k - 1) + 1 */
static MlcExpr *win_extent(MlcCtx *ctx, MlcExpr *k, int64_t dil) {
  return simp(ctx, add(ctx, mul(ctx, i64(ctx, dil), add(ctx, k, i64(ctx, -1))), i64(ctx, 1)));
}

/* Ceil mode's correction to dim d's output count `out` (numerator offset
 * c_out over `in`, window extent ext): the rule of PyTorch and ONNX drops
 * the last window when it would start at or past in + pad_before, i.e.
 * when out > lim = (in + pad_before - 1) // stride + 1.  Both counts are
 * (in + constant) // stride, so out - lim is decided by D, the difference
 * of the constants: D <= 0 never drops, D >= stride always drops one, and
 * in between out - lim is 0 or 1 with the parity of `in`, which is exactly
 * min(out, lim) -- so a symbolic `in` keeps a plain expression. */
static MlcExpr *ceil_last_window(MlcCtx *ctx, const Win *w, int d, MlcExpr *in, MlcExpr *out, int64_t c_out) {
  int64_t s = w->stride[d], c_lim = w->pad[d] - 1, diff = c_out - c_lim;
  if (diff <= 0) return out;
  if (diff >= s) return add(ctx, out, i64(ctx, -1));
  MlcExpr *lim = add(ctx, mlc_e_bin(ctx, MLC_BIN_FLOORDIV, add(ctx, in, i64(ctx, c_lim)), i64(ctx, s)), i64(ctx, 1));
  return mlc_e_bin(ctx, MLC_BIN_MIN, out, lim);
}

/* the output size of dim d (0: height, 1: width); ceil mode is read for
 * the pools alone, whose window extents are constants */
static MlcExpr *win_out(MlcCtx *ctx, const Win *w, int d, MlcExpr *in, MlcExpr *k) {
  MlcExpr *ext = win_extent(ctx, k, w->dil[d]);
  MlcExpr *num = add(ctx, in, i64(ctx, w->pad[d] + w->pad[d + 2] + (w->ceil ? w->stride[d] - 1 : 0)));
  num = mlc_e_bin(ctx, MLC_BIN_SUB, num, ext);
  MlcExpr *out = add(ctx, mlc_e_bin(ctx, MLC_BIN_FLOORDIV, num, i64(ctx, w->stride[d])), i64(ctx, 1));
  int64_t e;
  if (w->ceil && ext && mlc_e_is_const_int(ext, &e))
    out = ceil_last_window(ctx, w, d, in, out, w->pad[d] + w->pad[d + 2] + w->stride[d] - 1 - e);
  return simp(ctx, out);
}

/* the output sizes; refuses a window that cannot fit the padded input */
static bool win_outs(MlcCtx *ctx, const MlcOpArgs *a, const char *what, const Win *w, MlcExpr **in,
                     MlcExpr **k, MlcExpr **out) {
  bool fits = true;
  for (int d = 0; d < 2; d++) {
    MlcExpr *room = simp(ctx, mlc_e_bin(ctx, MLC_BIN_SUB, add(ctx, in[d], i64(ctx, w->pad[d] + w->pad[d + 2])),
                                        win_extent(ctx, k[d], w->dil[d])));
    int64_t v;
    if (room && mlc_e_is_const_int(room, &v) && v < 0) fits = false;
    out[d] = win_out(ctx, w, d, in[d], k[d]);
    if (!out[d]) return false;
  }
  if (fits) return true;
  MlcExpr *pin[2], *kext[2];
  for (int d = 0; d < 2; d++) {
    pin[d] = simp(ctx, add(ctx, in[d], i64(ctx, w->pad[d] + w->pad[d + 2])));
    kext[d] = win_extent(ctx, k[d], w->dil[d]);
  }
  return mlc_op_fail(ctx, a, "%s %s (dilated) is bigger than the padded input %s", what,
                     mlc_op_shape_str(ctx, kext, 2), mlc_op_shape_str(ctx, pin, 2));
}

static const MlcSInfo *nchw(MlcCtx *ctx, const MlcOpArgs *a, int i, const char *what) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, i, false);
  if (x && x->tensor.ndim != 4)
    return mlc_op_fail(ctx, a, "%s must be 4-D, got %s", what, mlc_op_sinfo_str(ctx, x)), NULL;
  return x;
}

/* x padded by w (top/left), extended to cover every window of an output
 * of oh x ow; pad value pv.  x itself when nothing is padded. */
static const MlcTeTensor *pad_nchw(MlcCtx *ctx, const MlcTeTensor *x, const Win *w, MlcExpr *pv) {
  bool ceil_grow = w->ceil && (w->stride[0] > 1 || w->stride[1] > 1);
  if (!ceil_grow && !w->pad[0] && !w->pad[1] && !w->pad[2] && !w->pad[3]) return x;
  MlcExpr **shape = earr(ctx, 4), **axes = earr(ctx, 4), **idx = earr(ctx, 4);
  mlc_op_axes(ctx, 4, axes);
  shape[0] = x->shape[0], shape[1] = x->shape[1];
  idx[0] = axes[0], idx[1] = axes[1];
  MlcExpr *cond = NULL;
  for (int d = 0; d < 2; d++) {
    MlcExpr *in = x->shape[2 + d], *v = axes[2 + d];
    int64_t before = w->pad[d], grow = w->ceil ? w->stride[d] - 1 : 0;
    shape[2 + d] = simp(ctx, add(ctx, in, i64(ctx, before + w->pad[d + 2] + grow)));
    idx[2 + d] = before ? mlc_e_bin(ctx, MLC_BIN_SUB, v, i64(ctx, before)) : v;
    MlcExpr *hi = mlc_e_bin(ctx, MLC_BIN_LT, v, simp(ctx, add(ctx, in, i64(ctx, before))));
    MlcExpr *c = before ? mlc_e_bin(ctx, MLC_BIN_AND, mlc_e_bin(ctx, MLC_BIN_GE, v, i64(ctx, before)), hi) : hi;
    cond = cond ? mlc_e_bin(ctx, MLC_BIN_AND, cond, c) : c;
  }
  MlcExpr *args[3] = {cond, mlc_te_read(ctx, x, idx, 4), pv};
  return mlc_te_compute(ctx, "pad_temp", shape, 4, axes, mlc_e_call(ctx, MLC_INTRIN_IF_THEN_ELSE, args, 3));
}

/* the padded input's index of output position o and window offset r in dim d */
static MlcExpr *win_index(MlcCtx *ctx, const Win *w, int d, MlcExpr *o, MlcExpr *r) {
  return add(ctx, mul(ctx, o, i64(ctx, w->stride[d])), mul(ctx, r, i64(ctx, w->dil[d])));
}

/* ---- conv2d ------------------------------------------------------------------------- */

static const char *const conv_layout_names[] = {"data_layout", "kernel_layout", "out_layout"};
static const char *const conv_layouts[] = {"NCHW", "OIHW", "NCHW"};

typedef struct ConvInfo {
  Win w;
  int64_t groups;
  MlcExpr *out[2];
  MlcDType dtype;
} ConvInfo;

static bool conv_check(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, const MlcSInfo *k, ConvInfo *ci) {
  if (!check_layouts(ctx, a, conv_layout_names, conv_layouts, 3) || !read_win(ctx, a, false, &ci->w) ||
      !mlc_op_attr_int(ctx, a, "groups", 1, &ci->groups) ||
      !out_dtype(ctx, a, x, "data", k, "weight", &ci->dtype))
    return false;
  if (ci->groups < 1) return mlc_op_fail(ctx, a, "groups must be positive, got %lld", (long long)ci->groups);
  if (!x->tensor.shape || !k->tensor.shape) return true;
  MlcExpr **xs = x->tensor.shape, **ks = k->tensor.shape;
  MlcExpr *want_c = simp(ctx, mul(ctx, ks[1], i64(ctx, ci->groups)));
  if (!mlc_op_dim_equal(xs[1], want_c))
    return mlc_op_fail(ctx, a, "channels differ: data %s has %s channels, weight %s with groups=%lld takes %s",
                       mlc_op_sinfo_str(ctx, x), dim_str(ctx, xs[1]), mlc_op_sinfo_str(ctx, k), (long long)ci->groups,
                       dim_str(ctx, want_c));
  int64_t o;
  if (ci->groups > 1 && !mlc_e_is_const_int(ks[0], &o))
    return mlc_op_fail(ctx, a, "out channels must be a constant when groups > 1, weight is %s", mlc_op_sinfo_str(ctx, k));
  if (ci->groups > 1 && o % ci->groups != 0)
    return mlc_op_fail(ctx, a, "out channels %lld are not divisible by groups=%lld", (long long)o,
                       (long long)ci->groups);
  return win_outs(ctx, a, "kernel", &ci->w, &xs[2], &ks[2], ci->out);
}

MlcSInfo *mlc_op_infer_conv2d(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = nchw(ctx, a, 0, "data (NCHW)");
  const MlcSInfo *k = x ? nchw(ctx, a, 1, "weight (OIHW)") : NULL;
  ConvInfo ci;
  if (!k || !conv_check(ctx, a, x, k, &ci)) return NULL;
  if (!x->tensor.shape || !k->tensor.shape) return mlc_sinfo_tensor(ctx, NULL, 4, ci.dtype);
  MlcExpr *s[4] = {x->tensor.shape[0], k->tensor.shape[0], ci.out[0], ci.out[1]};
  return mlc_op_tensor_sinfo(ctx, s, 4, ci.dtype);
}

bool mlc_op_te_conv2d(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                      int *n_outs) {
  const MlcTeTensor *x = in[0], *k = in[1];
  const MlcSInfo *xs = mlc_op_tensor(ctx, a, 0, true), *ks = xs ? mlc_op_tensor(ctx, a, 1, true) : NULL;
  ConvInfo ci;
  if (!ks || !conv_check(ctx, a, xs, ks, &ci)) return false;
  const MlcTeTensor *p = pad_nchw(ctx, x, &ci.w, mlc_op_const(ctx, x->dtype, 0));
  MlcExpr **shape = earr(ctx, 4), **axes = earr(ctx, 4), **pi = earr(ctx, 4), **ki = earr(ctx, 4);
  shape[0] = x->shape[0], shape[1] = k->shape[0], shape[2] = ci.out[0], shape[3] = ci.out[1];
  mlc_op_axes(ctx, 4, axes);
  MlcExpr *rv[3] = {mlc_te_var(ctx, "rc"), mlc_te_var(ctx, "rh"), mlc_te_var(ctx, "rw")};
  MlcExpr *rext[3] = {k->shape[1], k->shape[2], k->shape[3]};
  MlcExpr *c = rv[0];
  if (ci.groups > 1) { /* input channel = group * (C / groups) + rc */
    int64_t o = 0;
    mlc_e_is_const_int(k->shape[0], &o);
    MlcExpr *g = o == ci.groups ? axes[1] : mlc_e_bin(ctx, MLC_BIN_FLOORDIV, axes[1], i64(ctx, o / ci.groups));
    c = add(ctx, mul(ctx, g, k->shape[1]), rv[0]);
  }
  pi[0] = axes[0], pi[1] = c;
  pi[2] = win_index(ctx, &ci.w, 0, axes[2], rv[1]), pi[3] = win_index(ctx, &ci.w, 1, axes[3], rv[2]);
  ki[0] = axes[1], ki[1] = rv[0], ki[2] = rv[1], ki[3] = rv[2];
  MlcExpr *body = mlc_e_bin(ctx, MLC_BIN_MUL, mlc_op_cast(ctx, ci.dtype, p ? mlc_te_read(ctx, p, pi, 4) : NULL),
                            mlc_op_cast(ctx, ci.dtype, mlc_te_read(ctx, k, ki, 4)));
  outs[0] = mlc_te_reduce(ctx, "conv2d_nchw", shape, 4, axes, MLC_TE_SUM, body, rv, rext, 3);
  *n_outs = 1;
  return outs[0] != NULL;
}

/* ---- max_pool2d, avg_pool2d ------------------------------------------------------------ */

static const char *const pool_layout_names[] = {"layout", "out_layout"};
static const char *const pool_layouts[] = {"NCHW", "NCHW"};

typedef struct PoolInfo {
  Win w;
  int64_t size[2];
  bool include_pad;
  MlcExpr *out[2];
} PoolInfo;

static bool pool_check(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, PoolInfo *pi) {
  if (!check_layouts(ctx, a, pool_layout_names, pool_layouts, 2) || !read_win(ctx, a, true, &pi->w) ||
      !read_pair(ctx, a, "pool_size", 1, pi->size) ||
      !mlc_op_attr_bool(ctx, a, "count_include_pad", false, &pi->include_pad))
    return false;
  if (!x->tensor.shape) return true;
  MlcExpr *k[2] = {i64(ctx, pi->size[0]), i64(ctx, pi->size[1])};
  return win_outs(ctx, a, "pool window", &pi->w, &x->tensor.shape[2], k, pi->out);
}

MlcSInfo *mlc_op_infer_pool2d(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = nchw(ctx, a, 0, "data (NCHW)");
  PoolInfo pi;
  if (!x || !pool_check(ctx, a, x, &pi)) return NULL;
  if (!x->tensor.shape) return mlc_sinfo_tensor(ctx, NULL, 4, x->tensor.dtype);
  MlcExpr *s[4] = {x->tensor.shape[0], x->tensor.shape[1], pi.out[0], pi.out[1]};
  return mlc_op_tensor_sinfo(ctx, s, 4, x->tensor.dtype);
}

/* 1 where padded-input position (h, w) counts in the average, else 0: inside
 * the explicit padding with count_include_pad, inside the data otherwise */
static MlcExpr *counted(MlcCtx *ctx, const MlcTeTensor *x, const PoolInfo *pi, MlcExpr **pos, MlcDType t) {
  MlcExpr *cond = NULL;
  for (int d = 0; d < 2; d++) {
    int64_t lo = pi->include_pad ? 0 : pi->w.pad[d];
    int64_t hi_add = pi->include_pad ? pi->w.pad[d] + pi->w.pad[d + 2] : pi->w.pad[d];
    MlcExpr *hi = simp(ctx, add(ctx, x->shape[2 + d], i64(ctx, hi_add)));
    MlcExpr *c = mlc_e_bin(ctx, MLC_BIN_LT, pos[d], hi);
    if (lo) c = mlc_e_bin(ctx, MLC_BIN_AND, mlc_e_bin(ctx, MLC_BIN_GE, pos[d], i64(ctx, lo)), c);
    cond = cond ? mlc_e_bin(ctx, MLC_BIN_AND, cond, c) : c;
  }
  return mlc_e_select(ctx, cond, mlc_op_const(ctx, t, 1), mlc_op_const(ctx, t, 0));
}

/* the divisor of each output position: kh * kw when every window is whole,
 * else a count over the window (ceil mode or padding left out) */
static MlcExpr *pool_divisor(MlcCtx *ctx, const MlcTeTensor *x, const PoolInfo *pi, MlcExpr **axes) {
  MlcDType t = x->dtype;
  bool no_pad = !pi->w.pad[0] && !pi->w.pad[1] && !pi->w.pad[2] && !pi->w.pad[3];
  if (!pi->w.ceil && (pi->include_pad || no_pad)) return mlc_op_const(ctx, t, (double)(pi->size[0] * pi->size[1]));
  MlcExpr **cax = earr(ctx, 2), **pos = earr(ctx, 2), **cshape = earr(ctx, 2);
  mlc_op_axes(ctx, 2, cax);
  cshape[0] = pi->out[0], cshape[1] = pi->out[1];
  MlcExpr *rv[2] = {mlc_te_var(ctx, "rh"), mlc_te_var(ctx, "rw")};
  MlcExpr *rext[2] = {i64(ctx, pi->size[0]), i64(ctx, pi->size[1])};
  for (int d = 0; d < 2; d++) pos[d] = win_index(ctx, &pi->w, d, cax[d], rv[d]);
  MlcTeTensor *cnt = mlc_te_reduce(ctx, "pool_count", cshape, 2, cax, MLC_TE_SUM, counted(ctx, x, pi, pos, t),
                                   rv, rext, 2);
  MlcExpr *c = cnt ? mlc_te_read(ctx, cnt, &axes[2], 2) : NULL;
  return mlc_e_bin(ctx, MLC_BIN_MAX, c, mlc_op_const(ctx, t, 1));
}

bool mlc_op_te_pool2d(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                      int *n_outs) {
  const MlcTeTensor *x = in[0];
  bool is_max = strcmp(a->op->name, "nn.max_pool2d") == 0;
  const MlcSInfo *xs = mlc_op_tensor(ctx, a, 0, true);
  PoolInfo pi;
  if (!xs || !pool_check(ctx, a, xs, &pi)) return false;
  MlcExpr *pv = is_max ? mlc_te_min_value(ctx, x->dtype) : mlc_op_const(ctx, x->dtype, 0);
  const MlcTeTensor *p = pad_nchw(ctx, x, &pi.w, pv);
  MlcExpr **shape = earr(ctx, 4), **axes = earr(ctx, 4), **idx = earr(ctx, 4);
  shape[0] = x->shape[0], shape[1] = x->shape[1], shape[2] = pi.out[0], shape[3] = pi.out[1];
  mlc_op_axes(ctx, 4, axes);
  MlcExpr *rv[2] = {mlc_te_var(ctx, "rh"), mlc_te_var(ctx, "rw")};
  MlcExpr *rext[2] = {i64(ctx, pi.size[0]), i64(ctx, pi.size[1])};
  idx[0] = axes[0], idx[1] = axes[1];
  for (int d = 0; d < 2; d++) idx[2 + d] = win_index(ctx, &pi.w, d, axes[2 + d], rv[d]);
  MlcExpr *body = p ? mlc_te_read(ctx, p, idx, 4) : NULL;
  MlcTeTensor *r = mlc_te_reduce(ctx, is_max ? "max_pool2d" : "pool_sum", shape, 4, axes,
                                 is_max ? MLC_TE_MAX : MLC_TE_SUM, body, rv, rext, 2);
  if (r && !is_max) {
    MlcExpr **oax = earr(ctx, 4);
    mlc_op_axes(ctx, 4, oax);
    MlcExpr *v = mlc_e_bin(ctx, MLC_BIN_DIV, mlc_te_read(ctx, r, oax, 4), pool_divisor(ctx, x, &pi, oax));
    r = mlc_te_compute(ctx, "avg_pool2d", shape, 4, oax, v);
  }
  outs[0] = r;
  *n_outs = 1;
  return r != NULL;
}

/* ---- max_pool2d_indices -------------------------------------------------------------------
 * Where max_pool2d's maximum lies: the least flat index into data (row-major
 * n, c, h, w; with storage_order 1, h and w swap ranks: w * H + h) among
 * the window's data elements equal to the maximum.  Padding never counts. */

static bool storage_order(MlcCtx *ctx, const MlcOpArgs *a, int64_t *order) {
  if (!mlc_op_attr_int(ctx, a, "storage_order", 0, order)) return false;
  if (*order != 0 && *order != 1) return mlc_op_fail(ctx, a, "storage_order must be 0 or 1, got %lld", (long long)*order);
  return true;
}

MlcSInfo *mlc_op_infer_pool2d_indices(MlcCtx *ctx, const MlcOpArgs *a) {
  int64_t order;
  MlcSInfo *s = storage_order(ctx, a, &order) ? mlc_op_infer_pool2d(ctx, a) : NULL;
  if (s) s->tensor.dtype = MLC_I64;
  return s;
}

bool mlc_op_te_pool2d_indices(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                              int *n_outs) {
  const MlcTeTensor *x = in[0];
  const MlcSInfo *xs = mlc_op_tensor(ctx, a, 0, true);
  PoolInfo pi;
  int64_t order;
  if (!xs || !pool_check(ctx, a, xs, &pi) || !storage_order(ctx, a, &order)) return false;
  const MlcTeTensor *p = pad_nchw(ctx, x, &pi.w, mlc_te_min_value(ctx, x->dtype));
  MlcExpr *shape[4] = {x->shape[0], x->shape[1], pi.out[0], pi.out[1]}, *axes[4], *idx[4];
  mlc_op_axes(ctx, 4, axes);
  MlcExpr *rv[2] = {mlc_te_var(ctx, "rh"), mlc_te_var(ctx, "rw")}, *rext[2] = {i64(ctx, pi.size[0]), i64(ctx, pi.size[1])};
  idx[0] = axes[0], idx[1] = axes[1];
  for (int d = 0; d < 2; d++) idx[2 + d] = win_index(ctx, &pi.w, d, axes[2 + d], rv[d]);
  MlcTeTensor *m = mlc_te_reduce(ctx, "max_pool2d", shape, 4, axes, MLC_TE_MAX, mlc_te_read(ctx, p, idx, 4), rv, rext, 2);
  if (!m) return false;
  mlc_op_axes(ctx, 4, axes);
  MlcExpr *sv[2] = {mlc_te_var(ctx, "rh"), mlc_te_var(ctx, "rw")}, *pos[2], *ok = NULL;
  idx[0] = axes[0], idx[1] = axes[1];
  for (int d = 0; d < 2; d++) {
    idx[2 + d] = win_index(ctx, &pi.w, d, axes[2 + d], sv[d]);
    pos[d] = mlc_e_bin(ctx, MLC_BIN_SUB, idx[2 + d], i64(ctx, pi.w.pad[d]));
    MlcExpr *c = mlc_e_bin(ctx, MLC_BIN_AND, mlc_e_bin(ctx, MLC_BIN_GE, pos[d], i64(ctx, 0)),
                           mlc_e_bin(ctx, MLC_BIN_LT, pos[d], x->shape[2 + d]));
    ok = ok ? mlc_e_bin(ctx, MLC_BIN_AND, ok, c) : c;
  }
  MlcExpr *hit = mlc_e_bin(ctx, MLC_BIN_AND, ok, mlc_e_bin(ctx, MLC_BIN_EQ, mlc_te_read(ctx, p, idx, 4), mlc_te_read(ctx, m, axes, 4)));
  MlcExpr *plane = add(ctx, mul(ctx, axes[0], x->shape[1]), axes[1]);
  MlcExpr *in_plane = order ? add(ctx, mul(ctx, pos[1], x->shape[2]), pos[0]) : add(ctx, mul(ctx, pos[0], x->shape[3]), pos[1]);
  MlcExpr *flat = add(ctx, mul(ctx, plane, mul(ctx, x->shape[2], x->shape[3])), in_plane);
  MlcExpr *body = mlc_e_select(ctx, hit, flat, mlc_te_max_value(ctx, MLC_I64));
  outs[0] = mlc_te_reduce(ctx, "max_pool2d_indices", shape, 4, axes, MLC_TE_MIN, body, sv, rext, 2);
  *n_outs = 1;
  return outs[0] != NULL;
}

/* ---- adaptive_avg_pool2d ------------------------------------------------------------------
 * Output position i of a dim of size in -> out averages [floor(i * in / out),
 * ceil((i + 1) * in / out)).  Output 1 (global average) and out == in work
 * for symbolic sizes; other sizes need a constant input size, from which the
 * largest window is known. */

typedef struct AdaptDim {
  MlcExpr *in, *out;
  int64_t win;    /* largest window; 0: the whole (maybe symbolic) input */
  bool uniform;   /* every window has the same size */
} AdaptDim;

static bool adapt_dim(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr *in, int64_t out, AdaptDim *d) {
  int64_t n;
  d->in = in;
  d->out = out > 0 ? i64(ctx, out) : in;
  d->uniform = true;
  if (out == 1) return d->win = 0, true;
  if (out <= 0 || (mlc_e_is_const_int(in, &n) && n == out)) return d->out = in, d->win = 1, true;
  if (!mlc_e_is_const_int(in, &n))
    return mlc_op_fail(ctx, a, "output size %lld needs a constant input size, got %s", (long long)out,
                       dim_str(ctx, in));
  d->win = 0;
  for (int64_t i = 0; i < out; i++) {
    int64_t w = ((i + 1) * n + out - 1) / out - i * n / out;
    if (d->win && w != d->win) d->uniform = false;
    if (w > d->win) d->win = w;
  }
  return true;
}

/* output_size: absent or None keeps the input size; one int or two */
static bool adapt_sizes(MlcCtx *ctx, const MlcOpArgs *a, int64_t out[2]) {
  int p = mlc_op_param(a, "output_size");
  out[0] = out[1] = 0;
  if (!a->attr[p] || a->attr[p]->kind == MLC_ATTR_NONE) return true;
  if (!read_pair(ctx, a, "output_size", 1, out)) return false;
  return true;
}

static bool adapt_check(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, AdaptDim d[2]) {
  int64_t out[2];
  if (!check_layouts(ctx, a, pool_layout_names, pool_layouts, 2) || !adapt_sizes(ctx, a, out)) return false;
  if (!x->tensor.shape) return true;
  return adapt_dim(ctx, a, x->tensor.shape[2], out[0], &d[0]) && adapt_dim(ctx, a, x->tensor.shape[3], out[1], &d[1]);
}

MlcSInfo *mlc_op_infer_adaptive_pool2d(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = nchw(ctx, a, 0, "data (NCHW)");
  AdaptDim d[2];
  if (!x || !adapt_check(ctx, a, x, d)) return NULL;
  if (!x->tensor.shape) return mlc_sinfo_tensor(ctx, NULL, 4, x->tensor.dtype);
  MlcExpr *s[4] = {x->tensor.shape[0], x->tensor.shape[1], d[0].out, d[1].out};
  return mlc_op_tensor_sinfo(ctx, s, 4, x->tensor.dtype);
}

/* window start and end of output index o in dim d */
static void adapt_bounds(MlcCtx *ctx, const AdaptDim *d, MlcExpr *o, MlcExpr **start, MlcExpr **end) {
  if (d->win == 0) {
    *start = i64(ctx, 0), *end = d->in;
  } else if (d->win == 1 && d->out == d->in) {
    *start = o, *end = add(ctx, o, i64(ctx, 1));
  } else {
    *start = mlc_e_bin(ctx, MLC_BIN_FLOORDIV, mul(ctx, o, d->in), d->out);
    MlcExpr *e = add(ctx, mul(ctx, add(ctx, o, i64(ctx, 1)), d->in), add(ctx, d->out, i64(ctx, -1)));
    *end = mlc_e_bin(ctx, MLC_BIN_FLOORDIV, e, d->out);
  }
}

bool mlc_op_te_adaptive_pool2d(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                               int *n_outs) {
  const MlcTeTensor *x = in[0];
  const MlcSInfo *xs = mlc_op_tensor(ctx, a, 0, true);
  AdaptDim d[2];
  if (!xs || !adapt_check(ctx, a, xs, d)) return false;
  MlcExpr **shape = earr(ctx, 4), **axes = earr(ctx, 4), **idx = earr(ctx, 4);
  shape[0] = x->shape[0], shape[1] = x->shape[1], shape[2] = d[0].out, shape[3] = d[1].out;
  mlc_op_axes(ctx, 4, axes);
  MlcExpr *rv[2] = {mlc_te_var(ctx, "rh"), mlc_te_var(ctx, "rw")}, *rext[2], *start[2], *end[2];
  MlcExpr *cond = NULL, *count = NULL;
  idx[0] = axes[0], idx[1] = axes[1];
  for (int k = 0; k < 2; k++) {
    adapt_bounds(ctx, &d[k], axes[2 + k], &start[k], &end[k]);
    rext[k] = d[k].win ? i64(ctx, d[k].win) : d[k].in;
    idx[2 + k] = add(ctx, start[k], rv[k]);
    MlcExpr *len = simp(ctx, mlc_e_bin(ctx, MLC_BIN_SUB, end[k], start[k]));
    count = count ? mul(ctx, count, len) : len;
    if (!d[k].uniform) {
      MlcExpr *c = mlc_e_bin(ctx, MLC_BIN_LT, idx[2 + k], end[k]);
      cond = cond ? mlc_e_bin(ctx, MLC_BIN_AND, cond, c) : c;
    }
  }
  MlcExpr *body = mlc_te_read(ctx, x, idx, 4), *den = mlc_e_cast(ctx, x->dtype, count);
  if (cond) {
    MlcExpr *args[3] = {cond, body, mlc_op_const(ctx, x->dtype, 0)};
    body = mlc_e_call(ctx, MLC_INTRIN_IF_THEN_ELSE, args, 3);
  }
  /* a window size naming a symbolic input size is only visible to a compute
   * reading x, so each summand is divided (floats); with constant sizes the
   * sum is divided afterwards, exact for integers too */
  if (!mlc_e_is_const_int(x->shape[2], NULL) || !mlc_e_is_const_int(x->shape[3], NULL)) {
    if (!mlc_dtype_is_float(x->dtype))
      return mlc_op_fail(ctx, a, "an integer average over symbolic dims is not supported");
    outs[0] = mlc_te_reduce(ctx, "adaptive_avg_pool2d", shape, 4, axes, MLC_TE_SUM,
                            mlc_e_bin(ctx, MLC_BIN_DIV, body, den), rv, rext, 2);
    *n_outs = 1;
    return outs[0] != NULL;
  }
  MlcTeTensor *sum = mlc_te_reduce(ctx, "adaptive_pool_sum", shape, 4, axes, MLC_TE_SUM, body, rv, rext, 2);
  MlcExpr **oax = earr(ctx, 4);
  mlc_op_axes(ctx, 4, oax);
  MlcMap sub = {0};
  for (int k = 0; k < 4; k++) mlc_map_put(&sub, axes[k], oax[k]);
  den = mlc_substitute_expr(ctx, den, &sub);
  mlc_map_free(&sub);
  MlcExpr *v = sum ? mlc_e_bin(ctx, MLC_BIN_DIV, mlc_te_read(ctx, sum, oax, 4), den) : NULL;
  outs[0] = mlc_te_compute(ctx, "adaptive_avg_pool2d", shape, 4, oax, v);
  *n_outs = 1;
  return outs[0] != NULL;
}
