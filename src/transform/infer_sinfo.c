/* infer_sinfo.c - mlc_pass_infer_sinfo: every binding's var gets the struct
 * info its value has.
 *
 * The reader cannot know what an op or a function call returns, so such
 * vars start as objects (or as what their annotation says).  This pass asks
 * the op registry for op calls, takes out_sinfo for call_tir and
 * call_dps_packed, the callee's return for calls of graph functions (a
 * callee is inferred before its callers; a recursive call takes the
 * declared return) and sinfo_args for packed calls; tuples, items,
 * constants and shapes know theirs already.  A binding var whose struct info
 * changes is rebuilt and every later use follows through the rewriter's map.
 *
 * A call nested in another's arguments (`R.matmul(x, R.permute_dims(w))`,
 * as TVMScript allows) is first bound to a var of its own ("lv"), as if it
 * were written on the line before, so every later pass sees one call per
 * binding with its struct info known.
 *
 * An annotation must agree with what is inferred; when it says more (a
 * shape where inference knows only the rank) it is kept, otherwise the
 * inferred struct info replaces it. */
#include "transform/pass.h"

#include "mlcc/ops.h"

typedef struct Infer {
  MlcCtx *ctx;
  const MlcModule *m;
  MlcMap done;   /* function name -> inferred MlcGFunc* */
  MlcMap busy;   /* function names being inferred (recursion) */
} Infer;

static MlcGFunc *infer_func(Infer *in, const MlcGFunc *f);

/* the callee's symbolic dims as the call's args give them: a param dim
 * that is a bare var takes the arg's dim at the same place */
static void match_dims(const MlcGFunc *f, const MlcGExpr *call, MlcMap *vmap) {
  for (int i = 0; i < f->n_params && i < call->call.n; i++) {
    const MlcSInfo *p = f->params[i]->sinfo, *a = call->call.args[i]->sinfo;
    if (p->kind != MLC_SINFO_TENSOR || a->kind != MLC_SINFO_TENSOR || !p->tensor.shape ||
        !a->tensor.shape || p->tensor.ndim != a->tensor.ndim)
      continue;
    for (int d = 0; d < p->tensor.ndim; d++)
      if (p->tensor.shape[d]->kind == MLC_EXPR_VAR && !mlc_map_has(vmap, p->tensor.shape[d]))
        mlc_map_put(vmap, p->tensor.shape[d], a->tensor.shape[d]);
  }
}

/* every var of a dim expression is in vmap (unusual forms: no) */
static bool all_mapped(const MlcExpr *e, const MlcMap *vmap) {
  switch (e->kind) {
  case MLC_EXPR_VAR: return mlc_map_has(vmap, e);
  case MLC_EXPR_INT: return true;
  case MLC_EXPR_BINARY: return all_mapped(e->bin.a, vmap) && all_mapped(e->bin.b, vmap);
  case MLC_EXPR_CAST: case MLC_EXPR_NEG: return all_mapped(e->operand, vmap);
  default: return false;
  }
}

/* s with the callee's dims replaced by the caller's; a tensor whose dims
 * cannot all be expressed in the caller's terms keeps only its rank */
static MlcSInfo *subst_sinfo(MlcCtx *ctx, MlcSInfo *s, MlcMap *vmap) {
  if (s->kind == MLC_SINFO_TUPLE) {
    MlcSInfo **fs = mlc_arena_array(&ctx->arena, (size_t)(s->tuple.n ? s->tuple.n : 1), sizeof *fs);
    for (int i = 0; i < s->tuple.n; i++) fs[i] = subst_sinfo(ctx, s->tuple.fields[i], vmap);
    return mlc_sinfo_tuple(ctx, fs, s->tuple.n);
  }
  if (s->kind != MLC_SINFO_TENSOR || !s->tensor.shape) return s;
  MlcExpr **dims = mlc_arena_array(&ctx->arena, (size_t)(s->tensor.ndim ? s->tensor.ndim : 1), sizeof *dims);
  for (int d = 0; d < s->tensor.ndim; d++) {
    if (!all_mapped(s->tensor.shape[d], vmap))
      return mlc_sinfo_tensor(ctx, NULL, s->tensor.ndim, s->tensor.dtype);
    dims[d] = mlc_substitute_expr(ctx, s->tensor.shape[d], vmap);
  }
  return mlc_sinfo_tensor(ctx, dims, s->tensor.ndim, s->tensor.dtype);
}

static MlcSInfo *callee_ret(Infer *in, const MlcGExpr *call) {
  const MlcFunc *fn = mlc_module_find(in->m, call->call.callee->str);
  if (!fn || fn->kind != MLC_FUNC_GRAPH) return NULL;
  const MlcGFunc *g = fn->graph;
  if (!mlc_map_get(&in->busy, g->name) && !(g = infer_func(in, fn->graph))) return NULL;
  MlcMap vmap = {0};
  match_dims(g, call, &vmap);
  MlcSInfo *r = subst_sinfo(in->ctx, g->ret, &vmap);
  mlc_map_free(&vmap);
  return r;
}

/* what a call returns; NULL + error when the registry refuses it */
static MlcSInfo *call_sinfo(Infer *in, MlcGExpr *call, bool *failed) {
  const MlcGExpr *c = call->call.callee;
  *failed = false;
  if (tf_is_dps(call)) return call->call.sinfo_args[0];
  switch (c->kind) {
  case MLC_G_OP: {
    MlcSInfo *s = mlc_op_infer(in->ctx, call);
    *failed = s == NULL;
    return s;
  }
  case MLC_G_GLOBAL: {
    MlcSInfo *s = callee_ret(in, call);
    *failed = s == NULL && mlc_has_error(in->ctx);
    return s ? s : call->sinfo;
  }
  case MLC_G_EXTERN: return call->call.n_sinfo_args == 1 ? call->call.sinfo_args[0] : call->sinfo;
  default: return call->sinfo;
  }
}

/* the annotation when it agrees and says more, else the inferred */
static MlcSInfo *choose(MlcCtx *ctx, const MlcBinding *b, MlcSInfo *annot, MlcSInfo *inferred) {
  if (mlc_sinfo_contradicts(annot, inferred)) {
    mlc_error(ctx, b->loc, "'%s': the annotation %s disagrees with the inferred struct info %s",
              b->var->var.name, tf_sinfo_str(ctx, annot), tf_sinfo_str(ctx, inferred));
    return NULL;
  }
  return tf_sinfo_detail(annot) > tf_sinfo_detail(inferred) ? annot : inferred;
}

/* the call with its struct info inferred (value itself when unchanged) */
static MlcGExpr *infer_call(TfRw *rw, MlcGExpr *value) {
  bool failed;
  MlcSInfo *s = call_sinfo(rw->user, value, &failed);
  if (failed) return NULL;
  if (s == value->sinfo) return value;
  return mlc_g_call(rw->ctx, value->call.callee, value->call.args, value->call.n, value->call.attrs,
                    value->call.sinfo_args, value->call.n_sinfo_args, s);
}

static MlcGExpr *lift_nested(TfRw *rw, MlcGExpr *e, MlcLoc loc, bool top);

/* a call's args (and the fields of a tuple arg) with nested calls bound
 * first; NULL after an error */
static MlcGExpr *lift_args(TfRw *rw, MlcGExpr *e, MlcLoc loc) {
  bool tuple = e->kind == MLC_G_TUPLE;
  int n = tuple ? e->tuple.n : e->call.n;
  MlcGExpr **items = tuple ? e->tuple.fields : e->call.args, **out = NULL;
  for (int i = 0; i < n; i++) {
    MlcGExpr *a = items[i];
    if (a->kind != MLC_G_CALL && a->kind != MLC_G_TUPLE) continue;
    MlcGExpr *na = lift_nested(rw, a, loc, false);
    if (!na) return NULL;
    if (na == a) continue;
    if (!out) {
      out = mlc_arena_array(&rw->ctx->arena, (size_t)n, sizeof *out);
      for (int j = 0; j < n; j++) out[j] = items[j];
    }
    out[i] = na;
  }
  if (!out) return e;
  if (tuple) return mlc_g_tuple(rw->ctx, out, n);
  return mlc_g_call(rw->ctx, e->call.callee, out, n, e->call.attrs, e->call.sinfo_args, e->call.n_sinfo_args,
                    e->sinfo);
}

/* e with its nested calls bound to vars; a nested call (not top) becomes
 * the var bound to it */
static MlcGExpr *lift_nested(TfRw *rw, MlcGExpr *e, MlcLoc loc, bool top) {
  if (!(e = lift_args(rw, e, loc))) return NULL;
  if (e->kind != MLC_G_CALL) return e;
  if (!(e = infer_call(rw, e)) || top) return e;
  MlcGExpr *var = mlc_g_var(rw->ctx, "lv", e->sinfo, tf_in_dataflow(rw));
  tf_emit(rw, var, e, loc);
  return var;
}

static bool infer_binding(TfRw *rw, const MlcBinding *b, MlcGExpr *value) {
  if (value->kind == MLC_G_CALL || value->kind == MLC_G_TUPLE) {
    if (!(value = lift_nested(rw, value, b->loc, true))) return false;
  }
  MlcSInfo *s = value->sinfo;
  if (!(s = choose(rw->ctx, b, b->var->sinfo, s)) || !value) return false;
  MlcGExpr *var = b->var;
  if (s != var->sinfo) {
    var = mlc_g_var(rw->ctx, b->var->var.name, s, b->var->kind == MLC_G_DFVAR);
    tf_map(rw, b->var, var);
  }
  tf_emit(rw, var, value, b->loc);
  return true;
}

static MlcGFunc *infer_func(Infer *in, const MlcGFunc *f) {
  MlcGFunc *done = mlc_map_get(&in->done, f->name);
  if (done) return done;
  mlc_map_put(&in->busy, f->name, (void *)f);
  TfRw rw = {.ctx = in->ctx, .user = in, .on_binding = infer_binding};
  MlcGExpr *body = tf_rewrite_seq(&rw, f->body);
  MlcGFunc *nf = NULL;
  if (body) {
    MlcBinding ret_b = {mlc_g_var(in->ctx, "return value", f->ret, false), body->seq.result, in->ctx->build_loc};
    MlcSInfo *ret = choose(in->ctx, &ret_b, f->ret, body->seq.result->sinfo);
    /* the rewriter builds the function from its own map; the body is done */
    if (ret) nf = mlc_gfunc_new(in->ctx, f->name, f->params, f->n_params, ret, body, f->attrs, f->pure);
  }
  tf_rw_free(&rw);
  mlc_map_put(&in->busy, f->name, NULL);
  if (nf) mlc_map_put(&in->done, f->name, nf);
  return nf;
}

MlcModule *mlc_pass_infer_sinfo(MlcCtx *ctx, const MlcModule *m) {
  Infer in = {.ctx = ctx, .m = m};
  MlcFunc *repl = mlc_arena_array(&ctx->arena, (size_t)(m->n_funcs ? m->n_funcs : 1), sizeof *repl);
  bool ok = true;
  for (int i = 0; ok && i < m->n_funcs; i++) {
    if (m->funcs[i].kind != MLC_FUNC_GRAPH) continue;
    MlcGFunc *nf = infer_func(&in, m->funcs[i].graph);
    ok = nf != NULL;
    repl[i] = (MlcFunc){MLC_FUNC_GRAPH, m->funcs[i].name, {.graph = nf}};
  }
  mlc_map_free(&in.done);
  mlc_map_free(&in.busy);
  return ok ? tf_module_with(ctx, m, repl, NULL, 0) : NULL;
}
