/* test_onnx_windows.c - ONNX's HannWindow, HammingWindow and BlackmanWindow
 * (src/frontend/onnx_ops_signal.c) of a size known at compile time, built
 * and run: the windows match the values ONNX's own reference gives (its
 * conformance data for size 10, periodic and symmetric), and a size
 * that is not an integer is refused with a located message (an integer
 * size read at run time is checked by the conformance tests, whose size is
 * an input). */
#include "check.h"
#include "onnx_build.h"

#include <math.h>
#include <stdio.h>

static char tmpdir[4096];

typedef struct WinCase { const char *op; int periodic; float want[10]; } WinCase;

/* from ONNX's reference implementation (the operator tests' expected outputs) */
static const WinCase cases[] = {
    {"HannWindow", 1, {0.0f, 0.0954915f, 0.3454915f, 0.6545085f, 0.9045085f, 1.0f, 0.9045085f, 0.6545084f, 0.3454915f, 0.0954915f}},
    {"HannWindow", 0, {0.0f, 0.1169778f, 0.4131759f, 0.75f, 0.9698463f, 0.9698463f, 0.75f, 0.4131758f, 0.1169778f, 0.0f}},
    {"HammingWindow", 1, {0.0869565f, 0.1741444f, 0.4024053f, 0.6845512f, 0.9128121f, 1.0f, 0.9128121f, 0.6845512f, 0.4024053f, 0.1741444f}},
    {"BlackmanWindow", 0, {0.0f, 0.0508696f, 0.2580005f, 0.63f, 0.9511299f, 0.9511299f, 0.63f, 0.2580005f, 0.0508696f, 0.0f}},
};

static void test_windows_run(void) {
  int64_t size = 10;
  Init init = {"size", 0, {0}, &size, sizeof size, ONNX__TENSOR_PROTO__DATA_TYPE__INT64};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char *ins[1] = {"size"}, *outs[1] = {"y"};
    Onnx__AttributeProto *per = int_attr("periodic", cases[k].periodic);
    OneNode o = {cases[k].op, NULL, 17, ins, 1, outs, 1, &per, 1, 0, NULL, NULL, &init, 1, NULL};
    size_t len;
    uint8_t *buf = pack_one_node(&o, &len);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/w%d", tmpdir, (int)k);
    MlcrtModel *rm = onnx_build_load(buf, len, dir);
    free(buf);
    free(per);
    CHECK(rm != NULL);
    if (!rm) continue;
    DLTensor *out[1] = {NULL};
    int rc = mlcrt_model_run(rm, NULL, 0, out, 1);
    if (rc) printf("    run: %s\n", mlcrt_last_error());
    CHECK(rc == 0 && out[0]->ndim == 1 && out[0]->shape[0] == 10);
    if (rc == 0)
      for (int i = 0; i < 10; i++) {
        float got = ((const float *)out[0]->data)[i];
        if (!(fabsf(got - cases[k].want[i]) <= 1e-6f)) printf("    %s[%d]: %g, want %g\n", cases[k].op, i, got, cases[k].want[i]);
        CHECK(fabsf(got - cases[k].want[i]) <= 1e-6f);
      }
    mlcrt_model_free(rm);
    bu_remove_dir(dir);
  }
}

static void test_windows_float_size(void) {
  char *ins[1] = {"size"}, *outs[1] = {"y"};
  static const int64_t dims[1][4] = {{1}};
  static const int rank[1] = {1};
  OneNode o = {"HannWindow", NULL, 17, ins, 1, outs, 1, NULL, 0, 1, dims, rank, NULL, 0, NULL};
  size_t len;
  uint8_t *buf = pack_one_node(&o, &len);
  MlcCtx *ctx = mlc_ctx_new();
  CHECK(mlc_onnx_import(ctx, "model.onnx", buf, len, ".", NULL) == NULL);
  const char *want = "node 'node0' (HannWindow, opset 17): input 0 (size) must be one integer";
  if (!strstr(mlc_error_msg(ctx), want)) printf("    got: %s\n", mlc_error_msg(ctx));
  CHECK(strstr(mlc_error_msg(ctx), want) != NULL);
  mlc_ctx_free(ctx);
  free(buf);
}

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-windows")) {
    printf("FAIL setup: cannot create a temporary directory\n");
    return 1;
  }
  RUN(test_windows_run);
  RUN(test_windows_float_size);
  bu_remove_dir(tmpdir);
  return CHECK_DONE();
}
