/* runtime.h - the mlcc runtime: the only code a compiled model links against.
 *
 * It holds tensors in the DLPack layout, loads compiled modules (shared
 * objects that export one data symbol, `mlcrt_module`), checks arguments
 * against each function's declared parameters and calls it, runs parallel
 * loops on a persistent thread pool, times functions, and reads and writes
 * .npy/.npz files.  It depends on libc, pthreads, dl and zlib (deflated .npz
 * entries) only, and nothing in it includes the compiler's headers, so the
 * prefix is `mlcrt_` / `Mlcrt`.  A program links it with
 * `-lmlcrt -lpthread -ldl -lz -lm`.
 *
 * Errors: every function that can fail returns an int status (0 ok, non-zero
 * failure) or NULL, and leaves a message for `mlcrt_last_error()` in
 * thread-local storage.  Nothing here prints, asserts on input or exits.
 *
 * docs/runtime.md describes the module ABI and the calling convention for the
 * author of a code generator; the comments below are the normative version. */
#ifndef MLCC_RUNTIME_H
#define MLCC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- DLPack tensors --------------------------------------------------------
 * The layout (field order and types) is DLPack's, so a tensor from any
 * DLPack producer can be handed over by pointer.  When a real dlpack.h was
 * included first (it defines DLPACK_VERSION), its definitions are used. */
#ifndef DLPACK_VERSION
typedef enum {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLBool = 6,
} DLDataTypeCode;

typedef enum {
  kDLCPU = 1,
} DLDeviceType;

typedef struct {
  uint8_t code;   /* a DLDataTypeCode */
  uint8_t bits;   /* bits per lane: 8, 16, 32, 64 (bool: 8; 4 or 2 for sub-byte types) */
  uint16_t lanes; /* 1 for scalars, > 1 for vector element types */
} DLDataType;

typedef struct {
  int32_t device_type; /* a DLDeviceType; the runtime runs kDLCPU only */
  int32_t device_id;
} DLDevice;

typedef struct {
  void *data;           /* base pointer; the elements start at data + byte_offset */
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;       /* ndim entries */
  int64_t *strides;     /* in elements; NULL means compact row-major */
  uint64_t byte_offset;
} DLTensor;
#endif

/* DLPack 1.1's codes of the 8- and 4-bit float formats (an older dlpack.h
 * included first may lack them).  The runtime holds every element of these
 * and of the 4- and 2-bit integers (kDLInt/kDLUInt with bits 4 or 2) in a
 * byte of its own, not packed as DLPack's sub-byte types are: an int4 or
 * int2 element sign-extended to the byte, a uint4/uint2 zero-extended, a
 * float4_e2m1fn its 4-bit code in the low bits (docs/runtime.md). */
enum {
  MLCRT_DL_FLOAT8_E4M3FN = 10,
  MLCRT_DL_FLOAT8_E4M3FNUZ = 11,
  MLCRT_DL_FLOAT8_E5M2 = 12,
  MLCRT_DL_FLOAT8_E5M2FNUZ = 13,
  MLCRT_DL_FLOAT8_E8M0FNU = 14,
  MLCRT_DL_FLOAT4_E2M1FN = 17,
};

/* the most dimensions a tensor created or read by the runtime has */
#define MLCRT_MAX_NDIM 32
/* the alignment of data the runtime allocates */
#define MLCRT_ALIGN 64

/* ---- errors ---------------------------------------------------------------- */

/* the message of this thread's last failure ("" when none yet) */
const char *mlcrt_last_error(void);
/* set this thread's message (printf-style); returns -1 so callers can
 * `return mlcrt_set_error(...)` */
int mlcrt_set_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* ---- dtypes ----------------------------------------------------------------- */

/* "float32", "int8", "uint8", "bool", "bfloat16", "float32x4" ...; writes at
 * most cap bytes (NUL included) and returns buf */
char *mlcrt_dtype_name(DLDataType t, char *buf, size_t cap);
/* bytes per element, rounding sub-byte types up; 0 for an invalid dtype */
size_t mlcrt_dtype_bytes(DLDataType t);
/* the common dtypes: code, bits, 1 lane */
DLDataType mlcrt_dtype(uint8_t code, uint8_t bits);

/* ---- tensors owned by the runtime ---------------------------------------------
 * An MlcrtTensor is a DLTensor (its first member, so `&t->dl` is what a call
 * takes) whose shape and data the runtime allocated: data is MLCRT_ALIGN-byte
 * aligned, zeroed, never NULL (an empty tensor still has a valid pointer),
 * strides NULL, byte_offset 0, device CPU. */
typedef struct MlcrtTensor {
  DLTensor dl;
  int64_t shape[MLCRT_MAX_NDIM];
} MlcrtTensor;

/* sizes are checked: dims >= 0, numel and bytes must fit in int64 and size_t */
int mlcrt_tensor_create(int32_t ndim, const int64_t *shape, DLDataType dtype, MlcrtTensor **out);
void mlcrt_tensor_free(MlcrtTensor *t);
/* element count and data size of any DLTensor; -1 (with the message set) on a
 * negative dim, a rank outside [0, MLCRT_MAX_NDIM], or overflow */
int64_t mlcrt_tensor_numel(const DLTensor *t);
int64_t mlcrt_tensor_nbytes(const DLTensor *t);
/* set every element of a compact CPU tensor to value, converted to its dtype
 * (integers truncate toward zero; a value outside the integer range, or NaN
 * for an integer type, is refused) */
int mlcrt_tensor_fill(DLTensor *t, double value);

/* ---- module ABI -------------------------------------------------------------
 * A compiled module is a shared object that exports one data symbol
 *
 *     const MlcrtModuleDesc mlcrt_module = { MLCRT_ABI_VERSION, n, funcs };
 *
 * and needs no symbol of the runtime at link time: everything a kernel needs
 * from the runtime (parallel loops, scratch memory, error messages) comes in
 * the MlcrtEnv passed to every call.  A generated file may include this header
 * or repeat the few struct definitions it needs; the layouts below are fixed
 * for a given MLCRT_ABI_VERSION.
 *
 * Each function declares its parameters.  A buffer parameter (is_buffer 1)
 * has a dtype, a rank and dims: dim >= 0 is a constant size, dim < 0 is the
 * symbolic size number -(dim + 1), an index into sym_names.  The runtime binds
 * each symbolic size from the first buffer argument that has it (parameter
 * order) and requires every other occurrence to agree.  `align` is the least
 * alignment in bytes the kernel assumes of the data (a power of two; 0 or 1
 * means none).  A scalar parameter (is_buffer 0) has dtype int64 or float64,
 * ndim 0, dims NULL.
 *
 * The kernel is called as fn(args, syms, env):
 *   args[i]  buffer: the element pointer (DLTensor data + byte_offset),
 *                    checked: right dtype, rank and shape, compact row-major,
 *                    aligned, not NULL, on the CPU;
 *            scalar: a pointer to an int64_t or a double;
 *   syms[k]  the value of symbolic size k (n_syms entries, all bound);
 *   env      the runtime's services, valid for the duration of the call.
 * It returns 0, or non-zero after env->set_error(message) to fail the call. */
#define MLCRT_ABI_VERSION 1u
#define MLCRT_ENV_VERSION 5u

struct MlcrtExtern;
struct MlcrtGpu;

typedef struct MlcrtEnv {
  uint32_t version; /* MLCRT_ENV_VERSION; later versions only append fields */
  /* run body over [0, n) split into contiguous ranges, one per thread, the
   * calling thread included; returns 0, or the first non-zero status a body
   * returned (whose env->set_error message becomes the call's message).
   * Inside a body, a further parallel_for runs serially on that thread. */
  int32_t (*parallel_for)(int64_t n, int32_t (*body)(int64_t begin, int64_t end, void *closure),
                          void *closure);
  /* scratch memory; align is a power of two (0 means MLCRT_ALIGN); NULL with
   * the message set when out of memory */
  void *(*workspace_alloc)(size_t nbytes, size_t align);
  void (*workspace_free)(void *p);
  /* the message a failing kernel leaves (copied, so it may be a temporary) */
  void (*set_error)(const char *msg);
  /* version >= 2: look up the extern (packed) function registered under
   * name into *out; non-zero with the message set when there is none (see
   * "extern functions") */
  int32_t (*get_extern)(const char *name, struct MlcrtExtern *out);
  /* version >= 3: NULL unless the model is being profiled; then a compiled
   * model's executor calls profile(profile_data, site, 0) right before its
   * call site number `site` (MlcrtModelDesc.sites) and profile(profile_data,
   * site, 1) right after it */
  void (*profile)(void *profile_data, int32_t site, int32_t end);
  void *profile_data;
  /* version >= 4: the GPU services of one API (MLCRT_GPU_OPENCL or
   * MLCRT_GPU_CUDA), set up on first use; NULL with the message set when
   * the API's library or a device is missing (see "GPU services"); from
   * version 5 the services end with keep and forget (weights kept on the
   * device), which compiled GPU modules rely on */
  const struct MlcrtGpu *(*gpu)(int32_t api);
} MlcrtEnv;

/* ---- GPU services -------------------------------------------------------------
 * What the host code of a module built for a GPU target calls.  The library
 * of the API (libOpenCL.so.1; libcuda.so.1 with libnvrtc for CUDA) is
 * loaded at run time with dlopen, so neither the runtime nor a compiled
 * module links against it.  The device is the first GPU the API lists,
 * else its first device of any kind (PoCL's CPU device, for instance);
 * MLCRT_OPENCL_DEVICE=N picks OpenCL device N of all platforms' devices in
 * order.  Every function returns 0, or non-zero with the message set
 * (the API's error name and code; a failed build carries the build log).
 * Calls are serialized; buffers are device memory handles. */
enum { MLCRT_GPU_OPENCL = 1, MLCRT_GPU_CUDA = 2 };

typedef struct MlcrtGpuArg {
  int32_t kind;  /* 0: a device buffer (dev), 1: int32 (i), 2: int64 (i), 3: float32 (f), 4: float64 (f) */
  void *dev;
  int64_t i;
  double f;
} MlcrtGpuArg;

typedef struct MlcrtGpu {
  int32_t api;
  const char *device;  /* the device's name */
  /* the program of this source on the device: built on first use and
   * kept for the life of the process (the key is the source's address,
   * a string constant of the module) */
  int32_t (*program)(const char *source, size_t len, void **prog);
  int32_t (*alloc)(size_t nbytes, void **dev);
  void (*release)(void *dev);
  int32_t (*upload)(void *dev, const void *host, size_t nbytes);
  int32_t (*download)(void *host, void *dev, size_t nbytes);
  /* run kernel `name` of prog over grid[i] blocks of block[i] threads per
   * axis (x, y, z), in order after everything launched before */
  int32_t (*launch)(void *prog, const char *name, const int64_t grid[3], const int64_t block[3], int32_t n_args,
                    const MlcrtGpuArg *args);
  /* ---- residency: which host tensors have a device copy ----
   * A host function gets the device memory of a buffer argument with
   * acquire(host, nbytes, access) (access: MLCRT_GPU_READ | MLCRT_GPU_WRITE,
   * what its kernels do with it) and hands it back with finish() after its
   * kernels.  Outside a run (begin .. end) every call has its own copy:
   * acquire allocates and uploads (a kernel may write only part of a
   * buffer), finish downloads what was written and frees it.  Within a
   * run of a compiled model, the copies are kept, keyed by the host
   * address, until end(): a buffer is uploaded when a kernel reads it and
   * the host holds its newest contents, never when the function only
   * writes it (a prim func of a model writes its outputs whole), and
   * finish marks written copies as newer than the host, with no download.  The model's
   * executor then calls to_host where the host reads a tensor (a library
   * call's arguments, the model's outputs) and host_wrote where the host
   * wrote one (a library call's outputs).  begin() makes the calling
   * thread's run the only one until end(), which frees every copy. */
  int32_t (*acquire)(void *host, size_t nbytes, int32_t access, void **dev);
  int32_t (*finish)(void *host, void *dev, size_t nbytes, int32_t access);
  int32_t (*begin)(void);
  void (*end)(void);
  int32_t (*to_host)(void *host, size_t nbytes);
  void (*host_wrote)(void *host, size_t nbytes);
  /* ---- weights kept from one run to the next ----
   * keep() names a host range that no one writes while it is kept (a
   * model's weights): a copy of bytes within it that is as new as the host's
   * at end() stays on the device for the next run instead of being freed.
   * forget() (the model's destroy) frees those copies and ends the range;
   * it waits for a run in progress. */
  int32_t (*keep)(const void *host, size_t nbytes);
  void (*forget)(const void *host, size_t nbytes);
} MlcrtGpu;

enum { MLCRT_GPU_READ = 1, MLCRT_GPU_WRITE = 2 };

/* the services of an API (what env->gpu returns) */
const MlcrtGpu *mlcrt_gpu(int32_t api);

/* How many transfers the residency functions above made, for tests and
 * profiles: uploads and downloads since the process started, and their
 * bytes. */
typedef struct MlcrtGpuTransfers {
  uint64_t uploads, downloads, upload_bytes, download_bytes;
} MlcrtGpuTransfers;
void mlcrt_gpu_transfers(int32_t api, MlcrtGpuTransfers *out);

/* An extern function, called in destination-passing style with compact CPU
 * tensors: args[0..n_args) are the inputs then the outputs, as the graph's
 * call_dps_packed wrote them. */
typedef int32_t (*MlcrtExternFn)(DLTensor *const *args, int32_t n_args, const struct MlcrtEnv *env);
typedef struct MlcrtExtern {
  const char *name;
  MlcrtExternFn fn;
} MlcrtExtern;

typedef int32_t (*MlcrtKernelFn)(void *const *args, const int64_t *syms, const MlcrtEnv *env);

typedef struct MlcrtParamDesc {
  const char *name;
  int32_t is_buffer;
  DLDataType dtype;
  int32_t ndim;
  const int64_t *dims; /* dim >= 0 constant; dim < 0 means symbolic size number -(dim+1);
                          MLCRT_DIM_COMPUTED (model outputs only): arithmetic on the sizes
                          (a reshape's n * m), which the model computes */
  int32_t align;
} MlcrtParamDesc;

/* an output dim of a model that is arithmetic on its symbolic sizes */
#define MLCRT_DIM_COMPUTED INT64_MIN

typedef struct MlcrtFuncDesc {
  const char *name;
  int32_t n_params;
  const MlcrtParamDesc *params;
  int32_t n_syms;
  const char *const *sym_names;
  MlcrtKernelFn fn;
} MlcrtFuncDesc;

typedef struct MlcrtModuleDesc {
  uint32_t abi_version; /* MLCRT_ABI_VERSION */
  int32_t n_funcs;
  const MlcrtFuncDesc *funcs;
} MlcrtModuleDesc;

/* the name of the data symbol a module exports */
#define MLCRT_MODULE_SYMBOL "mlcrt_module"

/* ---- modules -----------------------------------------------------------------
 * Loading checks the descriptor once (version, names present and unique,
 * ranks within MLCRT_MAX_NDIM, symbolic dims in range and each bound by some
 * buffer, aligns powers of two, scalar dtypes int64/float64, fn present), so a
 * call checks only its arguments. */
typedef struct MlcrtModule MlcrtModule;
typedef struct MlcrtFunc MlcrtFunc;

/* dlopen(path, RTLD_NOW | RTLD_LOCAL) and read its `mlcrt_module` */
int mlcrt_module_load(const char *path, MlcrtModule **out);
/* a module over a descriptor that lives as long as the module (a static one
 * compiled into the program, for instance) */
int mlcrt_module_from_desc(const MlcrtModuleDesc *desc, MlcrtModule **out);
/* NULL (message set) when the module has no such function */
const MlcrtFunc *mlcrt_module_get_func(const MlcrtModule *mod, const char *name);
int32_t mlcrt_module_num_funcs(const MlcrtModule *mod);
const MlcrtFunc *mlcrt_module_func_at(const MlcrtModule *mod, int32_t i);
/* closes the shared object: descriptors and functions from it die too */
void mlcrt_module_free(MlcrtModule *mod);

const MlcrtFuncDesc *mlcrt_func_desc(const MlcrtFunc *f);

/* ---- calling convention -------------------------------------------------------
 * One MlcrtValue per parameter, in order; the parameter's is_buffer says which
 * member is read (scalars: `i` for int64, `f` for float64).  A refused
 * argument names the function and the argument, for example
 *   f: argument 'B' (#2): expected shape (128, 128), got (128, 64)
 *   f: argument 'A' (#1): symbolic size n = 16 from 'X' but 12 here
 * A non-zero status from the kernel is returned as is, its message prefixed
 * with "NAME: ". */
typedef union MlcrtValue {
  DLTensor *tensor;
  int64_t i;
  double f;
} MlcrtValue;

int mlcrt_func_call(const MlcrtFunc *f, const MlcrtValue *args, int32_t n_args);
/* the same for functions whose parameters are all buffers */
int mlcrt_func_call_tensors(const MlcrtFunc *f, DLTensor *const *tensors, int32_t n);

/* the environment handed to kernels (also usable directly) */
const MlcrtEnv *mlcrt_env(void);

/* ---- extern functions ---------------------------------------------------------
 * A process-wide registry of extern functions, which call_dps_packed calls
 * reach by name.  The runtime registers its own at first use:
 *   env.linear   (x [.., K], w [N, K], b [N] or absent, out [.., N]) float32:
 *                out = x w^T + b, through OpenBLAS's cblas_sgemm when
 *                libopenblas can be loaded (dlopen), else a plain C loop;
 *   env.matmul   (a [M, K], b [K, N], out [M, N]) float32, the same way.
 * Registering an existing name replaces it. */
int mlcrt_extern_register(const char *name, MlcrtExternFn fn);
int mlcrt_extern_get(const char *name, MlcrtExtern *out);
/* "openblas" or "reference": what env.linear / env.matmul run on */
const char *mlcrt_extern_blas_backend(void);

/* ---- compiled models ---------------------------------------------------------
 * A model (`mlcc build MODULE -o DIR`) is a module whose shared object also
 * exports the data symbol `mlcrt_model`: its entry graph function compiled to
 * C, with the weights it needs in one blob (DIR/params.bin, or embedded).
 *
 * Inputs and outputs are described like kernel params (symbolic dims number
 * into sym_names, bound from the inputs in order).  create gets the weights
 * payload (MLCRT_ALIGN-aligned, params_nbytes bytes; it must stay valid until
 * destroy) and makes the model's state: its planned memory, resolved
 * externs.  run gets the checked inputs (their data pointers, byte_offset
 * applied) and the bound syms, and sets outputs[i] to tensors the state
 * owns, valid until the next run or destroy.  A state runs one call at a
 * time. */
#define MLCRT_MODEL_ABI_VERSION 2u

/* One call of a kernel or extern function in a model's executor, as the
 * compiler saw it: what profiles are made of. */
typedef enum { MLCRT_SITE_GENERATED, MLCRT_SITE_LIBRARY, MLCRT_SITE_TUNED } MlcrtSiteKind;
typedef struct MlcrtCallSite {
  const char *callee;   /* the prim func (kernel) or extern function called */
  const char *binding;  /* the graph var it computes (ONNX models: named after the node's output) */
  const char *ops;      /* the graph ops it was made from, e.g. "conv2d" or "matmul+add" */
  int32_t kind;         /* MlcrtSiteKind */
  double flops;         /* floating-point operations per call; < 0 when unknown */
  double bytes;         /* bytes of its tensor arguments; < 0 when unknown */
} MlcrtCallSite;
#define MLCRT_MODEL_SYMBOL "mlcrt_model"

typedef struct MlcrtModelDesc {
  uint32_t abi_version;          /* MLCRT_MODEL_ABI_VERSION */
  const char *name;              /* the graph function, e.g. "main" */
  int32_t n_inputs;
  const MlcrtParamDesc *inputs;
  int32_t n_outputs;
  const MlcrtParamDesc *outputs;
  int32_t n_syms;
  const char *const *sym_names;
  uint64_t params_nbytes;        /* payload size of the weights blob */
  uint64_t params_hash;          /* FNV-1a 64 of the payload */
  const void *embedded_params;   /* the payload when embedded, else NULL */
  int32_t (*create)(const void *params, const MlcrtEnv *env, void **state);
  int32_t (*run)(void *state, void *const *inputs, const int64_t *syms, DLTensor **outputs,
                 const MlcrtEnv *env);
  void (*destroy)(void *state, const MlcrtEnv *env);
  /* abi_version >= 2 */
  int32_t n_sites;
  const MlcrtCallSite *sites;
} MlcrtModelDesc;

/* The weights blob, params.bin: a 32-byte header
 *   "MLCPARAM" | uint32 version (1) | uint32 0 | uint64 payload bytes | uint64 FNV-1a 64 of the payload
 * (little endian) followed by the payload, which the generated code indexes
 * by offsets it knows. */
#define MLCRT_PARAMS_MAGIC "MLCPARAM"
#define MLCRT_PARAMS_HEADER 32

typedef struct MlcrtModel MlcrtModel;

/* Load DIR/model.so (path may also name the .so itself) and, when the
 * weights are not embedded, the params.bin beside it; check the blob's size
 * and hash against the descriptor; create the state. */
int mlcrt_model_load(const char *path, MlcrtModel **out);
/* the same over a descriptor linked into the program; params_path NULL
 * means the weights are embedded */
int mlcrt_model_create(const MlcrtModelDesc *desc, const char *params_path, MlcrtModel **out);
const MlcrtModelDesc *mlcrt_model_desc(const MlcrtModel *m);
/* Check inputs (dtype, rank, shape, symbolic sizes agreeing, compact, on
 * the CPU) like mlcrt_func_call, run, and point outputs[i] at tensors the
 * model owns (valid until the next run or free).  Errors name the input. */
int mlcrt_model_run(MlcrtModel *m, DLTensor *const *inputs, int32_t n_inputs, DLTensor **outputs,
                    int32_t n_outputs);
void mlcrt_model_free(MlcrtModel *m);

/* Profiling: after mlcrt_model_profile(m, 1) every run times each call site
 * of the executor (the runtime's monotonic clock around the call); off (0),
 * runs pay one untaken branch per call.  Switching it on clears the counts. */
int mlcrt_model_profile(MlcrtModel *m, int on);
int32_t mlcrt_model_num_sites(const MlcrtModel *m);
/* NULL (message set) when i is out of range */
const MlcrtCallSite *mlcrt_model_site(const MlcrtModel *m, int32_t i);
/* calls and seconds spent in site i since profiling was switched on */
int mlcrt_model_site_time(const MlcrtModel *m, int32_t i, int64_t *calls, double *seconds);

/* ---- thread pool -----------------------------------------------------------------
 * Worker threads are started on first use and stay; their number is
 * MLCRT_NUM_THREADS from the environment, else the online CPUs (the calling
 * thread counts as one).  A parallel_for splits [0, n) statically into one
 * contiguous range per thread; waiting threads spin briefly, then sleep.  A
 * nested parallel_for, or one started while another thread's is running, runs
 * serially on its caller. */
int32_t mlcrt_parallel_for(int64_t n, int32_t (*body)(int64_t begin, int64_t end, void *closure),
                           void *closure);
/* n <= 0 restores the default; must not be called inside a parallel region */
int mlcrt_threads_set(int32_t n);
int32_t mlcrt_threads_get(void);

/* Kernels' scratch buffers of 16 KiB or more are kept for reuse when freed
 * (at most 16 of them, 256 MiB in all), so a model run does not fault in
 * fresh pages on every call; this frees the kept ones (call it when no run
 * is in progress, e.g. before exit or after the last model is freed). */
void mlcrt_workspace_release(void);

/* ---- timing ------------------------------------------------------------------------
 * Calls fn(closure) `number` times per repeat and `repeat` times; before the
 * timed repeats, number is raised until one repeat takes at least
 * min_repeat_ms (those runs also warm caches).  Times are seconds per call,
 * on CLOCK_MONOTONIC.  A non-zero status from fn stops and is returned. */
typedef struct MlcrtTimes {
  double mean, median, min, max;
  int64_t number;  /* calls per repeat actually used */
  int32_t repeat;
} MlcrtTimes;

int mlcrt_time_eval(int32_t (*fn)(void *closure), void *closure, int64_t number, int32_t repeat,
                    double min_repeat_ms, MlcrtTimes *out);

/* ---- .npy and .npz ----------------------------------------------------------------
 * .npy versions 1.0, 2.0 and 3.0, C order only, dtypes f2 f4 f8 i1 i2 i4 i8
 * u1 u2 u4 u8 b1 in either byte order (converted to the host's).  Writing
 * produces version 1.0 (a header of at most 32 dims always fits) in host
 * byte order.
 * .npz is a zip of .npy entries; keys are the entry names without ".npy".
 * Entries stored (method 0) or deflated (method 8) are read, zip64 included
 * (numpy writes its entries that way), each checked against its CRC-32; keys
 * must be unique.  Entries are written stored, with CRC-32 and a fixed
 * timestamp; an archive that would need zip64 (4 GiB or more, or 65535
 * entries) is refused.  A refused save leaves an existing file untouched. */
int mlcrt_npy_read(const void *buf, size_t len, MlcrtTensor **out);
int mlcrt_npy_load(const char *path, MlcrtTensor **out);
/* *out is malloc'd: the whole file's bytes */
int mlcrt_npy_encode(const DLTensor *t, void **out, size_t *out_len);
int mlcrt_npy_save(const char *path, const DLTensor *t);

typedef struct MlcrtNpz {
  int32_t n;
  char **names;          /* keys, in the archive's order */
  MlcrtTensor **tensors;
} MlcrtNpz;

int mlcrt_npz_read(const void *buf, size_t len, MlcrtNpz **out);
int mlcrt_npz_load(const char *path, MlcrtNpz **out);
/* NULL (message set) when there is no such key */
MlcrtTensor *mlcrt_npz_get(const MlcrtNpz *z, const char *name);
void mlcrt_npz_free(MlcrtNpz *z);
int mlcrt_npz_save(const char *path, int32_t n, const char *const *names,
                   const DLTensor *const *tensors);

#ifdef __cplusplus
}
#endif
#endif
