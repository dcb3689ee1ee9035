/* registry.c - the op table, argument matching and legalization.
 *
 * The table is ops.def expanded once; each op's signature stays a string
 * ("T:x1 T:x2 A:axis?") and is parsed where it is needed, which costs a few
 * character comparisons and keeps the registry free of global state (the
 * tuner compiles from several threads).
 *
 * Matching follows a Python call: positional arguments fill parameters in
 * order, then keywords (the reader keeps them as the call's attributes) fill
 * the rest by name.  Attribute parameters given positionally arrive as graph
 * values (R.shape, R.prim_value, R.dtype, R.str, a tuple of numbers, a scalar
 * R.const) and are normalized here to attribute values, so the infer and TE
 * functions read one representation whatever the spelling. */
#include <assert.h>
#include <string.h>

#include "ops/op_internal.h"

const char *const mlc_fuse_kind_names[MLC_FUSE_COUNT] = {
#define X(id, s) s,
    MLC_FUSE_KINDS(X)
#undef X
};

/* a table entry's te is an identifier or NULL; pasting gives mlc_op_NULL */
#define mlc_op_NULL NULL
static const MlcOpDef op_table[] = {
#define OP(name, ident, fuse, sig, infer, te) {name, sig, MLC_FUSE_##fuse, mlc_op_##infer, mlc_op_##te, NULL},
#define OP_PRIM(name, ident, fuse, sig, infer, prim) {name, sig, MLC_FUSE_##fuse, mlc_op_##infer, NULL, mlc_op_##prim},
#include "ops.def"
#undef OP_PRIM
#undef OP
};
#undef mlc_op_NULL

#define N_OPS ((int)(sizeof op_table / sizeof *op_table))

const MlcOpDef *mlc_op_find(const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < N_OPS; i++)
    if (strcmp(op_table[i].name, name) == 0) return &op_table[i];
  return NULL;
}

int mlc_op_count(void) { return N_OPS; }

const MlcOpDef *mlc_op_at(int i) { return i >= 0 && i < N_OPS ? &op_table[i] : NULL; }

/* ---- signatures ------------------------------------------------------------ */

static bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* one "K:name?" item at s; returns the end or NULL when malformed */
static const char *parse_param(const char *s, MlcOpParam *p) {
  if (!strchr("TUVA", s[0]) || s[1] != ':') return NULL;
  p->kind = s[0];
  s += 2;
  size_t n = 0;
  while (is_ident_char(s[n])) n++;
  if (n == 0 || n >= sizeof p->name) return NULL;
  memcpy(p->name, s, n);
  p->name[n] = '\0';
  s += n;
  p->optional = *s == '?';
  if (p->optional) s++;
  return *s == ' ' || *s == '\0' ? s : NULL;
}

int mlc_op_sig_parse(const MlcOpDef *op, MlcOpParam *out) {
  const char *s = op->signature;
  int n = 0;
  bool seen_optional = false;
  while (*s) {
    while (*s == ' ') s++;
    if (!*s) break;
    if (n == MLC_OP_MAX_PARAMS) return -1;
    s = parse_param(s, &out[n]);
    if (!s) return -1;
    for (int i = 0; i < n; i++)
      if (strcmp(out[i].name, out[n].name) == 0) return -1;
    /* a required parameter after an optional one could never be reached
     * positionally without the optional one; allowed only for attributes,
     * which keywords reach */
    if (seen_optional && !out[n].optional && out[n].kind != 'A') return -1;
    seen_optional |= out[n].optional;
    n++;
  }
  return n;
}

static int find_param(const MlcOpParam *ps, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(ps[i].name, name) == 0) return i;
  return -1;
}

/* ---- graph values as attribute values ----------------------------------- */

static void shape_attr(MlcCtx *ctx, MlcExpr **dims, int n, MlcAttrValue *out) {
  bool all_const = true;
  for (int i = 0; i < n; i++) all_const &= mlc_e_is_const_int(dims[i], NULL);
  MlcAttrValue *items = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *items);
  for (int i = 0; i < n; i++) {
    if (all_const) items[i] = (MlcAttrValue){.kind = MLC_ATTR_INT, .i = dims[i]->int_val};
    else items[i] = (MlcAttrValue){.kind = MLC_ATTR_EXPR, .expr = dims[i]};
  }
  *out = (MlcAttrValue){.kind = MLC_ATTR_LIST, .list = {items, n}};
}

static void prim_attr(MlcExpr *e, MlcAttrValue *out) {
  bool neg = e->kind == MLC_EXPR_NEG && (e->operand->kind == MLC_EXPR_INT ||
                                         e->operand->kind == MLC_EXPR_FLOAT);
  const MlcExpr *lit = neg ? e->operand : e;
  if (lit->kind == MLC_EXPR_INT && lit->dtype.code == MLC_TC_BOOL && !neg)
    *out = (MlcAttrValue){.kind = MLC_ATTR_BOOL, .b = lit->int_val != 0};
  else if (lit->kind == MLC_EXPR_INT)
    *out = (MlcAttrValue){.kind = MLC_ATTR_INT, .i = neg ? -lit->int_val : lit->int_val};
  else if (lit->kind == MLC_EXPR_FLOAT)
    *out = (MlcAttrValue){.kind = MLC_ATTR_FLOAT, .f = neg ? -lit->float_val : lit->float_val};
  else
    *out = (MlcAttrValue){.kind = MLC_ATTR_EXPR, .expr = e};
}

/* the one element of a single-element constant, as a number */
static bool scalar_const_attr(const MlcTensorData *d, MlcAttrValue *out) {
  size_t bytes = mlc_dtype_bytes(d->dtype);
  if (!bytes || d->nbytes != bytes || d->dtype.lanes != 1) return false;
  const void *p = d->data;
  switch ((MlcTypeCode)d->dtype.code) {
  case MLC_TC_FLOAT:
    if (d->dtype.bits != 32 && d->dtype.bits != 64) return false;
    *out = (MlcAttrValue){.kind = MLC_ATTR_FLOAT,
                          .f = d->dtype.bits == 64 ? *(const double *)p : *(const float *)p};
    return true;
  case MLC_TC_BOOL: *out = (MlcAttrValue){.kind = MLC_ATTR_BOOL, .b = *(const uint8_t *)p != 0}; return true;
  case MLC_TC_INT: {
    int64_t v = d->dtype.bits == 8 ? *(const int8_t *)p : d->dtype.bits == 16 ? *(const int16_t *)p
              : d->dtype.bits == 32 ? *(const int32_t *)p : *(const int64_t *)p;
    *out = (MlcAttrValue){.kind = MLC_ATTR_INT, .i = v};
    return true;
  }
  default: return false;
  }
}

static bool to_attr(MlcCtx *ctx, const MlcGExpr *e, MlcAttrValue *out) {
  switch (e->kind) {
  case MLC_G_SHAPE: shape_attr(ctx, e->shape.values, e->shape.n, out); return true;
  case MLC_G_PRIM: prim_attr(e->prim, out); return true;
  case MLC_G_STR: *out = (MlcAttrValue){.kind = MLC_ATTR_STR, .s = e->str}; return true;
  case MLC_G_DTYPE: *out = (MlcAttrValue){.kind = MLC_ATTR_DTYPE, .dtype = e->dtype}; return true;
  case MLC_G_CONST: return scalar_const_attr(e->constant, out);
  case MLC_G_TUPLE: {
    int n = e->tuple.n;
    MlcAttrValue *items = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *items);
    for (int i = 0; i < n; i++)
      if (!to_attr(ctx, e->tuple.fields[i], &items[i])) return false;
    *out = (MlcAttrValue){.kind = MLC_ATTR_LIST, .list = {items, n}};
    return true;
  }
  default: break;
  }
  /* a var bound to a known shape or prim value */
  const MlcSInfo *s = e->sinfo;
  if (s && s->kind == MLC_SINFO_SHAPE && s->shape.values && s->shape.ndim >= 0) {
    shape_attr(ctx, s->shape.values, s->shape.ndim, out);
    return true;
  }
  if (s && s->kind == MLC_SINFO_PRIM && s->prim.value) {
    prim_attr(s->prim.value, out);
    return true;
  }
  return false;
}

/* what a graph value is, for messages */
static const char *describe(const MlcGExpr *e) {
  switch (e->kind) {
  case MLC_G_SHAPE: return "a shape";
  case MLC_G_PRIM: return "a prim value";
  case MLC_G_STR: return "a string";
  case MLC_G_DTYPE: return "a dtype";
  default: break;
  }
  switch (e->sinfo ? e->sinfo->kind : MLC_SINFO_OBJECT) {
  case MLC_SINFO_TENSOR: return "a tensor";
  case MLC_SINFO_TUPLE: return "a tuple";
  case MLC_SINFO_SHAPE: return "a shape";
  case MLC_SINFO_PRIM: return "a prim value";
  case MLC_SINFO_OBJECT: break;
  }
  return "an object (its struct info is not known)";
}

static bool is_tensor_tuple(const MlcSInfo *s) {
  if (!s || s->kind != MLC_SINFO_TUPLE) return false;
  for (int i = 0; i < s->tuple.n; i++)
    if (!s->tuple.fields[i] || s->tuple.fields[i]->kind != MLC_SINFO_TENSOR) return false;
  return true;
}

/* parameter i of a gets the positional argument e */
static bool bind_positional(MlcCtx *ctx, MlcOpArgs *a, const MlcOpParam *p, int i, const MlcGExpr *e) {
  switch (p->kind) {
  case 'T':
    if (!e->sinfo || e->sinfo->kind != MLC_SINFO_TENSOR)
      return mlc_op_fail(ctx, a, "argument '%s' expected a tensor, got %s", p->name, describe(e));
    break;
  case 'U':
    if (!is_tensor_tuple(e->sinfo))
      return mlc_op_fail(ctx, a, "argument '%s' expected a tuple of tensors, got %s", p->name,
                         describe(e));
    break;
  case 'V': break;
  default: {
    MlcAttrValue *v = mlc_arena_alloc(&ctx->arena, sizeof *v);
    if (!to_attr(ctx, e, v))
      return mlc_op_fail(ctx, a, "argument '%s' expected a number, shape, string or dtype, got %s",
                         p->name, describe(e));
    a->attr[i] = v;
    return true;
  }
  }
  a->val[i] = e;
  return true;
}

static bool bind_keywords(MlcCtx *ctx, MlcOpArgs *a, const MlcOpParam *ps, bool *given) {
  const MlcAttrs *kw = &a->call->call.attrs;
  for (int k = 0; k < kw->n; k++) {
    const char *key = kw->items[k].key;
    int j = find_param(ps, a->n, key);
    if (j < 0) return mlc_op_fail(ctx, a, "unknown keyword '%s' (parameters: %s)", key, a->op->signature);
    if (given[j]) return mlc_op_fail(ctx, a, "argument '%s' is given twice", key);
    if (ps[j].kind != 'A')
      return mlc_op_fail(ctx, a, "argument '%s' is a graph value; pass it positionally", key);
    a->attr[j] = &kw->items[k].val;
    given[j] = true;
  }
  return true;
}

bool mlc_op_match(MlcCtx *ctx, const MlcGExpr *call, MlcOpArgs *out) {
  memset(out, 0, sizeof *out);
  if (!call || call->kind != MLC_G_CALL || !call->call.callee || call->call.callee->kind != MLC_G_OP)
    return mlc_error(ctx, ctx->build_loc, "expected a call of an op");
  const char *name = call->call.callee->str;
  const MlcOpDef *op = mlc_op_find(name);
  if (!op) return mlc_error(ctx, ctx->build_loc, "unknown op 'R.%s'", name);
  out->op = op;
  out->call = call;
  MlcOpParam ps[MLC_OP_MAX_PARAMS];
  out->n = mlc_op_sig_parse(op, ps);
  assert(out->n >= 0 && "ops.def holds a malformed signature");
  if (out->n < 0) return mlc_op_fail(ctx, out, "malformed signature \"%s\"", op->signature);
  if (call->call.n > out->n)
    return mlc_op_fail(ctx, out, "takes at most %d argument%s, got %d", out->n, out->n == 1 ? "" : "s",
                       call->call.n);
  bool given[MLC_OP_MAX_PARAMS] = {0};
  for (int i = 0; i < call->call.n; i++) {
    if (!bind_positional(ctx, out, &ps[i], i, call->call.args[i])) return false;
    given[i] = true;
  }
  if (!bind_keywords(ctx, out, ps, given)) return false;
  for (int i = 0; i < out->n; i++)
    if (!given[i] && !ps[i].optional) return mlc_op_fail(ctx, out, "missing argument '%s'", ps[i].name);
  return true;
}

MlcSInfo *mlc_op_infer(MlcCtx *ctx, const MlcGExpr *call) {
  MlcOpArgs a;
  if (!mlc_op_match(ctx, call, &a)) return NULL;
  MlcSInfo *s = a.op->infer(ctx, &a);
  if (!s && !mlc_has_error(ctx)) mlc_op_fail(ctx, &a, "struct info inference failed");
  return s;
}

/* ---- legalization --------------------------------------------------------- */

static bool name_taken(MlcTeTensor **ts, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (ts[i]->name == name) return true;
  return false;
}

/* a placeholder for one tensor input, named `base` (made unique among ins) */
static MlcTeTensor *placeholder(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *s, const char *base,
                                MlcTeTensor **ins, int n_in) {
  char dt[32];
  if (s->tensor.ndim < 0 || s->tensor.dtype.code == MLC_TC_VOID || !s->tensor.shape)
    return mlc_op_fail(ctx, a, "input '%s' needs a known shape and dtype to be legalized (has %s%s)",
                       base, s->tensor.ndim < 0 || !s->tensor.shape ? "unknown dims" : "dtype ",
                       s->tensor.ndim < 0 || !s->tensor.shape ? "" : mlc_dtype_str(s->tensor.dtype, dt)),
           NULL;
  const char *name = mlc_intern(ctx, base);
  for (int k = 1; name_taken(ins, n_in, name); k++) name = mlc_internf(ctx, "%s_%d", base, k);
  return mlc_te_placeholder(ctx, name, s->tensor.shape, s->tensor.ndim, s->tensor.dtype);
}

/* placeholders for the present tensor params in order, tuple fields
 * flattened (named after the field's var when it is one) */
static bool make_inputs(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor ***ins_out, int *n_out) {
  MlcOpParam ps[MLC_OP_MAX_PARAMS];
  mlc_op_sig_parse(a->op, ps);
  int cap = 0;
  for (int i = 0; i < a->n; i++)
    if (a->val[i] && ps[i].kind == 'T') cap++;
    else if (a->val[i] && ps[i].kind == 'U') cap += a->val[i]->sinfo->tuple.n;
  MlcTeTensor **ins = mlc_arena_array(&ctx->arena, (size_t)(cap ? cap : 1), sizeof *ins);
  int n = 0;
  for (int i = 0; i < a->n; i++) {
    const MlcGExpr *v = a->val[i];
    if (!v || (ps[i].kind != 'T' && ps[i].kind != 'U')) continue;
    if (ps[i].kind == 'T') {
      if (!(ins[n] = placeholder(ctx, a, v->sinfo, ps[i].name, ins, n))) return false;
      n++;
      continue;
    }
    for (int f = 0; f < v->sinfo->tuple.n; f++) {
      const MlcGExpr *fe = v->kind == MLC_G_TUPLE ? v->tuple.fields[f] : NULL;
      bool named = fe && (fe->kind == MLC_G_VAR || fe->kind == MLC_G_DFVAR);
      const char *base = named ? fe->var.name : mlc_internf(ctx, "%s%d", ps[i].name, f);
      if (!(ins[n] = placeholder(ctx, a, v->sinfo->tuple.fields[f], base, ins, n))) return false;
      n++;
    }
  }
  *ins_out = ins;
  *n_out = n;
  return true;
}

MlcPrimFunc *mlc_op_to_prim_func(MlcCtx *ctx, const MlcGExpr *call, const char *name) {
  MlcOpArgs a;
  if (!mlc_op_match(ctx, call, &a)) return NULL;
  if (!mlc_op_legalizable(a.op))
    return mlc_op_fail(ctx, &a, "is not legalizable: it has no tensor-expression definition"), NULL;
  if (!a.op->infer(ctx, &a)) {
    if (!mlc_has_error(ctx)) mlc_op_fail(ctx, &a, "struct info inference failed");
    return NULL;
  }
  if (a.op->prim) {
    MlcPrimFunc *f = a.op->prim(ctx, &a, name);
    if (!f && !mlc_has_error(ctx)) mlc_op_fail(ctx, &a, "legalization failed");
    return f;
  }
  MlcTeTensor **ins;
  int n_in;
  if (!make_inputs(ctx, &a, &ins, &n_in)) return NULL;
  MlcTeTensor **params = mlc_arena_array(&ctx->arena, (size_t)n_in + MLC_OP_MAX_OUTS, sizeof *params);
  memcpy(params, ins, (size_t)n_in * sizeof *ins);
  int n_out = MLC_OP_MAX_OUTS; /* the capacity on entry, the count on return */
  if (!a.op->te(ctx, &a, ins, n_in, params + n_in, &n_out)) {
    if (!mlc_has_error(ctx)) mlc_op_fail(ctx, &a, "legalization failed");
    return NULL;
  }
  assert(n_out >= 1 && n_out <= MLC_OP_MAX_OUTS);
  return mlc_te_to_prim_func(ctx, mlc_intern(ctx, name), params, n_in + n_out);
}
