/* c_loop.c - the model executor's R.loop (see c_graph.c). */
#include "c_graph.h"
#include "ops/dyn_modes.h"
#include "mlcc/arith.h"

#include <stdio.h>
#include <string.h>

/* ---- loops ------------------------------------------------------------------------------- */

/* R.loop (src/ops/loop.c): the body function's bindings compiled once, into
 * a C loop that runs them per iteration.  The carried values live in
 * run-time allocations of their own, copied from the initial values before
 * the first iteration and from the body's result after each (memmove: the
 * result may be the parameter itself); the scan outputs are run-time
 * allocations that double when full, each iteration's element copied in at
 * its place.  Every copy is sized at run time and checked against the
 * buffer it goes into.  What the body allocated at run time is freed at the
 * end of its iteration; the iteration count binds the loop's size var. */

#define MAX_LOOP_DEPTH 16

/* a run-time allocation for a tensor of t's shape and dtype (t->data set) */
static bool loop_alloc(G *g, GVal *t, const char *what, bool copy_from_init, const char *init_data) {
  t->alloc = g->n_allocs++;
  t->align = C_PARAM_ALIGN;
  t->data = mlc_internf(g->ctx, "fr->mlc_a%d", t->alloc);
  mlc_sb_printf(&g->decls, "  void *mlc_a%d; /* %s: %s */\n", t->alloc, g->bname, what);
  mlc_sb_puts(&g->body, "  {\n");
  if (!cg_emit_nbytes(g, t, what)) return false;
  mlc_sb_printf(&g->body, "    if (!(fr->mlc_a%d = env->workspace_alloc(mlc_nb ? mlc_nb : 1, %d))) {\n      rc = -1;\n"
                          "      goto mlc_done;\n    }\n", t->alloc, C_PARAM_ALIGN);
  if (copy_from_init) mlc_sb_printf(&g->body, "    if (mlc_nb) memcpy(fr->mlc_a%d, %s, mlc_nb);\n", t->alloc, init_data);
  mlc_sb_puts(&g->body, "  }\n");
  return true;
}

static GVal *loop_tensor(G *g, const MlcSInfo *s, MlcDType t) {
  GVal *v = cg_gv_new(g, GV_TENSOR);
  v->ndim = s ? s->tensor.ndim : 0;
  v->shape = s ? s->tensor.shape : NULL;
  v->dtype = t;
  return v;
}

/* the body's param p stands for the value v: its size vars for v's dims */
static bool loop_param(G *g, const MlcGExpr *p, GVal *v, int i) {
  const MlcSInfo *s = p->sinfo;
  if (v->kind != GV_TENSOR || !s || s->kind != MLC_SINFO_TENSOR || !s->tensor.shape || s->tensor.ndim != v->ndim ||
      !mlc_dtype_eq(s->tensor.dtype, v->dtype))
    return cg_gerr(g, "binding '%s': R.loop: parameter %d of the body does not take argument %d's shape and dtype", g->bname,
                i + 1, i + 1);
  for (int d = 0; d < v->ndim; d++) {
    const MlcExpr *e = s->tensor.shape[d];
    int64_t a, b;
    if (e->kind == MLC_EXPR_VAR && e != v->shape[d] && !mlc_map_has(&g->sym_alias, e))
      mlc_map_put(&g->sym_alias, e, (void *)v->shape[d]);
    else if (mlc_e_is_const_int(e, &a) && mlc_e_is_const_int(v->shape[d], &b) && a != b)
      return cg_gerr(g, "binding '%s': R.loop: parameter %d of the body has dim %d of %lld, the argument %lld", g->bname,
                  i + 1, d, (long long)a, (long long)b);
  }
  mlc_map_put(&g->vals, p, v);
  return true;
}

/* the body result's field r (a tensor) copied into buffer `to` (whose
 * bytes are mlc_lb<L>_<j>), after checking it has as many bytes */
static bool loop_copy(G *g, GVal *r, int L, int j, const char *dest, const char *what) {
  if (r->kind != GV_TENSOR) return cg_gerr(g, "binding '%s': R.loop: the body's %s is not a tensor", g->bname, what);
  mlc_sb_puts(&g->body, "  {\n");
  if (!cg_emit_nbytes(g, r, what)) return false;
  mlc_sb_printf(&g->body, "    if (mlc_nb != mlc_lb%d_%d) {\n      env->set_error(\"%s: binding '%s': the loop body's %s "
                          "changes its size\");\n      rc = -1;\n      goto mlc_done;\n    }\n", L, j, g->fn->name, g->bname, what);
  mlc_sb_printf(&g->body, "    if (mlc_nb) memmove(%s, %s, mlc_nb);\n  }\n", dest, r->data);
  return true;
}

/* the bytes of t into size_t mlc_lb<L>_<j>, declared in the loop's block */
static bool loop_bytes(G *g, const GVal *t, int L, int j, const char *what) {
  mlc_sb_printf(&g->body, "  size_t mlc_lb%d_%d;\n  {\n", L, j);
  if (!cg_emit_nbytes(g, t, what)) return false;
  mlc_sb_printf(&g->body, "    mlc_lb%d_%d = mlc_nb;\n  }\n", L, j);
  return true;
}

GVal *cg_compile_loop(G *g, const MlcGExpr *call) {
  const MlcSInfo *s = call->sinfo;
  const MlcAttrValue *cv = mlc_attrs_get(call->call.attrs, mlc_intern(g->ctx, "count"));
  const MlcExpr *count = cv && cv->kind == MLC_ATTR_LIST && cv->list.n == 1 && cv->list.items[0].kind == MLC_ATTR_EXPR
                             ? cv->list.items[0].expr : NULL;
  if (call->call.n != 5 || call->call.args[0]->kind != MLC_G_GLOBAL || !s || s->kind != MLC_SINFO_TUPLE || !count ||
      count->kind != MLC_EXPR_VAR)
    return cg_gerr(g, "binding '%s': R.loop whose struct info was not inferred", g->bname), NULL;
  if (g->gpu != MLC_GPU_NONE) return cg_gerr(g, "binding '%s': R.loop is not supported on GPU targets", g->bname), NULL;
  if (g->loop_depth >= MAX_LOOP_DEPTH) /* also what stops a body that loops over itself */
    return cg_gerr(g, "binding '%s': R.loop nested more than %d deep is not supported", g->bname, MAX_LOOP_DEPTH), NULL;
  const MlcFunc *bf = mlc_module_find(g->m, call->call.args[0]->str);
  GVal *trips = cg_resolve_tensor(g, call->call.args[1], "the trip count of R.loop");
  GVal *cond = trips ? cg_resolve_tensor(g, call->call.args[2], "the condition of R.loop") : NULL;
  GVal *init = cond ? cg_resolve(g, call->call.args[3]) : NULL, *outer = init ? cg_resolve(g, call->call.args[4]) : NULL;
  if (!outer) return NULL;
  if (!bf || bf->kind != MLC_FUNC_GRAPH || bf->graph->body->kind != MLC_G_SEQ)
    return cg_gerr(g, "binding '%s': R.loop: '%s' is not a graph function of the module", g->bname, call->call.args[0]->str), NULL;
  const MlcGFunc *body = bf->graph;
  int nc = init->kind == GV_TUPLE ? init->n : -1, no = outer->kind == GV_TUPLE ? outer->n : -1, k = s->tuple.n - nc;
  if (nc < 0 || no < 0 || k < 0 || body->n_params != 2 + nc + no)
    return cg_gerr(g, "binding '%s': R.loop: the body '%s' takes %d parameters, not 2 + the carried and outer values",
                g->bname, body->name, body->n_params), NULL;
  int L = g->n_loops++;
  const char *bname = g->bname;
  mlc_sb_printf(&g->body, "  /* %s = loop(%s) */\n", bname, body->name);
  /* the buffers: iteration number, condition, carried values, scan outputs */
  GVal *iter = loop_tensor(g, NULL, MLC_I64), *cnd = loop_tensor(g, NULL, MLC_BOOL);
  GVal *res = cg_gv_new(g, GV_TUPLE);
  res->n = s->tuple.n;
  res->fields = mlc_arena_array(&g->ctx->arena, (size_t)(res->n ? res->n : 1), sizeof *res->fields);
  if (!loop_alloc(g, iter, "the iteration number", false, NULL) || !loop_alloc(g, cnd, "the condition", false, NULL))
    return NULL;
  for (int i = 0; i < nc; i++) {
    GVal *v = init->fields[i];
    if (v->kind != GV_TENSOR) return cg_gerr(g, "binding '%s': R.loop: initial value %d is not a tensor", bname, i), NULL;
    res->fields[i] = loop_tensor(g, s->tuple.fields[i], v->dtype);
    if (!loop_alloc(g, res->fields[i], "a carried value", true, v->data) ||
        !loop_bytes(g, res->fields[i], L, i, "a carried value"))
      return NULL;
  }
  for (int j = 0; j < k; j++) { /* an element's bytes; room for one element to begin with */
    const MlcSInfo *f = s->tuple.fields[nc + j];
    if (f->kind != MLC_SINFO_TENSOR || !f->tensor.shape || f->tensor.ndim < 1)
      return cg_gerr(g, "binding '%s': R.loop: scan output %d is not a tensor of known shape", bname, j), NULL;
    GVal *elem = cg_gv_new(g, GV_TENSOR);
    elem->ndim = f->tensor.ndim - 1, elem->shape = f->tensor.shape + 1, elem->dtype = f->tensor.dtype;
    if (!loop_bytes(g, elem, L, nc + j, "a scan output's element") ||
        !loop_alloc(g, elem, "a scan output", false, NULL))
      return NULL;
    res->fields[nc + j] = loop_tensor(g, f, f->tensor.dtype);
    res->fields[nc + j]->alloc = elem->alloc, res->fields[nc + j]->data = elem->data;
    res->fields[nc + j]->align = C_PARAM_ALIGN;
  }
  /* the body's params */
  if (!loop_param(g, body->params[0], iter, 0) || !loop_param(g, body->params[1], cnd, 1)) return NULL;
  for (int i = 0; i < nc; i++)
    if (!loop_param(g, body->params[2 + i], res->fields[i], 2 + i)) return NULL;
  for (int i = 0; i < no; i++)
    if (!loop_param(g, body->params[2 + nc + i], outer->fields[i], 2 + nc + i)) return NULL;
  mlc_sb_printf(&g->body, "  int64_t mlc_cap%d = 1, mlc_it%d = 0, mlc_trips%d = *(const int64_t *)%s;\n"
                          "  int mlc_go%d = *(const uint8_t *)%s != 0;\n", L, L, L, trips->data, L, cond->data);
  mlc_sb_printf(&g->body, "  for (; mlc_it%d < mlc_trips%d && mlc_go%d; mlc_it%d++) {\n"
                          "  *(int64_t *)%s = mlc_it%d;\n  *(uint8_t *)%s = 1;\n", L, L, L, L, iter->data, L, cnd->data);
  const MlcGFunc *caller = g->fn;
  g->fn = body;
  g->loop_depth++;
  int a0 = g->n_allocs;
  bool ok = true;
  for (int b = 0; ok && b < body->body->seq.n; b++)
    for (int i = 0; ok && i < body->body->seq.blocks[b]->n; i++) ok = cg_compile_binding(g, &body->body->seq.blocks[b]->bindings[i]);
  g->bname = bname;
  GVal *r = ok ? cg_resolve(g, body->body->seq.result) : NULL;
  if (r && (r->kind != GV_TUPLE || r->n != 1 + nc + k))
    ok = cg_gerr(g, "binding '%s': R.loop: the body '%s' must return a tuple of the condition, %d carried values and %d "
                 "scan elements", bname, body->name, nc, k);
  ok = ok && r;
  if (ok && (r->fields[0]->kind != GV_TENSOR || !mlc_dtype_eq(r->fields[0]->dtype, MLC_BOOL)))
    ok = cg_gerr(g, "binding '%s': R.loop: the body's condition is not a bool tensor", bname);
  if (ok) mlc_sb_printf(&g->body, "  mlc_go%d = *(const uint8_t *)%s != 0;\n", L, r->fields[0]->data);
  if (ok && k) { /* room for this iteration's elements: double when full */
    mlc_sb_printf(&g->body, "  if (mlc_it%d == mlc_cap%d) {\n    if (mlc_cap%d > (INT64_C(1) << 30)) {\n"
                            "      env->set_error(\"%s: binding '%s': a loop with scan outputs ran more than 2^31 iterations\");\n"
                            "      rc = -1;\n      goto mlc_done;\n    }\n", L, L, L, caller->name, bname);
    for (int j = 0; j < k; j++) {
      int a = res->fields[nc + j]->alloc, bj = nc + j;
      mlc_sb_printf(&g->body, "    {\n    void *mlc_n = NULL;\n"
                              "    if (mlc_lb%d_%d > SIZE_MAX / 2 / (size_t)mlc_cap%d ||\n"
                              "        !(mlc_n = env->workspace_alloc(2 * (size_t)mlc_cap%d * mlc_lb%d_%d + 1, %d))) {\n"
                              "      env->set_error(\"%s: binding '%s': a scan output of the loop grows out of memory\");\n"
                              "      rc = -1;\n      goto mlc_done;\n    }\n"
                              "    if (mlc_lb%d_%d) memcpy(mlc_n, fr->mlc_a%d, (size_t)mlc_cap%d * mlc_lb%d_%d);\n"
                              "    env->workspace_free(fr->mlc_a%d);\n    fr->mlc_a%d = mlc_n;\n    }\n",
                    L, bj, L, L, L, bj, C_PARAM_ALIGN, caller->name, bname, L, bj, a, L, L, bj, a, a);
    }
    mlc_sb_printf(&g->body, "    mlc_cap%d *= 2;\n  }\n", L);
  }
  for (int j = 0; ok && j < k; j++) {
    const char *dest = mlc_internf(g->ctx, "(uint8_t *)fr->mlc_a%d + (size_t)mlc_it%d * mlc_lb%d_%d", res->fields[nc + j]->alloc,
                                   L, L, nc + j);
    ok = loop_copy(g, r->fields[1 + nc + j], L, nc + j, dest, "scan element");
  }
  /* the carried values last (the elements may be the old ones); one that is
   * another carried value's buffer (the body swaps them) is staged first */
  const char **src = mlc_arena_array(&g->ctx->arena, (size_t)(nc ? nc : 1), sizeof *src);
  for (int i = 0; ok && i < nc; i++) {
    GVal *f = r->fields[1 + i];
    src[i] = f->kind == GV_TENSOR ? f->data : NULL;
    for (int j = 0; src[i] && j < nc; j++)
      if (j != i && !strcmp(src[i], res->fields[j]->data)) {
        mlc_sb_printf(&g->body, "  void *mlc_sw%d_%d = env->workspace_alloc(mlc_lb%d_%d ? mlc_lb%d_%d : 1, %d);\n"
                                "  if (!mlc_sw%d_%d) {\n    rc = -1;\n    goto mlc_done;\n  }\n"
                                "  memcpy(mlc_sw%d_%d, %s, mlc_lb%d_%d);\n",
                      L, i, L, j, L, j, C_PARAM_ALIGN, L, i, L, i, src[i], L, j);
        src[i] = mlc_internf(g->ctx, "mlc_sw%d_%d", L, i);
        break;
      }
  }
  for (int i = 0; ok && i < nc; i++) {
    GVal staged = *r->fields[1 + i];
    staged.data = src[i];
    ok = loop_copy(g, &staged, L, i, res->fields[i]->data, "carried value");
  }
  for (int i = 0; ok && i < nc; i++)
    if (src[i] && !strncmp(src[i], "mlc_sw", 6)) mlc_sb_printf(&g->body, "  env->workspace_free(%s);\n", src[i]);
  for (int a = a0; ok && a < g->n_allocs; a++)
    mlc_sb_printf(&g->body, "  if (fr->mlc_a%d) {\n    env->workspace_free(fr->mlc_a%d);\n    fr->mlc_a%d = NULL;\n  }\n", a, a, a);
  g->fn = caller;
  g->loop_depth--;
  if (!ok) return NULL;
  mlc_sb_puts(&g->body, "  }\n");
  if (cg_sym_index(g, count) >= 0 || cg_dsym_index(g, count) >= 0)
    return cg_gerr(g, "binding '%s': R.loop: the count '%s' is already a size", bname, count->var.name), NULL;
  mlc_vec_push(&g->dsyms, count);
  mlc_sb_printf(&g->body, "  fr->mlc_dsym[%zu] = mlc_it%d; /* %s */\n", g->dsyms.len - 1, L, count->var.name);
  return res;
}
