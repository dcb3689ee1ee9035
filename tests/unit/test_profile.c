/* test_profile.c - what a profile is made of: the FLOP and byte estimates of
 * prim funcs, the call sites a compiled model describes, and the runtime's
 * per-site timing.
 *
 * Oracles: FLOP counts worked out by hand from the programs written here;
 * the call sites against the graph the test wrote (which ops, in which
 * order, computing which vars); the timing against the run count the test
 * makes and a wall clock around the runs. */
#include "build_util.h"
#include "check.h"
#include "mlcc/arith.h"
#include "mlcc/transform.h"

#include <math.h>
#include <time.h>

static MlcCtx *ctx;
static char tmpdir[4096];

static const MlcPrimFunc *prim_of(const MlcModule *m, const char *name) {
  const MlcFunc *f = m ? mlc_module_find(m, mlc_intern(ctx, name)) : NULL;
  return f && f->kind == MLC_FUNC_PRIM ? f->prim : NULL;
}

/* ---- estimates ------------------------------------------------------------------------ */

static const char PROGRAMS[] =
    "@I.ir_module\nclass Module:\n"
    "    @T.prim_func\n"
    "    def mm_relu(A: T.Buffer((32, 16), \"float32\"), B: T.Buffer((16, 8), \"float32\"), C: T.Buffer((32, 8), \"float32\")):\n"
    "        Y = T.alloc_buffer((32, 8), \"float32\")\n"
    "        for i, j, k in T.grid(32, 8, 16):\n"
    "            with T.block(\"Y\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                with T.init():\n"
    "                    Y[vi, vj] = T.float32(0)\n"
    "                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]\n"
    "        for i, j in T.grid(32, 8):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))\n"
    "    @T.prim_func\n"
    "    def int_and_vec(X: T.Buffer((64,), \"int32\"), F: T.Buffer((64,), \"float32\")):\n"
    "        for i in range(64):\n"
    "            X[i] = X[i] * 3 + 1\n"
    "        for i in range(16):\n"
    "            for j in T.vectorized(4):\n"
    "                F[i * 4 + j] = T.exp(F[i * 4 + j]) - T.float32(1)\n"
    "    @T.prim_func\n"
    "    def symbolic(a: T.handle):\n"
    "        n = T.int64()\n"
    "        A = T.match_buffer(a, (n,), \"float32\")\n"
    "        for i in range(n):\n"
    "            A[i] = A[i] + T.float32(1)\n";

static void test_flops_and_bytes(void) {
  const MlcModule *m = bu_read_text(ctx, "programs.py", PROGRAMS);
  CHECK(m != NULL);
  /* 32*8*16 multiply-adds (2 each, the init stores a constant) + 32*8 max */
  CHECK(mlc_prim_func_flops(prim_of(m, "mm_relu")) == 2.0 * 32 * 8 * 16 + 32 * 8);
  CHECK(mlc_prim_func_param_bytes(prim_of(m, "mm_relu")) == 4.0 * (32 * 16 + 16 * 8 + 32 * 8));
  /* integer work is no floating-point work; exp and sub count one each */
  CHECK(mlc_prim_func_flops(prim_of(m, "int_and_vec")) == 2.0 * 64);
  CHECK(mlc_prim_func_param_bytes(prim_of(m, "int_and_vec")) == 4.0 * 64 + 4.0 * 64);
  /* a symbolic extent: unknown, not zero */
  CHECK(mlc_prim_func_flops(prim_of(m, "symbolic")) < 0);
  CHECK(mlc_prim_func_param_bytes(prim_of(m, "symbolic")) < 0);
}

/* ---- call sites and timing --------------------------------------------------------------- */

static const char MODEL[] =
    "@I.ir_module\nclass Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((4, 16), \"float32\"), w: R.Tensor((16, 8), \"float32\"), y: R.Tensor((4, 8), \"float32\")):\n"
    "        with R.dataflow():\n"
    "            a = R.matmul(x, w)\n"
    "            b = R.nn.relu(a)\n"
    "            c = R.add(b, y)\n"
    "            d = R.add(c, y)\n"
    "            R.output(b, d)\n"
    "        return (b, d)\n";

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool site_is(const MlcrtCallSite *s, const char *callee, const char *ops, const char *binding, double flops) {
  bool ok = s && !strcmp(s->callee, callee) && !strcmp(s->ops, ops) && !strcmp(s->binding, binding) &&
            s->flops == flops && s->kind == MLCRT_SITE_GENERATED;
  if (!ok && s)
    printf("    site %s/%s/%s flops %g kind %d, expected %s/%s/%s flops %g\n", s->callee, s->ops, s->binding, s->flops,
           s->kind, callee, ops, binding, flops);
  return ok;
}

static void test_sites_and_timing(void) {
  const MlcModule *m = bu_read_text(ctx, "model.py", MODEL);
  m = m ? mlc_graph_pipeline(ctx, m, NULL, MLC_PASS_COUNT - 1, NULL, NULL, NULL, NULL) : NULL;
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/model", tmpdir);
  MlcrtCallSite *sites = NULL;
  int n_sites = 0;
  MlcModelOptions mo = {.sites = &sites, .n_sites = &n_sites};
  CHECK(m && mlc_build_model(ctx, m, dir, NULL, &mo));
  if (check__failed_now) {
    bu_print_error(ctx, "build");
    return;
  }
  MlcrtModel *model = NULL;
  CHECK(mlcrt_model_load(dir, &model) == 0);
  if (!model) {
    printf("    load: %s\n", mlcrt_last_error());
    return;
  }
  /* the sites the compiler reported are the ones the descriptor holds, in
   * order, computing the graph's vars: b is an output, so fusion makes two
   * kernels, matmul + relu and the two adds, and their FLOPs add up */
  CHECK(n_sites == 2 && mlcrt_model_num_sites(model) == 2);
  if (check__failed_now) {
    mlcrt_model_free(model);
    return;
  }
  CHECK(site_is(mlcrt_model_site(model, 0), "fused_matmul_relu", "matmul+relu", "b", 2.0 * 4 * 8 * 16 + 32));
  CHECK(site_is(mlcrt_model_site(model, 1), "fused_add_add", "add+add", "d", 32 + 32));
  CHECK(mlcrt_model_site(model, 1)->bytes == 3 * 4.0 * 32);
  for (int i = 0; i < n_sites && i < 2; i++) CHECK(!strcmp(sites[i].callee, mlcrt_model_site(model, i)->callee));
  CHECK(mlcrt_model_site(model, 2) == NULL && mlcrt_model_site(model, -1) == NULL);

  float x[64] = {0}, w[128] = {0}, y[32] = {0};
  DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, (int64_t[]){4, 16}, NULL, 0};
  DLTensor tw = {w, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, (int64_t[]){16, 8}, NULL, 0};
  DLTensor ty = {y, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, (int64_t[]){4, 8}, NULL, 0};
  DLTensor *in[3] = {&tx, &tw, &ty}, *out[2] = {NULL};
  int64_t calls = -1;
  double secs = -1;
  /* off: runs leave no counts */
  CHECK(mlcrt_model_run(model, in, 3, out, 2) == 0);
  CHECK(mlcrt_model_site_time(model, 0, &calls, &secs) == 0 && calls == 0 && secs == 0);
  /* on: every site counts every run, and the sites' time fits in the runs' */
  CHECK(mlcrt_model_profile(model, 1) == 0);
  double t0 = now_s();
  for (int r = 0; r < 5; r++) CHECK(mlcrt_model_run(model, in, 3, out, 2) == 0);
  double wall = now_s() - t0, sum = 0;
  for (int i = 0; i < 2; i++) {
    CHECK(mlcrt_model_site_time(model, i, &calls, &secs) == 0 && calls == 5 && secs > 0);
    sum += secs;
  }
  CHECK(sum <= wall);
  /* off again: the counts stay as they were */
  CHECK(mlcrt_model_profile(model, 0) == 0 && mlcrt_model_run(model, in, 3, out, 2) == 0);
  CHECK(mlcrt_model_site_time(model, 1, &calls, NULL) == 0 && calls == 5);
  CHECK(mlcrt_model_site_time(model, 2, &calls, NULL) != 0);
  /* on again: cleared */
  CHECK(mlcrt_model_profile(model, 1) == 0 && mlcrt_model_site_time(model, 1, &calls, NULL) == 0 && calls == 0);
  mlcrt_model_free(model);
  bu_remove_dir(dir);
}

int main(void) {
  ctx = mlc_ctx_new();
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-profile")) {
    printf("FAIL main: cannot create a temporary directory\n");
    return 1;
  }
  RUN(test_flops_and_bytes);
  RUN(test_sites_and_timing);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
