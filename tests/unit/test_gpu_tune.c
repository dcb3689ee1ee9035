/* test_gpu_tune.c - tuning for a GPU target: a 64^3 matmul's GPU design
 * space (tiles drawn for blocks, threads and registers, inputs staged in
 * shared memory, unroll), a few candidates built for OpenCL and timed
 * on the first OpenCL device (PoCL's CPU device without a GPU) through the
 * tuner's builder and runner, the records saved for that device; the best
 * record applied and run on OpenCL gives the reference interpreter's
 * answers, and a CPU target ignores the records; the same through a
 * launcher (the artifact built here, measured by `mlcc tune-measure` on the
 * launched side's device).  Skipped without an OpenCL device. */
#include "build_util.h"
#include "check.h"
#include "mlcc/interp.h"
#include "mlcc/tune.h"

#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

static const char MM[] =
    "from tvm.script import ir as I\n"
    "from tvm.script import tir as T\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def mm(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64, 64), \"float32\"), C: T.Buffer((64, 64), \"float32\")):\n"
    "        T.func_attr({\"global_symbol\": \"mm\", \"tir.noalias\": True})\n"
    "        for i, j, k in T.grid(64, 64, 64):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                with T.init():\n"
    "                    C[vi, vj] = T.float32(0)\n"
    "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

static char tmpdir[4096];

/* the tuned module run on OpenCL agrees with the interpreter on the original */
static bool runs_like_interpreter_here(MlcCtx *ctx, const MlcPrimFunc *ref, const MlcModule *tuned) {
  static float a[64 * 64], b[64 * 64], want[64 * 64], got[64 * 64];
  for (int i = 0; i < 64 * 64; i++) a[i] = (float)((i * 37) % 19) / 7 - 1.2f, b[i] = (float)((i * 11) % 23) / 9 - 1.1f;
  memset(want, 0, sizeof want);
  memset(got, 0, sizeof got);
  int64_t shape[2] = {64, 64};
  float *data_w[3] = {a, b, want}, *data_g[3] = {a, b, got};
  MlcInterpArg ia[3];
  for (int i = 0; i < 3; i++) ia[i] = (MlcInterpArg){.is_buffer = true, .data = data_w[i], .ndim = 2, .shape = shape};
  if (!mlc_interp_run(ctx, ref, ia, 3)) return bu_print_error(ctx, "interpreter"), false;
  MlcBuildOptions opt = {.target = MLC_TARGET_GENERIC, .gpu = MLC_GPU_OPENCL};
  MlcrtModule *mod = bu_build_and_load(ctx, tuned, tmpdir, "tuned", &opt);
  if (!mod) return false;
  DLTensor t[3];
  MlcrtValue v[3];
  for (int i = 0; i < 3; i++) {
    t[i] = (DLTensor){.data = data_g[i], .device = {kDLCPU, 0}, .ndim = 2, .dtype = {kDLFloat, 32, 1}, .shape = shape};
    v[i].tensor = &t[i];
  }
  bool ok = mlcrt_func_call(mlcrt_module_get_func(mod, "mm"), v, 3) == 0;
  if (!ok) printf("    run: %s\n", mlcrt_last_error());
  for (int i = 0; ok && i < 64 * 64; i++) ok = fabsf(got[i] - want[i]) <= 1e-4f * fmaxf(1.0f, fabsf(want[i]));
  mlcrt_module_free(mod);
  return ok;
}

/* the above in a child process that leaves by _exit: the OpenCL
 * implementation's worker threads then never live in this process, whose
 * exit (with the sanitizers' leak check, which stops every thread) stays
 * single-threaded */
static bool runs_like_interpreter(MlcCtx *ctx, const MlcPrimFunc *ref, const MlcModule *tuned) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    bool ok = runs_like_interpreter_here(ctx, ref, tuned);
    fflush(NULL);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void test_tune_on_opencl(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const MlcModule *m = bu_read_text(ctx, "mm.py", MM);
  CHECK(m != NULL);
  if (!m) return;
  MlcSchTarget st;
  mlc_sch_target_host(&st);
  st.gpu = MLC_GPU_OPENCL;
  MlcTuneTarget tt, cpu;
  mlc_tune_target_gpu(&tt, MLC_GPU_OPENCL);
  mlc_tune_target_host(&cpu, 1);
  CHECK(!strcmp(tt.features, "opencl") && strcmp(tt.cpu, "no device"));
  /* the space draws the tile sizes and stages the inputs in shared memory */
  MlcSchedule *sp[MLC_TUNE_MAX_SPACES];
  int n = mlc_tune_spaces(ctx, m, "mm", &st, sp, MLC_TUNE_MAX_SPACES);
  CHECK(n == 1);
  if (n == 1) {
    MlcStrBuf trace = {0};
    mlc_sch_print_trace(sp[0], &trace);
    CHECK(strstr(mlc_sb_cstr(&trace), "sample_perfect_tile") && strstr(mlc_sb_cstr(&trace), "\"shared\"") &&
          strstr(mlc_sb_cstr(&trace), "threadIdx.y") && strstr(mlc_sb_cstr(&trace), "sample_categorical"));
    mlc_vec_free(&trace);
    mlc_sch_free(sp[0]);
  }
  char path[4200];
  snprintf(path, sizeof path, "%s/gpu.jsonl", tmpdir);
  MlcBuildOptions build = {.target = MLC_TARGET_GENERIC, .gpu = MLC_GPU_OPENCL};
  MlcTuneDB *db = mlc_tune_db_new();
  MlcTuneOptions o = {.trials = 6, .batch = 6, .seed = 5, .epsilon = 0.25, .db_path = path,
                      .measure = {.repeat = 2, .min_repeat_ms = 1, .timeout_s = 60, .threads = 1, .workdir = tmpdir,
                                  .build = &build}};
  CHECK(mlc_tune_module(ctx, m, db, &st, &tt, &o));
  CHECK(mlc_tune_db_size(db) == 6);
  int timed = 0;
  for (int i = 0; i < mlc_tune_db_size(db); i++) {
    const MlcTuneRecord *r = mlc_tune_db_at(db, i);
    CHECK(mlc_tune_target_equal(&r->target, &tt));
    timed += r->seconds > 0;
  }
  CHECK(timed >= 1);
  const MlcTuneRecord *best = mlc_tune_db_best(db, mlc_tune_workload_hash(ctx, m->funcs[0].prim), &tt);
  CHECK(best && strstr(best->trace, "threadIdx.x"));
  int applied = 0;
  MlcModule *tuned = mlc_tune_apply(ctx, m, db, &tt, &applied, NULL);
  CHECK(tuned && applied == 1 && runs_like_interpreter(ctx, m->funcs[0].prim, tuned));
  /* records of the device never apply to the CPU */
  CHECK(mlc_tune_apply(ctx, m, db, &cpu, &applied, NULL) && applied == 0);
  CHECK(mlc_tune_db_count_other(db, &cpu) == 6);
  mlc_tune_db_free(db);
  mlc_ctx_free(ctx);
}

/* the same tuning measured through a launcher (`sh -c`, which logs each
 * launch): the launched side names its OpenCL device, builds nothing, and
 * its records carry that device */
static void test_tune_on_opencl_launched(void) {
  const char *mlcc = getenv("MLCC");
  char abs[4096], cwd[2048];
  if (mlcc && mlcc[0] != '/' && getcwd(cwd, sizeof cwd)) snprintf(abs, sizeof abs, "%s/%s", cwd, mlcc);
  else if (mlcc) snprintf(abs, sizeof abs, "%s", mlcc);
  if (!mlcc || access(abs, X_OK) != 0) {
    printf("skip test_tune_on_opencl_launched: $MLCC (the mlcc executable) is not set\n");
    return;
  }
  MlcCtx *ctx = mlc_ctx_new();
  const MlcModule *m = bu_read_text(ctx, "mm.py", MM);
  CHECK(m != NULL);
  if (!m) return mlc_ctx_free(ctx);
  MlcSchTarget st;
  mlc_sch_target_host(&st);
  st.gpu = MLC_GPU_OPENCL;
  MlcTuneTarget dev, tt;
  mlc_tune_target_gpu(&dev, MLC_GPU_OPENCL);
  char log[4200], path[4200], prefix[4400];
  snprintf(log, sizeof log, "%s/launch.log", tmpdir);
  snprintf(path, sizeof path, "%s/launched.jsonl", tmpdir);
  snprintf(prefix, sizeof prefix, "sh -c 'echo launched >>%s; exec \"$0\" \"$@\"'", log);
  MlcTuneLauncher l = {.prefix = prefix, .mlcc = abs};
  MlcBuildOptions build = {.target = MLC_TARGET_GENERIC, .gpu = MLC_GPU_OPENCL};
  MlcTuneOptions o = {.trials = 4, .batch = 2, .seed = 7, .db_path = path, .launcher = &l,
                      .measure = {.repeat = 2, .min_repeat_ms = 1, .timeout_s = 60, .threads = 1, .workdir = tmpdir,
                                  .build = &build}};
  CHECK(mlc_tune_launcher_target(ctx, &l, &dev, &o.measure, &tt) && mlc_tune_target_equal(&tt, &dev));
  MlcTuneDB *db = mlc_tune_db_new();
  CHECK(mlc_tune_module(ctx, m, db, &st, &tt, &o));
  CHECK(mlc_tune_db_size(db) == 4);
  int timed = 0;
  for (int i = 0; i < mlc_tune_db_size(db); i++) {
    const MlcTuneRecord *r = mlc_tune_db_at(db, i);
    CHECK(mlc_tune_target_equal(&r->target, &dev));
    timed += r->seconds > 0;
  }
  CHECK(timed >= 1);
  FILE *f = fopen(log, "r");
  int launches = 0;
  for (int ch; f && (ch = fgetc(f)) != EOF;) launches += ch == '\n';
  if (f) fclose(f);
  CHECK(launches == 3); /* the target, then two batches */
  const MlcTuneRecord *best = mlc_tune_db_best(db, mlc_tune_workload_hash(ctx, m->funcs[0].prim), &dev);
  CHECK(best && strstr(best->trace, "threadIdx.x"));
  int applied = 0;
  MlcModule *tuned = mlc_tune_apply(ctx, m, db, &dev, &applied, NULL);
  CHECK(tuned && applied == 1 && runs_like_interpreter(ctx, m->funcs[0].prim, tuned));
  mlc_tune_db_free(db);
  mlc_ctx_free(ctx);
}

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-gpu-tune")) return 1;
  /* whether there is a device, asked in a child: this process forks the
   * measuring children, which must not inherit the API's threads */
  MlcTuneTarget probe;
  mlc_tune_target_gpu(&probe, MLC_GPU_OPENCL);
  if (!strcmp(probe.cpu, "no device")) printf("skip test_gpu_tune: no OpenCL device\n");
  else {
    RUN(test_tune_on_opencl_launched);
    RUN(test_tune_on_opencl);
  }
  bu_remove_dir(tmpdir);
  return CHECK_DONE();
}
