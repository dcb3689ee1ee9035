/* common.c - what every op family shares: located errors, reading matched
 * arguments (tensor struct info, attribute values), shape arithmetic with
 * symbolic dims, and the small TE building blocks of broadcasting.
 *
 * Attribute readers accept every spelling matching can produce (a keyword's
 * value, or a positional shape / prim value / dtype / string normalized by
 * registry.c), and treat an explicit None like an absent attribute, as the
 * field's Python signatures do. */
#include <stdio.h>
#include <string.h>

#include "ops/op_internal.h"

bool mlc_op_fail(MlcCtx *ctx, const MlcOpArgs *a, const char *fmt, ...) {
  MlcStrBuf sb = {0};
  va_list ap;
  va_start(ap, fmt);
  mlc_sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  mlc_error(ctx, ctx->build_loc, "%s: %s", a && a->op ? a->op->name : "op", mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return false;
}

int mlc_op_param(const MlcOpArgs *a, const char *name) {
  MlcOpParam ps[MLC_OP_MAX_PARAMS];
  int n = mlc_op_sig_parse(a->op, ps);
  for (int i = 0; i < n; i++)
    if (strcmp(ps[i].name, name) == 0) return i;
  return -1;
}

/* the name of parameter i, for messages */
static const char *param_name(MlcCtx *ctx, const MlcOpArgs *a, int i) {
  MlcOpParam ps[MLC_OP_MAX_PARAMS];
  int n = mlc_op_sig_parse(a->op, ps);
  return i >= 0 && i < n ? mlc_intern(ctx, ps[i].name) : "?";
}

const MlcSInfo *mlc_op_tensor(MlcCtx *ctx, const MlcOpArgs *a, int i, bool need_dtype) {
  const MlcSInfo *s = i >= 0 && i < a->n && a->val[i] ? a->val[i]->sinfo : NULL;
  if (!s || s->kind != MLC_SINFO_TENSOR)
    return mlc_op_fail(ctx, a, "%s: expected a tensor", param_name(ctx, a, i)), NULL;
  if (s->tensor.ndim < 0)
    return mlc_op_fail(ctx, a, "%s: expected a tensor of known rank", param_name(ctx, a, i)), NULL;
  if (need_dtype && s->tensor.dtype.code == MLC_TC_VOID)
    return mlc_op_fail(ctx, a, "%s: expected a tensor of known dtype", param_name(ctx, a, i)), NULL;
  return s;
}

/* ---- attributes --------------------------------------------------------------- */

/* the attribute named name, NULL when absent or None */
static const MlcAttrValue *attr_of(const MlcOpArgs *a, const char *name) {
  int i = mlc_op_param(a, name);
  const MlcAttrValue *v = i >= 0 ? a->attr[i] : NULL;
  return v && v->kind != MLC_ATTR_NONE ? v : NULL;
}

static bool as_int(const MlcAttrValue *v, int64_t *out) {
  if (v->kind == MLC_ATTR_INT) return *out = v->i, true;
  return v->kind == MLC_ATTR_EXPR && mlc_dtype_is_int(v->expr->dtype) && mlc_e_is_const_int(v->expr, out);
}

bool mlc_op_attr_int(MlcCtx *ctx, const MlcOpArgs *a, const char *name, int64_t dflt, int64_t *out) {
  const MlcAttrValue *v = attr_of(a, name);
  *out = dflt;
  if (!v) return true;
  if (v->kind == MLC_ATTR_LIST && v->list.n == 1 && as_int(&v->list.items[0], out)) return true;
  return as_int(v, out) || mlc_op_fail(ctx, a, "%s: expected an integer", name);
}

bool mlc_op_attr_float(MlcCtx *ctx, const MlcOpArgs *a, const char *name, double dflt, double *out) {
  const MlcAttrValue *v = attr_of(a, name);
  int64_t i;
  *out = dflt;
  if (!v) return true;
  if (v->kind == MLC_ATTR_FLOAT) return *out = v->f, true;
  if (v->kind == MLC_ATTR_EXPR && v->expr->kind == MLC_EXPR_FLOAT) return *out = v->expr->float_val, true;
  if (as_int(v, &i)) return *out = (double)i, true;
  if (v->kind == MLC_ATTR_BOOL) return *out = v->b, true;
  return mlc_op_fail(ctx, a, "%s: expected a number", name);
}

bool mlc_op_attr_bool(MlcCtx *ctx, const MlcOpArgs *a, const char *name, bool dflt, bool *out) {
  const MlcAttrValue *v = attr_of(a, name);
  int64_t i;
  *out = dflt;
  if (!v) return true;
  if (v->kind == MLC_ATTR_BOOL) return *out = v->b, true;
  if (as_int(v, &i) && (i == 0 || i == 1)) return *out = i == 1, true;
  return mlc_op_fail(ctx, a, "%s: expected True or False", name);
}

bool mlc_op_attr_str(MlcCtx *ctx, const MlcOpArgs *a, const char *name, const char *dflt,
                     const char **out) {
  const MlcAttrValue *v = attr_of(a, name);
  *out = dflt;
  if (!v) return true;
  if (v->kind == MLC_ATTR_STR) return *out = v->s, true;
  return mlc_op_fail(ctx, a, "%s: expected a string", name);
}

bool mlc_op_attr_dtype(MlcCtx *ctx, const MlcOpArgs *a, const char *name, MlcDType *out,
                       bool *present) {
  const MlcAttrValue *v = attr_of(a, name);
  *present = v != NULL;
  if (!v) return true;
  if (v->kind == MLC_ATTR_DTYPE) return *out = v->dtype, true;
  if (v->kind == MLC_ATTR_STR && mlc_dtype_parse(v->s, out) && out->code != MLC_TC_HANDLE &&
      out->lanes == 1)
    return true;
  return mlc_op_fail(ctx, a, "%s: expected a dtype such as \"float32\"", name);
}

bool mlc_op_attr_ints(MlcCtx *ctx, const MlcOpArgs *a, const char *name, int64_t *out, int cap,
                      int *n, bool *present) {
  const MlcAttrValue *v = attr_of(a, name);
  *n = 0;
  *present = v != NULL;
  if (!v) return true;
  if (v->kind != MLC_ATTR_LIST) {
    if (!as_int(v, &out[0])) return mlc_op_fail(ctx, a, "%s: expected an integer or a list of integers", name);
    *n = 1;
    return true;
  }
  /* a negative count is a malformed value from a frontend, never read as a size */
  if (v->list.n < 0) return mlc_op_fail(ctx, a, "%s: malformed list of %d values", name, v->list.n);
  if (v->list.n > cap) return mlc_op_fail(ctx, a, "%s: at most %d values, got %d", name, cap, v->list.n);
  for (int i = 0; i < v->list.n; i++)
    if (!as_int(&v->list.items[i], &out[i]))
      return mlc_op_fail(ctx, a, "%s: expected a list of integers", name);
  *n = v->list.n;
  return true;
}

/* one dim of a shape attribute as an int64 expr */
MlcExpr *mlc_op_shape_dim(MlcCtx *ctx, const MlcAttrValue *v) {
  if (v->kind == MLC_ATTR_INT) return v->i >= 0 ? mlc_op_i64(ctx, v->i) : NULL;
  if (v->kind != MLC_ATTR_EXPR || !mlc_dtype_is_int(v->expr->dtype) || v->expr->dtype.lanes != 1)
    return NULL;
  int64_t c;
  if (mlc_e_is_const_int(v->expr, &c)) return c >= 0 ? mlc_op_i64(ctx, c) : NULL;
  return v->expr->dtype.bits == 64 ? v->expr : mlc_e_cast(ctx, MLC_I64, v->expr);
}

bool mlc_op_attr_shape(MlcCtx *ctx, const MlcOpArgs *a, const char *name, MlcExpr ***out, int *n) {
  const MlcAttrValue *v = attr_of(a, name);
  if (!v) return mlc_op_fail(ctx, a, "%s: expected a shape", name);
  const MlcAttrValue *items = v->kind == MLC_ATTR_LIST ? v->list.items : v;
  int len = v->kind == MLC_ATTR_LIST ? v->list.n : 1;
  MlcExpr **dims = mlc_arena_array(&ctx->arena, (size_t)(len ? len : 1), sizeof *dims);
  for (int i = 0; i < len; i++)
    if (!(dims[i] = mlc_op_shape_dim(ctx, &items[i])))
      return mlc_op_fail(ctx, a, "%s: expected a shape of non-negative integers or int64 dims", name);
  *out = dims;
  *n = len;
  return true;
}

bool mlc_op_axis(MlcCtx *ctx, const MlcOpArgs *a, int64_t axis, int ndim, int *out) {
  if (axis < -(int64_t)ndim || axis >= ndim)
    return mlc_op_fail(ctx, a, "axis %lld is out of range for a tensor of rank %d", (long long)axis, ndim);
  *out = (int)(axis < 0 ? axis + ndim : axis);
  return true;
}

/* ---- shape arithmetic --------------------------------------------------------- */

MlcExpr *mlc_op_i64(MlcCtx *ctx, int64_t v) { return mlc_e_int(ctx, MLC_I64, v); }

bool mlc_op_dim_equal(const MlcExpr *a, const MlcExpr *b) {
  int64_t x, y;
  if (mlc_e_is_const_int(a, &x) && mlc_e_is_const_int(b, &y)) return x == y;
  return mlc_expr_same(a, b);
}

static void put_dim(MlcStrBuf *sb, const MlcExpr *e) {
  switch (e->kind) {
  case MLC_EXPR_INT: mlc_sb_printf(sb, "%lld", (long long)e->int_val); return;
  case MLC_EXPR_VAR: mlc_sb_puts(sb, e->var.name); return;
  case MLC_EXPR_CAST: put_dim(sb, e->operand); return;
  case MLC_EXPR_BINARY: {
    const MlcBinOpInfo *info = &mlc_binop_info[e->bin.op];
    if (info->py) {
      mlc_sb_putc(sb, '(');
      put_dim(sb, e->bin.a);
      mlc_sb_printf(sb, " %s ", info->py);
      put_dim(sb, e->bin.b);
      mlc_sb_putc(sb, ')');
      return;
    }
    mlc_sb_printf(sb, "%s(", info->call);
    put_dim(sb, e->bin.a);
    mlc_sb_puts(sb, ", ");
    put_dim(sb, e->bin.b);
    mlc_sb_putc(sb, ')');
    return;
  }
  default: mlc_sb_puts(sb, "?"); return;
  }
}

static const char *sb_to_arena(MlcCtx *ctx, MlcStrBuf *sb) {
  const char *s = mlc_arena_strndup(&ctx->arena, mlc_sb_cstr(sb), sb->len);
  mlc_vec_free(sb);
  return s;
}

static const char *dim_str(MlcCtx *ctx, const MlcExpr *e) {
  MlcStrBuf sb = {0};
  put_dim(&sb, e);
  return sb_to_arena(ctx, &sb);
}

const char *mlc_op_shape_str(MlcCtx *ctx, MlcExpr **shape, int n) {
  MlcStrBuf sb = {0};
  mlc_sb_putc(&sb, '(');
  for (int i = 0; i < n; i++) {
    if (i) mlc_sb_puts(&sb, ", ");
    put_dim(&sb, shape[i]);
  }
  mlc_sb_puts(&sb, n == 1 ? ",)" : ")");
  return sb_to_arena(ctx, &sb);
}

static bool is_one(const MlcExpr *e) {
  int64_t v;
  return mlc_e_is_const_int(e, &v) && v == 1;
}

bool mlc_op_broadcast_shapes(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr **s1, int n1, MlcExpr **s2,
                             int n2, MlcExpr ***out, int *n_out) {
  int n = n1 > n2 ? n1 : n2;
  MlcExpr **r = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *r);
  for (int i = 0; i < n; i++) {
    MlcExpr *d1 = i < n - n1 ? NULL : s1[i - (n - n1)];
    MlcExpr *d2 = i < n - n2 ? NULL : s2[i - (n - n2)];
    if (!d1 || is_one(d1)) r[i] = d2 ? d2 : d1;
    else if (!d2 || is_one(d2) || mlc_op_dim_equal(d1, d2)) r[i] = d1;
    else {
      bool consts = mlc_e_is_const_int(d1, NULL) && mlc_e_is_const_int(d2, NULL);
      return mlc_op_fail(ctx, a, "shapes %s and %s do not broadcast: dims %s and %s %s",
                         mlc_op_shape_str(ctx, s1, n1), mlc_op_shape_str(ctx, s2, n2),
                         dim_str(ctx, d1), dim_str(ctx, d2),
                         consts ? "differ"
                                : "are not provably equal (broadcasting dims known to match only at "
                                  "run time is not supported)");
    }
  }
  *out = r;
  *n_out = n;
  return true;
}

MlcSInfo *mlc_op_tensor_sinfo(MlcCtx *ctx, MlcExpr **shape, int n, MlcDType dtype) {
  return mlc_sinfo_tensor(ctx, shape, n, dtype);
}

/* ---- TE helpers ------------------------------------------------------------------ */

void mlc_op_axes(MlcCtx *ctx, int ndim, MlcExpr **out) {
  for (int i = 0; i < ndim; i++) out[i] = mlc_te_var(ctx, mlc_internf(ctx, "ax%d", i));
}

MlcExpr *mlc_op_read_broadcast(MlcCtx *ctx, const MlcTeTensor *x, MlcExpr **out_idx, int out_ndim) {
  int nd = x->ndim;
  MlcExpr **idx = mlc_arena_array(&ctx->arena, (size_t)(nd ? nd : 1), sizeof *idx);
  for (int k = 0; k < nd; k++)
    idx[k] = is_one(x->shape[k]) ? mlc_op_i64(ctx, 0) : out_idx[out_ndim - nd + k];
  return mlc_te_read(ctx, x, idx, nd);
}

MlcExpr *mlc_op_const(MlcCtx *ctx, MlcDType t, double v) {
  if (mlc_dtype_is_float(t)) return mlc_e_float(ctx, t, v);
  if (t.code == MLC_TC_BOOL) return mlc_e_int(ctx, t, v != 0);
  return mlc_e_int(ctx, t, mlc_f64_to_i64(v));
}

/* the broadcast of two tensors' shapes as a tensor of dtype t; unknown dims
 * on either side leave the result's dims unknown */
MlcSInfo *mlc_op_broadcast_sinfo(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, const MlcSInfo *y,
                                MlcDType t) {
  int nx = x->tensor.ndim, ny = y->tensor.ndim;
  if (!x->tensor.shape || !y->tensor.shape) return mlc_op_tensor_sinfo(ctx, NULL, nx > ny ? nx : ny, t);
  MlcExpr **shape;
  int n;
  if (!mlc_op_broadcast_shapes(ctx, a, x->tensor.shape, nx, y->tensor.shape, ny, &shape, &n)) return NULL;
  return mlc_op_tensor_sinfo(ctx, shape, n, t);
}

/* ---- helpers the op files share ------------------------------------------------ */

const char *mlc_op_sinfo_str(MlcCtx *ctx, const MlcSInfo *s) {
  return s->tensor.shape ? mlc_op_shape_str(ctx, s->tensor.shape, s->tensor.ndim) : "(unknown)";
}

MlcExpr *mlc_op_cast(MlcCtx *ctx, MlcDType t, MlcExpr *e) {
  return e && !mlc_dtype_eq(e->dtype, t) ? mlc_e_cast(ctx, t, e) : e;
}

MlcExpr *mlc_op_select(MlcCtx *ctx, MlcExpr *c, MlcExpr *t, MlcExpr *f) {
  MlcExpr *args[3] = {c, t, f};
  return mlc_e_call(ctx, MLC_INTRIN_IF_THEN_ELSE, args, 3);
}

const MlcSInfo *mlc_op_rank4(MlcCtx *ctx, const MlcOpArgs *a, int i, const char *what) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, i, false);
  if (x && x->tensor.ndim != 4) return mlc_op_fail(ctx, a, "%s must be 4-D, got %s", what, mlc_op_sinfo_str(ctx, x)), NULL;
  return x;
}

bool mlc_op_need_layout(MlcCtx *ctx, const MlcOpArgs *a, const char *name, const char *want) {
  const char *s;
  if (mlc_op_param(a, name) < 0) return true;
  if (!mlc_op_attr_str(ctx, a, name, want, &s)) return false;
  return strcmp(s, want) == 0 || mlc_op_fail(ctx, a, "only %s is supported for %s, got \"%s\"", want, name, s);
}

bool mlc_op_attr_ints_n(MlcCtx *ctx, const MlcOpArgs *a, const char *name, int want, int64_t dflt, int64_t lo,
                        int64_t *out) {
  int64_t v[8];
  int n;
  bool present;
  if (want < 1 || want > 8) return mlc_op_fail(ctx, a, "%s: %d values are more than an op takes", name, want);
  if (!mlc_op_attr_ints(ctx, a, name, v, 8, &n, &present)) return false;
  if (!present) n = 1, v[0] = dflt;
  if (n == 1)
    for (int i = 1; i < want; i++) v[i] = v[0];
  else if (want > 2 && 2 * n == want) /* the begins given, the ends the same */
    for (int i = n; i < want; i++) v[i] = v[i - n];
  else if (n != want) return mlc_op_fail(ctx, a, "%s must be 1 or %d ints, got %d", name, want, n);
  for (int i = 0; i < want; i++) {
    if (v[i] < lo) return mlc_op_fail(ctx, a, "%s must be at least %lld, got %lld", name, (long long)lo, (long long)v[i]);
    out[i] = v[i];
  }
  return true;
}
