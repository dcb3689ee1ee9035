/* gpu_emit.h - what the GPU generators share: the two device languages as
 * one table of spellings, and the kernel emitter over it. */
#ifndef MLCC_CODEGEN_GPU_EMIT_H
#define MLCC_CODEGEN_GPU_EMIT_H

#include "mlcc/codegen.h"

/* OpenCL C and CUDA C differ in spellings, not in structure: a kernel is a
 * C function over pointers with a qualifier, the thread indices are
 * builtins, shared memory is a qualified array.  Types are per dtype. */
typedef struct GpuDialect {
  const char *name, *ext;
  const char *prelude;       /* pragmas and helpers at the top of the source */
  const char *kernel;        /* before the kernel's name */
  const char *global;        /* qualifier of a pointer to global memory */
  const char *shared;        /* qualifier of a shared array */
  const char *barrier;       /* the statement */
  const char *block_idx;     /* printf format of block index d (0, 1, 2) */
  const char *thread_idx;
  /* int8 uint8 int16 uint16 int32 uint32 int64 uint64 */
  const char *ints[8];
  const char *inf;           /* float32 infinity */
  bool vector_loads;         /* vloadN / vstoreN for contiguous float vectors */
} GpuDialect;

const GpuDialect *gpu_dialect(MlcGpuApi api);
/* the value type of a dtype's element, NULL when the device language has
 * none the generator uses (float16, bfloat16) */
const char *gpu_type(const GpuDialect *d, MlcDType t);
/* the kernels of one function, appended to out; false + error naming the
 * function when something cannot be written */
bool gpu_emit_kernels(MlcCtx *ctx, const MlcGpuFunc *g, const GpuDialect *d, MlcStrBuf *out);

/* x is an integer division or remainder (any rounding) */
bool gpu_int_division(const MlcExpr *x);
/* x is one that a kernel checks (its divisor is not a constant other than
 * 0 and -1): written through the checking helpers */
bool gpu_div_checked(const MlcExpr *x);
/* k checks a division or an index (T.checked_index), so it takes the
 * fault word: a trailing `int *mlc_fault` in global memory, 0 on launch,
 * set by a failing thread to 1 (MLC_DIV_BY_ZERO_MSG), 2
 * (MLC_DIV_OVERFLOW_MSG) or 3 (MLC_INDEX_RANGE_MSG) */
bool gpu_kernel_checks(const MlcGpuKernel *k);

/* The host functions of a module's prim funcs as a writer for
 * c_emit_module_with (c_emit.h), for the model executor to call: every
 * prim func lowered for the GPU on creation; NULL + error when one cannot
 * be.  Free with gpu_writer_free. */
struct CFuncWriter;
struct CFuncWriter *gpu_writer_new(MlcCtx *ctx, const MlcModule *m, MlcGpuApi api);
void gpu_writer_free(struct CFuncWriter *w);

#endif
