/* test_onnx_nesting.c - models whose messages nest thousands deep (If within
 * If, sequence of sequence of ...) must be refused before the recursive
 * protobuf decoder sees them.  The models are written here byte by byte in
 * the wire format (10,000 levels deep), never kept as files. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "frontend/onnx_internal.h"
#include "mlcc/frontend.h"

/* ---- the wire format, written by hand ----------------------------------------- */

static size_t varint_len(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, n++;
  return n;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v) {
  while (v >= 0x80) *p++ = (uint8_t)(v | 0x80), v >>= 7;
  *p++ = (uint8_t)v;
  return p;
}

/* `levels` messages, each a length-delimited field of the one around it:
 * head[0..n_head) outermost, then loop[] repeated; the innermost holds
 * `inner`.  Returns malloc'd bytes. */
typedef struct Path {
  const unsigned *head, *loop;
  int n_head, n_loop;
} Path;

static unsigned field_at(const Path *p, int i) {
  return i < p->n_head ? p->head[i] : p->loop[(i - p->n_head) % p->n_loop];
}

static uint8_t *nest(const Path *path, int levels, size_t *len) {
  size_t *size = malloc(((size_t)levels + 1) * sizeof *size); /* size[i]: bytes of level i's content */
  size[levels] = 0;
  for (int i = levels - 1; i >= 0; i--)
    size[i] = varint_len((uint64_t)field_at(path, i) << 3 | 2) + varint_len(size[i + 1]) + size[i + 1];
  uint8_t *buf = malloc(size[0] ? size[0] : 1), *p = buf;
  for (int i = 0; i < levels; i++) {
    p = put_varint(p, (uint64_t)field_at(path, i) << 3 | 2);
    p = put_varint(p, size[i + 1]);
  }
  *len = size[0];
  free(size);
  return buf;
}

/* ModelProto.graph, then (GraphProto.node, NodeProto.attribute,
 * AttributeProto.g) repeated: If nodes within If nodes */
static const unsigned if_head[] = {7}, if_loop[] = {1, 5, 6};
static const Path if_path = {if_head, if_loop, 1, 3};
/* ModelProto.graph, GraphProto.input, ValueInfoProto.type, then
 * (TypeProto.sequence_type, Sequence.elem_type) repeated */
static const unsigned seq_head[] = {7, 11, 2}, seq_loop[] = {4, 1};
static const Path seq_path = {seq_head, seq_loop, 3, 2};

static uint8_t *nested_types(int pairs, size_t *len) { return nest(&seq_path, 3 + 2 * pairs, len); }

static const char *import_msg(MlcCtx *ctx, const uint8_t *buf, size_t len) {
  MlcModule *m = mlc_onnx_import(ctx, "deep.onnx", buf, len, NULL, NULL);
  return m ? NULL : mlc_error_msg(ctx);
}

/* ---- tests ------------------------------------------------------------------- */

static void test_ten_thousand_nested_ifs(void) {
  size_t len;
  uint8_t *buf = nest(&if_path, 1 + 3 * 10000, &len);
  MlcCtx *ctx = mlc_ctx_new();
  const char *msg = import_msg(ctx, buf, len);
  CHECK(msg && strstr(msg, "nest more than 100 levels"));
  mlc_ctx_free(ctx);
  free(buf);
}

static void test_ten_thousand_nested_type_protos(void) {
  size_t len;
  uint8_t *buf = nested_types(10000, &len);
  MlcCtx *ctx = mlc_ctx_new();
  const char *msg = import_msg(ctx, buf, len);
  CHECK(msg && strstr(msg, "nest more than 100 levels"));
  mlc_ctx_free(ctx);
  free(buf);
}

/* nesting within the bound reaches the decoder and the importer, which
 * judge the model on its merits */
static void test_shallow_nesting_is_decoded(void) {
  size_t len;
  uint8_t *buf = nested_types(10, &len);
  MlcCtx *ctx = mlc_ctx_new();
  const char *msg = import_msg(ctx, buf, len);
  CHECK(msg && !strstr(msg, "levels"));
  CHECK(msg && !strstr(msg, "does not decode"));
  mlc_ctx_free(ctx);
  free(buf);
}

/* the scan's bound is exact: max_depth levels pass, one more does not */
static void test_scan_bound_is_exact(void) {
  for (int levels = 1; levels <= 40; levels++) {
    size_t len;
    uint8_t *buf = nest(&if_path, levels, &len);
    const ProtobufCMessageDescriptor *d = &onnx__model_proto__descriptor;
    CHECK(mlc_onnx__wire_depth(buf, len, d, levels) == MLC_ONNX_WIRE_OK);
    CHECK(mlc_onnx__wire_depth(buf, len, d, levels - 1) == MLC_ONNX_WIRE_TOO_DEEP);
    free(buf);
  }
}

/* a real model (packed by protobuf-c) scans clean; cut or damaged bytes are
 * malformed, not "deep" */
static void test_scan_of_packed_and_damaged_models(void) {
  Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
  Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
  Onnx__NodeProto node = ONNX__NODE_PROTO__INIT, *nodes[1] = {&node};
  Onnx__AttributeProto attr = ONNX__ATTRIBUTE_PROTO__INIT, *attrs[1] = {&attr};
  Onnx__GraphProto sub = ONNX__GRAPH_PROTO__INIT;
  char *ins[1] = {"c"}, *outs[1] = {"y"};
  node.op_type = "If";
  node.n_input = 1, node.input = ins;
  node.n_output = 1, node.output = outs;
  attr.name = "then_branch";
  attr.has_type = 1, attr.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
  attr.g = &sub;
  sub.name = "then";
  node.n_attribute = 1, node.attribute = attrs;
  g.n_node = 1, g.node = nodes;
  g.name = "g";
  m.graph = &g;
  m.producer_name = "test";
  size_t len = onnx__model_proto__get_packed_size(&m);
  uint8_t *buf = malloc(len);
  onnx__model_proto__pack(&m, buf);
  const ProtobufCMessageDescriptor *d = &onnx__model_proto__descriptor;
  CHECK(mlc_onnx__wire_depth(buf, len, d, 100) == MLC_ONNX_WIRE_OK);
  CHECK(mlc_onnx__wire_depth(buf, len, d, 4) == MLC_ONNX_WIRE_OK);  /* model, graph, node, attr, sub */
  CHECK(mlc_onnx__wire_depth(buf, len, d, 3) == MLC_ONNX_WIRE_TOO_DEEP);
  for (size_t cut = 1; cut < len; cut++) { /* every prefix ends inside some field */
    MlcOnnxWire w = mlc_onnx__wire_depth(buf, cut, d, 100);
    CHECK(w == MLC_ONNX_WIRE_MALFORMED || w == MLC_ONNX_WIRE_OK);
  }
  CHECK(mlc_onnx__wire_depth(buf, len - 1, d, 100) == MLC_ONNX_WIRE_MALFORMED);
  uint8_t group[2] = {(7 << 3) | 3, 0}; /* a group start: not accepted */
  CHECK(mlc_onnx__wire_depth(group, 2, d, 100) == MLC_ONNX_WIRE_MALFORMED);
  uint8_t long_varint[12] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  CHECK(mlc_onnx__wire_depth(long_varint, 12, d, 100) == MLC_ONNX_WIRE_MALFORMED);
  uint8_t too_long[3] = {(7 << 3) | 2, 0x7f, 0}; /* a length past the end */
  CHECK(mlc_onnx__wire_depth(too_long, 3, d, 100) == MLC_ONNX_WIRE_MALFORMED);
  free(buf);
}

int main(void) {
  RUN(test_ten_thousand_nested_ifs);
  RUN(test_ten_thousand_nested_type_protos);
  RUN(test_shallow_nesting_is_decoded);
  RUN(test_scan_bound_is_exact);
  RUN(test_scan_of_packed_and_damaged_models);
  return CHECK_DONE();
}
