/* c_module.c - the C file for a module: preamble, helpers, per prim func a
 * kernel (and its parallel closures), and the `mlcrt_module` descriptor the
 * runtime reads (docs/runtime.md).
 *
 * Each function is lowered here; its descriptor -- ranks, shapes, dtypes,
 * symbolic sizes -- comes from the function as written, since lowering
 * flattens the buffers the runtime checks. */
#include "c_emit.h"
#include "mlcc/lower.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const char *const c_keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
    "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
    "volatile", "while", "bool", "true", "false", "env", "main", "NAN", "INFINITY",
    /* names the kernels call or declare with: a local spelled like one would hide it */
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t",
    "_Float16", "exp", "expf", "log", "logf", "sqrt", "sqrtf", "tanh", "tanhf", "erf", "erff", "fabs",
    "fabsf", "floor", "floorf", "ceil", "ceilf", "nearbyint", "nearbyintf", "sin", "sinf", "cos", "cosf",
    "pow", "powf", "fmod", "fmodf", "isinf", "isnan", NULL};

const char *c_name(CEmit *e, const void *node, const char *hint) {
  const char *have = mlc_map_get(&e->names, node);
  if (have) return have;
  MlcStrBuf sb = {0};
  for (const char *p = hint && *hint ? hint : "v"; *p; p++)
    mlc_sb_putc(&sb, isalnum((unsigned char)*p) || *p == '_' ? *p : '_');
  if (isdigit((unsigned char)sb.data[0]) || !strncmp(sb.data, "mlc", 3) || !strncmp(sb.data, "__", 2)) {
    MlcStrBuf fixed = {0};
    mlc_sb_printf(&fixed, "v_%s", sb.data);
    mlc_vec_free(&sb);
    sb = fixed;
  }
  for (int i = 0; c_keywords[i]; i++)
    if (!strcmp(sb.data, c_keywords[i])) mlc_sb_putc(&sb, '_');
  const char *name = mlc_intern(e->ctx, sb.data);
  for (int k = 1; mlc_map_has(&e->taken, name) || mlc_map_has(e->globals, name); k++) name = mlc_internf(e->ctx, "%s_%d", sb.data, k);
  mlc_vec_free(&sb);
  mlc_map_put(&e->taken, name, (void *)name);
  mlc_map_put(&e->names, node, (void *)name);
  return name;
}

/* A kernel's C symbols: the function "mlck_<base>" and, through the name
 * registered for the function node (c_stmt.c builds closure names from it),
 * its parallel closures "mlcp_<base>_parallel<N>".  The prefixes keep them
 * off everything the kernel file can see -- libm and libc (a function named
 * exp or memcpy is what legalizing R.exp or a copy gives), the preamble's
 * mlc_ names, and locals, which c_name never starts with "mlc" -- and the
 * base is made unique among the module's kernels. */
static const char *kernel_cname(CEmit *e, const MlcPrimFunc *f, MlcMap *bases) {
  MlcStrBuf sb = {0};
  for (const char *p = *f->name ? f->name : "f"; *p; p++)
    mlc_sb_putc(&sb, isalnum((unsigned char)*p) || *p == '_' ? *p : '_');
  const char *base = mlc_intern(e->ctx, sb.data);
  for (int k = 1; mlc_map_has(bases, base); k++) base = mlc_internf(e->ctx, "%s_%d", sb.data, k);
  mlc_vec_free(&sb);
  mlc_map_put(bases, base, (void *)base);
  const char *closures = mlc_internf(e->ctx, "mlcp_%s", base);
  mlc_map_put(&e->names, f, (void *)closures);
  mlc_map_put(&e->taken, closures, (void *)closures);
  return mlc_internf(e->ctx, "mlck_%s", base);
}

static const char PREAMBLE[] =
    "#include <math.h>\n"
    "#include <stdbool.h>\n"
    "#include <stddef.h>\n"
    "#include <stdint.h>\n\n"
    "/* the runtime's module ABI (docs/runtime.md), version 1 */\n"
    "typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } mlc_dtype;\n"
    "struct MlcrtExtern;\nstruct MlcrtGpu;\n"
    "typedef struct MlcrtEnv {\n"
    "  uint32_t version;\n"
    "  int32_t (*parallel_for)(int64_t n, int32_t (*body)(int64_t, int64_t, void *), void *closure);\n"
    "  void *(*workspace_alloc)(size_t nbytes, size_t align);\n"
    "  void (*workspace_free)(void *p);\n"
    "  void (*set_error)(const char *msg);\n"
    "  int32_t (*get_extern)(const char *name, struct MlcrtExtern *out); /* version >= 2 */\n"
    "  void (*profile)(void *profile_data, int32_t site, int32_t end); /* version >= 3 */\n"
    "  void *profile_data;\n"
    "  const struct MlcrtGpu *(*gpu)(int32_t api); /* version >= 4 (keep/forget: 5) */\n"
    "} MlcrtEnv;\n"
    "typedef struct { const char *name; int32_t is_buffer; mlc_dtype dtype; int32_t ndim; const int64_t *dims; int32_t align; } mlc_param_desc;\n"
    "typedef struct { const char *name; int32_t n_params; const mlc_param_desc *params; int32_t n_syms;\n"
    "                 const char *const *sym_names; int32_t (*fn)(void *const *, const int64_t *, const MlcrtEnv *); } mlc_func_desc;\n"
    "typedef struct { uint32_t abi_version; int32_t n_funcs; const mlc_func_desc *funcs; } mlc_module_desc;\n\n";

int c_dl_code(MlcDType t) {
  switch ((MlcTypeCode)t.code) {
  case MLC_TC_INT: return 0;
  case MLC_TC_UINT: return 1;
  case MLC_TC_FLOAT: return 2;
  case MLC_TC_BFLOAT: return 4;
  case MLC_TC_BOOL: return 6;
  case MLC_TC_HANDLE: case MLC_TC_VOID: return 3;
#define X(code, name, bits, eb, mb, bias, kind, dl) \
  case code: return dl;
    MLC_MINIFLOATS(X)
#undef X
  }
  return 3;
}

int c_dl_bits(MlcDType t) { return t.code == MLC_TC_BOOL ? 8 : t.bits; /* DLPack bools are bytes */ }

/* Symbolic sizes of a function as written: each var dim of a buffer param,
 * numbered in order of first appearance. */
typedef struct Sig {
  MLC_VEC(const MlcExpr *) syms;
} Sig;

static int sym_index(const Sig *sig, const MlcExpr *v) {
  for (size_t i = 0; i < sig->syms.len; i++)
    if (sig->syms.data[i] == v) return (int)i;
  return -1;
}

static bool vars_are_syms(const Sig *sig, const MlcExpr *e);

static bool collect_sig(CEmit *e, const MlcPrimFunc *f, Sig *sig) {
  for (int i = 0; i < f->n_params; i++) {
    const MlcBuffer *b = f->params[i].buf;
    if (!b) {
      MlcDType t = f->params[i].var->dtype;
      if (t.lanes != 1 || (!mlc_dtype_is_int(t) && !mlc_dtype_is_float(t) && t.code != MLC_TC_BOOL))
        return c_fail(e, "scalar parameter '%s' must be an integer or float scalar", f->params[i].var->var.name);
      continue;
    }
    if (!c_storage_type(mlc_dtype_elem(b->dtype)))
      return c_fail(e, "buffer '%s' has a dtype the C target does not support", b->name);
    for (int d = 0; b->strides && d < b->ndim; d++)
      if (b->strides[d]->kind != MLC_EXPR_INT)
        return c_fail(e, "parameter buffer '%s' has a symbolic stride in dimension %d; the runtime binds only shapes "
                      "(a tensor intrinsic's implementation is not a function to build on its own)", b->name, d);
    for (int d = 0; d < b->ndim; d++) {
      const MlcExpr *dim = b->shape[d];
      if (dim->kind == MLC_EXPR_VAR && sym_index(sig, dim) < 0) mlc_vec_push(&sig->syms, dim);
    }
  }
  /* a dim that is arithmetic on sizes (a reshape's (n * m,)) is a size of
   * its own, bound from the argument like the others; the kernel checks on
   * entry that it is what the expression says */
  for (int i = 0; i < f->n_params; i++) {
    const MlcBuffer *b = f->params[i].buf;
    for (int d = 0; b && d < b->ndim; d++) {
      const MlcExpr *dim = b->shape[d];
      if (dim->kind == MLC_EXPR_VAR || dim->kind == MLC_EXPR_INT) continue;
      if (!vars_are_syms(sig, dim))
        return c_fail(e, "dimension %d of buffer '%s' is an expression over sizes that no buffer has as a dimension "
                      "of its own; the runtime cannot bind them", d, b->name);
      if (sym_index(sig, dim) < 0) mlc_vec_push(&sig->syms, dim);
    }
  }
  return true;
}

/* every var of a dim expression is a size bound by a bare dim */
static bool vars_are_syms(const Sig *sig, const MlcExpr *e) {
  switch (e->kind) {
  case MLC_EXPR_VAR: return sym_index(sig, e) >= 0;
  case MLC_EXPR_INT: return true;
  case MLC_EXPR_BINARY: return vars_are_syms(sig, e->bin.a) && vars_are_syms(sig, e->bin.b);
  case MLC_EXPR_CAST:
  case MLC_EXPR_NEG: return vars_are_syms(sig, e->operand);
  default: return false;
  }
}

/* the name a size has in the descriptor: a var's name, or an expression's text */
static void dim_text(const MlcExpr *v, MlcStrBuf *sb) {
  switch (v->kind) {
  case MLC_EXPR_VAR: mlc_sb_puts(sb, v->var.name); return;
  case MLC_EXPR_INT: mlc_sb_printf(sb, "%lld", (long long)v->int_val); return;
  case MLC_EXPR_CAST: dim_text(v->operand, sb); return;
  case MLC_EXPR_BINARY: {
    const char *py = mlc_binop_info[v->bin.op].py;
    if (py) {
      mlc_sb_puts(sb, "(");
      dim_text(v->bin.a, sb);
      mlc_sb_printf(sb, " %s ", py);
      dim_text(v->bin.b, sb);
      mlc_sb_puts(sb, ")");
    } else {
      mlc_sb_printf(sb, "%s(", mlc_binop_info[v->bin.op].call);
      dim_text(v->bin.a, sb);
      mlc_sb_puts(sb, ", ");
      dim_text(v->bin.b, sb);
      mlc_sb_puts(sb, ")");
    }
    return;
  }
  default: mlc_sb_puts(sb, "?"); return;
  }
}

static const char *sym_name(CEmit *e, const MlcExpr *v) {
  if (v->kind == MLC_EXPR_VAR) return v->var.name;
  MlcStrBuf sb = {0};
  dim_text(v, &sb);
  const char *s = mlc_intern(e->ctx, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return s;
}

/* ---- accesses provably out of bounds ---- */

/* A constant index outside a constant dimension can only be a mistake, and
 * the C code would write or read outside the caller's memory: the build
 * refuses it, naming the buffer, the dimension and the innermost block. */
typedef struct BoundsCheck {
  CEmit *e;
  const char *block;
} BoundsCheck;

static bool check_indices(BoundsCheck *bc, const MlcBuffer *b, MlcExpr *const *idx, int n, const char *what) {
  for (int d = 0; d < n && d < b->ndim; d++) {
    int64_t k, ext;
    if (!mlc_e_is_const_int(idx[d], &k) || !mlc_e_is_const_int(b->shape[d], &ext) || (k >= 0 && k < ext)) continue;
    c_fail(bc->e, "%s buffer '%s' at the constant index %lld of dimension %d, outside its extent %lld (in block '%s')",
           what, b->name, (long long)k, d, (long long)ext, bc->block);
    return false;
  }
  return true;
}

static bool bounds_block(MlcVisitor *v, const MlcBlock *b) {
  ((BoundsCheck *)v->user)->block = b->name;
  return true;
}

static bool bounds_stmt(MlcVisitor *v, const MlcStmt *s) {
  if (s->kind != MLC_STMT_STORE) return true;
  return check_indices(v->user, s->store.buf, s->store.idx, s->store.n, "a store to");
}

static bool bounds_expr(MlcVisitor *v, const MlcExpr *x) {
  if (x->kind != MLC_EXPR_LOAD) return true;
  return check_indices(v->user, x->load.buf, x->load.idx, x->load.n, "a load from");
}

static bool check_const_bounds(CEmit *e, const MlcPrimFunc *f) {
  BoundsCheck bc = {e, "root"};
  MlcVisitor v = {.user = &bc, .expr = bounds_expr, .stmt = bounds_stmt, .block = bounds_block};
  mlc_visit_prim_func(&v, f);
  return !e->failed;
}

/* the kernel's params and symbolic sizes from the runtime's arrays, as
 * locals (pushed into scope when `scope`) */
static void emit_unpack(CEmit *e, const MlcPrimFunc *low, const Sig *sig, bool scope) {
  for (int i = 0; i < low->n_params; i++) {
    const MlcParam *p = &low->params[i];
    if (p->buf) {
      const char *ct = c_storage_type(mlc_dtype_elem(p->buf->dtype));
      const char *n = c_name(e, p->buf, p->buf->name);
      c_line(e, "%s *%s = (%s *)mlc_args[%d];", ct, n, ct, i);
      if (scope) mlc_vec_push(&e->scope_bufs, p->buf);
    } else {
      MlcDType t = p->var->dtype;
      const char *ct = c_scalar_type(t);
      /* the runtime passes floats as double: a bfloat16 one is rounded the
       * way a cast to bfloat16 is, through float */
      const char *round = t.code == MLC_TC_BFLOAT ? c_bf16_fn(e, C_BF16_ROUND) : NULL;
      if (mlc_dtype_is_minifloat(t)) {
        c_fail(e, "a scalar parameter of a minifloat dtype is not supported");
        return;
      }
      c_line(e, "%s %s = %s%s(%s)*(const %s *)mlc_args[%d]%s;", ct, c_name(e, p->var, p->var->var.name),
             round ? round : "", round ? "(" : "", ct, mlc_dtype_is_float(t) ? "double" : "int64_t", i,
             round ? ")" : "");
      if (scope) mlc_vec_push(&e->scope_vars, p->var);
    }
  }
  for (size_t k = 0; k < sig->syms.len; k++) {
    const MlcExpr *v = sig->syms.data[k];
    if (v->kind != MLC_EXPR_VAR) continue;
    const char *ct = c_scalar_type(v->dtype);
    c_line(e, "%s %s = (%s)mlc_syms[%zu];", ct, c_name(e, v, v->var.name), ct, k);
    if (scope) mlc_vec_push(&e->scope_vars, v);
  }
}

/* The parameter list of a kernel's body: its buffers (restrict when the
 * function promises they do not alias), scalar params, symbolic sizes and
 * the runtime env.  GCC takes restrict at its word only on parameters (a
 * restrict local initialised from mlc_args is not enough to vectorize
 * without alias checks), hence a body function of its own. */
static void body_params(CEmit *e, const MlcPrimFunc *low, const Sig *sig, MlcStrBuf *decl, MlcStrBuf *call) {
  mlc_sb_puts(decl, "const MlcrtEnv *env");
  mlc_sb_puts(call, "env");
  for (int i = 0; i < low->n_params; i++) {
    const MlcParam *p = &low->params[i];
    if (p->buf) {
      const char *n = c_name(e, p->buf, p->buf->name);
      mlc_sb_printf(decl, ", %s *restrict %s", c_storage_type(mlc_dtype_elem(p->buf->dtype)), n);
      mlc_sb_printf(call, ", %s", n);
    } else {
      const char *n = c_name(e, p->var, p->var->var.name);
      mlc_sb_printf(decl, ", %s %s", c_scalar_type(p->var->dtype), n);
      mlc_sb_printf(call, ", %s", n);
    }
  }
  for (size_t k = 0; k < sig->syms.len; k++) {
    const MlcExpr *v = sig->syms.data[k];
    if (v->kind != MLC_EXPR_VAR) continue; /* checked by the caller (emit_dim_checks) */
    const char *n = c_name(e, v, v->var.name);
    mlc_sb_printf(decl, ", %s %s", c_scalar_type(v->dtype), n);
    mlc_sb_printf(call, ", %s", n);
  }
}

/* A dim that is arithmetic on sizes (n * m) comes as a size of its own,
 * checked on entry against the expression over the sizes unpacked */
static void emit_dim_checks(CEmit *e, const Sig *sig) {
  for (size_t k = 0; k < sig->syms.len; k++) {
    const MlcExpr *v = sig->syms.data[k];
    if (v->kind == MLC_EXPR_VAR) continue;
    MlcStrBuf x = {0};
    c_expr(e, v, &x);
    c_line(e, "if (mlc_syms[%zu] != (int64_t)(%s)) {", k, mlc_sb_cstr(&x));
    c_line(e, "  env->set_error(\"a dimension is not %s\");", sym_name(e, v));
    c_line(e, "  return -1;");
    c_line(e, "}");
    mlc_vec_free(&x);
  }
}

/* A kernel is never inlined: a model's executor may call one kernel from
 * thousands of sites, and a copy at each would make the C compiler's work
 * explode. */
static void emit_kernel(CEmit *e, const MlcPrimFunc *orig, const MlcPrimFunc *low, const Sig *sig,
                        const char *kname) {
  const MlcAttrValue *na = mlc_attrs_get(orig->attrs, mlc_intern(e->ctx, "tir.noalias"));
  e->noalias = na && ((na->kind == MLC_ATTR_BOOL && na->b) || (na->kind == MLC_ATTR_INT && na->i));
  MlcStrBuf decl = {0}, call = {0};
  if (e->noalias) {
    body_params(e, low, sig, &decl, &call);
    c_line(e, "static int32_t %s_body(%s) {", kname, mlc_sb_cstr(&decl));
    e->indent = 1;
    for (int i = 0; i < low->n_params; i++)
      if (low->params[i].buf) mlc_vec_push(&e->scope_bufs, low->params[i].buf);
      else mlc_vec_push(&e->scope_vars, low->params[i].var);
    for (size_t k = 0; k < sig->syms.len; k++)
      if (sig->syms.data[k]->kind == MLC_EXPR_VAR) mlc_vec_push(&e->scope_vars, sig->syms.data[k]);
  } else {
    c_line(e, "__attribute__((noinline)) static int32_t %s(void *const *mlc_args, const int64_t *mlc_syms, "
              "const MlcrtEnv *env) {", kname);
    e->indent = 1;
    emit_unpack(e, low, sig, true);
  }
  if (!e->noalias) emit_dim_checks(e, sig);
  c_line(e, "int32_t mlc_status = 0;");
  CBody body;
  c_body_begin(e, &body);
  c_stmt(e, low->body);
  c_body_end(e, &body);
  if (!e->noalias) c_line(e, "(void)mlc_syms;");
  c_line(e, "(void)env;");
  c_line(e, "return mlc_status;");
  e->indent = 0;
  c_line(e, "}\n");
  if (e->noalias) {
    c_line(e, "__attribute__((noinline)) static int32_t %s(void *const *mlc_args, const int64_t *mlc_syms, "
              "const MlcrtEnv *env) {", kname);
    e->indent = 1;
    emit_unpack(e, low, sig, false);
    emit_dim_checks(e, sig);
    c_line(e, "(void)mlc_syms;");
    c_line(e, "return %s_body(%s);", kname, mlc_sb_cstr(&call));
    e->indent = 0;
    c_line(e, "}\n");
  }
  mlc_vec_free(&decl);
  mlc_vec_free(&call);
}

static void emit_desc(CEmit *e, MlcStrBuf *out, const MlcPrimFunc *f, const Sig *sig, const char *kname, int fi) {
  for (int i = 0; i < f->n_params; i++) {
    const MlcBuffer *b = f->params[i].buf;
    if (!b || b->ndim == 0) continue;
    mlc_sb_printf(out, "static const int64_t mlc_dims_%d_%d[] = {", fi, i);
    for (int d = 0; d < b->ndim; d++) {
      int64_t v = b->shape[d]->kind == MLC_EXPR_INT ? b->shape[d]->int_val : -(int64_t)sym_index(sig, b->shape[d]) - 1;
      mlc_sb_printf(out, "%s%lld", d ? ", " : "", (long long)v);
    }
    mlc_sb_puts(out, "};\n");
  }
  mlc_sb_printf(out, "static const mlc_param_desc mlc_params_%d[] = {\n", fi);
  for (int i = 0; i < f->n_params; i++) {
    const MlcParam *p = &f->params[i];
    if (p->buf) {
      MlcDType t = p->buf->dtype;
      mlc_sb_printf(out, "  {\"%s\", 1, {%d, %d, %d}, %d, ", p->buf->name, c_dl_code(t),
                    c_dl_bits(t), t.lanes, p->buf->ndim);
      if (p->buf->ndim) mlc_sb_printf(out, "mlc_dims_%d_%d", fi, i);
      else mlc_sb_puts(out, "NULL");
      mlc_sb_printf(out, ", %d},\n", p->buf->align);
    } else {
      bool fl = mlc_dtype_is_float(p->var->dtype);
      mlc_sb_printf(out, "  {\"%s\", 0, {%d, 64, 1}, 0, NULL, 0},\n", p->var->var.name, fl ? 2 : 0);
    }
  }
  if (f->n_params == 0) mlc_sb_puts(out, "  {NULL, 0, {0, 0, 0}, 0, NULL, 0},\n");
  mlc_sb_puts(out, "};\n");
  mlc_sb_printf(out, "static const char *const mlc_syms_%d[] = {", fi);
  for (size_t k = 0; k < sig->syms.len; k++) mlc_sb_printf(out, "%s\"%s\"", k ? ", " : "", sym_name(e, sig->syms.data[k]));
  if (sig->syms.len == 0) mlc_sb_puts(out, "NULL");
  mlc_sb_puts(out, "};\n");
  (void)kname;
}

bool c_emit_module(MlcCtx *ctx, const MlcModule *m, MlcStrBuf *out, CKernelVec *written) {
  return c_emit_module_with(ctx, m, out, written, NULL);
}

bool c_emit_module_with(MlcCtx *ctx, const MlcModule *m, MlcStrBuf *out, CKernelVec *written,
                        const CFuncWriter *writer) {
  MlcStrBuf helpers = {0}, closures = {0}, kernels = {0}, descs = {0}, table = {0};
  bool ok = true;
  int nf = 0;
  MlcMap kernel_names = {0}, helper_done = {0};
  for (int i = 0; ok && i < m->n_funcs; i++) {
    if (m->funcs[i].kind != MLC_FUNC_PRIM) continue;
    const MlcPrimFunc *orig = m->funcs[i].prim;
    CEmit e = {.ctx = ctx, .func = orig, .helpers = &helpers, .closures = &closures,
               .helper_done = &helper_done, .globals = &kernel_names};
    Sig sig = {0};
    MlcStrBuf body = {0};
    e.out = &body;
    const char *kname = NULL;
    if (writer && collect_sig(&e, orig, &sig)) {
      kname = kernel_cname(&e, orig, &kernel_names);
      ok = writer->write(&e, orig, kname, sig.syms.data, (int)sig.syms.len, writer->user);
    } else if (!writer && collect_sig(&e, orig, &sig) && check_const_bounds(&e, orig)) {
      MlcPrimFunc *low = mlc_lower_prim_func(ctx, orig, MLC_LOWER_STAGE_COUNT - 1, NULL, NULL);
      if (!low) {
        ok = false;
      } else {
        kname = kernel_cname(&e, orig, &kernel_names);
        emit_kernel(&e, orig, low, &sig, kname);
      }
    }
    ok = ok && !e.failed;
    if (ok) {
      mlc_sb_puts(&kernels, mlc_sb_cstr(&body));
      emit_desc(&e, &descs, orig, &sig, kname, nf);
      mlc_sb_printf(&table, "  {\"%s\", %d, mlc_params_%d, %zu, mlc_syms_%d, %s},\n", orig->name, orig->n_params, nf,
                    sig.syms.len, nf, kname);
      nf++;
      if (written) {
        const MlcExpr *const *syms = sig.syms.len ? mlc_vec_to_arena(&ctx->arena, &sig.syms) : NULL;
        mlc_vec_push(written, ((CKernel){orig, kname, syms, (int)sig.syms.len}));
      }
    }
    mlc_map_free(&e.names);
    mlc_map_free(&e.taken);
    mlc_vec_free(&e.scope_vars);
    mlc_vec_free(&e.scope_bufs);
    mlc_vec_free(&sig.syms);
    mlc_vec_free(&body);
  }
  if (ok) {
    mlc_sb_printf(out, "/* generated by mlcc from module %s */\n", m->name);
    mlc_sb_puts(out, PREAMBLE);
    if (writer && writer->prelude) mlc_sb_puts(out, writer->prelude);
    mlc_sb_puts(out, mlc_sb_cstr(&helpers));
    mlc_sb_puts(out, "\n");
    mlc_sb_puts(out, mlc_sb_cstr(&closures));
    mlc_sb_puts(out, mlc_sb_cstr(&kernels));
    mlc_sb_puts(out, mlc_sb_cstr(&descs));
    mlc_sb_printf(out, "\nstatic const mlc_func_desc mlc_funcs[] = {\n%s", mlc_sb_cstr(&table));
    if (nf == 0) mlc_sb_puts(out, "  {NULL, 0, NULL, 0, NULL, NULL},\n");
    mlc_sb_printf(out, "};\n\n__attribute__((visibility(\"default\")))\nconst mlc_module_desc mlcrt_module = {1u, %d, mlc_funcs};\n", nf);
  }
  mlc_map_free(&kernel_names);
  mlc_map_free(&helper_done);
  mlc_vec_free(&helpers);
  mlc_vec_free(&closures);
  mlc_vec_free(&kernels);
  mlc_vec_free(&descs);
  mlc_vec_free(&table);
  return ok;
}

bool mlc_codegen_c(MlcCtx *ctx, const MlcModule *m, MlcStrBuf *out) { return c_emit_module(ctx, m, out, NULL); }
