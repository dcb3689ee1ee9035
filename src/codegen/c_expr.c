/* c_expr.c - C text for TIR expressions.
 *
 * Scalars map to C operators (floordiv/floormod and min/max through small
 * inline helpers with the IR's semantics).  Vectors take one of two forms:
 * GCC/Clang vector-extension operations when every node has one (contiguous
 * loads, broadcasts, ramps, + - * /, min/max, casts) -- the form the C
 * compiler turns into SIMD instructions directly -- or, for anything else,
 * the expression at a given lane, which the statement emitter wraps in a
 * short lane loop.
 *
 * bfloat16 is computed as float, the way compilers legalize it on targets
 * without bfloat16 arithmetic: a load widens the stored bits exactly, every
 * result that may not be a bfloat16 (arithmetic, math calls, casts to
 * bfloat16) is rounded back to one, literals are written already rounded,
 * and stores narrow (c_stmt.c).  Each step thus rounds where the IR does,
 * and a bfloat16 value is always a float bfloat16 represents.  Vectors of
 * bfloat16 take the lane form: their storage and value types differ, so no
 * vector load or operation covers them. */
#include "c_emit.h"
#include "ir/minifloat_src.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool c_fail(CEmit *e, const char *fmt, ...) {
  if (!e->failed) {
    MlcStrBuf sb = {0};
    va_list ap;
    va_start(ap, fmt);
    mlc_sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    mlc_error(e->ctx, (MlcLoc){0}, "C code generation of '%s': %s", e->func->name, mlc_sb_cstr(&sb));
    mlc_vec_free(&sb);
  }
  e->failed = true;
  return false;
}

const char *c_scalar_type(MlcDType t) {
  switch ((MlcTypeCode)t.code) {
  case MLC_TC_BOOL: return "bool";
  case MLC_TC_FLOAT: return t.bits == 32 ? "float" : t.bits == 64 ? "double" : t.bits == 16 ? "_Float16" : NULL;
  case MLC_TC_INT:
    return t.bits == 2 || t.bits == 4 || t.bits == 8 ? "int8_t" : t.bits == 16 ? "int16_t" : t.bits == 32 ? "int32_t" : t.bits == 64 ? "int64_t" : NULL;
  case MLC_TC_UINT:
    return t.bits == 2 || t.bits == 4 || t.bits == 8 ? "uint8_t" : t.bits == 16 ? "uint16_t" : t.bits == 32 ? "uint32_t" : t.bits == 64 ? "uint64_t" : NULL;
  case MLC_TC_BFLOAT: return t.bits == 16 ? "float" : NULL;
  MLC_TC_MINIFLOAT_CASES: return "float";
  case MLC_TC_HANDLE: case MLC_TC_VOID: return NULL;
  }
  return NULL;
}

const char *c_storage_type(MlcDType t) {
  if (t.code == MLC_TC_BFLOAT) return t.bits == 16 ? "uint16_t" : NULL;
  if (mlc_dtype_is_minifloat(t)) return "uint8_t";
  return c_scalar_type(t);
}

/* bytes of a value of the scalar dtype s as c_scalar_type holds it */
static size_t value_bytes(MlcDType s) {
  return s.code == MLC_TC_BFLOAT || mlc_dtype_is_minifloat(s) ? sizeof(float) : mlc_dtype_bytes(s);
}

bool c_helper_once(CEmit *e, const char *name) {
  const char *key = mlc_intern(e->ctx, name);
  if (mlc_map_has(e->helper_done, key)) return false;
  mlc_map_put(e->helper_done, key, (void *)key);
  return true;
}

/* computed as float, stored narrower: bfloat16 and the minifloats */
static bool narrow_float(MlcDType t) { return t.code == MLC_TC_BFLOAT || mlc_dtype_is_minifloat(t); }

void c_minifloat_open(CEmit *e, MlcDType t, CBf16Fn fn, MlcStrBuf *sb) {
  static const char funcs[] = MLC_MF_FUNCS(MLC_MF_TEXT);
  if (c_helper_once(e, "mlc_mf_decode")) mlc_sb_puts(e->helpers, funcs);
  (void)t;
  mlc_sb_puts(sb, fn == C_BF16_WIDEN ? "mlc_mf_decode(" : fn == C_BF16_NARROW ? "(uint8_t)mlc_mf_encode("
                                                        : "mlc_mf_decode(mlc_mf_encode(");
}

void c_minifloat_close(MlcDType t, CBf16Fn fn, MlcStrBuf *sb) {
  int eb, mb, bias, kind;
  mlc_minifloat_format(t, &eb, &mb, &bias, &kind);
  if (fn == C_BF16_ROUND) mlc_sb_printf(sb, ", %d, %d, %d, %d)", eb, mb, bias, kind);
  mlc_sb_printf(sb, ", %d, %d, %d, %d)", eb, mb, bias, kind);
}


/* The bfloat16 helpers, bit for bit mlc_f32_to_bf16's rounding: add just
 * under half an ulp plus the lowest kept bit (ties go to even), then drop
 * the low half; a NaN only gets its quiet bit set, since the addition could
 * carry it into an infinity.  Unions, not memcpy, so that the generated
 * file needs no header for them. */
#define C_BF16_HELPERS(X)                                                                                        \
  X(C_BF16_WIDEN, "mlc_bf16_widen",                                                                            \
    "static inline float mlc_bf16_widen(uint16_t h) {\n"                                                        \
    "  union { uint32_t u; float f; } v = {(uint32_t)h << 16};\n"                                               \
    "  return v.f;\n}\n")                                                                                       \
  X(C_BF16_NARROW, "mlc_bf16_narrow",                                                                          \
    "static inline uint16_t mlc_bf16_narrow(float f) {\n"                                                       \
    "  union { float f; uint32_t u; } v = {f};\n"                                                               \
    "  if ((v.u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((v.u >> 16) | 0x40u);\n"                        \
    "  return (uint16_t)((v.u + 0x7fffu + ((v.u >> 16) & 1u)) >> 16);\n}\n")                                   \
  X(C_BF16_ROUND, "mlc_bf16_round",                                                                            \
    "static inline float mlc_bf16_round(float f) {\n"                                                           \
    "  union { float f; uint32_t u; } v = {f};\n"                                                               \
    "  if ((v.u & 0x7fffffffu) > 0x7f800000u) v.u |= 0x400000u;\n"                                              \
    "  else v.u += 0x7fffu + ((v.u >> 16) & 1u);\n"                                                             \
    "  v.u &= 0xffff0000u;\n"                                                                                  \
    "  return v.f;\n}\n")

const char *c_bf16_fn(CEmit *e, CBf16Fn fn) {
#define X(id, name, text) [id] = name,
  static const char *const names[] = {C_BF16_HELPERS(X)};
#undef X
#define X(id, name, text) [id] = text,
  static const char *const texts[] = {C_BF16_HELPERS(X)};
#undef X
  if (c_helper_once(e, names[fn])) mlc_sb_puts(e->helpers, texts[fn]);
  return names[fn];
}

const char *c_vector_type(CEmit *e, MlcDType t, bool unaligned) {
  char name[64];
  MlcDType s = mlc_dtype_elem(t);
  char dt[32];
  mlc_dtype_str(s, dt);
  snprintf(name, sizeof name, "mlc_v%d%s%s", t.lanes, dt, unaligned ? "u" : "");
  const char *ctype = c_scalar_type(s);
  if (c_helper_once(e, name)) {
    size_t bytes = value_bytes(s) * t.lanes;
    if (unaligned)
      mlc_sb_printf(e->helpers, "typedef %s %s __attribute__((vector_size(%zu), aligned(%zu)));\n", ctype, name,
                    bytes, value_bytes(s));
    else
      mlc_sb_printf(e->helpers, "typedef %s %s __attribute__((vector_size(%zu)));\n", ctype, name, bytes);
  }
  return mlc_intern(e->ctx, name);
}

static bool pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }

/* a stride-1 ramp index: the form a contiguous vector access has */
static bool contiguous(const MlcExpr *idx) {
  int64_t s;
  return idx->kind == MLC_EXPR_RAMP && mlc_e_is_const_int(idx->ramp.stride, &s) && s == 1;
}

/* Any other integer vector index (a pooling window or a strided conv read
 * along the lanes, a ramp times the stride): the load is a vector built
 * from its lanes' elements, so the rest of the expression stays in vector
 * form and the C compiler picks the shuffles. */
static bool gather_ok(const MlcExpr *idx) {
  return idx->dtype.code == MLC_TC_INT || idx->dtype.code == MLC_TC_UINT;
}

bool c_vector_ok(const MlcExpr *x) {
  if (x->dtype.lanes == 1) return true;
  if (!pow2(x->dtype.lanes) || !c_scalar_type(x->dtype) || x->dtype.code == MLC_TC_BOOL ||
      narrow_float(x->dtype) || x->dtype.bits < 8)
    return false;
  switch (x->kind) {
  case MLC_EXPR_LOAD: return x->load.n == 1 && gather_ok(x->load.idx[0]) && x->load.buf->dtype.lanes == 1;
  case MLC_EXPR_BROADCAST: return true;
  case MLC_EXPR_RAMP: return true;
  case MLC_EXPR_BINARY:
    switch (x->bin.op) {
    case MLC_BIN_ADD: case MLC_BIN_SUB: case MLC_BIN_MUL: return c_vector_ok(x->bin.a) && c_vector_ok(x->bin.b);
    case MLC_BIN_DIV: return mlc_dtype_is_float(x->dtype) && c_vector_ok(x->bin.a) && c_vector_ok(x->bin.b);
    case MLC_BIN_MIN: case MLC_BIN_MAX: /* lane masks need 32- or 64-bit lanes of a plain type */
      return (x->dtype.bits == 32 || x->dtype.bits == 64) && c_vector_ok(x->bin.a) && c_vector_ok(x->bin.b);
    default: return false;
    }
  case MLC_EXPR_NEG: return c_vector_ok(x->operand);
  case MLC_EXPR_CAST:
    return c_vector_ok(x->operand) && x->operand->dtype.code != MLC_TC_BOOL && !narrow_float(x->operand->dtype);
  case MLC_EXPR_CALL:
    return mlc_intrin_dot_group(x->call.op) && c_vector_ok(x->call.args[0]) && c_vector_ok(x->call.args[1]) &&
           c_vector_ok(x->call.args[2]);
  default: return false;
  }
}

/* the nearest bfloat16 to v, as a double (what float(v) would round to
 * first, as the interpreter does; beyond float's range that is infinity) */
static double bf16_value(double v) {
  if (isnan(v) || isinf(v)) return v;
  if (fabs(v) > FLT_MAX) return v < 0 ? -INFINITY : INFINITY;
  uint32_t x = (uint32_t)mlc_f32_to_bf16((float)v) << 16;
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

static void emit_float(MlcDType t, double v, MlcStrBuf *sb) {
  if (t.code == MLC_TC_BFLOAT) {
    v = bf16_value(v);
    t = MLC_DT(MLC_TC_FLOAT, 32, 1);
  }
  if (mlc_dtype_is_minifloat(t)) {
    v = mlc_minifloat_round(t, v);
    t = MLC_DT(MLC_TC_FLOAT, 32, 1);
  }
  if (isnan(v)) { mlc_sb_puts(sb, t.bits == 32 ? "((float)NAN)" : "((double)NAN)"); return; }
  if (isinf(v)) { mlc_sb_printf(sb, "(%s(%s)INFINITY)", v < 0 ? "-" : "", c_scalar_type(t)); return; }
  char buf[40];
  snprintf(buf, sizeof buf, t.bits == 64 ? "%.17g" : "%.9g", v);
  if (!strpbrk(buf, ".eE")) strcat(buf, ".0");
  if (t.bits == 32) mlc_sb_printf(sb, "%sf", buf);
  else if (t.bits == 16) mlc_sb_printf(sb, "((_Float16)%s)", buf);
  else mlc_sb_puts(sb, buf);
}

static void emit_int(MlcDType t, int64_t v, MlcStrBuf *sb) {
  if (t.code == MLC_TC_BOOL) { mlc_sb_puts(sb, v ? "true" : "false"); return; }
  if (t.bits == 64 && v == INT64_MIN) { mlc_sb_puts(sb, "INT64_MIN"); return; }
  if (t.bits == 64) mlc_sb_printf(sb, "INT64_C(%lld)", (long long)v);
  else if (t.bits == 32 && t.code == MLC_TC_INT) mlc_sb_printf(sb, "%lld", (long long)v);
  else mlc_sb_printf(sb, "((%s)%lld)", c_scalar_type(t), (long long)v);
}

/* helpers with the IR's integer semantics, declared on first use */
static const char *int_helper(CEmit *e, const char *op, MlcDType t) {
  char name[64];
  const char *ct = c_scalar_type(t);
  snprintf(name, sizeof name, "mlc_%s_%s", op, ct);
  if (c_helper_once(e, name)) {
    if (!strcmp(op, "floordiv"))
      mlc_sb_printf(e->helpers,
                    "static inline %s %s(%s a, %s b) { %s q = a / b, r = a %% b; return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q; }\n",
                    ct, name, ct, ct, ct);
    else if (!strcmp(op, "floormod"))
      mlc_sb_printf(e->helpers,
                    "static inline %s %s(%s a, %s b) { %s r = a %% b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }\n",
                    ct, name, ct, ct, ct);
    else if (!strcmp(op, "min"))
      mlc_sb_printf(e->helpers, "static inline %s %s(%s a, %s b) { return a < b ? a : b; }\n", ct, name, ct, ct);
    else
      mlc_sb_printf(e->helpers, "static inline %s %s(%s a, %s b) { return a > b ? a : b; }\n", ct, name, ct, ct);
  }
  return mlc_intern(e->ctx, name);
}

/* Integer division whose divisor is not a nonzero constant is checked
 * (MLC_DIV_BY_ZERO_MSG in mlcc/ir.h): a helper per operation and dtype
 * computes the result into *r and returns 0, or returns 1 for a zero
 * divisor and 2 for the most negative value divided by -1, which C's
 * division traps on; the remainder of a division by -1 is 0.  The checks
 * are two branches the processor predicts as not taken. */
static const char *checked_div_helper(CEmit *e, MlcBinOp op, MlcDType t) {
  static const char *const ops[MLC_BIN_COUNT] = {
      [MLC_BIN_DIV] = "div", [MLC_BIN_MOD] = "mod", [MLC_BIN_FLOORDIV] = "floordiv", [MLC_BIN_FLOORMOD] = "floormod"};
  const char *ct = c_scalar_type(t);
  const char *name = mlc_internf(e->ctx, "mlc_%s_checked_%s", ops[op], ct);
  const char *plain = op == MLC_BIN_FLOORDIV || op == MLC_BIN_FLOORMOD ? int_helper(e, ops[op], t) : NULL;
  if (!c_helper_once(e, name)) return name;
  bool div = op == MLC_BIN_DIV || op == MLC_BIN_FLOORDIV;
  mlc_sb_printf(e->helpers, "static inline int %s(%s a, %s b, %s *r) {\n", name, ct, ct, ct);
  mlc_sb_puts(e->helpers, "  if (__builtin_expect(b == 0, 0)) return 1;\n");
  if (t.code == MLC_TC_INT) {
    if (div)
      mlc_sb_printf(e->helpers, "  if (__builtin_expect(b == -1, 0)) { if (a == INT%d_MIN) return 2; *r = (%s)-a; return 0; }\n",
                    t.bits, ct);
    else
      mlc_sb_puts(e->helpers, "  if (__builtin_expect(b == -1, 0)) { *r = 0; return 0; }\n");
  }
  if (plain) mlc_sb_printf(e->helpers, "  *r = %s(a, b);\n", plain);
  else mlc_sb_printf(e->helpers, "  *r = (%s)(a %c b);\n", ct, div ? '/' : '%');
  mlc_sb_puts(e->helpers, "  return 0;\n}\n");
  if (c_helper_once(e, "mlc_div_fault"))
    mlc_sb_puts(e->helpers,
                "__attribute__((cold, noinline)) static int32_t mlc_div_fault(const MlcrtEnv *env, int why) {\n"
                "  env->set_error(why == 1 ? \"" MLC_DIV_BY_ZERO_MSG "\" : \"" MLC_DIV_OVERFLOW_MSG "\");\n"
                "  return -1;\n}\n");
  return name;
}

/* the divisor's value when it is a constant (or a broadcast one) */
static bool const_divisor(const MlcExpr *b, int64_t *v) {
  if (b->kind == MLC_EXPR_BROADCAST) b = b->bcast.value;
  return mlc_e_is_const_int(b, v);
}

static void emit(CEmit *e, const MlcExpr *x, const char *lane, MlcStrBuf *sb);

/* An integer division that needs the check: a GNU statement expression
 * that leaves the function through its failure exit when the helper
 * refuses.  The build refuses a constant zero divisor outright. */
static bool emit_checked_div(CEmit *e, const MlcExpr *x, const char *lane, MlcStrBuf *sb) {
  MlcDType t = mlc_dtype_elem(x->bin.a->dtype);
  int64_t d;
  bool is_const = const_divisor(x->bin.b, &d);
  if (is_const && d == 0) {
    c_fail(e, "integer division by the constant zero");
    return true;
  }
  if (is_const && (d != -1 || t.code != MLC_TC_INT)) return false;
  const char *fn = checked_div_helper(e, x->bin.op, t);
  int id = e->n_tmps++;
  mlc_sb_printf(sb, "({ %s mlc_r%d; int mlc_f%d = %s(", c_scalar_type(t), id, id, fn);
  emit(e, x->bin.a, lane, sb);
  mlc_sb_puts(sb, ", ");
  emit(e, x->bin.b, lane, sb);
  mlc_sb_printf(sb, ", &mlc_r%d); if (__builtin_expect(mlc_f%d != 0, 0)) { mlc_status = mlc_div_fault(env, mlc_f%d); goto %s; } mlc_r%d; })",
                id, id, id, c_exit_jump(e), id);
  return true;
}

/* T.checked_index(i, n): i, or the function's failure exit with
 * MLC_INDEX_RANGE_MSG (the same path as a division by zero) */
static void emit_checked_index(CEmit *e, const MlcExpr *x, const char *lane, MlcStrBuf *sb) {
  const char *ct = c_scalar_type(mlc_dtype_elem(x->dtype));
  if (c_helper_once(e, "mlc_index_fault"))
    mlc_sb_puts(e->helpers,
                "__attribute__((cold, noinline)) static int32_t mlc_index_fault(const MlcrtEnv *env) {\n"
                "  env->set_error(\"" MLC_INDEX_RANGE_MSG "\");\n"
                "  return -1;\n}\n");
  int id = e->n_tmps++;
  mlc_sb_printf(sb, "({ %s mlc_r%d = ", ct, id);
  emit(e, x->call.args[0], lane, sb);
  mlc_sb_printf(sb, "; %s mlc_n%d = ", ct, id);
  emit(e, x->call.args[1], lane, sb);
  mlc_sb_printf(sb, "; if (__builtin_expect(mlc_r%d < 0 || mlc_r%d >= mlc_n%d, 0)) { mlc_status = mlc_index_fault(env); goto %s; } mlc_r%d; })",
                id, id, id, c_exit_jump(e), id);
}

/* Float min/max with fmin/fmax's meaning (a NaN operand yields the other
 * one) written as comparisons: libm's fminf/fmaxf are out-of-line calls the
 * compiler neither inlines nor vectorizes, which made every relu a loop of
 * calls; the comparison form becomes min/max or compare-and-blend
 * instructions, and loops of it vectorize.  The NaN test comes second and
 * apart from the comparison, so that where the loop does not vectorize (a
 * padded read) the scalar form is a min/max and a conditional move, not a
 * branch on the data (a relu6 of random values mispredicts half of them). */
static const char *float_minmax_helper(CEmit *e, MlcBinOp op, MlcDType t) {
  char dt[32];
  const char *ct = c_scalar_type(t);
  const char *name = mlc_internf(e->ctx, "mlc_f%s_%s", op == MLC_BIN_MIN ? "min" : "max", mlc_dtype_str(t, dt));
  if (c_helper_once(e, name))
    mlc_sb_printf(e->helpers, "static inline %s %s(%s a, %s b) { %s m = a %c b ? a : b; return b != b ? a : m; }\n",
                  ct, name, ct, ct, ct, op == MLC_BIN_MIN ? '<' : '>');
  return name;
}

/* The same on whole vectors: a comparison gives a lane mask, which selects
 * lanes through the integer vector of the same shape (C has no vector ?:). */
static const char *vector_minmax_helper(CEmit *e, MlcBinOp op, MlcDType t) {
  const char *vt = c_vector_type(e, t, false);
  const char *mt = c_vector_type(e, MLC_DT(MLC_TC_INT, t.bits, t.lanes), false);
  const char *name = mlc_internf(e->ctx, "mlc_%s_%s", op == MLC_BIN_MIN ? "min" : "max", vt + 4);
  if (c_helper_once(e, name)) {
    char cmp = op == MLC_BIN_MIN ? '<' : '>';
    mlc_sb_printf(e->helpers, "static inline %s %s(%s a, %s b) {\n", vt, name, vt, vt);
    if (mlc_dtype_is_float(t)) mlc_sb_printf(e->helpers, "  %s m = (a %c b) | (b != b);\n", mt, cmp);
    else mlc_sb_printf(e->helpers, "  %s m = (%s)(a %c b);\n", mt, mt, cmp);
    mlc_sb_printf(e->helpers, "  return (%s)((m & (%s)a) | (~m & (%s)b));\n}\n", vt, mt, mt);
  }
  return name;
}

static const char *math_name(MlcIntrin op) {
  switch (op) {
  case MLC_INTRIN_EXP: return "exp";
  case MLC_INTRIN_LOG: return "log";
  case MLC_INTRIN_SQRT: return "sqrt";
  case MLC_INTRIN_TANH: return "tanh";
  case MLC_INTRIN_ERF: return "erf";
  case MLC_INTRIN_FABS: return "fabs";
  case MLC_INTRIN_FLOOR: return "floor";
  case MLC_INTRIN_CEIL: return "ceil";
  case MLC_INTRIN_ROUND: return "nearbyint";
  case MLC_INTRIN_SIN: return "sin";
  case MLC_INTRIN_COS: return "cos";
  case MLC_INTRIN_POW: return "pow";
  default: return NULL;
  }
}

/* Scalar form, or (lane != NULL) the value at that lane of a vector; emit
 * adds the rounding of bfloat16 results around it. */
static void emit_node(CEmit *e, const MlcExpr *x, const char *lane, MlcStrBuf *sb) {
  MlcDType t = x->dtype;
  bool vec = t.lanes > 1;
  const char *L = vec ? lane : NULL;
  switch (x->kind) {
  case MLC_EXPR_VAR: mlc_sb_puts(sb, c_name(e, x, x->var.name)); if (vec) mlc_sb_printf(sb, "[%s]", lane); return;
  case MLC_EXPR_INT: emit_int(t, x->int_val, sb); return;
  case MLC_EXPR_FLOAT: emit_float(t, x->float_val, sb); return;
  case MLC_EXPR_STR: c_fail(e, "a string cannot be a value in C code"); return;
  case MLC_EXPR_BINARY: {
    MlcBinOp op = x->bin.op;
    MlcDType at = mlc_dtype_elem(x->bin.a->dtype);
    bool fl = mlc_dtype_is_float(at);
    const char *fn = NULL;
    bool divmod = op == MLC_BIN_DIV || op == MLC_BIN_MOD || op == MLC_BIN_FLOORDIV || op == MLC_BIN_FLOORMOD;
    if (divmod && !fl && emit_checked_div(e, x, L, sb)) return;
    if (op == MLC_BIN_FLOORDIV || op == MLC_BIN_FLOORMOD) {
      if (fl) {
        mlc_sb_puts(sb, op == MLC_BIN_FLOORDIV ? "floor((" : "(");
        if (op == MLC_BIN_FLOORDIV) {
          emit(e, x->bin.a, L, sb); mlc_sb_puts(sb, ") / ("); emit(e, x->bin.b, L, sb); mlc_sb_puts(sb, "))");
        } else { /* a - floor(a / b) * b */
          emit(e, x->bin.a, L, sb); mlc_sb_puts(sb, " - floor(("); emit(e, x->bin.a, L, sb); mlc_sb_puts(sb, ") / (");
          emit(e, x->bin.b, L, sb); mlc_sb_puts(sb, ")) * ("); emit(e, x->bin.b, L, sb); mlc_sb_puts(sb, "))");
        }
        return;
      }
      fn = int_helper(e, op == MLC_BIN_FLOORDIV ? "floordiv" : "floormod", at);
    } else if (op == MLC_BIN_MIN || op == MLC_BIN_MAX) {
      fn = fl ? float_minmax_helper(e, op, at) : int_helper(e, op == MLC_BIN_MIN ? "min" : "max", at);
    } else if (op == MLC_BIN_MOD && fl) {
      fn = at.bits == 64 ? "fmod" : "fmodf";
    }
    if (fn) {
      mlc_sb_printf(sb, "%s(", fn);
      emit(e, x->bin.a, L, sb);
      mlc_sb_puts(sb, ", ");
      emit(e, x->bin.b, L, sb);
      mlc_sb_puts(sb, ")");
      return;
    }
    static const char *const ops[MLC_BIN_COUNT] = {
        [MLC_BIN_ADD] = "+", [MLC_BIN_SUB] = "-", [MLC_BIN_MUL] = "*", [MLC_BIN_DIV] = "/",
        [MLC_BIN_MOD] = "%", [MLC_BIN_EQ] = "==", [MLC_BIN_NE] = "!=", [MLC_BIN_LT] = "<",
        [MLC_BIN_LE] = "<=", [MLC_BIN_GT] = ">", [MLC_BIN_GE] = ">=", [MLC_BIN_AND] = "&&",
        [MLC_BIN_OR] = "||"};
    mlc_sb_puts(sb, "(");
    emit(e, x->bin.a, L, sb);
    mlc_sb_printf(sb, " %s ", ops[op]);
    emit(e, x->bin.b, L, sb);
    mlc_sb_puts(sb, ")");
    return;
  }
  case MLC_EXPR_NOT: mlc_sb_puts(sb, "(!"); emit(e, x->operand, L, sb); mlc_sb_puts(sb, ")"); return;
  case MLC_EXPR_NEG: mlc_sb_puts(sb, "(-"); emit(e, x->operand, L, sb); mlc_sb_puts(sb, ")"); return;
  case MLC_EXPR_SELECT:
    mlc_sb_puts(sb, "(");
    emit(e, x->select.cond, L, sb);
    mlc_sb_puts(sb, " ? ");
    emit(e, x->select.t, L, sb);
    mlc_sb_puts(sb, " : ");
    emit(e, x->select.f, L, sb);
    mlc_sb_puts(sb, ")");
    return;
  case MLC_EXPR_CAST: {
    const char *ct = c_scalar_type(mlc_dtype_elem(t));
    if (!ct) { c_fail(e, "no C type for a cast's target dtype"); return; }
    mlc_sb_printf(sb, "((%s)", ct);
    emit(e, x->operand, L, sb);
    mlc_sb_puts(sb, ")");
    return;
  }
  case MLC_EXPR_LOAD: {
    MlcDType bt = x->load.buf->dtype;
    bool bf16 = bt.code == MLC_TC_BFLOAT, mf = mlc_dtype_is_minifloat(bt);
    if (bf16) mlc_sb_printf(sb, "%s(", c_bf16_fn(e, C_BF16_WIDEN));
    if (mf) c_minifloat_open(e, bt, C_BF16_WIDEN, sb);
    mlc_sb_printf(sb, "%s[", c_name(e, x->load.buf, x->load.buf->name));
    emit(e, x->load.idx[0], x->load.idx[0]->dtype.lanes > 1 ? lane : NULL, sb);
    mlc_sb_puts(sb, bf16 ? "])" : "]");
    if (mf) c_minifloat_close(bt, C_BF16_WIDEN, sb);
    return;
  }
  case MLC_EXPR_RAMP:
    mlc_sb_puts(sb, "(");
    emit(e, x->ramp.base, NULL, sb);
    mlc_sb_printf(sb, " + (%s)(%s) * ", c_scalar_type(mlc_dtype_elem(t)), lane ? lane : "0");
    emit(e, x->ramp.stride, NULL, sb);
    mlc_sb_puts(sb, ")");
    return;
  case MLC_EXPR_BROADCAST: emit(e, x->bcast.value, NULL, sb); return;
  case MLC_EXPR_LET: c_fail(e, "expression-level let is not supported by the C generator"); return;
  case MLC_EXPR_CALL: {
    if (mlc_intrin_info[x->call.op].rule == 2 || mlc_intrin_info[x->call.op].rule == 3) { /* calls out of the program */
      c_extern_call(e, x, sb);
      return;
    }
    if (x->call.op == MLC_INTRIN_IF_THEN_ELSE) {
      mlc_sb_puts(sb, "(");
      emit(e, x->call.args[0], L, sb);
      mlc_sb_puts(sb, " ? ");
      emit(e, x->call.args[1], L, sb);
      mlc_sb_puts(sb, " : ");
      emit(e, x->call.args[2], L, sb);
      mlc_sb_puts(sb, ")");
      return;
    }
    if (x->call.op == MLC_INTRIN_CHECKED_INDEX) {
      emit_checked_index(e, x, L, sb);
      return;
    }
    if (mlc_intrin_dot_group(x->call.op)) {
      c_dot_lane(e, x, L, sb);
      return;
    }
    if (x->call.op == MLC_INTRIN_REINTERPRET) { /* through a union: GNU C's statement expression */
      MlcDType from = mlc_dtype_elem(x->call.args[0]->dtype), to = mlc_dtype_elem(t);
      if (narrow_float(from) || narrow_float(to) || (from.bits < 8 && from.code != MLC_TC_BOOL) ||
          (to.bits < 8 && to.code != MLC_TC_BOOL)) {
        c_fail(e, "T.reinterpret of bfloat16, 8-/4-bit floats or sub-byte integers is not supported");
        return;
      }
      mlc_sb_printf(sb, "(__extension__({ union { %s a; %s b; } mlc_u; mlc_u.a = ", c_scalar_type(from),
                    c_scalar_type(to));
      emit(e, x->call.args[0], L, sb);
      mlc_sb_puts(sb, "; mlc_u.b; }))");
      return;
    }
    MlcDType et = mlc_dtype_elem(t);
    const char *own = et.code == MLC_TC_FLOAT && et.bits == 32 ? c_math_f32(e, x->call.op) : NULL;
    if (own) { /* inline and vectorizable, where libm's are calls */
      mlc_sb_printf(sb, "%s(", own);
      emit(e, x->call.args[0], L, sb);
      mlc_sb_puts(sb, ")");
      return;
    }
    /* float16 and bfloat16 call the float versions too */
    const char *suffix = et.bits == 32 || et.bits == 16 ? "f" : "";
    const char *cast = et.code == MLC_TC_FLOAT && et.bits == 16 ? "(_Float16)" : "";
    if (x->call.op == MLC_INTRIN_SIGMOID || x->call.op == MLC_INTRIN_RSQRT) {
      mlc_sb_printf(sb, "(%s(1 / (%s", cast, x->call.op == MLC_INTRIN_SIGMOID ? "1 + exp" : "sqrt");
      mlc_sb_printf(sb, "%s(%s", suffix, x->call.op == MLC_INTRIN_SIGMOID ? "-" : "");
      emit(e, x->call.args[0], L, sb);
      mlc_sb_puts(sb, "))))");
      return;
    }
    mlc_sb_printf(sb, "%s%s%s(", cast, math_name(x->call.op), suffix);
    for (int i = 0; i < x->call.n; i++) {
      if (i) mlc_sb_puts(sb, ", ");
      emit(e, x->call.args[i], L, sb);
    }
    mlc_sb_puts(sb, ")");
    return;
  }
  }
}

/* whether the exact result of x, of dtype bfloat16, may not be a bfloat16:
 * what must be rounded back (loads, vars, literals, negation, min/max and
 * selections of bfloat16 values are bfloat16 values already) */
static bool rounds_to_bf16(const MlcExpr *x) {
  if (!narrow_float(x->dtype)) return false;
  switch (x->kind) {
  case MLC_EXPR_BINARY: return x->bin.op != MLC_BIN_MIN && x->bin.op != MLC_BIN_MAX;
  case MLC_EXPR_CAST: return x->operand->dtype.code != x->dtype.code;
  case MLC_EXPR_CALL: return x->call.op != MLC_INTRIN_IF_THEN_ELSE && x->call.op != MLC_INTRIN_CHECKED_INDEX;
  default: return false;
  }
}

/* whether x, of a sub-byte integer dtype (held in a byte), may be out of
 * that dtype's range: what must be wrapped to its bits, as the
 * interpreter's integers wrap at their width */
static bool wraps_sub_byte(const MlcExpr *x) {
  if (!mlc_dtype_is_int(x->dtype) || x->dtype.bits >= 8) return false;
  switch (x->kind) {
  case MLC_EXPR_BINARY: return x->bin.op != MLC_BIN_MIN && x->bin.op != MLC_BIN_MAX;
  case MLC_EXPR_NEG: return true;
  case MLC_EXPR_CAST: return !mlc_dtype_eq(mlc_dtype_elem(x->operand->dtype), mlc_dtype_elem(x->dtype));
  default: return false;
  }
}

static void emit(CEmit *e, const MlcExpr *x, const char *lane, MlcStrBuf *sb) {
  if (wraps_sub_byte(x)) { /* the low bits, sign-extended for the signed types */
    unsigned mask = (1u << x->dtype.bits) - 1u, sign = 1u << (x->dtype.bits - 1);
    bool u = x->dtype.code == MLC_TC_UINT;
    mlc_sb_puts(sb, u ? "((uint8_t)((int64_t)(" : "((int)((uint8_t)((int64_t)(");
    if (x->kind == MLC_EXPR_CAST) emit(e, x->operand, lane, sb); /* through int64, not a narrower C type */
    else emit_node(e, x, lane, sb);
    if (u) mlc_sb_printf(sb, ") & %uu))", mask);
    else mlc_sb_printf(sb, ") & %uu) ^ %uu) - %d)", mask, sign, (int)sign);
    return;
  }
  if (!rounds_to_bf16(x)) {
    emit_node(e, x, lane, sb);
    return;
  }
  MlcDType t = mlc_dtype_elem(x->dtype);
  if (mlc_dtype_is_minifloat(t)) {
    c_minifloat_open(e, t, C_BF16_ROUND, sb);
    emit_node(e, x, lane, sb);
    c_minifloat_close(t, C_BF16_ROUND, sb);
    return;
  }
  mlc_sb_printf(sb, "%s(", c_bf16_fn(e, C_BF16_ROUND));
  emit_node(e, x, lane, sb);
  mlc_sb_puts(sb, ")");
}

/* A broadcast is a helper that fills every lane with its argument.  The
 * obvious `(vec){0} + x` costs a real addition for floats (0 + -0 is +0, so
 * the compiler may not drop it), which sits between the load of x and the
 * FMA and keeps the compiler from folding the load into a memory broadcast. */
static const char *bcast_helper(CEmit *e, MlcDType t) {
  const char *vt = c_vector_type(e, t, false);
  const char *name = mlc_internf(e->ctx, "mlc_bcast_%s", vt + 4);
  if (c_helper_once(e, name)) {
    mlc_sb_printf(e->helpers, "static inline %s %s(%s x) { return (%s){", vt, name, c_scalar_type(mlc_dtype_elem(t)), vt);
    for (int l = 0; l < t.lanes; l++) mlc_sb_puts(e->helpers, l ? ", x" : "x");
    mlc_sb_puts(e->helpers, "}; }\n");
  }
  return name;
}

/* vector-extension form of an expression accepted by c_vector_ok */
static void emit_vec(CEmit *e, const MlcExpr *x, MlcStrBuf *sb) {
  if (x->dtype.lanes == 1) { emit(e, x, NULL, sb); return; }
  const char *vt = c_vector_type(e, x->dtype, false);
  switch (x->kind) {
  case MLC_EXPR_LOAD: {
    const char *buf = c_name(e, x->load.buf, x->load.buf->name);
    const MlcExpr *idx = x->load.idx[0];
    if (contiguous(idx)) {
      mlc_sb_printf(sb, "(*(const %s *)(%s + ", c_vector_type(e, x->dtype, true), buf);
      emit(e, idx->ramp.base, NULL, sb);
      mlc_sb_puts(sb, "))");
      return;
    }
    mlc_sb_printf(sb, "((%s){", vt);
    for (int l = 0; l < x->dtype.lanes; l++) {
      char lane[16];
      snprintf(lane, sizeof lane, "%d", l);
      mlc_sb_printf(sb, "%s%s[", l ? ", " : "", buf);
      emit(e, idx, lane, sb);
      mlc_sb_puts(sb, "]");
    }
    mlc_sb_puts(sb, "})");
    return;
  }
  case MLC_EXPR_BROADCAST:
    mlc_sb_printf(sb, "%s(", bcast_helper(e, x->dtype));
    emit(e, x->bcast.value, NULL, sb);
    mlc_sb_puts(sb, ")");
    return;
  case MLC_EXPR_RAMP:
    mlc_sb_printf(sb, "((%s){", vt);
    for (int l = 0; l < x->dtype.lanes; l++) mlc_sb_printf(sb, "%s%d", l ? ", " : "", l);
    mlc_sb_puts(sb, "} * (");
    emit(e, x->ramp.stride, NULL, sb);
    mlc_sb_puts(sb, ") + (");
    emit(e, x->ramp.base, NULL, sb);
    mlc_sb_puts(sb, "))");
    return;
  case MLC_EXPR_BINARY: {
    static const char ops[] = {[MLC_BIN_ADD] = '+', [MLC_BIN_SUB] = '-', [MLC_BIN_MUL] = '*', [MLC_BIN_DIV] = '/'};
    if (x->bin.op == MLC_BIN_MIN || x->bin.op == MLC_BIN_MAX) {
      mlc_sb_printf(sb, "%s(", vector_minmax_helper(e, x->bin.op, x->dtype));
      emit_vec(e, x->bin.a, sb);
      mlc_sb_puts(sb, ", ");
      emit_vec(e, x->bin.b, sb);
      mlc_sb_puts(sb, ")");
      return;
    }
    mlc_sb_puts(sb, "(");
    emit_vec(e, x->bin.a, sb);
    mlc_sb_printf(sb, " %c ", ops[x->bin.op]);
    emit_vec(e, x->bin.b, sb);
    mlc_sb_puts(sb, ")");
    return;
  }
  case MLC_EXPR_NEG: mlc_sb_puts(sb, "(-"); emit_vec(e, x->operand, sb); mlc_sb_puts(sb, ")"); return;
  case MLC_EXPR_CAST:
    mlc_sb_puts(sb, "__builtin_convertvector(");
    emit_vec(e, x->operand, sb);
    mlc_sb_printf(sb, ", %s)", vt);
    return;
  case MLC_EXPR_CALL: c_dot_vector(e, x, sb); return;
  default: c_fail(e, "internal: vector form requested for an unsupported expression"); return;
  }
}

void c_expr(CEmit *e, const MlcExpr *x, MlcStrBuf *sb) {
  if (x->dtype.lanes > 1) emit_vec(e, x, sb);
  else emit(e, x, NULL, sb);
}

void c_expr_lane(CEmit *e, const MlcExpr *x, const char *lane, MlcStrBuf *sb) { emit(e, x, lane, sb); }
