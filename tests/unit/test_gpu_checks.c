/* test_gpu_checks.c - what a kernel cannot do is reported, not run into:
 * an integer division by zero, the most negative value divided by -1 and
 * an index out of range (T.checked_index) fail the call with the C
 * target's messages; without a fault the results equal the reference
 * interpreter's.  Run on the first OpenCL device (PoCL on a machine
 * without a GPU); the CUDA source is checked for the same fault word. */
#include "build_util.h"
#include "check.h"
#include "mlcc/interp.h"
#include "mlcc/lower.h"

static MlcCtx *ctx;

/* C[i] = A[i] // B[i], D[i] = A[i] % B[i], E[i] = A[idx[i]] (checked)
 * over 64 elements, 2 blocks of 32 threads */
static const char PROG[] =
    "from tvm.script import ir as I\n"
    "from tvm.script import tir as T\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def divs(A: T.Buffer((64,), \"int32\"), B: T.Buffer((64,), \"int32\"), idx: T.Buffer((64,), \"int32\"),\n"
    "             C: T.Buffer((64,), \"int32\"), D: T.Buffer((64,), \"int32\"), E: T.Buffer((64,), \"int32\")):\n"
    "        T.func_attr({\"global_symbol\": \"divs\", \"tir.noalias\": True})\n"
    "        for bx in T.thread_binding(2, thread=\"blockIdx.x\"):\n"
    "            for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
    "                with T.block(\"C\"):\n"
    "                    vi = T.axis.spatial(64, bx * 32 + tx)\n"
    "                    C[vi] = T.floordiv(A[vi], B[vi])\n"
    "                    D[vi] = T.truncmod(A[vi], B[vi])\n"
    "                    E[vi] = A[T.checked_index(idx[vi], 64)]\n";

typedef struct Run {
  int32_t a[64], b[64], idx[64], c[64], d[64], e[64];
} Run;

static MlcrtModule *mod;
static const MlcPrimFunc *func;

static int call(Run *r) {
  int64_t shape[1] = {64};
  int32_t *data[6] = {r->a, r->b, r->idx, r->c, r->d, r->e};
  DLTensor t[6];
  MlcrtValue v[6];
  for (int i = 0; i < 6; i++) {
    t[i] = (DLTensor){.data = data[i], .device = {kDLCPU, 0}, .ndim = 1, .dtype = {kDLInt, 32, 1}, .shape = shape};
    v[i].tensor = &t[i];
  }
  return mlcrt_func_call(mlcrt_module_get_func(mod, "divs"), v, 6);
}

static void fill(Run *r) {
  memset(r, 0, sizeof *r);
  for (int i = 0; i < 64; i++) {
    r->a[i] = (i * 37 % 101) - 50;
    r->b[i] = (i % 7) - 3 ? (i % 7) - 3 : 5;
    r->idx[i] = (i * 13) % 64;
  }
}

static void test_no_fault_matches_interpreter(void) {
  Run got, want;
  fill(&got);
  want = got;
  int64_t shape[1] = {64};
  int32_t *data[6] = {want.a, want.b, want.idx, want.c, want.d, want.e};
  MlcInterpArg ia[6];
  for (int i = 0; i < 6; i++) ia[i] = (MlcInterpArg){.is_buffer = true, .data = data[i], .ndim = 1, .shape = shape};
  CHECK(mlc_interp_run(ctx, func, ia, 6));
  CHECK(call(&got) == 0);
  CHECK(!memcmp(got.c, want.c, sizeof got.c) && !memcmp(got.d, want.d, sizeof got.d) &&
        !memcmp(got.e, want.e, sizeof got.e));
}

static void test_division_by_zero_reported(void) {
  Run r;
  fill(&r);
  r.b[40] = 0;
  CHECK(call(&r) != 0);
  CHECK(strstr(mlcrt_last_error(), MLC_DIV_BY_ZERO_MSG) != NULL);
  /* the next call, without the zero, runs again */
  fill(&r);
  CHECK(call(&r) == 0);
}

static void test_overflow_reported(void) {
  Run r;
  fill(&r);
  r.a[3] = INT32_MIN;
  r.b[3] = -1;
  CHECK(call(&r) != 0);
  CHECK(strstr(mlcrt_last_error(), MLC_DIV_OVERFLOW_MSG) != NULL);
}

static void test_index_out_of_range_reported(void) {
  Run r;
  fill(&r);
  r.idx[63] = 64;
  CHECK(call(&r) != 0);
  CHECK(strstr(mlcrt_last_error(), MLC_INDEX_RANGE_MSG) != NULL);
  fill(&r);
  r.idx[0] = -1;
  CHECK(call(&r) != 0);
  CHECK(strstr(mlcrt_last_error(), MLC_INDEX_RANGE_MSG) != NULL);
}

/* both languages pass the kernel its fault word */
static void test_sources_take_the_fault_word(const MlcModule *m) {
  MlcStrBuf cl = {0}, cu = {0};
  CHECK(mlc_codegen_gpu_source(ctx, m, MLC_GPU_OPENCL, &cl) && mlc_codegen_gpu_source(ctx, m, MLC_GPU_CUDA, &cu));
  CHECK(strstr(mlc_sb_cstr(&cl), "__global int *mlc_fault)") != NULL);
  CHECK(strstr(mlc_sb_cstr(&cu), ", int *mlc_fault)") != NULL);
  mlc_vec_free(&cl);
  mlc_vec_free(&cu);
}

int main(void) {
  ctx = mlc_ctx_new();
  const MlcModule *m = bu_read_text(ctx, "divs.py", PROG);
  CHECK(m != NULL);
  if (!m) return CHECK_DONE();
  func = m->funcs[0].prim;
  test_sources_take_the_fault_word(m);
  if (!mlcrt_gpu(MLCRT_GPU_OPENCL)) {
    printf("skip test_gpu_checks (OpenCL): %s\n", mlcrt_last_error());
    mlc_ctx_free(ctx);
    return CHECK_DONE();
  }
  char dir[512];
  CHECK(bu_make_tmpdir(dir, sizeof dir, "mlcc-gpu-checks"));
  MlcBuildOptions opt = {.target = MLC_TARGET_GENERIC, .gpu = MLC_GPU_OPENCL};
  mod = bu_build_and_load(ctx, m, dir, "divs", &opt);
  bu_remove_dir(dir);
  CHECK(mod != NULL);
  if (mod) {
    RUN(test_no_fault_matches_interpreter);
    RUN(test_division_by_zero_reported);
    RUN(test_overflow_reported);
    RUN(test_index_out_of_range_reported);
    mlcrt_module_free(mod);
  }
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
