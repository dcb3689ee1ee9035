/* test_sch_storage.c - the cache and reduction primitives on what the golden
 * cases cannot show: handles after a block is renamed or split in two, a
 * refusal leaving module and trace untouched, the guard a copy stage gets
 * when its tile overshoots the buffer, and reducers whose init is written as
 * infinity.  Expected modules are written out as text, independently of the
 * code, and results are also checked numerically on the interpreter. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "mlcc/interp.h"
#include "mlcc/schedule.h"
#include "mlcc/text.h"

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

/* Run two functions of the same signature (1-D or 2-D float32 buffers of
 * constant shape) on the same inputs; true when every buffer ends equal. */
static bool same_numbers(MlcCtx *ctx, const MlcPrimFunc *a, const MlcPrimFunc *b) {
  enum { MAXP = 4 };
  MlcInterpArg args[2][MAXP];
  float *data[2][MAXP] = {{0}};
  int64_t shapes[MAXP][2];
  size_t numel[MAXP];
  bool ok = a->n_params == b->n_params && a->n_params <= MAXP;
  for (int i = 0; ok && i < a->n_params; i++) {
    const MlcBuffer *buf = a->params[i].buf;
    numel[i] = 1;
    for (int d = 0; d < buf->ndim; d++) {
      shapes[i][d] = buf->shape[d]->int_val;
      numel[i] *= (size_t)shapes[i][d];
    }
    for (int k = 0; k < 2; k++) {
      data[k][i] = calloc(numel[i], sizeof(float));
      for (size_t e = 0; e < numel[i]; e++) data[k][i][e] = (float)((e * 7 + (size_t)i * 3) % 11) - 5.0f;
      args[k][i] = (MlcInterpArg){.is_buffer = true, .data = data[k][i], .ndim = buf->ndim, .shape = shapes[i]};
    }
  }
  ok = ok && mlc_interp_run(ctx, a, args[0], a->n_params) && mlc_interp_run(ctx, b, args[1], b->n_params);
  for (int i = 0; ok && i < a->n_params; i++)
    for (size_t e = 0; e < numel[i]; e++)
      if (fabsf(data[0][i][e] - data[1][i][e]) > 1e-5f * (1.0f + fabsf(data[0][i][e]))) ok = false;
  for (int i = 0; i < MAXP; i++) free(data[0][i]), free(data[1][i]);
  return ok;
}

static const char *const MM = "@T.prim_func\n"
                              "def mm(A: T.Buffer((16, 16), \"float32\"), B: T.Buffer((16, 16), \"float32\"),\n"
                              "       Y: T.Buffer((16, 16), \"float32\")):\n"
                              "    for i, j, k in T.grid(16, 16, 16):\n"
                              "        with T.block(\"Y\"):\n"
                              "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
                              "            with T.init():\n"
                              "                Y[vi, vj] = T.float32(0)\n"
                              "            Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]\n";

/* Every handle of the reduction block follows it to "Y_update"; the one
 * decompose_reduction returns names the init block. */
static void test_decompose_handles(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, MM);
  MlcSchedule *s = m ? mlc_sch_new(ctx, m, NULL, 0) : NULL;
  CHECK(s && run(s, "b0 = sch.get_block(\"Y\")\n"
                    "b1 = sch.get_block(\"Y\")\n"
                    "l2, l3, l4 = sch.get_loops(b0)\n"
                    "b5 = sch.decompose_reduction(b1, l3)\n"
                    "l6, l7, l8 = sch.get_loops(b0)\n"
                    "l9, l10 = sch.get_loops(b5)\n"
                    "sch.unroll(l8)\n"));
  MlcBlockRV upd, init;
  CHECK(s && mlc_sch_get_block(s, "Y_update", &upd) && mlc_sch_get_block(s, "Y_init", &init));
  CHECK(s && !mlc_sch_get_block(s, "Y", &upd) && error_has(ctx, "'Y'"));
  if (s) CHECK(same_numbers(ctx, m->funcs[0].prim, mlc_sch_func(s)));
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* rfactor returns the rf block; the old handle names the write-back block
 * (it keeps the name), whose loops are the kept ones. */
static void test_rfactor_handles(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, MM);
  MlcSchedule *s = m ? mlc_sch_new(ctx, m, NULL, 0) : NULL;
  CHECK(s && run(s, "b0 = sch.get_block(\"Y\")\n"
                    "l1, l2, l3 = sch.get_loops(b0)\n"
                    "l4, l5 = sch.split(l3, factors=[None, 4])\n"
                    "b6 = sch.rfactor(l5, factor_axis=1)\n"
                    "l7, l8, l9, l10 = sch.get_loops(b6)\n"
                    "l11, l12, l13 = sch.get_loops(b0)\n"
                    "sch.parallel(l11)\n"));
  MlcBlockRV rf;
  CHECK(s && mlc_sch_get_block(s, "Y_rf", &rf));
  if (s) CHECK(same_numbers(ctx, m->funcs[0].prim, mlc_sch_func(s)));
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* A refused primitive changes neither the module nor the trace. */
static void test_refusal_changes_nothing(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, MM);
  MlcSchedule *s = m ? mlc_sch_new(ctx, m, NULL, 0) : NULL;
  CHECK(s && run(s, "b0 = sch.get_block(\"Y\")\nb1 = sch.cache_read(b0, 0, \"shared\")\n"));
  if (!s) return;
  const MlcModule *before = mlc_sch_module(s);
  MlcStrBuf t0 = {0}, t1 = {0};
  mlc_sch_print_trace(s, &t0);
  static const char *const refused[] = {
      "b2 = sch.get_block(\"Y\")\nb3 = sch.cache_write(b2, 0, \"texture\")\n",
      "b2 = sch.get_block(\"Y\")\nsch.set_scope(b2, 0, \"shared\")\n",
      "b2 = sch.get_block(\"A_shared\")\nl3, l4 = sch.get_loops(b2)\nb5 = sch.rfactor(l4, 0)\n",
      "b2 = sch.get_block(\"A_shared\")\nl3, l4 = sch.get_loops(b2)\nb5 = sch.decompose_reduction(b2, l3)\n",
      "b2 = sch.get_block(\"A_shared\")\nsch.storage_align(b2, 0, 1, -4, 0)\n",
  };
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    CHECK(!run(s, refused[i]));
    mlc_clear_error(ctx);
    CHECK(mlc_module_equal(before, mlc_sch_module(s)));
  }
  /* the get_block lines of the refused scripts are in the trace; the
   * refused primitives are not */
  mlc_sch_print_trace(s, &t1);
  CHECK(!strstr(mlc_sb_cstr(&t1), "cache_write") && !strstr(mlc_sb_cstr(&t1), "rfactor") &&
        !strstr(mlc_sb_cstr(&t1), "set_scope") && !strstr(mlc_sb_cstr(&t1), "storage_align") &&
        !strstr(mlc_sb_cstr(&t1), "decompose"));
  CHECK(strncmp(mlc_sb_cstr(&t0), mlc_sb_cstr(&t1), t0.len) == 0);
  mlc_vec_free(&t0);
  mlc_vec_free(&t1);
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* Tiles of 4 over 10 elements: the last tile overshoots B, so the copy back
 * inside the tile loop gets a guard. */
static const char *const TILES = "@T.prim_func\n"
                                 "def tiles(A: T.Buffer((10,), \"float32\"), C: T.Buffer((10,), \"float32\")):\n"
                                 "    B = T.alloc_buffer((10,))\n"
                                 "    for io in range(3):\n"
                                 "        for ii in range(4):\n"
                                 "            with T.block(\"B\"):\n"
                                 "                vi = T.axis.spatial(10, io * 4 + ii)\n"
                                 "                T.where(io * 4 + ii < 10)\n"
                                 "                B[vi] = A[vi] * T.float32(2)\n"
                                 "        for ii in range(4):\n"
                                 "            with T.block(\"C\"):\n"
                                 "                vi = T.axis.spatial(10, io * 4 + ii)\n"
                                 "                T.where(io * 4 + ii < 10)\n"
                                 "                C[vi] = B[vi] + T.float32(1)\n";

static const char *const TILES_CACHED =
    "@T.prim_func\n"
    "def tiles(A: T.Buffer((10,), \"float32\"), C: T.Buffer((10,), \"float32\")):\n"
    "    B = T.alloc_buffer((10,))\n"
    "    B_local = T.alloc_buffer((10,), scope=\"local\")\n"
    "    for io in range(3):\n"
    "        for ii in range(4):\n"
    "            with T.block(\"B\"):\n"
    "                vi = T.axis.spatial(10, io * 4 + ii)\n"
    "                T.where(io * 4 + ii < 10)\n"
    "                T.reads(A[vi])\n"
    "                T.writes(B_local[vi])\n"
    "                B_local[vi] = A[vi] * T.float32(2)\n"
    "        for ax0 in range(4):\n"
    "            with T.block(\"B_local\"):\n"
    "                v0 = T.axis.spatial(10, io * 4 + ax0)\n"
    "                T.where(io * 4 + ax0 < 10)\n"
    "                T.reads(B_local[v0])\n"
    "                T.writes(B[v0])\n"
    "                B[v0] = B_local[v0]\n"
    "        for ii in range(4):\n"
    "            with T.block(\"C\"):\n"
    "                vi = T.axis.spatial(10, io * 4 + ii)\n"
    "                T.where(io * 4 + ii < 10)\n"
    "                C[vi] = B[vi] + T.float32(1)\n";

static void test_cache_write_guard(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, TILES), *want = read_text(ctx, TILES_CACHED);
  MlcSchedule *s = m ? mlc_sch_new(ctx, m, NULL, 0) : NULL;
  CHECK(want && s && run(s, "b0 = sch.get_block(\"B\")\nb1 = sch.cache_write(b0, 0, \"local\")\n"));
  if (s && want) {
    CHECK(mlc_module_equal(mlc_sch_module(s), want));
    CHECK(same_numbers(ctx, m->funcs[0].prim, mlc_sch_func(s)));
  }
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* The reader of the tiles: its copy of B covers one tile, guarded too. */
static void test_cache_read_guard(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, TILES);
  MlcSchedule *s = m ? mlc_sch_new(ctx, m, NULL, 0) : NULL;
  CHECK(s && run(s, "b0 = sch.get_block(\"C\")\nb1 = sch.cache_read(b0, 0, \"shared\")\n"));
  if (s) CHECK(same_numbers(ctx, m->funcs[0].prim, mlc_sch_func(s)));
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

/* max with -inf as its init: infinity is the identity too */
static const char *const ROW_MAX = "@T.prim_func\n"
                                   "def row_max(A: T.Buffer((4, 32), \"float32\"), M: T.Buffer((4,), \"float32\")):\n"
                                   "    for i, k in T.grid(4, 32):\n"
                                   "        with T.block(\"M\"):\n"
                                   "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
                                   "            with T.init():\n"
                                   "                M[vi] = T.float32(\"-inf\")\n"
                                   "            M[vi] = T.max(M[vi], A[vi, vk])\n";

static void test_rfactor_infinite_identity(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, ROW_MAX);
  MlcSchedule *s = m ? mlc_sch_new(ctx, m, NULL, 0) : NULL;
  CHECK(s && run(s, "b0 = sch.get_block(\"M\")\n"
                    "l1, l2 = sch.get_loops(b0)\n"
                    "l3, l4 = sch.split(l2, factors=[4, 8])\n"
                    "b5 = sch.rfactor(l3, -1)\n"));
  if (s) CHECK(same_numbers(ctx, m->funcs[0].prim, mlc_sch_func(s)));
  mlc_sch_free(s);
  mlc_ctx_free(ctx);
}

int main(void) {
  RUN(test_decompose_handles);
  RUN(test_rfactor_handles);
  RUN(test_refusal_changes_nothing);
  RUN(test_cache_write_guard);
  RUN(test_cache_read_guard);
  RUN(test_rfactor_infinite_identity);
  return CHECK_DONE();
}
