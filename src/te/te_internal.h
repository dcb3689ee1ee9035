/* te_internal.h - what the TE builders (te.c) and the conversion to a prim
 * func (to_prim_func.c) share: how a TE tensor is found from its buffer.
 *
 * A compute's body reads other tensors as plain buffer loads, so the
 * conversion has to get from a loaded buffer back to the tensor that
 * defines it.  Every TE tensor is allocated together with its buffer, and
 * that buffer's scope string is a pointer private to te.c: a buffer with
 * that scope is certainly one of ours, and its tensor lies beside it.  Those
 * buffers exist only inside TE bodies; the prim func gets fresh buffers. */
#ifndef MLCC_TE_INTERNAL_H
#define MLCC_TE_INTERNAL_H

#include "mlcc/te.h"

/* the tensor whose buffer b is; NULL when b is not a TE tensor's buffer */
MlcTeTensor *mlc_te_tensor_of(const MlcBuffer *b);

/* the TE tensors a compute's body loads, each once, in order of first load
 * (NULL + no error when there are none: *n is 0) */
MlcTeTensor **mlc_te_inputs(MlcCtx *ctx, const MlcTeTensor *t, int *n);

/* f with each parameter dim that is an expression over sizes no parameter
 * binds by a bare dim replaced by a size var of its own, in the shapes and
 * the body (size_vars.c); f itself when there is none, or when the body
 * still needs the old sizes apart */
MlcPrimFunc *te_bind_size_exprs(MlcCtx *ctx, MlcPrimFunc *f);

#endif
