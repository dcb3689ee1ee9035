/* te.h - tensor expressions: compute definitions that become prim funcs.
 *
 * A TE tensor is either a placeholder (an input of given shape and dtype) or
 * a compute: a value per index of its shape, written as a TIR expression over
 * its index vars, optionally reduced over reduce axes (sum, max, min).  The
 * body reads other TE tensors with mlc_te_read, which is a plain buffer load
 * of the tensor's buffer, so every TIR expression (select, casts, math calls)
 * is available.  mlc_te_to_prim_func turns a set of tensors into the
 * block-based prim func a person would write by hand: one block per compute
 * (named after the tensor, in dependence order), loops over its shape with
 * the reduce axes innermost, T.axis.remap-style spatial/reduce iter vars,
 * reads/writes regions, and T.init() for reductions; computes that are not
 * params become intermediate buffers (alloc_buffer in the root block).
 *
 * Shapes are int64 TIR expressions (constants or symbolic vars, possibly
 * arithmetic on them), as graph struct info holds them; index vars have the
 * shape's dtype.  Symbolic vars in param shapes become the prim func's
 * symbolic sizes (`n = T.int64()` in the text).
 *
 * Errors: NULL + a message in the context (at ctx->build_loc), e.g. a read
 * with the wrong number of indices, or a compute whose body reads an index
 * var that is not its own. */
#ifndef MLCC_TE_H
#define MLCC_TE_H

#include "mlcc/ir.h"

typedef enum MlcTeReduce { MLC_TE_NO_REDUCE, MLC_TE_SUM, MLC_TE_MAX, MLC_TE_MIN } MlcTeReduce;

typedef struct MlcTeTensor MlcTeTensor;
struct MlcTeTensor {
  const char *name;        /* interned; the block / buffer name */
  int ndim;
  MlcExpr **shape;         /* ndim int64 exprs */
  MlcDType dtype;
  MlcBuffer *buffer;       /* what mlc_te_read loads from */
  bool is_compute;         /* false: placeholder */
  /* compute only */
  MlcExpr **axes;          /* ndim spatial index vars */
  MlcExpr *body;           /* the value (per reduce step, for reductions) */
  MlcTeReduce reduce;
  MlcExpr **raxes;         /* n_raxes reduce index vars, each over [0, rextents[i]) */
  MlcExpr **rextents;
  int n_raxes;
};

/* a fresh index var of dtype int64 (spatial axis or reduce axis) */
MlcExpr *mlc_te_var(MlcCtx *ctx, const char *name);

MlcTeTensor *mlc_te_placeholder(MlcCtx *ctx, const char *name, MlcExpr **shape, int ndim,
                                MlcDType dtype);

/* t[idx...]: n must equal t->ndim; int32 indices are widened */
MlcExpr *mlc_te_read(MlcCtx *ctx, const MlcTeTensor *t, MlcExpr **idx, int n);

/* out[axes...] = body; axes are ndim vars from mlc_te_var, one per dim */
MlcTeTensor *mlc_te_compute(MlcCtx *ctx, const char *name, MlcExpr **shape, int ndim,
                            MlcExpr **axes, MlcExpr *body);

/* out[axes...] = reduce over raxes of body (sum: init 0; max: init the
 * dtype's lowest value; min: its highest); the dtype is body's */
MlcTeTensor *mlc_te_reduce(MlcCtx *ctx, const char *name, MlcExpr **shape, int ndim,
                           MlcExpr **axes, MlcTeReduce op, MlcExpr *body, MlcExpr **raxes,
                           MlcExpr **rextents, int n_raxes);

/* The prim func computing every compute reachable from params that are
 * computes, with params (placeholders and computes, in the given order) as
 * its buffer params: inputs first, outputs last, by convention.  Every
 * placeholder a compute reads must be a param.  Attributes: global_symbol =
 * name, tir.noalias = True. */
MlcPrimFunc *mlc_te_to_prim_func(MlcCtx *ctx, const char *name, MlcTeTensor **params, int n);

/* the lowest / highest finite value of a dtype, as an immediate (max/min init) */
MlcExpr *mlc_te_min_value(MlcCtx *ctx, MlcDType t);
MlcExpr *mlc_te_max_value(MlcCtx *ctx, MlcDType t);

#endif
