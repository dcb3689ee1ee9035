/* flatten.c - lowering stage 2: every buffer becomes one-dimensional.
 *
 * An access A[i, j] to a (m, n) buffer becomes A[i * n + j] (or uses the
 * buffer's strides and element offset when it has them).  Param buffers are
 * flattened in place -- the runtime checks arguments against the signature
 * before lowering -- and allocations get a flat buffer of the same name. */
#include "mlcc/lower.h"
#include "mlcc/arith.h"

typedef struct Flatten {
  MlcMap flat; /* original buffer -> its flat buffer */
} Flatten;

static MlcExpr *stride_of(MlcCtx *ctx, const MlcBuffer *b, int d) {
  if (b->strides) return b->strides[d];
  MlcExpr *s = NULL;
  for (int k = d + 1; k < b->ndim; k++) s = s ? mlc_arith_mul(ctx, s, b->shape[k]) : b->shape[k];
  return s ? s : mlc_e_int(ctx, b->ndim ? b->shape[0]->dtype : MLC_I32, 1);
}

/* elements the flat buffer must span */
static MlcExpr *flat_extent(MlcCtx *ctx, const MlcBuffer *b) {
  if (b->ndim == 0) return mlc_e_int(ctx, MLC_I32, 1);
  MlcDType t = b->shape[0]->dtype;
  if (!b->strides && !b->elem_offset) {
    MlcExpr *n = b->shape[0];
    for (int d = 1; d < b->ndim; d++) n = mlc_arith_mul(ctx, n, b->shape[d]);
    return n;
  }
  /* offset + sum (shape_d - 1) * stride_d + 1 */
  MlcExpr *one = mlc_e_int(ctx, t, 1);
  MlcExpr *n = b->elem_offset ? mlc_arith_add(ctx, b->elem_offset, one) : one;
  for (int d = 0; d < b->ndim; d++)
    n = mlc_arith_add(ctx, n, mlc_arith_mul(ctx, mlc_e_bin(ctx, MLC_BIN_SUB, b->shape[d], one), stride_of(ctx, b, d)));
  return n;
}

static MlcBuffer *flat_buffer(MlcCtx *ctx, Flatten *fl, MlcBuffer *b) {
  MlcBuffer *f = mlc_map_get(&fl->flat, b);
  if (f) return f;
  MlcExpr *extent = flat_extent(ctx, b);
  f = mlc_buffer_new(ctx, b->name, b->dtype, &extent, 1, NULL, NULL, b->scope);
  if (f) {
    f->align = b->align;
    mlc_map_put(&fl->flat, b, f);
  }
  return f;
}

/* A vector index (a T.Ramp, as a tensor intrinsic's implementation writes
 * before lowering) stays a ramp: its base takes the other dims' terms and
 * its stride the dim's, so a contiguous access remains one. */
static MlcExpr *flat_index(MlcCtx *ctx, const MlcBuffer *b, MlcExpr **idx, int n);

static MlcExpr *flat_ramp(MlcCtx *ctx, const MlcBuffer *b, MlcExpr **idx, int n, int d) {
  const MlcExpr *r = idx[d];
  MlcExpr *stride = stride_of(ctx, b, d);
  if (!mlc_dtype_eq(stride->dtype, r->ramp.base->dtype)) stride = mlc_e_cast(ctx, r->ramp.base->dtype, stride);
  MlcExpr **base = mlc_arena_dup(&ctx->arena, idx, (size_t)n * sizeof *idx);
  base[d] = r->ramp.base;
  MlcExpr *flat = flat_index(ctx, b, base, n);
  MlcExpr *step = stride ? mlc_arith_mul(ctx, r->ramp.stride, stride) : NULL;
  return flat && step ? mlc_e_ramp(ctx, flat, step, r->ramp.lanes) : NULL;
}

static MlcExpr *flat_index(MlcCtx *ctx, const MlcBuffer *b, MlcExpr **idx, int n) {
  for (int d = 0; d < n; d++)
    if (idx[d]->kind == MLC_EXPR_RAMP) return flat_ramp(ctx, b, idx, n, d);
  MlcDType t = n ? idx[0]->dtype : MLC_I32;
  MlcExpr *acc = b->elem_offset;
  for (int d = 0; d < n; d++) {
    MlcExpr *stride = stride_of(ctx, b, d), *term;
    if (!mlc_dtype_eq(stride->dtype, idx[d]->dtype)) stride = mlc_e_cast(ctx, idx[d]->dtype, stride);
    term = mlc_arith_mul(ctx, idx[d], stride);
    if (acc && !mlc_dtype_eq(acc->dtype, term->dtype)) {
      /* mixed index widths: compute in the wider one */
      if (acc->dtype.bits < term->dtype.bits) acc = mlc_e_cast(ctx, term->dtype, acc);
      else term = mlc_e_cast(ctx, acc->dtype, term);
    }
    acc = acc ? mlc_arith_add(ctx, acc, term) : term;
  }
  return acc ? acc : mlc_e_int(ctx, t, 0);
}

static MlcExpr *flatten_expr(MlcMutator *m, MlcExpr *e) {
  if (e->kind != MLC_EXPR_LOAD) return mlc_mutate_expr_children(m, e);
  Flatten *fl = m->user;
  MlcExpr **idx = mlc_arena_array(&m->ctx->arena, (size_t)e->load.n + 1, sizeof *idx);
  for (int i = 0; i < e->load.n; i++)
    if (!(idx[i] = mlc_mutate_expr(m, e->load.idx[i]))) return NULL;
  MlcExpr *flat = flat_index(m->ctx, e->load.buf, idx, e->load.n);
  return mlc_e_load(m->ctx, flat_buffer(m->ctx, fl, e->load.buf), &flat, 1);
}

static MlcStmt *flatten_stmt(MlcMutator *m, MlcStmt *s) {
  Flatten *fl = m->user;
  MlcCtx *ctx = m->ctx;
  if (s->kind == MLC_STMT_STORE) {
    MlcExpr **idx = mlc_arena_array(&ctx->arena, (size_t)s->store.n + 1, sizeof *idx);
    for (int i = 0; i < s->store.n; i++)
      if (!(idx[i] = mlc_mutate_expr(m, s->store.idx[i]))) return NULL;
    MlcExpr *value = mlc_mutate_expr(m, s->store.value);
    MlcExpr *flat = flat_index(ctx, s->store.buf, idx, s->store.n);
    return mlc_s_store(ctx, flat_buffer(ctx, fl, s->store.buf), &flat, 1, value);
  }
  if (s->kind == MLC_STMT_ALLOCATE) {
    MlcBuffer *b = flat_buffer(ctx, fl, s->alloc.buf);
    return mlc_s_allocate(ctx, b, mlc_mutate_stmt(m, s->alloc.body));
  }
  return mlc_mutate_stmt_children(m, s);
}

MlcPrimFunc *mlc_lower_flatten(MlcCtx *ctx, const MlcPrimFunc *f) {
  Flatten fl = {0};
  MlcMutator m = {.ctx = ctx, .user = &fl, .expr = flatten_expr, .stmt = flatten_stmt};
  MlcParam *params = mlc_arena_array(&ctx->arena, (size_t)f->n_params + 1, sizeof *params);
  for (int i = 0; i < f->n_params; i++) {
    params[i] = f->params[i];
    if (params[i].buf && !(params[i].buf = flat_buffer(ctx, &fl, f->params[i].buf))) break;
  }
  MlcStmt *body = mlc_has_error(ctx) ? NULL : mlc_mutate_stmt(&m, f->body);
  mlc_map_free(&fl.flat);
  mlc_map_free(&m.buffer_map);
  if (!body) return NULL;
  return mlc_prim_func_new(ctx, f->name, params, f->n_params, f->attrs, body);
}
