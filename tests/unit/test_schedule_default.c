/* test_schedule_default.c - the default schedules, compiled and run.
 *
 * The golden cases tests/golden/schedule/default_NAME (before.py and a
 * default_TARGET marker) pin what the rules produce and check it against
 * the interpreter; this test takes the same programs further: each is
 * scheduled by the rules for AVX2 and for AVX-512 (the generated code is
 * correct on any CPU; only its speed depends on the target), built with
 * mlc_build_shared, called through the runtime on random inputs and
 * compared with the interpreter running the unscheduled program.  It also
 * checks the target table, that the rules fire on each pattern (the trace
 * names the primitives expected), that a module's graph functions and
 * unwanted prim funcs are left alone, and that a function the rules cannot
 * touch comes back unchanged with no error pending. */
#include "check.h"
#include "mlcc/interp.h"
#include "mlcc/schedule.h"

#define RAND_UTIL_SEED 0x6a09e667f3bcc909ull
#include "build_util.h"
#include "rand_util.h"

#include <math.h>

#define GOLDEN_DIR "tests/golden/schedule"
enum { MAX_PARAMS = 16 };

static MlcCtx *ctx;
static char tmpdir[4096];

/* ---- the target table ------------------------------------------------------------ */

static void test_targets(void) {
  static const struct { const char *march; int bits, regs; } want[] = {
      {"x86-64-v3", 256, 16}, {"haswell", 256, 16},         {"znver3", 256, 16},
      {"x86-64-v4", 512, 32}, {"skylake-avx512", 512, 32}, {"sapphirerapids", 512, 32},
      {"znver4", 512, 32},    {"x86-64", 128, 16},         {"no-such-cpu", 256, 16},
  };
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    MlcSchTarget t;
    mlc_sch_target_march(&t, want[i].march);
    CHECK(t.vector_bits == want[i].bits && t.vector_regs == want[i].regs && t.threads >= 1 && t.name);
  }
  /* MLC_MARCH overrides the host */
  const char *old = getenv("MLC_MARCH");
  char *saved = old ? mlc_xstrdup(old) : NULL;
  MlcSchTarget t;
  setenv("MLC_MARCH", "x86-64-v4", 1);
  mlc_sch_target_host(&t);
  CHECK(t.vector_bits == 512 && t.vector_regs == 32);
  setenv("MLC_MARCH", "x86-64-v3", 1);
  mlc_sch_target_host(&t);
  CHECK(t.vector_bits == 256 && t.vector_regs == 16);
  if (saved) setenv("MLC_MARCH", saved, 1), free(saved);
  else unsetenv("MLC_MARCH");
  mlc_sch_target_host(&t);
  CHECK(t.vector_bits >= 128 && t.vector_regs >= 16);
}

/* ---- running a program both ways ------------------------------------------------------ */

typedef struct Args {
  int n;
  int64_t shape[MAX_PARAMS][8];
  int64_t laid_shape[MAX_PARAMS][8]; /* of a param the schedule laid out anew */
  bool laid[MAX_PARAMS];
  size_t bytes[MAX_PARAMS];
  void *interp[MAX_PARAMS], *compiled[MAX_PARAMS];
  MlcInterpArg arg[MAX_PARAMS];
  DLTensor tensor[MAX_PARAMS];
  MlcrtValue value[MAX_PARAMS];
} Args;

static bool make_args(const MlcPrimFunc *f, Args *a) {
  memset(a, 0, sizeof *a);
  if (f->n_params > MAX_PARAMS) return false;
  a->n = f->n_params;
  for (int i = 0; i < f->n_params; i++) {
    const MlcBuffer *b = f->params[i].buf;
    const MlcExpr *syms[1];
    int nsyms = 0;
    size_t count;
    if (!b || b->dtype.code != MLC_TC_FLOAT || b->dtype.bits != 32 || b->ndim > 8 ||
        !buffer_shape(b, (int64_t[]){1}, syms, &nsyms, 0, a->shape[i], &count))
      return false;
    a->bytes[i] = count * 4;
    a->interp[i] = malloc(a->bytes[i] + 1);
    if (posix_memalign(&a->compiled[i], 64, a->bytes[i] + 64) != 0) return false;
    fill_random(b->dtype, a->interp[i], count);
    memcpy(a->compiled[i], a->interp[i], a->bytes[i]);
    a->arg[i] = (MlcInterpArg){.is_buffer = true, .data = a->interp[i], .ndim = b->ndim, .shape = a->shape[i]};
    a->tensor[i] = (DLTensor){.data = a->compiled[i], .device = {kDLCPU, 0}, .ndim = b->ndim,
                              .dtype = {kDLFloat, 32, 1}, .shape = a->shape[i]};
    a->value[i].tensor = &a->tensor[i];
  }
  return true;
}

static void free_args(Args *a) {
  for (int i = 0; i < a->n; i++) free(a->interp[i]), free(a->compiled[i]);
}

/* The params f1 takes in a layout of its own ("layout_rewrites": a conv
 * weight blocked by output channels) get the data laid out by the recorded
 * map; what they compute is still compared with f0 on the original data. */
static bool lay_out_params(const MlcPrimFunc *f1, Args *a) {
  const MlcAttrValue *v = mlc_attrs_get(f1->attrs, mlc_intern(ctx, "layout_rewrites"));
  for (int i = 0; v && i < v->list.n; i++) {
    const MlcAttrValue *p = &v->list.items[i];
    int k = (int)p->list.items[0].i;
    const MlcBuffer *b = f1->params[k].buf;
    MlcTensorData in = {b->dtype, a->tensor[k].ndim, a->shape[k], a->compiled[k], a->bytes[k]};
    MlcTensorData *out = mlc_sch_layout_apply(ctx, p->list.items[1].s, &in);
    if (!out || out->nbytes != a->bytes[k] || out->ndim != b->ndim || out->ndim > 8) return false;
    for (int d = 0; d < out->ndim; d++) {
      int64_t e;
      if (!mlc_e_is_const_int(b->shape[d], &e) || e != out->shape[d]) return false;
      a->laid_shape[k][d] = e;
    }
    memcpy(a->compiled[k], out->data, out->nbytes);
    a->tensor[k].ndim = out->ndim;
    a->tensor[k].shape = a->laid_shape[k];
    a->laid[k] = true;
  }
  return true;
}

/* The unscheduled f0 in the interpreter against the scheduled module
 * compiled; floats within 1e-4 (the C compiler contracts into FMAs). */
static bool run_both(const char *name, const MlcPrimFunc *f0, const MlcModule *scheduled) {
  Args a;
  bool ok = make_args(f0, &a);
  if (!ok) printf("    %s: a param this test cannot generate\n", name);
  mlc_clear_error(ctx);
  if (ok && !(ok = mlc_interp_run(ctx, f0, a.arg, a.n))) bu_print_error(ctx, name);
  MlcrtModule *mod = ok ? bu_build_and_load(ctx, scheduled, tmpdir, "sched", NULL) : NULL;
  const MlcrtFunc *fn = mod ? mlcrt_module_get_func(mod, f0->name) : NULL;
  if (ok && !fn) ok = false, printf("    %s: not built or not found\n", name);
  if (ok && !lay_out_params(mlc_module_find(scheduled, f0->name)->prim, &a))
    ok = false, printf("    %s: the recorded layouts do not apply\n", name);
  if (ok && mlcrt_func_call(fn, a.value, a.n) != 0) ok = false, printf("    %s: call: %s\n", name, mlcrt_last_error());
  for (int i = 0; ok && i < a.n; i++) {
    RandDiff d;
    if (a.laid[i]) continue; /* an input, laid out for the compiled side */
    if (!same_buffer(f0->params[i].buf->dtype, a.compiled[i], a.interp[i], a.bytes[i], 1e-4, 1e-4, NULL, &d)) {
      printf("    %s: '%s'[%zu] is %.9g compiled, %.9g interpreted\n", name, f0->params[i].buf->name, d.index,
             d.got, d.want);
      ok = false;
    }
  }
  if (mod) mlcrt_module_free(mod);
  free_args(&a);
  return ok;
}

/* ---- the cases ------------------------------------------------------------------------- */

/* primitives the trace of each case must hold, one per target, so a rule
 * that silently stops firing fails here (the golden after.py pins the
 * details for one target) */
#define CASES(X)                                                                  \
  X(elementwise, "sch.vectorize")                                               \
  X(broadcast_add, "sch.vectorize")                                             \
  X(transpose, "")                                                               \
  X(softmax, "sch.rfactor")                                                      \
  X(softmax_axis1, "sch.decompose_reduction")                                    \
  X(mean, "sch.rfactor")                                                         \
  X(maxpool, "sch.parallel")                                                     \
  X(matmul_avx2, "sch.cache_write")                                              \
  X(matmul_odd, "sch.cache_write")                                               \
  X(bmm, "sch.cache_write")                                                      \
  X(conv2d, "sch.cache_write")                                                   \
  X(conv2d_channels, "sch.transform_layout")                                     \
  X(depthwise_conv2d, "sch.cache_write")                                         \
  X(depthwise_epilogue, "sch.reverse_compute_at")                                \
  X(depthwise_scalar_row, "sch.compute_at")                                      \
  X(maxpool_pad, "sch.compute_at")                                               \
  X(avgpool_pad, "sch.compute_at")                                               \
  X(matmul_bias_relu, "sch.reverse_compute_inline")                            \
  X(dot, "sch.rfactor")                                                          \
  X(conv2d_transpose, "sch.transform_layout")                                    \
  X(conv2d_transpose_grouped, "sch.transform_layout")                            \
  X(conv1d_transpose, "sch.transform_layout")                                    \
  X(depthwise_channels, "sch.transform_layout")                                  \
  X(depthwise_channels_stride2, "sch.transform_layout")

static const struct { const char *name, *want; } cases[] = {
#define X(name, want) {#name, want},
    CASES(X)
#undef X
};

static const char *const marches[] = {"x86-64-v3", "x86-64-v4"};

static bool check_case(const char *name, const char *want, const char *march) {
  char path[512];
  snprintf(path, sizeof path, "%s/default_%s/before.py", GOLDEN_DIR, name);
  const MlcModule *m = bu_read_path(ctx, path);
  if (!m) return false;
  MlcSchTarget t;
  mlc_sch_target_march(&t, march);
  t.threads = 4;
  MlcSchedule *s = mlc_sch_new(ctx, m, NULL, 0);
  bool ok = s && mlc_sch_apply_default(s, &t) && !mlc_has_error(ctx);
  MlcStrBuf trace = {0};
  if (ok) mlc_sch_print_trace(s, &trace);
  if (ok && !strstr(mlc_sb_cstr(&trace), want)) ok = false, printf("    %s: the trace lacks %s\n", name, want);
  if (ok && (UNDER_SANITIZER && work(mlc_sch_func(s)->body) > SAN_WORK))
    printf("skip default/%s: too slow under the sanitizers\n", name);
  else if (ok) ok = run_both(name, mlc_module_find(m, mlc_sch_func(s)->name)->prim, mlc_sch_module(s));
  mlc_vec_free(&trace);
  mlc_sch_free(s);
  return ok;
}

static void test_cases_compiled(void) {
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    for (size_t k = 0; k < sizeof marches / sizeof *marches; k++) {
      bool ok = check_case(cases[i].name, cases[i].want, marches[k]);
      if (!ok) printf("    (case %s, %s)\n", cases[i].name, marches[k]);
      CHECK(ok);
    }
}

/* ---- laying out data by a recorded map ------------------------------------------------- */

/* mlc_sch_layout_apply against plain C loops: the conv weight blocking
 * (separable: applied per dim), a map mixing two dims (point by point), and
 * a map that is no bijection */
static void test_layout_apply(void) {
  enum { O = 32, I = 3, H = 2, W = 5, V = 8 };
  int64_t shape[4] = {O, I, H, W};
  MlcTensorData *in = mlc_tensor_data_new(ctx, MLC_F32, shape, 4);
  float *x = in->data;
  for (int i = 0; i < O * I * H * W; i++) x[i] = (float)i;
  MlcTensorData *out = mlc_sch_layout_apply(ctx, "lambda o, i, h, w: (o // 8, i, h, w, o % 8)", in);
  CHECK(out && out->ndim == 5 && out->shape[0] == O / V && out->shape[4] == V);
  bool same = out != NULL;
  for (int o = 0; same && o < O; o++)
    for (int i = 0; i < I; i++)
      for (int h = 0; h < H; h++)
        for (int w = 0; w < W; w++)
          same &= ((float *)out->data)[(((o / V * I + i) * H + h) * W + w) * V + o % V] == x[((o * I + i) * H + h) * W + w];
  CHECK(same);
  int64_t s2[2] = {6, 4};
  MlcTensorData *m = mlc_tensor_data_new(ctx, MLC_F32, s2, 2);
  for (int i = 0; i < 24; i++) ((float *)m->data)[i] = (float)i;
  /* (i, j) -> the flat index read backwards, split (3, 8): mixes both dims */
  MlcTensorData *r = mlc_sch_layout_apply(ctx, "lambda i, j: ((23 - (i * 4 + j)) // 8, (23 - (i * 4 + j)) % 8)", m);
  CHECK(r && r->ndim == 2 && r->shape[0] == 3 && r->shape[1] == 8);
  for (int k = 0; r && k < 24; k++) CHECK(((float *)r->data)[23 - k] == (float)k);
  CHECK(!mlc_sch_layout_apply(ctx, "lambda i, j: (i, j % 2)", m));
  CHECK(strstr(mlc_error_msg(ctx), "not bijective") != NULL);
  mlc_clear_error(ctx);
}

/* ---- the module entry ----------------------------------------------------------------- */

static const char two_funcs[] =
    "from tvm.script import ir as I\nfrom tvm.script import tir as T\n\n@I.ir_module\nclass Module:\n"
    "    @T.prim_func\n"
    "    def f(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64, 64), \"float32\")):\n"
    "        for i, j in T.grid(64, 64):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                B[vi, vj] = A[vi, vj] * T.float32(2)\n"
    "    @T.prim_func\n"
    "    def g(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64, 64), \"float32\")):\n"
    "        for i, j in T.grid(64, 64):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                B[vi, vj] = A[vi, vj] + T.float32(1)\n";

static bool only_f(const MlcPrimFunc *f, void *user) { return strcmp(f->name, user) == 0; }

static void test_module(void) {
  const MlcModule *m = bu_read_text(ctx, "two.py", two_funcs);
  CHECK(m != NULL);
  if (!m) return;
  MlcSchTarget t;
  mlc_sch_target_march(&t, "x86-64-v3");
  MlcModule *all = mlc_sch_default_module(ctx, m, &t, NULL, NULL);
  MlcModule *one = mlc_sch_default_module(ctx, m, &t, only_f, "f");
  CHECK(all && one && all->n_funcs == 2 && one->n_funcs == 2);
  if (!all || !one) return;
  CHECK(!mlc_prim_func_equal(all->funcs[0].prim, m->funcs[0].prim));
  CHECK(!mlc_prim_func_equal(all->funcs[1].prim, m->funcs[1].prim));
  CHECK(!mlc_prim_func_equal(one->funcs[0].prim, m->funcs[0].prim));
  CHECK(mlc_prim_func_equal(one->funcs[1].prim, m->funcs[1].prim));
  CHECK(!mlc_has_error(ctx));
}

/* a block the rules do not know (two stores) is left as it was */
static const char untouched[] =
    "from tvm.script import ir as I\nfrom tvm.script import tir as T\n\n@I.ir_module\nclass Module:\n"
    "    @T.prim_func\n"
    "    def h(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
    "        for i in range(64):\n"
    "            with T.block(\"B\"):\n"
    "                vi = T.axis.spatial(64, i)\n"
    "                B[vi] = A[vi]\n"
    "                B[vi] = B[vi] + A[vi]\n";

static void test_untouched(void) {
  const MlcModule *m = bu_read_text(ctx, "untouched.py", untouched);
  CHECK(m != NULL);
  if (!m) return;
  MlcSchTarget t;
  mlc_sch_target_march(&t, "x86-64-v3");
  MlcSchedule *s = mlc_sch_new(ctx, m, NULL, 0);
  CHECK(s && mlc_sch_apply_default(s, &t));
  MlcStrBuf trace = {0};
  if (s) mlc_sch_print_trace(s, &trace);
  CHECK(s && mlc_module_equal(mlc_sch_module(s), m) && trace.len == 0 && !mlc_has_error(ctx));
  mlc_vec_free(&trace);
  mlc_sch_free(s);
}

int main(void) {
  ctx = mlc_ctx_new();
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-default")) {
    printf("FAIL test_schedule_default: cannot make a scratch directory\n");
    return 1;
  }
  RUN(test_targets);
  RUN(test_module);
  RUN(test_untouched);
  RUN(test_layout_apply);
  RUN(test_cases_compiled);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
