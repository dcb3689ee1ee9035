/* default_gpu.c - default GPU schedules: the simplest binding that makes a
 * prim func run on a GPU, for the kernels of a model nobody scheduled.
 *
 * Every loop nest at the top of the function ends in one block (what
 * legalization and fusion produce); its leading spatial loops -- those
 * whose vars feed only spatial iter vars -- are fused, split into
 * [blocks, threads] and bound to blockIdx.x and threadIdx.x, so each thread
 * computes output elements and runs the reduction loops itself.  A nest
 * with no spatial loop (a reduction to one value) gets a unit loop bound to
 * blockIdx.x and runs in one thread.  The rule is written as a schedule
 * script and run like any other, so its trace reads and replays.  It is a
 * baseline, correct for everything the split into kernels accepts; shared
 * memory tiles and cross-thread reductions are for hand-written or tuned
 * schedules (docs/gpu.md). */
#include "schedule/state.h"

#include <stdio.h>
#include <string.h>

typedef struct Uses { MlcVisitor v; const MlcExpr *var; bool found; } Uses;
static bool uses_hook(MlcVisitor *v, const MlcExpr *e) {
  Uses *u = (Uses *)v;
  if (e == u->var) u->found = true;
  return !u->found;
}
static bool uses(const MlcExpr *e, const MlcExpr *var) {
  Uses u = {.v = {.expr = uses_hook}, .var = var};
  if (e) mlc_visit_expr(&u.v, e);
  return u.found;
}

/* the script for the nest starting at s, appended to sb; false when s is
 * not a chain of loops down to one block */
static bool nest_script(const MlcStmt *s, int threads, MlcStrBuf *sb) {
  const MlcStmt *loops[64];
  int n = 0;
  while (s && s->kind == MLC_STMT_FOR && n < 64) {
    if (s->loop.kind == MLC_FOR_THREAD) return true; /* bound by hand: kept */
    if (s->loop.kind != MLC_FOR_SERIAL) return false;
    loops[n++] = s;
    s = s->loop.body;
  }
  if (!s || s->kind != MLC_STMT_BLOCK_REALIZE) return false;
  const MlcBlock *b = s->realize.block;
  int spatial = 0;
  for (; spatial < n; spatial++) {
    bool in_spatial = false, in_reduce = false;
    for (int k = 0; k < b->n_iters; k++) {
      bool u = uses(s->realize.values[k], loops[spatial]->loop.var);
      if (b->iters[k].kind == MLC_ITER_SPATIAL) in_spatial |= u;
      else in_reduce |= u;
    }
    if (!in_spatial || in_reduce) break;
  }
  mlc_sb_printf(sb, "b = sch.get_block(\"%s\")\n", b->name);
  if (spatial == 0) {
    mlc_sb_puts(sb, "sch.bind(sch.add_unit_loop(b), \"blockIdx.x\")\n");
    return true;
  }
  int64_t ext = -1, total = 1;
  for (int i = 0; i < spatial && total > 0; i++)
    total = mlc_e_is_const_int(loops[i]->loop.extent, &ext) && !__builtin_mul_overflow(total, ext, &total) ? total : -1;
  int t = total > 0 && total < threads ? (int)total : threads;
  mlc_sb_printf(sb, "l = sch.get_loops(b)\n");
  if (spatial > 1) mlc_sb_printf(sb, "f = sch.fuse(*l[:%d])\n", spatial);
  else mlc_sb_puts(sb, "f = l[0]\n");
  mlc_sb_printf(sb, "bx, tx = sch.split(f, [None, %d])\n", t);
  mlc_sb_puts(sb, "sch.bind(bx, \"blockIdx.x\")\nsch.bind(tx, \"threadIdx.x\")\n");
  return true;
}

bool mlc_sch_apply_default_gpu(MlcSchedule *s, int threads) {
  const MlcPrimFunc *f = mlc_sch_func(s);
  const MlcStmt *body = f->body;
  if (body && body->kind == MLC_STMT_BLOCK_REALIZE) body = body->realize.block->body;
  while (body && body->kind == MLC_STMT_LET) body = body->let.body;
  if (!body) return true;
  int n = body->kind == MLC_STMT_SEQ ? body->seq.n : 1;
  MlcStrBuf script = {0};
  bool ok = true;
  for (int i = 0; i < n && ok; i++) {
    const MlcStmt *nest = body->kind == MLC_STMT_SEQ ? body->seq.items[i] : body;
    if (!nest_script(nest, threads, &script))
      ok = mlc_error(mlc_sch_ctx(s), (MlcLoc){0}, "%s: the default GPU schedule takes loop nests that end in one "
                     "block each; statement %d of the function is not one (schedule it by hand)", f->name, i + 1);
  }
  if (ok) ok = mlc_sch_run_script(s, mlc_internf(mlc_sch_ctx(s), "<default GPU schedule of %s>", f->name),
                                  mlc_sb_cstr(&script), script.len);
  mlc_vec_free(&script);
  return ok;
}

MlcModule *mlc_sch_default_gpu_module(MlcCtx *ctx, const MlcModule *m, int threads) {
  const MlcModule *cur = m;
  for (int i = 0; m && i < m->n_funcs; i++) {
    if (m->funcs[i].kind != MLC_FUNC_PRIM) continue;
    MlcSchedule *s = mlc_sch_new(ctx, cur, m->funcs[i].name, 0);
    if (!s) return NULL;
    bool ok = mlc_sch_apply_default_gpu(s, threads);
    cur = mlc_sch_module(s);
    mlc_sch_free(s);
    if (!ok) return NULL;
  }
  return (MlcModule *)cur;
}
