/* postproc.c - postprocessors: what turns a replayed candidate into a
 * program worth measuring, or rejects it.
 *
 * In order: each reduction's init is decomposed out at its first reduce
 * loop (the update then has no branch and its inner spatial loop can be a
 * vector); each block's innermost loop is vectorized when it is a spatial
 * loop of 2..64 iterations over the written buffer's last index (the C
 * generator's vectors); loops are unrolled, innermost first, while the
 * iterations they hold stay within the block's sampled
 * auto_unroll_max_step, and the annotation is removed.  Last, and only
 * for the candidates about to be measured (it lowers the whole function,
 * the costly part), the C generator must accept the function.  Every step goes through ordinary
 * primitives, so the candidate's trace states all of it and replays alone. */
#include "tune/tune_internal.h"

#include <string.h>

enum { MAX_VECTOR = 64 };

static MlcCtx *ctx_of(MlcSchedule *s) { return mlc_sch_ctx(s); }

/* index in t->loops of the first loop a reduce iter is bound to, -1 */
static int first_reduce_loop(const TuneBlock *t) {
  for (int i = 0; i < t->n_loops; i++)
    for (int k = 0; k < t->b->n_iters; k++)
      if (t->b->iters[k].kind == MLC_ITER_REDUCE && tune_uses_var(t->realize->realize.values[k], t->loops[i]->loop.var))
        return i;
  return -1;
}

static void decompose_reductions(MlcSchedule *s) {
  TuneBlock bs[TUNE_MAX_BLOCKS];
  int n = tune_leaf_blocks(mlc_sch_func(s), bs, TUNE_MAX_BLOCKS);
  const char *names[TUNE_MAX_BLOCKS];
  for (int i = 0; i < n; i++) names[i] = bs[i].b->name;
  for (int i = 0; i < n; i++) {
    TuneBlock t;
    if (!tune_find_block(mlc_sch_func(s), names[i], &t) || !t.b->init) continue;
    int at = first_reduce_loop(&t), b, loops[TUNE_MAX_NEST], nl;
    if (at < 0 || !tune_loops(s, names[i], &b, loops, &nl) || nl != t.n_loops) {
      mlc_clear_error(ctx_of(s));
      continue;
    }
    MlcSchVal a[8] = {tune_v_block(b), tune_v_loop(loops[at])};
    if (!tune_apply(s, MLC_SCH_decompose_reduction, a, NULL, NULL)) mlc_clear_error(ctx_of(s));
  }
}

/* the innermost loop of t is worth a vector: spatial, directly around the
 * block, 2..64 iterations, moving the written buffer's last index */
static bool vectorizable(const TuneBlock *t) {
  if (t->n_loops == 0 || t->b->n_writes != 1 || !t->b->body || t->b->body->kind != MLC_STMT_STORE) return false;
  const MlcStmt *l = t->loops[t->n_loops - 1];
  int64_t e;
  if (l->loop.body != t->realize || l->loop.kind != MLC_FOR_SERIAL || !mlc_e_is_const_int(l->loop.extent, &e) ||
      e < 2 || e > MAX_VECTOR)
    return false;
  const MlcStmt *st = t->b->body;
  if (st->store.n == 0) return false;
  const MlcExpr *last = st->store.idx[st->store.n - 1];
  bool lane = false;
  for (int k = 0; k < t->b->n_iters; k++) {
    bool bound = tune_uses_var(t->realize->realize.values[k], l->loop.var);
    if (bound && t->b->iters[k].kind != MLC_ITER_SPATIAL) return false;
    if (bound && last == t->b->iters[k].var) lane = true;
  }
  return lane;
}

static void vectorize_inner(MlcSchedule *s) {
  TuneBlock bs[TUNE_MAX_BLOCKS];
  int n = tune_leaf_blocks(mlc_sch_func(s), bs, TUNE_MAX_BLOCKS);
  for (int i = 0; i < n; i++) {
    int b, loops[TUNE_MAX_NEST], nl;
    if (!vectorizable(&bs[i])) continue;
    if (!tune_loops(s, bs[i].b->name, &b, loops, &nl) || nl != bs[i].n_loops) {
      mlc_clear_error(ctx_of(s));
      continue;
    }
    MlcSchVal a[8] = {tune_v_loop(loops[nl - 1])};
    if (!tune_apply(s, MLC_SCH_vectorize, a, NULL, NULL)) mlc_clear_error(ctx_of(s));
  }
}

static int64_t unroll_step(MlcCtx *ctx, const MlcBlock *b, bool *has) {
  const MlcAttrValue *v = mlc_attrs_get(b->annotations, mlc_intern(ctx, TUNE_UNROLL_KEY));
  *has = v != NULL;
  return v && v->kind == MLC_ATTR_INT ? v->i : 0;
}

/* unroll t's loops from the innermost out while their iterations stay
 * within max_step; vectorized loops count, parallel ones stop it */
static bool unroll_block(MlcSchedule *s, const TuneBlock *t, int64_t max_step) {
  int b, loops[TUNE_MAX_NEST], nl;
  if (max_step <= 1) return true;
  if (!tune_loops(s, t->b->name, &b, loops, &nl) || nl != t->n_loops) return false;
  int64_t iters = 1;
  for (int i = nl - 1; i >= 0; i--) {
    const MlcStmt *l = t->loops[i];
    int64_t e;
    if (!mlc_e_is_const_int(l->loop.extent, &e) || l->loop.kind == MLC_FOR_PARALLEL) break;
    if (__builtin_mul_overflow(iters, e, &iters) || iters > max_step) break;
    if (l->loop.kind != MLC_FOR_SERIAL) continue;
    MlcSchVal a[8] = {tune_v_loop(loops[i])};
    if (!tune_apply(s, MLC_SCH_unroll, a, NULL, NULL)) return false;
  }
  return true;
}

static bool unroll(MlcSchedule *s) {
  TuneBlock bs[TUNE_MAX_BLOCKS];
  int n = tune_leaf_blocks(mlc_sch_func(s), bs, TUNE_MAX_BLOCKS);
  const char *names[TUNE_MAX_BLOCKS];
  int64_t steps[TUNE_MAX_BLOCKS];
  bool has[TUNE_MAX_BLOCKS];
  for (int i = 0; i < n; i++) names[i] = bs[i].b->name, steps[i] = unroll_step(ctx_of(s), bs[i].b, &has[i]);
  /* a decomposed init block carries no annotation: it takes its update's */
  for (int i = 0; i < n; i++) {
    if (has[i]) continue;
    size_t len = strlen(names[i]);
    for (int k = 0; k < n; k++)
      if (has[k] && len == strlen(names[k]) + 5 && !strncmp(names[i], names[k], strlen(names[k])) &&
          !strcmp(names[i] + strlen(names[k]), "_init"))
        steps[i] = steps[k];
  }
  for (int i = 0; i < n; i++) {
    TuneBlock t;
    if (!tune_find_block(mlc_sch_func(s), names[i], &t)) continue;
    if (!unroll_block(s, &t, steps[i])) return false;
    if (!has[i]) continue;
    MlcBlockRV b;
    if (!mlc_sch_get_block(s, names[i], &b)) return false;
    MlcSchVal a[8] = {tune_v_block(b.id), {.kind = MLC_SV_STR, .s = mlc_intern(ctx_of(s), TUNE_UNROLL_KEY)}};
    if (!tune_apply(s, MLC_SCH_unannotate, a, NULL, NULL)) return false;
  }
  return true;
}

bool mlc_tune_postprocess(MlcSchedule *s, const MlcSchTarget *t) {
  if (t && t->gpu) return unroll(s); /* the GPU space decomposes and vectorizes nothing */
  decompose_reductions(s);
  vectorize_inner(s);
  return unroll(s);
}

bool mlc_tune_verify(MlcSchedule *s) {
  MlcCtx *ctx = ctx_of(s);
  const MlcPrimFunc *f = mlc_sch_func(s);
  MlcFunc one = {.kind = MLC_FUNC_PRIM, .name = f->name, .prim = (MlcPrimFunc *)f};
  MlcModule *m = mlc_module_new(ctx, mlc_intern(ctx, "Candidate"), &one, 1, (MlcAttrs){0});
  MlcStrBuf sb = {0};
  /* a candidate bound to thread axes is for a GPU: its device code */
  bool ok = m && (tune_is_gpu_func(f) ? mlc_codegen_gpu_source(ctx, m, MLC_GPU_OPENCL, &sb) : mlc_codegen_c(ctx, m, &sb));
  mlc_vec_free(&sb);
  return ok;
}
