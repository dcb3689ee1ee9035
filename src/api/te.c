/* te.c - TIR expressions and tensor expressions through the stable C API:
 * the pieces te.placeholder / te.compute / te.reduce_axis / te.sum and
 * te.create_prim_func are made of.  Operators and intrinsics are looked up
 * in the IR's own tables (MLC_BINOPS, MLC_INTRINSICS) by their spellings. */
#include "api/api.h"
#include "mlcc/te.h"
#include "mlcc/text.h"

#include <strings.h>
#include <string.h>

#define MAX_DIMS 32

static MlccExpr *expr_out(MlccContext *c, MlcExpr *e) {
  if (!e) return api_fail(c), NULL;
  return (MlccExpr *)e;
}

MlccExpr *mlcc_expr_int(MlccContext *c, int64_t v, const char *dtype) {
  api_begin(c);
  MlcDType t;
  if (!api_dtype(c, dtype ? dtype : "int64", &t)) return NULL;
  if (!mlc_dtype_is_int(t) && t.code != MLC_TC_BOOL) return expr_out(c, mlc_e_float(c->ctx, t, (double)v));
  return expr_out(c, mlc_e_int(c->ctx, t, v));
}

MlccExpr *mlcc_expr_float(MlccContext *c, double v, const char *dtype) {
  api_begin(c);
  MlcDType t;
  if (!api_dtype(c, dtype ? dtype : "float32", &t)) return NULL;
  if (!mlc_dtype_is_float(t)) return api_failf(c, "a float constant of dtype %s", dtype), NULL;
  return expr_out(c, mlc_e_float(c->ctx, t, v));
}

MlccExpr *mlcc_expr_var(MlccContext *c, const char *name, const char *dtype) {
  api_begin(c);
  MlcDType t;
  if (!api_dtype(c, dtype ? dtype : "int64", &t)) return NULL;
  if (!name || !*name) return api_failf(c, "a var needs a name"), NULL;
  return expr_out(c, mlc_e_var(c->ctx, name, t));
}

/* an immediate re-made in dtype t (so `x * 2` works for a float32 x) */
static MlcExpr *coerce(MlcCtx *ctx, MlcExpr *e, MlcDType t) {
  if (mlc_dtype_eq(e->dtype, t) || t.lanes != 1) return e;
  if (e->kind == MLC_EXPR_INT) {
    if (mlc_dtype_is_float(t)) return mlc_e_float(ctx, t, (double)e->int_val);
    if (mlc_dtype_is_int(t)) return mlc_e_int(ctx, t, e->int_val);
  }
  if (e->kind == MLC_EXPR_FLOAT && mlc_dtype_is_float(t)) return mlc_e_float(ctx, t, e->float_val);
  return e;
}

static bool is_imm(const MlcExpr *e) { return e->kind == MLC_EXPR_INT || e->kind == MLC_EXPR_FLOAT; }

static int find_binop(const char *op) {
  if (strcmp(op, "/") == 0) return MLC_BIN_DIV;
  for (int i = 0; i < MLC_BIN_COUNT; i++) {
    const MlcBinOpInfo *in = &mlc_binop_info[i];
    if ((in->py && strcmp(op, in->py) == 0) || strcasecmp(op, in->call + 2) == 0) return i;
  }
  return -1;
}

MlccExpr *mlcc_expr_binary(MlccContext *c, const char *op, MlccExpr *a, MlccExpr *b) {
  api_begin(c);
  if (!a || !b) return api_failf(c, "a missing operand"), NULL;
  int k = op ? find_binop(op) : -1;
  if (k < 0) return api_failf(c, "unknown operator '%s'", op ? op : "(null)"), NULL;
  MlcExpr *x = API_EXPR(a), *y = API_EXPR(b);
  if (is_imm(x) && !is_imm(y)) x = coerce(c->ctx, x, y->dtype);
  else if (is_imm(y)) y = coerce(c->ctx, y, x->dtype);
  return expr_out(c, mlc_e_bin(c->ctx, (MlcBinOp)k, x, y));
}

MlccExpr *mlcc_expr_neg(MlccContext *c, MlccExpr *a) {
  api_begin(c);
  if (!a) return api_failf(c, "a missing operand"), NULL;
  return expr_out(c, mlc_e_neg(c->ctx, API_EXPR(a)));
}

MlccExpr *mlcc_expr_select(MlccContext *c, MlccExpr *cond, MlccExpr *t, MlccExpr *f) {
  api_begin(c);
  if (!cond || !t || !f) return api_failf(c, "a missing operand"), NULL;
  MlcExpr *x = API_EXPR(t), *y = API_EXPR(f);
  if (is_imm(x) && !is_imm(y)) x = coerce(c->ctx, x, y->dtype);
  else if (is_imm(y)) y = coerce(c->ctx, y, x->dtype);
  return expr_out(c, mlc_e_select(c->ctx, API_EXPR(cond), x, y));
}

MlccExpr *mlcc_expr_cast(MlccContext *c, const char *dtype, MlccExpr *a) {
  api_begin(c);
  MlcDType t;
  if (!api_dtype(c, dtype, &t)) return NULL;
  if (!a) return api_failf(c, "a missing operand"), NULL;
  return expr_out(c, mlc_e_cast(c->ctx, t, API_EXPR(a)));
}

MlccExpr *mlcc_expr_call(MlccContext *c, const char *name, MlccExpr *const *args, int n) {
  api_begin(c);
  int k = -1;
  for (int i = 0; name && i < MLC_INTRIN_COUNT; i++)
    if (strcmp(name, mlc_intrin_info[i].name + 2) == 0 || strcmp(name, mlc_intrin_info[i].name) == 0) k = i;
  if (k < 0) return api_failf(c, "unknown intrinsic '%s'", name ? name : "(null)"), NULL;
  if (n < 0 || n > 8) return api_failf(c, "%s: %d arguments", name, n), NULL;
  MlcExpr *as[8];
  for (int i = 0; i < n; i++) {
    if (!args[i]) return api_failf(c, "%s: a missing argument", name), NULL;
    as[i] = API_EXPR(args[i]);
  }
  return expr_out(c, mlc_e_call(c->ctx, (MlcIntrin)k, as, n));
}

const char *mlcc_expr_dtype(MlccContext *c, const MlccExpr *e) {
  char b[32];
  return mlc_intern(c->ctx, mlc_dtype_str(((const MlcExpr *)e)->dtype, b));
}

int mlcc_expr_int_value(const MlccExpr *e, int64_t *out) {
  const MlcExpr *x = (const MlcExpr *)e;
  if (x->kind != MLC_EXPR_INT) return 0;
  *out = x->int_val;
  return 1;
}

char *mlcc_expr_print(const MlccExpr *e) {
  MlcStrBuf sb = {0};
  mlc_print_expr((const MlcExpr *)e, &sb);
  return api_take(&sb);
}

/* ---- tensor expressions ------------------------------------------------------ */

static bool dims(MlccContext *c, MlccExpr *const *in, int n, MlcExpr **out, const char *what) {
  if (n < 0 || n > MAX_DIMS) return api_failf(c, "%s: %d dims (at most %d)", what, n, MAX_DIMS);
  for (int i = 0; i < n; i++) {
    if (!in || !in[i]) return api_failf(c, "%s: dim %d is missing", what, i);
    out[i] = API_EXPR(in[i]);
  }
  return true;
}

static MlccTensor *tensor_out(MlccContext *c, MlcTeTensor *t) {
  if (!t) return api_fail(c), NULL;
  return (MlccTensor *)t;
}

MlccExpr *mlcc_te_var(MlccContext *c, const char *name) {
  api_begin(c);
  return expr_out(c, mlc_te_var(c->ctx, name && *name ? name : "i"));
}

MlccTensor *mlcc_te_placeholder(MlccContext *c, const char *name, MlccExpr *const *shape, int ndim,
                                const char *dtype) {
  api_begin(c);
  MlcExpr *sh[MAX_DIMS];
  MlcDType t;
  if (!dims(c, shape, ndim, sh, "placeholder") || !api_dtype(c, dtype, &t)) return NULL;
  return tensor_out(c, mlc_te_placeholder(c->ctx, name && *name ? name : "A", sh, ndim, t));
}

MlccExpr *mlcc_te_read(MlccContext *c, const MlccTensor *t, MlccExpr *const *idx, int n) {
  api_begin(c);
  MlcExpr *ix[MAX_DIMS];
  if (!t || !dims(c, idx, n, ix, "tensor read")) return t ? NULL : (api_failf(c, "no tensor"), NULL);
  return expr_out(c, mlc_te_read(c->ctx, (const MlcTeTensor *)t, ix, n));
}

MlccTensor *mlcc_te_compute(MlccContext *c, const char *name, MlccExpr *const *shape, int ndim,
                            MlccExpr *const *axes, MlccExpr *body) {
  api_begin(c);
  MlcExpr *sh[MAX_DIMS], *ax[MAX_DIMS];
  if (!dims(c, shape, ndim, sh, "compute") || !dims(c, axes, ndim, ax, "compute")) return NULL;
  if (!body) return api_failf(c, "compute: no body"), NULL;
  return tensor_out(c, mlc_te_compute(c->ctx, name && *name ? name : "compute", sh, ndim, ax, API_EXPR(body)));
}

MlccTensor *mlcc_te_reduce(MlccContext *c, const char *name, MlccExpr *const *shape, int ndim,
                           MlccExpr *const *axes, const char *reduce, MlccExpr *body,
                           MlccExpr *const *raxes, MlccExpr *const *rextents, int n_raxes) {
  api_begin(c);
  static const struct { const char *name; MlcTeReduce op; } ops[] = {
      {"sum", MLC_TE_SUM}, {"max", MLC_TE_MAX}, {"min", MLC_TE_MIN}};
  int k = -1;
  for (int i = 0; reduce && i < 3; i++)
    if (strcmp(reduce, ops[i].name) == 0) k = i;
  if (k < 0) return api_failf(c, "unknown reduction '%s' (sum, max or min)", reduce ? reduce : "(null)"), NULL;
  MlcExpr *sh[MAX_DIMS], *ax[MAX_DIMS], *ra[MAX_DIMS], *re[MAX_DIMS];
  if (!dims(c, shape, ndim, sh, "compute") || !dims(c, axes, ndim, ax, "compute") ||
      !dims(c, raxes, n_raxes, ra, "reduce axes") || !dims(c, rextents, n_raxes, re, "reduce axes"))
    return NULL;
  if (!body) return api_failf(c, "compute: no body"), NULL;
  return tensor_out(c, mlc_te_reduce(c->ctx, name && *name ? name : "compute", sh, ndim, ax, ops[k].op,
                                     API_EXPR(body), ra, re, n_raxes));
}

int mlcc_te_ndim(const MlccTensor *t) { return ((const MlcTeTensor *)t)->ndim; }

MlccExpr *mlcc_te_dim(const MlccTensor *t, int i) {
  const MlcTeTensor *x = (const MlcTeTensor *)t;
  return i >= 0 && i < x->ndim ? (MlccExpr *)x->shape[i] : NULL;
}

const char *mlcc_te_dtype(MlccContext *c, const MlccTensor *t) {
  char b[32];
  return mlc_intern(c->ctx, mlc_dtype_str(((const MlcTeTensor *)t)->dtype, b));
}

const char *mlcc_te_name(const MlccTensor *t) { return ((const MlcTeTensor *)t)->name; }

MlccModule *mlcc_te_create_prim_func(MlccContext *c, const char *name, MlccTensor *const *params, int n) {
  api_begin(c);
  if (n <= 0 || !params) return api_failf(c, "create_prim_func: no params"), NULL;
  MlcTeTensor **ps = mlc_arena_array(&c->ctx->arena, (size_t)n, sizeof *ps);
  for (int i = 0; i < n; i++) {
    if (!params[i]) return api_failf(c, "create_prim_func: param %d is missing", i), NULL;
    ps[i] = (MlcTeTensor *)params[i];
  }
  const char *fname = name && *name ? name : "main";
  MlcPrimFunc *f = mlc_te_to_prim_func(c->ctx, fname, ps, n);
  if (!f) return api_fail(c), NULL;
  MlcFunc fn = {.kind = MLC_FUNC_PRIM, .name = mlc_intern(c->ctx, fname), .prim = f};
  MlcModule *m = mlc_module_new(c->ctx, "Module", &fn, 1, (MlcAttrs){0});
  if (!m) return api_fail(c), NULL;
  return (MlccModule *)m;
}
