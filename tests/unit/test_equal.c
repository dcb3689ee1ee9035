/* test_equal.c - structural equality, its diff, and the structural hash.
 *
 * mm_relu (a matmul block then a relu block) is built by hand with knobs that
 * each change one thing; every variant must differ from the original at the
 * path written out here, and two builds that differ only in var pointers and
 * names must be equal with equal hashes.  Graph functions and modules are
 * checked the same way. */
#include "check.h"
#include "mlcc/ir.h"

static MlcCtx *ctx;

/* ---- mm_relu with knobs ------------------------------------------------------ */

typedef struct Variant {
  const char *sfx;        /* appended to every var and buffer name */
  bool index_change;      /* block Y reads A[vi, vj] instead of A[vi, vk] */
  double init_value;      /* what block Y's init stores */
  bool i64_nest2;         /* the relu nest counts in int64 */
  MlcForKind nest2_kind;  /* kind of the relu nest's outer loop */
  const char *block2;     /* name of the relu block */
  bool swap_loads;        /* B[vi, vk] * A[vk, vj] instead of A[vi, vk] * B[vk, vj] */
} Variant;

static const Variant BASE = {"", false, 0.0, false, MLC_FOR_SERIAL, "C", false};

static MlcExpr *var(const char *name, const Variant *v, MlcDType t) {
  return mlc_e_var(ctx, mlc_internf(ctx, "%s%s", name, v->sfx), t);
}

static MlcExpr *imm(MlcDType t, int64_t x) { return mlc_e_int(ctx, t, x); }

static MlcBuffer *buf2(const char *name, const Variant *v) {
  MlcExpr *shape[2] = {imm(MLC_I32, 128), imm(MLC_I32, 128)};
  return mlc_buffer_new(ctx, mlc_internf(ctx, "%s%s", name, v->sfx), MLC_F32, shape, 2, NULL, NULL,
                        "global");
}

static MlcExpr *load2(MlcBuffer *b, MlcExpr *i, MlcExpr *j) {
  MlcExpr *idx[2] = {i, j};
  return mlc_e_load(ctx, b, idx, 2);
}

static MlcStmt *store2(MlcBuffer *b, MlcExpr *i, MlcExpr *j, MlcExpr *value) {
  MlcExpr *idx[2] = {i, j};
  return mlc_s_store(ctx, b, idx, 2, value);
}

static MlcBufferRegion region2(MlcBuffer *b, MlcExpr *i, MlcExpr *j) {
  MlcRange *r = mlc_arena_array(&ctx->arena, 2, sizeof *r);
  r[0] = (MlcRange){i, imm(i->dtype, 1)};
  r[1] = (MlcRange){j, imm(j->dtype, 1)};
  return (MlcBufferRegion){b, r};
}

static MlcStmt *loop(MlcExpr *iv, int64_t extent, MlcForKind kind, MlcStmt *body) {
  return mlc_s_for(ctx, iv, imm(iv->dtype, 0), imm(iv->dtype, extent), kind, NULL, (MlcAttrs){0}, body);
}

static MlcIterVar iter(MlcExpr *iv, int64_t extent, MlcIterKind kind) {
  return (MlcIterVar){iv, {imm(iv->dtype, 0), imm(iv->dtype, extent)}, kind};
}

typedef struct Bufs { MlcBuffer *A, *B, *C, *Y; } Bufs;

static MlcStmt *matmul_nest(const Variant *v, const Bufs *b) {
  MlcExpr *i = var("i", v, MLC_I32), *j = var("j", v, MLC_I32), *k = var("k", v, MLC_I32);
  MlcExpr *vi = var("vi", v, MLC_I32), *vj = var("vj", v, MLC_I32), *vk = var("vk", v, MLC_I32);
  MlcIterVar iters[3] = {iter(vi, 128, MLC_ITER_SPATIAL), iter(vj, 128, MLC_ITER_SPATIAL),
                         iter(vk, 128, MLC_ITER_REDUCE)};
  MlcBufferRegion reads[3] = {region2(b->Y, vi, vj), region2(b->A, vi, vk), region2(b->B, vk, vj)};
  MlcBufferRegion writes[1] = {region2(b->Y, vi, vj)};
  MlcStmt *init = store2(b->Y, vi, vj, mlc_e_float(ctx, MLC_F32, v->init_value));
  MlcExpr *a_load = load2(v->swap_loads ? b->B : b->A, vi, v->index_change ? vj : vk);
  MlcExpr *b_load = load2(v->swap_loads ? b->A : b->B, vk, vj);
  MlcExpr *prod = mlc_e_bin(ctx, MLC_BIN_MUL, a_load, b_load);
  MlcExpr *sum = mlc_e_bin(ctx, MLC_BIN_ADD, load2(b->Y, vi, vj), prod);
  MlcBlock *blk = mlc_block_new(ctx, "Y", iters, 3, reads, 3, writes, 1, init, NULL, 0, (MlcAttrs){0},
                                store2(b->Y, vi, vj, sum));
  MlcExpr *vals[3] = {i, j, k};
  MlcStmt *realize = mlc_s_realize(ctx, vals, 3, NULL, blk);
  return loop(i, 128, MLC_FOR_SERIAL, loop(j, 128, MLC_FOR_SERIAL, loop(k, 128, MLC_FOR_SERIAL, realize)));
}

static MlcStmt *relu_nest(const Variant *v, const Bufs *b) {
  MlcDType t = v->i64_nest2 ? MLC_I64 : MLC_I32;
  MlcExpr *i = var("i", v, t), *j = var("j", v, t);
  MlcExpr *vi = var("vi", v, t), *vj = var("vj", v, t);
  MlcIterVar iters[2] = {iter(vi, 128, MLC_ITER_SPATIAL), iter(vj, 128, MLC_ITER_SPATIAL)};
  MlcBufferRegion reads[1] = {region2(b->Y, vi, vj)};
  MlcBufferRegion writes[1] = {region2(b->C, vi, vj)};
  MlcExpr *relu = mlc_e_bin(ctx, MLC_BIN_MAX, load2(b->Y, vi, vj), mlc_e_float(ctx, MLC_F32, 0.0));
  MlcBlock *blk = mlc_block_new(ctx, v->block2, iters, 2, reads, 1, writes, 1, NULL, NULL, 0,
                                (MlcAttrs){0}, store2(b->C, vi, vj, relu));
  MlcExpr *vals[2] = {i, j};
  return loop(i, 128, v->nest2_kind, loop(j, 128, MLC_FOR_SERIAL, mlc_s_realize(ctx, vals, 2, NULL, blk)));
}

static MlcPrimFunc *mm_relu(const Variant *v) {
  Bufs b = {buf2("A", v), buf2("B", v), buf2("C", v), buf2("Y", v)};
  MlcStmt *nests[2] = {matmul_nest(v, &b), relu_nest(v, &b)};
  MlcBlock *root = mlc_block_new(ctx, "root", NULL, 0, NULL, 0, NULL, 0, NULL, &b.Y, 1, (MlcAttrs){0},
                                 mlc_s_seq(ctx, nests, 2));
  MlcParam params[3] = {{var("a", v, MLC_HANDLE), b.A}, {var("b", v, MLC_HANDLE), b.B},
                        {var("c", v, MLC_HANDLE), b.C}};
  MlcStmt *body = mlc_s_realize(ctx, NULL, 0, NULL, root);
  return mlc_prim_func_new(ctx, "mm_relu", params, 3, (MlcAttrs){0}, body);
}

static MlcModule *module_of(MlcFunc *funcs, int n) {
  return mlc_module_new(ctx, "Module", funcs, n, (MlcAttrs){0});
}

static MlcFunc prim_entry(MlcPrimFunc *f) {
  MlcFunc fn = {.kind = MLC_FUNC_PRIM, .name = f ? f->name : NULL};
  fn.prim = f;
  return fn;
}

/* the diff between two prim funcs, through one-function modules */
static bool prim_diff(MlcPrimFunc *a, MlcPrimFunc *b, MlcDiff *d) {
  MlcFunc fa = prim_entry(a), fb = prim_entry(b);
  return mlc_module_equal_diff(module_of(&fa, 1), module_of(&fb, 1), d);
}

/* ---- prim funcs ----------------------------------------------------------------- */

static void test_renamed_copy_is_equal(void) {
  Variant renamed = BASE;
  renamed.sfx = "_2";
  MlcPrimFunc *a = mm_relu(&BASE), *b = mm_relu(&renamed);
  CHECK(a && b);
  if (!a || !b) return;
  CHECK(a->params[0].var != b->params[0].var);
  CHECK(mlc_prim_func_equal(a, b));
  CHECK(mlc_prim_func_equal(b, a));
  CHECK(mlc_prim_func_hash(a) == mlc_prim_func_hash(b));
  MlcDiff d = {0};
  CHECK(prim_diff(a, b, &d));
  CHECK(d.kind == MLC_DIFF_NONE);
  mlc_diff_free(&d);
}

typedef struct Case {
  const char *what;
  Variant v;
  const char *path;
  MlcDiffKind kind;
  const char *a_text, *b_text; /* TEXT diffs; for EXPR diffs, names of var nodes or NULL */
} Case;

#define ROOT "body.block(\"root\").body.seq"
#define Y_BLOCK ROOT "[0].for(i).body.for(j).body.for(k).body.block(\"Y\")"

static const Case cases[] = {
    {"index", {"_2", true, 0.0, false, MLC_FOR_SERIAL, "C", false},
     Y_BLOCK ".body.store.value.b.a.index[1]", MLC_DIFF_EXPR, "vk", "vj_2"},
    {"constant", {"_2", false, 1.0, false, MLC_FOR_SERIAL, "C", false},
     Y_BLOCK ".init.store.value", MLC_DIFF_EXPR, NULL, NULL},
    {"dtype", {"_2", false, 0.0, true, MLC_FOR_SERIAL, "C", false},
     ROOT "[1].for(i).min", MLC_DIFF_TEXT, "dtype int32", "dtype int64"},
    {"loop kind", {"_2", false, 0.0, false, MLC_FOR_PARALLEL, "C", false},
     ROOT "[1].for(i)", MLC_DIFF_TEXT, "kind serial", "kind parallel"},
    {"block name", {"_2", false, 0.0, false, MLC_FOR_SERIAL, "D", false},
     ROOT "[1].for(i).body.for(j).body.block(\"C\")", MLC_DIFF_TEXT, "block \"C\"", "block \"D\""},
    {"swapped loads", {"_2", false, 0.0, false, MLC_FOR_SERIAL, "C", true},
     Y_BLOCK ".body.store.value.b.a", MLC_DIFF_TEXT, "buffer \"A\"", "buffer \"B_2\""},
};
#define N_CASES ((int)(sizeof cases / sizeof *cases))

static void check_case(const Case *c, MlcPrimFunc *base, MlcPrimFunc *other) {
  CHECK(!mlc_prim_func_equal(base, other));
  CHECK(!mlc_prim_func_equal(other, base));
  MlcDiff d = {0};
  CHECK(!prim_diff(base, other, &d));
  CHECK_STR(d.func, "mm_relu");
  CHECK_STR(mlc_sb_cstr(&d.path), c->path);
  CHECK(d.kind == c->kind);
  if (d.kind == MLC_DIFF_TEXT) {
    CHECK_STR(mlc_sb_cstr(&d.a_text), c->a_text);
    CHECK_STR(mlc_sb_cstr(&d.b_text), c->b_text);
  } else if (d.kind == MLC_DIFF_EXPR && c->a_text) {
    const MlcExpr *ea = d.a, *eb = d.b;
    CHECK(ea->kind == MLC_EXPR_VAR && eb->kind == MLC_EXPR_VAR);
    CHECK_STR(ea->var.name, c->a_text);
    CHECK_STR(eb->var.name, c->b_text);
  } else if (d.kind == MLC_DIFF_EXPR) {
    const MlcExpr *ea = d.a, *eb = d.b;
    CHECK(ea->kind == MLC_EXPR_FLOAT && ea->float_val == 0.0 && eb->float_val == 1.0);
  }
  mlc_diff_free(&d);
  if (check__failed_now) printf("  (case: %s)\n", c->what);
}

static void test_one_change_differs_at_its_path(void) {
  MlcPrimFunc *base = mm_relu(&BASE);
  CHECK(base);
  for (int i = 0; base && i < N_CASES; i++) {
    MlcPrimFunc *other = mm_relu(&cases[i].v);
    CHECK(other);
    if (other) check_case(&cases[i], base, other);
  }
}

static void test_variant_hashes_do_not_collide(void) {
  uint64_t h[N_CASES + 1];
  h[0] = mlc_prim_func_hash(mm_relu(&BASE));
  for (int i = 0; i < N_CASES; i++) h[i + 1] = mlc_prim_func_hash(mm_relu(&cases[i].v));
  for (int i = 0; i <= N_CASES; i++)
    for (int j = i + 1; j <= N_CASES; j++) CHECK(h[i] != h[j]);
}

/* f(x, y) = x + y against f(x, y) = x + x: each use maps one way only */
static MlcPrimFunc *sum_func(const char *sfx, bool twice_x) {
  MlcExpr *x = mlc_e_var(ctx, mlc_internf(ctx, "x%s", sfx), MLC_I32);
  MlcExpr *y = mlc_e_var(ctx, mlc_internf(ctx, "y%s", sfx), MLC_I32);
  MlcParam params[2] = {{x, NULL}, {y, NULL}};
  MlcStmt *body = mlc_s_evaluate(ctx, mlc_e_bin(ctx, MLC_BIN_ADD, x, twice_x ? x : y));
  return mlc_prim_func_new(ctx, "f", params, 2, (MlcAttrs){0}, body);
}

static void test_one_way_mapping_is_unequal(void) {
  MlcPrimFunc *xy = sum_func("", false), *xx = sum_func("2", true), *xy2 = sum_func("3", false);
  CHECK(xy && xx && xy2);
  if (!xy || !xx || !xy2) return;
  CHECK(mlc_prim_func_equal(xy, xy2));
  CHECK(!mlc_prim_func_equal(xy, xx));
  CHECK(!mlc_prim_func_equal(xx, xy));
  CHECK(mlc_prim_func_hash(xy) != mlc_prim_func_hash(xx));
  MlcDiff d = {0};
  CHECK(!prim_diff(xy, xx, &d));
  CHECK_STR(mlc_sb_cstr(&d.path), "body.evaluate.value.b");
  CHECK(d.kind == MLC_DIFF_EXPR && d.a == xy->params[1].var && d.b == xx->params[0].var);
  mlc_diff_free(&d);
}

/* One var bound by two sibling loops against two vars: alpha-equivalent. */
static MlcPrimFunc *two_loops(bool share_var) {
  MlcExpr *shape[1] = {imm(MLC_I32, 8)};
  MlcBuffer *X = mlc_buffer_new(ctx, "X", MLC_F32, shape, 1, NULL, NULL, "global");
  MlcExpr *i = mlc_e_var(ctx, "i", MLC_I32), *i2 = share_var ? i : mlc_e_var(ctx, "i2", MLC_I32);
  MlcStmt *loops[2];
  for (int n = 0; n < 2; n++) {
    MlcExpr *iv = n ? i2 : i;
    MlcExpr *idx[1] = {iv};
    loops[n] = loop(iv, 8, MLC_FOR_SERIAL, mlc_s_store(ctx, X, idx, 1, mlc_e_float(ctx, MLC_F32, n)));
  }
  MlcParam params[1] = {{mlc_e_var(ctx, "x", MLC_HANDLE), X}};
  return mlc_prim_func_new(ctx, "g", params, 1, (MlcAttrs){0}, mlc_s_seq(ctx, loops, 2));
}

static void test_sibling_scopes_rebind(void) {
  MlcPrimFunc *shared = two_loops(true), *distinct = two_loops(false);
  CHECK(shared && distinct);
  if (!shared || !distinct) return;
  CHECK(mlc_prim_func_equal(shared, distinct));
  CHECK(mlc_prim_func_equal(distinct, shared));
  CHECK(mlc_prim_func_hash(shared) == mlc_prim_func_hash(distinct));
}

static MlcAttrs two_attrs(bool reversed, bool noalias) {
  MlcAttr *items = mlc_arena_array(&ctx->arena, 2, sizeof *items);
  MlcAttr sym = {mlc_intern(ctx, "global_symbol"), {.kind = MLC_ATTR_STR, .s = mlc_intern(ctx, "f")}};
  MlcAttr na = {mlc_intern(ctx, "tir.noalias"), {.kind = MLC_ATTR_BOOL, .b = noalias}};
  items[reversed ? 1 : 0] = sym;
  items[reversed ? 0 : 1] = na;
  return (MlcAttrs){items, 2};
}

static MlcPrimFunc *with_attrs(MlcAttrs attrs) {
  MlcExpr *x = mlc_e_var(ctx, "x", MLC_I32);
  MlcParam params[1] = {{x, NULL}};
  return mlc_prim_func_new(ctx, "f", params, 1, attrs, mlc_s_evaluate(ctx, x));
}

static void test_attrs_are_a_set(void) {
  MlcPrimFunc *a = with_attrs(two_attrs(false, true)), *b = with_attrs(two_attrs(true, true));
  MlcPrimFunc *c = with_attrs(two_attrs(false, false));
  CHECK(a && b && c);
  if (!a || !b || !c) return;
  CHECK(mlc_prim_func_equal(a, b));
  CHECK(mlc_prim_func_hash(a) == mlc_prim_func_hash(b));
  CHECK(!mlc_prim_func_equal(a, c));
  CHECK(mlc_prim_func_hash(a) != mlc_prim_func_hash(c));
  MlcDiff d = {0};
  CHECK(!prim_diff(a, c, &d));
  CHECK_STR(mlc_sb_cstr(&d.path), "attrs[\"tir.noalias\"]");
  CHECK_STR(mlc_sb_cstr(&d.a_text), "True");
  CHECK_STR(mlc_sb_cstr(&d.b_text), "False");
  mlc_diff_free(&d);
}

/* Every other statement and expression kind, in one function:
 *   for i in thread_binding(8, "threadIdx.x", annotations={"pragma": [1, x]}):
 *     let t = x + 1:
 *       if t > 0:
 *         allocate L (8,) "local":
 *           L[i] = select(not(t < 2), cast(float32, -t), exp(X[i]))
 *           X[ramp(0, 1, 4)] = broadcast(L[0], 4)
 *       else:
 *         evaluate(let u = t * 2 in u + u)
 * tweak 1 changes the thread tag, 2 the annotation's expression, 3 the
 * let value. */
static MlcAttrs pragma(MlcExpr *x, int tweak) {
  MlcAttrValue *items = mlc_arena_array(&ctx->arena, 2, sizeof *items);
  items[0] = (MlcAttrValue){.kind = MLC_ATTR_INT, .i = 1};
  items[1] = (MlcAttrValue){.kind = MLC_ATTR_EXPR, .expr = tweak == 2 ? imm(MLC_I32, 3) : x};
  MlcAttr *a = mlc_arena_alloc(&ctx->arena, sizeof *a);
  *a = (MlcAttr){mlc_intern(ctx, "pragma"), {.kind = MLC_ATTR_LIST, .list = {items, 2}}};
  return (MlcAttrs){a, 1};
}

static MlcStmt *sink_then(MlcExpr *t, MlcExpr *i, MlcBuffer *X) {
  MlcExpr *shape[1] = {imm(MLC_I32, 8)}, *idx_i[1] = {i}, *idx_0[1] = {imm(MLC_I32, 0)};
  MlcBuffer *L = mlc_buffer_new(ctx, "L", MLC_F32, shape, 1, NULL, NULL, "local");
  MlcExpr *cond = mlc_e_not(ctx, mlc_e_bin(ctx, MLC_BIN_LT, t, imm(MLC_I32, 2)));
  MlcExpr *xi = mlc_e_load(ctx, X, idx_i, 1);
  MlcExpr *sel = mlc_e_select(ctx, cond, mlc_e_cast(ctx, MLC_F32, mlc_e_neg(ctx, t)),
                              mlc_e_call(ctx, MLC_INTRIN_EXP, &xi, 1));
  MlcExpr *ramp[1] = {mlc_e_ramp(ctx, imm(MLC_I32, 0), imm(MLC_I32, 1), 4)};
  MlcStmt *two[2] = {mlc_s_store(ctx, L, idx_i, 1, sel),
                     mlc_s_store(ctx, X, ramp, 1, mlc_e_broadcast(ctx, mlc_e_load(ctx, L, idx_0, 1), 4))};
  return mlc_s_allocate(ctx, L, mlc_s_seq(ctx, two, 2));
}

static MlcPrimFunc *sink(const char *sfx, int tweak) {
  MlcExpr *shape[1] = {imm(MLC_I32, 8)};
  MlcBuffer *X = mlc_buffer_new(ctx, mlc_internf(ctx, "X%s", sfx), MLC_F32, shape, 1, NULL, NULL, "global");
  MlcExpr *x = mlc_e_var(ctx, mlc_internf(ctx, "x%s", sfx), MLC_I32);
  MlcExpr *i = mlc_e_var(ctx, mlc_internf(ctx, "i%s", sfx), MLC_I32);
  MlcExpr *t = mlc_e_var(ctx, mlc_internf(ctx, "t%s", sfx), MLC_I32);
  MlcExpr *u = mlc_e_var(ctx, mlc_internf(ctx, "u%s", sfx), MLC_I32);
  MlcExpr *let_u = mlc_e_let(ctx, u, mlc_e_bin(ctx, MLC_BIN_MUL, t, imm(MLC_I32, 2)),
                             mlc_e_bin(ctx, MLC_BIN_ADD, u, u));
  MlcStmt *branch = mlc_s_if(ctx, mlc_e_bin(ctx, MLC_BIN_GT, t, imm(MLC_I32, 0)), sink_then(t, i, X),
                             mlc_s_evaluate(ctx, let_u));
  MlcExpr *tval = mlc_e_bin(ctx, MLC_BIN_ADD, x, imm(MLC_I32, tweak == 3 ? 2 : 1));
  MlcStmt *body = mlc_s_for(ctx, i, imm(MLC_I32, 0), imm(MLC_I32, 8), MLC_FOR_THREAD,
                            tweak == 1 ? "threadIdx.y" : "threadIdx.x", pragma(x, tweak),
                            mlc_s_let(ctx, t, tval, branch));
  MlcParam params[2] = {{x, NULL}, {mlc_e_var(ctx, mlc_internf(ctx, "xp%s", sfx), MLC_HANDLE), X}};
  return mlc_prim_func_new(ctx, "sink", params, 2, (MlcAttrs){0}, body);
}

static void test_every_kind(void) {
  MlcPrimFunc *a = sink("", 0), *b = sink("_2", 0);
  CHECK(a && b);
  if (!a || !b) return;
  CHECK(mlc_prim_func_equal(a, b));
  CHECK(mlc_prim_func_hash(a) == mlc_prim_func_hash(b));
  static const struct { const char *path, *a_text, *b_text; } want[3] = {
      {"body.for(i)", "thread \"threadIdx.x\"", "thread \"threadIdx.y\""},
      {"body.for(i).annotations[\"pragma\"][1]", NULL, NULL},
      {"body.for(i).body.let(t).value.b", NULL, NULL},
  };
  for (int k = 0; k < 3; k++) {
    MlcPrimFunc *c = sink("_3", k + 1);
    CHECK(c);
    if (!c) return;
    CHECK(!mlc_prim_func_equal(a, c));
    CHECK(mlc_prim_func_hash(a) != mlc_prim_func_hash(c));
    MlcDiff d = {0};
    CHECK(!prim_diff(a, c, &d));
    CHECK_STR(mlc_sb_cstr(&d.path), want[k].path);
    CHECK(d.kind == (want[k].a_text ? MLC_DIFF_TEXT : MLC_DIFF_EXPR));
    if (want[k].a_text) {
      CHECK_STR(mlc_sb_cstr(&d.a_text), want[k].a_text);
      CHECK_STR(mlc_sb_cstr(&d.b_text), want[k].b_text);
    }
    mlc_diff_free(&d);
  }
}

/* ---- graph functions ----------------------------------------------------------- */

typedef struct GVariant {
  const char *sfx;
  const char *act;   /* the activation op */
  bool swap_args;    /* call_tir(mm, (w, x)) */
} GVariant;

static MlcSInfo *tensor2(MlcExpr *d0, MlcExpr *d1) {
  MlcExpr *shape[2] = {d0, d1};
  return mlc_sinfo_tensor(ctx, shape, 2, MLC_F32);
}

/* main(x: (n, 784), w: (784, 128)): lv0 = call_tir(mm, (x, w)); lv1 = act(lv0); gv = lv1 */
static MlcGFunc *graph_main(const GVariant *v) {
  MlcExpr *n = mlc_e_var(ctx, mlc_internf(ctx, "n%s", v->sfx), MLC_I64);
  MlcGExpr *x = mlc_g_var(ctx, mlc_internf(ctx, "x%s", v->sfx), tensor2(n, imm(MLC_I64, 784)), false);
  MlcGExpr *w = mlc_g_var(ctx, mlc_internf(ctx, "w%s", v->sfx),
                          tensor2(imm(MLC_I64, 784), imm(MLC_I64, 128)), false);
  MlcSInfo *out = tensor2(n, imm(MLC_I64, 128));
  MlcGExpr *args[2] = {v->swap_args ? w : x, v->swap_args ? x : w};
  MlcGExpr *call0 = mlc_g_call_tir(ctx, mlc_g_global(ctx, "mm"), args, 2, out);
  MlcGExpr *lv0 = mlc_g_var(ctx, mlc_internf(ctx, "lv0%s", v->sfx), out, true);
  MlcGExpr *call1 = mlc_g_call(ctx, mlc_g_op(ctx, v->act), &lv0, 1, (MlcAttrs){0}, NULL, 0, out);
  MlcGExpr *lv1 = mlc_g_var(ctx, mlc_internf(ctx, "lv1%s", v->sfx), out, true);
  MlcGExpr *gv = mlc_g_var(ctx, mlc_internf(ctx, "gv%s", v->sfx), out, false);
  MlcBinding bs[3] = {{lv0, call0, {0}}, {lv1, call1, {0}}, {gv, lv1, {0}}};
  MlcBindingBlock *blk = mlc_g_block(ctx, true, bs, 3);
  MlcGExpr *params[2] = {x, w};
  return mlc_gfunc_new(ctx, "main", params, 2, NULL, mlc_g_seq(ctx, &blk, 1, gv), (MlcAttrs){0}, true);
}

static void test_graph_equal_up_to_renaming(void) {
  GVariant a = {"", "nn.relu", false}, b = {"_2", "nn.relu", false};
  MlcGFunc *fa = graph_main(&a), *fb = graph_main(&b);
  CHECK(fa && fb);
  if (!fa || !fb) return;
  CHECK(mlc_gfunc_equal(fa, fb));
  CHECK(mlc_gfunc_hash(fa) == mlc_gfunc_hash(fb));
}

static MlcFunc graph_entry(MlcGFunc *f) {
  MlcFunc fn = {.kind = MLC_FUNC_GRAPH, .name = f ? f->name : NULL};
  fn.graph = f;
  return fn;
}

static void check_graph_diff(MlcGFunc *a, MlcGFunc *b, const char *path) {
  CHECK(!mlc_gfunc_equal(a, b));
  CHECK(!mlc_gfunc_equal(b, a));
  CHECK(mlc_gfunc_hash(a) != mlc_gfunc_hash(b));
  MlcFunc fa = graph_entry(a), fb = graph_entry(b);
  MlcDiff d = {0};
  CHECK(!mlc_module_equal_diff(module_of(&fa, 1), module_of(&fb, 1), &d));
  CHECK_STR(d.func, "main");
  CHECK_STR(mlc_sb_cstr(&d.path), path);
  CHECK(d.kind == MLC_DIFF_GEXPR);
  mlc_diff_free(&d);
}

static void test_graph_differences(void) {
  GVariant base = {"", "nn.relu", false}, gelu = {"_2", "nn.gelu", false}, swapped = {"_3", "nn.relu", true};
  MlcGFunc *f = graph_main(&base), *g = graph_main(&gelu), *s = graph_main(&swapped);
  CHECK(f && g && s);
  if (!f || !g || !s) return;
  check_graph_diff(f, g, "body.blocks[0].bindings[1].value.callee");
  check_graph_diff(f, s, "body.blocks[0].bindings[0].value.args[1].fields[0]");
}

/* f(x: (n, m)) against f(x: (n, n)): symbolic dims bind one to one */
static MlcGFunc *dims_func(bool square) {
  MlcExpr *n = mlc_e_var(ctx, "n", MLC_I64), *m = square ? n : mlc_e_var(ctx, "m", MLC_I64);
  MlcGExpr *x = mlc_g_var(ctx, "x", tensor2(n, m), false);
  return mlc_gfunc_new(ctx, "f", &x, 1, NULL, mlc_g_seq(ctx, NULL, 0, x), (MlcAttrs){0}, true);
}

static void test_symbolic_dims_bind_both_ways(void) {
  MlcGFunc *nm = dims_func(false), *nn = dims_func(true), *nm2 = dims_func(false);
  CHECK(nm && nn && nm2);
  if (!nm || !nn || !nm2) return;
  CHECK(mlc_gfunc_equal(nm, nm2));
  CHECK(mlc_gfunc_hash(nm) == mlc_gfunc_hash(nm2));
  CHECK(!mlc_gfunc_equal(nm, nn));
  CHECK(!mlc_gfunc_equal(nn, nm));
  CHECK(mlc_gfunc_hash(nm) != mlc_gfunc_hash(nn));
}

/* ---- modules ----------------------------------------------------------------- */

static void test_module_order_does_not_matter(void) {
  GVariant g1 = {"", "nn.relu", false}, g2 = {"_2", "nn.relu", false};
  Variant renamed = BASE;
  renamed.sfx = "_2";
  MlcFunc ab[2] = {prim_entry(mm_relu(&BASE)), graph_entry(graph_main(&g1))};
  MlcFunc ba[2] = {graph_entry(graph_main(&g2)), prim_entry(mm_relu(&renamed))};
  MlcModule *a = module_of(ab, 2), *b = module_of(ba, 2);
  CHECK(a && b);
  if (!a || !b) return;
  CHECK(mlc_module_equal(a, b));
  CHECK(mlc_module_equal(b, a));
  CHECK(mlc_module_hash(a) == mlc_module_hash(b));
  MlcDiff d = {0};
  CHECK(mlc_module_equal_diff(a, b, &d));
  CHECK(d.kind == MLC_DIFF_NONE && mlc_sb_cstr(&d.path)[0] == 0);
  mlc_diff_free(&d);
}

static void test_module_differences(void) {
  GVariant g = {"", "nn.relu", false};
  MlcGFunc *main_f = graph_main(&g);
  MlcFunc both[2] = {prim_entry(mm_relu(&BASE)), graph_entry(main_f)};
  MlcFunc only_main[1] = {graph_entry(main_f)};
  MlcFunc changed[2] = {graph_entry(main_f), prim_entry(mm_relu(&cases[1].v))};
  MlcModule *full = module_of(both, 2), *partial = module_of(only_main, 1), *other = module_of(changed, 2);
  CHECK(full && partial && other);
  if (!full || !partial || !other) return;
  MlcDiff d = {0};
  CHECK(!mlc_module_equal_diff(full, partial, &d));
  CHECK_STR(d.func, "mm_relu");
  CHECK(d.kind == MLC_DIFF_TEXT);
  CHECK_STR(mlc_sb_cstr(&d.a_text), "present");
  CHECK_STR(mlc_sb_cstr(&d.b_text), "function missing");
  mlc_diff_free(&d);
  CHECK(!mlc_module_equal_diff(partial, full, &d));
  CHECK_STR(mlc_sb_cstr(&d.a_text), "function missing");
  CHECK_STR(mlc_sb_cstr(&d.b_text), "present");
  mlc_diff_free(&d);
  CHECK(!mlc_module_equal_diff(full, other, &d));
  CHECK_STR(d.func, "mm_relu");
  CHECK_STR(mlc_sb_cstr(&d.path), cases[1].path);
  mlc_diff_free(&d);
  uint64_t hf = mlc_module_hash(full), hp = mlc_module_hash(partial), ho = mlc_module_hash(other);
  CHECK(hf != hp && hf != ho && hp != ho);
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_renamed_copy_is_equal);
  RUN(test_one_change_differs_at_its_path);
  RUN(test_variant_hashes_do_not_collide);
  RUN(test_one_way_mapping_is_unequal);
  RUN(test_sibling_scopes_rebind);
  RUN(test_attrs_are_a_set);
  RUN(test_every_kind);
  RUN(test_graph_equal_up_to_renaming);
  RUN(test_graph_differences);
  RUN(test_symbolic_dims_bind_both_ways);
  RUN(test_module_order_does_not_matter);
  RUN(test_module_differences);
  if (mlc_has_error(ctx)) printf("note: context error: %s\n", mlc_error_msg(ctx));
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
