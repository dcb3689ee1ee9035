/* test_codegen_bf16.c - bfloat16 in the C target.
 *
 * The C target stores bfloat16 as its bits and computes it as float, each
 * bfloat16 result rounded back (c_emit.h).  Prim funcs over bfloat16
 * buffers are built once into a shared object, called through the runtime
 * and compared with the reference interpreter on the same inputs; a model
 * with a bfloat16 input, constant and output is built with the model path
 * and compared with plain C.
 *
 * How close: where each stored result is one rounding of an exact value --
 * sums and products of bfloat16 values are exact in float (8-bit
 * significands), casts round once -- the compiled code and the interpreter
 * round the same value the same way, so the bits must be equal.  That holds
 * step by step along a reduction too, since every step's store rounds in
 * both.  Only math functions differ: the C code calls expf, the interpreter
 * rounds exp's double result, and the two floats may sit an ulp apart, on
 * either side of a bfloat16 rounding boundary: one bfloat16 ulp.
 *
 * The edge cases of the rounding (ties to even both ways, overflow to
 * infinity, subnormals, signed zero, NaN) are also checked against bits
 * written out by hand, which tests the interpreter's rounding as much as
 * the generated code's. */
#include "build_util.h"
#include "check.h"
#include "dual_run.h"
#include "mlcc/interp.h"
#include "mlcc/transform.h"

#include <math.h>


static MlcCtx *ctx;
static char tmpdir[4096];
static MlcrtModule *mod;
static const MlcModule *module;

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static float frand(void) { /* in [-2, 2) */
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(rng >> 11) / 9007199254740992.0 * 4.0 - 2.0);
}

static uint32_t f32_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  return x;
}

static float bits_f32(uint32_t x) {
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static float bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }

/* the nearest bfloat16, ties to even, written here from the definition:
 * compare the dropped half with exactly half an ulp */
static uint16_t f32_to_bf16(float f) {
  uint32_t x = f32_bits(f);
  if (isnan(f)) return (uint16_t)((x >> 16) | 0x40);
  uint32_t kept = x >> 16, dropped = x & 0xffff;
  if (dropped > 0x8000 || (dropped == 0x8000 && (kept & 1))) kept++;
  return (uint16_t)kept;
}

static bool is_nan_bf16(uint16_t h) { return (h & 0x7f80) == 0x7f80 && (h & 0x7f); }

/* distance in ulps between two bfloat16 values (-0 and +0 are 0 apart) */
static int ulps(uint16_t a, uint16_t b) {
  int ia = a & 0x8000 ? -(int)(a & 0x7fff) : (int)a, ib = b & 0x8000 ? -(int)(b & 0x7fff) : (int)b;
  return abs(ia - ib);
}

/* ---- the prim funcs ------------------------------------------------------------------- */

static const char PRIMS[] =
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def add(A: T.Buffer((256,), \"bfloat16\"), B: T.Buffer((256,), \"bfloat16\"), C: T.Buffer((256,), \"bfloat16\")):\n"
    "        for i in range(256):\n"
    "            with T.block(\"c\"):\n"
    "                vi = T.axis.spatial(256, i)\n"
    "                C[vi] = A[vi] + B[vi]\n"
    "\n"
    "    @T.prim_func\n"
    "    def mul(A: T.Buffer((256,), \"bfloat16\"), B: T.Buffer((256,), \"bfloat16\"), C: T.Buffer((256,), \"bfloat16\")):\n"
    "        for i in range(256):\n"
    "            with T.block(\"c\"):\n"
    "                vi = T.axis.spatial(256, i)\n"
    "                C[vi] = A[vi] * B[vi]\n"
    "\n"
    "    @T.prim_func\n"
    "    def exp_par(A: T.Buffer((16, 16), \"bfloat16\"), C: T.Buffer((16, 16), \"bfloat16\")):\n"
    "        for i in T.parallel(16):\n"
    "            for j in range(16):\n"
    "                with T.block(\"c\"):\n"
    "                    vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                    C[vi, vj] = T.exp(A[vi, vj])\n"
    "\n"
    "    @T.prim_func\n"
    "    def cast_rt(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"bfloat16\"), C: T.Buffer((64,), \"float32\")):\n"
    "        for i in range(64):\n"
    "            with T.block(\"b\"):\n"
    "                vi = T.axis.spatial(64, i)\n"
    "                B[vi] = T.Cast(\"bfloat16\", A[vi])\n"
    "        for i in range(64):\n"
    "            with T.block(\"c\"):\n"
    "                vi = T.axis.spatial(64, i)\n"
    "                C[vi] = T.Cast(\"float32\", B[vi])\n"
    "\n"
    "    @T.prim_func\n"
    "    def sum_f32(A: T.Buffer((16, 64), \"bfloat16\"), C: T.Buffer((16,), \"float32\")):\n"
    "        for i, k in T.grid(16, 64):\n"
    "            with T.block(\"r\"):\n"
    "                vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "                with T.init():\n"
    "                    C[vi] = T.float32(0)\n"
    "                C[vi] = C[vi] + T.Cast(\"float32\", A[vi, vk])\n"
    "\n"
    "    @T.prim_func\n"
    "    def sum_bf16(A: T.Buffer((16, 64), \"bfloat16\"), C: T.Buffer((16,), \"bfloat16\")):\n"
    "        for i, k in T.grid(16, 64):\n"
    "            with T.block(\"r\"):\n"
    "                vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "                with T.init():\n"
    "                    C[vi] = T.bfloat16(0)\n"
    "                C[vi] = C[vi] + A[vi, vk]\n"
    "\n"
    "    @T.prim_func\n"
    "    def axpy_vec(A: T.Buffer((64,), \"bfloat16\"), B: T.Buffer((64,), \"bfloat16\"), C: T.Buffer((64,), \"bfloat16\"), D: T.Buffer((64,), \"float32\")):\n"
    "        for i0 in range(16):\n"
    "            for i1 in T.vectorized(4):\n"
    "                with T.block(\"c\"):\n"
    "                    vi = T.axis.spatial(64, i0 * 4 + i1)\n"
    "                    C[vi] = A[vi] * T.bfloat16(0.1) + B[vi]\n"
    "                    D[vi] = T.Cast(\"float32\", A[vi]) * T.float32(2)\n"
    "\n"
    "    @T.prim_func\n"
    "    def scale(A: T.Buffer((64,), \"bfloat16\"), C: T.Buffer((64,), \"bfloat16\"), s: T.bfloat16):\n"
    "        for i in range(64):\n"
    "            with T.block(\"c\"):\n"
    "                vi = T.axis.spatial(64, i)\n"
    "                C[vi] = A[vi] * s\n";

/* random inputs: floats in [-2, 2), bfloat16 ones rounded from such floats;
 * a scalar param gets 0.3, which is no bfloat16 (both sides round it) */
static void fill_bf16(MlcDType t, void *data, size_t count) {
  for (size_t k = 0; k < count; k++) {
    float f = frand();
    if (t.code == MLC_TC_BFLOAT) ((uint16_t *)data)[k] = f32_to_bf16(f);
    else ((float *)data)[k] = f;
  }
}

/* every buffer of a, compiled against interpreted: bfloat16 within
 * max_ulps, float32 bit for bit (NaN matching NaN) */
static bool same_buffers(const DualArgs *a, int max_ulps) {
  for (int i = 0; i < a->n; i++) {
    const MlcBuffer *b = a->f->params[i].buf;
    for (size_t k = 0; b && k < a->count[i]; k++) {
      bool ok;
      double got, want;
      if (b->dtype.code == MLC_TC_BFLOAT) {
        uint16_t g = ((const uint16_t *)a->compiled[i])[k], w = ((const uint16_t *)a->interp[i])[k];
        ok = is_nan_bf16(g) ? is_nan_bf16(w) : !is_nan_bf16(w) && ulps(g, w) <= max_ulps;
        got = bf16_to_f32(g), want = bf16_to_f32(w);
      } else {
        float g = ((const float *)a->compiled[i])[k], w = ((const float *)a->interp[i])[k];
        ok = isnan(g) ? isnan(w) : f32_bits(g) == f32_bits(w);
        got = g, want = w;
      }
      if (!ok) {
        printf("    %s: '%s'[%zu] is %.9g compiled, %.9g interpreted\n", a->f->name, b->name, k, got, want);
        return false;
      }
    }
  }
  return true;
}

static void check_prim(const char *name, int max_ulps) {
  DualArgs a;
  CHECK(mod && dual_make(ctx, module, name, fill_bf16, 0.3, &a));
  if (check__failed_now) return;
  CHECK(dual_run(ctx, mod, &a) && same_buffers(&a, max_ulps));
  dual_free(&a);
}

/* sums and products of bfloat16 values are exact in float: one rounding */
static void test_add(void) { check_prim("add", 0); }
static void test_mul(void) { check_prim("mul", 0); }
/* expf against exp rounded: one bfloat16 ulp (see the top); a parallel
 * loop, so the closure carries the buffers as their bits */
static void test_exp_parallel(void) { check_prim("exp_par", 1); }
/* every step's store rounds in both: equal bits along the reduction */
static void test_sum_into_f32(void) { check_prim("sum_f32", 0); }
static void test_sum_into_bf16(void) { check_prim("sum_bf16", 0); }
/* the scalar param is rounded to bfloat16 on entry, as the interpreter does */
static void test_scalar_param(void) { check_prim("scale", 0); }

/* A vectorized loop: the vectorizer makes vectors of 4 bfloat16 lanes,
 * which the C target writes lane by lane; the literal 0.1 is rounded to a
 * bfloat16 first, and a*0.1 is rounded before + b (no fused multiply-add
 * even though the build contracts). */
static void test_vectorized(void) {
  MlcStrBuf c = {0};
  const MlcModule *one = mlc_module_new(ctx, "m", (MlcFunc *)mlc_module_find(module, mlc_intern(ctx, "axpy_vec")), 1,
                                        module->attrs);
  mlc_clear_error(ctx);
  CHECK(one && mlc_codegen_c(ctx, one, &c));
  /* vector values of bfloat16 exist after lowering and are stored lane by lane */
  CHECK(strstr(mlc_sb_cstr(&c), "mlc_lanes[4]") && strstr(mlc_sb_cstr(&c), "mlc_bf16_narrow(mlc_lanes[mlc_l])"));
  mlc_vec_free(&c);
  check_prim("axpy_vec", 0);
}

/* Casts float32 -> bfloat16 -> float32 on random values and on the edges
 * of the rounding, whose bfloat16 bits are written out here. */
static void test_cast_roundtrip(void) {
  static const struct { uint32_t in; uint16_t want; } edge[] = {
      {0x3f800000u, 0x3f80}, /* 1 */
      {0x3f808000u, 0x3f80}, /* a tie between 0x3f80 and 0x3f81: to even, down */
      {0x3f818000u, 0x3f82}, /* a tie between 0x3f81 and 0x3f82: to even, up */
      {0x3f808001u, 0x3f81}, /* just above the tie */
      {0x3f7fffffu, 0x3f80}, /* just under 1: up, carrying into the exponent */
      {0xbf818000u, 0xbf82}, /* negative tie */
      {0x7f7fffffu, 0x7f80}, /* the largest float: rounds to infinity */
      {0xff7fffffu, 0xff80},
      {0x7f800000u, 0x7f80}, /* infinities stay */
      {0xff800000u, 0xff80},
      {0x80000000u, 0x8000}, /* -0 keeps its sign */
      {0x00008000u, 0x0000}, /* a subnormal tie: to even, down */
      {0x00018000u, 0x0002}, /* a subnormal tie: to even, up */
      {0x007fffffu, 0x0080}, /* the largest subnormal: up to the smallest normal */
      {0x7fc00000u, 0x7fc0}, /* a quiet NaN */
  };
  enum { N_EDGE = sizeof edge / sizeof edge[0] };
  DualArgs a;
  CHECK(mod && dual_make(ctx, module, "cast_rt", fill_bf16, 0.3, &a));
  if (check__failed_now) return;
  for (int k = 0; k < N_EDGE; k++) ((float *)a.interp[0])[k] = ((float *)a.compiled[0])[k] = bits_f32(edge[k].in);
  CHECK(dual_run(ctx, mod, &a) && same_buffers(&a, 0));
  const uint16_t *bits = a.compiled[1];
  const float *back = a.compiled[2];
  for (int k = 0; k < N_EDGE && !check__failed_now; k++) {
    bool ok = edge[k].want == 0x7fc0 ? is_nan_bf16(bits[k]) && isnan(back[k])
                                     : bits[k] == edge[k].want && f32_bits(back[k]) == (uint32_t)edge[k].want << 16;
    if (!ok) printf("    0x%08x became 0x%04x (want 0x%04x)\n", edge[k].in, bits[k], edge[k].want);
    CHECK(ok);
  }
  /* the random rest against the rounding written here */
  for (int k = N_EDGE; k < 64 && !check__failed_now; k++)
    CHECK(bits[k] == f32_to_bf16(((const float *)a.compiled[0])[k]));
  dual_free(&a);
}

/* ---- a model ------------------------------------------------------------------------------- */

/* y = (x + x) * w in bfloat16 with a bfloat16 constant w, and y as float32 */
static const char MODEL[] =
    "@I.ir_module\n"
    "class Module:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((2, 4), \"bfloat16\")):\n"
    "        with R.dataflow():\n"
    "            w = R.const([[0.1, -0.2, 0.3, 1.5], [2.0, -3.25, 0.7, 100.1]], \"bfloat16\")\n"
    "            a = R.add(x, x)\n"
    "            y = R.multiply(a, w)\n"
    "            z = R.astype(y, \"float32\")\n"
    "            R.output(y, z)\n"
    "        return (y, z)\n";

static void test_model(void) {
  static const float wv[8] = {0.1f, -0.2f, 0.3f, 1.5f, 2.0f, -3.25f, 0.7f, 100.1f};
  const MlcModule *m = bu_read_text(ctx, "model.py", MODEL);
  mlc_clear_error(ctx);
  m = m ? mlc_graph_pipeline(ctx, m, NULL, MLC_PASS_PLAN_MEMORY, NULL, NULL, NULL, NULL) : NULL;
  if (!m) bu_print_error(ctx, "pipeline");
  char dir[8192];
  snprintf(dir, sizeof dir, "%s/model", tmpdir);
  mlc_clear_error(ctx);
  bool built = m && mlc_build_model(ctx, m, dir, NULL, NULL);
  if (m && !built) bu_print_error(ctx, "build");
  MlcrtModel *model = NULL;
  CHECK(built && mlcrt_model_load(dir, &model) == 0);
  if (built && !model) printf("    load: %s\n", mlcrt_last_error());
  uint16_t x[8], want[8];
  for (int i = 0; i < 8; i++) {
    x[i] = f32_to_bf16(frand());
    float sum = bf16_to_f32(f32_to_bf16(bf16_to_f32(x[i]) + bf16_to_f32(x[i])));
    want[i] = f32_to_bf16(sum * bf16_to_f32(f32_to_bf16(wv[i])));
  }
  if (model) {
    int64_t shape[2] = {2, 4};
    DLTensor in = {x, {kDLCPU, 0}, 2, {kDLBfloat, 16, 1}, shape, NULL, 0};
    DLTensor *out[2] = {NULL, NULL};
    CHECK(mlcrt_model_run(model, (DLTensor *const[]){&in}, 1, out, 2) == 0);
    if (!check__failed_now) {
      CHECK(out[0]->dtype.code == kDLBfloat && out[0]->dtype.bits == 16 && out[0]->ndim == 2);
      CHECK(out[1]->dtype.code == kDLFloat && out[1]->dtype.bits == 32);
    }
    for (int i = 0; i < 8 && !check__failed_now; i++) {
      uint16_t got = ((const uint16_t *)out[0]->data)[i];
      float got32 = ((const float *)out[1]->data)[i];
      if (got != want[i] || f32_bits(got32) != (uint32_t)want[i] << 16)
        printf("    y[%d] is 0x%04x (%g as float32), want 0x%04x\n", i, got, got32, want[i]);
      CHECK(got == want[i] && f32_bits(got32) == (uint32_t)want[i] << 16);
    }
    /* a float32 tensor for the bfloat16 input is refused, naming it */
    DLTensor wrong = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
    CHECK(mlcrt_model_run(model, (DLTensor *const[]){&wrong}, 1, out, 2) != 0 && strstr(mlcrt_last_error(), "'x'"));
  }
  mlcrt_model_free(model);
  bu_remove_dir(dir);
}

int main(void) {
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-bf16")) {
    printf("FAIL setup: cannot create a temporary directory\n");
    return 1;
  }
  ctx = mlc_ctx_new();
  module = bu_read_text(ctx, "bf16.py", PRIMS);
  mod = module ? bu_build_and_load(ctx, module, tmpdir, "bf16", NULL) : NULL;
  RUN(test_add);
  RUN(test_mul);
  RUN(test_exp_parallel);
  RUN(test_cast_roundtrip);
  RUN(test_sum_into_f32);
  RUN(test_sum_into_bf16);
  RUN(test_vectorized);
  RUN(test_scalar_param);
  RUN(test_model);
  if (mod) mlcrt_module_free(mod);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
