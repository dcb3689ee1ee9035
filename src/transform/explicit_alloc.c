/* explicit_alloc.c - mlc_pass_explicit_alloc: call_tir and call_dps_packed
 * become an allocation per output and a call that writes into it.
 *
 *   lv = R.call_tir(cls.f, (x, y), out_sinfo=T)
 * becomes
 *   alloc = R.builtin.alloc_tensor(R.shape([...]), R.dtype("..."), R.prim_value(0))
 *   _ = cls.f(x, y, alloc)
 *   lv = alloc
 * (call_dps_packed: `_ = R.call_packed("name", x, y, alloc, sinfo_args=R.Object)`; an
 * R.call_packed whose sinfo_args say it returns tensors is run the same way).
 * The calls now write memory, which a dataflow block must not do, so every
 * block becomes a plain one, as the executor runs it.  The `lv = alloc`
 * alias is kept: memory planning follows aliases, and the executor's
 * bindings stay one per source line. */
#include "transform/pass.h"

static MlcGExpr *alloc_call(MlcCtx *ctx, MlcSInfo *t) {
  if (!t->tensor.shape || t->tensor.ndim < 0 || t->tensor.dtype.code == MLC_TC_VOID) {
    mlc_error(ctx, ctx->build_loc, "explicit_alloc: an output of unknown shape or dtype (%s) cannot be "
                                   "allocated", tf_sinfo_str(ctx, t));
    return NULL;
  }
  MlcGExpr *args[3] = {mlc_g_shape(ctx, t->tensor.shape, t->tensor.ndim), mlc_g_dtype(ctx, t->tensor.dtype),
                       mlc_g_prim(ctx, mlc_e_int(ctx, MLC_I64, 0))};
  return mlc_g_call(ctx, mlc_g_op(ctx, "builtin.alloc_tensor"), args, 3, (MlcAttrs){0}, NULL, 0, t);
}

/* R.call_packed("f", args..., sinfo_args=R.Tensor(...)): an extern whose
 * result is a tensor (or tuple of tensors) is run like call_dps_packed,
 * writing into what the executor allocates for it */
static bool is_packed_with_result(const MlcGExpr *e) {
  if (e->kind != MLC_G_CALL || e->call.callee->kind != MLC_G_EXTERN || e->call.n_sinfo_args != 1) return false;
  const MlcSInfo *s = e->call.sinfo_args[0];
  if (s->kind == MLC_SINFO_TUPLE) {
    for (int i = 0; i < s->tuple.n; i++)
      if (s->tuple.fields[i]->kind != MLC_SINFO_TENSOR) return false;
    return s->tuple.n > 0;
  }
  return s->kind == MLC_SINFO_TENSOR;
}

/* the DPS call: the inputs, then the outputs */
static MlcGExpr *dps_call(MlcCtx *ctx, const MlcGExpr *call, MlcGExpr **outs, int n_out) {
  bool packed = is_packed_with_result(call);
  MlcGExpr *const *in_args = packed ? call->call.args : call->call.args[1]->tuple.fields;
  int n_in = packed ? call->call.n : call->call.args[1]->tuple.n;
  int n = n_in + n_out;
  MlcGExpr **args = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *args);
  for (int i = 0; i < n_in; i++) args[i] = in_args[i];
  for (int i = 0; i < n_out; i++) args[n_in + i] = outs[i];
  MlcGExpr *callee = packed ? call->call.callee : call->call.args[0];
  if (callee->kind == MLC_G_GLOBAL) return mlc_g_call(ctx, callee, args, n, (MlcAttrs){0}, NULL, 0, NULL);
  MlcSInfo *obj = mlc_sinfo_object(ctx);
  return mlc_g_call(ctx, callee, args, n, (MlcAttrs){0}, &obj, 1, obj);
}

static bool lower_dps(TfRw *rw, const MlcBinding *b, MlcGExpr *call) {
  MlcCtx *ctx = rw->ctx;
  MlcSInfo *out = call->call.sinfo_args[0];
  bool tuple = out->kind == MLC_SINFO_TUPLE;
  int n = tuple ? out->tuple.n : 1;
  MlcGExpr **allocs = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *allocs);
  for (int i = 0; i < n; i++) {
    MlcSInfo *t = tuple ? out->tuple.fields[i] : out;
    MlcGExpr *value = alloc_call(ctx, t);
    if (!value) return false;
    allocs[i] = mlc_g_var(ctx, "alloc", t, false);
    tf_emit(rw, allocs[i], value, b->loc);
  }
  MlcGExpr *dps = dps_call(ctx, call, allocs, n);
  MlcGExpr *result = tuple ? mlc_g_tuple(ctx, allocs, n) : allocs[0];
  if (!dps || !result) return false;
  tf_emit(rw, mlc_g_var(ctx, "_", dps->sinfo, false), dps, b->loc);
  tf_emit(rw, b->var, result, b->loc);
  return true;
}

static bool alloc_binding(TfRw *rw, const MlcBinding *b, MlcGExpr *value) {
  if (tf_is_dps(value) || is_packed_with_result(value)) return lower_dps(rw, b, value);
  tf_emit(rw, b->var, value, b->loc);
  return true;
}

MlcModule *mlc_pass_explicit_alloc(MlcCtx *ctx, const MlcModule *m) {
  MlcFunc *repl = mlc_arena_array(&ctx->arena, (size_t)(m->n_funcs ? m->n_funcs : 1), sizeof *repl);
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != MLC_FUNC_GRAPH) continue;
    TfRw rw = {.ctx = ctx, .on_binding = alloc_binding, .no_dataflow = true};
    MlcGFunc *nf = tf_rewrite_func(&rw, m->funcs[i].graph, NULL);
    tf_rw_free(&rw);
    if (!nf) return NULL;
    repl[i] = (MlcFunc){MLC_FUNC_GRAPH, m->funcs[i].name, {.graph = nf}};
  }
  return tf_module_with(ctx, m, repl, NULL, 0);
}
