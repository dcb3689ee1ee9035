/* test_verify.c - the whole-function checks of prim funcs and graph
 * functions: a well-formed function passes, and each kind of malformation is
 * refused with a message naming the place.
 *
 * Malformations the node builders already refuse are made by editing a
 * well-formed function after it was built (nodes are plain memory), so the
 * function-level check is exercised on its own. */
#include "check.h"
#include "ir/verify.h"
#include "mlcc/ir.h"

#define NOATTRS ((MlcAttrs){0})

/* ---- TIR helpers ------------------------------------------------------- */

static MlcExpr *i32(MlcCtx *ctx, int64_t v) { return mlc_e_int(ctx, MLC_I32, v); }
static MlcExpr *f32(MlcCtx *ctx, double v) { return mlc_e_float(ctx, MLC_F32, v); }
static MlcExpr *var(MlcCtx *ctx, const char *name) { return mlc_e_var(ctx, name, MLC_I32); }

static MlcBuffer *buffer(MlcCtx *ctx, const char *name, int ndim, int64_t extent) {
  MlcExpr *shape[4];
  for (int d = 0; d < ndim; d++) shape[d] = i32(ctx, extent);
  return mlc_buffer_new(ctx, name, MLC_F32, shape, ndim, NULL, NULL, "global");
}

static MlcExpr *load2(MlcCtx *ctx, MlcBuffer *b, MlcExpr *x, MlcExpr *y) {
  MlcExpr *idx[2] = {x, y};
  return mlc_e_load(ctx, b, idx, 2);
}

static MlcStmt *store2(MlcCtx *ctx, MlcBuffer *b, MlcExpr *x, MlcExpr *y, MlcExpr *value) {
  MlcExpr *idx[2] = {x, y};
  return mlc_s_store(ctx, b, idx, 2, value);
}

static MlcStmt *loop(MlcCtx *ctx, MlcExpr *v, int64_t extent, MlcStmt *body) {
  return mlc_s_for(ctx, v, i32(ctx, 0), i32(ctx, extent), MLC_FOR_SERIAL, NULL, NOATTRS, body);
}

static MlcIterVar iter(MlcCtx *ctx, MlcExpr *v, int64_t extent, MlcIterKind kind) {
  return (MlcIterVar){v, {i32(ctx, 0), i32(ctx, extent)}, kind};
}

static MlcPrimFunc *func(MlcCtx *ctx, const char *name, MlcBuffer **bufs, int n, MlcStmt *body) {
  MlcParam params[8];
  for (int i = 0; i < n; i++)
    params[i] = (MlcParam){mlc_e_var(ctx, bufs[i]->name, MLC_HANDLE), bufs[i]};
  return mlc_prim_func_new(ctx, name, params, n, NOATTRS, body);
}

/* mm_relu: Y = A @ B (a reduction into a root-allocated Y), C = relu(Y) */
typedef struct MM {
  MlcCtx *ctx;
  MlcBuffer *A, *B, *C, *Y;
  MlcExpr *i, *j, *k, *vi, *vj, *vk, *wi, *wj;
  MlcExpr *load_a;
  MlcStmt *y_update, *c_store, *y_realize, *loop_i, *loop_j;
  MlcBlock *y_block, *c_block;
  MlcPrimFunc *f;
} MM;

static MlcStmt *mm_y_nest(MM *m) {
  MlcCtx *ctx = m->ctx;
  m->vi = var(ctx, "vi"), m->vj = var(ctx, "vj"), m->vk = var(ctx, "vk");
  m->load_a = load2(ctx, m->A, m->vi, m->vk);
  MlcExpr *prod = mlc_e_bin(ctx, MLC_BIN_MUL, m->load_a, load2(ctx, m->B, m->vk, m->vj));
  m->y_update = store2(ctx, m->Y, m->vi, m->vj,
                       mlc_e_bin(ctx, MLC_BIN_ADD, load2(ctx, m->Y, m->vi, m->vj), prod));
  MlcStmt *init = store2(ctx, m->Y, m->vi, m->vj, f32(ctx, 0));
  MlcIterVar its[3] = {iter(ctx, m->vi, 128, MLC_ITER_SPATIAL), iter(ctx, m->vj, 128, MLC_ITER_SPATIAL),
                       iter(ctx, m->vk, 128, MLC_ITER_REDUCE)};
  m->y_block = mlc_block_new(ctx, "Y", its, 3, NULL, 0, NULL, 0, init, NULL, 0, NOATTRS, m->y_update);
  mlc_block_infer_regions(ctx, m->y_block);
  m->i = var(ctx, "i"), m->j = var(ctx, "j"), m->k = var(ctx, "k");
  MlcExpr *vals[3] = {m->i, m->j, m->k};
  m->y_realize = mlc_s_realize(ctx, vals, 3, NULL, m->y_block);
  m->loop_j = loop(ctx, m->j, 128, loop(ctx, m->k, 128, m->y_realize));
  m->loop_i = loop(ctx, m->i, 128, m->loop_j);
  return m->loop_i;
}

static MlcStmt *mm_c_nest(MM *m) {
  MlcCtx *ctx = m->ctx;
  m->wi = var(ctx, "vi"), m->wj = var(ctx, "vj");
  MlcExpr *relu = mlc_e_bin(ctx, MLC_BIN_MAX, load2(ctx, m->Y, m->wi, m->wj), f32(ctx, 0));
  m->c_store = store2(ctx, m->C, m->wi, m->wj, relu);
  MlcIterVar its[2] = {iter(ctx, m->wi, 128, MLC_ITER_SPATIAL), iter(ctx, m->wj, 128, MLC_ITER_SPATIAL)};
  m->c_block = mlc_block_new(ctx, "C", its, 2, NULL, 0, NULL, 0, NULL, NULL, 0, NOATTRS, m->c_store);
  mlc_block_infer_regions(ctx, m->c_block);
  MlcExpr *i = var(ctx, "i"), *j = var(ctx, "j");
  MlcExpr *vals[2] = {i, j};
  return loop(ctx, i, 128, loop(ctx, j, 128, mlc_s_realize(ctx, vals, 2, NULL, m->c_block)));
}

static MM mm_relu(void) {
  MM m = {.ctx = mlc_ctx_new()};
  MlcCtx *ctx = m.ctx;
  m.A = buffer(ctx, "A", 2, 128), m.B = buffer(ctx, "B", 2, 128), m.C = buffer(ctx, "C", 2, 128);
  m.Y = buffer(ctx, "Y", 2, 128);
  MlcStmt *nests[2] = {mm_y_nest(&m), mm_c_nest(&m)};
  MlcBlock *root = mlc_block_new(ctx, "root", NULL, 0, NULL, 0, NULL, 0, NULL, &m.Y, 1, NOATTRS,
                                 mlc_s_seq(ctx, nests, 2));
  MlcBuffer *params[3] = {m.A, m.B, m.C};
  m.f = func(ctx, "mm_relu", params, 3, mlc_s_realize(ctx, NULL, 0, NULL, root));
  return m;
}

/* re-run the check on an edited function; true when it is refused with want */
static bool refused(MlcCtx *ctx, const MlcPrimFunc *f, const char *want) {
  mlc_clear_error(ctx);
  bool ok = mlc_verify_prim_func(ctx, f);
  const char *got = mlc_has_error(ctx) ? mlc_error_msg(ctx) : "(no error)";
  if (!ok && strcmp(got, want) == 0) return true;
  printf("    got: %s\n    want: %s\n", got, want);
  return false;
}

/* ---- prim funcs: well-formed ------------------------------------------- */

static void test_mm_relu_ok(void) {
  MM m = mm_relu();
  CHECK(m.f != NULL);
  CHECK(!mlc_has_error(m.ctx));
  CHECK(m.f && mlc_verify_prim_func(m.ctx, m.f));
  mlc_ctx_free(m.ctx);
}

/* A[n] with n bound by the buffer param, a let, a vector store */
static void test_shape_vars_lets_vectors_ok(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcExpr *n = var(ctx, "n"), *i = var(ctx, "i"), *x = var(ctx, "x");
  MlcBuffer *A = mlc_buffer_new(ctx, "A", MLC_F32, &n, 1, NULL, NULL, "global");
  MlcBuffer *B = buffer(ctx, "B", 1, 64);
  MlcExpr *ramp = mlc_e_ramp(ctx, i32(ctx, 0), i32(ctx, 1), 4);
  MlcStmt *vec = mlc_s_store(ctx, B, &ramp, 1, mlc_e_broadcast(ctx, f32(ctx, 1), 4));
  MlcExpr *twice = mlc_e_bin(ctx, MLC_BIN_MUL, i, i32(ctx, 2));
  MlcStmt *body = mlc_s_let(ctx, x, twice, mlc_s_store(ctx, A, &x, 1, f32(ctx, 2)));
  MlcStmt *items[2] = {mlc_s_for(ctx, i, i32(ctx, 0), n, MLC_FOR_SERIAL, NULL, NOATTRS, body), vec};
  MlcBuffer *bufs[2] = {A, B};
  MlcPrimFunc *f = func(ctx, "f", bufs, 2, mlc_s_seq(ctx, items, 2));
  CHECK(f != NULL);
  CHECK(!mlc_has_error(ctx));
  mlc_ctx_free(ctx);
}

/* ---- prim funcs: vars ---------------------------------------------------- */

static void test_loop_var_inside_block(void) {
  MM m = mm_relu();
  m.load_a->load.idx[1] = m.k; /* A[vi, k]: the block sees loop k only through vk */
  CHECK(refused(m.ctx, m.f, "function \"mm_relu\": block \"Y\": use of undefined var 'k'"));
  mlc_ctx_free(m.ctx);
}

static void test_undefined_var(void) {
  MM m = mm_relu();
  m.c_store->store.idx[0] = var(m.ctx, "q");
  CHECK(refused(m.ctx, m.f, "function \"mm_relu\": block \"C\": use of undefined var 'q'"));
  mlc_ctx_free(m.ctx);
}

static void test_undefined_var_through_builder(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *B = buffer(ctx, "B", 1, 16);
  MlcExpr *i = var(ctx, "i"), *q = var(ctx, "q");
  MlcBuffer *bufs[1] = {B};
  MlcPrimFunc *f = func(ctx, "f", bufs, 1, loop(ctx, i, 16, mlc_s_store(ctx, B, &q, 1, f32(ctx, 0))));
  CHECK(f == NULL);
  CHECK_STR(mlc_error_msg(ctx), "function \"f\": use of undefined var 'q'");
  mlc_ctx_free(ctx);
}

static void test_binding_uses_own_iter_var(void) {
  MM m = mm_relu();
  m.y_realize->realize.values[0] = m.vi;
  CHECK(refused(m.ctx, m.f, "function \"mm_relu\": block \"Y\": use of undefined var 'vi'"));
  mlc_ctx_free(m.ctx);
}

static void test_var_bound_twice_nested(void) {
  MM m = mm_relu();
  m.loop_j->loop.var = m.i; /* for i: for i: ... */
  CHECK(refused(m.ctx, m.f,
                "function \"mm_relu\": block \"root\": loop var 'i' is already bound in an enclosing scope"));
  mlc_ctx_free(m.ctx);
}

static void test_var_reused_in_sibling_loops_ok(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *B = buffer(ctx, "B", 1, 16);
  MlcExpr *i = var(ctx, "i");
  MlcStmt *items[2] = {loop(ctx, i, 16, mlc_s_store(ctx, B, &i, 1, f32(ctx, 0))),
                       loop(ctx, i, 16, mlc_s_store(ctx, B, &i, 1, f32(ctx, 1)))};
  MlcBuffer *bufs[1] = {B};
  CHECK(func(ctx, "f", bufs, 1, mlc_s_seq(ctx, items, 2)) != NULL);
  mlc_ctx_free(ctx);
}

static void test_let_var_out_of_scope(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *B = buffer(ctx, "B", 1, 16);
  MlcExpr *x = var(ctx, "x");
  MlcStmt *items[2] = {mlc_s_let(ctx, x, i32(ctx, 3), mlc_s_store(ctx, B, &x, 1, f32(ctx, 0))),
                       mlc_s_store(ctx, B, &x, 1, f32(ctx, 1))};
  MlcBuffer *bufs[1] = {B};
  CHECK(func(ctx, "f", bufs, 1, mlc_s_seq(ctx, items, 2)) == NULL);
  CHECK_STR(mlc_error_msg(ctx), "function \"f\": use of undefined var 'x'");
  mlc_ctx_free(ctx);
}

static void test_size_var_not_bound_by_params(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcExpr *n = var(ctx, "n"), *m = var(ctx, "m"), *i = var(ctx, "i");
  MlcBuffer *A = mlc_buffer_new(ctx, "A", MLC_F32, &n, 1, NULL, NULL, "global");
  MlcStmt *body = mlc_s_for(ctx, i, i32(ctx, 0), m, MLC_FOR_SERIAL, NULL, NOATTRS,
                            mlc_s_store(ctx, A, &i, 1, f32(ctx, 0)));
  MlcBuffer *bufs[1] = {A};
  CHECK(func(ctx, "f", bufs, 1, body) == NULL);
  CHECK_STR(mlc_error_msg(ctx), "function \"f\": use of undefined var 'm'");
  mlc_ctx_free(ctx);
}

/* ---- prim funcs: buffers --------------------------------------------------- */

static void test_buffer_not_in_scope(void) {
  MM m = mm_relu();
  m.c_store->store.buf = buffer(m.ctx, "D", 2, 128);
  CHECK(refused(m.ctx, m.f,
                "function \"mm_relu\": block \"C\": store to buffer 'D', which is neither a "
                "parameter nor allocated in an enclosing block"));
  mlc_ctx_free(m.ctx);
}

static void test_allocate_scope(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *B = buffer(ctx, "B", 1, 16), *T = buffer(ctx, "T", 1, 16);
  MlcExpr *zero = i32(ctx, 0);
  MlcStmt *inner = mlc_s_store(ctx, T, &zero, 1, f32(ctx, 0));
  MlcStmt *items[2] = {mlc_s_allocate(ctx, T, inner),
                       mlc_s_store(ctx, B, &zero, 1, mlc_e_load(ctx, T, &zero, 1))};
  MlcBuffer *bufs[1] = {B};
  CHECK(func(ctx, "f", bufs, 1, mlc_s_seq(ctx, items, 2)) == NULL);
  CHECK_STR(mlc_error_msg(ctx), "function \"f\": load from buffer 'T', which is neither a parameter "
                                "nor allocated in an enclosing block");
  mlc_ctx_free(ctx);
}

static void test_region_buffer_not_in_scope(void) {
  MM m = mm_relu();
  m.c_block->reads[0].buf = buffer(m.ctx, "Z", 2, 128);
  CHECK(refused(m.ctx, m.f,
                "function \"mm_relu\": block \"C\": read region of buffer 'Z', which is neither a "
                "parameter nor allocated in an enclosing block"));
  mlc_ctx_free(m.ctx);
}

/* ---- prim funcs: indices and dtypes ---------------------------------------- */

static void test_store_rank(void) {
  MlcCtx *ctx = mlc_ctx_new();
  MlcBuffer *B = buffer(ctx, "B", 2, 16);
  MlcExpr *i = var(ctx, "i");
  MlcStmt *st = store2(ctx, B, i, i, f32(ctx, 0));
  MlcBuffer *bufs[1] = {B};
  MlcPrimFunc *f = func(ctx, "f", bufs, 1, loop(ctx, i, 16, st));
  CHECK(f != NULL);
  st->store.n = 1;
  CHECK(refused(ctx, f, "function \"f\": store to buffer 'B' with 1 index, buffer has rank 2"));
  mlc_ctx_free(ctx);
}

static void test_load_rank(void) {
  MM m = mm_relu();
  m.load_a->load.n = 3;
  m.load_a->load.idx = (MlcExpr *[]){m.vi, m.vk, m.vk};
  CHECK(refused(m.ctx, m.f, "function \"mm_relu\": block \"Y\": load from buffer 'A' with 3 indices, "
                            "buffer has rank 2"));
  mlc_ctx_free(m.ctx);
}

static void test_index_not_integer(void) {
  MM m = mm_relu();
  m.c_store->store.idx[1] = f32(m.ctx, 1);
  CHECK(refused(m.ctx, m.f, "function \"mm_relu\": block \"C\": store to buffer 'C': index 1 has "
                            "dtype float32, expected an integer"));
  mlc_ctx_free(m.ctx);
}

static void test_store_value_dtype(void) {
  MM m = mm_relu();
  m.c_store->store.value = i32(m.ctx, 0);
  CHECK(refused(m.ctx, m.f, "function \"mm_relu\": block \"C\": value of dtype int32 stored to "
                            "buffer 'C' of float32"));
  mlc_ctx_free(m.ctx);
}

static void test_loop_bounds(void) {
  MM m = mm_relu();
  MlcExpr *extent = m.loop_i->loop.extent;
  m.loop_i->loop.extent = mlc_e_int(m.ctx, MLC_I64, 128);
  CHECK(refused(m.ctx, m.f, "function \"mm_relu\": block \"root\": loop 'i': extent has dtype int64, "
                            "loop var has int32"));
  m.loop_i->loop.extent = extent;
  m.loop_i->loop.min = f32(m.ctx, 0);
  CHECK(refused(m.ctx, m.f, "function \"mm_relu\": block \"root\": loop 'i': min has dtype float32, "
                            "expected an integer"));
  mlc_ctx_free(m.ctx);
}

/* ---- prim funcs: blocks ------------------------------------------------------ */

static void test_binding_count(void) {
  MM m = mm_relu();
  m.y_realize->realize.n = 2;
  CHECK(refused(m.ctx, m.f, "function \"mm_relu\": block \"Y\": 2 binding values for 3 iter vars"));
  mlc_ctx_free(m.ctx);
}

static void test_iter_domain_dtype(void) {
  MM m = mm_relu();
  m.y_block->iters[1].dom.extent = f32(m.ctx, 128);
  CHECK(refused(m.ctx, m.f, "function \"mm_relu\": block \"Y\": iter var 'vj' has a domain of dtype "
                            "float32, expected an integer"));
  mlc_ctx_free(m.ctx);
}

static void test_init_needs_reduce(void) {
  MM m = mm_relu();
  m.y_block->iters[2].kind = MLC_ITER_SPATIAL;
  CHECK(refused(m.ctx, m.f, "function \"mm_relu\": block \"Y\": has an init but no reduce iter var"));
  mlc_ctx_free(m.ctx);
}

static void test_region_uses_loop_var(void) {
  MM m = mm_relu();
  m.c_block->writes[0].ranges[0].min = m.i;
  CHECK(refused(m.ctx, m.f, "function \"mm_relu\": block \"C\": use of undefined var 'i'"));
  mlc_ctx_free(m.ctx);
}

/* ---- graph functions ---------------------------------------------------------- */

typedef struct G {
  MlcCtx *ctx;
  MlcExpr *n;                       /* symbolic batch size */
  MlcGExpr *x, *w, *lv0, *gv, *call;
  MlcBinding binds[2];
  MlcBindingBlock *df;
} G;

static MlcSInfo *tensor2(MlcCtx *ctx, MlcExpr *d0, int64_t d1) {
  MlcExpr *shape[2] = {d0, mlc_e_int(ctx, MLC_I64, d1)};
  return mlc_sinfo_tensor(ctx, shape, 2, MLC_F32);
}

/* main(x: (n, 784), w: (128, 784)): lv0 = call_tir(linear, (x, w)); gv = relu(lv0) */
static G graph(void) {
  G g = {.ctx = mlc_ctx_new()};
  MlcCtx *ctx = g.ctx;
  g.n = mlc_e_var(ctx, "n", MLC_I64);
  g.x = mlc_g_var(ctx, "x", tensor2(ctx, g.n, 784), false);
  g.w = mlc_g_var(ctx, "w", tensor2(ctx, mlc_e_int(ctx, MLC_I64, 128), 784), false);
  MlcGExpr *args[2] = {g.x, g.w};
  g.call = mlc_g_call_tir(ctx, mlc_g_global(ctx, "linear"), args, 2, tensor2(ctx, g.n, 128));
  g.lv0 = mlc_g_var(ctx, "lv0", g.call->sinfo, true);
  MlcGExpr *relu = mlc_g_call(ctx, mlc_g_op(ctx, "nn.relu"), &g.lv0, 1, NOATTRS, NULL, 0, g.call->sinfo);
  g.gv = mlc_g_var(ctx, "gv", relu->sinfo, false);
  g.binds[0] = (MlcBinding){g.lv0, g.call, {0}};
  g.binds[1] = (MlcBinding){g.gv, relu, {0}};
  return g;
}

static MlcGFunc *graph_func(G *g, MlcGExpr *result) {
  g->df = mlc_g_block(g->ctx, true, g->binds, 2);
  MlcGExpr *params[2] = {g->x, g->w};
  return mlc_gfunc_new(g->ctx, "main", params, 2, NULL, mlc_g_seq(g->ctx, &g->df, 1, result), NOATTRS,
                       true);
}

static bool gfunc_refused(G *g, MlcGExpr *result, const char *want) {
  MlcGFunc *f = graph_func(g, result);
  const char *got = mlc_has_error(g->ctx) ? mlc_error_msg(g->ctx) : "(no error)";
  if (!f && strcmp(got, want) == 0) return true;
  printf("    got: %s\n    want: %s\n", got, want);
  return false;
}

static void test_graph_ok(void) {
  G g = graph();
  MlcGFunc *f = graph_func(&g, g.gv);
  CHECK(f != NULL);
  CHECK(!mlc_has_error(g.ctx));
  CHECK(f && mlc_verify_gfunc(g.ctx, f));
  mlc_ctx_free(g.ctx);
}

static void test_graph_undefined_var(void) {
  G g = graph();
  MlcGExpr *y = mlc_g_var(g.ctx, "y", NULL, false);
  CHECK(gfunc_refused(&g, y, "function \"main\": use of undefined var 'y'"));
  mlc_ctx_free(g.ctx);
}

static void test_graph_use_before_binding(void) {
  G g = graph();
  MlcBinding first = g.binds[0];
  g.binds[0] = g.binds[1];
  g.binds[1] = first;
  CHECK(gfunc_refused(&g, g.gv, "function \"main\": use of undefined var 'lv0'"));
  mlc_ctx_free(g.ctx);
}

static void test_graph_dataflow_var_escapes(void) {
  G g = graph();
  CHECK(gfunc_refused(&g, g.lv0, "function \"main\": dataflow var 'lv0' is used outside its dataflow block"));
  mlc_ctx_free(g.ctx);
}

static void test_graph_bound_twice(void) {
  G g = graph();
  g.binds[1].var = g.lv0;
  CHECK(gfunc_refused(&g, g.gv, "function \"main\": var 'lv0' is bound twice"));
  mlc_ctx_free(g.ctx);
}

static void test_graph_param_rebound(void) {
  G g = graph();
  g.binds[1].var = g.x;
  CHECK(gfunc_refused(&g, g.x, "function \"main\": var 'x' is bound twice"));
  mlc_ctx_free(g.ctx);
}

static void test_graph_dataflow_var_outside_dataflow(void) {
  G g = graph();
  MlcGFunc *f = graph_func(&g, g.gv);
  CHECK(f != NULL);
  g.df->dataflow = false; /* the builder refuses this; edit after building */
  CHECK(f && !mlc_verify_gfunc(g.ctx, f));
  CHECK_STR(mlc_error_msg(g.ctx), "function \"main\": dataflow var 'lv0' is bound outside a dataflow block");
  mlc_ctx_free(g.ctx);
}

static void test_graph_call_tir_callee(void) {
  G g = graph();
  MlcGExpr *args[2] = {g.w, g.call->call.args[1]};
  g.binds[0].value = mlc_g_call(g.ctx, mlc_g_op(g.ctx, "call_tir"), args, 2, NOATTRS,
                                g.call->call.sinfo_args, 1, g.call->sinfo);
  CHECK(gfunc_refused(&g, g.gv, "function \"main\": call_tir must call a global function, not var 'w'"));
  mlc_ctx_free(g.ctx);
}

static void test_graph_symbolic_var_undefined(void) {
  G g = graph();
  MlcExpr *m = mlc_e_var(g.ctx, "m", MLC_I64);
  g.call->call.sinfo_args[0] = tensor2(g.ctx, m, 128);
  CHECK(gfunc_refused(&g, g.gv, "function \"main\": symbolic var 'm' is used before a parameter's or a "
                                "binding's struct info defines it"));
  mlc_ctx_free(g.ctx);
}

/* a binding's annotation defines m; a later shape value may use it */
static void test_graph_symbolic_var_from_binding(void) {
  G g = graph();
  MlcCtx *ctx = g.ctx;
  MlcExpr *m = mlc_e_var(ctx, "m", MLC_I64);
  g.gv->sinfo = tensor2(ctx, m, 128);
  MlcExpr *dims[2] = {m, g.n};
  MlcGExpr *shape = mlc_g_shape(ctx, dims, 2);
  MlcGExpr *sv = mlc_g_var(ctx, "s", shape->sinfo, false);
  MlcBinding b = {sv, shape, {0}};
  MlcBindingBlock *blocks[2] = {mlc_g_block(ctx, true, g.binds, 2), mlc_g_block(ctx, false, &b, 1)};
  MlcGExpr *params[2] = {g.x, g.w};
  CHECK(mlc_gfunc_new(ctx, "main", params, 2, NULL, mlc_g_seq(ctx, blocks, 2, sv), NOATTRS, true) != NULL);
  CHECK(!mlc_has_error(ctx));
  mlc_ctx_free(ctx);
}

static void test_graph_if_branch_scope(void) {
  G g = graph();
  MlcCtx *ctx = g.ctx;
  MlcGExpr *cond = mlc_g_var(ctx, "c", mlc_sinfo_prim(ctx, MLC_BOOL, NULL), false);
  MlcGExpr *t = mlc_g_var(ctx, "t", g.x->sinfo, false);
  MlcBinding tb = {t, g.x, {0}};
  MlcBindingBlock *tblock = mlc_g_block(ctx, false, &tb, 1);
  MlcGExpr *then_e = mlc_g_seq(ctx, &tblock, 1, t), *else_e = mlc_g_seq(ctx, NULL, 0, g.x);
  MlcGExpr *r = mlc_g_var(ctx, "r", NULL, false);
  MlcBinding rb[2] = {{r, mlc_g_if(ctx, cond, then_e, else_e), {0}}, {mlc_g_var(ctx, "u", NULL, false), t, {0}}};
  MlcBindingBlock *block = mlc_g_block(ctx, false, rb, 2);
  MlcGExpr *params[2] = {g.x, cond};
  CHECK(mlc_gfunc_new(ctx, "main", params, 2, NULL, mlc_g_seq(ctx, &block, 1, r), NOATTRS, true) == NULL);
  CHECK_STR(mlc_error_msg(ctx), "function \"main\": use of undefined var 't'");
  mlc_ctx_free(ctx);
}

int main(void) {
  RUN(test_mm_relu_ok);
  RUN(test_shape_vars_lets_vectors_ok);
  RUN(test_loop_var_inside_block);
  RUN(test_undefined_var);
  RUN(test_undefined_var_through_builder);
  RUN(test_binding_uses_own_iter_var);
  RUN(test_var_bound_twice_nested);
  RUN(test_var_reused_in_sibling_loops_ok);
  RUN(test_let_var_out_of_scope);
  RUN(test_size_var_not_bound_by_params);
  RUN(test_buffer_not_in_scope);
  RUN(test_allocate_scope);
  RUN(test_region_buffer_not_in_scope);
  RUN(test_store_rank);
  RUN(test_load_rank);
  RUN(test_index_not_integer);
  RUN(test_store_value_dtype);
  RUN(test_loop_bounds);
  RUN(test_binding_count);
  RUN(test_iter_domain_dtype);
  RUN(test_init_needs_reduce);
  RUN(test_region_uses_loop_var);
  RUN(test_graph_ok);
  RUN(test_graph_undefined_var);
  RUN(test_graph_use_before_binding);
  RUN(test_graph_dataflow_var_escapes);
  RUN(test_graph_bound_twice);
  RUN(test_graph_param_rebound);
  RUN(test_graph_dataflow_var_outside_dataflow);
  RUN(test_graph_call_tir_callee);
  RUN(test_graph_symbolic_var_undefined);
  RUN(test_graph_symbolic_var_from_binding);
  RUN(test_graph_if_branch_scope);
  return CHECK_DONE();
}
