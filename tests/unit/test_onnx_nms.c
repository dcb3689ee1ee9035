/* test_onnx_nms.c - ONNX NonMaxSuppression through the compiled model's
 * executor, with max_output_boxes_per_class, iou_threshold and
 * score_threshold as graph inputs read when the model runs: on boxes drawn
 * from a fixed generator (2 batches, 3 classes, 40 boxes, tied scores,
 * flipped corners), in both box formats, several settings each, the rows
 * [batch, class, box] and their number compared with the greedy selection
 * written plainly in nms_ref.h.  The same model runs again with other
 * settings: the output's size is found anew each run; a model with them
 * as initializers, known when it is compiled, gives the same.  Boxes that do not
 * match the scores are refused at import with the node named. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nms_ref.h"
#include "onnx_build.h"

enum { B = 2, C = 3, N = 40 };

static const int64_t BOX_DIMS[3] = {B, N, 4}, SCORE_DIMS[3] = {B, C, N}, ONE[1] = {1};

static uint8_t *pack_nms(int64_t centre, const int64_t *box_dims, size_t *len) {
  char *ins[5] = {"boxes", "scores", "max", "iou", "score"}, *outs[1] = {"sel"};
  Onnx__ValueInfoProto *gin[5] = {value("boxes", box_dims, 3), value("scores", SCORE_DIMS, 3), value("max", ONE, 1),
                                  value("iou", ONE, 1), value("score", ONE, 1)};
  Onnx__ValueInfoProto *gout[1] = {value("sel", NULL, 0)};
  gin[2]->type->tensor_type->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  Onnx__AttributeProto *attrs[1] = {int_attr("center_point_box", centre)};
  Onnx__NodeProto node;
  onnx__node_proto__init(&node);
  node.op_type = "NonMaxSuppression", node.name = "node0", node.domain = "";
  node.input = ins, node.n_input = 5, node.output = outs, node.n_output = 1;
  node.attribute = attrs, node.n_attribute = 1;
  Onnx__NodeProto *nodes[1] = {&node};
  Onnx__GraphProto g;
  onnx__graph_proto__init(&g);
  g.name = "g", g.node = nodes, g.n_node = 1, g.input = gin, g.n_input = 5, g.output = gout, g.n_output = 1;
  Onnx__OperatorSetIdProto os, *osp[1] = {&os};
  onnx__operator_set_id_proto__init(&os);
  os.domain = "", os.has_version = 1, os.version = 11;
  Onnx__ModelProto m;
  onnx__model_proto__init(&m);
  m.has_ir_version = 1, m.ir_version = 8, m.graph = &g, m.opset_import = osp, m.n_opset_import = 1;
  *len = onnx__model_proto__get_packed_size(&m);
  uint8_t *buf = malloc(*len);
  onnx__model_proto__pack(&m, buf);
  for (int i = 0; i < 5; i++) free_value(gin[i]);
  free_value(gout[0]);
  free(attrs[0]);
  return buf;
}

static float boxes[B * N * 4], scores[B * C * N];

static void make_inputs(void) {
  uint32_t seed = 777;
  for (int i = 0; i < B * N * 4; i++) {
    seed = seed * 1103515245u + 12345u;
    boxes[i] = (float)((seed >> 16) % 20) * 0.5f;
  }
  for (int i = 0; i < B * C * N; i++) {
    seed = seed * 1103515245u + 12345u;
    scores[i] = 0.05f + 0.1f * (float)((seed >> 16) % 8);
  }
}

/* run once with these settings; the rows must be the reference's, class by class */
static bool runs_like_reference(MlcrtModel *m, bool centre, int64_t max_out, float iou, float sthr) {
  static int64_t sel[B * C * N];
  int64_t want_n = nmsref_select(boxes, scores, B, C, N, max_out, iou, true, sthr, centre, sel);
  DLTensor bt = {boxes, {kDLCPU, 0}, 3, {kDLFloat, 32, 1}, (int64_t *)BOX_DIMS, NULL, 0};
  DLTensor st = {scores, {kDLCPU, 0}, 3, {kDLFloat, 32, 1}, (int64_t *)SCORE_DIMS, NULL, 0};
  DLTensor mt = {&max_out, {kDLCPU, 0}, 1, {kDLInt, 64, 1}, (int64_t *)ONE, NULL, 0};
  DLTensor it = {&iou, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, (int64_t *)ONE, NULL, 0};
  DLTensor ht = {&sthr, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, (int64_t *)ONE, NULL, 0};
  DLTensor *in[5] = {&bt, &st, &mt, &it, &ht}, *y = NULL;
  if (mlcrt_model_run(m, in, 5, &y, 1) != 0) return printf("    run failed: %s\n", mlcrt_last_error()), false;
  if (!y || y->ndim != 2 || y->shape[0] != want_n || y->shape[1] != 3 || y->dtype.code != kDLInt || y->dtype.bits != 64)
    return printf("    got %lld rows, want %lld\n", y && y->ndim == 2 ? (long long)y->shape[0] : -1LL, (long long)want_n), false;
  const int64_t *r = y->data;
  int64_t k = 0;
  for (int bc = 0; bc < B * C; bc++)
    for (int j = 0; j < N && sel[bc * N + j] >= 0; j++, k++)
      if (r[3 * k] != bc / C || r[3 * k + 1] != bc % C || r[3 * k + 2] != sel[bc * N + j])
        return printf("    row %lld: got [%lld %lld %lld]\n", (long long)k, (long long)r[3 * k], (long long)r[3 * k + 1],
                      (long long)r[3 * k + 2]),
               false;
  return true;
}

static void test_format(int64_t centre) {
  char dir[4096];
  size_t len;
  uint8_t *buf = pack_nms(centre, BOX_DIMS, &len);
  MlcrtModel *m = bu_make_tmpdir(dir, sizeof dir, "mlcc-nms") ? onnx_build_load(buf, len, dir) : NULL;
  free(buf);
  CHECK(m != NULL);
  if (m) {
    CHECK(runs_like_reference(m, centre, 5, 0.3f, 0.2f));
    CHECK(runs_like_reference(m, centre, 100, 0.0f, 0.0f));
    CHECK(runs_like_reference(m, centre, 3, 0.6f, 0.5f));
    CHECK(runs_like_reference(m, centre, 0, 0.5f, 0.0f)); /* nothing */
    CHECK(runs_like_reference(m, centre, 10, 0.5f, 1.0f)); /* no score above */
    CHECK(runs_like_reference(m, centre, 40, 1.0f, -1.0f)); /* nothing suppressed */
    mlcrt_model_free(m);
  }
  bu_remove_dir(dir);
}

static void test_corners(void) { test_format(0); }
static void test_centres(void) { test_format(1); }

/* the limit and thresholds as initializers (known when the model is
 * compiled), as exported detectors give them */
static void test_constant_settings(void) {
  static const int64_t dims[2][4] = {{B, N, 4}, {B, C, N}};
  static const int ranks[2] = {3, 3};
  const int64_t max_out = 4;
  const float iou = 0.4f, sthr = 0.25f;
  Init inits[3] = {{"max", 1, {1}, &max_out, sizeof max_out, ONNX__TENSOR_PROTO__DATA_TYPE__INT64},
                   {"iou", 1, {1}, &iou, sizeof iou, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT},
                   {"score", 1, {1}, &sthr, sizeof sthr, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT}};
  char *ins[5] = {"boxes", "scores", "max", "iou", "score"}, *outs[1] = {"sel"}, dir[4096];
  size_t len;
  uint8_t *buf = pack_one_node(&(OneNode){"NonMaxSuppression", NULL, 11, ins, 5, outs, 1, NULL, 0, 2, dims, ranks, inits, 3, NULL}, &len);
  MlcrtModel *m = bu_make_tmpdir(dir, sizeof dir, "mlcc-nms") ? onnx_build_load(buf, len, dir) : NULL;
  free(buf);
  CHECK(m != NULL);
  if (m) {
    static int64_t sel[B * C * N];
    int64_t want_n = nmsref_select(boxes, scores, B, C, N, max_out, iou, true, sthr, false, sel);
    DLTensor bt = {boxes, {kDLCPU, 0}, 3, {kDLFloat, 32, 1}, (int64_t *)BOX_DIMS, NULL, 0};
    DLTensor st = {scores, {kDLCPU, 0}, 3, {kDLFloat, 32, 1}, (int64_t *)SCORE_DIMS, NULL, 0};
    DLTensor *in[2] = {&bt, &st}, *y = NULL;
    CHECK(mlcrt_model_run(m, in, 2, &y, 1) == 0);
    bool shaped = y && y->ndim == 2 && y->shape[0] == want_n && y->shape[1] == 3;
    CHECK(shaped);
    int64_t k = 0;
    for (int bc = 0; shaped && bc < B * C; bc++)
      for (int j = 0; j < N && sel[bc * N + j] >= 0; j++, k++) {
        const int64_t *r = (const int64_t *)y->data + 3 * k;
        CHECK(r[0] == bc / C && r[1] == bc % C && r[2] == sel[bc * N + j]);
      }
    mlcrt_model_free(m);
  }
  bu_remove_dir(dir);
}

/* boxes that do not match the scores: refused at import, naming the node */
static void test_mismatch(void) {
  static const int64_t bad[3] = {B, N + 1, 4};
  size_t len;
  uint8_t *buf = pack_nms(0, bad, &len);
  MlcCtx *ctx = mlc_ctx_new();
  CHECK(mlc_onnx_import(ctx, "model.onnx", buf, len, ".", NULL) == NULL);
  const char *msg = mlc_error_msg(ctx);
  CHECK(strstr(msg, "node0") && strstr(msg, "NonMaxSuppression") &&
        strstr(msg, "boxes (2, 41, 4) and scores (2, 3, 40) do not match: expected (B, N, 4) and (B, C, N)"));
  if (!strstr(msg, "do not match")) printf("    got: %s\n", msg);
  mlc_ctx_free(ctx);
  free(buf);
}

int main(void) {
  make_inputs();
  RUN(test_corners);
  RUN(test_centres);
  RUN(test_constant_settings);
  RUN(test_mismatch);
  return CHECK_DONE();
}
