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
#include "mlcc/lower.h"
#include "mlcc/runtime.h"

typedef enum MlcTarget {
  MLC_TARGET_NATIVE,   /* -march=native: the build machine's SIMD */
  MLC_TARGET_GENERIC,  /* portable x86-64 / the compiler's default */
} MlcTarget;

/* The GPU programming interfaces a module can be built for. */
typedef enum MlcGpuApi {
  MLC_GPU_NONE,    /* the CPU: C kernels */
  MLC_GPU_OPENCL,  /* OpenCL C kernels, run through libOpenCL */
  MLC_GPU_CUDA,    /* CUDA C kernels, run through the CUDA driver (NVRTC compiles them) */
} MlcGpuApi;

typedef struct MlcBuildOptions {
  const char *cc;      /* C compiler; NULL means $CC, else "cc" */
  MlcTarget target;    /* of the host code */
  MlcGpuApi gpu;       /* MLC_GPU_NONE: kernels in C for the CPU */
  const char *extra_cflags; /* appended to the compiler's command line, may be NULL */
  /* code of the user's to build into the output with the generated C: C
   * files (compiled with the same flags), objects, static or shared
   * libraries (a shared one is found again through its absolute path).
   * A model looks the extern functions it calls up here first (see
   * MlcModelOptions.linked_externs). */
  const char *const *link;
  int n_link;
} MlcBuildOptions;

/* The C source of every prim func of m (lowered on the way; graph functions
 * are not this function's business).  NULL-free: false + error on a
 * function the C target cannot express (e.g. thread-bound loops). */
bool mlc_codegen_c(MlcCtx *ctx, const MlcModule *m, MlcStrBuf *out);

/* Emit the C source to `<out_so without .so>.c`, then compile it into
 * out_so.  On a compiler failure the error names the .c file and carries the
 * compiler's message. */
bool mlc_build_shared(MlcCtx *ctx, const MlcModule *m, const char *out_so, const MlcBuildOptions *opt);

/* ---- GPU targets ------------------------------------------------------------
 * Each prim func is lowered for a GPU (lower.h, mlc_lower_gpu) and becomes
 * kernels in the device language plus a host function in C with the CPU
 * kernel's signature: it gets the module's program from the runtime (built
 * once per device, cached), moves the buffer arguments the kernels touch to
 * the device, launches the kernels in order with their grids, and moves
 * back what they wrote (docs/gpu.md).  The device source is embedded in the
 * module as a string; the module still links nothing but libc. */

/* the device source of every kernel of m's prim funcs (OpenCL C or CUDA C) */
bool mlc_codegen_gpu_source(MlcCtx *ctx, const MlcModule *m, MlcGpuApi api, MlcStrBuf *out);
/* the host C of the module: the source above as a string, the host
 * functions, the `mlcrt_module` descriptor */
bool mlc_codegen_gpu_module(MlcCtx *ctx, const MlcModule *m, MlcGpuApi api, MlcStrBuf *out);
/* "opencl" / "cuda"; the file name extension of the device source (".cl" / ".cu") */
const char *mlc_gpu_api_name(MlcGpuApi api);
const char *mlc_gpu_api_ext(MlcGpuApi api);

/* ---- models: graph functions compiled to C --------------------------------
 * The executor for a graph function after the graph pipeline (see
 * transform.h: explicit allocation and memory plan): straight-line C that
 * calls the prim funcs' kernels over the planned storage, computes symbolic
 * shapes from the inputs' and allocates those tensors at run time through
 * env->workspace_alloc, calls externs through env->get_extern (resolved in
 * create), and reads constants from the weights payload.  Supported: the
 * bindings the pipeline produces (alloc ops, DPS calls of prim funcs and
 * externs, tuples, get_item, aliases, constants); anything else is an error
 * naming the binding. */

/* The weights payload: every constant of the module's graph functions,
 * MLCRT_ALIGN-aligned, in first-use order.  *out is malloc'd. */
bool mlc_model_params(MlcCtx *ctx, const MlcModule *m, void **out, size_t *nbytes);

typedef struct MlcModelOptions {
  const char *entry;      /* the graph function to export; NULL: "main" */
  bool embed_params;      /* weights inside model.so instead of params.bin */
  const char *prefix;     /* C prefix of model.h's API; NULL: "model" */
  MlcGpuApi gpu;          /* the kernels' target (mlc_build_model takes it from MlcBuildOptions) */
  /* when not NULL, receives the executor's call sites (the model
   * descriptor's `sites`, what profiles report), in the context's arena */
  MlcrtCallSite **sites;
  int *n_sites;
  /* each extern function the model calls (call_dps_packed, call_packed) is
   * first looked up among the code built into model.so: a function named
   * after the extern, every character other than a letter, digit or
   * underscore made an underscore ("env.relu" -> env_relu), of the type
   * MlcrtExternFn; when there is none, in the runtime's registry
   * (mlc_build_model sets this when MlcBuildOptions.link is not empty) */
  bool linked_externs;
} MlcModelOptions;

/* C source of the whole model: the prim func kernels, the executor, the
 * `mlcrt_module` and `mlcrt_model` descriptors; with embed_params the
 * payload as an aligned array. */
bool mlc_codegen_model_c(MlcCtx *ctx, const MlcModule *m, const MlcModelOptions *mo,
                         MlcStrBuf *out);

/* model.h: a plain C header over the runtime's mlcrt_model_* API for this
 * model: PREFIX_create(params_path) / PREFIX_run / PREFIX_free and the
 * names, dtypes and shapes of inputs and outputs. */
bool mlc_codegen_model_header(MlcCtx *ctx, const MlcModule *m, const MlcModelOptions *mo,
                              MlcStrBuf *out);

/* Write DIR/model.c, DIR/model.h, DIR/model.so and (unless embedded)
 * DIR/params.bin; the module must have been through the graph pipeline. */
bool mlc_build_model(MlcCtx *ctx, const MlcModule *m, const char *dir, const MlcBuildOptions *opt,
                     const MlcModelOptions *mo);

#endif
