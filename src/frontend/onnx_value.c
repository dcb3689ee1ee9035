/* onnx_value.c - sequence and optional values as the conformance data holds
 * them (SequenceProto, OptionalProto), flattened to their tensors, and the
 * kinds of a model's graph inputs and outputs.
 *
 * The two messages live in onnx-data.proto, which the schema package does
 * not ship, so they are read here from the wire format directly: a few
 * fields, each a varint or a length-delimited payload; their tensors are
 * TensorProtos, decoded as every other.  Whatever holds a map, a sparse
 * tensor or a sequence of sequences is refused as not supported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

/* the element kinds of both messages (their DataType enums agree) */
enum { ELEM_UNDEFINED = 0, ELEM_TENSOR = 1, ELEM_SPARSE = 2, ELEM_SEQUENCE = 3, ELEM_MAP = 4, ELEM_OPTIONAL = 5 };

typedef struct Reader {
  const uint8_t *p, *end;
} Reader;

static bool varint(Reader *r, uint64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && r->p < r->end; shift += 7) {
    uint8_t b = *r->p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return *out = v, true;
  }
  return false;
}

/* the next field: its number, wire type, and (length-delimited) payload;
 * other wire types are skipped over, their payload left empty */
static bool field(Reader *r, uint32_t *num, int *wire, const uint8_t **data, size_t *len) {
  uint64_t key, v;
  if (!varint(r, &key) || (key >> 3) == 0 || (key >> 3) > UINT32_MAX) return false;
  *num = (uint32_t)(key >> 3), *wire = (int)(key & 7), *data = NULL, *len = 0;
  switch (*wire) {
  case 0: return varint(r, &v) && (*len = (size_t)v, true); /* the value, in len */
  case 1: if (r->end - r->p < 8) return false; r->p += 8; return true;
  case 5: if (r->end - r->p < 4) return false; r->p += 4; return true;
  case 2:
    if (!varint(r, &v) || v > (uint64_t)(r->end - r->p)) return false;
    *data = r->p, *len = (size_t)v, r->p += v;
    return true;
  default: return false;
  }
}

static bool push_tensor(MlcCtx *ctx, const char *where, MlcOnnxValue *v, const uint8_t *data, size_t len) {
  MlcOnnxTensor *t = mlc_onnx_decode_tensor(ctx, where, data, len, NULL);
  if (!t) return false;
  if (v->n >= (1 << 20)) return mlc_error(ctx, ctx->build_loc, "%s: more than %d tensors", where, 1 << 20);
  MlcTensorData **grown = mlc_arena_array(&ctx->arena, (size_t)v->n + 1, sizeof *grown);
  if (v->n) memcpy(grown, v->tensors, (size_t)v->n * sizeof *grown);
  grown[v->n++] = t->data;
  v->tensors = grown;
  return true;
}

static bool bad(MlcCtx *ctx, const char *where, const char *what) {
  return mlc_error(ctx, ctx->build_loc, "%s: %s", where, what);
}

/* a SequenceProto of tensors, its tensors appended to v */
static bool read_sequence(MlcCtx *ctx, const char *where, const uint8_t *buf, size_t len, MlcOnnxValue *v) {
  Reader r = {buf, buf + len};
  while (r.p < r.end) {
    uint32_t num;
    int wire;
    const uint8_t *data;
    size_t n;
    if (!field(&r, &num, &wire, &data, &n)) return bad(ctx, where, "not a valid SequenceProto");
    if (num == 2 && wire == 0 && n != ELEM_TENSOR && n != ELEM_UNDEFINED)
      return bad(ctx, where, "sequences of other than tensors are not supported");
    if (num == 3 && wire == 2 && !push_tensor(ctx, where, v, data, n)) return false;
    if (num >= 4 && num <= 7) return bad(ctx, where, "sequences of other than tensors are not supported");
  }
  v->seq = true;
  return true;
}

/* an OptionalProto of a tensor or a sequence of tensors */
static bool read_optional(MlcCtx *ctx, const char *where, const uint8_t *buf, size_t len, MlcOnnxValue *v) {
  Reader r = {buf, buf + len};
  v->absent = true;
  while (r.p < r.end) {
    uint32_t num;
    int wire;
    const uint8_t *data;
    size_t n;
    if (!field(&r, &num, &wire, &data, &n)) return bad(ctx, where, "not a valid OptionalProto");
    if (num == 3 && wire == 2) {
      if (!v->absent) return bad(ctx, where, "an optional holds two values");
      if (!push_tensor(ctx, where, v, data, n)) return false;
      v->absent = false;
    } else if (num == 5 && wire == 2) {
      if (!v->absent) return bad(ctx, where, "an optional holds two values");
      if (!read_sequence(ctx, where, data, n, v)) return false;
      v->absent = false;
    } else if (num == 4 || num == 6 || num == 7) {
      return bad(ctx, where, "optionals of other than a tensor or a sequence of tensors are not supported");
    }
  }
  return true;
}

MlcOnnxValue *mlc_onnx_decode_value(MlcCtx *ctx, const char *where, const void *buf, size_t len, MlcOnnxValueKind kind) {
  MlcOnnxValue *v = mlc_arena_alloc(&ctx->arena, sizeof *v);
  memset(v, 0, sizeof *v);
  v->kind = kind;
  const uint8_t *b = buf;
  bool ok = kind == MLC_ONNX_SEQUENCE ? read_sequence(ctx, where, b, len, v)
          : kind == MLC_ONNX_OPTIONAL ? read_optional(ctx, where, b, len, v)
                                      : push_tensor(ctx, where, v, b, len);
  return ok ? v : NULL;
}

MlcOnnxValue *mlc_onnx_read_value_file(MlcCtx *ctx, const char *path, MlcOnnxValueKind kind) {
  size_t len = 0;
  char *buf = mlc_read_file(ctx, path, MLC_ONNX_MAX_FILE, &len);
  if (!buf) return NULL;
  MlcOnnxValue *v = mlc_onnx_decode_value(ctx, path, buf, len, kind);
  free(buf);
  return v;
}

/* ---- the graph's inputs and outputs ------------------------------------------------- */

static MlcOnnxValueKind kind_of(const Onnx__TypeProto *t) {
  if (t && t->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE) return MLC_ONNX_SEQUENCE;
  if (t && t->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE) return MLC_ONNX_OPTIONAL;
  return MLC_ONNX_TENSOR;
}

static MlcOnnxIo *io_list(MlcCtx *ctx, Onnx__ValueInfoProto **vi, size_t n, const Onnx__GraphProto *g, int *count) {
  MlcOnnxIo *io = mlc_arena_array(&ctx->arena, n ? n : 1, sizeof *io);
  *count = 0;
  for (size_t i = 0; i < n; i++) {
    const char *name = vi[i]->name ? vi[i]->name : "";
    bool init = false;
    for (size_t k = 0; g && k < g->n_initializer && !init; k++)
      init = g->initializer[k]->name && !strcmp(g->initializer[k]->name, name);
    if (!init) io[(*count)++] = (MlcOnnxIo){mlc_intern(ctx, name), kind_of(vi[i]->type)};
  }
  return io;
}

bool mlc_onnx_graph_io(MlcCtx *ctx, const char *path, MlcOnnxIo **ins, int *n_in, MlcOnnxIo **outs, int *n_out) {
  size_t len = 0;
  char *buf = mlc_read_file(ctx, path, MLC_ONNX_MAX_FILE, &len);
  if (!buf) return false;
  bool too_deep = mlc_onnx__wire_depth(buf, len, &onnx__model_proto__descriptor, MLC_ONNX_MAX_NESTING) !=
                  MLC_ONNX_WIRE_OK;
  Onnx__ModelProto *mp = too_deep ? NULL : onnx__model_proto__unpack(NULL, len, (const uint8_t *)buf);
  free(buf);
  if (!mp || !mp->graph) {
    if (mp) onnx__model_proto__free_unpacked(mp, NULL);
    return mlc_error(ctx, ctx->build_loc, "%s: not a valid ONNX model with a graph", path);
  }
  const Onnx__GraphProto *g = mp->graph;
  *ins = io_list(ctx, g->input, g->n_input, g, n_in);
  *outs = io_list(ctx, g->output, g->n_output, NULL, n_out);
  onnx__model_proto__free_unpacked(mp, NULL);
  return true;
}
