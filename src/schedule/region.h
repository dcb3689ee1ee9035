/* region.h - what the primitives that move or merge blocks need to know
 * about the blocks of a scope: the region of a buffer that blocks access
 * within one iteration of a loop, the order and the dataflow of the blocks
 * of a scope, and rewriting a function body at several places at once.
 *
 * Regions are integer sets per dimension, kept as a span
 * [min, min + extent): min is an expression over the vars that stay fixed
 * (the loops around the loop of interest), extent a constant.  The loops
 * inside the loop of interest are "relaxed": an index that reads their vars
 * is widened to every value they take.  Affine indices (sums of constant
 * multiples of vars, floordiv / floormod by constants of those) relax
 * exactly; anything else falls back to its constant bounds over every loop,
 * a larger but still correct region.  An over-approximation is always a
 * correct region, an under-approximation never is, so every fallback widens.
 *
 * Used by compute_at.c and inline.c; any primitive that needs "which part of
 * this buffer does this loop nest touch" may use it. */
#ifndef MLCC_SCHEDULE_REGION_H
#define MLCC_SCHEDULE_REGION_H

#include "schedule/state.h"

/* ---- regions ----------------------------------------------------------------- */

/* One dimension of a region: [min, min + extent).  min == NULL means
 * unknown: callers treat it as the whole dimension or domain. */
typedef struct SchSpan {
  MlcExpr *min;
  int64_t extent;
} SchSpan;

/* The analysis context: the ranges of the loop vars known so far, and
 * which of them are relaxed. */
typedef struct SchRelax {
  MlcCtx *ctx;
  MlcAnalyzer az; /* every loop var with a constant range, fixed or relaxed */
  MlcMap relaxed; /* loop var -> its loop statement, for relaxed loops */
} SchRelax;

void sch_relax_init(SchRelax *r, MlcCtx *ctx);
void sch_relax_free(SchRelax *r);
/* Make the range of loop's var known (unless its bounds are not
 * constant); relax: also merge its iterations. */
void sch_relax_loop(SchRelax *r, const MlcStmt *loop, bool relax);
/* Set up "one iteration of the loop at the end of path": the loops on the
 * path (the loop included) are fixed, every loop nested inside it relaxed;
 * the iter vars of the blocks on the path take their domains. */
void sch_relax_under(SchRelax *r, const SchPath *loop_path);
/* The same for a block that writes a buffer of memory scope `scope`:
 * loops on the path bound to threads that share that memory are relaxed
 * too, because one region serves them all ("shared": the threadIdx and
 * vthread loops of a thread block; "local" and "global": none). */
void sch_relax_under_scope(SchRelax *r, const SchPath *loop_path, const char *scope);
/* whether a loop bound to `thread` shares memory of `scope` with the other
 * threads of its loop (see sch_relax_under_scope) */
bool sch_thread_shares_scope(const char *thread, const char *scope);
/* Set up "one instance of the scope of the block at the end of path": the
 * loops between the scope's block and the block are relaxed, the loops
 * and iter vars further out fixed (with their ranges known). */
void sch_relax_own_loops(SchRelax *r, const SchPath *block_path);
/* whether e reads a relaxed var */
bool sch_relax_mentions(const SchRelax *r, const MlcExpr *e);

/* The span of [min, min + extent) with the relaxed vars merged.  False when
 * the extent is not a constant or no finite bound exists. */
bool sch_relax_span(SchRelax *r, MlcExpr *min, MlcExpr *extent, SchSpan *out);
/* acc becomes the hull of acc and add (acc->min NULL: acc is empty and
 * takes add).  When the two mins do not differ by a constant the hull is
 * taken of their constant bounds; false when there are none. */
bool sch_span_union(SchRelax *r, SchSpan *acc, SchSpan add);
/* Accumulate into out[0 .. buf->ndim) (hulls, as sch_span_union) the
 * region of buf that the block of `realize` reads (writes: writes), its
 * iter vars replaced by its bindings, relaxed.  Returns false when the
 * block does not access buf that way; a dimension that cannot be relaxed
 * is marked unknown in *whole (one flag per dimension). */
bool sch_block_region(SchRelax *r, const MlcStmt *realize, const MlcBuffer *buf, bool writes,
                      SchSpan *out, bool *whole);

/* The linear view of an integer expression: sum of coef * atom plus k,
 * atoms the non-linear parts (vars, loads, floordivs...) in order of first
 * appearance.  False (and nothing to free) when a coefficient overflows. */
typedef struct SchTerm {
  MlcExpr *atom;
  int64_t coef;
} SchTerm;
typedef struct SchLinear {
  MLC_VEC(SchTerm) terms;
  int64_t k;
} SchLinear;
bool sch_linear(MlcExpr *e, SchLinear *out);
void sch_linear_free(SchLinear *l);

/* The union of [l, l + len) over every value of l's vars is the interval
 * [*lo, *hi) without gaps: every atom of l is a var whose range r knows,
 * and, taking the coefficients in increasing size, each is at most the
 * length covered by the smaller ones.  False when that cannot be shown. */
bool sch_linear_no_gaps(SchRelax *r, const SchLinear *l, int64_t len, int64_t *lo, int64_t *hi);
/* True when the union over all values of its vars of [min, min + extent)
 * covers [lo, hi) without gaps (sch_linear_no_gaps of min). */
bool sch_span_covers(SchRelax *r, SchSpan s, int64_t lo, int64_t hi);

/* ---- blocks of a scope ----------------------------------------------------------
 * A scope is a block realize (the function's root block, or a block with
 * blocks inside); its blocks are the block realizes below it not nested in
 * another block, in execution order. */
typedef struct SchScope {
  const MlcStmt *root;          /* the scope's block realize */
  MLC_VEC(const MlcStmt *) blocks;
} SchScope;

/* The scope of the statement at the end of path: the nearest block
 * realize above it.  False when there is none (the statement is the root). */
bool sch_scope_of(const SchPath *path, SchScope *scope);
void sch_scope_free(SchScope *scope);
/* position of a block realize in the scope's order, -1 when not there */
int sch_scope_index(const SchScope *scope, const MlcStmt *realize);

/* whether the block reads / writes buf (by its read / write regions) */
bool sch_block_reads(const MlcBlock *b, const MlcBuffer *buf);
bool sch_block_writes(const MlcBlock *b, const MlcBuffer *buf);
/* whether no two instances of the block write one element: each write
 * region is indexed, dimension by dimension, by a constant or by
 * `c * v + k` (v an iter var, extent at most |c|), and every spatial iter
 * var with more than one value appears.  Only then may a primitive run the
 * instances in another order. */
bool sch_block_writes_injective(const MlcBlock *b);
/* whether stmt lies in the subtree of root (root itself included) */
bool sch_stmt_contains(const MlcStmt *root, const MlcStmt *stmt);
/* whether buf is a buffer param of f (an input or output of the function) */
bool sch_is_param_buffer(const MlcPrimFunc *f, const MlcBuffer *buf);
/* whether the realize's predicate only keeps its bindings inside their
 * iter domains (true, absent, or conjuncts like `binding < dom end`); a
 * predicate that also drops in-domain instances is a real restriction */
bool sch_pred_in_domain(MlcCtx *ctx, const MlcStmt *realize);

/* ---- rewriting ------------------------------------------------------------------- */

/* One change to a body: statement `old` (found by pointer) becomes repl
 * (NULL removes it, and with it every loop, let or sequence left empty);
 * with drop_alloc set, `old` is a block realize kept in place (its subtree
 * edited too) whose block no longer allocates drop_alloc. */
typedef struct SchEdit {
  const MlcStmt *old;
  MlcStmt *repl;
  const MlcBuffer *drop_alloc;
} SchEdit;

/* root with every edit applied; unchanged subtrees are shared.  NULL when
 * everything was removed. */
MlcStmt *sch_edit(MlcCtx *ctx, MlcStmt *root, const SchEdit *edits, int n);

#endif
