/* tune_fixture.h - what the tuner's tests share (test_tune.c,
 * test_tune_remote.c): the course's 16 x 24 x 32 matmul + relu as TVMScript,
 * a schedule trace that splits and vectorizes its relu, a scratch directory
 * for record files, and the reference interpreter as the oracle that two
 * programs of it compute the same C on fixed random inputs.
 *
 * Header-only (static functions), like build_util.h: each test is one
 * program. */
#ifndef MLCC_TEST_TUNE_FIXTURE_H
#define MLCC_TEST_TUNE_FIXTURE_H

#include "mlcc/interp.h"
#include "mlcc/ir.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

static const char *mm_relu_src =
    "from tvm.script import ir as I\n"
    "from tvm.script import tir as T\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def mm_relu(A: T.Buffer((16, 32), \"float32\"), B: T.Buffer((32, 24), \"float32\"), C: T.Buffer((16, 24), \"float32\")):\n"
    "        Y = T.alloc_buffer((16, 24), \"float32\")\n"
    "        for i, j, k in T.grid(16, 24, 32):\n"
    "            with T.block(\"Y\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                with T.init():\n"
    "                    Y[vi, vj] = T.float32(0)\n"
    "                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]\n"
    "        for i, j in T.grid(16, 24):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))\n";

static const char *split_trace = "b0 = sch.get_block(\"C\")\n"
                                 "l1, l2 = sch.get_loops(block=b0)\n"
                                 "l3, l4 = sch.split(loop=l2, factors=[None, 8])\n"
                                 "sch.vectorize(loop=l4)\n";

/* the scratch directory (made by each test's main with mkdtemp) and a
 * file in it; four paths may be live at once */
static char tmpdir[64];

static const char *tmp_path(const char *name) {
  static char buf[4][128];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
  return buf[k];
}

/* interpreted C (16 x 24) of f on fixed random inputs */
static bool run_interp(MlcCtx *ctx, const MlcPrimFunc *f, float *c) {
  static float a[16 * 32], b[32 * 24];
  uint64_t st = 12345;
  for (int i = 0; i < 16 * 32; i++) st = st * 6364136223846793005ull + 1, a[i] = (float)((st >> 40) % 200) / 100 - 1;
  for (int i = 0; i < 32 * 24; i++) st = st * 6364136223846793005ull + 1, b[i] = (float)((st >> 40) % 200) / 100 - 1;
  int64_t sa[2] = {16, 32}, sb[2] = {32, 24}, sc[2] = {16, 24};
  MlcInterpArg args[3] = {{true, a, 2, sa, 0, 0}, {true, b, 2, sb, 0, 0}, {true, c, 2, sc, 0, 0}};
  return mlc_interp_run(ctx, f, args, 3);
}

/* ref and f compute the same C, to 1e-4 relative */
static bool same_result(MlcCtx *ctx, const MlcPrimFunc *ref, const MlcPrimFunc *f) {
  static float x[16 * 24], y[16 * 24];
  if (!run_interp(ctx, ref, x) || !run_interp(ctx, f, y)) return false;
  for (int i = 0; i < 16 * 24; i++)
    if (fabsf(x[i] - y[i]) > 1e-4f * (1 + fabsf(x[i]))) return false;
  return true;
}

#endif
