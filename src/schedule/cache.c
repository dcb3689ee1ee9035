/* cache.c - the storage primitives: cache_read and cache_write put a copy of
 * a buffer in another storage scope, with a block that moves the data
 * between the two; set_scope moves an allocated buffer to another scope;
 * storage_align records a padding request for one dimension of a buffer.
 *
 * The copy block (the "stage") goes where TVM puts it.  For a buffer no
 * block of the scope writes, it goes first in the scope and copies the
 * whole buffer.  Otherwise it goes right after the writer, before the first
 * block that reads what the writer produced, in the innermost loop holding
 * both, and copies the region the writer produces there: the writer's write
 * region relaxed over the loops between the writer and the stage.  Relaxing
 * replaces each loop var by the end of its range that minimises (or
 * maximises) the index, which is exact when the index is monotone in every
 * such var; when it is not, a constant superset is taken instead.
 *
 * Copying too much is harmless when reading, but the copy back of
 * cache_write would overwrite elements its writer leaves alone, so
 * cache_write first checks that the writer writes every element of the
 * region.  Only blocks that run after the writer are sent to the cache, and
 * cache_read refuses a reader whose reads the copied region does not cover,
 * so no block ever reads an element the stage did not copy.  A stage whose
 * region may leave the buffer (a tile overshooting its end) is guarded.
 *
 * storage_align only records the "buffer_dim_align" block annotation, in
 * TVM's format ([[buffer_index, axis, factor, offset], ...]); it changes no
 * index, so the program computes the same values. */
#include "schedule/region.h"
#include "schedule/storage.h"

#include <string.h>

typedef MLC_VEC(const MlcStmt *) StmtList;

static const char *const storage_scopes[] = {"global", "shared", "local"};

/* a scope the user names: one of the above tagged with a name of letters,
 * digits, '_' and '.' ("global.A_reg"); ordinary memory of the base scope
 * to the CPU target, and what a tensor intrinsic's buffers are matched by */
static bool tagged_scope(const char *scope) {
  for (size_t i = 0; i < sizeof storage_scopes / sizeof *storage_scopes; i++) {
    size_t n = strlen(storage_scopes[i]);
    if (strncmp(scope, storage_scopes[i], n) != 0 || scope[n] != '.' || !scope[n + 1]) continue;
    const char *p = scope + n + 1;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.') p++;
    return *p == 0 && strlen(scope) < 64;
  }
  return false;
}

static bool arg_storage_scope(MlcSchedule *s, const MlcSchVal *v, const char **out) {
  const char *scope;
  if (!sch_arg_str(s, v, "storage_scope", &scope)) return false;
  for (size_t i = 0; i < sizeof storage_scopes / sizeof *storage_scopes; i++)
    if (strcmp(scope, storage_scopes[i]) == 0) {
      *out = mlc_intern(s->ctx, storage_scopes[i]);
      return true;
    }
  if (tagged_scope(scope)) {
    *out = mlc_intern(s->ctx, scope);
    return true;
  }
  return sch_error(s, "unknown storage scope '%s' (expected global, shared or local, or one of them tagged "
                   "with a name, such as global.A_reg)", scope);
}

/* ======================================================================== */
/* accesses                                                                 */
/* ======================================================================== */

static MlcBuffer *nth_access(MlcSchedule *s, const MlcBlock *b, bool write, const MlcSchVal *v,
                             const char *what) {
  int64_t i;
  if (!sch_arg_int(s, v, what, &i)) return NULL;
  int n = write ? b->n_writes : b->n_reads;
  if (i < 0 || i >= n) {
    sch_error(s, "block '%s' has no %s buffer at index %lld (it %s %d)", b->name,
              write ? "write" : "read", (long long)i, write ? "writes" : "reads", n);
    return NULL;
  }
  return write ? b->writes[i].buf : b->reads[i].buf;
}

static bool block_reads(const MlcStmt *realize, const MlcBuffer *buf) {
  const MlcBlock *b = realize->realize.block;
  return sch_region_of(b->reads, b->n_reads, buf) != NULL;
}

static bool block_writes(const MlcStmt *realize, const MlcBuffer *buf) {
  const MlcBlock *b = realize->realize.block;
  return sch_region_of(b->writes, b->n_writes, buf) != NULL;
}

/* ======================================================================== */
/* buffers: allocation sites, loads                                        */
/* ======================================================================== */

typedef struct BufWalk {
  MlcVisitor v;
  const MlcBuffer *target;
  bool found;
} BufWalk;

static bool alloc_block(MlcVisitor *v, const MlcBlock *b) {
  BufWalk *w = (BufWalk *)v;
  for (int i = 0; i < b->n_allocs; i++)
    if (b->allocs[i] == w->target) w->found = true;
  return !w->found;
}

static bool alloc_stmt(MlcVisitor *v, const MlcStmt *st) {
  BufWalk *w = (BufWalk *)v;
  if (st->kind == MLC_STMT_ALLOCATE && st->alloc.buf == w->target) w->found = true;
  return !w->found;
}

/* true when a block (or an allocate statement) of the function allocates
 * buf: only such buffers may change scope or layout */
static bool is_allocated(const MlcSchedule *s, const MlcBuffer *buf) {
  BufWalk w = {.v = {.block = alloc_block, .stmt = alloc_stmt}, .target = buf};
  mlc_visit_stmt(&w.v, sch_func(s)->body);
  return w.found;
}

/* a compact copy of buf in another scope */
static MlcBuffer *buffer_in_scope(MlcSchedule *s, const MlcBuffer *buf, const char *name, const char *scope) {
  return mlc_buffer_new(s->ctx, name, buf->dtype, buf->shape, buf->ndim, NULL, NULL, scope);
}

typedef struct LoadWalk { MlcVisitor v; const MlcBuffer *buf; bool found; } LoadWalk;

static bool load_expr(MlcVisitor *v, const MlcExpr *e) {
  LoadWalk *w = (LoadWalk *)v;
  if (e->kind == MLC_EXPR_LOAD && e->load.buf == w->buf) w->found = true;
  return !w->found;
}

static bool stmt_loads(const MlcStmt *st, const MlcBuffer *buf) {
  LoadWalk w = {.v = {.expr = load_expr}, .buf = buf};
  mlc_visit_stmt(&w.v, st);
  return w.found;
}

/* ======================================================================== */
/* the blocks of a scope                                                    */
/* ======================================================================== */

/* The block realizes directly in a scope's body, in program order, and
 * whether a statement outside them stores to buf. */
typedef struct Scope {
  StmtList blocks;
  bool bare_store;
} Scope;

static void scan_scope(const MlcStmt *st, const MlcBuffer *buf, Scope *sc) {
  if (!st) return;
  switch (st->kind) {
  case MLC_STMT_BLOCK_REALIZE: mlc_vec_push(&sc->blocks, st); return;
  case MLC_STMT_STORE: sc->bare_store |= st->store.buf == buf; return;
  case MLC_STMT_FOR: scan_scope(st->loop.body, buf, sc); return;
  case MLC_STMT_LET: scan_scope(st->let.body, buf, sc); return;
  case MLC_STMT_ALLOCATE: scan_scope(st->alloc.body, buf, sc); return;
  case MLC_STMT_IF:
    scan_scope(st->if_.then_s, buf, sc);
    scan_scope(st->if_.else_s, buf, sc);
    return;
  case MLC_STMT_SEQ:
    for (int i = 0; i < st->seq.n; i++) scan_scope(st->seq.items[i], buf, sc);
    return;
  case MLC_STMT_EVALUATE: return;
  }
}

static int index_in(const StmtList *l, const MlcStmt *st) {
  for (size_t i = 0; i < l->len; i++)
    if (l->data[i] == st) return (int)i;
  return -1;
}

/* The one block of the scope writing buf: *writer gets it (NULL when
 * none); false + error when several do, or a bare store does. */
static bool only_writer(MlcSchedule *s, const Scope *sc, const MlcBuffer *buf, const MlcStmt **writer) {
  *writer = NULL;
  if (sc->bare_store) return sch_error(s, "buffer '%s' is stored to outside any block of the scope", buf->name);
  for (size_t i = 0; i < sc->blocks.len; i++) {
    if (!block_writes(sc->blocks.data[i], buf)) continue;
    if (*writer)
      return sch_error(s, "buffer '%s' is written by more than one block ('%s' and '%s')", buf->name,
                       (*writer)->realize.block->name, sc->blocks.data[i]->realize.block->name);
    *writer = sc->blocks.data[i];
  }
  return true;
}

/* The blocks named by consumer_blocks (None, one handle or a list), each
 * a block of the scope; false + error otherwise. */
static bool consumer_list(MlcSchedule *s, const MlcSchVal *v, const Scope *sc, StmtList *out) {
  const MlcSchVal *items = v;
  int n = 1;
  if (v->kind == MLC_SV_NONE) n = 0;
  else if (v->kind == MLC_SV_LIST) items = v->list.items, n = v->list.n;
  for (int i = 0; i < n; i++) {
    const char *name;
    if (!sch_arg_block(s, &items[i], "consumer_blocks", &name)) return false;
    const MlcStmt *found = NULL;
    for (size_t k = 0; k < sc->blocks.len && !found; k++)
      if (sc->blocks.data[k]->realize.block->name == name) found = sc->blocks.data[k];
    if (!found) return sch_error(s, "consumer block '%s' is not in the same scope as the block", name);
    if (index_in(out, found) < 0) mlc_vec_push(out, found);
  }
  return true;
}

/* ======================================================================== */
/* where the stage goes                                                     */
/* ======================================================================== */

/* The walk TVM's cache location detector makes: in the first sequence,
 * innermost first, where the writer has been seen in an earlier item and
 * a related block (a reader of the writer's output) in item i, the stage
 * goes before item i. */
typedef struct Detect {
  const MlcStmt *writer;
  const StmtList *related;
  bool seen_writer, seen_related, fail;
  const MlcStmt *seq; /* the sequence found, NULL while none */
  int pos;
} Detect;

static void detect(Detect *d, const MlcStmt *st) {
  if (!st || d->seq || d->fail) return;
  switch (st->kind) {
  case MLC_STMT_BLOCK_REALIZE:
    if (st == d->writer) d->seen_writer = true;
    else if (index_in(d->related, st) >= 0) d->seen_related = true;
    return;
  case MLC_STMT_FOR: detect(d, st->loop.body); return;
  case MLC_STMT_LET: detect(d, st->let.body); return;
  case MLC_STMT_ALLOCATE: detect(d, st->alloc.body); return;
  case MLC_STMT_IF: {
    bool had = d->seen_writer && d->seen_related;
    detect(d, st->if_.then_s);
    detect(d, st->if_.else_s);
    /* writer and reader on two branches: no place between them */
    if (!had && !d->seq && d->seen_writer && d->seen_related) d->fail = true;
    return;
  }
  case MLC_STMT_SEQ: {
    bool outer = d->seen_writer;
    d->seen_writer = false;
    for (int i = 0; i < st->seq.n && !d->seq && !d->fail; i++) {
      detect(d, st->seq.items[i]);
      if (d->seq) break;
      if (d->seen_writer && d->seen_related) {
        d->seq = st;
        d->pos = i;
        break;
      }
      if (d->seen_related) break;
    }
    d->seen_writer |= outer;
    return;
  }
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return;
  }
}

/* Where the stage goes: into sequence `seq` before item `pos`, or (seq
 * NULL) at the start (pos 0) or end (pos -1) of the scope's body. */
typedef struct Place {
  const MlcStmt *seq;
  int pos;
} Place;

static bool place_after_writer(MlcSchedule *s, const SchSite *site, const MlcStmt *writer,
                               const StmtList *related, Place *pl) {
  *pl = (Place){NULL, -1};
  if (related->len == 0) return true;
  Detect d = {.writer = writer, .related = related};
  const MlcStmt *scope = site->path.nodes[site->scope];
  detect(&d, scope->realize.block->body);
  if (d.fail || !d.seq)
    return sch_error(s, "block '%s': found no place between the writer '%s' and its readers for the "
                     "cache stage", site->block->name, writer->realize.block->name);
  pl->seq = d.seq;
  pl->pos = d.pos;
  return true;
}

/* The loops between the stage's place and the block at the end of path
 * (the ones a region is relaxed over), outermost first. */
static int loops_below(const SchPath *path, const MlcStmt *anchor, const MlcStmt **out, int cap) {
  int at = path->n - 1;
  while (at >= 0 && path->nodes[at] != anchor) at--;
  int n = 0;
  for (int i = at + 1; i < path->n - 1; i++)
    if (path->nodes[i]->kind == MLC_STMT_FOR && n < cap) out[n++] = path->nodes[i];
  return n;
}

/* ======================================================================== */
/* relaxing regions                                                         */
/* ======================================================================== */

enum { MAX_LOOPS = 64, MAX_DIMS = 32 };

/* How an integer expression moves when var grows. */
typedef enum Mono { MONO_CONST, MONO_INC, MONO_DEC, MONO_ANY } Mono;

static Mono mono_flip(Mono m) { return m == MONO_INC ? MONO_DEC : m == MONO_DEC ? MONO_INC : m; }

static Mono mono_join(Mono a, Mono b) {
  if (a == MONO_CONST) return b;
  if (b == MONO_CONST) return a;
  return a == b ? a : MONO_ANY;
}

static Mono mono_scaled(Mono m, int64_t c) { return c > 0 ? m : c < 0 ? mono_flip(m) : MONO_CONST; }

static Mono mono(const MlcExpr *e, const MlcExpr *var) {
  int64_t c;
  if (!sch_uses_var(e, var)) return MONO_CONST;
  switch (e->kind) {
  case MLC_EXPR_VAR: return MONO_INC;
  case MLC_EXPR_NEG: return mono_flip(mono(e->operand, var));
  case MLC_EXPR_CAST:
    /* widening integer casts keep the order; others may wrap */
    if (mlc_dtype_is_int(e->dtype) && mlc_dtype_is_int(e->operand->dtype) && e->dtype.bits >= e->operand->dtype.bits)
      return mono(e->operand, var);
    return MONO_ANY;
  case MLC_EXPR_BINARY: {
    const MlcExpr *a = e->bin.a, *b = e->bin.b;
    switch (e->bin.op) {
    case MLC_BIN_ADD: return mono_join(mono(a, var), mono(b, var));
    case MLC_BIN_SUB: return mono_join(mono(a, var), mono_flip(mono(b, var)));
    case MLC_BIN_MIN:
    case MLC_BIN_MAX: return mono_join(mono(a, var), mono(b, var));
    case MLC_BIN_MUL:
      if (mlc_e_is_const_int(b, &c)) return mono_scaled(mono(a, var), c);
      if (mlc_e_is_const_int(a, &c)) return mono_scaled(mono(b, var), c);
      return MONO_ANY;
    case MLC_BIN_FLOORDIV:
      return mlc_e_is_const_int(b, &c) && c > 0 ? mono(a, var) : MONO_ANY;
    default: return MONO_ANY;
    }
  }
  default: return MONO_ANY;
  }
}

static MlcExpr *int_const(MlcCtx *ctx, MlcDType t, int64_t v) { return mlc_e_int(ctx, t, v); }

/* e with every relaxed loop var replaced by the end of its range that
 * minimises (hi: maximises) it; NULL when e is not monotone in one of them
 * or a loop's range depends on another relaxed loop. */
static MlcExpr *relax_end(MlcAnalyzer *az, MlcExpr *e, const MlcStmt **loops, int n, bool hi) {
  MlcCtx *ctx = az->ctx;
  MlcMap vmap = {0};
  MlcExpr *r = NULL;
  for (int i = 0; i < n; i++) {
    const MlcStmt *l = loops[i];
    Mono m = mono(e, l->loop.var);
    if (m == MONO_ANY) goto done;
    if (m == MONO_CONST) continue;
    MlcExpr *last = mlc_e_bin(ctx, MLC_BIN_SUB, mlc_e_bin(ctx, MLC_BIN_ADD, l->loop.min, l->loop.extent),
                              int_const(ctx, l->loop.min->dtype, 1));
    bool want_last = (m == MONO_INC) == hi;
    mlc_map_put(&vmap, l->loop.var, want_last ? last : l->loop.min);
  }
  r = mlc_substitute_expr(ctx, e, &vmap);
  for (int i = 0; r && i < n; i++)
    if (sch_uses_var(r, loops[i]->loop.var)) r = NULL;
  if (r) r = mlc_arith_simplify(az, r);
done:
  mlc_map_free(&vmap);
  return r;
}

static MlcExpr *as_dtype(MlcCtx *ctx, MlcExpr *e, MlcDType t) {
  int64_t v;
  if (mlc_dtype_eq(e->dtype, t)) return e;
  if (mlc_e_is_const_int(e, &v)) return mlc_e_int(ctx, t, v);
  return mlc_e_cast(ctx, t, e);
}

/* A region of a block in terms of loop vars: the iter vars replaced by
 * their bindings. */
static void region_in_loops(MlcCtx *ctx, const MlcStmt *realize, const MlcBufferRegion *r, MlcRange *out) {
  const MlcBlock *b = realize->realize.block;
  MlcMap vmap = {0};
  for (int i = 0; i < b->n_iters; i++) mlc_map_put(&vmap, b->iters[i].var, realize->realize.values[i]);
  for (int d = 0; d < r->buf->ndim; d++) {
    out[d].min = mlc_substitute_expr(ctx, r->ranges[d].min, &vmap);
    out[d].extent = mlc_substitute_expr(ctx, r->ranges[d].extent, &vmap);
  }
  mlc_map_free(&vmap);
}

/* v is at (or past) an end of what type t holds: a bound the analyzer did
 * not know */
static bool type_extreme(MlcDType t, int64_t v) {
  if (t.bits >= 64) return v == INT64_MIN || v == INT64_MAX;
  int64_t hi = (INT64_C(1) << (t.bits - 1)) - 1;
  return v <= -hi - 1 || v >= hi;
}

/* [lo, hi] of one dimension of a region over the relaxed loops.  az knows
 * the ranges of every loop of the path (for the constant fallback) and the
 * outer ones are what the symbolic result may use. */
static void relax_dim(MlcAnalyzer *az, const MlcRange *rg, const MlcExpr *dim, const MlcStmt **loops,
                      int n, MlcExpr **lo, MlcExpr **hi) {
  MlcCtx *ctx = az->ctx;
  MlcDType t = rg->min->dtype;
  MlcExpr *last = mlc_e_bin(ctx, MLC_BIN_SUB, mlc_e_bin(ctx, MLC_BIN_ADD, rg->min, as_dtype(ctx, rg->extent, t)),
                            int_const(ctx, t, 1));
  *lo = relax_end(az, rg->min, loops, n, false);
  *hi = relax_end(az, last, loops, n, true);
  if (*lo && *hi) return;
  /* not monotone: the constant hull, or the whole dimension (an unknown
   * bound is the whole range of the index type) */
  MlcIntSet a = mlc_arith_bound(az, rg->min), b = mlc_arith_bound(az, last);
  if (!type_extreme(t, a.min) && !type_extreme(t, b.max) && a.min <= b.max) {
    *lo = int_const(ctx, t, a.min);
    *hi = int_const(ctx, t, b.max);
    return;
  }
  *lo = int_const(ctx, dim->dtype, 0);
  *hi = mlc_e_bin(ctx, MLC_BIN_SUB, (MlcExpr *)dim, int_const(ctx, dim->dtype, 1));
}

/* Bind the constant ranges of the loops on a path (up to its end). */
static void bind_path_loops(MlcAnalyzer *az, const SchPath *path) {
  for (int i = 0; i < path->n; i++) {
    const MlcStmt *l = path->nodes[i];
    int64_t lo, ext;
    if (l->kind == MLC_STMT_FOR && mlc_e_is_const_int(l->loop.min, &lo) &&
        mlc_e_is_const_int(l->loop.extent, &ext) && ext > 0)
      mlc_arith_bind(az, l->loop.var, lo, ext);
  }
}

/* The region of buffer `r` the block at the end of path touches, relaxed
 * over the loops below `anchor`, as (min, extent) per dimension; with
 * clamp, cut to the buffer when both ends are constants. */
static void relaxed_region(MlcCtx *ctx, const SchPath *path, const MlcStmt *anchor, const MlcBufferRegion *r,
                           bool clamp, MlcRange *out) {
  const MlcStmt *realize = path->nodes[path->n - 1];
  const MlcStmt *loops[MAX_LOOPS];
  int n = loops_below(path, anchor, loops, MAX_LOOPS);
  MlcRange in[MAX_DIMS];
  region_in_loops(ctx, realize, r, in);
  MlcAnalyzer az;
  mlc_arith_init(&az, ctx);
  bind_path_loops(&az, path);
  for (int d = 0; d < r->buf->ndim; d++) {
    MlcExpr *lo, *hi, *dim = r->buf->shape[d];
    relax_dim(&az, &in[d], dim, loops, n, &lo, &hi);
    int64_t l, h, sz;
    if (clamp && mlc_e_is_const_int(lo, &l) && mlc_e_is_const_int(hi, &h) && mlc_e_is_const_int(dim, &sz)) {
      if (l < 0) l = 0;
      if (h > sz - 1) h = sz - 1;
      if (h < l) h = l;
      lo = int_const(ctx, lo->dtype, l);
      hi = int_const(ctx, lo->dtype, h);
    }
    hi = as_dtype(ctx, hi, lo->dtype);
    out[d].min = lo;
    out[d].extent = mlc_arith_simplify(
        &az, mlc_e_bin(ctx, MLC_BIN_ADD, mlc_e_bin(ctx, MLC_BIN_SUB, hi, lo), int_const(ctx, lo->dtype, 1)));
  }
  mlc_arith_free(&az);
}

/* true when az proves a >= b */
static bool proves_ge(MlcAnalyzer *az, MlcExpr *a, MlcExpr *b) {
  MlcCtx *ctx = az->ctx;
  b = as_dtype(ctx, b, a->dtype);
  MlcExpr *d = mlc_arith_simplify(az, mlc_e_bin(ctx, MLC_BIN_SUB, a, b));
  return d && mlc_arith_bound(az, d).min >= 0;
}

/* ======================================================================== */
/* the stage                                                                */
/* ======================================================================== */

static MlcExpr *and_expr(MlcCtx *ctx, MlcExpr *acc, MlcExpr *c) {
  return acc ? mlc_e_bin(ctx, MLC_BIN_AND, acc, c) : c;
}

/* e is the constant v, or (other given) the same node or constant as other */
static bool same_bound(const MlcExpr *e, int64_t v, const MlcExpr *other) {
  int64_t a, b;
  if (!other) return mlc_e_is_const_int(e, &a) && a == v;
  return e == other || (mlc_e_is_const_int(e, &a) && mlc_e_is_const_int(other, &b) && a == b);
}

/* A guard keeping x in [lo, end), and-ed to pred where az cannot prove it. */
static MlcExpr *guard(MlcAnalyzer *az, MlcExpr *pred, MlcExpr *x, MlcExpr *min, MlcExpr *extent, MlcExpr *lo,
                      MlcExpr *end) {
  MlcCtx *ctx = az->ctx;
  MlcDType t = x->dtype;
  lo = mlc_arith_simplify(az, as_dtype(ctx, lo, t));
  end = mlc_arith_simplify(az, as_dtype(ctx, end, t));
  if (!proves_ge(az, min, lo)) pred = and_expr(ctx, pred, mlc_e_bin(ctx, MLC_BIN_GE, x, lo));
  if (!proves_ge(az, end, mlc_e_bin(ctx, MLC_BIN_ADD, min, extent)))
    pred = and_expr(ctx, pred, mlc_e_bin(ctx, MLC_BIN_LT, x, end));
  return pred;
}

/*   for ax0, ax1, ... in T.grid(extents):
 *       with T.block(name):
 *           v0 = T.axis.spatial(shape0, min0 + ax0) ...
 *           dst[v0, ...] = src[v0, ...]
 * guarded by a predicate where the region may leave the buffer or, when
 * keep is given, the ranges keep[d] of the indices; az knows the loops
 * around the place the stage goes. */
static MlcStmt *make_stage(MlcSchedule *s, MlcAnalyzer *az, const char *name, MlcBuffer *src, MlcBuffer *dst,
                           const MlcRange *region, const MlcRange *keep) {
  MlcCtx *ctx = s->ctx;
  int nd = src->ndim;
  MlcArena *A = &ctx->arena;
  MlcExpr **loops = mlc_arena_array(A, (size_t)(nd ? nd : 1), sizeof *loops);
  MlcExpr **extents = mlc_arena_array(A, (size_t)(nd ? nd : 1), sizeof *extents);
  MlcExpr **values = mlc_arena_array(A, (size_t)(nd ? nd : 1), sizeof *values);
  MlcExpr **idx = mlc_arena_array(A, (size_t)(nd ? nd : 1), sizeof *idx);
  MlcIterVar *iters = mlc_arena_array(A, (size_t)(nd ? nd : 1), sizeof *iters);
  MlcRange *points = mlc_arena_array(A, (size_t)(nd ? nd : 1), sizeof *points);
  MlcExpr *pred = NULL;
  for (int d = 0; d < nd; d++) {
    MlcExpr *dim = src->shape[d];
    MlcDType t = dim->dtype;
    MlcExpr *min = as_dtype(ctx, region[d].min, t);
    extents[d] = as_dtype(ctx, region[d].extent, t);
    loops[d] = mlc_e_var(ctx, mlc_internf(ctx, "ax%d", d), t);
    idx[d] = mlc_e_var(ctx, mlc_internf(ctx, "v%d", d), t);
    values[d] = mlc_arith_simplify(az, mlc_e_bin(ctx, MLC_BIN_ADD, min, loops[d]));
    iters[d] = (MlcIterVar){idx[d], {int_const(ctx, t, 0), dim}, MLC_ITER_SPATIAL};
    points[d] = (MlcRange){idx[d], int_const(ctx, t, 1)};
    pred = guard(az, pred, values[d], min, extents[d], int_const(ctx, t, 0), dim);
    if (keep && (!same_bound(keep[d].min, 0, NULL) || !same_bound(keep[d].extent, 0, dim)))
      pred = guard(az, pred, values[d], min, extents[d], keep[d].min,
                   mlc_e_bin(ctx, MLC_BIN_ADD, keep[d].min, as_dtype(ctx, keep[d].extent, keep[d].min->dtype)));
  }
  MlcBufferRegion *reads = mlc_arena_alloc(A, sizeof *reads), *writes = mlc_arena_alloc(A, sizeof *writes);
  *reads = (MlcBufferRegion){src, points};
  *writes = (MlcBufferRegion){dst, points};
  MlcStmt *body = mlc_s_store(ctx, dst, idx, nd, mlc_e_load(ctx, src, idx, nd));
  MlcBlock *b = mlc_block_new(ctx, name, iters, nd, reads, 1, writes, 1, NULL, NULL, 0, (MlcAttrs){0}, body);
  MlcStmt *st = mlc_s_realize(ctx, values, nd, pred, b);
  for (int d = nd - 1; d >= 0 && st; d--)
    st = mlc_s_for(ctx, loops[d], int_const(ctx, loops[d]->dtype, 0), extents[d], MLC_FOR_SERIAL, NULL,
                   (MlcAttrs){0}, st);
  return st;
}

/* ======================================================================== */
/* rewriting the scope                                                      */
/* ======================================================================== */

/* One pass over the scope: the redirected blocks access the cache instead
 * of the buffer, the stage is inserted at its place, and the scope's block
 * allocates the cache. */
typedef struct Rewrite {
  MlcMutator m;             /* first member: hooks get &rw->m */
  const MlcStmt *scope;
  const StmtList *redirect; /* realizes whose accesses of old go to the cache */
  MlcMap to_cache;          /* old buffer -> cache, installed inside them */
  MlcBuffer *cache;
  Place place;
  MlcStmt *stage;
} Rewrite;

static MlcStmt *rewrite_stmt(MlcMutator *m, MlcStmt *st);

static MlcStmt *insert_stage(Rewrite *rw, const MlcStmt *seq) {
  MlcCtx *ctx = rw->m.ctx;
  int n = seq->seq.n;
  MlcStmt **items = mlc_arena_array(&ctx->arena, (size_t)n + 1, sizeof *items);
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (i == rw->place.pos) items[k++] = rw->stage;
    if (!(items[k++] = mlc_mutate_stmt(&rw->m, seq->seq.items[i]))) return NULL;
  }
  return mlc_s_seq(ctx, items, k);
}

static MlcStmt *rewrite_scope(Rewrite *rw, MlcStmt *st) {
  MlcCtx *ctx = rw->m.ctx;
  const MlcBlock *b = st->realize.block;
  MlcBlock *nb = mlc_arena_dup(&ctx->arena, b, sizeof *nb);
  if (!(nb->body = mlc_mutate_stmt(&rw->m, b->body))) return NULL;
  if (!rw->place.seq) {
    MlcStmt *pair[2] = {rw->stage, nb->body};
    if (rw->place.pos != 0) pair[0] = nb->body, pair[1] = rw->stage;
    if (!(nb->body = mlc_s_seq(ctx, pair, 2))) return NULL;
  }
  nb->allocs = mlc_arena_array(&ctx->arena, (size_t)b->n_allocs + 1, sizeof *nb->allocs);
  if (b->n_allocs) memcpy(nb->allocs, b->allocs, (size_t)b->n_allocs * sizeof *nb->allocs);
  nb->allocs[nb->n_allocs++] = rw->cache;
  return mlc_s_realize(ctx, st->realize.values, st->realize.n, st->realize.pred, nb);
}

static MlcStmt *rewrite_stmt(MlcMutator *m, MlcStmt *st) {
  Rewrite *rw = (Rewrite *)m;
  if (st == rw->scope) return rewrite_scope(rw, st);
  if (st == rw->place.seq) return insert_stage(rw, st);
  if (st->kind == MLC_STMT_BLOCK_REALIZE && index_in(rw->redirect, st) >= 0) {
    m->buffer_map = rw->to_cache;
    MlcStmt *r = mlc_mutate_stmt_children(m, st);
    m->buffer_map = (MlcMap){0};
    return r;
  }
  return mlc_mutate_stmt_children(m, st);
}

/* Build the stage, rewrite the scope around it and commit; the new block
 * gets a handle in outs[0]. */
static bool finish(MlcSchedule *s, const SchSite *site, MlcBuffer *old, MlcBuffer *cache, MlcBuffer *src,
                   MlcBuffer *dst, const StmtList *redirect, Place place, const MlcRange *region,
                   const MlcRange *keep, const SchPath *anchor_path, const char *stage_name, MlcSchVal *outs,
                   int *n_outs) {
  MlcCtx *ctx = s->ctx;
  const MlcStmt *scope = site->path.nodes[site->scope];
  MlcAnalyzer az;
  mlc_arith_init(&az, ctx);
  bind_path_loops(&az, anchor_path);
  MlcStmt *stage = make_stage(s, &az, stage_name, src, dst, region, keep);
  mlc_arith_free(&az);
  if (!stage) return false;
  Rewrite rw = {.m = {.ctx = ctx, .stmt = rewrite_stmt}, .scope = scope, .redirect = redirect,
                .cache = cache, .place = place, .stage = stage};
  mlc_map_put(&rw.to_cache, old, cache);
  MlcStmt *new_scope = mlc_mutate_stmt(&rw.m, (MlcStmt *)scope);
  mlc_map_free(&rw.to_cache);
  MlcStmt *body = new_scope ? sch_replace(s, scope, new_scope) : NULL;
  if (!body || !sch_commit(s, body)) return false;
  outs[0] = (MlcSchVal){.kind = MLC_SV_BLOCK, .rv = sch_block_rv(s, stage_name)};
  *n_outs = 1;
  return true;
}

/* The path from the function body to the stage's place (for the loops
 * around it): the writer's path cut at the anchor, or the scope's. */
static SchPath path_to(const SchPath *full, const MlcStmt *anchor) {
  int at = full->n - 1;
  while (at > 0 && full->nodes[at] != anchor) at--;
  return (SchPath){(const MlcStmt **)full->nodes, at + 1};
}

/* ======================================================================== */
/* cache_read                                                               */
/* ======================================================================== */

/* The deepest statement on both paths: where a reader and the stage's
 * place meet. */
static const MlcStmt *meeting_point(const SchPath *a, const SchPath *b) {
  const MlcStmt *at = a->nodes[0];
  for (int i = 0; i < a->n && i < b->n && a->nodes[i] == b->nodes[i]; i++) at = a->nodes[i];
  return at;
}

/* Every redirected reader must only read what the stage copied before it
 * runs: its read region and the writer's write region, both relaxed below
 * the statement where the reader and the stage's place meet, the first
 * inside the second. */
static bool check_cover(MlcSchedule *s, const StmtList *readers, const MlcBuffer *buf, const SchPath *writer_path,
                        const MlcStmt *anchor) {
  MlcCtx *ctx = s->ctx;
  const MlcStmt *writer = writer_path->nodes[writer_path->n - 1];
  const MlcBufferRegion *wr = sch_region_of(writer->realize.block->writes, writer->realize.block->n_writes, buf);
  SchPath to_anchor = path_to(writer_path, anchor);
  for (size_t i = 0; i < readers->len; i++) {
    const MlcStmt *rd = readers->data[i];
    SchPath path = {0};
    if (!sch_find_block(s, rd->realize.block->name, &path)) return false;
    const MlcStmt *meet = meeting_point(&path, &to_anchor);
    const MlcBufferRegion *r = sch_region_of(rd->realize.block->reads, rd->realize.block->n_reads, buf);
    MlcRange got[MAX_DIMS], have[MAX_DIMS];
    relaxed_region(ctx, &path, meet, r, true, got);
    relaxed_region(ctx, writer_path, meet, wr, true, have);
    MlcAnalyzer az;
    mlc_arith_init(&az, ctx);
    SchPath outer = path_to(&path, meet);
    bind_path_loops(&az, &outer);
    bool ok = true;
    for (int d = 0; d < buf->ndim && ok; d++) {
      MlcDType t = got[d].min->dtype;
      MlcExpr *got_end = mlc_e_bin(ctx, MLC_BIN_ADD, got[d].min, as_dtype(ctx, got[d].extent, t));
      MlcExpr *have_end = mlc_e_bin(ctx, MLC_BIN_ADD, as_dtype(ctx, have[d].min, t),
                                    as_dtype(ctx, have[d].extent, t));
      ok = proves_ge(&az, got[d].min, have[d].min) && proves_ge(&az, have_end, got_end);
    }
    mlc_arith_free(&az);
    sch_path_free(&path);
    if (!ok)
      return sch_error(s, "block '%s' reads a part of buffer '%s' that block '%s' does not write before "
                       "it, so a cache of what is written would not cover it", rd->realize.block->name,
                       buf->name, writer->realize.block->name);
  }
  return true;
}

/* The readers to redirect: the listed consumers or every reader, in both
 * cases only blocks after the writer (all of them when there is none). */
static bool pick_readers(MlcSchedule *s, const SchSite *site, const Scope *sc, const MlcBuffer *buf,
                         const MlcStmt *writer, const MlcSchVal *consumers, StmtList *out) {
  int w = writer ? index_in(&sc->blocks, writer) : -1;
  if (!consumer_list(s, consumers, sc, out)) return false;
  if (out->len == 0) {
    for (size_t i = 0; i < sc->blocks.len; i++)
      if ((int)i > w && block_reads(sc->blocks.data[i], buf)) mlc_vec_push(out, sc->blocks.data[i]);
    if (writer && index_in(out, site->realize) < 0)
      return sch_error(s, "block '%s' reads buffer '%s' before its writer '%s' runs, so it cannot read a "
                       "cache of it", site->block->name, buf->name, writer->realize.block->name);
    return true;
  }
  for (size_t i = 0; i < out->len; i++) {
    const MlcStmt *c = out->data[i];
    if (!block_reads(c, buf))
      return sch_error(s, "consumer block '%s' does not read buffer '%s'", c->realize.block->name, buf->name);
    if (index_in(&sc->blocks, c) <= w)
      return sch_error(s, "consumer block '%s' runs before the writer '%s' of buffer '%s'",
                       c->realize.block->name, writer->realize.block->name, buf->name);
  }
  return true;
}

bool sch_prim_cache_read(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  MlcCtx *ctx = s->ctx;
  SchSite site;
  const char *scope_name;
  if (!sch_site_arg(s, &args[0], "block", &site)) return false;
  MlcBuffer *buf = nth_access(s, site.block, false, &args[1], "read_buffer_index");
  Scope sc = {0};
  StmtList readers = {0};
  const MlcStmt *writer = NULL;
  bool ok = buf && arg_storage_scope(s, &args[2], &scope_name);
  if (ok) scan_scope(site.path.nodes[site.scope]->realize.block->body, buf, &sc);
  ok = ok && only_writer(s, &sc, buf, &writer) && pick_readers(s, &site, &sc, buf, writer, &args[3], &readers);
  MlcRange region[MAX_DIMS];
  Place place = {NULL, 0};
  SchPath writer_path = {0}, anchor_path = path_to(&site.path, site.path.nodes[site.scope]);
  if (ok && buf->ndim > MAX_DIMS) ok = sch_error(s, "buffer '%s' has more than %d dimensions", buf->name, MAX_DIMS);
  if (ok && writer) {
    ok = place_after_writer(s, &site, writer, &readers, &place) &&
         sch_find_block(s, writer->realize.block->name, &writer_path);
    if (ok) {
      const MlcBlock *wb = writer->realize.block;
      relaxed_region(ctx, &writer_path, place.seq, sch_region_of(wb->writes, wb->n_writes, buf), true, region);
      anchor_path = path_to(&writer_path, place.seq);
      ok = check_cover(s, &readers, buf, &writer_path, place.seq);
    }
  } else if (ok) {
    /* nobody in the scope writes it: copy what the scope reads, first */
    const MlcBlock *scope_block = site.path.nodes[site.scope]->realize.block;
    const MlcBufferRegion *r = sch_region_of(scope_block->reads, scope_block->n_reads, buf);
    for (int d = 0; d < buf->ndim; d++)
      region[d] = r ? r->ranges[d] : (MlcRange){int_const(ctx, buf->shape[d]->dtype, 0), buf->shape[d]};
  }
  if (ok) {
    const char *base = mlc_internf(ctx, "%s_%s", buf->name, scope_name);
    MlcBuffer *cache = buffer_in_scope(s, buf, sch_fresh_buffer_name(s, base), scope_name);
    ok = finish(s, &site, buf, cache, buf, cache, &readers, place, region, NULL, &anchor_path,
                sch_fresh_block_name(s, base), outs, n_outs);
  }
  sch_path_free(&writer_path);
  sch_path_free(&site.path);
  mlc_vec_free(&sc.blocks);
  mlc_vec_free(&readers);
  return ok;
}

/* ======================================================================== */
/* cache_write                                                              */
/* ======================================================================== */

/* r cut to keep where both are constant ranges. */
static void intersect_const(MlcCtx *ctx, MlcRange *r, MlcRange keep) {
  int64_t lo, ext, klo, kext;
  if (!mlc_e_is_const_int(r->min, &lo) || !mlc_e_is_const_int(r->extent, &ext) ||
      !mlc_e_is_const_int(keep.min, &klo) || !mlc_e_is_const_int(keep.extent, &kext))
    return;
  int64_t hi = lo + ext - 1, khi = klo + kext - 1;
  if (lo < klo) lo = klo;
  if (hi > khi) hi = khi;
  if (hi < lo) hi = lo;
  r->min = int_const(ctx, r->min->dtype, lo);
  r->extent = int_const(ctx, r->extent->dtype, hi - lo + 1);
}

/* The index of dimension d of the write region, when it is a point at a
 * spatial iter var not used by an earlier dimension, or a tile of it
 * ([v * c, +c], as a blockized block writes): that iter var's index, with
 * the tile's size in *tile (1 for a point). */
static int point_iter(const MlcBlock *b, const MlcBufferRegion *w, int d, const bool *taken, int64_t *tile) {
  int64_t ext, c = 1;
  const MlcExpr *v = w->ranges[d].min;
  if (!mlc_e_is_const_int(w->ranges[d].extent, &ext) || ext < 1) return -1;
  if (ext > 1) {
    if (v->kind != MLC_EXPR_BINARY || v->bin.op != MLC_BIN_MUL) return -1;
    bool left = mlc_e_is_const_int(v->bin.b, &c);
    if (!left && !mlc_e_is_const_int(v->bin.a, &c)) return -1;
    v = left ? v->bin.a : v->bin.b;
  }
  if (c != ext) return -1;
  *tile = ext;
  for (int k = 0; k < b->n_iters; k++)
    if (b->iters[k].var == v && b->iters[k].kind == MLC_ITER_SPATIAL && !taken[k]) return k;
  return -1;
}

/* The copy back writes its whole region, so it must not reach an element
 * the writer leaves alone (whose old value it would overwrite with
 * whatever the cache holds).  Accepted when the predicate only keeps
 * bindings inside their iter domains, each dimension is written at its own
 * spatial iter var, and the loops below the stage that feed the spatial
 * iters run exactly as many iterations as the region (unclamped) holds
 * elements: split and fuse make bindings that send distinct iterations to
 * distinct values, so then every element is written once.  keep[d] gets
 * the iter domain of dimension d, which the copy must also stay in. */
static bool check_dense_write(MlcSchedule *s, const SchSite *site, const MlcBuffer *buf, const MlcStmt *anchor,
                              MlcRange *keep) {
  MlcCtx *ctx = s->ctx;
  const MlcBlock *b = site->block;
  const MlcStmt *r = site->realize;
  const MlcBufferRegion *w = sch_region_of(b->writes, b->n_writes, buf);
  const char *why = NULL;
  bool taken[MAX_LOOPS] = {0};
  if (b->n_iters > MAX_LOOPS) why = "has too many iter vars";
  else if (!sch_pred_in_domain(ctx, r)) why = "has a predicate that skips instances inside its iter domains";
  int64_t tiles = 1; /* the elements each instance writes */
  for (int d = 0; d < buf->ndim && !why; d++) {
    int64_t tile = 1;
    int k = point_iter(b, w, d, taken, &tile);
    if (k < 0) {
      why = "does not write each dimension at its own spatial iter var";
    } else {
      taken[k] = true, keep[d] = b->iters[k].dom, tiles *= tile;
      if (tile > 1) {
        MlcExpr *t = int_const(ctx, keep[d].min->dtype, tile);
        keep[d] = (MlcRange){mlc_e_bin(ctx, MLC_BIN_MUL, keep[d].min, t),
                             mlc_e_bin(ctx, MLC_BIN_MUL, keep[d].extent, int_const(ctx, keep[d].extent->dtype, tile))};
      }
    }
  }
  const MlcStmt *loops[MAX_LOOPS];
  int n = loops_below(&site->path, anchor, loops, MAX_LOOPS);
  MlcExpr *count = int_const(ctx, MLC_I64, tiles);
  for (int i = 0; i < n && !why; i++) {
    bool spatial = false, reduce = false;
    for (int k = 0; k < b->n_iters; k++)
      if (sch_uses_var(r->realize.values[k], loops[i]->loop.var))
        *(b->iters[k].kind == MLC_ITER_SPATIAL ? &spatial : &reduce) = true;
    if (spatial && reduce) why = "has a loop feeding both spatial and reduce iter vars";
    else if (spatial) count = mlc_e_bin(ctx, MLC_BIN_MUL, count, as_dtype(ctx, loops[i]->loop.extent, MLC_I64));
  }
  if (!why) {
    MlcRange hull[MAX_DIMS];
    relaxed_region(ctx, &site->path, anchor, w, false, hull);
    MlcExpr *volume = int_const(ctx, MLC_I64, 1);
    for (int d = 0; d < buf->ndim; d++)
      volume = mlc_e_bin(ctx, MLC_BIN_MUL, volume, as_dtype(ctx, hull[d].extent, MLC_I64));
    MlcAnalyzer az;
    mlc_arith_init(&az, ctx);
    int64_t diff;
    MlcExpr *e = mlc_arith_simplify(&az, mlc_e_bin(ctx, MLC_BIN_SUB, count, volume));
    mlc_arith_free(&az);
    if (!e || !mlc_e_is_const_int(e, &diff) || diff != 0)
      why = "does not write every element of the region it writes below the cache stage";
  }
  if (why)
    return sch_error(s, "block '%s' %s, so copying its region of buffer '%s' back could overwrite elements it "
                     "does not write", b->name, why, buf->name);
  return true;
}

bool sch_prim_cache_write(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  MlcCtx *ctx = s->ctx;
  SchSite site;
  const char *scope_name;
  if (!sch_site_arg(s, &args[0], "block", &site)) return false;
  MlcBuffer *buf = nth_access(s, site.block, true, &args[1], "write_buffer_index");
  Scope sc = {0};
  StmtList listed = {0}, related = {0}, redirect = {0};
  const MlcStmt *writer = NULL;
  bool ok = buf && arg_storage_scope(s, &args[2], &scope_name);
  if (ok) scan_scope(site.path.nodes[site.scope]->realize.block->body, buf, &sc);
  ok = ok && only_writer(s, &sc, buf, &writer) && consumer_list(s, &args[3], &sc, &listed);
  if (ok && buf->ndim > MAX_DIMS) ok = sch_error(s, "buffer '%s' has more than %d dimensions", buf->name, MAX_DIMS);
  /* a block updating the buffer in place would start from an empty cache */
  if (ok && !site.block->init && stmt_loads(site.block->body, buf))
    ok = sch_error(s, "block '%s' reads buffer '%s' before writing it (an in-place update), so a write "
                   "cache would start without its old values", site.block->name, buf->name);
  int w = ok ? index_in(&sc.blocks, site.realize) : -1;
  for (size_t i = 0; ok && i < listed.len; i++) {
    const MlcStmt *c = listed.data[i];
    if (!block_reads(c, buf))
      ok = sch_error(s, "consumer block '%s' does not read buffer '%s'", c->realize.block->name, buf->name);
    else if (index_in(&sc.blocks, c) <= w)
      ok = sch_error(s, "consumer block '%s' runs before block '%s' writes buffer '%s'",
                     c->realize.block->name, site.block->name, buf->name);
  }
  for (size_t i = (size_t)(w + 1); ok && i < sc.blocks.len; i++)
    if (block_reads(sc.blocks.data[i], buf) && index_in(&listed, sc.blocks.data[i]) < 0)
      mlc_vec_push(&related, sc.blocks.data[i]);
  Place place = {NULL, -1};
  MlcRange region[MAX_DIMS], keep[MAX_DIMS];
  SchPath anchor_path = {0};
  if (ok) ok = place_after_writer(s, &site, site.realize, &related, &place);
  const MlcStmt *anchor = place.seq ? place.seq : site.path.nodes[site.scope];
  if (ok) ok = check_dense_write(s, &site, buf, anchor, keep);
  if (ok) {
    relaxed_region(ctx, &site.path, anchor, sch_region_of(site.block->writes, site.block->n_writes, buf), true,
                   region);
    for (int d = 0; d < buf->ndim; d++) intersect_const(ctx, &region[d], keep[d]);
    anchor_path = path_to(&site.path, anchor);
    mlc_vec_push(&redirect, site.realize);
    for (size_t i = 0; i < listed.len; i++) mlc_vec_push(&redirect, listed.data[i]);
    const char *base = mlc_internf(ctx, "%s_%s", buf->name, scope_name);
    MlcBuffer *cache = buffer_in_scope(s, buf, sch_fresh_buffer_name(s, base), scope_name);
    ok = finish(s, &site, buf, cache, cache, buf, &redirect, place, region, keep, &anchor_path,
                sch_fresh_block_name(s, base), outs, n_outs);
  }
  sch_path_free(&site.path);
  mlc_vec_free(&sc.blocks);
  mlc_vec_free(&listed);
  mlc_vec_free(&related);
  mlc_vec_free(&redirect);
  return ok;
}

/* ======================================================================== */
/* set_scope                                                                */
/* ======================================================================== */

bool sch_prim_set_scope(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  SchSite site;
  const char *scope_name;
  *n_outs = 0;
  if (!sch_site_arg(s, &args[0], "block", &site)) return false;
  sch_path_free(&site.path);
  MlcBuffer *buf = nth_access(s, site.block, true, &args[1], "buffer_index");
  if (!buf || !arg_storage_scope(s, &args[2], &scope_name)) return false;
  if (buf->scope == scope_name) return true;
  if (!is_allocated(s, buf))
    return sch_error(s, "buffer '%s' written by block '%s' is a parameter of function '%s', not a buffer "
                     "a block allocates", buf->name, site.block->name, sch_func(s)->name);
  MlcBuffer *moved = buffer_in_scope(s, buf, buf->name, scope_name);
  moved->strides = buf->strides;
  moved->elem_offset = buf->elem_offset;
  moved->align = buf->align;
  moved->offset_factor = buf->offset_factor;
  MlcMutator m = {.ctx = s->ctx};
  mlc_map_put(&m.buffer_map, buf, moved);
  MlcStmt *body = mlc_mutate_stmt(&m, sch_func(s)->body);
  mlc_map_free(&m.buffer_map);
  return body && sch_commit(s, body);
}

/* ======================================================================== */
/* storage_align                                                            */
/* ======================================================================== */

#define DIM_ALIGN_KEY "buffer_dim_align"

/* an annotation entry [buffer_index, axis, factor, offset] */
static bool is_align_entry(const MlcAttrValue *v) {
  if (v->kind != MLC_ATTR_LIST || v->list.n != 4) return false;
  for (int i = 0; i < 4; i++)
    if (v->list.items[i].kind != MLC_ATTR_INT) return false;
  return true;
}

static MlcAttrValue int_attr(int64_t v) { return (MlcAttrValue){.kind = MLC_ATTR_INT, .i = v}; }

/* The annotation with the entry for (index, axis) set: replaced when there
 * is one, appended otherwise. */
static bool align_value(MlcSchedule *s, const MlcBlock *b, const MlcAttrValue *old, const int64_t e[4],
                        MlcAttrValue *out) {
  MlcArena *A = &s->ctx->arena;
  int n = old ? old->list.n : 0;
  if (old && old->kind != MLC_ATTR_LIST)
    return sch_error(s, "block '%s': annotation \"%s\" is not a list", b->name, DIM_ALIGN_KEY);
  MlcAttrValue *items = mlc_arena_array(A, (size_t)n + 1, sizeof *items);
  int at = n;
  for (int i = 0; i < n; i++) {
    items[i] = old->list.items[i];
    if (!is_align_entry(&items[i]))
      return sch_error(s, "block '%s': annotation \"%s\" holds an entry that is not [buffer_index, axis, "
                       "factor, offset]", b->name, DIM_ALIGN_KEY);
    if (items[i].list.items[0].i == e[0] && items[i].list.items[1].i == e[1]) at = i;
  }
  MlcAttrValue *entry = mlc_arena_array(A, 4, sizeof *entry);
  for (int i = 0; i < 4; i++) entry[i] = int_attr(e[i]);
  items[at] = (MlcAttrValue){.kind = MLC_ATTR_LIST, .list = {entry, 4}};
  *out = (MlcAttrValue){.kind = MLC_ATTR_LIST, .list = {items, at == n ? n + 1 : n}};
  return true;
}

bool sch_prim_storage_align(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  MlcCtx *ctx = s->ctx;
  SchSite site;
  int64_t e[4]; /* buffer_index, axis, factor, offset */
  *n_outs = 0;
  if (!sch_site_arg(s, &args[0], "block", &site)) return false;
  const MlcStmt *realize = site.realize;
  sch_path_free(&site.path);
  const MlcBlock *b = site.block;
  MlcBuffer *buf = nth_access(s, b, true, &args[1], "buffer_index");
  if (!buf || !sch_arg_int(s, &args[1], "buffer_index", &e[0]) || !sch_arg_int(s, &args[2], "axis", &e[1]) ||
      !sch_arg_int(s, &args[3], "factor", &e[2]) || !sch_arg_int(s, &args[4], "offset", &e[3]))
    return false;
  if (e[2] <= 0) return sch_error(s, "block '%s': factor %lld is not positive", b->name, (long long)e[2]);
  if (e[1] < -buf->ndim || e[1] >= buf->ndim)
    return sch_error(s, "block '%s': axis %lld is out of range for buffer '%s' of %d dimensions", b->name,
                     (long long)e[1], buf->name, buf->ndim);
  if (e[1] < 0) e[1] += buf->ndim;
  if (!is_allocated(s, buf))
    return sch_error(s, "buffer '%s' written by block '%s' is a parameter of function '%s', not a buffer "
                     "a block allocates", buf->name, b->name, sch_func(s)->name);
  const char *key = mlc_intern(ctx, DIM_ALIGN_KEY);
  MlcAttrValue val;
  if (!align_value(s, b, mlc_attrs_get(b->annotations, key), e, &val)) return false;
  MlcBlock *nb = mlc_arena_dup(&ctx->arena, b, sizeof *nb);
  nb->annotations = mlc_attrs_with(ctx, b->annotations, key, &val);
  MlcStmt *r = mlc_s_realize(ctx, realize->realize.values, realize->realize.n, realize->realize.pred, nb);
  MlcStmt *body = r ? sch_replace(s, realize, r) : NULL;
  return body && sch_commit(s, body);
}
