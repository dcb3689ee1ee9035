/* test_tune_rules.c - the design-space rules beyond tiling: rfactor (a
 * space of its own for reductions with more reduce than spatial
 * iterations, none for the others) and random compute location (a
 * producer auto-inline cannot inline goes to a sampled location).  Every
 * candidate drawn or given must compute what the unscheduled function
 * computes: the reference interpreter on both is the oracle. */
#include "check.h"
#include "mlcc/support.h"
#include "mlcc/ir.h"
#include "mlcc/text.h"
#include "mlcc/interp.h"
#include "mlcc/tune.h"

#include <math.h>
#include <stdlib.h>

static const char *row_sum_src =
    "from tvm.script import ir as I\n"
    "from tvm.script import tir as T\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def row_sum(A: T.Buffer((4, 512), \"float32\"), C: T.Buffer((4,), \"float32\")):\n"
    "        for i, k in T.grid(4, 512):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "                with T.init():\n"
    "                    C[vi] = T.float32(0)\n"
    "                C[vi] = C[vi] + A[vi, vk]\n";

/* more spatial than reduce work: tiled, never rfactored */
static const char *mm_src =
    "from tvm.script import ir as I\n"
    "from tvm.script import tir as T\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def mm(A: T.Buffer((16, 8), \"float32\"), B: T.Buffer((8, 16), \"float32\"), C: T.Buffer((16, 16), \"float32\")):\n"
    "        for i, j, k in T.grid(16, 16, 8):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                with T.init():\n"
    "                    C[vi, vj] = T.float32(0)\n"
    "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

/* B's block holds two stores: compute_inline refuses it */
static const char *pairs_src =
    "from tvm.script import ir as I\n"
    "from tvm.script import tir as T\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def pairs(A: T.Buffer((16, 64), \"float32\"), C: T.Buffer((16, 64), \"float32\")):\n"
    "        B = T.alloc_buffer((16, 64), \"float32\")\n"
    "        for i, j in T.grid(16, 32):\n"
    "            with T.block(\"B\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                B[vi, vj * 2] = A[vi, vj * 2] * T.float32(2)\n"
    "                B[vi, vj * 2 + 1] = A[vi, vj * 2 + 1] * T.float32(3)\n"
    "        for i, j in T.grid(16, 64):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                C[vi, vj] = B[vi, vj] + T.float32(1)\n";

/* f and g agree on random inputs in the interpreter (every buffer param
 * filled alike; the last one is the output) */
static bool agree(MlcCtx *ctx, const MlcPrimFunc *f, const MlcPrimFunc *g) {
  enum { MAXN = 4096 };
  static float in[3][2][MAXN];
  MlcInterpArg a[2][3];
  int64_t shapes[3][2];
  uint64_t st = 17;
  if (f->n_params > 3) return false;
  for (int p = 0; p < f->n_params; p++) {
    const MlcBuffer *b = f->params[p].buf;
    int64_t n = 1;
    for (int d = 0; d < b->ndim && d < 2; d++) {
      if (!mlc_e_is_const_int(b->shape[d], &shapes[p][d])) return false;
      n *= shapes[p][d];
    }
    if (n > MAXN) return false;
    for (int64_t i = 0; i < n; i++) {
      st = st * 6364136223846793005ull + 1;
      in[p][0][i] = in[p][1][i] = (float)((st >> 40) % 200) / 100 - 1;
    }
    for (int w = 0; w < 2; w++) a[w][p] = (MlcInterpArg){true, in[p][w], b->ndim, shapes[p], 0, 0};
  }
  if (!mlc_interp_run(ctx, f, a[0], f->n_params) || !mlc_interp_run(ctx, g, a[1], g->n_params)) return false;
  int out = f->n_params - 1;
  int64_t n = 1;
  for (int d = 0; d < f->params[out].buf->ndim; d++) n *= shapes[out][d];
  for (int64_t i = 0; i < n; i++)
    if (fabsf(in[out][0][i] - in[out][1][i]) > 1e-3f * (1 + fabsf(in[out][0][i]))) return false;
  return true;
}

static bool trace_has(MlcSchedule *s, const char *what) {
  MlcStrBuf sb = {0};
  mlc_sch_print_trace(s, &sb);
  bool found = strstr(mlc_sb_cstr(&sb), what) != NULL;
  mlc_vec_free(&sb);
  return found;
}

/* the spaces of src's function; the index of the first whose trace has
 * `what`, -1 when none */
static int spaces_of(MlcCtx *ctx, const MlcModule *m, MlcSchedule **sp, int *n, const char *what) {
  MlcSchTarget st;
  mlc_sch_target_host(&st);
  *n = mlc_tune_spaces(ctx, m, m->funcs[0].name, &st, sp, MLC_TUNE_MAX_SPACES);
  for (int i = 0; i < *n; i++)
    if (trace_has(sp[i], what)) return i;
  return -1;
}

/* candidate of space with the given decisions (NULL: drawn with seed) */
static MlcSchedule *candidate(MlcCtx *ctx, const MlcModule *m, MlcSchedule *space, const MlcSchVal *dec, int nd, uint64_t seed) {
  MlcSchTarget st;
  mlc_sch_target_host(&st);
  MlcSchedule *s = mlc_sch_new(ctx, m, m->funcs[0].name, seed);
  if (s && mlc_sch_replay(s, space, dec, nd) && mlc_tune_postprocess(s, &st) && mlc_tune_verify(s)) return s;
  mlc_clear_error(ctx);
  mlc_sch_free(s);
  return NULL;
}

static void test_rfactor_space(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "row_sum.py", row_sum_src, strlen(row_sum_src));
  CHECK(m);
  if (!m) return mlc_ctx_free(ctx);
  MlcSchedule *sp[MLC_TUNE_MAX_SPACES];
  int n, rf = spaces_of(ctx, m, sp, &n, "sch.rfactor(");
  CHECK(rf >= 0);
  int good = 0;
  for (uint64_t seed = 1; rf >= 0 && seed <= 6; seed++) {
    MlcSchedule *c = candidate(ctx, m, sp[rf], NULL, 0, seed);
    if (!c) continue;
    CHECK(agree(ctx, m->funcs[0].prim, mlc_sch_func(c)));
    good++;
    mlc_sch_free(c);
  }
  CHECK(good >= 4);
  for (int i = 0; i < n; i++) mlc_sch_free(sp[i]);
  /* spatial work enough: no rfactor space */
  MlcModule *mm = mlc_read_module(ctx, "mm.py", mm_src, strlen(mm_src));
  CHECK(mm && spaces_of(ctx, mm, sp, &n, "sch.rfactor(") < 0 && n >= 1);
  for (int i = 0; i < n; i++) mlc_sch_free(sp[i]);
  mlc_ctx_free(ctx);
}

static void test_random_compute_location(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "pairs.py", pairs_src, strlen(pairs_src));
  CHECK(m);
  if (!m) return mlc_ctx_free(ctx);
  MlcSchedule *sp[MLC_TUNE_MAX_SPACES];
  int n, k = spaces_of(ctx, m, sp, &n, "sch.sample_compute_location(");
  CHECK(k >= 0);
  /* at the root (-1) and under C's loop i (0): both compute the same, and
   * the second really moved B */
  uint64_t h[2] = {0, 0};
  for (int d = -1; k >= 0 && d <= 0; d++) {
    MlcSchVal dec = {.kind = MLC_SV_INT, .i = d};
    MlcSchedule *c = candidate(ctx, m, sp[k], &dec, 1, 1);
    CHECK(c);
    if (!c) continue;
    CHECK(agree(ctx, m->funcs[0].prim, mlc_sch_func(c)));
    MlcSchVal got[4];
    CHECK(mlc_sch_decisions(c, got, 4) >= 1 && got[0].kind == MLC_SV_INT && got[0].i == d);
    h[d + 1] = mlc_prim_func_hash(mlc_sch_func(c));
    mlc_sch_free(c);
  }
  CHECK(h[0] != h[1]);
  for (int i = 0; i < n; i++) mlc_sch_free(sp[i]);
  mlc_ctx_free(ctx);
}

int main(void) {
  RUN(test_rfactor_space);
  RUN(test_random_compute_location);
  return CHECK_DONE();
}
