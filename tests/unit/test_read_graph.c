/* test_read_graph.c - the reader of graph functions (`@R.function`).
 *
 * Each test reads TVMScript text through the public reader and checks the
 * graph IR directly: node kinds, struct info rendered by a small formatter of
 * this file (not the printer), dataflow vs plain vars, callee names, and for
 * bad input the message and its line:col, computed from the test text. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "mlcc/text.h"

#define HEADER                                  \
  "from tvm.script import ir as I\n"            \
  "from tvm.script import tir as T\n"           \
  "from tvm.script import relax as R\n"

/* Prim funcs of the two-layer MLP: 1x784 -> 128 -> relu -> 10. */
#define MLP_PRIM_FUNCS                                                                          \
  "    @T.prim_func\n"                                                                          \
  "    def linear0(X: T.Buffer((1, 784), \"float32\"), W: T.Buffer((128, 784), \"float32\"),\n" \
  "                B: T.Buffer((128,), \"float32\"), Z: T.Buffer((1, 128), \"float32\")):\n"    \
  "        Y = T.alloc_buffer((1, 128), \"float32\")\n"                                         \
  "        for i, j, k in T.grid(1, 128, 784):\n"                                              \
  "            with T.block(\"Y\"):\n"                                                          \
  "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"                             \
  "                with T.init():\n"                                                            \
  "                    Y[vi, vj] = T.float32(0)\n"                                              \
  "                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]\n"                             \
  "        for i, j in T.grid(1, 128):\n"                                                      \
  "            with T.block(\"Z\"):\n"                                                          \
  "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                     \
  "                Z[vi, vj] = Y[vi, vj] + B[vj]\n"                                             \
  "    @T.prim_func\n"                                                                          \
  "    def relu0(X: T.Buffer((1, 128), \"float32\"), Y: T.Buffer((1, 128), \"float32\")):\n"   \
  "        for i, j in T.grid(1, 128):\n"                                                      \
  "            with T.block(\"Y\"):\n"                                                          \
  "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                     \
  "                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))\n"                                \
  "    @T.prim_func\n"                                                                          \
  "    def linear1(X: T.Buffer((1, 128), \"float32\"), W: T.Buffer((10, 128), \"float32\"),\n"  \
  "                B: T.Buffer((10,), \"float32\"), Z: T.Buffer((1, 10), \"float32\")):\n"      \
  "        Y = T.alloc_buffer((1, 10), \"float32\")\n"                                          \
  "        for i, j, k in T.grid(1, 10, 128):\n"                                               \
  "            with T.block(\"Y\"):\n"                                                          \
  "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"                             \
  "                with T.init():\n"                                                            \
  "                    Y[vi, vj] = T.float32(0)\n"                                              \
  "                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]\n"                             \
  "        for i, j in T.grid(1, 10):\n"                                                       \
  "            with T.block(\"Z\"):\n"                                                          \
  "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                     \
  "                Z[vi, vj] = Y[vi, vj] + B[vj]\n"

/* The same prim funcs over a symbolic batch n. */
#define MLP_PRIM_FUNCS_N                                                                        \
  "    @T.prim_func\n"                                                                          \
  "    def linear0(X: T.Buffer((n, 784), \"float32\"), W: T.Buffer((128, 784), \"float32\"),\n" \
  "                B: T.Buffer((128,), \"float32\"), Z: T.Buffer((n, 128), \"float32\")):\n"    \
  "        for i, j, k in T.grid(n, 128, 784):\n"                                              \
  "            with T.block(\"Z\"):\n"                                                          \
  "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"                             \
  "                with T.init():\n"                                                            \
  "                    Z[vi, vj] = B[vj]\n"                                                     \
  "                Z[vi, vj] = Z[vi, vj] + X[vi, vk] * W[vj, vk]\n"                             \
  "    @T.prim_func\n"                                                                          \
  "    def relu0(X: T.Buffer((n, 128), \"float32\"), Y: T.Buffer((n, 128), \"float32\")):\n"   \
  "        for i, j in T.grid(n, 128):\n"                                                      \
  "            with T.block(\"Y\"):\n"                                                          \
  "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                     \
  "                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))\n"                                \
  "    @T.prim_func\n"                                                                          \
  "    def linear1(X: T.Buffer((n, 128), \"float32\"), W: T.Buffer((10, 128), \"float32\"),\n"  \
  "                B: T.Buffer((10,), \"float32\"), Z: T.Buffer((n, 10), \"float32\")):\n"      \
  "        for i, j, k in T.grid(n, 10, 128):\n"                                               \
  "            with T.block(\"Z\"):\n"                                                          \
  "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"                             \
  "                with T.init():\n"                                                            \
  "                    Z[vi, vj] = B[vj]\n"                                                     \
  "                Z[vi, vj] = Z[vi, vj] + X[vi, vk] * W[vj, vk]\n"

/* ---- helpers ------------------------------------------------------------ */

static MlcModule *read_text(MlcCtx *ctx, const char *text) {
  MlcModule *m = mlc_read_module(ctx, "t.py", text, strlen(text));
  if (!m) {
    MlcLoc l = mlc_error_loc(ctx);
    printf("# unexpected error %d:%d: %s\n", l.line, l.col, mlc_error_msg(ctx));
  }
  return m;
}

static const MlcGFunc *gfunc(MlcCtx *ctx, const MlcModule *m, const char *name) {
  const MlcFunc *f = m ? mlc_module_find(m, mlc_intern(ctx, name)) : NULL;
  return f && f->kind == MLC_FUNC_GRAPH ? f->graph : NULL;
}

static const MlcBinding *binding(const MlcGFunc *f, int block, int i) {
  if (!f || f->body->kind != MLC_G_SEQ || block >= f->body->seq.n) return NULL;
  const MlcBindingBlock *b = f->body->seq.blocks[block];
  return i < b->n ? &b->bindings[i] : NULL;
}

static void dim_str(const MlcExpr *e, MlcStrBuf *sb) {
  if (e->kind == MLC_EXPR_INT) mlc_sb_printf(sb, "%lld", (long long)e->int_val);
  else if (e->kind == MLC_EXPR_VAR) mlc_sb_puts(sb, e->var.name);
  else mlc_sb_puts(sb, "<expr>");
}

static void dims_str(MlcExpr *const *d, int n, MlcStrBuf *sb) {
  mlc_sb_putc(sb, '(');
  for (int i = 0; i < n; i++) {
    if (i) mlc_sb_putc(sb, ',');
    dim_str(d[i], sb);
  }
  mlc_sb_putc(sb, ')');
}

/* float32(1,784), float32[ndim=2], ?[?], (float32(1),object), shape(2,3), prim(int64) */
static void sinfo_put(const MlcSInfo *s, MlcStrBuf *sb) {
  char b[32];
  if (!s) {
    mlc_sb_puts(sb, "NULL");
    return;
  }
  switch (s->kind) {
  case MLC_SINFO_OBJECT: mlc_sb_puts(sb, "object"); break;
  case MLC_SINFO_TENSOR:
    mlc_sb_puts(sb, s->tensor.dtype.code == MLC_TC_VOID ? "?" : mlc_dtype_str(s->tensor.dtype, b));
    if (s->tensor.shape) dims_str(s->tensor.shape, s->tensor.ndim, sb);
    else if (s->tensor.ndim >= 0) mlc_sb_printf(sb, "[ndim=%d]", s->tensor.ndim);
    else mlc_sb_puts(sb, "[?]");
    break;
  case MLC_SINFO_TUPLE:
    mlc_sb_putc(sb, '(');
    for (int i = 0; i < s->tuple.n; i++) {
      if (i) mlc_sb_putc(sb, ',');
      sinfo_put(s->tuple.fields[i], sb);
    }
    mlc_sb_putc(sb, ')');
    break;
  case MLC_SINFO_SHAPE:
    mlc_sb_puts(sb, "shape");
    if (s->shape.values) dims_str(s->shape.values, s->shape.ndim, sb);
    else mlc_sb_printf(sb, "[ndim=%d]", s->shape.ndim);
    break;
  case MLC_SINFO_PRIM: mlc_sb_printf(sb, "prim(%s)", mlc_dtype_str(s->prim.dtype, b)); break;
  }
}

/* the rendering, interned so that CHECK_STR can compare it after the buffer is gone */
static const char *sinfo_s(MlcCtx *ctx, const MlcSInfo *s) {
  MlcStrBuf sb = {0};
  sinfo_put(s, &sb);
  const char *r = mlc_intern(ctx, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return r;
}

static bool is_named(const MlcGExpr *e, MlcGExprKind kind, const char *name) {
  return e && e->kind == kind && strcmp(e->str, name) == 0;
}

/* a call_tir / call_dps_packed node: the op, its callee, its arg count */
static bool dps_call_is(const MlcGExpr *e, const char *op, MlcGExprKind ck, const char *callee, int nargs) {
  return e && e->kind == MLC_G_CALL && is_named(e->call.callee, MLC_G_OP, op) && e->call.n == 2 &&
         is_named(e->call.args[0], ck, callee) && e->call.args[1]->kind == MLC_G_TUPLE &&
         e->call.args[1]->tuple.n == nargs;
}

/* line (1-based) and column of the first `needle` at or after line `line` */
static void find_loc(const char *text, int line, const char *needle, int *out_line, int *out_col) {
  const char *p = text;
  for (int l = 1; l < line && p; l++) p = strchr(p, '\n'), p = p ? p + 1 : NULL;
  const char *hit = p ? strstr(p, needle) : NULL;
  *out_line = *out_col = -1;
  if (!hit) return;
  int l = 1;
  const char *bol = text;
  for (const char *q = text; q < hit; q++)
    if (*q == '\n') l++, bol = q + 1;
  *out_line = l;
  *out_col = (int)(hit - bol) + 1;
}

/* text fails to read, at the first `needle` on or after line `from`, with a
 * message containing `msg` */
static void check_read_error(const char *text, int from, const char *needle, const char *msg) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "t.py", text, strlen(text));
  int line, col;
  find_loc(text, from, needle, &line, &col);
  CHECK(m == NULL);
  CHECK(mlc_has_error(ctx));
  if (!m && mlc_has_error(ctx)) {
    MlcLoc got = mlc_error_loc(ctx);
    bool at = got.line == line && got.col == col, says = strstr(mlc_error_msg(ctx), msg) != NULL;
    if (!at || !says)
      printf("# got %d:%d want %d:%d: %s\n", got.line, got.col, line, col, mlc_error_msg(ctx));
    CHECK(at);
    CHECK(says);
  }
  mlc_ctx_free(ctx);
}

/* ---- the MLP ------------------------------------------------------------ */

static const char mlp_text[] =
    HEADER
    "@I.ir_module\n"
    "class Module:\n" MLP_PRIM_FUNCS
    "    @R.function\n"
    "    def main(x: R.Tensor((1, 784), dtype=\"float32\"), w0: R.Tensor((128, 784), \"float32\"),\n"
    "             b0: R.Tensor((128,), \"float32\"), w1: R.Tensor((10, 128), \"float32\"),\n"
    "             b1: R.Tensor((10,), \"float32\")) -> R.Tensor((1, 10), dtype=\"float32\"):\n"
    "        cls = Module\n"
    "        with R.dataflow():\n"
    "            lv0 = R.call_tir(cls.linear0, (x, w0, b0), out_sinfo=R.Tensor((1, 128), dtype=\"float32\"))\n"
    "            lv1 = R.call_tir(cls.relu0, (lv0,), out_sinfo=R.Tensor((1, 128), dtype=\"float32\"))\n"
    "            out = R.call_tir(cls.linear1, (lv1, w1, b1), out_sinfo=R.Tensor((1, 10), dtype=\"float32\"))\n"
    "            R.output(out)\n"
    "        return out\n";

/* the three call_tir bindings of the MLP's one dataflow block, checked alike
 * for both spellings */
static void check_mlp(MlcCtx *ctx, const MlcGFunc *f, const char *batch) {
  char d128[32], d10[32], dx[32];
  snprintf(d128, sizeof d128, "float32(%s,128)", batch);
  snprintf(d10, sizeof d10, "float32(%s,10)", batch);
  snprintf(dx, sizeof dx, "float32(%s,784)", batch);
  CHECK(f != NULL);
  if (!f) return;
  CHECK(f->n_params == 5);
  CHECK(f->pure);
  CHECK(f->params[0]->kind == MLC_G_VAR);
  CHECK_STR(f->params[0]->var.name, "x");
  CHECK_STR(sinfo_s(ctx, f->params[0]->sinfo), dx);
  CHECK_STR(sinfo_s(ctx, f->params[1]->sinfo), "float32(128,784)");
  CHECK_STR(sinfo_s(ctx, f->params[2]->sinfo), "float32(128)");
  CHECK_STR(sinfo_s(ctx, f->params[4]->sinfo), "float32(10)");
  CHECK(f->body->kind == MLC_G_SEQ);
  CHECK(f->body->seq.n == 1);
  if (f->body->seq.n != 1) return;
  const MlcBindingBlock *b = f->body->seq.blocks[0];
  CHECK(b->dataflow);
  CHECK(b->n == 3);
  if (b->n != 3) return;
  const char *callees[3] = {"linear0", "relu0", "linear1"};
  const int nargs[3] = {3, 1, 3};
  const char *names[3] = {"lv0", "lv1", "out"};
  for (int i = 0; i < 3; i++) {
    CHECK(dps_call_is(b->bindings[i].value, "call_tir", MLC_G_GLOBAL, callees[i], nargs[i]));
    CHECK_STR(b->bindings[i].var->var.name, names[i]);
    CHECK(b->bindings[i].var->kind == (i < 2 ? MLC_G_DFVAR : MLC_G_VAR));
    CHECK_STR(sinfo_s(ctx, b->bindings[i].var->sinfo), i < 2 ? d128 : d10);
    CHECK(b->bindings[i].value->call.n_sinfo_args == 1);
  }
  /* the args are the vars bound before: params, then earlier bindings */
  const MlcGExpr *a0 = b->bindings[0].value->call.args[1];
  CHECK(a0->tuple.fields[0] == f->params[0] && a0->tuple.fields[2] == f->params[2]);
  CHECK(b->bindings[1].value->call.args[1]->tuple.fields[0] == b->bindings[0].var);
  CHECK(b->bindings[2].value->call.args[1]->tuple.fields[0] == b->bindings[1].var);
  CHECK(f->body->seq.result == b->bindings[2].var);
  CHECK_STR(sinfo_s(ctx, f->ret), d10);
}

static void test_mlp(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, mlp_text);
  CHECK(m != NULL);
  CHECK(m && m->n_funcs == 4);
  check_mlp(ctx, gfunc(ctx, m, "main"), "1");
  /* the binding locations point at the names */
  const MlcBinding *b = binding(gfunc(ctx, m, "main"), 0, 1);
  int l, c;
  find_loc(mlp_text, 1, "lv1 = ", &l, &c);
  CHECK(b && b->loc.line == l && b->loc.col == c);
  mlc_ctx_free(ctx);
}

/* the 2022 spelling: tvm.script.ir_module, Tensor without R., bare callee
 * names, output shape + dtype, no return annotation */
static void test_mlp_2022(void) {
  static const char text[] =
      "import tvm\n"
      "from tvm.script import tir as T, relax as R\n"
      "@tvm.script.ir_module\n"
      "class MyModule:\n" MLP_PRIM_FUNCS
      "    @R.function\n"
      "    def main(x: Tensor((1, 784), \"float32\"), w0: Tensor((128, 784), \"float32\"),\n"
      "             b0: Tensor((128,), \"float32\"), w1: Tensor((10, 128), \"float32\"),\n"
      "             b1: Tensor((10,), \"float32\")):\n"
      "        with R.dataflow():\n"
      "            lv0 = R.call_tir(linear0, (x, w0, b0), (1, 128), dtype=\"float32\")\n"
      "            lv1 = R.call_tir(relu0, (lv0,), (1, 128), dtype=\"float32\")\n"
      "            out = R.call_tir(linear1, (lv1, w1, b1), (1, 10), dtype=\"float32\")\n"
      "            R.output(out)\n"
      "        return out\n";
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, text);
  CHECK(m != NULL);
  CHECK(m && strcmp(m->name, "MyModule") == 0);
  check_mlp(ctx, gfunc(ctx, m, "main"), "1");
  mlc_ctx_free(ctx);
}

/* symbolic batch: "n" in the signature, n = T.int64() in the body, n in
 * out_sinfo are one var */
static void test_mlp_symbolic(void) {
  static const char text[] =
      HEADER
      "@I.ir_module\n"
      "class Module:\n" MLP_PRIM_FUNCS_N
      "    @R.function\n"
      "    def main(x: R.Tensor((\"n\", 784), dtype=\"float32\"), w0: R.Tensor((128, 784), \"float32\"),\n"
      "             b0: R.Tensor((128,), \"float32\"), w1: R.Tensor((10, 128), \"float32\"),\n"
      "             b1: R.Tensor((10,), \"float32\")) -> R.Tensor((\"n\", 10), dtype=\"float32\"):\n"
      "        n = T.int64()\n"
      "        cls = Module\n"
      "        with R.dataflow():\n"
      "            lv0 = R.call_tir(cls.linear0, (x, w0, b0), out_sinfo=R.Tensor((n, 128), dtype=\"float32\"))\n"
      "            lv1 = R.call_tir(cls.relu0, (lv0,), out_sinfo=R.Tensor((n, 128), dtype=\"float32\"))\n"
      "            out = R.call_tir(cls.linear1, (lv1, w1, b1), out_sinfo=R.Tensor((n, 10), dtype=\"float32\"))\n"
      "            R.output(out)\n"
      "        return out\n";
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, text);
  const MlcGFunc *f = gfunc(ctx, m, "main");
  check_mlp(ctx, f, "n");
  if (f && f->body->seq.n == 1 && f->body->seq.blocks[0]->n == 3) {
    const MlcExpr *n = f->params[0]->sinfo->tensor.shape[0];
    const MlcBindingBlock *b = f->body->seq.blocks[0];
    CHECK(n->kind == MLC_EXPR_VAR && mlc_dtype_eq(n->dtype, MLC_I64));
    CHECK(b->bindings[0].var->sinfo->tensor.shape[0] == n);
    CHECK(b->bindings[2].var->sinfo->tensor.shape[0] == n);
    CHECK(f->ret->tensor.shape[0] == n);
  }
  mlc_ctx_free(ctx);
}

/* call_tir and call_dps_packed side by side, incl. the 2022 string callee */
static void test_mixed_dps(void) {
  static const char text[] =
      HEADER
      "@I.ir_module\n"
      "class Module:\n" MLP_PRIM_FUNCS
      "    @R.function\n"
      "    def main(x: R.Tensor((1, 784), \"float32\"), w0: R.Tensor((128, 784), \"float32\"),\n"
      "             b0: R.Tensor((128,), \"float32\"), w1: R.Tensor((10, 128), \"float32\"),\n"
      "             b1: R.Tensor((10,), \"float32\")):\n"
      "        cls = Module\n"
      "        with R.dataflow():\n"
      "            lv0 = R.call_dps_packed(\"env.linear\", (x, w0, b0), out_sinfo=R.Tensor((1, 128), dtype=\"float32\"))\n"
      "            lv1 = R.call_tir(\"env.relu\", (lv0,), (1, 128), dtype=\"float32\")\n"
      "            lv2 = R.call_tir(cls.linear1, (lv1, w1, b1), R.Tensor((1, 10), dtype=\"float32\"))\n"
      "            gv = R.call_dps_packed(\"env.split\", (lv2,), out_sinfo=[R.Tensor((1, 4), \"float32\"), R.Tensor((1, 6), \"float32\")])\n"
      "            two = R.call_tir(relu0, (lv1,), [(1, 4), (2,)], dtype=[\"float32\", \"int32\"])\n"
      "            R.output(gv, two)\n"
      "        return gv\n";
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, text);
  const MlcGFunc *f = gfunc(ctx, m, "main");
  CHECK(f != NULL);
  const MlcBinding *b0 = binding(f, 0, 0), *b1 = binding(f, 0, 1), *b2 = binding(f, 0, 2), *b3 = binding(f, 0, 3);
  CHECK(b0 && b1 && b2 && b3);
  if (b0 && b1 && b2 && b3) {
    CHECK(dps_call_is(b0->value, "call_dps_packed", MLC_G_EXTERN, "env.linear", 3));
    CHECK(dps_call_is(b1->value, "call_dps_packed", MLC_G_EXTERN, "env.relu", 1));
    CHECK(dps_call_is(b2->value, "call_tir", MLC_G_GLOBAL, "linear1", 3));
    CHECK(dps_call_is(b3->value, "call_dps_packed", MLC_G_EXTERN, "env.split", 1));
    CHECK_STR(sinfo_s(ctx, b1->var->sinfo), "float32(1,128)");
    CHECK_STR(sinfo_s(ctx, b2->var->sinfo), "float32(1,10)");
    CHECK_STR(sinfo_s(ctx, b3->var->sinfo), "(float32(1,4),float32(1,6))");
    CHECK(b0->var->kind == MLC_G_DFVAR && b3->var->kind == MLC_G_VAR);
    CHECK_STR(sinfo_s(ctx, f->ret), "(float32(1,4),float32(1,6))");
    const MlcBinding *b4 = binding(f, 0, 4);
    CHECK(b4 && dps_call_is(b4->value, "call_tir", MLC_G_GLOBAL, "relu0", 1));
    CHECK(b4 && strcmp(sinfo_s(ctx, b4->var->sinfo), "(float32(1,4),int32(2))") == 0);
  }
  mlc_ctx_free(ctx);
}

/* op calls keep their dotted name, args in order and keywords as attrs */
static void test_op_calls(void) {
  static const char text[] =
      HEADER
      "@R.function\n"
      "def main(x: R.Tensor((2, 4), \"float32\"), w: R.Tensor((4, 3), \"float32\")) -> R.Tensor((2, 3), \"float32\"):\n"
      "    with R.dataflow():\n"
      "        lv0 = R.matmul(x, w, out_dtype=\"float32\")\n"
      "        lv1: R.Tensor((2, 3), \"float32\") = R.nn.softmax(lv0, axis=-1)\n"
      "        lv2 = R.sum(lv1, axis=[0, 1], keepdims=True, eps=1e-05, mode=\"fast\", init=None)\n"
      "        lv3 = R.reshape(lv1, (3, 2))\n"
      "        gv: R.Tensor((2, 3), \"float32\") = R.nn.relu(lv1)\n"
      "        R.output(gv)\n"
      "    return gv\n";
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, text);
  CHECK(m && m->n_funcs == 1 && strcmp(m->name, "Module") == 0);
  const MlcGFunc *f = gfunc(ctx, m, "main");
  const MlcBinding *b[5];
  for (int i = 0; i < 5; i++) b[i] = binding(f, 0, i);
  CHECK(b[0] && b[4]);
  if (!b[0] || !b[4]) {
    mlc_ctx_free(ctx);
    return;
  }
  const MlcGExpr *c0 = b[0]->value, *c1 = b[1]->value, *c2 = b[2]->value, *c3 = b[3]->value;
  CHECK(c0->kind == MLC_G_CALL && is_named(c0->call.callee, MLC_G_OP, "matmul"));
  CHECK(c0->call.n == 2 && c0->call.args[0] == f->params[0] && c0->call.args[1] == f->params[1]);
  const MlcAttrValue *od = mlc_attrs_get(c0->call.attrs, mlc_intern(ctx, "out_dtype"));
  CHECK(od && od->kind == MLC_ATTR_DTYPE && mlc_dtype_eq(od->dtype, MLC_F32));
  CHECK_STR(sinfo_s(ctx, b[0]->var->sinfo), "object"); /* no op registry yet */
  CHECK(is_named(c1->call.callee, MLC_G_OP, "nn.softmax"));
  CHECK_STR(sinfo_s(ctx, b[1]->var->sinfo), "float32(2,3)");
  CHECK_STR(sinfo_s(ctx, c1->sinfo), "float32(2,3)");
  const MlcAttrValue *ax = mlc_attrs_get(c1->call.attrs, mlc_intern(ctx, "axis"));
  CHECK(ax && ax->kind == MLC_ATTR_INT && ax->i == -1);
  CHECK(c2->call.attrs.n == 5);
  if (c2->call.attrs.n == 5) {
    const MlcAttr *a = c2->call.attrs.items;
    CHECK_STR(a[0].key, "axis");
    CHECK(a[0].val.kind == MLC_ATTR_LIST && a[0].val.list.n == 2 && a[0].val.list.items[1].i == 1);
    CHECK_STR(a[1].key, "keepdims");
    CHECK(a[1].val.kind == MLC_ATTR_BOOL && a[1].val.b);
    CHECK(a[2].val.kind == MLC_ATTR_FLOAT && a[2].val.f == 1e-05);
    CHECK(a[3].val.kind == MLC_ATTR_STR && strcmp(a[3].val.s, "fast") == 0);
    CHECK(a[4].val.kind == MLC_ATTR_NONE);
  }
  CHECK(c3->call.n == 2 && c3->call.args[1]->kind == MLC_G_SHAPE && c3->call.args[1]->shape.n == 2);
  CHECK(b[4]->var->kind == MLC_G_VAR && b[3]->var->kind == MLC_G_DFVAR);
  mlc_ctx_free(ctx);
}

/* R.const, R.shape, R.prim_value, R.str, R.dtype, tuples and t[i] */
static void test_values(void) {
  static const char text[] =
      HEADER
      "@R.function\n"
      "def main(x: R.Tensor((2, 3), \"float32\")):\n"
      "    a = R.const(1.5, \"float32\")\n"
      "    b = R.const([[1, 2, 3], [-4, 5, 6]], \"int32\")\n"
      "    c = R.const([1.0, -2.0], dtype=\"float16\")\n"
      "    d = R.const([True, False])\n"
      "    e = R.const([[1, 2]])\n"
      "    s = R.shape([2, 3])\n"
      "    p = R.prim_value(T.int64(3))\n"
      "    q = R.str(\"hi\")\n"
      "    r = R.dtype(\"float16\")\n"
      "    t = (x, s, a)\n"
      "    u = t[1]\n"
      "    v = t[-1]\n"
      "    return (t, u)\n";
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, text);
  const MlcGFunc *f = gfunc(ctx, m, "main");
  CHECK(f && f->body->seq.n == 1 && f->body->seq.blocks[0]->n == 12);
  if (!f || f->body->seq.n != 1 || f->body->seq.blocks[0]->n != 12) {
    mlc_ctx_free(ctx);
    return;
  }
  const MlcBinding *bs = f->body->seq.blocks[0]->bindings;
  CHECK(!f->body->seq.blocks[0]->dataflow && bs[0].var->kind == MLC_G_VAR);
  const MlcTensorData *a = bs[0].value->constant;
  CHECK(bs[0].value->kind == MLC_G_CONST && a->ndim == 0 && a->nbytes == 4 && *(float *)a->data == 1.5f);
  CHECK_STR(sinfo_s(ctx, bs[0].var->sinfo), "float32()");
  const MlcTensorData *b = bs[1].value->constant;
  CHECK(b->ndim == 2 && b->shape[0] == 2 && b->shape[1] == 3 && b->nbytes == 24);
  CHECK(((int32_t *)b->data)[3] == -4 && ((int32_t *)b->data)[5] == 6);
  CHECK_STR(sinfo_s(ctx, bs[1].var->sinfo), "int32(2,3)");
  const MlcTensorData *c = bs[2].value->constant;
  CHECK(c->nbytes == 4 && ((uint16_t *)c->data)[0] == 0x3c00 && ((uint16_t *)c->data)[1] == 0xc000);
  CHECK_STR(sinfo_s(ctx, bs[3].var->sinfo), "bool(2)");
  CHECK(((uint8_t *)bs[3].value->constant->data)[0] == 1 && ((uint8_t *)bs[3].value->constant->data)[1] == 0);
  CHECK_STR(sinfo_s(ctx, bs[4].var->sinfo), "int32(1,2)"); /* ints default to int32 */
  CHECK(bs[5].value->kind == MLC_G_SHAPE);
  CHECK_STR(sinfo_s(ctx, bs[5].var->sinfo), "shape(2,3)");
  CHECK(bs[6].value->kind == MLC_G_PRIM && bs[6].value->prim->int_val == 3);
  CHECK_STR(sinfo_s(ctx, bs[6].var->sinfo), "prim(int64)");
  CHECK(is_named(bs[7].value, MLC_G_STR, "hi"));
  CHECK(bs[8].value->kind == MLC_G_DTYPE && bs[8].value->dtype.bits == 16);
  CHECK(bs[9].value->kind == MLC_G_TUPLE && bs[9].value->tuple.fields[0] == f->params[0]);
  CHECK_STR(sinfo_s(ctx, bs[9].var->sinfo), "(float32(2,3),shape(2,3),float32())");
  CHECK(bs[10].value->kind == MLC_G_GET_ITEM && bs[10].value->get_item.index == 1);
  CHECK_STR(sinfo_s(ctx, bs[10].var->sinfo), "shape(2,3)");
  CHECK(bs[11].value->get_item.index == 2);
  CHECK(f->body->seq.result->kind == MLC_G_TUPLE);
  CHECK_STR(sinfo_s(ctx, f->ret), "((float32(2,3),shape(2,3),float32()),shape(2,3))");
  mlc_ctx_free(ctx);
}

/* struct info spellings */
static void test_sinfo_forms(void) {
  static const char text[] =
      HEADER
      "@R.function\n"
      "def f(a: R.Tensor(dtype=\"float32\", ndim=2), b: R.Tensor, c: R.Shape([\"m\", 4]), d: R.Shape(ndim=3),\n"
      "      e: R.Object, g: R.Prim(\"int64\"), h: R.Tuple(R.Tensor((\"m\",), \"int8\"), R.Object),\n"
      "      i: R.Tensor((m * 2, 3), \"float32\"), j: R.Tensor(\"bfloat16\")) -> R.Object:\n"
      "    return a\n";
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, text);
  const MlcGFunc *f = gfunc(ctx, m, "f");
  CHECK(f && f->n_params == 9);
  if (!f || f->n_params != 9) {
    mlc_ctx_free(ctx);
    return;
  }
  CHECK_STR(sinfo_s(ctx, f->params[0]->sinfo), "float32[ndim=2]");
  CHECK_STR(sinfo_s(ctx, f->params[1]->sinfo), "?[?]");
  CHECK_STR(sinfo_s(ctx, f->params[2]->sinfo), "shape(m,4)");
  CHECK_STR(sinfo_s(ctx, f->params[3]->sinfo), "shape[ndim=3]");
  CHECK_STR(sinfo_s(ctx, f->params[4]->sinfo), "object");
  CHECK_STR(sinfo_s(ctx, f->params[5]->sinfo), "prim(int64)");
  CHECK_STR(sinfo_s(ctx, f->params[6]->sinfo), "(int8(m),object)");
  CHECK_STR(sinfo_s(ctx, f->params[7]->sinfo), "float32(<expr>,3)");
  CHECK_STR(sinfo_s(ctx, f->params[8]->sinfo), "bfloat16[?]");
  /* "m" is one var across params */
  CHECK(f->params[2]->sinfo->shape.values[0] == f->params[6]->sinfo->tuple.fields[0]->tensor.shape[0]);
  CHECK_STR(sinfo_s(ctx, f->ret), "object");
  mlc_ctx_free(ctx);
}

/* if/else, calls to module functions, attributes, purity */
static void test_control_and_calls(void) {
  static const char text[] =
      HEADER
      "@I.ir_module\n"
      "class Mod:\n"
      "    @R.function\n"
      "    def double(x: R.Tensor((2,), \"float32\")) -> R.Tensor((2,), \"float32\"):\n"
      "        y = R.add(x, x)\n"
      "        return y\n"
      "    @R.function(pure=False)\n"
      "    def main(c: R.Tensor((), \"bool\"), x: R.Tensor((2,), \"float32\")) -> R.Tensor((2,), \"float32\"):\n"
      "        R.func_attr({\"global_symbol\": \"main\", \"num_input\": 1})\n"
      "        cls = Mod\n"
      "        if c:\n"
      "            y: R.Tensor((2,), \"float32\") = cls.double(x)\n"
      "            z: R.Tensor((2,), \"float32\") = R.add(y, x)\n"
      "        else:\n"
      "            z: R.Tensor((2,), \"float32\") = R.multiply(x, x)\n"
      "        R.print(z, format=\"{}\")\n"
      "        return z\n";
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, text);
  const MlcGFunc *f = gfunc(ctx, m, "main");
  CHECK(f != NULL);
  if (!f) {
    mlc_ctx_free(ctx);
    return;
  }
  CHECK(!f->pure && gfunc(ctx, m, "double")->pure);
  CHECK(f->attrs.n == 2);
  const MlcAttrValue *gs = mlc_attrs_get(f->attrs, mlc_intern(ctx, "global_symbol"));
  CHECK(gs && gs->kind == MLC_ATTR_STR && strcmp(gs->s, "main") == 0);
  const MlcAttrValue *ni = mlc_attrs_get(f->attrs, mlc_intern(ctx, "num_input"));
  CHECK(ni && ni->kind == MLC_ATTR_INT && ni->i == 1);
  const MlcBinding *bi = binding(f, 0, 0), *bp = binding(f, 0, 1);
  CHECK(bi && bp);
  if (!bi || !bp) {
    mlc_ctx_free(ctx);
    return;
  }
  CHECK(bi->var->kind == MLC_G_VAR && strcmp(bi->var->var.name, "z") == 0);
  CHECK(bi->value->kind == MLC_G_IF && bi->value->if_.cond == f->params[0]);
  CHECK_STR(sinfo_s(ctx, bi->var->sinfo), "float32(2)");
  const MlcGExpr *th = bi->value->if_.then_e, *el = bi->value->if_.else_e;
  CHECK(th->kind == MLC_G_SEQ && el->kind == MLC_G_SEQ);
  CHECK(th->seq.n == 1 && th->seq.blocks[0]->n == 2 && el->seq.blocks[0]->n == 1);
  CHECK(th->seq.result == th->seq.blocks[0]->bindings[1].var);
  CHECK(strcmp(el->seq.result->var.name, "z") == 0 && el->seq.result != bi->var);
  const MlcGExpr *call = th->seq.blocks[0]->bindings[0].value;
  CHECK(call->kind == MLC_G_CALL && is_named(call->call.callee, MLC_G_GLOBAL, "double"));
  CHECK(call->call.n == 1 && call->call.args[0] == f->params[1]);
  /* the effect call is bound to `_`, and keeps its keyword */
  CHECK(is_named(bp->value->call.callee, MLC_G_OP, "print") && bp->value->call.attrs.n == 1);
  CHECK(f->body->seq.result == bi->var);
  mlc_ctx_free(ctx);
}

/* ---- errors ------------------------------------------------------------- */

#define ERR_PRELUDE                                                                   \
  HEADER "@I.ir_module\n"                                                             \
         "class Module:\n" MLP_PRIM_FUNCS                                             \
         "    @R.function\n"                                                          \
         "    def main(x: R.Tensor((1, 784), \"float32\"), w0: R.Tensor((128, 784), \"float32\"),\n" \
         "             b0: R.Tensor((128,), \"float32\")):\n"                           \
         "        cls = Module\n"                                                     \
         "        with R.dataflow():\n"

#define OUT128 "out_sinfo=R.Tensor((1, 128), \"float32\")"

/* the errors all sit in the last lines, after the prelude's */
static int body_line(void) {
  int n = 1;
  for (const char *p = ERR_PRELUDE; *p; p++) n += *p == '\n';
  return n;
}

static void test_error_names(void) {
  static const char undefined[] = ERR_PRELUDE
      "            lv0 = R.call_tir(cls.linear0, (x, w9, b0), " OUT128 ")\n"
      "            R.output(lv0)\n"
      "        return lv0\n";
  check_read_error(undefined, body_line(), "w9", "undefined name 'w9'");
  static const char no_func[] = ERR_PRELUDE
      "            lv0 = R.call_tir(cls.linear9, (x, w0, b0), " OUT128 ")\n"
      "            R.output(lv0)\n"
      "        return lv0\n";
  check_read_error(no_func, body_line(), "cls.linear9", "has no function 'linear9'");
  static const char not_prim[] = ERR_PRELUDE
      "            lv0 = R.call_tir(cls.main, (x, w0, b0), " OUT128 ")\n"
      "            R.output(lv0)\n"
      "        return lv0\n";
  check_read_error(not_prim, body_line(), "cls.main", "not a prim func");
  static const char dead[] = ERR_PRELUDE
      "            lv0 = R.call_tir(cls.linear0, (x, w0, b0), " OUT128 ")\n"
      "            lv1 = R.call_tir(cls.relu0, (lv0,), " OUT128 ")\n"
      "            R.output(lv1)\n"
      "        return lv0\n";
  check_read_error(dead, body_line() + 3, "lv0", "R.output");
  static const char rebind[] = ERR_PRELUDE
      "            lv0 = R.call_tir(cls.linear0, (x, w0, b0), " OUT128 ")\n"
      "            lv0 = R.call_tir(cls.relu0, (lv0,), " OUT128 ")\n"
      "            R.output(lv0)\n"
      "        return lv0\n";
  check_read_error(rebind, body_line() + 1, "lv0", "already bound in this dataflow block");
  static const char bad_output[] = ERR_PRELUDE
      "            lv0 = R.call_tir(cls.linear0, (x, w0, b0), " OUT128 ")\n"
      "            R.output(lv9)\n"
      "        return lv0\n";
  check_read_error(bad_output, body_line() + 1, "lv9", "not bound in this dataflow block");
}

static void test_error_forms(void) {
  static const char args[] = ERR_PRELUDE
      "            lv0 = R.call_tir(cls.linear0, x, " OUT128 ")\n"
      "            R.output(lv0)\n"
      "        return lv0\n";
  check_read_error(args, body_line(), "x, out", "R.call_tir expects (callee, args tuple, out_sinfo)");
  static const char no_out[] = ERR_PRELUDE
      "            lv0 = R.call_tir(cls.linear0, (x, w0, b0))\n"
      "            R.output(lv0)\n"
      "        return lv0\n";
  check_read_error(no_out, body_line(), "R.call_tir(", "R.call_tir expects (callee, args tuple, out_sinfo)");
  static const char kw[] = ERR_PRELUDE
      "            lv0 = R.call_tir(cls.linear0, (x, w0, b0), " OUT128 ", foo=1)\n"
      "            R.output(lv0)\n"
      "        return lv0\n";
  check_read_error(kw, body_line(), "foo", "unknown keyword 'foo'");
  static const char dtype[] = ERR_PRELUDE
      "            lv0 = R.call_tir(cls.linear0, (x, w0, b0), out_sinfo=R.Tensor((1, \"n\"), \"float33\"))\n"
      "            R.output(lv0)\n"
      "        return lv0\n";
  check_read_error(dtype, body_line(), "\"float33\"", "unknown dtype 'float33'");
  static const char contra[] = ERR_PRELUDE
      "            lv0: R.Tensor((1, 10), \"float32\") = R.call_tir(cls.linear0, (x, w0, b0), " OUT128 ")\n"
      "            R.output(lv0)\n"
      "        return lv0\n";
  check_read_error(contra, body_line(), "R.Tensor((1, 10)", "contradicts");
  static const char ragged[] = ERR_PRELUDE
      "            lv0 = R.const([[1, 2], [3]], \"int32\")\n"
      "            R.output(lv0)\n"
      "        return lv0\n";
  check_read_error(ragged, body_line(), "[3]", "ragged");
  static const char bad_int[] = ERR_PRELUDE
      "            lv0 = R.const([1, 300], \"int8\")\n"
      "            R.output(lv0)\n"
      "        return lv0\n";
  check_read_error(bad_int, body_line(), "300", "does not fit");
  static const char big_float[] = ERR_PRELUDE
      "            lv0 = R.const([1.0, 1e39], \"float32\")\n"
      "            R.output(lv0)\n"
      "        return lv0\n";
  check_read_error(big_float, body_line(), "1e39", "does not fit");
  static const char attr_in_df[] = ERR_PRELUDE
      "            R.func_attr({\"num_input\": 1})\n"
      "            lv0 = R.add(x, x)\n"
      "            R.output(lv0)\n"
      "        return lv0\n";
  check_read_error(attr_in_df, body_line(), "R.func_attr", "top level");
  static const char index[] = ERR_PRELUDE
      "            lv0 = (x, w0)\n"
      "            lv1 = lv0[2]\n"
      "            R.output(lv1)\n"
      "        return lv1\n";
  check_read_error(index, body_line() + 1, "2]", "out of range");
}

static void test_error_functions(void) {
  static const char dup[] =
      HEADER
      "@R.function\n"
      "def f(x: R.Tensor((2,), \"float32\"), x: R.Tensor((2,), \"float32\")):\n"
      "    return x\n";
  check_read_error(dup, 5, "x: R.Tensor((2,), \"float32\"))", "duplicate parameter 'x'");
  static const char no_ret[] =
      HEADER
      "@R.function\n"
      "def f(x: R.Tensor((2,), \"float32\")):\n"
      "    y = R.add(x, x)\n";
  check_read_error(no_ret, 5, "def", "must end with return");
  static const char no_else[] =
      HEADER
      "@R.function\n"
      "def f(c: R.Tensor((), \"bool\"), x: R.Tensor((2,), \"float32\")):\n"
      "    if c:\n"
      "        y = R.add(x, x)\n"
      "    return x\n";
  check_read_error(no_else, 6, "if", "needs an else");
  static const char branches[] =
      HEADER
      "@R.function\n"
      "def f(c: R.Tensor((), \"bool\"), x: R.Tensor((2,), \"float32\")):\n"
      "    if c:\n"
      "        y = R.add(x, x)\n"
      "    else:\n"
      "        z = R.add(x, x)\n"
      "    return x\n";
  check_read_error(branches, 9, "z", "same name");
  static const char int32_dim[] =
      HEADER
      "@R.function\n"
      "def f(x: R.Tensor((\"n\",), \"float32\")):\n"
      "    n = T.int32()\n"
      "    return x\n";
  check_read_error(int32_dim, 6, "T.int32", "int64");
  static const char prim_call[] =
      HEADER
      "@I.ir_module\n"
      "class Module:\n" MLP_PRIM_FUNCS
      "    @R.function\n"
      "    def main(x: R.Tensor((1, 128), \"float32\")):\n"
      "        y = Module.relu0(x)\n"
      "        return y\n";
  check_read_error(prim_call, 1, "Module.relu0", "R.call_tir");
  static const char missing_annot[] =
      HEADER
      "@R.function\n"
      "def f(x):\n"
      "    return x\n";
  check_read_error(missing_annot, 5, "x)", "needs a struct info annotation");
}

int main(void) {
  RUN(test_mlp);
  RUN(test_mlp_2022);
  RUN(test_mlp_symbolic);
  RUN(test_mixed_dps);
  RUN(test_op_calls);
  RUN(test_values);
  RUN(test_sinfo_forms);
  RUN(test_control_and_calls);
  RUN(test_error_names);
  RUN(test_error_forms);
  RUN(test_error_functions);
  return CHECK_DONE();
}
