/* linalg.c - matmul and nn.linear: struct-info inference and TE
 * definitions.
 *
 * matmul follows numpy: 1-D operands gain and lose a unit dim, the batch
 * dims broadcast, and the inner dims must be provably equal (a message
 * names both shapes otherwise).  The product sums over the inner dim in
 * the inputs' dtype, or out_dtype when given; nn.linear is
 * x @ weight^T (+ bias), read through the transposed index rather than a
 * separate transpose compute. */
#include "ops/op_internal.h"

static MlcExpr **earr(MlcCtx *ctx, int n) {
  return mlc_arena_array(&ctx->arena, (size_t)(n > 0 ? n : 1), sizeof(MlcExpr *));
}

static MlcExpr *i64(MlcCtx *ctx, int64_t v) { return mlc_op_i64(ctx, v); }

static bool is_one(const MlcExpr *e) {
  int64_t v;
  return mlc_e_is_const_int(e, &v) && v == 1;
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

/* ---- matmul and linear ----------------------------------------------------------- */

/* numpy's matmul shape of x1 (n1 dims) and x2 viewed as [.., K, N] (n2 dims;
 * both at least 1-D, inner dims already checked) */
static bool mm_shape(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr **s1, int n1, MlcExpr **s2, int n2,
                     MlcExpr ***out, int *n_out) {
  int b1 = n1 > 2 ? n1 - 2 : 0, b2 = n2 > 2 ? n2 - 2 : 0, bn = 0;
  MlcExpr **bs = NULL;
  if ((b1 || b2) && !mlc_op_broadcast_shapes(ctx, a, s1, b1, s2, b2, &bs, &bn)) return false;
  MlcExpr **o = earr(ctx, bn + 2);
  int n = 0;
  for (int i = 0; i < bn; i++) o[n++] = bs[i];
  if (n1 >= 2) o[n++] = s1[n1 - 2];
  if (n2 >= 2) o[n++] = s2[n2 - 1];
  *out = o;
  *n_out = n;
  return true;
}

/* the output rank of a matmul when the dims are unknown */
static int mm_rank(int n1, int n2) {
  int b1 = n1 > 2 ? n1 - 2 : 0, b2 = n2 > 2 ? n2 - 2 : 0;
  return (b1 > b2 ? b1 : b2) + (n1 >= 2) + (n2 >= 2);
}

MlcSInfo *mlc_op_infer_matmul(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x1 = mlc_op_tensor(ctx, a, 0, false);
  const MlcSInfo *x2 = x1 ? mlc_op_tensor(ctx, a, 1, false) : NULL;
  MlcDType t;
  if (!x2 || !out_dtype(ctx, a, x1, "x1", x2, "x2", &t)) return NULL;
  int n1 = x1->tensor.ndim, n2 = x2->tensor.ndim;
  if (n1 == 0 || n2 == 0)
    return mlc_op_fail(ctx, a, "operands must have at least one dim, got x1 %s, x2 %s", mlc_op_sinfo_str(ctx, x1),
                       mlc_op_sinfo_str(ctx, x2)), NULL;
  if (!x1->tensor.shape || !x2->tensor.shape) return mlc_sinfo_tensor(ctx, NULL, mm_rank(n1, n2), t);
  MlcExpr *k1 = x1->tensor.shape[n1 - 1], *k2 = x2->tensor.shape[n2 == 1 ? 0 : n2 - 2];
  if (!mlc_op_dim_equal(k1, k2))
    return mlc_op_fail(ctx, a, "inner dims differ: x1 is %s, x2 is %s", mlc_op_sinfo_str(ctx, x1), mlc_op_sinfo_str(ctx, x2)),
           NULL;
  MlcExpr **shape;
  int n;
  if (!mm_shape(ctx, a, x1->tensor.shape, n1, x2->tensor.shape, n2, &shape, &n)) return NULL;
  return mlc_sinfo_tensor(ctx, shape, n, t);
}

/* x's batch dims (the first nb) read at the output's batch index (the first
 * on_b of oidx), numpy-aligned from the right; dims of constant 1 read 0 */
static void batch_index(MlcCtx *ctx, const MlcTeTensor *x, int nb, MlcExpr **oidx, int on_b, MlcExpr **idx) {
  for (int i = 0; i < nb; i++) idx[i] = is_one(x->shape[i]) ? i64(ctx, 0) : oidx[on_b - nb + i];
}

/* x1 @ x2 into shape (on dims) of dtype t; x2 is [.., K, N], or [N, K] when trans */
static MlcTeTensor *mm_compute(MlcCtx *ctx, const char *name, const MlcTeTensor *x1, const MlcTeTensor *x2,
                               bool trans, MlcExpr **shape, int on, MlcDType t) {
  int n1 = x1->ndim, n2 = x2->ndim;
  bool row = n1 >= 2, col = trans || n2 >= 2;
  int obn = on - row - col;
  MlcExpr **axes = earr(ctx, on), **i1 = earr(ctx, n1), **i2 = earr(ctx, n2);
  mlc_op_axes(ctx, on, axes);
  MlcExpr *k = mlc_te_var(ctx, "k");
  batch_index(ctx, x1, n1 - 1 - row, axes, obn, i1);
  if (row) i1[n1 - 2] = axes[obn];
  i1[n1 - 1] = k;
  if (trans) {
    i2[0] = axes[on - 1], i2[1] = k;
  } else {
    batch_index(ctx, x2, n2 - 1 - col, axes, obn, i2);
    i2[n2 - 1 - col] = k;
    if (col) i2[n2 - 1] = axes[on - 1];
  }
  MlcExpr *body = mlc_e_bin(ctx, MLC_BIN_MUL, mlc_op_cast(ctx, t, mlc_te_read(ctx, x1, i1, n1)),
                            mlc_op_cast(ctx, t, mlc_te_read(ctx, x2, i2, n2)));
  MlcExpr *kext = x1->shape[n1 - 1];
  return mlc_te_reduce(ctx, name, shape, on, axes, MLC_TE_SUM, body, &k, &kext, 1);
}

/* the output shape for te: recomputed from the inputs' (known) shapes */
static bool te_mm_shape(MlcCtx *ctx, const MlcOpArgs *a, const MlcTeTensor *x1, MlcExpr **s2, int n2,
                        MlcExpr ***shape, int *n) {
  if (x1->ndim == 0 || n2 == 0) return mlc_op_fail(ctx, a, "operands must have at least one dim");
  return mm_shape(ctx, a, x1->shape, x1->ndim, s2, n2, shape, n);
}

bool mlc_op_te_matmul(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                      int *n_outs) {
  MlcSInfo *s = mlc_op_infer_matmul(ctx, a);
  MlcExpr **shape;
  int n;
  if (!s || !te_mm_shape(ctx, a, in[0], in[1]->shape, in[1]->ndim, &shape, &n)) return false;
  outs[0] = mm_compute(ctx, "matmul", in[0], in[1], false, shape, n, s->tensor.dtype);
  *n_outs = 1;
  return outs[0] != NULL;
}

/* weight [N, K] seen as x2 = [K, N] */
static MlcExpr **weight_t(MlcCtx *ctx, MlcExpr **w) {
  MlcExpr **s = earr(ctx, 2);
  s[0] = w[1], s[1] = w[0];
  return s;
}

MlcSInfo *mlc_op_infer_linear(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, false);
  const MlcSInfo *w = x ? mlc_op_tensor(ctx, a, 1, false) : NULL;
  MlcDType t;
  if (!w || !out_dtype(ctx, a, x, "data", w, "weight", &t)) return NULL;
  if (x->tensor.ndim == 0) return mlc_op_fail(ctx, a, "data must have at least one dim, got a scalar"), NULL;
  if (w->tensor.ndim != 2)
    return mlc_op_fail(ctx, a, "weight must be 2-D (out_features, in_features), got %s", mlc_op_sinfo_str(ctx, w)), NULL;
  int nx = x->tensor.ndim;
  const MlcSInfo *b = a->val[2] ? mlc_op_tensor(ctx, a, 2, false) : NULL;
  if (a->val[2] && !b) return NULL;
  if (!x->tensor.shape || !w->tensor.shape || (b && !b->tensor.shape))
    return mlc_sinfo_tensor(ctx, NULL, b && b->tensor.ndim > nx ? b->tensor.ndim : nx, t);
  if (!mlc_op_dim_equal(x->tensor.shape[nx - 1], w->tensor.shape[1]))
    return mlc_op_fail(ctx, a, "in_features differ: data is %s, weight is %s", mlc_op_sinfo_str(ctx, x),
                       mlc_op_sinfo_str(ctx, w)), NULL;
  MlcExpr **shape;
  int n;
  if (!mm_shape(ctx, a, x->tensor.shape, nx, weight_t(ctx, w->tensor.shape), 2, &shape, &n)) return NULL;
  if (b && !mlc_op_broadcast_shapes(ctx, a, shape, n, b->tensor.shape, b->tensor.ndim, &shape, &n)) return NULL;
  return mlc_sinfo_tensor(ctx, shape, n, t);
}

bool mlc_op_te_linear(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                      int *n_outs) {
  MlcSInfo *s = mlc_op_infer_linear(ctx, a);
  MlcExpr **shape;
  int n;
  if (!s || !te_mm_shape(ctx, a, in[0], weight_t(ctx, in[1]->shape), 2, &shape, &n)) return false;
  MlcDType t = s->tensor.dtype;
  MlcTeTensor *mm = mm_compute(ctx, n_in > 2 ? "matmul" : "linear", in[0], in[1], true, shape, n, t);
  if (mm && n_in > 2) {
    MlcExpr **axes = earr(ctx, s->tensor.ndim), **ishape = s->tensor.shape;
    int on = s->tensor.ndim;
    mlc_op_axes(ctx, on, axes);
    MlcExpr *v = mlc_e_bin(ctx, MLC_BIN_ADD, mlc_op_read_broadcast(ctx, mm, axes, on),
                           mlc_op_cast(ctx, t, mlc_op_read_broadcast(ctx, in[2], axes, on)));
    mm = mlc_te_compute(ctx, "linear", ishape, on, axes, v);
  }
  outs[0] = mm;
  *n_outs = 1;
  return mm != NULL;
}

