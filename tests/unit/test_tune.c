/* test_tune.c - the tuner's foundation: records round-trip through JSON
 * lines, files merge, records are keyed by target and applied only on
 * theirs, design spaces replay into programs that compute what the
 * unscheduled function computes (the reference interpreter is the oracle),
 * and measuring survives a crashing candidate. */
#include "check.h"
#include "mlcc/support.h"
#include "mlcc/ir.h"
#include "mlcc/text.h"
#include "mlcc/interp.h"
#include "mlcc/tune.h"
#include "tune/search_internal.h"
#include "tune_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static MlcModule *load(MlcCtx *ctx) { return mlc_read_module(ctx, "mm_relu.py", mm_relu_src, strlen(mm_relu_src)); }

static MlcTuneRecord rec(uint64_t w, const MlcTuneTarget *t, const char *trace, double secs) {
  return (MlcTuneRecord){.workload = w, .target = *t, .func = "mm_relu", .trace = trace, .space = 1,
                         .decisions = "[[2,2,2,2]]", .seconds = secs};
}

static void test_records_roundtrip(void) {
  MlcTuneTarget t;
  mlc_tune_target_host(&t, 2);
  MlcTuneDB *db = mlc_tune_db_new();
  MlcTuneRecord r = rec(0x0123456789abcdefull, &t, "b0 = sch.get_block(\"Y\")\n\"quoted\"", 1.5e-5);
  r.gflops = 12.5;
  MlcTuneRecord f = rec(0x42, &t, "x", -1);
  f.error = "crashed (signal 11)";
  mlc_tune_db_add(db, &r);
  mlc_tune_db_add(db, &f);
  MlcCtx *ctx = mlc_ctx_new();
  CHECK(mlc_tune_db_save(ctx, db, tmp_path("a.jsonl")));
  MlcTuneDB *back = mlc_tune_db_new();
  CHECK(mlc_tune_db_load(ctx, back, tmp_path("a.jsonl"), false));
  CHECK(mlc_tune_db_size(back) == 2);
  const MlcTuneRecord *x = mlc_tune_db_at(back, 0), *y = mlc_tune_db_at(back, 1);
  CHECK(x->workload == r.workload && x->seconds == r.seconds && x->gflops == 12.5 && x->space == 1);
  CHECK_STR(x->trace, r.trace);
  CHECK_STR(x->decisions, "[[2,2,2,2]]");
  CHECK(mlc_tune_target_equal(&x->target, &t));
  CHECK(y->seconds < 0 && y->error && !strcmp(y->error, "crashed (signal 11)"));
  CHECK(mlc_tune_db_best(back, 0x42, &t) == NULL); /* a failed record is never the best */
  mlc_tune_db_free(db);
  mlc_tune_db_free(back);
  mlc_ctx_free(ctx);
}

static void test_records_merge_and_target(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcTuneTarget t, other;
  mlc_tune_target_host(&t, 2);
  other = t;
  other.threads = 3;
  MlcTuneRecord a = rec(7, &t, "a", 3e-5), b = rec(7, &t, "b", 2e-5), c = rec(7, &other, "c", 1e-5);
  CHECK(mlc_tune_record_append(ctx, tmp_path("m1.jsonl"), &a));
  CHECK(mlc_tune_record_append(ctx, tmp_path("m2.jsonl"), &b));
  CHECK(mlc_tune_record_append(ctx, tmp_path("m2.jsonl"), &c));
  MlcTuneDB *db = mlc_tune_db_new();
  CHECK(mlc_tune_db_load(ctx, db, tmp_path("m1.jsonl"), false));
  CHECK(mlc_tune_db_load(ctx, db, tmp_path("m2.jsonl"), false));
  CHECK(mlc_tune_db_size(db) == 3);
  const MlcTuneRecord *best = mlc_tune_db_best(db, 7, &t);
  CHECK(best && !strcmp(best->trace, "b")); /* c is faster but measured with 3 threads */
  const MlcTuneRecord *o = mlc_tune_db_best(db, 7, &other);
  CHECK(o && !strcmp(o->trace, "c"));
  MlcTuneTarget cpu = t;
  snprintf(cpu.cpu, sizeof cpu.cpu, "Another CPU");
  CHECK(mlc_tune_db_best(db, 7, &cpu) == NULL);
  /* a missing file: an error unless asked to accept it */
  CHECK(!mlc_tune_db_load(ctx, db, tmp_path("none.jsonl"), false));
  mlc_clear_error(ctx);
  CHECK(mlc_tune_db_load(ctx, db, tmp_path("none.jsonl"), true));
  mlc_tune_db_free(db);
  mlc_ctx_free(ctx);
}

static void test_records_bad_lines(void) {
  MlcCtx *ctx = mlc_ctx_new();
  static const struct { const char *text, *msg; } cases[] = {
      {"{\"workload\":\"zz\",\"trace\":\"\",\"target\":{\"cpu\":\"x\",\"features\":\"y\",\"threads\":1}}\n", ":1: tuning record: \"workload\""},
      {"\n[1,2]\n", ":2: tuning record: not a JSON object"},
      {"{\"workload\":\"1\",\"trace\":\"\"}\n", "missing \"target\""},
      {"{\"workload\":\"1\",\"trace\":\"\",\"target\":{\"cpu\":\"x\",\"features\":\"y\",\"threads\":0}}\n", "threads"},
      {"{\"workload\":\"1\",\"trace\":\"\",\"seconds\":-2,\"target\":{\"cpu\":\"x\",\"features\":\"y\",\"threads\":1}}\n", "\"seconds\""},
      {"{\"workload\":\"1\",\"trace\":\"\",\"space\":-2,\"target\":{\"cpu\":\"x\",\"features\":\"y\",\"threads\":1}}\n", "\"space\" out of range"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    CHECK(mlc_write_file(ctx, tmp_path("bad.jsonl"), cases[i].text, strlen(cases[i].text)));
    MlcTuneDB *db = mlc_tune_db_new();
    CHECK(!mlc_tune_db_load(ctx, db, tmp_path("bad.jsonl"), false));
    CHECK(strstr(mlc_error_msg(ctx), cases[i].msg) != NULL);
    CHECK(strstr(mlc_error_msg(ctx), "bad.jsonl:") != NULL);
    mlc_clear_error(ctx);
    mlc_tune_db_free(db);
  }
  /* a last line cut short (a run stopped while writing it) loses only itself */
  MlcTuneTarget t;
  mlc_tune_target_host(&t, 1);
  MlcTuneRecord r = rec(9, &t, "t", 1e-3);
  unlink(tmp_path("cut.jsonl"));
  CHECK(mlc_tune_record_append(ctx, tmp_path("cut.jsonl"), &r));
  FILE *f = fopen(tmp_path("cut.jsonl"), "a");
  fputs("{\"workload\":\"9\",\"tra", f);
  fclose(f);
  MlcTuneDB *db = mlc_tune_db_new();
  CHECK(mlc_tune_db_load(ctx, db, tmp_path("cut.jsonl"), false) && mlc_tune_db_size(db) == 1);
  mlc_tune_db_free(db);
  mlc_ctx_free(ctx);
}

static void test_apply_records(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = load(ctx);
  CHECK(m);
  if (!m) return;
  const MlcPrimFunc *f = m->funcs[0].prim;
  uint64_t w = mlc_tune_workload_hash(ctx, f);
  /* the key ignores the function's name and attributes, not its loops */
  MlcPrimFunc renamed = *f;
  renamed.name = mlc_intern(ctx, "other_name");
  CHECK(mlc_tune_workload_hash(ctx, &renamed) == w);
  MlcTuneTarget t, other;
  mlc_tune_target_host(&t, 2);
  other = t;
  snprintf(other.features, sizeof other.features, "march=x86-64-v2");
  MlcTuneDB *db = mlc_tune_db_new();
  MlcTuneRecord foreign = rec(w, &other, split_trace, 1e-9);
  mlc_tune_db_add(db, &foreign);
  int applied = -1, failed = -1;
  MlcModule *out = mlc_tune_apply(ctx, m, db, &t, &applied, &failed);
  CHECK(out == m && applied == 0 && failed == 0); /* another target's record is not applied */
  MlcTuneRecord mine = rec(w, &t, split_trace, 1e-3);
  mlc_tune_db_add(db, &mine);
  out = mlc_tune_apply(ctx, m, db, &t, &applied, &failed);
  CHECK(out && applied == 1 && failed == 0);
  if (out) {
    const MlcPrimFunc *g = out->funcs[0].prim;
    CHECK(mlc_attrs_get(g->attrs, mlc_intern(ctx, "tuned")) != NULL);
    CHECK(!mlc_prim_func_equal(f, g));
    CHECK(same_result(ctx, f, g));
    MlcStrBuf sb = {0};
    mlc_print_module(out, &sb);
    CHECK(strstr(mlc_sb_cstr(&sb), "T.vectorized(8)") != NULL);
    mlc_vec_free(&sb);
  }
  /* a record whose script no longer applies: counted, function kept */
  MlcTuneDB *db2 = mlc_tune_db_new();
  MlcTuneRecord stale = rec(w, &t, "b0 = sch.get_block(\"nope\")\n", 1e-4);
  mlc_tune_db_add(db2, &stale);
  out = mlc_tune_apply(ctx, m, db2, &t, &applied, &failed);
  CHECK(out == m && applied == 0 && failed == 1 && !mlc_has_error(ctx));
  mlc_tune_db_free(db);
  mlc_tune_db_free(db2);
  mlc_ctx_free(ctx);
}

static void test_space_replays_correctly(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = load(ctx);
  CHECK(m);
  if (!m) return;
  MlcSchTarget st;
  mlc_sch_target_host(&st);
  MlcSchedule *spaces[MLC_TUNE_MAX_SPACES];
  int n = mlc_tune_spaces(ctx, m, "mm_relu", &st, spaces, MLC_TUNE_MAX_SPACES);
  CHECK(n == 4); /* the epilogue at the root, under S0, under S1; the default rules' */
  MlcStrBuf sb = {0};
  if (n > 0) mlc_sch_print_trace(spaces[0], &sb);
  const char *txt = mlc_sb_cstr(&sb);
  CHECK(strstr(txt, "sch.sample_perfect_tile(") && strstr(txt, "sch.sample_categorical(") &&
        strstr(txt, "sch.parallel(") && strstr(txt, "auto_unroll_max_step"));
  mlc_vec_free(&sb);
  int good = 0;
  for (int k = 0; k < 12; k++) {
    MlcSchedule *c = mlc_sch_new(ctx, m, "mm_relu", 1000 + (uint64_t)k);
    MlcSchedule *sp = spaces[k % n];
    if (!mlc_sch_replay(c, sp, NULL, 0) || !mlc_tune_postprocess(c, &st)) {
      mlc_clear_error(ctx);
      mlc_sch_free(c);
      continue;
    }
    good++;
    CHECK(same_result(ctx, m->funcs[0].prim, mlc_sch_func(c)));
    /* the same decisions replay to the same program; the candidate's
     * script replays alone */
    MlcSchVal d[64];
    int nd = mlc_sch_decisions(c, d, 64);
    MlcSchedule *again = mlc_sch_new(ctx, m, "mm_relu", 1);
    CHECK(mlc_sch_replay(again, sp, d, nd) && mlc_tune_postprocess(again, &st));
    CHECK(mlc_prim_func_equal(mlc_sch_func(again), mlc_sch_func(c)));
    MlcStrBuf script = {0};
    mlc_sch_print_trace(c, &script);
    MlcSchedule *replayed = mlc_sch_new(ctx, m, "mm_relu", 0);
    CHECK(mlc_sch_run_script(replayed, "cand", script.data, script.len));
    CHECK(mlc_prim_func_equal(mlc_sch_func(replayed), mlc_sch_func(c)));
    mlc_vec_free(&script);
    mlc_sch_free(again);
    mlc_sch_free(replayed);
    mlc_sch_free(c);
  }
  CHECK(good >= 6);
  /* the default rules' space: its register tile drawn; decisions all 0
   * replay the default schedule */
  if (n == 4) {
    MlcStrBuf d = {0};
    mlc_sch_print_trace(spaces[3], &d);
    CHECK(strstr(mlc_sb_cstr(&d), "sch.sample_categorical(") && strstr(mlc_sb_cstr(&d), "sch.cache_write("));
    mlc_vec_free(&d);
    MlcSchVal zero[64];
    MlcSchVal probe[64];
    int nd = mlc_sch_decisions(spaces[3], probe, 64);
    CHECK(nd >= 2);
    for (int i = 0; i < nd && i < 64; i++) zero[i] = (MlcSchVal){.kind = MLC_SV_INT, .i = 0};
    MlcSchedule *z = mlc_sch_new(ctx, m, "mm_relu", 7), *def = mlc_sch_new(ctx, m, "mm_relu", 0);
    CHECK(mlc_sch_replay(z, spaces[3], zero, nd) && mlc_sch_apply_default(def, &st));
    CHECK(mlc_prim_func_equal(mlc_sch_func(z), mlc_sch_func(def)));
    mlc_sch_free(z);
    mlc_sch_free(def);
  }
  for (int i = 0; i < n; i++) mlc_sch_free(spaces[i]);
  mlc_ctx_free(ctx);
}


static const char *faulty_src =
    "from tvm.script import ir as I\n"
    "from tvm.script import tir as T\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def good(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
    "        for i in range(64):\n"
    "            with T.block(\"B\"):\n"
    "                vi = T.axis.spatial(64, i)\n"
    "                B[vi] = A[vi] * T.float32(2)\n"
    "    @T.prim_func\n"
    "    def crash(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
    "        for i in range(64):\n"
    "            B[i * 1073741824] = A[i]\n"
    "    @T.prim_func\n"
    "    def hang(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
    "        for t in range(1073741824):\n"
    "            for u in range(1073741824):\n"
    "                for i in range(64):\n"
    "                    B[i] = A[i] + B[i]\n"
    "    @T.prim_func\n"
    "    def wrong(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
    "        for i in range(64):\n"
    "            B[i] = A[i] * T.float32(3)\n";

static const MlcPrimFunc *func_named(const MlcModule *m, const char *name) {
  for (int i = 0; i < m->n_funcs; i++)
    if (!strcmp(m->funcs[i].name, name)) return m->funcs[i].prim;
  return NULL;
}

/* a crashing and a hanging candidate cost their own results only */
static void test_measure_survives_faults(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "faulty.py", faulty_src, strlen(faulty_src));
  CHECK(m);
  if (!m) return;
  const MlcPrimFunc *c[4] = {func_named(m, "good"), func_named(m, "crash"), func_named(m, "hang"), func_named(m, "good")};
  MlcTuneMeasureOptions o = {.repeat = 2, .min_repeat_ms = 1, .timeout_s = 1, .threads = 1, .workdir = tmpdir};
  MlcTuneResult r[4];
  CHECK(mlc_tune_measure(ctx, c, 4, &o, r));
  CHECK(r[0].seconds > 0 && !r[0].error[0]);
  CHECK(r[1].seconds < 0 && strstr(r[1].error, "crashed"));
  CHECK(r[2].seconds < 0 && strstr(r[2].error, "timed out"));
  CHECK(r[3].seconds > 0 && !r[3].error[0]);
  /* the check: the interpreter is the oracle */
  CHECK(mlc_tune_check(ctx, c[0], c[0], &o));
  CHECK(!mlc_tune_check(ctx, c[0], func_named(m, "wrong"), &o));
  CHECK(strstr(mlc_error_msg(ctx), "the interpreter says") != NULL);
  mlc_clear_error(ctx);
  mlc_ctx_free(ctx);
}

/* the model learns a known function of the features well enough to order
 * fresh samples by it */
static void test_cost_model_learns(void) {
  MlcCtx *ctx = mlc_ctx_new();
  enum { TRAIN = 80, TEST = 30 };
  static float x[TRAIN * MLC_TUNE_N_FEATURES], y[TRAIN], tx[TEST * MLC_TUNE_N_FEATURES], ty[TEST], p[TEST];
  uint64_t st = 99;
  for (int i = 0; i < TRAIN + TEST; i++) {
    float *row = i < TRAIN ? &x[i * MLC_TUNE_N_FEATURES] : &tx[(i - TRAIN) * MLC_TUNE_N_FEATURES];
    for (int f = 0; f < MLC_TUNE_N_FEATURES; f++) st = st * 6364136223846793005ull + 1, row[f] = (float)((st >> 40) % 800) / 100;
    float target = 1.0f / (1.0f + row[3]) + 0.1f * (row[7] > 4);
    if (i < TRAIN) y[i] = target;
    else ty[i - TRAIN] = target;
  }
  MlcTuneModel *m = mlc_tune_model_new(1);
  CHECK(mlc_tune_model_predict(ctx, m, tx, TEST, p) && p[0] == 0); /* untrained: no opinion */
  CHECK(mlc_tune_model_fit(ctx, m, x, y, TRAIN));
  CHECK(mlc_tune_model_predict(ctx, m, tx, TEST, p));
  int agree = 0, pairs = 0;
  for (int i = 0; i < TEST; i++)
    for (int j = i + 1; j < TEST; j++)
      if (fabsf(ty[i] - ty[j]) > 0.05f) pairs++, agree += (ty[i] > ty[j]) == (p[i] > p[j]);
  CHECK(pairs > 0 && agree >= pairs * 8 / 10);
  mlc_tune_model_free(m);
  mlc_ctx_free(ctx);
}

static bool task_init(Task *t, MlcCtx *ctx, const MlcModule *m, const MlcSchTarget *st, uint64_t seed) {
  memset(t, 0, sizeof *t);
  t->home = ctx, t->func = m->funcs[0].name, t->prim = m->funcs[0].prim;
  t->workload = mlc_tune_workload_hash(ctx, t->prim);
  t->best = -1, t->rng = seed, t->weight = 1;
  MlcStrBuf sb = {0};
  mlc_print_module(m, &sb);
  t->text = sb.data, t->text_len = sb.len;
  t->model = mlc_tune_model_new(seed);
  return tune_round_begin(t, st);
}

static void task_fini(Task *t) {
  tune_round_end(t);
  free(t->text);
  mlc_map_free(&t->seen);
  mlc_tune_model_free(t->model);
}

/* the same seed gives the same batch; its candidates are distinct */
static void test_search_deterministic(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = load(ctx);
  MlcSchTarget st;
  mlc_sch_target_host(&st);
  MlcTuneTarget tt;
  mlc_tune_target_host(&tt, 1);
  MlcTuneDB *db = mlc_tune_db_new();
  const char *keys[2][6];
  int got[2];
  for (int run = 0; run < 2; run++) {
    Task t;
    CHECK(task_init(&t, ctx, m, &st, 5));
    Cand c[6];
    got[run] = tune_search_batch(&t, db, &tt, &st, 0.2, c, 6);
    for (int i = 0; i < got[run]; i++) keys[run][i] = mlc_intern(ctx, c[i].key), tune_cand_free(&c[i]);
    task_fini(&t);
  }
  CHECK(got[0] == 6 && got[1] == 6);
  for (int i = 0; i < 6 && got[0] == 6 && got[1] == 6; i++) {
    CHECK(keys[0][i] == keys[1][i]);
    for (int j = 0; j < i; j++) CHECK(keys[0][i] != keys[0][j]);
  }
  mlc_tune_db_free(db);
  mlc_ctx_free(ctx);
}

static int count_lines(const char *path) {
  FILE *f = fopen(path, "r");
  int n = 0, c;
  if (!f) return -1;
  while ((c = fgetc(f)) != EOF) n += c == '\n';
  fclose(f);
  return n;
}

/* a short tuning run: records appended, no candidate measured twice (a
 * rerun continues from the file), the default rules' schedule among them
 * once, the best record applied computes what the unscheduled function
 * does, and so does the default's record alone */
static void test_tune_end_to_end(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = load(ctx);
  MlcSchTarget st;
  mlc_sch_target_host(&st);
  MlcTuneTarget tt;
  mlc_tune_target_host(&tt, 1);
  const char *path = tmp_path("tune.jsonl");
  unlink(path);
  for (int run = 0; run < 2; run++) {
    MlcTuneDB *db = mlc_tune_db_new();
    CHECK(mlc_tune_db_load(ctx, db, path, true));
    MlcTuneOptions o = {.trials = 4, .batch = 4, .seed = 3, .epsilon = 0.25, .db_path = path,
                        .measure = {.repeat = 2, .min_repeat_ms = 1, .timeout_s = 10, .threads = 1, .workdir = tmpdir}};
    CHECK(mlc_tune_module(ctx, m, db, &st, &tt, &o));
    mlc_tune_db_free(db);
    CHECK(count_lines(path) == 4 * (run + 1));
  }
  MlcTuneDB *db = mlc_tune_db_new();
  CHECK(mlc_tune_db_load(ctx, db, path, false) && mlc_tune_db_size(db) == 8);
  for (int i = 0; i < mlc_tune_db_size(db); i++)
    for (int j = 0; j < i; j++) {
      const MlcTuneRecord *a = mlc_tune_db_at(db, i), *b = mlc_tune_db_at(db, j);
      CHECK(!(a->space == b->space && !strcmp(a->decisions, b->decisions)));
    }
  const MlcTuneRecord *best = mlc_tune_db_best(db, mlc_tune_workload_hash(ctx, m->funcs[0].prim), &tt);
  CHECK(best && best->gflops > 0 && best->weight == 1 && !strcmp(best->func, "mm_relu"));
  int applied = 0;
  MlcModule *out = mlc_tune_apply(ctx, m, db, &tt, &applied, NULL);
  CHECK(out && applied == 1 && same_result(ctx, m->funcs[0].prim, out->funcs[0].prim));
  MlcTuneDB *def = mlc_tune_db_new();
  int n_default = 0;
  for (int i = 0; i < mlc_tune_db_size(db); i++) {
    const MlcTuneRecord *r = mlc_tune_db_at(db, i);
    if (r->space != MLC_TUNE_DEFAULT_SPACE) continue;
    n_default++;
    CHECK(r->seconds > 0 && !strcmp(r->decisions, "[]") && strstr(r->trace, "sch.") != NULL);
    mlc_tune_db_add(def, r);
  }
  CHECK(n_default == 1);
  applied = 0;
  out = mlc_tune_apply(ctx, m, def, &tt, &applied, NULL);
  CHECK(out && applied == 1 && out->funcs[0].prim != m->funcs[0].prim &&
        same_result(ctx, m->funcs[0].prim, out->funcs[0].prim));
  mlc_tune_db_free(def);
  mlc_tune_db_free(db);
  mlc_ctx_free(ctx);
}

/* a nest deeper than the tuner looks at (40 loops): spaces, candidates and
 * features stay within their tables, and the candidate still computes */
static void test_deep_nest(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcStrBuf src = {0};
  mlc_sb_puts(&src, "from tvm.script import tir as T\n@T.prim_func\ndef deep(A: T.Buffer((2,), \"float32\")):\n");
  int depth = 40;
  for (int i = 0; i < depth; i++) mlc_sb_printf(&src, "%*sfor i%d in range(1):\n", 4 * (i + 1), "", i);
  mlc_sb_printf(&src, "%*sA[1] = A[0] + T.float32(1)\n", 4 * (depth + 1), "");
  MlcModule *m = mlc_read_module(ctx, "deep.py", src.data, src.len);
  mlc_vec_free(&src);
  CHECK(m);
  if (!m) return;
  MlcSchTarget st;
  mlc_sch_target_host(&st);
  MlcSchedule *sp[MLC_TUNE_MAX_SPACES];
  int n = mlc_tune_spaces(ctx, m, "deep", &st, sp, MLC_TUNE_MAX_SPACES);
  CHECK(n >= 1);
  float feat[MLC_TUNE_N_FEATURES];
  mlc_tune_features(m->funcs[0].prim, feat);
  CHECK(feat[5] == (float)depth); /* the loop depth, counted in full */
  for (int i = 0; i < n; i++) {
    MlcSchedule *c = mlc_sch_new(ctx, m, "deep", 1);
    CHECK(mlc_sch_replay(c, sp[i], NULL, 0) && mlc_tune_postprocess(c, &st));
    mlc_tune_features(mlc_sch_func(c), feat);
    mlc_sch_free(c);
    mlc_sch_free(sp[i]);
  }
  mlc_ctx_free(ctx);
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/mlcc_tune_XXXXXX");
  if (!mkdtemp(tmpdir)) return 1;
  RUN(test_records_roundtrip);
  RUN(test_records_merge_and_target);
  RUN(test_records_bad_lines);
  RUN(test_apply_records);
  RUN(test_space_replays_correctly);
  RUN(test_deep_nest);
  RUN(test_measure_survives_faults);
  RUN(test_cost_model_learns);
  RUN(test_search_deterministic);
  RUN(test_tune_end_to_end);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  if (system(cmd) != 0) return 1;
  return CHECK_DONE();
}
