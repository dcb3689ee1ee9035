/* data.h - the numbers of the end-to-end test, shared by the program that
 * writes them to files (make_data.c) and the one that checks the compiled
 * model against a plain C computation of the same network (consumer.c).
 *
 * The network (mlp.py, mlp_dyn.py): y = linear(relu(x @ W0 + b0), W1, b1),
 * x [n, 8], W0 [8, 16], b0 [16], W1 [4, 16] (rows are outputs, as
 * env.linear takes them), b1 [4].  Values come from a hash of (tensor,
 * index), so both programs make them without sharing a file. */
#ifndef MLCC_E2E_DATA_H
#define MLCC_E2E_DATA_H

#include <stdint.h>

enum { E2E_IN = 8, E2E_HIDDEN = 16, E2E_OUT = 4 };
enum { E2E_X, E2E_W0, E2E_B0, E2E_W1, E2E_B1 };

/* a value in [-1, 1] with three decimals */
static inline float e2e_value(int tensor, int64_t i) {
  uint32_t h = (uint32_t)tensor * 2654435761u ^ (uint32_t)i * 40503u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (float)(h % 2001u) / 1000.0f - 1.0f;
}

/* the network in double precision over row-major arrays */
static inline void e2e_reference(int64_t n, const float *x, double *y) {
  for (int64_t r = 0; r < n; r++) {
    double h[E2E_HIDDEN];
    for (int j = 0; j < E2E_HIDDEN; j++) {
      double s = e2e_value(E2E_B0, j);
      for (int k = 0; k < E2E_IN; k++) s += (double)x[r * E2E_IN + k] * e2e_value(E2E_W0, k * E2E_HIDDEN + j);
      h[j] = s > 0 ? s : 0;
    }
    for (int o = 0; o < E2E_OUT; o++) {
      double s = e2e_value(E2E_B1, o);
      for (int j = 0; j < E2E_HIDDEN; j++) s += h[j] * e2e_value(E2E_W1, o * E2E_HIDDEN + j);
      y[r * E2E_OUT + o] = s;
    }
  }
}

#endif
