/* loops.c - the loop primitives: split, fuse, reorder, add_unit_loop.
 *
 * Each one rewrites a loop nest so that every block runs the same
 * instances in the same order as before: split and fuse replace loop vars
 * by expressions of the new ones, substituted everywhere below the loops,
 * and re-simplify the block bindings with the new loop ranges known (so a
 * split binding reads `j_0 * 4 + j_1`, and fusing a split's loops gives the
 * plain var back); a split whose factors overshoot the extent guards the
 * blocks with a predicate (code outside blocks with an if); reorder only
 * permutes a chain of perfectly nested loops.  TVM's behaviour is the
 * reference for names, results and refusals.  Every precondition is checked
 * before anything is built and the result goes through sch_commit, so a
 * refused primitive leaves the schedule as it was. */
#include <string.h>

#include "schedule/state.h"

#include <stdio.h>

/* Primitives return at most this many handles, so that is also the most
 * loops a split can make or a fuse / reorder can take. */
enum { MAX_LOOPS = 32 };

static const char *loop_name(const MlcStmt *loop) { return loop->loop.var->var.name; }

/* New loops are named after old ones (i -> i_0, i_1; i, j -> i_j_fused), so
 * a script that splits and fuses the same loop again and again would double
 * a name's length at each fuse: a base longer than this is cut, keeping
 * every step's work the same however long the script. */
#define MAX_DERIVED_NAME 40

static const char *derived_base(MlcCtx *ctx, const char *name, size_t len) {
  return mlc_intern_n(ctx, name, len > MAX_DERIVED_NAME ? MAX_DERIVED_NAME : len);
}

static bool is_const(const MlcExpr *e, int64_t v) {
  int64_t x;
  return mlc_e_is_const_int(e, &x) && x == v;
}

static bool fits_dtype(MlcDType t, int64_t v) {
  if (t.bits >= 64) return true;
  return v >= -(INT64_C(1) << (t.bits - 1)) && v < (INT64_C(1) << (t.bits - 1));
}

/* ---- finding the loops named by the arguments ------------------------------ */

/* The statement a loop handle names. */
static const MlcStmt *find_loop(MlcSchedule *s, const MlcSchVal *v, const char *what) {
  const MlcExpr *var;
  SchPath path = {0};
  if (!sch_arg_loop(s, v, what, &var) || !sch_find_loop(s, var, &path)) return NULL;
  const MlcStmt *loop = path.nodes[path.n - 1];
  sch_path_free(&path);
  return loop;
}

/* The loops of a `*loops` parameter: a list of handles (or one handle). */
static bool find_loop_list(MlcSchedule *s, const MlcSchVal *v, const MlcStmt **loops, int *n) {
  const MlcSchVal *items = v;
  int count = 1;
  if (v->kind == MLC_SV_LIST)
    items = v->list.items, count = v->list.n;
  else if (v->kind == MLC_SV_NONE)
    count = 0;
  if (count > MAX_LOOPS) return sch_error(s, "at most %d loops, got %d", MAX_LOOPS, count);
  for (int i = 0; i < count; i++)
    if (!(loops[i] = find_loop(s, &items[i], "loops"))) return false;
  *n = count;
  return true;
}

/* ---- rewriting the body below replaced loops ---------------------------------
 * Old loop vars are substituted by their expressions in the new loops; the
 * bindings that changed are simplified with every enclosing loop's range
 * known; the block realizes not nested in another block get `pred` and-ed
 * to their predicate (split's guard). */
typedef struct Rewrite {
  MlcMutator m; /* first member: the hooks get &rw->m */
  MlcAnalyzer az;
  MlcMap vmap; /* old loop var -> its expression */
  MlcExpr *pred;
  int depth; /* blocks entered */
} Rewrite;

static void bind_loop(MlcAnalyzer *az, const MlcStmt *loop) {
  int64_t lo, ext;
  if (mlc_e_is_const_int(loop->loop.min, &lo) && mlc_e_is_const_int(loop->loop.extent, &ext) && ext > 0)
    mlc_arith_bind(az, loop->loop.var, lo, ext);
}

static MlcExpr *rewrite_expr(MlcMutator *m, MlcExpr *e) {
  Rewrite *rw = (Rewrite *)m;
  if (e->kind == MLC_EXPR_VAR) {
    MlcExpr *to = mlc_map_get(&rw->vmap, e);
    return to ? to : e;
  }
  return mlc_mutate_expr_children(m, e);
}

/* ---- recombining divisions with their remainders -------------------------------
 * Fusing the loops a split made leaves `f // 16 * 16 + f % 16` in a binding;
 * the linear simplifier sees the division and the remainder as unrelated
 * atoms.  y // c * (m * c) + y % c * m is y * m, and when y is x // a the
 * division may be written x // (a * c) -- what fusing three split loops
 * leaves.  Pairs are merged until none is left, then the sum is simplified
 * again, so a split undone by a fuse gives back the plain loop var. */
enum { MAX_TERMS = 32 };

typedef struct Terms {
  int n;
  MlcExpr *atom[MAX_TERMS];
  int64_t coef[MAX_TERMS];
  int64_t k;
  bool ok;
} Terms;

static void terms_of(MlcExpr *e, int64_t scale, Terms *t) {
  int64_t c;
  if (!t->ok) return;
  if (mlc_e_is_const_int(e, &c)) {
    t->ok = !__builtin_mul_overflow(c, scale, &c) && !__builtin_add_overflow(t->k, c, &t->k);
    return;
  }
  if (e->kind == MLC_EXPR_BINARY && (e->bin.op == MLC_BIN_ADD || e->bin.op == MLC_BIN_SUB)) {
    terms_of(e->bin.a, scale, t);
    terms_of(e->bin.b, e->bin.op == MLC_BIN_ADD ? scale : -scale, t);
    return;
  }
  if (e->kind == MLC_EXPR_BINARY && e->bin.op == MLC_BIN_MUL && mlc_e_is_const_int(e->bin.b, &c)) {
    t->ok = !__builtin_mul_overflow(c, scale, &c);
    terms_of(e->bin.a, c, t);
    return;
  }
  if (t->n == MAX_TERMS) {
    t->ok = false;
    return;
  }
  t->atom[t->n] = e;
  t->coef[t->n++] = scale;
}

/* vars by identity, constants by value, divisions and remainders by parts */
static bool same_index(const MlcExpr *a, const MlcExpr *b) {
  int64_t x, y;
  if (a == b) return true;
  if (mlc_e_is_const_int(a, &x)) return mlc_e_is_const_int(b, &y) && x == y;
  return a->kind == MLC_EXPR_BINARY && b->kind == MLC_EXPR_BINARY && a->bin.op == b->bin.op &&
         same_index(a->bin.a, b->bin.a) && same_index(a->bin.b, b->bin.b);
}

static bool is_binop_const(const MlcExpr *e, MlcBinOp op, int64_t *c) {
  return e->kind == MLC_EXPR_BINARY && e->bin.op == op && mlc_e_is_const_int(e->bin.b, c) && *c > 0;
}

/* d is y // c (written so, or as x // (a * c) when y is x // a) */
static bool is_div_of(const MlcExpr *d, const MlcExpr *y, int64_t c) {
  int64_t dc, a, ac;
  if (!is_binop_const(d, MLC_BIN_FLOORDIV, &dc)) return false;
  if (dc == c && same_index(d->bin.a, y)) return true;
  return is_binop_const(y, MLC_BIN_FLOORDIV, &a) && !__builtin_mul_overflow(a, c, &ac) && ac == dc &&
         same_index(d->bin.a, y->bin.a);
}

static bool merge_one_pair(Terms *t) {
  int64_t c, want;
  for (int j = 0; j < t->n; j++) {
    const MlcExpr *m = t->atom[j];
    if (!is_binop_const(m, MLC_BIN_FLOORMOD, &c) || __builtin_mul_overflow(t->coef[j], c, &want)) continue;
    for (int i = 0; i < t->n; i++) {
      if (i == j || t->coef[i] != want || !is_div_of(t->atom[i], m->bin.a, c)) continue;
      t->atom[i] = m->bin.a;
      t->coef[i] = t->coef[j];
      t->n--;
      for (int k = j; k < t->n; k++) t->atom[k] = t->atom[k + 1], t->coef[k] = t->coef[k + 1];
      return true;
    }
  }
  return false;
}

static MlcExpr *merge_divmod(MlcAnalyzer *az, MlcExpr *e) {
  if (!e || e->dtype.lanes != 1 || e->dtype.code != MLC_TC_INT) return e;
  Terms t = {.ok = true};
  terms_of(e, 1, &t);
  bool merged = false;
  while (t.ok && merge_one_pair(&t)) merged = true;
  if (!merged) return e;
  MlcCtx *ctx = az->ctx;
  MlcExpr *sum = mlc_e_int(ctx, e->dtype, t.k);
  for (int i = 0; i < t.n; i++)
    sum = mlc_e_bin(ctx, MLC_BIN_ADD, sum,
                    mlc_e_bin(ctx, MLC_BIN_MUL, t.atom[i], mlc_e_int(ctx, e->dtype, t.coef[i])));
  MlcExpr *r = mlc_arith_simplify(az, sum);
  return r ? r : e;
}

static MlcExpr *and_pred(MlcCtx *ctx, MlcExpr *old, MlcExpr *extra) {
  if (!extra) return old;
  if (is_const(old, 1)) return extra;
  return mlc_e_bin(ctx, MLC_BIN_AND, old, extra);
}

static MlcStmt *rewrite_realize(Rewrite *rw, MlcStmt *s) {
  MlcCtx *ctx = rw->m.ctx;
  rw->depth++;
  MlcStmt *r = mlc_mutate_stmt_children(&rw->m, s);
  rw->depth--;
  if (!r) return NULL;
  int n = r->realize.n;
  MlcExpr **values = n ? mlc_arena_array(&ctx->arena, (size_t)n, sizeof *values) : NULL;
  for (int i = 0; i < n; i++) {
    values[i] = r->realize.values[i];
    if (values[i] != s->realize.values[i])
      values[i] = merge_divmod(&rw->az, mlc_arith_simplify(&rw->az, values[i]));
  }
  MlcExpr *pred = r->realize.pred;
  if (pred != s->realize.pred) pred = mlc_arith_simplify(&rw->az, pred);
  if (rw->depth == 0) pred = and_pred(ctx, pred, rw->pred);
  if (r == s && pred == s->realize.pred) return s;
  return mlc_s_realize(ctx, values, n, pred, r->realize.block);
}

static MlcStmt *rewrite_stmt(MlcMutator *m, MlcStmt *s) {
  Rewrite *rw = (Rewrite *)m;
  if (s->kind == MLC_STMT_BLOCK_REALIZE) return rewrite_realize(rw, s);
  if (s->kind != MLC_STMT_FOR) return mlc_mutate_stmt_children(m, s);
  bind_loop(&rw->az, s);
  MlcStmt *r = mlc_mutate_stmt_children(m, s);
  mlc_arith_unbind(&rw->az, s->loop.var);
  return r;
}

/* Start a rewrite of the body of the loop at the end of `path`: the loops
 * above it are known to the analyzer (the loop itself is not: it goes). */
static void rewrite_init(Rewrite *rw, MlcSchedule *s, const SchPath *path) {
  *rw = (Rewrite){.m = {.ctx = s->ctx, .expr = rewrite_expr, .stmt = rewrite_stmt}};
  mlc_arith_init(&rw->az, s->ctx);
  for (int i = 0; i + 1 < path->n; i++)
    if (path->nodes[i]->kind == MLC_STMT_FOR) bind_loop(&rw->az, path->nodes[i]);
}

static void rewrite_free(Rewrite *rw) {
  mlc_arith_free(&rw->az);
  mlc_map_free(&rw->vmap);
}

static MlcStmt *serial_loop(MlcSchedule *s, MlcExpr *var, MlcExpr *extent, MlcStmt *body) {
  return mlc_s_for(s->ctx, var, mlc_e_int(s->ctx, var->dtype, 0), extent, MLC_FOR_SERIAL, NULL, (MlcAttrs){0},
                   body);
}

/* Refusals split and fuse share (as in TVM): a loop that does not start at
 * 0, or whose annotations or thread binding would be lost. */
static bool check_plain_loop(MlcSchedule *s, const MlcStmt *loop) {
  if (!is_const(loop->loop.min, 0)) return sch_error(s, "loop '%s' does not start at 0", loop_name(loop));
  if (loop->loop.annotations.n > 0 || loop->loop.kind == MLC_FOR_THREAD)
    return sch_error(s, "loop '%s' has annotations or a thread binding, which would be lost",
                     loop_name(loop));
  return true;
}

/* Replace `old` by `repl`, commit, and hand out loop handles for vars. */
static bool commit_loops(MlcSchedule *s, const MlcStmt *old, MlcStmt *repl, MlcExpr **vars, int n,
                         MlcSchVal *outs, int *n_outs) {
  MlcStmt *body = repl ? sch_replace(s, old, repl) : NULL;
  if (!body || !sch_commit(s, body)) {
    if (!mlc_has_error(s->ctx))
      sch_error(s, "could not rebuild the function around loop '%s'", loop_name(old));
    return false;
  }
  for (int i = 0; i < n; i++) outs[i] = (MlcSchVal){.kind = MLC_SV_LOOP, .rv = sch_loop_rv(s, vars[i])};
  *n_outs = n;
  return true;
}

/* ---- split ------------------------------------------------------------------- */

typedef struct SplitPlan {
  int n, infer;            /* number of factors; the None one or -1 */
  int64_t f[MAX_LOOPS];    /* the factors given (0 at the None) */
  MlcExpr *ext[MAX_LOOPS]; /* extents of the new loops, outermost first */
  bool guard;              /* the new loops overshoot: blocks need a predicate */
} SplitPlan;

static void factors_str(const SplitPlan *p, char *buf, size_t cap) {
  size_t at = (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < p->n && at < cap; i++) {
    const char *sep = i ? ", " : "";
    if (i == p->infer)
      at += (size_t)snprintf(buf + at, cap - at, "%sNone", sep);
    else
      at += (size_t)snprintf(buf + at, cap - at, "%s%lld", sep, (long long)p->f[i]);
  }
  if (at < cap) snprintf(buf + at, cap - at, "]");
}

static bool read_factors(MlcSchedule *s, const MlcSchVal *v, const char *lname, SplitPlan *p) {
  if (v->kind != MLC_SV_LIST) return sch_error(s, "loop '%s': factors must be a list", lname);
  if (v->list.n < 1 || v->list.n > MAX_LOOPS)
    return sch_error(s, "loop '%s': needs 1 to %d factors, got %d", lname, MAX_LOOPS, v->list.n);
  p->n = v->list.n;
  p->infer = -1;
  for (int i = 0; i < p->n; i++) {
    const MlcSchVal *item = &v->list.items[i];
    if (item->kind == MLC_SV_NONE) {
      if (p->infer >= 0) return sch_error(s, "loop '%s': more than one factor is None", lname);
      p->infer = i;
      continue;
    }
    if (!sch_arg_int(s, item, "factors", &p->f[i])) return false;
    if (p->f[i] <= 0)
      return sch_error(s, "loop '%s': factor %lld at position %d is not positive", lname, (long long)p->f[i],
                       i);
  }
  return true;
}

/* The product of the given factors; false when it overflows. */
static bool known_product(const SplitPlan *p, int64_t *out) {
  int64_t prod = 1;
  for (int i = 0; i < p->n; i++)
    if (i != p->infer && __builtin_mul_overflow(prod, p->f[i], &prod)) return false;
  *out = prod;
  return true;
}

/* Infer the None factor and decide the guard, for a constant extent. */
static bool plan_const(MlcSchedule *s, const MlcStmt *loop, int64_t extent, SplitPlan *p) {
  char fs[256];
  int64_t prod;
  MlcDType t = loop->loop.var->dtype;
  if (!known_product(p, &prod) || !fits_dtype(t, prod))
    return sch_error(s, "loop '%s': the product of the factors overflows", loop_name(loop));
  if (p->infer >= 0) p->f[p->infer] = extent <= 0 ? 0 : (extent - 1) / prod + 1;
  int64_t total = prod * (p->infer >= 0 ? p->f[p->infer] : 1);
  if (total < extent) {
    factors_str(p, fs, sizeof fs);
    return sch_error(s, "loop '%s': factors %s do not cover extent %lld", loop_name(loop), fs,
                     (long long)extent);
  }
  if (!fits_dtype(t, total))
    return sch_error(s, "loop '%s': the product of the factors overflows", loop_name(loop));
  p->guard = total != extent;
  for (int i = 0; i < p->n; i++) p->ext[i] = mlc_e_int(s->ctx, t, p->f[i]);
  return true;
}

/* The same for a symbolic extent: the None factor becomes ceildiv(n, prod). */
static bool plan_symbolic(MlcSchedule *s, const MlcStmt *loop, SplitPlan *p) {
  MlcCtx *ctx = s->ctx;
  MlcDType t = loop->loop.var->dtype;
  int64_t prod;
  if (p->infer < 0)
    return sch_error(s, "loop '%s': extent is not a constant, so one factor must be None", loop_name(loop));
  if (!known_product(p, &prod) || !fits_dtype(t, prod))
    return sch_error(s, "loop '%s': the product of the factors overflows", loop_name(loop));
  for (int i = 0; i < p->n; i++)
    if (i != p->infer) p->ext[i] = mlc_e_int(ctx, t, p->f[i]);
  MlcExpr *n = loop->loop.extent;
  if (prod == 1) {
    p->ext[p->infer] = n;
  } else {
    MlcAnalyzer az;
    mlc_arith_init(&az, ctx);
    MlcExpr *up = mlc_e_bin(ctx, MLC_BIN_ADD, n, mlc_e_int(ctx, t, prod - 1));
    p->ext[p->infer] = mlc_arith_simplify(&az, mlc_e_bin(ctx, MLC_BIN_FLOORDIV, up, mlc_e_int(ctx, t, prod)));
    mlc_arith_free(&az);
  }
  p->guard = prod != 1;
  return p->ext[p->infer] != NULL;
}

/* sum of new vars times the product of the extents inside them:
 * ((v0 * e1 + v1) * e2 + v2) ..., unit loops left out unless preserved */
static MlcExpr *split_combination(MlcCtx *ctx, MlcExpr **vars, const SplitPlan *p, bool preserve_unit) {
  MlcExpr *acc = NULL;
  for (int i = 0; i < p->n; i++) {
    if (!preserve_unit && is_const(p->ext[i], 1)) continue;
    acc = acc ? mlc_e_bin(ctx, MLC_BIN_ADD, mlc_e_bin(ctx, MLC_BIN_MUL, acc, p->ext[i]), vars[i]) : vars[i];
  }
  return acc ? acc : mlc_e_int(ctx, vars[0]->dtype, 0);
}

static bool arg_bool(MlcSchedule *s, const MlcSchVal *v, const char *what, bool dflt, bool *out) {
  *out = dflt;
  if (v->kind == MLC_SV_NONE) return true;
  if (v->kind != MLC_SV_BOOL && v->kind != MLC_SV_INT) return sch_error(s, "'%s' must be a bool", what);
  *out = v->i != 0;
  return true;
}

/* A statement that is in no block: a store or an evaluate reached without
 * passing a block realize.  A guard on block predicates would miss it. */
typedef struct BareScan {
  MlcVisitor v;
  bool found;
} BareScan;

static bool scan_bare(MlcVisitor *v, const MlcStmt *st) {
  BareScan *b = (BareScan *)v;
  if (st->kind == MLC_STMT_STORE || st->kind == MLC_STMT_EVALUATE) b->found = true;
  return !b->found && st->kind != MLC_STMT_BLOCK_REALIZE;
}

static bool has_bare_stmt(const MlcStmt *body) {
  BareScan b = {.v = {.stmt = scan_bare}};
  mlc_visit_stmt(&b.v, body);
  return b.found;
}

bool sch_prim_split(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  MlcCtx *ctx = s->ctx;
  const MlcExpr *lvar;
  bool preserve;
  SchPath path = {0};
  if (!sch_arg_loop(s, &args[0], "loop", &lvar) || !sch_find_loop(s, lvar, &path)) return false;
  const MlcStmt *loop = path.nodes[path.n - 1];
  SplitPlan p = {0};
  int64_t extent;
  bool ok = arg_bool(s, &args[2], "preserve_unit_iters", true, &preserve) && check_plain_loop(s, loop) &&
            read_factors(s, &args[1], loop_name(loop), &p) &&
            (mlc_e_is_const_int(loop->loop.extent, &extent) ? plan_const(s, loop, extent, &p)
                                                            : plan_symbolic(s, loop, &p));
  if (!ok) {
    sch_path_free(&path);
    return false;
  }
  MlcExpr *vars[MAX_LOOPS];
  Rewrite rw;
  rewrite_init(&rw, s, &path);
  sch_path_free(&path);
  for (int i = 0; i < p.n; i++) {
    const char *base = derived_base(ctx, loop_name(loop), strlen(loop_name(loop)));
    vars[i] = sch_fresh_var(s, mlc_internf(ctx, "%s_%d", base, i), lvar->dtype);
    int64_t e;
    if (mlc_e_is_const_int(p.ext[i], &e) && e > 0) mlc_arith_bind(&rw.az, vars[i], 0, e);
  }
  MlcExpr *combined = mlc_arith_simplify(&rw.az, split_combination(ctx, vars, &p, preserve));
  mlc_map_put(&rw.vmap, lvar, combined);
  MlcExpr *guard = p.guard ? mlc_e_bin(ctx, MLC_BIN_LT, combined, loop->loop.extent) : NULL;
  /* blocks take the guard as a predicate, as in TVM; code outside blocks
   * (a function written without them) is wrapped in an if instead */
  bool bare = guard && has_bare_stmt(loop->loop.body);
  rw.pred = bare ? NULL : guard;
  MlcStmt *body = mlc_mutate_stmt(&rw.m, loop->loop.body);
  rewrite_free(&rw);
  if (bare && body) body = mlc_s_if(ctx, guard, body, NULL);
  for (int i = p.n - 1; i >= 0 && body; i--) body = serial_loop(s, vars[i], p.ext[i], body);
  return commit_loops(s, loop, body, vars, p.n, outs, n_outs);
}

/* ---- fuse -------------------------------------------------------------------- */

/* loops[i + 1] must be the whole body of loops[i]; no extent may use an
 * outer loop of the group (the fused loop could not compute it). */
static bool check_fusable(MlcSchedule *s, const MlcStmt **loops, int n) {
  for (int i = 0; i < n; i++) {
    const MlcStmt *l = loops[i];
    if (!check_plain_loop(s, l)) return false;
    if (!mlc_dtype_eq(l->loop.var->dtype, loops[0]->loop.var->dtype))
      return sch_error(s, "loops '%s' and '%s' have different index types", loop_name(loops[0]),
                       loop_name(l));
    if (i == 0) continue;
    const MlcStmt *outer = loops[i - 1];
    if (outer->loop.body != l) {
      if (l == outer) return sch_error(s, "loop '%s' appears twice", loop_name(l));
      return sch_error(s,
                       "loop '%s' is not the only child of loop '%s' (loops must be directly nested, "
                       "outermost first, with nothing between them)",
                       loop_name(l), loop_name(outer));
    }
  }
  return true;
}

static bool uses_any_var(const MlcExpr *e, const MlcStmt **loops, int n);

/* the fused extent: the product of the extents, folded when constant */
static MlcExpr *fused_extent(MlcSchedule *s, const MlcStmt **loops, int n) {
  MlcCtx *ctx = s->ctx;
  MlcDType t = loops[0]->loop.var->dtype;
  int64_t prod = 1, e;
  bool all_const = true;
  for (int i = 0; i < n && all_const; i++)
    all_const = mlc_e_is_const_int(loops[i]->loop.extent, &e) && e >= 0 &&
                !__builtin_mul_overflow(prod, e, &prod) && fits_dtype(t, prod);
  if (all_const) return mlc_e_int(ctx, t, prod);
  for (int i = 0; i < n; i++)
    if (mlc_e_is_const_int(loops[i]->loop.extent, &e) && (e < 0 || !fits_dtype(t, e))) return NULL;
  MlcExpr *acc = loops[0]->loop.extent;
  for (int i = 1; i < n; i++) acc = mlc_arith_mul(ctx, acc, loops[i]->loop.extent);
  return acc;
}

/* old var i = fused // (extents inside it) % extent_i, the outermost
 * without the %, a unit loop 0 unless its iter is to be preserved */
static void fuse_substitution(MlcCtx *ctx, const MlcStmt **loops, int n, MlcExpr *fused, bool preserve,
                              MlcMap *vmap) {
  MlcDType t = fused->dtype;
  MlcExpr *lower = mlc_e_int(ctx, t, 1);
  for (int i = n - 1; i >= 0; i--) {
    MlcExpr *ext = loops[i]->loop.extent;
    MlcExpr *v = is_const(lower, 1) ? fused : mlc_e_bin(ctx, MLC_BIN_FLOORDIV, fused, lower);
    if (i > 0) v = mlc_e_bin(ctx, MLC_BIN_FLOORMOD, v, ext);
    if (!preserve && is_const(ext, 1)) v = mlc_e_int(ctx, t, 0);
    mlc_map_put(vmap, loops[i]->loop.var, v);
    lower = mlc_arith_mul(ctx, lower, ext);
  }
}

bool sch_prim_fuse(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  MlcCtx *ctx = s->ctx;
  const MlcStmt *loops[MAX_LOOPS];
  int n;
  bool preserve;
  if (!find_loop_list(s, &args[0], loops, &n) ||
      !arg_bool(s, &args[1], "preserve_unit_iters", true, &preserve))
    return false;
  if (n == 0) return sch_error(s, "needs at least one loop");
  if (!check_fusable(s, loops, n)) return false;
  for (int i = 1; i < n; i++)
    if (uses_any_var(loops[i]->loop.extent, loops, i))
      return sch_error(s, "the extent of loop '%s' depends on an outer loop being fused",
                       loop_name(loops[i]));
  MlcExpr *extent = fused_extent(s, loops, n);
  if (!extent) return sch_error(s, "the fused extent of loop '%s' overflows", loop_name(loops[0]));
  MlcStrBuf name = {0};
  for (int i = 0; i < n && name.len <= MAX_DERIVED_NAME; i++) {
    const char *ln = loop_name(loops[i]);
    mlc_sb_printf(&name, "%s_", derived_base(ctx, ln, strlen(ln)));
  }
  const char *base = name.len > MAX_DERIVED_NAME ? "fused" : mlc_internf(ctx, "%sfused", mlc_sb_cstr(&name));
  MlcExpr *fused = sch_fresh_var(s, mlc_intern(ctx, base), loops[0]->loop.var->dtype);
  mlc_vec_free(&name);

  SchPath path = {0};
  if (!sch_find_loop(s, loops[0]->loop.var, &path)) return false;
  Rewrite rw;
  rewrite_init(&rw, s, &path);
  sch_path_free(&path);
  int64_t e;
  if (mlc_e_is_const_int(extent, &e) && e > 0) mlc_arith_bind(&rw.az, fused, 0, e);
  fuse_substitution(ctx, loops, n, fused, preserve, &rw.vmap);
  MlcStmt *body = mlc_mutate_stmt(&rw.m, loops[n - 1]->loop.body);
  rewrite_free(&rw);
  body = body ? serial_loop(s, fused, extent, body) : NULL;
  return commit_loops(s, loops[0], body, &fused, 1, outs, n_outs);
}

/* ---- reorder ------------------------------------------------------------------ */

typedef struct VarUse {
  MlcVisitor v;
  const MlcStmt **loops;
  int n;
  bool found;
} VarUse;

static bool var_use_expr(MlcVisitor *v, const MlcExpr *e) {
  VarUse *u = (VarUse *)v;
  if (e->kind == MLC_EXPR_VAR)
    for (int i = 0; i < u->n; i++)
      if (u->loops[i]->loop.var == e) u->found = true;
  return !u->found;
}

/* true when e reads the var of one of loops[0..n) */
static bool uses_any_var(const MlcExpr *e, const MlcStmt **loops, int n) {
  VarUse u = {.v = {.expr = var_use_expr}, .loops = loops, .n = n};
  mlc_visit_expr(&u.v, e);
  return u.found;
}

/* The chain the named loops span: chain[0] the outermost named loop,
 * chain[len - 1] the innermost, each the whole body of the one before. */
typedef struct Chain {
  const MlcStmt *loop[64];
  int len;
} Chain;

static bool is_named(const MlcStmt *l, const MlcStmt **loops, int n) {
  for (int i = 0; i < n; i++)
    if (loops[i] == l) return true;
  return false;
}

static bool find_chain(MlcSchedule *s, const MlcStmt **loops, int n, Chain *c) {
  SchPath deepest = {0}, p = {0};
  for (int i = 0; i < n; i++) {
    if (!sch_find_loop(s, loops[i]->loop.var, &p)) {
      sch_path_free(&deepest);
      return false;
    }
    if (p.n > deepest.n)
      sch_path_free(&deepest), deepest = p, p = (SchPath){0};
    else
      sch_path_free(&p);
  }
  /* the named loops on the path to the innermost one */
  int top = -1, found = 0;
  for (int i = 0; i < deepest.n; i++)
    if (deepest.nodes[i]->kind == MLC_STMT_FOR && is_named(deepest.nodes[i], loops, n)) {
      if (top < 0) top = i;
      found++;
    }
  const MlcStmt *bottom = deepest.nodes[deepest.n - 1];
  bool ok = true;
  if (found != n) {
    for (int i = 0; i < n && ok; i++) {
      bool on_path = false;
      for (int j = 0; j < deepest.n; j++) on_path |= deepest.nodes[j] == loops[i];
      if (!on_path)
        ok = sch_error(s, "loops '%s' and '%s' are not in one nest (neither encloses the other)",
                       loop_name(loops[i]), loop_name(bottom));
    }
  }
  for (int i = top; ok && i < deepest.n - 1; i++) {
    const MlcStmt *at = deepest.nodes[i];
    if (at->kind == MLC_STMT_BLOCK_REALIZE)
      ok = sch_error(s, "block '%s' lies between the loops, so they are not in one nest",
                     at->realize.block->name);
    else if (at->kind == MLC_STMT_SEQ || (at->kind == MLC_STMT_FOR && at->loop.body != deepest.nodes[i + 1]))
      ok = sch_error(s,
                     "loop '%s' has more than one statement in its body: the loops between '%s' "
                     "and '%s' are not a single-child chain",
                     loop_name(at->kind == MLC_STMT_FOR ? at : deepest.nodes[i - 1]),
                     loop_name(deepest.nodes[top]), loop_name(bottom));
    else if (at->kind != MLC_STMT_FOR)
      ok = sch_error(s,
                     "a statement other than a loop lies inside loop '%s': the loops between '%s' "
                     "and '%s' are not a single-child chain",
                     loop_name(deepest.nodes[i - 1]), loop_name(deepest.nodes[top]), loop_name(bottom));
  }
  if (ok && deepest.n - top > (int)(sizeof c->loop / sizeof c->loop[0]))
    ok = sch_error(s, "too many loops between '%s' and '%s'", loop_name(deepest.nodes[top]),
                   loop_name(bottom));
  if (ok) {
    c->len = deepest.n - top;
    for (int i = 0; i < c->len; i++) c->loop[i] = deepest.nodes[top + i];
  }
  sch_path_free(&deepest);
  return ok;
}

/* Blocks right under the innermost loop keep their meaning under any loop
 * order only when their iters are spatial or reduce and their bindings
 * affine (as TVM requires); nested blocks move with their parent.  One more
 * condition keeps a reduction's init first: a moved loop must not feed both
 * a spatial and a reduce iter of a block (as a fused-then-split loop over
 * j and k does), or the instances of one output element would no longer
 * start with the one the init belongs to. */
typedef struct BlockCheck {
  MlcVisitor v;
  MlcSchedule *s;
  const MlcStmt **moved; /* the named loops */
  int n_moved;
  bool ok;
} BlockCheck;

/* the kinds (bit per MlcIterKind) of the iters whose binding reads var */
static unsigned iter_kinds_using(const MlcStmt *realize, const MlcStmt *loop) {
  const MlcBlock *b = realize->realize.block;
  unsigned kinds = 0;
  for (int i = 0; i < b->n_iters && i < realize->realize.n; i++)
    if (uses_any_var(realize->realize.values[i], &loop, 1)) kinds |= 1u << b->iters[i].kind;
  return kinds;
}

static bool check_moved_block(MlcVisitor *v, const MlcStmt *st) {
  BlockCheck *c = (BlockCheck *)v;
  if (!c->ok) return false;
  if (st->kind != MLC_STMT_BLOCK_REALIZE) return true;
  const MlcBlock *b = st->realize.block;
  for (int i = 0; i < b->n_iters && c->ok; i++)
    if (b->iters[i].kind == MLC_ITER_OPAQUE)
      c->ok = sch_error(c->s, "block '%s' has an opaque iter '%s', so its loops cannot be reordered", b->name,
                        b->iters[i].var->var.name);
  if (c->ok && !sch_affine_bindings(st))
    c->ok = sch_error(c->s, "block '%s' has non-affine bindings, so its loops cannot be reordered", b->name);
  unsigned mixed = 1u << MLC_ITER_SPATIAL | 1u << MLC_ITER_REDUCE;
  for (int i = 0; i < c->n_moved && c->ok; i++)
    if ((iter_kinds_using(st, c->moved[i]) & mixed) == mixed)
      c->ok = sch_error(c->s,
                        "loop '%s' feeds both spatial and reduce iters of block '%s', so moving it could "
                        "run part of the reduction before its init",
                        loop_name(c->moved[i]), b->name);
  return false;
}

bool sch_prim_reorder(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  const MlcStmt *loops[MAX_LOOPS];
  int n;
  *n_outs = 0;
  if (!find_loop_list(s, &args[0], loops, &n)) return false;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      if (loops[i] == loops[j]) return sch_error(s, "loop '%s' appears twice", loop_name(loops[i]));
  if (n < 2) return true;
  Chain c = {.len = 0};
  if (!find_chain(s, loops, n, &c)) return false;
  BlockCheck bc = {.v = {.stmt = check_moved_block}, .s = s, .moved = loops, .n_moved = n, .ok = true};
  mlc_visit_stmt(&bc.v, c.loop[c.len - 1]->loop.body);
  if (!bc.ok) return false;
  /* the new order: named positions take the named loops in the order given */
  const MlcStmt *order[64];
  for (int i = 0, k = 0; i < c.len; i++) order[i] = is_named(c.loop[i], loops, n) ? loops[k++] : c.loop[i];
  for (int i = 0; i < c.len; i++)
    if (uses_any_var(order[i]->loop.min, order + i + 1, c.len - i - 1) ||
        uses_any_var(order[i]->loop.extent, order + i + 1, c.len - i - 1))
      return sch_error(s, "the range of loop '%s' depends on a loop that would be inside it",
                       loop_name(order[i]));
  MlcStmt *body = c.loop[c.len - 1]->loop.body;
  for (int i = c.len - 1; i >= 0 && body; i--) {
    const MlcStmt *l = order[i];
    body = mlc_s_for(s->ctx, l->loop.var, l->loop.min, l->loop.extent, l->loop.kind, l->loop.thread,
                     l->loop.annotations, body);
  }
  int ignored;
  MlcSchVal none[1];
  return commit_loops(s, c.loop[0], body, NULL, 0, none, &ignored);
}

/* ---- add_unit_loop ---------------------------------------------------------------- */

bool sch_prim_add_unit_loop(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  SchPath path = {0};
  const MlcSchVal *v = &args[0];
  if (v->kind == MLC_SV_BLOCK) {
    const char *name;
    if (!sch_arg_block(s, v, "block_or_loop", &name) || !sch_find_block(s, name, &path)) return false;
    if (path.n == 1) {
      sch_path_free(&path);
      return sch_error(s, "block '%s' is the root block; no loop can go above it", name);
    }
  } else {
    const MlcExpr *var;
    if (!sch_arg_loop(s, v, "block_or_loop", &var) || !sch_find_loop(s, var, &path)) return false;
  }
  const MlcStmt *target = path.nodes[path.n - 1];
  sch_path_free(&path);
  MlcExpr *u = sch_fresh_var(s, mlc_intern(s->ctx, "u"), MLC_I32);
  MlcStmt *loop = serial_loop(s, u, mlc_e_int(s->ctx, MLC_I32, 1), (MlcStmt *)target);
  MlcStmt *body = loop ? sch_replace(s, target, loop) : NULL;
  if (!body || !sch_commit(s, body)) {
    if (!mlc_has_error(s->ctx)) sch_error(s, "could not rebuild the function");
    return false;
  }
  outs[0] = (MlcSchVal){.kind = MLC_SV_LOOP, .rv = sch_loop_rv(s, u)};
  *n_outs = 1;
  return true;
}
