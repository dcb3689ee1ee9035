/* inline_calls.c - mlc_pass_inline_calls: a graph function's calls of other
 * graph functions are replaced by the callees' bindings.
 *
 * A model is compiled into one straight-line executor with one memory plan,
 * so a call of another graph function (as modules with several functions
 * write them: `lv0 = cls.layer(x, w)`) becomes the callee's body, copied
 * with fresh vars: the callee's params stand for the call's arguments, its
 * symbolic sizes for the arguments' dims at the same places, and its result
 * is bound to the call's var (canonicalize_bindings drops that alias later).
 * (The pass infers struct info first, as legalization does.)  Calls inside
 * the copied body are inlined the same way; a function that
 * calls itself, directly or through others, is refused by name, since its
 * depth is not known before it runs.  The callees stay in the module, each
 * still an entry point of its own. */
#include "transform/pass.h"

enum { MAX_INLINE_DEPTH = 64 };

typedef struct Inliner {
  const MlcModule *m;
  const char *stack[MAX_INLINE_DEPTH]; /* the callees being copied, outermost first */
  int depth;
} Inliner;

/* one copy of a callee: its vars -> the caller's (through the rewriter's
 * map) and its symbolic sizes -> the caller's dims */
typedef struct Copy {
  TfRw rw;
  MlcMap syms;
} Copy;

static bool emit_value(TfRw *rw, Inliner *in, MlcGExpr *var, MlcGExpr *value, MlcLoc loc);

static MlcExpr *subst_sym(MlcMutator *mu, MlcExpr *e) {
  if (e->kind == MLC_EXPR_VAR) {
    MlcExpr *to = mlc_map_get(mu->user, e);
    return to ? to : e;
  }
  return mlc_mutate_expr_children(mu, e);
}

static MlcSInfo *subst_sinfo(MlcCtx *ctx, MlcSInfo *s, MlcMap *syms) {
  if (!s || syms->len == 0) return s;
  if (s->kind == MLC_SINFO_TUPLE) {
    MlcSInfo **fs = mlc_arena_array(&ctx->arena, (size_t)(s->tuple.n ? s->tuple.n : 1), sizeof *fs);
    for (int i = 0; i < s->tuple.n; i++) fs[i] = subst_sinfo(ctx, s->tuple.fields[i], syms);
    return mlc_sinfo_tuple(ctx, fs, s->tuple.n);
  }
  if (s->kind == MLC_SINFO_TENSOR && s->tensor.shape) {
    MlcExpr **dims = mlc_arena_array(&ctx->arena, (size_t)(s->tensor.ndim ? s->tensor.ndim : 1), sizeof *dims);
    for (int d = 0; d < s->tensor.ndim; d++) dims[d] = mlc_substitute_expr(ctx, s->tensor.shape[d], syms);
    return mlc_sinfo_tensor(ctx, dims, s->tensor.ndim, s->tensor.dtype);
  }
  if (s->kind == MLC_SINFO_SHAPE && s->shape.values) {
    MlcExpr **vals = mlc_arena_array(&ctx->arena, (size_t)(s->shape.ndim ? s->shape.ndim : 1), sizeof *vals);
    for (int d = 0; d < s->shape.ndim; d++) vals[d] = mlc_substitute_expr(ctx, s->shape.values[d], syms);
    return mlc_sinfo_shape(ctx, vals, s->shape.ndim);
  }
  if (s->kind == MLC_SINFO_PRIM && s->prim.value)
    return mlc_sinfo_prim(ctx, s->prim.dtype, mlc_substitute_expr(ctx, s->prim.value, syms));
  return s;
}

/* The callee's symbolic sizes in the caller's terms: each bare-var dim of a
 * param takes the argument's dim there; a dim that then still names a
 * callee size (the argument's shape is unknown), a rank or a constant dim
 * that differs, is refused. */
static bool bind_params(MlcCtx *ctx, const MlcGFunc *f, const MlcGExpr *call, Copy *c) {
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < f->n_params; i++) {
      const MlcSInfo *p = f->params[i]->sinfo, *a = call->call.args[i]->sinfo;
      if (p->kind != MLC_SINFO_TENSOR || !p->tensor.shape) continue;
      bool known = a->kind == MLC_SINFO_TENSOR && a->tensor.shape && a->tensor.ndim == p->tensor.ndim;
      for (int d = 0; d < p->tensor.ndim; d++) {
        MlcExpr *pd = p->tensor.shape[d];
        if (pass == 0) {
          if (known && pd->kind == MLC_EXPR_VAR && !mlc_map_has(&c->syms, pd))
            mlc_map_put(&c->syms, pd, a->tensor.shape[d]);
          continue;
        }
        MlcExpr *want = mlc_substitute_expr(ctx, pd, &c->syms);
        int64_t x, y;
        bool bad = !known ? pd->kind == MLC_EXPR_VAR
                          : mlc_e_is_const_int(want, &x) && mlc_e_is_const_int(a->tensor.shape[d], &y) && x != y;
        if (bad)
          return mlc_error(ctx, ctx->build_loc, "argument %d of the call of '%s' is %s where '%s' takes %s", i + 1,
                           f->name, tf_sinfo_str(ctx, a), f->params[i]->var.name, tf_sinfo_str(ctx, p));
      }
    }
  return true;
}

/* value with the callee's vars and sizes replaced by the caller's */
static MlcGExpr *copy_expr(Copy *c, MlcGExpr *value) {
  MlcGExpr *v = tf_subst(&c->rw, value);
  if (!v || c->syms.len == 0) return v;
  MlcMutator mu = {.ctx = c->rw.ctx, .user = &c->syms, .expr = subst_sym};
  v = mlc_mutate_gexpr(&mu, v);
  mlc_map_free(&mu.buffer_map);
  return v;
}

/* the callee's body, copied into the caller's block being built; its
 * result bound to var */
static bool inline_call(TfRw *rw, Inliner *in, MlcGExpr *var, const MlcGExpr *call, const MlcGFunc *f, MlcLoc loc) {
  MlcCtx *ctx = rw->ctx;
  ctx->build_loc = loc;
  for (int i = 0; i < in->depth; i++)
    if (in->stack[i] == f->name)
      return mlc_error(ctx, loc, "binding '%s': graph function '%s' calls itself (through '%s'); recursive calls "
                       "cannot be compiled", var->var.name, f->name, in->stack[in->depth - 1]);
  if (in->depth == MAX_INLINE_DEPTH)
    return mlc_error(ctx, loc, "binding '%s': calls of graph functions nest deeper than %d", var->var.name,
                     MAX_INLINE_DEPTH);
  if (call->call.n != f->n_params)
    return mlc_error(ctx, loc, "binding '%s': '%s' takes %d arguments, the call gives %d", var->var.name, f->name,
                     f->n_params, call->call.n);
  const MlcGExpr *body = f->body;
  if (body->kind != MLC_G_SEQ)
    return mlc_error(ctx, loc, "binding '%s': the body of '%s' is not a sequence of bindings", var->var.name, f->name);
  Copy c = {.rw = {.ctx = ctx, .cur = rw->cur}};
  bool ok = bind_params(ctx, f, call, &c);
  for (int i = 0; ok && i < f->n_params; i++) tf_map(&c.rw, f->params[i], call->call.args[i]);
  in->stack[in->depth++] = f->name;
  for (int b = 0; ok && b < body->seq.n; b++) {
    const MlcBindingBlock *blk = body->seq.blocks[b];
    for (int j = 0; ok && j < blk->n; j++) {
      const MlcBinding *bd = &blk->bindings[j];
      if (bd->value->kind == MLC_G_IF) {
        ok = mlc_error(ctx, bd->loc.line ? bd->loc : loc, "binding '%s': '%s' branches (binding '%s'); a called "
                       "function with an if is not inlined", var->var.name, f->name, bd->var->var.name);
        break;
      }
      MlcGExpr *value = copy_expr(&c, bd->value);
      MlcGExpr *nv = mlc_g_var(ctx, bd->var->var.name, subst_sinfo(ctx, bd->var->sinfo, &c.syms), tf_in_dataflow(rw));
      ok = value && nv && emit_value(rw, in, nv, value, bd->loc.line ? bd->loc : loc);
      if (ok) tf_map(&c.rw, bd->var, nv);
    }
  }
  in->depth--;
  MlcGExpr *result = ok ? copy_expr(&c, body->seq.result) : NULL;
  if (result) tf_emit(rw, var, result, loc);
  tf_rw_free(&c.rw);
  mlc_map_free(&c.syms);
  return result != NULL;
}

static const MlcGFunc *graph_callee(const Inliner *in, const MlcGExpr *value) {
  if (value->kind != MLC_G_CALL || value->call.callee->kind != MLC_G_GLOBAL) return NULL;
  const MlcFunc *f = mlc_module_find(in->m, value->call.callee->str);
  return f && f->kind == MLC_FUNC_GRAPH ? f->graph : NULL;
}

static bool emit_value(TfRw *rw, Inliner *in, MlcGExpr *var, MlcGExpr *value, MlcLoc loc) {
  const MlcGFunc *f = graph_callee(in, value);
  if (f) return inline_call(rw, in, var, value, f, loc);
  tf_emit(rw, var, value, loc);
  return true;
}

static bool inline_binding(TfRw *rw, const MlcBinding *b, MlcGExpr *value) {
  return emit_value(rw, rw->user, b->var, value, b->loc);
}

/* does any binding of the body call a graph function */
static bool calls_graph(const Inliner *in, const MlcGExpr *seq) {
  for (int b = 0; b < seq->seq.n; b++)
    for (int j = 0; j < seq->seq.blocks[b]->n; j++) {
      const MlcGExpr *v = seq->seq.blocks[b]->bindings[j].value;
      if (graph_callee(in, v)) return true;
      if (v->kind == MLC_G_IF && (calls_graph(in, v->if_.then_e) || calls_graph(in, v->if_.else_e))) return true;
    }
  return false;
}

MlcModule *mlc_pass_inline_calls(MlcCtx *ctx, const MlcModule *m0) {
  /* the arguments' struct info binds the callees' sizes */
  const MlcModule *m = mlc_pass_infer_sinfo(ctx, m0);
  if (!m) return NULL;
  Inliner in = {.m = m};
  MlcFunc *repl = mlc_arena_array(&ctx->arena, (size_t)(m->n_funcs ? m->n_funcs : 1), sizeof *repl);
  bool ok = true, changed = false;
  for (int i = 0; ok && i < m->n_funcs; i++) {
    const MlcFunc *f = &m->funcs[i];
    if (f->kind != MLC_FUNC_GRAPH || f->graph->body->kind != MLC_G_SEQ || !calls_graph(&in, f->graph->body)) continue;
    in.stack[0] = f->name;
    in.depth = 1;
    TfRw rw = {.ctx = ctx, .user = &in, .on_binding = inline_binding};
    MlcGFunc *nf = tf_rewrite_func(&rw, f->graph, NULL);
    tf_rw_free(&rw);
    ok = nf != NULL;
    repl[i] = (MlcFunc){MLC_FUNC_GRAPH, f->name, {.graph = nf}};
    changed = true;
  }
  if (!ok) return NULL;
  return changed ? tf_module_with(ctx, m, repl, NULL, 0) : (MlcModule *)m;
}
