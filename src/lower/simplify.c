/* simplify.c - lowering stage 5: simplify every expression with the ranges
 * of the enclosing loops known, drop ifs whose condition is decided, and
 * remove loops of extent 0 or 1.  Floor division and modulo of a dividend
 * known non-negative by a positive constant become the truncating ones. */
#include "mlcc/lower.h"
#include "mlcc/arith.h"

/* floordiv / floormod of integers by a positive constant, whose dividend
 * the loop ranges prove non-negative, are C's / and %: what the compiler
 * sees then is arithmetic it hoists out of the loops it does not depend on
 * (the branchy floor helpers of a fused loop's index stayed in the inner
 * loop), and divides by a power of two as shifts */
typedef struct Simp {
  MlcAnalyzer az;           /* first: simplify_stmt's loops bind ranges in it */
  const MlcExpr *vec[16];   /* vars of the vectorized loops around */
  int n_vec;
} Simp;

/* e is plain integer arithmetic of vars outside vectorized loops (the
 * vectorize stage reads floordiv/floormod of its lanes, not / and %) */
static bool scalar_index(const Simp *sp, const MlcExpr *e) {
  switch (e->kind) {
  case MLC_EXPR_INT: return true;
  case MLC_EXPR_VAR:
    for (int i = 0; i < sp->n_vec; i++)
      if (sp->vec[i] == e) return false;
    return true;
  case MLC_EXPR_BINARY: return scalar_index(sp, e->bin.a) && scalar_index(sp, e->bin.b);
  case MLC_EXPR_NEG: case MLC_EXPR_CAST: return scalar_index(sp, e->operand);
  default: return false;
  }
}

static MlcExpr *truncating(Simp *sp, MlcExpr *e) {
  MlcAnalyzer *az = &sp->az;
  int64_t d;
  if (!e || e->kind != MLC_EXPR_BINARY || (e->bin.op != MLC_BIN_FLOORDIV && e->bin.op != MLC_BIN_FLOORMOD) ||
      e->dtype.lanes != 1 || !mlc_dtype_is_int(e->dtype) || !mlc_e_is_const_int(e->bin.b, &d) || d <= 0 ||
      !scalar_index(sp, e->bin.a) || mlc_arith_bound(az, e->bin.a).min < 0)
    return e;
  return mlc_e_bin(az->ctx, e->bin.op == MLC_BIN_FLOORDIV ? MLC_BIN_DIV : MLC_BIN_MOD, e->bin.a, e->bin.b);
}

static MlcExpr *simplify_expr(MlcMutator *m, MlcExpr *e) {
  MlcExpr *kids = mlc_mutate_expr_children(m, e);
  Simp *sp = m->user;
  return kids ? truncating(sp, mlc_arith_simplify(&sp->az, kids)) : NULL;
}

static MlcStmt *simplify_stmt(MlcMutator *m, MlcStmt *s) {
  MlcAnalyzer *az = &((Simp *)m->user)->az;
  MlcCtx *ctx = m->ctx;
  switch (s->kind) {
  case MLC_STMT_FOR: {
    MlcExpr *min = mlc_mutate_expr(m, s->loop.min), *ext = mlc_mutate_expr(m, s->loop.extent);
    int64_t lo, n;
    bool known = mlc_e_is_const_int(min, &lo) && mlc_e_is_const_int(ext, &n);
    if (known && n <= 0) return mlc_s_evaluate(ctx, mlc_e_int(ctx, MLC_I32, 0));
    if (known && n == 1 && s->loop.kind != MLC_FOR_THREAD) {
      MlcMap vmap = {0};
      mlc_map_put(&vmap, s->loop.var, min);
      MlcStmt *body = mlc_substitute_stmt(ctx, s->loop.body, &vmap);
      mlc_map_free(&vmap);
      return body ? mlc_mutate_stmt(m, body) : NULL;
    }
    Simp *sp = m->user;
    bool vec = s->loop.kind == MLC_FOR_VECTORIZED && sp->n_vec < 16;
    if (vec) sp->vec[sp->n_vec++] = s->loop.var;
    if (known) mlc_arith_bind(az, s->loop.var, lo, n);
    MlcStmt *body = mlc_mutate_stmt(m, s->loop.body);
    mlc_arith_unbind(az, s->loop.var);
    if (vec) sp->n_vec--;
    if (!body) return NULL;
    if (min == s->loop.min && ext == s->loop.extent && body == s->loop.body) return s;
    return mlc_s_for(ctx, s->loop.var, min, ext, s->loop.kind, s->loop.thread, s->loop.annotations, body);
  }
  case MLC_STMT_IF: {
    MlcExpr *c = mlc_mutate_expr(m, s->if_.cond);
    int64_t v;
    if (c && mlc_e_is_const_int(c, &v)) {
      if (v) return mlc_mutate_stmt(m, s->if_.then_s);
      return s->if_.else_s ? mlc_mutate_stmt(m, s->if_.else_s) : mlc_s_evaluate(ctx, mlc_e_int(ctx, MLC_I32, 0));
    }
    MlcStmt *t = mlc_mutate_stmt(m, s->if_.then_s);
    MlcStmt *e = s->if_.else_s ? mlc_mutate_stmt(m, s->if_.else_s) : NULL;
    return mlc_s_if(ctx, c, t, e);
  }
  case MLC_STMT_SEQ: {
    /* drop the no-ops that removed loops and ifs leave */
    MlcStmt **items = mlc_arena_array(&ctx->arena, (size_t)s->seq.n + 1, sizeof *items);
    int n = 0;
    for (int i = 0; i < s->seq.n; i++) {
      MlcStmt *x = mlc_mutate_stmt(m, s->seq.items[i]);
      if (!x) return NULL;
      if (x->kind == MLC_STMT_EVALUATE && x->eval->kind == MLC_EXPR_INT) continue;
      items[n++] = x;
    }
    return n ? mlc_s_seq(ctx, items, n) : mlc_s_evaluate(ctx, mlc_e_int(ctx, MLC_I32, 0));
  }
  default: return mlc_mutate_stmt_children(m, s);
  }
}

MlcPrimFunc *mlc_lower_simplify(MlcCtx *ctx, const MlcPrimFunc *f) {
  Simp sp = {.n_vec = 0};
  mlc_arith_init(&sp.az, ctx);
  MlcMutator m = {.ctx = ctx, .user = &sp, .expr = simplify_expr, .stmt = simplify_stmt};
  MlcStmt *body = mlc_mutate_stmt(&m, f->body);
  mlc_arith_free(&sp.az);
  mlc_map_free(&m.buffer_map);
  if (!body) return NULL;
  return mlc_prim_func_new(ctx, f->name, f->params, f->n_params, f->attrs, body);
}
