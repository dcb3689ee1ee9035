/* test_ops_reduce_scan.c - the ops of src/ops/reduce_scan.c (argmax,
 * argmin, prod, cumsum, cumprod) and src/ops/trilu.c (tril, triu): struct
 * info as text, the legalized prim func run in the reference interpreter
 * against loops written here, its text round trip, and the located refusal
 * of bad input.  Floats compare within 1e-5 relative, the rest exactly. */
#include <stdint.h>

#include "check.h"
#include "op_check.h"

#include "op_call_check.h"

/* ---- argmax / argmin ------------------------------------------------------------------------- */

/* the index of the first (or last) extreme of x[r, :] (axis 1) or x[:, c] (axis 0) of a 3 x 4 */
static double arg_ref(const double *x, bool is_max, bool last, int axis, int fixed) {
  int n = axis == 1 ? 4 : 3, best = 0;
  for (int i = 1; i < n; i++) {
    double v = axis == 1 ? x[fixed * 4 + i] : x[i * 4 + fixed], b = axis == 1 ? x[fixed * 4 + best] : x[best * 4 + fixed];
    if (is_max ? (v > b || (last && v == b)) : (v < b || (last && v == b))) best = i;
  }
  return best;
}

static void test_argreduce(void) {
  double x[12] = {1, 3, 3, 0, 2, 2, 1, 2, -1, 5, -1, 5};
  for (int op = 0; op < 2; op++)
    for (int last = 0; last < 2; last++)
      for (int axis = 0; axis < 2; axis++) {
        char call[128];
        snprintf(call, sizeof call, "R.%s(x, axis=%d, keepdims=%s, select_last_index=%s)", op ? "argmin" : "argmax",
                 axis - 2, axis ? "False" : "True", last ? "True" : "False");
        const MlcGExpr *c = call_in("x: R.Tensor((3, 4), \"float32\")", call);
        CHECK(sinfo_is(c, axis ? "R.Tensor((3,), dtype=\"int64\")" : "R.Tensor((1, 4), dtype=\"int64\")"));
        double want[4];
        int n = axis ? 3 : 4;
        for (int i = 0; i < n; i++) want[i] = arg_ref(x, op == 0, last, axis, i);
        OpcBuf in = buf(2, (int64_t[]){3, 4}, x);
        OpcBuf out = axis ? buf(1, (int64_t[]){3}, NULL) : buf(2, (int64_t[]){1, 4}, NULL);
        bool ok = run_matches(c, &in, 1, out, want, 0);
        CHECK(ok);
        if (!ok) printf("    %s\n", call);
      }
  /* the defaults: axis 0, keepdims */
  CHECK(sinfo_is(call_in("x: R.Tensor((3, \"n\"), \"int32\")", "R.argmax(x)"), "R.Tensor((1, n), dtype=\"int64\")"));
  CHECK(round_trips(call_in("x: R.Tensor((2, 3), \"float32\")", "R.argmax(x, axis=1, select_last_index=True)")));
  CHECK(refused(call_in("x: R.Tensor((2, 3), \"float32\")", "R.argmin(x, axis=2)"), false,
                "argmin: axis 2 is out of range for a tensor of rank 2"));
}

/* ---- prod ---------------------------------------------------------------------------------- */

static void test_prod(void) {
  double x[30];
  opc_fill(x, 30, 9u, 0.5, 1.5);
  for (int i = 0; i < 30; i++) x[i] = (float)x[i];
  /* over the odd middle axis of (3, 5, 2) */
  double want[6];
  for (int a = 0; a < 3; a++)
    for (int c = 0; c < 2; c++) {
      double p = 1;
      for (int b = 0; b < 5; b++) p *= x[a * 10 + b * 2 + c];
      want[a * 2 + c] = p;
    }
  const MlcGExpr *c = call_in("x: R.Tensor((3, 5, 2), \"float32\")", "R.prod(x, axis=[1])");
  CHECK(sinfo_is(c, "R.Tensor((3, 2), dtype=\"float32\")"));
  OpcBuf in = buf(3, (int64_t[]){3, 5, 2}, x);
  CHECK(run_matches(c, &in, 1, buf(2, (int64_t[]){3, 2}, NULL), want, 1e-5));
  /* over everything, kept */
  double all = 1;
  for (int i = 0; i < 30; i++) all *= x[i];
  c = call_in("x: R.Tensor((3, 5, 2), \"float32\")", "R.prod(x, keepdims=True)");
  CHECK(sinfo_is(c, "R.Tensor((1, 1, 1), dtype=\"float32\")"));
  CHECK(run_matches(c, &in, 1, buf(3, (int64_t[]){1, 1, 1}, NULL), &all, 1e-5));
  /* integers, negative axis; an empty axis gives 1 */
  double xi[6] = {2, -3, 4, 5, 1, -1}, wi[2] = {-24, -5};
  OpcBuf ii = buf(2, (int64_t[]){2, 3}, xi);
  CHECK(run_matches(call_in("x: R.Tensor((2, 3), \"int32\")", "R.prod(x, axis=-1)"), &ii, 1, buf(1, (int64_t[]){2}, NULL),
                    wi, 0));
  double one[2] = {1, 1};
  OpcBuf empty = buf(2, (int64_t[]){2, 0}, NULL);
  CHECK(run_matches(call_in("x: R.Tensor((2, 0), \"float32\")", "R.prod(x, axis=1)"), &empty, 1,
                    buf(1, (int64_t[]){2}, NULL), one, 0));
  CHECK(round_trips(call_in("x: R.Tensor((2, 5), \"float32\")", "R.prod(x, axis=1)")));
  CHECK(refused(call_in("x: R.Tensor((\"n\", 3), \"float32\")", "R.prod(x, axis=0)"), true,
                "prod: a product over a symbolic dim is not supported"));
}

/* ---- cumsum / cumprod ------------------------------------------------------------------------ */

static void scan_ref(const double *x, double *out, bool prod, bool exclusive, bool reverse) {
  for (int r = 0; r < 2; r++) {
    double acc = prod ? 1 : 0;
    for (int s = 0; s < 5; s++) {
      int j = reverse ? 4 - s : s;
      double v = x[r * 5 + j];
      if (exclusive) out[r * 5 + j] = acc;
      acc = prod ? acc * v : acc + v;
      if (!exclusive) out[r * 5 + j] = acc;
    }
  }
}

static void test_scans(void) {
  double x[10] = {1, -2, 3, 0.5, 2, 4, 1, -1, 2, 0.25}, want[10];
  for (int prod = 0; prod < 2; prod++)
    for (int ex = 0; ex < 2; ex++)
      for (int rev = 0; rev < 2; rev++) {
        char call[128];
        snprintf(call, sizeof call, "R.%s(x, axis=-1, exclusive=%s, reverse=%s)", prod ? "cumprod" : "cumsum",
                 ex ? "True" : "False", rev ? "True" : "False");
        const MlcGExpr *c = call_in("x: R.Tensor((2, 5), \"float32\")", call);
        CHECK(sinfo_is(c, "R.Tensor((2, 5), dtype=\"float32\")"));
        scan_ref(x, want, prod, ex, rev);
        OpcBuf in = buf(2, (int64_t[]){2, 5}, x);
        bool ok = run_matches(c, &in, 1, buf(2, (int64_t[]){2, 5}, NULL), want, 1e-6);
        CHECK(ok);
        if (!ok) printf("    %s\n", call);
      }
  /* no axis: the flattened data; dtype: the accumulator's type */
  double xi[6] = {1, 2, 3, 4, 5, 6}, wi[6] = {1, 3, 6, 10, 15, 21};
  const MlcGExpr *c = call_in("x: R.Tensor((2, 3), \"int32\")", "R.cumsum(x, dtype=\"int64\")");
  CHECK(sinfo_is(c, "R.Tensor((6,), dtype=\"int64\")"));
  OpcBuf in = buf(2, (int64_t[]){2, 3}, xi);
  CHECK(run_matches(c, &in, 1, buf(1, (int64_t[]){6}, NULL), wi, 0));
  CHECK(round_trips(call_in("x: R.Tensor((2, 5), \"float32\")", "R.cumprod(x, axis=1, exclusive=True, reverse=True)")));
  CHECK(round_trips(call_in("x: R.Tensor((\"n\", 5), \"float32\")", "R.cumsum(x)")));
  CHECK(refused(call_in("x: R.Tensor((2, 3), \"float32\")", "R.cumsum(x, axis=-3)"), false,
                "cumsum: axis -3 is out of range for a tensor of rank 2"));
  CHECK(refused(call_in("x: R.Tensor((\"n\",), \"float32\")", "R.cumprod(x, axis=0)"), true,
                "cumprod: a product scan over a symbolic dim is not supported"));
}

/* ---- tril / triu ------------------------------------------------------------------------------ */

static void test_trilu(void) {
  double x[24];
  for (int i = 0; i < 24; i++) x[i] = i + 1;
  for (int upper = 0; upper < 2; upper++)
    for (int kk = -2; kk <= 3; kk++) {
      char call[64];
      snprintf(call, sizeof call, "R.%s(x, k=%d)", upper ? "triu" : "tril", kk);
      const MlcGExpr *c = call_in("x: R.Tensor((2, 3, 4), \"float32\")", call);
      CHECK(sinfo_is(c, "R.Tensor((2, 3, 4), dtype=\"float32\")"));
      double want[24];
      for (int b = 0; b < 2; b++)
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 4; j++) {
            bool keep = upper ? j - i >= kk : j - i <= kk;
            want[b * 12 + i * 4 + j] = keep ? x[b * 12 + i * 4 + j] : 0;
          }
      OpcBuf in = buf(3, (int64_t[]){2, 3, 4}, x);
      bool ok = run_matches(c, &in, 1, buf(3, (int64_t[]){2, 3, 4}, NULL), want, 0);
      CHECK(ok);
      if (!ok) printf("    %s\n", call);
    }
  CHECK(refused(call_in("x: R.Tensor((3,), \"float32\")", "R.tril(x)"), true,
                "tril: x must have at least 2 dims, got 1"));
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_argreduce);
  RUN(test_prod);
  RUN(test_scans);
  RUN(test_trilu);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
