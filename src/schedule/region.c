/* region.c - regions of buffers that blocks access under a loop, the blocks
 * of a scope in order, and rewriting a body at several statements at once
 * (see region.h for the contract).
 *
 * Relaxing an index is done on its affine view: the index is taken apart
 * into fixed atoms (sub-expressions that read no relaxed var) times
 * constants, plus an interval [lo, hi] that collects the relaxed vars and
 * the constant.  The span is then [sum of fixed terms + lo, ... + hi].
 * floordiv and floormod by a constant keep this form when the fixed part
 * divides evenly, and widen soundly when it does not; every other node that
 * reads a relaxed var is replaced by its constant bounds, which the
 * analyzer knows because every loop on the way is bound in it. */
#include "schedule/region.h"

#include <string.h>

/* ======================================================================== */
/* checked arithmetic                                                       */
/* ======================================================================== */

static bool add_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }
static bool mul_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }

static int64_t floordiv_i(int64_t a, int64_t c) { /* c > 0 */
  int64_t q = a / c;
  return (a % c != 0 && a < 0) ? q - 1 : q;
}

static bool finite(MlcIntSet s) { return s.min != MLC_INT_NEG_INF && s.max != MLC_INT_POS_INF; }

/* ======================================================================== */
/* the analysis context                                                     */
/* ======================================================================== */

void sch_relax_init(SchRelax *r, MlcCtx *ctx) {
  r->ctx = ctx;
  mlc_arith_init(&r->az, ctx);
  r->relaxed = (MlcMap){0};
}

void sch_relax_free(SchRelax *r) {
  mlc_arith_free(&r->az);
  mlc_map_free(&r->relaxed);
}

void sch_relax_loop(SchRelax *r, const MlcStmt *loop, bool relax) {
  int64_t min, ext;
  /* relaxed even without a range: an index reading it then has no span */
  if (relax) mlc_map_put(&r->relaxed, loop->loop.var, (void *)loop);
  if (mlc_e_is_const_int(loop->loop.min, &min) && mlc_e_is_const_int(loop->loop.extent, &ext) && ext >= 1)
    mlc_arith_bind(&r->az, loop->loop.var, min, ext);
}

/* every loop in st's subtree, blocks included (their loops are just as
 * much iterations of the loop above) */
static void relax_all(SchRelax *r, const MlcStmt *st) {
  if (!st) return;
  switch (st->kind) {
  case MLC_STMT_FOR:
    sch_relax_loop(r, st, true);
    relax_all(r, st->loop.body);
    return;
  case MLC_STMT_BLOCK_REALIZE:
    relax_all(r, st->realize.block->init);
    relax_all(r, st->realize.block->body);
    return;
  case MLC_STMT_SEQ:
    for (int i = 0; i < st->seq.n; i++) relax_all(r, st->seq.items[i]);
    return;
  case MLC_STMT_IF:
    relax_all(r, st->if_.then_s);
    relax_all(r, st->if_.else_s);
    return;
  case MLC_STMT_LET: relax_all(r, st->let.body); return;
  case MLC_STMT_ALLOCATE: relax_all(r, st->alloc.body); return;
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return;
  }
}

/* iter vars of an enclosing block range over their domains */
static void bind_iters(SchRelax *r, const MlcStmt *realize) {
  const MlcBlock *b = realize->realize.block;
  for (int k = 0; k < b->n_iters; k++) {
    int64_t min, ext;
    if (mlc_e_is_const_int(b->iters[k].dom.min, &min) && mlc_e_is_const_int(b->iters[k].dom.extent, &ext) && ext > 0)
      mlc_arith_bind(&r->az, b->iters[k].var, min, ext);
  }
}

/* the path's loops and enclosing blocks up to node `end` (excluded); loops
 * at or after node `relax_from` are relaxed */
static void bind_path(SchRelax *r, const SchPath *path, int end, int relax_from) {
  for (int i = 0; i < end; i++) {
    if (path->nodes[i]->kind == MLC_STMT_FOR) sch_relax_loop(r, path->nodes[i], i >= relax_from);
    if (path->nodes[i]->kind == MLC_STMT_BLOCK_REALIZE) bind_iters(r, path->nodes[i]);
  }
}

void sch_relax_under(SchRelax *r, const SchPath *loop_path) {
  bind_path(r, loop_path, loop_path->n, loop_path->n);
  const MlcStmt *loop = loop_path->nodes[loop_path->n - 1];
  relax_all(r, loop->loop.body);
}

bool sch_thread_shares_scope(const char *thread, const char *scope) {
  if (!thread || !scope || strcmp(scope, "shared") != 0) return false;
  return strncmp(thread, "threadIdx.", 10) == 0 || strncmp(thread, "vthread", 7) == 0;
}

void sch_relax_under_scope(SchRelax *r, const SchPath *loop_path, const char *scope) {
  for (int i = 0; i < loop_path->n; i++) {
    const MlcStmt *st = loop_path->nodes[i];
    if (st->kind == MLC_STMT_FOR)
      sch_relax_loop(r, st, st->loop.kind == MLC_FOR_THREAD && sch_thread_shares_scope(st->loop.thread, scope));
    if (st->kind == MLC_STMT_BLOCK_REALIZE) bind_iters(r, st);
  }
  const MlcStmt *loop = loop_path->nodes[loop_path->n - 1];
  relax_all(r, loop->loop.body);
}

void sch_relax_own_loops(SchRelax *r, const SchPath *block_path) {
  int scope = 0;
  for (int i = 0; i < block_path->n - 1; i++)
    if (block_path->nodes[i]->kind == MLC_STMT_BLOCK_REALIZE) scope = i;
  bind_path(r, block_path, block_path->n - 1, scope + 1);
}

/* ======================================================================== */
/* does an expression read a relaxed var                                    */
/* ======================================================================== */

typedef struct Mentions {
  MlcVisitor v; /* first member: the hook gets &m->v */
  const MlcMap *vars;
  bool found;
} Mentions;

static bool mentions_hook(MlcVisitor *v, const MlcExpr *e) {
  Mentions *m = (Mentions *)v;
  if (e->kind == MLC_EXPR_VAR && mlc_map_get(m->vars, e)) m->found = true;
  return !m->found;
}

static bool mentions(const MlcMap *vars, const MlcExpr *e) {
  if (!e || !vars->len) return false;
  Mentions m = {.v = {.expr = mentions_hook}, .vars = vars};
  mlc_visit_expr(&m.v, e);
  return m.found;
}

bool sch_relax_mentions(const SchRelax *r, const MlcExpr *e) { return mentions(&r->relaxed, e); }

/* ======================================================================== */
/* the affine view                                                          */
/* ======================================================================== */

typedef struct Aff {
  MLC_VEC(SchTerm) fixed; /* coef * atom, atoms without relaxed vars */
  int64_t lo, hi;         /* the relaxed part and the constant */
  bool ok;
} Aff;

/* add mul * [a, b] to the interval part */
static void aff_range(Aff *x, int64_t a, int64_t b, int64_t mul) {
  int64_t p, q;
  if (!x->ok || !mul_ok(a, mul, &p) || !mul_ok(b, mul, &q)) {
    x->ok = false;
    return;
  }
  if (p > q) {
    int64_t t = p;
    p = q;
    q = t;
  }
  x->ok = add_ok(x->lo, p, &x->lo) && add_ok(x->hi, q, &x->hi);
}

static void aff_free(Aff *x) { mlc_vec_free(&x->fixed); }

/* sum of the fixed terms plus k, in e's dtype t */
static MlcExpr *build_sum(MlcCtx *ctx, const SchTerm *ts, size_t n, int64_t k, MlcDType t) {
  MlcExpr *acc = NULL;
  for (size_t i = 0; i < n; i++) {
    if (ts[i].coef == 0) continue;
    MlcExpr *term = mlc_arith_mul(ctx, ts[i].atom, mlc_e_int(ctx, t, ts[i].coef));
    acc = acc ? mlc_arith_add(ctx, acc, term) : term;
  }
  MlcExpr *c = mlc_e_int(ctx, t, k);
  return acc ? mlc_arith_add(ctx, acc, c) : c;
}

static void aff_add(SchRelax *r, Aff *x, MlcExpr *e, int64_t mul);

/* a part without relaxed vars, taken apart linearly so that floordiv can
 * see which coefficients its divisor divides */
static void aff_fixed(Aff *x, MlcExpr *e, int64_t mul) {
  SchLinear l;
  int64_t m;
  if (!sch_linear(e, &l)) {
    mlc_vec_push(&x->fixed, ((SchTerm){e, mul}));
  } else {
    for (size_t i = 0; i < l.terms.len && x->ok; i++) {
      if (!mul_ok(l.terms.data[i].coef, mul, &m)) x->ok = false;
      else mlc_vec_push(&x->fixed, ((SchTerm){l.terms.data[i].atom, m}));
    }
    aff_range(x, l.k, l.k, mul);
  }
  sch_linear_free(&l);
}

/* e's own bounds, as a last resort: correct, if wider than needed */
static void aff_bound(SchRelax *r, Aff *x, const MlcExpr *e, int64_t mul) {
  MlcIntSet b = mlc_arith_bound(&r->az, e);
  if (!finite(b)) x->ok = false;
  else aff_range(x, b.min, b.max, mul);
}

static bool divisible(const Aff *x, int64_t c) {
  for (size_t i = 0; i < x->fixed.len; i++)
    if (x->fixed.data[i].coef % c != 0) return false;
  return true;
}

/* floordiv(a, c): (F + [lo, hi]) // c is F/c + [lo//c, hi//c] when c
 * divides F; otherwise (F + lo) // c plus at most ceil((hi - lo) / c). */
static void aff_floordiv(SchRelax *r, Aff *x, MlcExpr *e, int64_t c, int64_t mul) {
  Aff in = {.ok = true};
  aff_add(r, &in, e->bin.a, 1);
  if (!in.ok) {
    aff_free(&in);
    aff_bound(r, x, e, mul);
    return;
  }
  if (divisible(&in, c)) {
    for (size_t i = 0; i < in.fixed.len && x->ok; i++) {
      int64_t m;
      if (!mul_ok(in.fixed.data[i].coef / c, mul, &m)) x->ok = false;
      else mlc_vec_push(&x->fixed, ((SchTerm){in.fixed.data[i].atom, m}));
    }
    aff_range(x, floordiv_i(in.lo, c), floordiv_i(in.hi, c), mul);
  } else {
    int64_t width, spread;
    MlcExpr *base = build_sum(r->ctx, in.fixed.data, in.fixed.len, in.lo, e->dtype);
    MlcExpr *atom = mlc_arith_simplify(&r->az, mlc_e_bin(r->ctx, MLC_BIN_FLOORDIV, base, e->bin.b));
    if (!atom || !add_ok(in.hi - in.lo, c - 1, &width)) x->ok = false;
    else {
      spread = floordiv_i(width, c);
      mlc_vec_push(&x->fixed, ((SchTerm){atom, mul}));
      aff_range(x, 0, spread, mul);
    }
  }
  aff_free(&in);
}

/* floormod(a, c): exact when c divides the fixed part and the interval
 * stays within one period; [0, c) otherwise. */
static void aff_floormod(SchRelax *r, Aff *x, MlcExpr *e, int64_t c, int64_t mul) {
  Aff in = {.ok = true};
  aff_add(r, &in, e->bin.a, 1);
  int64_t lo = 0, hi = c - 1;
  if (in.ok && divisible(&in, c) && floordiv_i(in.lo, c) == floordiv_i(in.hi, c)) {
    lo = in.lo - floordiv_i(in.lo, c) * c;
    hi = in.hi - floordiv_i(in.hi, c) * c;
  }
  aff_free(&in);
  aff_range(x, lo, hi, mul);
}

static void aff_add(SchRelax *r, Aff *x, MlcExpr *e, int64_t mul) {
  int64_t v, m;
  if (!x->ok) return;
  if (mlc_e_is_const_int(e, &v)) {
    aff_range(x, v, v, mul);
    return;
  }
  if (!mentions(&r->relaxed, e)) {
    aff_fixed(x, e, mul);
    return;
  }
  if (e->kind == MLC_EXPR_NEG && mul != INT64_MIN) {
    aff_add(r, x, e->operand, -mul);
    return;
  }
  if (e->kind != MLC_EXPR_BINARY) {
    aff_bound(r, x, e, mul);
    return;
  }
  switch (e->bin.op) {
  case MLC_BIN_ADD:
    aff_add(r, x, e->bin.a, mul);
    aff_add(r, x, e->bin.b, mul);
    return;
  case MLC_BIN_SUB:
    if (mul == INT64_MIN) break;
    aff_add(r, x, e->bin.a, mul);
    aff_add(r, x, e->bin.b, -mul);
    return;
  case MLC_BIN_MUL:
    if (mlc_e_is_const_int(e->bin.b, &v) && mul_ok(v, mul, &m)) {
      aff_add(r, x, e->bin.a, m);
      return;
    }
    if (mlc_e_is_const_int(e->bin.a, &v) && mul_ok(v, mul, &m)) {
      aff_add(r, x, e->bin.b, m);
      return;
    }
    break;
  case MLC_BIN_FLOORDIV:
    if (mlc_e_is_const_int(e->bin.b, &v) && v > 0) {
      aff_floordiv(r, x, e, v, mul);
      return;
    }
    break;
  case MLC_BIN_FLOORMOD:
    if (mlc_e_is_const_int(e->bin.b, &v) && v > 0) {
      aff_floormod(r, x, e, v, mul);
      return;
    }
    break;
  default: break;
  }
  aff_bound(r, x, e, mul);
}

bool sch_relax_span(SchRelax *r, MlcExpr *min, MlcExpr *extent, SchSpan *out) {
  int64_t ext, width, len;
  if (!min || !extent || min->dtype.lanes != 1 || !mlc_dtype_is_int(min->dtype)) return false;
  if (!mlc_e_is_const_int(extent, &ext)) {
    MlcExpr *se = mlc_arith_simplify(&r->az, extent);
    if (!se || !mlc_e_is_const_int(se, &ext)) return false;
  }
  Aff x = {.ok = true};
  aff_add(r, &x, min, 1);
  bool ok = x.ok && ext >= 1 && !__builtin_sub_overflow(x.hi, x.lo, &width) && add_ok(width, ext, &len);
  if (ok) {
    MlcExpr *m = build_sum(r->ctx, x.fixed.data, x.fixed.len, x.lo, min->dtype);
    out->min = m ? mlc_arith_simplify(&r->az, m) : NULL;
    out->extent = len;
    ok = out->min != NULL;
  }
  aff_free(&x);
  return ok;
}

bool sch_span_union(SchRelax *r, SchSpan *acc, SchSpan add) {
  if (!add.min) return false;
  if (!acc->min) {
    *acc = add;
    return true;
  }
  int64_t d, lo, hi, end;
  if (mlc_dtype_eq(acc->min->dtype, add.min->dtype)) {
    MlcExpr *diff = mlc_arith_simplify(&r->az, mlc_e_bin(r->ctx, MLC_BIN_SUB, add.min, acc->min));
    if (diff && mlc_e_is_const_int(diff, &d) && add_ok(d, add.extent, &end)) {
      lo = d < 0 ? d : 0;
      hi = end > acc->extent ? end : acc->extent;
      if (d < 0) acc->min = add.min;
      acc->extent = hi - lo;
      return true;
    }
  }
  MlcIntSet a = mlc_arith_bound(&r->az, acc->min), b = mlc_arith_bound(&r->az, add.min);
  int64_t ea, eb;
  if (!finite(a) || !finite(b) || !add_ok(a.max, acc->extent, &ea) || !add_ok(b.max, add.extent, &eb))
    return false;
  lo = a.min < b.min ? a.min : b.min;
  hi = ea > eb ? ea : eb;
  acc->min = mlc_e_int(r->ctx, acc->min->dtype, lo);
  acc->extent = hi - lo;
  return true;
}

bool sch_block_region(SchRelax *r, const MlcStmt *realize, const MlcBuffer *buf, bool writes,
                      SchSpan *out, bool *whole) {
  const MlcBlock *b = realize->realize.block;
  const MlcBufferRegion *regs = writes ? b->writes : b->reads;
  int n = writes ? b->n_writes : b->n_reads;
  MlcMap bind = {0};
  for (int i = 0; i < b->n_iters && i < realize->realize.n; i++)
    mlc_map_put(&bind, b->iters[i].var, realize->realize.values[i]);
  bool found = false;
  for (int k = 0; k < n; k++) {
    if (regs[k].buf != buf) continue;
    found = true;
    for (int d = 0; d < buf->ndim; d++) {
      MlcExpr *min = mlc_substitute_expr(r->ctx, regs[k].ranges[d].min, &bind);
      MlcExpr *ext = mlc_substitute_expr(r->ctx, regs[k].ranges[d].extent, &bind);
      SchSpan s;
      if (!sch_relax_span(r, min, ext, &s) || !sch_span_union(r, &out[d], s)) whole[d] = true;
    }
  }
  mlc_map_free(&bind);
  return found;
}

/* ======================================================================== */
/* the linear view, coverage                                                */
/* ======================================================================== */

static bool lin_add(SchLinear *l, MlcExpr *e, int64_t mul) {
  int64_t v, m;
  if (mlc_e_is_const_int(e, &v)) return mul_ok(v, mul, &m) && add_ok(l->k, m, &l->k);
  if (e->kind == MLC_EXPR_NEG) return mul != INT64_MIN && lin_add(l, e->operand, -mul);
  if (e->kind == MLC_EXPR_BINARY) {
    switch (e->bin.op) {
    case MLC_BIN_ADD: return lin_add(l, e->bin.a, mul) && lin_add(l, e->bin.b, mul);
    case MLC_BIN_SUB: return mul != INT64_MIN && lin_add(l, e->bin.a, mul) && lin_add(l, e->bin.b, -mul);
    case MLC_BIN_MUL:
      if (mlc_e_is_const_int(e->bin.b, &v)) return mul_ok(v, mul, &m) && lin_add(l, e->bin.a, m);
      if (mlc_e_is_const_int(e->bin.a, &v)) return mul_ok(v, mul, &m) && lin_add(l, e->bin.b, m);
      break;
    default: break;
    }
  }
  for (size_t i = 0; i < l->terms.len; i++)
    if (l->terms.data[i].atom == e) return add_ok(l->terms.data[i].coef, mul, &l->terms.data[i].coef);
  mlc_vec_push(&l->terms, ((SchTerm){e, mul}));
  return true;
}

bool sch_linear(MlcExpr *e, SchLinear *out) {
  *out = (SchLinear){0};
  if (e && lin_add(out, e, 1)) return true;
  sch_linear_free(out);
  return false;
}

void sch_linear_free(SchLinear *l) { mlc_vec_free(&l->terms); }

typedef struct Step { int64_t stride, count; } Step;

static int by_stride(const void *a, const void *b) {
  int64_t x = ((const Step *)a)->stride, y = ((const Step *)b)->stride;
  return (x > y) - (x < y);
}

bool sch_linear_no_gaps(SchRelax *r, const SchLinear *l, int64_t len, int64_t *lo, int64_t *hi) {
  Step *steps = mlc_xcalloc(l->terms.len ? l->terms.len : 1, sizeof *steps);
  int64_t base = l->k, p;
  bool ok = len >= 1;
  for (size_t i = 0; i < l->terms.len && ok; i++) {
    const SchTerm *t = &l->terms.data[i];
    MlcIntSet b = t->atom->kind == MLC_EXPR_VAR ? mlc_arith_bound(&r->az, t->atom) : (MlcIntSet){0, -1};
    ok = finite(b) && b.max >= b.min && t->coef != INT64_MIN &&
         mul_ok(t->coef, t->coef > 0 ? b.min : b.max, &p) && add_ok(base, p, &base);
    if (ok) steps[i] = (Step){t->coef > 0 ? t->coef : -t->coef, b.max - b.min + 1};
  }
  if (ok) qsort(steps, l->terms.len, sizeof *steps, by_stride);
  for (size_t i = 0; i < l->terms.len && ok; i++)
    ok = steps[i].stride <= len && mul_ok(steps[i].stride, steps[i].count - 1, &p) && add_ok(len, p, &len);
  ok = ok && add_ok(base, len, hi);
  *lo = base;
  free(steps);
  return ok;
}

bool sch_span_covers(SchRelax *r, SchSpan s, int64_t lo, int64_t hi) {
  SchLinear l;
  int64_t a, b;
  bool ok = s.min && sch_linear(s.min, &l) && sch_linear_no_gaps(r, &l, s.extent, &a, &b) && a <= lo && b >= hi;
  if (s.min) sch_linear_free(&l);
  return ok;
}

/* ======================================================================== */
/* scopes                                                                   */
/* ======================================================================== */

static void collect_blocks(const MlcStmt *st, SchScope *scope) {
  if (!st) return;
  switch (st->kind) {
  case MLC_STMT_BLOCK_REALIZE: mlc_vec_push(&scope->blocks, st); return;
  case MLC_STMT_FOR: collect_blocks(st->loop.body, scope); return;
  case MLC_STMT_SEQ:
    for (int i = 0; i < st->seq.n; i++) collect_blocks(st->seq.items[i], scope);
    return;
  case MLC_STMT_IF:
    collect_blocks(st->if_.then_s, scope);
    collect_blocks(st->if_.else_s, scope);
    return;
  case MLC_STMT_LET: collect_blocks(st->let.body, scope); return;
  case MLC_STMT_ALLOCATE: collect_blocks(st->alloc.body, scope); return;
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return;
  }
}

bool sch_scope_of(const SchPath *path, SchScope *scope) {
  *scope = (SchScope){0};
  for (int i = path->n - 2; i >= 0; i--)
    if (path->nodes[i]->kind == MLC_STMT_BLOCK_REALIZE) {
      scope->root = path->nodes[i];
      collect_blocks(scope->root->realize.block->body, scope);
      return true;
    }
  return false;
}

void sch_scope_free(SchScope *scope) { mlc_vec_free(&scope->blocks); }

int sch_scope_index(const SchScope *scope, const MlcStmt *realize) {
  for (size_t i = 0; i < scope->blocks.len; i++)
    if (scope->blocks.data[i] == realize) return (int)i;
  return -1;
}

static bool regions_have(const MlcBufferRegion *rs, int n, const MlcBuffer *buf) {
  for (int i = 0; i < n; i++)
    if (rs[i].buf == buf) return true;
  return false;
}

bool sch_block_reads(const MlcBlock *b, const MlcBuffer *buf) { return regions_have(b->reads, b->n_reads, buf); }
bool sch_block_writes(const MlcBlock *b, const MlcBuffer *buf) { return regions_have(b->writes, b->n_writes, buf); }

/* the iter var dimension d of region w is indexed by (-1: a constant), or
 * -2 when it is neither a constant nor a non-overlapping `c * v + k` */
static int dim_iter(const MlcBlock *b, const MlcRange *rg) {
  int64_t ext;
  SchLinear l;
  if (!mlc_e_is_const_int(rg->extent, &ext) || !sch_linear(rg->min, &l)) return -2;
  int k = l.terms.len ? -2 : -1;
  if (l.terms.len == 1) {
    int64_t c = l.terms.data[0].coef;
    for (int i = 0; i < b->n_iters; i++)
      if (b->iters[i].var == l.terms.data[0].atom && c != INT64_MIN && ext <= (c < 0 ? -c : c)) k = i;
  }
  sch_linear_free(&l);
  return k;
}

bool sch_block_writes_injective(const MlcBlock *b) {
  bool *seen = mlc_xcalloc((size_t)(b->n_iters ? b->n_iters : 1), sizeof *seen);
  bool ok = true;
  for (int w = 0; w < b->n_writes && ok; w++) {
    memset(seen, 0, (size_t)(b->n_iters ? b->n_iters : 1) * sizeof *seen);
    for (int d = 0; d < b->writes[w].buf->ndim && ok; d++) {
      int k = dim_iter(b, &b->writes[w].ranges[d]);
      if (k == -2) ok = false;
      else if (k >= 0) seen[k] = true;
    }
    for (int k = 0; k < b->n_iters && ok; k++) {
      int64_t ext;
      bool unit = mlc_e_is_const_int(b->iters[k].dom.extent, &ext) && ext == 1;
      ok = seen[k] || unit || b->iters[k].kind != MLC_ITER_SPATIAL;
    }
  }
  free(seen);
  return ok;
}

bool sch_stmt_contains(const MlcStmt *root, const MlcStmt *stmt) {
  if (!root) return false;
  if (root == stmt) return true;
  switch (root->kind) {
  case MLC_STMT_FOR: return sch_stmt_contains(root->loop.body, stmt);
  case MLC_STMT_BLOCK_REALIZE:
    return sch_stmt_contains(root->realize.block->init, stmt) || sch_stmt_contains(root->realize.block->body, stmt);
  case MLC_STMT_SEQ:
    for (int i = 0; i < root->seq.n; i++)
      if (sch_stmt_contains(root->seq.items[i], stmt)) return true;
    return false;
  case MLC_STMT_IF: return sch_stmt_contains(root->if_.then_s, stmt) || sch_stmt_contains(root->if_.else_s, stmt);
  case MLC_STMT_LET: return sch_stmt_contains(root->let.body, stmt);
  case MLC_STMT_ALLOCATE: return sch_stmt_contains(root->alloc.body, stmt);
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return false;
  }
  return false;
}

bool sch_is_param_buffer(const MlcPrimFunc *f, const MlcBuffer *buf) {
  for (int i = 0; i < f->n_params; i++)
    if (f->params[i].buf == buf) return true;
  return false;
}

/* ======================================================================== */
/* predicates that only guard the iter domains                              */
/* ======================================================================== */

static bool is_true(const MlcExpr *e) {
  int64_t v;
  return !e || (mlc_e_is_const_int(e, &v) && v != 0);
}

/* `e < c` style conjunct: is there an iter var whose binding is e plus a
 * constant d, so that the conjunct reads `binding < c + d`, and does that
 * bound exclude only values outside the iter's domain? */
static bool guards_domain(MlcAnalyzer *az, const MlcStmt *realize, MlcExpr *e, int64_t c, bool upper) {
  const MlcBlock *b = realize->realize.block;
  for (int k = 0; k < b->n_iters && k < realize->realize.n; k++) {
    MlcExpr *bk = realize->realize.values[k];
    int64_t d, m, ext, bound;
    if (!mlc_dtype_eq(bk->dtype, e->dtype) || !mlc_e_is_const_int(b->iters[k].dom.min, &m) ||
        !mlc_e_is_const_int(b->iters[k].dom.extent, &ext))
      continue;
    MlcExpr *diff = mlc_arith_simplify(az, mlc_e_bin(az->ctx, MLC_BIN_SUB, bk, e));
    if (!diff || !mlc_e_is_const_int(diff, &d) || !add_ok(c, d, &bound)) continue;
    if (upper ? bound >= m + ext : bound <= m) return true;
  }
  return false;
}

static bool conjunct_guards(MlcAnalyzer *az, const MlcStmt *realize, MlcExpr *p) {
  if (is_true(p)) return true;
  if (p->kind != MLC_EXPR_BINARY) return false;
  MlcBinOp op = p->bin.op;
  if (op == MLC_BIN_AND) return conjunct_guards(az, realize, p->bin.a) && conjunct_guards(az, realize, p->bin.b);
  MlcExpr *e = p->bin.a;
  int64_t c;
  if (!mlc_e_is_const_int(p->bin.b, &c)) {
    /* c OP e: mirror it */
    if (!mlc_e_is_const_int(p->bin.a, &c)) return false;
    e = p->bin.b;
    static const MlcBinOp mirror[MLC_BIN_COUNT] = {
        [MLC_BIN_LT] = MLC_BIN_GT, [MLC_BIN_LE] = MLC_BIN_GE, [MLC_BIN_GT] = MLC_BIN_LT, [MLC_BIN_GE] = MLC_BIN_LE};
    op = mirror[op]; /* not a comparison: MLC_BIN_ADD, refused below */
  }
  /* normalise to `e < c` (upper) or `e >= c` (lower) */
  switch (op) {
  case MLC_BIN_LT: return guards_domain(az, realize, e, c, true);
  case MLC_BIN_LE: return c < INT64_MAX && guards_domain(az, realize, e, c + 1, true);
  case MLC_BIN_GE: return guards_domain(az, realize, e, c, false);
  case MLC_BIN_GT: return c < INT64_MAX && guards_domain(az, realize, e, c + 1, false);
  default: return false;
  }
}

bool sch_pred_in_domain(MlcCtx *ctx, const MlcStmt *realize) {
  if (is_true(realize->realize.pred)) return true;
  MlcAnalyzer az;
  mlc_arith_init(&az, ctx);
  bool ok = conjunct_guards(&az, realize, realize->realize.pred);
  mlc_arith_free(&az);
  return ok;
}

/* ======================================================================== */
/* rewriting                                                                */
/* ======================================================================== */

typedef struct Editor {
  MlcCtx *ctx;
  const SchEdit *edits;
  int n;
} Editor;

static MlcStmt *dup_stmt(Editor *ed, const MlcStmt *st) { return mlc_arena_dup(&ed->ctx->arena, st, sizeof *st); }

static MlcStmt *no_op(Editor *ed) { return mlc_s_evaluate(ed->ctx, mlc_e_int(ed->ctx, MLC_I32, 0)); }

static MlcStmt *edit(Editor *ed, MlcStmt *st);

static MlcStmt *edit_seq(Editor *ed, MlcStmt *st) {
  MlcStmt **items = mlc_arena_array(&ed->ctx->arena, (size_t)st->seq.n, sizeof *items);
  int n = 0;
  bool changed = false;
  for (int i = 0; i < st->seq.n; i++) {
    MlcStmt *x = edit(ed, st->seq.items[i]);
    changed = changed || x != st->seq.items[i];
    if (x) items[n++] = x;
  }
  if (!changed) return st;
  return n ? mlc_s_seq(ed->ctx, items, n) : NULL;
}

static MlcBlock *block_without(Editor *ed, const MlcBlock *b, const MlcBuffer *drop) {
  MlcBlock *nb = mlc_arena_dup(&ed->ctx->arena, b, sizeof *nb);
  nb->allocs = mlc_arena_array(&ed->ctx->arena, (size_t)(b->n_allocs ? b->n_allocs : 1), sizeof *nb->allocs);
  nb->n_allocs = 0;
  for (int i = 0; i < b->n_allocs; i++)
    if (b->allocs[i] != drop) nb->allocs[nb->n_allocs++] = b->allocs[i];
  return nb;
}

static MlcStmt *edit_realize(Editor *ed, MlcStmt *st, const MlcBuffer *drop) {
  const MlcBlock *b = st->realize.block;
  MlcStmt *init = edit(ed, b->init), *body = edit(ed, b->body);
  if (init == b->init && body == b->body && !drop) return st;
  MlcBlock *nb = drop ? block_without(ed, b, drop) : mlc_arena_dup(&ed->ctx->arena, b, sizeof *nb);
  nb->init = init;
  nb->body = body ? body : no_op(ed);
  MlcStmt *out = dup_stmt(ed, st);
  out->realize.block = nb;
  return out;
}

/* a statement with one body: rebuilt around the edited body, gone with it */
static MlcStmt *edit_body(Editor *ed, MlcStmt *st, MlcStmt **slot_of_copy(MlcStmt *), MlcStmt *body) {
  MlcStmt *nb = edit(ed, body);
  if (nb == body) return st;
  if (!nb) return NULL;
  MlcStmt *out = dup_stmt(ed, st);
  *slot_of_copy(out) = nb;
  return out;
}

static MlcStmt **loop_body(MlcStmt *st) { return &st->loop.body; }
static MlcStmt **let_body(MlcStmt *st) { return &st->let.body; }
static MlcStmt **alloc_body(MlcStmt *st) { return &st->alloc.body; }

static MlcStmt *edit_if(Editor *ed, MlcStmt *st) {
  MlcStmt *t = edit(ed, st->if_.then_s), *e = edit(ed, st->if_.else_s);
  if (t == st->if_.then_s && e == st->if_.else_s) return st;
  if (!t && !e) return NULL;
  if (!t) return mlc_s_if(ed->ctx, mlc_e_not(ed->ctx, st->if_.cond), e, NULL);
  MlcStmt *out = dup_stmt(ed, st);
  out->if_.then_s = t;
  out->if_.else_s = e;
  return out;
}

static MlcStmt *edit(Editor *ed, MlcStmt *st) {
  if (!st) return NULL;
  const SchEdit *hit = NULL;
  for (int i = 0; i < ed->n && !hit; i++)
    if (ed->edits[i].old == st) hit = &ed->edits[i];
  if (hit && !hit->drop_alloc) return hit->repl;
  switch (st->kind) {
  case MLC_STMT_FOR: return edit_body(ed, st, loop_body, st->loop.body);
  case MLC_STMT_LET: return edit_body(ed, st, let_body, st->let.body);
  case MLC_STMT_ALLOCATE: return edit_body(ed, st, alloc_body, st->alloc.body);
  case MLC_STMT_SEQ: return edit_seq(ed, st);
  case MLC_STMT_IF: return edit_if(ed, st);
  case MLC_STMT_BLOCK_REALIZE: return edit_realize(ed, st, hit ? hit->drop_alloc : NULL);
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return st;
  }
  return st;
}

MlcStmt *sch_edit(MlcCtx *ctx, MlcStmt *root, const SchEdit *edits, int n) {
  Editor ed = {ctx, edits, n};
  return edit(&ed, root);
}
