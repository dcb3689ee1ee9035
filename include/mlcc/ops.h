/* ops.h - the op registry: for each graph op, its signature, its struct-info
 * inference, its tensor-expression definition and its fusion kind.
 *
 * The ops are declared once, in X-macro tables: one per subject beside its
 * source file (src/ops/elemwise.def, conv_pool.def, ...), all listed in
 * src/ops/ops.def.  Names are the field's (`add`, `nn.relu`, `nn.conv2d`,
 * `permute_dims`, ...), so a graph function written as
 * `R.nn.conv2d(x, w, strides=[2, 2])` in TVMScript reaches the op
 * "nn.conv2d".
 *
 * A call's arguments are matched to the op's declared parameters the way the
 * field's Python signature would match them: positionally, then by keyword
 * (the reader stores keywords as the call's attributes).  Tensor parameters
 * take graph values; the others (axes, strides, dtypes, shapes, fill values)
 * may come as a shape (`(1, n)`), a prim value, a dtype, a string, or an
 * attribute value, and are normalized to attribute values.
 *
 * Errors are located: inference and legalization report at ctx->build_loc,
 * which a pass sets to the binding being processed, and name the op and what
 * was expected, e.g.
 *   model.py:12:9: error: matmul: inner dims differ: x1 is (4, 784), x2 is (100, 10)
 */
#ifndef MLCC_OPS_H
#define MLCC_OPS_H

#include "mlcc/ir.h"
#include "mlcc/te.h"

/* how an op can be fused with its neighbours, from most to least fusable */
#define MLC_FUSE_KINDS(X)                                                  \
  X(ELEMWISE, "elemwise")          /* out[i] = f(in[i]), same shapes */    \
  X(BROADCAST, "broadcast")        /* elementwise after broadcasting */    \
  X(INJECTIVE, "injective")        /* each output reads one input element */ \
  X(REDUCTION, "reduction")                                                \
  X(OUT_EWISE_FUSABLE, "out_ewise_fusable") /* matmul, conv: an elementwise op may follow */ \
  X(OPAQUE, "opaque")

typedef enum MlcFuseKind {
#define X(id, s) MLC_FUSE_##id,
  MLC_FUSE_KINDS(X)
#undef X
  MLC_FUSE_COUNT
} MlcFuseKind;

extern const char *const mlc_fuse_kind_names[MLC_FUSE_COUNT];

#define MLC_OP_MAX_PARAMS 12

/* A call matched to its op's parameters: for parameter i, either a graph
 * value (T / U / V parameters) or an attribute value (the rest);
 * absent optional parameters are NULL in both. */
typedef struct MlcOpArgs {
  const struct MlcOpDef *op;
  const MlcGExpr *call;
  int n;                                  /* the op's parameter count */
  const MlcGExpr *val[MLC_OP_MAX_PARAMS]; /* tensor / tuple params */
  const MlcAttrValue *attr[MLC_OP_MAX_PARAMS];
} MlcOpArgs;

/* The TE definition of a call: placeholders for its tensor inputs (built by
 * the registry from the args' struct info, in parameter order) are in
 * `inputs`; the op returns its output computes in outs (one, or several for
 * tuple-valued ops such as split and nn.batch_norm). */
typedef bool (*MlcOpTeFn)(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs,
                          MlcTeTensor **outs, int *n_outs);
typedef MlcSInfo *(*MlcOpInferFn)(MlcCtx *ctx, const MlcOpArgs *a);
/* An op whose kernel is a scan (each step depends on the steps before, as
 * NonMaxSuppression's greedy selection does) has no TE definition: it builds
 * its prim func, named `name`, directly as a loop nest, params as
 * mlc_op_to_prim_func gives them. */
typedef MlcPrimFunc *(*MlcOpPrimFn)(MlcCtx *ctx, const MlcOpArgs *a, const char *name);

typedef struct MlcOpDef {
  const char *name;      /* "nn.conv2d" */
  /* parameters, space separated, each KIND:NAME with an optional "?" for
   * optional: T tensor, U tuple of tensors, V any graph value
   * (a storage object), A attribute.  E.g.
   * "T:data T:weight A:strides? A:padding? A:dilation? A:groups?" */
  const char *signature;
  MlcFuseKind fuse;
  MlcOpInferFn infer;
  MlcOpTeFn te;          /* NULL: not legalizable (builtins, memory ops) ... */
  MlcOpPrimFn prim;      /* ... unless this is set (te is then NULL) */
} MlcOpDef;

/* the op has a kernel: a TE definition or a prim func of its own */
static inline bool mlc_op_legalizable(const MlcOpDef *op) { return op && (op->te || op->prim); }

/* NULL when there is no such op */
const MlcOpDef *mlc_op_find(const char *name);
int mlc_op_count(void);
const MlcOpDef *mlc_op_at(int i);

/* Match call (an MLC_G_CALL whose callee is MLC_G_OP) to its op's parameters.
 * False + located error on an unknown op, a missing or repeated argument,
 * an unknown keyword, or a non-tensor given for a tensor parameter. */
bool mlc_op_match(MlcCtx *ctx, const MlcGExpr *call, MlcOpArgs *out);

/* The struct info of the call's result, from its args' struct info (static
 * or symbolic shapes, broadcasting).  NULL + located error on a mismatch. */
MlcSInfo *mlc_op_infer(MlcCtx *ctx, const MlcGExpr *call);

/* The prim func computing the call, named `name`: params are the tensor
 * inputs (flattening tuple params) then the outputs, as call_tir expects.
 * The args' struct info must be tensors of known rank and dtype. */
MlcPrimFunc *mlc_op_to_prim_func(MlcCtx *ctx, const MlcGExpr *call, const char *name);

/* The call evaluated at compile time (fold.c): when every argument is a
 * constant (a tuple argument's fields too), the op has a definition, and the
 * result is a tensor of static shape with at most max_numel elements, the
 * constant it computes; else NULL, with no error left behind. */
MlcGExpr *mlc_op_fold(MlcCtx *ctx, const MlcGExpr *call, int64_t max_numel);

#endif
