/* read_expr.c - TIR expressions from the syntax tree, and the helpers both
 * dialect readers share (paths, Python-style argument binding, dtypes,
 * attribute dicts, the name scope, shape expressions of struct info).
 *
 * Python literals are the one subtle part.  In TVMScript `x + 1` and
 * `A[i] * 0.5` give the literal the other operand's dtype, and `2 * 64` is
 * plain Python arithmetic done before any IR exists.  So a literal is read
 * into an untyped MlcRdVal and only becomes an immediate once an operation
 * (or its context: a store, an index, a loop bound) says which dtype it
 * needs; two literals fold at once with Python's semantics.  Everything else
 * goes through the builders of ir.h, with ctx->build_loc pointing at the
 * syntax so their own checks are reported where the user wrote the code. */
#include "text/read_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOC_AT(ctx, l) ((ctx)->build_loc = (l))

/* ======================================================================== */
/* paths, arguments, dtypes                                                 */
/* ======================================================================== */

bool mlc_rd_path(const Ast *a, char *buf, size_t cap) {
  if (!a || cap == 0) return false;
  if (a->kind == AST_NAME) {
    size_t n = strlen(a->name);
    if (n >= cap) return false;
    memcpy(buf, a->name, n + 1);
    return true;
  }
  if (a->kind != AST_ATTR || !mlc_rd_path(a->value, buf, cap)) return false;
  size_t used = strlen(buf), n = strlen(a->name);
  if (used + 1 + n >= cap) return false;
  buf[used] = '.';
  memcpy(buf + used + 1, a->name, n + 1);
  return true;
}

bool mlc_rd_is_path(const Ast *a, const char *path) {
  char buf[128];
  return mlc_rd_path(a, buf, sizeof buf) && strcmp(buf, path) == 0;
}

const char *mlc_rd_callee(const Ast *call, char *buf, size_t cap) {
  if (!call || call->kind != AST_CALL || !mlc_rd_path(call->func, buf, cap)) buf[0] = 0;
  return buf;
}

static bool count_error(MlcCtx *ctx, const Ast *call, const char *fname, int n_req, int n, int got) {
  if (n_req == n)
    return mlc_error(ctx, call->loc, "%s expects %d argument%s, got %d", fname, n, n == 1 ? "" : "s", got);
  return mlc_error(ctx, call->loc, "%s expects %d to %d arguments, got %d", fname, n_req, n, got);
}

bool mlc_rd_args(MlcCtx *ctx, const Ast *call, const char *fname, const char *spec,
                 const Ast *out[MLC_RD_MAX_ARGS]) {
  const char *names[MLC_RD_MAX_ARGS];
  size_t lens[MLC_RD_MAX_ARGS];
  int n = 0, n_req = -1;
  for (const char *p = spec; *p && n < MLC_RD_MAX_ARGS;) {
    if (*p == ';' || *p == ',') {
      if (*p == ';') n_req = n;
      p++;
      continue;
    }
    const char *q = p;
    while (*q && *q != ',' && *q != ';') q++;
    names[n] = p;
    lens[n++] = (size_t)(q - p);
    p = q;
  }
  if (n_req < 0) n_req = n;
  for (int i = 0; i < MLC_RD_MAX_ARGS; i++) out[i] = NULL;
  int got = call->items.n + call->n_kws;
  for (int i = 0; i < call->items.n; i++)
    if (call->items.items[i]->kind == AST_STAR)
      return mlc_error(ctx, call->items.items[i]->loc, "%s does not take *arguments", fname);
  if (call->items.n > n) return count_error(ctx, call, fname, n_req, n, got);
  for (int i = 0; i < call->items.n; i++) out[i] = call->items.items[i];
  for (int k = 0; k < call->n_kws; k++) {
    const AstKeyword *kw = &call->kws[k];
    if (!kw->name) return mlc_error(ctx, kw->loc, "%s does not take **arguments", fname);
    int j = 0;
    while (j < n && !(strlen(kw->name) == lens[j] && memcmp(kw->name, names[j], lens[j]) == 0)) j++;
    if (j == n) return mlc_error(ctx, kw->loc, "%s has no argument '%s'", fname, kw->name);
    if (out[j]) return mlc_error(ctx, kw->loc, "%s got argument '%s' twice", fname, kw->name);
    out[j] = kw->value;
  }
  for (int j = 0; j < n_req; j++)
    if (!out[j]) return count_error(ctx, call, fname, n_req, n, got);
  return true;
}

bool mlc_rd_int_literal(const Ast *a, int64_t *v) {
  if (a && a->kind == AST_UNARY && (a->op == AST_OP_NEG || a->op == AST_OP_POS) && a->lhs &&
      a->lhs->kind == AST_INT) {
    *v = a->op == AST_OP_NEG ? -a->lhs->int_val : a->lhs->int_val;
    return true;
  }
  if (!a || a->kind != AST_INT) return false;
  *v = a->int_val;
  return true;
}

bool mlc_rd_dtype(MlcCtx *ctx, const Ast *a, MlcDType *out) {
  char buf[64];
  const char *name;
  if (a->kind == AST_STR) name = a->str;
  else if (mlc_rd_path(a, buf, sizeof buf) && strncmp(buf, "T.", 2) == 0) name = buf + 2;
  else return mlc_error(ctx, a->loc, "expected a dtype such as \"float32\"");
  if (!mlc_dtype_parse(name, out)) return mlc_error(ctx, a->loc, "unknown dtype '%s'", name);
  if (out->lanes > MLC_RD_MAX_LANES)
    return mlc_error(ctx, a->loc, "dtype '%s' has more than %d lanes", name, MLC_RD_MAX_LANES);
  return true;
}

/* ======================================================================== */
/* scope                                                                    */
/* ======================================================================== */

void mlc_rd_scope_init(MlcRdScope *s, MlcCtx *ctx) {
  memset(s, 0, sizeof *s);
  s->ctx = ctx;
}

void mlc_rd_scope_free(MlcRdScope *s) {
  mlc_vec_free(&s->syms);
  mlc_vec_free(&s->marks);
  mlc_map_free(&s->top);
}

void mlc_rd_push(MlcRdScope *s) { mlc_vec_push(&s->marks, s->syms.len); }

void mlc_rd_pop(MlcRdScope *s) {
  size_t mark = s->marks.data[--s->marks.len];
  while (s->syms.len > mark) {
    const MlcRdSym *sym = &s->syms.data[--s->syms.len];
    mlc_map_put(&s->top, sym->name, sym->prev >= 0 ? (void *)(intptr_t)(sym->prev + 1) : NULL);
  }
}

static int lookup_index(const MlcRdScope *s, const char *name) {
  void *v = mlc_map_get(&s->top, name);
  return v ? (int)((intptr_t)v - 1) : -1;
}

MlcRdSym *mlc_rd_lookup(MlcRdScope *s, const char *name) {
  int i = lookup_index(s, name);
  return i < 0 ? NULL : &s->syms.data[i];
}

MlcRdSym *mlc_rd_define(MlcRdScope *s, const char *name, MlcRdSymKind kind, MlcLoc loc,
                        bool may_shadow, const char *what) {
  int old = lookup_index(s, name);
  int depth = (int)s->marks.len;
  if (old >= 0) {
    const MlcRdSym *o = &s->syms.data[old];
    if (!may_shadow || o->frame == depth) {
      mlc_error(s->ctx, loc, "duplicate %s '%s' (first defined at %d:%d)", what, name, o->loc.line,
                o->loc.col);
      return NULL;
    }
  }
  MlcRdSym sym = {.name = name, .kind = kind, .frame = depth, .prev = old, .loc = loc};
  mlc_vec_push(&s->syms, sym);
  mlc_map_put(&s->top, name, (void *)(intptr_t)s->syms.len);
  return &s->syms.data[s->syms.len - 1];
}

/* ======================================================================== */
/* literals and dtype conversion                                            */
/* ======================================================================== */

static bool is_lit(const MlcRdVal *v) { return v->kind != MLC_RDV_EXPR; }

/* A float32 immediate holds a float32 value: `T.float32(3.4028235e+38)`,
 * the shortest text of the largest float32, is that float32, not a double
 * just above it.  Values beyond float32's rounding range stay as they are for
 * the builder to refuse. */
static double as_f32(MlcDType t, double v) {
  if (t.code == MLC_TC_FLOAT && t.bits == 32 && isfinite(v) && fabs(v) < 3.4028235677973366e38)
    return (double)(float)v;
  return v;
}

static MlcExpr *float_imm(MlcCtx *ctx, MlcDType t, double v) { return mlc_e_float(ctx, t, as_f32(t, v)); }

static void set_expr(MlcRdVal *v, MlcExpr *e, MlcLoc loc) { *v = (MlcRdVal){MLC_RDV_EXPR, e, 0, 0, loc}; }

static bool set_checked(MlcRdVal *v, MlcExpr *e, MlcLoc loc) {
  set_expr(v, e, loc);
  return e != NULL;
}

MlcExpr *mlc_rd_val_expr(MlcRdScope *s, const MlcRdVal *v) {
  LOC_AT(s->ctx, v->loc);
  switch (v->kind) {
  case MLC_RDV_EXPR: return v->e;
  case MLC_RDV_INT: return mlc_e_int(s->ctx, v->i >= INT32_MIN && v->i <= INT32_MAX ? MLC_I32 : MLC_I64, v->i);
  case MLC_RDV_FLOAT: return float_imm(s->ctx, MLC_F32, v->f);
  }
  return NULL;
}

/* int32 -> int64 and the like: the only implicit conversion between typed values */
static bool widens(MlcDType from, MlcDType to) {
  return from.code == to.code && (from.code == MLC_TC_INT || from.code == MLC_TC_UINT) &&
         from.bits < to.bits;
}

static MlcExpr *lanes_to(MlcRdScope *s, MlcExpr *e, MlcDType want, const char *what, MlcLoc loc) {
  char bw[32], bg[32];
  if (!e || e->dtype.lanes == want.lanes) return e;
  if (e->dtype.lanes == 1) return mlc_e_broadcast(s->ctx, e, want.lanes);
  mlc_error(s->ctx, loc, "%s: expected %s, got %s", what, mlc_dtype_str(want, bw), mlc_dtype_str(e->dtype, bg));
  return NULL;
}

MlcExpr *mlc_rd_val_as(MlcRdScope *s, const MlcRdVal *v, MlcDType want, const char *what) {
  MlcCtx *ctx = s->ctx;
  MlcDType elem = mlc_dtype_elem(want);
  char bw[32], bg[32];
  MlcExpr *e = NULL;
  LOC_AT(ctx, v->loc);
  if (v->kind == MLC_RDV_INT && (mlc_dtype_is_int(elem) || mlc_dtype_is_float(elem))) {
    e = mlc_dtype_is_int(elem) ? mlc_e_int(ctx, elem, v->i) : float_imm(ctx, elem, (double)v->i);
  } else if (v->kind == MLC_RDV_FLOAT && mlc_dtype_is_float(elem)) {
    e = float_imm(ctx, elem, v->f);
  } else if (is_lit(v)) {
    mlc_error(ctx, v->loc, "%s: expected %s, got %s literal", what, mlc_dtype_str(want, bw),
              v->kind == MLC_RDV_INT ? "an int" : "a float");
    return NULL;
  } else {
    e = v->e;
    MlcDType got = mlc_dtype_elem(e->dtype);
    if (widens(got, elem)) e = mlc_e_cast(ctx, mlc_dtype_with_lanes(elem, e->dtype.lanes), e);
    else if (!mlc_dtype_eq(got, elem)) {
      mlc_error(ctx, v->loc, "%s: expected %s, got %s", what, mlc_dtype_str(want, bw),
                mlc_dtype_str(e->dtype, bg));
      return NULL;
    }
  }
  return lanes_to(s, e, want, what, v->loc);
}

/* the dtype two typed operands meet at, or false */
static bool meet(MlcDType a, MlcDType b, MlcDType *out) {
  if (a.lanes != b.lanes && a.lanes != 1 && b.lanes != 1) return false;
  MlcDType ea = mlc_dtype_elem(a), eb = mlc_dtype_elem(b), e;
  if (mlc_dtype_eq(ea, eb) || widens(eb, ea)) e = ea;
  else if (widens(ea, eb)) e = eb;
  else return false;
  *out = mlc_dtype_with_lanes(e, a.lanes > b.lanes ? a.lanes : b.lanes);
  return true;
}

bool mlc_rd_unify(MlcRdScope *s, MlcLoc loc, const char *op, const MlcRdVal *a,
                  const MlcRdVal *b, MlcExpr **ea, MlcExpr **eb) {
  char what[48], ba[32], bb[32];
  snprintf(what, sizeof what, "operand of '%s'", op);
  MlcDType t;
  if (is_lit(a) && is_lit(b)) {
    if (a->kind == MLC_RDV_FLOAT || b->kind == MLC_RDV_FLOAT) {
      t = MLC_F32;
    } else {
      MlcExpr *x = mlc_rd_val_expr(s, a), *y = mlc_rd_val_expr(s, b);
      if (!x || !y) return false;
      t = x->dtype.bits > y->dtype.bits ? x->dtype : y->dtype;
    }
  } else if (is_lit(a) || is_lit(b)) {
    t = (is_lit(a) ? b : a)->e->dtype;
  } else if (!meet(a->e->dtype, b->e->dtype, &t)) {
    return mlc_error(s->ctx, loc, "dtype mismatch in '%s': %s and %s", op,
                     mlc_dtype_str(a->e->dtype, ba), mlc_dtype_str(b->e->dtype, bb));
  }
  *ea = mlc_rd_val_as(s, a, t, what);
  *eb = *ea ? mlc_rd_val_as(s, b, t, what) : NULL;
  return *ea && *eb;
}

/* ---- folding two literals, as Python would ------------------------------- */

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t floor_mod(int64_t a, int64_t b) {
  int64_t m = a % b;
  return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}

static double float_mod(double a, double b) {
  double m = fmod(a, b);
  return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}

static bool int_pow(int64_t b, int64_t e, int64_t *out) {
  int64_t r = 1;
  for (int64_t i = 0; i < e; i++) {
    if (__builtin_mul_overflow(r, b, &r)) return false;
    if (r == 0 || r == 1) break; /* stays put: no need to loop a huge exponent */
  }
  if (r == -1 || (r == 1 && b == -1)) r = (e % 2) ? b : 1;
  *out = r;
  return true;
}

/* A comparison from the order of its operands (c < 0, 0, > 0); with a NaN
 * (unordered) every comparison but != is false. */
static bool cmp_of(int op, int c, bool unordered, bool *r) {
  switch (op) {
  case AST_OP_EQ: *r = !unordered && c == 0; return true;
  case AST_OP_NE: *r = unordered || c != 0; return true;
  case AST_OP_LT: *r = !unordered && c < 0; return true;
  case AST_OP_LE: *r = !unordered && c <= 0; return true;
  case AST_OP_GT: *r = !unordered && c > 0; return true;
  case AST_OP_GE: *r = !unordered && c >= 0; return true;
  default: return false;
  }
}

static const char *op_text(AstOp op) {
  static const char *const text[] = {
      [AST_OP_ADD] = "+", [AST_OP_SUB] = "-", [AST_OP_MUL] = "*", [AST_OP_DIV] = "/",
      [AST_OP_FLOORDIV] = "//", [AST_OP_MOD] = "%", [AST_OP_POW] = "**", [AST_OP_MATMUL] = "@",
      [AST_OP_BITAND] = "&", [AST_OP_BITOR] = "|", [AST_OP_BITXOR] = "^", [AST_OP_LSHIFT] = "<<",
      [AST_OP_RSHIFT] = ">>", [AST_OP_NEG] = "-", [AST_OP_POS] = "+", [AST_OP_NOT] = "not",
      [AST_OP_INVERT] = "~", [AST_OP_EQ] = "==", [AST_OP_NE] = "!=", [AST_OP_LT] = "<",
      [AST_OP_LE] = "<=", [AST_OP_GT] = ">", [AST_OP_GE] = ">=", [AST_OP_IN] = "in",
      [AST_OP_NOT_IN] = "not in", [AST_OP_IS] = "is", [AST_OP_IS_NOT] = "is not",
      [AST_OP_AND] = "and", [AST_OP_OR] = "or",
  };
  return (size_t)op < sizeof text / sizeof *text && text[op] ? text[op] : "?";
}

static bool fold_int(MlcRdScope *s, const Ast *a, int64_t x, int64_t y, MlcRdVal *out) {
  MlcCtx *ctx = s->ctx;
  int64_t r = 0;
  bool ok = true, b;
  if (cmp_of(a->op, (x > y) - (x < y), false, &b)) return set_checked(out, mlc_e_int(ctx, MLC_BOOL, b), a->loc);
  if ((a->op == AST_OP_FLOORDIV || a->op == AST_OP_MOD || a->op == AST_OP_DIV) && y == 0)
    return mlc_error(ctx, a->loc, "division by zero");
  switch (a->op) {
  case AST_OP_ADD: ok = !__builtin_add_overflow(x, y, &r); break;
  case AST_OP_SUB: ok = !__builtin_sub_overflow(x, y, &r); break;
  case AST_OP_MUL: ok = !__builtin_mul_overflow(x, y, &r); break;
  case AST_OP_FLOORDIV: ok = !(x == INT64_MIN && y == -1); if (ok) r = floor_div(x, y); break;
  case AST_OP_MOD: r = y == -1 ? 0 : floor_mod(x, y); break;
  case AST_OP_DIV: *out = (MlcRdVal){MLC_RDV_FLOAT, NULL, 0, (double)x / (double)y, a->loc}; return true;
  case AST_OP_POW:
    if (y < 0) {
      *out = (MlcRdVal){MLC_RDV_FLOAT, NULL, 0, pow((double)x, (double)y), a->loc};
      return true;
    }
    ok = int_pow(x, y, &r);
    break;
  case AST_OP_BITAND: r = x & y; break;
  case AST_OP_BITOR: r = x | y; break;
  case AST_OP_BITXOR: r = x ^ y; break;
  case AST_OP_LSHIFT:
    if (y < 0) return mlc_error(ctx, a->loc, "negative shift count");
    ok = y < 63 && x >= -(INT64_C(1) << (62 - y)) && x < (INT64_C(1) << (62 - y));
    if (ok) r = (int64_t)((uint64_t)x << y);
    break;
  case AST_OP_RSHIFT:
    if (y < 0) return mlc_error(ctx, a->loc, "negative shift count");
    r = y >= 63 ? (x < 0 ? -1 : 0) : x >> y;
    break;
  default: return mlc_error(ctx, a->loc, "operator '%s' is not supported in tensor programs", op_text(a->op));
  }
  if (!ok) return mlc_error(ctx, a->loc, "integer overflow in '%s'", op_text(a->op));
  *out = (MlcRdVal){MLC_RDV_INT, NULL, r, 0, a->loc};
  return true;
}

static bool fold_float(MlcRdScope *s, const Ast *a, double x, double y, MlcRdVal *out) {
  MlcCtx *ctx = s->ctx;
  double r;
  bool b;
  if (cmp_of(a->op, (x > y) - (x < y), isnan(x) || isnan(y), &b)) return set_checked(out, mlc_e_int(ctx, MLC_BOOL, b), a->loc);
  if ((a->op == AST_OP_DIV || a->op == AST_OP_FLOORDIV || a->op == AST_OP_MOD) && y == 0)
    return mlc_error(ctx, a->loc, "division by zero");
  switch (a->op) {
  case AST_OP_ADD: r = x + y; break;
  case AST_OP_SUB: r = x - y; break;
  case AST_OP_MUL: r = x * y; break;
  case AST_OP_DIV: r = x / y; break;
  case AST_OP_FLOORDIV: r = floor(x / y); break;
  case AST_OP_MOD: r = float_mod(x, y); break;
  case AST_OP_POW: r = pow(x, y); break;
  default: return mlc_error(ctx, a->loc, "operator '%s' does not apply to float literals", op_text(a->op));
  }
  *out = (MlcRdVal){MLC_RDV_FLOAT, NULL, 0, r, a->loc};
  return true;
}

static bool fold(MlcRdScope *s, const Ast *a, const MlcRdVal *l, const MlcRdVal *r, MlcRdVal *out) {
  if (l->kind == MLC_RDV_INT && r->kind == MLC_RDV_INT) return fold_int(s, a, l->i, r->i, out);
  double x = l->kind == MLC_RDV_INT ? (double)l->i : l->f;
  double y = r->kind == MLC_RDV_INT ? (double)r->i : r->f;
  return fold_float(s, a, x, y, out);
}

/* ======================================================================== */
/* expressions                                                              */
/* ======================================================================== */

static bool rd(MlcRdScope *s, const Ast *a, MlcRdVal *out);

MlcExpr *mlc_rd_expr(MlcRdScope *s, const Ast *a) {
  MlcRdVal v;
  return rd(s, a, &v) ? mlc_rd_val_expr(s, &v) : NULL;
}

MlcExpr *mlc_rd_expr_as(MlcRdScope *s, const Ast *a, MlcDType want, const char *what) {
  MlcRdVal v;
  return rd(s, a, &v) ? mlc_rd_val_as(s, &v, want, what) : NULL;
}

bool mlc_rd_val(MlcRdScope *s, const Ast *a, MlcRdVal *out) { return rd(s, a, out); }

MlcExpr *mlc_rd_int_expr(MlcRdScope *s, const Ast *a, const char *what) {
  char b[32];
  MlcRdVal v;
  if (!rd(s, a, &v)) return NULL;
  if (v.kind == MLC_RDV_FLOAT) return mlc_error(s->ctx, a->loc, "%s must be an integer, got a float literal", what), NULL;
  MlcExpr *e = mlc_rd_val_expr(s, &v);
  if (e && !mlc_dtype_is_int(e->dtype))
    return mlc_error(s->ctx, a->loc, "%s must be an integer, got %s", what, mlc_dtype_str(e->dtype, b)), NULL;
  return e;
}

static MlcExpr *rd_bool(MlcRdScope *s, const Ast *a, const char *what) {
  return mlc_rd_expr_as(s, a, MLC_BOOL, what);
}

static bool rd_name(MlcRdScope *s, const Ast *a, MlcRdVal *out) {
  MlcRdSym *sym = mlc_rd_lookup(s, a->name);
  if (!sym && s->auto_vars) {
    LOC_AT(s->ctx, a->loc);
    MlcExpr *v = mlc_e_var(s->ctx, a->name, s->auto_dtype);
    sym = mlc_rd_define(s, a->name, MLC_RD_VAR, a->loc, false, "name");
    if (!sym) return false;
    sym->var = v;
    sym->implicit = true;
  }
  if (!sym) return mlc_error(s->ctx, a->loc, "undefined name '%s'", a->name);
  if (sym->kind == MLC_RD_BUFFER)
    return mlc_error(s->ctx, a->loc, "buffer '%s' is not a value; index it as %s[...]", a->name, a->name);
  set_expr(out, sym->var, a->loc);
  return true;
}

/* the indices of a subscript: `A[i, j]` has a tuple index, `A[i]` one */
static const AstList *index_list(const Ast *sub, AstList *one) {
  if (sub->index->kind == AST_TUPLE) return &sub->index->items;
  one->items = (Ast **)&sub->index;
  one->n = 1;
  return one;
}

static bool rd_load(MlcRdScope *s, const Ast *a, MlcRdVal *out) {
  MlcCtx *ctx = s->ctx;
  MlcRdSym *sym = a->value->kind == AST_NAME ? mlc_rd_lookup(s, a->value->name) : NULL;
  if (a->value->kind == AST_NAME && !sym) return mlc_error(ctx, a->value->loc, "undefined name '%s'", a->value->name);
  if (!sym || sym->kind != MLC_RD_BUFFER) return mlc_error(ctx, a->value->loc, "only buffers can be indexed");
  MlcBuffer *buf = sym->buf;
  AstList one;
  const AstList *idx = index_list(a, &one);
  if (idx->n != buf->ndim)
    return mlc_error(ctx, a->loc, "buffer '%s' has %d dimension%s, got %d ind%s", buf->name, buf->ndim,
                     buf->ndim == 1 ? "" : "s", idx->n, idx->n == 1 ? "ex" : "ices");
  MlcExpr *ix[MLC_RD_MAX_RANK];
  for (int i = 0; i < idx->n; i++) {
    if (idx->items[i]->kind == AST_SLICE)
      return mlc_error(ctx, idx->items[i]->loc, "slices are only allowed in T.reads / T.writes");
    if (!(ix[i] = mlc_rd_int_expr(s, idx->items[i], "buffer index"))) return false;
  }
  LOC_AT(ctx, a->loc);
  return set_checked(out, mlc_e_load(ctx, buf, ix, idx->n), a->loc);
}

static bool bin_of(AstOp op, bool bools, MlcBinOp *out) {
  switch (op) {
  case AST_OP_ADD: *out = MLC_BIN_ADD; return true;
  case AST_OP_SUB: *out = MLC_BIN_SUB; return true;
  case AST_OP_MUL: *out = MLC_BIN_MUL; return true;
  case AST_OP_DIV: *out = MLC_BIN_DIV; return true;
  case AST_OP_FLOORDIV: *out = MLC_BIN_FLOORDIV; return true;
  case AST_OP_MOD: *out = MLC_BIN_FLOORMOD; return true;
  case AST_OP_EQ: *out = MLC_BIN_EQ; return true;
  case AST_OP_NE: *out = MLC_BIN_NE; return true;
  case AST_OP_LT: *out = MLC_BIN_LT; return true;
  case AST_OP_LE: *out = MLC_BIN_LE; return true;
  case AST_OP_GT: *out = MLC_BIN_GT; return true;
  case AST_OP_GE: *out = MLC_BIN_GE; return true;
  case AST_OP_AND: *out = MLC_BIN_AND; return true;
  case AST_OP_OR: *out = MLC_BIN_OR; return true;
  /* `&` and `|` between conditions mean `and` / `or`, as in TVMScript */
  case AST_OP_BITAND: *out = MLC_BIN_AND; return bools;
  case AST_OP_BITOR: *out = MLC_BIN_OR; return bools;
  default: return false;
  }
}

static bool is_bool_val(const MlcRdVal *v) { return v->kind == MLC_RDV_EXPR && v->e->dtype.code == MLC_TC_BOOL; }

static bool rd_binary(MlcRdScope *s, const Ast *a, MlcRdVal *out) {
  MlcCtx *ctx = s->ctx;
  MlcRdVal l, r;
  if (!rd(s, a->lhs, &l) || !rd(s, a->rhs, &r)) return false;
  if (is_lit(&l) && is_lit(&r)) return fold(s, a, &l, &r, out);
  MlcExpr *x, *y;
  if (a->op == AST_OP_POW) {
    MlcExpr *args[2];
    if (!mlc_rd_unify(s, a->loc, "**", &l, &r, &args[0], &args[1])) return false;
    LOC_AT(ctx, a->loc);
    return set_checked(out, mlc_e_call(ctx, MLC_INTRIN_POW, args, 2), a->loc);
  }
  MlcBinOp op;
  if (a->op == AST_OP_IN || a->op == AST_OP_NOT_IN || a->op == AST_OP_IS || a->op == AST_OP_IS_NOT ||
      !bin_of(a->op, is_bool_val(&l) && is_bool_val(&r), &op))
    return mlc_error(ctx, a->loc, "operator '%s' is not supported in tensor programs", op_text(a->op));
  if (!mlc_rd_unify(s, a->loc, op_text(a->op), &l, &r, &x, &y)) return false;
  LOC_AT(ctx, a->loc);
  return set_checked(out, mlc_e_bin(ctx, op, x, y), a->loc);
}

static bool rd_boolop(MlcRdScope *s, const Ast *a, MlcRdVal *out) {
  MlcExpr *x = rd_bool(s, a->lhs, "operand of 'and'/'or'");
  MlcExpr *y = x ? rd_bool(s, a->rhs, "operand of 'and'/'or'") : NULL;
  if (!y) return false;
  LOC_AT(s->ctx, a->loc);
  return set_checked(out, mlc_e_bin(s->ctx, a->op == AST_OP_AND ? MLC_BIN_AND : MLC_BIN_OR, x, y), a->loc);
}

static bool rd_unary(MlcRdScope *s, const Ast *a, MlcRdVal *out) {
  MlcCtx *ctx = s->ctx;
  MlcRdVal v;
  if (!rd(s, a->lhs, &v)) return false;
  LOC_AT(ctx, a->loc);
  switch (a->op) {
  case AST_OP_POS: *out = v; return true;
  case AST_OP_NEG:
    if (v.kind == MLC_RDV_INT) {
      if (v.i == INT64_MIN) return mlc_error(ctx, a->loc, "integer overflow in '-'");
      *out = (MlcRdVal){MLC_RDV_INT, NULL, -v.i, 0, a->loc};
      return true;
    }
    if (v.kind == MLC_RDV_FLOAT) {
      *out = (MlcRdVal){MLC_RDV_FLOAT, NULL, 0, -v.f, a->loc};
      return true;
    }
    return set_checked(out, mlc_e_neg(ctx, v.e), a->loc);
  case AST_OP_NOT:
    if (is_lit(&v)) return set_checked(out, mlc_e_int(ctx, MLC_BOOL, v.kind == MLC_RDV_INT ? v.i == 0 : v.f == 0), a->loc);
    return set_checked(out, mlc_e_not(ctx, v.e), a->loc);
  case AST_OP_INVERT:
    if (v.kind == MLC_RDV_INT) {
      *out = (MlcRdVal){MLC_RDV_INT, NULL, ~v.i, 0, a->loc};
      return true;
    }
    break;
  default: break;
  }
  return mlc_error(ctx, a->loc, "operator '%s' is not supported in tensor programs", op_text(a->op));
}

static bool rd_ifexp(MlcRdScope *s, const Ast *a, MlcRdVal *out) {
  MlcExpr *c = rd_bool(s, a->test, "condition of 'if'");
  MlcRdVal t, f;
  MlcExpr *x, *y;
  if (!c || !rd(s, a->lhs, &t) || !rd(s, a->rhs, &f) || !mlc_rd_unify(s, a->loc, "if-else", &t, &f, &x, &y))
    return false;
  LOC_AT(s->ctx, a->loc);
  return set_checked(out, mlc_e_select(s->ctx, c, x, y), a->loc);
}

/* ---- calls ---------------------------------------------------------------- */

typedef bool (*CallFn)(MlcRdScope *s, const Ast *call, const char *fname, const Ast **args, MlcRdVal *out);

static bool call_select(MlcRdScope *s, const Ast *call, const char *fname, const Ast **args, MlcRdVal *out) {
  MlcExpr *c = rd_bool(s, args[0], "condition of T.Select"), *x, *y;
  MlcRdVal t, f;
  if (!c || !rd(s, args[1], &t) || !rd(s, args[2], &f) || !mlc_rd_unify(s, call->loc, fname, &t, &f, &x, &y))
    return false;
  LOC_AT(s->ctx, call->loc);
  return set_checked(out, mlc_e_select(s->ctx, c, x, y), call->loc);
}

static bool call_cast(MlcRdScope *s, const Ast *call, const char *fname, const Ast **args, MlcRdVal *out) {
  MlcDType t;
  if (!mlc_rd_dtype(s->ctx, args[0], &t)) return false;
  MlcExpr *e = mlc_rd_expr(s, args[1]);
  LOC_AT(s->ctx, call->loc);
  return set_checked(out, mlc_e_cast(s->ctx, t, e), call->loc);
}

static bool rd_lanes(MlcRdScope *s, const Ast *a, int *lanes) {
  int64_t v;
  if (!mlc_rd_int_literal(a, &v) || v < 2 || v > MLC_RD_MAX_LANES)
    return mlc_error(s->ctx, a->loc, "lanes must be an int literal from 2 to %d", MLC_RD_MAX_LANES);
  *lanes = (int)v;
  return true;
}

static bool call_ramp(MlcRdScope *s, const Ast *call, const char *fname, const Ast **args, MlcRdVal *out) {
  MlcRdVal b, st;
  MlcExpr *x, *y;
  int lanes = 0;
  if (!rd(s, args[0], &b) || !rd(s, args[1], &st) || !rd_lanes(s, args[2], &lanes) ||
      !mlc_rd_unify(s, call->loc, fname, &b, &st, &x, &y))
    return false;
  LOC_AT(s->ctx, call->loc);
  return set_checked(out, mlc_e_ramp(s->ctx, x, y, lanes), call->loc);
}

static bool call_bcast(MlcRdScope *s, const Ast *call, const char *fname, const Ast **args, MlcRdVal *out) {
  int lanes = 0;
  MlcExpr *v = mlc_rd_expr(s, args[0]);
  if (!v || !rd_lanes(s, args[1], &lanes)) return false;
  LOC_AT(s->ctx, call->loc);
  return set_checked(out, mlc_e_broadcast(s->ctx, v, lanes), call->loc);
}

/* T.Let(v, value, body): v is a var declared before (`v = T.int32()`), or a
 * new name bound for the body only */
static bool call_let(MlcRdScope *s, const Ast *call, const char *fname, const Ast **args, MlcRdVal *out) {
  MlcCtx *ctx = s->ctx;
  if (args[0]->kind != AST_NAME) return mlc_error(ctx, args[0]->loc, "%s binds a name", fname);
  MlcRdVal v;
  if (!rd(s, args[1], &v)) return false;
  MlcRdSym *sym = mlc_rd_lookup(s, args[0]->name); /* after reading: a definition moves symbols */
  MlcExpr *var, *value, *body;
  if (sym && sym->kind == MLC_RD_VAR) {
    var = sym->var;
    if (!(value = mlc_rd_val_as(s, &v, var->dtype, "value of T.Let"))) return false;
    body = mlc_rd_expr(s, args[2]);
  } else {
    if (!(value = mlc_rd_val_expr(s, &v))) return false;
    LOC_AT(ctx, args[0]->loc);
    var = mlc_e_var(ctx, args[0]->name, value->dtype);
    mlc_rd_push(s);
    MlcRdSym *def = mlc_rd_define(s, args[0]->name, MLC_RD_VAR, args[0]->loc, false, "variable");
    if (def) def->var = var;
    body = def ? mlc_rd_expr(s, args[2]) : NULL;
    mlc_rd_pop(s);
  }
  LOC_AT(ctx, call->loc);
  return set_checked(out, mlc_e_let(ctx, var, value, body), call->loc);
}

/* T.min_value / T.max_value / T.infinity of a dtype */
static bool call_limit(MlcRdScope *s, const Ast *call, const char *fname, const Ast **args, MlcRdVal *out) {
  MlcCtx *ctx = s->ctx;
  MlcDType t;
  if (!mlc_rd_dtype(ctx, args[0], &t)) return false;
  bool is_max = strcmp(fname, "T.min_value") != 0;
  bool inf = strcmp(fname, "T.infinity") == 0;
  LOC_AT(ctx, call->loc);
  if (mlc_dtype_is_float(t)) {
    double big = t.bits == 64 ? 1.7976931348623157e308
                 : t.bits == 32 ? 3.4028234663852886e38
                 : t.code == MLC_TC_BFLOAT ? 3.3895313892515355e38 : 65504.0;
    if (inf) big = INFINITY;
    return set_checked(out, mlc_e_float(ctx, t, is_max ? big : -big), call->loc);
  }
  if (inf || !mlc_dtype_is_int(t)) return mlc_error(ctx, args[0]->loc, "%s does not apply to this dtype", fname);
  int64_t v;
  if (t.code == MLC_TC_UINT) v = !is_max ? 0 : t.bits == 64 ? -1 : (INT64_C(1) << t.bits) - 1;
  else if (t.bits == 64) v = is_max ? INT64_MAX : INT64_MIN;
  else v = is_max ? (INT64_C(1) << (t.bits - 1)) - 1 : -(INT64_C(1) << (t.bits - 1));
  return set_checked(out, mlc_e_int(ctx, t, v), call->loc);
}

/* Table of the named calls with their own reading: name, handler, parameters. */
#define MLC_RD_EXPR_CALLS(X)                                        \
  X("T.Select", call_select, "condition,true_value,false_value")  \
  X("T.Cast", call_cast, "dtype,value")                           \
  X("T.Ramp", call_ramp, "base,stride,lanes")                     \
  X("T.ramp", call_ramp, "base,stride,lanes")                     \
  X("T.Broadcast", call_bcast, "value,lanes")                     \
  X("T.broadcast", call_bcast, "value,lanes")                     \
  X("T.Let", call_let, "var,value,body")                          \
  X("T.min_value", call_limit, "dtype")                           \
  X("T.max_value", call_limit, "dtype")                           \
  X("T.infinity", call_limit, "dtype")

static const struct { const char *name; CallFn fn; const char *spec; } expr_calls[] = {
#define X(name, fn, spec) {name, fn, spec},
    MLC_RD_EXPR_CALLS(X)
#undef X
};

/* binary operators called by name: the call spellings of ir.h's table plus
 * the aliases TVMScript also accepts */
static const struct { const char *name; MlcBinOp op; } bin_calls[] = {
#define X(n, py, call, prec, isbool) {call, MLC_BIN_##n},
    MLC_BINOPS(X)
#undef X
    {"T.truncdiv", MLC_BIN_DIV},
};

static const struct { const char *name; MlcIntrin op; int arity, rule; } intrin_calls[] = {
#define X(n, name, arity, rule) {name, MLC_INTRIN_##n, arity, rule},
    MLC_INTRINSICS(X)
#undef X
};

/* T. functions that are statements or declarations, never values */
static const char *const stmt_only[] = {
    "T.block", "T.sblock", "T.init", "T.where", "T.reads", "T.writes", "T.block_attr",
    "T.func_attr", "T.alloc_buffer", "T.match_buffer", "T.Buffer", "T.var", "T.evaluate",
    "T.grid", "T.serial", "T.parallel", "T.vectorized", "T.unroll", "T.thread_binding",
    "T.axis.spatial", "T.axis.reduce", "T.axis.opaque", "T.axis.remap", "T.axis.S",
    "T.axis.R", "range", "T.prim_func",
};

static bool call_binop(MlcRdScope *s, const Ast *call, const char *fname, MlcBinOp op, MlcRdVal *out) {
  const Ast *args[MLC_RD_MAX_ARGS];
  MlcRdVal l, r;
  MlcExpr *x, *y;
  if (!mlc_rd_args(s->ctx, call, fname, "a,b", args) || !rd(s, args[0], &l) || !rd(s, args[1], &r) ||
      !mlc_rd_unify(s, call->loc, fname, &l, &r, &x, &y))
    return false;
  LOC_AT(s->ctx, call->loc);
  return set_checked(out, mlc_e_bin(s->ctx, op, x, y), call->loc);
}

static bool call_intrin(MlcRdScope *s, const Ast *call, const char *fname, MlcIntrin op, int arity,
                        int rule, MlcRdVal *out) {
  MlcCtx *ctx = s->ctx;
  char b[32];
  MlcExpr *args[4];
  if (call->n_kws || call->items.n != arity)
    return count_error(ctx, call, fname, arity, arity, call->items.n + call->n_kws);
  if (rule == 1) { /* if_then_else(cond, a, b) */
    MlcRdVal t, f;
    if (!(args[0] = rd_bool(s, call->items.items[0], "condition of T.if_then_else")) ||
        !rd(s, call->items.items[1], &t) || !rd(s, call->items.items[2], &f) ||
        !mlc_rd_unify(s, call->loc, fname, &t, &f, &args[1], &args[2]))
      return false;
  } else if (rule == 6) { /* dot4_u8s8(acc, a, b): vectors whose dtypes mlc_e_call checks */
    for (int i = 0; i < arity; i++) {
      MlcRdVal v;
      if (!rd(s, call->items.items[i], &v)) return false;
      if (v.kind != MLC_RDV_EXPR)
        return mlc_error(ctx, call->items.items[i]->loc, "%s takes vector expressions, not literals", fname);
      args[i] = v.e;
    }
  } else if (rule == 4) { /* checked_index(i, n): integers, n taking i's dtype */
    MlcRdVal i, n;
    if (!rd(s, call->items.items[0], &i) || !rd(s, call->items.items[1], &n) ||
        !mlc_rd_unify(s, call->loc, fname, &i, &n, &args[0], &args[1]))
      return false;
    if (!mlc_dtype_is_int(args[0]->dtype))
      return mlc_error(ctx, call->loc, "%s expects integers, got %s", fname, mlc_dtype_str(args[0]->dtype, b));
  } else { /* float math: literals take the dtype of the first typed argument */
    MlcRdVal v[4];
    MlcDType t = MLC_F32;
    bool typed = false;
    for (int i = 0; i < arity; i++) {
      if (!rd(s, call->items.items[i], &v[i])) return false;
      if (!typed && v[i].kind == MLC_RDV_EXPR) t = v[i].e->dtype, typed = true;
    }
    if (!mlc_dtype_is_float(t))
      return mlc_error(ctx, call->loc, "%s expects a float argument, got %s", fname, mlc_dtype_str(t, b));
    for (int i = 0; i < arity; i++)
      if (!(args[i] = mlc_rd_val_as(s, &v[i], t, fname))) return false;
  }
  LOC_AT(ctx, call->loc);
  return set_checked(out, mlc_e_call(ctx, op, args, arity), call->loc);
}

/* T.float32(x), T.int64(4), T.bool(True): an immediate of a literal, a cast
 * of an expression; T.float32("inf") for the special values */
static bool call_dtype(MlcRdScope *s, const Ast *call, const char *fname, MlcDType t, MlcRdVal *out) {
  MlcCtx *ctx = s->ctx;
  const Ast *args[MLC_RD_MAX_ARGS];
  if (!mlc_rd_args(ctx, call, fname, ";expr", args)) return false;
  if (!args[0]) return mlc_error(ctx, call->loc, "%s() declares a variable; assign it to a name", fname);
  if (t.code == MLC_TC_HANDLE || t.code == MLC_TC_VOID) return mlc_error(ctx, call->loc, "%s is not a value", fname);
  MlcDType elem = mlc_dtype_elem(t);
  MlcExpr *e;
  LOC_AT(ctx, call->loc);
  if (args[0]->kind == AST_STR) {
    const char *x = args[0]->str;
    double f = strcmp(x, "inf") == 0 ? INFINITY : strcmp(x, "-inf") == 0 ? -INFINITY : NAN;
    if (!mlc_dtype_is_float(t) || (!isinf(f) && strcmp(x, "nan") != 0))
      return mlc_error(ctx, args[0]->loc, "%s expects a number", fname);
    e = mlc_e_float(ctx, elem, f);
  } else {
    MlcRdVal v;
    if (!rd(s, args[0], &v)) return false;
    LOC_AT(ctx, call->loc);
    if (v.kind == MLC_RDV_INT && elem.code == MLC_TC_BOOL) e = mlc_e_int(ctx, elem, v.i);
    else if (v.kind == MLC_RDV_FLOAT && mlc_dtype_is_int(elem) && v.f == floor(v.f) && fabs(v.f) < 9.2e18)
      e = mlc_e_int(ctx, elem, (int64_t)v.f);
    else if (is_lit(&v)) e = mlc_rd_val_as(s, &v, elem, fname);
    else e = mlc_dtype_eq(mlc_dtype_elem(v.e->dtype), elem) ? v.e : mlc_e_cast(ctx, mlc_dtype_with_lanes(elem, v.e->dtype.lanes), v.e);
  }
  LOC_AT(ctx, call->loc);
  if (e && e->dtype.lanes != t.lanes) e = lanes_to(s, e, t, fname, call->loc);
  return set_checked(out, e, call->loc);
}

/* T.call_extern("float32", "f", args...) or T.call_extern("f", args...,
 * dtype="int32") (the same for T.call_packed): the result dtype, then the
 * function's name, then its arguments, literals read as int32 / float32 */
static bool call_out(MlcRdScope *s, const Ast *call, const char *fname, MlcIntrin op, MlcRdVal *out) {
  MlcCtx *ctx = s->ctx;
  const AstList *it = &call->items;
  MlcDType t = MLC_I32;
  int first = 0;
  bool dtype_first = it->n >= 2 && it->items[0]->kind == AST_STR && it->items[1]->kind == AST_STR;
  if (dtype_first && !mlc_dtype_parse(it->items[0]->str, &t))
    return mlc_error(ctx, it->items[0]->loc, "%s: '%s' is not a dtype", fname, it->items[0]->str);
  if (dtype_first) first = 1;
  for (int k = 0; k < call->n_kws; k++) {
    const Ast *v = call->kws[k].value;
    if (strcmp(call->kws[k].name, "dtype") != 0 || dtype_first || v->kind != AST_STR || !mlc_dtype_parse(v->str, &t))
      return mlc_error(ctx, v->loc, "%s takes only dtype=\"...\" as a keyword, when no dtype comes first", fname);
  }
  if (first >= it->n || it->items[first]->kind != AST_STR)
    return mlc_error(ctx, call->loc, "%s expects the function's name as a string", fname);
  int n = it->n - first;
  if (n > 64) return mlc_error(ctx, call->loc, "%s: more than 63 arguments", fname);
  MlcExpr *args[64];
  args[0] = mlc_e_str(ctx, it->items[first]->str);
  for (int i = 1; i < n; i++) {
    MlcRdVal v;
    if (!rd(s, it->items[first + i], &v)) return false;
    if (v.kind == MLC_RDV_INT) args[i] = mlc_e_int(ctx, MLC_I32, v.i);
    else if (v.kind == MLC_RDV_FLOAT) args[i] = mlc_e_float(ctx, MLC_F32, v.f);
    else args[i] = v.e;
  }
  LOC_AT(ctx, call->loc);
  return set_checked(out, mlc_e_call_typed(ctx, op, t, args, n), call->loc);
}

/* T.address_of(A[i, j]), and A.access_ptr("r") (any access mask; an offset
 * argument is not supported): the address of A[0, ..] */
static bool call_address(MlcRdScope *s, const Ast *call, const char *fname, const char *buffer, MlcRdVal *out) {
  MlcCtx *ctx = s->ctx;
  MlcExpr *load = NULL;
  if (buffer) {
    MlcRdSym *sym = mlc_rd_lookup(s, mlc_intern(ctx, buffer));
    if (!sym || sym->kind != MLC_RD_BUFFER) return mlc_error(ctx, call->loc, "'%s' is not a buffer", buffer);
    if (call->n_kws || call->items.n != 1 || call->items.items[0]->kind != AST_STR)
      return mlc_error(ctx, call->loc, "%s takes one access mask string (\"r\", \"w\" or \"rw\")", fname);
    MlcExpr *zeros[MLC_RD_MAX_RANK];
    for (int d = 0; d < sym->buf->ndim; d++) zeros[d] = mlc_e_int(ctx, sym->buf->shape[d]->dtype, 0);
    load = mlc_e_load(ctx, sym->buf, zeros, sym->buf->ndim);
  } else {
    MlcRdVal v;
    if (call->n_kws || call->items.n != 1) return count_error(ctx, call, fname, 1, 1, call->items.n + call->n_kws);
    if (!rd(s, call->items.items[0], &v)) return false;
    load = v.kind == MLC_RDV_EXPR ? v.e : NULL;
  }
  LOC_AT(ctx, call->loc);
  if (!load || load->kind != MLC_EXPR_LOAD)
    return mlc_error(ctx, call->loc, "%s takes a buffer element such as A[0, 0]", fname);
  return set_checked(out, mlc_e_call(ctx, MLC_INTRIN_ADDRESS_OF, &load, 1), call->loc);
}

/* T.reinterpret("int32", x): x's bits as the dtype */
static bool call_reinterpret(MlcRdScope *s, const Ast *call, const char *fname, MlcRdVal *out) {
  MlcCtx *ctx = s->ctx;
  MlcDType t;
  MlcRdVal v;
  if (call->n_kws || call->items.n != 2) return count_error(ctx, call, fname, 2, 2, call->items.n + call->n_kws);
  const Ast *d = call->items.items[0];
  if (d->kind != AST_STR || !mlc_dtype_parse(d->str, &t))
    return mlc_error(ctx, d->loc, "%s expects a dtype string first", fname);
  if (!rd(s, call->items.items[1], &v)) return false;
  if (v.kind != MLC_RDV_EXPR) return mlc_error(ctx, call->loc, "%s needs a typed value, not a bare literal", fname);
  LOC_AT(ctx, call->loc);
  return set_checked(out, mlc_e_call_typed(ctx, MLC_INTRIN_REINTERPRET, t, &v.e, 1), call->loc);
}

static bool rd_call(MlcRdScope *s, const Ast *a, MlcRdVal *out) {
  MlcCtx *ctx = s->ctx;
  char path[128];
  const char *p = mlc_rd_callee(a, path, sizeof path);
  if (!*p) return mlc_error(ctx, a->loc, "unsupported call");
  if (!strcmp(p, "T.call_extern")) return call_out(s, a, p, MLC_INTRIN_CALL_EXTERN, out);
  if (!strcmp(p, "T.call_packed")) return call_out(s, a, p, MLC_INTRIN_CALL_PACKED, out);
  if (!strcmp(p, "T.address_of")) return call_address(s, a, p, NULL, out);
  if (!strcmp(p, "T.reinterpret")) return call_reinterpret(s, a, p, out);
  size_t plen = strlen(p);
  if (plen > 11 && !strcmp(p + plen - 11, ".access_ptr")) {
    char buffer[128];
    snprintf(buffer, sizeof buffer, "%.*s", (int)(plen - 11), p);
    if (!strchr(buffer, '.')) return call_address(s, a, p, buffer, out);
  }
  for (size_t i = 0; i < sizeof bin_calls / sizeof *bin_calls; i++)
    if (strcmp(p, bin_calls[i].name) == 0) return call_binop(s, a, p, bin_calls[i].op, out);
  for (size_t i = 0; i < sizeof intrin_calls / sizeof *intrin_calls; i++)
    if (strcmp(p, intrin_calls[i].name) == 0)
      return call_intrin(s, a, p, intrin_calls[i].op, intrin_calls[i].arity, intrin_calls[i].rule, out);
  for (size_t i = 0; i < sizeof expr_calls / sizeof *expr_calls; i++)
    if (strcmp(p, expr_calls[i].name) == 0) {
      const Ast *args[MLC_RD_MAX_ARGS];
      return mlc_rd_args(ctx, a, p, expr_calls[i].spec, args) && expr_calls[i].fn(s, a, p, args, out);
    }
  MlcDType t;
  if (strncmp(p, "T.", 2) == 0 && mlc_dtype_parse(p + 2, &t) && t.lanes <= MLC_RD_MAX_LANES)
    return call_dtype(s, a, p, t, out);
  for (size_t i = 0; i < sizeof stmt_only / sizeof *stmt_only; i++)
    if (strcmp(p, stmt_only[i]) == 0) return mlc_error(ctx, a->loc, "%s cannot be used inside an expression", p);
  return mlc_error(ctx, a->loc, "unknown function '%s'", p);
}

static bool rd(MlcRdScope *s, const Ast *a, MlcRdVal *out) {
  MlcCtx *ctx = s->ctx;
  char path[128];
  LOC_AT(ctx, a->loc);
  switch (a->kind) {
  case AST_INT: *out = (MlcRdVal){MLC_RDV_INT, NULL, a->int_val, 0, a->loc}; return true;
  case AST_FLOAT: *out = (MlcRdVal){MLC_RDV_FLOAT, NULL, 0, a->float_val, a->loc}; return true;
  case AST_TRUE: case AST_FALSE: return set_checked(out, mlc_e_int(ctx, MLC_BOOL, a->kind == AST_TRUE), a->loc);
  case AST_STR: return set_checked(out, mlc_e_str(ctx, a->str), a->loc);
  case AST_NAME: return rd_name(s, a, out);
  case AST_SUBSCRIPT: return rd_load(s, a, out);
  case AST_BINOP: case AST_COMPARE: return rd_binary(s, a, out);
  case AST_BOOLOP: return rd_boolop(s, a, out);
  case AST_UNARY: return rd_unary(s, a, out);
  case AST_IFEXP: return rd_ifexp(s, a, out);
  case AST_CALL: return rd_call(s, a, out);
  case AST_ATTR:
    if (mlc_rd_path(a, path, sizeof path)) return mlc_error(ctx, a->loc, "'%s' is not a value", path);
    return mlc_error(ctx, a->loc, "attribute access is not supported in tensor programs");
  case AST_NONE: return mlc_error(ctx, a->loc, "None is not a value in tensor programs");
  case AST_TUPLE: case AST_LIST: return mlc_error(ctx, a->loc, "a tuple or list is not a value here");
  case AST_SLICE: return mlc_error(ctx, a->loc, "slices are only allowed in T.reads / T.writes");
  default: return mlc_error(ctx, a->loc, "unsupported expression");
  }
}

/* ======================================================================== */
/* attributes                                                               */
/* ======================================================================== */

bool mlc_rd_attr_value(MlcCtx *ctx, MlcRdScope *s, const Ast *a, MlcAttrValue *out) {
  int64_t iv;
  memset(out, 0, sizeof *out);
  if (mlc_rd_int_literal(a, &iv)) {
    out->kind = MLC_ATTR_INT, out->i = iv;
    return true;
  }
  switch (a->kind) {
  case AST_STR: out->kind = MLC_ATTR_STR, out->s = a->str; return true;
  case AST_TRUE: case AST_FALSE: out->kind = MLC_ATTR_BOOL, out->b = a->kind == AST_TRUE; return true;
  case AST_NONE: out->kind = MLC_ATTR_NONE; return true;
  case AST_FLOAT: out->kind = MLC_ATTR_FLOAT, out->f = a->float_val; return true;
  case AST_UNARY:
    if (a->op == AST_OP_NEG && a->lhs->kind == AST_FLOAT) {
      out->kind = MLC_ATTR_FLOAT, out->f = -a->lhs->float_val;
      return true;
    }
    break;
  case AST_LIST: case AST_TUPLE: {
    out->kind = MLC_ATTR_LIST;
    out->list.n = a->items.n;
    out->list.items = mlc_arena_array(&ctx->arena, (size_t)(a->items.n ? a->items.n : 1), sizeof *out->list.items);
    for (int i = 0; i < a->items.n; i++)
      if (!mlc_rd_attr_value(ctx, s, a->items.items[i], &out->list.items[i])) return false;
    return true;
  }
  case AST_DICT: return mlc_error(ctx, a->loc, "a dict cannot be an attribute value");
  default: break;
  }
  if (!s) return mlc_error(ctx, a->loc, "unsupported attribute value");
  MlcExpr *e = mlc_rd_expr(s, a);
  if (!e) return false;
  if (e->kind == MLC_EXPR_INT && mlc_dtype_eq(e->dtype, MLC_I32)) out->kind = MLC_ATTR_INT, out->i = e->int_val;
  else if (e->kind == MLC_EXPR_INT && mlc_dtype_eq(e->dtype, MLC_BOOL)) out->kind = MLC_ATTR_BOOL, out->b = e->int_val != 0;
  else if (e->kind == MLC_EXPR_STR) out->kind = MLC_ATTR_STR, out->s = e->str_val; /* e.g. +"s": prints as "s" */
  else out->kind = MLC_ATTR_EXPR, out->expr = e;
  return true;
}

bool mlc_rd_attrs(MlcCtx *ctx, MlcRdScope *s, const Ast *dict, MlcAttrs *out) {
  if (dict->kind != AST_DICT) return mlc_error(ctx, dict->loc, "expected a dict {\"key\": value, ...}");
  int n = dict->items.n;
  MlcAttr *items = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *items);
  for (int i = 0; i < n; i++) {
    const Ast *k = dict->items.items[i];
    if (k->kind != AST_STR) return mlc_error(ctx, k->loc, "attribute keys must be strings");
    for (int j = 0; j < i; j++)
      if (items[j].key == k->str) return mlc_error(ctx, k->loc, "duplicate attribute key '%s'", k->str);
    items[i].key = k->str;
    if (!mlc_rd_attr_value(ctx, s, dict->items2.items[i], &items[i].val)) return false;
  }
  out->items = n ? items : NULL;
  out->n = n;
  return true;
}

/* ======================================================================== */
/* shape expressions of graph struct info                                   */
/* ======================================================================== */

static MlcExpr *shape_bin(MlcReader *r, const Ast *a, MlcBinOp op, MlcExpr *x, MlcExpr *y) {
  MlcCtx *ctx = r->ctx;
  int64_t u, v, w = 0;
  bool ok = true;
  if (!x || !y) return NULL;
  LOC_AT(ctx, a->loc);
  if (!mlc_e_is_const_int(x, &u) || !mlc_e_is_const_int(y, &v) || !mlc_dtype_eq(x->dtype, y->dtype))
    return mlc_e_bin(ctx, op, x, y);
  /* constants fold, as the Python they are written in would */
  if ((op == MLC_BIN_FLOORDIV || op == MLC_BIN_FLOORMOD) && v == 0)
    return mlc_error(ctx, a->loc, "division by zero"), NULL;
  switch (op) {
  case MLC_BIN_ADD: ok = !__builtin_add_overflow(u, v, &w); break;
  case MLC_BIN_SUB: ok = !__builtin_sub_overflow(u, v, &w); break;
  case MLC_BIN_MUL: ok = !__builtin_mul_overflow(u, v, &w); break;
  case MLC_BIN_FLOORDIV: ok = !(u == INT64_MIN && v == -1); if (ok) w = floor_div(u, v); break;
  case MLC_BIN_FLOORMOD: w = v == -1 ? 0 : floor_mod(u, v); break;
  case MLC_BIN_MIN: w = u < v ? u : v; break;
  case MLC_BIN_MAX: w = u > v ? u : v; break;
  default: return mlc_e_bin(ctx, op, x, y);
  }
  if (!ok) return mlc_error(ctx, a->loc, "integer overflow in a shape"), NULL;
  return mlc_e_int(ctx, x->dtype, w);
}

MlcExpr *mlc_read_shape_expr(MlcReader *r, const Ast *a, const MlcMap *vars) {
  MlcCtx *ctx = r->ctx;
  char path[64];
  MlcBinOp op;
  LOC_AT(ctx, a->loc);
  switch (a->kind) {
  case AST_INT: return mlc_e_int(ctx, MLC_I64, a->int_val);
  case AST_NAME: case AST_STR: {
    const char *name = a->kind == AST_NAME ? a->name : a->str;
    MlcExpr *v = vars ? mlc_map_get(vars, name) : NULL;
    if (!v) mlc_error(ctx, a->loc, "undefined name '%s'", name);
    return v;
  }
  case AST_UNARY:
    if (a->op == AST_OP_NEG && a->lhs->kind == AST_INT) return mlc_e_int(ctx, MLC_I64, -a->lhs->int_val);
    if (a->op == AST_OP_NEG) return mlc_e_neg(ctx, mlc_read_shape_expr(r, a->lhs, vars));
    break;
  case AST_BINOP:
    if (!bin_of(a->op, false, &op) || op == MLC_BIN_DIV || mlc_binop_info[op].is_bool) break;
    return shape_bin(r, a, op, mlc_read_shape_expr(r, a->lhs, vars), mlc_read_shape_expr(r, a->rhs, vars));
  case AST_CALL:
    mlc_rd_callee(a, path, sizeof path);
    if ((strcmp(path, "T.max") == 0 || strcmp(path, "T.min") == 0) && a->items.n == 2 && !a->n_kws)
      return shape_bin(r, a, path[2] == 'm' && path[3] == 'a' ? MLC_BIN_MAX : MLC_BIN_MIN,
                       mlc_read_shape_expr(r, a->items.items[0], vars),
                       mlc_read_shape_expr(r, a->items.items[1], vars));
    if (strcmp(path, "T.int64") == 0 && a->items.n == 1 && !a->n_kws)
      return mlc_read_shape_expr(r, a->items.items[0], vars);
    break;
  default: break;
  }
  mlc_error(ctx, a->loc, "unsupported shape expression: expected ints, names, + - * // %% T.max T.min");
  return NULL;
}
