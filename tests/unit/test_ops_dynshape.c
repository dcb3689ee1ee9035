/* test_ops_dynshape.c - the ops of src/ops/dynshape.c one call at a time:
 * struct info and refusals of tensor_to_shape, reshape_dynamic,
 * reduce_to_shape, range_to_shape, tile_to_shape, split_part,
 * slice_dynamic, pad_dynamic and one_hot_dynamic, and the legalized prim
 * funcs of the last seven run by the reference interpreter against sums,
 * maxima, means, ranges, parts, slices, paddings and one-hot tensors
 * computed here.  (The executor's side, reading values at run time,
 * is checked through compiled models in test_onnx_dynshape.c.) */
#include <math.h>

#include "op_call_check.h"

#define X3 "x: R.Tensor((2, 3, 4), \"float32\")"

static double x[24];

/* x (2, 3, 4) reduced to od by sum, max or mean (dims of od are x's or 1) */
static void reduce_ref(const int64_t od[3], char kind, double *out) {
  int n = (int)(od[0] * od[1] * od[2]);
  double count = (double)(2 / od[0]) * (double)(3 / od[1]) * (double)(4 / od[2]);
  for (int i = 0; i < n; i++) out[i] = kind == 'x' ? -INFINITY : 0;
  for (int a = 0; a < 2; a++)
    for (int c = 0; c < 3; c++)
      for (int e = 0; e < 4; e++) {
        int o = (int)(((od[0] == 1 ? 0 : a) * od[1] + (od[1] == 1 ? 0 : c)) * od[2] + (od[2] == 1 ? 0 : e));
        double v = x[(a * 3 + c) * 4 + e];
        out[o] = kind == 'x' ? fmax(out[o], v) : out[o] + (kind == 'm' ? v / count : v);
      }
}

static void test_reduce_to_shape(void) {
  static const struct { const char *call, *sinfo; int64_t od[3]; char kind; } cases[] = {
      {"R.reduce_to_shape(x, shape=[2, 1, 4])", "R.Tensor((2, 1, 4), dtype=\"float32\")", {2, 1, 4}, 's'},
      {"R.reduce_to_shape(x, shape=[1, 3, 1], kind=\"max\")", "R.Tensor((1, 3, 1), dtype=\"float32\")", {1, 3, 1}, 'x'},
      {"R.reduce_to_shape(x, shape=[1, 1, 4], kind=\"mean\")", "R.Tensor((1, 1, 4), dtype=\"float32\")", {1, 1, 4}, 'm'},
      {"R.reduce_to_shape(x, shape=[2, 3, 4])", "R.Tensor((2, 3, 4), dtype=\"float32\")", {2, 3, 4}, 's'},
  };
  OpcBuf in = buf(3, (int64_t[]){2, 3, 4}, x);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const MlcGExpr *c = call_in(X3, cases[i].call);
    double want[24];
    reduce_ref(cases[i].od, cases[i].kind, want);
    CHECK(sinfo_is(c, cases[i].sinfo));
    CHECK(round_trips(c));
    CHECK(run_matches(c, &in, 1, buf(3, cases[i].od, NULL), want, 1e-6));
  }
  /* an empty dim of x: the identity, written */
  double none[4] = {0, 0, 0, 0};
  OpcBuf empty = buf(3, (int64_t[]){2, 0, 2}, NULL);
  CHECK(run_matches(call_in("x: R.Tensor((2, 0, 2), \"float32\")", "R.reduce_to_shape(x, shape=[2, 1, 2])"), &empty, 1,
                    buf(3, (int64_t[]){2, 1, 2}, NULL), none, 0));
  CHECK(refused(call_in(X3, "R.reduce_to_shape(x, shape=[2, 1])"), false,
                "reduce_to_shape: shape: expected 3 dims (x's rank), got 2"));
  CHECK(refused(call_in(X3, "R.reduce_to_shape(x, shape=[2, 1, 1], kind=\"prod\")"), false,
                "reduce_to_shape: kind: expected \"sum\", \"mean\", \"max\" or \"min\", got \"prod\""));
  CHECK(refused(call_in("x: R.Tensor((2, 3), \"int32\")", "R.reduce_to_shape(x, shape=[2, 1], kind=\"mean\")"), false,
                "reduce_to_shape: a mean of non-float data"));
}

static void test_range_to_shape(void) {
  double s = 1.5, d = -0.5, want[5];
  for (int i = 0; i < 5; i++) want[i] = 1.5 - 0.5 * i;
  const MlcGExpr *c = call_in("s: R.Tensor((), \"float32\"), d: R.Tensor((), \"float32\")", "R.range_to_shape(s, d, shape=[5])");
  CHECK(sinfo_is(c, "R.Tensor((5,), dtype=\"float32\")"));
  CHECK(round_trips(c));
  OpcBuf ins[2] = {buf(0, NULL, &s), buf(0, NULL, &d)};
  CHECK(run_matches(c, ins, 2, buf(1, (int64_t[]){5}, NULL), want, 0));
  double si = -7, di = 3, wi[4] = {-7, -4, -1, 2};
  OpcBuf ii[2] = {buf(0, NULL, &si), buf(0, NULL, &di)};
  CHECK(run_matches(call_in("s: R.Tensor((), \"int32\"), d: R.Tensor((), \"int32\")", "R.range_to_shape(s, d, shape=[4])"),
                    ii, 2, buf(1, (int64_t[]){4}, NULL), wi, 0));
  CHECK(refused(call_in("s: R.Tensor((), \"float32\"), d: R.Tensor((), \"int32\")", "R.range_to_shape(s, d, shape=[4])"),
                false, "range_to_shape: start and delta must be scalars of one dtype"));
}

static void test_tile_to_shape(void) {
  double want[2 * 6 * 8];
  for (int a = 0; a < 2; a++)
    for (int c = 0; c < 6; c++)
      for (int e = 0; e < 8; e++) want[(a * 6 + c) * 8 + e] = x[(a * 3 + c % 3) * 4 + e % 4];
  const MlcGExpr *c = call_in(X3, "R.tile_to_shape(x, shape=[2, 6, 8])");
  CHECK(sinfo_is(c, "R.Tensor((2, 6, 8), dtype=\"float32\")"));
  CHECK(round_trips(c));
  OpcBuf in = buf(3, (int64_t[]){2, 3, 4}, x);
  CHECK(run_matches(c, &in, 1, buf(3, (int64_t[]){2, 6, 8}, NULL), want, 0));
  CHECK(refused(call_in(X3, "R.tile_to_shape(x, shape=[2, 6])"), false,
                "tile_to_shape: shape: expected 3 dims (x's rank), got 2"));
}

/* plain C: part `index` of x (2, 3, 4) split along axis into parts of sizes s[] */
static void split_ref(int axis, const int64_t *s, int index, const int64_t od[3], double *out) {
  int64_t off = 0;
  for (int j = 0; j < index; j++) off += s[j];
  for (int a = 0; a < od[0]; a++)
    for (int c = 0; c < od[1]; c++)
      for (int e = 0; e < od[2]; e++) {
        int i[3] = {a, c, e};
        i[axis] += (int)off;
        out[(a * od[1] + c) * od[2] + e] = x[(i[0] * 3 + i[1]) * 4 + i[2]];
      }
}

static void test_split_part(void) {
  static const struct { int axis, index; int64_t s[3], od[3]; } cases[] = {
      {2, 0, {1, 3, 0}, {2, 3, 1}}, {2, 1, {1, 3, 0}, {2, 3, 3}}, {1, 2, {1, 0, 2}, {2, 2, 4}},
      {0, 1, {1, 1, 0}, {1, 3, 4}}, {1, 1, {1, 0, 2}, {2, 0, 4}},
  };
  const char *p = X3 ", s: R.Tensor((3,), \"int64\")";
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char call[160];
    snprintf(call, sizeof call, "R.split_part(x, s, shape=[%lld, %lld, %lld], axis=%d, index=%d)",
             (long long)cases[i].od[0], (long long)cases[i].od[1], (long long)cases[i].od[2], cases[i].axis,
             cases[i].index);
    const MlcGExpr *c = call_in(p, call);
    double want[24], sv[3] = {(double)cases[i].s[0], (double)cases[i].s[1], (double)cases[i].s[2]};
    split_ref(cases[i].axis, cases[i].s, cases[i].index, cases[i].od, want);
    CHECK(round_trips(c));
    OpcBuf ins[2] = {buf(3, (int64_t[]){2, 3, 4}, x), buf(1, (int64_t[]){3}, sv)};
    CHECK(run_matches(c, ins, 2, buf(3, cases[i].od, NULL), want, 0));
  }
  /* sizes past x's dim: the clamped index stays inside x (the last row repeats) */
  double big[3] = {2, 5, 0}, want[2 * 5 * 4];
  for (int a = 0; a < 2; a++)
    for (int c = 0; c < 5; c++)
      for (int e = 0; e < 4; e++) want[(a * 5 + c) * 4 + e] = x[(a * 3 + (c + 2 > 2 ? 2 : c + 2)) * 4 + e];
  OpcBuf ins[2] = {buf(3, (int64_t[]){2, 3, 4}, x), buf(1, (int64_t[]){3}, big)};
  CHECK(run_matches(call_in(p, "R.split_part(x, s, shape=[2, 5, 4], axis=1, index=1)"), ins, 2,
                    buf(3, (int64_t[]){2, 5, 4}, NULL), want, 0));
  CHECK(sinfo_is(call_in(p, "R.split_part(x, s, shape=[2, 1, 4], axis=1, index=0)"), "R.Tensor((2, 1, 4), dtype=\"float32\")"));
  CHECK(refused(call_in(p, "R.split_part(x, s, shape=[2, 1, 4], axis=1, index=3)"), false,
                "split_part: index 3 is out of range for 3 sizes"));
  CHECK(refused(call_in(p, "R.split_part(x, s, shape=[2, 1, 4], axis=3, index=0)"), false,
                "split_part: axis 3 is out of range for rank 3"));
  CHECK(refused(call_in(p, "R.split_part(x, x, shape=[2, 1, 4], axis=1, index=0)"), false,
                "split_part: sizes: expected a 1-D int32 or int64 tensor of static length, got (2, 3, 4)"));
}

/* plain C: x (2, 3, 4) sliced with begins b[] and steps st[] per dim into od */
static void slice_ref(const int64_t b[3], const int64_t st[3], const int64_t od[3], double *out) {
  for (int a = 0; a < od[0]; a++)
    for (int c = 0; c < od[1]; c++)
      for (int e = 0; e < od[2]; e++)
        out[(a * od[1] + c) * od[2] + e] = x[((b[0] + a * st[0]) * 3 + b[1] + c * st[1]) * 4 + b[2] + e * st[2]];
}

static void test_slice_dynamic(void) {
  /* params: starts, ends, axes, steps (2 each); begins and steps per dim as numpy would clamp them */
  static const struct { double p[8]; int64_t od[3], b[3], st[3]; } cases[] = {
      {{1, 0, 3, 4, 1, 2, 1, 2}, {2, 2, 2}, {0, 1, 0}, {1, 1, 2}},
      {{-1, 9, -9, -100, -1, 0, -1, -1}, {2, 3, 4}, {1, 0, 3}, {-1, 1, -1}},
      {{2, -7, 0, 100, 2, 1, 1, 1}, {2, 3, 2}, {0, 0, 2}, {1, 1, 1}},
      {{5, 0, 9, 1, 0, 2, 1, 1}, {0, 3, 1}, {2, 0, 0}, {1, 1, 1}},
  };
  const char *p = X3 ", t: R.Tensor((8,), \"int64\")";
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char call[160];
    snprintf(call, sizeof call, "R.slice_dynamic(x, t, shape=[%lld, %lld, %lld])", (long long)cases[i].od[0],
             (long long)cases[i].od[1], (long long)cases[i].od[2]);
    const MlcGExpr *c = call_in(p, call);
    double want[24], pv[8];
    memcpy(pv, cases[i].p, sizeof pv);
    slice_ref(cases[i].b, cases[i].st, cases[i].od, want);
    CHECK(round_trips(c));
    OpcBuf ins[2] = {buf(3, (int64_t[]){2, 3, 4}, x), buf(1, (int64_t[]){8}, pv)};
    CHECK(run_matches(c, ins, 2, buf(3, cases[i].od, NULL), want, 0));
  }
  /* a shape longer than the values allow: the clamped index stays inside x */
  double pv[8] = {0, 2, 1, 3, 1, 2, 1, 1}, want[2 * 5 * 4];
  for (int a = 0; a < 2; a++)
    for (int c = 0; c < 5; c++)
      for (int e = 0; e < 4; e++) want[(a * 5 + c) * 4 + e] = x[(a * 3 + (c > 2 ? 2 : c)) * 4 + (e + 2 > 3 ? 3 : e + 2)];
  OpcBuf ins[2] = {buf(3, (int64_t[]){2, 3, 4}, x), buf(1, (int64_t[]){8}, pv)};
  CHECK(run_matches(call_in(p, "R.slice_dynamic(x, t, shape=[2, 5, 4])"), ins, 2, buf(3, (int64_t[]){2, 5, 4}, NULL),
                    want, 0));
  CHECK(sinfo_is(call_in(p, "R.tensor_to_shape(t, x, shape=[1, 2, 3], mode=\"slice\")"), "R.Shape([1, 2, 3])"));
  CHECK(refused(call_in(X3 ", t: R.Tensor((6,), \"int64\")", "R.tensor_to_shape(t, x, shape=[1, 2, 3], mode=\"slice\")"),
                false, "tensor_to_shape: mode \"slice\": expected 4q values (starts, ends, axes, steps), got 6"));
  CHECK(refused(call_in(p, "R.slice_dynamic(x, t, shape=[2, 5])"), false,
                "slice_dynamic: shape: expected 3 dims (x's rank), got 2"));
  CHECK(refused(call_in(X3 ", t: R.Tensor((8,), \"int32\")", "R.slice_dynamic(x, t, shape=[2, 3, 4])"), false,
                "slice_dynamic: params: expected a 1-D int64 tensor of 4q values (starts, ends, axes, steps), got (8,)"));
}

/* plain C: the source index of position q in a dim of d by Pad's mode, -1 for the constant */
static int pad_src(char mode, int64_t q, int64_t d) {
  if (q >= 0 && q < d) return (int)q;
  if (mode == 'c') return -1;
  if (mode == 'e') return q < 0 ? 0 : (int)d - 1;
  if (mode == 'w') return (int)(((q % d) + d) % d);
  while (d > 1 && (q < 0 || q >= d)) q = q < 0 ? -q : 2 * (d - 1) - q; /* reflect, step by step */
  return d > 1 ? (int)q : 0;
}

static void test_pad_dynamic(void) {
  /* params: begins, ends, axes (2 each) */
  static const struct { const char *mode; double p[6]; int64_t od[3], b[3]; } cases[] = {
      {"constant", {1, 2, 0, 1, 0, 2}, {3, 3, 7}, {1, 0, 2}},
      {"edge", {-1, 3, 1, 0, -1, 1}, {2, 6, 4}, {0, 3, -1}},
      {"reflect", {5, 2, 3, 1, 1, -1}, {2, 11, 7}, {0, 5, 2}},
      {"wrap", {-2, 7, 1, 0, 2, 0}, {9, 3, 3}, {7, 0, -2}},
  };
  const char *p = X3 ", t: R.Tensor((6,), \"int64\"), v: R.Tensor((), \"float32\")";
  double fill = -9.5;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char call[200];
    snprintf(call, sizeof call, "R.pad_dynamic(x, t, v, shape=[%lld, %lld, %lld], pad_mode=\"%s\")",
             (long long)cases[i].od[0], (long long)cases[i].od[1], (long long)cases[i].od[2], cases[i].mode);
    const int64_t *od = cases[i].od, *b = cases[i].b;
    double want[3 * 11 * 11], pv[6];
    memcpy(pv, cases[i].p, sizeof pv);
    for (int a = 0; a < od[0]; a++)
      for (int c = 0; c < od[1]; c++)
        for (int e = 0; e < od[2]; e++) {
          int s0 = pad_src(cases[i].mode[0], a - b[0], 2), s1 = pad_src(cases[i].mode[0], c - b[1], 3);
          int s2 = pad_src(cases[i].mode[0], e - b[2], 4);
          want[(a * od[1] + c) * od[2] + e] = s0 < 0 || s1 < 0 || s2 < 0 ? fill : x[(s0 * 3 + s1) * 4 + s2];
        }
    const MlcGExpr *c = call_in(p, call);
    CHECK(round_trips(c));
    OpcBuf ins[3] = {buf(3, (int64_t[]){2, 3, 4}, x), buf(1, (int64_t[]){6}, pv), buf(0, NULL, &fill)};
    CHECK(run_matches(c, ins, 3, buf(3, od, NULL), want, 0));
  }
  CHECK(sinfo_is(call_in(p, "R.tensor_to_shape(t, x, shape=[1, 2, 3], mode=\"pad_copy\")"), "R.Shape([1, 2, 3])"));
  CHECK(refused(call_in(X3 ", t: R.Tensor((4,), \"int64\")", "R.tensor_to_shape(t, x, shape=[1, 2, 3], mode=\"pad\")"),
                false, "tensor_to_shape: mode \"pad\": expected 3q values (begins, ends, axes), got 4"));
  CHECK(refused(call_in(p, "R.pad_dynamic(x, t, v, shape=[2, 3, 4], pad_mode=\"mirror\")"), false,
                "pad_dynamic: pad_mode: expected \"constant\", \"edge\", \"reflect\" or \"wrap\", got \"mirror\""));
  CHECK(refused(call_in(p, "R.pad_dynamic(x, t, t, shape=[2, 3, 4])"), false,
                "pad_dynamic: value: expected one element of x's dtype, got (6,)"));
}

static void test_one_hot_dynamic(void) {
  double ind[6] = {0, -1, 3, -4, 5, -5}, vals[2] = {-2, 7};
  const char *p = "i: R.Tensor((2, 3), \"int32\"), v: R.Tensor((2,), \"float32\")";
  for (int axis = 0; axis < 3; axis++) {
    int64_t od[3] = {2, 3, 2}, depth = 4;
    for (int d = 2; d > axis; d--) od[d] = od[d - 1];
    od[axis] = depth;
    double want[24];
    for (int a = 0; a < od[0]; a++)
      for (int b = 0; b < od[1]; b++)
        for (int c = 0; c < od[2]; c++) {
          int o[3] = {a, b, c}, r[2], k = 0;
          for (int d = 0; d < 3; d++)
            if (d != axis) r[k++] = o[d];
          double at = ind[r[0] * 3 + r[1]];
          if (at < 0) at += (double)depth;
          want[(a * od[1] + b) * od[2] + c] = at == o[axis] ? vals[1] : vals[0];
        }
    char call[160];
    snprintf(call, sizeof call, "R.one_hot_dynamic(i, v, shape=[%lld, %lld, %lld], axis=%d)", (long long)od[0],
             (long long)od[1], (long long)od[2], axis);
    const MlcGExpr *c = call_in(p, call);
    CHECK(round_trips(c));
    OpcBuf ins[2] = {buf(2, (int64_t[]){2, 3}, ind), buf(1, (int64_t[]){2}, vals)};
    CHECK(run_matches(c, ins, 2, buf(3, od, NULL), want, 0));
  }
  CHECK(sinfo_is(call_in(p, "R.one_hot_dynamic(i, v, shape=[2, 3, 5], axis=2)"), "R.Tensor((2, 3, 5), dtype=\"float32\")"));
  CHECK(refused(call_in(p, "R.one_hot_dynamic(i, v, shape=[2, 3], axis=0)"), false,
                "one_hot_dynamic: shape: expected 3 dims (the indices' rank + 1), got 2"));
  CHECK(refused(call_in(p, "R.one_hot_dynamic(v, v, shape=[2, 3], axis=0)"), false,
                "one_hot_dynamic: indices: expected integers of known shape, got (2,)"));
}

static void test_tensor_to_shape(void) {
  const char *p = "t: R.Tensor((2,), \"int64\"), y: R.Tensor((3, 4), \"float32\")";
  CHECK(sinfo_is(call_in(p, "R.tensor_to_shape(t, shape=[2, 5])"), "R.Shape([2, 5])"));
  CHECK(sinfo_is(call_in(p, "R.tensor_to_shape(t, y, shape=[6, 2], mode=\"reshape\")"), "R.Shape([6, 2])"));
  CHECK(sinfo_is(call_in(p, "R.tensor_to_shape(t, y, shape=[3, 4, 1, 1], mode=\"unsqueeze\")"), "R.Shape([3, 4, 1, 1])"));
  CHECK(refused(call_in(p, "R.tensor_to_shape(t, shape=[2, 5, 1])"), false,
                "tensor_to_shape: shape: expected 2 dims for 2 values in mode \"values\", got 3"));
  CHECK(refused(call_in(p, "R.tensor_to_shape(t, shape=[2, 5], mode=\"sideways\")"), false,
                "tensor_to_shape: mode: expected \"values\", \"reshape\", \"reshape_allowzero\", "
                "\"expand\", \"reduce_keep\", \"reduce_drop\", \"squeeze\", \"unsqueeze\", \"range\", \"tile\", "
                "\"at_most\", \"split\", \"slice\", \"pad\", \"pad_copy\" or \"resize\", got \"sideways\""));
  CHECK(sinfo_is(call_in(p, "R.tensor_to_shape(t, y, shape=[1, 2], mode=\"split\", axis=1)"), "R.Shape([1, 2])"));
  CHECK(refused(call_in(p, "R.tensor_to_shape(t, y, shape=[1, 2], mode=\"split\", axis=2)"), false,
                "tensor_to_shape: mode \"split\": axis 2 is out of range for rank 2"));
  CHECK(refused(call_in(p, "R.tensor_to_shape(y, shape=[2, 5])"), false,
                "tensor_to_shape: data: expected int32 or int64 values"));
  CHECK(refused(call_in(p, "R.tensor_to_shape(t, shape=[6, 2], mode=\"reshape\")"), false,
                "tensor_to_shape: like: expected a tensor"));
  CHECK(sinfo_is(call_in(p, "R.reshape_dynamic(y, shape=[2, 6])"), "R.Tensor((2, 6), dtype=\"float32\")"));
}

int main(void) {
  ctx = mlc_ctx_new();
  for (int i = 0; i < 24; i++) x[i] = (float)((i * 5) % 13) * 0.25 - 1.0;
  RUN(test_reduce_to_shape);
  RUN(test_range_to_shape);
  RUN(test_tile_to_shape);
  RUN(test_split_part);
  RUN(test_slice_dynamic);
  RUN(test_pad_dynamic);
  RUN(test_one_hot_dynamic);
  RUN(test_tensor_to_shape);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
