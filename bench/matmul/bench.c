/* bench.c - the matmul benchmark: mlcc's naive, hand-tiled and scheduled
 * 1024^3 float32 matmul against OpenBLAS's cblas_sgemm, at 1 and 2 threads,
 * in one run.
 *
 * The TVMScript programs go through the library exactly as a user's would
 * (mlc_read_module -> for "scheduled", the schedule script schedule.py
 * applied to naive.py by mlc_sch_run_script; for "default", naive.py under
 * the default schedule rules, mlc_sch_apply_default, sized for the CPU the
 * code is built for -> mlc_build_shared for the
 * native target -> the runtime's loader), so the numbers measure the
 * generated code, not a special path.  Every result is checked against
 * OpenBLAS before it is timed; a wrong result fails the run instead of
 * printing a fast number.  Implementations are timed in alternation, so a
 * change in the machine's load hits them alike; the table gives GFLOPS
 * (2*M*N*K over the median sample, and over the fastest) and the ratio to
 * OpenBLAS at the same thread count.  Last, the cost of an empty parallel
 * region of our thread pool beside OpenMP's.
 *
 * With --records, naive.py as the tuner left it is one more implementation:
 * for each thread count, the best record of the tuning database for this
 * CPU at that many threads (mlc_tune_apply, as `mlcc build --records`
 * does); a thread count without a record has no "tuned" row.
 *
 * Usage: bench [--src DIR] [--out DIR] [--no-naive] [--interp] [--records DB.jsonl]...
 *   --src       where naive.py, tiled.py and schedule.py are (default bench/matmul)
 *   --out       where the .so and the generated .c go (default build/bench)
 *   --no-naive  skip the naive program (its one run takes seconds)
 *   --interp    also run tiled.py in the reference interpreter and compare
 *               (slow: minutes)
 *   --records   tuning records (`mlcc tune bench/matmul/naive.py --threads T`) */
#include <assert.h>
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mlcc/codegen.h"
#include "mlcc/interp.h"
#include "mlcc/runtime.h"
#include "mlcc/schedule.h"
#include "mlcc/text.h"
#include "mlcc/tune.h"

enum { N = 1024, ROUNDS = 11, CALLS_PER_SAMPLE = 3, REGION_ROUNDS = 7, REGION_CALLS = 20000 };
#define MAX_REL_ERR 1e-4
#define SETTLE_NS 300000000L /* 0.3 s: see time_jobs */
#define FLOPS (2.0 * N * N * N)

double bench_omp_region_us(int threads, long calls);

typedef struct Mats {
  MlcrtTensor *a, *b, *c, *ref;
} Mats;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static float *data(MlcrtTensor *t) { return (float *)t->dl.data; }

/* ---- building and loading --------------------------------------------------- */

static void print_ctx_error(MlcCtx *ctx) {
  MlcStrBuf sb = {0};
  mlc_format_error(ctx, &sb);
  fprintf(stderr, "bench: %s\n", mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
}

/* the "scripts" that stand for the default rules (mlc_sch_apply_default
 * for the CPU the code is built for) and for the tuning records, compared
 * by address */
static const char DEFAULT_RULES[] = "(default rules)", RECORDS[] = "(records)";

/* the tuning records given, applied for `threads` (NULL: none given) */
static const MlcTuneDB *records;
static int tuned_threads;

static const MlcModule *apply_records(MlcCtx *ctx, const MlcModule *m) {
  MlcTuneTarget t;
  mlc_tune_target_host(&t, tuned_threads);
  int applied = 0, failed = 0;
  m = mlc_tune_apply(ctx, m, records, &t, &applied, &failed);
  if (m && applied != 1) {
    mlc_error(ctx, (MlcLoc){0}, "no tuning record for this CPU at %d thread%s%s", tuned_threads,
              tuned_threads == 1 ? "" : "s", failed ? " (one failed to replay)" : "");
    return NULL;
  }
  return m;
}

static const MlcModule *apply_default(MlcCtx *ctx, const MlcModule *m) {
  MlcSchTarget t;
  mlc_sch_target_host(&t);
  MlcSchedule *sch = mlc_sch_new(ctx, m, NULL, 0);
  m = sch && mlc_sch_apply_default(sch, &t) ? mlc_sch_module(sch) : NULL;
  if (sch) mlc_sch_free(sch);
  return m;
}

/* SRC/py.py, with the schedule script SRC/script.py applied when script is
 * not NULL (the default rules for DEFAULT_RULES); NULL with an error in ctx */
static const MlcModule *read_program(MlcCtx *ctx, const char *src_dir, const char *py, const char *script) {
  char path[1024];
  size_t len = 0;
  snprintf(path, sizeof path, "%s/%s.py", src_dir, py);
  char *text = mlc_read_file(ctx, path, 1 << 20, &len);
  const MlcModule *m = text ? mlc_read_module(ctx, path, text, len) : NULL;
  free(text);
  if (!m || !script) return m;
  if (script == DEFAULT_RULES) return apply_default(ctx, m);
  if (script == RECORDS) return apply_records(ctx, m);
  snprintf(path, sizeof path, "%s/%s.py", src_dir, script);
  text = mlc_read_file(ctx, path, 1 << 20, &len);
  MlcSchedule *sch = text ? mlc_sch_new(ctx, m, NULL, 0) : NULL;
  m = sch && mlc_sch_run_script(sch, path, text, len) ? mlc_sch_module(sch) : NULL;
  if (sch) mlc_sch_free(sch);
  free(text);
  return m;
}

/* build OUT/name.so from read_program(py, script), load it; NULL after
 * printing why */
static MlcrtModule *build(const char *src_dir, const char *out_dir, const char *name, const char *py,
                          const char *script) {
  char so[1024];
  snprintf(so, sizeof so, "%s/%s.so", out_dir, name);
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuildOptions opt = {.target = MLC_TARGET_NATIVE};
  double t0 = now_s();
  const MlcModule *m = read_program(ctx, src_dir, py, script);
  bool ok = m && mlc_build_shared(ctx, m, so, &opt);
  if (!ok) print_ctx_error(ctx);
  double secs = now_s() - t0;
  mlc_ctx_free(ctx);
  if (!ok) return NULL;
  MlcrtModule *mod = NULL;
  if (mlcrt_module_load(so, &mod) != 0) {
    fprintf(stderr, "bench: loading %s: %s\n", so, mlcrt_last_error());
    return NULL;
  }
  printf("built %-9s -> %s (%.2f s; generated C beside it)\n", name, so, secs);
  return mod;
}

/* ---- the implementations ---------------------------------------------- */

typedef struct Job {
  const MlcrtFunc *fn; /* NULL: OpenBLAS */
  Mats *m;
  MlcrtTensor *out;
} Job;

static int32_t run_job(void *closure) {
  Job *j = closure;
  if (!j->fn) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, data(j->m->a), N, data(j->m->b), N, 0.0f,
                data(j->out), N);
    return 0;
  }
  DLTensor *args[3] = {&j->m->a->dl, &j->m->b->dl, &j->out->dl};
  return mlcrt_func_call_tensors(j->fn, args, 3);
}

/* max |x - ref| / max |ref|: a normwise error, since single elements of a
 * random matmul can be near zero */
static double rel_err(const float *x, const float *ref, size_t n) {
  double num = 0, den = 0;
  for (size_t i = 0; i < n; i++) {
    double d = fabs((double)x[i] - ref[i]);
    if (isnan(d)) return d; /* an element left unwritten (NaN-filled) fails */
    if (d > num) num = d;
    if (fabs(ref[i]) > den) den = fabs(ref[i]);
  }
  return den > 0 ? num / den : num;
}

/* run once into a cleared output, check against the reference */
static bool check(const char *what, Job *j) {
  memset(data(j->out), 0xff, sizeof(float) * N * N); /* NaNs: an unwritten element fails */
  if (run_job(j) != 0) {
    fprintf(stderr, "bench: %s failed: %s\n", what, mlcrt_last_error());
    return false;
  }
  double err = rel_err(data(j->out), data(j->m->ref), (size_t)N * N);
  if (!(err <= MAX_REL_ERR)) {
    fprintf(stderr, "bench: %s: max rel err %.3g exceeds %.0e\n", what, err, MAX_REL_ERR);
    return false;
  }
  printf("checked %-22s max rel err %.2e\n", what, err);
  return true;
}

typedef struct Row {
  const char *name;
  int threads;
  double median_s, best_s;
} Row;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void summarize(double *samples, int n, Row *row) {
  qsort(samples, (size_t)n, sizeof *samples, cmp_double);
  row->best_s = samples[0];
  row->median_s = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

/* Time jobs[0..n) in alternation, ROUNDS samples of CALLS_PER_SAMPLE calls
 * each: on a shared machine the load changes during a run, and alternating
 * makes such a change hit every implementation alike.  Between samples of
 * different implementations the process sleeps for a while: OpenBLAS's idle
 * workers spin for up to about 2^28 cycles after a call, and on a 2-core
 * machine a spinning worker halves the speed of the next sample's second
 * thread (ours do the same to OpenBLAS, for a shorter time). */
static bool time_jobs(Job **jobs, Row **rows, int n, int rounds, int calls) {
  double samples[5][ROUNDS];
  assert(n <= 5 && rounds <= ROUNDS);
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < n; i++) {
      MlcrtTimes t;
      if (n > 1) nanosleep(&(struct timespec){0, SETTLE_NS}, NULL);
      /* one untimed call first: after the pause the idle CPUs must wake up */
      if (run_job(jobs[i]) != 0 || mlcrt_time_eval(run_job, jobs[i], calls, 1, 0, &t) != 0) {
        fprintf(stderr, "bench: timing %s failed: %s\n", rows[i]->name, mlcrt_last_error());
        return false;
      }
      samples[i][r] = t.mean;
    }
  }
  for (int i = 0; i < n; i++) summarize(samples[i], rounds, rows[i]);
  return true;
}

/* ---- the optional interpreter check ------------------------------------------- */

static bool interp_check(const char *src_dir, Mats *m) {
  char py[1024];
  snprintf(py, sizeof py, "%s/tiled.py", src_dir);
  MlcCtx *ctx = mlc_ctx_new();
  size_t len = 0;
  char *text = mlc_read_file(ctx, py, 1 << 20, &len);
  MlcModule *mod = text ? mlc_read_module(ctx, py, text, len) : NULL;
  const MlcFunc *f = mod ? mlc_module_find(mod, mlc_intern(ctx, "matmul")) : NULL;
  int64_t shape[2] = {N, N};
  MlcInterpArg args[3] = {{.is_buffer = true, .data = data(m->a), .ndim = 2, .shape = shape},
                          {.is_buffer = true, .data = data(m->b), .ndim = 2, .shape = shape},
                          {.is_buffer = true, .data = data(m->c), .ndim = 2, .shape = shape}};
  memset(data(m->c), 0xff, sizeof(float) * N * N);
  double t0 = now_s();
  bool ok = f && f->kind == MLC_FUNC_PRIM && mlc_interp_run(ctx, f->prim, args, 3);
  if (!ok) {
    MlcStrBuf sb = {0};
    mlc_format_error(ctx, &sb);
    fprintf(stderr, "bench: interpreting tiled.py: %s\n", f ? mlc_sb_cstr(&sb) : "no function 'matmul'");
    mlc_vec_free(&sb);
  }
  free(text);
  mlc_ctx_free(ctx);
  if (!ok) return false;
  double err = rel_err(data(m->c), data(m->ref), (size_t)N * N);
  printf("interpreter on tiled.py: %.0f s, max rel err %.2e\n", now_s() - t0, err);
  return err <= MAX_REL_ERR;
}

/* ---- parallel region cost ------------------------------------------------------ */

static int32_t empty_body(int64_t begin, int64_t end, void *closure) { return 0; }

static double pool_region_us(int threads, long calls) {
  mlcrt_threads_set(threads);
  for (long i = 0; i < calls; i++) mlcrt_parallel_for(threads, empty_body, NULL);
  double t0 = now_s();
  for (long i = 0; i < calls; i++) mlcrt_parallel_for(threads, empty_body, NULL);
  return (now_s() - t0) / (double)calls * 1e6;
}

/* ---- main ------------------------------------------------------------------------- */

static void cpu_model(char *buf, size_t cap) {
  snprintf(buf, cap, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) == 0 && colon) {
      snprintf(buf, cap, "%s", colon + 2);
      buf[strcspn(buf, "\n")] = 0;
      break;
    }
  }
  fclose(f);
}

static MlcrtTensor *matrix(void) {
  int64_t shape[2] = {N, N};
  MlcrtTensor *t = NULL;
  if (mlcrt_tensor_create(2, shape, mlcrt_dtype(kDLFloat, 32), &t) != 0) return NULL;
  return t;
}

static void fill_random(float *x, size_t n, uint64_t seed) {
  for (size_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (float)((double)(seed >> 40) / (double)(1 << 24) * 2.0 - 1.0);
  }
}

static void print_table(const Row *rows, int n) {
  printf("\n%-18s %7s %8s %8s %12s %10s\n", "implementation", "threads", "GFLOPS", "(best)", "vs OpenBLAS",
         "(best)");
  for (int i = 0; i < n; i++) {
    const Row *blas = NULL;
    for (int k = 0; k < n; k++)
      if (!strcmp(rows[k].name, "OpenBLAS sgemm") && rows[k].threads == rows[i].threads) blas = &rows[k];
    printf("%-18s %7d %8.1f %8.1f %11.1f%% %9.1f%%\n", rows[i].name, rows[i].threads,
           FLOPS / rows[i].median_s * 1e-9, FLOPS / rows[i].best_s * 1e-9,
           blas ? blas->median_s / rows[i].median_s * 100 : 0, blas ? blas->best_s / rows[i].best_s * 100 : 0);
  }
  printf("(GFLOPS from the median of %d alternating samples of %d calls; best: the fastest sample)\n", ROUNDS,
         CALLS_PER_SAMPLE);
}

int main(int argc, char **argv) {
  const char *src_dir = "bench/matmul", *out_dir = "build/bench";
  bool interp = false, with_naive = true;
  MlcCtx *rctx = mlc_ctx_new();
  MlcTuneDB *db = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--src") && i + 1 < argc) src_dir = argv[++i];
    else if (!strcmp(argv[i], "--records") && i + 1 < argc) {
      if (!db) db = mlc_tune_db_new();
      if (!mlc_tune_db_load(rctx, db, argv[++i], false)) return print_ctx_error(rctx), 1;
    }
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) out_dir = argv[++i];
    else if (!strcmp(argv[i], "--interp")) interp = true;
    else if (!strcmp(argv[i], "--no-naive")) with_naive = false;
    else {
      fprintf(stderr, "usage: %s [--src DIR] [--out DIR] [--no-naive] [--interp] [--records DB.jsonl]...\n", argv[0]);
      return 2;
    }
  }
  mkdir(out_dir, 0777);
  char model[256];
  cpu_model(model, sizeof model);
  const char *coretype = getenv("OPENBLAS_CORETYPE");
  printf("matmul %dx%dx%d float32 on %s\n", N, N, N, model);
  printf("OpenBLAS: %s (core %s; OPENBLAS_CORETYPE=%s)\n", openblas_get_config(), openblas_get_corename(),
         coretype ? coretype : "unset");

  MlcrtModule *naive = with_naive ? build(src_dir, out_dir, "naive", "naive", NULL) : NULL;
  MlcrtModule *tiled = build(src_dir, out_dir, "tiled", "tiled", NULL);
  MlcrtModule *sched = build(src_dir, out_dir, "scheduled", "naive", "schedule");
  MlcrtModule *dflt = build(src_dir, out_dir, "default", "naive", DEFAULT_RULES);
  Mats m = {matrix(), matrix(), matrix(), matrix()};
  if ((with_naive && !naive) || !tiled || !sched || !dflt || !m.a || !m.b || !m.c || !m.ref) return 1;
  fill_random(data(m.a), (size_t)N * N, 1);
  fill_random(data(m.b), (size_t)N * N, 2);
  Job ref = {NULL, &m, m.ref};
  run_job(&ref);

  Job jn = {naive ? mlcrt_module_get_func(naive, "matmul") : NULL, &m, m.c};
  Job jt = {mlcrt_module_get_func(tiled, "matmul"), &m, m.c};
  Job js = {mlcrt_module_get_func(sched, "matmul"), &m, m.c};
  Job jd = {mlcrt_module_get_func(dflt, "matmul"), &m, m.c};
  Job jb = {NULL, &m, m.c};
  /* the tuned program of each thread count (tuned[t - 1]) */
  records = db;
  MlcrtModule *tuned[2] = {NULL, NULL};
  Job ju[2] = {{NULL, &m, m.c}, {NULL, &m, m.c}};
  for (int t = 1; db && t <= 2; t++) {
    char name[32];
    snprintf(name, sizeof name, "tuned-%dt", t);
    tuned_threads = t;
    if ((tuned[t - 1] = build(src_dir, out_dir, name, "naive", RECORDS)) &&
        !(ju[t - 1].fn = mlcrt_module_get_func(tuned[t - 1], "matmul")))
      return fprintf(stderr, "bench: %s\n", mlcrt_last_error()), 1;
  }
  if ((naive && !jn.fn) || !jt.fn || !js.fn || !jd.fn) {
    fprintf(stderr, "bench: %s\n", mlcrt_last_error());
    return 1;
  }
  Row rows[12];
  int nrows = 0;
  bool ok = true;
  if (naive) {
    ok = check("naive (mlcc)", &jn);
    rows[nrows] = (Row){"naive (mlcc)", 1, 0, 0};
    Row *naive_row = &rows[nrows++];
    ok = ok && time_jobs((Job *[]){&jn}, &naive_row, 1, 1, 1); /* slow: once is enough */
  }
  /* the fast ones in alternation, per thread count */
  enum { N_TIMED = 5 };
  for (int threads = 1; ok && threads <= 2; threads++) {
    Job *timed[N_TIMED] = {&jd, &js, &jt, &jb, &ju[threads - 1]};
    const char *names[N_TIMED] = {"default (mlcc)", "scheduled (mlcc)", "tiled (mlcc)", "OpenBLAS sgemm", "tuned (mlcc)"};
    int n_timed = ju[threads - 1].fn ? N_TIMED : N_TIMED - 1;
    mlcrt_threads_set(threads);
    openblas_set_num_threads(threads);
    Row *group[N_TIMED];
    for (int i = 0; i < n_timed; i++) {
      char what[64];
      snprintf(what, sizeof what, "%s x%d", names[i], threads);
      ok = ok && check(what, timed[i]);
      rows[nrows] = (Row){names[i], threads, 0, 0};
      group[i] = &rows[nrows++];
    }
    ok = ok && time_jobs(timed, group, n_timed, ROUNDS, CALLS_PER_SAMPLE);
  }
  if (ok && interp) ok = interp_check(src_dir, &m);
  if (!ok) return 1;
  print_table(rows, nrows);

  /* Rounds alternate, and each side's number is its fastest round: idle
   * threads of the other runtimes (OpenBLAS's, OpenMP's after a region)
   * spin for a while and can take the second core from the side measured
   * next. */
  openblas_set_num_threads(1);
  double pool_us = 1e9, omp_us = 1e9;
  for (int r = 0; r < REGION_ROUNDS; r++) {
    double p = pool_region_us(2, REGION_CALLS), o = bench_omp_region_us(2, REGION_CALLS);
    if (p < pool_us) pool_us = p;
    if (o < omp_us) omp_us = o;
  }
  printf("\nempty parallel region at 2 threads (mean of %d calls, fastest of %d rounds): "
         "mlcrt_parallel_for %.2f us, OpenMP %.2f us\n",
         REGION_CALLS, REGION_ROUNDS, pool_us, omp_us);

  mlcrt_tensor_free(m.a);
  mlcrt_tensor_free(m.b);
  mlcrt_tensor_free(m.c);
  mlcrt_tensor_free(m.ref);
  if (naive) mlcrt_module_free(naive);
  mlcrt_module_free(tiled);
  mlcrt_module_free(sched);
  mlcrt_module_free(dflt);
  for (int t = 0; t < 2; t++)
    if (tuned[t]) mlcrt_module_free(tuned[t]);
  mlc_tune_db_free(db);
  mlc_ctx_free(rctx);
  return 0;
}
