/* pad.c - lowering stage 3: an input read along a power-of-two stride many
 * times over is read from a copy whose rows are one cache line longer.
 *
 * A loop that walks a row-major buffer down a column (B[k, j] over k, with
 * rows of 1024 float32: one element every 4 KiB) touches one cache line per
 * iteration, and when the row size is a multiple of a large power of two
 * every one of those lines has the same set index: the walk keeps a handful
 * of a cache's sets busy and evicts itself long before the lines are read
 * again, while the rest of the cache stands idle.  A schedule that packs the
 * buffer (cache_read) avoids it; a program that does not -- unscheduled, or
 * a tuner's trace that tiles without packing -- re-reads such a buffer from
 * further out every time.  Padding each row by one cache line (the classic
 * array-padding remedy) spreads consecutive rows over consecutive sets.
 *
 * The layout of a parameter is the caller's, so the padded buffer is a copy
 * made at the function's entry (in parallel when the function has a parallel
 * loop, since it then runs on the pool anyway) and every read of the
 * parameter reads the copy.  This runs after compact, while buffers are
 * still N-d and indices are expressions of loop vars.  A parameter buffer is
 * padded when all of these hold:
 *   - the function is for the CPU (no thread-bound loops), calls no extern
 *     code (which could see the parameter's address), and says its buffers
 *     do not alias (`tir.noalias`), since the copy is taken at the entry;
 *   - the buffer has a constant shape of rank >= 2, compact strides, no
 *     element offset, is at most MAX_PAD_BYTES, and nothing stores to it;
 *   - some load of it walks a conflicting stride: the loops around the load
 *     that move its address, from the innermost outward up to the first
 *     parallel loop (whose iterations run on other threads) or the first
 *     that moves it by a small step, all move it by non-zero multiples of
 *     CONFLICT_BYTES bytes and run at least MIN_WALK iterations together,
 *     more than a cache has ways (vectorized loops are part of one access;
 *     loops that do not move the address are reuse, passed over);
 *   - the loads of it read at least MIN_REUSE times as many elements as it
 *     has (counted over the constant loop extents around each load), so the
 *     copy (one read and one write of each element) is paid back.
 * Then every stride of a dimension whose rows span a multiple of
 * CONFLICT_BYTES grows by one cache line.  What the stage cannot analyse
 * (an index that is not affine in a loop var, loops of symbolic extent)
 * counts as no conflict, so the function stays as it was. */
#include "mlcc/lower.h"

#include <string.h>

enum {
  CONFLICT_BYTES = 2048, /* a row size of this multiple maps a column to few cache sets */
  PAD_BYTES = 64,        /* one cache line */
  MIN_WALK = 32,         /* lines walked in one set: more than any cache's ways */
  MIN_REUSE = 8,         /* element reads per element, so that the copy pays */
};
#define MAX_PAD_BYTES ((int64_t)256 << 20)

typedef struct Loop { const MlcStmt *s; int64_t extent; } Loop; /* extent -1: not constant */

enum { MAX_DEPTH = 64 };

/* What is known of one candidate buffer. */
typedef struct Cand {
  const MlcBuffer *buf;
  int64_t numel, elem_bytes;
  bool stored, conflict;
  int64_t reads; /* saturating */
} Cand;

typedef struct Scan {
  Cand *c;
  int n;
  Loop loops[MAX_DEPTH];
  int depth;
  bool too_deep, has_parallel, unsafe; /* unsafe: thread loops or extern calls */
} Scan;

static int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

static Cand *cand_of(Scan *sc, const MlcBuffer *b) {
  for (int i = 0; i < sc->n; i++)
    if (sc->c[i].buf == b) return &sc->c[i];
  return NULL;
}

/* element stride of dimension d of a compact buffer of constant shape */
static int64_t dense_stride(const MlcBuffer *b, int d) {
  int64_t s = 1, k;
  for (int i = d + 1; i < b->ndim; i++)
    if (mlc_e_is_const_int(b->shape[i], &k)) s = sat_mul(s, k);
  return s;
}

/* One load of a candidate under the loops on the stack.  Its walk: from the
 * innermost loop outward, the loops that move its address by a multiple of
 * CONFLICT_BYTES, passing over vectorized loops (part of one access), loops
 * of one iteration and loops that do not move it (reuse), up to the first
 * loop that moves it by another step (then the lines spread over the sets)
 * or runs in parallel. */
static void scan_load(Scan *sc, Cand *c, const MlcExpr *e) {
  const MlcBuffer *b = c->buf;
  int64_t reads = e->dtype.lanes, walk = 1;
  bool walking = true;
  for (int l = sc->depth - 1; l >= 0; l--) {
    const MlcStmt *s = sc->loops[l].s;
    int64_t ext = sc->loops[l].extent;
    if (ext > 0) reads = sat_mul(reads, ext);
    if (s->loop.kind == MLC_FOR_PARALLEL || s->loop.kind == MLC_FOR_THREAD || ext < 0) walking = false;
    if (!walking || ext < 2 || s->loop.kind == MLC_FOR_VECTORIZED) continue;
    int64_t step = 0, coef;
    for (int d = 0; walking && d < e->load.n; d++) {
      walking = mlc_lower_coef_of(e->load.idx[d], s->loop.var, &coef);
      step = sat_mul(coef, dense_stride(b, d)) + step;
    }
    int64_t bytes = sat_mul(step < 0 ? -step : step, c->elem_bytes);
    if (!walking || bytes == 0) continue;
    if (bytes != INT64_MAX && bytes % CONFLICT_BYTES == 0) walk = sat_mul(walk, ext);
    else walking = false;
  }
  if (walk >= MIN_WALK) c->conflict = true;
  c->reads = c->reads > INT64_MAX - reads ? INT64_MAX : c->reads + reads;
}

static bool scan_expr(MlcVisitor *v, const MlcExpr *e) {
  Scan *sc = v->user;
  if (e->kind == MLC_EXPR_CALL && (e->call.op == MLC_INTRIN_CALL_EXTERN || e->call.op == MLC_INTRIN_CALL_PACKED ||
                                   e->call.op == MLC_INTRIN_ADDRESS_OF))
    sc->unsafe = true;
  Cand *c = e->kind == MLC_EXPR_LOAD ? cand_of(sc, e->load.buf) : NULL;
  if (c) scan_load(sc, c, e);
  return true;
}

static void scan_stmt(Scan *sc, const MlcStmt *s);

static void scan_exprs(Scan *sc, MlcExpr *const *es, int n) {
  MlcVisitor v = {.user = sc, .expr = scan_expr};
  for (int i = 0; i < n; i++)
    if (es[i]) mlc_visit_expr(&v, es[i]);
}

static void scan_stmt(Scan *sc, const MlcStmt *s) {
  if (!s) return;
  switch (s->kind) {
  case MLC_STMT_STORE: {
    Cand *c = cand_of(sc, s->store.buf);
    if (c) c->stored = true;
    scan_exprs(sc, s->store.idx, s->store.n);
    scan_exprs(sc, &s->store.value, 1);
    return;
  }
  case MLC_STMT_FOR: {
    scan_exprs(sc, &s->loop.min, 1);
    scan_exprs(sc, &s->loop.extent, 1);
    if (s->loop.kind == MLC_FOR_THREAD) sc->unsafe = true;
    if (s->loop.kind == MLC_FOR_PARALLEL) sc->has_parallel = true;
    if (sc->depth == MAX_DEPTH) {
      sc->too_deep = true;
      return;
    }
    int64_t ext;
    sc->loops[sc->depth++] = (Loop){s, mlc_e_is_const_int(s->loop.extent, &ext) && ext > 0 ? ext : -1};
    scan_stmt(sc, s->loop.body);
    sc->depth--;
    return;
  }
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++) scan_stmt(sc, s->seq.items[i]);
    return;
  case MLC_STMT_IF:
    scan_exprs(sc, &s->if_.cond, 1);
    scan_stmt(sc, s->if_.then_s);
    scan_stmt(sc, s->if_.else_s);
    return;
  case MLC_STMT_LET:
    scan_exprs(sc, &s->let.value, 1);
    scan_stmt(sc, s->let.body);
    return;
  case MLC_STMT_ALLOCATE: scan_stmt(sc, s->alloc.body); return;
  case MLC_STMT_EVALUATE: scan_exprs(sc, &s->eval, 1); return;
  case MLC_STMT_BLOCK_REALIZE: sc->unsafe = true; return; /* not lowered: leave alone */
  }
}

static bool candidate(const MlcBuffer *b, Cand *c) {
  int64_t k, numel = 1;
  if (!b || b->ndim < 2 || b->strides || b->elem_offset || b->dtype.lanes != 1) return false;
  int64_t elem = (int64_t)mlc_dtype_bytes(b->dtype);
  if (elem <= 0 || PAD_BYTES % elem != 0) return false;
  for (int d = 0; d < b->ndim; d++) {
    if (!mlc_e_is_const_int(b->shape[d], &k) || k <= 0) return false;
    numel = sat_mul(numel, k);
  }
  if (sat_mul(numel, elem) > MAX_PAD_BYTES) return false;
  *c = (Cand){.buf = b, .numel = numel, .elem_bytes = elem};
  return true;
}

/* The padded layout of c's buffer: a dimension whose rows span a multiple
 * of CONFLICT_BYTES gets one cache line more.  *changed false: no
 * dimension does, the copy would be the same. */
static MlcBuffer *padded_buffer(MlcCtx *ctx, const Cand *c, bool *changed) {
  const MlcBuffer *b = c->buf;
  MlcExpr **strides = mlc_arena_array(&ctx->arena, (size_t)b->ndim, sizeof *strides);
  int64_t s = 1, k;
  for (int d = b->ndim - 1; d >= 0; d--) {
    strides[d] = mlc_e_int(ctx, b->shape[d]->dtype, s);
    mlc_e_is_const_int(b->shape[d], &k);
    int64_t row = sat_mul(s, k);
    if (d > 0 && sat_mul(row, c->elem_bytes) % CONFLICT_BYTES == 0) {
      row += PAD_BYTES / c->elem_bytes;
      *changed = true;
    }
    s = row;
  }
  MlcBuffer *p = mlc_buffer_new(ctx, mlc_internf(ctx, "%s_padded", b->name), b->dtype, b->shape, b->ndim, strides, NULL,
                                mlc_intern(ctx, "global"));
  if (p) p->align = 64;
  return p;
}

/* for every index of b: dst[idx] = src[idx]; the outermost loop parallel
 * when asked */
static MlcStmt *copy_nest(MlcCtx *ctx, const MlcBuffer *src, MlcBuffer *dst, bool parallel) {
  int n = src->ndim;
  MlcExpr **vars = mlc_arena_array(&ctx->arena, (size_t)n, sizeof *vars);
  for (int d = 0; d < n; d++) vars[d] = mlc_e_var(ctx, mlc_internf(ctx, "%s_ax%d", dst->name, d), src->shape[d]->dtype);
  MlcExpr *load = mlc_e_load(ctx, (MlcBuffer *)src, vars, n);
  MlcStmt *s = load ? mlc_s_store(ctx, dst, vars, n, load) : NULL;
  for (int d = n - 1; s && d >= 0; d--)
    s = mlc_s_for(ctx, vars[d], mlc_e_int(ctx, vars[d]->dtype, 0), src->shape[d],
                  d == 0 && parallel ? MLC_FOR_PARALLEL : MLC_FOR_SERIAL, NULL, (MlcAttrs){0}, s);
  return s;
}

static bool noalias(MlcCtx *ctx, const MlcPrimFunc *f) {
  const MlcAttrValue *na = mlc_attrs_get(f->attrs, mlc_intern(ctx, "tir.noalias"));
  return na && ((na->kind == MLC_ATTR_BOOL && na->b) || (na->kind == MLC_ATTR_INT && na->i));
}

MlcPrimFunc *mlc_lower_pad(MlcCtx *ctx, const MlcPrimFunc *f) {
  if (!noalias(ctx, f) || f->n_params == 0) return (MlcPrimFunc *)f;
  Cand *cands = mlc_arena_array(&ctx->arena, (size_t)f->n_params, sizeof *cands);
  Scan sc = {.c = cands};
  for (int i = 0; i < f->n_params; i++) {
    bool dup = false;
    for (int j = 0; j < sc.n; j++) dup = dup || cands[j].buf == f->params[i].buf;
    if (!dup && candidate(f->params[i].buf, &cands[sc.n])) sc.n++;
  }
  if (sc.n == 0) return (MlcPrimFunc *)f;
  scan_stmt(&sc, f->body);
  if (sc.unsafe || sc.too_deep) return (MlcPrimFunc *)f;
  MlcMutator m = {.ctx = ctx};
  MlcBuffer *padded[MAX_DEPTH];
  const MlcBuffer *orig[MAX_DEPTH];
  int n_padded = 0;
  for (int i = 0; i < sc.n && n_padded < MAX_DEPTH; i++) {
    Cand *c = &cands[i];
    if (c->stored || !c->conflict || c->reads / MIN_REUSE < c->numel) continue;
    bool changed = false;
    MlcBuffer *p = padded_buffer(ctx, c, &changed);
    if (!p) return NULL;
    if (!changed) continue;
    mlc_map_put(&m.buffer_map, c->buf, p);
    orig[n_padded] = c->buf;
    padded[n_padded++] = p;
  }
  MlcStmt *body = n_padded ? mlc_mutate_stmt(&m, f->body) : f->body;
  mlc_map_free(&m.buffer_map);
  if (!body) return NULL;
  if (n_padded == 0) return (MlcPrimFunc *)f;
  /* the copies first, then the function; each padded buffer allocated around all */
  MlcStmt **items = mlc_arena_array(&ctx->arena, (size_t)n_padded + 1, sizeof *items);
  for (int i = 0; i < n_padded; i++)
    if (!(items[i] = copy_nest(ctx, orig[i], padded[i], sc.has_parallel))) return NULL;
  items[n_padded] = body;
  body = mlc_s_seq(ctx, items, n_padded + 1);
  for (int i = n_padded - 1; body && i >= 0; i--) body = mlc_s_allocate(ctx, padded[i], body);
  if (!body) return NULL;
  return mlc_prim_func_new(ctx, f->name, f->params, f->n_params, f->attrs, body);
}
