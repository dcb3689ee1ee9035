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
    "struct MlcrtExtern;\n"
    "typedef struct MlcrtEnv {\n"
    "  uint32_t version;\n"
    "  int32_t (*parallel_for)(int64_t n, int32_t (*body)(int64_t, int64_t, void *), void *closure);\n"
    "  void *(*workspace_alloc)(size_t nbytes, size_t align);\n"
    "  void (*workspace_free)(void *p);\n"
    "  void (*set_error)(const char *msg);\n"
    "  int32_t (*get_extern)(const char *name, struct MlcrtExtern *out); /* version >= 2 */\n"
    "  void (*profile)(void *profile_data, int32_t site, int32_t end); /* version >= 3 */\n"
    "  void *profile_data;\n"
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
    for (int d = 0; d < b->ndim; d++) {
      const MlcExpr *dim = b->shape[d];
      if (dim->kind == MLC_EXPR_VAR) {
        if (sym_index(sig, dim) < 0) mlc_vec_push(&sig->syms, dim);
      } else if (dim->kind != MLC_EXPR_INT) {
        return c_fail(e, "dimension %d of buffer '%s' is an expression; the runtime binds only plain size vars", d,
                      b->name);
      }
    }
  }
  return true;
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

static void emit_kernel(CEmit *e, const MlcPrimFunc *orig, const MlcPrimFunc *low, const Sig *sig,
                        const char *kname) {
  const MlcAttrValue *na = mlc_attrs_get(orig->attrs, mlc_intern(e->ctx, "tir.noalias"));
  e->noalias = na && ((na->kind == MLC_ATTR_BOOL && na->b) || (na->kind == MLC_ATTR_INT && na->i));
  /* never inlined: a model's executor may call one kernel from thousands of
   * sites, and a copy at each would make the C compiler's work explode */
  c_line(e, "__attribute__((noinline)) static int32_t %s(void *const *mlc_args, const int64_t *mlc_syms, "
            "const MlcrtEnv *env) {", kname);
  e->indent = 1;
  for (int i = 0; i < low->n_params; i++) {
    const MlcParam *p = &low->params[i];
    if (p->buf) {
      const char *ct = c_storage_type(mlc_dtype_elem(p->buf->dtype));
      const char *n = c_name(e, p->buf, p->buf->name);
      c_line(e, "%s *%s%s = (%s *)mlc_args[%d];", ct, e->noalias ? "restrict " : "", n, ct, i);
      mlc_vec_push(&e->scope_bufs, p->buf);
    } else {
      MlcDType t = p->var->dtype;
      const char *ct = c_scalar_type(t);
      /* the runtime passes floats as double: a bfloat16 one is rounded the
       * way a cast to bfloat16 is, through float */
      const char *round = t.code == MLC_TC_BFLOAT ? c_bf16_fn(e, C_BF16_ROUND) : NULL;
      c_line(e, "%s %s = %s%s(%s)*(const %s *)mlc_args[%d]%s;", ct, c_name(e, p->var, p->var->var.name),
             round ? round : "", round ? "(" : "", ct, mlc_dtype_is_float(t) ? "double" : "int64_t", i,
             round ? ")" : "");
      mlc_vec_push(&e->scope_vars, p->var);
    }
  }
  for (size_t k = 0; k < sig->syms.len; k++) {
    const MlcExpr *v = sig->syms.data[k];
    const char *ct = c_scalar_type(v->dtype);
    c_line(e, "%s %s = (%s)mlc_syms[%zu];", ct, c_name(e, v, v->var.name), ct, k);
    mlc_vec_push(&e->scope_vars, v);
  }
  c_line(e, "int32_t mlc_status = 0;");
  CBody body;
  c_body_begin(e, &body);
  c_stmt(e, low->body);
  c_body_end(e, &body);
  c_line(e, "(void)mlc_syms;");
  c_line(e, "(void)env;");
  c_line(e, "return mlc_status;");
  e->indent = 0;
  c_line(e, "}\n");
}

static void emit_desc(MlcStrBuf *out, const MlcPrimFunc *f, const Sig *sig, const char *kname, int fi) {
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
  for (size_t k = 0; k < sig->syms.len; k++) mlc_sb_printf(out, "%s\"%s\"", k ? ", " : "", sig->syms.data[k]->var.name);
  if (sig->syms.len == 0) mlc_sb_puts(out, "NULL");
  mlc_sb_puts(out, "};\n");
  (void)kname;
}

bool c_emit_module(MlcCtx *ctx, const MlcModule *m, MlcStrBuf *out, CKernelVec *written) {
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
    if (collect_sig(&e, orig, &sig) && check_const_bounds(&e, orig)) {
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
      emit_desc(&descs, orig, &sig, kname, nf);
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
