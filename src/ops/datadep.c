/* datadep.c - the filling kernel of ops whose output size is known only
 * once they have run (ONNX NonZero, Compress).
 *
 * Such an op is three steps in the graph: a counting kernel (the sum of a
 * 0/1 mask), the executor reading that count into a fresh size var
 * (tensor_to_shape, src/ops/dynshape.c, which caps it and makes a failed
 * check the run's error), and a filling kernel over an output of that
 * size, allocated at run time.  compact_index is that filling kernel:
 *
 * compact_index(counts, shape=[n], dims=[d0, ...]?) reads `counts`, the
 * inclusive prefix sums (cumsum) of a 0/1 mask of static length N, and
 * writes the positions of the mask's ones in order: out[j] = the i where
 * the running count first reaches j + 1, that is counts[i] == j + 1 and
 * (i == 0 or counts[i - 1] == j).  With `dims` (whose product is N) each
 * position is unravelled in row-major order: out[d, j] is its coordinate
 * along dim d, the result [len(dims), n] as ONNX NonZero returns it.
 *
 * The kernel is a sum over i of the one matching position, so it costs
 * N * n steps; every read stays inside `counts` whatever its values (the
 * previous count is read at max(i - 1, 0)), and a j no position matches
 * (only possible when n exceeds the mask's count) reads 0. */
#include "mlcc/arith.h"
#include "ops/op_internal.h"

#define MAX_DIMS 32

/* counts (1-D int64), the output's length and the dims to unravel by (*nd -1: none) */
static bool compact_args(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo **c, MlcExpr **len, int64_t *dims,
                         int *nd) {
  MlcExpr **shape;
  int n;
  bool present;
  if (!(*c = mlc_op_tensor(ctx, a, 0, true)) || !mlc_op_attr_shape(ctx, a, "shape", &shape, &n) ||
      !mlc_op_attr_ints(ctx, a, "dims", dims, MAX_DIMS, nd, &present))
    return false;
  if (!present) *nd = -1;
  MlcDType t = (*c)->tensor.dtype;
  if (t.code != MLC_TC_INT || t.bits != 64 || t.lanes != 1 || (*c)->tensor.ndim != 1 || !(*c)->tensor.shape)
    return mlc_op_fail(ctx, a, "counts: expected a 1-D int64 tensor");
  if (n != 1) return mlc_op_fail(ctx, a, "shape: expected one dim (the count), got %d", n);
  *len = shape[0];
  if (*nd < 0) return true;
  int64_t total, prod = 1;
  if (*nd == 0) return mlc_op_fail(ctx, a, "dims: expected at least one dim");
  for (int d = 0; d < *nd; d++) {
    if (dims[d] < 0 || (dims[d] > 0 && prod > INT64_MAX / dims[d])) return mlc_op_fail(ctx, a, "dims: a dim out of range");
    prod *= dims[d];
  }
  if (!mlc_e_is_const_int((*c)->tensor.shape[0], &total) || total != prod)
    return mlc_op_fail(ctx, a, "dims: their product (%lld) must be the static length of counts", (long long)prod);
  return true;
}

MlcSInfo *mlc_op_infer_compact_index(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *c;
  MlcExpr *len;
  int64_t dims[MAX_DIMS];
  int nd;
  if (!compact_args(ctx, a, &c, &len, dims, &nd)) return NULL;
  if (nd < 0) return mlc_op_tensor_sinfo(ctx, &len, 1, MLC_I64);
  MlcExpr *shape[2] = {mlc_op_i64(ctx, nd), len};
  return mlc_op_tensor_sinfo(ctx, shape, 2, MLC_I64);
}

bool mlc_op_te_compact_index(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                             int *n_outs) {
  const MlcSInfo *c;
  MlcExpr *len;
  int64_t dims[MAX_DIMS];
  int nd;
  if (!compact_args(ctx, a, &c, &len, dims, &nd)) return false;
  const MlcTeTensor *cnt = in[0];
  MlcExpr *ax[2], *i = mlc_te_var(ctx, mlc_intern(ctx, "i"));
  mlc_op_axes(ctx, nd < 0 ? 1 : 2, ax);
  MlcExpr *j = nd < 0 ? ax[0] : ax[1], *one = mlc_op_i64(ctx, 1);
  MlcExpr *prev_i = mlc_e_bin(ctx, MLC_BIN_MAX, mlc_e_bin(ctx, MLC_BIN_SUB, i, one), mlc_op_i64(ctx, 0));
  MlcExpr *here = mlc_e_bin(ctx, MLC_BIN_EQ, mlc_te_read(ctx, cnt, &i, 1), mlc_e_bin(ctx, MLC_BIN_ADD, j, one));
  MlcExpr *first = mlc_e_bin(ctx, MLC_BIN_OR, mlc_e_bin(ctx, MLC_BIN_EQ, i, mlc_op_i64(ctx, 0)),
                             mlc_e_bin(ctx, MLC_BIN_EQ, mlc_te_read(ctx, cnt, &prev_i, 1), j));
  MlcExpr *val = i;
  if (nd >= 0) {
    /* coordinate ax[0] of position i: (i / stride_d) % dims_d, the dim picked by a select chain */
    MlcExpr *coord = mlc_op_i64(ctx, 0);
    int64_t stride = 1;
    for (int d = nd - 1; d >= 0; d--) {
      MlcExpr *cd = mlc_e_bin(ctx, MLC_BIN_FLOORDIV, i, mlc_op_i64(ctx, stride));
      if (dims[d] > 0) cd = mlc_e_bin(ctx, MLC_BIN_FLOORMOD, cd, mlc_op_i64(ctx, dims[d]));
      coord = mlc_op_select(ctx, mlc_e_bin(ctx, MLC_BIN_EQ, ax[0], mlc_op_i64(ctx, d)), cd, coord);
      stride *= dims[d] > 0 ? dims[d] : 1;
    }
    val = coord;
  }
  MlcExpr *body = mlc_op_select(ctx, mlc_e_bin(ctx, MLC_BIN_AND, here, first), val, mlc_op_i64(ctx, 0));
  MlcExpr *shape[2] = {nd < 0 ? len : mlc_op_i64(ctx, nd), len};
  MlcExpr *ext = cnt->shape[0];
  MlcTeTensor *t = mlc_te_reduce(ctx, "T_compact_index", shape, nd < 0 ? 1 : 2, ax, MLC_TE_SUM, body, &i, &ext, 1);
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}
