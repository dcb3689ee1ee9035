/* rt.h - what the runtime's files share and nothing outside them sees: the
 * message buffer, file reading, and the checks on a DLTensor's layout that
 * both calls and the .npy/.npz writers need.  Names are
 * mlcrt__-prefixed so they stay out of the public mlcrt_ namespace. */
#ifndef MLCRT_RT_H
#define MLCRT_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mlcc/runtime.h"

/* the size of a thread's message buffer (longer messages are cut) */
#define MLCRT_ERR_CAP 512

/* copy msg as this thread's message; returns -1 */
int mlcrt__set_error_str(const char *msg);
/* prefix this thread's current message with "prefix: " */
void mlcrt__prefix_error(const char *prefix);

/* whole-file read into a malloc'd buffer (size 0 gives a 1-byte buffer) */
int mlcrt__read_file(const char *path, void **buf, size_t *len);

/* a*b and a+b for non-negative int64 sizes; false on overflow */
bool mlcrt__mul_i64(int64_t a, int64_t b, int64_t *out);

/* "(2, n, 3)" for a shape; writes at most cap bytes */
void mlcrt__shape_str(const int64_t *shape, int32_t ndim, char *buf, size_t cap);

/* 0 when t's elements are compact row-major (strides NULL or equal to the
 * row-major ones, ignoring dims of size 1); otherwise sets a message */
int mlcrt__check_compact(const DLTensor *t);

/* the .npy header (magic to newline) for a compact tensor; *hdr_len gets
 * its size, at most cap */
int mlcrt__npy_header(const DLTensor *t, char *hdr, size_t cap, size_t *hdr_len);

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
