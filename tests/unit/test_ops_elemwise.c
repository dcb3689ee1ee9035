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

/* fill ins (values in [lo, hi), rounded to float32, or to integers when
 * integral), run call, compare its output of shape out with ref */
static bool check_run(const MlcGExpr *c, OpcBuf *ins, int n_in, OpcBuf out, RefFn ref, double lo, double hi,
                      bool integral) {
  for (int k = 0; k < n_in; k++) opc_fill_buf(&ins[k], 17u + (unsigned)k, lo, hi, integral);
  int64_t n = opc_numel(&out);
  out.v = calloc((size_t)(n ? n : 1), sizeof *out.v);
  for (int64_t i = 0; i < n; i++) {
    double v[3];
    for (int k = 0; k < n_in; k++) v[k] = ins[k].v[bcast_index(&out, &ins[k], i)];
    out.v[i] = ref(v);
  }
  bool ok = opc_runs_like(ctx, c, ins, n_in, &out, 1, 1e-5);
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
    const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((2, 3), \"float32\"), y: R.Tensor((3,), \"float32\")", call);
    CHECK(opc_sinfo_is(ctx, c,
                       binary[i].cmp ? "R.Tensor((2, 3), dtype=\"bool\")" : "R.Tensor((2, 3), dtype=\"float32\")"));
    OpcBuf ins[2] = {opc_buf(2, (int64_t[]){2, 3}, NULL), opc_buf(1, (int64_t[]){3}, NULL)};
    /* comparisons on integral values, so that equal values occur */
    CHECK(check_run(c, ins, 2, opc_buf(2, (int64_t[]){2, 3}, NULL), binary[i].ref, binary[i].lo, binary[i].hi,
                    binary[i].cmp));
    CHECK(opc_round_trips(ctx, c));
    if (!was_failing && check__failed_now) printf("    op %s\n", binary[i].op);
  }
}

static void test_binary_symbolic(void) {
  for (size_t i = 0; i < sizeof binary / sizeof *binary; i++) {
    int was_failing = check__failed_now;
    char call[64];
    snprintf(call, sizeof call, "R.%s(y, x)", binary[i].op);
    const MlcGExpr *c =
        opc_call_in(ctx, "x: R.Tensor((\"n\", 4), \"float32\"), y: R.Tensor((1, 4), \"float32\")", call);
    CHECK(opc_sinfo_is(ctx, c,
                       binary[i].cmp ? "R.Tensor((n, 4), dtype=\"bool\")" : "R.Tensor((n, 4), dtype=\"float32\")"));
    OpcBuf ins[2] = {opc_buf(2, (int64_t[]){1, 4}, NULL), opc_buf(2, (int64_t[]){5, 4}, NULL)};
    CHECK(check_run(c, ins, 2, opc_buf(2, (int64_t[]){5, 4}, NULL), binary[i].ref, binary[i].lo, binary[i].hi,
                    binary[i].cmp));
    CHECK(opc_round_trips(ctx, c));
    if (!was_failing && check__failed_now) printf("    op %s\n", binary[i].op);
  }
}

static double r_tdiv(const double *v) { return trunc(v[0] / v[1]); }
static double r_ipow(const double *v) { return pow(v[0], v[1]); }

/* integer division truncates like C; integer power goes through float64 */
static void test_binary_int(void) {
  const char *p = "x: R.Tensor((3, 4), \"int32\"), y: R.Tensor((3, 1), \"int32\")";
  const MlcGExpr *c = opc_call_in(ctx, p, "R.divide(x, y)");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((3, 4), dtype=\"int32\")"));
  OpcBuf ins[2] = {opc_buf(2, (int64_t[]){3, 4}, NULL), opc_buf(2, (int64_t[]){3, 1}, NULL)};
  CHECK(check_run(c, ins, 2, opc_buf(2, (int64_t[]){3, 4}, NULL), r_tdiv, 1, 9, true)); /* positive divisors */
  const MlcGExpr *neg = opc_call_in(ctx, p, "R.divide(x, y)");
  OpcBuf nin[2] = {opc_buf(2, (int64_t[]){3, 4}, NULL), opc_buf(2, (int64_t[]){3, 1}, NULL)};
  CHECK(check_run(neg, nin, 2, opc_buf(2, (int64_t[]){3, 4}, NULL), r_tdiv, -9, -1, true)); /* negative both */
  OpcBuf mixed[2] = {{.ndim = 1, .shape = {2}, .v = (double[]){-7, 7}}, {.ndim = 1, .shape = {1}, .v = (double[]){2}}};
  OpcBuf out = opc_buf(1, (int64_t[]){2}, NULL);
  const MlcGExpr *d = opc_call_in(ctx, "x: R.Tensor((2,), \"int32\"), y: R.Tensor((1,), \"int32\")", "R.divide(x, y)");
  CHECK(opc_run(ctx, d, mixed, 2, &out, 1) && out.v[0] == -3 && out.v[1] == 3);
  opc_free(&out, 1);
  c = opc_call_in(ctx, p, "R.power(x, y)");
  OpcBuf pin[2] = {opc_buf(2, (int64_t[]){3, 4}, NULL), opc_buf(2, (int64_t[]){3, 1}, NULL)};
  CHECK(check_run(c, pin, 2, opc_buf(2, (int64_t[]){3, 4}, NULL), r_ipow, 0, 4, true));
  CHECK(opc_round_trips(ctx, c));
}

/* ---- where ------------------------------------------------------------------------------------------- */

static double r_where(const double *v) { return v[0] != 0 ? v[1] : v[2]; }

static void test_where(void) {
  const MlcGExpr *c = opc_call_in(ctx, "c: R.Tensor((2, 1, 3), \"bool\"), x: R.Tensor((4, 3), \"float32\"), "
                                       "y: R.Tensor((1,), \"float32\")", "R.where(c, x, y)");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((2, 4, 3), dtype=\"float32\")"));
  OpcBuf ins[3] = {opc_buf(3, (int64_t[]){2, 1, 3}, NULL), opc_buf(2, (int64_t[]){4, 3}, NULL),
                   opc_buf(1, (int64_t[]){1}, NULL)};
  CHECK(check_run(c, ins, 3, opc_buf(3, (int64_t[]){2, 4, 3}, NULL), r_where, 0, 2, true));
  CHECK(opc_round_trips(ctx, c));
  c = opc_call_in(ctx, "c: R.Tensor((\"n\", 1), \"bool\"), x: R.Tensor((1, 3), \"float32\"), "
                       "y: R.Tensor((\"n\", 3), \"float32\")", "R.where(c, x, y)");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((n, 3), dtype=\"float32\")"));
  OpcBuf sins[3] = {opc_buf(2, (int64_t[]){6, 1}, NULL), opc_buf(2, (int64_t[]){1, 3}, NULL),
                    opc_buf(2, (int64_t[]){6, 3}, NULL)};
  CHECK(check_run(c, sins, 3, opc_buf(2, (int64_t[]){6, 3}, NULL), r_where, 0, 2, true));
  CHECK(opc_round_trips(ctx, c));
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
    const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((3, 5), \"float32\")", call);
    CHECK(opc_sinfo_is(ctx, c, "R.Tensor((3, 5), dtype=\"float32\")"));
    OpcBuf in = opc_buf(2, (int64_t[]){3, 5}, NULL);
    CHECK(check_run(c, &in, 1, opc_buf(2, (int64_t[]){3, 5}, NULL), unary[i].ref, unary[i].lo, unary[i].hi, false));
    CHECK(opc_round_trips(ctx, c));
    c = opc_call_in(ctx, "x: R.Tensor((\"n\", 4), \"float32\")", call);
    CHECK(opc_sinfo_is(ctx, c, "R.Tensor((n, 4), dtype=\"float32\")"));
    OpcBuf sin = opc_buf(2, (int64_t[]){7, 4}, NULL);
    CHECK(check_run(c, &sin, 1, opc_buf(2, (int64_t[]){7, 4}, NULL), unary[i].ref, unary[i].lo, unary[i].hi, false));
    CHECK(opc_round_trips(ctx, c));
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
    const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((\"n\", 3), \"int32\")", call);
    CHECK(opc_sinfo_is(ctx, c, "R.Tensor((n, 3), dtype=\"int32\")"));
    OpcBuf in = opc_buf(2, (int64_t[]){4, 3}, NULL);
    CHECK(check_run(c, &in, 1, opc_buf(2, (int64_t[]){4, 3}, NULL), ops[i].ref, -9, 9, true));
    if (!was_failing && check__failed_now) printf("    op %s\n", ops[i].op);
  }
}

static double r_clip(const double *v) { return fmin(fmax(v[0], -0.5), 1.0); }
static double r_clip_int(const double *v) { return fmin(fmax(v[0], 0), 6); }

static void test_clip(void) {
  const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((2, 7), \"float32\")", "R.clip(x, -0.5, max=1.0)");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((2, 7), dtype=\"float32\")"));
  OpcBuf in = opc_buf(2, (int64_t[]){2, 7}, NULL);
  CHECK(check_run(c, &in, 1, opc_buf(2, (int64_t[]){2, 7}, NULL), r_clip, -2, 2, false));
  CHECK(opc_round_trips(ctx, c));
  c = opc_call_in(ctx, "x: R.Tensor((\"n\",), \"int32\")", "R.clip(x, R.prim_value(0), R.prim_value(6))");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((n,), dtype=\"int32\")"));
  OpcBuf iin = opc_buf(1, (int64_t[]){11}, NULL);
  CHECK(check_run(c, &iin, 1, opc_buf(1, (int64_t[]){11}, NULL), r_clip_int, -5, 12, true));
  CHECK(opc_round_trips(ctx, c));
}

static double r_trunc(const double *v) { return trunc(v[0]); }
static double r_id(const double *v) { return v[0]; }

static void test_astype(void) {
  const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((3, 3), \"float32\")", "R.astype(x, \"int32\")");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((3, 3), dtype=\"int32\")"));
  OpcBuf in = opc_buf(2, (int64_t[]){3, 3}, NULL);
  CHECK(check_run(c, &in, 1, opc_buf(2, (int64_t[]){3, 3}, NULL), r_trunc, -5, 5, false));
  CHECK(opc_round_trips(ctx, c));
  c = opc_call_in(ctx, "x: R.Tensor((\"n\", 2), \"int32\")", "R.astype(x, dtype=\"float64\")");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((n, 2), dtype=\"float64\")"));
  OpcBuf iin = opc_buf(2, (int64_t[]){5, 2}, NULL);
  CHECK(check_run(c, &iin, 1, opc_buf(2, (int64_t[]){5, 2}, NULL), r_id, -100, 100, true));
  CHECK(opc_round_trips(ctx, c));
}

/* bitcast reads the bits: the int32 patterns of these floats written out */
static void test_bitcast(void) {
  const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((2, 3), \"float32\")", "R.bitcast(x, \"int32\")");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((2, 3), dtype=\"int32\")"));
  OpcBuf in = opc_buf(2, (int64_t[]){2, 3}, (double[]){1.0, -2.5, 0.0, -0.0, 0.1, -INFINITY});
  OpcBuf out = opc_buf(2, (int64_t[]){2, 3}, NULL);
  static const double want[] = {0x3f800000, -0x3fe00000, 0, -2147483648.0, 0x3dcccccd, -0x00800000};
  CHECK(opc_run(ctx, c, &in, 1, &out, 1));
  for (int i = 0; i < 6 && out.v; i++) CHECK(out.v[i] == want[i]);
  free(out.v);
  CHECK(opc_round_trips(ctx, c));
  c = opc_call_in(ctx, "x: R.Tensor((3,), \"uint16\")", "R.bitcast(x, \"int16\")");
  OpcBuf u = opc_buf(1, (int64_t[]){3}, (double[]){65535, 32768, 7}), o = opc_buf(1, (int64_t[]){3}, NULL);
  CHECK(opc_run(ctx, c, &u, 1, &o, 1) && o.v[0] == -1 && o.v[1] == -32768 && o.v[2] == 7);
  free(o.v);
  OPC_CHECK_REFUSED("x: R.Tensor((2, 3), \"float32\")", "R.bitcast(x, \"int64\")",
                    "bitcast: cannot read float32 as int64: a bitcast needs two dtypes of one byte size");
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
  const MlcGExpr *c = opc_call_in(ctx, "", "R.full((2, 3), 1.5, \"float32\")");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((2, 3), dtype=\"float32\")"));
  CHECK(all_equal(c, opc_buf(2, (int64_t[]){2, 3}, NULL), 1.5));
  CHECK(opc_round_trips(ctx, c));
  c = opc_call_in(ctx, "", "R.full((4,), -3)");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((4,), dtype=\"int32\")"));
  CHECK(all_equal(c, opc_buf(1, (int64_t[]){4}, NULL), -3));
  c = opc_call_in(ctx, "", "R.full((2, 2), R.const(2.5, \"float32\"), dtype=\"float64\")");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((2, 2), dtype=\"float64\")"));
  CHECK(all_equal(c, opc_buf(2, (int64_t[]){2, 2}, NULL), 2.5));
  c = opc_call_in(ctx, "", "R.zeros((3, 1), \"int32\")");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((3, 1), dtype=\"int32\")"));
  CHECK(all_equal(c, opc_buf(2, (int64_t[]){3, 1}, NULL), 0));
  CHECK(opc_round_trips(ctx, c));
  c = opc_call_in(ctx, "", "R.ones((5,), R.dtype(\"float32\"))");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((5,), dtype=\"float32\")"));
  CHECK(all_equal(c, opc_buf(1, (int64_t[]){5}, NULL), 1));
  /* a symbolic shape: struct info only (the prim func would need n as a param) */
  c = opc_call_in(ctx, "x: R.Tensor((\"n\", 4), \"float32\")", "R.zeros((n, 4), \"float32\")");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((n, 4), dtype=\"float32\")"));
}

/* ---- refusals ------------------------------------------------------------------------------------------------ */

static void test_errors(void) {
  const char *xy = "x: R.Tensor((2, 3), \"float32\"), y: R.Tensor((2, 4), \"float32\")";
  OPC_CHECK_REFUSED(xy, "R.multiply(x, y)",
                    "multiply: shapes (2, 3) and (2, 4) do not broadcast: dims 3 and 4 differ");
  OPC_CHECK_REFUSED(xy, "R.less(x, y)", "less: shapes (2, 3) and (2, 4) do not broadcast: dims 3 and 4 differ");
  OPC_CHECK_REFUSED("x: R.Tensor((\"n\",), \"float32\"), y: R.Tensor((\"m\",), \"float32\")", "R.add(x, y)",
                    "add: shapes (n,) and (m,) do not broadcast: dims n and m are not provably equal "
                    "(broadcasting dims known to match only at run time is not supported)");
  OPC_CHECK_REFUSED("x: R.Tensor((2, 3), \"float32\"), y: R.Tensor((3,), \"int32\")", "R.add(x, y)",
                    "add: dtypes differ: x1 is float32, x2 is int32");
  OPC_CHECK_REFUSED("x: R.Tensor(\"float32\", ndim=-1), y: R.Tensor((3,), \"float32\")", "R.add(x, y)",
                    "add: x1: expected a tensor of known rank");
  const char *cxy = "c: R.Tensor((2, 3), \"float32\"), x: R.Tensor((2, 3), \"float32\"), y: R.Tensor((5,), \"float32\")";
  OPC_CHECK_REFUSED(cxy, "R.where(c, x, x)", "where: condition: expected a bool tensor, got float32");
  OPC_CHECK_REFUSED("c: R.Tensor((2, 3), \"bool\"), x: R.Tensor((2, 3), \"float32\"), "
                    "y: R.Tensor((5,), \"float32\")", "R.where(c, x, y)",
                    "where: shapes (2, 3) and (5,) do not broadcast: dims 3 and 5 differ");
  OPC_CHECK_REFUSED("c: R.Tensor((2, 3), \"bool\"), x: R.Tensor((2, 3), \"float32\"), "
                    "y: R.Tensor((3,), \"int32\")", "R.where(c, x, y)",
                    "where: dtypes differ: x1 is float32, x2 is int32");
  OPC_CHECK_REFUSED("x: R.Tensor((2, 3), \"int32\")", "R.exp(x)", "exp: expected a float tensor, got int32");
  OPC_CHECK_REFUSED("x: R.Tensor((2, 3), \"int32\")", "R.nn.gelu(x)",
                    "nn.gelu: expected a float tensor, got int32");
  OPC_CHECK_REFUSED("x: R.Tensor((2, 3), \"float32\")", "R.clip(x, 2.0, 1.0)",
                    "clip: min 2 is greater than max 1");
  OPC_CHECK_REFUSED("x: R.Tensor((2, 3), \"float32\")", "R.clip(x, \"low\", 1.0)",
                    "clip: min: expected a number");
  OPC_CHECK_REFUSED("x: R.Tensor((2, 3), \"float32\")", "R.astype(x, \"float33\")",
                    "astype: dtype: expected a dtype such as \"float32\"");
  OPC_CHECK_REFUSED("", "R.full((2, 3), \"one\", \"float32\")", "full: fill_value: expected a number");
  OPC_CHECK_REFUSED("", "R.full(2.5, 1.0, \"float32\")",
                    "full: shape: expected a shape of non-negative integers or int64 dims");
  OPC_CHECK_REFUSED("", "R.zeros((2, 3), \"vector\")", "zeros: dtype: expected a dtype such as \"float32\"");
  OPC_CHECK_REFUSED("x: R.Tensor((2, 3), \"float32\")", "R.nn.softmax(x, axis=2)",
                    "nn.softmax: axis 2 is out of range for a tensor of rank 2");
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
  RUN(test_bitcast);
  RUN(test_full);
  RUN(test_errors);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
