/* features.c - what the cost model sees of a candidate: numbers per buffer
 * store, from the scheduled function (before lowering, where loops still
 * say what they are).
 *
 * For each store (the first STORES in program order; a tiled reduction has
 * its init, its update and maybe an epilogue) a row of ROW numbers:
 * iterations in all and of the innermost loop, the vector lanes, the
 * iterations unrolled, the parallel extent, the loop depth, loads by how
 * they walk the innermost loop (contiguous, invariant, strided),
 * arithmetic per store, iterations over which the stored element stays the
 * same (reuse in registers), the iterations below the outermost reduce
 * loop (the tile a cache must hold), and whether it is an init.  Counts are
 * log2(1 + x), so the model sees ratios. */
#include "tune/tune_internal.h"

#include <math.h>
#include <string.h>

enum { STORES = 3, ROW = 16, MAX_DEPTH = 32 };
_Static_assert(STORES * ROW == MLC_TUNE_N_FEATURES, "feature layout");

typedef struct Loop { const MlcStmt *s; int64_t ext; } Loop;

typedef struct Binding { const MlcExpr *iter; const MlcExpr *value; } Binding;

typedef struct Feat {
  float *out;
  int stores;
  Loop loops[MAX_DEPTH];
  int depth;
  Binding binds[MAX_DEPTH * 4];
  int n_binds;
  bool in_init;
} Feat;

static float lg(double x) { return (float)log2(1 + (x > 0 ? x : 0)); }

/* e depends on loop var l, through the block bindings in scope */
static bool depends(const Feat *f, const MlcExpr *e, const MlcExpr *l) {
  if (tune_uses_var(e, l)) return true;
  for (int i = 0; i < f->n_binds; i++)
    if (tune_uses_var(f->binds[i].value, l) && tune_uses_var(e, f->binds[i].iter)) return true;
  return false;
}

typedef struct LoadScan { const Feat *f; const MlcExpr *inner; int contig, invariant, strided, loads, ops; } LoadScan;

static bool scan(MlcVisitor *v, const MlcExpr *e) {
  LoadScan *sc = v->user;
  if (e->kind == MLC_EXPR_BINARY || e->kind == MLC_EXPR_CALL) sc->ops++;
  if (e->kind != MLC_EXPR_LOAD) return true;
  sc->loads++;
  if (!sc->inner || e->load.n == 0) return sc->invariant++, true;
  bool any = false, last = depends(sc->f, e->load.idx[e->load.n - 1], sc->inner);
  for (int i = 0; i < e->load.n; i++) any |= depends(sc->f, e->load.idx[i], sc->inner);
  if (!any) sc->invariant++;
  else if (last) sc->contig++;
  else sc->strided++;
  return true;
}

static void store_row(Feat *f, const MlcStmt *st) {
  if (f->stores >= STORES) return;
  float *r = f->out + f->stores++ * ROW;
  double total = 1, unrolled = 1, parallel = 1, reuse = 1, below_reduce = 1;
  int lanes = 1, first_reduce = -1, depth = f->depth < MAX_DEPTH ? f->depth : MAX_DEPTH; /* loops beyond: not seen */
  for (int i = 0; i < depth; i++) {
    const Loop *l = &f->loops[i];
    total *= (double)l->ext;
    if (l->s->loop.kind == MLC_FOR_UNROLLED) unrolled *= (double)l->ext;
    if (l->s->loop.kind == MLC_FOR_PARALLEL) parallel *= (double)l->ext;
    if (l->s->loop.kind == MLC_FOR_VECTORIZED) lanes = (int)l->ext;
    bool moves = false;
    for (int k = 0; k < st->store.n; k++) moves |= depends(f, st->store.idx[k], l->s->loop.var);
    if (!moves) {
      reuse *= (double)l->ext;
      if (first_reduce < 0) first_reduce = i;
    }
  }
  for (int i = first_reduce < 0 ? depth : first_reduce; i < depth; i++) below_reduce *= (double)f->loops[i].ext;
  const MlcExpr *inner = depth ? f->loops[depth - 1].s->loop.var : NULL;
  LoadScan sc = {f, inner, 0, 0, 0, 0, 0};
  MlcVisitor vis = {.user = &sc, .expr = scan};
  mlc_visit_expr(&vis, st->store.value);
  float row[ROW] = {lg(total), lg(depth ? (double)f->loops[depth - 1].ext : 1), lg(lanes), lg(unrolled),
                    lg(parallel), (float)f->depth, lg(sc.loads), lg(sc.contig), lg(sc.invariant), lg(sc.strided),
                    lg(sc.ops), lg(reuse), lg(below_reduce), f->in_init ? 1.0f : 0.0f,
                    lg(sc.ops * total / (1 + sc.loads + 1.0)), lg(total / (lanes > 0 ? lanes : 1))};
  memcpy(r, row, sizeof row);
}

static void walk(Feat *f, const MlcStmt *s) {
  if (!s) return;
  switch (s->kind) {
  case MLC_STMT_FOR: {
    int64_t e = 1;
    mlc_e_is_const_int(s->loop.extent, &e);
    if (f->depth < MAX_DEPTH) f->loops[f->depth] = (Loop){s, e};
    f->depth++;
    walk(f, s->loop.body);
    f->depth--;
    return;
  }
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++) walk(f, s->seq.items[i]);
    return;
  case MLC_STMT_IF: walk(f, s->if_.then_s), walk(f, s->if_.else_s); return;
  case MLC_STMT_LET: walk(f, s->let.body); return;
  case MLC_STMT_ALLOCATE: walk(f, s->alloc.body); return;
  case MLC_STMT_BLOCK_REALIZE: {
    const MlcBlock *b = s->realize.block;
    int saved = f->n_binds;
    for (int k = 0; k < b->n_iters && f->n_binds < MAX_DEPTH * 4; k++)
      f->binds[f->n_binds++] = (Binding){b->iters[k].var, s->realize.values[k]};
    if (b->init) {
      f->in_init = true;
      walk(f, b->init);
      f->in_init = false;
    }
    walk(f, b->body);
    f->n_binds = saved;
    return;
  }
  case MLC_STMT_STORE: store_row(f, s); return;
  case MLC_STMT_EVALUATE: return;
  }
}

void mlc_tune_features(const MlcPrimFunc *fn, float out[MLC_TUNE_N_FEATURES]) {
  memset(out, 0, sizeof(float) * MLC_TUNE_N_FEATURES);
  Feat f = {.out = out};
  walk(&f, fn->body);
}
