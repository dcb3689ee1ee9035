/* test_codegen_math.c - the generated C's own float32 exp, erf, tanh and
 * sigmoid (src/codegen/c_math.c) against libm.
 *
 * Each function is compiled through the C generator twice, as a scalar
 * loop and as an 8-lane vectorized one, and run on a dense sweep of
 * inputs: every 4099th float bit pattern (both signs, all exponents,
 * subnormals and NaN payloads included), every float of a stretch around
 * each polynomial's switch point and each overflow or underflow threshold,
 * and the special values.  The oracle is libm's double function rounded to
 * float; each result must be within the function's documented bound in
 * ulps (docs/design-notes.md), NaN for NaN, and exactly the infinity or
 * zero libm gives where it gives one.  The checker is itself checked: a
 * result nudged past the bound, a lost NaN and a wrong infinity must fail.
 * The float64 versions stay libm's, and the float32 ones call no libm. */
#include "build_util.h"
#include "check.h"

#include <float.h>
#include <math.h>

enum { N = 1 << 21, DENSE = 2048 };

/* intrinsic, bound in ulps, double reference */
static double ref_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
#define C_MATH_ULP(X)        \
  X(exp, 1.0, exp)           \
  X(erf, 3.0, erf)           \
  X(tanh, 1.5, tanh)         \
  X(sigmoid, 3.0, ref_sigmoid)

static MlcCtx *ctx;
static char tmpdir[4096];
static MlcrtModule *mod;
static float *in, *out;

static float bits_f32(uint32_t x) {
  float f;
  memcpy(&f, &x, 4);
  return f;
}

/* where the functions change method or their results leave float's range */
static const float anchors[] = {0.0f,      0.625f,    0.875f,   3.83f,     3.92f,     1.0f,
                                88.7228f,  -87.3365f, -103.97f, -88.7228f, 44.3614f, 9.0f};

static void fill_inputs(void) {
  static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                     0xffc00000u, 0x7f800001u, 0x00000001u, 0x80000001u, 0x00800000u,
                                     0x80800000u, 0x7f7fffffu, 0xff7fffffu, 0x007fffffu, 0x3f800000u};
  size_t k = 0;
  for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) in[k++] = bits_f32(special[i]);
  for (size_t a = 0; a < sizeof anchors / sizeof anchors[0]; a++) {
    float lo = anchors[a], hi = anchors[a];
    for (int d = 0; d < DENSE; d++) {
      in[k++] = lo = nextafterf(lo, -INFINITY);
      in[k++] = hi = nextafterf(hi, INFINITY);
    }
  }
  for (uint32_t b = 0; k < N; b += 4099u) in[k++] = bits_f32(b);
}

/* |got - want| in ulps of want's binade, counting float's subnormal step
 * as the ulp below FLT_MIN; infinite for a wrong NaN or infinity */
static double ulp_error(float got, double want) {
  if (isnan(want) || isnan(got)) return isnan(want) && isnan(got) ? 0 : INFINITY;
  float wf = (float)want;
  if (isinf(wf) || isinf(got)) return got == wf ? 0 : INFINITY;
  if (want == 0) return got == 0 ? 0 : INFINITY;
  int e;
  frexp(want, &e);
  return fabs((double)got - want) / ldexp(1.0, e - 24 < -149 ? -149 : e - 24);
}

/* the worst error of out against ref over the sweep, and where */
static double worst(double (*ref)(double), size_t *at) {
  double w = 0;
  for (size_t k = 0; k < N; k++) {
    double d = ulp_error(out[k], ref((double)in[k]));
    if (d > w || (isinf(d) && !isinf(w))) w = d, *at = k;
  }
  return w;
}

static bool run(const char *name) {
  int64_t shape[1] = {N};
  DLTensor t[2] = {{.data = in, .device = {kDLCPU, 0}, .ndim = 1, .dtype = {kDLFloat, 32, 1}, .shape = shape},
                   {.data = out, .device = {kDLCPU, 0}, .ndim = 1, .dtype = {kDLFloat, 32, 1}, .shape = shape}};
  MlcrtValue v[2] = {{.tensor = &t[0]}, {.tensor = &t[1]}};
  const MlcrtFunc *fn = mod ? mlcrt_module_get_func(mod, name) : NULL;
  memset(out, 0, (size_t)N * sizeof *out);
  if (!fn || mlcrt_func_call(fn, v, 2) != 0) {
    printf("    %s: %s\n", name, fn ? mlcrt_last_error() : "not built");
    return false;
  }
  return true;
}

static void check_fn(const char *name, double bound, double (*ref)(double)) {
  char vname[64];
  snprintf(vname, sizeof vname, "%s_v8", name);
  const char *forms[2] = {name, vname};
  for (int f = 0; f < 2 && !check__failed_now; f++) {
    CHECK(run(forms[f]));
    if (check__failed_now) return;
    size_t at = 0;
    double w = worst(ref, &at);
    if (w > bound)
      printf("    %s: %.3g ulp at %a (got %a, libm %a), bound %g\n", forms[f], w, in[at], out[at],
             (float)ref(in[at]), bound);
    CHECK(w <= bound);
  }
}

#define X(fn, bound, ref) \
  static void test_##fn(void) { check_fn(#fn, bound, ref); }
C_MATH_ULP(X)
#undef X

/* the checker fails a result past the bound, a lost NaN, a wrong infinity */
static void test_checker_fails(void) {
  CHECK(run("exp"));
  if (check__failed_now) return;
  size_t at = 0, k = 100000; /* a finite normal result */
  CHECK(worst(exp, &at) <= 1.0);
  CHECK(isfinite(out[k]) && out[k] > FLT_MIN);
  out[k] = nextafterf(nextafterf(out[k], INFINITY), INFINITY);
  CHECK(worst(exp, &at) > 1.0 && at == k);
  CHECK(run("exp"));
  out[4] = 0.0f; /* in[4] is a NaN */
  CHECK(isnan(in[4]) && isinf(worst(exp, &at)) && at == 4);
  CHECK(run("exp"));
  out[2] = FLT_MAX; /* exp(inf) */
  CHECK(isinf(worst(exp, &at)) && at == 2);
}

/* float32 calls the file's own functions and no libm; float64 keeps libm */
static void test_generated_text(const MlcModule *m) {
  MlcStrBuf c = {0};
  CHECK(m && mlc_codegen_c(ctx, m, &c));
  const char *s = mlc_sb_cstr(&c);
  CHECK(strstr(s, "mlc_erff(") && strstr(s, "mlc_tanhf(") && strstr(s, "mlc_sigmoidf(") && strstr(s, "mlc_expf("));
  CHECK(!strstr(s, " erff(") && !strstr(s, " tanhf(") && !strstr(s, " expf(") && !strstr(s, "(expf("));
  CHECK(strstr(s, "erf(") && strstr(s, "= erf(") != NULL);
  mlc_vec_free(&c);
}

static void add_funcs(MlcStrBuf *sb, const char *fn) {
  mlc_sb_printf(sb,
                "    @T.prim_func\n"
                "    def %s(A: T.Buffer((%d,), \"float32\"), B: T.Buffer((%d,), \"float32\")):\n"
                "        for i in range(%d):\n"
                "            with T.block(\"b\"):\n"
                "                vi = T.axis.spatial(%d, i)\n"
                "                B[vi] = T.%s(A[vi])\n\n",
                fn, N, N, N, N, fn);
  mlc_sb_printf(sb,
                "    @T.prim_func\n"
                "    def %s_v8(A: T.Buffer((%d,), \"float32\"), B: T.Buffer((%d,), \"float32\")):\n"
                "        for i0 in range(%d):\n"
                "            for i1 in T.vectorized(8):\n"
                "                with T.block(\"b\"):\n"
                "                    vi = T.axis.spatial(%d, i0 * 8 + i1)\n"
                "                    B[vi] = T.%s(A[vi])\n\n",
                fn, N, N, N / 8, N, fn);
}

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-math")) {
    printf("FAIL setup: cannot create a temporary directory\n");
    return 1;
  }
  ctx = mlc_ctx_new();
  MlcStrBuf text = {0};
  mlc_sb_puts(&text, "@I.ir_module\nclass Module:\n");
#define X(fn, bound, ref) add_funcs(&text, #fn);
  C_MATH_ULP(X)
#undef X
  mlc_sb_puts(&text,
              "    @T.prim_func\n"
              "    def erf64(A: T.Buffer((16,), \"float64\"), B: T.Buffer((16,), \"float64\")):\n"
              "        for i in range(16):\n"
              "            with T.block(\"b\"):\n"
              "                vi = T.axis.spatial(16, i)\n"
              "                B[vi] = T.erf(A[vi])\n");
  const MlcModule *m = bu_read_text(ctx, "math.py", mlc_sb_cstr(&text));
  mod = m ? bu_build_and_load(ctx, m, tmpdir, "math", NULL) : NULL;
  in = malloc((size_t)N * sizeof *in);
  out = malloc((size_t)N * sizeof *out);
  if (!in || !out) {
    printf("FAIL setup: out of memory\n");
    return 1;
  }
  fill_inputs();
#define X(fn, bound, ref) RUN(test_##fn);
  C_MATH_ULP(X)
#undef X
  RUN(test_checker_fails);
  RUN_AS("test_generated_text", test_generated_text(m));
  free(in);
  free(out);
  mlc_vec_free(&text);
  if (mod) mlcrt_module_free(mod);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
