/* simplify.c - lowering stage 5: simplify every expression with the ranges
 * of the enclosing loops known, drop ifs whose condition is decided, and
 * remove loops of extent 0 or 1, take a reduction's init (an if on the
 * loop's first iteration) out of the loop.  Floor division and modulo of a dividend
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

/* ---- the init of a reduction, out of its loop ------------------------------
 * `for k: { if (k == lo && c) S1; S2 }` runs S1 (at k = lo) first, then S2
 * for every k: the same as `if (c[k := lo]) S1[k := lo]; for k: S2` when the
 * loop runs at least once.  Blocks leave a reduction's init that way (its
 * condition is the reduce loops at their minimum); out of the loop, the
 * C compiler keeps the accumulator in a register and vectorizes the loop. */

/* cond has a top-level conjunct `var == lo` */
static bool has_first_test(const MlcExpr *c, const MlcExpr *var, int64_t lo) {
  int64_t v;
  if (c->kind != MLC_EXPR_BINARY) return false;
  if (c->bin.op == MLC_BIN_AND) return has_first_test(c->bin.a, var, lo) || has_first_test(c->bin.b, var, lo);
  if (c->bin.op != MLC_BIN_EQ) return false;
  return (c->bin.a == var && mlc_e_is_const_int(c->bin.b, &v) && v == lo) ||
         (c->bin.b == var && mlc_e_is_const_int(c->bin.a, &v) && v == lo);
}

/* the first statement of s (through nested sequences) and s without it
 * (NULL when nothing is left) */
static MlcStmt *split_first(MlcCtx *ctx, MlcStmt *s, MlcStmt **rest) {
  if (s->kind != MLC_STMT_SEQ || s->seq.n == 0) return *rest = NULL, s;
  MlcStmt *inner_rest, *first = split_first(ctx, s->seq.items[0], &inner_rest);
  int n = s->seq.n - 1 + (inner_rest != NULL);
  if (n == 0) return *rest = NULL, first;
  MlcStmt **items = mlc_arena_array(&ctx->arena, (size_t)n, sizeof *items);
  int k = 0;
  if (inner_rest) items[k++] = inner_rest;
  for (int i = 1; i < s->seq.n; i++) items[k++] = s->seq.items[i];
  *rest = k == 1 ? items[0] : mlc_s_seq(ctx, items, k);
  return first;
}

/* loop s (bounds simplified, constant, at least one iteration) with a
 * leading first-iteration if taken out; s itself when it has none */
static MlcStmt *peel_first(MlcMutator *m, MlcStmt *s, int64_t lo) {
  MlcCtx *ctx = m->ctx;
  if (s->loop.kind != MLC_FOR_SERIAL && s->loop.kind != MLC_FOR_UNROLLED) return s;
  MlcStmt *rest, *first = split_first(ctx, s->loop.body, &rest);
  if (first->kind != MLC_STMT_IF || first->if_.else_s || !has_first_test(first->if_.cond, s->loop.var, lo))
    return s;
  MlcMap vmap = {0};
  mlc_map_put(&vmap, s->loop.var, s->loop.min);
  MlcStmt *init = mlc_substitute_stmt(ctx, first, &vmap);
  mlc_map_free(&vmap);
  if (!init || !(init = mlc_mutate_stmt(m, init))) return NULL; /* folds the decided test */
  if (!rest) return init;
  MlcStmt *loop = mlc_s_for(ctx, s->loop.var, s->loop.min, s->loop.extent, s->loop.kind, s->loop.thread,
                            s->loop.annotations, rest);
  return mlc_s_seq(ctx, (MlcStmt *[]){init, loop}, 2);
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
    MlcStmt *r = min == s->loop.min && ext == s->loop.extent && body == s->loop.body
                     ? s
                     : mlc_s_for(ctx, s->loop.var, min, ext, s->loop.kind, s->loop.thread, s->loop.annotations, body);
    return known ? peel_first(m, r, lo) : r;
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
