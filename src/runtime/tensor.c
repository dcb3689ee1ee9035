/* tensor.c - dtypes and the tensors the runtime owns.
 *
 * Sizes come from files and callers, so every element count and byte size is
 * computed with overflow checks before anything is allocated.  Data is
 * 64-byte aligned so generated kernels may assume vector-friendly alignment,
 * and never NULL so an empty tensor still passes a call's checks.  The fill
 * conversion rounds to nearest-even for the 16-bit float types itself,
 * since C has no portable half type. */
/* a POSIX call (posix_memalign) is used: say so here, since the runtime is
 * also compiled outside this project's build */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* the dtypes the runtime knows: code, bits, name; lanes are free */
#define MLCRT_DTYPES(X)          \
  X(kDLBool, 8, "bool")          \
  X(kDLInt, 8, "int8")           \
  X(kDLInt, 16, "int16")         \
  X(kDLInt, 32, "int32")         \
  X(kDLInt, 64, "int64")         \
  X(kDLUInt, 8, "uint8")         \
  X(kDLUInt, 16, "uint16")       \
  X(kDLUInt, 32, "uint32")       \
  X(kDLUInt, 64, "uint64")       \
  X(kDLFloat, 16, "float16")     \
  X(kDLFloat, 32, "float32")     \
  X(kDLFloat, 64, "float64")     \
  X(kDLBfloat, 16, "bfloat16")    \
  X(kDLInt, 4, "int4")            \
  X(kDLInt, 2, "int2")            \
  X(kDLUInt, 4, "uint4")          \
  X(kDLUInt, 2, "uint2")          \
  X(MLCRT_DL_FLOAT8_E4M3FN, 8, "float8_e4m3fn")     \
  X(MLCRT_DL_FLOAT8_E4M3FNUZ, 8, "float8_e4m3fnuz") \
  X(MLCRT_DL_FLOAT8_E5M2, 8, "float8_e5m2")         \
  X(MLCRT_DL_FLOAT8_E5M2FNUZ, 8, "float8_e5m2fnuz") \
  X(MLCRT_DL_FLOAT8_E8M0FNU, 8, "float8_e8m0fnu")   \
  X(MLCRT_DL_FLOAT4_E2M1FN, 4, "float4_e2m1fn")

static const char *dtype_base_name(DLDataType t) {
#define X(c, b, name) \
  if (t.code == (c) && t.bits == (b)) return name;
  MLCRT_DTYPES(X)
#undef X
  return NULL;
}

DLDataType mlcrt_dtype(uint8_t code, uint8_t bits) {
  DLDataType t = {code, bits, 1};
  return t;
}

char *mlcrt_dtype_name(DLDataType t, char *buf, size_t cap) {
  const char *base = dtype_base_name(t);
  if (cap == 0) return buf;
  if (!base)
    snprintf(buf, cap, "dtype(code=%u, bits=%u, lanes=%u)", t.code, t.bits, t.lanes);
  else if (t.lanes == 1)
    snprintf(buf, cap, "%s", base);
  else
    snprintf(buf, cap, "%sx%u", base, t.lanes);
  return buf;
}

size_t mlcrt_dtype_bytes(DLDataType t) {
  if (!dtype_base_name(t) || t.lanes == 0) return 0;
  return ((size_t)t.bits + 7) / 8 * t.lanes; /* sub-byte types: a byte each */
}

bool mlcrt__mul_i64(int64_t a, int64_t b, int64_t *out) {
  if (a < 0 || b < 0) return false;
  if (a != 0 && b > INT64_MAX / a) return false;
  *out = a * b;
  return true;
}

void mlcrt__shape_str(const int64_t *shape, int32_t ndim, char *buf, size_t cap) {
  size_t used = 0;
  if (cap == 0) return;
  buf[0] = '\0';
  for (int32_t i = 0; i < ndim && used < cap; i++) {
    int k = snprintf(buf + used, cap - used, "%s%lld", i ? ", " : "(", (long long)shape[i]);
    if (k < 0) return;
    used += (size_t)k;
  }
  if (used < cap) snprintf(buf + used, cap - used, ndim == 0 ? "()" : ndim == 1 ? ",)" : ")");
}

static int check_rank(const DLTensor *t) {
  if (!t) return mlcrt_set_error("tensor is NULL");
  if (t->ndim < 0 || t->ndim > MLCRT_MAX_NDIM)
    return mlcrt_set_error("tensor rank %d outside [0, %d]", t->ndim, MLCRT_MAX_NDIM);
  if (t->ndim > 0 && !t->shape) return mlcrt_set_error("tensor shape is NULL");
  return 0;
}

static int64_t numel_of(const int64_t *shape, int32_t ndim) {
  int64_t n = 1;
  bool empty = false;
  for (int32_t i = 0; i < ndim; i++) {
    if (shape[i] < 0) {
      mlcrt_set_error("negative dimension %lld in shape", (long long)shape[i]);
      return -1;
    }
    empty |= shape[i] == 0;
  }
  if (empty) return 0;
  for (int32_t i = 0; i < ndim; i++)
    if (!mlcrt__mul_i64(n, shape[i], &n)) {
      mlcrt_set_error("element count of the shape overflows");
      return -1;
    }
  return n;
}

int64_t mlcrt_tensor_numel(const DLTensor *t) {
  if (check_rank(t)) return -1;
  return numel_of(t->shape, t->ndim);
}

static int64_t nbytes_of(int64_t numel, DLDataType dtype) {
  char name[64];
  int64_t n;
  size_t elem = mlcrt_dtype_bytes(dtype);
  if (elem == 0) {
    mlcrt_set_error("unsupported dtype %s", mlcrt_dtype_name(dtype, name, sizeof name));
    return -1;
  }
  if (numel < 0) return -1;
  if (!mlcrt__mul_i64(numel, (int64_t)elem, &n) || (uint64_t)n > (uint64_t)(SIZE_MAX / 2)) {
    mlcrt_set_error("tensor byte size overflows");
    return -1;
  }
  return n;
}

int64_t mlcrt_tensor_nbytes(const DLTensor *t) {
  int64_t numel = mlcrt_tensor_numel(t);
  if (numel < 0) return -1;
  return nbytes_of(numel, t->dtype);
}

int mlcrt_tensor_create(int32_t ndim, const int64_t *shape, DLDataType dtype, MlcrtTensor **out) {
  *out = NULL;
  if (ndim < 0 || ndim > MLCRT_MAX_NDIM)
    return mlcrt_set_error("tensor rank %d outside [0, %d]", ndim, MLCRT_MAX_NDIM);
  if (ndim > 0 && !shape) return mlcrt_set_error("tensor shape is NULL");
  int64_t nbytes = nbytes_of(numel_of(shape, ndim), dtype);
  if (nbytes < 0) return -1;
  MlcrtTensor *t = calloc(1, sizeof *t);
  void *data = NULL;
  size_t alloc = nbytes ? (size_t)nbytes : 1;
  if (!t || posix_memalign(&data, MLCRT_ALIGN, alloc) != 0) {
    free(t);
    return mlcrt_set_error("out of memory allocating a tensor of %lld bytes", (long long)nbytes);
  }
  memset(data, 0, alloc);
  if (ndim > 0) memcpy(t->shape, shape, (size_t)ndim * sizeof *shape);
  t->dl.data = data;
  t->dl.device.device_type = kDLCPU;
  t->dl.ndim = ndim;
  t->dl.dtype = dtype;
  t->dl.shape = t->shape;
  *out = t;
  return 0;
}

void mlcrt_tensor_free(MlcrtTensor *t) {
  if (!t) return;
  free(t->dl.data);
  free(t);
}

int mlcrt__check_compact(const DLTensor *t) {
  char got[256];
  int64_t want = 1;
  if (!t->strides) return 0;
  for (int32_t i = 0; i < t->ndim; i++)
    if (t->shape[i] == 0) return 0;
  for (int32_t i = t->ndim - 1; i >= 0; i--) {
    if (t->shape[i] != 1 && t->strides[i] != want) {
      mlcrt__shape_str(t->strides, t->ndim, got, sizeof got);
      return mlcrt_set_error("expected compact row-major strides, got strides %s", got);
    }
    if (!mlcrt__mul_i64(want, t->shape[i], &want)) return mlcrt_set_error("tensor size overflows");
  }
  return 0;
}

/* ---- fill ------------------------------------------------------------------ */

/* a binary float with eb exponent and mb mantissa bits, rounded to nearest
 * even: scaling by powers of two is exact in double, so rint() does the
 * rounding and a mantissa that rounds up carries into the exponent */
static uint32_t encode_small_float(double v, int eb, int mb) {
  uint32_t sign = signbit(v) ? 1u << (eb + mb) : 0;
  uint32_t inf = ((1u << eb) - 1) << mb;
  int bias = (1 << (eb - 1)) - 1, emin = 1 - bias, e2;
  double a = fabs(v);
  if (isnan(v)) return sign | inf | (1u << (mb - 1));
  if (isinf(a)) return sign | inf;
  if (a == 0) return sign;
  frexp(a, &e2);
  int e = e2 - 1; /* a in [2^e, 2^(e+1)) */
  if (e < emin) return sign | (uint32_t)rint(ldexp(a, mb - emin));
  if (e > bias) return sign | inf;
  double m = rint(ldexp(a, mb - e)); /* in [2^mb, 2^(mb+1)] */
  uint32_t bits = ((uint32_t)(e + bias) << mb) + (uint32_t)(m - ldexp(1.0, mb));
  return sign | (bits >= inf ? inf : bits);
}

static int int_in_range(double v, DLDataType t, const char *name) {
  double lo = t.code == kDLInt ? -ldexp(1.0, t.bits - 1) : 0;
  double hi = t.code == kDLInt ? ldexp(1.0, t.bits - 1) : ldexp(1.0, t.bits);
  if (isnan(v) || v < lo || v >= hi) return mlcrt_set_error("fill value %g out of range for %s", v, name);
  return 0;
}

/* the bytes of one lane holding v */
static int encode_lane(double v, DLDataType t, uint8_t *pat) {
  char name[64];
  mlcrt_dtype_name(t, name, sizeof name);
  double tv = trunc(v);
  switch (t.code) {
  case kDLBool: pat[0] = v != 0; return 0;
  case kDLBfloat: { uint16_t h = (uint16_t)encode_small_float(v, 8, 7); memcpy(pat, &h, 2); return 0; }
  case kDLFloat:
    if (t.bits == 16) { uint16_t h = (uint16_t)encode_small_float(v, 5, 10); memcpy(pat, &h, 2); }
    else if (t.bits == 32) { float f = (float)v; memcpy(pat, &f, 4); }
    else memcpy(pat, &v, 8);
    return 0;
  case kDLInt:
  case kDLUInt:
    if (int_in_range(tv, t, name)) return -1;
    break;
  case MLCRT_DL_FLOAT8_E4M3FN: case MLCRT_DL_FLOAT8_E4M3FNUZ: case MLCRT_DL_FLOAT8_E5M2:
  case MLCRT_DL_FLOAT8_E5M2FNUZ: case MLCRT_DL_FLOAT4_E2M1FN:
    /* code 0 is +0 in each; the runtime has no encoder for other values */
    if (v != 0 || signbit(v)) return mlcrt_set_error("fill: %s takes only the value 0, not %g", name, v);
    pat[0] = 0;
    return 0;
  default: return mlcrt_set_error("fill: unsupported dtype %s", name);
  }
  if (t.code == kDLInt) {
    int64_t i = (int64_t)tv;
    int8_t i8 = (int8_t)i; int16_t i16 = (int16_t)i; int32_t i32 = (int32_t)i;
    const void *src = t.bits <= 8 ? (const void *)&i8 : t.bits == 16 ? (const void *)&i16
                    : t.bits == 32 ? (const void *)&i32 : (const void *)&i;
    memcpy(pat, src, ((size_t)t.bits + 7) / 8); /* sub-byte types: a byte each */
  } else {
    uint64_t u = (uint64_t)tv;
    uint8_t u8 = (uint8_t)u; uint16_t u16 = (uint16_t)u; uint32_t u32 = (uint32_t)u;
    const void *src = t.bits <= 8 ? (const void *)&u8 : t.bits == 16 ? (const void *)&u16
                    : t.bits == 32 ? (const void *)&u32 : (const void *)&u;
    memcpy(pat, src, ((size_t)t.bits + 7) / 8); /* sub-byte types: a byte each */
  }
  return 0;
}

int mlcrt_tensor_fill(DLTensor *t, double value) {
  uint8_t pat[8];
  int64_t nbytes = mlcrt_tensor_nbytes(t);
  if (nbytes < 0) return -1;
  if (t->device.device_type != kDLCPU) return mlcrt_set_error("fill: tensor is not on the CPU");
  if (mlcrt__check_compact(t)) return -1;
  if (nbytes > 0 && !t->data) return mlcrt_set_error("fill: tensor data is NULL");
  if (encode_lane(value, t->dtype, pat)) return -1;
  size_t lane = ((size_t)t->dtype.bits + 7) / 8, n = (size_t)nbytes;
  uint8_t *p = (uint8_t *)t->data + t->byte_offset;
  if (n == 0) return 0;
  memcpy(p, pat, lane);
  /* doubling copies: log2(n) memcpy calls whatever the element size */
  for (size_t done = lane; done < n;) {
    size_t k = done < n - done ? done : n - done;
    memcpy(p + done, p, k);
    done += k;
  }
  return 0;
}
