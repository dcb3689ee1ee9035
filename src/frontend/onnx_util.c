/* onnx_util.c - small builders the converters share, and constant folding.
 *
 * Folding: an op call whose tensor arguments are all constants, and whose
 * result is one small tensor of static shape, is computed at import time by
 * running its legalized prim func in the reference interpreter.  That is
 * what turns the Shape -> Gather -> Concat -> Reshape chains exported
 * models are full of into constant shapes, with no folding rules to keep in
 * step with the ops: the op's own definition computes it. */
#include <string.h>

#include "mlcc/interp.h"
#include "mlcc/ops.h"
#include "onnx_convert.h"

#define FOLD_MAX_NUMEL 65536

MlcTensorData *mlc_onnx__scalar(MlcCtx *ctx, MlcDType t, double v) {
  MlcTensorData *d = mlc_arena_alloc(&ctx->arena, sizeof *d);
  d->dtype = t;
  d->ndim = 0;
  d->shape = mlc_arena_alloc(&ctx->arena, sizeof(int64_t));
  d->nbytes = mlc_dtype_bytes(t);
  d->data = mlc_arena_alloc(&ctx->arena, 8);
  switch (t.code) {
  case MLC_TC_FLOAT:
    if (t.bits == 64) *(double *)d->data = v;
    else if (t.bits == 16) *(uint16_t *)d->data = mlc_f32_to_f16((float)v);
    else *(float *)d->data = (float)v;
    break;
  case MLC_TC_BFLOAT: *(uint16_t *)d->data = mlc_f32_to_bf16((float)v); break;
  MLC_TC_MINIFLOAT_CASES: *(uint8_t *)d->data = (uint8_t)mlc_minifloat_encode(t, (float)v); break;
  case MLC_TC_BOOL: *(uint8_t *)d->data = v != 0; break;
  case MLC_TC_UINT: {
    /* through int64 (out of range gives 0, as the interpreter's cast does);
     * narrowing an unsigned value wraps */
    uint64_t u = (uint64_t)mlc_f64_to_i64(v);
    if (t.bits <= 8) *(uint8_t *)d->data = (uint8_t)u;
    else if (t.bits == 16) *(uint16_t *)d->data = (uint16_t)u;
    else if (t.bits == 32) *(uint32_t *)d->data = (uint32_t)u;
    else *(uint64_t *)d->data = u;
    break;
  }
  default: {
    uint64_t u = (uint64_t)mlc_f64_to_i64(v);
    if (t.bits <= 8) *(int8_t *)d->data = (int8_t)(uint8_t)u;
    else if (t.bits == 16) *(int16_t *)d->data = (int16_t)(uint16_t)u;
    else if (t.bits == 32) *(int32_t *)d->data = (int32_t)(uint32_t)u;
    else *(int64_t *)d->data = (int64_t)u;
  }
  }
  return d;
}

MlcTensorData *mlc_onnx__i64s(MlcCtx *ctx, const int64_t *v, int n) {
  MlcTensorData *d = mlc_arena_alloc(&ctx->arena, sizeof *d);
  d->dtype = MLC_I64_T;
  d->ndim = 1;
  d->shape = mlc_arena_alloc(&ctx->arena, sizeof(int64_t));
  d->shape[0] = n;
  d->nbytes = (size_t)n * 8;
  d->data = mlc_arena_alloc(&ctx->arena, d->nbytes ? d->nbytes : 1);
  if (n) memcpy(d->data, v, d->nbytes);
  return d;
}

int mlc_onnx__rank(const MlcGExpr *e) {
  const MlcSInfo *s = mlc_onnx__tensor_sinfo(e);
  return s ? s->tensor.ndim : -1;
}

MlcDType mlc_onnx__dtype_of(const MlcGExpr *e) {
  const MlcSInfo *s = e && e->sinfo && e->sinfo->kind == MLC_SINFO_TENSOR ? e->sinfo : NULL;
  return s ? s->tensor.dtype : MLC_DT(MLC_TC_VOID, 0, 0);
}

bool mlc_onnx__const_dim(const MlcGExpr *e, int d, int64_t *out) {
  const MlcSInfo *s = mlc_onnx__tensor_sinfo(e);
  return s && s->tensor.shape && d >= 0 && d < s->tensor.ndim && mlc_e_is_const_int(s->tensor.shape[d], out);
}

MlcGExpr *mlc_onnx__input(MlcOnnxNode *n, int i) {
  if (i < n->n_in && n->in[i]) return n->in[i];
  return mlc_onnx__node_fail(n, "input %d is missing", i), NULL;
}

static const MlcTensorData *known(MlcOnnxNode *n, int i) {
  if (i >= n->n_in || !n->in[i]) return NULL;
  if (n->known_in[i]) return n->known_in[i];
  return n->in[i]->kind == MLC_G_CONST ? n->in[i]->constant : NULL;
}

static bool numel_of(const MlcTensorData *d, int64_t *out) {
  int64_t k = 1;
  for (int i = 0; i < d->ndim; i++) k *= d->shape[i];
  *out = k;
  return true;
}

bool mlc_onnx__known_ints(MlcOnnxNode *n, int i, int64_t *out, int cap, int *count) {
  *count = -1;
  if (i >= n->n_in || !n->in[i]) return true;
  const MlcTensorData *d = known(n, i);
  if (!d) return mlc_onnx__node_fail(n, "input %d: values computed at run time are not supported here (it must be known at compile time)", i);
  if (d->dtype.code != MLC_TC_INT || (d->dtype.bits != 64 && d->dtype.bits != 32))
    return mlc_onnx__node_fail(n, "input %d must be an int32 or int64 tensor", i);
  int64_t k;
  numel_of(d, &k);
  if (k > cap) return mlc_onnx__node_fail(n, "input %d has %lld values (at most %d)", i, (long long)k, cap);
  for (int64_t j = 0; j < k; j++)
    out[j] = d->dtype.bits == 64 ? ((const int64_t *)d->data)[j] : ((const int32_t *)d->data)[j];
  *count = (int)k;
  return true;
}

bool mlc_onnx__known_scalar(MlcOnnxNode *n, int i, double *out, bool *present) {
  *present = false;
  if (i >= n->n_in || !n->in[i]) return true;
  const MlcTensorData *d = known(n, i);
  int64_t k = 0;
  if (!d || !numel_of(d, &k) || k != 1)
    return mlc_onnx__node_fail(n, "input %d: a scalar computed at run time is not supported (it must be known at compile time)", i);
  MlcDType t = d->dtype;
  const void *p = d->data;
  if (t.code == MLC_TC_FLOAT) *out = t.bits == 64 ? *(const double *)p : t.bits == 32 ? *(const float *)p : 0;
  else if (t.code == MLC_TC_INT) *out = t.bits == 64 ? (double)*(const int64_t *)p : t.bits == 32 ? *(const int32_t *)p
                                    : t.bits == 16 ? *(const int16_t *)p : *(const int8_t *)p;
  else if (t.code == MLC_TC_UINT) *out = t.bits == 64 ? (double)*(const uint64_t *)p : t.bits == 32 ? *(const uint32_t *)p
                                     : t.bits == 16 ? *(const uint16_t *)p : *(const uint8_t *)p;
  else if (t.code == MLC_TC_BOOL) *out = *(const uint8_t *)p;
  else return mlc_onnx__node_fail(n, "input %d: this dtype is not supported as a scalar", i);
  if (t.code == MLC_TC_FLOAT && t.bits == 16) return mlc_onnx__node_fail(n, "input %d: float16 scalars are not supported", i);
  *present = true;
  return true;
}

MlcGExpr *mlc_onnx__scalar_like(MlcOnnxNode *n, const MlcGExpr *x, double v) {
  return mlc_g_const(n->im->ctx, mlc_onnx__scalar(n->im->ctx, mlc_onnx__dtype_of(x), v));
}

MlcGExpr *mlc_onnx__emit1(MlcOnnxNode *n, const char *op, MlcGExpr *a) {
  return a ? mlc_onnx__emit(n, op, &a, 1, (MlcAttrs){0}) : NULL;
}

MlcGExpr *mlc_onnx__emit2(MlcOnnxNode *n, const char *op, MlcGExpr *a, MlcGExpr *b) {
  MlcGExpr *args[2] = {a, b};
  return a && b ? mlc_onnx__emit(n, op, args, 2, (MlcAttrs){0}) : NULL;
}

MlcGExpr *mlc_onnx__emit_attrs(MlcOnnxNode *n, const char *op, MlcGExpr **args, int n_args, int n_attrs,
                               const MlcAttr *attrs) {
  return mlc_onnx__emit(n, op, args, n_args, mlc_onnx__attrs(n->im->ctx, n_attrs, attrs));
}

MlcGExpr *mlc_onnx__item(MlcOnnxNode *n, MlcGExpr *tuple, int i) {
  if (!tuple) return NULL;
  MlcGExpr *g = mlc_g_get_item(n->im->ctx, tuple, i);
  return g;
}

bool mlc_onnx__ints_attr_or_input(MlcOnnxNode *n, const char *name, int64_t input_since, int input,
                                  int64_t *out, int cap, int *count) {
  if (n->opset < input_since) return mlc_onnx__attr_ints(n, name, out, cap, count);
  return mlc_onnx__known_ints(n, input, out, cap, count);
}

/* ---- shapes read at run time -------------------------------------------------------- */

bool mlc_onnx__known_or_absent(MlcOnnxNode *n, int i) { return i >= n->n_in || !n->in[i] || known(n, i); }

bool mlc_onnx__runtime_shape(MlcOnnxNode *n, MlcGExpr *t, MlcGExpr *like, const char *mode, MlcExpr **dims, int cap,
                             int *count) {
  MlcCtx *ctx = n->im->ctx;
  if (!t) return false;
  MlcDType dt = mlc_onnx__dtype_of(t);
  int64_t len;
  bool range = !strcmp(mode, "range");
  if (mlc_onnx__rank(t) != 1 || !mlc_onnx__const_dim(t, 0, &len) ||
      (range ? dt.code != MLC_TC_FLOAT || dt.bits != 64 || len != 3
             : dt.code != MLC_TC_INT || (dt.bits != 32 && dt.bits != 64)))
    return mlc_onnx__node_fail(n, "a shape computed at run time must be a 1-D int32 or int64 tensor of static "
                                  "length");
  if (!range && len > cap)
    return mlc_onnx__node_fail(n, "a shape of %lld values computed at run time (at most %d)", (long long)len, cap);
  int r = like ? mlc_onnx__rank(like) : 0;
  if (r < 0) return mlc_onnx__node_fail(n, "input of unknown rank is not supported");
  bool expand = strcmp(mode, "expand") == 0;
  bool drop = !strcmp(mode, "reduce_drop") || !strcmp(mode, "squeeze");
  int64_t nd = expand && r > len ? r : !strcmp(mode, "reduce_keep") ? r : drop ? r - len
             : !strcmp(mode, "unsqueeze") ? r + len : range ? 1 : len;
  if (nd < 0) return mlc_onnx__node_fail(n, "%lld axes of a rank-%d input", (long long)len, r);
  if (nd > cap) return mlc_onnx__node_fail(n, "a shape of %lld dims computed at run time (at most %d)", (long long)nd, cap);
  const MlcSInfo *ls = like ? mlc_onnx__tensor_sinfo(like) : NULL;
  for (int d = 0; d < nd; d++) {
    int li = d - (int)(nd - r);
    int64_t c;
    /* an expand keeps like's dim wherever that is not 1 (checked when it runs) */
    if (expand && li >= 0 && ls && ls->tensor.shape && (!mlc_onnx__const_dim(like, li, &c) || c != 1))
      dims[d] = ls->tensor.shape[li];
    else
      dims[d] = mlc_e_var(ctx, mlc_internf(ctx, "r%u", n->im->fresh++), MLC_DT(MLC_TC_INT, 64, 1));
  }
  MlcGExpr *args[2] = {t, like};
  MlcAttr attrs[2] = {{"shape", mlc_onnx__av_exprs(ctx, dims, (int)nd)},
                      {"mode", {.kind = MLC_ATTR_STR, .s = mlc_intern(ctx, mode)}}};
  if (!mlc_onnx__emit_attrs(n, "tensor_to_shape", args, like ? 2 : 1, 2, attrs)) return false;
  *count = (int)nd;
  return true;
}

/* ---- folding ----------------------------------------------------------------------- */

MlcGExpr *mlc_onnx__try_fold(MlcCtx *ctx, const MlcGExpr *call) { return mlc_op_fold(ctx, call, FOLD_MAX_NUMEL); }
