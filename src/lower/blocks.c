/* blocks.c - lowering stage 1: block realizes become plain statements.
 *
 * A block's iter vars are replaced by the values bound to them, its
 * predicate guards it with an if, its init runs when every reduce binding is
 * at its domain's minimum (the first iteration of the reduction), and its
 * allocated buffers become MLC_STMT_ALLOCATE around its body.  Unroll
 * pragmas on a block go onto the outermost loops of its body. */
#include "mlcc/lower.h"

#include <string.h>

static MlcStmt *lower_stmt(MlcMutator *m, MlcStmt *s);

/* The unroll pragmas a block carries (the field's tuner may put them on the
 * root block) go onto the outermost loops of its body, where the unroll
 * stage reads them; a loop's own value wins. */
static const char *const unroll_keys[] = {"pragma_auto_unroll_max_step", "pragma_unroll_explicit"};

static MlcStmt *pass_pragmas(MlcCtx *ctx, MlcStmt *s, MlcAttrs from) {
  if (!s) return s;
  switch (s->kind) {
  case MLC_STMT_SEQ: {
    MlcStmt **items = mlc_arena_array(&ctx->arena, (size_t)s->seq.n + 1, sizeof *items);
    for (int i = 0; i < s->seq.n; i++) items[i] = pass_pragmas(ctx, s->seq.items[i], from);
    return mlc_s_seq(ctx, items, s->seq.n);
  }
  case MLC_STMT_ALLOCATE: return mlc_s_allocate(ctx, s->alloc.buf, pass_pragmas(ctx, s->alloc.body, from));
  case MLC_STMT_LET: return mlc_s_let(ctx, s->let.var, s->let.value, pass_pragmas(ctx, s->let.body, from));
  case MLC_STMT_IF:
    return mlc_s_if(ctx, s->if_.cond, pass_pragmas(ctx, s->if_.then_s, from), pass_pragmas(ctx, s->if_.else_s, from));
  case MLC_STMT_FOR: {
    MlcAttrs a = s->loop.annotations;
    MlcAttr *items = mlc_arena_array(&ctx->arena, (size_t)a.n + 2, sizeof *items);
    if (a.n) memcpy(items, a.items, (size_t)a.n * sizeof *items);
    int n = a.n;
    for (size_t k = 0; k < 2; k++) {
      const char *key = mlc_intern(ctx, unroll_keys[k]);
      const MlcAttrValue *v = mlc_attrs_get(from, key);
      if (v && !mlc_attrs_get(a, key)) items[n++] = (MlcAttr){key, *v};
    }
    return mlc_s_for(ctx, s->loop.var, s->loop.min, s->loop.extent, s->loop.kind, s->loop.thread,
                     (MlcAttrs){items, n}, s->loop.body);
  }
  default: return s;
  }
}

static bool has_pragmas(MlcCtx *ctx, MlcAttrs a) {
  for (size_t k = 0; k < 2; k++)
    if (mlc_attrs_get(a, mlc_intern(ctx, unroll_keys[k]))) return true;
  return false;
}

static MlcStmt *lower_realize(MlcMutator *m, MlcStmt *s) {
  MlcCtx *ctx = m->ctx;
  const MlcBlock *b = s->realize.block;
  MlcMap vmap = {0};
  for (int i = 0; i < b->n_iters; i++) mlc_map_put(&vmap, b->iters[i].var, s->realize.values[i]);
  MlcStmt *body = mlc_mutate_stmt(m, b->body);
  body = body ? mlc_substitute_stmt(ctx, body, &vmap) : NULL;
  if (body && has_pragmas(ctx, b->annotations)) body = pass_pragmas(ctx, body, b->annotations);
  if (b->init) {
    MlcStmt *init = mlc_mutate_stmt(m, b->init);
    init = init ? mlc_substitute_stmt(ctx, init, &vmap) : NULL;
    MlcExpr *first = NULL;
    for (int i = 0; i < b->n_iters; i++) {
      if (b->iters[i].kind != MLC_ITER_REDUCE) continue;
      MlcExpr *at_min = mlc_e_bin(ctx, MLC_BIN_EQ, s->realize.values[i],
                                  mlc_substitute_expr(ctx, b->iters[i].dom.min, &vmap));
      first = first ? mlc_e_bin(ctx, MLC_BIN_AND, first, at_min) : at_min;
    }
    MlcStmt *pair[2] = {first ? mlc_s_if(ctx, first, init, NULL) : init, body};
    body = mlc_s_seq(ctx, pair, 2);
  }
  for (int i = b->n_allocs - 1; i >= 0; i--) body = mlc_s_allocate(ctx, b->allocs[i], body);
  int64_t always;
  MlcExpr *pred = s->realize.pred;
  if (pred && !(mlc_e_is_const_int(pred, &always) && always))
    body = mlc_s_if(ctx, mlc_substitute_expr(ctx, pred, &vmap), body, NULL);
  mlc_map_free(&vmap);
  return body;
}

static MlcStmt *lower_stmt(MlcMutator *m, MlcStmt *s) {
  if (s->kind == MLC_STMT_BLOCK_REALIZE) return lower_realize(m, s);
  return mlc_mutate_stmt_children(m, s);
}

MlcPrimFunc *mlc_lower_blocks(MlcCtx *ctx, const MlcPrimFunc *f) {
  MlcMutator m = {.ctx = ctx, .stmt = lower_stmt};
  MlcStmt *body = mlc_mutate_stmt(&m, f->body);
  mlc_map_free(&m.buffer_map);
  if (!body) return NULL;
  return mlc_prim_func_new(ctx, f->name, f->params, f->n_params, f->attrs, body);
}
