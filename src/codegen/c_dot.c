/* c_dot.c - C text for the byte dot products T.dot4_u8s8 (VNNI's vpdpbusd:
 * unsigned bytes times signed bytes, four per 32-bit lane, added to the
 * lane without saturation) and T.dot2_u8s8 (the same over pairs: what
 * AVX2 computes exactly by widening the bytes to int16 and vpmaddwd).
 *
 * The vector form calls a helper written once per (group, lane count).
 * Which instructions it uses is decided by the C compiler's own target
 * macros, not by the machine that generated the C: for groups of 4 the
 * helper is _mm512_dpbusd_epi32 where the code is compiled for AVX512-VNNI
 * (16 lanes), the AVX-VNNI or AVX512-VNNI+VL form of 8 lanes; for pairs it
 * is vpmovzxbw / vpmovsxbw then vpmaddwd (each int16 product at most
 * 255 * 128, a pair's sum far from int32's limits, so nothing saturates:
 * vpmaddubsw's int16 sums would) with AVX2 (8 lanes) or AVX512BW (16);
 * otherwise the plain C loop with the same meaning.  The schedule picks the
 * form for the target it was given; the generated file stays correct
 * wherever it is compiled. */
#include "c_emit.h"

#include <stdio.h>

/* the instruction for g bytes x n lanes: the macro that must hold and the
 * body of the helper (acc, a, b in scope; a's bytes as q.w); none for
 * other forms */
static const struct {
  int group, lanes;
  const char *cond, *body;
} instrs[] = {
    {4, 16, "defined(__AVX512VNNI__)", "  return (VT)_mm512_dpbusd_epi32((__m512i)acc, _mm512_set1_epi32(q.w), (__m512i)b);\n"},
    {4, 8, "defined(__AVXVNNI__)", "  return (VT)_mm256_dpbusd_avx_epi32((__m256i)acc, _mm256_set1_epi32(q.w), (__m256i)b);\n"},
    {4, 8, "defined(__AVX512VNNI__) && defined(__AVX512VL__)",
     "  return (VT)_mm256_dpbusd_epi32((__m256i)acc, _mm256_set1_epi32(q.w), (__m256i)b);\n"},
    {2, 8, "defined(__AVX2__)",
     "  __m256i p = _mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm_set1_epi16((short)q.w)), "
     "_mm256_cvtepi8_epi16((__m128i)b));\n"
     "  return (VT)_mm256_add_epi32((__m256i)acc, p);\n"},
    {2, 16, "defined(__AVX512BW__)",
     "  __m512i p = _mm512_madd_epi16(_mm512_cvtepu8_epi16(_mm256_set1_epi16((short)q.w)), "
     "_mm512_cvtepi8_epi16((__m256i)b));\n"
     "  return (VT)_mm512_add_epi32((__m512i)acc, p);\n"},
};

/* body with each VT replaced by the accumulator's vector type */
static void put_body(MlcStrBuf *h, const char *body, const char *vt) {
  for (const char *p = body; *p; p++) {
    if (p[0] == 'V' && p[1] == 'T') mlc_sb_puts(h, vt), p++;
    else mlc_sb_putc(h, *p);
  }
}

static const char *helper(CEmit *e, MlcDType t, int g) {
  int n = t.lanes;
  const char *vt = c_vector_type(e, t, false);
  const char *at = c_vector_type(e, MLC_DT(MLC_TC_UINT, 8, g), false);
  const char *bt = c_vector_type(e, MLC_DT(MLC_TC_INT, 8, g * n), false);
  const char *name = mlc_internf(e->ctx, "mlc_dot%d_u8s8_x%d", g, n);
  if (!c_helper_once(e, name)) return name;
  MlcStrBuf *h = e->helpers;
  if (c_helper_once(e, "mlc_immintrin"))
    mlc_sb_puts(h, "#if defined(__AVX2__) || defined(__AVX512VNNI__) || defined(__AVXVNNI__)\n"
                   "#include <immintrin.h>\n#endif\n");
  mlc_sb_printf(h, "static inline %s %s(%s acc, %s a, %s b) {\n", vt, name, vt, at, bt);
  bool any = false;
  for (size_t i = 0; i < sizeof instrs / sizeof *instrs; i++) {
    if (instrs[i].lanes != n || instrs[i].group != g) continue;
    mlc_sb_printf(h, "#%s %s\n", any ? "elif" : "if", instrs[i].cond);
    mlc_sb_printf(h, "  union { %s v; %s w; } q = {a};\n", at, g == 4 ? "int32_t" : "uint16_t");
    put_body(h, instrs[i].body, vt);
    any = true;
  }
  if (any) mlc_sb_puts(h, "#else\n");
  mlc_sb_printf(h, "  %s r;\n  for (int l = 0; l < %d; l++)\n", vt, n);
  mlc_sb_puts(h, "    r[l] = (int32_t)((uint32_t)acc[l] + (uint32_t)(");
  for (int k = 0; k < g; k++) mlc_sb_printf(h, "%sa[%d] * b[%d * l + %d]", k ? " + " : "", k, g, k);
  mlc_sb_puts(h, "));\n  return r;\n");
  if (any) mlc_sb_puts(h, "#endif\n");
  mlc_sb_puts(h, "}\n");
  return name;
}

void c_dot_vector(CEmit *e, const MlcExpr *x, MlcStrBuf *sb) {
  mlc_sb_printf(sb, "%s(", helper(e, x->dtype, mlc_intrin_dot_group(x->call.op)));
  for (int i = 0; i < 3; i++) {
    if (i) mlc_sb_puts(sb, ", ");
    c_expr(e, x->call.args[i], sb);
  }
  mlc_sb_puts(sb, ")");
}

/* acc at the lane plus the g products, each at most 255 * 128 in
 * magnitude, summed in int and added modulo 2^32 as the instructions do */
void c_dot_lane(CEmit *e, const MlcExpr *x, const char *lane, MlcStrBuf *sb) {
  const char *l = lane ? lane : "0";
  int g = mlc_intrin_dot_group(x->call.op);
  mlc_sb_puts(sb, "((int32_t)((uint32_t)");
  c_expr_lane(e, x->call.args[0], lane, sb);
  mlc_sb_puts(sb, " + (uint32_t)(");
  for (int k = 0; k < g; k++) {
    char ka[16], kb[64];
    snprintf(ka, sizeof ka, "%d", k);
    snprintf(kb, sizeof kb, "(%d * (%s) + %d)", g, l, k);
    if (k) mlc_sb_puts(sb, " + ");
    mlc_sb_puts(sb, "(int)");
    c_expr_lane(e, x->call.args[1], ka, sb);
    mlc_sb_puts(sb, " * (int)");
    c_expr_lane(e, x->call.args[2], kb, sb);
  }
  mlc_sb_puts(sb, ")))");
}
