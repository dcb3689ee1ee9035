/* test_runtime.c - the runtime's tensors, module descriptors, calling
 * convention, thread pool and time evaluator.
 *
 * Kernels here are hand-written the way the C code generator writes them
 * (they see only args, syms and the env), and results are compared with
 * values worked out by hand or with plain loops in the test.  Refusals are
 * checked by their exact messages, since the message is the interface a
 * user of a compiled model sees. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "mlcc/runtime.h"

#define F32 {kDLFloat, 32, 1}
#define F64 {kDLFloat, 64, 1}
#define I32 {kDLInt, 32, 1}
#define I64 {kDLInt, 64, 1}

static bool starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static MlcrtTensor *tensor(int32_t ndim, const int64_t *shape, DLDataType dt) {
  MlcrtTensor *t = NULL;
  if (mlcrt_tensor_create(ndim, shape, dt, &t) != 0) printf("# tensor_create: %s\n", mlcrt_last_error());
  return t;
}

/* ---- tensors and dtypes ------------------------------------------------------ */

static void test_tensor_create(void) {
  int64_t shape[] = {2, 3};
  MlcrtTensor *t = tensor(2, shape, mlcrt_dtype(kDLFloat, 32));
  CHECK(t != NULL);
  if (!t) return;
  CHECK(t->dl.ndim == 2 && t->dl.shape[0] == 2 && t->dl.shape[1] == 3);
  CHECK(t->dl.strides == NULL && t->dl.byte_offset == 0 && t->dl.device.device_type == kDLCPU);
  CHECK(((uintptr_t)t->dl.data % 64) == 0);
  CHECK(mlcrt_tensor_numel(&t->dl) == 6 && mlcrt_tensor_nbytes(&t->dl) == 24);
  const float *f = t->dl.data;
  bool zero = true;
  for (int i = 0; i < 6; i++) zero &= f[i] == 0.0f;
  CHECK(zero);
  shape[0] = 99; /* the tensor keeps its own copy of the shape */
  CHECK(t->dl.shape[0] == 2);
  mlcrt_tensor_free(t);

  MlcrtTensor *s = tensor(0, NULL, mlcrt_dtype(kDLFloat, 64));
  CHECK(s && mlcrt_tensor_numel(&s->dl) == 1 && mlcrt_tensor_nbytes(&s->dl) == 8);
  mlcrt_tensor_free(s);
  int64_t empty[] = {0, 5};
  MlcrtTensor *e = tensor(2, empty, mlcrt_dtype(kDLInt, 8));
  CHECK(e && e->dl.data != NULL && mlcrt_tensor_numel(&e->dl) == 0 && mlcrt_tensor_nbytes(&e->dl) == 0);
  mlcrt_tensor_free(e);
  DLDataType v4 = {kDLFloat, 32, 4};
  int64_t three[] = {3};
  MlcrtTensor *v = tensor(1, three, v4);
  CHECK(v && mlcrt_tensor_nbytes(&v->dl) == 48);
  mlcrt_tensor_free(v);
  mlcrt_tensor_free(NULL);
}

static void test_tensor_refusals(void) {
  MlcrtTensor *t = (MlcrtTensor *)&t; /* must be reset to NULL */
  int64_t huge[] = {(int64_t)1 << 32, (int64_t)1 << 32};
  CHECK(mlcrt_tensor_create(2, huge, mlcrt_dtype(kDLInt, 8), &t) != 0 && t == NULL);
  CHECK_STR(mlcrt_last_error(), "element count of the shape overflows");
  int64_t big_bytes[] = {(int64_t)1 << 61, 1};
  CHECK(mlcrt_tensor_create(2, big_bytes, mlcrt_dtype(kDLFloat, 64), &t) != 0 && t == NULL);
  CHECK_STR(mlcrt_last_error(), "tensor byte size overflows");
  int64_t neg[] = {3, -2};
  CHECK(mlcrt_tensor_create(2, neg, mlcrt_dtype(kDLFloat, 32), &t) != 0);
  CHECK_STR(mlcrt_last_error(), "negative dimension -2 in shape");
  int64_t one[33] = {0};
  CHECK(mlcrt_tensor_create(33, one, mlcrt_dtype(kDLFloat, 32), &t) != 0);
  CHECK_STR(mlcrt_last_error(), "tensor rank 33 outside [0, 32]");
  DLDataType odd = {kDLFloat, 7, 1};
  CHECK(mlcrt_tensor_create(1, one, odd, &t) != 0);
  CHECK_STR(mlcrt_last_error(), "unsupported dtype dtype(code=2, bits=7, lanes=1)");
  CHECK(mlcrt_tensor_create(2, NULL, mlcrt_dtype(kDLFloat, 32), &t) != 0);
  CHECK_STR(mlcrt_last_error(), "tensor shape is NULL");
  /* an empty dimension makes the count 0 whatever the others are */
  int64_t empty_huge[] = {INT64_MAX, 0, INT64_MAX};
  DLTensor dl = {NULL, {kDLCPU, 0}, 3, {kDLFloat, 32, 1}, empty_huge, NULL, 0};
  CHECK(mlcrt_tensor_numel(&dl) == 0 && mlcrt_tensor_nbytes(&dl) == 0);
  empty_huge[1] = 2;
  CHECK(mlcrt_tensor_numel(&dl) == -1);
  CHECK_STR(mlcrt_last_error(), "element count of the shape overflows");
}

static void test_dtype_names(void) {
  char buf[64];
  CHECK_STR(mlcrt_dtype_name(mlcrt_dtype(kDLFloat, 32), buf, sizeof buf), "float32");
  CHECK_STR(mlcrt_dtype_name(mlcrt_dtype(kDLBool, 8), buf, sizeof buf), "bool");
  CHECK_STR(mlcrt_dtype_name(mlcrt_dtype(kDLUInt, 16), buf, sizeof buf), "uint16");
  CHECK_STR(mlcrt_dtype_name(mlcrt_dtype(kDLBfloat, 16), buf, sizeof buf), "bfloat16");
  DLDataType v = {kDLInt, 8, 16};
  CHECK_STR(mlcrt_dtype_name(v, buf, sizeof buf), "int8x16");
  DLDataType bad = {9, 8, 1};
  CHECK_STR(mlcrt_dtype_name(bad, buf, sizeof buf), "dtype(code=9, bits=8, lanes=1)");
  CHECK(mlcrt_dtype_bytes(v) == 16 && mlcrt_dtype_bytes(mlcrt_dtype(kDLFloat, 16)) == 2);
  CHECK(mlcrt_dtype_bytes(bad) == 0);
  CHECK_STR(mlcrt_dtype_name(mlcrt_dtype(kDLFloat, 32), buf, 4), "flo"); /* cut to fit */
}

/* fill one element of dtype dt with v and return its bits */
static uint64_t fill_bits(DLDataType dt, double v, int *rc) {
  int64_t one[] = {1};
  MlcrtTensor *t = tensor(1, one, dt);
  uint64_t bits = 0;
  if (!t) return 0;
  *rc = mlcrt_tensor_fill(&t->dl, v);
  memcpy(&bits, t->dl.data, dt.bits / 8); /* little-endian hosts: low bytes */
  mlcrt_tensor_free(t);
  return bits;
}

static void test_fill(void) {
  int rc = 0;
  DLDataType f16 = mlcrt_dtype(kDLFloat, 16), bf16 = mlcrt_dtype(kDLBfloat, 16);
  CHECK(fill_bits(f16, 1.0, &rc) == 0x3c00 && rc == 0);
  CHECK(fill_bits(f16, -2.0, &rc) == 0xc000);
  CHECK(fill_bits(f16, 65504.0, &rc) == 0x7bff);
  CHECK(fill_bits(f16, 65520.0, &rc) == 0x7c00);        /* rounds up to infinity */
  CHECK(fill_bits(f16, ldexp(1.0, -24), &rc) == 0x0001); /* smallest subnormal */
  CHECK(fill_bits(f16, 1.0 + ldexp(1.0, -11), &rc) == 0x3c00); /* tie to even */
  CHECK(fill_bits(bf16, 1.0, &rc) == 0x3f80);
  CHECK(fill_bits(bf16, 3.14159265358979, &rc) == 0x4049);
  CHECK(fill_bits(mlcrt_dtype(kDLInt, 32), -3.7, &rc) == 0xfffffffd && rc == 0);
  CHECK(fill_bits(mlcrt_dtype(kDLUInt, 8), 255.0, &rc) == 255 && rc == 0);
  CHECK(fill_bits(mlcrt_dtype(kDLBool, 8), 2.0, &rc) == 1 && rc == 0);
  fill_bits(mlcrt_dtype(kDLInt, 8), 300.0, &rc);
  CHECK(rc != 0);
  CHECK_STR(mlcrt_last_error(), "fill value 300 out of range for int8");
  fill_bits(mlcrt_dtype(kDLUInt, 8), 256.0, &rc);
  CHECK(rc != 0);
  fill_bits(mlcrt_dtype(kDLInt, 64), NAN, &rc);
  CHECK(rc != 0);
  int64_t shape[] = {1000};
  MlcrtTensor *t = tensor(1, shape, mlcrt_dtype(kDLFloat, 64));
  CHECK(t && mlcrt_tensor_fill(&t->dl, 0.1) == 0);
  bool all = true;
  for (int i = 0; t && i < 1000; i++) all &= ((double *)t->dl.data)[i] == 0.1;
  CHECK(all);
  mlcrt_tensor_free(t);
}

/* ---- a module written by hand ------------------------------------------------ */

/* vadd(A: float32[n], B: float32[n], C: float32[n]): C = A + B */
static int32_t vadd_kernel(void *const *args, const int64_t *syms, const MlcrtEnv *env) {
  const float *a = args[0], *b = args[1];
  float *c = args[2];
  (void)env;
  for (int64_t i = 0; i < syms[0]; i++) c[i] = a[i] + b[i];
  return 0;
}

/* axpb(X: float32[4, 8] align 64, alpha: float64, k: int64, Y: float32[4, 8]
 * align 64): Y = alpha * X + k, one row per parallel_for iteration */
typedef struct Axpb {
  const float *x;
  float *y;
  double alpha;
  int64_t k;
} Axpb;

static int32_t axpb_rows(int64_t begin, int64_t end, void *closure) {
  const Axpb *c = closure;
  for (int64_t r = begin; r < end; r++)
    for (int j = 0; j < 8; j++) c->y[r * 8 + j] = (float)(c->alpha * c->x[r * 8 + j] + (double)c->k);
  return 0;
}

static int32_t axpb_kernel(void *const *args, const int64_t *syms, const MlcrtEnv *env) {
  Axpb c = {args[0], args[3], *(const double *)args[1], *(const int64_t *)args[2]};
  (void)syms;
  return env->parallel_for(4, axpb_rows, &c);
}

/* mm(A: float64[m, k], B: float64[k, n], C: float64[m, n]): C = A B, with a
 * workspace row to exercise the env's allocator */
static int32_t mm_kernel(void *const *args, const int64_t *syms, const MlcrtEnv *env) {
  const double *a = args[0], *b = args[1];
  double *c = args[2];
  int64_t m = syms[0], k = syms[1], n = syms[2];
  double *row = env->workspace_alloc((size_t)(n > 0 ? n : 1) * sizeof *row, 0);
  if (!row) return 1;
  for (int64_t i = 0; i < m; i++) {
    for (int64_t j = 0; j < n; j++) row[j] = 0;
    for (int64_t p = 0; p < k; p++)
      for (int64_t j = 0; j < n; j++) row[j] += a[i * k + p] * b[p * n + j];
    memcpy(c + i * n, row, (size_t)n * sizeof *row);
  }
  env->workspace_free(row);
  return 0;
}

/* fails(X: int32[2]): fails with its own message and status 3 */
static int32_t fails_kernel(void *const *args, const int64_t *syms, const MlcrtEnv *env) {
  (void)args;
  (void)syms;
  env->set_error("bad input 42");
  return 3;
}

/* pfails(X: int32[n]): a parallel body fails on the range holding the last index */
static int32_t pfails_body(int64_t begin, int64_t end, void *closure) {
  const MlcrtEnv *env = mlcrt_env();
  int64_t n = *(const int64_t *)closure;
  if (end == n) {
    env->set_error("range ending at n failed");
    return 4;
  }
  (void)begin;
  return 0;
}

static int32_t pfails_kernel(void *const *args, const int64_t *syms, const MlcrtEnv *env) {
  int64_t n = syms[0];
  (void)args;
  return env->parallel_for(n, pfails_body, &n);
}

static const int64_t DIMS_N[] = {-1};
static const int64_t DIMS_4x8[] = {4, 8};
static const int64_t DIMS_MK[] = {-1, -2}, DIMS_KN[] = {-2, -3}, DIMS_MN[] = {-1, -3};
static const int64_t DIMS_2[] = {2};
static const char *const SYMS_N[] = {"n"};
static const char *const SYMS_MKN[] = {"m", "k", "n"};

static const MlcrtParamDesc VADD_PARAMS[] = {
    {"A", 1, F32, 1, DIMS_N, 0}, {"B", 1, F32, 1, DIMS_N, 0}, {"C", 1, F32, 1, DIMS_N, 0}};
static const MlcrtParamDesc AXPB_PARAMS[] = {
    {"X", 1, F32, 2, DIMS_4x8, 64}, {"alpha", 0, F64, 0, NULL, 0}, {"k", 0, I64, 0, NULL, 0},
    {"Y", 1, F32, 2, DIMS_4x8, 64}};
static const MlcrtParamDesc MM_PARAMS[] = {
    {"A", 1, F64, 2, DIMS_MK, 0}, {"B", 1, F64, 2, DIMS_KN, 0}, {"C", 1, F64, 2, DIMS_MN, 0}};
static const MlcrtParamDesc FAILS_PARAMS[] = {{"X", 1, I32, 1, DIMS_2, 0}};
static const MlcrtParamDesc PFAILS_PARAMS[] = {{"X", 1, I32, 1, DIMS_N, 0}};

static const MlcrtFuncDesc FUNCS[] = {
    {"vadd", 3, VADD_PARAMS, 1, SYMS_N, vadd_kernel},
    {"axpb", 4, AXPB_PARAMS, 0, NULL, axpb_kernel},
    {"mm", 3, MM_PARAMS, 3, SYMS_MKN, mm_kernel},
    {"fails", 1, FAILS_PARAMS, 0, NULL, fails_kernel},
    {"pfails", 1, PFAILS_PARAMS, 1, SYMS_N, pfails_kernel},
};
static const MlcrtModuleDesc MODULE = {MLCRT_ABI_VERSION, 5, FUNCS};

static MlcrtModule *test_module(void) {
  MlcrtModule *m = NULL;
  if (mlcrt_module_from_desc(&MODULE, &m) != 0) printf("# module_from_desc: %s\n", mlcrt_last_error());
  return m;
}

static void test_module_lookup(void) {
  MlcrtModule *m = test_module();
  CHECK(m != NULL);
  if (!m) return;
  CHECK(mlcrt_module_num_funcs(m) == 5);
  const MlcrtFunc *f = mlcrt_module_get_func(m, "mm");
  CHECK(f != NULL && mlcrt_func_desc(f) == &FUNCS[2]);
  CHECK(mlcrt_module_func_at(m, 0) == mlcrt_module_get_func(m, "vadd"));
  CHECK(mlcrt_module_get_func(m, "nope") == NULL);
  CHECK_STR(mlcrt_last_error(), "module has no function 'nope'");
  CHECK(mlcrt_module_func_at(m, 5) == NULL);
  mlcrt_module_free(m);
}

static void test_call_vadd(void) {
  MlcrtModule *m = test_module();
  const MlcrtFunc *f = m ? mlcrt_module_get_func(m, "vadd") : NULL;
  CHECK(f != NULL);
  if (!f) return;
  int64_t sizes[] = {0, 1, 17, 1000};
  for (int s = 0; s < 4; s++) {
    int64_t n = sizes[s];
    MlcrtTensor *a = tensor(1, &n, mlcrt_dtype(kDLFloat, 32)), *b = tensor(1, &n, mlcrt_dtype(kDLFloat, 32)),
                *c = tensor(1, &n, mlcrt_dtype(kDLFloat, 32));
    for (int64_t i = 0; i < n; i++) {
      ((float *)a->dl.data)[i] = (float)i * 0.5f;
      ((float *)b->dl.data)[i] = 3.0f - (float)i;
    }
    DLTensor *args[] = {&a->dl, &b->dl, &c->dl};
    CHECK(mlcrt_func_call_tensors(f, args, 3) == 0);
    bool ok = true;
    for (int64_t i = 0; i < n; i++) ok &= ((float *)c->dl.data)[i] == (float)i * 0.5f + (3.0f - (float)i);
    CHECK(ok);
    mlcrt_tensor_free(a);
    mlcrt_tensor_free(b);
    mlcrt_tensor_free(c);
  }
  mlcrt_module_free(m);
}

static void test_call_scalars_and_parallel(void) {
  MlcrtModule *m = test_module();
  const MlcrtFunc *f = m ? mlcrt_module_get_func(m, "axpb") : NULL;
  CHECK(f != NULL);
  if (!f) return;
  int64_t shape[] = {4, 8};
  MlcrtTensor *x = tensor(2, shape, mlcrt_dtype(kDLFloat, 32)), *y = tensor(2, shape, mlcrt_dtype(kDLFloat, 32));
  for (int i = 0; i < 32; i++) ((float *)x->dl.data)[i] = (float)i;
  MlcrtValue args[4];
  args[0].tensor = &x->dl;
  args[1].f = 2.0;
  args[2].i = -5;
  args[3].tensor = &y->dl;
  CHECK(mlcrt_func_call(f, args, 4) == 0);
  bool ok = true;
  for (int i = 0; i < 32; i++) ok &= ((float *)y->dl.data)[i] == 2.0f * (float)i - 5.0f;
  CHECK(ok);
  DLTensor *two[] = {&x->dl, &y->dl};
  CHECK(mlcrt_func_call_tensors(f, two, 2) != 0);
  CHECK_STR(mlcrt_last_error(), "axpb: parameter 'alpha' (#2) is a scalar; use mlcrt_func_call");
  mlcrt_tensor_free(x);
  mlcrt_tensor_free(y);
  mlcrt_module_free(m);
}

static void test_call_symbolic_matmul(void) {
  MlcrtModule *m = test_module();
  const MlcrtFunc *f = m ? mlcrt_module_get_func(m, "mm") : NULL;
  CHECK(f != NULL);
  if (!f) return;
  int64_t sa[] = {2, 3}, sb[] = {3, 2}, sc[] = {2, 2};
  MlcrtTensor *a = tensor(2, sa, mlcrt_dtype(kDLFloat, 64)), *b = tensor(2, sb, mlcrt_dtype(kDLFloat, 64)),
              *c = tensor(2, sc, mlcrt_dtype(kDLFloat, 64));
  const double av[] = {1, 2, 3, 4, 5, 6}, bv[] = {7, 8, 9, 10, 11, 12};
  memcpy(a->dl.data, av, sizeof av);
  memcpy(b->dl.data, bv, sizeof bv);
  DLTensor *args[] = {&a->dl, &b->dl, &c->dl};
  CHECK(mlcrt_func_call_tensors(f, args, 3) == 0);
  const double *cv = c->dl.data; /* [[58, 64], [139, 154]] worked out by hand */
  CHECK(cv[0] == 58 && cv[1] == 64 && cv[2] == 139 && cv[3] == 154);
  int64_t sb_bad[] = {4, 2};
  MlcrtTensor *b4 = tensor(2, sb_bad, mlcrt_dtype(kDLFloat, 64));
  args[1] = &b4->dl;
  CHECK(mlcrt_func_call_tensors(f, args, 3) != 0);
  CHECK_STR(mlcrt_last_error(), "mm: argument 'B' (#2): symbolic size k = 3 from 'A' but 4 here");
  mlcrt_tensor_free(a);
  mlcrt_tensor_free(b);
  mlcrt_tensor_free(b4);
  mlcrt_tensor_free(c);
  mlcrt_module_free(m);
}

/* each kind of bad argument, by its exact message */
static void test_call_refusals(void) {
  MlcrtModule *m = test_module();
  const MlcrtFunc *vadd = m ? mlcrt_module_get_func(m, "vadd") : NULL;
  const MlcrtFunc *axpb = m ? mlcrt_module_get_func(m, "axpb") : NULL;
  CHECK(vadd && axpb);
  if (!vadd || !axpb) return;
  int64_t n16 = 16, n12 = 12, s2[] = {16, 1}, s48[] = {4, 8}, s47[] = {4, 7};
  MlcrtTensor *a = tensor(1, &n16, mlcrt_dtype(kDLFloat, 32)), *b = tensor(1, &n12, mlcrt_dtype(kDLFloat, 32)),
              *c = tensor(1, &n16, mlcrt_dtype(kDLFloat, 32)), *i32 = tensor(1, &n16, mlcrt_dtype(kDLInt, 32)),
              *r2 = tensor(2, s2, mlcrt_dtype(kDLFloat, 32)), *x = tensor(2, s48, mlcrt_dtype(kDLFloat, 32)),
              *y47 = tensor(2, s47, mlcrt_dtype(kDLFloat, 32));
  DLTensor *args[3] = {&a->dl, &c->dl, &c->dl};

  CHECK(mlcrt_func_call_tensors(vadd, args, 2) != 0);
  CHECK_STR(mlcrt_last_error(), "vadd: expected 3 arguments, got 2");
  args[1] = NULL;
  CHECK(mlcrt_func_call_tensors(vadd, args, 3) != 0);
  CHECK_STR(mlcrt_last_error(), "vadd: argument 'B' (#2): expected a tensor, got NULL");
  args[1] = &b->dl;
  CHECK(mlcrt_func_call_tensors(vadd, args, 3) != 0);
  CHECK_STR(mlcrt_last_error(), "vadd: argument 'B' (#2): symbolic size n = 16 from 'A' but 12 here");
  args[1] = &c->dl;
  args[0] = &i32->dl;
  CHECK(mlcrt_func_call_tensors(vadd, args, 3) != 0);
  CHECK_STR(mlcrt_last_error(), "vadd: argument 'A' (#1): expected dtype float32, got int32");
  args[0] = &r2->dl;
  CHECK(mlcrt_func_call_tensors(vadd, args, 3) != 0);
  CHECK_STR(mlcrt_last_error(), "vadd: argument 'A' (#1): expected rank 1, shape (n,), got rank 2");

  /* a view with strides that skip elements */
  int64_t strides2[] = {2}, n8 = 8;
  DLTensor strided = {a->dl.data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &n8, strides2, 0};
  DLTensor c8 = {c->dl.data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &n8, NULL, 0};
  args[0] = &strided;
  args[1] = args[2] = &c8;
  CHECK(mlcrt_func_call_tensors(vadd, args, 3) != 0);
  CHECK_STR(mlcrt_last_error(), "vadd: argument 'A' (#1): expected compact row-major strides, got strides (2,)");
  strides2[0] = 1; /* explicit compact strides are fine */
  CHECK(mlcrt_func_call_tensors(vadd, args, 3) == 0);
  DLTensor gpu = c8;
  gpu.device.device_type = 2;
  args[2] = &gpu;
  CHECK(mlcrt_func_call_tensors(vadd, args, 3) != 0);
  CHECK_STR(mlcrt_last_error(), "vadd: argument 'C' (#3): expected a CPU tensor, got device type 2");
  DLTensor nodata = c8;
  nodata.data = NULL;
  args[2] = &nodata;
  CHECK(mlcrt_func_call_tensors(vadd, args, 3) != 0);
  CHECK_STR(mlcrt_last_error(), "vadd: argument 'C' (#3): tensor data is NULL");
  int64_t negdim = -1;
  DLTensor neg = c8;
  neg.shape = &negdim;
  args[0] = &neg;
  CHECK(mlcrt_func_call_tensors(vadd, args, 3) != 0);
  CHECK_STR(mlcrt_last_error(), "vadd: argument 'A' (#1): negative dimension -1");

  /* constant shapes and alignment */
  MlcrtValue v[4];
  v[0].tensor = &x->dl;
  v[1].f = 1.0;
  v[2].i = 0;
  v[3].tensor = &y47->dl;
  CHECK(mlcrt_func_call(axpb, v, 4) != 0);
  CHECK_STR(mlcrt_last_error(), "axpb: argument 'Y' (#4): expected shape (4, 8), got (4, 7)");
  DLTensor shifted = x->dl; /* 4 bytes past a 64-byte boundary */
  shifted.byte_offset = 4;
  v[3].tensor = &x->dl;
  v[0].tensor = &shifted;
  CHECK(mlcrt_func_call(axpb, v, 4) != 0);
  CHECK(starts_with(mlcrt_last_error(), "axpb: argument 'X' (#1): data at "));
  CHECK(strstr(mlcrt_last_error(), " is not 64-byte aligned") != NULL);
  CHECK(mlcrt_func_call(axpb, NULL, 4) != 0);
  CHECK_STR(mlcrt_last_error(), "axpb: argument array is NULL");
  CHECK(mlcrt_func_call(NULL, v, 4) != 0);
  CHECK_STR(mlcrt_last_error(), "func_call: function is NULL");

  MlcrtTensor *all[] = {a, b, c, i32, r2, x, y47};
  for (int i = 0; i < 7; i++) mlcrt_tensor_free(all[i]);
  mlcrt_module_free(m);
}

static void test_call_byte_offset(void) {
  MlcrtModule *m = test_module();
  const MlcrtFunc *f = m ? mlcrt_module_get_func(m, "vadd") : NULL;
  CHECK(f != NULL);
  if (!f) return;
  int64_t n = 10, half = 5;
  MlcrtTensor *a = tensor(1, &n, mlcrt_dtype(kDLFloat, 32));
  for (int i = 0; i < 10; i++) ((float *)a->dl.data)[i] = (float)i;
  /* the upper half of a as A, the lower half as B, written into its own upper half */
  DLTensor hi = {a->dl.data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &half, NULL, 5 * sizeof(float)};
  DLTensor lo = {a->dl.data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &half, NULL, 0};
  DLTensor *args[] = {&hi, &lo, &hi};
  CHECK(mlcrt_func_call_tensors(f, args, 3) == 0);
  const float *d = a->dl.data;
  CHECK(d[0] == 0 && d[4] == 4 && d[5] == 5 + 0 && d[6] == 6 + 1 && d[9] == 9 + 4);
  mlcrt_tensor_free(a);
  mlcrt_module_free(m);
}

static void test_kernel_errors(void) {
  MlcrtModule *m = test_module();
  const MlcrtFunc *fails = m ? mlcrt_module_get_func(m, "fails") : NULL;
  const MlcrtFunc *pfails = m ? mlcrt_module_get_func(m, "pfails") : NULL;
  CHECK(fails && pfails);
  if (!fails || !pfails) return;
  int64_t two = 2, big = 1000;
  MlcrtTensor *x = tensor(1, &two, mlcrt_dtype(kDLInt, 32)), *y = tensor(1, &big, mlcrt_dtype(kDLInt, 32));
  DLTensor *args[] = {&x->dl};
  CHECK(mlcrt_func_call_tensors(fails, args, 1) == 3);
  CHECK_STR(mlcrt_last_error(), "fails: bad input 42");
  int32_t counts[] = {1, 3};
  for (int i = 0; i < 2; i++) {
    CHECK(mlcrt_threads_set(counts[i]) == 0);
    args[0] = &y->dl;
    CHECK(mlcrt_func_call_tensors(pfails, args, 1) == 4);
    CHECK_STR(mlcrt_last_error(), "pfails: range ending at n failed");
  }
  CHECK(mlcrt_threads_set(0) == 0);
  mlcrt_tensor_free(x);
  mlcrt_tensor_free(y);
  mlcrt_module_free(m);
}

/* descriptors the loader refuses, by message */
static void test_bad_descriptors(void) {
  static const int64_t dims_sym3[] = {-3}, dims_c[] = {4};
  static const char *const two_syms[] = {"n", "m"};
  static const MlcrtParamDesc p_sym3[] = {{"A", 1, F32, 1, dims_sym3, 0}};
  static const MlcrtParamDesc p_align3[] = {{"A", 1, F32, 1, dims_c, 3}};
  static const MlcrtParamDesc p_scalar32[] = {{"s", 0, F32, 0, NULL, 0}};
  static const MlcrtParamDesc p_f12[] = {{"A", 1, {kDLFloat, 12, 1}, 1, dims_c, 0}};
  static const MlcrtFuncDesc dup[] = {{"vadd", 3, VADD_PARAMS, 1, SYMS_N, vadd_kernel},
                                      {"vadd", 3, VADD_PARAMS, 1, SYMS_N, vadd_kernel}};
  static const MlcrtFuncDesc nofn[] = {{"x", 3, VADD_PARAMS, 1, SYMS_N, NULL}};
  static const MlcrtFuncDesc sym3[] = {{"x", 1, p_sym3, 1, SYMS_N, vadd_kernel}};
  static const MlcrtFuncDesc unbound[] = {{"x", 3, VADD_PARAMS, 2, two_syms, vadd_kernel}};
  static const MlcrtFuncDesc align3[] = {{"x", 1, p_align3, 0, NULL, vadd_kernel}};
  static const MlcrtFuncDesc scalar32[] = {{"x", 1, p_scalar32, 0, NULL, vadd_kernel}};
  static const MlcrtFuncDesc f12[] = {{"x", 1, p_f12, 0, NULL, vadd_kernel}};
  struct {
    MlcrtModuleDesc d;
    const char *msg;
  } cases[] = {
      {{2, 5, FUNCS}, "module: ABI version 2, this runtime implements 1"},
      {{MLCRT_ABI_VERSION, -1, FUNCS}, "module: bad function count -1"},
      {{MLCRT_ABI_VERSION, 2, dup}, "module: function 'vadd' is defined twice"},
      {{MLCRT_ABI_VERSION, 1, nofn}, "module: function 'x' has no code"},
      {{MLCRT_ABI_VERSION, 1, sym3}, "module: function 'x': parameter 'A' (#1) dim 0 names symbolic size 2 of 1"},
      {{MLCRT_ABI_VERSION, 1, unbound}, "module: function 'x': symbolic size 'm' is in no buffer's shape"},
      {{MLCRT_ABI_VERSION, 1, align3},
       "module: function 'x': parameter 'A' (#1) alignment 3 is not a power of two up to 4096"},
      {{MLCRT_ABI_VERSION, 1, scalar32}, "module: function 'x': scalar parameter 's' (#1) must be int64 or float64"},
      {{MLCRT_ABI_VERSION, 1, f12},
       "module: function 'x': parameter 'A' (#1) has unsupported dtype dtype(code=2, bits=12, lanes=1)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    MlcrtModule *m = (MlcrtModule *)&m;
    CHECK(mlcrt_module_from_desc(&cases[i].d, &m) != 0 && m == NULL);
    CHECK_STR(mlcrt_last_error(), cases[i].msg);
  }
  MlcrtModule *m = NULL;
  CHECK(mlcrt_module_from_desc(NULL, &m) != 0);
  CHECK_STR(mlcrt_last_error(), "module: descriptor is NULL");
}

/* ---- thread pool ---------------------------------------------------------------- */

#define MAX_RANGES 64

typedef struct Cover {
  atomic_int *hits;
  atomic_llong sum;
  atomic_int n_ranges;
  int64_t begins[MAX_RANGES], ends[MAX_RANGES];
} Cover;

static int32_t cover_body(int64_t begin, int64_t end, void *closure) {
  Cover *c = closure;
  int r = atomic_fetch_add(&c->n_ranges, 1);
  if (r < MAX_RANGES) {
    c->begins[r] = begin;
    c->ends[r] = end;
  }
  long long s = 0;
  for (int64_t i = begin; i < end; i++) {
    atomic_fetch_add(&c->hits[i], 1);
    s += i;
  }
  atomic_fetch_add(&c->sum, s);
  return 0;
}

/* every index once, the right sum, and static chunking: min(n, T) ranges
 * whose sizes differ by at most one */
static bool covered(int64_t n, int32_t threads) {
  Cover c;
  memset(&c, 0, sizeof c);
  c.hits = calloc((size_t)(n > 0 ? n : 1), sizeof *c.hits);
  int32_t rc = mlcrt_parallel_for(n, cover_body, &c);
  bool ok = rc == 0 && atomic_load(&c.sum) == (long long)(n * (n - 1) / 2);
  for (int64_t i = 0; i < n; i++) ok &= atomic_load(&c.hits[i]) == 1;
  int nr = atomic_load(&c.n_ranges);
  int64_t want = n <= 1 ? n : n < threads ? n : threads;
  ok &= nr == want;
  int64_t lo = INT64_MAX, hi = 0;
  for (int r = 0; r < nr && r < MAX_RANGES; r++) {
    int64_t len = c.ends[r] - c.begins[r];
    lo = len < lo ? len : lo;
    hi = len > hi ? len : hi;
  }
  ok &= nr == 0 || hi - lo <= 1;
  free(c.hits);
  if (!ok) printf("# parallel_for n=%lld threads=%d: %d ranges\n", (long long)n, threads, nr);
  return ok;
}

static void test_parallel_for_cover(void) {
  int32_t threads[] = {1, 2, 3, 4, 8};
  int64_t ns[] = {0, 1, 2, 3, 5, 64, 1000, 100003};
  for (int t = 0; t < 5; t++) {
    CHECK(mlcrt_threads_set(threads[t]) == 0);
    CHECK(mlcrt_threads_get() == threads[t]);
    for (int k = 0; k < 8; k++) CHECK(covered(ns[k], threads[t]));
  }
  /* many small regions in a row: the hand-off between regions is reused */
  CHECK(mlcrt_threads_set(4) == 0);
  bool all = true;
  for (int rep = 0; rep < 2000; rep++) all &= covered(7, 4);
  CHECK(all);
  CHECK(mlcrt_threads_set(0) == 0);
}

typedef struct Nest {
  atomic_int inner_calls, bad_inner;
  atomic_int hits[100 * 10];
  atomic_int set_refused;
} Nest;

typedef struct Inner {
  Nest *nest;
  int64_t row;
} Inner;

static int32_t inner_body(int64_t begin, int64_t end, void *closure) {
  Inner *in = closure;
  atomic_fetch_add(&in->nest->inner_calls, 1);
  if (begin != 0 || end != 10) atomic_fetch_add(&in->nest->bad_inner, 1); /* must run serially, whole */
  for (int64_t j = begin; j < end; j++) atomic_fetch_add(&in->nest->hits[in->row * 10 + j], 1);
  return 0;
}

static int32_t outer_body(int64_t begin, int64_t end, void *closure) {
  Nest *nest = closure;
  for (int64_t i = begin; i < end; i++) {
    Inner in = {nest, i};
    if (mlcrt_parallel_for(10, inner_body, &in) != 0) return 1;
  }
  if (mlcrt_threads_set(2) != 0 && strcmp(mlcrt_last_error(), "threads_set: called inside a parallel region") == 0)
    atomic_fetch_add(&nest->set_refused, 1);
  return 0;
}

static void test_parallel_for_nested(void) {
  CHECK(mlcrt_threads_set(4) == 0);
  Nest *nest = calloc(1, sizeof *nest);
  CHECK(mlcrt_parallel_for(100, outer_body, nest) == 0);
  CHECK(atomic_load(&nest->inner_calls) == 100 && atomic_load(&nest->bad_inner) == 0);
  bool once = true;
  for (int i = 0; i < 1000; i++) once &= atomic_load(&nest->hits[i]) == 1;
  CHECK(once);
  CHECK(atomic_load(&nest->set_refused) == 4); /* one per range */
  CHECK(mlcrt_threads_get() == 4);
  free(nest);
  CHECK(mlcrt_threads_set(0) == 0);
}

static int32_t fail_body(int64_t begin, int64_t end, void *closure) {
  int64_t at = *(const int64_t *)closure;
  if (at >= begin && at < end) {
    mlcrt_set_error("range [%lld, %lld) failed", (long long)begin, (long long)end);
    return 5;
  }
  return 0;
}

static void test_parallel_for_errors(void) {
  CHECK(mlcrt_threads_set(4) == 0);
  int64_t at = 0; /* the caller's own range */
  CHECK(mlcrt_parallel_for(100, fail_body, &at) == 5);
  CHECK_STR(mlcrt_last_error(), "range [0, 25) failed");
  at = 99; /* a worker's range: the message crosses threads */
  CHECK(mlcrt_parallel_for(100, fail_body, &at) == 5);
  CHECK_STR(mlcrt_last_error(), "range [75, 100) failed");
  at = 1000;
  CHECK(mlcrt_parallel_for(100, fail_body, &at) == 0);
  CHECK(mlcrt_threads_set(100000) != 0);
  CHECK_STR(mlcrt_last_error(), "threads_set: 100000 threads, at most 1024");
  CHECK(mlcrt_threads_set(0) == 0);
}

/* two threads using the pool at once: one of them runs serially, both right */
static int32_t sum_body(int64_t begin, int64_t end, void *closure) {
  atomic_llong *sum = closure;
  long long s = 0;
  for (int64_t i = begin; i < end; i++) s += i;
  atomic_fetch_add(sum, s);
  return 0;
}

static void *summing_caller(void *arg) {
  int *ok = arg;
  for (int rep = 0; rep < 300; rep++) {
    atomic_llong sum = 0;
    *ok &= mlcrt_parallel_for(1000, sum_body, &sum) == 0 && atomic_load(&sum) == 999 * 1000 / 2;
  }
  return NULL;
}

static void test_parallel_for_concurrent(void) {
  CHECK(mlcrt_threads_set(3) == 0);
  int ok[2] = {1, 1};
  pthread_t th[2];
  for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, summing_caller, &ok[i]);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  CHECK(ok[0] && ok[1]);
  CHECK(mlcrt_threads_set(0) == 0);
}

static void test_threads_from_environment(void) {
  CHECK(setenv("MLCRT_NUM_THREADS", "3", 1) == 0);
  CHECK(mlcrt_threads_set(0) == 0);
  CHECK(mlcrt_threads_get() == 3);
  CHECK(covered(100, 3));
  CHECK(setenv("MLCRT_NUM_THREADS", "junk", 1) == 0);
  CHECK(mlcrt_threads_set(0) == 0);
  CHECK(mlcrt_threads_get() >= 1); /* falls back to the CPU count */
  CHECK(unsetenv("MLCRT_NUM_THREADS") == 0);
  CHECK(mlcrt_threads_set(0) == 0);
}

static void test_env_workspace(void) {
  const MlcrtEnv *env = mlcrt_env();
  CHECK(env->version == MLCRT_ENV_VERSION && env->parallel_for && env->set_error);
  void *p = env->workspace_alloc(100, 0);
  CHECK(p && (uintptr_t)p % MLCRT_ALIGN == 0);
  env->workspace_free(p);
  p = env->workspace_alloc(10, 4096);
  CHECK(p && (uintptr_t)p % 4096 == 0);
  env->workspace_free(p);
  CHECK(env->workspace_alloc(10, 3) == NULL);
  CHECK_STR(mlcrt_last_error(), "workspace_alloc: alignment 3 is not a power of two");
  env->set_error("from a kernel");
  CHECK_STR(mlcrt_last_error(), "from a kernel");
}

/* freed big blocks are handed out again, aligned as each new request asks,
 * and every byte asked for is usable (the sanitizers check the bounds) */
static void test_env_workspace_reuse(void) {
  const MlcrtEnv *env = mlcrt_env();
  mlcrt_workspace_release();
  size_t sizes[] = {200000, 150000, 199999, 1 << 20, 65536, 17, 300000};
  size_t aligns[] = {64, 4096, 8, 64, 32768, 64, 128};
  void *first = env->workspace_alloc(200000, 64);
  CHECK(first != NULL);
  memset(first, 1, 200000);
  env->workspace_free(first);
  void *again = env->workspace_alloc(150000, 64); /* fits the freed block: reused */
  CHECK(again == first);
  env->workspace_free(again);
  for (int round = 0; round < 3; round++) {
    void *p[7];
    for (int i = 0; i < 7; i++) {
      p[i] = env->workspace_alloc(sizes[i], aligns[i]);
      CHECK(p[i] && (uintptr_t)p[i] % aligns[i] == 0);
      if (p[i]) memset(p[i], i + round, sizes[i]);
    }
    for (int i = 0; i < 7; i++) {
      uint8_t *b = p[i];
      if (b) CHECK(b[0] == (uint8_t)(i + round) && b[sizes[i] - 1] == (uint8_t)(i + round));
    }
    for (int i = 6; i >= 0; i--) env->workspace_free(p[i]);
  }
  /* a small request does not take a block many times its size */
  void *big = env->workspace_alloc(1 << 22, 64);
  CHECK(big != NULL);
  env->workspace_free(big);
  void *small = env->workspace_alloc(20000, 64);
  CHECK(small != NULL && small != big);
  env->workspace_free(small);
  env->workspace_free(NULL);
  mlcrt_workspace_release();
}

/* ---- time evaluator --------------------------------------------------------------- */

typedef struct Counter {
  int64_t calls, fail_at;
} Counter;

static int32_t counted(void *closure) {
  Counter *c = closure;
  return ++c->calls == c->fail_at ? 9 : 0;
}

static int32_t sleep_200us(void *closure) {
  struct timespec ts = {0, 200000};
  (void)closure;
  return nanosleep(&ts, NULL) == 0 ? 0 : 1;
}

static void test_time_eval(void) {
  MlcrtTimes t;
  Counter c = {0, -1};
  CHECK(mlcrt_time_eval(counted, &c, 3, 4, 0, &t) == 0);
  CHECK(c.calls == 12 && t.number == 3 && t.repeat == 4); /* no calibration at 0 ms */
  CHECK(t.min <= t.median && t.median <= t.max && t.min <= t.mean && t.mean <= t.max);

  CHECK(mlcrt_time_eval(sleep_200us, NULL, 1, 5, 2.0, &t) == 0);
  CHECK(t.min >= 199e-6 && t.max < 1.0); /* seconds per call */
  CHECK(t.min <= t.median && t.median <= t.max && t.min <= t.mean && t.mean <= t.max);
  CHECK(t.number >= 1 && t.repeat == 5);

  /* calibration raises number for a fast function; its last batch used the
   * final number, so at least (repeat + 1) * number calls were made */
  Counter fast = {0, -1};
  CHECK(mlcrt_time_eval(counted, &fast, 1, 3, 5.0, &t) == 0);
  CHECK(t.number > 1 && fast.calls >= 4 * t.number);
  CHECK(t.min <= t.median && t.median <= t.max);

  Counter f = {0, 7};
  CHECK(mlcrt_time_eval(counted, &f, 2, 10, 0, &t) == 9);
  CHECK(mlcrt_time_eval(counted, &c, 0, 1, 0, &t) != 0);
  CHECK(mlcrt_time_eval(counted, &c, 1, 0, 0, &t) != 0);
  CHECK(mlcrt_time_eval(counted, &c, 1, 1, NAN, &t) != 0);
  CHECK_STR(mlcrt_last_error(), "time_eval: min_repeat_ms nan outside [0, 1e7]");
}

int main(void) {
  RUN(test_tensor_create);
  RUN(test_tensor_refusals);
  RUN(test_dtype_names);
  RUN(test_fill);
  RUN(test_module_lookup);
  RUN(test_call_vadd);
  RUN(test_call_scalars_and_parallel);
  RUN(test_call_symbolic_matmul);
  RUN(test_call_refusals);
  RUN(test_call_byte_offset);
  RUN(test_kernel_errors);
  RUN(test_bad_descriptors);
  RUN(test_parallel_for_cover);
  RUN(test_parallel_for_nested);
  RUN(test_parallel_for_errors);
  RUN(test_parallel_for_concurrent);
  RUN(test_threads_from_environment);
  RUN(test_env_workspace);
  RUN(test_env_workspace_reuse);
  RUN(test_time_eval);
  return CHECK_DONE();
}
