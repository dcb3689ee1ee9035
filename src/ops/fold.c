/* fold.c - an op call on constants evaluated at compile time: the op's prim
 * func run by the reference interpreter on the constants, the result a new
 * constant.  The importer folds shape computations with it, the graph pass
 * fold_constants the work that depends only on weights.  The interpreter is
 * the oracle every test trusts, so a folded value is the value the compiled
 * code would have computed, up to the C compiler's FMA contraction. */
#include "mlcc/interp.h"
#include "mlcc/ops.h"


static bool static_numel(const MlcSInfo *s, int64_t *numel, int64_t *shape, int64_t max_numel) {
  if (!s || s->kind != MLC_SINFO_TENSOR || s->tensor.ndim < 0 || !s->tensor.shape) return false;
  int64_t k = 1;
  for (int i = 0; i < s->tensor.ndim; i++) {
    if (!mlc_e_is_const_int(s->tensor.shape[i], &shape[i]) || shape[i] < 0) return false;
    k *= shape[i];
    if (k > max_numel) return false;
  }
  *numel = k;
  return true;
}

/* the constant tensors of a call's arguments, a tuple argument (concat's)
 * giving one per field, as the legalized prim func takes them; false when
 * one is not constant or there are more than cap */
static bool const_args(const MlcGExpr *call, const MlcTensorData **out, int cap, int *n) {
  *n = 0;
  for (int i = 0; i < call->call.n; i++) {
    const MlcGExpr *a = call->call.args[i];
    const MlcGExpr *const *items = &a;
    int k = 1;
    if (a->kind == MLC_G_TUPLE) items = (const MlcGExpr *const *)a->tuple.fields, k = a->tuple.n;
    for (int j = 0; j < k; j++) {
      if (items[j]->kind != MLC_G_CONST || *n >= cap) return false;
      out[(*n)++] = items[j]->constant;
    }
  }
  return true;
}

MlcGExpr *mlc_op_fold(MlcCtx *ctx, const MlcGExpr *call, int64_t max_numel) {
  if (call->kind != MLC_G_CALL || call->call.callee->kind != MLC_G_OP) return NULL;
  const MlcOpDef *op = mlc_op_find(call->call.callee->str);
  const MlcTensorData *in[16];
  int n_in;
  if (!mlc_op_legalizable(op) || !const_args(call, in, 16, &n_in)) return NULL;
  int64_t numel, shape[32];
  if (call->sinfo->kind != MLC_SINFO_TENSOR || call->sinfo->tensor.ndim > 32 ||
      !static_numel(call->sinfo, &numel, shape, max_numel))
    return NULL;
  MlcPrimFunc *f = mlc_op_to_prim_func(ctx, call, "fold");
  if (!f || f->n_params != n_in + 1) return mlc_clear_error(ctx), NULL;
  MlcInterpArg args[17];
  for (int i = 0; i < n_in; i++)
    args[i] = (MlcInterpArg){.is_buffer = true, .data = in[i]->data, .ndim = in[i]->ndim, .shape = in[i]->shape};
  MlcTensorData *out = mlc_tensor_data_new(ctx, call->sinfo->tensor.dtype, shape, call->sinfo->tensor.ndim);
  args[n_in] = (MlcInterpArg){.is_buffer = true, .data = out->data, .ndim = out->ndim, .shape = out->shape};
  if (!mlc_interp_run(ctx, f, args, f->n_params)) return mlc_clear_error(ctx), NULL;
  return mlc_g_const(ctx, out);
}
