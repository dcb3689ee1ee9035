/* cmd_tune.c - `mlcc tune`: search schedules for every kernel of a module
 * or model and save the measurements as tuning records.
 *
 *   mlcc tune MODEL.onnx|MODULE.py -o DB.jsonl [--trials N] [--time-budget 20m]
 *             [--threads N] [--batch N] [--seed N] [--timeout S] [--records MORE.jsonl]...
 *             [--target opencl|cuda] [--flush-cache] [--launcher 'CMD'] [--workdir DIR]
 *   mlcc tune MODULE.py --print-space
 *
 * With --launcher, each batch is built here into an artifact under
 * --workdir and measured by `CMD mlcc tune-measure ...` (srun, ssh node,
 * a script), whose records come back as a file (cmd_tune_steps.c).
 *
 * A module with graph functions (or an ONNX model) is taken through the
 * graph pipeline up to dead code, so the tasks are the kernels a build
 * compiles; a module of prim funcs is tuned as it is.  DB.jsonl is read
 * first when it exists (a rerun continues from it) and every measured
 * candidate is appended as it comes; Ctrl-C stops the run, keeping every
 * record measured (the candidate it interrupts is measured next time).
 * --target opencl|cuda tunes GPU schedules (the GPU design space, each
 * candidate run on the API's device) into records for that device. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mlcc/frontend.h"
#include "mlcc/tune.h"

typedef struct TuneArgs {
  const char *in, *out, *launcher, *workdir;
  const char *records[16];
  int n_records;
  bool print_space;
  MlcGpuApi gpu;
  MlcTuneOptions o;
} TuneArgs;

static volatile int stop_flag;
static void on_interrupt(int sig) { (void)sig, stop_flag = 1; }

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int parse(TuneArgs *a, int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    const char *s = argv[i];
    bool next = i + 1 < argc;
    long v;
    if (!strcmp(s, "-o") && next) a->out = argv[++i];
    else if (!strcmp(s, "--print-space")) a->print_space = true;
    else if (!strcmp(s, "--flush-cache")) a->o.measure.flush_cache = true;
    else if (!strcmp(s, "--launcher") && next) {
      if (!argv[++i][0]) return cli_bad_usage("tune: --launcher takes a command", argv[i]);
      a->launcher = argv[i];
    } else if (!strcmp(s, "--workdir") && next) a->workdir = argv[++i];
    else if (!strcmp(s, "--trials") && next) {
      if (!cli_parse_int(argv[++i], 1, 1000000, &v)) return cli_bad_usage("tune: --trials takes a count from 1", argv[i]);
      a->o.trials = (int)v;
    } else if (!strcmp(s, "--batch") && next) {
      if (!cli_parse_int(argv[++i], 1, 1024, &v)) return cli_bad_usage("tune: --batch takes 1 to 1024", argv[i]);
      a->o.batch = (int)v;
    } else if (!strcmp(s, "--threads") && next) {
      if (!cli_parse_int(argv[++i], 1, 4096, &v)) return cli_bad_usage("tune: --threads takes 1 to 4096", argv[i]);
      a->o.measure.threads = (int)v;
    } else if (!strcmp(s, "--seed") && next) {
      if (!cli_parse_int(argv[++i], 0, 2147483647, &v)) return cli_bad_usage("tune: --seed takes a number", argv[i]);
      a->o.seed = (uint64_t)v;
    } else if (!strcmp(s, "--time-budget") && next) {
      if (!cli_parse_duration(argv[++i], &a->o.time_budget_s))
        return cli_bad_usage("tune: --time-budget takes a duration like 90s, 20m or 1h", argv[i]);
    } else if (!strcmp(s, "--timeout") && next) {
      if (!cli_parse_duration(argv[++i], &a->o.measure.timeout_s))
        return cli_bad_usage("tune: --timeout takes a duration like 10s", argv[i]);
    } else if (!strcmp(s, "--target") && next) {
      const char *t = argv[++i];
      if (!strcmp(t, "opencl")) a->gpu = MLC_GPU_OPENCL;
      else if (!strcmp(t, "cuda")) a->gpu = MLC_GPU_CUDA;
      else return cli_bad_usage("tune: --target takes opencl or cuda (the CPU is the default)", t);
    } else if (!strcmp(s, "--records") && next) {
      if (a->n_records == 16) return cli_bad_usage("tune: at most 16 --records files", argv[i + 1]);
      a->records[a->n_records++] = argv[++i];
    } else if (!a->in && (s[0] != '-' || s[1] == '\0')) a->in = s;
    else return cli_bad_usage("tune: unexpected argument", s);
  }
  if (!a->in) return cli_bad_usage("tune: missing MODEL.onnx or MODULE.py", NULL);
  if (!a->out && !a->print_space) return cli_bad_usage("tune: missing -o DB.jsonl (or --print-space)", NULL);
  return EXIT_YES;
}

/* this executable, for the launched side to run (the same path, as on a
 * shared file system) */
static const char *self_path(char *buf, size_t cap) {
  ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
  if (n <= 0) return "mlcc";
  buf[n] = '\0';
  return buf;
}

/* the input module (an ONNX model imported) */
static MlcModule *input_module(MlcCtx *ctx, const char *in) {
  MlcModule *m = ends_with(in, ".onnx") ? mlc_onnx_import_file(ctx, in, &(MlcOnnxOptions){0})
                                        : cli_load_module(ctx, in, NULL, NULL);
  return m;
}

static int print_spaces(MlcCtx *ctx, const MlcModule *m, const MlcSchTarget *st) {
  MlcStrBuf sb = {0};
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != MLC_FUNC_PRIM) continue;
    MlcSchedule *sp[MLC_TUNE_MAX_SPACES];
    int n = mlc_tune_spaces(ctx, m, m->funcs[i].name, st, sp, MLC_TUNE_MAX_SPACES);
    if (n == 0) {
      mlc_vec_free(&sb);
      return cli_report(ctx);
    }
    for (int k = 0; k < n; k++) {
      mlc_sb_printf(&sb, "# design space %d of %d for %s\n", k + 1, n, m->funcs[i].name);
      mlc_sch_print_trace(sp[k], &sb);
      mlc_sb_putc(&sb, '\n');
      mlc_sch_free(sp[k]);
    }
  }
  int rc = cli_write_stdout(mlc_sb_cstr(&sb), sb.len) ? EXIT_YES : EXIT_ERR;
  mlc_vec_free(&sb);
  return rc;
}

static void summary(const MlcTuneDB *db, const MlcModule *m, MlcCtx *ctx, const MlcTuneTarget *tt) {
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != MLC_FUNC_PRIM) continue;
    const MlcTuneRecord *r = mlc_tune_db_best(db, mlc_tune_workload_hash(ctx, m->funcs[i].prim), tt);
    if (r) fprintf(stderr, "tune: %s: best %.3f us (%.2f GFLOPS)\n", m->funcs[i].name, r->seconds * 1e6, r->gflops);
    else fprintf(stderr, "tune: %s: no successful record\n", m->funcs[i].name);
  }
}

int cmd_tune(int argc, char **argv) {
  TuneArgs a = {0};
  int rc = parse(&a, argc, argv);
  if (rc != EXIT_YES) return rc;
  MlcCtx *ctx = mlc_ctx_new();
  MlcSchTarget st;
  mlc_sch_target_host(&st);
  st.gpu = a.gpu;
  MlcModule *in = input_module(ctx, a.in), *m = NULL;
  if (!in || a.print_space) {
    m = in ? mlc_tune_tasks_module(ctx, in, NULL, NULL) : NULL;
    rc = m ? print_spaces(ctx, m, &st) : cli_report(ctx);
    mlc_ctx_free(ctx);
    return rc;
  }
  MlcTuneTarget tt;
  mlc_tune_target_host(&tt, a.o.measure.threads);
  a.o.measure.threads = tt.threads;
  st.threads = tt.threads; /* the default schedule, a candidate, is sized for the threads measured */
  MlcBuildOptions gpu_build = {.target = MLC_TARGET_NATIVE, .gpu = a.gpu};
  if (a.gpu != MLC_GPU_NONE) { /* candidates built for the device and run there */
    mlc_tune_target_gpu(&tt, a.gpu);
    a.o.measure.build = &gpu_build;
  }
  MlcTuneDB *db = mlc_tune_db_new();
  bool ok = mlc_tune_db_load(ctx, db, a.out, true);
  for (int i = 0; ok && i < a.n_records; i++) ok = mlc_tune_db_load(ctx, db, a.records[i], false);
  const char *tmp = getenv("TMPDIR");
  a.o.measure.workdir = a.workdir ? a.workdir : tmp && *tmp ? tmp : "/tmp";
  char self[4096];
  MlcTuneLauncher launcher = {.prefix = a.launcher, .mlcc = self_path(self, sizeof self)};
  if (ok && a.launcher) {
    /* the records are for the CPU the launched side measures on */
    a.o.launcher = &launcher;
    ok = mlc_tune_launcher_target(ctx, &launcher, &tt, &a.o.measure, &tt);
  }
  /* the tasks: the kernels a build with these records would compile */
  if (ok) ok = (m = mlc_tune_tasks_module(ctx, in, db, &tt)) != NULL;
  if (ok) {
    fprintf(stderr, "tune: %s, %s, %d thread%s; cost model %s; %d records read%s%s\n", tt.cpu, tt.features, tt.threads,
            tt.threads == 1 ? "" : "s", mlc_tune_model_name(), mlc_tune_db_size(db),
            a.launcher ? "; measured through " : "", a.launcher ? a.launcher : "");
    a.o.db_path = a.out;
    a.o.progress = stderr;
    a.o.stop = &stop_flag;
    struct sigaction sa = {.sa_handler = on_interrupt}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    ok = mlc_tune_module(ctx, m, db, &st, &tt, &a.o);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (stop_flag) fprintf(stderr, "tune: interrupted; the records measured so far are in %s\n", a.out);
  }
  if (ok) summary(db, m, ctx, &tt);
  rc = ok ? EXIT_YES : cli_report(ctx);
  mlc_tune_db_free(db);
  mlc_ctx_free(ctx);
  return rc;
}
