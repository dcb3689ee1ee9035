/* size_vars.c - a generated prim func's parameter dims made bindable.
 *
 * A kernel learns its symbolic sizes from its buffers' shapes: a dim that
 * is a bare size var binds it.  A graph whose shapes are arithmetic on its
 * sizes (a reshape to (n * m,), then an exp of that) makes kernels whose
 * buffers have only the product as a dim, from which neither n nor m can be
 * recovered.  Such a kernel never needs them apart, though: every use of
 * the dim is the same expression.  So each parameter dim that is an
 * expression over sizes no parameter binds becomes a size var of its own,
 * in the shapes and everywhere in the body; when the body still names one
 * of the old sizes apart, the function is left as it was (and the code
 * generator names the dim it cannot bind). */
#include "te_internal.h"

enum { MAX_EXPRS = 16 };

typedef struct Sizes {
  MlcCtx *ctx;
  MlcMap bound;                 /* size vars some param binds by a bare dim */
  MlcExpr *from[MAX_EXPRS], *to[MAX_EXPRS];
  int n;
} Sizes;

static bool all_bound(const Sizes *z, const MlcExpr *e) {
  switch (e->kind) {
  case MLC_EXPR_VAR: return mlc_map_has(&z->bound, e);
  case MLC_EXPR_INT: return true;
  case MLC_EXPR_BINARY: return all_bound(z, e->bin.a) && all_bound(z, e->bin.b);
  case MLC_EXPR_CAST:
  case MLC_EXPR_NEG: return all_bound(z, e->operand);
  default: return false;
  }
}

/* the vars of e joined by '_' ("n * m" -> "n_m"), as a name hint */
static void var_names(const MlcExpr *e, MlcStrBuf *sb) {
  switch (e->kind) {
  case MLC_EXPR_VAR: mlc_sb_printf(sb, "%s%s", sb->len ? "_" : "", e->var.name); break;
  case MLC_EXPR_BINARY: var_names(e->bin.a, sb), var_names(e->bin.b, sb); break;
  case MLC_EXPR_CAST:
  case MLC_EXPR_NEG: var_names(e->operand, sb); break;
  default: break;
  }
}

static MlcExpr *fresh_for(Sizes *z, MlcExpr *e) {
  for (int i = 0; i < z->n; i++)
    if (mlc_expr_same(z->from[i], e)) return z->to[i];
  if (z->n == MAX_EXPRS) return NULL;
  MlcStrBuf sb = {0};
  var_names(e, &sb);
  MlcExpr *v = mlc_e_var(z->ctx, mlc_intern(z->ctx, sb.len ? mlc_sb_cstr(&sb) : "size"), e->dtype);
  mlc_vec_free(&sb);
  z->from[z->n] = e;
  z->to[z->n++] = v;
  return v;
}

static MlcExpr *replace(MlcMutator *mu, MlcExpr *e) {
  Sizes *z = mu->user;
  for (int i = 0; i < z->n; i++)
    if (mlc_expr_same(z->from[i], e)) return z->to[i];
  return mlc_mutate_expr_children(mu, e);
}

/* b with its shape rewritten, or b itself when nothing changed */
static MlcBuffer *rebuilt(MlcMutator *mu, MlcBuffer *b) {
  MlcExpr **shape = mlc_arena_array(&mu->ctx->arena, (size_t)(b->ndim ? b->ndim : 1), sizeof *shape);
  bool changed = false;
  for (int d = 0; d < b->ndim; d++) {
    shape[d] = mlc_mutate_expr(mu, b->shape[d]);
    if (!shape[d]) return NULL;
    changed |= shape[d] != b->shape[d];
  }
  if (!changed) return b;
  MlcBuffer *nb = mlc_buffer_new(mu->ctx, b->name, b->dtype, shape, b->ndim, b->strides, b->elem_offset, b->scope);
  if (nb) nb->align = b->align, nb->offset_factor = b->offset_factor;
  return nb;
}

static bool collect_allocs(MlcVisitor *v, const MlcBlock *b) {
  MlcMutator *mu = v->user;
  for (int i = 0; i < b->n_allocs; i++) {
    MlcBuffer *nb = rebuilt(mu, b->allocs[i]);
    if (nb && nb != b->allocs[i]) mlc_map_put(&mu->buffer_map, b->allocs[i], nb);
  }
  return true;
}

MlcPrimFunc *te_bind_size_exprs(MlcCtx *ctx, MlcPrimFunc *f) {
  Sizes z = {.ctx = ctx};
  for (int i = 0; i < f->n_params; i++)
    for (int d = 0; f->params[i].buf && d < f->params[i].buf->ndim; d++)
      if (f->params[i].buf->shape[d]->kind == MLC_EXPR_VAR) mlc_map_put(&z.bound, f->params[i].buf->shape[d], (void *)1);
  bool ok = true;
  for (int i = 0; ok && i < f->n_params; i++)
    for (int d = 0; ok && f->params[i].buf && d < f->params[i].buf->ndim; d++) {
      MlcExpr *e = f->params[i].buf->shape[d];
      if (e->kind != MLC_EXPR_VAR && e->kind != MLC_EXPR_INT && !all_bound(&z, e)) ok = fresh_for(&z, e) != NULL;
    }
  mlc_map_free(&z.bound);
  if (!ok || z.n == 0) return f;
  MlcMutator mu = {.ctx = ctx, .user = &z, .expr = replace};
  MlcParam *ps = mlc_arena_array(&ctx->arena, (size_t)f->n_params, sizeof *ps);
  for (int i = 0; ok && i < f->n_params; i++) {
    ps[i] = f->params[i];
    if (!ps[i].buf) continue;
    ps[i].buf = rebuilt(&mu, f->params[i].buf);
    if (!ps[i].buf) ok = false;
    else if (ps[i].buf != f->params[i].buf) mlc_map_put(&mu.buffer_map, f->params[i].buf, ps[i].buf);
  }
  MlcVisitor v = {.user = &mu, .block = collect_allocs};
  if (ok) mlc_visit_stmt(&v, f->body);
  MlcStmt *body = ok ? mlc_mutate_stmt(&mu, f->body) : NULL;
  mlc_map_free(&mu.buffer_map);
  MlcPrimFunc *nf = NULL;
  if (body) {
    /* the function's own check (every var read is defined) says whether
     * the old sizes are gone; when not, f stays and the error goes */
    nf = mlc_prim_func_new(ctx, f->name, ps, f->n_params, f->attrs, body);
    if (!nf) mlc_clear_error(ctx);
  }
  return nf ? nf : f;
}
