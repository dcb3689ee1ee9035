/* test_gpu_resident.c - a model built for OpenCL keeps its tensors on the
 * device between kernels: a chain of kernels around a library call moves
 * only the model's inputs, the library call's operands and the output
 * between host and device (counted by the runtime), and gives the CPU
 * build's answers; a weight is uploaded by the first run only.  A function
 * called on its own still moves its arguments each call.  Skipped where no OpenCL device is. */
#include "build_util.h"
#include "check.h"
#include "mlcc/schedule.h"
#include "mlcc/lower.h"
#include "mlcc/transform.h"

#include <math.h>

static MlcCtx *ctx;
static char tmpdir[4096];

#define PRIMS                                                                                            \
  "    @T.prim_func\n"                                                                                   \
  "    def add(A: T.Buffer((4, 8), \"float32\"), B: T.Buffer((4, 8), \"float32\"), C: T.Buffer((4, 8), \"float32\")):\n" \
  "        for i, j in T.grid(4, 8):\n"                                                                  \
  "            with T.block(\"C\"):\n"                                                                   \
  "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                              \
  "                C[vi, vj] = A[vi, vj] + B[vi, vj]\n\n"                                                \
  "    @T.prim_func\n"                                                                                   \
  "    def relu(A: T.Buffer((4, 8), \"float32\"), B: T.Buffer((4, 8), \"float32\")):\n"                \
  "        for i, j in T.grid(4, 8):\n"                                                                  \
  "            with T.block(\"B\"):\n"                                                                   \
  "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                              \
  "                B[vi, vj] = T.max(A[vi, vj], T.float32(0))\n\n"                                       \
  "    @T.prim_func\n"                                                                                   \
  "    def square(A: T.Buffer((4, 4), \"float32\"), B: T.Buffer((4, 4), \"float32\")):\n"              \
  "        for i, j in T.grid(4, 4):\n"                                                                  \
  "            with T.block(\"B\"):\n"                                                                   \
  "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                              \
  "                B[vi, vj] = A[vi, vj] * A[vi, vj]\n\n"

/* square(linear(relu(x + y) + x, w)): three kernels (the third over the
 * bytes of the first's output), the library's env.linear on the host, and
 * a last kernel on its result */
static const char CHAIN[] =
    "@I.ir_module\nclass Module:\n" PRIMS
    "    @R.function\n"
    "    def main(x: R.Tensor((4, 8), \"float32\"), y: R.Tensor((4, 8), \"float32\"),\n"
    "             w: R.Tensor((4, 8), \"float32\")) -> R.Tensor((4, 4), \"float32\"):\n"
    "        cls = Module\n"
    "        storage = R.memory.alloc_storage(R.shape([256]), R.prim_value(0), R.str(\"global\"), R.dtype(\"uint8\"))\n"
    "        a = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([4, 8]), R.dtype(\"float32\"))\n"
    "        _ = cls.add(x, y, a)\n"
    "        b = R.memory.alloc_tensor(storage, R.prim_value(128), R.shape([4, 8]), R.dtype(\"float32\"))\n"
    "        _ = cls.relu(a, b)\n"
    "        c = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([4, 8]), R.dtype(\"float32\"))\n"
    "        _ = cls.add(b, x, c)\n"
    "        d = R.builtin.alloc_tensor(R.shape([4, 4]), R.dtype(\"float32\"), R.prim_value(0))\n"
    "        _ = R.call_packed(\"env.linear\", c, w, d, sinfo_args=R.Object)\n"
    "        e = R.builtin.alloc_tensor(R.shape([4, 4]), R.dtype(\"float32\"), R.prim_value(0))\n"
    "        _ = cls.square(d, e)\n"
    "        return e\n";

/* the model built into tmpdir/NAME for api, loaded */
static MlcrtModel *build(const MlcModule *m, const char *name, MlcGpuApi api) {
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/%s", tmpdir, name);
  MlcBuildOptions opt = {.gpu = api};
  mlc_clear_error(ctx);
  if (!mlc_build_model(ctx, m, dir, &opt, NULL)) return bu_print_error(ctx, name), NULL;
  MlcrtModel *model = NULL;
  if (mlcrt_model_load(dir, &model) != 0) printf("    load %s: %s\n", name, mlcrt_last_error());
  return model;
}

static bool run(MlcrtModel *model, float *x, float *y, float *w, DLTensor **out) {
  int64_t sh[2] = {4, 8};
  DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sh, NULL, 0};
  DLTensor ty = tx, tw = tx;
  ty.data = y;
  tw.data = w;
  if (mlcrt_model_run(model, (DLTensor *const[]){&tx, &ty, &tw}, 3, out, 1) == 0) return true;
  printf("    run: %s\n", mlcrt_last_error());
  return false;
}

static void test_chain_moves_only_at_crossings(void) {
  const MlcModule *m = bu_read_text(ctx, "chain.py", CHAIN);
  const MlcModule *g = m ? mlc_sch_default_gpu_module(ctx, m, 256, mlc_gpu_accepts, NULL) : NULL;
  MlcrtModel *cpu = m ? build(m, "cpu", MLC_GPU_NONE) : NULL;
  MlcrtModel *ocl = g ? build(g, "opencl", MLC_GPU_OPENCL) : NULL;
  CHECK(cpu && ocl);
  for (int rep = 0; cpu && ocl && rep < 2; rep++) { /* new inputs at the same addresses */
    float x[32], y[32], w[32];
    for (int i = 0; i < 32; i++) {
      x[i] = (float)((i * 7 + rep * 3) % 11) / 4 - 1.25f;
      y[i] = (float)((i * 5 + rep) % 13) / 6 - 1.0f;
      w[i] = (float)((i * 3) % 7) / 5 - 0.5f;
    }
    DLTensor *want[1] = {NULL}, *got[1] = {NULL};
    CHECK(run(cpu, x, y, w, want));
    MlcrtGpuTransfers before, after;
    mlcrt_gpu_transfers(MLCRT_GPU_OPENCL, &before);
    CHECK(run(ocl, x, y, w, got));
    mlcrt_gpu_transfers(MLCRT_GPU_OPENCL, &after);
    if (!want[0] || !got[0]) continue;
    for (int i = 0; i < 16; i++) {
      float a = ((float *)want[0]->data)[i], b = ((float *)got[0]->data)[i];
      CHECK(fabsf(a - b) <= 1e-5f * fmaxf(1.0f, fabsf(a)));
    }
    /* up: x and y for the first kernel, d (the library's output) for the
     * last; down: c for the library, e as the output.  Per call, the four
     * kernels would move 6 tensors up and 4 down. */
    CHECK(after.uploads - before.uploads == 3);
    CHECK(after.downloads - before.downloads == 2);
    CHECK(after.upload_bytes - before.upload_bytes == 2 * 128 + 64);
    CHECK(after.download_bytes - before.download_bytes == 128 + 64);
  }
  mlcrt_model_free(cpu);
  mlcrt_model_free(ocl);
}

/* the chain with y bound as a weight: its device copy is made by the
 * first run and kept for the next ones, until the model is freed */
static bool run2(MlcrtModel *model, float *x, float *w, DLTensor **out) {
  int64_t sh[2] = {4, 8};
  DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sh, NULL, 0};
  DLTensor tw = tx;
  tw.data = w;
  if (mlcrt_model_run(model, (DLTensor *const[]){&tx, &tw}, 2, out, 1) == 0) return true;
  printf("    run: %s\n", mlcrt_last_error());
  return false;
}

static void test_weights_stay_between_runs(void) {
  const MlcModule *m = bu_read_text(ctx, "chain.py", CHAIN);
  int64_t shape[2] = {4, 8};
  MlcTensorData *y = mlc_tensor_data_new(ctx, MLC_F32, shape, 2);
  for (int i = 0; i < 32; i++) ((float *)y->data)[i] = (float)((i * 5) % 13) / 6 - 1.0f;
  const char *names[1] = {"y"};
  const MlcModule *mb = m ? mlc_pass_bind_params(ctx, m, "main", names, &y, 1) : NULL;
  const MlcModule *g = mb ? mlc_sch_default_gpu_module(ctx, mb, 256, mlc_gpu_accepts, NULL) : NULL;
  MlcrtModel *cpu = mb ? build(mb, "cpu_w", MLC_GPU_NONE) : NULL;
  MlcrtModel *ocl = g ? build(g, "opencl_w", MLC_GPU_OPENCL) : NULL;
  CHECK(cpu && ocl);
  for (int model = 0; cpu && ocl && model < 2; model++) {
    for (int rep = 0; rep < 3; rep++) {
      float x[32], w[32];
      for (int i = 0; i < 32; i++) {
        x[i] = (float)((i * 7 + rep * 3) % 11) / 4 - 1.25f;
        w[i] = (float)((i * 3 + rep) % 7) / 5 - 0.5f;
      }
      DLTensor *want[1] = {NULL}, *got[1] = {NULL};
      CHECK(run2(cpu, x, w, want));
      MlcrtGpuTransfers before, after;
      mlcrt_gpu_transfers(MLCRT_GPU_OPENCL, &before);
      CHECK(run2(ocl, x, w, got));
      mlcrt_gpu_transfers(MLCRT_GPU_OPENCL, &after);
      if (!want[0] || !got[0]) continue;
      for (int i = 0; i < 16; i++) {
        float a = ((float *)want[0]->data)[i], b = ((float *)got[0]->data)[i];
        CHECK(fabsf(a - b) <= 1e-5f * fmaxf(1.0f, fabsf(a)));
      }
      /* up: x and d each run, the weight y in the first run of a model only */
      CHECK(after.uploads - before.uploads == (rep ? 2u : 3u));
      CHECK(after.upload_bytes - before.upload_bytes == (rep ? 128u + 64u : 2 * 128u + 64u));
      CHECK(after.downloads - before.downloads == 2);
    }
    /* a model loaded anew (its weights read again) uploads them again */
    mlcrt_model_free(ocl);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/opencl_w", tmpdir);
    ocl = NULL;
    CHECK(mlcrt_model_load(dir, &ocl) == 0);
    if (!ocl) break;
  }
  mlcrt_model_free(cpu);
  mlcrt_model_free(ocl);
}

/* outside a model's run, a host function moves its arguments each call
 * and leaves nothing on the device */
static void test_single_call_moves_each_time(void) {
  const MlcrtGpu *gpu = mlcrt_gpu(MLCRT_GPU_OPENCL);
  CHECK(gpu);
  if (!gpu) return;
  float h[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8] = {0};
  MlcrtGpuTransfers before, after;
  mlcrt_gpu_transfers(MLCRT_GPU_OPENCL, &before);
  void *dev = NULL;
  CHECK(gpu->acquire(h, sizeof h, MLCRT_GPU_WRITE, &dev) == 0 && dev);
  CHECK(gpu->finish(back, dev, sizeof back, MLCRT_GPU_WRITE) == 0);
  mlcrt_gpu_transfers(MLCRT_GPU_OPENCL, &after);
  /* uploaded although only written (a kernel may write part of it), then
   * downloaded: the bytes round-trip */
  CHECK(after.uploads - before.uploads == 1 && after.downloads - before.downloads == 1);
  CHECK(memcmp(h, back, sizeof h) == 0);
  /* within a run: a written buffer is not uploaded; it comes home only
   * when the host asks, and a host write makes the device copy stale */
  CHECK(gpu->begin() == 0);
  mlcrt_gpu_transfers(MLCRT_GPU_OPENCL, &before);
  void *d1 = NULL, *d2 = NULL;
  CHECK(gpu->acquire(h, sizeof h, MLCRT_GPU_READ, &d1) == 0);
  CHECK(gpu->finish(h, d1, sizeof h, MLCRT_GPU_READ) == 0);
  CHECK(gpu->acquire(h, sizeof h, MLCRT_GPU_READ, &d2) == 0 && d2 == d1); /* still there: no upload */
  CHECK(gpu->to_host(h, sizeof h) == 0);                                   /* host is current: no download */
  gpu->host_wrote(h, sizeof h);
  CHECK(gpu->acquire(h, sizeof h, MLCRT_GPU_READ, &d2) == 0 && d2 == d1); /* stale: uploaded again */
  mlcrt_gpu_transfers(MLCRT_GPU_OPENCL, &after);
  gpu->end();
  CHECK(after.uploads - before.uploads == 2 && after.downloads - before.downloads == 0);
}

int main(void) {
  ctx = mlc_ctx_new();
  if (!mlcrt_gpu(MLCRT_GPU_OPENCL)) {
    printf("skip test_gpu_resident: %s\n", mlcrt_last_error());
    mlc_ctx_free(ctx);
    return CHECK_DONE();
  }
  CHECK(bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc_gpu_resident"));
  RUN(test_chain_moves_only_at_crossings);
  RUN(test_weights_stay_between_runs);
  RUN(test_single_call_moves_each_time);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
