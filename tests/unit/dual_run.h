/* dual_run.h - one prim func run twice on the same inputs, by the
 * reference interpreter and by the compiled code, for the tests of element
 * types (test_codegen_bf16.c, test_codegen_minifloat.c): the arguments
 * (each buffer three times: filled once, then copied for each side), the
 * two runs, and the runtime's dtype for the compiler's.
 *
 * Header-only (static functions), like build_util.h; include it after
 * build_util.h. */
#ifndef MLCC_TEST_DUAL_RUN_H
#define MLCC_TEST_DUAL_RUN_H

#include "mlcc/interp.h"
#include "mlcc/ir.h"
#include "mlcc/runtime.h"

#include <stdlib.h>
#include <string.h>

enum { DUAL_MAX_PARAMS = 8 };

typedef struct DualArgs {
  const MlcPrimFunc *f;
  int n;
  int64_t shape[DUAL_MAX_PARAMS][2];
  size_t count[DUAL_MAX_PARAMS], bytes[DUAL_MAX_PARAMS];
  void *interp[DUAL_MAX_PARAMS], *compiled[DUAL_MAX_PARAMS];
  MlcInterpArg arg[DUAL_MAX_PARAMS];
  DLTensor tensor[DUAL_MAX_PARAMS];
  MlcrtValue value[DUAL_MAX_PARAMS];
} DualArgs;

/* the runtime's dtype of a compiler dtype (scalar lanes) */
static inline DLDataType dual_dl_of(MlcDType t) {
#define X(tc, name, nbits, eb, mb, bias, kind, dl) \
  if (t.code == (tc)) return (DLDataType){dl, nbits, 1};
  MLC_MINIFLOATS(X)
#undef X
  uint8_t code = t.code == MLC_TC_BFLOAT ? kDLBfloat : t.code == MLC_TC_INT ? kDLInt : t.code == MLC_TC_UINT ? kDLUInt : kDLFloat;
  return (DLDataType){code, (uint8_t)t.bits, 1};
}

/* fills `count` elements of a buffer of dtype t */
typedef void DualFill(MlcDType t, void *data, size_t count);

/* the arguments of prim func `name` of m (at most 2-D buffers): buffers
 * filled by fill, scalar params set to `scalar`; false when there is no
 * such function or it has too many params */
static inline bool dual_make(MlcCtx *ctx, const MlcModule *m, const char *name, DualFill *fill, double scalar,
                             DualArgs *a) {
  const MlcFunc *fn = mlc_module_find(m, mlc_intern(ctx, name));
  memset(a, 0, sizeof *a);
  if (!fn || fn->kind != MLC_FUNC_PRIM || fn->prim->n_params > DUAL_MAX_PARAMS) return false;
  a->f = fn->prim;
  a->n = a->f->n_params;
  for (int i = 0; i < a->n; i++) {
    const MlcBuffer *b = a->f->params[i].buf;
    if (!b) {
      a->arg[i] = (MlcInterpArg){.is_buffer = false, .f = scalar};
      a->value[i].f = scalar;
      continue;
    }
    if (b->ndim > 2) return false;
    size_t count = 1;
    a->shape[i][1] = 1;
    for (int d = 0; d < b->ndim; d++) count *= (size_t)(a->shape[i][d] = b->shape[d]->int_val);
    a->count[i] = count;
    a->bytes[i] = count * mlc_dtype_bytes(b->dtype);
    a->interp[i] = malloc(a->bytes[i]);
    a->compiled[i] = malloc(a->bytes[i]);
    if (!a->interp[i] || !a->compiled[i]) return false;
    fill(b->dtype, a->interp[i], count);
    memcpy(a->compiled[i], a->interp[i], a->bytes[i]);
    a->arg[i] = (MlcInterpArg){.is_buffer = true, .data = a->interp[i], .ndim = b->ndim, .shape = a->shape[i]};
    a->tensor[i] = (DLTensor){.data = a->compiled[i], .device = {kDLCPU, 0}, .ndim = b->ndim,
                              .dtype = dual_dl_of(b->dtype), .shape = a->shape[i]};
    a->value[i].tensor = &a->tensor[i];
  }
  return true;
}

static inline void dual_free(DualArgs *a) {
  for (int i = 0; i < a->n; i++) free(a->interp[i]), free(a->compiled[i]);
}

/* run both sides (the compiled function from lib); false, with the reason
 * printed, when either fails */
static inline bool dual_run(MlcCtx *ctx, const MlcrtModule *lib, DualArgs *a) {
  mlc_clear_error(ctx);
  if (!mlc_interp_run(ctx, a->f, a->arg, a->n)) {
    bu_print_error(ctx, a->f->name);
    return false;
  }
  const MlcrtFunc *fn = lib ? mlcrt_module_get_func(lib, a->f->name) : NULL;
  if (!fn || mlcrt_func_call(fn, a->value, a->n) != 0) {
    printf("    %s: %s\n", a->f->name, mlcrt_last_error());
    return false;
  }
  return true;
}

#endif
