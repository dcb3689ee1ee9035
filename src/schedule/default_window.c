/* default_window.c - default schedules for blocks that slide a small window
 * over the planes of an NCHW tensor: pooling (max, sum/average) and
 * depthwise or grouped convolutions.
 *
 * Neither fits the rules of default_rules.c well.  A pooling block is a
 * reduction with nothing to multiply, and a depthwise conv is a contraction
 * whose operands both follow the channel, so there is no operand to
 * broadcast over the channels and no reuse for a register tile across
 * them; what both have is a plane (one channel of one image) that the
 * window visits row by row.  So the rules here schedule per plane:
 *   - the plane loops (all spatial loops above the output's last two axes)
 *     are fused and run in parallel;
 *   - the padding block that feeds the window (legalization pads first,
 *     then reads the padded copy) is computed per plane under that loop
 *     (compute_at), so the padded plane is written and read while it sits
 *     in the cache, instead of a whole padded tensor in a pass of its own;
 *   - the output's last axis (the row) is the vector axis when the lanes
 *     divide it: a window read with a stride is a gather of its lanes in C,
 *     the rest stays in vector form; otherwise a row of scalars;
 *   - the window's reduce loops are unrolled, so each weight (a scalar
 *     broadcast) and each row offset is a constant of the unrolled code;
 *   - a depthwise conv accumulates a tile of rows x row vectors in a
 *     "local" cache (registers), written back after the window.
 * The rules are written as schedule scripts and run through
 * mlc_sch_run_script, so they print, trace and replay like any schedule; a
 * script that a primitive refuses is undone as a whole (the caller's rule
 * loop then tries the next rule). */
#include "schedule/default.h"
#include "schedule/state.h"

#include <stdio.h>
#include <string.h>

enum {
  MAX_LOOPS = 12,
  MAX_UNROLLED_WINDOW = 64, /* window elements unrolled at most (a 7x7 window is 49) */
  MIN_LANES = 4,
  MAX_ROWS = 4,             /* output rows of a depthwise tile */
  MAX_SCALAR_COLS = 8,      /* a row of scalars when no vector width divides it */
  MIN_PARALLEL_PLANES = 2,
};

/* ---- looking at the block ------------------------------------------------------- */


typedef struct Loads { const MlcBuffer *skip; const MlcExpr *found; int n; bool guarded; } Loads;

static bool loads_visit(MlcVisitor *v, const MlcExpr *e) {
  Loads *l = v->user;
  if (e->kind == MLC_EXPR_LOAD && e->load.buf != l->skip) l->found = e, l->n++;
  if (e->kind == MLC_EXPR_SELECT || (e->kind == MLC_EXPR_CALL && e->call.op == MLC_INTRIN_IF_THEN_ELSE))
    l->guarded = true;
  return true;
}

/* the loads of e other than of `skip`: how many, the last one, and whether
 * a guard (select, if_then_else) is in e */
static Loads loads_of(const MlcExpr *e, const MlcBuffer *skip) {
  Loads l = {skip, NULL, 0, false};
  MlcVisitor vis = {.user = &l, .expr = loads_visit};
  mlc_visit_expr(&vis, e);
  return l;
}

static const MlcExpr *strip_cast(const MlcExpr *e) {
  while (e && e->kind == MLC_EXPR_CAST) e = e->operand;
  return e;
}

/* A block in a perfect nest of its own, spatial loops first, the output's
 * last two indices the iter vars of the last two spatial loops. */
typedef struct Win {
  const MlcBlock *b;
  const MlcStmt *store;
  int n, n_spatial, n_plane; /* loops; spatial ones (first); plane loops (above row and col) */
  int64_t ext[MAX_LOOPS];
  const MlcExpr *iter[MAX_LOOPS]; /* the iter var each loop binds */
  const MlcExpr *other;           /* the update's operand besides the accumulator */
} Win;

static bool window_nest(MlcSchedule *s, const char *block, Win *w) {
  memset(w, 0, sizeof *w);
  int n;
  const MlcStmt *r = mlc_sch_default_reduce_nest(s, block, MAX_LOOPS, w->ext, w->iter, &n, &w->n_spatial);
  if (!r || n < 4) return false;
  const MlcBlock *b = r->realize.block;
  w->b = b, w->store = b->body, w->n = n;
  const MlcStmt *st = w->store;
  if (w->n_spatial < 3 || w->n_spatial == n || st->store.n < 2 ||
      st->store.idx[st->store.n - 1] != w->iter[w->n_spatial - 1] ||
      st->store.idx[st->store.n - 2] != w->iter[w->n_spatial - 2])
    return false;
  w->n_plane = w->n_spatial - 2;
  /* Y = op(Y, other), either order */
  const MlcExpr *v = st->store.value;
  if (v->kind != MLC_EXPR_BINARY) return false;
  const MlcExpr *a = strip_cast(v->bin.a), *c = strip_cast(v->bin.b);
  if (c->kind == MLC_EXPR_LOAD && c->load.buf == st->store.buf) {
    const MlcExpr *x = a;
    a = c, c = x;
  }
  if (a->kind != MLC_EXPR_LOAD || a->load.buf != st->store.buf) return false;
  w->other = c;
  return true;
}

/* the block (a name) that writes buf, when it is a complete block of the
 * function (a padding copy); NULL otherwise */
static const char *producer_in(const MlcStmt *s, const MlcBuffer *buf) {
  if (!s) return NULL;
  switch (s->kind) {
  case MLC_STMT_FOR: return producer_in(s->loop.body, buf);
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++) {
      const char *n = producer_in(s->seq.items[i], buf);
      if (n) return n;
    }
    return NULL;
  case MLC_STMT_LET: return producer_in(s->let.body, buf);
  case MLC_STMT_ALLOCATE: return producer_in(s->alloc.body, buf);
  case MLC_STMT_IF: {
    const char *n = producer_in(s->if_.then_s, buf);
    return n ? n : producer_in(s->if_.else_s, buf);
  }
  case MLC_STMT_BLOCK_REALIZE: {
    const MlcBlock *b = s->realize.block;
    if (b->n_writes == 1 && b->writes[0].buf == buf && sch_is_complete_block(b) && b->body &&
        b->body->kind == MLC_STMT_STORE)
      return b->name;
    return producer_in(b->body, buf);
  }
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return NULL;
  }
  return NULL;
}

typedef struct Readers { const MlcBuffer *buf; const char *name; int n; } Readers;

static void readers_in(const MlcStmt *s, Readers *r) {
  if (!s) return;
  switch (s->kind) {
  case MLC_STMT_FOR: readers_in(s->loop.body, r); return;
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++) readers_in(s->seq.items[i], r);
    return;
  case MLC_STMT_LET: readers_in(s->let.body, r); return;
  case MLC_STMT_ALLOCATE: readers_in(s->alloc.body, r); return;
  case MLC_STMT_IF: readers_in(s->if_.then_s, r), readers_in(s->if_.else_s, r); return;
  case MLC_STMT_BLOCK_REALIZE: {
    const MlcBlock *b = s->realize.block;
    for (int k = 0; k < b->n_reads; k++)
      if (b->reads[k].buf == r->buf) {
        r->n++;
        r->name = sch_is_complete_block(b) ? b->name : NULL;
        break;
      }
    readers_in(b->body, r);
    return;
  }
  case MLC_STMT_STORE:
  case MLC_STMT_EVALUATE: return;
  }
}

/* the one block that reads buf, when it is a complete block (an epilogue:
 * bias, clip), else NULL */
static const char *epilogue_block(MlcSchedule *s, const MlcBuffer *buf) {
  Readers r = {buf, NULL, 0};
  readers_in(sch_func(s)->body, &r);
  return r.n == 1 ? r.name : NULL;
}

/* the padding block feeding buf: an intermediate of the function written
 * by a complete block */
static const char *pad_block(MlcSchedule *s, const MlcBuffer *buf) {
  const MlcPrimFunc *f = sch_func(s);
  for (int k = 0; k < f->n_params; k++)
    if (f->params[k].buf == buf) return NULL;
  return producer_in(f->body, buf);
}

/* lanes of the target that divide ext (full, half or a quarter width), 0 */
static int lanes_for(const MlcSchTarget *t, MlcDType dt, int64_t ext) {
  if (dt.lanes != 1 || dt.code != MLC_TC_FLOAT || dt.bits != 32) return 0;
  for (int l = t->vector_bits / dt.bits; l >= MIN_LANES; l /= 2)
    if (ext % l == 0) return l;
  return 0;
}

static int64_t divisor_at_most(int64_t n, int64_t cap) {
  for (int64_t d = cap; d > 1; d--)
    if (n % d == 0) return d;
  return 1;
}

static int64_t window_size(const Win *w) {
  int64_t size = 1;
  for (int i = w->n_spatial; i < w->n; i++) size *= w->ext[i];
  return size;
}

/* ---- running a rule's script ---------------------------------------------------- */

/* Run the script as one transaction: when a primitive refuses, the
 * schedule, its handles and its trace go back to where they were and the
 * error is dropped. */
static bool run_rule(MlcSchedule *s, const char *rule, const char *block, MlcStrBuf *sb) {
  MlcModule *mod = s->mod;
  size_t rvs = s->rvs.len, trace = s->trace.len;
  const char *file = mlc_internf(s->ctx, "<default %s rule of %s>", rule, block);
  bool ok = mlc_sch_run_script(s, file, mlc_sb_cstr(sb), sb->len);
  mlc_vec_free(sb);
  if (ok) return true;
  s->mod = mod, s->rvs.len = rvs, s->trace.len = trace;
  mlc_clear_error(s->ctx);
  return false;
}

/* "l[a], l[a+1], ..., l[b-1]" */
static void loop_list(MlcStrBuf *sb, int a, int b) {
  for (int i = a; i < b; i++) mlc_sb_printf(sb, "%sl[%d]", i > a ? ", " : "", i);
}

/* the plane loops fused into p, with the padding computed under it */
static void plane_prologue(MlcStrBuf *sb, const char *block, const Win *w, const char *pad) {
  mlc_sb_printf(sb, "b = sch.get_block(\"%s\")\nl = sch.get_loops(b)\n", block);
  if (w->n_plane > 1) {
    mlc_sb_puts(sb, "p = sch.fuse(");
    loop_list(sb, 0, w->n_plane);
    mlc_sb_puts(sb, ")\n");
  } else {
    mlc_sb_puts(sb, "p = l[0]\n");
  }
  if (pad) mlc_sb_printf(sb, "sch.compute_at(sch.get_block(\"%s\"), p)\n", pad);
}

static void plane_parallel(MlcStrBuf *sb, const MlcSchTarget *t, const Win *w) {
  int64_t planes = 1;
  for (int i = 0; i < w->n_plane; i++) planes *= w->ext[i];
  if (t->threads >= 2 && planes >= MIN_PARALLEL_PLANES) mlc_sb_puts(sb, "sch.parallel(p)\n");
}

static void unroll_window(MlcStrBuf *sb, const Win *w) {
  if (window_size(w) > MAX_UNROLLED_WINDOW) return;
  for (int i = w->n_spatial; i < w->n; i++)
    if (w->ext[i] > 1) mlc_sb_printf(sb, "sch.unroll(l[%d])\n", i);
}

/* ---- pooling ----------------------------------------------------------------------- */

/* Y = max/min(Y, X[...]) or Y = Y + X[...]: one load, of a window (its
 * last index follows the output's last axis and a reduce loop). */
static bool is_pooling(const Win *w, const MlcExpr **x) {
  MlcBinOp op = w->store->store.value->bin.op;
  if (op != MLC_BIN_MAX && op != MLC_BIN_MIN && op != MLC_BIN_ADD) return false;
  Loads l = loads_of(w->other, w->store->store.buf);
  if (l.n != 1 || l.guarded || l.found->load.n < 2) return false;
  const MlcExpr *last = l.found->load.idx[l.found->load.n - 1];
  bool reduce = false;
  for (int i = w->n_spatial; i < w->n; i++) reduce |= mlc_sch_default_uses(last, w->iter[i]);
  *x = l.found;
  return reduce && mlc_sch_default_uses(last, w->iter[w->n_spatial - 1]);
}

/* Per plane: the padding, then rows of the output; a row split to the
 * lanes when they divide it, the window's loops between the vector part
 * and the rest of the row, the init decomposed out and vectorized too. */
bool mlc_sch_default_pooling(MlcSchedule *s, const MlcSchTarget *t, const char *block) {
  Win w;
  const MlcExpr *x;
  if (!window_nest(s, block, &w) || !is_pooling(&w, &x)) return false;
  const char *pad = pad_block(s, x->load.buf);
  int col = w.n_spatial - 1, first_reduce = w.n_spatial;
  int L = lanes_for(t, w.store->store.buf->dtype, w.ext[col]);
  MlcStrBuf sb = {0};
  plane_prologue(&sb, block, &w, pad);
  if (L) {
    mlc_sb_printf(&sb, "wo, wi = sch.split(l[%d], factors=[None, %d])\nsch.reorder(l[%d], wo, ", col, L, col - 1);
    loop_list(&sb, first_reduce, w.n);
    mlc_sb_puts(&sb, ", wi)\n");
    mlc_sb_printf(&sb, "i = sch.decompose_reduction(b, l[%d])\nsch.vectorize(wi)\n", first_reduce);
    /* the init's loops: p, the row, wo, its lanes */
    mlc_sb_puts(&sb, "li = sch.get_loops(i)\nsch.vectorize(li[3])\n");
  }
  unroll_window(&sb, &w);
  plane_parallel(&sb, t, &w);
  return run_rule(s, "pooling", block, &sb);
}

/* ---- depthwise and grouped convolutions --------------------------------------------- */

/* Y = Y + a * b where a plane axis (the channel) indexes both a and b, and
 * the output's last axis indexes one of them (the input) only. */
static bool is_depthwise(const Win *w, const MlcExpr **input) {
  const MlcExpr *prod = w->other;
  if (w->store->store.value->bin.op != MLC_BIN_ADD || prod->kind != MLC_EXPR_BINARY || prod->bin.op != MLC_BIN_MUL)
    return false;
  const MlcExpr *a = strip_cast(prod->bin.a), *b = strip_cast(prod->bin.b);
  if (a->kind != MLC_EXPR_LOAD || b->kind != MLC_EXPR_LOAD) return false;
  const MlcExpr *col = w->iter[w->n_spatial - 1];
  if (mlc_sch_default_uses(a, col) == mlc_sch_default_uses(b, col)) return false;
  if (mlc_sch_default_uses(b, col)) {
    const MlcExpr *tmp = a;
    a = b, b = tmp;
  }
  bool shared = false, window = false;
  for (int i = 0; i < w->n_plane; i++)
    shared |= w->ext[i] > 1 && mlc_sch_default_uses(a, w->iter[i]) && mlc_sch_default_uses(b, w->iter[i]);
  /* the input's row slides with a reduce loop (a batched matmul's does not) */
  const MlcExpr *last = a->load.n ? a->load.idx[a->load.n - 1] : NULL;
  for (int i = w->n_spatial; i < w->n; i++) window |= mlc_sch_default_uses(last, w->iter[i]);
  *input = a;
  return shared && window && !mlc_sch_default_uses(b, w->iter[w->n_spatial - 2]);
}

/* Does the epilogue, moved under the plane loop, sit in three loops (the
 * plane, its rows, a row) with no predicate, the last one walking the
 * output's last index with an extent the lanes divide?  Then that row
 * splits into vectors without a guard. */
static bool row_loop_divides(MlcSchedule *s, const char *block, int lanes) {
  const MlcStmt *loops[MAX_LOOPS];
  int n;
  const MlcStmt *r = mlc_sch_default_block_loops(s, block, loops, MAX_LOOPS, &n);
  if (!r) return false;
  int64_t e, c;
  const MlcStmt *st = r->realize.block->body;
  if (n != 3 || (r->realize.pred && !(mlc_e_is_const_int(r->realize.pred, &c) && c)) || !st ||
      st->kind != MLC_STMT_STORE || st->store.n == 0 || !mlc_e_is_const_int(loops[2]->loop.extent, &e) ||
      e % lanes)
    return false;
  const MlcExpr *last = st->store.idx[st->store.n - 1];
  for (int k = 0; k < r->realize.n; k++)
    if (r->realize.block->iters[k].var == last) return r->realize.values[k] == loops[2]->loop.var;
  return false;
}

/* ---- depthwise convolutions over channel vectors ---------------------------------- */

/* "lambda a0, ..: (a0, .., a<d> // lanes, .., a<d> % lanes)" for rank n */
static void block_map(MlcStrBuf *sb, int n, int d, int lanes) {
  mlc_sb_puts(sb, "lambda ");
  for (int k = 0; k < n; k++) mlc_sb_printf(sb, "%sa%d", k ? ", " : "", k);
  mlc_sb_puts(sb, ": (");
  for (int k = 0; k < n; k++) {
    if (k == d) mlc_sb_printf(sb, "a%d // %d, ", k, lanes);
    else mlc_sb_printf(sb, "a%d, ", k);
  }
  mlc_sb_printf(sb, "a%d %% %d)", d, lanes);
}

/* A row no vector width divides (MobileNet's 14- and 7-wide depthwise
 * convs) is a row of scalars per plane; the channels are many and a
 * multiple of the lanes.  So: the weight (a constant) and the padded input
 * (an intermediate) laid out with the channel blocked and last (NCHW ->
 * N C/v H W v), a vector of channels at one pixel then one contiguous load
 * of each; the tile is a row of output pixels x one vector of channels,
 * accumulated in a "local" tile with the channel last (registers), written
 * back to the NCHW output element by element with its epilogue; the window
 * unrolled; the channel blocks in parallel. */
static bool depthwise_channels(MlcSchedule *s, const MlcSchTarget *t, const char *block, const Win *w,
                               const MlcExpr *x, const char *pad) {
  const MlcExpr *prod = w->other, *a = strip_cast(prod->bin.a), *wt = strip_cast(prod->bin.b);
  if (wt == x) wt = a;
  int chan = -1; /* the plane loop of the channel: the one the weight's first index is */
  for (int i = 0; i < w->n_plane; i++)
    if (wt->load.n == 4 && wt->load.idx[0] == w->iter[i]) chan = i;
  if (chan < 0 || !pad || !mlc_sch_default_layout_free(s, wt->load.buf) || x->load.n != 4 ||
      !mlc_sch_default_uses(x->load.idx[1], w->iter[chan]) || w->n != w->n_spatial + 3)
    return false;
  int L = lanes_for(t, w->store->store.buf->dtype, w->ext[chan]);
  int row = w->n_spatial - 2, col = w->n_spatial - 1;
  int64_t cols = divisor_at_most(w->ext[col], t->vector_regs - 4 < 14 ? t->vector_regs - 4 : 14);
  if (!L || cols < 4 || window_size(w) > MAX_UNROLLED_WINDOW) return false;
  int first_reduce = w->n_spatial;
  MlcStrBuf sb = {0};
  mlc_sb_printf(&sb, "b = sch.get_block(\"%s\")\n", block);
  mlc_sb_printf(&sb, "sch.transform_layout(b, \"%s\", ", wt->load.buf->name);
  block_map(&sb, 4, 0, L);
  mlc_sb_printf(&sb, ")\nsch.transform_layout(b, \"%s\", ", x->load.buf->name);
  block_map(&sb, 4, 1, L);
  mlc_sb_puts(&sb, ")\nl = sch.get_loops(b)\n");
  mlc_sb_printf(&sb, "co, ci = sch.split(l[%d], factors=[None, %d])\n", chan, L);
  mlc_sb_printf(&sb, "wo, wi = sch.split(l[%d], factors=[None, %lld])\n", col, (long long)cols);
  mlc_sb_puts(&sb, "sch.reorder(");
  for (int i = 0; i < w->n_plane; i++) mlc_sb_printf(&sb, "%s, ", i == chan ? "co" : mlc_internf(s->ctx, "l[%d]", i));
  mlc_sb_printf(&sb, "l[%d], wo, ", row);
  loop_list(&sb, first_reduce, w->n);
  mlc_sb_puts(&sb, ", wi, ci)\n");
  mlc_sb_puts(&sb, "st = sch.cache_write(b, 0, \"local\")\nsch.reverse_compute_at(st, wo)\n");
  /* the local tile channel-last: a permutation, which lowering shrinks */
  mlc_sb_printf(&sb, "sch.transform_layout(b, (\"write\", 0), lambda a0, a1, a2, a3: (a0, a2, a3, a1))\n");
  mlc_sb_printf(&sb, "i = sch.decompose_reduction(b, l[%d])\n", first_reduce);
  mlc_sb_puts(&sb, "sch.vectorize(ci)\nsch.unroll(wi)\n");
  /* the init's loops: the plane loops, the row, wo, its pixels, its channels */
  mlc_sb_printf(&sb, "li = sch.get_loops(i)\nsch.unroll(li[%d])\nsch.vectorize(li[%d])\n", w->n_plane + 2, w->n_plane + 3);
  unroll_window(&sb, w);
  /* the channel blocks in parallel, not fused with the batch: lowering
   * shrinks the local tile into a loop whose var indexes it plainly */
  if (t->threads >= 2 && w->ext[chan] / L >= 2) mlc_sb_puts(&sb, "sch.parallel(co)\n");
  if (!run_rule(s, "depthwise channels", block, &sb)) return false;
  const char *epi = epilogue_block(s, w->store->store.buf);
  const char *back = producer_in(sch_func(s)->body, w->store->store.buf);
  if (epi && back) {
    mlc_sb_printf(&sb, "b = sch.get_block(\"%s\")\nl = sch.get_loops(b)\n", back);
    mlc_sb_printf(&sb, "e = sch.get_block(\"%s\")\nsch.reverse_compute_at(e, l[%d])\n", epi, w->n_plane + 1);
    run_rule(s, "depthwise channels epilogue", epi, &sb);
  }
  return true;
}

/* Per plane: the padding, then tiles of rows x a row's vectors (or
 * scalars) accumulated in a local cache over the unrolled window. */
bool mlc_sch_default_depthwise(MlcSchedule *s, const MlcSchTarget *t, const char *block) {
  Win w;
  const MlcExpr *x;
  if (!window_nest(s, block, &w) || !is_depthwise(&w, &x)) return false;
  const char *pad = pad_block(s, x->load.buf);
  int row = w.n_spatial - 2, col = w.n_spatial - 1, first_reduce = w.n_spatial;
  int L = lanes_for(t, w.store->store.buf->dtype, w.ext[col]);
  if (!L && depthwise_channels(s, t, block, &w, x, pad)) return true;
  int64_t cols = L ? 1 : divisor_at_most(w.ext[col], MAX_SCALAR_COLS);
  int64_t max_rows = L ? MAX_ROWS : (t->vector_regs - 4) / cols;
  int64_t rows = divisor_at_most(w.ext[row], max_rows < MAX_ROWS ? max_rows : MAX_ROWS);
  MlcStrBuf sb = {0};
  plane_prologue(&sb, block, &w, pad);
  mlc_sb_printf(&sb, "ho, hi = sch.split(l[%d], factors=[None, %lld])\n", row, (long long)rows);
  mlc_sb_printf(&sb, "wo, wi = sch.split(l[%d], factors=[None, %lld])\n", col, (long long)(L ? L : cols));
  mlc_sb_puts(&sb, "sch.reorder(ho, wo, ");
  loop_list(&sb, first_reduce, w.n);
  mlc_sb_puts(&sb, ", hi, wi)\n");
  mlc_sb_puts(&sb, "st = sch.cache_write(b, 0, \"local\")\nsch.reverse_compute_at(st, wo)\n");
  mlc_sb_printf(&sb, "i = sch.decompose_reduction(b, l[%d])\n", first_reduce);
  mlc_sb_printf(&sb, "sch.%s(wi)\nsch.unroll(hi)\n", L ? "vectorize" : "unroll");
  /* the init's loops: p, ho, wo, its rows, its row part */
  mlc_sb_printf(&sb, "li = sch.get_loops(i)\nsch.unroll(li[3])\nsch.%s(li[4])\n", L ? "vectorize" : "unroll");
  unroll_window(&sb, &w);
  plane_parallel(&sb, t, &w);
  if (!run_rule(s, "depthwise", block, &sb)) return false;
  /* the epilogue per plane, while the plane is in the cache, its rows
   * vectorized (its own transaction: without it, it is a pass of its own) */
  const char *epi = epilogue_block(s, w.store->store.buf);
  const char *back = producer_in(sch_func(s)->body, w.store->store.buf); /* the tile's write-back */
  if (epi && back) {
    mlc_sb_printf(&sb, "b = sch.get_block(\"%s\")\nl = sch.get_loops(b)\n", back);
    mlc_sb_printf(&sb, "e = sch.get_block(\"%s\")\nsch.reverse_compute_at(e, l[0])\n", epi);
    if (run_rule(s, "depthwise epilogue", epi, &sb) && L && row_loop_divides(s, epi, L)) {
      mlc_sb_printf(&sb, "e = sch.get_block(\"%s\")\nle = sch.get_loops(e)\n", epi);
      mlc_sb_printf(&sb, "leo, lei = sch.split(le[2], factors=[None, %d])\nsch.vectorize(lei)\n", L);
      run_rule(s, "depthwise epilogue rows", epi, &sb);
    }
  }
  return true;
}

/* ---- for the rules of other files (default.h) ------------------------------------- */

const char *mlc_sch_default_producer(MlcSchedule *s, const MlcBuffer *buf) { return producer_in(sch_func(s)->body, buf); }

const char *mlc_sch_default_epilogue(MlcSchedule *s, const MlcBuffer *buf) { return epilogue_block(s, buf); }
