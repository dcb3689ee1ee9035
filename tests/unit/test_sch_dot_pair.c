/* test_sch_dot_pair.c - the pair form of the byte dot product
 * (dot_8x2_u8s8, dot_16x2_u8s8: T.dot2_u8s8, bytes widened to int16 and
 * vpmaddwd) for CPUs without VNNI, and the default rule that takes it.
 *
 * A matmul of uint8 activations A [M, K] and int8 weights packed
 * 2-interleaved, B [N/L, K/2, L*2] (B[j / L, k / 2, j % L * 2 + k % 2] is
 * the weight of row k, column j), is split to the intrinsic's tile and
 * tensorized, then run by the interpreter and built for the machine and for
 * AVX2 (-march=x86-64-v3); each result is compared with a plain C matmul of
 * the unpacked weights.  The data include the extremes (0 and 255 against
 * -128 and 127: a pair's products sum to 65280 in magnitude, past int16, so
 * a saturating form would fail them) and a K of 4096.  The AVX2 build of
 * the 8-lane form must contain vpmaddwd.  The default rule is checked for an
 * AVX2 and an AVX-512 target without VNNI (the weight laid out as the
 * intrinsic needs, the program right), and for an AVX and an SSE target,
 * which it leaves to the contraction rule. */
#include "check.h"
#include "mlcc/interp.h"
#include "mlcc/schedule.h"

#define RAND_UTIL_SEED 0x3c6ef372fe94f82bull
#include "build_util.h"
#include "rand_util.h"

#include <stdint.h>


static MlcCtx *ctx;
static char tmpdir[4096];

#define DOT_GROUP 2 /* bytes per int32 lane */
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
    "T.Cast(\"int32\", B[vj // %d, vk // 2, vj %% %d * 2 + vk %% 2])\n";

static const char script_fmt[] =
    "b = sch.get_block(\"mm\")\n"
    "i, j, k = sch.get_loops(b)\n"
    "jo, ji = sch.split(j, factors=[None, %d])\n"
    "ko, ki = sch.split(k, factors=[None, 2])\n"
    "sch.reorder(i, jo, ko, ji, ki)\n"
    "sch.decompose_reduction(b, ko)\n"
    "sch.tensorize(ji, \"dot_%dx2_u8s8\")\n";

static const MlcModule *tensorized(const Case *c) {
  char text[2048], script[1024];
  int L = c->lanes;
  snprintf(text, sizeof text, module_fmt, c->m, c->k, c->n / L, c->k / 2, L * 2, c->m, c->n, c->m, c->n, c->k, L, L);
  snprintf(script, sizeof script, script_fmt, L, L);
  const MlcModule *m = bu_read_text(ctx, "mm.py", text);
  MlcSchedule *s = m ? mlc_sch_new(ctx, m, "mm", 0) : NULL;
  if (s && !mlc_sch_run_script(s, "schedule.py", script, strlen(script))) bu_print_error(ctx, "schedule"), m = NULL;
  const MlcModule *out = s && m ? mlc_sch_module(s) : NULL;
  mlc_sch_free(s);
  return out;
}


static bool host_avx2(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

/* B packed (flat false) or [K, N] as it was (flat true) */
static bool run_built(const Case *c, const MlcModule *m, const Data *d, const char *cflags, bool flat) {
  char so[8192], csrc[8192];
  snprintf(so, sizeof so, "%s/mm.so", tmpdir);
  snprintf(csrc, sizeof csrc, "%s/mm.c", tmpdir);
  MlcBuildOptions opt = {.extra_cflags = cflags};
  mlc_clear_error(ctx);
  MlcrtModule *mod = NULL;
  bool ok = mlc_build_shared(ctx, m, so, &opt);
  if (!ok) bu_print_error(ctx, "build");
  /* the 8-lane pair form built for AVX2 is vpmaddwd, not the plain C loop */
  if (ok && cflags && host_avx2() && c->lanes == 8 && holds_text(m, "T.dot2_u8s8")) {
    int n = count_insn(so, "vpmaddwd");
    if (n == 0) ok = false, printf("    %s: no vpmaddwd in the 8-lane pair form\n", cflags);
  }
  if (ok && mlcrt_module_load(so, &mod) != 0) ok = false, printf("    loading: %s\n", mlcrt_last_error());
  unlink(so);
  unlink(csrc);
  const MlcrtFunc *fn = mod ? mlcrt_module_get_func(mod, "mm") : NULL;
  if (ok && !fn) ok = false, printf("    mm not found\n");
  int32_t *out = calloc((size_t)c->m * c->n, sizeof *out);
  int64_t sa[2] = {c->m, c->k}, sb[3] = {c->n / c->lanes, c->k / 2, c->lanes * 2}, sc[2] = {c->m, c->n};
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

static const Case cases[] = {
    {8, 3, 16, 16, 0},  {16, 3, 32, 16, 0}, {8, 2, 8, 4096, 1},   {8, 2, 16, 4096, 2},
    {16, 2, 16, 4096, 1}, {8, 1, 8, 64, 3},  {8, 4, 24, 4096, 0},
};

static void test_tensorized(void) {
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const Case *c = &cases[i];
    const MlcModule *m = tensorized(c);
    CHECK(m != NULL);
    if (!m) continue;
    CHECK(holds_text(m, "T.dot2_u8s8"));
    Data d;
    make_data(c, &d);
    CHECK(run_interp(c, m, &d));
    CHECK(run_built(c, m, &d, NULL, false));
    CHECK(run_built(c, m, &d, "-march=x86-64-v3", false));
    free_data(&d);
  }
}

/* ---- the default rule ------------------------------------------------------------ */

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

/* the plain matmul scheduled for march without VNNI: tensorized onto
 * dot_<lanes>x2_u8s8 (lanes 0: not tensorized), right when built */
static bool default_case(const Case *c, const char *march, int lanes) {
  char text[2048], want[64];
  snprintf(text, sizeof text, plain_fmt, c->m, c->k, c->k, c->n, c->m, c->n, c->m, c->n, c->k);
  snprintf(want, sizeof want, "tensor_intrin=\"dot_%dx2_u8s8\"", lanes);
  const MlcModule *m = bu_read_text(ctx, "plain.py", text);
  MlcSchTarget t;
  mlc_sch_target_march(&t, march);
  t.dot_lanes = 0, t.threads = 4;
  MlcSchedule *s = m ? mlc_sch_new(ctx, m, "mm", 0) : NULL;
  bool ok = s && mlc_sch_apply_default(s, &t);
  MlcStrBuf trace = {0};
  if (ok) mlc_sch_print_trace(s, &trace);
  const char *tr = mlc_sb_cstr(&trace);
  bool tensorized = ok && strstr(tr, "sch.tensorize") != NULL;
  if (ok && (tensorized != (lanes > 0) || (lanes && !strstr(tr, want))))
    ok = false, printf("    %s: the trace is\n%s\n", march, tr);
  const MlcModule *out = ok ? mlc_sch_module(s) : NULL;
  mlc_vec_free(&trace);
  mlc_sch_free(s);
  if (!out) return false;
  Data d;
  Case packed = *c;
  packed.lanes = lanes ? lanes : 8;
  make_data(&packed, &d);
  const MlcPrimFunc *f = mlc_module_find(out, mlc_intern(ctx, "mm"))->prim;
  const MlcAttrValue *lr = mlc_attrs_get(f->attrs, mlc_intern(ctx, "layout_rewrites"));
  int64_t wshape[2] = {c->k, c->n};
  MlcTensorData in = {MLC_DT(MLC_TC_INT, 8, 1), 2, wshape, d.w, (size_t)c->k * c->n};
  MlcTensorData *laid = lr ? mlc_sch_layout_apply(ctx, lr->list.items[0].list.items[1].s, &in) : NULL;
  if (lanes && (!laid || memcmp(laid->data, d.packed, (size_t)c->k * c->n) != 0))
    ok = false, printf("    %s: the weight is not laid out 2-interleaved\n", march);
  if (!lanes) memcpy(d.packed, d.w, (size_t)c->k * c->n);
  ok = ok && run_built(&packed, out, &d, NULL, !lanes) && run_built(&packed, out, &d, "-march=x86-64-v3", !lanes);
  free_data(&d);
  return ok;
}

static void test_default_rule(void) {
  static const Case cs[] = {{0, 24, 64, 64, 0}, {0, 5, 32, 4096, 1}, {0, 6, 48, 128, 0}, {0, 7, 16, 16, 2},
                            {0, 3, 32, 4096, 0}};
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
    CHECK(default_case(&cs[i], "x86-64-v3", 8));
    CHECK(default_case(&cs[i], "znver3", 8));
    if (cs[i].n % 16 == 0) CHECK(default_case(&cs[i], "x86-64-v4", 16));
    CHECK(default_case(&cs[i], "sandybridge", 0));
    CHECK(default_case(&cs[i], "x86-64-v2", 0));
  }
  /* N not a multiple of the lanes or K odd: the contraction rule */
  static const Case odd[] = {{0, 4, 12, 64, 0}, {0, 4, 16, 63, 0}};
  for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) CHECK(default_case(&odd[i], "x86-64-v3", 0));
}

/* the intrinsic's operand types are checked where the call is made, and a
 * block that is not the description's is refused */
static void test_refusals(void) {
  static const char bad[] =
      "@T.prim_func\n"
      "def f(A: T.Buffer((4,), \"uint8\"), B: T.Buffer((16,), \"int8\"), C: T.Buffer((8,), \"int32\")):\n"
      "    C[T.Ramp(0, 1, 8)] = T.dot2_u8s8(C[T.Ramp(0, 1, 8)], A[T.Ramp(0, 1, 4)], B[T.Ramp(0, 1, 16)])\n";
  mlc_clear_error(ctx);
  CHECK(mlc_read_module(ctx, "bad.py", bad, strlen(bad)) == NULL);
  CHECK(strstr(mlc_error_msg(ctx), "T.dot2_u8s8 takes int32xN, uint8x2 and int8x(2N)") != NULL);
  static const char s8[] =
      "@T.prim_func\n"
      "def mm(A: T.Buffer((1, 2), \"int8\"), B: T.Buffer((1, 1, 16), \"int8\"), C: T.Buffer((1, 8), \"int32\")):\n"
      "    for i, j, k in T.grid(1, 8, 2):\n"
      "        with T.block(\"mm\"):\n"
      "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
      "            C[vi, vj] = C[vi, vj] + T.Cast(\"int32\", A[vi, vk]) * T.Cast(\"int32\", B[0, 0, vj * 2 + vk])\n";
  static const char script[] = "b = sch.get_block(\"mm\")\ni, j, k = sch.get_loops(b)\nsch.tensorize(j, \"dot_8x2_u8s8\")\n";
  const MlcModule *m = bu_read_text(ctx, "s8.py", s8);
  MlcSchedule *s = m ? mlc_sch_new(ctx, m, "mm", 0) : NULL;
  CHECK(s && !mlc_sch_run_script(s, "schedule.py", script, strlen(script)));
  CHECK(strstr(mlc_error_msg(ctx), "does not match tensor intrinsic 'dot_8x2_u8s8'") != NULL);
  CHECK(s && mlc_module_equal(mlc_sch_module(s), m));
  mlc_sch_free(s);
}

int main(void) {
  ctx = mlc_ctx_new();
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-dot-pair")) {
    printf("FAIL test_sch_dot_pair: cannot make a scratch directory\n");
    return 1;
  }
  RUN(test_refusals);
  RUN(test_tensorized);
  RUN(test_default_rule);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
