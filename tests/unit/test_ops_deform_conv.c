/* test_ops_deform_conv.c - nn.deform_conv2d (src/ops/deform_conv.c): the
 * inferred struct info prints as expected, refused inputs name the op and
 * what was expected, the legalized prim func reads back equal, and the
 * interpreter computes what a plain C reference here computes: per output
 * element, the loops of a direct convolution with each tap's position
 * moved and read by torchvision's rule (outside the data by a pixel or
 * more: 0; else the in-range corners of the bilinear cell). */
#include "check.h"
#include "op_check.h"

#include <stdio.h>

#define F32(shape) "R.Tensor(" shape ", \"float32\")"

static void test_deform_infer(void) {
  OPC_CHECK_INFER("x: " F32("(\"n\", 4, 5, 6)") ", off: " F32("(\"n\", 18, 5, 6)") ", w: " F32("(8, 4, 3, 3)"),
                  "R.nn.deform_conv2d(x, off, w, padding=[1, 1, 1, 1])", "R.Tensor((n, 8, 5, 6), dtype=\"float32\")");
  OPC_CHECK_REFUSED("x: " F32("(1, 4, 5, 6)") ", off: " F32("(1, 16, 3, 4)") ", w: " F32("(8, 4, 3, 3)"),
                    "R.nn.deform_conv2d(x, off, w)",
                    "nn.deform_conv2d: offset (1, 16, 3, 4) must have offset_groups * kh * kw * 2 = 18 channels");
  OPC_CHECK_REFUSED("x: " F32("(1, 4, 5, 6)") ", off: " F32("(1, 18, 3, 3)") ", w: " F32("(8, 4, 3, 3)"),
                    "R.nn.deform_conv2d(x, off, w)", "nn.deform_conv2d: offset (1, 18, 3, 3) must cover the output's (3, 4) positions");
  OPC_CHECK_REFUSED("x: " F32("(1, 4, 5, 6)") ", off: " F32("(1, 18, 3, 4)") ", w: " F32("(8, 3, 3, 3)"),
                    "R.nn.deform_conv2d(x, off, w)",
                    "nn.deform_conv2d: weight (8, 3, 3, 3) with groups=1 does not take data's 4 channels");
}

static double ref_pixel(const double *img, int h, int w, double y, double x) {
  if (y <= -1 || y >= h || x <= -1 || x >= w) return 0;
  int y0 = (int)floor(y), x0 = (int)floor(x);
  double ly = y - y0, lx = x - x0, v = 0;
  for (int dy = 0; dy < 2; dy++)
    for (int dx = 0; dx < 2; dx++) {
      int yy = y0 + dy, xx = x0 + dx;
      if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
      v += (dy ? ly : 1 - ly) * (dx ? lx : 1 - lx) * img[yy * w + xx];
    }
  return v;
}

typedef struct DcCase { int n, c, h, w, oc, kh, kw, groups, ogroups, stride, pad, dil; bool mask; } DcCase;

static void deform_case(const DcCase *t, unsigned seed) {
  int oh = (t->h + 2 * t->pad - t->dil * (t->kh - 1) - 1) / t->stride + 1;
  int ow = (t->w + 2 * t->pad - t->dil * (t->kw - 1) - 1) / t->stride + 1, taps = t->kh * t->kw;
  OpcBuf x = opc_buf(4, (int64_t[]){t->n, t->c, t->h, t->w}, NULL);
  OpcBuf off = opc_buf(4, (int64_t[]){t->n, t->ogroups * taps * 2, oh, ow}, NULL);
  OpcBuf wt = opc_buf(4, (int64_t[]){t->oc, t->c / t->groups, t->kh, t->kw}, NULL);
  OpcBuf mk = opc_buf(4, (int64_t[]){t->n, t->ogroups * taps, oh, ow}, NULL);
  opc_fill_buf(&x, seed, -1, 1, false);
  opc_fill_buf(&off, seed + 1, -1.7, 1.7, false);
  opc_fill_buf(&wt, seed + 2, -1, 1, false);
  opc_fill_buf(&mk, seed + 3, 0, 1, false);
  OpcBuf y = opc_buf(4, (int64_t[]){t->n, t->oc, oh, ow}, NULL);
  y.v = calloc((size_t)opc_numel(&y), sizeof *y.v);
  int cg = t->c / t->groups, og_size = t->c / t->ogroups;
  for (int n = 0; n < t->n; n++)
    for (int o = 0; o < t->oc; o++)
      for (int i = 0; i < oh; i++)
        for (int j = 0; j < ow; j++) {
          double s = 0;
          for (int rc = 0; rc < cg; rc++) {
            int c = o / (t->oc / t->groups) * cg + rc, g = c / og_size;
            for (int ki = 0; ki < t->kh; ki++)
              for (int kj = 0; kj < t->kw; kj++) {
                int tap = g * taps + ki * t->kw + kj;
                double dy = off.v[((n * t->ogroups * taps * 2 + 2 * tap) * oh + i) * ow + j];
                double dx = off.v[((n * t->ogroups * taps * 2 + 2 * tap + 1) * oh + i) * ow + j];
                double py = i * t->stride - t->pad + ki * t->dil + dy, px = j * t->stride - t->pad + kj * t->dil + dx;
                double v = ref_pixel(&x.v[(n * t->c + c) * t->h * t->w], t->h, t->w, py, px);
                if (t->mask) v *= mk.v[((n * t->ogroups * taps + tap) * oh + i) * ow + j];
                s += v * wt.v[((o * cg + rc) * t->kh + ki) * t->kw + kj];
              }
          }
          y.v[((n * t->oc + o) * oh + i) * ow + j] = s;
        }
  char params[256], call[200];
  snprintf(params, sizeof params,
           "x: R.Tensor((%d, %d, %d, %d), \"float32\"), off: R.Tensor((%d, %d, %d, %d), \"float32\"), "
           "w: R.Tensor((%d, %d, %d, %d), \"float32\"), m: R.Tensor((%d, %d, %d, %d), \"float32\")",
           t->n, t->c, t->h, t->w, t->n, t->ogroups * taps * 2, oh, ow, t->oc, cg, t->kh, t->kw, t->n, t->ogroups * taps, oh, ow);
  snprintf(call, sizeof call,
           "R.nn.deform_conv2d(x, off, w, %sstrides=%d, padding=%d, dilation=%d, groups=%d, offset_groups=%d)",
           t->mask ? "m, " : "", t->stride, t->pad, t->dil, t->groups, t->ogroups);
  OpcBuf ins[4] = {x, off, wt, mk};
  opc_check_run(params, call, ins, t->mask ? 4 : 3, &y, 1, 1e-4);
  opc_free(ins, 4);
  opc_free(&y, 1);
}

static void test_deform_run(void) {
  static const DcCase cases[] = {
      {1, 2, 5, 6, 3, 3, 3, 1, 1, 1, 1, 1, false},
      {2, 4, 6, 5, 4, 2, 3, 2, 2, 2, 0, 1, true},
      {1, 3, 7, 7, 2, 3, 2, 1, 3, 1, 2, 2, true},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) deform_case(&cases[i], 10 + 4 * (unsigned)i);
}

int main(void) {
  RUN(test_deform_infer);
  RUN(test_deform_run);
  return CHECK_DONE();
}
