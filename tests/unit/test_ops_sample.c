/* test_ops_sample.c - image.grid_sample and vision.roi_align
 * (src/ops/sample.c): the inferred
 * struct info prints as expected, refused inputs name the op and what was
 * expected, the legalized prim func reads back equal, and the interpreter
 * computes what a plain C reference here computes.  The reference is the
 * 1-D formulation: interpolate every row along the innermost dim, then the
 * results along the next dim out, and so on; a position outside the input
 * is mirrored step by step (one border at a time) rather than in one
 * closed-form step.  RoiAlign's reference follows ONNX Runtime's loops over
 * regions, bins and sample points. */
#include "check.h"
#include "op_check.h"

#include <stdio.h>

#define F32(shape) "R.Tensor(" shape ", \"float32\")"

static void test_grid_sample_infer(void) {
  OPC_CHECK_INFER("x: " F32("(\"n\", 3, 4, 5)") ", g: " F32("(\"n\", 6, 7, 2)"), "R.image.grid_sample(x, g)",
                  "R.Tensor((n, 3, 6, 7), dtype=\"float32\")");
  OPC_CHECK_INFER("x: " F32("(1, 2, 3, 4, 5)") ", g: " F32("(1, 2, 2, 2, 3)"),
                  "R.image.grid_sample(x, g, method=\"nearest\", padding_mode=\"border\")",
                  "R.Tensor((1, 2, 2, 2, 2), dtype=\"float32\")");
  OPC_CHECK_REFUSED("x: " F32("(1, 3, 4, 5)") ", g: " F32("(1, 6, 7, 2)"), "R.image.grid_sample(x, g, method=\"area\")",
                    "image.grid_sample: method must be one of \"nearest\", \"linear\", \"cubic\", not \"area\"");
  OPC_CHECK_REFUSED("x: " F32("(1, 3, 4, 5)") ", g: " F32("(1, 6, 7, 3)"), "R.image.grid_sample(x, g)",
                    "image.grid_sample: grid's last dim must be 2 (one position per spatial dim), grid is (1, 6, 7, 3)");
  OPC_CHECK_REFUSED("x: " F32("(1, 3, \"h\", 5)") ", g: " F32("(1, 6, 7, 2)"), "R.image.grid_sample(x, g)",
                    "image.grid_sample: the spatial dims of data (1, 3, h, 5) must be positive constants");
  OPC_CHECK_REFUSED("x: " F32("(2, 3, 4, 5)") ", g: " F32("(1, 6, 7, 2)"), "R.image.grid_sample(x, g)",
                    "image.grid_sample: data (2, 3, 4, 5) and grid (1, 6, 7, 2) differ in batch");
  OPC_CHECK_REFUSED("x: " F32("(2, 3)") ", g: " F32("(2, 3)"), "R.image.grid_sample(x, g)",
                    "image.grid_sample: data must have 1 to 3 spatial dims (rank 3 to 5), got rank 2");
}

typedef struct RefGs { const char *method, *padding; bool align; } RefGs;

/* mirror x at lo / hi, one reflection at a time, until inside */
static double ref_mirror(double x, double lo, double hi) {
  if (hi <= lo) return lo;
  while (x < lo || x > hi) x = x < lo ? 2 * lo - x : 2 * hi - x;
  return x;
}

static double ref_pixel(const RefGs *m, const double *row, int64_t len, int64_t i, bool align) {
  if (!strcmp(m->padding, "zeros")) return i >= 0 && i < len ? row[i] : 0;
  if (!strcmp(m->padding, "border")) return row[i < 0 ? 0 : i >= len ? len - 1 : i];
  double lo = align ? 0 : -0.5, hi = align ? (double)len - 1 : (double)len - 0.5;
  return row[(int64_t)ref_mirror((double)i, lo, hi)];
}

static double ref_keys(double s) {
  const double A = -0.75;
  s = fabs(s);
  if (s <= 1) return (A + 2) * s * s * s - (A + 3) * s * s + 1;
  if (s < 2) return A * s * s * s - 5 * A * s * s + 8 * A * s - 4 * A;
  return 0;
}

static double ref_1d(const RefGs *m, const double *row, int64_t len, double x) {
  if (!strcmp(m->method, "nearest")) return ref_pixel(m, row, len, (int64_t)x, m->align);
  int64_t f = (int64_t)floor(x);
  if (!strcmp(m->method, "linear"))
    return (1 - (x - (double)f)) * ref_pixel(m, row, len, f, m->align) + (x - (double)f) * ref_pixel(m, row, len, f + 1, m->align);
  double v = 0;
  for (int64_t t = f - 1; t <= f + 2; t++) v += ref_keys(x - (double)t) * ref_pixel(m, row, len, t, m->align);
  return v;
}

/* data over dims[0..r) (row-major) at coordinates c[0..r) */
static double ref_nd(const RefGs *m, const double *data, const int64_t *dims, int r, const double *c) {
  if (r == 1) return ref_1d(m, data, dims[0], c[0]);
  int64_t stride = 1;
  for (int i = 1; i < r; i++) stride *= dims[i];
  double res[16];
  for (int64_t i = 0; i < dims[0]; i++) res[i] = ref_nd(m, data + i * stride, dims + 1, r - 1, c + 1);
  return ref_1d(m, res, dims[0], c[0]);
}

/* the pixel-space coordinate of normalized v along a dim of length len */
static double ref_coord(const RefGs *m, double v, int64_t len) {
  double x = m->align ? (v + 1) / 2 * (double)(len - 1) : ((v + 1) * (double)len - 1) / 2;
  if (!strcmp(m->method, "nearest")) x = nearbyint(x);
  double lo = m->align ? 0 : -0.5, hi = m->align ? (double)len - 1 : (double)len - 0.5;
  if (x >= lo && x <= hi) return x;
  if (!strcmp(m->padding, "border")) return x < 0 ? 0 : x > (double)len - 1 ? (double)len - 1 : x;
  if (!strcmp(m->padding, "reflection")) return ref_mirror(x, lo, hi);
  return x;
}

/* x (N, C, dims) sampled at a random grid (N, outs, r), values in [-1.3, 1.3) */
static void grid_case(const RefGs *m, int r, const int64_t *dims, const int64_t *outs, unsigned seed) {
  enum { N = 2, C = 2 };
  int64_t xs[5] = {N, C}, gs[5] = {N}, ys[5] = {N, C}, in_sp = 1, out_sp = 1;
  for (int i = 0; i < r; i++) {
    xs[2 + i] = dims[i], gs[1 + i] = outs[i], ys[2 + i] = outs[i];
    in_sp *= dims[i], out_sp *= outs[i];
  }
  gs[1 + r] = r;
  OpcBuf x = opc_buf(r + 2, xs, NULL), g = opc_buf(r + 2, gs, NULL), y = opc_buf(r + 2, ys, NULL);
  opc_fill_buf(&x, seed, -2, 2, false);
  opc_fill_buf(&g, seed + 1, -1.3, 1.3, false);
  y.v = malloc((size_t)(N * C * out_sp) * sizeof *y.v);
  for (int64_t n = 0; n < N; n++)
    for (int64_t o = 0; o < out_sp; o++) {
      double c[3];
      for (int i = 0; i < r; i++) c[i] = ref_coord(m, g.v[(n * out_sp + o) * r + (r - 1 - i)], dims[i]);
      for (int64_t ch = 0; ch < C; ch++) y.v[(n * C + ch) * out_sp + o] = ref_nd(m, x.v + (n * C + ch) * in_sp, dims, r, c);
    }
  char params[256], call[200], shape[2][64];
  for (int k = 0; k < 2; k++) {
    const int64_t *s = k ? gs : xs;
    int len = snprintf(shape[k], sizeof shape[k], "(");
    for (int i = 0; i < r + 2; i++) len += snprintf(shape[k] + len, sizeof shape[k] - (size_t)len, "%s%lld", i ? ", " : "", (long long)s[i]);
    snprintf(shape[k] + len, sizeof shape[k] - (size_t)len, ")");
  }
  snprintf(params, sizeof params, "x: R.Tensor(%s, \"float32\"), g: R.Tensor(%s, \"float32\")", shape[0], shape[1]);
  snprintf(call, sizeof call, "R.image.grid_sample(x, g, method=\"%s\", padding_mode=\"%s\", align_corners=%s)", m->method,
           m->padding, m->align ? "True" : "False");
  OpcBuf ins[2] = {x, g};
  opc_check_run(params, call, ins, 2, &y, 1, 1e-4);
  opc_free(ins, 2);
  opc_free(&y, 1);
}

static void test_grid_sample_run(void) {
  static const char *const methods[] = {"nearest", "linear", "cubic"}, *const paddings[] = {"zeros", "border", "reflection"};
  unsigned seed = 1;
  for (int mi = 0; mi < 3; mi++)
    for (int pi = 0; pi < 3; pi++)
      for (int al = 0; al < 2; al++) {
        RefGs m = {methods[mi], paddings[pi], al != 0};
        grid_case(&m, 2, (int64_t[]){3, 4}, (int64_t[]){2, 5}, seed += 2);
      }
  RefGs lin3 = {"linear", "reflection", false}, near1 = {"nearest", "zeros", true};
  grid_case(&lin3, 3, (int64_t[]){2, 3, 4}, (int64_t[]){2, 2, 3}, 91);
  grid_case(&near1, 1, (int64_t[]){5}, (int64_t[]){7}, 93);
}

/* ======================================================================== */
/* vision.roi_align                                                         */
/* ======================================================================== */

static void test_roi_align_infer(void) {
  OPC_CHECK_INFER("x: " F32("(2, 3, 8, 9)") ", r: " F32("(\"k\", 4)") ", b: R.Tensor((\"k\",), \"int64\")",
                  "R.vision.roi_align(x, r, b, output_height=2, output_width=3, sampling_ratio=2)",
                  "R.Tensor((k, 3, 2, 3), dtype=\"float32\")");
  OPC_CHECK_REFUSED("x: " F32("(2, 3, 8, 9)") ", r: " F32("(5, 4)") ", b: R.Tensor((5,), \"int64\")",
                    "R.vision.roi_align(x, r, b, output_height=2, output_width=3)",
                    "vision.roi_align: sampling_ratio 0 is not supported (the adaptive count depends on the regions' "
                    "values; give a positive one)");
  OPC_CHECK_REFUSED("x: " F32("(2, 3, 8, 9)") ", r: " F32("(5, 5)") ", b: R.Tensor((5,), \"int64\")",
                    "R.vision.roi_align(x, r, b, sampling_ratio=1)", "vision.roi_align: rois must be (R, 4), got (5, 5)");
}

/* ONNX Runtime's rule for one point: 0 past a pixel outside, the edge within */
static void ref_roi_point(const double *img, int h, int w, double y, double x, bool is_max, double *acc) {
  if (y < -1 || y > h || x < -1 || x > w) {
    *acc = is_max ? fmax(*acc, 0) : *acc;
    return;
  }
  y = y < 0 ? 0 : y, x = x < 0 ? 0 : x;
  int yl = (int)y, xl = (int)x, yh, xh;
  if (yl >= h - 1) yl = yh = h - 1, y = yl;
  else yh = yl + 1;
  if (xl >= w - 1) xl = xh = w - 1, x = xl;
  else xh = xl + 1;
  double ly = y - yl, lx = x - xl;
  double t[4] = {(1 - ly) * (1 - lx) * img[yl * w + xl], (1 - ly) * lx * img[yl * w + xh], ly * (1 - lx) * img[yh * w + xl],
                 ly * lx * img[yh * w + xh]};
  if (is_max) *acc = fmax(*acc, fmax(fmax(t[0], t[1]), fmax(t[2], t[3])));
  else *acc += t[0] + t[1] + t[2] + t[3];
}

static void roi_case(bool is_max, bool half_pixel, int ratio, double scale) {
  enum { N = 2, C = 2, H = 6, W = 7, R = 4, OH = 3, OW = 2 };
  double rv[R * 4] = {0, 0, 6, 5, 1.5, 2.25, 4.5, 3.75, -2, -1, 8, 9, 3, 3, 3.2, 3.1}, bv[R] = {0, 1, 1, 0};
  OpcBuf x = opc_buf(4, (int64_t[]){N, C, H, W}, NULL), r = opc_buf(2, (int64_t[]){R, 4}, rv), b = opc_buf(1, (int64_t[]){R}, bv);
  opc_fill_buf(&x, 77, -1, 1, false);
  OpcBuf y = opc_buf(4, (int64_t[]){R, C, OH, OW}, NULL);
  y.v = malloc((size_t)opc_numel(&y) * sizeof *y.v);
  double off = half_pixel ? 0.5 : 0;
  for (int k = 0; k < R; k++) {
    double x0 = rv[4 * k] * scale - off, y0 = rv[4 * k + 1] * scale - off;
    double rw = rv[4 * k + 2] * scale - off - x0, rh = rv[4 * k + 3] * scale - off - y0;
    if (!half_pixel) rw = fmax(rw, 1), rh = fmax(rh, 1);
    for (int c = 0; c < C; c++)
      for (int i = 0; i < OH; i++)
        for (int j = 0; j < OW; j++) {
          double acc = is_max ? -1e300 : 0;
          for (int sy = 0; sy < ratio; sy++)
            for (int sx = 0; sx < ratio; sx++) {
              double py = y0 + i * rh / OH + (sy + 0.5) * rh / OH / ratio, px = x0 + j * rw / OW + (sx + 0.5) * rw / OW / ratio;
              ref_roi_point(&x.v[((int)bv[k] * C + c) * H * W], H, W, py, px, is_max, &acc);
            }
          y.v[((k * C + c) * OH + i) * OW + j] = is_max ? acc : acc / (ratio * ratio);
        }
  }
  char call[200];
  snprintf(call, sizeof call,
           "R.vision.roi_align(x, r, b, output_height=3, output_width=2, sampling_ratio=%d, spatial_scale=%g, mode=\"%s\", "
           "coordinate_transformation_mode=\"%s\")",
           ratio, scale, is_max ? "max" : "avg", half_pixel ? "half_pixel" : "output_half_pixel");
  OpcBuf ins[3] = {x, r, b};
  opc_check_run("x: R.Tensor((2, 2, 6, 7), \"float32\"), r: R.Tensor((4, 4), \"float32\"), b: R.Tensor((4,), \"int64\")",
                call, ins, 3, &y, 1, 1e-4);
  opc_free(&x, 1);
  opc_free(&y, 1);
}

static void test_roi_align_run(void) {
  roi_case(false, true, 2, 1.0);
  roi_case(false, false, 3, 0.75);
  roi_case(true, true, 2, 1.0);
  roi_case(true, false, 1, 1.25);
}

int main(void) {
  RUN(test_grid_sample_infer);
  RUN(test_grid_sample_run);
  RUN(test_roi_align_infer);
  RUN(test_roi_align_run);
  return CHECK_DONE();
}
