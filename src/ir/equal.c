/* equal.c - structural equality of IR: alpha-equivalence, plus the first
 * difference found, for `mlcc equal` and for test failures worth reading.
 *
 * Both sides are walked in lockstep.  A definition site met on both sides (a
 * param with its buffer and the buffer's shape vars, a loop or iter var, a
 * let var, an allocated buffer, a graph param or binding var, a symbolic dim
 * first seen in a graph signature) binds the pair, in both directions, for
 * the extent of its scope; a later use must find its partner.  Free vars and
 * buffers (never bound) compare by pointer.  One engine serves the boolean
 * answer and the diff: the readable path is only built when a diff was asked
 * for, and the first mismatch stops the walk, so what is reported is the
 * difference closest to the function's start in walk order.  hash.c walks in
 * the same order, which keeps the hash in agreement. */
#include "ir/equal_internal.h"

#include <math.h>
#include <stdio.h>

typedef struct Eq {
  MlcMap ab, ba;   /* bound pairs: left -> right and right -> left */
  ScopeLog log;
  bool implicit;   /* in a signature: the first sight of a var defines it */
  MlcDiff *diff;   /* NULL when only the answer is wanted */
  MlcStrBuf path;  /* where the walk is, kept only when diff is set */
} Eq;

static bool eq_expr(Eq *q, const MlcExpr *a, const MlcExpr *b);
static bool eq_stmt(Eq *q, const MlcStmt *a, const MlcStmt *b);
static bool eq_gexpr(Eq *q, const MlcGExpr *a, const MlcGExpr *b);
static bool eq_sinfo(Eq *q, const MlcSInfo *a, const MlcSInfo *b);

/* ---- the path and the recorded difference --------------------------------- */

/* Appends one segment ("body", "for(i)", "[2]") and returns the mark to
 * truncate back to; indexing segments attach without a dot. */
static size_t path_push(Eq *q, const char *fmt, ...) MLC_PRINTF(2, 3);
static size_t path_push(Eq *q, const char *fmt, ...) {
  size_t mark = q->path.len;
  if (!q->diff) return mark;
  if (q->path.len && fmt[0] != '[') mlc_sb_putc(&q->path, '.');
  va_list ap;
  va_start(ap, fmt);
  mlc_sb_vprintf(&q->path, fmt, ap);
  va_end(ap);
  return mark;
}

static void path_pop(Eq *q, size_t mark) {
  q->path.len = mark;
  if (q->path.data) q->path.data[mark] = 0;
}

/* Records the first difference only; like every fail_* it returns false, so
 * a mismatch reads `return fail_...(...)`. */
static bool fail_nodes(Eq *q, MlcDiffKind kind, const void *a, const void *b) {
  MlcDiff *d = q->diff;
  if (!d || d->kind != MLC_DIFF_NONE) return false;
  d->kind = kind;
  d->a = a;
  d->b = b;
  mlc_sb_puts(&d->path, mlc_sb_cstr(&q->path));
  return false;
}

static bool fail_text(Eq *q, const char *a, const char *b) {
  if (!q->diff || q->diff->kind != MLC_DIFF_NONE) return false;
  fail_nodes(q, MLC_DIFF_TEXT, NULL, NULL);
  mlc_sb_puts(&q->diff->a_text, a);
  mlc_sb_puts(&q->diff->b_text, b);
  return false;
}

static bool fail_dtype(Eq *q, MlcDType a, MlcDType b) {
  char ba[32], bb[32], ta[48], tb[48];
  snprintf(ta, sizeof ta, "dtype %s", mlc_dtype_str(a, ba));
  snprintf(tb, sizeof tb, "dtype %s", mlc_dtype_str(b, bb));
  return fail_text(q, ta, tb);
}

/* "3 params" vs "2 params" */
static bool fail_count(Eq *q, const char *what, long long a, long long b) {
  char ta[64], tb[64];
  snprintf(ta, sizeof ta, "%lld %s", a, what);
  snprintf(tb, sizeof tb, "%lld %s", b, what);
  return fail_text(q, ta, tb);
}

/* "align 64" vs "align 0" */
static bool fail_int(Eq *q, const char *what, long long a, long long b) {
  char ta[64], tb[64];
  snprintf(ta, sizeof ta, "%s %lld", what, a);
  snprintf(tb, sizeof tb, "%s %lld", what, b);
  return fail_text(q, ta, tb);
}

/* block "Y" vs block "Z"; a missing name reads as none */
static bool fail_name(Eq *q, const char *what, const char *a, const char *b) {
  if (!q->diff) return false;
  MlcStrBuf sa = {0}, sb = {0};
  if (a) mlc_sb_printf(&sa, "%s \"%s\"", what, a);
  else mlc_sb_printf(&sa, "%s none", what);
  if (b) mlc_sb_printf(&sb, "%s \"%s\"", what, b);
  else mlc_sb_printf(&sb, "%s none", what);
  fail_text(q, mlc_sb_cstr(&sa), mlc_sb_cstr(&sb));
  mlc_vec_free(&sa);
  mlc_vec_free(&sb);
  return false;
}

static bool fail_presence(Eq *q, const void *a, const void *b) {
  return fail_text(q, a ? "present" : "absent", b ? "present" : "absent");
}

static const char *for_kind_name(MlcForKind k) {
  switch (k) {
  case MLC_FOR_SERIAL: return "serial";
  case MLC_FOR_PARALLEL: return "parallel";
  case MLC_FOR_VECTORIZED: return "vectorized";
  case MLC_FOR_UNROLLED: return "unrolled";
  case MLC_FOR_THREAD: return "thread_binding";
  }
  return "?";
}

static const char *iter_kind_name(MlcIterKind k) {
  switch (k) {
  case MLC_ITER_SPATIAL: return "spatial";
  case MLC_ITER_REDUCE: return "reduce";
  case MLC_ITER_OPAQUE: return "opaque";
  }
  return "?";
}

/* ---- binding ---------------------------------------------------------------- */

/* Binds a to b unless either is already bound; an existing consistent pair
 * is accepted (a shape var bound by a buffer and then met as a param). */
static bool bind_pair(Eq *q, const void *a, const void *b) {
  const void *ma = mlc_map_get(&q->ab, a), *mb = mlc_map_get(&q->ba, b);
  if (ma == b && mb == a) return true;
  if (ma || mb) return false;
  scope_bind(&q->log, &q->ab, a, (void *)b);
  scope_bind(&q->log, &q->ba, b, (void *)a);
  return true;
}

static bool def_var(Eq *q, const MlcExpr *a, const MlcExpr *b) {
  if (a->kind != MLC_EXPR_VAR || b->kind != MLC_EXPR_VAR) return fail_nodes(q, MLC_DIFF_EXPR, a, b);
  if (!mlc_dtype_eq(a->dtype, b->dtype)) return fail_dtype(q, a->dtype, b->dtype);
  return bind_pair(q, a, b) || fail_nodes(q, MLC_DIFF_EXPR, a, b);
}

static bool eq_var_use(Eq *q, const MlcExpr *a, const MlcExpr *b) {
  const void *ma = mlc_map_get(&q->ab, a), *mb = mlc_map_get(&q->ba, b);
  if (ma == b && mb == a) return true;
  if (!ma && !mb && q->implicit) return bind_pair(q, a, b);
  if (!ma && !mb && a == b) return true;
  return fail_nodes(q, MLC_DIFF_EXPR, a, b);
}

static bool eq_buffer_use(Eq *q, const MlcBuffer *a, const MlcBuffer *b) {
  const void *ma = mlc_map_get(&q->ab, a), *mb = mlc_map_get(&q->ba, b);
  if ((ma == b && mb == a) || (!ma && !mb && a == b)) return true;
  return fail_name(q, "buffer", a->name, b->name);
}

/* ---- expressions ------------------------------------------------------------ */

static bool eq_opt_expr(Eq *q, const MlcExpr *a, const MlcExpr *b) {
  if (!a || !b) return a == b || fail_presence(q, a, b);
  return eq_expr(q, a, b);
}

static bool at_expr(Eq *q, const char *seg, const MlcExpr *a, const MlcExpr *b) {
  size_t mark = path_push(q, "%s", seg);
  bool ok = eq_opt_expr(q, a, b);
  path_pop(q, mark);
  return ok;
}

/* lists of exprs: seg names an element ("index" -> "index[1]"), noun counts */
static bool eq_exprs(Eq *q, const char *seg, const char *noun, MlcExpr *const *a, int na,
                     MlcExpr *const *b, int nb) {
  if (na != nb) return fail_count(q, noun, na, nb);
  for (int i = 0; i < na; i++) {
    size_t mark = path_push(q, "%s[%d]", seg, i);
    bool ok = eq_opt_expr(q, a[i], b[i]);
    path_pop(q, mark);
    if (!ok) return false;
  }
  return true;
}

static bool eq_let_expr(Eq *q, const MlcExpr *a, const MlcExpr *b) {
  if (!at_expr(q, "value", a->let.value, b->let.value)) return false;
  size_t scope = q->log.len;
  bool ok = def_var(q, a->let.var, b->let.var) && at_expr(q, "body", a->let.body, b->let.body);
  scope_unwind(&q->log, scope);
  return ok;
}

static bool eq_expr(Eq *q, const MlcExpr *a, const MlcExpr *b) {
  if (a->kind != b->kind) return fail_nodes(q, MLC_DIFF_EXPR, a, b);
  if (!mlc_dtype_eq(a->dtype, b->dtype)) return fail_dtype(q, a->dtype, b->dtype);
  switch (a->kind) {
  case MLC_EXPR_VAR: return eq_var_use(q, a, b);
  case MLC_EXPR_INT: return a->int_val == b->int_val || fail_nodes(q, MLC_DIFF_EXPR, a, b);
  case MLC_EXPR_FLOAT: /* bytes: -0.0 and 0.0 differ; every NaN equals every NaN
                        * (the text has one "nan": sign and payload do not print) */
    return memcmp(&a->float_val, &b->float_val, sizeof a->float_val) == 0 ||
           (isnan(a->float_val) && isnan(b->float_val)) || fail_nodes(q, MLC_DIFF_EXPR, a, b);
  case MLC_EXPR_STR: return names_same(a->str_val, b->str_val) || fail_nodes(q, MLC_DIFF_EXPR, a, b);
  case MLC_EXPR_BINARY:
    if (a->bin.op != b->bin.op) return fail_nodes(q, MLC_DIFF_EXPR, a, b);
    return at_expr(q, "a", a->bin.a, b->bin.a) && at_expr(q, "b", a->bin.b, b->bin.b);
  case MLC_EXPR_NOT:
  case MLC_EXPR_NEG:
  case MLC_EXPR_CAST: return at_expr(q, "operand", a->operand, b->operand);
  case MLC_EXPR_SELECT:
    return at_expr(q, "cond", a->select.cond, b->select.cond) &&
           at_expr(q, "true_value", a->select.t, b->select.t) &&
           at_expr(q, "false_value", a->select.f, b->select.f);
  case MLC_EXPR_LOAD:
    return eq_buffer_use(q, a->load.buf, b->load.buf) &&
           eq_exprs(q, "index", "indices", a->load.idx, a->load.n, b->load.idx, b->load.n);
  case MLC_EXPR_RAMP:
    if (a->ramp.lanes != b->ramp.lanes) return fail_int(q, "lanes", a->ramp.lanes, b->ramp.lanes);
    return at_expr(q, "base", a->ramp.base, b->ramp.base) &&
           at_expr(q, "stride", a->ramp.stride, b->ramp.stride);
  case MLC_EXPR_BROADCAST:
    if (a->bcast.lanes != b->bcast.lanes) return fail_int(q, "lanes", a->bcast.lanes, b->bcast.lanes);
    return at_expr(q, "value", a->bcast.value, b->bcast.value);
  case MLC_EXPR_LET: return eq_let_expr(q, a, b);
  case MLC_EXPR_CALL:
    if (a->call.op != b->call.op) return fail_nodes(q, MLC_DIFF_EXPR, a, b);
    return eq_exprs(q, "args", "args", a->call.args, a->call.n, b->call.args, b->call.n);
  }
  return false;
}

/* ---- attributes --------------------------------------------------------------- */

static void describe_value(MlcStrBuf *sb, const MlcAttrValue *v) {
  char buf[32];
  switch (v->kind) {
  case MLC_ATTR_NONE: mlc_sb_puts(sb, "None"); return;
  case MLC_ATTR_BOOL: mlc_sb_puts(sb, v->b ? "True" : "False"); return;
  case MLC_ATTR_INT: mlc_sb_printf(sb, "%lld", (long long)v->i); return;
  case MLC_ATTR_FLOAT: mlc_sb_printf(sb, "%.17g", v->f); return;
  case MLC_ATTR_STR: mlc_sb_printf(sb, "\"%s\"", v->s ? v->s : ""); return;
  case MLC_ATTR_LIST: mlc_sb_printf(sb, "a list of %d", v->list.n); return;
  case MLC_ATTR_EXPR: mlc_sb_puts(sb, "an expression"); return;
  case MLC_ATTR_DTYPE: mlc_sb_printf(sb, "dtype %s", mlc_dtype_str(v->dtype, buf)); return;
  }
}

static bool fail_values(Eq *q, const MlcAttrValue *a, const MlcAttrValue *b) {
  if (!q->diff) return false;
  MlcStrBuf sa = {0}, sb = {0};
  describe_value(&sa, a);
  describe_value(&sb, b);
  fail_text(q, mlc_sb_cstr(&sa), mlc_sb_cstr(&sb));
  mlc_vec_free(&sa);
  mlc_vec_free(&sb);
  return false;
}

static bool eq_value(Eq *q, const MlcAttrValue *a, const MlcAttrValue *b) {
  if (a->kind != b->kind) return fail_values(q, a, b);
  switch (a->kind) {
  case MLC_ATTR_NONE: return true;
  case MLC_ATTR_BOOL: return a->b == b->b || fail_values(q, a, b);
  case MLC_ATTR_INT: return a->i == b->i || fail_values(q, a, b);
  case MLC_ATTR_FLOAT: return memcmp(&a->f, &b->f, sizeof a->f) == 0 || fail_values(q, a, b);
  case MLC_ATTR_STR: return names_same(a->s, b->s) || fail_values(q, a, b);
  case MLC_ATTR_DTYPE: return mlc_dtype_eq(a->dtype, b->dtype) || fail_values(q, a, b);
  case MLC_ATTR_EXPR: return eq_opt_expr(q, a->expr, b->expr);
  case MLC_ATTR_LIST:
    if (a->list.n != b->list.n) return fail_count(q, "items", a->list.n, b->list.n);
    for (int i = 0; i < a->list.n; i++) {
      size_t mark = path_push(q, "[%d]", i);
      bool ok = eq_value(q, &a->list.items[i], &b->list.items[i]);
      path_pop(q, mark);
      if (!ok) return false;
    }
    return true;
  }
  return false;
}

static bool fail_missing_attr(Eq *q, const MlcAttr *present, bool present_on_left) {
  if (!q->diff) return false;
  MlcStrBuf here = {0}, gone = {0};
  mlc_sb_printf(&here, "attr \"%s\" = ", present->key);
  describe_value(&here, &present->val);
  mlc_sb_printf(&gone, "attr \"%s\" missing", present->key);
  if (present_on_left) fail_text(q, mlc_sb_cstr(&here), mlc_sb_cstr(&gone));
  else fail_text(q, mlc_sb_cstr(&gone), mlc_sb_cstr(&here));
  mlc_vec_free(&here);
  mlc_vec_free(&gone);
  return false;
}

/* Attributes are a set of keys: order of writing does not matter.  The first
 * pass compares values key by key, the second finds keys only b has. */
static bool eq_attrs(Eq *q, const char *seg, MlcAttrs a, MlcAttrs b) {
  size_t mark = path_push(q, "%s", seg);
  bool ok = true;
  for (int i = 0; ok && i < a.n; i++) {
    const MlcAttr *other = attrs_find(b, a.items[i].key);
    if (!other) {
      ok = fail_missing_attr(q, &a.items[i], true);
      break;
    }
    size_t m2 = path_push(q, "[\"%s\"]", a.items[i].key);
    ok = eq_value(q, &a.items[i].val, &other->val);
    path_pop(q, m2);
  }
  for (int i = 0; ok && i < b.n; i++)
    if (!attrs_find(a, b.items[i].key)) ok = fail_missing_attr(q, &b.items[i], false);
  path_pop(q, mark);
  return ok;
}

/* ---- buffers and regions ------------------------------------------------------ */

static bool def_buffer(Eq *q, const MlcBuffer *a, const MlcBuffer *b) {
  if (!mlc_dtype_eq(a->dtype, b->dtype)) return fail_dtype(q, a->dtype, b->dtype);
  if (a->ndim != b->ndim) return fail_count(q, "dims", a->ndim, b->ndim);
  if (!names_same(a->scope, b->scope)) return fail_name(q, "scope", a->scope, b->scope);
  if (a->align != b->align) return fail_int(q, "align", a->align, b->align);
  if (a->offset_factor != b->offset_factor)
    return fail_int(q, "offset_factor", a->offset_factor, b->offset_factor);
  if (!eq_exprs(q, "shape", "dims", a->shape, a->ndim, b->shape, b->ndim)) return false;
  if (!a->strides != !b->strides) {
    size_t mark = path_push(q, "strides");
    fail_presence(q, a->strides, b->strides);
    path_pop(q, mark);
    return false;
  }
  if (a->strides && !eq_exprs(q, "strides", "dims", a->strides, a->ndim, b->strides, b->ndim))
    return false;
  if (!at_expr(q, "elem_offset", a->elem_offset, b->elem_offset)) return false;
  return bind_pair(q, a, b) || fail_name(q, "buffer", a->name, b->name);
}

static bool eq_region(Eq *q, const MlcBufferRegion *a, const MlcBufferRegion *b) {
  if (!eq_buffer_use(q, a->buf, b->buf)) return false;
  for (int d = 0; d < a->buf->ndim; d++) {
    size_t mark = path_push(q, "ranges[%d]", d);
    bool ok = at_expr(q, "min", a->ranges[d].min, b->ranges[d].min) &&
              at_expr(q, "extent", a->ranges[d].extent, b->ranges[d].extent);
    path_pop(q, mark);
    if (!ok) return false;
  }
  return true;
}

static bool eq_regions(Eq *q, const char *seg, const MlcBufferRegion *a, int na,
                       const MlcBufferRegion *b, int nb) {
  if (na != nb) {
    size_t mark = path_push(q, "%s", seg);
    fail_count(q, "regions", na, nb);
    path_pop(q, mark);
    return false;
  }
  for (int i = 0; i < na; i++) {
    size_t mark = path_push(q, "%s[%d]", seg, i);
    bool ok = eq_region(q, &a[i], &b[i]);
    path_pop(q, mark);
    if (!ok) return false;
  }
  return true;
}

/* ---- statements ---------------------------------------------------------------- */

static bool at_stmt(Eq *q, const char *seg, const MlcStmt *a, const MlcStmt *b) {
  size_t mark = path_push(q, "%s", seg);
  bool ok = (!a || !b) ? (a == b || fail_presence(q, a, b)) : eq_stmt(q, a, b);
  path_pop(q, mark);
  return ok;
}

static bool eq_iter(Eq *q, const MlcIterVar *a, const MlcIterVar *b) {
  if (a->kind != b->kind) return fail_text(q, iter_kind_name(a->kind), iter_kind_name(b->kind));
  return at_expr(q, "min", a->dom.min, b->dom.min) &&
         at_expr(q, "extent", a->dom.extent, b->dom.extent) && def_var(q, a->var, b->var);
}

static bool eq_block_defs(Eq *q, const MlcBlock *a, const MlcBlock *b) {
  if (a->n_iters != b->n_iters) return fail_count(q, "iter vars", a->n_iters, b->n_iters);
  for (int i = 0; i < a->n_iters; i++) {
    size_t mark = path_push(q, "iters[%d]", i);
    bool ok = eq_iter(q, &a->iters[i], &b->iters[i]);
    path_pop(q, mark);
    if (!ok) return false;
  }
  if (a->n_allocs != b->n_allocs) return fail_count(q, "allocated buffers", a->n_allocs, b->n_allocs);
  for (int i = 0; i < a->n_allocs; i++) {
    size_t mark = path_push(q, "allocs[%d]", i);
    bool ok = def_buffer(q, a->allocs[i], b->allocs[i]);
    path_pop(q, mark);
    if (!ok) return false;
  }
  return true;
}

static bool eq_block(Eq *q, const MlcBlock *a, const MlcBlock *b) {
  size_t scope = q->log.len;
  bool ok = eq_block_defs(q, a, b) &&
            eq_regions(q, "reads", a->reads, a->n_reads, b->reads, b->n_reads) &&
            eq_regions(q, "writes", a->writes, a->n_writes, b->writes, b->n_writes) &&
            at_stmt(q, "init", a->init, b->init) &&
            eq_attrs(q, "annotations", a->annotations, b->annotations) &&
            at_stmt(q, "body", a->body, b->body);
  scope_unwind(&q->log, scope);
  return ok;
}

static bool eq_realize(Eq *q, const MlcStmt *a, const MlcStmt *b) {
  const MlcBlock *ba = a->realize.block, *bb = b->realize.block;
  if (!names_same(ba->name, bb->name)) return fail_name(q, "block", ba->name, bb->name);
  return eq_exprs(q, "iter_values", "bindings", a->realize.values, a->realize.n, b->realize.values,
                  b->realize.n) &&
         at_expr(q, "predicate", a->realize.pred, b->realize.pred) && eq_block(q, ba, bb);
}

static bool eq_for(Eq *q, const MlcStmt *a, const MlcStmt *b) {
  if (a->loop.kind != b->loop.kind) {
    char ta[48], tb[48];
    snprintf(ta, sizeof ta, "kind %s", for_kind_name(a->loop.kind));
    snprintf(tb, sizeof tb, "kind %s", for_kind_name(b->loop.kind));
    return fail_text(q, ta, tb);
  }
  if (!names_same(a->loop.thread, b->loop.thread))
    return fail_name(q, "thread", a->loop.thread, b->loop.thread);
  if (!at_expr(q, "min", a->loop.min, b->loop.min) ||
      !at_expr(q, "extent", a->loop.extent, b->loop.extent) ||
      !eq_attrs(q, "annotations", a->loop.annotations, b->loop.annotations))
    return false;
  size_t scope = q->log.len;
  bool ok = def_var(q, a->loop.var, b->loop.var) && at_stmt(q, "body", a->loop.body, b->loop.body);
  scope_unwind(&q->log, scope);
  return ok;
}

static bool eq_seq(Eq *q, const MlcStmt *a, const MlcStmt *b) {
  if (a->seq.n != b->seq.n) return fail_count(q, "statements", a->seq.n, b->seq.n);
  for (int i = 0; i < a->seq.n; i++) {
    size_t mark = path_push(q, "[%d]", i);
    bool ok = eq_stmt(q, a->seq.items[i], b->seq.items[i]);
    path_pop(q, mark);
    if (!ok) return false;
  }
  return true;
}

static bool eq_let_stmt(Eq *q, const MlcStmt *a, const MlcStmt *b) {
  if (!at_expr(q, "value", a->let.value, b->let.value)) return false;
  size_t scope = q->log.len;
  bool ok = def_var(q, a->let.var, b->let.var) && at_stmt(q, "body", a->let.body, b->let.body);
  scope_unwind(&q->log, scope);
  return ok;
}

static bool eq_allocate(Eq *q, const MlcStmt *a, const MlcStmt *b) {
  size_t scope = q->log.len;
  size_t mark = path_push(q, "buffer");
  bool ok = def_buffer(q, a->alloc.buf, b->alloc.buf);
  path_pop(q, mark);
  ok = ok && at_stmt(q, "body", a->alloc.body, b->alloc.body);
  scope_unwind(&q->log, scope);
  return ok;
}

/* the segment naming a statement in a path: store, for(i), block("Y") ... */
static size_t push_stmt_segment(Eq *q, const MlcStmt *s) {
  switch (s->kind) {
  case MLC_STMT_STORE: return path_push(q, "store");
  case MLC_STMT_FOR: return path_push(q, "for(%s)", s->loop.var->var.name);
  case MLC_STMT_BLOCK_REALIZE: return path_push(q, "block(\"%s\")", s->realize.block->name);
  case MLC_STMT_SEQ: return path_push(q, "seq");
  case MLC_STMT_IF: return path_push(q, "if");
  case MLC_STMT_LET: return path_push(q, "let(%s)", s->let.var->var.name);
  case MLC_STMT_ALLOCATE: return path_push(q, "allocate(%s)", s->alloc.buf->name);
  case MLC_STMT_EVALUATE: return path_push(q, "evaluate");
  }
  return q->path.len;
}

static bool eq_stmt_fields(Eq *q, const MlcStmt *a, const MlcStmt *b) {
  switch (a->kind) {
  case MLC_STMT_STORE:
    return eq_buffer_use(q, a->store.buf, b->store.buf) &&
           eq_exprs(q, "index", "indices", a->store.idx, a->store.n, b->store.idx, b->store.n) &&
           at_expr(q, "value", a->store.value, b->store.value);
  case MLC_STMT_FOR: return eq_for(q, a, b);
  case MLC_STMT_BLOCK_REALIZE: return eq_realize(q, a, b);
  case MLC_STMT_SEQ: return eq_seq(q, a, b);
  case MLC_STMT_IF:
    return at_expr(q, "cond", a->if_.cond, b->if_.cond) &&
           at_stmt(q, "then", a->if_.then_s, b->if_.then_s) &&
           at_stmt(q, "else", a->if_.else_s, b->if_.else_s);
  case MLC_STMT_LET: return eq_let_stmt(q, a, b);
  case MLC_STMT_ALLOCATE: return eq_allocate(q, a, b);
  case MLC_STMT_EVALUATE: return at_expr(q, "value", a->eval, b->eval);
  }
  return false;
}

static bool eq_stmt(Eq *q, const MlcStmt *a, const MlcStmt *b) {
  if (a->kind != b->kind) return fail_nodes(q, MLC_DIFF_STMT, a, b);
  size_t mark = push_stmt_segment(q, a);
  bool ok = eq_stmt_fields(q, a, b);
  path_pop(q, mark);
  return ok;
}

/* ---- prim funcs ------------------------------------------------------------------ */

/* A param binds its var, its buffer and, on first sight, the vars of the
 * buffer's shape, strides and offset (the signature defines them). */
static bool eq_param_buffer(Eq *q, const MlcBuffer *a, const MlcBuffer *b) {
  size_t mark = path_push(q, "buffer");
  bool ok = (!a || !b) ? (a == b || fail_presence(q, a, b)) : def_buffer(q, a, b);
  path_pop(q, mark);
  return ok;
}

static bool eq_param(Eq *q, const MlcParam *a, const MlcParam *b) {
  q->implicit = true;
  bool ok = def_var(q, a->var, b->var) && eq_param_buffer(q, a->buf, b->buf);
  q->implicit = false;
  return ok;
}

static bool eq_prim(Eq *q, const MlcPrimFunc *a, const MlcPrimFunc *b) {
  if (!names_same(a->name, b->name)) return fail_name(q, "function", a->name, b->name);
  if (!mlc_dtype_eq(a->ret, b->ret)) {
    size_t mark = path_push(q, "ret");
    fail_dtype(q, a->ret, b->ret);
    path_pop(q, mark);
    return false;
  }
  if (a->n_params != b->n_params) return fail_count(q, "params", a->n_params, b->n_params);
  for (int i = 0; i < a->n_params; i++) {
    size_t mark = path_push(q, "params[%d]", i);
    bool ok = eq_param(q, &a->params[i], &b->params[i]);
    path_pop(q, mark);
    if (!ok) return false;
  }
  return eq_attrs(q, "attrs", a->attrs, b->attrs) && at_stmt(q, "body", a->body, b->body);
}

/* ---- graph functions --------------------------------------------------------------- */

static bool at_sinfo(Eq *q, const char *seg, const MlcSInfo *a, const MlcSInfo *b) {
  size_t mark = path_push(q, "%s", seg);
  bool ok = eq_sinfo(q, a, b);
  path_pop(q, mark);
  return ok;
}

static bool eq_sinfos(Eq *q, const char *seg, MlcSInfo *const *a, int na, MlcSInfo *const *b, int nb) {
  if (na != nb) return fail_count(q, seg, na, nb);
  for (int i = 0; i < na; i++) {
    size_t mark = path_push(q, "%s[%d]", seg, i);
    bool ok = eq_sinfo(q, a[i], b[i]);
    path_pop(q, mark);
    if (!ok) return false;
  }
  return true;
}

static bool eq_sinfo(Eq *q, const MlcSInfo *a, const MlcSInfo *b) {
  if (!a || !b) return a == b || fail_presence(q, a, b);
  if (a->kind != b->kind) return fail_nodes(q, MLC_DIFF_SINFO, a, b);
  switch (a->kind) {
  case MLC_SINFO_OBJECT: return true;
  case MLC_SINFO_TENSOR:
    if (a->tensor.ndim != b->tensor.ndim || !mlc_dtype_eq(a->tensor.dtype, b->tensor.dtype) ||
        !a->tensor.shape != !b->tensor.shape)
      return fail_nodes(q, MLC_DIFF_SINFO, a, b);
    return !a->tensor.shape || eq_exprs(q, "shape", "dims", a->tensor.shape, a->tensor.ndim,
                                        b->tensor.shape, b->tensor.ndim);
  case MLC_SINFO_TUPLE:
    if (a->tuple.n != b->tuple.n) return fail_nodes(q, MLC_DIFF_SINFO, a, b);
    return eq_sinfos(q, "fields", a->tuple.fields, a->tuple.n, b->tuple.fields, b->tuple.n);
  case MLC_SINFO_SHAPE:
    if (a->shape.ndim != b->shape.ndim || !a->shape.values != !b->shape.values)
      return fail_nodes(q, MLC_DIFF_SINFO, a, b);
    return !a->shape.values || eq_exprs(q, "values", "dims", a->shape.values, a->shape.ndim,
                                        b->shape.values, b->shape.ndim);
  case MLC_SINFO_PRIM:
    if (!mlc_dtype_eq(a->prim.dtype, b->prim.dtype)) return fail_nodes(q, MLC_DIFF_SINFO, a, b);
    return at_expr(q, "value", a->prim.value, b->prim.value);
  }
  return false;
}

static bool eq_tensor_data(const MlcTensorData *a, const MlcTensorData *b) {
  if (a == b) return true;
  if (!a || !b || !mlc_dtype_eq(a->dtype, b->dtype) || a->ndim != b->ndim || a->nbytes != b->nbytes)
    return false;
  for (int i = 0; i < a->ndim; i++)
    if (a->shape[i] != b->shape[i]) return false;
  return a->nbytes == 0 || memcmp(a->data, b->data, a->nbytes) == 0;
}

/* A graph var's struct info is compared where it is defined: uses share the
 * node.  Other nodes' struct info is derived from their operands and is not
 * compared; what a call declares (out_sinfo) is. */
static bool def_gvar(Eq *q, const MlcGExpr *a, const MlcGExpr *b) {
  if (a->kind != b->kind) return fail_nodes(q, MLC_DIFF_GEXPR, a, b);
  if (!at_sinfo(q, "sinfo", a->sinfo, b->sinfo)) return false;
  return bind_pair(q, a, b) || fail_nodes(q, MLC_DIFF_GEXPR, a, b);
}

static bool eq_gvar_use(Eq *q, const MlcGExpr *a, const MlcGExpr *b) {
  const void *ma = mlc_map_get(&q->ab, a), *mb = mlc_map_get(&q->ba, b);
  if ((ma == b && mb == a) || (!ma && !mb && a == b)) return true;
  return fail_nodes(q, MLC_DIFF_GEXPR, a, b);
}

static bool eq_opt_gexpr(Eq *q, const MlcGExpr *a, const MlcGExpr *b) {
  if (!a || !b) return a == b || fail_presence(q, a, b);
  return eq_gexpr(q, a, b);
}

static bool at_gexpr(Eq *q, const char *seg, const MlcGExpr *a, const MlcGExpr *b) {
  size_t mark = path_push(q, "%s", seg);
  bool ok = eq_opt_gexpr(q, a, b);
  path_pop(q, mark);
  return ok;
}

static bool eq_gexprs(Eq *q, const char *seg, MlcGExpr *const *a, int na, MlcGExpr *const *b, int nb) {
  if (na != nb) return fail_count(q, seg, na, nb);
  for (int i = 0; i < na; i++) {
    size_t mark = path_push(q, "%s[%d]", seg, i);
    bool ok = eq_opt_gexpr(q, a[i], b[i]);
    path_pop(q, mark);
    if (!ok) return false;
  }
  return true;
}

static bool eq_binding_block(Eq *q, const MlcBindingBlock *a, const MlcBindingBlock *b) {
  if (a->dataflow != b->dataflow)
    return fail_text(q, a->dataflow ? "dataflow block" : "binding block",
                     b->dataflow ? "dataflow block" : "binding block");
  if (a->n != b->n) return fail_count(q, "bindings", a->n, b->n);
  for (int i = 0; i < a->n; i++) {
    size_t mark = path_push(q, "bindings[%d]", i);
    bool ok = at_gexpr(q, "value", a->bindings[i].value, b->bindings[i].value);
    if (ok) {
      size_t m2 = path_push(q, "var");
      ok = def_gvar(q, a->bindings[i].var, b->bindings[i].var);
      path_pop(q, m2);
    }
    path_pop(q, mark);
    if (!ok) return false;
  }
  return true;
}

static bool eq_gseq(Eq *q, const MlcGExpr *a, const MlcGExpr *b) {
  if (a->seq.n != b->seq.n) return fail_count(q, "binding blocks", a->seq.n, b->seq.n);
  size_t scope = q->log.len;
  bool ok = true;
  for (int i = 0; ok && i < a->seq.n; i++) {
    size_t mark = path_push(q, "blocks[%d]", i);
    ok = eq_binding_block(q, a->seq.blocks[i], b->seq.blocks[i]);
    path_pop(q, mark);
  }
  ok = ok && at_gexpr(q, "result", a->seq.result, b->seq.result);
  scope_unwind(&q->log, scope);
  return ok;
}

/* A call's attributes may name a size for the first time (R.tensor_to_shape's
 * shape=[r0], R.loop's count=[n]): that sight defines it. */
static bool eq_call_attrs(Eq *q, MlcAttrs a, MlcAttrs b) {
  bool was = q->implicit;
  q->implicit = true;
  bool ok = eq_attrs(q, "attrs", a, b);
  q->implicit = was;
  return ok;
}

static bool eq_gcall(Eq *q, const MlcGExpr *a, const MlcGExpr *b) {
  return at_gexpr(q, "callee", a->call.callee, b->call.callee) &&
         eq_gexprs(q, "args", a->call.args, a->call.n, b->call.args, b->call.n) &&
         eq_call_attrs(q, a->call.attrs, b->call.attrs) &&
         eq_sinfos(q, "sinfo_args", a->call.sinfo_args, a->call.n_sinfo_args, b->call.sinfo_args,
                   b->call.n_sinfo_args);
}

static bool eq_gexpr(Eq *q, const MlcGExpr *a, const MlcGExpr *b) {
  if (a->kind != b->kind) return fail_nodes(q, MLC_DIFF_GEXPR, a, b);
  switch (a->kind) {
  case MLC_G_VAR:
  case MLC_G_DFVAR: return eq_gvar_use(q, a, b);
  case MLC_G_CONST:
    return eq_tensor_data(a->constant, b->constant) || fail_nodes(q, MLC_DIFF_GEXPR, a, b);
  case MLC_G_TUPLE: return eq_gexprs(q, "fields", a->tuple.fields, a->tuple.n, b->tuple.fields, b->tuple.n);
  case MLC_G_GET_ITEM:
    if (a->get_item.index != b->get_item.index) return fail_nodes(q, MLC_DIFF_GEXPR, a, b);
    return at_gexpr(q, "tuple", a->get_item.tuple, b->get_item.tuple);
  case MLC_G_CALL: return eq_gcall(q, a, b);
  case MLC_G_SHAPE:
    return eq_exprs(q, "values", "dims", a->shape.values, a->shape.n, b->shape.values, b->shape.n);
  case MLC_G_PRIM: return at_expr(q, "value", a->prim, b->prim);
  case MLC_G_STR:
  case MLC_G_OP:
  case MLC_G_GLOBAL:
  case MLC_G_EXTERN: return names_same(a->str, b->str) || fail_nodes(q, MLC_DIFF_GEXPR, a, b);
  case MLC_G_DTYPE: return mlc_dtype_eq(a->dtype, b->dtype) || fail_nodes(q, MLC_DIFF_GEXPR, a, b);
  case MLC_G_IF:
    return at_gexpr(q, "cond", a->if_.cond, b->if_.cond) &&
           at_gexpr(q, "then", a->if_.then_e, b->if_.then_e) &&
           at_gexpr(q, "else", a->if_.else_e, b->if_.else_e);
  case MLC_G_SEQ: return eq_gseq(q, a, b);
  }
  return false;
}

/* The signature (params, then the return struct info) defines the symbolic
 * dims it mentions first. */
static bool eq_gsignature(Eq *q, const MlcGFunc *a, const MlcGFunc *b) {
  if (a->n_params != b->n_params) return fail_count(q, "params", a->n_params, b->n_params);
  q->implicit = true;
  bool ok = true;
  for (int i = 0; ok && i < a->n_params; i++) {
    size_t mark = path_push(q, "params[%d]", i);
    ok = def_gvar(q, a->params[i], b->params[i]);
    path_pop(q, mark);
  }
  ok = ok && at_sinfo(q, "ret", a->ret, b->ret);
  q->implicit = false;
  return ok;
}

static bool eq_graph(Eq *q, const MlcGFunc *a, const MlcGFunc *b) {
  if (!names_same(a->name, b->name)) return fail_name(q, "function", a->name, b->name);
  if (a->pure != b->pure)
    return fail_text(q, a->pure ? "pure" : "impure", b->pure ? "pure" : "impure");
  return eq_gsignature(q, a, b) && eq_attrs(q, "attrs", a->attrs, b->attrs) &&
         at_gexpr(q, "body", a->body, b->body);
}

/* ---- entry points -------------------------------------------------------------------- */

static void eq_init(Eq *q, MlcDiff *diff) {
  memset(q, 0, sizeof *q);
  q->diff = diff;
}

static void eq_free(Eq *q) {
  mlc_map_free(&q->ab);
  mlc_map_free(&q->ba);
  mlc_vec_free(&q->log);
  mlc_vec_free(&q->path);
}

/* each function is compared with fresh bindings: functions share no vars */
static bool eq_func(const MlcFunc *a, const MlcFunc *b, MlcDiff *diff) {
  Eq q;
  eq_init(&q, diff);
  bool ok;
  if (a->kind != b->kind)
    ok = fail_text(&q, a->kind == MLC_FUNC_PRIM ? "prim func" : "graph function",
                   b->kind == MLC_FUNC_PRIM ? "prim func" : "graph function");
  else if (a->kind == MLC_FUNC_PRIM)
    ok = eq_prim(&q, a->prim, b->prim);
  else
    ok = eq_graph(&q, a->graph, b->graph);
  eq_free(&q);
  if (!ok && diff) diff->func = a->name;
  return ok;
}

/* a function one side lacks; the diff names it with "function missing" */
static bool missing_function(const char *name, bool missing_on_left, MlcDiff *diff) {
  if (!diff) return false;
  diff->func = name;
  diff->kind = MLC_DIFF_TEXT;
  mlc_sb_puts(&diff->a_text, missing_on_left ? "function missing" : "present");
  mlc_sb_puts(&diff->b_text, missing_on_left ? "present" : "function missing");
  return false;
}

static bool eq_module(const MlcModule *a, const MlcModule *b, MlcDiff *diff) {
  for (int i = 0; i < a->n_funcs; i++)
    if (!module_find_func(b, a->funcs[i].name)) return missing_function(a->funcs[i].name, false, diff);
  for (int i = 0; i < b->n_funcs; i++)
    if (!module_find_func(a, b->funcs[i].name)) return missing_function(b->funcs[i].name, true, diff);
  for (int i = 0; i < a->n_funcs; i++)
    if (!eq_func(&a->funcs[i], module_find_func(b, a->funcs[i].name), diff)) return false;
  Eq q;
  eq_init(&q, diff);
  bool ok = eq_attrs(&q, "attrs", a->attrs, b->attrs);
  eq_free(&q);
  return ok;
}

bool mlc_module_equal(const MlcModule *a, const MlcModule *b) {
  if (!a || !b) return a == b;
  return eq_module(a, b, NULL);
}

/* diff is overwritten: pass a zeroed one, or one released by mlc_diff_free */
bool mlc_module_equal_diff(const MlcModule *a, const MlcModule *b, MlcDiff *diff) {
  if (!diff) return mlc_module_equal(a, b);
  memset(diff, 0, sizeof *diff);
  if (!a || !b) {
    if (a == b) return true;
    diff->kind = MLC_DIFF_TEXT;
    mlc_sb_puts(&diff->a_text, a ? "module" : "no module");
    mlc_sb_puts(&diff->b_text, b ? "module" : "no module");
    return false;
  }
  return eq_module(a, b, diff);
}

void mlc_diff_free(MlcDiff *diff) {
  if (!diff) return;
  mlc_vec_free(&diff->path);
  mlc_vec_free(&diff->a_text);
  mlc_vec_free(&diff->b_text);
  memset(diff, 0, sizeof *diff);
}

bool mlc_prim_func_equal(const MlcPrimFunc *a, const MlcPrimFunc *b) {
  if (!a || !b) return a == b;
  Eq q;
  eq_init(&q, NULL);
  bool ok = eq_prim(&q, a, b);
  eq_free(&q);
  return ok;
}

bool mlc_gfunc_equal(const MlcGFunc *a, const MlcGFunc *b) {
  if (!a || !b) return a == b;
  Eq q;
  eq_init(&q, NULL);
  bool ok = eq_graph(&q, a, b);
  eq_free(&q);
  return ok;
}
