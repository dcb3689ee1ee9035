/* fuzz_reader.c - libFuzzer target for the TVMScript reader and printer.
 *
 * Any byte string must either read into a module or fail with an error; never
 * crash (the sanitizers watch memory and undefined behaviour).  When it reads,
 * the module's canonical text must read back structurally equal: a round trip
 * that changes the module is a printer or reader bug, so it aborts and the
 * fuzzer keeps the input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mlcc/support.h"
#include "mlcc/ir.h"
#include "mlcc/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* print m, read the text back in the same context, compare */
static void check_round_trip(MlcCtx *ctx, const MlcModule *m) {
  MlcStrBuf text = {0};
  mlc_print_module(m, &text);
  const char *s = mlc_sb_cstr(&text);
  MlcModule *back = mlc_read_module(ctx, "printed.py", s, text.len);
  if (!back || !mlc_module_equal(m, back)) {
    MlcStrBuf err = {0};
    if (!back) mlc_format_error(ctx, &err);
    fprintf(stderr, "round trip failed%s\n%s\nprinted text:\n%s\n",
            back ? ": modules differ" : ":", mlc_sb_cstr(&err), s);
    abort();
  }
  mlc_vec_free(&text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "input.py", (const char *)data, size);
  if (m) check_round_trip(ctx, m);
  mlc_ctx_free(ctx);
  return 0;
}
