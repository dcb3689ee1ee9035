/* test_ops_pool_indices.c - nn.max_pool2d_indices (src/ops/conv_pool.c):
 * the inferred struct info prints as expected, a bad storage order is
 * refused, the legalized prim func reads back equal, and the interpreter
 * computes what a plain C reference here computes: every window scanned in
 * row-major order for its first largest data element (ties are made
 * likely by integral values). */
#include "check.h"
#include "op_check.h"

#include <stdio.h>

#define F32(shape) "R.Tensor(" shape ", \"float32\")"

static void test_indices_infer(void) {
  OPC_CHECK_INFER("x: " F32("(\"n\", 3, 6, 7)"), "R.nn.max_pool2d_indices(x, pool_size=[2, 3], strides=[2, 2])",
                  "R.Tensor((n, 3, 3, 3), dtype=\"int64\")");
  OPC_CHECK_REFUSED("x: " F32("(1, 3, 6, 7)"), "R.nn.max_pool2d_indices(x, pool_size=2, storage_order=2)",
                    "nn.max_pool2d_indices: storage_order must be 0 or 1, got 2");
}

typedef struct PiCase { int n, c, h, w, kh, kw, s, p, d, order; bool ceil; } PiCase;

static void indices_case(const PiCase *t, unsigned seed) {
  int num_h = t->h + 2 * t->p - t->d * (t->kh - 1) - 1, num_w = t->w + 2 * t->p - t->d * (t->kw - 1) - 1;
  int oh = (t->ceil ? num_h + t->s - 1 : num_h) / t->s + 1, ow = (t->ceil ? num_w + t->s - 1 : num_w) / t->s + 1;
  if (t->ceil && (oh - 1) * t->s >= t->h + t->p) oh--;
  if (t->ceil && (ow - 1) * t->s >= t->w + t->p) ow--;
  OpcBuf x = opc_buf(4, (int64_t[]){t->n, t->c, t->h, t->w}, NULL);
  opc_fill_buf(&x, seed, 0, 4, true);
  OpcBuf y = opc_buf(4, (int64_t[]){t->n, t->c, oh, ow}, NULL);
  y.v = malloc((size_t)opc_numel(&y) * sizeof *y.v);
  for (int nc = 0; nc < t->n * t->c; nc++)
    for (int i = 0; i < oh; i++)
      for (int j = 0; j < ow; j++) {
        double best = -1e300, at = -1;
        for (int ki = 0; ki < t->kh; ki++)
          for (int kj = 0; kj < t->kw; kj++) {
            int hh = i * t->s - t->p + ki * t->d, ww = j * t->s - t->p + kj * t->d;
            if (hh < 0 || hh >= t->h || ww < 0 || ww >= t->w) continue;
            double v = x.v[(nc * t->h + hh) * t->w + ww];
            double flat = (double)nc * t->h * t->w + (t->order ? ww * t->h + hh : hh * t->w + ww);
            if (v > best || (v == best && flat < at)) best = v, at = flat;
          }
        y.v[(nc * oh + i) * ow + j] = at;
      }
  char params[64], call[200];
  snprintf(params, sizeof params, "x: R.Tensor((%d, %d, %d, %d), \"float32\")", t->n, t->c, t->h, t->w);
  snprintf(call, sizeof call,
           "R.nn.max_pool2d_indices(x, pool_size=[%d, %d], strides=%d, padding=%d, dilation=%d, ceil_mode=%s, storage_order=%d)",
           t->kh, t->kw, t->s, t->p, t->d, t->ceil ? "True" : "False", t->order);
  opc_check_run(params, call, &x, 1, &y, 1, 0);
  opc_free(&x, 1);
  opc_free(&y, 1);
}

static void test_indices_run(void) {
  static const PiCase cases[] = {
      {1, 2, 5, 6, 2, 2, 2, 0, 1, 0, false},
      {2, 1, 6, 5, 3, 3, 1, 1, 1, 1, false},
      {1, 2, 7, 7, 3, 2, 2, 1, 2, 0, true},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) indices_case(&cases[i], 40 + (unsigned)i);
}

int main(void) {
  RUN(test_indices_infer);
  RUN(test_indices_run);
  return CHECK_DONE();
}
