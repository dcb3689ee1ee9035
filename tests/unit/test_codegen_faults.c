/* test_codegen_faults.c - integer division faults, compiled and interpreted.
 *
 * Division or remainder by zero, and the most negative value of a signed
 * dtype divided by -1, are run-time errors (mlcc/ir.h): a compiled kernel
 * returns a non-zero status with the message, the interpreter fails with
 * the same message, and neither process gets a signal.  The remainder of a
 * division by -1 is 0.  Each case is checked on the four operations and on
 * 8-, 32- and 64-bit signed and 32-bit unsigned elements, with the good
 * results compared against plain C here; also a division behind a guard
 * that keeps it from a zero divisor (no fault), one in a parallel loop, one
 * inside a workspace buffer the fault path must free (the sanitizer build
 * reports a leak), and a constant zero divisor, which the build refuses,
 * as it refuses a constant index outside a constant dimension. */
#include "check.h"
#include "mlcc/codegen.h"
#include "mlcc/interp.h"
#include "mlcc/runtime.h"
#include "mlcc/text.h"

#include "build_util.h"

#include <stdint.h>

enum { N = 16 };

static MlcCtx *ctx;
static char tmpdir[4096];

#define OPS(X)                                    \
  X(floordiv, "A[vi] // B[vi]")                   \
  X(floormod, "A[vi] % B[vi]")                    \
  X(truncdiv, "T.truncdiv(A[vi], B[vi])")         \
  X(truncmod, "T.truncmod(A[vi], B[vi])")
#define DTYPES(X) X(int8, int8_t, 8, 0) X(int32, int32_t, 32, 0) X(int64, int64_t, 64, 0) X(uint32, uint32_t, 32, 1)

typedef enum Op {
#define X(name, text) OP_##name,
  OPS(X)
#undef X
  OP_COUNT
} Op;
static const char *const op_names[] = {
#define X(name, text) #name,
    OPS(X)
#undef X
};
static const char *const op_texts[] = {
#define X(name, text) text,
    OPS(X)
#undef X
};

typedef struct DType { const char *name; int bits; bool is_unsigned; } DType;
static const DType dtypes[] = {
#define X(name, ct, bits, u) {#name, bits, u},
    DTYPES(X)
#undef X
};
enum { N_DTYPES = sizeof dtypes / sizeof dtypes[0] };

/* the module: one function per operation and dtype, plus the special ones */
static void module_text(MlcStrBuf *sb) {
  mlc_sb_puts(sb, "from tvm.script import ir as I\nfrom tvm.script import tir as T\n\n@I.ir_module\nclass Module:\n");
  for (int d = 0; d < N_DTYPES; d++)
    for (int o = 0; o < OP_COUNT; o++)
      mlc_sb_printf(sb,
                    "    @T.prim_func\n"
                    "    def %s_%s(A: T.Buffer((%d,), \"%s\"), B: T.Buffer((%d,), \"%s\"), C: T.Buffer((%d,), \"%s\")):\n"
                    "        for i in range(%d):\n"
                    "            with T.block(\"D\"):\n"
                    "                vi = T.axis.spatial(%d, i)\n"
                    "                C[vi] = %s\n",
                    op_names[o], dtypes[d].name, N, dtypes[d].name, N, dtypes[d].name, N, dtypes[d].name, N, N,
                    op_texts[o]);
  mlc_sb_printf(sb,
                "    @T.prim_func\n"
                "    def guarded(A: T.Buffer((%d,), \"int32\"), B: T.Buffer((%d,), \"int32\"), C: T.Buffer((%d,), \"int32\")):\n"
                "        for i in range(%d):\n"
                "            with T.block(\"D\"):\n"
                "                vi = T.axis.spatial(%d, i)\n"
                "                C[vi] = T.if_then_else(B[vi] != 0, A[vi] // B[vi], -7)\n"
                "    @T.prim_func\n"
                "    def parallel(A: T.Buffer((%d,), \"int32\"), B: T.Buffer((%d,), \"int32\"), C: T.Buffer((%d,), \"int32\")):\n"
                "        for i in T.parallel(%d):\n"
                "            with T.block(\"D\"):\n"
                "                vi = T.axis.spatial(%d, i)\n"
                "                C[vi] = A[vi] // B[vi]\n"
                "    @T.prim_func\n"
                "    def workspace(A: T.Buffer((%d,), \"int32\"), B: T.Buffer((%d,), \"int32\"), C: T.Buffer((%d,), \"int32\")):\n"
                "        W = T.alloc_buffer((20000,), \"int32\")\n"
                "        for i in range(%d):\n"
                "            with T.block(\"W\"):\n"
                "                vi = T.axis.spatial(%d, i)\n"
                "                W[vi * 1250] = A[vi] // B[vi]\n"
                "        for i in range(%d):\n"
                "            with T.block(\"C\"):\n"
                "                vi = T.axis.spatial(%d, i)\n"
                "                C[vi] = W[vi * 1250]\n",
                N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N);
}

/* the IR's meaning of a op b on values that are defined */
static int64_t reference(Op op, int64_t a, int64_t b, bool u) {
  if (u) return op == OP_floordiv || op == OP_truncdiv ? (int64_t)((uint64_t)a / (uint64_t)b) : (int64_t)((uint64_t)a % (uint64_t)b);
  if (b == -1) return op == OP_floordiv || op == OP_truncdiv ? -a : 0;
  int64_t q = a / b, r = a % b;
  bool adjust = r != 0 && ((r < 0) != (b < 0));
  switch (op) {
  case OP_truncdiv: return q;
  case OP_truncmod: return r;
  case OP_floordiv: return adjust ? q - 1 : q;
  case OP_floormod: return adjust ? r + b : r;
  case OP_COUNT: break;
  }
  return 0;
}

static int64_t get(const void *p, int bits, bool u, int i) {
  switch (bits) {
  case 8: return ((const int8_t *)p)[i];
  case 32: return u ? (int64_t)((const uint32_t *)p)[i] : ((const int32_t *)p)[i];
  default: return ((const int64_t *)p)[i];
  }
}
static void put(void *p, int bits, int i, int64_t v) {
  switch (bits) {
  case 8: ((int8_t *)p)[i] = (int8_t)v; return;
  case 32: ((int32_t *)p)[i] = (int32_t)(uint32_t)v; return;
  default: ((int64_t *)p)[i] = v; return;
  }
}

typedef struct Call {
  int64_t a[N], b[N];
  int bits;
  bool u;
  int64_t c_compiled[N], c_interp[N];
  char compiled_msg[512], interp_msg[512];
  int compiled_rc;
  bool interp_ok;
} Call;

/* f on a and b, compiled and interpreted, the results and messages in *c */
static void run_both(MlcrtModule *mod, const MlcPrimFunc *f, Call *c) {
  size_t esize = (size_t)c->bits / 8;
  int64_t shape[1] = {N};
  void *data[2][3];
  for (int k = 0; k < 2; k++)
    for (int p = 0; p < 3; p++) {
      data[k][p] = calloc(N, esize);
      for (int i = 0; i < N && p < 2; i++) put(data[k][p], c->bits, i, p == 0 ? c->a[i] : c->b[i]);
    }
  DLDataType dt = {c->u ? kDLUInt : kDLInt, (uint8_t)c->bits, 1};
  DLTensor t[3];
  MlcrtValue v[3];
  MlcInterpArg ia[3];
  for (int p = 0; p < 3; p++) {
    t[p] = (DLTensor){data[0][p], {kDLCPU, 0}, 1, dt, shape, NULL, 0};
    v[p].tensor = &t[p];
    ia[p] = (MlcInterpArg){.is_buffer = true, .data = data[1][p], .ndim = 1, .shape = shape};
  }
  const MlcrtFunc *fn = mlcrt_module_get_func(mod, f->name);
  c->compiled_rc = fn ? mlcrt_func_call(fn, v, 3) : -99;
  snprintf(c->compiled_msg, sizeof c->compiled_msg, "%s", c->compiled_rc ? mlcrt_last_error() : "");
  mlc_clear_error(ctx);
  c->interp_ok = mlc_interp_run(ctx, f, ia, 3);
  snprintf(c->interp_msg, sizeof c->interp_msg, "%s", c->interp_ok ? "" : mlc_error_msg(ctx));
  for (int i = 0; i < N; i++) {
    c->c_compiled[i] = get(data[0][2], c->bits, c->u, i);
    c->c_interp[i] = get(data[1][2], c->bits, c->u, i);
  }
  for (int k = 0; k < 2; k++)
    for (int p = 0; p < 3; p++) free(data[k][p]);
}

/* both refused the call with a message holding want and no result */
static bool both_fail(const Call *c, const char *fname, const char *want) {
  bool ok = c->compiled_rc != 0 && strstr(c->compiled_msg, want) && strstr(c->compiled_msg, fname) && !c->interp_ok &&
            strstr(c->interp_msg, want);
  if (!ok)
    printf("    %s: want \"%s\"; compiled %d \"%s\", interpreted \"%s\"\n", fname, want, c->compiled_rc,
           c->compiled_msg, c->interp_msg);
  return ok;
}

/* both ran and give what reference gives */
static bool both_match(const Call *c, const char *fname, Op op) {
  if (c->compiled_rc != 0 || !c->interp_ok) {
    printf("    %s: failed: compiled \"%s\", interpreted \"%s\"\n", fname, c->compiled_msg, c->interp_msg);
    return false;
  }
  for (int i = 0; i < N; i++) {
    int64_t want = reference(op, c->a[i], c->b[i], c->u);
    Call tmp = *c;
    put(&tmp.a[0], c->bits, 0, want); /* wrapped to the dtype, as stored */
    want = get(&tmp.a[0], c->bits, c->u, 0);
    if (c->c_compiled[i] != want || c->c_interp[i] != want) {
      printf("    %s: [%d] %lld op %lld: compiled %lld, interpreted %lld, want %lld\n", fname, i, (long long)c->a[i],
             (long long)c->b[i], (long long)c->c_compiled[i], (long long)c->c_interp[i], (long long)want);
      return false;
    }
  }
  return true;
}

static const MlcModule *module;
static MlcrtModule *compiled;

static const MlcPrimFunc *prim(const char *name) {
  const MlcFunc *f = mlc_module_find(module, mlc_intern(ctx, name));
  return f && f->kind == MLC_FUNC_PRIM ? f->prim : NULL;
}

static void setup(void) {
  MlcStrBuf text = {0};
  module_text(&text);
  module = bu_read_text(ctx, "faults.py", mlc_sb_cstr(&text));
  mlc_vec_free(&text);
  compiled = module ? bu_build_and_load(ctx, module, tmpdir, "faults", NULL) : NULL;
}

/* ordinary operands (every sign, no zero divisor): the results of plain C */
static void test_defined_values(void) {
  CHECK(compiled != NULL);
  for (int d = 0; compiled && d < N_DTYPES; d++)
    for (int o = 0; o < OP_COUNT; o++) {
      char name[64];
      snprintf(name, sizeof name, "%s_%s", op_names[o], dtypes[d].name);
      Call c = {.bits = dtypes[d].bits, .u = dtypes[d].is_unsigned};
      for (int i = 0; i < N; i++) {
        c.a[i] = (i * 37) % 101 - (c.u ? 0 : 50);
        c.b[i] = c.u ? i % 7 + 1 : (i % 9) - 4 == 0 ? 3 : (i % 9) - 4;
      }
      if (!c.u) c.a[1] = dtypes[d].bits == 64 ? INT64_MIN + 1 : -(INT64_C(1) << (dtypes[d].bits - 1)) + 1, c.b[1] = -1;
      run_both(compiled, prim(name), &c);
      CHECK(both_match(&c, name, (Op)o));
    }
}

/* a zero divisor anywhere fails the call, in all four operations */
static void test_zero_divisor(void) {
  CHECK(compiled != NULL);
  for (int d = 0; compiled && d < N_DTYPES; d++)
    for (int o = 0; o < OP_COUNT; o++) {
      char name[64];
      snprintf(name, sizeof name, "%s_%s", op_names[o], dtypes[d].name);
      Call c = {.bits = dtypes[d].bits, .u = dtypes[d].is_unsigned};
      for (int i = 0; i < N; i++) c.a[i] = i, c.b[i] = i == 11 ? 0 : 2;
      run_both(compiled, prim(name), &c);
      CHECK(both_fail(&c, name, MLC_DIV_BY_ZERO_MSG));
    }
}

/* the most negative value by -1: the quotient fails, the remainder is 0 */
static void test_most_negative_by_minus_one(void) {
  CHECK(compiled != NULL);
  for (int d = 0; compiled && d < N_DTYPES; d++) {
    if (dtypes[d].is_unsigned) continue;
    for (int o = 0; o < OP_COUNT; o++) {
      char name[64];
      snprintf(name, sizeof name, "%s_%s", op_names[o], dtypes[d].name);
      Call c = {.bits = dtypes[d].bits};
      int64_t min = dtypes[d].bits == 64 ? INT64_MIN : -(INT64_C(1) << (dtypes[d].bits - 1));
      for (int i = 0; i < N; i++) c.a[i] = i == 5 ? min : i, c.b[i] = i == 5 ? -1 : 3;
      run_both(compiled, prim(name), &c);
      if (o == OP_floordiv || o == OP_truncdiv) CHECK(both_fail(&c, name, MLC_DIV_OVERFLOW_MSG));
      else CHECK(both_match(&c, name, (Op)o));
    }
  }
}

/* a guard that keeps the division from its zero divisors: no fault */
static void test_guarded_division(void) {
  CHECK(compiled != NULL);
  if (!compiled) return;
  Call c = {.bits = 32};
  for (int i = 0; i < N; i++) c.a[i] = 100 - i, c.b[i] = i % 3;
  run_both(compiled, prim("guarded"), &c);
  CHECK(c.compiled_rc == 0 && c.interp_ok);
  for (int i = 0; i < N; i++) {
    int64_t want = c.b[i] ? reference(OP_floordiv, c.a[i], c.b[i], false) : -7;
    CHECK(c.c_compiled[i] == want && c.c_interp[i] == want);
  }
}

/* a fault inside a parallel loop and inside a workspace buffer's extent */
static void test_fault_in_parallel_and_workspace(void) {
  CHECK(compiled != NULL);
  static const char *const names[] = {"parallel", "workspace"};
  for (int k = 0; compiled && k < 2; k++) {
    Call c = {.bits = 32};
    for (int i = 0; i < N; i++) c.a[i] = i, c.b[i] = i == N - 1 ? 0 : 1;
    run_both(compiled, prim(names[k]), &c);
    CHECK(both_fail(&c, names[k], MLC_DIV_BY_ZERO_MSG));
    for (int i = 0; i < N; i++) c.b[i] = 1;
    run_both(compiled, prim(names[k]), &c);
    CHECK(both_match(&c, names[k], OP_floordiv));
  }
}

/* a constant zero divisor is refused when building, naming the function */
static void test_constant_zero_divisor(void) {
  const MlcModule *m = bu_read_text(ctx, "zero.py",
                                    "from tvm.script import tir as T\n"
                                    "@T.prim_func\n"
                                    "def by_zero(A: T.Buffer((4,), \"int32\"), C: T.Buffer((4,), \"int32\")):\n"
                                    "    for i in range(4):\n"
                                    "        C[i] = T.truncmod(A[i], 0)\n");
  CHECK(m != NULL);
  if (!m) return;
  char so[8192];
  snprintf(so, sizeof so, "%s/zero.so", tmpdir);
  mlc_clear_error(ctx);
  CHECK(!mlc_build_shared(ctx, m, so, NULL));
  const char *msg = mlc_error_msg(ctx);
  CHECK(msg && strstr(msg, "by_zero") && strstr(msg, "division by the constant zero"));
}

/* a constant index outside a constant dimension, stored or loaded, is
 * refused when building, naming the buffer, the index and the block */
static void test_constant_index_out_of_bounds(void) {
  static const char *const bodies[2] = {
      "            A[1000000000, 0] = T.float32(1)\n",
      "            C[0] = A[3, -1]\n",
  };
  static const char *const wants[2] = {"store to buffer 'A' at the constant index 1000000000",
                                       "load from buffer 'A' at the constant index -1"};
  for (int k = 0; k < 2; k++) {
    char text[1024];
    snprintf(text, sizeof text,
             "from tvm.script import tir as T\n"
             "@T.prim_func\n"
             "def oob(A: T.Buffer((4, 8), \"float32\"), C: T.Buffer((4,), \"float32\")):\n"
             "    for i in range(4):\n"
             "        with T.block(\"S\"):\n"
             "%s",
             bodies[k]);
    const MlcModule *m = bu_read_text(ctx, "oob.py", text);
    CHECK(m != NULL);
    if (!m) continue;
    char so[8192];
    snprintf(so, sizeof so, "%s/oob.so", tmpdir);
    mlc_clear_error(ctx);
    CHECK(!mlc_build_shared(ctx, m, so, NULL));
    const char *msg = mlc_error_msg(ctx);
    if (!msg || !strstr(msg, wants[k]) || !strstr(msg, "block 'S'")) printf("    message: %s\n", msg ? msg : "(none)");
    CHECK(msg && strstr(msg, wants[k]) && strstr(msg, "block 'S'"));
  }
}

int main(void) {
  ctx = mlc_ctx_new();
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-faults")) {
    printf("FAIL test_codegen_faults: cannot create a temporary directory\n");
    return 1;
  }
  setup();
  RUN(test_defined_values);
  RUN(test_zero_divisor);
  RUN(test_most_negative_by_minus_one);
  RUN(test_guarded_division);
  RUN(test_fault_in_parallel_and_workspace);
  RUN(test_constant_zero_divisor);
  RUN(test_constant_index_out_of_bounds);
  if (compiled) mlcrt_module_free(compiled);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
