/* default_dot.c - the default schedule of an int8 matmul on a CPU with a
 * byte dot-product instruction (AVX512-VNNI, AVX-VNNI), or with AVX2 /
 * AVX-512 integer vectors only.
 *
 * The block it takes is what matmul(A, W, out_dtype="int32") of uint8
 * activations and int8 weights legalizes to:
 *     C[.., i, j] += int32(A[.., i, k]) * int32(W[k, j])
 * with W a param the function may lay out anew (a constant weight:
 * "layout_free_buffers").  The instruction multiplies 4 consecutive bytes of
 * A by 4 bytes of W per output lane, so W is laid out 4-interleaved, once,
 * at compile time: W[k, j] -> W'[j // L, k // 4, j % L * 4 + k % 4] (L the
 * instruction's lanes), which makes the 4 x L bytes one step of the
 * reduction needs one contiguous vector.  The tile is the contraction
 * rule's: rows of i x cols vectors of L outputs accumulated in a tile of
 * their own (registers, once unrolled), the reduction split by 4 and each
 * (row, vector) step tensorized onto dot_Lx4_u8s8; the tile is zeroed
 * before and written back after the reduction, vectorized; the column
 * blocks run in parallel (not fused with the rows: the tile's index would
 * then divide the fused var, and lowering could not shrink it per thread).
 *
 * Like default_window.c the rule is a schedule script run through
 * mlc_sch_run_script, so it prints, traces and replays as any schedule,
 * and a refused primitive undoes it whole.
 *
 * Without the instruction (dot_lanes 0) the same tile is built over pairs
 * of bytes on a CPU with 256- or 512-bit integer vectors (AVX2, AVX-512):
 * W laid out 2-interleaved, each step tensorized onto dot_Lx2_u8s8, which
 * widens the bytes to int16 and multiplies-and-adds pairs into int32
 * (vpmaddwd), exactly: vpmaddubsw would take the bytes as they are, but
 * its int16 sum of two products (up to 2 * 255 * 128) saturates.  On
 * narrower CPUs the rule does not apply and the contraction rule takes the
 * block, in plain int32 vectors. */
#include "schedule/default.h"
#include "schedule/state.h"

#include <string.h>

enum {
  MAX_LOOPS = 12,
  MAX_ROWS = 8,              /* rows of the register tile */
  PARALLEL_MIN_WORK = 4096,  /* block instances below which a thread pool costs more than it gives */
};

typedef struct DotNest {
  int n;                          /* loops: spatial ones, then the one reduce loop */
  int64_t ext[MAX_LOOPS];
  const MlcExpr *iter[MAX_LOOPS]; /* the iter var each loop binds */
  const MlcBuffer *w;             /* the weight */
} DotNest;

static bool is_load_of(const MlcExpr *e, MlcTypeCode code) {
  return e->kind == MLC_EXPR_CAST && mlc_dtype_eq(e->dtype, MLC_I32) && e->operand->kind == MLC_EXPR_LOAD &&
         mlc_dtype_eq(e->operand->dtype, MLC_DT(code, 8, 1));
}

/* C[.., i, j] = C[.., i, j] + int32(A[.., k]) * int32(W[k, j]) in a
 * perfect nest of serial loops, the spatial ones first in the output's
 * order, then k */
static bool dot_nest(MlcSchedule *s, const char *block, DotNest *t) {
  memset(t, 0, sizeof *t);
  const MlcStmt *loops[MAX_LOOPS];
  int n;
  const MlcStmt *r = mlc_sch_default_block_loops(s, block, loops, MAX_LOOPS, &n);
  if (!r) return false;
  const MlcBlock *b = r->realize.block;
  const MlcStmt *st = b->body;
  if (!b->init || !st || st->kind != MLC_STMT_STORE || b->n_writes != 1 || n != b->n_iters || n < 2 ||
      n > MAX_LOOPS || st->store.n != n - 1 || !mlc_dtype_eq(st->store.buf->dtype, MLC_I32))
    return false;
  for (int i = 0; i < n; i++) {
    const MlcStmt *next = i + 1 < n ? loops[i + 1] : r;
    if (loops[i]->loop.body != next || loops[i]->loop.kind != MLC_FOR_SERIAL ||
        !mlc_e_is_const_int(loops[i]->loop.extent, &t->ext[i]) || r->realize.values[i] != loops[i]->loop.var ||
        b->iters[i].kind != (i < n - 1 ? MLC_ITER_SPATIAL : MLC_ITER_REDUCE) ||
        (i < n - 1 && st->store.idx[i] != b->iters[i].var))
      return false;
    t->iter[i] = b->iters[i].var;
  }
  t->n = n;
  const MlcExpr *v = st->store.value, *prod = v->kind == MLC_EXPR_BINARY ? v->bin.b : NULL;
  if (v->kind != MLC_EXPR_BINARY || v->bin.op != MLC_BIN_ADD || v->bin.a->kind != MLC_EXPR_LOAD ||
      v->bin.a->load.buf != st->store.buf || prod->kind != MLC_EXPR_BINARY || prod->bin.op != MLC_BIN_MUL ||
      !is_load_of(prod->bin.a, MLC_TC_UINT) || !is_load_of(prod->bin.b, MLC_TC_INT))
    return false;
  for (int d = 0; d < st->store.n; d++)
    if (v->bin.a->load.idx[d] != st->store.idx[d]) return false;
  const MlcExpr *a = prod->bin.a->operand, *w = prod->bin.b->operand;
  const MlcExpr *j = t->iter[n - 2], *k = t->iter[n - 1];
  if (a->load.n == 0 || a->load.idx[a->load.n - 1] != k || mlc_sch_default_uses(a, j)) return false;
  for (int d = 0; d + 1 < a->load.n; d++)
    if (mlc_sch_default_uses(a->load.idx[d], k)) return false;
  if (w->load.n != 2 || w->load.idx[0] != k || w->load.idx[1] != j || !mlc_sch_default_layout_free(s, w->load.buf)) return false;
  t->w = w->load.buf;
  return true;
}

static int64_t divisor_at_most(int64_t n, int64_t cap) {
  for (int64_t d = cap; d > 1; d--)
    if (n % d == 0) return d;
  return 1;
}

/* as default_window.c's: the script as one transaction */
static bool run_rule(MlcSchedule *s, const char *block, MlcStrBuf *sb) {
  MlcModule *mod = s->mod;
  size_t rvs = s->rvs.len, trace = s->trace.len;
  const char *file = mlc_internf(s->ctx, "<default int8 dot-product rule of %s>", block);
  bool ok = mlc_sch_run_script(s, file, mlc_sb_cstr(sb), sb->len);
  mlc_vec_free(sb);
  if (ok) return true;
  s->mod = mod, s->rvs.len = rvs, s->trace.len = trace;
  mlc_clear_error(s->ctx);
  return false;
}

/* the form the target computes fastest: VNNI's groups of 4 bytes where it
 * has them, else pairs widened to int16 (vpmaddwd) on a CPU with integer
 * vectors of 256 bits or more (AVX2, AVX-512); none on narrower ones, where
 * the contraction rule takes the block */
static bool dot_form(const MlcSchTarget *t, int *lanes, int *group) {
  *lanes = t->dot_lanes, *group = 4;
  if (*lanes > 0) return true;
  if (t->gpu || t->vector_bits < 256 || (t->name && strcmp(t->name, "avx") == 0)) return false;
  *lanes = t->vector_bits >= 512 ? 16 : 8, *group = 2;
  return true;
}

bool mlc_sch_default_dot(MlcSchedule *s, const MlcSchTarget *t, const char *block) {
  DotNest d;
  int L, G;
  if (!dot_form(t, &L, &G) || !dot_nest(s, block, &d)) return false;
  int n = d.n, j = n - 2, k = n - 1, i = n >= 3 ? n - 3 : -1, nb = i >= 0 ? i : 0;
  if (d.ext[k] % G || d.ext[j] % L) return false;
  int64_t cols = (d.ext[j] / L) % 2 == 0 ? 2 : 1;
  /* accumulators, one weight vector per column, one broadcast of A */
  int64_t max_rows = (t->vector_regs - cols - 1) / cols;
  int64_t rows = i >= 0 ? divisor_at_most(d.ext[i], max_rows < MAX_ROWS ? max_rows : MAX_ROWS) : 1;
  int64_t work = 1;
  for (int q = 0; q < n - 1; q++) work *= d.ext[q];
  work *= d.ext[k];
  MlcStrBuf sb = {0};
  mlc_sb_printf(&sb, "b = sch.get_block(\"%s\")\nl = sch.get_loops(b)\n", block);
  mlc_sb_printf(&sb, "sch.transform_layout(b, \"%s\", lambda k, j: (j // %d, k // %d, j %% %d * %d + k %% %d))\n",
                d.w->name, L, G, L, G, G);
  if (i >= 0) mlc_sb_printf(&sb, "io, ii = sch.split(l[%d], factors=[None, %lld])\n", i, (long long)rows);
  mlc_sb_printf(&sb, "jo, jc, ji = sch.split(l[%d], factors=[None, %lld, %d])\n", j, (long long)cols, L);
  mlc_sb_printf(&sb, "ko, ki = sch.split(l[%d], factors=[None, %d])\n", k, G);
  mlc_sb_puts(&sb, "sch.reorder(");
  for (int q = 0; q < nb; q++) mlc_sb_printf(&sb, "l[%d], ", q);
  mlc_sb_puts(&sb, i >= 0 ? "jo, io, ko, ii, jc, ji, ki)\n" : "jo, ko, jc, ji, ki)\n");
  mlc_sb_printf(&sb, "st = sch.cache_write(b, 0, \"global\")\nsch.reverse_compute_at(st, %s)\n", i >= 0 ? "io" : "jo");
  mlc_sb_puts(&sb, "z = sch.decompose_reduction(b, ko)\n");
  if (i >= 0) mlc_sb_puts(&sb, "sch.unroll(ii)\n");
  mlc_sb_printf(&sb, "sch.unroll(jc)\nsch.tensorize(ji, \"dot_%dx%d_u8s8\")\n", L, G);
  /* the zeroing: [batch] jo [io ii] jc ji */
  mlc_sb_puts(&sb, "lz = sch.get_loops(z)\nsch.vectorize(lz[-1])\nsch.unroll(lz[-2])\n");
  if (i >= 0) mlc_sb_puts(&sb, "sch.unroll(lz[-3])\n");
  /* the write-back: its rows (when tiled) and columns below the tile loop */
  mlc_sb_printf(&sb, "ls = sch.get_loops(st)\nso, si = sch.split(ls[-1], factors=[None, %d])\n", L);
  mlc_sb_puts(&sb, "sch.vectorize(si)\nsch.unroll(so)\n");
  if (i >= 0 && rows > 1) mlc_sb_puts(&sb, "sch.unroll(ls[-2])\n");
  if (t->threads >= 2 && work >= PARALLEL_MIN_WORK) {
    if (nb > 0 && d.ext[0] >= 2) mlc_sb_puts(&sb, "sch.parallel(l[0])\n");
    else if (d.ext[j] / (cols * L) >= 2) mlc_sb_puts(&sb, "sch.parallel(jo)\n");
  }
  return run_rule(s, block, &sb);
}
