/* graph.c - builders of struct info and graph expressions.
 *
 * Struct info is what a graph value is known to be (a tensor of a shape and
 * dtype, a tuple, a shape, a scalar, or just an object).  Builders compute
 * the struct info a node has by itself; calls take theirs from the caller,
 * since only the op registry (a later layer) knows an op's result. */
#include "mlcc/ir.h"

#include <string.h>
#include "ir/verify.h"

#define NOLOC ((MlcLoc){0})

static void *dup(MlcCtx *ctx, const void *p, int n, size_t elem) {
  return n > 0 ? mlc_arena_dup(&ctx->arena, p, (size_t)n * elem) : NULL;
}

static MlcSInfo *sinode(MlcCtx *ctx, MlcSInfoKind kind) {
  MlcSInfo *s = mlc_arena_alloc(&ctx->arena, sizeof *s);
  s->kind = kind;
  return s;
}

static bool dims_ok(MlcCtx *ctx, MlcExpr **dims, int n, const char *what) {
  char b[32];
  for (int i = 0; i < n; i++) {
    if (!dims[i]) return false;
    if (!mlc_dtype_is_int(dims[i]->dtype) || dims[i]->dtype.lanes != 1)
      return mlc_error(ctx, NOLOC, "%s dimension %d must be an integer, got %s", what, i,
                       mlc_dtype_str(dims[i]->dtype, b));
    int64_t v;
    if (mlc_e_is_const_int(dims[i], &v) && v < 0)
      return mlc_error(ctx, NOLOC, "%s dimension %d is negative (%lld)", what, i, (long long)v);
  }
  return true;
}

MlcSInfo *mlc_sinfo_object(MlcCtx *ctx) { return sinode(ctx, MLC_SINFO_OBJECT); }

MlcSInfo *mlc_sinfo_tensor(MlcCtx *ctx, MlcExpr **shape, int ndim, MlcDType dtype) {
  if (shape && !dims_ok(ctx, shape, ndim, "tensor")) return NULL;
  if (ndim < -1) return mlc_error(ctx, NOLOC, "tensor rank %d is invalid", ndim), NULL;
  MlcSInfo *s = sinode(ctx, MLC_SINFO_TENSOR);
  s->tensor.ndim = ndim;
  s->tensor.shape = shape ? dup(ctx, shape, ndim, sizeof *shape) : NULL;
  if (shape && ndim == 0) s->tensor.shape = mlc_arena_alloc(&ctx->arena, sizeof *shape);
  s->tensor.dtype = dtype;
  return s;
}

MlcSInfo *mlc_sinfo_tuple(MlcCtx *ctx, MlcSInfo **fields, int n) {
  for (int i = 0; i < n; i++)
    if (!fields[i]) return NULL;
  MlcSInfo *s = sinode(ctx, MLC_SINFO_TUPLE);
  s->tuple.fields = dup(ctx, fields, n, sizeof *fields);
  s->tuple.n = n;
  return s;
}

MlcSInfo *mlc_sinfo_shape(MlcCtx *ctx, MlcExpr **values, int ndim) {
  if (values && !dims_ok(ctx, values, ndim, "shape")) return NULL;
  MlcSInfo *s = sinode(ctx, MLC_SINFO_SHAPE);
  s->shape.ndim = ndim;
  s->shape.values = values ? dup(ctx, values, ndim, sizeof *values) : NULL;
  if (values && ndim == 0) s->shape.values = mlc_arena_alloc(&ctx->arena, sizeof *values);
  return s;
}

MlcSInfo *mlc_sinfo_prim(MlcCtx *ctx, MlcDType dtype, MlcExpr *value) {
  MlcSInfo *s = sinode(ctx, MLC_SINFO_PRIM);
  s->prim.dtype = dtype;
  s->prim.value = value;
  return s;
}

static MlcGExpr *gnode(MlcCtx *ctx, MlcGExprKind kind, MlcSInfo *sinfo) {
  MlcGExpr *e = mlc_arena_alloc(&ctx->arena, sizeof *e);
  e->kind = kind;
  e->sinfo = sinfo ? sinfo : mlc_sinfo_object(ctx);
  return e;
}

MlcGExpr *mlc_g_var(MlcCtx *ctx, const char *name, MlcSInfo *sinfo, bool dataflow) {
  MlcGExpr *e = gnode(ctx, dataflow ? MLC_G_DFVAR : MLC_G_VAR, sinfo);
  e->var.name = mlc_intern(ctx, name && *name ? name : "v");
  return e;
}

MlcGExpr *mlc_g_const(MlcCtx *ctx, MlcTensorData *data) {
  if (!data) return NULL;
  MlcExpr **shape = mlc_arena_array(&ctx->arena, (size_t)(data->ndim > 0 ? data->ndim : 1), sizeof *shape);
  for (int i = 0; i < data->ndim; i++) shape[i] = mlc_e_int(ctx, MLC_I64, data->shape[i]);
  MlcGExpr *e = gnode(ctx, MLC_G_CONST, mlc_sinfo_tensor(ctx, shape, data->ndim, data->dtype));
  e->constant = data;
  return e;
}

MlcGExpr *mlc_g_tuple(MlcCtx *ctx, MlcGExpr **fields, int n) {
  MlcSInfo **fs = mlc_arena_array(&ctx->arena, (size_t)(n > 0 ? n : 1), sizeof *fs);
  for (int i = 0; i < n; i++) {
    if (!fields[i]) return NULL;
    fs[i] = fields[i]->sinfo;
  }
  MlcGExpr *e = gnode(ctx, MLC_G_TUPLE, mlc_sinfo_tuple(ctx, fs, n));
  e->tuple.fields = dup(ctx, fields, n, sizeof *fields);
  e->tuple.n = n;
  return e;
}

MlcGExpr *mlc_g_get_item(MlcCtx *ctx, MlcGExpr *tuple, int index) {
  if (!tuple) return NULL;
  MlcSInfo *s = NULL;
  if (tuple->sinfo->kind == MLC_SINFO_TUPLE) {
    if (index < 0 || index >= tuple->sinfo->tuple.n) {
      mlc_error(ctx, NOLOC, "tuple index %d out of range for a tuple of %d", index, tuple->sinfo->tuple.n);
      return NULL;
    }
    s = tuple->sinfo->tuple.fields[index];
  } else if (tuple->sinfo->kind != MLC_SINFO_OBJECT) {
    mlc_error(ctx, NOLOC, "indexing a value that is not a tuple");
    return NULL;
  } else if (index < 0) {
    mlc_error(ctx, NOLOC, "tuple index %d is negative", index);
    return NULL;
  }
  MlcGExpr *e = gnode(ctx, MLC_G_GET_ITEM, s);
  e->get_item.tuple = tuple;
  e->get_item.index = index;
  return e;
}

static MlcGExpr *named(MlcCtx *ctx, MlcGExprKind kind, const char *name) {
  MlcGExpr *e = gnode(ctx, kind, NULL);
  e->str = mlc_intern(ctx, name);
  return e;
}

MlcGExpr *mlc_g_op(MlcCtx *ctx, const char *name) { return named(ctx, MLC_G_OP, name); }
MlcGExpr *mlc_g_global(MlcCtx *ctx, const char *name) { return named(ctx, MLC_G_GLOBAL, name); }
MlcGExpr *mlc_g_extern(MlcCtx *ctx, const char *name) { return named(ctx, MLC_G_EXTERN, name); }
MlcGExpr *mlc_g_str(MlcCtx *ctx, const char *s) { return named(ctx, MLC_G_STR, s); }

MlcGExpr *mlc_g_shape(MlcCtx *ctx, MlcExpr **values, int n) {
  MlcSInfo *s = mlc_sinfo_shape(ctx, values, n);
  if (!s) return NULL;
  MlcGExpr *e = gnode(ctx, MLC_G_SHAPE, s);
  e->shape.values = s->shape.values;
  e->shape.n = n;
  return e;
}

MlcGExpr *mlc_g_prim(MlcCtx *ctx, MlcExpr *value) {
  if (!value) return NULL;
  MlcGExpr *e = gnode(ctx, MLC_G_PRIM, mlc_sinfo_prim(ctx, value->dtype, value));
  e->prim = value;
  return e;
}

MlcGExpr *mlc_g_dtype(MlcCtx *ctx, MlcDType t) {
  MlcGExpr *e = gnode(ctx, MLC_G_DTYPE, NULL);
  e->dtype = t;
  return e;
}

MlcGExpr *mlc_g_call(MlcCtx *ctx, MlcGExpr *callee, MlcGExpr **args, int n, MlcAttrs attrs,
                     MlcSInfo **sinfo_args, int n_sinfo_args, MlcSInfo *sinfo) {
  if (!callee) return NULL;
  for (int i = 0; i < n; i++)
    if (!args[i]) return NULL;
  for (int i = 0; i < n_sinfo_args; i++)
    if (!sinfo_args[i]) return NULL;
  MlcGExpr *e = gnode(ctx, MLC_G_CALL, sinfo);
  e->call.callee = callee;
  e->call.args = dup(ctx, args, n, sizeof *args);
  e->call.n = n;
  e->call.attrs = attrs;
  e->call.sinfo_args = dup(ctx, sinfo_args, n_sinfo_args, sizeof *sinfo_args);
  e->call.n_sinfo_args = n_sinfo_args;
  return e;
}

/* call_tir and call_dps_packed share a form: (callee, (args...)) with the
 * outputs' struct info given, one tensor or a tuple of tensors. */
static MlcGExpr *dps_call(MlcCtx *ctx, const char *op, MlcGExprKind callee_kind, MlcGExpr *callee,
                          MlcGExpr **args, int n, MlcSInfo *out) {
  if (!callee || !out) return NULL;
  if (callee->kind != callee_kind)
    return mlc_error(ctx, NOLOC, "%s needs %s as its callee", op,
                     callee_kind == MLC_G_GLOBAL ? "a module function" : "an extern function name"), NULL;
  bool ok = out->kind == MLC_SINFO_TENSOR;
  if (out->kind == MLC_SINFO_TUPLE) {
    ok = true;
    for (int i = 0; i < out->tuple.n; i++) ok = ok && out->tuple.fields[i]->kind == MLC_SINFO_TENSOR;
  }
  if (!ok) return mlc_error(ctx, NOLOC, "%s: out_sinfo must be a tensor or a tuple of tensors", op), NULL;
  MlcGExpr *tuple = mlc_g_tuple(ctx, args, n);
  if (!tuple) return NULL;
  MlcGExpr *call_args[2] = {callee, tuple};
  return mlc_g_call(ctx, mlc_g_op(ctx, op), call_args, 2, (MlcAttrs){0}, &out, 1, out);
}

MlcGExpr *mlc_g_call_tir(MlcCtx *ctx, MlcGExpr *global, MlcGExpr **args, int n, MlcSInfo *out) {
  return dps_call(ctx, "call_tir", MLC_G_GLOBAL, global, args, n, out);
}

MlcGExpr *mlc_g_call_dps_packed(MlcCtx *ctx, MlcGExpr *ext, MlcGExpr **args, int n, MlcSInfo *out) {
  return dps_call(ctx, "call_dps_packed", MLC_G_EXTERN, ext, args, n, out);
}

MlcGExpr *mlc_g_if(MlcCtx *ctx, MlcGExpr *cond, MlcGExpr *then_e, MlcGExpr *else_e) {
  if (!cond || !then_e || !else_e) return NULL;
  if (then_e->kind != MLC_G_SEQ || else_e->kind != MLC_G_SEQ)
    return mlc_error(ctx, NOLOC, "the branches of an if must be sequences"), NULL;
  /* the result is known when both branches agree; otherwise only an object */
  MlcSInfo *s = then_e->sinfo == else_e->sinfo ? then_e->sinfo : NULL;
  MlcGExpr *e = gnode(ctx, MLC_G_IF, s);
  e->if_.cond = cond;
  e->if_.then_e = then_e;
  e->if_.else_e = else_e;
  return e;
}

MlcGExpr *mlc_g_seq(MlcCtx *ctx, MlcBindingBlock **blocks, int n, MlcGExpr *result) {
  if (!result) return NULL;
  for (int i = 0; i < n; i++)
    if (!blocks[i]) return NULL;
  MlcGExpr *e = gnode(ctx, MLC_G_SEQ, result->sinfo);
  e->seq.blocks = dup(ctx, blocks, n, sizeof *blocks);
  e->seq.n = n;
  e->seq.result = result;
  return e;
}

MlcBindingBlock *mlc_g_block(MlcCtx *ctx, bool dataflow, MlcBinding *bindings, int n) {
  for (int i = 0; i < n; i++) {
    if (!bindings[i].var || !bindings[i].value) return NULL;
    if (bindings[i].var->kind != MLC_G_VAR && bindings[i].var->kind != MLC_G_DFVAR)
      return mlc_error(ctx, bindings[i].loc, "a binding binds a var"), NULL;
    if (!dataflow && bindings[i].var->kind == MLC_G_DFVAR)
      return mlc_error(ctx, bindings[i].loc, "dataflow var '%s' bound outside a dataflow block",
                       bindings[i].var->var.name), NULL;
  }
  MlcBindingBlock *b = mlc_arena_alloc(&ctx->arena, sizeof *b);
  b->dataflow = dataflow;
  b->bindings = dup(ctx, bindings, n, sizeof *bindings);
  b->n = n;
  return b;
}

MlcGFunc *mlc_gfunc_new(MlcCtx *ctx, const char *name, MlcGExpr **params, int n_params,
                        MlcSInfo *ret, MlcGExpr *body, MlcAttrs attrs, bool pure) {
  if (!body) return NULL;
  for (int i = 0; i < n_params; i++) {
    if (!params[i]) return NULL;
    if (params[i]->kind != MLC_G_VAR)
      return mlc_error(ctx, NOLOC, "function '%s': parameter %d is not a plain var", name, i), NULL;
  }
  if (body->kind != MLC_G_SEQ)
    return mlc_error(ctx, NOLOC, "function '%s': body must be a sequence", name), NULL;
  MlcGFunc *f = mlc_arena_alloc(&ctx->arena, sizeof *f);
  f->name = mlc_intern(ctx, name);
  f->params = dup(ctx, params, n_params, sizeof *params);
  f->n_params = n_params;
  f->ret = ret ? ret : body->sinfo;
  f->body = body;
  f->attrs = attrs;
  f->pure = pure;
  if (!mlc_verify_gfunc(ctx, f)) return NULL;
  return f;
}

int64_t mlc_tensor_data_numel(const MlcTensorData *d) {
  int64_t n = 1;
  for (int i = 0; i < d->ndim; i++) n *= d->shape[i];
  return n;
}

MlcTensorData *mlc_tensor_data_new(MlcCtx *ctx, MlcDType t, const int64_t *shape, int ndim) {
  MlcTensorData *d = mlc_arena_alloc(&ctx->arena, sizeof *d);
  d->dtype = t;
  d->ndim = ndim;
  d->shape = mlc_arena_dup(&ctx->arena, shape, sizeof(int64_t) * (size_t)(ndim ? ndim : 1));
  d->nbytes = (size_t)mlc_tensor_data_numel(d) * mlc_dtype_bytes(t);
  d->data = mlc_arena_alloc(&ctx->arena, d->nbytes ? d->nbytes : 1);
  memset(d->data, 0, d->nbytes ? d->nbytes : 1);
  return d;
}
