/* dead_code.c - mlc_pass_dead_code: unused pure bindings and unreferenced
 * prim funcs go.
 *
 * Graph vars are bound once and used only after their binding, so one walk
 * from the last binding to the first, keeping a binding when its var is
 * live or its value is impure and then marking what it uses, finds every
 * binding that repeated removal would find.  Every graph function is an
 * entry point (the text has no notion of a private one that survives a
 * round trip), so only prim funcs are dropped, and only when some graph
 * function exists to call them. */
#include "transform/pass.h"

typedef struct Dce {
  const MlcModule *m;
  MlcMap live; /* vars used by something kept */
  MlcMap dead; /* binding vars whose binding goes */
} Dce;

static void mark(void *user, const MlcGExpr *var) { mlc_map_put(user, var, (void *)var); }

static void analyze_seq(Dce *d, const MlcGExpr *seq) {
  tf_each_use(seq->seq.result, mark, &d->live);
  for (int i = seq->seq.n - 1; i >= 0; i--) {
    const MlcBindingBlock *blk = seq->seq.blocks[i];
    for (int j = blk->n - 1; j >= 0; j--) {
      const MlcBinding *b = &blk->bindings[j];
      if (!mlc_map_has(&d->live, b->var) && tf_is_pure(d->m, b->value)) {
        mlc_map_put(&d->dead, b->var, (void *)b->var);
        continue;
      }
      if (b->value->kind == MLC_G_IF) {
        tf_each_use(b->value->if_.cond, mark, &d->live);
        analyze_seq(d, b->value->if_.then_e);
        analyze_seq(d, b->value->if_.else_e);
      } else {
        tf_each_use(b->value, mark, &d->live);
      }
    }
  }
}

static bool skip_dead(TfRw *rw, const MlcBinding *b, MlcGExpr *value) {
  Dce *d = rw->user;
  if (!mlc_map_has(&d->dead, b->var)) tf_emit(rw, b->var, value, b->loc);
  return true;
}

static MlcGFunc *dce_func(MlcCtx *ctx, const MlcModule *m, const MlcGFunc *f) {
  Dce d = {.m = m};
  analyze_seq(&d, f->body);
  MlcGFunc *nf = (MlcGFunc *)f;
  if (d.dead.len) {
    TfRw rw = {.ctx = ctx, .user = &d, .on_binding = skip_dead};
    nf = tf_rewrite_func(&rw, f, NULL);
    tf_rw_free(&rw);
  }
  mlc_map_free(&d.live);
  mlc_map_free(&d.dead);
  return nf;
}

static void note_global(void *user, const char *name) { mlc_map_put(user, name, (void *)name); }

MlcModule *mlc_pass_dead_code(MlcCtx *ctx, const MlcModule *m) {
  MlcFunc *funcs = mlc_arena_array(&ctx->arena, (size_t)(m->n_funcs ? m->n_funcs : 1), sizeof *funcs);
  MlcMap called = {0};
  bool any_graph = false, ok = true;
  for (int i = 0; ok && i < m->n_funcs; i++) {
    funcs[i] = m->funcs[i];
    if (funcs[i].kind != MLC_FUNC_GRAPH) continue;
    any_graph = true;
    ok = (funcs[i].graph = dce_func(ctx, m, m->funcs[i].graph)) != NULL;
    if (ok) tf_each_global(funcs[i].graph->body, note_global, &called);
  }
  int n = 0;
  for (int i = 0; ok && i < m->n_funcs; i++)
    if (!any_graph || funcs[i].kind == MLC_FUNC_GRAPH || mlc_map_has(&called, funcs[i].name))
      funcs[n++] = funcs[i];
  mlc_map_free(&called);
  return ok ? mlc_module_new(ctx, m->name, funcs, n, m->attrs) : NULL;
}
