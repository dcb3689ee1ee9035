/* simplify.c - the expression simplifier.
 *
 * Integer sums are brought to a canonical linear form: sum of coef * atom
 * (atoms are the non-linear parts: vars, floordivs, loads, ...) plus a
 * constant, atoms in order of first appearance so the result is
 * deterministic.  Like terms combine (i*4 + j - i*4 -> j); floordiv and
 * floormod by a constant split the linear form into the part divisible by
 * the constant and a remainder whose bounds decide the result. */
#include "mlcc/arith.h"

#include <math.h>

enum { MAX_TERMS = 32 };

typedef struct Linear {
  int n;
  MlcExpr *atom[MAX_TERMS];
  int64_t coef[MAX_TERMS];
  int64_t k;
  bool ok;
} Linear;

/* Structural equality of expressions with vars compared by identity: enough
 * to recognise like terms without the full alpha-equivalence machinery. */
static bool same(const MlcExpr *a, const MlcExpr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || !mlc_dtype_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
  case MLC_EXPR_VAR: return false;
  case MLC_EXPR_INT: return a->int_val == b->int_val;
  case MLC_EXPR_FLOAT: return a->float_val == b->float_val;
  case MLC_EXPR_STR: return a->str_val == b->str_val;
  case MLC_EXPR_BINARY: return a->bin.op == b->bin.op && same(a->bin.a, b->bin.a) && same(a->bin.b, b->bin.b);
  case MLC_EXPR_NOT: case MLC_EXPR_NEG: case MLC_EXPR_CAST: return same(a->operand, b->operand);
  case MLC_EXPR_SELECT:
    return same(a->select.cond, b->select.cond) && same(a->select.t, b->select.t) && same(a->select.f, b->select.f);
  case MLC_EXPR_LOAD:
    if (a->load.buf != b->load.buf || a->load.n != b->load.n) return false;
    for (int i = 0; i < a->load.n; i++)
      if (!same(a->load.idx[i], b->load.idx[i])) return false;
    return true;
  case MLC_EXPR_RAMP:
    return a->ramp.lanes == b->ramp.lanes && same(a->ramp.base, b->ramp.base) && same(a->ramp.stride, b->ramp.stride);
  case MLC_EXPR_BROADCAST: return a->bcast.lanes == b->bcast.lanes && same(a->bcast.value, b->bcast.value);
  case MLC_EXPR_LET: return false;
  case MLC_EXPR_CALL:
    if (a->call.op != b->call.op || a->call.n != b->call.n) return false;
    for (int i = 0; i < a->call.n; i++)
      if (!same(a->call.args[i], b->call.args[i])) return false;
    return true;
  }
  return false;
}

static void add_term(Linear *l, MlcExpr *atom, int64_t coef) {
  for (int i = 0; i < l->n; i++)
    if (same(l->atom[i], atom)) {
      if (__builtin_add_overflow(l->coef[i], coef, &l->coef[i])) l->ok = false;
      return;
    }
  if (l->n == MAX_TERMS) {
    l->ok = false;
    return;
  }
  l->atom[l->n] = atom;
  l->coef[l->n++] = coef;
}

static void linearize(MlcExpr *e, int64_t scale, Linear *l) {
  if (!l->ok) return;
  int64_t c, t;
  switch (e->kind) {
  case MLC_EXPR_INT:
    if (__builtin_mul_overflow(e->int_val, scale, &t) || __builtin_add_overflow(l->k, t, &l->k)) l->ok = false;
    return;
  case MLC_EXPR_NEG:
    linearize(e->operand, -scale, l);
    return;
  case MLC_EXPR_BINARY:
    if (e->bin.op == MLC_BIN_ADD || e->bin.op == MLC_BIN_SUB) {
      linearize(e->bin.a, scale, l);
      linearize(e->bin.b, e->bin.op == MLC_BIN_ADD ? scale : -scale, l);
      return;
    }
    if (e->bin.op == MLC_BIN_MUL) {
      MlcExpr *x = e->bin.a;
      if (mlc_e_is_const_int(e->bin.b, &c) || (mlc_e_is_const_int(e->bin.a, &c) && (x = e->bin.b))) {
        if (__builtin_mul_overflow(scale, c, &t)) l->ok = false;
        else linearize(x, t, l);
        return;
      }
    }
    break;
  default: break;
  }
  add_term(l, e, scale);
}

static bool fits(MlcDType t, int64_t v) {
  if (t.bits >= 64) return true;
  return v >= -(INT64_C(1) << (t.bits - 1)) && v < (INT64_C(1) << (t.bits - 1));
}

/* Rebuild a linear form; NULL when a value does not fit the dtype. */
static MlcExpr *rebuild(MlcCtx *ctx, MlcDType t, const Linear *l) {
  MlcExpr *acc = NULL;
  for (int pass = 0; pass < 2; pass++) /* positive terms first, so "j - i" not "-i + j" */
    for (int i = 0; i < l->n; i++) {
      int64_t c = l->coef[i];
      if (c == 0 || (pass == 0) != (c > 0)) continue;
      if (!fits(t, c) || c == INT64_MIN) return NULL;
      int64_t m = c < 0 && acc ? -c : c;
      MlcExpr *term = m == 1 ? l->atom[i] : mlc_e_bin(ctx, MLC_BIN_MUL, l->atom[i], mlc_e_int(ctx, t, m));
      if (!acc) acc = term;
      else acc = mlc_e_bin(ctx, c < 0 ? MLC_BIN_SUB : MLC_BIN_ADD, acc, term);
    }
  /* INT64_MIN has no negation to subtract */
  if (!fits(t, l->k) || (acc && l->k == INT64_MIN)) return NULL;
  if (!acc) return mlc_e_int(ctx, t, l->k);
  if (l->k > 0) acc = mlc_e_bin(ctx, MLC_BIN_ADD, acc, mlc_e_int(ctx, t, l->k));
  if (l->k < 0) acc = mlc_e_bin(ctx, MLC_BIN_SUB, acc, mlc_e_int(ctx, t, -l->k));
  return acc;
}

static bool is_int_scalar(const MlcExpr *e) {
  return e->dtype.lanes == 1 && e->dtype.code == MLC_TC_INT;
}

/* the most negative value of a signed integer dtype */
static int64_t int_min(MlcDType t) { return t.bits >= 64 ? INT64_MIN : -(INT64_C(1) << (t.bits - 1)); }

static int64_t fdiv(int64_t a, int64_t c) { int64_t q = a / c; return (a % c != 0 && (a < 0) != (c < 0)) ? q - 1 : q; }
static int64_t fmodi(int64_t a, int64_t c) { return a - fdiv(a, c) * c; }

static MlcExpr *linear_simplify(MlcAnalyzer *az, MlcExpr *e) {
  Linear l = {.ok = true};
  linearize(e, 1, &l);
  if (!l.ok) return e;
  MlcExpr *r = rebuild(az->ctx, e->dtype, &l);
  return r ? r : e;
}

static int64_t gcd64(int64_t a, int64_t b) {
  a = a < 0 ? -a : a, b = b < 0 ? -b : b;
  while (b) {
    int64_t t = a % b;
    a = b, b = t;
  }
  return a;
}

/* (g*X + R) // c with g dividing c and 0 <= R < g is X // (c/g), and
 * (g*X + R) % c is g * (X % (c/g)) + R: a reshape after a transpose,
 * (a*64 + b) // 3712 with 0 <= b < 64, becomes a // 58.  g is tried from
 * gcd(c, each term's coefficient), the largest that works; l is the
 * dividend's linear form.  e unchanged when no g does. */
static MlcExpr *divmod_common_factor(MlcAnalyzer *az, MlcExpr *e, int64_t c, const Linear *l, bool is_div) {
  MlcCtx *ctx = az->ctx;
  int64_t best = 1;
  Linear bx = {0}, br = {0};
  for (int t = 0; t < l->n; t++) {
    int64_t g = gcd64(c, l->coef[t]);
    if (g <= best || g >= c) continue;
    Linear x = {.ok = true}, r = {.ok = true};
    for (int i = 0; i < l->n; i++) {
      if (l->coef[i] % g == 0) add_term(&x, l->atom[i], l->coef[i] / g);
      else add_term(&r, l->atom[i], l->coef[i]);
    }
    x.k = fdiv(l->k, g);
    r.k = fmodi(l->k, g);
    MlcExpr *rem = rebuild(ctx, e->dtype, &r);
    if (!rem || !x.ok || !r.ok) continue;
    MlcIntSet rb = mlc_arith_bound(az, rem);
    if (rb.min >= 0 && rb.max < g) best = g, bx = x, br = r;
  }
  if (best == 1) return e;
  MlcExpr *x = rebuild(ctx, e->dtype, &bx), *rem = rebuild(ctx, e->dtype, &br);
  MlcExpr *cg = mlc_e_int(ctx, e->dtype, c / best);
  if (!x || !rem || !cg) return e;
  MlcExpr *q = mlc_arith_simplify(az, mlc_e_bin(ctx, e->bin.op, x, cg));
  if (!q || is_div) return q ? q : e;
  MlcExpr *g = mlc_e_int(ctx, e->dtype, best);
  MlcExpr *r = g ? mlc_arith_simplify(az, mlc_e_bin(ctx, MLC_BIN_ADD, mlc_e_bin(ctx, MLC_BIN_MUL, q, g), rem)) : NULL;
  return r ? r : e;
}

/* floordiv/floormod (or trunc div/mod on non-negative values) by constant c > 0 */
static MlcExpr *divmod_simplify(MlcAnalyzer *az, MlcExpr *e, int64_t c) {
  MlcCtx *ctx = az->ctx;
  bool is_div = e->bin.op == MLC_BIN_FLOORDIV || e->bin.op == MLC_BIN_DIV;
  if (c == 1) return is_div ? e->bin.a : mlc_e_int(ctx, e->dtype, 0);
  Linear l = {.ok = true};
  linearize(e->bin.a, 1, &l);
  if (!l.ok) return e;
  Linear q = {.ok = true}, r = {.ok = true};
  for (int i = 0; i < l.n; i++) {
    if (l.coef[i] % c == 0) add_term(&q, l.atom[i], l.coef[i] / c);
    else add_term(&r, l.atom[i], l.coef[i]);
  }
  q.k = fdiv(l.k, c);
  r.k = fmodi(l.k, c);
  MlcExpr *rem = rebuild(ctx, e->dtype, &r);
  if (!rem) return e;
  MlcIntSet rb = mlc_arith_bound(az, rem);
  bool trunc_ok = e->bin.op == MLC_BIN_FLOORDIV || e->bin.op == MLC_BIN_FLOORMOD ||
                  mlc_arith_bound(az, e->bin.a).min >= 0;
  if (trunc_ok && rb.min >= 0 && rb.max < c) {
    MlcExpr *quo = rebuild(ctx, e->dtype, &q);
    return quo ? (is_div ? quo : rem) : e;
  }
  return trunc_ok ? divmod_common_factor(az, e, c, &l, is_div) : e;
}

static MlcExpr *fold_binary(MlcAnalyzer *az, MlcExpr *e) {
  MlcCtx *ctx = az->ctx;
  MlcExpr *a = e->bin.a, *b = e->bin.b;
  MlcBinOp op = e->bin.op;
  int64_t x, y;
  bool ca = mlc_e_is_const_int(a, &x), cb = mlc_e_is_const_int(b, &y);
  MlcDType t = a->dtype;
  /* decided comparisons and logic */
  if (mlc_binop_info[op].is_bool && e->dtype.lanes == 1) {
    if (op != MLC_BIN_AND && op != MLC_BIN_OR && is_int_scalar(a)) {
      MlcExpr *diff = mlc_arith_simplify(az, mlc_e_bin(ctx, MLC_BIN_SUB, a, b));
      MlcExpr *zero = mlc_e_int(ctx, t, 0);
      MlcExpr *cmp = diff && zero ? mlc_e_bin(ctx, op, diff, zero) : NULL;
      MlcIntSet s = cmp ? mlc_arith_bound(az, cmp) : (MlcIntSet){0, 1};
      if (s.min == s.max) return mlc_e_int(ctx, MLC_BOOL, s.min);
    } else {
      MlcIntSet s = mlc_arith_bound(az, e);
      if (s.min == s.max) return mlc_e_int(ctx, MLC_BOOL, s.min);
      if (op == MLC_BIN_AND && ca) return x ? b : a;
      if (op == MLC_BIN_AND && cb) return y ? a : b;
      if (op == MLC_BIN_OR && ca) return x ? a : b;
      if (op == MLC_BIN_OR && cb) return y ? b : a;
    }
    return e;
  }
  if (a->kind == MLC_EXPR_FLOAT && b->kind == MLC_EXPR_FLOAT) {
    double p = a->float_val, q = b->float_val, r;
    switch (op) {
    case MLC_BIN_ADD: r = p + q; break;
    case MLC_BIN_SUB: r = p - q; break;
    case MLC_BIN_MUL: r = p * q; break;
    case MLC_BIN_DIV: r = p / q; break;
    case MLC_BIN_MIN: r = fmin(p, q); break;
    case MLC_BIN_MAX: r = fmax(p, q); break;
    default: return e;
    }
    if (t.bits == 32) r = (float)r;
    if (!isfinite(r) || (t.bits == 16) || t.code == MLC_TC_BFLOAT || mlc_dtype_is_minifloat(t)) return e;
    MlcExpr *f = mlc_e_float(ctx, t, r);
    return f ? f : e;
  }
  if (!is_int_scalar(a)) return e;
  switch (op) {
  case MLC_BIN_ADD: case MLC_BIN_SUB: case MLC_BIN_MUL:
    if (op == MLC_BIN_MUL && !ca && !cb) return e;
    return linear_simplify(az, e);
  case MLC_BIN_FLOORDIV: case MLC_BIN_FLOORMOD: case MLC_BIN_DIV: case MLC_BIN_MOD:
    if (cb && y == 0) return e; /* left for run time to report */
    if (ca && cb) {
      int64_t r;
      /* x / -1 is -x, and x % -1 is 0, apart from the most negative x of
       * the dtype, whose quotient overflows: left for run time to report
       * (and kept away from the C division, which traps on it) */
      if (y == -1) {
        if (op == MLC_BIN_FLOORMOD || op == MLC_BIN_MOD) return mlc_e_int(ctx, t, 0);
        if (x == int_min(t)) return e;
        return mlc_e_int(ctx, t, -x);
      }
      if (op == MLC_BIN_FLOORDIV) r = fdiv(x, y);
      else if (op == MLC_BIN_FLOORMOD) r = fmodi(x, y);
      else r = op == MLC_BIN_DIV ? x / y : x % y;
      return mlc_e_int(ctx, t, r);
    }
    if (cb && y > 0) return divmod_simplify(az, e, y);
    return e;
  case MLC_BIN_MIN: case MLC_BIN_MAX: {
    if (same(a, b)) return a;
    MlcExpr *diff = mlc_arith_simplify(az, mlc_e_bin(ctx, MLC_BIN_SUB, a, b));
    MlcIntSet s = diff ? mlc_arith_bound(az, diff) : (MlcIntSet){MLC_INT_NEG_INF, MLC_INT_POS_INF};
    if (s.max <= 0) return op == MLC_BIN_MIN ? a : b; /* a <= b */
    if (s.min >= 0) return op == MLC_BIN_MIN ? b : a;
    return e;
  }
  default: return e;
  }
}

static MlcExpr *rebuild_node(MlcCtx *ctx, MlcExpr *e, MlcExpr **kids) {
  switch (e->kind) {
  case MLC_EXPR_BINARY: return mlc_e_bin(ctx, e->bin.op, kids[0], kids[1]);
  case MLC_EXPR_NOT: return mlc_e_not(ctx, kids[0]);
  case MLC_EXPR_NEG: return mlc_e_neg(ctx, kids[0]);
  case MLC_EXPR_CAST: return mlc_e_cast(ctx, e->dtype, kids[0]);
  case MLC_EXPR_SELECT: return mlc_e_select(ctx, kids[0], kids[1], kids[2]);
  default: return e;
  }
}

MlcExpr *mlc_arith_simplify(MlcAnalyzer *az, MlcExpr *e) {
  if (!e) return NULL;
  MlcCtx *ctx = az->ctx;
  MlcExpr *kids[3] = {0};
  int n = 0;
  switch (e->kind) {
  case MLC_EXPR_BINARY: kids[0] = e->bin.a; kids[1] = e->bin.b; n = 2; break;
  case MLC_EXPR_NOT: case MLC_EXPR_NEG: case MLC_EXPR_CAST: kids[0] = e->operand; n = 1; break;
  case MLC_EXPR_SELECT: kids[0] = e->select.cond; kids[1] = e->select.t; kids[2] = e->select.f; n = 3; break;
  case MLC_EXPR_LOAD: {
    MlcExpr **idx = mlc_arena_array(&ctx->arena, (size_t)(e->load.n > 0 ? e->load.n : 1), sizeof *idx);
    bool changed = false;
    for (int i = 0; i < e->load.n; i++) {
      idx[i] = mlc_arith_simplify(az, e->load.idx[i]);
      changed |= idx[i] != e->load.idx[i];
    }
    return changed ? mlc_e_load(ctx, e->load.buf, idx, e->load.n) : e;
  }
  case MLC_EXPR_RAMP: {
    MlcExpr *base = mlc_arith_simplify(az, e->ramp.base), *stride = mlc_arith_simplify(az, e->ramp.stride);
    return base == e->ramp.base && stride == e->ramp.stride ? e : mlc_e_ramp(ctx, base, stride, e->ramp.lanes);
  }
  case MLC_EXPR_BROADCAST: {
    MlcExpr *x = mlc_arith_simplify(az, e->bcast.value);
    return x == e->bcast.value ? e : mlc_e_broadcast(ctx, x, e->bcast.lanes);
  }
  case MLC_EXPR_CALL: {
    MlcExpr **args = mlc_arena_array(&ctx->arena, (size_t)(e->call.n > 0 ? e->call.n : 1), sizeof *args);
    bool changed = false;
    for (int i = 0; i < e->call.n; i++) {
      args[i] = mlc_arith_simplify(az, e->call.args[i]);
      changed |= args[i] != e->call.args[i];
    }
    if (e->call.op == MLC_INTRIN_IF_THEN_ELSE) {
      MlcIntSet c = mlc_arith_bound(az, args[0]);
      if (c.min == c.max) return c.min ? args[1] : args[2];
    }
    return changed ? mlc_e_call_typed(ctx, e->call.op, e->dtype, args, e->call.n) : e;
  }
  default: return e;
  }
  bool changed = false;
  MlcExpr *nk[3];
  for (int i = 0; i < n; i++) {
    nk[i] = mlc_arith_simplify(az, kids[i]);
    if (!nk[i]) return e;
    changed |= nk[i] != kids[i];
  }
  MlcExpr *cur = changed ? rebuild_node(ctx, e, nk) : e;
  if (!cur) return e;
  switch (cur->kind) {
  case MLC_EXPR_BINARY: {
    MlcExpr *r = fold_binary(az, cur);
    return r ? r : cur;
  }
  case MLC_EXPR_NOT: {
    MlcIntSet s = mlc_arith_bound(az, cur);
    return s.min == s.max ? mlc_e_int(ctx, MLC_BOOL, s.min) : cur;
  }
  case MLC_EXPR_NEG:
    if (cur->operand->kind == MLC_EXPR_INT) return linear_simplify(az, cur);
    if (cur->operand->kind == MLC_EXPR_FLOAT) {
      MlcExpr *f = mlc_e_float(ctx, cur->dtype, -cur->operand->float_val);
      return f ? f : cur;
    }
    return cur;
  case MLC_EXPR_SELECT: {
    MlcIntSet c = mlc_arith_bound(az, cur->select.cond);
    if (c.min == c.max) return c.min ? cur->select.t : cur->select.f;
    return cur;
  }
  case MLC_EXPR_CAST: {
    MlcExpr *x = cur->operand;
    if (mlc_dtype_eq(x->dtype, cur->dtype)) return x;
    if (x->kind == MLC_EXPR_INT && mlc_dtype_is_int(cur->dtype) && fits(cur->dtype, x->int_val) &&
        cur->dtype.code == MLC_TC_INT)
      return mlc_e_int(ctx, cur->dtype, x->int_val);
    if (x->kind == MLC_EXPR_INT && mlc_dtype_is_float(cur->dtype) && cur->dtype.bits >= 32 &&
        x->dtype.code == MLC_TC_INT) {
      double v = (double)x->int_val;
      MlcExpr *f = mlc_e_float(ctx, cur->dtype, cur->dtype.bits == 32 ? (double)(float)v : v);
      return f ? f : cur;
    }
    return cur;
  }
  default: return cur;
  }
}

MlcExpr *mlc_arith_add(MlcCtx *ctx, MlcExpr *a, MlcExpr *b) {
  int64_t x, y;
  if (!a || !b) return NULL;
  if (mlc_e_is_const_int(a, &x) && x == 0) return b;
  if (mlc_e_is_const_int(b, &y) && y == 0) return a;
  if (mlc_e_is_const_int(a, &x) && mlc_e_is_const_int(b, &y) && fits(a->dtype, x + y) &&
      !__builtin_add_overflow(x, y, &x))
    return mlc_e_int(ctx, a->dtype, x);
  return mlc_e_bin(ctx, MLC_BIN_ADD, a, b);
}

MlcExpr *mlc_arith_mul(MlcCtx *ctx, MlcExpr *a, MlcExpr *b) {
  int64_t x, y;
  if (!a || !b) return NULL;
  if (mlc_e_is_const_int(a, &x) && x == 1) return b;
  if (mlc_e_is_const_int(b, &y) && y == 1) return a;
  if ((mlc_e_is_const_int(a, &x) && x == 0) || (mlc_e_is_const_int(b, &y) && y == 0))
    return mlc_e_int(ctx, a->dtype, 0);
  if (mlc_e_is_const_int(a, &x) && mlc_e_is_const_int(b, &y) && !__builtin_mul_overflow(x, y, &x) &&
      fits(a->dtype, x))
    return mlc_e_int(ctx, a->dtype, x);
  return mlc_e_bin(ctx, MLC_BIN_MUL, a, b);
}
