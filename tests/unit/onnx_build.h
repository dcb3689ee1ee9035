/* onnx_build.h - what the tests that build small ONNX models with the
 * generated protobuf-c structures share (test_onnx_rnn.c,
 * test_onnx_contrib.c, test_onnx_control.c): initializers from raw data, attributes, typed graph
 * values, and one-node models packed and run through the importer, the
 * graph pipeline, the build and the runtime.
 *
 * Header-only (static functions), like build_util.h. */
#ifndef MLCC_TEST_ONNX_BUILD_H
#define MLCC_TEST_ONNX_BUILD_H

#include <stdlib.h>
#include <string.h>

#include "build_util.h"
#include "mlcc/frontend.h"
#include "mlcc/schedule.h"
#include "mlcc/transform.h"
#include "onnx.pb-c.h"

/* an initializer: name, dims, raw data of ONNX element type `type` */
typedef struct Init { const char *name; int ndim; int64_t dims[4]; const void *data; size_t nbytes; int type; } Init;

static inline Onnx__TensorProto *tensor(const Init *in) {
  Onnx__TensorProto *t = calloc(1, sizeof *t);
  onnx__tensor_proto__init(t);
  t->name = (char *)in->name;
  t->n_dims = (size_t)in->ndim;
  t->dims = (int64_t *)in->dims;
  t->has_data_type = 1, t->data_type = in->type;
  t->has_raw_data = 1, t->raw_data.len = in->nbytes, t->raw_data.data = (uint8_t *)in->data;
  return t;
}

static inline Onnx__AttributeProto *int_attr(const char *name, int64_t v) {
  Onnx__AttributeProto *a = calloc(1, sizeof *a);
  onnx__attribute_proto__init(a);
  a->name = (char *)name;
  a->has_type = 1, a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  a->has_i = 1, a->i = v;
  return a;
}

static inline Onnx__AttributeProto *float_attr(const char *name, float v) {
  Onnx__AttributeProto *a = int_attr(name, 0);
  a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
  a->has_i = 0, a->has_f = 1, a->f = v;
  return a;
}

static inline Onnx__AttributeProto *str_attr(const char *name, const char *v) {
  Onnx__AttributeProto *a = int_attr(name, 0);
  a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
  a->has_i = 0, a->has_s = 1, a->s.data = (uint8_t *)v, a->s.len = strlen(v);
  return a;
}

/* a graph value named name; typed float32 of dims when dims is given (a
 * negative dim left unknown) */
static inline Onnx__ValueInfoProto *value(const char *name, const int64_t *dims, int nd) {
  Onnx__ValueInfoProto *v = calloc(1, sizeof *v);
  onnx__value_info_proto__init(v);
  v->name = (char *)name;
  if (!dims) return v;
  Onnx__TypeProto *t = calloc(1, sizeof *t);
  Onnx__TypeProto__Tensor *tt = calloc(1, sizeof *tt);
  Onnx__TensorShapeProto *s = calloc(1, sizeof *s);
  Onnx__TensorShapeProto__Dimension **dp = calloc((size_t)nd, sizeof *dp);
  onnx__type_proto__init(t), onnx__type_proto__tensor__init(tt), onnx__tensor_shape_proto__init(s);
  for (int i = 0; i < nd; i++) {
    dp[i] = calloc(1, sizeof **dp);
    onnx__tensor_shape_proto__dimension__init(dp[i]);
    if (dims[i] < 0) continue; /* unknown: a size the model is given when it runs */
    dp[i]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    dp[i]->dim_value = dims[i];
  }
  s->n_dim = (size_t)nd, s->dim = dp;
  tt->has_elem_type = 1, tt->elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, tt->shape = s;
  t->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE, t->tensor_type = tt;
  v->type = t;
  return v;
}

static inline void free_value(Onnx__ValueInfoProto *v) {
  if (v->type) {
    Onnx__TensorShapeProto *s = v->type->tensor_type->shape;
    for (size_t i = 0; i < s->n_dim; i++) free(s->dim[i]);
    free(s->dim), free(s), free(v->type->tensor_type), free(v->type);
  }
  free(v);
}

/* one node (op in domain, inputs, outputs, attributes) over graph inputs
 * ins[0..n_gin) (or gins[0..n_gin)) of dims in_dims (float32, or, with
 * pack_one_node_typed, the ONNX element types given), the other inputs
 * initializers;
 * the model packed (free it) */
typedef struct OneNode {
  const char *op, *domain;
  int opset;                        /* of the default domain */
  char **ins; int n_in;
  char **outs; int n_out;
  Onnx__AttributeProto **attrs; int n_attrs;
  int n_gin;                        /* graph inputs: the first n_gin of ins */
  const int64_t (*in_dims)[4]; const int *in_rank;
  const Init *inits; int n_inits;
  char **gins;                      /* the graph inputs' names when not ins[0..n_gin) */
} OneNode;

/* in_elem: the graph inputs' ONNX element types (NULL: all float32) */
static inline uint8_t *pack_one_node_typed(const OneNode *o, const int *in_elem, size_t *len) {
  Onnx__TensorProto **tps = calloc((size_t)o->n_inits + 1, sizeof *tps);
  for (int i = 0; i < o->n_inits; i++) tps[i] = tensor(&o->inits[i]);
  Onnx__NodeProto node;
  onnx__node_proto__init(&node);
  node.op_type = (char *)o->op, node.name = "node0", node.domain = (char *)(o->domain ? o->domain : "");
  node.input = o->ins, node.n_input = (size_t)o->n_in, node.output = o->outs, node.n_output = (size_t)o->n_out;
  node.attribute = o->attrs, node.n_attribute = (size_t)o->n_attrs;
  Onnx__NodeProto *nodes[1] = {&node};
  Onnx__ValueInfoProto **gin = calloc((size_t)o->n_gin + 1, sizeof *gin), **gout = calloc((size_t)o->n_out + 1, sizeof *gout);
  for (int i = 0; i < o->n_gin; i++) {
    gin[i] = value(o->gins ? o->gins[i] : o->ins[i], o->in_dims[i], o->in_rank[i]);
    if (in_elem) gin[i]->type->tensor_type->elem_type = in_elem[i];
  }
  int n_gout = 0; /* the node's outputs that are named */
  for (int i = 0; i < o->n_out; i++)
    if (*o->outs[i]) gout[n_gout++] = value(o->outs[i], NULL, 0);
  Onnx__GraphProto g;
  onnx__graph_proto__init(&g);
  g.name = "g", g.node = nodes, g.n_node = 1, g.input = gin, g.n_input = (size_t)o->n_gin;
  g.output = gout, g.n_output = (size_t)n_gout, g.initializer = tps, g.n_initializer = (size_t)o->n_inits;
  Onnx__OperatorSetIdProto os[2], *osp[2] = {&os[0], &os[1]};
  onnx__operator_set_id_proto__init(&os[0]);
  onnx__operator_set_id_proto__init(&os[1]);
  os[0].domain = "", os[0].has_version = 1, os[0].version = o->opset;
  os[1].domain = "com.microsoft", os[1].has_version = 1, os[1].version = 1;
  Onnx__ModelProto m;
  onnx__model_proto__init(&m);
  m.has_ir_version = 1, m.ir_version = 7, m.graph = &g, m.opset_import = osp, m.n_opset_import = 2;
  *len = onnx__model_proto__get_packed_size(&m);
  uint8_t *buf = malloc(*len);
  onnx__model_proto__pack(&m, buf);
  for (int i = 0; i < o->n_inits; i++) free(tps[i]);
  for (int i = 0; i < o->n_gin; i++) free_value(gin[i]);
  for (int i = 0; i < n_gout; i++) free_value(gout[i]);
  free(tps), free(gin), free(gout);
  return buf;
}

static inline uint8_t *pack_one_node(const OneNode *o, size_t *len) { return pack_one_node_typed(o, NULL, len); }

/* the packed model imported, compiled for target t (NULL: no default
 * schedules) and built into dir and loaded; NULL (the reason printed) when
 * a stage fails */
static inline MlcrtModel *onnx_build_load_for(const uint8_t *buf, size_t len, const char *dir, const MlcSchTarget *t) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_onnx_import(ctx, "model.onnx", buf, len, ".", NULL);
  if (m) m = mlc_graph_pipeline(ctx, m, t, MLC_PASS_COUNT - 1, NULL, NULL, NULL, NULL);
  bool built = m && mlc_build_model(ctx, m, dir, NULL, NULL);
  if (!built) bu_print_error(ctx, "import and build");
  MlcrtModel *rm = NULL;
  if (built && mlcrt_model_load(dir, &rm) != 0) printf("    load: %s\n", mlcrt_last_error()), rm = NULL;
  mlc_ctx_free(ctx);
  return rm;
}

static inline MlcrtModel *onnx_build_load(const uint8_t *buf, size_t len, const char *dir) {
  return onnx_build_load_for(buf, len, dir, NULL);
}

/* with the default schedules for the machine (or $MLC_MARCH): what `mlcc compile` does */
static inline MlcrtModel *onnx_build_load_host(const uint8_t *buf, size_t len, const char *dir) {
  MlcSchTarget t;
  mlc_sch_target_host(&t);
  return onnx_build_load_for(buf, len, dir, &t);
}

#endif
