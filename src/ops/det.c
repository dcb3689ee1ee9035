/* det.c - linalg.det: the determinant of each n x n matrix of x (..., n, n)
 * (ONNX Det), by Gaussian elimination with partial pivoting.
 *
 * The TE has no loops carried between computes, so elimination is
 * unrolled: column k takes four computes (the largest magnitude at or below
 * the diagonal, the first row holding it, the rows swapped, the rows below
 * eliminated), and a sign tracks the swaps; the determinant is the sign
 * times the diagonal's product.  A zero pivot leaves its column as it is
 * (the product is then 0).  Work is float64; n must be a constant, at most
 * DET_MAX_N (the computes grow with n). */
#include <string.h>

#include "ops/op_internal.h"

#define DET_MAX_N 32
#define DET_MAX_NDIM 16

static MlcExpr *i64(MlcCtx *ctx, int64_t v) { return mlc_op_i64(ctx, v); }
static MlcExpr *f64(MlcCtx *ctx, double v) { return mlc_e_float(ctx, MLC_F64, v); }
static MlcExpr *bin(MlcCtx *ctx, MlcBinOp op, MlcExpr *x, MlcExpr *y) { return mlc_e_bin(ctx, op, x, y); }

static bool det_n(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, int64_t *n) {
  int nd = x->tensor.ndim;
  int64_t m;
  if (nd < 2 || nd > DET_MAX_NDIM) return mlc_op_fail(ctx, a, "x must have 2 to %d dims, got %d", DET_MAX_NDIM, nd);
  if (!mlc_dtype_is_float(x->tensor.dtype)) return mlc_op_fail(ctx, a, "x must be floating-point");
  if (!x->tensor.shape || !mlc_e_is_const_int(x->tensor.shape[nd - 1], n) || !mlc_e_is_const_int(x->tensor.shape[nd - 2], &m) ||
      *n != m || *n < 1 || *n > DET_MAX_N)
    return mlc_op_fail(ctx, a, "x %s must end in square constant dims of 1 to %d", mlc_op_sinfo_str(ctx, x), DET_MAX_N);
  return true;
}

MlcSInfo *mlc_op_infer_det(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true);
  int64_t n;
  if (!x || !det_n(ctx, a, x, &n)) return NULL;
  return mlc_op_tensor_sinfo(ctx, x->tensor.shape, x->tensor.ndim - 2, x->tensor.dtype);
}

/* Computes over the batch dims (nb of them) plus `extra` trailing dims of
 * extent n: fresh axes and the shape. */
typedef struct DetDims {
  int nb;
  int64_t n;
  MlcExpr **batch; /* the batch dims' extents */
} DetDims;

static MlcExpr **det_axes(MlcCtx *ctx, const DetDims *d, int extra, MlcExpr **shape) {
  MlcExpr **ax = mlc_arena_array(&ctx->arena, (size_t)(d->nb + extra + 1), sizeof *ax);
  mlc_op_axes(ctx, d->nb + extra, ax);
  for (int i = 0; i < d->nb; i++) shape[i] = d->batch[i];
  for (int i = 0; i < extra; i++) shape[d->nb + i] = i64(ctx, d->n);
  return ax;
}

/* t (batch..., rows, cols) at the batch axes of ax, row r, col c */
static MlcExpr *at(MlcCtx *ctx, const DetDims *d, const MlcTeTensor *t, MlcExpr **ax, MlcExpr *r, MlcExpr *c) {
  MlcExpr *idx[DET_MAX_NDIM];
  memcpy(idx, ax, (size_t)d->nb * sizeof *idx);
  idx[d->nb] = r;
  idx[d->nb + 1] = c;
  return mlc_te_read(ctx, t, idx, d->nb + 2);
}

static MlcExpr *batch_read(MlcCtx *ctx, const DetDims *d, const MlcTeTensor *t, MlcExpr **ax) {
  return mlc_te_read(ctx, t, ax, d->nb);
}

/* one elimination step on column k: m (batch, n, n) and sign (batch) in, the new ones out */
static bool det_step(MlcCtx *ctx, const DetDims *d, int64_t k, MlcTeTensor **m, MlcTeTensor **sign) {
  MlcExpr *shape[DET_MAX_NDIM + 2], *kk = i64(ctx, k);
  /* the largest magnitude at or below the diagonal */
  MlcExpr **ax = det_axes(ctx, d, 0, shape), *i = mlc_te_var(ctx, "i"), *ext = i64(ctx, d->n);
  MlcExpr *mag = mlc_e_call(ctx, MLC_INTRIN_FABS, (MlcExpr *[]){at(ctx, d, *m, ax, i, kk)}, 1);
  MlcExpr *body = mlc_e_select(ctx, bin(ctx, MLC_BIN_GE, i, kk), mag, f64(ctx, -1));
  MlcTeTensor *best = mlc_te_reduce(ctx, "det_pivot_abs", shape, d->nb, ax, MLC_TE_MAX, body, &i, &ext, 1);
  if (!best) return false;
  /* the first row holding it */
  ax = det_axes(ctx, d, 0, shape);
  i = mlc_te_var(ctx, "i");
  mag = mlc_e_call(ctx, MLC_INTRIN_FABS, (MlcExpr *[]){at(ctx, d, *m, ax, i, kk)}, 1);
  MlcExpr *hit = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_GE, i, kk), bin(ctx, MLC_BIN_EQ, mag, batch_read(ctx, d, best, ax)));
  body = mlc_e_select(ctx, hit, i, i64(ctx, d->n - 1));
  MlcTeTensor *piv = mlc_te_reduce(ctx, "det_pivot_row", shape, d->nb, ax, MLC_TE_MIN, body, &i, &ext, 1);
  if (!piv) return false;
  /* the sign, flipped by a swap */
  ax = det_axes(ctx, d, 0, shape);
  MlcExpr *swapped = bin(ctx, MLC_BIN_NE, batch_read(ctx, d, piv, ax), kk);
  body = mlc_e_select(ctx, swapped, bin(ctx, MLC_BIN_SUB, f64(ctx, 0), batch_read(ctx, d, *sign, ax)), batch_read(ctx, d, *sign, ax));
  MlcTeTensor *nsign = mlc_te_compute(ctx, "det_sign", shape, d->nb, ax, body);
  /* rows k and pivot swapped */
  ax = det_axes(ctx, d, 2, shape);
  MlcExpr *r = ax[d->nb], *c = ax[d->nb + 1], *p = batch_read(ctx, d, piv, ax);
  MlcExpr *row = mlc_e_select(ctx, bin(ctx, MLC_BIN_EQ, r, kk), p, mlc_e_select(ctx, bin(ctx, MLC_BIN_EQ, r, p), kk, r));
  MlcTeTensor *s = mlc_te_compute(ctx, "det_swap", shape, d->nb + 2, ax, at(ctx, d, *m, ax, row, c));
  if (!nsign || !s) return false;
  /* the rows below eliminated */
  ax = det_axes(ctx, d, 2, shape);
  r = ax[d->nb], c = ax[d->nb + 1];
  MlcExpr *pv = at(ctx, d, s, ax, kk, kk), *v = at(ctx, d, s, ax, r, c);
  MlcExpr *factor = bin(ctx, MLC_BIN_DIV, at(ctx, d, s, ax, r, kk), mlc_e_select(ctx, bin(ctx, MLC_BIN_EQ, pv, f64(ctx, 0)), f64(ctx, 1), pv));
  MlcExpr *elim = bin(ctx, MLC_BIN_SUB, v, bin(ctx, MLC_BIN_MUL, factor, at(ctx, d, s, ax, kk, c)));
  MlcExpr *apply = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_GT, r, kk), bin(ctx, MLC_BIN_NE, pv, f64(ctx, 0)));
  *m = mlc_te_compute(ctx, "det_eliminate", shape, d->nb + 2, ax, mlc_e_select(ctx, apply, elim, v));
  *sign = nsign;
  return *m != NULL;
}

bool mlc_op_te_det(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs, int *n_outs) {
  const MlcSInfo *xs = mlc_op_tensor(ctx, a, 0, true);
  const MlcTeTensor *x = in[0];
  DetDims d = {x->ndim - 2, 0, x->shape};
  if (!xs || !det_n(ctx, a, xs, &d.n)) return false;
  MlcExpr *shape[DET_MAX_NDIM + 2];
  MlcExpr **ax = det_axes(ctx, &d, 2, shape);
  MlcTeTensor *m = mlc_te_compute(ctx, "det_f64", shape, d.nb + 2, ax, mlc_op_cast(ctx, MLC_F64, mlc_te_read(ctx, x, ax, d.nb + 2)));
  ax = det_axes(ctx, &d, 0, shape);
  MlcTeTensor *sign = mlc_te_compute(ctx, "det_sign0", shape, d.nb, ax, f64(ctx, 1));
  for (int64_t k = 0; m && sign && k + 1 < d.n; k++)
    if (!det_step(ctx, &d, k, &m, &sign)) return false;
  if (!m || !sign) return false;
  ax = det_axes(ctx, &d, 0, shape);
  MlcExpr *prod = batch_read(ctx, &d, sign, ax);
  for (int64_t k = 0; k < d.n; k++) prod = bin(ctx, MLC_BIN_MUL, prod, at(ctx, &d, m, ax, i64(ctx, k), i64(ctx, k)));
  outs[0] = mlc_te_compute(ctx, "det", shape, d.nb, ax, mlc_op_cast(ctx, x->dtype, prod));
  *n_outs = 1;
  return outs[0] != NULL;
}
