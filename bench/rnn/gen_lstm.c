/* gen_lstm.c - writes the ONNX model the recurrent-layer benchmark compiles:
 * one LSTM layer (forward, biases, hidden size H, input size I, batch B)
 * over STEPS steps, seeded random weights in [-0.1, 0.1].  Written with the
 * protobuf-c code mlcc's importer reads models with, so it needs no Python.
 *
 * Usage: gen_lstm OUT.onnx STEPS H I B */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_build.h" /* value(): a typed graph value */

static uint64_t seed = 12345;
static float urand(void) { /* xorshift64*, mapped to [-0.1, 0.1] */
  seed ^= seed >> 12, seed ^= seed << 25, seed ^= seed >> 27;
  return (float)((seed * 2685821657736338717ULL) >> 40) / (float)(1 << 24) * 0.2f - 0.1f;
}

static Onnx__TensorProto *weight(const char *name, int64_t *dims, int nd) {
  Onnx__TensorProto *t = calloc(1, sizeof *t);
  onnx__tensor_proto__init(t);
  size_t n = 1;
  for (int i = 0; i < nd; i++) n *= (size_t)dims[i];
  float *v = malloc(n * sizeof *v);
  for (size_t i = 0; i < n; i++) v[i] = urand();
  t->name = (char *)name, t->n_dims = (size_t)nd, t->dims = dims;
  t->has_data_type = 1, t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  t->has_raw_data = 1, t->raw_data.len = n * sizeof *v, t->raw_data.data = (uint8_t *)v;
  return t;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: gen_lstm OUT.onnx STEPS H I B\n");
    return 2;
  }
  int64_t T = atoll(argv[2]), H = atoll(argv[3]), I = atoll(argv[4]), B = atoll(argv[5]);
  if (T < 1 || H < 1 || I < 1 || B < 1 || T > 1000000 || H > 4096 || I > 4096 || B > 4096) {
    fprintf(stderr, "gen_lstm: sizes out of range\n");
    return 2;
  }
  int64_t wd[3] = {1, 4 * H, I}, rd[3] = {1, 4 * H, H}, bd[2] = {1, 8 * H}, xd[3] = {T, B, I};
  Onnx__TensorProto *inits[3] = {weight("W", wd, 3), weight("R", rd, 3), weight("B", bd, 2)};
  Onnx__AttributeProto hs, *attrs[1] = {&hs};
  onnx__attribute_proto__init(&hs);
  hs.name = "hidden_size", hs.has_type = 1, hs.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, hs.has_i = 1, hs.i = H;
  char *ins[4] = {"X", "W", "R", "B"}, *outs[3] = {"Y", "Y_h", "Y_c"};
  Onnx__NodeProto node, *nodes[1] = {&node};
  onnx__node_proto__init(&node);
  node.op_type = "LSTM", node.name = "lstm", node.input = ins, node.n_input = 4, node.output = outs, node.n_output = 3;
  node.attribute = attrs, node.n_attribute = 1;
  Onnx__ValueInfoProto *gin[1] = {value("X", xd, 3)};
  Onnx__ValueInfoProto *gout[3] = {value("Y", NULL, 0), value("Y_h", NULL, 0), value("Y_c", NULL, 0)};
  Onnx__GraphProto g;
  onnx__graph_proto__init(&g);
  g.name = "lstm", g.node = nodes, g.n_node = 1, g.input = gin, g.n_input = 1, g.output = gout, g.n_output = 3;
  g.initializer = inits, g.n_initializer = 3;
  Onnx__OperatorSetIdProto os, *osp[1] = {&os};
  onnx__operator_set_id_proto__init(&os);
  os.domain = "", os.has_version = 1, os.version = 14;
  Onnx__ModelProto m;
  onnx__model_proto__init(&m);
  m.has_ir_version = 1, m.ir_version = 7, m.graph = &g, m.opset_import = osp, m.n_opset_import = 1;
  size_t len = onnx__model_proto__get_packed_size(&m);
  uint8_t *buf = malloc(len);
  onnx__model_proto__pack(&m, buf);
  FILE *f = fopen(argv[1], "wb");
  if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
    fprintf(stderr, "gen_lstm: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
