/* c_dot.c - C text for T.dot4_u8s8, the byte dot product of the VNNI
 * instructions (vpdpbusd: unsigned bytes times signed bytes, four per
 * 32-bit lane, added to the lane without saturation).
 *
 * The vector form calls a helper written once per lane count.  Which
 * instruction it uses is decided by the C compiler's own target macros, not
 * by the machine that generated the C: the helper is _mm512_dpbusd_epi32
 * where the code is compiled for AVX512-VNNI (16 lanes), the AVX-VNNI or
 * AVX512-VNNI+VL form of 8 lanes, and otherwise the plain C loop with the
 * same meaning (what an AVX2-only CPU runs, and what every other lane count
 * runs).  The schedule picks the lane count for the target it was given;
 * the generated file stays correct wherever it is compiled. */
#include "c_emit.h"

#include <stdio.h>

/* the instruction for n lanes: the macro that must hold, the intrinsic and
 * its vector type, the broadcast; none for other counts */
static const struct {
  int lanes;
  const char *cond, *intrin, *vtype, *set1;
} instrs[] = {
    {16, "defined(__AVX512VNNI__)", "_mm512_dpbusd_epi32", "__m512i", "_mm512_set1_epi32"},
    {8, "defined(__AVXVNNI__)", "_mm256_dpbusd_avx_epi32", "__m256i", "_mm256_set1_epi32"},
    {8, "defined(__AVX512VNNI__) && defined(__AVX512VL__)", "_mm256_dpbusd_epi32", "__m256i", "_mm256_set1_epi32"},
};

static const char *helper(CEmit *e, MlcDType t) {
  int n = t.lanes;
  const char *vt = c_vector_type(e, t, false);
  const char *at = c_vector_type(e, MLC_DT(MLC_TC_UINT, 8, 4), false);
  const char *bt = c_vector_type(e, MLC_DT(MLC_TC_INT, 8, 4 * n), false);
  const char *name = mlc_internf(e->ctx, "mlc_dot4_u8s8_x%d", n);
  if (!c_helper_once(e, name)) return name;
  MlcStrBuf *h = e->helpers;
  if (c_helper_once(e, "mlc_immintrin"))
    mlc_sb_puts(h, "#if defined(__AVX512VNNI__) || defined(__AVXVNNI__)\n#include <immintrin.h>\n#endif\n");
  mlc_sb_printf(h, "static inline %s %s(%s acc, %s a, %s b) {\n", vt, name, vt, at, bt);
  bool any = false;
  for (size_t i = 0; i < sizeof instrs / sizeof *instrs; i++) {
    if (instrs[i].lanes != n) continue;
    mlc_sb_printf(h, "#%s %s\n", any ? "elif" : "if", instrs[i].cond);
    mlc_sb_printf(h, "  union { %s v; int32_t w; } q = {a};\n", at);
    mlc_sb_printf(h, "  return (%s)%s((%s)acc, %s(q.w), (%s)b);\n", vt, instrs[i].intrin, instrs[i].vtype,
                  instrs[i].set1, instrs[i].vtype);
    any = true;
  }
  if (any) mlc_sb_puts(h, "#else\n");
  mlc_sb_printf(h, "  %s r;\n  for (int l = 0; l < %d; l++)\n", vt, n);
  mlc_sb_puts(h, "    r[l] = (int32_t)((uint32_t)acc[l] + (uint32_t)(a[0] * b[4 * l] + a[1] * b[4 * l + 1] +\n"
                 "                                              a[2] * b[4 * l + 2] + a[3] * b[4 * l + 3]));\n"
                 "  return r;\n");
  if (any) mlc_sb_puts(h, "#endif\n");
  mlc_sb_puts(h, "}\n");
  return name;
}

void c_dot4_vector(CEmit *e, const MlcExpr *x, MlcStrBuf *sb) {
  mlc_sb_printf(sb, "%s(", helper(e, x->dtype));
  for (int i = 0; i < 3; i++) {
    if (i) mlc_sb_puts(sb, ", ");
    c_expr(e, x->call.args[i], sb);
  }
  mlc_sb_puts(sb, ")");
}

/* acc at the lane plus the four products, each at most 255 * 128 in
 * magnitude, summed in int and added modulo 2^32 as the instruction does */
void c_dot4_lane(CEmit *e, const MlcExpr *x, const char *lane, MlcStrBuf *sb) {
  const char *l = lane ? lane : "0";
  mlc_sb_puts(sb, "((int32_t)((uint32_t)");
  c_expr_lane(e, x->call.args[0], lane, sb);
  mlc_sb_puts(sb, " + (uint32_t)(");
  for (int k = 0; k < 4; k++) {
    char ka[8], kb[64];
    snprintf(ka, sizeof ka, "%d", k);
    snprintf(kb, sizeof kb, "(4 * (%s) + %d)", l, k);
    if (k) mlc_sb_puts(sb, " + ");
    mlc_sb_puts(sb, "(int)");
    c_expr_lane(e, x->call.args[1], ka, sb);
    mlc_sb_puts(sb, " * (int)");
    c_expr_lane(e, x->call.args[2], kb, sb);
  }
  mlc_sb_puts(sb, ")))");
}
