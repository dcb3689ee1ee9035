/* space.c - design spaces: schedule rules that write, for a prim func, a
 * trace with sampling instructions instead of fixed choices.
 *
 * The rules, in order:
 *   - auto-inline: every block with only spatial iters that some other
 *     block reads is inlined into its consumers (compute_inline refuses
 *     outputs and anything else it cannot fold);
 *   - multi-level tiling of each reduction in a perfect nest (one loop per
 *     iter var): every spatial loop split in 4 and every reduce loop in 2
 *     with sample_perfect_tile, ordered S0 S1 R0 S2 R1 S3 -- the CPU
 *     structure: outer tiles for threads, middle ones for caches, the inner
 *     spatial tile in registers;
 *   - its epilogue (the one complete block reading it) computed under the
 *     last S0 or the last S1 loop (reverse_compute_at) or left where it is:
 *     one space for each, since a location is a loop the trace must name;
 *   - the S0 loops fused and run in parallel;
 *   - the unroll depth drawn from {0, 16, 64} (sample_categorical) and
 *     left on the block as the annotation auto_unroll_max_step, which a
 *     postprocessor turns into unrolled loops;
 *   - random compute location: a producer auto-inline could not inline
 *     goes where sample_compute_location puts it (compute_at);
 *   - other blocks at the root with only spatial iters: the loops above the
 *     innermost fused and parallel;
 *   - a space of its own for reductions with more reduce than spatial
 *     iterations: rfactor of the inner part of their (fused, split)
 *     reduce loops, instead of tiling;
 *   - and the default rules as a space (mlc_sch_default_space): their
 *     register tiles drawn, the rest (packed panels, channel-blocked
 *     weights, epilogues folded into the tile) as the rules do it.
 * Vectorizing and decomposing reductions are the postprocessors' job: they
 * depend on the sampled tile sizes.  When a rule is refused for a block, the
 * space is built again without tiling that block. */
#include "tune/tune_internal.h"

#include <string.h>

enum { SPATIAL_PARTS = 4, REDUCE_PARTS = 2, MAX_INNER = 64, EPILOGUE_LEVELS = 2 };

/* 512, the field's usual top, makes kernels whose C takes the compiler
 * half a minute each: more than their measurement is worth */
static const int64_t unroll_steps[] = {0, 16, 64};
enum { N_UNROLL = sizeof unroll_steps / sizeof *unroll_steps };

typedef struct Space {
  MlcSchedule *s;
  int variant;                 /* 0: epilogue at the root; 1: under S0; 2: under S1 */
  bool rfactor;                /* reductions rfactored instead of tiled */
  bool did_rfactor;            /* some block was */
  const char *skip[TUNE_MAX_BLOCKS];
  int n_skip;
  const char *failed;          /* the block whose rule was refused */
  bool has_epilogue;           /* some tiled block has an epilogue to place */
} Space;

static bool skipped(const Space *sp, const char *name) {
  for (int i = 0; i < sp->n_skip; i++)
    if (sp->skip[i] == name) return true;
  return false;
}

/* b writes one of the function's buffers (an output: never inlined) */
static bool writes_param(const MlcPrimFunc *f, const MlcBlock *b) {
  for (int w = 0; w < b->n_writes; w++)
    for (int p = 0; p < f->n_params; p++)
      if (f->params[p].buf == b->writes[w].buf) return true;
  return false;
}

static void auto_inline(Space *sp) {
  TuneBlock bs[TUNE_MAX_BLOCKS];
  const MlcPrimFunc *f = mlc_sch_func(sp->s);
  int n = tune_leaf_blocks(f, bs, TUNE_MAX_BLOCKS);
  for (int i = 0; i < n; i++) {
    if (!tune_is_complete(bs[i].b) || n == 1 || writes_param(f, bs[i].b)) continue;
    MlcBlockRV b;
    if (!mlc_sch_get_block(sp->s, bs[i].b->name, &b)) {
      mlc_clear_error(mlc_sch_ctx(sp->s));
      continue;
    }
    MlcSchVal a[8] = {tune_v_block(b.id)};
    if (!tune_apply(sp->s, MLC_SCH_compute_inline, a, NULL, NULL)) mlc_clear_error(mlc_sch_ctx(sp->s));
  }
}

/* the iter kind bound to each loop of a perfect nest; false when the block
 * is not one (a loop per iter var, each bound directly) */
static bool nest_kinds(const TuneBlock *t, MlcIterKind *kinds) {
  if (t->n_loops != t->b->n_iters || t->n_loops == 0) return false;
  for (int i = 0; i < t->n_loops; i++) {
    const MlcStmt *next = i + 1 < t->n_loops ? t->loops[i + 1] : t->realize;
    if (t->loops[i]->loop.body != next || t->loops[i]->loop.kind != MLC_FOR_SERIAL) return false;
    int64_t e;
    if (!mlc_e_is_const_int(t->loops[i]->loop.extent, &e)) return false;
    kinds[i] = MLC_ITER_OPAQUE;
    for (int k = 0; k < t->b->n_iters; k++)
      if (t->realize->realize.values[k] == t->loops[i]->loop.var) kinds[i] = t->b->iters[k].kind;
    if (kinds[i] != MLC_ITER_SPATIAL && kinds[i] != MLC_ITER_REDUCE) return false;
  }
  return true;
}

static bool sample_tile(MlcSchedule *s, int loop, int parts, int *out) {
  MlcSchVal a[8] = {tune_v_loop(loop), tune_v_int(parts), tune_v_int(MAX_INNER)}, v[MLC_SCH_MAX_OUTS], l[MLC_SCH_MAX_OUTS];
  int n;
  if (!tune_apply(s, MLC_SCH_sample_perfect_tile, a, v, &n)) return false;
  MlcSchVal b[8] = {tune_v_loop(loop), {.kind = MLC_SV_LIST, .list = {v, n}}};
  if (!tune_apply(s, MLC_SCH_split, b, l, &n) || n != parts) return false;
  for (int i = 0; i < parts; i++) out[i] = l[i].rv;
  return true;
}

static bool loop_list(MlcSchedule *s, MlcSchPrim p, const int *loops, int n, MlcSchVal *outs) {
  MlcSchVal items[TUNE_MAX_NEST * SPATIAL_PARTS];
  for (int i = 0; i < n; i++) items[i] = tune_v_loop(loops[i]);
  MlcSchVal a[8] = {{.kind = MLC_SV_LIST, .list = {items, n}}};
  int k;
  return tune_apply(s, p, a, outs, &k);
}

/* the one complete block that reads what t writes (its epilogue), NULL
 * when there is not exactly one */
static const char *epilogue_of(Space *sp, const TuneBlock *t) {
  if (t->b->n_writes != 1) return NULL;
  const MlcBuffer *out = t->b->writes[0].buf;
  TuneBlock bs[TUNE_MAX_BLOCKS];
  int n = tune_leaf_blocks(mlc_sch_func(sp->s), bs, TUNE_MAX_BLOCKS), found = -1, count = 0;
  for (int i = 0; i < n; i++) {
    if (bs[i].b == t->b) continue;
    for (int r = 0; r < bs[i].b->n_reads; r++)
      if (bs[i].b->reads[r].buf == out) {
        found = i, count++;
        break;
      }
  }
  if (count != 1 || !tune_is_complete(bs[found].b)) return NULL;
  return bs[found].b->name;
}

static bool unroll_annotation(MlcSchedule *s, int b) {
  MlcSchVal cand[N_UNROLL], probs[N_UNROLL], v[MLC_SCH_MAX_OUTS];
  for (int i = 0; i < N_UNROLL; i++) {
    cand[i] = tune_v_int(unroll_steps[i]);
    probs[i] = (MlcSchVal){.kind = MLC_SV_FLOAT, .f = 1.0 / N_UNROLL};
  }
  MlcSchVal a[8] = {{.kind = MLC_SV_LIST, .list = {cand, N_UNROLL}}, {.kind = MLC_SV_LIST, .list = {probs, N_UNROLL}}};
  int n;
  if (!tune_apply(s, MLC_SCH_sample_categorical, a, v, &n)) return false;
  MlcSchVal an[8] = {tune_v_block(b), {.kind = MLC_SV_STR, .s = mlc_intern(mlc_sch_ctx(s), TUNE_UNROLL_KEY)}, v[0]};
  return tune_apply(s, MLC_SCH_annotate, an, NULL, NULL);
}

static bool rule_tile(Space *sp, const TuneBlock *t) {
  MlcIterKind kinds[TUNE_MAX_NEST];
  if (!t->b->init || !nest_kinds(t, kinds)) return true; /* not this rule's */
  int b, loops[TUNE_MAX_NEST], n;
  if (!tune_loops(sp->s, t->b->name, &b, loops, &n) || n != t->n_loops) return false;
  int parts[TUNE_MAX_NEST][SPATIAL_PARTS], order[TUNE_MAX_NEST * SPATIAL_PARTS], n_order = 0;
  int n_reduce = 0;
  for (int i = 0; i < n; i++) {
    int p = kinds[i] == MLC_ITER_SPATIAL ? SPATIAL_PARTS : REDUCE_PARTS;
    n_reduce += kinds[i] == MLC_ITER_REDUCE;
    if (!sample_tile(sp->s, loops[i], p, parts[i])) return false;
  }
  if (!n_reduce) return true;
  /* S0 S1 R0 S2 R1 S3: level l of the spatial loops, then of the reduce ones */
  static const struct { MlcIterKind kind; int part; } levels[] = {
      {MLC_ITER_SPATIAL, 0}, {MLC_ITER_SPATIAL, 1}, {MLC_ITER_REDUCE, 0},
      {MLC_ITER_SPATIAL, 2}, {MLC_ITER_REDUCE, 1}, {MLC_ITER_SPATIAL, 3}};
  int last_of_level[6] = {-1, -1, -1, -1, -1, -1}, s0[TUNE_MAX_NEST], n_s0 = 0;
  for (int l = 0; l < 6; l++)
    for (int i = 0; i < n; i++)
      if (kinds[i] == levels[l].kind) {
        order[n_order++] = last_of_level[l] = parts[i][levels[l].part];
        if (l == 0) s0[n_s0++] = parts[i][0];
      }
  MlcSchVal outs[MLC_SCH_MAX_OUTS];
  if (!loop_list(sp->s, MLC_SCH_reorder, order, n_order, outs)) return false;
  const char *epi = epilogue_of(sp, t);
  if (epi) {
    sp->has_epilogue = true;
    MlcBlockRV c;
    if (sp->variant > 0) {
      if (!mlc_sch_get_block(sp->s, epi, &c)) return false;
      MlcSchVal a[8] = {tune_v_block(c.id), tune_v_loop(last_of_level[sp->variant - 1])};
      if (!tune_apply(sp->s, MLC_SCH_reverse_compute_at, a, NULL, NULL)) return false;
    }
  }
  if (n_s0 > 0) {
    int fused = s0[0];
    if (n_s0 > 1) {
      if (!loop_list(sp->s, MLC_SCH_fuse, s0, n_s0, outs)) return false;
      fused = outs[0].rv;
    }
    MlcSchVal a[8] = {tune_v_loop(fused)};
    if (!tune_apply(sp->s, MLC_SCH_parallel, a, NULL, NULL)) return false;
  }
  return unroll_annotation(sp->s, b);
}

/* A reduction with more reduce than spatial iterations (a row sum, a
 * norm, a dot product) has too little spatial work to spread: its reduce
 * loops (the innermost, in a perfect nest) are fused and split in 2 by
 * sample_perfect_tile, and the inner part becomes the last axis of a
 * partial-result block (rfactor, factor_axis -1), whose innermost loop the
 * postprocessor can then vectorize; the block that sums the partial
 * results stays.  Other blocks are not this rule's. */
static bool rule_rfactor(Space *sp, const TuneBlock *t) {
  MlcIterKind kinds[TUNE_MAX_NEST];
  if (!t->b->init || !nest_kinds(t, kinds)) return true;
  double spatial = 1, reduce = 1;
  int first_r = t->n_loops;
  while (first_r > 0 && kinds[first_r - 1] == MLC_ITER_REDUCE) first_r--;
  for (int i = 0; i < t->n_loops; i++) {
    int64_t e = 1;
    mlc_e_is_const_int(t->loops[i]->loop.extent, &e);
    if (kinds[i] == MLC_ITER_REDUCE && i < first_r) return true; /* reduce loops not innermost */
    if (kinds[i] == MLC_ITER_REDUCE) reduce *= (double)e;
    else spatial *= (double)e;
  }
  if (first_r == t->n_loops || reduce <= spatial) return true;
  int b, loops[TUNE_MAX_NEST], n;
  MlcSchVal outs[MLC_SCH_MAX_OUTS];
  if (!tune_loops(sp->s, t->b->name, &b, loops, &n) || n != t->n_loops) return false;
  int r = loops[first_r], parts[REDUCE_PARTS];
  if (n - first_r > 1) {
    if (!loop_list(sp->s, MLC_SCH_fuse, loops + first_r, n - first_r, outs)) return false;
    r = outs[0].rv;
  }
  if (!sample_tile(sp->s, r, REDUCE_PARTS, parts)) return false;
  MlcSchVal a[8] = {tune_v_loop(parts[1]), tune_v_int(-1)};
  int k;
  if (!tune_apply(sp->s, MLC_SCH_rfactor, a, outs, &k) || k != 1) return false;
  sp->did_rfactor = true;
  return unroll_annotation(sp->s, outs[0].rv);
}

/* Random compute location: a complete block that auto-inline left (it
 * could not be inlined) and that some block reads goes where
 * sample_compute_location puts it -- under one of its first consumer's
 * loops, at the root, or inlined after all (compute_at takes all three).
 * A refusal leaves the block where it is. */
static void rule_compute_location(Space *sp, const TuneBlock *t) {
  const MlcPrimFunc *f = mlc_sch_func(sp->s);
  if (!tune_is_complete(t->b) || writes_param(f, t->b)) return;
  MlcBlockRV b;
  MlcSchVal v[MLC_SCH_MAX_OUTS];
  int n;
  MlcCtx *ctx = mlc_sch_ctx(sp->s);
  if (!mlc_sch_get_block(sp->s, t->b->name, &b)) return (void)mlc_clear_error(ctx);
  MlcSchVal a[8] = {tune_v_block(b.id)};
  if (!tune_apply(sp->s, MLC_SCH_sample_compute_location, a, v, &n) || n != 1) return (void)mlc_clear_error(ctx);
  MlcSchVal c[8] = {tune_v_block(b.id), v[0]};
  if (!tune_apply(sp->s, MLC_SCH_compute_at, c, NULL, NULL)) mlc_clear_error(ctx);
}

/* a complete block still at the root in a perfect nest: the loops above
 * its innermost fused and parallel (a refusal only skips this) */
static void rule_parallel(Space *sp, const TuneBlock *t) {
  MlcIterKind kinds[TUNE_MAX_NEST];
  if (!tune_is_complete(t->b) || !nest_kinds(t, kinds) || t->n_loops < 2) return;
  int b, loops[TUNE_MAX_NEST], n;
  MlcSchVal outs[MLC_SCH_MAX_OUTS];
  MlcSchedule *s = sp->s;
  if (!tune_loops(s, t->b->name, &b, loops, &n)) return (void)mlc_clear_error(mlc_sch_ctx(s));
  int fused = loops[0];
  if (n - 1 > 1) {
    if (!loop_list(s, MLC_SCH_fuse, loops, n - 1, outs)) return (void)mlc_clear_error(mlc_sch_ctx(s));
    fused = outs[0].rv;
  }
  MlcSchVal a[8] = {tune_v_loop(fused)};
  if (!tune_apply(s, MLC_SCH_parallel, a, NULL, NULL)) mlc_clear_error(mlc_sch_ctx(s));
}

/* some other leaf block reads what t writes */
static bool is_producer(const MlcPrimFunc *f, const TuneBlock *t) {
  if (t->b->n_writes != 1) return false;
  TuneBlock bs[TUNE_MAX_BLOCKS];
  int n = tune_leaf_blocks(f, bs, TUNE_MAX_BLOCKS);
  for (int i = 0; i < n; i++)
    for (int r = 0; bs[i].b != t->b && r < bs[i].b->n_reads; r++)
      if (bs[i].b->reads[r].buf == t->b->writes[0].buf) return true;
  return false;
}

static bool build(Space *sp) {
  auto_inline(sp);
  TuneBlock bs[TUNE_MAX_BLOCKS];
  int n = tune_leaf_blocks(mlc_sch_func(sp->s), bs, TUNE_MAX_BLOCKS);
  const char *names[TUNE_MAX_BLOCKS];
  for (int i = 0; i < n; i++) names[i] = bs[i].b->name;
  for (int i = 0; i < n; i++) {
    TuneBlock t;
    if (skipped(sp, names[i]) || !tune_find_block(mlc_sch_func(sp->s), names[i], &t)) continue;
    if (!(sp->rfactor ? rule_rfactor(sp, &t) : rule_tile(sp, &t))) return sp->failed = names[i], false;
  }
  /* producers auto-inline left, at a sampled location */
  n = tune_leaf_blocks(mlc_sch_func(sp->s), bs, TUNE_MAX_BLOCKS);
  for (int i = 0; i < n; i++) names[i] = bs[i].b->name;
  for (int i = 0; i < n; i++) {
    TuneBlock t;
    if (tune_find_block(mlc_sch_func(sp->s), names[i], &t) && is_producer(mlc_sch_func(sp->s), &t))
      rule_compute_location(sp, &t);
  }
  /* blocks the tiling left at the root */
  n = tune_leaf_blocks(mlc_sch_func(sp->s), bs, TUNE_MAX_BLOCKS);
  for (int i = 0; i < n; i++)
    if (bs[i].n_loops > 0 && bs[i].loops[0]->loop.kind == MLC_FOR_SERIAL) rule_parallel(sp, &bs[i]);
  return true;
}

/* one space of the kind sp says; a block whose rule is refused is left to
 * the other rules and the space built again */
static bool make_space(MlcCtx *ctx, const MlcModule *m, const char *func, Space *sp) {
  for (;;) {
    sp->s = mlc_sch_new(ctx, m, func, 0);
    if (!sp->s) return false;
    sp->failed = NULL;
    sp->has_epilogue = sp->did_rfactor = false;
    if (build(sp)) return true;
    mlc_clear_error(ctx);
    mlc_sch_free(sp->s);
    sp->s = NULL;
    if (sp->n_skip >= TUNE_MAX_BLOCKS) return mlc_error(ctx, (MlcLoc){0}, "tune: no design space for '%s'", func);
    sp->skip[sp->n_skip++] = sp->failed;
  }
}

int mlc_tune_spaces(MlcCtx *ctx, const MlcModule *m, const char *func, const MlcSchTarget *t, MlcSchedule **out,
                    int cap) {
  if (t && t->gpu) return tune_gpu_spaces(ctx, m, func, t, out, cap);
  int made = 0;
  Space sp = {0};
  for (int variant = 0; variant <= EPILOGUE_LEVELS && made < cap; variant++) {
    sp.variant = variant;
    if (!make_space(ctx, m, func, &sp)) return 0;
    out[made++] = sp.s;
    if (!sp.has_epilogue) break; /* the variants would all be the same */
  }
  /* the rfactor space, kept when some reduction took it */
  Space rf = {.rfactor = true};
  if (made < cap && make_space(ctx, m, func, &rf)) {
    if (rf.did_rfactor) out[made++] = rf.s;
    else mlc_sch_free(rf.s);
  }
  /* the default rules with their register tiles drawn, kept when some
   * rule drew one (else it is the default schedule, a candidate already) */
  MlcSchedule *d = made < cap ? mlc_sch_new(ctx, m, func, 0) : NULL;
  MlcSchVal dec[1];
  if (d && mlc_sch_default_space(d, t) && mlc_sch_decisions(d, dec, 1) > 0) out[made++] = d;
  else mlc_sch_free(d);
  mlc_clear_error(ctx);
  return made;
}
