/* test_sch_loops.c - the loop primitives (split, fuse, reorder,
 * add_unit_loop) and loop/block marks (parallel, vectorize, unroll, bind,
 * annotate, unannotate) on what the golden cases cannot show: symbolic
 * extents (checked numerically against the original function on the
 * interpreter), stale handles, overflow, a refusal leaving the module and
 * the trace untouched, list-valued annotations and every thread axis.
 * Expected modules are written out as text, independently of the code. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "mlcc/interp.h"
#include "mlcc/schedule.h"
#include "mlcc/text.h"
#include "schedule/state.h" /* sch_loop_rv: a handle to a loop outside any block */

static const char *const HDR = "from tvm.script import ir as I\nfrom tvm.script import tir as T\n\n";

static MlcModule *read_text(MlcCtx *ctx, const char *body) {
  MlcStrBuf sb = {0};
  mlc_sb_puts(&sb, HDR);
  mlc_sb_puts(&sb, body);
  MlcModule *m = mlc_read_module(ctx, "test.py", mlc_sb_cstr(&sb), sb.len);
  mlc_vec_free(&sb);
  return m;
}

static bool run(MlcSchedule *s, const char *script) {
  return mlc_sch_run_script(s, "script.py", script, strlen(script));
}

static bool error_has(MlcCtx *ctx, const char *text) {
  return mlc_has_error(ctx) && strstr(mlc_error_msg(ctx), text) != NULL;
}

static const char *const SCALE_N = "@T.prim_func\n"
                                   "def scale(a: T.handle, b: T.handle):\n"
                                   "    n = T.int32()\n"
                                   "    A = T.match_buffer(a, (n,))\n"
                                   "    B = T.match_buffer(b, (n,))\n"
                                   "    for i in range(n):\n"
                                   "        with T.block(\"B\"):\n"
                                   "            vi = T.axis.spatial(n, i)\n"
                                   "            T.reads(A[vi])\n"
                                   "            T.writes(B[vi])\n"
                                   "            B[vi] = A[vi] * T.float32(2.0)\n";

static const char *const SCALE_N_SPLIT = "@T.prim_func\n"
                                         "def scale(a: T.handle, b: T.handle):\n"
                                         "    n = T.int32()\n"
                                         "    A = T.match_buffer(a, (n,))\n"
                                         "    B = T.match_buffer(b, (n,))\n"
                                         "    for i_0 in range((n + 3) // 4):\n"
                                         "        for i_1 in T.vectorized(4):\n"
                                         "            with T.block(\"B\"):\n"
                                         "                vi = T.axis.spatial(n, i_0 * 4 + i_1)\n"
                                         "                T.where(i_0 * 4 + i_1 < n)\n"
                                         "                T.reads(A[vi])\n"
                                         "                T.writes(B[vi])\n"
                                         "                B[vi] = A[vi] * T.float32(2.0)\n";

/* B = 2 * A over n elements, for the function f */
static bool scale_matches(MlcCtx *ctx, const MlcPrimFunc *f, int64_t n) {
  float a[64], b[64];
  for (int i = 0; i < n; i++) a[i] = (float)i - 3.5f, b[i] = -1.0f;
  MlcInterpArg args[2] = {{.is_buffer = true, .data = a, .ndim = 1, .shape = &n},
                          {.is_buffer = true, .data = b, .ndim = 1, .shape = &n}};
  if (!mlc_interp_run(ctx, f, args, 2)) return false;
  for (int i = 0; i < n; i++)
    if (b[i] != 2.0f * a[i]) return false;
  return true;
}

/* A symbolic extent split by [None, 4]: ceildiv extent, a guard, and a
 * vectorized inner loop (lowering decides whether it can be vector code). */
static void test_split_symbolic(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, SCALE_N), *want = read_text(ctx, SCALE_N_SPLIT);
  CHECK(m && want);
  MlcSchedule *s = mlc_sch_new(ctx, m, NULL, 0);
  CHECK(run(s, "b0 = sch.get_block(\"B\")\n(l1,) = sch.get_loops(b0)\n"
               "l2, l3 = sch.split(l1, factors=[None, 4])\nsch.vectorize(l3)\n"));
  CHECK(mlc_module_equal(mlc_sch_module(s), want));
  for (int64_t n = 1; n <= 13; n += 3) CHECK(scale_matches(ctx, mlc_sch_func(s), n));
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

static const char *const ADD16 =
    "@T.prim_func\n"
    "def add(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
    "    for i in range(16):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(16, i)\n"
    "            T.reads(A[vi])\n"
    "            T.writes(B[vi])\n"
    "            B[vi] = A[vi] + T.float32(1.0)\n";

/* The loop a split replaced is gone: its handle is refused afterwards. */
static void test_stale_handle_after_split(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcSchedule *s = mlc_sch_new(ctx, read_text(ctx, ADD16), NULL, 0);
  CHECK(run(s, "b0 = sch.get_block(\"B\")\n(l1,) = sch.get_loops(b0)\nl2, l3 = sch.split(l1, [4, 4])\n"));
  CHECK(!run(s, "b0 = sch.get_block(\"B\")\nl1, l2 = sch.get_loops(b0)\nl3, l4 = sch.split(l1, [2, 2])\n"
                "sch.parallel(l1)\n"));
  CHECK(error_has(ctx, "parallel: loop 'i_0' no longer exists"));
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* A refused primitive leaves the very same module and trace behind. */
static void test_refusal_changes_nothing(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcSchedule *s = mlc_sch_new(ctx, read_text(ctx, ADD16), NULL, 0);
  CHECK(run(s, "b0 = sch.get_block(\"B\")\n(l1,) = sch.get_loops(b0)\n"));
  const MlcModule *before = mlc_sch_module(s);
  MlcStrBuf t1 = {0};
  static const struct {
    const char *line, *error;
  } refused[] = {
      {"l2, l3 = sch.split(l1, factors=[3, 5])\n", "do not cover extent 16"},
      {"l2, l3 = sch.split(l1, factors=[100000, 100000])\n", "overflows"},
      {"l2, l3 = sch.split(l1, factors=[None, -2])\n", "is not positive"},
      {"sch.bind(l1, \"warp.x\")\n", "unknown thread axis 'warp.x'"},
      {"sch.unannotate(l1, \"nothing\")\n", "loop 'i' has no annotation 'nothing'"},
      {"sch.reorder(l1, l1)\n", "appears twice"},
  };
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    mlc_clear_error(ctx);
    MlcStrBuf sc = {0};
    mlc_sb_printf(&sc, "b0 = sch.get_block(\"B\")\n(l1,) = sch.get_loops(b0)\n%s", refused[i].line);
    CHECK(!run(s, mlc_sb_cstr(&sc)));
    CHECK(error_has(ctx, refused[i].error));
    mlc_vec_free(&sc);
    CHECK(mlc_sch_module(s) == before);
  }
  mlc_sch_print_trace(s, &t1);
  static const char *const absent[] = {"split", "bind", "unannotate", "reorder"};
  for (size_t i = 0; i < sizeof absent / sizeof *absent; i++)
    CHECK(strstr(mlc_sb_cstr(&t1), absent[i]) == NULL);
  mlc_vec_free(&t1);
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* Products past the index type are refused, not wrapped. */
static void test_split_overflow(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcSchedule *s = mlc_sch_new(ctx, read_text(ctx, ADD16), NULL, 0);
  CHECK(!run(s, "b0 = sch.get_block(\"B\")\n(l1,) = sch.get_loops(b0)\n"
                "l2, l3, l4 = sch.split(l1, factors=[65536, 65536, None])\n"));
  CHECK(error_has(ctx, "overflows"));
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* Reordering one loop, or none, is allowed and changes nothing. */
static void test_reorder_trivial(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, ADD16);
  MlcSchedule *s = mlc_sch_new(ctx, m, NULL, 0);
  CHECK(run(s, "b0 = sch.get_block(\"B\")\n(l1,) = sch.get_loops(b0)\nsch.reorder(l1)\n"));
  CHECK(mlc_module_equal(mlc_sch_module(s), m));
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* add_unit_loop hands back the new loop, which later primitives accept. */
static void test_add_unit_loop_handle(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *want =
      read_text(ctx, "@T.prim_func\n"
                     "def add(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
                     "    for u in T.parallel(1):\n"
                     "        for i in range(16):\n"
                     "            with T.block(\"B\"):\n"
                     "                vi = T.axis.spatial(16, i)\n"
                     "                T.reads(A[vi])\n"
                     "                T.writes(B[vi])\n"
                     "                B[vi] = A[vi] + T.float32(1.0)\n");
  MlcSchedule *s = mlc_sch_new(ctx, read_text(ctx, ADD16), NULL, 0);
  CHECK(run(s, "b0 = sch.get_block(\"B\")\n(l1,) = sch.get_loops(b0)\nl2 = sch.add_unit_loop(l1)\n"
               "sch.parallel(l2)\n"));
  CHECK(mlc_module_equal(mlc_sch_module(s), want));
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* Every thread axis the field uses binds; the loop gets that tag. */
static void test_bind_every_axis(void) {
  static const char *const axes[] = {"blockIdx.x",  "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y",
                                     "threadIdx.z", "vthread",    "vthread.x",  "vthread.y",   "vthread.z"};
  for (size_t i = 0; i < sizeof axes / sizeof *axes; i++) {
    MlcCtx *ctx = mlc_ctx_new();
    MlcSchedule *s = mlc_sch_new(ctx, read_text(ctx, ADD16), NULL, 0);
    MlcStrBuf sc = {0};
    mlc_sb_printf(&sc, "b0 = sch.get_block(\"B\")\n(l1,) = sch.get_loops(b0)\nsch.bind(l1, \"%s\")\n",
                  axes[i]);
    CHECK(run(s, mlc_sb_cstr(&sc)));
    mlc_vec_free(&sc);
    const MlcStmt *root = mlc_sch_func(s)->body;
    const MlcStmt *loop = root->kind == MLC_STMT_BLOCK_REALIZE ? root->realize.block->body : root;
    CHECK(loop->kind == MLC_STMT_FOR && loop->loop.kind == MLC_FOR_THREAD);
    CHECK(loop->kind == MLC_STMT_FOR && loop->loop.thread && strcmp(loop->loop.thread, axes[i]) == 0);
    mlc_sch_free(s);
    mlc_ctx_free(ctx);
  }
}

/* A list-valued annotation through the C entry point. */
static void test_annotate_list_value(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcSchedule *s = mlc_sch_new(ctx, read_text(ctx, ADD16), NULL, 0);
  MlcBlockRV b;
  CHECK(mlc_sch_get_block(s, "B", &b));
  MlcSchVal items[2] = {{.kind = MLC_SV_INT, .i = 4}, {.kind = MLC_SV_STR, .s = mlc_intern(ctx, "x")}};
  MlcSchVal args[3] = {{.kind = MLC_SV_BLOCK, .rv = b.id},
                       {.kind = MLC_SV_STR, .s = mlc_intern(ctx, "tile")},
                       {.kind = MLC_SV_LIST, .list = {items, 2}}};
  MlcSchVal outs[16];
  int n_outs = -1;
  CHECK(mlc_sch_apply(s, MLC_SCH_annotate, args, outs, &n_outs));
  CHECK(n_outs == 0);
  const MlcStmt *root = mlc_sch_func(s)->body;
  const MlcStmt *loop = root->realize.block->body;
  const MlcBlock *blk = loop->loop.body->realize.block;
  const MlcAttrValue *v = mlc_attrs_get(blk->annotations, mlc_intern(ctx, "tile"));
  CHECK(v && v->kind == MLC_ATTR_LIST && v->list.n == 2);
  CHECK(v && v->list.items[0].kind == MLC_ATTR_INT && v->list.items[0].i == 4);
  CHECK(v && v->list.items[1].kind == MLC_ATTR_STR && strcmp(v->list.items[1].s, "x") == 0);
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* Fusing loops over a symbolic extent: the inner extent divides the fused
 * var; the result still computes B = 2 * A for several n. */
static void test_fuse_symbolic(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, "@T.prim_func\n"
                                "def scale(a: T.handle, b: T.handle):\n"
                                "    n = T.int32()\n"
                                "    A = T.match_buffer(a, (n, 4))\n"
                                "    B = T.match_buffer(b, (n, 4))\n"
                                "    for i, j in T.grid(n, 4):\n"
                                "        with T.block(\"B\"):\n"
                                "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
                                "            T.reads(A[vi, vj])\n"
                                "            T.writes(B[vi, vj])\n"
                                "            B[vi, vj] = A[vi, vj] * T.float32(2.0)\n");
  MlcModule *want = read_text(ctx, "@T.prim_func\n"
                                   "def scale(a: T.handle, b: T.handle):\n"
                                   "    n = T.int32()\n"
                                   "    A = T.match_buffer(a, (n, 4))\n"
                                   "    B = T.match_buffer(b, (n, 4))\n"
                                   "    for i_j_fused in range(n * 4):\n"
                                   "        with T.block(\"B\"):\n"
                                   "            vi = T.axis.spatial(n, i_j_fused // 4)\n"
                                   "            vj = T.axis.spatial(4, i_j_fused % 4)\n"
                                   "            T.reads(A[vi, vj])\n"
                                   "            T.writes(B[vi, vj])\n"
                                   "            B[vi, vj] = A[vi, vj] * T.float32(2.0)\n");
  MlcSchedule *s = mlc_sch_new(ctx, m, NULL, 0);
  CHECK(run(s, "b0 = sch.get_block(\"B\")\nl1, l2 = sch.get_loops(b0)\nl3 = sch.fuse(l1, l2)\n"));
  CHECK(mlc_module_equal(mlc_sch_module(s), want));
  for (int64_t n = 1; n <= 5; n++) {
    float a[20], b[20];
    int64_t shape[2] = {n, 4};
    for (int i = 0; i < n * 4; i++) a[i] = (float)i, b[i] = 0;
    MlcInterpArg args[2] = {{.is_buffer = true, .data = a, .ndim = 2, .shape = shape},
                            {.is_buffer = true, .data = b, .ndim = 2, .shape = shape}};
    CHECK(mlc_interp_run(ctx, mlc_sch_func(s), args, 2));
    for (int i = 0; i < n * 4; i++) CHECK(b[i] == 2.0f * a[i]);
  }
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* Code outside blocks cannot take a block predicate: a non-dividing split
 * guards it with an if. */
static void test_split_guard_without_blocks(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, "@T.prim_func\n"
                                "def add(A: T.Buffer((10,), \"float32\"), B: T.Buffer((10,), \"float32\")):\n"
                                "    for i in range(10):\n"
                                "        B[i] = A[i] + T.float32(1.0)\n");
  MlcModule *want =
      read_text(ctx, "@T.prim_func\n"
                     "def add(A: T.Buffer((10,), \"float32\"), B: T.Buffer((10,), \"float32\")):\n"
                     "    for i_0, i_1 in T.grid(3, 4):\n"
                     "        if i_0 * 4 + i_1 < 10:\n"
                     "            B[i_0 * 4 + i_1] = A[i_0 * 4 + i_1] + T.float32(1.0)\n");
  CHECK(m && want);
  MlcSchedule *s = mlc_sch_new(ctx, m, NULL, 0);
  /* no block to get the loop from: make its handle the way get_loops does */
  const MlcStmt *loop = mlc_sch_func(s)->body;
  CHECK(loop->kind == MLC_STMT_FOR);
  MlcLoopRV l = {sch_loop_rv(s, loop->loop.var)}, parts[2];
  int64_t factors[2] = {0, 4};
  CHECK(mlc_sch_split(s, l, factors, 2, parts));
  CHECK(mlc_module_equal(mlc_sch_module(s), want));
  float a[10], b[10];
  int64_t n = 10;
  for (int i = 0; i < 10; i++) a[i] = (float)i, b[i] = 0;
  MlcInterpArg args[2] = {{.is_buffer = true, .data = a, .ndim = 1, .shape = &n},
                          {.is_buffer = true, .data = b, .ndim = 1, .shape = &n}};
  CHECK(mlc_interp_run(ctx, mlc_sch_func(s), args, 2));
  for (int i = 0; i < 10; i++) CHECK(b[i] == a[i] + 1.0f);
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

int main(void) {
  RUN(test_split_symbolic);
  RUN(test_stale_handle_after_split);
  RUN(test_refusal_changes_nothing);
  RUN(test_split_overflow);
  RUN(test_reorder_trivial);
  RUN(test_add_unit_loop_handle);
  RUN(test_bind_every_axis);
  RUN(test_annotate_list_value);
  RUN(test_fuse_symbolic);
  RUN(test_split_guard_without_blocks);
  return CHECK_DONE();
}
