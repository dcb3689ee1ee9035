/* onnx_quant_conv.c - ConvInteger and QLinearConv of a constant byte weight
 * (2-D, group 1) as the uint8 x int8 matmul of onnx_quant_dot.c, so that
 * the default schedule tensorizes them onto the byte dot-product
 * instruction (or its pair form) as it does a MatMulInteger.
 *
 * The instruction multiplies 4 consecutive bytes of the activation by 4
 * of the weight, so the reduction over (kernel window x input channels)
 * must run over contiguous bytes.  The input, shifted into uint8 (x + 128
 * for int8), is padded with its moved zero point (so a padded tap adds
 * (za' - za') * w = 0, as the operator's definition, which pads x - za
 * with zeros, asks), made channels-last and gathered once into an im2col
 * matrix, the channels innermost:
 *     A[(n, oh, ow), (kh, kw, c)] = Xpad[n, c, oh*sh + kh*dh, ow*sw + kw*dw]
 * by one `take` of its rows (one per pixel, C bytes) through a constant
 * table of each output position's taps.  The
 * reduction is padded with zero columns to a multiple of 4 and the output
 * channels to a multiple of 16 (zero weights), which change no sum and let
 * every vector width's rule tile the product; the weight is laid out to
 * match here, at import: W'[(kh, kw, c), oc] = w[oc, c, kh, kw] - sb.  The
 * zero-point terms are those of the matmul (onnx_quant_dot.c) with
 * K = C*KH*KW, the window sums of the input the row sums of A; they and
 * the bias fuse into the product's kernel as its epilogue, and the result
 * goes back to NCHW by a transpose that QLinearConv's requantization fuses
 * into (one pass over the int32 result, writing the bytes).
 * Grouped and depthwise convs, 1-D ones and run-time weights keep the
 * int32 conv of onnx_ops_quant.c. */
#include "onnx_convert.h"

#include <string.h>

enum {
  GROUP = 4,  /* the reduction's multiple: the instruction's bytes per lane */
  COLS = 16,  /* the output channels' multiple: the widest rule's lanes */
};

/* im2col matrices past this many bytes keep the int32 conv (which also
 * keeps the gather table's int32 row numbers in range), and so do convs
 * whose gather table or padding mask (constants built at import, from the
 * declared shapes alone) would pass this many elements */
#define MAX_IM2COL ((int64_t)1 << 28)
#define MAX_TABLE ((int64_t)1 << 24)

static bool is_byte(MlcDType t) { return (t.code == MLC_TC_INT || t.code == MLC_TC_UINT) && t.bits == 8 && t.lanes == 1; }

static int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

static MlcGExpr *ints_op(MlcOnnxNode *n, const char *op, MlcGExpr *x, const char *key, const int64_t *v, int k) {
  MlcAttr a = attr(key, mlc_onnx__av_ints(n->im->ctx, v, k));
  return x ? mlc_onnx__emit_attrs(n, op, &x, 1, 1, &a) : NULL;
}

static MlcGExpr *slice(MlcOnnxNode *n, MlcGExpr *x, int k, const int64_t *axes, const int64_t *begin,
                       const int64_t *end, const int64_t *strides) {
  MlcCtx *ctx = n->im->ctx;
  MlcAttr a[4] = {attr("axes", mlc_onnx__av_ints(ctx, axes, k)), attr("begin", mlc_onnx__av_ints(ctx, begin, k)),
                  attr("end", mlc_onnx__av_ints(ctx, end, k)), attr("strides", mlc_onnx__av_ints(ctx, strides, k))};
  return x ? mlc_onnx__emit_attrs(n, "strided_slice", &x, 1, 4, a) : NULL;
}

static MlcGExpr *pad(MlcOnnxNode *n, MlcGExpr *x, const int64_t *widths, int rank, double value) {
  MlcCtx *ctx = n->im->ctx;
  MlcAttr a[2] = {attr("pad_width", mlc_onnx__av_ints(ctx, widths, 2 * rank)), attr("pad_value", mlc_onnx__av_float(value))};
  return x ? mlc_onnx__emit_attrs(n, "nn.pad", &x, 1, 2, a) : NULL;
}

static MlcGExpr *astype(MlcOnnxNode *n, MlcGExpr *x, MlcDType t) {
  if (!x || mlc_dtype_eq(mlc_onnx__dtype_of(x), t)) return x;
  MlcAttr a = attr("dtype", mlc_onnx__av_dtype(t));
  return mlc_onnx__emit_attrs(n, "astype", &x, 1, 1, &a);
}

/* the conv's sizes: input (N, C, H, W), weight (OC, C, KH, KW), output (OH, OW) */
typedef struct ConvDims {
  int64_t N, C, H, W, OC, KH, KW, OH, OW;
  int64_t s[2], d[2], p[4]; /* strides, dilations, pads (top, left, bottom, right) */
} ConvDims;

/* the shapes this form takes; false (and perhaps an error of the
 * attributes) when it does not */
static bool conv_dims(MlcOnnxNode *n, MlcGExpr *x, const MlcTensorData *w, ConvDims *c) {
  int64_t group, xd[4];
  if (mlc_onnx__rank(x) != 4 || w->ndim != 4 || !mlc_onnx__attr_int(n, "group", 1, &group) || group != 1) return false;
  for (int i = 0; i < 4; i++)
    if (!mlc_onnx__const_dim(x, i, &xd[i]) || xd[i] < 1) return false;
  c->N = xd[0], c->C = xd[1], c->H = xd[2], c->W = xd[3];
  c->OC = w->shape[0], c->KH = w->shape[2], c->KW = w->shape[3];
  if (w->shape[1] != c->C || c->OC < 1 || c->KH < 1 || c->KW < 1) return false;
  int64_t kernel[2] = {c->KH, c->KW};
  if (!mlc_onnx__conv_window_2d(n, x, kernel, c->s, c->d, c->p)) return false;
  /* every size below MAX_IM2COL, so no product here overflows */
  int64_t sizes[] = {c->N, c->C, c->H, c->W, c->OC, c->KH, c->KW, c->s[0], c->s[1], c->d[0], c->d[1],
                     c->p[0], c->p[1], c->p[2], c->p[3]};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
    if (sizes[i] > MAX_IM2COL) return false;
  int64_t span_h = (c->KH - 1) * c->d[0] + 1, span_w = (c->KW - 1) * c->d[1] + 1;
  int64_t hp = c->H + c->p[0] + c->p[2], wp = c->W + c->p[1] + c->p[3];
  if (hp < span_h || wp < span_w || c->C > MAX_IM2COL / c->KH / c->KW || c->N > MAX_IM2COL / hp / wp) return false;
  c->OH = (hp - span_h) / c->s[0] + 1, c->OW = (wp - span_w) / c->s[1] + 1;
  int64_t k = round_up(c->C * c->KH * c->KW, GROUP), rows = c->N * c->OH * c->OW; /* OH*OW <= hp*wp */
  return rows <= MAX_IM2COL / k && round_up(c->OC, COLS) <= MAX_IM2COL / k && rows <= MAX_TABLE / (c->KH * c->KW) &&
         hp <= MAX_TABLE / wp;
}

/* x' (uint8, NCHW) padded with the moved zero point za' = za + sa: a
 * constant pad value when za is known, else zeros plus za' times a
 * constant mask of the padded positions */
static MlcGExpr *pad_input(MlcOnnxNode *n, MlcGExpr *x1, const ConvDims *c, const MlcOnnxDotZp *z) {
  if (!c->p[0] && !c->p[1] && !c->p[2] && !c->p[3]) return x1;
  int64_t widths[8] = {0, 0, c->p[0], c->p[1], 0, 0, c->p[2], c->p[3]};
  if (!z->a_zp || z->za_known)
    return pad(n, x1, widths, 4, (double)((z->za_known ? mlc_onnx__byte_elem(z->za_known, 0) : 0) + z->sa));
  int64_t hp = c->H + c->p[0] + c->p[2], wp = c->W + c->p[1] + c->p[3], shape[2] = {hp, wp};
  MlcTensorData *mask = mlc_tensor_data_new(n->im->ctx, MLC_I32, shape, 2);
  if (!mask) return NULL;
  int32_t *m = mask->data;
  for (int64_t i = 0; i < hp; i++)
    for (int64_t j = 0; j < wp; j++)
      m[i * wp + j] = i < c->p[0] || i >= c->p[0] + c->H || j < c->p[1] || j >= c->p[1] + c->W;
  MlcGExpr *zp = mlc_onnx__dot_shift_input(n, z->a_zp, z->sa);
  if (zp && mlc_onnx__rank(zp) == 1) zp = ints_op(n, "reshape", zp, "shape", NULL, 0);
  MlcGExpr *fill = mlc_onnx__emit2(n, "multiply", mlc_g_const(n->im->ctx, mask), astype(n, zp, MLC_I32));
  MlcGExpr *v = mlc_onnx__emit2(n, "add", astype(n, pad(n, x1, widths, 4, 0), MLC_I32), fill);
  return astype(n, v, MLC_DT(MLC_TC_UINT, 8, 1));
}

/* the im2col matrix (N*OH*OW, Kp) of the padded x', the taps outermost
 * and the channels innermost, zero columns past K: x' made channels-last
 * (N*Hp*Wp, C) once, then one gather of its rows by a constant table of
 * each output position's taps, so each tap copies C contiguous bytes.  The
 * table is flat (N*OH*OW*KH*KW), so that the gathered (rows, C) reshapes
 * to (N*OH*OW, K) by an index the C compiler sees is the same (a 3-D
 * gather's reshape left a division and a modulo per byte) */
static MlcGExpr *im2col(MlcOnnxNode *n, MlcGExpr *xp, const ConvDims *c, int64_t K, int64_t Kp) {
  int64_t hp = c->H + c->p[0] + c->p[2], wp = c->W + c->p[1] + c->p[3], taps = c->KH * c->KW;
  int64_t perm[4] = {0, 2, 3, 1}, rows[2] = {c->N * hp * wp, c->C}, tshape[1] = {c->N * c->OH * c->OW * taps};
  int64_t widths[4] = {0, 0, 0, Kp - K};
  MlcGExpr *nhwc = ints_op(n, "reshape", ints_op(n, "permute_dims", xp, "axes", perm, 4), "shape", rows, 2);
  /* a 1x1 window of stride 1: the channels-last input is the matrix */
  if (taps == 1 && c->OH == hp && c->OW == wp) return Kp > K ? pad(n, nhwc, widths, 2, 0) : nhwc;
  MlcTensorData *table = mlc_tensor_data_new(n->im->ctx, MLC_I32, tshape, 1);
  if (!table) return NULL;
  int32_t *t = table->data;
  for (int64_t b = 0; b < c->N; b++)
    for (int64_t oh = 0; oh < c->OH; oh++)
      for (int64_t ow = 0; ow < c->OW; ow++)
        for (int64_t kh = 0; kh < c->KH; kh++)
          for (int64_t kw = 0; kw < c->KW; kw++)
            *t++ = (int32_t)((b * hp + oh * c->s[0] + kh * c->d[0]) * wp + ow * c->s[1] + kw * c->d[1]);
  MlcGExpr *args[2] = {nhwc, mlc_g_const(n->im->ctx, table)};
  MlcAttr ax = attr("axis", mlc_onnx__av_int(0));
  MlcGExpr *g = nhwc ? mlc_onnx__emit_attrs(n, "take", args, 2, 1, &ax) : NULL; /* (N*OH*OW*taps, C) */
  int64_t shape[2] = {c->N * c->OH * c->OW, K};
  MlcGExpr *a = ints_op(n, "reshape", g, "shape", shape, 2);
  return Kp > K ? pad(n, a, widths, 2, 0) : a;
}

/* W'[(kh, kw, c), oc] = w[oc, c, kh, kw] - sb as int8 (Kp, OCp), zeros
 * past K and OC, and the column sums of W' over the K rows */
static bool weight_matrix(MlcOnnxNode *n, const MlcTensorData *w, const ConvDims *c, int64_t sb, int64_t Kp,
                          int64_t OCp, MlcTensorData **wq, MlcTensorData **cs) {
  MlcCtx *ctx = n->im->ctx;
  int64_t shape[2] = {Kp, OCp};
  *wq = mlc_tensor_data_new(ctx, MLC_DT(MLC_TC_INT, 8, 1), shape, 2);
  *cs = mlc_tensor_data_new(ctx, MLC_I32, &c->OC, 1);
  if (!*wq || !*cs) return false;
  int8_t *q = (*wq)->data;
  int32_t *s = (*cs)->data;
  memset(q, 0, (size_t)(Kp * OCp));
  memset(s, 0, (size_t)c->OC * sizeof *s);
  for (int64_t oc = 0; oc < c->OC; oc++)
    for (int64_t ch = 0; ch < c->C; ch++)
      for (int64_t kh = 0; kh < c->KH; kh++)
        for (int64_t kw = 0; kw < c->KW; kw++) {
          int64_t v = mlc_onnx__byte_elem(w, (size_t)(((oc * c->C + ch) * c->KH + kh) * c->KW + kw)) - sb;
          int64_t row = (kh * c->KW + kw) * c->C + ch;
          q[row * OCp + oc] = (int8_t)v;
          s[oc] = (int32_t)((uint32_t)s[oc] + (uint32_t)v);
        }
  return true;
}

MlcGExpr *mlc_onnx__int_conv_dot(MlcOnnxNode *n, MlcGExpr *x, MlcGExpr *x_zp, MlcGExpr *w, MlcGExpr *w_zp,
                                 MlcGExpr *bias) {
  MlcCtx *ctx = n->im->ctx;
  MlcDType xt = mlc_onnx__dtype_of(x), wt = mlc_onnx__dtype_of(w);
  ConvDims c;
  MlcOnnxDotZp z;
  if (w->kind != MLC_G_CONST || !is_byte(xt) || !is_byte(wt) || !conv_dims(n, x, w->constant, &c) ||
      !mlc_onnx__dot_zp_read(x_zp, w_zp, c.OC, &z))
    return NULL;
  int64_t K = c.C * c.KH * c.KW, Kp = round_up(K, GROUP), OCp = round_up(c.OC, COLS);
  z.sa = xt.code == MLC_TC_INT ? 128 : 0, z.sb = wt.code == MLC_TC_UINT ? 128 : 0, z.K = K;
  MlcTensorData *wq, *cs;
  if (!weight_matrix(n, w->constant, &c, z.sb, Kp, OCp, &wq, &cs)) return NULL;
  z.cs = cs;
  MlcGExpr *a = im2col(n, pad_input(n, mlc_onnx__dot_shift_input(n, x, z.sa), &c, &z), &c, K, Kp);
  MlcAttr od = attr("out_dtype", mlc_onnx__av_dtype(MLC_I32));
  MlcGExpr *mm_args[2] = {a, mlc_g_const(ctx, wq)};
  MlcGExpr *y = a ? mlc_onnx__emit_attrs(n, "matmul", mm_args, 2, 1, &od) : NULL;
  if (y && OCp > c.OC) {
    int64_t axis = 1, begin = 0, one = 1;
    y = slice(n, y, 1, &axis, &begin, &c.OC, &one);
  }
  y = mlc_onnx__dot_zero_points(n, y, a, &z);
  if (y && bias) y = mlc_onnx__emit2(n, "add", y, bias);
  int64_t nhwc[4] = {c.N, c.OH, c.OW, c.OC}, perm[4] = {0, 3, 1, 2};
  return ints_op(n, "permute_dims", ints_op(n, "reshape", y, "shape", nhwc, 4), "axes", perm, 4);
}
