/* gpu_opencl.c - the GPU services (runtime.h) over OpenCL.
 *
 * libOpenCL is loaded with dlopen on first use, so the runtime and the
 * modules it loads link nothing of OpenCL; the few types and constants of
 * the OpenCL 1.2 API this file needs are declared here (they are fixed by
 * the specification), which also keeps the runtime buildable without the
 * OpenCL headers.  One context and one in-order queue on one device serve
 * the process; programs are built once per source and kept, with their
 * kernel objects.  A mutex serializes every call, so the kernel objects
 * (whose arguments are state) are never set from two threads at once. */
#include "rt.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- the OpenCL API, as far as it is used -------------------------------------- */

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef uint64_t cl_bitfield;
typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_program *cl_program;
typedef struct _cl_kernel *cl_kernel;
typedef struct _cl_event *cl_event;

enum {
  CL_SUCCESS = 0,
  CL_DEVICE_TYPE_GPU = 1 << 2,
  CL_DEVICE_TYPE_ALL = (int)0xFFFFFFFF,
  CL_DEVICE_NAME = 0x102B,
  CL_PROGRAM_BUILD_LOG = 0x1183,
  CL_MEM_READ_WRITE = 1 << 0,
  CL_TRUE = 1,
};

#define CL_FUNCS(X)                                                                                        \
  X(cl_int, clGetPlatformIDs, (cl_uint, cl_platform_id *, cl_uint *))                                       \
  X(cl_int, clGetDeviceIDs, (cl_platform_id, cl_bitfield, cl_uint, cl_device_id *, cl_uint *))              \
  X(cl_int, clGetDeviceInfo, (cl_device_id, cl_uint, size_t, void *, size_t *))                             \
  X(cl_context, clCreateContext, (const intptr_t *, cl_uint, const cl_device_id *, void *, void *, cl_int *)) \
  X(cl_command_queue, clCreateCommandQueue, (cl_context, cl_device_id, cl_bitfield, cl_int *))              \
  X(cl_program, clCreateProgramWithSource, (cl_context, cl_uint, const char **, const size_t *, cl_int *))  \
  X(cl_int, clBuildProgram, (cl_program, cl_uint, const cl_device_id *, const char *, void *, void *))      \
  X(cl_int, clGetProgramBuildInfo, (cl_program, cl_device_id, cl_uint, size_t, void *, size_t *))           \
  X(cl_int, clReleaseProgram, (cl_program))                                                                 \
  X(cl_kernel, clCreateKernel, (cl_program, const char *, cl_int *))                                        \
  X(cl_int, clSetKernelArg, (cl_kernel, cl_uint, size_t, const void *))                                     \
  X(cl_int, clEnqueueNDRangeKernel, (cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,  \
                                     const size_t *, cl_uint, const cl_event *, cl_event *))                \
  X(cl_mem, clCreateBuffer, (cl_context, cl_bitfield, size_t, void *, cl_int *))                            \
  X(cl_int, clReleaseMemObject, (cl_mem))                                                                   \
  X(cl_int, clEnqueueWriteBuffer, (cl_command_queue, cl_mem, cl_uint, size_t, size_t, const void *, cl_uint, \
                                   const cl_event *, cl_event *))                                           \
  X(cl_int, clEnqueueReadBuffer, (cl_command_queue, cl_mem, cl_uint, size_t, size_t, void *, cl_uint,       \
                                  const cl_event *, cl_event *))                                            \
  X(cl_int, clFinish, (cl_command_queue))

typedef struct ClApi {
#define X(ret, name, args) ret(*name) args;
  CL_FUNCS(X)
#undef X
} ClApi;

/* the names of the error codes a user is likely to meet */
static const char *cl_error_name(cl_int e) {
  switch (e) {
  case -1: return "CL_DEVICE_NOT_FOUND";
  case -2: return "CL_DEVICE_NOT_AVAILABLE";
  case -4: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
  case -5: return "CL_OUT_OF_RESOURCES";
  case -6: return "CL_OUT_OF_HOST_MEMORY";
  case -11: return "CL_BUILD_PROGRAM_FAILURE";
  case -30: return "CL_INVALID_VALUE";
  case -33: return "CL_INVALID_DEVICE";
  case -38: return "CL_INVALID_MEM_OBJECT";
  case -45: return "CL_INVALID_PROGRAM_EXECUTABLE";
  case -46: return "CL_INVALID_KERNEL_NAME";
  case -48: return "CL_INVALID_KERNEL";
  case -49: return "CL_INVALID_ARG_INDEX";
  case -50: return "CL_INVALID_ARG_VALUE";
  case -51: return "CL_INVALID_ARG_SIZE";
  case -52: return "CL_INVALID_KERNEL_ARGS";
  case -53: return "CL_INVALID_WORK_DIMENSION";
  case -54: return "CL_INVALID_WORK_GROUP_SIZE";
  case -55: return "CL_INVALID_WORK_ITEM_SIZE";
  case -61: return "CL_INVALID_BUFFER_SIZE";
  case -63: return "CL_INVALID_GLOBAL_WORK_SIZE";
  case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
  default: return "an OpenCL error";
  }
}

static int cl_fail(const char *what, cl_int e) {
  return mlcrt_set_error("OpenCL: %s failed: %s (%d)", what, cl_error_name(e), (int)e);
}

/* ---- the process's device ------------------------------------------------------------ */

/* Programs are found by their text (a module unloaded and another loaded
 * at the same address must not get the first one's program), kernels by
 * program and name; both keep copies of their keys. */
typedef struct ClKernel { cl_program prog; char *name; cl_kernel k; } ClKernel;
typedef struct ClProgram { char *source; size_t len; cl_program prog; } ClProgram;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_tried;
static int g_ready;           /* 1: usable */
static char g_init_error[MLCRT_ERR_CAP];
static ClApi cl;
static cl_device_id g_dev;
static cl_context g_ctx;
static cl_command_queue g_queue;
static char g_dev_name[256];
static ClProgram *g_progs;
static size_t g_n_progs;
static ClKernel *g_kernels;
static size_t g_n_kernels;

static int load_api(void) {
  void *dl = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!dl) dl = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
  if (!dl) return mlcrt_set_error("OpenCL: libOpenCL.so.1 cannot be loaded (install an OpenCL ICD loader, e.g. "
                                  "Debian's ocl-icd-libopencl1, and a platform such as pocl-opencl-icd)");
#define X(ret, name, args)                                                                    \
  *(void **)&cl.name = dlsym(dl, #name);                                                     \
  if (!cl.name) return mlcrt_set_error("OpenCL: libOpenCL.so.1 lacks %s", #name);
  CL_FUNCS(X)
#undef X
  return 0;
}

/* every device of every platform, GPUs first unless MLCRT_OPENCL_DEVICE picks */
static int pick_device(void) {
  cl_platform_id plats[16];
  cl_uint np = 0;
  cl_int e = cl.clGetPlatformIDs(16, plats, &np);
  if (e != CL_SUCCESS || np == 0)
    return mlcrt_set_error("OpenCL: no platform found (%s, %d); install one, e.g. pocl-opencl-icd", cl_error_name(e),
                           (int)e);
  if (np > 16) np = 16;
  cl_device_id all[64];
  size_t n = 0;
  int first_gpu = -1;
  for (cl_uint p = 0; p < np && n < 64; p++) {
    cl_uint nd = 0;
    if (cl.clGetDeviceIDs(plats[p], (cl_bitfield)(uint32_t)CL_DEVICE_TYPE_ALL, (cl_uint)(64 - n), all + n, &nd) !=
        CL_SUCCESS)
      continue;
    cl_device_id gpus[64];
    cl_uint ng = 0;
    if (first_gpu < 0 && cl.clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_GPU, 64, gpus, &ng) == CL_SUCCESS && ng > 0)
      for (cl_uint i = 0; i < nd && first_gpu < 0; i++)
        if (all[n + i] == gpus[0]) first_gpu = (int)(n + i);
    n += nd > 64 - n ? 64 - n : nd;
  }
  if (n == 0) return mlcrt_set_error("OpenCL: the platforms list no device");
  size_t pick = first_gpu >= 0 ? (size_t)first_gpu : 0;
  const char *want = getenv("MLCRT_OPENCL_DEVICE");
  if (want && *want) {
    char *end;
    long v = strtol(want, &end, 10);
    if (*end || v < 0 || (size_t)v >= n)
      return mlcrt_set_error("OpenCL: MLCRT_OPENCL_DEVICE=%s is not a device number in [0, %zu)", want, n);
    pick = (size_t)v;
  }
  g_dev = all[pick];
  if (cl.clGetDeviceInfo(g_dev, CL_DEVICE_NAME, sizeof g_dev_name - 1, g_dev_name, NULL) != CL_SUCCESS)
    strcpy(g_dev_name, "(unnamed)");
  return 0;
}

static int init_locked(void) {
  if (g_tried) {
    if (!g_ready) return mlcrt__set_error_str(g_init_error);
    return 0;
  }
  g_tried = true;
  cl_int e = 0;
  int rc = load_api();
  if (!rc) rc = pick_device();
  if (!rc && !(g_ctx = cl.clCreateContext(NULL, 1, &g_dev, NULL, NULL, &e))) rc = cl_fail("clCreateContext", e);
  if (!rc && !(g_queue = cl.clCreateCommandQueue(g_ctx, g_dev, 0, &e))) rc = cl_fail("clCreateCommandQueue", e);
  if (rc) {
    snprintf(g_init_error, sizeof g_init_error, "%s", mlcrt_last_error());
    return rc;
  }
  g_ready = 1;
  return 0;
}

/* ---- the services -------------------------------------------------------------------- */

static int build_locked(const char *source, size_t len, void **out) {
  for (size_t i = 0; i < g_n_progs; i++)
    if (g_progs[i].len == len && memcmp(g_progs[i].source, source, len) == 0) return *out = g_progs[i].prog, 0;
  cl_int e = 0;
  cl_program p = cl.clCreateProgramWithSource(g_ctx, 1, &source, &len, &e);
  if (!p) return cl_fail("clCreateProgramWithSource", e);
  e = cl.clBuildProgram(p, 1, &g_dev, "-cl-std=CL1.2", NULL, NULL);
  if (e != CL_SUCCESS) {
    char log[MLCRT_ERR_CAP - 96] = "";
    size_t got = 0;
    cl.clGetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, &got);
    log[sizeof log - 1] = '\0';
    cl.clReleaseProgram(p);
    return mlcrt_set_error("OpenCL: building the module's kernels failed: %s (%d); build log:\n%s",
                           cl_error_name(e), (int)e, log);
  }
  ClProgram *np = realloc(g_progs, (g_n_progs + 1) * sizeof *np);
  char *copy = malloc(len + 1);
  if (np) g_progs = np;
  if (!np || !copy) {
    free(copy);
    cl.clReleaseProgram(p);
    return mlcrt_set_error("OpenCL: out of memory");
  }
  memcpy(copy, source, len);
  copy[len] = '\0';
  g_progs[g_n_progs++] = (ClProgram){copy, len, p};
  *out = p;
  return 0;
}

static int32_t ocl_program(const char *source, size_t len, void **prog) {
  pthread_mutex_lock(&g_lock);
  int rc = init_locked();
  if (!rc) rc = build_locked(source, len, prog);
  pthread_mutex_unlock(&g_lock);
  return rc;
}

static int32_t ocl_alloc(size_t nbytes, void **dev) {
  pthread_mutex_lock(&g_lock);
  int rc = init_locked();
  cl_int e = 0;
  if (!rc) {
    cl_mem m = cl.clCreateBuffer(g_ctx, CL_MEM_READ_WRITE, nbytes ? nbytes : 1, NULL, &e);
    if (!m) rc = cl_fail("clCreateBuffer", e);
    *dev = m;
  }
  pthread_mutex_unlock(&g_lock);
  return rc;
}

static void ocl_release(void *dev) {
  if (!dev) return;
  pthread_mutex_lock(&g_lock);
  if (g_ready) cl.clReleaseMemObject((cl_mem)dev);
  pthread_mutex_unlock(&g_lock);
}

static int32_t ocl_upload(void *dev, const void *host, size_t nbytes) {
  if (!nbytes) return 0;
  pthread_mutex_lock(&g_lock);
  cl_int e = cl.clEnqueueWriteBuffer(g_queue, (cl_mem)dev, CL_TRUE, 0, nbytes, host, 0, NULL, NULL);
  pthread_mutex_unlock(&g_lock);
  return e == CL_SUCCESS ? 0 : cl_fail("clEnqueueWriteBuffer", e);
}

static int32_t ocl_download(void *host, void *dev, size_t nbytes) {
  if (!nbytes) return 0;
  pthread_mutex_lock(&g_lock);
  cl_int e = cl.clEnqueueReadBuffer(g_queue, (cl_mem)dev, CL_TRUE, 0, nbytes, host, 0, NULL, NULL);
  pthread_mutex_unlock(&g_lock);
  return e == CL_SUCCESS ? 0 : cl_fail("clEnqueueReadBuffer", e);
}

static int kernel_locked(cl_program prog, const char *name, cl_kernel *out) {
  for (size_t i = 0; i < g_n_kernels; i++)
    if (g_kernels[i].prog == prog && strcmp(g_kernels[i].name, name) == 0) return *out = g_kernels[i].k, 0;
  cl_int e = 0;
  cl_kernel k = cl.clCreateKernel(prog, name, &e);
  if (!k) return mlcrt_set_error("OpenCL: the module has no kernel '%s': %s (%d)", name, cl_error_name(e), (int)e);
  ClKernel *nk = realloc(g_kernels, (g_n_kernels + 1) * sizeof *nk);
  char *copy = strdup(name);
  if (nk) g_kernels = nk;
  if (!nk || !copy) {
    free(copy);
    return mlcrt_set_error("OpenCL: out of memory");
  }
  g_kernels[g_n_kernels++] = (ClKernel){prog, copy, k};
  *out = k;
  return 0;
}

static int set_args(cl_kernel k, int32_t n, const MlcrtGpuArg *args) {
  for (int32_t i = 0; i < n; i++) {
    const MlcrtGpuArg *a = &args[i];
    int32_t i32 = (int32_t)a->i;
    float f32 = (float)a->f;
    cl_int e;
    switch (a->kind) {
    case 0: e = cl.clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &a->dev); break;
    case 1: e = cl.clSetKernelArg(k, (cl_uint)i, sizeof i32, &i32); break;
    case 2: e = cl.clSetKernelArg(k, (cl_uint)i, sizeof a->i, &a->i); break;
    case 3: e = cl.clSetKernelArg(k, (cl_uint)i, sizeof f32, &f32); break;
    case 4: e = cl.clSetKernelArg(k, (cl_uint)i, sizeof a->f, &a->f); break;
    default: return mlcrt_set_error("OpenCL: argument %d has an unknown kind %d", (int)i, (int)a->kind);
    }
    if (e != CL_SUCCESS) return mlcrt_set_error("OpenCL: setting argument %d failed: %s (%d)", (int)i, cl_error_name(e), (int)e);
  }
  return 0;
}

static int32_t ocl_launch(void *prog, const char *name, const int64_t grid[3], const int64_t block[3], int32_t n_args,
                          const MlcrtGpuArg *args) {
  size_t global[3], local[3];
  for (int d = 0; d < 3; d++) {
    int64_t g;
    if (grid[d] < 1 || block[d] < 1 || !mlcrt__mul_i64(grid[d], block[d], &g))
      return mlcrt_set_error("OpenCL: kernel '%s': launch extents %lld x %lld on axis %d are out of range", name,
                             (long long)grid[d], (long long)block[d], d);
    global[d] = (size_t)g;
    local[d] = (size_t)block[d];
  }
  pthread_mutex_lock(&g_lock);
  cl_kernel k = NULL;
  int rc = kernel_locked((cl_program)prog, name, &k);
  if (!rc) rc = set_args(k, n_args, args);
  if (!rc) {
    cl_int e = cl.clEnqueueNDRangeKernel(g_queue, k, 3, NULL, global, local, 0, NULL, NULL);
    if (e == CL_SUCCESS) e = cl.clFinish(g_queue);
    if (e != CL_SUCCESS)
      rc = mlcrt_set_error("OpenCL: kernel '%s' (grid %lldx%lldx%lld, block %lldx%lldx%lld) failed: %s (%d)", name,
                           (long long)grid[0], (long long)grid[1], (long long)grid[2], (long long)block[0],
                           (long long)block[1], (long long)block[2], cl_error_name(e), (int)e);
  }
  pthread_mutex_unlock(&g_lock);
  return rc;
}

static const MlcrtGpu g_ocl_services = {
    MLCRT_GPU_OPENCL, g_dev_name, ocl_program, ocl_alloc, ocl_release, ocl_upload, ocl_download, ocl_launch,
    /* the residency functions are gpu_resident.c's */
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

const MlcrtGpu *mlcrt__gpu_opencl(void) {
  pthread_mutex_lock(&g_lock);
  int rc = init_locked();
  pthread_mutex_unlock(&g_lock);
  return rc ? NULL : &g_ocl_services;
}
