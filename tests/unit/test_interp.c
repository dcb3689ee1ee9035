/* test_interp.c - the reference interpreter against plain C.
 *
 * The interpreter is the oracle of every later numerical test, so here each
 * program it runs (golden files of tests/golden/roundtrip and the programs of
 * tests/golden/run) is checked against a loop nest written directly in C
 * below, on random inputs.  Float results are compared with a relative
 * tolerance of 1e-5; integer results exactly.  Refusals (out-of-bounds
 * accesses, arguments of the wrong shape) must come back as errors naming
 * what was wrong, never as a crash. */
#include "check.h"
#include "mlcc/interp.h"
#include "mlcc/text.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

static MlcCtx *ctx;

/* ---- helpers ------------------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double urand(void) { /* [0, 1) */
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng >> 11) / 9007199254740992.0;
}
static float frand(void) { return (float)(urand() * 2 - 1); }
static int32_t irand(int32_t lo, int32_t hi) { return lo + (int32_t)(urand() * (double)(hi - lo + 1)); }

static float *fbuf(size_t n) {
  float *p = malloc(n * sizeof *p);
  for (size_t i = 0; i < n; i++) p[i] = frand();
  return p;
}

static void print_error(void) {
  MlcStrBuf sb = {0};
  mlc_format_error(ctx, &sb);
  printf("    %s\n", mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
}

static const MlcModule *read_text(const char *name, const char *text) {
  const MlcModule *m = mlc_read_module(ctx, name, text, strlen(text));
  if (!m) print_error();
  return m;
}

static const MlcModule *read_path(const char *path) {
  size_t len;
  char *text = mlc_read_file(ctx, path, 1 << 20, &len);
  const MlcModule *m = text ? mlc_read_module(ctx, path, text, len) : NULL;
  if (!m) print_error();
  free(text);
  return m;
}

static const MlcPrimFunc *prim(const MlcModule *m, const char *name) {
  const MlcFunc *f = m ? mlc_module_find(m, mlc_intern(ctx, name)) : NULL;
  if (!f || f->kind != MLC_FUNC_PRIM) {
    if (m) printf("    no prim func '%s'\n", name);
    return NULL;
  }
  return f->prim;
}

static const MlcPrimFunc *load(const char *path, const char *name) { return prim(read_path(path), name); }

static MlcInterpArg buf(void *data, int ndim, const int64_t *shape) {
  return (MlcInterpArg){.is_buffer = true, .data = data, .ndim = ndim, .shape = shape};
}

static bool run(const MlcPrimFunc *f, const MlcInterpArg *args, int n) {
  if (!f) return false;
  mlc_clear_error(ctx);
  bool ok = mlc_interp_run(ctx, f, args, n);
  if (!ok) print_error();
  return ok;
}

/* a run that must fail with a message holding every one of `want` */
static bool refused(const MlcPrimFunc *f, const MlcInterpArg *args, int n, const char *const *want, int nwant) {
  if (!f) return false;
  mlc_clear_error(ctx);
  if (mlc_interp_run(ctx, f, args, n)) {
    printf("    %s ran although it should have been refused\n", f->name);
    return false;
  }
  const char *msg = mlc_error_msg(ctx);
  for (int i = 0; i < nwant; i++)
    if (!msg || !strstr(msg, want[i])) {
      printf("    message \"%s\" lacks \"%s\"\n", msg ? msg : "(none)", want[i]);
      return false;
    }
  return true;
}

static bool close_f(const float *got, const float *want, size_t n, double rtol) {
  for (size_t i = 0; i < n; i++) {
    double g = got[i], w = want[i];
    if (!(fabs(g - w) <= rtol * fabs(w) + 1e-7)) {
      printf("    element %zu: got %.9g, want %.9g\n", i, g, w);
      return false;
    }
  }
  return true;
}

static bool same_i(const int32_t *got, const int32_t *want, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (got[i] != want[i]) {
      printf("    element %zu: got %d, want %d\n", i, got[i], want[i]);
      return false;
    }
  return true;
}

/* ---- matmul-shaped programs --------------------------------------------------------------- */

static void test_mm_relu(void) {
  enum { N = 128 };
  const MlcPrimFunc *f = load("tests/golden/roundtrip/mm_relu.py", "mm_relu");
  float *A = fbuf(N * N), *B = fbuf(N * N), *C = fbuf(N * N), *R = malloc(N * N * sizeof *R);
  int64_t sh[2] = {N, N};
  MlcInterpArg args[3] = {buf(A, 2, sh), buf(B, 2, sh), buf(C, 2, sh)};
  CHECK(run(f, args, 3));
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      float y = 0;
      for (int k = 0; k < N; k++) y += A[i * N + k] * B[k * N + j];
      R[i * N + j] = y > 0 ? y : 0;
    }
  CHECK(close_f(C, R, N * N, 1e-5));
  free(A), free(B), free(C), free(R);
}

static void test_batched_matmul(void) {
  enum { NB = 4, M = 12, K = 16, N = 10 };
  const MlcPrimFunc *f = load("tests/golden/run/bmm.py", "bmm_relu_small");
  float *A = fbuf(NB * M * K), *B = fbuf(NB * K * N), *C = fbuf(NB * M * N), *R = malloc(NB * M * N * sizeof *R);
  int64_t sa[3] = {NB, M, K}, sb[3] = {NB, K, N}, sc[3] = {NB, M, N};
  MlcInterpArg args[3] = {buf(A, 3, sa), buf(B, 3, sb), buf(C, 3, sc)};
  CHECK(run(f, args, 3));
  for (int b = 0; b < NB; b++)
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        float y = 0;
        for (int k = 0; k < K; k++) y += A[(b * M + i) * K + k] * B[(b * K + k) * N + j];
        R[(b * M + i) * N + j] = y > 0 ? y : 0;
      }
  CHECK(close_f(C, R, NB * M * N, 1e-5));
  free(A), free(B), free(C), free(R);
}

static void test_conv2d_padding(void) {
  enum { CI = 3, H = 32, W = 32, CO = 16, KS = 3 };
  const MlcPrimFunc *f = load("tests/golden/roundtrip/conv2d_nchw.py", "conv2d_nchw");
  float *X = fbuf(CI * H * W), *Wt = fbuf(CO * CI * KS * KS), *Y = fbuf(CO * H * W), *R = malloc(CO * H * W * sizeof *R);
  int64_t sx[4] = {1, CI, H, W}, sw[4] = {CO, CI, KS, KS}, sy[4] = {1, CO, H, W};
  MlcInterpArg args[3] = {buf(X, 4, sx), buf(Wt, 4, sw), buf(Y, 4, sy)};
  CHECK(run(f, args, 3));
  for (int o = 0; o < CO; o++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        float acc = 0;
        for (int c = 0; c < CI; c++)
          for (int ky = 0; ky < KS; ky++)
            for (int kx = 0; kx < KS; kx++) {
              int iy = y + ky - 1, ix = x + kx - 1; /* padding 1: outside reads 0 */
              float v = iy >= 0 && iy < H && ix >= 0 && ix < W ? X[(c * H + iy) * W + ix] : 0.0f;
              acc += v * Wt[((o * CI + c) * KS + ky) * KS + kx];
            }
        R[(o * H + y) * W + x] = acc;
      }
  CHECK(close_f(Y, R, CO * H * W, 1e-5));
  free(X), free(Wt), free(Y), free(R);
}

static void test_softmax(void) {
  enum { M = 4, N = 256 };
  const MlcPrimFunc *f = load("tests/golden/roundtrip/softmax.py", "softmax");
  float *A = fbuf(M * N), *B = fbuf(M * N), *R = malloc(M * N * sizeof *R);
  for (int i = 0; i < M * N; i++) A[i] *= 8; /* spread, so the max shift matters */
  int64_t sh[2] = {M, N};
  MlcInterpArg args[2] = {buf(A, 2, sh), buf(B, 2, sh)};
  CHECK(run(f, args, 2));
  for (int i = 0; i < M; i++) {
    float mx = -FLT_MAX, sum = 0;
    for (int k = 0; k < N; k++) mx = fmaxf(mx, A[i * N + k]);
    for (int k = 0; k < N; k++) sum += expf(A[i * N + k] - mx);
    for (int k = 0; k < N; k++) R[i * N + k] = expf(A[i * N + k] - mx) / sum;
  }
  /* expf against the interpreter's exp rounded to float: 1 ulp apart at most */
  CHECK(close_f(B, R, M * N, 1e-5));
  free(A), free(B), free(R);
}

/* ---- predicates, symbolic sizes, integer division ------------------------------------------ */

static void test_where_predicates(void) {
  const MlcModule *m = read_path("tests/golden/run/where.py");
  float *A = fbuf(30), *B = fbuf(30), R[30];
  int64_t s30[1] = {30};
  MlcInterpArg args[2] = {buf(A, 1, s30), buf(B, 1, s30)};
  /* without the predicate, lanes 30 and 31 would be refused as out of bounds */
  CHECK(run(prim(m, "tail_axpy"), args, 2));
  for (int i = 0; i < 30; i++) R[i] = A[i] * 2.0f + 1.0f;
  CHECK(close_f(B, R, 30, 1e-6));

  float *X = fbuf(5 * 20), *S = fbuf(5), RS[5];
  int64_t sx[2] = {5, 20}, ss[1] = {5};
  MlcInterpArg args2[2] = {buf(X, 2, sx), buf(S, 1, ss)};
  CHECK(run(prim(m, "split_rowsum"), args2, 2));
  for (int i = 0; i < 5; i++) {
    RS[i] = 0;
    for (int k = 0; k < 20; k++) RS[i] += X[i * 20 + k];
  }
  CHECK(close_f(S, RS, 5, 1e-6));
  free(A), free(B), free(X), free(S);
}

static void check_linear0(const MlcPrimFunc *f, int64_t n) {
  enum { K = 784, J = 128 };
  float *x = fbuf((size_t)n * K), *w = fbuf(J * K), *b = fbuf(J), *z = fbuf((size_t)n * J);
  float *r = malloc((size_t)n * J * sizeof *r);
  int64_t sx[2] = {n, K}, sw[2] = {J, K}, sb[1] = {J}, sz[2] = {n, J};
  MlcInterpArg args[4] = {buf(x, 2, sx), buf(w, 2, sw), buf(b, 1, sb), buf(z, 2, sz)};
  CHECK(run(f, args, 4));
  for (int64_t i = 0; i < n; i++)
    for (int j = 0; j < J; j++) {
      float y = 0;
      for (int k = 0; k < K; k++) y += x[i * K + k] * w[j * K + k];
      r[i * J + j] = y + b[j];
    }
  CHECK(close_f(z, r, (size_t)n * J, 1e-5));
  free(x), free(w), free(b), free(z), free(r);
}

static void check_transpose(const MlcPrimFunc *f, int64_t n, int64_t m) {
  float *a = fbuf((size_t)(n * m)), *b = fbuf((size_t)(n * m)), *r = malloc((size_t)(n * m) * sizeof *r);
  int64_t sa[2] = {n, m}, sb[2] = {m, n};
  MlcInterpArg args[2] = {buf(a, 2, sa), buf(b, 2, sb)};
  CHECK(run(f, args, 2));
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) r[i * n + j] = a[j * m + i];
  CHECK(close_f(b, r, (size_t)(n * m), 0));
  free(a), free(b), free(r);
}

static void check_rowsum(const MlcPrimFunc *f, int64_t n, int64_t m) {
  float *a = fbuf((size_t)(n * m)), *s = fbuf((size_t)n), *r = malloc((size_t)n * sizeof *r);
  int64_t sa[2] = {n, m}, ss[1] = {n};
  MlcInterpArg args[2] = {buf(a, 2, sa), buf(s, 1, ss)};
  CHECK(run(f, args, 2));
  for (int64_t i = 0; i < n; i++) {
    r[i] = 0;
    for (int64_t j = 0; j < m; j++) r[i] += a[i * m + j] * 0.5f;
  }
  CHECK(close_f(s, r, (size_t)n, 1e-6));
  free(a), free(s), free(r);
}

static void check_dyn_add(const MlcPrimFunc *f, int64_t n) {
  int32_t *a = malloc((size_t)n * 3 * 4), b[3] = {4, -5, 6}, *c = malloc((size_t)n * 3 * 4), *r = malloc((size_t)n * 3 * 4);
  for (int64_t i = 0; i < n * 3; i++) a[i] = irand(-1000, 1000), c[i] = 0;
  int64_t sa[2] = {n, 3}, sb[1] = {3};
  MlcInterpArg args[3] = {buf(a, 2, sa), buf(b, 1, sb), buf(c, 2, sa)};
  CHECK(run(f, args, 3));
  for (int64_t i = 0; i < n; i++)
    for (int j = 0; j < 3; j++) r[i * 3 + j] = a[i * 3 + j] + b[j] * (int32_t)i;
  CHECK(same_i(c, r, (size_t)n * 3));
  free(a), free(c), free(r);
}

static void test_symbolic_sizes(void) {
  const MlcModule *mlp = read_path("tests/golden/roundtrip/mlp_dynamic.py");
  const MlcModule *tr = read_path("tests/golden/roundtrip/tuple_assign.py");
  const MlcModule *dyn = read_path("tests/golden/run/dynamic.py");
  const int64_t sizes[3] = {1, 3, 16};
  for (int k = 0; k < 3; k++) {
    check_linear0(prim(mlp, "linear0"), sizes[k]);
    check_transpose(prim(tr, "transpose"), sizes[k], sizes[(k + 1) % 3]);
    check_rowsum(prim(dyn, "dyn_rowsum"), sizes[k], sizes[(k + 2) % 3]);
    check_dyn_add(prim(dyn, "dyn_add"), sizes[k]);
  }
}

static int32_t floordiv_ref(int32_t a, int32_t b) { return (int32_t)floor((double)a / (double)b); }
static int32_t truncdiv_ref(int32_t a, int32_t b) { return (int32_t)trunc((double)a / (double)b); }

static void test_integer_division(void) {
  enum { N = 64 };
  const MlcPrimFunc *f = load("tests/golden/run/intdiv.py", "int_divmod");
  static const int32_t edge[][2] = {{7, 2}, {-7, 2}, {7, -2}, {-7, -2}, {-6, 3}, {6, -3}, {0, -5}, {-1, 9}, {1, -9}};
  int32_t A[N], B[N], Q[N] = {0}, R[N] = {0}, TQ[N] = {0}, TR[N] = {0}, X[N] = {0};
  int32_t rq[N], rr[N], rtq[N], rtr[N], rx[N];
  for (int i = 0; i < N; i++) {
    bool fixed = i < (int)(sizeof edge / sizeof *edge);
    A[i] = fixed ? edge[i][0] : irand(-100, 100);
    B[i] = fixed ? edge[i][1] : irand(1, 9) * (irand(0, 1) ? 1 : -1);
    rq[i] = floordiv_ref(A[i], B[i]);
    rr[i] = A[i] - rq[i] * B[i];
    rtq[i] = truncdiv_ref(A[i], B[i]);
    rtr[i] = A[i] - rtq[i] * B[i];
    int32_t d = floordiv_ref(i - 37, 5);
    rx[i] = d * 100 + (i - 37 - d * 5);
  }
  CHECK(rr[1] == 1 && rtr[1] == -1); /* -7 mod 2: the references themselves */
  int64_t sh[1] = {N};
  MlcInterpArg args[7] = {buf(A, 1, sh), buf(B, 1, sh), buf(Q, 1, sh), buf(R, 1, sh),
                          buf(TQ, 1, sh), buf(TR, 1, sh), buf(X, 1, sh)};
  CHECK(run(f, args, 7));
  CHECK(same_i(Q, rq, N));
  CHECK(same_i(R, rr, N));
  CHECK(same_i(TQ, rtq, N));
  CHECK(same_i(TR, rtr, N));
  CHECK(same_i(X, rx, N));
}

/* strides and an element offset: the data is a larger array the buffer views */
static const char STRIDED[] =
    "from tvm.script import tir as T\n"
    "@T.prim_func\n"
    "def strided_rows(a: T.handle, b: T.handle):\n"
    "    A = T.match_buffer(a, (4, 5), \"float32\", strides=(8, 1), elem_offset=3)\n"
    "    B = T.match_buffer(b, (5, 4), \"float32\", strides=(1, 6))\n"
    "    for i, j in T.grid(4, 5):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            B[vj, vi] = A[vi, vj] * T.float32(2) + A[3 - vi, 4 - vj]\n";

static void test_strided_buffers(void) {
  const MlcModule *m = read_text("strided.py", STRIDED);
  float *A = fbuf(3 + 3 * 8 + 4 + 1), *B = fbuf(4 + 3 * 6 + 1), R[23];
  memcpy(R, B, sizeof R);
  int64_t sa[2] = {4, 5}, sb[2] = {5, 4};
  MlcInterpArg args[2] = {buf(A, 2, sa), buf(B, 2, sb)};
  CHECK(run(prim(m, "strided_rows"), args, 2));
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++) R[j + i * 6] = A[3 + i * 8 + j] * 2.0f + A[3 + (3 - i) * 8 + (4 - j)];
  CHECK(close_f(B, R, 23, 0));
  free(A), free(B);
}

/* ---- every loop kind, run serially --------------------------------------------------------- */

static void test_golden_loop_kinds(void) {
  const MlcModule *m = read_path("tests/golden/roundtrip/loop_kinds.py");
  float *A = fbuf(64 * 64), *B = fbuf(64 * 64), *R = malloc(64 * 64 * sizeof *R);
  int64_t s2[2] = {64, 64}, s1[1] = {64}, sg[1] = {1024};
  MlcInterpArg args[3] = {buf(A, 2, s2), buf(B, 2, s2)};
  CHECK(run(prim(m, "scale"), args, 2)); /* parallel, unrolled, vectorized */
  for (int i = 0; i < 64 * 64; i++) R[i] = A[i] * 2.0f;
  CHECK(close_f(B, R, 64 * 64, 0));

  float *B1 = fbuf(64);
  memcpy(R, B1, 64 * sizeof *R);
  args[0] = buf(A, 1, s1), args[1] = buf(B1, 1, s1);
  CHECK(run(prim(m, "shifted"), args, 2)); /* serial from 1: B[0] and B[63] untouched */
  for (int i = 1; i < 63; i++) R[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0f;
  CHECK(close_f(B1, R, 64, 0));

  float *G = fbuf(1024), *H = fbuf(1024), *O = fbuf(1024);
  args[0] = buf(G, 1, sg), args[1] = buf(H, 1, sg), args[2] = buf(O, 1, sg);
  CHECK(run(prim(m, "add_gpu"), args, 3)); /* thread-bound loops */
  for (int i = 0; i < 1024; i++) R[i] = G[i] + H[i];
  CHECK(close_f(O, R, 1024, 0));
  free(A), free(B), free(R), free(B1), free(G), free(H), free(O);
}

static void test_run_loop_kinds(void) {
  const MlcModule *m = read_path("tests/golden/run/loops.py");
  float *A = fbuf(16 * 32), *S = fbuf(16), R[16 * 32];
  int64_t s_a[2] = {16, 32}, s_s[1] = {16};
  MlcInterpArg args[3] = {buf(A, 2, s_a), buf(S, 1, s_s)};
  CHECK(run(prim(m, "par_rowsum"), args, 2));
  for (int i = 0; i < 16; i++) {
    R[i] = 0;
    for (int k = 0; k < 32; k++) R[i] += A[i * 32 + k];
  }
  CHECK(close_f(S, R, 16, 1e-6));

  int32_t IA[48];
  float FB[48];
  int64_t s86[2] = {8, 6};
  for (int i = 0; i < 48; i++) IA[i] = irand(-50, 50);
  args[0] = buf(IA, 2, s86), args[1] = buf(FB, 2, s86);
  CHECK(run(prim(m, "vec_cast"), args, 2));
  for (int i = 0; i < 48; i++) R[i] = (float)IA[i] * 0.5f;
  CHECK(close_f(FB, R, 48, 0));

  float *C = fbuf(64), bias[4] = {0.5f, -1, 2, 0.25f};
  int64_t s416[2] = {4, 16}, s4[1] = {4};
  args[0] = buf(A, 2, s416), args[1] = buf(bias, 1, s4), args[2] = buf(C, 2, s416);
  CHECK(run(prim(m, "vec_bias"), args, 3));
  for (int i = 0; i < 64; i++) R[i] = A[i] + bias[i / 16] * 3.0f;
  CHECK(close_f(C, R, 64, 0));

  int64_t s100[1] = {100};
  float *U = fbuf(100);
  args[0] = buf(A, 1, s100), args[1] = buf(U, 1, s100);
  CHECK(run(prim(m, "unroll_long"), args, 2));
  for (int i = 0; i < 100; i++) R[i] = A[i] - 1.0f;
  CHECK(close_f(U, R, 100, 0));

  int32_t SA[12], SB[12], SR[12];
  int64_t s12[1] = {12};
  for (int i = 0; i < 12; i++) SA[i] = irand(-30, 30), SB[i] = SR[i] = 99;
  args[0] = buf(SA, 1, s12), args[1] = buf(SB, 1, s12);
  CHECK(run(prim(m, "serial_start"), args, 2));
  for (int i = 2; i < 10; i++) SR[i] = SA[i - 2] * 3 - SA[i]; /* T.serial(2, 10): [2, 10) */
  CHECK(same_i(SB, SR, 12));

  float *NA = fbuf(120), *NB = fbuf(120);
  int64_t s385[3] = {3, 8, 5};
  args[0] = buf(NA, 3, s385), args[1] = buf(NB, 3, s385);
  CHECK(run(prim(m, "nested_par"), args, 2));
  for (int i = 0; i < 120; i++) R[i] = NA[i] * (float)(i / 40 + 1) + (float)(i % 5);
  CHECK(close_f(NB, R, 120, 0));
  free(A), free(S), free(C), free(U), free(NA), free(NB);
}

/* ---- refusals ----------------------------------------------------------------------------- */

static const char OOB[] =
    "from tvm.script import tir as T\n"
    "from tvm.script import ir as I\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def read_past(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
    "        for i in range(16):\n"
    "            with T.block(\"shift\"):\n"
    "                vi = T.axis.spatial(16, i)\n"
    "                B[vi] = A[vi + 1]\n"
    "    @T.prim_func\n"
    "    def write_past(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
    "        for i in range(16):\n"
    "            with T.block(\"put\"):\n"
    "                vi = T.axis.spatial(16, i)\n"
    "                B[vi * 2 - 3] = A[vi]\n"
    "    @T.prim_func\n"
    "    def local_past(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
    "        L = T.alloc_buffer((8,), \"float32\")\n"
    "        for i in range(16):\n"
    "            with T.block(\"fill\"):\n"
    "                vi = T.axis.spatial(16, i)\n"
    "                L[vi] = A[vi]\n"
    "    @T.prim_func\n"
    "    def divide(A: T.Buffer((4,), \"int32\"), B: T.Buffer((4,), \"int32\")):\n"
    "        for i in range(4):\n"
    "            with T.block(\"div\"):\n"
    "                vi = T.axis.spatial(4, i)\n"
    "                B[vi] = A[vi] // B[vi]\n";

static void test_out_of_bounds(void) {
  const MlcModule *m = read_text("oob.py", OOB);
  float A[16] = {0}, B[16] = {0};
  int64_t s16[1] = {16};
  MlcInterpArg args[2] = {buf(A, 1, s16), buf(B, 1, s16)};
  const char *read_want[] = {"read_past", "block 'shift'", "index 16", "buffer 'A'", "extent 16"};
  CHECK(refused(prim(m, "read_past"), args, 2, read_want, 5));
  const char *write_want[] = {"write_past", "block 'put'", "index -3", "buffer 'B'"};
  CHECK(refused(prim(m, "write_past"), args, 2, write_want, 4));
  const char *local_want[] = {"local_past", "index 8", "buffer 'L'", "extent 8"};
  CHECK(refused(prim(m, "local_past"), args, 2, local_want, 4));
  int32_t IA[4] = {1, 2, 3, 4}, IB[4] = {1, 1, 0, 1};
  int64_t s4[1] = {4};
  MlcInterpArg iargs[2] = {buf(IA, 1, s4), buf(IB, 1, s4)};
  const char *div_want[] = {"divide", "block 'div'", "division by zero"};
  CHECK(refused(prim(m, "divide"), iargs, 2, div_want, 3));
}

static void test_bad_arguments(void) {
  const MlcPrimFunc *f = load("tests/golden/roundtrip/mm_relu.py", "mm_relu");
  float *A = fbuf(128 * 128), *B = fbuf(128 * 128), *C = fbuf(128 * 128);
  int64_t good[2] = {128, 128}, narrow[2] = {128, 64}, flat[1] = {128 * 128};
  MlcInterpArg args[3] = {buf(A, 2, good), buf(B, 2, narrow), buf(C, 2, good)};
  const char *shape_want[] = {"mm_relu", "argument 'B' (#2)", "dimension 1 is 64", "needs 128"};
  CHECK(refused(f, args, 3, shape_want, 4));
  args[1] = buf(B, 1, flat);
  const char *rank_want[] = {"argument 'B' (#2)", "rank 2, not 1"};
  CHECK(refused(f, args, 3, rank_want, 2));
  args[1] = buf(NULL, 2, good);
  const char *null_want[] = {"argument 'B' (#2)", "no data"};
  CHECK(refused(f, args, 3, null_want, 2));
  args[1] = (MlcInterpArg){.is_buffer = false, .f = 1.0};
  const char *scalar_want[] = {"argument 'B' (#2)", "must be a buffer"};
  CHECK(refused(f, args, 3, scalar_want, 2));
  const char *count_want[] = {"takes 3 arguments, 2 given"};
  CHECK(refused(f, args, 2, count_want, 1));

  /* symbolic sizes that disagree: n = 3 from X, 4 in Y */
  const MlcPrimFunc *relu = load("tests/golden/roundtrip/mlp_dynamic.py", "relu0");
  int64_t s3[2] = {3, 128}, s4[2] = {4, 128}, neg[2] = {-1, 128};
  MlcInterpArg dargs[2] = {buf(A, 2, s3), buf(B, 2, s4)};
  const char *sym_want[] = {"relu0", "argument 'Y' (#2)", "dimension 0 is 4", "needs 3"};
  CHECK(refused(relu, dargs, 2, sym_want, 4));
  dargs[0] = buf(A, 2, neg);
  const char *neg_want[] = {"argument 'X' (#1)", "negative"};
  CHECK(refused(relu, dargs, 2, neg_want, 2));
  free(A), free(B), free(C);
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_mm_relu);
  RUN(test_batched_matmul);
  RUN(test_conv2d_padding);
  RUN(test_softmax);
  RUN(test_where_predicates);
  RUN(test_symbolic_sizes);
  RUN(test_integer_division);
  RUN(test_strided_buffers);
  RUN(test_golden_loop_kinds);
  RUN(test_run_loop_kinds);
  RUN(test_out_of_bounds);
  RUN(test_bad_arguments);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
