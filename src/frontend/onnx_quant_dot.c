/* onnx_quant_dot.c - integer matmuls of a constant 2-D weight in the form
 * the byte dot-product instructions take (MatMulInteger, QLinearMatMul,
 * DynamicQuantizeMatMul; onnx_ops_quant.c asks here first).
 *
 * vpdpbusd multiplies unsigned bytes by signed bytes, so the product the
 * kernel computes must stay uint8 x int8 rather than the operands less
 * their zero points in int32.  With A' = A + sa in uint8 (sa = 128 when A
 * is int8) and W' = W - sb in int8 (sb = 128 when W is uint8), and the zero
 * points moved likewise (za' = za + sa, zb' = zb - sb), nothing changes:
 *     sum_k (A - za)(W - zb) = sum_k (A' - za')(W' - zb')
 *       = sum_k A' W'  -  zb' * rowsum(A')  -  za' * colsum(W')  +  K za' zb'
 * The first term is matmul(A', W', out_dtype=int32), which the default
 * schedule tensorizes where the target has the instruction (and computes
 * in int32 vectors where it has not).  W' and colsum(W') are computed here,
 * from the constant weight; with a constant za the whole column term
 * -za' colsum(W') + K za' zb' is one int32 constant per column.  Terms whose
 * zero point is a constant 0 are left out (symmetric int8 weights need no
 * row sums).  Every step is int32 arithmetic that wraps as the reference's
 * int32 accumulation does, so the result is the same in every bit. */
#include "onnx_convert.h"

#include <string.h>

static MlcGExpr *astype(MlcOnnxNode *n, MlcGExpr *x, MlcDType t) {
  if (!x || mlc_dtype_eq(mlc_onnx__dtype_of(x), t)) return x;
  MlcAttr a = attr("dtype", mlc_onnx__av_dtype(t));
  return mlc_onnx__emit_attrs(n, "astype", &x, 1, 1, &a);
}

static MlcGExpr *i32_const(MlcOnnxNode *n, int64_t v) {
  return mlc_g_const(n->im->ctx, mlc_onnx__scalar(n->im->ctx, MLC_I32, (double)v));
}

static bool is_byte(MlcDType t) { return (t.code == MLC_TC_INT || t.code == MLC_TC_UINT) && t.bits == 8 && t.lanes == 1; }

int64_t mlc_onnx__byte_elem(const MlcTensorData *d, size_t i) {
  switch (d->dtype.code) {
  case MLC_TC_UINT: return ((const uint8_t *)d->data)[i];
  default: return ((const int8_t *)d->data)[i];
  }
}

static int64_t elem(const MlcTensorData *d, size_t i) { return mlc_onnx__byte_elem(d, i); }

static size_t numel_of(const MlcTensorData *d) {
  size_t k = 1;
  for (int i = 0; i < d->ndim; i++) k *= (size_t)d->shape[i];
  return k;
}

/* a zero point this form handles: absent, one value, or (vec_len > 0) a
 * 1-D vector of that length; *zero when it is absent or constant zeros */
static bool zp_ok(const MlcGExpr *zp, int64_t vec_len, bool *zero, const MlcTensorData **known) {
  *zero = true, *known = NULL;
  if (!zp) return true;
  if (!is_byte(mlc_onnx__dtype_of(zp))) return false;
  int r = mlc_onnx__rank(zp);
  int64_t d0 = 1;
  if (r < 0 || r > 1 || (r == 1 && !mlc_onnx__const_dim(zp, 0, &d0))) return false;
  if (d0 != 1 && d0 != vec_len) return false;
  if (zp->kind != MLC_G_CONST) return *zero = false, true;
  *known = zp->constant;
  for (size_t i = 0; i < numel_of(zp->constant); i++)
    if (elem(zp->constant, i) != 0) *zero = false;
  return true;
}

/* zp (int32, a scalar or a vector along the last axis) + shift */
static MlcGExpr *moved_zp(MlcOnnxNode *n, MlcGExpr *zp, int64_t shift) {
  if (!zp) return i32_const(n, shift);
  MlcGExpr *z = astype(n, zp, MLC_I32);
  if (mlc_onnx__rank(zp) == 1) {
    int64_t len;
    mlc_onnx__const_dim(zp, 0, &len);
    MlcAttr a = attr("shape", mlc_onnx__av_ints(n->im->ctx, &len, 1));
    z = len == 1 ? mlc_onnx__emit_attrs(n, "reshape", &z, 1, 1, &(MlcAttr){"shape", mlc_onnx__av_ints(n->im->ctx, NULL, 0)})
                 : mlc_onnx__emit_attrs(n, "reshape", &z, 1, 1, &a);
  }
  return shift ? mlc_onnx__emit2(n, "add", z, i32_const(n, shift)) : z;
}

/* W' = W - sb as int8 and its column sums, from the constant */
static bool shifted_weight(MlcOnnxNode *n, const MlcTensorData *w, int64_t sb, MlcTensorData **wq, MlcTensorData **cs) {
  MlcCtx *ctx = n->im->ctx;
  int64_t K = w->shape[0], N = w->shape[1];
  *wq = mlc_tensor_data_new(ctx, MLC_DT(MLC_TC_INT, 8, 1), w->shape, 2);
  *cs = mlc_tensor_data_new(ctx, MLC_I32, &N, 1);
  if (!*wq || !*cs) return false;
  int8_t *q = (*wq)->data;
  int32_t *c = (*cs)->data;
  memset(c, 0, (size_t)N * sizeof *c);
  for (int64_t k = 0; k < K; k++)
    for (int64_t j = 0; j < N; j++) {
      int64_t v = elem(w, (size_t)(k * N + j)) - sb;
      q[k * N + j] = (int8_t)v;
      c[j] = (int32_t)(uint32_t)((uint32_t)c[j] + (uint32_t)v);
    }
  return true;
}

/* the column term -za' colsum + K za' zb' for a constant za (and zb) */
static MlcTensorData *column_const(MlcOnnxNode *n, const MlcTensorData *cs, int64_t K, int64_t za,
                                   const MlcTensorData *zb, int64_t sb) {
  int64_t N = cs->shape[0];
  MlcTensorData *t = mlc_tensor_data_new(n->im->ctx, MLC_I32, &N, 1);
  if (!t) return NULL;
  const int32_t *c = cs->data;
  int32_t *o = t->data;
  size_t zn = zb ? numel_of(zb) : 0;
  for (int64_t j = 0; j < N; j++) {
    int64_t zbj = (zb ? elem(zb, zn == 1 ? 0 : (size_t)j) : 0) - sb;
    uint32_t v = (uint32_t)0 - (uint32_t)za * (uint32_t)c[j] + (uint32_t)K * (uint32_t)za * (uint32_t)zbj;
    o[j] = (int32_t)v;
  }
  return t;
}

/* y = A' @ W' (int32, last axis the columns) with the zero-point terms:
 *     y - zb' * rowsum(A') - za' * colsum(W') + K za' zb'
 * a1 is A' (uint8, the reduction its last axis; columns of zeros past K
 * change no sum), cs colsum(W') of y's columns, K the true reduction
 * length; the zero points as the caller's zp_ok read them */
MlcGExpr *mlc_onnx__dot_zero_points(MlcOnnxNode *n, MlcGExpr *y, MlcGExpr *a1, const MlcOnnxDotZp *z) {
  MlcCtx *ctx = n->im->ctx;
  int ar = mlc_onnx__rank(a1);
  /* - zb' * rowsum(A') */
  if (y && !(z->zb_zero && z->sb == 0)) {
    int64_t last = ar - 1;
    MlcAttr s[2] = {attr("axis", mlc_onnx__av_ints(ctx, &last, 1)), attr("keepdims", av_bool(true))};
    MlcGExpr *a32 = astype(n, a1, MLC_I32);
    MlcGExpr *rows = a32 ? mlc_onnx__emit_attrs(n, "sum", &a32, 1, 2, s) : NULL;
    MlcGExpr *zb1 = moved_zp(n, z->b_zp, -z->sb);
    y = rows && zb1 ? mlc_onnx__emit2(n, "subtract", y, mlc_onnx__emit2(n, "multiply", zb1, rows)) : NULL;
  }
  if (!y || (z->za_zero && z->sa == 0)) return y;
  /* - za' * colsum(W') + K za' zb' */
  if (!z->a_zp || z->za_known) {
    bool known_zb = !z->b_zp || z->zb_known;
    int64_t za = (z->za_known ? elem(z->za_known, 0) : 0) + z->sa;
    if (known_zb) {
      MlcTensorData *col = column_const(n, z->cs, z->K, za, z->zb_known, z->sb);
      return col ? mlc_onnx__emit2(n, "add", y, mlc_g_const(ctx, col)) : NULL;
    }
  }
  MlcGExpr *za1 = moved_zp(n, z->a_zp, z->sa), *zb1 = moved_zp(n, z->b_zp, -z->sb);
  MlcGExpr *col = mlc_onnx__emit2(n, "multiply", za1, mlc_g_const(ctx, z->cs));
  MlcGExpr *kz = mlc_onnx__emit2(n, "multiply", mlc_onnx__emit2(n, "multiply", za1, zb1), i32_const(n, z->K));
  y = mlc_onnx__emit2(n, "subtract", y, col);
  return mlc_onnx__emit2(n, "add", y, kz);
}

bool mlc_onnx__dot_zp_read(MlcGExpr *a_zp, MlcGExpr *b_zp, int64_t n_cols, MlcOnnxDotZp *z) {
  memset(z, 0, sizeof *z);
  z->a_zp = a_zp, z->b_zp = b_zp;
  /* A's zero point must be one value (a per-row vector would make the
   * column term an outer product); B's may run along the columns */
  return zp_ok(a_zp, 0, &z->za_zero, &z->za_known) && zp_ok(b_zp, n_cols, &z->zb_zero, &z->zb_known);
}

MlcGExpr *mlc_onnx__dot_shift_input(MlcOnnxNode *n, MlcGExpr *a, int64_t sa) {
  return sa ? astype(n, mlc_onnx__emit2(n, "add", astype(n, a, MLC_I32), i32_const(n, sa)), MLC_DT(MLC_TC_UINT, 8, 1))
            : a;
}

MlcGExpr *mlc_onnx__int_matmul_dot(MlcOnnxNode *n, MlcGExpr *a, MlcGExpr *a_zp, MlcGExpr *b, MlcGExpr *b_zp) {
  MlcCtx *ctx = n->im->ctx;
  MlcDType at = mlc_onnx__dtype_of(a), bt = mlc_onnx__dtype_of(b);
  int ar = mlc_onnx__rank(a);
  int64_t K, N, ak;
  if (b->kind != MLC_G_CONST || !is_byte(at) || !is_byte(bt) || ar < 2 || b->constant->ndim != 2 ||
      !mlc_onnx__const_dim(a, ar - 1, &ak))
    return NULL;
  K = b->constant->shape[0], N = b->constant->shape[1];
  MlcOnnxDotZp z;
  if (ak != K || K < 1 || N < 1 || !mlc_onnx__dot_zp_read(a_zp, b_zp, N, &z)) return NULL;
  z.sa = at.code == MLC_TC_INT ? 128 : 0, z.sb = bt.code == MLC_TC_UINT ? 128 : 0, z.K = K;
  MlcTensorData *wq, *cs;
  if (!shifted_weight(n, b->constant, z.sb, &wq, &cs)) return NULL;
  z.cs = cs;
  MlcGExpr *a1 = mlc_onnx__dot_shift_input(n, a, z.sa);
  MlcAttr od = attr("out_dtype", mlc_onnx__av_dtype(MLC_I32));
  MlcGExpr *mm_args[2] = {a1, mlc_g_const(ctx, wq)};
  MlcGExpr *y = a1 ? mlc_onnx__emit_attrs(n, "matmul", mm_args, 2, 1, &od) : NULL;
  return mlc_onnx__dot_zero_points(n, y, a1, &z);
}
