/* cli_records.c - `--records DB.jsonl` for build and compile: the tuning
 * database applied to the prim funcs of a build.
 *
 * For a module of prim funcs (`build -o LIB.so`) the records apply to them
 * directly.  For a model, the prim funcs that matter are the ones the graph
 * pipeline makes (legalized and fused kernels), so the pipeline runs up to
 * dead code, the records are applied, and its last stages follow: default
 * schedules for every kernel without a record (a tuned one carries the
 * "tuned" attribute, which they leave alone), explicit allocation, memory
 * planning -- the order mlc_graph_pipeline has (mlc_tune_pipeline).
 * Records apply only on their own target: a GPU build takes those of its
 * device, and says how many it ignores. */
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

static void report_records(const MlcTuneDB *db, const MlcTuneTarget *tt, int applied, int failed) {
  fprintf(stderr, "records: %d kernel%s tuned", applied, applied == 1 ? "" : "s");
  if (failed) fprintf(stderr, ", %d record%s no longer apply (default schedules instead)", failed, failed == 1 ? "" : "s");
  int other = mlc_tune_db_count_other(db, tt);
  if (other)
    fprintf(stderr, "; %d record%s for another target ignored (this build is for %s on %s)", other,
            other == 1 ? "" : "s", tt->features, tt->cpu);
  fputc('\n', stderr);
}

/* the target records are chosen for: the CPU's, or the GPU device's */
static void build_target(MlcTuneTarget *tt, MlcGpuApi gpu) {
  if (gpu != MLC_GPU_NONE) mlc_tune_target_gpu(tt, gpu);
  else mlc_tune_target_host(tt, 0);
}

MlcModule *cli_apply_records(MlcCtx *ctx, const MlcModule *m, const MlcTuneDB *db, MlcGpuApi gpu) {
  MlcTuneTarget tt;
  build_target(&tt, gpu);
  int applied = 0, failed = 0;
  MlcModule *out = mlc_tune_apply(ctx, m, db, &tt, &applied, &failed);
  if (out) report_records(db, &tt, applied, failed);
  return out;
}

MlcModule *cli_pipeline_with_records(MlcCtx *ctx, const MlcModule *in, const MlcSchTarget *target,
                                     const MlcTuneDB *db, MlcGpuApi gpu, MlcPassDump dump, void *user,
                                     MlcMemPlanStats **stats, int *n_stats) {
  MlcTuneTarget tt;
  build_target(&tt, gpu);
  int applied = -1, failed = 0;
  MlcModule *m = mlc_tune_pipeline(ctx, in, target, db, &tt, dump, user, stats, n_stats, &applied, &failed);
  if (applied >= 0) report_records(db, &tt, applied, failed);
  return m;
}
