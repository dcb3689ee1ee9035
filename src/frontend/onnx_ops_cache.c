/* onnx_ops_cache.c - the converter of ONNX's TensorScatter (a key/value
 * cache's update) composed of index arithmetic, gather_elements and where.
 *
 * past_cache (B, ..., L at axis, ...) takes update (B, ..., S at axis, ...)
 * at positions write_indices[b] + s along the axis (mod L in "circular"
 * mode; 0 when write_indices is absent); everything else keeps its past
 * value.  Read backwards, output position i of batch b holds update's
 * s = i - write_indices[b] (mod L) when 0 <= s < S, else the past: the
 * update's s is gathered along the axis (clamped into range, masked by
 * where).  The shapes must be static. */
#include <string.h>

#include "onnx_convert.h"

static MlcGExpr *emit_ints(MlcOnnxNode *n, const char *op, MlcGExpr *x, const char *key, const int64_t *v, int k) {
  MlcAttr a = attr(key, mlc_onnx__av_ints(n->im->ctx, v, k));
  return x ? mlc_onnx__emit_attrs(n, op, &x, 1, 1, &a) : NULL;
}

static MlcGExpr *binop(MlcOnnxNode *n, const char *op, MlcGExpr *x, MlcGExpr *y) {
  return x && y ? mlc_onnx__emit2(n, op, x, y) : NULL;
}

static MlcGExpr *i64_scalar(MlcOnnxNode *n, int64_t v) {
  return mlc_g_const(n->im->ctx, mlc_onnx__scalar(n->im->ctx, MLC_I64_T, (double)v));
}

bool mlc_onnx__conv_tensor_scatter(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *past = mlc_onnx__input(n, 0), *upd = mlc_onnx__input(n, 1);
  MlcGExpr *wi = n->n_in > 2 ? n->in[2] : NULL;
  int64_t axis, dims[MLC_ONNX_MAX_RANK], seq;
  int rank;
  if (!past || !upd || !need_rank(n, past, &rank) || !mlc_onnx__attr_int(n, "axis", -2, &axis)) return false;
  const char *mode = mlc_onnx__attr_str(n, "mode", "linear");
  bool circular = !strcmp(mode, "circular");
  if (!circular && strcmp(mode, "linear")) return mlc_onnx__node_fail(n, "mode '%s' is not supported (linear, circular)", mode);
  if (rank < 2 || mlc_onnx__rank(upd) != rank) return mlc_onnx__node_fail(n, "past_cache and update must have one rank, 2 or more");
  if (axis < 0) axis += rank;
  if (axis < 1 || axis >= rank) return mlc_onnx__node_fail(n, "axis must name a dim after the batch dim");
  for (int i = 0; i < rank; i++)
    if (!mlc_onnx__const_dim(past, i, &dims[i])) return mlc_onnx__node_fail(n, "symbolic cache dims are not supported");
  if (!mlc_onnx__const_dim(upd, (int)axis, &seq) || seq < 1 || seq > dims[axis])
    return mlc_onnx__node_fail(n, "update's sequence dim must be a constant from 1 to the cache's %lld", (long long)dims[axis]);
  if (dims[axis] > ((int64_t)1 << 24)) return mlc_onnx__node_fail(n, "a cache of more than 2^24 positions is not supported");
  /* the position along the axis, (1, ..., L, ..., 1) */
  int64_t pshape[MLC_ONNX_MAX_RANK], bshape[MLC_ONNX_MAX_RANK];
  for (int i = 0; i < rank; i++) pshape[i] = i == axis ? dims[i] : 1, bshape[i] = i == 0 ? dims[0] : 1;
  MlcTensorData *pd = mlc_tensor_data_new(ctx, MLC_I64_T, pshape, rank);
  if (!pd) return false;
  for (int64_t i = 0; i < dims[axis]; i++) ((int64_t *)pd->data)[i] = i;
  MlcGExpr *s = mlc_g_const(ctx, pd);
  if (wi) {
    MlcAttr c = attr("dtype", mlc_onnx__av_dtype(MLC_I64_T));
    MlcGExpr *w = mlc_onnx__emit_attrs(n, "astype", &wi, 1, 1, &c);
    s = binop(n, "subtract", s, emit_ints(n, "reshape", w, "shape", bshape, rank));
  }
  if (circular) s = binop(n, "floor_mod", s, i64_scalar(n, dims[axis]));
  MlcGExpr *valid = binop(n, "logical_and", binop(n, "greater_equal", s, i64_scalar(n, 0)),
                          binop(n, "less", s, i64_scalar(n, seq)));
  MlcGExpr *idx = binop(n, "minimum", binop(n, "maximum", s, i64_scalar(n, 0)), i64_scalar(n, seq - 1));
  int64_t ishape[MLC_ONNX_MAX_RANK];
  memcpy(ishape, dims, (size_t)rank * sizeof *ishape);
  MlcGExpr *ga[2] = {upd, emit_ints(n, "broadcast_to", idx, "shape", ishape, rank)};
  MlcAttr ax = attr("axis", mlc_onnx__av_int(axis));
  MlcGExpr *got = ga[1] ? mlc_onnx__emit_attrs(n, "gather_elements", ga, 2, 1, &ax) : NULL;
  MlcGExpr *args[3] = {valid, got, past};
  return (n->out[0] = valid && got ? mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}) : NULL) != NULL;
}
