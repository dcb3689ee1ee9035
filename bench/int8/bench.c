/* bench.c - the int8 matmul benchmark: C[M, N] (int32) = A (uint8) @ W
 * (int8, a constant weight), the product quantized models spend their time
 * in, as mlcc's default schedules compile it with and without the CPU's
 * byte dot-product instruction.
 *
 * The programs, all from one TVMScript matmul, each built with mlcc's
 * library (mlc_read_module -> mlc_sch_apply_default -> mlc_build_shared)
 * and checked against a plain C matmul before it is timed:
 *   - "vnni": the default rules for this CPU with its dot-product lanes
 *     (AVX512-VNNI: 16, AVX-VNNI: 8; skipped, with the reason, on a CPU
 *     without either), built for this CPU even when MLC_MARCH names
 *     another: W laid out 4-interleaved at compile time, the tile
 *     tensorized onto dot_Lx4_u8s8, i.e. vpdpbusd;
 *   - "pair": the default rules for the target (MLC_MARCH or this CPU)
 *     told it has no such instruction, what every CPU without VNNI (an AMD
 *     Zen 3, say) gets: W laid out 2-interleaved, the tile tensorized onto
 *     dot_Lx2_u8s8 (bytes widened to int16, vpmaddwd);
 *   - "int32": the same rules for an AVX target (no integer vectors), where
 *     neither byte form applies: the contraction rule's register tile in
 *     int32 vectors (built for the target all the same);
 *   - "vnni-c": the vnni schedule built for x86-64-v3, where the intrinsic
 *     is its plain C form (what the generated file does when compiled for a
 *     CPU without the instruction);
 *   - "naive": the matmul as legalized, unscheduled.
 * Programs are timed in alternation at 1 thread and at all threads; the
 * table gives GOPS (2*M*N*K over the median sample), each program's time
 * over the "vnni" one's (how many times slower than it) and the "naive"
 * one's time over each program's (how many times faster than it).
 *
 * Usage: bench [--size N] [--out DIR]   (run.sh prints the CPU first) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mlcc/codegen.h"
#include "mlcc/runtime.h"
#include "mlcc/schedule.h"
#include "mlcc/text.h"

enum { SAMPLES = 15, MAX_PROGS = 5, NAIVE = MAX_PROGS - 1 };

static const char module_fmt[] =
    "@T.prim_func\n"
    "def mm(A: T.Buffer((%d, %d), \"uint8\"), W: T.Buffer((%d, %d), \"int8\"), C: T.Buffer((%d, %d), \"int32\")):\n"
    "    T.func_attr({\"layout_free_buffers\": [1]})\n"
    "    for i, j, k in T.grid(%d, %d, %d):\n"
    "        with T.block(\"mm\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = 0\n"
    "            C[vi, vj] = C[vi, vj] + T.Cast(\"int32\", A[vi, vk]) * T.Cast(\"int32\", W[vk, vj])\n";

typedef struct Prog {
  const char *name;
  int dot_lanes;        /* the schedule's target: -1 unscheduled */
  bool native;          /* scheduled for this CPU rather than MLC_MARCH's */
  const char *cls;      /* the target's vector class, when not the host's */
  const char *cflags;   /* extra flags of the build */
  MlcrtModule *mod;
  const MlcrtFunc *fn;
  int8_t *w;            /* the weight as this program takes it */
  int64_t wshape[3];
  int wdim;
  double median[2];
  bool skip;
} Prog;

static int n_dim = 512;
static uint8_t *A;
static int8_t *W;
static int32_t *C, *REF;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void fail_ctx(MlcCtx *ctx, const char *what) {
  MlcStrBuf sb = {0};
  mlc_format_error(ctx, &sb);
  fprintf(stderr, "bench: %s: %s\n", what, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
}

static bool build(Prog *p, const MlcSchTarget *host, const char *out_dir) {
  int n = n_dim;
  char text[2048], so[1024];
  snprintf(text, sizeof text, module_fmt, n, n, n, n, n, n, n, n, n);
  snprintf(so, sizeof so, "%s/%s.so", out_dir, p->name);
  MlcCtx *ctx = mlc_ctx_new();
  const MlcModule *m = mlc_read_module(ctx, "int8_matmul.py", text, strlen(text));
  MlcSchedule *s = NULL;
  if (m && p->dot_lanes >= 0) {
    MlcSchTarget t = *host;
    if (p->native) mlc_sch_target_march(&t, "native");
    t.dot_lanes = p->dot_lanes;
    if (p->cls) t.name = p->cls;
    s = mlc_sch_new(ctx, m, NULL, 0);
    m = s && mlc_sch_apply_default(s, &t) ? mlc_sch_module(s) : NULL;
  }
  /* the weight laid out as the schedule recorded */
  const MlcFunc *f = m ? mlc_module_find(m, mlc_intern(ctx, "mm")) : NULL;
  const MlcAttrValue *lr = f ? mlc_attrs_get(f->prim->attrs, mlc_intern(ctx, "layout_rewrites")) : NULL;
  int64_t shape[2] = {n, n};
  MlcTensorData in = {MLC_DT(MLC_TC_INT, 8, 1), 2, shape, W, (size_t)n * n};
  p->w = W, p->wdim = 2, p->wshape[0] = n, p->wshape[1] = n;
  if (lr) {
    MlcTensorData *laid = mlc_sch_layout_apply(ctx, lr->list.items[0].list.items[1].s, &in);
    if (!laid) m = NULL;
    else {
      p->w = malloc(laid->nbytes);
      memcpy(p->w, laid->data, laid->nbytes);
      p->wdim = laid->ndim;
      for (int d = 0; d < laid->ndim && d < 3; d++) p->wshape[d] = laid->shape[d];
    }
  }
  MlcBuildOptions opt = {.target = MLC_TARGET_NATIVE, .extra_cflags = p->cflags};
  bool ok = m && mlc_build_shared(ctx, m, so, &opt);
  if (!ok) fail_ctx(ctx, p->name);
  if (s) mlc_sch_free(s);
  mlc_ctx_free(ctx);
  if (!ok) return false;
  if (mlcrt_module_load(so, &p->mod) != 0 || !(p->fn = mlcrt_module_get_func(p->mod, "mm"))) {
    fprintf(stderr, "bench: loading %s: %s\n", so, mlcrt_last_error());
    return false;
  }
  return true;
}

static int call(Prog *p) {
  int64_t sa[2] = {n_dim, n_dim}, sc[2] = {n_dim, n_dim};
  DLTensor a = {.data = A, .device = {kDLCPU, 0}, .ndim = 2, .dtype = {kDLUInt, 8, 1}, .shape = sa};
  DLTensor w = {.data = p->w, .device = {kDLCPU, 0}, .ndim = p->wdim, .dtype = {kDLInt, 8, 1}, .shape = p->wshape};
  DLTensor c = {.data = C, .device = {kDLCPU, 0}, .ndim = 2, .dtype = {kDLInt, 32, 1}, .shape = sc};
  DLTensor *args[3] = {&a, &w, &c};
  return mlcrt_func_call_tensors(p->fn, args, 3);
}

static bool check(Prog *p) {
  size_t nn = (size_t)n_dim * n_dim;
  memset(C, 0x5a, nn * sizeof *C);
  if (call(p) != 0) return fprintf(stderr, "bench: %s: %s\n", p->name, mlcrt_last_error()), false;
  for (size_t i = 0; i < nn; i++)
    if (C[i] != REF[i]) {
      fprintf(stderr, "bench: %s: C[%zu] is %d, the plain C matmul says %d\n", p->name, i, C[i], REF[i]);
      return false;
    }
  return true;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* the programs timed in alternation; medians into slot */
static bool time_all(Prog *ps, int n, int slot) {
  double t[MAX_PROGS][SAMPLES];
  for (int r = 0; r < SAMPLES; r++)
    for (int i = 0; i < n; i++) {
      if (ps[i].skip) continue;
      double t0 = now_s();
      if (call(&ps[i]) != 0) return fprintf(stderr, "bench: %s: %s\n", ps[i].name, mlcrt_last_error()), false;
      t[i][r] = now_s() - t0;
    }
  for (int i = 0; i < n; i++) {
    if (ps[i].skip) continue;
    qsort(t[i], SAMPLES, sizeof t[i][0], cmp_double);
    ps[i].median[slot] = t[i][SAMPLES / 2];
  }
  return true;
}

int main(int argc, char **argv) {
  const char *out = "build/bench-int8";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--size") && i + 1 < argc) n_dim = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else return fprintf(stderr, "usage: bench [--size N] [--out DIR]\n"), 2;
  }
  if (n_dim < 64 || n_dim > 4096 || n_dim % 64) return fprintf(stderr, "bench: --size must be a multiple of 64 in [64, 4096]\n"), 2;
  mkdir("build", 0777);
  mkdir(out, 0777);
  size_t nn = (size_t)n_dim * n_dim;
  A = malloc(nn), W = malloc(nn), C = malloc(nn * sizeof *C), REF = malloc(nn * sizeof *REF);
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < nn; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    A[i] = (uint8_t)(seed >> 56), W[i] = (int8_t)(seed >> 48);
  }
  for (int i = 0; i < n_dim; i++)
    for (int j = 0; j < n_dim; j++) {
      int64_t s = 0;
      for (int k = 0; k < n_dim; k++) s += (int64_t)A[(size_t)i * n_dim + k] * W[(size_t)k * n_dim + j];
      REF[(size_t)i * n_dim + j] = (int32_t)s;
    }
  MlcSchTarget host, cpu;
  mlc_sch_target_host(&host);
  mlc_sch_target_march(&cpu, "native");
  int L = cpu.dot_lanes;
  const char *marched = getenv("MLC_MARCH");
  printf("schedule target: %s, %d registers, dot-product lanes %d (%s)\n", host.name, host.vector_regs,
         host.dot_lanes, host.dot_lanes == 16 ? "AVX512-VNNI" : host.dot_lanes == 8 ? "AVX-VNNI" : "none");
  Prog ps[MAX_PROGS] = {{.name = "vnni", .dot_lanes = L, .native = true,
                         .cflags = marched && *marched ? "-march=native" : NULL},
                        {.name = "pair", .dot_lanes = 0},
                        {.name = "int32", .dot_lanes = 0, .cls = "avx"},
                        {.name = "vnni-c", .dot_lanes = L, .native = true, .cflags = "-march=x86-64-v3"},
                        {.name = "naive", .dot_lanes = -1}};
  if (!L) {
    printf("vnni, vnni-c: skipped: this CPU has no byte dot-product instruction\n");
    ps[0].skip = ps[3].skip = true;
  }
  for (int i = 0; i < MAX_PROGS; i++)
    if (!ps[i].skip && (!build(&ps[i], &host, out) || !check(&ps[i]))) return 1;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int threads[2] = {1, cores > 1 ? (int)cores : 1};
  for (int k = 0; k < 2; k++) {
    mlcrt_threads_set(threads[k]);
    if (!time_all(ps, MAX_PROGS, k)) return 1;
    for (int i = 0; i < MAX_PROGS; i++) /* what was timed still computes the product */
      if (!ps[i].skip && !check(&ps[i])) return 1;
  }
  double ops = 2.0 * n_dim * n_dim * n_dim;
  printf("\n%dx%dx%d uint8 x int8 -> int32, median of %d\n", n_dim, n_dim, n_dim, SAMPLES);
  printf("%-8s %7s %10s %8s %12s %13s\n", "program", "threads", "ms", "GOPS", "time / vnni", "naive / time");
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < MAX_PROGS; i++) {
      if (ps[i].skip) continue;
      printf("%-8s %7d %10.3f %8.1f", ps[i].name, threads[k], ps[i].median[k] * 1e3, ops / ps[i].median[k] * 1e-9);
      if (!ps[0].skip) printf(" %11.2fx", ps[i].median[k] / ps[0].median[k]);
      else printf(" %12s", "-");
      printf(" %12.2fx\n", ps[NAIVE].median[k] / ps[i].median[k]);
    }
  for (int i = 0; i < MAX_PROGS; i++) {
    if (ps[i].mod) mlcrt_module_free(ps[i].mod);
    if (ps[i].w != W) free(ps[i].w);
  }
  free(A), free(W), free(C), free(REF);
  return 0;
}
