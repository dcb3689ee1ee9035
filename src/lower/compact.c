/* compact.c - lowering stage 2: intermediate buffers shrink to the region
 * their accesses touch, allocated as deep in the loop nest as possible.
 *
 * Schedule primitives (cache_read, cache_write) allocate their buffers at the
 * root block with the full shape of the buffer they copy, and leave to
 * lowering what a schedule means by computing a copy under a loop: one tile
 * per iteration.  This stage runs right after blocks -> loops, while buffers
 * are still N-d and every index is an expression of loop vars.  For each
 * MLC_STMT_ALLOCATE it
 *   - moves the allocation down to the innermost statement enclosing every
 *     access: into the one item of a sequence (or the run of items) that
 *     touches it, into the one branch of an if, through lets and other
 *     allocations, and into the body of a serial, parallel or thread loop --
 *     but into a loop only when each iteration provably touches elements no
 *     other iteration touches (some dimension's index has the loop var with
 *     a coefficient at least the per-iteration extent), so a per-iteration
 *     buffer holds everything an iteration needs and nothing flows between
 *     iterations.  Inside a parallel loop that makes the buffer per
 *     iteration, hence per thread, which the C code generator gives each
 *     thread once.  GPU thread loops relax this by memory scope: a shared
 *     buffer enters a blockIdx loop even when the blocks' tiles overlap
 *     (each block has its own shared memory), and enters threadIdx loops
 *     with their vars counted as inner (one copy for the block's threads);
 *     a local buffer enters any thread loop (each thread has its own);
 *   - shrinks each dimension to [min, min + extent) where, over the loops
 *     inside that point, every index is S + a constant range: S a linear
 *     combination of vars bound outside (the same S for every access), the
 *     range from the inner loops' constant bounds (each index simplified
 *     with those bounds first: a tile laid out by phases reads
 *     (o * 2 + i) // 2 with i in [0, 2), which is o).  The extent is a constant
 *     or the dimension keeps its shape; indices become index - min.
 * Everything it cannot prove (indices through loads or lets, loops with
 * symbolic bounds inside, strided buffers, accesses whose S differ) keeps
 * the buffer, or that dimension, as it was; so does a buffer an element
 * address of which is handed to code outside the program (T.address_of).  The scope is kept, so a
 * "local" tile stays local (and, with constant indices after unrolling, in
 * registers). */
#include "mlcc/lower.h"
#include "mlcc/arith.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_TERMS = 16 };

typedef struct Term { MlcExpr *e; int64_t coef; } Term;

/* sum of coef * term + c; ok false when the form does not fit */
typedef struct Lin {
  int n;
  Term t[MAX_TERMS];
  int64_t c;
  bool ok;
} Lin;

/* One dimension's region over the accesses seen so far: S + [lo, hi]. */
typedef struct Dim {
  bool seen, ok;
  int n;
  Term s[MAX_TERMS];
  int64_t lo, hi;
} Dim;

typedef struct Region {
  const MlcBuffer *buf;
  MlcAnalyzer az;  /* loop vars bound inside the statement, constant ranges */
  MlcMap unknown;  /* vars bound inside with no constant range */
  Dim *dims;
  bool failed;     /* something the analysis cannot look into */
} Region;

/* ---- expressions --------------------------------------------------------------- */

/* structural equality, vars by identity */
static bool same(const MlcExpr *a, const MlcExpr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || !mlc_dtype_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
  case MLC_EXPR_INT: return a->int_val == b->int_val;
  case MLC_EXPR_BINARY: return a->bin.op == b->bin.op && same(a->bin.a, b->bin.a) && same(a->bin.b, b->bin.b);
  case MLC_EXPR_NOT: case MLC_EXPR_NEG: case MLC_EXPR_CAST: return same(a->operand, b->operand);
  case MLC_EXPR_SELECT:
    return same(a->select.cond, b->select.cond) && same(a->select.t, b->select.t) && same(a->select.f, b->select.f);
  default: return false;
  }
}

static void lin_add(Lin *l, MlcExpr *e, int64_t coef) {
  for (int i = 0; i < l->n; i++)
    if (same(l->t[i].e, e)) {
      if (__builtin_add_overflow(l->t[i].coef, coef, &l->t[i].coef)) l->ok = false;
      return;
    }
  if (l->n == MAX_TERMS) l->ok = false;
  else l->t[l->n++] = (Term){e, coef};
}

static bool widening(const MlcExpr *e) {
  MlcDType to = e->dtype, from = e->operand->dtype;
  return to.code == MLC_TC_INT && to.lanes == 1 && from.lanes == 1 &&
         ((from.code == MLC_TC_INT && from.bits <= to.bits) || (from.code == MLC_TC_UINT && from.bits < to.bits));
}

/* e * coef added to l; non-linear parts become terms of their own */
static void linearize(Lin *l, MlcExpr *e, int64_t coef) {
  int64_t k, prod;
  if (!l->ok) return;
  switch (e->kind) {
  case MLC_EXPR_INT:
    if (__builtin_mul_overflow(e->int_val, coef, &prod) || __builtin_add_overflow(l->c, prod, &l->c)) l->ok = false;
    return;
  case MLC_EXPR_NEG:
    if (coef == INT64_MIN) l->ok = false;
    else linearize(l, e->operand, -coef);
    return;
  case MLC_EXPR_CAST:
    if (widening(e)) linearize(l, e->operand, coef);
    else lin_add(l, e, coef);
    return;
  case MLC_EXPR_BINARY:
    if (e->bin.op == MLC_BIN_ADD || e->bin.op == MLC_BIN_SUB) {
      linearize(l, e->bin.a, coef);
      if (e->bin.op == MLC_BIN_SUB && coef == INT64_MIN) l->ok = false;
      else linearize(l, e->bin.b, e->bin.op == MLC_BIN_ADD ? coef : -coef);
      return;
    }
    if (e->bin.op == MLC_BIN_MUL && (mlc_e_is_const_int(e->bin.b, &k) || mlc_e_is_const_int(e->bin.a, &k))) {
      MlcExpr *x = mlc_e_is_const_int(e->bin.b, &k) ? e->bin.a : e->bin.b;
      if (__builtin_mul_overflow(k, coef, &prod)) l->ok = false;
      else linearize(l, x, prod);
      return;
    }
    lin_add(l, e, coef);
    return;
  default: lin_add(l, e, coef); return;
  }
}

/* What an index term depends on. */
typedef struct Deps {
  const Region *r;
  const MlcExpr *var;  /* a var to look for, or NULL */
  bool inner, unknown, opaque, has_var;
} Deps;

static bool deps_expr(MlcVisitor *v, const MlcExpr *e) {
  Deps *d = v->user;
  switch (e->kind) {
  case MLC_EXPR_VAR:
    if (e == d->var) d->has_var = true;
    if (d->r && mlc_map_get(&d->r->az.ranges, e)) d->inner = true;
    if (d->r && mlc_map_get(&d->r->unknown, e)) d->unknown = true;
    return true;
  case MLC_EXPR_INT: case MLC_EXPR_BINARY: case MLC_EXPR_NOT: case MLC_EXPR_NEG:
  case MLC_EXPR_SELECT: case MLC_EXPR_CAST:
    return true;
  default:
    /* loads (whose values may change inside), lets, vectors, calls */
    d->opaque = true;
    return false;
  }
}

static Deps deps_of(const Region *r, const MlcExpr *e, const MlcExpr *var) {
  Deps d = {.r = r, .var = var};
  MlcVisitor v = {.user = &d, .expr = deps_expr};
  mlc_visit_expr(&v, e);
  return d;
}

static bool range_add(int64_t *lo, int64_t *hi, MlcIntSet s, int64_t coef) {
  if (s.min == MLC_INT_NEG_INF || s.max == MLC_INT_POS_INF) return false;
  int64_t a, b;
  if (__builtin_mul_overflow(s.min, coef, &a) || __builtin_mul_overflow(s.max, coef, &b)) return false;
  if (a > b) { int64_t t = a; a = b; b = t; }
  return !__builtin_add_overflow(*lo, a, lo) && !__builtin_add_overflow(*hi, b, hi);
}

/* index = S + [lo, hi] over the inner loops; false when it is not of that
 * form.  A T.Ramp (a tensor intrinsic's vector access) covers its base's
 * range widened by its lanes. */
static bool analyze_index(Region *r, MlcExpr *e, Dim *out) {
  Lin l = {.ok = true};
  int64_t st, span;
  if (e->kind == MLC_EXPR_RAMP) {
    if (!mlc_e_is_const_int(e->ramp.stride, &st) || !analyze_index(r, e->ramp.base, out) ||
        __builtin_mul_overflow(st, (int64_t)e->ramp.lanes - 1, &span))
      return false;
    return !__builtin_add_overflow(span < 0 ? out->lo : out->hi, span, span < 0 ? &out->lo : &out->hi);
  }
  if (e->dtype.lanes != 1 || !mlc_dtype_is_int(e->dtype)) return false;
  /* with the inner loops' ranges, (o * 2 + i) // 2 is o (i in [0, 2)): a
   * tile laid out by phases is indexed so */
  e = mlc_arith_simplify(&r->az, e);
  linearize(&l, e, 1);
  if (!l.ok) return false;
  *out = (Dim){.ok = true, .lo = l.c, .hi = l.c};
  for (int i = 0; i < l.n; i++) {
    if (l.t[i].coef == 0) continue;
    Deps d = deps_of(r, l.t[i].e, NULL);
    if (d.opaque || d.unknown) return false;
    if (!d.inner) {
      out->s[out->n++] = l.t[i];
      continue;
    }
    if (!range_add(&out->lo, &out->hi, mlc_arith_bound(&r->az, l.t[i].e), l.t[i].coef)) return false;
  }
  return true;
}

static bool same_terms(const Dim *a, const Dim *b) {
  if (a->n != b->n) return false;
  for (int i = 0; i < a->n; i++) {
    bool found = false;
    for (int j = 0; j < b->n && !found; j++) found = a->s[i].coef == b->s[j].coef && same(a->s[i].e, b->s[j].e);
    if (!found) return false;
  }
  return true;
}

/* ---- the region of a statement ---------------------------------------------- */

static void region_stmt(Region *r, const MlcStmt *s);

static void add_access(Region *r, MlcExpr **idx, int n) {
  if (n != r->buf->ndim) {
    r->failed = true;
    return;
  }
  for (int d = 0; d < n; d++) {
    Dim *acc = &r->dims[d], cur;
    if (!acc->ok && acc->seen) continue;
    bool ok = analyze_index(r, idx[d], &cur);
    if (!acc->seen) {
      *acc = cur;
      acc->seen = true;
      acc->ok = ok;
    } else if (!ok || !same_terms(acc, &cur)) {
      acc->ok = false;
    } else {
      if (cur.lo < acc->lo) acc->lo = cur.lo;
      if (cur.hi > acc->hi) acc->hi = cur.hi;
    }
  }
}

/* bind var as unknown for the extent of a walk; returns what to restore */
static void *mark_unknown(Region *r, const MlcExpr *var) {
  void *old = mlc_map_get(&r->unknown, var);
  mlc_map_put(&r->unknown, var, (void *)var);
  return old;
}

static bool region_expr(MlcVisitor *v, const MlcExpr *e) {
  Region *r = v->user;
  if (e->kind == MLC_EXPR_LOAD && e->load.buf == r->buf) add_access(r, e->load.idx, e->load.n);
  if (e->kind == MLC_EXPR_LET) {
    mlc_visit_expr(v, e->let.value);
    void *old = mark_unknown(r, e->let.var);
    mlc_visit_expr(v, e->let.body);
    mlc_map_put(&r->unknown, e->let.var, old);
    return false;
  }
  return true;
}

static void region_exprs(Region *r, MlcExpr *const *es, int n) {
  MlcVisitor v = {.user = r, .expr = region_expr};
  for (int i = 0; i < n; i++)
    if (es[i]) mlc_visit_expr(&v, es[i]);
}

static void region_loop(Region *r, const MlcStmt *s) {
  int64_t lo, n;
  MlcExpr *var = s->loop.var;
  region_exprs(r, (MlcExpr *[]){s->loop.min, s->loop.extent}, 2);
  void *old_range = mlc_map_get(&r->az.ranges, var), *old_unknown = mlc_map_get(&r->unknown, var);
  if (mlc_e_is_const_int(s->loop.min, &lo) && mlc_e_is_const_int(s->loop.extent, &n) && n > 0) {
    mlc_arith_bind(&r->az, var, lo, n);
    mlc_map_put(&r->unknown, var, NULL);
  } else {
    mlc_arith_unbind(&r->az, var);
    mark_unknown(r, var);
  }
  region_stmt(r, s->loop.body);
  mlc_map_put(&r->az.ranges, var, old_range);
  mlc_map_put(&r->unknown, var, old_unknown);
}

static void region_stmt(Region *r, const MlcStmt *s) {
  if (!s || r->failed) return;
  switch (s->kind) {
  case MLC_STMT_STORE:
    region_exprs(r, s->store.idx, s->store.n);
    region_exprs(r, &s->store.value, 1);
    if (s->store.buf == r->buf) add_access(r, s->store.idx, s->store.n);
    return;
  case MLC_STMT_FOR: region_loop(r, s); return;
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++) region_stmt(r, s->seq.items[i]);
    return;
  case MLC_STMT_IF:
    region_exprs(r, &s->if_.cond, 1);
    region_stmt(r, s->if_.then_s);
    region_stmt(r, s->if_.else_s);
    return;
  case MLC_STMT_LET: {
    region_exprs(r, &s->let.value, 1);
    void *old = mark_unknown(r, s->let.var);
    region_stmt(r, s->let.body);
    mlc_map_put(&r->unknown, s->let.var, old);
    return;
  }
  case MLC_STMT_ALLOCATE: region_stmt(r, s->alloc.body); return;
  case MLC_STMT_EVALUATE: region_exprs(r, &s->eval, 1); return;
  case MLC_STMT_BLOCK_REALIZE: r->failed = true; return;
  }
}

static void region_init(Region *r, MlcCtx *ctx, const MlcBuffer *buf) {
  *r = (Region){.buf = buf};
  mlc_arith_init(&r->az, ctx);
  r->dims = mlc_arena_array(&ctx->arena, (size_t)buf->ndim + 1, sizeof *r->dims);
}

static void region_free(Region *r) {
  mlc_arith_free(&r->az);
  mlc_map_free(&r->unknown);
}

/* dimension d shrinks: its region is known and smaller than the shape */
static bool dim_shrinks(const Region *r, int d, int64_t *extent) {
  const Dim *x = &r->dims[d];
  int64_t full;
  if (!x->seen || !x->ok || __builtin_sub_overflow(x->hi, x->lo, extent) || *extent == INT64_MAX) return false;
  ++*extent;
  return !(mlc_e_is_const_int(r->buf->shape[d], &full) && *extent >= full);
}

/* the buffer, compacted at that point, has a constant size */
static bool constant_size(const Region *r) {
  int64_t n;
  for (int d = 0; d < r->buf->ndim; d++)
    if (!dim_shrinks(r, d, &n) && !mlc_e_is_const_int(r->buf->shape[d], &n)) return false;
  return true;
}

/* ---- placement ------------------------------------------------------------------ */

enum { MAX_RELAXED = 8 };

typedef struct Compact {
  MlcCtx *ctx;
  const MlcBuffer *buf;
  /* threadIdx loops a shared buffer was placed inside: shared memory is one
   * per thread block, so its region spans every thread of these loops (their
   * vars count as inner, like the loops inside the allocation) */
  const MlcStmt *relaxed[MAX_RELAXED];
  int n_relaxed;
} Compact;

/* the relaxed thread loops' vars range over their extents in r */
static void relax_threads(const Compact *c, Region *r) {
  for (int i = 0; i < c->n_relaxed; i++) {
    const MlcStmt *l = c->relaxed[i];
    int64_t lo, n;
    if (mlc_e_is_const_int(l->loop.min, &lo) && mlc_e_is_const_int(l->loop.extent, &n) && n > 0)
      mlc_arith_bind(&r->az, l->loop.var, lo, n);
  }
}

static bool shared_in_thread(const Compact *c, const MlcStmt *s) {
  return c->buf->scope == mlc_intern(c->ctx, "shared") && s->loop.kind == MLC_FOR_THREAD && s->loop.thread &&
         !strncmp(s->loop.thread, "threadIdx", 9);
}

static bool touch_expr(MlcVisitor *v, const MlcExpr *e) {
  if (e->kind == MLC_EXPR_LOAD && e->load.buf == *(const MlcBuffer **)v->user) *(const MlcBuffer **)v->user = NULL;
  return true;
}

static bool touch_stmt(MlcVisitor *v, const MlcStmt *s) {
  if (s->kind == MLC_STMT_STORE && s->store.buf == *(const MlcBuffer **)v->user) *(const MlcBuffer **)v->user = NULL;
  return true;
}

static bool touches(const MlcStmt *s, const MlcBuffer *buf) {
  if (!s) return false;
  const MlcBuffer *probe = buf;
  MlcVisitor v = {.user = &probe, .expr = touch_expr, .stmt = touch_stmt};
  mlc_visit_stmt(&v, s);
  return probe == NULL;
}

static bool expr_touches(MlcExpr *e, const MlcBuffer *buf) {
  MlcStmt s = {.kind = MLC_STMT_EVALUATE, .eval = e};
  return touches(&s, buf);
}

/* ---- loops fused by a schedule --------------------------------------------------
 * After `fuse`, a tile's min is a sum of floordiv/floormod terms of one loop
 * var (`f // 16 * 64 + f % 4 * 16`), which the linear test above cannot
 * look through.  For a loop of constant extent up to MAX_ENUM, the mins are
 * computed for every iteration: iterations are disjoint when, in the
 * dimensions used, the distinct mins lie more than the region's extent
 * apart (a grid of whole tiles) and no two iterations share all of them. */
enum { MAX_ENUM = 1 << 16 };

/* the value of integer expression e with var = val; false when e holds
 * anything else (another var, a load, a division by zero) */
static bool eval_at(const MlcExpr *e, const MlcExpr *var, int64_t val, int64_t *out) {
  int64_t a, b;
  switch (e->kind) {
  case MLC_EXPR_INT: *out = e->int_val; return true;
  case MLC_EXPR_VAR: *out = val; return e == var;
  case MLC_EXPR_CAST: return mlc_dtype_is_int(e->dtype) && eval_at(e->operand, var, val, out);
  case MLC_EXPR_NEG: return eval_at(e->operand, var, val, &a) && !__builtin_sub_overflow(0, a, out);
  case MLC_EXPR_BINARY:
    if (!eval_at(e->bin.a, var, val, &a) || !eval_at(e->bin.b, var, val, &b)) return false;
    switch (e->bin.op) {
    case MLC_BIN_ADD: return !__builtin_add_overflow(a, b, out);
    case MLC_BIN_SUB: return !__builtin_sub_overflow(a, b, out);
    case MLC_BIN_MUL: return !__builtin_mul_overflow(a, b, out);
    case MLC_BIN_FLOORDIV: case MLC_BIN_FLOORMOD:
      if (b == 0 || (a == INT64_MIN && b == -1)) return false;
      *out = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) *out -= 1;
      if (e->bin.op == MLC_BIN_FLOORMOD) *out = a - *out * b;
      return true;
    case MLC_BIN_MIN: *out = a < b ? a : b; return true;
    case MLC_BIN_MAX: *out = a > b ? a : b; return true;
    default: return false;
    }
  default: return false;
  }
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

/* mins[t] of dimension x at iteration t (the terms with var only);
 * false when a term mixes var with other vars or cannot be evaluated */
static bool dim_mins(const Dim *x, const MlcExpr *var, int64_t lo, int64_t n, int64_t *mins, bool *uses) {
  *uses = false;
  for (int64_t t = 0; t < n; t++) mins[t] = 0;
  for (int i = 0; i < x->n; i++) {
    if (!deps_of(NULL, x->s[i].e, var).has_var) continue;
    *uses = true;
    for (int64_t t = 0; t < n; t++) {
      int64_t v, p;
      if (!eval_at(x->s[i].e, var, lo + t, &v) || __builtin_mul_overflow(v, x->s[i].coef, &p) ||
          __builtin_add_overflow(mins[t], p, &mins[t]))
        return false;
    }
  }
  return true;
}

/* the distinct values of mins lie more than extent apart */
static bool gridded(const int64_t *mins, int64_t n, int64_t extent, int64_t *scratch) {
  memcpy(scratch, mins, (size_t)n * sizeof *scratch);
  qsort(scratch, (size_t)n, sizeof *scratch, cmp_i64);
  for (int64_t t = 1; t < n; t++)
    if (scratch[t] != scratch[t - 1] && scratch[t] - scratch[t - 1] <= extent) return false;
  return true;
}

static bool fused_iterations_disjoint(Compact *c, const MlcStmt *s, const Region *r) {
  int64_t lo, n;
  if (!mlc_e_is_const_int(s->loop.min, &lo) || !mlc_e_is_const_int(s->loop.extent, &n) || n < 2 || n > MAX_ENUM)
    return false;
  int nd = c->buf->ndim;
  MlcArena scratch_arena = {0};
  int64_t *mins = mlc_arena_array(&scratch_arena, (size_t)(nd * n + n), sizeof *mins);
  int64_t *tmp = mins + nd * n;
  bool any = false;
  for (int d = 0; d < nd; d++) {
    const Dim *x = &r->dims[d];
    int64_t *m = mins + d * n, extent;
    bool uses = false;
    if (x->seen && x->ok && !__builtin_sub_overflow(x->hi, x->lo, &extent) &&
        dim_mins(x, s->loop.var, lo, n, m, &uses) && uses && gridded(m, n, extent, tmp)) {
      any = true;
      continue;
    }
    for (int64_t t = 0; t < n; t++) m[t] = 0; /* not used to tell iterations apart */
  }
  /* no two iterations with the same mins in every dimension used: equal
   * tuples hash alike, so all hashes distinct proves it (a collision of
   * different tuples only makes the answer a cautious no) */
  bool ok = any;
  for (int64_t t = 0; ok && t < n; t++) {
    uint64_t h = 1469598103934665603u;
    for (int d = 0; d < nd; d++) h = (h ^ (uint64_t)mins[d * n + t]) * 1099511628211u;
    tmp[t] = (int64_t)(h >> 1);
  }
  if (ok) qsort(tmp, (size_t)n, sizeof *tmp, cmp_i64);
  for (int64_t i = 1; ok && i < n; i++) ok = tmp[i] != tmp[i - 1];
  mlc_arena_free(&scratch_arena);
  return ok;
}

/* Each iteration of loop s touches its own elements: in some dimension the
 * loop var enters the region's min linearly with a coefficient at least the
 * region's extent. */
static bool iterations_disjoint(Compact *c, const MlcStmt *s, const Region *r) {
  int64_t n;
  if (mlc_e_is_const_int(s->loop.extent, &n) && n == 1) return true;
  for (int d = 0; d < c->buf->ndim; d++) {
    const Dim *x = &r->dims[d];
    int64_t extent;
    if (!x->seen || !x->ok || __builtin_sub_overflow(x->hi, x->lo, &extent)) continue;
    int64_t coef = 0;
    bool elsewhere = false;
    for (int i = 0; i < x->n; i++) {
      if (x->s[i].e == s->loop.var) coef = x->s[i].coef;
      else if (deps_of(NULL, x->s[i].e, s->loop.var).has_var) elsewhere = true;
    }
    if (!elsewhere && coef != 0 && coef != INT64_MIN && (coef < 0 ? -coef : coef) > extent) return true;
  }
  return fused_iterations_disjoint(c, s, r);
}

static bool may_enter(Compact *c, const MlcStmt *s) {
  switch (s->loop.kind) {
  case MLC_FOR_SERIAL: case MLC_FOR_PARALLEL: break;
  case MLC_FOR_THREAD:
    /* shared memory is one per thread block, never per thread: inside a
     * threadIdx loop its region is relaxed over the loop (place) */
    if (shared_in_thread(c, s) && c->n_relaxed == MAX_RELAXED) return false;
    break;
  case MLC_FOR_VECTORIZED: case MLC_FOR_UNROLLED: return false;
  }
  if (expr_touches(s->loop.min, c->buf) || expr_touches(s->loop.extent, c->buf)) return false;
  /* each thread block has shared memory of its own, so a shared buffer goes
   * into a blockIdx loop even when blocks' tiles overlap (the halo of a
   * stencil): no block reads what another wrote there */
  bool per_block = c->buf->scope == mlc_intern(c->ctx, "shared") && s->loop.kind == MLC_FOR_THREAD &&
                   s->loop.thread && !strncmp(s->loop.thread, "blockIdx", 8);
  /* and local memory is each thread's own: the register tile of a thread */
  per_block |= c->buf->scope == mlc_intern(c->ctx, "local") && s->loop.kind == MLC_FOR_THREAD;
  bool relax = shared_in_thread(c, s);
  Region r;
  region_init(&r, c->ctx, c->buf);
  relax_threads(c, &r);
  int64_t lo, n;
  if (relax && (!mlc_e_is_const_int(s->loop.min, &lo) || !mlc_e_is_const_int(s->loop.extent, &n) || n < 1)) {
    region_free(&r);
    return false;
  }
  if (relax) mlc_arith_bind(&r.az, s->loop.var, lo, n);
  region_stmt(&r, s->loop.body);
  bool ok = !r.failed && constant_size(&r) && (per_block || relax || iterations_disjoint(c, s, &r));
  region_free(&r);
  return ok;
}

/* ---- rewriting ------------------------------------------------------------------ */

typedef struct Rewrite {
  const MlcBuffer *old;
  MlcBuffer *buf;
  MlcExpr **min; /* per dim; NULL when the dimension keeps its shape */
  MlcAnalyzer az;
} Rewrite;

static MlcExpr **shift(MlcMutator *m, MlcExpr **idx, int n) {
  Rewrite *rw = m->user;
  MlcExpr **out = mlc_arena_array(&m->ctx->arena, (size_t)n + 1, sizeof *out);
  for (int d = 0; d < n; d++) {
    if (!(out[d] = mlc_mutate_expr(m, idx[d]))) return NULL;
    if (!rw->min[d]) continue;
    MlcExpr *min = rw->min[d], *at = out[d]->kind == MLC_EXPR_RAMP ? out[d]->ramp.base : out[d];
    if (!mlc_dtype_eq(min->dtype, at->dtype)) min = mlc_e_cast(m->ctx, at->dtype, min);
    MlcExpr *x = mlc_e_bin(m->ctx, MLC_BIN_SUB, at, min);
    if (!x) return NULL;
    x = mlc_arith_simplify(&rw->az, x);
    out[d] = out[d]->kind == MLC_EXPR_RAMP ? mlc_e_ramp(m->ctx, x, out[d]->ramp.stride, out[d]->ramp.lanes) : x;
  }
  return out;
}

static MlcExpr *rewrite_expr(MlcMutator *m, MlcExpr *e) {
  Rewrite *rw = m->user;
  if (e->kind != MLC_EXPR_LOAD || e->load.buf != rw->old) return mlc_mutate_expr_children(m, e);
  MlcExpr **idx = shift(m, e->load.idx, e->load.n);
  return idx ? mlc_e_load(m->ctx, rw->buf, idx, e->load.n) : NULL;
}

static MlcStmt *rewrite_stmt(MlcMutator *m, MlcStmt *s) {
  Rewrite *rw = m->user;
  if (s->kind != MLC_STMT_STORE || s->store.buf != rw->old) return mlc_mutate_stmt_children(m, s);
  MlcExpr **idx = shift(m, s->store.idx, s->store.n);
  MlcExpr *value = idx ? mlc_mutate_expr(m, s->store.value) : NULL;
  return value ? mlc_s_store(m->ctx, rw->buf, idx, s->store.n, value) : NULL;
}

/* S + lo in the dtype of the buffer's shape */
static MlcExpr *region_min(MlcCtx *ctx, const Dim *x, MlcDType t) {
  MlcExpr *acc = mlc_e_int(ctx, t, x->lo);
  for (int i = x->n - 1; i >= 0; i--) {
    MlcExpr *e = x->s[i].e;
    if (!mlc_dtype_eq(e->dtype, t)) e = mlc_e_cast(ctx, t, e);
    acc = mlc_arith_add(ctx, mlc_arith_mul(ctx, e, mlc_e_int(ctx, t, x->s[i].coef)), acc);
  }
  return acc;
}

/* allocate the buffer, compacted, around s */
static MlcStmt *wrap(Compact *c, MlcStmt *s) {
  MlcCtx *ctx = c->ctx;
  const MlcBuffer *old = c->buf;
  Region r;
  region_init(&r, ctx, old);
  relax_threads(c, &r);
  region_stmt(&r, s);
  Rewrite rw = {.old = old};
  rw.min = mlc_arena_array(&ctx->arena, (size_t)old->ndim + 1, sizeof *rw.min);
  MlcExpr **shape = mlc_arena_array(&ctx->arena, (size_t)old->ndim + 1, sizeof *shape);
  bool any = false;
  for (int d = 0; d < old->ndim; d++) {
    int64_t extent;
    MlcDType t = old->shape[d]->dtype;
    shape[d] = old->shape[d];
    if (r.failed || !dim_shrinks(&r, d, &extent)) continue;
    shape[d] = mlc_e_int(ctx, t, extent);
    rw.min[d] = region_min(ctx, &r.dims[d], t);
    any = true;
  }
  region_free(&r);
  if (!any) return mlc_s_allocate(ctx, (MlcBuffer *)old, s);
  rw.buf = mlc_buffer_new(ctx, old->name, old->dtype, shape, old->ndim, NULL, NULL, old->scope);
  if (!rw.buf) return NULL;
  rw.buf->align = old->align;
  rw.buf->offset_factor = old->offset_factor;
  mlc_arith_init(&rw.az, ctx);
  MlcMutator m = {.ctx = ctx, .user = &rw, .expr = rewrite_expr, .stmt = rewrite_stmt};
  MlcStmt *body = mlc_mutate_stmt(&m, s);
  mlc_map_free(&m.buffer_map);
  mlc_arith_free(&rw.az);
  return body ? mlc_s_allocate(ctx, rw.buf, body) : NULL;
}

static MlcStmt *place(Compact *c, MlcStmt *s);

/* items [first, last] of a sequence touch the buffer */
static MlcStmt *place_seq(Compact *c, MlcStmt *s) {
  int first = -1, last = -1, n = s->seq.n;
  for (int i = 0; i < n; i++)
    if (touches(s->seq.items[i], c->buf)) {
      if (first < 0) first = i;
      last = i;
    }
  if (first < 0) return mlc_s_allocate(c->ctx, (MlcBuffer *)c->buf, s);
  MlcStmt *inner = first == last ? place(c, s->seq.items[first])
                                 : wrap(c, mlc_s_seq(c->ctx, s->seq.items + first, last - first + 1));
  if (!inner) return NULL;
  if (first == 0 && last == n - 1) return inner;
  MlcStmt **items = mlc_arena_array(&c->ctx->arena, (size_t)n + 1, sizeof *items);
  int k = 0;
  for (int i = 0; i < first; i++) items[k++] = s->seq.items[i];
  items[k++] = inner;
  for (int i = last + 1; i < n; i++) items[k++] = s->seq.items[i];
  return mlc_s_seq(c->ctx, items, k);
}

static MlcStmt *place_if(Compact *c, MlcStmt *s) {
  bool in_then = touches(s->if_.then_s, c->buf), in_else = touches(s->if_.else_s, c->buf);
  if (expr_touches(s->if_.cond, c->buf) || in_then == in_else) return wrap(c, s);
  MlcStmt *t = s->if_.then_s, *e = s->if_.else_s;
  if (in_then && !(t = place(c, t))) return NULL;
  if (in_else && !(e = place(c, e))) return NULL;
  return mlc_s_if(c->ctx, s->if_.cond, t, e);
}

/* s touches the buffer: the allocation goes inside s, as deep as allowed */
static MlcStmt *place(Compact *c, MlcStmt *s) {
  MlcStmt *body;
  switch (s->kind) {
  case MLC_STMT_FOR:
    if (!may_enter(c, s)) return wrap(c, s);
    if (shared_in_thread(c, s)) c->relaxed[c->n_relaxed++] = s;
    body = place(c, s->loop.body);
    return body ? mlc_s_for(c->ctx, s->loop.var, s->loop.min, s->loop.extent, s->loop.kind, s->loop.thread,
                            s->loop.annotations, body)
                : NULL;
  case MLC_STMT_SEQ: return place_seq(c, s);
  case MLC_STMT_IF: return place_if(c, s);
  case MLC_STMT_LET:
    if (expr_touches(s->let.value, c->buf)) return wrap(c, s);
    body = place(c, s->let.body);
    return body ? mlc_s_let(c->ctx, s->let.var, s->let.value, body) : NULL;
  case MLC_STMT_ALLOCATE:
    body = place(c, s->alloc.body);
    return body ? mlc_s_allocate(c->ctx, s->alloc.buf, body) : NULL;
  case MLC_STMT_STORE: case MLC_STMT_EVALUATE: case MLC_STMT_BLOCK_REALIZE:
    return wrap(c, s);
  }
  return wrap(c, s);
}

/* an element's address is taken (T.address_of: handed to an extern
 * function, which indexes the buffer with the strides of its shape as the
 * program was written) */
static bool address_expr(MlcVisitor *v, const MlcExpr *e) {
  const MlcBuffer **b = v->user;
  if (*b && e->kind == MLC_EXPR_CALL && e->call.op == MLC_INTRIN_ADDRESS_OF && e->call.args[0]->load.buf == *b) *b = NULL;
  return *b != NULL;
}

static bool address_taken(const MlcStmt *s, const MlcBuffer *buf) {
  const MlcBuffer *b = buf;
  MlcVisitor v = {.user = &b, .expr = address_expr};
  mlc_visit_stmt(&v, s);
  return b == NULL;
}

static MlcStmt *compact_stmt(MlcMutator *m, MlcStmt *s) {
  if (s->kind != MLC_STMT_ALLOCATE) return mlc_mutate_stmt_children(m, s);
  MlcStmt *body = mlc_mutate_stmt(m, s->alloc.body); /* inner allocations first */
  const MlcBuffer *b = s->alloc.buf;
  if (!body) return NULL;
  if (b->strides || b->elem_offset || !touches(body, b) || address_taken(body, b))
    return body == s->alloc.body ? s : mlc_s_allocate(m->ctx, s->alloc.buf, body);
  Compact c = {.ctx = m->ctx, .buf = b};
  return place(&c, body);
}

MlcPrimFunc *mlc_lower_compact(MlcCtx *ctx, const MlcPrimFunc *f) {
  MlcMutator m = {.ctx = ctx, .stmt = compact_stmt};
  MlcStmt *body = mlc_mutate_stmt(&m, f->body);
  mlc_map_free(&m.buffer_map);
  if (!body) return NULL;
  return mlc_prim_func_new(ctx, f->name, f->params, f->n_params, f->attrs, body);
}
