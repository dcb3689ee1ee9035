/* op_call_check.h - what the op test files share: one op call read from
 * TVMScript text (CALL_LINE is the line the call stands on), its struct
 * info as text, its located refusal, its text round trip, and its
 * legalized prim func run by the reference interpreter against values the
 * test computes itself.  The including file sets `ctx` in main. */
#ifndef MLCC_TESTS_OP_CALL_CHECK_H
#define MLCC_TESTS_OP_CALL_CHECK_H

#include "check.h"
#include "op_check.h"

static MlcCtx *ctx;

#define CALL_LINE 8

static const MlcGExpr *call_in(const char *params, const char *call) {
  char src[2048];
  snprintf(src, sizeof src,
           "from tvm.script import ir as I\n"
           "from tvm.script import relax as R\n"
           "@I.ir_module\n"
           "class Module:\n"
           "    @R.function\n"
           "    def main(%s):\n"
           "        with R.dataflow():\n"
           "            lv = %s\n"
           "            R.output(lv)\n"
           "        return lv\n",
           params, call);
  mlc_clear_error(ctx);
  const MlcGExpr *c = opc_call(ctx, src);
  if (!c) printf("    read failed: %s\n", mlc_error_msg(ctx));
  ctx->build_loc = (MlcLoc){mlc_intern(ctx, "op_test.py"), CALL_LINE, 18};
  return c;
}

static bool sinfo_is(const MlcGExpr *c, const char *want) {
  MlcSInfo *s = c ? mlc_op_infer(ctx, c) : NULL;
  MlcStrBuf sb = {0};
  if (s) mlc_print_sinfo(s, &sb);
  bool ok = s && strcmp(mlc_sb_cstr(&sb), want) == 0;
  if (!ok) printf("    sinfo: %s (want %s) %s\n", s ? mlc_sb_cstr(&sb) : "(null)", want, mlc_error_msg(ctx));
  mlc_vec_free(&sb);
  return ok;
}

/* refused at inference (or, with at_te, when legalized) with exactly msg at the call's line */
static bool refused(const MlcGExpr *c, bool at_te, const char *msg) {
  mlc_clear_error(ctx);
  if (!c) return false;
  bool failed = at_te ? !mlc_op_to_prim_func(ctx, c, "op") : !mlc_op_infer(ctx, c);
  bool ok = failed && strcmp(mlc_error_msg(ctx), msg) == 0 && mlc_error_loc(ctx).line == CALL_LINE;
  if (!ok) printf("    got: %s (line %d)\n", mlc_error_msg(ctx), mlc_error_loc(ctx).line);
  mlc_clear_error(ctx);
  return ok;
}

/* the legalized prim func prints and reads back structurally equal */
static bool round_trips(const MlcGExpr *c) {
  MlcPrimFunc *f = c ? mlc_op_to_prim_func(ctx, c, "op") : NULL;
  if (!f) return false;
  MlcFunc fn = {.kind = MLC_FUNC_PRIM, .name = f->name, .prim = f};
  MlcModule *m = mlc_module_new(ctx, "Module", &fn, 1, (MlcAttrs){0});
  MlcStrBuf sb = {0};
  mlc_print_module(m, &sb);
  MlcModule *back = mlc_read_module(ctx, "printed.py", mlc_sb_cstr(&sb), sb.len);
  bool ok = back && mlc_module_equal(m, back);
  if (!ok) printf("    round trip failed: %s\n", mlc_error_msg(ctx));
  mlc_vec_free(&sb);
  return ok;
}

static OpcBuf buf(int ndim, const int64_t *shape, double *v) {
  OpcBuf b = {.ndim = ndim, .v = v};
  if (ndim) memcpy(b.shape, shape, (size_t)ndim * sizeof *shape); /* a scalar passes no shape */
  return b;
}

/* run c on ins; its one output (shape given) must match want (n values) */
static bool run_matches(const MlcGExpr *c, OpcBuf *ins, int n_in, OpcBuf out, const double *want, double tol) {
  if (!c) return false;
  bool ok = opc_run(ctx, c, ins, n_in, &out, 1);
  if (!ok) {
    printf("    run failed: %s\n", mlc_error_msg(ctx));
    return false;
  }
  int64_t n = opc_numel(&out);
  double err = opc_max_err(out.v, want, n);
  for (int64_t i = 0; i < n && tol == 0; i++)
    if (out.v[i] != want[i] && !(isnan(out.v[i]) && isnan(want[i]))) err = 1;
  if (err > tol) {
    ok = false;
    for (int64_t i = 0; i < n; i++)
      if (!(fabs(out.v[i] - want[i]) <= tol * fmax(1, fabs(want[i]))) && !(isnan(out.v[i]) && isnan(want[i])))
        printf("    [%lld] got %.17g want %.17g\n", (long long)i, out.v[i], want[i]);
  }
  opc_free(&out, 1);
  return ok;
}

#endif
