/* test_ops_indexing.c - the second wave's ops (src/ops/shape2.c, nn2.c):
 * nn.pad, tile, gather_elements, scatter_elements, one_hot,
 * nn.conv2d_transpose and image.resize2d(_scaled).  For each: the inferred
 * struct info prints as expected, refused inputs name the op and what was
 * expected at the call's line, the legalized prim func reads back equal,
 * and the interpreter computes what a plain C reference here computes.
 * The references are written the other way round where they can be (the
 * transposed convolution scatters each input element; the scatter loops
 * over updates in order; resize picks ONNX's nearest neighbours by
 * distance from an edge-padded row), so they share no index arithmetic
 * with the code under test. */
#include "check.h"
#include "op_check.h"

#include <stdio.h>

#define F32(shape) "R.Tensor(" shape ", \"float32\")"
#define I64(shape) "R.Tensor(" shape ", \"int64\")"
#define MAXV 4096

/* ======================================================================== */
/* nn.pad                                                                   */
/* ======================================================================== */

static void test_pad_infer(void) {
  OPC_CHECK_INFER("data: " F32("(2, 3)"), "R.nn.pad(data, pad_width=[1, 0, 2, 1])",
                  "R.Tensor((5, 4), dtype=\"float32\")");
  OPC_CHECK_INFER("data: " F32("(\"n\", 3)"), "R.nn.pad(data, pad_width=[1, 0, 2, 0], pad_value=1.5)",
                  "R.Tensor((n + 3, 3), dtype=\"float32\")");
  OPC_CHECK_INFER("data: " F32("(4, 5)"), "R.nn.pad(data, pad_width=[-1, 0, 0, -2])",
                  "R.Tensor((3, 3), dtype=\"float32\")");
  OPC_CHECK_REFUSED("data: " F32("(2, 3)"), "R.nn.pad(data, pad_width=[1, 1])",
                    "nn.pad: pad_width lists 2 values, x (2, 3) needs 4 (befores, then afters)");
  OPC_CHECK_REFUSED("data: " F32("(2, 3)"), "R.nn.pad(data, pad_width=[0, 0, 0, 0], pad_mode=\"mirror\")",
                    "nn.pad: pad_mode must be \"constant\", \"edge\", \"reflect\" or \"wrap\", not \"mirror\"");
  OPC_CHECK_REFUSED("data: " F32("(2, 3)"), "R.nn.pad(data, pad_width=[0, 3, 0, 0], pad_mode=\"reflect\")",
                    "nn.pad: reflect padding of dim 1 of x (2, 3) must be smaller than the dim");
  OPC_CHECK_REFUSED("data: " F32("(\"n\", 3)"), "R.nn.pad(data, pad_width=[1, 0, 0, 0], pad_mode=\"edge\")",
                    "nn.pad: dim 0 of x (n, 3) is symbolic: only constant padding by non-negative amounts is supported there");
}

/* reference: numpy's pad per mode, index by index */
static int64_t ref_fold(const char *mode, int64_t q, int64_t d, bool *outside) {
  *outside = false;
  if (!strcmp(mode, "constant")) return (*outside = q < 0 || q >= d) ? 0 : q;
  if (!strcmp(mode, "edge")) return q < 0 ? 0 : q >= d ? d - 1 : q;
  if (!strcmp(mode, "wrap")) return ((q % d) + d) % d;
  while (q < 0 || q >= d) q = q < 0 ? -q : 2 * (d - 1) - q; /* reflect */
  return q;
}

static void pad_case(const char *mode, const int64_t *pads, double value) {
  int64_t in_shape[2] = {3, 4}, out_shape[2] = {3 + pads[0] + pads[2], 4 + pads[1] + pads[3]};
  double x[12], want[MAXV];
  opc_fill(x, 12, 3, -2, 2);
  for (int64_t i = 0; i < out_shape[0] * out_shape[1]; i++) {
    int64_t o[2], src[2];
    bool out0, out1;
    opc_unravel(i, out_shape, 2, o);
    src[0] = ref_fold(mode, o[0] - pads[0], 3, &out0);
    src[1] = ref_fold(mode, o[1] - pads[1], 4, &out1);
    want[i] = out0 || out1 ? value : x[opc_ravel(src, in_shape, 2)];
  }
  char call[256];
  snprintf(call, sizeof call, "R.nn.pad(data, pad_width=[%lld, %lld, %lld, %lld], pad_value=%g, pad_mode=\"%s\")",
           (long long)pads[0], (long long)pads[1], (long long)pads[2], (long long)pads[3], value, mode);
  OpcBuf in = opc_buf(2, in_shape, x), w = opc_buf(2, out_shape, want);
  opc_check_run("data: " F32("(3, 4)"), call, &in, 1, &w, 1, 1e-6);
}

static void test_pad_run(void) {
  pad_case("constant", (int64_t[]){1, 2, 0, 1}, 0.5);
  pad_case("constant", (int64_t[]){-1, 1, 1, -2}, -3);
  pad_case("edge", (int64_t[]){2, 0, 1, 3}, 0);
  pad_case("reflect", (int64_t[]){2, 3, 2, 3}, 0);
  pad_case("wrap", (int64_t[]){4, 1, 2, 5}, 0);
}

/* ======================================================================== */
/* tile                                                                     */
/* ======================================================================== */

static void test_tile(void) {
  OPC_CHECK_INFER("x: " F32("(2, 3)"), "R.tile(x, repeats=[2, 3])", "R.Tensor((4, 9), dtype=\"float32\")");
  OPC_CHECK_INFER("x: " F32("(\"n\", 3)"), "R.tile(x, repeats=[2, 1])", "R.Tensor((n * 2, 3), dtype=\"float32\")");
  OPC_CHECK_INFER("x: " F32("(3,)"), "R.tile(x, repeats=[2, 2])", "R.Tensor((2, 6), dtype=\"float32\")");
  OPC_CHECK_REFUSED("x: " F32("(3,)"), "R.tile(x, repeats=[-1])", "tile: repeats must not be negative, got -1");
  int64_t in_shape[2] = {2, 3}, out_shape[2] = {6, 6};
  double x[6], want[36];
  opc_fill(x, 6, 5, -1, 1);
  for (int64_t i = 0; i < 6; i++)
    for (int64_t j = 0; j < 6; j++) want[i * 6 + j] = x[(i % 2) * 3 + j % 3];
  OpcBuf in = opc_buf(2, in_shape, x), w = opc_buf(2, out_shape, want);
  opc_check_run("x: " F32("(2, 3)"), "R.tile(x, repeats=[3, 2])", &in, 1, &w, 1, 1e-6);
}

/* ======================================================================== */
/* gather_elements, scatter_elements                                        */
/* ======================================================================== */

static void test_gather_elements(void) {
  OPC_CHECK_INFER("data: " F32("(3, 4)") ", indices: " I64("(2, 4)"), "R.gather_elements(data, indices, axis=0)",
                  "R.Tensor((2, 4), dtype=\"float32\")");
  OPC_CHECK_REFUSED("data: " F32("(3, 4)") ", indices: " I64("(2,)"), "R.gather_elements(data, indices)",
                    "gather_elements: indices (2,) and data (3, 4) must have the same rank");
  OPC_CHECK_REFUSED("data: " F32("(3, 4)") ", indices: " F32("(2, 4)"), "R.gather_elements(data, indices)",
                    "gather_elements: indices must be integers, not float32");
  OPC_CHECK_REFUSED("data: " F32("(3, 4)") ", indices: " I64("(2, 5)"), "R.gather_elements(data, indices, axis=0)",
                    "gather_elements: indices (2, 5) is larger than data (3, 4) in dim 1");
  double x[12], ind[6] = {0, 3, -1, 2, -4, 1}, want[6];
  opc_fill(x, 12, 9, -3, 3);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) {
      int64_t k = (int64_t)ind[i * 3 + j];
      want[i * 3 + j] = x[i * 4 + (k < 0 ? k + 4 : k)];
    }
  OpcBuf in[2] = {opc_buf(2, (int64_t[]){3, 4}, x), opc_buf(2, (int64_t[]){2, 3}, ind)};
  OpcBuf w = opc_buf(2, (int64_t[]){2, 3}, want);
  opc_check_run("data: " F32("(3, 4)") ", indices: " I64("(2, 3)"), "R.gather_elements(data, indices, axis=-1)", in, 2,
                &w, 1, 1e-6);
}

static double ref_combine(const char *red, double a, double u) {
  if (!strcmp(red, "add")) return a + u;
  if (!strcmp(red, "mul")) return a * u;
  if (!strcmp(red, "max")) return a > u ? a : u;
  if (!strcmp(red, "min")) return a < u ? a : u;
  return u;
}

/* data (3, 4); indices and updates (2, 3) along axis 0, with duplicates */
static void scatter_case(const char *red) {
  double x[12], ind[6] = {0, 2, -1, 0, 1, 2}, upd[6], want[12];
  opc_fill(x, 12, 11, -2, 2);
  opc_fill(upd, 6, 13, -2, 2);
  memcpy(want, x, sizeof x);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) {
      int64_t k = (int64_t)ind[i * 3 + j];
      double *t = &want[(k < 0 ? k + 3 : k) * 4 + j];
      *t = ref_combine(red, *t, upd[i * 3 + j]);
    }
  char call[160];
  snprintf(call, sizeof call, "R.scatter_elements(data, indices, updates, axis=0, reduction=\"%s\")", red);
  OpcBuf in[3] = {opc_buf(2, (int64_t[]){3, 4}, x), opc_buf(2, (int64_t[]){2, 3}, ind),
                  opc_buf(2, (int64_t[]){2, 3}, upd)};
  OpcBuf w = opc_buf(2, (int64_t[]){3, 4}, want);
  opc_check_run("data: " F32("(3, 4)") ", indices: " I64("(2, 3)") ", updates: " F32("(2, 3)"), call, in, 3, &w, 1,
                1e-6);
}

static void test_scatter_elements(void) {
  const char *p = "data: " F32("(3, 4)") ", indices: " I64("(2, 3)") ", updates: " F32("(2, 3)");
  OPC_CHECK_INFER(p, "R.scatter_elements(data, indices, updates)", "R.Tensor((3, 4), dtype=\"float32\")");
  OPC_CHECK_REFUSED(p, "R.scatter_elements(data, indices, updates, reduction=\"avg\")",
                    "scatter_elements: reduction must be \"none\", \"add\", \"mul\", \"max\" or \"min\", not \"avg\"");
  OPC_CHECK_REFUSED("data: " F32("(3, 4)") ", indices: " I64("(2, 3)") ", updates: " F32("(2, 2)"),
                    "R.scatter_elements(data, indices, updates)",
                    "scatter_elements: updates (2, 2) and indices (2, 3) must have the same shape");
  scatter_case("none");
  scatter_case("add");
  scatter_case("mul");
  scatter_case("max");
  scatter_case("min");
}

/* ======================================================================== */
/* one_hot                                                                  */
/* ======================================================================== */

static void test_one_hot(void) {
  OPC_CHECK_INFER("indices: " I64("(2, 3)"), "R.one_hot(indices, depth=5)", "R.Tensor((2, 3, 5), dtype=\"float32\")");
  OPC_CHECK_INFER("indices: " I64("(2, 3)"), "R.one_hot(indices, depth=5, axis=0, dtype=\"int32\")",
                  "R.Tensor((5, 2, 3), dtype=\"int32\")");
  OPC_CHECK_REFUSED("indices: " I64("(2,)"), "R.one_hot(indices, depth=0)", "one_hot: depth must be positive, got 0");
  OPC_CHECK_REFUSED("indices: " F32("(2,)"), "R.one_hot(indices, depth=3)",
                    "one_hot: indices must be integers, not float32");
  double ind[4] = {0, -1, 3, 7}, want[16];
  for (int c = 0; c < 4; c++)     /* axis 0: out[c, i] */
    for (int i = 0; i < 4; i++) { /* -1 is class 3, 7 is none */
      int64_t k = (int64_t)ind[i];
      want[c * 4 + i] = (k < 0 ? k + 4 : k) == c ? 5.0 : -2.0;
    }
  OpcBuf in = opc_buf(1, (int64_t[]){4}, ind), w = opc_buf(2, (int64_t[]){4, 4}, want);
  opc_check_run("indices: " I64("(4,)"), "R.one_hot(indices, depth=4, on_value=5.0, off_value=-2.0, axis=0)", &in, 1,
                &w, 1, 1e-6);
}

/* ======================================================================== */
/* nn.conv2d_transpose                                                      */
/* ======================================================================== */

static void test_conv2d_transpose_infer(void) {
  const char *p = "data: " F32("(1, 4, 3, 3)") ", weight: " F32("(4, 2, 3, 3)");
  OPC_CHECK_INFER(p, "R.nn.conv2d_transpose(data, weight)", "R.Tensor((1, 2, 5, 5), dtype=\"float32\")");
  OPC_CHECK_INFER(p, "R.nn.conv2d_transpose(data, weight, strides=[2, 2], padding=[1, 1, 1, 1], output_padding=[1, 0])",
                  "R.Tensor((1, 2, 6, 5), dtype=\"float32\")");
  OPC_CHECK_INFER(p, "R.nn.conv2d_transpose(data, weight, groups=2)", "R.Tensor((1, 4, 5, 5), dtype=\"float32\")");
  OPC_CHECK_INFER("data: " F32("(\"n\", 4, \"h\", 3)") ", weight: " F32("(4, 2, 3, 3)"),
                  "R.nn.conv2d_transpose(data, weight, strides=2)",
                  "R.Tensor((n, 2, h * 2 + 1, 7), dtype=\"float32\")");
  OPC_CHECK_REFUSED("data: " F32("(1, 3, 3, 3)") ", weight: " F32("(4, 2, 3, 3)"),
                    "R.nn.conv2d_transpose(data, weight)",
                    "nn.conv2d_transpose: channels differ: data (1, 3, 3, 3) has (3,) channels, weight (4, 2, 3, 3) (IOHW) takes (4,)");
  OPC_CHECK_REFUSED(p, "R.nn.conv2d_transpose(data, weight, data_layout=\"NHWC\")",
                    "nn.conv2d_transpose: only NCHW is supported for data_layout, got \"NHWC\"");
  OPC_CHECK_REFUSED(p, "R.nn.conv2d_transpose(data, weight, groups=3)",
                    "nn.conv2d_transpose: input channels of weight (4, 2, 3, 3) must be a constant multiple of groups=3");
}

/* reference: every input element scatters x * w into the (uncropped)
 * output, which is then cropped by the paddings */
static void tconv_case(int64_t g, const int64_t *s, const int64_t *d, const int64_t *pad, const int64_t *op) {
  enum { N = 1, C = 4, H = 3, W = 4, CO = 2, KH = 3, KW = 2 };
  int64_t oh = (H - 1) * s[0] - pad[0] - pad[2] + d[0] * (KH - 1) + 1 + op[0];
  int64_t ow = (W - 1) * s[1] - pad[1] - pad[3] + d[1] * (KW - 1) + 1 + op[1];
  int64_t cout = CO * g, cig = C / g;
  double x[N * C * H * W], w[C * CO * KH * KW], want[MAXV] = {0};
  opc_fill(x, N * C * H * W, 21, -1, 1);
  opc_fill(w, C * CO * KH * KW, 23, -1, 1);
  for (int c = 0; c < C; c++)
    for (int i = 0; i < H; i++)
      for (int j = 0; j < W; j++)
        for (int o = 0; o < CO; o++)
          for (int kh = 0; kh < KH; kh++)
            for (int kw = 0; kw < KW; kw++) {
              int64_t y = i * s[0] + kh * d[0] - pad[0], z = j * s[1] + kw * d[1] - pad[1];
              if (y < 0 || y >= oh || z < 0 || z >= ow) continue;
              int64_t co = (c / cig) * CO + o;
              want[(co * oh + y) * ow + z] += x[(c * H + i) * W + j] * w[((c * CO + o) * KH + kh) * KW + kw];
            }
  char call[256];
  snprintf(call, sizeof call,
           "R.nn.conv2d_transpose(data, weight, strides=[%lld, %lld], padding=[%lld, %lld, %lld, %lld], "
           "output_padding=[%lld, %lld], dilation=[%lld, %lld], groups=%lld)",
           (long long)s[0], (long long)s[1], (long long)pad[0], (long long)pad[1], (long long)pad[2], (long long)pad[3],
           (long long)op[0], (long long)op[1], (long long)d[0], (long long)d[1], (long long)g);
  OpcBuf in[2] = {opc_buf(4, (int64_t[]){N, C, H, W}, x), opc_buf(4, (int64_t[]){C, CO, KH, KW}, w)};
  OpcBuf want_b = opc_buf(4, (int64_t[]){N, cout, oh, ow}, want);
  opc_check_run("data: " F32("(1, 4, 3, 4)") ", weight: " F32("(4, 2, 3, 2)"), call, in, 2, &want_b, 1, 1e-5);
}

static void test_conv2d_transpose_run(void) {
  tconv_case(1, (int64_t[]){1, 1}, (int64_t[]){1, 1}, (int64_t[]){0, 0, 0, 0}, (int64_t[]){0, 0});
  tconv_case(1, (int64_t[]){2, 3}, (int64_t[]){1, 1}, (int64_t[]){1, 0, 2, 1}, (int64_t[]){1, 2});
  tconv_case(2, (int64_t[]){2, 1}, (int64_t[]){2, 2}, (int64_t[]){0, 1, 1, 0}, (int64_t[]){0, 0});
}

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

static double ref_interp1(const RefMode *m, const double *row, int64_t in, double scale, int64_t xo) {
  double x = ref_coord(m, (double)xo, scale, in), c[4];
  double f = floor(x), r = x == f ? 1.0 : x - f;
  int n;
  ref_coeffs(m, r, c, &n);
  int64_t pad = (n + 1) / 2, idx[4];
  double xp = x + (double)pad;
  /* the n indices of [0, in + 2 pad) nearest xp, ties to the lower */
  bool used[64] = {0};
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
           "cubic_exclude=%d)", m->method, m->coord, m->rounding, m->alpha, m->exclude ? 1 : 0);
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
}

int main(void) {
  RUN(test_pad_infer);
  RUN(test_pad_run);
  RUN(test_tile);
  RUN(test_gather_elements);
  RUN(test_scatter_elements);
  RUN(test_one_hot);
  RUN(test_conv2d_transpose_infer);
  RUN(test_conv2d_transpose_run);
  RUN(test_resize_infer);
  RUN(test_resize_run);
  return CHECK_DONE();
}
