/* check.c - reads what the compiled model computed (`mlcc run ... --out
 * OUT.npz`: class probabilities, one row per image) and compares it with
 * the labels make_batch.c kept aside: shows a few images with the model's
 * answer, the predictions against the labels, the mistakes and the accuracy.
 * Exits 1 when the accuracy is below 90%, so a broken build of the model
 * fails the demo instead of printing a bad number.
 *   check BATCH.npz LABELS.npy OUT.npz */
#include <stdio.h>
#include <stdlib.h>

#include "glyphs.h"
#include "mlcc/runtime.h"

enum { SHOWN = 5, LISTED = 40, MISTAKES = 10 };

static int argmax(const float *p, int n) {
  int best = 0;
  for (int k = 1; k < n; k++) best = p[k] > p[best] ? k : best;
  return best;
}

/* images side by side; faint pixels (mostly the noise) left blank */
static void show(const float *x, const float *probs, const int64_t *labels, int n) {
  static const char shades[] = "  .+#";
  for (int i = 0; i < n; i++) {
    int p = argmax(probs + i * GLYPH_CLASSES, GLYPH_CLASSES);
    printf("label %d -> %d %3.0f%%  ", (int)labels[i], p, 100.0 * probs[i * GLYPH_CLASSES + p]);
  }
  printf("\n");
  for (int y = 0; y < GLYPH_SIDE; y++) {
    for (int i = 0; i < n; i++) {
      printf(" ");
      for (int c = 0; c < GLYPH_SIDE; c++) {
        float v = x[i * GLYPH_PIXELS + y * GLYPH_SIDE + c];
        int s = v <= 0 ? 0 : v >= 1 ? 4 : (int)(v * 5);
        putchar(shades[s]);
      }
      printf("    ");
    }
    printf("\n");
  }
}

static int report(const float *x, const float *probs, const int64_t *labels, int64_t n) {
  show(x, probs, labels, n < SHOWN ? (int)n : SHOWN);
  printf("\npredicted:");
  for (int64_t i = 0; i < n && i < LISTED; i++) printf(" %d", argmax(probs + i * GLYPH_CLASSES, GLYPH_CLASSES));
  printf("%s\nlabels:   ", n > LISTED ? " ..." : "");
  for (int64_t i = 0; i < n && i < LISTED; i++) printf(" %d", (int)labels[i]);
  printf("%s\n", n > LISTED ? " ..." : "");
  int64_t right = 0, shown = 0;
  for (int64_t i = 0; i < n; i++) {
    int p = argmax(probs + i * GLYPH_CLASSES, GLYPH_CLASSES);
    if (p == labels[i]) right++;
    else if (shown++ < MISTAKES)
      printf("mistake: image %lld is a %d, the model says %d (%.0f%%)\n", (long long)i, (int)labels[i], p,
             100.0 * probs[i * GLYPH_CLASSES + p]);
  }
  double acc = 100.0 * (double)right / (double)n;
  printf("accuracy: %lld of %lld test images right (%.2f%%)\n", (long long)right, (long long)n, acc);
  return acc >= 90.0 ? 0 : 1;
}

/* the one tensor of an .npz, or entry `name` */
static const DLTensor *npz_tensor(MlcrtNpz **z, const char *path, const char *name) {
  if (mlcrt_npz_load(path, z) != 0) return NULL;
  MlcrtTensor *t = name ? mlcrt_npz_get(*z, name) : (*z)->n == 1 ? (*z)->tensors[0] : NULL;
  return t ? &t->dl : NULL;
}

static int is(const DLTensor *t, DLDataType dt, int ndim, int64_t d0, int64_t d1) {
  return t && t->dtype.code == dt.code && t->dtype.bits == dt.bits && t->ndim == ndim && t->shape[0] == d0 &&
         (ndim < 2 || t->shape[1] == d1);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: check BATCH.npz LABELS.npy OUT.npz\n");
    return 2;
  }
  MlcrtNpz *zx = NULL, *zout = NULL;
  MlcrtTensor *labels = NULL;
  const DLTensor *x = npz_tensor(&zx, argv[1], "x");
  const DLTensor *out = x ? npz_tensor(&zout, argv[3], NULL) : NULL;
  if (out) mlcrt_npy_load(argv[2], &labels);
  int rc = 2;
  if (!out || !labels) fprintf(stderr, "check: %s\n", *mlcrt_last_error() ? mlcrt_last_error() : "no output");
  else if (!is(&labels->dl, mlcrt_dtype(kDLInt, 64), 1, x->shape[0], 0) ||
           !is(out, mlcrt_dtype(kDLFloat, 32), 2, x->shape[0], GLYPH_CLASSES))
    fprintf(stderr, "check: expected %lld labels (int64) and probabilities of shape (%lld, %d)\n",
            (long long)x->shape[0], (long long)x->shape[0], GLYPH_CLASSES);
  else
    rc = report(x->data, out->data, labels->dl.data, x->shape[0]);
  mlcrt_npz_free(zx);
  mlcrt_npz_free(zout);
  mlcrt_tensor_free(labels);
  return rc;
}
