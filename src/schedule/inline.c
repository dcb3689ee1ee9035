/* inline.c - compute_inline and reverse_compute_inline: merge an
 * elementwise block into the blocks around it.
 *
 * compute_inline removes a block `B[v...] = f(...)` and replaces every
 * read B[e...] by f with v... := e...; reverse_compute_inline removes a
 * block `C[g(v...)] = h(B[v...], ...)` that reads its only producer
 * `B[w...] = f(...)` and makes that producer store C[g(w...)] =
 * h(f(...), ...).  Both need the blocks to be one store indexed by distinct
 * iter vars, so that the substitution is a renaming and no two instances
 * write one element (their order changes); the inlined buffer
 * must be an intermediate (allocated in the function, not a parameter)
 * since nobody writes it afterwards, and its allocation goes.
 *
 * Moving a computation to another place keeps its result only if its
 * inputs hold the same values there: compute_inline moves f later (to its
 * readers), so no block in between may write what f reads;
 * reverse_compute_inline moves h earlier (to the producer), so it must
 * read nothing else that a block writes, and nothing in between may touch
 * the buffer it stores to.  Touched blocks get their read and write
 * regions inferred afresh. */
#include "schedule/region.h"

enum { MAX_DIMS = 64 };

typedef struct Site {
  const char *name;
  const MlcStmt *realize;
  const MlcBlock *block;
  SchPath path;
  SchScope scope;
  int pos;
} Site;

static void site_free(Site *x) {
  sch_path_free(&x->path);
  sch_scope_free(&x->scope);
}

static bool find_site(MlcSchedule *s, const MlcSchVal *arg, Site *x) {
  if (!sch_arg_block(s, arg, "block", &x->name) || !sch_find_block(s, x->name, &x->path)) return false;
  x->realize = x->path.nodes[x->path.n - 1];
  x->block = x->realize->realize.block;
  if (!sch_scope_of(&x->path, &x->scope)) return sch_error(s, "block '%s' is the root block", x->name);
  x->pos = sch_scope_index(&x->scope, x->realize);
  return true;
}

/* ---- the shape both need: one store, indexed by distinct iter vars ------------------ */

static int iter_index(const MlcBlock *b, const MlcExpr *e) {
  for (int k = 0; k < b->n_iters; k++)
    if (b->iters[k].var == e) return k;
  return -1;
}

/* idx[0..n) are distinct iter vars of b covering all of them */
static bool distinct_iters(const MlcBlock *b, MlcExpr *const *idx, int n) {
  bool seen[MAX_DIMS] = {0};
  if (n != b->n_iters || n > MAX_DIMS) return false;
  for (int d = 0; d < n; d++) {
    int k = iter_index(b, idx[d]);
    if (k < 0 || seen[k]) return false;
    seen[k] = true;
  }
  return true;
}

/* the block's store, checked: a complete block, one store indexed by its
 * iter vars, each once -- so every instance writes its own element and the
 * instances may run in another order; role names the block in errors
 * ("block", "producer") */
static const MlcStmt *simple_store(MlcSchedule *s, const MlcBlock *b, const char *role) {
  if (sch_is_reduction_block(b)) return sch_error(s, "%s '%s' is a reduction block", role, b->name), NULL;
  if (!sch_is_complete_block(b)) return sch_error(s, "%s '%s' is not a complete block", role, b->name), NULL;
  const MlcStmt *st = b->body;
  if (st->kind != MLC_STMT_STORE || b->n_writes != 1)
    return sch_error(s, "%s '%s' is not a single buffer store", role, b->name), NULL;
  if (!distinct_iters(b, st->store.idx, st->store.n))
    return sch_error(s, "the store of %s '%s' is not indexed by its iter vars, each once", role, b->name), NULL;
  return st;
}

/* ---- loads of a buffer in an expression ---------------------------------------------- */

typedef struct Loads {
  MlcVisitor v; /* first member: the hooks get &l->v */
  const MlcBuffer *buf;
  const MlcExpr *first; /* the first load of buf */
  bool differ;          /* a later load has other indices */
} Loads;

static bool same_indices(const MlcExpr *a, const MlcExpr *b) {
  for (int d = 0; d < a->load.n; d++)
    if (a->load.idx[d] != b->load.idx[d]) return false;
  return true;
}

static bool loads_hook(MlcVisitor *v, const MlcExpr *e) {
  Loads *l = (Loads *)v;
  if (e->kind != MLC_EXPR_LOAD || e->load.buf != l->buf) return true;
  if (!l->first) l->first = e;
  else if (!same_indices(l->first, e)) l->differ = true;
  return true;
}

static Loads find_loads(const MlcExpr *e, const MlcBuffer *buf) {
  Loads l = {.v = {.expr = loads_hook}, .buf = buf};
  mlc_visit_expr(&l.v, e);
  return l;
}

/* ---- rewriting loads --------------------------------------------------------------------- */

/* Loads of buf become `value` with vars[d] := the load's index d; vars in
 * rename become their image; realizes whose block read buf get their reads
 * inferred again. */
typedef struct Rewriter {
  MlcMutator m; /* first member: the hooks get &rw->m */
  const MlcBuffer *buf;
  MlcExpr *const *vars;
  int n;
  MlcExpr *value;
  MlcMap rename;
} Rewriter;

static MlcExpr *rewrite_expr(MlcMutator *m, MlcExpr *e) {
  Rewriter *rw = (Rewriter *)m;
  if (e->kind == MLC_EXPR_VAR) {
    MlcExpr *to = mlc_map_get(&rw->rename, e);
    return to ? to : e;
  }
  if (e->kind != MLC_EXPR_LOAD || e->load.buf != rw->buf || !rw->value) return mlc_mutate_expr_children(m, e);
  MlcExpr *load = mlc_mutate_expr_children(m, e);
  if (!load) return NULL;
  MlcMap vmap = {0};
  for (int d = 0; d < rw->n && d < load->load.n; d++) mlc_map_put(&vmap, rw->vars[d], load->load.idx[d]);
  MlcExpr *r = mlc_substitute_expr(m->ctx, rw->value, &vmap);
  mlc_map_free(&vmap);
  return r;
}

/* a copy of b with its reads (and writes, when asked) inferred from its body */
static MlcBlock *reinfer(MlcCtx *ctx, const MlcBlock *b, bool writes_too) {
  MlcBlock *nb = mlc_arena_dup(&ctx->arena, b, sizeof *nb);
  nb->reads = NULL;
  nb->n_reads = 0;
  if (writes_too) {
    nb->writes = NULL;
    nb->n_writes = 0;
  }
  return mlc_block_infer_regions(ctx, nb) ? nb : NULL;
}

/* A block whose regions name buf (a reader, or a block around the removed
 * one) summarises accesses that changed: its regions are inferred again. */
static MlcStmt *rewrite_stmt(MlcMutator *m, MlcStmt *st) {
  Rewriter *rw = (Rewriter *)m;
  MlcStmt *r = mlc_mutate_stmt_children(m, st);
  if (!r || r->kind != MLC_STMT_BLOCK_REALIZE) return r;
  bool reads = sch_block_reads(st->realize.block, rw->buf), writes = sch_block_writes(st->realize.block, rw->buf);
  if (!reads && !writes) return r;
  MlcBlock *nb = reinfer(m->ctx, r->realize.block, writes);
  return nb ? mlc_s_realize(m->ctx, r->realize.values, r->realize.n, r->realize.pred, nb) : NULL;
}

/* body with the loads of buf replaced (value NULL: none are left) and the
 * regions that named buf inferred again */
static MlcStmt *rewrite_body(MlcCtx *ctx, MlcStmt *body, const MlcBuffer *buf, const MlcStmt *store) {
  Rewriter rw = {.m = {.ctx = ctx, .expr = rewrite_expr, .stmt = rewrite_stmt}, .buf = buf};
  if (store) rw.vars = store->store.idx, rw.n = store->store.n, rw.value = store->store.value;
  MlcStmt *r = body ? mlc_mutate_stmt(&rw.m, body) : NULL;
  mlc_map_free(&rw.rename);
  return r;
}

/* ---- checks on the scope ------------------------------------------------------------------- */

static const char *name_at(const Site *x, size_t i) { return x->scope.blocks.data[i]->realize.block->name; }

/* the block that allocates buf, on the path to x */
static const MlcStmt *allocator(const Site *x, const MlcBuffer *buf) {
  for (int i = x->path.n - 1; i >= 0; i--) {
    const MlcStmt *st = x->path.nodes[i];
    if (st->kind != MLC_STMT_BLOCK_REALIZE) continue;
    for (int k = 0; k < st->realize.block->n_allocs; k++)
      if (st->realize.block->allocs[k] == buf) return st;
  }
  return NULL;
}

/* buf is an intermediate of the scope written by x alone */
static bool check_intermediate(MlcSchedule *s, const Site *x, const MlcBuffer *buf) {
  if (sch_is_param_buffer(sch_func(s), buf))
    return sch_error(s, "block '%s' is an output block: it writes '%s', a parameter of the function",
                     x->name, buf->name);
  if (!allocator(x, buf)) return sch_error(s, "buffer '%s' is not allocated by a block", buf->name);
  for (size_t i = 0; i < x->scope.blocks.len; i++)
    if ((int)i != x->pos && sch_block_writes(x->scope.blocks.data[i]->realize.block, buf))
      return sch_error(s, "buffer '%s' is written by block '%s' as well as by block '%s'", buf->name,
                       name_at(x, i), x->name);
  return true;
}

/* ======================================================================== */
/* compute_inline                                                           */
/* ======================================================================== */

/* The blocks reading B come after the inlined block, and none of the
 * blocks from it to the last of them writes what it reads. */
static bool check_readers(MlcSchedule *s, const Site *x, const MlcBuffer *buf) {
  int last = -1;
  for (size_t i = 0; i < x->scope.blocks.len; i++) {
    if (!sch_block_reads(x->scope.blocks.data[i]->realize.block, buf)) continue;
    if ((int)i < x->pos)
      return sch_error(s, "block '%s' reads '%s' before block '%s' writes it", name_at(x, i), buf->name, x->name);
    last = (int)i;
  }
  for (int i = x->pos + 1; i <= last; i++) {
    const MlcBlock *q = x->scope.blocks.data[i]->realize.block;
    for (int k = 0; k < x->block->n_reads; k++)
      if (sch_block_writes(q, x->block->reads[k].buf))
        return sch_error(s, "block '%s' writes '%s', which block '%s' reads, before the last read of '%s'",
                         q->name, x->block->reads[k].buf->name, x->name, buf->name);
  }
  return true;
}

bool sch_prim_compute_inline(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  *n_outs = 0;
  Site x = {0};
  const MlcStmt *st = NULL;
  bool ok = find_site(s, &args[0], &x) && (st = simple_store(s, x.block, "block")) != NULL;
  ok = ok && check_intermediate(s, &x, st->store.buf) && check_readers(s, &x, st->store.buf);
  if (ok) {
    MlcBuffer *buf = st->store.buf;
    SchEdit edits[2] = {{.old = x.realize}, {.old = allocator(&x, buf), .drop_alloc = buf}};
    MlcStmt *body = rewrite_body(s->ctx, sch_edit(s->ctx, sch_func(s)->body, edits, 2), buf, st);
    ok = body && sch_commit(s, body);
  }
  site_free(&x);
  return ok;
}

/* ======================================================================== */
/* reverse_compute_inline                                                   */
/* ======================================================================== */

/* the one block before x that writes something x reads */
static const MlcStmt *only_producer(MlcSchedule *s, const Site *x) {
  const MlcStmt *found = NULL;
  for (int i = 0; i < x->pos; i++) {
    const MlcStmt *q = x->scope.blocks.data[i];
    bool writes_input = false;
    for (int k = 0; k < x->block->n_reads; k++)
      writes_input = writes_input || sch_block_writes(q->realize.block, x->block->reads[k].buf);
    if (!writes_input) continue;
    if (found)
      return sch_error(s, "block '%s' has more than one producer: '%s' and '%s'", x->name,
                       found->realize.block->name, q->realize.block->name), NULL;
    found = q;
  }
  if (!found) sch_error(s, "block '%s' has no producer block", x->name);
  return found;
}

/* nothing but x reads buf; nothing between the producer (at p) and x
 * touches what x stores to */
static bool check_between(MlcSchedule *s, const Site *x, int p, const MlcBuffer *buf, const MlcBuffer *out) {
  for (size_t i = 0; i < x->scope.blocks.len; i++) {
    const MlcBlock *q = x->scope.blocks.data[i]->realize.block;
    if ((int)i == x->pos) continue;
    if (sch_block_reads(q, buf))
      return sch_error(s, "buffer '%s' is read by block '%s' as well as by block '%s'", buf->name, q->name, x->name);
    if (sch_block_writes(q, out))
      return sch_error(s, "buffer '%s' is written by block '%s' as well as by block '%s'", out->name, q->name,
                       x->name);
    if ((int)i > p && (int)i < x->pos && sch_block_reads(q, out))
      return sch_error(s, "block '%s' reads '%s' between its producer and block '%s'", q->name, out->name, x->name);
  }
  return true;
}

/* an iter var whose domain is one constant value: that value */
static bool single_value(const MlcIterVar *v, int64_t *at) {
  int64_t e;
  return mlc_e_is_const_int(v->dom.extent, &e) && e == 1 && mlc_e_is_const_int(v->dom.min, at);
}

/* x's load of the producer's buffer, dim by dim: an iter var of x, each
 * once, or a constant where the producer stores at an iter var of that one
 * value (fusion reads a conv's NCHW output at [0, c, h, w]); the iter vars
 * of x the load leaves out have one value each.  Then each element the
 * producer writes is read by exactly one instance of x. */
static bool reads_at_iters(const MlcBlock *xb, const MlcBlock *pb, const MlcStmt *pst, const MlcExpr *load) {
  bool seen[MAX_DIMS] = {0};
  int64_t c, at;
  if (load->load.n != pst->store.n || xb->n_iters > MAX_DIMS) return false;
  for (int d = 0; d < load->load.n; d++) {
    if (mlc_e_is_const_int(load->load.idx[d], &c)) {
      int w = iter_index(pb, pst->store.idx[d]);
      if (w < 0 || !single_value(&pb->iters[w], &at) || at != c) return false;
      continue;
    }
    int k = iter_index(xb, load->load.idx[d]);
    if (k < 0 || seen[k]) return false;
    seen[k] = true;
  }
  for (int k = 0; k < xb->n_iters; k++)
    if (!seen[k] && !single_value(&xb->iters[k], &at)) return false;
  return true;
}

/* x reads buf at one index tuple of its own iter vars (or the constants
 * above), over the same domains as the producer's store covers */
static bool check_consumer_access(MlcSchedule *s, const Site *x, const MlcStmt *xst, const MlcBlock *pb,
                                  const MlcStmt *pst, const MlcExpr **load) {
  Loads l = find_loads(xst->store.value, pst->store.buf);
  const char *bname = pst->store.buf->name;
  if (!l.first) return sch_error(s, "block '%s' does not load '%s' in its store", x->name, bname);
  if (l.differ) return sch_error(s, "block '%s' reads '%s' at more than one index", x->name, bname);
  if (!reads_at_iters(x->block, pb, pst, l.first))
    return sch_error(s, "block '%s' does not read '%s' at its iter vars, each once", x->name, bname);
  for (int d = 0; d < l.first->load.n; d++) {
    int k = iter_index(x->block, l.first->load.idx[d]);
    if (k < 0) continue; /* a constant, checked above */
    const MlcIterVar *u = &x->block->iters[k];
    const MlcIterVar *w = &pb->iters[iter_index(pb, pst->store.idx[d])];
    int64_t a, b, c, e;
    if (!mlc_e_is_const_int(u->dom.min, &a) || !mlc_e_is_const_int(w->dom.min, &b) ||
        !mlc_e_is_const_int(u->dom.extent, &c) || !mlc_e_is_const_int(w->dom.extent, &e) || a != b || c != e)
      return sch_error(s, "block '%s' iterates over '%s' differently from its producer '%s'", x->name, bname,
                       pb->name);
  }
  *load = l.first;
  return true;
}

/* the producer storing into out what x computed */
static MlcStmt *merged(MlcSchedule *s, const MlcStmt *prod, const MlcStmt *pst, const MlcBlock *xb,
                       const MlcStmt *xst, const MlcExpr *load) {
  MlcCtx *ctx = s->ctx;
  const MlcBlock *pb = prod->realize.block;
  /* x's iter vars become the producer's (load index d is the var the
   * producer stores index d with); a load of buf, its indices renamed so,
   * reads exactly the element the producer computes, so it becomes the
   * producer's value with the producer's vars standing for themselves */
  Rewriter rw = {.m = {.ctx = ctx, .expr = rewrite_expr}, .buf = pst->store.buf, .vars = pst->store.idx,
                 .n = pst->store.n, .value = pst->store.value};
  for (int d = 0; d < load->load.n; d++)
    if (load->load.idx[d]->kind == MLC_EXPR_VAR) mlc_map_put(&rw.rename, load->load.idx[d], pst->store.idx[d]);
  /* x's iter vars the load leaves out have one value: that constant */
  for (int k = 0; k < xb->n_iters; k++) {
    int64_t at;
    if (!mlc_map_get(&rw.rename, xb->iters[k].var) && single_value(&xb->iters[k], &at))
      mlc_map_put(&rw.rename, xb->iters[k].var, mlc_e_int(ctx, xb->iters[k].var->dtype, at));
  }
  MlcExpr **idx = mlc_arena_array(&ctx->arena, (size_t)(xst->store.n ? xst->store.n : 1), sizeof *idx);
  bool ok = true;
  for (int d = 0; d < xst->store.n && ok; d++) ok = (idx[d] = mlc_mutate_expr(&rw.m, xst->store.idx[d])) != NULL;
  MlcExpr *value = ok ? mlc_mutate_expr(&rw.m, xst->store.value) : NULL;
  mlc_map_free(&rw.rename);
  MlcStmt *store = value ? mlc_s_store(ctx, xst->store.buf, idx, xst->store.n, value) : NULL;
  if (!store) return NULL;
  MlcBlock *nb = mlc_arena_dup(&ctx->arena, pb, sizeof *nb);
  nb->body = store;
  nb = reinfer(ctx, nb, true);
  return nb ? mlc_s_realize(ctx, prod->realize.values, prod->realize.n, prod->realize.pred, nb) : NULL;
}

bool sch_prim_reverse_compute_inline(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  *n_outs = 0;
  Site x = {0};
  const MlcStmt *xst = NULL, *prod = NULL, *pst = NULL;
  bool ok = find_site(s, &args[0], &x) && (xst = simple_store(s, x.block, "block")) != NULL;
  if (ok && !sch_pred_in_domain(s->ctx, x.realize))
    ok = sch_error(s, "block '%s' has a predicate that does more than bound its iter domain", x.name);
  ok = ok && (prod = only_producer(s, &x)) != NULL &&
       (pst = simple_store(s, prod->realize.block, "producer")) != NULL;
  const MlcExpr *ld = NULL;
  int p = ok ? sch_scope_index(&x.scope, prod) : -1;
  if (ok) {
    Site ps = x;
    ps.name = prod->realize.block->name;
    ps.pos = p;
    ok = check_intermediate(s, &ps, pst->store.buf) && check_between(s, &x, p, pst->store.buf, xst->store.buf) &&
         check_consumer_access(s, &x, xst, prod->realize.block, pst, &ld);
  }
  MlcStmt *repl = ok ? merged(s, prod, pst, x.block, xst, ld) : NULL;
  if (repl) {
    const MlcStmt *alloc = allocator(&x, pst->store.buf);
    SchEdit edits[3] = {
        {.old = prod, .repl = repl}, {.old = x.realize}, {.old = alloc, .drop_alloc = pst->store.buf}};
    MlcStmt *body = sch_edit(s->ctx, sch_func(s)->body, edits, 3);
    body = rewrite_body(s->ctx, body, pst->store.buf, NULL);
    ok = body && sch_commit(s, body);
  } else {
    ok = false;
  }
  site_free(&x);
  return ok;
}
