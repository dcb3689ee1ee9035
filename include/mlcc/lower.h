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
 *   - a parameter read many times over along a stride that maps a walk
 *     onto few cache sets is read from a copy with padded rows, made at
 *     the entry (mlc_lower_pad);
 *   - every buffer is one-dimensional: params' buffers were flattened in
 *     place (shape [numel], elem_offset folded into indices), intermediate
 *     buffers are introduced by MLC_STMT_ALLOCATE with their scope;
 *   - a serial loop over independent accumulators that encloses a small
 *     reduction loop moved inside it (mlc_lower_interchange);
 *   - no vectorized loops: their bodies use vector expressions (ramp,
 *     broadcast, vector loads and stores) of the loop's lanes, at most
 *     MLC_LOWER_MAX_VECTOR_BYTES wide (a longer loop in chunks);
 *   - unrolled loops of constant extent <= MLC_LOWER_MAX_UNROLL expanded
 *     when the copies stay within MLC_LOWER_MAX_UNROLL_STEPS statements and
 *     MLC_LOWER_MAX_UNROLL_NODES IR nodes (nested unrolled loops multiply);
 *     others remain loops with kind MLC_FOR_UNROLLED as a hint; loops under
 *     a `pragma_auto_unroll_max_step` annotation whose nest is that short
 *     count as unrolled (expanded only with `pragma_unroll_explicit` = 1);
 *   - parallel loops kept (MLC_FOR_PARALLEL), for the code generator to hand
 *     to the runtime thread pool; thread-bound loops kept for GPU targets;
 *   - indices simplified (mlc_arith_simplify with loop ranges known),
 *     floor division and modulo of non-negative indices by constants as
 *     the truncating ones; a reduction's init (an if on the first
 *     iteration of its loop) taken out of the loop.
 * The signature the runtime checks (ranks, shapes, dtypes) is taken from the
 * function before lowering, which the caller keeps. */
#ifndef MLCC_LOWER_H
#define MLCC_LOWER_H

#include "mlcc/ir.h"

#define MLC_LOWER_MAX_UNROLL 64
/* the most statements one unrolled loop expands into (its copies, with the
 * unrolled loops inside them expanded too) */
#define MLC_LOWER_MAX_UNROLL_STEPS 1024
/* the widest vector a vectorized loop becomes (AVX-512: 64 bytes); a
 * longer loop is vectorized in chunks of this width */
#define MLC_LOWER_MAX_VECTOR_BYTES 64
/* statements and expressions one unrolled loop may expand into */
#define MLC_LOWER_MAX_UNROLL_NODES 16384

typedef enum MlcLowerStage {
  MLC_LOWER_BLOCKS,     /* blocks -> loops, allocations */
  MLC_LOWER_COMPACT,    /* allocations moved in and shrunk to what they hold */
  MLC_LOWER_PAD,        /* inputs walked along power-of-two strides read from a padded copy */
  MLC_LOWER_FLATTEN,    /* N-d buffers -> 1-d */
  MLC_LOWER_UNROLL,
  MLC_LOWER_SIMPLIFY,   /* also folds the constants unrolling introduced */
  MLC_LOWER_INTERCHANGE, /* a spatial loop around a reduction loop moved inside it */
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
 * its accesses (inside a loop only when iterations touch disjoint elements,
 * or when the loop's threads have memory of that scope each: a shared
 * buffer in a blockIdx loop, a local one in any thread loop; a shared
 * buffer inside threadIdx loops spans all their threads) and shrunk there
 * to the constant-extent region they touch, indices shifted by the
 * region's min (symbolic in the outer loop vars).  What it cannot prove
 * stays as it was. */
MlcPrimFunc *mlc_lower_compact(MlcCtx *ctx, const MlcPrimFunc *f);
/* Index questions the stages share (affine.c): whether e uses var v, and
 * the constant coefficient of v in e (e = coef * v + terms without v;
 * false when e is not of that form). */
bool mlc_lower_uses_var(const MlcExpr *e, const MlcExpr *v);
bool mlc_lower_coef_of(const MlcExpr *e, const MlcExpr *v, int64_t *coef);

/* A parameter buffer that the loop nests read many times over (at least 8
 * reads per element) along a stride of a multiple of 2 KiB for at least 32
 * steps -- a walk down a column of rows whose size is a large power of two,
 * whose cache lines all fall into the same few sets -- is copied at the
 * function's entry into a buffer whose rows are one cache line longer, and
 * read from there.  Only for functions with `tir.noalias`, no thread-bound
 * loops and no extern calls; the buffer must have a constant shape and
 * nothing may write it.  Otherwise the function is returned unchanged. */
MlcPrimFunc *mlc_lower_pad(MlcCtx *ctx, const MlcPrimFunc *f);
/* A serial spatial loop S whose body is a serial reduction loop R (or a
 * sequence ending in one: an init, which keeps a loop over S of its own)
 * moves inside R when R's small body accumulates into elements indexed by
 * S and not by R, and S's iterations provably touch disjoint elements of
 * every buffer it writes: independent accumulators per step of R, each
 * element summed in the same order (interchange.c has the conditions). */
MlcPrimFunc *mlc_lower_interchange(MlcCtx *ctx, const MlcPrimFunc *f);
MlcPrimFunc *mlc_lower_flatten(MlcCtx *ctx, const MlcPrimFunc *f);
MlcPrimFunc *mlc_lower_unroll(MlcCtx *ctx, const MlcPrimFunc *f);
MlcPrimFunc *mlc_lower_simplify(MlcCtx *ctx, const MlcPrimFunc *f);
MlcPrimFunc *mlc_lower_vectorize(MlcCtx *ctx, const MlcPrimFunc *f);

/* Lower every prim func of a module (graph functions are kept as they are). */
MlcModule *mlc_lower_module(MlcCtx *ctx, const MlcModule *m, MlcLowerDump dump, void *user);

/* ---- GPU targets -------------------------------------------------------------
 * A GPU function is the lowered prim func taken apart into kernels.  Each
 * outermost loop bound to a thread axis (blockIdx.x/y/z, threadIdx.x/y/z)
 * starts one kernel; everything at the function's top level must be such a
 * loop, or an allocation of global memory (device memory that lives across
 * the kernels), so an unbound loop outside every kernel is refused by name.
 * Inside a kernel
 *   - every loop bound to an axis becomes `let var = axis + min`, the axis
 *     being one of the kernel's six axis vars; loops binding the same axis
 *     must have the same extent (nested ones are the same thread); thread
 *     extents are constants, block extents constants or expressions of the
 *     function's symbolic sizes; one launch covers them;
 *   - `shared` allocations (constant size, outside every threadIdx loop)
 *     move to the kernel's list, `local` ones stay where they are (private
 *     arrays);
 *   - a reduction whose loop is bound to threadIdx (a thread loop over a
 *     chain of serial loops down to a block `out = out OP value`, OP one of
 *     + * min max) becomes a cross-thread reduction: per-thread partial
 *     results, a tree over a shared array, thread 0 writing the result;
 *     any other reduction over a threadIdx loop is refused;
 *   - a barrier (MLC_STMT_EVALUATE of the kernel's barrier var) stands
 *     between two statements of a sequence when the later one reads or
 *     writes shared memory that an earlier one (since the last barrier)
 *     wrote, or writes shared memory an earlier one read, and at the end of
 *     a loop body whose next iteration would overwrite what this one read
 *     (and only there: global and local memory need none).  A barrier
 *     needed under a condition or loop that depends on the thread index
 *     (where threads of a block would not all reach it) is refused.
 * Limits are the launch limits of the device the code is built for;
 * mlc_gpu_default_limits are those every CUDA device and most OpenCL GPUs
 * meet (1024 threads per block, 48 KiB of shared memory). */
typedef enum MlcGpuAxis {
  MLC_GPU_BLOCK_X, MLC_GPU_BLOCK_Y, MLC_GPU_BLOCK_Z,
  MLC_GPU_THREAD_X, MLC_GPU_THREAD_Y, MLC_GPU_THREAD_Z,
  MLC_GPU_AXIS_COUNT
} MlcGpuAxis;

extern const char *const mlc_gpu_axis_names[MLC_GPU_AXIS_COUNT]; /* "blockIdx.x", ... */

typedef struct MlcGpuLimits {
  int64_t max_threads;          /* threads per block, all axes together */
  int64_t max_block[3];         /* per threadIdx axis */
  int64_t max_grid[3];          /* per blockIdx axis */
  int64_t max_shared_bytes;     /* shared memory per block */
} MlcGpuLimits;

extern const MlcGpuLimits mlc_gpu_default_limits;

typedef struct MlcGpuKernel {
  const char *name;                    /* FUNC_kernel, FUNC_kernel_1, ... */
  MlcExpr *axis[MLC_GPU_AXIS_COUNT];   /* the axis vars the body reads (int32) */
  MlcExpr *extent[MLC_GPU_AXIS_COUNT]; /* launch extents (int64; 1 when unused) */
  MlcExpr *barrier;                    /* EVALUATE(barrier) is a barrier */
  const MlcBuffer **buffers; int n_buffers; /* global buffers it reads or writes, in first-use order */
  MlcExpr **scalars; int n_scalars;    /* vars it reads that the function binds (sizes, scalar params) */
  const MlcBuffer **shared; int n_shared;
  MlcStmt *body;
} MlcGpuKernel;

typedef struct MlcGpuFunc {
  const MlcPrimFunc *lowered;          /* the function the kernels come from */
  MlcGpuKernel *kernels; int n_kernels; /* in launch order */
  const MlcBuffer **device; int n_device; /* global buffers the function allocates */
} MlcGpuFunc;

/* Lower f (a prim func as written or scheduled) for a GPU: cross-thread
 * reductions, the lowering pipeline, then the split into kernels described
 * above.  NULL + error
 * naming the loop, block or buffer when the program cannot run on a GPU. */
MlcGpuFunc *mlc_lower_gpu(MlcCtx *ctx, const MlcPrimFunc *f, const MlcGpuLimits *limits);

/* Whether f lowers for a GPU within *limits (a const MlcGpuLimits *, NULL:
 * mlc_gpu_default_limits); the error of a refusal is cleared.  The shape
 * of a schedule check (schedule.h, MlcSchAccept) for the default GPU
 * schedules. */
bool mlc_gpu_accepts(MlcCtx *ctx, const MlcPrimFunc *f, void *limits);

/* Reductions bound to threadIdx as cross-thread reductions (gpu_reduce.c):
 * the first stage of mlc_lower_gpu, on the blocks; f itself when it has
 * none of the shape it rewrites. */
MlcPrimFunc *mlc_gpu_lower_cross_thread(MlcCtx *ctx, const MlcPrimFunc *f);

/* The barrier stage alone, on one kernel body (the shared buffers known);
 * used by mlc_lower_gpu. */
MlcStmt *mlc_gpu_insert_barriers(MlcCtx *ctx, MlcGpuKernel *k, MlcStmt *body);

#endif
