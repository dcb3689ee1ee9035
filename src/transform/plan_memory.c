/* plan_memory.c - mlc_pass_plan_memory: the static-shape allocations of a
 * graph function share one storage, placed by liveness.
 *
 * A tensor is live from its builtin.alloc_tensor to the last binding that
 * uses any var holding it; an alias, a tuple, a tuple item or an if result
 * holds whatever its operands hold (tuples and ifs conservatively: all of
 * it), so liveness follows the tensor through them.  Tensors reachable from
 * the function's result escape and keep their own allocation, as do
 * symbolic-shape ones.  Placement is first fit in order of allocation: the
 * lowest MLCRT_ALIGN-aligned offset that overlaps no tensor live at the same
 * time.  Only the bindings of the function body are planned; allocations
 * inside if branches stay as they are (their uses still count). */
#include "transform/pass.h"

#include <stdlib.h>

#include "mlcc/runtime.h"

typedef struct Tensor {
  const MlcGExpr *var;
  int start, end;   /* binding indices: allocation, last use */
  int64_t bytes, offset;
  bool escapes;
} Tensor;

typedef struct IdSet { int *ids; int n; } IdSet;

typedef struct Plan {
  MlcCtx *ctx;
  MLC_VEC(Tensor) t;
  MlcMap holds;     /* var -> IdSet* (arena) */
  MlcMap planned;   /* alloc var -> Tensor index + 1 */
  int pos;          /* index of the binding being scanned */
  MlcMemPlanStats st;
  MlcGExpr *storage;
  bool storage_bound;
} Plan;

/* ---- liveness ---------------------------------------------------------------- */

static IdSet *holds_of(Plan *p, const MlcGExpr *var) { return mlc_map_get(&p->holds, var); }

/* var holds everything the vars used in e hold */
typedef struct Union { Plan *p; MLC_VEC(int) ids; } Union;

static void hold_union_cb(void *user, const MlcGExpr *v) {
  Union *u = user;
  IdSet *s = holds_of(u->p, v);
  for (int i = 0; s && i < s->n; i++) mlc_vec_push(&u->ids, s->ids[i]);
}

static void hold_all_of(Plan *p, const MlcGExpr *var, const MlcGExpr *e) {
  Union u = {p, {0}};
  tf_each_use(e, hold_union_cb, &u);
  if (u.ids.len) {
    IdSet *s = mlc_arena_alloc(&p->ctx->arena, sizeof *s);
    s->ids = mlc_vec_to_arena(&p->ctx->arena, &u.ids);
    s->n = (int)u.ids.len;
    mlc_map_put(&p->holds, var, s);
  }
  mlc_vec_free(&u.ids);
}

static void use_cb(void *user, const MlcGExpr *v) {
  Plan *p = user;
  IdSet *s = holds_of(p, v);
  for (int i = 0; s && i < s->n; i++)
    if (p->t.data[s->ids[i]].end < p->pos) p->t.data[s->ids[i]].end = p->pos;
}

static void escape_cb(void *user, const MlcGExpr *v) {
  Plan *p = user;
  IdSet *s = holds_of(p, v);
  for (int i = 0; s && i < s->n; i++) p->t.data[s->ids[i]].escapes = true;
}

static bool is_alloc_tensor(const MlcGExpr *v) {
  return v->kind == MLC_G_CALL && tf_is_op(v->call.callee, "builtin.alloc_tensor");
}

static void scan_binding(Plan *p, const MlcBinding *b) {
  const MlcGExpr *v = b->value;
  int64_t bytes;
  if (is_alloc_tensor(v) && tf_tensor_bytes(b->var->sinfo, &bytes)) {
    Tensor t = {b->var, p->pos, p->pos, bytes, 0, false};
    IdSet *s = mlc_arena_alloc(&p->ctx->arena, sizeof *s);
    s->ids = mlc_arena_alloc(&p->ctx->arena, sizeof *s->ids);
    s->ids[0] = (int)p->t.len;
    s->n = 1;
    mlc_vec_push(&p->t, t);
    mlc_map_put(&p->holds, b->var, s);
  } else if (is_alloc_tensor(v) || (v->kind == MLC_G_CALL && tf_is_op(v->call.callee, "reshape_dynamic"))) {
    p->st.n_dynamic++; /* reshape_dynamic: the executor copies into an allocation of its own */
  } else if (v->kind != MLC_G_CALL) {
    hold_all_of(p, b->var, v);
  }
  tf_each_use(v, use_cb, p);
}

static void scan_func(Plan *p, const MlcGFunc *f) {
  const MlcGExpr *body = f->body;
  for (int i = 0; i < body->seq.n; i++)
    for (int j = 0; j < body->seq.blocks[i]->n; j++, p->pos++) scan_binding(p, &body->seq.blocks[i]->bindings[j]);
  tf_each_use(body->seq.result, escape_cb, p);
}

/* ---- placement --------------------------------------------------------------- */

static int64_t align_up(int64_t v) { return (v + MLCRT_ALIGN - 1) / MLCRT_ALIGN * MLCRT_ALIGN; }

/* the lowest aligned offset where t fits beside every placed tensor live
 * with it (those in active[]: placed before t, in order, and live at t's
 * start or later); retried after each collision, which only moves the
 * offset up */
static int64_t first_fit(Plan *p, const Tensor *t, const int *active, int n_active) {
  int64_t off = 0;
  for (bool moved = true; moved;) {
    moved = false;
    for (int a = 0; a < n_active; a++) {
      const Tensor *o = &p->t.data[active[a]];
      if (off < o->offset + align_up(o->bytes) && o->offset < off + align_up(t->bytes)) {
        off = o->offset + align_up(o->bytes);
        moved = true;
      }
    }
  }
  return off;
}

/* Tensors come in order of their allocation (start), so one that ended
 * before a tensor starts overlaps no later tensor either: the active list
 * drops it, and placement costs the tensors live together, not all of them
 * before.  The lower bound is a sweep over the start and end events. */
static bool place_all(Plan *p) {
  size_t n = p->t.len;
  int *active = malloc((n ? n : 1) * sizeof *active), n_active = 0;
  int64_t *delta = calloc((size_t)p->pos + 2, sizeof *delta); /* live bytes change at each binding */
  if (!active || !delta) {
    free(active), free(delta);
    return mlc_error(p->ctx, p->ctx->build_loc, "plan_memory: out of memory for %zu tensors", n);
  }
  int64_t top = 0;
  for (size_t k = 0; k < n; k++) {
    Tensor *t = &p->t.data[k];
    if (t->escapes) continue;
    int kept = 0;
    for (int a = 0; a < n_active; a++)
      if (p->t.data[active[a]].end >= t->start) active[kept++] = active[a];
    n_active = kept;
    t->offset = first_fit(p, t, active, n_active);
    active[n_active++] = (int)k;
    if (t->offset + align_up(t->bytes) > top) top = t->offset + align_up(t->bytes);
    p->st.n_tensors++;
    p->st.naive_bytes += t->bytes;
    mlc_map_put(&p->planned, t->var, (void *)(intptr_t)(k + 1));
    delta[t->start] += t->bytes;
    delta[t->end + 1] -= t->bytes;
  }
  p->st.planned_bytes = top;
  int64_t live = 0;
  for (int pos = 0; pos < p->pos; pos++) {
    live += delta[pos];
    if (live > p->st.lower_bound) p->st.lower_bound = live;
  }
  free(active);
  free(delta);
  return true;
}

/* ---- rewriting --------------------------------------------------------------- */

static MlcGExpr *i64(MlcCtx *ctx, int64_t v) { return mlc_g_prim(ctx, mlc_e_int(ctx, MLC_I64, v)); }

static MlcGExpr *storage_call(Plan *p) {
  MlcCtx *ctx = p->ctx;
  MlcExpr *size = mlc_e_int(ctx, MLC_I64, p->st.planned_bytes);
  MlcGExpr *args[4] = {mlc_g_shape(ctx, &size, 1), i64(ctx, 0), mlc_g_str(ctx, "global"),
                       mlc_g_dtype(ctx, MLC_DT(MLC_TC_UINT, 8, 1))};
  return mlc_g_call(ctx, mlc_g_op(ctx, "memory.alloc_storage"), args, 4, (MlcAttrs){0}, NULL, 0, NULL);
}

static MlcGExpr *tensor_call(Plan *p, const Tensor *t, const MlcGExpr *old) {
  MlcCtx *ctx = p->ctx;
  MlcGExpr *args[4] = {p->storage, i64(ctx, t->offset), old->call.args[0], old->call.args[1]};
  return mlc_g_call(ctx, mlc_g_op(ctx, "memory.alloc_tensor"), args, 4, (MlcAttrs){0}, NULL, 0, t->var->sinfo);
}

static bool plan_binding(TfRw *rw, const MlcBinding *b, MlcGExpr *value) {
  Plan *p = rw->user;
  intptr_t k = (intptr_t)mlc_map_get(&p->planned, b->var);
  if (!k || value->call.n < 2) {
    tf_emit(rw, b->var, value, b->loc);
    return true;
  }
  if (!p->storage_bound) {
    tf_emit(rw, p->storage, storage_call(p), b->loc);
    p->storage_bound = true;
  }
  tf_emit(rw, b->var, tensor_call(p, &p->t.data[k - 1], value), b->loc);
  return true;
}

static MlcGFunc *plan_func(MlcCtx *ctx, const MlcGFunc *f, MlcMemPlanStats *st) {
  Plan p = {.ctx = ctx};
  p.st.func = f->name;
  scan_func(&p, f);
  MlcGFunc *nf = place_all(&p) ? (MlcGFunc *)f : NULL;
  if (nf && p.st.n_tensors) {
    p.storage = mlc_g_var(ctx, "storage", mlc_sinfo_object(ctx), false);
    TfRw rw = {.ctx = ctx, .user = &p, .on_binding = plan_binding};
    nf = tf_rewrite_func(&rw, f, NULL);
    tf_rw_free(&rw);
  }
  *st = p.st;
  mlc_vec_free(&p.t);
  mlc_map_free(&p.holds);
  mlc_map_free(&p.planned);
  return nf;
}

MlcModule *mlc_pass_plan_memory(MlcCtx *ctx, const MlcModule *m, MlcMemPlanStats **stats,
                                int *n_stats) {
  MlcFunc *repl = mlc_arena_array(&ctx->arena, (size_t)(m->n_funcs ? m->n_funcs : 1), sizeof *repl);
  MlcMemPlanStats *st = mlc_xcalloc((size_t)(m->n_funcs ? m->n_funcs : 1), sizeof *st);
  int n = 0;
  MlcModule *out = NULL;
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != MLC_FUNC_GRAPH) continue;
    MlcGFunc *nf = plan_func(ctx, m->funcs[i].graph, &st[n++]);
    if (!nf) goto done;
    repl[i] = (MlcFunc){MLC_FUNC_GRAPH, m->funcs[i].name, {.graph = nf}};
  }
  out = tf_module_with(ctx, m, repl, NULL, 0);
done:
  if (out && stats) {
    *stats = st;
    if (n_stats) *n_stats = n;
  } else {
    free(st);
  }
  return out;
}
