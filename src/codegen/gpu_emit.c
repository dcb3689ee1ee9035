/* gpu_emit.c - OpenCL C and CUDA C kernels from a function lowered for a
 * GPU (lower.h, MlcGpuFunc).
 *
 * One emitter writes both languages through the dialect table below.  The
 * kernel body is the lowered loop nest with the thread-bound loops already
 * turned into lets of the thread indices, so writing it is plain C:
 * loops, ifs, lets as block-scoped locals, one-dimensional buffers.
 * Vector expressions (from vectorized loops) are written lane by lane, a
 * loop over the lanes that the device compiler unrolls; OpenCL also gets
 * vloadN/vstoreN for a contiguous float store whose value is built from
 * contiguous loads, broadcasts and arithmetic, the vector loads a
 * vectorized schedule asks for.  Integer floordiv/floormod keep TIR's
 * rounding through small helpers.  An integer division whose divisor is
 * not a nonzero constant, and T.checked_index, go through checking helpers
 * as on the C target; a GPU cannot stop one thread with a message, so a
 * failing thread records why in the kernel's fault word (a trailing
 * parameter, 1: division by zero, 2: overflow, 3: index out of range),
 * goes on with 0, and the host reads the word after the launches and
 * reports the error as the C target does. */
#include "gpu_emit.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the two languages ------------------------------------------------------------ */

/* the checking helpers: op 0 div, 1 mod, 2 floordiv, 3 floormod; lo is
 * the dtype's most negative value (its division by -1 overflows) */
#define GPU_CHECK_HELPERS(Q, G, I64, U64)                                                                 \
  Q " " I64 " mlc_chk_i64(" I64 " a, " I64 " b, int op, " I64 " lo, " G "int *f) {\n"                     \
  "  if (b == 0) { *f = 1; return 0; }\n"                                                                 \
  "  if (b == -1) { if (op == 1 || op == 3) return 0; if (a == lo) { *f = 2; return 0; } return -a; }\n"  \
  "  " I64 " q = a / b, r = a % b;\n"                                                                     \
  "  bool fix = op >= 2 && r != 0 && ((r < 0) != (b < 0));\n"                                            \
  "  return op == 0 ? q : op == 1 ? r : op == 2 ? (fix ? q - 1 : q) : (fix ? r + b : r);\n}\n"             \
  Q " " U64 " mlc_chk_u64(" U64 " a, " U64 " b, int op, " G "int *f) {\n"                                \
  "  if (b == 0) { *f = 1; return 0; }\n"                                                                 \
  "  return op == 0 || op == 2 ? a / b : a % b;\n}\n"                                                    \
  Q " " I64 " mlc_chk_index(" I64 " i, " I64 " n, " G "int *f) {\n"                                       \
  "  if (i < 0 || i >= n) { *f = 3; return 0; }\n"                                                         \
  "  return i;\n}\n"

#define GPU_HELPERS(Q)                                                                                    \
  Q " int mlc_floordiv_i32(int a, int b) { int q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }\n" \
  Q " int mlc_floormod_i32(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }\n"

static const GpuDialect OPENCL = {
    .name = "opencl",
    .ext = ".cl",
    .prelude = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
               GPU_HELPERS("static inline")
               "static inline long mlc_floordiv_i64(long a, long b) { long q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }\n"
               "static inline long mlc_floormod_i64(long a, long b) { long r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }\n"
               GPU_CHECK_HELPERS("static inline", "__global ", "long", "ulong"),
    .kernel = "__kernel void",
    .global = "__global ",
    .shared = "__local ",
    .barrier = "barrier(CLK_LOCAL_MEM_FENCE);",
    .block_idx = "((int)get_group_id(%d))",
    .thread_idx = "((int)get_local_id(%d))",
    .ints = {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong"},
    .inf = "INFINITY",
    .vector_loads = true,
};

static const GpuDialect CUDA = {
    .name = "cuda",
    .ext = ".cu",
    .prelude = GPU_HELPERS("__device__ static inline")
               "__device__ static inline long long mlc_floordiv_i64(long long a, long long b) { long long q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }\n"
               "__device__ static inline long long mlc_floormod_i64(long long a, long long b) { long long r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }\n"
               GPU_CHECK_HELPERS("__device__ static inline", "", "long long", "unsigned long long"),
    .kernel = "extern \"C\" __global__ void",
    .global = "",
    .shared = "__shared__ ",
    .barrier = "__syncthreads();",
    .block_idx = "((int)blockIdx.%c)",
    .thread_idx = "((int)threadIdx.%c)",
    .ints = {"signed char", "unsigned char", "short", "unsigned short", "int", "unsigned int", "long long",
             "unsigned long long"},
    .inf = "__int_as_float(0x7f800000)",
    .vector_loads = false,
};

const GpuDialect *gpu_dialect(MlcGpuApi api) { return api == MLC_GPU_CUDA ? &CUDA : &OPENCL; }

const char *mlc_gpu_api_name(MlcGpuApi api) { return api == MLC_GPU_NONE ? "c" : gpu_dialect(api)->name; }
const char *mlc_gpu_api_ext(MlcGpuApi api) { return api == MLC_GPU_NONE ? ".c" : gpu_dialect(api)->ext; }

const char *gpu_type(const GpuDialect *d, MlcDType t) {
  int lg;
  switch ((MlcTypeCode)t.code) {
  case MLC_TC_BOOL: return "int";
  case MLC_TC_INT:
  case MLC_TC_UINT:
    lg = t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : t.bits == 64 ? 3 : -1;
    return lg < 0 ? NULL : d->ints[2 * lg + (t.code == MLC_TC_UINT)];
  case MLC_TC_FLOAT: return t.bits == 32 ? "float" : t.bits == 64 ? "double" : NULL;
  default: return NULL;
  }
}

/* an element in memory: bools are bytes */
static const char *storage_type(const GpuDialect *d, MlcDType t) {
  return t.code == MLC_TC_BOOL ? d->ints[1] : gpu_type(d, mlc_dtype_elem(t));
}

/* ---- the emitter ----------------------------------------------------------------- */

typedef struct KEmit {
  MlcCtx *ctx;
  const GpuDialect *d;
  const MlcGpuKernel *k;
  const char *fname;
  MlcStrBuf *out;
  int indent;
  MlcMap names; /* var or buffer -> C name (or, for axis vars, the index text) */
  MlcMap taken;
  MlcMap vec_vars; /* vector let vars, held as arrays */
  bool failed;
} KEmit;

static bool kfail(KEmit *e, const char *fmt, const char *what) {
  if (!e->failed) mlc_error(e->ctx, (MlcLoc){0}, "%s: kernel %s: %s %s", e->fname, e->k->name, fmt, what ? what : "");
  e->failed = true;
  return false;
}

static void line(KEmit *e, const char *fmt, ...) MLC_PRINTF(2, 3);
static void line(KEmit *e, const char *fmt, ...) {
  for (int i = 0; i < e->indent; i++) mlc_sb_puts(e->out, "  ");
  va_list ap;
  va_start(ap, fmt);
  mlc_sb_vprintf(e->out, fmt, ap);
  va_end(ap);
  mlc_sb_puts(e->out, "\n");
}

static const char *const RESERVED[] = {
    "int", "float", "double", "long", "char", "short", "half", "bool", "void", "global", "local", "kernel",
    "constant", "private", "signed", "unsigned", "if", "else", "for", "while", "do", "return", "break",
    "continue", "switch", "case", "default", "const", "static", "inline", "restrict", "volatile", "struct",
    "union", "enum", "typedef", "sizeof", "uint", "uchar", "ushort", "ulong", "min", "max", "exp", "log",
    "sqrt", "barrier", "auto", "register", "extern", "goto", "new", "delete", "this", "class", "template",
    "namespace", "true", "false", "read_only", "write_only", "image", "sampler",
};

static const char *name_of(KEmit *e, const void *node, const char *hint) {
  const char *n = mlc_map_get(&e->names, node);
  if (n) return n;
  MlcStrBuf sb = {0};
  if (!hint || !*hint) hint = "v";
  if (isdigit((unsigned char)hint[0])) mlc_sb_puts(&sb, "v");
  for (const char *p = hint; *p; p++) mlc_sb_printf(&sb, "%c", isalnum((unsigned char)*p) ? *p : '_');
  if (!strncmp(sb.data, "mlc_", 4) || !strncmp(sb.data, "get_", 4) || !strncmp(sb.data, "__", 2))
    mlc_sb_puts(&sb, "_");
  for (size_t i = 0; i < sizeof RESERVED / sizeof *RESERVED; i++)
    if (!strcmp(sb.data, RESERVED[i])) mlc_sb_puts(&sb, "_");
  const char *base = mlc_intern(e->ctx, mlc_sb_cstr(&sb)), *cand = base;
  for (int i = 1; mlc_map_has(&e->taken, cand); i++) cand = mlc_internf(e->ctx, "%s_%d", base, i);
  mlc_vec_free(&sb);
  mlc_map_put(&e->taken, cand, (void *)cand);
  mlc_map_put(&e->names, node, (void *)cand);
  return cand;
}

static const char *type_or_fail(KEmit *e, MlcDType t) {
  const char *ty = gpu_type(e->d, mlc_dtype_elem(t));
  if (!ty) {
    char buf[32];
    mlc_dtype_str(t, buf);
    kfail(e, "has values of dtype", mlc_intern(e->ctx, buf));
  }
  return ty ? ty : "int";
}

static void emit_int(KEmit *e, MlcDType t, int64_t v, MlcStrBuf *sb) {
  if (t.code == MLC_TC_BOOL) {
    mlc_sb_puts(sb, v ? "1" : "0");
  } else if (t.bits == 64 && t.code == MLC_TC_UINT) {
    mlc_sb_printf(sb, "((%s)%lluULL)", type_or_fail(e, t), (unsigned long long)v);
  } else if (t.bits == 64) {
    if (v == INT64_MIN) mlc_sb_printf(sb, "((%s)(-9223372036854775807LL - 1))", type_or_fail(e, t));
    else mlc_sb_printf(sb, "((%s)%lldLL)", type_or_fail(e, t), (long long)v);
  } else if (t.bits == 32 && t.code == MLC_TC_INT) {
    if (v == INT32_MIN) mlc_sb_puts(sb, "(-2147483647 - 1)");
    else mlc_sb_printf(sb, "%lld", (long long)v);
  } else {
    mlc_sb_printf(sb, "((%s)%lld)", type_or_fail(e, t), (long long)v);
  }
}

static void emit_float(KEmit *e, MlcDType t, double v, MlcStrBuf *sb) {
  bool f32 = t.bits == 32;
  if (isnan(v)) {
    mlc_sb_printf(sb, "((%s)(%s - %s))", f32 ? "float" : "double", e->d->inf, e->d->inf);
  } else if (isinf(v)) {
    mlc_sb_printf(sb, "((%s)(%s%s))", f32 ? "float" : "double", v < 0 ? "-" : "", e->d->inf);
  } else {
    char buf[64];
    snprintf(buf, sizeof buf, f32 ? "%.9g" : "%.17g", v);
    bool dot = strpbrk(buf, ".eE") != NULL;
    mlc_sb_printf(sb, "%s%s%s", buf, dot ? "" : ".0", f32 ? "f" : "");
  }
}

static void ex(KEmit *e, const MlcExpr *x, const char *lane, MlcStrBuf *sb);

static const char *math_fn(MlcIntrin op) {
  switch (op) {
  case MLC_INTRIN_EXP: return "exp";
  case MLC_INTRIN_LOG: return "log";
  case MLC_INTRIN_SQRT: return "sqrt";
  case MLC_INTRIN_TANH: return "tanh";
  case MLC_INTRIN_ERF: return "erf";
  case MLC_INTRIN_FABS: return "fabs";
  case MLC_INTRIN_FLOOR: return "floor";
  case MLC_INTRIN_CEIL: return "ceil";
  case MLC_INTRIN_ROUND: return "rint";
  case MLC_INTRIN_SIN: return "sin";
  case MLC_INTRIN_COS: return "cos";
  case MLC_INTRIN_POW: return "pow";
  default: return NULL;
  }
}

static void ex_call(KEmit *e, const MlcExpr *x, const char *lane, MlcStrBuf *sb) {
  const char *ty = type_or_fail(e, x->dtype);
  switch (x->call.op) {
  case MLC_INTRIN_CHECKED_INDEX:
    mlc_sb_printf(sb, "((%s)mlc_chk_index((%s)(", ty, e->d->ints[6]);
    ex(e, x->call.args[0], lane, sb);
    mlc_sb_printf(sb, "), (%s)(", e->d->ints[6]);
    ex(e, x->call.args[1], lane, sb);
    mlc_sb_puts(sb, "), mlc_fault))");
    return;
  case MLC_INTRIN_IF_THEN_ELSE:
    mlc_sb_puts(sb, "(");
    ex(e, x->call.args[0], lane, sb);
    mlc_sb_puts(sb, " ? ");
    ex(e, x->call.args[1], lane, sb);
    mlc_sb_puts(sb, " : ");
    ex(e, x->call.args[2], lane, sb);
    mlc_sb_puts(sb, ")");
    return;
  case MLC_INTRIN_RSQRT:
    mlc_sb_printf(sb, "((%s)1 / sqrt(", ty);
    ex(e, x->call.args[0], lane, sb);
    mlc_sb_puts(sb, "))");
    return;
  case MLC_INTRIN_SIGMOID:
    mlc_sb_printf(sb, "((%s)1 / ((%s)1 + exp(-(", ty, ty);
    ex(e, x->call.args[0], lane, sb);
    mlc_sb_puts(sb, "))))");
    return;
  default: break;
  }
  const char *fn = math_fn(x->call.op);
  if (!fn) {
    kfail(e, "has an intrinsic the GPU targets do not write:", mlc_intrin_info[x->call.op].name);
    return;
  }
  mlc_sb_printf(sb, "%s(", fn);
  for (int i = 0; i < x->call.n; i++) {
    if (i) mlc_sb_puts(sb, ", ");
    mlc_sb_printf(sb, "(%s)", ty);
    ex(e, x->call.args[i], lane, sb);
  }
  mlc_sb_puts(sb, ")");
}

static void ex_bin(KEmit *e, const MlcExpr *x, const char *lane, MlcStrBuf *sb) {
  static const char *const infix[MLC_BIN_COUNT] = {
      [MLC_BIN_ADD] = "+", [MLC_BIN_SUB] = "-", [MLC_BIN_MUL] = "*", [MLC_BIN_EQ] = "==", [MLC_BIN_NE] = "!=",
      [MLC_BIN_LT] = "<", [MLC_BIN_LE] = "<=", [MLC_BIN_GT] = ">", [MLC_BIN_GE] = ">=", [MLC_BIN_AND] = "&&",
      [MLC_BIN_OR] = "||",
  };
  MlcDType t = mlc_dtype_elem(x->bin.a->dtype);
  bool fl = mlc_dtype_is_float(t);
  const char *fn = NULL, *op = infix[x->bin.op];
  int64_t d;
  if (gpu_div_checked(x)) {
    bool u = t.code == MLC_TC_UINT;
    const char *ty = type_or_fail(e, t), *wide = e->d->ints[u ? 7 : 6];
    mlc_sb_printf(sb, "((%s)mlc_chk_%s((%s)(", ty, u ? "u64" : "i64", wide);
    ex(e, x->bin.a, lane, sb);
    mlc_sb_printf(sb, "), (%s)(", wide);
    ex(e, x->bin.b, lane, sb);
    int opn = x->bin.op == MLC_BIN_DIV ? 0 : x->bin.op == MLC_BIN_MOD ? 1 : x->bin.op == MLC_BIN_FLOORDIV ? 2 : 3;
    if (u) mlc_sb_printf(sb, "), %d, mlc_fault))", opn);
    else mlc_sb_printf(sb, "), %d, (%s)(-%lldL - 1), mlc_fault))", opn, wide,
                       (long long)(t.bits >= 64 ? INT64_MAX : ((int64_t)1 << (t.bits - 1)) - 1));
    return;
  }
  if (gpu_int_division(x) && mlc_e_is_const_int(x->bin.b->kind == MLC_EXPR_BROADCAST ? x->bin.b->bcast.value : x->bin.b, &d) && d == 0) {
    kfail(e, "has an integer division by the constant zero", NULL);
    return;
  }
  switch (x->bin.op) {
  case MLC_BIN_DIV: op = "/"; break;
  case MLC_BIN_MOD: if (fl) fn = "fmod"; else op = "%"; break;
  case MLC_BIN_MIN: fn = fl ? "fmin" : "min"; break;
  case MLC_BIN_MAX: fn = fl ? "fmax" : "max"; break;
  case MLC_BIN_FLOORDIV:
  case MLC_BIN_FLOORMOD: {
    bool div = x->bin.op == MLC_BIN_FLOORDIV;
    if (fl) {
      const char *ty = type_or_fail(e, t);
      mlc_sb_puts(sb, div ? "floor((" : "((");
      if (!div) {
        ex(e, x->bin.a, lane, sb);
        mlc_sb_printf(sb, ") - floor((%s)(", ty);
      }
      ex(e, x->bin.a, lane, sb);
      mlc_sb_puts(sb, ") / (");
      ex(e, x->bin.b, lane, sb);
      if (div) {
        mlc_sb_puts(sb, "))");
      } else {
        mlc_sb_puts(sb, ")) * (");
        ex(e, x->bin.b, lane, sb);
        mlc_sb_puts(sb, "))");
      }
      return;
    }
    if (t.code == MLC_TC_UINT) {
      op = div ? "/" : "%";
      break;
    }
    bool i32 = t.bits == 32;
    const char *ty = type_or_fail(e, t), *i64 = e->d->ints[6];
    mlc_sb_printf(sb, "((%s)mlc_%s_%s((%s)(", ty, div ? "floordiv" : "floormod", i32 ? "i32" : "i64",
                  i32 ? "int" : i64);
    ex(e, x->bin.a, lane, sb);
    mlc_sb_printf(sb, "), (%s)(", i32 ? "int" : i64);
    ex(e, x->bin.b, lane, sb);
    mlc_sb_puts(sb, ")))");
    return;
  }
  default: break;
  }
  if (fn) {
    mlc_sb_printf(sb, "%s(", fn);
    ex(e, x->bin.a, lane, sb);
    mlc_sb_puts(sb, ", ");
    ex(e, x->bin.b, lane, sb);
    mlc_sb_puts(sb, ")");
    return;
  }
  mlc_sb_puts(sb, "(");
  ex(e, x->bin.a, lane, sb);
  mlc_sb_printf(sb, " %s ", op);
  ex(e, x->bin.b, lane, sb);
  mlc_sb_puts(sb, ")");
}

/* scalar form, or (lane != NULL) the value at that lane of a vector */
static void ex(KEmit *e, const MlcExpr *x, const char *lane, MlcStrBuf *sb) {
  if (e->failed) return;
  switch (x->kind) {
  case MLC_EXPR_VAR: {
    const char *n = mlc_map_get(&e->names, x);
    if (!n) {
      kfail(e, "reads a var it does not bind:", x->var.name);
      return;
    }
    if (mlc_map_has(&e->vec_vars, x)) mlc_sb_printf(sb, "%s[%s]", n, lane ? lane : "0");
    else mlc_sb_puts(sb, n);
    return;
  }
  case MLC_EXPR_INT: emit_int(e, x->dtype, x->int_val, sb); return;
  case MLC_EXPR_FLOAT:
    mlc_sb_puts(sb, "(");
    emit_float(e, x->dtype, x->float_val, sb);
    mlc_sb_puts(sb, ")");
    return;
  case MLC_EXPR_STR: kfail(e, "has a string value", NULL); return;
  case MLC_EXPR_BINARY: ex_bin(e, x, lane, sb); return;
  case MLC_EXPR_NOT:
  case MLC_EXPR_NEG:
    mlc_sb_puts(sb, x->kind == MLC_EXPR_NOT ? "(!" : "(-");
    ex(e, x->operand, lane, sb);
    mlc_sb_puts(sb, ")");
    return;
  case MLC_EXPR_SELECT:
    mlc_sb_puts(sb, "(");
    ex(e, x->select.cond, lane, sb);
    mlc_sb_puts(sb, " ? ");
    ex(e, x->select.t, lane, sb);
    mlc_sb_puts(sb, " : ");
    ex(e, x->select.f, lane, sb);
    mlc_sb_puts(sb, ")");
    return;
  case MLC_EXPR_CAST:
    if (x->dtype.code == MLC_TC_BOOL) {
      mlc_sb_puts(sb, "((");
      ex(e, x->operand, lane, sb);
      mlc_sb_puts(sb, ") != 0)");
      return;
    }
    mlc_sb_printf(sb, "((%s)(", type_or_fail(e, x->dtype));
    ex(e, x->operand, lane, sb);
    mlc_sb_puts(sb, "))");
    return;
  case MLC_EXPR_LOAD:
    if (x->load.n != 1) {
      kfail(e, "reads a buffer that was not flattened:", x->load.buf->name);
      return;
    }
    mlc_sb_printf(sb, "%s[", name_of(e, x->load.buf, x->load.buf->name));
    ex(e, x->load.idx[0], lane, sb);
    mlc_sb_puts(sb, "]");
    return;
  case MLC_EXPR_RAMP:
    if (!lane) {
      kfail(e, "uses a vector where a scalar is needed", NULL);
      return;
    }
    mlc_sb_puts(sb, "(");
    ex(e, x->ramp.base, NULL, sb);
    mlc_sb_printf(sb, " + (%s)%s * ", type_or_fail(e, x->ramp.base->dtype), lane);
    ex(e, x->ramp.stride, NULL, sb);
    mlc_sb_puts(sb, ")");
    return;
  case MLC_EXPR_BROADCAST: ex(e, x->bcast.value, NULL, sb); return;
  case MLC_EXPR_LET: {
    /* the value, inlined: expressions are pure */
    MlcStrBuf v = {0};
    mlc_sb_puts(&v, "(");
    ex(e, x->let.value, lane, &v);
    mlc_sb_puts(&v, ")");
    const char *old = mlc_map_get(&e->names, x->let.var);
    mlc_map_put(&e->names, x->let.var, (void *)mlc_intern(e->ctx, mlc_sb_cstr(&v)));
    mlc_vec_free(&v);
    ex(e, x->let.body, lane, sb);
    mlc_map_put(&e->names, x->let.var, (void *)old);
    return;
  }
  case MLC_EXPR_CALL: ex_call(e, x, lane, sb); return;
  }
}

/* ---- OpenCL vector form: vloadN / vstoreN ------------------------------------------ */

static bool unit_ramp(const MlcExpr *idx) {
  int64_t s;
  return idx->kind == MLC_EXPR_RAMP && mlc_e_is_const_int(idx->ramp.stride, &s) && s == 1;
}

static bool vec_ok(const MlcExpr *x) {
  switch (x->kind) {
  case MLC_EXPR_LOAD: return x->load.n == 1 && unit_ramp(x->load.idx[0]);
  case MLC_EXPR_BROADCAST: return true;
  case MLC_EXPR_BINARY:
    return (x->bin.op == MLC_BIN_ADD || x->bin.op == MLC_BIN_SUB || x->bin.op == MLC_BIN_MUL ||
            x->bin.op == MLC_BIN_DIV || x->bin.op == MLC_BIN_MIN || x->bin.op == MLC_BIN_MAX) &&
           vec_ok(x->bin.a) && vec_ok(x->bin.b);
  default: return false;
  }
}

static void vex(KEmit *e, const MlcExpr *x, MlcStrBuf *sb) {
  int n = x->dtype.lanes;
  switch (x->kind) {
  case MLC_EXPR_LOAD:
    mlc_sb_printf(sb, "vload%d(0, %s + ", n, name_of(e, x->load.buf, x->load.buf->name));
    ex(e, x->load.idx[0]->ramp.base, NULL, sb);
    mlc_sb_puts(sb, ")");
    return;
  case MLC_EXPR_BROADCAST:
    mlc_sb_printf(sb, "((%s%d)(", type_or_fail(e, x->dtype), n);
    ex(e, x->bcast.value, NULL, sb);
    mlc_sb_puts(sb, "))");
    return;
  case MLC_EXPR_BINARY: {
    const char *fn = x->bin.op == MLC_BIN_MIN ? "fmin" : x->bin.op == MLC_BIN_MAX ? "fmax" : NULL;
    const char *op = x->bin.op == MLC_BIN_ADD ? "+" : x->bin.op == MLC_BIN_SUB ? "-" : x->bin.op == MLC_BIN_MUL ? "*" : "/";
    mlc_sb_printf(sb, "%s(", fn ? fn : "");
    vex(e, x->bin.a, sb);
    mlc_sb_printf(sb, fn ? ", " : " %s ", op);
    vex(e, x->bin.b, sb);
    mlc_sb_puts(sb, ")");
    return;
  }
  default: return;
  }
}

static bool vector_store(KEmit *e, const MlcStmt *s) {
  int n = s->store.value->dtype.lanes;
  MlcDType t = mlc_dtype_elem(s->store.value->dtype);
  if (!e->d->vector_loads || !mlc_dtype_is_float(t) || !(n == 2 || n == 4 || n == 8 || n == 16) ||
      s->store.n != 1 || !unit_ramp(s->store.idx[0]) || !vec_ok(s->store.value))
    return false;
  MlcStrBuf v = {0}, base = {0};
  vex(e, s->store.value, &v);
  ex(e, s->store.idx[0]->ramp.base, NULL, &base);
  line(e, "vstore%d(%s, 0, %s + %s);", n, mlc_sb_cstr(&v), name_of(e, s->store.buf, s->store.buf->name),
       mlc_sb_cstr(&base));
  mlc_vec_free(&v);
  mlc_vec_free(&base);
  return true;
}

/* ---- statements ------------------------------------------------------------------- */

static void st(KEmit *e, const MlcStmt *s);

static void st_store(KEmit *e, const MlcStmt *s) {
  if (s->store.n != 1) {
    kfail(e, "writes a buffer that was not flattened:", s->store.buf->name);
    return;
  }
  int lanes = s->store.value->dtype.lanes;
  const char *buf = name_of(e, s->store.buf, s->store.buf->name);
  MlcStrBuf idx = {0}, val = {0};
  if (lanes == 1 && s->store.idx[0]->dtype.lanes == 1) {
    ex(e, s->store.idx[0], NULL, &idx);
    ex(e, s->store.value, NULL, &val);
    line(e, "%s[%s] = %s;", buf, mlc_sb_cstr(&idx), mlc_sb_cstr(&val));
  } else if (!vector_store(e, s)) {
    if (lanes == 1) lanes = s->store.idx[0]->dtype.lanes;
    ex(e, s->store.idx[0], "mlc_l", &idx);
    ex(e, s->store.value, "mlc_l", &val);
    line(e, "for (int mlc_l = 0; mlc_l < %d; ++mlc_l) %s[%s] = %s;", lanes, buf, mlc_sb_cstr(&idx), mlc_sb_cstr(&val));
  }
  mlc_vec_free(&idx);
  mlc_vec_free(&val);
}

static void st_for(KEmit *e, const MlcStmt *s) {
  const char *ty = type_or_fail(e, s->loop.var->dtype);
  const char *v = name_of(e, s->loop.var, s->loop.var->var.name);
  MlcStrBuf lo = {0}, ext = {0};
  ex(e, s->loop.min, NULL, &lo);
  ex(e, s->loop.extent, NULL, &ext);
  if (s->loop.kind == MLC_FOR_UNROLLED) line(e, "#pragma unroll");
  line(e, "for (%s %s = %s; %s < %s + %s; ++%s) {", ty, v, mlc_sb_cstr(&lo), v, mlc_sb_cstr(&lo), mlc_sb_cstr(&ext), v);
  mlc_vec_free(&lo);
  mlc_vec_free(&ext);
  e->indent++;
  st(e, s->loop.body);
  e->indent--;
  line(e, "}");
}

static void st_let(KEmit *e, const MlcStmt *s) {
  const MlcExpr *var = s->let.var;
  int lanes = s->let.value->dtype.lanes;
  const char *ty = type_or_fail(e, var->dtype);
  const char *n = name_of(e, var, var->var.name);
  MlcStrBuf v = {0};
  line(e, "{");
  e->indent++;
  if (lanes == 1) {
    ex(e, s->let.value, NULL, &v);
    line(e, "%s %s = %s;", ty, n, mlc_sb_cstr(&v));
  } else {
    ex(e, s->let.value, "mlc_l", &v);
    line(e, "%s %s[%d];", ty, n, lanes);
    line(e, "for (int mlc_l = 0; mlc_l < %d; ++mlc_l) %s[mlc_l] = %s;", lanes, n, mlc_sb_cstr(&v));
    mlc_map_put(&e->vec_vars, var, (void *)var);
  }
  mlc_vec_free(&v);
  st(e, s->let.body);
  e->indent--;
  line(e, "}");
}

static void st(KEmit *e, const MlcStmt *s) {
  if (e->failed || !s) return;
  switch (s->kind) {
  case MLC_STMT_STORE: st_store(e, s); return;
  case MLC_STMT_FOR:
    if (s->loop.kind == MLC_FOR_THREAD || s->loop.kind == MLC_FOR_PARALLEL || s->loop.kind == MLC_FOR_VECTORIZED) {
      kfail(e, "has a loop that lowering should have removed:", s->loop.var->var.name);
      return;
    }
    st_for(e, s);
    return;
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++) st(e, s->seq.items[i]);
    return;
  case MLC_STMT_IF: {
    MlcStrBuf c = {0};
    ex(e, s->if_.cond, NULL, &c);
    line(e, "if (%s) {", mlc_sb_cstr(&c));
    mlc_vec_free(&c);
    e->indent++;
    st(e, s->if_.then_s);
    e->indent--;
    if (s->if_.else_s) {
      line(e, "} else {");
      e->indent++;
      st(e, s->if_.else_s);
      e->indent--;
    }
    line(e, "}");
    return;
  }
  case MLC_STMT_LET: st_let(e, s); return;
  case MLC_STMT_ALLOCATE: {
    const MlcBuffer *b = s->alloc.buf;
    int64_t n = 1, d;
    for (int i = 0; i < b->ndim; i++)
      if (!mlc_e_is_const_int(b->shape[i], &d) || __builtin_mul_overflow(n, d, &n)) {
        kfail(e, "allocates a local buffer of a size that is not a constant:", b->name);
        return;
      }
    line(e, "{");
    e->indent++;
    line(e, "%s %s[%lld];", storage_type(e->d, b->dtype), name_of(e, b, b->name), (long long)(n > 0 ? n : 1));
    st(e, s->alloc.body);
    e->indent--;
    line(e, "}");
    return;
  }
  case MLC_STMT_EVALUATE:
    if (s->eval == e->k->barrier) {
      line(e, "%s", e->d->barrier);
    } else {
      MlcStrBuf v = {0};
      ex(e, s->eval, NULL, &v);
      line(e, "(void)(%s);", mlc_sb_cstr(&v));
      mlc_vec_free(&v);
    }
    return;
  case MLC_STMT_BLOCK_REALIZE: kfail(e, "has a block left after lowering:", s->realize.block->name); return;
  }
}

static bool emit_kernel(MlcCtx *ctx, const MlcGpuFunc *g, const MlcGpuKernel *k, const GpuDialect *d,
                        MlcStrBuf *out) {
  KEmit e = {.ctx = ctx, .d = d, .k = k, .fname = g->lowered->name, .out = out};
  for (int a = 0; a < MLC_GPU_AXIS_COUNT; a++) {
    if (!k->axis[a]) continue;
    bool thread = a >= MLC_GPU_THREAD_X;
    int dim = a % 3;
    const char *fmt = thread ? d->thread_idx : d->block_idx;
    /* OpenCL's index functions take the dimension, CUDA's builtins a member */
    const char *text = strstr(fmt, "%d") ? mlc_internf(ctx, fmt, dim) : mlc_internf(ctx, fmt, "xyz"[dim]);
    mlc_map_put(&e.names, k->axis[a], (void *)text);
  }
  mlc_sb_printf(out, "%s %s(", d->kernel, k->name);
  for (int i = 0; i < k->n_buffers; i++) {
    const MlcBuffer *b = k->buffers[i];
    const char *ty = storage_type(d, b->dtype);
    if (!ty) kfail(&e, "has a buffer of a dtype the GPU targets do not support:", b->name);
    mlc_sb_printf(out, "%s%s%s *%s", i ? ", " : "", d->global, ty ? ty : "int", name_of(&e, b, b->name));
  }
  for (int i = 0; i < k->n_scalars; i++) {
    const MlcExpr *v = k->scalars[i];
    mlc_sb_printf(out, "%s%s %s", i || k->n_buffers ? ", " : "", type_or_fail(&e, v->dtype), name_of(&e, v, v->var.name));
  }
  if (gpu_kernel_checks(k))
    mlc_sb_printf(out, "%s%sint *mlc_fault", k->n_buffers + k->n_scalars ? ", " : "", d->global);
  mlc_sb_puts(out, ") {\n");
  e.indent = 1;
  for (int i = 0; i < k->n_shared; i++) {
    const MlcBuffer *b = k->shared[i];
    int64_t n = 1, dd;
    for (int j = 0; j < b->ndim; j++)
      if (mlc_e_is_const_int(b->shape[j], &dd)) n *= dd;
    line(&e, "%s%s %s[%lld];", d->shared, storage_type(d, b->dtype), name_of(&e, b, b->name), (long long)n);
  }
  st(&e, k->body);
  mlc_sb_puts(out, "}\n\n");
  mlc_map_free(&e.names);
  mlc_map_free(&e.taken);
  mlc_map_free(&e.vec_vars);
  return !e.failed;
}

/* ---- checks that need the fault word --------------------------------------------------- */

bool gpu_int_division(const MlcExpr *x) {
  if (x->kind != MLC_EXPR_BINARY) return false;
  MlcBinOp op = x->bin.op;
  MlcDType t = mlc_dtype_elem(x->bin.a->dtype);
  return (op == MLC_BIN_DIV || op == MLC_BIN_MOD || op == MLC_BIN_FLOORDIV || op == MLC_BIN_FLOORMOD) &&
         (t.code == MLC_TC_INT || t.code == MLC_TC_UINT);
}

bool gpu_div_checked(const MlcExpr *x) {
  if (!gpu_int_division(x)) return false;
  const MlcExpr *b = x->bin.b->kind == MLC_EXPR_BROADCAST ? x->bin.b->bcast.value : x->bin.b;
  int64_t d;
  if (!mlc_e_is_const_int(b, &d)) return true;
  return d == -1 && mlc_dtype_elem(x->bin.a->dtype).code == MLC_TC_INT;
}

typedef struct Checks { MlcVisitor v; bool found; } Checks;
static bool checks_hook(MlcVisitor *v, const MlcExpr *x) {
  Checks *c = (Checks *)v;
  if (gpu_div_checked(x) || (x->kind == MLC_EXPR_CALL && x->call.op == MLC_INTRIN_CHECKED_INDEX)) c->found = true;
  return !c->found;
}

bool gpu_kernel_checks(const MlcGpuKernel *k) {
  Checks c = {.v = {.expr = checks_hook}};
  mlc_visit_stmt(&c.v, k->body);
  return c.found;
}

bool gpu_emit_kernels(MlcCtx *ctx, const MlcGpuFunc *g, const GpuDialect *d, MlcStrBuf *out) {
  for (int i = 0; i < g->n_kernels; i++)
    if (!emit_kernel(ctx, g, &g->kernels[i], d, out)) return false;
  return true;
}
