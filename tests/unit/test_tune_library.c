/* test_tune_library.c - library call or generated kernel, decided by
 * measurement: the matmuls dispatch_library would take are found with
 * their shapes and call counts, become tasks (the matmul alone, computing
 * what the op does: the reference interpreter on the unscheduled model is
 * not involved, the legalized op is checked against a plain C matmul),
 * env.matmul is timed on their shapes, the records carry "library"
 * through JSON, and a build with records dispatches exactly the calls the
 * library won. */
#include "check.h"
#include "mlcc/support.h"
#include "mlcc/ir.h"
#include "mlcc/text.h"
#include "mlcc/interp.h"
#include "mlcc/tune.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

/* two calls of one shape (64^3 multiply-adds: dispatched) and one small
 * matmul (not) */
static const char *src =
    "from tvm.script import ir as I\n"
    "from tvm.script import relax as R\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((64, 64), \"float32\"), w: R.Tensor((64, 64), \"float32\"),\n"
    "             s: R.Tensor((4, 8), \"float32\"), v: R.Tensor((8, 4), \"float32\")):\n"
    "        with R.dataflow():\n"
    "            a = R.matmul(x, w)\n"
    "            b = R.nn.relu(a)\n"
    "            c = R.matmul(b, w)\n"
    "            d = R.matmul(s, v)\n"
    "            out = (c, d)\n"
    "            R.output(out)\n"
    "        return out\n";

static char tmpdir[64];

static int count_calls(const MlcModule *m, const char *what) {
  MlcStrBuf sb = {0};
  mlc_print_module(m, &sb);
  int n = 0;
  for (const char *p = mlc_sb_cstr(&sb); (p = strstr(p, what)); p++) n++;
  mlc_vec_free(&sb);
  return n;
}

static const MlcPrimFunc *library_task(MlcCtx *ctx, const MlcModule *t) {
  for (int i = 0; i < t->n_funcs; i++)
    if (t->funcs[i].kind == MLC_FUNC_PRIM && mlc_attrs_get(t->funcs[i].prim->attrs, mlc_intern(ctx, "library")))
      return t->funcs[i].prim;
  return NULL;
}

/* the task computes x @ w: interpreter against a plain C loop */
static bool computes_matmul(MlcCtx *ctx, const MlcPrimFunc *f) {
  static float a[64 * 64], b[64 * 64], c[64 * 64];
  uint64_t st = 5;
  for (int i = 0; i < 64 * 64; i++) {
    st = st * 6364136223846793005ull + 1, a[i] = (float)((st >> 40) % 200) / 100 - 1;
    st = st * 6364136223846793005ull + 1, b[i] = (float)((st >> 40) % 200) / 100 - 1;
  }
  int64_t sh[2] = {64, 64};
  MlcInterpArg args[3] = {{true, a, 2, sh, 0, 0}, {true, b, 2, sh, 0, 0}, {true, c, 2, sh, 0, 0}};
  if (f->n_params != 3 || !mlc_interp_run(ctx, f, args, 3)) return false;
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++) {
      double want = 0;
      for (int k = 0; k < 64; k++) want += (double)a[i * 64 + k] * b[k * 64 + j];
      if (fabs(c[i * 64 + j] - want) > 1e-3 * (1 + fabs(want))) return false;
    }
  return true;
}

static void test_choices_and_tasks(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "two.py", src, strlen(src));
  CHECK(m);
  if (!m) return mlc_ctx_free(ctx);
  MlcTuneChoice c[4];
  int n = mlc_tune_library_choices(ctx, m, NULL, NULL, c, 4);
  CHECK(n == 1);
  if (n != 1) return mlc_ctx_free(ctx);
  CHECK_STR(c[0].shape, "64x64 @ 64x64");
  CHECK(c[0].calls == 2 && c[0].library_s < 0 && c[0].generated_s < 0 && !c[0].generated);
  MlcModule *t = mlc_tune_tasks_module(ctx, m, NULL, NULL);
  const MlcPrimFunc *f = t ? library_task(ctx, t) : NULL;
  CHECK(f && mlc_tune_workload_hash(ctx, f) == c[0].workload);
  const MlcAttrValue *calls = f ? mlc_attrs_get(f->attrs, mlc_intern(ctx, "calls")) : NULL;
  CHECK(calls && calls->kind == MLC_ATTR_INT && calls->i == 2);
  CHECK(f && computes_matmul(ctx, f));
  /* the library side times */
  MlcTuneMeasureOptions o = {.repeat = 2, .min_repeat_ms = 1, .timeout_s = 10, .threads = 1, .workdir = tmpdir};
  MlcTuneResult r;
  CHECK(f && mlc_tune_measure_library(ctx, "env.matmul", f, &o, &r) && r.seconds > 0 && !r.error[0]);
  CHECK(f && mlc_tune_measure_library(ctx, "env.no_such_function", f, &o, &r) && r.seconds < 0 && r.error[0]);
  mlc_ctx_free(ctx);
}

/* A build dispatches the calls whose library record beats the generated
 * one, and keeps the others for generated code.  The records here are made
 * up to steer the decision both ways: what is tested is the decision, not
 * a speed. */
static void test_records_decide(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "two.py", src, strlen(src));
  CHECK(m);
  if (!m) return mlc_ctx_free(ctx);
  MlcTuneTarget tt;
  mlc_tune_target_host(&tt, 1);
  MlcTuneChoice c;
  CHECK(mlc_tune_library_choices(ctx, m, NULL, NULL, &c, 1) == 1);
  for (int way = 0; way < 2; way++) {
    MlcTuneDB *db = mlc_tune_db_new();
    MlcTuneRecord lib = {.workload = c.workload, .target = tt, .func = "library_matmul0", .trace = "",
                         .decisions = "[]", .seconds = way ? 1e-3 : 1e-6, .library = "env.matmul"};
    MlcTuneRecord gen = {.workload = c.workload, .target = tt, .func = "library_matmul0", .trace = "",
                         .decisions = "[[1]]", .seconds = 1e-4};
    mlc_tune_db_add(db, &lib);
    mlc_tune_db_add(db, &gen);
    /* through JSON and back, as a file brings them */
    char path[128];
    snprintf(path, sizeof path, "%s/decide.jsonl", tmpdir);
    MlcTuneDB *back = mlc_tune_db_new();
    CHECK(mlc_tune_db_save(ctx, db, path) && mlc_tune_db_load(ctx, back, path, false));
    const MlcTuneRecord *bl = mlc_tune_db_best_library(back, c.workload, &tt), *bg = mlc_tune_db_best(back, c.workload, &tt);
    CHECK(bl && bl->library && !strcmp(bl->library, "env.matmul") && bg && !bg->library);
    MlcTuneChoice d;
    CHECK(mlc_tune_library_choices(ctx, m, back, &tt, &d, 1) == 1 && d.generated == (way == 1));
    MlcModule *built = mlc_tune_pipeline(ctx, m, NULL, back, &tt, NULL, NULL, NULL, NULL, NULL, NULL);
    CHECK(built);
    if (built) CHECK(count_calls(built, "env.matmul") == (way ? 0 : 2));
    /* decided for generated code, the matmul alone is no task any more */
    MlcModule *t = mlc_tune_tasks_module(ctx, m, back, &tt);
    CHECK(t && (library_task(ctx, t) != NULL) == (way == 0));
    mlc_tune_db_free(db);
    mlc_tune_db_free(back);
  }
  mlc_ctx_free(ctx);
}

/* a short tuning run of the module measures the library once and tunes
 * the generated side; the choice then has both times */
static void test_tune_measures_both(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "two.py", src, strlen(src));
  CHECK(m);
  if (!m) return mlc_ctx_free(ctx);
  MlcSchTarget st;
  mlc_sch_target_host(&st);
  MlcTuneTarget tt;
  mlc_tune_target_host(&tt, 1);
  MlcTuneDB *db = mlc_tune_db_new();
  MlcModule *t = mlc_tune_tasks_module(ctx, m, db, &tt);
  MlcTuneOptions o = {.trials = 6, .batch = 3, .seed = 1,
                      .measure = {.repeat = 2, .min_repeat_ms = 1, .timeout_s = 10, .threads = 1, .workdir = tmpdir}};
  CHECK(t && mlc_tune_module(ctx, t, db, &st, &tt, &o));
  MlcTuneChoice c;
  CHECK(mlc_tune_library_choices(ctx, m, db, &tt, &c, 1) == 1 && c.library_s > 0 && c.generated_s > 0);
  CHECK(c.generated == (c.generated_s < c.library_s));
  int libs = 0;
  for (int i = 0; i < mlc_tune_db_size(db); i++) libs += mlc_tune_db_at(db, i)->library != NULL;
  CHECK(libs == 1);
  mlc_tune_db_free(db);
  mlc_ctx_free(ctx);
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/mlcc_tune_lib_XXXXXX");
  if (!mkdtemp(tmpdir)) return 1;
  RUN(test_choices_and_tasks);
  RUN(test_records_decide);
  RUN(test_tune_measures_both);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  if (system(cmd) != 0) return 1;
  return CHECK_DONE();
}
