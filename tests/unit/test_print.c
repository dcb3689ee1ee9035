/* test_print.c - the TVMScript printer against hand-written expected text.
 *
 * Each test builds IR with the builders of mlcc/ir.h (no reader involved)
 * and compares the printed text with what docs/tvmscript.md says the
 * canonical form is, written out by hand: mm_relu, symbolic sizes, loop
 * kinds, blocks, a graph MLP, precedence, float spelling and names. */
#include "check.h"
#include "mlcc/text.h"

#include <math.h>

static MlcCtx *C;

/* ---- small builders ------------------------------------------------------- */

#define I32(v) mlc_e_int(C, MLC_I32, (v))
#define I64(v) mlc_e_int(C, MLC_I64, (v))
#define F32(v) mlc_e_float(C, MLC_F32, (v))
#define BIN(op, a, b) mlc_e_bin(C, MLC_BIN_##op, (a), (b))
#define EXPRS(...) ((MlcExpr *[]){__VA_ARGS__})
#define NEXPRS(...) ((int)(sizeof((MlcExpr *[]){__VA_ARGS__}) / sizeof(MlcExpr *)))
#define LOAD(b, ...) mlc_e_load(C, (b), EXPRS(__VA_ARGS__), NEXPRS(__VA_ARGS__))
#define STORE(b, v, ...) mlc_s_store(C, (b), EXPRS(__VA_ARGS__), NEXPRS(__VA_ARGS__), (v))
#define SEQ(...) mlc_s_seq(C, (MlcStmt *[]){__VA_ARGS__}, (int)(sizeof((MlcStmt *[]){__VA_ARGS__}) / sizeof(MlcStmt *)))

static const MlcAttrs NO_ATTRS = {0};

static MlcExpr *var(const char *name, MlcDType t) { return mlc_e_var(C, name, t); }

static MlcBuffer *buf(const char *name, MlcDType t, MlcExpr **shape, int ndim) {
  return mlc_buffer_new(C, name, t, shape, ndim, NULL, NULL, "global");
}

static MlcBuffer *buf2(const char *name, int64_t n0, int64_t n1) {
  return buf(name, MLC_F32, EXPRS(I32(n0), I32(n1)), 2);
}

static MlcStmt *loop(MlcExpr *v, MlcExpr *extent, MlcStmt *body) {
  return mlc_s_for(C, v, mlc_e_int(C, v->dtype, 0), extent, MLC_FOR_SERIAL, NULL, NO_ATTRS, body);
}

/* a region of points (extent 1) or ranges: pairs of (min, extent) */
static MlcBufferRegion region(MlcBuffer *b, MlcExpr **minext) {
  MlcRange *r = mlc_arena_array(&C->arena, (size_t)(b->ndim ? b->ndim : 1), sizeof *r);
  for (int d = 0; d < b->ndim; d++) r[d] = (MlcRange){minext[2 * d], minext[2 * d + 1]};
  return (MlcBufferRegion){b, r};
}

static MlcBufferRegion *regions(int n, const MlcBufferRegion *rs) {
  return n ? mlc_arena_dup(&C->arena, rs, (size_t)n * sizeof *rs) : NULL;
}

static MlcAttrs attrs2(const char *k0, MlcAttrValue v0, const char *k1, MlcAttrValue v1) {
  MlcAttr *items = mlc_arena_array(&C->arena, 2, sizeof *items);
  items[0] = (MlcAttr){mlc_intern(C, k0), v0};
  items[1] = (MlcAttr){k1 ? mlc_intern(C, k1) : NULL, v1};
  return (MlcAttrs){items, k1 ? 2 : 1};
}

static MlcAttrValue attr_bool(bool b) { return (MlcAttrValue){.kind = MLC_ATTR_BOOL, .b = b}; }
static MlcAttrValue attr_int(int64_t i) { return (MlcAttrValue){.kind = MLC_ATTR_INT, .i = i}; }
static MlcAttrValue attr_str(const char *s) { return (MlcAttrValue){.kind = MLC_ATTR_STR, .s = mlc_intern(C, s)}; }

static MlcStmt *root(MlcBuffer **allocs, int n_allocs, MlcStmt *body) {
  MlcBlock *b = mlc_block_new(C, "root", NULL, 0, NULL, 0, NULL, 0, NULL, allocs, n_allocs, NO_ATTRS, body);
  return mlc_s_realize(C, NULL, 0, NULL, b);
}

static MlcParam bparam(MlcBuffer *b, const char *handle) {
  return (MlcParam){var(handle, MLC_HANDLE), b};
}

/* printed text, owned by a static buffer until the next call */
static const char *text_of_module(const MlcModule *m) {
  static MlcStrBuf sb;
  mlc_vec_free(&sb);
  if (!m) return "(no module)";
  mlc_print_module(m, &sb);
  return mlc_sb_cstr(&sb);
}

static const char *text_of_prim(const MlcPrimFunc *f) {
  static MlcStrBuf sb;
  mlc_vec_free(&sb);
  if (!f) return mlc_has_error(C) ? mlc_error_msg(C) : "(no function)";
  mlc_print_prim_func(f, &sb);
  return mlc_sb_cstr(&sb);
}

static const char *text_of_expr(const MlcExpr *e) {
  static MlcStrBuf sb;
  mlc_vec_free(&sb);
  if (!e) return mlc_has_error(C) ? mlc_error_msg(C) : "(no expr)";
  mlc_print_expr(e, &sb);
  return mlc_sb_cstr(&sb);
}

static MlcModule *module1(MlcFuncKind kind, void *f, const char *name) {
  if (!f) return NULL;
  MlcFunc fn = {.kind = kind, .name = mlc_intern(C, name)};
  if (kind == MLC_FUNC_PRIM) fn.prim = f;
  else fn.graph = f;
  return mlc_module_new(C, "Module", &fn, 1, NO_ATTRS);
}

/* read(print(m)) is structurally equal to m; on failure the first
 * difference is the message.  The reader is another module's code: this
 * checks the contract the two sides share (docs/tvmscript.md). */
#define CHECK_ROUNDTRIP(m) CHECK_STR(roundtrip_diff(m), "")

static const char *roundtrip_diff(const MlcModule *m) {
  static MlcStrBuf msg;
  mlc_vec_free(&msg);
  if (!m) return "(no module)";
  MlcStrBuf text = {0};
  mlc_print_module(m, &text);
  MlcModule *back = mlc_read_module(C, "printed.py", text.data, text.len);
  if (!back) {
    mlc_format_error(C, &msg);
    mlc_clear_error(C);
  } else {
    MlcDiff d = {0};
    if (!mlc_module_equal_diff(m, back, &d)) {
      mlc_sb_printf(&msg, "%s: %s: ", d.func ? d.func : "module", mlc_sb_cstr(&d.path));
      mlc_print_diff_side(&d, false, &msg);
      mlc_sb_puts(&msg, " vs ");
      mlc_print_diff_side(&d, true, &msg);
    }
    mlc_diff_free(&d);
  }
  mlc_vec_free(&text);
  return mlc_sb_cstr(&msg);
}

static void fresh(void) {
  if (C) mlc_ctx_free(C);
  C = mlc_ctx_new();
}

/* ---- mm_relu -------------------------------------------------------------- */

static MlcPrimFunc *build_mm_relu(void) {
  MlcBuffer *A = buf2("A", 128, 128), *B = buf2("B", 128, 128), *Cb = buf2("C", 128, 128);
  MlcBuffer *Y = buf2("Y", 128, 128);
  MlcExpr *i = var("i", MLC_I32), *j = var("j", MLC_I32), *k = var("k", MLC_I32);
  MlcExpr *vi = var("vi", MLC_I32), *vj = var("vj", MLC_I32), *vk = var("vk", MLC_I32);
  MlcIterVar iters[3] = {{vi, {I32(0), I32(128)}, MLC_ITER_SPATIAL},
                         {vj, {I32(0), I32(128)}, MLC_ITER_SPATIAL},
                         {vk, {I32(0), I32(128)}, MLC_ITER_REDUCE}};
  MlcBufferRegion rd[2] = {region(A, EXPRS(vi, I32(1), vk, I32(1))), region(B, EXPRS(vk, I32(1), vj, I32(1)))};
  MlcBufferRegion wr[1] = {region(Y, EXPRS(vi, I32(1), vj, I32(1)))};
  MlcStmt *init = STORE(Y, F32(0.0), vi, vj);
  MlcStmt *upd = STORE(Y, BIN(ADD, LOAD(Y, vi, vj), BIN(MUL, LOAD(A, vi, vk), LOAD(B, vk, vj))), vi, vj);
  MlcBlock *by = mlc_block_new(C, "Y", iters, 3, regions(2, rd), 2, regions(1, wr), 1, init, NULL, 0,
                               NO_ATTRS, upd);
  MlcStmt *ry = mlc_s_realize(C, EXPRS(i, j, k), 3, NULL, by);
  MlcStmt *nest1 = loop(i, I32(128), loop(j, I32(128), loop(k, I32(128), ry)));

  MlcExpr *i2 = var("i", MLC_I32), *j2 = var("j", MLC_I32);
  MlcExpr *wi = var("vi", MLC_I32), *wj = var("vj", MLC_I32);
  MlcIterVar iters2[2] = {{wi, {I32(0), I32(128)}, MLC_ITER_SPATIAL},
                          {wj, {I32(0), I32(128)}, MLC_ITER_SPATIAL}};
  MlcBufferRegion rd2[1] = {region(Y, EXPRS(wi, I32(1), wj, I32(1)))};
  MlcBufferRegion wr2[1] = {region(Cb, EXPRS(wi, I32(1), wj, I32(1)))};
  MlcStmt *relu = STORE(Cb, BIN(MAX, LOAD(Y, wi, wj), F32(0.0)), wi, wj);
  MlcBlock *bc = mlc_block_new(C, "C", iters2, 2, regions(1, rd2), 1, regions(1, wr2), 1, NULL, NULL, 0,
                               NO_ATTRS, relu);
  MlcStmt *nest2 = loop(i2, I32(128), loop(j2, I32(128), mlc_s_realize(C, EXPRS(i2, j2), 2, NULL, bc)));

  MlcBuffer *allocs[1] = {Y};
  MlcStmt *body = root(allocs, 1, SEQ(nest1, nest2));
  MlcParam params[3] = {bparam(A, "A"), bparam(B, "B"), bparam(Cb, "C")};
  MlcAttrs attrs = attrs2("global_symbol", attr_str("mm_relu"), "tir.noalias", attr_bool(true));
  return mlc_prim_func_new(C, "mm_relu", params, 3, attrs, body);
}

static const char *const MM_RELU_TEXT =
    "from tvm.script import ir as I\n"
    "from tvm.script import tir as T\n"
    "from tvm.script import relax as R\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def mm_relu(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, 128), \"float32\"), "
    "C: T.Buffer((128, 128), \"float32\")):\n"
    "        T.func_attr({\"global_symbol\": \"mm_relu\", \"tir.noalias\": T.bool(True)})\n"
    "        Y = T.alloc_buffer((128, 128))\n"
    "        for i, j, k in T.grid(128, 128, 128):\n"
    "            with T.block(\"Y\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                T.reads(A[vi, vk], B[vk, vj])\n"
    "                T.writes(Y[vi, vj])\n"
    "                with T.init():\n"
    "                    Y[vi, vj] = T.float32(0.0)\n"
    "                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]\n"
    "        for i, j in T.grid(128, 128):\n"
    "            with T.block(\"C\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                T.reads(Y[vi, vj])\n"
    "                T.writes(C[vi, vj])\n"
    "                C[vi, vj] = T.max(Y[vi, vj], T.float32(0.0))\n";

static void test_mm_relu(void) {
  fresh();
  MlcPrimFunc *f = build_mm_relu();
  CHECK(f != NULL);
  CHECK_STR(text_of_module(module1(MLC_FUNC_PRIM, f, "mm_relu")), MM_RELU_TEXT);
  CHECK_ROUNDTRIP(module1(MLC_FUNC_PRIM, f, "mm_relu"));
}

static void test_deterministic(void) {
  fresh();
  MlcModule *m = module1(MLC_FUNC_PRIM, build_mm_relu(), "mm_relu");
  CHECK(m != NULL);
  MlcStrBuf a = {0}, b = {0};
  mlc_print_module(m, &a);
  mlc_print_module(m, &b);
  CHECK(a.len == b.len && a.len > 0 && memcmp(a.data, b.data, a.len) == 0);
  mlc_vec_free(&a);
  mlc_vec_free(&b);
}

/* ---- symbolic sizes ------------------------------------------------------- */

static void test_symbolic(void) {
  fresh();
  MlcExpr *n = var("n", MLC_I64), *m = var("m", MLC_I32);
  MlcBuffer *A = buf("A", MLC_F32, EXPRS(n, I64(128)), 2);
  MlcBuffer *B = buf("B", MLC_F32, EXPRS(n, I64(128)), 2);
  MlcBuffer *X = buf("X", MLC_DT(MLC_TC_INT, 8, 1), EXPRS(m), 1);
  MlcBuffer *D = buf("D", MLC_F32, EXPRS(n, I32(4)), 2); /* dims of two widths */
  MlcExpr *i = var("i", MLC_I64), *j = var("j", MLC_I64);
  MlcStmt *body = loop(i, n, loop(j, I64(128), STORE(B, BIN(MUL, LOAD(A, i, j), F32(2.0)), i, j)));
  MlcParam params[5] = {bparam(A, "a"), {m, NULL}, bparam(X, "X"), bparam(B, "b"), bparam(D, "d")};
  MlcPrimFunc *f = mlc_prim_func_new(C, "scale", params, 5, NO_ATTRS, body);
  CHECK_STR(text_of_prim(f),
            "@T.prim_func\n"
            "def scale(a: T.handle, m: T.int32, X: T.Buffer((m,), \"int8\"), b: T.handle, d: T.handle):\n"
            "    n = T.int64()\n"
            "    A = T.match_buffer(a, (n, T.int64(128)))\n"
            "    B = T.match_buffer(b, (n, T.int64(128)))\n"
            "    D = T.match_buffer(d, (n, T.int32(4)))\n"
            "    for i, j in T.grid(n, T.int64(128)):\n"
            "        B[i, j] = A[i, j] * T.float32(2.0)\n");
  CHECK_ROUNDTRIP(module1(MLC_FUNC_PRIM, f, "scale"));
}

/* ---- loop kinds ----------------------------------------------------------- */

static void test_loop_kinds(void) {
  fresh();
  MlcBuffer *A = buf("A", MLC_F32, EXPRS(I32(64)), 1);
  MlcExpr *i = var("i", MLC_I32), *j = var("j", MLC_I32);
  MlcStmt *s1 = mlc_s_for(C, i, I32(0), I32(4), MLC_FOR_PARALLEL, NULL, NO_ATTRS,
                          mlc_s_for(C, j, I32(0), I32(16), MLC_FOR_VECTORIZED, NULL, NO_ATTRS,
                                    STORE(A, F32(1.0), BIN(ADD, BIN(MUL, i, I32(16)), j))));
  MlcExpr *t = var("t", MLC_I32), *u = var("u", MLC_I32);
  MlcStmt *s2 = mlc_s_for(C, t, I32(0), I32(64), MLC_FOR_THREAD, "threadIdx.x", NO_ATTRS,
                          mlc_s_for(C, u, I32(0), I32(2), MLC_FOR_UNROLLED, NULL, NO_ATTRS,
                                    STORE(A, BIN(ADD, LOAD(A, t), F32(0.5)), t)));
  MlcExpr *k = var("k", MLC_I32);
  MlcStmt *s3 = mlc_s_for(C, k, I32(2), I32(8), MLC_FOR_SERIAL, NULL, NO_ATTRS, STORE(A, F32(0.0), k));
  MlcExpr *s = var("s", MLC_I32);
  MlcAttrs ann = attrs2("pragma_unroll", attr_bool(true), "n", attr_int(4));
  MlcStmt *s4 = mlc_s_for(C, s, I32(0), I32(8), MLC_FOR_SERIAL, NULL, ann, STORE(A, F32(2.0), s));
  /* the inner extent reads the outer var: no T.grid */
  MlcExpr *i2 = var("i", MLC_I32), *j2 = var("j", MLC_I32);
  MlcStmt *s5 = loop(i2, I32(8), loop(j2, i2, STORE(A, F32(3.0), BIN(ADD, BIN(MUL, i2, I32(8)), j2))));
  MlcParam params[1] = {bparam(A, "A")};
  MlcPrimFunc *f = mlc_prim_func_new(C, "kinds", params, 1, NO_ATTRS, SEQ(s1, s2, s3, s4, s5));
  CHECK_STR(text_of_prim(f),
            "@T.prim_func\n"
            "def kinds(A: T.Buffer((64,), \"float32\")):\n"
            "    for i in T.parallel(4):\n"
            "        for j in T.vectorized(16):\n"
            "            A[i * 16 + j] = T.float32(1.0)\n"
            "    for t in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
            "        for u in T.unroll(2):\n"
            "            A[t] = A[t] + T.float32(0.5)\n"
            "    for k in T.serial(2, 10):\n"
            "        A[k] = T.float32(0.0)\n"
            "    for s in T.serial(8, annotations={\"pragma_unroll\": True, \"n\": 4}):\n"
            "        A[s] = T.float32(2.0)\n"
            "    for i in range(8):\n"
            "        for j in range(i):\n"
            "            A[i * 8 + j] = T.float32(3.0)\n");
  CHECK_ROUNDTRIP(module1(MLC_FUNC_PRIM, f, "kinds"));
}

/* ---- blocks that are not remaps ------------------------------------------- */

static void test_block_forms(void) {
  fresh();
  MlcBuffer *A = buf("A", MLC_F32, EXPRS(I32(64)), 1), *B = buf("B", MLC_F32, EXPRS(I32(16)), 1);
  MlcBuffer *X = mlc_buffer_new(C, "X", MLC_I32, EXPRS(I32(4)), 1, NULL, NULL, "local");
  MlcExpr *i = var("i", MLC_I32), *j = var("j", MLC_I32);
  MlcExpr *v = var("v", MLC_I32), *vo = var("vo", MLC_I32);
  MlcExpr *flat = BIN(ADD, BIN(MUL, i, I32(4)), j);
  MlcIterVar iters[2] = {{v, {I32(0), I32(64)}, MLC_ITER_SPATIAL}, {vo, {I32(2), I32(16)}, MLC_ITER_OPAQUE}};
  MlcBufferRegion rd[1] = {region(A, EXPRS(I32(0), I32(64)))};
  MlcBufferRegion wr[1] = {region(B, EXPRS(BIN(SUB, vo, I32(2)), I32(1)))};
  MlcBuffer *allocs[1] = {X};
  MlcBlock *b = mlc_block_new(C, "S", iters, 2, regions(1, rd), 1, regions(1, wr), 1, NULL, allocs, 1,
                              attrs2("meta", attr_str("x"), NULL, attr_int(0)),
                              STORE(B, LOAD(A, v), BIN(SUB, vo, I32(2))));
  MlcStmt *r = mlc_s_realize(C, EXPRS(flat, i), 2, BIN(LT, flat, I32(60)), b);
  MlcParam params[2] = {bparam(A, "A"), bparam(B, "B")};
  MlcPrimFunc *f = mlc_prim_func_new(C, "blk", params, 2, NO_ATTRS, root(NULL, 0, loop(i, I32(16), loop(j, I32(4), r))));
  CHECK_STR(text_of_prim(f),
            "@T.prim_func\n"
            "def blk(A: T.Buffer((64,), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
            "    for i, j in T.grid(16, 4):\n"
            "        with T.block(\"S\"):\n"
            "            v = T.axis.spatial(64, i * 4 + j)\n"
            "            vo = T.axis.opaque((2, 18), i)\n"
            "            T.where(i * 4 + j < 60)\n"
            "            T.reads(A[0:64])\n"
            "            T.writes(B[vo - 2])\n"
            "            T.block_attr({\"meta\": \"x\"})\n"
            "            X = T.alloc_buffer((4,), \"int32\", scope=\"local\")\n"
            "            B[vo - 2] = A[v]\n");
  CHECK_ROUNDTRIP(module1(MLC_FUNC_PRIM, f, "blk"));
}

/* ---- graph: an MLP with dataflow and call_tir ----------------------------- */

static MlcSInfo *tensor2(MlcExpr *d0, MlcExpr *d1) {
  return mlc_sinfo_tensor(C, EXPRS(d0, d1), 2, MLC_F32);
}

static void test_graph_mlp(void) {
  fresh();
  MlcBuffer *Wb = buf("W", MLC_F32, EXPRS(I32(4)), 1);
  MlcPrimFunc *lin = mlc_prim_func_new(C, "linear0", (MlcParam[]){bparam(Wb, "W")}, 1, NO_ATTRS,
                                       STORE(Wb, F32(1.0), I32(0)));
  MlcExpr *n = var("n", MLC_I64);
  MlcGExpr *x = mlc_g_var(C, "x", tensor2(n, I64(784)), false);
  MlcGExpr *w0 = mlc_g_var(C, "w0", tensor2(I64(128), I64(784)), false);
  MlcGExpr *b0 = mlc_g_var(C, "b0", mlc_sinfo_tensor(C, EXPRS(I64(128)), 1, MLC_F32), false);
  MlcSInfo *out = tensor2(n, I64(128));
  MlcGExpr *lv0 = mlc_g_var(C, "lv0", out, true);
  MlcGExpr *call0 = mlc_g_call_tir(C, mlc_g_global(C, "linear0"), (MlcGExpr *[]){x, w0, b0}, 3, out);
  MlcGExpr *lv1 = mlc_g_var(C, "lv1", out, true);
  MlcGExpr *relu = mlc_g_call(C, mlc_g_op(C, "nn.relu"), (MlcGExpr *[]){lv0}, 1, NO_ATTRS, NULL, 0, NULL);
  MlcGExpr *lv2 = mlc_g_var(C, "lv2", NULL, true);
  MlcGExpr *soft = mlc_g_call(C, mlc_g_op(C, "nn.softmax"), (MlcGExpr *[]){lv1}, 1,
                              attrs2("axis", attr_int(1), NULL, attr_int(0)), NULL, 0, NULL);
  MlcGExpr *gv = mlc_g_var(C, "gv", out, false);
  MlcGExpr *call1 = mlc_g_call_dps_packed(C, mlc_g_extern(C, "env.scale"), (MlcGExpr *[]){lv1}, 1, out);
  MlcBinding bs[4] = {{lv0, call0, {0}}, {lv1, relu, {0}}, {lv2, soft, {0}}, {gv, call1, {0}}};
  MlcBindingBlock *blk = mlc_g_block(C, true, bs, 4);
  MlcGExpr *body = mlc_g_seq(C, &blk, 1, gv);
  MlcGFunc *main_f = mlc_gfunc_new(C, "main", (MlcGExpr *[]){x, w0, b0}, 3, out, body, NO_ATTRS, true);
  CHECK(lin != NULL && main_f != NULL);
  MlcFunc fns[2] = {{.kind = MLC_FUNC_PRIM, .name = mlc_intern(C, "linear0"), .prim = lin},
                    {.kind = MLC_FUNC_GRAPH, .name = mlc_intern(C, "main"), .graph = main_f}};
  MlcModule *m = lin && main_f ? mlc_module_new(C, "Module", fns, 2, NO_ATTRS) : NULL;
  CHECK_STR(text_of_module(m),
            "from tvm.script import ir as I\n"
            "from tvm.script import tir as T\n"
            "from tvm.script import relax as R\n"
            "\n"
            "@I.ir_module\n"
            "class Module:\n"
            "    @T.prim_func\n"
            "    def linear0(W: T.Buffer((4,), \"float32\")):\n"
            "        W[0] = T.float32(1.0)\n"
            "\n"
            "    @R.function\n"
            "    def main(x: R.Tensor((\"n\", 784), dtype=\"float32\"), w0: R.Tensor((128, 784), dtype=\"float32\"), "
            "b0: R.Tensor((128,), dtype=\"float32\")) -> R.Tensor((\"n\", 128), dtype=\"float32\"):\n"
            "        n = T.int64()\n"
            "        cls = Module\n"
            "        with R.dataflow():\n"
            "            lv0 = R.call_tir(cls.linear0, (x, w0, b0), out_sinfo=R.Tensor((n, 128), dtype=\"float32\"))\n"
            "            lv1: R.Tensor((n, 128), dtype=\"float32\") = R.nn.relu(lv0)\n"
            "            lv2 = R.nn.softmax(lv1, axis=1)\n"
            "            gv = R.call_dps_packed(\"env.scale\", (lv1,), out_sinfo=R.Tensor((n, 128), dtype=\"float32\"))\n"
            "            R.output(gv)\n"
            "        return gv\n");
  CHECK_ROUNDTRIP(m);
}

/* ---- graph values and struct info on their own ---------------------------- */

static const char *text_of_gexpr(const MlcGExpr *e) {
  static MlcStrBuf sb;
  mlc_vec_free(&sb);
  if (!e) return "(no gexpr)";
  mlc_print_gexpr(e, &sb);
  return mlc_sb_cstr(&sb);
}

static const char *text_of_sinfo(const MlcSInfo *s) {
  static MlcStrBuf sb;
  mlc_vec_free(&sb);
  if (!s) return "(no sinfo)";
  mlc_print_sinfo(s, &sb);
  return mlc_sb_cstr(&sb);
}

static MlcGExpr *const_of(MlcDType t, int ndim, const int64_t *shape, const void *data, size_t nbytes) {
  MlcTensorData *d = mlc_arena_alloc(&C->arena, sizeof *d);
  d->dtype = t;
  d->ndim = ndim;
  d->shape = ndim ? mlc_arena_dup(&C->arena, shape, (size_t)ndim * sizeof *shape) : NULL;
  d->data = mlc_arena_dup(&C->arena, data, nbytes);
  d->nbytes = nbytes;
  return mlc_g_const(C, d);
}

static void test_graph_values(void) {
  fresh();
  float half = 1.5f;
  CHECK_STR(text_of_gexpr(const_of(MLC_F32, 0, NULL, &half, sizeof half)), "R.const(1.5, \"float32\")");
  int32_t m[4] = {1, 2, -3, 4};
  CHECK_STR(text_of_gexpr(const_of(MLC_I32, 2, (int64_t[]){2, 2}, m, sizeof m)),
            "R.const([[1, 2], [-3, 4]], \"int32\")");
  float fs[3] = {0.1f, 100.0f, -INFINITY};
  CHECK_STR(text_of_gexpr(const_of(MLC_F32, 1, (int64_t[]){3}, fs, sizeof fs)),
            "R.const([0.1, 100.0, float(\"-inf\")], \"float32\")");
  MlcExpr *n = var("n", MLC_I64);
  CHECK_STR(text_of_gexpr(mlc_g_shape(C, EXPRS(I64(1), BIN(MUL, n, I64(2))), 2)), "R.shape([1, n * 2])");
  CHECK_STR(text_of_gexpr(mlc_g_prim(C, I64(3))), "R.prim_value(T.int64(3))");
  MlcGExpr *a = mlc_g_var(C, "a", NULL, false), *b = mlc_g_var(C, "b", NULL, false);
  MlcGExpr *tup = mlc_g_tuple(C, (MlcGExpr *[]){a, b}, 2);
  CHECK_STR(text_of_gexpr(tup), "(a, b)");
  CHECK_STR(text_of_gexpr(mlc_g_tuple(C, (MlcGExpr *[]){a}, 1)), "(a,)");
  CHECK_STR(text_of_gexpr(mlc_g_get_item(C, tup, 1)), "(a, b)[1]");
  CHECK_STR(text_of_gexpr(mlc_g_str(C, "hi \"x\"")), "R.str(\"hi \\\"x\\\"\")");
  CHECK_STR(text_of_gexpr(mlc_g_dtype(C, MLC_F32)), "R.dtype(\"float32\")");
  CHECK_STR(text_of_gexpr(mlc_g_call(C, mlc_g_global(C, "f"), (MlcGExpr *[]){a}, 1, NO_ATTRS, NULL, 0, NULL)),
            "cls.f(a)");

  CHECK_STR(text_of_sinfo(mlc_sinfo_object(C)), "R.Object");
  CHECK_STR(text_of_sinfo(mlc_sinfo_tensor(C, NULL, -1, MLC_VOID)), "R.Tensor");
  CHECK_STR(text_of_sinfo(mlc_sinfo_tensor(C, NULL, 2, MLC_F32)), "R.Tensor(dtype=\"float32\", ndim=2)");
  CHECK_STR(text_of_sinfo(mlc_sinfo_tensor(C, EXPRS(n, I64(4)), 2, MLC_VOID)), "R.Tensor((n, 4))");
  CHECK_STR(text_of_sinfo(mlc_sinfo_shape(C, EXPRS(n, I64(4)), 2)), "R.Shape([n, 4])");
  CHECK_STR(text_of_sinfo(mlc_sinfo_shape(C, NULL, 3)), "R.Shape(ndim=3)");
  CHECK_STR(text_of_sinfo(mlc_sinfo_prim(C, MLC_I64, NULL)), "R.Prim(\"int64\")");
  MlcSInfo *fields[2] = {mlc_sinfo_tensor(C, EXPRS(I64(2)), 1, MLC_I32), mlc_sinfo_object(C)};
  CHECK_STR(text_of_sinfo(mlc_sinfo_tuple(C, fields, 2)), "R.Tuple(R.Tensor((2,), dtype=\"int32\"), R.Object)");
}

/* ---- expressions: precedence and spelling --------------------------------- */

static void test_precedence(void) {
  fresh();
  MlcExpr *a = var("a", MLC_I32), *b = var("b", MLC_I32), *c = var("c", MLC_I32);
  MlcExpr *p = var("p", MLC_BOOL), *q = var("q", MLC_BOOL), *r = var("r", MLC_BOOL);
  CHECK_STR(text_of_expr(BIN(MUL, BIN(ADD, a, b), c)), "(a + b) * c");
  CHECK_STR(text_of_expr(BIN(ADD, BIN(MUL, a, b), c)), "a * b + c");
  CHECK_STR(text_of_expr(BIN(ADD, a, BIN(MUL, b, c))), "a + b * c");
  CHECK_STR(text_of_expr(BIN(SUB, a, BIN(SUB, b, c))), "a - (b - c)");
  CHECK_STR(text_of_expr(BIN(SUB, BIN(SUB, a, b), c)), "a - b - c");
  CHECK_STR(text_of_expr(BIN(FLOORDIV, a, BIN(MUL, b, c))), "a // (b * c)");
  CHECK_STR(text_of_expr(BIN(MUL, BIN(FLOORDIV, a, b), c)), "a // b * c");
  CHECK_STR(text_of_expr(BIN(FLOORMOD, BIN(ADD, a, b), c)), "(a + b) % c");
  CHECK_STR(text_of_expr(BIN(DIV, a, b)), "T.truncdiv(a, b)");
  CHECK_STR(text_of_expr(BIN(MOD, BIN(ADD, a, b), c)), "T.truncmod(a + b, c)");
  CHECK_STR(text_of_expr(BIN(MIN, BIN(ADD, a, I32(1)), b)), "T.min(a + 1, b)");
  CHECK_STR(text_of_expr(BIN(SUB, a, I32(-4))), "a - -4");
  CHECK_STR(text_of_expr(mlc_e_neg(C, BIN(ADD, a, b))), "-(a + b)");
  CHECK_STR(text_of_expr(BIN(MUL, mlc_e_neg(C, a), b)), "-a * b");
  CHECK_STR(text_of_expr(BIN(AND, BIN(LT, a, b), mlc_e_not(C, p))), "a < b and not p");
  CHECK_STR(text_of_expr(mlc_e_not(C, BIN(LT, a, b))), "not a < b");
  CHECK_STR(text_of_expr(BIN(AND, BIN(OR, p, q), r)), "(p or q) and r");
  CHECK_STR(text_of_expr(BIN(OR, p, BIN(AND, q, r))), "p or q and r");
  CHECK_STR(text_of_expr(BIN(EQ, BIN(LT, a, b), p)), "(a < b) == p");
  CHECK_STR(text_of_expr(BIN(LT, a, BIN(ADD, b, c))), "a < b + c");
  CHECK_STR(text_of_expr(mlc_e_not(C, BIN(AND, p, q))), "not (p and q)");

  MlcExpr *x = var("x", MLC_F32), *y = var("y", MLC_F32);
  CHECK_STR(text_of_expr(BIN(DIV, BIN(ADD, x, y), x)), "(x + y) / x");
  CHECK_STR(text_of_expr(BIN(MUL, x, BIN(DIV, x, y))), "x * (x / y)");
  CHECK_STR(text_of_expr(mlc_e_cast(C, MLC_F32, BIN(ADD, a, b))), "T.Cast(\"float32\", a + b)");
  CHECK_STR(text_of_expr(mlc_e_select(C, p, x, y)), "T.Select(p, x, y)");
  CHECK_STR(text_of_expr(mlc_e_call(C, MLC_INTRIN_EXP, EXPRS(BIN(MUL, x, y)), 1)), "T.exp(x * y)");
  CHECK_STR(text_of_expr(mlc_e_call(C, MLC_INTRIN_IF_THEN_ELSE, EXPRS(p, x, F32(0.0)), 3)),
            "T.if_then_else(p, x, T.float32(0.0))");
  CHECK_STR(text_of_expr(mlc_e_ramp(C, a, I32(1), 4)), "T.Ramp(a, 1, 4)");
  CHECK_STR(text_of_expr(mlc_e_broadcast(C, x, 8)), "T.Broadcast(x, 8)");
  MlcExpr *t = var("t", MLC_I32);
  CHECK_STR(text_of_expr(mlc_e_let(C, t, BIN(ADD, a, I32(1)), BIN(MUL, t, t))), "T.Let(t, a + 1, t * t)");
  CHECK_STR(text_of_expr(I64(4)), "T.int64(4)");
  CHECK_STR(text_of_expr(mlc_e_int(C, MLC_DT(MLC_TC_UINT, 8, 1), 255)), "T.uint8(255)");
  CHECK_STR(text_of_expr(mlc_e_int(C, MLC_BOOL, 1)), "T.bool(True)");
  CHECK_STR(text_of_expr(mlc_e_str(C, "a\\b")), "\"a\\\\b\"");
}

static void test_floats(void) {
  fresh();
  CHECK_STR(text_of_expr(F32(0.5)), "T.float32(0.5)");
  CHECK_STR(text_of_expr(F32(0.0)), "T.float32(0.0)");
  CHECK_STR(text_of_expr(F32(-0.0)), "T.float32(-0.0)");
  CHECK_STR(text_of_expr(F32(1e-05)), "T.float32(1e-05)");
  CHECK_STR(text_of_expr(F32(0.1)), "T.float32(0.1)");
  CHECK_STR(text_of_expr(F32(100.0)), "T.float32(100.0)");
  CHECK_STR(text_of_expr(F32(123456.75)), "T.float32(123456.75)");
  CHECK_STR(text_of_expr(F32(1e20)), "T.float32(1e+20)");
  CHECK_STR(text_of_expr(F32(-2.5e-7)), "T.float32(-2.5e-07)");
  /* float32 values print their shortest float32 text, float64 their double's */
  CHECK_STR(text_of_expr(F32((double)0.1f)), "T.float32(0.1)");
  CHECK_STR(text_of_expr(F32(3.14159265358979)), "T.float32(3.1415927)");
  CHECK_STR(text_of_expr(mlc_e_float(C, MLC_F64, (double)0.1f)), "T.float64(0.10000000149011612)");
  CHECK_STR(text_of_expr(mlc_e_float(C, MLC_F64, 1.0 / 3.0)), "T.float64(0.3333333333333333)");
  CHECK_STR(text_of_expr(F32(INFINITY)), "T.float32(\"inf\")");
  CHECK_STR(text_of_expr(F32(-INFINITY)), "T.float32(\"-inf\")");
  CHECK_STR(text_of_expr(F32(NAN)), "T.float32(\"nan\")");
  /* every double comes back from its text, every float32 likewise */
  const float fsamples[] = {0.1f, 1.0f / 3.0f, 1e-38f, 3.4028235e38f, 1.4e-45f, 16777217.0f, 0.3f};
  for (size_t i = 0; i < sizeof fsamples / sizeof *fsamples; i++) {
    const char *s = text_of_expr(F32(fsamples[i]));
    CHECK(strncmp(s, "T.float32(", 10) == 0 && (float)strtod(s + 10, NULL) == fsamples[i]);
  }
  const double samples[] = {0.1, 2.0 / 3.0, 1e-300, 6.02214076e23, 5e-324, 1.7976931348623157e308, 12345.678};
  for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
    const char *s = text_of_expr(mlc_e_float(C, MLC_F64, samples[i]));
    CHECK(strncmp(s, "T.float64(", 10) == 0 && strtod(s + 10, NULL) == samples[i]);
  }
}

/* ---- names ------------------------------------------------------------------ */

static void test_names(void) {
  fresh();
  /* a param buffer and an allocated buffer both named A; an outer and an
   * inner loop var both named i; a var named like a keyword; a name that is
   * no identifier */
  MlcBuffer *A = buf("A", MLC_F32, EXPRS(I32(8)), 1);
  MlcBuffer *A2 = buf("A", MLC_F32, EXPRS(I32(8)), 1);
  MlcExpr *i = var("i", MLC_I32), *i_in = var("i", MLC_I32), *kw = var("for", MLC_I32);
  MlcExpr *odd = var("x.y", MLC_I32);
  MlcExpr *vi = var("vi", MLC_I32);
  MlcIterVar iters[1] = {{vi, {I32(0), I32(8)}, MLC_ITER_SPATIAL}};
  MlcBufferRegion rd[1] = {region(A, EXPRS(vi, I32(1)))};
  MlcBufferRegion wr[1] = {region(A2, EXPRS(vi, I32(1)))};
  MlcBlock *blk = mlc_block_new(C, "B", iters, 1, regions(1, rd), 1, regions(1, wr), 1, NULL, NULL, 0, NO_ATTRS,
                                STORE(A2, LOAD(A, vi), vi));
  MlcStmt *inner = loop(i_in, I32(8), mlc_s_realize(C, EXPRS(i_in), 1, NULL, blk));
  MlcStmt *lets = mlc_s_let(C, kw, I32(1), mlc_s_let(C, odd, kw, mlc_s_evaluate(C, BIN(ADD, odd, i))));
  MlcStmt *outer = loop(i, I32(2), SEQ(inner, lets));
  MlcBuffer *allocs[1] = {A2};
  MlcParam params[1] = {bparam(A, "A")};
  MlcPrimFunc *f = mlc_prim_func_new(C, "names", params, 1, NO_ATTRS, root(allocs, 1, outer));
  CHECK_STR(text_of_prim(f),
            "@T.prim_func\n"
            "def names(A: T.Buffer((8,), \"float32\")):\n"
            "    A_1 = T.alloc_buffer((8,))\n"
            "    for i in range(2):\n"
            "        for i_1 in range(8):\n"
            "            with T.block(\"B\"):\n"
            "                vi = T.axis.remap(\"S\", [i_1])\n"
            "                T.reads(A[vi])\n"
            "                T.writes(A_1[vi])\n"
            "                A_1[vi] = A[vi]\n"
            "        for_1 = 1\n"
            "        x_y = for_1\n"
            "        T.evaluate(x_y + i)\n");
  CHECK_ROUNDTRIP(module1(MLC_FUNC_PRIM, f, "names"));
}

static void test_graph_names(void) {
  fresh();
  /* two graph vars named lv, a var named like the cls binding and one like a
   * symbolic dim; op results carry their annotation (the reader cannot infer
   * them) */
  MlcExpr *n = var("n", MLC_I64);
  MlcSInfo *s = mlc_sinfo_tensor(C, EXPRS(n), 1, MLC_F32);
  MlcGExpr *x = mlc_g_var(C, "n", s, false);
  MlcGExpr *lv = mlc_g_var(C, "lv", s, false), *lv_b = mlc_g_var(C, "lv", s, false);
  MlcGExpr *c = mlc_g_var(C, "cls", NULL, false);
  MlcGExpr *add = mlc_g_call(C, mlc_g_op(C, "add"), (MlcGExpr *[]){x, x}, 2, NO_ATTRS, NULL, 0, s);
  MlcGExpr *add2 = mlc_g_call(C, mlc_g_op(C, "add"), (MlcGExpr *[]){lv, x}, 2, NO_ATTRS, NULL, 0, s);
  MlcGExpr *call = mlc_g_call(C, mlc_g_global(C, "g"), (MlcGExpr *[]){lv_b}, 1, NO_ATTRS, NULL, 0, NULL);
  MlcBinding bs[3] = {{lv, add, {0}}, {lv_b, add2, {0}}, {c, call, {0}}};
  MlcBindingBlock *blk = mlc_g_block(C, false, bs, 3);
  MlcGFunc *f = mlc_gfunc_new(C, "f", &x, 1, NULL, mlc_g_seq(C, &blk, 1, c), NO_ATTRS, false);
  MlcStrBuf sb = {0};
  if (f) mlc_print_gfunc(f, &sb);
  CHECK_STR(mlc_sb_cstr(&sb),
            "@R.function(pure=False)\n"
            "def f(n: R.Tensor((\"n_1\",), dtype=\"float32\")) -> R.Object:\n"
            "    n_1 = T.int64()\n"
            "    cls = Module\n"
            "    lv: R.Tensor((n_1,), dtype=\"float32\") = R.add(n, n)\n"
            "    lv_1: R.Tensor((n_1,), dtype=\"float32\") = R.add(lv, n)\n"
            "    cls_1 = cls.g(lv_1)\n"
            "    return cls_1\n");
  mlc_vec_free(&sb);
  MlcGExpr *a = mlc_g_var(C, "a", s, false);
  MlcGFunc *g = mlc_gfunc_new(C, "g", &a, 1, NULL, mlc_g_seq(C, NULL, 0, a), NO_ATTRS, true);
  MlcFunc fns[2] = {{.kind = MLC_FUNC_GRAPH, .name = mlc_intern(C, "f"), .graph = f},
                    {.kind = MLC_FUNC_GRAPH, .name = mlc_intern(C, "g"), .graph = g}};
  CHECK_ROUNDTRIP(f && g ? mlc_module_new(C, "Module", fns, 2, NO_ATTRS) : NULL);
}

static void test_graph_if(void) {
  fresh();
  MlcSInfo *t4 = mlc_sinfo_tensor(C, EXPRS(I64(4)), 1, MLC_F32);
  MlcGExpr *c = mlc_g_var(C, "c", mlc_sinfo_prim(C, MLC_BOOL, NULL), false);
  MlcGExpr *x = mlc_g_var(C, "x", t4, false);
  MlcGExpr *yt = mlc_g_var(C, "y", NULL, false), *ye = mlc_g_var(C, "y", NULL, false);
  MlcGExpr *y = mlc_g_var(C, "y", NULL, false);
  MlcGExpr *add = mlc_g_call(C, mlc_g_op(C, "add"), (MlcGExpr *[]){x, x}, 2, NO_ATTRS, NULL, 0, NULL);
  MlcGExpr *mul = mlc_g_call(C, mlc_g_op(C, "multiply"), (MlcGExpr *[]){x, x}, 2, NO_ATTRS, NULL, 0, NULL);
  MlcBindingBlock *tb = mlc_g_block(C, false, &(MlcBinding){yt, add, {0}}, 1);
  MlcBindingBlock *eb = mlc_g_block(C, false, &(MlcBinding){ye, mul, {0}}, 1);
  MlcGExpr *ife = mlc_g_if(C, c, mlc_g_seq(C, &tb, 1, yt), mlc_g_seq(C, &eb, 1, ye));
  /* two outputs of one call_tir */
  MlcSInfo *outs = mlc_sinfo_tuple(C, (MlcSInfo *[]){t4, t4}, 2);
  MlcGExpr *pair = mlc_g_var(C, "pair", outs, false);
  MlcGExpr *split = mlc_g_call_tir(C, mlc_g_global(C, "split"), &y, 1, outs);
  MlcBinding bs[2] = {{y, ife, {0}}, {pair, split, {0}}};
  MlcBindingBlock *blk = mlc_g_block(C, false, bs, 2);
  MlcGExpr *body = mlc_g_seq(C, &blk, 1, mlc_g_get_item(C, pair, 0));
  MlcGFunc *f = mlc_gfunc_new(C, "branch", (MlcGExpr *[]){c, x}, 2, t4, body, NO_ATTRS, true);
  MlcStrBuf sb = {0};
  if (f) mlc_print_gfunc(f, &sb);
  CHECK_STR(mlc_sb_cstr(&sb),
            "@R.function\n"
            "def branch(c: R.Prim(\"bool\"), x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n"
            "    cls = Module\n"
            "    if c:\n"
            "        y = R.add(x, x)\n"
            "    else:\n"
            "        y = R.multiply(x, x)\n"
            "    pair = R.call_tir(cls.split, (y,), out_sinfo=[R.Tensor((4,), dtype=\"float32\"), "
            "R.Tensor((4,), dtype=\"float32\")])\n"
            "    return pair[0]\n");
  mlc_vec_free(&sb);
  MlcBuffer *P[3] = {buf("A", MLC_F32, EXPRS(I64(4)), 1), buf("B", MLC_F32, EXPRS(I64(4)), 1),
                     buf("C", MLC_F32, EXPRS(I64(4)), 1)};
  MlcPrimFunc *split_f = mlc_prim_func_new(C, "split", (MlcParam[]){bparam(P[0], "A"), bparam(P[1], "B"),
                                           bparam(P[2], "C")}, 3, NO_ATTRS,
                                           STORE(P[1], LOAD(P[0], I64(0)), I64(0)));
  MlcFunc fns[2] = {{.kind = MLC_FUNC_GRAPH, .name = mlc_intern(C, "branch"), .graph = f},
                    {.kind = MLC_FUNC_PRIM, .name = mlc_intern(C, "split"), .prim = split_f}};
  CHECK_ROUNDTRIP(f && split_f ? mlc_module_new(C, "Module", fns, 2, NO_ATTRS) : NULL);
}

/* ---- one side of a diff ----------------------------------------------------- */

static void test_diff_side(void) {
  fresh();
  MlcBuffer *A = buf("A", MLC_F32, EXPRS(I32(8)), 1);
  MlcExpr *i = var("i", MLC_I32), *j = var("j", MLC_I32);
  MlcStmt *s = loop(i, I32(8), loop(j, I32(8), STORE(A, F32(1.0), j)));
  MlcDiff d = {0};
  d.kind = MLC_DIFF_STMT;
  d.a = s;
  d.b = STORE(A, F32(2.0), I32(3));
  MlcStrBuf out = {0};
  mlc_print_diff_side(&d, false, &out);
  mlc_sb_puts(&out, " | ");
  mlc_print_diff_side(&d, true, &out);
  CHECK_STR(mlc_sb_cstr(&out), "for i, j in T.grid(8, 8): | A[3] = T.float32(2.0)");
  out.len = 0;
  d.kind = MLC_DIFF_EXPR;
  d.a = BIN(ADD, i, I32(1));
  d.b = NULL;
  mlc_print_diff_side(&d, false, &out);
  mlc_sb_puts(&out, " | ");
  mlc_print_diff_side(&d, true, &out);
  CHECK_STR(mlc_sb_cstr(&out), "i + 1 | (none)");
  out.len = 0;
  d.kind = MLC_DIFF_TEXT;
  mlc_sb_puts(&d.a_text, "float32");
  mlc_sb_puts(&d.b_text, "int32");
  mlc_print_diff_side(&d, true, &out);
  CHECK_STR(mlc_sb_cstr(&out), "int32");
  out.len = 0;
  d.kind = MLC_DIFF_SINFO;
  d.a = mlc_sinfo_tensor(C, EXPRS(I64(2)), 1, MLC_F32);
  mlc_print_diff_side(&d, false, &out);
  CHECK_STR(mlc_sb_cstr(&out), "R.Tensor((2,), dtype=\"float32\")");
  mlc_vec_free(&out);
  mlc_vec_free(&d.a_text);
  mlc_vec_free(&d.b_text);
}

int main(void) {
  RUN(test_mm_relu);
  RUN(test_deterministic);
  RUN(test_symbolic);
  RUN(test_loop_kinds);
  RUN(test_block_forms);
  RUN(test_graph_mlp);
  RUN(test_graph_values);
  RUN(test_precedence);
  RUN(test_floats);
  RUN(test_names);
  RUN(test_graph_names);
  RUN(test_graph_if);
  RUN(test_diff_side);
  mlc_ctx_free(C);
  return CHECK_DONE();
}
