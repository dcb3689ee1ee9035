/* test_visit.c - visitors and mutators.
 *
 * The visitor counts the nodes of each kind in a hand-built mm_relu against
 * counts made by reading the program; the mutators must return the very same
 * pointers for what they did not change, and what they did change must equal
 * (structurally) the program built directly in its changed form. */
#include "check.h"
#include "mlcc/ir.h"

static MlcCtx *ctx;

/* ---- mm_relu, optionally with vk replaced by vi in block Y ------------------- */

static MlcExpr *imm(MlcDType t, int64_t x) { return mlc_e_int(ctx, t, x); }

static MlcBuffer *buf2(const char *name) {
  MlcExpr *shape[2] = {imm(MLC_I32, 128), imm(MLC_I32, 128)};
  return mlc_buffer_new(ctx, name, MLC_F32, shape, 2, NULL, NULL, "global");
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
  r[0] = (MlcRange){i, imm(MLC_I32, 1)};
  r[1] = (MlcRange){j, imm(MLC_I32, 1)};
  return (MlcBufferRegion){b, r};
}

static MlcStmt *loop(MlcExpr *iv, MlcStmt *body) {
  return mlc_s_for(ctx, iv, imm(MLC_I32, 0), imm(MLC_I32, 128), MLC_FOR_SERIAL, NULL, (MlcAttrs){0}, body);
}

static MlcIterVar iter(MlcExpr *iv, MlcIterKind kind) {
  return (MlcIterVar){iv, {imm(MLC_I32, 0), imm(MLC_I32, 128)}, kind};
}

static MlcExpr *ivar(const char *name) { return mlc_e_var(ctx, name, MLC_I32); }

typedef struct MM {
  MlcPrimFunc *f;
  MlcBuffer *A, *B, *C, *Y;
  MlcExpr *vi, *vk; /* block Y's */
} MM;

static MlcStmt *matmul_nest(MM *mm, bool collapse_k) {
  MlcExpr *i = ivar("i"), *j = ivar("j"), *k = ivar("k");
  MlcExpr *vi = ivar("vi"), *vj = ivar("vj"), *vk = ivar("vk");
  MlcExpr *kk = collapse_k ? vi : vk;
  mm->vi = vi;
  mm->vk = vk;
  MlcIterVar iters[3] = {iter(vi, MLC_ITER_SPATIAL), iter(vj, MLC_ITER_SPATIAL), iter(vk, MLC_ITER_REDUCE)};
  MlcBufferRegion reads[3] = {region2(mm->Y, vi, vj), region2(mm->A, vi, kk), region2(mm->B, kk, vj)};
  MlcBufferRegion writes[1] = {region2(mm->Y, vi, vj)};
  MlcStmt *init = store2(mm->Y, vi, vj, mlc_e_float(ctx, MLC_F32, 0.0));
  MlcExpr *prod = mlc_e_bin(ctx, MLC_BIN_MUL, load2(mm->A, vi, kk), load2(mm->B, kk, vj));
  MlcExpr *sum = mlc_e_bin(ctx, MLC_BIN_ADD, load2(mm->Y, vi, vj), prod);
  MlcBlock *blk = mlc_block_new(ctx, "Y", iters, 3, reads, 3, writes, 1, init, NULL, 0, (MlcAttrs){0},
                                store2(mm->Y, vi, vj, sum));
  MlcExpr *vals[3] = {i, j, k};
  return loop(i, loop(j, loop(k, mlc_s_realize(ctx, vals, 3, NULL, blk))));
}

static MlcStmt *relu_nest(MM *mm) {
  MlcExpr *i = ivar("i"), *j = ivar("j"), *vi = ivar("vi"), *vj = ivar("vj");
  MlcIterVar iters[2] = {iter(vi, MLC_ITER_SPATIAL), iter(vj, MLC_ITER_SPATIAL)};
  MlcBufferRegion reads[1] = {region2(mm->Y, vi, vj)};
  MlcBufferRegion writes[1] = {region2(mm->C, vi, vj)};
  MlcExpr *relu = mlc_e_bin(ctx, MLC_BIN_MAX, load2(mm->Y, vi, vj), mlc_e_float(ctx, MLC_F32, 0.0));
  MlcBlock *blk = mlc_block_new(ctx, "C", iters, 2, reads, 1, writes, 1, NULL, NULL, 0, (MlcAttrs){0},
                                store2(mm->C, vi, vj, relu));
  MlcExpr *vals[2] = {i, j};
  return loop(i, loop(j, mlc_s_realize(ctx, vals, 2, NULL, blk)));
}

static MlcParam *mm_params(MM *mm) {
  MlcParam *p = mlc_arena_array(&ctx->arena, 3, sizeof *p);
  p[0] = (MlcParam){mlc_e_var(ctx, "a", MLC_HANDLE), mm->A};
  p[1] = (MlcParam){mlc_e_var(ctx, "b", MLC_HANDLE), mm->B};
  p[2] = (MlcParam){mlc_e_var(ctx, "c", MLC_HANDLE), mm->C};
  return p;
}

static MM mm_relu(bool collapse_k) {
  MM mm = {NULL, buf2("A"), buf2("B"), buf2("C"), buf2("Y"), NULL, NULL};
  MlcStmt *nests[2] = {matmul_nest(&mm, collapse_k), relu_nest(&mm)};
  MlcBlock *root = mlc_block_new(ctx, "root", NULL, 0, NULL, 0, NULL, 0, NULL, &mm.Y, 1, (MlcAttrs){0},
                                 mlc_s_seq(ctx, nests, 2));
  mm.f = mlc_prim_func_new(ctx, "mm_relu", mm_params(&mm), 3, (MlcAttrs){0},
                           mlc_s_realize(ctx, NULL, 0, NULL, root));
  return mm;
}

/* the path root realize -> root block -> seq */
static MlcStmt *root_seq(MlcStmt *body) { return body->realize.block->body; }

/* seq[0] -> for i -> for j -> for k -> realize Y -> block */
static MlcBlock *block_y(MlcStmt *body) {
  return root_seq(body)->seq.items[0]->loop.body->loop.body->loop.body->realize.block;
}

/* ---- visitor ------------------------------------------------------------------ */

typedef struct Counts {
  int expr[MLC_EXPR_CALL + 1], stmt[MLC_STMT_EVALUATE + 1], gexpr[MLC_G_SEQ + 1];
  int blocks, buffer_uses;
  const char *skip_block; /* prune the block with this name */
} Counts;

static bool count_expr(MlcVisitor *v, const MlcExpr *e) {
  ((Counts *)v->user)->expr[e->kind]++;
  return true;
}
static bool count_stmt(MlcVisitor *v, const MlcStmt *s) {
  ((Counts *)v->user)->stmt[s->kind]++;
  return true;
}
static bool count_block(MlcVisitor *v, const MlcBlock *b) {
  Counts *c = v->user;
  c->blocks++;
  return !c->skip_block || strcmp(b->name, c->skip_block) != 0;
}
static bool count_gexpr(MlcVisitor *v, const MlcGExpr *e) {
  ((Counts *)v->user)->gexpr[e->kind]++;
  return true;
}
static void count_buffer(MlcVisitor *v, const MlcBuffer *b) { ((Counts *)v->user)->buffer_uses++; }

static MlcVisitor counter(Counts *c) {
  return (MlcVisitor){c, count_expr, count_stmt, count_block, count_gexpr, count_buffer};
}

/* Counted by reading mm_relu: 5 loops with int bounds, 3 realizes (each
 * with a true predicate), iter domains, unit-extent regions, 3 stores. */
static void test_visit_counts_mm_relu(void) {
  MM mm = mm_relu(false);
  CHECK(mm.f);
  if (!mm.f) return;
  Counts c = {0};
  MlcVisitor v = counter(&c);
  mlc_visit_prim_func(&v, mm.f);
  CHECK(c.stmt[MLC_STMT_FOR] == 5);
  CHECK(c.stmt[MLC_STMT_BLOCK_REALIZE] == 3);
  CHECK(c.stmt[MLC_STMT_SEQ] == 1);
  CHECK(c.stmt[MLC_STMT_STORE] == 3);
  CHECK(c.stmt[MLC_STMT_IF] + c.stmt[MLC_STMT_LET] == 0);
  CHECK(c.stmt[MLC_STMT_ALLOCATE] + c.stmt[MLC_STMT_EVALUATE] == 0);
  CHECK(c.blocks == 3);
  CHECK(c.expr[MLC_EXPR_INT] == 35);
  CHECK(c.expr[MLC_EXPR_VAR] == 31);
  CHECK(c.expr[MLC_EXPR_FLOAT] == 2);
  CHECK(c.expr[MLC_EXPR_BINARY] == 3);
  CHECK(c.expr[MLC_EXPR_LOAD] == 4);
  CHECK(c.buffer_uses == 13);
}

static void test_visit_prunes_a_block(void) {
  MM mm = mm_relu(false);
  CHECK(mm.f);
  if (!mm.f) return;
  Counts c = {.skip_block = "Y"};
  MlcVisitor v = counter(&c);
  mlc_visit_prim_func(&v, mm.f);
  CHECK(c.blocks == 3);            /* Y's hook runs, its children do not */
  CHECK(c.stmt[MLC_STMT_STORE] == 1);
  CHECK(c.expr[MLC_EXPR_LOAD] == 1);
  CHECK(c.buffer_uses == 1 + 1 + 2); /* C's load, store, read and write regions */
}

/* ---- graph ------------------------------------------------------------------------ */

static MlcSInfo *tensor2(MlcExpr *d0, MlcExpr *d1) {
  MlcExpr *shape[2] = {d0, d1};
  return mlc_sinfo_tensor(ctx, shape, 2, MLC_F32);
}

/* main(x: (n, 784), w: (784, 128)): lv0 = call_tir(mm, (x, w)); lv1 = act(lv0); gv = lv1 */
static MlcGFunc *graph_main(const char *act) {
  MlcExpr *n = mlc_e_var(ctx, "n", MLC_I64);
  MlcGExpr *x = mlc_g_var(ctx, "x", tensor2(n, imm(MLC_I64, 784)), false);
  MlcGExpr *w = mlc_g_var(ctx, "w", tensor2(imm(MLC_I64, 784), imm(MLC_I64, 128)), false);
  MlcSInfo *out = tensor2(n, imm(MLC_I64, 128));
  MlcGExpr *args[2] = {x, w};
  MlcGExpr *call0 = mlc_g_call_tir(ctx, mlc_g_global(ctx, "mm"), args, 2, out);
  MlcGExpr *lv0 = mlc_g_var(ctx, "lv0", out, true);
  MlcGExpr *call1 = mlc_g_call(ctx, mlc_g_op(ctx, act), &lv0, 1, (MlcAttrs){0}, NULL, 0, out);
  MlcGExpr *lv1 = mlc_g_var(ctx, "lv1", out, true);
  MlcGExpr *gv = mlc_g_var(ctx, "gv", out, false);
  MlcBinding bs[3] = {{lv0, call0, {0}}, {lv1, call1, {0}}, {gv, lv1, {0}}};
  MlcBindingBlock *blk = mlc_g_block(ctx, true, bs, 3);
  MlcGExpr *params[2] = {x, w};
  return mlc_gfunc_new(ctx, "main", params, 2, NULL, mlc_g_seq(ctx, &blk, 1, gv), (MlcAttrs){0}, true);
}

static void test_visit_counts_graph(void) {
  MlcGFunc *f = graph_main("nn.relu");
  CHECK(f);
  if (!f) return;
  Counts c = {0};
  MlcVisitor v = counter(&c);
  mlc_visit_gfunc(&v, f);
  CHECK(c.gexpr[MLC_G_VAR] == 6);   /* x, w defined and used; gv defined and returned */
  CHECK(c.gexpr[MLC_G_DFVAR] == 4); /* lv0, lv1 defined and used */
  CHECK(c.gexpr[MLC_G_CALL] == 2);
  CHECK(c.gexpr[MLC_G_OP] == 2);
  CHECK(c.gexpr[MLC_G_GLOBAL] == 1);
  CHECK(c.gexpr[MLC_G_TUPLE] == 1);
  CHECK(c.gexpr[MLC_G_SEQ] == 1);
  /* struct info where written: x, w, ret, out_sinfo, lv0, lv1, gv */
  CHECK(c.expr[MLC_EXPR_VAR] == 6);
  CHECK(c.expr[MLC_EXPR_INT] == 8);
}

/* ---- mutators ------------------------------------------------------------------------ */

static void test_identity_mutator_shares_everything(void) {
  MM mm = mm_relu(false);
  CHECK(mm.f);
  if (!mm.f) return;
  MlcMutator m = {.ctx = ctx};
  CHECK(mlc_mutate_stmt(&m, mm.f->body) == mm.f->body);
  MlcGFunc *g = graph_main("nn.relu");
  CHECK(g && mlc_mutate_gexpr(&m, g->body) == g->body);
}

static void test_substitute_shares_unchanged_subtrees(void) {
  MM mm = mm_relu(false), want = mm_relu(true);
  CHECK(mm.f && want.f);
  if (!mm.f || !want.f) return;
  MlcMap vmap = {0};
  mlc_map_put(&vmap, mm.vk, mm.vi);
  MlcStmt *old = mm.f->body, *got = mlc_substitute_stmt(ctx, old, &vmap);
  mlc_map_free(&vmap);
  CHECK(got && got != old);
  if (!got) return;
  /* the relu nest does not mention vk: the same pointer */
  CHECK(root_seq(got)->seq.items[1] == root_seq(old)->seq.items[1]);
  MlcBlock *by = block_y(old), *ny = block_y(got);
  CHECK(ny != by);
  CHECK(ny->init == by->init);                        /* Y[vi, vj] = 0 */
  CHECK(ny->reads[0].ranges == by->reads[0].ranges);  /* Y[vi, vj] */
  CHECK(ny->reads[1].ranges != by->reads[1].ranges);  /* A[vi, vk] */
  CHECK(ny->writes[0].ranges == by->writes[0].ranges);
  CHECK(ny->iters[2].var == mm.vk);                   /* definitions are kept */
  MlcExpr *ov = by->body->store.value, *nv = ny->body->store.value;
  CHECK(nv != ov && nv->bin.a == ov->bin.a);          /* Y[vi, vj] + ... */
  CHECK(nv->bin.b->bin.a->load.idx[1] == mm.vi);
  /* and the result is the program built with vi in place of vk */
  MlcPrimFunc *f = mlc_prim_func_new(ctx, "mm_relu", mm.f->params, 3, (MlcAttrs){0}, got);
  CHECK(f && mlc_prim_func_equal(f, want.f));
  CHECK(f && mlc_prim_func_hash(f) == mlc_prim_func_hash(want.f));
}

static void test_substitute_expr(void) {
  MlcExpr *x = ivar("x"), *y = ivar("y"), *z = ivar("z");
  MlcExpr *xy = mlc_e_bin(ctx, MLC_BIN_ADD, x, y);
  MlcExpr *e = mlc_e_bin(ctx, MLC_BIN_MUL, xy, x);
  MlcExpr *z1 = mlc_e_bin(ctx, MLC_BIN_ADD, z, imm(MLC_I32, 1));
  MlcMap vmap = {0};
  mlc_map_put(&vmap, x, z1);
  MlcExpr *r = mlc_substitute_expr(ctx, e, &vmap);
  CHECK(r && r != e && r->kind == MLC_EXPR_BINARY && r->bin.op == MLC_BIN_MUL);
  if (r) {
    CHECK(r->bin.a != xy && r->bin.a->bin.op == MLC_BIN_ADD);
    CHECK(r->bin.a->bin.a == z1 && r->bin.a->bin.b == y && r->bin.b == z1);
  }
  MlcExpr *untouched = mlc_e_bin(ctx, MLC_BIN_SUB, y, z);
  CHECK(mlc_substitute_expr(ctx, untouched, &vmap) == untouched);
  /* a substitution the builders refuse fails with an error, not a bad node */
  MlcMap bad = {0};
  mlc_map_put(&bad, y, mlc_e_float(ctx, MLC_F32, 1.0));
  CHECK(!mlc_has_error(ctx));
  CHECK(mlc_substitute_expr(ctx, e, &bad) == NULL);
  CHECK(mlc_has_error(ctx));
  mlc_clear_error(ctx);
  mlc_map_free(&bad);
  mlc_map_free(&vmap);
}

static void test_buffer_map(void) {
  MM mm = mm_relu(false);
  CHECK(mm.f);
  if (!mm.f) return;
  MlcBuffer *A2 = buf2("A2");
  MlcMutator m = {.ctx = ctx};
  mlc_map_put(&m.buffer_map, mm.A, A2);
  MlcStmt *old = mm.f->body, *got = mlc_mutate_stmt(&m, old);
  mlc_map_free(&m.buffer_map);
  CHECK(got && got != old);
  if (!got) return;
  CHECK(root_seq(got)->seq.items[1] == root_seq(old)->seq.items[1]);
  MlcBlock *ny = block_y(got);
  CHECK(ny->reads[1].buf == A2 && ny->reads[0].buf == mm.Y && ny->reads[2].buf == mm.B);
  CHECK(ny->body->store.value->bin.b->bin.a->load.buf == A2);
  CHECK(ny->body->store.value->bin.b->bin.b == block_y(old)->body->store.value->bin.b->bin.b);
}

/* The other statement and expression kinds, with `use` read where a param
 * would be (x, or y after substitution):
 *   for i in thread_binding(8, "threadIdx.x", annotations={"p": [1, use]}):
 *     let t = use + 1:
 *       if t > 0:
 *         allocate L (8,):
 *           L[i] = select(not(t < 2), cast(float32, -use), exp(X[i]))
 *           X[ramp(0, 1, 4)] = broadcast(L[0], 4)
 *       else:
 *         evaluate(let u = use * 2 in u + u) */
typedef struct Kinds { MlcPrimFunc *f; MlcExpr *x, *y; MlcBuffer *X; MlcStmt *else_s; } Kinds;

static MlcAttrs annot(MlcExpr *use) {
  MlcAttrValue *items = mlc_arena_array(&ctx->arena, 2, sizeof *items);
  items[0] = (MlcAttrValue){.kind = MLC_ATTR_INT, .i = 1};
  items[1] = (MlcAttrValue){.kind = MLC_ATTR_EXPR, .expr = use};
  MlcAttr *a = mlc_arena_alloc(&ctx->arena, sizeof *a);
  *a = (MlcAttr){mlc_intern(ctx, "p"), {.kind = MLC_ATTR_LIST, .list = {items, 2}}};
  return (MlcAttrs){a, 1};
}

static MlcStmt *kinds_then(MlcExpr *t, MlcExpr *use, MlcExpr *i, MlcBuffer *X) {
  MlcExpr *shape[1] = {imm(MLC_I32, 8)}, *idx_i[1] = {i}, *idx_0[1] = {imm(MLC_I32, 0)};
  MlcBuffer *L = mlc_buffer_new(ctx, "L", MLC_F32, shape, 1, NULL, NULL, "local");
  MlcExpr *cond = mlc_e_not(ctx, mlc_e_bin(ctx, MLC_BIN_LT, t, imm(MLC_I32, 2)));
  MlcExpr *xi = mlc_e_load(ctx, X, idx_i, 1);
  MlcExpr *sel = mlc_e_select(ctx, cond, mlc_e_cast(ctx, MLC_F32, mlc_e_neg(ctx, use)),
                              mlc_e_call(ctx, MLC_INTRIN_EXP, &xi, 1));
  MlcExpr *ramp[1] = {mlc_e_ramp(ctx, imm(MLC_I32, 0), imm(MLC_I32, 1), 4)};
  MlcStmt *two[2] = {mlc_s_store(ctx, L, idx_i, 1, sel),
                     mlc_s_store(ctx, X, ramp, 1, mlc_e_broadcast(ctx, mlc_e_load(ctx, L, idx_0, 1), 4))};
  return mlc_s_allocate(ctx, L, mlc_s_seq(ctx, two, 2));
}

static Kinds kinds(bool use_y) {
  Kinds k = {NULL, ivar("x"), ivar("y"), NULL, NULL};
  MlcExpr *shape[1] = {imm(MLC_I32, 8)};
  k.X = mlc_buffer_new(ctx, "X", MLC_F32, shape, 1, NULL, NULL, "global");
  MlcExpr *use = use_y ? k.y : k.x, *i = ivar("i"), *t = ivar("t"), *u = ivar("u");
  MlcExpr *let_u = mlc_e_let(ctx, u, mlc_e_bin(ctx, MLC_BIN_MUL, use, imm(MLC_I32, 2)),
                             mlc_e_bin(ctx, MLC_BIN_ADD, u, u));
  k.else_s = mlc_s_evaluate(ctx, let_u);
  MlcStmt *branch = mlc_s_if(ctx, mlc_e_bin(ctx, MLC_BIN_GT, t, imm(MLC_I32, 0)),
                             kinds_then(t, use, i, k.X), k.else_s);
  MlcStmt *let_t = mlc_s_let(ctx, t, mlc_e_bin(ctx, MLC_BIN_ADD, use, imm(MLC_I32, 1)), branch);
  MlcStmt *body = mlc_s_for(ctx, i, imm(MLC_I32, 0), imm(MLC_I32, 8), MLC_FOR_THREAD, "threadIdx.x",
                            annot(use), let_t);
  MlcParam *params = mlc_arena_array(&ctx->arena, 3, sizeof *params);
  params[0] = (MlcParam){k.x, NULL};
  params[1] = (MlcParam){k.y, NULL};
  params[2] = (MlcParam){mlc_e_var(ctx, "xp", MLC_HANDLE), k.X};
  k.f = mlc_prim_func_new(ctx, "kinds", params, 3, (MlcAttrs){0}, body);
  return k;
}

static void test_substitute_every_kind(void) {
  Kinds k = kinds(false), want = kinds(true);
  CHECK(k.f && want.f);
  if (!k.f || !want.f) return;
  MlcMutator id = {.ctx = ctx};
  CHECK(mlc_mutate_stmt(&id, k.f->body) == k.f->body);
  MlcMap vmap = {0};
  mlc_map_put(&vmap, k.x, k.y);
  MlcStmt *got = mlc_substitute_stmt(ctx, k.f->body, &vmap);
  mlc_map_free(&vmap);
  CHECK(got && got != k.f->body);
  if (!got) return;
  CHECK(got->loop.annotations.items != k.f->body->loop.annotations.items);
  CHECK(got->loop.annotations.items[0].val.list.items[1].expr == k.y);
  MlcPrimFunc *f = mlc_prim_func_new(ctx, "kinds", k.f->params, 3, (MlcAttrs){0}, got);
  CHECK(f && mlc_prim_func_equal(f, want.f) && !mlc_prim_func_equal(f, k.f));
  /* a buffer_map reaches allocations: the then-branch changes, the else does not */
  MlcBuffer *L = got->loop.body->let.body->if_.then_s->alloc.buf;
  MlcMutator m = {.ctx = ctx};
  mlc_map_put(&m.buffer_map, L, k.X);
  MlcStmt *moved = mlc_mutate_stmt(&m, got);
  mlc_map_free(&m.buffer_map);
  CHECK(moved && moved->loop.body->let.body->if_.then_s->alloc.buf == k.X);
  CHECK(moved && moved->loop.body->let.body->if_.else_s == got->loop.body->let.body->if_.else_s);
}

static MlcGExpr *relu_to_gelu(MlcMutator *m, MlcGExpr *e) {
  if (e->kind == MLC_G_OP && strcmp(e->str, "nn.relu") == 0) return mlc_g_op(m->ctx, "nn.gelu");
  return mlc_mutate_gexpr_children(m, e);
}

static void test_graph_mutator(void) {
  MlcGFunc *f = graph_main("nn.relu"), *want = graph_main("nn.gelu");
  CHECK(f && want);
  if (!f || !want) return;
  MlcMutator m = {.ctx = ctx, .gexpr = relu_to_gelu};
  MlcGExpr *body = mlc_mutate_gexpr(&m, f->body);
  CHECK(body && body != f->body);
  if (!body) return;
  MlcBinding *ob = f->body->seq.blocks[0]->bindings, *nb = body->seq.blocks[0]->bindings;
  CHECK(nb[0].value == ob[0].value); /* call_tir untouched */
  CHECK(nb[1].value != ob[1].value && nb[1].var == ob[1].var);
  CHECK(nb[2].value == ob[2].value);
  MlcGFunc *g = mlc_gfunc_new(ctx, "main", f->params, f->n_params, f->ret, body, f->attrs, f->pure);
  CHECK(g && mlc_gfunc_equal(g, want) && !mlc_gfunc_equal(g, f));
  CHECK(g && mlc_gfunc_hash(g) == mlc_gfunc_hash(want));
}

int main(void) {
  ctx = mlc_ctx_new();
  RUN(test_visit_counts_mm_relu);
  RUN(test_visit_prunes_a_block);
  RUN(test_visit_counts_graph);
  RUN(test_identity_mutator_shares_everything);
  RUN(test_substitute_shares_unchanged_subtrees);
  RUN(test_substitute_expr);
  RUN(test_buffer_map);
  RUN(test_substitute_every_kind);
  RUN(test_graph_mutator);
  if (mlc_has_error(ctx)) printf("note: context error: %s\n", mlc_error_msg(ctx));
  mlc_ctx_free(ctx);
  return CHECK_DONE();
}
