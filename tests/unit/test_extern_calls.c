/* test_extern_calls.c - calls out of a tensor program (T.call_extern,
 * T.call_packed, T.address_of): the interpreter refuses to run them with a
 * message naming the function; the C generator declares an extern once from
 * the call's types and refuses a second call with other types; T.call_packed
 * of whole parameter buffers runs the runtime's registered function (checked
 * against plain C; a missing or failing function fails the call with its
 * message) and refuses other arguments; a mutator rebuilding a call keeps
 * its result dtype.  (Built and run against the interpreter: the
 * schedule golden case tensorize_tmm16.) */
#include "check.h"
#include "mlcc/codegen.h"
#include "mlcc/interp.h"
#include "mlcc/runtime.h"
#include "mlcc/text.h"

#include "build_util.h"

static MlcCtx *ctx;

static const char *const head =
    "from tvm.script import ir as I\n"
    "from tvm.script import tir as T\n\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def f(A: T.Buffer((4, 4), \"float32\"), n: T.int32):\n"
    "        for i in range(4):\n";

static const MlcModule *module_with(const char *body) {
  char text[4096];
  snprintf(text, sizeof text, "%s%s", head, body);
  return bu_read_text(ctx, "f.py", text);
}

static bool error_has(const char *want) {
  MlcStrBuf sb = {0};
  mlc_format_error(ctx, &sb);
  bool ok = strstr(mlc_sb_cstr(&sb), want) != NULL;
  if (!ok) printf("    error \"%s\" lacks \"%s\"\n", mlc_sb_cstr(&sb), want);
  mlc_vec_free(&sb);
  return ok;
}

static void test_interpreter_refuses_extern_calls(void) {
  const MlcModule *m = module_with("            T.evaluate(T.call_extern(\"int32\", \"kern\", A.access_ptr(\"rw\"), n))\n");
  CHECK(m != NULL);
  if (!m) return;
  float a[16] = {0};
  int64_t shape[2] = {4, 4};
  MlcInterpArg args[2] = {{.is_buffer = true, .data = a, .ndim = 2, .shape = shape}, {.i = 3}};
  mlc_clear_error(ctx);
  CHECK(!mlc_interp_run(ctx, m->funcs[0].prim, args, 2));
  CHECK(error_has("T.call_extern of kern cannot be interpreted"));
}

static void test_c_declares_the_extern_once(void) {
  const MlcModule *m = module_with("            T.evaluate(T.call_extern(\"int32\", \"kern\", A.access_ptr(\"rw\"), n))\n"
                                   "            T.evaluate(T.call_extern(\"int32\", \"kern\", T.address_of(A[i, 1]), n + 1))\n");
  MlcStrBuf c = {0};
  mlc_clear_error(ctx);
  CHECK(m && mlc_codegen_c(ctx, m, &c));
  const char *decl = "extern int32_t kern(float *, int32_t);";
  const char *first = strstr(mlc_sb_cstr(&c), decl);
  CHECK(first && !strstr(first + 1, decl));
  CHECK(strstr(mlc_sb_cstr(&c), "kern((&A[") != NULL);
  mlc_vec_free(&c);
}

static void test_c_refuses_conflicting_and_packed_calls(void) {
  const MlcModule *m = module_with("            T.evaluate(T.call_extern(\"int32\", \"kern\", A.access_ptr(\"rw\"), n))\n"
                                   "            T.evaluate(T.call_extern(\"float32\", \"kern\", A.access_ptr(\"rw\")))\n");
  MlcStrBuf c = {0};
  mlc_clear_error(ctx);
  CHECK(m && !mlc_codegen_c(ctx, m, &c));
  CHECK(error_has("called with other types than before"));
  mlc_vec_free(&c);
  m = module_with("            T.evaluate(T.call_packed(\"env.kern\", T.address_of(A[i, 0])))\n");
  mlc_clear_error(ctx);
  CHECK(m && !mlc_codegen_c(ctx, m, &c));
  CHECK(error_has("argument 1 must be a whole parameter buffer"));
  mlc_vec_free(&c);
}

/* ---- T.call_packed: the runtime's registry, from a built kernel ---- */

static int32_t test_double(DLTensor *const *args, int32_t n, const MlcrtEnv *env) {
  if (n != 2 || args[0]->ndim != 2 || args[0]->shape[0] != 3 || args[0]->shape[1] != 5) {
    env->set_error("test.double: expected two tensors of shape (3, 5)");
    return -1;
  }
  for (int i = 0; i < 15; i++) ((float *)args[1]->data)[i] = 2 * ((const float *)args[0]->data)[i];
  return 0;
}

static int32_t test_refuse(DLTensor *const *args, int32_t n, const MlcrtEnv *env) {
  (void)args, (void)n;
  env->set_error("test.refuse refuses");
  return 7;
}

static const char *const packed_text =
    "from tvm.script import ir as I\n"
    "from tvm.script import tir as T\n\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def twice(a: T.handle, b: T.handle):\n"
    "        n = T.int64()\n"
    "        A = T.match_buffer(a, (n, 5), \"float32\")\n"
    "        B = T.match_buffer(b, (n, 5), \"float32\")\n"
    "        T.evaluate(T.call_packed(\"test.double\", A.access_ptr(\"r\"), B.access_ptr(\"w\")))\n"
    "    @T.prim_func\n"
    "    def refused(A: T.Buffer((2,), \"float32\")):\n"
    "        T.evaluate(T.call_packed(\"test.refuse\", A.access_ptr(\"r\")))\n"
    "    @T.prim_func\n"
    "    def missing(A: T.Buffer((2,), \"float32\")):\n"
    "        T.evaluate(T.call_packed(\"test.nowhere\", A.access_ptr(\"r\")))\n";

static void test_call_packed_runs_through_the_registry(void) {
  char dir[2048];
  CHECK(bu_make_tmpdir(dir, sizeof dir, "mlcc-packed"));
  mlcrt_extern_register("test.double", test_double);
  mlcrt_extern_register("test.refuse", test_refuse);
  const MlcModule *m = bu_read_text(ctx, "packed.py", packed_text);
  MlcrtModule *mod = m ? bu_build_and_load(ctx, m, dir, "packed", NULL) : NULL;
  CHECK(mod != NULL);
  if (mod) {
    float a[15], b[15] = {0}, two[2] = {1, 2};
    for (int i = 0; i < 15; i++) a[i] = (float)i * 0.25f - 1;
    int64_t shape[2] = {3, 5}, s2[1] = {2};
    DLTensor ta = {a, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
    DLTensor tb = {b, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
    DLTensor t2 = {two, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, s2, NULL, 0};
    DLTensor *args[2] = {&ta, &tb}, *one[1] = {&t2};
    const MlcrtFunc *f = mlcrt_module_get_func(mod, "twice");
    CHECK(f && mlcrt_func_call_tensors(f, args, 2) == 0);
    bool ok = true;
    for (int i = 0; i < 15; i++) ok &= b[i] == 2 * a[i];
    CHECK(ok);
    f = mlcrt_module_get_func(mod, "refused");
    CHECK(f && mlcrt_func_call_tensors(f, one, 1) != 0 && strstr(mlcrt_last_error(), "test.refuse refuses"));
    f = mlcrt_module_get_func(mod, "missing");
    CHECK(f && mlcrt_func_call_tensors(f, one, 1) != 0 && strstr(mlcrt_last_error(), "test.nowhere"));
    mlcrt_module_free(mod);
  }
  bu_remove_dir(dir);
}

static MlcExpr *rename_n(MlcMutator *mu, MlcExpr *e) {
  if (e->kind == MLC_EXPR_VAR && !strcmp(e->var.name, "n")) return mlc_e_var(mu->ctx, "n", e->dtype);
  return mlc_mutate_expr_children(mu, e);
}

static bool find_call(MlcVisitor *v, const MlcExpr *e) {
  if (e->kind == MLC_EXPR_CALL && e->call.op == MLC_INTRIN_CALL_EXTERN) *(const MlcExpr **)v->user = e;
  return true;
}

static void test_rebuilt_call_keeps_its_dtype(void) {
  const MlcModule *m = module_with("            T.evaluate(T.call_extern(\"float64\", \"kern\", n))\n");
  CHECK(m != NULL);
  if (!m) return;
  MlcMutator mu = {.ctx = ctx, .expr = rename_n};
  MlcStmt *body = mlc_mutate_stmt(&mu, m->funcs[0].prim->body);
  mlc_map_free(&mu.buffer_map);
  const MlcExpr *call = NULL;
  MlcVisitor v = {.user = &call, .expr = find_call};
  if (body) mlc_visit_stmt(&v, body);
  CHECK(call && call->dtype.code == MLC_TC_FLOAT && call->dtype.bits == 64 && call->call.n == 2);
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_interpreter_refuses_extern_calls);
  RUN(test_c_declares_the_extern_once);
  RUN(test_c_refuses_conflicting_and_packed_calls);
  RUN(test_rebuilt_call_keeps_its_dtype);
  RUN(test_call_packed_runs_through_the_registry);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
