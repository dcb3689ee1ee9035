/* c_extern.c - calls out of a tensor program in C: T.call_extern and the
 * element addresses (T.address_of, `A.access_ptr(...)`) handed to them.
 *
 * The function is the user's (built in with `mlcc build --link FILE`), so
 * the generated file declares it, once, from the call as written: the
 * call's dtype is the return type, an address argument is a pointer to its
 * buffer's element type, any other argument its scalar C type.  A second
 * call with other types would contradict the first declaration, which C
 * rejects, so the generator refuses it first with a message naming both.
 * T.call_packed reaches the runtime's registry of DLTensor functions, which
 * C kernels have no tensors to hand to: the C target refuses it by name. */
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
    c_fail(e, "T.call_packed(\"%s\", ...) is not supported by the C target (its functions take DLTensors); "
              "use T.call_extern for a C function", name);
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
