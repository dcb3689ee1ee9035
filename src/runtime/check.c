/* check.c - the checks a tensor argument passes before generated code sees
 * it, shared by kernel calls (call.c) and compiled models' inputs (model.c).
 *
 * Generated code trusts its parameters completely (no checks in the hot
 * code), so every property it assumes is checked here, once per call: CPU,
 * rank, dtype, shape, symbolic sizes agreeing, compact, aligned, not NULL.
 * A refusal names the function, the argument (or input) and what was
 * expected.  A model's inputs are described like a function's parameters,
 * so both go through the same code with a different noun. */
#include <stdarg.h>
#include <stdio.h>

#include "rt.h"

/* "f: argument 'B' (#2): " + the formatted reason */
static int arg_error(const MlcrtFuncDesc *d, const char *noun, int32_t i, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int arg_error(const MlcrtFuncDesc *d, const char *noun, int32_t i, const char *fmt, ...) {
  char why[MLCRT_ERR_CAP];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return mlcrt_set_error("%s: %s '%s' (#%d): %s", d->name, noun, d->params[i].name, i + 1, why);
}

void mlcrt__declared_shape(const MlcrtParamDesc *p, const char *const *sym_names, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (int32_t k = 0; k < p->ndim && used < cap; k++) {
    const char *sep = k ? ", " : "(";
    int64_t dim = p->dims[k];
    int n = dim >= 0                   ? snprintf(buf + used, cap - used, "%s%lld", sep, (long long)dim)
            : dim == MLCRT_DIM_COMPUTED ? snprintf(buf + used, cap - used, "%s?", sep)
                                        : snprintf(buf + used, cap - used, "%s%s", sep, sym_names[-(dim + 1)]);
    if (n < 0) return;
    used += (size_t)n;
  }
  if (used < cap) snprintf(buf + used, cap - used, p->ndim == 0 ? "()" : p->ndim == 1 ? ",)" : ")");
}

static int check_shape(const MlcrtFuncDesc *d, const char *noun, int32_t i, const DLTensor *t,
                       MlcrtBinding *b) {
  const MlcrtParamDesc *p = &d->params[i];
  char want[256], got[256];
  for (int32_t k = 0; k < p->ndim; k++) {
    if (t->shape[k] < 0) return arg_error(d, noun, i, "negative dimension %lld", (long long)t->shape[k]);
    if (p->dims[k] >= 0 && t->shape[k] != p->dims[k]) {
      mlcrt__declared_shape(p, d->sym_names, want, sizeof want);
      mlcrt__shape_str(t->shape, t->ndim, got, sizeof got);
      return arg_error(d, noun, i, "expected shape %s, got %s", want, got);
    }
  }
  for (int32_t k = 0; k < p->ndim; k++) {
    if (p->dims[k] >= 0) continue;
    int64_t s = -(p->dims[k] + 1);
    if (b->from[s] < 0) {
      b->from[s] = i;
      b->syms[s] = t->shape[k];
    } else if (b->syms[s] != t->shape[k]) {
      return arg_error(d, noun, i, "symbolic size %s = %lld from '%s' but %lld here", d->sym_names[s],
                       (long long)b->syms[s], d->params[b->from[s]].name, (long long)t->shape[k]);
    }
  }
  return 0;
}

static int check_buffer(const MlcrtFuncDesc *d, const char *noun, int32_t i, const DLTensor *t,
                        MlcrtBinding *b) {
  const MlcrtParamDesc *p = &d->params[i];
  char want[256], got[64];
  if (!t) return arg_error(d, noun, i, "expected a tensor, got NULL");
  if (t->device.device_type != kDLCPU)
    return arg_error(d, noun, i, "expected a CPU tensor, got device type %d", t->device.device_type);
  if (t->ndim != p->ndim) {
    mlcrt__declared_shape(p, d->sym_names, want, sizeof want);
    return arg_error(d, noun, i, "expected rank %d, shape %s, got rank %d", p->ndim, want, t->ndim);
  }
  if (t->ndim > 0 && !t->shape) return arg_error(d, noun, i, "tensor shape is NULL");
  if (t->dtype.code != p->dtype.code || t->dtype.bits != p->dtype.bits || t->dtype.lanes != p->dtype.lanes) {
    mlcrt_dtype_name(p->dtype, want, sizeof want);
    return arg_error(d, noun, i, "expected dtype %s, got %s", want, mlcrt_dtype_name(t->dtype, got, sizeof got));
  }
  if (check_shape(d, noun, i, t, b)) return -1;
  if (mlcrt_tensor_nbytes(t) < 0 || mlcrt__check_compact(t)) {
    snprintf(want, sizeof want, "%s: %s '%s' (#%d)", d->name, noun, p->name, i + 1);
    mlcrt__prefix_error(want);
    return -1;
  }
  if (!t->data) return arg_error(d, noun, i, "tensor data is NULL");
  char *elems = (char *)t->data + t->byte_offset;
  if (p->align > 1 && (uintptr_t)elems % (uintptr_t)p->align != 0)
    return arg_error(d, noun, i, "data at %p is not %d-byte aligned", (void *)elems, p->align);
  b->argp[i] = elems;
  return 0;
}

int mlcrt__bind_args(const MlcrtFuncDesc *d, const char *noun, const MlcrtValue *args, MlcrtBinding *b) {
  for (int32_t s = 0; s < d->n_syms; s++) b->from[s] = -1;
  for (int32_t i = 0; i < d->n_params; i++) {
    if (d->params[i].is_buffer) {
      if (check_buffer(d, noun, i, args[i].tensor, b)) return -1;
    } else {
      b->scalars[i] = args[i];
      b->argp[i] = d->params[i].dtype.code == kDLInt ? (void *)&b->scalars[i].i : (void *)&b->scalars[i].f;
    }
  }
  return 0;
}
