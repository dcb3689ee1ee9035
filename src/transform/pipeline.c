/* pipeline.c - the graph passes in order, as one flat function.
 *
 * Each stage is one line, so the order is read at a glance and any stage's
 * module can be dumped (the hook sees it before the next stage runs).
 * Legalization infers struct info itself, so the separate inference stage
 * only makes the inferred module visible to the dump. */
#include "transform/pass.h"

const char *const mlc_graph_pass_names[MLC_PASS_COUNT] = {
#define X(id, s) s,
    MLC_GRAPH_PASSES(X)
#undef X
};

#define STAGE(id, expr)                                  \
  do {                                                   \
    if (!(m = (expr))) goto fail;                        \
    if (dump) dump(user, MLC_PASS_##id, m);              \
    if (last == MLC_PASS_##id) goto done;                \
  } while (0)

MlcModule *mlc_graph_pipeline(MlcCtx *ctx, const MlcModule *m, const MlcSchTarget *target, MlcGraphPass last,
                              MlcPassDump dump, void *user, MlcMemPlanStats **stats, int *n_stats) {
  if (stats) *stats = NULL;
  if (n_stats) *n_stats = 0;
  MlcMap given = {0}; /* the prim funcs m came with: their schedules are their author's */
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == MLC_FUNC_PRIM) mlc_map_put(&given, m->funcs[i].name, (void *)m->funcs[i].name);
  STAGE(INFER_SINFO, mlc_pass_infer_sinfo(ctx, m));
  STAGE(INLINE_CALLS, mlc_pass_inline_calls(ctx, m));
  STAGE(FOLD_BATCH_NORM, mlc_pass_fold_batch_norm(ctx, m));
  STAGE(FOLD_CONSTANTS, mlc_pass_fold_constants(ctx, m));
  STAGE(DISPATCH, mlc_pass_dispatch_library(ctx, m));
  STAGE(LEGALIZE, mlc_pass_legalize_ops(ctx, m));
  STAGE(CANONICALIZE, mlc_pass_canonicalize_bindings(ctx, m));
  STAGE(FUSE_OPS, mlc_pass_fuse_ops(ctx, m));
  STAGE(FUSE_TIR, mlc_pass_fuse_tir(ctx, m));
  STAGE(DEAD_CODE, mlc_pass_dead_code(ctx, m));
  STAGE(DEFAULT_SCHEDULE, mlc_pass_default_schedule(ctx, m, target, &given));
  STAGE(EXPLICIT_ALLOC, mlc_pass_explicit_alloc(ctx, m));
  STAGE(PLAN_MEMORY, mlc_pass_plan_memory(ctx, m, stats, n_stats));
done:
  mlc_map_free(&given);
  return (MlcModule *)m;
fail:
  mlc_map_free(&given);
  return NULL;
}
