/* col2im.c - image.col2im(data, taps, shape=[C, S..], strides?,
 * dilations?, pads?): the blocks of data (N, C * prod(k), L) summed back
 * into an image (N, C, S..) (ONNX Col2Im), for 1 to 4 spatial dims; the
 * block shape k is the shape of `taps` (whose values are not read: its
 * buffer is how sizes read at run time reach the kernel); pads are nd
 * begins then nd ends.
 *
 * Written as a gather, as a transposed convolution is: output position o
 * of spatial dim i receives block position b through tap r when
 * o + pad_begin = b * stride + r * dilation, so the reduction runs over the
 * taps and keeps those whose t = o + pad_begin - r * dilation is a
 * non-negative multiple of the stride below nb * stride, with
 * nb = (S + pads - dilation (k - 1) - 1) / stride + 1 blocks along the dim.
 * The image and block sizes may be symbolic (read when the model runs), so
 * nb is computed in the kernel; the importer checks there that the blocks
 * fit data's dims (C * prod(k) channels, prod(nb) = L).  Every read is
 * clamped into data, so no size, however wrong, reads outside it. */
#include "ops/op_internal.h"

#define COL_MAX_ND 4

typedef struct Col2Im {
  int nd;
  MlcExpr **shape, **block; /* shape: C then the spatial sizes */
  int64_t strides[COL_MAX_ND], dil[COL_MAX_ND], pads[2 * COL_MAX_ND];
} Col2Im;

static bool col_plan(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo **x, Col2Im *p) {
  int ns, nb;
  *x = mlc_op_tensor(ctx, a, 0, true);
  const MlcSInfo *taps = *x ? mlc_op_tensor(ctx, a, 1, false) : NULL;
  if (!taps || !mlc_op_attr_shape(ctx, a, "shape", &p->shape, &ns)) return false;
  nb = p->nd = taps->tensor.ndim;
  p->block = taps->tensor.shape;
  if (nb < 1 || nb > COL_MAX_ND || !p->block)
    return mlc_op_fail(ctx, a, "taps: expected 1 to %d known dims (the block shape), got %s", COL_MAX_ND, mlc_op_sinfo_str(ctx, taps));
  if (ns != nb + 1) return mlc_op_fail(ctx, a, "shape: expected %d dims (C and one per block dim), got %d", nb + 1, ns);
  if ((*x)->tensor.ndim != 3 || !(*x)->tensor.shape)
    return mlc_op_fail(ctx, a, "data must be (N, C * block size, blocks), got %s", mlc_op_sinfo_str(ctx, *x));
  if (!mlc_dtype_is_float((*x)->tensor.dtype)) return mlc_op_fail(ctx, a, "data must be floating-point");
  return mlc_op_attr_ints_n(ctx, a, "strides", nb, 1, 1, p->strides) && mlc_op_attr_ints_n(ctx, a, "dilations", nb, 1, 1, p->dil) &&
         mlc_op_attr_ints_n(ctx, a, "pads", 2 * nb, 0, 0, p->pads);
}

MlcSInfo *mlc_op_infer_col2im(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x;
  Col2Im p;
  if (!col_plan(ctx, a, &x, &p)) return NULL;
  MlcExpr *shape[2 + COL_MAX_ND];
  shape[0] = x->tensor.shape[0];
  for (int i = 0; i <= p.nd; i++) shape[1 + i] = p.shape[i];
  return mlc_op_tensor_sinfo(ctx, shape, p.nd + 2, x->tensor.dtype);
}

static MlcExpr *bin(MlcCtx *ctx, MlcBinOp op, MlcExpr *x, MlcExpr *y) { return mlc_e_bin(ctx, op, x, y); }

bool mlc_op_te_col2im(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs, int *n_outs) {
  const MlcSInfo *xs, *out = mlc_op_infer_col2im(ctx, a);
  Col2Im p;
  if (!out || !col_plan(ctx, a, &xs, &p)) return false;
  const MlcTeTensor *x = in[0];
  int rank = p.nd + 2;
  MlcExpr *ax[2 + COL_MAX_ND], *rv[COL_MAX_ND], *valid = NULL, *zero = mlc_op_i64(ctx, 0), *one = mlc_op_i64(ctx, 1);
  mlc_op_axes(ctx, rank, ax);
  MlcExpr *chan = ax[1], *col = zero;
  for (int i = 0; i < p.nd; i++) {
    rv[i] = mlc_te_var(ctx, mlc_internf(ctx, "r%d", i));
    MlcExpr *s = mlc_op_i64(ctx, p.strides[i]);
    MlcExpr *t = bin(ctx, MLC_BIN_SUB, bin(ctx, MLC_BIN_ADD, ax[2 + i], mlc_op_i64(ctx, p.pads[i])),
                     bin(ctx, MLC_BIN_MUL, rv[i], mlc_op_i64(ctx, p.dil[i])));
    MlcExpr *span = bin(ctx, MLC_BIN_MUL, mlc_op_i64(ctx, p.dil[i]), bin(ctx, MLC_BIN_SUB, p.block[i], one));
    MlcExpr *num = bin(ctx, MLC_BIN_SUB, bin(ctx, MLC_BIN_ADD, p.shape[1 + i], mlc_op_i64(ctx, p.pads[i] + p.pads[p.nd + i] - 1)), span);
    MlcExpr *nb = bin(ctx, MLC_BIN_ADD, bin(ctx, MLC_BIN_FLOORDIV, num, s), one);
    MlcExpr *b = bin(ctx, MLC_BIN_FLOORDIV, t, s);
    MlcExpr *ok = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_GE, t, zero), bin(ctx, MLC_BIN_LT, b, nb));
    if (p.strides[i] != 1) ok = bin(ctx, MLC_BIN_AND, ok, bin(ctx, MLC_BIN_EQ, bin(ctx, MLC_BIN_FLOORMOD, t, s), zero));
    valid = valid ? bin(ctx, MLC_BIN_AND, valid, ok) : ok;
    chan = bin(ctx, MLC_BIN_ADD, bin(ctx, MLC_BIN_MUL, chan, p.block[i]), rv[i]);
    col = bin(ctx, MLC_BIN_ADD, bin(ctx, MLC_BIN_MUL, col, nb), b);
  }
  MlcExpr *xi[3] = {ax[0], bin(ctx, MLC_BIN_MIN, chan, bin(ctx, MLC_BIN_SUB, x->shape[1], one)),
                    bin(ctx, MLC_BIN_MAX, bin(ctx, MLC_BIN_MIN, col, bin(ctx, MLC_BIN_SUB, x->shape[2], one)), zero)};
  MlcExpr *body = mlc_op_select(ctx, valid, mlc_te_read(ctx, x, xi, 3), mlc_op_const(ctx, x->dtype, 0));
  outs[0] = mlc_te_reduce(ctx, "col2im", out->tensor.shape, rank, ax, MLC_TE_SUM, body, rv, p.block, p.nd);
  *n_outs = 1;
  return outs[0] != NULL;
}
