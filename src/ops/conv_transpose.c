/* conv_transpose.c - nn.conv2d_transpose and nn.conv3d_transpose: struct-info
 * inference and TE definition, NCHW / NCDHW data and IOHW / IODHW kernels
 * only; one definition serves both, over nd = 2 or 3 spatial dims.
 *
 * A transposed convolution is written as the gather it is: output position o
 * of a spatial dim receives input position i through kernel tap k when
 * o + pad_before = i * stride + k * dilation, so the reduction runs over
 * (input channel of the group, the kernel taps) and keeps the taps whose
 * t = o + pad - k * dilation is a non-negative multiple of the stride inside
 * the input; the read sits under if_then_else so no other position is read.
 *
 * A strided dim (dilation 1) is written by phases instead: with t = o + pad
 * = q * stride + r (0 <= r < stride), only the taps k = r + stride * j reach
 * o, from input q - j, so the reduction runs over j < ceil(k / stride) rather
 * than over every tap of which all but one in stride would be masked off.
 * A transposed conv whose kernel equals its stride (the common 2x2 / 2
 * upsampling) then reads one tap per output and no guard at all: the bounds
 * that hold for every output and tap (here and in a dim of stride 1) are
 * proven from the constants and left out of the condition, which keeps the block plain enough to vectorize. */
#include <string.h>

#include "mlcc/arith.h"
#include "ops/op_internal.h"

static MlcExpr **earr(MlcCtx *ctx, int n) {
  return mlc_arena_array(&ctx->arena, (size_t)(n > 0 ? n : 1), sizeof(MlcExpr *));
}

static MlcExpr *i64(MlcCtx *ctx, int64_t v) { return mlc_op_i64(ctx, v); }
static MlcExpr *bin(MlcCtx *ctx, MlcBinOp op, MlcExpr *x, MlcExpr *y) { return mlc_e_bin(ctx, op, x, y); }

#define TCONV_MAX_ND 3

typedef struct TConv {
  int nd; /* spatial dims */
  int64_t stride[TCONV_MAX_ND], dil[TCONV_MAX_ND], pad[2 * TCONV_MAX_ND], opad[TCONV_MAX_ND], groups;
  MlcDType dtype;
  MlcExpr *out[2 + TCONV_MAX_ND];
} TConv;

static const char *const data_layouts[] = {NULL, NULL, "NCHW", "NCDHW"};
static const char *const kernel_layouts[] = {NULL, NULL, "IOHW", "IODHW"};

static bool tconv_plan(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, const MlcSInfo *w, int nd, TConv *p) {
  bool present;
  char b1[32], b2[32];
  p->nd = nd;
  if (!mlc_op_need_layout(ctx, a, "data_layout", data_layouts[nd]) ||
      !mlc_op_need_layout(ctx, a, "kernel_layout", kernel_layouts[nd]) ||
      !mlc_op_attr_ints_n(ctx, a, "strides", nd, 1, 1, p->stride) || !mlc_op_attr_ints_n(ctx, a, "dilation", nd, 1, 1, p->dil) ||
      !mlc_op_attr_ints_n(ctx, a, "padding", 2 * nd, 0, 0, p->pad) ||
      !mlc_op_attr_ints_n(ctx, a, "output_padding", nd, 0, 0, p->opad) || !mlc_op_attr_int(ctx, a, "groups", 1, &p->groups) ||
      !mlc_op_attr_dtype(ctx, a, "out_dtype", &p->dtype, &present))
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
    return mlc_op_fail(ctx, a, "channels differ: data %s has %s channels, weight %s (%s) takes %s",
                       mlc_op_sinfo_str(ctx, x), mlc_op_shape_str(ctx, &xs[1], 1), mlc_op_sinfo_str(ctx, w),
                       kernel_layouts[nd], mlc_op_shape_str(ctx, &ws[0], 1));
  int64_t c;
  if (p->groups > 1 && (!mlc_e_is_const_int(ws[0], &c) || c % p->groups))
    return mlc_op_fail(ctx, a, "input channels of weight %s must be a constant multiple of groups=%lld",
                       mlc_op_sinfo_str(ctx, w), (long long)p->groups);
  p->out[0] = xs[0];
  p->out[1] = mlc_arith_mul(ctx, ws[1], i64(ctx, p->groups));
  for (int d = 0; d < nd; d++) {
    int64_t k;
    if (!mlc_e_is_const_int(ws[2 + d], &k))
      return mlc_op_fail(ctx, a, "the kernel size of weight %s must be constant", mlc_op_sinfo_str(ctx, w));
    /* (in - 1) * stride - pads + dilation * (k - 1) + 1 + output_padding */
    int64_t extra = -p->stride[d] - p->pad[d] - p->pad[d + nd] + p->dil[d] * (k - 1) + 1 + p->opad[d];
    p->out[2 + d] = mlc_arith_add(ctx, mlc_arith_mul(ctx, xs[2 + d], i64(ctx, p->stride[d])), i64(ctx, extra));
    int64_t o;
    if (mlc_e_is_const_int(p->out[2 + d], &o) && o < 1)
      return mlc_op_fail(ctx, a, "the output would be empty (dim %d is %lld)", 2 + d, (long long)o);
  }
  return true;
}

/* data and weight of rank nd + 2, planned */
static bool tconv_args(MlcCtx *ctx, const MlcOpArgs *a, int nd, TConv *p) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, false), *w = x ? mlc_op_tensor(ctx, a, 1, false) : NULL;
  if (!w) return false;
  if (x->tensor.ndim != nd + 2)
    return mlc_op_fail(ctx, a, "data (%s) must be %d-D, got %s", data_layouts[nd], nd + 2, mlc_op_sinfo_str(ctx, x));
  if (w->tensor.ndim != nd + 2)
    return mlc_op_fail(ctx, a, "weight (%s) must be %d-D, got %s", kernel_layouts[nd], nd + 2, mlc_op_sinfo_str(ctx, w));
  return tconv_plan(ctx, a, x, w, nd, p);
}

static MlcSInfo *tconv_infer(MlcCtx *ctx, const MlcOpArgs *a, int nd) {
  TConv p;
  return tconv_args(ctx, a, nd, &p) ? mlc_op_tensor_sinfo(ctx, p.out, nd + 2, p.dtype) : NULL;
}

MlcSInfo *mlc_op_infer_conv2d_transpose(MlcCtx *ctx, const MlcOpArgs *a) { return tconv_infer(ctx, a, 2); }
MlcSInfo *mlc_op_infer_conv3d_transpose(MlcCtx *ctx, const MlcOpArgs *a) { return tconv_infer(ctx, a, 3); }

static int64_t floordiv64(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

static void and_into(MlcCtx *ctx, MlcExpr **valid, MlcExpr *c) {
  *valid = *valid ? bin(ctx, MLC_BIN_AND, *valid, c) : c;
}

/* whether dim d is written by phases (see the top of the file) */
static bool tconv_phased(const TConv *p, int d) { return p->stride[d] > 1 && p->dil[d] == 1; }

/* the reduce extent over the taps of dim d for a kernel of k taps */
static int64_t tconv_taps(const TConv *p, int d, int64_t k) {
  return tconv_phased(p, d) ? (k + p->stride[d] - 1) / p->stride[d] : k;
}

/* Input index along spatial dim d for output o and reduce var j, the
 * kernel tap it reads (*tap), and whether that tap contributes (and-ed into
 * *valid; a condition that holds for every o and j is left out).  in and out
 * are the dim's input and output extents, k the kernel's. */
static MlcExpr *tconv_src(MlcCtx *ctx, const TConv *p, int d, MlcExpr *o, MlcExpr *j, MlcExpr *in, MlcExpr *out,
                          int64_t k, MlcExpr **tap, MlcExpr **valid) {
  int64_t pad = p->pad[d], s = p->stride[d], in_c = -1, out_c = -1;
  bool in_known = mlc_e_is_const_int(in, &in_c), out_known = mlc_e_is_const_int(out, &out_c);
  if (tconv_phased(p, d)) {
    int64_t taps = tconv_taps(p, d, k);
    MlcExpr *t = mlc_arith_add(ctx, o, i64(ctx, pad));
    MlcExpr *q = bin(ctx, MLC_BIN_FLOORDIV, t, i64(ctx, s)), *r = bin(ctx, MLC_BIN_FLOORMOD, t, i64(ctx, s));
    MlcExpr *i = taps == 1 ? q : mlc_arith_add(ctx, q, mlc_arith_mul(ctx, j, i64(ctx, -1)));
    *tap = taps == 1 ? r : mlc_arith_add(ctx, r, mlc_arith_mul(ctx, j, i64(ctx, s)));
    if (k % s) and_into(ctx, valid, bin(ctx, MLC_BIN_LT, *tap, i64(ctx, k)));
    if (floordiv64(pad, s) < taps - 1) and_into(ctx, valid, bin(ctx, MLC_BIN_GE, i, i64(ctx, 0)));
    if (!in_known || !out_known || floordiv64(out_c - 1 + pad, s) >= in_c) and_into(ctx, valid, bin(ctx, MLC_BIN_LT, i, in));
    return i;
  }
  *tap = j;
  MlcExpr *t = mlc_arith_add(ctx, o, mlc_arith_add(ctx, i64(ctx, pad), mlc_arith_mul(ctx, j, i64(ctx, -p->dil[d]))));
  if (s == 1) { /* t is the input index: its bounds, where they can fail */
    if (pad - (k - 1) * p->dil[d] < 0) and_into(ctx, valid, bin(ctx, MLC_BIN_GE, t, i64(ctx, 0)));
    if (!in_known || !out_known || out_c - 1 + pad >= in_c) and_into(ctx, valid, bin(ctx, MLC_BIN_LT, t, in));
    return t;
  }
  MlcExpr *i = bin(ctx, MLC_BIN_FLOORDIV, t, i64(ctx, s));
  MlcExpr *ok = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_GE, t, i64(ctx, 0)), bin(ctx, MLC_BIN_LT, i, in));
  ok = bin(ctx, MLC_BIN_AND, ok, bin(ctx, MLC_BIN_EQ, bin(ctx, MLC_BIN_FLOORMOD, t, i64(ctx, s)), i64(ctx, 0)));
  and_into(ctx, valid, ok);
  return i;
}

static const char *const tap_names[] = {"rd", "rh", "rw"};
static const char *const kernel_names[] = {NULL, NULL, "conv2d_transpose_nchw", "conv3d_transpose_ncdhw"};

static bool tconv_te(MlcCtx *ctx, const MlcOpArgs *a, int nd, MlcTeTensor **in, MlcTeTensor **outs, int *n_outs) {
  TConv p;
  if (!tconv_args(ctx, a, nd, &p)) return false;
  const MlcTeTensor *x = in[0], *w = in[1];
  int rank = nd + 2;
  MlcExpr **ax = earr(ctx, rank), **xi = earr(ctx, rank), **wi = earr(ctx, rank), *valid = NULL;
  mlc_op_axes(ctx, rank, ax);
  MlcExpr *rv[1 + TCONV_MAX_ND], *rext[1 + TCONV_MAX_ND];
  rv[0] = mlc_te_var(ctx, "rc");
  int64_t cin = 0, k[TCONV_MAX_ND] = {0};
  mlc_e_is_const_int(w->shape[0], &cin);
  for (int d = 0; d < nd; d++) {
    mlc_e_is_const_int(w->shape[2 + d], &k[d]); /* constant: tconv_plan checked */
    rv[1 + d] = mlc_te_var(ctx, tap_names[TCONV_MAX_ND - nd + d]);
    rext[1 + d] = i64(ctx, tconv_taps(&p, d, k[d]));
  }
  MlcExpr *cig = p.groups > 1 ? i64(ctx, cin / p.groups) : w->shape[0];
  rext[0] = cig;
  MlcExpr *c = rv[0], *co = ax[1];
  if (p.groups > 1) { /* group g = co / (C_out / groups) owns input channels g * cig + rc */
    MlcExpr *g = bin(ctx, MLC_BIN_FLOORDIV, ax[1], w->shape[1]);
    c = mlc_arith_add(ctx, mlc_arith_mul(ctx, g, cig), rv[0]);
    co = bin(ctx, MLC_BIN_FLOORMOD, ax[1], w->shape[1]);
  }
  xi[0] = ax[0], xi[1] = c;
  wi[0] = c, wi[1] = co;
  for (int d = 0; d < nd; d++)
    xi[2 + d] = tconv_src(ctx, &p, d, ax[2 + d], rv[1 + d], x->shape[2 + d], p.out[2 + d], k[d], &wi[2 + d], &valid);
  MlcExpr *prod = bin(ctx, MLC_BIN_MUL, mlc_op_cast(ctx, p.dtype, mlc_te_read(ctx, x, xi, rank)),
                      mlc_op_cast(ctx, p.dtype, mlc_te_read(ctx, w, wi, rank)));
  MlcExpr *body = valid ? mlc_op_select(ctx, valid, prod, mlc_op_const(ctx, p.dtype, 0)) : prod;
  outs[0] = mlc_te_reduce(ctx, kernel_names[nd], p.out, rank, ax, MLC_TE_SUM, body, rv, rext, 1 + nd);
  *n_outs = 1;
  return outs[0] != NULL;
}

bool mlc_op_te_conv2d_transpose(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                                int *n_outs) {
  return tconv_te(ctx, a, 2, in, outs, n_outs);
}

bool mlc_op_te_conv3d_transpose(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                                int *n_outs) {
  return tconv_te(ctx, a, 3, in, outs, n_outs);
}
