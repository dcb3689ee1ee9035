/* lower.h - the TIR lowering pipeline: from block-structured prim funcs to
 * the loop-level form the code generators take.
 *
 * The pipeline is one flat function (mlc_lower_prim_func) of stages, each a
 * prim func -> prim func transformation that can be run and dumped on its
 * own.  The lowered form ("lowered" below) is:
 *   - no block realizes: blocks became loops, their iter vars were replaced
 *     by their bindings, predicates became ifs, an init runs under the
 *     condition that every reduce binding is at its domain's minimum;
 *   - intermediate buffers are allocated where they are used, with the
 *     shape of what they hold there (mlc_lower_compact: the tile a cache
 *     of a schedule holds per iteration, not the whole tensor);
 *   - every buffer is one-dimensional: params' buffers were flattened in
 *     place (shape [numel], elem_offset folded into indices), intermediate
 *     buffers are introduced by MLC_STMT_ALLOCATE with their scope;
 *   - no vectorized loops: their bodies use vector expressions (ramp,
 *     broadcast, vector loads and stores) of the loop's lanes;
 *   - unrolled loops of constant extent <= MLC_LOWER_MAX_UNROLL expanded,
 *     as long as the copies stay within MLC_LOWER_MAX_UNROLL_NODES IR nodes
 *     (nested unrolled loops multiply); others remain serial loops with
 *     kind MLC_FOR_UNROLLED as a hint;
 *   - parallel loops kept (MLC_FOR_PARALLEL), for the code generator to hand
 *     to the runtime thread pool; thread-bound loops kept for GPU targets;
 *   - indices simplified (mlc_arith_simplify with loop ranges known).
 * The signature the runtime checks (ranks, shapes, dtypes) is taken from the
 * function before lowering, which the caller keeps. */
#ifndef MLCC_LOWER_H
#define MLCC_LOWER_H

#include "mlcc/ir.h"

#define MLC_LOWER_MAX_UNROLL 64
/* statements and expressions one unrolled loop may expand into */
#define MLC_LOWER_MAX_UNROLL_NODES 16384

typedef enum MlcLowerStage {
  MLC_LOWER_BLOCKS,     /* blocks -> loops, allocations */
  MLC_LOWER_COMPACT,    /* allocations moved in and shrunk to what they hold */
  MLC_LOWER_FLATTEN,    /* N-d buffers -> 1-d */
  MLC_LOWER_UNROLL,
  MLC_LOWER_SIMPLIFY,   /* also folds the constants unrolling introduced */
  MLC_LOWER_VECTORIZE,
  MLC_LOWER_STAGE_COUNT
} MlcLowerStage;

extern const char *const mlc_lower_stage_names[MLC_LOWER_STAGE_COUNT];

/* Called after each stage when set (e.g. to print the function). */
typedef void (*MlcLowerDump)(void *user, MlcLowerStage stage, const MlcPrimFunc *f);

/* Run the stages up to and including `last`.  NULL + error (naming the loop
 * or block) when a stage refuses, e.g. a vectorized loop whose body cannot
 * become vector operations. */
MlcPrimFunc *mlc_lower_prim_func(MlcCtx *ctx, const MlcPrimFunc *f, MlcLowerStage last,
                                 MlcLowerDump dump, void *user);

/* The stages, one by one. */
MlcPrimFunc *mlc_lower_blocks(MlcCtx *ctx, const MlcPrimFunc *f);
/* Each intermediate buffer is allocated at the innermost statement enclosing
 * its accesses (inside a loop only when iterations touch disjoint elements)
 * and shrunk there to the constant-extent region they touch, indices
 * shifted by the region's min (symbolic in the outer loop vars).  What it
 * cannot prove stays as it was. */
MlcPrimFunc *mlc_lower_compact(MlcCtx *ctx, const MlcPrimFunc *f);
MlcPrimFunc *mlc_lower_flatten(MlcCtx *ctx, const MlcPrimFunc *f);
MlcPrimFunc *mlc_lower_unroll(MlcCtx *ctx, const MlcPrimFunc *f);
MlcPrimFunc *mlc_lower_simplify(MlcCtx *ctx, const MlcPrimFunc *f);
MlcPrimFunc *mlc_lower_vectorize(MlcCtx *ctx, const MlcPrimFunc *f);

/* Lower every prim func of a module (graph functions are kept as they are). */
MlcModule *mlc_lower_module(MlcCtx *ctx, const MlcModule *m, MlcLowerDump dump, void *user);

#endif
