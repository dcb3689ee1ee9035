/* c_extern.c - calls out of a tensor program in C: T.call_extern and the
 * element addresses (T.address_of, `A.access_ptr(...)`) handed to them.
 *
 * The function is the user's (built in with `mlcc build --link FILE`), so
 * the generated file declares it, once, from the call as written: the
 * call's dtype is the return type, an address argument is a pointer to its
 * buffer's element type, any other argument its scalar C type.  A second
 * call with other types would contradict the first declaration, which C
 * rejects, so the generator refuses it first with a message naming both.
 * T.call_packed reaches the runtime's registry of extern functions, whose
 * arguments are DLTensors: each argument must be a whole parameter buffer
 * (`A.access_ptr("r")`), described by the parameter's shape; the function
 * is looked up through the kernel environment at the call, and its failure
 * fails the kernel with its message. */
#include "c_emit.h"

#include <ctype.h>
#include <string.h>

static bool c_identifier(const char *s) {
  if (!*s || isdigit((unsigned char)*s)) return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return false;
  return true;
}

/* "float *" for an address of a float buffer, else the scalar type */
static const char *arg_type(CEmit *e, const MlcExpr *a) {
  if (a->kind == MLC_EXPR_CALL && a->call.op == MLC_INTRIN_ADDRESS_OF) {
    const char *t = c_storage_type(mlc_dtype_elem(a->call.args[0]->load.buf->dtype));
    return t ? mlc_internf(e->ctx, "%s *", t) : NULL;
  }
  if (a->dtype.code == MLC_TC_HANDLE) return "void *";
  return c_scalar_type(a->dtype);
}

static const char *declaration(CEmit *e, const MlcExpr *x) {
  const char *ret = x->dtype.code == MLC_TC_VOID ? "void" : x->dtype.code == MLC_TC_HANDLE ? "void *" : c_scalar_type(x->dtype);
  if (!ret) return NULL;
  MlcStrBuf sb = {0};
  mlc_sb_printf(&sb, "extern %s %s(", ret, x->call.args[0]->str_val);
  for (int i = 1; i < x->call.n; i++) {
    const char *t = arg_type(e, x->call.args[i]);
    if (!t) {
      mlc_vec_free(&sb);
      return NULL;
    }
    mlc_sb_printf(&sb, "%s%s", i > 1 ? ", " : "", t);
  }
  mlc_sb_puts(&sb, x->call.n == 1 ? "void);\n" : ");\n");
  const char *d = mlc_intern(e->ctx, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return d;
}

/* the parameter an address argument of T.call_packed stands for, whole:
 * the address of its first element (flattening keeps a buffer's name) */
static const MlcBuffer *whole_param(CEmit *e, const MlcExpr *a) {
  if (a->kind != MLC_EXPR_CALL || a->call.op != MLC_INTRIN_ADDRESS_OF) return NULL;
  const MlcExpr *ld = a->call.args[0];
  int64_t k;
  for (int i = 0; i < ld->load.n; i++)
    if (!mlc_e_is_const_int(ld->load.idx[i], &k) || k != 0) return NULL;
  for (int i = 0; i < e->func->n_params; i++) {
    const MlcBuffer *b = e->func->params[i].buf;
    if (b && b->name == ld->load.buf->name) return b;
  }
  return NULL;
}

static const char PACKED_TYPES[] =
    "/* the runtime's extern functions (T.call_packed): DLTensors in, a status out */\n"
    "typedef struct { void *data; struct { int32_t device_type, device_id; } device; int32_t ndim; mlc_dtype dtype;\n"
    "                 int64_t *shape; int64_t *strides; uint64_t byte_offset; } mlc_packed_tensor;\n"
    "struct mlc_packed_fn { const char *name; int32_t (*fn)(mlc_packed_tensor *const *, int32_t, const MlcrtEnv *); };\n";

/* A GNU statement expression: the function looked up, the tensors made,
 * the call; a missing function or a failing call jumps to the kernel's exit
 * with the status set (the message is the runtime's or the function's). */
static void packed_call(CEmit *e, const MlcExpr *x, MlcStrBuf *sb) {
  const char *name = x->call.args[0]->str_val;
  for (const char *p = name; *p; p++)
    if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20) {
      c_fail(e, "T.call_packed: the name '%s' has a quote or a control character", name);
      return;
    }
  if (x->dtype.code != MLC_TC_INT || x->dtype.bits != 32) {
    c_fail(e, "T.call_packed(\"%s\", ...) returns the function's int32 status; give it dtype int32", name);
    return;
  }
  const char *key = mlc_intern(e->ctx, "mlc_packed_types");
  if (!mlc_map_has(e->helper_done, key)) {
    mlc_map_put(e->helper_done, key, (void *)key);
    mlc_sb_puts(e->helpers, PACKED_TYPES);
  }
  int id = e->n_tmps++, n = x->call.n - 1;
  const char *exit = c_exit_jump(e);
  mlc_sb_printf(sb, "({ struct mlc_packed_fn mlc_pf%d; int32_t mlc_pr%d = 0;", id, id);
  mlc_sb_printf(sb, " if (env->version < 2 || env->get_extern(\"%s\", (struct MlcrtExtern *)&mlc_pf%d) != 0) "
                    "{ mlc_status = -1; goto %s; }", name, id, exit);
  for (int i = 0; i < n; i++) {
    const MlcBuffer *b = whole_param(e, x->call.args[i + 1]);
    if (!b) {
      c_fail(e, "T.call_packed(\"%s\", ...): argument %d must be a whole parameter buffer (B.access_ptr(...))",
             name, i + 1);
      return;
    }
    mlc_sb_printf(sb, " int64_t mlc_ps%d_%d[] = {", id, i);
    for (int d = 0; d < b->ndim; d++) {
      if (d) mlc_sb_puts(sb, ", ");
      mlc_sb_puts(sb, "(int64_t)(");
      c_expr(e, b->shape[d], sb);
      mlc_sb_puts(sb, ")");
    }
    mlc_sb_printf(sb, "%s}; mlc_packed_tensor mlc_pt%d_%d = {(void *)", b->ndim ? "" : "0", id, i);
    c_expr(e, x->call.args[i + 1], sb);
    mlc_sb_printf(sb, ", {1, 0}, %d, {%d, %d, %d}, mlc_ps%d_%d, NULL, 0};", b->ndim, c_dl_code(b->dtype),
                  c_dl_bits(b->dtype), b->dtype.lanes, id, i);
  }
  mlc_sb_printf(sb, " mlc_pr%d = mlc_pf%d.fn((mlc_packed_tensor *const[]){", id, id);
  for (int i = 0; i < n; i++) mlc_sb_printf(sb, "%s&mlc_pt%d_%d", i ? ", " : "", id, i);
  mlc_sb_printf(sb, "%s}, %d, env); if (mlc_pr%d != 0) { mlc_status = mlc_pr%d; goto %s; } mlc_pr%d; })",
                n ? "" : "NULL", n, id, id, exit, id);
}

void c_extern_call(CEmit *e, const MlcExpr *x, MlcStrBuf *sb) {
  if (x->call.op == MLC_INTRIN_ADDRESS_OF) {
    const MlcExpr *ld = x->call.args[0];
    if (ld->load.n != 1) {
      c_fail(e, "T.address_of of '%s' was not flattened", ld->load.buf->name);
      return;
    }
    mlc_sb_printf(sb, "(&%s[", c_name(e, ld->load.buf, ld->load.buf->name));
    c_expr(e, ld->load.idx[0], sb);
    mlc_sb_puts(sb, "])");
    return;
  }
  const char *name = x->call.args[0]->str_val;
  if (x->call.op == MLC_INTRIN_CALL_PACKED) {
    packed_call(e, x, sb);
    return;
  }
  if (!c_identifier(name) || !strncmp(name, "mlc_", 4)) {
    c_fail(e, "T.call_extern: '%s' is not a C function name the generated code can declare", name);
    return;
  }
  const char *decl = declaration(e, x);
  if (!decl) {
    c_fail(e, "T.call_extern(\"%s\", ...): an argument or the result has no C type", name);
    return;
  }
  const char *key = mlc_internf(e->ctx, "extern %s", name);
  const char *had = mlc_map_get(e->helper_done, key);
  if (!had) {
    mlc_map_put(e->helper_done, key, (void *)decl);
    mlc_sb_puts(e->helpers, decl);
  } else if (had != decl) {
    c_fail(e, "T.call_extern(\"%s\", ...) is called with other types than before: %.*s vs %.*s", name,
           (int)strlen(had) - 2, had, (int)strlen(decl) - 2, decl);
    return;
  }
  mlc_sb_printf(sb, "%s(", name);
  for (int i = 1; i < x->call.n; i++) {
    if (i > 1) mlc_sb_puts(sb, ", ");
    c_expr(e, x->call.args[i], sb);
  }
  mlc_sb_puts(sb, ")");
}
