/* canonicalize.c - mlc_pass_canonicalize_bindings: aliases disappear.
 *
 * Three rewrites, each leaving the program's values as they were:
 *   y = x             uses of y become x (unless y is a block output and x a
 *                     dataflow var, which is invisible after the block);
 *   t2 = (t[0], t[1]) when that is all of t, t2 is an alias of t;
 *   lv = value; gv = lv   (lv a dataflow var used only there, gv the
 *                     block's output) becomes gv = value.
 * One rewrite can expose another (an alias of an alias that is then
 * output), so the pass repeats until nothing changes. */
#include "transform/pass.h"

#define MAX_ROUNDS 16

typedef struct Canon {
  MlcMap counts;   /* var -> uses in the function */
  MlcMap rename;   /* dataflow var -> the output var to bind in its place */
  MlcMap skip;     /* output vars whose alias binding goes */
  MlcMap keep;     /* results of if branches: the text binds them by name */
  int changes;
} Canon;

static bool is_var(const MlcGExpr *e) { return e->kind == MLC_G_VAR || e->kind == MLC_G_DFVAR; }

/* lv = value ... gv = lv in one dataflow block, lv used once */
static void find_outputs(Canon *c, const MlcBindingBlock *blk) {
  MlcMap here = {0};
  for (int i = 0; i < blk->n; i++) {
    const MlcBinding *b = &blk->bindings[i];
    const MlcGExpr *v = b->value;
    if (b->var->kind == MLC_G_VAR && v->kind == MLC_G_DFVAR && mlc_map_get(&here, v) &&
        tf_use_count(&c->counts, v) == 1 && !mlc_map_has(&c->rename, v) &&
        tf_sinfo_detail(b->var->sinfo) <= tf_sinfo_detail(v->sinfo)) {
      mlc_map_put(&c->rename, v, b->var);
      mlc_map_put(&c->skip, b->var, b->var);
    }
    if (b->var->kind == MLC_G_DFVAR && !is_var(b->value)) mlc_map_put(&here, b->var, (void *)b);
  }
  mlc_map_free(&here);
}

static void find_outputs_seq(Canon *c, const MlcGExpr *seq) {
  for (int i = 0; i < seq->seq.n; i++) {
    const MlcBindingBlock *blk = seq->seq.blocks[i];
    if (blk->dataflow) find_outputs(c, blk);
    for (int j = 0; j < blk->n; j++)
      if (blk->bindings[j].value->kind == MLC_G_IF) {
        const MlcGExpr *e = blk->bindings[j].value;
        mlc_map_put(&c->keep, e->if_.then_e->seq.result, (void *)e);
        mlc_map_put(&c->keep, e->if_.else_e->seq.result, (void *)e);
        find_outputs_seq(c, blk->bindings[j].value->if_.then_e);
        find_outputs_seq(c, blk->bindings[j].value->if_.else_e);
      }
  }
}

/* (t[0], ..., t[n-1]) of a tuple t of n fields: t */
static MlcGExpr *collapse_tuple(MlcGExpr *v) {
  if (v->kind != MLC_G_TUPLE || v->tuple.n == 0) return v;
  MlcGExpr *t = NULL;
  for (int i = 0; i < v->tuple.n; i++) {
    const MlcGExpr *f = v->tuple.fields[i];
    if (f->kind != MLC_G_GET_ITEM || f->get_item.index != i || (t && f->get_item.tuple != t)) return v;
    t = f->get_item.tuple;
  }
  bool whole = t->sinfo->kind == MLC_SINFO_TUPLE && t->sinfo->tuple.n == v->tuple.n;
  return whole ? t : v;
}

static bool canon_binding(TfRw *rw, const MlcBinding *b, MlcGExpr *value) {
  Canon *c = rw->user;
  MlcGExpr *out = mlc_map_get(&c->rename, b->var);
  if (out) {
    c->changes++;
    tf_emit(rw, out, value, b->loc);
    return true;
  }
  if (mlc_map_has(&c->skip, b->var)) return true;
  MlcGExpr *v = collapse_tuple(value);
  bool alias = is_var(v) && !mlc_map_has(&c->keep, b->var) && !(b->var->kind == MLC_G_VAR && v->kind == MLC_G_DFVAR) &&
               tf_sinfo_detail(b->var->sinfo) <= tf_sinfo_detail(v->sinfo);
  if (alias) {
    c->changes++;
    tf_map(rw, b->var, v);
    return true;
  }
  if (v != value) c->changes++;
  tf_emit(rw, b->var, v, b->loc);
  return true;
}

static MlcGFunc *canon_round(MlcCtx *ctx, const MlcGFunc *f, int *changes) {
  Canon c = {0};
  tf_count_uses(f->body, &c.counts);
  find_outputs_seq(&c, f->body);
  TfRw rw = {.ctx = ctx, .user = &c, .on_binding = canon_binding};
  MlcGFunc *nf = tf_rewrite_func(&rw, f, NULL);
  tf_rw_free(&rw);
  mlc_map_free(&c.counts);
  mlc_map_free(&c.rename);
  mlc_map_free(&c.skip);
  mlc_map_free(&c.keep);
  *changes = c.changes;
  return nf;
}

static MlcGFunc *canon_func(MlcCtx *ctx, const MlcGFunc *f) {
  MlcGFunc *cur = (MlcGFunc *)f;
  for (int round = 0; round < MAX_ROUNDS; round++) {
    int changes = 0;
    MlcGFunc *next = canon_round(ctx, cur, &changes);
    if (!next) return NULL;
    if (!changes) break;
    cur = next;
  }
  return cur;
}

MlcModule *mlc_pass_canonicalize_bindings(MlcCtx *ctx, const MlcModule *m) {
  MlcFunc *repl = mlc_arena_array(&ctx->arena, (size_t)(m->n_funcs ? m->n_funcs : 1), sizeof *repl);
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != MLC_FUNC_GRAPH) continue;
    MlcGFunc *nf = canon_func(ctx, m->funcs[i].graph);
    if (!nf) return NULL;
    repl[i] = (MlcFunc){MLC_FUNC_GRAPH, m->funcs[i].name, {.graph = nf}};
  }
  return tf_module_with(ctx, m, repl, NULL, 0);
}
