/* test_ops_datadep.c - compact_index, sort_rank, rank_positions,
 * match_count and row_compare (src/ops/datadep.c) one call at a time: struct info, refusals, and the
 * legalized prim funcs run by the reference interpreter against positions
 * and coordinates of a mask's ones found here by a plain scan, and against
 * the order of rows found here by an insertion sort and counts of equal
 * and smaller elements found by plain loops, and against rows compared
 * lexicographically by a plain loop.  (The executor's side, the count read at run
 * time, is checked through the ONNX conformance tests of NonZero and
 * Compress and in test_onnx_datadep.c.) */
#include "op_call_check.h"

static const int mask[12] = {0, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0, 1};

static void test_positions(void) {
  double counts[12], pos[12], coords[2 * 12];
  int c = 0;
  for (int i = 0; i < 12; i++) {
    c += mask[i];
    counts[i] = c;
  }
  int k = 0;
  for (int i = 0; i < 12; i++)
    if (mask[i]) pos[k++] = i;
  for (int j = 0; j < k; j++) {
    coords[j] = (int)pos[j] / 4;
    coords[k + j] = (int)pos[j] % 4;
  }
  const char *p = "c: R.Tensor((12,), \"int64\")";
  OpcBuf in = buf(1, (int64_t[]){12}, counts);
  const MlcGExpr *flat = call_in(p, "R.compact_index(c, shape=[6])");
  CHECK(sinfo_is(flat, "R.Tensor((6,), dtype=\"int64\")"));
  CHECK(round_trips(flat));
  CHECK(run_matches(flat, &in, 1, buf(1, (int64_t[]){6}, NULL), pos, 0));
  const MlcGExpr *nz = call_in(p, "R.compact_index(c, shape=[6], dims=[3, 4])");
  CHECK(sinfo_is(nz, "R.Tensor((2, 6), dtype=\"int64\")"));
  CHECK(round_trips(nz));
  CHECK(run_matches(nz, &in, 1, buf(2, (int64_t[]){2, 6}, NULL), coords, 0));
  /* an output longer than the count: the positions, then zeros (no read outside counts) */
  double longer[8] = {0};
  for (int j = 0; j < k; j++) longer[j] = pos[j];
  CHECK(run_matches(call_in(p, "R.compact_index(c, shape=[8])"), &in, 1, buf(1, (int64_t[]){8}, NULL), longer, 0));
  /* no ones at all: an empty output */
  double zeros[5] = {0};
  OpcBuf none = buf(1, (int64_t[]){5}, zeros);
  CHECK(run_matches(call_in("c: R.Tensor((5,), \"int64\")", "R.compact_index(c, shape=[0])"), &none, 1,
                    buf(1, (int64_t[]){0}, NULL), zeros, 0));
}

static void test_refusals(void) {
  const char *p = "c: R.Tensor((12,), \"int64\"), f: R.Tensor((12,), \"float32\")";
  CHECK(refused(call_in(p, "R.compact_index(f, shape=[6])"), false,
                "compact_index: counts: expected a 1-D int64 tensor"));
  CHECK(refused(call_in(p, "R.compact_index(c, shape=[6, 2])"), false,
                "compact_index: shape: expected one dim (the count), got 2"));
  CHECK(refused(call_in(p, "R.compact_index(c, shape=[6], dims=[5, 2])"), false,
                "compact_index: dims: their product (10) must be the static length of counts"));
}

/* x (2, 5) with ties; per row, the indices in order (largest first, equal
 * values by index) by a stable insertion sort */
static const double xr[10] = {3, 1, 3, -2, 0.5, 7, 7, 7, -1, 8};

static void order(bool largest, int row, int *idx) {
  for (int i = 0; i < 5; i++) {
    int j = i;
    double v = xr[row * 5 + i];
    while (j > 0 && (largest ? xr[row * 5 + idx[j - 1]] < v : xr[row * 5 + idx[j - 1]] > v)) idx[j] = idx[j - 1], j--;
    idx[j] = i;
  }
}

static void test_sort_rank(void) {
  const char *p = "x: R.Tensor((2, 5), \"float32\")";
  double x[10], rank[2][10], first[2][6];
  for (int i = 0; i < 10; i++) x[i] = xr[i];
  for (int l = 0; l < 2; l++) {
    for (int r = 0; r < 2; r++) {
      int idx[5];
      order(l == 0, r, idx);
      for (int j = 0; j < 5; j++) rank[l][r * 5 + idx[j]] = j;
      for (int j = 0; j < 3; j++) first[l][r * 3 + j] = idx[j];
    }
  }
  OpcBuf in = buf(2, (int64_t[]){2, 5}, x);
  const MlcGExpr *big = call_in(p, "R.sort_rank(x, axis=1)");
  CHECK(sinfo_is(big, "R.Tensor((2, 5), dtype=\"int64\")"));
  CHECK(round_trips(big));
  CHECK(run_matches(big, &in, 1, buf(2, (int64_t[]){2, 5}, NULL), rank[0], 0));
  CHECK(run_matches(call_in(p, "R.sort_rank(x, axis=-1, largest=False)"), &in, 1, buf(2, (int64_t[]){2, 5}, NULL),
                    rank[1], 0));
  /* the first 3 of each row, from the ranks */
  for (int l = 0; l < 2; l++) {
    OpcBuf rb = buf(2, (int64_t[]){2, 5}, rank[l]);
    const MlcGExpr *c = call_in("r: R.Tensor((2, 5), \"int64\")", "R.rank_positions(r, axis=1, shape=[3])");
    CHECK(sinfo_is(c, "R.Tensor((2, 3), dtype=\"int64\")"));
    CHECK(round_trips(c));
    CHECK(run_matches(c, &rb, 1, buf(2, (int64_t[]){2, 3}, NULL), first[l], 0));
  }
  /* along axis 0 of the transpose: the same orders */
  double xt[10], rt[10];
  for (int r = 0; r < 2; r++)
    for (int i = 0; i < 5; i++) xt[i * 2 + r] = xr[r * 5 + i], rt[i * 2 + r] = rank[0][r * 5 + i];
  OpcBuf tin = buf(2, (int64_t[]){5, 2}, xt);
  CHECK(run_matches(call_in("x: R.Tensor((5, 2), \"float32\")", "R.sort_rank(x, axis=0)"), &tin, 1,
                    buf(2, (int64_t[]){5, 2}, NULL), rt, 0));
  CHECK(refused(call_in(p, "R.sort_rank(x, axis=2)"), false, "sort_rank: axis 2 is out of range for a tensor of rank 2"));
  CHECK(refused(call_in(p, "R.rank_positions(x, axis=1, shape=[3])"), false, "rank_positions: rank: expected int64 values"));
}

/* match_count's kinds on a 1-D x with repeats, against plain loops */
static void test_match_count(void) {
  static const double xv[7] = {2, -1, 2, 0, -1, 2, 5};
  double x[7], w[7] = {1, 0, 1, 1, 0, 2, 1}, want[4][7], wless[7];
  for (int i = 0; i < 7; i++) x[i] = xv[i];
  for (int i = 0; i < 7; i++) {
    want[0][i] = want[1][i] = want[2][i] = wless[i] = 0;
    want[3][i] = i;
    for (int l = 6; l >= 0; l--) {
      want[0][i] += xv[l] == xv[i];
      want[1][i] += xv[l] == xv[i] && l < i;
      want[2][i] += xv[l] < xv[i];
      wless[i] += xv[l] < xv[i] ? w[l] : 0;
      if (xv[l] == xv[i]) want[3][i] = l;
    }
  }
  static const char *const calls[4] = {"R.match_count(x)", "R.match_count(x, kind=\"equal_before\")",
                                        "R.match_count(x, kind=\"less\")", "R.match_count(x, kind=\"first_equal\")"};
  const char *p = "x: R.Tensor((7,), \"float32\"), w: R.Tensor((7,), \"int64\")";
  OpcBuf in = buf(1, (int64_t[]){7}, x);
  for (int k = 0; k < 4; k++) {
    const MlcGExpr *c = call_in(p, calls[k]);
    CHECK(sinfo_is(c, "R.Tensor((7,), dtype=\"int64\")"));
    CHECK(round_trips(c));
    CHECK(run_matches(c, &in, 1, buf(1, (int64_t[]){7}, NULL), want[k], 0));
  }
  OpcBuf ins[2] = {buf(1, (int64_t[]){7}, x), buf(1, (int64_t[]){7}, w)};
  CHECK(run_matches(call_in(p, "R.match_count(x, w, kind=\"less\")"), ins, 2, buf(1, (int64_t[]){7}, NULL), wless, 0));
  CHECK(refused(call_in(p, "R.match_count(x, w, kind=\"first_equal\")"), false,
                "match_count: weights: not taken by kind \"first_equal\""));
  CHECK(refused(call_in(p, "R.match_count(x, kind=\"greater\")"), false,
                "match_count: kind: expected \"equal\", \"equal_before\", \"less\" or \"first_equal\", got \"greater\""));
}

/* row_compare on rows with repeats and ties in leading columns, against a
 * plain lexicographic comparison */
static void test_row_compare(void) {
  static const double xv[6][3] = {{1, 2, 3}, {1, 2, 2}, {0, 9, 9}, {1, 2, 3}, {1, 3, -1}, {0, 9, 9}};
  double x[18], want[36];
  for (int i = 0; i < 6; i++)
    for (int m = 0; m < 3; m++) x[i * 3 + m] = xv[i][m];
  for (int i = 0; i < 6; i++)
    for (int l = 0; l < 6; l++) {
      int c = 0;
      for (int m = 0; m < 3 && c == 0; m++) c = xv[l][m] < xv[i][m] ? -1 : xv[l][m] > xv[i][m] ? 1 : 0;
      want[i * 6 + l] = c;
    }
  const char *p = "x: R.Tensor((6, 3), \"float32\"), v: R.Tensor((6,), \"float32\")";
  OpcBuf in = buf(2, (int64_t[]){6, 3}, x);
  const MlcGExpr *c = call_in(p, "R.row_compare(x)");
  CHECK(sinfo_is(c, "R.Tensor((6, 6), dtype=\"int64\")"));
  CHECK(round_trips(c));
  CHECK(run_matches(c, &in, 1, buf(2, (int64_t[]){6, 6}, NULL), want, 0));
  CHECK(run_matches(call_in("x: R.Tensor((6, 3), \"int32\")", "R.row_compare(x)"), &in, 1,
                    buf(2, (int64_t[]){6, 6}, NULL), want, 0));
  CHECK(refused(call_in(p, "R.row_compare(v)"), false,
                "row_compare: x: expected a 2-D tensor of scalars (rows to compare), got (6,)"));
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_positions);
  RUN(test_refusals);
  RUN(test_sort_rank);
  RUN(test_match_count);
  RUN(test_row_compare);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
