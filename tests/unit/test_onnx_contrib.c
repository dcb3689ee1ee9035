/* test_onnx_contrib.c - the com.microsoft contrib ops (Gelu, BiasGelu,
 * FastGelu, QuickGelu, FusedMatMul, FusedConv, SkipLayerNormalization,
 * DynamicQuantizeMatMul) imported, compiled, run and compared with plain C
 * computing ONNX Runtime's documented formulas; and the attributes we do
 * not implement refused by name. */
#include <math.h>

#include "check.h"
#include "onnx_build.h"
#include "rand_util.h"

static char tmpdir[4096];

static void fill(float *p, int n, double lo, double hi) {
  for (int i = 0; i < n; i++) p[i] = (float)(lo + (hi - lo) * urand());
}

static bool close_all(const float *got, const float *want, int n) {
  for (int i = 0; i < n; i++)
    if (!(fabsf(got[i] - want[i]) <= 1e-5f + 1e-4f * fabsf(want[i]))) {
      printf("    [%d]: %g, expected %g\n", i, got[i], want[i]);
      return false;
    }
  return true;
}

#define F ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT

/* run o on one float32 graph input x; the first output checked against want
 * (n values), and with want2 the second too */
static void check_run2(const OneNode *o, float *x, const int64_t *xdims, int xrank, const float *want, int n,
                       const float *want2) {
  size_t len;
  uint8_t *buf = pack_one_node(o, &len);
  char dir[4200];
  static int count;
  snprintf(dir, sizeof dir, "%s/m%d", tmpdir, count++);
  MlcrtModel *rm = onnx_build_load(buf, len, dir);
  free(buf);
  CHECK(rm != NULL);
  if (rm) {
    DLTensor xt = {.data = x, .device = {kDLCPU, 0}, .ndim = xrank, .dtype = {kDLFloat, 32, 1}, .shape = (int64_t *)xdims};
    DLTensor *in[1] = {&xt}, *out[4] = {NULL};
    int rc = mlcrt_model_run(rm, in, 1, out, want2 ? 2 : 1);
    if (rc) printf("    run: %s\n", mlcrt_last_error());
    CHECK(rc == 0 && close_all(out[0]->data, want, n));
    if (rc == 0 && want2) CHECK(close_all(out[1]->data, want2, n));
    mlcrt_model_free(rm);
  }
  bu_remove_dir(dir);
}

static void check_run(const OneNode *o, float *x, const int64_t *xdims, int xrank, const float *want, int n) {
  check_run2(o, x, xdims, xrank, want, n, NULL);
}

static const int RANK2[1] = {2};
static const int64_t DIMS_2x5[1][4] = {{2, 5}};

static float gelu_ref(float v) { return 0.5f * v * (1.0f + erff(v / sqrtf(2.0f))); }
static float gelu_tanh_ref(float v) {
  return 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
}

static void test_gelu_family(void) {
  float x[10], b[5], want[10];
  fill(x, 10, -3, 3), fill(b, 5, -1, 1);
  char *ins[2] = {"x", "b"}, *outs[1] = {"y"};
  Init bi = {"b", 1, {5}, b, sizeof b, F};
  for (int i = 0; i < 10; i++) want[i] = gelu_ref(x[i]);
  OneNode o = {"Gelu", "com.microsoft", 17, ins, 1, outs, 1, NULL, 0, 1, DIMS_2x5, RANK2, NULL, 0, NULL};
  check_run(&o, x, DIMS_2x5[0], 2, want, 10);
  for (int i = 0; i < 10; i++) want[i] = gelu_ref(x[i] + b[i % 5]);
  o.op = "BiasGelu", o.n_in = 2, o.inits = &bi, o.n_inits = 1;
  check_run(&o, x, DIMS_2x5[0], 2, want, 10);
  for (int i = 0; i < 10; i++) want[i] = gelu_tanh_ref(x[i] + b[i % 5]);
  o.op = "FastGelu";
  check_run(&o, x, DIMS_2x5[0], 2, want, 10);
  Onnx__AttributeProto *alpha = float_attr("alpha", 1.5f);
  for (int i = 0; i < 10; i++) want[i] = x[i] / (1.0f + expf(-1.5f * x[i]));
  OneNode q = {"QuickGelu", "com.microsoft", 17, ins, 1, outs, 1, &alpha, 1, 1, DIMS_2x5, RANK2, NULL, 0, NULL};
  check_run(&q, x, DIMS_2x5[0], 2, want, 10);
  free(alpha);
}

/* y = 0.5 * A^T @ B^T, A [2, 4, 3], B [5, 4] */
static void test_fused_matmul(void) {
  float a[24], b[20], want[30];
  fill(a, 24, -1, 1), fill(b, 20, -1, 1);
  for (int n = 0; n < 2; n++)
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 5; j++) {
        float s = 0;
        for (int k = 0; k < 4; k++) s += a[n * 12 + k * 3 + i] * b[j * 4 + k];
        want[n * 15 + i * 5 + j] = 0.5f * s;
      }
  char *ins[2] = {"a", "b"}, *outs[1] = {"y"};
  Init bi = {"b", 2, {5, 4}, b, sizeof b, F};
  Onnx__AttributeProto *at[3] = {int_attr("transA", 1), int_attr("transB", 1), float_attr("alpha", 0.5f)};
  static const int64_t ad[1][4] = {{2, 4, 3}};
  static const int r3[1] = {3};
  OneNode o = {"FusedMatMul", "com.microsoft", 17, ins, 2, outs, 1, at, 3, 1, ad, r3, &bi, 1, NULL};
  check_run(&o, a, ad[0], 3, want, 30);
  for (int i = 0; i < 3; i++) free(at[i]);
}

/* relu(conv(x, w) + bias + z): x [1, 2, 5, 5], w [3, 2, 3, 3], z [1, 3, 3, 3] */
static void test_fused_conv(void) {
  float x[50], w[54], bias[3], z[27], want[27];
  fill(x, 50, -1, 1), fill(w, 54, -1, 1), fill(bias, 3, -1, 1), fill(z, 27, -1, 1);
  for (int m = 0; m < 3; m++)
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        float s = bias[m];
        for (int c = 0; c < 2; c++)
          for (int u = 0; u < 3; u++)
            for (int v = 0; v < 3; v++) s += x[c * 25 + (i + u) * 5 + j + v] * w[((m * 2 + c) * 3 + u) * 3 + v];
        s += z[(m * 3 + i) * 3 + j];
        want[(m * 3 + i) * 3 + j] = s > 0 ? s : 0;
      }
  char *ins[4] = {"x", "w", "bias", "z"}, *outs[1] = {"y"};
  Init inits[3] = {{"w", 4, {3, 2, 3, 3}, w, sizeof w, F}, {"bias", 1, {3}, bias, sizeof bias, F},
                   {"z", 4, {1, 3, 3, 3}, z, sizeof z, F}};
  Onnx__AttributeProto *act = str_attr("activation", "Relu");
  static const int64_t xd[1][4] = {{1, 2, 5, 5}};
  static const int r4[1] = {4};
  OneNode o = {"FusedConv", "com.microsoft", 17, ins, 4, outs, 1, &act, 1, 1, xd, r4, inits, 3, NULL};
  check_run(&o, x, xd[0], 4, want, 27);
  free(act);
}

/* layer norm over the last axis of x + skip + bias, and the sum as output 3 */
static void test_skip_layernorm(void) {
  enum { R = 6, C = 8 };
  float x[R * C], skip[R * C], gamma[C], beta[C], bias[C], want[R * C], sum[R * C];
  fill(x, R * C, -2, 2), fill(skip, R * C, -2, 2), fill(gamma, C, 0.5, 1.5), fill(beta, C, -1, 1), fill(bias, C, -1, 1);
  for (int r = 0; r < R; r++) {
    double s[C], mean = 0, var = 0;
    for (int c = 0; c < C; c++) {
      sum[r * C + c] = x[r * C + c] + skip[r * C + c] + bias[c];
      s[c] = sum[r * C + c], mean += s[c] / C;
    }
    for (int c = 0; c < C; c++) var += (s[c] - mean) * (s[c] - mean) / C;
    for (int c = 0; c < C; c++) want[r * C + c] = (float)((s[c] - mean) / sqrt(var + 1e-5) * gamma[c] + beta[c]);
  }
  char *ins[5] = {"x", "skip", "gamma", "beta", "bias"}, *outs[4] = {"y", "", "", "sum"};
  Init inits[4] = {{"skip", 3, {2, 3, C}, skip, sizeof skip, F}, {"gamma", 1, {C}, gamma, sizeof gamma, F},
                   {"beta", 1, {C}, beta, sizeof beta, F}, {"bias", 1, {C}, bias, sizeof bias, F}};
  Onnx__AttributeProto *eps = float_attr("epsilon", 1e-5f);
  static const int64_t xd[1][4] = {{2, 3, C}};
  static const int r3[1] = {3};
  OneNode o = {"SkipLayerNormalization", "com.microsoft", 17, ins, 5, outs, 4, &eps, 1, 1, xd, r3, inits, 4, NULL};
  check_run2(&o, x, xd[0], 3, want, R * C, sum);
  free(eps);
}

/* A [3, 4] quantized to uint8 over its range, B [4, 5] int8 with per-column
 * scales and zero points, plus a bias */
static void test_dynamic_quantize_matmul(void) {
  float a[12], bs[5], bias[5], want[15];
  int8_t b[20], bz[5];
  fill(a, 12, -2, 3), fill(bs, 5, 0.01, 0.05), fill(bias, 5, -1, 1);
  for (int i = 0; i < 20; i++) b[i] = (int8_t)(urand() * 255 - 128);
  for (int i = 0; i < 5; i++) bz[i] = (int8_t)(urand() * 20 - 10);
  float lo = 0, hi = 0;
  for (int i = 0; i < 12; i++) lo = fminf(lo, a[i]), hi = fmaxf(hi, a[i]);
  float scale = (hi - lo) / 255.0f;
  float zp = rintf(fminf(fmaxf(0.0f - lo / scale, 0), 255));
  int qa[12];
  for (int i = 0; i < 12; i++) qa[i] = (int)fminf(fmaxf(rintf(a[i] / scale) + zp, 0), 255);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 5; j++) {
      int acc = 0;
      for (int k = 0; k < 4; k++) acc += (qa[i * 4 + k] - (int)zp) * (b[k * 5 + j] - bz[j]);
      want[i * 5 + j] = (float)acc * (scale * bs[j]) + bias[j];
    }
  char *ins[5] = {"a", "b", "bs", "bz", "bias"}, *outs[1] = {"y"};
  Init inits[4] = {{"b", 2, {4, 5}, b, sizeof b, ONNX__TENSOR_PROTO__DATA_TYPE__INT8},
                   {"bs", 1, {5}, bs, sizeof bs, F},
                   {"bz", 1, {5}, bz, sizeof bz, ONNX__TENSOR_PROTO__DATA_TYPE__INT8},
                   {"bias", 1, {5}, bias, sizeof bias, F}};
  static const int64_t ad[1][4] = {{3, 4}};
  OneNode o = {"DynamicQuantizeMatMul", "com.microsoft", 17, ins, 5, outs, 1, NULL, 0, 1, ad, RANK2, inits, 4, NULL};
  check_run(&o, a, ad[0], 2, want, 15);
}

/* unknown contrib ops are listed as unsupported with their domain;
 * attributes we do not implement are refused by name */
static void test_contrib_refusals(void) {
  char *ins[2] = {"a", "b"}, *outs[1] = {"y"};
  float b[20] = {0};
  Init bi = {"b", 2, {5, 4}, b, sizeof b, F};
  static const int64_t ad[1][4] = {{2, 4, 3}};
  static const int r3[1] = {3};
  Onnx__AttributeProto *tb = int_attr("transBatchA", 1);
  OneNode o = {"FusedMatMul", "com.microsoft", 17, ins, 2, outs, 1, &tb, 1, 1, ad, r3, &bi, 1, NULL};
  const char *want[2] = {"node 'node0' (FusedMatMul, opset 17): transBatchA and transBatchB are not supported",
                         "1 unsupported node:\n  node 'node0': op NoSuchOp, domain 'com.microsoft', opset 17"};
  for (int k = 0; k < 2; k++) {
    if (k) o.op = "NoSuchOp";
    size_t len;
    uint8_t *buf = pack_one_node(&o, &len);
    MlcCtx *ctx = mlc_ctx_new();
    CHECK(mlc_onnx_import(ctx, "model.onnx", buf, len, ".", NULL) == NULL);
    if (!strstr(mlc_error_msg(ctx), want[k])) printf("    got: %s\n", mlc_error_msg(ctx));
    CHECK(strstr(mlc_error_msg(ctx), want[k]) != NULL);
    mlc_ctx_free(ctx);
    free(buf);
  }
  free(tb);
}

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-contrib")) {
    printf("FAIL setup: cannot create a temporary directory\n");
    return 1;
  }
  RUN(test_gelu_family);
  RUN(test_fused_matmul);
  RUN(test_fused_conv);
  RUN(test_skip_layernorm);
  RUN(test_dynamic_quantize_matmul);
  RUN(test_contrib_refusals);
  bu_remove_dir(tmpdir);
  return CHECK_DONE();
}
