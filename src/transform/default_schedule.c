/* default_schedule.c - mlc_pass_default_schedule: the graph pipeline's
 * stage that schedules the tensor programs it made.
 *
 * Legalization and fusion write loop nests as the op is defined: correct,
 * and one scalar FMA chain innermost.  This stage hands each such prim func
 * to the schedule rules (src/schedule/default_rules.c), sized for the
 * target, so an untuned build is fast; the result is an ordinary schedule
 * (its trace replays), and the function says so in its attribute
 * schedule = "default rules (avx2)".  Functions the module came with keep
 * the schedule their author wrote, and a function carrying a tuning record
 * ("tuned") keeps that record's.
 *
 * Params that receive a constant at every call (weights) are marked free to
 * change layout first; where a rule laid one out anew (a conv weight
 * blocked by output channels), the constants passed to it are laid out the
 * same way here, at compile time (weight_layout.c). */
#include "transform/pass.h"

#include <string.h>

typedef struct Want { MlcCtx *ctx; const MlcMap *keep; } Want;

static bool wanted(const MlcPrimFunc *f, void *user) {
  Want *w = user;
  return !(w->keep && mlc_map_has(w->keep, f->name)) && !mlc_attrs_get(f->attrs, mlc_intern(w->ctx, "tuned"));
}

/* f with the attribute schedule = "default rules (TARGET)", so --explain
 * and profiles can say where its loop nest came from */
static MlcPrimFunc *marked(MlcCtx *ctx, const MlcPrimFunc *f, const MlcSchTarget *t) {
  MlcPrimFunc *g = mlc_arena_dup(&ctx->arena, f, sizeof *f);
  MlcAttr *a = mlc_arena_array(&ctx->arena, (size_t)f->attrs.n + 1, sizeof *a);
  if (f->attrs.n) memcpy(a, f->attrs.items, sizeof *a * (size_t)f->attrs.n);
  a[f->attrs.n] = (MlcAttr){mlc_intern(ctx, "schedule"),
                            {.kind = MLC_ATTR_STR, .s = mlc_internf(ctx, "default rules (%s)", t->name)}};
  g->attrs = (MlcAttrs){a, f->attrs.n + 1};
  return g;
}

MlcModule *mlc_pass_default_schedule(MlcCtx *ctx, const MlcModule *m, const MlcSchTarget *target, const MlcMap *keep) {
  if (!target) return (MlcModule *)m;
  Want w = {ctx, keep};
  m = tf_mark_layout_free(ctx, m, wanted, &w);
  MlcModule *out = m ? mlc_sch_default_module(ctx, m, target, wanted, &w) : NULL;
  if (!out) return NULL;
  /* mark the functions the rules changed (a function is its pointer: an
   * unchanged one is shared with m; scheduling keeps the functions' order) */
  MlcFunc *funcs = mlc_arena_dup(&ctx->arena, out->funcs, sizeof *funcs * (size_t)(out->n_funcs ? out->n_funcs : 1));
  for (int i = 0; i < out->n_funcs && i < m->n_funcs; i++)
    if (funcs[i].kind == MLC_FUNC_PRIM && funcs[i].name == m->funcs[i].name && m->funcs[i].prim != funcs[i].prim)
      funcs[i].prim = marked(ctx, funcs[i].prim, target);
  out = mlc_module_new(ctx, out->name, funcs, out->n_funcs, out->attrs);
  return out ? tf_apply_layout_rewrites(ctx, out) : NULL;
}
