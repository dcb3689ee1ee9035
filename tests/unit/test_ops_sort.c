/* test_ops_sort.c - argsort (src/ops/sort.c): struct info, refusals, the
 * text round trip of its prim func, and the prim func run by the reference
 * interpreter against a stable insertion sort written here, along every
 * axis of a 3-D x with many ties, both directions, whole rows and their
 * first places, lengths that are and are not powers of two, and one long
 * row against qsort ordered by value, then index. */
#include "op_call_check.h"

enum { D0 = 3, D1 = 7, D2 = 4 };

static double x[D0 * D1 * D2];

static int64_t stride_of(int axis) { return axis == 0 ? D1 * D2 : axis == 1 ? D2 : 1; }

/* the first k indices of each row along axis, in order (stable), into want
 * laid out as x's shape with k along axis */
static void reference(int axis, bool largest, int k, double *want) {
  const int64_t dims[3] = {D0, D1, D2};
  int64_t D = dims[axis], st = stride_of(axis);
  int64_t odims[3] = {dims[0], dims[1], dims[2]};
  odims[axis] = k;
  for (int64_t a = 0; a < D0 * D1 * D2; a++) {
    int64_t c[3] = {a / (D1 * D2), a / D2 % D1, a % D2};
    if (c[axis] != 0) continue;
    int idx[16];
    for (int i = 0; i < D; i++) {
      int j = i;
      double v = x[a + i * st];
      while (j > 0 && (largest ? x[a + idx[j - 1] * st] < v : x[a + idx[j - 1] * st] > v)) idx[j] = idx[j - 1], j--;
      idx[j] = i;
    }
    for (int j = 0; j < k; j++) {
      int64_t o[3] = {c[0], c[1], c[2]};
      o[axis] = j;
      want[(o[0] * odims[1] + o[1]) * odims[2] + o[2]] = idx[j];
    }
  }
}

static void test_orders(void) {
  uint32_t seed = 99;
  for (int i = 0; i < D0 * D1 * D2; i++) {
    seed = seed * 1103515245u + 12345u;
    x[i] = (double)((seed >> 16) % 5) - 2.0; /* five values: many ties */
  }
  const char *p = "x: R.Tensor((3, 7, 4), \"float32\")";
  OpcBuf in = buf(3, (int64_t[]){D0, D1, D2}, x);
  const MlcGExpr *c = call_in(p, "R.argsort(x, axis=1, shape=[7])");
  CHECK(sinfo_is(c, "R.Tensor((3, 7, 4), dtype=\"int64\")"));
  CHECK(round_trips(c));
  static const int dims[3] = {D0, D1, D2};
  for (int axis = 0; axis < 3; axis++)
    for (int largest = 0; largest < 2; largest++)
      for (int k = dims[axis]; k >= 0; k -= (k > 2 ? 3 : 1)) {
        double want[D0 * D1 * D2];
        char call[128];
        snprintf(call, sizeof call, "R.argsort(x, axis=%d, largest=%s, shape=[%d])", axis - 3, largest ? "True" : "False", k);
        reference(axis, largest, k, want);
        int64_t os[3] = {D0, D1, D2};
        os[axis] = k;
        bool ok = run_matches(call_in(p, call), &in, 1, buf(3, os, NULL), want, 0);
        if (!ok) printf("    %s\n", call);
        CHECK(ok);
      }
}

/* a symbolic k (TopK's k read at run time) and a single element */
static void test_shapes(void) {
  const MlcGExpr *c = call_in("x: R.Tensor((3, 7, 4), \"float32\"), y: R.Tensor((\"n\",), \"int64\")",
                              "R.argsort(x, axis=1, shape=[n])");
  CHECK(sinfo_is(c, "R.Tensor((3, n, 4), dtype=\"int64\")"));
  CHECK(round_trips(c));
  double one[1] = {5}, zero[1] = {0};
  OpcBuf in = buf(1, (int64_t[]){1}, one);
  CHECK(run_matches(call_in("x: R.Tensor((1,), \"int32\")", "R.argsort(x, axis=0, shape=[1])"), &in, 1,
                    buf(1, (int64_t[]){1}, NULL), zero, 0));
}

/* a long row (777: passes of every width up to 512, the last run short) */
static double big[777];
static int by_value_then_index(const void *a, const void *b) {
  int i = *(const int *)a, j = *(const int *)b;
  if (big[i] != big[j]) return big[i] > big[j] ? -1 : 1; /* largest first */
  return i - j;
}

static void test_long_row(void) {
  uint32_t seed = 7;
  int idx[777];
  double want[777];
  for (int i = 0; i < 777; i++) {
    seed = seed * 1103515245u + 12345u;
    big[i] = (double)((seed >> 16) % 100);
    idx[i] = i;
  }
  qsort(idx, 777, sizeof *idx, by_value_then_index);
  for (int i = 0; i < 777; i++) want[i] = idx[i];
  OpcBuf in = buf(1, (int64_t[]){777}, big);
  CHECK(run_matches(call_in("x: R.Tensor((777,), \"float64\")", "R.argsort(x, axis=0, shape=[777])"), &in, 1,
                    buf(1, (int64_t[]){777}, NULL), want, 0));
}

static void test_refusals(void) {
  const char *p = "x: R.Tensor((3, 7, 4), \"float32\"), b: R.Tensor((3,), \"bool\")";
  CHECK(refused(call_in(p, "R.argsort(x, axis=1, shape=[8])"), false, "argsort: shape: 8 is more than the axis' length 7"));
  CHECK(refused(call_in(p, "R.argsort(x, axis=3, shape=[2])"), false, "argsort: axis 3 is out of range for a tensor of rank 3"));
  CHECK(refused(call_in(p, "R.argsort(b, shape=[2])"), false, "argsort: x: expected numbers"));
  CHECK(refused(call_in(p, "R.argsort(x, shape=[2, 2])"), false, "argsort: shape: expected one dim (the count along axis), got 2"));
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_orders);
  RUN(test_shapes);
  RUN(test_long_row);
  RUN(test_refusals);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
