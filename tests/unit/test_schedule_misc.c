/* test_schedule_misc.c - what the golden cases of the sampling, layout and
 * tensorize primitives cannot show: that perfect tiles and categorical
 * samples are drawn from the right set with the right frequencies, that a
 * seed fixes them, that intrinsics register from a module (and malformed
 * ones do not), and the size limit of transform_layout's bijection check.
 *
 * Expected sets and frequencies are worked out by hand in each test. */
#include <string.h>

#include "check.h"
#include "mlcc/interp.h"
#include "mlcc/schedule.h"
#include "mlcc/text.h"
#include "schedule/state.h"

static const char *mm_text =
    "@T.prim_func\n"
    "def mm(A: T.Buffer((16, 16), \"float32\"), B: T.Buffer((16, 16), \"float32\"), C: T.Buffer((16, 16), \"float32\")):\n"
    "    for i, j, k in T.grid(16, 16, 8):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

static MlcSchedule *schedule_of(MlcCtx *ctx, const char *text, uint64_t seed) {
  MlcModule *m = mlc_read_module(ctx, "test.py", text, strlen(text));
  return m ? mlc_sch_new(ctx, m, NULL, seed) : NULL;
}

/* handle of loop `which` of block C */
static MlcSchVal loop_of(MlcSchedule *s, int which) {
  MlcBlockRV b;
  MlcLoopRV loops[4];
  int n = 0;
  if (!mlc_sch_get_block(s, "C", &b) || !mlc_sch_get_loops(s, b, loops, 4, &n) || which >= n)
    return (MlcSchVal){.kind = MLC_SV_NONE};
  return (MlcSchVal){.kind = MLC_SV_LOOP, .rv = loops[which].id};
}

/* one sample_perfect_tile; false when refused */
static bool tile(MlcSchedule *s, MlcSchVal loop, int n, int max_inner, int64_t *f) {
  MlcSchVal args[8] = {loop, {.kind = MLC_SV_INT, .i = n}, {.kind = MLC_SV_INT, .i = max_inner}};
  MlcSchVal outs[MLC_SCH_MAX_OUTS];
  int k;
  if (!mlc_sch_apply(s, MLC_SCH_sample_perfect_tile, args, outs, &k) || k != n) return false;
  for (int i = 0; i < n; i++) f[i] = s->rvs.data[outs[i].rv].value;
  return true;
}

/* j's extent 16 in two factors, innermost <= 16: (16,1) (8,2) (4,4) (2,8)
 * (1,16), each a fifth of the time. */
static void test_perfect_tile_uniform(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcSchedule *s = schedule_of(ctx, mm_text, 7);
  CHECK(s != NULL);
  MlcSchVal j = loop_of(s, 1);
  int count[17] = {0};
  bool ok = true;
  for (int t = 0; t < 5000 && ok; t++) {
    int64_t f[2];
    ok = tile(s, j, 2, 16, f) && f[0] * f[1] == 16 && f[1] >= 1 && f[1] <= 16;
    if (ok) count[f[1]]++;
  }
  CHECK(ok);
  for (int inner = 1; inner <= 16; inner++) {
    bool valid = inner == 1 || inner == 2 || inner == 4 || inner == 8 || inner == 16;
    if (valid) CHECK(count[inner] > 850 && count[inner] < 1150);
    else CHECK(count[inner] == 0);
  }
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* k's extent 8 in three factors, innermost <= 2: with innermost 1 the
 * ordered pairs of product 8 (4 of them), with innermost 2 those of
 * product 4 (3): 7 lists, each drawn. */
static void test_perfect_tile_limit(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcSchedule *s = schedule_of(ctx, mm_text, 1);
  MlcSchVal k = loop_of(s, 2);
  int seen[9][9][3] = {{{0}}};
  int distinct = 0;
  bool ok = true;
  for (int t = 0; t < 700 && ok; t++) {
    int64_t f[3];
    ok = tile(s, k, 3, 2, f) && f[0] * f[1] * f[2] == 8 && f[2] <= 2;
    if (ok && !seen[f[0]][f[1]][f[2]]++) distinct++;
  }
  CHECK(ok);
  CHECK(distinct == 7);
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

static void draws(uint64_t seed, int64_t out[20]) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcSchedule *s = schedule_of(ctx, mm_text, seed);
  MlcSchVal i = loop_of(s, 0);
  for (int t = 0; t < 10; t++)
    if (!tile(s, i, 2, 16, &out[2 * t])) out[2 * t] = -1;
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* the seed alone fixes the draws */
static void test_seed_determines(void) {
  int64_t a[20], b[20], c[20];
  draws(42, a);
  draws(42, b);
  draws(43, c);
  CHECK(memcmp(a, b, sizeof a) == 0);
  CHECK(memcmp(a, c, sizeof a) != 0);
}

/* the printed trace replays to the same factors, whatever the seed */
static void test_decision_replays(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcSchedule *s = schedule_of(ctx, mm_text, 5);
  const char *script = "b0 = sch.get_block(\"C\")\n"
                       "l1, l2, l3 = sch.get_loops(b0)\n"
                       "v4, v5, v6 = sch.sample_perfect_tile(l1, n=3, max_innermost_factor=4)\n"
                       "l7, l8, l9 = sch.split(l1, factors=[v4, v5, v6])\n";
  CHECK(mlc_sch_run_script(s, "s.py", script, strlen(script)));
  MlcStrBuf t1 = {0}, t2 = {0};
  mlc_sch_print_trace(s, &t1);
  CHECK(strstr(mlc_sb_cstr(&t1), "decision=[") != NULL);
  MlcSchedule *r = schedule_of(ctx, mm_text, 999);
  CHECK(mlc_sch_run_script(r, "t.py", mlc_sb_cstr(&t1), t1.len));
  mlc_sch_print_trace(r, &t2);
  CHECK_STR(mlc_sb_cstr(&t2), mlc_sb_cstr(&t1));
  CHECK(mlc_module_equal(mlc_sch_module(r), mlc_sch_module(s)));
  mlc_vec_free(&t1);
  mlc_vec_free(&t2);
  mlc_sch_free(r);
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* probs 0.1, 0, 0.9: the middle candidate never, the others about 1:9 */
static void test_categorical_frequencies(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcSchedule *s = schedule_of(ctx, mm_text, 3);
  MlcSchVal cand[3] = {{.kind = MLC_SV_INT, .i = 10}, {.kind = MLC_SV_INT, .i = 20}, {.kind = MLC_SV_INT, .i = 30}};
  MlcSchVal probs[3] = {{.kind = MLC_SV_FLOAT, .f = 0.1}, {.kind = MLC_SV_FLOAT, .f = 0.0}, {.kind = MLC_SV_FLOAT, .f = 0.9}};
  MlcSchVal args[8] = {{.kind = MLC_SV_LIST, .list = {cand, 3}}, {.kind = MLC_SV_LIST, .list = {probs, 3}}};
  int count[4] = {0};
  bool ok = true;
  for (int t = 0; t < 4000 && ok; t++) {
    MlcSchVal outs[MLC_SCH_MAX_OUTS];
    int n;
    ok = mlc_sch_apply(s, MLC_SCH_sample_categorical, args, outs, &n) && n == 1;
    int64_t v = ok ? s->rvs.data[outs[0].rv].value : 0;
    ok = ok && (v == 10 || v == 20 || v == 30);
    if (ok) count[v / 10]++;
  }
  CHECK(ok);
  CHECK(count[2] == 0);
  CHECK(count[1] > 300 && count[1] < 500);
  CHECK(count[3] > 3500 && count[3] < 3700);
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* an intrinsic module: scale4 multiplies 4 elements by 2, implemented as
 * an add of the element to itself */
static const char *intrin_text =
    "@I.ir_module\n"
    "class Intrins:\n"
    "    @T.prim_func\n"
    "    def scale4_desc(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
    "        for i in range(4):\n"
    "            with T.block(\"s\"):\n"
    "                vi = T.axis.spatial(4, i)\n"
    "                B[vi] = A[vi] * T.float32(2.0)\n"
    "    @T.prim_func\n"
    "    def scale4_impl(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
    "        for i in T.unroll(4):\n"
    "            B[i] = A[i] + A[i]\n";

static const char *scale_text =
    "@T.prim_func\n"
    "def scale(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
    "    for i in range(16):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(16, i)\n"
    "            B[vi] = A[vi] * T.float32(2.0)\n";

static const char *scale_after_text =
    "@T.prim_func\n"
    "def scale(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
    "    for i_0 in range(4):\n"
    "        with T.block(\"B_o\"):\n"
    "            vi_o = T.axis.spatial(4, i_0)\n"
    "            T.reads(A[vi_o * 4:vi_o * 4 + 4])\n"
    "            T.writes(B[vi_o * 4:vi_o * 4 + 4])\n"
    "            for i in T.unroll(4):\n"
    "                B[vi_o * 4 + i] = A[vi_o * 4 + i] + A[vi_o * 4 + i]\n";

static void test_register_from_module(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *im = mlc_read_module(ctx, "intrins.py", intrin_text, strlen(intrin_text));
  CHECK(im != NULL);
  CHECK(mlc_sch_register_intrins(ctx, im) == 1);
  MlcSchedule *s = schedule_of(ctx, scale_text, 0);
  const char *script = "b0 = sch.get_block(\"B\")\n"
                       "l1, = sch.get_loops(b0)\n"
                       "l2, l3 = sch.split(l1, factors=[None, 4])\n"
                       "sch.tensorize(l3, \"scale4\")\n";
  CHECK(mlc_sch_run_script(s, "s.py", script, strlen(script)));
  MlcModule *want = mlc_read_module(ctx, "after.py", scale_after_text, strlen(scale_after_text));
  CHECK(want && mlc_module_equal(mlc_sch_module(s), want));
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* the registry keeps text, so a pair outlives the context it came from */
static void test_registry_outlives_context(void) {
  MlcCtx *c1 = mlc_ctx_new();
  MlcModule *im = mlc_read_module(c1, "intrins.py", intrin_text, strlen(intrin_text));
  CHECK(im && mlc_sch_register_intrins(c1, im) == 1);
  mlc_ctx_free(c1);
  MlcCtx *c2 = mlc_ctx_new();
  MlcSchedule *s = schedule_of(c2, scale_text, 0);
  const char *script = "l1, = sch.get_loops(sch.get_block(\"B\"))\n"
                       "l2, l3 = sch.split(l1, factors=[None, 4])\n"
                       "sch.tensorize(l3, \"scale4\")\n";
  CHECK(mlc_sch_run_script(s, "s.py", script, strlen(script)));
  mlc_sch_free(s);
  mlc_ctx_free(c2);
}

static void test_register_refuses_malformed(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const char *lonely = "@I.ir_module\nclass M:\n"
                       "    @T.prim_func\n"
                       "    def only_desc(A: T.Buffer((4,), \"float32\")):\n"
                       "        for i in range(4):\n"
                       "            with T.block(\"s\"):\n"
                       "                vi = T.axis.spatial(4, i)\n"
                       "                A[vi] = T.float32(0.0)\n";
  MlcModule *m = mlc_read_module(ctx, "m.py", lonely, strlen(lonely));
  CHECK(m && mlc_sch_register_intrins(ctx, m) == -1);
  CHECK(mlc_has_error(ctx) && strstr(mlc_error_msg(ctx), "has no 'only_impl'"));
  mlc_clear_error(ctx);
  const char *mismatch = "@I.ir_module\nclass M:\n"
                         "    @T.prim_func\n"
                         "    def z_desc(A: T.Buffer((4,), \"float32\")):\n"
                         "        for i in range(4):\n"
                         "            with T.block(\"s\"):\n"
                         "                vi = T.axis.spatial(4, i)\n"
                         "                A[vi] = T.float32(0.0)\n"
                         "    @T.prim_func\n"
                         "    def z_impl(A: T.Buffer((8,), \"float32\")):\n"
                         "        for i in range(8):\n"
                         "            A[i] = T.float32(0.0)\n";
  m = mlc_read_module(ctx, "m.py", mismatch, strlen(mismatch));
  CHECK(m && mlc_sch_register_intrins(ctx, m) == -1);
  CHECK(mlc_has_error(ctx) && strstr(mlc_error_msg(ctx), "param 0 must be a buffer of one constant shape"));
  mlc_ctx_free(ctx);
}

/* An implementation with blocks and a local buffer: each instance gets
 * fresh loop vars, iter vars, block names and its own buffer, bound to the
 * row piece it replaces. */
static const char *sum4_text =
    "@I.ir_module\n"
    "class Intrins:\n"
    "    @T.prim_func\n"
    "    def sum4_desc(A: T.Buffer((4,), \"float32\"), C: T.Buffer((1,), \"float32\")):\n"
    "        for k in range(4):\n"
    "            with T.block(\"update\"):\n"
    "                vk = T.axis.reduce(4, k)\n"
    "                C[0] = C[0] + A[vk]\n"
    "    @T.prim_func\n"
    "    def sum4_impl(A: T.Buffer((4,), \"float32\"), C: T.Buffer((1,), \"float32\")):\n"
    "        acc = T.alloc_buffer((1,), scope=\"local\")\n"
    "        with T.block(\"zero\"):\n"
    "            acc[0] = T.float32(0.0)\n"
    "        for k in range(4):\n"
    "            with T.block(\"acc\"):\n"
    "                vk = T.axis.reduce(4, k)\n"
    "                acc[0] = acc[0] + A[vk]\n"
    "        with T.block(\"out\"):\n"
    "            C[0] = C[0] + acc[0]\n";

static const char *rowsum_text =
    "@T.prim_func\n"
    "def rowsum(M: T.Buffer((8, 16), \"float32\"), y: T.Buffer((8,), \"float32\")):\n"
    "    for i, k in T.grid(8, 16):\n"
    "        with T.block(\"y\"):\n"
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "            with T.init():\n"
    "                y[vi] = T.float32(0.0)\n"
    "            y[vi] = y[vi] + M[vi, vk]\n";

static const char *rowsum_after_text =
    "@T.prim_func\n"
    "def rowsum(M: T.Buffer((8, 16), \"float32\"), y: T.Buffer((8,), \"float32\")):\n"
    "    for i, k_0 in T.grid(8, 4):\n"
    "        with T.block(\"y_o\"):\n"
    "            vi_o, vk_o = T.axis.remap(\"SR\", [i, k_0])\n"
    "            T.reads(M[vi_o, vk_o * 4:vk_o * 4 + 4])\n"
    "            T.writes(y[vi_o])\n"
    "            acc = T.alloc_buffer((1,), scope=\"local\")\n"
    "            with T.init():\n"
    "                with T.block(\"y_init\"):\n"
    "                    T.reads()\n"
    "                    T.writes(y[vi_o])\n"
    "                    y[vi_o] = T.float32(0.0)\n"
    "            with T.block(\"zero\"):\n"
    "                T.reads()\n"
    "                T.writes(acc[0])\n"
    "                acc[0] = T.float32(0.0)\n"
    "            for k in range(4):\n"
    "                with T.block(\"acc_1\"):\n"
    "                    vk_1 = T.axis.reduce(4, k)\n"
    "                    T.reads(acc[0], M[vi_o, vk_o * 4 + vk_1])\n"
    "                    T.writes(acc[0])\n"
    "                    acc[0] = acc[0] + M[vi_o, vk_o * 4 + vk_1]\n"
    "            with T.block(\"out\"):\n"
    "                T.reads(y[vi_o], acc[0])\n"
    "                T.writes(y[vi_o])\n"
    "                y[vi_o] = y[vi_o] + acc[0]\n";

/* y from both functions on the same M (small integers: sums are exact) */
static bool same_rowsums(MlcCtx *ctx, const MlcPrimFunc *f0, const MlcPrimFunc *f1) {
  float m[8 * 16], y0[8], y1[8];
  int64_t ms[2] = {8, 16}, ys[1] = {8};
  for (int i = 0; i < 8 * 16; i++) m[i] = (float)((i * 7) % 11) - 5.0f;
  for (int i = 0; i < 8; i++) y0[i] = y1[i] = 100.0f; /* overwritten by the init */
  MlcInterpArg a0[2] = {{.is_buffer = true, .data = m, .ndim = 2, .shape = ms}, {.is_buffer = true, .data = y0, .ndim = 1, .shape = ys}};
  MlcInterpArg a1[2] = {a0[0], {.is_buffer = true, .data = y1, .ndim = 1, .shape = ys}};
  if (!mlc_interp_run(ctx, f0, a0, 2) || !mlc_interp_run(ctx, f1, a1, 2)) return false;
  return memcmp(y0, y1, sizeof y0) == 0 && y0[0] != 100.0f;
}

static void test_tensorize_impl_with_blocks(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *im = mlc_read_module(ctx, "intrins.py", sum4_text, strlen(sum4_text));
  CHECK(im && mlc_sch_register_intrins(ctx, im) == 1);
  MlcSchedule *s = schedule_of(ctx, rowsum_text, 0);
  const char *script = "b0 = sch.get_block(\"y\")\n"
                       "l1, l2 = sch.get_loops(b0)\n"
                       "l3, l4 = sch.split(l2, factors=[None, 4])\n"
                       "sch.tensorize(l4, \"sum4\")\n";
  CHECK(s && mlc_sch_run_script(s, "s.py", script, strlen(script)));
  MlcModule *want = mlc_read_module(ctx, "after.py", rowsum_after_text, strlen(rowsum_after_text));
  CHECK(want && mlc_module_equal(mlc_sch_module(s), want));
  MlcModule *orig = mlc_read_module(ctx, "before.py", rowsum_text, strlen(rowsum_text));
  CHECK(orig && same_rowsums(ctx, orig->funcs[0].prim, mlc_sch_func(s)));
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* a buffer of 2^25 elements is over the bijection check's limit; refused,
 * the module unchanged */
static void test_layout_size_limit(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const char *text = "@T.prim_func\n"
                     "def big(A: T.Buffer((8192, 4096), \"float32\"), C: T.Buffer((8192, 4096), \"float32\")):\n"
                     "    B = T.alloc_buffer((8192, 4096))\n"
                     "    for i, j in T.grid(8192, 4096):\n"
                     "        with T.block(\"B\"):\n"
                     "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
                     "            B[vi, vj] = A[vi, vj]\n"
                     "    for i, j in T.grid(8192, 4096):\n"
                     "        with T.block(\"C\"):\n"
                     "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
                     "            C[vi, vj] = B[vi, vj]\n";
  MlcSchedule *s = schedule_of(ctx, text, 0);
  const MlcModule *before = s ? mlc_sch_module(s) : NULL;
  const char *script = "b0 = sch.get_block(\"B\")\n"
                       "sch.transform_layout(b0, (\"write\", 0), lambda i, j: (j, i))\n";
  CHECK(s && !mlc_sch_run_script(s, "s.py", script, strlen(script)));
  CHECK(strstr(mlc_error_msg(ctx), "has more than 16777216 elements") != NULL);
  CHECK(s && mlc_sch_module(s) == before);
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

int main(void) {
  RUN(test_perfect_tile_uniform);
  RUN(test_perfect_tile_limit);
  RUN(test_seed_determines);
  RUN(test_decision_replays);
  RUN(test_categorical_frequencies);
  RUN(test_register_from_module);
  RUN(test_registry_outlives_context);
  RUN(test_register_refuses_malformed);
  RUN(test_tensorize_impl_with_blocks);
  RUN(test_layout_size_limit);
  return CHECK_DONE();
}
