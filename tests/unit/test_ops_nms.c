/* test_ops_nms.c - vision.nms_select (src/ops/nms.c): struct info,
 * refusals, the text round trip of its prim func, and the prim func run by
 * the reference interpreter against the greedy selection written plainly
 * in nms_ref.h, on boxes drawn from a fixed generator with tied scores, flipped
 * corners, empty and identical boxes.  The executor's side (the count read
 * at run time, the [n, 3] rows) is checked by the ONNX conformance tests of
 * NonMaxSuppression. */
#include "op_call_check.h"
#include "nms_ref.h"

enum { B = 2, C = 3, N = 10 };

static double boxes[B * N * 4], scores[B * C * N], order[B * C * N];

static uint32_t seed = 12345;
static int next(int m) {
  seed = seed * 1103515245u + 12345u;
  return (int)((seed >> 16) % (uint32_t)m);
}

static void make_inputs(void) {
  for (int b = 0; b < B; b++)
    for (int i = 0; i < N; i++) {
      double *p = &boxes[(b * N + i) * 4];
      for (int d = 0; d < 4; d++) p[d] = next(8) * 0.5;
      if (i == 3) memcpy(p, &boxes[(b * N + 1) * 4], 4 * sizeof *p); /* box 3 is box 1 */
      if (i == 5) p[2] = p[0];                                        /* box 5 is empty */
    }
  /* four score levels: many ties */
  for (int k = 0; k < B * C * N; k++) scores[k] = 0.1 + 0.2 * next(4);
  /* order: per class, indices by score (highest first), ties by index */
  for (int bc = 0; bc < B * C; bc++) {
    int idx[N];
    for (int i = 0; i < N; i++) {
      int j = i;
      while (j > 0 && scores[bc * N + idx[j - 1]] < scores[bc * N + i]) idx[j] = idx[j - 1], j--;
      idx[j] = i;
    }
    for (int i = 0; i < N; i++) order[bc * N + i] = idx[i];
  }
}

/* the selection, per class: taken indices in order, then -1 */
static void reference(int64_t max_out, float thr, bool has_score, float sthr, bool centre, double *want) {
  float fb[B * N * 4], fs[B * C * N];
  int64_t sel[B * C * N];
  for (int i = 0; i < B * N * 4; i++) fb[i] = (float)boxes[i];
  for (int i = 0; i < B * C * N; i++) fs[i] = (float)scores[i];
  nmsref_select(fb, fs, B, C, N, max_out, thr, has_score, sthr, centre, sel);
  for (int i = 0; i < B * C * N; i++) want[i] = (double)sel[i];
}

static const char *params = "boxes: R.Tensor((2, 10, 4), \"float32\"), scores: R.Tensor((2, 3, 10), \"float32\"), "
                            "order: R.Tensor((2, 3, 10), \"int64\"), m: R.Tensor((1,), \"int64\"), "
                            "t: R.Tensor((1,), \"float32\"), s: R.Tensor((1,), \"float32\"), ms: R.Tensor((), \"int64\"), "
                            "m2: R.Tensor((2,), \"int64\"), f: R.Tensor((2, 10, 3), \"float32\")";

static bool selects(const char *call, int64_t max_out, double thr, bool has_score, double sthr, bool centre) {
  double want[B * C * N], m = (double)max_out, t = thr, s = sthr;
  reference(max_out, (float)thr, has_score, (float)sthr, centre, want);
  OpcBuf in[6] = {buf(3, (int64_t[]){B, N, 4}, boxes), buf(3, (int64_t[]){B, C, N}, scores),
                  buf(3, (int64_t[]){B, C, N}, order), buf(1, (int64_t[]){1}, &m), buf(1, (int64_t[]){1}, &t),
                  buf(1, (int64_t[]){1}, &s)};
  return run_matches(call_in(params, call), in, has_score ? 6 : 5, buf(3, (int64_t[]){B, C, N}, NULL), want, 0);
}

static void test_select(void) {
  make_inputs();
  const MlcGExpr *c = call_in(params, "R.vision.nms_select(boxes, scores, order, m, t, s)");
  CHECK(sinfo_is(c, "R.Tensor((2, 3, 10), dtype=\"int64\")"));
  CHECK(round_trips(c));
  CHECK(round_trips(call_in(params, "R.vision.nms_select(boxes, scores, order, center_point_box=1)")));
  const char *plain = "R.vision.nms_select(boxes, scores, order, m, t)";
  const char *scored = "R.vision.nms_select(boxes, scores, order, m, t, s)";
  const char *centre = "R.vision.nms_select(boxes, scores, order, m, t, s, center_point_box=1)";
  CHECK(selects(plain, 10, 0.0, false, 0, false));
  CHECK(selects(plain, 3, 0.3, false, 0, false));
  CHECK(selects(plain, 100, 0.5, false, 0, false));
  CHECK(selects(plain, -2, 0.5, false, 0, false)); /* negative: nothing */
  CHECK(selects(scored, 4, 0.25, true, 0.3, false));
  CHECK(selects(scored, 10, 0.0, true, 0.6, false));
  CHECK(selects(centre, 10, 0.2, true, 0.0, true));
  CHECK(selects(centre, 2, 0.7, true, 0.2, true));
  /* without max_output nothing is selected */
  double none[B * C * N];
  for (int i = 0; i < B * C * N; i++) none[i] = -1;
  OpcBuf in[3] = {buf(3, (int64_t[]){B, N, 4}, boxes), buf(3, (int64_t[]){B, C, N}, scores),
                  buf(3, (int64_t[]){B, C, N}, order)};
  CHECK(run_matches(call_in(params, "R.vision.nms_select(boxes, scores, order)"), in, 3,
                    buf(3, (int64_t[]){B, C, N}, NULL), none, 0));
  /* a scalar max_output */
  double want[B * C * N], m = 5;
  reference(5, 0.0f, false, 0, false, want);
  OpcBuf ins[4] = {in[0], in[1], in[2], buf(0, NULL, &m)};
  CHECK(run_matches(call_in(params, "R.vision.nms_select(boxes, scores, order, ms)"), ins, 4,
                    buf(3, (int64_t[]){B, C, N}, NULL), want, 0));
}

/* order holding indices outside 0 .. N-1: clamped, every access stays inside */
static void test_bad_order(void) {
  double bad[B * C * N], m = 10, t = 0.5;
  for (int i = 0; i < B * C * N; i++) bad[i] = (i % 3 == 0) ? 1e6 : -7;
  OpcBuf in[5] = {buf(3, (int64_t[]){B, N, 4}, boxes), buf(3, (int64_t[]){B, C, N}, scores),
                  buf(3, (int64_t[]){B, C, N}, bad), buf(1, (int64_t[]){1}, &m), buf(1, (int64_t[]){1}, &t)};
  OpcBuf out = buf(3, (int64_t[]){B, C, N}, NULL);
  const MlcGExpr *c = call_in(params, "R.vision.nms_select(boxes, scores, order, m, t)");
  bool ran = c && opc_run(ctx, c, in, 5, &out, 1);
  CHECK(ran);
  for (int i = 0; ran && i < B * C * N; i++) CHECK(out.v[i] >= -1 && out.v[i] < N);
  if (ran) opc_free(&out, 1);
}

static void test_refusals(void) {
  CHECK(refused(call_in(params, "R.vision.nms_select(f, scores, order)"), false,
                "vision.nms_select: boxes: expected 4 coordinates per box, got 3"));
  CHECK(refused(call_in(params, "R.vision.nms_select(boxes, order, order)"), false,
                "vision.nms_select: scores: expected a 3-D float32 tensor of static shape, got int64 (2, 3, 10)"));
  CHECK(refused(call_in(params, "R.vision.nms_select(boxes, scores, order, m2)"), false,
                "vision.nms_select: max_output: expected one int64 value (a scalar or a tensor of shape (1,)), got int64 (2,)"));
  CHECK(refused(call_in(params, "R.vision.nms_select(boxes, scores, order, t)"), false,
                "vision.nms_select: max_output: expected one int64 value (a scalar or a tensor of shape (1,)), got float32 (1,)"));
  CHECK(refused(call_in(params, "R.vision.nms_select(boxes, scores, order, center_point_box=2)"), false,
                "vision.nms_select: center_point_box: expected 0 or 1, got 2"));
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_select);
  RUN(test_bad_order);
  RUN(test_refusals);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
