/* test_ops_nms.c - vision.nms_select (src/ops/nms.c): struct info,
 * refusals, the text round trip of its prim func, and the prim func run by
 * the reference interpreter against a greedy selection written here as
 * ONNX describes it (candidates above the score threshold sorted by score,
 * highest first and equal scores by index; each taken unless a box taken
 * before overlaps it by an IoU above the threshold; at most max_output per
 * class), on boxes drawn from a fixed generator with tied scores, flipped
 * corners, empty and identical boxes.  The executor's side (the count read
 * at run time, the [n, 3] rows) is checked by the ONNX conformance tests of
 * NonMaxSuppression. */
#include "op_call_check.h"

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

static float iou_float(const double *p, const double *q, bool centre, bool *valid) {
  float a[4], c[4]; /* x0, x1, y0, y1 of each box */
  const double *bx[2] = {p, q};
  float *o[2] = {a, c};
  for (int k = 0; k < 2; k++) {
    float v[4] = {(float)bx[k][0], (float)bx[k][1], (float)bx[k][2], (float)bx[k][3]};
    if (centre) {
      o[k][0] = v[0] - v[2] / 2, o[k][1] = v[0] + v[2] / 2, o[k][2] = v[1] - v[3] / 2, o[k][3] = v[1] + v[3] / 2;
    } else {
      o[k][0] = fminf(v[1], v[3]), o[k][1] = fmaxf(v[1], v[3]), o[k][2] = fminf(v[0], v[2]), o[k][3] = fmaxf(v[0], v[2]);
    }
  }
  float ix0 = fmaxf(a[0], c[0]), ix1 = fminf(a[1], c[1]), iy0 = fmaxf(a[2], c[2]), iy1 = fminf(a[3], c[3]);
  *valid = false;
  if (ix1 <= ix0 || iy1 <= iy0) return 0;
  float inter = (ix1 - ix0) * (iy1 - iy0);
  float a1 = (a[1] - a[0]) * (a[3] - a[2]), a2 = (c[1] - c[0]) * (c[3] - c[2]);
  float uni = a1 + a2 - inter;
  if (inter <= 0 || a1 <= 0 || a2 <= 0 || uni <= 0) return 0;
  *valid = true;
  return inter / uni;
}

/* the selection, per class: taken indices in order, then -1 */
static void reference(int64_t max_out, float thr, bool has_score, float sthr, bool centre, double *want) {
  for (int b = 0; b < B; b++)
    for (int c = 0; c < C; c++) {
      const double *s = &scores[(b * C + c) * N];
      int cand[N], nc = 0, taken[N], nt = 0;
      for (int i = 0; i < N; i++)
        if (!has_score || (float)s[i] > sthr) cand[nc++] = i;
      /* stable sort of the candidates, highest score first */
      for (int i = 1; i < nc; i++)
        for (int j = i; j > 0 && s[cand[j - 1]] < s[cand[j]]; j--) {
          int t = cand[j];
          cand[j] = cand[j - 1], cand[j - 1] = t;
        }
      for (int k = 0; k < nc && nt < max_out; k++) {
        bool keep = true;
        for (int t = 0; t < nt && keep; t++) {
          bool valid;
          float iou = iou_float(&boxes[(b * N + cand[k]) * 4], &boxes[(b * N + taken[t]) * 4], centre, &valid);
          if (valid && iou > thr) keep = false;
        }
        if (keep) taken[nt++] = cand[k];
      }
      for (int j = 0; j < N; j++) want[(b * C + c) * N + j] = j < nt ? taken[j] : -1;
    }
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
