/* fuzz_schedule.c - libFuzzer target for schedule scripts.
 *
 * The input is a schedule script applied to a fixed module (a matmul and a
 * relu, 64 x 64, small enough that any primitive runs fast).  It must run or
 * stop with a located error, never crash; a refused line must leave the
 * schedule as it was; and the scheduled module must print and read back
 * structurally equal, so a primitive that builds IR the printer or reader
 * cannot carry aborts and the fuzzer keeps the input.
 *
 * The module is read once per process; every execution schedules it in the
 * same context and rolls the context back to the mark taken after reading,
 * which frees all it built.  Primitives never write into the module they
 * are given; its structural hash is checked after each execution, so one
 * that did would abort here rather than taint the executions after it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mlcc/support.h"
#include "mlcc/ir.h"
#include "mlcc/text.h"
#include "mlcc/schedule.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char MODULE[] =
    "from tvm.script import ir as I\n"
    "from tvm.script import tir as T\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def mm_relu(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64, 64), \"float32\"),\n"
    "                C: T.Buffer((64, 64), \"float32\")):\n"
    "        Y = T.alloc_buffer((64, 64))\n"
    "        for i, j, k in T.grid(64, 64, 64):\n"
    "            with T.block(\"Y\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                with T.init():\n"
    "                    Y[vi, vj] = T.float32(0.0)\n"
    "                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]\n"
    "        for i, j in T.grid(64, 64):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                C[vi, vj] = T.max(Y[vi, vj], T.float32(0.0))\n";

static void fail(const char *what, MlcCtx *ctx, const char *text) {
  MlcStrBuf err = {0};
  mlc_format_error(ctx, &err);
  fprintf(stderr, "%s\n%s\n%s\n", what, mlc_sb_cstr(&err), text ? text : "");
  abort();
}

static MlcCtx *ctx;
static const MlcModule *m;
static uint64_t m_hash;
static MlcCtxMark after_read;

static void finish(void) {
  mlc_ctx_mark_free(&after_read);
  mlc_ctx_free(ctx);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  ctx = mlc_ctx_new();
  m = mlc_read_module(ctx, "module.py", MODULE, sizeof MODULE - 1);
  if (!m) fail("the fixed module does not read", ctx, NULL);
  m_hash = mlc_module_hash(m);
  mlc_ctx_mark(ctx, &after_read);
  atexit(finish);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0; /* long scripts only repeat what short ones do */
  MlcSchedule *s = mlc_sch_new(ctx, m, "mm_relu", 1);
  if (!s) fail("no schedule", ctx, NULL);
  mlc_sch_run_script(s, "script.py", (const char *)data, size);
  mlc_clear_error(ctx);
  /* applied or stopped at an error: what the schedule holds prints and reads back */
  const MlcModule *out = mlc_sch_module(s);
  MlcStrBuf text = {0};
  mlc_print_module(out, &text);
  const MlcModule *back = mlc_read_module(ctx, "printed.py", mlc_sb_cstr(&text), text.len);
  if (!back) fail("the scheduled module's text does not read back", ctx, mlc_sb_cstr(&text));
  if (!mlc_module_equal(out, back)) fail("the scheduled module reads back different", ctx, mlc_sb_cstr(&text));
  mlc_vec_free(&text);
  mlc_sch_free(s);
  mlc_ctx_rollback(ctx, &after_read);
  if (mlc_module_hash(m) != m_hash) fail("a primitive changed the module it was given", ctx, NULL);
  return 0;
}
