/* test_ops_nn.c - matmul, nn.linear, nn.conv2d and the 2-D pools of the op
 * registry.
 *
 * Each case reads a one-binding graph function, checks the struct info the
 * registry infers (printed, against text written here), legalizes the call
 * into a prim func whose printed text must read back structurally equal, runs
 * it in the reference interpreter and compares the result with a plain C loop
 * nest written below (1e-5 relative for float32).  Shape errors must name the
 * op and the shapes and point at the call's line. */
#include "check.h"
#include "op_check.h"

static MlcCtx *ctx;

/* ---- plain C references ------------------------------------------------------- */

/* numpy matmul; out laid out as the (squeezed) numpy result */
static void ref_matmul(const OpcBuf *a, const OpcBuf *b, double *out) {
  int64_t sa[OPC_MAX_NDIM], sb[OPC_MAX_NDIM];
  int na = a->ndim < 2 ? 2 : a->ndim, nb = b->ndim < 2 ? 2 : b->ndim;
  if (a->ndim == 1) sa[0] = 1, sa[1] = a->shape[0];
  else memcpy(sa, a->shape, sizeof sa);
  if (b->ndim == 1) sb[0] = b->shape[0], sb[1] = 1;
  else memcpy(sb, b->shape, sizeof sb);
  int ba = na - 2, bb = nb - 2, nbat = ba > bb ? ba : bb;
  int64_t M = sa[na - 2], K = sa[na - 1], N = sb[nb - 1], bat[OPC_MAX_NDIM], total = 1;
  for (int i = 0; i < nbat; i++) {
    int64_t da = i >= nbat - ba ? sa[i - (nbat - ba)] : 1, db = i >= nbat - bb ? sb[i - (nbat - bb)] : 1;
    bat[i] = da > db ? da : db;
    total *= bat[i];
  }
  for (int64_t t = 0; t < total; t++) {
    int64_t rem = t, aoff = 0, boff = 0, astr = M * K, bstr = K * N;
    for (int i = nbat - 1; i >= 0; i--) {
      int64_t idx = rem % bat[i];
      rem /= bat[i];
      if (i >= nbat - ba) {
        int64_t d = sa[i - (nbat - ba)];
        aoff += (d == 1 ? 0 : idx) * astr;
        astr *= d;
      }
      if (i >= nbat - bb) {
        int64_t d = sb[i - (nbat - bb)];
        boff += (d == 1 ? 0 : idx) * bstr;
        bstr *= d;
      }
    }
    for (int64_t m = 0; m < M; m++)
      for (int64_t n = 0; n < N; n++) {
        double s = 0;
        for (int64_t k = 0; k < K; k++) s += a->v[aoff + m * K + k] * b->v[boff + k * N + n];
        out[(t * M + m) * N + n] = s;
      }
  }
}

typedef struct WinP { int s[2], p[4], d[2]; bool ceil; } WinP; /* p: top, left, bottom, right */

/* in ceil mode a last window that would start in the trailing padding is
 * dropped (PyTorch, ONNX) */
static int64_t out_size(int64_t in, int64_t k, const WinP *w, int dim) {
  int64_t num = in + w->p[dim] + w->p[dim + 2] - w->d[dim] * (k - 1) - 1 + (w->ceil ? w->s[dim] - 1 : 0);
  int64_t out = num / w->s[dim] + 1;
  if (w->ceil && (out - 1) * w->s[dim] >= in + w->p[dim]) out--;
  return out;
}

static void ref_conv(const OpcBuf *x, const OpcBuf *w, const WinP *wp, int groups, double *out) {
  int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
  int64_t O = w->shape[0], I = w->shape[1], KH = w->shape[2], KW = w->shape[3];
  int64_t OH = out_size(H, KH, wp, 0), OW = out_size(W, KW, wp, 1);
  for (int64_t n = 0; n < N; n++)
    for (int64_t o = 0; o < O; o++)
      for (int64_t oh = 0; oh < OH; oh++)
        for (int64_t ow = 0; ow < OW; ow++) {
          double s = 0;
          int64_t g = o / (O / groups);
          for (int64_t i = 0; i < I; i++)
            for (int64_t kh = 0; kh < KH; kh++)
              for (int64_t kw = 0; kw < KW; kw++) {
                int64_t h = oh * wp->s[0] + kh * wp->d[0] - wp->p[0], ww = ow * wp->s[1] + kw * wp->d[1] - wp->p[1];
                if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
                s += x->v[((n * C + g * I + i) * H + h) * W + ww] * w->v[((o * I + i) * KH + kh) * KW + kw];
              }
          out[((n * O + o) * OH + oh) * OW + ow] = s;
        }
}

static void ref_pool(const OpcBuf *x, bool is_max, int kh_, int kw_, const WinP *wp, bool include_pad,
                     double *out) {
  int64_t NC = x->shape[0] * x->shape[1], H = x->shape[2], W = x->shape[3];
  int64_t OH = out_size(H, kh_, wp, 0), OW = out_size(W, kw_, wp, 1);
  for (int64_t nc = 0; nc < NC; nc++)
    for (int64_t oh = 0; oh < OH; oh++)
      for (int64_t ow = 0; ow < OW; ow++) {
        double acc = is_max ? -INFINITY : 0, cnt = 0;
        for (int64_t kh = 0; kh < kh_; kh++)
          for (int64_t kw = 0; kw < kw_; kw++) {
            int64_t ph = oh * wp->s[0] + kh * wp->d[0], pw = ow * wp->s[1] + kw * wp->d[1];
            int64_t h = ph - wp->p[0], w = pw - wp->p[1];
            bool inside = h >= 0 && h < H && w >= 0 && w < W;
            bool in_pad = ph < H + wp->p[0] + wp->p[2] && pw < W + wp->p[1] + wp->p[3];
            double v = inside ? x->v[(nc * H + h) * W + w] : 0;
            if (is_max) acc = inside && v > acc ? v : acc;
            else acc += v;
            cnt += include_pad ? in_pad : inside;
          }
        out[(nc * OH + oh) * OW + ow] = is_max ? acc : acc / (cnt > 1 ? cnt : 1);
      }
}

static void ref_adaptive(const OpcBuf *x, int64_t OH, int64_t OW, double *out) {
  int64_t NC = x->shape[0] * x->shape[1], H = x->shape[2], W = x->shape[3];
  for (int64_t nc = 0; nc < NC; nc++)
    for (int64_t i = 0; i < OH; i++)
      for (int64_t j = 0; j < OW; j++) {
        int64_t h0 = i * H / OH, h1 = ((i + 1) * H + OH - 1) / OH;
        int64_t w0 = j * W / OW, w1 = ((j + 1) * W + OW - 1) / OW;
        double s = 0;
        for (int64_t h = h0; h < h1; h++)
          for (int64_t w = w0; w < w1; w++) s += x->v[(nc * H + h) * W + w];
        out[(nc * OH + i) * OW + j] = s / (double)((h1 - h0) * (w1 - w0));
      }
}

/* ---- matmul --------------------------------------------------------------------- */

static void check_matmul(const char *params, const char *want_sinfo, OpcBuf a, OpcBuf b, int on,
                         const int64_t *oshape) {
  const MlcGExpr *c = opc_call_checked(ctx, params, "R.matmul(x, y)", want_sinfo);
  OpcBuf ins[2] = {a, b}, o = opc_buf(on, oshape, NULL);
  o.v = malloc((size_t)opc_numel(&o) * sizeof *o.v);
  ref_matmul(&a, &b, o.v);
  CHECK(opc_runs_like(ctx, c, ins, 2, &o, 1, 1e-5));
  free(o.v);
  opc_free(ins, 2);
}

static void test_matmul_2d(void) {
  check_matmul("x: R.Tensor((3, 5), \"float32\"), y: R.Tensor((5, 4), \"float32\")",
               "R.Tensor((3, 4), dtype=\"float32\")", opc_tensor(1, 2, 3, 5), opc_tensor(2, 2, 5, 4), 2,
               (int64_t[]){3, 4});
}

static void test_matmul_batched_broadcast(void) {
  check_matmul("x: R.Tensor((2, 1, 3, 5), \"float32\"), y: R.Tensor((4, 5, 6), \"float32\")",
               "R.Tensor((2, 4, 3, 6), dtype=\"float32\")", opc_tensor(3, 4, 2, 1, 3, 5), opc_tensor(4, 3, 4, 5, 6), 4,
               (int64_t[]){2, 4, 3, 6});
}

static void test_matmul_symbolic(void) {
  check_matmul("x: R.Tensor((\"n\", 2, 7), \"float32\"), y: R.Tensor((7, 3), \"float32\")",
               "R.Tensor((n, 2, 3), dtype=\"float32\")", opc_tensor(5, 3, 3, 2, 7), opc_tensor(6, 2, 7, 3), 3,
               (int64_t[]){3, 2, 3});
}

static void test_matmul_vectors(void) {
  check_matmul("x: R.Tensor((5,), \"float32\"), y: R.Tensor((2, 5, 3), \"float32\")",
               "R.Tensor((2, 3), dtype=\"float32\")", opc_tensor(7, 1, 5), opc_tensor(8, 3, 2, 5, 3), 2,
               (int64_t[]){2, 3});
  check_matmul("x: R.Tensor((3, 5), \"float32\"), y: R.Tensor((5,), \"float32\")",
               "R.Tensor((3,), dtype=\"float32\")", opc_tensor(9, 2, 3, 5), opc_tensor(10, 1, 5), 1, (int64_t[]){3});
}

static void test_matmul_errors(void) {
  OPC_CHECK_REFUSED_PART("x: R.Tensor((4, 784), \"float32\"), y: R.Tensor((100, 10), \"float32\")", "R.matmul(x, y)",
                         "matmul: inner dims differ: x1 is (4, 784), x2 is (100, 10)");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((4, \"n\"), \"float32\"), y: R.Tensor((5, 10), \"float32\")", "R.matmul(x, y)",
                         "matmul: inner dims differ: x1 is (4, n), x2 is (5, 10)");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((2, 4, 5), \"float32\"), y: R.Tensor((3, 5, 10), \"float32\")", "R.matmul(x, y)",
                         "do not broadcast");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((4, 5), \"float32\"), y: R.Tensor((5, 10), \"float16\")", "R.matmul(x, y)",
                         "matmul: x1 is float32 but x2 is float16");
}

/* ---- linear ---------------------------------------------------------------------- */

static void test_linear_bias_symbolic(void) {
  const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((\"n\", 4), \"float32\"), w: R.Tensor((3, 4), \"float32\"), "
                                       "b: R.Tensor((3,), \"float32\")",
                                       "R.nn.linear(x, w, b)");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((n, 3), dtype=\"float32\")"));
  CHECK(opc_round_trips(ctx, c));
  OpcBuf ins[3] = {opc_tensor(11, 2, 5, 4), opc_tensor(12, 2, 3, 4), opc_tensor(13, 1, 3)};
  double want[15];
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 3; j++) {
      double s = ins[2].v[j];
      for (int k = 0; k < 4; k++) s += ins[0].v[i * 4 + k] * ins[1].v[j * 4 + k];
      want[i * 3 + j] = s;
    }
  OpcBuf expect = opc_buf(2, (int64_t[]){5, 3}, want);
  CHECK(opc_runs_like(ctx, c, ins, 3, &expect, 1, 1e-5));
  opc_free(ins, 3);
}

static void test_linear_no_bias(void) {
  const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((2, 3, 6), \"float32\"), w: R.Tensor((5, 6), \"float32\")",
                                       "R.nn.linear(x, w)");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((2, 3, 5), dtype=\"float32\")"));
  CHECK(opc_round_trips(ctx, c));
  OpcBuf ins[2] = {opc_tensor(14, 3, 2, 3, 6), opc_tensor(15, 2, 5, 6)};
  double want[30];
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 5; j++) {
      double s = 0;
      for (int k = 0; k < 6; k++) s += ins[0].v[i * 6 + k] * ins[1].v[j * 6 + k];
      want[i * 5 + j] = s;
    }
  OpcBuf expect = opc_buf(3, (int64_t[]){2, 3, 5}, want);
  CHECK(opc_runs_like(ctx, c, ins, 2, &expect, 1, 1e-5));
  opc_free(ins, 2);
}

static void test_linear_errors(void) {
  OPC_CHECK_REFUSED_PART("x: R.Tensor((2, 6), \"float32\"), w: R.Tensor((5, 7), \"float32\")", "R.nn.linear(x, w)",
                         "nn.linear: in_features differ: data is (2, 6), weight is (5, 7)");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((2, 6), \"float32\"), w: R.Tensor((6,), \"float32\")", "R.nn.linear(x, w)",
                         "nn.linear: weight must be 2-D (out_features, in_features), got (6,)");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((2, 6), \"float32\"), w: R.Tensor((5, 6), \"float32\"), b: R.Tensor((4,), \"float32\")",
                         "R.nn.linear(x, w, b)", "do not broadcast");
}

/* ---- conv2d --------------------------------------------------------------------- */

static void check_conv(const char *params, const char *attrs, const char *want_sinfo, OpcBuf x, OpcBuf w,
                       WinP wp, int groups) {
  char op[256];
  snprintf(op, sizeof op, "R.nn.conv2d(x, w%s)", attrs);
  const MlcGExpr *c = opc_call_checked(ctx, params, op, want_sinfo);
  int64_t os[4] = {x.shape[0], w.shape[0], out_size(x.shape[2], w.shape[2], &wp, 0),
                   out_size(x.shape[3], w.shape[3], &wp, 1)};
  OpcBuf ins[2] = {x, w}, o = opc_buf(4, os, NULL);
  o.v = malloc((size_t)opc_numel(&o) * sizeof *o.v);
  ref_conv(&x, &w, &wp, groups, o.v);
  CHECK(opc_runs_like(ctx, c, ins, 2, &o, 1, 1e-5));
  free(o.v);
  opc_free(ins, 2);
}

static void test_conv2d_stride_pad(void) {
  check_conv("x: R.Tensor((2, 3, 7, 7), \"float32\"), w: R.Tensor((4, 3, 3, 3), \"float32\")",
             ", strides=[2, 2], padding=[1, 1]", "R.Tensor((2, 4, 4, 4), dtype=\"float32\")",
             opc_tensor(20, 4, 2, 3, 7, 7), opc_tensor(21, 4, 4, 3, 3, 3), (WinP){{2, 2}, {1, 1, 1, 1}, {1, 1}, false},
             1);
}

static void test_conv2d_dilation_asym_pad(void) {
  check_conv("x: R.Tensor((1, 2, 8, 9), \"float32\"), w: R.Tensor((3, 2, 3, 2), \"float32\")",
             ", strides=[1, 2], padding=[1, 2, 0, 1], dilation=[2, 1]", "R.Tensor((1, 3, 5, 6), dtype=\"float32\")",
             opc_tensor(22, 4, 1, 2, 8, 9), opc_tensor(23, 4, 3, 2, 3, 2), (WinP){{1, 2}, {1, 2, 0, 1}, {2, 1}, false},
             1);
}

static void test_conv2d_depthwise(void) {
  check_conv("x: R.Tensor((1, 4, 6, 6), \"float32\"), w: R.Tensor((4, 1, 3, 3), \"float32\")", ", padding=1, groups=4",
             "R.Tensor((1, 4, 6, 6), dtype=\"float32\")", opc_tensor(24, 4, 1, 4, 6, 6), opc_tensor(25, 4, 4, 1, 3, 3),
             (WinP){{1, 1}, {1, 1, 1, 1}, {1, 1}, false}, 4);
}

static void test_conv2d_groups(void) {
  check_conv("x: R.Tensor((1, 4, 5, 5), \"float32\"), w: R.Tensor((6, 2, 3, 3), \"float32\")", ", groups=2",
             "R.Tensor((1, 6, 3, 3), dtype=\"float32\")", opc_tensor(26, 4, 1, 4, 5, 5), opc_tensor(27, 4, 6, 2, 3, 3),
             (WinP){{1, 1}, {0, 0, 0, 0}, {1, 1}, false}, 2);
}

static void test_conv2d_symbolic(void) {
  check_conv("x: R.Tensor((\"n\", 3, \"h\", 6), \"float32\"), w: R.Tensor((2, 3, 3, 3), \"float32\")",
             ", strides=2, padding=[1, 1]", "R.Tensor((n, 2, (h - 1) // 2 + 1, 3), dtype=\"float32\")",
             opc_tensor(28, 4, 3, 3, 5, 6), opc_tensor(29, 4, 2, 3, 3, 3), (WinP){{2, 2}, {1, 1, 1, 1}, {1, 1}, false},
             1);
}

static void test_conv2d_errors(void) {
  const char *p = "x: R.Tensor((1, 4, 5, 5), \"float32\"), w: R.Tensor((6, 3, 3, 3), \"float32\")";
  OPC_CHECK_REFUSED_PART(p, "R.nn.conv2d(x, w)",
                         "nn.conv2d: channels differ: data (1, 4, 5, 5) has 4 channels, weight (6, 3, 3, 3) with groups=1 takes 3");
  OPC_CHECK_REFUSED_PART(p, "R.nn.conv2d(x, w, groups=3)", "channels differ");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((1, 4, 5, 5), \"float32\"), w: R.Tensor((6, 1, 3, 3), \"float32\")",
                         "R.nn.conv2d(x, w, groups=4)", "nn.conv2d: out channels 6 are not divisible by groups=4");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((1, 5, 5, 4), \"float32\"), w: R.Tensor((6, 4, 3, 3), \"float32\")",
                         "R.nn.conv2d(x, w, data_layout=\"NHWC\")",
                         "nn.conv2d: only NCHW is supported for data_layout, got \"NHWC\"");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((1, 4, 2, 2), \"float32\"), w: R.Tensor((6, 4, 3, 3), \"float32\")",
                         "R.nn.conv2d(x, w)",
                         "nn.conv2d: kernel (3, 3) (dilated) is bigger than the padded input (2, 2)");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((1, 4, 5), \"float32\"), w: R.Tensor((6, 4, 3, 3), \"float32\")",
                         "R.nn.conv2d(x, w)", "nn.conv2d: data (NCHW) must be 4-D, got (1, 4, 5)");
  OPC_CHECK_REFUSED_PART(p, "R.nn.conv2d(x, w, padding=[1, 2, 3])", "padding must be 1, 2 or 4 ints, got 3");
}

/* ---- pools ---------------------------------------------------------------------------- */

static void check_pool(const char *params, const char *op, const char *want_sinfo, OpcBuf x, bool is_max, int k,
                       WinP wp, bool include_pad) {
  const MlcGExpr *c = opc_call_checked(ctx, params, op, want_sinfo);
  int64_t os[4] = {x.shape[0], x.shape[1], out_size(x.shape[2], k, &wp, 0), out_size(x.shape[3], k, &wp, 1)};
  OpcBuf o = opc_buf(4, os, NULL);
  o.v = malloc((size_t)opc_numel(&o) * sizeof *o.v);
  ref_pool(&x, is_max, k, k, &wp, include_pad, o.v);
  CHECK(opc_runs_like(ctx, c, &x, 1, &o, 1, 1e-5));
  free(o.v);
  opc_free(&x, 1);
}

static void test_max_pool_pad(void) {
  check_pool("x: R.Tensor((2, 3, 5, 5), \"float32\")",
             "R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])",
             "R.Tensor((2, 3, 3, 3), dtype=\"float32\")", opc_tensor(30, 4, 2, 3, 5, 5), true, 3,
             (WinP){{2, 2}, {1, 1, 1, 1}, {1, 1}, false}, false);
}

static void test_max_pool_ceil_symbolic(void) {
  check_pool("x: R.Tensor((\"n\", 2, 6, 6), \"float32\")",
             "R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], ceil_mode=True)",
             "R.Tensor((n, 2, 3, 3), dtype=\"float32\")", opc_tensor(31, 4, 3, 2, 6, 6), true, 3,
             (WinP){{2, 2}, {0, 0, 0, 0}, {1, 1}, true}, false);
  check_pool("x: R.Tensor((1, 2, 7, 7), \"float32\")", "R.nn.max_pool2d(x, pool_size=2, dilation=2, padding=1)",
             "R.Tensor((1, 2, 7, 7), dtype=\"float32\")", opc_tensor(32, 4, 1, 2, 7, 7), true, 2,
             (WinP){{1, 1}, {1, 1, 1, 1}, {2, 2}, false}, false);
}

static void test_avg_pool_pad(void) {
  const char *p = "x: R.Tensor((1, 2, 5, 6), \"float32\")";
  WinP wp = {{2, 2}, {1, 1, 1, 1}, {1, 1}, false};
  check_pool(p, "R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])",
             "R.Tensor((1, 2, 3, 3), dtype=\"float32\")", opc_tensor(33, 4, 1, 2, 5, 6), false, 3, wp, false);
  check_pool(p, "R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], count_include_pad=True)",
             "R.Tensor((1, 2, 3, 3), dtype=\"float32\")", opc_tensor(34, 4, 1, 2, 5, 6), false, 3, wp, true);
}

static void test_avg_pool_ceil_symbolic(void) {
  WinP wp = {{2, 2}, {1, 0, 1, 0}, {1, 1}, true};
  check_pool("x: R.Tensor((\"n\", 3, 6, 5), \"float32\")",
             "R.nn.avg_pool2d(x, pool_size=[2, 2], strides=[2, 2], padding=[1, 0, 1, 0], ceil_mode=True, "
             "count_include_pad=True)",
             "R.Tensor((n, 3, 4, 3), dtype=\"float32\")", opc_tensor(35, 4, 2, 3, 6, 5), false, 2, wp, true);
  check_pool("x: R.Tensor((1, 1, 6, 5), \"float32\")",
             "R.nn.avg_pool2d(x, pool_size=[2, 2], strides=[2, 2], padding=[1, 0, 1, 0], ceil_mode=True)",
             "R.Tensor((1, 1, 4, 3), dtype=\"float32\")", opc_tensor(36, 4, 1, 1, 6, 5), false, 2, wp, false);
}

/* ceil mode never starts a window in the trailing padding: the shapes of
 * ONNX's maxpool_2d_ceil_output_size_reduce_by_one and
 * averagepool_2d_ceil_last_window_starts_on_pad, and a symbolic height */
static void test_pool_ceil_last_window(void) {
  check_pool("x: R.Tensor((1, 1, 2, 2), \"float32\")", "R.nn.max_pool2d(x, pool_size=1, strides=2, ceil_mode=True)",
             "R.Tensor((1, 1, 1, 1), dtype=\"float32\")", opc_tensor(37, 4, 1, 1, 2, 2), true, 1,
             (WinP){{2, 2}, {0, 0, 0, 0}, {1, 1}, true}, false);
  WinP wp = {{2, 2}, {0, 1, 2, 1}, {1, 1}, true};
  const char *op = "R.nn.avg_pool2d(x, pool_size=2, strides=2, padding=[0, 1, 2, 1], ceil_mode=True%s)";
  char buf[256];
  for (int inc = 0; inc < 2; inc++) {
    snprintf(buf, sizeof buf, op, inc ? ", count_include_pad=True" : "");
    check_pool("x: R.Tensor((1, 2, 4, 5), \"float32\")", buf, "R.Tensor((1, 2, 2, 3), dtype=\"float32\")",
               opc_tensor(38 + inc, 4, 1, 2, 4, 5), false, 2, wp, inc);
    check_pool("x: R.Tensor((1, 2, \"h\", 5), \"float32\")", buf,
               "R.Tensor((1, 2, (h + 1) // 2, 3), dtype=\"float32\")", opc_tensor(40 + inc, 4, 1, 2, 4, 5), false, 2,
               wp, inc);
  }
  /* whether the last window goes depends on h here: 3 windows at h = 7, 2 at h = 6 */
  for (int h = 6; h <= 7; h++)
    check_pool("x: R.Tensor((1, 1, \"h\", 4), \"float32\")",
               "R.nn.max_pool2d(x, pool_size=2, strides=3, ceil_mode=True)",
               "R.Tensor((1, 1, T.min(h // 3 + 1, (h - 1) // 3 + 1), 2), dtype=\"float32\")",
               opc_tensor(43, 4, 1, 1, h, 4), true, 2, (WinP){{3, 3}, {0, 0, 0, 0}, {1, 1}, true}, false);
  check_pool("x: R.Tensor((1, 1, 5, 5), \"float32\")",
             "R.nn.max_pool2d(x, pool_size=3, strides=3, padding=[0, 0, 2, 2], ceil_mode=True)",
             "R.Tensor((1, 1, 2, 2), dtype=\"float32\")", opc_tensor(42, 4, 1, 1, 5, 5), true, 3,
             (WinP){{3, 3}, {0, 0, 2, 2}, {1, 1}, true}, false);
}

static void test_pool_errors(void) {
  OPC_CHECK_REFUSED_PART("x: R.Tensor((1, 2, 4, 4), \"float32\")", "R.nn.max_pool2d(x, pool_size=[5, 5])",
                         "nn.max_pool2d: pool window (5, 5) (dilated) is bigger than the padded input (4, 4)");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((1, 2, 4, 4), \"float32\")",
                         "R.nn.avg_pool2d(x, pool_size=[2, 2], layout=\"NHWC\")",
                         "nn.avg_pool2d: only NCHW is supported for layout, got \"NHWC\"");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((2, 4, 4), \"float32\")", "R.nn.max_pool2d(x, pool_size=[2, 2])",
                         "nn.max_pool2d: data (NCHW) must be 4-D, got (2, 4, 4)");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((1, 2, 4, 4), \"float32\")",
                         "R.nn.max_pool2d(x, pool_size=[2, 2], strides=[0, 1])",
                         "nn.max_pool2d: strides must be positive, got (0, 1)");
}

/* ---- adaptive_avg_pool2d -------------------------------------------------------------- */

static void check_adaptive(const char *params, const char *op, const char *want_sinfo, OpcBuf x, int64_t oh,
                           int64_t ow) {
  const MlcGExpr *c = opc_call_checked(ctx, params, op, want_sinfo);
  int64_t os[4] = {x.shape[0], x.shape[1], oh, ow};
  double *want = malloc((size_t)(os[0] * os[1] * oh * ow) * sizeof *want);
  ref_adaptive(&x, oh, ow, want);
  OpcBuf expect = opc_buf(4, os, want);
  CHECK(opc_runs_like(ctx, c, &x, 1, &expect, 1, 1e-5));
  free(want);
  opc_free(&x, 1);
}

static void test_adaptive_global_symbolic(void) {
  check_adaptive("x: R.Tensor((\"n\", 3, \"h\", 7), \"float32\")", "R.nn.adaptive_avg_pool2d(x, output_size=[1, 1])",
                 "R.Tensor((n, 3, 1, 1), dtype=\"float32\")", opc_tensor(40, 4, 2, 3, 5, 7), 1, 1);
  check_adaptive("x: R.Tensor((2, 3, 5, 7), \"float32\")", "R.nn.adaptive_avg_pool2d(x, output_size=1)",
                 "R.Tensor((2, 3, 1, 1), dtype=\"float32\")", opc_tensor(41, 4, 2, 3, 5, 7), 1, 1);
}

static void test_adaptive_sizes(void) {
  check_adaptive("x: R.Tensor((1, 2, 7, 5), \"float32\")", "R.nn.adaptive_avg_pool2d(x, output_size=[3, 2])",
                 "R.Tensor((1, 2, 3, 2), dtype=\"float32\")", opc_tensor(42, 4, 1, 2, 7, 5), 3, 2);
  check_adaptive("x: R.Tensor((1, 2, \"h\", 4), \"float32\")", "R.nn.adaptive_avg_pool2d(x)",
                 "R.Tensor((1, 2, h, 4), dtype=\"float32\")", opc_tensor(43, 4, 1, 2, 3, 4), 3, 4);
  OPC_CHECK_REFUSED_PART("x: R.Tensor((1, 2, \"h\", 4), \"float32\")",
                         "R.nn.adaptive_avg_pool2d(x, output_size=[2, 2])",
                         "nn.adaptive_avg_pool2d: output size 2 needs a constant input size, got h");
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_matmul_2d);
  RUN(test_matmul_batched_broadcast);
  RUN(test_matmul_symbolic);
  RUN(test_matmul_vectors);
  RUN(test_matmul_errors);
  RUN(test_linear_bias_symbolic);
  RUN(test_linear_no_bias);
  RUN(test_linear_errors);
  RUN(test_conv2d_stride_pad);
  RUN(test_conv2d_dilation_asym_pad);
  RUN(test_conv2d_depthwise);
  RUN(test_conv2d_groups);
  RUN(test_conv2d_symbolic);
  RUN(test_conv2d_errors);
  RUN(test_max_pool_pad);
  RUN(test_max_pool_ceil_symbolic);
  RUN(test_avg_pool_pad);
  RUN(test_avg_pool_ceil_symbolic);
  RUN(test_pool_ceil_last_window);
  RUN(test_pool_errors);
  RUN(test_adaptive_global_symbolic);
  RUN(test_adaptive_sizes);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
