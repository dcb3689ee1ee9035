/* test_tune_remote.c - the tuner's build and measure steps over files and
 * through a launcher: candidates build into an artifact whose measuring
 * writes records (in order, with the reason for each candidate that did not
 * build; a library call is timed on the shapes of its program's params),
 * the records merge and apply to programs that compute what the
 * unscheduled function computes (the reference interpreter is the oracle),
 * bad files get located errors, a launcher that is a plain shell command
 * carries a tuning run, a broken one is an error, and the cache flush
 * gives times. */
#include "check.h"
#include "mlcc/support.h"
#include "mlcc/ir.h"
#include "mlcc/text.h"
#include "mlcc/interp.h"
#include "mlcc/tune.h"
#include "tune_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *reorder_trace = "b0 = sch.get_block(\"Y\")\n"
                                   "l1, l2, l3 = sch.get_loops(block=b0)\n"
                                   "sch.reorder(l1, l3, l2)\n";

static bool write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return false;
  bool ok = fputs(text, f) >= 0;
  return fclose(f) == 0 && ok;
}

static MlcTuneCandidate cand(uint64_t w, const char *func, const char *trace, int space, const char *dec) {
  return (MlcTuneCandidate){.program = mm_relu_src, .func = func, .trace = trace, .workload = w, .space = space,
                            .decisions = dec, .flops = 2.0 * 16 * 24 * 32, .weight = 1};
}

static const MlcTuneMeasureOptions quick = {.repeat = 2, .min_repeat_ms = 1, .timeout_s = 10, .threads = 1};

/* build, measure, merge, apply */
static void test_artifact_roundtrip(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "mm_relu.py", mm_relu_src, strlen(mm_relu_src));
  CHECK(m);
  if (!m) return mlc_ctx_free(ctx);
  uint64_t w = mlc_tune_workload_hash(ctx, m->funcs[0].prim);
  /* the last: env.matmul on mm_relu's param shapes (A 16x32, B 32x24, C 16x24) */
  MlcTuneCandidate c[5] = {cand(w, "mm_relu", split_trace, 0, "[1]"),
                           cand(w, "mm_relu", "b0 = sch.get_block(\"nope\")\n", 1, "[2]"),
                           cand(w, "no_such_func", split_trace, 2, "[3]"),
                           cand(w, "mm_relu", reorder_trace, 3, "[4]"),
                           cand(w, "mm_relu", "", 0, "[]")};
  c[4].library = "env.matmul";
  const char *cands = tmp_path("cands.jsonl"), *art = tmp_path("art"), *res = tmp_path("res.jsonl");
  CHECK(mlc_tune_candidates_save(ctx, cands, c, 5));
  CHECK(mlc_tune_build_artifact(ctx, cands, art, &quick));
  CHECK(access(tmp_path("art/index.jsonl"), R_OK) == 0);
  CHECK(mlc_tune_measure_artifact(ctx, art, res, &quick));
  MlcTuneDB *db = mlc_tune_db_new();
  CHECK(mlc_tune_db_load(ctx, db, res, false) && mlc_tune_db_size(db) == 5);
  MlcTuneTarget host;
  mlc_tune_target_host(&host, 1);
  for (int i = 0; i < 5 && mlc_tune_db_size(db) == 5; i++) {
    const MlcTuneRecord *r = mlc_tune_db_at(db, i);
    CHECK(r->workload == w && r->space == c[i].space && !strcmp(r->decisions, c[i].decisions));
    CHECK(mlc_tune_target_equal(&r->target, &host) && r->weight == 1);
    bool good = i == 0 || i == 3 || i == 4;
    CHECK(good ? r->seconds > 0 && !r->error && r->gflops > 0 : r->seconds < 0 && r->error);
    CHECK((r->library != NULL) == (i == 4));
  }
  if (mlc_tune_db_size(db) == 5) {
    CHECK(strstr(mlc_tune_db_at(db, 1)->error, "nope") != NULL);
    CHECK(strstr(mlc_tune_db_at(db, 2)->error, "no prim func no_such_func") != NULL);
    CHECK(mlc_tune_db_best_library(db, w, &host) == mlc_tune_db_at(db, 4));
  }
  /* the records merge like any others and the best applies correctly */
  int applied = 0;
  MlcModule *out = mlc_tune_apply(ctx, m, db, &host, &applied, NULL);
  CHECK(out && applied == 1 && same_result(ctx, m->funcs[0].prim, out->funcs[0].prim));
  mlc_tune_db_free(db);
  mlc_ctx_free(ctx);
}

/* bad files: errors that name the file and line; nothing loaded from
 * outside the artifact */
static void test_artifact_bad_files(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const char *bad = tmp_path("bad.jsonl");
  CHECK(write_text(bad, "{\"workload\":\"00000000000000aa\",\"func\":\"f\",\"trace\":\"\",\"program\":\"\",\"space\":0}\n"
                        "[1, 2\n"));
  CHECK(!mlc_tune_build_artifact(ctx, bad, tmp_path("art_bad"), &quick));
  CHECK(strstr(mlc_error_msg(ctx), "bad.jsonl:2: not a JSON object") != NULL);
  mlc_clear_error(ctx);
  CHECK(write_text(bad, "\n{\"workload\":\"00000000000000aa\",\"func\":\"f\",\"program\":\"\",\"space\":0}\n"));
  CHECK(!mlc_tune_build_artifact(ctx, bad, tmp_path("art_bad"), &quick));
  CHECK(strstr(mlc_error_msg(ctx), "bad.jsonl:2: a candidate needs") != NULL);
  mlc_clear_error(ctx);
  CHECK(write_text(bad, "{\"workload\":\"xyz\",\"func\":\"f\",\"trace\":\"\",\"program\":\"\",\"space\":0}\n"));
  CHECK(!mlc_tune_build_artifact(ctx, bad, tmp_path("art_bad"), &quick));
  CHECK(strstr(mlc_error_msg(ctx), "bad.jsonl:1: \"workload\" must be 16 hex digits") != NULL);
  mlc_clear_error(ctx);
  CHECK(!mlc_tune_build_artifact(ctx, tmp_path("absent.jsonl"), tmp_path("art_bad"), &quick));
  mlc_clear_error(ctx);
  /* an index pointing outside its artifact */
  const char *dir = tmp_path("art_evil");
  CHECK(mkdir(dir, 0777) == 0);
  CHECK(write_text(tmp_path("art_evil/index.jsonl"),
                   "{\"workload\":\"00000000000000aa\",\"func\":\"f\",\"trace\":\"\",\"space\":0,\"so\":\"../x.so\",\"index\":0}\n"));
  CHECK(!mlc_tune_measure_artifact(ctx, dir, tmp_path("evil.jsonl"), &quick));
  CHECK(strstr(mlc_error_msg(ctx), "index.jsonl:1: \"so\" must name a .so file of the artifact") != NULL);
  mlc_clear_error(ctx);
  CHECK(!mlc_tune_measure_artifact(ctx, tmp_path("art_none"), tmp_path("none.jsonl"), &quick));
  mlc_clear_error(ctx);
  mlc_ctx_free(ctx);
}

/* with the caches flushed before each timed call, candidates still time */
static void test_flush_cache(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "mm_relu.py", mm_relu_src, strlen(mm_relu_src));
  CHECK(m);
  if (!m) return mlc_ctx_free(ctx);
  const MlcPrimFunc *c[2] = {m->funcs[0].prim, m->funcs[0].prim};
  MlcTuneMeasureOptions o = quick;
  o.workdir = tmpdir;
  o.flush_cache = true;
  MlcTuneResult r[2];
  CHECK(mlc_tune_measure(ctx, c, 2, &o, r));
  CHECK(r[0].seconds > 0 && r[1].seconds > 0 && !r[0].error[0]);
  mlc_ctx_free(ctx);
}

static int count_lines(const char *path) {
  FILE *f = fopen(path, "r");
  int n = 0, ch;
  if (!f) return -1;
  while ((ch = fgetc(f)) != EOF) n += ch == '\n';
  fclose(f);
  return n;
}

/* a tuning run measured through `sh -c` (which logs each launch), and
 * launchers that fail */
static void test_launcher(void) {
  const char *mlcc = getenv("MLCC");
  char abs[4096], cwd[2048];
  if (mlcc && mlcc[0] != '/' && getcwd(cwd, sizeof cwd)) snprintf(abs, sizeof abs, "%s/%s", cwd, mlcc);
  else if (mlcc) snprintf(abs, sizeof abs, "%s", mlcc);
  if (!mlcc || access(abs, X_OK) != 0) {
    printf("skip test_launcher: $MLCC (the mlcc executable) is not set\n");
    return;
  }
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "mm_relu.py", mm_relu_src, strlen(mm_relu_src));
  CHECK(m);
  if (!m) return mlc_ctx_free(ctx);
  const char *log = tmp_path("launch.log"), *db_path = tmp_path("launched.jsonl");
  char prefix[512];
  snprintf(prefix, sizeof prefix, "sh -c 'echo launched >>%s; exec \"$0\" \"$@\"'", log);
  MlcTuneLauncher l = {.prefix = prefix, .mlcc = abs};
  MlcSchTarget st;
  mlc_sch_target_host(&st);
  MlcTuneTarget host, tt;
  mlc_tune_target_host(&host, 1);
  MlcTuneOptions o = {.trials = 4, .batch = 2, .seed = 3, .db_path = db_path, .launcher = &l, .measure = quick};
  o.measure.workdir = tmpdir;
  CHECK(mlc_tune_launcher_target(ctx, &l, &host, &o.measure, &tt) && mlc_tune_target_equal(&tt, &host));
  MlcTuneDB *db = mlc_tune_db_new();
  CHECK(mlc_tune_module(ctx, m, db, &st, &tt, &o));
  CHECK(count_lines(db_path) == 4 && count_lines(log) == 3); /* the target, then two batches */
  int applied = 0;
  MlcModule *out = mlc_tune_apply(ctx, m, db, &host, &applied, NULL);
  CHECK(out && applied == 1 && same_result(ctx, m->funcs[0].prim, out->funcs[0].prim));
  mlc_tune_db_free(db);
  /* a launcher that fails, or runs nothing, is an error of the run */
  MlcTuneLauncher broken = {.prefix = "false", .mlcc = abs}, idle = {.prefix = "true", .mlcc = abs};
  CHECK(!mlc_tune_launcher_target(ctx, &broken, &host, &o.measure, &tt));
  CHECK(strstr(mlc_error_msg(ctx), "exited with status 1") != NULL);
  mlc_clear_error(ctx);
  MlcTuneCandidate c = {.program = mm_relu_src, .func = "mm_relu", .trace = split_trace, .workload = 1, .decisions = "[]"};
  MlcTuneResult r;
  CHECK(!mlc_tune_measure_launched(ctx, &idle, &c, 1, &o.measure, &r, NULL));
  CHECK(strstr(mlc_error_msg(ctx), "brought no results back") != NULL);
  mlc_clear_error(ctx);
  /* a launch past its time is ended */
  MlcTuneLauncher slow = {.prefix = "sleep 30;", .mlcc = abs, .timeout_s = 1};
  CHECK(!mlc_tune_measure_launched(ctx, &slow, &c, 1, &o.measure, &r, NULL));
  CHECK(strstr(mlc_error_msg(ctx), "took longer than 1 s") != NULL);
  mlc_clear_error(ctx);
  mlc_ctx_free(ctx);
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/mlcc_tune_remote_XXXXXX");
  if (!mkdtemp(tmpdir)) return 1;
  RUN(test_artifact_roundtrip);
  RUN(test_artifact_bad_files);
  RUN(test_flush_cache);
  RUN(test_launcher);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  if (system(cmd) != 0) return 1;
  return CHECK_DONE();
}
