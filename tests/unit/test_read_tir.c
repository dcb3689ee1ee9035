/* test_read_tir.c - the reader of tensor programs (`@T.prim_func`) and the
 * reader driver.
 *
 * Each test reads TVMScript text through the public reader and checks the
 * TIR it gives directly: node kinds, dtypes, loop and iter kinds, bindings
 * (by var identity), block regions; for bad input the message and its
 * line:col, counted by hand from the test text. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "mlcc/text.h"
#include "text/ast.h"

#define HEADER                        \
  "from tvm.script import ir as I\n"  \
  "from tvm.script import tir as T\n"

/* ---- helpers ------------------------------------------------------------- */

static MlcModule *read_text(MlcCtx *ctx, const char *text) {
  MlcModule *m = mlc_read_module(ctx, "t.py", text, strlen(text));
  if (!m) {
    MlcStrBuf sb = {0};
    mlc_format_error(ctx, &sb);
    printf("  note: %s", mlc_sb_cstr(&sb));
    mlc_vec_free(&sb);
  }
  return m;
}

static const MlcPrimFunc *prim(const MlcModule *m, MlcCtx *ctx, const char *name) {
  const MlcFunc *f = m ? mlc_module_find(m, mlc_intern(ctx, name)) : NULL;
  return f && f->kind == MLC_FUNC_PRIM ? f->prim : NULL;
}

/* reads text that must fail: the error is at line:col and says `want` */
static void expect_error(const char *text, int line, int col, const char *want) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = mlc_read_module(ctx, "t.py", text, strlen(text));
  CHECK(m == NULL);
  CHECK(mlc_has_error(ctx));
  MlcLoc loc = mlc_error_loc(ctx);
  const char *msg = mlc_error_msg(ctx);
  if (loc.line != line || loc.col != col || !strstr(msg, want))
    printf("  note: got %d:%d: %s (want %d:%d: %s)\n", loc.line, loc.col, msg, line, col, want);
  CHECK(loc.line == line);
  CHECK(loc.col == col);
  CHECK(strstr(msg, want) != NULL);
  mlc_ctx_free(ctx);
}

static bool is_dt(MlcDType t, MlcDType want) { return mlc_dtype_eq(t, want); }

static bool is_int(const MlcExpr *e, MlcDType t, int64_t v) {
  return e && e->kind == MLC_EXPR_INT && is_dt(e->dtype, t) && e->int_val == v;
}

static bool is_float(const MlcExpr *e, MlcDType t, double v) {
  return e && e->kind == MLC_EXPR_FLOAT && is_dt(e->dtype, t) && e->float_val == v;
}

static bool is_bin(const MlcExpr *e, MlcBinOp op) { return e && e->kind == MLC_EXPR_BINARY && e->bin.op == op; }

static bool is_load(const MlcExpr *e, const MlcBuffer *buf, const MlcExpr *i0, const MlcExpr *i1) {
  return e && e->kind == MLC_EXPR_LOAD && e->load.buf == buf && e->load.n == 2 && e->load.idx[0] == i0 &&
         e->load.idx[1] == i1;
}

static const MlcBlock *realize_block(const MlcStmt *s) {
  return s && s->kind == MLC_STMT_BLOCK_REALIZE ? s->realize.block : NULL;
}

static const MlcBufferRegion *region_of(const MlcBufferRegion *r, int n, const MlcBuffer *buf) {
  for (int i = 0; i < n; i++)
    if (r[i].buf == buf) return &r[i];
  return NULL;
}

/* the region is the point [vars[d], 1) in every dimension */
static bool is_point_region(const MlcBufferRegion *r, const MlcExpr *v0, const MlcExpr *v1) {
  if (!r || r->buf->ndim != 2) return false;
  const MlcExpr *v[2] = {v0, v1};
  for (int d = 0; d < 2; d++)
    if (r->ranges[d].min != v[d] || !is_int(r->ranges[d].extent, v[d]->dtype, 1)) return false;
  return true;
}

/* ---- the mm_relu program, both spellings ---------------------------------- */

static const char *mm_relu_text =
    HEADER
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def mm_relu(A: T.Buffer((128, 128), \"float32\"),\n"
    "                B: T.Buffer((128, 128), \"float32\"),\n"
    "                C: T.Buffer((128, 128), \"float32\")):\n"
    "        T.func_attr({\"global_symbol\": \"mm_relu\", \"tir.noalias\": True})\n"
    "        Y = T.alloc_buffer((128, 128), dtype=\"float32\")\n"
    "        for i, j, k in T.grid(128, 128, 128):\n"
    "            with T.block(\"Y\"):\n"
    "                vi = T.axis.spatial(128, i)\n"
    "                vj = T.axis.spatial(128, j)\n"
    "                vk = T.axis.reduce(128, k)\n"
    "                with T.init():\n"
    "                    Y[vi, vj] = T.float32(0)\n"
    "                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]\n"
    "        for i, j in T.grid(128, 128):\n"
    "            with T.block(\"C\"):\n"
    "                vi = T.axis.spatial(128, i)\n"
    "                vj = T.axis.spatial(128, j)\n"
    "                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))\n";

static const char *mm_relu_2022_text =
    "import tvm\n"
    "from tvm.script import tir as T\n"
    "@tvm.script.ir_module\n"
    "class MyModule:\n"
    "    @T.prim_func\n"
    "    def mm_relu(A: T.Buffer[(128, 128), \"float32\"],\n"
    "                B: T.Buffer[(128, 128), \"float32\"],\n"
    "                C: T.Buffer[(128, 128), \"float32\"]):\n"
    "        T.func_attr({\"global_symbol\": \"mm_relu\", \"tir.noalias\": True})\n"
    "        Y = T.alloc_buffer((128, 128), dtype=\"float32\")\n"
    "        for i, j, k in T.grid(128, 128, 128):\n"
    "            with T.block(\"Y\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                with T.init():\n"
    "                    Y[vi, vj] = T.float32(0)\n"
    "                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]\n"
    "        for i, j in T.grid(128, 128):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))\n";

/* Checks everything about mm_relu that both spellings must give. */
static void check_mm_relu(MlcCtx *ctx, const MlcPrimFunc *f) {
  CHECK(f != NULL);
  if (!f) return;
  CHECK(f->n_params == 3);
  const MlcBuffer *A = f->params[0].buf, *B = f->params[1].buf, *C = f->params[2].buf;
  CHECK(A && B && C);
  if (!A || !B || !C) return;
  CHECK(is_dt(f->params[0].var->dtype, MLC_HANDLE));
  CHECK(A->ndim == 2 && is_dt(A->dtype, MLC_F32));
  CHECK(is_int(A->shape[0], MLC_I32, 128) && is_int(A->shape[1], MLC_I32, 128));
  CHECK(A->scope == mlc_intern(ctx, "global"));
  const MlcAttrValue *gs = mlc_attrs_get(f->attrs, mlc_intern(ctx, "global_symbol"));
  const MlcAttrValue *na = mlc_attrs_get(f->attrs, mlc_intern(ctx, "tir.noalias"));
  CHECK(gs && gs->kind == MLC_ATTR_STR && strcmp(gs->s, "mm_relu") == 0);
  CHECK(na && na->kind == MLC_ATTR_BOOL && na->b);

  /* the implicit root block holds Y and two loop nests */
  const MlcBlock *root = realize_block(f->body);
  CHECK(root && root->name == mlc_intern(ctx, "root") && root->n_iters == 0 && root->n_allocs == 1);
  if (!root || root->n_allocs != 1) return;
  const MlcBuffer *Y = root->allocs[0];
  CHECK(Y->name == mlc_intern(ctx, "Y") && Y->ndim == 2 && is_dt(Y->dtype, MLC_F32));
  CHECK(root->n_reads == 0 && root->n_writes == 0);
  CHECK(root->body->kind == MLC_STMT_SEQ && root->body->seq.n == 2);
  if (root->body->kind != MLC_STMT_SEQ || root->body->seq.n != 2) return;

  const MlcStmt *li = root->body->seq.items[0];
  CHECK(li->kind == MLC_STMT_FOR && li->loop.kind == MLC_FOR_SERIAL);
  CHECK(is_int(li->loop.min, MLC_I32, 0) && is_int(li->loop.extent, MLC_I32, 128));
  const MlcStmt *lj = li->loop.body, *lk = lj->loop.body;
  CHECK(lj->kind == MLC_STMT_FOR && lk->kind == MLC_STMT_FOR);
  const MlcStmt *ry = lk->loop.body;
  const MlcBlock *by = realize_block(ry);
  CHECK(by && by->name == mlc_intern(ctx, "Y") && by->n_iters == 3);
  if (!by || by->n_iters != 3) return;
  CHECK(by->iters[0].kind == MLC_ITER_SPATIAL && by->iters[1].kind == MLC_ITER_SPATIAL &&
        by->iters[2].kind == MLC_ITER_REDUCE);
  CHECK(ry->realize.values[0] == li->loop.var && ry->realize.values[1] == lj->loop.var &&
        ry->realize.values[2] == lk->loop.var);
  CHECK(is_int(by->iters[2].dom.min, MLC_I32, 0) && is_int(by->iters[2].dom.extent, MLC_I32, 128));
  CHECK(is_int(ry->realize.pred, MLC_BOOL, 1));
  const MlcExpr *vi = by->iters[0].var, *vj = by->iters[1].var, *vk = by->iters[2].var;
  CHECK(is_dt(vi->dtype, MLC_I32));
  /* init, body */
  CHECK(by->init && by->init->kind == MLC_STMT_STORE && by->init->store.buf == Y);
  CHECK(by->init && is_float(by->init->store.value, MLC_F32, 0.0));
  const MlcStmt *st = by->body;
  CHECK(st->kind == MLC_STMT_STORE && st->store.buf == Y && st->store.idx[0] == vi && st->store.idx[1] == vj);
  const MlcExpr *v = st->store.value;
  CHECK(is_bin(v, MLC_BIN_ADD) && is_load(v->bin.a, Y, vi, vj));
  CHECK(is_bin(v->bin.b, MLC_BIN_MUL) && is_load(v->bin.b->bin.a, A, vi, vk) && is_load(v->bin.b->bin.b, B, vk, vj));
  /* inferred regions: A and B read at points, Y written only */
  CHECK(by->n_reads == 2 && by->n_writes == 1);
  CHECK(is_point_region(region_of(by->reads, by->n_reads, A), vi, vk));
  CHECK(is_point_region(region_of(by->reads, by->n_reads, B), vk, vj));
  CHECK(is_point_region(region_of(by->writes, by->n_writes, Y), vi, vj));

  const MlcStmt *rc = root->body->seq.items[1]->loop.body->loop.body;
  const MlcBlock *bc = realize_block(rc);
  CHECK(bc && bc->name == mlc_intern(ctx, "C") && bc->n_iters == 2 && !bc->init);
  if (!bc) return;
  const MlcExpr *cv = bc->body->store.value;
  CHECK(bc->body->store.buf == C && is_bin(cv, MLC_BIN_MAX));
  CHECK(is_load(cv->bin.a, Y, bc->iters[0].var, bc->iters[1].var) && is_float(cv->bin.b, MLC_F32, 0.0));
  CHECK(is_point_region(region_of(bc->reads, bc->n_reads, Y), bc->iters[0].var, bc->iters[1].var));
}

static void test_mm_relu(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, mm_relu_text);
  CHECK(m && m->name == mlc_intern(ctx, "Module") && m->n_funcs == 1);
  check_mm_relu(ctx, prim(m, ctx, "mm_relu"));
  mlc_ctx_free(ctx);
}

static void test_mm_relu_2022(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcModule *m = read_text(ctx, mm_relu_2022_text);
  CHECK(m && m->name == mlc_intern(ctx, "MyModule"));
  check_mm_relu(ctx, prim(m, ctx, "mm_relu"));
  MlcModule *cur = read_text(ctx, mm_relu_text);
  CHECK(m && cur && mlc_prim_func_equal(prim(m, ctx, "mm_relu"), prim(cur, ctx, "mm_relu")));
  mlc_ctx_free(ctx);
}

/* ---- symbolic sizes ------------------------------------------------------ */

static void test_match_buffer(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const char *text = HEADER
      "@T.prim_func\n"
      "def add(a: T.handle, b: T.handle):\n"
      "    n = T.int64()\n"
      "    A = T.match_buffer(a, (n, 128), \"float32\")\n"
      "    B = T.match_buffer(b, (n, 128))\n"
      "    for i, j in T.grid(n, T.int64(128)):\n"
      "        with T.block(\"B\"):\n"
      "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
      "            B[vi, vj] = A[vi, vj] + 1\n";
  MlcModule *m = read_text(ctx, text);
  const MlcPrimFunc *f = prim(m, ctx, "add");
  CHECK(m && m->name == mlc_intern(ctx, "Module"));
  CHECK(f && f->n_params == 2);
  if (!f || f->n_params != 2) goto done;
  const MlcBuffer *A = f->params[0].buf, *B = f->params[1].buf;
  CHECK(f->params[0].var->var.name == mlc_intern(ctx, "a") && is_dt(f->params[0].var->dtype, MLC_HANDLE));
  CHECK(A && B && A->name == mlc_intern(ctx, "A"));
  if (!A || !B) goto done;
  const MlcExpr *n = A->shape[0];
  CHECK(n->kind == MLC_EXPR_VAR && is_dt(n->dtype, MLC_I64) && n->var.name == mlc_intern(ctx, "n"));
  CHECK(B->shape[0] == n);                      /* one var for both buffers */
  CHECK(is_int(A->shape[1], MLC_I64, 128));    /* a literal next to an int64 dim is int64 */
  CHECK(is_dt(B->dtype, MLC_F32));              /* the default dtype */
  const MlcStmt *li = realize_block(f->body)->body;
  CHECK(li->kind == MLC_STMT_FOR && li->loop.extent == n && is_dt(li->loop.var->dtype, MLC_I64));
  CHECK(is_int(li->loop.min, MLC_I64, 0));
  const MlcBlock *b = realize_block(li->loop.body->loop.body);
  CHECK(b && b->iters[0].dom.extent == n && is_dt(b->iters[0].var->dtype, MLC_I64));
  const MlcExpr *v = b ? b->body->store.value : NULL;
  CHECK(is_bin(v, MLC_BIN_ADD) && is_float(v->bin.b, MLC_F32, 1.0)); /* 1 adopts float32 */
done:
  mlc_ctx_free(ctx);
}

static void test_var_2022_and_implicit_size(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const char *text = HEADER
      "@I.ir_module\n"
      "class Module:\n"
      "    @T.prim_func\n"
      "    def f(a: T.handle):\n"
      "        m = T.var(\"int32\")\n"
      "        A = T.match_buffer(a, [m], dtype=\"float32\")\n"
      "        for i in range(m):\n"
      "            A[i] = A[i] * 0.5\n"
      "    @T.prim_func\n"
      "    def g(X: T.Buffer((n, 4), \"int8\"), k: T.int32):\n"
      "        for i in range(n):\n"
      "            X[i, 0] = T.int8(k)\n";
  MlcModule *m = read_text(ctx, text);
  const MlcPrimFunc *f = prim(m, ctx, "f"), *g = prim(m, ctx, "g");
  CHECK(f && g);
  if (!f || !g) goto done;
  CHECK(is_dt(f->params[0].buf->shape[0]->dtype, MLC_I32));
  CHECK(f->body->kind == MLC_STMT_FOR); /* no block: no root block */
  const MlcExpr *v = f->body->loop.body->store.value;
  CHECK(is_bin(v, MLC_BIN_MUL) && is_float(v->bin.b, MLC_F32, 0.5));
  /* n first met in g's signature: an int32 size var */
  const MlcExpr *n = g->params[0].buf->shape[0];
  CHECK(n->kind == MLC_EXPR_VAR && is_dt(n->dtype, MLC_I32) && g->body->loop.extent == n);
  CHECK(g->n_params == 2 && is_dt(g->params[1].var->dtype, MLC_I32) && !g->params[1].buf);
  const MlcExpr *c = g->body->loop.body->store.value;
  CHECK(c->kind == MLC_EXPR_CAST && is_dt(c->dtype, MLC_DT(MLC_TC_INT, 8, 1)) && c->operand == g->params[1].var);
done:
  mlc_ctx_free(ctx);
}

/* ---- loops ------------------------------------------------------------------ */

static void test_loop_kinds(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const char *text = HEADER
      "@T.prim_func\n"
      "def f(A: T.Buffer((1024,), \"float32\")):\n"
      "    for a in T.parallel(2):\n"
      "        for b in T.unroll(2):\n"
      "            for c in T.serial(1, 63, annotations={\"pragma_auto_unroll_max_step\": 16}):\n"
      "                for d in T.vectorized(4):\n"
      "                    for e in T.thread_binding(8, thread=\"blockIdx.x\"):\n"
      "                        for g in T.thread_binding(0, 2, \"threadIdx.x\"):\n"
      "                            for h in range(2, 2 * 5):\n"
      "                                A[a + b + c + d + e + g + h] = T.float32(1)\n";
  MlcModule *m = read_text(ctx, text);
  const MlcPrimFunc *f = prim(m, ctx, "f");
  CHECK(f != NULL);
  if (!f) goto done;
  const MlcStmt *s = f->body;
  static const MlcForKind kinds[] = {MLC_FOR_PARALLEL, MLC_FOR_UNROLLED, MLC_FOR_SERIAL, MLC_FOR_VECTORIZED,
                                     MLC_FOR_THREAD, MLC_FOR_THREAD, MLC_FOR_SERIAL};
  const MlcStmt *loops[7];
  for (int i = 0; i < 7; i++) {
    CHECK(s->kind == MLC_STMT_FOR && s->loop.kind == kinds[i]);
    if (s->kind != MLC_STMT_FOR) goto done;
    loops[i] = s;
    s = s->loop.body;
  }
  CHECK(is_int(loops[2]->loop.min, MLC_I32, 1) && is_int(loops[2]->loop.extent, MLC_I32, 62));
  const MlcAttrValue *ann = mlc_attrs_get(loops[2]->loop.annotations, mlc_intern(ctx, "pragma_auto_unroll_max_step"));
  CHECK(ann && ann->kind == MLC_ATTR_INT && ann->i == 16);
  CHECK(loops[4]->loop.thread == mlc_intern(ctx, "blockIdx.x") && is_int(loops[4]->loop.extent, MLC_I32, 8));
  CHECK(loops[5]->loop.thread == mlc_intern(ctx, "threadIdx.x") && is_int(loops[5]->loop.extent, MLC_I32, 2));
  CHECK(is_int(loops[6]->loop.min, MLC_I32, 2) && is_int(loops[6]->loop.extent, MLC_I32, 8)); /* 2 * 5 folds */
  CHECK(s->kind == MLC_STMT_STORE);
done:
  mlc_ctx_free(ctx);
}

/* ---- blocks: where, explicit regions, if_then_else, attrs -------------------- */

static void test_where_and_regions(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const char *text = HEADER
      "@T.prim_func\n"
      "def f(A: T.Buffer((10, 128), \"float32\"), B: T.Buffer((10,), \"float32\")):\n"
      "    for i, j in T.grid(3, 4):\n"
      "        with T.block(\"B\"):\n"
      "            vi = T.axis.spatial(10, i * 4 + j)\n"
      "            T.where(i * 4 + j < 10)\n"
      "            T.reads([A[vi, 0:128]])\n"
      "            T.writes(B[vi])\n"
      "            T.block_attr({\"note\": \"x\", \"n\": T.int64(2)})\n"
      "            B[vi] = T.if_then_else(vi < 5, A[vi, 0], 0.0)\n";
  MlcModule *m = read_text(ctx, text);
  const MlcPrimFunc *f = prim(m, ctx, "f");
  CHECK(f != NULL);
  if (!f) goto done;
  const MlcBuffer *A = f->params[0].buf, *B = f->params[1].buf;
  const MlcStmt *r = realize_block(f->body)->body->loop.body->loop.body;
  const MlcBlock *b = realize_block(r);
  CHECK(b && b->n_iters == 1);
  if (!b) goto done;
  CHECK(is_bin(r->realize.pred, MLC_BIN_LT) && is_dt(r->realize.pred->dtype, MLC_BOOL));
  CHECK(is_bin(r->realize.values[0], MLC_BIN_ADD));
  CHECK(b->n_reads == 1 && b->reads[0].buf == A && b->reads[0].ranges[0].min == b->iters[0].var);
  CHECK(is_int(b->reads[0].ranges[1].min, MLC_I32, 0) && is_int(b->reads[0].ranges[1].extent, MLC_I32, 128));
  CHECK(b->n_writes == 1 && b->writes[0].buf == B && is_int(b->writes[0].ranges[0].extent, MLC_I32, 1));
  const MlcAttrValue *note = mlc_attrs_get(b->annotations, mlc_intern(ctx, "note"));
  const MlcAttrValue *n = mlc_attrs_get(b->annotations, mlc_intern(ctx, "n"));
  CHECK(note && note->kind == MLC_ATTR_STR && n && n->kind == MLC_ATTR_EXPR && is_int(n->expr, MLC_I64, 2));
  const MlcExpr *v = b->body->store.value;
  CHECK(v->kind == MLC_EXPR_CALL && v->call.op == MLC_INTRIN_IF_THEN_ELSE && is_dt(v->dtype, MLC_F32));
  CHECK(is_bin(v->call.args[0], MLC_BIN_LT) && is_float(v->call.args[2], MLC_F32, 0.0));
done:
  mlc_ctx_free(ctx);
}

/* An explicit root block is the implicit one; T.reads() is an empty list,
 * not an inferred one; block-level allocations, lets, ifs and evaluate. */
static void test_root_let_if(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const char *implicit = HEADER
      "@T.prim_func\n"
      "def f(A: T.Buffer((8,), \"float32\")):\n"
      "    X = T.alloc_buffer((8,), scope=\"local\")\n"
      "    for i in range(8):\n"
      "        with T.block(\"X\"):\n"
      "            vi = T.axis.S(8, i)\n"
      "            X[vi] = A[vi]\n";
  const char *explicit_root = HEADER
      "@T.prim_func\n"
      "def f(A: T.Buffer((8,), \"float32\")):\n"
      "    with T.block(\"root\"):\n"
      "        X = T.alloc_buffer((8,), \"float32\", scope=\"local\")\n"
      "        for i in range(8):\n"
      "            with T.block(\"X\"):\n"
      "                vi = T.axis.spatial(8, i)\n"
      "                X[vi] = A[vi]\n";
  const MlcPrimFunc *a = prim(read_text(ctx, implicit), ctx, "f"), *b = prim(read_text(ctx, explicit_root), ctx, "f");
  CHECK(a && b && mlc_prim_func_equal(a, b));
  CHECK(a && realize_block(a->body)->allocs[0]->scope == mlc_intern(ctx, "local"));

  const char *text = HEADER
      "@T.prim_func\n"
      "def g(A: T.Buffer((8,), \"int32\"), n: T.int64):\n"
      "    with T.block(\"top\"):\n"
      "        T.reads()\n"
      "        T.writes(A[0:8])\n"
      "        t = T.alloc_buffer((1,), \"int32\")\n"
      "        x = n + 1\n"
      "        if x > 4:\n"
      "            A[0] = 1\n"
      "        else:\n"
      "            A[1] = T.Cast(\"int32\", x)\n"
      "        T.evaluate(0)\n";
  const MlcPrimFunc *g = prim(read_text(ctx, text), ctx, "g");
  CHECK(g != NULL);
  if (!g) goto done;
  const MlcBlock *top = realize_block(realize_block(g->body)->body);
  CHECK(top && top->n_reads == 0 && top->n_writes == 1 && top->n_allocs == 1);
  if (!top) goto done;
  const MlcStmt *let = top->body;
  CHECK(let->kind == MLC_STMT_LET && is_dt(let->let.var->dtype, MLC_I64));
  CHECK(is_bin(let->let.value, MLC_BIN_ADD) && is_int(let->let.value->bin.b, MLC_I64, 1));
  const MlcStmt *seq = let->let.body;
  CHECK(seq->kind == MLC_STMT_SEQ && seq->seq.n == 2);
  const MlcStmt *iff = seq->seq.items[0];
  CHECK(iff->kind == MLC_STMT_IF && iff->if_.else_s && is_bin(iff->if_.cond, MLC_BIN_GT));
  CHECK(is_int(iff->if_.then_s->store.value, MLC_I32, 1));
  CHECK(iff->if_.else_s->store.value->kind == MLC_EXPR_CAST);
  CHECK(seq->seq.items[1]->kind == MLC_STMT_EVALUATE);
done:
  mlc_ctx_free(ctx);
}

/* ---- literal typing ------------------------------------------------------- */

static void test_literal_typing(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const char *text = HEADER
      "@T.prim_func\n"
      "def f(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"int64\"), n: T.int64, k: T.int32):\n"
      "    for i in range(16):\n"
      "        B[i] = n + k\n"
      "        A[i] = T.float32(3.4028235e+38) - 2 ** 3\n"
      "        B[i] = T.max(n, 3000000000) // 2\n";
  const MlcPrimFunc *f = prim(read_text(ctx, text), ctx, "f");
  CHECK(f != NULL);
  if (!f) goto done;
  const MlcStmt *seq = f->body->loop.body;
  CHECK(seq->kind == MLC_STMT_SEQ && seq->seq.n == 3);
  const MlcExpr *s0 = seq->seq.items[0]->store.value;
  CHECK(is_bin(s0, MLC_BIN_ADD) && is_dt(s0->dtype, MLC_I64));
  CHECK(s0->bin.b->kind == MLC_EXPR_CAST && s0->bin.b->operand == f->params[3].var); /* int32 widens */
  const MlcExpr *s1 = seq->seq.items[1]->store.value;
  CHECK(is_bin(s1, MLC_BIN_SUB) && is_float(s1->bin.a, MLC_F32, (double)3.4028234663852886e38f));
  CHECK(is_float(s1->bin.b, MLC_F32, 8.0)); /* 2 ** 3 folds, then takes float32 */
  const MlcExpr *s2 = seq->seq.items[2]->store.value;
  CHECK(is_bin(s2, MLC_BIN_FLOORDIV) && is_bin(s2->bin.a, MLC_BIN_MAX));
  CHECK(is_int(s2->bin.a->bin.b, MLC_I64, 3000000000) && is_int(s2->bin.b, MLC_I64, 2));
done:
  mlc_ctx_free(ctx);
}

/* lowered code: T.allocate over the rest of the suite, vectors, T.Let */
static void test_allocate_vectors(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const char *text = HEADER
      "@T.prim_func\n"
      "def f(A: T.Buffer((16,), \"float32\")):\n"
      "    for i in range(4):\n"
      "        X = T.allocate([4], \"float32\", \"local\")\n"
      "        X[T.Ramp(0, 1, 4)] = T.Broadcast(T.float32(0), 4)\n"
      "        A[i] = T.Let(y, X[0] * 2, y + y)\n";
  const MlcPrimFunc *f = prim(read_text(ctx, text), ctx, "f");
  CHECK(f && f->body->kind == MLC_STMT_FOR);
  if (!f) goto done;
  const MlcStmt *al = f->body->loop.body;
  CHECK(al->kind == MLC_STMT_ALLOCATE && al->alloc.buf->scope == mlc_intern(ctx, "local"));
  if (al->kind != MLC_STMT_ALLOCATE) goto done;
  const MlcBuffer *X = al->alloc.buf;
  CHECK(X->ndim == 1 && is_int(X->shape[0], MLC_I32, 4) && is_dt(X->dtype, MLC_F32));
  const MlcStmt *seq = al->alloc.body;
  CHECK(seq->kind == MLC_STMT_SEQ && seq->seq.n == 2);
  const MlcStmt *vs = seq->seq.items[0];
  CHECK(vs->store.buf == X && vs->store.idx[0]->kind == MLC_EXPR_RAMP && vs->store.idx[0]->ramp.lanes == 4);
  CHECK(vs->store.value->kind == MLC_EXPR_BROADCAST && is_dt(vs->store.value->dtype, MLC_DT(MLC_TC_FLOAT, 32, 4)));
  const MlcExpr *let = seq->seq.items[1]->store.value;
  CHECK(let->kind == MLC_EXPR_LET && is_dt(let->let.var->dtype, MLC_F32));
  CHECK(is_bin(let->let.body, MLC_BIN_ADD) && let->let.body->bin.a == let->let.var);
  CHECK(is_bin(let->let.value, MLC_BIN_MUL) && is_float(let->let.value->bin.b, MLC_F32, 2.0));
done:
  mlc_ctx_free(ctx);
}

/* ---- shape expressions for the graph reader -------------------------------- */

static void test_shape_expr(void) {
  MlcCtx *ctx = mlc_ctx_new();
  const char *text = "x = (n + 1) * 2 + T.int64(3) * 4 - m\n";
  AstList top = {0};
  CHECK(mlc_parse(ctx, "s.py", text, strlen(text), &top) && top.n == 1);
  if (top.n != 1) goto done;
  MlcReader r = {.ctx = ctx};
  MlcMap vars = {0};
  MlcExpr *n = mlc_e_var(ctx, "n", MLC_I64);
  mlc_map_put(&vars, mlc_intern(ctx, "n"), n);
  mlc_map_put(&vars, mlc_intern(ctx, "m"), mlc_e_var(ctx, "m", MLC_I64));
  MlcExpr *e = mlc_read_shape_expr(&r, top.items[0]->value, &vars);
  /* ((n + 1) * 2 + 12) - m: constants fold, everything int64 */
  CHECK(is_bin(e, MLC_BIN_SUB) && is_dt(e->dtype, MLC_I64));
  CHECK(e && is_bin(e->bin.a, MLC_BIN_ADD) && is_int(e->bin.a->bin.b, MLC_I64, 12));
  CHECK(e && is_bin(e->bin.a->bin.a, MLC_BIN_MUL) && e->bin.a->bin.a->bin.a->bin.a == n);
  const char *bad = "y = n / 2\n";
  AstList top2 = {0};
  CHECK(mlc_parse(ctx, "b.py", bad, strlen(bad), &top2) && top2.n == 1);
  if (top2.n == 1) {
    CHECK(mlc_read_shape_expr(&r, top2.items[0]->value, &vars) == NULL);
    CHECK(mlc_error_loc(ctx).line == 1 && mlc_error_loc(ctx).col == 5);
  }
  mlc_clear_error(ctx);
  const char *str = "z = \"q\"\n";
  AstList top3 = {0};
  CHECK(mlc_parse(ctx, "c.py", str, strlen(str), &top3) && top3.n == 1);
  if (top3.n == 1) CHECK(mlc_read_shape_expr(&r, top3.items[0]->value, &vars) == NULL);
  CHECK(strstr(mlc_error_msg(ctx), "undefined name 'q'") != NULL);
  mlc_map_free(&vars);
done:
  mlc_ctx_free(ctx);
}

/* ---- errors ------------------------------------------------------------------ */

#define F1(params, body) HEADER "@T.prim_func\ndef f(" params "):\n" body

static void test_error_names(void) {
  /* line 5 is the first body line of F1 */
  expect_error(F1("A: T.Buffer((4,), \"float32\")", "    A[0] = x\n"), 5, 12, "undefined name 'x'");
  expect_error(F1("A: T.Buffer((4,), \"float32\")", "    A[0] = T.foo(1)\n"), 5, 12, "unknown function 'T.foo'");
  expect_error(F1("A: T.Buffer((4,), \"float32\"), A: T.int32", "    pass\n"), 4, 37, "duplicate parameter 'A'");
  expect_error(F1("A: T.Buffer((4,), \"float32\")", "    X = T.alloc_buffer((4,))\n    X = T.alloc_buffer((4,))\n"),
               6, 5, "duplicate buffer 'X'");
  expect_error(F1("A: T.Buffer((4,), \"float32\")",
                  "    for i in range(4):\n        for i in range(4):\n            A[i] = T.float32(0)\n"),
               6, 13, "duplicate loop variable 'i'");
  expect_error(F1("A: T.Buffer((4,), \"float32\")", "    for i in range(4):\n        A[i] = T.float32(0)\n    A[i] = 0.0\n"),
               7, 7, "undefined name 'i'");
}

static void test_error_blocks(void) {
  expect_error(F1("A: T.Buffer((4, 4), \"float32\")",
                  "    for i, j in T.grid(4, 4):\n        with T.block(\"b\"):\n"
                  "            vi, vj = T.axis.remap(\"SS\", [i, j], 1)\n"),
               7, 22, "T.axis.remap expects 2 arguments, got 3");
  expect_error(F1("A: T.Buffer((4, 4), \"float32\")",
                  "    for i, j in T.grid(4, 4):\n        with T.block(\"b\"):\n"
                  "            vi, vj = T.axis.remap(\"SSR\", [i, j])\n            A[vi, vj] = 0.0\n"),
               7, 22, "3 iter kinds for 2 bindings");
  expect_error(F1("A: T.Buffer((4, 4), \"float32\")",
                  "    for i, j in T.grid(4, 4):\n        with T.block(\"b\"):\n"
                  "            vi, vj = T.axis.remap(\"SX\", [i, j])\n            A[vi, vj] = 0.0\n"),
               7, 35, "iter kind 'X' is not S or R");
  expect_error(F1("A: T.Buffer((4, 4), \"float32\")",
                  "    for i in range(4):\n        with T.block(\"b\"):\n"
                  "            vi = T.axis.spatial(4, i)\n            A[vi] = 0.0\n"),
               8, 13, "buffer 'A' has 2 dimensions, got 1 index");
  expect_error(F1("A: T.Buffer((4, 4), \"float32\")", "    T.where(True)\n"), 5, 5, "T.where must be directly inside a block");
}

static void test_error_dtypes(void) {
  expect_error(F1("A: T.Buffer((4,), \"int32\"), B: T.Buffer((4,), \"float32\")", "    A[0] = B[0]\n"), 5, 5,
               "dtype mismatch storing into buffer 'A': expected int32, got float32");
  expect_error(F1("A: T.Buffer((4,), \"int32\")", "    A[0] = 1.5\n"), 5, 5, "got a float literal");
  expect_error(F1("A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"int32\")", "    A[0] = A[1] + B[1]\n"), 5, 12,
               "dtype mismatch in '+': float32 and int32");
  expect_error(F1("A: T.Buffer((1099511627776,), \"float32\")", "    pass\n"), 4, 19, "too large");
  expect_error(F1("A: T.Buffer((-1,), \"float32\")", "    pass\n"), 4, 19, "negative");
  expect_error(F1("A: T.Buffer((1048576, 1048576), \"float32\")", "    pass\n"), 4, 19, "more than 2^40 elements");
  expect_error(F1("A: T.Buffer((1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1), \"float32\")",
                  "    pass\n"),
               4, 19, "at most 32 dimensions");
  expect_error(F1("A: T.Buffer((4,), \"float32x128\")", "    pass\n"), 4, 25, "more than 64 lanes");
  expect_error(F1("A: T.Buffer((4,), \"float32\")", "    for i in range(1099511627776):\n        A[0] = 0.0\n"), 5, 14,
               "loop extent 1099511627776 is too large");
}

static void test_error_module(void) {
  expect_error(HEADER "@I.ir_module\nclass Module:\n"
                      "    @T.prim_func\n    def f(A: T.Buffer((4,), \"float32\")):\n        A[0] = 0.0\n"
                      "    @T.prim_func\n    def f(A: T.Buffer((4,), \"float32\")):\n        A[0] = 1.0\n",
               9, 9, "duplicate function name 'f'");
  expect_error(HEADER "x = 1\n", 3, 1, "expected an @I.ir_module class");
  expect_error(HEADER, 3, 1, "no function");
  expect_error(HEADER "@T.prim_fun\ndef f():\n    pass\n", 3, 1, "unknown decorator '@T.prim_fun'");
  expect_error(HEADER "@T.prim_func\ndef f(a):\n    pass\n", 4, 7, "parameter 'a' needs a type");
}

int main(void) {
  RUN(test_mm_relu);
  RUN(test_mm_relu_2022);
  RUN(test_match_buffer);
  RUN(test_var_2022_and_implicit_size);
  RUN(test_loop_kinds);
  RUN(test_where_and_regions);
  RUN(test_root_let_if);
  RUN(test_literal_typing);
  RUN(test_allocate_vectors);
  RUN(test_shape_expr);
  RUN(test_error_names);
  RUN(test_error_blocks);
  RUN(test_error_dtypes);
  RUN(test_error_module);
  return CHECK_DONE();
}
