/* regions.c - inference of a block's read and write regions from its body,
 * as TVMScript does when T.reads / T.writes are absent.
 *
 * Every load (a read) and store (a write) is recorded per buffer in order of
 * first appearance, each dimension as a span: a point [idx, 1) when the
 * index is invariant in the block (its iter vars, constants, sizes), or the
 * hull over the range of the loops nested inside the block when the index is
 * affine in their vars with constant coefficients.  The spans of a dimension
 * then combine to the one range if all agree, to their min/max hull if they
 * are constant offsets of one expression (vi and vi + 1 give [vi, 2)), and to
 * the whole dimension otherwise: an over-approximation is always a correct
 * region, an under-approximation never is.  A nested block contributes its
 * own regions with its iter vars replaced by their bindings; let vars are
 * replaced by their values, since neither is visible outside the block.
 *
 * Each list is filled only when it is empty, so a block that states its
 * reads keeps them and gets only its writes inferred. */
#include "ir/verify.h"

#include <stdlib.h>
#include <string.h>

static char on_mark;
#define ON ((void *)&on_mark)

typedef struct Span {
  MlcExpr *min;    /* NULL: the whole dimension */
  MlcExpr *ext;    /* the extent expression, when one was given (regions) */
  int64_t len;     /* constant extent, -1 when not constant */
  MlcDType t;      /* dtype of the index */
  bool hull;       /* [base + lo, base + lo + len) describes the span */
  MlcExpr *base;   /* block-invariant part; NULL for 0 */
  int64_t lo;
} Span;

typedef struct Touch {
  MlcBuffer *buf;
  MLC_VEC(Span) spans;   /* buf->ndim spans per access, accesses in order */
  bool in_init, in_body; /* where the stores were (writes only) */
} Touch;

typedef MLC_VEC(Touch) TouchList;

typedef struct Inf {
  MlcCtx *ctx;
  MlcMap loops;   /* var of a loop nested in the block -> its loop, NULL after */
  MlcMap lets;    /* let var -> its value (substituted), NULL after */
  MlcMap local;   /* buffers allocated inside the block */
  TouchList reads, writes;
  bool in_init;
  bool ok;        /* false once a builder failed (its error is recorded) */
} Inf;

/* ---- small arithmetic, checked ----------------------------------------- */

static bool add_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }
static bool sub_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_sub_overflow(a, b, r); }
static bool mul_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }

static bool int_fits(MlcDType t, int64_t v) {
  if (t.code == MLC_TC_INT && t.bits < 64)
    return v >= -(INT64_C(1) << (t.bits - 1)) && v < (INT64_C(1) << (t.bits - 1));
  if (t.code == MLC_TC_UINT && t.bits < 64) return v >= 0 && v < (INT64_C(1) << t.bits);
  return mlc_dtype_is_int(t) && (t.code == MLC_TC_INT || v >= 0);
}

/* NULL (without an error) when v does not fit: the caller widens instead */
static MlcExpr *mk_int(Inf *c, MlcDType t, int64_t v) {
  return int_fits(t, v) ? mlc_e_int(c->ctx, t, v) : NULL;
}

static MlcExpr *mk_bin(Inf *c, MlcBinOp op, MlcExpr *a, MlcExpr *b) {
  MlcExpr *r = a && b ? mlc_e_bin(c->ctx, op, a, b) : NULL;
  if (a && b && !r) c->ok = false;
  return r;
}

/* base + off; NULL when off does not fit the dtype */
static MlcExpr *offset(Inf *c, MlcExpr *base, int64_t off, MlcDType t) {
  if (!base) return mk_int(c, t, off);
  if (off == 0) return base;
  if (off < 0 && off != INT64_MIN) return mk_bin(c, MLC_BIN_SUB, base, mk_int(c, t, -off));
  return mk_bin(c, MLC_BIN_ADD, base, mk_int(c, t, off));
}

/* ---- expressions ------------------------------------------------------- */

/* syntactic equality; vars by identity (every var here is free or bound by
 * the same binder on both sides) */
static bool same(const MlcExpr *a, const MlcExpr *b);

static bool same_list(MlcExpr *const *a, MlcExpr *const *b, int n) {
  for (int i = 0; i < n; i++)
    if (!same(a[i], b[i])) return false;
  return true;
}

static bool same(const MlcExpr *a, const MlcExpr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || !mlc_dtype_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
  case MLC_EXPR_VAR: return false;
  case MLC_EXPR_INT: return a->int_val == b->int_val;
  case MLC_EXPR_FLOAT: return memcmp(&a->float_val, &b->float_val, sizeof a->float_val) == 0;
  case MLC_EXPR_STR: return a->str_val == b->str_val;
  case MLC_EXPR_BINARY: return a->bin.op == b->bin.op && same(a->bin.a, b->bin.a) && same(a->bin.b, b->bin.b);
  case MLC_EXPR_NOT: case MLC_EXPR_NEG: case MLC_EXPR_CAST: return same(a->operand, b->operand);
  case MLC_EXPR_SELECT:
    return same(a->select.cond, b->select.cond) && same(a->select.t, b->select.t) &&
           same(a->select.f, b->select.f);
  case MLC_EXPR_LOAD:
    return a->load.buf == b->load.buf && a->load.n == b->load.n && same_list(a->load.idx, b->load.idx, a->load.n);
  case MLC_EXPR_RAMP:
    return a->ramp.lanes == b->ramp.lanes && same(a->ramp.base, b->ramp.base) &&
           same(a->ramp.stride, b->ramp.stride);
  case MLC_EXPR_BROADCAST: return a->bcast.lanes == b->bcast.lanes && same(a->bcast.value, b->bcast.value);
  case MLC_EXPR_LET:
    return a->let.var == b->let.var && same(a->let.value, b->let.value) && same(a->let.body, b->let.body);
  case MLC_EXPR_CALL:
    return a->call.op == b->call.op && a->call.n == b->call.n && same_list(a->call.args, b->call.args, a->call.n);
  }
  return false;
}

static bool not_in_map(void *map, const MlcExpr *var) { return !mlc_map_get(map, var); }

static bool mentions(const MlcMap *map, const MlcExpr *e) {
  return map->len && e && !mlc_expr_each_var(e, not_in_map, (void *)map);
}

/* e with the vars of map replaced (NULL values stand for unbound vars) */
static MlcExpr *subst(Inf *c, MlcExpr *e, const MlcMap *map) {
  if (!e || !mentions(map, e)) return e;
  MlcExpr *r = mlc_substitute_expr(c->ctx, e, map);
  if (!r) c->ok = false;
  return r;
}

/* ---- spans --------------------------------------------------------------- */

typedef struct Term { MlcExpr *e; int64_t mul; } Term;
typedef struct Lin {
  MLC_VEC(Term) fixed;   /* terms invariant in the block */
  MLC_VEC(Term) relaxed; /* loop var times a constant */
  int64_t k;             /* constant part */
} Lin;

/* e * mul added to l; false when e is not affine in the loop vars */
static bool lin_add(Inf *c, Lin *l, MlcExpr *e, int64_t mul) {
  int64_t v, m;
  if (mlc_e_is_const_int(e, &v)) return mul_ok(v, mul, &m) && add_ok(l->k, m, &l->k);
  if (!mentions(&c->loops, e)) return mlc_vec_push(&l->fixed, ((Term){e, mul})), true;
  switch (e->kind) {
  case MLC_EXPR_VAR: return mlc_vec_push(&l->relaxed, ((Term){e, mul})), true;
  case MLC_EXPR_NEG: return mul != INT64_MIN && lin_add(c, l, e->operand, -mul);
  case MLC_EXPR_BINARY:
    switch (e->bin.op) {
    case MLC_BIN_ADD: return lin_add(c, l, e->bin.a, mul) && lin_add(c, l, e->bin.b, mul);
    case MLC_BIN_SUB:
      return mul != INT64_MIN && lin_add(c, l, e->bin.a, mul) && lin_add(c, l, e->bin.b, -mul);
    case MLC_BIN_MUL:
      if (mlc_e_is_const_int(e->bin.b, &v)) return mul_ok(mul, v, &m) && lin_add(c, l, e->bin.a, m);
      if (mlc_e_is_const_int(e->bin.a, &v)) return mul_ok(mul, v, &m) && lin_add(c, l, e->bin.b, m);
      return false;
    default: return false;
    }
  default: return false;
  }
}

/* the fixed terms as one expression (NULL when there are none) */
static MlcExpr *sum_terms(Inf *c, const Term *ts, size_t n, MlcDType t) {
  MlcExpr *acc = NULL;
  for (size_t i = 0; i < n; i++) {
    int64_t m = ts[i].mul;
    if (m == 0) continue;
    if (m == INT64_MIN) return NULL;
    MlcExpr *x = ts[i].e;
    if (m != 1 && m != -1) x = mk_bin(c, MLC_BIN_MUL, x, mk_int(c, t, m < 0 ? -m : m));
    if (!x) return NULL;
    acc = acc ? mk_bin(c, m < 0 ? MLC_BIN_SUB : MLC_BIN_ADD, acc, x)
              : (m < 0 ? mlc_e_neg(c->ctx, x) : x);
    if (!acc) return NULL;
  }
  return acc;
}

/* [lo, hi] (inclusive) of l's relaxed part plus constant over the loops */
static bool lin_bounds(Inf *c, const Lin *l, int64_t *lo, int64_t *hi) {
  *lo = *hi = l->k;
  for (size_t i = 0; i < l->relaxed.len; i++) {
    const MlcStmt *loop = mlc_map_get(&c->loops, l->relaxed.data[i].e);
    int64_t mul = l->relaxed.data[i].mul, min, ext, last, a, b;
    if (!mlc_e_is_const_int(loop->loop.min, &min) || !mlc_e_is_const_int(loop->loop.extent, &ext) ||
        ext < 1 || !add_ok(min, ext - 1, &last) || !mul_ok(mul, min, &a) || !mul_ok(mul, last, &b))
      return false;
    if (!add_ok(*lo, a < b ? a : b, lo) || !add_ok(*hi, a < b ? b : a, hi)) return false;
  }
  return true;
}

/* A span whose index reads loop vars of the block: relax them over their
 * loops.  False when that is not simple enough (the caller widens). */
static bool relax(Inf *c, Span *s) {
  Lin l = {0};
  int64_t lo, hi, width, len;
  bool ok = lin_add(c, &l, s->min, 1) && lin_bounds(c, &l, &lo, &hi) && sub_ok(hi, lo, &width) &&
            add_ok(width, s->len, &len);
  MlcExpr *base = ok ? sum_terms(c, l.fixed.data, l.fixed.len, s->t) : NULL;
  ok = ok && (base || l.fixed.len == 0);
  mlc_vec_free(&l.fixed);
  mlc_vec_free(&l.relaxed);
  if (!ok) return false;
  s->hull = true;
  s->base = base;
  s->lo = lo;
  s->len = len;
  s->ext = NULL;
  s->min = offset(c, base, lo, s->t);
  return s->min != NULL;
}

/* split a block-invariant index into base + constant, for hulls */
static void peel(Span *s) {
  MlcExpr *e = s->min;
  int64_t v;
  s->hull = true;
  s->base = e;
  s->lo = 0;
  if (mlc_e_is_const_int(e, &v)) {
    s->base = NULL;
    s->lo = v;
  } else if (e->kind == MLC_EXPR_BINARY && e->bin.op == MLC_BIN_ADD && mlc_e_is_const_int(e->bin.b, &v)) {
    s->base = e->bin.a;
    s->lo = v;
  } else if (e->kind == MLC_EXPR_BINARY && e->bin.op == MLC_BIN_ADD && mlc_e_is_const_int(e->bin.a, &v)) {
    s->base = e->bin.b;
    s->lo = v;
  } else if (e->kind == MLC_EXPR_BINARY && e->bin.op == MLC_BIN_SUB &&
             mlc_e_is_const_int(e->bin.b, &v) && v != INT64_MIN) {
    s->base = e->bin.a;
    s->lo = -v;
  }
}

/* a vector index covers base .. base + (lanes-1)*stride */
static bool unvector(Span *s) {
  MlcExpr *e = s->min;
  int64_t stride, len;
  if (e->kind == MLC_EXPR_BROADCAST) {
    s->min = e->bcast.value;
  } else if (e->kind == MLC_EXPR_RAMP) {
    if (!mlc_e_is_const_int(e->ramp.stride, &stride) || stride < 0 ||
        !mul_ok(stride, e->ramp.lanes - 1, &len) || !add_ok(len, 1, &len))
      return false;
    s->min = e->ramp.base;
    s->len = len;
  }
  s->t = mlc_dtype_elem(s->min->dtype);
  return s->min->dtype.lanes == 1;
}

/* min/ext as accessed (ext NULL: a point index) -> its span */
static Span span_of(Inf *c, MlcExpr *min, MlcExpr *ext) {
  Span s = {.min = subst(c, min, &c->lets), .ext = subst(c, ext, &c->lets), .len = 1};
  if (!s.min || (ext && !s.ext)) return (Span){0};
  if (ext && !mlc_e_is_const_int(s.ext, &s.len)) s.len = -1;
  if (!ext && !unvector(&s)) return (Span){0};
  if (ext) s.t = s.min->dtype;
  if (mentions(&c->loops, s.ext) || (s.len < 0 && mentions(&c->loops, s.min))) return (Span){0};
  if (mentions(&c->loops, s.min)) return relax(c, &s) ? s : (Span){0};
  if (s.len >= 0) peel(&s);
  return s;
}

/* ---- recording ----------------------------------------------------------- */

static Touch *touch_of(TouchList *list, MlcBuffer *buf) {
  for (size_t i = 0; i < list->len; i++)
    if (list->data[i].buf == buf) return &list->data[i];
  mlc_vec_push(list, ((Touch){.buf = buf}));
  return &list->data[list->len - 1];
}

static void mark_store(Inf *c, Touch *t, bool write) {
  if (!write) return;
  if (c->in_init) t->in_init = true;
  else t->in_body = true;
}

static void record_point(Inf *c, TouchList *list, MlcBuffer *buf, MlcExpr **idx, int n, bool write) {
  if (mlc_map_get(&c->local, buf)) return;
  Touch *t = touch_of(list, buf);
  for (int d = 0; d < buf->ndim; d++)
    mlc_vec_push(&t->spans, n == buf->ndim ? span_of(c, idx[d], NULL) : (Span){0});
  mark_store(c, t, write);
}

/* a nested block's region, its iter vars replaced by their bindings */
static void record_region(Inf *c, TouchList *list, const MlcBufferRegion *r, const MlcMap *bind, bool write) {
  if (mlc_map_get(&c->local, r->buf)) return;
  Touch *t = touch_of(list, r->buf);
  for (int d = 0; d < r->buf->ndim; d++) {
    MlcExpr *min = subst(c, r->ranges[d].min, bind), *ext = subst(c, r->ranges[d].extent, bind);
    mlc_vec_push(&t->spans, min && ext ? span_of(c, min, ext) : (Span){0});
  }
  mark_store(c, t, write);
}

/* ---- the walk ------------------------------------------------------------ */

static void visit_expr(Inf *c, MlcExpr *e);
static bool visit_expr_cb(void *c, const MlcExpr *e) {
  visit_expr(c, (MlcExpr *)e);
  return true;
}

static void visit_expr(Inf *c, MlcExpr *e) {
  if (!e) return;
  if (e->kind == MLC_EXPR_LOAD) record_point(c, &c->reads, e->load.buf, e->load.idx, e->load.n, false);
  if (e->kind != MLC_EXPR_LET) {
    mlc_expr_each_child(e, visit_expr_cb, c);
    return;
  }
  visit_expr(c, e->let.value);
  mlc_map_put(&c->lets, e->let.var, subst(c, e->let.value, &c->lets));
  visit_expr(c, e->let.body);
  mlc_map_put(&c->lets, e->let.var, NULL);
}

static void visit_stmt(Inf *c, MlcStmt *s);

static void visit_nested_block(Inf *c, MlcStmt *s) {
  MlcBlock *b = s->realize.block;
  MlcMap bind = {0};
  for (int i = 0; i < s->realize.n && i < b->n_iters; i++) {
    visit_expr(c, s->realize.values[i]);
    mlc_map_put(&bind, b->iters[i].var, subst(c, s->realize.values[i], &c->lets));
  }
  visit_expr(c, s->realize.pred);
  for (int i = 0; i < b->n_allocs; i++) mlc_map_put(&c->local, b->allocs[i], ON);
  for (int i = 0; i < b->n_reads; i++) record_region(c, &c->reads, &b->reads[i], &bind, false);
  for (int i = 0; i < b->n_writes; i++) record_region(c, &c->writes, &b->writes[i], &bind, true);
  mlc_map_free(&bind);
}

static void visit_stmt(Inf *c, MlcStmt *s) {
  if (!s) return;
  switch (s->kind) {
  case MLC_STMT_STORE:
    for (int i = 0; i < s->store.n; i++) visit_expr(c, s->store.idx[i]);
    visit_expr(c, s->store.value);
    record_point(c, &c->writes, s->store.buf, s->store.idx, s->store.n, true);
    return;
  case MLC_STMT_FOR:
    visit_expr(c, s->loop.min);
    visit_expr(c, s->loop.extent);
    mlc_map_put(&c->loops, s->loop.var, s);
    visit_stmt(c, s->loop.body);
    mlc_map_put(&c->loops, s->loop.var, NULL);
    return;
  case MLC_STMT_BLOCK_REALIZE: visit_nested_block(c, s); return;
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++) visit_stmt(c, s->seq.items[i]);
    return;
  case MLC_STMT_IF:
    visit_expr(c, s->if_.cond);
    visit_stmt(c, s->if_.then_s);
    visit_stmt(c, s->if_.else_s);
    return;
  case MLC_STMT_LET:
    visit_expr(c, s->let.value);
    mlc_map_put(&c->lets, s->let.var, subst(c, s->let.value, &c->lets));
    visit_stmt(c, s->let.body);
    mlc_map_put(&c->lets, s->let.var, NULL);
    return;
  case MLC_STMT_ALLOCATE:
    mlc_map_put(&c->local, s->alloc.buf, ON);
    visit_stmt(c, s->alloc.body);
    return;
  case MLC_STMT_EVALUATE: visit_expr(c, s->eval); return;
  }
}

/* ---- combining ----------------------------------------------------------- */

static bool span_same(const Span *a, const Span *b) {
  if (!same(a->min, b->min)) return false;
  if (a->len >= 0 || b->len >= 0) return a->len == b->len;
  return same(a->ext, b->ext);
}

static MlcExpr *span_extent(Inf *c, const Span *s) {
  return s->ext && s->len < 0 ? s->ext : mk_int(c, s->t, s->len);
}

/* the range of dimension d over all accesses; false: the whole dimension */
static bool combine(Inf *c, const Touch *t, int d, MlcRange *out) {
  size_t nd = (size_t)t->buf->ndim, na = t->spans.len / nd;
  const Span *s0 = &t->spans.data[d];
  bool all_same = true, hull = true;
  int64_t lo = INT64_MAX, hi = INT64_MIN, end;
  for (size_t k = 0; k < na; k++) {
    const Span *s = &t->spans.data[k * nd + (size_t)d];
    if (!s->min) return false;
    all_same = all_same && span_same(s, s0);
    hull = hull && s->hull && mlc_dtype_eq(s->t, s0->t) && same(s->base, s0->base) &&
           add_ok(s->lo, s->len, &end);
    if (hull) {
      lo = s->lo < lo ? s->lo : lo;
      hi = end > hi ? end : hi;
    }
  }
  if (all_same) *out = (MlcRange){s0->min, span_extent(c, s0)};
  else if (hull && sub_ok(hi, lo, &end)) *out = (MlcRange){offset(c, s0->base, lo, s0->t), mk_int(c, s0->t, end)};
  else return false;
  return out->min && out->extent;
}

static bool reduced_into(const TouchList *writes, const MlcBuffer *buf) {
  for (size_t i = 0; i < writes->len; i++)
    if (writes->data[i].buf == buf) return writes->data[i].in_init && writes->data[i].in_body;
  return false;
}

static MlcBufferRegion *regions_of(Inf *c, const TouchList *list, const TouchList *skip, int *n) {
  MlcBufferRegion *rs = mlc_arena_array(&c->ctx->arena, list->len ? list->len : 1, sizeof *rs);
  *n = 0;
  for (size_t i = 0; i < list->len; i++) {
    const Touch *t = &list->data[i];
    if (skip && reduced_into(skip, t->buf)) continue;
    MlcBufferRegion *r = &rs[(*n)++];
    r->buf = t->buf;
    r->ranges = mlc_arena_array(&c->ctx->arena, (size_t)(t->buf->ndim > 0 ? t->buf->ndim : 1), sizeof *r->ranges);
    for (int d = 0; d < t->buf->ndim; d++)
      if (!combine(c, t, d, &r->ranges[d]))
        r->ranges[d] = (MlcRange){mk_int(c, t->buf->shape[d]->dtype, 0), t->buf->shape[d]};
  }
  return *n ? rs : NULL;
}

static void free_touches(TouchList *list) {
  for (size_t i = 0; i < list->len; i++) mlc_vec_free(&list->data[i].spans);
  mlc_vec_free(list);
}

bool mlc_block_infer_regions(MlcCtx *ctx, MlcBlock *block) {
  if (!block || !block->body) return false;
  Inf c = {.ctx = ctx, .ok = true};
  for (int i = 0; i < block->n_allocs; i++) mlc_map_put(&c.local, block->allocs[i], ON);
  if (block->init) {
    c.in_init = true;
    visit_stmt(&c, block->init);
    c.in_init = false;
  }
  visit_stmt(&c, block->body);
  if (c.ok && block->n_reads == 0) block->reads = regions_of(&c, &c.reads, &c.writes, &block->n_reads);
  if (c.ok && block->n_writes == 0) block->writes = regions_of(&c, &c.writes, NULL, &block->n_writes);
  free_touches(&c.reads);
  free_touches(&c.writes);
  mlc_map_free(&c.loops);
  mlc_map_free(&c.lets);
  mlc_map_free(&c.local);
  return c.ok;
}
