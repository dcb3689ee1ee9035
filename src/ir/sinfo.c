/* sinfo.c - comparing struct info: sameness of the expressions dims are made
 * of, contradiction between an annotation and what is known, and the join of
 * two (the struct info of an if).  The reader, the printer and the graph
 * passes all ask these questions, so they are answered once, here. */
#include <string.h>

#include "mlcc/ir.h"

static bool exprs_same(MlcExpr *const *a, MlcExpr *const *b, int n) {
  for (int i = 0; i < n; i++)
    if (!mlc_expr_same(a[i], b[i])) return false;
  return true;
}

bool mlc_expr_same(const MlcExpr *a, const MlcExpr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || !mlc_dtype_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
  case MLC_EXPR_VAR: return false; /* distinct vars */
  case MLC_EXPR_INT: return a->int_val == b->int_val;
  case MLC_EXPR_FLOAT: return a->float_val == b->float_val;
  case MLC_EXPR_STR: return a->str_val == b->str_val || strcmp(a->str_val, b->str_val) == 0;
  case MLC_EXPR_BINARY:
    return a->bin.op == b->bin.op && mlc_expr_same(a->bin.a, b->bin.a) && mlc_expr_same(a->bin.b, b->bin.b);
  case MLC_EXPR_NOT:
  case MLC_EXPR_NEG:
  case MLC_EXPR_CAST: return mlc_expr_same(a->operand, b->operand);
  case MLC_EXPR_SELECT:
    return mlc_expr_same(a->select.cond, b->select.cond) && mlc_expr_same(a->select.t, b->select.t) &&
           mlc_expr_same(a->select.f, b->select.f);
  case MLC_EXPR_LOAD:
    return a->load.buf == b->load.buf && a->load.n == b->load.n && exprs_same(a->load.idx, b->load.idx, a->load.n);
  case MLC_EXPR_RAMP:
    return a->ramp.lanes == b->ramp.lanes && mlc_expr_same(a->ramp.base, b->ramp.base) &&
           mlc_expr_same(a->ramp.stride, b->ramp.stride);
  case MLC_EXPR_BROADCAST:
    return a->bcast.lanes == b->bcast.lanes && mlc_expr_same(a->bcast.value, b->bcast.value);
  case MLC_EXPR_LET: return false; /* would need binding-aware comparison */
  case MLC_EXPR_CALL:
    return a->call.op == b->call.op && a->call.n == b->call.n && exprs_same(a->call.args, b->call.args, a->call.n);
  }
  return false;
}

static bool dtype_clash(MlcDType a, MlcDType b) {
  return a.code != MLC_TC_VOID && b.code != MLC_TC_VOID && !mlc_dtype_eq(a, b);
}

static bool ndim_clash(int a, int b) { return a >= 0 && b >= 0 && a != b; }

/* both lists known, of one length, and some entry differs */
static bool dims_differ(MlcExpr *const *a, MlcExpr *const *b, int na, int nb) {
  return a && b && na == nb && !exprs_same(a, b, na);
}

bool mlc_sinfo_contradicts(const MlcSInfo *a, const MlcSInfo *b) {
  if (!a || !b || a->kind == MLC_SINFO_OBJECT || b->kind == MLC_SINFO_OBJECT) return false;
  if (a->kind != b->kind) return true;
  switch (a->kind) {
  case MLC_SINFO_TENSOR:
    return dtype_clash(a->tensor.dtype, b->tensor.dtype) || ndim_clash(a->tensor.ndim, b->tensor.ndim) ||
           dims_differ(a->tensor.shape, b->tensor.shape, a->tensor.ndim, b->tensor.ndim);
  case MLC_SINFO_TUPLE:
    if (a->tuple.n != b->tuple.n) return true;
    for (int i = 0; i < a->tuple.n; i++)
      if (mlc_sinfo_contradicts(a->tuple.fields[i], b->tuple.fields[i])) return true;
    return false;
  case MLC_SINFO_SHAPE:
    return ndim_clash(a->shape.ndim, b->shape.ndim) ||
           dims_differ(a->shape.values, b->shape.values, a->shape.ndim, b->shape.ndim);
  case MLC_SINFO_PRIM:
    return dtype_clash(a->prim.dtype, b->prim.dtype) ||
           (a->prim.value && b->prim.value && !mlc_expr_same(a->prim.value, b->prim.value));
  case MLC_SINFO_OBJECT: return false;
  }
  return false;
}

/* the dims both know alike, or NULL */
static MlcExpr **join_dims(MlcExpr **a, MlcExpr **b, int nd) {
  return nd >= 0 && a && b && exprs_same(a, b, nd) ? a : NULL;
}

MlcSInfo *mlc_sinfo_join(MlcCtx *ctx, MlcSInfo *a, MlcSInfo *b) {
  if (a == b) return a;
  if (!a || !b || a->kind != b->kind) return mlc_sinfo_object(ctx);
  switch (a->kind) {
  case MLC_SINFO_OBJECT: return a;
  case MLC_SINFO_TENSOR: {
    MlcDType dt = mlc_dtype_eq(a->tensor.dtype, b->tensor.dtype) ? a->tensor.dtype : MLC_VOID;
    int nd = a->tensor.ndim == b->tensor.ndim ? a->tensor.ndim : -1;
    return mlc_sinfo_tensor(ctx, join_dims(a->tensor.shape, b->tensor.shape, nd), nd, dt);
  }
  case MLC_SINFO_TUPLE: {
    if (a->tuple.n != b->tuple.n) return mlc_sinfo_object(ctx);
    MlcSInfo **fs = mlc_arena_array(&ctx->arena, (size_t)(a->tuple.n ? a->tuple.n : 1), sizeof *fs);
    for (int i = 0; i < a->tuple.n; i++) fs[i] = mlc_sinfo_join(ctx, a->tuple.fields[i], b->tuple.fields[i]);
    return mlc_sinfo_tuple(ctx, fs, a->tuple.n);
  }
  case MLC_SINFO_SHAPE: {
    int nd = a->shape.ndim == b->shape.ndim ? a->shape.ndim : -1;
    return mlc_sinfo_shape(ctx, join_dims(a->shape.values, b->shape.values, nd), nd);
  }
  case MLC_SINFO_PRIM:
    if (!mlc_dtype_eq(a->prim.dtype, b->prim.dtype)) return mlc_sinfo_object(ctx);
    return mlc_sinfo_prim(ctx, a->prim.dtype, mlc_expr_same(a->prim.value, b->prim.value) ? a->prim.value : NULL);
  }
  return mlc_sinfo_object(ctx);
}
