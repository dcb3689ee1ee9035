/* test_onnx_chain.c - a long ONNX chain (Add and Relu in turn, N nodes) is
 * imported, taken through the graph pipeline, built into a model, loaded and
 * run, each stage within a time budget, and its output is compared with the
 * chain computed in plain C.  Long chains once took quadratic time in the
 * importer and passes and made one C function the compiler could not digest.
 *
 * MLC_CHAIN_NODES=N picks another length (default 5000); MLC_CHAIN_ONNX=PATH
 * also writes the model there, for timing `mlcc compile` on it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "build_util.h"
#include "check.h"
#include "mlcc/frontend.h"
#include "mlcc/transform.h"
#include "onnx.pb-c.h"

#define WIDTH 16
#define DEFAULT_NODES 5000
/* seconds for the whole default chain: import + passes + C build; about 20
 * times what it takes today, far below what a quadratic stage takes */
#define TIME_BUDGET 60.0

static double clock_s(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static double now(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

/* ---- the model: x -> Add(w) -> Relu -> MatMul(p) -> Add(w) -> Relu -> MatMul(p) ... -> y
 * w a vector, p a permutation matrix (so values stay bounded); the MatMuls
 * keep fusion from folding the chain into a few kernels. */

typedef struct Chain {
  Onnx__ModelProto m;
  Onnx__OperatorSetIdProto opset, *opsets[1];
  Onnx__GraphProto g;
  Onnx__NodeProto *nodes, **node_ptrs;
  char **names; /* value i: the output of node i - 1 ("x" for 0) */
  char **inputs;  /* two per node */
  Onnx__ValueInfoProto in, out, *ins[1], *outs[1];
  Onnx__TypeProto t;
  Onnx__TypeProto__Tensor tt;
  Onnx__TensorShapeProto shape;
  Onnx__TensorShapeProto__Dimension dims[2], *dim_ptrs[2];
  Onnx__TensorProto w, p, *inits[2];
  float wdata[WIDTH], pdata[WIDTH * WIDTH];
  int64_t wdims[1], pdims[2];
} Chain;

static void chain_init(Chain *c, int n) {
  memset(c, 0, sizeof *c);
  onnx__model_proto__init(&c->m);
  onnx__operator_set_id_proto__init(&c->opset);
  c->opset.has_version = 1, c->opset.version = 13, c->opset.domain = "";
  c->opsets[0] = &c->opset;
  c->m.n_opset_import = 1, c->m.opset_import = c->opsets;
  c->m.has_ir_version = 1, c->m.ir_version = 7;
  onnx__graph_proto__init(&c->g);
  c->m.graph = &c->g;
  c->g.name = "chain";
  c->nodes = calloc((size_t)n, sizeof *c->nodes);
  c->node_ptrs = calloc((size_t)n, sizeof *c->node_ptrs);
  c->names = calloc((size_t)n + 1, sizeof *c->names);
  c->inputs = calloc(2 * (size_t)n, sizeof *c->inputs);
  c->names[0] = strdup("x");
  for (int i = 0; i < n; i++) {
    char buf[32];
    snprintf(buf, sizeof buf, i == n - 1 ? "y" : "v%d", i);
    c->names[i + 1] = strdup(buf);
    Onnx__NodeProto *p = &c->nodes[i];
    onnx__node_proto__init(p);
    static const char *const ops[3] = {"Add", "Relu", "MatMul"}, *const second[3] = {"w", NULL, "p"};
    p->op_type = (char *)ops[i % 3];
    p->input = &c->inputs[2 * i];
    p->input[0] = c->names[i];
    p->input[1] = (char *)second[i % 3];
    p->n_input = second[i % 3] ? 2 : 1;
    p->output = &c->names[i + 1];
    p->n_output = 1;
    c->node_ptrs[i] = p;
  }
  c->g.n_node = (size_t)n, c->g.node = c->node_ptrs;
  onnx__value_info_proto__init(&c->in);
  onnx__type_proto__init(&c->t);
  onnx__type_proto__tensor__init(&c->tt);
  onnx__tensor_shape_proto__init(&c->shape);
  for (int i = 0; i < 2; i++) {
    onnx__tensor_shape_proto__dimension__init(&c->dims[i]);
    c->dims[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    c->dims[i].dim_value = i == 0 ? 1 : WIDTH;
    c->dim_ptrs[i] = &c->dims[i];
  }
  c->shape.n_dim = 2, c->shape.dim = c->dim_ptrs;
  c->tt.has_elem_type = 1, c->tt.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  c->tt.shape = &c->shape;
  c->t.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE, c->t.tensor_type = &c->tt;
  c->in.name = "x", c->in.type = &c->t;
  c->ins[0] = &c->in;
  c->g.n_input = 1, c->g.input = c->ins;
  onnx__value_info_proto__init(&c->out);
  c->out.name = "y";
  c->outs[0] = &c->out;
  c->g.n_output = 1, c->g.output = c->outs;
  onnx__tensor_proto__init(&c->w);
  c->wdims[0] = WIDTH;
  c->w.n_dims = 1, c->w.dims = c->wdims;
  c->w.has_data_type = 1, c->w.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  c->w.name = "w";
  for (int i = 0; i < WIDTH; i++) c->wdata[i] = (float)(i % 5) * 0.25f - 0.5f;
  c->w.has_raw_data = 1;
  c->w.raw_data.len = sizeof c->wdata, c->w.raw_data.data = (uint8_t *)c->wdata;
  c->inits[0] = &c->w;
  onnx__tensor_proto__init(&c->p);
  c->pdims[0] = c->pdims[1] = WIDTH;
  c->p.n_dims = 2, c->p.dims = c->pdims;
  c->p.has_data_type = 1, c->p.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  c->p.name = "p";
  for (int i = 0; i < WIDTH; i++) c->pdata[i * WIDTH + (i + 3) % WIDTH] = 1; /* y[(i+3)%W] = x[i] */
  c->p.has_raw_data = 1;
  c->p.raw_data.len = sizeof c->pdata, c->p.raw_data.data = (uint8_t *)c->pdata;
  c->inits[1] = &c->p;
  c->g.n_initializer = 2, c->g.initializer = c->inits;
}

static void chain_free(Chain *c, int n) {
  for (int i = 0; i <= n; i++) free(c->names[i]);
  free(c->names), free(c->inputs), free(c->nodes), free(c->node_ptrs);
}

/* the oracle: the chain in plain C */
static void chain_ref(const Chain *c, int n, const float *x, float *y) {
  float v[WIDTH], t[WIDTH];
  memcpy(v, x, sizeof v);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < WIDTH; j++) {
      if (i % 3 == 0) v[j] += c->wdata[j];
      else if (i % 3 == 1) v[j] = v[j] > 0 ? v[j] : 0;
      else {
        float acc = 0;
        for (int k = 0; k < WIDTH; k++) acc += v[k] * c->pdata[k * WIDTH + j];
        t[j] = acc;
        if (j == WIDTH - 1) memcpy(v, t, sizeof v);
      }
    }
  memcpy(y, v, sizeof v);
}

/* ---- the test -------------------------------------------------------------------- */

static void test_long_chain_compiles_and_runs(void) {
  const char *env = getenv("MLC_CHAIN_NODES");
  int n = env && atoi(env) > 0 ? atoi(env) : DEFAULT_NODES;
  Chain c;
  chain_init(&c, n);
  size_t len = onnx__model_proto__get_packed_size(&c.m);
  uint8_t *buf = malloc(len);
  onnx__model_proto__pack(&c.m, buf);
  const char *save = getenv("MLC_CHAIN_ONNX");
  if (save) {
    FILE *f = fopen(save, "wb");
    CHECK(f && fwrite(buf, 1, len, f) == len);
    if (f) fclose(f);
  }
  char dir[4096];
  CHECK(bu_make_tmpdir(dir, sizeof dir, "mlcc-chain"));
  MlcCtx *ctx = mlc_ctx_new();
  double t0 = now();
  MlcModule *m = mlc_onnx_import(ctx, "chain.onnx", buf, len, NULL, NULL);
  double t1 = now(), c1 = cpu();
  if (!m) bu_print_error(ctx, "import");
  MlcSchTarget target;
  mlc_sch_target_host(&target);
  MlcMemPlanStats *stats = NULL;
  int n_stats = 0;
  MlcModule *built = m ? mlc_graph_pipeline(ctx, m, &target, MLC_PASS_COUNT - 1, NULL, NULL, &stats, &n_stats) : NULL;
  free(stats);
  double t2 = now(), c2 = cpu();
  if (m && !built) bu_print_error(ctx, "graph pipeline");
  bool ok = built && mlc_build_model(ctx, built, dir, NULL, NULL);
  double t3 = now();
  if (built && !ok) bu_print_error(ctx, "build");
  CHECK(ok);
  printf("    %d nodes: import %.2f s, graph passes %.2f s (%.2f s CPU), C build %.2f s\n", n, t1 - t0, t2 - t1,
         c2 - c1, t3 - t2);
  CHECK(t3 - t0 < TIME_BUDGET * (n > DEFAULT_NODES ? (double)n / DEFAULT_NODES : 1.0));
  MlcrtModel *model = NULL;
  if (ok) CHECK(mlcrt_model_load(dir, &model) == 0);
  if (model) {
    float x[WIDTH], want[WIDTH];
    for (int j = 0; j < WIDTH; j++) x[j] = (float)j * 0.125f - 1.0f;
    chain_ref(&c, n, x, want);
    int64_t shape[2] = {1, WIDTH};
    DLTensor in = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
    DLTensor *out[1] = {NULL};
    CHECK(mlcrt_model_run(model, (DLTensor *const[]){&in}, 1, out, 1) == 0);
    if (out[0]) {
      const float *y = out[0]->data;
      for (int j = 0; j < WIDTH; j++)
        CHECK(fabsf(y[j] - want[j]) <= 1e-4f * (1 + fabsf(want[j])));
    }
    mlcrt_model_free(model);
  }
  mlc_ctx_free(ctx);
  bu_remove_dir(dir);
  free(buf);
  chain_free(&c, n);
}

int main(void) {
  RUN(test_long_chain_compiles_and_runs);
  return CHECK_DONE();
}
