/* call.c - the calling convention: check arguments, bind symbolic sizes,
 * call the kernel with the runtime's environment.
 *
 * Generated kernels trust their parameters completely (no checks in the hot
 * code), so every property the kernel assumes is checked here, once per call,
 * and a refusal names the function, the argument and what was expected.
 * Small calls use stack arrays; only functions with many parameters or
 * symbolic sizes allocate. */
/* a POSIX call (posix_memalign) is used: say so here, since the runtime is
 * also compiled outside this project's build */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* parameters and symbolic sizes handled without allocating */
#define SMALL 32

typedef struct Binding {
  int64_t *syms;  /* value of each symbolic size */
  int32_t *from;  /* parameter that bound it, -1 while unbound */
  void **argp;    /* what the kernel receives */
  MlcrtValue *scalars; /* copies, so the kernel's pointers are its own */
} Binding;

/* ---- the environment kernels receive ---------------------------------------- */

static void *env_workspace_alloc(size_t nbytes, size_t align) {
  void *p = NULL;
  if (align == 0) align = MLCRT_ALIGN;
  if (align & (align - 1)) {
    mlcrt_set_error("workspace_alloc: alignment %zu is not a power of two", align);
    return NULL;
  }
  if (align < sizeof(void *)) align = sizeof(void *); /* posix_memalign's least */
  if (posix_memalign(&p, align, nbytes ? nbytes : 1) != 0) {
    mlcrt_set_error("workspace_alloc: out of memory (%zu bytes)", nbytes);
    return NULL;
  }
  return p;
}

static void env_workspace_free(void *p) { free(p); }

static void env_set_error(const char *msg) { mlcrt__set_error_str(msg); }

static const MlcrtEnv g_env = {
    MLCRT_ENV_VERSION, mlcrt_parallel_for, env_workspace_alloc, env_workspace_free, env_set_error,
    mlcrt_extern_get,
};

const MlcrtEnv *mlcrt_env(void) { return &g_env; }

/* ---- argument checks -------------------------------------------------------------- */

/* "f: argument 'B' (#2): " + the formatted reason */
static int arg_error(const MlcrtFuncDesc *d, int32_t i, const char *fmt, ...) {
  char why[MLCRT_ERR_CAP];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return mlcrt_set_error("%s: argument '%s' (#%d): %s", d->name, d->params[i].name, i + 1, why);
}

/* the declared shape with symbolic sizes by name: "(n, 128)" */
static void declared_shape(const MlcrtFuncDesc *d, const MlcrtParamDesc *p, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (int32_t k = 0; k < p->ndim && used < cap; k++) {
    const char *sep = k ? ", " : "(";
    int64_t dim = p->dims[k];
    int n = dim >= 0 ? snprintf(buf + used, cap - used, "%s%lld", sep, (long long)dim)
                     : snprintf(buf + used, cap - used, "%s%s", sep, d->sym_names[-(dim + 1)]);
    if (n < 0) return;
    used += (size_t)n;
  }
  if (used < cap) snprintf(buf + used, cap - used, p->ndim == 0 ? "()" : p->ndim == 1 ? ",)" : ")");
}

static int check_shape(const MlcrtFuncDesc *d, int32_t i, const DLTensor *t, Binding *b) {
  const MlcrtParamDesc *p = &d->params[i];
  char want[256], got[256];
  for (int32_t k = 0; k < p->ndim; k++) {
    if (t->shape[k] < 0) return arg_error(d, i, "negative dimension %lld", (long long)t->shape[k]);
    if (p->dims[k] >= 0 && t->shape[k] != p->dims[k]) {
      declared_shape(d, p, want, sizeof want);
      mlcrt__shape_str(t->shape, t->ndim, got, sizeof got);
      return arg_error(d, i, "expected shape %s, got %s", want, got);
    }
  }
  for (int32_t k = 0; k < p->ndim; k++) {
    if (p->dims[k] >= 0) continue;
    int64_t s = -(p->dims[k] + 1);
    if (b->from[s] < 0) {
      b->from[s] = i;
      b->syms[s] = t->shape[k];
    } else if (b->syms[s] != t->shape[k]) {
      return arg_error(d, i, "symbolic size %s = %lld from '%s' but %lld here", d->sym_names[s],
                       (long long)b->syms[s], d->params[b->from[s]].name, (long long)t->shape[k]);
    }
  }
  return 0;
}

static int check_buffer(const MlcrtFuncDesc *d, int32_t i, const DLTensor *t, Binding *b) {
  const MlcrtParamDesc *p = &d->params[i];
  char want[256], got[64];
  if (!t) return arg_error(d, i, "expected a tensor, got NULL");
  if (t->device.device_type != kDLCPU)
    return arg_error(d, i, "expected a CPU tensor, got device type %d", t->device.device_type);
  if (t->ndim != p->ndim) {
    declared_shape(d, p, want, sizeof want);
    return arg_error(d, i, "expected rank %d, shape %s, got rank %d", p->ndim, want, t->ndim);
  }
  if (t->ndim > 0 && !t->shape) return arg_error(d, i, "tensor shape is NULL");
  if (t->dtype.code != p->dtype.code || t->dtype.bits != p->dtype.bits || t->dtype.lanes != p->dtype.lanes) {
    mlcrt_dtype_name(p->dtype, want, sizeof want);
    return arg_error(d, i, "expected dtype %s, got %s", want, mlcrt_dtype_name(t->dtype, got, sizeof got));
  }
  if (check_shape(d, i, t, b)) return -1;
  if (mlcrt_tensor_nbytes(t) < 0 || mlcrt__check_compact(t)) {
    snprintf(want, sizeof want, "%s: argument '%s' (#%d)", d->name, p->name, i + 1);
    mlcrt__prefix_error(want);
    return -1;
  }
  if (!t->data) return arg_error(d, i, "tensor data is NULL");
  char *elems = (char *)t->data + t->byte_offset;
  if (p->align > 1 && (uintptr_t)elems % (uintptr_t)p->align != 0)
    return arg_error(d, i, "data at %p is not %d-byte aligned", (void *)elems, p->align);
  b->argp[i] = elems;
  return 0;
}

static int bind_args(const MlcrtFuncDesc *d, const MlcrtValue *args, Binding *b) {
  for (int32_t s = 0; s < d->n_syms; s++) b->from[s] = -1;
  for (int32_t i = 0; i < d->n_params; i++) {
    if (d->params[i].is_buffer) {
      if (check_buffer(d, i, args[i].tensor, b)) return -1;
    } else {
      b->scalars[i] = args[i];
      b->argp[i] = d->params[i].dtype.code == kDLInt ? (void *)&b->scalars[i].i : (void *)&b->scalars[i].f;
    }
  }
  return 0;
}

/* ---- the call ---------------------------------------------------------------------- */

static int call_bound(const MlcrtFuncDesc *d, Binding *b) {
  mlcrt__set_error_str("");
  int32_t rc = d->fn(b->argp, b->syms, &g_env);
  if (rc == 0) return 0;
  if (!mlcrt_last_error()[0]) mlcrt_set_error("kernel failed with status %d", rc);
  mlcrt__prefix_error(d->name);
  return rc;
}

int mlcrt_func_call(const MlcrtFunc *f, const MlcrtValue *args, int32_t n_args) {
  if (!f) return mlcrt_set_error("func_call: function is NULL");
  const MlcrtFuncDesc *d = f->desc;
  if (n_args != d->n_params)
    return mlcrt_set_error("%s: expected %d arguments, got %d", d->name, d->n_params, n_args);
  if (n_args > 0 && !args) return mlcrt_set_error("%s: argument array is NULL", d->name);
  int64_t syms[SMALL];
  int32_t from[SMALL];
  void *argp[SMALL];
  MlcrtValue scalars[SMALL];
  Binding b = {syms, from, argp, scalars};
  bool heap = d->n_params > SMALL || d->n_syms > SMALL;
  if (heap) {
    size_t np = (size_t)d->n_params + 1, ns = (size_t)d->n_syms + 1;
    b = (Binding){malloc(ns * sizeof *b.syms), malloc(ns * sizeof *b.from), malloc(np * sizeof *b.argp),
                  malloc(np * sizeof *b.scalars)};
  }
  int rc;
  if (heap && (!b.syms || !b.from || !b.argp || !b.scalars))
    rc = mlcrt_set_error("%s: out of memory binding arguments", d->name);
  else
    rc = bind_args(d, args, &b) ? -1 : call_bound(d, &b);
  if (heap) {
    free(b.syms);
    free(b.from);
    free(b.argp);
    free(b.scalars);
  }
  return rc;
}

int mlcrt_func_call_tensors(const MlcrtFunc *f, DLTensor *const *tensors, int32_t n) {
  MlcrtValue small[SMALL] = {{0}};
  if (!f) return mlcrt_set_error("func_call: function is NULL");
  const MlcrtFuncDesc *d = f->desc;
  if (n < 0 || (n > 0 && !tensors)) return mlcrt_set_error("%s: bad tensor array", d->name);
  for (int32_t i = 0; i < n && i < d->n_params; i++)
    if (!d->params[i].is_buffer)
      return mlcrt_set_error("%s: parameter '%s' (#%d) is a scalar; use mlcrt_func_call", d->name,
                             d->params[i].name, i + 1);
  MlcrtValue *args = n <= SMALL ? small : malloc((size_t)n * sizeof *args);
  if (!args) return mlcrt_set_error("%s: out of memory", d->name);
  for (int32_t i = 0; i < n; i++) args[i].tensor = tensors[i];
  int rc = mlcrt_func_call(f, args, n);
  if (args != small) free(args);
  return rc;
}
