/* test_ops_reduce.c - the reductions (sum, mean, max, min) and the
 * normalizations (nn.softmax, nn.log_softmax, nn.layer_norm, nn.batch_norm)
 * of the op registry.
 *
 * Each case reads a one-binding graph function, checks the inferred struct
 * info (printed, against text written here), legalizes the call into a prim
 * func whose printed text must read back structurally equal, runs it in the
 * reference interpreter and compares with a plain C reference written below
 * (1e-5 relative for float32; integers exactly).  Errors must name the op and
 * what was expected and point at the call's line. */
#include "check.h"
#include "op_check.h"

static MlcCtx *ctx;

/* integer-valued test data in [-50, 50) */
static OpcBuf ints(OpcBuf b) {
  for (int64_t i = 0; i < opc_numel(&b); i++) b.v[i] = floor(b.v[i] * 50);
  return b;
}

/* ---- plain C references ------------------------------------------------------- */

/* the output offset of x's flat index i with the axes in `on` dropped */
static int64_t kept_offset(const OpcBuf *x, const bool *on, int64_t i) {
  int64_t idx[OPC_MAX_NDIM], o = 0;
  for (int d = x->ndim - 1; d >= 0; d--) idx[d] = i % x->shape[d], i /= x->shape[d];
  for (int d = 0; d < x->ndim; d++)
    if (!on[d]) o = o * x->shape[d] + idx[d];
  return o;
}

/* op: 's' sum, 'm' mean, 'x' max, 'n' min, over the axes in `on`; returns
 * the count of each reduction */
static int64_t ref_reduce(const OpcBuf *x, const bool *on, char op, double *out, int64_t n_out) {
  int64_t cnt = 1;
  for (int d = 0; d < x->ndim; d++) cnt *= on[d] ? x->shape[d] : 1;
  for (int64_t o = 0; o < n_out; o++) out[o] = op == 'x' ? -INFINITY : op == 'n' ? INFINITY : 0;
  for (int64_t i = 0; i < opc_numel(x); i++) {
    int64_t o = kept_offset(x, on, i);
    double v = x->v[i];
    if (op == 'x') out[o] = v > out[o] ? v : out[o];
    else if (op == 'n') out[o] = v < out[o] ? v : out[o];
    else out[o] += v;
  }
  if (op == 'm')
    for (int64_t o = 0; o < n_out; o++) out[o] /= (double)cnt;
  return cnt;
}

/* softmax or log_softmax of x over axis */
static void ref_softmax(const OpcBuf *x, int axis, bool is_log, double *out) {
  int64_t outer = 1, inner = 1, n = x->shape[axis];
  for (int d = 0; d < axis; d++) outer *= x->shape[d];
  for (int d = axis + 1; d < x->ndim; d++) inner *= x->shape[d];
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      const double *p = x->v + o * n * inner + i;
      double mx = -INFINITY, s = 0;
      for (int64_t k = 0; k < n; k++) mx = p[k * inner] > mx ? p[k * inner] : mx;
      for (int64_t k = 0; k < n; k++) s += exp(p[k * inner] - mx);
      for (int64_t k = 0; k < n; k++)
        out[o * n * inner + k * inner + i] = is_log ? p[k * inner] - mx - log(s) : exp(p[k * inner] - mx) / s;
    }
}

/* layer norm over the axes in `on` (gamma / beta indexed by those axes in order) */
static void ref_layer_norm(const OpcBuf *x, const bool *on, const double *gamma, const double *beta, double eps,
                           double *out) {
  int64_t n = opc_numel(x), groups = 1;
  for (int d = 0; d < x->ndim; d++) groups *= on[d] ? 1 : x->shape[d];
  double *mean = calloc((size_t)groups, sizeof *mean), *var = calloc((size_t)groups, sizeof *var);
  bool off[OPC_MAX_NDIM];
  for (int d = 0; d < x->ndim; d++) off[d] = !on[d];
  int64_t cnt = ref_reduce(x, on, 'm', mean, groups);
  for (int64_t i = 0; i < n; i++) {
    double c = x->v[i] - mean[kept_offset(x, on, i)];
    var[kept_offset(x, on, i)] += c * c / (double)cnt;
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t g = kept_offset(x, on, i), p = kept_offset(x, off, i);
    out[i] = (x->v[i] - mean[g]) / sqrt(var[g] + eps) * gamma[p] + beta[p];
  }
  free(mean);
  free(var);
}

/* ---- sum, mean, max, min --------------------------------------------------------- */

static void check_reduce(const char *params, const char *op, const char *want_sinfo, OpcBuf x, const bool *on,
                         char kind, int on_dims, const int64_t *oshape) {
  const MlcGExpr *c = opc_call_checked(ctx, params, op, want_sinfo);
  OpcBuf o = opc_buf(on_dims, oshape, NULL);
  int64_t n_out = opc_numel(&o);
  double *want = malloc((size_t)n_out * sizeof *want);
  ref_reduce(&x, on, kind, want, n_out);
  o.v = want;
  CHECK(opc_runs_like(ctx, c, &x, 1, &o, 1, 1e-5));
  free(want);
  opc_free(&x, 1);
}

typedef struct ReduceCase {
  const char *name, *params, *op, *sinfo;
  OpcSpec x;
  bool on[4];   /* the reduced axes */
  char kind;    /* ref_reduce's: 's'um, 'm'ean, ma'x', mi'n' */
  int on_dims;  /* the output's rank and shape */
  int64_t oshape[4];
} ReduceCase;

/* test_all_axes_keepdims: no axis means every axis, kept as 1s with
 * keepdims (ONNX ReduceMax's default axes) */
static const ReduceCase reduce_cases[] = {
    {"test_sum_keepdims", "x: R.Tensor((2, 3, 4), \"float32\")", "R.sum(x, axis=[1], keepdims=True)",
     "R.Tensor((2, 1, 4), dtype=\"float32\")", {1, 3, {2, 3, 4}}, {0, 1, 0}, 's', 3, {2, 1, 4}},
    {NULL, "x: R.Tensor((3, 5), \"float32\")", "R.sum(x)",
     "R.Tensor((), dtype=\"float32\")", {2, 2, {3, 5}}, {1, 1}, 's', 0, {0}},
    {"test_mean_symbolic", "x: R.Tensor((\"n\", 5), \"float32\")", "R.mean(x, axis=[-1])",
     "R.Tensor((n,), dtype=\"float32\")", {3, 2, {3, 5}}, {0, 1}, 'm', 1, {3}},
    {NULL, "x: R.Tensor((\"n\", 5), \"float32\")", "R.mean(x, axis=0, keepdims=True)",
     "R.Tensor((1, 5), dtype=\"float32\")", {4, 2, {4, 5}}, {1, 0}, 'm', 2, {1, 5}},
    {"test_max_min", "x: R.Tensor((3, 4, 5), \"float32\")", "R.max(x, axis=[0, 2])",
     "R.Tensor((4,), dtype=\"float32\")", {5, 3, {3, 4, 5}}, {1, 0, 1}, 'x', 1, {4}},
    {NULL, "x: R.Tensor((\"n\", 3), \"float32\")", "R.min(x, axis=1, keepdims=True)",
     "R.Tensor((n, 1), dtype=\"float32\")", {6, 2, {4, 3}}, {0, 1}, 'n', 2, {4, 1}},
    {"test_all_axes_keepdims", "x: R.Tensor((3, 2, 2), \"float32\")", "R.max(x, keepdims=True)",
     "R.Tensor((1, 1, 1), dtype=\"float32\")", {30, 3, {3, 2, 2}}, {1, 1, 1}, 'x', 3, {1, 1, 1}},
    {NULL, "x: R.Tensor((\"n\", 4), \"float32\")", "R.sum(x, axis=None, keepdims=True)",
     "R.Tensor((1, 1), dtype=\"float32\")", {31, 2, {5, 4}}, {1, 1}, 's', 2, {1, 1}},
    {NULL, "x: R.Tensor((4, 5), \"float32\")", "R.mean(x, keepdims=True)",
     "R.Tensor((1, 1), dtype=\"float32\")", {32, 2, {4, 5}}, {1, 1}, 'm', 2, {1, 1}},
    {NULL, "x: R.Tensor((3, 5), \"float32\")", "R.min(x)",
     "R.Tensor((), dtype=\"float32\")", {33, 2, {3, 5}}, {1, 1}, 'n', 0, {0}},
};

static void reduce_case(const ReduceCase *r) {
  check_reduce(r->params, r->op, r->sinfo, opc_tensor_of(&r->x), r->on, r->kind, r->on_dims, r->oshape);
}

/* an axis list of negative count (what a frontend once built for an absent
 * ONNX axes input) is refused, not read as a size */
static void test_reduce_malformed_axes(void) {
  const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((2, 3), \"float32\")", "R.max(x, axis=[0], keepdims=True)");
  CHECK(c != NULL);
  if (!c) return;
  const char *axis = mlc_intern(ctx, "axis");
  for (int i = 0; i < c->call.attrs.n; i++)
    if (c->call.attrs.items[i].key == axis) c->call.attrs.items[i].val.list.n = -1;
  CHECK(opc_refused(ctx, c, "max: axis: malformed list of -1 values", true));
}

static void test_int_reductions(void) {
  check_reduce("x: R.Tensor((3, 7), \"int32\")", "R.sum(x, axis=[0])", "R.Tensor((7,), dtype=\"int32\")",
               ints(opc_tensor(7, 2, 3, 7)), (bool[]){1, 0}, 's', 1, (int64_t[]){7});
  check_reduce("x: R.Tensor((3, 7), \"int32\")", "R.max(x, axis=[1])", "R.Tensor((3,), dtype=\"int32\")",
               ints(opc_tensor(8, 2, 3, 7)), (bool[]){0, 1}, 'x', 1, (int64_t[]){3});
  /* an integer mean truncates like C */
  const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((2, 3), \"int32\")", "R.mean(x, axis=[1])");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((2,), dtype=\"int32\")"));
  OpcBuf x = {.ndim = 2, .shape = {2, 3}, .v = (double[]){1, 2, 2, -1, -2, -2}};
  OpcBuf expect = opc_buf(1, (int64_t[]){2}, (double[]){1, -1});
  CHECK(opc_runs_like(ctx, c, &x, 1, &expect, 1, 1e-5));
}

/* 16-bit float sums accumulate in float32 and round once: 4096 ones sum to
 * 4096, where a float16 accumulator stops at 2048 (2048 + 1 rounds back to
 * 2048) and a bfloat16 one at 256 */
static void test_sum16_accumulates_in_f32(void) {
  static const char *const dtypes[] = {"float16", "bfloat16"};
  for (int d = 0; d < 2; d++) {
    MlcCtx *c16 = mlc_ctx_new();
    char params[128], sinfo[64];
    snprintf(params, sizeof params, "x: R.Tensor((2, 4096), \"%s\")", dtypes[d]);
    snprintf(sinfo, sizeof sinfo, "R.Tensor((2,), dtype=\"%s\")", dtypes[d]);
    const MlcGExpr *c = opc_call_checked(c16, params, "R.sum(x, axis=[1])", sinfo);
    OpcBuf x = opc_buf(2, (int64_t[]){2, 4096}, malloc(8192 * sizeof(double)));
    for (int i = 0; i < 8192; i++) x.v[i] = i < 4096 ? 1.0 : 0.5;
    OpcBuf expect = opc_buf(1, (int64_t[]){2}, (double[]){4096, 2048});
    CHECK(opc_runs_like(c16, c, &x, 1, &expect, 1, 0));
    opc_free(&x, 1);
    /* a matmul's reduction is a sum too: (1 x 4096) @ (4096 x 1) of ones */
    snprintf(params, sizeof params, "a: R.Tensor((1, 4096), \"%s\"), b: R.Tensor((4096, 1), \"%s\")", dtypes[d],
             dtypes[d]);
    c = opc_call_in(c16, params, "R.matmul(a, b)");
    OpcBuf ab[2] = {opc_buf(2, (int64_t[]){1, 4096}, malloc(4096 * sizeof(double))),
                    opc_buf(2, (int64_t[]){4096, 1}, malloc(4096 * sizeof(double)))};
    for (int i = 0; i < 4096; i++) ab[0].v[i] = ab[1].v[i] = 1.0;
    OpcBuf want = opc_buf(2, (int64_t[]){1, 1}, (double[]){4096});
    CHECK(opc_runs_like(c16, c, ab, 2, &want, 1, 0));
    opc_free(ab, 2);
    mlc_ctx_free(c16);
  }
}

static void test_reduce_errors(void) {
  OPC_CHECK_REFUSED_PART("x: R.Tensor((2, 3), \"float32\")", "R.sum(x, axis=[2])",
                         "sum: axis 2 is out of range for a tensor of rank 2");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((2, 3), \"float32\")", "R.mean(x, axis=[1, -1])", "mean: axis -1 is given twice");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((2, 3), \"float32\")", "R.max(x, axis=-3)",
                         "max: axis -3 is out of range for a tensor of rank 2");
}

/* ---- softmax, log_softmax -------------------------------------------------------------- */

static void check_softmax(const char *params, const char *op, const char *want_sinfo, OpcBuf x, int axis,
                          bool is_log) {
  const MlcGExpr *c = opc_call_checked(ctx, params, op, want_sinfo);
  double *want = malloc((size_t)opc_numel(&x) * sizeof *want);
  ref_softmax(&x, axis, is_log, want);
  OpcBuf expect = opc_buf(x.ndim, x.shape, want);
  CHECK(opc_runs_like(ctx, c, &x, 1, &expect, 1, 1e-5));
  free(want);
  opc_free(&x, 1);
}

static void test_softmax_stable(void) {
  /* values near 1000: exp would overflow float32 without the max shift */
  OpcBuf x = opc_tensor(10, 2, 3, 5);
  for (int i = 0; i < 15; i++) x.v[i] = (float)(1000 + 10 * x.v[i]);
  check_softmax("x: R.Tensor((3, 5), \"float32\")", "R.nn.softmax(x)", "R.Tensor((3, 5), dtype=\"float32\")", x, 1,
                false);
  check_softmax("x: R.Tensor((2, 3, 4), \"float32\")", "R.nn.softmax(x, axis=1)",
                "R.Tensor((2, 3, 4), dtype=\"float32\")", opc_tensor(11, 3, 2, 3, 4), 1, false);
}

static void test_log_softmax_symbolic(void) {
  check_softmax("x: R.Tensor((\"n\", 4), \"float32\")", "R.nn.log_softmax(x, axis=0)",
                "R.Tensor((n, 4), dtype=\"float32\")", opc_tensor(12, 2, 3, 4), 0, true);
  check_softmax("x: R.Tensor((7,), \"float32\")", "R.nn.log_softmax(x)", "R.Tensor((7,), dtype=\"float32\")",
                opc_tensor(13, 1, 7), 0, true);
}

/* inference refuses what legalization would, at the call */
static void test_softmax_errors(void) {
  const char *p = "x: R.Tensor((2, 3), \"float32\")";
  OPC_CHECK_REFUSED_PART(p, "R.nn.softmax(x, axis=2)", "nn.softmax: axis 2 is out of range for a tensor of rank 2");
  OPC_CHECK_REFUSED_PART(p, "R.nn.log_softmax(x, axis=-3)",
                         "nn.log_softmax: axis -3 is out of range for a tensor of rank 2");
  OPC_CHECK_REFUSED_PART(p, "R.nn.softmax(x, axis=[0, 1])", "nn.softmax: axis: expected an integer");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((), \"float32\")", "R.nn.softmax(x)",
                         "nn.softmax: data must have at least one dim, got a scalar");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((2, 3), \"int32\")", "R.nn.log_softmax(x)",
                         "nn.log_softmax: data must be float, got int32");
  OPC_CHECK_REFUSED_PART("x: R.Tensor(\"float32\")", "R.nn.softmax(x)",
                         "nn.softmax: data: expected a tensor of known rank");
  /* legalization says the same */
  const MlcGExpr *c = opc_call_in(ctx, p, "R.nn.softmax(x, axis=2)");
  CHECK(c && !mlc_op_to_prim_func(ctx, c, "op"));
  CHECK(strstr(mlc_error_msg(ctx), "nn.softmax: axis 2 is out of range for a tensor of rank 2") != NULL);
  CHECK(mlc_error_loc(ctx).line == OPC_CALL_LINE);
  /* a one-element list is the axis itself */
  CHECK(opc_sinfo_is(ctx, opc_call_in(ctx, p, "R.nn.softmax(x, axis=[0])"), "R.Tensor((2, 3), dtype=\"float32\")"));
}

/* ---- layer_norm ------------------------------------------------------------------------ */

static void check_layer_norm(const char *params, const char *op, const char *want_sinfo, OpcBuf *ins,
                             const bool *on, double eps) {
  const MlcGExpr *c = opc_call_checked(ctx, params, op, want_sinfo);
  double *want = malloc((size_t)opc_numel(&ins[0]) * sizeof *want);
  ref_layer_norm(&ins[0], on, ins[1].v, ins[2].v, eps, want);
  OpcBuf expect = opc_buf(ins[0].ndim, ins[0].shape, want);
  CHECK(opc_runs_like(ctx, c, ins, 3, &expect, 1, 1e-5));
  free(want);
  opc_free(ins, 3);
}

static void test_layer_norm_symbolic(void) {
  OpcBuf ins[3] = {opc_tensor(20, 2, 3, 6), opc_tensor(21, 1, 6), opc_tensor(22, 1, 6)};
  check_layer_norm("x: R.Tensor((\"n\", 6), \"float32\"), g: R.Tensor((6,), \"float32\"), b: R.Tensor((6,), \"float32\")",
                   "R.nn.layer_norm(x, g, b, axes=[-1])", "R.Tensor((n, 6), dtype=\"float32\")", ins,
                   (bool[]){0, 1}, 1e-5);
}

static void test_layer_norm_two_axes(void) {
  OpcBuf ins[3] = {opc_tensor(23, 3, 2, 3, 4), opc_tensor(24, 2, 3, 4), opc_tensor(25, 2, 3, 4)};
  check_layer_norm("x: R.Tensor((2, 3, 4), \"float32\"), g: R.Tensor((3, 4), \"float32\"), "
                   "b: R.Tensor((3, 4), \"float32\")",
                   "R.nn.layer_norm(x, g, b, axes=[1, 2], epsilon=0.001)", "R.Tensor((2, 3, 4), dtype=\"float32\")",
                   ins, (bool[]){0, 1, 1}, 1e-3);
}

static void test_layer_norm_errors(void) {
  OPC_CHECK_REFUSED_PART("x: R.Tensor((2, 6), \"float32\"), g: R.Tensor((5,), \"float32\"), b: R.Tensor((6,), \"float32\")",
                         "R.nn.layer_norm(x, g, b, axes=[-1])",
                         "nn.layer_norm: gamma must have shape (6,) (data's dims at the axes), got (5,)");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((2, 6), \"float32\"), g: R.Tensor((6,), \"float32\"), b: R.Tensor((6,), \"float32\")",
                         "R.nn.layer_norm(x, g, b, axes=[2])",
                         "nn.layer_norm: axis 2 is out of range for a tensor of rank 2");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((2, 6), \"int32\"), g: R.Tensor((6,), \"int32\"), b: R.Tensor((6,), \"int32\")",
                         "R.nn.layer_norm(x, g, b, axes=[1])", "nn.layer_norm: data must be float, got int32");
  OPC_CHECK_REFUSED_PART("x: R.Tensor((2, 6), \"float32\"), g: R.Tensor((6,), \"float16\"), b: R.Tensor((6,), \"float32\")",
                         "R.nn.layer_norm(x, g, b, axes=[1])",
                         "nn.layer_norm: gamma has dtype float16, data has float32");
}

/* ---- batch_norm ------------------------------------------------------------------------ */

static void check_batch_norm(const char *dims, int c_axis, const char *attrs, const char *want_sinfo, OpcBuf x,
                             double eps) {
  int64_t C = x.shape[c_axis], inner = 1;
  for (int d = c_axis + 1; d < x.ndim; d++) inner *= x.shape[d];
  char params[512], op[128];
  snprintf(params, sizeof params,
           "x: R.Tensor(%s, \"float32\"), g: R.Tensor((%lld,), \"float32\"), b: R.Tensor((%lld,), \"float32\"), "
           "m: R.Tensor((%lld,), \"float32\"), v: R.Tensor((%lld,), \"float32\")",
           dims, (long long)C, (long long)C, (long long)C, (long long)C);
  snprintf(op, sizeof op, "R.nn.batch_norm(x, g, b, m, v%s)", attrs);
  const MlcGExpr *c = opc_call_checked(ctx, params, op, want_sinfo);
  OpcBuf ins[5] = {x, opc_tensor(31, 1, (int)C), opc_tensor(32, 1, (int)C), opc_tensor(33, 1, (int)C),
                   opc_tensor(34, 1, (int)C)};
  for (int64_t i = 0; i < C; i++) ins[4].v[i] = (float)(ins[4].v[i] + 1.5); /* variances > 0 */
  int64_t n = opc_numel(&x);
  double *want = malloc((size_t)n * sizeof *want);
  for (int64_t i = 0; i < n; i++) {
    int64_t ch = i / inner % C;
    want[i] = (x.v[i] - ins[3].v[ch]) / sqrt(ins[4].v[ch] + eps) * ins[1].v[ch] + ins[2].v[ch];
  }
  OpcBuf outs[3] = {opc_buf(x.ndim, x.shape, NULL), opc_buf(1, (int64_t[]){C}, NULL), opc_buf(1, (int64_t[]){C}, NULL)};
  CHECK(c && opc_run(ctx, c, ins, 5, outs, 3));
  if (outs[0].v) {
    CHECK(opc_max_err(outs[0].v, want, n) <= 1e-5);
    CHECK(opc_max_err(outs[1].v, ins[3].v, C) == 0);
    CHECK(opc_max_err(outs[2].v, ins[4].v, C) == 0);
  } else {
    opc_print_error(ctx);
  }
  free(want);
  opc_free(outs, 3);
  opc_free(ins, 5);
}

static void test_batch_norm_nchw(void) {
  check_batch_norm("(2, 3, 4, 4)", 1, "",
                   "R.Tuple(R.Tensor((2, 3, 4, 4), dtype=\"float32\"), R.Tensor((3,), dtype=\"float32\"), "
                   "R.Tensor((3,), dtype=\"float32\"))",
                   opc_tensor(30, 4, 2, 3, 4, 4), 1e-5);
}

static void test_batch_norm_symbolic(void) {
  check_batch_norm("(\"n\", 5)", 1, ", axis=-1, epsilon=0.001",
                   "R.Tuple(R.Tensor((n, 5), dtype=\"float32\"), R.Tensor((5,), dtype=\"float32\"), "
                   "R.Tensor((5,), dtype=\"float32\"))",
                   opc_tensor(35, 2, 3, 5), 1e-3);
}

static void test_batch_norm_errors(void) {
  const char *p = "x: R.Tensor((2, 3, 4, 4), \"float32\"), g: R.Tensor((3,), \"float32\"), b: R.Tensor((3,), \"float32\"), "
                  "m: R.Tensor((4,), \"float32\"), v: R.Tensor((3,), \"float32\")";
  OPC_CHECK_REFUSED_PART(p, "R.nn.batch_norm(x, g, b, m, v)",
                         "nn.batch_norm: moving_mean must have shape (3,) (data's dims at the axes), got (4,)");
  OPC_CHECK_REFUSED_PART(p, "R.nn.batch_norm(x, g, b, m, v, axis=4)",
                         "nn.batch_norm: axis 4 is out of range for a tensor of rank 4");
  OPC_CHECK_REFUSED_PART(p, "R.nn.batch_norm(x, g, b, v, v, training=True)",
                         "nn.batch_norm: training=True is not supported (inference form only)");
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN_ROWS(reduce_cases, reduce_case);
  RUN(test_reduce_malformed_axes);
  RUN(test_int_reductions);
  RUN(test_sum16_accumulates_in_f32);
  RUN(test_reduce_errors);
  RUN(test_softmax_stable);
  RUN(test_log_softmax_symbolic);
  RUN(test_softmax_errors);
  RUN(test_layer_norm_symbolic);
  RUN(test_layer_norm_two_axes);
  RUN(test_layer_norm_errors);
  RUN(test_batch_norm_nchw);
  RUN(test_batch_norm_symbolic);
  RUN(test_batch_norm_errors);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
