/* deform_conv.c - nn.deform_conv2d: a 2-D convolution whose taps are moved
 * by learned offsets (ONNX DeformConv, torchvision's deform_conv2d), NCHW.
 *
 * data (N, C, H, W), offset (N, G_off * kh * kw * 2, OH, OW) holding per
 * output position and tap the (dy, dx) move of the tap, weight
 * (OC, C / groups, kh, kw), optional mask (N, G_off * kh * kw, OH, OW)
 * scaling each tap.  Channel c uses offset group c / (C / G_off).  Tap
 * (i, j) of output (oh, ow) reads data at
 *   y = oh * stride_h - pad_top + i * dilation_h + dy,
 *   x = ow * stride_w - pad_left + j * dilation_w + dx,
 * bilinearly between the four pixels around (y, x), pixels outside the
 * data counting 0.  Two computes: the sampled taps (N, C, kh, kw, OH, OW),
 * masked, then their products with the weight summed over (c, i, j) as
 * conv2d sums.  Positions and weights are float64; the channel, kernel
 * and spatial dims of data and weight must be constants. */
#include <string.h>

#include "ops/op_internal.h"

typedef struct Deform {
  int64_t n_ch, h, w, oc, kh, kw, groups, ogroups;
  int64_t stride[2], dil[2], pad[4];
  MlcExpr *out[2];
  bool has_mask;
} Deform;

static MlcExpr *i64(MlcCtx *ctx, int64_t v) { return mlc_op_i64(ctx, v); }
static MlcExpr *f64(MlcCtx *ctx, double v) { return mlc_e_float(ctx, MLC_F64, v); }
static MlcExpr *bin(MlcCtx *ctx, MlcBinOp op, MlcExpr *x, MlcExpr *y) { return mlc_e_bin(ctx, op, x, y); }

static bool const_dims(const MlcSInfo *s, int from, int to, int64_t *out) {
  for (int i = from; i < to; i++)
    if (!s->tensor.shape || !mlc_e_is_const_int(s->tensor.shape[i], &out[i - from])) return false;
  return true;
}

static bool deform_plan(MlcCtx *ctx, const MlcOpArgs *a, Deform *p) {
  const MlcSInfo *x = mlc_op_rank4(ctx, a, 0, "data (NCHW)"), *off = x ? mlc_op_rank4(ctx, a, 1, "offset") : NULL;
  const MlcSInfo *wt = off ? mlc_op_rank4(ctx, a, 2, "weight (OIHW)") : NULL;
  int mi = mlc_op_param(a, "mask");
  p->has_mask = mi >= 0 && a->val[mi];
  const MlcSInfo *mask = p->has_mask ? mlc_op_rank4(ctx, a, mi, "mask") : NULL;
  if (!wt || (p->has_mask && !mask)) return false;
  if (!mlc_op_attr_ints_n(ctx, a, "strides", 2, 1, 1, p->stride) || !mlc_op_attr_ints_n(ctx, a, "dilation", 2, 1, 1, p->dil) ||
      !mlc_op_attr_ints_n(ctx, a, "padding", 4, 0, 0, p->pad) || !mlc_op_attr_int(ctx, a, "groups", 1, &p->groups) ||
      !mlc_op_attr_int(ctx, a, "offset_groups", 1, &p->ogroups))
    return false;
  int64_t xd[3], wd[4], od[2];
  if (!const_dims(x, 1, 4, xd) || !const_dims(wt, 0, 4, wd) || !const_dims(off, 1, 2, od))
    return mlc_op_fail(ctx, a, "the channel and spatial dims of data %s, offset %s and weight %s must be constants",
                       mlc_op_sinfo_str(ctx, x), mlc_op_sinfo_str(ctx, off), mlc_op_sinfo_str(ctx, wt));
  p->n_ch = xd[0], p->h = xd[1], p->w = xd[2], p->oc = wd[0], p->kh = wd[2], p->kw = wd[3];
  if (p->groups < 1 || p->ogroups < 1 || p->n_ch % p->groups || p->oc % p->groups || p->n_ch % p->ogroups)
    return mlc_op_fail(ctx, a, "groups %lld and offset_groups %lld must divide the %lld channels (and groups the %lld out channels)",
                       (long long)p->groups, (long long)p->ogroups, (long long)p->n_ch, (long long)p->oc);
  if (wd[1] * p->groups != p->n_ch)
    return mlc_op_fail(ctx, a, "weight %s with groups=%lld does not take data's %lld channels", mlc_op_sinfo_str(ctx, wt),
                       (long long)p->groups, (long long)p->n_ch);
  int64_t taps = p->kh * p->kw;
  if (od[0] != p->ogroups * taps * 2)
    return mlc_op_fail(ctx, a, "offset %s must have offset_groups * kh * kw * 2 = %lld channels", mlc_op_sinfo_str(ctx, off),
                       (long long)(p->ogroups * taps * 2));
  int64_t dims[2] = {p->h, p->w}, ks[2] = {p->kh, p->kw};
  const int64_t lim = INT64_C(1) << 31; /* attribute sizes, so the arithmetic below cannot overflow */
  for (int d = 0; d < 2; d++)
    if (p->stride[d] < 1 || p->stride[d] > lim || p->dil[d] < 1 || p->dil[d] > lim || p->pad[d] < 0 ||
        p->pad[d] > lim || p->pad[d + 2] < 0 || p->pad[d + 2] > lim || dims[d] > lim || ks[d] > lim)
      return mlc_op_fail(ctx, a, "strides and dilations must be in 1 .. 2^31 and paddings in 0 .. 2^31");
  for (int d = 0; d < 2; d++) {
    int64_t o = (dims[d] + p->pad[d] + p->pad[d + 2] - p->dil[d] * (ks[d] - 1) - 1) / p->stride[d] + 1;
    if (o < 1) return mlc_op_fail(ctx, a, "the kernel (dilated) is bigger than the padded data %s", mlc_op_sinfo_str(ctx, x));
    p->out[d] = i64(ctx, o);
  }
  for (int d = 0; d < 2; d++) {
    if (!mlc_op_dim_equal(off->tensor.shape[2 + d], p->out[d]))
      return mlc_op_fail(ctx, a, "offset %s must cover the output's %s positions", mlc_op_sinfo_str(ctx, off),
                         mlc_op_shape_str(ctx, p->out, 2));
  }
  if (mask) {
    int64_t md;
    if (!const_dims(mask, 1, 2, &md) || md != p->ogroups * taps || !mlc_op_dim_equal(mask->tensor.shape[2], p->out[0]) ||
        !mlc_op_dim_equal(mask->tensor.shape[3], p->out[1]))
      return mlc_op_fail(ctx, a, "mask %s must be (N, offset_groups * kh * kw = %lld, %s)", mlc_op_sinfo_str(ctx, mask),
                         (long long)(p->ogroups * taps), mlc_op_shape_str(ctx, p->out, 2));
  }
  return true;
}

MlcSInfo *mlc_op_infer_deform_conv2d(MlcCtx *ctx, const MlcOpArgs *a) {
  Deform p;
  if (!deform_plan(ctx, a, &p)) return NULL;
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true);
  MlcExpr *s[4] = {x->tensor.shape[0], i64(ctx, p.oc), p.out[0], p.out[1]};
  return mlc_op_tensor_sinfo(ctx, s, 4, x->tensor.dtype);
}

/* t[i0, i1, i2, i3] */
static MlcExpr *read4(MlcCtx *ctx, const MlcTeTensor *t, MlcExpr *i0, MlcExpr *i1, MlcExpr *i2, MlcExpr *i3) {
  MlcExpr *idx[4] = {i0, i1, i2, i3};
  return mlc_te_read(ctx, t, idx, 4);
}

/* data[n, c] at (y, x) bilinearly, pixels outside counting 0 */
static MlcExpr *bilinear(MlcCtx *ctx, const Deform *p, const MlcTeTensor *x, MlcExpr *n, MlcExpr *c, MlcExpr *y, MlcExpr *xx) {
  MlcExpr *pos[2] = {y, xx}, *lo[2], *frac[2];
  int64_t ext[2] = {p->h, p->w};
  for (int d = 0; d < 2; d++) {
    /* two pixels or more outside, every corner is outside: the clamp changes
     * no result and keeps the conversion to an integer in range */
    pos[d] = bin(ctx, MLC_BIN_MIN, bin(ctx, MLC_BIN_MAX, pos[d], f64(ctx, -2)), f64(ctx, (double)ext[d] + 1));
    MlcExpr *f = mlc_e_call(ctx, MLC_INTRIN_FLOOR, &pos[d], 1);
    frac[d] = bin(ctx, MLC_BIN_SUB, pos[d], f);
    lo[d] = mlc_e_cast(ctx, MLC_I64, f);
  }
  MlcExpr *sum = NULL;
  for (int t = 0; t < 4; t++) {
    MlcExpr *at[2], *w = NULL, *inside = NULL;
    for (int d = 0; d < 2; d++) {
      int up = d == 0 ? t >> 1 : t & 1;
      MlcExpr *q = up ? bin(ctx, MLC_BIN_ADD, lo[d], i64(ctx, 1)) : lo[d];
      MlcExpr *wd = up ? frac[d] : bin(ctx, MLC_BIN_SUB, f64(ctx, 1), frac[d]);
      MlcExpr *in = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_GE, q, i64(ctx, 0)), bin(ctx, MLC_BIN_LT, q, i64(ctx, ext[d])));
      at[d] = bin(ctx, MLC_BIN_MIN, bin(ctx, MLC_BIN_MAX, q, i64(ctx, 0)), i64(ctx, ext[d] - 1));
      w = w ? bin(ctx, MLC_BIN_MUL, w, wd) : wd;
      inside = inside ? bin(ctx, MLC_BIN_AND, inside, in) : in;
    }
    MlcExpr *v = mlc_op_cast(ctx, MLC_F64, read4(ctx, x, n, c, at[0], at[1]));
    v = mlc_e_select(ctx, inside, bin(ctx, MLC_BIN_MUL, w, v), f64(ctx, 0));
    sum = sum ? bin(ctx, MLC_BIN_ADD, sum, v) : v;
  }
  return sum;
}

/* taps[n, c, i, j, oh, ow]: data sampled at tap (i, j) of output (oh, ow), masked */
static MlcTeTensor *sampled_taps(MlcCtx *ctx, const Deform *p, MlcTeTensor **in, const MlcTeTensor *x) {
  MlcExpr *ax[6], *shape[6] = {x->shape[0], i64(ctx, p->n_ch), i64(ctx, p->kh), i64(ctx, p->kw), p->out[0], p->out[1]};
  mlc_op_axes(ctx, 6, ax);
  MlcExpr *n = ax[0], *c = ax[1], *i = ax[2], *j = ax[3], *oh = ax[4], *ow = ax[5];
  int64_t taps = p->kh * p->kw;
  MlcExpr *og = bin(ctx, MLC_BIN_FLOORDIV, c, i64(ctx, p->n_ch / p->ogroups));
  MlcExpr *k = bin(ctx, MLC_BIN_ADD, bin(ctx, MLC_BIN_MUL, og, i64(ctx, taps)),
                   bin(ctx, MLC_BIN_ADD, bin(ctx, MLC_BIN_MUL, i, i64(ctx, p->kw)), j));
  MlcExpr *k2 = bin(ctx, MLC_BIN_MUL, k, i64(ctx, 2));
  MlcExpr *dy = mlc_op_cast(ctx, MLC_F64, read4(ctx, in[1], n, k2, oh, ow));
  MlcExpr *dx = mlc_op_cast(ctx, MLC_F64, read4(ctx, in[1], n, bin(ctx, MLC_BIN_ADD, k2, i64(ctx, 1)), oh, ow));
  MlcExpr *base[2], *o[2] = {oh, ow}, *r[2] = {i, j};
  for (int d = 0; d < 2; d++) {
    MlcExpr *b = bin(ctx, MLC_BIN_ADD, bin(ctx, MLC_BIN_MUL, o[d], i64(ctx, p->stride[d])), bin(ctx, MLC_BIN_MUL, r[d], i64(ctx, p->dil[d])));
    base[d] = mlc_e_cast(ctx, MLC_F64, bin(ctx, MLC_BIN_SUB, b, i64(ctx, p->pad[d])));
  }
  MlcExpr *v = bilinear(ctx, p, x, n, c, bin(ctx, MLC_BIN_ADD, base[0], dy), bin(ctx, MLC_BIN_ADD, base[1], dx));
  if (p->has_mask) v = bin(ctx, MLC_BIN_MUL, v, mlc_op_cast(ctx, MLC_F64, read4(ctx, in[3], n, k, oh, ow)));
  return mlc_te_compute(ctx, "deform_taps", shape, 6, ax, v);
}

bool mlc_op_te_deform_conv2d(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                             int *n_outs) {
  Deform p;
  const MlcSInfo *out = mlc_op_infer_deform_conv2d(ctx, a);
  if (!out || !deform_plan(ctx, a, &p)) return false;
  const MlcTeTensor *x = in[0], *wt = in[2];
  MlcTeTensor *taps = sampled_taps(ctx, &p, in, x);
  if (!taps) return false;
  MlcExpr *ax[4], *rv[3] = {mlc_te_var(ctx, "rc"), mlc_te_var(ctx, "rh"), mlc_te_var(ctx, "rw")};
  MlcExpr *rext[3] = {i64(ctx, p.n_ch / p.groups), i64(ctx, p.kh), i64(ctx, p.kw)};
  mlc_op_axes(ctx, 4, ax);
  MlcExpr *g = bin(ctx, MLC_BIN_FLOORDIV, ax[1], i64(ctx, p.oc / p.groups));
  MlcExpr *c = bin(ctx, MLC_BIN_ADD, bin(ctx, MLC_BIN_MUL, g, rext[0]), rv[0]);
  MlcExpr *ti[6] = {ax[0], c, rv[1], rv[2], ax[2], ax[3]};
  MlcExpr *body = bin(ctx, MLC_BIN_MUL, mlc_te_read(ctx, taps, ti, 6), mlc_op_cast(ctx, MLC_F64, read4(ctx, wt, ax[1], rv[0], rv[1], rv[2])));
  MlcTeTensor *sum = mlc_te_reduce(ctx, "deform_sum", out->tensor.shape, 4, ax, MLC_TE_SUM, body, rv, rext, 3);
  if (!sum) return false;
  MlcExpr *oax[4];
  mlc_op_axes(ctx, 4, oax);
  outs[0] = mlc_te_compute(ctx, "deform_conv2d", out->tensor.shape, 4, oax, mlc_op_cast(ctx, x->dtype, mlc_te_read(ctx, sum, oax, 4)));
  *n_outs = 1;
  return outs[0] != NULL;
}
