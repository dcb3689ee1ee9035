/* test_onnx_gather_range.c - ONNX Gather and GatherElements with indices
 * known only at run time: negative indices in range count from the end, as
 * ONNX says; an index out of range is reported through the runtime's error
 * path (a message, a non-zero status), never clamped and never read outside
 * the data.  The expected values come from plain C indexing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_util.h"
#include "check.h"
#include "mlcc/frontend.h"
#include "mlcc/transform.h"
#include "onnx.pb-c.h"

#define N 5 /* data */
#define K 3 /* indices */

/* y = OP(data, idx): data (N,) float initializer, idx (K,) int64 input */
static uint8_t *gather_model(const char *op, size_t *len) {
  Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
  Onnx__OperatorSetIdProto opset = ONNX__OPERATOR_SET_ID_PROTO__INIT, *opsets[1] = {&opset};
  Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
  Onnx__NodeProto node = ONNX__NODE_PROTO__INIT, *nodes[1] = {&node};
  char *ins[2] = {"data", "idx"}, *outs[1] = {"y"};
  Onnx__TensorShapeProto__Dimension d_in = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT, *dims[1] = {&d_in};
  Onnx__TensorShapeProto shape = ONNX__TENSOR_SHAPE_PROTO__INIT;
  Onnx__TypeProto__Tensor tt = ONNX__TYPE_PROTO__TENSOR__INIT, tt_out = ONNX__TYPE_PROTO__TENSOR__INIT;
  Onnx__TypeProto t = ONNX__TYPE_PROTO__INIT, t_out = ONNX__TYPE_PROTO__INIT;
  Onnx__ValueInfoProto in = ONNX__VALUE_INFO_PROTO__INIT, out = ONNX__VALUE_INFO_PROTO__INIT;
  Onnx__ValueInfoProto *in_ptrs[1] = {&in}, *out_ptrs[1] = {&out};
  Onnx__TensorProto data = ONNX__TENSOR_PROTO__INIT, *inits[1] = {&data};
  static float values[N] = {10, 11, 12, 13, 14};
  static int64_t data_dims[1] = {N};
  opset.domain = "", opset.has_version = 1, opset.version = 13;
  m.n_opset_import = 1, m.opset_import = opsets, m.has_ir_version = 1, m.ir_version = 7;
  node.op_type = (char *)op, node.name = "g0";
  node.n_input = 2, node.input = ins, node.n_output = 1, node.output = outs;
  d_in.value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE, d_in.dim_value = K;
  shape.n_dim = 1, shape.dim = dims;
  tt.has_elem_type = 1, tt.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64, tt.shape = &shape;
  t.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE, t.tensor_type = &tt;
  in.name = "idx", in.type = &t;
  tt_out.has_elem_type = 1, tt_out.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  t_out.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE, t_out.tensor_type = &tt_out;
  out.name = "y", out.type = &t_out;
  data.name = "data", data.n_dims = 1, data.dims = data_dims;
  data.has_data_type = 1, data.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  data.has_raw_data = 1, data.raw_data.len = sizeof values, data.raw_data.data = (uint8_t *)values;
  g.name = "g", g.n_node = 1, g.node = nodes, g.n_input = 1, g.input = in_ptrs;
  g.n_output = 1, g.output = out_ptrs, g.n_initializer = 1, g.initializer = inits;
  m.graph = &g;
  *len = onnx__model_proto__get_packed_size(&m);
  uint8_t *buf = malloc(*len);
  onnx__model_proto__pack(&m, buf);
  return buf;
}

typedef struct Built {
  MlcCtx *ctx;
  MlcrtModel *model;
  char dir[4096];
} Built;

static bool build(Built *b, const char *op) {
  size_t len;
  uint8_t *buf = gather_model(op, &len);
  b->ctx = mlc_ctx_new();
  b->model = NULL;
  bool ok = bu_make_tmpdir(b->dir, sizeof b->dir, "mlcc-gather");
  MlcModule *m = ok ? mlc_onnx_import(b->ctx, "gather.onnx", buf, len, NULL, NULL) : NULL;
  MlcSchTarget target;
  mlc_sch_target_host(&target);
  MlcMemPlanStats *stats = NULL;
  int n_stats = 0;
  MlcModule *p = m ? mlc_graph_pipeline(b->ctx, m, &target, MLC_PASS_COUNT - 1, NULL, NULL, &stats, &n_stats) : NULL;
  free(stats);
  ok = p && mlc_build_model(b->ctx, p, b->dir, NULL, NULL);
  if (!ok) bu_print_error(b->ctx, op);
  if (ok && mlcrt_model_load(b->dir, &b->model) != 0) {
    printf("    loading: %s\n", mlcrt_last_error());
    ok = false;
  }
  free(buf);
  return ok;
}

static void done(Built *b) {
  if (b->model) mlcrt_model_free(b->model);
  bu_remove_dir(b->dir);
  mlc_ctx_free(b->ctx);
}

/* run on idx; 0 with y filled, or the runtime's status */
static int run(Built *b, const int64_t *idx, float *y) {
  int64_t shape[1] = {K};
  DLTensor in = {(void *)idx, {kDLCPU, 0}, 1, {kDLInt, 64, 1}, shape, NULL, 0};
  DLTensor *out[1] = {NULL};
  int rc = mlcrt_model_run(b->model, (DLTensor *const[]){&in}, 1, out, 1);
  if (rc == 0) memcpy(y, out[0]->data, K * sizeof *y);
  return rc;
}

static void check_op(const char *op) {
  static const float data[N] = {10, 11, 12, 13, 14};
  Built b;
  bool ok = build(&b, op);
  CHECK(ok);
  if (ok) {
    /* in range, negative ones counted from the end */
    static const int64_t good[][K] = {{0, 4, 2}, {-1, -5, 3}, {-2, 1, -3}};
    for (size_t c = 0; c < sizeof good / sizeof good[0]; c++) {
      float y[K];
      CHECK(run(&b, good[c], y) == 0);
      for (int k = 0; k < K; k++) CHECK(y[k] == data[good[c][k] < 0 ? good[c][k] + N : good[c][k]]);
    }
    /* out of range, either end: an error, not a clamped value */
    static const int64_t bad[][K] = {{0, 5, 1}, {-6, 0, 0}, {0, 0, INT64_MAX}, {INT64_MIN, 0, 0}};
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
      float y[K];
      CHECK(run(&b, bad[c], y) != 0);
      CHECK(strstr(mlcrt_last_error(), "index out of range") != NULL);
    }
    float y[K];
    CHECK(run(&b, good[0], y) == 0); /* and the model still runs afterwards */
  }
  done(&b);
}

static void test_gather_indices(void) { check_op("Gather"); }
static void test_gather_elements_indices(void) { check_op("GatherElements"); }

int main(void) {
  RUN(test_gather_indices);
  RUN(test_gather_elements_indices);
  return CHECK_DONE();
}
