/* conv.c - the int8 conv benchmark: ConvInteger of a uint8 input (with a
 * zero point) and a constant int8 weight, 3x3, pad 1, the layer quantized
 * CNNs spend their time in, as mlcc compiles the ONNX node with and without
 * the CPU's byte dot-product instruction, and as it compiled it before the
 * dot-product form.
 *
 * The programs, each a one-node ONNX model imported, run through the graph
 * pipeline for its target and built with mlcc's library, then checked
 * against a plain C conv before and after it is timed:
 *   - "vnni": the default rules for this CPU with its dot-product lanes
 *     (skipped, with the reason, on a CPU without the instruction), built
 *     for this CPU even when MLC_MARCH names another: the im2col matrix
 *     times the weight tensorized onto vpdpbusd;
 *   - "pair": the same model for the target (MLC_MARCH or this CPU) told
 *     it has no such instruction: the pair form (vpmaddwd);
 *   - "int32": the graph ConvInteger imported to before (the input cast to
 *     int32 less its zero point, a conv of the int32 weight), written out
 *     as Cast, Sub and Conv nodes with the weight already shifted, as
 *     constant folding left it: the int32 conv and its default schedule.
 * Programs are timed in alternation at 1 thread and at all threads; the
 * table gives GOPS (2 * N*OC*OH*OW * C*9 over the median sample) and each
 * program's time over the "vnni" one's and the "int32" one's over each.
 *
 * Usage: conv [--channels C] [--size HW] [--out DIR]   (run.sh prints the CPU first) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mlcc/schedule.h"
#include "onnx_build.h"

#define U8 ONNX__TENSOR_PROTO__DATA_TYPE__UINT8
#define S8 ONNX__TENSOR_PROTO__DATA_TYPE__INT8
#define I32 ONNX__TENSOR_PROTO__DATA_TYPE__INT32

enum { SAMPLES = 11, N_PROGS = 3, INT32 = N_PROGS - 1, ZP = 3 };

typedef struct Prog {
  const char *name;
  int dot_lanes;       /* the schedule target's */
  bool native;         /* scheduled and built for this CPU rather than MLC_MARCH's */
  bool before;         /* the int32 graph */
  MlcrtModel *model;
  double median[2];
  bool skip;
} Prog;

static int C = 64, HW = 56;
static uint8_t *X;
static int8_t *W;
static int32_t *W32, *REF;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static Onnx__AttributeProto *ints_attr(const char *name, const int64_t *v, int k) {
  Onnx__AttributeProto *a = int_attr(name, 0);
  a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
  a->has_i = 0, a->n_ints = (size_t)k, a->ints = (int64_t *)v;
  return a;
}

static Onnx__NodeProto *node(const char *op, char **ins, int n_in, char *out, Onnx__AttributeProto **at, int n_at) {
  Onnx__NodeProto *p = calloc(1, sizeof *p);
  onnx__node_proto__init(p);
  p->op_type = (char *)op, p->name = (char *)op, p->domain = "";
  p->input = ins, p->n_input = (size_t)n_in, p->output = calloc(1, sizeof *p->output), p->n_output = 1;
  p->output[0] = out, p->attribute = at, p->n_attribute = (size_t)n_at;
  return p;
}

/* the model of program p, packed: ConvInteger(x, w, 3), or before the
 * dot-product form Conv(Sub(Cast(x, int32), 3), w - 0) */
static uint8_t *pack_model(const Prog *p, size_t *len) {
  static char *conv_in[4] = {"x", "w", "xz"}, *cast_in[1] = {"x"}, *sub_in[2] = {"x32", "xz32"}, *cv_in[2] = {"xs", "w32"};
  static uint8_t zp = ZP;
  static int32_t zp32 = ZP;
  int64_t pads[4] = {1, 1, 1, 1};
  Onnx__AttributeProto *at[1] = {ints_attr("pads", pads, 4)}, *to = int_attr("to", I32);
  Onnx__NodeProto *nodes[3];
  Init inits[2];
  int n_nodes = 0, n_inits = 0;
  if (!p->before) {
    nodes[n_nodes++] = node("ConvInteger", conv_in, 3, "y", at, 1);
    inits[n_inits++] = (Init){"w", 4, {C, C, 3, 3}, W, (size_t)C * C * 9, S8};
    inits[n_inits++] = (Init){"xz", 0, {0}, &zp, 1, U8};
  } else {
    nodes[n_nodes++] = node("Cast", cast_in, 1, "x32", &to, 1);
    nodes[n_nodes++] = node("Sub", sub_in, 2, "xs", NULL, 0);
    nodes[n_nodes++] = node("Conv", cv_in, 2, "y", at, 1);
    inits[n_inits++] = (Init){"w32", 4, {C, C, 3, 3}, W32, (size_t)C * C * 9 * 4, I32};
    inits[n_inits++] = (Init){"xz32", 0, {0}, &zp32, 4, I32};
  }
  Onnx__TensorProto *tps[2] = {tensor(&inits[0]), tensor(&inits[1])};
  int64_t xd[4] = {1, C, HW, HW};
  Onnx__ValueInfoProto *gin[1] = {value("x", xd, 4)}, *gout[1] = {value("y", NULL, 0)};
  gin[0]->type->tensor_type->elem_type = U8;
  Onnx__GraphProto g;
  onnx__graph_proto__init(&g);
  g.name = "g", g.node = nodes, g.n_node = (size_t)n_nodes, g.input = gin, g.n_input = 1;
  g.output = gout, g.n_output = 1, g.initializer = tps, g.n_initializer = 2;
  Onnx__OperatorSetIdProto os, *osp[1] = {&os};
  onnx__operator_set_id_proto__init(&os);
  os.domain = "", os.has_version = 1, os.version = 13;
  Onnx__ModelProto m;
  onnx__model_proto__init(&m);
  m.has_ir_version = 1, m.ir_version = 7, m.graph = &g, m.opset_import = osp, m.n_opset_import = 1;
  *len = onnx__model_proto__get_packed_size(&m);
  uint8_t *buf = malloc(*len);
  onnx__model_proto__pack(&m, buf);
  for (int i = 0; i < n_nodes; i++) free(nodes[i]->output), free(nodes[i]);
  free(tps[0]), free(tps[1]), free(at[0]), free(to);
  free_value(gin[0]), free_value(gout[0]);
  return buf;
}

static bool build(Prog *p, const MlcSchTarget *host, const char *out_dir) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/%s", out_dir, p->name);
  const char *marched = getenv("MLC_MARCH");
  MlcSchTarget t = *host;
  if (p->native) mlc_sch_target_march(&t, "native");
  t.dot_lanes = p->dot_lanes;
  size_t len;
  uint8_t *buf = pack_model(p, &len);
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_onnx_import(ctx, "int8_conv.onnx", buf, len, ".", NULL);
  free(buf);
  if (m) m = mlc_graph_pipeline(ctx, m, &t, MLC_PASS_COUNT - 1, NULL, NULL, NULL, NULL);
  MlcBuildOptions opt = {.target = MLC_TARGET_NATIVE, .extra_cflags = p->native && marched && *marched ? "-march=native" : NULL};
  bool ok = m && mlc_build_model(ctx, m, dir, &opt, NULL);
  if (!ok) bu_print_error(ctx, p->name);
  mlc_ctx_free(ctx);
  if (ok && mlcrt_model_load(dir, &p->model) != 0) {
    fprintf(stderr, "bench: loading %s: %s\n", dir, mlcrt_last_error());
    return false;
  }
  return ok;
}

static int call(Prog *p, const int32_t **y) {
  int64_t xs[4] = {1, C, HW, HW};
  DLTensor x = {.data = X, .device = {kDLCPU, 0}, .ndim = 4, .dtype = {kDLUInt, 8, 1}, .shape = xs};
  DLTensor *in[1] = {&x}, *out[1] = {NULL};
  int rc = mlcrt_model_run(p->model, in, 1, out, 1);
  if (y) *y = rc == 0 ? out[0]->data : NULL;
  return rc;
}

static bool check(Prog *p) {
  const int32_t *y;
  if (call(p, &y) != 0) return fprintf(stderr, "bench: %s: %s\n", p->name, mlcrt_last_error()), false;
  for (size_t i = 0; i < (size_t)C * HW * HW; i++)
    if (y[i] != REF[i]) {
      fprintf(stderr, "bench: %s: y[%zu] is %d, the plain C conv says %d\n", p->name, i, y[i], REF[i]);
      return false;
    }
  return true;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static bool time_all(Prog *ps, int slot) {
  double t[N_PROGS][SAMPLES];
  for (int i = 0; i < N_PROGS; i++) /* one untimed call each: pages, threads */
    if (!ps[i].skip && call(&ps[i], NULL) != 0) return false;
  for (int r = 0; r < SAMPLES; r++)
    for (int i = 0; i < N_PROGS; i++) {
      if (ps[i].skip) continue;
      double t0 = now_s();
      if (call(&ps[i], NULL) != 0) return fprintf(stderr, "bench: %s: %s\n", ps[i].name, mlcrt_last_error()), false;
      t[i][r] = now_s() - t0;
    }
  for (int i = 0; i < N_PROGS; i++) {
    if (ps[i].skip) continue;
    qsort(t[i], SAMPLES, sizeof t[i][0], cmp_double);
    ps[i].median[slot] = t[i][SAMPLES / 2];
  }
  return true;
}

/* the plain C conv, 3x3, pad 1: sum of (x - 3) * w over the window */
static void reference(void) {
  for (int oc = 0; oc < C; oc++)
    for (int oh = 0; oh < HW; oh++)
      for (int ow = 0; ow < HW; ow++) {
        int64_t s = 0;
        for (int c = 0; c < C; c++)
          for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
              int y = oh + i - 1, x = ow + j - 1;
              if (y < 0 || y >= HW || x < 0 || x >= HW) continue;
              s += ((int64_t)X[((size_t)c * HW + y) * HW + x] - ZP) * W[(((size_t)oc * C + c) * 3 + i) * 3 + j];
            }
        REF[((size_t)oc * HW + oh) * HW + ow] = (int32_t)s;
      }
}

int main(int argc, char **argv) {
  const char *out = "build/bench-int8";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--channels") && i + 1 < argc) C = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--size") && i + 1 < argc) HW = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else return fprintf(stderr, "usage: conv [--channels C] [--size HW] [--out DIR]\n"), 2;
  }
  if (C < 1 || C > 1024 || HW < 1 || HW > 512) return fprintf(stderr, "conv: --channels in [1, 1024], --size in [1, 512]\n"), 2;
  mkdir("build", 0777);
  mkdir(out, 0777);
  size_t nx = (size_t)C * HW * HW, nw = (size_t)C * C * 9;
  X = malloc(nx), W = malloc(nw), W32 = malloc(nw * 4), REF = malloc(nx * 4);
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < nx || i < nw; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    if (i < nx) X[i] = (uint8_t)(seed >> 56);
    if (i < nw) W[i] = (int8_t)(seed >> 48), W32[i] = W[i];
  }
  reference();
  MlcSchTarget host, cpu;
  mlc_sch_target_host(&host);
  mlc_sch_target_march(&cpu, "native");
  int L = cpu.dot_lanes;
  Prog ps[N_PROGS] = {{.name = "vnni", .dot_lanes = L, .native = true},
                      {.name = "pair", .dot_lanes = 0},
                      {.name = "int32", .dot_lanes = host.dot_lanes, .before = true}};
  if (!L) {
    printf("vnni: skipped: this CPU has no byte dot-product instruction\n");
    ps[0].skip = true;
  }
  for (int i = 0; i < N_PROGS; i++)
    if (!ps[i].skip && (!build(&ps[i], &host, out) || !check(&ps[i]))) return 1;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int threads[2] = {1, cores > 1 ? (int)cores : 1};
  for (int k = 0; k < 2; k++) {
    mlcrt_threads_set(threads[k]);
    if (!time_all(ps, k)) return 1;
    for (int i = 0; i < N_PROGS; i++) /* what was timed still computes the conv */
      if (!ps[i].skip && !check(&ps[i])) return 1;
  }
  double ops = 2.0 * C * HW * HW * C * 9;
  printf("\nConvInteger 1x%dx%dx%d, %d out channels, 3x3, pad 1, uint8 x int8 -> int32, median of %d\n", C, HW, HW, C,
         SAMPLES);
  printf("%-8s %7s %10s %8s %12s %13s\n", "program", "threads", "ms", "GOPS", "time / vnni", "int32 / time");
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < N_PROGS; i++) {
      if (ps[i].skip) continue;
      printf("%-8s %7d %10.3f %8.1f", ps[i].name, threads[k], ps[i].median[k] * 1e3, ops / ps[i].median[k] * 1e-9);
      if (!ps[0].skip) printf(" %11.2fx", ps[i].median[k] / ps[0].median[k]);
      else printf(" %12s", "-");
      printf(" %12.2fx\n", ps[INT32].median[k] / ps[i].median[k]);
    }
  for (int i = 0; i < N_PROGS; i++)
    if (ps[i].model) mlcrt_model_free(ps[i].model);
  free(X), free(W), free(W32), free(REF);
  return 0;
}
