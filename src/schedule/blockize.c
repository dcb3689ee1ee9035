/* blockize.c - blockize, tensorize, and the registry of tensor intrinsics.
 *
 * blockize(loop) cuts the block under a nest of loops in two: an outer block
 * at the loop's place, whose iter vars count whole tiles, and the original
 * block inside it, whose iter vars count positions within a tile.  Each
 * binding is divided as  binding = outer * E + inner,  where the inner part
 * uses only the loops at and below `loop` (a mixed-radix sum of them, of
 * extent E) and the outer part only what is above.  The original iter var
 * then reads  outer_var * E + inner_var.  A reduction's init moves to the
 * outer block, wrapped in the loops its spatial iters need, because the
 * inner block no longer sees when a tile's reduction starts.
 *
 * tensorize(loop or block, intrinsic) blockizes a loop first, then matches
 * the outer block's body against the intrinsic's description: the same loop
 * and block structure, the same expressions up to a renaming of loop and iter
 * vars, and each description buffer accessing one target buffer at a fixed
 * offset (the start of the target block's region of it).  On a match the
 * body is replaced by the implementation, its buffers bound to the target
 * buffers at those offsets, its vars and block names made fresh.
 *
 * Intrinsics are pairs of prim funcs written in TVMScript.  The registry is
 * process-wide, as in the field, and keeps each pair as text: a schedule
 * reads the pair into its own context when it tensorizes, so no node is
 * shared between contexts and a registration outlives the context it came
 * from.  A small set of intrinsics is built in; a registered one of the same
 * name takes precedence. */
#include "schedule/state.h"
#include "mlcc/text.h"

#include <pthread.h>
#include <string.h>

enum { BZ_TARGET, BZ_PRESERVE };
enum { TZ_TARGET, TZ_INTRIN, TZ_PRESERVE };

#define MAX_NEST 64
#define MAX_ITERS 64

/* ======================================================================== */
/* affine forms                                                             */
/* ======================================================================== */

/* sum of coef * atom plus k; an atom is any expression that is not a sum,
 * a difference, a negation or a product with a constant */
typedef struct Term { MlcExpr *atom; int64_t coef; } Term;
typedef struct Affine { MLC_VEC(Term) terms; int64_t k; } Affine;

static bool affine_add(Affine *a, MlcExpr *e, int64_t mul) {
  int64_t v, m;
  if (mlc_e_is_const_int(e, &v))
    return !__builtin_mul_overflow(v, mul, &m) && !__builtin_add_overflow(a->k, m, &a->k);
  if (e->kind == MLC_EXPR_NEG) return mul != INT64_MIN && affine_add(a, e->operand, -mul);
  if (e->kind == MLC_EXPR_BINARY) {
    switch (e->bin.op) {
    case MLC_BIN_ADD: return affine_add(a, e->bin.a, mul) && affine_add(a, e->bin.b, mul);
    case MLC_BIN_SUB: return mul != INT64_MIN && affine_add(a, e->bin.a, mul) && affine_add(a, e->bin.b, -mul);
    case MLC_BIN_MUL:
      if (mlc_e_is_const_int(e->bin.b, &v)) return !__builtin_mul_overflow(mul, v, &m) && affine_add(a, e->bin.a, m);
      if (mlc_e_is_const_int(e->bin.a, &v)) return !__builtin_mul_overflow(mul, v, &m) && affine_add(a, e->bin.b, m);
      break;
    default: break;
    }
  }
  /* INT64_MIN has no negation; refusing it keeps affine_build defined */
  for (size_t i = 0; i < a->terms.len; i++)
    if (a->terms.data[i].atom == e)
      return !__builtin_add_overflow(a->terms.data[i].coef, mul, &a->terms.data[i].coef) &&
             a->terms.data[i].coef != INT64_MIN;
  mlc_vec_push(&a->terms, ((Term){e, mul}));
  return mul != INT64_MIN;
}

/* c * atom summed left to right, then + k; terms of coefficient 0 skipped */
static MlcExpr *affine_build(MlcCtx *ctx, const Term *ts, size_t n, int64_t k, MlcDType t) {
  MlcExpr *acc = NULL;
  for (size_t i = 0; i < n; i++) {
    int64_t c = ts[i].coef;
    if (c == 0) continue;
    MlcExpr *x = ts[i].atom;
    int64_t mag = c < 0 ? -c : c;
    if (mag != 1) x = mlc_e_bin(ctx, MLC_BIN_MUL, x, mlc_e_int(ctx, t, mag));
    if (!acc) acc = c < 0 ? mlc_e_neg(ctx, x) : x;
    else acc = mlc_e_bin(ctx, c < 0 ? MLC_BIN_SUB : MLC_BIN_ADD, acc, x);
  }
  if (!acc) return mlc_e_int(ctx, t, k);
  if (k > 0) return mlc_e_bin(ctx, MLC_BIN_ADD, acc, mlc_e_int(ctx, t, k));
  if (k < 0) return mlc_e_bin(ctx, MLC_BIN_SUB, acc, mlc_e_int(ctx, t, -k));
  return acc;
}

typedef struct VarSet { MlcVisitor v; const MlcMap *vars; bool found; } VarSet;

static bool varset_expr(MlcVisitor *v, const MlcExpr *e) {
  VarSet *vs = (VarSet *)v;
  if (e->kind == MLC_EXPR_VAR && mlc_map_has(vs->vars, e)) vs->found = true;
  return !vs->found;
}

/* does e read any var of the set (a map with the vars as keys) */
static bool mentions(const MlcExpr *e, const MlcMap *vars) {
  if (!e || !vars->len) return false;
  VarSet vs = {.v = {.expr = varset_expr}, .vars = vars};
  mlc_visit_expr(&vs.v, e);
  return vs.found;
}

static bool outside_expr(MlcVisitor *v, const MlcExpr *e) {
  VarSet *vs = (VarSet *)v;
  if (e->kind == MLC_EXPR_VAR && !mlc_map_has(vs->vars, e)) vs->found = true;
  return !vs->found;
}

/* does e read a var outside the set */
static bool reads_outside(const MlcExpr *e, const MlcMap *vars) {
  VarSet vs = {.v = {.expr = outside_expr}, .vars = vars};
  mlc_visit_expr(&vs.v, e);
  return vs.found;
}

static bool stmt_mentions(const MlcStmt *s, const MlcMap *vars) {
  if (!s || !vars->len) return false;
  VarSet vs = {.v = {.expr = varset_expr}, .vars = vars};
  mlc_visit_stmt(&vs.v, s);
  return vs.found;
}

/* ======================================================================== */
/* blockize                                                                 */
/* ======================================================================== */

/* The subtree under a loop: the chain of loops down to the one block. */
typedef struct Nest {
  const MlcStmt *loops[MAX_NEST];
  int n;
  const MlcStmt *realize;
  MlcMap inner;   /* inner loop var -> its loop */
} Nest;

/* one iter var divided into outer * extent + inner */
typedef struct Division {
  MlcExpr *outer, *inner; /* bindings; inner NULL when extent == 1 */
  int64_t extent;         /* of the inner part */
} Division;

typedef struct Blockize {
  MlcSchedule *s;
  Nest nest;
  const MlcBlock *block;
  Division div[MAX_ITERS];
  MlcIterVar outer_iters[MAX_ITERS], inner_iters[MAX_ITERS];
  MlcExpr *outer_vals[MAX_ITERS], *inner_vals[MAX_ITERS];
  int n_outer, n_inner;
  MlcMap subst;   /* original iter var -> its expression in the new iter vars */
  MlcAnalyzer az;  /* simplifies the substituted indices */
} Blockize;

static void blockize_free(Blockize *z) {
  mlc_arith_free(&z->az);
  mlc_map_free(&z->nest.inner);
  mlc_map_free(&z->subst);
}

static const char *kind_name(MlcStmtKind k) {
  static const char *const names[] = {
      [MLC_STMT_STORE] = "a store", [MLC_STMT_FOR] = "a loop", [MLC_STMT_BLOCK_REALIZE] = "a block",
      [MLC_STMT_SEQ] = "a sequence", [MLC_STMT_IF] = "an if", [MLC_STMT_LET] = "a let",
      [MLC_STMT_ALLOCATE] = "an allocation", [MLC_STMT_EVALUATE] = "an evaluate",
  };
  return (unsigned)k < sizeof names / sizeof *names ? names[k] : "a statement";
}

static int64_t loop_extent(const MlcStmt *loop) {
  int64_t e = 0;
  mlc_e_is_const_int(loop->loop.extent, &e);
  return e;
}

static bool collect_nest(Blockize *z, const MlcStmt *loop) {
  const MlcStmt *cur = loop;
  const char *lname = loop->loop.var->var.name;
  z->nest.n = 0;
  while (cur->kind == MLC_STMT_FOR) {
    int64_t min, ext;
    if (z->nest.n == MAX_NEST) return sch_error(z->s, "loop '%s': too deep a loop nest", lname);
    if (!mlc_e_is_const_int(cur->loop.min, &min) || min != 0 || !mlc_e_is_const_int(cur->loop.extent, &ext))
      return sch_error(z->s, "loop '%s': loop '%s' under it must start at 0 and have a constant extent",
                       lname, cur->loop.var->var.name);
    z->nest.loops[z->nest.n++] = cur;
    mlc_map_put(&z->nest.inner, cur->loop.var, (void *)cur);
    cur = cur->loop.body;
  }
  if (cur->kind != MLC_STMT_BLOCK_REALIZE)
    return sch_error(z->s, "loop '%s' must hold exactly one block under a chain of loops; found %s",
                     lname, kind_name(cur->kind));
  z->nest.realize = cur;
  z->block = cur->realize.block;
  if (reads_outside(cur->realize.pred, &z->nest.inner))
    return sch_error(z->s, "block '%s' has a predicate on loops above '%s'; the inner block could not "
                           "see them", z->block->name, lname);
  if (z->block->n_iters > MAX_ITERS) return sch_error(z->s, "block '%s' has too many iter vars", z->block->name);
  return true;
}


static int by_coef(const void *a, const void *b) {
  int64_t x = ((const Term *)a)->coef, y = ((const Term *)b)->coef;
  return x < y ? -1 : x > y;
}

/* Divide the binding of iter i: false + error when it is not a mixed-radix
 * sum of inner loops plus a multiple of that sum's extent. */
static bool divide(Blockize *z, int i, MlcExpr *binding) {
  MlcCtx *ctx = z->s->ctx;
  const char *iname = z->block->iters[i].var->var.name;
  Affine a = {0};
  MLC_VEC(Term) in = {0}, out = {0};
  bool ok = affine_add(&a, binding, 1) && a.k != INT64_MIN, any_inner = false;
  for (size_t t = 0; ok && t < a.terms.len; t++) {
    Term tm = a.terms.data[t];
    const MlcStmt *loop = mlc_map_get(&z->nest.inner, tm.atom);
    any_inner |= loop != NULL;
    if (loop && tm.coef != 0 && loop_extent(loop) > 1) mlc_vec_push(&in, tm);
    else if (!loop && mentions(tm.atom, &z->nest.inner)) ok = false;
    else if (!loop) mlc_vec_push(&out, tm);
  }
  int64_t e = 1;
  if (ok && in.len) qsort(in.data, in.len, sizeof *in.data, by_coef);
  for (size_t t = 0; ok && t < in.len; t++) {
    ok = in.data[t].coef == e && !__builtin_mul_overflow(e, loop_extent(mlc_map_get(&z->nest.inner, in.data[t].atom)), &e);
  }
  for (size_t t = 0; ok && t < out.len; t++) ok = out.data[t].coef % e == 0;
  ok = ok && a.k % e == 0;
  Division *d = &z->div[i];
  if (ok) {
    MlcDType dt = binding->dtype;
    for (size_t t = 0; t < out.len; t++) out.data[t].coef /= e;
    d->extent = e;
    d->outer = !any_inner ? binding : affine_build(ctx, out.data, out.len, a.k / e, dt);
    /* the inner part in order of appearance, as the binding wrote it */
    MLC_VEC(Term) ordered = {0};
    for (size_t t = 0; t < a.terms.len; t++)
      for (size_t u = 0; u < in.len; u++)
        if (in.data[u].atom == a.terms.data[t].atom) mlc_vec_push(&ordered, in.data[u]);
    d->inner = e == 1 ? NULL : out.len == 0 && a.k == 0 ? binding : affine_build(ctx, ordered.data, ordered.len, 0, dt);
    mlc_vec_free(&ordered);
    ok = d->outer && (e == 1 || d->inner);
  }
  mlc_vec_free(&a.terms);
  mlc_vec_free(&in);
  mlc_vec_free(&out);
  if (!ok && !mlc_has_error(ctx))
    sch_error(z->s, "block '%s': the binding of iter '%s' is not a tiling of the loops under '%s' "
                    "(it must be outer * E + a mixed-radix sum of those loops of extent E)",
              z->block->name, iname, z->nest.loops[0]->loop.var->var.name);
  return ok;
}

/* Where a reduction's init can move up.  The original block runs its init
 * at the first value of its reduce iters; the outer block would run it once
 * per tile.  Those agree unless a loop under `loop` repeats the block
 * without changing its iter vars (the init would have rerun each time), or
 * the predicate involves a reduction loop (the init's instance might never
 * have run). */
static bool init_can_move(Blockize *z) {
  const MlcStmt *r = z->nest.realize;
  for (int l = 0; l < z->nest.n; l++) {
    const MlcExpr *var = z->nest.loops[l]->loop.var;
    MlcMap one = {0};
    mlc_map_put(&one, var, (void *)1);
    bool bound = false, reduce = false;
    for (int i = 0; i < r->realize.n; i++) {
      bool uses = mentions(r->realize.values[i], &one);
      bound |= uses;
      reduce |= uses && z->block->iters[i].kind != MLC_ITER_SPATIAL;
    }
    bool in_pred = mentions(r->realize.pred, &one);
    mlc_map_free(&one);
    if (!bound && loop_extent(z->nest.loops[l]) != 1)
      return sch_error(z->s, "loop '%s' repeats reduction block '%s' without changing its iter vars; its init "
                             "could not move out of the loop", var->var.name, z->block->name);
    if (reduce && in_pred)
      return sch_error(z->s, "reduction block '%s' has a predicate on reduction loop '%s'; its init could not "
                             "move out of the loop", z->block->name, var->var.name);
  }
  return true;
}

/* unit loops read as 0 when unit iters are not preserved */
static MlcExpr *drop_unit_loops(Blockize *z, const SchPath *path, MlcExpr *e) {
  MlcMap zero = {0};
  for (int i = 0; i < path->n; i++) {
    const MlcStmt *st = path->nodes[i];
    if (st->kind == MLC_STMT_FOR && loop_extent(st) == 1 && mlc_e_is_const_int(st->loop.min, &(int64_t){0}))
      mlc_map_put(&zero, st->loop.var, mlc_e_int(z->s->ctx, st->loop.var->dtype, 0));
  }
  /* fold the zeros away: `0 * 16` would print as written but read back as
   * 0, and the module must read back as it was printed */
  MlcExpr *r = zero.len ? mlc_arith_simplify(&z->az, mlc_substitute_expr(z->s->ctx, e, &zero)) : e;
  mlc_map_free(&zero);
  return r;
}

static MlcExpr *fresh_iter(MlcSchedule *s, const MlcExpr *var, const char *suffix) {
  return sch_fresh_var(s, mlc_internf(s->ctx, "%s%s", var->var.name, suffix), var->dtype);
}

/* the new iter vars of both blocks and what each original iter var becomes */
static bool make_iters(Blockize *z) {
  MlcCtx *ctx = z->s->ctx;
  for (int i = 0; i < z->block->n_iters; i++) {
    const MlcIterVar *iv = &z->block->iters[i];
    const Division *d = &z->div[i];
    MlcDType t = iv->var->dtype;
    int64_t dmin, dext, oext = 0;
    bool const_dom = mlc_e_is_const_int(iv->dom.min, &dmin) && mlc_e_is_const_int(iv->dom.extent, &dext);
    if (d->extent > 1 && (!const_dom || dmin != 0))
      return sch_error(z->s, "block '%s': iter '%s' must have a constant domain starting at 0 to be tiled",
                       z->block->name, iv->var->var.name);
    MlcExpr *oext_e = iv->dom.extent;
    if (d->extent > 1) {
      oext = dext / d->extent + (dext % d->extent != 0);
      oext_e = mlc_e_int(ctx, t, oext);
    }
    MlcExpr *ov = fresh_iter(z->s, iv->var, "_o");
    z->outer_iters[z->n_outer] = (MlcIterVar){ov, {d->extent > 1 ? mlc_e_int(ctx, t, 0) : iv->dom.min, oext_e}, iv->kind};
    /* the new iter vars range over their domains: what lets the simplifier
     * fold an index of a tiled layout, (vj_o * 16 + vj_i) // 16, to vj_o */
    if (d->extent > 1) mlc_arith_bind(&z->az, ov, 0, oext);
    else if (const_dom) mlc_arith_bind(&z->az, ov, dmin, dext);
    z->outer_vals[z->n_outer++] = d->outer;
    MlcExpr *sub = ov;
    if (d->extent > 1) {
      MlcExpr *inv = fresh_iter(z->s, iv->var, "_i");
      z->inner_iters[z->n_inner] = (MlcIterVar){inv, {mlc_e_int(ctx, t, 0), mlc_e_int(ctx, t, d->extent)}, iv->kind};
      mlc_arith_bind(&z->az, inv, 0, d->extent);
      z->inner_vals[z->n_inner++] = d->inner;
      sub = oext == 1 ? inv : mlc_e_bin(ctx, MLC_BIN_ADD, mlc_e_bin(ctx, MLC_BIN_MUL, ov, mlc_e_int(ctx, t, d->extent)), inv);
    }
    if (!sub) return false;
    mlc_map_put(&z->subst, iv->var, sub);
  }
  return true;
}

/* Substituted indices are put in linear form, as a person would write them
 * ((vi_o * 2 + vi_i) * 16 reads vi_o * 32 + vi_i * 16). */
static MlcExpr **simplified(MlcMutator *m, MlcExpr **idx, int n) {
  MlcExpr **out = idx;
  for (int i = 0; i < n; i++) {
    MlcExpr *x = mlc_arith_simplify(m->user, idx[i]);
    if (!x) return NULL;
    if (x == idx[i]) continue;
    if (out == idx) out = mlc_arena_dup(&m->ctx->arena, idx, (size_t)n * sizeof *idx);
    out[i] = x;
  }
  return out;
}

/* regions with vars replaced (and indices simplified when az is given) */
static MlcBufferRegion *subst_regions(MlcCtx *ctx, const MlcBufferRegion *rs, int n, const MlcMap *vmap, MlcAnalyzer *az) {
  MlcBufferRegion *out = mlc_arena_array(&ctx->arena, (size_t)(n > 0 ? n : 1), sizeof *out);
  for (int i = 0; i < n; i++) {
    out[i].buf = rs[i].buf;
    out[i].ranges = mlc_arena_array(&ctx->arena, (size_t)(rs[i].buf->ndim > 0 ? rs[i].buf->ndim : 1), sizeof *out[i].ranges);
    for (int d = 0; d < rs[i].buf->ndim; d++) {
      MlcExpr *min = mlc_substitute_expr(ctx, rs[i].ranges[d].min, vmap);
      MlcExpr *ext = mlc_substitute_expr(ctx, rs[i].ranges[d].extent, vmap);
      out[i].ranges[d].min = min && az ? mlc_arith_simplify(az, min) : min;
      out[i].ranges[d].extent = ext && az ? mlc_arith_simplify(az, ext) : ext;
      if (!out[i].ranges[d].min || !out[i].ranges[d].extent) return NULL;
    }
  }
  return out;
}

static MlcExpr *simplify_load(MlcMutator *m, MlcExpr *e) {
  MlcExpr *x = mlc_mutate_expr_children(m, e);
  if (!x || x->kind != MLC_EXPR_LOAD) return x;
  MlcExpr **idx = simplified(m, x->load.idx, x->load.n);
  return !idx ? NULL : idx == x->load.idx ? x : mlc_e_load(m->ctx, x->load.buf, idx, x->load.n);
}

static MlcStmt *simplify_access(MlcMutator *m, MlcStmt *st) {
  MlcStmt *x = mlc_mutate_stmt_children(m, st);
  if (x && x->kind == MLC_STMT_STORE) {
    MlcExpr **idx = simplified(m, x->store.idx, x->store.n);
    return !idx ? NULL : idx == x->store.idx ? x : mlc_s_store(m->ctx, x->store.buf, idx, x->store.n, x->store.value);
  }
  if (!x || x->kind != MLC_STMT_BLOCK_REALIZE) return x;
  const MlcBlock *b = x->realize.block;
  MlcMap none = {0};
  MlcBufferRegion *r = subst_regions(m->ctx, b->reads, b->n_reads, &none, m->user);
  MlcBufferRegion *w = subst_regions(m->ctx, b->writes, b->n_writes, &none, m->user);
  MlcBlock *nb = r && w ? mlc_block_new(m->ctx, b->name, b->iters, b->n_iters, r, b->n_reads, w, b->n_writes, b->init,
                                        b->allocs, b->n_allocs, b->annotations, b->body)
                        : NULL;
  return nb ? mlc_s_realize(m->ctx, x->realize.values, x->realize.n, x->realize.pred, nb) : NULL;
}

/* a statement with the block's iter vars replaced, indices simplified */
static MlcStmt *subst_stmt(Blockize *z, MlcStmt *st) {
  MlcStmt *x = mlc_substitute_stmt(z->s->ctx, st, &z->subst);
  MlcMutator m = {.ctx = z->s->ctx, .user = &z->az, .expr = simplify_load, .stmt = simplify_access};
  x = x ? mlc_mutate_stmt(&m, x) : NULL;
  mlc_map_free(&m.buffer_map);
  return x;
}

static bool region_lists_buffer(const MlcBufferRegion *rs, int n, const MlcBuffer *b) {
  for (int i = 0; i < n; i++)
    if (rs[i].buf == b) return true;
  return false;
}

/* The original block with its iter vars replaced; a reduction's inner block
 * loses its init and reads what it accumulates into. */
static MlcStmt *inner_block(Blockize *z, MlcBufferRegion **writes_out) {
  MlcCtx *ctx = z->s->ctx;
  const MlcBlock *b = z->block;
  MlcBufferRegion *reads = subst_regions(ctx, b->reads, b->n_reads, &z->subst, &z->az);
  MlcBufferRegion *writes = subst_regions(ctx, b->writes, b->n_writes, &z->subst, &z->az);
  MlcStmt *body = subst_stmt(z, b->body);
  if (!reads || !writes || !body) return NULL;
  int n_reads = b->n_reads;
  if (b->init) {
    MlcBufferRegion *all = mlc_arena_array(&ctx->arena, (size_t)(b->n_writes + b->n_reads + 1), sizeof *all);
    n_reads = 0;
    for (int i = 0; i < b->n_writes; i++)
      if (!region_lists_buffer(reads, b->n_reads, writes[i].buf)) all[n_reads++] = writes[i];
    for (int i = 0; i < b->n_reads; i++) all[n_reads++] = reads[i];
    reads = all;
  }
  *writes_out = writes;
  MlcBlock *nb = mlc_block_new(ctx, b->name, z->inner_iters, z->n_inner, reads, n_reads, writes, b->n_writes,
                               NULL, b->allocs, b->n_allocs, b->annotations, body);
  return nb ? mlc_s_realize(ctx, z->inner_vals, z->n_inner, z->nest.realize->realize.pred, nb) : NULL;
}

/* the nest of loops again, with `inner` at its bottom */
static MlcStmt *rebuild_nest(MlcCtx *ctx, const Nest *n, MlcStmt *inner) {
  MlcStmt *cur = inner;
  for (int i = n->n - 1; i >= 0 && cur; i--) {
    const MlcStmt *l = n->loops[i];
    cur = mlc_s_for(ctx, l->loop.var, l->loop.min, l->loop.extent, l->loop.kind, l->loop.thread,
                    l->loop.annotations, cur);
  }
  return cur;
}

/* The init of the outer block: the original init over the inner spatial
 * iters it uses, in copies of the inner loops those iters are bound to. */
static MlcStmt *outer_init(Blockize *z, MlcBufferRegion *writes) {
  MlcCtx *ctx = z->s->ctx;
  const MlcBlock *b = z->block;
  MlcStmt *init = subst_stmt(z, b->init);
  if (!init) return NULL;
  MlcMap to_init = {0}, loops_used = {0};
  MlcIterVar iters[MAX_ITERS];
  MlcExpr *vals[MAX_ITERS];
  int n = 0;
  for (int i = 0; i < z->n_inner; i++) {
    MlcIterVar iv = z->inner_iters[i];
    MlcMap one = {0};
    mlc_map_put(&one, iv.var, (void *)1);
    bool uses = stmt_mentions(init, &one);
    mlc_map_free(&one);
    if (!uses) continue;
    if (iv.kind != MLC_ITER_SPATIAL) {
      sch_error(z->s, "block '%s': its init reads reduce iter '%s'", b->name, iv.var->var.name);
      init = NULL;
      break;
    }
    MlcExpr *nv = fresh_iter(z->s, iv.var, "_init");
    mlc_map_put(&to_init, iv.var, nv);
    iters[n] = (MlcIterVar){nv, iv.dom, iv.kind};
    vals[n++] = z->inner_vals[i];
  }
  MlcStmt *out = NULL;
  MlcExpr *pred = z->nest.realize->realize.pred;
  for (int i = 0; init && i < z->nest.n; i++) {
    MlcMap one = {0};
    mlc_map_put(&one, z->nest.loops[i]->loop.var, (void *)1);
    bool needed = mentions(pred, &one);
    for (int k = 0; k < n && !needed; k++) needed = mentions(vals[k], &one);
    mlc_map_free(&one);
    if (needed) {
      const MlcExpr *v = z->nest.loops[i]->loop.var;
      mlc_map_put(&loops_used, v, mlc_e_var(ctx, v->var.name, v->dtype));
    }
  }
  if (init) {
    MlcBufferRegion *w = subst_regions(ctx, writes, b->n_writes, &to_init, NULL);
    MlcStmt *body = mlc_substitute_stmt(ctx, init, &to_init);
    for (int k = 0; k < n; k++) vals[k] = mlc_substitute_expr(ctx, vals[k], &loops_used);
    MlcExpr *p = mlc_substitute_expr(ctx, pred, &loops_used);
    MlcBlock *ib = w && body ? mlc_block_new(ctx, sch_fresh_block_name(z->s, mlc_internf(ctx, "%s_init", b->name)),
                                             iters, n, NULL, 0, w, b->n_writes, NULL, NULL, 0, (MlcAttrs){0}, body)
                             : NULL;
    out = ib && p ? mlc_s_realize(ctx, vals, n, p, ib) : NULL;
    for (int i = z->nest.n - 1; i >= 0 && out; i--) {
      const MlcStmt *l = z->nest.loops[i];
      MlcExpr *nv = mlc_map_get(&loops_used, l->loop.var);
      if (nv)
        out = mlc_s_for(ctx, nv, l->loop.min, l->loop.extent, l->loop.kind, l->loop.thread, l->loop.annotations, out);
    }
  }
  mlc_map_free(&to_init);
  mlc_map_free(&loops_used);
  return out;
}

/* The outer block realize that replaces `loop` (nothing is committed). */
static MlcStmt *blockize_loop(MlcSchedule *s, const MlcStmt *loop, bool preserve_unit_iters) {
  Blockize z = {.s = s};
  MlcCtx *ctx = s->ctx;
  mlc_arith_init(&z.az, ctx);
  SchPath path = {0};
  MlcStmt *result = NULL;
  if (!collect_nest(&z, loop) || (z.block->init && !init_can_move(&z)) || !sch_find_block(s, z.block->name, &path))
    goto done;
  for (int i = 0; i < z.block->n_iters; i++) {
    MlcExpr *v = z.nest.realize->realize.values[i];
    if (!preserve_unit_iters) v = drop_unit_loops(&z, &path, v);
    if (!v || !divide(&z, i, v)) goto done;
  }
  MlcBufferRegion *writes = NULL;
  MlcStmt *inner = make_iters(&z) ? inner_block(&z, &writes) : NULL;
  MlcStmt *body = inner ? rebuild_nest(ctx, &z.nest, inner) : NULL;
  MlcStmt *init = body && z.block->init ? outer_init(&z, writes) : NULL;
  if (!body || (z.block->init && !init)) goto done;
  MlcBlock *ob = mlc_block_new(ctx, sch_fresh_block_name(s, mlc_internf(ctx, "%s_o", z.block->name)),
                               z.outer_iters, z.n_outer, NULL, 0, NULL, 0, init, NULL, 0, (MlcAttrs){0}, body);
  if (!ob || !mlc_block_infer_regions(ctx, ob)) goto done;
  result = mlc_s_realize(ctx, z.outer_vals, z.n_outer, NULL, ob);
done:
  sch_path_free(&path);
  blockize_free(&z);
  return result;
}

bool sch_prim_blockize(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  const MlcExpr *var;
  SchPath path = {0};
  if (args[BZ_TARGET].kind == MLC_SV_BLOCK || args[BZ_TARGET].kind == MLC_SV_LIST)
    return sch_error(s, "target must be a loop handle (blockizing blocks is not supported)");
  if (!sch_arg_loop(s, &args[BZ_TARGET], "target", &var) || !sch_find_loop(s, var, &path)) return false;
  const MlcStmt *loop = path.nodes[path.n - 1];
  sch_path_free(&path);
  MlcStmt *outer = blockize_loop(s, loop, args[BZ_PRESERVE].kind != MLC_SV_BOOL || args[BZ_PRESERVE].i);
  if (!outer) return false;
  const char *name = outer->realize.block->name;
  if (!sch_commit(s, sch_replace(s, loop, outer))) return false;
  outs[0] = (MlcSchVal){.kind = MLC_SV_BLOCK, .rv = sch_block_rv(s, name)};
  *n_outs = 1;
  return true;
}

/* ======================================================================== */
/* the registry of tensor intrinsics                                        */
/* ======================================================================== */

typedef struct Intrin { char *name, *desc, *impl; } Intrin;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static MLC_VEC(Intrin) registry;

/* Built in: a 4x4x4 float32 matmul tile (C += A * B, B indexed [k, j]) whose
 * implementation runs k outermost and j vectorized, and a float32 dot
 * product of 4 unrolled into one expression; the byte dot products of
 * intrin_dot.def. */
#define BUILTIN_INTRINS(X)                                                                     \
  X("mma_4x4x4_f32",                                                                           \
    "@T.prim_func\n"                                                                           \
    "def mma_4x4x4_f32_desc(A: T.Buffer((4, 4), \"float32\"), B: T.Buffer((4, 4), \"float32\"), " \
    "C: T.Buffer((4, 4), \"float32\")):\n"                                                     \
    "    for i, j, k in T.grid(4, 4, 4):\n"                                                    \
    "        with T.block(\"update\"):\n"                                                      \
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"                              \
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n",                             \
    "@T.prim_func\n"                                                                           \
    "def mma_4x4x4_f32_impl(A: T.Buffer((4, 4), \"float32\"), B: T.Buffer((4, 4), \"float32\"), " \
    "C: T.Buffer((4, 4), \"float32\")):\n"                                                     \
    "    for k, i in T.grid(4, 4):\n"                                                          \
    "        for j in T.vectorized(4):\n"                                                      \
    "            C[i, j] = C[i, j] + A[i, k] * B[k, j]\n")                                     \
  X("dot_4_f32",                                                                               \
    "@T.prim_func\n"                                                                           \
    "def dot_4_f32_desc(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\"), "       \
    "C: T.Buffer((1,), \"float32\")):\n"                                                       \
    "    for k in range(4):\n"                                                                 \
    "        with T.block(\"update\"):\n"                                                      \
    "            vk = T.axis.reduce(4, k)\n"                                                   \
    "            C[0] = C[0] + A[vk] * B[vk]\n",                                               \
    "@T.prim_func\n"                                                                           \
    "def dot_4_f32_impl(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\"), "       \
    "C: T.Buffer((1,), \"float32\")):\n"                                                       \
    "    C[0] = C[0] + (A[0] * B[0] + A[1] * B[1] + (A[2] * B[2] + A[3] * B[3]))\n")

#include "schedule/intrin_dot.def"

static const struct { const char *name, *desc, *impl; } builtin_intrins[] = {
#define X(name, desc, impl) {name, desc, impl},
    BUILTIN_INTRINS(X)
    MLC_DOT_INTRINS(X)
#undef X
};

static bool same_param_buffers(MlcCtx *ctx, const char *name, const MlcPrimFunc *d, const MlcPrimFunc *i) {
  if (d->n_params != i->n_params)
    return mlc_error(ctx, (MlcLoc){0}, "tensor intrinsic '%s': the description has %d params, the "
                     "implementation %d", name, d->n_params, i->n_params);
  for (int p = 0; p < d->n_params; p++) {
    const MlcBuffer *a = d->params[p].buf, *b = i->params[p].buf;
    bool same = a && b && a->ndim == b->ndim && mlc_dtype_eq(a->dtype, b->dtype) && a->scope == b->scope;
    for (int k = 0; same && k < a->ndim; k++) {
      int64_t x, y;
      same = mlc_e_is_const_int(a->shape[k], &x) && mlc_e_is_const_int(b->shape[k], &y) && x == y;
    }
    if (!same)
      return mlc_error(ctx, (MlcLoc){0}, "tensor intrinsic '%s': param %d must be a buffer of one constant "
                       "shape, dtype and scope in both functions", name, p);
  }
  if (d->body->kind != MLC_STMT_BLOCK_REALIZE)
    return mlc_error(ctx, (MlcLoc){0}, "tensor intrinsic '%s': the description must compute in a block", name);
  return true;
}

static char *print_func(const MlcPrimFunc *f) {
  MlcStrBuf sb = {0};
  mlc_print_prim_func(f, &sb);
  char *t = mlc_xstrdup(mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return t;
}

bool mlc_sch_register_intrin(MlcCtx *ctx, const char *name, const MlcPrimFunc *desc, const MlcPrimFunc *impl) {
  if (!name || !*name || !desc || !impl)
    return mlc_error(ctx, (MlcLoc){0}, "a tensor intrinsic needs a name, a description and an implementation");
  if (!same_param_buffers(ctx, name, desc, impl)) return false;
  Intrin in = {mlc_xstrdup(name), print_func(desc), print_func(impl)};
  pthread_mutex_lock(&registry_lock);
  size_t i = 0;
  while (i < registry.len && strcmp(registry.data[i].name, name) != 0) i++;
  if (i < registry.len) {
    free(registry.data[i].name), free(registry.data[i].desc), free(registry.data[i].impl);
    registry.data[i] = in;
  } else {
    mlc_vec_push(&registry, in);
  }
  pthread_mutex_unlock(&registry_lock);
  return true;
}

int mlc_sch_register_intrins(MlcCtx *ctx, const MlcModule *m) {
  int n = 0;
  for (int i = 0; i < m->n_funcs; i++) {
    const MlcFunc *f = &m->funcs[i];
    size_t len = strlen(f->name);
    if (f->kind != MLC_FUNC_PRIM || len <= 5 || strcmp(f->name + len - 5, "_desc") != 0) continue;
    const char *base = mlc_intern_n(ctx, f->name, len - 5);
    const MlcFunc *impl = mlc_module_find(m, mlc_internf(ctx, "%s_impl", base));
    if (!impl || impl->kind != MLC_FUNC_PRIM) {
      mlc_error(ctx, (MlcLoc){0}, "tensor intrinsic '%s': '%s' has no '%s_impl' beside it", base, f->name, base);
      return -1;
    }
    if (!mlc_sch_register_intrin(ctx, base, f->prim, impl->prim)) return -1;
    n++;
  }
  return n;
}

static const MlcPrimFunc *read_func(MlcSchedule *s, const char *name, const char *part, const char *text) {
  const char *file = mlc_internf(s->ctx, "<intrinsic %s %s>", name, part);
  MlcModule *m = mlc_read_module(s->ctx, file, text, strlen(text));
  if (!m) return NULL;
  if (m->n_funcs != 1 || m->funcs[0].kind != MLC_FUNC_PRIM) {
    sch_error(s, "tensor intrinsic '%s': its %s is not one prim func", name, part);
    return NULL;
  }
  return m->funcs[0].prim;
}

/* the pair registered (or built in) under name, read into the schedule's context */
static bool lookup_intrin(MlcSchedule *s, const char *name, const MlcPrimFunc **desc, const MlcPrimFunc **impl) {
  char *d = NULL, *i = NULL;
  pthread_mutex_lock(&registry_lock);
  for (size_t k = 0; k < registry.len && !d; k++)
    if (strcmp(registry.data[k].name, name) == 0)
      d = mlc_xstrdup(registry.data[k].desc), i = mlc_xstrdup(registry.data[k].impl);
  pthread_mutex_unlock(&registry_lock);
  for (size_t k = 0; k < sizeof builtin_intrins / sizeof *builtin_intrins && !d; k++)
    if (strcmp(builtin_intrins[k].name, name) == 0)
      d = mlc_xstrdup(builtin_intrins[k].desc), i = mlc_xstrdup(builtin_intrins[k].impl);
  if (!d) return sch_error(s, "no tensor intrinsic named '%s' is registered", name);
  *desc = read_func(s, name, "description", d);
  *impl = *desc ? read_func(s, name, "implementation", i) : NULL;
  free(d);
  free(i);
  return *impl && same_param_buffers(s->ctx, name, *desc, *impl);
}

/* ======================================================================== */
/* tensorize: matching the description                                      */
/* ======================================================================== */

/* What a buffer of the intrinsic stands for in the target: a target buffer,
 * indexed from `offset` (the start of the target block's region of it).  A
 * target of higher rank is matched on its trailing dims; its leading ones
 * stay at their offset. */
typedef struct BufBind {
  MlcBuffer *target;
  int lead;
  MlcExpr **offset; /* target->ndim entries; NULL: the same indices */
} BufBind;

typedef struct Match {
  MlcSchedule *s;
  const char *intrin;
  const MlcBlock *target; /* the block whose body is matched */
  const MlcBlock *droot;  /* the description's root block, with regions */
  MlcMap vars;            /* description var -> target var */
  MlcMap bufs;            /* description buffer -> BufBind */
  MlcAnalyzer az;
  bool index;             /* matching loop bounds, iter domains or bindings */
} Match;

static bool mismatch(Match *m, const char *fmt, ...) MLC_PRINTF(2, 3);
static bool mismatch(Match *m, const char *fmt, ...) {
  MlcStrBuf sb = {0};
  va_list ap;
  va_start(ap, fmt);
  mlc_sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  sch_error(m->s, "block '%s' does not match tensor intrinsic '%s': %s", m->target->name, m->intrin,
            mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return false;
}

static const char *expr_text(MlcSchedule *s, const MlcExpr *e) {
  MlcStrBuf sb = {0};
  mlc_print_expr(e, &sb);
  const char *t = mlc_intern(s->ctx, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return t;
}

static const MlcBufferRegion *region_of(const MlcBlock *b, const MlcBuffer *buf) {
  for (int i = 0; i < b->n_writes; i++)
    if (b->writes[i].buf == buf) return &b->writes[i];
  for (int i = 0; i < b->n_reads; i++)
    if (b->reads[i].buf == buf) return &b->reads[i];
  return NULL;
}

/* a root block with its regions: as written, or inferred from its body */
static const MlcBlock *root_with_regions(MlcSchedule *s, const MlcBlock *root) {
  if (root->n_reads || root->n_writes) return root;
  MlcBlock *b = mlc_arena_dup(&s->ctx->arena, root, sizeof *b);
  return mlc_block_infer_regions(s->ctx, b) ? b : NULL;
}

static MlcExpr *minus(MlcCtx *ctx, MlcExpr *a, MlcExpr *b) {
  int64_t v;
  if (mlc_e_is_const_int(b, &v) && v == 0) return a;
  if (!mlc_dtype_eq(a->dtype, b->dtype)) b = mlc_e_cast(ctx, a->dtype, b);
  return mlc_e_bin(ctx, MLC_BIN_SUB, a, b);
}

static BufBind *bind_buffer(Match *m, MlcBuffer *p, MlcBuffer *x) {
  BufBind *bb = mlc_map_get(&m->bufs, p);
  if (bb) {
    if (bb->target == x) return bb;
    return mismatch(m, "the description's buffer '%s' stands for both '%s' and '%s'", p->name,
                    bb->target->name, x->name), NULL;
  }
  char t1[32], t2[32];
  if (!mlc_dtype_eq(p->dtype, x->dtype))
    return mismatch(m, "buffer '%s' is %s, the description's '%s' is %s", x->name, mlc_dtype_str(x->dtype, t1),
                    p->name, mlc_dtype_str(p->dtype, t2)), NULL;
  if (p->scope != x->scope)
    return mismatch(m, "buffer '%s' is in scope '%s', the description's '%s' in '%s'", x->name, x->scope,
                    p->name, p->scope), NULL;
  const MlcBufferRegion *dr = region_of(m->droot, p), *tr = region_of(m->target, x);
  if (x->ndim < p->ndim || !dr || !tr)
    return mismatch(m, "buffer '%s' cannot stand for the description's '%s'", x->name, p->name), NULL;
  bb = mlc_arena_alloc(&m->s->ctx->arena, sizeof *bb);
  *bb = (BufBind){x, x->ndim - p->ndim, mlc_arena_array(&m->s->ctx->arena, (size_t)x->ndim, sizeof *bb->offset)};
  for (int d = 0; d < x->ndim; d++) {
    int64_t te, de = 1;
    bool ok = mlc_e_is_const_int(tr->ranges[d].extent, &te) &&
              (d < bb->lead || mlc_e_is_const_int(dr->ranges[d - bb->lead].extent, &de)) && te == de;
    if (!ok)
      return mismatch(m, "buffer '%s' dimension %d: the block's region has extent %s, the description's "
                         "'%s' needs %lld", x->name, d, expr_text(m->s, tr->ranges[d].extent), p->name,
                      (long long)de), NULL;
    bb->offset[d] = d < bb->lead ? tr->ranges[d].min
                                 : mlc_arith_simplify(&m->az, minus(m->s->ctx, tr->ranges[d].min, dr->ranges[d - bb->lead].min));
  }
  mlc_map_put(&m->bufs, p, bb);
  return bb;
}

/* offset + index, folded where one side is 0; a vector index (an
 * implementation's T.Ramp) moves its base */
static MlcExpr *plus_offset(MlcCtx *ctx, MlcExpr *off, MlcExpr *x) {
  int64_t v;
  if (!off) return x;
  if (x->kind == MLC_EXPR_RAMP && off->dtype.lanes == 1) {
    MlcExpr *st = x->ramp.stride;
    if (!mlc_dtype_eq(st->dtype, off->dtype)) st = mlc_e_cast(ctx, off->dtype, st);
    return mlc_e_ramp(ctx, plus_offset(ctx, off, x->ramp.base), st, x->ramp.lanes);
  }
  if (!mlc_dtype_eq(off->dtype, x->dtype)) x = mlc_e_cast(ctx, off->dtype, x);
  if (mlc_e_is_const_int(off, &v) && v == 0) return x;
  if (mlc_e_is_const_int(x, &v) && v == 0) return off;
  return mlc_e_bin(ctx, MLC_BIN_ADD, off, x);
}

static bool index_dtype(MlcDType t);

/* a description index with its vars replaced by the target's, in the
 * target index's dtype t (an intrinsic's int32 index against an int64 one) */
static MlcExpr *desc_index(Match *m, const MlcExpr *e, MlcDType t) {
  MlcCtx *ctx = m->s->ctx;
  if (!index_dtype(t) || !index_dtype(e->dtype) || mlc_dtype_eq(e->dtype, t))
    return mlc_substitute_expr(ctx, (MlcExpr *)e, &m->vars);
  switch (e->kind) {
  case MLC_EXPR_VAR: {
    MlcExpr *v = mlc_map_get(&m->vars, e);
    if (!v) v = (MlcExpr *)e;
    return mlc_dtype_eq(v->dtype, t) ? v : mlc_e_cast(ctx, t, v);
  }
  case MLC_EXPR_INT: return mlc_e_int(ctx, t, e->int_val);
  case MLC_EXPR_BINARY: {
    MlcExpr *a = desc_index(m, e->bin.a, t), *b = desc_index(m, e->bin.b, t);
    return a && b ? mlc_e_bin(ctx, e->bin.op, a, b) : NULL;
  }
  default: {
    MlcExpr *x = mlc_substitute_expr(ctx, (MlcExpr *)e, &m->vars);
    return x ? mlc_e_cast(ctx, t, x) : NULL;
  }
  }
}

static bool same_index(Match *m, const BufBind *bb, MlcExpr **d_idx, MlcExpr **t_idx) {
  MlcCtx *ctx = m->s->ctx;
  for (int j = 0; j < bb->target->ndim; j++) {
    MlcExpr *d = j < bb->lead ? NULL : desc_index(m, d_idx[j - bb->lead], t_idx[j]->dtype);
    if (j >= bb->lead && !d) return mlc_clear_error(ctx), false;
    MlcExpr *want = j < bb->lead ? bb->offset[j] : plus_offset(ctx, bb->offset[j], d);
    MlcExpr *diff = want ? minus(ctx, t_idx[j], want) : NULL;
    int64_t v;
    if (!diff || !mlc_e_is_const_int(mlc_arith_simplify(&m->az, diff), &v) || v != 0) return false;
  }
  return true;
}

static bool match_access(Match *m, MlcBuffer *p, MlcExpr **d_idx, MlcBuffer *x, MlcExpr **t_idx) {
  BufBind *bb = bind_buffer(m, p, x);
  if (!bb) return false;
  if (same_index(m, bb, d_idx, t_idx)) return true;
  MlcStrBuf a = {0}, b = {0};
  for (int j = 0; j < x->ndim; j++) mlc_sb_puts(&a, j ? ", " : ""), mlc_print_expr(t_idx[j], &a);
  for (int j = 0; j < p->ndim; j++) mlc_sb_puts(&b, j ? ", " : ""), mlc_print_expr(d_idx[j], &b);
  mismatch(m, "the block accesses %s[%s] where the description accesses %s[%s]", x->name, mlc_sb_cstr(&a),
           p->name, mlc_sb_cstr(&b));
  mlc_vec_free(&a);
  mlc_vec_free(&b);
  return false;
}

/* Structural comparison of a description expression with a target one,
 * vars through the mapping; buffer accesses through match_access, which
 * reports its own mismatch (the callers report the others). */
/* an index dtype: loops and iter vars count in int32 or int64 */
static bool index_dtype(MlcDType t) { return t.code == MLC_TC_INT && t.lanes == 1 && (t.bits == 32 || t.bits == 64); }

static bool match_expr(Match *m, const MlcExpr *d, const MlcExpr *t) {
  /* an intrinsic written with int32 loops matches a nest of int64 ones
   * (what legalized ops have) in its loop bounds, domains and bindings */
  bool widths = m->index && index_dtype(d->dtype) && index_dtype(t->dtype);
  if (d->kind != t->kind || (!mlc_dtype_eq(d->dtype, t->dtype) && !widths)) return false;
  switch (d->kind) {
  case MLC_EXPR_VAR: return mlc_map_get(&m->vars, d) == t;
  case MLC_EXPR_INT: return d->int_val == t->int_val;
  case MLC_EXPR_FLOAT: return d->float_val == t->float_val;
  case MLC_EXPR_STR: return d->str_val == t->str_val;
  case MLC_EXPR_BINARY: return d->bin.op == t->bin.op && match_expr(m, d->bin.a, t->bin.a) && match_expr(m, d->bin.b, t->bin.b);
  case MLC_EXPR_NOT:
  case MLC_EXPR_NEG:
  case MLC_EXPR_CAST: return match_expr(m, d->operand, t->operand);
  case MLC_EXPR_SELECT:
    return match_expr(m, d->select.cond, t->select.cond) && match_expr(m, d->select.t, t->select.t) &&
           match_expr(m, d->select.f, t->select.f);
  case MLC_EXPR_LOAD: return match_access(m, d->load.buf, d->load.idx, t->load.buf, t->load.idx);
  case MLC_EXPR_RAMP:
    return d->ramp.lanes == t->ramp.lanes && match_expr(m, d->ramp.base, t->ramp.base) &&
           match_expr(m, d->ramp.stride, t->ramp.stride);
  case MLC_EXPR_BROADCAST: return d->bcast.lanes == t->bcast.lanes && match_expr(m, d->bcast.value, t->bcast.value);
  case MLC_EXPR_LET:
    if (!match_expr(m, d->let.value, t->let.value)) return false;
    mlc_map_put(&m->vars, d->let.var, t->let.var);
    return match_expr(m, d->let.body, t->let.body);
  case MLC_EXPR_CALL:
    if (d->call.op != t->call.op || d->call.n != t->call.n) return false;
    for (int i = 0; i < d->call.n; i++)
      if (!match_expr(m, d->call.args[i], t->call.args[i])) return false;
    return true;
  }
  return false;
}

static bool match_value(Match *m, const char *what, const MlcExpr *d, const MlcExpr *t) {
  if (match_expr(m, d, t)) return true;
  return mismatch(m, "%s %s differs from the description's %s", what, expr_text(m->s, t), expr_text(m->s, d));
}

static const char *for_kind_name(MlcForKind k) {
  static const char *const names[] = {"serial", "parallel", "vectorized", "unrolled", "thread-bound"};
  return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

static bool match_stmt(Match *m, const MlcStmt *d, const MlcStmt *t);

static bool match_index(Match *m, const MlcExpr *d, const MlcExpr *t) {
  m->index = true;
  bool ok = match_expr(m, d, t);
  m->index = false;
  return ok;
}

static bool match_loop(Match *m, const MlcStmt *d, const MlcStmt *t) {
  const char *tn = t->loop.var->var.name, *dn = d->loop.var->var.name;
  if (!match_index(m, d->loop.min, t->loop.min) || !match_index(m, d->loop.extent, t->loop.extent))
    return mismatch(m, "loop '%s' runs over [%s, +%s), the description's loop '%s' over [%s, +%s)", tn,
                    expr_text(m->s, t->loop.min), expr_text(m->s, t->loop.extent), dn,
                    expr_text(m->s, d->loop.min), expr_text(m->s, d->loop.extent));
  if (d->loop.kind != t->loop.kind)
    return mismatch(m, "loop '%s' is %s, the description's loop '%s' is %s", tn, for_kind_name(t->loop.kind),
                    dn, for_kind_name(d->loop.kind));
  mlc_map_put(&m->vars, d->loop.var, t->loop.var);
  return match_stmt(m, d->loop.body, t->loop.body);
}

static bool match_block(Match *m, const MlcStmt *d, const MlcStmt *t) {
  const MlcBlock *db = d->realize.block, *tb = t->realize.block;
  static const char *const kinds[] = {"spatial", "reduce", "opaque"};
  if (db->n_iters != tb->n_iters)
    return mismatch(m, "block '%s' has %d iter vars, the description's block '%s' %d", tb->name, tb->n_iters,
                    db->name, db->n_iters);
  for (int i = 0; i < db->n_iters; i++) {
    const MlcIterVar *di = &db->iters[i], *ti = &tb->iters[i];
    if (di->kind != ti->kind)
      return mismatch(m, "iter '%s' of block '%s' is %s, the description's '%s' is %s", ti->var->var.name,
                      tb->name, kinds[ti->kind], di->var->var.name, kinds[di->kind]);
    if (!match_index(m, di->dom.min, ti->dom.min) || !match_index(m, di->dom.extent, ti->dom.extent))
      return mismatch(m, "iter '%s' of block '%s' has extent %s, the description's '%s' %s", ti->var->var.name,
                      tb->name, expr_text(m->s, ti->dom.extent), di->var->var.name, expr_text(m->s, di->dom.extent));
    if (!match_index(m, d->realize.values[i], t->realize.values[i]))
      return mismatch(m, "the binding %s differs from the description's %s", expr_text(m->s, t->realize.values[i]),
                      expr_text(m->s, d->realize.values[i]));
  }
  if (!match_value(m, "the predicate", d->realize.pred, t->realize.pred)) return false;
  for (int i = 0; i < db->n_iters; i++) mlc_map_put(&m->vars, db->iters[i].var, tb->iters[i].var);
  if (db->n_allocs != tb->n_allocs)
    return mismatch(m, "block '%s' allocates %d buffers, the description's '%s' %d", tb->name, tb->n_allocs,
                    db->name, db->n_allocs);
  for (int i = 0; i < db->n_allocs; i++) {
    BufBind *bb = mlc_arena_alloc(&m->s->ctx->arena, sizeof *bb);
    *bb = (BufBind){tb->allocs[i], 0, NULL};
    mlc_map_put(&m->bufs, db->allocs[i], bb);
  }
  if (!db->init != !tb->init)
    return mismatch(m, "block '%s' %s an init, the description's '%s' %s", tb->name, tb->init ? "has" : "has no",
                    db->name, db->init ? "has one" : "has none");
  return (!db->init || match_stmt(m, db->init, tb->init)) && match_stmt(m, db->body, tb->body);
}

static bool match_stmt(Match *m, const MlcStmt *d, const MlcStmt *t) {
  if (d->kind != t->kind)
    return mismatch(m, "found %s where the description has %s", kind_name(t->kind), kind_name(d->kind));
  switch (d->kind) {
  case MLC_STMT_FOR: return match_loop(m, d, t);
  case MLC_STMT_BLOCK_REALIZE: return match_block(m, d, t);
  case MLC_STMT_SEQ:
    if (d->seq.n != t->seq.n)
      return mismatch(m, "a sequence of %d statements where the description has %d", t->seq.n, d->seq.n);
    for (int i = 0; i < d->seq.n; i++)
      if (!match_stmt(m, d->seq.items[i], t->seq.items[i])) return false;
    return true;
  case MLC_STMT_STORE:
    return match_access(m, d->store.buf, d->store.idx, t->store.buf, t->store.idx) &&
           match_value(m, "the stored value", d->store.value, t->store.value);
  case MLC_STMT_IF:
    if (!match_value(m, "the condition", d->if_.cond, t->if_.cond)) return false;
    if (!d->if_.else_s != !t->if_.else_s) return mismatch(m, "an if differs from the description's in its else branch");
    return match_stmt(m, d->if_.then_s, t->if_.then_s) && (!d->if_.else_s || match_stmt(m, d->if_.else_s, t->if_.else_s));
  case MLC_STMT_LET:
    if (!match_value(m, "the let value", d->let.value, t->let.value)) return false;
    mlc_map_put(&m->vars, d->let.var, t->let.var);
    return match_stmt(m, d->let.body, t->let.body);
  case MLC_STMT_EVALUATE: return match_value(m, "the evaluated", d->eval, t->eval);
  case MLC_STMT_ALLOCATE: return mismatch(m, "allocations are not matched");
  }
  return false;
}

/* ======================================================================== */
/* tensorize: instantiating the implementation                              */
/* ======================================================================== */

typedef struct Inst {
  MlcSchedule *s;
  MlcMap vars; /* implementation var -> fresh var */
  MlcMap bufs; /* implementation buffer -> BufBind */
} Inst;

static MlcExpr **remap_index(MlcCtx *ctx, const BufBind *bb, MlcExpr **idx) {
  MlcExpr **out = mlc_arena_array(&ctx->arena, (size_t)(bb->target->ndim > 0 ? bb->target->ndim : 1), sizeof *out);
  for (int j = 0; j < bb->target->ndim; j++) {
    out[j] = j < bb->lead ? bb->offset[j] : plus_offset(ctx, bb->offset ? bb->offset[j] : NULL, idx[j - bb->lead]);
    if (!out[j]) return NULL;
  }
  return out;
}

static MlcExpr *inst_expr(MlcMutator *mu, MlcExpr *e) {
  Inst *in = mu->user;
  if (e->kind == MLC_EXPR_VAR) {
    MlcExpr *r = mlc_map_get(&in->vars, e);
    return r ? r : e;
  }
  MlcExpr *x = mlc_mutate_expr_children(mu, e);
  const BufBind *bb = x && x->kind == MLC_EXPR_LOAD ? mlc_map_get(&in->bufs, x->load.buf) : NULL;
  if (!bb) return x;
  MlcExpr **idx = remap_index(mu->ctx, bb, x->load.idx);
  return idx ? mlc_e_load(mu->ctx, bb->target, idx, bb->target->ndim) : NULL;
}

static MlcExpr *fresh_def(Inst *in, const MlcExpr *var) {
  MlcExpr *nv = sch_fresh_var(in->s, var->var.name, var->dtype);
  mlc_map_put(&in->vars, var, nv);
  return nv;
}

static MlcBufferRegion *inst_regions(MlcMutator *mu, const MlcBufferRegion *rs, int n) {
  Inst *in = mu->user;
  MlcBufferRegion *out = mlc_arena_array(&mu->ctx->arena, (size_t)(n > 0 ? n : 1), sizeof *out);
  for (int i = 0; i < n; i++) {
    const BufBind *bb = mlc_map_get(&in->bufs, rs[i].buf);
    BufBind same = {rs[i].buf, 0, NULL};
    if (!bb) bb = &same;
    MlcExpr *mins[MAX_NEST];
    if (rs[i].buf->ndim > MAX_NEST) return NULL;
    for (int d = 0; d < rs[i].buf->ndim; d++)
      if (!(mins[d] = mlc_mutate_expr(mu, rs[i].ranges[d].min))) return NULL;
    MlcExpr **m = remap_index(mu->ctx, bb, mins);
    if (!m) return NULL;
    out[i].buf = bb->target;
    out[i].ranges = mlc_arena_array(&mu->ctx->arena, (size_t)(bb->target->ndim > 0 ? bb->target->ndim : 1),
                                    sizeof *out[i].ranges);
    for (int d = 0; d < bb->target->ndim; d++) {
      MlcExpr *ext = d < bb->lead ? mlc_e_int(mu->ctx, m[d]->dtype, 1) : mlc_mutate_expr(mu, rs[i].ranges[d - bb->lead].extent);
      if (!ext) return NULL;
      out[i].ranges[d] = (MlcRange){m[d], ext};
    }
  }
  return out;
}

/* a copy of an allocated buffer, so each instance allocates its own */
static MlcBuffer *clone_alloc(Inst *in, MlcBuffer *b) {
  MlcBuffer *c = mlc_arena_dup(&in->s->ctx->arena, b, sizeof *c);
  c->name = sch_fresh_block_name(in->s, b->name);
  BufBind *bb = mlc_arena_alloc(&in->s->ctx->arena, sizeof *bb);
  *bb = (BufBind){c, 0, NULL};
  mlc_map_put(&in->bufs, b, bb);
  return c;
}

static MlcStmt *inst_block(MlcMutator *mu, MlcStmt *st) {
  Inst *in = mu->user;
  MlcCtx *ctx = mu->ctx;
  const MlcBlock *b = st->realize.block;
  int n = st->realize.n;
  MlcExpr **vals = mlc_arena_array(&ctx->arena, (size_t)(n > 0 ? n : 1), sizeof *vals);
  for (int i = 0; i < n; i++)
    if (!(vals[i] = mlc_mutate_expr(mu, st->realize.values[i]))) return NULL;
  MlcExpr *pred = mlc_mutate_expr(mu, st->realize.pred);
  MlcIterVar *iters = mlc_arena_array(&ctx->arena, (size_t)(b->n_iters > 0 ? b->n_iters : 1), sizeof *iters);
  for (int i = 0; i < b->n_iters; i++) {
    iters[i] = b->iters[i];
    iters[i].dom.min = mlc_mutate_expr(mu, b->iters[i].dom.min);
    iters[i].dom.extent = mlc_mutate_expr(mu, b->iters[i].dom.extent);
    iters[i].var = fresh_def(in, b->iters[i].var);
  }
  MlcBuffer **allocs = mlc_arena_array(&ctx->arena, (size_t)(b->n_allocs > 0 ? b->n_allocs : 1), sizeof *allocs);
  for (int i = 0; i < b->n_allocs; i++) allocs[i] = clone_alloc(in, b->allocs[i]);
  MlcBufferRegion *reads = inst_regions(mu, b->reads, b->n_reads), *writes = inst_regions(mu, b->writes, b->n_writes);
  MlcStmt *init = b->init ? mlc_mutate_stmt(mu, b->init) : NULL, *body = mlc_mutate_stmt(mu, b->body);
  if (!pred || !reads || !writes || (b->init && !init) || !body) return NULL;
  MlcBlock *nb = mlc_block_new(ctx, sch_fresh_block_name(in->s, b->name), iters, b->n_iters, reads, b->n_reads,
                               writes, b->n_writes, init, allocs, b->n_allocs, b->annotations, body);
  return nb ? mlc_s_realize(ctx, vals, n, pred, nb) : NULL;
}

static MlcStmt *inst_stmt(MlcMutator *mu, MlcStmt *st) {
  Inst *in = mu->user;
  switch (st->kind) {
  case MLC_STMT_FOR: {
    MlcExpr *min = mlc_mutate_expr(mu, st->loop.min), *ext = mlc_mutate_expr(mu, st->loop.extent);
    MlcExpr *nv = fresh_def(in, st->loop.var);
    MlcStmt *body = mlc_mutate_stmt(mu, st->loop.body);
    return min && ext && body ? mlc_s_for(mu->ctx, nv, min, ext, st->loop.kind, st->loop.thread, st->loop.annotations, body)
                              : NULL;
  }
  case MLC_STMT_LET: {
    MlcExpr *value = mlc_mutate_expr(mu, st->let.value);
    MlcExpr *nv = fresh_def(in, st->let.var);
    MlcStmt *body = mlc_mutate_stmt(mu, st->let.body);
    return value && body ? mlc_s_let(mu->ctx, nv, value, body) : NULL;
  }
  case MLC_STMT_BLOCK_REALIZE: return inst_block(mu, st);
  case MLC_STMT_STORE: {
    MlcStmt *x = mlc_mutate_stmt_children(mu, st);
    const BufBind *bb = x ? mlc_map_get(&in->bufs, x->store.buf) : NULL;
    if (!bb) return x;
    MlcExpr **idx = remap_index(mu->ctx, bb, x->store.idx);
    return idx ? mlc_s_store(mu->ctx, bb->target, idx, bb->target->ndim, x->store.value) : NULL;
  }
  default: return mlc_mutate_stmt_children(mu, st);
  }
}

/* the root block of a description or implementation, NULL when the body
 * holds no blocks */
static const MlcBlock *root_block(const MlcPrimFunc *f) {
  const MlcStmt *b = f->body;
  return b->kind == MLC_STMT_BLOCK_REALIZE && b->realize.block->n_iters == 0 ? b->realize.block : NULL;
}

/* The element stride of dimension d of a buffer: its own, or the product
 * of the dims after d when it is compact. */
static MlcExpr *stride_of(MlcCtx *ctx, const MlcBuffer *b, int d, MlcDType t) {
  MlcExpr *x = b->strides ? b->strides[d] : mlc_e_int(ctx, t, 1);
  for (int k = d + 1; !b->strides && k < b->ndim && x; k++)
    x = mlc_e_bin(ctx, MLC_BIN_MUL, x, mlc_dtype_eq(b->shape[k]->dtype, t) ? b->shape[k] : mlc_e_cast(ctx, t, b->shape[k]));
  return x && !mlc_dtype_eq(x->dtype, t) ? mlc_e_cast(ctx, t, x) : x;
}

/* An implementation's buffer declared with symbolic strides (strides=[sa,
 * 1], as an intrinsic handing a tile to a C function does) takes the
 * strides of the buffer it stands for: each stride var is bound to the
 * target's stride there; a constant stride must be the target's. */
static bool bind_strides(Match *m, Inst *in, const MlcBuffer *ip, const BufBind *bb) {
  MlcCtx *ctx = m->s->ctx;
  for (int d = 0; ip->strides && d < ip->ndim; d++) {
    const MlcExpr *sv = ip->strides[d];
    MlcExpr *want = stride_of(ctx, bb->target, bb->lead + d, sv->dtype);
    if (!want) return false;
    want = mlc_arith_simplify(&m->az, want);
    if (sv->kind == MLC_EXPR_VAR) {
      MlcExpr *had = mlc_map_get(&in->vars, sv);
      if (!had) {
        mlc_map_put(&in->vars, sv, want);
        continue;
      }
      sv = had;
    }
    int64_t diff;
    MlcExpr *x = mlc_arith_simplify(&m->az, mlc_e_bin(ctx, MLC_BIN_SUB, want, (MlcExpr *)sv));
    if (!x || !mlc_e_is_const_int(x, &diff) || diff != 0)
      return mismatch(m, "buffer '%s' has stride %s in dimension %d where the implementation's '%s' needs %s",
                      bb->target->name, expr_text(m->s, want), bb->lead + d, ip->name, expr_text(m->s, sv));
  }
  return true;
}

/* The implementation's body for the matched block: its buffer params bound
 * to the target buffers the description's params matched, at the offsets
 * of the target block's regions relative to the implementation's own. */
static MlcStmt *instantiate(Match *m, const MlcPrimFunc *desc, const MlcPrimFunc *impl, MlcBuffer ***allocs, int *n_allocs) {
  MlcCtx *ctx = m->s->ctx;
  Inst in = {.s = m->s};
  const MlcBlock *iroot = root_block(impl);
  const MlcBlock *iregions = iroot ? root_with_regions(m->s, iroot) : NULL;
  MlcStmt *result = NULL;
  for (int p = 0; p < desc->n_params; p++) {
    MlcBuffer *dp = desc->params[p].buf, *ip = impl->params[p].buf;
    const BufBind *db = mlc_map_get(&m->bufs, dp);
    if (!db) {
      mismatch(m, "the description never accesses its buffer '%s'", dp->name);
      goto done;
    }
    BufBind *bb = mlc_arena_dup(&ctx->arena, db, sizeof *bb);
    bb->offset = mlc_arena_dup(&ctx->arena, db->offset, (size_t)db->target->ndim * sizeof *bb->offset);
    const MlcBufferRegion *ir = iregions ? region_of(iregions, ip) : NULL, *dr = region_of(m->droot, dp);
    for (int d = bb->lead; ir && dr && d < bb->target->ndim; d++) {
      /* the implementation may index its params from another origin (a
       * vector access, T.Ramp(base, ..), starts at its base) */
      MlcExpr *imin = ir->ranges[d - bb->lead].min;
      if (imin->kind == MLC_EXPR_RAMP) imin = imin->ramp.base;
      if (imin->dtype.lanes != 1) {
        mismatch(m, "the implementation's '%s' is accessed at a vector of indices that is no T.Ramp", ip->name);
        goto done;
      }
      MlcExpr *shift = minus(ctx, dr->ranges[d - bb->lead].min, imin);
      bb->offset[d] = shift ? mlc_arith_simplify(&m->az, plus_offset(ctx, bb->offset[d], shift)) : NULL;
      if (!bb->offset[d]) goto done;
    }
    mlc_map_put(&in.bufs, ip, bb);
    if (!bind_strides(m, &in, ip, bb)) goto done;
  }
  *n_allocs = 0;
  *allocs = NULL;
  if (iroot && iroot->n_allocs) {
    *allocs = mlc_arena_array(&ctx->arena, (size_t)iroot->n_allocs, sizeof **allocs);
    for (int i = 0; i < iroot->n_allocs; i++) (*allocs)[(*n_allocs)++] = clone_alloc(&in, iroot->allocs[i]);
  }
  MlcMutator mu = {.ctx = ctx, .user = &in, .expr = inst_expr, .stmt = inst_stmt};
  result = mlc_mutate_stmt(&mu, iroot ? iroot->body : impl->body);
  mlc_map_free(&mu.buffer_map);
done:
  mlc_map_free(&in.vars);
  mlc_map_free(&in.bufs);
  return result;
}

static MlcStmt *tensorize_block(MlcSchedule *s, const char *intrin, const MlcStmt *outer) {
  const MlcPrimFunc *desc, *impl;
  if (!lookup_intrin(s, intrin, &desc, &impl)) return NULL;
  const MlcBlock *droot = root_block(desc);
  if (!droot) return sch_error(s, "tensor intrinsic '%s': the description must compute in blocks", intrin), NULL;
  Match m = {.s = s, .intrin = intrin, .target = outer->realize.block, .droot = root_with_regions(s, droot)};
  mlc_arith_init(&m.az, s->ctx);
  MlcBuffer **extra = NULL;
  int n_extra = 0;
  MlcStmt *body = m.droot && match_stmt(&m, droot->body, m.target->body) ? instantiate(&m, desc, impl, &extra, &n_extra) : NULL;
  mlc_arith_free(&m.az);
  mlc_map_free(&m.vars);
  mlc_map_free(&m.bufs);
  if (!body) return NULL;
  const MlcBlock *b = m.target;
  int na = b->n_allocs + n_extra;
  MlcBuffer **allocs = mlc_arena_array(&s->ctx->arena, (size_t)(na > 0 ? na : 1), sizeof *allocs);
  for (int i = 0; i < b->n_allocs; i++) allocs[i] = b->allocs[i];
  for (int i = 0; i < n_extra; i++) allocs[b->n_allocs + i] = extra[i];
  MlcBlock *nb = mlc_block_new(s->ctx, b->name, b->iters, b->n_iters, b->reads, b->n_reads, b->writes, b->n_writes,
                               b->init, allocs, na, b->annotations, body);
  return nb ? mlc_s_realize(s->ctx, outer->realize.values, outer->realize.n, outer->realize.pred, nb) : NULL;
}

bool sch_prim_tensorize(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  const char *intrin, *bname;
  const MlcExpr *var;
  SchPath path = {0};
  const MlcStmt *old, *outer;
  *n_outs = 0;
  if (!sch_arg_str(s, &args[TZ_INTRIN], "tensor_intrin", &intrin)) return false;
  if (args[TZ_TARGET].kind == MLC_SV_BLOCK) {
    if (!sch_arg_block(s, &args[TZ_TARGET], "block_or_loop", &bname) || !sch_find_block(s, bname, &path)) return false;
    old = outer = path.nodes[path.n - 1];
  } else {
    if (!sch_arg_loop(s, &args[TZ_TARGET], "block_or_loop", &var) || !sch_find_loop(s, var, &path)) return false;
    old = path.nodes[path.n - 1];
    outer = blockize_loop(s, old, args[TZ_PRESERVE].kind != MLC_SV_BOOL || args[TZ_PRESERVE].i);
  }
  sch_path_free(&path);
  MlcStmt *repl = outer ? tensorize_block(s, intrin, outer) : NULL;
  return repl && sch_commit(s, sch_replace(s, old, repl));
}
