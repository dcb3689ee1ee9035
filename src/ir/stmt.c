/* stmt.c - builders of buffers, TIR statements, blocks and prim funcs.
 *
 * Local checks happen here (ranks, dtypes, binding counts); checks that need
 * the whole function (scoping of vars and buffers) run once in
 * mlc_prim_func_new through verify.c. */
#include "mlcc/ir.h"
#include "ir/verify.h"

#include <string.h>

#define NOLOC ((MlcLoc){0})

static MlcStmt *snode(MlcCtx *ctx, MlcStmtKind kind) {
  MlcStmt *s = mlc_arena_alloc(&ctx->arena, sizeof *s);
  s->kind = kind;
  return s;
}

static void *dup(MlcCtx *ctx, const void *p, int n, size_t elem) {
  return n > 0 ? mlc_arena_dup(&ctx->arena, p, (size_t)n * elem) : NULL;
}

static bool all_nonnull(MlcExpr **e, int n) {
  for (int i = 0; i < n; i++)
    if (!e[i]) return false;
  return true;
}

MlcBuffer *mlc_buffer_new(MlcCtx *ctx, const char *name, MlcDType dtype, MlcExpr **shape,
                          int ndim, MlcExpr **strides, MlcExpr *elem_offset, const char *scope) {
  if (ndim < 0 || !all_nonnull(shape, ndim) || (strides && !all_nonnull(strides, ndim))) return NULL;
  char b[32];
  for (int i = 0; i < ndim; i++) {
    if (!mlc_dtype_is_int(shape[i]->dtype) || shape[i]->dtype.lanes != 1) {
      mlc_error(ctx, NOLOC, "buffer '%s': dimension %d must be a scalar integer, got %s", name, i,
                mlc_dtype_str(shape[i]->dtype, b));
      return NULL;
    }
    int64_t v;
    if (mlc_e_is_const_int(shape[i], &v) && v < 0) {
      mlc_error(ctx, NOLOC, "buffer '%s': dimension %d is negative (%lld)", name, i, (long long)v);
      return NULL;
    }
  }
  if (dtype.code == MLC_TC_VOID) {
    mlc_error(ctx, NOLOC, "buffer '%s' cannot hold void", name);
    return NULL;
  }
  MlcBuffer *buf = mlc_arena_alloc(&ctx->arena, sizeof *buf);
  buf->name = mlc_intern(ctx, name && *name ? name : "buf");
  buf->dtype = dtype;
  buf->ndim = ndim;
  buf->shape = dup(ctx, shape, ndim, sizeof *shape);
  buf->strides = strides ? dup(ctx, strides, ndim, sizeof *strides) : NULL;
  buf->elem_offset = elem_offset;
  buf->scope = mlc_intern(ctx, scope && *scope ? scope : "global");
  return buf;
}

const MlcAttrValue *mlc_attrs_get(MlcAttrs attrs, const char *key) {
  for (int i = 0; i < attrs.n; i++)
    if (attrs.items[i].key == key) return &attrs.items[i].val;
  return NULL;
}

MlcAttrs mlc_attrs_with(MlcCtx *ctx, MlcAttrs attrs, const char *key, const MlcAttrValue *val) {
  MlcAttr *items = mlc_arena_array(&ctx->arena, (size_t)attrs.n + 1, sizeof *items);
  int n = 0;
  bool placed = false;
  for (int i = 0; i < attrs.n; i++) {
    if (attrs.items[i].key != key) items[n++] = attrs.items[i];
    else if (val && !placed) items[n++] = (MlcAttr){key, *val}, placed = true;
  }
  if (val && !placed) items[n++] = (MlcAttr){key, *val};
  return (MlcAttrs){n ? items : NULL, n};
}

MlcStmt *mlc_s_store(MlcCtx *ctx, MlcBuffer *buf, MlcExpr **idx, int n, MlcExpr *value) {
  if (!buf || !value || !all_nonnull(idx, n)) return NULL;
  /* a load builds the same checks on the indices and gives the lanes they imply */
  MlcExpr *probe = mlc_e_load(ctx, buf, idx, n);
  if (!probe) return NULL;
  char ba[32], bb[32];
  if (!mlc_dtype_eq(probe->dtype, value->dtype)) {
    mlc_error(ctx, NOLOC, "cannot store %s into buffer '%s' of %s", mlc_dtype_str(value->dtype, ba),
              buf->name, mlc_dtype_str(probe->dtype, bb));
    return NULL;
  }
  MlcStmt *s = snode(ctx, MLC_STMT_STORE);
  s->store.buf = buf;
  s->store.idx = probe->load.idx;
  s->store.n = n;
  s->store.value = value;
  return s;
}

MlcStmt *mlc_s_for(MlcCtx *ctx, MlcExpr *var, MlcExpr *min, MlcExpr *extent, MlcForKind kind,
                   const char *thread, MlcAttrs annotations, MlcStmt *body) {
  if (!var || !min || !extent || !body) return NULL;
  char ba[32], bb[32], bc[32];
  if (var->kind != MLC_EXPR_VAR || !mlc_dtype_is_int(var->dtype) || var->dtype.lanes != 1) {
    mlc_error(ctx, NOLOC, "a loop variable must be a scalar integer var");
    return NULL;
  }
  if (!mlc_dtype_eq(min->dtype, var->dtype) || !mlc_dtype_eq(extent->dtype, var->dtype)) {
    mlc_error(ctx, NOLOC, "loop '%s' is %s but its bounds are %s and %s", var->var.name,
              mlc_dtype_str(var->dtype, ba), mlc_dtype_str(min->dtype, bb),
              mlc_dtype_str(extent->dtype, bc));
    return NULL;
  }
  if ((kind == MLC_FOR_THREAD) != (thread != NULL)) {
    mlc_error(ctx, NOLOC, "loop '%s': a thread tag goes with a thread-bound loop only", var->var.name);
    return NULL;
  }
  MlcStmt *s = snode(ctx, MLC_STMT_FOR);
  s->loop.var = var;
  s->loop.min = min;
  s->loop.extent = extent;
  s->loop.kind = kind;
  s->loop.thread = thread ? mlc_intern(ctx, thread) : NULL;
  s->loop.annotations = annotations;
  s->loop.body = body;
  return s;
}

static bool region_ok(MlcCtx *ctx, const char *block, const MlcBufferRegion *r) {
  if (!r->buf) return false;
  for (int d = 0; d < r->buf->ndim; d++) {
    if (!r->ranges[d].min || !r->ranges[d].extent) return false;
    if (!mlc_dtype_is_int(r->ranges[d].min->dtype) || !mlc_dtype_is_int(r->ranges[d].extent->dtype))
      return mlc_error(ctx, NOLOC, "block '%s': region of buffer '%s' has a non-integer bound", block,
                       r->buf->name);
  }
  return true;
}

MlcBlock *mlc_block_new(MlcCtx *ctx, const char *name, MlcIterVar *iters, int n_iters,
                        MlcBufferRegion *reads, int n_reads, MlcBufferRegion *writes,
                        int n_writes, MlcStmt *init, MlcBuffer **allocs, int n_allocs,
                        MlcAttrs annotations, MlcStmt *body) {
  if (!body) return NULL;
  name = name && *name ? name : "block";
  for (int i = 0; i < n_iters; i++) {
    MlcIterVar *iv = &iters[i];
    if (!iv->var || !iv->dom.min || !iv->dom.extent) return NULL;
    if (iv->var->kind != MLC_EXPR_VAR || !mlc_dtype_is_int(iv->var->dtype))
      return mlc_error(ctx, NOLOC, "block '%s': iter var %d must be an integer var", name, i), NULL;
    if (!mlc_dtype_eq(iv->dom.min->dtype, iv->var->dtype) ||
        !mlc_dtype_eq(iv->dom.extent->dtype, iv->var->dtype))
      return mlc_error(ctx, NOLOC, "block '%s': domain of iter var '%s' has another dtype than the var",
                       name, iv->var->var.name), NULL;
  }
  for (int i = 0; i < n_reads; i++)
    if (!region_ok(ctx, name, &reads[i])) return NULL;
  for (int i = 0; i < n_writes; i++)
    if (!region_ok(ctx, name, &writes[i])) return NULL;
  for (int i = 0; i < n_allocs; i++)
    if (!allocs[i]) return NULL;
  MlcBlock *b = mlc_arena_alloc(&ctx->arena, sizeof *b);
  b->name = mlc_intern(ctx, name);
  b->iters = dup(ctx, iters, n_iters, sizeof *iters);
  b->n_iters = n_iters;
  b->reads = dup(ctx, reads, n_reads, sizeof *reads);
  b->n_reads = n_reads;
  b->writes = dup(ctx, writes, n_writes, sizeof *writes);
  b->n_writes = n_writes;
  b->init = init;
  b->allocs = dup(ctx, allocs, n_allocs, sizeof *allocs);
  b->n_allocs = n_allocs;
  b->annotations = annotations;
  b->body = body;
  return b;
}

MlcStmt *mlc_s_realize(MlcCtx *ctx, MlcExpr **values, int n, MlcExpr *pred, MlcBlock *block) {
  if (!block || !all_nonnull(values, n)) return NULL;
  char ba[32], bb[32];
  if (n != block->n_iters) {
    mlc_error(ctx, NOLOC, "block '%s' has %d iter var%s but %d binding%s", block->name,
              block->n_iters, block->n_iters == 1 ? "" : "s", n, n == 1 ? "" : "s");
    return NULL;
  }
  for (int i = 0; i < n; i++)
    if (!mlc_dtype_eq(values[i]->dtype, block->iters[i].var->dtype)) {
      mlc_error(ctx, NOLOC, "block '%s': iter var '%s' is %s but is bound to a %s value",
                block->name, block->iters[i].var->var.name,
                mlc_dtype_str(block->iters[i].var->dtype, ba), mlc_dtype_str(values[i]->dtype, bb));
      return NULL;
    }
  if (!pred) pred = mlc_e_int(ctx, MLC_BOOL, 1);
  if (pred->dtype.code != MLC_TC_BOOL || pred->dtype.lanes != 1) {
    mlc_error(ctx, NOLOC, "block '%s': predicate must be a scalar bool, got %s", block->name,
              mlc_dtype_str(pred->dtype, ba));
    return NULL;
  }
  MlcStmt *s = snode(ctx, MLC_STMT_BLOCK_REALIZE);
  s->realize.values = dup(ctx, values, n, sizeof *values);
  s->realize.n = n;
  s->realize.pred = pred;
  s->realize.block = block;
  return s;
}

MlcStmt *mlc_s_seq(MlcCtx *ctx, MlcStmt **items, int n) {
  int total = 0;
  for (int i = 0; i < n; i++) {
    if (!items[i]) return NULL;
    total += items[i]->kind == MLC_STMT_SEQ ? items[i]->seq.n : 1;
  }
  if (n == 1) return items[0];
  MlcStmt *s = snode(ctx, MLC_STMT_SEQ);
  s->seq.items = mlc_arena_array(&ctx->arena, (size_t)(total > 0 ? total : 1), sizeof *items);
  for (int i = 0; i < n; i++) {
    if (items[i]->kind == MLC_STMT_SEQ)
      for (int j = 0; j < items[i]->seq.n; j++) s->seq.items[s->seq.n++] = items[i]->seq.items[j];
    else
      s->seq.items[s->seq.n++] = items[i];
  }
  return s;
}

MlcStmt *mlc_s_if(MlcCtx *ctx, MlcExpr *cond, MlcStmt *then_s, MlcStmt *else_s) {
  if (!cond || !then_s) return NULL;
  char b[32];
  if (cond->dtype.code != MLC_TC_BOOL || cond->dtype.lanes != 1) {
    mlc_error(ctx, NOLOC, "if condition must be a scalar bool, got %s", mlc_dtype_str(cond->dtype, b));
    return NULL;
  }
  MlcStmt *s = snode(ctx, MLC_STMT_IF);
  s->if_.cond = cond;
  s->if_.then_s = then_s;
  s->if_.else_s = else_s;
  return s;
}

MlcStmt *mlc_s_let(MlcCtx *ctx, MlcExpr *var, MlcExpr *value, MlcStmt *body) {
  if (!var || !value || !body) return NULL;
  char ba[32], bb[32];
  if (var->kind != MLC_EXPR_VAR || !mlc_dtype_eq(var->dtype, value->dtype)) {
    mlc_error(ctx, NOLOC, "let binds a var of the value's dtype: %s vs %s", mlc_dtype_str(var->dtype, ba),
              mlc_dtype_str(value->dtype, bb));
    return NULL;
  }
  MlcStmt *s = snode(ctx, MLC_STMT_LET);
  s->let.var = var;
  s->let.value = value;
  s->let.body = body;
  return s;
}

MlcStmt *mlc_s_allocate(MlcCtx *ctx, MlcBuffer *buf, MlcStmt *body) {
  if (!buf || !body) return NULL;
  MlcStmt *s = snode(ctx, MLC_STMT_ALLOCATE);
  s->alloc.buf = buf;
  s->alloc.body = body;
  return s;
}

MlcStmt *mlc_s_evaluate(MlcCtx *ctx, MlcExpr *e) {
  if (!e) return NULL;
  MlcStmt *s = snode(ctx, MLC_STMT_EVALUATE);
  s->eval = e;
  return s;
}

MlcPrimFunc *mlc_prim_func_new(MlcCtx *ctx, const char *name, MlcParam *params, int n_params,
                               MlcAttrs attrs, MlcStmt *body) {
  if (!body) return NULL;
  for (int i = 0; i < n_params; i++) {
    if (!params[i].var) return NULL;
    if (params[i].var->kind != MLC_EXPR_VAR)
      return mlc_error(ctx, NOLOC, "function '%s': parameter %d is not a var", name, i), NULL;
    if (params[i].buf && params[i].var->dtype.code != MLC_TC_HANDLE)
      return mlc_error(ctx, NOLOC, "function '%s': buffer parameter '%s' must be a handle", name,
                       params[i].var->var.name), NULL;
  }
  MlcPrimFunc *f = mlc_arena_alloc(&ctx->arena, sizeof *f);
  f->name = mlc_intern(ctx, name);
  f->params = dup(ctx, params, n_params, sizeof *params);
  f->n_params = n_params;
  f->attrs = attrs;
  f->body = body;
  f->ret = MLC_VOID;
  if (!mlc_verify_prim_func(ctx, f)) return NULL;
  return f;
}
