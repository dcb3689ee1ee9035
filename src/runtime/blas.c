/* blas.c - the runtime's own extern functions: env.linear and env.matmul.
 *
 * OpenBLAS is reached with dlopen, so the runtime keeps no link-time
 * dependency: when libopenblas loads, cblas_sgemm does the work, otherwise
 * a plain C loop (correct, slow) does.  MLCRT_BLAS=reference in the
 * environment forces the loop, so both paths can be checked on a machine
 * that has OpenBLAS.  Operands are checked here completely (dtype, rank,
 * shapes agreeing, compact, CPU) because the graph code that calls an extern
 * knows nothing of what the extern assumes. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* the CBLAS values of the row-major / transpose enums */
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };

typedef void (*SgemmFn)(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                        const float *a, int lda, const float *b, int ldb, float beta, float *c,
                        int ldc);

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static SgemmFn g_sgemm; /* NULL: the reference loop */
/* OpenBLAS's own thread count follows the runtime's pool (mlcrt_threads_set,
 * MLCRT_NUM_THREADS), so `--threads N` means N threads in the library calls
 * too; set again only when it changed */
static void (*g_set_threads)(int);
static int g_blas_threads;
static pthread_mutex_t g_threads_lock = PTHREAD_MUTEX_INITIALIZER;

static void follow_pool_threads(void) {
  if (!g_set_threads) return;
  int n = (int)mlcrt_threads_get();
  pthread_mutex_lock(&g_threads_lock);
  if (n != g_blas_threads) {
    g_set_threads(n);
    g_blas_threads = n;
  }
  pthread_mutex_unlock(&g_threads_lock);
}

/* ---- operand checks ----------------------------------------------------------- */

static const float *f32_in(const DLTensor *t) {
  return (const float *)(const void *)((const char *)t->data + t->byte_offset);
}

static float *f32_out(DLTensor *t) { return (float *)(void *)((char *)t->data + t->byte_offset); }

/* "FN: NAME: " + why, for an operand that is not a compact float32 CPU
 * tensor of rank in [lo, hi] */
static int check_operand(const char *fn, const char *name, const DLTensor *t, int32_t lo, int32_t hi) {
  char got[64];
  if (!t) return mlcrt_set_error("%s: %s: expected a tensor, got NULL", fn, name);
  if (t->device.device_type != kDLCPU)
    return mlcrt_set_error("%s: %s: expected a CPU tensor, got device type %d", fn, name, t->device.device_type);
  if (t->dtype.code != kDLFloat || t->dtype.bits != 32 || t->dtype.lanes != 1)
    return mlcrt_set_error("%s: %s: expected float32, got %s", fn, name, mlcrt_dtype_name(t->dtype, got, sizeof got));
  if (t->ndim < lo || t->ndim > hi) {
    if (lo == hi) return mlcrt_set_error("%s: %s: expected rank %d, got rank %d", fn, name, lo, t->ndim);
    return mlcrt_set_error("%s: %s: expected rank %d to %d, got rank %d", fn, name, lo, hi, t->ndim);
  }
  if (t->ndim > 0 && !t->shape) return mlcrt_set_error("%s: %s: tensor shape is NULL", fn, name);
  int64_t nbytes = mlcrt_tensor_nbytes(t);
  if (nbytes < 0 || mlcrt__check_compact(t)) {
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%s: %s", fn, name);
    mlcrt__prefix_error(prefix);
    return -1;
  }
  if (nbytes > 0 && !t->data) return mlcrt_set_error("%s: %s: tensor data is NULL", fn, name);
  return 0;
}

/* "FN: what: got (..)" for a shape mismatch */
static int shape_error(const char *fn, const char *what, const DLTensor *t) {
  char got[256];
  mlcrt__shape_str(t->shape, t->ndim, got, sizeof got);
  return mlcrt_set_error("%s: %s, got shape %s", fn, what, got);
}

/* ---- the two kernels ------------------------------------------------------------- */

static bool fits_int(int64_t m, int64_t n, int64_t k) { return m <= INT_MAX && n <= INT_MAX && k <= INT_MAX; }

/* c[M, N] = a[M, K] op(b) (+ bias[N] per row), op(b) = b^T of b[N, K] when
 * trans_b, else b[K, N] */
static void gemm(int64_t m, int64_t n, int64_t k, const float *a, const float *b, bool trans_b,
                 const float *bias, float *c) {
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) c[i * n + j] = bias ? bias[j] : 0.0f;
  if (m == 0 || n == 0 || k == 0) return;
  if (g_sgemm && fits_int(m, n, k)) {
    follow_pool_threads();
    g_sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, trans_b ? CBLAS_TRANS : CBLAS_NO_TRANS, (int)m, (int)n,
            (int)k, 1.0f, a, (int)k, b, trans_b ? (int)k : (int)n, 1.0f, c, (int)n);
    return;
  }
  if (trans_b) {
    /* both rows run along K: a dot product per output */
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        float s = 0.0f;
        for (int64_t p = 0; p < k; p++) s += a[i * k + p] * b[j * k + p];
        c[i * n + j] += s;
      }
  } else {
    /* i-p-j order keeps the inner loop on contiguous rows of b and c */
    for (int64_t i = 0; i < m; i++)
      for (int64_t p = 0; p < k; p++) {
        float av = a[i * k + p];
        for (int64_t j = 0; j < n; j++) c[i * n + j] += av * b[p * n + j];
      }
  }
}

/* out must be x's shape with the last dim n; *rows = the product of x's
 * other dims (the rows of the product) */
static int rows_out(const char *fn, const DLTensor *x, int64_t n, const DLTensor *out, int64_t *rows) {
  int64_t want[MLCRT_MAX_NDIM];
  bool ok = out->ndim == x->ndim;
  *rows = 1;
  for (int32_t i = 0; i + 1 < x->ndim; i++) {
    want[i] = x->shape[i];
    ok = ok && out->shape[i] == x->shape[i];
    *rows *= x->shape[i]; /* fits: x's byte size was checked */
  }
  want[x->ndim - 1] = n;
  if (ok && out->shape[out->ndim - 1] == n) return 0;
  char ws[256], msg[300];
  mlcrt__shape_str(want, x->ndim, ws, sizeof ws);
  snprintf(msg, sizeof msg, "out: expected shape %s", ws);
  return shape_error(fn, msg, out);
}

/* env.linear(x [.., K], w [N, K], [b [N],] out [.., N]): out = x w^T + b */
static int32_t env_linear(DLTensor *const *args, int32_t n_args, const MlcrtEnv *env) {
  static const char fn[] = "env.linear";
  if ((n_args != 3 && n_args != 4) || !args)
    return mlcrt_set_error("%s: expected 3 or 4 arguments (x, w, [b,] out), got %d", fn, n_args);
  const DLTensor *x = args[0], *w = args[1], *b = n_args == 4 ? args[2] : NULL;
  DLTensor *out = args[n_args - 1];
  if (check_operand(fn, "x", x, 1, MLCRT_MAX_NDIM) || check_operand(fn, "w", w, 2, 2) ||
      (b && check_operand(fn, "b", b, 1, 1)) || check_operand(fn, "out", out, 1, MLCRT_MAX_NDIM))
    return -1;
  int64_t k = x->shape[x->ndim - 1], n = w->shape[0], m;
  char what[160];
  if (w->shape[1] != k) {
    snprintf(what, sizeof what, "w: expected (N, %lld) to match x's last dim", (long long)k);
    return shape_error(fn, what, w);
  }
  if (b && b->shape[0] != n) {
    snprintf(what, sizeof what, "b: expected (%lld,) to match w's N", (long long)n);
    return shape_error(fn, what, b);
  }
  if (rows_out(fn, x, n, out, &m)) return -1;
  gemm(m, n, k, f32_in(x), f32_in(w), true, b ? f32_in(b) : NULL, f32_out(out));
  return 0;
}

/* env.matmul(a [.., M, K], b [K, N], out [.., M, N]): the leading dims of a
 * are rows too (a weight applied to every row of a batch) */
static int32_t env_matmul(DLTensor *const *args, int32_t n_args, const MlcrtEnv *env) {
  static const char fn[] = "env.matmul";
  if (n_args != 3 || !args) return mlcrt_set_error("%s: expected 3 arguments (a, b, out), got %d", fn, n_args);
  const DLTensor *a = args[0], *b = args[1];
  DLTensor *out = args[2];
  if (check_operand(fn, "a", a, 2, MLCRT_MAX_NDIM) || check_operand(fn, "b", b, 2, 2) ||
      check_operand(fn, "out", out, 2, MLCRT_MAX_NDIM))
    return -1;
  int64_t k = a->shape[a->ndim - 1], n = b->shape[1], m;
  char what[160];
  if (b->shape[0] != k) {
    snprintf(what, sizeof what, "b: expected (%lld, N) to match a's K", (long long)k);
    return shape_error(fn, what, b);
  }
  if (rows_out(fn, a, n, out, &m)) return -1;
  gemm(m, n, k, f32_in(a), f32_in(b), false, NULL, f32_out(out));
  return 0;
}

/* ---- registration -------------------------------------------------------------------- */

#define BUILTIN_EXTERNS(X)   \
  X("env.linear", env_linear) \
  X("env.matmul", env_matmul)

/* the library stays open for the life of the process: the pointer is used
 * by every later call */
static void load_openblas(void) {
  const char *force = getenv("MLCRT_BLAS");
  if (force && strcmp(force, "reference") == 0) return;
  void *dl = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!dl) dl = dlopen("libopenblas.so", RTLD_NOW | RTLD_LOCAL);
  if (!dl) return;
  void *sym = dlsym(dl, "cblas_sgemm");
  if (!sym) {
    dlclose(dl);
    return;
  }
  /* POSIX guarantees a data pointer from dlsym converts to a function pointer */
  memcpy(&g_sgemm, &sym, sizeof g_sgemm);
  void *set = dlsym(dl, "openblas_set_num_threads");
  if (set) memcpy(&g_set_threads, &set, sizeof g_set_threads);
}

static void register_all(void) {
  load_openblas();
#define X(name, fn) mlcrt__extern_put(name, fn);
  BUILTIN_EXTERNS(X)
#undef X
}

void mlcrt__register_builtin_externs(void) { pthread_once(&g_once, register_all); }

const char *mlcrt_extern_blas_backend(void) {
  mlcrt__register_builtin_externs();
  return g_sgemm ? "openblas" : "reference";
}
