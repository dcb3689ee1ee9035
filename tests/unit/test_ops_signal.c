/* test_ops_signal.c - signal.dft (src/ops/signal.c): the inferred struct
 * info prints as expected, refused inputs name the op and what was
 * expected, the legalized prim func reads back equal, and the interpreter
 * computes what a plain C reference here computes: C's complex arithmetic,
 * the spectrum of a real signal mirrored explicitly for the inverse of a
 * one-sided one. */
#include "check.h"
#include "op_check.h"

#include <complex.h>
#include <stdio.h>

#define F32(shape) "R.Tensor(" shape ", \"float32\")"

static void test_dft_infer(void) {
  OPC_CHECK_INFER("x: " F32("(\"b\", 8, 1)"), "R.signal.dft(x, axis=1)", "R.Tensor((b, 8, 2), dtype=\"float32\")");
  OPC_CHECK_INFER("x: " F32("(2, 8, 1)"), "R.signal.dft(x, axis=1, onesided=True)",
                  "R.Tensor((2, 5, 2), dtype=\"float32\")");
  OPC_CHECK_INFER("x: " F32("(2, 5, 2)"), "R.signal.dft(x, axis=-2, inverse=True, onesided=True)",
                  "R.Tensor((2, 8, 1), dtype=\"float32\")");
  OPC_CHECK_INFER("x: " F32("(2, 8, 2)"), "R.signal.dft(x, axis=1, dft_length=12)",
                  "R.Tensor((2, 12, 2), dtype=\"float32\")");
  OPC_CHECK_REFUSED("x: " F32("(2, 8, 3)"), "R.signal.dft(x, axis=1)",
                    "signal.dft: data's last dim must be 1 (real) or 2 (complex), data is (2, 8, 3)");
  OPC_CHECK_REFUSED("x: " F32("(2, 8, 2)"), "R.signal.dft(x, axis=2)",
                    "signal.dft: axis must not be the last dim (the complex parts)");
  OPC_CHECK_REFUSED("x: " F32("(2, \"n\", 2)"), "R.signal.dft(x, axis=1)",
                    "signal.dft: the transformed dim of data (2, n, 2) must be a constant");
}

/* x (rows, len, parts) along dim 1: n points, forward or inverse */
static void ref_dft(const double *x, int rows, int len, int parts, int n, bool inverse, bool onesided, double *y,
                    int *out_len, int *out_parts) {
  bool real_out = inverse && onesided;
  *out_len = real_out || !onesided ? n : n / 2 + 1;
  *out_parts = real_out ? 1 : 2;
  for (int r = 0; r < rows; r++) {
    double complex in[64] = {0};
    if (real_out) { /* the given half, then its conjugate mirror */
      for (int j = 0; j < n; j++) {
        int src = j < len ? j : n - j;
        if (src >= len) continue;
        double complex v = x[(r * len + src) * parts] + (parts == 2 ? I * x[(r * len + src) * parts + 1] : 0);
        in[j] = j < len ? v : conj(v);
      }
    } else {
      for (int j = 0; j < len && j < n; j++)
        in[j] = x[(r * len + j) * parts] + (parts == 2 ? I * x[(r * len + j) * parts + 1] : 0);
    }
    for (int k = 0; k < *out_len; k++) {
      double complex s = 0;
      for (int j = 0; j < n; j++) s += in[j] * cexp((inverse ? 2 : -2) * I * 3.14159265358979323846 * k * j / n);
      if (inverse) s /= n;
      y[(r * *out_len + k) * *out_parts] = creal(s);
      if (!real_out) y[(r * *out_len + k) * *out_parts + 1] = cimag(s);
    }
  }
}

static void dft_case(int len, int parts, int n_given, bool inverse, bool onesided, unsigned seed) {
  enum { ROWS = 3 };
  OpcBuf x = opc_buf(3, (int64_t[]){ROWS, len, parts}, NULL);
  opc_fill_buf(&x, seed, -1, 1, false);
  int n = n_given ? n_given : inverse && onesided ? 2 * (len - 1) : len, ol, op;
  double yv[ROWS * 64 * 2];
  ref_dft(x.v, ROWS, len, parts, n, inverse, onesided, yv, &ol, &op);
  OpcBuf y = opc_buf(3, (int64_t[]){ROWS, ol, op}, yv);
  char params[64], call[160];
  snprintf(params, sizeof params, "x: R.Tensor((%d, %d, %d), \"float32\")", ROWS, len, parts);
  snprintf(call, sizeof call, "R.signal.dft(x, axis=1, inverse=%s, onesided=%s, dft_length=%d)", inverse ? "True" : "False",
           onesided ? "True" : "False", n_given);
  opc_check_run(params, call, &x, 1, &y, 1, 1e-4);
  opc_free(&x, 1);
}

static void test_dft_run(void) {
  dft_case(8, 1, 0, false, false, 1);  /* real signal */
  dft_case(7, 2, 0, false, false, 3);  /* complex, odd length */
  dft_case(8, 1, 0, false, true, 5);   /* one-sided spectrum */
  dft_case(6, 2, 0, true, false, 7);   /* inverse */
  dft_case(5, 2, 0, true, true, 9);    /* real signal from a one-sided spectrum */
  dft_case(6, 1, 10, false, false, 11); /* zero-padded */
  dft_case(9, 2, 4, false, false, 13);  /* cut */
}

int main(void) {
  RUN(test_dft_infer);
  RUN(test_dft_run);
  return CHECK_DONE();
}
