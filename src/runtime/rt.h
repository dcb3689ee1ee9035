/* rt.h - what the runtime's files share and nothing outside them sees: the
 * message buffer, file reading, and the checks on a DLTensor's layout that
 * both calls and the .npy/.npz writers need.  Names are
 * mlcrt__-prefixed so they stay out of the public mlcrt_ namespace. */
#ifndef MLCRT_RT_H
#define MLCRT_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "mlcc/runtime.h"

/* the size of a thread's message buffer (longer messages are cut) */
#define MLCRT_ERR_CAP 512

/* copy msg as this thread's message; returns -1 */
int mlcrt__set_error_str(const char *msg);
/* prefix this thread's current message with "prefix: " */
void mlcrt__prefix_error(const char *prefix);

/* whole-file read into a malloc'd buffer; anything but a regular file (a
 * FIFO, a device) is refused without blocking (file.c) */
int mlcrt__read_file(const char *path, void **buf, size_t *len);

/* An output file being written (file.c): f writes to a new file beside the
 * path, which mlcrt__out_close renames over it when ok, or removes when
 * not; a failed write leaves whatever was at the path as it was. */
typedef struct MlcrtOut {
  FILE *f;
  const char *path;
  char *tmp;      /* NULL when an existing device or FIFO is written in place */
  char *resolved; /* the file a symlink at path leads to, or NULL */
} MlcrtOut;
int mlcrt__out_open(const char *path, MlcrtOut *o);
/* ok: every write succeeded; returns 0 when the file is in place */
int mlcrt__out_close(MlcrtOut *o, bool ok);

/* a*b and a+b for non-negative int64 sizes; false on overflow */
bool mlcrt__mul_i64(int64_t a, int64_t b, int64_t *out);

/* "(2, n, 3)" for a shape; writes at most cap bytes */
void mlcrt__shape_str(const int64_t *shape, int32_t ndim, char *buf, size_t cap);
/* seconds on the monotonic clock (timer.c): the time evaluator's and the
 * model profiler's */
double mlcrt__now_s(void);

/* 0 when t's elements are compact row-major (strides NULL or equal to the
 * row-major ones, ignoring dims of size 1); otherwise sets a message */
int mlcrt__check_compact(const DLTensor *t);

/* A .npy file's header, parsed (npy.c): its length (magic to newline), the
 * tensor's shape and dtype, whether its bytes need swapping, and the data
 * bytes the shape needs.  parse_header needs the whole header in buf (the
 * data may be absent); header_size tells from the first 12 bytes how long
 * the header is. */
typedef struct MlcrtNpyHeader {
  size_t len;
  int32_t ndim;
  int64_t shape[MLCRT_MAX_NDIM];
  DLDataType dtype;
  bool swap;
  int64_t nbytes;
} MlcrtNpyHeader;
int mlcrt__npy_header_size(const void *buf, size_t len, size_t *total);
int mlcrt__npy_parse_header(const void *buf, size_t len, MlcrtNpyHeader *h);
/* put the h->nbytes bytes at data into the host's byte order */
void mlcrt__npy_swap(const MlcrtNpyHeader *h, void *data);

/* the .npy header (magic to newline) for a compact tensor; *hdr_len gets
 * its size, at most cap */
int mlcrt__npy_header(const DLTensor *t, char *hdr, size_t cap, size_t *hdr_len);

/* env->workspace_alloc / workspace_free (workspace.c): aligned blocks, the
 * bigger ones kept for reuse when freed; NULL with a message when out of memory */
void *mlcrt__workspace_alloc(size_t nbytes, size_t align);
void mlcrt__workspace_free(void *p);

/* register the runtime's own externs (env.linear, ...) once; thread-safe */
void mlcrt__register_builtin_externs(void);
/* add or replace a registry entry without registering the built-ins first
 * (what the built-ins' own registration uses) */
int mlcrt__extern_put(const char *name, MlcrtExternFn fn);

/* ---- argument checks (check.c) ----------------------------------------------- */

/* where a call's checked arguments go: the kernel's argument pointers, the
 * symbolic sizes and the parameter that bound each (-1 while unbound), and
 * copies of scalars (NULL is fine when every parameter is a buffer) */
typedef struct MlcrtBinding {
  int64_t *syms;
  int32_t *from;
  void **argp;
  MlcrtValue *scalars;
} MlcrtBinding;

/* Check args against d's parameters (d->fn is not used) and bind them;
 * messages read "NAME: NOUN 'X' (#i): why", NOUN "argument" or "input". */
int mlcrt__bind_args(const MlcrtFuncDesc *d, const char *noun, const MlcrtValue *args, MlcrtBinding *b);

/* a declared shape with symbolic sizes by name: "(n, 128)" */
void mlcrt__declared_shape(const MlcrtParamDesc *p, const char *const *sym_names, char *buf, size_t cap);

/* a function handle points at its descriptor, which the module keeps alive */
struct MlcrtFunc {
  const MlcrtFuncDesc *desc;
};

struct MlcrtModule {
  void *dl; /* NULL for a module over a descriptor in the program */
  const MlcrtModuleDesc *desc;
  MlcrtFunc *funcs;
  int32_t n_funcs;
};

#endif
