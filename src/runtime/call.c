/* call.c - the calling convention: check arguments, bind symbolic sizes,
 * call the kernel with the runtime's environment.
 *
 * Generated kernels trust their parameters completely (no checks in the hot
 * code), so every property the kernel assumes is checked here, once per call,
 * and a refusal names the function, the argument and what was expected.
 * Small calls use stack arrays; only functions with many parameters or
 * symbolic sizes allocate.  The checks themselves are in check.c, which
 * compiled models' inputs share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* parameters and symbolic sizes handled without allocating */
#define SMALL 32

/* ---- the environment kernels receive ---------------------------------------- */

static void env_set_error(const char *msg) { mlcrt__set_error_str(msg); }

static const MlcrtEnv g_env = {
    MLCRT_ENV_VERSION, mlcrt_parallel_for, mlcrt__workspace_alloc, mlcrt__workspace_free, env_set_error,
    mlcrt_extern_get, NULL, NULL, mlcrt_gpu,
};

const MlcrtEnv *mlcrt_env(void) { return &g_env; }

/* ---- the call ---------------------------------------------------------------------- */

static int call_bound(const MlcrtFuncDesc *d, MlcrtBinding *b) {
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
  MlcrtBinding b = {syms, from, argp, scalars};
  bool heap = d->n_params > SMALL || d->n_syms > SMALL;
  if (heap) {
    size_t np = (size_t)d->n_params + 1, ns = (size_t)d->n_syms + 1;
    b = (MlcrtBinding){malloc(ns * sizeof *b.syms), malloc(ns * sizeof *b.from), malloc(np * sizeof *b.argp),
                  malloc(np * sizeof *b.scalars)};
  }
  int rc;
  if (heap && (!b.syms || !b.from || !b.argp || !b.scalars))
    rc = mlcrt_set_error("%s: out of memory binding arguments", d->name);
  else
    rc = mlcrt__bind_args(d, "argument", args, &b) ? -1 : call_bound(d, &b);
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
