/* test_tune_convlayout.c - conv weight layouts decided by measurement, on
 * tests/e2e/convs.py (two convs of different shapes, 16x4x3x3 and
 * 8x16x1x1, their weights constants): each conv kernel's layouts are found
 * (OIHW, and OIHW8o / OIHW16o where the block divides the channels), each
 * layout's kernel computes what the plain one does on the weight laid out
 * by its own map (both in the reference interpreter), a short tuning run
 * measures every layout, a build with those records gives each call its
 * fastest layout and computes what the legalized, unscheduled kernels
 * compute in the interpreter, and records of another target change
 * nothing. */
#include "build_util.h"
#include "check.h"
#include "mlcc/interp.h"
#include "mlcc/transform.h"
#include "mlcc/tune.h"

#include <math.h>

static const char *model_path = "tests/e2e/convs.py";
static char tmpdir[4096];

static uint64_t rng = 0x2545f4914f6cdd1dull;
static float frand(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static const MlcPrimFunc *prim(MlcCtx *ctx, const MlcModule *m, const char *name) {
  const MlcFunc *f = mlc_module_find(m, mlc_intern(ctx, name));
  return f && f->kind == MLC_FUNC_PRIM ? f->prim : NULL;
}

static int64_t numel(const MlcBuffer *b) {
  int64_t n = 1, d;
  for (int i = 0; i < b->ndim; i++) n *= mlc_e_is_const_int(b->shape[i], &d) ? d : 0;
  return n;
}

static bool close_all(const float *got, const float *want, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (!(fabsf(got[i] - want[i]) <= 1e-4f * (1 + fabsf(want[i])))) {
      printf("    element %lld: %.7g, want %.7g\n", (long long)i, (double)got[i], (double)want[i]);
      return false;
    }
  return true;
}

/* f (params: input, weight, output) in the interpreter; w laid out as f's
 * weight param is (its shape) */
static bool interp3(MlcCtx *ctx, const MlcPrimFunc *f, float *x, float *w, float *y) {
  int64_t sh[3][8];
  MlcInterpArg a[3];
  float *data[3] = {x, w, y};
  if (f->n_params != 3) return false;
  for (int p = 0; p < 3; p++) {
    const MlcBuffer *b = f->params[p].buf;
    for (int d = 0; d < b->ndim && d < 8; d++) mlc_e_is_const_int(b->shape[d], &sh[p][d]);
    a[p] = (MlcInterpArg){true, data[p], b->ndim, sh[p], 0, 0};
  }
  if (!mlc_interp_run(ctx, f, a, 3)) return bu_print_error(ctx, "interpreter"), false;
  return true;
}

/* the weight data w (laid out OIHW, shaped as plain's param 1) laid out by
 * the map of variant's "layout_rewrites" */
static MlcTensorData *laid_out(MlcCtx *ctx, const MlcPrimFunc *plain, const MlcPrimFunc *variant, float *w) {
  const MlcAttrValue *rw = mlc_attrs_get(variant->attrs, mlc_intern(ctx, "layout_rewrites"));
  if (!rw || rw->kind != MLC_ATTR_LIST || rw->list.n != 1 || rw->list.items[0].kind != MLC_ATTR_LIST) return NULL;
  const MlcAttrValue *pair = &rw->list.items[0];
  if (pair->list.n != 2 || pair->list.items[0].i != 1 || pair->list.items[1].kind != MLC_ATTR_STR) return NULL;
  const MlcBuffer *b = plain->params[1].buf;
  int64_t sh[4];
  for (int d = 0; d < 4; d++) mlc_e_is_const_int(b->shape[d], &sh[d]);
  MlcTensorData in = {MLC_DT(MLC_TC_FLOAT, 32, 1), 4, sh, w, (size_t)numel(b) * sizeof(float)};
  return mlc_sch_layout_apply(ctx, pair->list.items[1].s, &in);
}

/* Both convs are choices, with their layouts; each layout's kernel is a
 * task and computes the plain kernel's result from its own weight layout. */
static void test_choices_and_tasks(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const MlcModule *m = bu_read_path(ctx, model_path);
  CHECK(m);
  if (!m) return mlc_ctx_free(ctx);
  MlcTuneLayoutChoice c[4];
  int n = mlc_tune_layout_choices(ctx, m, NULL, NULL, c, 4);
  CHECK(n == 2);
  if (n != 2) return mlc_ctx_free(ctx);
  CHECK_STR(c[0].shape, "16x4x3x3");
  CHECK(c[0].n == 3 && c[0].calls == 1 && c[0].chosen == -1);
  CHECK_STR(c[0].layout[0], "OIHW");
  CHECK_STR(c[0].layout[1], "OIHW8o");
  CHECK_STR(c[0].layout[2], "OIHW16o");
  CHECK_STR(c[1].shape, "8x16x1x1");
  CHECK(c[1].n == 2 && c[1].seconds[0] < 0 && c[1].seconds[1] < 0);
  MlcModule *t = mlc_tune_tasks_module(ctx, m, NULL, NULL);
  CHECK(t);
  for (int i = 0; t && i < n; i++) {
    const MlcPrimFunc *plain = prim(ctx, t, c[i].kernel);
    CHECK(plain && mlc_tune_workload_hash(ctx, plain) == c[i].workload[0]);
    if (!plain) continue;
    int64_t nx = numel(plain->params[0].buf), nw = numel(plain->params[1].buf), ny = numel(plain->params[2].buf);
    float *x = malloc(sizeof *x * (size_t)nx), *w = malloc(sizeof *w * (size_t)nw);
    float *want = malloc(sizeof *want * (size_t)ny), *got = malloc(sizeof *got * (size_t)ny);
    for (int64_t k = 0; k < nx; k++) x[k] = frand();
    for (int64_t k = 0; k < nw; k++) w[k] = frand();
    CHECK(interp3(ctx, plain, x, w, want));
    for (int a = 1; a < c[i].n; a++) {
      const MlcPrimFunc *v = prim(ctx, t, mlc_internf(ctx, "%s_%s", c[i].kernel, c[i].layout[a]));
      CHECK(v && mlc_tune_workload_hash(ctx, v) == c[i].workload[a]);
      const MlcAttrValue *calls = v ? mlc_attrs_get(v->attrs, mlc_intern(ctx, "calls")) : NULL;
      CHECK(calls && calls->kind == MLC_ATTR_INT && calls->i == 1);
      MlcTensorData *lw = v ? laid_out(ctx, plain, v, w) : NULL;
      CHECK(lw && lw->ndim == 5);
      memset(got, 0, sizeof *got * (size_t)ny);
      CHECK(lw && interp3(ctx, v, x, lw->data, got) && close_all(got, want, ny));
    }
    free(x), free(w), free(want), free(got);
  }
  mlc_ctx_free(ctx);
}

/* A task's default schedule (a tuning candidate) lays out the weight as
 * an untuned build does, since the tasks mark it free to; the check
 * against the interpreter feeds it the same values in that layout and
 * passes, and fails when the candidate hides that it changed the layout. */
static void test_default_candidate_relayout(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const MlcModule *m = bu_read_path(ctx, model_path);
  MlcModule *t = m ? mlc_tune_tasks_module(ctx, m, NULL, NULL) : NULL;
  MlcTuneLayoutChoice c[4];
  int n = m ? mlc_tune_layout_choices(ctx, m, NULL, NULL, c, 4) : 0;
  CHECK(t && n == 2);
  if (!t || n != 2) return mlc_ctx_free(ctx);
  const MlcPrimFunc *plain = prim(ctx, t, c[0].kernel);
  CHECK(plain && mlc_attrs_get(plain->attrs, mlc_intern(ctx, "layout_free_buffers")));
  MlcSchTarget st;
  mlc_sch_target_host(&st);
  MlcSchedule *s = plain ? mlc_sch_new(ctx, t, c[0].kernel, 0) : NULL;
  CHECK(s && mlc_sch_apply_default(s, &st));
  const MlcPrimFunc *cand = s ? mlc_sch_func(s) : NULL;
  const MlcAttrValue *rw = cand ? mlc_attrs_get(cand->attrs, mlc_intern(ctx, "layout_rewrites")) : NULL;
  CHECK(rw && rw->kind == MLC_ATTR_LIST && rw->list.n == 1 && cand->params[1].buf->ndim == 5);
  MlcTuneMeasureOptions o = {.timeout_s = 10, .threads = 1, .workdir = tmpdir};
  if (rw) {
    CHECK(mlc_tune_check(ctx, plain, cand, &o));
    mlc_clear_error(ctx);
    MlcPrimFunc *hidden = mlc_arena_dup(&ctx->arena, cand, sizeof *hidden);
    hidden->attrs = mlc_attrs_with(ctx, cand->attrs, mlc_intern(ctx, "layout_rewrites"), NULL);
    CHECK(!mlc_tune_check(ctx, plain, hidden, &o));
    mlc_clear_error(ctx);
  }
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* ---- the whole model in the interpreter -------------------------------------------------- */

typedef struct Val { const MlcGExpr *var; float *data; } Val;

static float *value_of(const Val *vals, int n, const MlcGExpr *e) {
  if (e->kind == MLC_G_CONST) return e->constant->data;
  for (int i = 0; i < n; i++)
    if (vals[i].var == e) return vals[i].data;
  return NULL;
}

/* main of k (the legalized kernels, no schedule: every binding a call_tir
 * of a kernel taking input, weight, output) run on x in the interpreter,
 * the output copied to y (ny elements) */
static bool run_reference(MlcCtx *ctx, const MlcModule *k, const MlcGExpr *xvar, float *x, float *y, int64_t ny) {
  const MlcFunc *mf = mlc_module_find(k, mlc_intern(ctx, "main"));
  if (!mf || mf->kind != MLC_FUNC_GRAPH) return false;
  const MlcGExpr *body = mf->graph->body;
  Val vals[16] = {{xvar, x}};
  int nv = 1;
  bool ok = true;
  for (int b = 0; ok && b < body->seq.n; b++)
    for (int i = 0; ok && i < body->seq.blocks[b]->n && nv < 16; i++) {
      const MlcBinding *bd = &body->seq.blocks[b]->bindings[i];
      const MlcGExpr *call = bd->value;
      ok = call->kind == MLC_G_CALL && call->call.callee->kind == MLC_G_OP &&
           !strcmp(call->call.callee->str, "call_tir") && call->call.args[1]->kind == MLC_G_TUPLE &&
           call->call.args[1]->tuple.n == 2;
      const MlcPrimFunc *f = ok ? prim(ctx, k, call->call.args[0]->str) : NULL;
      float *in = ok ? value_of(vals, nv, call->call.args[1]->tuple.fields[0]) : NULL;
      float *w = ok ? value_of(vals, nv, call->call.args[1]->tuple.fields[1]) : NULL;
      if (!(ok = f && in && w)) break;
      float *out = calloc((size_t)numel(f->params[2].buf), sizeof *out);
      vals[nv++] = (Val){bd->var, out};
      ok = interp3(ctx, f, in, w, out);
    }
  const float *res = ok ? value_of(vals, nv, body->seq.result) : NULL;
  if (res) memcpy(y, res, sizeof *y * (size_t)ny);
  for (int i = 1; i < nv; i++) free(vals[i].data);
  return res != NULL;
}

/* m built with records db on target tt into DIR/name and run on x; y gets
 * the output */
static bool run_built(MlcCtx *ctx, const MlcModule *m, const MlcTuneDB *db, const MlcTuneTarget *tt,
                      const char *name, float *x, float *y, int64_t ny, MlcModule **built) {
  MlcSchTarget st;
  mlc_sch_target_host(&st);
  char dir[8192];
  snprintf(dir, sizeof dir, "%s/%s", tmpdir, name);
  MlcModule *b = mlc_tune_pipeline(ctx, m, &st, db, tt, NULL, NULL, NULL, NULL, NULL, NULL);
  MlcModelOptions mo = {.embed_params = true};
  if (!b || !mlc_build_model(ctx, b, dir, NULL, &mo)) return bu_print_error(ctx, "build"), false;
  *built = b;
  MlcrtModel *model = NULL;
  if (mlcrt_model_load(dir, &model) != 0) return printf("    load: %s\n", mlcrt_last_error()), false;
  int64_t xs[4] = {1, 4, 10, 10};
  DLTensor in = {.data = x, .device = {kDLCPU, 0}, .ndim = 4, .dtype = {kDLFloat, 32, 1}, .shape = xs};
  DLTensor *ins[1] = {&in}, *out = NULL;
  bool ok = mlcrt_model_run(model, ins, 1, &out, 1) == 0 && out && mlcrt_tensor_numel(out) == ny;
  if (ok) memcpy(y, out->data, sizeof *y * (size_t)ny);
  else printf("    run: %s\n", mlcrt_last_error());
  mlcrt_model_free(model);
  return ok;
}

/* the rank of the weight param of kernel name in b, and whether it is tuned */
static int weight_rank(MlcCtx *ctx, const MlcModule *b, const char *name, bool *tuned) {
  const MlcPrimFunc *f = prim(ctx, b, name);
  *tuned = f && mlc_attrs_get(f->attrs, mlc_intern(ctx, "tuned"));
  return f && f->n_params == 3 ? f->params[1].buf->ndim : -1;
}

/* A short tuning run measures every layout of both convs; a build with
 * the records takes the fastest of each and computes what the interpreter
 * computes; the same records under another target are not applied. */
static void test_tune_and_apply(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const MlcModule *m = bu_read_path(ctx, model_path);
  CHECK(m);
  if (!m) return mlc_ctx_free(ctx);
  MlcSchTarget st;
  mlc_sch_target_host(&st);
  MlcTuneTarget tt;
  mlc_tune_target_host(&tt, 1);
  MlcTuneDB *db = mlc_tune_db_new();
  MlcModule *t = mlc_tune_tasks_module(ctx, m, db, &tt);
  /* five tasks (3 + 2 layouts), two candidates each */
  FILE *log = tmpfile();
  MlcTuneOptions o = {.trials = 10, .batch = 2, .seed = 3, .progress = log,
                      .measure = {.repeat = 2, .min_repeat_ms = 1, .timeout_s = 10, .threads = 1, .workdir = tmpdir}};
  CHECK(log && t && mlc_tune_module(ctx, t, db, &st, &tt, &o));
  MlcTuneLayoutChoice c[2];
  int n = mlc_tune_layout_choices(ctx, m, db, &tt, c, 2);
  CHECK(n == 2);
  /* the progress line's model latency counts each conv once, at its
   * fastest layout */
  double latency_us = -1, want_us = 0;
  char line[512];
  rewind(log);
  while (fgets(line, sizeof line, log)) {
    const char *at = strstr(line, "model latency ");
    double v;
    if (at && sscanf(at, "model latency %lf us", &v) == 1) latency_us = v;
  }
  fclose(log);
  for (int i = 0; i < n && i < 2; i++) {
    double fastest = -1;
    for (int a = 0; a < c[i].n; a++)
      if (c[i].seconds[a] > 0 && (fastest < 0 || c[i].seconds[a] < fastest)) fastest = c[i].seconds[a];
    want_us += fastest * 1e6 * c[i].calls;
  }
  CHECK(latency_us > 0 && fabs(latency_us - want_us) <= 0.01 + 1e-3 * want_us);
  int chosen_rank[2] = {0, 0};
  for (int i = 0; i < n && i < 2; i++) {
    int best = -1;
    for (int a = 0; a < c[i].n; a++) {
      CHECK(c[i].seconds[a] > 0); /* every layout measured */
      if (c[i].seconds[a] > 0 && (best < 0 || c[i].seconds[a] < c[i].seconds[best])) best = a;
    }
    CHECK(c[i].chosen == best && best >= 0);
    /* a blocked layout's weight is 5-D; so is the plain one's when its
     * best record is the default schedule, which blocks it itself */
    const MlcTuneRecord *r = best >= 0 ? mlc_tune_db_best(db, c[i].workload[best], &tt) : NULL;
    chosen_rank[i] = c[i].chosen > 0 || (r && strstr(r->trace, "transform_layout")) ? 5 : 4;
  }
  /* the reference: the legalized kernels, unscheduled, in the interpreter */
  MlcModule *k = mlc_graph_pipeline(ctx, m, NULL, MLC_PASS_DEAD_CODE, NULL, NULL, NULL, NULL);
  const MlcFunc *mf = k ? mlc_module_find(k, mlc_intern(ctx, "main")) : NULL;
  enum { NX = 4 * 10 * 10, NY = 8 * 8 * 8 };
  static float x[NX], want[NY], got[NY];
  for (int i = 0; i < NX; i++) x[i] = frand();
  CHECK(mf && run_reference(ctx, k, mf->graph->params[0], x, want, NY));
  MlcModule *b = NULL;
  CHECK(run_built(ctx, m, db, &tt, "tuned", x, got, NY, &b) && close_all(got, want, NY));
  for (int i = 0; b && i < n; i++) {
    bool tuned;
    CHECK(weight_rank(ctx, b, c[i].kernel, &tuned) == chosen_rank[i] && tuned);
  }
  /* the same records measured elsewhere: no layout chosen, nothing tuned */
  MlcTuneTarget other = tt;
  snprintf(other.cpu, sizeof other.cpu, "%s", "another CPU");
  MlcTuneLayoutChoice d[2];
  CHECK(mlc_tune_layout_choices(ctx, m, db, &other, d, 2) == 2 && d[0].chosen == -1 && d[1].chosen == -1 &&
        d[0].seconds[0] < 0);
  CHECK(run_built(ctx, m, db, &other, "other", x, got, NY, &b) && close_all(got, want, NY));
  for (int i = 0; b && i < n; i++) {
    bool tuned;
    weight_rank(ctx, b, c[i].kernel, &tuned);
    CHECK(!tuned);
  }
  mlc_tune_db_free(db);
  mlc_ctx_free(ctx);
}

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc_convlayout")) return 1;
  RUN(test_choices_and_tasks);
  RUN(test_default_candidate_relayout);
  RUN(test_tune_and_apply);
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) return 1;
  return CHECK_DONE();
}
