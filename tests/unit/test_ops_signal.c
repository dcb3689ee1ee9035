/* test_ops_signal.c - signal.dft, signal.dft_dynamic, signal.stft and
 * signal.mel_weight_matrix (src/ops/signal.c): the inferred struct
 * info prints as expected, refused inputs name the op and what was
 * expected, the legalized prim func reads back equal, and the interpreter
 * computes what a plain C reference here computes: C's complex arithmetic,
 * the spectrum of a real signal mirrored explicitly for the inverse of a
 * one-sided one. */
#include "check.h"
#include "op_check.h"

#include <complex.h>
#include <math.h>
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

/* ---- signal.dft_dynamic ---- */

static void test_dft_dynamic_infer(void) {
  const char *p = "x: " F32("(3, 8, 1)") ", a: R.Tensor((), \"int64\")";
  OPC_CHECK_INFER(p, "R.signal.dft_dynamic(x, a, shape=[3, 5, 2], onesided=True)", "R.Tensor((3, 5, 2), dtype=\"float32\")");
  OPC_CHECK_REFUSED(p, "R.signal.dft_dynamic(x, a, shape=[3, 5, 1], onesided=True)",
                    "signal.dft_dynamic: shape: the last dim must be 2");
  OPC_CHECK_REFUSED(p, "R.signal.dft_dynamic(x, a, shape=[3, 5])", "signal.dft_dynamic: shape: expected 3 dims (data's rank), got 2");
  OPC_CHECK_REFUSED(p, "R.signal.dft_dynamic(x, a, shape=[3, 8, 2], axes=[1, -2])", "signal.dft_dynamic: axes: axis -2 named twice");
  OPC_CHECK_REFUSED(p, "R.signal.dft_dynamic(x, a, shape=[3, 8, 2], axes=[2])",
                    "signal.dft_dynamic: axis must not be the last dim (the complex parts)");
  OPC_CHECK_REFUSED("x: " F32("(3, 8, 1)") ", a: R.Tensor((2,), \"int64\")", "R.signal.dft_dynamic(x, a, shape=[3, 8, 2])",
                    "signal.dft_dynamic: axis must be one integer, got (2,)");
}

/* x (A, B, parts) transformed along the axis read (0 or 1, or -3 / -2):
 * along 1 as ref_dft does, along 0 through transposed copies */
static void dft_dynamic_case(int axis, int parts, bool inverse, bool onesided, unsigned seed) {
  enum { A = 4, B = 6 };
  OpcBuf in[2] = {opc_buf(3, (int64_t[]){A, B, parts}, NULL), opc_buf(0, NULL, (double[]){axis})};
  opc_fill_buf(&in[0], seed, -1, 1, false);
  bool along0 = axis == 0 || axis == -3;
  int rows = along0 ? B : A, len = along0 ? A : B;
  double xt[A * B * 2], yt[A * 8 * 2], yv[A * 8 * 2];
  for (int r = 0; r < rows; r++)
    for (int i = 0; i < len; i++)
      for (int q = 0; q < parts; q++) xt[(r * len + i) * parts + q] = in[0].v[along0 ? (i * B + r) * parts + q : (r * len + i) * parts + q];
  int n = inverse && onesided ? 2 * (len - 1) : len, ol, op;
  ref_dft(xt, rows, len, parts, n, inverse, onesided, yt, &ol, &op);
  for (int r = 0; r < rows; r++)
    for (int k = 0; k < ol; k++)
      for (int q = 0; q < op; q++) yv[along0 ? (k * rows + r) * op + q : (r * ol + k) * op + q] = yt[(r * ol + k) * op + q];
  OpcBuf y = opc_buf(3, along0 ? (int64_t[]){ol, B, op} : (int64_t[]){A, ol, op}, yv);
  char params[96], call[160];
  snprintf(params, sizeof params, "x: R.Tensor((%d, %d, %d), \"float32\"), a: R.Tensor((), \"int64\")", A, B, parts);
  snprintf(call, sizeof call, "R.signal.dft_dynamic(x, a, shape=[%lld, %lld, %d], inverse=%s, onesided=%s)",
           (long long)y.shape[0], (long long)y.shape[1], op, inverse ? "True" : "False", onesided ? "True" : "False");
  opc_check_run(params, call, in, 2, &y, 1, 1e-4);
  opc_free(&in[0], 1);
}

static void test_dft_dynamic_run(void) {
  dft_dynamic_case(1, 1, false, true, 31);  /* one-sided spectrum along 1 */
  dft_dynamic_case(0, 1, false, true, 33);  /* the same along 0 */
  dft_dynamic_case(-3, 2, false, false, 35); /* complex, negative axis */
  dft_dynamic_case(-2, 2, true, true, 37);  /* real signal from a one-sided spectrum */
  dft_dynamic_case(0, 2, true, false, 39);  /* inverse along 0 */
}

/* ---- signal.stft ---- */

static void test_stft_infer(void) {
  const char *p = "x: " F32("(2, 64, 1)") ", s: R.Tensor((), \"int64\"), w: " F32("(16,)");
  OPC_CHECK_INFER(p, "R.signal.stft(x, s, w, shape=[7, 9])", "R.Tensor((2, 7, 9, 2), dtype=\"float32\")");
  OPC_CHECK_INFER("x: " F32("(1, \"m\", 2)") ", s: R.Tensor((1,), \"int32\"), w: " F32("(\"n\",)"),
                  "R.signal.stft(x, s, w, shape=[m, n])", "R.Tensor((1, m, n, 2), dtype=\"float32\")");
  OPC_CHECK_REFUSED(p, "R.signal.stft(x, s, w, shape=[7, 17])", "signal.stft: 17 bins of a 16-point transform");
  OPC_CHECK_REFUSED(p, "R.signal.stft(x, s, w, shape=[7])", "signal.stft: shape: expected 2 dims (frames, bins), got 1");
  OPC_CHECK_REFUSED("x: " F32("(2, 64, 3)") ", s: R.Tensor((), \"int64\"), w: " F32("(16,)"),
                    "R.signal.stft(x, s, w, shape=[7, 9])",
                    "signal.stft: data's last dim must be 1 (real) or 2 (complex), data is (2, 64, 3)");
  OPC_CHECK_REFUSED("x: " F32("(2, 64, 1)") ", s: R.Tensor((2,), \"int64\"), w: " F32("(16,)"),
                    "R.signal.stft(x, s, w, shape=[7, 9])", "signal.stft: frame_step must be one integer, got (2,)");
}

/* frames of x (B, L, parts) every step points, each times w and
 * transformed (W points, first bins bins), with C's complex arithmetic */
static void ref_stft(const double *x, int b, int len, int parts, int step, const double *w, int wl, int frames, int bins,
                     double *y) {
  for (int r = 0; r < b; r++)
    for (int f = 0; f < frames; f++)
      for (int k = 0; k < bins; k++) {
        double complex acc = 0;
        for (int j = 0; j < wl; j++) {
          const double *v = &x[(r * len + f * step + j) * parts];
          double complex xv = v[0] + (parts == 2 ? I * v[1] : 0);
          acc += xv * w[j] * cexp(-2 * I * 3.14159265358979323846 * k * j / wl);
        }
        y[((r * frames + f) * bins + k) * 2] = creal(acc);
        y[((r * frames + f) * bins + k) * 2 + 1] = cimag(acc);
      }
}

static void stft_case(int len, int parts, int step, int wl, bool onesided, unsigned seed) {
  enum { B = 2 };
  int frames = (len - wl) / step + 1, bins = onesided ? wl / 2 + 1 : wl;
  double yv[B * 64 * 16 * 2];
  OpcBuf in[3] = {opc_buf(3, (int64_t[]){B, len, parts}, NULL), opc_buf(0, NULL, (double[]){step}),
                  opc_buf(1, (int64_t[]){wl}, NULL)};
  opc_fill_buf(&in[0], seed, -1, 1, false);
  opc_fill_buf(&in[2], seed + 1, 0, 1, false);
  ref_stft(in[0].v, B, len, parts, step, in[2].v, wl, frames, bins, yv);
  OpcBuf y = opc_buf(4, (int64_t[]){B, frames, bins, 2}, yv);
  char params[160], call[96];
  snprintf(params, sizeof params, "x: R.Tensor((%d, %d, %d), \"float32\"), s: R.Tensor((), \"int64\"), "
           "w: R.Tensor((%d,), \"float32\")", B, len, parts, wl);
  snprintf(call, sizeof call, "R.signal.stft(x, s, w, shape=[%d, %d])", frames, bins);
  opc_check_run(params, call, in, 3, &y, 1, 1e-4);
  opc_free(&in[0], 1);
  opc_free(&in[2], 1);
}

static void test_stft_run(void) {
  stft_case(32, 1, 4, 8, true, 21);   /* real signal, one-sided */
  stft_case(30, 2, 5, 7, false, 23);  /* complex, odd window, full spectrum */
  stft_case(20, 1, 3, 6, false, 25);  /* the last points in no frame */
  stft_case(16, 1, 1, 16, true, 27);  /* one frame */
}

/* ---- signal.mel_weight_matrix ---- */

/* ONNX's triangular filters, written from its definition in plain C */
static void ref_mel(int m, int d, int sr, double lo, double hi, double *y) {
  int k = d / 2 + 1;
  long bins[64];
  double lm = 2595 * log10(1 + lo / 700), hm = 2595 * log10(1 + hi / 700), step = (hm - lm) / (m + 2);
  for (int i = 0; i < m + 2; i++) bins[i] = (long)floor((d + 1) * (700 * (pow(10, (i * step + lm) / 2595) - 1)) / sr);
  for (int j = 0; j < k * m; j++) y[j] = 0;
  for (int i = 0; i < m; i++) {
    long l = bins[i], c = bins[i + 1], h = bins[i + 2];
    if (c == l && c >= 0 && c < k) y[c * m + i] = 1;
    for (long j = l; c != l && j <= c; j++)
      if (j >= 0 && j < k) y[j * m + i] = (double)(j - l) / (double)(c - l);
    for (long j = c; h > c && j < h; j++)
      if (j >= 0 && j < k) y[j * m + i] = (double)(h - j) / (double)(h - c);
  }
}

static void mel_case(int m, int d, int sr, double lo, double hi) {
  double want[64 * 32];
  int k = d / 2 + 1;
  ref_mel(m, d, sr, lo, hi, want);
  OpcBuf in[4] = {opc_buf(0, NULL, (double[]){d}), opc_buf(1, (int64_t[]){1}, (double[]){sr}), opc_buf(0, NULL, (double[]){lo}),
                  opc_buf(0, NULL, (double[]){hi})};
  OpcBuf y = opc_buf(2, (int64_t[]){k, m}, want);
  char call[96];
  snprintf(call, sizeof call, "R.signal.mel_weight_matrix(d, r, lo, hi, shape=[%d, %d])", k, m);
  opc_check_run("d: R.Tensor((), \"int64\"), r: R.Tensor((1,), \"int32\"), lo: R.Tensor((), \"float32\"), "
                "hi: R.Tensor((), \"float32\")",
                call, in, 4, &y, 1, 1e-6);
}

static void test_mel_weight_matrix(void) {
  OPC_CHECK_INFER("d: R.Tensor((), \"int64\"), r: R.Tensor((), \"int64\"), lo: R.Tensor((), \"float32\"), "
                  "hi: R.Tensor((), \"float32\")",
                  "R.signal.mel_weight_matrix(d, r, lo, hi, shape=[9, 8], dtype=\"float16\")",
                  "R.Tensor((9, 8), dtype=\"float16\")");
  OPC_CHECK_REFUSED("d: R.Tensor((), \"float32\"), r: R.Tensor((), \"int64\"), lo: R.Tensor((), \"float32\"), "
                    "hi: R.Tensor((), \"float32\")",
                    "R.signal.mel_weight_matrix(d, r, lo, hi, shape=[9, 8])",
                    "signal.mel_weight_matrix: dft_length must be one integer value, got ()");
  mel_case(8, 16, 8192, 0, 4096);   /* the conformance test's sizes */
  mel_case(20, 60, 16000, 20, 8000); /* filters wider than a bin */
  mel_case(5, 64, 22050, 300, 5000);
  mel_case(3, 10, 1000, 100, 400);   /* filters whose rise is empty */
}

int main(void) {
  RUN(test_dft_infer);
  RUN(test_dft_run);
  RUN(test_dft_dynamic_infer);
  RUN(test_dft_dynamic_run);
  RUN(test_stft_infer);
  RUN(test_stft_run);
  RUN(test_mel_weight_matrix);
  return CHECK_DONE();
}
