/* default.c - the default GPU schedules against the simple binding they
 * fall back to, side by side on the first OpenCL device (PoCL's CPU device
 * where there is no GPU): a 512^3 matmul and a 3x3 convolution (64 -> 64
 * channels, 56x56), each built twice -- the default rule as models get it
 * (tiles in shared memory and registers) and the rule's simple form alone
 * (every output element a thread) -- and timed in one run, minimum over
 * repeats, with the two results compared.  Not a test: numbers for a
 * person to read (bench/README.md).
 *   build/bench/gpu_default [REPEATS]   (from the repository root) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mlcc/codegen.h"
#include "mlcc/lower.h"
#include "mlcc/runtime.h"
#include "mlcc/schedule.h"
#include "mlcc/text.h"

typedef struct Case {
  const char *name, *func, *text;
  int n_params;
  int64_t shapes[3][4];
  int ndim[3];
  double flops;
} Case;

static const Case CASES[] = {
    {"matmul 512^3", "mm",
     "from tvm.script import ir as I\nfrom tvm.script import tir as T\n@I.ir_module\nclass Module:\n"
     "    @T.prim_func\n"
     "    def mm(A: T.Buffer((512, 512), \"float32\"), B: T.Buffer((512, 512), \"float32\"), C: T.Buffer((512, 512), \"float32\")):\n"
     "        for i, j, k in T.grid(512, 512, 512):\n"
     "            with T.block(\"C\"):\n"
     "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
     "                with T.init():\n"
     "                    C[vi, vj] = T.float32(0)\n"
     "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n",
     3, {{512, 512}, {512, 512}, {512, 512}}, {2, 2, 2}, 2.0 * 512 * 512 * 512},
    {"conv 3x3 64->64 56x56", "conv",
     "from tvm.script import ir as I\nfrom tvm.script import tir as T\n@I.ir_module\nclass Module:\n"
     "    @T.prim_func\n"
     "    def conv(X: T.Buffer((1, 64, 56, 56), \"float32\"), W: T.Buffer((64, 64, 3, 3), \"float32\"), Y: T.Buffer((1, 64, 56, 56), \"float32\")):\n"
     "        for n, co, oh, ow, ci, kh, kw in T.grid(1, 64, 56, 56, 64, 3, 3):\n"
     "            with T.block(\"conv\"):\n"
     "                vn, vco, voh, vow, vci, vkh, vkw = T.axis.remap(\"SSSSRRR\", [n, co, oh, ow, ci, kh, kw])\n"
     "                with T.init():\n"
     "                    Y[vn, vco, voh, vow] = T.float32(0)\n"
     "                Y[vn, vco, voh, vow] = Y[vn, vco, voh, vow] + T.if_then_else(1 <= voh + vkh and voh + vkh < 57 and 1 <= vow + vkw and vow + vkw < 57, X[vn, vci, voh + vkh - 1, vow + vkw - 1], T.float32(0)) * W[vco, vci, vkh, vkw]\n",
     3, {{1, 64, 56, 56}, {64, 64, 3, 3}, {1, 64, 56, 56}}, {4, 4, 4}, 2.0 * 64 * 64 * 9 * 56 * 56},
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void cpu_model(char *buf, size_t cap) {
  snprintf(buf, cap, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
      snprintf(buf, cap, "%.*s", (int)strcspn(strchr(line, ':') + 2, "\n"), strchr(line, ':') + 2);
      break;
    }
  if (f) fclose(f);
}

/* the function built for OpenCL into dir/stem.so, loaded */
static const MlcrtFunc *build(MlcCtx *ctx, const MlcModule *m, const char *func, const char *dir, const char *stem,
                              MlcrtModule **mod) {
  char so[600];
  snprintf(so, sizeof so, "%s/%s.so", dir, stem);
  MlcBuildOptions opt = {.target = MLC_TARGET_NATIVE, .gpu = MLC_GPU_OPENCL};
  if (!mlc_build_shared(ctx, m, so, &opt)) return fprintf(stderr, "%s: %s\n", stem, mlc_error_msg(ctx)), NULL;
  if (mlcrt_module_load(so, mod) != 0) return fprintf(stderr, "%s: %s\n", stem, mlcrt_last_error()), NULL;
  return mlcrt_module_get_func(*mod, func);
}

/* min seconds per call over repeats (the first call, which builds the
 * program on the device, not counted) */
static double time_calls(const MlcrtFunc *f, MlcrtValue *v, int n, int repeats) {
  if (mlcrt_func_call(f, v, n) != 0) return fprintf(stderr, "run: %s\n", mlcrt_last_error()), -1;
  double best = -1;
  for (int r = 0; r < repeats; r++) {
    double t0 = now_s();
    if (mlcrt_func_call(f, v, n) != 0) return -1;
    double t = now_s() - t0;
    if (best < 0 || t < best) best = t;
  }
  return best;
}

int main(int argc, char **argv) {
  int repeats = argc > 1 ? atoi(argv[1]) : 3;
  if (repeats < 1) repeats = 1;
  const MlcrtGpu *g = mlcrt_gpu(MLCRT_GPU_OPENCL);
  if (!g) return fprintf(stderr, "gpu_default: %s\n", mlcrt_last_error()), 2;
  char cpu[256], dir[] = "/tmp/mlcc-bench-gpu-XXXXXX";
  cpu_model(cpu, sizeof cpu);
  if (!mkdtemp(dir)) return perror("mkdtemp"), 2;
  printf("CPU: %s; OpenCL device: %s; min of %d calls each\n", cpu, g->device, repeats);
  printf("%-24s %14s %14s %8s %10s\n", "program", "default rule", "simple form", "speedup", "max diff");
  int status = 0;
  for (size_t c = 0; c < sizeof CASES / sizeof *CASES; c++) {
    const Case *k = &CASES[c];
    MlcCtx *ctx = mlc_ctx_new();
    const MlcModule *m = mlc_read_module(ctx, k->name, k->text, strlen(k->text));
    const MlcModule *full = m ? mlc_sch_default_gpu_module(ctx, m, 256, mlc_gpu_accepts, NULL) : NULL;
    const MlcModule *simple = m ? mlc_sch_default_gpu_module(ctx, m, 256, NULL, NULL) : NULL;
    MlcrtModule *mf = NULL, *ms = NULL;
    const MlcrtFunc *ff = full ? build(ctx, full, k->func, dir, "full", &mf) : NULL;
    const MlcrtFunc *fs = simple ? build(ctx, simple, k->func, dir, "simple", &ms) : NULL;
    float *data[2][3] = {{0}};
    DLTensor t[2][3];
    MlcrtValue v[2][3];
    for (int p = 0; p < k->n_params; p++) {
      size_t numel = 1;
      for (int d = 0; d < k->ndim[p]; d++) numel *= (size_t)k->shapes[p][d];
      for (int w = 0; w < 2; w++) {
        data[w][p] = calloc(numel, sizeof(float));
        for (size_t i = 0; i < numel && p + 1 < k->n_params; i++) data[w][p][i] = (float)((i * 7919 + (size_t)p) % 1000) / 500 - 1;
        t[w][p] = (DLTensor){.data = data[w][p], .device = {kDLCPU, 0}, .ndim = k->ndim[p], .dtype = {kDLFloat, 32, 1},
                             .shape = (int64_t *)k->shapes[p]};
        v[w][p].tensor = &t[w][p];
      }
    }
    double tf = ff ? time_calls(ff, v[0], k->n_params, repeats) : -1;
    double ts = fs ? time_calls(fs, v[1], k->n_params, repeats) : -1;
    size_t numel = 1;
    for (int d = 0; d < k->ndim[k->n_params - 1]; d++) numel *= (size_t)k->shapes[k->n_params - 1][d];
    double diff = 0, top = 0;
    for (size_t i = 0; i < numel; i++) {
      diff = fmax(diff, fabs((double)data[0][k->n_params - 1][i] - (double)data[1][k->n_params - 1][i]));
      top = fmax(top, fabs((double)data[1][k->n_params - 1][i]));
    }
    if (top == 0) tf = -1; /* nothing computed: no comparison */
    if (tf > 0 && ts > 0)
      printf("%-24s %9.1f ms   %9.1f ms   %6.2fx %10.2g\n", k->name, tf * 1e3, ts * 1e3, ts / tf, top > 0 ? diff / top : diff);
    else
      printf("%-24s failed\n", k->name), status = 1;
    for (int w = 0; w < 2; w++)
      for (int p = 0; p < k->n_params; p++) free(data[w][p]);
    mlcrt_module_free(mf);
    mlcrt_module_free(ms);
    mlc_ctx_free(ctx);
  }
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) status = 1;
  return status;
}
