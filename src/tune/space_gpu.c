/* space_gpu.c - the design space of a prim func for a GPU target: the
 * default GPU schedules' forms with the tiled reductions' tile sizes and
 * unroll depth drawn (mlc_sch_gpu_space), checked by generating the
 * device code, so that a form the GPU lowering refuses is never a space. */
#include "tune/tune_internal.h"

/* whether f becomes device code for the API at *user */
static bool gpu_lowers(MlcCtx *ctx, const MlcPrimFunc *f, void *user) {
  MlcFunc one = {.kind = MLC_FUNC_PRIM, .name = f->name, .prim = (MlcPrimFunc *)f};
  MlcModule *m = mlc_module_new(ctx, mlc_intern(ctx, "Candidate"), &one, 1, (MlcAttrs){0});
  MlcStrBuf sb = {0};
  bool ok = m && mlc_codegen_gpu_source(ctx, m, *(const MlcGpuApi *)user, &sb);
  mlc_vec_free(&sb);
  mlc_clear_error(ctx);
  return ok;
}

int tune_gpu_spaces(MlcCtx *ctx, const MlcModule *m, const char *func, const MlcSchTarget *t, MlcSchedule **out,
                    int cap) {
  if (cap < 1) return 0;
  MlcSchedule *s = mlc_sch_new(ctx, m, func, 0);
  if (!s) return 0;
  MlcGpuApi api = (MlcGpuApi)t->gpu;
  if (!mlc_sch_gpu_space(s, 256, gpu_lowers, &api)) {
    mlc_sch_free(s);
    return 0;
  }
  out[0] = s;
  return 1;
}

bool tune_default_schedule(MlcSchedule *s, const MlcSchTarget *t) {
  if (!t->gpu) return mlc_sch_apply_default(s, t);
  MlcGpuApi api = (MlcGpuApi)t->gpu;
  return mlc_sch_apply_default_gpu(s, 256, gpu_lowers, &api);
}

typedef struct Bound { MlcVisitor v; bool found; } Bound;
static bool bound_hook(MlcVisitor *v, const MlcStmt *s) {
  Bound *b = (Bound *)v;
  if (s->kind == MLC_STMT_FOR && s->loop.kind == MLC_FOR_THREAD) b->found = true;
  return !b->found;
}

bool tune_is_gpu_func(const MlcPrimFunc *f) {
  Bound b = {.v = {.stmt = bound_hook}};
  if (f->body) mlc_visit_stmt(&b.v, f->body);
  return b.found;
}
