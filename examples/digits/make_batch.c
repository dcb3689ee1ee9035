/* make_batch.c - writes the digits example's test batch: N glyphs rendered
 * from a seed train.c never uses, as DIR/batch.npz (one entry "x" of shape
 * (N, 256), the model's input name, so `mlcc run --in batch.npz` binds it)
 * and their labels as DIR/labels.npy (int64, (N,)), which only the checker
 * reads: the model sees images, never answers.
 *   make_batch DIR N */
#include <stdio.h>
#include <stdlib.h>

#include "glyphs.h"
#include "mlcc/runtime.h"

static int write_batch(const char *dir, int64_t n) {
  int64_t xshape[2] = {n, GLYPH_PIXELS};
  MlcrtTensor *x = NULL, *labels = NULL;
  int rc = mlcrt_tensor_create(2, xshape, mlcrt_dtype(kDLFloat, 32), &x);
  if (rc == 0) rc = mlcrt_tensor_create(1, &n, mlcrt_dtype(kDLInt, 64), &labels);
  GlyphRng rng = {0x7e570002};
  for (int64_t i = 0; rc == 0 && i < n; i++) {
    int d = glyph_int(&rng, GLYPH_CLASSES);
    ((int64_t *)labels->dl.data)[i] = d;
    glyph_render(d, &rng, (float *)x->dl.data + i * GLYPH_PIXELS);
  }
  char path[4096];
  const char *name = "x";
  const DLTensor *dl = rc == 0 ? &x->dl : NULL;
  snprintf(path, sizeof path, "%s/batch.npz", dir);
  if (rc == 0) rc = mlcrt_npz_save(path, 1, &name, &dl);
  snprintf(path, sizeof path, "%s/labels.npy", dir);
  if (rc == 0) rc = mlcrt_npy_save(path, &labels->dl);
  if (rc != 0) fprintf(stderr, "make_batch: %s\n", mlcrt_last_error());
  mlcrt_tensor_free(x);
  mlcrt_tensor_free(labels);
  return rc;
}

int main(int argc, char **argv) {
  long long n = argc == 3 ? atoll(argv[2]) : 0;
  if (argc != 3 || n <= 0 || n > 1000000) {
    fprintf(stderr, "usage: make_batch DIR N (1 <= N <= 1000000)\n");
    return 2;
  }
  if (write_batch(argv[1], (int64_t)n) != 0) return 1;
  printf("make_batch: %lld test images in %s/batch.npz, their labels in %s/labels.npy\n", n, argv[1], argv[1]);
  return 0;
}
