/* onnx_ops_quant.c - converters of ONNX's linear quantization ops
 * (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger,
 * ConvInteger, QLinearMatMul, QLinearConv), composed of graph ops; integer
 * products of a constant weight take the byte dot-product form of
 * onnx_quant_dot.c and onnx_quant_conv.c.
 *
 * Integer products are computed on int32 operands (the input less its zero
 * point), so matmul and conv2d accumulate in int32 exactly as the operator
 * definitions ask.  The float steps follow the definitions' order of
 * operations, each rounded in the dtype the definition computes it in:
 * x / scale in x's dtype, then a round half to even in float32 (float64
 * for the requantizing products, whose int32 sums float32 cannot hold),
 * the zero point added, and the result saturated to the integer range
 * before the cast.  To a float8 or float4 type the quotient (plus the zero
 * point) is not rounded to an integer but cast, clamped first to the
 * type's largest value under saturate=1; from one, the input is decoded to
 * float32 like an integer one. */
#include <string.h>

#include "onnx_convert.h"

#define MAX_RANK 32

static MlcGExpr *astype(MlcOnnxNode *n, MlcGExpr *x, MlcDType t) {
  if (!x || mlc_dtype_eq(mlc_onnx__dtype_of(x), t)) return x;
  MlcAttr a = attr("dtype", mlc_onnx__av_dtype(t));
  return mlc_onnx__emit_attrs(n, "astype", &x, 1, 1, &a);
}

static MlcGExpr *reshape(MlcOnnxNode *n, MlcGExpr *x, const int64_t *shape, int k) {
  MlcAttr a = attr("shape", mlc_onnx__av_ints(n->im->ctx, shape, k));
  return x ? mlc_onnx__emit_attrs(n, "reshape", &x, 1, 1, &a) : NULL;
}

static MlcGExpr *constant(MlcOnnxNode *n, MlcDType t, double v) {
  return mlc_g_const(n->im->ctx, mlc_onnx__scalar(n->im->ctx, t, v));
}

/* the static dims of x into d (rank r); false + error when one is symbolic */
static bool dims_of(MlcOnnxNode *n, const MlcGExpr *x, const char *what, int64_t *d, int *r) {
  *r = mlc_onnx__rank(x);
  if (*r < 0 || *r > MAX_RANK) return mlc_onnx__node_fail(n, "%s: a tensor of unknown rank is not supported", what);
  int64_t total = 1;
  for (int i = 0; i < *r; i++) {
    if (!mlc_onnx__const_dim(x, i, &d[i])) return mlc_onnx__node_fail(n, "%s: a symbolic size is not supported", what);
    if (d[i] && total > MLC_ONNX_MAX_NUMEL / d[i])
      return mlc_onnx__node_fail(n, "%s: more than %lld elements", what, (long long)MLC_ONNX_MAX_NUMEL);
    total *= d[i];
  }
  return true;
}

static int64_t numel(const int64_t *d, int r) {
  int64_t k = 1;
  for (int i = 0; i < r; i++) k *= d[i];
  return k;
}

/* p (a scale or zero point) shaped to broadcast against x of rank xr:
 * one element becomes a scalar, a vector runs along `axis`, and with a
 * block size each element repeats over its block of `axis` */
static MlcGExpr *along_axis(MlcOnnxNode *n, MlcGExpr *p, const MlcGExpr *x, int64_t axis, int64_t block,
                            const char *what) {
  int64_t pd[MAX_RANK], xd[MAX_RANK];
  int pr, xr;
  if (!p || !dims_of(n, p, what, pd, &pr) || !dims_of(n, x, "the input", xd, &xr)) return NULL;
  if (block == 0 && numel(pd, pr) == 1) return pr == 0 ? p : reshape(n, p, NULL, 0);
  if (axis < -xr || axis >= (xr ? xr : 1)) return mlc_onnx__node_fail(n, "axis %lld is out of range for rank %d", (long long)axis, xr), NULL;
  if (axis < 0) axis += xr;
  if (block > 0) {
    if (block > xd[axis]) block = xd[axis] > 0 ? xd[axis] : 1; /* one block covers the axis */
    if (pr != xr) return mlc_onnx__node_fail(n, "%s: blocked quantization needs the input's rank %d, got %d", what, xr, pr), NULL;
    for (int i = 0; i < xr; i++)
      if (i != axis && pd[i] != xd[i])
        return mlc_onnx__node_fail(n, "%s: dim %d is %lld, the input's is %lld", what, i, (long long)pd[i], (long long)xd[i]), NULL;
    if (pd[axis] != (xd[axis] + block - 1) / block)
      return mlc_onnx__node_fail(n, "%s: %lld blocks of %lld do not cover the input's %lld along axis %lld", what,
                                 (long long)pd[axis], (long long)block, (long long)xd[axis], (long long)axis), NULL;
    /* (.., nb, ..) -> (.., nb, 1, ..) -> (.., nb, block, ..) -> (.., nb * block, ..) -> the first xd[axis] */
    int64_t s[MAX_RANK + 1];
    for (int i = 0, k = 0; i < xr; i++) {
      s[k++] = pd[i];
      if (i == axis) s[k++] = 1;
    }
    MlcGExpr *e = reshape(n, p, s, xr + 1);
    s[axis + 1] = block;
    MlcAttr b = attr("shape", mlc_onnx__av_ints(n->im->ctx, s, xr + 1));
    e = e ? mlc_onnx__emit_attrs(n, "broadcast_to", &e, 1, 1, &b) : NULL;
    pd[axis] *= block;
    e = reshape(n, e, pd, xr);
    if (e && pd[axis] != xd[axis]) {
      int64_t zero = 0, end = xd[axis], one = 1;
      MlcCtx *ctx = n->im->ctx;
      MlcAttr a[4] = {attr("axes", mlc_onnx__av_ints(ctx, &axis, 1)), attr("begin", mlc_onnx__av_ints(ctx, &zero, 1)),
                      attr("end", mlc_onnx__av_ints(ctx, &end, 1)), attr("strides", mlc_onnx__av_ints(ctx, &one, 1))};
      e = mlc_onnx__emit_attrs(n, "strided_slice", &e, 1, 4, a);
    }
    return e;
  }
  if (pr != 1) return mlc_onnx__node_fail(n, "%s must be a scalar or a vector, got rank %d", what, pr), NULL;
  if (pd[0] != xd[axis])
    return mlc_onnx__node_fail(n, "%s has %lld elements, the input's axis %lld has %lld", what, (long long)pd[0],
                               (long long)axis, (long long)xd[axis]), NULL;
  int64_t s[MAX_RANK];
  for (int i = 0; i < xr; i++) s[i] = i == axis ? pd[0] : 1;
  return reshape(n, p, s, xr);
}

/* the integer dtypes a quantized value may have, with their ranges */
static bool int_range(MlcDType t, double *lo, double *hi) {
  if (t.lanes != 1 || (t.code != MLC_TC_INT && t.code != MLC_TC_UINT) ||
      (t.bits != 2 && t.bits != 4 && t.bits != 8 && t.bits != 16))
    return false;
  double span = (double)(1 << t.bits);
  *lo = t.code == MLC_TC_INT ? -span / 2 : 0;
  *hi = t.code == MLC_TC_INT ? span / 2 - 1 : span - 1;
  return true;
}

/* saturate(round(v) + zp) as dtype out; v float32/float64, zp shaped or NULL */
static MlcGExpr *requantize(MlcOnnxNode *n, MlcGExpr *v, MlcGExpr *zp, MlcDType out) {
  double lo, hi;
  if (!int_range(out, &lo, &hi)) {
    char buf[32];
    return mlc_onnx__node_fail(n, "quantizing to %s is not supported (8-, 16-, 4- and 2-bit integers and the "
                                  "float8/float4 types are)",
                               mlc_dtype_str(out, buf)), NULL;
  }
  MlcDType ft = mlc_onnx__dtype_of(v);
  v = mlc_onnx__emit1(n, "round", v);
  if (zp) v = mlc_onnx__emit2(n, "add", v, astype(n, zp, ft));
  v = mlc_onnx__emit2(n, "maximum", v, constant(n, ft, lo));
  v = mlc_onnx__emit2(n, "minimum", v, constant(n, ft, hi));
  return astype(n, v, out);
}

static bool is_float(MlcDType t) { return t.code == MLC_TC_FLOAT || t.code == MLC_TC_BFLOAT; }

/* v + zp cast to minifloat `out`: no rounding to an integer; the clamp of
 * saturate=1 (the attribute, float8 only; float4 always saturates) */
static MlcGExpr *quantize_minifloat(MlcOnnxNode *n, MlcGExpr *v, MlcGExpr *zp, MlcDType out) {
  int64_t sat;
  if (!mlc_onnx__attr_int(n, "saturate", 1, &sat)) return NULL;
  if (out.code == MLC_TC_F8E8M0) return mlc_onnx__node_fail(n, "quantizing to float8_e8m0fnu is not supported"), NULL;
  MlcDType ft = mlc_onnx__dtype_of(v);
  if (zp) v = mlc_onnx__emit2(n, "add", v, astype(n, zp, ft));
  if (sat && out.code != MLC_TC_F4E2M1 && v) v = mlc_onnx__saturate_minifloat(n, v, out);
  return astype(n, v, out);
}

/* the optional dtype attribute `key` (an ONNX type number); *has false when absent or 0 */
static bool dtype_attr(MlcOnnxNode *n, const char *key, MlcDType *t, bool *has) {
  int64_t v;
  if (!mlc_onnx__attr_int(n, key, 0, &v)) return false;
  *has = v != 0;
  if (*has && (v > INT32_MAX || !mlc_onnx__dtype((int32_t)v, t)))
    return mlc_onnx__node_fail(n, "%s: element type %lld is not supported", key, (long long)v);
  return true;
}

static MlcGExpr *opt_input(MlcOnnxNode *n, int i) { return i < n->n_in ? n->in[i] : NULL; }

/* ---- QuantizeLinear / DequantizeLinear ---------------------------------------------------- */

bool mlc_onnx__conv_quantize_linear(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *scale = mlc_onnx__input(n, 1), *zp = opt_input(n, 2);
  int64_t axis, block;
  MlcDType out = MLC_DT(MLC_TC_UINT, 8, 1), given, prec;
  bool has_out, has_prec;
  if (!x || !scale || !mlc_onnx__attr_int(n, "axis", 1, &axis) || !mlc_onnx__attr_int(n, "block_size", 0, &block) ||
      !dtype_attr(n, "output_dtype", &given, &has_out) || !dtype_attr(n, "precision", &prec, &has_prec))
    return false;
  if (block < 0) return mlc_onnx__node_fail(n, "block_size must not be negative, got %lld", (long long)block);
  if (has_out) out = given;
  if (zp) {
    if (has_out && !mlc_dtype_eq(given, mlc_onnx__dtype_of(zp)))
      return mlc_onnx__node_fail(n, "output_dtype differs from the zero point's dtype");
    out = mlc_onnx__dtype_of(zp);
  }
  MlcDType xt = has_prec ? prec : mlc_onnx__dtype_of(x);
  if (!is_float(xt)) return mlc_onnx__node_fail(n, "the input must be a float tensor");
  x = astype(n, x, xt);
  MlcGExpr *s = astype(n, along_axis(n, scale, x, axis, block, "the scale"), xt);
  MlcGExpr *q = s ? mlc_onnx__emit2(n, "divide", x, s) : NULL;
  /* the quotient in x's dtype, rounded and offset in float32 or wider */
  if (q && xt.bits < 32) q = astype(n, q, MLC_F32);
  MlcGExpr *z = zp ? along_axis(n, zp, x, axis, block, "the zero point") : NULL;
  if (zp && !z) return false;
  if (q && mlc_dtype_is_minifloat(out)) return (n->out[0] = quantize_minifloat(n, q, z, out)) != NULL;
  return q && (n->out[0] = requantize(n, q, z, out)) != NULL;
}

bool mlc_onnx__conv_dequantize_linear(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *scale = mlc_onnx__input(n, 1), *zp = opt_input(n, 2);
  int64_t axis, block;
  MlcDType out, given;
  bool has_out;
  if (!x || !scale || !mlc_onnx__attr_int(n, "axis", 1, &axis) || !mlc_onnx__attr_int(n, "block_size", 0, &block) ||
      !dtype_attr(n, "output_dtype", &given, &has_out))
    return false;
  if (block < 0) return mlc_onnx__node_fail(n, "block_size must not be negative, got %lld", (long long)block);
  MlcDType xt = mlc_onnx__dtype_of(x);
  if (xt.code != MLC_TC_INT && xt.code != MLC_TC_UINT && !mlc_dtype_is_minifloat(xt))
    return mlc_onnx__node_fail(n, "dequantizing a %s input is not supported", xt.code == MLC_TC_BOOL ? "bool" : "float");
  out = has_out ? given : mlc_onnx__dtype_of(scale);
  if (!is_float(out)) return mlc_onnx__node_fail(n, "the output must be a float tensor");
  MlcGExpr *dx = astype(n, x, MLC_F32);
  if (zp) dx = mlc_onnx__emit2(n, "subtract", dx, astype(n, along_axis(n, zp, x, axis, block, "the zero point"), MLC_F32));
  MlcGExpr *s = dx ? astype(n, along_axis(n, scale, x, axis, block, "the scale"), MLC_F32) : NULL;
  MlcGExpr *y = s ? mlc_onnx__emit2(n, "multiply", dx, s) : NULL;
  return y && (n->out[0] = astype(n, y, out)) != NULL;
}

/* y, y_scale, y_zero_point of uint8 over the range of x and 0 */
bool mlc_onnx__conv_dynamic_quantize_linear(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  if (!x) return false;
  if (!mlc_dtype_eq(mlc_onnx__dtype_of(x), MLC_F32)) return mlc_onnx__node_fail(n, "the input must be float32");
  MlcGExpr *zero = constant(n, MLC_F32, 0);
  MlcGExpr *lo = mlc_onnx__emit2(n, "minimum", mlc_onnx__emit1(n, "min", x), zero);
  MlcGExpr *hi = mlc_onnx__emit2(n, "maximum", mlc_onnx__emit1(n, "max", x), zero);
  MlcGExpr *scale = mlc_onnx__emit2(n, "divide", mlc_onnx__emit2(n, "subtract", hi, lo), constant(n, MLC_F32, 255));
  /* zero point: round(clip(0 - lo / scale, 0, 255)) */
  MlcGExpr *zf = mlc_onnx__emit2(n, "subtract", zero, mlc_onnx__emit2(n, "divide", lo, scale));
  zf = mlc_onnx__emit2(n, "maximum", zf, zero);
  zf = mlc_onnx__emit2(n, "minimum", zf, constant(n, MLC_F32, 255));
  MlcDType u8 = MLC_DT(MLC_TC_UINT, 8, 1);
  MlcGExpr *zp = astype(n, mlc_onnx__emit1(n, "round", zf), u8);
  MlcGExpr *q = scale ? mlc_onnx__emit2(n, "divide", x, scale) : NULL;
  MlcGExpr *y = q && zp ? requantize(n, q, zp, u8) : NULL;
  if (!y) return false;
  n->out[0] = y, n->out[1] = scale, n->out[2] = zp;
  return true;
}

/* ---- integer products ------------------------------------------------------------------- */

/* x as int32 less its zero point; a vector zero point of x's dim `axis`
 * (rank xr) runs along that axis, other shapes broadcast as they are */
static MlcGExpr *shifted(MlcOnnxNode *n, MlcGExpr *x, MlcGExpr *zp, int axis, const char *what) {
  MlcDType xt = mlc_onnx__dtype_of(x);
  if ((xt.code != MLC_TC_INT && xt.code != MLC_TC_UINT) || xt.bits != 8)
    return mlc_onnx__node_fail(n, "%s must be int8 or uint8", what), NULL;
  MlcGExpr *v = astype(n, x, MLC_I32);
  if (!zp || !v) return v;
  int64_t zd[MAX_RANK], xd[MAX_RANK];
  int zr, xr;
  if (!dims_of(n, zp, "a zero point", zd, &zr) || !dims_of(n, x, what, xd, &xr)) return NULL;
  MlcGExpr *z = astype(n, zp, MLC_I32);
  if (zr == 1 && zd[0] != 1 && axis >= 0 && axis < xr && zd[0] == xd[axis]) {
    int64_t s[MAX_RANK];
    for (int i = 0; i < xr; i++) s[i] = i == axis ? zd[0] : 1;
    z = reshape(n, z, s, xr);
  }
  return mlc_onnx__emit2(n, "subtract", v, z);
}

/* A @ B of int32 operands; a's vector zero point is per row (axis -2).  A
 * constant 2-D B takes the uint8 x int8 form of onnx_quant_dot.c. */
static MlcGExpr *int_matmul(MlcOnnxNode *n, MlcGExpr *a, MlcGExpr *a_zp, MlcGExpr *b, MlcGExpr *b_zp) {
  MlcGExpr *dot = mlc_onnx__int_matmul_dot(n, a, a_zp, b, b_zp);
  if (dot || mlc_has_error(n->im->ctx)) return dot;
  int ar = mlc_onnx__rank(a), br = mlc_onnx__rank(b);
  MlcGExpr *A = shifted(n, a, a_zp, ar - 2, "A");
  MlcGExpr *B = A ? shifted(n, b, b_zp, br - 1, "B") : NULL;
  return B ? mlc_onnx__emit2(n, "matmul", A, B) : NULL;
}

/* conv of int32 operands through the Conv converter, with this node's
 * attributes.  A constant weight of a 2-D conv of group 1 takes the
 * uint8 x int8 form of onnx_quant_conv.c. */
static MlcGExpr *int_conv(MlcOnnxNode *n, MlcGExpr *x, MlcGExpr *x_zp, MlcGExpr *w, MlcGExpr *w_zp, MlcGExpr *bias) {
  MlcGExpr *dot = mlc_onnx__int_conv_dot(n, x, x_zp, w, w_zp, bias);
  if (dot || mlc_has_error(n->im->ctx)) return dot;
  MlcOnnxNode c = *n;
  memset(c.in, 0, sizeof c.in);
  memset(c.known_in, 0, sizeof c.known_in);
  c.in[0] = shifted(n, x, x_zp, -1, "x");
  c.in[1] = c.in[0] ? shifted(n, w, w_zp, 0, "w") : NULL;
  c.in[2] = bias;
  c.n_in = 3;
  c.n_out = 1;
  if (!c.in[1] || !mlc_onnx__conv_conv(&c)) return NULL;
  return c.out[0];
}

bool mlc_onnx__conv_matmul_integer(MlcOnnxNode *n) {
  MlcGExpr *a = mlc_onnx__input(n, 0), *b = mlc_onnx__input(n, 1);
  return a && b && (n->out[0] = int_matmul(n, a, opt_input(n, 2), b, opt_input(n, 3))) != NULL;
}

bool mlc_onnx__conv_conv_integer(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *w = mlc_onnx__input(n, 1);
  return x && w && (n->out[0] = int_conv(n, x, opt_input(n, 2), w, opt_input(n, 3), NULL)) != NULL;
}

/* the int32 accumulator acc times a_scale * b_scale / y_scale (in the
 * scales' dtype), in float64, requantized with y's zero point */
static MlcGExpr *rescale(MlcOnnxNode *n, MlcGExpr *acc, MlcGExpr *sa, MlcGExpr *sb, MlcGExpr *sy, MlcGExpr *zy) {
  MlcGExpr *f = mlc_onnx__emit2(n, "divide", mlc_onnx__emit2(n, "multiply", sa, sb), sy);
  MlcGExpr *v = f ? mlc_onnx__emit2(n, "multiply", astype(n, acc, MLC_F64), astype(n, f, MLC_F64)) : NULL;
  return v ? requantize(n, v, zy, mlc_onnx__dtype_of(zy)) : NULL;
}

/* a scale of one element as a scalar; a vector per row of a / per column of b */
static MlcGExpr *scale_shaped(MlcOnnxNode *n, MlcGExpr *s, const MlcGExpr *x, int axis, const char *what) {
  int64_t sd[MAX_RANK];
  int sr;
  if (!s || !dims_of(n, s, what, sd, &sr)) return NULL;
  if (numel(sd, sr) == 1) return sr ? reshape(n, s, NULL, 0) : s;
  return sr == 1 ? along_axis(n, s, x, axis, 0, what) : s;
}

bool mlc_onnx__conv_qlinear_matmul(MlcOnnxNode *n) {
  MlcGExpr *in[8];
  for (int i = 0; i < 8; i++)
    if (!(in[i] = mlc_onnx__input(n, i))) return false;
  int ar = mlc_onnx__rank(in[0]), br = mlc_onnx__rank(in[3]);
  if (ar < 2 || br < 2) return mlc_onnx__node_fail(n, "a and b must have rank 2 or more");
  MlcGExpr *acc = int_matmul(n, in[0], in[2], in[3], in[5]);
  if (!acc) return false;
  MlcGExpr *sa = scale_shaped(n, in[1], acc, mlc_onnx__rank(acc) - 2, "a_scale");
  MlcGExpr *sb = sa ? scale_shaped(n, in[4], acc, mlc_onnx__rank(acc) - 1, "b_scale") : NULL;
  MlcGExpr *sy = sb ? scale_shaped(n, in[6], acc, 0, "y_scale") : NULL;
  MlcGExpr *zy = sy ? scale_shaped(n, in[7], acc, 0, "y_zero_point") : NULL;
  return zy && (n->out[0] = rescale(n, acc, sa, sb, sy, zy)) != NULL;
}

bool mlc_onnx__conv_qlinear_conv(MlcOnnxNode *n) {
  MlcGExpr *in[8];
  for (int i = 0; i < 8; i++)
    if (!(in[i] = mlc_onnx__input(n, i))) return false;
  MlcGExpr *bias = opt_input(n, 8);
  if (bias && !mlc_dtype_eq(mlc_onnx__dtype_of(bias), MLC_I32)) return mlc_onnx__node_fail(n, "the bias must be int32");
  MlcGExpr *acc = int_conv(n, in[0], in[2], in[3], in[5], bias);
  if (!acc) return false;
  MlcGExpr *sx = scale_shaped(n, in[1], acc, 1, "x_scale");
  MlcGExpr *sw = sx ? scale_shaped(n, in[4], acc, 1, "w_scale") : NULL; /* per output channel */
  MlcGExpr *sy = sw ? scale_shaped(n, in[6], acc, 1, "y_scale") : NULL;
  MlcGExpr *zy = sy ? scale_shaped(n, in[7], acc, 1, "y_zero_point") : NULL;
  return zy && (n->out[0] = rescale(n, acc, sx, sw, sy, zy)) != NULL;
}
