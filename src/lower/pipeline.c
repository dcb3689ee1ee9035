/* pipeline.c - the lowering pipeline, as one flat list of stages. */
#include "mlcc/lower.h"

const char *const mlc_lower_stage_names[MLC_LOWER_STAGE_COUNT] = {
    "blocks", "compact", "pad", "flatten", "unroll", "simplify", "interchange", "vectorize",
};

typedef MlcPrimFunc *(*StageFn)(MlcCtx *, const MlcPrimFunc *);

static const StageFn stages[MLC_LOWER_STAGE_COUNT] = {
    mlc_lower_blocks, mlc_lower_compact, mlc_lower_pad,         mlc_lower_flatten,
    mlc_lower_unroll, mlc_lower_simplify, mlc_lower_interchange, mlc_lower_vectorize,
};

MlcPrimFunc *mlc_lower_prim_func(MlcCtx *ctx, const MlcPrimFunc *f, MlcLowerStage last,
                                 MlcLowerDump dump, void *user) {
  MlcPrimFunc *cur = (MlcPrimFunc *)f;
  for (int s = 0; s <= (int)last && s < MLC_LOWER_STAGE_COUNT; s++) {
    cur = stages[s](ctx, cur);
    if (!cur) return NULL;
    if (dump) dump(user, (MlcLowerStage)s, cur);
  }
  return cur;
}

MlcModule *mlc_lower_module(MlcCtx *ctx, const MlcModule *m, MlcLowerDump dump, void *user) {
  MlcFunc *funcs = mlc_arena_array(&ctx->arena, (size_t)m->n_funcs + 1, sizeof *funcs);
  for (int i = 0; i < m->n_funcs; i++) {
    funcs[i] = m->funcs[i];
    if (funcs[i].kind != MLC_FUNC_PRIM) continue;
    funcs[i].prim = mlc_lower_prim_func(ctx, m->funcs[i].prim, MLC_LOWER_STAGE_COUNT - 1, dump, user);
    if (!funcs[i].prim) return NULL;
  }
  return mlc_module_new(ctx, m->name, funcs, m->n_funcs, m->attrs);
}
