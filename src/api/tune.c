/* tune.c - the tuner, its records and builds for a target through the
 * stable C API: the same steps `mlcc tune`, `mlcc build --records` and
 * `--target` take (include/mlcc/tune.h, docs/tuning.md, docs/gpu.md). */
#include "api/api.h"
#include "mlcc/codegen.h"
#include "mlcc/lower.h"
#include "mlcc/transform.h"
#include "mlcc/tune.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a build target by name: the host code's target and the kernels' API */
static bool parse_target(MlccContext *c, const char *name, MlcBuildOptions *o) {
  *o = (MlcBuildOptions){.target = MLC_TARGET_NATIVE, .gpu = MLC_GPU_NONE};
  if (!name || !strcmp(name, "native")) return true;
  if (!strcmp(name, "generic")) o->target = MLC_TARGET_GENERIC;
  else if (!strcmp(name, "opencl")) o->gpu = MLC_GPU_OPENCL;
  else if (!strcmp(name, "cuda")) o->gpu = MLC_GPU_CUDA;
  else return api_failf(c, "unknown target '%s' (the targets: native, generic, opencl, cuda)", name);
  return true;
}

/* every file of paths merged into one database (NULL + error) */
static MlcTuneDB *load_records(MlccContext *c, const char *const *paths, int n) {
  if (n < 0 || (n > 0 && !paths)) return api_failf(c, "records: bad list of files"), NULL;
  MlcTuneDB *db = mlc_tune_db_new();
  for (int i = 0; i < n; i++)
    if (!paths[i] || !mlc_tune_db_load(c->ctx, db, paths[i], false)) {
      if (!paths[i]) api_failf(c, "records: file %d has no path", i);
      else api_fail(c);
      mlc_tune_db_free(db);
      return NULL;
    }
  return db;
}

/* beside so_path (LIB.so), the kernels' source for a GPU target (LIB.cl / LIB.cu) */
static bool write_device_source(MlcCtx *ctx, const MlcModule *m, const char *so_path, MlcGpuApi gpu) {
  if (gpu == MLC_GPU_NONE) return true;
  size_t n = strlen(so_path);
  size_t stem = n > 3 && !strcmp(so_path + n - 3, ".so") ? n - 3 : n;
  MlcStrBuf src = {0}, path = {0};
  mlc_sb_printf(&path, "%.*s%s", (int)stem, so_path, mlc_gpu_api_ext(gpu));
  bool ok = mlc_codegen_gpu_source(ctx, m, gpu, &src) &&
            mlc_write_file(ctx, mlc_sb_cstr(&path), src.data ? src.data : "", src.len);
  mlc_vec_free(&src);
  mlc_vec_free(&path);
  return ok;
}

int mlcc_build_kernels_for(MlccContext *c, const MlccModule *m, const char *so_path, const char *target) {
  api_begin(c);
  MlcBuildOptions opt;
  if (!parse_target(c, target, &opt)) return 1;
  if (!m) return api_failf(c, "no module"), 1;
  if (!so_path) return api_failf(c, "no output path"), 1;
  const MlcModule *mod = API_MOD(m);
  bool ok = mlc_build_shared(c->ctx, mod, so_path, &opt) && write_device_source(c->ctx, mod, so_path, opt.gpu);
  return ok ? 0 : (api_fail(c), 1);
}

int mlcc_build_model_for(MlccContext *c, const MlccModule *m, const char *dir, const char *entry,
                         const char *target) {
  api_begin(c);
  MlcBuildOptions opt;
  if (!parse_target(c, target, &opt)) return 1;
  if (!m) return api_failf(c, "no module"), 1;
  if (!dir) return api_failf(c, "no output folder"), 1;
  const MlcModule *mod = API_MOD(m);
  /* the GPU rule binds what nobody bound (as `mlcc build --target opencl` does) */
  if (opt.gpu != MLC_GPU_NONE && !(mod = mlc_sch_default_gpu_module(c->ctx, mod, 256, mlc_gpu_accepts, NULL))) return api_fail(c), 1;
  MlcModelOptions mo = {.entry = entry};
  return mlc_build_model(c->ctx, mod, dir, &opt, &mo) ? 0 : (api_fail(c), 1);
}

int mlcc_tune(MlccContext *c, const MlccModule *mm, const char *records_path, const MlccTuneOptions *opt) {
  api_begin(c);
  MlccTuneOptions d = {0};
  if (!opt) opt = &d;
  if (!mm) return api_failf(c, "tune: no module"), 1;
  if (!records_path || !*records_path) return api_failf(c, "tune: no records file"), 1;
  if (opt->trials < 0 || opt->batch < 0 || opt->threads < 0 || opt->timeout_s < 0 || opt->time_budget_s < 0)
    return api_failf(c, "tune: trials, batch, threads, timeout and time budget cannot be negative"), 1;
  /* a file that cannot take records is said before anything is measured */
  FILE *probe = fopen(records_path, "a");
  if (!probe) return api_failf(c, "%s: cannot open for writing: %s", records_path, strerror(errno)), 1;
  fclose(probe);
  MlcCtx *ctx = c->ctx;
  MlcSchTarget st;
  mlc_sch_target_host(&st);
  MlcTuneTarget tt;
  mlc_tune_target_host(&tt, opt->threads);
  st.threads = tt.threads; /* the default schedule, a candidate, is sized for the threads measured */
  MlcTuneDB *db = mlc_tune_db_new();
  /* the tasks are the kernels a build with these records compiles, and
   * the matmuls the library could take (docs/tuning.md) */
  const MlcModule *m = mlc_tune_db_load(ctx, db, records_path, true) ? mlc_tune_tasks_module(ctx, API_MOD(mm), db, &tt) : NULL;
  if (!m) return mlc_tune_db_free(db), api_fail(c), 1;
  const char *tmp = getenv("TMPDIR");
  MlcTuneOptions o = {
      .trials = opt->trials, .batch = opt->batch, .seed = opt->seed, .time_budget_s = opt->time_budget_s,
      .measure = {.threads = tt.threads, .timeout_s = opt->timeout_s, .workdir = tmp && *tmp ? tmp : "/tmp"},
      .db_path = records_path, .progress = opt->progress ? stderr : NULL};
  bool ok = mlc_tune_module(ctx, m, db, &st, &tt, &o);
  mlc_tune_db_free(db);
  return ok ? 0 : (api_fail(c), 1);
}

MlccModule *mlcc_apply_records(MlccContext *c, const MlccModule *m, const char *const *paths, int n,
                               int *n_applied, int *n_failed) {
  api_begin(c);
  if (!m) return api_failf(c, "records: no module"), NULL;
  MlcTuneDB *db = load_records(c, paths, n);
  if (!db) return NULL;
  MlcTuneTarget tt;
  mlc_tune_target_host(&tt, 0);
  MlcModule *out = mlc_tune_apply(c->ctx, API_MOD(m), db, &tt, n_applied, n_failed);
  mlc_tune_db_free(db);
  if (!out) api_fail(c);
  return (MlccModule *)out;
}

MlccModule *mlcc_pipeline_for(MlccContext *c, const MlccModule *m, const char *target, const char *const *paths,
                              int n, int *n_applied, int *n_failed) {
  api_begin(c);
  MlcBuildOptions opt;
  if (!parse_target(c, target, &opt)) return NULL;
  if (!m) return api_failf(c, "no module"), NULL;
  /* default schedules sized for the CPU the C is compiled for; none on a GPU */
  MlcSchTarget st;
  if (opt.target == MLC_TARGET_GENERIC) mlc_sch_target_march(&st, "x86-64");
  else mlc_sch_target_host(&st);
  const MlcSchTarget *sized = opt.gpu == MLC_GPU_NONE ? &st : NULL;
  if (n_applied) *n_applied = 0;
  if (n_failed) *n_failed = 0;
  MlcModule *out;
  if (n == 0) {
    out = mlc_graph_pipeline(c->ctx, API_MOD(m), sized, MLC_PASS_COUNT - 1, NULL, NULL, NULL, NULL);
  } else {
    MlcTuneDB *db = load_records(c, paths, n);
    if (!db) return NULL;
    MlcTuneTarget tt;
    mlc_tune_target_host(&tt, 0);
    out = mlc_tune_pipeline(c->ctx, API_MOD(m), sized, db, &tt, NULL, NULL, NULL, NULL, n_applied, n_failed);
    mlc_tune_db_free(db);
  }
  if (!out) api_fail(c);
  return (MlccModule *)out;
}
