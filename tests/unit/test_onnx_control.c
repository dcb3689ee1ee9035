/* test_onnx_control.c - ONNX's Scan, run and compared with plain C: a scan
 * input read along axis 1 in reverse, a state carried across the steps, and
 * a scan output stacked along axis 1, forward or in reverse (the
 * conformance suite's Scan tests use axis 0, forward, only).  Unrolled at
 * import (3 steps), and run as a loop (1000 steps, and a length the model
 * is given only when it runs, at two lengths). */
#include <math.h>

#include "check.h"
#include "onnx_build.h"

static char tmpdir[4096];

enum { R = 2, MAXT = 1000 };

typedef struct ScanCase {
  int steps;       /* the model's length; -1: unknown until it runs */
  bool rev_out;    /* scan_output_directions = [1] */
} ScanCase;

/* the model run on x [R, T] and compared with plain C */
static void check_scan(MlcrtModel *rm, const ScanCase *c, int T) {
  static float x[R][MAXT], y[R][MAXT];
  float s[R] = {0.5f, -1.0f};
  for (int r = 0; r < R; r++)
    for (int t = 0; t < T; t++) x[r][t] = (float)((r * 7 + t * 3) % 11) * 0.25f - 1.0f;
  /* plain C: steps read x[:, T-1-t]; outputs y[:, t], or y[:, T-1-t] in reverse */
  for (int t = 0; t < T; t++)
    for (int r = 0; r < R; r++) s[r] += x[r][T - 1 - t], y[r][c->rev_out ? T - 1 - t : t] = s[r] * 2;
  static float xin[R * MAXT];
  for (int r = 0; r < R; r++)
    for (int t = 0; t < T; t++) xin[r * T + t] = x[r][t];
  int64_t xs[2] = {R, T};
  DLTensor xt = {.data = xin, .device = {kDLCPU, 0}, .ndim = 2, .dtype = {kDLFloat, 32, 1}, .shape = xs};
  DLTensor *in[1] = {&xt}, *out[2] = {NULL};
  int rc = mlcrt_model_run(rm, in, 1, out, 2);
  if (rc) printf("    run: %s\n", mlcrt_last_error());
  CHECK(rc == 0);
  if (rc) return;
  CHECK(out[1]->ndim == 2 && out[1]->shape[0] == R && out[1]->shape[1] == T);
  if (out[1]->ndim != 2 || out[1]->shape[1] != T) return;
  const float *sf = out[0]->data, *yy = out[1]->data;
  for (int r = 0; r < R; r++) CHECK(fabsf(sf[r] - s[r]) <= 1e-5f * (1 + fabsf(s[r])));
  int bad = 0;
  for (int r = 0; r < R; r++)
    for (int t = 0; t < T; t++) bad += !(fabsf(yy[r * T + t] - y[r][t]) <= 1e-5f * (1 + fabsf(y[r][t])));
  CHECK(bad == 0);
}

/* body(s, x) = (s + x, (s + x) * 2), with s [R] and x [R], scanning x [R, T] along axis 1 in reverse */
static void scan_case(const ScanCase *c, const int *lens, int n_lens) {
  float s0[R] = {0.5f, -1.0f}, two = 2;
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
  Onnx__AttributeProto ba, *attrs[6] = {&ba, int_attr("num_scan_inputs", 1), NULL, NULL, NULL, NULL};
  onnx__attribute_proto__init(&ba);
  ba.name = "body", ba.has_type = 1, ba.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH, ba.g = &body;
  int64_t one = 1;
  Onnx__AttributeProto in_axes, in_dirs, out_axes, out_dirs;
  Onnx__AttributeProto *lists[4] = {&in_axes, &in_dirs, &out_axes, &out_dirs};
  const char *names[4] = {"scan_input_axes", "scan_input_directions", "scan_output_axes", "scan_output_directions"};
  int n_lists = c->rev_out ? 4 : 3;
  for (int i = 0; i < n_lists; i++) {
    onnx__attribute_proto__init(lists[i]);
    lists[i]->name = (char *)names[i];
    lists[i]->has_type = 1, lists[i]->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    lists[i]->ints = &one, lists[i]->n_ints = 1;
    attrs[2 + i] = lists[i];
  }
  char *ins[2] = {"s0", "x"}, *outs[2] = {"s_final", "y"}, *gins[1] = {"x"};
  Init s0_i = {"s0", 1, {R}, s0, sizeof s0, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT};
  const int64_t xdims[1][4] = {{R, c->steps}};
  static const int xrank[1] = {2};
  OneNode o = {"Scan", "", 11, ins, 2, outs, 2, attrs, 2 + n_lists, 1, xdims, xrank, &s0_i, 1, gins};
  size_t len;
  uint8_t *buf = pack_one_node(&o, &len);
  char dir[4200];
  static int count;
  snprintf(dir, sizeof dir, "%s/scan%d", tmpdir, count++);
  MlcrtModel *rm = onnx_build_load(buf, len, dir);
  free(buf);
  CHECK(rm != NULL);
  if (rm) {
    for (int i = 0; i < n_lens; i++) check_scan(rm, c, lens[i]);
    mlcrt_model_free(rm);
  }
  bu_remove_dir(dir);
  for (int i = 0; i < 2; i++) free_value(bin[i]), free_value(bout[i]);
  free(two_t[0]);
  free(attrs[1]);
}

static void test_scan_unrolled(void) {
  static const int lens[1] = {3};
  scan_case(&(ScanCase){3, false}, lens, 1);
  scan_case(&(ScanCase){3, true}, lens, 1);
}

static void test_scan_loop(void) {
  static const int lens[1] = {MAXT};
  scan_case(&(ScanCase){MAXT, false}, lens, 1);
  scan_case(&(ScanCase){MAXT, true}, lens, 1);
}

static void test_scan_length_at_run_time(void) {
  static const int lens[2] = {5, 300};
  scan_case(&(ScanCase){-1, false}, lens, 2);
  scan_case(&(ScanCase){-1, true}, lens, 2);
}

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-control")) {
    printf("FAIL setup: cannot create a temporary directory\n");
    return 1;
  }
  RUN(test_scan_unrolled);
  RUN(test_scan_loop);
  RUN(test_scan_length_at_run_time);
  bu_remove_dir(tmpdir);
  return CHECK_DONE();
}
