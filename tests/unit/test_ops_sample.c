/* test_ops_sample.c - image.grid_sample (src/ops/sample.c): the inferred
 * struct info prints as expected, refused inputs name the op and what was
 * expected, the legalized prim func reads back equal, and the interpreter
 * computes what a plain C reference here computes.  The reference is the
 * 1-D formulation: interpolate every row along the innermost dim, then the
 * results along the next dim out, and so on; a position outside the input
 * is mirrored step by step (one border at a time) rather than in one
 * closed-form step. */
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

int main(void) {
  RUN(test_grid_sample_infer);
  RUN(test_grid_sample_run);
  return CHECK_DONE();
}
