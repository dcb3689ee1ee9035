/* onnx_ops_dynslice.c - ONNX Slice whose starts, ends, axes or steps are
 * computed when the model runs (src/ops/dynslice.c): the four lists, each
 * made int64 (axes 0, 1, ... and steps 1 where absent), are joined into one
 * tensor, from which tensor_to_shape mode "slice" binds (and checks) the
 * output's dims and slice_dynamic's kernel reads the begins and steps.
 * Pad with run-time pads, axes or value does the same with [pads, axes]
 * (mode "pad", or "pad_copy" for edge, reflect and wrap) and pad_dynamic.
 * OneHot with a run-time depth binds it (mode "values", as int64) as the
 * output's dim, which one_hot_dynamic compares the indices with. */
#include <string.h>

#include "onnx_convert.h"

/* input i as an int64 tensor of q values, or the constant fill(j) for j < q when absent
 * (j itself when step_fill is 0) */
static MlcGExpr *list_of(MlcOnnxNode *n, int i, int64_t q, int64_t step_fill) {
  MlcCtx *ctx = n->im->ctx;
  if (i >= n->n_in || !n->in[i]) {
    int64_t v[MLC_ONNX_MAX_RANK];
    for (int64_t j = 0; j < q; j++) v[j] = step_fill ? step_fill : j;
    return mlc_onnx__const(n, mlc_onnx__i64s(ctx, v, (int)q));
  }
  MlcGExpr *t = mlc_onnx__input(n, i);
  int64_t len;
  MlcDType dt = mlc_onnx__dtype_of(t);
  if (mlc_onnx__rank(t) != 1 || !mlc_onnx__const_dim(t, 0, &len) || dt.code != MLC_TC_INT ||
      (dt.bits != 32 && dt.bits != 64))
    return mlc_onnx__node_fail(n, "input %d: a 1-D int32 or int64 tensor of static length is expected", i), NULL;
  if (len != q) return mlc_onnx__node_fail(n, "input %d: %lld values where starts has %lld", i, (long long)len, (long long)q), NULL;
  if (dt.bits == 64) return t;
  MlcAttr a = attr("dtype", mlc_onnx__av_dtype(MLC_I64_T));
  return mlc_onnx__emit_attrs(n, "astype", &t, 1, 1, &a);
}

bool mlc_onnx__slice_runtime(MlcOnnxNode *n, MlcGExpr *x, int rank) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *starts = mlc_onnx__input(n, 1);
  int64_t q;
  if (!starts) return false;
  if (mlc_onnx__rank(starts) != 1 || !mlc_onnx__const_dim(starts, 0, &q) || q < 1)
    return mlc_onnx__node_fail(n, "starts: a 1-D tensor of static, non-zero length is expected");
  /* tensor_to_shape reads at most 64 values: 4 per sliced axis */
  if (q > 16 || q > rank) return mlc_onnx__node_fail(n, "%lld axes sliced for a tensor of rank %d", (long long)q, rank);
  MlcGExpr *parts[4];
  if (!mlc_onnx__input(n, 2)) return false; /* ends is required; axes and steps have defaults */
  for (int i = 0; i < 4; i++)
    if (!(parts[i] = list_of(n, i + 1, q, i == 3 ? 1 : 0))) return false;
  MlcGExpr *tuple = mlc_g_tuple(ctx, parts, 4);
  MlcAttr ca = attr("axis", mlc_onnx__av_int(0));
  MlcGExpr *params = tuple ? mlc_onnx__emit_attrs(n, "concat", &tuple, 1, 1, &ca) : NULL;
  if (!params) return false;
  MlcExpr *dims[MLC_ONNX_MAX_RANK];
  for (int d = 0; d < rank; d++) dims[d] = mlc_e_var(ctx, mlc_internf(ctx, "r%u", n->im->fresh++), MLC_I64_T);
  MlcGExpr *args[2] = {params, x};
  MlcAttr ta[2] = {attr("shape", mlc_onnx__av_exprs(ctx, dims, rank)), attr("mode", mlc_onnx__av_str(ctx, "slice"))};
  if (!mlc_onnx__emit_attrs(n, "tensor_to_shape", args, 2, 2, ta)) return false;
  MlcGExpr *xs[2] = {x, params};
  MlcAttr sa = attr("shape", mlc_onnx__av_exprs(ctx, dims, rank));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "slice_dynamic", xs, 2, 1, &sa)) != NULL;
}

bool mlc_onnx__pad_runtime(MlcOnnxNode *n, MlcGExpr *x, int rank, const char *mode) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *pads = mlc_onnx__input(n, 1);
  int64_t len;
  if (!pads) return false;
  if (mlc_onnx__rank(pads) != 1 || !mlc_onnx__const_dim(pads, 0, &len) || len < 2 || len % 2 != 0)
    return mlc_onnx__node_fail(n, "pads: a 1-D tensor of static, even, non-zero length is expected");
  int64_t q = len / 2;
  bool axes_given = n->n_in > 3 && n->in[3];
  /* tensor_to_shape reads at most 64 values: 3 per padded axis */
  if (q > 21 || q > rank || (!axes_given && q != rank))
    return mlc_onnx__node_fail(n, "pads has %lld values for a tensor of rank %d", (long long)len, rank);
  MlcGExpr *parts[2] = {list_of(n, 1, len, 0), NULL};
  if (!parts[0] || !(parts[1] = list_of(n, 3, q, 0))) return false;
  MlcGExpr *value;
  MlcDType xt = mlc_onnx__dtype_of(x);
  if (n->n_in > 2 && n->in[2]) {
    value = n->in[2];
    int64_t one;
    int vr = mlc_onnx__rank(value);
    if (!mlc_dtype_eq(mlc_onnx__dtype_of(value), xt) || vr > 1 || vr < 0 ||
        (vr == 1 && (!mlc_onnx__const_dim(value, 0, &one) || one != 1)))
      return mlc_onnx__node_fail(n, "constant_value: one element of the input's dtype is expected");
  } else {
    value = mlc_onnx__const(n, mlc_onnx__scalar(ctx, xt, 0));
  }
  MlcGExpr *tuple = mlc_g_tuple(ctx, parts, 2);
  MlcAttr ca = attr("axis", mlc_onnx__av_int(0));
  MlcGExpr *params = tuple && value ? mlc_onnx__emit_attrs(n, "concat", &tuple, 1, 1, &ca) : NULL;
  if (!params) return false;
  MlcExpr *dims[MLC_ONNX_MAX_RANK];
  for (int d = 0; d < rank; d++) dims[d] = mlc_e_var(ctx, mlc_internf(ctx, "r%u", n->im->fresh++), MLC_I64_T);
  MlcGExpr *args[2] = {params, x};
  const char *tmode = strcmp(mode, "constant") ? "pad_copy" : "pad";
  MlcAttr ta[2] = {attr("shape", mlc_onnx__av_exprs(ctx, dims, rank)), attr("mode", mlc_onnx__av_str(ctx, tmode))};
  if (!mlc_onnx__emit_attrs(n, "tensor_to_shape", args, 2, 2, ta)) return false;
  MlcGExpr *xs[3] = {x, params, value};
  MlcAttr pa[2] = {attr("shape", mlc_onnx__av_exprs(ctx, dims, rank)), attr("pad_mode", mlc_onnx__av_str(ctx, mode))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "pad_dynamic", xs, 3, 2, pa)) != NULL;
}

bool mlc_onnx__onehot_runtime(MlcOnnxNode *n, MlcGExpr *ind, int64_t axis) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *depth = mlc_onnx__input(n, 1), *values = mlc_onnx__input(n, 2);
  int64_t one, two;
  int rank = mlc_onnx__rank(ind), dr = depth ? mlc_onnx__rank(depth) : -1;
  if (!values || !depth) return false;
  if (rank < 0 || rank + 1 > MLC_ONNX_MAX_RANK) return mlc_onnx__node_fail(n, "indices of unknown or too large rank");
  if (dr < 0 || dr > 1 || (dr == 1 && (!mlc_onnx__const_dim(depth, 0, &one) || one != 1)))
    return mlc_onnx__node_fail(n, "depth: one element is expected");
  if (mlc_onnx__rank(values) != 1 || !mlc_onnx__const_dim(values, 0, &two) || two != 2)
    return mlc_onnx__node_fail(n, "values must hold 2 elements (off, on)");
  if (axis < -rank - 1 || axis > rank) return mlc_onnx__node_fail(n, "axis %lld is out of range", (long long)axis);
  if (axis < 0) axis += rank + 1;
  if (!mlc_dtype_is_int(mlc_onnx__dtype_of(ind))) {
    MlcAttr c = attr("dtype", mlc_onnx__av_dtype(MLC_I64_T));
    if (!(ind = mlc_onnx__emit_attrs(n, "astype", &ind, 1, 1, &c))) return false;
  }
  /* depth as a 1-D int64 tensor of one value (a float depth truncated, as ONNX casts it) */
  int64_t len1 = 1;
  MlcAttr ra = attr("shape", mlc_onnx__av_ints(ctx, &len1, 1));
  if (dr == 0 && !(depth = mlc_onnx__emit_attrs(n, "reshape", &depth, 1, 1, &ra))) return false;
  if (!mlc_dtype_eq(mlc_onnx__dtype_of(depth), MLC_I64_T)) {
    MlcAttr c = attr("dtype", mlc_onnx__av_dtype(MLC_I64_T));
    if (!(depth = mlc_onnx__emit_attrs(n, "astype", &depth, 1, 1, &c))) return false;
  }
  MlcExpr *d, *dims[MLC_ONNX_MAX_RANK];
  int k;
  if (!mlc_onnx__runtime_shape(n, depth, NULL, "values", &d, 1, &k)) return false;
  const MlcSInfo *s = mlc_onnx__tensor_sinfo(ind);
  if (!s || !s->tensor.shape) return mlc_onnx__node_fail(n, "indices of unknown shape");
  for (int i = 0, j = 0; i <= rank; i++) dims[i] = i == axis ? d : s->tensor.shape[j++];
  MlcGExpr *args[2] = {ind, values};
  MlcAttr a[2] = {attr("shape", mlc_onnx__av_exprs(ctx, dims, rank + 1)), attr("axis", mlc_onnx__av_int(axis))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "one_hot_dynamic", args, 2, 2, a)) != NULL;
}
