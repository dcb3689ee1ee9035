/* test_codegen_dims.c - kernels whose buffer dims are arithmetic on their
 * symbolic sizes.
 *
 * A reshape kernel flatten(X: (n, m), Y: (n * m,)) is compiled, called
 * through the runtime with consistent shapes and compared with the
 * reference interpreter on the same input; a call whose Y does not hold
 * n * m elements is refused by the kernel's own check, naming the
 * expression, and writes nothing.  A kernel whose only dim is such an
 * expression over sizes no buffer binds is refused by the code generator. */
#include "check.h"
#include "mlcc/codegen.h"
#include "mlcc/interp.h"
#include "mlcc/runtime.h"
#include "mlcc/text.h"

#include "build_util.h"

static MlcCtx *ctx;
static char tmpdir[2048];

static const char *const flatten_text =
    "from tvm.script import ir as I\n"
    "from tvm.script import tir as T\n\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def flatten(x: T.handle, y: T.handle):\n"
    "        n, m = T.int64(), T.int64()\n"
    "        X = T.match_buffer(x, (n, m), \"float32\")\n"
    "        Y = T.match_buffer(y, (n * m,), \"float32\")\n"
    "        for i in range(n * m):\n"
    "            with T.block(\"Y\"):\n"
    "                vi = T.axis.spatial(n * m, i)\n"
    "                Y[vi] = X[vi // m, vi % m] * T.float32(2)\n";

static const char *const unbound_text =
    "from tvm.script import ir as I\n"
    "from tvm.script import tir as T\n\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def scale(x: T.handle, y: T.handle):\n"
    "        n, m = T.int64(), T.int64()\n"
    "        X = T.match_buffer(x, (n * m,), \"float32\")\n"
    "        Y = T.match_buffer(y, (n * m,), \"float32\")\n"
    "        for i in range(n * m):\n"
    "            with T.block(\"Y\"):\n"
    "                vi = T.axis.spatial(n * m, i)\n"
    "                Y[vi] = X[vi] + T.float32(n)\n";

static void test_expression_dim_bound_and_checked(void) {
  const MlcModule *m = bu_read_text(ctx, "flatten.py", flatten_text);
  MlcrtModule *mod = m ? bu_build_and_load(ctx, m, tmpdir, "flatten", NULL) : NULL;
  const MlcrtFunc *fn = mod ? mlcrt_module_get_func(mod, "flatten") : NULL;
  CHECK(fn != NULL);
  if (!fn) return;
  float x[12], y[12], want[12];
  for (int i = 0; i < 12; i++) x[i] = (float)i - 5.5f, y[i] = -1, want[i] = -1;
  int64_t sx[2] = {3, 4}, sy[1] = {12};
  DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sx, NULL, 0};
  DLTensor ty = {y, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, sy, NULL, 0};
  DLTensor *args[2] = {&tx, &ty};
  CHECK(mlcrt_func_call_tensors(fn, args, 2) == 0);
  MlcInterpArg ia[2] = {{.is_buffer = true, .data = x, .ndim = 2, .shape = sx},
                        {.is_buffer = true, .data = want, .ndim = 1, .shape = sy}};
  CHECK(mlc_interp_run(ctx, m->funcs[0].prim, ia, 2));
  CHECK(memcmp(y, want, sizeof y) == 0);
  /* Y of 10 elements: not n * m */
  int64_t short_y[1] = {10};
  for (int i = 0; i < 12; i++) y[i] = -1;
  ty.shape = short_y;
  CHECK(mlcrt_func_call_tensors(fn, args, 2) != 0);
  CHECK(strstr(mlcrt_last_error(), "(n * m)") != NULL);
  bool untouched = true;
  for (int i = 0; i < 12; i++) untouched &= y[i] == -1;
  CHECK(untouched);
  mlcrt_module_free(mod);
}

static void test_unbindable_dim_refused(void) {
  const MlcModule *m = bu_read_text(ctx, "scale.py", unbound_text);
  CHECK(m != NULL);
  MlcStrBuf c = {0};
  mlc_clear_error(ctx);
  CHECK(m && !mlc_codegen_c(ctx, m, &c));
  MlcStrBuf msg = {0};
  mlc_format_error(ctx, &msg);
  CHECK(strstr(mlc_sb_cstr(&msg), "dimension 0 of buffer 'X'") && strstr(mlc_sb_cstr(&msg), "cannot bind"));
  mlc_vec_free(&msg);
  mlc_vec_free(&c);
}

int main(void) {
  ctx = mlc_ctx_new();
  if (!bu_make_tmpdir(tmpdir, sizeof tmpdir, "mlcc-dims")) {
    printf("FAIL test_codegen_dims: cannot make a scratch directory\n");
    return 1;
  }
  RUN(test_expression_dim_bound_and_checked);
  RUN(test_unbindable_dim_refused);
  bu_remove_dir(tmpdir);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
