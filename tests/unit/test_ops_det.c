/* test_ops_det.c - linalg.det (src/ops/det.c): the inferred struct info
 * prints as expected, refused inputs name the op and what was expected,
 * the legalized prim func reads back equal, and the interpreter computes
 * what a plain C reference here computes: the Laplace expansion along the
 * first row (no elimination, no pivoting). */
#include "check.h"
#include "op_check.h"

#include <stdio.h>

#define F32(shape) "R.Tensor(" shape ", \"float32\")"

static void test_det_infer(void) {
  OPC_CHECK_INFER("x: " F32("(\"b\", 2, 3, 3)"), "R.linalg.det(x)", "R.Tensor((b, 2), dtype=\"float32\")");
  OPC_CHECK_INFER("x: " F32("(4, 4)"), "R.linalg.det(x)", "R.Tensor((), dtype=\"float32\")");
  OPC_CHECK_REFUSED("x: " F32("(2, 3, 4)"), "R.linalg.det(x)",
                    "linalg.det: x (2, 3, 4) must end in square constant dims of 1 to 32");
  OPC_CHECK_REFUSED("x: " F32("(3,)"), "R.linalg.det(x)", "linalg.det: x must have 2 to 16 dims, got 1");
}

/* the determinant of the n x n matrix m (row stride s) by cofactors */
static double ref_det(const double *m, int n, int s) {
  if (n == 1) return m[0];
  double sub[64], det = 0;
  for (int c = 0; c < n; c++) {
    for (int i = 1; i < n; i++)
      for (int j = 0, k = 0; j < n; j++)
        if (j != c) sub[(i - 1) * (n - 1) + k++] = m[i * s + j];
    det += (c % 2 ? -1 : 1) * m[c] * ref_det(sub, n - 1, n - 1);
  }
  return det;
}

static void det_case(int batch, int n, unsigned seed, void (*shape_it)(double *, int)) {
  OpcBuf x = opc_buf(3, (int64_t[]){batch, n, n}, NULL);
  opc_fill_buf(&x, seed, -2, 2, false);
  if (shape_it) shape_it(x.v, n);
  double want[8];
  for (int b = 0; b < batch; b++) want[b] = ref_det(&x.v[b * n * n], n, n);
  OpcBuf y = opc_buf(1, (int64_t[]){batch}, want);
  char params[64];
  snprintf(params, sizeof params, "x: R.Tensor((%d, %d, %d), \"float32\")", batch, n, n);
  opc_check_run(params, "R.linalg.det(x)", &x, 1, &y, 1, 1e-4);
  opc_free(&x, 1);
}

/* the first batch's matrix: a zero at (0, 0) needs a row swap; the second
 * (when present) has two equal rows */
static void pivot_and_singular(double *v, int n) {
  v[0] = 0;
  for (int j = 0; j < n; j++) v[n * n + n + j] = v[n * n + j];
}

static void test_det_run(void) {
  det_case(3, 1, 1, NULL);
  det_case(3, 2, 2, NULL);
  det_case(4, 3, 3, NULL);
  det_case(2, 5, 4, NULL);
  det_case(2, 4, 5, pivot_and_singular);
}

int main(void) {
  RUN(test_det_infer);
  RUN(test_det_run);
  return CHECK_DONE();
}
