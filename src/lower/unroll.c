/* unroll.c - lowering stage 4: loops marked unrolled with a constant extent
 * of at most MLC_LOWER_MAX_UNROLL become that many copies of their body;
 * longer or symbolic ones stay loops (the C generator asks the compiler to
 * unroll them). */
#include "mlcc/lower.h"

static MlcStmt *unroll_stmt(MlcMutator *m, MlcStmt *s) {
  MlcStmt *r = mlc_mutate_stmt_children(m, s);
  if (!r || r->kind != MLC_STMT_FOR || r->loop.kind != MLC_FOR_UNROLLED) return r;
  int64_t lo, n;
  if (!mlc_e_is_const_int(r->loop.min, &lo) || !mlc_e_is_const_int(r->loop.extent, &n) || n < 1 ||
      n > MLC_LOWER_MAX_UNROLL)
    return r;
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
