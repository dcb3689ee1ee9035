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

#include <stdarg.h>

static MlcCtx *ctx;

#define MODULE_FMT                                                                  \
  "from tvm.script import ir as I\nfrom tvm.script import relax as R\n"            \
  "@I.ir_module\nclass Module:\n    @R.function\n    def main(%s):\n"              \
  "        with R.dataflow():\n            lv = %s\n            R.output(lv)\n" \
  "        return lv\n"
#define CALL_LINE 8 /* the line of "lv = ..." in MODULE_FMT */

static void print_error(void) {
  MlcStrBuf sb = {0};
  mlc_format_error(ctx, &sb);
  printf("    %s\n", mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
}

/* the op call of main(params) whose only binding is `lv = op`, with the
 * context's build location at that binding, as the graph passes set it */
static const MlcGExpr *call(const char *params, const char *op) {
  static char src[4096];
  snprintf(src, sizeof src, MODULE_FMT, params, op);
  mlc_clear_error(ctx);
  ctx->build_loc = (MlcLoc){0};
  MlcModule *m = mlc_read_module(ctx, "op_test.py", src, strlen(src));
  const MlcFunc *f = m ? mlc_module_find(m, mlc_intern(ctx, "main")) : NULL;
  if (!f) {
    print_error();
    return NULL;
  }
  const MlcBinding *b = &f->graph->body->seq.blocks[0]->bindings[0];
  ctx->build_loc = b->loc;
  return b->value;
}

static bool sinfo_is(const MlcGExpr *c, const char *want) {
  MlcSInfo *s = c ? mlc_op_infer(ctx, c) : NULL;
  if (!s) {
    print_error();
    return false;
  }
  MlcStrBuf sb = {0};
  mlc_print_sinfo(s, &sb);
  bool ok = strcmp(mlc_sb_cstr(&sb), want) == 0;
  if (!ok) printf("    sinfo: %s\n    want:  %s\n", mlc_sb_cstr(&sb), want);
  mlc_vec_free(&sb);
  return ok;
}

/* the legalized prim func prints and reads back structurally equal */
static bool roundtrips(const MlcGExpr *c) {
  MlcPrimFunc *f = c ? mlc_op_to_prim_func(ctx, c, "op") : NULL;
  if (!f) {
    print_error();
    return false;
  }
  MlcFunc fn = {.kind = MLC_FUNC_PRIM, .name = mlc_intern(ctx, "op"), .prim = f};
  MlcModule *m = mlc_module_new(ctx, "Module", &fn, 1, (MlcAttrs){0});
  MlcStrBuf sb = {0};
  if (m) mlc_print_module(m, &sb);
  MlcModule *back = m ? mlc_read_module(ctx, "printed.py", mlc_sb_cstr(&sb), sb.len) : NULL;
  bool ok = back && mlc_module_equal(m, back);
  if (!ok) {
    print_error();
    printf("%s\n", mlc_sb_cstr(&sb));
  }
  mlc_vec_free(&sb);
  return ok;
}

/* a tensor of the given dims filled from seed, values exactly float32 */
static OpcBuf tensor(unsigned seed, int ndim, ...) {
  OpcBuf b = {.ndim = ndim};
  va_list ap;
  va_start(ap, ndim);
  for (int i = 0; i < ndim; i++) b.shape[i] = va_arg(ap, int);
  va_end(ap);
  int64_t n = opc_numel(&b);
  b.v = malloc((size_t)(n ? n : 1) * sizeof *b.v);
  opc_fill(b.v, n, seed, -1, 1);
  for (int64_t i = 0; i < n; i++) b.v[i] = (float)b.v[i];
  return b;
}

static OpcBuf shaped(int ndim, const int64_t *shape) {
  OpcBuf b = {.ndim = ndim};
  if (ndim > 0) memcpy(b.shape, shape, (size_t)ndim * sizeof *shape);
  return b;
}

/* run c on ins into one output of out_shape and compare with want */
static bool runs_like(const MlcGExpr *c, OpcBuf *ins, int n_in, int out_ndim, const int64_t *out_shape,
                      const double *want) {
  OpcBuf out = shaped(out_ndim, out_shape);
  if (!c || !opc_run(ctx, c, ins, n_in, &out, 1)) {
    print_error();
    return false;
  }
  double err = opc_max_err(out.v, want, opc_numel(&out));
  if (!(err <= 1e-5)) printf("    max relative error %g\n", err);
  opc_free(&out, 1);
  return err <= 1e-5;
}

/* inference fails with a message containing want, located at the call */
static void check_error(const MlcGExpr *c, const char *want) {
  CHECK(c != NULL);
  if (!c) return;
  MlcSInfo *s = mlc_op_infer(ctx, c);
  const char *msg = mlc_error_msg(ctx);
  CHECK(s == NULL);
  CHECK(msg && strstr(msg, want));
  if (!msg || !strstr(msg, want)) printf("    got: %s\n    want: %s\n", msg ? msg : "(none)", want);
  CHECK(mlc_error_loc(ctx).line == CALL_LINE);
  CHECK(mlc_error_loc(ctx).file && strcmp(mlc_error_loc(ctx).file, "op_test.py") == 0);
}

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
  const MlcGExpr *c = call(params, op);
  CHECK(sinfo_is(c, want_sinfo));
  CHECK(roundtrips(c));
  OpcBuf o = shaped(on_dims, oshape);
  int64_t n_out = opc_numel(&o);
  double *want = malloc((size_t)n_out * sizeof *want);
  ref_reduce(&x, on, kind, want, n_out);
  CHECK(runs_like(c, &x, 1, on_dims, oshape, want));
  free(want);
  opc_free(&x, 1);
}

static void test_sum_keepdims(void) {
  check_reduce("x: R.Tensor((2, 3, 4), \"float32\")", "R.sum(x, axis=[1], keepdims=True)",
               "R.Tensor((2, 1, 4), dtype=\"float32\")", tensor(1, 3, 2, 3, 4), (bool[]){0, 1, 0}, 's', 3,
               (int64_t[]){2, 1, 4});
  check_reduce("x: R.Tensor((3, 5), \"float32\")", "R.sum(x)", "R.Tensor((), dtype=\"float32\")",
               tensor(2, 2, 3, 5), (bool[]){1, 1}, 's', 0, NULL);
}

static void test_mean_symbolic(void) {
  check_reduce("x: R.Tensor((\"n\", 5), \"float32\")", "R.mean(x, axis=[-1])", "R.Tensor((n,), dtype=\"float32\")",
               tensor(3, 2, 3, 5), (bool[]){0, 1}, 'm', 1, (int64_t[]){3});
  check_reduce("x: R.Tensor((\"n\", 5), \"float32\")", "R.mean(x, axis=0, keepdims=True)",
               "R.Tensor((1, 5), dtype=\"float32\")", tensor(4, 2, 4, 5), (bool[]){1, 0}, 'm', 2, (int64_t[]){1, 5});
}

static void test_max_min(void) {
  check_reduce("x: R.Tensor((3, 4, 5), \"float32\")", "R.max(x, axis=[0, 2])", "R.Tensor((4,), dtype=\"float32\")",
               tensor(5, 3, 3, 4, 5), (bool[]){1, 0, 1}, 'x', 1, (int64_t[]){4});
  check_reduce("x: R.Tensor((\"n\", 3), \"float32\")", "R.min(x, axis=1, keepdims=True)",
               "R.Tensor((n, 1), dtype=\"float32\")", tensor(6, 2, 4, 3), (bool[]){0, 1}, 'n', 2, (int64_t[]){4, 1});
}

/* no axis: every axis, kept as 1s with keepdims (ONNX ReduceMax's default
 * axes) */
static void test_all_axes_keepdims(void) {
  check_reduce("x: R.Tensor((3, 2, 2), \"float32\")", "R.max(x, keepdims=True)",
               "R.Tensor((1, 1, 1), dtype=\"float32\")", tensor(30, 3, 3, 2, 2), (bool[]){1, 1, 1}, 'x', 3,
               (int64_t[]){1, 1, 1});
  check_reduce("x: R.Tensor((\"n\", 4), \"float32\")", "R.sum(x, axis=None, keepdims=True)",
               "R.Tensor((1, 1), dtype=\"float32\")", tensor(31, 2, 5, 4), (bool[]){1, 1}, 's', 2,
               (int64_t[]){1, 1});
  check_reduce("x: R.Tensor((4, 5), \"float32\")", "R.mean(x, keepdims=True)",
               "R.Tensor((1, 1), dtype=\"float32\")", tensor(32, 2, 4, 5), (bool[]){1, 1}, 'm', 2,
               (int64_t[]){1, 1});
  check_reduce("x: R.Tensor((3, 5), \"float32\")", "R.min(x)", "R.Tensor((), dtype=\"float32\")",
               tensor(33, 2, 3, 5), (bool[]){1, 1}, 'n', 0, NULL);
}

/* an axis list of negative count (what a frontend once built for an absent
 * ONNX axes input) is refused, not read as a size */
static void test_reduce_malformed_axes(void) {
  const MlcGExpr *c = call("x: R.Tensor((2, 3), \"float32\")", "R.max(x, axis=[0], keepdims=True)");
  CHECK(c != NULL);
  if (!c) return;
  const char *axis = mlc_intern(ctx, "axis");
  for (int i = 0; i < c->call.attrs.n; i++)
    if (c->call.attrs.items[i].key == axis) c->call.attrs.items[i].val.list.n = -1;
  check_error(c, "max: axis: malformed list of -1 values");
}

static void test_int_reductions(void) {
  check_reduce("x: R.Tensor((3, 7), \"int32\")", "R.sum(x, axis=[0])", "R.Tensor((7,), dtype=\"int32\")",
               ints(tensor(7, 2, 3, 7)), (bool[]){1, 0}, 's', 1, (int64_t[]){7});
  check_reduce("x: R.Tensor((3, 7), \"int32\")", "R.max(x, axis=[1])", "R.Tensor((3,), dtype=\"int32\")",
               ints(tensor(8, 2, 3, 7)), (bool[]){0, 1}, 'x', 1, (int64_t[]){3});
  /* an integer mean truncates like C */
  const MlcGExpr *c = call("x: R.Tensor((2, 3), \"int32\")", "R.mean(x, axis=[1])");
  CHECK(sinfo_is(c, "R.Tensor((2,), dtype=\"int32\")"));
  OpcBuf x = {.ndim = 2, .shape = {2, 3}, .v = (double[]){1, 2, 2, -1, -2, -2}};
  CHECK(runs_like(c, &x, 1, 1, (int64_t[]){2}, (double[]){1, -1}));
}

static void test_reduce_errors(void) {
  check_error(call("x: R.Tensor((2, 3), \"float32\")", "R.sum(x, axis=[2])"),
              "sum: axis 2 is out of range for a tensor of rank 2");
  check_error(call("x: R.Tensor((2, 3), \"float32\")", "R.mean(x, axis=[1, -1])"), "mean: axis -1 is given twice");
  check_error(call("x: R.Tensor((2, 3), \"float32\")", "R.max(x, axis=-3)"),
              "max: axis -3 is out of range for a tensor of rank 2");
}

/* ---- softmax, log_softmax -------------------------------------------------------------- */

static void check_softmax(const char *params, const char *op, const char *want_sinfo, OpcBuf x, int axis,
                          bool is_log) {
  const MlcGExpr *c = call(params, op);
  CHECK(sinfo_is(c, want_sinfo));
  CHECK(roundtrips(c));
  double *want = malloc((size_t)opc_numel(&x) * sizeof *want);
  ref_softmax(&x, axis, is_log, want);
  CHECK(runs_like(c, &x, 1, x.ndim, x.shape, want));
  free(want);
  opc_free(&x, 1);
}

static void test_softmax_stable(void) {
  /* values near 1000: exp would overflow float32 without the max shift */
  OpcBuf x = tensor(10, 2, 3, 5);
  for (int i = 0; i < 15; i++) x.v[i] = (float)(1000 + 10 * x.v[i]);
  check_softmax("x: R.Tensor((3, 5), \"float32\")", "R.nn.softmax(x)", "R.Tensor((3, 5), dtype=\"float32\")", x, 1,
                false);
  check_softmax("x: R.Tensor((2, 3, 4), \"float32\")", "R.nn.softmax(x, axis=1)",
                "R.Tensor((2, 3, 4), dtype=\"float32\")", tensor(11, 3, 2, 3, 4), 1, false);
}

static void test_log_softmax_symbolic(void) {
  check_softmax("x: R.Tensor((\"n\", 4), \"float32\")", "R.nn.log_softmax(x, axis=0)",
                "R.Tensor((n, 4), dtype=\"float32\")", tensor(12, 2, 3, 4), 0, true);
  check_softmax("x: R.Tensor((7,), \"float32\")", "R.nn.log_softmax(x)", "R.Tensor((7,), dtype=\"float32\")",
                tensor(13, 1, 7), 0, true);
}

/* inference refuses what legalization would, at the call */
static void test_softmax_errors(void) {
  const char *p = "x: R.Tensor((2, 3), \"float32\")";
  check_error(call(p, "R.nn.softmax(x, axis=2)"), "nn.softmax: axis 2 is out of range for a tensor of rank 2");
  check_error(call(p, "R.nn.log_softmax(x, axis=-3)"),
              "nn.log_softmax: axis -3 is out of range for a tensor of rank 2");
  check_error(call(p, "R.nn.softmax(x, axis=[0, 1])"), "nn.softmax: axis: expected an integer");
  check_error(call("x: R.Tensor((), \"float32\")", "R.nn.softmax(x)"),
              "nn.softmax: data must have at least one dim, got a scalar");
  check_error(call("x: R.Tensor((2, 3), \"int32\")", "R.nn.log_softmax(x)"),
              "nn.log_softmax: data must be float, got int32");
  check_error(call("x: R.Tensor(\"float32\")", "R.nn.softmax(x)"), "nn.softmax: data: expected a tensor of known rank");
  /* legalization says the same */
  const MlcGExpr *c = call(p, "R.nn.softmax(x, axis=2)");
  CHECK(c && !mlc_op_to_prim_func(ctx, c, "op"));
  CHECK(strstr(mlc_error_msg(ctx), "nn.softmax: axis 2 is out of range for a tensor of rank 2") != NULL);
  CHECK(mlc_error_loc(ctx).line == CALL_LINE);
  /* a one-element list is the axis itself */
  CHECK(sinfo_is(call(p, "R.nn.softmax(x, axis=[0])"), "R.Tensor((2, 3), dtype=\"float32\")"));
}

/* ---- layer_norm ------------------------------------------------------------------------ */

static void check_layer_norm(const char *params, const char *op, const char *want_sinfo, OpcBuf *ins,
                             const bool *on, double eps) {
  const MlcGExpr *c = call(params, op);
  CHECK(sinfo_is(c, want_sinfo));
  CHECK(roundtrips(c));
  double *want = malloc((size_t)opc_numel(&ins[0]) * sizeof *want);
  ref_layer_norm(&ins[0], on, ins[1].v, ins[2].v, eps, want);
  CHECK(runs_like(c, ins, 3, ins[0].ndim, ins[0].shape, want));
  free(want);
  opc_free(ins, 3);
}

static void test_layer_norm_symbolic(void) {
  OpcBuf ins[3] = {tensor(20, 2, 3, 6), tensor(21, 1, 6), tensor(22, 1, 6)};
  check_layer_norm("x: R.Tensor((\"n\", 6), \"float32\"), g: R.Tensor((6,), \"float32\"), b: R.Tensor((6,), \"float32\")",
                   "R.nn.layer_norm(x, g, b, axes=[-1])", "R.Tensor((n, 6), dtype=\"float32\")", ins,
                   (bool[]){0, 1}, 1e-5);
}

static void test_layer_norm_two_axes(void) {
  OpcBuf ins[3] = {tensor(23, 3, 2, 3, 4), tensor(24, 2, 3, 4), tensor(25, 2, 3, 4)};
  check_layer_norm("x: R.Tensor((2, 3, 4), \"float32\"), g: R.Tensor((3, 4), \"float32\"), "
                   "b: R.Tensor((3, 4), \"float32\")",
                   "R.nn.layer_norm(x, g, b, axes=[1, 2], epsilon=0.001)", "R.Tensor((2, 3, 4), dtype=\"float32\")",
                   ins, (bool[]){0, 1, 1}, 1e-3);
}

static void test_layer_norm_errors(void) {
  check_error(call("x: R.Tensor((2, 6), \"float32\"), g: R.Tensor((5,), \"float32\"), b: R.Tensor((6,), \"float32\")",
                   "R.nn.layer_norm(x, g, b, axes=[-1])"),
              "nn.layer_norm: gamma must have shape (6,) (data's dims at the axes), got (5,)");
  check_error(call("x: R.Tensor((2, 6), \"float32\"), g: R.Tensor((6,), \"float32\"), b: R.Tensor((6,), \"float32\")",
                   "R.nn.layer_norm(x, g, b, axes=[2])"),
              "nn.layer_norm: axis 2 is out of range for a tensor of rank 2");
  check_error(call("x: R.Tensor((2, 6), \"int32\"), g: R.Tensor((6,), \"int32\"), b: R.Tensor((6,), \"int32\")",
                   "R.nn.layer_norm(x, g, b, axes=[1])"),
              "nn.layer_norm: data must be float, got int32");
  check_error(call("x: R.Tensor((2, 6), \"float32\"), g: R.Tensor((6,), \"float16\"), b: R.Tensor((6,), \"float32\")",
                   "R.nn.layer_norm(x, g, b, axes=[1])"),
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
  const MlcGExpr *c = call(params, op);
  CHECK(sinfo_is(c, want_sinfo));
  CHECK(roundtrips(c));
  OpcBuf ins[5] = {x, tensor(31, 1, (int)C), tensor(32, 1, (int)C), tensor(33, 1, (int)C), tensor(34, 1, (int)C)};
  for (int64_t i = 0; i < C; i++) ins[4].v[i] = (float)(ins[4].v[i] + 1.5); /* variances > 0 */
  int64_t n = opc_numel(&x);
  double *want = malloc((size_t)n * sizeof *want);
  for (int64_t i = 0; i < n; i++) {
    int64_t ch = i / inner % C;
    want[i] = (x.v[i] - ins[3].v[ch]) / sqrt(ins[4].v[ch] + eps) * ins[1].v[ch] + ins[2].v[ch];
  }
  OpcBuf outs[3] = {shaped(x.ndim, x.shape), shaped(1, (int64_t[]){C}), shaped(1, (int64_t[]){C})};
  CHECK(c && opc_run(ctx, c, ins, 5, outs, 3));
  if (outs[0].v) {
    CHECK(opc_max_err(outs[0].v, want, n) <= 1e-5);
    CHECK(opc_max_err(outs[1].v, ins[3].v, C) == 0);
    CHECK(opc_max_err(outs[2].v, ins[4].v, C) == 0);
  } else {
    print_error();
  }
  free(want);
  opc_free(outs, 3);
  opc_free(ins, 5);
}

static void test_batch_norm_nchw(void) {
  check_batch_norm("(2, 3, 4, 4)", 1, "",
                   "R.Tuple(R.Tensor((2, 3, 4, 4), dtype=\"float32\"), R.Tensor((3,), dtype=\"float32\"), "
                   "R.Tensor((3,), dtype=\"float32\"))",
                   tensor(30, 4, 2, 3, 4, 4), 1e-5);
}

static void test_batch_norm_symbolic(void) {
  check_batch_norm("(\"n\", 5)", 1, ", axis=-1, epsilon=0.001",
                   "R.Tuple(R.Tensor((n, 5), dtype=\"float32\"), R.Tensor((5,), dtype=\"float32\"), "
                   "R.Tensor((5,), dtype=\"float32\"))",
                   tensor(35, 2, 3, 5), 1e-3);
}

static void test_batch_norm_errors(void) {
  const char *p = "x: R.Tensor((2, 3, 4, 4), \"float32\"), g: R.Tensor((3,), \"float32\"), b: R.Tensor((3,), \"float32\"), "
                  "m: R.Tensor((4,), \"float32\"), v: R.Tensor((3,), \"float32\")";
  check_error(call(p, "R.nn.batch_norm(x, g, b, m, v)"),
              "nn.batch_norm: moving_mean must have shape (3,) (data's dims at the axes), got (4,)");
  check_error(call(p, "R.nn.batch_norm(x, g, b, m, v, axis=4)"),
              "nn.batch_norm: axis 4 is out of range for a tensor of rank 4");
  check_error(call(p, "R.nn.batch_norm(x, g, b, v, v, training=True)"),
              "nn.batch_norm: training=True is not supported (inference form only)");
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_sum_keepdims);
  RUN(test_mean_symbolic);
  RUN(test_max_min);
  RUN(test_all_axes_keepdims);
  RUN(test_reduce_malformed_axes);
  RUN(test_int_reductions);
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
