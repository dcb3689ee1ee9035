/* reduction.c - the reduction primitives.  decompose_reduction splits a
 * reduction block into an init block and an update block without init;
 * rfactor splits a reduction over one loop into partial results (an "rf"
 * buffer with one more dimension, indexed by that loop) and a write-back
 * block that reduces the partial results.
 *
 * Both follow TVM.  A reduction block's init runs when its reduce iter vars
 * are at their first values; decompose_reduction moves it in front of a
 * loop above every loop the reduce iters use, recreating the loops below
 * that the spatial iters need, so every element is initialised once before
 * its first update and never between two.  rfactor is only sound for a
 * commutative, associative update whose init is the identity -- partial
 * results start from the init and are combined again -- so it recognises
 * `x = x op e` for op in +, *, min, max and checks the init value.  The rf
 * block runs in a copy of the loop nest (new loop vars), the write-back in
 * the original nest minus the reduction loops other than the factored one;
 * the nest from the outermost reduction loop down must hold only the block,
 * so that copying it repeats nothing else. */
#include "schedule/storage.h"

#include <float.h>
#include <string.h>

enum { MAX_LOOPS = 64, MAX_DIMS = 32 };

static const char *loop_name(const MlcStmt *loop) { return loop->loop.var->var.name; }

static bool is_const(const MlcExpr *e, int64_t v) {
  int64_t x;
  return mlc_e_is_const_int(e, &x) && x == v;
}

/* The loops of a block (within its scope) and the index of the loop over
 * var among them, -1 when it is not one. */
static int loop_index(const SchSite *site, const MlcExpr *var, const MlcStmt **loops, int *n) {
  *n = sch_path_loops(&site->path, loops, MAX_LOOPS);
  for (int i = 0; i < *n; i++)
    if (loops[i]->loop.var == var) return i;
  return -1;
}

/* A reduction block in the sense both primitives need. */
static bool check_reduction(MlcSchedule *s, const SchSite *site) {
  const MlcBlock *b = site->block;
  if (!b->init) return sch_error(s, "block '%s' has no init, so it is not a reduction block", b->name);
  if (!sch_is_reduction_block(b))
    return sch_error(s, "block '%s' is not a reduction block (it needs reduce iter vars, no opaque ones, "
                     "and writes not indexed by reduce iter vars)", b->name);
  if (!sch_affine_bindings(site->realize))
    return sch_error(s, "block '%s' has iter var bindings that are not affine in its loops", b->name);
  return true;
}

/* ---- predicates ----------------------------------------------------------------- */

typedef MLC_VEC(MlcExpr *) ExprList;

static void conjuncts(MlcExpr *e, ExprList *out) {
  if (!e || is_const(e, 1)) return;
  if (e->kind == MLC_EXPR_BINARY && e->bin.op == MLC_BIN_AND) {
    conjuncts(e->bin.a, out);
    conjuncts(e->bin.b, out);
    return;
  }
  mlc_vec_push(out, e);
}

static MlcExpr *conjoin(MlcCtx *ctx, MlcExpr *acc, MlcExpr *c) {
  return acc ? mlc_e_bin(ctx, MLC_BIN_AND, acc, c) : c;
}

static bool uses_any(const MlcExpr *e, const MlcStmt *const *loops, const bool *pick, int n) {
  for (int i = 0; i < n; i++)
    if (pick[i] && sch_uses_var(e, loops[i]->loop.var)) return true;
  return false;
}

/* ---- rebuilding the function ------------------------------------------------------
 * One pass from the function body: `loop` becomes the sequence (before,
 * the rebuilt loop) or is replaced by `instead`; `realize` becomes
 * `new_realize`; the scope's block gets `alloc` appended. */
typedef struct Edit {
  MlcMutator m;
  const MlcStmt *loop, *realize, *scope;
  MlcStmt *before, *instead, *new_realize;
  MlcBuffer *alloc;
} Edit;

static MlcStmt *with_alloc(MlcCtx *ctx, MlcStmt *realize, MlcBuffer *alloc) {
  const MlcBlock *b = realize->realize.block;
  MlcBlock *nb = mlc_arena_dup(&ctx->arena, b, sizeof *nb);
  nb->allocs = mlc_arena_array(&ctx->arena, (size_t)b->n_allocs + 1, sizeof *nb->allocs);
  if (b->n_allocs) memcpy(nb->allocs, b->allocs, (size_t)b->n_allocs * sizeof *nb->allocs);
  nb->allocs[nb->n_allocs++] = alloc;
  return mlc_s_realize(ctx, realize->realize.values, realize->realize.n, realize->realize.pred, nb);
}

static MlcStmt *edit_stmt(MlcMutator *m, MlcStmt *st) {
  Edit *e = (Edit *)m;
  if (st == e->realize) return e->new_realize;
  if (st == e->loop && e->instead) return e->instead;
  MlcStmt *r = mlc_mutate_stmt_children(m, st);
  if (!r) return NULL;
  if (st == e->loop) {
    MlcStmt *pair[2] = {e->before, r};
    return mlc_s_seq(m->ctx, pair, 2);
  }
  if (st == e->scope && e->alloc) return with_alloc(m->ctx, r, e->alloc);
  return r;
}

static bool commit_edit(MlcSchedule *s, Edit *e) {
  e->m = (MlcMutator){.ctx = s->ctx, .stmt = edit_stmt};
  MlcStmt *body = mlc_mutate_stmt(&e->m, sch_func(s)->body);
  return body && sch_commit(s, body);
}

static MlcBufferRegion *subst_regions(MlcCtx *ctx, const MlcBufferRegion *rs, int n, const MlcMap *vmap) {
  MlcBufferRegion *out = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *out);
  for (int i = 0; i < n; i++) {
    int nd = rs[i].buf->ndim;
    out[i].buf = rs[i].buf;
    out[i].ranges = mlc_arena_array(&ctx->arena, (size_t)(nd ? nd : 1), sizeof *out[i].ranges);
    for (int d = 0; d < nd; d++)
      out[i].ranges[d] = (MlcRange){mlc_substitute_expr(ctx, rs[i].ranges[d].min, vmap),
                                    mlc_substitute_expr(ctx, rs[i].ranges[d].extent, vmap)};
  }
  return out;
}

/* ======================================================================== */
/* decompose_reduction                                                      */
/* ======================================================================== */

/* No loop above `at` may feed a reduce iter: the init must come before
 * every step of the reduction. */
static bool check_above_reduction(MlcSchedule *s, const SchSite *site, const MlcStmt **loops, int at) {
  const MlcBlock *b = site->block;
  for (int i = 0; i < at; i++)
    for (int k = 0; k < b->n_iters; k++)
      if (b->iters[k].kind == MLC_ITER_REDUCE && sch_uses_var(site->realize->realize.values[k], loops[i]->loop.var))
        return sch_error(s, "loop '%s' is inside loop '%s', which binds reduce iter var '%s' of block '%s': "
                         "the init must go above every loop of the reduction", loop_name(loops[at]),
                         loop_name(loops[i]), b->iters[k].var->var.name, b->name);
  return true;
}

/* The init goes above `loop`, so it runs once per iteration of the loops
 * above it.  Two shapes would break that: a loop at or below `loop` that
 * binds none of the block's iter vars repeats the whole reduction (after
 * compute_at under a consumer's loop) and the repeats would accumulate onto
 * one init; and a predicate, which the init would have to share exactly. */
/* whether `var` occurs inside an operand of a division or modulo in e: a
 * loop fused above (`fused // 8`) divides only its own var, and the loops
 * below it stay one-to-one */
static bool var_under_divmod(const MlcExpr *e, const MlcExpr *var) {
  if (!e) return false;
  switch (e->kind) {
  case MLC_EXPR_BINARY:
    if (e->bin.op == MLC_BIN_FLOORDIV || e->bin.op == MLC_BIN_FLOORMOD || e->bin.op == MLC_BIN_DIV ||
        e->bin.op == MLC_BIN_MOD)
      return sch_uses_var(e, var);
    return var_under_divmod(e->bin.a, var) || var_under_divmod(e->bin.b, var);
  case MLC_EXPR_NEG: case MLC_EXPR_CAST: return var_under_divmod(e->operand, var);
  default: return false;
  }
}

static bool check_init_placement(MlcSchedule *s, const SchSite *site, const MlcStmt **loops, int at, int n) {
  const MlcBlock *b = site->block;
  for (int i = at; i < n; i++) {
    int64_t ext;
    if (mlc_e_is_const_int(loops[i]->loop.extent, &ext) && ext == 1) continue;
    bool binds = false, divided = false;
    for (int k = 0; k < b->n_iters; k++) {
      const MlcExpr *v = site->realize->realize.values[k];
      if (!sch_uses_var(v, loops[i]->loop.var)) continue;
      binds = true;
      divided |= b->iters[k].kind == MLC_ITER_SPATIAL && var_under_divmod(v, loops[i]->loop.var);
    }
    /* a spatial binding through floordiv/floormod (after fuse) can give
     * several iterations of the loop the same instance: refuse that too */
    if (!binds || divided)
      return sch_error(s, "loop '%s' repeats block '%s' without %s: every repeat would accumulate onto one init",
                       loop_name(loops[i]), b->name,
                       binds ? "a one-to-one binding of its spatial iter vars" : "binding any of its iter vars");
  }
  /* the init keeps the predicate through the loops it recreates (those
   * binding spatial iters); a predicate on any other loop at or below
   * `loop`, or with no loop recreated at all, would be lost */
  const MlcExpr *pred = site->realize->realize.pred;
  int64_t always;
  if (mlc_e_is_const_int(pred, &always) && always) return true;
  int recreated = 0;
  for (int i = at; i < n; i++) {
    bool spatial = false;
    for (int k = 0; k < b->n_iters && !spatial; k++)
      spatial = b->iters[k].kind == MLC_ITER_SPATIAL && sch_uses_var(site->realize->realize.values[k], loops[i]->loop.var);
    recreated += spatial;
    if (!spatial && sch_uses_var(pred, loops[i]->loop.var))
      return sch_error(s, "block '%s' has a predicate on loop '%s', which its init would not repeat", b->name,
                       loop_name(loops[i]));
  }
  if (!recreated)
    return sch_error(s, "block '%s' has a predicate (T.where) that its init, needing no loops, would lose", b->name);
  return true;
}

/* The init block: the spatial iters (new vars, same bindings), the init
 * as body, the block's writes. */
static MlcStmt *init_realize(MlcSchedule *s, const SchSite *site, MlcExpr *pred, const char *name) {
  MlcCtx *ctx = s->ctx;
  const MlcBlock *b = site->block;
  MlcIterVar *iters = mlc_arena_array(&ctx->arena, (size_t)b->n_iters, sizeof *iters);
  MlcExpr **values = mlc_arena_array(&ctx->arena, (size_t)b->n_iters, sizeof *values);
  MlcMap vmap = {0};
  int n = 0;
  for (int i = 0; i < b->n_iters; i++) {
    if (b->iters[i].kind != MLC_ITER_SPATIAL) continue;
    MlcExpr *v = mlc_e_var(ctx, b->iters[i].var->var.name, b->iters[i].var->dtype);
    mlc_map_put(&vmap, b->iters[i].var, v);
    iters[n] = (MlcIterVar){v, b->iters[i].dom, MLC_ITER_SPATIAL};
    values[n++] = site->realize->realize.values[i];
  }
  MlcStmt *body = mlc_substitute_stmt(ctx, b->init, &vmap);
  MlcBufferRegion *writes = subst_regions(ctx, b->writes, b->n_writes, &vmap);
  mlc_map_free(&vmap);
  MlcBlock *nb = mlc_block_new(ctx, name, iters, n, NULL, 0, writes, b->n_writes, NULL, NULL, 0, b->annotations, body);
  return mlc_s_realize(ctx, values, n, pred, nb);
}

/* The update block: no init, and (as without an init the block reads what
 * it writes) its writes first among its reads. */
static MlcStmt *update_realize(MlcCtx *ctx, const SchSite *site, const char *name) {
  const MlcBlock *b = site->block;
  MlcBlock *nb = mlc_arena_dup(&ctx->arena, b, sizeof *nb);
  nb->name = name;
  nb->init = NULL;
  nb->reads = mlc_arena_array(&ctx->arena, (size_t)(b->n_reads + b->n_writes + 1), sizeof *nb->reads);
  nb->n_reads = 0;
  for (int i = 0; i < b->n_writes; i++)
    if (!sch_region_of(b->reads, b->n_reads, b->writes[i].buf)) nb->reads[nb->n_reads++] = b->writes[i];
  for (int i = 0; i < b->n_reads; i++) nb->reads[nb->n_reads++] = b->reads[i];
  const MlcStmt *r = site->realize;
  return mlc_s_realize(ctx, r->realize.values, r->realize.n, r->realize.pred, nb);
}

/* The init block inside copies of the loops from `at` down that its
 * bindings use; the predicate keeps what does not use a dropped loop. */
static MlcStmt *init_nest(MlcSchedule *s, const SchSite *site, const MlcStmt **loops, int n, int at, const char *name) {
  MlcCtx *ctx = s->ctx;
  const MlcBlock *b = site->block;
  const MlcStmt *r = site->realize;
  bool keep[MAX_LOOPS] = {0}, drop[MAX_LOOPS] = {0};
  for (int i = at; i < n; i++) {
    for (int k = 0; k < b->n_iters; k++)
      if (b->iters[k].kind == MLC_ITER_SPATIAL && sch_uses_var(r->realize.values[k], loops[i]->loop.var)) keep[i] = true;
    drop[i] = !keep[i];
  }
  ExprList cs = {0};
  conjuncts(r->realize.pred, &cs);
  MlcExpr *pred = NULL;
  for (size_t i = 0; i < cs.len; i++)
    if (!uses_any(cs.data[i], loops, drop, n)) pred = conjoin(ctx, pred, cs.data[i]);
  mlc_vec_free(&cs);
  MlcStmt *nest = init_realize(s, site, pred, name);
  MlcMap lmap = {0};
  for (int i = n - 1; i >= at && nest; i--) {
    if (!keep[i]) continue;
    const MlcStmt *l = loops[i];
    MlcExpr *v = sch_fresh_var(s, mlc_internf(ctx, "%s_init", loop_name(l)), l->loop.var->dtype);
    mlc_map_put(&lmap, l->loop.var, v);
    nest = mlc_s_for(ctx, v, l->loop.min, l->loop.extent, l->loop.kind, l->loop.thread, l->loop.annotations, nest);
  }
  nest = mlc_substitute_stmt(ctx, nest, &lmap);
  mlc_map_free(&lmap);
  return nest;
}

/* Handles of the block follow it to its new name. */
static void rename_handles(MlcSchedule *s, const char *from, const char *to) {
  for (size_t i = 0; i < s->rvs.len; i++)
    if (s->rvs.data[i].kind == MLC_SV_BLOCK && s->rvs.data[i].block == from) s->rvs.data[i].block = to;
}

bool sch_prim_decompose_reduction(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  SchSite site;
  const MlcExpr *lvar;
  const MlcStmt *loops[MAX_LOOPS];
  int n;
  if (!sch_site_arg(s, &args[0], "block", &site)) return false;
  bool ok = sch_arg_loop(s, &args[1], "loop", &lvar);
  int at = ok ? loop_index(&site, lvar, loops, &n) : -1;
  if (ok && at < 0)
    ok = sch_error(s, "loop '%s' is not an ancestor of block '%s' within its scope", lvar->var.name, site.block->name);
  ok = ok && check_reduction(s, &site) && check_above_reduction(s, &site, loops, at) &&
       check_init_placement(s, &site, loops, at, n);
  if (ok) {
    const char *old = site.block->name;
    const char *init_name = sch_fresh_block_name(s, mlc_internf(s->ctx, "%s_init", old));
    const char *update_name = sch_fresh_block_name(s, mlc_internf(s->ctx, "%s_update", old));
    Edit e = {.loop = loops[at], .realize = site.realize};
    e.before = init_nest(s, &site, loops, n, at, init_name);
    e.new_realize = update_realize(s->ctx, &site, update_name);
    ok = e.before && e.new_realize && commit_edit(s, &e);
    if (ok) {
      rename_handles(s, old, update_name);
      outs[0] = (MlcSchVal){.kind = MLC_SV_BLOCK, .rv = sch_block_rv(s, init_name)};
      *n_outs = 1;
    }
  }
  sch_path_free(&site.path);
  return ok;
}

/* ======================================================================== */
/* rfactor: recognising the reducer                                         */
/* ======================================================================== */

/* Expressions equal as written, vars by identity: the update must store to
 * the element it loads. */
static bool same_expr(const MlcExpr *a, const MlcExpr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || !mlc_dtype_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
  case MLC_EXPR_INT: return a->int_val == b->int_val;
  case MLC_EXPR_FLOAT: return a->float_val == b->float_val;
  case MLC_EXPR_BINARY: return a->bin.op == b->bin.op && same_expr(a->bin.a, b->bin.a) && same_expr(a->bin.b, b->bin.b);
  case MLC_EXPR_NEG:
  case MLC_EXPR_NOT:
  case MLC_EXPR_CAST: return same_expr(a->operand, b->operand);
  case MLC_EXPR_LOAD:
    if (a->load.buf != b->load.buf || a->load.n != b->load.n) return false;
    for (int i = 0; i < a->load.n; i++)
      if (!same_expr(a->load.idx[i], b->load.idx[i])) return false;
    return true;
  default: return false;
  }
}

static bool same_indices(MlcExpr *const *a, MlcExpr *const *b, int n) {
  for (int i = 0; i < n; i++)
    if (!same_expr(a[i], b[i])) return false;
  return true;
}

/* x = x op rhs: the reducers rfactor may split */
static const struct { MlcBinOp op; const char *name; } reducers[] = {
    {MLC_BIN_ADD, "+"}, {MLC_BIN_MUL, "*"}, {MLC_BIN_MIN, "min"}, {MLC_BIN_MAX, "max"},
};

typedef struct Reducer {
  MlcBinOp op;
  const char *op_name;
  const MlcStmt *store;  /* the update: buf[idx] = buf[idx] op rhs */
  MlcExpr *rhs;
  MlcExpr *init;         /* the init value */
} Reducer;

static int64_t int_max_of(MlcDType t) {
  if (t.code == MLC_TC_UINT) return t.bits >= 64 ? -1 : (int64_t)((UINT64_C(1) << t.bits) - 1);
  return t.bits >= 64 ? INT64_MAX : (INT64_C(1) << (t.bits - 1)) - 1;
}

static int64_t int_min_of(MlcDType t) {
  if (t.code == MLC_TC_UINT) return 0;
  return t.bits >= 64 ? INT64_MIN : -(INT64_C(1) << (t.bits - 1));
}

static double float_max_of(MlcDType t) {
  if (t.code == MLC_TC_BFLOAT) return 3.38953138925153547590470800371487866880e+38;
  if (mlc_dtype_is_minifloat(t)) return mlc_minifloat_max(mlc_dtype_elem(t));
  return t.bits == 16 ? 65504.0 : t.bits == 32 ? (double)FLT_MAX : DBL_MAX;
}

/* v is the identity of op: 0 for +, 1 for *, the type's largest value (or
 * infinity) for min, its smallest for max */
static bool is_identity(MlcBinOp op, const MlcExpr *v) {
  if (v->kind == MLC_EXPR_INT && v->dtype.code != MLC_TC_BOOL) {
    int64_t x = v->int_val;
    switch (op) {
    case MLC_BIN_ADD: return x == 0;
    case MLC_BIN_MUL: return x == 1;
    case MLC_BIN_MIN: return x == int_max_of(v->dtype);
    case MLC_BIN_MAX: return x == int_min_of(v->dtype);
    default: return false;
    }
  }
  if (v->kind == MLC_EXPR_FLOAT) {
    double x = v->float_val, big = float_max_of(v->dtype);
    switch (op) {
    case MLC_BIN_ADD: return x == 0.0;
    case MLC_BIN_MUL: return x == 1.0;
    case MLC_BIN_MIN: return x >= big;
    case MLC_BIN_MAX: return x <= -big;
    default: return false;
    }
  }
  return false;
}

typedef struct LoadUse { MlcVisitor v; const MlcBuffer *buf; bool found; } LoadUse;

static bool load_use_expr(MlcVisitor *v, const MlcExpr *e) {
  LoadUse *u = (LoadUse *)v;
  if (e->kind == MLC_EXPR_LOAD && e->load.buf == u->buf) u->found = true;
  return !u->found;
}

static bool expr_loads(const MlcExpr *e, const MlcBuffer *buf) {
  LoadUse u = {.v = {.expr = load_use_expr}, .buf = buf};
  mlc_visit_expr(&u.v, e);
  return u.found;
}

static bool is_self_load(const MlcExpr *e, const MlcStmt *store) {
  return e->kind == MLC_EXPR_LOAD && e->load.buf == store->store.buf && e->load.n == store->store.n &&
         same_indices(e->load.idx, store->store.idx, store->store.n);
}

static bool find_reducer(MlcSchedule *s, const MlcBlock *b, Reducer *r) {
  const MlcStmt *st = b->body, *init = b->init;
  if (st->kind != MLC_STMT_STORE || b->n_writes != 1 || b->writes[0].buf != st->store.buf)
    return sch_error(s, "block '%s': the body is not a single store to the buffer the block writes", b->name);
  if (init->kind != MLC_STMT_STORE || init->store.buf != st->store.buf || init->store.n != st->store.n ||
      !same_indices(init->store.idx, st->store.idx, st->store.n))
    return sch_error(s, "block '%s': the init does not store to the element the body updates", b->name);
  const MlcExpr *v = st->store.value;
  r->store = st;
  r->init = init->store.value;
  r->op_name = NULL;
  for (size_t i = 0; v->kind == MLC_EXPR_BINARY && i < sizeof reducers / sizeof *reducers; i++)
    if (v->bin.op == reducers[i].op) r->op = reducers[i].op, r->op_name = reducers[i].name;
  if (r->op_name) {
    if (is_self_load(v->bin.a, st)) r->rhs = v->bin.b;
    else if (is_self_load(v->bin.b, st)) r->rhs = v->bin.a;
    else r->op_name = NULL;
  }
  if (!r->op_name || expr_loads(r->rhs, st->store.buf))
    return sch_error(s, "block '%s': the update is not a recognised reduction (x = x + e, x * e, min(x, e) or "
                     "max(x, e), with e not reading x's buffer)", b->name);
  if (!is_identity(r->op, r->init))
    return sch_error(s, "block '%s': the init value is not the identity of the '%s' reduction", b->name, r->op_name);
  return true;
}

/* ======================================================================== */
/* rfactor: the loops                                                       */
/* ======================================================================== */

typedef struct Nest {
  const MlcStmt *loops[MAX_LOOPS];
  int n;
  int rf;                 /* the factored loop */
  int top;                /* the outermost loop of the perfect nest above the block */
  bool spatial[MAX_LOOPS]; /* binds a spatial iter */
  bool reduce[MAX_LOOPS];  /* binds a reduce iter */
} Nest;

static void classify(const SchSite *site, Nest *nt) {
  const MlcBlock *b = site->block;
  for (int i = 0; i < nt->n; i++)
    for (int k = 0; k < b->n_iters; k++) {
      if (!sch_uses_var(site->realize->realize.values[k], nt->loops[i]->loop.var)) continue;
      if (b->iters[k].kind == MLC_ITER_SPATIAL) nt->spatial[i] = true;
      else nt->reduce[i] = true;
    }
  nt->top = nt->n;
  const MlcStmt *below = site->realize;
  while (nt->top > 0 && nt->loops[nt->top - 1]->loop.body == below) below = nt->loops[--nt->top];
}

static bool check_loops(MlcSchedule *s, const SchSite *site, const Nest *nt) {
  const char *bn = site->block->name;
  const MlcStmt *rf = nt->loops[nt->rf];
  if (nt->spatial[nt->rf])
    return sch_error(s, "loop '%s' binds a spatial iter var of block '%s'; rfactor needs a reduction loop",
                     loop_name(rf), bn);
  if (!nt->reduce[nt->rf]) return sch_error(s, "loop '%s' binds no reduce iter var of block '%s'", loop_name(rf), bn);
  if (!is_const(rf->loop.min, 0)) return sch_error(s, "loop '%s' does not start at 0", loop_name(rf));
  int first = -1;
  for (int i = 0; i < nt->n; i++) {
    const MlcStmt *l = nt->loops[i];
    if (nt->spatial[i] && nt->reduce[i])
      return sch_error(s, "loop '%s' binds both spatial and reduce iter vars of block '%s'", loop_name(l), bn);
    if (nt->reduce[i] && first < 0) first = i;
    if (first >= 0 && !nt->spatial[i] && !nt->reduce[i] && !is_const(l->loop.extent, 1))
      return sch_error(s, "loop '%s' under reduction loop '%s' binds no iter var of block '%s'", loop_name(l),
                       loop_name(nt->loops[first]), bn);
  }
  if (first < nt->top)
    return sch_error(s, "the loops from reduction loop '%s' down to block '%s' are not a perfect nest holding "
                     "only the block", loop_name(nt->loops[first]), bn);
  for (int i = 0; i < nt->n; i++)
    if (sch_uses_var(rf->loop.extent, nt->loops[i]->loop.var))
      return sch_error(s, "the extent of loop '%s' depends on loop '%s'", loop_name(rf), loop_name(nt->loops[i]));
  return true;
}

/* the write-back nest drops the reduction loops except the factored one */
static bool dropped(const Nest *nt, int i) { return nt->reduce[i] && i != nt->rf; }

/* A predicate conjunct the write-back block cannot keep (it uses a dropped
 * loop) must hold when those loops are at their first values: that is when
 * the rf block initialises each partial result, which the write-back then
 * reads. */
static bool check_dropped_pred(MlcSchedule *s, const SchSite *site, const Nest *nt, MlcExpr *c) {
  MlcCtx *ctx = s->ctx;
  MlcMap first = {0};
  MlcAnalyzer az;
  mlc_arith_init(&az, ctx);
  for (int i = 0; i < nt->n; i++) {
    const MlcStmt *l = nt->loops[i];
    int64_t lo, ext;
    if (dropped(nt, i)) mlc_map_put(&first, l->loop.var, l->loop.min);
    if (mlc_e_is_const_int(l->loop.min, &lo) && mlc_e_is_const_int(l->loop.extent, &ext) && ext > 0)
      mlc_arith_bind(&az, l->loop.var, lo, ext);
  }
  MlcExpr *at_first = mlc_arith_simplify(&az, mlc_substitute_expr(ctx, c, &first));
  bool ok = at_first && mlc_arith_prove(&az, at_first);
  mlc_arith_free(&az);
  mlc_map_free(&first);
  if (!ok)
    return sch_error(s, "block '%s': its predicate may skip the first step of a reduction loop, so some partial "
                     "results would never be initialised", site->block->name);
  return true;
}

/* ======================================================================== */
/* rfactor: the two blocks                                                  */
/* ======================================================================== */

typedef struct RfPlan {
  MlcSchedule *s;
  const SchSite *site;
  const Nest *nt;
  Reducer red;
  int axis;              /* where the new dimension goes */
  MlcBuffer *rf_buf;
} RfPlan;

/* idx with `extra` inserted at the plan's axis */
static MlcExpr **with_axis(MlcCtx *ctx, MlcExpr *const *idx, int n, int axis, MlcExpr *extra) {
  MlcExpr **out = mlc_arena_array(&ctx->arena, (size_t)n + 1, sizeof *out);
  for (int i = 0, k = 0; i <= n; i++) out[i] = i == axis ? extra : idx[k++];
  return out;
}

static MlcExpr **subst_all(MlcCtx *ctx, MlcExpr *const *e, int n, const MlcMap *vmap) {
  MlcExpr **out = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *out);
  for (int i = 0; i < n; i++) out[i] = mlc_substitute_expr(ctx, e[i], vmap);
  return out;
}

static MlcBufferRegion *point_region(MlcCtx *ctx, MlcBuffer *buf, MlcExpr **idx) {
  MlcBufferRegion *r = mlc_arena_alloc(&ctx->arena, sizeof *r);
  r->buf = buf;
  r->ranges = mlc_arena_array(&ctx->arena, (size_t)buf->ndim, sizeof *r->ranges);
  for (int d = 0; d < buf->ndim; d++) r->ranges[d] = (MlcRange){idx[d], mlc_e_int(ctx, idx[d]->dtype, 1)};
  return r;
}

typedef MLC_VEC(MlcIterVar) IterList;
typedef MLC_VEC(MlcExpr *) ValueList;

typedef struct VarOrder { MlcVisitor v; ExprList *vars; } VarOrder;

static bool var_order_expr(MlcVisitor *v, const MlcExpr *e) {
  if (e->kind == MLC_EXPR_VAR) mlc_vec_push(((VarOrder *)v)->vars, (MlcExpr *)e);
  return true;
}

/* A reduce iter of the rf block for each loop the old reduce iter's
 * binding uses (in the order the binding names them), unless made already;
 * loop_iter maps loop var -> new iter var. */
static void rf_reduce_iters(RfPlan *p, const MlcExpr *binding, const MlcMap *lmap, MlcMap *loop_iter,
                            IterList *iters, ValueList *values) {
  MlcCtx *ctx = p->s->ctx;
  ExprList vars = {0};
  VarOrder vo = {.v = {.expr = var_order_expr}, .vars = &vars};
  mlc_visit_expr(&vo.v, binding);
  for (size_t i = 0; i < vars.len; i++)
    for (int k = 0; k < p->nt->n; k++) {
      const MlcStmt *l = p->nt->loops[k];
      if (l->loop.var != vars.data[i] || mlc_map_has(loop_iter, l->loop.var)) continue;
      MlcExpr *v = mlc_e_var(ctx, mlc_internf(ctx, "v%s", loop_name(l)), l->loop.var->dtype);
      mlc_map_put(loop_iter, l->loop.var, v);
      mlc_vec_push(iters, ((MlcIterVar){v, {l->loop.min, l->loop.extent}, MLC_ITER_REDUCE}));
      mlc_vec_push(values, mlc_map_get(lmap, l->loop.var));
    }
  mlc_vec_free(&vars);
}

/* The rf block: a spatial iter for the factored loop first, the spatial
 * iters, then a reduce iter per remaining reduction loop; it reduces rhs
 * into rf_buf[..., v_rf, ...].  lmap: the original loop vars -> the copy's. */
static MlcStmt *rf_realize(RfPlan *p, const MlcMap *lmap) {
  MlcCtx *ctx = p->s->ctx;
  const MlcBlock *b = p->site->block;
  const MlcStmt *r = p->site->realize, *rf = p->nt->loops[p->nt->rf];
  IterList iters = {0};
  ValueList values = {0};
  MlcMap loop_iter = {0}, vmap = {0};
  MlcExpr *vrf = mlc_e_var(ctx, mlc_internf(ctx, "v%s", loop_name(rf)), rf->loop.var->dtype);
  mlc_map_put(&loop_iter, rf->loop.var, vrf);
  mlc_vec_push(&iters, ((MlcIterVar){vrf, {rf->loop.min, rf->loop.extent}, MLC_ITER_SPATIAL}));
  mlc_vec_push(&values, mlc_map_get(lmap, rf->loop.var));
  bool has_reduce = false;
  for (int i = 0; i < b->n_iters; i++) {
    MlcExpr *binding = r->realize.values[i];
    if (b->iters[i].kind == MLC_ITER_SPATIAL) {
      MlcExpr *v = mlc_e_var(ctx, b->iters[i].var->var.name, b->iters[i].var->dtype);
      mlc_map_put(&vmap, b->iters[i].var, v);
      mlc_vec_push(&iters, ((MlcIterVar){v, b->iters[i].dom, MLC_ITER_SPATIAL}));
      mlc_vec_push(&values, mlc_substitute_expr(ctx, binding, lmap));
      continue;
    }
    size_t before = iters.len;
    rf_reduce_iters(p, binding, lmap, &loop_iter, &iters, &values);
    has_reduce |= iters.len > before;
    mlc_map_put(&vmap, b->iters[i].var, mlc_substitute_expr(ctx, binding, &loop_iter));
  }
  const MlcStmt *st = p->red.store;
  MlcExpr **idx = with_axis(ctx, subst_all(ctx, st->store.idx, st->store.n, &vmap), st->store.n, p->axis, vrf);
  int nd = st->store.n + 1;
  MlcExpr *rhs = mlc_substitute_expr(ctx, p->red.rhs, &vmap);
  MlcExpr *value = has_reduce ? mlc_e_bin(ctx, p->red.op, mlc_e_load(ctx, p->rf_buf, idx, nd), rhs) : rhs;
  MlcStmt *body = mlc_s_store(ctx, p->rf_buf, idx, nd, value);
  MlcStmt *init = has_reduce ? mlc_s_store(ctx, p->rf_buf, idx, nd, mlc_substitute_expr(ctx, p->red.init, &vmap)) : NULL;
  MlcBufferRegion *reads = subst_regions(ctx, b->reads, b->n_reads, &vmap);
  const MlcBufferRegion *w = &b->writes[0];
  MlcBufferRegion *writes = mlc_arena_alloc(&ctx->arena, sizeof *writes);
  writes->buf = p->rf_buf;
  writes->ranges = mlc_arena_array(&ctx->arena, (size_t)nd, sizeof *writes->ranges);
  for (int d = 0, k = 0; d < nd; d++) {
    if (d == p->axis) {
      writes->ranges[d] = (MlcRange){vrf, mlc_e_int(ctx, vrf->dtype, 1)};
      continue;
    }
    writes->ranges[d] = (MlcRange){mlc_substitute_expr(ctx, w->ranges[k].min, &vmap),
                                   mlc_substitute_expr(ctx, w->ranges[k].extent, &vmap)};
    k++;
  }
  const char *name = sch_fresh_block_name(p->s, mlc_internf(ctx, "%s_rf", b->name));
  MlcBlock *nb = mlc_block_new(ctx, name, mlc_vec_to_arena(&ctx->arena, &iters), (int)iters.len, reads, b->n_reads,
                               writes, 1, init, NULL, 0, b->annotations, body);
  MlcStmt *out = mlc_s_realize(ctx, mlc_vec_to_arena(&ctx->arena, &values), (int)values.len,
                               mlc_substitute_expr(ctx, r->realize.pred, lmap), nb);
  mlc_vec_free(&iters);
  mlc_vec_free(&values);
  mlc_map_free(&loop_iter);
  mlc_map_free(&vmap);
  return out;
}

/* The write-back block: a reduce iter over the factored loop, then the
 * spatial iters; it reduces rf_buf into the original buffer.  pred: what
 * is kept of the original predicate. */
static MlcStmt *wb_realize(RfPlan *p, MlcExpr *pred) {
  MlcCtx *ctx = p->s->ctx;
  const MlcBlock *b = p->site->block;
  const MlcStmt *r = p->site->realize, *rf = p->nt->loops[p->nt->rf];
  MlcIterVar *iters = mlc_arena_array(&ctx->arena, (size_t)b->n_iters + 1, sizeof *iters);
  MlcExpr **values = mlc_arena_array(&ctx->arena, (size_t)b->n_iters + 1, sizeof *values);
  MlcMap vmap = {0};
  MlcExpr *vrf = mlc_e_var(ctx, mlc_internf(ctx, "v%s", loop_name(rf)), rf->loop.var->dtype);
  iters[0] = (MlcIterVar){vrf, {rf->loop.min, rf->loop.extent}, MLC_ITER_REDUCE};
  values[0] = rf->loop.var;
  int n = 1;
  for (int i = 0; i < b->n_iters; i++) {
    if (b->iters[i].kind != MLC_ITER_SPATIAL) continue;
    MlcExpr *v = mlc_e_var(ctx, b->iters[i].var->var.name, b->iters[i].var->dtype);
    mlc_map_put(&vmap, b->iters[i].var, v);
    iters[n] = (MlcIterVar){v, b->iters[i].dom, MLC_ITER_SPATIAL};
    values[n++] = r->realize.values[i];
  }
  const MlcStmt *st = p->red.store;
  int nd = st->store.n;
  MlcExpr **idx = subst_all(ctx, st->store.idx, nd, &vmap);
  MlcExpr **rf_idx = with_axis(ctx, idx, nd, p->axis, vrf);
  MlcExpr *value = mlc_e_bin(ctx, p->red.op, mlc_e_load(ctx, st->store.buf, idx, nd),
                             mlc_e_load(ctx, p->rf_buf, rf_idx, nd + 1));
  MlcStmt *body = mlc_s_store(ctx, st->store.buf, idx, nd, value);
  MlcStmt *init = mlc_s_store(ctx, st->store.buf, idx, nd, mlc_substitute_expr(ctx, p->red.init, &vmap));
  MlcBufferRegion *writes = subst_regions(ctx, b->writes, 1, &vmap);
  mlc_map_free(&vmap);
  MlcBlock *nb = mlc_block_new(ctx, b->name, iters, n, point_region(ctx, p->rf_buf, rf_idx), 1, writes, 1, init,
                               NULL, 0, b->annotations, body);
  return mlc_s_realize(ctx, values, n, pred, nb);
}

/* The loops from the top of the nest down around `inner`: copies with the
 * vars of lmap (rf nest), or the originals minus the dropped ones. */
static MlcStmt *rebuild_nest(MlcCtx *ctx, const Nest *nt, const MlcMap *lmap, MlcStmt *inner) {
  MlcStmt *st = inner;
  for (int i = nt->n - 1; i >= nt->top && st; i--) {
    const MlcStmt *l = nt->loops[i];
    if (lmap) {
      st = mlc_s_for(ctx, mlc_map_get(lmap, l->loop.var), mlc_substitute_expr(ctx, l->loop.min, lmap),
                     mlc_substitute_expr(ctx, l->loop.extent, lmap), l->loop.kind, l->loop.thread,
                     l->loop.annotations, st);
    } else if (!dropped(nt, i)) {
      st = mlc_s_for(ctx, l->loop.var, l->loop.min, l->loop.extent, l->loop.kind, l->loop.thread,
                     l->loop.annotations, st);
    }
  }
  return st;
}

/* The write-back predicate: the conjuncts that use no dropped loop; the
 * others are checked and left to the rf block. */
static bool wb_pred(MlcSchedule *s, const SchSite *site, const Nest *nt, MlcExpr **out) {
  bool drop[MAX_LOOPS] = {0};
  for (int i = 0; i < nt->n; i++) drop[i] = dropped(nt, i);
  ExprList cs = {0};
  conjuncts(site->realize->realize.pred, &cs);
  MlcExpr *pred = NULL;
  bool ok = true;
  for (size_t i = 0; i < cs.len && ok; i++) {
    if (!uses_any(cs.data[i], nt->loops, drop, nt->n)) pred = conjoin(s->ctx, pred, cs.data[i]);
    else ok = check_dropped_pred(s, site, nt, cs.data[i]);
  }
  mlc_vec_free(&cs);
  *out = pred;
  return ok;
}

/* the kept loops' ranges may not use a dropped loop */
static bool check_kept_ranges(MlcSchedule *s, const Nest *nt) {
  for (int i = nt->top; i < nt->n; i++) {
    if (dropped(nt, i)) continue;
    const MlcStmt *l = nt->loops[i];
    for (int k = nt->top; k < nt->n; k++)
      if (dropped(nt, k) && (sch_uses_var(l->loop.min, nt->loops[k]->loop.var) ||
                             sch_uses_var(l->loop.extent, nt->loops[k]->loop.var)))
        return sch_error(s, "the range of loop '%s' depends on reduction loop '%s'", loop_name(l),
                         loop_name(nt->loops[k]));
  }
  return true;
}

static bool arg_factor_axis(MlcSchedule *s, const MlcSchVal *v, int ndim, int *axis) {
  int64_t a = 0;
  if (v->kind != MLC_SV_NONE && !sch_arg_int(s, v, "factor_axis", &a)) return false;
  if (a < -(int64_t)ndim - 1 || a > ndim)
    return sch_error(s, "factor_axis %lld is out of range for a result of %d dimensions (expected %d to %d)",
                     (long long)a, ndim + 1, -ndim - 1, ndim);
  *axis = (int)(a < 0 ? a + ndim + 1 : a);
  return true;
}

static MlcBuffer *rf_buffer(MlcSchedule *s, const MlcBuffer *buf, int axis, MlcExpr *extent) {
  MlcCtx *ctx = s->ctx;
  MlcExpr **shape = with_axis(ctx, buf->shape, buf->ndim, axis, extent);
  const char *name = sch_fresh_buffer_name(s, mlc_internf(ctx, "%s_rf", buf->name));
  return mlc_buffer_new(ctx, name, buf->dtype, shape, buf->ndim + 1, NULL, NULL, buf->scope);
}

/* The one block under the loop, with its site. */
static bool block_under(MlcSchedule *s, const MlcStmt *loop, SchSite *site) {
  const MlcStmt *found[2];
  int n = sch_child_blocks(loop, found, 2);
  if (n != 1)
    return sch_error(s, "loop '%s' must hold exactly one block, it holds %s", loop_name(loop),
                     n == 0 ? "none" : "several");
  return sch_site_named(s, found[0]->realize.block->name, site);
}

bool sch_prim_rfactor(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  MlcCtx *ctx = s->ctx;
  const MlcExpr *lvar;
  SchPath lpath = {0};
  SchSite site = {0};
  if (!sch_arg_loop(s, &args[0], "loop", &lvar) || !sch_find_loop(s, lvar, &lpath)) return false;
  const MlcStmt *loop = lpath.nodes[lpath.n - 1];
  sch_path_free(&lpath);
  if (!block_under(s, loop, &site)) return false;
  Nest nt = {0};
  RfPlan p = {.s = s, .site = &site, .nt = &nt};
  MlcExpr *pred = NULL;
  nt.rf = loop_index(&site, lvar, nt.loops, &nt.n);
  bool ok = nt.rf >= 0 || sch_error(s, "loop '%s' is outside the scope of block '%s'", loop_name(loop), site.block->name);
  ok = ok && check_reduction(s, &site) && find_reducer(s, site.block, &p.red);
  if (ok) classify(&site, &nt);
  ok = ok && check_loops(s, &site, &nt) && check_kept_ranges(s, &nt) && wb_pred(s, &site, &nt, &pred) &&
       arg_factor_axis(s, &args[1], p.red.store->store.n, &p.axis);
  if (ok) {
    p.rf_buf = rf_buffer(s, p.red.store->store.buf, p.axis, loop->loop.extent);
    MlcMap lmap = {0};
    for (int i = nt.top; i < nt.n; i++)
      mlc_map_put(&lmap, nt.loops[i]->loop.var, mlc_e_var(ctx, loop_name(nt.loops[i]), nt.loops[i]->loop.var->dtype));
    MlcStmt *rf_block = rf_realize(&p, &lmap);
    const char *rf_name = rf_block ? rf_block->realize.block->name : NULL;
    MlcStmt *pair[2] = {rebuild_nest(ctx, &nt, &lmap, rf_block), rebuild_nest(ctx, &nt, NULL, wb_realize(&p, pred))};
    mlc_map_free(&lmap);
    Edit e = {.loop = nt.loops[nt.top], .scope = site.path.nodes[site.scope], .alloc = p.rf_buf};
    e.instead = pair[0] && pair[1] ? mlc_s_seq(ctx, pair, 2) : NULL;
    ok = e.instead && commit_edit(s, &e);
    if (ok) {
      outs[0] = (MlcSchVal){.kind = MLC_SV_BLOCK, .rv = sch_block_rv(s, rf_name)};
      *n_outs = 1;
    }
  }
  sch_path_free(&site.path);
  return ok;
}
