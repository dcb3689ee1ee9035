/* passes.c - graph passes, the pipeline, weights, ONNX import and the
 * build driver through the stable C API. */
#include "api/api.h"
#include "mlcc/codegen.h"
#include "mlcc/frontend.h"
#include "mlcc/transform.h"

#include <string.h>

static MlccModule *mod_out(MlccContext *c, MlcModule *m) {
  if (!m) return api_fail(c), NULL;
  return (MlccModule *)m;
}

int mlcc_pass_count(void) { return MLC_PASS_COUNT; }
const char *mlcc_pass_name(int i) { return i >= 0 && i < MLC_PASS_COUNT ? mlc_graph_pass_names[i] : NULL; }

static int pass_index(const char *name) {
  for (int p = 0; name && p < MLC_PASS_COUNT; p++)
    if (strcmp(mlc_graph_pass_names[p], name) == 0) return p;
  return -1;
}

/* what default schedules are sized for: NULL/"" the host (or $MLC_MARCH),
 * "none" nothing (returns false) */
static bool sch_target(const char *march, MlcSchTarget *t) {
  if (march && strcmp(march, "none") == 0) return false;
  if (!march || !*march) mlc_sch_target_host(t);
  else mlc_sch_target_march(t, march);
  return true;
}

MlccModule *mlcc_run_pass(MlccContext *c, const MlccModule *mm, const char *pass) {
  api_begin(c);
  const MlcModule *m = API_MOD(mm);
  MlcCtx *x = c->ctx;
  int p = pass_index(pass);
  if (p < 0) return api_failf(c, "unknown graph pass '%s'", pass ? pass : "(null)"), NULL;
  MlcSchTarget t;
  bool sized = p == MLC_PASS_DEFAULT_SCHEDULE && sch_target(NULL, &t);
  return mod_out(c, mlc_graph_pass_run(x, m, (MlcGraphPass)p, sized ? &t : NULL, NULL, NULL, NULL));
}

MlccModule *mlcc_pipeline(MlccContext *c, const MlccModule *m, const char *last, const char *march) {
  api_begin(c);
  int p = last ? pass_index(last) : MLC_PASS_COUNT - 1;
  if (p < 0) return api_failf(c, "unknown graph pass '%s'", last), NULL;
  MlcSchTarget t;
  bool sized = sch_target(march, &t);
  return mod_out(c, mlc_graph_pipeline(c->ctx, API_MOD(m), sized ? &t : NULL, (MlcGraphPass)p, NULL, NULL,
                                       NULL, NULL));
}

MlccModule *mlcc_bind_params(MlccContext *c, const MlccModule *m, const char *func, const char *const *names,
                             MlccGExpr *const *consts, int n) {
  api_begin(c);
  if (n < 0 || (n > 0 && (!names || !consts))) return api_failf(c, "bind_params: bad arguments"), NULL;
  MlcTensorData **data = mlc_arena_array(&c->ctx->arena, (size_t)(n ? n : 1), sizeof *data);
  for (int i = 0; i < n; i++) {
    const MlcGExpr *e = (const MlcGExpr *)consts[i];
    if (!names[i] || !e || e->kind != MLC_G_CONST)
      return api_failf(c, "bind_params: weight %d is not a named constant", i), NULL;
    data[i] = e->constant;
  }
  return mod_out(c, mlc_pass_bind_params(c->ctx, API_MOD(m), func ? func : "main", names, data, n));
}

MlccModule *mlcc_onnx_import(MlccContext *c, const char *path, const char *const *names, const int *ndims,
                             const int64_t *dims, int n_shapes) {
  api_begin(c);
  if (!path) return api_failf(c, "no model path"), NULL;
  if (n_shapes < 0 || n_shapes > 256) return api_failf(c, "%d input shapes", n_shapes), NULL;
  MlcOnnxInputShape *shapes = mlc_arena_array(&c->ctx->arena, (size_t)(n_shapes ? n_shapes : 1), sizeof *shapes);
  const int64_t *d = dims;
  for (int i = 0; i < n_shapes; i++) {
    if (!names || !names[i] || !ndims || ndims[i] < 0 || ndims[i] > 32 || (ndims[i] && !d))
      return api_failf(c, "input shape %d: a name and at most 32 dims", i), NULL;
    shapes[i].name = mlc_intern(c->ctx, names[i]);
    shapes[i].ndim = ndims[i];
    for (int k = 0; k < ndims[i]; k++) shapes[i].dims[k] = *d++;
  }
  MlcOnnxOptions opt = {.shapes = shapes, .n_shapes = n_shapes};
  return mod_out(c, mlc_onnx_import_file(c->ctx, path, &opt));
}

int mlcc_build_kernels(MlccContext *c, const MlccModule *m, const char *so_path) {
  api_begin(c);
  if (!so_path) return api_failf(c, "no output path"), 1;
  MlcBuildOptions opt = {.target = MLC_TARGET_NATIVE};
  return mlc_build_shared(c->ctx, API_MOD(m), so_path, &opt) ? 0 : (api_fail(c), 1);
}

int mlcc_build_model(MlccContext *c, const MlccModule *m, const char *dir, const char *entry) {
  api_begin(c);
  if (!dir) return api_failf(c, "no output folder"), 1;
  MlcBuildOptions opt = {.target = MLC_TARGET_NATIVE};
  MlcModelOptions mo = {.entry = entry};
  return mlc_build_model(c->ctx, API_MOD(m), dir, &opt, &mo) ? 0 : (api_fail(c), 1);
}
