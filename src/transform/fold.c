/* fold.c - work that depends only on the weights, done once at compile time
 * instead of at every inference.
 *
 * fold_batch_norm: an inference batch norm with constant parameters is a
 * per-channel scale and shift, s = gamma / sqrt(var + eps) and t = beta -
 * mean * s.  Right after a conv2d (NCHW, OIHW) whose weight is a constant
 * and whose result nothing else reads, the scale goes into the weight
 * (W'[o] = W[o] * s[o]) and only the shift is left, as a bias add that
 * fusion puts at the conv's output; elsewhere it becomes x * s + t.  The
 * constants are computed here in double and stored in the data's dtype
 * (float32 or float64; other dtypes are left alone).
 *
 * fold_constants: an op call whose arguments are all constants is replaced
 * by the constant it computes (mlc_op_fold: its prim func run by the
 * reference interpreter), when the result is no larger than its inputs, or
 * than 64K elements: a transpose of a weight is folded, a broadcast of a
 * scalar into a huge tensor is not, so folding never blows up the weights.
 * Ops that leave their input as it was (a reshape or cast to the same shape
 * and dtype) are removed. */
#include "transform/pass.h"

#include <math.h>
#include <string.h>

#include "mlcc/ops.h"

enum { FOLD_MIN_NUMEL = 1 << 16, FOLD_MAX_NUMEL = 1 << 26 };

/* ---- helpers ------------------------------------------------------------------------ */

static bool is_call_of(const MlcGExpr *e, const char *op) {
  return e && e->kind == MLC_G_CALL && tf_is_op(e->call.callee, op);
}

static bool float_const(const MlcGExpr *e, MlcDType t) {
  return e && e->kind == MLC_G_CONST && mlc_dtype_eq(e->constant->dtype, t) && t.code == MLC_TC_FLOAT &&
         (t.bits == 32 || t.bits == 64);
}

static double get_f(const MlcTensorData *d, int64_t i) {
  return d->dtype.bits == 64 ? ((const double *)d->data)[i] : ((const float *)d->data)[i];
}

static void set_f(MlcTensorData *d, int64_t i, double v) {
  if (d->dtype.bits == 64) ((double *)d->data)[i] = v;
  else ((float *)d->data)[i] = (float)v;
}

static const MlcAttrValue *attr(MlcCtx *ctx, const MlcGExpr *call, const char *key) {
  return mlc_attrs_get(call->call.attrs, mlc_intern(ctx, key));
}

static bool attr_str_is(MlcCtx *ctx, const MlcGExpr *call, const char *key, const char *want) {
  const MlcAttrValue *v = attr(ctx, call, key);
  return !v || v->kind == MLC_ATTR_NONE || (v->kind == MLC_ATTR_STR && !strcmp(v->s, want));
}

/* an op call with its struct info inferred; NULL + error */
static MlcGExpr *op_call(MlcCtx *ctx, const char *op, MlcGExpr **args, int n, MlcAttrs attrs) {
  MlcGExpr *c = mlc_g_call(ctx, mlc_g_op(ctx, op), args, n, attrs, NULL, 0, mlc_sinfo_object(ctx));
  MlcSInfo *s = c ? mlc_op_infer(ctx, c) : NULL;
  return s ? mlc_g_call(ctx, mlc_g_op(ctx, op), args, n, attrs, NULL, 0, s) : NULL;
}

/* ---- batch norm ----------------------------------------------------------------------- */

typedef struct Bn {
  const MlcBinding *conv, *bn;  /* conv may be NULL */
  MlcTensorData *scale, *shift; /* per channel */
  int axis, rank;
} Bn;

typedef struct BnPlan {
  MlcMap by_binding; /* conv and batch norm bindings -> their Bn */
} BnPlan;

/* the axis a batch norm normalizes along, or -1 when it is not one plain axis */
static int bn_axis(MlcCtx *ctx, const MlcGExpr *call, int rank) {
  const MlcAttrValue *v = attr(ctx, call, "axis");
  int64_t ax = 1;
  if (v && v->kind == MLC_ATTR_INT) ax = v->i;
  else if (v && v->kind == MLC_ATTR_LIST && v->list.n == 1 && v->list.items[0].kind == MLC_ATTR_INT)
    ax = v->list.items[0].i;
  else if (v && v->kind != MLC_ATTR_NONE) return -1;
  if (ax < 0) ax += rank;
  return ax >= 0 && ax < rank ? (int)ax : -1;
}

static bool bool_attr_is(MlcCtx *ctx, const MlcGExpr *call, const char *key, bool want) {
  const MlcAttrValue *v = attr(ctx, call, key);
  return !v || v->kind == MLC_ATTR_NONE || (v->kind == MLC_ATTR_BOOL && v->b == want);
}

/* scale and shift of a batch norm call, when it folds */
static bool bn_constants(MlcCtx *ctx, const MlcGExpr *bn, Bn *out) {
  const MlcSInfo *x = bn->call.args[0]->sinfo;
  if (bn->call.n != 5 || !x || x->kind != MLC_SINFO_TENSOR || x->tensor.ndim < 1) return false;
  MlcDType t = x->tensor.dtype;
  for (int i = 1; i < 5; i++)
    if (!float_const(bn->call.args[i], t) || bn->call.args[i]->constant->ndim != 1) return false;
  if (!bool_attr_is(ctx, bn, "training", false) || !bool_attr_is(ctx, bn, "center", true) ||
      !bool_attr_is(ctx, bn, "scale", true))
    return false;
  out->rank = x->tensor.ndim;
  out->axis = bn_axis(ctx, bn, out->rank);
  const MlcAttrValue *e = attr(ctx, bn, "epsilon");
  double eps = e && e->kind == MLC_ATTR_FLOAT ? e->f : e && e->kind == MLC_ATTR_INT ? (double)e->i : 1e-5;
  const MlcTensorData *g = bn->call.args[1]->constant, *b = bn->call.args[2]->constant,
                      *mean = bn->call.args[3]->constant, *var = bn->call.args[4]->constant;
  int64_t c = g->shape[0];
  if (out->axis < 0 || b->shape[0] != c || mean->shape[0] != c || var->shape[0] != c) return false;
  /* shaped (C, 1, ..., 1) so it broadcasts along the axis */
  int64_t shape[32] = {c};
  int nd = out->rank - out->axis;
  if (nd > 32) return false;
  for (int i = 1; i < nd; i++) shape[i] = 1;
  out->scale = mlc_tensor_data_new(ctx, t, shape, nd);
  out->shift = mlc_tensor_data_new(ctx, t, shape, nd);
  for (int64_t i = 0; i < c; i++) {
    double s = get_f(g, i) / sqrt(get_f(var, i) + eps);
    set_f(out->scale, i, s);
    set_f(out->shift, i, get_f(b, i) - get_f(mean, i) * s);
  }
  return true;
}

/* a conv2d whose constant weight can take the scale: NCHW, OIHW, out
 * channels along axis 1, read by nothing but the batch norm */
static bool conv_takes_scale(MlcCtx *ctx, const MlcGExpr *conv, const Bn *b, intptr_t uses) {
  if (!is_call_of(conv, "nn.conv2d") || uses != 1 || b->axis != 1 || b->rank != 4) return false;
  const MlcGExpr *w = conv->call.n >= 2 ? conv->call.args[1] : NULL;
  const MlcAttrValue *od = attr(ctx, conv, "out_dtype");
  return float_const(w, b->scale->dtype) && w->constant->ndim == 4 && w->constant->shape[0] == b->scale->shape[0] &&
         attr_str_is(ctx, conv, "data_layout", "NCHW") && attr_str_is(ctx, conv, "kernel_layout", "OIHW") &&
         attr_str_is(ctx, conv, "out_layout", "NCHW") &&
         (!od || od->kind == MLC_ATTR_NONE || (od->kind == MLC_ATTR_STR && !*od->s));
}

/* uses of each var as `var[0]` (batch norm's result, the only one an
 * inference reads) */
static bool count_item0(MlcVisitor *v, const MlcGExpr *e) {
  if (e->kind == MLC_G_GET_ITEM && e->get_item.index == 0) {
    MlcMap *m = v->user;
    mlc_map_put(m, e->get_item.tuple, (void *)((intptr_t)mlc_map_get(m, e->get_item.tuple) + 1));
  }
  return true;
}

static void plan_bn_block(MlcCtx *ctx, const MlcBindingBlock *blk, const MlcMap *uses, const MlcMap *item0,
                          BnPlan *p) {
  MlcMap bound = {0}; /* var -> its binding, in this block */
  for (int i = 0; i < blk->n; i++) {
    const MlcBinding *b = &blk->bindings[i];
    mlc_map_put(&bound, b->var, (void *)b);
    Bn bn = {0};
    intptr_t n = tf_use_count(uses, b->var);
    if (!is_call_of(b->value, "nn.batch_norm") || b->var->kind != MLC_G_DFVAR || n < 1 ||
        (intptr_t)mlc_map_get(item0, b->var) != n || !bn_constants(ctx, b->value, &bn))
      continue;
    bn.bn = b;
    const MlcGExpr *d = b->value->call.args[0];
    const MlcBinding *cb = mlc_map_get(&bound, d);
    if (cb && conv_takes_scale(ctx, cb->value, &bn, tf_use_count(uses, d))) bn.conv = cb;
    Bn *keep = mlc_arena_dup(&ctx->arena, &bn, sizeof bn);
    mlc_map_put(&p->by_binding, b, keep);
    if (keep->conv) mlc_map_put(&p->by_binding, keep->conv, keep);
  }
  mlc_map_free(&bound);
}

static MlcGExpr *scaled_conv(MlcCtx *ctx, const Bn *b, MlcGExpr *conv) {
  const MlcTensorData *w = conv->call.args[1]->constant;
  MlcTensorData *nw = mlc_tensor_data_new(ctx, w->dtype, w->shape, w->ndim);
  int64_t per = mlc_tensor_data_numel(w) / w->shape[0];
  for (int64_t o = 0; o < w->shape[0]; o++)
    for (int64_t k = 0; k < per; k++) set_f(nw, o * per + k, get_f(w, o * per + k) * get_f(b->scale, o));
  MlcGExpr **args = mlc_arena_dup(&ctx->arena, conv->call.args, sizeof *args * (size_t)conv->call.n);
  args[1] = mlc_g_const(ctx, nw);
  return mlc_g_call(ctx, conv->call.callee, args, conv->call.n, conv->call.attrs, NULL, 0, conv->sinfo);
}

/* (a, b, c)[i] -> the field itself, in a binding's value and its call
 * arguments: what is left where a folded batch norm's tuple was read */
static MlcGExpr *item_of_tuple(MlcGExpr *e) {
  if (e->kind == MLC_G_GET_ITEM && e->get_item.tuple->kind == MLC_G_TUPLE) return e->get_item.tuple->tuple.fields[e->get_item.index];
  return e;
}

static MlcGExpr *simplify_items(MlcCtx *ctx, MlcGExpr *v) {
  v = item_of_tuple(v);
  if (v->kind != MLC_G_CALL) return v;
  MlcGExpr **args = NULL;
  for (int i = 0; i < v->call.n; i++) {
    MlcGExpr *a = item_of_tuple(v->call.args[i]);
    if (a == v->call.args[i]) continue;
    if (!args) args = mlc_arena_dup(&ctx->arena, v->call.args, sizeof *args * (size_t)v->call.n);
    args[i] = a;
  }
  return args ? mlc_g_call(ctx, v->call.callee, args, v->call.n, v->call.attrs, v->call.sinfo_args,
                           v->call.n_sinfo_args, v->sinfo)
              : v;
}

static bool bn_binding(TfRw *rw, const MlcBinding *b, MlcGExpr *value) {
  BnPlan *p = rw->user;
  Bn *bn = mlc_map_get(&p->by_binding, b);
  MlcCtx *ctx = rw->ctx;
  if (!bn) {
    MlcGExpr *v = simplify_items(ctx, value);
    if (!v) return false;
    tf_emit(rw, b->var, v, b->loc);
    return true;
  }
  if (b == bn->conv) {
    MlcGExpr *c = scaled_conv(ctx, bn, value);
    if (!c) return false;
    tf_emit(rw, b->var, c, b->loc);
    return true;
  }
  /* the batch norm: x * s (or the conv with s in its weight) + t */
  MlcGExpr *x = value->call.args[0];
  if (!bn->conv) {
    MlcGExpr *mul = op_call(ctx, "multiply", (MlcGExpr *[]){x, mlc_g_const(ctx, bn->scale)}, 2, (MlcAttrs){0});
    MlcGExpr *v = mul ? mlc_g_var(ctx, mlc_internf(ctx, "%s_scaled", b->var->var.name), mul->sinfo, true) : NULL;
    if (!v) return false;
    tf_emit(rw, v, mul, b->loc);
    x = v;
  }
  MlcGExpr *add = op_call(ctx, "add", (MlcGExpr *[]){x, mlc_g_const(ctx, bn->shift)}, 2, (MlcAttrs){0});
  MlcGExpr *out = add ? mlc_g_var(ctx, mlc_internf(ctx, "%s_out", b->var->var.name), add->sinfo, true) : NULL;
  if (!out) return false;
  tf_emit(rw, out, add, b->loc);
  /* its uses read item 0 only: a tuple whose first field is the result */
  MlcGExpr *fields[3] = {out, value->call.args[3], value->call.args[4]};
  MlcGExpr *tup = mlc_g_tuple(ctx, fields, 3);
  if (!tup) return false;
  tf_map(rw, b->var, tup);
  return true;
}

static MlcModule *rewrite_graphs(MlcCtx *ctx, const MlcModule *m, TfBindFn fn, void *user,
                                 void (*plan)(MlcCtx *, const MlcGFunc *, void *)) {
  MlcFunc *repl = mlc_arena_array(&ctx->arena, (size_t)(m->n_funcs ? m->n_funcs : 1), sizeof *repl);
  for (int i = 0; i < m->n_funcs; i++) {
    if (m->funcs[i].kind != MLC_FUNC_GRAPH) continue;
    if (plan) plan(ctx, m->funcs[i].graph, user);
    TfRw rw = {.ctx = ctx, .user = user, .on_binding = fn};
    MlcGFunc *nf = tf_rewrite_func(&rw, m->funcs[i].graph, NULL);
    tf_rw_free(&rw);
    if (!nf) return NULL;
    repl[i] = (MlcFunc){MLC_FUNC_GRAPH, m->funcs[i].name, {.graph = nf}};
  }
  return tf_module_with(ctx, m, repl, NULL, 0);
}

static void plan_bn(MlcCtx *ctx, const MlcGFunc *f, void *user) {
  MlcMap uses = {0}, item0 = {0};
  tf_count_uses(f->body, &uses);
  MlcVisitor v = {.user = &item0, .gexpr = count_item0};
  mlc_visit_gexpr(&v, f->body);
  const MlcGExpr *body = f->body;
  for (int b = 0; body->kind == MLC_G_SEQ && b < body->seq.n; b++)
    plan_bn_block(ctx, body->seq.blocks[b], &uses, &item0, user);
  mlc_map_free(&uses);
  mlc_map_free(&item0);
}

/* (both passes infer struct info first, as legalization does: they read
 * shapes and dtypes) */
MlcModule *mlc_pass_fold_batch_norm(MlcCtx *ctx, const MlcModule *m0) {
  const MlcModule *m = mlc_pass_infer_sinfo(ctx, m0);
  if (!m) return NULL;
  BnPlan p = {0};
  MlcModule *out = rewrite_graphs(ctx, m, bn_binding, &p, plan_bn);
  mlc_map_free(&p.by_binding);
  return out;
}

/* ---- constants -------------------------------------------------------------------------- */

/* the elements of the call's constant arguments (tuple fields included) */
static int64_t const_mlc_tensor_data_numel(const MlcGExpr *call) {
  int64_t n = 0;
  for (int i = 0; i < call->call.n; i++) {
    const MlcGExpr *a = call->call.args[i];
    if (a->kind == MLC_G_CONST) n += mlc_tensor_data_numel(a->constant);
    for (int j = 0; a->kind == MLC_G_TUPLE && j < a->tuple.n; j++)
      if (a->tuple.fields[j]->kind == MLC_G_CONST) n += mlc_tensor_data_numel(a->tuple.fields[j]->constant);
  }
  return n;
}

/* reshape / astype / squeeze / flatten / broadcast_to giving back their
 * input's shape and dtype is the input itself */
static bool is_identity(const MlcGExpr *v) {
  static const char *const ops[] = {"reshape", "astype", "squeeze", "flatten", "broadcast_to"};
  if (v->kind != MLC_G_CALL || v->call.n < 1) return false;
  bool listed = false;
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) listed |= tf_is_op(v->call.callee, ops[i]);
  const MlcSInfo *a = v->call.args[0]->sinfo, *r = v->sinfo;
  if (!listed || !a || !r || a->kind != MLC_SINFO_TENSOR || r->kind != MLC_SINFO_TENSOR) return false;
  if (!mlc_dtype_eq(a->tensor.dtype, r->tensor.dtype) || a->tensor.ndim != r->tensor.ndim || a->tensor.ndim < 0)
    return false;
  for (int d = 0; d < a->tensor.ndim; d++) {
    int64_t x, y;
    if (!mlc_e_is_const_int(a->tensor.shape[d], &x) || !mlc_e_is_const_int(r->tensor.shape[d], &y) || x != y)
      return false;
  }
  return true;
}

static bool const_binding(TfRw *rw, const MlcBinding *b, MlcGExpr *value) {
  if (value->kind == MLC_G_CALL && value->call.callee->kind == MLC_G_OP) {
    /* a block's output var may not become one of its dataflow vars */
    const MlcGExpr *in = value->call.n ? value->call.args[0] : NULL;
    if (is_identity(value) && (b->var->kind == MLC_G_DFVAR || in->kind != MLC_G_DFVAR)) {
      tf_map(rw, b->var, value->call.args[0]);
      return true;
    }
    int64_t cap = const_mlc_tensor_data_numel(value);
    cap = cap < FOLD_MIN_NUMEL ? FOLD_MIN_NUMEL : cap > FOLD_MAX_NUMEL ? FOLD_MAX_NUMEL : cap;
    MlcGExpr *c = mlc_op_fold(rw->ctx, value, cap);
    if (c) {
      tf_map(rw, b->var, c); /* every use reads the constant; the binding goes */
      return true;
    }
  }
  tf_emit(rw, b->var, value, b->loc);
  return true;
}

MlcModule *mlc_pass_fold_constants(MlcCtx *ctx, const MlcModule *m0) {
  const MlcModule *m = mlc_pass_infer_sinfo(ctx, m0);
  return m ? rewrite_graphs(ctx, m, const_binding, NULL, NULL) : NULL;
}
