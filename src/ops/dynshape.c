/* dynshape.c - struct info of the two ops through which sizes computed at
 * run time enter a graph.
 *
 * tensor_to_shape(data, like?, shape=[d0, d1, ...], mode=...) reads the
 * int32/int64 values of the 1-D tensor `data` when the model runs and binds
 * them to the dims of `shape`: an entry that is a symbolic var no earlier
 * binding or input defines is bound there (a size of its own from then on,
 * as an input's dim is); any other entry is checked equal to the value.
 * Its result is the shape R.Shape([d0, d1, ...]), so the vars are defined
 * by a binding's struct info, like a function parameter's.  The mode says
 * how the values become the shape:
 *   "values"             the values themselves, each checked non-negative;
 *   "reshape"            ONNX Reshape's target against `like`: 0 copies
 *                        like's dim at the same place, one -1 takes what is
 *                        left, and the product must equal like's numel;
 *   "reshape_allowzero"  the same with 0 meaning 0;
 *   "expand"             ONNX Expand's target broadcast with `like`'s shape
 *                        (the result has the larger rank).
 * The executor also caps every value (MLC_DYN_MAX_DIM) and the product of
 * all of them (MLC_DYN_MAX_NUMEL), so a hostile tensor cannot make the
 * model allocate without bound; a failed check is the run's error.
 *
 * reshape_dynamic(x, shape=[...]) is a reshape whose element count cannot be
 * proved equal at compile time (the target's dims were bound by
 * tensor_to_shape): the executor compares the counts when it runs and
 * copies x's bytes into a tensor of the new shape.  The plain reshape op
 * keeps refusing what it cannot prove, since its kernel would read past x.
 *
 * Neither has a tensor-expression definition: both are left to the
 * executor, as the allocation ops are.  tensor_to_shape counts as impure
 * (transform/util.c), so dead-code removal keeps the binding whose vars
 * later shapes use. */
#include <string.h>

#include "ops/op_internal.h"

/* the 1-D int tensor of static length whose values are read; its length */
static bool shape_data(MlcCtx *ctx, const MlcOpArgs *a, int64_t *len) {
  const MlcSInfo *d = mlc_op_tensor(ctx, a, 0, true);
  if (!d) return false;
  MlcDType t = d->tensor.dtype;
  if (t.code != MLC_TC_INT || (t.bits != 32 && t.bits != 64) || t.lanes != 1)
    return mlc_op_fail(ctx, a, "data: expected int32 or int64 values");
  if (d->tensor.ndim != 1 || !d->tensor.shape || !mlc_e_is_const_int(d->tensor.shape[0], len))
    return mlc_op_fail(ctx, a, "data: expected a 1-D tensor of static length, got %s", mlc_op_sinfo_str(ctx, d));
  return true;
}

MlcSInfo *mlc_op_infer_tensor_to_shape(MlcCtx *ctx, const MlcOpArgs *a) {
  MlcExpr **shape;
  int n;
  int64_t len;
  const char *mode;
  if (!shape_data(ctx, a, &len) || !mlc_op_attr_shape(ctx, a, "shape", &shape, &n) ||
      !mlc_op_attr_str(ctx, a, "mode", "values", &mode))
    return NULL;
  bool values = !strcmp(mode, "values"), expand = !strcmp(mode, "expand");
  bool reshape = !strcmp(mode, "reshape") || !strcmp(mode, "reshape_allowzero");
  if (!values && !expand && !reshape)
    return mlc_op_fail(ctx, a, "mode: expected \"values\", \"reshape\", \"reshape_allowzero\" or \"expand\", "
                               "got \"%s\"", mode), NULL;
  int li = mlc_op_param(a, "like");
  const MlcSInfo *like = NULL;
  if (values && a->val[li]) return mlc_op_fail(ctx, a, "like: not taken in mode \"values\""), NULL;
  if (!values && !(like = mlc_op_tensor(ctx, a, li, false))) return NULL;
  if (like && !like->tensor.shape) return mlc_op_fail(ctx, a, "like: expected a tensor of known shape"), NULL;
  int64_t want = expand && like->tensor.ndim > len ? like->tensor.ndim : len;
  if (n != want)
    return mlc_op_fail(ctx, a, "shape: expected %lld dims for %lld values in mode \"%s\", got %d", (long long)want,
                       (long long)len, mode, n), NULL;
  return mlc_sinfo_shape(ctx, shape, n);
}

MlcSInfo *mlc_op_infer_reshape_dynamic(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true);
  MlcExpr **shape;
  int n;
  if (!x || !mlc_op_attr_shape(ctx, a, "shape", &shape, &n)) return NULL;
  if (!x->tensor.shape) return mlc_op_fail(ctx, a, "x: expected a tensor of known shape"), NULL;
  return mlc_op_tensor_sinfo(ctx, shape, n, x->tensor.dtype);
}
