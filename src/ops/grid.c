/* grid.c - image.affine_grid(theta, shape=[..spatial..], align_corners):
 * the sampling grid of an affine transform (ONNX AffineGrid), for 2-D
 * (theta (N, 2, 3), grid (N, H, W, 2)) and 3-D (theta (N, 3, 4), grid
 * (N, D, H, W, 3)).
 *
 * grid[n, p.., i] = sum_j theta[n, i, j] c_j with c = (x, y[, z], 1) the
 * normalized coordinates of the point (x along the last spatial dim): of
 * position p in a dim of size S, -1 + (2p + 1) / S, or with align_corners
 * -1 + 2p / (S - 1) (-1 when S is 1), in float64.  The spatial sizes may be
 * symbolic (read when the model runs), so the coordinates are computed in
 * the kernel. */
#include "ops/op_internal.h"

static bool grid_args(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo **th, MlcExpr ***sp, int *nd, bool *align) {
  *th = mlc_op_tensor(ctx, a, 0, true);
  if (!*th || !mlc_op_attr_shape(ctx, a, "shape", sp, nd) || !mlc_op_attr_bool(ctx, a, "align_corners", false, align))
    return false;
  if (*nd != 2 && *nd != 3) return mlc_op_fail(ctx, a, "shape: expected 2 or 3 spatial dims, got %d", *nd);
  const MlcSInfo *t = *th;
  int64_t r, c;
  if (t->tensor.ndim != 3 || !t->tensor.shape || !mlc_e_is_const_int(t->tensor.shape[1], &r) ||
      !mlc_e_is_const_int(t->tensor.shape[2], &c) || r != *nd || c != *nd + 1)
    return mlc_op_fail(ctx, a, "theta must be (N, %d, %d) for %d spatial dims, got %s", *nd, *nd + 1, *nd,
                       mlc_op_sinfo_str(ctx, t));
  if (!mlc_dtype_is_float(t->tensor.dtype)) return mlc_op_fail(ctx, a, "theta must be floating-point");
  return true;
}

MlcSInfo *mlc_op_infer_affine_grid(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *th;
  MlcExpr **sp, *shape[5];
  int nd;
  bool align;
  if (!grid_args(ctx, a, &th, &sp, &nd, &align)) return NULL;
  shape[0] = th->tensor.shape[0];
  for (int i = 0; i < nd; i++) shape[1 + i] = sp[i];
  shape[1 + nd] = mlc_op_i64(ctx, nd);
  return mlc_op_tensor_sinfo(ctx, shape, nd + 2, th->tensor.dtype);
}

/* the normalized coordinate of position p in a dim of size s */
static MlcExpr *coord(MlcCtx *ctx, MlcExpr *p, MlcExpr *s, bool align) {
  MlcExpr *pf = mlc_e_cast(ctx, MLC_F64, p), *sf = mlc_e_cast(ctx, MLC_F64, s), *one = mlc_e_float(ctx, MLC_F64, 1);
  if (!align) {
    MlcExpr *num = mlc_e_bin(ctx, MLC_BIN_ADD, mlc_e_bin(ctx, MLC_BIN_MUL, pf, mlc_e_float(ctx, MLC_F64, 2)), one);
    return mlc_e_bin(ctx, MLC_BIN_SUB, mlc_e_bin(ctx, MLC_BIN_DIV, num, sf), one);
  }
  MlcExpr *den = mlc_e_bin(ctx, MLC_BIN_MAX, mlc_e_bin(ctx, MLC_BIN_SUB, sf, one), one);
  MlcExpr *v = mlc_e_bin(ctx, MLC_BIN_SUB, mlc_e_bin(ctx, MLC_BIN_DIV, mlc_e_bin(ctx, MLC_BIN_MUL, pf, mlc_e_float(ctx, MLC_F64, 2)), den), one);
  return mlc_e_select(ctx, mlc_e_bin(ctx, MLC_BIN_GT, s, mlc_op_i64(ctx, 1)), v, mlc_e_float(ctx, MLC_F64, -1));
}

bool mlc_op_te_affine_grid(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs, int *n_outs) {
  const MlcSInfo *th, *out = mlc_op_infer_affine_grid(ctx, a);
  MlcExpr **sp, *ax[5];
  int nd;
  bool align;
  if (!out || !grid_args(ctx, a, &th, &sp, &nd, &align)) return false;
  const MlcTeTensor *t = in[0];
  mlc_op_axes(ctx, nd + 2, ax);
  /* c_j: x is the last spatial dim's coordinate, then the ones before it */
  MlcExpr *sum = NULL;
  for (int j = 0; j <= nd; j++) {
    MlcExpr *cj = j == nd ? mlc_e_float(ctx, MLC_F64, 1) : coord(ctx, ax[nd - j], sp[nd - 1 - j], align);
    MlcExpr *ti[3] = {ax[0], ax[nd + 1], mlc_op_i64(ctx, j)};
    MlcExpr *term = mlc_e_bin(ctx, MLC_BIN_MUL, mlc_op_cast(ctx, MLC_F64, mlc_te_read(ctx, t, ti, 3)), cj);
    sum = sum ? mlc_e_bin(ctx, MLC_BIN_ADD, sum, term) : term;
  }
  outs[0] = mlc_te_compute(ctx, "affine_grid", out->tensor.shape, nd + 2, ax, mlc_op_cast(ctx, t->dtype, sum));
  *n_outs = 1;
  return outs[0] != NULL;
}
