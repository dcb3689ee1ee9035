/* test_graph_e2e.c - whole-pipeline tests of graph-level models: TVMScript
 * text -> (weights bound) -> mlc_graph_pipeline -> mlc_build_model into a
 * temporary directory -> mlcrt_model_load -> mlcrt_model_run on random
 * inputs, compared with a plain C computation of the same network written
 * here (double accumulation), never with another path through the compiler.
 *
 * Covered: the two-layer MLP of prim funcs and call_tir in today's spelling
 * and in the 2022 course's (files under tests/golden/roundtrip, read as a
 * user would give them); an MLP of graph ops with a symbolic batch run at
 * n = 1, 3 and 16 from one build, half of its weights bound as constants;
 * and a small CNN (conv2d, relu, max_pool2d, reshape, linear, softmax) with
 * every weight bound and embedded in model.so. */
#include "build_util.h"
#include "check.h"
#include "mlcc/transform.h"

#include <math.h>

static MlcCtx *ctx;
static char tmpdir[4096];

static uint64_t rng = 0x9e3779b97f4a7c15ull;
/* uniform in [-scale, scale) */
static float frand(float scale) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return scale * (float)((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* ---- tensors ------------------------------------------------------------------------- */

/* a float32 tensor of random values in [-scale, scale); NULL on failure */
static MlcrtTensor *random_tensor(int32_t ndim, const int64_t *shape, float scale) {
  MlcrtTensor *t = NULL;
  if (mlcrt_tensor_create(ndim, shape, mlcrt_dtype(kDLFloat, 32), &t) != 0) return NULL;
  float *p = t->dl.data;
  for (int64_t i = 0, n = mlcrt_tensor_numel(&t->dl); i < n; i++) p[i] = frand(scale);
  return t;
}

static float *data_of(MlcrtTensor *t) { return (float *)t->dl.data; }

/* the compiler's view of a runtime tensor, for mlc_pass_bind_params (which copies) */
static MlcTensorData as_data(MlcrtTensor *t) {
  return (MlcTensorData){MLC_DT(MLC_TC_FLOAT, 32, 1), t->dl.ndim, t->dl.shape, t->dl.data,
                         (size_t)mlcrt_tensor_nbytes(&t->dl)};
}

static bool output_is(const DLTensor *t, int64_t d0, int64_t d1) {
  return t && t->ndim == 2 && t->shape[0] == d0 && t->shape[1] == d1 && t->dtype.code == kDLFloat &&
         t->dtype.bits == 32 && t->dtype.lanes == 1;
}

static bool close_to(const float *got, const double *want, int64_t n, double tol) {
  for (int64_t i = 0; i < n; i++)
    if (!(fabs((double)got[i] - want[i]) <= tol * (1 + fabs(want[i])))) {
      printf("    element %lld: %.7g, want %.7g\n", (long long)i, (double)got[i], want[i]);
      return false;
    }
  return true;
}

/* ---- the plain C reference ------------------------------------------------------------- */

/* y[n, o] = x[n, k] . W + b, W stored [o, k] (linear) or [k, o] (matmul);
 * relu on request; accumulation in double */
static void ref_dense(const double *x, const float *w, const float *b, int64_t n, int64_t k, int64_t o,
                      bool w_is_k_by_o, bool relu, double *y) {
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < o; j++) {
      double s = b ? b[j] : 0;
      for (int64_t l = 0; l < k; l++) s += x[i * k + l] * (w_is_k_by_o ? w[l * o + j] : w[j * k + l]);
      y[i * o + j] = relu && s < 0 ? 0 : s;
    }
}

static void ref_softmax_rows(double *y, int64_t n, int64_t m) {
  for (int64_t i = 0; i < n; i++) {
    double *r = y + i * m, mx = r[0], sum = 0;
    for (int64_t j = 1; j < m; j++) mx = r[j] > mx ? r[j] : mx;
    for (int64_t j = 0; j < m; j++) sum += r[j] = exp(r[j] - mx);
    for (int64_t j = 0; j < m; j++) r[j] /= sum;
  }
}

static double *to_double(const float *p, int64_t n) {
  double *d = malloc((size_t)n * sizeof *d);
  for (int64_t i = 0; d && i < n; i++) d[i] = p[i];
  return d;
}

/* ---- compiling and running ----------------------------------------------------------------- */

/* the model in text with the named weights bound as constants */
static const MlcModule *read_bound(const char *text, const char *const *names, MlcTensorData *const *data, int n) {
  const MlcModule *m = bu_read_text(ctx, "model.py", text);
  if (m) m = mlc_pass_bind_params(ctx, m, "main", names, data, n);
  if (!m) bu_print_error(ctx, "binding");
  return m;
}

/* the graph pipeline, mlc_build_model into DIR/NAME, and the runtime's loader */
static MlcrtModel *compile(const MlcModule *m, const char *name, bool embed, char *dir, size_t cap) {
  snprintf(dir, cap, "%s/%s", tmpdir, name);
  mlc_clear_error(ctx);
  if (m) m = mlc_graph_pipeline(ctx, m, NULL, MLC_PASS_COUNT - 1, NULL, NULL, NULL, NULL);
  MlcModelOptions mo = {.embed_params = embed};
  if (!m || !mlc_build_model(ctx, m, dir, NULL, &mo)) {
    bu_print_error(ctx, "pipeline or build");
    return NULL;
  }
  MlcrtModel *model = NULL;
  if (mlcrt_model_load(dir, &model) != 0) {
    printf("    load: %s\n", mlcrt_last_error());
    return NULL;
  }
  return model;
}

static bool run(MlcrtModel *model, MlcrtTensor **in, int32_t n_in, DLTensor **out) {
  DLTensor *dl[8];
  for (int32_t i = 0; i < n_in; i++) dl[i] = &in[i]->dl;
  if (mlcrt_model_run(model, dl, n_in, out, 1) == 0) return true;
  printf("    run: %s\n", mlcrt_last_error());
  return false;
}

static void free_tensors(MlcrtTensor **t, int n) {
  for (int i = 0; i < n; i++) mlcrt_tensor_free(t[i]);
}

/* ---- the call_tir MLP, both spellings ---------------------------------------------------------- */

/* x (1, 784), w0 (128, 784), b0, w1 (10, 128), b1: all inputs of main */
static void check_mlp_file(const char *path, const char *name) {
  char dir[8192];
  MlcrtModel *model = compile(bu_read_path(ctx, path), name, false, dir, sizeof dir);
  CHECK(model);
  if (!model) return;
  int64_t sx[2] = {1, 784}, sw0[2] = {128, 784}, sb0[1] = {128}, sw1[2] = {10, 128}, sb1[1] = {10};
  MlcrtTensor *in[5] = {random_tensor(2, sx, 1), random_tensor(2, sw0, 0.05f), random_tensor(1, sb0, 0.1f),
                        random_tensor(2, sw1, 0.1f), random_tensor(1, sb1, 0.1f)};
  DLTensor *out = NULL;
  CHECK(in[0] && in[1] && in[2] && in[3] && in[4]);
  if (in[0] && in[1] && in[2] && in[3] && in[4] && run(model, in, 5, &out)) {
    double *x = to_double(data_of(in[0]), 784), hidden[128], want[10];
    ref_dense(x, data_of(in[1]), data_of(in[2]), 1, 784, 128, false, true, hidden);
    ref_dense(hidden, data_of(in[3]), data_of(in[4]), 1, 128, 10, false, false, want);
    CHECK(output_is(out, 1, 10));
    CHECK(output_is(out, 1, 10) && close_to(out->data, want, 10, 1e-4));
    free(x);
  } else {
    CHECK(!"the model ran");
  }
  free_tensors(in, 5);
  mlcrt_model_free(model);
  bu_remove_dir(dir);
}

static void test_mlp_call_tir(void) { check_mlp_file("tests/golden/roundtrip/mlp.py", "mlp"); }
static void test_mlp_call_tir_2022(void) { check_mlp_file("tests/golden/roundtrip/mlp_2022.py", "mlp_2022"); }

/* ---- an MLP of graph ops with a symbolic batch -------------------------------------------------- */

static const char *const mlp_ops_text =
    "from tvm.script import ir as I\n"
    "from tvm.script import relax as R\n\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((\"n\", 64), \"float32\"), w0: R.Tensor((64, 32), \"float32\"),\n"
    "             b0: R.Tensor((32,), \"float32\"), w1: R.Tensor((10, 32), \"float32\"),\n"
    "             b1: R.Tensor((10,), \"float32\")) -> R.Tensor((\"n\", 10), \"float32\"):\n"
    "        with R.dataflow():\n"
    "            lv0 = R.matmul(x, w0)\n"
    "            lv1 = R.add(lv0, b0)\n"
    "            lv2 = R.nn.relu(lv1)\n"
    "            lv3 = R.nn.linear(lv2, w1, b1)\n"
    "            out = R.nn.softmax(lv3, axis=-1)\n"
    "            R.output(out)\n"
    "        return out\n";

/* one run at batch n against the reference; w0/b0 are constants of the model */
static void check_mlp_batch(MlcrtModel *model, MlcrtTensor *w0, MlcrtTensor *b0, MlcrtTensor *w1,
                            MlcrtTensor *b1, int64_t n) {
  int64_t sx[2] = {n, 64};
  MlcrtTensor *in[3] = {random_tensor(2, sx, 1), w1, b1};
  DLTensor *out = NULL;
  if (!in[0] || !run(model, in, 3, &out)) {
    printf("    at batch %lld\n", (long long)n);
    CHECK(!"the model ran");
    mlcrt_tensor_free(in[0]);
    return;
  }
  double *x = to_double(data_of(in[0]), n * 64), *hidden = malloc((size_t)n * 32 * sizeof *hidden),
         *want = malloc((size_t)n * 10 * sizeof *want);
  CHECK(x && hidden && want);
  if (x && hidden && want) {
    ref_dense(x, data_of(w0), data_of(b0), n, 64, 32, true, true, hidden);
    ref_dense(hidden, data_of(w1), data_of(b1), n, 32, 10, false, false, want);
    ref_softmax_rows(want, n, 10);
    CHECK(output_is(out, n, 10));
    if (output_is(out, n, 10) && !close_to(out->data, want, n * 10, 1e-4)) {
      printf("    at batch %lld\n", (long long)n);
      CHECK(!"outputs match the reference");
    }
  }
  free(x);
  free(hidden);
  free(want);
  mlcrt_tensor_free(in[0]);
}

static void test_mlp_ops_symbolic_batch(void) {
  int64_t sw0[2] = {64, 32}, sb0[1] = {32}, sw1[2] = {10, 32}, sb1[1] = {10};
  MlcrtTensor *w[4] = {random_tensor(2, sw0, 0.3f), random_tensor(1, sb0, 0.1f), random_tensor(2, sw1, 0.4f),
                       random_tensor(1, sb1, 0.1f)};
  CHECK(w[0] && w[1] && w[2] && w[3]);
  if (!(w[0] && w[1] && w[2] && w[3])) {
    free_tensors(w, 4);
    return;
  }
  MlcTensorData d0 = as_data(w[0]), d1 = as_data(w[1]);
  MlcTensorData *data[2] = {&d0, &d1};
  const char *names[2] = {"w0", "b0"};
  const MlcModule *m = read_bound(mlp_ops_text, names, data, 2);
  char dir[8192];
  MlcrtModel *model = compile(m, "mlp_ops", false, dir, sizeof dir);
  CHECK(model);
  const MlcrtModelDesc *desc = model ? mlcrt_model_desc(model) : NULL;
  CHECK(!desc || (desc->n_inputs == 3 && desc->n_syms == 1));
  static const int64_t batches[] = {1, 3, 16};
  for (size_t i = 0; model && i < sizeof batches / sizeof *batches; i++)
    check_mlp_batch(model, w[0], w[1], w[2], w[3], batches[i]);
  mlcrt_model_free(model);
  bu_remove_dir(dir);
  free_tensors(w, 4);
}

/* ---- the small CNN -------------------------------------------------------------------------- */

static const char *const cnn_text =
    "from tvm.script import ir as I\n"
    "from tvm.script import relax as R\n\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((4, 1, 28, 28), \"float32\"), cw: R.Tensor((32, 1, 3, 3), \"float32\"),\n"
    "             cb: R.Tensor((1, 32, 1, 1), \"float32\"), w0: R.Tensor((100, 5408), \"float32\"),\n"
    "             b0: R.Tensor((100,), \"float32\"), w1: R.Tensor((10, 100), \"float32\"),\n"
    "             b1: R.Tensor((10,), \"float32\")) -> R.Tensor((4, 10), \"float32\"):\n"
    "        with R.dataflow():\n"
    "            lv0 = R.nn.conv2d(x, cw)\n"
    "            lv1 = R.add(lv0, cb)\n"
    "            lv2 = R.nn.relu(lv1)\n"
    "            lv3 = R.nn.max_pool2d(lv2, pool_size=[2, 2], strides=[2, 2])\n"
    "            lv4 = R.reshape(lv3, (4, 5408))\n"
    "            lv5 = R.nn.linear(lv4, w0, b0)\n"
    "            lv6 = R.nn.relu(lv5)\n"
    "            lv7 = R.nn.linear(lv6, w1, b1)\n"
    "            out = R.nn.softmax(lv7, axis=-1)\n"
    "            R.output(out)\n"
    "        return out\n";

enum { CNN_N = 4, CNN_C = 32, CNN_HW = 28, CNN_CONV = 26, CNN_POOL = 13, CNN_FLAT = CNN_C * CNN_POOL * CNN_POOL };

/* conv2d 1->32 3x3 (valid, stride 1) + bias + relu, then 2x2 max pooling,
 * flattened in NCHW order: feat[n, c*169 + y*13 + x] */
static void ref_conv_pool(const float *x, const float *cw, const float *cb, double *feat) {
  static double conv[CNN_C][CNN_CONV][CNN_CONV];
  for (int n = 0; n < CNN_N; n++) {
    const float *img = x + n * CNN_HW * CNN_HW;
    for (int c = 0; c < CNN_C; c++)
      for (int y = 0; y < CNN_CONV; y++)
        for (int xx = 0; xx < CNN_CONV; xx++) {
          double s = cb[c];
          for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++) s += (double)img[(y + ky) * CNN_HW + xx + kx] * cw[c * 9 + ky * 3 + kx];
          conv[c][y][xx] = s < 0 ? 0 : s;
        }
    for (int c = 0; c < CNN_C; c++)
      for (int y = 0; y < CNN_POOL; y++)
        for (int xx = 0; xx < CNN_POOL; xx++) {
          double m = conv[c][2 * y][2 * xx];
          for (int k = 1; k < 4; k++) m = fmax(m, conv[c][2 * y + k / 2][2 * xx + k % 2]);
          feat[(int64_t)n * CNN_FLAT + c * CNN_POOL * CNN_POOL + y * CNN_POOL + xx] = m;
        }
  }
}

static void test_cnn(void) {
  int64_t sx[4] = {CNN_N, 1, CNN_HW, CNN_HW}, scw[4] = {CNN_C, 1, 3, 3}, scb[4] = {1, CNN_C, 1, 1},
          sw0[2] = {100, CNN_FLAT}, sb0[1] = {100}, sw1[2] = {10, 100}, sb1[1] = {10};
  /* weights scaled so that the logits stay moderate: a saturated softmax
   * would hide errors in everything before it */
  MlcrtTensor *t[7] = {random_tensor(4, sx, 1),         random_tensor(4, scw, 0.5f),  random_tensor(4, scb, 0.1f),
                       random_tensor(2, sw0, 0.02f),    random_tensor(1, sb0, 0.1f),  random_tensor(2, sw1, 0.3f),
                       random_tensor(1, sb1, 0.1f)};
  bool made = true;
  for (int i = 0; i < 7; i++) made = made && t[i];
  CHECK(made);
  if (!made) {
    free_tensors(t, 7);
    return;
  }
  MlcTensorData d[6];
  MlcTensorData *data[6];
  const char *names[6] = {"cw", "cb", "w0", "b0", "w1", "b1"};
  for (int i = 0; i < 6; i++) d[i] = as_data(t[i + 1]), data[i] = &d[i];
  const MlcModule *m = read_bound(cnn_text, names, data, 6);
  char dir[8192];
  MlcrtModel *model = compile(m, "cnn", true, dir, sizeof dir);
  CHECK(model);
  DLTensor *out = NULL;
  if (model && run(model, t, 1, &out)) {
    double *feat = malloc((size_t)CNN_N * CNN_FLAT * sizeof *feat), hidden[CNN_N * 100], want[CNN_N * 10];
    CHECK(feat);
    if (feat) {
      ref_conv_pool(data_of(t[0]), data_of(t[1]), data_of(t[2]), feat);
      ref_dense(feat, data_of(t[3]), data_of(t[4]), CNN_N, CNN_FLAT, 100, false, true, hidden);
      ref_dense(hidden, data_of(t[5]), data_of(t[6]), CNN_N, 100, 10, false, false, want);
      ref_softmax_rows(want, CNN_N, 10);
      CHECK(output_is(out, CNN_N, 10));
      CHECK(output_is(out, CNN_N, 10) && close_to(out->data, want, CNN_N * 10, 1e-4));
    }
    free(feat);
  } else if (model) {
    CHECK(!"the model ran");
  }
  mlcrt_model_free(model);
  bu_remove_dir(dir);
  free_tensors(t, 7);
}

/* ---- main ------------------------------------------------------------------------------------- */

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-graph-e2e")) {
    printf("FAIL setup: cannot create a temporary directory\n");
    return 1;
  }
  ctx = mlc_ctx_new();
  RUN(test_mlp_call_tir);
  RUN(test_mlp_call_tir_2022);
  RUN(test_mlp_ops_symbolic_batch);
  RUN(test_cnn);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
