/* test_ops_datadep.c - compact_index (src/ops/datadep.c) one call at a
 * time: struct info, refusals, and the legalized prim func run by the
 * reference interpreter against positions and coordinates of a mask's ones
 * found here by a plain scan.  (The executor's side, the count read at run
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

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_positions);
  RUN(test_refusals);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
