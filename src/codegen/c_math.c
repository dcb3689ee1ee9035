/* c_math.c - float32 exp, erf, tanh and sigmoid for the generated C.
 *
 * libm's expf/erff/tanhf are out-of-line calls: a loop that calls one per
 * element does not vectorize, and a GELU or softmax kernel spends most of
 * its time in them.  These are small static inline functions of plain float
 * arithmetic instead -- a range reduction, a polynomial, selects for the
 * special cases, no branch and no call -- so GCC inlines them and
 * vectorizes the loops (and the lane loops of vector expressions) around
 * them.  Each is written into the generated file only when a kernel uses
 * it.  float64 keeps libm, and so does the interpreter, the oracle the
 * tests compare with.
 *
 * The polynomials are least-squares fits (relative error, on Chebyshev
 * nodes) of our own, rounded to float.  Maximum errors against libm's
 * double functions (docs/design-notes.md): exp 0.99 ulp, erf 2.76, tanh
 * 1.33, sigmoid 2.83; tests/unit/test_codegen_math.c checks the bounds of
 * its C_MATH_ULP.
 *
 * exp: x = n ln2 + r with |r| <= ln2/2 (n rounded by the 1.5 * 2^23 trick,
 * ln2 split in two so n * ln2_hi is exact), e^r = 1 + r + r^2 P(r), and
 * 2^n applied as two factors 2^(n/2) 2^(n - n/2), each a normal float, so
 * that results below FLT_MIN round once, to the subnormal libm gives, and
 * results above FLT_MAX overflow to infinity by themselves.  x is clamped
 * first to [-104, 89], past which the answer is 0 or infinity anyway (a NaN
 * passes the clamps and stays NaN through the arithmetic; the integer work
 * on its bits is unsigned, so nothing overflows).
 * erf: |x| < 0.875: x P(x^2); above: 1 - exp(Q(|x|) - x^2), Q fitting
 * log(erfc(a)) + a^2 on [0.875, 3.92] (erf rounds to 1 beyond); the sign
 * is copied from x.
 * tanh: |x| < 0.625: x + x^3 P(x^2); above: 1 - 2 / (e^(2|x|) + 1), which
 * goes to 1 when the exponential overflows.
 * sigmoid: with e = e^-|x|, 1 / (1 + e), or e / (1 + e) for x < 0, so that
 * very negative x give the tiny (and subnormal) results rather than 0. */
#include "c_emit.h"

#include <string.h>

/* |x|, and a select of two computed values through a lane mask: a C ?:
 * whose arm computes something (a product that may overflow) is a branch to
 * GCC where the target has no masked operations (AVX2), and the loop around
 * it stays scalar.  A comparison with NaN is false: the select takes b. */
static const char bits_text[] =
    "static inline float mlc_absf(float x) {\n"
    "  union { float f; uint32_t u; } a = {x};\n"
    "  a.u &= 0x7fffffffu;\n"
    "  return a.f;\n"
    "}\n"
    "static inline float mlc_pickf(int c, float a, float b) {\n"
    "  union { float f; uint32_t u; } x = {a}, y = {b};\n"
    "  uint32_t m = 0u - (uint32_t)c;\n"
    "  x.u = (x.u & m) | (y.u & ~m);\n"
    "  return x.f;\n"
    "}\n"
    "static inline float mlc_copysignf(float m, float x) {\n"
    "  union { float f; uint32_t u; } a = {m}, b = {x};\n"
    "  a.u = (a.u & 0x7fffffffu) | (b.u & 0x80000000u);\n"
    "  return a.f;\n"
    "}\n";

static const char exp_text[] =
    "static inline float mlc_expf(float x) {\n"
    "  float c = mlc_pickf(x > 89.0f, 89.0f, x);\n"
    "  c = mlc_pickf(c < -104.0f, -104.0f, c);\n"
    "  float t = c * 1.44269504f + 12582912.0f;\n"
    "  float n = t - 12582912.0f;\n"
    "  union { float f; uint32_t u; } tb = {t};\n"
    "  int32_t k = (int32_t)(tb.u - 0x4b400000u);\n"
    "  float r = c - n * 0.693359375f;\n"
    "  r = r - n * -2.12194440e-4f;\n"
    "  float p = 1.984951959e-04f;\n"
    "  p = p * r + 1.393359038e-03f;\n"
    "  p = p * r + 8.333372883e-03f;\n"
    "  p = p * r + 4.166646674e-02f;\n"
    "  p = p * r + 1.666666716e-01f;\n"
    "  p = p * r + 5.000000000e-01f;\n"
    "  float y = 1.0f + (r + r * r * p);\n"
    "  int32_t k1 = k >> 1;\n"
    "  union { uint32_t u; float f; } s1 = {((uint32_t)k1 + 127u) << 23}, s2 = {((uint32_t)(k - k1) + 127u) << 23};\n"
    "  return y * s1.f * s2.f;\n"
    "}\n";

static const char erf_text[] =
    "static inline float mlc_erff(float x) {\n"
    "  float a = mlc_absf(x);\n"
    "  float z = a * a;\n"
    "  float p = 8.714059368e-05f;\n"
    "  p = p * z - 8.220517775e-04f;\n"
    "  p = p * z + 5.207621492e-03f;\n"
    "  p = p * z - 2.686196938e-02f;\n"
    "  p = p * z + 1.128374115e-01f;\n"
    "  p = p * z - 3.761263788e-01f;\n"
    "  p = p * z + 1.128379226e+00f;\n"
    "  float c = mlc_pickf(a > 3.92f, 3.92f, a);\n"
    "  float t = c - 2.3975f;\n"
    "  float g = -6.698299870e-08f;\n"
    "  g = g * t - 3.113748814e-09f;\n"
    "  g = g * t + 2.012386631e-06f;\n"
    "  g = g * t - 1.459525174e-05f;\n"
    "  g = g * t + 8.658491424e-05f;\n"
    "  g = g * t - 4.708805645e-04f;\n"
    "  g = g * t + 2.393911825e-03f;\n"
    "  g = g * t - 1.179199945e-02f;\n"
    "  g = g * t + 5.958627909e-02f;\n"
    "  g = g * t - 3.645343184e-01f;\n"
    "  g = g * t - 1.520064116e+00f;\n"
    "  float big = 1.0f - mlc_expf(g - c * c);\n"
    "  return mlc_copysignf(mlc_pickf(a < 0.875f, a * p, big), x);\n"
    "}\n";

static const char tanh_text[] =
    "static inline float mlc_tanhf(float x) {\n"
    "  float a = mlc_absf(x);\n"
    "  float z = a * a;\n"
    "  float p = 2.308036899e-03f;\n"
    "  p = p * z - 8.359977975e-03f;\n"
    "  p = p * z + 2.177495882e-02f;\n"
    "  p = p * z - 5.396023393e-02f;\n"
    "  p = p * z + 1.333331019e-01f;\n"
    "  p = p * z - 3.333333433e-01f;\n"
    "  float small = a + a * z * p;\n"
    "  float big = 1.0f - 2.0f / (mlc_expf(a + a) + 1.0f);\n"
    "  return mlc_copysignf(mlc_pickf(a < 0.625f, small, big), x);\n"
    "}\n";

static const char sigmoid_text[] =
    "static inline float mlc_sigmoidf(float x) {\n"
    "  float a = mlc_absf(x);\n"
    "  float e = mlc_expf(-a);\n"
    "  float s = 1.0f / (1.0f + e);\n"
    "  return mlc_pickf(x < 0.0f, e * s, s);\n"
    "}\n";

/* intrinsic, C name, helpers it calls (written first; "mlc_bits" is
 * bits_text), text */
#define C_MATH_FUNCS(X)                                                      \
  X(MLC_INTRIN_EXP, "mlc_expf", "mlc_bits", NULL, exp_text)                  \
  X(MLC_INTRIN_ERF, "mlc_erff", "mlc_expf", "mlc_bits", erf_text)            \
  X(MLC_INTRIN_TANH, "mlc_tanhf", "mlc_expf", "mlc_bits", tanh_text)         \
  X(MLC_INTRIN_SIGMOID, "mlc_sigmoidf", "mlc_expf", "mlc_bits", sigmoid_text)

typedef struct CMathFn {
  MlcIntrin op;
  const char *name, *dep1, *dep2, *text;
} CMathFn;

static const CMathFn math_fns[] = {
#define X(op, name, d1, d2, text) {op, name, d1, d2, text},
    C_MATH_FUNCS(X)
#undef X
};

static bool write_once(CEmit *e, const char *name) {
  const char *key = mlc_intern(e->ctx, name);
  if (mlc_map_has(e->helper_done, key)) return false;
  mlc_map_put(e->helper_done, key, (void *)key);
  return true;
}

/* name, after the helpers it calls */
static void write_fn(CEmit *e, const char *name) {
  if (!strcmp(name, "mlc_bits")) {
    if (write_once(e, name)) mlc_sb_puts(e->helpers, bits_text);
    return;
  }
  for (size_t i = 0; i < sizeof math_fns / sizeof math_fns[0]; i++) {
    const CMathFn *f = &math_fns[i];
    if (strcmp(f->name, name) != 0) continue;
    if (f->dep1) write_fn(e, f->dep1);
    if (f->dep2) write_fn(e, f->dep2);
    if (write_once(e, f->name)) mlc_sb_puts(e->helpers, f->text);
    return;
  }
}

const char *c_math_f32(CEmit *e, MlcIntrin op) {
  for (size_t i = 0; i < sizeof math_fns / sizeof math_fns[0]; i++)
    if (math_fns[i].op == op) {
      write_fn(e, math_fns[i].name);
      return math_fns[i].name;
    }
  return NULL;
}
