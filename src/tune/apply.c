/* apply.c - using the database: each prim func of a module that has a
 * record on this target gets the best record's schedule, by replaying the
 * record's script onto it.  A record measured elsewhere (another CPU,
 * other features, another thread count) is never applied; a function
 * without a record is left as it is, for the default schedules to take. */
#include "tune/tune_internal.h"

#include <stdio.h>
#include <string.h>

/* f carrying tuned = "<seconds> s" beside its attributes */
static MlcPrimFunc *mark_tuned(MlcCtx *ctx, const MlcPrimFunc *f, double seconds) {
  MlcPrimFunc *g = mlc_arena_dup(&ctx->arena, f, sizeof *f);
  MlcAttr *a = mlc_arena_array(&ctx->arena, (size_t)f->attrs.n + 1, sizeof *a);
  if (f->attrs.n) memcpy(a, f->attrs.items, sizeof *a * (size_t)f->attrs.n);
  a[f->attrs.n] = (MlcAttr){mlc_intern(ctx, "tuned"), {.kind = MLC_ATTR_STR, .s = mlc_internf(ctx, "%.3g s", seconds)}};
  g->attrs = (MlcAttrs){a, f->attrs.n + 1};
  return g;
}

MlcModule *mlc_tune_apply(MlcCtx *ctx, const MlcModule *m, const MlcTuneDB *db, const MlcTuneTarget *target,
                          int *n_applied, int *n_failed) {
  int applied = 0, failed = 0;
  const MlcModule *cur = m;
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != MLC_FUNC_PRIM || mlc_attrs_get(m->funcs[i].prim->attrs, mlc_intern(ctx, "tuned")))
      continue;
    const MlcTuneRecord *r = mlc_tune_db_best(db, mlc_tune_workload_hash(ctx, m->funcs[i].prim), target);
    if (!r) continue;
    MlcSchedule *s = mlc_sch_new(ctx, cur, m->funcs[i].name, 0);
    if (!s) return NULL;
    if (mlc_sch_run_script(s, "record", r->trace, strlen(r->trace))) {
      const MlcModule *sm = mlc_sch_module(s);
      MlcFunc *funcs = mlc_arena_dup(&ctx->arena, sm->funcs, sizeof *funcs * (size_t)sm->n_funcs);
      funcs[i].prim = mark_tuned(ctx, funcs[i].prim, r->seconds);
      cur = mlc_module_new(ctx, sm->name, funcs, sm->n_funcs, sm->attrs);
      applied++;
    } else {
      mlc_clear_error(ctx); /* the function keeps its loop nest; the default schedules take it */
      failed++;
    }
    mlc_sch_free(s);
  }
  if (n_applied) *n_applied = applied;
  if (n_failed) *n_failed = failed;
  return (MlcModule *)cur;
}

#define STAGE(id, expr)                                  \
  do {                                                   \
    if (!(out = (expr))) goto done;                      \
    if (dump) dump(user, MLC_PASS_##id, out);            \
  } while (0)

MlcModule *mlc_tune_pipeline(MlcCtx *ctx, const MlcModule *m, const MlcSchTarget *target, const MlcTuneDB *db,
                             const MlcTuneTarget *tt, MlcPassDump dump, void *user, MlcMemPlanStats **stats,
                             int *n_stats, int *n_applied, int *n_failed) {
  MlcMap given = {0}; /* the prim funcs the module came with keep their author's schedule */
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == MLC_FUNC_PRIM) mlc_map_put(&given, m->funcs[i].name, (void *)m->funcs[i].name);
  /* the graph pipeline up to dead code, with the records deciding which
   * matmuls the library takes (library.c) and the conv weights' layouts
   * (conv_layout.c) */
  bool relaid = false;
  MlcModule *out = tune_graph_kernels(ctx, m, db, tt, dump, user);
  if (out && db) out = tune_choose_layouts(ctx, out, db, tt, &relaid);
  /* weights marked free to change layout as the tasks had them, so that a
   * record whose schedule lays one out (the default rules') replays */
  if (out && db) out = mlc_pass_mark_layout_free(ctx, out);
  if (out) out = mlc_tune_apply(ctx, out, db, tt, n_applied, n_failed);
  if (!out) goto done;
  /* the default schedules lay out the weights the records and layout
   * choices changed with the others; without them, that is done here */
  STAGE(DEFAULT_SCHEDULE, target ? mlc_pass_default_schedule(ctx, out, target, &given)
                                 : mlc_pass_apply_layout_rewrites(ctx, out));
  STAGE(EXPLICIT_ALLOC, mlc_pass_explicit_alloc(ctx, out));
  STAGE(PLAN_MEMORY, mlc_pass_plan_memory(ctx, out, stats, n_stats));
done:
  mlc_map_free(&given);
  return out;
}
