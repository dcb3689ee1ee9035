/* target.c - what a tuning record is valid for, and the workload key.
 *
 * A time measured on one CPU says little about another: the model (cache
 * sizes, ports), the instruction-set features the generated code was
 * compiled for and the thread count all change which schedule wins.  The
 * target therefore names all three, and records are applied only where
 * they are equal.  Features are those of the -march the build driver
 * compiles for: $MLC_MARCH when set, else the host's (the x86 features
 * that change code generation, as the compiler's own probe reports them). */
#include "mlcc/tune.h"
#include "mlcc/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void cpu_model(char *buf, size_t cap) {
  snprintf(buf, cap, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) != 0) continue;
    const char *v = strchr(line, ':');
    if (!v) break;
    v++;
    while (*v == ' ' || *v == '\t') v++;
    snprintf(buf, cap, "%.*s", (int)strcspn(v, "\n"), v);
    break;
  }
  fclose(f);
}

/* the features code generation depends on, in a fixed order */
#define TUNE_FEATURES(X) X("sse4.2") X("avx") X("avx2") X("fma") X("avx512f") X("avx512bw") X("avx512vl") X("avx512vnni") X("avx512bf16")

static void host_features(char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
#define X(f)                                                                        \
  if (__builtin_cpu_supports(f) && len < cap)                                       \
    len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? "," : "", f);
  TUNE_FEATURES(X)
#undef X
#endif
  if (!buf[0]) snprintf(buf, cap, "generic");
}

void mlc_tune_target_host(MlcTuneTarget *t, int threads) {
  memset(t, 0, sizeof *t);
  cpu_model(t->cpu, sizeof t->cpu);
  const char *march = getenv("MLC_MARCH");
  if (march && *march && strcmp(march, "native") != 0) snprintf(t->features, sizeof t->features, "march=%s", march);
  else host_features(t->features, sizeof t->features);
  /* the runtime's default: $MLCRT_NUM_THREADS, else the online CPUs */
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  const char *env = getenv("MLCRT_NUM_THREADS");
  char *end;
  long e = env && *env ? strtol(env, &end, 10) : 0;
  if (e >= 1 && e <= 4096 && *end == '\0') n = e;
  t->threads = threads > 0 ? threads : n > 0 ? (int)n : 1;
}

/* The device's name, asked in a child process: loading a GPU API starts
 * threads of its own (PoCL's workers), which a process that forks its
 * measuring children afterwards must not have. */
static void gpu_device_name(int32_t api, char *buf, size_t cap) {
  snprintf(buf, cap, "no device");
  int fd[2];
  if (pipe(fd) != 0) return;
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    const MlcrtGpu *g = mlcrt_gpu(api);
    const char *n = g && g->device ? g->device : "no device";
    ssize_t w = write(fd[1], n, strlen(n));
    _exit(w < 0);
  }
  close(fd[1]);
  size_t len = 0;
  ssize_t k;
  while (pid > 0 && len + 1 < cap && (k = read(fd[0], buf + len, cap - 1 - len)) > 0) len += (size_t)k;
  if (len) buf[len] = '\0';
  close(fd[0]);
  if (pid > 0) waitpid(pid, NULL, 0);
}

void mlc_tune_target_gpu(MlcTuneTarget *t, MlcGpuApi api) {
  memset(t, 0, sizeof *t);
  gpu_device_name(api == MLC_GPU_CUDA ? MLCRT_GPU_CUDA : MLCRT_GPU_OPENCL, t->cpu, sizeof t->cpu);
  /* the API by the name its code generator goes by (mlc_gpu_api_name; not
   * called here, so the records' reader needs nothing from codegen) */
  snprintf(t->features, sizeof t->features, "%s", api == MLC_GPU_CUDA ? "cuda" : "opencl");
  t->threads = 1;
}

int mlc_tune_db_count_other(const MlcTuneDB *db, const MlcTuneTarget *t) {
  int n = 0;
  for (int i = 0; i < mlc_tune_db_size(db); i++) n += !mlc_tune_target_equal(&mlc_tune_db_at(db, i)->target, t);
  return n;
}

bool mlc_tune_target_equal(const MlcTuneTarget *a, const MlcTuneTarget *b) {
  return a->threads == b->threads && !strcmp(a->cpu, b->cpu) && !strcmp(a->features, b->features);
}

uint64_t mlc_tune_workload_hash(MlcCtx *ctx, const MlcPrimFunc *f) {
  MlcPrimFunc g = *f;
  g.name = mlc_intern(ctx, "workload");
  g.attrs = (MlcAttrs){0};
  return mlc_prim_func_hash(&g);
}
