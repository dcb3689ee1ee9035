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

/* y = OP(data, idx[, upd]): data a float initializer of dims dd (rank dr),
 * idx an int64 input of dims id (rank ir), upd (ScatterND) a float
 * initializer of n_upd values shaped ud (rank ur) */
typedef struct Spec {
  const char *op;
  int dr, ir, ur;
  int64_t dd[2], id[2], ud[2];
  const float *data, *upd;
} Spec;

static uint8_t *gather_model(const Spec *sp, size_t *len) {
  Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
  Onnx__OperatorSetIdProto opset = ONNX__OPERATOR_SET_ID_PROTO__INIT, *opsets[1] = {&opset};
  Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
  Onnx__NodeProto node = ONNX__NODE_PROTO__INIT, *nodes[1] = {&node};
  char *ins[3] = {"data", "idx", "upd"}, *outs[1] = {"y"};
  Onnx__TensorShapeProto__Dimension d_in[2] = {ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT,
                                              ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT};
  Onnx__TensorShapeProto__Dimension *dims[2] = {&d_in[0], &d_in[1]};
  Onnx__TensorShapeProto shape = ONNX__TENSOR_SHAPE_PROTO__INIT;
  Onnx__TypeProto__Tensor tt = ONNX__TYPE_PROTO__TENSOR__INIT, tt_out = ONNX__TYPE_PROTO__TENSOR__INIT;
  Onnx__TypeProto t = ONNX__TYPE_PROTO__INIT, t_out = ONNX__TYPE_PROTO__INIT;
  Onnx__ValueInfoProto in = ONNX__VALUE_INFO_PROTO__INIT, out = ONNX__VALUE_INFO_PROTO__INIT;
  Onnx__ValueInfoProto *in_ptrs[1] = {&in}, *out_ptrs[1] = {&out};
  Onnx__TensorProto data = ONNX__TENSOR_PROTO__INIT, upd = ONNX__TENSOR_PROTO__INIT, *inits[2] = {&data, &upd};
  int64_t n_data = 1, n_upd = 1;
  for (int i = 0; i < sp->dr; i++) n_data *= sp->dd[i];
  for (int i = 0; i < sp->ur; i++) n_upd *= sp->ud[i];
  opset.domain = "", opset.has_version = 1, opset.version = 13;
  m.n_opset_import = 1, m.opset_import = opsets, m.has_ir_version = 1, m.ir_version = 7;
  node.op_type = (char *)sp->op, node.name = "g0";
  node.n_input = sp->upd ? 3 : 2, node.input = ins, node.n_output = 1, node.output = outs;
  for (int i = 0; i < sp->ir; i++)
    d_in[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE, d_in[i].dim_value = sp->id[i];
  shape.n_dim = (size_t)sp->ir, shape.dim = dims;
  tt.has_elem_type = 1, tt.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64, tt.shape = &shape;
  t.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE, t.tensor_type = &tt;
  in.name = "idx", in.type = &t;
  tt_out.has_elem_type = 1, tt_out.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  t_out.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE, t_out.tensor_type = &tt_out;
  out.name = "y", out.type = &t_out;
  data.name = "data", data.n_dims = (size_t)sp->dr, data.dims = (int64_t *)sp->dd;
  data.has_data_type = 1, data.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  data.has_raw_data = 1, data.raw_data.len = (size_t)n_data * sizeof(float), data.raw_data.data = (uint8_t *)sp->data;
  upd.name = "upd", upd.n_dims = (size_t)sp->ur, upd.dims = (int64_t *)sp->ud;
  upd.has_data_type = 1, upd.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  upd.has_raw_data = 1, upd.raw_data.len = (size_t)n_upd * sizeof(float), upd.raw_data.data = (uint8_t *)sp->upd;
  g.name = "g", g.n_node = 1, g.node = nodes, g.n_input = 1, g.input = in_ptrs;
  g.n_output = 1, g.output = out_ptrs, g.n_initializer = sp->upd ? 2 : 1, g.initializer = inits;
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

static bool build(Built *b, const Spec *sp) {
  size_t len;
  uint8_t *buf = gather_model(sp, &len);
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
  if (!ok) bu_print_error(b->ctx, sp->op);
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

/* run on idx (dims id, rank ir); 0 with the n_y values of y filled, or the
 * runtime's status */
static int run(Built *b, const Spec *sp, const int64_t *idx, float *y, int n_y) {
  DLTensor in = {(void *)idx, {kDLCPU, 0}, sp->ir, {kDLInt, 64, 1}, (int64_t *)sp->id, NULL, 0};
  DLTensor *out[1] = {NULL};
  int rc = mlcrt_model_run(b->model, (DLTensor *const[]){&in}, 1, out, 1);
  if (rc == 0) memcpy(y, out[0]->data, (size_t)n_y * sizeof *y);
  return rc;
}

static const float data[N] = {10, 11, 12, 13, 14};

/* out of range: an error from the runtime, not a clamped or wrapped value;
 * the model still runs afterwards */
static void check_bad(Built *b, const Spec *sp, const int64_t *bad, int n_bad, int per, const int64_t *good) {
  float y[8];
  for (int c = 0; c < n_bad; c++) {
    CHECK(run(b, sp, bad + c * per, y, 0) != 0);
    CHECK(strstr(mlcrt_last_error(), "index out of range") != NULL);
  }
  CHECK(run(b, sp, good, y, 0) == 0);
}

static void check_op(const char *op) {
  Spec sp = {op, 1, 1, 0, {N}, {K}, {0}, data, NULL};
  Built b;
  bool ok = build(&b, &sp);
  CHECK(ok);
  if (ok) {
    /* in range, negative ones counted from the end */
    static const int64_t good[][K] = {{0, 4, 2}, {-1, -5, 3}, {-2, 1, -3}};
    for (size_t c = 0; c < sizeof good / sizeof good[0]; c++) {
      float y[K];
      CHECK(run(&b, &sp, good[c], y, K) == 0);
      for (int k = 0; k < K; k++) CHECK(y[k] == data[good[c][k] < 0 ? good[c][k] + N : good[c][k]]);
    }
    /* out of range, either end */
    static const int64_t bad[][K] = {{0, 5, 1}, {-6, 0, 0}, {0, 0, INT64_MAX}, {INT64_MIN, 0, 0}};
    check_bad(&b, &sp, bad[0], 4, K, good[0]);
  }
  done(&b);
}

static void test_gather_indices(void) { check_op("Gather"); }
static void test_gather_elements_indices(void) { check_op("GatherElements"); }

/* GatherND / ScatterND on data 2 x 3 with index pairs: each entry of a pair
 * is checked against its own dim, so (0, 3) is out of range although row
 * 0 * 3 + 3 of the flattened data exists */
static const float data23[6] = {0, 1, 2, 3, 4, 5};
static const int64_t nd_bad[][2 * 2] = {{0, 3, 0, 0}, {1, 0, 0, -4}, {2, 0, 0, 0}, {0, 0, -3, 1}, {INT64_MAX, 0, 0, 0}};
static const int64_t nd_good[2 * 2] = {1, -1, -2, 2};

static void test_gather_nd_indices(void) {
  Spec sp = {"GatherND", 2, 2, 0, {2, 3}, {2, 2}, {0}, data23, NULL};
  Built b;
  bool ok = build(&b, &sp);
  CHECK(ok);
  if (ok) {
    float y[2];
    CHECK(run(&b, &sp, nd_good, y, 2) == 0);
    CHECK(y[0] == data23[1 * 3 + 2] && y[1] == data23[0 * 3 + 2]);
    check_bad(&b, &sp, nd_bad[0], 5, 4, nd_good);
  }
  done(&b);
}

static void test_scatter_nd_indices(void) {
  static const float upd[2] = {-7, -8};
  Spec sp = {"ScatterND", 2, 2, 1, {2, 3}, {2, 2}, {2}, data23, upd};
  Built b;
  bool ok = build(&b, &sp);
  CHECK(ok);
  if (ok) {
    float y[6], want[6];
    memcpy(want, data23, sizeof want);
    want[1 * 3 + 2] = -7, want[0 * 3 + 2] = -8;
    CHECK(run(&b, &sp, nd_good, y, 6) == 0);
    CHECK(memcmp(y, want, sizeof y) == 0);
    check_bad(&b, &sp, nd_bad[0], 5, 4, nd_good);
  }
  done(&b);
}

int main(void) {
  RUN(test_gather_indices);
  RUN(test_gather_elements_indices);
  RUN(test_gather_nd_indices);
  RUN(test_scatter_nd_indices);
  return CHECK_DONE();
}
