/* test_ops_scan.c - the scan kernels (src/ops/scan_prim.c) and argsort's
 * nan_last, run by the reference interpreter: compact_index on a long
 * random mask (its prefix sums, or the mask itself) against the positions
 * picked here, and on counts that are
 * no prefix sums against its definition evaluated term by term;
 * argsort with nan_last against a stable insertion sort here; every part
 * of unique_scan on long inputs with many duplicates and NaNs against
 * first occurrences found by comparing each element with those before it;
 * the refusals. */
#include "op_call_check.h"

static uint32_t seed = 12345;
static uint32_t rnd(void) {
  seed = seed * 1103515245u + 12345u;
  return seed >> 16;
}

enum { NM = 6000, R0 = 60, R1 = 100 };
static double counts[NM], want[2 * NM];

static void test_compact_long(void) {
  int64_t k = 0, pos[NM];
  for (int i = 0; i < NM; i++) {
    int one = rnd() % 10 < 3;
    if (one) pos[k++] = i;
    counts[i] = (double)k;
  }
  char p[64], call[96];
  snprintf(p, sizeof p, "c: R.Tensor((%d,), \"int64\")", NM);
  OpcBuf in = buf(1, (int64_t[]){NM}, counts);
  for (int j = 0; j < k; j++) want[j] = (double)pos[j];
  snprintf(call, sizeof call, "R.compact_index(c, shape=[%lld])", (long long)k);
  CHECK(run_matches(call_in(p, call), &in, 1, buf(1, (int64_t[]){k}, NULL), want, 0));
  for (int j = 0; j < k; j++) want[j] = (double)(pos[j] / R1), want[k + j] = (double)(pos[j] % R1);
  snprintf(call, sizeof call, "R.compact_index(c, shape=[%lld], dims=[%d, %d])", (long long)k, R0, R1);
  CHECK(run_matches(call_in(p, call), &in, 1, buf(2, (int64_t[]){2, k}, NULL), want, 0));
  /* the mask itself (mask=True), ones and other non-zeros, and an output longer than its count */
  static double mask[NM];
  for (int i = 0; i < NM; i++) mask[i] = counts[i] - (i ? counts[i - 1] : 0);
  mask[pos[0]] = -7, mask[pos[1]] = 3;
  OpcBuf mi = buf(1, (int64_t[]){NM}, mask);
  snprintf(call, sizeof call, "R.compact_index(c, shape=[%lld], dims=[%d, %d], mask=True)", (long long)k, R0, R1);
  CHECK(run_matches(call_in(p, call), &mi, 1, buf(2, (int64_t[]){2, k}, NULL), want, 0));
  for (int j = 0; j < k + 5; j++) want[j] = j < k ? (double)pos[j] : 0;
  snprintf(call, sizeof call, "R.compact_index(c, shape=[%lld], mask=True)", (long long)k + 5);
  CHECK(run_matches(call_in(p, call), &mi, 1, buf(1, (int64_t[]){k + 5}, NULL), want, 0));
}

/* counts that are no prefix sums: out[j] sums every i with counts[i] == j + 1
 * and (i == 0 or counts[i - 1] == j) */
static void test_compact_any_counts(void) {
  enum { N = 40, K = 6 };
  double c[N], w[K] = {0};
  for (int i = 0; i < N; i++) c[i] = (double)((int)(rnd() % 12) - 3);
  c[5] = 1e18, c[6] = -1e18; /* far out of range */
  for (int j = 0; j < K; j++)
    for (int i = 0; i < N; i++)
      if (c[i] == j + 1 && (i == 0 || c[i - 1] == j)) w[j] += i;
  OpcBuf in = buf(1, (int64_t[]){N}, c);
  CHECK(run_matches(call_in("c: R.Tensor((40,), \"int64\")", "R.compact_index(c, shape=[6])"), &in, 1,
                    buf(1, (int64_t[]){K}, NULL), w, 0));
}

enum { NU = 1500 };
static double xs[NU], order_v[NU];

/* a before b in the order: smaller (larger when largest), NaN after every number */
static bool before(double a, double b, bool largest) {
  if (isnan(a) || isnan(b)) return !isnan(a) && isnan(b);
  return largest ? a > b : a < b;
}

static void stable_order(const double *x, int n, bool largest, double *out) {
  int *idx = malloc(sizeof *idx * (size_t)n);
  for (int i = 0; i < n; i++) {
    int j = i;
    while (j > 0 && before(x[i], x[idx[j - 1]], largest)) idx[j] = idx[j - 1], j--;
    idx[j] = i;
  }
  for (int i = 0; i < n; i++) out[i] = idx[i];
  free(idx);
}

/* values 0 .. span-1, about one in `nan_every` a NaN */
static void fill(double *x, int n, int span, int nan_every) {
  for (int i = 0; i < n; i++) x[i] = nan_every && rnd() % nan_every == 0 ? NAN : (double)(rnd() % span) - span / 2;
}

static void test_argsort_nan_last(void) {
  fill(xs, 333, 20, 7);
  xs[0] = NAN, xs[332] = -1e9;
  OpcBuf in = buf(1, (int64_t[]){333}, xs);
  for (int largest = 0; largest < 2; largest++) {
    double w[333];
    char call[96];
    stable_order(xs, 333, largest, w);
    snprintf(call, sizeof call, "R.argsort(x, axis=0, largest=%s, shape=[333], nan_last=True)", largest ? "True" : "False");
    CHECK(run_matches(call_in("x: R.Tensor((333,), \"float32\")", call), &in, 1, buf(1, (int64_t[]){333}, NULL), w, 0));
  }
}

/* the parts of unique_scan of x (n elements of dtype) against first
 * occurrences found by scanning back from each element */
static void unique_case(int n, const char *dtype, bool sorted) {
  static int first[NU], uniq[NU], key[NU];
  static double w[NU];
  int nu = 0;
  for (int i = 0; i < n; i++) {
    first[i] = i;
    for (int l = 0; l < i && first[i] == i; l++)
      if (xs[l] == xs[i]) first[i] = l;
    if (first[i] == i) uniq[nu++] = i;
  }
  if (sorted) /* the first occurrences by value, NaN last, then index */
    for (int i = 1; i < nu; i++)
      for (int j = i; j > 0 && before(xs[uniq[j]], xs[uniq[j - 1]], false); j--) {
        int t = uniq[j];
        uniq[j] = uniq[j - 1], uniq[j - 1] = t;
      }
  for (int u = 0; u < nu; u++) key[uniq[u]] = u;
  stable_order(xs, n, false, order_v);
  char p[128], call[160];
  snprintf(p, sizeof p, "x: R.Tensor((%d,), \"%s\"), o: R.Tensor((%d,), \"int64\")", n, dtype, n);
  OpcBuf in[2] = {buf(1, (int64_t[]){n}, xs), buf(1, (int64_t[]){n}, order_v)};
  const char *st = sorted ? "True" : "False";
  snprintf(call, sizeof call, "R.unique_scan(x, o, sorted=%s, part=\"total\")", st);
  double total = nu;
  CHECK(run_matches(call_in(p, call), in, 2, buf(1, (int64_t[]){1}, NULL), &total, 0));
  for (int i = 0; i < n; i++) w[i] = key[first[i]];
  snprintf(call, sizeof call, "R.unique_scan(x, o, sorted=%s, part=\"inverse\")", st);
  CHECK(run_matches(call_in(p, call), in, 2, buf(1, (int64_t[]){n}, NULL), w, 0));
  for (int u = 0; u < nu; u++) w[u] = uniq[u];
  snprintf(call, sizeof call, "R.unique_scan(x, o, sorted=%s, part=\"first\", shape=[%d])", st, nu);
  CHECK(run_matches(call_in(p, call), in, 2, buf(1, (int64_t[]){nu}, NULL), w, 0));
  for (int u = 0; u < nu; u++) w[u] = 0;
  for (int i = 0; i < n; i++) w[key[first[i]]]++;
  snprintf(call, sizeof call, "R.unique_scan(x, o, sorted=%s, part=\"count\", shape=[%d])", st, nu);
  CHECK(run_matches(call_in(p, call), in, 2, buf(1, (int64_t[]){nu}, NULL), w, 0));
  printf("    %s n=%d sorted=%d: %d distinct\n", dtype, n, sorted, nu);
}

static void test_unique(void) {
  for (int sorted = 0; sorted < 2; sorted++) {
    fill(xs, NU, 200, 10);
    xs[3] = -0.0, xs[4] = 0.0; /* equal */
    unique_case(NU, "float64", sorted);
    fill(xs, NU, 50, 0);
    unique_case(NU, "int32", sorted);
    xs[0] = NAN;
    unique_case(1, "float32", sorted);
  }
}

/* struct info and the text round trip, with sizes read at run time */
static void test_shapes(void) {
  const char *p = "x: R.Tensor((5,), \"float32\"), o: R.Tensor((5,), \"int64\"), y: R.Tensor((\"n\",), \"int64\")";
  const MlcGExpr *c = call_in(p, "R.unique_scan(x, o, sorted=False, part=\"count\", shape=[n])");
  CHECK(sinfo_is(c, "R.Tensor((n,), dtype=\"int64\")"));
  CHECK(round_trips(c));
  c = call_in(p, "R.unique_scan(x, o, part=\"total\")");
  CHECK(sinfo_is(c, "R.Tensor((1,), dtype=\"int64\")"));
  CHECK(round_trips(c));
  c = call_in(p, "R.compact_index(o, shape=[n], dims=[5])");
  CHECK(sinfo_is(c, "R.Tensor((1, n), dtype=\"int64\")"));
  CHECK(round_trips(c));
}

static void test_refusals(void) {
  const char *p = "x: R.Tensor((5,), \"float32\"), o: R.Tensor((5,), \"int64\"), q: R.Tensor((4,), \"int64\"), "
                  "b: R.Tensor((5,), \"bool\")";
  CHECK(refused(call_in(p, "R.unique_scan(x, o, part=\"middle\")"), false,
                "unique_scan: part: expected \"inverse\", \"first\", \"count\" or \"total\", got \"middle\""));
  CHECK(refused(call_in(p, "R.unique_scan(x, q)"), false, "unique_scan: order: expected a 1-D int64 tensor of x's length 5"));
  CHECK(refused(call_in(p, "R.unique_scan(x, o, part=\"inverse\", shape=[2])"), false,
                "unique_scan: shape: not taken by part \"inverse\""));
  CHECK(refused(call_in(p, "R.unique_scan(x, o, part=\"first\", shape=[6])"), false,
                "unique_scan: shape: 6 is more than x's length 5"));
  CHECK(refused(call_in(p, "R.unique_scan(b, o, part=\"total\")"), false,
                "unique_scan: x: expected a 1-D tensor of numbers of static length, got (5,)"));
  CHECK(refused(call_in("c: R.Tensor((\"n\",), \"int64\")", "R.compact_index(c, shape=[2])"), false,
                "compact_index: counts: expected a static length, got (n,)"));
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_compact_long);
  RUN(test_compact_any_counts);
  RUN(test_argsort_nan_last);
  RUN(test_unique);
  RUN(test_shapes);
  RUN(test_refusals);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
