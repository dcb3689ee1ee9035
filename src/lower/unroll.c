/* unroll.c - lowering stage 4: unrolling.
 *
 * Two sources of unrolled loops:
 *   - loops a schedule marked unrolled (`sch.unroll`);
 *   - under a loop annotated `pragma_auto_unroll_max_step = N` (what the
 *     field's tuner writes on the outer loop of each block), every serial
 *     loop of constant extent whose whole nest runs at most N steps (a
 *     store is a step, a vectorized loop's body one step per iteration of
 *     the loops around it, since it becomes one vector statement).  With
 *     `pragma_unroll_explicit = 1` they are expanded here; with 0 (or no
 *     such key) they stay loops and the C compiler is asked to unroll them
 *     (the annotation `pragma_unroll_explicit = 0` goes on each such loop,
 *     which the C generator reads).
 * A loop is expanded into copies of its body when its extent is constant,
 * at most MLC_LOWER_MAX_UNROLL, and the copies hold at most
 * MLC_LOWER_MAX_UNROLL_STEPS statements in all (inner unrolled loops
 * counted expanded) and at most MLC_LOWER_MAX_UNROLL_NODES IR nodes
 * (loops are expanded inside out, so nested unrolled loops multiply: five
 * levels of 64 would be 64^5 copies; the body, already expanded, is
 * counted, never past the bound); longer or symbolic ones stay loops with
 * the unroll hint, so no annotation makes the code grow without bound. */
#include "mlcc/lower.h"

#include <string.h>

#define HUGE_STEPS (INT64_MAX / 4)

static int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) || r > HUGE_STEPS ? HUGE_STEPS : r;
}

static int64_t sat_add(int64_t a, int64_t b) { return a + b > HUGE_STEPS ? HUGE_STEPS : a + b; }

/* statements s runs (vectorized loops counted once per vector statement) */
static int64_t steps(const MlcStmt *s) {
  if (!s) return 0;
  int64_t n = 0, ext;
  switch (s->kind) {
  case MLC_STMT_STORE: case MLC_STMT_EVALUATE: return 1;
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++) n = sat_add(n, steps(s->seq.items[i]));
    return n;
  case MLC_STMT_IF: return sat_add(1, sat_add(steps(s->if_.then_s), steps(s->if_.else_s)));
  case MLC_STMT_LET: return steps(s->let.body);
  case MLC_STMT_ALLOCATE: return steps(s->alloc.body);
  case MLC_STMT_FOR:
    if (s->loop.kind == MLC_FOR_VECTORIZED) return steps(s->loop.body);
    if (!mlc_e_is_const_int(s->loop.extent, &ext) || ext < 0) return HUGE_STEPS;
    return sat_mul(ext, steps(s->loop.body));
  case MLC_STMT_BLOCK_REALIZE: return HUGE_STEPS;
  }
  return HUGE_STEPS;
}

/* ---- pragma_auto_unroll_max_step ------------------------------------------------ */

typedef struct Auto {
  int64_t max_step; /* 0: outside any annotated loop */
  bool explicit_;
} Auto;

static int64_t attr_int(MlcAttrs a, const char *key, int64_t dflt) {
  const MlcAttrValue *v = NULL;
  for (int i = 0; i < a.n; i++)
    if (!strcmp(a.items[i].key, key)) v = &a.items[i].val;
  if (!v) return dflt;
  if (v->kind == MLC_ATTR_INT) return v->i;
  if (v->kind == MLC_ATTR_BOOL) return v->b;
  if (v->kind == MLC_ATTR_EXPR && v->expr->kind == MLC_EXPR_INT) return v->expr->int_val;
  return dflt;
}

static MlcStmt *mark_stmt(MlcMutator *m, MlcStmt *s) {
  Auto *au = m->user;
  if (s->kind != MLC_STMT_FOR) return mlc_mutate_stmt_children(m, s);
  Auto saved = *au;
  int64_t max_step = attr_int(s->loop.annotations, "pragma_auto_unroll_max_step", -1);
  if (max_step >= 0) {
    au->max_step = max_step;
    au->explicit_ = attr_int(s->loop.annotations, "pragma_unroll_explicit", 1) != 0;
  }
  MlcStmt *r = mlc_mutate_stmt_children(m, s);
  bool annotated_here = max_step >= 0;
  *au = saved;
  int64_t ext;
  if (!r || annotated_here || au->max_step <= 0 || r->loop.kind != MLC_FOR_SERIAL ||
      !mlc_e_is_const_int(r->loop.extent, &ext) || steps(r) > au->max_step)
    return r;
  MlcAttrs attrs = r->loop.annotations;
  if (!au->explicit_) {
    MlcAttr *items = mlc_arena_array(&m->ctx->arena, (size_t)attrs.n + 1, sizeof *items);
    if (attrs.n) memcpy(items, attrs.items, (size_t)attrs.n * sizeof *items);
    items[attrs.n] = (MlcAttr){mlc_intern(m->ctx, "pragma_unroll_explicit"), {.kind = MLC_ATTR_INT, .i = 0}};
    attrs = (MlcAttrs){items, attrs.n + 1};
  }
  return mlc_s_for(m->ctx, r->loop.var, r->loop.min, r->loop.extent, MLC_FOR_UNROLLED, r->loop.thread, attrs,
                   r->loop.body);
}

/* ---- expansion ------------------------------------------------------------------ */

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
      n > MLC_LOWER_MAX_UNROLL || attr_int(r->loop.annotations, "pragma_unroll_explicit", 1) == 0 ||
      sat_mul(n, steps(r->loop.body)) > MLC_LOWER_MAX_UNROLL_STEPS)
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
  Auto au = {0};
  MlcMutator mark = {.ctx = ctx, .user = &au, .stmt = mark_stmt};
  MlcStmt *body = mlc_mutate_stmt(&mark, f->body);
  mlc_map_free(&mark.buffer_map);
  MlcMutator m = {.ctx = ctx, .stmt = unroll_stmt};
  body = body ? mlc_mutate_stmt(&m, body) : NULL;
  mlc_map_free(&m.buffer_map);
  if (!body) return NULL;
  return mlc_prim_func_new(ctx, f->name, f->params, f->n_params, f->attrs, body);
}
