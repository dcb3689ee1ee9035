/* dispatch.c - library dispatch: float32 matrix products that are big
 * enough go to the runtime's BLAS-backed extern env.matmul instead of a
 * generated loop nest.
 *
 *   lv = R.matmul(x, w)          x: [.., M, K] float32, w: [K, N] float32
 * becomes
 *   lv = R.call_dps_packed("env.matmul", (x, w), out_sinfo=R.Tensor((.., M, N), "float32"))
 *
 * A tuned BLAS is far faster than an unscheduled loop nest, and the runtime
 * falls back to plain C loops where no BLAS library can be loaded, so the
 * deployment form still needs nothing but the C library.  Products under
 * MIN_FLOPS multiply-adds stay generated code: there the call overhead
 * outweighs the gain, and the generated kernel can still be fused with its
 * neighbours.  A product with a symbolic dim is dispatched (its size is
 * unknown; BLAS handles any size).  Only the weight-shaped case (a 2-D
 * right operand) is handled: batched right operands keep the generated
 * kernel.  Where the tuner measured both, its records decide instead of
 * the size (the _if form's keep callback, src/tune/library.c). */
#include "transform/pass.h"

#define MIN_FLOPS (64 * 64 * 64)

static bool f32_tensor(const MlcSInfo *s, int min_rank, int max_rank) {
  if (!s || s->kind != MLC_SINFO_TENSOR || !s->tensor.shape) return false;
  MlcDType t = s->tensor.dtype;
  return t.code == MLC_TC_FLOAT && t.bits == 32 && t.lanes == 1 && s->tensor.ndim >= min_rank &&
         s->tensor.ndim <= max_rank;
}

/* false when every dim is constant and M * N * K is under MIN_FLOPS */
static bool big_enough(const MlcSInfo *a, const MlcSInfo *b) {
  double flops = 1;
  int64_t d;
  for (int i = 0; i < a->tensor.ndim; i++) {
    if (!mlc_e_is_const_int(a->tensor.shape[i], &d)) return true;
    flops *= (double)d;
  }
  if (!mlc_e_is_const_int(b->tensor.shape[1], &d)) return true;
  return flops * (double)d >= MIN_FLOPS;
}

static bool dispatchable(const MlcGExpr *v) {
  if (v->kind != MLC_G_CALL || !tf_is_op(v->call.callee, "matmul") || v->call.n < 2) return false;
  const MlcSInfo *a = v->call.args[0]->sinfo, *b = v->call.args[1]->sinfo;
  /* 8 dims: the most the runtime's extern calls take */
  return f32_tensor(a, 2, 8) && f32_tensor(b, 2, 2) && f32_tensor(v->sinfo, 2, 8) &&
         v->sinfo->tensor.ndim == a->tensor.ndim && big_enough(a, b);
}

typedef struct Keep { MlcDispatchKeep fn; void *user; } Keep;

static bool dispatch_binding(TfRw *rw, const MlcBinding *b, MlcGExpr *value) {
  const Keep *k = rw->user;
  if (!dispatchable(value) || (k->fn && k->fn(k->user, value))) {
    tf_emit(rw, b->var, value, b->loc);
    return true;
  }
  MlcGExpr *args[2] = {value->call.args[0], value->call.args[1]};
  MlcGExpr *call = mlc_g_call_dps_packed(rw->ctx, mlc_g_extern(rw->ctx, "env.matmul"), args, 2, value->sinfo);
  if (!call) return false;
  tf_emit(rw, b->var, call, b->loc);
  return true;
}

MlcModule *mlc_pass_dispatch_library(MlcCtx *ctx, const MlcModule *m) {
  return mlc_pass_dispatch_library_if(ctx, m, NULL, NULL);
}

MlcModule *mlc_pass_dispatch_library_if(MlcCtx *ctx, const MlcModule *m0, MlcDispatchKeep keep, void *user) {
  Keep k = {keep, user};
  const MlcModule *m = mlc_pass_infer_sinfo(ctx, m0);
  if (!m) return NULL;
  MlcFunc *repl = mlc_arena_array(&ctx->arena, (size_t)(m->n_funcs ? m->n_funcs : 1), sizeof *repl);
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != MLC_FUNC_GRAPH) continue;
    TfRw rw = {.ctx = ctx, .user = &k, .on_binding = dispatch_binding};
    MlcGFunc *nf = tf_rewrite_func(&rw, m->funcs[i].graph, NULL);
    tf_rw_free(&rw);
    if (!nf) return NULL;
    repl[i] = (MlcFunc){MLC_FUNC_GRAPH, m->funcs[i].name, {.graph = nf}};
  }
  return tf_module_with(ctx, m, repl, NULL, 0);
}
