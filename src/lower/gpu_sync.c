/* gpu_sync.c - barriers in a GPU kernel, where threads of a block exchange
 * data through shared memory (lower.h, "GPU targets").
 *
 * A kernel body runs in phases separated by barriers.  Walking it in
 * execution order, the shared buffers read and written since the last
 * barrier are kept ("pending"); a statement of a sequence that reads what
 * is pending as written, or writes what is pending at all, gets a barrier
 * before it.  A loop whose body holds a barrier also needs one at its end
 * when the next iteration's first phase would touch what the last phase
 * of this one left pending (the tile a k-loop overwrites while other
 * threads still read it).  Statements that run in one phase need no
 * barrier among themselves: each thread reads and writes its own elements
 * there, which is what the schedule's bindings guarantee -- except for one
 * store that reads the shared buffer it writes at another index, which no
 * barrier can order, and is refused.
 *
 * Barriers only go where every thread of the block reaches them; one that
 * would sit under a condition or in a loop whose bounds depend on the
 * thread index is refused, naming the buffer whose exchange needed it. */
#include "mlcc/lower.h"

#include <string.h>

typedef MLC_VEC(const MlcBuffer *) BufSet;

typedef struct Acc {
  BufSet r, w;
} Acc;

typedef struct Sync {
  MlcCtx *ctx;
  MlcGpuKernel *k;
  MlcMap shared;  /* shared buffers of the kernel */
  MlcMap varying; /* vars whose value differs between the threads of a block */
  bool failed;
} Sync;

static bool set_has(const BufSet *s, const MlcBuffer *b) {
  for (size_t i = 0; i < s->len; i++)
    if (s->data[i] == b) return true;
  return false;
}
static void set_add(BufSet *s, const MlcBuffer *b) {
  if (!set_has(s, b)) mlc_vec_push(s, b);
}
static void acc_free(Acc *a) {
  mlc_vec_free(&a->r);
  mlc_vec_free(&a->w);
}
static void acc_clear(Acc *a) { a->r.len = a->w.len = 0; }
static void acc_merge(Acc *into, const Acc *a) {
  for (size_t i = 0; i < a->r.len; i++) set_add(&into->r, a->r.data[i]);
  for (size_t i = 0; i < a->w.len; i++) set_add(&into->w, a->w.data[i]);
}
static Acc acc_copy(const Acc *a) {
  Acc c = {0};
  acc_merge(&c, a);
  return c;
}

/* the first buffer through which `later` depends on `pending`, or NULL */
static const MlcBuffer *conflict(const Acc *pending, const Acc *later) {
  for (size_t i = 0; i < later->r.len; i++)
    if (set_has(&pending->w, later->r.data[i])) return later->r.data[i];
  for (size_t i = 0; i < later->w.len; i++)
    if (set_has(&pending->w, later->w.data[i]) || set_has(&pending->r, later->w.data[i])) return later->w.data[i];
  return NULL;
}

/* ---- the shared accesses of a statement ------------------------------------------ */

typedef struct Collect {
  MlcVisitor v;
  const Sync *sy;
  Acc *acc;
} Collect;

static bool collect_expr(MlcVisitor *v, const MlcExpr *e) {
  Collect *c = (Collect *)v;
  if (e->kind == MLC_EXPR_LOAD && mlc_map_has(&c->sy->shared, e->load.buf)) set_add(&c->acc->r, e->load.buf);
  return true;
}
static bool collect_stmt(MlcVisitor *v, const MlcStmt *s) {
  Collect *c = (Collect *)v;
  if (s->kind == MLC_STMT_STORE && mlc_map_has(&c->sy->shared, s->store.buf)) set_add(&c->acc->w, s->store.buf);
  return true;
}
static void collect(const Sync *sy, const MlcStmt *s, Acc *acc) {
  Collect c = {.v = {.expr = collect_expr, .stmt = collect_stmt}, .sy = sy, .acc = acc};
  mlc_visit_stmt(&c.v, s);
}

/* ---- which values differ between threads -------------------------------------------- */

typedef struct Mentions { MlcVisitor v; const MlcMap *vars; bool found; } Mentions;
static bool mentions_hook(MlcVisitor *v, const MlcExpr *e) {
  Mentions *m = (Mentions *)v;
  if (e->kind == MLC_EXPR_VAR && mlc_map_has(m->vars, e)) m->found = true;
  return !m->found;
}
static bool is_varying(const Sync *sy, const MlcExpr *e) {
  Mentions m = {.v = {.expr = mentions_hook}, .vars = &sy->varying};
  if (e) mlc_visit_expr(&m.v, e);
  return m.found;
}

/* ---- one store that reads its own shared buffer elsewhere -------------------------------- */

typedef struct SelfRead { MlcVisitor v; const MlcStmt *store; bool other; } SelfRead;

/* the same index expression (vars by identity): what an index of a load
 * and of a store are when they name one element */
static bool same_expr(const MlcExpr *a, const MlcExpr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || !mlc_dtype_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
  case MLC_EXPR_INT: return a->int_val == b->int_val;
  case MLC_EXPR_BINARY: return a->bin.op == b->bin.op && same_expr(a->bin.a, b->bin.a) && same_expr(a->bin.b, b->bin.b);
  case MLC_EXPR_CAST: return same_expr(a->operand, b->operand);
  case MLC_EXPR_RAMP:
    return a->ramp.lanes == b->ramp.lanes && same_expr(a->ramp.base, b->ramp.base) &&
           same_expr(a->ramp.stride, b->ramp.stride);
  case MLC_EXPR_BROADCAST: return a->bcast.lanes == b->bcast.lanes && same_expr(a->bcast.value, b->bcast.value);
  default: return false;
  }
}

static bool same_index(const MlcExpr *const *a, const MlcExpr *const *b, int n) {
  for (int i = 0; i < n; i++)
    if (!same_expr(a[i], b[i])) return false;
  return true;
}
static bool self_read_hook(MlcVisitor *v, const MlcExpr *e) {
  SelfRead *s = (SelfRead *)v;
  if (e->kind == MLC_EXPR_LOAD && e->load.buf == s->store->store.buf &&
      (e->load.n != s->store->store.n ||
       !same_index((const MlcExpr *const *)e->load.idx, (const MlcExpr *const *)s->store->store.idx, e->load.n)))
    s->other = true;
  return true;
}

static bool check_store(Sync *sy, const MlcStmt *s) {
  if (!mlc_map_has(&sy->shared, s->store.buf)) return true;
  SelfRead sr = {.v = {.expr = self_read_hook}, .store = s};
  mlc_visit_expr(&sr.v, s->store.value);
  if (!sr.other) return true;
  sy->failed = true;
  return mlc_error(sy->ctx, (MlcLoc){0}, "kernel %s: a store to shared buffer '%s' reads '%s' at another index in "
                   "the same step, so threads would race on it and no barrier can order that; stage the "
                   "values through another buffer", sy->k->name, s->store.buf->name, s->store.buf->name);
}

/* ---- the walk ------------------------------------------------------------------------ */

static MlcStmt *barrier(Sync *sy) { return mlc_s_evaluate(sy->ctx, sy->k->barrier); }

static bool refuse_here(Sync *sy, const MlcBuffer *b, const char *where) {
  sy->failed = true;
  return mlc_error(sy->ctx, (MlcLoc){0}, "kernel %s: threads exchange data through shared buffer '%s' %s, which "
                   "depends on the thread index: a barrier there would not be reached by every thread of the "
                   "block (move the stage out of that condition or loop)", sy->k->name, b->name, where);
}

/* varying: the statement runs under a condition or loop that depends on
 * the thread index (its text for messages) */
static MlcStmt *walk(Sync *sy, const MlcStmt *s, Acc *pend, const char *varying);

static MlcStmt *walk_seq(Sync *sy, const MlcStmt *s, Acc *pend, const char *varying) {
  MLC_VEC(MlcStmt *) out = {0};
  for (int i = 0; i < s->seq.n && !sy->failed; i++) {
    const MlcStmt *it = s->seq.items[i];
    Acc a = {0};
    collect(sy, it, &a);
    const MlcBuffer *b = conflict(pend, &a);
    acc_free(&a);
    if (b) {
      if (varying) {
        refuse_here(sy, b, varying);
        break;
      }
      mlc_vec_push(&out, barrier(sy));
      acc_clear(pend);
    }
    MlcStmt *w = walk(sy, it, pend, varying);
    if (!w) break;
    mlc_vec_push(&out, w);
  }
  MlcStmt *r = sy->failed ? NULL : mlc_s_seq(sy->ctx, out.data, (int)out.len);
  mlc_vec_free(&out);
  return r;
}

static bool has_barrier(const Sync *sy, const MlcStmt *s) {
  if (!s) return false;
  switch (s->kind) {
  case MLC_STMT_EVALUATE: return s->eval == sy->k->barrier;
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++)
      if (has_barrier(sy, s->seq.items[i])) return true;
    return false;
  case MLC_STMT_FOR: return has_barrier(sy, s->loop.body);
  case MLC_STMT_IF: return has_barrier(sy, s->if_.then_s) || has_barrier(sy, s->if_.else_s);
  case MLC_STMT_LET: return has_barrier(sy, s->let.body);
  case MLC_STMT_ALLOCATE: return has_barrier(sy, s->alloc.body);
  default: return false;
  }
}

/* the accesses of a statement before its first barrier */
static bool head(const Sync *sy, const MlcStmt *s, Acc *acc) {
  if (s->kind == MLC_STMT_SEQ) {
    for (int i = 0; i < s->seq.n; i++)
      if (head(sy, s->seq.items[i], acc)) return true;
    return false;
  }
  if (s->kind == MLC_STMT_EVALUATE && s->eval == sy->k->barrier) return true;
  if (s->kind == MLC_STMT_LET) return head(sy, s->let.body, acc);
  if (s->kind == MLC_STMT_ALLOCATE) return head(sy, s->alloc.body, acc);
  collect(sy, s, acc);
  return has_barrier(sy, s);
}

static MlcStmt *walk_for(Sync *sy, const MlcStmt *s, Acc *pend, const char *varying) {
  MlcCtx *ctx = sy->ctx;
  const char *inner = varying;
  if (!inner && (is_varying(sy, s->loop.min) || is_varying(sy, s->loop.extent)))
    inner = mlc_internf(ctx, "in loop '%s'", s->loop.var->var.name);
  if (inner) mlc_map_put(&sy->varying, s->loop.var, (void *)s);
  MlcStmt *body = walk(sy, s->loop.body, pend, inner);
  if (!body) return NULL;
  if (has_barrier(sy, body)) {
    Acc h = {0};
    head(sy, body, &h);
    const MlcBuffer *b = conflict(pend, &h);
    acc_free(&h);
    if (b) {
      if (inner) return refuse_here(sy, b, inner), NULL;
      MlcStmt *items[2] = {body, barrier(sy)};
      body = mlc_s_seq(ctx, items, 2);
      acc_clear(pend);
    }
  }
  return mlc_s_for(ctx, s->loop.var, s->loop.min, s->loop.extent, s->loop.kind, s->loop.thread,
                   s->loop.annotations, body);
}

static MlcStmt *walk(Sync *sy, const MlcStmt *s, Acc *pend, const char *varying) {
  MlcCtx *ctx = sy->ctx;
  if (sy->failed) return NULL;
  switch (s->kind) {
  case MLC_STMT_STORE:
    if (!check_store(sy, s)) return NULL;
    /* fall through */
  case MLC_STMT_EVALUATE:
  case MLC_STMT_BLOCK_REALIZE:
    collect(sy, s, pend);
    return (MlcStmt *)s;
  case MLC_STMT_SEQ: return walk_seq(sy, s, pend, varying);
  case MLC_STMT_FOR: return walk_for(sy, s, pend, varying);
  case MLC_STMT_IF: {
    const char *inner = varying;
    if (!inner && is_varying(sy, s->if_.cond)) inner = "under a condition";
    Acc other = acc_copy(pend);
    MlcStmt *t = walk(sy, s->if_.then_s, pend, inner), *e = NULL;
    if (t && s->if_.else_s) e = walk(sy, s->if_.else_s, &other, inner);
    acc_merge(pend, &other);
    acc_free(&other);
    if (!t || (s->if_.else_s && !e)) return NULL;
    return mlc_s_if(ctx, s->if_.cond, t, e);
  }
  case MLC_STMT_LET: {
    if (is_varying(sy, s->let.value)) mlc_map_put(&sy->varying, s->let.var, (void *)s);
    MlcStmt *b = walk(sy, s->let.body, pend, varying);
    return b ? mlc_s_let(ctx, s->let.var, s->let.value, b) : NULL;
  }
  case MLC_STMT_ALLOCATE: {
    MlcStmt *b = walk(sy, s->alloc.body, pend, varying);
    return b ? mlc_s_allocate(ctx, s->alloc.buf, b) : NULL;
  }
  }
  return NULL;
}

MlcStmt *mlc_gpu_insert_barriers(MlcCtx *ctx, MlcGpuKernel *k, MlcStmt *body) {
  Sync sy = {.ctx = ctx, .k = k};
  for (int i = 0; i < k->n_shared; i++) mlc_map_put(&sy.shared, k->shared[i], (void *)k->shared[i]);
  for (int a = MLC_GPU_THREAD_X; a <= MLC_GPU_THREAD_Z; a++)
    if (k->axis[a]) mlc_map_put(&sy.varying, k->axis[a], (void *)k->axis[a]);
  Acc pend = {0};
  MlcStmt *r = k->n_shared ? walk(&sy, body, &pend, NULL) : body;
  acc_free(&pend);
  mlc_map_free(&sy.shared);
  mlc_map_free(&sy.varying);
  return sy.failed ? NULL : r;
}
