/* test_ops_elemwise.c - every elementwise op of the registry: its struct
 * info (printed and compared as text), its legalized prim func run in the
 * reference interpreter against a plain C reference on a broadcasting shape
 * and on a shape with a symbolic dim, the prim func's text round trip, and
 * the located refusal of each kind of bad input.
 *
 * The C reference walks the output in row-major order and maps each output
 * index to each input's index under numpy broadcasting itself, so it shares
 * nothing with the TE code it checks.  Float32 results are compared with a
 * relative tolerance of 1e-5, integers and bools exactly. */
#include "check.h"
#include "op_check.h"

static MlcCtx *ctx;

#define CALL_LINE 8

static const MlcGExpr *call_in(const char *params, const char *call) {
  char src[2048];
  snprintf(src, sizeof src,
           "from tvm.script import ir as I\n"
           "from tvm.script import relax as R\n"
           "@I.ir_module\n"
           "class Module:\n"
           "    @R.function\n"
           "    def main(%s):\n"
           "        with R.dataflow():\n"
           "            lv = %s\n"
           "            R.output(lv)\n"
           "        return lv\n",
           params, call);
  mlc_clear_error(ctx);
  const MlcGExpr *c = opc_call(ctx, src);
  if (!c) printf("    read failed: %s\n", mlc_error_msg(ctx));
  ctx->build_loc = (MlcLoc){mlc_intern(ctx, "op_test.py"), CALL_LINE, 18};
  return c;
}

static bool sinfo_is(const MlcGExpr *c, const char *want) {
  MlcSInfo *s = c ? mlc_op_infer(ctx, c) : NULL;
  MlcStrBuf sb = {0};
  if (s) mlc_print_sinfo(s, &sb);
  bool ok = s && strcmp(mlc_sb_cstr(&sb), want) == 0;
  if (!ok) printf("    sinfo: %s (want %s) %s\n", s ? mlc_sb_cstr(&sb) : "(null)", want, mlc_error_msg(ctx));
  mlc_vec_free(&sb);
  return ok;
}

/* the legalized prim func prints and reads back structurally equal */
static bool round_trips(const MlcGExpr *c) {
  MlcPrimFunc *f = mlc_op_to_prim_func(ctx, c, "op");
  if (!f) return false;
  MlcFunc fn = {.kind = MLC_FUNC_PRIM, .name = f->name, .prim = f};
  MlcModule *m = mlc_module_new(ctx, "Module", &fn, 1, (MlcAttrs){0});
  MlcStrBuf sb = {0};
  mlc_print_module(m, &sb);
  MlcModule *back = mlc_read_module(ctx, "printed.py", mlc_sb_cstr(&sb), sb.len);
  bool ok = back && mlc_module_equal(m, back);
  if (!ok) printf("    round trip failed: %s\n%s", mlc_error_msg(ctx), mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return ok;
}

/* the call is refused with exactly msg, located at its line */
static bool refused(const MlcGExpr *c, const char *msg) {
  mlc_clear_error(ctx);
  if (!c || mlc_op_infer(ctx, c)) return false;
  bool ok = strcmp(mlc_error_msg(ctx), msg) == 0 && mlc_error_loc(ctx).line == CALL_LINE;
  if (!ok) printf("    got: %s (line %d)\n", mlc_error_msg(ctx), mlc_error_loc(ctx).line);
  mlc_clear_error(ctx);
  return ok;
}

/* ---- the oracle ------------------------------------------------------------------------- */

typedef double (*RefFn)(const double *v);

/* flat index into b of the output's flat index i under numpy broadcasting */
static int64_t bcast_index(const OpcBuf *out, const OpcBuf *b, int64_t i) {
  int64_t idx = 0, stride = 1;
  for (int d = out->ndim - 1, e = b->ndim - 1; d >= 0; d--, e--) {
    int64_t coord = i % out->shape[d];
    i /= out->shape[d];
    if (e < 0) continue;
    idx += (b->shape[e] == 1 ? 0 : coord) * stride;
    stride *= b->shape[e];
  }
  return idx;
}

static OpcBuf buf(int ndim, const int64_t *shape) {
  OpcBuf b = {.ndim = ndim};
  memcpy(b.shape, shape, (size_t)ndim * sizeof *shape);
  return b;
}

/* fill ins (values in [lo, hi), rounded to float32, or to integers when
 * integral), run call, compare its output of shape out with ref */
static bool check_run(const MlcGExpr *c, OpcBuf *ins, int n_in, OpcBuf out, RefFn ref, double lo, double hi,
                      bool integral) {
  for (int k = 0; k < n_in; k++) {
    int64_t n = opc_numel(&ins[k]);
    ins[k].v = malloc((size_t)(n ? n : 1) * sizeof(double));
    opc_fill(ins[k].v, n, 17u + (unsigned)k, lo, hi);
    for (int64_t i = 0; i < n; i++) ins[k].v[i] = integral ? floor(ins[k].v[i]) : (float)ins[k].v[i];
  }
  bool ok = opc_run(ctx, c, ins, n_in, &out, 1);
  if (!ok) printf("    run failed: %s\n", mlc_error_msg(ctx));
  int64_t n = opc_numel(&out);
  double *want = calloc((size_t)(n ? n : 1), sizeof *want);
  for (int64_t i = 0; i < n && ok; i++) {
    double v[3];
    for (int k = 0; k < n_in; k++) v[k] = ins[k].v[bcast_index(&out, &ins[k], i)];
    want[i] = ref(v);
  }
  double err = ok ? opc_max_err(out.v, want, n) : 0;
  if (ok && err > 1e-5) {
    printf("    max relative error %g\n", err);
    ok = false;
  }
  free(want);
  opc_free(&out, 1);
  opc_free(ins, n_in);
  return ok;
}

/* ---- binary ops ------------------------------------------------------------------------------ */

static double r_add(const double *v) { return v[0] + v[1]; }
static double r_sub(const double *v) { return v[0] - v[1]; }
static double r_mul(const double *v) { return v[0] * v[1]; }
static double r_div(const double *v) { return v[0] / v[1]; }
static double r_pow(const double *v) { return pow(v[0], v[1]); }
static double r_max(const double *v) { return v[0] > v[1] ? v[0] : v[1]; }
static double r_min(const double *v) { return v[0] < v[1] ? v[0] : v[1]; }
static double r_eq(const double *v) { return v[0] == v[1]; }
static double r_ne(const double *v) { return v[0] != v[1]; }
static double r_lt(const double *v) { return v[0] < v[1]; }
static double r_le(const double *v) { return v[0] <= v[1]; }
static double r_gt(const double *v) { return v[0] > v[1]; }
static double r_ge(const double *v) { return v[0] >= v[1]; }

static const struct { const char *op; RefFn ref; bool cmp; double lo, hi; } binary[] = {
    {"add", r_add, 0, -3, 3},      {"subtract", r_sub, 0, -3, 3},   {"multiply", r_mul, 0, -3, 3},
    {"divide", r_div, 0, 0.5, 3},  {"power", r_pow, 0, 0.5, 2},     {"maximum", r_max, 0, -3, 3},
    {"minimum", r_min, 0, -3, 3},  {"equal", r_eq, 1, 0, 3},        {"not_equal", r_ne, 1, 0, 3},
    {"less", r_lt, 1, 0, 3},       {"less_equal", r_le, 1, 0, 3},   {"greater", r_gt, 1, 0, 3},
    {"greater_equal", r_ge, 1, 0, 3},
};

static void test_binary_broadcast(void) {
  for (size_t i = 0; i < sizeof binary / sizeof *binary; i++) {
    int was_failing = check__failed_now;
    char call[64];
    snprintf(call, sizeof call, "R.%s(x, y)", binary[i].op);
    const MlcGExpr *c = call_in("x: R.Tensor((2, 3), \"float32\"), y: R.Tensor((3,), \"float32\")", call);
    CHECK(sinfo_is(c, binary[i].cmp ? "R.Tensor((2, 3), dtype=\"bool\")" : "R.Tensor((2, 3), dtype=\"float32\")"));
    OpcBuf ins[2] = {buf(2, (int64_t[]){2, 3}), buf(1, (int64_t[]){3})};
    /* comparisons on integral values, so that equal values occur */
    CHECK(check_run(c, ins, 2, buf(2, (int64_t[]){2, 3}), binary[i].ref, binary[i].lo, binary[i].hi,
                    binary[i].cmp));
    CHECK(round_trips(c));
    if (!was_failing && check__failed_now) printf("    op %s\n", binary[i].op);
  }
}

static void test_binary_symbolic(void) {
  for (size_t i = 0; i < sizeof binary / sizeof *binary; i++) {
    int was_failing = check__failed_now;
    char call[64];
    snprintf(call, sizeof call, "R.%s(y, x)", binary[i].op);
    const MlcGExpr *c = call_in("x: R.Tensor((\"n\", 4), \"float32\"), y: R.Tensor((1, 4), \"float32\")", call);
    CHECK(sinfo_is(c, binary[i].cmp ? "R.Tensor((n, 4), dtype=\"bool\")" : "R.Tensor((n, 4), dtype=\"float32\")"));
    OpcBuf ins[2] = {buf(2, (int64_t[]){1, 4}), buf(2, (int64_t[]){5, 4})};
    CHECK(check_run(c, ins, 2, buf(2, (int64_t[]){5, 4}), binary[i].ref, binary[i].lo, binary[i].hi,
                    binary[i].cmp));
    CHECK(round_trips(c));
    if (!was_failing && check__failed_now) printf("    op %s\n", binary[i].op);
  }
}

static double r_tdiv(const double *v) { return trunc(v[0] / v[1]); }
static double r_ipow(const double *v) { return pow(v[0], v[1]); }

/* integer division truncates like C; integer power goes through float64 */
static void test_binary_int(void) {
  const char *p = "x: R.Tensor((3, 4), \"int32\"), y: R.Tensor((3, 1), \"int32\")";
  const MlcGExpr *c = call_in(p, "R.divide(x, y)");
  CHECK(sinfo_is(c, "R.Tensor((3, 4), dtype=\"int32\")"));
  OpcBuf ins[2] = {buf(2, (int64_t[]){3, 4}), buf(2, (int64_t[]){3, 1})};
  CHECK(check_run(c, ins, 2, buf(2, (int64_t[]){3, 4}), r_tdiv, 1, 9, true)); /* positive divisors */
  const MlcGExpr *neg = call_in(p, "R.divide(x, y)");
  OpcBuf nin[2] = {buf(2, (int64_t[]){3, 4}), buf(2, (int64_t[]){3, 1})};
  CHECK(check_run(neg, nin, 2, buf(2, (int64_t[]){3, 4}), r_tdiv, -9, -1, true)); /* negative both */
  OpcBuf mixed[2] = {{.ndim = 1, .shape = {2}, .v = (double[]){-7, 7}}, {.ndim = 1, .shape = {1}, .v = (double[]){2}}};
  OpcBuf out = buf(1, (int64_t[]){2});
  const MlcGExpr *d = call_in("x: R.Tensor((2,), \"int32\"), y: R.Tensor((1,), \"int32\")", "R.divide(x, y)");
  CHECK(opc_run(ctx, d, mixed, 2, &out, 1) && out.v[0] == -3 && out.v[1] == 3);
  opc_free(&out, 1);
  c = call_in(p, "R.power(x, y)");
  OpcBuf pin[2] = {buf(2, (int64_t[]){3, 4}), buf(2, (int64_t[]){3, 1})};
  CHECK(check_run(c, pin, 2, buf(2, (int64_t[]){3, 4}), r_ipow, 0, 4, true));
  CHECK(round_trips(c));
}

/* ---- where ------------------------------------------------------------------------------------------- */

static double r_where(const double *v) { return v[0] != 0 ? v[1] : v[2]; }

static void test_where(void) {
  const MlcGExpr *c = call_in("c: R.Tensor((2, 1, 3), \"bool\"), x: R.Tensor((4, 3), \"float32\"), "
                              "y: R.Tensor((1,), \"float32\")", "R.where(c, x, y)");
  CHECK(sinfo_is(c, "R.Tensor((2, 4, 3), dtype=\"float32\")"));
  OpcBuf ins[3] = {buf(3, (int64_t[]){2, 1, 3}), buf(2, (int64_t[]){4, 3}), buf(1, (int64_t[]){1})};
  CHECK(check_run(c, ins, 3, buf(3, (int64_t[]){2, 4, 3}), r_where, 0, 2, true));
  CHECK(round_trips(c));
  c = call_in("c: R.Tensor((\"n\", 1), \"bool\"), x: R.Tensor((1, 3), \"float32\"), "
              "y: R.Tensor((\"n\", 3), \"float32\")", "R.where(c, x, y)");
  CHECK(sinfo_is(c, "R.Tensor((n, 3), dtype=\"float32\")"));
  OpcBuf sins[3] = {buf(2, (int64_t[]){6, 1}), buf(2, (int64_t[]){1, 3}), buf(2, (int64_t[]){6, 3})};
  CHECK(check_run(c, sins, 3, buf(2, (int64_t[]){6, 3}), r_where, 0, 2, true));
  CHECK(round_trips(c));
}

/* ---- unary ops ----------------------------------------------------------------------------------------- */

static double r_neg(const double *v) { return -v[0]; }
static double r_abs(const double *v) { return fabs(v[0]); }
static double r_exp(const double *v) { return exp(v[0]); }
static double r_log(const double *v) { return log(v[0]); }
static double r_sqrt(const double *v) { return sqrt(v[0]); }
static double r_rsqrt(const double *v) { return 1 / sqrt(v[0]); }
static double r_tanh(const double *v) { return tanh(v[0]); }
static double r_sigmoid(const double *v) { return 1 / (1 + exp(-v[0])); }
static double r_erf(const double *v) { return erf(v[0]); }
static double r_relu(const double *v) { return v[0] > 0 ? v[0] : 0; }
static double r_gelu(const double *v) { return 0.5 * v[0] * (1 + erf(v[0] / sqrt(2.0))); }
static double r_silu(const double *v) { return v[0] / (1 + exp(-v[0])); }

static const struct { const char *op; RefFn ref; double lo, hi; } unary[] = {
    {"negative", r_neg, -3, 3}, {"abs", r_abs, -3, 3},         {"exp", r_exp, -3, 3},
    {"log", r_log, 0.1, 5},     {"sqrt", r_sqrt, 0, 5},        {"rsqrt", r_rsqrt, 0.1, 5},
    {"tanh", r_tanh, -3, 3},    {"sigmoid", r_sigmoid, -5, 5}, {"erf", r_erf, -2, 2},
    {"nn.relu", r_relu, -3, 3}, {"nn.gelu", r_gelu, -4, 4},    {"nn.silu", r_silu, -5, 5},
};

static void test_unary(void) {
  for (size_t i = 0; i < sizeof unary / sizeof *unary; i++) {
    int was_failing = check__failed_now;
    char call[64];
    snprintf(call, sizeof call, "R.%s(x)", unary[i].op);
    const MlcGExpr *c = call_in("x: R.Tensor((3, 5), \"float32\")", call);
    CHECK(sinfo_is(c, "R.Tensor((3, 5), dtype=\"float32\")"));
    OpcBuf in = buf(2, (int64_t[]){3, 5});
    CHECK(check_run(c, &in, 1, buf(2, (int64_t[]){3, 5}), unary[i].ref, unary[i].lo, unary[i].hi, false));
    CHECK(round_trips(c));
    c = call_in("x: R.Tensor((\"n\", 4), \"float32\")", call);
    CHECK(sinfo_is(c, "R.Tensor((n, 4), dtype=\"float32\")"));
    OpcBuf sin = buf(2, (int64_t[]){7, 4});
    CHECK(check_run(c, &sin, 1, buf(2, (int64_t[]){7, 4}), unary[i].ref, unary[i].lo, unary[i].hi, false));
    CHECK(round_trips(c));
    if (!was_failing && check__failed_now) printf("    op %s\n", unary[i].op);
  }
}

/* the ops that also take integers */
static void test_unary_int(void) {
  static const struct { const char *op; RefFn ref; } ops[] = {
      {"negative", r_neg}, {"abs", r_abs}, {"nn.relu", r_relu}};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
    int was_failing = check__failed_now;
    char call[64];
    snprintf(call, sizeof call, "R.%s(x)", ops[i].op);
    const MlcGExpr *c = call_in("x: R.Tensor((\"n\", 3), \"int32\")", call);
    CHECK(sinfo_is(c, "R.Tensor((n, 3), dtype=\"int32\")"));
    OpcBuf in = buf(2, (int64_t[]){4, 3});
    CHECK(check_run(c, &in, 1, buf(2, (int64_t[]){4, 3}), ops[i].ref, -9, 9, true));
    if (!was_failing && check__failed_now) printf("    op %s\n", ops[i].op);
  }
}

static double r_clip(const double *v) { return fmin(fmax(v[0], -0.5), 1.0); }
static double r_clip_int(const double *v) { return fmin(fmax(v[0], 0), 6); }

static void test_clip(void) {
  const MlcGExpr *c = call_in("x: R.Tensor((2, 7), \"float32\")", "R.clip(x, -0.5, max=1.0)");
  CHECK(sinfo_is(c, "R.Tensor((2, 7), dtype=\"float32\")"));
  OpcBuf in = buf(2, (int64_t[]){2, 7});
  CHECK(check_run(c, &in, 1, buf(2, (int64_t[]){2, 7}), r_clip, -2, 2, false));
  CHECK(round_trips(c));
  c = call_in("x: R.Tensor((\"n\",), \"int32\")", "R.clip(x, R.prim_value(0), R.prim_value(6))");
  CHECK(sinfo_is(c, "R.Tensor((n,), dtype=\"int32\")"));
  OpcBuf iin = buf(1, (int64_t[]){11});
  CHECK(check_run(c, &iin, 1, buf(1, (int64_t[]){11}), r_clip_int, -5, 12, true));
  CHECK(round_trips(c));
}

static double r_trunc(const double *v) { return trunc(v[0]); }
static double r_id(const double *v) { return v[0]; }

static void test_astype(void) {
  const MlcGExpr *c = call_in("x: R.Tensor((3, 3), \"float32\")", "R.astype(x, \"int32\")");
  CHECK(sinfo_is(c, "R.Tensor((3, 3), dtype=\"int32\")"));
  OpcBuf in = buf(2, (int64_t[]){3, 3});
  CHECK(check_run(c, &in, 1, buf(2, (int64_t[]){3, 3}), r_trunc, -5, 5, false));
  CHECK(round_trips(c));
  c = call_in("x: R.Tensor((\"n\", 2), \"int32\")", "R.astype(x, dtype=\"float64\")");
  CHECK(sinfo_is(c, "R.Tensor((n, 2), dtype=\"float64\")"));
  OpcBuf iin = buf(2, (int64_t[]){5, 2});
  CHECK(check_run(c, &iin, 1, buf(2, (int64_t[]){5, 2}), r_id, -100, 100, true));
  CHECK(round_trips(c));
}

/* ---- creation --------------------------------------------------------------------------------------------- */

static bool all_equal(const MlcGExpr *c, OpcBuf out, double v) {
  bool ok = opc_run(ctx, c, NULL, 0, &out, 1);
  for (int64_t i = 0; ok && i < opc_numel(&out); i++) ok = out.v[i] == v;
  if (!ok) printf("    %s\n", mlc_error_msg(ctx));
  opc_free(&out, 1);
  return ok;
}

static void test_full(void) {
  const MlcGExpr *c = call_in("", "R.full((2, 3), 1.5, \"float32\")");
  CHECK(sinfo_is(c, "R.Tensor((2, 3), dtype=\"float32\")"));
  CHECK(all_equal(c, buf(2, (int64_t[]){2, 3}), 1.5));
  CHECK(round_trips(c));
  c = call_in("", "R.full((4,), -3)");
  CHECK(sinfo_is(c, "R.Tensor((4,), dtype=\"int32\")"));
  CHECK(all_equal(c, buf(1, (int64_t[]){4}), -3));
  c = call_in("", "R.full((2, 2), R.const(2.5, \"float32\"), dtype=\"float64\")");
  CHECK(sinfo_is(c, "R.Tensor((2, 2), dtype=\"float64\")"));
  CHECK(all_equal(c, buf(2, (int64_t[]){2, 2}), 2.5));
  c = call_in("", "R.zeros((3, 1), \"int32\")");
  CHECK(sinfo_is(c, "R.Tensor((3, 1), dtype=\"int32\")"));
  CHECK(all_equal(c, buf(2, (int64_t[]){3, 1}), 0));
  CHECK(round_trips(c));
  c = call_in("", "R.ones((5,), R.dtype(\"float32\"))");
  CHECK(sinfo_is(c, "R.Tensor((5,), dtype=\"float32\")"));
  CHECK(all_equal(c, buf(1, (int64_t[]){5}), 1));
  /* a symbolic shape: struct info only (the prim func would need n as a param) */
  c = call_in("x: R.Tensor((\"n\", 4), \"float32\")", "R.zeros((n, 4), \"float32\")");
  CHECK(sinfo_is(c, "R.Tensor((n, 4), dtype=\"float32\")"));
}

/* ---- refusals ------------------------------------------------------------------------------------------------ */

static void test_errors(void) {
  const char *xy = "x: R.Tensor((2, 3), \"float32\"), y: R.Tensor((2, 4), \"float32\")";
  CHECK(refused(call_in(xy, "R.multiply(x, y)"),
                "multiply: shapes (2, 3) and (2, 4) do not broadcast: dims 3 and 4 differ"));
  CHECK(refused(call_in(xy, "R.less(x, y)"), "less: shapes (2, 3) and (2, 4) do not broadcast: dims 3 and 4 differ"));
  CHECK(refused(call_in("x: R.Tensor((\"n\",), \"float32\"), y: R.Tensor((\"m\",), \"float32\")", "R.add(x, y)"),
                "add: shapes (n,) and (m,) do not broadcast: dims n and m are not provably equal (dims "
                "that could differ at run time are refused)"));
  CHECK(refused(call_in("x: R.Tensor((2, 3), \"float32\"), y: R.Tensor((3,), \"int32\")", "R.add(x, y)"),
                "add: dtypes differ: x1 is float32, x2 is int32"));
  CHECK(refused(call_in("x: R.Tensor(\"float32\", ndim=-1), y: R.Tensor((3,), \"float32\")", "R.add(x, y)"),
                "add: x1: expected a tensor of known rank"));
  const char *cxy = "c: R.Tensor((2, 3), \"float32\"), x: R.Tensor((2, 3), \"float32\"), y: R.Tensor((5,), \"float32\")";
  CHECK(refused(call_in(cxy, "R.where(c, x, x)"), "where: condition: expected a bool tensor, got float32"));
  CHECK(refused(call_in("c: R.Tensor((2, 3), \"bool\"), x: R.Tensor((2, 3), \"float32\"), "
                        "y: R.Tensor((5,), \"float32\")", "R.where(c, x, y)"),
                "where: shapes (2, 3) and (5,) do not broadcast: dims 3 and 5 differ"));
  CHECK(refused(call_in("c: R.Tensor((2, 3), \"bool\"), x: R.Tensor((2, 3), \"float32\"), "
                        "y: R.Tensor((3,), \"int32\")", "R.where(c, x, y)"),
                "where: dtypes differ: x1 is float32, x2 is int32"));
  CHECK(refused(call_in("x: R.Tensor((2, 3), \"int32\")", "R.exp(x)"), "exp: expected a float tensor, got int32"));
  CHECK(refused(call_in("x: R.Tensor((2, 3), \"int32\")", "R.nn.gelu(x)"),
                "nn.gelu: expected a float tensor, got int32"));
  CHECK(refused(call_in("x: R.Tensor((2, 3), \"float32\")", "R.clip(x, 2.0, 1.0)"),
                "clip: min 2 is greater than max 1"));
  CHECK(refused(call_in("x: R.Tensor((2, 3), \"float32\")", "R.clip(x, \"low\", 1.0)"),
                "clip: min: expected a number"));
  CHECK(refused(call_in("x: R.Tensor((2, 3), \"float32\")", "R.astype(x, \"float33\")"),
                "astype: dtype: expected a dtype such as \"float32\""));
  CHECK(refused(call_in("", "R.full((2, 3), \"one\", \"float32\")"), "full: fill_value: expected a number"));
  CHECK(refused(call_in("", "R.full(2.5, 1.0, \"float32\")"),
                "full: shape: expected a shape of non-negative integers or int64 dims"));
  CHECK(refused(call_in("", "R.zeros((2, 3), \"vector\")"), "zeros: dtype: expected a dtype such as \"float32\""));
  CHECK(refused(call_in("x: R.Tensor((2, 3), \"float32\")", "R.nn.softmax(x, axis=2)"),
                "nn.softmax: axis 2 is out of range for a tensor of rank 2"));
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_binary_broadcast);
  RUN(test_binary_symbolic);
  RUN(test_binary_int);
  RUN(test_where);
  RUN(test_unary);
  RUN(test_unary_int);
  RUN(test_clip);
  RUN(test_astype);
  RUN(test_full);
  RUN(test_errors);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
