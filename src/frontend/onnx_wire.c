/* onnx_wire.c - the nesting depth of a protobuf message, measured before it
 * is decoded.
 *
 * protobuf-c decodes nested messages by recursion, so a model whose
 * subgraphs (If within If) or type protos (sequence of sequence of ...)
 * nest thousands deep overflows the stack inside the decoder.  This scan
 * walks the wire format with an explicit stack instead: the schema's
 * descriptors say which length-delimited fields hold messages, each such
 * field opens a level, and the scan stops as soon as the levels exceed the
 * limit.  It reads each byte once, so it costs one linear pass.  Bytes that
 * are not well-formed wire format end the scan with "malformed"; the
 * decoder then reports them as it always does. */
#include "onnx_internal.h"

typedef struct Level {
  const ProtobufCMessageDescriptor *desc;
  size_t end; /* offset just past this message */
} Level;

/* a varint at buf[*pos], below end; false when truncated or over 10 bytes */
static bool read_varint(const uint8_t *buf, size_t end, size_t *pos, uint64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= end) return false;
    uint8_t b = buf[(*pos)++];
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return *out = v, true;
  }
  return false;
}

/* skip n bytes; false when they are not there */
static bool skip(size_t end, size_t *pos, uint64_t n) {
  if (n > end - *pos) return false;
  *pos += (size_t)n;
  return true;
}

MlcOnnxWire mlc_onnx__wire_depth(const void *data, size_t len, const ProtobufCMessageDescriptor *root,
                                 int max_depth) {
  const uint8_t *buf = data;
  Level stack[MLC_ONNX_MAX_NESTING + 1];
  if (max_depth > MLC_ONNX_MAX_NESTING) max_depth = MLC_ONNX_MAX_NESTING;
  int depth = 0;
  stack[0] = (Level){root, len};
  size_t pos = 0;
  for (;;) {
    while (depth > 0 && pos == stack[depth].end) depth--;
    if (pos == stack[depth].end) return MLC_ONNX_WIRE_OK; /* depth 0: the whole input */
    uint64_t key, n;
    if (!read_varint(buf, stack[depth].end, &pos, &key)) return MLC_ONNX_WIRE_MALFORMED;
    uint64_t field = key >> 3;
    switch (key & 7) {
    case 0: /* varint */
      if (!read_varint(buf, stack[depth].end, &pos, &n)) return MLC_ONNX_WIRE_MALFORMED;
      break;
    case 1: /* 64-bit */
      if (!skip(stack[depth].end, &pos, 8)) return MLC_ONNX_WIRE_MALFORMED;
      break;
    case 5: /* 32-bit */
      if (!skip(stack[depth].end, &pos, 4)) return MLC_ONNX_WIRE_MALFORMED;
      break;
    case 2: { /* length-delimited: bytes, string, packed values or a message */
      if (!read_varint(buf, stack[depth].end, &pos, &n) || n > stack[depth].end - pos)
        return MLC_ONNX_WIRE_MALFORMED;
      const ProtobufCFieldDescriptor *f =
          field <= UINT32_MAX ? protobuf_c_message_descriptor_get_field(stack[depth].desc, (unsigned)field)
                              : NULL;
      if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
        if (depth == max_depth) return MLC_ONNX_WIRE_TOO_DEEP;
        depth++;
        stack[depth] = (Level){f->descriptor, pos + (size_t)n};
      } else {
        pos += (size_t)n;
      }
      break;
    }
    default: /* groups (3, 4) and the unused 6, 7: protobuf-c refuses them too */
      return MLC_ONNX_WIRE_MALFORMED;
    }
  }
}
