/* minifloat_src.h - the conversions of the 8- and 4-bit float formats,
 * written once for two users.
 *
 * The compiler (src/ir/minifloat.c) and the C code it generates must agree
 * bit for bit, so the two functions below are one macro argument: expanded
 * as code they are compiled into mlcc, stringified they are written into
 * every generated C file that holds such a type.  They are plain C99 with
 * no header (unions for the bit casts) and no preprocessor lines.
 *
 * A format is (exponent bits eb, mantissa bits mb, bias, kind):
 *   kind 0  IEEE-like: infinities and NaNs in the top exponent (E5M2)
 *   kind 1  "fn": no infinities; only S.1111.111 is NaN (E4M3FN)
 *   kind 2  "fnuz": no infinities, no negative zero; 0x80 is NaN
 *   kind 3  E8M0: exponent only, no sign, no zero; 0xFF is NaN
 *   kind 4  E2M1: no infinities, no NaN (4 bits)
 * mlc_mf_encode rounds to nearest, ties to even (E8M0: up, to the next
 * power of two, as ONNX's default round_mode "up", whose reference takes a
 * float subnormal to 0x01 -- except 2^-127 itself, code 0x00, so that the
 * conversion keeps every value the format holds), and does not saturate:
 * a magnitude beyond the largest finite value becomes infinity (kind 0) or
 * NaN (kinds 1-3); E2M1, which has neither, saturates to +-6 and takes NaN
 * to 0x8, as ONNX's reference does.  Saturation is the importer's business
 * (a clamp before the cast), so the IR's cast has one meaning. */
#ifndef MLCC_IR_MINIFLOAT_SRC_H
#define MLCC_IR_MINIFLOAT_SRC_H

#define MLC_MF_FUNCS(WRAP)                                                                                  \
  WRAP(static inline float mlc_mf_decode(unsigned b, int eb, int mb, int bias, int kind) {                   \
    union { unsigned u; float f; } v, p;                                                                   \
    if (kind == 3) {                                                                                       \
      v.u = b == 0xffu ? 0x7fc00000u : b == 0 ? 0x00400000u : b << 23;                                     \
      return v.f;                                                                                          \
    }                                                                                                      \
    unsigned sign = (b >> (eb + mb)) & 1u, e = (b >> mb) & ((1u << eb) - 1u), m = b & ((1u << mb) - 1u);  \
    unsigned emax = (1u << eb) - 1u, mmax = (1u << mb) - 1u;                                               \
    if ((kind == 2 && b == 0x80u) || (kind == 1 && e == emax && m == mmax) || (kind == 0 && e == emax)) {  \
      v.u = (sign << 31) | (kind == 0 && m == 0 ? 0x7f800000u : 0x7fc00000u);                              \
      return v.f;                                                                                          \
    }                                                                                                      \
    int ex = (e ? (int)e : 1) - bias - mb;                                                                 \
    p.u = (unsigned)(127 + ex) << 23;                                                                      \
    v.f = (float)(e ? (1u << mb) + m : m) * p.f;                                                           \
    return sign ? -v.f : v.f;                                                                              \
  }                                                                                                        \
  static inline unsigned mlc_mf_encode(float f, int eb, int mb, int bias, int kind) {                      \
    union { float f; unsigned u; } v = {f};                                                                \
    unsigned a = v.u & 0x7fffffffu, sign = v.u >> 31, sbit = 1u << (eb + mb);                              \
    if (kind == 3) {                                                                                       \
      unsigned E = (v.u >> 23) & 0xffu;                                                                    \
      if ((v.u & 0x7fffffffu) == 0x00400000u) return 0;                                                   \
      return E == 0xffu ? 0xffu : E + ((v.u & 0x7fffffu) != 0);                                            \
    }                                                                                                      \
    unsigned top = kind == 0 ? (((1u << eb) - 1u) << mb) - 1u : kind == 1 ? (sbit - 2u) : sbit - 1u;       \
    unsigned nan = kind == 2 ? 0x80u : kind == 4 ? sbit : (sign ? sbit : 0u) | (sbit - 1u);                \
    if (a > 0x7f800000u) return nan;                                                                       \
    unsigned over = kind == 0 ? (sign ? sbit : 0u) | (top + 1u) : kind == 4 ? (sign ? sbit : 0u) | top : nan; \
    if (a == 0x7f800000u) return over;                                                                     \
    int ue = (int)(a >> 23) - 127, emin = 1 - bias, te = ue > emin ? ue : emin;                            \
    unsigned M = (a >> 23) ? (a & 0x7fffffu) | 0x800000u : a & 0x7fffffu;                                  \
    if (!(a >> 23)) ue = -126, te = ue > emin ? ue : emin;                                                 \
    int shift = 23 - mb + (te - ue);                                                                       \
    unsigned q = 0;                                                                                        \
    if (shift <= 25) {                                                                                     \
      unsigned rem = M & ((1u << shift) - 1u), half = 1u << (shift - 1);                                  \
      q = M >> shift;                                                                                      \
      if (rem > half || (rem == half && (q & 1u))) q++;                                                    \
    }                                                                                                      \
    long mag = ((long)(te + bias - 1) << mb) + (long)q;                                                    \
    if (mag > (long)top) return over;                                                                      \
    if (mag == 0 && kind == 2) return 0;                                                                   \
    return (sign ? sbit : 0u) | (unsigned)mag;                                                             \
  })

#define MLC_MF_CODE(...) __VA_ARGS__
#define MLC_MF_TEXT(...) #__VA_ARGS__ "\n"

#endif
