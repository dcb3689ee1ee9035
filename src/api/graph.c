/* graph.c - graph values through the stable C API: struct info, vars,
 * constants, tuples, op calls (struct info inferred by the op registry),
 * call_tir / call_dps_packed / calls of module functions, and reading
 * them back for visitors and mutators. */
#include "api/api.h"
#include "mlcc/ops.h"
#include "mlcc/text.h"

#include <string.h>

#define MAX_ARGS 64

static MlccGExpr *gout(MlccContext *c, MlcGExpr *e) {
  if (!e) return api_fail(c), NULL;
  return (MlccGExpr *)e;
}

/* ---- struct info ---------------------------------------------------------------- */

MlccSInfo *mlcc_sinfo_tensor(MlccContext *c, MlccExpr *const *shape, int ndim, const char *dtype) {
  api_begin(c);
  MlcDType t;
  if (!api_dtype(c, dtype, &t)) return NULL;
  if (ndim < 0 || ndim > MLCRT_MAX_NDIM) return api_failf(c, "a tensor of %d dims", ndim), NULL;
  MlcExpr **sh = mlc_arena_array(&c->ctx->arena, (size_t)(ndim ? ndim : 1), sizeof *sh);
  for (int i = 0; i < ndim; i++) {
    if (!shape || !shape[i]) return api_failf(c, "dim %d of the tensor is missing", i), NULL;
    sh[i] = API_EXPR(shape[i]);
    if (!mlc_dtype_is_int(sh[i]->dtype)) return api_failf(c, "dim %d is not an integer", i), NULL;
    if (sh[i]->kind == MLC_EXPR_INT && sh[i]->int_val < 0)
      return api_failf(c, "dim %d is negative (%lld)", i, (long long)sh[i]->int_val), NULL;
    if (!mlc_dtype_eq(sh[i]->dtype, MLC_I64)) {
      if (sh[i]->kind != MLC_EXPR_INT) return api_failf(c, "dim %d is not int64", i), NULL;
      sh[i] = mlc_e_int(c->ctx, MLC_I64, sh[i]->int_val);
    }
  }
  MlcSInfo *out = mlc_sinfo_tensor(c->ctx, sh, ndim, t);
  if (!out) return api_fail(c), NULL;
  return (MlccSInfo *)out;
}

MlccSInfo *mlcc_sinfo_tuple(MlccContext *c, MlccSInfo *const *fields, int n) {
  api_begin(c);
  if (n < 0 || n > MAX_ARGS) return api_failf(c, "a tuple of %d fields", n), NULL;
  MlcSInfo **fs = mlc_arena_array(&c->ctx->arena, (size_t)(n ? n : 1), sizeof *fs);
  for (int i = 0; i < n; i++) {
    if (!fields[i]) return api_failf(c, "field %d of the tuple is missing", i), NULL;
    fs[i] = API_SINFO(fields[i]);
  }
  MlcSInfo *out = mlc_sinfo_tuple(c->ctx, fs, n);
  if (!out) return api_fail(c), NULL;
  return (MlccSInfo *)out;
}

MlccSInfo *mlcc_sinfo_object(MlccContext *c) { return (MlccSInfo *)mlc_sinfo_object(c->ctx); }

int mlcc_sinfo_kind(const MlccSInfo *s) { return s ? (int)((const MlcSInfo *)s)->kind : 0; }

int mlcc_sinfo_ndim(const MlccSInfo *s) {
  const MlcSInfo *x = (const MlcSInfo *)s;
  return x && x->kind == MLC_SINFO_TENSOR ? x->tensor.ndim : -1;
}

MlccExpr *mlcc_sinfo_dim(const MlccSInfo *s, int i) {
  const MlcSInfo *x = (const MlcSInfo *)s;
  if (!x || x->kind != MLC_SINFO_TENSOR || !x->tensor.shape || i < 0 || i >= x->tensor.ndim) return NULL;
  return (MlccExpr *)x->tensor.shape[i];
}

const char *mlcc_sinfo_dtype(MlccContext *c, const MlccSInfo *s) {
  const MlcSInfo *x = (const MlcSInfo *)s;
  if (!x || x->kind != MLC_SINFO_TENSOR || x->tensor.dtype.code == MLC_TC_VOID) return NULL;
  char b[32];
  return mlc_intern(c->ctx, mlc_dtype_str(x->tensor.dtype, b));
}

int mlcc_sinfo_num_fields(const MlccSInfo *s) {
  const MlcSInfo *x = (const MlcSInfo *)s;
  return x && x->kind == MLC_SINFO_TUPLE ? x->tuple.n : 0;
}

MlccSInfo *mlcc_sinfo_field(const MlccSInfo *s, int i) {
  const MlcSInfo *x = (const MlcSInfo *)s;
  if (!x || x->kind != MLC_SINFO_TUPLE || i < 0 || i >= x->tuple.n) return NULL;
  return (MlccSInfo *)x->tuple.fields[i];
}

char *mlcc_sinfo_print(const MlccSInfo *s) {
  MlcStrBuf sb = {0};
  if (s) mlc_print_sinfo((const MlcSInfo *)s, &sb);
  return api_take(&sb);
}

/* ---- values ------------------------------------------------------------------------ */

static bool args_of(MlccContext *c, MlccGExpr *const *in, int n, MlcGExpr **out, const char *what) {
  if (n < 0 || n > MAX_ARGS) return api_failf(c, "%s: %d arguments (at most %d)", what, n, MAX_ARGS);
  for (int i = 0; i < n; i++) {
    if (!in || !in[i]) return api_failf(c, "%s: argument %d is missing", what, i);
    out[i] = API_GEXPR(in[i]);
  }
  return true;
}

MlccGExpr *mlcc_g_var(MlccContext *c, const char *name, MlccSInfo *sinfo) {
  api_begin(c);
  if (!name || !*name) return api_failf(c, "a var needs a name"), NULL;
  return gout(c, mlc_g_var(c->ctx, name, sinfo ? API_SINFO(sinfo) : mlc_sinfo_object(c->ctx), false));
}

MlccGExpr *mlcc_g_const(MlccContext *c, const char *dtype, const int64_t *shape, int ndim, const void *data,
                        size_t nbytes) {
  api_begin(c);
  MlcDType t;
  if (!api_dtype(c, dtype, &t)) return NULL;
  if (ndim < 0 || ndim > MLCRT_MAX_NDIM) return api_failf(c, "a constant of %d dims", ndim), NULL;
  size_t numel = 1;
  for (int i = 0; i < ndim; i++)
    if (shape[i] < 0 || mlc_mul_overflows(numel, (size_t)shape[i], &numel))
      return api_failf(c, "a constant of a bad shape (dim %d is %lld)", i, (long long)shape[i]), NULL;
  size_t want;
  if (mlc_mul_overflows(numel, mlc_dtype_bytes(t), &want) || want != nbytes || (nbytes && !data))
    return api_failf(c, "constant data of %zu bytes for a %s tensor of %zu elements", nbytes, dtype, numel), NULL;
  MlcTensorData *d = mlc_tensor_data_new(c->ctx, t, shape, ndim);
  if (!d) return api_fail(c), NULL;
  if (nbytes) memcpy(d->data, data, nbytes);
  return gout(c, mlc_g_const(c->ctx, d));
}

MlccGExpr *mlcc_g_tuple(MlccContext *c, MlccGExpr *const *fields, int n) {
  api_begin(c);
  MlcGExpr *fs[MAX_ARGS];
  if (!args_of(c, fields, n, fs, "tuple")) return NULL;
  return gout(c, mlc_g_tuple(c->ctx, fs, n));
}

MlccGExpr *mlcc_g_get_item(MlccContext *c, MlccGExpr *tuple, int index) {
  api_begin(c);
  if (!tuple) return api_failf(c, "get_item: no tuple"), NULL;
  const MlcSInfo *s = API_GEXPR(tuple)->sinfo;
  if (s && s->kind == MLC_SINFO_TUPLE && (index < 0 || index >= s->tuple.n))
    return api_failf(c, "get_item: index %d of a tuple of %d fields", index, s->tuple.n), NULL;
  return gout(c, mlc_g_get_item(c->ctx, API_GEXPR(tuple), index));
}

static bool to_attr(MlccContext *c, const MlccValue *v, MlcAttrValue *out, int depth) {
  switch ((MlccValueKind)v->kind) {
  case MLCC_V_NONE: *out = (MlcAttrValue){.kind = MLC_ATTR_NONE}; return true;
  case MLCC_V_INT: *out = (MlcAttrValue){.kind = MLC_ATTR_INT, .i = v->i}; return true;
  case MLCC_V_BOOL: *out = (MlcAttrValue){.kind = MLC_ATTR_BOOL, .b = v->i != 0}; return true;
  case MLCC_V_FLOAT: *out = (MlcAttrValue){.kind = MLC_ATTR_FLOAT, .f = v->f}; return true;
  case MLCC_V_STR:
    if (!v->s) break;
    *out = (MlcAttrValue){.kind = MLC_ATTR_STR, .s = mlc_intern(c->ctx, v->s)};
    return true;
  case MLCC_V_LIST: {
    if (depth > 8 || v->n < 0 || (v->n && !v->items)) break;
    MlcAttrValue *items = mlc_arena_array(&c->ctx->arena, (size_t)(v->n ? v->n : 1), sizeof *items);
    for (int i = 0; i < v->n; i++)
      if (!to_attr(c, &v->items[i], &items[i], depth + 1)) return false;
    *out = (MlcAttrValue){.kind = MLC_ATTR_LIST, .list = {items, v->n}};
    return true;
  }
  default: break;
  }
  return api_failf(c, "an attribute value must be None, a bool, an int, a float, a string or a list of them");
}

bool api_attrs(MlccContext *c, const char *const *keys, const MlccValue *vals, int n, MlcAttrs *out) {
  *out = (MlcAttrs){0};
  if (n <= 0) return true;
  if (!keys || !vals || n > MAX_ARGS) return api_failf(c, "bad attributes");
  MlcAttr *items = mlc_arena_array(&c->ctx->arena, (size_t)n, sizeof *items);
  for (int i = 0; i < n; i++) {
    if (!keys[i]) return api_failf(c, "attribute %d has no name", i);
    items[i].key = mlc_intern(c->ctx, keys[i]);
    if (!to_attr(c, &vals[i], &items[i].val, 0)) return false;
  }
  *out = (MlcAttrs){items, n};
  return true;
}

MlccGExpr *mlcc_g_call_op(MlccContext *c, const char *op, MlccGExpr *const *args, int n,
                          const char *const *keys, const MlccValue *vals, int n_attrs) {
  api_begin(c);
  if (!op || !mlc_op_find(op)) return api_failf(c, "unknown op '%s'", op ? op : "(null)"), NULL;
  MlcGExpr *as[MAX_ARGS];
  MlcAttrs attrs;
  if (!args_of(c, args, n, as, op) || !api_attrs(c, keys, vals, n_attrs, &attrs)) return NULL;
  MlcGExpr *call = mlc_g_call(c->ctx, mlc_g_op(c->ctx, op), as, n, attrs, NULL, 0, mlc_sinfo_object(c->ctx));
  if (!call) return api_fail(c), NULL;
  MlcSInfo *s = mlc_op_infer(c->ctx, call);
  if (!s) return api_fail(c), NULL;
  call->sinfo = s;
  return (MlccGExpr *)call;
}

MlccGExpr *mlcc_g_call_tir(MlccContext *c, const char *func, MlccGExpr *const *args, int n, MlccSInfo *out) {
  api_begin(c);
  MlcGExpr *as[MAX_ARGS];
  if (!func || !out) return api_failf(c, "call_tir needs a function and its output struct info"), NULL;
  if (!args_of(c, args, n, as, "call_tir")) return NULL;
  return gout(c, mlc_g_call_tir(c->ctx, mlc_g_global(c->ctx, func), as, n, API_SINFO(out)));
}

MlccGExpr *mlcc_g_call_dps_packed(MlccContext *c, const char *ext, MlccGExpr *const *args, int n,
                                  MlccSInfo *out) {
  api_begin(c);
  MlcGExpr *as[MAX_ARGS];
  if (!ext || !out) return api_failf(c, "call_dps_packed needs a function name and its output struct info"), NULL;
  if (!args_of(c, args, n, as, "call_dps_packed")) return NULL;
  return gout(c, mlc_g_call_dps_packed(c->ctx, mlc_g_extern(c->ctx, ext), as, n, API_SINFO(out)));
}

MlccGExpr *mlcc_g_call_global(MlccContext *c, const char *func, MlccGExpr *const *args, int n, MlccSInfo *ret) {
  api_begin(c);
  MlcGExpr *as[MAX_ARGS];
  if (!func || !ret) return api_failf(c, "a call of a function needs its name and return struct info"), NULL;
  if (!args_of(c, args, n, as, func)) return NULL;
  return gout(c, mlc_g_call(c->ctx, mlc_g_global(c->ctx, func), as, n, (MlcAttrs){0}, NULL, 0, API_SINFO(ret)));
}

MlccGExpr *mlcc_g_call_with_args(MlccContext *c, const MlccGExpr *call, MlccGExpr *const *args, int n) {
  api_begin(c);
  const MlcGExpr *e = (const MlcGExpr *)call;
  if (!e || e->kind != MLC_G_CALL) return api_failf(c, "call_with_args: not a call"), NULL;
  MlcGExpr *as[MAX_ARGS];
  if (!args_of(c, args, n, as, "call")) return NULL;
  MlcGExpr *callee = e->call.callee;
  bool is_dps = callee->kind == MLC_G_OP &&
                (strcmp(callee->str, "call_tir") == 0 || strcmp(callee->str, "call_dps_packed") == 0);
  MlcGExpr *out = mlc_g_call(c->ctx, callee, as, n, e->call.attrs, e->call.sinfo_args, e->call.n_sinfo_args,
                             e->sinfo);
  if (!out) return api_fail(c), NULL;
  if (callee->kind == MLC_G_OP && !is_dps && mlc_op_find(callee->str)) {
    MlcSInfo *s = mlc_op_infer(c->ctx, out);
    if (!s) return api_fail(c), NULL;
    out->sinfo = s;
  }
  return (MlccGExpr *)out;
}

/* ---- reading values back ------------------------------------------------------------ */

int mlcc_g_kind(const MlccGExpr *e) { return (int)((const MlcGExpr *)e)->kind; }

const char *mlcc_g_name(const MlccGExpr *e) {
  const MlcGExpr *x = (const MlcGExpr *)e;
  switch (x->kind) {
  case MLC_G_VAR: case MLC_G_DFVAR: return x->var.name;
  case MLC_G_OP: case MLC_G_GLOBAL: case MLC_G_EXTERN: case MLC_G_STR: return x->str;
  case MLC_G_CALL: return mlcc_g_name((const MlccGExpr *)x->call.callee);
  default: return NULL;
  }
}

int mlcc_g_callee_kind(const MlccGExpr *e) {
  const MlcGExpr *x = (const MlcGExpr *)e;
  return x->kind == MLC_G_CALL ? (int)x->call.callee->kind : -1;
}

int mlcc_g_num_args(const MlccGExpr *e) {
  const MlcGExpr *x = (const MlcGExpr *)e;
  switch (x->kind) {
  case MLC_G_CALL: return x->call.n;
  case MLC_G_TUPLE: return x->tuple.n;
  case MLC_G_GET_ITEM: return 1;
  default: return 0;
  }
}

MlccGExpr *mlcc_g_arg(const MlccGExpr *e, int i) {
  const MlcGExpr *x = (const MlcGExpr *)e;
  if (i < 0 || i >= mlcc_g_num_args(e)) return NULL;
  switch (x->kind) {
  case MLC_G_CALL: return (MlccGExpr *)x->call.args[i];
  case MLC_G_TUPLE: return (MlccGExpr *)x->tuple.fields[i];
  case MLC_G_GET_ITEM: return (MlccGExpr *)x->get_item.tuple;
  default: return NULL;
  }
}

int mlcc_g_get_item_index(const MlccGExpr *e) {
  const MlcGExpr *x = (const MlcGExpr *)e;
  return x->kind == MLC_G_GET_ITEM ? x->get_item.index : -1;
}

MlccSInfo *mlcc_g_sinfo(const MlccGExpr *e) { return (MlccSInfo *)((const MlcGExpr *)e)->sinfo; }

char *mlcc_g_print(const MlccGExpr *e) {
  MlcStrBuf sb = {0};
  mlc_print_gexpr((const MlcGExpr *)e, &sb);
  return api_take(&sb);
}

/* ---- the op registry ------------------------------------------------------------------ */

int mlcc_op_count(void) { return mlc_op_count(); }
const char *mlcc_op_name(int i) { return i >= 0 && i < mlc_op_count() ? mlc_op_at(i)->name : NULL; }
const char *mlcc_op_signature(int i) { return i >= 0 && i < mlc_op_count() ? mlc_op_at(i)->signature : NULL; }
