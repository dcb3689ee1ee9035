/* test_ops_resize.c - image.resize2d, resize2d_scaled and resize2d_dynamic
 * (src/ops/resize.c):
 * the inferred struct info prints as expected, refused inputs name the op
 * and what was expected at the call's line, the legalized prim func reads
 * back equal, and the interpreter computes what a plain C reference here
 * computes.  The reference follows ONNX's own 1-D formulation (the nearest
 * positions of an edge-padded row, resized along W then along H), so it
 * shares no index arithmetic with the code under test. */
#include "check.h"
#include "op_check.h"

#include <stdio.h>

#define F32(shape) "R.Tensor(" shape ", \"float32\")"
#define MAXV 4096

/* ======================================================================== */
/* image.resize2d                                                           */
/* ======================================================================== */

static void test_resize_infer(void) {
  OPC_CHECK_INFER("data: " F32("(\"n\", 3, 4, 5)"), "R.image.resize2d(data, size=[8, 10])",
                  "R.Tensor((n, 3, 8, 10), dtype=\"float32\")");
  OPC_CHECK_INFER("data: " F32("(1, 3, 4, 5)"), "R.image.resize2d_scaled(data, size=[2, 3], scales=[0.6, 0.6])",
                  "R.Tensor((1, 3, 2, 3), dtype=\"float32\")");
  OPC_CHECK_REFUSED("data: " F32("(1, 3, 4, 5)"), "R.image.resize2d(data, size=[8, 10], method=\"area\")",
                    "image.resize2d: method must be one of \"nearest_neighbor\", \"linear\", \"cubic\", not \"area\"");
  OPC_CHECK_REFUSED("data: " F32("(1, 3, \"h\", 5)"), "R.image.resize2d(data, size=[8, 10])",
                    "image.resize2d: the spatial dims of data (1, 3, h, 5) must be positive constants");
  OPC_CHECK_REFUSED("data: " F32("(3, 4, 5)"), "R.image.resize2d(data, size=[8, 10])",
                    "image.resize2d: data (NCHW) must be 4-D, got (3, 4, 5)");
}

/* ONNX's reference, 1-D: the n nearest positions of an edge-padded row,
 * weights from the fraction of the source coordinate */
typedef struct RefMode { const char *method, *coord, *rounding; double alpha; bool exclude; } RefMode;

static double ref_coord(const RefMode *m, double x, double scale, int64_t in) {
  double of = scale * (double)in;
  if (!strcmp(m->coord, "align_corners")) return of == 1 ? 0 : x * (double)(in - 1) / (of - 1);
  if (!strcmp(m->coord, "asymmetric")) return x / scale;
  if (!strcmp(m->coord, "pytorch_half_pixel")) return of == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  return (x + 0.5) / scale - 0.5;
}

static void ref_coeffs(const RefMode *m, double r, double *c, int *n) {
  if (!strcmp(m->method, "linear")) {
    c[0] = 1 - r, c[1] = r, *n = 2;
    return;
  }
  if (!strcmp(m->method, "nearest_neighbor")) {
    bool is_int = r == 1.0;
    bool hi = !strcmp(m->rounding, "round_prefer_floor") ? r > 0.5 : !strcmp(m->rounding, "round_prefer_ceil") ? r >= 0.5
              : !strcmp(m->rounding, "floor") ? false : true;
    c[0] = is_int ? 0 : !hi, c[1] = is_int ? 1 : hi, *n = 2;
    return;
  }
  double A = m->alpha, t[4] = {r + 1, r, 1 - r, 2 - r};
  for (int i = 0; i < 4; i++) {
    double u = t[i];
    c[i] = u <= 1 ? ((A + 2) * u - (A + 3)) * u * u + 1 : ((A * u - 5 * A) * u + 8 * A) * u - 4 * A;
  }
  *n = 4;
}

/* ONNX's antialiased coefficients: the filter stretched by 1 / scale (for
 * a scale below 1), over the offsets start .. -start + 1, normalized */
static void ref_coeffs_aa(const RefMode *m, double r, double scale, double *c, int *n) {
  double s = scale < 1 ? scale : 1, A = m->alpha, sum = 0;
  bool lin = !strcmp(m->method, "linear");
  int start = (int)floor((lin ? -1 : -2) / s) + 1;
  *n = 2 - 2 * start;
  for (int i = 0; i < *n; i++) {
    double u = fabs(((double)(start + i) - r) * s);
    c[i] = lin ? fmax(0, 1 - u) : u <= 1 ? (A + 2) * u * u * u - (A + 3) * u * u + 1
         : u < 2 ? A * u * u * u - 5 * A * u * u + 8 * A * u - 4 * A : 0;
    sum += c[i];
  }
  for (int i = 0; i < *n; i++) c[i] /= sum;
}

static bool ref_antialias;

static double ref_interp1(const RefMode *m, const double *row, int64_t in, double scale, int64_t xo) {
  double x = ref_coord(m, (double)xo, scale, in), c[64];
  double f = floor(x), r = x == f ? 1.0 : x - f;
  int n;
  if (ref_antialias && strcmp(m->method, "nearest_neighbor")) ref_coeffs_aa(m, r, scale, c, &n);
  else ref_coeffs(m, r, c, &n);
  int64_t pad = (n + 1) / 2, idx[64];
  double xp = x + (double)pad;
  /* the n indices of [0, in + 2 pad) nearest xp, ties to the lower */
  bool used[256] = {0};
  for (int k = 0; k < n; k++) {
    int64_t best = -1;
    for (int64_t j = 0; j < in + 2 * pad; j++)
      if (!used[j] && (best < 0 || fabs(xp - (double)j) < fabs(xp - (double)best))) best = j;
    used[best] = true;
  }
  int k = 0;
  for (int64_t j = 0; j < in + 2 * pad; j++)
    if (used[j]) idx[k++] = j - pad;
  double sum = 0, v = 0;
  for (int i = 0; i < n; i++) {
    if (m->exclude && (idx[i] < 0 || idx[i] >= in)) c[i] = 0;
    sum += c[i];
  }
  for (int i = 0; i < n; i++) {
    int64_t j = idx[i] < 0 ? 0 : idx[i] >= in ? in - 1 : idx[i];
    v += (m->exclude ? c[i] / sum : c[i]) * row[j];
  }
  return v;
}

/* (1, 1, H, W) resized along W (per row) then along H (per column) */
static void resize_case(const RefMode *m, int64_t h, int64_t w, int64_t oh, int64_t ow, double sh, double sw,
                        bool scaled) {
  double x[64], tmp[512], want[MAXV], col[64];
  opc_fill(x, h * w, 31, -2, 2);
  for (int64_t i = 0; i < h; i++)
    for (int64_t j = 0; j < ow; j++) tmp[i * ow + j] = ref_interp1(m, &x[i * w], w, sw, j);
  for (int64_t j = 0; j < ow; j++) {
    for (int64_t i = 0; i < h; i++) col[i] = tmp[i * ow + j];
    for (int64_t i = 0; i < oh; i++) want[i * ow + j] = ref_interp1(m, col, h, sh, i);
  }
  char call[512], params[64];
  snprintf(params, sizeof params, "data: R.Tensor((1, 1, %lld, %lld), \"float32\")", (long long)h, (long long)w);
  int k = snprintf(call, sizeof call, "R.image.%s(data, size=[%lld, %lld], ", scaled ? "resize2d_scaled" : "resize2d",
                   (long long)oh, (long long)ow);
  if (scaled) k += snprintf(call + k, sizeof call - (size_t)k, "scales=[%.17g, %.17g], ", sh, sw);
  snprintf(call + k, sizeof call - (size_t)k,
           "method=\"%s\", coordinate_transformation_mode=\"%s\", rounding_method=\"%s\", cubic_alpha=%g, "
           "cubic_exclude=%d, antialias=%d)", m->method, m->coord, m->rounding, m->alpha, m->exclude ? 1 : 0,
           ref_antialias ? 1 : 0);
  OpcBuf in = opc_buf(4, (int64_t[]){1, 1, h, w}, x), wb = opc_buf(4, (int64_t[]){1, 1, oh, ow}, want);
  opc_check_run(params, call, &in, 1, &wb, 1, 1e-5);
}

static void test_resize_run(void) {
  RefMode nearest = {"nearest_neighbor", "asymmetric", "round_prefer_floor", -0.75, false};
  RefMode nearest_ceil = {"nearest_neighbor", "half_pixel", "round_prefer_ceil", -0.75, false};
  RefMode linear = {"linear", "half_pixel", "round_prefer_floor", -0.75, false};
  RefMode linear_ac = {"linear", "align_corners", "round_prefer_floor", -0.75, false};
  RefMode cubic = {"cubic", "half_pixel", "round_prefer_floor", -0.75, false};
  RefMode cubic_ex = {"cubic", "pytorch_half_pixel", "round_prefer_floor", -0.5, true};
  resize_case(&nearest, 3, 4, 6, 7, 2.0, 7.0 / 4, false);
  resize_case(&nearest_ceil, 4, 4, 7, 3, 7.0 / 4, 3.0 / 4, false);
  resize_case(&linear, 3, 4, 6, 8, 2.0, 2.0, false);
  resize_case(&linear, 4, 5, 2, 3, 0.6, 0.6, true);
  resize_case(&linear_ac, 3, 4, 5, 7, 5.0 / 3, 7.0 / 4, false);
  resize_case(&cubic, 4, 4, 8, 6, 2.0, 1.5, false);
  resize_case(&cubic_ex, 4, 4, 3, 3, 0.8, 0.8, true);
  ref_antialias = true;
  resize_case(&linear, 6, 8, 3, 3, 0.5, 0.375, true);
  resize_case(&cubic, 5, 7, 2, 3, 2.0 / 5, 3.0 / 7, false);
  resize_case(&cubic_ex, 6, 6, 4, 2, 2.0 / 3, 1.0 / 3, false);
  ref_antialias = false;
}

/* ======================================================================== */
/* image.resize2d_dynamic                                                   */
/* ======================================================================== */

#define PARAMS "data: " F32("(1, 1, 4, 5)") ", p: R.Tensor((14,), \"float64\")"

static void test_resize_dynamic_infer(void) {
  OPC_CHECK_INFER(PARAMS, "R.image.resize2d_dynamic(data, p, shape=[1, 1, 7, 3], policy=\"sizes\")",
                  "R.Tensor((1, 1, 7, 3), dtype=\"float32\")");
  OPC_CHECK_REFUSED(PARAMS, "R.image.resize2d_dynamic(data, p, shape=[1, 1, 7, 3], policy=\"fit\")",
                    "image.resize2d_dynamic: policy must be one of \"scales\", \"sizes\", \"not_larger\", "
                    "\"not_smaller\", not \"fit\"");
  OPC_CHECK_REFUSED(PARAMS, "R.image.resize2d_dynamic(data, p, shape=[1, 1, 7, 3], axes=[2, 2])",
                    "image.resize2d_dynamic: axes: 2 is out of range or given twice");
  OPC_CHECK_REFUSED("data: " F32("(1, 1, 4, 5)") ", p: R.Tensor((14,), \"float32\")",
                    "R.image.resize2d_dynamic(data, p, shape=[1, 1, 7, 3])",
                    "image.resize2d_dynamic: params: expected 14 float64 values, got (14,)");
  OPC_CHECK_REFUSED(PARAMS, "R.image.resize2d_dynamic(data, p, shape=[1, 7, 3])",
                    "image.resize2d_dynamic: shape: expected 4 dims, got 3");
  OPC_CHECK_INFER(PARAMS, "R.tensor_to_shape(p, data, shape=[1, 1, 7, 3], mode=\"resize\")", "R.Shape([1, 1, 7, 3])");
  OPC_CHECK_REFUSED(PARAMS, "R.tensor_to_shape(p, data, shape=[1, 7, 3], mode=\"resize\")",
                    "tensor_to_shape: mode \"resize\": like's dims, and 2 + 3 * rank values, are expected");
}

/* (1, 1, h, w) resized to (oh, ow) by resize2d_dynamic reading v (4 values)
 * under policy over the dims (2, 3); sh, sw: the scales that follow,
 * worked out by hand for the reference */
static void resize_dyn_case(const RefMode *m, bool aa, int64_t h, int64_t w, const char *policy, const double v[4],
                            int64_t oh, int64_t ow, double sh, double sw) {
  double x[64], tmp[512], want[MAXV], col[64];
  opc_fill(x, h * w, 37, -2, 2);
  ref_antialias = aa;
  for (int64_t i = 0; i < h; i++)
    for (int64_t j = 0; j < ow; j++) tmp[i * ow + j] = ref_interp1(m, &x[i * w], w, sw, j);
  for (int64_t j = 0; j < ow; j++) {
    for (int64_t i = 0; i < h; i++) col[i] = tmp[i * ow + j];
    for (int64_t i = 0; i < oh; i++) want[i * ow + j] = ref_interp1(m, col, h, sh, i);
  }
  ref_antialias = false;
  /* kind and mask are the executor's; the kernel reads v and the region */
  double pv[14] = {0, 12, v[0], v[1], v[2], v[3], 0, 0, 0, 0, 1, 1, 1, 1};
  char call[512], params[128];
  snprintf(params, sizeof params, "data: R.Tensor((1, 1, %lld, %lld), \"float32\"), p: R.Tensor((14,), \"float64\")",
           (long long)h, (long long)w);
  snprintf(call, sizeof call,
           "R.image.resize2d_dynamic(data, p, shape=[1, 1, %lld, %lld], policy=\"%s\", axes=[2, 3], method=\"%s\", "
           "coordinate_transformation_mode=\"%s\", rounding_method=\"%s\", cubic_alpha=%g, cubic_exclude=%d, "
           "antialias=%d)", (long long)oh, (long long)ow, policy, m->method, m->coord, m->rounding, m->alpha,
           m->exclude ? 1 : 0, aa ? 1 : 0);
  OpcBuf in[2] = {opc_buf(4, (int64_t[]){1, 1, h, w}, x), opc_buf(1, (int64_t[]){14}, pv)};
  OpcBuf wb = opc_buf(4, (int64_t[]){1, 1, oh, ow}, want);
  opc_check_run(params, call, in, 2, &wb, 1, 1e-5);
}

static void test_resize_dynamic_run(void) {
  RefMode nearest = {"nearest_neighbor", "half_pixel", "round_prefer_ceil", -0.75, false};
  RefMode linear = {"linear", "half_pixel", "round_prefer_floor", -0.75, false};
  RefMode linear_ac = {"linear", "align_corners", "round_prefer_floor", -0.75, false};
  RefMode cubic = {"cubic", "asymmetric", "round_prefer_floor", -0.5, true};
  RefMode cubic_hp = {"cubic", "half_pixel", "round_prefer_floor", -0.75, false};
  resize_dyn_case(&nearest, false, 3, 4, "scales", (double[]){1, 1, 2, 1.75}, 6, 7, 2, 1.75);
  resize_dyn_case(&linear, false, 4, 5, "sizes", (double[]){1, 1, 3, 8}, 3, 8, 3.0 / 4, 8.0 / 5);
  resize_dyn_case(&linear_ac, false, 4, 4, "not_larger", (double[]){1, 1, 6, 9}, 6, 6, 1.5, 1.5);
  resize_dyn_case(&cubic, false, 4, 4, "not_smaller", (double[]){1, 1, 6, 3}, 6, 6, 1.5, 1.5);
  resize_dyn_case(&linear, true, 6, 8, "scales", (double[]){1, 1, 0.5, 0.375}, 3, 3, 0.5, 0.375);
  resize_dyn_case(&cubic_hp, true, 5, 7, "sizes", (double[]){1, 1, 2, 3}, 2, 3, 2.0 / 5, 3.0 / 7);
  resize_dyn_case(&cubic_hp, true, 4, 4, "scales", (double[]){1, 1, 1.5, 0.8}, 6, 3, 1.5, 0.8);
}

int main(void) {
  RUN(test_resize_infer);
  RUN(test_resize_run);
  RUN(test_resize_dynamic_infer);
  RUN(test_resize_dynamic_run);
  return CHECK_DONE();
}
