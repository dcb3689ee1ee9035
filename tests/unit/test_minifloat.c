/* test_minifloat.c - the 8- and 4-bit float formats and the sub-byte ints.
 *
 * The conversions (src/ir/minifloat_src.h) are checked against oracles
 * written here from the formats' definitions, not from that code:
 *   - decoding: every code of every 8-bit format is worked out as
 *     (-1)^s * 2^(e - bias) * (1.m) (or 0.m * 2^(1 - bias) for e = 0) in
 *     double, with the formats' special codes listed by hand;
 *   - encoding: the nearest code is found by brute force over all finite
 *     codes plus one code past the largest (the overflow), ties going to
 *     the even code; inputs are every finite value, the midpoints between
 *     neighbours and the floats just either side of each midpoint;
 *   - bit patterns from the specifications (largest values, smallest
 *     subnormals, NaN and infinity codes), E8M0's round-up and the float4
 *     conversions of the ONNX test data, written out by hand.
 * The dtype names read back as the dtypes they print. */
#include "check.h"
#include "mlcc/ir.h"

#include <float.h>
#include <math.h>

typedef struct Fmt {
  MlcDType t;
  int eb, mb, bias;
  const char *name;
  unsigned nan1, nan2; /* codes that are NaN (-1u: none) */
  unsigned inf;        /* the +infinity code (-1u: none) */
  double max;          /* the largest finite value */
  double min_sub;      /* the smallest positive value */
  bool fnuz;           /* 0x80 is NaN; no -0 */
} Fmt;

static const Fmt FMTS[] = {
    {MLC_DT(MLC_TC_F8E4M3FN, 8, 1), 4, 3, 7, "float8_e4m3fn", 0x7f, 0xff, -1u, 448, 0x1p-9, false},
    {MLC_DT(MLC_TC_F8E4M3FNUZ, 8, 1), 4, 3, 8, "float8_e4m3fnuz", 0x80, 0x80, -1u, 240, 0x1p-10, true},
    {MLC_DT(MLC_TC_F8E5M2, 8, 1), 5, 2, 15, "float8_e5m2", 0x7d, 0x7e, 0x7c, 57344, 0x1p-16, false},
    {MLC_DT(MLC_TC_F8E5M2FNUZ, 8, 1), 5, 2, 16, "float8_e5m2fnuz", 0x80, 0x80, -1u, 57344, 0x1p-17, true},
};
enum { NFMT = sizeof FMTS / sizeof *FMTS };

static bool is_nan_code(const Fmt *f, unsigned c) {
  if (f->fnuz) return c == 0x80;
  if (f->inf != -1u) return (c & 0x7f) > f->inf; /* e5m2: 0x7d..0x7f and their negatives */
  return (c & 0x7f) == 0x7f;
}

/* the value of code c from the definition (NaN and infinity excluded) */
static double ref_value(const Fmt *f, unsigned c) {
  unsigned s = c >> 7, e = (c >> f->mb) & ((1u << f->eb) - 1), m = c & ((1u << f->mb) - 1);
  double v = e ? ldexp(1.0 + ldexp(m, -f->mb), (int)e - f->bias) : ldexp(ldexp(m, -f->mb), 1 - f->bias);
  return s ? -v : v;
}

static void test_decode_all(void) {
  for (int k = 0; k < NFMT; k++) {
    const Fmt *f = &FMTS[k];
    for (unsigned c = 0; c < 256; c++) {
      float got = mlc_minifloat_decode(f->t, c);
      if (is_nan_code(f, c)) CHECK(isnan(got));
      else if (f->inf != -1u && (c & 0x7f) == f->inf) CHECK(isinf(got) && (got < 0) == (c >> 7));
      else {
        CHECK((double)got == ref_value(f, c));
        if (c == 0x80) CHECK(signbit(got));
      }
      if ((double)got != ref_value(f, c) && !isnan(got) && !isinf(got))
        printf("  %s: code 0x%02x gives %g, expected %g\n", f->name, c, got, ref_value(f, c));
    }
    CHECK(mlc_minifloat_max(f->t) == f->max);
    CHECK(mlc_minifloat_decode(f->t, 1) == f->min_sub);
  }
}

/* the nearest code to x > 0 (finite) by brute force; the code after the
 * largest finite one stands for overflow, and ties go to the even code */
static unsigned ref_encode_pos(const Fmt *f, double x, bool *overflow) {
  unsigned top = 0;
  for (unsigned c = 0; c < 0x80; c++)
    if (!is_nan_code(f, c) && !(f->inf != -1u && c >= f->inf)) top = c;
  double past = f->max + (f->max - ref_value(f, top - 1)); /* one more ulp */
  if (x >= past) {
    *overflow = true;
    return top + 1;
  }
  unsigned best = 0;
  double bd = INFINITY;
  for (unsigned c = 0; c <= top + 1; c++) {
    double v = c == top + 1 ? past : ref_value(f, c);
    double d = fabs(x - v);
    if (d < bd || (d == bd && (c & 1) == 0)) bd = d, best = c;
  }
  *overflow = best == top + 1;
  return best;
}

static void check_encode(const Fmt *f, float x) {
  unsigned got = mlc_minifloat_encode(f->t, x);
  bool over;
  unsigned mag = ref_encode_pos(f, fabs((double)x), &over), want;
  bool neg = signbit(x);
  if (over) want = f->inf != -1u ? (neg ? 0x80 : 0) | f->inf : f->fnuz ? 0x80 : (neg ? 0xff : 0x7f);
  else if (mag == 0 && f->fnuz) want = 0;
  else want = (neg ? 0x80 : 0) | mag;
  if (got != want) printf("  %s: %a encodes as 0x%02x, expected 0x%02x\n", f->name, (double)x, got, want);
  CHECK(got == want);
}

static void test_encode_sweep(void) {
  for (int k = 0; k < NFMT; k++) {
    const Fmt *f = &FMTS[k];
    double prev = 0;
    for (unsigned c = 0; c < 0x80; c++) {
      if (is_nan_code(f, c) || (f->inf != -1u && c >= f->inf)) break;
      double v = ref_value(f, c);
      double mid = c ? (prev + v) / 2 : 0;
      float probes[] = {(float)v, (float)mid, nextafterf((float)mid, 0), nextafterf((float)mid, INFINITY),
                        (float)(v * 1.0625)};
      for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
        check_encode(f, probes[i]);
        check_encode(f, -probes[i]);
      }
      prev = v;
    }
    /* beyond the largest value: the tie with the overflow code, and far */
    double ulp = f->max - ref_value(f, ref_encode_pos(f, f->max, &(bool){0}) - 1);
    float far[] = {(float)(f->max + ulp / 2), nextafterf((float)(f->max + ulp / 2), 0),
                   nextafterf((float)(f->max + ulp / 2), INFINITY), 1e30f, FLT_MAX, 0x1p-149f, 1e-30f};
    for (size_t i = 0; i < sizeof far / sizeof *far; i++) {
      check_encode(f, far[i]);
      check_encode(f, -far[i]);
    }
  }
}

/* bit patterns written out from the specifications */
static void test_spec_patterns(void) {
  const MlcDType e4 = FMTS[0].t, e4uz = FMTS[1].t, e5 = FMTS[2].t, e5uz = FMTS[3].t;
  CHECK(mlc_minifloat_encode(e4, 448) == 0x7e);
  CHECK(mlc_minifloat_encode(e4, -448) == 0xfe);
  CHECK(mlc_minifloat_encode(e4, 464) == 0x7e);       /* the tie with 480 goes to even 448 */
  CHECK(mlc_minifloat_encode(e4, 465) == 0x7f);       /* beyond: NaN (no infinity) */
  CHECK(mlc_minifloat_encode(e4, INFINITY) == 0x7f);
  CHECK(mlc_minifloat_encode(e4, -INFINITY) == 0xff);
  CHECK(mlc_minifloat_encode(e4, NAN) == 0x7f);
  CHECK(mlc_minifloat_encode(e4, 0x1p-10f) == 0x00); /* half the smallest subnormal: tie to even 0 */
  CHECK(mlc_minifloat_encode(e4, 0x1.8p-10f) == 0x01);
  CHECK(mlc_minifloat_encode(e4, -0.0f) == 0x80);
  CHECK(mlc_minifloat_encode(e4, 1.0f) == 0x38);
  CHECK(mlc_minifloat_encode(e4uz, 240) == 0x7f);
  CHECK(mlc_minifloat_encode(e4uz, 1.0f) == 0x40);
  CHECK(mlc_minifloat_encode(e4uz, -0.0f) == 0x00);   /* no negative zero */
  CHECK(mlc_minifloat_encode(e4uz, -0x1p-12f) == 0x00);
  CHECK(mlc_minifloat_encode(e4uz, INFINITY) == 0x80);
  CHECK(mlc_minifloat_encode(e4uz, NAN) == 0x80);
  CHECK(mlc_minifloat_encode(e5, 57344) == 0x7b);
  CHECK(mlc_minifloat_encode(e5, 61440) == 0x7c);     /* past the largest: infinity */
  CHECK(mlc_minifloat_encode(e5, -INFINITY) == 0xfc);
  CHECK(mlc_minifloat_encode(e5, 1.0f) == 0x3c);
  CHECK(mlc_minifloat_encode(e5uz, 1.0f) == 0x40);
  CHECK(mlc_minifloat_encode(e5uz, 57344) == 0x7f);
  CHECK(mlc_minifloat_encode(e5uz, 1e6f) == 0x80);
}

static void test_e8m0(void) {
  MlcDType t = MLC_DT(MLC_TC_F8E8M0, 8, 1);
  struct { float x; unsigned code; } rows[] = {
      {1.0f, 0x7f}, {1.5f, 0x80}, {0.75f, 0x7f}, {2.0f, 0x80}, {-4.0f, 0x81}, {0.0f, 0x00},
      /* a float subnormal has exponent field 0 and a fraction, so "up"
       * takes it to 0x01, as ONNX's reference does; but 2^-127 is code 0 */
      {0x1p-127f, 0x00}, {0x1.8p-128f, 0x01}, {0x1.8p-127f, 0x01}, {0x1p127f, 0xfe}, {0x1.000002p127f, 0xff},
      {INFINITY, 0xff}, {NAN, 0xff}, {3.0f, 0x81},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    unsigned got = mlc_minifloat_encode(t, rows[i].x);
    if (got != rows[i].code) printf("  e8m0: %a gives 0x%02x, expected 0x%02x\n", (double)rows[i].x, got, rows[i].code);
    CHECK(got == rows[i].code);
  }
  CHECK(mlc_minifloat_decode(t, 0x7f) == 1.0f);
  CHECK(mlc_minifloat_decode(t, 0x00) == 0x1p-127f);
  CHECK(mlc_minifloat_decode(t, 0xfe) == 0x1p127f);
  CHECK(isnan(mlc_minifloat_decode(t, 0xff)));
  CHECK(mlc_minifloat_max(t) == 0x1p127);
}

static void test_e2m1(void) {
  MlcDType t = MLC_DT(MLC_TC_F4E2M1, 4, 1);
  static const float values[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (unsigned c = 0; c < 16; c++) {
    float v = mlc_minifloat_decode(t, c);
    CHECK(v == (c & 8 ? -values[c & 7] : values[c & 7]));
  }
  /* the inputs and outputs of ONNX's test_cast_FLOAT_to_FLOAT4E2M1 */
  struct { float x; unsigned code; } rows[] = {
      {0.48f, 0x1}, {0.25f, 0x0}, {1.05f, 0x2}, {-3.5f, 0xe}, {-8, 0xf}, {9, 0x7}, {1e6f, 0x7},
      {1e-7f, 0x0}, {NAN, 0x8}, {INFINITY, 0x7}, {-INFINITY, 0xf}, {-4, 0xe}, {0.01f, 0x0}, {-0.0f, 0x8},
      {2.5f, 0x4}, {5, 0x6}, {0.75f, 0x2},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    unsigned got = mlc_minifloat_encode(t, rows[i].x);
    if (got != rows[i].code) printf("  e2m1: %a gives 0x%x, expected 0x%x\n", (double)rows[i].x, got, rows[i].code);
    CHECK(got == rows[i].code);
  }
}

/* the compiler holds a minifloat as the float it stands for and stores it
 * by encoding that float again: every code that is not NaN must survive */
static void test_round_trip(void) {
  MlcDType all[] = {FMTS[0].t, FMTS[1].t, FMTS[2].t, FMTS[3].t, MLC_DT(MLC_TC_F8E8M0, 8, 1),
                    MLC_DT(MLC_TC_F4E2M1, 4, 1)};
  for (size_t k = 0; k < sizeof all / sizeof *all; k++) {
    unsigned n = all[k].bits == 4 ? 16 : 256;
    for (unsigned c = 0; c < n; c++) {
      float v = mlc_minifloat_decode(all[k], c);
      if (isnan(v)) continue;
      CHECK(mlc_minifloat_encode(all[k], v) == c);
      CHECK(mlc_minifloat_round(all[k], v) == v);
    }
  }
}

static void test_names(void) {
  const char *names[] = {"float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
                         "float4_e2m1fn", "int4", "uint4", "int2", "uint2", "float8_e4m3fnx4"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    MlcDType t;
    char buf[32];
    CHECK(mlc_dtype_parse(names[i], &t));
    CHECK_STR(mlc_dtype_str(t, buf), names[i]);
    CHECK(mlc_dtype_bytes(mlc_dtype_elem(t)) == 1);
  }
  MlcDType t;
  CHECK(!mlc_dtype_parse("float8", &t));
  CHECK(!mlc_dtype_parse("float8_e4m3", &t));
  CHECK(!mlc_dtype_parse("float8_e4m3fnu", &t));
  CHECK(!mlc_dtype_parse("int3", &t));
  CHECK(mlc_dtype_parse("float8_e4m3fnuz", &t) && t.code == MLC_TC_F8E4M3FNUZ);
  CHECK(mlc_dtype_is_float(MLC_DT(MLC_TC_F4E2M1, 4, 1)));
}

int main(void) {
  RUN(test_decode_all);
  RUN(test_encode_sweep);
  RUN(test_spec_patterns);
  RUN(test_e8m0);
  RUN(test_e2m1);
  RUN(test_round_trip);
  RUN(test_names);
  return CHECK_DONE();
}
