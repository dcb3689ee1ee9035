/* weight_layout.c - weights laid out for the kernel at compile time.
 *
 * A schedule may give a param of a prim func a new layout (transform_layout
 * on a param, e.g. a conv weight OIHW -> O/v I H W v so that a vector of
 * output channels is one load), but only where the function allows it: its
 * "layout_free_buffers" attribute lists the params whose every caller
 * passes a constant.  tf_mark_layout_free adds that attribute before the
 * default schedules run; tf_apply_layout_rewrites then lays out each such
 * constant as the function's "layout_rewrites" attribute says
 * (mlc_sch_layout_apply), once, here, so that no inference repeats it.  A
 * constant that several calls share with the same map is laid out once. */
#include "transform/pass.h"

#include <string.h>

/* ---- which params are free -------------------------------------------------------- */

typedef struct Sites {
  MlcCtx *ctx;
  const MlcModule *m;
  MlcMap refs;   /* prim func name -> references of any kind */
  MlcMap calls;  /* prim func name -> call_tir sites */
  MlcMap consts; /* prim func name -> uint64_t bit mask of params constant at every site so far */
} Sites;

static void count_ref(void *user, const char *name) {
  Sites *s = user;
  mlc_map_put(&s->refs, name, (void *)((intptr_t)mlc_map_get(&s->refs, name) + 1));
}

static bool visit_call(MlcVisitor *v, const MlcGExpr *e) {
  Sites *s = v->user;
  if (!tf_is_dps(e) || !tf_is_op(e->call.callee, "call_tir") || e->call.args[0]->kind != MLC_G_GLOBAL) return true;
  const char *name = e->call.args[0]->str;
  const MlcGExpr *args = e->call.args[1];
  uint64_t mask = 0;
  for (int k = 0; k < args->tuple.n && k < 64; k++)
    if (args->tuple.fields[k]->kind == MLC_G_CONST) mask |= (uint64_t)1 << k;
  intptr_t n = (intptr_t)mlc_map_get(&s->calls, name);
  uint64_t *old = mlc_map_get(&s->consts, name);
  if (!old) old = mlc_arena_array(&s->ctx->arena, 1, sizeof *old), *old = mask, mlc_map_put(&s->consts, name, old);
  *old &= mask;
  mlc_map_put(&s->calls, name, (void *)(n + 1));
  return true;
}

static MlcFunc with_prim_attrs(MlcCtx *ctx, const MlcFunc *f, MlcAttrs attrs) {
  MlcPrimFunc *g = mlc_arena_dup(&ctx->arena, f->prim, sizeof *g);
  g->attrs = attrs;
  return (MlcFunc){MLC_FUNC_PRIM, f->name, {.prim = g}};
}

MlcModule *tf_mark_layout_free(MlcCtx *ctx, const MlcModule *m, bool (*want)(const MlcPrimFunc *f, void *user),
                               void *user) {
  Sites s = {.ctx = ctx, .m = m};
  MlcVisitor v = {.user = &s, .gexpr = visit_call};
  for (int i = 0; i < m->n_funcs; i++)
    if (m->funcs[i].kind == MLC_FUNC_GRAPH) {
      tf_each_global(m->funcs[i].graph->body, count_ref, &s);
      mlc_visit_gexpr(&v, m->funcs[i].graph->body);
    }
  MlcFunc *repl = mlc_arena_array(&ctx->arena, (size_t)(m->n_funcs ? m->n_funcs : 1), sizeof *repl);
  const char *key = mlc_intern(ctx, "layout_free_buffers");
  for (int i = 0; i < m->n_funcs; i++) {
    const MlcFunc *f = &m->funcs[i];
    uint64_t *mask = mlc_map_get(&s.consts, f->name);
    /* every reference a call_tir: a prim func passed around otherwise
     * could be called with anything */
    if (f->kind != MLC_FUNC_PRIM || !mask || !*mask || (want && !want(f->prim, user)) ||
        mlc_map_get(&s.refs, f->name) != mlc_map_get(&s.calls, f->name))
      continue;
    int n = 0;
    MlcAttrValue *items = mlc_arena_array(&ctx->arena, 64, sizeof *items);
    for (int k = 0; k < f->prim->n_params && k < 64; k++)
      if (*mask >> k & 1) items[n++] = (MlcAttrValue){.kind = MLC_ATTR_INT, .i = k};
    MlcAttrValue list = {.kind = MLC_ATTR_LIST, .list = {items, n}};
    repl[i] = with_prim_attrs(ctx, f, mlc_attrs_with(ctx, f->prim->attrs, key, &list));
  }
  mlc_map_free(&s.refs);
  mlc_map_free(&s.calls);
  mlc_map_free(&s.consts);
  return tf_module_with(ctx, m, repl, NULL, 0);
}

/* ---- laying out the constants ---------------------------------------------------------- */

typedef struct Done { const MlcTensorData *in; const char *map; MlcGExpr *out; } Done;

typedef struct Relayout {
  const MlcModule *m;
  MLC_VEC(Done) done;
} Relayout;

static MlcGExpr *laid_out(TfRw *rw, const MlcGExpr *c, const char *map) {
  Relayout *r = rw->user;
  for (size_t i = 0; i < r->done.len; i++)
    if (r->done.data[i].in == c->constant && r->done.data[i].map == map) return r->done.data[i].out;
  MlcTensorData *d = mlc_sch_layout_apply(rw->ctx, map, c->constant);
  MlcGExpr *out = d ? mlc_g_const(rw->ctx, d) : NULL;
  if (out) mlc_vec_push(&r->done, ((Done){c->constant, map, out}));
  return out;
}

static bool relayout_binding(TfRw *rw, const MlcBinding *b, MlcGExpr *value) {
  Relayout *r = rw->user;
  const MlcFunc *f = NULL;
  if (tf_is_dps(value) && tf_is_op(value->call.callee, "call_tir") && value->call.args[0]->kind == MLC_G_GLOBAL)
    f = mlc_module_find(r->m, value->call.args[0]->str);
  const MlcAttrValue *rw_list =
      f && f->kind == MLC_FUNC_PRIM ? mlc_attrs_get(f->prim->attrs, mlc_intern(rw->ctx, "layout_rewrites")) : NULL;
  if (!rw_list || rw_list->kind != MLC_ATTR_LIST) return tf_emit(rw, b->var, value, b->loc), true;
  const MlcGExpr *tup = value->call.args[1];
  MlcGExpr **args = mlc_arena_dup(&rw->ctx->arena, tup->tuple.fields, sizeof *args * (size_t)tup->tuple.n);
  for (int i = 0; i < rw_list->list.n; i++) {
    const MlcAttrValue *pair = &rw_list->list.items[i];
    if (pair->kind != MLC_ATTR_LIST || pair->list.n != 2 || pair->list.items[0].kind != MLC_ATTR_INT ||
        pair->list.items[1].kind != MLC_ATTR_STR)
      return mlc_error(rw->ctx, b->loc, "%s: layout_rewrites must hold [param, \"lambda ...\"] pairs", f->name);
    int64_t k = pair->list.items[0].i;
    if (k < 0 || k >= tup->tuple.n || args[k]->kind != MLC_G_CONST)
      return mlc_error(rw->ctx, b->loc, "%s: param %lld changed layout, but the call passes no constant there",
                       f->name, (long long)k);
    if (!(args[k] = laid_out(rw, args[k], pair->list.items[1].s))) return false;
  }
  MlcGExpr *call = mlc_g_call_tir(rw->ctx, value->call.args[0], args, tup->tuple.n, value->call.sinfo_args[0]);
  if (!call) return false;
  tf_emit(rw, b->var, call, b->loc);
  return true;
}

MlcModule *tf_apply_layout_rewrites(MlcCtx *ctx, const MlcModule *m) {
  const char *free_key = mlc_intern(ctx, "layout_free_buffers");
  MlcFunc *repl = mlc_arena_array(&ctx->arena, (size_t)(m->n_funcs ? m->n_funcs : 1), sizeof *repl);
  Relayout r = {.m = m};
  for (int i = 0; i < m->n_funcs; i++) {
    const MlcFunc *f = &m->funcs[i];
    if (f->kind == MLC_FUNC_PRIM) {
      /* the permission has served; what was done is in layout_rewrites */
      if (mlc_attrs_get(f->prim->attrs, free_key)) repl[i] = with_prim_attrs(ctx, f, mlc_attrs_with(ctx, f->prim->attrs, free_key, NULL));
      continue;
    }
    TfRw rw = {.ctx = ctx, .user = &r, .on_binding = relayout_binding};
    MlcGFunc *nf = tf_rewrite_func(&rw, f->graph, NULL);
    tf_rw_free(&rw);
    if (!nf) return mlc_vec_free(&r.done), NULL;
    repl[i] = (MlcFunc){MLC_FUNC_GRAPH, f->name, {.graph = nf}};
  }
  mlc_vec_free(&r.done);
  return tf_module_with(ctx, m, repl, NULL, 0);
}

/* ---- the public names (transform.h) ------------------------------------------------------ */

MlcModule *mlc_pass_mark_layout_free(MlcCtx *ctx, const MlcModule *m) { return tf_mark_layout_free(ctx, m, NULL, NULL); }

MlcModule *mlc_pass_apply_layout_rewrites(MlcCtx *ctx, const MlcModule *m) { return tf_apply_layout_rewrites(ctx, m); }
