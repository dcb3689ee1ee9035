/* test_ops_math_logic.c - the ops of src/ops/math_logic.c (rounding, sign,
 * trigonometric and hyperbolic functions, NaN / infinity tests, logic, bit
 * operations, shifts, remainders): struct info as text, the legalized
 * prim func run in the reference interpreter against a plain C reference,
 * and the located refusal of bad input.
 *
 * The references are libm functions and C's own integer operators on the
 * operand's C type (so the bit ops' composition from floor division is
 * checked against &, |, ^, ~, <<, >>).  Floats compare within 1e-5
 * relative, the rest exactly. */
#include <stdint.h>

#include "check.h"
#include "op_check.h"

#include "op_call_check.h"

#define N_VALS 24

/* ---- unary float ops ------------------------------------------------------------------------ */

static double r_sign(double x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }

static const struct { const char *op; double (*ref)(double); double lo, hi; } unary_float[] = {
    {"floor", floor, -4, 4}, {"ceil", ceil, -4, 4},   {"round", nearbyint, -4, 4}, {"sign", r_sign, -3, 3},
    {"sin", sin, -6, 6},     {"cos", cos, -6, 6},     {"tan", tan, -1.4, 1.4},     {"atan", atan, -3, 3},
    {"asin", asin, -1, 1},   {"acos", acos, -1, 1},   {"sinh", sinh, -3, 3},       {"cosh", cosh, -3, 3},
    {"asinh", asinh, -5, 5}, {"acosh", acosh, 1, 6},  {"atanh", atanh, -0.99, 0.99},
};

static void test_unary_float(void) {
  for (size_t i = 0; i < sizeof unary_float / sizeof *unary_float; i++) {
    char call[64];
    snprintf(call, sizeof call, "R.%s(x)", unary_float[i].op);
    const MlcGExpr *c = call_in("x: R.Tensor((4, 6), \"float32\")", call);
    CHECK(sinfo_is(c, "R.Tensor((4, 6), dtype=\"float32\")"));
    double x[N_VALS], want[N_VALS];
    opc_fill(x, N_VALS, 5u + (unsigned)i, unary_float[i].lo, unary_float[i].hi);
    x[0] = unary_float[i].lo, x[1] = unary_float[i].hi, x[2] = 0; /* the ends of the domain */
    for (int j = 0; j < N_VALS; j++) x[j] = (float)x[j], want[j] = (float)unary_float[i].ref(x[j]);
    OpcBuf in = buf(2, (int64_t[]){4, 6}, x);
    bool ok = run_matches(c, &in, 1, buf(2, (int64_t[]){4, 6}, NULL), want, 1e-5);
    CHECK(ok);
    if (!ok) printf("    op %s\n", unary_float[i].op);
  }
}

/* halves round to even; large arguments leave atan near +-pi/2 */
static void test_round_and_atan_edges(void) {
  double x[6] = {0.5, 1.5, 2.5, -0.5, -2.5, 3.5}, want[6] = {0, 2, 2, -0.0, -2, 4};
  OpcBuf in = buf(1, (int64_t[]){6}, x);
  CHECK(run_matches(call_in("x: R.Tensor((6,), \"float32\")", "R.round(x)"), &in, 1, buf(1, (int64_t[]){6}, NULL), want,
                    0));
  double y[6] = {1e30, -1e30, INFINITY, -INFINITY, 1, -1}, ywant[6];
  for (int i = 0; i < 6; i++) ywant[i] = (float)atan(y[i]);
  in = buf(1, (int64_t[]){6}, y);
  CHECK(run_matches(call_in("x: R.Tensor((6,), \"float32\")", "R.atan(x)"), &in, 1, buf(1, (int64_t[]){6}, NULL), ywant,
                    1e-6));
  /* integers: floor is the identity, sign is -1 / 0 / 1 in the input's dtype */
  double z[4] = {-7, 0, 3, -1}, zs[4] = {-1, 0, 1, -1};
  in = buf(1, (int64_t[]){4}, z);
  CHECK(run_matches(call_in("x: R.Tensor((4,), \"int32\")", "R.floor(x)"), &in, 1, buf(1, (int64_t[]){4}, NULL), z, 0));
  const MlcGExpr *s = call_in("x: R.Tensor((4,), \"int8\")", "R.sign(x)");
  CHECK(sinfo_is(s, "R.Tensor((4,), dtype=\"int8\")"));
  CHECK(run_matches(s, &in, 1, buf(1, (int64_t[]){4}, NULL), zs, 0));
}

static void test_isnan_isinf(void) {
  double x[5] = {NAN, INFINITY, -INFINITY, 0, -3.5};
  double nan_want[5] = {1, 0, 0, 0, 0}, inf_want[5] = {0, 1, 1, 0, 0};
  const MlcGExpr *c = call_in("x: R.Tensor((5,), \"float32\")", "R.isnan(x)");
  CHECK(sinfo_is(c, "R.Tensor((5,), dtype=\"bool\")"));
  OpcBuf in = buf(1, (int64_t[]){5}, x);
  CHECK(run_matches(c, &in, 1, buf(1, (int64_t[]){5}, NULL), nan_want, 0));
  c = call_in("x: R.Tensor((5,), \"float64\")", "R.isinf(x)");
  CHECK(run_matches(c, &in, 1, buf(1, (int64_t[]){5}, NULL), inf_want, 0));
}

/* ---- logic -------------------------------------------------------------------------------- */

static void test_logical(void) {
  double x[4] = {0, 0, 1, 1}, y[2] = {0, 1};
  static const struct { const char *op; double want[8]; } cases[] = {
      {"logical_and", {0, 0, 0, 0, 0, 1, 0, 1}},
      {"logical_or", {0, 1, 0, 1, 1, 1, 1, 1}},
      {"logical_xor", {0, 1, 0, 1, 1, 0, 1, 0}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char call[64];
    snprintf(call, sizeof call, "R.%s(x, y)", cases[i].op);
    const MlcGExpr *c = call_in("x: R.Tensor((4, 1), \"bool\"), y: R.Tensor((2,), \"bool\")", call);
    CHECK(sinfo_is(c, "R.Tensor((4, 2), dtype=\"bool\")"));
    OpcBuf ins[2] = {buf(2, (int64_t[]){4, 1}, x), buf(1, (int64_t[]){2}, y)};
    CHECK(run_matches(c, ins, 2, buf(2, (int64_t[]){4, 2}, NULL), cases[i].want, 0));
  }
  double nwant[4] = {1, 1, 0, 0};
  OpcBuf in = buf(1, (int64_t[]){4}, x);
  CHECK(run_matches(call_in("x: R.Tensor((4,), \"bool\")", "R.logical_not(x)"), &in, 1, buf(1, (int64_t[]){4}, NULL),
                    nwant, 0));
}

/* ---- bits ------------------------------------------------------------------------------------ */

/* the C reference at the operand's own width */
#define BIT_TYPES(X)                                                                          \
  X(int8_t, "int8", true) X(uint8_t, "uint8", false) X(int32_t, "int32", true)                 \
  X(uint32_t, "uint32", false) X(int64_t, "int64", true)

typedef enum { B_AND, B_OR, B_XOR, B_NOT, B_SHL, B_SHR } BitOp;
static const char *const bit_names[] = {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "left_shift",
                                        "right_shift"};

#define X(T, name, sgn)                                                                 \
  static double bit_ref_##T(BitOp op, double a, double b) {                             \
    T x = (T)a, y = (T)b;                                                               \
    switch (op) {                                                                       \
    case B_AND: return (double)(T)(x & y);                                              \
    case B_OR: return (double)(T)(x | y);                                               \
    case B_XOR: return (double)(T)(x ^ y);                                              \
    case B_NOT: return (double)(T)~x;                                                   \
    case B_SHL: return (double)(T)((uint64_t)x << (uint64_t)y);                         \
    case B_SHR: return (double)(T)(x >> y);                                             \
    }                                                                                   \
    return 0;                                                                           \
  }
BIT_TYPES(X)
#undef X

static const struct { const char *name; double (*ref)(BitOp, double, double); bool sgn; int bits; } bit_types[] = {
#define X(T, name, sgn) {name, bit_ref_##T, sgn, (int)sizeof(T) * 8},
    BIT_TYPES(X)
#undef X
};

static void test_bitwise(void) {
  for (size_t t = 0; t < sizeof bit_types / sizeof *bit_types; t++) {
    double x[8], y[8], want[8];
    double lo = bit_types[t].sgn ? -100 : 0;
    opc_fill(x, 8, 3u, lo, 120);
    opc_fill(y, 8, 4u, lo, 120);
    x[0] = bit_types[t].sgn ? -1 : 255, y[0] = bit_types[t].sgn ? -128 : 170;
    for (int i = 0; i < 8; i++) x[i] = floor(x[i]), y[i] = floor(y[i]);
    for (BitOp op = B_AND; op <= B_SHR; op++) {
      double sh[8];
      for (int i = 0; i < 8; i++) sh[i] = (op >= B_SHL) ? (double)(i * 3 % bit_types[t].bits) : y[i];
      for (int i = 0; i < 8; i++) want[i] = bit_types[t].ref(op, x[i], sh[i]);
      char params[128], call[64];
      snprintf(params, sizeof params, "x: R.Tensor((8,), \"%s\"), y: R.Tensor((8,), \"%s\")", bit_types[t].name,
               bit_types[t].name);
      snprintf(call, sizeof call, op == B_NOT ? "R.%s(x)" : "R.%s(x, y)", bit_names[op]);
      OpcBuf ins[2] = {buf(1, (int64_t[]){8}, x), buf(1, (int64_t[]){8}, sh)};
      bool ok = run_matches(call_in(params, call), ins, op == B_NOT ? 1 : 2, buf(1, (int64_t[]){8}, NULL), want, 0);
      CHECK(ok);
      if (!ok) printf("    %s on %s\n", bit_names[op], bit_types[t].name);
    }
  }
}

/* shifting every bit out gives 0 (or -1 for a negative signed value shifted right) */
static void test_shift_out(void) {
  double x[3] = {200, 1, 255}, y[3] = {8, 9, 200}, want[3] = {0, 0, 0};
  OpcBuf ins[2] = {buf(1, (int64_t[]){3}, x), buf(1, (int64_t[]){3}, y)};
  const char *p = "x: R.Tensor((3,), \"uint8\"), y: R.Tensor((3,), \"uint8\")";
  CHECK(run_matches(call_in(p, "R.left_shift(x, y)"), ins, 2, buf(1, (int64_t[]){3}, NULL), want, 0));
  CHECK(run_matches(call_in(p, "R.right_shift(x, y)"), ins, 2, buf(1, (int64_t[]){3}, NULL), want, 0));
  double sx[3] = {-5, 5, -128}, sy[3] = {7, 7, 100}, swant[3] = {-1, 0, -1};
  OpcBuf sins[2] = {buf(1, (int64_t[]){3}, sx), buf(1, (int64_t[]){3}, sy)};
  CHECK(run_matches(call_in("x: R.Tensor((3,), \"int8\"), y: R.Tensor((3,), \"int8\")", "R.right_shift(x, y)"), sins, 2,
                    buf(1, (int64_t[]){3}, NULL), swant, 0));
}

/* ---- remainders --------------------------------------------------------------------------------- */

static void test_remainders(void) {
  double x[4] = {7, -7, 7, -7}, y[4] = {3, 3, -3, -3};
  double floor_want[4] = {1, 2, -2, -1}, trunc_want[4] = {1, -1, 1, -1};
  OpcBuf ins[2] = {buf(1, (int64_t[]){4}, x), buf(1, (int64_t[]){4}, y)};
  const char *ip = "x: R.Tensor((4,), \"int32\"), y: R.Tensor((4,), \"int32\")";
  const char *fp = "x: R.Tensor((4,), \"float32\"), y: R.Tensor((4,), \"float32\")";
  CHECK(run_matches(call_in(ip, "R.floor_mod(x, y)"), ins, 2, buf(1, (int64_t[]){4}, NULL), floor_want, 0));
  CHECK(run_matches(call_in(ip, "R.mod(x, y)"), ins, 2, buf(1, (int64_t[]){4}, NULL), trunc_want, 0));
  CHECK(run_matches(call_in(fp, "R.floor_mod(x, y)"), ins, 2, buf(1, (int64_t[]){4}, NULL), floor_want, 1e-6));
  double fx[2] = {5.5, -5.5}, fy[2] = {2, 2}, fwant[2] = {1.5, -1.5};
  OpcBuf fins[2] = {buf(1, (int64_t[]){2}, fx), buf(1, (int64_t[]){2}, fy)};
  CHECK(run_matches(call_in("x: R.Tensor((2,), \"float32\"), y: R.Tensor((2,), \"float32\")", "R.mod(x, y)"), fins, 2,
                    buf(1, (int64_t[]){2}, NULL), fwant, 1e-6));
}

/* the compositions' constants (INT64_MIN, uint64 powers, infinity) print and read back */
static void test_round_trip(void) {
  static const struct { const char *params, *call; } cases[] = {
      {"x: R.Tensor((2,), \"int64\"), y: R.Tensor((2,), \"int64\")", "R.bitwise_or(x, y)"},
      {"x: R.Tensor((2,), \"uint64\"), y: R.Tensor((2,), \"uint64\")", "R.left_shift(x, y)"},
      {"x: R.Tensor((2,), \"int16\"), y: R.Tensor((2,), \"int16\")", "R.right_shift(x, y)"},
      {"x: R.Tensor((2,), \"float32\")", "R.isinf(x)"},
      {"x: R.Tensor((2,), \"float32\")", "R.acos(x)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    bool ok = round_trips(call_in(cases[i].params, cases[i].call));
    CHECK(ok);
    if (!ok) printf("    %s\n", cases[i].call);
  }
}

/* ---- errors ------------------------------------------------------------------------------------ */

static void test_errors(void) {
  const char *ff = "x: R.Tensor((2,), \"float32\"), y: R.Tensor((2,), \"float32\")";
  CHECK(refused(call_in(ff, "R.logical_and(x, y)"), false,
                "logical_and: expected a bool tensor, got float32"));
  CHECK(refused(call_in(ff, "R.bitwise_xor(x, y)"), false,
                "bitwise_xor: expected an integer tensor, got float32"));
  CHECK(refused(call_in("x: R.Tensor((2,), \"int32\"), y: R.Tensor((2,), \"int64\")", "R.left_shift(x, y)"), false,
                "left_shift: dtypes differ: x1 is int32, x2 is int64"));
  CHECK(refused(call_in("x: R.Tensor((2,), \"int32\")", "R.isnan(x)"), false,
                "isnan: expected a float tensor, got int32"));
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_unary_float);
  RUN(test_round_and_atan_edges);
  RUN(test_isnan_isinf);
  RUN(test_logical);
  RUN(test_bitwise);
  RUN(test_shift_out);
  RUN(test_remainders);
  RUN(test_round_trip);
  RUN(test_errors);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
