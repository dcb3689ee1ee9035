/* fuzz_npy.c - libFuzzer target for the runtime's .npy and .npz readers.
 *
 * Any byte string must read into tensors or be refused with a message;
 * never crash, leak, overflow or allocate what the bytes do not justify
 * (the sanitizers watch, and -rss_limit_mb catches a forged size that
 * sizes a buffer).  The first byte picks the reader, so one corpus serves
 * both; whatever reads is written back and must read back the same. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlcc/runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void refused_with_message(void) {
  if (!mlcrt_last_error()[0]) {
    fprintf(stderr, "refused without a message\n");
    abort();
  }
}

/* encode t as .npy and read it back: the same shape, dtype and bytes */
static void check_round_trip(const MlcrtTensor *t) {
  void *buf = NULL;
  size_t len = 0;
  MlcrtTensor *back = NULL;
  if (mlcrt_npy_encode(&t->dl, &buf, &len) != 0 || mlcrt_npy_read(buf, len, &back) != 0) {
    fprintf(stderr, "round trip failed: %s\n", mlcrt_last_error());
    abort();
  }
  int64_t n = mlcrt_tensor_nbytes(&t->dl);
  bool same = back->dl.ndim == t->dl.ndim && back->dl.dtype.code == t->dl.dtype.code &&
              back->dl.dtype.bits == t->dl.dtype.bits && n == mlcrt_tensor_nbytes(&back->dl) &&
              (n == 0 || memcmp(back->dl.data, t->dl.data, (size_t)n) == 0);
  for (int32_t i = 0; same && i < t->dl.ndim; i++) same = back->dl.shape[i] == t->dl.shape[i];
  if (!same) {
    fprintf(stderr, "round trip changed the tensor\n");
    abort();
  }
  mlcrt_tensor_free(back);
  free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  const uint8_t *body = data + 1;
  size_t len = size - 1;
  mlcrt_set_error("%s", "");
  if (data[0] & 1) {
    MlcrtNpz *z = NULL;
    if (mlcrt_npz_read(body, len, &z) != 0) refused_with_message();
    for (int32_t i = 0; z && i < z->n; i++) check_round_trip(z->tensors[i]);
    mlcrt_npz_free(z);
  } else {
    MlcrtTensor *t = NULL;
    if (mlcrt_npy_read(body, len, &t) != 0) refused_with_message();
    if (t) check_round_trip(t);
    mlcrt_tensor_free(t);
  }
  return 0;
}
