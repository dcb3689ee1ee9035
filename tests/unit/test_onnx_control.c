/* test_onnx_control.c - ONNX's Scan unrolled, run and compared with plain C:
 * a scan input read along axis 1 in reverse, a state carried across the
 * steps, and a scan output stacked along axis 1 (the conformance suite's
 * Scan tests use axis 0, forward, only). */
#include <math.h>

#include "check.h"
#include "onnx_build.h"

static char tmpdir[4096];

enum { R = 2, T = 3 };

/* body(s, x) = (s + x, (s + x) * 2), with s [R] and x [R] */
static void test_scan_reverse_axis1(void) {
  float s0[R] = {0.5f, -1.0f}, x[R][T] = {{1, 2, 3}, {-4, 5, 6}}, two = 2;
  /* plain C: steps read x[:, T-1-t]; outputs y[:, t] */
  float s[R] = {s0[0], s0[1]}, y[R][T];
  for (int t = 0; t < T; t++)
    for (int r = 0; r < R; r++) s[r] += x[r][T - 1 - t], y[r][t] = s[r] * 2;
  /* the body graph */
  char *add_in[2] = {"bs", "bx"}, *add_out[1] = {"bsum"}, *mul_in[2] = {"bsum", "two"}, *mul_out[1] = {"by"};
  Onnx__NodeProto add, mul, *bnodes[2] = {&add, &mul};
  onnx__node_proto__init(&add), onnx__node_proto__init(&mul);
  add.op_type = "Add", add.input = add_in, add.n_input = 2, add.output = add_out, add.n_output = 1;
  mul.op_type = "Mul", mul.input = mul_in, mul.n_input = 2, mul.output = mul_out, mul.n_output = 1;
  int64_t rd[1] = {R};
  Onnx__ValueInfoProto *bin[2] = {value("bs", rd, 1), value("bx", rd, 1)};
  Onnx__ValueInfoProto *bout[2] = {value("bsum", NULL, 0), value("by", NULL, 0)};
  Init two_i = {"two", 0, {0}, &two, sizeof two, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT};
  Onnx__TensorProto *two_t[1] = {tensor(&two_i)};
  Onnx__GraphProto body;
  onnx__graph_proto__init(&body);
  body.name = "body", body.node = bnodes, body.n_node = 2, body.input = bin, body.n_input = 2;
  body.output = bout, body.n_output = 2, body.initializer = two_t, body.n_initializer = 1;
  Onnx__AttributeProto ba, *attrs[5] = {&ba, int_attr("num_scan_inputs", 1), NULL, NULL, NULL};
  onnx__attribute_proto__init(&ba);
  ba.name = "body", ba.has_type = 1, ba.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH, ba.g = &body;
  int64_t one = 1;
  Onnx__AttributeProto in_axes, in_dirs, out_axes;
  Onnx__AttributeProto *lists[3] = {&in_axes, &in_dirs, &out_axes};
  const char *names[3] = {"scan_input_axes", "scan_input_directions", "scan_output_axes"};
  for (int i = 0; i < 3; i++) {
    onnx__attribute_proto__init(lists[i]);
    lists[i]->name = (char *)names[i];
    lists[i]->has_type = 1, lists[i]->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    lists[i]->ints = &one, lists[i]->n_ints = 1;
    attrs[2 + i] = lists[i];
  }
  char *ins[2] = {"s0", "x"}, *outs[2] = {"s_final", "y"}, *gins[1] = {"x"};
  Init s0_i = {"s0", 1, {R}, s0, sizeof s0, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT};
  static const int64_t xdims[1][4] = {{R, T}};
  static const int xrank[1] = {2};
  OneNode o = {"Scan", "", 11, ins, 2, outs, 2, attrs, 5, 1, xdims, xrank, &s0_i, 1, gins};
  size_t len;
  uint8_t *buf = pack_one_node(&o, &len);
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/scan", tmpdir);
  MlcrtModel *rm = onnx_build_load(buf, len, dir);
  free(buf);
  CHECK(rm != NULL);
  if (rm) {
    int64_t xs[2] = {R, T};
    DLTensor xt = {.data = x, .device = {kDLCPU, 0}, .ndim = 2, .dtype = {kDLFloat, 32, 1}, .shape = xs};
    DLTensor *in[1] = {&xt}, *out[2] = {NULL};
    int rc = mlcrt_model_run(rm, in, 1, out, 2);
    if (rc) printf("    run: %s\n", mlcrt_last_error());
    CHECK(rc == 0);
    if (rc == 0) {
      CHECK(out[1]->ndim == 2 && out[1]->shape[0] == R && out[1]->shape[1] == T);
      const float *sf = out[0]->data, *yy = out[1]->data;
      for (int r = 0; r < R; r++) CHECK(fabsf(sf[r] - s[r]) < 1e-6f);
      for (int r = 0; r < R; r++)
        for (int t = 0; t < T; t++) CHECK(fabsf(yy[r * T + t] - y[r][t]) < 1e-6f);
    }
    mlcrt_model_free(rm);
  }
  bu_remove_dir(dir);
  for (int i = 0; i < 2; i++) free_value(bin[i]), free_value(bout[i]);
  free(two_t[0]);
  free(attrs[1]);
}

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-control")) {
    printf("FAIL setup: cannot create a temporary directory\n");
    return 1;
  }
  RUN(test_scan_reverse_axis1);
  bu_remove_dir(tmpdir);
  return CHECK_DONE();
}
