/* print_tir.c - canonical TVMScript of tensor programs: prim funcs,
 * statements and expressions.
 *
 * The printer chooses, at each construct, the shortest spelling that the
 * reader turns back into the same structure: a chain of plain loops as one
 * T.grid, block iter vars as one T.axis.remap, the implicit root block left
 * out, immediates bare when their dtype is the one a bare literal gets.
 * Each such choice is a check on the IR, never a rewrite of it; when a check
 * fails the long spelling is printed, which always reads back the same.
 * Parentheses follow Python precedence (mlc_binop_info), so `(a + b) * c`
 * keeps its parentheses and `a * b + c` gets none. */
#include "text/print_internal.h"
#include "text/read_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Python precedence levels beyond the binary table's */
enum { PREC_NOT = 2, PREC_CMP = 3, PREC_ADD = 4, PREC_UNARY = 6, PREC_ATOM = 100 };

static const char *const for_kind_call[] = {
    [MLC_FOR_SERIAL] = "T.serial",         [MLC_FOR_PARALLEL] = "T.parallel",
    [MLC_FOR_VECTORIZED] = "T.vectorized", [MLC_FOR_UNROLLED] = "T.unroll",
    [MLC_FOR_THREAD] = "T.thread_binding",
};

/* remap letter (0: cannot be remapped) and the one-var spelling */
static const struct { char letter; const char *call; } iter_kind_info[] = {
    [MLC_ITER_SPATIAL] = {'S', "T.axis.spatial"},
    [MLC_ITER_REDUCE] = {'R', "T.axis.reduce"},
    [MLC_ITER_OPAQUE] = {0, "T.axis.opaque"},
};

static bool is_int(const MlcExpr *e, int64_t v) {
  return e && e->kind == MLC_EXPR_INT && e->dtype.code != MLC_TC_BOOL && e->int_val == v;
}

static bool is_true(const MlcExpr *e) {
  return !e || (e->kind == MLC_EXPR_INT && e->dtype.code == MLC_TC_BOOL && e->int_val == 1);
}

/* ======================================================================== */
/* expressions                                                              */
/* ======================================================================== */

/* the Python operator of a binary node; NULL when it prints as a call */
static bool bare_int(const MlcPrinter *p, MlcDType t) {
  return t.code == MLC_TC_INT && t.bits == p->bare_int_bits && t.lanes == 1;
}

/* the Python operator of e, or NULL for the call form: that of an op
 * without an operator, and of one between two bare integers, which the
 * reader would fold as Python does (T.Sub(128, 128) must not read back 0) */
static const char *bin_operator(const MlcPrinter *p, const MlcExpr *e) {
  if (e->bin.op == MLC_BIN_DIV) return mlc_dtype_is_float(e->dtype) ? "/" : NULL;
  const MlcExpr *a = e->bin.a, *b = e->bin.b;
  if (a->kind == MLC_EXPR_INT && b->kind == MLC_EXPR_INT && bare_int(p, a->dtype) && bare_int(p, b->dtype)) return NULL;
  return mlc_binop_info[e->bin.op].py;
}

static const char *bin_call(MlcBinOp op) {
  return op == MLC_BIN_DIV ? "T.truncdiv" : mlc_binop_info[op].call;
}

static void print_int(MlcPrinter *p, MlcDType t, int64_t v) {
  if (t.code == MLC_TC_BOOL) {
    mlc_pt_puts(p, v ? "T.bool(True)" : "T.bool(False)");
  } else if (bare_int(p, t)) {
    mlc_pt_printf(p, "%lld", (long long)v);
  } else {
    mlc_pt_puts(p, "T.");
    mlc_pt_dtype(p, t);
    if (t.code == MLC_TC_UINT) mlc_pt_printf(p, "(%llu)", (unsigned long long)v);
    else mlc_pt_printf(p, "(%lld)", (long long)v);
  }
}

static void print_float(MlcPrinter *p, MlcDType t, double v) {
  mlc_pt_puts(p, "T.");
  mlc_pt_dtype(p, t);
  if (isnan(v)) {
    mlc_pt_puts(p, "(\"nan\")");
  } else if (isinf(v)) {
    mlc_pt_puts(p, v > 0 ? "(\"inf\")" : "(\"-inf\")");
  } else {
    /* float32 immediates hold float32 values (the builder rounds them), so
     * the shortest text naming that float reads back to the same bits;
     * other widths keep every digit their double needs */
    char buf[48];
    mlc_pt_float_text(buf, v, t.code == MLC_TC_FLOAT && t.bits == 32);
    mlc_pt_printf(p, "(%s)", buf);
  }
}

static int expr_prec(const MlcPrinter *p, const MlcExpr *e) {
  switch (e->kind) {
  case MLC_EXPR_BINARY: return bin_operator(p, e) ? mlc_binop_info[e->bin.op].prec : PREC_ATOM;
  case MLC_EXPR_NOT: return PREC_NOT;
  case MLC_EXPR_NEG: return PREC_UNARY;
  case MLC_EXPR_INT: return bare_int(p, e->dtype) && e->int_val < 0 ? PREC_UNARY : PREC_ATOM;
  default: return PREC_ATOM;
  }
}

static void pr(MlcPrinter *p, const MlcExpr *e, int min_prec);

static void pr_args(MlcPrinter *p, MlcExpr *const *args, int n) {
  for (int i = 0; i < n; i++) {
    if (i) mlc_pt_puts(p, ", ");
    pr(p, args[i], 0);
  }
}

static void pr_binary(MlcPrinter *p, const MlcExpr *e) {
  const char *op = bin_operator(p, e);
  if (!op) {
    mlc_pt_printf(p, "%s(", bin_call(e->bin.op));
    pr(p, e->bin.a, 0);
    mlc_pt_puts(p, ", ");
    pr(p, e->bin.b, 0);
    mlc_pt_puts(p, ")");
    return;
  }
  /* left-associative, except that comparisons chain in Python, so a
   * comparison under a comparison needs parentheses on either side */
  int prec = mlc_binop_info[e->bin.op].prec;
  pr(p, e->bin.a, prec == PREC_CMP ? prec + 1 : prec);
  mlc_pt_printf(p, " %s ", op);
  pr(p, e->bin.b, prec + 1);
}

static void pr_load(MlcPrinter *p, const MlcBuffer *buf, MlcExpr *const *idx, int n) {
  mlc_pt_puts(p, mlc_pt_name(p, buf, buf->name));
  mlc_pt_puts(p, "[");
  if (n == 0) mlc_pt_puts(p, "()");
  pr_args(p, idx, n);
  mlc_pt_puts(p, "]");
}

static void pr_let_expr(MlcPrinter *p, const MlcExpr *e) {
  size_t mark = mlc_pt_scope(p);
  mlc_pt_puts(p, "T.Let(");
  mlc_pt_puts(p, mlc_pt_define(p, e->let.var, e->let.var->var.name));
  mlc_pt_puts(p, ", ");
  pr(p, e->let.value, 0);
  mlc_pt_puts(p, ", ");
  pr(p, e->let.body, 0);
  mlc_pt_puts(p, ")");
  mlc_pt_unscope(p, mark);
}

static void pr_call(MlcPrinter *p, const MlcExpr *e) {
  const MlcIntrinInfo *info = &mlc_intrin_info[e->call.op];
  mlc_pt_printf(p, "%s(", info->name);
  if (info->rule == 2 || info->rule == 5) { /* the result dtype is the call's own: given first */
    mlc_pt_dtype_str(p, e->dtype);
    if (e->call.n) mlc_pt_puts(p, ", ");
  }
  pr_args(p, e->call.args, e->call.n);
  mlc_pt_puts(p, ")");
}

static void pr_node(MlcPrinter *p, const MlcExpr *e) {
  switch (e->kind) {
  case MLC_EXPR_VAR: mlc_pt_puts(p, mlc_pt_name(p, e, e->var.name)); break;
  case MLC_EXPR_INT: print_int(p, e->dtype, e->int_val); break;
  case MLC_EXPR_FLOAT: print_float(p, e->dtype, e->float_val); break;
  case MLC_EXPR_STR: mlc_pt_str(p, e->str_val); break;
  case MLC_EXPR_BINARY: pr_binary(p, e); break;
  case MLC_EXPR_NOT:
    mlc_pt_puts(p, "not ");
    pr(p, e->operand, PREC_NOT);
    break;
  case MLC_EXPR_NEG: /* -(-x), never --x, which a reader may fold */
    mlc_pt_puts(p, "-");
    pr(p, e->operand, PREC_UNARY + 1);
    break;
  case MLC_EXPR_SELECT:
    mlc_pt_puts(p, "T.Select(");
    pr(p, e->select.cond, 0);
    mlc_pt_puts(p, ", ");
    pr(p, e->select.t, 0);
    mlc_pt_puts(p, ", ");
    pr(p, e->select.f, 0);
    mlc_pt_puts(p, ")");
    break;
  case MLC_EXPR_CAST:
    mlc_pt_puts(p, "T.Cast(");
    mlc_pt_dtype_str(p, e->dtype);
    mlc_pt_puts(p, ", ");
    pr(p, e->operand, 0);
    mlc_pt_puts(p, ")");
    break;
  case MLC_EXPR_LOAD: pr_load(p, e->load.buf, e->load.idx, e->load.n); break;
  case MLC_EXPR_RAMP:
    mlc_pt_puts(p, "T.Ramp(");
    pr(p, e->ramp.base, 0);
    mlc_pt_puts(p, ", ");
    pr(p, e->ramp.stride, 0);
    mlc_pt_printf(p, ", %d)", e->ramp.lanes);
    break;
  case MLC_EXPR_BROADCAST:
    mlc_pt_puts(p, "T.Broadcast(");
    pr(p, e->bcast.value, 0);
    mlc_pt_printf(p, ", %d)", e->bcast.lanes);
    break;
  case MLC_EXPR_LET: pr_let_expr(p, e); break;
  case MLC_EXPR_CALL: pr_call(p, e); break;
  }
}

static void pr(MlcPrinter *p, const MlcExpr *e, int min_prec) {
  if (!e) {
    mlc_pt_puts(p, "None");
    return;
  }
  bool paren = expr_prec(p, e) < min_prec;
  if (paren) mlc_pt_puts(p, "(");
  pr_node(p, e);
  if (paren) mlc_pt_puts(p, ")");
}

void mlc_pt_expr(MlcPrinter *p, const MlcExpr *e) { pr(p, e, 0); }

/* let-bound vars in scope while walking, innermost first */
typedef struct Bound { const MlcExpr *var; const struct Bound *up; } Bound;

static void walk_vars(const MlcExpr *e, const Bound *bound,
                      void (*fn)(void *user, const MlcExpr *var), void *user) {
  if (!e) return;
  switch (e->kind) {
  case MLC_EXPR_VAR:
    for (const Bound *b = bound; b; b = b->up)
      if (b->var == e) return;
    fn(user, e);
    break;
  case MLC_EXPR_INT:
  case MLC_EXPR_FLOAT:
  case MLC_EXPR_STR: break;
  case MLC_EXPR_BINARY:
    walk_vars(e->bin.a, bound, fn, user);
    walk_vars(e->bin.b, bound, fn, user);
    break;
  case MLC_EXPR_NOT:
  case MLC_EXPR_NEG:
  case MLC_EXPR_CAST: walk_vars(e->operand, bound, fn, user); break;
  case MLC_EXPR_SELECT:
    walk_vars(e->select.cond, bound, fn, user);
    walk_vars(e->select.t, bound, fn, user);
    walk_vars(e->select.f, bound, fn, user);
    break;
  case MLC_EXPR_LOAD:
    for (int i = 0; i < e->load.n; i++) walk_vars(e->load.idx[i], bound, fn, user);
    break;
  case MLC_EXPR_RAMP:
    walk_vars(e->ramp.base, bound, fn, user);
    walk_vars(e->ramp.stride, bound, fn, user);
    break;
  case MLC_EXPR_BROADCAST: walk_vars(e->bcast.value, bound, fn, user); break;
  case MLC_EXPR_LET: {
    walk_vars(e->let.value, bound, fn, user);
    Bound inner = {e->let.var, bound};
    walk_vars(e->let.body, &inner, fn, user);
    break;
  }
  case MLC_EXPR_CALL:
    for (int i = 0; i < e->call.n; i++) walk_vars(e->call.args[i], bound, fn, user);
    break;
  }
}

void mlc_pt_expr_vars(const MlcExpr *e, void (*fn)(void *user, const MlcExpr *var), void *user) {
  walk_vars(e, NULL, fn, user);
}

/* ======================================================================== */
/* ranges and buffers                                                       */
/* ======================================================================== */

static bool int_fits(MlcDType t, int64_t v) {
  if (t.code == MLC_TC_UINT) return t.bits < 64 && v >= 0 && v < (INT64_C(1) << t.bits);
  if (t.code != MLC_TC_INT) return false;
  return t.bits >= 64 || (v >= -(INT64_C(1) << (t.bits - 1)) && v < (INT64_C(1) << (t.bits - 1)));
}

static bool add_overflows(int64_t a, int64_t b) {
  return (b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b);
}

/* The exclusive end min + extent, as T.serial(a, b), (a, b) domains and a:b
 * slices write it: folded for constants, and for an extent the reader made as
 * `b - a` the `b` it came from, so the text reads back to the same extent. */
static void pr_end(MlcPrinter *p, const MlcExpr *min, const MlcExpr *extent) {
  int64_t a, b;
  if (mlc_e_is_const_int(min, &a) && mlc_e_is_const_int(extent, &b) &&
      mlc_dtype_eq(min->dtype, extent->dtype) && !add_overflows(a, b) && int_fits(extent->dtype, a + b)) {
    print_int(p, extent->dtype, a + b);
  } else if (is_int(min, 0)) {
    pr(p, extent, 0);
  } else if (extent->kind == MLC_EXPR_BINARY && extent->bin.op == MLC_BIN_SUB &&
             mlc_expr_same(extent->bin.b, min)) {
    pr(p, extent->bin.a, 0);
  } else {
    pr(p, min, PREC_ADD);
    mlc_pt_puts(p, " + ");
    pr(p, extent, PREC_ADD + 1);
  }
}

/* `extent` when the range starts at 0, else `min, end` (call arguments) */
static void pr_range_args(MlcPrinter *p, const MlcExpr *min, const MlcExpr *extent) {
  if (is_int(min, 0)) {
    pr(p, extent, 0);
    return;
  }
  pr(p, min, 0);
  mlc_pt_puts(p, ", ");
  pr_end(p, min, extent);
}

/* A shape: the reader gives its bare literals int64 when another dim is
 * int64, so an int32 literal beside one is written with its type. */
static void pr_shape(MlcPrinter *p, MlcExpr *const *es, int n) {
  bool wide = false;
  for (int i = 0; i < n; i++) wide = wide || (mlc_dtype_is_int(es[i]->dtype) && es[i]->dtype.bits == 64);
  mlc_pt_puts(p, "(");
  for (int i = 0; i < n; i++) {
    if (i) mlc_pt_puts(p, ", ");
    if (wide && es[i]->kind == MLC_EXPR_INT && bare_int(p, es[i]->dtype))
      mlc_pt_printf(p, "T.int32(%lld)", (long long)es[i]->int_val);
    else pr(p, es[i], 0);
  }
  mlc_pt_puts(p, n == 1 ? ",)" : ")");
}

/* (shape), "dtype", then the non-default keywords, as T.Buffer,
 * T.match_buffer and T.alloc_buffer take them */
static void pr_buffer_args(MlcPrinter *p, const MlcBuffer *b, bool always_dtype) {
  pr_shape(p, b->shape, b->ndim);
  if (always_dtype || !mlc_dtype_eq(b->dtype, MLC_F32)) {
    mlc_pt_puts(p, ", ");
    mlc_pt_dtype_str(p, b->dtype);
  }
  if (b->strides) {
    mlc_pt_puts(p, ", strides=");
    pr_shape(p, b->strides, b->ndim);
  }
  if (b->elem_offset) {
    mlc_pt_puts(p, ", elem_offset=");
    pr(p, b->elem_offset, 0);
  }
  if (b->scope && strcmp(b->scope, "global") != 0) {
    mlc_pt_puts(p, ", scope=");
    mlc_pt_str(p, b->scope);
  }
  if (b->align) mlc_pt_printf(p, ", align=%d", b->align);
  if (b->offset_factor) mlc_pt_printf(p, ", offset_factor=%d", b->offset_factor);
}

static void pr_alloc_buffer(MlcPrinter *p, const MlcBuffer *b) {
  mlc_pt_line_start(p);
  mlc_pt_printf(p, "%s = T.alloc_buffer(", mlc_pt_define(p, b, b->name));
  pr_buffer_args(p, b, false);
  mlc_pt_puts(p, ")");
  mlc_pt_line_end(p);
}

/* A[vi, 0:128]: a point where the extent is 1, a slice otherwise */
static void pr_region(MlcPrinter *p, const MlcBufferRegion *r) {
  mlc_pt_puts(p, mlc_pt_name(p, r->buf, r->buf->name));
  mlc_pt_puts(p, "[");
  if (r->buf->ndim == 0) mlc_pt_puts(p, "()");
  for (int d = 0; d < r->buf->ndim; d++) {
    const MlcRange *rg = &r->ranges[d];
    if (d) mlc_pt_puts(p, ", ");
    pr(p, rg->min, 0);
    if (!is_int(rg->extent, 1)) {
      mlc_pt_puts(p, ":");
      pr_end(p, rg->min, rg->extent);
    }
  }
  mlc_pt_puts(p, "]");
}

static void pr_regions(MlcPrinter *p, const char *call, const MlcBufferRegion *rs, int n) {
  mlc_pt_line_start(p);
  mlc_pt_printf(p, "%s(", call);
  for (int i = 0; i < n; i++) {
    if (i) mlc_pt_puts(p, ", ");
    pr_region(p, &rs[i]);
  }
  mlc_pt_puts(p, ")");
  mlc_pt_line_end(p);
}

/* ======================================================================== */
/* statements                                                               */
/* ======================================================================== */

static void pr_indented(MlcPrinter *p, const MlcStmt *s) {
  p->indent++;
  mlc_pt_stmt(p, s);
  p->indent--;
}

/* ---- loops ---------------------------------------------------------------- */

static bool plain_serial(const MlcStmt *s) {
  return s->kind == MLC_STMT_FOR && s->loop.kind == MLC_FOR_SERIAL && is_int(s->loop.min, 0) &&
         s->loop.annotations.n == 0;
}

typedef struct ChainUse { const MlcStmt *first, *stop; bool found; } ChainUse;

static void note_chain_use(void *user, const MlcExpr *var) {
  ChainUse *u = user;
  for (const MlcStmt *l = u->first; l != u->stop; l = l->loop.body)
    if (l->loop.var == var) u->found = true;
}

/* The last loop of the T.grid chain starting at s: plain serial loops nested
 * directly, each extent free of the chain's own vars (T.grid evaluates all
 * extents before any var exists), and no more of them than the reader takes
 * in one T.grid -- a deeper nest prints as a T.grid inside a T.grid. */
static const MlcStmt *grid_last(const MlcStmt *s) {
  const MlcStmt *last = s;
  for (int n = 1; n < MLC_RD_MAX_RANK && plain_serial(last->loop.body); n++) {
    ChainUse u = {s, last->loop.body, false};
    mlc_pt_expr_vars(last->loop.body->loop.extent, note_chain_use, &u);
    if (u.found) break;
    last = last->loop.body;
  }
  return last;
}

static void pr_loop_header(MlcPrinter *p, const MlcStmt *s) {
  mlc_pt_printf(p, "for %s in %s(", mlc_pt_define(p, s->loop.var, s->loop.var->var.name),
                for_kind_call[s->loop.kind]);
  pr_range_args(p, s->loop.min, s->loop.extent);
  if (s->loop.kind == MLC_FOR_THREAD) {
    mlc_pt_puts(p, ", thread=");
    mlc_pt_str(p, s->loop.thread ? s->loop.thread : "");
  }
  if (s->loop.annotations.n) {
    mlc_pt_puts(p, ", annotations=");
    mlc_pt_attr_dict(p, s->loop.annotations, false);
  }
  mlc_pt_puts(p, "):");
}

static void pr_grid_header(MlcPrinter *p, const MlcStmt *s, const MlcStmt *last) {
  mlc_pt_puts(p, "for ");
  for (const MlcStmt *l = s;; l = l->loop.body) {
    mlc_pt_puts(p, mlc_pt_define(p, l->loop.var, l->loop.var->var.name));
    if (l == last) break;
    mlc_pt_puts(p, ", ");
  }
  if (s == last) {
    mlc_pt_puts(p, " in range(");
    pr(p, s->loop.extent, 0);
  } else {
    mlc_pt_puts(p, " in T.grid(");
    for (const MlcStmt *l = s;; l = l->loop.body) {
      pr(p, l->loop.extent, 0);
      if (l == last) break;
      mlc_pt_puts(p, ", ");
    }
  }
  mlc_pt_puts(p, "):");
}

static void pr_for(MlcPrinter *p, const MlcStmt *s) {
  size_t mark = mlc_pt_scope(p);
  const MlcStmt *last = plain_serial(s) ? grid_last(s) : s;
  mlc_pt_line_start(p);
  if (plain_serial(s)) pr_grid_header(p, s, last);
  else pr_loop_header(p, s);
  mlc_pt_line_end(p);
  /* remembered for T.axis.remap in the blocks below */
  for (const MlcStmt *l = s;; l = l->loop.body) {
    mlc_map_put(&p->loops, l->loop.var, (void *)l);
    if (l == last) break;
  }
  pr_indented(p, last->loop.body);
  for (const MlcStmt *l = s;; l = l->loop.body) {
    mlc_map_put(&p->loops, l->loop.var, NULL);
    if (l == last) break;
  }
  mlc_pt_unscope(p, mark);
}

/* ---- blocks --------------------------------------------------------------- */

/* T.axis.remap applies when each binding is a distinct enclosing loop var
 * whose loop is [0, extent) and the iter var's domain is that same range. */
static bool remap_ok(const MlcPrinter *p, const MlcStmt *s) {
  const MlcBlock *b = s->realize.block;
  if (b->n_iters == 0) return false;
  for (int i = 0; i < b->n_iters; i++) {
    const MlcIterVar *iv = &b->iters[i];
    const MlcExpr *v = s->realize.values[i];
    if (!iter_kind_info[iv->kind].letter || v->kind != MLC_EXPR_VAR) return false;
    const MlcStmt *loop = mlc_map_get(&p->loops, v);
    if (!loop || !is_int(loop->loop.min, 0) || !is_int(iv->dom.min, 0) ||
        !mlc_expr_same(loop->loop.extent, iv->dom.extent))
      return false;
    for (int j = 0; j < i; j++)
      if (s->realize.values[j] == v) return false;
  }
  return true;
}

static void pr_remap(MlcPrinter *p, const MlcStmt *s) {
  const MlcBlock *b = s->realize.block;
  mlc_pt_line_start(p);
  for (int i = 0; i < b->n_iters; i++)
    mlc_pt_printf(p, "%s%s", i ? ", " : "", mlc_pt_define(p, b->iters[i].var, b->iters[i].var->var.name));
  mlc_pt_puts(p, " = T.axis.remap(\"");
  for (int i = 0; i < b->n_iters; i++) mlc_pt_printf(p, "%c", iter_kind_info[b->iters[i].kind].letter);
  mlc_pt_puts(p, "\", [");
  pr_args(p, s->realize.values, s->realize.n);
  mlc_pt_puts(p, "])");
  mlc_pt_line_end(p);
}

static void pr_iter(MlcPrinter *p, const MlcIterVar *iv, const MlcExpr *value) {
  mlc_pt_line_start(p);
  mlc_pt_printf(p, "%s = %s(", mlc_pt_define(p, iv->var, iv->var->var.name), iter_kind_info[iv->kind].call);
  if (is_int(iv->dom.min, 0)) {
    pr(p, iv->dom.extent, 0);
  } else {
    mlc_pt_puts(p, "(");
    pr_range_args(p, iv->dom.min, iv->dom.extent);
    mlc_pt_puts(p, ")");
  }
  mlc_pt_puts(p, ", ");
  pr(p, value, 0);
  mlc_pt_puts(p, ")");
  mlc_pt_line_end(p);
}

/* what follows the block header lines: allocations, init, body */
static void pr_block_contents(MlcPrinter *p, const MlcBlock *b) {
  for (int i = 0; i < b->n_allocs; i++) pr_alloc_buffer(p, b->allocs[i]);
  if (b->init) {
    mlc_pt_line(p, "with T.init():");
    pr_indented(p, b->init);
  }
  mlc_pt_stmt(p, b->body);
}

static void pr_realize(MlcPrinter *p, const MlcStmt *s) {
  const MlcBlock *b = s->realize.block;
  mlc_pt_line_start(p);
  mlc_pt_puts(p, "with T.block(");
  mlc_pt_str(p, b->name);
  mlc_pt_puts(p, "):");
  mlc_pt_line_end(p);
  p->indent++;
  size_t mark = mlc_pt_scope(p);
  if (remap_ok(p, s)) pr_remap(p, s);
  else
    for (int i = 0; i < b->n_iters; i++) pr_iter(p, &b->iters[i], s->realize.values[i]);
  if (!is_true(s->realize.pred)) {
    mlc_pt_line_start(p);
    mlc_pt_puts(p, "T.where(");
    pr(p, s->realize.pred, 0);
    mlc_pt_puts(p, ")");
    mlc_pt_line_end(p);
  }
  pr_regions(p, "T.reads", b->reads, b->n_reads);
  pr_regions(p, "T.writes", b->writes, b->n_writes);
  if (b->annotations.n) {
    mlc_pt_line_start(p);
    mlc_pt_puts(p, "T.block_attr(");
    mlc_pt_attr_dict(p, b->annotations, false);
    mlc_pt_puts(p, ")");
    mlc_pt_line_end(p);
  }
  pr_block_contents(p, b);
  mlc_pt_unscope(p, mark);
  p->indent--;
}

/* ---- the other statements -------------------------------------------------- */

static void pr_if(MlcPrinter *p, const MlcStmt *s, bool elif) {
  mlc_pt_line_start(p);
  mlc_pt_puts(p, elif ? "elif " : "if ");
  pr(p, s->if_.cond, 0);
  mlc_pt_puts(p, ":");
  mlc_pt_line_end(p);
  pr_indented(p, s->if_.then_s);
  const MlcStmt *e = s->if_.else_s;
  if (!e) return;
  if (e->kind == MLC_STMT_IF) {
    pr_if(p, e, true);
    return;
  }
  mlc_pt_line(p, "else:");
  pr_indented(p, e);
}

/* `x = value` and the body after it at the same depth: the binding holds
 * for the rest of the enclosing suite */
static void pr_let(MlcPrinter *p, const MlcStmt *s) {
  size_t mark = mlc_pt_scope(p);
  mlc_pt_line_start(p);
  const char *name = mlc_pt_define(p, s->let.var, s->let.var->var.name);
  mlc_pt_printf(p, "%s = ", name);
  pr(p, s->let.value, 0);
  mlc_pt_line_end(p);
  mlc_pt_stmt(p, s->let.body);
  mlc_pt_unscope(p, mark);
}

static void pr_allocate(MlcPrinter *p, const MlcStmt *s) {
  const MlcBuffer *b = s->alloc.buf;
  size_t mark = mlc_pt_scope(p);
  mlc_pt_line_start(p);
  mlc_pt_printf(p, "%s = T.allocate([", mlc_pt_define(p, b, b->name));
  pr_args(p, b->shape, b->ndim);
  mlc_pt_puts(p, "], ");
  mlc_pt_dtype_str(p, b->dtype);
  mlc_pt_puts(p, ", ");
  mlc_pt_str(p, b->scope ? b->scope : "global");
  mlc_pt_puts(p, ")");
  mlc_pt_line_end(p);
  mlc_pt_stmt(p, s->alloc.body);
  mlc_pt_unscope(p, mark);
}

void mlc_pt_stmt(MlcPrinter *p, const MlcStmt *s) {
  switch (s->kind) {
  case MLC_STMT_STORE:
    mlc_pt_line_start(p);
    pr_load(p, s->store.buf, s->store.idx, s->store.n);
    mlc_pt_puts(p, " = ");
    pr(p, s->store.value, 0);
    mlc_pt_line_end(p);
    break;
  case MLC_STMT_FOR: pr_for(p, s); break;
  case MLC_STMT_BLOCK_REALIZE: pr_realize(p, s); break;
  case MLC_STMT_SEQ:
    if (s->seq.n == 0) mlc_pt_line(p, "pass");
    for (int i = 0; i < s->seq.n; i++) mlc_pt_stmt(p, s->seq.items[i]);
    break;
  case MLC_STMT_IF: pr_if(p, s, false); break;
  case MLC_STMT_LET: pr_let(p, s); break;
  case MLC_STMT_ALLOCATE: pr_allocate(p, s); break;
  case MLC_STMT_EVALUATE:
    mlc_pt_line_start(p);
    mlc_pt_puts(p, "T.evaluate(");
    pr(p, s->eval, 0);
    mlc_pt_puts(p, ")");
    mlc_pt_line_end(p);
    break;
  }
}

/* ======================================================================== */
/* prim funcs                                                               */
/* ======================================================================== */

static bool contains_block(const MlcStmt *s) {
  if (!s) return false;
  switch (s->kind) {
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return false;
  case MLC_STMT_BLOCK_REALIZE: return true;
  case MLC_STMT_FOR: return contains_block(s->loop.body);
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++)
      if (contains_block(s->seq.items[i])) return true;
    return false;
  case MLC_STMT_IF: return contains_block(s->if_.then_s) || contains_block(s->if_.else_s);
  case MLC_STMT_LET: return contains_block(s->let.body);
  case MLC_STMT_ALLOCATE: return contains_block(s->alloc.body);
  }
  return false;
}

/* The root block the reader would make by itself, which the text leaves
 * out: named root, nothing but allocations around a body holding blocks. */
static const MlcBlock *implicit_root(const MlcStmt *body) {
  if (body->kind != MLC_STMT_BLOCK_REALIZE || !is_true(body->realize.pred)) return NULL;
  const MlcBlock *b = body->realize.block;
  if (strcmp(b->name, "root") != 0 || b->n_iters || b->n_reads || b->n_writes || b->init ||
      b->annotations.n || !contains_block(b->body))
    return NULL;
  return b;
}

typedef struct ParamUse { const MlcPrimFunc *f; int before; bool ok; } ParamUse;

static void note_param_use(void *user, const MlcExpr *var) {
  ParamUse *u = user;
  for (int j = 0; j < u->before; j++)
    if (!u->f->params[j].buf && u->f->params[j].var == var) return;
  u->ok = false;
}

static void buffer_vars(const MlcBuffer *b, void (*fn)(void *, const MlcExpr *), void *user) {
  for (int d = 0; d < b->ndim; d++) {
    mlc_pt_expr_vars(b->shape[d], fn, user);
    if (b->strides) mlc_pt_expr_vars(b->strides[d], fn, user);
  }
  mlc_pt_expr_vars(b->elem_offset, fn, user);
}

/* a buffer param prints inline when its shape reads only earlier scalar params */
static bool param_inline(const MlcPrimFunc *f, int i) {
  ParamUse u = {f, i, true};
  buffer_vars(f->params[i].buf, note_param_use, &u);
  return u.ok;
}

static void pr_param(MlcPrinter *p, const MlcParam *prm, bool inl) {
  if (inl) {
    mlc_pt_printf(p, "%s: T.Buffer(", mlc_pt_define(p, prm->buf, prm->buf->name));
    pr_buffer_args(p, prm->buf, true);
    mlc_pt_puts(p, ")");
    return;
  }
  mlc_pt_printf(p, "%s: T.", mlc_pt_define(p, prm->var, prm->var->var.name));
  mlc_pt_dtype(p, prm->var->dtype);
}

typedef struct SizeVars { const MlcPrimFunc *f; MlcMap seen; MLC_VEC(const MlcExpr *) list; } SizeVars;

static void note_size_var(void *user, const MlcExpr *var) {
  SizeVars *sv = user;
  for (int j = 0; j < sv->f->n_params; j++)
    if (sv->f->params[j].var == var) return;
  if (mlc_map_has(&sv->seen, var)) return;
  mlc_map_put(&sv->seen, var, NULL);
  mlc_vec_push(&sv->list, var);
}

/* `n = T.int64()` for the sizes the match_buffer lines below use */
static void pr_size_vars(MlcPrinter *p, const MlcPrimFunc *f, const bool *inl) {
  SizeVars sv = {f, {0}, {0}};
  for (int i = 0; i < f->n_params; i++)
    if (f->params[i].buf && !inl[i]) buffer_vars(f->params[i].buf, note_size_var, &sv);
  for (size_t i = 0; i < sv.list.len; i++) {
    const MlcExpr *v = sv.list.data[i];
    mlc_pt_line_start(p);
    mlc_pt_printf(p, "%s = T.", mlc_pt_define(p, v, v->var.name));
    mlc_pt_dtype(p, v->dtype);
    mlc_pt_puts(p, "()");
    mlc_pt_line_end(p);
  }
  mlc_map_free(&sv.seen);
  mlc_vec_free(&sv.list);
}

static void pr_match_buffer(MlcPrinter *p, const MlcParam *prm) {
  mlc_pt_line_start(p);
  mlc_pt_printf(p, "%s = T.match_buffer(", mlc_pt_define(p, prm->buf, prm->buf->name));
  mlc_pt_printf(p, "%s, ", mlc_pt_name(p, prm->var, prm->var->var.name));
  pr_buffer_args(p, prm->buf, false);
  mlc_pt_puts(p, ")");
  mlc_pt_line_end(p);
}

void mlc_pt_prim_func(MlcPrinter *p, const MlcPrimFunc *f) {
  size_t mark = mlc_pt_scope(p);
  bool *inl = mlc_xcalloc((size_t)(f->n_params > 0 ? f->n_params : 1), sizeof *inl);
  for (int i = 0; i < f->n_params; i++) inl[i] = f->params[i].buf && param_inline(f, i);

  mlc_pt_line(p, "@T.prim_func");
  mlc_pt_line_start(p);
  mlc_pt_printf(p, "def %s(", f->name);
  for (int i = 0; i < f->n_params; i++) {
    if (i) mlc_pt_puts(p, ", ");
    pr_param(p, &f->params[i], inl[i]);
  }
  mlc_pt_puts(p, ")");
  if (f->ret.code != MLC_TC_VOID) {
    mlc_pt_puts(p, " -> T.");
    mlc_pt_dtype(p, f->ret);
  }
  mlc_pt_puts(p, ":");
  mlc_pt_line_end(p);

  p->indent++;
  pr_size_vars(p, f, inl);
  for (int i = 0; i < f->n_params; i++)
    if (f->params[i].buf && !inl[i]) pr_match_buffer(p, &f->params[i]);
  if (f->attrs.n) {
    mlc_pt_line_start(p);
    mlc_pt_puts(p, "T.func_attr(");
    mlc_pt_attr_dict(p, f->attrs, true);
    mlc_pt_puts(p, ")");
    mlc_pt_line_end(p);
  }
  const MlcBlock *root = implicit_root(f->body);
  if (root) pr_block_contents(p, root);
  else mlc_pt_stmt(p, f->body);
  p->indent--;

  free(inl);
  mlc_pt_unscope(p, mark);
}

/* ======================================================================== */
/* public entry points                                                      */
/* ======================================================================== */

void mlc_print_prim_func(const MlcPrimFunc *f, MlcStrBuf *out) {
  MlcPrinter p;
  mlc_pt_init(&p, out, NULL);
  mlc_pt_prim_func(&p, f);
  mlc_pt_free(&p);
}

void mlc_print_expr(const MlcExpr *e, MlcStrBuf *out) {
  MlcPrinter p;
  mlc_pt_init(&p, out, NULL);
  mlc_pt_expr(&p, e);
  mlc_pt_free(&p);
}

void mlc_print_stmt(const MlcStmt *s, MlcStrBuf *out) {
  MlcPrinter p;
  mlc_pt_init(&p, out, NULL);
  mlc_pt_stmt(&p, s);
  mlc_pt_free(&p);
}
