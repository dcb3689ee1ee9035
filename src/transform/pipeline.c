/* pipeline.c - the graph passes in order, as one flat function.
 *
 * The order is the table MLC_GRAPH_PASSES in include/mlcc/transform.h, read
 * at a glance; each stage's module can be dumped (the hook sees it before
 * the next stage runs), and any one pass can be run alone by its id.
 * Legalization infers struct info itself, so the separate inference stage
 * only makes the inferred module visible to the dump. */
#include "transform/pass.h"

const char *const mlc_graph_pass_names[MLC_PASS_COUNT] = {
#define X(id, s) s,
    MLC_GRAPH_PASSES(X)
#undef X
};

/* One pass by its id.  given: the prim funcs the module came with (their
 * schedules are their author's; NULL: none); stats: plan_memory's. */
MlcModule *mlc_graph_pass_run(MlcCtx *ctx, const MlcModule *m, MlcGraphPass pass, const MlcSchTarget *target,
                              const MlcMap *given, MlcMemPlanStats **stats, int *n_stats) {
  switch (pass) {
  case MLC_PASS_INFER_SINFO: return mlc_pass_infer_sinfo(ctx, m);
  case MLC_PASS_INLINE_CALLS: return mlc_pass_inline_calls(ctx, m);
  case MLC_PASS_FOLD_BATCH_NORM: return mlc_pass_fold_batch_norm(ctx, m);
  case MLC_PASS_FOLD_CONSTANTS: return mlc_pass_fold_constants(ctx, m);
  case MLC_PASS_DISPATCH: return mlc_pass_dispatch_library(ctx, m);
  case MLC_PASS_LEGALIZE: return mlc_pass_legalize_ops(ctx, m);
  case MLC_PASS_CANONICALIZE: return mlc_pass_canonicalize_bindings(ctx, m);
  case MLC_PASS_FUSE_OPS: return mlc_pass_fuse_ops(ctx, m);
  case MLC_PASS_FUSE_TIR: return mlc_pass_fuse_tir(ctx, m);
  case MLC_PASS_DEAD_CODE: return mlc_pass_dead_code(ctx, m);
  case MLC_PASS_DEFAULT_SCHEDULE: return mlc_pass_default_schedule(ctx, m, target, given);
  case MLC_PASS_EXPLICIT_ALLOC: return mlc_pass_explicit_alloc(ctx, m);
  case MLC_PASS_PLAN_MEMORY: return mlc_pass_plan_memory(ctx, m, stats, n_stats);
  case MLC_PASS_COUNT: break;
  }
  return (MlcModule *)m;
}

/* The passes in the order of MLC_GRAPH_PASSES (include/mlcc/transform.h). */
MlcModule *mlc_graph_pipeline(MlcCtx *ctx, const MlcModule *m, const MlcSchTarget *target, MlcGraphPass last,
                              MlcPassDump dump, void *user, MlcMemPlanStats **stats, int *n_stats) {
  if (stats) *stats = NULL;
  if (n_stats) *n_stats = 0;
  MlcMap given = {0}; /* the prim funcs m came with: their schedules are their author's */
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == MLC_FUNC_PRIM) mlc_map_put(&given, m->funcs[i].name, (void *)m->funcs[i].name);
  for (int p = 0; m && p < MLC_PASS_COUNT; p++) {
    m = mlc_graph_pass_run(ctx, m, (MlcGraphPass)p, target, &given, stats, n_stats);
    if (m && dump) dump(user, (MlcGraphPass)p, m);
    if (p == (int)last) break;
  }
  mlc_map_free(&given);
  return (MlcModule *)m;
}
