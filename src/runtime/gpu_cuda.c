/* gpu_cuda.c - the GPU services (runtime.h) over the CUDA driver API.
 *
 * libcuda (the driver) and libnvrtc (the run-time compiler of CUDA C) are
 * loaded with dlopen on first use; the types and constants used are
 * declared here, fixed by the driver API, so nothing of CUDA is needed to
 * build the runtime or to link a module.  A module's CUDA C is compiled by
 * NVRTC to PTX for the device's compute capability once per source, and
 * loaded as a CUDA module; the kernels run on the device's primary context
 * in the default stream, one call at a time (a mutex). */
#include "rt.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef unsigned long long CUdeviceptr;
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

enum { CU_ATTR_CC_MAJOR = 75, CU_ATTR_CC_MINOR = 76 };

#define CU_FUNCS(X)                                                                                    \
  X(CUresult, cuInit, (unsigned))                                                                       \
  X(CUresult, cuDeviceGetCount, (int *))                                                                \
  X(CUresult, cuDeviceGet, (CUdevice *, int))                                                           \
  X(CUresult, cuDeviceGetName, (char *, int, CUdevice))                                                 \
  X(CUresult, cuDeviceGetAttribute, (int *, int, CUdevice))                                             \
  X(CUresult, cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))                                        \
  X(CUresult, cuCtxSetCurrent, (CUcontext))                                                             \
  X(CUresult, cuModuleLoadData, (CUmodule *, const void *))                                             \
  X(CUresult, cuModuleGetFunction, (CUfunction *, CUmodule, const char *))                              \
  X(CUresult, cuMemAlloc_v2, (CUdeviceptr *, size_t))                                                   \
  X(CUresult, cuMemFree_v2, (CUdeviceptr))                                                              \
  X(CUresult, cuMemcpyHtoD_v2, (CUdeviceptr, const void *, size_t))                                     \
  X(CUresult, cuMemcpyDtoH_v2, (void *, CUdeviceptr, size_t))                                           \
  X(CUresult, cuLaunchKernel, (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, \
                               unsigned, void *, void **, void **))                                    \
  X(CUresult, cuCtxSynchronize, (void))                                                                 \
  X(CUresult, cuGetErrorName, (CUresult, const char **))

#define NVRTC_FUNCS(X)                                                                                      \
  X(nvrtcResult, nvrtcCreateProgram, (nvrtcProgram *, const char *, const char *, int, const char *const *, \
                                      const char *const *))                                                 \
  X(nvrtcResult, nvrtcCompileProgram, (nvrtcProgram, int, const char *const *))                             \
  X(nvrtcResult, nvrtcGetProgramLogSize, (nvrtcProgram, size_t *))                                          \
  X(nvrtcResult, nvrtcGetProgramLog, (nvrtcProgram, char *))                                                \
  X(nvrtcResult, nvrtcGetPTXSize, (nvrtcProgram, size_t *))                                                 \
  X(nvrtcResult, nvrtcGetPTX, (nvrtcProgram, char *))                                                       \
  X(nvrtcResult, nvrtcDestroyProgram, (nvrtcProgram *))

typedef struct CuApi {
#define X(ret, name, args) ret(*name) args;
  CU_FUNCS(X)
  NVRTC_FUNCS(X)
#undef X
} CuApi;

typedef struct CuProgram { char *source; CUmodule mod; } CuProgram; /* keyed by a copy of the text */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_tried;
static int g_ready;
static char g_init_error[MLCRT_ERR_CAP];
static CuApi cu;
static CUdevice g_dev;
static CUcontext g_ctx;
static int g_cc_major, g_cc_minor;
static char g_dev_name[256];
static CuProgram *g_progs;
static size_t g_n_progs;

static int cu_fail(const char *what, CUresult r) {
  const char *name = NULL;
  if (cu.cuGetErrorName) cu.cuGetErrorName(r, &name);
  return mlcrt_set_error("CUDA: %s failed: %s (%d)", what, name ? name : "a CUDA error", r);
}

static void *open_first(const char *const *names) {
  for (int i = 0; names[i]; i++) {
    void *dl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (dl) return dl;
  }
  return NULL;
}

static int load_api(void) {
  static const char *const drv[] = {"libcuda.so.1", "libcuda.so", NULL};
  static const char *const rtc[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2",
                                    "/usr/local/cuda/lib64/libnvrtc.so", NULL};
  void *d = open_first(drv);
  if (!d) return mlcrt_set_error("CUDA: libcuda.so.1 cannot be loaded (no NVIDIA driver on this machine)");
  void *r = open_first(rtc);
  if (!r) return mlcrt_set_error("CUDA: libnvrtc cannot be loaded (install the CUDA toolkit's NVRTC)");
#define X(ret, name, args)                                                  \
  *(void **)&cu.name = dlsym(d, #name);                                    \
  if (!cu.name) return mlcrt_set_error("CUDA: libcuda.so.1 lacks %s", #name);
  CU_FUNCS(X)
#undef X
#define X(ret, name, args)                                                \
  *(void **)&cu.name = dlsym(r, #name);                                  \
  if (!cu.name) return mlcrt_set_error("CUDA: libnvrtc lacks %s", #name);
  NVRTC_FUNCS(X)
#undef X
  return 0;
}

static int init_locked(void) {
  if (g_tried) return g_ready ? 0 : mlcrt__set_error_str(g_init_error);
  g_tried = true;
  int n = 0;
  CUresult r;
  int rc = load_api();
  if (!rc && (r = cu.cuInit(0))) rc = cu_fail("cuInit", r);
  if (!rc && (r = cu.cuDeviceGetCount(&n))) rc = cu_fail("cuDeviceGetCount", r);
  if (!rc && n < 1) rc = mlcrt_set_error("CUDA: no device");
  if (!rc && (r = cu.cuDeviceGet(&g_dev, 0))) rc = cu_fail("cuDeviceGet", r);
  if (!rc && (r = cu.cuDeviceGetName(g_dev_name, (int)sizeof g_dev_name - 1, g_dev))) rc = cu_fail("cuDeviceGetName", r);
  if (!rc && (r = cu.cuDeviceGetAttribute(&g_cc_major, CU_ATTR_CC_MAJOR, g_dev))) rc = cu_fail("cuDeviceGetAttribute", r);
  if (!rc && (r = cu.cuDeviceGetAttribute(&g_cc_minor, CU_ATTR_CC_MINOR, g_dev))) rc = cu_fail("cuDeviceGetAttribute", r);
  if (!rc && (r = cu.cuDevicePrimaryCtxRetain(&g_ctx, g_dev))) rc = cu_fail("cuDevicePrimaryCtxRetain", r);
  if (rc) {
    snprintf(g_init_error, sizeof g_init_error, "%s", mlcrt_last_error());
    return rc;
  }
  g_ready = 1;
  return 0;
}

/* every call runs with the context current on the calling thread */
static int enter(void) {
  pthread_mutex_lock(&g_lock);
  int rc = init_locked();
  CUresult r;
  if (!rc && (r = cu.cuCtxSetCurrent(g_ctx))) rc = cu_fail("cuCtxSetCurrent", r);
  if (rc) pthread_mutex_unlock(&g_lock);
  return rc;
}
static void leave(void) { pthread_mutex_unlock(&g_lock); }

static int compile_locked(const char *source, CUmodule *out) {
  nvrtcProgram p = NULL;
  if (cu.nvrtcCreateProgram(&p, source, "mlcc_module.cu", 0, NULL, NULL))
    return mlcrt_set_error("CUDA: nvrtcCreateProgram failed");
  char arch[64];
  snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d%d", g_cc_major, g_cc_minor);
  const char *opts[] = {arch, "--std=c++14"};
  nvrtcResult nr = cu.nvrtcCompileProgram(p, 2, opts);
  if (nr) {
    char log[MLCRT_ERR_CAP - 96] = "";
    size_t n = 0;
    cu.nvrtcGetProgramLogSize(p, &n);
    char *full = n ? malloc(n + 1) : NULL;
    if (full && !cu.nvrtcGetProgramLog(p, full)) snprintf(log, sizeof log, "%s", full);
    free(full);
    cu.nvrtcDestroyProgram(&p);
    return mlcrt_set_error("CUDA: compiling the module's kernels failed (NVRTC %d); log:\n%s", nr, log);
  }
  size_t n = 0;
  cu.nvrtcGetPTXSize(p, &n);
  char *ptx = malloc(n ? n : 1);
  if (!ptx || cu.nvrtcGetPTX(p, ptx)) {
    free(ptx);
    cu.nvrtcDestroyProgram(&p);
    return mlcrt_set_error("CUDA: reading the PTX from NVRTC failed");
  }
  cu.nvrtcDestroyProgram(&p);
  CUresult r = cu.cuModuleLoadData(out, ptx);
  free(ptx);
  return r ? cu_fail("cuModuleLoadData", r) : 0;
}

static int32_t cuda_program(const char *source, size_t len, void **prog) {
  (void)len; /* NVRTC reads the NUL-terminated string */
  if (enter()) return -1;
  int rc = 0;
  size_t i = 0;
  while (i < g_n_progs && strcmp(g_progs[i].source, source) != 0) i++;
  if (i < g_n_progs) {
    *prog = g_progs[i].mod;
  } else {
    CUmodule mod = NULL;
    rc = compile_locked(source, &mod);
    CuProgram *np = rc ? NULL : realloc(g_progs, (g_n_progs + 1) * sizeof *np);
    char *copy = rc ? NULL : strdup(source);
    if (np) g_progs = np;
    if (!rc && (!np || !copy)) rc = mlcrt_set_error("CUDA: out of memory"), free(copy);
    if (!rc) {
      g_progs[g_n_progs++] = (CuProgram){copy, mod};
      *prog = mod;
    }
  }
  leave();
  return rc;
}

static int32_t cuda_alloc(size_t nbytes, void **dev) {
  if (enter()) return -1;
  CUdeviceptr p = 0;
  CUresult r = cu.cuMemAlloc_v2(&p, nbytes ? nbytes : 1);
  leave();
  *dev = (void *)(uintptr_t)p;
  return r ? cu_fail("cuMemAlloc", r) : 0;
}

static void cuda_release(void *dev) {
  if (!dev || enter()) return;
  cu.cuMemFree_v2((CUdeviceptr)(uintptr_t)dev);
  leave();
}

static int32_t cuda_upload(void *dev, const void *host, size_t nbytes) {
  if (!nbytes) return 0;
  if (enter()) return -1;
  CUresult r = cu.cuMemcpyHtoD_v2((CUdeviceptr)(uintptr_t)dev, host, nbytes);
  leave();
  return r ? cu_fail("cuMemcpyHtoD", r) : 0;
}

static int32_t cuda_download(void *host, void *dev, size_t nbytes) {
  if (!nbytes) return 0;
  if (enter()) return -1;
  CUresult r = cu.cuMemcpyDtoH_v2(host, (CUdeviceptr)(uintptr_t)dev, nbytes);
  leave();
  return r ? cu_fail("cuMemcpyDtoH", r) : 0;
}

enum { MAX_ARGS = 256 };

static int32_t cuda_launch(void *prog, const char *name, const int64_t grid[3], const int64_t block[3], int32_t n_args,
                           const MlcrtGpuArg *args) {
  if (n_args < 0 || n_args > MAX_ARGS) return mlcrt_set_error("CUDA: kernel '%s' has %d arguments", name, (int)n_args);
  for (int d = 0; d < 3; d++)
    if (grid[d] < 1 || grid[d] > 2147483647 || block[d] < 1 || block[d] > 1024)
      return mlcrt_set_error("CUDA: kernel '%s': launch extents %lld x %lld on axis %d are out of range", name,
                             (long long)grid[d], (long long)block[d], d);
  union { CUdeviceptr p; int32_t i32; int64_t i64; float f32; double f64; } vals[MAX_ARGS];
  void *params[MAX_ARGS];
  for (int32_t i = 0; i < n_args; i++) {
    switch (args[i].kind) {
    case 0: vals[i].p = (CUdeviceptr)(uintptr_t)args[i].dev; break;
    case 1: vals[i].i32 = (int32_t)args[i].i; break;
    case 2: vals[i].i64 = args[i].i; break;
    case 3: vals[i].f32 = (float)args[i].f; break;
    case 4: vals[i].f64 = args[i].f; break;
    default: return mlcrt_set_error("CUDA: argument %d has an unknown kind %d", (int)i, (int)args[i].kind);
    }
    params[i] = &vals[i];
  }
  if (enter()) return -1;
  CUfunction fn = NULL;
  CUresult r = cu.cuModuleGetFunction(&fn, (CUmodule)prog, name);
  int rc = r ? mlcrt_set_error("CUDA: the module has no kernel '%s' (%d)", name, r) : 0;
  if (!rc && (r = cu.cuLaunchKernel(fn, (unsigned)grid[0], (unsigned)grid[1], (unsigned)grid[2], (unsigned)block[0],
                                    (unsigned)block[1], (unsigned)block[2], 0, NULL, params, NULL)))
    rc = cu_fail("cuLaunchKernel", r);
  if (!rc && (r = cu.cuCtxSynchronize())) rc = cu_fail("running the kernel", r);
  leave();
  return rc;
}

static const MlcrtGpu g_cuda_services = {
    MLCRT_GPU_CUDA, g_dev_name, cuda_program, cuda_alloc, cuda_release, cuda_upload, cuda_download, cuda_launch,
    /* the residency functions are gpu_resident.c's */
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

const MlcrtGpu *mlcrt__gpu_cuda(void) {
  pthread_mutex_lock(&g_lock);
  int rc = init_locked();
  pthread_mutex_unlock(&g_lock);
  return rc ? NULL : &g_cuda_services;
}
