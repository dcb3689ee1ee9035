/* train.c - trains the digits example's network (model.py: 256 -> 64 -> 10,
 * relu, softmax) on freshly rendered glyphs and writes its weights to an .npz
 * keyed by model.py's parameter names, which `mlcc build --params` binds.
 *   train OUT.npz [STEPS]
 *
 * Plain SGD on one image at a time with softmax cross-entropy: the network is
 * small enough that this takes a few seconds on one core, and every image is
 * new (rendered on the fly), so there is nothing to overfit.  The weights are
 * written with the runtime's own .npz writer: the file format has one
 * implementation, shared with the compiler that reads it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glyphs.h"
#include "mlcc/runtime.h"

#define IN GLYPH_PIXELS
#define HIDDEN 64
#define OUT GLYPH_CLASSES

/* w0 is [IN][HIDDEN] (model.py multiplies x by it with R.matmul), w1 is
 * [OUT][HIDDEN] (R.nn.linear's weight is [out, in]) */
typedef struct Net {
  float w0[IN * HIDDEN], b0[HIDDEN], w1[OUT * HIDDEN], b1[OUT];
} Net;

static void init(Net *n, GlyphRng *r) {
  for (int i = 0; i < IN * HIDDEN; i++) n->w0[i] = (float)((glyph_uniform(r) * 2 - 1) * 0.1);
  for (int i = 0; i < OUT * HIDDEN; i++) n->w1[i] = (float)((glyph_uniform(r) * 2 - 1) * 0.2);
  memset(n->b0, 0, sizeof n->b0);
  memset(n->b1, 0, sizeof n->b1);
}

/* forward pass: hidden activations h and class probabilities p */
static void forward(const Net *n, const float *x, float *h, float *p) {
  for (int j = 0; j < HIDDEN; j++) h[j] = n->b0[j];
  for (int i = 0; i < IN; i++)
    for (int j = 0; j < HIDDEN; j++) h[j] += x[i] * n->w0[i * HIDDEN + j];
  for (int j = 0; j < HIDDEN; j++) h[j] = h[j] > 0 ? h[j] : 0;
  float mx = -1e30f, sum = 0;
  for (int k = 0; k < OUT; k++) {
    p[k] = n->b1[k];
    for (int j = 0; j < HIDDEN; j++) p[k] += h[j] * n->w1[k * HIDDEN + j];
    mx = p[k] > mx ? p[k] : mx;
  }
  for (int k = 0; k < OUT; k++) sum += p[k] = expf(p[k] - mx);
  for (int k = 0; k < OUT; k++) p[k] /= sum;
}

/* one SGD step on (x, label); returns whether the prediction was right */
static int step(Net *n, const float *x, int label, float lr) {
  float h[HIDDEN], p[OUT], dh[HIDDEN] = {0};
  forward(n, x, h, p);
  int best = 0;
  for (int k = 1; k < OUT; k++) best = p[k] > p[best] ? k : best;
  for (int k = 0; k < OUT; k++) {
    float g = p[k] - (k == label); /* d loss / d logit */
    for (int j = 0; j < HIDDEN; j++) {
      dh[j] += g * n->w1[k * HIDDEN + j];
      n->w1[k * HIDDEN + j] -= lr * g * h[j];
    }
    n->b1[k] -= lr * g;
  }
  for (int j = 0; j < HIDDEN; j++)
    if (h[j] <= 0) dh[j] = 0;
  for (int i = 0; i < IN; i++)
    if (x[i] != 0)
      for (int j = 0; j < HIDDEN; j++) n->w0[i * HIDDEN + j] -= lr * dh[j] * x[i];
  for (int j = 0; j < HIDDEN; j++) n->b0[j] -= lr * dh[j];
  return best == label;
}

/* the weights as runtime tensors, saved under model.py's names */
static int save(const Net *n, const char *path) {
  static const char *const names[4] = {"w0", "b0", "w1", "b1"};
  const float *src[4] = {n->w0, n->b0, n->w1, n->b1};
  const int64_t shapes[4][2] = {{IN, HIDDEN}, {HIDDEN, 0}, {OUT, HIDDEN}, {OUT, 0}};
  MlcrtTensor *t[4] = {0};
  const DLTensor *dl[4];
  int rc = 0;
  for (int i = 0; i < 4 && rc == 0; i++) {
    rc = mlcrt_tensor_create(shapes[i][1] ? 2 : 1, shapes[i], mlcrt_dtype(kDLFloat, 32), &t[i]);
    if (rc == 0) {
      memcpy(t[i]->dl.data, src[i], (size_t)mlcrt_tensor_nbytes(&t[i]->dl));
      dl[i] = &t[i]->dl;
    }
  }
  if (rc == 0) rc = mlcrt_npz_save(path, 4, names, dl);
  if (rc != 0) fprintf(stderr, "train: %s: %s\n", path, mlcrt_last_error());
  for (int i = 0; i < 4; i++) mlcrt_tensor_free(t[i]);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: train OUT.npz [STEPS]\n");
    return 2;
  }
  long steps = argc == 3 ? atol(argv[2]) : 60000;
  if (steps <= 0) {
    fprintf(stderr, "train: STEPS must be positive\n");
    return 2;
  }
  static Net net;
  GlyphRng rng = {0x5eed0001};
  init(&net, &rng);
  float x[IN];
  long right = 0, window = steps / 4 > 0 ? steps / 4 : 1;
  for (long s = 1; s <= steps; s++) {
    int label = glyph_int(&rng, OUT);
    glyph_render(label, &rng, x);
    float lr = 0.02f * (1.0f - 0.9f * (float)s / (float)steps); /* decays to a tenth */
    right += step(&net, x, label, lr);
    if (s % window == 0 || s == steps) {
      long seen = s % window ? s % window : window;
      printf("train: step %6ld: %5.1f%% of the last %ld training images right\n", s, 100.0 * right / seen, seen);
      right = 0;
    }
  }
  return save(&net, argv[1]) != 0;
}
