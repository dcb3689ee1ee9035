/* interchange.c - lowering stage 7: a spatial loop around a reduction loop
 * moves inside it, so that its iterations' accumulators are independent.
 *
 * A program as written or lightly scheduled keeps one accumulator per
 * reduction: `for j: for k: C[i, j] += A[i, k] * B[k, j]`, or the course's
 * `for j_0: for k: for j_1: C[i, j_0 * 16 + j_1] += ...`.  The C compiler
 * vectorizes the innermost spatial loop, but every step of k then waits for
 * the previous one (the latency of an FMA, not its throughput, sets the
 * pace).  With the spatial loop inside the reduction loop (`for k: for j`,
 * `for k: for j_0: for j_1`) the accumulators of different j are
 * independent and the compiler overlaps them; each element still sums its
 * terms in the same order, so results are bit for bit the same.
 *
 * The stage runs after simplify (flat buffers, unrolled loops expanded, a
 * reduction's init already taken out of its loop) and looks for a serial
 * loop S (no annotations, constant extent) whose body is a serial reduction
 * loop R, or a sequence ending in one (what comes before R -- an init -- stays in a
 * loop over S of its own), such that
 *   - R's body stores into some buffer at an index that uses S's var and not
 *     R's (an accumulator that lives across R), and is small: stores, ifs
 *     and at most one level of loops of constant extent (no allocations,
 *     lets, calls to extern code);
 *   - the iterations of S touch disjoint elements of every buffer S's body
 *     writes: for each such buffer one dimension holds c * s + rest in every
 *     access (c the same constant), and for any two accesses (an access and
 *     itself included) at any iterations of the loops inside S, the rests
 *     differ by less than |c| -- so no element is touched by two values of
 *     s, and neither reordering S with R nor splitting the init off changes
 *     what any element sees.
 * S goes inside R, unrolled when R's body has a loop of its own (S is then
 * a loop over independent inner vectors) and S is short, else a plain loop
 * (innermost: the compiler vectorizes it).  The walk is top-down and does not
 * look inside a nest it rewrote.  Functions with thread-bound loops (GPU
 * kernels) are left alone. */
#include "mlcc/lower.h"
#include "mlcc/arith.h"

#include <string.h>

enum { MAX_ACCESSES = 64, MAX_INNER = 16 };

typedef struct Access { MlcExpr **idx; int n; } Access;

typedef struct Nest {
  const MlcStmt *inner[MAX_INNER]; /* loops inside S */
  int n_inner;
  bool ok;
} Nest;

static bool plain_loop(const MlcStmt *s, int64_t *ext) {
  int64_t min;
  return s && s->kind == MLC_STMT_FOR && s->loop.kind == MLC_FOR_SERIAL && s->loop.annotations.n == 0 &&
         mlc_e_is_const_int(s->loop.min, &min) && mlc_e_is_const_int(s->loop.extent, ext) && *ext >= 2;
}

/* expressions allowed inside S: no lets, no extern code */
static bool plain_expr_hook(MlcVisitor *v, const MlcExpr *e) {
  bool *ok = v->user;
  if (e->kind == MLC_EXPR_LET ||
      (e->kind == MLC_EXPR_CALL && (e->call.op == MLC_INTRIN_CALL_EXTERN || e->call.op == MLC_INTRIN_CALL_PACKED ||
                                    e->call.op == MLC_INTRIN_ADDRESS_OF)))
    *ok = false;
  return *ok;
}

static bool plain_exprs(MlcExpr *const *es, int n) {
  bool ok = true;
  MlcVisitor v = {.user = &ok, .expr = plain_expr_hook};
  for (int i = 0; ok && i < n; i++)
    if (es[i]) mlc_visit_expr(&v, es[i]);
  return ok;
}

/* s is made of stores, ifs, sequences and serial/vectorized/unrolled loops
 * of constant extent nested at most max_depth deep; its loops recorded */
static bool plain_stmt(const MlcStmt *s, int max_depth, Nest *nest) {
  int64_t ext, min;
  if (!s) return true;
  switch (s->kind) {
  case MLC_STMT_STORE: return plain_exprs(s->store.idx, s->store.n) && plain_exprs(&s->store.value, 1);
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++)
      if (!plain_stmt(s->seq.items[i], max_depth, nest)) return false;
    return true;
  case MLC_STMT_IF:
    return plain_exprs(&s->if_.cond, 1) && plain_stmt(s->if_.then_s, max_depth, nest) &&
           plain_stmt(s->if_.else_s, max_depth, nest);
  case MLC_STMT_FOR:
    if (max_depth == 0 || nest->n_inner == MAX_INNER) return false;
    if (s->loop.kind == MLC_FOR_PARALLEL || s->loop.kind == MLC_FOR_THREAD) return false;
    if (!mlc_e_is_const_int(s->loop.min, &min) || !mlc_e_is_const_int(s->loop.extent, &ext) || ext < 1) return false;
    nest->inner[nest->n_inner++] = s;
    return plain_stmt(s->loop.body, max_depth - 1, nest);
  default: return false;
  }
}

/* ---- accesses --------------------------------------------------------------------------------- */

typedef struct Collect {
  const MlcBuffer *buf;
  Access acc[MAX_ACCESSES];
  int n;
  bool overflow;
} Collect;

static void add_access(Collect *c, MlcExpr **idx, int n) {
  if (c->n == MAX_ACCESSES) c->overflow = true;
  else c->acc[c->n++] = (Access){idx, n};
}

static bool collect_expr(MlcVisitor *v, const MlcExpr *e) {
  Collect *c = v->user;
  if (e->kind == MLC_EXPR_LOAD && e->load.buf == c->buf) add_access(c, e->load.idx, e->load.n);
  return true;
}

static bool collect_stmt(MlcVisitor *v, const MlcStmt *s) {
  Collect *c = v->user;
  if (s->kind == MLC_STMT_STORE && s->store.buf == c->buf) add_access(c, s->store.idx, s->store.n);
  return true;
}

/* the buffers stored into under s */
typedef struct Stores { const MlcBuffer *buf[MAX_ACCESSES]; int n; bool overflow; } Stores;

static bool stores_stmt(MlcVisitor *v, const MlcStmt *s) {
  Stores *st = v->user;
  if (s->kind != MLC_STMT_STORE) return true;
  for (int i = 0; i < st->n; i++)
    if (st->buf[i] == s->store.buf) return true;
  if (st->n == MAX_ACCESSES) st->overflow = true;
  else st->buf[st->n++] = s->store.buf;
  return true;
}

/* ---- the disjointness of S's iterations ------------------------------------------------------- */

/* idx - c * s, simplified; NULL when it still uses s */
static MlcExpr *rest_of(MlcAnalyzer *az, MlcExpr *idx, const MlcExpr *s, int64_t c) {
  MlcCtx *ctx = az->ctx;
  if (!mlc_dtype_eq(idx->dtype, s->dtype)) return NULL;
  MlcExpr *cs = mlc_e_bin(ctx, MLC_BIN_MUL, mlc_e_int(ctx, s->dtype, c), (MlcExpr *)s);
  MlcExpr *r = cs ? mlc_e_bin(ctx, MLC_BIN_SUB, idx, cs) : NULL;
  r = r ? mlc_arith_simplify(az, r) : NULL;
  return r && !mlc_lower_uses_var(r, s) ? r : NULL;
}

/* Every access of buf under S separates S's iterations in some dimension
 * (the header's condition).  fresh maps each inner loop var to a copy bound
 * to the same range, so that two accesses are compared at independent
 * iterations of the inner loops. */
static bool disjoint(MlcAnalyzer *az, const Collect *c, const MlcExpr *s, const MlcMap *fresh) {
  if (c->overflow || c->n == 0) return false;
  int ndim = c->acc[0].n;
  for (int d = 0; d < ndim; d++) {
    int64_t coef = 0, k;
    bool ok = true;
    for (int a = 0; ok && a < c->n; a++) {
      ok = c->acc[a].n == ndim && mlc_lower_coef_of(c->acc[a].idx[d], s, &k) && k != 0 && (a == 0 || k == coef);
      coef = k;
    }
    for (int a = 0; ok && a < c->n; a++)
      for (int b = 0; ok && b < c->n; b++) {
        MlcExpr *ra = rest_of(az, c->acc[a].idx[d], s, coef), *rb = rest_of(az, c->acc[b].idx[d], s, coef);
        MlcExpr *rb2 = rb ? mlc_substitute_expr(az->ctx, rb, fresh) : NULL;
        MlcExpr *diff = ra && rb2 ? mlc_e_bin(az->ctx, MLC_BIN_SUB, ra, rb2) : NULL;
        MlcIntSet r = diff ? mlc_arith_bound(az, mlc_arith_simplify(az, diff)) : (MlcIntSet){MLC_INT_NEG_INF, MLC_INT_POS_INF};
        int64_t lim = coef < 0 ? -coef : coef;
        ok = r.min > -lim && r.max < lim;
      }
    if (ok) return true;
  }
  return false;
}

/* ---- one candidate ----------------------------------------------------------------------------- */

/* R's body stores at an index that uses s and not r */
static bool accumulates(const MlcStmt *body, const MlcExpr *s, const MlcExpr *r) {
  if (!body) return false;
  switch (body->kind) {
  case MLC_STMT_STORE: {
    bool uses_s = false;
    for (int d = 0; d < body->store.n; d++) {
      if (mlc_lower_uses_var(body->store.idx[d], r)) return false;
      uses_s = uses_s || mlc_lower_uses_var(body->store.idx[d], s);
    }
    return uses_s;
  }
  case MLC_STMT_SEQ:
    for (int i = 0; i < body->seq.n; i++)
      if (accumulates(body->seq.items[i], s, r)) return true;
    return false;
  case MLC_STMT_IF: return accumulates(body->if_.then_s, s, r) || accumulates(body->if_.else_s, s, r);
  case MLC_STMT_FOR: return accumulates(body->loop.body, s, r);
  default: return false;
  }
}

/* S with its var bound in az: the rewritten nest, or NULL to leave it */
static MlcStmt *try_interchange(MlcCtx *ctx, MlcAnalyzer *az, MlcStmt *S) {
  int64_t es, er;
  if (!plain_loop(S, &es)) return NULL;
  MlcStmt *body = S->loop.body, *R = body;
  int n_pre = 0;
  if (body->kind == MLC_STMT_SEQ) {
    n_pre = body->seq.n - 1;
    R = body->seq.items[n_pre];
  }
  if (!plain_loop(R, &er)) return NULL;
  Nest nest = {0};
  if (!plain_stmt(R->loop.body, 1, &nest)) return NULL;
  for (int i = 0; i < n_pre; i++)
    if (!plain_stmt(body->seq.items[i], 4, &nest)) return NULL;
  if (!accumulates(R->loop.body, S->loop.var, R->loop.var)) return NULL;
  /* the loops inside S bound, each with an independent copy */
  MlcMap fresh = {0};
  const MlcStmt *loops[MAX_INNER + 1];
  int n_loops = 0;
  loops[n_loops++] = R;
  for (int i = 0; i < nest.n_inner; i++) loops[n_loops++] = nest.inner[i];
  MlcExpr *copies[MAX_INNER + 1];
  for (int i = 0; i < n_loops; i++) {
    int64_t min, ext;
    mlc_e_is_const_int(loops[i]->loop.min, &min);
    mlc_e_is_const_int(loops[i]->loop.extent, &ext);
    MlcExpr *v = loops[i]->loop.var;
    copies[i] = mlc_e_var(ctx, v->var.name, v->dtype);
    mlc_map_put(&fresh, v, copies[i]);
    mlc_arith_bind(az, v, min, ext);
    mlc_arith_bind(az, copies[i], min, ext);
  }
  Stores st = {0};
  MlcVisitor sv = {.user = &st, .stmt = stores_stmt};
  mlc_visit_stmt(&sv, body);
  bool ok = !st.overflow && st.n > 0;
  for (int i = 0; ok && i < st.n; i++) {
    Collect c = {.buf = st.buf[i]};
    MlcVisitor cv = {.user = &c, .expr = collect_expr, .stmt = collect_stmt};
    mlc_visit_stmt(&cv, body);
    ok = disjoint(az, &c, S->loop.var, &fresh);
  }
  for (int i = 0; i < n_loops; i++) {
    mlc_arith_unbind(az, loops[i]->loop.var);
    mlc_arith_unbind(az, copies[i]);
  }
  mlc_map_free(&fresh);
  if (!ok) return NULL;
  /* for s: pre ; for r: for s: R.body */
  MlcForKind kind = MLC_FOR_SERIAL;
  MlcStmt *inner = mlc_s_for(ctx, S->loop.var, S->loop.min, S->loop.extent, kind, NULL, (MlcAttrs){0}, R->loop.body);
  MlcStmt *jammed = inner ? mlc_s_for(ctx, R->loop.var, R->loop.min, R->loop.extent, R->loop.kind, NULL,
                                      R->loop.annotations, inner)
                          : NULL;
  if (!jammed || n_pre == 0) return jammed;
  /* the init keeps a loop over s of its own, with a var of its own */
  MlcExpr *s2 = mlc_e_var(ctx, S->loop.var->var.name, S->loop.var->dtype);
  MlcMap sub = {0};
  mlc_map_put(&sub, S->loop.var, s2);
  MlcStmt *pre = mlc_s_seq(ctx, body->seq.items, n_pre);
  pre = pre ? mlc_substitute_stmt(ctx, pre, &sub) : NULL;
  mlc_map_free(&sub);
  MlcStmt *pre_loop = pre ? mlc_s_for(ctx, s2, S->loop.min, S->loop.extent, MLC_FOR_SERIAL, NULL, (MlcAttrs){0}, pre)
                          : NULL;
  MlcStmt *items[2] = {pre_loop, jammed};
  return pre_loop ? mlc_s_seq(ctx, items, 2) : NULL;
}

/* ---- the walk ---------------------------------------------------------------------------------- */

typedef struct Walk { MlcAnalyzer az; bool gpu; } Walk;

static MlcStmt *walk_stmt(MlcMutator *m, MlcStmt *s) {
  Walk *w = m->user;
  if (s->kind != MLC_STMT_FOR) return mlc_mutate_stmt_children(m, s);
  MlcStmt *done = try_interchange(m->ctx, &w->az, s);
  if (done) return done;
  if (mlc_has_error(m->ctx)) return NULL;
  return mlc_mutate_stmt_children(m, s);
}

static bool thread_loop(MlcVisitor *v, const MlcStmt *s) {
  bool *gpu = v->user;
  if (s->kind == MLC_STMT_FOR && s->loop.kind == MLC_FOR_THREAD) *gpu = true;
  return !*gpu;
}

MlcPrimFunc *mlc_lower_interchange(MlcCtx *ctx, const MlcPrimFunc *f) {
  bool gpu = false;
  MlcVisitor v = {.user = &gpu, .stmt = thread_loop};
  mlc_visit_stmt(&v, f->body);
  if (gpu) return (MlcPrimFunc *)f;
  Walk w = {0};
  mlc_arith_init(&w.az, ctx);
  MlcMutator m = {.ctx = ctx, .user = &w, .stmt = walk_stmt};
  MlcStmt *body = mlc_mutate_stmt(&m, f->body);
  mlc_arith_free(&w.az);
  mlc_map_free(&m.buffer_map);
  if (!body) return NULL;
  if (body == f->body) return (MlcPrimFunc *)f;
  return mlc_prim_func_new(ctx, f->name, f->params, f->n_params, f->attrs, body);
}
