/* default_convt.c - the default schedule of a transposed convolution
 * (conv2d_transpose, and the 1-D one, which is the 2-D one over a row).
 *
 * Legalization writes a strided dim of a transposed conv by phases
 * (src/ops/conv_transpose.c): output o reads input (o + pad) // s - j
 * through tap (o + pad) % s + s * j.  Neither of the rules of
 * default_rules.c fits that: along the output row both operands move (the
 * input by o // s, the weight by o % s), so no operand is a vector while the
 * other is broadcast.  Split the row into q * s + p, though, and for a fixed
 * phase p the input is contiguous along q and the weight is one scalar.  So:
 *   - the output rows and columns are split by their strides into (q, p);
 *   - the register tile is the s_h x s_w phases x `cols` vectors of lanes
 *     along the column's q: every phase reuses each input vector loaded,
 *     each weight is one broadcast per phase; accumulators, input vectors
 *     and weight broadcasts together fit the target's vector registers
 *     (AVX2 16 x 8 lanes: 2 x 2 phases x 2 vectors; AVX-512 32 x 16: up to 4);
 *   - the tile accumulates in a "local" cache laid out phase-major
 *     ([.., p_h, p_w, q_h, q_w]), so each phase's lanes are contiguous and
 *     the tile shrinks to registers; its write-back interleaves the phases
 *     into the output (one store per reduction of all input channels);
 *   - the init is decomposed out and vectorized alike; the epilogue (bias,
 *     activation) is computed per tile; one loop above the tile (the
 *     channels, or the rows when there are few channels) runs in parallel.
 * Only blocks whose value needs no guard (no tap outside the kernel or the
 * input, as with a kernel equal to its stride) are taken: a vector would
 * evaluate a guarded load for every lane.  The rule is a schedule script
 * run through mlc_sch_run_script, one transaction, so it prints, traces and
 * replays like any schedule. */
#include "schedule/default.h"
#include "schedule/state.h"

#include <string.h>

enum {
  MAX_LOOPS = 12,
  MIN_LANES = 4,
  MAX_COLS = 4, /* vectors along a row per phase */
  PARALLEL_CHUNKS = 16, /* iterations per thread a parallel loop needs to balance the load */
};

static const MlcExpr *strip_cast(const MlcExpr *e) {
  while (e && e->kind == MLC_EXPR_CAST) e = e->operand;
  return e;
}

typedef struct Guard { bool found; } Guard;

static bool guard_visit(MlcVisitor *v, const MlcExpr *e) {
  Guard *g = v->user;
  if (e->kind == MLC_EXPR_SELECT || (e->kind == MLC_EXPR_CALL && e->call.op == MLC_INTRIN_IF_THEN_ELSE)) g->found = true;
  return !g->found;
}

static bool guarded(const MlcExpr *e) {
  Guard g = {false};
  MlcVisitor vis = {.user = &g, .expr = guard_visit};
  mlc_visit_expr(&vis, e);
  return g.found;
}

/* The stride s of e = floordiv(x, s) or floormod(x, s) (op) somewhere in
 * idx with x using var; 1 when there is none. */
typedef struct Phase { MlcBinOp op; const MlcExpr *var; int64_t s; } Phase;

static bool phase_visit(MlcVisitor *v, const MlcExpr *e) {
  Phase *p = v->user;
  int64_t s;
  if (e->kind == MLC_EXPR_BINARY && e->bin.op == p->op && mlc_e_is_const_int(e->bin.b, &s) && s > 1 &&
      mlc_sch_default_uses(e->bin.a, p->var))
    p->s = s;
  return p->s == 1;
}

static int64_t phase_of(const MlcExpr *idx, MlcBinOp op, const MlcExpr *var) {
  Phase p = {op, var, 1};
  MlcVisitor vis = {.user = &p, .expr = phase_visit};
  mlc_visit_expr(&vis, idx);
  return p.s;
}

/* The block: a perfect nest, spatial loops first with the output's last two
 * indices bound by the last two of them, an update Y = Y + x * w where x's
 * last two indices take the output's row and column through floordiv by
 * their strides and w's through floormod by the same (a stride of 1: the
 * dim is not phased, and neither index has it). */
typedef struct ConvT {
  int n, n_spatial;
  int64_t ext[MAX_LOOPS];
  int64_t s[2]; /* the strides of the row and the column */
  const MlcBuffer *out;
} ConvT;

static bool convt_nest(MlcSchedule *s, const char *block, ConvT *c) {
  memset(c, 0, sizeof *c);
  const MlcExpr *iter[MAX_LOOPS];
  int n;
  const MlcStmt *r = mlc_sch_default_reduce_nest(s, block, MAX_LOOPS, c->ext, iter, &n, &c->n_spatial);
  if (!r || n < 3) return false;
  const MlcBlock *b = r->realize.block;
  c->n = n;
  const MlcStmt *st = b->body;
  int ns = c->n_spatial;
  if (ns < 2 || ns == n || st->store.n < 2 || st->store.idx[st->store.n - 1] != iter[ns - 1] ||
      st->store.idx[st->store.n - 2] != iter[ns - 2] || guarded(st->store.value))
    return false;
  const MlcExpr *v = st->store.value;
  if (v->kind != MLC_EXPR_BINARY || v->bin.op != MLC_BIN_ADD) return false;
  const MlcExpr *acc = strip_cast(v->bin.a), *prod = strip_cast(v->bin.b);
  if (acc->kind != MLC_EXPR_LOAD || acc->load.buf != st->store.buf) {
    const MlcExpr *t = acc;
    acc = prod, prod = t;
  }
  if (acc->kind != MLC_EXPR_LOAD || acc->load.buf != st->store.buf || prod->kind != MLC_EXPR_BINARY ||
      prod->bin.op != MLC_BIN_MUL)
    return false;
  const MlcExpr *x = strip_cast(prod->bin.a), *w = strip_cast(prod->bin.b);
  if (x->kind != MLC_EXPR_LOAD || w->kind != MLC_EXPR_LOAD || x->load.n < 2 || w->load.n < 2) return false;
  if (phase_of(x->load.idx[x->load.n - 1], MLC_BIN_FLOORDIV, iter[ns - 1]) == 1) {
    const MlcExpr *t = x;
    x = w, w = t;
  }
  for (int d = 0; d < 2; d++) {
    const MlcExpr *o = iter[ns - 2 + d], *xi = x->load.idx[x->load.n - 2 + d], *wi = w->load.idx[w->load.n - 2 + d];
    c->s[d] = phase_of(xi, MLC_BIN_FLOORDIV, o);
    if (phase_of(wi, MLC_BIN_FLOORMOD, o) != c->s[d] || c->ext[ns - 2 + d] % c->s[d]) return false;
  }
  c->out = st->store.buf;
  return c->s[1] > 1; /* the column phased: what the tile is built on */
}

static int lanes_for(const MlcSchTarget *t, MlcDType dt, int64_t ext) {
  if (dt.lanes != 1 || dt.code != MLC_TC_FLOAT || dt.bits != 32) return 0;
  for (int l = t->vector_bits / dt.bits; l >= MIN_LANES; l /= 2)
    if (ext % l == 0) return l;
  return 0;
}

/* Run the script as one transaction (undone as a whole when refused). */
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

/* "lambda a0, ..: (a0, .., a<r> % sh, a<c> % sw, a<r> // sh, a<c> // sw)": the
 * local tile phase-major, for an output of rank n whose last two dims are
 * row r and column c */
static void phase_map(MlcStrBuf *sb, int n, const int64_t *s) {
  mlc_sb_puts(sb, "lambda ");
  for (int k = 0; k < n; k++) mlc_sb_printf(sb, "%sa%d", k ? ", " : "", k);
  mlc_sb_puts(sb, ": (");
  for (int k = 0; k < n - 2; k++) mlc_sb_printf(sb, "a%d, ", k);
  mlc_sb_printf(sb, "a%d %% %lld, a%d %% %lld, a%d // %lld, a%d // %lld)", n - 2, (long long)s[0], n - 1,
                (long long)s[1], n - 2, (long long)s[0], n - 1, (long long)s[1]);
}

/* the iterations of the loops of block below its loop at depth `at` (-1: unknown) */
static int64_t work_below(MlcSchedule *s, const char *block, int at) {
  const MlcStmt *loops[MAX_LOOPS];
  int n;
  if (!mlc_sch_default_block_loops(s, block, loops, MAX_LOOPS, &n)) return -1;
  int64_t w = 1, e;
  for (int i = at + 1; i < n; i++) {
    if (!mlc_e_is_const_int(loops[i]->loop.extent, &e)) return -1;
    w *= e;
  }
  return n > at ? w : -1;
}

/* The epilogue (bias, activation) computed per tile, under the tile's loop
 * at depth `at`, while the tile's output is in the cache; its own
 * transaction, kept only when it computes no more than the tile (a region
 * the analysis could not narrow would compute the whole output per tile). */
static void epilogue(MlcSchedule *s, const ConvT *c, int at) {
  const char *epi = mlc_sch_default_epilogue(s, c->out), *back = mlc_sch_default_producer(s, c->out);
  if (!epi || !back) return;
  MlcModule *mod = s->mod;
  size_t rvs = s->rvs.len, trace = s->trace.len;
  MlcStrBuf sb = {0};
  mlc_sb_printf(&sb, "b = sch.get_block(\"%s\")\nl = sch.get_loops(b)\n", back);
  mlc_sb_printf(&sb, "e = sch.get_block(\"%s\")\nsch.reverse_compute_at(e, l[%d])\n", epi, at);
  if (!run_rule(s, "transposed conv epilogue", epi, &sb)) return;
  int64_t tile = work_below(s, back, at), w = work_below(s, epi, at);
  if (tile < 0 || w < 0 || w > tile) s->mod = mod, s->rvs.len = rvs, s->trace.len = trace;
}

/* the extent of loop i above the tile (the rows': their q part) */
static int64_t outer_extent(const ConvT *c, int i) { return c->ext[i] / (i == c->n_spatial - 2 ? c->s[0] : 1); }

bool mlc_sch_default_convt(MlcSchedule *s, const MlcSchTarget *t, const char *block) {
  ConvT c;
  if (!convt_nest(s, block, &c)) return false;
  int row = c.n_spatial - 2, col = c.n_spatial - 1;
  int64_t phases = c.s[0] * c.s[1];
  int L = lanes_for(t, c.out->dtype, c.ext[col] / c.s[1]);
  if (!L) return false;
  /* accumulators (phases x cols) + input vectors (cols) + weight broadcasts (phases) */
  int cols = 0;
  for (int k = MAX_COLS; k >= 1 && !cols; k /= 2)
    if ((c.ext[col] / c.s[1] / L) % k == 0 && phases * k + k + phases <= t->vector_regs) cols = k;
  if (!cols) return false;
  bool row_phased = c.s[0] > 1;
  MlcStrBuf sb = {0};
  mlc_sb_printf(&sb, "b = sch.get_block(\"%s\")\nl = sch.get_loops(b)\n", block);
  if (row_phased) mlc_sb_printf(&sb, "hq, hp = sch.split(l[%d], factors=[None, %lld])\n", row, (long long)c.s[0]);
  else mlc_sb_printf(&sb, "hq = l[%d]\n", row);
  mlc_sb_printf(&sb, "wo, wc, wl, wp = sch.split(l[%d], factors=[None, %d, %d, %lld])\n", col, cols, L,
                (long long)c.s[1]);
  /* outer spatial loops, the tile's row and column block, the reduction
   * (its window loops, then the channels), then the tile: phases, vectors, lanes */
  mlc_sb_puts(&sb, "sch.reorder(");
  for (int i = 0; i < row; i++) mlc_sb_printf(&sb, "l[%d], ", i);
  mlc_sb_puts(&sb, "hq, wo");
  for (int i = c.n_spatial + 1; i < c.n; i++) mlc_sb_printf(&sb, ", l[%d]", i);
  mlc_sb_printf(&sb, ", l[%d]%s, wp, wc, wl)\n", c.n_spatial, row_phased ? ", hp" : "");
  mlc_sb_puts(&sb, "st = sch.cache_write(b, 0, \"local\")\nsch.reverse_compute_at(st, wo)\n");
  /* the write-back: its column split into (q, p) and both phases unrolled,
   * so its local indices are q plus constants (what lowering shrinks the
   * tile by) and its stores run along the output row */
  int base = row + 2;
  mlc_sb_puts(&sb, "lw = sch.get_loops(st)\n");
  mlc_sb_printf(&sb, "bq, bp = sch.split(lw[%d], factors=[None, %lld])\nsch.unroll(bp)\n", base + (row_phased ? 1 : 0),
                (long long)c.s[1]);
  if (row_phased) mlc_sb_printf(&sb, "sch.unroll(lw[%d])\n", base);
  mlc_sb_puts(&sb, "sch.transform_layout(b, (\"write\", 0), ");
  phase_map(&sb, c.n_spatial, c.s);
  mlc_sb_puts(&sb, ")\n");
  int first_reduce = c.n_spatial + 1 < c.n ? c.n_spatial + 1 : c.n_spatial;
  mlc_sb_printf(&sb, "i = sch.decompose_reduction(b, l[%d])\n", first_reduce);
  mlc_sb_printf(&sb, "sch.vectorize(wl)\nsch.unroll(wc)\nsch.unroll(wp)\n%s", row_phased ? "sch.unroll(hp)\n" : "");
  /* the init's loops: the outer ones, hq, wo, then its tile in the order of the block's */
  mlc_sb_puts(&sb, "li = sch.get_loops(i)\n");
  int tile = (row_phased ? 1 : 0) + 3;
  for (int k = 0; k < tile - 1; k++) mlc_sb_printf(&sb, "sch.unroll(li[%d])\n", base + k);
  mlc_sb_printf(&sb, "sch.vectorize(li[%d])\n", base + tile - 1);
  if (!run_rule(s, "transposed conv", block, &sb)) return false;
  epilogue(s, &c, row + 1);
  /* one loop above the tile in parallel, not a fusion: lowering shrinks the
   * local tile into a loop whose var indexes it plainly, and a fused var
   * indexes it only through a division and a modulo.  The outermost loop
   * that gives each thread PARALLEL_CHUNKS pieces, else the longest. */
  const char *back = mlc_sch_default_producer(s, c.out);
  int par = -1, longest = row;
  for (int i = row; i >= 0; i--) {
    if (outer_extent(&c, i) >= (int64_t)t->threads * PARALLEL_CHUNKS) par = i;
    if (outer_extent(&c, i) > outer_extent(&c, longest)) longest = i;
  }
  if (par < 0) par = longest;
  if (back && t->threads >= 2 && outer_extent(&c, par) >= 2) {
    mlc_sb_printf(&sb, "b = sch.get_block(\"%s\")\nl = sch.get_loops(b)\nsch.parallel(l[%d])\n", back, par);
    run_rule(s, "transposed conv parallel", block, &sb);
  }
  return true;
}
