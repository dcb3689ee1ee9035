/* codegen.h - code generation: C source for CPU modules (and, later, OpenCL
 * and CUDA), and the build driver that turns it into a shared object the
 * runtime loads.
 *
 * The C emitted for a module is one readable file: per prim func a kernel
 * (original names kept, loops indented, vector code through the GCC/Clang
 * vector extensions so the system compiler emits SIMD), parallel loop bodies
 * outlined into closures run by the runtime's thread pool through MlcrtEnv,
 * and the `mlcrt_module` descriptor table whose parameter descriptions come
 * from the functions before lowering (see docs/runtime.md). */
#ifndef MLCC_CODEGEN_H
#define MLCC_CODEGEN_H

#include "mlcc/ir.h"

typedef enum MlcTarget {
  MLC_TARGET_NATIVE,   /* -march=native: the build machine's SIMD */
  MLC_TARGET_GENERIC,  /* portable x86-64 / the compiler's default */
} MlcTarget;

typedef struct MlcBuildOptions {
  const char *cc;      /* C compiler; NULL means $CC, else "cc" */
  MlcTarget target;
  const char *extra_cflags; /* appended to the compiler's command line, may be NULL */
} MlcBuildOptions;

/* The C source of every prim func of m (lowered on the way; graph functions
 * are not this function's business).  NULL-free: false + error on a
 * function the C target cannot express (e.g. thread-bound loops). */
bool mlc_codegen_c(MlcCtx *ctx, const MlcModule *m, MlcStrBuf *out);

/* Emit the C source to `<out_so without .so>.c`, then compile it into
 * out_so.  On a compiler failure the error names the .c file and carries the
 * compiler's message. */
bool mlc_build_shared(MlcCtx *ctx, const MlcModule *m, const char *out_so, const MlcBuildOptions *opt);

#endif
