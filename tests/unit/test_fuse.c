/* test_fuse.c - op patterns read from tensor programs, the basis of fusion.
 *
 * Each op call is legalized into its prim func and the pattern read from
 * the TIR must be what the op computes, worked out by hand from its
 * definition: the elementwise, broadcast, injective, reduction and
 * conv/matmul cases, a gather (an index read from data: opaque) and a
 * function without blocks.  (Fusion itself is tested by the golden cases in
 * tests/golden/passes/fuse_*: structure, and for fuse_tir the fused
 * function's values against its members run by the interpreter.) */
#include "op_check.h"

#include "mlcc/arith.h"

static MlcCtx *ctx;

static MlcOpPattern op_pattern(const char *params, const char *op) {
  mlc_clear_error(ctx);
  const MlcGExpr *c = opc_call_in(ctx, params, op);
  MlcPrimFunc *f = c ? mlc_op_to_prim_func(ctx, c, "f") : NULL;
  if (!f) opc_print_error(ctx);
  return f ? mlc_prim_func_pattern(f) : MLC_PATTERN_COUNT;
}

#define CHECK_PATTERN(params, op, want)                                                                       \
  do {                                                                                                        \
    MlcOpPattern got_ = op_pattern(params, op);                                                               \
    if (got_ != (want))                                                                                       \
      printf("    %s: %s, expected %s\n", op, got_ < MLC_PATTERN_COUNT ? mlc_op_pattern_names[got_] : "(none)", \
             mlc_op_pattern_names[want]);                                                                     \
    CHECK(got_ == (want));                                                                                    \
  } while (0)

static const char M48[] = "x: R.Tensor((4, 8), \"float32\"), y: R.Tensor((4, 8), \"float32\"), v: R.Tensor((8,), \"float32\")";

static void test_elementwise_and_broadcast(void) {
  CHECK_PATTERN(M48, "R.add(x, y)", MLC_PATTERN_ELEMWISE);
  CHECK_PATTERN(M48, "R.nn.relu(x)", MLC_PATTERN_ELEMWISE);
  CHECK_PATTERN(M48, "R.exp(x)", MLC_PATTERN_ELEMWISE);
  CHECK_PATTERN(M48, "R.add(x, v)", MLC_PATTERN_BROADCAST);
  CHECK_PATTERN(M48, "R.multiply(v, x)", MLC_PATTERN_BROADCAST);
}

static void test_injective(void) {
  CHECK_PATTERN(M48, "R.permute_dims(x)", MLC_PATTERN_INJECTIVE);
  CHECK_PATTERN(M48, "R.reshape(x, (8, 4))", MLC_PATTERN_INJECTIVE);
  CHECK_PATTERN("x: R.Tensor((1, 2, 4, 4), \"float32\")", "R.nn.pad(x, pad_width=[0, 0, 0, 0, 1, 1, 1, 1])",
                MLC_PATTERN_INJECTIVE);
}

static void test_reductions(void) {
  CHECK_PATTERN(M48, "R.sum(x, axis=[1])", MLC_PATTERN_REDUCE);
  CHECK_PATTERN(M48, "R.max(x, axis=[0])", MLC_PATTERN_REDUCE);
  CHECK_PATTERN(M48, "R.nn.softmax(x)", MLC_PATTERN_REDUCE);
  CHECK_PATTERN("x: R.Tensor((1, 2, 8, 8), \"float32\")", "R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2])",
                MLC_PATTERN_REDUCE);
}

static void test_out_ewise_fusable(void) {
  CHECK_PATTERN("a: R.Tensor((4, 8), \"float32\"), b: R.Tensor((8, 3), \"float32\")", "R.matmul(a, b)",
                MLC_PATTERN_OUT_EWISE_FUSABLE);
  CHECK_PATTERN("x: R.Tensor((1, 3, 8, 8), \"float32\"), w: R.Tensor((4, 3, 3, 3), \"float32\")",
                "R.nn.conv2d(x, w, padding=[1, 1, 1, 1])", MLC_PATTERN_OUT_EWISE_FUSABLE);
}

static void test_opaque(void) {
  CHECK_PATTERN("x: R.Tensor((4, 8), \"float32\"), i: R.Tensor((3,), \"int64\")", "R.take(x, i, axis=0)",
                MLC_PATTERN_OPAQUE);
  /* no blocks: nothing to read a pattern from */
  static const char NO_BLOCKS[] =
      "@I.ir_module\nclass Module:\n"
      "    @T.prim_func\n"
      "    def f(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
      "        for i in range(8):\n"
      "            B[i] = A[i] + T.float32(1)\n";
  MlcModule *m = mlc_read_module(ctx, "f.py", NO_BLOCKS, strlen(NO_BLOCKS));
  const MlcFunc *f = m ? mlc_module_find(m, mlc_intern(ctx, "f")) : NULL;
  CHECK(f && mlc_prim_func_pattern(f->prim) == MLC_PATTERN_OPAQUE);
  CHECK(mlc_prim_func_pattern(NULL) == MLC_PATTERN_OPAQUE);
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_elementwise_and_broadcast);
  RUN(test_injective);
  RUN(test_reductions);
  RUN(test_out_ewise_fusable);
  RUN(test_opaque);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
