/* default_gpu.c - default GPU schedules for the kernels of a model nobody
 * scheduled.
 *
 * Every loop nest at the top of the function ends in one block (what
 * legalization and fusion produce).  Each nest gets the first of these
 * forms that applies to it and that the caller's check accepts (the GPU
 * lowering, which refuses a race or a grid over the limits, so a form that
 * does not fit a nest falls back to a simpler one, never to a wrong
 * answer):
 *
 *   tiled    a reduction over spatial loops [outer.., i, j] and reduce
 *            loops (matmul, batch matmul, convolution): i and j split
 *            [blocks, threads, register tile], the reduce loops fused and
 *            split [steps, step]; the outer spatial loops fused on
 *            blockIdx.z, i on blockIdx.y, j on blockIdx.x, the two thread
 *            parts fused on threadIdx.x; each thread accumulates its
 *            register tile in local memory (cache_write), and every input
 *            the reduction reads through its reduce vars is staged in
 *            shared memory one step at a time, fetched by all the block's
 *            threads together (the course's blocking_with_shared).  Then
 *            the same without the shared stages.
 *   cross    a reduction over many values into few outputs (softmax's
 *            max and sum, layer norm's moments, reduce ops, global
 *            pooling): the spatial loops fused on blockIdx.x, the reduce
 *            loops fused and split [threads, rest] with the threads on
 *            threadIdx.x, which GPU lowering turns into a cross-thread
 *            reduction (a tree in shared memory).
 *   simple   the leading spatial loops fused, split [blocks, threads] and
 *            bound to blockIdx.x / threadIdx.x; each thread runs the
 *            reduction loops of its outputs (elementwise and injective
 *            nests, small reductions).  A nest with no spatial loop gets
 *            a unit loop on blockIdx.x and runs in one thread.
 *
 * Nests are decided in order, each with the ones before it in their chosen
 * form and the ones after it simple.  The rule is written as a schedule
 * script and run like any other, so its trace reads and replays.  The
 * tuner's GPU design space is the same script with the tiled forms' sizes
 * and unroll depth drawn by sampling instructions (mlc_sch_gpu_space). */
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

/* ---- one nest ------------------------------------------------------------------------ */

#define MAX_LOOPS 64

typedef enum Form { FORM_TILED_SHARED, FORM_TILED, FORM_CROSS, FORM_SIMPLE, FORM_KEEP, FORM_COUNT } Form;

typedef struct Nest {
  const MlcStmt *loops[MAX_LOOPS];
  int n;
  const MlcStmt *realize;
  const MlcBlock *b;
  int spatial;        /* leading loops that feed only spatial iter vars */
  bool perfect;       /* the rest feed only reduce iter vars (and there is one) */
  int64_t s_total;    /* product of the spatial extents, -1 when not constant */
  int64_t r_total;    /* the same for the reduce loops */
  bool kept;          /* bound by hand: left alone */
} Nest;

static int64_t product(const MlcStmt *const *loops, int from, int to) {
  int64_t total = 1, ext;
  for (int i = from; i < to; i++)
    if (!mlc_e_is_const_int(loops[i]->loop.extent, &ext) || __builtin_mul_overflow(total, ext, &total)) return -1;
  return total;
}

/* false when s is not a chain of serial loops down to one block */
static bool read_nest(const MlcStmt *s, Nest *n) {
  memset(n, 0, sizeof *n);
  while (s && s->kind == MLC_STMT_FOR && n->n < MAX_LOOPS) {
    if (s->loop.kind == MLC_FOR_THREAD) return n->kept = true;
    if (s->loop.kind != MLC_FOR_SERIAL) return false;
    n->loops[n->n++] = s;
    s = s->loop.body;
  }
  if (!s || s->kind != MLC_STMT_BLOCK_REALIZE) return false;
  n->realize = s;
  n->b = s->realize.block;
  int reduce_only = 0;
  for (int l = 0; l < n->n; l++) {
    bool in_spatial = false, in_reduce = false;
    for (int k = 0; k < n->b->n_iters; k++) {
      bool u = uses(s->realize.values[k], n->loops[l]->loop.var);
      if (n->b->iters[k].kind == MLC_ITER_SPATIAL) in_spatial |= u;
      else in_reduce |= u;
    }
    if (n->spatial == l && in_spatial && !in_reduce) n->spatial++;
    else if (l >= n->spatial && in_reduce && !in_spatial) reduce_only++;
  }
  n->perfect = reduce_only > 0 && n->spatial + reduce_only == n->n && n->b->init && !n->b->n_allocs;
  n->s_total = product(n->loops, 0, n->spatial);
  n->r_total = n->perfect ? product(n->loops, n->spatial, n->n) : -1;
  return true;
}

/* the largest divisor of n that is at most cap */
static int64_t divisor_upto(int64_t n, int64_t cap) {
  for (int64_t d = cap < n ? cap : n; d > 1; d--)
    if (n % d == 0) return d;
  return 1;
}

/* a spatial extent split [blocks, threads, regs] */
static void tile_of(int64_t ext, int64_t *threads, int64_t *regs) {
  *regs = ext % 4 == 0 && ext >= 32 ? 4 : ext % 2 == 0 && ext >= 16 ? 2 : 1;
  *threads = divisor_upto(ext / *regs, 16);
}

static bool form_applies(const Nest *n, Form f, int threads) {
  int64_t ei, ej;
  switch (f) {
  case FORM_TILED_SHARED:
  case FORM_TILED: {
    if (!n->perfect || n->spatial < 2 || n->r_total < 8 ||
        !mlc_e_is_const_int(n->loops[n->spatial - 2]->loop.extent, &ei) ||
        !mlc_e_is_const_int(n->loops[n->spatial - 1]->loop.extent, &ej))
      return false;
    int64_t ti, ri, tj, rj;
    tile_of(ei, &ti, &ri);
    tile_of(ej, &tj, &rj);
    /* enough threads and register reuse to be worth the staging */
    return ti * tj >= 16 && ti * tj <= threads && ri * rj >= 2;
  }
  case FORM_CROSS:
    return n->perfect && n->r_total >= 32 &&
           (n->s_total >= 0 ? n->s_total <= 65536 : n->r_total >= 256);
  case FORM_SIMPLE: return true;
  default: return false;
  }
}

static void write_simple(const Nest *n, int threads, MlcStrBuf *sb) {
  mlc_sb_printf(sb, "b = sch.get_block(\"%s\")\n", n->b->name);
  if (n->spatial == 0) { /* one thread runs the nest: a unit loop above it */
    mlc_sb_printf(sb, "sch.bind(sch.add_unit_loop(%s), \"blockIdx.x\")\n", n->n ? "sch.get_loops(b)[0]" : "b");
    return;
  }
  int t = n->s_total > 0 && n->s_total < threads ? (int)n->s_total : threads;
  mlc_sb_printf(sb, "l = sch.get_loops(b)\n");
  if (n->spatial > 1) mlc_sb_printf(sb, "f = sch.fuse(*l[:%d])\n", n->spatial);
  else mlc_sb_puts(sb, "f = l[0]\n");
  mlc_sb_printf(sb, "bx, tx = sch.split(f, [None, %d])\n", t);
  mlc_sb_puts(sb, "sch.bind(bx, \"blockIdx.x\")\nsch.bind(tx, \"threadIdx.x\")\n");
}

static void write_cross(const Nest *n, int threads, MlcStrBuf *sb) {
  int64_t t = 32;
  while (t * 2 <= n->r_total && t * 2 <= threads) t *= 2;
  mlc_sb_printf(sb, "b = sch.get_block(\"%s\")\nl = sch.get_loops(b)\n", n->b->name);
  if (n->spatial == 0) mlc_sb_puts(sb, "sch.bind(sch.add_unit_loop(l[0]), \"blockIdx.x\")\n");
  else mlc_sb_printf(sb, "sch.bind(sch.fuse(*l[:%d]), \"blockIdx.x\")\n", n->spatial);
  mlc_sb_printf(sb, "t, r = sch.split(sch.fuse(*l[%d:]), [%lld, None])\n", n->spatial, (long long)t);
  mlc_sb_puts(sb, "sch.bind(t, \"threadIdx.x\")\n");
}

/* whether read region r of the block reads through a reduce iter var */
static bool read_by_reduction(const Nest *n, const MlcBufferRegion *r) {
  for (int d = 0; d < r->buf->ndim; d++)
    for (int k = 0; k < n->b->n_iters; k++)
      if (n->b->iters[k].kind == MLC_ITER_REDUCE &&
          (uses(r->ranges[d].min, n->b->iters[k].var) || uses(r->ranges[d].extent, n->b->iters[k].var)))
        return true;
  return false;
}

static void write_tiled(const Nest *n, bool shared, MlcStrBuf *sb) {
  int s = n->spatial;
  int64_t ei = 0, ej = 0, ti, ri, tj, rj;
  mlc_e_is_const_int(n->loops[s - 2]->loop.extent, &ei);
  mlc_e_is_const_int(n->loops[s - 1]->loop.extent, &ej);
  tile_of(ei, &ti, &ri);
  tile_of(ej, &tj, &rj);
  int64_t kt = divisor_upto(n->r_total, 16);
  mlc_sb_printf(sb, "b = sch.get_block(\"%s\")\nl = sch.get_loops(b)\n", n->b->name);
  mlc_sb_puts(sb, "acc = sch.cache_write(b, 0, \"local\")\n");
  mlc_sb_printf(sb, "i0, i1, i2 = sch.split(l[%d], [None, %lld, %lld])\n", s - 2, (long long)ti, (long long)ri);
  mlc_sb_printf(sb, "j0, j1, j2 = sch.split(l[%d], [None, %lld, %lld])\n", s - 1, (long long)tj, (long long)rj);
  mlc_sb_printf(sb, "k0, k1 = sch.split(sch.fuse(*l[%d:]), [None, %lld])\n", s, (long long)kt);
  mlc_sb_puts(sb, "sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2)\nsch.reverse_compute_at(acc, j1)\n");
  if (s > 2) mlc_sb_printf(sb, "sch.bind(sch.fuse(*l[:%d]), \"blockIdx.z\")\n", s - 2);
  mlc_sb_puts(sb, "sch.bind(i0, \"blockIdx.y\")\nsch.bind(j0, \"blockIdx.x\")\n"
                  "sch.bind(sch.fuse(i1, j1), \"threadIdx.x\")\n");
  /* the stage's own loops follow [outer], i0, j0, the threads and k0 */
  int depth = (s > 2) + 4;
  for (int r = 0, staged = 0; shared && r < n->b->n_reads && staged < 4; r++) {
    const MlcBufferRegion *rg = &n->b->reads[r];
    bool written = false;
    for (int w = 0; w < n->b->n_writes; w++) written |= n->b->writes[w].buf == rg->buf;
    if (written || !read_by_reduction(n, rg)) continue;
    /* cache_read numbers reads as they are now: earlier stages replaced
     * their buffer in place, so the index is unchanged */
    mlc_sb_printf(sb, "st = sch.cache_read(b, %d, \"shared\")\nsch.compute_at(st, k0)\n", r);
    mlc_sb_printf(sb, "_, t = sch.split(sch.fuse(*sch.get_loops(st)[%d:]), [None, %lld])\n", depth,
                  (long long)(ti * tj));
    mlc_sb_puts(sb, "sch.bind(t, \"threadIdx.x\")\n");
    staged++;
  }
  mlc_sb_puts(sb, "sch.decompose_reduction(b, k0)\n");
}

/* the tiled form with its tile sizes drawn (sample_perfect_tile), for the
 * tuner's GPU design space: i and j split in 3 ([blocks, threads,
 * registers]), the reduce loops fused and split in 2, the thread parts on
 * threadIdx.y and threadIdx.x (two axes, so that the shared stages'
 * fetches can use the drawn extents as they are), the unroll depth drawn
 * from {0, 16, 64} as the "auto_unroll_max_step" annotation */
static void write_tiled_sampled(const Nest *n, bool shared, MlcStrBuf *sb) {
  int s = n->spatial;
  mlc_sb_printf(sb, "b = sch.get_block(\"%s\")\nl = sch.get_loops(b)\n", n->b->name);
  mlc_sb_puts(sb, "acc = sch.cache_write(b, 0, \"local\")\n");
  mlc_sb_printf(sb, "ti = sch.sample_perfect_tile(l[%d], n=3, max_innermost_factor=8)\n"
                    "i0, i1, i2 = sch.split(l[%d], ti)\n", s - 2, s - 2);
  mlc_sb_printf(sb, "tj = sch.sample_perfect_tile(l[%d], n=3, max_innermost_factor=8)\n"
                    "j0, j1, j2 = sch.split(l[%d], tj)\n", s - 1, s - 1);
  mlc_sb_printf(sb, "k = sch.fuse(*l[%d:])\nk0, k1 = sch.split(k, sch.sample_perfect_tile(k, n=2, max_innermost_factor=16))\n", s);
  mlc_sb_puts(sb, "sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2)\nsch.reverse_compute_at(acc, j1)\n");
  if (s > 2) mlc_sb_printf(sb, "sch.bind(sch.fuse(*l[:%d]), \"blockIdx.z\")\n", s - 2);
  mlc_sb_puts(sb, "sch.bind(i0, \"blockIdx.y\")\nsch.bind(j0, \"blockIdx.x\")\n"
                  "sch.bind(i1, \"threadIdx.y\")\nsch.bind(j1, \"threadIdx.x\")\n");
  int depth = (s > 2) + 5;
  for (int r = 0, staged = 0; shared && r < n->b->n_reads && staged < 4; r++) {
    const MlcBufferRegion *rg = &n->b->reads[r];
    bool written = false;
    for (int w = 0; w < n->b->n_writes; w++) written |= n->b->writes[w].buf == rg->buf;
    if (written || !read_by_reduction(n, rg)) continue;
    mlc_sb_printf(sb, "st = sch.cache_read(b, %d, \"shared\")\nsch.compute_at(st, k0)\n", r);
    mlc_sb_printf(sb, "_, ty, tx = sch.split(sch.fuse(*sch.get_loops(st)[%d:]), [None, ti[1], tj[1]])\n", depth);
    mlc_sb_puts(sb, "sch.bind(ty, \"threadIdx.y\")\nsch.bind(tx, \"threadIdx.x\")\n");
    staged++;
  }
  mlc_sb_puts(sb, "sch.decompose_reduction(b, k0)\n"
                  "u = sch.sample_categorical(candidates=[0, 16, 64], probs=[0.34, 0.33, 0.33])\n"
                  "sch.annotate(b, \"auto_unroll_max_step\", u)\n");
}

static void write_form(const Nest *n, Form f, int threads, MlcStrBuf *sb) {
  switch (f) {
  case FORM_TILED_SHARED: write_tiled(n, true, sb); return;
  case FORM_TILED: write_tiled(n, false, sb); return;
  case FORM_CROSS: write_cross(n, threads, sb); return;
  case FORM_SIMPLE: write_simple(n, threads, sb); return;
  default: return;
  }
}

/* ---- the function ----------------------------------------------------------------------- */

/* sampled: the tiled forms with their sizes drawn */
static void write_script(const Nest *nests, const Form *forms, int n, int threads, bool sampled, MlcStrBuf *sb) {
  sb->len = 0;
  for (int i = 0; i < n; i++) {
    if (sampled && (forms[i] == FORM_TILED_SHARED || forms[i] == FORM_TILED))
      write_tiled_sampled(&nests[i], forms[i] == FORM_TILED_SHARED, sb);
    else write_form(&nests[i], forms[i], threads, sb);
  }
}

/* whether the script schedules the function and the check accepts it */
static bool try_script(MlcSchedule *s, MlcStrBuf *script, MlcSchAccept accept, void *user) {
  MlcCtx *ctx = mlc_sch_ctx(s);
  const MlcPrimFunc *f = mlc_sch_func(s);
  MlcSchedule *t = mlc_sch_new(ctx, mlc_sch_module(s), f->name, 0);
  bool ok = t && mlc_sch_run_script(t, "<default GPU schedule>", mlc_sb_cstr(script), script->len) &&
            accept(ctx, mlc_sch_func(t), user);
  if (t) mlc_sch_free(t);
  mlc_clear_error(ctx);
  return ok;
}

static const char *const form_names[FORM_COUNT] = {
    [FORM_TILED_SHARED] = "tiled with shared memory", [FORM_TILED] = "tiled", [FORM_CROSS] = "cross-thread",
    [FORM_SIMPLE] = "simple", [FORM_KEEP] = "bound by hand"};

/* the forms used, as "default GPU schedule (tiled with shared memory,
 * simple)", into *summary when not NULL */
static void summarize(MlcCtx *ctx, const Form *forms, int n, const char **summary) {
  if (!summary) return;
  MlcStrBuf sb = {0};
  mlc_sb_puts(&sb, "default GPU schedule (");
  bool first = true;
  for (int f = 0; f < FORM_COUNT; f++) {
    bool used = false;
    for (int i = 0; i < n; i++) used |= forms[i] == (Form)f;
    if (!used) continue;
    mlc_sb_printf(&sb, "%s%s", first ? "" : ", ", form_names[f]);
    first = false;
  }
  mlc_sb_puts(&sb, ")");
  *summary = mlc_intern(ctx, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
}

static bool apply(MlcSchedule *s, int threads, MlcSchAccept accept, void *user, bool sampled,
                  const char **summary) {
  const MlcPrimFunc *f = mlc_sch_func(s);
  const MlcStmt *body = f->body;
  if (body && body->kind == MLC_STMT_BLOCK_REALIZE) body = body->realize.block->body;
  while (body && body->kind == MLC_STMT_LET) body = body->let.body;
  if (!body) return true;
  int n = body->kind == MLC_STMT_SEQ ? body->seq.n : 1;
  Nest *nests = mlc_arena_array(&mlc_sch_ctx(s)->arena, (size_t)n, sizeof *nests);
  Form *forms = mlc_arena_array(&mlc_sch_ctx(s)->arena, (size_t)n, sizeof *forms);
  for (int i = 0; i < n; i++) {
    const MlcStmt *nest = body->kind == MLC_STMT_SEQ ? body->seq.items[i] : body;
    if (!read_nest(nest, &nests[i]))
      return mlc_error(mlc_sch_ctx(s), (MlcLoc){0}, "%s: the default GPU schedule takes loop nests that end in one "
                       "block each; statement %d of the function is not one (schedule it by hand)", f->name, i + 1);
    forms[i] = nests[i].kept ? FORM_KEEP : FORM_SIMPLE;
  }
  MlcStrBuf script = {0};
  /* each nest its best form that the check accepts, the later ones simple */
  for (int i = 0; accept && i < n; i++) {
    if (nests[i].kept) continue;
    for (Form c = FORM_TILED_SHARED; c < FORM_SIMPLE; c++) {
      if (!form_applies(&nests[i], c, threads)) continue;
      forms[i] = c;
      write_script(nests, forms, n, threads, false, &script);
      if (try_script(s, &script, accept, user)) break;
      forms[i] = FORM_SIMPLE;
    }
  }
  summarize(mlc_sch_ctx(s), forms, n, summary);
  write_script(nests, forms, n, threads, sampled, &script);
  bool ok = mlc_sch_run_script(s, mlc_internf(mlc_sch_ctx(s), "<%s of %s>", sampled ? "GPU design space" :
                               "default GPU schedule", f->name), mlc_sb_cstr(&script), script.len);
  mlc_vec_free(&script);
  return ok;
}

bool mlc_sch_apply_default_gpu(MlcSchedule *s, int threads, MlcSchAccept accept, void *user) {
  return apply(s, threads, accept, user, false, NULL);
}

bool mlc_sch_gpu_space(MlcSchedule *s, int threads, MlcSchAccept accept, void *user) {
  return apply(s, threads, accept, user, true, NULL);
}

/* m with function i carrying schedule = summary (what --explain shows) */
static const MlcModule *marked(MlcCtx *ctx, const MlcModule *m, int i, const char *summary) {
  const MlcPrimFunc *f = m->funcs[i].prim;
  MlcPrimFunc *g = mlc_arena_dup(&ctx->arena, f, sizeof *f);
  MlcAttr *a = mlc_arena_array(&ctx->arena, (size_t)f->attrs.n + 1, sizeof *a);
  if (f->attrs.n) memcpy(a, f->attrs.items, sizeof *a * (size_t)f->attrs.n);
  a[f->attrs.n] = (MlcAttr){mlc_intern(ctx, "schedule"), {.kind = MLC_ATTR_STR, .s = summary}};
  g->attrs = (MlcAttrs){a, f->attrs.n + 1};
  MlcFunc *funcs = mlc_arena_dup(&ctx->arena, m->funcs, sizeof *funcs * (size_t)m->n_funcs);
  funcs[i].prim = g;
  return mlc_module_new(ctx, m->name, funcs, m->n_funcs, m->attrs);
}

MlcModule *mlc_sch_default_gpu_module(MlcCtx *ctx, const MlcModule *m, int threads, MlcSchAccept accept,
                                      void *user) {
  const MlcModule *cur = m;
  for (int i = 0; m && i < m->n_funcs; i++) {
    if (m->funcs[i].kind != MLC_FUNC_PRIM) continue;
    MlcSchedule *s = mlc_sch_new(ctx, cur, m->funcs[i].name, 0);
    if (!s) return NULL;
    const char *summary = NULL;
    bool ok = apply(s, threads, accept, user, false, &summary);
    const MlcModule *next = mlc_sch_module(s);
    mlc_sch_free(s);
    if (!ok) return NULL;
    cur = next != cur ? marked(ctx, next, i, summary) : next;
  }
  return (MlcModule *)cur;
}
