/* gpu_reduce.c - reductions bound to threadIdx become cross-thread
 * reductions (lower.h, "GPU targets"), before the blocks are lowered.
 *
 * The shape recognized is the one `bind` makes of a reduction loop split
 * as [threads, rest]: a loop bound to threadIdx whose body is a chain of
 * serial loops down to one reduction block, the thread loop's var and the
 * chain's vars feeding only the block's reduce bindings, and the block's
 * update being `out = out OP value` with OP one of + * min max.  It becomes
 * three phases, each a loop over the same threads:
 *   1. each thread folds its part into a local accumulator (starting from
 *      OP's identity) and stores it in a shared array, one slot per thread;
 *   2. a tree: log2 steps, in each the lower half of the active threads
 *      adds the upper half's slot into its own (read into a local first, so
 *      that reads and writes of the step are separated by a barrier);
 *   3. thread 0 writes out = OP(init, slot 0).
 * The barriers between the phases come from the barrier stage like any
 * other exchange through shared memory.  The result is OP applied in a
 * different order, which is exact for min and max and for integers, and
 * rounds differently for floating-point sums and products.  Anything else
 * bound to threadIdx in a reduction is refused later, by name. */
#include "mlcc/lower.h"

#include <math.h>
#include <string.h>

typedef struct Red {
  MlcCtx *ctx;
  int n_done;
} Red;

static bool is_thread_loop(const MlcStmt *s) {
  return s->kind == MLC_STMT_FOR && s->loop.kind == MLC_FOR_THREAD && s->loop.thread &&
         !strncmp(s->loop.thread, "threadIdx", 9);
}

/* whether every var e reads is t's or a chain loop's */
typedef struct Only { MlcVisitor v; const MlcStmt *t; const MlcStmt **chain; int n; bool other; } Only;
static bool only_hook(MlcVisitor *v, const MlcExpr *e) {
  Only *o = (Only *)v;
  if (e->kind != MLC_EXPR_VAR || e == o->t->loop.var) return true;
  bool found = false;
  for (int i = 0; i < o->n; i++) found |= e == o->chain[i]->loop.var;
  o->other |= !found;
  return true;
}

typedef struct UsesVar { MlcVisitor v; const MlcExpr *var; bool found; } UsesVar;
static bool uses_hook(MlcVisitor *v, const MlcExpr *e) {
  UsesVar *u = (UsesVar *)v;
  if (e == u->var) u->found = true;
  return !u->found;
}
static bool uses(const MlcExpr *e, const MlcExpr *var) {
  UsesVar u = {.v = {.expr = uses_hook}, .var = var};
  if (e) mlc_visit_expr(&u.v, e);
  return u.found;
}

/* OP's identity in dtype t */
static MlcExpr *identity(MlcCtx *ctx, MlcBinOp op, MlcDType t) {
  bool fl = mlc_dtype_is_float(t);
  switch (op) {
  case MLC_BIN_ADD: return fl ? mlc_e_float(ctx, t, 0.0) : mlc_e_int(ctx, t, 0);
  case MLC_BIN_MUL: return fl ? mlc_e_float(ctx, t, 1.0) : mlc_e_int(ctx, t, 1);
  case MLC_BIN_MAX:
    if (fl) return mlc_e_float(ctx, t, -INFINITY);
    return mlc_e_int(ctx, t, t.code == MLC_TC_UINT ? 0 : t.bits == 64 ? INT64_MIN : -((int64_t)1 << (t.bits - 1)));
  case MLC_BIN_MIN:
    if (fl) return mlc_e_float(ctx, t, INFINITY);
    if (t.code == MLC_TC_UINT) return mlc_e_int(ctx, t, t.bits == 64 ? -1 : (int64_t)(((uint64_t)1 << t.bits) - 1));
    return mlc_e_int(ctx, t, t.bits == 64 ? INT64_MAX : ((int64_t)1 << (t.bits - 1)) - 1);
  default: return NULL;
  }
}

/* The update `out[idx] = out[idx] OP value` (either operand order): the
 * op and the value; false for any other body. */
static bool update_of(const MlcBlock *b, MlcBinOp *op, MlcExpr **value) {
  const MlcStmt *s = b->body;
  if (!s || s->kind != MLC_STMT_STORE || !b->init || b->init->kind != MLC_STMT_STORE ||
      b->init->store.buf != s->store.buf)
    return false;
  const MlcExpr *v = s->store.value;
  if (v->kind != MLC_EXPR_BINARY) return false;
  MlcBinOp o = v->bin.op;
  if (o != MLC_BIN_ADD && o != MLC_BIN_MUL && o != MLC_BIN_MIN && o != MLC_BIN_MAX) return false;
  for (int side = 0; side < 2; side++) {
    const MlcExpr *self = side ? v->bin.b : v->bin.a, *other = side ? v->bin.a : v->bin.b;
    if (self->kind != MLC_EXPR_LOAD || self->load.buf != s->store.buf || self->load.n != s->store.n) continue;
    bool same = true;
    for (int i = 0; i < s->store.n; i++) same &= self->load.idx[i] == s->store.idx[i];
    if (!same) continue;
    *op = o;
    *value = (MlcExpr *)other;
    return true;
  }
  return false;
}

static MlcBuffer *buf1(MlcCtx *ctx, const char *name, MlcDType t, int64_t n, const char *scope) {
  MlcExpr *shape = mlc_e_int(ctx, MLC_I32, n);
  return mlc_buffer_new(ctx, name, t, &shape, 1, NULL, NULL, mlc_intern(ctx, scope));
}

static MlcExpr *ld(MlcCtx *ctx, MlcBuffer *b, MlcExpr *i) { return mlc_e_load(ctx, b, &i, 1); }
static MlcStmt *st(MlcCtx *ctx, MlcBuffer *b, MlcExpr *i, MlcExpr *v) { return mlc_s_store(ctx, b, &i, 1, v); }

static MlcStmt *thread_loop(MlcCtx *ctx, const MlcStmt *t, MlcExpr *var, MlcStmt *body) {
  return mlc_s_for(ctx, var, t->loop.min, t->loop.extent, MLC_FOR_THREAD, t->loop.thread, (MlcAttrs){0}, body);
}

/* the cross-thread form of thread loop t over the chain down to realize r,
 * or NULL (nothing changed) when the shape is not the one above */
static MlcStmt *rewrite(Red *rd, const MlcStmt *t, const MlcStmt **chain, int n_chain, const MlcStmt *r) {
  MlcCtx *ctx = rd->ctx;
  const MlcBlock *b = r->realize.block;
  MlcBinOp op;
  MlcExpr *value;
  int64_t ext, lo;
  if (!update_of(b, &op, &value) || !mlc_e_is_const_int(t->loop.extent, &ext) || ext < 1 ||
      !mlc_e_is_const_int(t->loop.min, &lo) || lo != 0 || b->n_allocs)
    return NULL;
  /* the reduction runs entirely inside the thread loop: its bindings read
   * no loop further out (that would split it across the outer loop's
   * iterations, each folding onto the same output) */
  Only only = {.v = {.expr = only_hook}, .t = t, .chain = chain, .n = n_chain};
  for (int i = 0; i < b->n_iters; i++)
    if (b->iters[i].kind == MLC_ITER_REDUCE) mlc_visit_expr(&only.v, r->realize.values[i]);
  if (only.other) return NULL;
  MlcMap vmap = {0};
  for (int i = 0; i < b->n_iters; i++) mlc_map_put(&vmap, b->iters[i].var, r->realize.values[i]);
  const MlcStmt *upd = b->body;
  MlcExpr **idx = mlc_arena_array(&ctx->arena, (size_t)upd->store.n + 1, sizeof *idx);
  bool ok = true;
  for (int i = 0; i < upd->store.n; i++) {
    idx[i] = mlc_substitute_expr(ctx, upd->store.idx[i], &vmap);
    ok &= !uses(idx[i], t->loop.var);
    for (int c = 0; c < n_chain; c++) ok &= !uses(idx[i], chain[c]->loop.var);
  }
  MlcExpr *init = mlc_substitute_expr(ctx, b->init->store.value, &vmap);
  MlcExpr *val = mlc_substitute_expr(ctx, value, &vmap);
  MlcExpr *pred = r->realize.pred ? mlc_substitute_expr(ctx, r->realize.pred, &vmap) : NULL;
  mlc_map_free(&vmap);
  MlcDType dt = upd->store.buf->dtype;
  MlcExpr *id = identity(ctx, op, dt);
  if (!ok || !id || uses(init, t->loop.var)) return NULL;
  int k = rd->n_done++;
  const char *base = b->name;
  MlcBuffer *acc = buf1(ctx, mlc_internf(ctx, "%s_red_local%s", base, k ? mlc_internf(ctx, "_%d", k) : ""), dt, 1, "local");
  MlcBuffer *slots = buf1(ctx, mlc_internf(ctx, "%s_red_shared%s", base, k ? mlc_internf(ctx, "_%d", k) : ""), dt, ext, "shared");
  MlcBuffer *tmp = buf1(ctx, mlc_internf(ctx, "%s_red_tmp%s", base, k ? mlc_internf(ctx, "_%d", k) : ""), dt, 1, "local");
  MlcExpr *zero = mlc_e_int(ctx, MLC_I32, 0);
  MlcDType it = t->loop.var->dtype;
  /* phase 1: the thread's part */
  MlcStmt *fold = st(ctx, acc, zero, mlc_e_bin(ctx, op, ld(ctx, acc, zero), val));
  int64_t always;
  if (pred && !(mlc_e_is_const_int(pred, &always) && always)) fold = mlc_s_if(ctx, pred, fold, NULL);
  for (int c = n_chain - 1; c >= 0; c--) {
    const MlcStmt *l = chain[c];
    fold = mlc_s_for(ctx, l->loop.var, l->loop.min, l->loop.extent, l->loop.kind, l->loop.thread, l->loop.annotations, fold);
  }
  MlcStmt *p1[3] = {st(ctx, acc, zero, id), fold, st(ctx, slots, t->loop.var, ld(ctx, acc, zero))};
  MlcStmt *phases[40];
  int n = 0;
  phases[n++] = thread_loop(ctx, t, t->loop.var, mlc_s_allocate(ctx, acc, mlc_s_seq(ctx, p1, 3)));
  /* phase 2: the tree */
  int64_t p = 1;
  while (p < ext) p *= 2;
  for (int64_t s = p / 2; s >= 1 && n < 38; s /= 2) {
    MlcExpr *v = mlc_e_var(ctx, mlc_internf(ctx, "%s_s%lld", t->loop.var->var.name, (long long)s), it);
    MlcExpr *sv = mlc_e_int(ctx, it, s), *e = mlc_e_int(ctx, it, ext);
    MlcExpr *other = mlc_e_bin(ctx, MLC_BIN_ADD, v, sv);
    MlcExpr *active = mlc_e_bin(ctx, MLC_BIN_AND, mlc_e_bin(ctx, MLC_BIN_LT, v, sv), mlc_e_bin(ctx, MLC_BIN_LT, other, e));
    MlcStmt *get = mlc_s_if(ctx, active, st(ctx, tmp, zero, ld(ctx, slots, other)), NULL);
    MlcStmt *put = mlc_s_if(ctx, active, st(ctx, slots, v, mlc_e_bin(ctx, op, ld(ctx, slots, v), ld(ctx, tmp, zero))), NULL);
    MlcStmt *step[2] = {get, put};
    phases[n++] = thread_loop(ctx, t, v, mlc_s_allocate(ctx, tmp, mlc_s_seq(ctx, step, 2)));
  }
  /* phase 3: the result, by thread 0 */
  MlcExpr *v = mlc_e_var(ctx, mlc_internf(ctx, "%s_out", t->loop.var->var.name), it);
  MlcStmt *out = mlc_s_store(ctx, upd->store.buf, idx, upd->store.n, mlc_e_bin(ctx, op, init, ld(ctx, slots, zero)));
  phases[n++] = thread_loop(ctx, t, v, mlc_s_if(ctx, mlc_e_bin(ctx, MLC_BIN_EQ, v, mlc_e_int(ctx, it, 0)), out, NULL));
  return mlc_s_allocate(ctx, slots, mlc_s_seq(ctx, phases, n));
}

static MlcStmt *visit(MlcMutator *m, MlcStmt *s) {
  Red *rd = m->user;
  if (is_thread_loop(s)) {
    const MlcStmt *chain[16];
    int n = 0;
    const MlcStmt *c = s->loop.body;
    while (c && c->kind == MLC_STMT_FOR && c->loop.kind != MLC_FOR_THREAD && n < 16) {
      chain[n++] = c;
      c = c->loop.body;
    }
    if (c && c->kind == MLC_STMT_BLOCK_REALIZE) {
      const MlcBlock *b = c->realize.block;
      bool bound = false;
      for (int i = 0; i < b->n_iters; i++)
        bound |= b->iters[i].kind == MLC_ITER_REDUCE && uses(c->realize.values[i], s->loop.var);
      MlcStmt *r = bound ? rewrite(rd, s, chain, n, c) : NULL;
      if (r) return r;
    }
  }
  return mlc_mutate_stmt_children(m, s);
}

MlcPrimFunc *mlc_gpu_lower_cross_thread(MlcCtx *ctx, const MlcPrimFunc *f) {
  Red rd = {.ctx = ctx};
  MlcMutator m = {.ctx = ctx, .user = &rd, .stmt = visit};
  MlcStmt *body = mlc_mutate_stmt(&m, f->body);
  mlc_map_free(&m.buffer_map);
  if (!body) return NULL;
  if (!rd.n_done) return (MlcPrimFunc *)f;
  MlcPrimFunc *g = mlc_arena_array(&ctx->arena, 1, sizeof *g);
  *g = *f;
  g->body = body;
  return g;
}
