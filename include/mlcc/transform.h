/* transform.h - graph passes: module -> module transformations of the graph
 * functions (prim funcs are added by legalization, otherwise kept).
 *
 * Each pass returns a new module (sharing what did not change) or NULL with
 * a located error: a pass sets ctx->build_loc to the binding it is working
 * on, so an op's complaint points at the line that wrote the call.
 *
 * The forms the passes produce are ordinary TVMScript, so every stage prints
 * and reads back:
 *   after legalization   lv = R.call_tir(cls.add, (x, y), out_sinfo=R.Tensor((4, 8), "float32"))
 *   after explicit allocation
 *       alloc = R.builtin.alloc_tensor(R.shape([4, 8]), R.dtype("float32"), R.prim_value(0))
 *       _ = cls.add(x, y, alloc)                       # a prim func called in DPS
 *       _ = R.call_packed("env.linear", x, w, b, alloc1, sinfo_args=(R.Object,))
 *       lv = alloc
 *   after memory planning (static shapes only; symbolic ones keep
 *   builtin.alloc_tensor and are allocated at run time; outputs of the
 *   function are never planned, they escape)
 *       storage = R.memory.alloc_storage(R.shape([8192]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
 *       alloc = R.memory.alloc_tensor(storage, R.prim_value(4096), R.shape([4, 8]), R.dtype("float32"))
 *   one storage per function ("an arena"), offsets MLCRT_ALIGN-aligned.
 */
#ifndef MLCC_TRANSFORM_H
#define MLCC_TRANSFORM_H

#include "mlcc/ir.h"
#include "mlcc/schedule.h"

/* Infer the struct info of every binding from the op registry and from
 * call_tir / call_dps_packed out_sinfo / global function return types, and
 * check annotations agree with it. */
MlcModule *mlc_pass_infer_sinfo(MlcCtx *ctx, const MlcModule *m);

/* Replace the params of function `func` named in names[] by constants (the
 * weights); the params are removed from the signature.  A name that is no
 * param, or data whose shape/dtype disagrees with the param's annotation, is
 * an error naming both. */
MlcModule *mlc_pass_bind_params(MlcCtx *ctx, const MlcModule *m, const char *func,
                                const char *const *names, MlcTensorData *const *data, int n);

/* Compile-time work on weights (fold.c).  fold_batch_norm: an inference
 * batch norm with constant parameters becomes x * s + t, and right after a
 * conv2d with a constant weight the scale goes into the weight (only the
 * shift, a bias add, is left).  fold_constants: op calls on constants are
 * evaluated (mlc_op_fold) when the result is no larger than their inputs
 * (or 64K elements), and a reshape/cast to the same shape and dtype goes. */
/* Calls of graph functions from graph functions replaced by the callees'
 * bindings (fresh vars; the callee's symbolic sizes become the arguments'
 * dims); recursion is refused. */
MlcModule *mlc_pass_inline_calls(MlcCtx *ctx, const MlcModule *m);
MlcModule *mlc_pass_fold_batch_norm(MlcCtx *ctx, const MlcModule *m);
MlcModule *mlc_pass_fold_constants(MlcCtx *ctx, const MlcModule *m);

/* Float32 matmuls with a 2-D right operand (a weight) and at least 64^3
 * multiply-adds (or a symbolic dim) -> R.call_dps_packed("env.matmul", ...),
 * the runtime's BLAS-backed extern (plain C loops where no BLAS loads). */
MlcModule *mlc_pass_dispatch_library(MlcCtx *ctx, const MlcModule *m);
/* The same, asking keep(user, call) first about each matmul it would
 * dispatch (the R.matmul call, its arguments' struct info inferred): true
 * leaves that call to the generated kernel (measured faster: the tuner's
 * records).  keep NULL: every one is dispatched. */
typedef bool (*MlcDispatchKeep)(void *user, const MlcGExpr *call);
MlcModule *mlc_pass_dispatch_library_if(MlcCtx *ctx, const MlcModule *m, MlcDispatchKeep keep, void *user);
/* Op calls -> call_tir of generated prim funcs, one per distinct op call
 * (op, attributes, input shapes and dtypes); structurally equal prim funcs
 * are shared.  Prim func names are the op name's last part: "add", "add1", "conv2d"... */
MlcModule *mlc_pass_legalize_ops(MlcCtx *ctx, const MlcModule *m);

/* Fusion (fuse_ops.c, fuse_tir.c).  fuse_ops groups the call_tir bindings
 * of each dataflow block by the op patterns of their prim funcs
 * (mlc_prim_func_pattern) along post-dominators, and turns each group of
 * two or more into a graph function with attribute Primitive = 1
 * (`fused_conv2d_add_relu`) that the group's exit binding calls; equal
 * groups share one.  fuse_tir replaces each such function by one prim func
 * running the members' loop nests in order, and its calls by call_tir. */
MlcModule *mlc_pass_fuse_ops(MlcCtx *ctx, const MlcModule *m);
MlcModule *mlc_pass_fuse_tir(MlcCtx *ctx, const MlcModule *m);

/* Pure bindings whose var is never used are removed (repeatedly), and
 * functions no graph function reaches from the module's entry points are
 * dropped (prim funcs called by nothing, when every graph function is kept). */
MlcModule *mlc_pass_dead_code(MlcCtx *ctx, const MlcModule *m);

/* y = x aliases are replaced by x; tuple-of-get-items collapses back to the
 * tuple; a dataflow var bound only to be output becomes the output var. */
MlcModule *mlc_pass_canonicalize_bindings(MlcCtx *ctx, const MlcModule *m);

/* call_tir / call_dps_packed -> builtin.alloc_tensor + a DPS call (see top). */
MlcModule *mlc_pass_explicit_alloc(MlcCtx *ctx, const MlcModule *m);

/* Memory plan statistics of one graph function. */
typedef struct MlcMemPlanStats {
  const char *func;
  int64_t n_tensors;        /* intermediate tensors planned */
  int64_t planned_bytes;    /* the storage's size */
  int64_t naive_bytes;      /* sum of the planned tensors' sizes (no reuse) */
  int64_t lower_bound;      /* max over program points of the bytes live there */
  int64_t n_dynamic;        /* symbolic-shape tensors left to run-time allocation */
} MlcMemPlanStats;

/* Liveness-based static plan (see top).  stats (may be NULL) gets one entry
 * per graph function, in module order: *stats is malloc'd, *n_stats set. */
MlcModule *mlc_pass_plan_memory(MlcCtx *ctx, const MlcModule *m, MlcMemPlanStats **stats,
                                int *n_stats);

/* Weights laid out for their kernels (weight_layout.c; the default_schedule
 * stage does both steps).  mark_layout_free lists in each prim func's
 * "layout_free_buffers" the params every caller passes a constant, which a
 * schedule may then lay out anew (transform_layout on a param);
 * apply_layout_rewrites lays out the constants passed to each prim func as
 * its "layout_rewrites" says -- once: a second run would lay them out again. */
MlcModule *mlc_pass_mark_layout_free(MlcCtx *ctx, const MlcModule *m);
MlcModule *mlc_pass_apply_layout_rewrites(MlcCtx *ctx, const MlcModule *m);

/* ---- the pipeline ------------------------------------------------------------ */
#define MLC_GRAPH_PASSES(X)                                \
  X(INFER_SINFO, "infer_sinfo")                          \
  X(INLINE_CALLS, "inline_calls")                        \
  X(FOLD_BATCH_NORM, "fold_batch_norm")                  \
  X(FOLD_CONSTANTS, "fold_constants")                    \
  X(DISPATCH, "dispatch_library")                        \
  X(LEGALIZE, "legalize_ops")                            \
  X(CANONICALIZE, "canonicalize_bindings")               \
  X(FUSE_OPS, "fuse_ops")                                \
  X(FUSE_TIR, "fuse_tir")                                \
  X(DEAD_CODE, "dead_code")                              \
  X(DEFAULT_SCHEDULE, "default_schedule")                \
  X(EXPLICIT_ALLOC, "explicit_alloc")                    \
  X(PLAN_MEMORY, "plan_memory")

typedef enum MlcGraphPass {
#define X(id, s) MLC_PASS_##id,
  MLC_GRAPH_PASSES(X)
#undef X
  MLC_PASS_COUNT
} MlcGraphPass;

extern const char *const mlc_graph_pass_names[MLC_PASS_COUNT];

typedef void (*MlcPassDump)(void *user, MlcGraphPass pass, const MlcModule *m);

/* The graph pipeline as one flat function: the passes above in order, up to
 * and including `last`; dump (may be NULL) after each.  target: what the
 * default schedules are sized for, NULL for none (the stage then changes
 * nothing); they apply to the prim funcs the pipeline made (legalized,
 * fused), never to those m came with, which keep the schedule their author
 * gave them.  stats as for mlc_pass_plan_memory (left empty when planning
 * does not run). */
MlcModule *mlc_graph_pipeline(MlcCtx *ctx, const MlcModule *m, const MlcSchTarget *target, MlcGraphPass last,
                              MlcPassDump dump, void *user, MlcMemPlanStats **stats, int *n_stats);

/* One pass of the pipeline alone: target as above, given the prim funcs
 * whose schedules are their author's (NULL: none), stats as for
 * mlc_pass_plan_memory.  NULL + error when the pass fails. */
MlcModule *mlc_graph_pass_run(MlcCtx *ctx, const MlcModule *m, MlcGraphPass pass, const MlcSchTarget *target,
                              const MlcMap *given, MlcMemPlanStats **stats, int *n_stats);

/* Default schedules (the rules of mlc_sch_apply_default) for every prim func
 * of m that `keep` does not hold, the pipeline's stage after dead code. */
MlcModule *mlc_pass_default_schedule(MlcCtx *ctx, const MlcModule *m, const MlcSchTarget *target, const MlcMap *keep);

#endif
