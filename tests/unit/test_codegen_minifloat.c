/* test_codegen_minifloat.c - the 8- and 4-bit floats and the sub-byte
 * integers in the C target, against the reference interpreter.
 *
 * The C target stores a minifloat as its code in a byte and computes it as
 * float, each result rounded back to the format (c_emit.h); the interpreter
 * holds it as a double rounded the same way.  Every step is one rounding of
 * a value both sides compute exactly (casts, products and sums of a few
 * minifloats are exact in float), so the stored codes must be equal, byte
 * for byte, with any NaN code matching any NaN code.  The minifloat inputs
 * are random bytes, so every code, NaN and infinity included, goes in;
 * float32 inputs span the formats' ranges and beyond.  Sub-byte integer
 * results wrap at their width on both sides. */
#include "build_util.h"
#include "check.h"
#include "dual_run.h"
#include "mlcc/interp.h"

#include <math.h>

enum { N = 512 };

static MlcCtx *ctx;
static char tmpdir[4096];
static MlcrtModule *mod;
static const MlcModule *module;

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint32_t next32(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng >> 32);
}

/* prim funcs for one format F: a cast from float32 and back, arithmetic
 * in F, a sum in F */
#define FORMAT_FUNCS(F)                                                                                           \
  "    @T.prim_func\n"                                                                                            \
  "    def cast_" F "(A: T.Buffer((512,), \"float32\"), B: T.Buffer((512,), \"" F "\"), C: T.Buffer((512,), \"float32\")):\n" \
  "        for i in range(512):\n"                                                                                \
  "            with T.block(\"b\"):\n"                                                                            \
  "                vi = T.axis.spatial(512, i)\n"                                                                 \
  "                B[vi] = T.Cast(\"" F "\", A[vi])\n"                                                            \
  "                C[vi] = T.Cast(\"float32\", B[vi])\n"                                                          \
  "\n"                                                                                                            \
  "    @T.prim_func\n"                                                                                            \
  "    def arith_" F "(A: T.Buffer((512,), \"" F "\"), B: T.Buffer((512,), \"" F "\"), C: T.Buffer((512,), \"" F "\")):\n" \
  "        for i in range(512):\n"                                                                                \
  "            with T.block(\"c\"):\n"                                                                            \
  "                vi = T.axis.spatial(512, i)\n"                                                                 \
  "                C[vi] = A[vi] * B[vi] + A[vi] - T." F "(0.5)\n"                                                \
  "\n"                                                                                                            \
  "    @T.prim_func\n"                                                                                            \
  "    def sum_" F "(A: T.Buffer((16, 32), \"" F "\"), C: T.Buffer((16,), \"" F "\")):\n"                       \
  "        for i, k in T.grid(16, 32):\n"                                                                         \
  "            with T.block(\"r\"):\n"                                                                            \
  "                vi, vk = T.axis.remap(\"SR\", [i, k])\n"                                                       \
  "                with T.init():\n"                                                                              \
  "                    C[vi] = T." F "(0)\n"                                                                      \
  "                C[vi] = C[vi] + A[vi, vk]\n"                                                                   \
  "\n"

static const char PRIMS[] =
    "@I.ir_module\n"
    "class Module:\n"
    FORMAT_FUNCS("float8_e4m3fn") FORMAT_FUNCS("float8_e4m3fnuz") FORMAT_FUNCS("float8_e5m2")
    FORMAT_FUNCS("float8_e5m2fnuz") FORMAT_FUNCS("float4_e2m1fn")
    "    @T.prim_func\n"
    "    def cast_float8_e8m0fnu(A: T.Buffer((512,), \"float32\"), B: T.Buffer((512,), \"float8_e8m0fnu\"), C: T.Buffer((512,), \"float32\")):\n"
    "        for i in range(512):\n"
    "            with T.block(\"b\"):\n"
    "                vi = T.axis.spatial(512, i)\n"
    "                B[vi] = T.Cast(\"float8_e8m0fnu\", A[vi])\n"
    "                C[vi] = T.Cast(\"float32\", B[vi])\n"
    "\n"
    "    @T.prim_func\n"
    "    def ints(A: T.Buffer((512,), \"float32\"), B: T.Buffer((512,), \"int4\"), C: T.Buffer((512,), \"uint2\"), D: T.Buffer((512,), \"int8\")):\n"
    "        for i in range(512):\n"
    "            with T.block(\"b\"):\n"
    "                vi = T.axis.spatial(512, i)\n"
    "                B[vi] = T.Cast(\"int4\", A[vi]) + T.int4(5)\n"
    "                C[vi] = T.Cast(\"uint2\", A[vi]) * T.uint2(3)\n"
    "                D[vi] = T.Cast(\"int8\", B[vi]) - T.Cast(\"int8\", C[vi])\n";

/* a float32 input: random magnitudes from 2^-20 to 2^20 (both signs, some
 * integers for the integer casts), and the specials */
static float float_input(size_t k) {
  static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 448, 464, 480, 57344, 61440, 6, 7,
                                  0x1p-127f, 0x1p127f, 3.0e38f, -1e-30f};
  if (k < sizeof special / sizeof *special) return special[k];
  uint32_t r = next32();
  if (r % 4 == 0) return (float)((int)(r >> 8) % 41 - 20);
  float m = 1.0f + (float)(r >> 9) / 8388608.0f;
  return (r & 1 ? -1 : 1) * ldexpf(m, (int)((r >> 1) % 41) - 20);
}

/* random codes for the 8- and 4-bit floats, zeros for other 1-byte types,
 * float_input for float32 */
static void fill_minifloat(MlcDType t, void *data, size_t count) {
  for (size_t k = 0; k < count; k++) {
    if (mlc_dtype_is_minifloat(t)) ((uint8_t *)data)[k] = (uint8_t)(next32() >> (t.bits == 4 ? 28 : 24));
    else if (mlc_dtype_bytes(t) == 1) ((uint8_t *)data)[k] = 0;
    else ((float *)data)[k] = float_input(k);
  }
}

/* every buffer, compiled against interpreted: minifloat codes equal (any
 * NaN matching any NaN), float32 bits equal (NaN matching NaN), bytes of
 * the integer types equal */
static bool same_buffers(const DualArgs *a) {
  for (int i = 0; i < a->n; i++) {
    const MlcBuffer *b = a->f->params[i].buf;
    MlcDType t = mlc_dtype_elem(b->dtype);
    for (size_t k = 0; k < a->count[i]; k++) {
      bool ok;
      unsigned g = 0, w = 0;
      if (mlc_dtype_bytes(t) == 1) {
        g = ((const uint8_t *)a->compiled[i])[k], w = ((const uint8_t *)a->interp[i])[k];
        ok = g == w || (mlc_dtype_is_minifloat(t) && isnan(mlc_minifloat_decode(t, g)) &&
                        isnan(mlc_minifloat_decode(t, w)));
      } else {
        float fg = ((const float *)a->compiled[i])[k], fw = ((const float *)a->interp[i])[k];
        memcpy(&g, &fg, 4), memcpy(&w, &fw, 4);
        ok = g == w || (isnan(fg) && isnan(fw));
      }
      if (!ok) {
        printf("    %s: '%s'[%zu] is 0x%x compiled, 0x%x interpreted\n", a->f->name, b->name, k, g, w);
        return false;
      }
    }
  }
  return true;
}

static void check_prim(const char *name) {
  DualArgs a;
  CHECK(mod && dual_make(ctx, module, name, fill_minifloat, 0, &a));
  if (check__failed_now) return;
  CHECK(dual_run(ctx, mod, &a) && same_buffers(&a));
  dual_free(&a);
}

#define FORMAT_TESTS(F)                                             \
  static void test_cast_##F(void) { check_prim("cast_" #F); }      \
  static void test_arith_##F(void) { check_prim("arith_" #F); }    \
  static void test_sum_##F(void) { check_prim("sum_" #F); }
FORMAT_TESTS(float8_e4m3fn)
FORMAT_TESTS(float8_e4m3fnuz)
FORMAT_TESTS(float8_e5m2)
FORMAT_TESTS(float8_e5m2fnuz)
FORMAT_TESTS(float4_e2m1fn)
static void test_cast_float8_e8m0fnu(void) { check_prim("cast_float8_e8m0fnu"); }
static void test_sub_byte_ints(void) { check_prim("ints"); }

/* the stored codes of the cast, checked once against the library's
 * encoder (itself checked against the definitions in test_minifloat) */
static void test_cast_codes(void) {
  DualArgs a;
  CHECK(mod && dual_make(ctx, module, "cast_float8_e4m3fn", fill_minifloat, 0, &a));
  if (check__failed_now) return;
  CHECK(dual_run(ctx, mod, &a));
  MlcDType t = MLC_DT(MLC_TC_F8E4M3FN, 8, 1);
  for (size_t k = 0; k < N && !check__failed_now; k++)
    CHECK(((const uint8_t *)a.compiled[1])[k] == mlc_minifloat_encode(t, ((const float *)a.compiled[0])[k]));
  dual_free(&a);
}

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-minifloat")) {
    printf("FAIL setup: cannot create a temporary directory\n");
    return 1;
  }
  ctx = mlc_ctx_new();
  module = bu_read_text(ctx, "minifloat.py", PRIMS);
  mod = module ? bu_build_and_load(ctx, module, tmpdir, "minifloat", NULL) : NULL;
#define RUN_FORMAT(F) RUN(test_cast_##F); RUN(test_arith_##F); RUN(test_sum_##F);
  RUN_FORMAT(float8_e4m3fn)
  RUN_FORMAT(float8_e4m3fnuz)
  RUN_FORMAT(float8_e5m2)
  RUN_FORMAT(float8_e5m2fnuz)
  RUN_FORMAT(float4_e2m1fn)
  RUN(test_cast_float8_e8m0fnu);
  RUN(test_sub_byte_ints);
  RUN(test_cast_codes);
  if (mod) mlcrt_module_free(mod);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
