/* default_rules.c - default schedules: rules by block pattern that make a
 * prim func fast where nobody wrote a schedule for it.
 *
 * Each block is classified from its TIR alone (iter var kinds, the buffer it
 * writes and the index patterns of its loads), never from names:
 *   - a contraction (matmul, batched matmul, dense, conv1d/2d, grouped and
 *     depthwise): a reduction whose update is `Y = Y + a * b` and whose
 *     output's innermost index is a spatial iter var that only one of a and
 *     b uses -- that operand is loaded as vectors, the other broadcast;
 *   - another reduction (max, sum, mean, pooling);
 *   - an injective block (only spatial iters, no init).
 * Every rule is a sequence of ordinary primitives applied through
 * mlc_sch_apply, so the result is a trace like any other.  A rule is one
 * transaction: when a primitive it needs is refused, the schedule, its
 * handles and its trace are put back to where the rule started, and the
 * block is left to the next rule (or unscheduled).  Finishing touches (an
 * unroll, an epilogue moved into the tile) are transactions of their own,
 * so losing one keeps the rest.
 *
 * Tile sizes come from the target: lanes = vector bits / element bits, and
 * the register tile of a contraction is rows x (cols vectors), with
 * rows * cols accumulators plus cols loads and one broadcast fitting in the
 * vector registers (AVX2: 6 x 2 of 8 lanes, AVX-512: 8 x 2 of 16).  Factors
 * always divide the extents they split, so no split adds a predicate: a
 * vectorized loop must not have one (lowering refuses a branch on the
 * vector lane), and an unrolled tile must be whole to live in registers. */
#include "schedule/default.h"
#include "schedule/state.h"

#include <string.h>

enum {
  MAX_NEST = 16,         /* loops of a block the rules look at */
  MAX_ROWS = 8,          /* register tile rows: beyond this the unrolled code only grows */
  MAX_SCALAR_COLS = 8,   /* columns of a tile of scalars (no vector width fits the lane axis) */
  MAX_TILE_COLS = 4,     /* vectors per tile row the tuner's space draws among */
  MIN_LANES = 4,         /* fewer lanes than this are not worth a vector */
  PARALLEL_MIN_WORK = 4096, /* block instances below which a thread pool costs more than it gives */
  PARALLEL_CHUNKS = 16,  /* iterations per thread a parallel loop needs to balance the load */
};

typedef struct Rules {
  MlcSchedule *s;
  const MlcSchTarget *t;
  bool space; /* the tuner's design space: tile sizes drawn (tile_size) */
} Rules;

/* ---- transactions ------------------------------------------------------------------ */

typedef struct Mark {
  MlcModule *mod;
  size_t rvs, trace;
} Mark;

static Mark mark(const MlcSchedule *s) { return (Mark){s->mod, s->rvs.len, s->trace.len}; }

/* Undo everything since m: the module, the handles and the trace, and the
 * error the refused primitive left (a refused rule is not a failure). */
static bool rollback(MlcSchedule *s, Mark m) {
  s->mod = m.mod;
  s->rvs.len = m.rvs;
  s->trace.len = m.trace;
  mlc_clear_error(s->ctx);
  return false;
}

/* ---- primitives by handle ------------------------------------------------------------ */

static MlcSchVal v_loop(MlcLoopRV l) { return (MlcSchVal){.kind = MLC_SV_LOOP, .rv = l.id}; }
static MlcSchVal v_block(MlcBlockRV b) { return (MlcSchVal){.kind = MLC_SV_BLOCK, .rv = b.id}; }
static MlcSchVal v_int(int64_t i) { return (MlcSchVal){.kind = MLC_SV_INT, .i = i}; }

static bool apply(MlcSchedule *s, MlcSchPrim p, MlcSchVal *args, MlcSchVal *outs, int *n) {
  MlcSchVal scratch[MLC_SCH_MAX_OUTS];
  int k;
  return mlc_sch_apply(s, p, args, outs ? outs : scratch, n ? n : &k);
}

/* parallel, vectorize or unroll */
static bool loop_kind(MlcSchedule *s, MlcSchPrim p, MlcLoopRV l) {
  MlcSchVal a[8] = {v_loop(l)};
  return apply(s, p, a, NULL, NULL);
}

static bool loops_of(MlcSchedule *s, MlcBlockRV b, MlcLoopRV *out, int *n) {
  return mlc_sch_get_loops(s, b, out, MAX_NEST, n);
}

static bool reorder(MlcSchedule *s, const MlcLoopRV *loops, int n) {
  MlcSchVal items[MAX_NEST];
  for (int i = 0; i < n; i++) items[i] = v_loop(loops[i]);
  MlcSchVal a[8] = {{.kind = MLC_SV_LIST, .list = {items, n}}};
  return apply(s, MLC_SCH_reorder, a, NULL, NULL);
}

/* fuse n >= 1 loops (one loop is its own fusion, no instruction) */
static bool fuse(MlcSchedule *s, const MlcLoopRV *loops, int n, MlcLoopRV *out) {
  if (n == 1) return *out = loops[0], true;
  MlcSchVal items[MAX_NEST], outs[MLC_SCH_MAX_OUTS];
  for (int i = 0; i < n; i++) items[i] = v_loop(loops[i]);
  MlcSchVal a[8] = {{.kind = MLC_SV_LIST, .list = {items, n}}};
  int k;
  if (!apply(s, MLC_SCH_fuse, a, outs, &k)) return false;
  out->id = outs[0].rv;
  return true;
}

/* a primitive taking (block, loop) or (block) and returning one block */
static bool block_prim(MlcSchedule *s, MlcSchPrim p, MlcBlockRV b, const MlcSchVal *second, MlcBlockRV *out) {
  MlcSchVal a[8] = {v_block(b)}, outs[MLC_SCH_MAX_OUTS];
  if (second) a[1] = *second;
  int k;
  if (!apply(s, p, a, outs, &k)) return false;
  if (out) out->id = k > 0 ? outs[0].rv : -1;
  return true;
}

static bool cache_write_local(MlcSchedule *s, MlcBlockRV b, MlcBlockRV *out) {
  MlcSchVal a[8] = {v_block(b), v_int(0), {.kind = MLC_SV_STR, .s = mlc_intern(s->ctx, "local")}};
  MlcSchVal outs[MLC_SCH_MAX_OUTS];
  int k;
  if (!apply(s, MLC_SCH_cache_write, a, outs, &k)) return false;
  out->id = outs[0].rv;
  return true;
}

static bool reverse_compute_at(MlcSchedule *s, MlcBlockRV b, MlcLoopRV l) {
  MlcSchVal a[8] = {v_block(b), v_loop(l)};
  return apply(s, MLC_SCH_reverse_compute_at, a, NULL, NULL);
}

static bool decompose(MlcSchedule *s, MlcBlockRV b, MlcLoopRV l, MlcBlockRV *init) {
  MlcSchVal second = v_loop(l);
  return block_prim(s, MLC_SCH_decompose_reduction, b, &second, init);
}

static bool consumers(MlcSchedule *s, MlcBlockRV b, MlcBlockRV *out, int cap, int *n) {
  MlcSchVal a[8] = {v_block(b)}, outs[MLC_SCH_MAX_OUTS];
  int k;
  *n = 0;
  if (!apply(s, MLC_SCH_get_consumers, a, outs, &k)) return false;
  for (int i = 0; i < k && i < cap; i++) out[(*n)++].id = outs[i].rv;
  return true;
}

/* ---- looking at the IR --------------------------------------------------------------- */

static const MlcStmt *realize_of(MlcSchedule *s, MlcBlockRV b) {
  SchPath p;
  if (!sch_find_block(s, s->rvs.data[b.id].block, &p)) return mlc_clear_error(s->ctx), NULL;
  const MlcStmt *r = p.nodes[p.n - 1];
  sch_path_free(&p);
  return r;
}

static const MlcExpr *loop_var(const MlcSchedule *s, MlcLoopRV l) { return s->rvs.data[l.id].loop_var; }

/* the constant extent of a loop, -1 when it is not one */
static int64_t extent(MlcSchedule *s, MlcLoopRV l) {
  SchPath p;
  if (!sch_find_loop(s, loop_var(s, l), &p)) return mlc_clear_error(s->ctx), -1;
  int64_t e;
  bool ok = mlc_e_is_const_int(p.nodes[p.n - 1]->loop.extent, &e);
  sch_path_free(&p);
  return ok ? e : -1;
}

typedef struct Uses { const MlcExpr *var; bool found; } Uses;

static bool uses_visit(MlcVisitor *v, const MlcExpr *e) {
  Uses *u = v->user;
  if (e == u->var) u->found = true;
  return !u->found;
}

bool mlc_sch_default_uses(const MlcExpr *e, const MlcExpr *var) {
  Uses u = {var, false};
  MlcVisitor vis = {.user = &u, .expr = uses_visit};
  if (e) mlc_visit_expr(&vis, e);
  return u.found;
}

static bool guarded_visit(MlcVisitor *v, const MlcExpr *e) {
  bool *found = v->user;
  if (e->kind == MLC_EXPR_SELECT || (e->kind == MLC_EXPR_CALL && e->call.op == MLC_INTRIN_IF_THEN_ELSE))
    *found = true;
  return !*found;
}

/* A value with a select or if_then_else: vector code evaluates both sides
 * for every lane, and the side a guard protects (a padded load) may then
 * read outside its buffer. */
static bool guarded(const MlcExpr *e) {
  bool found = false;
  MlcVisitor vis = {.user = &found, .expr = guarded_visit};
  mlc_visit_expr(&vis, e);
  return found;
}

/* A block in a nest of its own: loops that each hold only the next one,
 * one loop per iter var, each binding a distinct loop var; what the rules
 * can split, reorder and fuse freely. */
typedef struct Nest {
  MlcBlockRV block;
  const MlcBlock *b;
  const MlcStmt *store;        /* the block body: one store */
  int n;                       /* loops = iters */
  MlcLoopRV loops[MAX_NEST];
  int64_t ext[MAX_NEST];
  int iter_of_loop[MAX_NEST];
} Nest;

static bool perfect(const MlcStmt *const *loops, int n, const MlcStmt *realize) {
  for (int i = 0; i < n; i++) {
    const MlcStmt *next = i + 1 < n ? loops[i + 1] : realize;
    if (loops[i]->loop.body != next) return false;
  }
  return true;
}

static bool bind_iters(Nest *t, const MlcStmt *realize, const MlcStmt *const *loops) {
  for (int i = 0; i < t->n; i++) {
    t->iter_of_loop[i] = -1;
    for (int k = 0; k < t->b->n_iters; k++)
      if (realize->realize.values[k] == loops[i]->loop.var) t->iter_of_loop[i] = k;
    if (t->iter_of_loop[i] < 0 || t->b->iters[t->iter_of_loop[i]].kind == MLC_ITER_OPAQUE) return false;
  }
  return true;
}

static bool nest_of(MlcSchedule *s, MlcBlockRV b, Nest *t) {
  memset(t, 0, sizeof *t);
  t->block = b;
  const MlcStmt *r = realize_of(s, b);
  if (!r) return false;
  t->b = r->realize.block;
  if (!t->b->body || t->b->body->kind != MLC_STMT_STORE || t->b->n_writes != 1) return false;
  t->store = t->b->body;
  SchPath p;
  if (!sch_find_block(s, t->b->name, &p)) return mlc_clear_error(s->ctx), false;
  const MlcStmt *loops[MAX_NEST];
  int n = sch_path_loops(&p, loops, MAX_NEST);
  sch_path_free(&p);
  if (n != t->b->n_iters || n == 0 || n > MAX_NEST || !perfect(loops, n, r)) return false;
  t->n = n;
  if (!bind_iters(t, r, loops)) return false;
  for (int i = 0; i < n; i++)
    if (!mlc_e_is_const_int(loops[i]->loop.extent, &t->ext[i])) return false;
  int k;
  return loops_of(s, b, t->loops, &k) && k == n;
}

static MlcIterKind kind_of(const Nest *t, int loop) { return t->b->iters[t->iter_of_loop[loop]].kind; }
static const MlcExpr *iter_var(const Nest *t, int loop) { return t->b->iters[t->iter_of_loop[loop]].var; }

/* the loop whose iter var is the written buffer's innermost index, -1 */
static int lane_loop(const Nest *t) {
  if (t->store->store.n == 0) return -1; /* a scalar (a dot product of two vectors) */
  const MlcExpr *last = t->store->store.idx[t->store->store.n - 1];
  for (int i = 0; i < t->n; i++)
    if (last == iter_var(t, i) && kind_of(t, i) == MLC_ITER_SPATIAL) return i;
  return -1;
}

static int64_t work(const Nest *t) {
  int64_t w = 1;
  for (int i = 0; i < t->n && w < PARALLEL_MIN_WORK; i++) w *= t->ext[i];
  return w;
}

/* Lanes for a loop of extent ext storing dtype t: the target's full width,
 * or half or a quarter of it, whichever divides ext first; 0 when none
 * does (or the type is one the rules do not vectorize). */
static int lanes(const Rules *r, MlcDType t, int64_t ext) {
  bool ok = t.lanes == 1 && (t.code == MLC_TC_FLOAT || t.code == MLC_TC_INT || t.code == MLC_TC_UINT) && t.bits >= 32;
  if (!ok) return 0;
  for (int l = r->t->vector_bits / t.bits; l >= MIN_LANES; l /= 2)
    if (ext % l == 0) return l;
  return 0;
}

/* ---- finishing touches -------------------------------------------------------------------- */

/* Fuse the leading loops of loops[0..n) and run the result in parallel,
 * when there is enough work; its own transaction.  Only as many loops as
 * give each thread PARALLEL_CHUNKS pieces are fused: the loops below stay
 * loops of their own, so the body indexes by plain loop vars (a fused
 * index costs a division and a modulo per dim, per iteration, and keeps
 * the inner loop from being a contiguous run the C compiler vectorizes). */
static void parallel_outer(Rules *r, const MlcLoopRV *loops, int n, int64_t work_total) {
  if (n <= 0 || r->t->threads < 2 || work_total < PARALLEL_MIN_WORK) return;
  int64_t pieces = 1;
  for (int k = 0; k < n; k++) {
    int64_t e = extent(r->s, loops[k]);
    if (e < 0) break;
    pieces *= e;
    if (pieces >= (int64_t)r->t->threads * PARALLEL_CHUNKS) {
      n = k + 1;
      break;
    }
  }
  Mark m = mark(r->s);
  MlcLoopRV f;
  if (!fuse(r->s, loops, n, &f) || extent(r->s, f) < 2 || !loop_kind(r->s, MLC_SCH_parallel, f)) rollback(r->s, m);
}

/* The loops of block b below loop `below` (all of them when below is -1):
 * the innermost vectorized when its extent is want_lanes (split to it when a
 * multiple), the rest unrolled when `unroll`.  Its own transaction. */
static void tile_inner(Rules *r, MlcBlockRV b, MlcLoopRV below, int want_lanes, bool unroll) {
  Mark m = mark(r->s);
  MlcLoopRV loops[MAX_NEST];
  int n, first = 0;
  if (!loops_of(r->s, b, loops, &n) || n == 0) return (void)rollback(r->s, m);
  for (int i = 0; i < n && below.id >= 0; i++)
    if (loop_var(r->s, loops[i]) == loop_var(r->s, below)) first = i + 1;
  if (first >= n) return (void)rollback(r->s, m);
  MlcLoopRV inner = loops[n - 1];
  int64_t e = extent(r->s, inner);
  bool ok = want_lanes > 0 && e > 0 && e % want_lanes == 0;
  if (ok && e > want_lanes) {
    MlcLoopRV parts[2];
    ok = mlc_sch_split(r->s, inner, (int64_t[]){0, want_lanes}, 2, parts);
    if (ok) loops[n - 1] = parts[0], inner = parts[1], n++;
  }
  if (ok) ok = loop_kind(r->s, MLC_SCH_vectorize, inner);
  for (int i = first; ok && unroll && i < n - 1; i++) ok = loop_kind(r->s, MLC_SCH_unroll, loops[i]);
  if (!ok) rollback(r->s, m);
}

/* ---- injective blocks ---------------------------------------------------------------------- */

/* Vectorize the innermost loop when it walks the written buffer's last
 * dimension (contiguous stores), then fuse the loops above it and run them
 * in parallel.  False when neither applies: a trace of handles alone is
 * not worth its lines. */
static bool rule_injective(Rules *r, MlcBlockRV b) {
  Nest t;
  if (!nest_of(r->s, b, &t) || t.b->init) return false;
  for (int i = 0; i < t.n; i++)
    if (kind_of(&t, i) != MLC_ITER_SPATIAL) return false;
  MlcLoopRV outer[MAX_NEST];
  memcpy(outer, t.loops, sizeof t.loops);
  bool contiguous = lane_loop(&t) == t.n - 1 && !guarded(t.store->store.value);
  int L = contiguous ? lanes(r, t.store->store.buf->dtype, t.ext[t.n - 1]) : 0;
  bool vectorized = false;
  if (L > 0) {
    Mark m = mark(r->s);
    MlcLoopRV parts[2];
    vectorized = mlc_sch_split(r->s, t.loops[t.n - 1], (int64_t[]){0, L}, 2, parts) &&
                 loop_kind(r->s, MLC_SCH_vectorize, parts[1]);
    if (vectorized) outer[t.n - 1] = parts[0];
    else rollback(r->s, m);
  }
  size_t before = r->s->trace.len;
  parallel_outer(r, outer, t.n, work(&t));
  return vectorized || r->s->trace.len > before;
}

/* ---- reductions ------------------------------------------------------------------------------ */

typedef struct LoadScan { const MlcBuffer *out; const MlcExpr *lane; const MlcBlock *b; bool strided; } LoadScan;

static bool scan_visit(MlcVisitor *v, const MlcExpr *e) {
  LoadScan *sc = v->user;
  if (e->kind != MLC_EXPR_LOAD || e->load.buf == sc->out || e->load.n == 0) return true;
  const MlcExpr *last = e->load.idx[e->load.n - 1];
  bool reduce = false;
  for (int k = 0; k < sc->b->n_iters; k++)
    reduce |= sc->b->iters[k].kind == MLC_ITER_REDUCE && mlc_sch_default_uses(last, sc->b->iters[k].var);
  if (reduce && !mlc_sch_default_uses(last, sc->lane)) sc->strided = true;
  return !sc->strided;
}

/* true when some load walks a reduce iter, not the lane var, along its
 * innermost dimension: vectors over the lane var would gather there, and
 * the reduction is better served along that dimension */
static bool reduces_along_rows(const Nest *t, const MlcExpr *lane) {
  LoadScan sc = {t->store->store.buf, lane, t->b, false};
  MlcVisitor vis = {.user = &sc, .expr = scan_visit};
  mlc_visit_expr(&vis, t->store->store.value);
  return sc.strided;
}

/* Vectors along the output's innermost spatial axis: that loop split to
 * the lanes and moved below the reduce loops, the init decomposed out so
 * both nests vectorize, the spatial loops above run in parallel.  Softmax
 * over a middle axis, pooling. */
static bool reduction_spatial_lanes(Rules *r, Nest *t) {
  int w = lane_loop(t);
  if (w < 0 || guarded(t->store->store.value) || reduces_along_rows(t, iter_var(t, w))) return false;
  int L = lanes(r, t->store->store.buf->dtype, t->ext[w]);
  if (!L) return false;
  Mark m = mark(r->s);
  MlcLoopRV parts[2], order[MAX_NEST + 1], outer[MAX_NEST];
  int n = 0, n_outer = 0, first_reduce = -1;
  if (!mlc_sch_split(r->s, t->loops[w], (int64_t[]){0, L}, 2, parts)) return rollback(r->s, m);
  for (int i = 0; i < t->n; i++)
    if (i != w && kind_of(t, i) == MLC_ITER_SPATIAL) outer[n_outer++] = order[n++] = t->loops[i];
  outer[n_outer++] = order[n++] = parts[0];
  for (int i = 0; i < t->n; i++)
    if (kind_of(t, i) == MLC_ITER_REDUCE) {
      if (first_reduce < 0) first_reduce = n;
      order[n++] = t->loops[i];
    }
  order[n++] = parts[1];
  MlcBlockRV init;
  if (first_reduce < 0 || !reorder(r->s, order, n) || !decompose(r->s, t->block, order[first_reduce], &init) ||
      !loop_kind(r->s, MLC_SCH_vectorize, parts[1]))
    return rollback(r->s, m);
  tile_inner(r, init, parts[0], L, false);
  parallel_outer(r, outer, n_outer, work(t));
  return true;
}

/* A long innermost reduce loop: split to the lanes and rfactor'd, so the
 * partial sums (one per lane) are a spatial axis that vectorizes; the
 * write-back folds the lanes serially.  Row sums of softmax, layer norm. */
static bool reduction_rfactor(Rules *r, Nest *t) {
  int k = t->n - 1;
  if (kind_of(t, k) != MLC_ITER_REDUCE || guarded(t->store->store.value)) return false;
  int L = lanes(r, t->store->store.buf->dtype, t->ext[k]);
  if (!L || t->ext[k] < 2 * L) return false;
  Mark m = mark(r->s);
  MlcLoopRV parts[2];
  MlcSchVal a[8] = {{0}}, outs[MLC_SCH_MAX_OUTS];
  int n_out;
  if (!mlc_sch_split(r->s, t->loops[k], (int64_t[]){0, L}, 2, parts)) return rollback(r->s, m);
  a[0] = v_loop(parts[1]);
  a[1] = v_int(t->store->store.n);
  if (!apply(r->s, MLC_SCH_rfactor, a, outs, &n_out)) return rollback(r->s, m);
  MlcBlockRV rf = {outs[0].rv};
  /* the rf block's nest: spatial loops, ko, then the lane loop innermost */
  MlcLoopRV loops[MAX_NEST];
  int n;
  if (!loops_of(r->s, rf, loops, &n) || n < 2 || !loop_kind(r->s, MLC_SCH_vectorize, loops[n - 1]))
    return rollback(r->s, m);
  int lead = 0;
  while (lead < t->n && kind_of(t, lead) == MLC_ITER_SPATIAL) lead++;
  if (lead > 0 && lead <= n - 2) parallel_outer(r, loops, lead, work(t));
  return true;
}

/* the leading spatial loops (those above the first reduce loop) fused and
 * run in parallel; the reduction itself stays serial */
static bool reduction_serial(Rules *r, Nest *t) {
  int lead = 0;
  while (lead < t->n && kind_of(t, lead) == MLC_ITER_SPATIAL) lead++;
  parallel_outer(r, t->loops, lead, work(t));
  return true;
}

static bool rule_reduction(Rules *r, MlcBlockRV b) {
  Nest t;
  if (!nest_of(r->s, b, &t) || !t.b->init) return false;
  return reduction_spatial_lanes(r, &t) || reduction_rfactor(r, &t) || reduction_serial(r, &t);
}

/* ---- contractions ------------------------------------------------------------------------------ */

static const MlcExpr *strip_cast(const MlcExpr *e) {
  while (e && e->kind == MLC_EXPR_CAST) e = e->operand;
  return e;
}

/* The two factors of `Y = Y + a * b` (either order of the sum), NULL when
 * the update is not that. */
static bool product_update(const MlcStmt *st, const MlcExpr **a, const MlcExpr **b) {
  const MlcExpr *v = st->store.value;
  if (v->kind != MLC_EXPR_BINARY || v->bin.op != MLC_BIN_ADD) return false;
  const MlcExpr *acc = strip_cast(v->bin.a), *prod = strip_cast(v->bin.b);
  if (acc->kind != MLC_EXPR_LOAD || acc->load.buf != st->store.buf) {
    const MlcExpr *x = acc;
    acc = prod, prod = x;
  }
  if (acc->kind != MLC_EXPR_LOAD || acc->load.buf != st->store.buf) return false;
  if (prod->kind != MLC_EXPR_BINARY || prod->bin.op != MLC_BIN_MUL) return false;
  *a = prod->bin.a, *b = prod->bin.b;
  return true;
}

/* The register tile of a contraction: loop positions in the nest and the
 * sizes the target allows. */
typedef struct Tile {
  int j, i;        /* the lane loop (output's innermost axis) and the row loop */
  int lanes, cols; /* cols vectors of lanes each */
  int rows;
  const MlcExpr *lane_operand;
} Tile;

/* The row axis: a spatial axis of the output other than the lane axis;
 * best one the vector operand does not use (each row then reuses the
 * loaded vectors), then the longest. */
static int pick_rows(const Nest *t, int j, const MlcExpr *lane_operand) {
  int best = -1, best_score = -1;
  for (int i = 0; i < t->n; i++) {
    if (i == j || kind_of(t, i) != MLC_ITER_SPATIAL) continue;
    int score = (mlc_sch_default_uses(lane_operand, iter_var(t, i)) ? 0 : 4) + (t->ext[i] > 1 ? 2 : 0);
    if (score > best_score || (score == best_score && t->ext[i] > t->ext[best])) best = i, best_score = score;
  }
  return best;
}

static int64_t divisor_at_most(int64_t n, int64_t cap) {
  for (int64_t d = cap; d > 1; d--)
    if (n % d == 0) return d;
  return 1;
}

/* A register tile's size: the planned one, or in the tuner's design space
 * (r->space) one drawn by sample_categorical among the divisors of `ext`
 * up to `cap`, the planned one first and as likely as all the others
 * together, so that every decision 0 is the default schedule.  *f: what
 * to split by (the int, or the sample's handle); returns the value, 0
 * when the sample is refused. */
static int64_t tile_size(Rules *r, int64_t planned, int64_t ext, int64_t cap, MlcSchVal *f) {
  *f = v_int(planned);
  if (!r->space) return planned;
  enum { MAX_CANDS = 16 };
  MlcSchVal cand[MAX_CANDS], prob[MAX_CANDS];
  int n = 0;
  cand[n++] = v_int(planned);
  for (int64_t d = 1; d <= cap && n < MAX_CANDS; d++)
    if (ext % d == 0 && d != planned) cand[n++] = v_int(d);
  if (n == 1) return planned;
  for (int i = 0; i < n; i++) prob[i] = (MlcSchVal){.kind = MLC_SV_FLOAT, .f = i ? 1.0 / (n - 1) : 1.0};
  /* the space itself takes the planned size (decision 0): what the rules
   * decide from the tile (where to split, what to run in parallel) is
   * then the default schedule's, and a replay with other decisions draws
   * only the tile */
  MlcSchVal a[8] = {{.kind = MLC_SV_LIST, .list = {cand, n}}, {.kind = MLC_SV_LIST, .list = {prob, n}}, v_int(0)};
  MlcSchVal out[MLC_SCH_MAX_OUTS];
  int k;
  if (!apply(r->s, MLC_SCH_sample_categorical, a, out, &k) || k != 1) return 0;
  *f = out[0];
  return r->s->rvs.data[out[0].rv].value;
}

/* split by factors that may be sampled handles (the first is inferred) */
static bool split_by(Rules *r, MlcLoopRV l, const MlcSchVal *f, int n, MlcLoopRV *out) {
  MlcSchVal fs[4] = {{.kind = MLC_SV_NONE}}, outs[MLC_SCH_MAX_OUTS];
  for (int i = 1; i < n && i < 4; i++) fs[i] = f[i];
  MlcSchVal a[8] = {v_loop(l), {.kind = MLC_SV_LIST, .list = {fs, n}}};
  int k;
  if (n > 4 || !apply(r->s, MLC_SCH_split, a, outs, &k) || k != n) return false;
  for (int i = 0; i < n; i++) out[i].id = outs[i].rv;
  return true;
}

static bool plan_tile(const Rules *r, const Nest *t, Tile *p) {
  const MlcExpr *a, *b;
  if (!t->b->init || !product_update(t->store, &a, &b)) return false;
  p->j = lane_loop(t);
  if (p->j < 0) return false;
  const MlcExpr *lane = iter_var(t, p->j);
  if (mlc_sch_default_uses(a, lane) == mlc_sch_default_uses(b, lane)) return false;
  p->lane_operand = mlc_sch_default_uses(a, lane) ? a : b;
  p->lanes = lanes(r, t->store->store.buf->dtype, t->ext[p->j]);
  p->i = pick_rows(t, p->j, p->lane_operand);
  if (p->i < 0) return false;
  if (!p->lanes) {
    /* no vector width divides the lane axis (a conv's 14- or 7-wide rows):
     * a tile of scalars still keeps its accumulators in registers and
     * reuses each loaded value across the tile, where the naive nest
     * reloads and stores the output at every step of the reduction */
    MlcDType dt = t->store->store.buf->dtype;
    if (dt.lanes != 1 || dt.code != MLC_TC_FLOAT || t->ext[p->j] < 2) return false;
    p->lanes = 1;
    p->cols = (int)divisor_at_most(t->ext[p->j], MAX_SCALAR_COLS);
    int max_rows = (r->t->vector_regs - 2) / p->cols;
    p->rows = (int)divisor_at_most(t->ext[p->i], max_rows < MAX_ROWS ? max_rows : MAX_ROWS);
    return p->rows * p->cols >= 4;
  }
  p->cols = (t->ext[p->j] / p->lanes) % 2 == 0 ? 2 : 1;
  /* accumulators + one load per column vector + one broadcast */
  int max_rows = (r->t->vector_regs - p->cols - 1) / p->cols;
  p->rows = (int)divisor_at_most(t->ext[p->i], max_rows < MAX_ROWS ? max_rows : MAX_ROWS);
  return true;
}

static bool complete_block(MlcSchedule *s, MlcBlockRV b) {
  const MlcStmt *r = realize_of(s, b);
  if (!r || r->realize.block->init) return false;
  for (int k = 0; k < r->realize.block->n_iters; k++)
    if (r->realize.block->iters[k].kind != MLC_ITER_SPATIAL) return false;
  return true;
}

/* Epilogues (bias add, activation) reading the tile's write-back: folded
 * into it (reverse_compute_inline), else computed per tile under `tile`;
 * a chain of them one after another.  Each its own transaction. */
/* the iterations of b's loops below `tile` (-1: not under it, or not constant) */
static int64_t work_below(MlcSchedule *s, MlcBlockRV b, MlcLoopRV tile) {
  MlcLoopRV l[MAX_NEST];
  int n, at = -1;
  if (!loops_of(s, b, l, &n)) return -1;
  for (int i = 0; i < n && at < 0; i++)
    if (loop_var(s, l[i]) == loop_var(s, tile)) at = i;
  int64_t w = 1;
  for (int i = at + 1; at >= 0 && i < n; i++) {
    int64_t e = extent(s, l[i]);
    if (e < 0) return -1;
    w *= e;
  }
  return at < 0 ? -1 : w;
}

static void epilogues(Rules *r, MlcBlockRV store, MlcLoopRV tile, int L) {
  MlcBlockRV prod = store;
  int64_t tile_work = work_below(r->s, store, tile);
  for (int round = 0; round < 8; round++) {
    Mark m = mark(r->s);
    MlcBlockRV c[4];
    int n;
    if (!consumers(r->s, prod, c, 4, &n) || n != 1 || !complete_block(r->s, c[0])) return (void)rollback(r->s, m);
    if (block_prim(r->s, MLC_SCH_reverse_compute_inline, c[0], NULL, NULL)) continue;
    rollback(r->s, m);
    if (!consumers(r->s, prod, c, 4, &n) || !reverse_compute_at(r->s, c[0], tile)) return (void)rollback(r->s, m);
    /* under the tile it must compute the tile's elements, not more: a
     * region the analysis could not narrow would recompute (and unroll)
     * the whole output per tile; the injective rule takes it then */
    int64_t w = work_below(r->s, c[0], tile);
    if (w < 0 || tile_work < 0 || w > tile_work) return (void)rollback(r->s, m);
    tile_inner(r, c[0], tile, L, true);
    prod = c[0];
  }
}

/* Pack the vector operand's panel (a matmul's B[:, jo*cols*lanes ...]) into
 * a buffer of its own per iteration of the outer loop `panel`: its rows
 * are a whole row of B apart, the packed copy is contiguous and stays in
 * L2 while every row tile of the panel streams it.  Only for a 2-D operand
 * under a lone outer loop (matmul, dense), where the panel is one slice;
 * and when enough row tiles reuse it to pay for the copy.  Its own
 * transaction. */
static void pack_panel(Rules *r, const Nest *t, const Tile *p, MlcLoopRV panel, int n_outer) {
  const MlcExpr *lane = strip_cast(p->lane_operand);
  if (n_outer != 1 || lane->kind != MLC_EXPR_LOAD || lane->load.n != 2 || t->ext[p->i] < 4 * p->rows) return;
  const MlcStmt *rz = realize_of(r->s, t->block);
  int index = -1;
  for (int k = 0; rz && k < rz->realize.block->n_reads; k++)
    if (rz->realize.block->reads[k].buf == lane->load.buf) index = k;
  if (index < 0) return;
  Mark m = mark(r->s);
  MlcSchVal a[8] = {v_block(t->block), v_int(index), {.kind = MLC_SV_STR, .s = mlc_intern(r->s->ctx, "global")}};
  MlcSchVal outs[MLC_SCH_MAX_OUTS];
  int k;
  if (!apply(r->s, MLC_SCH_cache_read, a, outs, &k)) return (void)rollback(r->s, m);
  MlcBlockRV pack = {outs[0].rv};
  MlcSchVal at[8] = {v_block(pack), v_loop(panel)};
  if (!apply(r->s, MLC_SCH_compute_at, at, NULL, NULL)) return (void)rollback(r->s, m);
  tile_inner(r, pack, panel, p->lanes, false);
}

/* The register tile (bench/matmul/schedule.py's shape, sized for the
 * target): rows split off the row axis, cols x lanes off the lane axis,
 * loops ordered [other spatial] jo io [reduce] ii jv jl; the tile
 * accumulated in a "local" cache written back under io, its init
 * decomposed out of the reduction; lanes vectorized, rows and column
 * vectors unrolled so every tile index is a constant (registers); the
 * loops above io fused and run in parallel. */
static bool rule_contraction(Rules *r, MlcBlockRV b) {
  Nest t;
  Tile p;
  if (!nest_of(r->s, b, &t) || !plan_tile(r, &t, &p)) return false;
  MlcLoopRV ip[2], jp[3], order[MAX_NEST + 3], outer[MAX_NEST];
  int n = 0, n_outer = 0, first_reduce = -1;
  MlcSchVal fi[2], fj[3] = {{0}, {0}, v_int(p.lanes)};
  if (!(p.rows = (int)tile_size(r, p.rows, t.ext[p.i], MAX_ROWS, &fi[1])) ||
      !(p.cols = (int)tile_size(r, p.cols, t.ext[p.j] / p.lanes, MAX_TILE_COLS, &fj[1])) || !split_by(r, t.loops[p.i], fi, 2, ip) ||
      !split_by(r, t.loops[p.j], fj, 3, jp))
    return false;
  for (int i = 0; i < t.n; i++)
    if (i != p.i && i != p.j && kind_of(&t, i) == MLC_ITER_SPATIAL) outer[n_outer++] = order[n++] = t.loops[i];
  outer[n_outer++] = order[n++] = jp[0];
  order[n++] = ip[0];
  for (int i = 0; i < t.n; i++)
    if (kind_of(&t, i) == MLC_ITER_REDUCE) {
      if (first_reduce < 0) first_reduce = n;
      order[n++] = t.loops[i];
    }
  order[n++] = ip[1], order[n++] = jp[1], order[n++] = jp[2];
  MlcBlockRV store, init;
  if (first_reduce < 0 || !reorder(r->s, order, n) || !cache_write_local(r->s, b, &store) ||
      !reverse_compute_at(r->s, store, ip[0]) || !decompose(r->s, b, order[first_reduce], &init) ||
      (p.lanes > 1 && !loop_kind(r->s, MLC_SCH_vectorize, jp[2])) || !loop_kind(r->s, MLC_SCH_unroll, jp[1]) ||
      !loop_kind(r->s, MLC_SCH_unroll, ip[1]))
    return false;
  pack_panel(r, &t, &p, jp[0], n_outer);
  epilogues(r, store, ip[0], p.lanes);
  tile_inner(r, store, ip[0], p.lanes, true);
  tile_inner(r, init, ip[0], p.lanes, true);
  parallel_outer(r, outer, n_outer, work(&t));
  return true;
}

/* ---- contractions over output channels ------------------------------------------------- */

/* A conv's output rows (7 or 14 wide late in a network) rarely fit a vector;
 * its output channels do.  When the operand indexed by the channel axis is
 * a param the function may lay out anew ("layout_free_buffers": a constant
 * weight), its layout becomes blocked -- the channel dim c split into
 * c // lanes and c % lanes last, OIHW -> O/v I H W v -- so that a vector of
 * output channels is one contiguous load, and the other operand (the input,
 * which does not use the channel axis) is broadcast.  The register tile is
 * rows output pixels (along the output's innermost axis) x cols vectors of
 * channels, accumulated in a "local" tile laid out with the channel axis
 * last (NHWC: no div or mod, so lowering shrinks it to the tile and keeps
 * it in registers); after the long reduction the tile is written back to
 * the NCHW output (with its epilogue) element by element. */

enum { MAX_CHANNEL_ROWS = 14 }; /* pixels per tile: one broadcast each, reused by every column vector */

typedef struct ChanTile {
  int o, j;           /* the channel loop (lanes) and the row loop (the output's innermost axis) */
  int out_dim;        /* the output dim o indexes */
  const MlcBuffer *w; /* the free operand and its dim o indexes */
  int w_dim;
  int lanes, cols, rows;
} ChanTile;

const MlcStmt *mlc_sch_default_block_loops(MlcSchedule *s, const char *block, const MlcStmt **loops, int max, int *n) {
  SchPath p;
  if (!sch_find_block(s, block, &p)) return mlc_clear_error(s->ctx), NULL;
  const MlcStmt *r = p.nodes[p.n - 1];
  *n = sch_path_loops(&p, loops, max);
  sch_path_free(&p);
  return r;
}

const MlcStmt *mlc_sch_default_reduce_nest(MlcSchedule *s, const char *block, int max, int64_t *ext,
                                           const MlcExpr **iter, int *n, int *n_spatial) {
  const MlcStmt *loops[MLC_SCH_DEFAULT_MAX_NEST];
  if (max > MLC_SCH_DEFAULT_MAX_NEST) max = MLC_SCH_DEFAULT_MAX_NEST;
  const MlcStmt *r = mlc_sch_default_block_loops(s, block, loops, max, n);
  if (!r) return NULL;
  const MlcBlock *b = r->realize.block;
  if (!b->init || !b->body || b->body->kind != MLC_STMT_STORE || b->n_writes != 1 || *n != b->n_iters || *n > max)
    return NULL;
  bool reduce_seen = false;
  *n_spatial = 0;
  for (int i = 0; i < *n; i++) {
    const MlcStmt *next = i + 1 < *n ? loops[i + 1] : r;
    if (loops[i]->loop.body != next || loops[i]->loop.kind != MLC_FOR_SERIAL ||
        !mlc_e_is_const_int(loops[i]->loop.extent, &ext[i]))
      return NULL;
    int k = 0;
    while (k < b->n_iters && r->realize.values[k] != loops[i]->loop.var) k++;
    if (k == b->n_iters || b->iters[k].kind == MLC_ITER_OPAQUE) return NULL;
    bool spatial = b->iters[k].kind == MLC_ITER_SPATIAL;
    if (spatial && reduce_seen) return NULL; /* spatial loops first */
    reduce_seen |= !spatial;
    iter[i] = b->iters[k].var;
    *n_spatial += spatial;
  }
  return r;
}

bool mlc_sch_default_layout_free(MlcSchedule *s, const MlcBuffer *buf) {
  const MlcPrimFunc *f = sch_func(s);
  const MlcAttrValue *v = mlc_attrs_get(f->attrs, mlc_intern(s->ctx, "layout_free_buffers"));
  for (int k = 0; k < f->n_params; k++)
    if (f->params[k].buf == buf)
      for (int i = 0; v && v->kind == MLC_ATTR_LIST && i < v->list.n; i++)
        if (v->list.items[i].kind == MLC_ATTR_INT && v->list.items[i].i == k) return true;
  return false;
}

/* the dim of a load indexed by exactly var (and no other dim using it), -1 */
static int dim_of(const MlcExpr *load, const MlcExpr *var) {
  int at = -1;
  for (int d = 0; d < load->load.n; d++) {
    if (load->load.idx[d] == var && at < 0) at = d;
    else if (mlc_sch_default_uses(load->load.idx[d], var)) return -1;
  }
  return at;
}

static bool plan_channels(Rules *r, const Nest *t, ChanTile *p) {
  const MlcExpr *a, *b;
  if (!t->b->init || !product_update(t->store, &a, &b)) return false;
  MlcDType dt = t->store->store.buf->dtype;
  if (dt.lanes != 1 || dt.code != MLC_TC_FLOAT) return false;
  p->j = lane_loop(t);
  if (p->j < 0) return false;
  for (p->o = 0; p->o < t->n; p->o++) {
    if (p->o == p->j || kind_of(t, p->o) != MLC_ITER_SPATIAL) continue;
    const MlcExpr *v = iter_var(t, p->o);
    if (mlc_sch_default_uses(a, v) == mlc_sch_default_uses(b, v)) continue;
    const MlcExpr *w = strip_cast(mlc_sch_default_uses(a, v) ? a : b), *x = mlc_sch_default_uses(a, v) ? b : a;
    if (w->kind != MLC_EXPR_LOAD || mlc_sch_default_uses(x, iter_var(t, p->j)) == false) continue;
    if (mlc_sch_default_uses(w, iter_var(t, p->j)) || !mlc_sch_default_layout_free(r->s, w->load.buf)) continue;
    p->w = w->load.buf, p->w_dim = dim_of(w, v);
    p->out_dim = -1;
    for (int d = 0; d < t->store->store.n; d++)
      if (t->store->store.idx[d] == v) p->out_dim = d;
    if (p->w_dim < 0 || p->out_dim < 0) continue;
    p->lanes = lanes(r, dt, t->ext[p->o]);
    if (!p->lanes) continue;
    int best = 0;
    for (int cols = 1; cols <= 2; cols++) {
      if ((t->ext[p->o] / p->lanes) % cols) continue;
      int max_rows = (r->t->vector_regs - cols - 1) / cols;
      int rows = (int)divisor_at_most(t->ext[p->j], max_rows < MAX_CHANNEL_ROWS ? max_rows : MAX_CHANNEL_ROWS);
      if (rows * cols > best) best = rows * cols, p->rows = rows, p->cols = cols;
    }
    return best >= 4;
  }
  return false;
}

/* "lambda a0, ..: (a0, .., a<d> // lanes, .., a<d> % lanes)" for rank n */
static const char *block_map(MlcCtx *ctx, int n, int d, int lanes) {
  MlcStrBuf sb = {0};
  mlc_sb_puts(&sb, "lambda ");
  for (int k = 0; k < n; k++) mlc_sb_printf(&sb, "%sa%d", k ? ", " : "", k);
  mlc_sb_puts(&sb, ": (");
  for (int k = 0; k < n; k++) {
    if (k == d) mlc_sb_printf(&sb, "a%d // %d, ", k, lanes);
    else mlc_sb_printf(&sb, "a%d, ", k);
  }
  mlc_sb_printf(&sb, "a%d %% %d)", d, lanes);
  const char *text = mlc_intern(ctx, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return text;
}

/* "lambda a0, ..: (a0, .., a<d-1>, a<d+1>, .., a<d>)": dim d moved last */
static const char *last_map(MlcCtx *ctx, int n, int d) {
  MlcStrBuf sb = {0};
  mlc_sb_puts(&sb, "lambda ");
  for (int k = 0; k < n; k++) mlc_sb_printf(&sb, "%sa%d", k ? ", " : "", k);
  mlc_sb_puts(&sb, ": (");
  for (int k = 0; k < n; k++)
    if (k != d) mlc_sb_printf(&sb, "a%d, ", k);
  mlc_sb_printf(&sb, "a%d)", d);
  const char *text = mlc_intern(ctx, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return text;
}

static bool relayout(MlcSchedule *s, MlcBlockRV b, MlcSchVal buffer, const char *map) {
  MlcSchVal a[8] = {v_block(b), buffer, {.kind = MLC_SV_LAMBDA, .s = map}};
  return apply(s, MLC_SCH_transform_layout, a, NULL, NULL);
}

typedef struct Window { const Nest *t; const MlcExpr *var; bool found; } Window;

static bool window_visit(MlcVisitor *v, const MlcExpr *e) {
  Window *w = v->user;
  if (e->kind != MLC_EXPR_LOAD) return !w->found;
  for (int d = 0; d < e->load.n && !w->found; d++) {
    if (e->load.idx[d] == w->var || !mlc_sch_default_uses(e->load.idx[d], w->var)) continue;
    for (int i = 0; i < w->t->n; i++)
      if (kind_of(w->t, i) == MLC_ITER_SPATIAL && mlc_sch_default_uses(e->load.idx[d], iter_var(w->t, i)))
        w->found = true;
  }
  return !w->found;
}

/* a reduce iter var that some load indexes together with a spatial one
 * (a conv's rh in h + rh) */
static bool window_axis(const Nest *t, const MlcExpr *var) {
  Window w = {t, var, false};
  MlcVisitor vis = {.user = &w, .expr = window_visit};
  mlc_visit_expr(&vis, t->store->store.value);
  return w.found;
}

static bool rule_contraction_channels(Rules *r, MlcBlockRV b) {
  Nest t;
  ChanTile p = {0};
  if (!nest_of(r->s, b, &t) || !plan_channels(r, &t, &p)) return false;
  MlcCtx *ctx = r->s->ctx;
  MlcSchVal wbuf = {.kind = MLC_SV_STR, .s = p.w->name};
  MlcSchVal write0[2] = {{.kind = MLC_SV_STR, .s = mlc_intern(ctx, "write")}, v_int(0)};
  MlcSchVal local = {.kind = MLC_SV_LIST, .list = {write0, 2}};
  MlcLoopRV op[3], jp[2], order[MAX_NEST + 3], outer[MAX_NEST];
  int n = 0, n_outer = 0, first_reduce = -1;
  MlcSchVal fo[3] = {{0}, {0}, v_int(p.lanes)}, fj[2];
  if (!relayout(r->s, b, wbuf, block_map(ctx, p.w->ndim, p.w_dim, p.lanes)) ||
      !(p.cols = (int)tile_size(r, p.cols, t.ext[p.o] / p.lanes, MAX_TILE_COLS, &fo[1])) ||
      !(p.rows = (int)tile_size(r, p.rows, t.ext[p.j], MAX_CHANNEL_ROWS, &fj[1])) ||
      !split_by(r, t.loops[p.o], fo, 3, op) || !split_by(r, t.loops[p.j], fj, 2, jp))
    return false;
  /* the channel blocks outermost: each block's weight panel is read by
   * every row of the output before the next one is */
  outer[n_outer++] = order[n++] = op[0];
  for (int i = 0; i < t.n; i++)
    if (i != p.o && i != p.j && kind_of(&t, i) == MLC_ITER_SPATIAL) outer[n_outer++] = order[n++] = t.loops[i];
  order[n++] = jp[0];
  /* the window's reduce loops (rh, rw: indexed with an output axis, as
   * h + rh) outside the others (rc): consecutive steps of the inner
   * reduction then read other elements of the input, not the tile's row
   * shifted by one, which the C compiler otherwise carries from step to
   * step in registers the tile needs */
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < t.n; i++)
      if (kind_of(&t, i) == MLC_ITER_REDUCE && window_axis(&t, iter_var(&t, i)) == (pass == 0)) {
        if (first_reduce < 0) first_reduce = n;
        order[n++] = t.loops[i];
      }
  order[n++] = jp[1], order[n++] = op[1], order[n++] = op[2];
  MlcBlockRV store, init;
  if (first_reduce < 0 || !reorder(r->s, order, n) || !cache_write_local(r->s, b, &store) ||
      !reverse_compute_at(r->s, store, jp[0]) ||
      !relayout(r->s, b, local, last_map(ctx, t.store->store.n, p.out_dim)) ||
      !decompose(r->s, b, order[first_reduce], &init) ||
      !loop_kind(r->s, MLC_SCH_vectorize, op[2]) || !loop_kind(r->s, MLC_SCH_unroll, op[1]) ||
      !loop_kind(r->s, MLC_SCH_unroll, jp[1]))
    return false;
  /* the write-back goes element by element into NCHW (lanes 0: nothing
   * vectorized or unrolled there); it is a small part of the work */
  epilogues(r, store, jp[0], 0);
  tile_inner(r, init, jp[0], p.lanes, true);
  /* the channel blocks, then the output rows as far as the threads need
   * pieces: two blocks of 32 channels are two pieces, which one busy core
   * leaves unbalanced */
  parallel_outer(r, outer, n_outer, work(&t));
  return true;
}

/* ---- applying the rules -------------------------------------------------------------------------- */

typedef MLC_VEC(const char *) Names;

/* the blocks that hold no other block, in program order */
static void leaf_blocks(const MlcStmt *s, Names *out) {
  if (!s) return;
  switch (s->kind) {
  case MLC_STMT_FOR: leaf_blocks(s->loop.body, out); return;
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++) leaf_blocks(s->seq.items[i], out);
    return;
  case MLC_STMT_IF: leaf_blocks(s->if_.then_s, out), leaf_blocks(s->if_.else_s, out); return;
  case MLC_STMT_LET: leaf_blocks(s->let.body, out); return;
  case MLC_STMT_ALLOCATE: leaf_blocks(s->alloc.body, out); return;
  case MLC_STMT_BLOCK_REALIZE: {
    size_t before = out->len;
    leaf_blocks(s->realize.block->body, out);
    if (out->len == before) mlc_vec_push(out, s->realize.block->name);
    return;
  }
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return;
  }
}

/* the rules of other files (schedule/default.h), which take the block by name */
static const char *block_name(const MlcSchedule *s, MlcBlockRV b) { return s->rvs.data[b.id].block; }
static bool rule_depthwise(Rules *r, MlcBlockRV b) { return mlc_sch_default_depthwise(r->s, r->t, block_name(r->s, b)); }
static bool rule_pooling(Rules *r, MlcBlockRV b) { return mlc_sch_default_pooling(r->s, r->t, block_name(r->s, b)); }
static bool rule_dot(Rules *r, MlcBlockRV b) { return mlc_sch_default_dot(r->s, r->t, block_name(r->s, b)); }
static bool rule_convt(Rules *r, MlcBlockRV b) { return mlc_sch_default_convt(r->s, r->t, block_name(r->s, b)); }

/* the rules in the order they are tried; the first that applies wins */
#define DEFAULT_RULES(X) \
  X(dot) X(convt) X(depthwise) X(contraction_channels) X(contraction) X(pooling) X(reduction) X(injective)

typedef bool (*RuleFn)(Rules *r, MlcBlockRV b);
static const RuleFn rules[] = {
#define X(name) rule_##name,
    DEFAULT_RULES(X)
#undef X
};

/* a padding copy (its value guarded): a chain inlined into it would be
 * computed branch by branch, scalar, where on its own it vectorizes */
static bool padding(MlcSchedule *s, MlcBlockRV b) {
  const MlcStmt *r = realize_of(s, b);
  const MlcStmt *body = r ? r->realize.block->body : NULL;
  return body && body->kind == MLC_STMT_STORE && guarded(body->store.value);
}

/* A chain of elementwise blocks (what fusion leaves of bias + residual add
 * + relu) becomes its last block: each block that is spatial only and read
 * by exactly one other such block is inlined into it.  One loop nest then
 * reads each input once, and a conv or matmul has a single epilogue to fold
 * into its tile.  Blocks read by a reduction (a pad before a conv) are left
 * to that reduction's rule. */
static void inline_chains(MlcSchedule *s, const Names *names) {
  for (size_t i = 0; i < names->len; i++) {
    Mark m = mark(s);
    MlcBlockRV b, c[2];
    int n;
    if (!mlc_sch_get_block(s, names->data[i], &b) || !complete_block(s, b) || !consumers(s, b, c, 2, &n) || n != 1 ||
        !complete_block(s, c[0]) || padding(s, c[0]) || !block_prim(s, MLC_SCH_compute_inline, b, NULL, NULL))
      rollback(s, m);
  }
}

static bool apply_rules(MlcSchedule *s, const MlcSchTarget *t, bool space) {
  if (!s || !t || t->vector_bits <= 0 || t->vector_regs <= 0) return false;
  Rules r = {s, t, space};
  Names names = {0};
  leaf_blocks(sch_func(s)->body, &names);
  inline_chains(s, &names);
  for (size_t i = 0; i < names.len; i++) {
    Mark m = mark(s);
    MlcBlockRV b;
    /* a block an earlier rule folded away (an epilogue) is gone: skip it */
    if (!mlc_sch_get_block(s, names.data[i], &b)) {
      rollback(s, m);
      continue;
    }
    bool done = false;
    for (size_t k = 0; !done && k < sizeof rules / sizeof *rules; k++) {
      Mark before = mark(s);
      if (!(done = rules[k](&r, b))) rollback(s, before);
    }
    if (!done) rollback(s, m);
  }
  mlc_vec_free(&names);
  return true;
}

bool mlc_sch_apply_default(MlcSchedule *s, const MlcSchTarget *t) { return apply_rules(s, t, false); }
bool mlc_sch_default_space(MlcSchedule *s, const MlcSchTarget *t) { return apply_rules(s, t, true); }

MlcModule *mlc_sch_default_module(MlcCtx *ctx, const MlcModule *m, const MlcSchTarget *t,
                                  bool (*want)(const MlcPrimFunc *f, void *user), void *user) {
  if (!m || !t) return NULL;
  const MlcModule *cur = m;
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != MLC_FUNC_PRIM || (want && !want(m->funcs[i].prim, user))) continue;
    MlcSchedule *s = mlc_sch_new(ctx, cur, m->funcs[i].name, 0);
    if (!s) return NULL;
    mlc_sch_apply_default(s, t);
    cur = mlc_sch_module(s);
    mlc_sch_free(s);
  }
  return (MlcModule *)cur; /* modules are immutable; one nothing changed is shared */
}
