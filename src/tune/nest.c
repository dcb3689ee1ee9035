/* nest.c - the tuner's view of a function's blocks and loops, and
 * primitives applied by handle. */
#include "tune/tune_internal.h"

#include <string.h>

typedef struct Walk {
  TuneBlock *out;
  int cap, n;
  const MlcStmt *loops[TUNE_MAX_NEST];
  int depth;
} Walk;

static void walk(Walk *w, const MlcStmt *s) {
  if (!s) return;
  switch (s->kind) {
  case MLC_STMT_FOR:
    if (w->depth < TUNE_MAX_NEST) w->loops[w->depth] = s;
    w->depth++;
    walk(w, s->loop.body);
    w->depth--;
    return;
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++) walk(w, s->seq.items[i]);
    return;
  case MLC_STMT_IF: walk(w, s->if_.then_s), walk(w, s->if_.else_s); return;
  case MLC_STMT_LET: walk(w, s->let.body); return;
  case MLC_STMT_ALLOCATE: walk(w, s->alloc.body); return;
  case MLC_STMT_BLOCK_REALIZE: {
    int before = w->n, depth = w->depth;
    const MlcStmt *saved[TUNE_MAX_NEST];
    memcpy(saved, w->loops, sizeof saved);
    w->depth = 0;
    walk(w, s->realize.block->body);
    w->depth = depth;
    memcpy(w->loops, saved, sizeof saved);
    if (w->n == before && w->n < w->cap && depth <= TUNE_MAX_NEST) {
      TuneBlock *t = &w->out[w->n++];
      t->realize = s;
      t->b = s->realize.block;
      t->n_loops = depth;
      memcpy(t->loops, w->loops, sizeof t->loops);
    }
    return;
  }
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return;
  }
}

int tune_leaf_blocks(const MlcPrimFunc *f, TuneBlock *out, int cap) {
  Walk w = {.out = out, .cap = cap};
  walk(&w, f->body);
  return w.n;
}

bool tune_find_block(const MlcPrimFunc *f, const char *name, TuneBlock *out) {
  TuneBlock bs[TUNE_MAX_BLOCKS];
  int n = tune_leaf_blocks(f, bs, TUNE_MAX_BLOCKS);
  for (int i = 0; i < n; i++)
    if (!strcmp(bs[i].b->name, name)) return *out = bs[i], true;
  return false;
}

typedef struct Uses { const MlcExpr *var; bool found; } Uses;

static bool uses_visit(MlcVisitor *v, const MlcExpr *e) {
  Uses *u = v->user;
  if (e == u->var) u->found = true;
  return !u->found;
}

bool tune_uses_var(const MlcExpr *e, const MlcExpr *var) {
  Uses u = {var, false};
  MlcVisitor vis = {.user = &u, .expr = uses_visit};
  mlc_visit_expr(&vis, e);
  return u.found;
}

bool tune_is_complete(const MlcBlock *b) {
  if (b->init) return false;
  for (int k = 0; k < b->n_iters; k++)
    if (b->iters[k].kind != MLC_ITER_SPATIAL) return false;
  return true;
}

MlcSchVal tune_v_block(int id) { return (MlcSchVal){.kind = MLC_SV_BLOCK, .rv = id}; }
MlcSchVal tune_v_loop(int id) { return (MlcSchVal){.kind = MLC_SV_LOOP, .rv = id}; }
MlcSchVal tune_v_int(int64_t i) { return (MlcSchVal){.kind = MLC_SV_INT, .i = i}; }

bool tune_apply(MlcSchedule *s, MlcSchPrim p, MlcSchVal *args, MlcSchVal *outs, int *n) {
  MlcSchVal scratch[MLC_SCH_MAX_OUTS];
  int k;
  return mlc_sch_apply(s, p, args, outs ? outs : scratch, n ? n : &k);
}

bool tune_loops(MlcSchedule *s, const char *block, int *b_id, int *loops, int *n) {
  MlcBlockRV b;
  MlcLoopRV l[TUNE_MAX_NEST];
  if (!mlc_sch_get_block(s, block, &b) || !mlc_sch_get_loops(s, b, l, TUNE_MAX_NEST, n)) return false;
  *b_id = b.id;
  for (int i = 0; i < *n; i++) loops[i] = l[i].id;
  return true;
}
