/* dtype.c - data types: names, parsing, sizes.
 *
 * A dtype is a (code, bits, lanes) triple passed by value; its text form is
 * the field's ("float32", "int64x4", "bool", "handle"). */
#include "mlcc/ir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool mlc_dtype_eq(MlcDType a, MlcDType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

static const char *code_name(MlcTypeCode c) {
  switch (c) {
  case MLC_TC_INT: return "int";
  case MLC_TC_UINT: return "uint";
  case MLC_TC_FLOAT: return "float";
  case MLC_TC_BFLOAT: return "bfloat";
  case MLC_TC_BOOL: return "bool";
  case MLC_TC_HANDLE: return "handle";
  case MLC_TC_VOID: return "void";
#define X(code, name, bits, eb, mb, bias, kind, dl) \
  case code: return name;
    MLC_MINIFLOATS(X)
#undef X
  }
  return "?";
}

const char *mlc_dtype_str(MlcDType t, char buf[32]) {
  const char *c = code_name((MlcTypeCode)t.code);
  int n;
  if (t.code == MLC_TC_BOOL || t.code == MLC_TC_HANDLE || t.code == MLC_TC_VOID || mlc_dtype_is_minifloat(t))
    n = snprintf(buf, 32, "%s", c);
  else
    n = snprintf(buf, 32, "%s%d", c, t.bits);
  if (t.lanes != 1 && n > 0 && n < 32) snprintf(buf + n, (size_t)(32 - n), "x%d", t.lanes);
  return buf;
}

/* the lanes suffix at p ("" or "x<n>"), or 0 when it is not one */
static int parse_lanes(const char *p) {
  if (!*p) return 1;
  if (*p++ != 'x' || *p < '1' || *p > '9') return 0;
  int lanes = 0;
  while (*p >= '0' && *p <= '9' && lanes <= 1024) lanes = lanes * 10 + (*p++ - '0');
  return *p || lanes > 1024 ? 0 : lanes;
}

bool mlc_dtype_parse(const char *s, MlcDType *out) {
  static const struct { const char *name; MlcTypeCode code; int bits; } minifloats[] = {
#define X(code, name, bits, eb, mb, bias, kind, dl) {name, code, bits},
      MLC_MINIFLOATS(X)
#undef X
  };
  for (size_t i = 0; i < sizeof minifloats / sizeof *minifloats; i++) {
    size_t n = strlen(minifloats[i].name);
    if (strncmp(s, minifloats[i].name, n) != 0) continue;
    int lanes = parse_lanes(s + n);
    if (!lanes) continue; /* float8_e4m3fn is a prefix of float8_e4m3fnuz */
    *out = MLC_DT(minifloats[i].code, minifloats[i].bits, lanes);
    return true;
  }
  static const struct { const char *prefix; MlcTypeCode code; } prefixes[] = {
      {"bfloat", MLC_TC_BFLOAT}, {"float", MLC_TC_FLOAT}, {"uint", MLC_TC_UINT},
      {"int", MLC_TC_INT},       {"bool", MLC_TC_BOOL},   {"handle", MLC_TC_HANDLE},
      {"void", MLC_TC_VOID},
  };
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
    size_t n = strlen(prefixes[i].prefix);
    if (strncmp(s, prefixes[i].prefix, n) != 0) continue;
    const char *p = s + n;
    MlcTypeCode code = prefixes[i].code;
    int bits;
    if (code == MLC_TC_BOOL) bits = 1;
    else if (code == MLC_TC_HANDLE) bits = 64;
    else if (code == MLC_TC_VOID) bits = 0;
    else {
      if (*p < '1' || *p > '9') return false;
      bits = 0;
      while (*p >= '0' && *p <= '9' && bits < 1000) bits = bits * 10 + (*p++ - '0');
      bool ok = (code == MLC_TC_FLOAT && (bits == 16 || bits == 32 || bits == 64)) ||
                (code == MLC_TC_BFLOAT && bits == 16) ||
                ((code == MLC_TC_INT || code == MLC_TC_UINT) &&
                 (bits == 2 || bits == 4 || bits == 8 || bits == 16 || bits == 32 || bits == 64));
      if (!ok) return false;
    }
    int lanes = 1;
    if (*p == 'x') {
      p++;
      if (*p < '1' || *p > '9') return false;
      lanes = 0;
      while (*p >= '0' && *p <= '9' && lanes <= 1024) lanes = lanes * 10 + (*p++ - '0');
      if (lanes > 1024 || code == MLC_TC_VOID) return false;
    }
    if (*p) return false;
    *out = MLC_DT(code, bits, lanes);
    return true;
  }
  return false;
}

size_t mlc_dtype_bytes(MlcDType t) {
  size_t elem = t.code == MLC_TC_BOOL ? 1 : (size_t)(t.bits + 7) / 8;
  return elem * t.lanes;
}

/* ---- 16-bit floats ------------------------------------------------------------ */

uint16_t mlc_f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff, man = x & 0x7fffff;
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
  int e = (int)exp - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00);
  uint32_t h, rem, half;
  if (e <= 0) { /* subnormal half: round the 24-bit mantissa right by 14 - e */
    if (e < -10) return (uint16_t)sign;
    uint32_t m = man | 0x800000, shift = (uint32_t)(14 - e);
    h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
  } else {
    h = (uint32_t)e << 10 | (man >> 13), rem = man & 0x1fff, half = 0x1000;
  }
  if (rem > half || (rem == half && (h & 1))) h++; /* a carry into the exponent is right */
  return (uint16_t)(sign | h);
}

float mlc_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31, man = h & 1023, bits;
  if (exp == 0) { /* zero or subnormal: man * 2^-24, exact in float */
    float f = (float)man * 0x1p-24f;
    return sign ? -f : f;
  }
  if (exp == 31) bits = sign | 0x7f800000u | (man << 13);
  else bits = sign | ((exp + 112) << 23) | (man << 13);
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

float mlc_bf16_to_f32(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

uint16_t mlc_f32_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40); /* quiet NaN */
  return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

int64_t mlc_f64_to_i64(double v) {
  double t = trunc(v);
  if (!(t >= -9.2233720368547758e18 && t < 9.2233720368547758e18)) return 0;
  return (int64_t)t;
}
