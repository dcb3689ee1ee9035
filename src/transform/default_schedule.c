/* default_schedule.c - mlc_pass_default_schedule: the graph pipeline's
 * stage that schedules the tensor programs it made.
 *
 * Legalization and fusion write loop nests as the op is defined: correct,
 * and one scalar FMA chain innermost.  This stage hands each such prim func
 * to the schedule rules (src/schedule/default_rules.c), sized for the
 * target, so an untuned build is fast; the result is an ordinary schedule
 * (its trace replays).  Functions the module came with keep the schedule
 * their author wrote, and a function carrying a tuning record ("tuned")
 * keeps that record's. */
#include "transform/pass.h"

typedef struct Want { MlcCtx *ctx; const MlcMap *keep; } Want;

static bool wanted(const MlcPrimFunc *f, void *user) {
  Want *w = user;
  return !(w->keep && mlc_map_has(w->keep, f->name)) && !mlc_attrs_get(f->attrs, mlc_intern(w->ctx, "tuned"));
}

MlcModule *mlc_pass_default_schedule(MlcCtx *ctx, const MlcModule *m, const MlcSchTarget *target, const MlcMap *keep) {
  if (!target) return (MlcModule *)m;
  Want w = {ctx, keep};
  return mlc_sch_default_module(ctx, m, target, wanted, &w);
}
