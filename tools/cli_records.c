/* cli_records.c - `--records DB.jsonl` for build and compile: the tuning
 * database applied to the prim funcs of a build.
 *
 * For a module of prim funcs (`build -o LIB.so`) the records apply to them
 * directly.  For a model, the prim funcs that matter are the ones the graph
 * pipeline makes (legalized and fused kernels), so the pipeline runs up to
 * dead code, the records are applied, and its last stages follow: default
 * schedules for every kernel without a record (a tuned one carries the
 * "tuned" attribute, which they leave alone), explicit allocation, memory
 * planning -- the order mlc_graph_pipeline has. */
#include <stdio.h>

#include "cli.h"
#include "mlcc/transform.h"
#include "mlcc/tune.h"

MlcTuneDB *cli_load_records(MlcCtx *ctx, const char *const *paths, int n) {
  MlcTuneDB *db = mlc_tune_db_new();
  for (int i = 0; i < n; i++)
    if (!mlc_tune_db_load(ctx, db, paths[i], false)) {
      mlc_tune_db_free(db);
      return NULL;
    }
  return db;
}

MlcModule *cli_apply_records(MlcCtx *ctx, const MlcModule *m, const MlcTuneDB *db) {
  MlcTuneTarget tt;
  mlc_tune_target_host(&tt, 0);
  int applied = 0, failed = 0;
  MlcModule *out = mlc_tune_apply(ctx, m, db, &tt, &applied, &failed);
  if (out) fprintf(stderr, "records: %d kernel%s tuned", applied, applied == 1 ? "" : "s");
  if (out && failed) fprintf(stderr, ", %d record%s no longer apply (default schedules instead)", failed, failed == 1 ? "" : "s");
  if (out) fputc('\n', stderr);
  return out;
}

#define STAGE(id, expr)                                  \
  do {                                                   \
    if (!(m = (expr))) goto done;                        \
    if (dump) dump(user, MLC_PASS_##id, m);              \
  } while (0)

MlcModule *cli_pipeline_with_records(MlcCtx *ctx, const MlcModule *in, const MlcSchTarget *target,
                                     const MlcTuneDB *db, MlcPassDump dump, void *user, MlcMemPlanStats **stats,
                                     int *n_stats) {
  MlcMap given = {0}; /* the prim funcs the module came with keep their author's schedule */
  for (int i = 0; i < in->n_funcs; i++)
    if (in->funcs[i].kind == MLC_FUNC_PRIM) mlc_map_put(&given, in->funcs[i].name, (void *)in->funcs[i].name);
  MlcModule *m = mlc_graph_pipeline(ctx, in, NULL, MLC_PASS_DEAD_CODE, dump, user, NULL, NULL);
  if (m) m = cli_apply_records(ctx, m, db);
  if (!m) goto done;
  STAGE(DEFAULT_SCHEDULE, mlc_pass_default_schedule(ctx, m, target, &given));
  STAGE(EXPLICIT_ALLOC, mlc_pass_explicit_alloc(ctx, m));
  STAGE(PLAN_MEMORY, mlc_pass_plan_memory(ctx, m, stats, n_stats));
done:
  mlc_map_free(&given);
  return m;
}
