/* test_onnx_seq.c - ONNX sequences and optionals resolved at import: small
 * models built here, imported, compiled, run and compared with values
 * worked out in plain C; sequence inputs and outputs flattened to tensors
 * named name[i]; refusals of what is known only at run time; and the
 * SequenceProto / OptionalProto reader of the conformance data. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "onnx_build.h"

static char tmpdir[4096];

/* ---- allocations of the models built here, freed at once ------------------------- */

static void *owned[4096];
static int n_owned;

static void *own(void *p);
static void *tnew(size_t bytes) { return own(calloc(1, bytes)); }

static void *own(void *p) {
  if (n_owned < (int)(sizeof owned / sizeof *owned)) owned[n_owned++] = p;
  return p;
}

static void free_owned(void) {
  while (n_owned) free(owned[--n_owned]);
}

/* ---- a model of several nodes ----------------------------------------------------- */

static Onnx__TypeProto *tensor_type(int elem, const int64_t *dims, int nd) {
  Onnx__TypeProto *t = tnew(sizeof *t);
  Onnx__TypeProto__Tensor *tt = tnew(sizeof *tt);
  onnx__type_proto__init(t), onnx__type_proto__tensor__init(tt);
  tt->has_elem_type = 1, tt->elem_type = elem;
  if (nd >= 0) {
    Onnx__TensorShapeProto *s = tnew(sizeof *s);
    onnx__tensor_shape_proto__init(s);
    s->dim = tnew((size_t)(nd + 1) * sizeof *s->dim);
    for (int i = 0; i < nd; i++) {
      s->dim[i] = tnew(sizeof **s->dim);
      onnx__tensor_shape_proto__dimension__init(s->dim[i]);
      if (dims[i] >= 0) s->dim[i]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE, s->dim[i]->dim_value = dims[i];
      else s->dim[i]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM, s->dim[i]->dim_param = "N";
    }
    s->n_dim = (size_t)nd;
    tt->shape = s;
  }
  t->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE, t->tensor_type = tt;
  return t;
}

static Onnx__TypeProto *seq_type(Onnx__TypeProto *elem) {
  Onnx__TypeProto *t = tnew(sizeof *t);
  Onnx__TypeProto__Sequence *st = tnew(sizeof *st);
  onnx__type_proto__init(t), onnx__type_proto__sequence__init(st);
  st->elem_type = elem;
  t->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE, t->sequence_type = st;
  return t;
}

static Onnx__ValueInfoProto *vinfo(const char *name, Onnx__TypeProto *t) {
  Onnx__ValueInfoProto *v = tnew(sizeof *v);
  onnx__value_info_proto__init(v);
  v->name = (char *)name, v->type = t;
  return v;
}

static Onnx__NodeProto *node(const char *op, const char *name, const char *const *ins, int n_in, const char *const *outs,
                             int n_out) {
  Onnx__NodeProto *p = tnew(sizeof *p);
  onnx__node_proto__init(p);
  p->op_type = (char *)op, p->name = (char *)name, p->domain = "";
  p->input = (char **)ins, p->n_input = (size_t)n_in, p->output = (char **)outs, p->n_output = (size_t)n_out;
  return p;
}

static void node_attr(Onnx__NodeProto *p, Onnx__AttributeProto *a) {
  Onnx__AttributeProto **as = tnew((p->n_attribute + 1) * sizeof *as);
  for (size_t i = 0; i < p->n_attribute; i++) as[i] = p->attribute[i];
  as[p->n_attribute++] = a;
  p->attribute = as;
  own(a);
}

typedef struct Graph {
  Onnx__NodeProto *nodes[16];
  int n_nodes;
  Onnx__ValueInfoProto *ins[8], *outs[8];
  int n_ins, n_outs;
  Onnx__TensorProto *inits[8];
  int n_inits;
} Graph;

static Onnx__GraphProto *graph_proto(Graph *g) {
  Onnx__GraphProto *gp = tnew(sizeof *gp);
  onnx__graph_proto__init(gp);
  gp->name = "g", gp->node = g->nodes, gp->n_node = (size_t)g->n_nodes;
  gp->input = g->ins, gp->n_input = (size_t)g->n_ins, gp->output = g->outs, gp->n_output = (size_t)g->n_outs;
  gp->initializer = g->inits, gp->n_initializer = (size_t)g->n_inits;
  return gp;
}

static uint8_t *pack_model(Graph *g, int opset, size_t *len) {
  Onnx__OperatorSetIdProto os, *osp[1] = {&os};
  onnx__operator_set_id_proto__init(&os);
  os.domain = "", os.has_version = 1, os.version = opset;
  Onnx__ModelProto m;
  onnx__model_proto__init(&m);
  m.has_ir_version = 1, m.ir_version = 8, m.graph = graph_proto(g), m.opset_import = osp, m.n_opset_import = 1;
  *len = onnx__model_proto__get_packed_size(&m);
  uint8_t *buf = tnew(*len);
  onnx__model_proto__pack(&m, buf);
  return buf;
}

static Onnx__TensorProto *init_i64(const char *name, const int64_t *v, int n, bool scalar) {
  Init *in = tnew(sizeof *in);
  *in = (Init){name, scalar ? 0 : 1, {n}, v, (size_t)n * sizeof *v, ONNX__TENSOR_PROTO__DATA_TYPE__INT64};
  Onnx__TensorProto *t = tensor(in);
  return own(t);
}

/* imported with opt, compiled, built into tmpdir/stem and loaded; NULL and
 * the message in err (when given) on failure */
static MlcrtModel *build(const uint8_t *buf, size_t len, const MlcOnnxOptions *opt, const char *stem, char *err, size_t cap) {
  MlcCtx *ctx = mlc_ctx_new();
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/%s", tmpdir, stem);
  MlcModule *m = mlc_onnx_import(ctx, "model.onnx", buf, len, ".", opt);
  if (m) m = mlc_graph_pipeline(ctx, m, NULL, MLC_PASS_COUNT - 1, NULL, NULL, NULL, NULL);
  bool built = m && mlc_build_model(ctx, m, dir, NULL, NULL);
  if (!built && err) snprintf(err, cap, "%s", mlc_error_msg(ctx));
  else if (!built) bu_print_error(ctx, stem);
  MlcrtModel *rm = NULL;
  if (built && mlcrt_model_load(dir, &rm) != 0) printf("    load: %s\n", mlcrt_last_error()), rm = NULL;
  mlc_ctx_free(ctx);
  return rm;
}

static DLTensor f32(float *data, int64_t *shape, int nd) {
  return (DLTensor){.data = data, .device = {kDLCPU, 0}, .ndim = nd, .dtype = {kDLFloat, 32, 1}, .shape = shape};
}

static bool same_f32(const DLTensor *t, const float *want, int64_t n) {
  int64_t numel = 1;
  for (int d = 0; d < t->ndim; d++) numel *= t->shape[d];
  if (numel != n || t->dtype.code != kDLFloat || t->dtype.bits != 32) return false;
  for (int64_t i = 0; i < n; i++)
    if (fabsf(((const float *)t->data)[i] - want[i]) > 1e-6f) return false;
  return true;
}

/* ---- sequence edits with positions known at import ---------------------------------- */

/* x [3,2] -> SplitToSequence(split [2,1]) -> Erase(-2) -> Insert(x, 0) -> s
 * (outputs s[0], s[1]), Length(s), At(s, 1), ConcatFromSequence(s, axis 0)
 * and ConcatFromSequence(s[1..], new_axis) */
static void test_edits(void) {
  static const char *sp_in[] = {"x", "split"}, *sp_out[] = {"parts"}, *er_in[] = {"parts", "m2"}, *er_out[] = {"rest"},
                    *ins_in[] = {"rest", "x", "zero"}, *ins_out[] = {"s"}, *len_in[] = {"s"}, *len_out[] = {"n"},
                    *at_in[] = {"s", "one"}, *at_out[] = {"at1"}, *cat_in[] = {"s"}, *cat_out[] = {"cat"},
                    *st_in[] = {"rest"}, *st_out[] = {"stacked"};
  static const int64_t split[2] = {2, 1}, m2 = -2, zero = 0, one = 1, xd[2] = {3, 2};
  Graph g = {0};
  g.nodes[g.n_nodes++] = node("SplitToSequence", "split", sp_in, 2, sp_out, 1);
  g.nodes[g.n_nodes++] = node("SequenceErase", "erase", er_in, 2, er_out, 1);
  g.nodes[g.n_nodes++] = node("SequenceInsert", "insert", ins_in, 3, ins_out, 1);
  g.nodes[g.n_nodes++] = node("SequenceLength", "length", len_in, 1, len_out, 1);
  g.nodes[g.n_nodes++] = node("SequenceAt", "at", at_in, 2, at_out, 1);
  g.nodes[g.n_nodes] = node("ConcatFromSequence", "cat", cat_in, 1, cat_out, 1);
  node_attr(g.nodes[g.n_nodes++], int_attr("axis", 0));
  g.nodes[g.n_nodes] = node("ConcatFromSequence", "stack", st_in, 1, st_out, 1);
  node_attr(g.nodes[g.n_nodes], int_attr("axis", -1));
  node_attr(g.nodes[g.n_nodes++], int_attr("new_axis", 1));
  g.ins[g.n_ins++] = vinfo("x", tensor_type(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, xd, 2));
  Onnx__TypeProto *elem = tensor_type(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, NULL, -1);
  const char *outs[] = {"s", "n", "at1", "cat", "stacked"};
  for (int i = 0; i < 5; i++) g.outs[g.n_outs++] = vinfo(outs[i], i == 0 ? seq_type(elem) : NULL);
  g.inits[g.n_inits++] = init_i64("split", split, 2, false);
  g.inits[g.n_inits++] = init_i64("m2", &m2, 1, true);
  g.inits[g.n_inits++] = init_i64("zero", &zero, 1, true);
  g.inits[g.n_inits++] = init_i64("one", &one, 1, true);
  size_t len;
  uint8_t *buf = pack_model(&g, 17, &len);
  MlcrtModel *rm = build(buf, len, NULL, "edits", NULL, 0);
  CHECK(rm != NULL);
  if (!rm) return;
  /* plain C: parts = {x[0:2], x[2:3]}, rest = {x[2:3]}, s = {x, x[2:3]} */
  float x[6] = {1, 2, 3, 4, 5, 6}, last[2] = {x[4], x[5]}, cat[8], stacked[2] = {x[4], x[5]};
  for (int i = 0; i < 6; i++) cat[i] = x[i];
  cat[6] = x[4], cat[7] = x[5];
  int64_t xs[2] = {3, 2};
  DLTensor xt = f32(x, xs, 2), *in[1] = {&xt}, *out[6] = {NULL};
  const MlcrtModelDesc *d = mlcrt_model_desc(rm);
  CHECK(d->n_outputs == 6);
  if (d->n_outputs == 6) {
    const char *names[6] = {"s[0]", "s[1]", "n", "at1", "cat", "stacked"};
    for (int i = 0; i < 6; i++) CHECK_STR(d->outputs[i].name, names[i]);
  }
  int rc = mlcrt_model_run(rm, in, 1, out, 6);
  if (rc) printf("    run: %s\n", mlcrt_last_error());
  CHECK(rc == 0);
  if (rc == 0) {
    CHECK(same_f32(out[0], x, 6) && out[0]->ndim == 2 && out[0]->shape[0] == 3);
    CHECK(same_f32(out[1], last, 2) && out[1]->ndim == 2 && out[1]->shape[0] == 1);
    CHECK(out[2]->ndim == 0 && out[2]->dtype.code == kDLInt && *(const int64_t *)out[2]->data == 2);
    CHECK(same_f32(out[3], last, 2));
    CHECK(same_f32(out[4], cat, 8) && out[4]->shape[0] == 4 && out[4]->shape[1] == 2);
    CHECK(same_f32(out[5], stacked, 2) && out[5]->ndim == 3 && out[5]->shape[2] == 1);
  }
  mlcrt_model_free(rm);
}

/* ---- a sequence input through SequenceMap ------------------------------------------ */

static uint8_t *map_model(size_t *len) {
  static const char *mul_in[] = {"a", "b"}, *mul_out[] = {"p"}, *map_in[] = {"xs", "w"}, *map_out[] = {"ys"},
                    *cat_in[] = {"ys"}, *cat_out[] = {"cat"};
  static const int64_t nd[1] = {-1};
  Graph body = {0};
  body.nodes[body.n_nodes++] = node("Mul", "mul", mul_in, 2, mul_out, 1);
  body.ins[body.n_ins++] = vinfo("a", tensor_type(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, nd, 1));
  body.ins[body.n_ins++] = vinfo("b", tensor_type(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, NULL, 0));
  body.outs[body.n_outs++] = vinfo("p", NULL);
  Onnx__AttributeProto *ba = tnew(sizeof *ba);
  onnx__attribute_proto__init(ba);
  ba->name = "body", ba->has_type = 1, ba->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH, ba->g = graph_proto(&body);
  Graph g = {0};
  g.nodes[g.n_nodes++] = node("SequenceMap", "map", map_in, 2, map_out, 1);
  g.nodes[0]->attribute = tnew(sizeof *g.nodes[0]->attribute), g.nodes[0]->attribute[0] = ba, g.nodes[0]->n_attribute = 1;
  g.nodes[g.n_nodes] = node("ConcatFromSequence", "cat", cat_in, 1, cat_out, 1);
  node_attr(g.nodes[g.n_nodes++], int_attr("axis", 0));
  g.ins[g.n_ins++] = vinfo("xs", seq_type(tensor_type(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, nd, 1)));
  g.ins[g.n_ins++] = vinfo("w", tensor_type(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, NULL, 0));
  g.outs[g.n_outs++] = vinfo("ys", seq_type(tensor_type(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, nd, 1)));
  g.outs[g.n_outs++] = vinfo("cat", NULL);
  return pack_model(&g, 17, len);
}

static void test_map_over_input(void) {
  size_t len;
  uint8_t *buf = map_model(&len);
  MlcOnnxInputSeq seq = {"xs", 2, false};
  MlcOnnxInputShape shapes[2] = {{"xs[0]", 1, {3}}, {"xs[1]", 1, {2}}};
  MlcOnnxOptions opt = {.seqs = &seq, .n_seqs = 1, .shapes = shapes, .n_shapes = 2};
  MlcrtModel *rm = build(buf, len, &opt, "map", NULL, 0);
  CHECK(rm != NULL);
  if (!rm) return;
  float x0[3] = {1, 2, 3}, x1[2] = {4, 5}, w = 3, y0[3], y1[2], cat[5];
  for (int i = 0; i < 3; i++) cat[i] = y0[i] = x0[i] * w;
  for (int i = 0; i < 2; i++) cat[3 + i] = y1[i] = x1[i] * w;
  int64_t s0[1] = {3}, s1[1] = {2};
  DLTensor a = f32(x0, s0, 1), b = f32(x1, s1, 1), c = f32(&w, NULL, 0), *in[3] = {&a, &b, &c}, *out[3] = {NULL};
  const MlcrtModelDesc *d = mlcrt_model_desc(rm);
  CHECK(d->n_inputs == 3 && d->n_outputs == 3);
  if (d->n_inputs == 3) CHECK_STR(d->inputs[1].name, "xs[1]");
  int rc = mlcrt_model_run(rm, in, 3, out, 3);
  if (rc) printf("    run: %s\n", mlcrt_last_error());
  CHECK(rc == 0);
  if (rc == 0) CHECK(same_f32(out[0], y0, 3) && same_f32(out[1], y1, 2) && same_f32(out[2], cat, 5));
  mlcrt_model_free(rm);
}

/* ---- refusals ------------------------------------------------------------------------ */

static void expect_refusal(const uint8_t *buf, size_t len, const MlcOnnxOptions *opt, const char *stem, const char *what,
                           const char *where) {
  char err[2048] = "";
  MlcrtModel *rm = build(buf, len, opt, stem, err, sizeof err);
  CHECK(rm == NULL);
  if (rm) mlcrt_model_free(rm);
  if (!strstr(err, what) || !strstr(err, where)) printf("    %s: the message was: %s\n", stem, err);
  CHECK(strstr(err, what) != NULL);
  CHECK(strstr(err, where) != NULL);
}

static void test_refusals(void) {
  size_t len;
  uint8_t *buf = map_model(&len);
  /* a sequence input's length is known only when the model runs */
  expect_refusal(buf, len, NULL, "nolen", "not supported", "input 'xs'");
  /* SequenceAt at a position the model reads at run time */
  static const char *c_in[] = {"x", "x"}, *c_out[] = {"s"}, *at_in[] = {"s", "pos"}, *at_out[] = {"y"};
  static const int64_t xd[1] = {2};
  Graph g = {0};
  g.nodes[g.n_nodes++] = node("SequenceConstruct", "construct", c_in, 2, c_out, 1);
  g.nodes[g.n_nodes++] = node("SequenceAt", "at_runtime", at_in, 2, at_out, 1);
  g.ins[g.n_ins++] = vinfo("x", tensor_type(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, xd, 1));
  g.ins[g.n_ins++] = vinfo("pos", tensor_type(ONNX__TENSOR_PROTO__DATA_TYPE__INT64, NULL, 0));
  g.outs[g.n_outs++] = vinfo("y", NULL);
  buf = pack_model(&g, 11, &len);
  expect_refusal(buf, len, NULL, "atpos", "not supported", "node 'at_runtime' (SequenceAt");
  /* a position out of range is the model's error */
  static const int64_t five = 5;
  g.ins[1] = NULL, g.n_ins = 1;
  g.inits[g.n_inits++] = init_i64("pos", &five, 1, true);
  buf = pack_model(&g, 11, &len);
  expect_refusal(buf, len, NULL, "atrange", "position 5 is out of range [-2, 1]", "node 'at_runtime'");
  /* a sequence, or an absent optional, where ops expect a tensor */
  static const char *ops[] = {"Add", "Relu", "Concat", "Transpose", "Reshape", "Gather", "Where", "MatMul", "Shape",
                              "ReduceSum", "Cast", "Split", "If", "Scan", "Expand", "Slice"};
  static const int arity[] = {2, 1, 2, 1, 2, 2, 3, 2, 1, 1, 1, 1, 1, 2, 2, 3};
  static const char *none_out[] = {"s"}, *use_in[] = {"s", "x", "x"}, *use_out[] = {"y"};
  for (int absent = 0; absent < 2; absent++)
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
      Graph u = {0};
      u.nodes[u.n_nodes++] = absent ? node("Optional", "none", NULL, 0, none_out, 1)
                                    : node("SequenceConstruct", "construct", c_in, 2, c_out, 1);
      u.nodes[u.n_nodes++] = node(ops[i], "use", use_in, arity[i], use_out, 1);
      u.ins[u.n_ins++] = vinfo("x", tensor_type(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, xd, 1));
      u.outs[u.n_outs++] = vinfo("y", NULL);
      buf = pack_model(&u, 18, &len);
      char err[2048] = "";
      MlcrtModel *rm = build(buf, len, NULL, "misuse", err, sizeof err);
      CHECK(rm == NULL);
      if (rm) mlcrt_model_free(rm);
      const char *want = absent ? "input 0 is an optional without a value" : "input 0 is a sequence";
      if (!strstr(err, "node 'use'") || !strstr(err, want)) printf("    %s: %s\n", ops[i], err);
      CHECK(strstr(err, "node 'use'") != NULL && strstr(err, want) != NULL);
    }
}

/* ---- optionals -------------------------------------------------------------------------- */

static void test_optionals(void) {
  static const char *none_out[] = {"none"}, *has_in[] = {"none"}, *has_out[] = {"has"}, *some_in[] = {"x"},
                    *some_out[] = {"some"}, *has2_in[] = {"some"}, *has2_out[] = {"has2"}, *get_in[] = {"some"},
                    *get_out[] = {"y"};
  static const int64_t xd[1] = {2};
  Graph g = {0};
  g.nodes[g.n_nodes++] = node("Optional", "empty", NULL, 0, none_out, 1);
  g.nodes[g.n_nodes++] = node("OptionalHasElement", "has_none", has_in, 1, has_out, 1);
  g.nodes[g.n_nodes++] = node("Optional", "wrap", some_in, 1, some_out, 1);
  g.nodes[g.n_nodes++] = node("OptionalHasElement", "has_some", has2_in, 1, has2_out, 1);
  g.nodes[g.n_nodes++] = node("OptionalGetElement", "get", get_in, 1, get_out, 1);
  g.ins[g.n_ins++] = vinfo("x", tensor_type(ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, xd, 1));
  const char *outs[] = {"has", "has2", "y", "none"};
  for (int i = 0; i < 4; i++) g.outs[g.n_outs++] = vinfo(outs[i], NULL);
  size_t len;
  uint8_t *buf = pack_model(&g, 18, &len);
  MlcrtModel *rm = build(buf, len, NULL, "opt", NULL, 0);
  CHECK(rm != NULL);
  if (!rm) return;
  float x[2] = {7, -1};
  int64_t xs[1] = {2};
  DLTensor xt = f32(x, xs, 1), *in[1] = {&xt}, *out[3] = {NULL};
  /* the absent optional output holds no tensor */
  CHECK(mlcrt_model_desc(rm)->n_outputs == 3);
  int rc = mlcrt_model_run(rm, in, 1, out, 3);
  CHECK(rc == 0);
  if (rc == 0) {
    CHECK(out[0]->dtype.code == kDLBool && *(const uint8_t *)out[0]->data == 0);
    CHECK(out[1]->dtype.code == kDLBool && *(const uint8_t *)out[1]->data == 1);
    CHECK(same_f32(out[2], x, 2));
  }
  mlcrt_model_free(rm);
  /* the value of an absent optional */
  g.nodes[4]->input = (char **)has_in;
  buf = pack_model(&g, 18, &len);
  expect_refusal(buf, len, NULL, "getnone", "holds no value", "node 'get' (OptionalGetElement");
}

/* ---- the conformance data's SequenceProto and OptionalProto ----------------------------- */

static size_t put_len_field(uint8_t *out, int field, const uint8_t *data, size_t len) {
  size_t k = 0;
  out[k++] = (uint8_t)(field << 3 | 2);
  for (size_t v = len;; v >>= 7) {
    out[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    if (v <= 0x7f) break;
  }
  memcpy(out + k, data, len);
  return k + len;
}

static bool write_file(const char *path, const uint8_t *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, len, f) == len;
  return fclose(f) == 0 && ok;
}

static void test_read_values(void) {
  float a[3] = {1, 2, 3}, b[1] = {4};
  Init ia = {"a", 1, {3}, a, sizeof a, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT};
  Init ib = {"b", 1, {1}, b, sizeof b, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT};
  Onnx__TensorProto *ta = tensor(&ia), *tb = tensor(&ib);
  uint8_t pa[64], pb[64], seq[256], opt[300];
  size_t la = onnx__tensor_proto__pack(ta, pa), lb = onnx__tensor_proto__pack(tb, pb), ls = 0;
  free(ta), free(tb);
  seq[ls++] = 2 << 3, seq[ls++] = 1; /* elem_type TENSOR */
  ls += put_len_field(seq + ls, 3, pa, la);
  ls += put_len_field(seq + ls, 3, pb, lb);
  char path[4200];
  snprintf(path, sizeof path, "%s/seq.pb", tmpdir);
  MlcCtx *ctx = mlc_ctx_new();
  CHECK(write_file(path, seq, ls));
  MlcOnnxValue *v = mlc_onnx_read_value_file(ctx, path, MLC_ONNX_SEQUENCE);
  CHECK(v && v->seq && !v->absent && v->n == 2);
  if (v && v->n == 2) {
    CHECK(v->tensors[0]->ndim == 1 && v->tensors[0]->shape[0] == 3 && ((float *)v->tensors[0]->data)[2] == 3);
    CHECK(v->tensors[1]->shape[0] == 1 && ((float *)v->tensors[1]->data)[0] == 4);
  }
  /* an optional holding that sequence, and an empty one */
  size_t lo = put_len_field(opt, 5, seq, ls);
  CHECK(write_file(path, opt, lo));
  v = mlc_onnx_read_value_file(ctx, path, MLC_ONNX_OPTIONAL);
  CHECK(v && v->seq && !v->absent && v->n == 2);
  opt[0] = 2 << 3, opt[1] = 1;
  CHECK(write_file(path, opt, 2));
  v = mlc_onnx_read_value_file(ctx, path, MLC_ONNX_OPTIONAL);
  CHECK(v && v->absent && v->n == 0);
  CHECK(write_file(path, opt, 0)); /* no fields at all */
  v = mlc_onnx_read_value_file(ctx, path, MLC_ONNX_OPTIONAL);
  CHECK(v && v->absent && v->n == 0);
  /* a plain tensor */
  CHECK(write_file(path, pb, lb));
  v = mlc_onnx_read_value_file(ctx, path, MLC_ONNX_TENSOR);
  CHECK(v && !v->seq && !v->absent && v->n == 1 && ((float *)v->tensors[0]->data)[0] == 4);
  /* cut short: an error, no crash */
  CHECK(write_file(path, seq, ls - 3));
  CHECK(mlc_onnx_read_value_file(ctx, path, MLC_ONNX_SEQUENCE) == NULL);
  CHECK(strstr(mlc_error_msg(ctx), "seq.pb") != NULL);
  mlc_clear_error(ctx);
  /* a sequence of maps is refused as not supported */
  uint8_t maps[4] = {6 << 3 | 2, 0};
  CHECK(write_file(path, maps, 2));
  CHECK(mlc_onnx_read_value_file(ctx, path, MLC_ONNX_SEQUENCE) == NULL);
  CHECK(strstr(mlc_error_msg(ctx), "not supported") != NULL);
  unlink(path);
  mlc_ctx_free(ctx);
}

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-seq")) {
    printf("FAIL setup: cannot create a temporary directory\n");
    return 1;
  }
  RUN(test_edits);
  RUN(test_map_over_input);
  RUN(test_refusals);
  RUN(test_optionals);
  RUN(test_read_values);
  free_owned();
  const char *stems[] = {"edits", "map", "opt"};
  char dir[4200];
  for (int i = 0; i < 3; i++) snprintf(dir, sizeof dir, "%s/%s", tmpdir, stems[i]), bu_remove_dir(dir);
  bu_remove_dir(tmpdir);
  return CHECK_DONE();
}
