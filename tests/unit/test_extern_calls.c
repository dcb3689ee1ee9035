/* test_extern_calls.c - calls out of a tensor program (T.call_extern,
 * T.call_packed, T.address_of): the interpreter refuses to run them with a
 * message naming the function; the C generator declares an extern once from
 * the call's types, refuses a second call with other types and refuses
 * T.call_packed (DLTensor functions) by name; a mutator rebuilding a call
 * keeps its result dtype.  (Built and run against the interpreter: the
 * schedule golden case tensorize_tmm16.) */
#include "check.h"
#include "mlcc/codegen.h"
#include "mlcc/interp.h"
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
  m = module_with("            T.evaluate(T.call_packed(\"env.kern\", A.access_ptr(\"rw\")))\n");
  mlc_clear_error(ctx);
  CHECK(m && !mlc_codegen_c(ctx, m, &c));
  CHECK(error_has("T.call_packed(\"env.kern\", ...) is not supported by the C target"));
  mlc_vec_free(&c);
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
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
