/* test_extern.c - the extern registry and the runtime's built-in externs.
 *
 * env.linear and env.matmul are checked against a plain double-precision
 * loop written here, on shapes that are not multiples of any blocking
 * factor.  The binary runs itself once more with MLCRT_BLAS=reference, so
 * the C loop is checked too on a machine where OpenBLAS does the work. */
#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mlcc/runtime.h"

static const char *g_self;

static MlcrtTensor *tensor(int32_t ndim, const int64_t *shape) {
  MlcrtTensor *t = NULL;
  if (mlcrt_tensor_create(ndim, shape, mlcrt_dtype(kDLFloat, 32), &t) != 0) return NULL;
  return t;
}

static float *f32(MlcrtTensor *t) { return (float *)t->dl.data; }

/* deterministic values in [-1, 1) */
static void fill(MlcrtTensor *t, uint32_t seed) {
  int64_t n = mlcrt_tensor_numel(&t->dl);
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    f32(t)[i] = (float)(seed >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
  }
}

static MlcrtExternFn lookup(const char *name) {
  MlcrtExtern e = {0};
  if (mlcrt_env()->get_extern(name, &e) != 0) return NULL;
  return e.fn;
}

/* the largest |got - want| relative to the magnitude of the sum */
static bool close_to(const float *got, const double *want, int64_t n, int64_t k) {
  for (int64_t i = 0; i < n; i++)
    if (fabs(got[i] - want[i]) > 1e-5 * (double)(k + 1)) {
      printf("# element %lld: got %g, want %g\n", (long long)i, got[i], want[i]);
      return false;
    }
  return true;
}

/* out[.., N] = x[.., K] w[N, K]^T (+ b) in double */
static double *ref_linear(const float *x, const float *w, const float *b, int64_t m, int64_t n, int64_t k) {
  double *r = calloc((size_t)(m * n + 1), sizeof *r);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double s = b ? b[j] : 0.0;
      for (int64_t p = 0; p < k; p++) s += (double)x[i * k + p] * w[j * k + p];
      r[i * n + j] = s;
    }
  return r;
}

static void check_linear(bool bias, int64_t b0, int64_t b1, int64_t n, int64_t k) {
  int64_t xs[] = {b0, b1, k}, ws[] = {n, k}, bs[] = {n}, os[] = {b0, b1, n};
  MlcrtTensor *x = tensor(3, xs), *w = tensor(2, ws), *b = tensor(1, bs), *out = tensor(3, os);
  CHECK(x && w && b && out);
  if (!x || !w || !b || !out) return;
  fill(x, 1);
  fill(w, 2);
  fill(b, 3);
  mlcrt_tensor_fill(&out->dl, 99.0); /* must be overwritten, not accumulated into */
  MlcrtExternFn fn = lookup("env.linear");
  CHECK(fn != NULL);
  DLTensor *with[] = {&x->dl, &w->dl, &b->dl, &out->dl}, *without[] = {&x->dl, &w->dl, &out->dl};
  int rc = fn ? (bias ? fn(with, 4, mlcrt_env()) : fn(without, 3, mlcrt_env())) : -1;
  CHECK(rc == 0);
  if (rc != 0) printf("# %s\n", mlcrt_last_error());
  double *want = ref_linear(f32(x), f32(w), bias ? f32(b) : NULL, b0 * b1, n, k);
  CHECK(rc == 0 && close_to(f32(out), want, b0 * b1 * n, k));
  free(want);
  mlcrt_tensor_free(x);
  mlcrt_tensor_free(w);
  mlcrt_tensor_free(b);
  mlcrt_tensor_free(out);
}

static void test_linear_bias(void) {
  check_linear(true, 2, 3, 4, 5);
  check_linear(true, 3, 11, 37, 130);
}

static void test_linear_no_bias(void) {
  check_linear(false, 1, 1, 1, 1);
  check_linear(false, 5, 7, 33, 65);
}

static void test_linear_empty(void) {
  check_linear(true, 0, 3, 4, 5);  /* no rows */
  check_linear(true, 2, 3, 4, 0);  /* K = 0: out is the bias */
  check_linear(false, 2, 3, 4, 0); /* K = 0: out is zero */
}

static void test_linear_rank1(void) {
  int64_t xs[] = {6}, ws[] = {3, 6}, os[] = {3};
  MlcrtTensor *x = tensor(1, xs), *w = tensor(2, ws), *out = tensor(1, os);
  fill(x, 7);
  fill(w, 8);
  DLTensor *args[] = {&x->dl, &w->dl, &out->dl};
  CHECK(lookup("env.linear")(args, 3, mlcrt_env()) == 0);
  double *want = ref_linear(f32(x), f32(w), NULL, 1, 3, 6);
  CHECK(close_to(f32(out), want, 3, 6));
  free(want);
  mlcrt_tensor_free(x);
  mlcrt_tensor_free(w);
  mlcrt_tensor_free(out);
}

static void check_matmul(int64_t m, int64_t k, int64_t n) {
  int64_t as[] = {m, k}, bs[] = {k, n}, os[] = {m, n};
  MlcrtTensor *a = tensor(2, as), *b = tensor(2, bs), *out = tensor(2, os);
  fill(a, 4);
  fill(b, 5);
  mlcrt_tensor_fill(&out->dl, -3.0);
  DLTensor *args[] = {&a->dl, &b->dl, &out->dl};
  MlcrtExternFn fn = lookup("env.matmul");
  CHECK(fn && fn(args, 3, mlcrt_env()) == 0);
  double *want = calloc((size_t)(m * n + 1), sizeof *want);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++)
      for (int64_t p = 0; p < k; p++) want[i * n + j] += (double)f32(a)[i * k + p] * f32(b)[p * n + j];
  CHECK(close_to(f32(out), want, m * n, k));
  free(want);
  mlcrt_tensor_free(a);
  mlcrt_tensor_free(b);
  mlcrt_tensor_free(out);
}

/* a [B, M, K] times b [K, N]: every row of every batch */
static void test_matmul_batched(void) {
  enum { B = 3, M = 5, K = 7, N = 4 };
  int64_t as[] = {B, M, K}, bs[] = {K, N}, os[] = {B, M, N};
  MlcrtTensor *a = tensor(3, as), *b = tensor(2, bs), *out = tensor(3, os);
  fill(a, 6);
  fill(b, 7);
  DLTensor *args[] = {&a->dl, &b->dl, &out->dl};
  CHECK(lookup("env.matmul")(args, 3, mlcrt_env()) == 0);
  double want[B * M * N] = {0};
  for (int r = 0; r < B * M; r++)
    for (int j = 0; j < N; j++)
      for (int p = 0; p < K; p++) want[r * N + j] += (double)f32(a)[r * K + p] * f32(b)[p * N + j];
  CHECK(close_to(f32(out), want, B * M * N, K));
  mlcrt_tensor_free(a);
  mlcrt_tensor_free(b);
  mlcrt_tensor_free(out);
}

static void test_matmul(void) {
  check_matmul(1, 1, 1);
  check_matmul(7, 13, 9);
  check_matmul(64, 129, 33);
  check_matmul(3, 0, 4);
}

/* calls NAME on tensors of the given shapes (rank <= 3, float32 unless
 * dtype_at names an argument made int32) and returns the message */
static const char *call_error(const char *name, int n, const int64_t shapes[][4], int dtype_at) {
  MlcrtTensor *t[4] = {0};
  DLTensor *args[4];
  for (int i = 0; i < n; i++) {
    DLDataType dt = i == dtype_at ? mlcrt_dtype(kDLInt, 32) : mlcrt_dtype(kDLFloat, 32);
    mlcrt_tensor_create((int32_t)shapes[i][0], &shapes[i][1], dt, &t[i]);
    args[i] = &t[i]->dl;
  }
  int rc = lookup(name)(args, n, mlcrt_env());
  for (int i = 0; i < n; i++) mlcrt_tensor_free(t[i]);
  return rc != 0 ? mlcrt_last_error() : "(accepted)";
}

static void test_linear_errors(void) {
  const int64_t bad_k[][4] = {{2, 2, 5}, {2, 4, 6}, {1, 4}, {2, 2, 4}};
  CHECK_STR(call_error("env.linear", 4, bad_k, -1),
            "env.linear: w: expected (N, 5) to match x's last dim, got shape (4, 6)");
  const int64_t bad_b[][4] = {{2, 2, 5}, {2, 4, 5}, {1, 3}, {2, 2, 4}};
  CHECK_STR(call_error("env.linear", 4, bad_b, -1), "env.linear: b: expected (4,) to match w's N, got shape (3,)");
  const int64_t bad_out[][4] = {{3, 2, 3, 5}, {2, 4, 5}, {3, 2, 4, 4}};
  CHECK_STR(call_error("env.linear", 3, bad_out, -1),
            "env.linear: out: expected shape (2, 3, 4), got shape (2, 4, 4)");
  const int64_t bad_rank[][4] = {{2, 2, 5}, {1, 5}, {2, 2, 1}};
  CHECK_STR(call_error("env.linear", 3, bad_rank, -1), "env.linear: w: expected rank 2, got rank 1");
  const int64_t ok[][4] = {{2, 2, 5}, {2, 4, 5}, {2, 2, 4}};
  CHECK_STR(call_error("env.linear", 3, ok, 0), "env.linear: x: expected float32, got int32");
  CHECK_STR(call_error("env.linear", 2, ok, -1), "env.linear: expected 3 or 4 arguments (x, w, [b,] out), got 2");
}

static void test_matmul_errors(void) {
  const int64_t bad_k[][4] = {{2, 3, 4}, {2, 5, 6}, {2, 3, 6}};
  CHECK_STR(call_error("env.matmul", 3, bad_k, -1), "env.matmul: b: expected (4, N) to match a's K, got shape (5, 6)");
  const int64_t bad_out[][4] = {{2, 3, 4}, {2, 4, 6}, {2, 6, 3}};
  CHECK_STR(call_error("env.matmul", 3, bad_out, -1), "env.matmul: out: expected shape (3, 6), got shape (6, 3)");
  const int64_t ok[][4] = {{2, 3, 4}, {2, 4, 6}, {2, 3, 6}};
  CHECK_STR(call_error("env.matmul", 3, ok, -1), "(accepted)");
  const int64_t bad_batch[][4] = {{3, 3, 5, 7}, {2, 7, 4}, {3, 3, 4, 4}};
  CHECK_STR(call_error("env.matmul", 3, bad_batch, -1), "env.matmul: out: expected shape (3, 5, 4), got shape (3, 4, 4)");
  CHECK_STR(call_error("env.matmul", 4, (const int64_t[][4]){{2, 3, 4}, {2, 4, 6}, {2, 3, 6}, {1, 1}}, -1),
            "env.matmul: expected 3 arguments (a, b, out), got 4");
}

static void test_non_compact_refused(void) {
  int64_t as[] = {4, 4}, os[] = {4, 4}, strides[] = {1, 4};
  MlcrtTensor *a = tensor(2, as), *b = tensor(2, as), *out = tensor(2, os);
  DLTensor at = a->dl;
  at.strides = strides; /* a transposed view */
  DLTensor *args[] = {&at, &b->dl, &out->dl};
  CHECK(lookup("env.matmul")(args, 3, mlcrt_env()) != 0);
  CHECK(strstr(mlcrt_last_error(), "env.matmul: a: expected compact row-major strides") != NULL);
  mlcrt_tensor_free(a);
  mlcrt_tensor_free(b);
  mlcrt_tensor_free(out);
}

static int32_t ext_one(DLTensor *const *args, int32_t n, const MlcrtEnv *env) { return 1; }
static int32_t ext_two(DLTensor *const *args, int32_t n, const MlcrtEnv *env) { return 2; }

static void test_registry(void) {
  MlcrtExtern e = {0};
  CHECK(mlcrt_extern_get("test.absent", &e) != 0);
  CHECK_STR(mlcrt_last_error(), "no extern function named 'test.absent' is registered");
  CHECK(mlcrt_extern_register("test.f", ext_one) == 0);
  CHECK(mlcrt_extern_get("test.f", &e) == 0 && e.fn == ext_one);
  CHECK_STR(e.name, "test.f");
  CHECK(mlcrt_extern_register("test.f", ext_two) == 0); /* replaces */
  CHECK(mlcrt_extern_get("test.f", &e) == 0 && e.fn == ext_two);
  CHECK(mlcrt_extern_register("", ext_one) != 0);
  CHECK(mlcrt_extern_register("test.g", NULL) != 0);
  CHECK(mlcrt_extern_get("env.linear", &e) == 0 && e.fn != NULL);
  const char *backend = mlcrt_extern_blas_backend();
  CHECK(!strcmp(backend, "openblas") || !strcmp(backend, "reference"));
  const char *forced = getenv("MLCRT_BLAS");
  if (forced && !strcmp(forced, "reference")) CHECK_STR(backend, "reference");
}

/* OpenBLAS's thread count follows the runtime's pool: after
 * mlcrt_threads_set(n), a library call runs with n threads (asked of
 * OpenBLAS itself); skipped where the reference loop runs */
static void test_blas_follows_pool_threads(void) {
  if (strcmp(mlcrt_extern_blas_backend(), "openblas") != 0) {
    printf("# skipped: OpenBLAS is not loaded\n");
    return;
  }
  void *dl = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!dl) dl = dlopen("libopenblas.so", RTLD_NOW | RTLD_LOCAL);
  void *sym = dl ? dlsym(dl, "openblas_get_num_threads") : NULL;
  CHECK(sym != NULL);
  if (!sym) return;
  int (*get)(void);
  memcpy(&get, &sym, sizeof get);
  int32_t before = mlcrt_threads_get();
  for (int n = 1; n <= 2; n++) {
    CHECK(mlcrt_threads_set(n) == 0);
    check_matmul(8, 8, 8);
    CHECK(get() == n);
  }
  mlcrt_threads_set(before);
  dlclose(dl);
}

/* the same tests once more on the plain C loop, in a child process since
 * the backend is chosen once per process; its lines are shown as comments */
static void test_reference_backend(void) {
  char cmd[1024], line[512];
  snprintf(cmd, sizeof cmd, "MLCRT_BLAS=reference '%s' --child", g_self);
  FILE *p = popen(cmd, "r");
  CHECK(p != NULL);
  if (!p) return;
  int n_ok = 0;
  while (fgets(line, sizeof line, p)) {
    if (!strncmp(line, "ok ", 3)) n_ok++;
    else printf("# reference: %s", line);
  }
  CHECK(pclose(p) == 0);
  CHECK(n_ok >= 9);
}

int main(int argc, char **argv) {
  g_self = argv[0];
  RUN(test_registry);
  RUN(test_linear_bias);
  RUN(test_linear_no_bias);
  RUN(test_linear_empty);
  RUN(test_linear_rank1);
  RUN(test_matmul);
  RUN(test_matmul_batched);
  RUN(test_linear_errors);
  RUN(test_matmul_errors);
  RUN(test_non_compact_refused);
  RUN(test_blas_follows_pool_threads);
  if (argc < 2 || strcmp(argv[1], "--child") != 0) RUN(test_reference_backend);
  return CHECK_DONE();
}
