/* test_gpu_codegen.c - the shape of what the GPU targets generate, on the
 * schedules of tests/golden/gpu (whose numbers test_gpu_golden.c checks
 * against the interpreter): the launch grid, the barriers (where threads
 * exchange data through shared memory, and only there), vector loads, the
 * two languages' spellings, and the device limits as a parameter. */
#include "build_util.h"
#include "check.h"
#include "mlcc/lower.h"
#include "mlcc/schedule.h"

static MlcCtx *ctx;

/* the module of tests/golden/gpu/CASE after its schedule */
static const MlcModule *scheduled(const char *name) {
  char path[256];
  snprintf(path, sizeof path, "tests/golden/gpu/%s/before.py", name);
  const MlcModule *m = bu_read_path(ctx, path);
  if (!m) return NULL;
  snprintf(path, sizeof path, "tests/golden/gpu/%s/schedule.py", name);
  size_t len = 0;
  char *text = mlc_read_file(ctx, path, 1 << 20, &len);
  MlcSchedule *s = text ? mlc_sch_new(ctx, m, NULL, 0) : NULL;
  const MlcModule *out = s && mlc_sch_run_script(s, path, text, len) ? mlc_sch_module(s) : NULL;
  if (!out) bu_print_error(ctx, path);
  free(text);
  if (s) mlc_sch_free(s);
  return out;
}

static const MlcPrimFunc *prim(const MlcModule *m) {
  for (int i = 0; m && i < m->n_funcs; i++)
    if (m->funcs[i].kind == MLC_FUNC_PRIM) return m->funcs[i].prim;
  return NULL;
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

/* the source of a case in one language (static: valid until the next call) */
static const char *source(const char *name, MlcGpuApi api) {
  static MlcStrBuf sb;
  sb.len = 0;
  const MlcModule *m = scheduled(name);
  if (!m || !mlc_codegen_gpu_source(ctx, m, api, &sb)) {
    if (m) bu_print_error(ctx, name);
    return "";
  }
  return mlc_sb_cstr(&sb);
}

static int64_t extent(const MlcGpuKernel *k, int a) {
  int64_t v = -1;
  mlc_e_is_const_int(k->extent[a], &v);
  return v;
}

static void test_grid_of_matmul(void) {
  const MlcModule *m = scheduled("matmul_shared_tiles");
  MlcGpuFunc *g = m ? mlc_lower_gpu(ctx, prim(m), &mlc_gpu_default_limits) : NULL;
  CHECK(g && g->n_kernels == 1);
  if (!g || g->n_kernels != 1) return;
  const MlcGpuKernel *k = &g->kernels[0];
  /* 256 / 32 blocks per axis, 8 x 8 threads fused into 64 */
  CHECK(extent(k, MLC_GPU_BLOCK_X) == 8 && extent(k, MLC_GPU_BLOCK_Y) == 8 && extent(k, MLC_GPU_BLOCK_Z) == 1);
  CHECK(extent(k, MLC_GPU_THREAD_X) == 64 && extent(k, MLC_GPU_THREAD_Y) == 1);
  /* A and B tiles of 32 x 8 and 8 x 32 floats */
  CHECK(k->n_shared == 2);
  for (int i = 0; i < k->n_shared; i++) {
    int64_t n = 1, d;
    for (int j = 0; j < k->shared[i]->ndim; j++) n *= mlc_e_is_const_int(k->shared[i]->shape[j], &d) ? d : -1;
    CHECK(n == 256);
  }
  CHECK(k->n_buffers == 3 && k->n_scalars == 0);
}

static void test_barriers_only_where_shared_is_exchanged(void) {
  CHECK(count(source("vector_add", MLC_GPU_OPENCL), "barrier(") == 0);
  CHECK(count(source("window_sum_shared", MLC_GPU_OPENCL), "barrier(") == 1);
  /* before the tile is read, and at the end of the k loop before the next
   * iteration overwrites it */
  CHECK(count(source("matmul_shared_tiles", MLC_GPU_OPENCL), "barrier(") == 2);
  CHECK(count(source("matmul_shared_tiles", MLC_GPU_CUDA), "__syncthreads();") == 2);
}

static void test_cross_thread_reduction_tree(void) {
  /* 128 threads: 7 tree steps, each a read and a write phase; per
   * reduction 1 + 7 * 2 barriers, then the result read back */
  const char *src = source("rowsum_cross_thread", MLC_GPU_OPENCL);
  CHECK(strstr(src, "__local float B_red_shared[100]") != NULL);
  CHECK(count(src, "barrier(") == 1 + 7 * 2);
}

static void test_vector_loads(void) {
  const char *cl = source("vector_add_vectorized", MLC_GPU_OPENCL);
  CHECK(count(cl, "vload4(") == 2 && count(cl, "vstore4(") == 1);
  /* CUDA: lane by lane */
  CHECK(strstr(source("vector_add_vectorized", MLC_GPU_CUDA), "mlc_l < 4") != NULL);
}

static void test_dialects(void) {
  const char *cl = source("vector_add", MLC_GPU_OPENCL);
  CHECK(strstr(cl, "__kernel void add_kernel(__global float *C, __global float *A, __global float *B)") != NULL);
  CHECK(strstr(cl, "get_group_id(0)") && strstr(cl, "get_local_id(0)"));
  const char *cu = source("vector_add", MLC_GPU_CUDA);
  CHECK(strstr(cu, "extern \"C\" __global__ void add_kernel(float *C, float *A, float *B)") != NULL);
  CHECK(strstr(cu, "blockIdx.x") && strstr(cu, "threadIdx.x"));
  CHECK(strstr(source("window_sum_shared", MLC_GPU_CUDA), "__shared__ float A_shared[") != NULL);
}

static void test_limits_are_a_parameter(void) {
  const MlcModule *m = scheduled("vector_add");
  MlcGpuLimits small = mlc_gpu_default_limits;
  small.max_block[0] = 64;
  mlc_clear_error(ctx);
  CHECK(m && !mlc_lower_gpu(ctx, prim(m), &small));
  CHECK(strstr(mlc_error_msg(ctx) ? mlc_error_msg(ctx) : "", "loop 'i_1' bound to threadIdx.x has extent 128, over the device's limit of 64"));
  small = mlc_gpu_default_limits;
  small.max_shared_bytes = 1024;
  mlc_clear_error(ctx);
  const MlcModule *mm = scheduled("matmul_shared_tiles");
  CHECK(mm && !mlc_lower_gpu(ctx, prim(mm), &small));
  CHECK(strstr(mlc_error_msg(ctx) ? mlc_error_msg(ctx) : "", "needs 2048 bytes of shared memory, over the device's limit of 1024"));
}

static void test_host_moves_only_what_kernels_touch(void) {
  MlcStrBuf sb = {0};
  const MlcModule *m = scheduled("window_sum_shared");
  CHECK(m && mlc_codegen_gpu_module(ctx, m, MLC_GPU_OPENCL, &sb));
  const char *c = mlc_sb_cstr(&sb);
  /* A is only read, B only written: each acquired and finished once, with
   * what the kernel does with it (the runtime decides what moves) */
  CHECK(count(c, "g->acquire(mlc_args[0], (size_t)((int64_t)1 * (int64_t)1027LL) * 4, 1, &d_A)") == 1);
  CHECK(count(c, "g->acquire(mlc_args[1], (size_t)((int64_t)1 * (int64_t)1024LL) * 4, 2, &d_B)") == 1);
  CHECK(count(c, "g->finish(mlc_args[0], d_A,") == 1 && count(c, "g->finish(mlc_args[1], d_B,") == 1);
  CHECK(count(c, "g->upload(") == 0 && count(c, "g->download(") == 0);
  CHECK(count(c, "g->launch(prog, \"window_sum_kernel\"") == 1);
  CHECK(strstr(c, "const mlc_module_desc mlcrt_module") != NULL);
  mlc_vec_free(&sb);
}

/* the default GPU rule: the leading spatial loops fused and bound, the
 * reduction left to each thread */
static void test_default_gpu_rule(void) {
  const MlcModule *m = bu_read_path(ctx, "tests/golden/gpu/matmul_shared_tiles/before.py");
  const MlcModule *d = m ? mlc_sch_default_gpu_module(ctx, m, 256, NULL, NULL) : NULL;
  MlcGpuFunc *g = d ? mlc_lower_gpu(ctx, prim(d), &mlc_gpu_default_limits) : NULL;
  CHECK(g && g->n_kernels == 1);
  if (!g || g->n_kernels != 1) return;
  /* 256 x 256 outputs: 256 blocks of 256 threads */
  CHECK(extent(&g->kernels[0], MLC_GPU_BLOCK_X) == 256 && extent(&g->kernels[0], MLC_GPU_THREAD_X) == 256);
  CHECK(g->kernels[0].n_shared == 0);
  /* a program smaller than a block gets one block of as many threads */
  const MlcModule *r = bu_read_path(ctx, "tests/golden/gpu/rowsum_cross_thread/before.py");
  const MlcModule *rd = r ? mlc_sch_default_gpu_module(ctx, r, 256, NULL, NULL) : NULL;
  MlcGpuFunc *rg = rd ? mlc_lower_gpu(ctx, prim(rd), &mlc_gpu_default_limits) : NULL;
  CHECK(rg && extent(&rg->kernels[0], MLC_GPU_BLOCK_X) == 1 && extent(&rg->kernels[0], MLC_GPU_THREAD_X) == 64);
}

/* the runtime's OpenCL errors come back as messages: a build failure with
 * its code and log, an unknown kernel by name */
static void test_opencl_errors_are_messages(void) {
  const MlcrtGpu *g = mlcrt_gpu(MLCRT_GPU_OPENCL);
  CHECK(g);
  if (!g) return;
  static const char bad[] = "__kernel void broken(__global float *x) { x[0] = undeclared_name; }\n";
  void *prog = NULL;
  CHECK(g->program(bad, sizeof bad - 1, &prog) != 0);
  CHECK(strstr(mlcrt_last_error(), "CL_BUILD_PROGRAM_FAILURE (-11); build log:") != NULL);
  CHECK(strstr(mlcrt_last_error(), "undeclared_name") != NULL);
  static const char good[] = "__kernel void ok(__global float *x) { x[get_global_id(0)] = 1.0f; }\n";
  void *p1 = NULL, *p2 = NULL, *dev = NULL;
  CHECK(g->program(good, sizeof good - 1, &p1) == 0 && g->program(good, sizeof good - 1, &p2) == 0 && p1 == p2);
  CHECK(g->alloc(16, &dev) == 0);
  const int64_t grid[3] = {1, 1, 1}, block[3] = {4, 1, 1};
  MlcrtGpuArg arg = {.kind = 0, .dev = dev};
  CHECK(g->launch(p1, "missing", grid, block, 1, &arg) != 0);
  CHECK(strstr(mlcrt_last_error(), "the module has no kernel 'missing'") != NULL);
  float host[4] = {0};
  CHECK(g->launch(p1, "ok", grid, block, 1, &arg) == 0 && g->download(host, dev, sizeof host) == 0);
  CHECK(host[0] == 1.0f && host[3] == 1.0f);
  g->release(dev);
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_grid_of_matmul);
  RUN(test_barriers_only_where_shared_is_exchanged);
  RUN(test_cross_thread_reduction_tree);
  RUN(test_vector_loads);
  RUN(test_dialects);
  RUN(test_limits_are_a_parameter);
  RUN(test_host_moves_only_what_kernels_touch);
  RUN(test_default_gpu_rule);
  if (mlcrt_gpu(MLCRT_GPU_OPENCL)) RUN(test_opencl_errors_are_messages);
  else printf("skip test_opencl_errors_are_messages: %s\n", mlcrt_last_error());
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
