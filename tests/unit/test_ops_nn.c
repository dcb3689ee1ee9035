/* test_ops_nn.c - matmul and nn.linear (src/ops/linalg.c), nn.conv2d and the
 * 2-D pools (conv_pool.c), and nn.conv2d_transpose / nn.conv3d_transpose
 * (conv_transpose.c).
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

typedef struct MatmulCase {
  const char *name, *params, *sinfo;
  OpcSpec a, b;
  int on;
  int64_t oshape[4];
} MatmulCase;

static const MatmulCase matmul_cases[] = {
    {"test_matmul_2d", "x: R.Tensor((3, 5), \"float32\"), y: R.Tensor((5, 4), \"float32\")",
     "R.Tensor((3, 4), dtype=\"float32\")", {1, 2, {3, 5}}, {2, 2, {5, 4}}, 2, {3, 4}},
    {"test_matmul_batched_broadcast", "x: R.Tensor((2, 1, 3, 5), \"float32\"), y: R.Tensor((4, 5, 6), \"float32\")",
     "R.Tensor((2, 4, 3, 6), dtype=\"float32\")", {3, 4, {2, 1, 3, 5}}, {4, 3, {4, 5, 6}}, 4, {2, 4, 3, 6}},
    {"test_matmul_symbolic", "x: R.Tensor((\"n\", 2, 7), \"float32\"), y: R.Tensor((7, 3), \"float32\")",
     "R.Tensor((n, 2, 3), dtype=\"float32\")", {5, 3, {3, 2, 7}}, {6, 2, {7, 3}}, 3, {3, 2, 3}},
    {"test_matmul_vectors", "x: R.Tensor((5,), \"float32\"), y: R.Tensor((2, 5, 3), \"float32\")",
     "R.Tensor((2, 3), dtype=\"float32\")", {7, 1, {5}}, {8, 3, {2, 5, 3}}, 2, {2, 3}},
    {NULL, "x: R.Tensor((3, 5), \"float32\"), y: R.Tensor((5,), \"float32\")", "R.Tensor((3,), dtype=\"float32\")",
     {9, 2, {3, 5}}, {10, 1, {5}}, 1, {3}},
};

static void matmul_case(const MatmulCase *m) {
  check_matmul(m->params, m->sinfo, opc_tensor_of(&m->a), opc_tensor_of(&m->b), m->on, m->oshape);
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

typedef struct ConvCase {
  const char *name, *params, *attrs, *sinfo;
  OpcSpec x, w;
  WinP wp;
  int groups;
} ConvCase;

static const ConvCase conv_cases[] = {
    {"test_conv2d_stride_pad", "x: R.Tensor((2, 3, 7, 7), \"float32\"), w: R.Tensor((4, 3, 3, 3), \"float32\")",
     ", strides=[2, 2], padding=[1, 1]", "R.Tensor((2, 4, 4, 4), dtype=\"float32\")", {20, 4, {2, 3, 7, 7}},
     {21, 4, {4, 3, 3, 3}}, {{2, 2}, {1, 1, 1, 1}, {1, 1}, false}, 1},
    {"test_conv2d_dilation_asym_pad", "x: R.Tensor((1, 2, 8, 9), \"float32\"), w: R.Tensor((3, 2, 3, 2), \"float32\")",
     ", strides=[1, 2], padding=[1, 2, 0, 1], dilation=[2, 1]", "R.Tensor((1, 3, 5, 6), dtype=\"float32\")",
     {22, 4, {1, 2, 8, 9}}, {23, 4, {3, 2, 3, 2}}, {{1, 2}, {1, 2, 0, 1}, {2, 1}, false}, 1},
    {"test_conv2d_depthwise", "x: R.Tensor((1, 4, 6, 6), \"float32\"), w: R.Tensor((4, 1, 3, 3), \"float32\")",
     ", padding=1, groups=4", "R.Tensor((1, 4, 6, 6), dtype=\"float32\")", {24, 4, {1, 4, 6, 6}},
     {25, 4, {4, 1, 3, 3}}, {{1, 1}, {1, 1, 1, 1}, {1, 1}, false}, 4},
    {"test_conv2d_groups", "x: R.Tensor((1, 4, 5, 5), \"float32\"), w: R.Tensor((6, 2, 3, 3), \"float32\")",
     ", groups=2", "R.Tensor((1, 6, 3, 3), dtype=\"float32\")", {26, 4, {1, 4, 5, 5}}, {27, 4, {6, 2, 3, 3}},
     {{1, 1}, {0, 0, 0, 0}, {1, 1}, false}, 2},
    {"test_conv2d_symbolic", "x: R.Tensor((\"n\", 3, \"h\", 6), \"float32\"), w: R.Tensor((2, 3, 3, 3), \"float32\")",
     ", strides=2, padding=[1, 1]", "R.Tensor((n, 2, (h - 1) // 2 + 1, 3), dtype=\"float32\")",
     {28, 4, {3, 3, 5, 6}}, {29, 4, {2, 3, 3, 3}}, {{2, 2}, {1, 1, 1, 1}, {1, 1}, false}, 1},
};

static void conv_case(const ConvCase *c) {
  check_conv(c->params, c->attrs, c->sinfo, opc_tensor_of(&c->x), opc_tensor_of(&c->w), c->wp, c->groups);
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

typedef struct PoolCase {
  const char *name, *params, *op, *sinfo;
  OpcSpec x;
  bool is_max;
  int k;
  WinP wp;
  bool include_pad;
} PoolCase;

static const PoolCase pool_cases[] = {
    {"test_max_pool_pad", "x: R.Tensor((2, 3, 5, 5), \"float32\")",
     "R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])", "R.Tensor((2, 3, 3, 3), dtype=\"float32\")",
     {30, 4, {2, 3, 5, 5}}, true, 3, {{2, 2}, {1, 1, 1, 1}, {1, 1}, false}, false},
    {"test_max_pool_ceil_symbolic", "x: R.Tensor((\"n\", 2, 6, 6), \"float32\")",
     "R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 2], ceil_mode=True)", "R.Tensor((n, 2, 3, 3), dtype=\"float32\")",
     {31, 4, {3, 2, 6, 6}}, true, 3, {{2, 2}, {0, 0, 0, 0}, {1, 1}, true}, false},
    {NULL, "x: R.Tensor((1, 2, 7, 7), \"float32\")", "R.nn.max_pool2d(x, pool_size=2, dilation=2, padding=1)",
     "R.Tensor((1, 2, 7, 7), dtype=\"float32\")", {32, 4, {1, 2, 7, 7}}, true, 2, {{1, 1}, {1, 1, 1, 1}, {2, 2}, false},
     false},
    {"test_avg_pool_pad", "x: R.Tensor((1, 2, 5, 6), \"float32\")",
     "R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])", "R.Tensor((1, 2, 3, 3), dtype=\"float32\")",
     {33, 4, {1, 2, 5, 6}}, false, 3, {{2, 2}, {1, 1, 1, 1}, {1, 1}, false}, false},
    {NULL, "x: R.Tensor((1, 2, 5, 6), \"float32\")",
     "R.nn.avg_pool2d(x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], count_include_pad=True)",
     "R.Tensor((1, 2, 3, 3), dtype=\"float32\")", {34, 4, {1, 2, 5, 6}}, false, 3,
     {{2, 2}, {1, 1, 1, 1}, {1, 1}, false}, true},
    {"test_avg_pool_ceil_symbolic", "x: R.Tensor((\"n\", 3, 6, 5), \"float32\")",
     "R.nn.avg_pool2d(x, pool_size=[2, 2], strides=[2, 2], padding=[1, 0, 1, 0], ceil_mode=True, "
     "count_include_pad=True)",
     "R.Tensor((n, 3, 4, 3), dtype=\"float32\")", {35, 4, {2, 3, 6, 5}}, false, 2, {{2, 2}, {1, 0, 1, 0}, {1, 1}, true},
     true},
    {NULL, "x: R.Tensor((1, 1, 6, 5), \"float32\")",
     "R.nn.avg_pool2d(x, pool_size=[2, 2], strides=[2, 2], padding=[1, 0, 1, 0], ceil_mode=True)",
     "R.Tensor((1, 1, 4, 3), dtype=\"float32\")", {36, 4, {1, 1, 6, 5}}, false, 2, {{2, 2}, {1, 0, 1, 0}, {1, 1}, true},
     false},
};

static void pool_case(const PoolCase *c) {
  check_pool(c->params, c->op, c->sinfo, opc_tensor_of(&c->x), c->is_max, c->k, c->wp, c->include_pad);
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

#define F32(shape) "R.Tensor(" shape ", \"float32\")"
#define MAXV 4096 /* values of one reference output */

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
  /* strided dims by phases (KH 3, KW 2): kernel = stride in both dims, no guard */
  tconv_case(1, (int64_t[]){3, 2}, (int64_t[]){1, 1}, (int64_t[]){0, 0, 0, 0}, (int64_t[]){0, 0});
  /* kernel shorter than the stride (taps k < KW masked), output padding past the input */
  tconv_case(1, (int64_t[]){4, 3}, (int64_t[]){1, 1}, (int64_t[]){0, 0, 0, 0}, (int64_t[]){2, 1});
  /* two taps per phase in H (KH 3 > stride 2), pads beyond a stride, one dim dilated */
  tconv_case(1, (int64_t[]){2, 2}, (int64_t[]){1, 2}, (int64_t[]){3, 1, 2, 0}, (int64_t[]){1, 0});
  tconv_case(2, (int64_t[]){2, 2}, (int64_t[]){1, 1}, (int64_t[]){1, 1, 1, 1}, (int64_t[]){0, 1});
  /* stride 1 with pads covering the kernel: every tap inside the input, no guard */
  tconv_case(1, (int64_t[]){1, 1}, (int64_t[]){1, 1}, (int64_t[]){2, 1, 2, 1}, (int64_t[]){0, 0});
  /* no padding: the second tap of a phase reads row -1 at the top edge (guarded) */
  tconv_case(1, (int64_t[]){2, 2}, (int64_t[]){1, 1}, (int64_t[]){0, 0, 0, 0}, (int64_t[]){0, 0});
}

/* nn.conv3d_transpose against the same scatter, one more spatial dim */
static void test_conv3d_transpose_infer(void) {
  const char *p = "data: " F32("(1, 4, 2, 3, 3)") ", weight: " F32("(4, 2, 2, 3, 3)");
  OPC_CHECK_INFER(p, "R.nn.conv3d_transpose(data, weight)", "R.Tensor((1, 2, 3, 5, 5), dtype=\"float32\")");
  OPC_CHECK_INFER(p, "R.nn.conv3d_transpose(data, weight, strides=[2, 1, 2], padding=[1, 0, 1], output_padding=[1, 0, 0])",
                  "R.Tensor((1, 2, 3, 5, 5), dtype=\"float32\")");
  OPC_CHECK_REFUSED(p, "R.nn.conv3d_transpose(data, weight, padding=[1, 1, 1, 1])",
                    "nn.conv3d_transpose: padding must be 1 or 6 ints, got 4");
  OPC_CHECK_REFUSED("data: " F32("(1, 4, 3, 3)") ", weight: " F32("(4, 2, 3, 3)"), "R.nn.conv3d_transpose(data, weight)",
                    "nn.conv3d_transpose: data (NCDHW) must be 5-D, got (1, 4, 3, 3)");
  OPC_CHECK_REFUSED("data: " F32("(1, 3, 2, 3, 3)") ", weight: " F32("(4, 2, 2, 3, 3)"), "R.nn.conv3d_transpose(data, weight)",
                    "nn.conv3d_transpose: channels differ: data (1, 3, 2, 3, 3) has (3,) channels, weight (4, 2, 2, 3, 3) "
                    "(IODHW) takes (4,)");
}

static void tconv3_case(int64_t g, const int64_t *s, const int64_t *d, const int64_t *pad, const int64_t *op) {
  enum { C = 4, D = 2, H = 3, W = 3, CO = 2, KD = 2, KH = 3, KW = 2 };
  const int64_t in[3] = {D, H, W}, k[3] = {KD, KH, KW};
  int64_t o[3];
  for (int i = 0; i < 3; i++) o[i] = (in[i] - 1) * s[i] - pad[i] - pad[i + 3] + d[i] * (k[i] - 1) + 1 + op[i];
  int64_t cout = CO * g, cig = C / g;
  double x[C * D * H * W], w[C * CO * KD * KH * KW], want[MAXV] = {0};
  opc_fill(x, C * D * H * W, 31, -1, 1);
  opc_fill(w, C * CO * KD * KH * KW, 33, -1, 1);
  for (int c = 0; c < C; c++)
    for (int i0 = 0; i0 < D; i0++)
      for (int i1 = 0; i1 < H; i1++)
        for (int i2 = 0; i2 < W; i2++)
          for (int oc = 0; oc < CO; oc++)
            for (int k0 = 0; k0 < KD; k0++)
              for (int k1 = 0; k1 < KH; k1++)
                for (int k2 = 0; k2 < KW; k2++) {
                  int64_t y0 = i0 * s[0] + k0 * d[0] - pad[0], y1 = i1 * s[1] + k1 * d[1] - pad[1];
                  int64_t y2 = i2 * s[2] + k2 * d[2] - pad[2];
                  if (y0 < 0 || y0 >= o[0] || y1 < 0 || y1 >= o[1] || y2 < 0 || y2 >= o[2]) continue;
                  int64_t co = (c / cig) * CO + oc;
                  want[((co * o[0] + y0) * o[1] + y1) * o[2] + y2] +=
                      x[((c * D + i0) * H + i1) * W + i2] * w[(((c * CO + oc) * KD + k0) * KH + k1) * KW + k2];
                }
  char call[320];
  snprintf(call, sizeof call,
           "R.nn.conv3d_transpose(data, weight, strides=[%lld, %lld, %lld], padding=[%lld, %lld, %lld, %lld, %lld, %lld], "
           "output_padding=[%lld, %lld, %lld], dilation=[%lld, %lld, %lld], groups=%lld)",
           (long long)s[0], (long long)s[1], (long long)s[2], (long long)pad[0], (long long)pad[1], (long long)pad[2],
           (long long)pad[3], (long long)pad[4], (long long)pad[5], (long long)op[0], (long long)op[1], (long long)op[2],
           (long long)d[0], (long long)d[1], (long long)d[2], (long long)g);
  OpcBuf bufs[2] = {opc_buf(5, (int64_t[]){1, C, D, H, W}, x), opc_buf(5, (int64_t[]){C, CO, KD, KH, KW}, w)};
  OpcBuf want_b = opc_buf(5, (int64_t[]){1, cout, o[0], o[1], o[2]}, want);
  opc_check_run("data: " F32("(1, 4, 2, 3, 3)") ", weight: " F32("(4, 2, 2, 3, 2)"), call, bufs, 2, &want_b, 1, 1e-5);
}

static void test_conv3d_transpose_run(void) {
  tconv3_case(1, (int64_t[]){1, 1, 1}, (int64_t[]){1, 1, 1}, (int64_t[]){0, 0, 0, 0, 0, 0}, (int64_t[]){0, 0, 0});
  tconv3_case(1, (int64_t[]){2, 1, 3}, (int64_t[]){1, 2, 1}, (int64_t[]){1, 0, 1, 0, 1, 2}, (int64_t[]){1, 0, 2});
  tconv3_case(2, (int64_t[]){1, 2, 1}, (int64_t[]){2, 1, 1}, (int64_t[]){0, 1, 0, 1, 0, 0}, (int64_t[]){0, 1, 0});
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN_ROWS(matmul_cases, matmul_case);
  RUN(test_matmul_errors);
  RUN(test_linear_bias_symbolic);
  RUN(test_linear_no_bias);
  RUN(test_linear_errors);
  RUN_ROWS(conv_cases, conv_case);
  RUN(test_conv2d_errors);
  RUN(test_conv2d_transpose_infer);
  RUN(test_conv2d_transpose_run);
  RUN(test_conv3d_transpose_infer);
  RUN(test_conv3d_transpose_run);
  RUN_ROWS(pool_cases, pool_case);
  RUN(test_pool_ceil_last_window);
  RUN(test_pool_errors);
  RUN(test_adaptive_global_symbolic);
  RUN(test_adaptive_sizes);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
