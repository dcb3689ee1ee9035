/* test_codegen_perf.c - the C generator's performance-minded forms compute
 * what the program says.
 *
 * Each case builds a small TVMScript program with mlc_build_shared, runs it
 * through the runtime and compares the result with values computed by plain
 * C in this file: broadcasts (helper form; a negative zero keeps its sign),
 * min and max (vector and scalar, NaN operands as fmin/fmax treat them),
 * workspace buffers hoisted out of serial and parallel loops (and one of
 * symbolic size, which stays in place), and a register-tiled matmul (packed
 * B, a local accumulator tile with constant indices, unrolled rows,
 * vectorized lanes, parallel row tiles, k in two blocks with the C tile
 * zeroed by T.init).  Where a form is the point of the case, the generated C
 * is also looked at: a hoisted allocation must precede the loop. */
#include "check.h"
#include "mlcc/codegen.h"
#include "mlcc/runtime.h"
#include "mlcc/text.h"

#include <math.h>
#include <stdint.h>
#include <unistd.h>

static char dir[256];
static MlcCtx *ctx;

static void print_error(void) {
  MlcStrBuf sb = {0};
  mlc_format_error(ctx, &sb);
  printf("    %s\n", mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
}

/* build text into dir/name.so and load it; the generated C is read back into
 * *c_text when asked (caller frees) */
static MlcrtModule *build(const char *name, const char *text, char **c_text) {
  ctx = mlc_ctx_new();
  char so[300], c[300];
  snprintf(so, sizeof so, "%s/%s.so", dir, name);
  snprintf(c, sizeof c, "%s/%s.c", dir, name);
  MlcModule *m = mlc_read_module(ctx, name, text, strlen(text));
  MlcBuildOptions opt = {.target = MLC_TARGET_NATIVE};
  bool ok = m && mlc_build_shared(ctx, m, so, &opt);
  if (!ok) print_error();
  if (ok && c_text) {
    size_t len;
    *c_text = mlc_read_file(ctx, c, 1 << 24, &len);
  }
  mlc_ctx_free(ctx);
  MlcrtModule *mod = NULL;
  if (ok && mlcrt_module_load(so, &mod) != 0) printf("    load: %s\n", mlcrt_last_error());
  return mod;
}

static MlcrtTensor *tensor2(int64_t rows, int64_t cols) {
  int64_t shape[2] = {rows, cols};
  MlcrtTensor *t = NULL;
  mlcrt_tensor_create(2, shape, mlcrt_dtype(kDLFloat, 32), &t);
  return t;
}

static float *f32(MlcrtTensor *t) { return (float *)t->dl.data; }

static uint64_t rng = 0x2545f4914f6cdd1dull;
static float frand(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(rng >> 40) / (double)(1 << 24) * 2 - 1);
}

static int call_fn(MlcrtModule *mod, const char *name, DLTensor **args, int n) {
  const MlcrtFunc *f = mod ? mlcrt_module_get_func(mod, name) : NULL;
  int rc = f ? mlcrt_func_call_tensors(f, args, n) : -1;
  if (rc != 0) printf("    call: %s\n", mlcrt_last_error());
  return rc;
}

static int call(MlcrtModule *mod, DLTensor **args, int n) { return call_fn(mod, "f", args, n); }

/* ---- broadcasts ----------------------------------------------------------------- */

static const char BCAST[] =
    "@T.prim_func\n"
    "def f(A: T.Buffer((2, 16), \"float32\"), B: T.Buffer((2, 16), \"float32\")):\n"
    "    for j in T.vectorized(16):\n"
    "        A[0, j] = T.float32(-0.0)\n"
    "    for j in T.vectorized(16):\n"
    "        A[1, j] = B[0, 3] * B[1, j] + B[0, 5]\n"
    "    for j in T.vectorized(16):\n"
    "        B[0, j] = T.float32(2.5)\n";

static void test_broadcast(void) {
  MlcrtModule *mod = build("bcast", BCAST, NULL);
  MlcrtTensor *a = tensor2(2, 16), *b = tensor2(2, 16);
  CHECK(mod && a && b);
  if (!mod || !a || !b) return;
  float in[32];
  for (int i = 0; i < 32; i++) in[i] = f32(b)[i] = frand();
  CHECK(call(mod, (DLTensor *[]){&a->dl, &b->dl}, 2) == 0);
  bool neg_zero = true, fma = true, filled = true;
  for (int j = 0; j < 16; j++) {
    neg_zero &= f32(a)[j] == 0.0f && signbit(f32(a)[j]);
    fma &= fabsf(f32(a)[16 + j] - (in[3] * in[16 + j] + in[5])) <= 1e-6f;
    filled &= f32(b)[j] == 2.5f;
  }
  CHECK(neg_zero);
  CHECK(fma);
  CHECK(filled);
  mlcrt_tensor_free(a);
  mlcrt_tensor_free(b);
  mlcrt_module_free(mod);
}

/* ---- min and max ------------------------------------------------------------------ */

/* vector and scalar forms, float (NaN operands included) and int */
static const char MINMAX[] =
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def f(A: T.Buffer((4, 16), \"float32\"), B: T.Buffer((4, 16), \"float32\"), C: T.Buffer((4, 16), \"float32\")):\n"
    "        for j in T.vectorized(16):\n"
    "            C[0, j] = T.max(A[0, j], B[0, j])\n"
    "        for j in T.vectorized(16):\n"
    "            C[1, j] = T.min(A[1, j], B[1, j])\n"
    "        for j in range(16):\n"
    "            C[2, j] = T.max(A[2, j], B[2, j])\n"
    "        for j in T.vectorized(16):\n"
    "            C[3, j] = T.min(T.max(A[3, j], T.float32(-0.5)), B[3, j])\n"
    "    @T.prim_func\n"
    "    def g(X: T.Buffer((16,), \"int32\"), Y: T.Buffer((16,), \"int32\")):\n"
    "        for j in T.vectorized(16):\n"
    "            Y[j] = T.max(X[j], Y[j] * 2) - T.min(X[j], 3)\n";

static bool same_float(float x, float want) { return isnan(want) ? isnan(x) : x == want; }

static void test_min_max(void) {
  MlcrtModule *mod = build("minmax", MINMAX, NULL);
  MlcrtTensor *a = tensor2(4, 16), *b = tensor2(4, 16), *c = tensor2(4, 16);
  int64_t n16 = 16;
  MlcrtTensor *x = NULL, *y = NULL;
  mlcrt_tensor_create(1, &n16, mlcrt_dtype(kDLInt, 32), &x);
  mlcrt_tensor_create(1, &n16, mlcrt_dtype(kDLInt, 32), &y);
  CHECK(mod && a && b && c && x && y);
  if (!mod || !a || !b || !c || !x || !y) return;
  float *A = f32(a), *B = f32(b), *C = f32(c);
  for (int i = 0; i < 64; i++) A[i] = frand(), B[i] = frand();
  for (int r = 0; r < 4; r++) A[r * 16 + 1] = NAN, B[r * 16 + 2] = NAN, A[r * 16 + 3] = B[r * 16 + 3] = NAN;
  int32_t *X = x->dl.data, *Y = y->dl.data, y0[16];
  for (int j = 0; j < 16; j++) X[j] = j * 7 % 11 - 5, Y[j] = y0[j] = 4 - j;
  CHECK(call(mod, (DLTensor *[]){&a->dl, &b->dl, &c->dl}, 3) == 0);
  CHECK(call_fn(mod, "g", (DLTensor *[]){&x->dl, &y->dl}, 2) == 0);
  bool ok[5] = {true, true, true, true, true};
  for (int j = 0; j < 16; j++) {
    ok[0] &= same_float(C[j], fmaxf(A[j], B[j]));
    ok[1] &= same_float(C[16 + j], fminf(A[16 + j], B[16 + j]));
    ok[2] &= same_float(C[32 + j], fmaxf(A[32 + j], B[32 + j]));
    ok[3] &= same_float(C[48 + j], fminf(fmaxf(A[48 + j], -0.5f), B[48 + j]));
    int32_t hi = X[j] > 2 * y0[j] ? X[j] : 2 * y0[j], lo = X[j] < 3 ? X[j] : 3;
    ok[4] &= Y[j] == hi - lo;
  }
  for (int k = 0; k < 5; k++) CHECK(ok[k]);
  mlcrt_tensor_free(a);
  mlcrt_tensor_free(b);
  mlcrt_tensor_free(c);
  mlcrt_tensor_free(x);
  mlcrt_tensor_free(y);
  mlcrt_module_free(mod);
}

/* ---- hoisted workspace ------------------------------------------------------------ */

/* X (80 KB, over the stack limit) is allocated inside loop i; LOOP is range
 * or T.parallel */
#define HOIST(LOOP)                                                              \
  "@T.prim_func\n"                                                               \
  "def f(A: T.Buffer((6, 20000), \"float32\"), B: T.Buffer((6, 20000), \"float32\")):\n" \
  "    for i in " LOOP "(6):\n"                                                   \
  "        with T.block(\"row\"):\n"                                             \
  "            vi = T.axis.spatial(6, i)\n"                                      \
  "            X = T.alloc_buffer((20000,), \"float32\")\n"                      \
  "            for j in range(20000):\n"                                         \
  "                with T.block(\"x\"):\n"                                       \
  "                    vj = T.axis.spatial(20000, j)\n"                          \
  "                    X[vj] = A[vi, vj] * T.float32(2)\n"                       \
  "            for j in range(20000):\n"                                         \
  "                with T.block(\"b\"):\n"                                       \
  "                    vj = T.axis.spatial(20000, j)\n"                          \
  "                    B[vi, vj] = X[19999 - vj] + T.float32(1)\n"

static void check_hoisted(const char *name, const char *text, const char *loop_head) {
  char *c = NULL;
  MlcrtModule *mod = build(name, text, &c);
  MlcrtTensor *a = tensor2(6, 20000), *b = tensor2(6, 20000);
  CHECK(mod && a && b && c);
  if (!mod || !a || !b || !c) return;
  /* one allocation, before the loop it was in, freed once */
  const char *alloc = strstr(c, "workspace_alloc(");
  const char *loop = strstr(c, loop_head);
  CHECK(alloc && loop && alloc < loop);
  CHECK(alloc && !strstr(alloc + 1, "workspace_alloc("));
  const char *free1 = strstr(c, "workspace_free(X)");
  CHECK(free1 && loop < free1 && !strstr(free1 + 1, "workspace_free(X)"));
  for (int i = 0; i < 6 * 20000; i++) f32(a)[i] = frand();
  CHECK(call(mod, (DLTensor *[]){&a->dl, &b->dl}, 2) == 0);
  bool same = true;
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 20000; j++) same &= f32(b)[i * 20000 + j] == f32(a)[i * 20000 + 19999 - j] * 2.0f + 1.0f;
  CHECK(same);
  free(c);
  mlcrt_tensor_free(a);
  mlcrt_tensor_free(b);
  mlcrt_module_free(mod);
}

static void test_hoist_serial(void) { check_hoisted("hoist_serial", HOIST("range"), "for (int32_t i = 0;"); }

static void test_hoist_parallel(void) {
  mlcrt_threads_set(3);
  check_hoisted("hoist_parallel", HOIST("T.parallel"), "for (int64_t mlc_it");
  mlcrt_threads_set(0);
}

/* A workspace of symbolic size stays where it is, inside its loop, and its
 * failure path goes through the function's exit. */
static const char SYMBOLIC[] =
    "@T.prim_func\n"
    "def f(a: T.handle, b: T.handle):\n"
    "    n = T.int64()\n"
    "    A = T.match_buffer(a, (2, n), \"float32\")\n"
    "    B = T.match_buffer(b, (2, n), \"float32\")\n"
    "    for r in range(2):\n"
    "        with T.block(\"row\"):\n"
    "            vr = T.axis.spatial(2, r)\n"
    "            X = T.alloc_buffer((n,), \"float32\")\n"
    "            for i in range(n):\n"
    "                with T.block(\"x\"):\n"
    "                    vi = T.axis.spatial(n, i)\n"
    "                    X[vi] = A[vr, vi] + T.float32(1)\n"
    "            for i in range(n):\n"
    "                with T.block(\"b\"):\n"
    "                    vi = T.axis.spatial(n, i)\n"
    "                    B[vr, vi] = X[n - 1 - vi] * T.float32(3)\n";

static void test_workspace_symbolic(void) {
  char *c = NULL;
  MlcrtModule *mod = build("symbolic", SYMBOLIC, &c);
  MlcrtTensor *a = tensor2(2, 50000), *b = tensor2(2, 50000);
  CHECK(mod && a && b && c);
  if (!mod || !a || !b || !c) return;
  const char *loop = strstr(c, "for (int32_t r = 0;"), *alloc = strstr(c, "workspace_alloc(");
  CHECK(loop && alloc && loop < alloc);
  CHECK(strstr(c, "goto mlc_exit;") && strstr(c, "mlc_exit:;"));
  for (int i = 0; i < 2 * 50000; i++) f32(a)[i] = frand();
  CHECK(call(mod, (DLTensor *[]){&a->dl, &b->dl}, 2) == 0);
  bool same = true;
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < 50000; i++) same &= f32(b)[r * 50000 + i] == (f32(a)[r * 50000 + 49999 - i] + 1.0f) * 3.0f;
  CHECK(same);
  free(c);
  mlcrt_tensor_free(a);
  mlcrt_tensor_free(b);
  mlcrt_module_free(mod);
}

/* ---- a register-tiled matmul ----------------------------------------------------------- */

/* 64x64x64 in 8x32 tiles, k in 2 blocks of 32 */
static const char TILED[] =
    "@T.prim_func\n"
    "def f(A: T.Buffer((64, 64), \"float32\"), B: T.Buffer((64, 64), \"float32\"), C: T.Buffer((64, 64), \"float32\")):\n"
    "    T.func_attr({\"tir.noalias\": True})\n"
    "    Bp = T.alloc_buffer((2, 64, 32), \"float32\")\n"
    "    for jo in T.parallel(2):\n"
    "        for k in range(64):\n"
    "            for jj in T.vectorized(32):\n"
    "                with T.block(\"B_pack\"):\n"
    "                    vjo, vk, vjj = T.axis.remap(\"SSS\", [jo, k, jj])\n"
    "                    Bp[vjo, vk, vjj] = B[vk, vjo * 32 + vjj]\n"
    "    for ko in range(2):\n"
    "        for io in T.parallel(8):\n"
    "            for jo in range(2):\n"
    "                with T.block(\"C_tile\"):\n"
    "                    ti, tj, tk = T.axis.remap(\"SSR\", [io, jo, ko])\n"
    "                    C_local = T.alloc_buffer((8, 32), \"float32\", scope=\"local\")\n"
    "                    with T.init():\n"
    "                        for ii, jj in T.grid(8, 32):\n"
    "                            with T.block(\"C_zero\"):\n"
    "                                vi, vj = T.axis.remap(\"SS\", [ii, jj])\n"
    "                                C[ti * 8 + vi, tj * 32 + vj] = T.float32(0)\n"
    "                    for ii in T.unroll(8):\n"
    "                        for jv in T.unroll(2):\n"
    "                            for jl in T.vectorized(16):\n"
    "                                with T.block(\"C_load\"):\n"
    "                                    vi = T.axis.spatial(8, ii)\n"
    "                                    vj = T.axis.spatial(32, jv * 16 + jl)\n"
    "                                    C_local[vi, vj] = C[ti * 8 + vi, tj * 32 + vj]\n"
    "                    for k in range(32):\n"
    "                        for ii in T.unroll(8):\n"
    "                            for jv in T.unroll(2):\n"
    "                                for jl in T.vectorized(16):\n"
    "                                    with T.block(\"C_update\"):\n"
    "                                        vi = T.axis.spatial(8, ii)\n"
    "                                        vj = T.axis.spatial(32, jv * 16 + jl)\n"
    "                                        vk = T.axis.reduce(32, k)\n"
    "                                        C_local[vi, vj] = C_local[vi, vj] + A[ti * 8 + vi, tk * 32 + vk] * Bp[tj, tk * 32 + vk, vj]\n"
    "                    for ii in T.unroll(8):\n"
    "                        for jv in T.unroll(2):\n"
    "                            for jl in T.vectorized(16):\n"
    "                                with T.block(\"C_store\"):\n"
    "                                    vi = T.axis.spatial(8, ii)\n"
    "                                    vj = T.axis.spatial(32, jv * 16 + jl)\n"
    "                                    C[ti * 8 + vi, tj * 32 + vj] = C_local[vi, vj]\n";

static void test_tiled_matmul(void) {
  MlcrtModule *mod = build("tiled", TILED, NULL);
  MlcrtTensor *a = tensor2(64, 64), *b = tensor2(64, 64), *c = tensor2(64, 64);
  CHECK(mod && a && b && c);
  if (!mod || !a || !b || !c) return;
  for (int i = 0; i < 64 * 64; i++) f32(a)[i] = frand(), f32(b)[i] = frand();
  for (int threads = 1; threads <= 3; threads += 2) {
    mlcrt_threads_set(threads);
    for (int i = 0; i < 64 * 64; i++) f32(c)[i] = NAN;
    CHECK(call(mod, (DLTensor *[]){&a->dl, &b->dl, &c->dl}, 3) == 0);
    bool close = true; /* C starts as NaN: an element left unwritten fails */
    for (int i = 0; i < 64; i++)
      for (int j = 0; j < 64; j++) {
        double want = 0;
        for (int k = 0; k < 64; k++) want += (double)f32(a)[i * 64 + k] * f32(b)[k * 64 + j];
        close &= fabs(f32(c)[i * 64 + j] - want) <= 1e-4;
      }
    CHECK(close);
  }
  mlcrt_threads_set(0);
  mlcrt_tensor_free(a);
  mlcrt_tensor_free(b);
  mlcrt_tensor_free(c);
  mlcrt_module_free(mod);
}

/* ---- driver ------------------------------------------------------------------------------ */

/* ---- the target: MLC_MARCH ------------------------------------------------------- */

/* MLC_MARCH picks the -march of the native target; a value that is not a
 * plain target name is refused with a message naming the variable, and the
 * build leaves no .so behind */
static void test_march_env(void) {
  const char *old = getenv("MLC_MARCH");
  char *saved = old ? strdup(old) : NULL;
  setenv("MLC_MARCH", "x86-64-v3 -fplugin=evil.so", 1);
  MlcCtx *c = mlc_ctx_new();
  char so[300];
  snprintf(so, sizeof so, "%s/march.so", dir);
  MlcModule *m = mlc_read_module(c, "march", BCAST, strlen(BCAST));
  MlcBuildOptions opt = {.target = MLC_TARGET_NATIVE};
  CHECK(m && !mlc_build_shared(c, m, so, &opt));
  CHECK(strstr(mlc_error_msg(c), "MLC_MARCH='x86-64-v3 -fplugin=evil.so' is not a target name") != NULL);
  CHECK(access(so, F_OK) != 0);
  mlc_ctx_free(c);
  /* the baseline target builds and computes the same */
  setenv("MLC_MARCH", "x86-64-v3", 1);
  test_broadcast();
  if (saved) setenv("MLC_MARCH", saved, 1);
  else unsetenv("MLC_MARCH");
  free(saved);
}

static void remove_dir(void) {
  static const char *const names[] = {"march", "bcast", "minmax", "hoist_serial", "hoist_parallel", "symbolic", "tiled"};
  char p[300];
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    snprintf(p, sizeof p, "%s/%s.so", dir, names[i]);
    unlink(p);
    snprintf(p, sizeof p, "%s/%s.c", dir, names[i]);
    unlink(p);
  }
  rmdir(dir);
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/mlcc-codegen-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    printf("FAIL main: cannot create a temporary directory\n");
    return 1;
  }
  RUN(test_broadcast);
  RUN(test_min_max);
  RUN(test_hoist_serial);
  RUN(test_hoist_parallel);
  RUN(test_workspace_symbolic);
  RUN(test_tiled_matmul);
  RUN(test_march_env);
  remove_dir();
  return CHECK_DONE();
}
