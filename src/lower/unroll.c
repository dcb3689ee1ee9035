/* unroll.c - lowering stage 4: loops marked unrolled with a constant extent
 * of at most MLC_LOWER_MAX_UNROLL become that many copies of their body;
 * longer or symbolic ones stay loops (the C generator asks the compiler to
 * unroll them).
 *
 * Loops are expanded inside out, so nested unrolled loops multiply: five
 * levels of 64 would be 64^5 copies.  A loop whose copies would exceed
 * MLC_LOWER_MAX_UNROLL_NODES IR nodes stays a loop too; its body (already
 * expanded, so within the bound) is counted, never more than the bound. */
#include "mlcc/lower.h"

typedef struct Count {
  int64_t n, limit;
} Count;

static bool count_expr(MlcVisitor *v, const MlcExpr *e) {
  Count *c = v->user;
  return ++c->n <= c->limit;
}

static bool count_stmt(MlcVisitor *v, const MlcStmt *s) {
  Count *c = v->user;
  return ++c->n <= c->limit;
}

/* the IR nodes of s, or some number over limit */
static int64_t size_upto(const MlcStmt *s, int64_t limit) {
  Count c = {0, limit};
  MlcVisitor v = {.user = &c, .expr = count_expr, .stmt = count_stmt};
  mlc_visit_stmt(&v, s);
  return c.n;
}

static MlcStmt *unroll_stmt(MlcMutator *m, MlcStmt *s) {
  MlcStmt *r = mlc_mutate_stmt_children(m, s);
  if (!r || r->kind != MLC_STMT_FOR || r->loop.kind != MLC_FOR_UNROLLED) return r;
  int64_t lo, n;
  if (!mlc_e_is_const_int(r->loop.min, &lo) || !mlc_e_is_const_int(r->loop.extent, &n) || n < 1 ||
      n > MLC_LOWER_MAX_UNROLL)
    return r;
  if (size_upto(r->loop.body, MLC_LOWER_MAX_UNROLL_NODES / n) * n > MLC_LOWER_MAX_UNROLL_NODES) return r;
  MlcCtx *ctx = m->ctx;
  MlcStmt **copies = mlc_arena_array(&ctx->arena, (size_t)n, sizeof *copies);
  for (int64_t k = 0; k < n; k++) {
    MlcMap vmap = {0};
    mlc_map_put(&vmap, r->loop.var, mlc_e_int(ctx, r->loop.var->dtype, lo + k));
    copies[k] = mlc_substitute_stmt(ctx, r->loop.body, &vmap);
    mlc_map_free(&vmap);
    if (!copies[k]) return NULL;
  }
  return mlc_s_seq(ctx, copies, (int)n);
}

MlcPrimFunc *mlc_lower_unroll(MlcCtx *ctx, const MlcPrimFunc *f) {
  MlcMutator m = {.ctx = ctx, .stmt = unroll_stmt};
  MlcStmt *body = mlc_mutate_stmt(&m, f->body);
  mlc_map_free(&m.buffer_map);
  if (!body) return NULL;
  return mlc_prim_func_new(ctx, f->name, f->params, f->n_params, f->attrs, body);
}
