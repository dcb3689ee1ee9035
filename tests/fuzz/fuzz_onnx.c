/* fuzz_onnx.c - libFuzzer target for the ONNX importer.
 *
 * Any byte string must import into a module or be refused with a message;
 * never crash, leak or overflow (the sanitizers watch).  External data is
 * refused here (no folder is given), so the fuzzer cannot reach files. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mlcc/frontend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_onnx_import(ctx, "fuzz.onnx", data, size, NULL, NULL);
  if (!m && !mlc_has_error(ctx)) {
    fprintf(stderr, "import failed without a message\n");
    abort();
  }
  mlc_ctx_free(ctx);
  return 0;
}
