/* trilu.c - tril and triu: the lower / upper triangle of the last two dims,
 * the rest zero: one compute that selects between the input and 0 on the
 * difference of the column and row indices (k shifts the diagonal), so the
 * output has the input's shape, symbolic dims included. */
#include <string.h>

#include "ops/op_internal.h"

/* x where column - row <= k (tril) / >= k (triu) over the last two dims, else 0 */
bool mlc_op_te_trilu(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                     int *n_outs) {
  const MlcTeTensor *x = in[0];
  int64_t k;
  if (x->ndim < 2) return mlc_op_fail(ctx, a, "x must have at least 2 dims, got %d", x->ndim);
  if (!mlc_op_attr_int(ctx, a, "k", 0, &k)) return false;
  MlcExpr **axes = mlc_arena_array(&ctx->arena, (size_t)x->ndim, sizeof(MlcExpr *));
  mlc_op_axes(ctx, x->ndim, axes);
  MlcExpr *diff = mlc_e_bin(ctx, MLC_BIN_SUB, axes[x->ndim - 1], axes[x->ndim - 2]);
  bool lower = strcmp(a->op->name, "tril") == 0;
  MlcExpr *keep = mlc_e_bin(ctx, lower ? MLC_BIN_LE : MLC_BIN_GE, diff, mlc_op_i64(ctx, k));
  MlcExpr *body = mlc_e_select(ctx, keep, mlc_te_read(ctx, x, axes, x->ndim), mlc_op_const(ctx, x->dtype, 0));
  MlcTeTensor *t = mlc_te_compute(ctx, a->op->name, x->shape, x->ndim, axes, body);
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}
