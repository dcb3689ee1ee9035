/* fuzz_onnx_value.c - libFuzzer target for the reader of the conformance
 * data's values (TensorProto, SequenceProto, OptionalProto).
 *
 * The first byte picks the kind read (0 tensor, 1 sequence, 2 optional),
 * the rest is the serialized value.  Any bytes must decode or be refused
 * with a message; never crash, leak or overflow. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mlcc/frontend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  MlcCtx *ctx = mlc_ctx_new();
  MlcOnnxValueKind kind = data[0] % 3 == 0 ? MLC_ONNX_TENSOR : data[0] % 3 == 1 ? MLC_ONNX_SEQUENCE : MLC_ONNX_OPTIONAL;
  MlcOnnxValue *v = mlc_onnx_decode_value(ctx, "fuzz.pb", data + 1, size - 1, kind);
  if (!v && !mlc_has_error(ctx)) {
    fprintf(stderr, "decoding failed without a message\n");
    abort();
  }
  for (int i = 0; v && i < v->n; i++)
    if (!v->tensors[i]) abort();
  mlc_ctx_free(ctx);
  return 0;
}
