/* minifloat.c - the 8- and 4-bit float formats: conversions from and to
 * float, for the interpreter, the constant folder and the importer.
 *
 * The conversions themselves live in minifloat_src.h, which the C code
 * generator also writes into generated code, so both agree bit for bit. */
#include "mlcc/ir.h"

#include <float.h>
#include <math.h>

#include "ir/minifloat_src.h"

MLC_MF_FUNCS(MLC_MF_CODE)

typedef struct Format {
  int eb, mb, bias, kind;
} Format;

static Format format(MlcDType t) {
  switch ((MlcTypeCode)t.code) {
#define X(code, name, bits, eb, mb, bias, kind, dl) \
  case code: return (Format){eb, mb, bias, kind};
    MLC_MINIFLOATS(X)
#undef X
  default: return (Format){8, 0, 127, 3};
  }
}

void mlc_minifloat_format(MlcDType t, int *eb, int *mb, int *bias, int *kind) {
  Format f = format(t);
  *eb = f.eb, *mb = f.mb, *bias = f.bias, *kind = f.kind;
}

unsigned mlc_minifloat_encode(MlcDType t, float f) {
  Format m = format(t);
  return mlc_mf_encode(f, m.eb, m.mb, m.bias, m.kind);
}

float mlc_minifloat_decode(MlcDType t, unsigned bits) {
  Format m = format(t);
  return mlc_mf_decode(bits, m.eb, m.mb, m.bias, m.kind);
}

double mlc_minifloat_max(MlcDType t) {
  Format m = format(t);
  /* the largest finite code: below the infinities (kind 0), below the one
   * NaN (kind 1), 0x7f (fnuz, E2M1's 0x7), 0xfe (E8M0) */
  unsigned sbit = 1u << (m.eb + m.mb);
  unsigned top = m.kind == 0 ? (((1u << m.eb) - 1u) << m.mb) - 1u : m.kind == 1 ? sbit - 2u
               : m.kind == 3 ? 0xfeu : sbit - 1u;
  return mlc_mf_decode(top, m.eb, m.mb, m.bias, m.kind);
}

double mlc_minifloat_round(MlcDType t, double v) {
  float f = isnan(v) ? NAN : v > FLT_MAX ? INFINITY : v < -FLT_MAX ? -INFINITY : (float)v;
  return mlc_minifloat_decode(t, mlc_minifloat_encode(t, f));
}
