/* test_sch_dot.c - the byte dot-product intrinsics (dot_16x4_u8s8,
 * dot_8x4_u8s8: T.dot4_u8s8, vpdpbusd) tensorized into an int8 matmul.
 *
 * A matmul of uint8 activations A [M, K] and int8 weights packed
 * 4-interleaved, B [N/L, K/4, L*4] (B[j / L, k / 4, j % L * 4 + k % 4] is
 * the weight of row k, column j), is split to the intrinsic's tile and
 * tensorized.  The tensorized program is run by the interpreter and built
 * twice, for the machine (-march=native, the instruction where the CPU has
 * VNNI) and for AVX2 (-march=x86-64-v3: the plain C form), and each result
 * is compared with a plain C matmul of the unpacked weights.  The data
 * include the extremes (0 and 255 against -128 and 127) and a K of 4096,
 * whose sums need every bit of the int32 accumulator.  Where the host has
 * the instruction of the intrinsic's width the native build must contain
 * vpdpbusd, and the AVX2 build must not. */
#include "check.h"
#include "mlcc/interp.h"
#include "mlcc/schedule.h"

#define RAND_UTIL_SEED 0x510e527fade682d1ull
#include "build_util.h"
#include "rand_util.h"

#include <stdint.h>


static MlcCtx *ctx;
static char tmpdir[4096];

#define DOT_GROUP 4 /* bytes per int32 lane */
#include "dot_check.h"

static const char module_fmt[] =
    "@T.prim_func\n"
    "def mm(A: T.Buffer((%d, %d), \"uint8\"), B: T.Buffer((%d, %d, %d), \"int8\"), C: T.Buffer((%d, %d), \"int32\")):\n"
    "    for i, j, k in T.grid(%d, %d, %d):\n"
    "        with T.block(\"mm\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = 0\n"
    "            C[vi, vj] = C[vi, vj] + T.Cast(\"int32\", A[vi, vk]) * "
    "T.Cast(\"int32\", B[vj // %d, vk // 4, vj %% %d * 4 + vk %% 4])\n";

static const char script_fmt[] =
    "b = sch.get_block(\"mm\")\n"
    "i, j, k = sch.get_loops(b)\n"
    "jo, ji = sch.split(j, factors=[None, %d])\n"
    "ko, ki = sch.split(k, factors=[None, 4])\n"
    "sch.reorder(i, jo, ko, ji, ki)\n"
    "sch.decompose_reduction(b, ko)\n"
    "sch.tensorize(ji, \"dot_%dx4_u8s8\")\n";

/* the tensorized module, NULL (printed) when a step fails */
static const MlcModule *tensorized(const Case *c) {
  char text[2048], script[1024];
  int L = c->lanes;
  snprintf(text, sizeof text, module_fmt, c->m, c->k, c->n / L, c->k / 4, L * 4, c->m, c->n, c->m, c->n, c->k, L, L);
  snprintf(script, sizeof script, script_fmt, L, L);
  const MlcModule *m = bu_read_text(ctx, "mm.py", text);
  MlcSchedule *s = m ? mlc_sch_new(ctx, m, "mm", 0) : NULL;
  if (s && !mlc_sch_run_script(s, "schedule.py", script, strlen(script))) bu_print_error(ctx, "schedule"), m = NULL;
  const MlcModule *out = s && m ? mlc_sch_module(s) : NULL;
  mlc_sch_free(s);
  return out;
}


/* whether the machine has the instruction of this many lanes (16:
 * AVX512-VNNI; 8: AVX-VNNI, or AVX512-VNNI with VL) */
static bool host_vnni(int lanes) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  bool v512 = __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512f");
  if (lanes == 16) return v512;
  return lanes == 8 && (__builtin_cpu_supports("avxvnni") || (v512 && __builtin_cpu_supports("avx512vl")));
#else
  (void)lanes;
  return false;
#endif
}

/* B of the packed shape, or [K, N] (flat true: the weight as it was) */
static bool run_built_as(const Case *c, const MlcModule *m, const Data *d, const char *cflags, bool flat) {
  char so[8192], csrc[8192];
  snprintf(so, sizeof so, "%s/mm.so", tmpdir);
  snprintf(csrc, sizeof csrc, "%s/mm.c", tmpdir);
  MlcBuildOptions opt = {.extra_cflags = cflags};
  mlc_clear_error(ctx);
  MlcrtModule *mod = NULL;
  bool ok = mlc_build_shared(ctx, m, so, &opt);
  if (!ok) bu_print_error(ctx, "build");
  /* the 16-lane form on a machine with AVX512-VNNI, built for it, is the
   * instruction; built for AVX2 it must not be */
  if (ok && host_vnni(c->lanes) && !getenv("MLC_MARCH") && (cflags || holds_text(m, "T.dot4_u8s8"))) {
    int n = count_insn(so, "vpdpbusd");
    bool want = cflags == NULL;
    if (n >= 0 && (n > 0) != want) ok = false, printf("    %s: vpdpbusd found %d times\n", cflags ? cflags : "native", n);
  }
  if (ok && mlcrt_module_load(so, &mod) != 0) ok = false, printf("    loading: %s\n", mlcrt_last_error());
  unlink(so);
  unlink(csrc);
  const MlcrtFunc *fn = mod ? mlcrt_module_get_func(mod, "mm") : NULL;
  if (ok && !fn) ok = false, printf("    mm not found\n");
  int32_t *out = calloc((size_t)c->m * c->n, sizeof *out);
  int64_t sa[2] = {c->m, c->k}, sb[3] = {c->n / c->lanes, c->k / 4, c->lanes * 4}, sc[2] = {c->m, c->n};
  int64_t sflat[2] = {c->k, c->n};
  DLTensor t[3] = {{.data = d->a, .device = {kDLCPU, 0}, .ndim = 2, .dtype = {kDLUInt, 8, 1}, .shape = sa},
                   {.data = d->packed, .device = {kDLCPU, 0}, .ndim = flat ? 2 : 3, .dtype = {kDLInt, 8, 1},
                    .shape = flat ? sflat : sb},
                   {.data = out, .device = {kDLCPU, 0}, .ndim = 2, .dtype = {kDLInt, 32, 1}, .shape = sc}};
  MlcrtValue v[3] = {{.tensor = &t[0]}, {.tensor = &t[1]}, {.tensor = &t[2]}};
  if (ok && mlcrt_func_call(fn, v, 3) != 0) ok = false, printf("    call: %s\n", mlcrt_last_error());
  ok = ok && same(cflags ? cflags : "built for the machine", c, out, d->want);
  free(out);
  if (mod) mlcrt_module_free(mod);
  return ok;
}

static bool run_built(const Case *c, const MlcModule *m, const Data *d, const char *cflags) {
  return run_built_as(c, m, d, cflags, false);
}

static const Case cases[] = {
    {16, 3, 32, 16, 0}, {8, 3, 16, 16, 0}, {16, 2, 16, 4096, 1}, {8, 2, 8, 4096, 2}, {16, 2, 32, 4096, 0},
};

static void test_tensorized(void) {
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const Case *c = &cases[i];
    const MlcModule *m = tensorized(c);
    CHECK(m != NULL);
    if (!m) continue;
    CHECK(holds_text(m, "T.dot4_u8s8"));
    Data d;
    make_data(c, &d);
    CHECK(run_interp(c, m, &d));
    CHECK(run_built(c, m, &d, NULL));
    CHECK(run_built(c, m, &d, "-march=x86-64-v3"));
    free_data(&d);
  }
}

/* ---- the default rule ------------------------------------------------------------ */

/* The plain int8 matmul (W [K, N] a constant weight: layout free),
 * scheduled by the default rules for a target with (L 16, 8) and without
 * (0: AVX, no integer vectors, so the contraction rule) the instruction;
 * built for the machine and for AVX2, its W laid out by the map the
 * schedule recorded, and compared with the plain C matmul. */
static const char plain_fmt[] =
    "@T.prim_func\n"
    "def mm(A: T.Buffer((%d, %d), \"uint8\"), W: T.Buffer((%d, %d), \"int8\"), C: T.Buffer((%d, %d), \"int32\")):\n"
    "    T.func_attr({\"layout_free_buffers\": [1]})\n"
    "    for i, j, k in T.grid(%d, %d, %d):\n"
    "        with T.block(\"mm\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = 0\n"
    "            C[vi, vj] = C[vi, vj] + T.Cast(\"int32\", A[vi, vk]) * T.Cast(\"int32\", W[vk, vj])\n";

static bool default_case(const Case *c, int dot_lanes) {
  char text[2048];
  snprintf(text, sizeof text, plain_fmt, c->m, c->k, c->k, c->n, c->m, c->n, c->m, c->n, c->k);
  const MlcModule *m = bu_read_text(ctx, "plain.py", text);
  MlcSchTarget t;
  /* without the instruction: an AVX target, where the pair form
   * (test_sch_dot_pair.c) does not apply either */
  mlc_sch_target_march(&t, dot_lanes == 16 ? "x86-64-v4" : dot_lanes ? "x86-64-v3" : "sandybridge");
  t.dot_lanes = dot_lanes, t.threads = 4;
  MlcSchedule *s = m ? mlc_sch_new(ctx, m, "mm", 0) : NULL;
  bool ok = s && mlc_sch_apply_default(s, &t);
  MlcStrBuf trace = {0};
  if (ok) mlc_sch_print_trace(s, &trace);
  bool tensorized = ok && strstr(mlc_sb_cstr(&trace), "sch.tensorize") != NULL;
  if (ok && tensorized != (dot_lanes > 0)) ok = false, printf("    lanes %d: tensorized %d\n", dot_lanes, tensorized);
  const MlcModule *out = ok ? mlc_sch_module(s) : NULL;
  mlc_vec_free(&trace);
  mlc_sch_free(s);
  if (!out) return false;
  Data d;
  Case packed = *c;
  packed.lanes = dot_lanes ? dot_lanes : c->lanes;
  make_data(&packed, &d);
  /* the weight as the schedule laid it out (or as it was) */
  const MlcPrimFunc *f = mlc_module_find(out, mlc_intern(ctx, "mm"))->prim;
  const MlcAttrValue *lr = mlc_attrs_get(f->attrs, mlc_intern(ctx, "layout_rewrites"));
  int64_t wshape[2] = {c->k, c->n};
  MlcTensorData in = {MLC_DT(MLC_TC_INT, 8, 1), 2, wshape, d.w, (size_t)c->k * c->n};
  MlcTensorData *laid = lr ? mlc_sch_layout_apply(ctx, lr->list.items[0].list.items[1].s, &in) : NULL;
  if (dot_lanes && (!laid || memcmp(laid->data, d.packed, (size_t)c->k * c->n) != 0))
    ok = false, printf("    lanes %d: the weight is not laid out 4-interleaved\n", dot_lanes);
  if (!dot_lanes) memcpy(d.packed, d.w, (size_t)c->k * c->n);
  bool flat = dot_lanes == 0;
  ok = ok && run_built_as(&packed, out, &d, NULL, flat) && run_built_as(&packed, out, &d, "-march=x86-64-v3", flat);
  free_data(&d);
  return ok;
}

static void test_default_rule(void) {
  static const Case cs[] = {{16, 24, 64, 64, 0}, {16, 5, 32, 4096, 1}, {8, 6, 48, 128, 0}, {16, 7, 16, 16, 2}};
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
    CHECK(default_case(&cs[i], cs[i].lanes));
    CHECK(default_case(&cs[i], 0));
  }
}

/* the intrinsic's operand types are checked where the call is made */
static void test_refusals(void) {
  static const char bad[] =
      "@T.prim_func\n"
      "def f(A: T.Buffer((4,), \"int8\"), B: T.Buffer((64,), \"int8\"), C: T.Buffer((16,), \"int32\")):\n"
      "    C[T.Ramp(0, 1, 16)] = T.dot4_u8s8(C[T.Ramp(0, 1, 16)], A[T.Ramp(0, 1, 4)], B[T.Ramp(0, 1, 64)])\n";
  mlc_clear_error(ctx);
  CHECK(mlc_read_module(ctx, "bad.py", bad, strlen(bad)) == NULL);
  CHECK(strstr(mlc_error_msg(ctx), "T.dot4_u8s8 takes int32xN, uint8x4 and int8x(4N)") != NULL);
  /* a block that is not the description's (int8 activations) is refused by name */
  static const char s8[] =
      "@T.prim_func\n"
      "def mm(A: T.Buffer((1, 4), \"int8\"), B: T.Buffer((1, 1, 64), \"int8\"), C: T.Buffer((1, 16), \"int32\")):\n"
      "    for i, j, k in T.grid(1, 16, 4):\n"
      "        with T.block(\"mm\"):\n"
      "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
      "            C[vi, vj] = C[vi, vj] + T.Cast(\"int32\", A[vi, vk]) * T.Cast(\"int32\", B[0, 0, vj * 4 + vk])\n";
  static const char script[] = "b = sch.get_block(\"mm\")\ni, j, k = sch.get_loops(b)\nsch.tensorize(j, \"dot_16x4_u8s8\")\n";
  const MlcModule *m = bu_read_text(ctx, "s8.py", s8);
  MlcSchedule *s = m ? mlc_sch_new(ctx, m, "mm", 0) : NULL;
  CHECK(s && !mlc_sch_run_script(s, "schedule.py", script, strlen(script)));
  CHECK(strstr(mlc_error_msg(ctx), "does not match tensor intrinsic 'dot_16x4_u8s8'") != NULL);
  CHECK(s && mlc_module_equal(mlc_sch_module(s), m));
  mlc_sch_free(s);
}

int main(void) {
  ctx = mlc_ctx_new();
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-dot")) {
    printf("FAIL test_sch_dot: cannot make a scratch directory\n");
    return 1;
  }
  RUN(test_refusals);
  RUN(test_tensorized);
  RUN(test_default_rule);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
