/* interp.h - the reference interpreter of tensor programs: the oracle every
 * numerical test compares against.
 *
 * It runs any prim func, before or after scheduling or lowering, directly on
 * the IR: blocks (with their init at the first value of every reduce iter
 * var, and their predicate), every loop kind serially, lets, ifs, vector
 * expressions lane by lane, symbolic sizes bound from the arguments' shapes.
 * Simple over fast; every access is bounds-checked, so a wrong index in a
 * transformed program is reported instead of read. */
#ifndef MLCC_INTERP_H
#define MLCC_INTERP_H

#include "mlcc/ir.h"

/* One argument per prim func param: a buffer (data laid out densely in
 * row-major order, or by the buffer's strides when it has them) or a
 * scalar. */
typedef struct MlcInterpArg {
  bool is_buffer;
  void *data;            /* buffer: element storage of the buffer's dtype */
  int ndim;              /* buffer: rank of data, must match the buffer's */
  const int64_t *shape;  /* buffer: binds symbolic sizes; checked against constants */
  int64_t i;             /* scalar int param */
  double f;              /* scalar float param */
} MlcInterpArg;

/* Run f on args.  False with an error in ctx (naming the function, buffer
 * and index) on a mismatched argument, an out-of-bounds access, a division
 * by zero or an allocation over the limit. */
bool mlc_interp_run(MlcCtx *ctx, const MlcPrimFunc *f, const MlcInterpArg *args, int n);

/* Run a lowered function f whose arguments are described by sig, the same
 * function before lowering: args are checked against sig's params (ranks,
 * shapes, symbolic sizes bound from them), then f's params -- the same
 * params, their buffers maybe flattened -- view the same data.  This is how
 * a function after mlc_lower_flatten, whose buffer shapes no longer name the
 * symbolic sizes alone, is run.  sig == f is mlc_interp_run. */
bool mlc_interp_run_lowered(MlcCtx *ctx, const MlcPrimFunc *sig, const MlcPrimFunc *f,
                            const MlcInterpArg *args, int n);

/* Upper bound on the bytes of one intermediate buffer the interpreter will
 * allocate (1 GiB). */
#define MLC_INTERP_MAX_ALLOC ((size_t)1 << 30)

#endif
