/* test_ops_registry.c - the op table, signature parsing, argument matching
 * and its errors, the attribute readers and shape arithmetic the op families
 * share, and the builtins (struct info only; they are not legalizable).
 *
 * Calls are read from TVMScript text as a user writes them, so every way an
 * argument can be spelled (keyword, R.shape, a tuple, R.prim_value, R.dtype,
 * a string, a scalar R.const) goes through the reader first.  Expected
 * values are written out by hand; the table count comes from ops.def itself. */
#include "check.h"
#include "op_check.h"
#include "ops/op_internal.h"

static MlcCtx *ctx;

/* the call fails to match with exactly msg, located at the call's line */
static bool match_fails(const MlcGExpr *c, const char *msg) {
  MlcOpArgs a;
  if (!c || mlc_op_match(ctx, c, &a)) return false;
  if (strcmp(mlc_error_msg(ctx), msg) != 0) {
    printf("    got: %s\n", mlc_error_msg(ctx));
    return false;
  }
  return mlc_error_loc(ctx).line == OPC_CALL_LINE;
}

/* ---- the table ------------------------------------------------------------------ */

#define OP(name, ident, fuse, sig, infer, te) +1
static const int n_def = 0
#include "ops/ops.def"
    ;
#undef OP

static void test_table(void) {
  CHECK(mlc_op_count() == n_def);
  CHECK(mlc_op_at(-1) == NULL && mlc_op_at(n_def) == NULL);
  for (int i = 0; i < mlc_op_count(); i++) {
    const MlcOpDef *op = mlc_op_at(i);
    CHECK(op && mlc_op_find(op->name) == op);
    CHECK(op->infer != NULL);
  }
  CHECK(mlc_op_find("frobnicate") == NULL);
  CHECK(mlc_op_find("nn.conv2d")->fuse == MLC_FUSE_OUT_EWISE_FUSABLE);
  CHECK(mlc_op_find("add")->fuse == MLC_FUSE_BROADCAST);
  CHECK(mlc_op_find("memory.alloc_tensor")->te == NULL);
  /* ops built as loop nests: a prim function and no TE; the rest have no prim */
  CHECK(mlc_op_find("argsort")->prim != NULL && mlc_op_find("argsort")->te == NULL);
  CHECK(mlc_op_legalizable(mlc_op_find("vision.nms_select")) && !mlc_op_legalizable(mlc_op_find("memory.alloc_tensor")));
  CHECK(mlc_op_find("add")->prim == NULL);
  CHECK_STR(mlc_fuse_kind_names[MLC_FUSE_OUT_EWISE_FUSABLE], "out_ewise_fusable");
}

static void test_every_signature_parses(void) {
  MlcOpParam ps[MLC_OP_MAX_PARAMS];
  for (int i = 0; i < mlc_op_count(); i++) {
    const MlcOpDef *op = mlc_op_at(i);
    int n = mlc_op_sig_parse(op, ps);
    if (n <= 0) printf("    bad signature of %s\n", op->name);
    CHECK(n > 0);
  }
  int n = mlc_op_sig_parse(mlc_op_find("nn.linear"), ps);
  CHECK(n == 4);
  CHECK(ps[0].kind == 'T' && strcmp(ps[0].name, "data") == 0 && !ps[0].optional);
  CHECK(ps[2].kind == 'T' && strcmp(ps[2].name, "bias") == 0 && ps[2].optional);
  CHECK(ps[3].kind == 'A' && strcmp(ps[3].name, "out_dtype") == 0 && ps[3].optional);
  CHECK(mlc_op_sig_parse(mlc_op_find("concat"), ps) == 2 && ps[0].kind == 'U');
  CHECK(mlc_op_sig_parse(mlc_op_find("memory.alloc_tensor"), ps) == 4 && ps[0].kind == 'V');
}

static void test_malformed_signatures(void) {
  static const char *const bad[] = {
      "X:a", "T:", "T:a T:a", "T:a? T:b", "T:a-b", "Ta",
      "A:a A:b A:c A:d A:e A:f A:g A:h A:i A:j A:k A:l A:m",
      "A:this_name_is_far_too_long_to_fit_in_a_param",
  };
  MlcOpParam ps[MLC_OP_MAX_PARAMS];
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    MlcOpDef op = {"bad", bad[i], MLC_FUSE_OPAQUE, NULL, NULL, NULL};
    CHECK(mlc_op_sig_parse(&op, ps) == -1);
  }
  MlcOpDef ok = {"ok", "T:x A:a? A:b", MLC_FUSE_OPAQUE, NULL, NULL, NULL};
  CHECK(mlc_op_sig_parse(&ok, ps) == 3);
  MlcOpDef empty = {"ok", "", MLC_FUSE_OPAQUE, NULL, NULL, NULL};
  CHECK(mlc_op_sig_parse(&empty, ps) == 0);
}

/* ---- matching --------------------------------------------------------------------- */

static void test_match_positional_and_keywords(void) {
  MlcOpArgs a;
  const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((2, 3), \"float32\")", "R.sum(x, axis=[1], keepdims=True)");
  CHECK(c && mlc_op_match(ctx, c, &a));
  CHECK(a.op == mlc_op_find("sum") && a.n == 3 && a.call == c);
  CHECK(a.val[0] == c->call.args[0] && a.attr[0] == NULL);
  CHECK(a.attr[1] && a.attr[1]->kind == MLC_ATTR_LIST && a.attr[1]->list.n == 1);
  CHECK(a.attr[1]->list.items[0].kind == MLC_ATTR_INT && a.attr[1]->list.items[0].i == 1);
  CHECK(a.attr[2] && a.attr[2]->kind == MLC_ATTR_BOOL && a.attr[2]->b);

  c = opc_call_in(ctx, "x: R.Tensor((2, 3), \"float32\")", "R.sum(x)");
  CHECK(c && mlc_op_match(ctx, c, &a) && a.attr[1] == NULL && a.attr[2] == NULL);
}

static void test_match_positional_values_become_attrs(void) {
  MlcOpArgs a;
  const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((6,), \"float32\")", "R.reshape(x, (2, 3))");
  CHECK(c && mlc_op_match(ctx, c, &a));
  CHECK(a.attr[1] && a.attr[1]->kind == MLC_ATTR_LIST && a.attr[1]->list.n == 2);
  CHECK(a.attr[1]->list.items[0].kind == MLC_ATTR_INT && a.attr[1]->list.items[1].i == 3);

  c = opc_call_in(ctx, "x: R.Tensor((\"n\", 4), \"float32\")", "R.reshape(x, (n, 2, 2))");
  CHECK(c && mlc_op_match(ctx, c, &a));
  CHECK(a.attr[1] && a.attr[1]->kind == MLC_ATTR_LIST && a.attr[1]->list.n == 3);
  CHECK(a.attr[1]->list.items[0].kind == MLC_ATTR_EXPR);
  CHECK(a.attr[1]->list.items[0].expr == a.val[0]->sinfo->tensor.shape[0]);
  CHECK(a.attr[1]->list.items[1].kind == MLC_ATTR_EXPR);

  c = opc_call_in(ctx, "", "R.full((2, 3), 1.5, \"float32\")");
  CHECK(c && mlc_op_match(ctx, c, &a));
  CHECK(a.attr[1] && a.attr[1]->kind == MLC_ATTR_FLOAT && a.attr[1]->f == 1.5);
  CHECK(a.attr[2] && a.attr[2]->kind == MLC_ATTR_STR && strcmp(a.attr[2]->s, "float32") == 0);

  c = opc_call_in(ctx, "", "R.full((2,), R.const(-2.5, \"float32\"), R.dtype(\"float64\"))");
  CHECK(c && mlc_op_match(ctx, c, &a));
  CHECK(a.attr[1] && a.attr[1]->kind == MLC_ATTR_FLOAT && a.attr[1]->f == -2.5);
  CHECK(a.attr[2] && a.attr[2]->kind == MLC_ATTR_DTYPE && mlc_dtype_eq(a.attr[2]->dtype, MLC_F64));

  c = opc_call_in(ctx, "x: R.Tensor((2, 3), \"float32\")", "R.clip(x, R.prim_value(-1), 6.0)");
  CHECK(c && mlc_op_match(ctx, c, &a));
  CHECK(a.attr[1] && a.attr[1]->kind == MLC_ATTR_INT && a.attr[1]->i == -1);
  CHECK(a.attr[2] && a.attr[2]->kind == MLC_ATTR_FLOAT && a.attr[2]->f == 6.0);

  c = opc_call_in(ctx, "x: R.Tensor((2, 3), \"float32\")", "R.split(x, (1.5, True))");
  CHECK(c && mlc_op_match(ctx, c, &a));
  CHECK(a.attr[1] && a.attr[1]->kind == MLC_ATTR_LIST && a.attr[1]->list.n == 2);
  CHECK(a.attr[1]->list.items[0].kind == MLC_ATTR_FLOAT && a.attr[1]->list.items[1].kind == MLC_ATTR_BOOL);
}

static void test_match_tuple_and_any(void) {
  MlcOpArgs a;
  const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((2, 3), \"float32\"), y: R.Tensor((2, 3), \"float32\")",
                                       "R.concat((x, y), axis=0)");
  CHECK(c && mlc_op_match(ctx, c, &a) && a.val[0] && a.val[0]->kind == MLC_G_TUPLE);
  c = opc_call_in(ctx, "s: R.Object", "R.memory.alloc_tensor(s, 0, R.shape([2, 3]), \"float32\")");
  CHECK(c && mlc_op_match(ctx, c, &a) && a.val[0] == c->call.args[0]);
  CHECK(a.attr[1] && a.attr[1]->kind == MLC_ATTR_INT && a.attr[1]->i == 0);
}

static void test_match_errors(void) {
  const char *x = "x: R.Tensor((2, 3), \"float32\")";
  CHECK(match_fails(opc_call_in(ctx, x, "R.frobnicate(x)"), "unknown op 'R.frobnicate'"));
  CHECK(match_fails(opc_call_in(ctx, x, "R.add(x, x, x)"), "add: takes at most 2 arguments, got 3"));
  CHECK(match_fails(opc_call_in(ctx, x, "R.add(x)"), "add: missing argument 'x2'"));
  CHECK(match_fails(opc_call_in(ctx, x, "R.add(x, x, alpha=1)"),
                    "add: unknown keyword 'alpha' (parameters: T:x1 T:x2)"));
  CHECK(match_fails(opc_call_in(ctx, x, "R.sum(x, [1], axis=[0])"), "sum: argument 'axis' is given twice"));
  CHECK(match_fails(opc_call_in(ctx, x, "R.add(x, (2, 3))"), "add: argument 'x2' expected a tensor, got a shape"));
  CHECK(match_fails(opc_call_in(ctx, x, "R.add(x, 1.5)"), "add: argument 'x2' expected a tensor, got a prim value"));
  CHECK(match_fails(opc_call_in(ctx, x, "R.sum(x, x)"),
                    "sum: argument 'axis' expected a number, shape, string or dtype, got a tensor"));
  CHECK(match_fails(opc_call_in(ctx, x, "R.concat(x)"),
                    "concat: argument 'tensors' expected a tuple of tensors, got a tensor"));
  CHECK(match_fails(opc_call_in(ctx, x, "R.full(x, 1.0)"),
                    "full: argument 'shape' expected a number, shape, string or dtype, got a tensor"));
  CHECK(match_fails(opc_call_in(ctx, x, "R.zeros((2, 3))"), "zeros: missing argument 'dtype'"));
}

/* a var whose struct info is not inferred yet is not a tensor */
static void test_match_object_arg(void) {
  const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((2, 3), \"float32\"), o: R.Object", "R.add(x, o)");
  CHECK(match_fails(c, "add: argument 'x2' expected a tensor, got an object (its struct info is not known)"));
}

static void test_infer_and_legalize_errors_are_located(void) {
  const MlcGExpr *c =
      opc_call_in(ctx, "x: R.Tensor((2, 3), \"float32\"), y: R.Tensor((4,), \"float32\")", "R.add(x, y)");
  mlc_clear_error(ctx);
  CHECK(c && mlc_op_infer(ctx, c) == NULL);
  CHECK_STR(mlc_error_msg(ctx), "add: shapes (2, 3) and (4,) do not broadcast: dims 3 and 4 differ");
  CHECK(mlc_error_loc(ctx).line == OPC_CALL_LINE && mlc_error_loc(ctx).col == 18);
  mlc_clear_error(ctx);
  CHECK(mlc_op_to_prim_func(ctx, c, "f") == NULL && mlc_error_loc(ctx).line == OPC_CALL_LINE);
  CHECK_STR(mlc_error_msg(ctx), "add: shapes (2, 3) and (4,) do not broadcast: dims 3 and 4 differ");
}

/* ---- builtins ------------------------------------------------------------------------- */

static void test_builtins(void) {
  const MlcGExpr *c =
      opc_call_in(ctx, "", "R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype(\"float32\"), R.prim_value(0))");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((2, 3), dtype=\"float32\")"));
  mlc_clear_error(ctx);
  CHECK(mlc_op_to_prim_func(ctx, c, "f") == NULL);
  CHECK_STR(mlc_error_msg(ctx),
            "builtin.alloc_tensor: is not legalizable: it has no tensor-expression definition");
  CHECK(mlc_error_loc(ctx).line == OPC_CALL_LINE);

  c = opc_call_in(ctx, "",
                  "R.memory.alloc_storage(R.shape([24]), R.prim_value(0), R.str(\"global\"), R.dtype(\"float32\"))");
  CHECK(opc_sinfo_is(ctx, c, "R.Object"));
  c = opc_call_in(ctx, "", "R.memory.alloc_storage(R.shape([2, 3]), 0, \"global\", \"float32\")");
  CHECK(mlc_op_infer(ctx, c) == NULL);
  CHECK_STR(mlc_error_msg(ctx), "memory.alloc_storage: size: expected one dim (bytes), got 2");

  c = opc_call_in(ctx, "s: R.Object", "R.memory.alloc_tensor(s, 0, R.shape([2, 3]), R.dtype(\"int32\"))");
  CHECK(opc_sinfo_is(ctx, c, "R.Tensor((2, 3), dtype=\"int32\")"));
  c = opc_call_in(ctx, "s: R.Object", "R.memory.alloc_tensor(s, -8, R.shape([2, 3]), R.dtype(\"int32\"))");
  CHECK(mlc_op_infer(ctx, c) == NULL);
  CHECK_STR(mlc_error_msg(ctx), "memory.alloc_tensor: offset: expected a non-negative byte offset, got -8");
  c = opc_call_in(ctx, "s: R.Object", "R.memory.alloc_tensor(s, 0, R.shape([2, 3]), \"floaty\")");
  CHECK(mlc_op_infer(ctx, c) == NULL);
  CHECK_STR(mlc_error_msg(ctx), "memory.alloc_tensor: dtype: expected a dtype such as \"float32\"");
  CHECK(mlc_error_loc(ctx).line == OPC_CALL_LINE);
}

/* ---- attribute readers ------------------------------------------------------------------ */

static void test_attr_readers(void) {
  MlcOpArgs a;
  const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((2, 3), \"float32\")", "R.nn.conv2d(x, x, strides=[2, 3], "
                                       "padding=1, groups=None, data_layout=\"NCHW\", out_dtype=\"float16\")");
  CHECK(c && mlc_op_match(ctx, c, &a));
  int64_t v[4];
  int n;
  bool present;
  CHECK(mlc_op_attr_ints(ctx, &a, "strides", v, 4, &n, &present) && present && n == 2 && v[1] == 3);
  CHECK(mlc_op_attr_ints(ctx, &a, "padding", v, 4, &n, &present) && present && n == 1 && v[0] == 1);
  CHECK(mlc_op_attr_ints(ctx, &a, "dilation", v, 4, &n, &present) && !present && n == 0);
  int64_t g;
  CHECK(mlc_op_attr_int(ctx, &a, "groups", 7, &g) && g == 7); /* None is the default */
  const char *s;
  CHECK(mlc_op_attr_str(ctx, &a, "data_layout", NULL, &s) && strcmp(s, "NCHW") == 0);
  CHECK(mlc_op_attr_str(ctx, &a, "out_layout", "same", &s) && strcmp(s, "same") == 0);
  MlcDType t;
  CHECK(mlc_op_attr_dtype(ctx, &a, "out_dtype", &t, &present) && present && t.code == MLC_TC_FLOAT && t.bits == 16);
  CHECK(mlc_op_param(&a, "kernel_layout") == 7 && mlc_op_param(&a, "nope") == -1);

  mlc_clear_error(ctx);
  CHECK(!mlc_op_attr_ints(ctx, &a, "strides", v, 1, &n, &present));
  CHECK_STR(mlc_error_msg(ctx), "nn.conv2d: strides: at most 1 values, got 2");
  mlc_clear_error(ctx);
  CHECK(!mlc_op_attr_int(ctx, &a, "data_layout", 0, &g));
  CHECK_STR(mlc_error_msg(ctx), "nn.conv2d: data_layout: expected an integer");
  mlc_clear_error(ctx);
  CHECK(!mlc_op_attr_str(ctx, &a, "strides", NULL, &s));
  CHECK_STR(mlc_error_msg(ctx), "nn.conv2d: strides: expected a string");
  CHECK(mlc_error_loc(ctx).line == OPC_CALL_LINE);
  int ax;
  mlc_clear_error(ctx);
  CHECK(mlc_op_axis(ctx, &a, -1, 3, &ax) && ax == 2);
  CHECK(!mlc_op_axis(ctx, &a, 3, 3, &ax));
  CHECK_STR(mlc_error_msg(ctx), "nn.conv2d: axis 3 is out of range for a tensor of rank 3");
}

static void test_attr_shape(void) {
  MlcOpArgs a;
  const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((\"n\", 4), \"float32\")", "R.reshape(x, (n, 2, 2))");
  MlcExpr **dims;
  int n;
  CHECK(c && mlc_op_match(ctx, c, &a) && mlc_op_attr_shape(ctx, &a, "shape", &dims, &n) && n == 3);
  CHECK(dims[0] == a.val[0]->sinfo->tensor.shape[0]);
  CHECK(dims[1]->kind == MLC_EXPR_INT && dims[1]->int_val == 2 && mlc_dtype_eq(dims[1]->dtype, MLC_I64));
  CHECK_STR(mlc_op_shape_str(ctx, dims, n), "(n, 2, 2)");
  c = opc_call_in(ctx, "x: R.Tensor((2, 3), \"float32\")", "R.reshape(x, shape=[2, -3])");
  mlc_clear_error(ctx);
  CHECK(c && mlc_op_match(ctx, c, &a) && !mlc_op_attr_shape(ctx, &a, "shape", &dims, &n));
  CHECK_STR(mlc_error_msg(ctx), "reshape: shape: expected a shape of non-negative integers or int64 dims");
}

/* ---- shape arithmetic ---------------------------------------------------------------------- */

static void test_broadcast_shapes(void) {
  MlcOpArgs a;
  const MlcGExpr *c = opc_call_in(ctx, "x: R.Tensor((\"n\", \"m\"), \"float32\")", "R.add(x, x)");
  CHECK(c && mlc_op_match(ctx, c, &a));
  MlcExpr *nv = a.val[0]->sinfo->tensor.shape[0], *mv = a.val[0]->sinfo->tensor.shape[1];
  MlcExpr *s1[] = {mlc_op_i64(ctx, 2), mlc_op_i64(ctx, 1), mlc_op_i64(ctx, 3)};
  MlcExpr *s2[] = {mlc_op_i64(ctx, 4), mlc_op_i64(ctx, 3)};
  MlcExpr **r;
  int n;
  CHECK(mlc_op_broadcast_shapes(ctx, &a, s1, 3, s2, 2, &r, &n) && n == 3);
  CHECK_STR(mlc_op_shape_str(ctx, r, n), "(2, 4, 3)");
  MlcExpr *s3[] = {nv, mlc_op_i64(ctx, 1)}, *s4[] = {mlc_op_i64(ctx, 1), mlc_op_i64(ctx, 5)};
  CHECK(mlc_op_broadcast_shapes(ctx, &a, s3, 2, s4, 2, &r, &n) && n == 2 && r[0] == nv);
  CHECK_STR(mlc_op_shape_str(ctx, r, n), "(n, 5)");
  MlcExpr *s5[] = {nv}, *s6[] = {mlc_e_bin(ctx, MLC_BIN_ADD, nv, mlc_op_i64(ctx, 1))};
  MlcExpr *s7[] = {mlc_e_bin(ctx, MLC_BIN_ADD, nv, mlc_op_i64(ctx, 1))};
  CHECK(mlc_op_broadcast_shapes(ctx, &a, s6, 1, s7, 1, &r, &n) && n == 1);
  CHECK(mlc_op_dim_equal(s6[0], s7[0]) && !mlc_op_dim_equal(s5[0], s6[0]));
  mlc_clear_error(ctx);
  CHECK(!mlc_op_broadcast_shapes(ctx, &a, s5, 1, s6, 1, &r, &n));
  CHECK_STR(mlc_error_msg(ctx), "add: shapes (n,) and ((n + 1),) do not broadcast: dims n and (n + 1) "
                                "are not provably equal (broadcasting dims known to match only at run time is not "
                                "supported)");
  MlcExpr *s8[] = {mv};
  mlc_clear_error(ctx);
  CHECK(!mlc_op_broadcast_shapes(ctx, &a, s5, 1, s8, 1, &r, &n));
  MlcExpr *s9[] = {mlc_op_i64(ctx, 4)};
  mlc_clear_error(ctx);
  CHECK(!mlc_op_broadcast_shapes(ctx, &a, s5, 1, s9, 1, &r, &n));
  CHECK_STR(mlc_error_msg(ctx), "add: shapes (n,) and (4,) do not broadcast: dims n and 4 are not "
                                "provably equal (broadcasting dims known to match only at run time is not supported)");
  CHECK(mlc_op_broadcast_shapes(ctx, &a, NULL, 0, s9, 1, &r, &n) && n == 1);
}

static void test_const(void) {
  MlcExpr *e = mlc_op_const(ctx, MLC_F32, 2.5);
  CHECK(e->kind == MLC_EXPR_FLOAT && e->float_val == 2.5 && mlc_dtype_eq(e->dtype, MLC_F32));
  e = mlc_op_const(ctx, MLC_I32, 7);
  CHECK(e->kind == MLC_EXPR_INT && e->int_val == 7 && mlc_dtype_eq(e->dtype, MLC_I32));
  e = mlc_op_const(ctx, MLC_BOOL, 3);
  CHECK(e->kind == MLC_EXPR_INT && e->int_val == 1);
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_table);
  RUN(test_every_signature_parses);
  RUN(test_malformed_signatures);
  RUN(test_match_positional_and_keywords);
  RUN(test_match_positional_values_become_attrs);
  RUN(test_match_tuple_and_any);
  RUN(test_match_errors);
  RUN(test_match_object_arg);
  RUN(test_infer_and_legalize_errors_are_located);
  RUN(test_builtins);
  RUN(test_attr_readers);
  RUN(test_attr_shape);
  RUN(test_broadcast_shapes);
  RUN(test_const);
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
