/* test_onnx_loop.c - ONNX's Loop, run and compared with plain C: a state
 * carried across the iterations, a value of the enclosing graph read by the
 * body, a scan output.  Unrolled at import: a known trip count, a condition
 * the body computes from the iteration number.  Run as a loop by the
 * executor: a trip count over the unrolling bound, a condition the body
 * computes from a graph input, so the scan output's length is known only
 * when the loop has run.  And a loop the executor cannot run (a carried
 * value whose dtype changes), refused with a message. */
#include <math.h>

#include "check.h"
#include "onnx_build.h"

static char tmpdir[4096];

enum { N = 3 };

static Onnx__NodeProto node(const char *op, char **ins, int n_in, char **outs) {
  Onnx__NodeProto p;
  onnx__node_proto__init(&p);
  p.op_type = (char *)op, p.input = ins, p.n_input = (size_t)n_in, p.output = outs, p.n_output = 1;
  return p;
}

/* Body(i, c, y) = (c2, y2, y2) with y2 = y + x * float(i) (x of the enclosing
 * graph) and c2 = c, or (stop > 0) i < stop - 1, so iterations 0 .. stop-1 run,
 * or (stop < 0) float(i) < lim, lim a graph input */
typedef struct Body {
  Onnx__NodeProto nodes[4], *np[4];
  Onnx__ValueInfoProto *in[3], *out[3];
  Onnx__TensorProto *init[1];
  Onnx__GraphProto g;
  Onnx__AttributeProto attr, to;
  int64_t last;
} Body;

static void body_init(Body *b, int64_t stop) {
  static char *cast_in[1] = {"i"}, *cast_out[1] = {"fi"}, *mul_in[2] = {"x", "fi"}, *mul_out[1] = {"xi"};
  static char *add_in[2] = {"y", "xi"}, *add_out[1] = {"y2"}, *id_in[1] = {"c"}, *less_in[2] = {"i", "last"};
  static char *c_out[1] = {"c2"}, *lim_in[2] = {"fi", "lim"};
  b->nodes[0] = node("Cast", cast_in, 1, cast_out);
  onnx__attribute_proto__init(&b->to);
  b->to.name = "to", b->to.has_type = 1, b->to.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  b->to.has_i = 1, b->to.i = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  static Onnx__AttributeProto *cast_attrs[1];
  cast_attrs[0] = &b->to;
  b->nodes[0].attribute = cast_attrs, b->nodes[0].n_attribute = 1;
  b->nodes[1] = node("Mul", mul_in, 2, mul_out);
  b->nodes[2] = node("Add", add_in, 2, add_out);
  b->nodes[3] = stop > 0 ? node("Less", less_in, 2, c_out) : stop < 0 ? node("Less", lim_in, 2, c_out)
                         : node("Identity", id_in, 1, c_out);
  for (int i = 0; i < 4; i++) b->np[i] = &b->nodes[i];
  b->last = stop - 1;
  Init last = {"last", 0, {0}, &b->last, sizeof b->last, ONNX__TENSOR_PROTO__DATA_TYPE__INT64};
  b->init[0] = tensor(&last);
  int64_t yd[1] = {N};
  b->in[0] = value("i", NULL, 0), b->in[1] = value("c", NULL, 0), b->in[2] = value("y", yd, 1);
  b->out[0] = value("c2", NULL, 0), b->out[1] = value("y2", NULL, 0), b->out[2] = value("y2", NULL, 0);
  onnx__graph_proto__init(&b->g);
  b->g.name = "body", b->g.node = b->np, b->g.n_node = 4, b->g.input = b->in, b->g.n_input = 3;
  b->g.output = b->out, b->g.n_output = 3, b->g.initializer = b->init, b->g.n_initializer = 1;
  onnx__attribute_proto__init(&b->attr);
  b->attr.name = "body", b->attr.has_type = 1, b->attr.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
  b->attr.g = &b->g;
}

static void body_free(Body *b) {
  for (int i = 0; i < 3; i++) free_value(b->in[i]), free_value(b->out[i]);
  free(b->init[0]);
}

/* the loop over graph inputs y0, x and (with_lim) lim, trip count `trips`
 * and first condition `cond0` as initializers */
static uint8_t *loop_model(Body *b, int64_t *trips, uint8_t *cond0, bool with_lim, size_t *len) {
  static char *ins[3] = {"M", "cond", "y0"}, *outs[2] = {"y_final", "ys"}, *gins[3] = {"y0", "x", "lim"};
  static const int64_t dims[3][4] = {{N}, {N}, {0}};
  static const int rank[3] = {1, 1, 0};
  static Onnx__AttributeProto *attrs[1];
  attrs[0] = &b->attr;
  Init inits[2] = {{"M", 0, {0}, trips, sizeof *trips, ONNX__TENSOR_PROTO__DATA_TYPE__INT64},
                   {"cond", 0, {0}, cond0, 1, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL}};
  OneNode o = {"Loop", "", 13, ins, 3, outs, 2, attrs, 1, with_lim ? 3 : 2, dims, rank, inits, 2, gins};
  return pack_one_node(&o, len);
}

/* plain C: the final state and the scan output of `runs` iterations */
static void reference(const float *y0, const float *x, int64_t runs, float *yf, float *ys) {
  float y[N];
  memcpy(y, y0, sizeof y);
  for (int64_t t = 0; t < runs; t++)
    for (int k = 0; k < N; k++) y[k] += x[k] * (float)t, ys[t * N + k] = y[k];
  memcpy(yf, y, sizeof y);
}

static bool near(float a, float b) { return fabsf(a - b) <= 1e-6f * (1 + fabsf(b)); }

/* lim: the graph input the body compares with (stop < 0), else NAN */
static void run_and_compare(int64_t trips, int64_t stop, int64_t runs, float lim, const char *name) {
  Body b;
  body_init(&b, stop);
  uint8_t cond0 = 1;
  size_t len;
  uint8_t *buf = loop_model(&b, &trips, &cond0, stop < 0, &len);
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/%s", tmpdir, name);
  MlcrtModel *rm = onnx_build_load(buf, len, dir);
  free(buf);
  CHECK(rm != NULL);
  float y0[N] = {1, -2, 0.5f}, x[N] = {0.25f, 3, -1}, yf[N];
  float *ys = malloc((size_t)runs * N * sizeof *ys);
  reference(y0, x, runs, yf, ys);
  if (rm) {
    int64_t s[1] = {N};
    DLTensor yt = {.data = y0, .device = {kDLCPU, 0}, .ndim = 1, .dtype = {kDLFloat, 32, 1}, .shape = s};
    DLTensor xt = yt, lt = {.data = &lim, .device = {kDLCPU, 0}, .ndim = 0, .dtype = {kDLFloat, 32, 1}, .shape = s};
    xt.data = x;
    DLTensor *in[3] = {&yt, &xt, &lt}, *out[2] = {NULL};
    int rc = mlcrt_model_run(rm, in, stop < 0 ? 3 : 2, out, 2);
    if (rc) printf("    run: %s\n", mlcrt_last_error());
    CHECK(rc == 0);
    if (rc == 0) {
      CHECK(out[1]->ndim == 2 && out[1]->shape[0] == runs && out[1]->shape[1] == N);
      const float *f = out[0]->data, *yy = out[1]->data;
      for (int k = 0; k < N; k++) CHECK(near(f[k], yf[k]));
      int bad = 0;
      for (int64_t k = 0; k < runs * N && out[1]->shape[0] == runs; k++) bad += !near(yy[k], ys[k]);
      CHECK(bad == 0);
    }
    mlcrt_model_free(rm);
  }
  free(ys);
  bu_remove_dir(dir);
  body_free(&b);
}

/* 4 iterations, the condition passed on: unrolled */
static void test_loop_trip_count(void) { run_and_compare(4, 0, 4, NAN, "trips"); }

/* a trip count of 10, the body stopping after iteration 2: unrolled */
static void test_loop_condition_from_body(void) { run_and_compare(10, 3, 3, NAN, "cond"); }

/* 100000 iterations of a 4-node body, over the unrolling bound: a loop */
static void test_loop_many_iterations(void) { run_and_compare(100000, 0, 100000, NAN, "many"); }

/* the body compares the iteration with a graph input: a loop whose length
 * is known when it has run (iterations 0 .. 5 for lim 4.5) */
static void test_loop_condition_at_run_time(void) { run_and_compare(100, -1, 6, 4.5f, "runtime"); }

/* a loop run by the executor whose body turns the carried float32 value
 * into float64: refused with the node named, nothing built */
static void test_loop_refuses_changing_dtype(void) {
  static char *cast_in[1] = {"y"}, *cast_out[1] = {"y2"}, *id_in[1] = {"c"}, *id_out[1] = {"c2"};
  Onnx__NodeProto nodes[2] = {node("Cast", cast_in, 1, cast_out), node("Identity", id_in, 1, id_out)};
  Onnx__NodeProto *np[2] = {&nodes[0], &nodes[1]};
  Onnx__AttributeProto *to = int_attr("to", ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE), *cast_attrs[1] = {to};
  nodes[0].attribute = cast_attrs, nodes[0].n_attribute = 1;
  int64_t yd[1] = {N};
  Onnx__ValueInfoProto *in[3] = {value("i", NULL, 0), value("c", NULL, 0), value("y", yd, 1)};
  Onnx__ValueInfoProto *out[2] = {value("c2", NULL, 0), value("y2", NULL, 0)};
  Onnx__GraphProto g;
  onnx__graph_proto__init(&g);
  g.name = "body", g.node = np, g.n_node = 2, g.input = in, g.n_input = 3, g.output = out, g.n_output = 2;
  Onnx__AttributeProto ba, *attrs[1] = {&ba};
  onnx__attribute_proto__init(&ba);
  ba.name = "body", ba.has_type = 1, ba.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH, ba.g = &g;
  static char *ins[3] = {"M", "cond", "y0"}, *outs[1] = {"y_final"};
  static const int64_t dims[1][4] = {{N}};
  static const int rank[1] = {1};
  int64_t trips = 100000;
  uint8_t cond0 = 1;
  Init inits[2] = {{"M", 0, {0}, &trips, sizeof trips, ONNX__TENSOR_PROTO__DATA_TYPE__INT64},
                   {"cond", 0, {0}, &cond0, 1, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL}};
  char *gins[1] = {"y0"};
  OneNode o = {"Loop", "", 13, ins, 3, outs, 1, attrs, 1, 1, dims, rank, inits, 2, gins};
  size_t len;
  uint8_t *buf = pack_one_node(&o, &len);
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_onnx_import(ctx, "model.onnx", buf, len, ".", NULL);
  CHECK(m == NULL);
  const char *e = mlc_error_msg(ctx) ? mlc_error_msg(ctx) : "";
  const char *want = "(Loop, opset 13): loop-carried value 0 changes its shape or dtype in the body, which is not supported";
  if (!strstr(e, want)) printf("    got: %s\n", e);
  CHECK(strstr(e, want) != NULL);
  mlc_ctx_free(ctx);
  free(buf);
  free(to);
  for (int i = 0; i < 3; i++) free_value(in[i]);
  for (int i = 0; i < 2; i++) free_value(out[i]);
}

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-loop")) {
    printf("FAIL setup: cannot create a temporary directory\n");
    return 1;
  }
  RUN(test_loop_trip_count);
  RUN(test_loop_condition_from_body);
  RUN(test_loop_many_iterations);
  RUN(test_loop_condition_at_run_time);
  RUN(test_loop_refuses_changing_dtype);
  bu_remove_dir(tmpdir);
  return CHECK_DONE();
}
