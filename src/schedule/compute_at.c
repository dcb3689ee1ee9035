/* compute_at.c - compute_at and reverse_compute_at: move a block under a
 * loop of the blocks it feeds (compute_at) or is fed by
 * (reverse_compute_at), so that in each iteration of that loop it computes
 * just the part those blocks need (or just what they produced).
 *
 * Both are one procedure with a mirror switch.  The block's old loops go;
 * new loops are built from the region analysis (region.h): the region of
 * the connecting buffers that the blocks under the loop read (or write) in
 * one iteration, the loops inside relaxed, is mapped back through the
 * block's own access to that buffer to a range per iter var.  An iter var
 * the access does not pin down (a reduce var, an index that is not a plain
 * var) keeps the range it had before: its binding over the old loops, in
 * one instance of the scope.  That is always correct: a complete block
 * computes the same values however often it runs, and a reduction restarts
 * from its init.  Ranges that may leave the old range or the iter domain
 * get a predicate.
 *
 * What keeps the result equal to the original is checked first, on the
 * dataflow of the scope: the moved block is the only writer of its
 * buffers; compute_at moves a block later, so nobody may write its inputs
 * in between and all its consumers must be under the loop; the reverse
 * moves a block earlier, so all its producers must be under the loop and
 * nobody in between may touch its outputs.  A reverse-moved block may run
 * some instances before their inputs are final, which is harmless only
 * for a complete block: its last run, after the last producer write,
 * computes the final value.  Hence reverse_compute_at wants a complete
 * block whose old instances form a box of iter ranges (so the new loops
 * run exactly those), and ranges that provably cover the old ones across
 * the iterations of the loop (otherwise the old range is used). */
#include "schedule/region.h"

typedef struct Move {
  MlcSchedule *s;
  bool reverse;
  const char *name;          /* the block's name */
  const MlcStmt *realize;    /* the block */
  const MlcBlock *block;
  const MlcStmt *loop;
  const char *loop_name;
  SchPath bpath, lpath;
  SchScope scope;
  int pos;                   /* the block's place in the scope's order */
  bool preserve_unit_loops;
  int64_t index;
} Move;

static void move_free(Move *m) {
  sch_path_free(&m->bpath);
  sch_path_free(&m->lpath);
  sch_scope_free(&m->scope);
}

/* ---- arguments ------------------------------------------------------------------ */

static bool read_args(Move *m, const MlcSchVal *args) {
  MlcSchedule *s = m->s;
  const MlcExpr *var;
  if (!sch_arg_block(s, &args[0], "block", &m->name) || !sch_arg_loop(s, &args[1], "loop", &var)) return false;
  if (args[2].kind == MLC_SV_BOOL || args[2].kind == MLC_SV_INT) m->preserve_unit_loops = args[2].i != 0;
  else if (args[2].kind != MLC_SV_NONE) return sch_error(s, "'preserve_unit_loops' must be a bool");
  m->index = -1;
  if (args[3].kind != MLC_SV_NONE && !sch_arg_int(s, &args[3], "index", &m->index)) return false;
  if (!sch_find_block(s, m->name, &m->bpath) || !sch_find_loop(s, var, &m->lpath)) return false;
  m->realize = m->bpath.nodes[m->bpath.n - 1];
  m->block = m->realize->realize.block;
  m->loop = m->lpath.nodes[m->lpath.n - 1];
  m->loop_name = var->var.name;
  return true;
}

/* ---- where the block and the loop are ------------------------------------------------ */

static bool check_placement(Move *m) {
  MlcSchedule *s = m->s;
  SchScope lscope;
  if (!sch_scope_of(&m->bpath, &m->scope)) return sch_error(s, "block '%s' is the root block", m->name);
  if (sch_stmt_contains(m->realize, m->loop))
    return sch_error(s, "loop '%s' is inside block '%s'", m->loop_name, m->name);
  if (sch_stmt_contains(m->loop, m->realize))
    return sch_error(s, "block '%s' is already under loop '%s'", m->name, m->loop_name);
  bool same = sch_scope_of(&m->lpath, &lscope) && lscope.root == m->scope.root;
  sch_scope_free(&lscope);
  if (!same) return sch_error(s, "block '%s' and loop '%s' are not in the same block scope", m->name, m->loop_name);
  m->pos = sch_scope_index(&m->scope, m->realize);
  return true;
}

static bool check_block_kind(Move *m) {
  MlcSchedule *s = m->s;
  const MlcBlock *b = m->block;
  if (!sch_block_writes_injective(b))
    return sch_error(s, "block '%s' may write one element from several instances, whose order would change",
                     m->name);
  if (sch_is_complete_block(b)) return true;
  if (m->reverse) return sch_error(s, "block '%s' is not a complete block", m->name);
  if (!sch_is_reduction_block(b))
    return sch_error(s, "block '%s' is neither a complete block nor a reduction block", m->name);
  if (!sch_affine_bindings(m->realize))
    return sch_error(s, "reduction block '%s' has bindings that are not affine in its loops", m->name);
  return true;
}

/* ---- dataflow ------------------------------------------------------------------------ */

/* does `from` write something `to` reads */
static bool feeds(const MlcBlock *from, const MlcBlock *to) {
  for (int i = 0; i < from->n_writes; i++)
    if (sch_block_reads(to, from->writes[i].buf)) return true;
  return false;
}

/* does block q connect to the moved block: a consumer for compute_at, a
 * producer for reverse_compute_at */
static bool connected(const Move *m, const MlcStmt *q) {
  return m->reverse ? feeds(q->realize.block, m->block) : feeds(m->block, q->realize.block);
}

static const char *block_name(const MlcStmt *q) { return q->realize.block->name; }

/* the moved block is the only writer of each buffer it writes */
static bool check_sole_writer(Move *m) {
  for (int w = 0; w < m->block->n_writes; w++) {
    const MlcBuffer *buf = m->block->writes[w].buf;
    if (!m->reverse && sch_is_param_buffer(sch_func(m->s), buf))
      return sch_error(m->s, "block '%s' is an output block: it writes '%s', a parameter of the function",
                       m->name, buf->name);
    for (size_t i = 0; i < m->scope.blocks.len; i++) {
      const MlcStmt *q = m->scope.blocks.data[i];
      if (q != m->realize && sch_block_writes(q->realize.block, buf))
        return sch_error(m->s, "buffer '%s' is written by block '%s' as well as by block '%s'", buf->name,
                         block_name(q), m->name);
    }
  }
  return true;
}

/* every connected block is under the loop, and there is one */
static bool check_connected_under_loop(Move *m) {
  const char *what = m->reverse ? "producer" : "consumer";
  int found = 0;
  for (size_t i = 0; i < m->scope.blocks.len; i++) {
    const MlcStmt *q = m->scope.blocks.data[i];
    bool after = (int)i > m->pos;
    if (q == m->realize || after == m->reverse || !connected(m, q)) continue;
    if (!sch_stmt_contains(m->loop, q))
      return sch_error(m->s, "%s '%s' of block '%s' is not under loop '%s'", what, block_name(q), m->name,
                       m->loop_name);
    found++;
  }
  if (!found) return sch_error(m->s, "block '%s' has no %s under loop '%s'", m->name, what, m->loop_name);
  return true;
}

static bool touches(const MlcBlock *b, const MlcBuffer *buf) {
  return sch_block_reads(b, buf) || sch_block_writes(b, buf);
}

/* compute_at moves the block later: no block between it and the end of the
 * loop may write what it reads.  reverse_compute_at moves it earlier: no
 * block from the start of the loop on may touch what it writes. */
static bool check_hazards(Move *m) {
  int first = m->pos + 1, last = m->pos + 1;
  for (int i = 0; i < (int)m->scope.blocks.len; i++) {
    if (!sch_stmt_contains(m->loop, m->scope.blocks.data[i])) continue;
    if (m->reverse && i < first) first = i;
    if (!m->reverse) last = i + 1;
  }
  if (m->reverse) last = m->pos;
  const MlcBufferRegion *regs = m->reverse ? m->block->writes : m->block->reads;
  int n = m->reverse ? m->block->n_writes : m->block->n_reads;
  for (int i = first; i < last; i++) {
    const MlcBlock *q = m->scope.blocks.data[i]->realize.block;
    for (int k = 0; k < n; k++) {
      const MlcBuffer *buf = regs[k].buf;
      if (!m->reverse && sch_block_writes(q, buf) && !sch_block_writes(m->block, buf))
        return sch_error(m->s, "block '%s' writes '%s', which block '%s' reads, after it", q->name, buf->name,
                         m->name);
      if (m->reverse && touches(q, buf))
        return sch_error(m->s, "block '%s' accesses '%s', which block '%s' writes, before it", q->name,
                         buf->name, m->name);
    }
  }
  return true;
}

static bool check_dataflow(Move *m) {
  /* the moved block is rebuilt with guards of its own iter domain only, so a
   * predicate that restricts more (e.g. the k_0 * 3 + k_1 < 8 of a
   * non-dividing split) would be lost: refuse it, in both directions */
  if (!sch_pred_in_domain(m->s->ctx, m->realize))
    return sch_error(m->s, "block '%s' has a predicate that does more than bound its iter domain", m->name);
  return check_sole_writer(m) && check_connected_under_loop(m) && check_hazards(m);
}

/* ---- where in the loop body ----------------------------------------------------------- */

static MlcStmt *const *body_items(const MlcStmt *loop, int *n) {
  MlcStmt *body = loop->loop.body;
  if (body->kind == MLC_STMT_SEQ) {
    *n = body->seq.n;
    return body->seq.items;
  }
  *n = 1;
  return &loop->loop.body;
}

static bool item_has(const Move *m, const MlcStmt *item, bool producers) {
  for (size_t i = 0; i < m->scope.blocks.len; i++) {
    const MlcStmt *q = m->scope.blocks.data[i];
    if (q == m->realize || !sch_stmt_contains(item, q)) continue;
    if (producers ? feeds(q->realize.block, m->block) : feeds(m->block, q->realize.block)) return true;
  }
  return false;
}

/* After the last item holding a producer, at or before the first holding
 * a consumer; index -1 picks the latter, -2 the former. */
static bool insertion_point(Move *m, int *at) {
  int n, last_producer = -1, first_consumer;
  MlcStmt *const *items = body_items(m->loop, &n);
  first_consumer = n;
  for (int i = 0; i < n; i++) {
    if (item_has(m, items[i], true)) last_producer = i;
    if (first_consumer == n && item_has(m, items[i], false)) first_consumer = i;
  }
  if (last_producer >= first_consumer)
    return sch_error(m->s, "producers and consumers of block '%s' interleave under loop '%s'", m->name,
                     m->loop_name);
  if (m->index == -1) *at = first_consumer;
  else if (m->index == -2) *at = last_producer + 1;
  else if (m->index > last_producer && m->index <= first_consumer) *at = (int)m->index;
  else
    return sch_error(m->s, "index %lld is not -1, -2 or in [%d, %d] for block '%s' under loop '%s'",
                     (long long)m->index, last_producer + 1, first_consumer, m->name, m->loop_name);
  return true;
}

/* ---- the ranges of the iter vars --------------------------------------------------------
 * Per iter var: `orig`, the values its binding took over the block's own
 * loops in one instance of the scope (the block's old loops, relaxed), and
 * `span`, the values it takes in one iteration of the new loop: what the
 * connected blocks need there when the block's access pins the var down,
 * `orig` otherwise.  The new loops run over `span`, guarded to stay in
 * `orig` and in the iter domain. */

enum { MAX_ITERS = 64, MAX_DIMS = 64 };

typedef struct IterRange {
  SchSpan span;
  SchSpan orig;
  bool pinned, whole; /* whole: some access cannot pin it down after all */
  int64_t dom_min, dom_ext;
} IterRange;

/* The block's own access to buf, dimension d, as `iter var + c` with
 * extent 1: the iter var's index, -1 otherwise. */
static int plain_iter(const MlcBlock *b, const MlcRange *rg, int64_t *c) {
  int64_t ext;
  SchLinear l;
  if (!mlc_e_is_const_int(rg->extent, &ext) || ext != 1 || !sch_linear(rg->min, &l)) return -1;
  int found = -1;
  if (l.terms.len == 1 && l.terms.data[0].coef == 1)
    for (int k = 0; k < b->n_iters; k++)
      if (b->iters[k].var == l.terms.data[0].atom) found = k;
  *c = l.k;
  sch_linear_free(&l);
  return found;
}

/* the region of buf that the blocks connected through it need (compute_at:
 * read, reverse: write) in one iteration of the loop */
static void needed_region(Move *m, SchRelax *r, const MlcBuffer *buf, SchSpan *need, bool *whole) {
  for (int d = 0; d < buf->ndim; d++) need[d] = (SchSpan){0}, whole[d] = false;
  for (size_t i = 0; i < m->scope.blocks.len; i++) {
    const MlcStmt *q = m->scope.blocks.data[i];
    if (q != m->realize && sch_stmt_contains(m->loop, q)) sch_block_region(r, q, buf, m->reverse, need, whole);
  }
}

/* narrow the iter ranges by the block's own access to buf */
static void pin_iters(Move *m, SchRelax *r, const MlcBufferRegion *own, IterRange *it) {
  SchSpan need[MAX_DIMS];
  bool whole[MAX_DIMS], touched = false;
  needed_region(m, r, own->buf, need, whole);
  for (int d = 0; d < own->buf->ndim; d++) touched |= whole[d] || need[d].min;
  /* reverse: a buffer no block under the loop writes (a bias param) ties
   * the block to nothing there; it must not widen the iters it indexes */
  if (m->reverse && !touched) return;
  for (int d = 0; d < own->buf->ndim; d++) {
    int64_t c;
    int k = plain_iter(m->block, &own->ranges[d], &c);
    if (k < 0) continue;
    if (whole[d] || !need[d].min || c == INT64_MIN) {
      it[k].whole = true;
      continue;
    }
    MlcExpr *min = need[d].min;
    MlcCtx *ctx = m->s->ctx;
    if (c != 0) min = mlc_arith_simplify(&r->az, mlc_e_bin(ctx, MLC_BIN_SUB, min, mlc_e_int(ctx, min->dtype, c)));
    if (!sch_span_union(r, &it[k].span, (SchSpan){min, need[d].extent})) it[k].whole = true;
    it[k].pinned = true;
  }
}

/* the loops of the scope from its block down to the loop: what varies
 * within one instance of the scope, outside the new loops */
static void scope_loops(const Move *m, MlcMap *out) {
  int first = 0;
  for (int i = 0; i < m->lpath.n; i++)
    if (m->lpath.nodes[i]->kind == MLC_STMT_BLOCK_REALIZE) first = i;
  for (int i = first; i < m->lpath.n; i++)
    if (m->lpath.nodes[i]->kind == MLC_STMT_FOR) mlc_map_put(out, m->lpath.nodes[i]->loop.var, (void *)1);
}

/* reverse_compute_at: do the spans, over the iterations of the loops of
 * the scope, cover all of orig?  Their offset from orig must be linear in
 * those loops with no gaps. */
static bool covers_orig(Move *m, SchRelax *r, const IterRange *x) {
  MlcExpr *off = mlc_arith_simplify(&r->az, mlc_e_bin(m->s->ctx, MLC_BIN_SUB, x->span.min, x->orig.min));
  SchLinear l;
  MlcMap loops = {0};
  scope_loops(m, &loops);
  int64_t lo, hi;
  bool ok = off && sch_linear(off, &l);
  for (size_t i = 0; ok && i < l.terms.len; i++) ok = mlc_map_get(&loops, l.terms.data[i].atom) != NULL;
  ok = ok && sch_linear_no_gaps(r, &l, x->span.extent, &lo, &hi) && lo <= 0 && hi >= x->orig.extent;
  if (off) sch_linear_free(&l);
  mlc_map_free(&loops);
  return ok;
}

static bool iter_ranges(Move *m, SchRelax *r, SchRelax *own, IterRange *it) {
  const MlcBlock *b = m->block;
  MlcCtx *ctx = m->s->ctx;
  for (int k = 0; k < b->n_iters; k++) {
    it[k] = (IterRange){0};
    if (!mlc_e_is_const_int(b->iters[k].dom.min, &it[k].dom_min) ||
        !mlc_e_is_const_int(b->iters[k].dom.extent, &it[k].dom_ext))
      return sch_error(m->s, "block '%s' has an iter var with a non-constant domain", m->name);
    MlcExpr *one = mlc_e_int(ctx, m->realize->realize.values[k]->dtype, 1);
    if (!sch_relax_span(own, m->realize->realize.values[k], one, &it[k].orig))
      it[k].orig = (SchSpan){mlc_e_int(ctx, b->iters[k].var->dtype, it[k].dom_min), it[k].dom_ext};
  }
  const MlcBufferRegion *regs = m->reverse ? b->reads : b->writes;
  int n = m->reverse ? b->n_reads : b->n_writes;
  for (int i = 0; i < n; i++) {
    if (regs[i].buf->ndim > MAX_DIMS)
      return sch_error(m->s, "buffer '%s' has too many dimensions", regs[i].buf->name);
    pin_iters(m, r, &regs[i], it);
  }
  for (int k = 0; k < b->n_iters; k++) {
    IterRange *x = &it[k];
    if (x->whole) x->pinned = false;
    if (x->pinned && !mlc_dtype_eq(x->span.min->dtype, x->orig.min->dtype)) x->pinned = false;
    if (x->pinned && m->reverse && !covers_orig(m, r, x)) x->pinned = false;
    if (!x->pinned) x->span = x->orig;
  }
  return true;
}

/* reverse_compute_at: the block's instances in one instance of its scope
 * are exactly the box of its iter ranges (its own loops each feed one
 * binding, linearly, without gaps), so running the box runs them all and
 * nothing else. */
static bool check_box(Move *m, SchRelax *own) {
  MlcMap used = {0};
  bool ok = true;
  for (int k = 0; k < m->realize->realize.n && ok; k++) {
    SchLinear l, loops = {0};
    int64_t lo, hi;
    ok = sch_linear(m->realize->realize.values[k], &l);
    for (size_t i = 0; ok && i < l.terms.len; i++) {
      const SchTerm *t = &l.terms.data[i];
      if (!sch_relax_mentions(own, t->atom)) continue;
      ok = t->atom->kind == MLC_EXPR_VAR && !mlc_map_get(&used, t->atom);
      mlc_map_put(&used, t->atom, (void *)1);
      mlc_vec_push(&loops.terms, *t);
    }
    ok = ok && sch_linear_no_gaps(own, &loops, 1, &lo, &hi);
    sch_linear_free(&l);
    sch_linear_free(&loops);
  }
  mlc_map_free(&used);
  if (!ok) return sch_error(m->s, "the instances of block '%s' do not form a box of its iter vars", m->name);
  return true;
}

/* ---- building ------------------------------------------------------------------------------ */

static MlcExpr *as_dtype(MlcCtx *ctx, MlcExpr *e, MlcDType t) {
  return mlc_dtype_eq(e->dtype, t) ? e : mlc_e_cast(ctx, t, e);
}

static MlcExpr *and_cond(MlcCtx *ctx, MlcExpr *acc, MlcExpr *c) {
  return acc ? mlc_e_bin(ctx, MLC_BIN_AND, acc, c) : c;
}

/* is e >= 0 for every value of the known vars? */
static bool nonneg(SchRelax *r, MlcExpr *e) {
  e = e ? mlc_arith_simplify(&r->az, e) : NULL;
  return e && mlc_arith_bound(&r->az, e).min >= 0;
}

/* pred and `lo <= binding` unless span.min >= lo is known */
static MlcExpr *guard_low(Move *m, SchRelax *r, const SchSpan *sp, MlcExpr *lo, MlcExpr *binding, MlcExpr *pred) {
  MlcCtx *ctx = m->s->ctx;
  if (nonneg(r, mlc_e_bin(ctx, MLC_BIN_SUB, sp->min, lo))) return pred;
  return and_cond(ctx, pred, mlc_e_bin(ctx, MLC_BIN_LE, lo, binding));
}

/* pred and `binding < end` unless span.min + span.extent <= end is known */
static MlcExpr *guard_high(Move *m, SchRelax *r, const SchSpan *sp, MlcExpr *end, MlcExpr *binding, MlcExpr *pred) {
  MlcCtx *ctx = m->s->ctx;
  MlcExpr *last = mlc_arith_add(ctx, sp->min, mlc_e_int(ctx, sp->min->dtype, sp->extent));
  if (nonneg(r, mlc_e_bin(ctx, MLC_BIN_SUB, end, last))) return pred;
  return and_cond(ctx, pred, mlc_e_bin(ctx, MLC_BIN_LT, binding, end));
}

/* The guards that keep one binding inside the old range and the domain
 * (one range when the old one is constant: their intersection). */
static MlcExpr *guard(Move *m, SchRelax *r, const IterRange *x, MlcExpr *binding, MlcExpr *pred) {
  MlcCtx *ctx = m->s->ctx;
  MlcDType t = binding->dtype;
  int64_t lo = x->dom_min, end = x->dom_min + x->dom_ext, omin;
  if (mlc_e_is_const_int(x->orig.min, &omin)) {
    if (omin > lo) lo = omin;
    if (omin + x->orig.extent < end) end = omin + x->orig.extent;
  } else if (x->pinned) {
    MlcExpr *om = as_dtype(ctx, x->orig.min, t);
    pred = guard_low(m, r, &x->span, om, binding, pred);
    pred = guard_high(m, r, &x->span, mlc_arith_add(ctx, om, mlc_e_int(ctx, t, x->orig.extent)), binding, pred);
  }
  pred = guard_low(m, r, &x->span, mlc_e_int(ctx, t, lo), binding, pred);
  return guard_high(m, r, &x->span, mlc_e_int(ctx, t, end), binding, pred);
}

/* the new loop nest with the block at its bottom */
static MlcStmt *build_nest(Move *m, SchRelax *r, const IterRange *it) {
  MlcCtx *ctx = m->s->ctx;
  const MlcBlock *b = m->block;
  MlcExpr **values = mlc_arena_array(&ctx->arena, (size_t)(b->n_iters ? b->n_iters : 1), sizeof *values);
  MlcExpr *vars[MAX_ITERS], *exts[MAX_ITERS], *pred = NULL;
  int nloops = 0;
  for (int k = 0; k < b->n_iters; k++) {
    MlcDType t = b->iters[k].var->dtype;
    MlcExpr *min = as_dtype(ctx, it[k].span.min, t);
    if (it[k].span.extent == 1 && !m->preserve_unit_loops) {
      values[k] = min;
    } else {
      MlcExpr *v = sch_fresh_var(m->s, mlc_internf(ctx, "ax%d", nloops), t);
      mlc_arith_bind(&r->az, v, 0, it[k].span.extent);
      vars[nloops] = v;
      exts[nloops++] = mlc_e_int(ctx, t, it[k].span.extent);
      values[k] = mlc_arith_simplify(&r->az, mlc_arith_add(ctx, min, v));
    }
    pred = guard(m, r, &it[k], values[k], pred);
  }
  MlcStmt *st = mlc_s_realize(ctx, values, b->n_iters, pred, (MlcBlock *)b);
  for (int i = nloops - 1; i >= 0 && st; i--)
    st = mlc_s_for(ctx, vars[i], mlc_e_int(ctx, vars[i]->dtype, 0), exts[i], MLC_FOR_SERIAL, NULL, (MlcAttrs){0}, st);
  return st;
}

/* the loop with the nest inserted at position `at` of its body */
static MlcStmt *loop_with(Move *m, MlcStmt *nest, int at) {
  MlcCtx *ctx = m->s->ctx;
  int n;
  MlcStmt *const *items = body_items(m->loop, &n);
  MlcStmt **out = mlc_arena_array(&ctx->arena, (size_t)n + 1, sizeof *out);
  for (int i = 0, j = 0; i <= n; i++) {
    if (i == at) out[j++] = nest;
    if (i < n) out[j++] = items[i];
  }
  const MlcStmt *l = m->loop;
  return mlc_s_for(ctx, l->loop.var, l->loop.min, l->loop.extent, l->loop.kind, l->loop.thread,
                   l->loop.annotations, mlc_s_seq(ctx, out, n + 1));
}

static bool move(MlcSchedule *s, const MlcSchVal *args, bool reverse) {
  Move m = {.s = s, .reverse = reverse};
  SchRelax r;
  sch_relax_init(&r, s->ctx);
  IterRange it[MAX_ITERS];
  int at = 0;
  bool ok = read_args(&m, args) && check_placement(&m) && check_block_kind(&m) && check_dataflow(&m) &&
            insertion_point(&m, &at);
  if (ok && m.block->n_iters > MAX_ITERS) ok = sch_error(s, "block '%s' has too many iter vars", m.name);
  SchRelax own;
  sch_relax_init(&own, s->ctx);
  if (ok) {
    /* compute_at: the block writes a cache; shared memory is one region for
     * the thread block, so the thread loops above are relaxed as well */
    const char *scope = !m.reverse && m.block->n_writes == 1 ? m.block->writes[0].buf->scope : NULL;
    sch_relax_under_scope(&r, &m.lpath, scope);
    sch_relax_own_loops(&own, &m.bpath);
    ok = (!m.reverse || check_box(&m, &own)) && iter_ranges(&m, &r, &own, it);
  }
  MlcStmt *nest = ok ? build_nest(&m, &r, it) : NULL;
  MlcStmt *loop = nest ? loop_with(&m, nest, at) : NULL;
  if (loop) {
    SchEdit edits[2] = {{.old = m.loop, .repl = loop}, {.old = m.realize, .repl = NULL}};
    MlcStmt *body = sch_edit(s->ctx, sch_func(s)->body, edits, 2);
    ok = body && sch_commit(s, body);
  } else {
    ok = false;
  }
  sch_relax_free(&r);
  sch_relax_free(&own);
  move_free(&m);
  return ok;
}

bool sch_prim_compute_at(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  *n_outs = 0;
  return move(s, args, false);
}

bool sch_prim_reverse_compute_at(MlcSchedule *s, const MlcSchVal *args, MlcSchVal *outs, int *n_outs) {
  *n_outs = 0;
  return move(s, args, true);
}
