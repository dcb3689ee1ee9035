/* bench.c - the code generation benchmark: how fast the C that mlcc writes
 * runs for schedules mlcc did not write.
 *
 * The programs (the table below) are float32 matmuls as a user, a course or
 * a tuner leaves them: unscheduled, the course's sampled [8, 16] tiling,
 * traces in the shape the field's tuner writes (the schedule scripts of tests/golden/schedule/tuned_matmul_128 and
 * tuned_matmul_1024),
 * and bench/matmul's hand schedule as the best known program at 1024^3.
 * Each goes through the library as a user's would (mlc_read_module ->
 * mlc_sch_run_script -> mlc_build_shared for the native target -> the
 * runtime's loader; the generated C stays beside each .so, where run.sh
 * reads the C compiler's vectorization report of it).  Every result is
 * checked against OpenBLAS before it is timed.  Programs of one size are
 * timed in alternation with OpenBLAS at 1 and 2 threads; the table gives
 * GFLOPS (2*M*N*K over the median sample, and the fastest) and the ratio to
 * the hand schedule at the same thread count.
 *
 * Usage: bench [--out DIR] [--only NAME]   (from the repository root) */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mlcc/codegen.h"
#include "mlcc/runtime.h"
#include "mlcc/schedule.h"
#include "mlcc/text.h"

enum { ROUNDS = 9, MAX_PROGS = 8 };
#define SAMPLE_S 0.05          /* each sample runs about this long */
#define SETTLE_NS 200000000L   /* OpenBLAS's idle workers spin after a call */
#define MAX_REL_ERR 1e-4

/* name, size, module, schedule script (NULL: none), function */
#define PROGRAMS(X)                                                                          \
  X("unscheduled-128", 128, "bench/codegen/matmul_128.py", NULL, "main")                     \
  X("sampled-128", 128, "bench/codegen/matmul_128.py", "bench/codegen/sampled_128.py", "main") \
  X("tuned-128", 128, "bench/codegen/matmul_128.py", "tests/golden/schedule/tuned_matmul_128/schedule.py", "main")   \
  X("tuned-1024", 1024, "bench/codegen/matmul_1024.py", "tests/golden/schedule/tuned_matmul_1024/schedule.py", "main") \
  X("hand-1024", 1024, "bench/matmul/naive.py", "bench/matmul/schedule.py", "matmul")

typedef struct Prog {
  const char *name;
  int n;
  const char *module, *script, *func;
  MlcrtModule *mod;
  const MlcrtFunc *fn;
  double median[3], best[3]; /* by thread count */
} Prog;

static Prog progs[] = {
#define X(name, n, module, script, func) {name, n, module, script, func, NULL, NULL, {0}, {0}},
    PROGRAMS(X)
#undef X
};
enum { N_PROGS = sizeof progs / sizeof *progs };

typedef struct Mats { int n; MlcrtTensor *a, *b, *c, *ref; } Mats;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static float *data(MlcrtTensor *t) { return (float *)t->dl.data; }

static char *read_text(MlcCtx *ctx, const char *path, size_t *len) { return mlc_read_file(ctx, path, 1 << 20, len); }

static bool build(Prog *p, const char *out_dir) {
  char so[1024];
  snprintf(so, sizeof so, "%s/%s.so", out_dir, p->name);
  MlcCtx *ctx = mlc_ctx_new();
  size_t len = 0;
  char *text = read_text(ctx, p->module, &len);
  const MlcModule *m = text ? mlc_read_module(ctx, p->module, text, len) : NULL;
  free(text);
  MlcSchedule *sch = NULL;
  if (m && p->script) {
    text = read_text(ctx, p->script, &len);
    sch = text ? mlc_sch_new(ctx, m, NULL, 0) : NULL;
    m = sch && mlc_sch_run_script(sch, p->script, text, len) ? mlc_sch_module(sch) : NULL;
    free(text);
  }
  MlcBuildOptions opt = {.target = MLC_TARGET_NATIVE};
  double t0 = now_s();
  bool ok = m && mlc_build_shared(ctx, m, so, &opt);
  if (!ok) {
    MlcStrBuf sb = {0};
    mlc_format_error(ctx, &sb);
    fprintf(stderr, "bench: %s: %s\n", p->name, mlc_sb_cstr(&sb));
    mlc_vec_free(&sb);
  }
  if (sch) mlc_sch_free(sch);
  mlc_ctx_free(ctx);
  if (!ok) return false;
  if (mlcrt_module_load(so, &p->mod) != 0 || !(p->fn = mlcrt_module_get_func(p->mod, p->func))) {
    fprintf(stderr, "bench: loading %s: %s\n", so, mlcrt_last_error());
    return false;
  }
  printf("built %-16s -> %s (%.2f s)\n", p->name, so, now_s() - t0);
  return true;
}

typedef struct Job { const Prog *p; Mats *m; } Job; /* p NULL: OpenBLAS */

static int32_t run_job(void *closure) {
  Job *j = closure;
  int n = j->m->n;
  if (!j->p) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, data(j->m->a), n, data(j->m->b), n, 0.0f,
                data(j->m->c), n);
    return 0;
  }
  DLTensor *args[3] = {&j->m->a->dl, &j->m->b->dl, &j->m->c->dl};
  return mlcrt_func_call_tensors(j->p->fn, args, 3);
}

/* max |x - ref| / max |ref|; NaN (an unwritten element) fails */
static bool check(Job *j) {
  size_t n = (size_t)j->m->n * j->m->n;
  memset(data(j->m->c), 0xff, n * sizeof(float));
  if (run_job(j) != 0) {
    fprintf(stderr, "bench: %s failed: %s\n", j->p->name, mlcrt_last_error());
    return false;
  }
  double num = 0, den = 0;
  const float *x = data(j->m->c), *ref = data(j->m->ref);
  for (size_t i = 0; i < n; i++) {
    double d = fabs((double)x[i] - ref[i]);
    if (isnan(d) || d > num) num = d;
    if (fabs(ref[i]) > den) den = fabs(ref[i]);
  }
  double err = den > 0 ? num / den : num;
  if (!(err <= MAX_REL_ERR)) {
    fprintf(stderr, "bench: %s: max rel err %.3g exceeds %.0e\n", j->p->name, err, MAX_REL_ERR);
    return false;
  }
  return true;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* calls per sample so that one sample takes about SAMPLE_S */
static int calls_for(Job *j) {
  double t0 = now_s();
  run_job(j);
  double t = now_s() - t0;
  int calls = t > 0 ? (int)(SAMPLE_S / t) : 1000;
  return calls < 1 ? 1 : calls > 100000 ? 100000 : calls;
}

/* jobs[0..n) timed in alternation; medians and bests in seconds per call */
static bool time_jobs(Job *jobs, int n, double *median, double *best) {
  double samples[MAX_PROGS + 1][ROUNDS];
  int calls[MAX_PROGS + 1];
  for (int i = 0; i < n; i++) calls[i] = calls_for(&jobs[i]);
  for (int r = 0; r < ROUNDS; r++)
    for (int i = 0; i < n; i++) {
      MlcrtTimes t;
      nanosleep(&(struct timespec){0, SETTLE_NS}, NULL);
      if (mlcrt_time_eval(run_job, &jobs[i], calls[i], 1, 0, &t) != 0) {
        fprintf(stderr, "bench: timing failed: %s\n", mlcrt_last_error());
        return false;
      }
      samples[i][r] = t.mean;
    }
  for (int i = 0; i < n; i++) {
    qsort(samples[i], ROUNDS, sizeof(double), cmp_double);
    median[i] = samples[i][ROUNDS / 2];
    best[i] = samples[i][0];
  }
  return true;
}

static MlcrtTensor *matrix(int n, uint64_t seed) {
  int64_t shape[2] = {n, n};
  MlcrtTensor *t = NULL;
  if (mlcrt_tensor_create(2, shape, mlcrt_dtype(kDLFloat, 32), &t) != 0) return NULL;
  float *x = data(t);
  for (size_t i = 0; i < (size_t)n * n; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (float)((double)(seed >> 40) / (double)(1 << 24) * 2.0 - 1.0);
  }
  return t;
}

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

/* every program of size n, with OpenBLAS, at 1 and 2 threads */
static bool bench_size(int n, const char *only, double *blas_median, double *blas_best) {
  Mats m = {n, matrix(n, 1), matrix(n, 2), matrix(n, 3), matrix(n, 4)};
  if (!m.a || !m.b || !m.c || !m.ref) return false;
  Job jobs[MAX_PROGS + 1];
  Prog *which[MAX_PROGS];
  int k = 0;
  for (int i = 0; i < N_PROGS; i++)
    if (progs[i].n == n && progs[i].fn && (!only || !strcmp(only, progs[i].name))) {
      which[k] = &progs[i];
      jobs[k++] = (Job){&progs[i], &m};
    }
  if (k == 0) return true;
  jobs[k] = (Job){NULL, &m};
  Mats r = m;
  r.c = m.ref;
  run_job(&(Job){NULL, &r});
  bool ok = true;
  for (int threads = 1; ok && threads <= 2; threads++) {
    mlcrt_threads_set(threads);
    openblas_set_num_threads(threads);
    for (int i = 0; ok && i < k; i++) ok = check(&jobs[i]);
    double med[MAX_PROGS + 1], best[MAX_PROGS + 1];
    ok = ok && time_jobs(jobs, k + 1, med, best);
    for (int i = 0; ok && i < k; i++) which[i]->median[threads] = med[i], which[i]->best[threads] = best[i];
    if (ok) blas_median[threads] = med[k], blas_best[threads] = best[k];
  }
  mlcrt_tensor_free(m.a);
  mlcrt_tensor_free(m.b);
  mlcrt_tensor_free(m.c);
  mlcrt_tensor_free(m.ref);
  return ok;
}

static double gflops(int n, double s) { return s > 0 ? 2.0 * n * n * n / s * 1e-9 : 0; }

int main(int argc, char **argv) {
  const char *out_dir = "build/bench-codegen", *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc) out_dir = argv[++i];
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--out DIR] [--only NAME]\n", argv[0]);
      return 2;
    }
  }
  mkdir(out_dir, 0777);
  char model[256];
  cpu_model(model, sizeof model);
  printf("codegen benchmark on %s; OpenBLAS core %s\n", model, openblas_get_corename());
  for (int i = 0; i < N_PROGS; i++)
    if ((!only || !strcmp(only, progs[i].name)) && !build(&progs[i], out_dir)) return 1;
  double blas_med[2][3] = {{0}}, blas_best[2][3] = {{0}};
  if (!bench_size(128, only, blas_med[0], blas_best[0]) || !bench_size(1024, only, blas_med[1], blas_best[1]))
    return 1;
  const Prog *hand = NULL;
  for (int i = 0; i < N_PROGS; i++)
    if (!strcmp(progs[i].name, "hand-1024")) hand = &progs[i];
  printf("\n%-16s %5s %7s %8s %8s %9s %11s\n", "program", "size", "threads", "GFLOPS", "(best)", "OpenBLAS",
         "vs hand");
  for (int threads = 1; threads <= 2; threads++)
    for (int i = 0; i < N_PROGS; i++) {
      const Prog *p = &progs[i];
      if (!p->fn) continue;
      int s = p->n == 128 ? 0 : 1;
      printf("%-16s %5d %7d %8.1f %8.1f %9.1f", p->name, p->n, threads, gflops(p->n, p->median[threads]),
             gflops(p->n, p->best[threads]), gflops(p->n, blas_med[s][threads]));
      if (p->n == 1024 && hand && hand->fn) printf(" %10.2fx", hand->median[threads] / p->median[threads]);
      printf("\n");
    }
  printf("(GFLOPS from the median of %d alternating samples of about %.2f s; best: the fastest sample;\n"
         " vs hand: the hand schedule's median time over the program's, 1.00x = as fast)\n",
         ROUNDS, SAMPLE_S);
  for (int i = 0; i < N_PROGS; i++)
    if (progs[i].mod) mlcrt_module_free(progs[i].mod);
  return 0;
}
