/* test_fold.c - compile-time work on weights computes what the unfolded
 * graph would have: models with batch norms (after a conv2d, and on an
 * input) and with ops on constant weights go through the whole pipeline,
 * are built and run, and their outputs are compared with plain C that
 * evaluates the original formulas (conv, then (x - mean) / sqrt(var + eps) *
 * gamma + beta; a transposed weight) without any folding.  The golden cases
 * tests/golden/passes/fold_* check the passes' output structurally. */
#include "build_util.h"
#include "check.h"
#include "mlcc/transform.h"

#include <math.h>

static MlcCtx *ctx;
static char tmpdir[4096];
static uint64_t rng = 0x853c49e6748fea9bull;

static float frand(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* build text through the pipeline (no default schedules) into dir, load it */
static MlcrtModel *build(const char *name, const char *text, MlcrtCallSite **sites, int *n_sites) {
  const MlcModule *m = bu_read_text(ctx, name, text);
  m = m ? mlc_graph_pipeline(ctx, m, NULL, MLC_PASS_COUNT - 1, NULL, NULL, NULL, NULL) : NULL;
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/%s", tmpdir, name);
  MlcModelOptions mo = {.sites = sites, .n_sites = n_sites};
  if (!m || !mlc_build_model(ctx, m, dir, NULL, &mo)) {
    bu_print_error(ctx, name);
    return NULL;
  }
  MlcrtModel *model = NULL;
  if (mlcrt_model_load(dir, &model) != 0) printf("    load: %s\n", mlcrt_last_error());
  return model;
}

static const char BN_MODEL[] =
    "@I.ir_module\nclass Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((1, 3, 4, 5), \"float32\"), y: R.Tensor((1, 2, 4, 5), \"float32\")):\n"
    "        with R.dataflow():\n"
    "            c = R.nn.conv2d(x, R.const([[[[0.5, -1.0], [2.0, 0.25]], [[1.0, 0.0], [-0.5, 1.5]], [[0.75, 0.5], [1.0, -2.0]]],"
    " [[[-1.0, 1.0], [0.5, 0.5]], [[0.25, -0.75], [1.0, 2.0]], [[1.5, 0.0], [-1.0, 0.5]]]], \"float32\"), padding=[1, 0, 0, 1])\n"
    "            t = R.nn.batch_norm(c, R.const([2.0, 0.5], \"float32\"), R.const([0.25, -1.0], \"float32\"),"
    " R.const([1.0, -0.5], \"float32\"), R.const([3.0, 0.25], \"float32\"), axis=1, epsilon=0.001)\n"
    "            r = R.nn.relu(t[0])\n"
    "            u = R.nn.batch_norm(y, R.const([1.0, 4.0], \"float32\"), R.const([0.0, 2.0], \"float32\"),"
    " R.const([0.5, 1.5], \"float32\"), R.const([0.5, 15.0], \"float32\"), axis=1, epsilon=0.001)\n"
    "            out = R.add(r, u[0])\n"
    "            R.output(out)\n"
    "        return out\n";

static void test_batch_norm(void) {
  static const float w[2][3][2][2] = {{{{0.5f, -1.0f}, {2.0f, 0.25f}}, {{1.0f, 0.0f}, {-0.5f, 1.5f}}, {{0.75f, 0.5f}, {1.0f, -2.0f}}},
                                      {{{-1.0f, 1.0f}, {0.5f, 0.5f}}, {{0.25f, -0.75f}, {1.0f, 2.0f}}, {{1.5f, 0.0f}, {-1.0f, 0.5f}}}};
  static const double g[2] = {2.0, 0.5}, b[2] = {0.25, -1.0}, mean[2] = {1.0, -0.5}, var[2] = {3.0, 0.25};
  static const double g2[2] = {1.0, 4.0}, b2[2] = {0.0, 2.0}, mean2[2] = {0.5, 1.5}, var2[2] = {0.5, 15.0};
  MlcrtModel *model = build("bn", BN_MODEL, NULL, NULL);
  CHECK(model != NULL);
  if (!model) return;
  float x[3][4][5], y[2][4][5], want[2][4][5];
  for (int i = 0; i < 60; i++) (&x[0][0][0])[i] = frand();
  for (int i = 0; i < 40; i++) (&y[0][0][0])[i] = frand();
  /* the conv as written: padding top 1, left 0, bottom 0, right 1 */
  for (int o = 0; o < 2; o++)
    for (int h = 0; h < 4; h++)
      for (int v = 0; v < 5; v++) {
        double acc = 0;
        for (int c = 0; c < 3; c++)
          for (int kh = 0; kh < 2; kh++)
            for (int kw = 0; kw < 2; kw++) {
              int ih = h + kh - 1, iw = v + kw;
              if (ih >= 0 && ih < 4 && iw < 5) acc += (double)x[c][ih][iw] * w[o][c][kh][kw];
            }
        double bn = (acc - mean[o]) / sqrt(var[o] + 0.001) * g[o] + b[o];
        double bn2 = ((double)y[o][h][v] - mean2[o]) / sqrt(var2[o] + 0.001) * g2[o] + b2[o];
        want[o][h][v] = (float)((bn > 0 ? bn : 0) + bn2);
      }
  DLTensor tx = {x, {kDLCPU, 0}, 4, {kDLFloat, 32, 1}, (int64_t[]){1, 3, 4, 5}, NULL, 0};
  DLTensor ty = {y, {kDLCPU, 0}, 4, {kDLFloat, 32, 1}, (int64_t[]){1, 2, 4, 5}, NULL, 0};
  DLTensor *out[1] = {NULL};
  CHECK(mlcrt_model_run(model, (DLTensor *[]){&tx, &ty}, 2, out, 1) == 0);
  double worst = 0;
  for (int i = 0; out[0] && i < 40; i++) {
    double d = fabs(((float *)out[0]->data)[i] - (&want[0][0][0])[i]);
    if (d > worst) worst = d;
  }
  if (worst > 1e-5) printf("    max error %g\n", worst);
  CHECK(out[0] && worst <= 1e-5);
  mlcrt_model_free(model);
}

static const char CONST_MODEL[] =
    "@I.ir_module\nclass Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((4, 3), \"float32\")):\n"
    "        with R.dataflow():\n"
    "            wt = R.permute_dims(R.const([[1.0, -2.0, 3.0], [0.5, 5.0, -6.0]], \"float32\"))\n"
    "            m = R.matmul(x, wt)\n"
    "            b = R.add(R.const([1.0, 2.0], \"float32\"), R.const([0.5, -0.25], \"float32\"))\n"
    "            out = R.add(m, b)\n"
    "            R.output(out)\n"
    "        return out\n";

/* the weight's transpose and the constant add happen at compile time: the
 * only call left is the fused matmul + add, and it computes x w^T + b */
static void test_constants(void) {
  static const float w[2][3] = {{1.0f, -2.0f, 3.0f}, {0.5f, 5.0f, -6.0f}};
  MlcrtCallSite *sites = NULL;
  int n_sites = 0;
  MlcrtModel *model = build("consts", CONST_MODEL, &sites, &n_sites);
  CHECK(model != NULL);
  if (!model) return;
  CHECK(n_sites == 1 && !strcmp(sites[0].ops, "matmul+add"));
  float x[4][3], want[4][2];
  for (int i = 0; i < 12; i++) (&x[0][0])[i] = frand();
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 2; j++) {
      double acc = j ? 1.75 : 1.5;
      for (int k = 0; k < 3; k++) acc += (double)x[i][k] * w[j][k];
      want[i][j] = (float)acc;
    }
  DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, (int64_t[]){4, 3}, NULL, 0};
  DLTensor *out[1] = {NULL};
  CHECK(mlcrt_model_run(model, (DLTensor *[]){&tx}, 1, out, 1) == 0);
  for (int i = 0; out[0] && i < 8; i++) CHECK(fabsf(((float *)out[0]->data)[i] - (&want[0][0])[i]) <= 1e-5f);
  mlcrt_model_free(model);
}

int main(void) {
  ctx = mlc_ctx_new();
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-fold")) {
    printf("FAIL main: cannot create a temporary directory\n");
    return 1;
  }
  RUN(test_batch_norm);
  RUN(test_constants);
  char sub[4300];
  snprintf(sub, sizeof sub, "%s/bn", tmpdir);
  bu_remove_dir(sub);
  snprintf(sub, sizeof sub, "%s/consts", tmpdir);
  bu_remove_dir(sub);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
