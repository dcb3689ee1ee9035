/* util.c - walks over graph expressions, call classification and struct-info
 * helpers that several graph passes use (pass.h).
 *
 * Purity is decided here once, conservatively: a pass that removes or
 * reorders bindings asks tf_is_pure and keeps anything that might write
 * memory or reach code outside the module. */
#include "transform/pass.h"

#include <string.h>

#include "mlcc/text.h"

/* ======================================================================== */
/* walks                                                                    */
/* ======================================================================== */

static void each_use_seq(const MlcGExpr *e, TfUseFn fn, void *user) {
  for (int i = 0; i < e->seq.n; i++)
    for (int j = 0; j < e->seq.blocks[i]->n; j++) tf_each_use(e->seq.blocks[i]->bindings[j].value, fn, user);
  tf_each_use(e->seq.result, fn, user);
}

void tf_each_use(const MlcGExpr *e, TfUseFn fn, void *user) {
  if (!e) return;
  switch (e->kind) {
  case MLC_G_VAR:
  case MLC_G_DFVAR: fn(user, e); break;
  case MLC_G_TUPLE:
    for (int i = 0; i < e->tuple.n; i++) tf_each_use(e->tuple.fields[i], fn, user);
    break;
  case MLC_G_GET_ITEM: tf_each_use(e->get_item.tuple, fn, user); break;
  case MLC_G_CALL:
    tf_each_use(e->call.callee, fn, user);
    for (int i = 0; i < e->call.n; i++) tf_each_use(e->call.args[i], fn, user);
    break;
  case MLC_G_IF:
    tf_each_use(e->if_.cond, fn, user);
    tf_each_use(e->if_.then_e, fn, user);
    tf_each_use(e->if_.else_e, fn, user);
    break;
  case MLC_G_SEQ: each_use_seq(e, fn, user); break;
  case MLC_G_CONST:
  case MLC_G_SHAPE:
  case MLC_G_PRIM:
  case MLC_G_STR:
  case MLC_G_DTYPE:
  case MLC_G_OP:
  case MLC_G_GLOBAL:
  case MLC_G_EXTERN: break;
  }
}

static void count_one(void *user, const MlcGExpr *var) {
  MlcMap *counts = user;
  mlc_map_put(counts, var, (void *)((intptr_t)mlc_map_get(counts, var) + 1));
}

void tf_count_uses(const MlcGExpr *body, MlcMap *counts) { tf_each_use(body, count_one, counts); }

intptr_t tf_use_count(const MlcMap *counts, const MlcGExpr *var) {
  return (intptr_t)mlc_map_get(counts, var);
}

typedef struct GlobalWalk {
  void (*fn)(void *user, const char *name);
  void *user;
} GlobalWalk;

static bool visit_global(MlcVisitor *v, const MlcGExpr *e) {
  const GlobalWalk *w = v->user;
  if (e->kind == MLC_G_GLOBAL) w->fn(w->user, e->str);
  return true;
}

/* Globals are never bound, so the IR's visitor serves here (the binding
 * vars it also reports are no globals); uses need tf_each_use's own walk,
 * which tells a var's uses from its definitions. */
void tf_each_global(const MlcGExpr *e, void (*fn)(void *user, const char *name), void *user) {
  GlobalWalk w = {fn, user};
  MlcVisitor v = {.user = &w, .gexpr = visit_global};
  mlc_visit_gexpr(&v, e);
}

/* ======================================================================== */
/* calls                                                                    */
/* ======================================================================== */

bool tf_is_op(const MlcGExpr *e, const char *name) {
  return e && e->kind == MLC_G_OP && strcmp(e->str, name) == 0;
}

bool tf_is_dps(const MlcGExpr *e) {
  if (!e || e->kind != MLC_G_CALL) return false;
  const MlcGExpr *c = e->call.callee;
  return (tf_is_op(c, "call_tir") || tf_is_op(c, "call_dps_packed")) && e->call.n == 2 &&
         e->call.args[1]->kind == MLC_G_TUPLE && e->call.n_sinfo_args == 1;
}

static bool seq_pure(const MlcModule *m, const MlcGExpr *seq) {
  for (int i = 0; i < seq->seq.n; i++)
    for (int j = 0; j < seq->seq.blocks[i]->n; j++)
      if (!tf_is_pure(m, seq->seq.blocks[i]->bindings[j].value)) return false;
  return true;
}

static bool call_pure(const MlcModule *m, const MlcGExpr *e) {
  const MlcGExpr *c = e->call.callee;
  switch (c->kind) {
  /* ops are values of their inputs (allocations included); call_tir and
   * call_dps_packed write only the outputs they allocate themselves */
  case MLC_G_OP: return true;
  case MLC_G_GLOBAL: {
    const MlcFunc *f = mlc_module_find(m, c->str);
    return f && f->kind == MLC_FUNC_GRAPH && f->graph->pure;
  }
  default: return false;
  }
}

bool tf_is_pure(const MlcModule *m, const MlcGExpr *value) {
  switch (value->kind) {
  case MLC_G_CALL: return call_pure(m, value);
  case MLC_G_IF: return seq_pure(m, value->if_.then_e) && seq_pure(m, value->if_.else_e);
  case MLC_G_SEQ: return seq_pure(m, value);
  default: return true;
  }
}

/* ======================================================================== */
/* struct info                                                              */
/* ======================================================================== */

bool tf_dim_same(const MlcExpr *a, const MlcExpr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || !mlc_dtype_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
  case MLC_EXPR_INT: return a->int_val == b->int_val;
  case MLC_EXPR_BINARY:
    return a->bin.op == b->bin.op && tf_dim_same(a->bin.a, b->bin.a) && tf_dim_same(a->bin.b, b->bin.b);
  default: return false;
  }
}

static bool dims_same(MlcExpr *const *a, MlcExpr *const *b, int n) {
  for (int i = 0; i < n; i++)
    if (!tf_dim_same(a[i], b[i])) return false;
  return true;
}

static bool dtype_clash(MlcDType a, MlcDType b) {
  return a.code != MLC_TC_VOID && b.code != MLC_TC_VOID && !mlc_dtype_eq(a, b);
}

static bool ndim_clash(int a, int b) { return a >= 0 && b >= 0 && a != b; }

bool tf_sinfo_contradicts(const MlcSInfo *a, const MlcSInfo *b) {
  if (!a || !b || a->kind == MLC_SINFO_OBJECT || b->kind == MLC_SINFO_OBJECT) return false;
  if (a->kind != b->kind) return true;
  switch (a->kind) {
  case MLC_SINFO_TENSOR:
    if (dtype_clash(a->tensor.dtype, b->tensor.dtype) || ndim_clash(a->tensor.ndim, b->tensor.ndim))
      return true;
    return a->tensor.shape && b->tensor.shape && a->tensor.ndim == b->tensor.ndim &&
           !dims_same(a->tensor.shape, b->tensor.shape, a->tensor.ndim);
  case MLC_SINFO_TUPLE:
    if (a->tuple.n != b->tuple.n) return true;
    for (int i = 0; i < a->tuple.n; i++)
      if (tf_sinfo_contradicts(a->tuple.fields[i], b->tuple.fields[i])) return true;
    return false;
  case MLC_SINFO_SHAPE:
    if (ndim_clash(a->shape.ndim, b->shape.ndim)) return true;
    return a->shape.values && b->shape.values && a->shape.ndim == b->shape.ndim &&
           !dims_same(a->shape.values, b->shape.values, a->shape.ndim);
  case MLC_SINFO_PRIM:
    return dtype_clash(a->prim.dtype, b->prim.dtype) ||
           (a->prim.value && b->prim.value && !tf_dim_same(a->prim.value, b->prim.value));
  case MLC_SINFO_OBJECT: return false;
  }
  return false;
}

static MlcSInfo *join_tensor(MlcCtx *ctx, MlcSInfo *a, MlcSInfo *b) {
  MlcDType dt = mlc_dtype_eq(a->tensor.dtype, b->tensor.dtype) ? a->tensor.dtype : MLC_VOID;
  int nd = a->tensor.ndim == b->tensor.ndim ? a->tensor.ndim : -1;
  bool same = nd >= 0 && a->tensor.shape && b->tensor.shape && dims_same(a->tensor.shape, b->tensor.shape, nd);
  return mlc_sinfo_tensor(ctx, same ? a->tensor.shape : NULL, nd, dt);
}

MlcSInfo *tf_sinfo_join(MlcCtx *ctx, MlcSInfo *a, MlcSInfo *b) {
  if (a == b) return a;
  if (!a || !b || a->kind != b->kind) return mlc_sinfo_object(ctx);
  switch (a->kind) {
  case MLC_SINFO_OBJECT: return a;
  case MLC_SINFO_TENSOR: return join_tensor(ctx, a, b);
  case MLC_SINFO_TUPLE: {
    if (a->tuple.n != b->tuple.n) return mlc_sinfo_object(ctx);
    MlcSInfo **fs = mlc_arena_array(&ctx->arena, (size_t)(a->tuple.n ? a->tuple.n : 1), sizeof *fs);
    for (int i = 0; i < a->tuple.n; i++) fs[i] = tf_sinfo_join(ctx, a->tuple.fields[i], b->tuple.fields[i]);
    return mlc_sinfo_tuple(ctx, fs, a->tuple.n);
  }
  case MLC_SINFO_SHAPE: {
    int nd = a->shape.ndim == b->shape.ndim ? a->shape.ndim : -1;
    bool same = nd >= 0 && a->shape.values && b->shape.values && dims_same(a->shape.values, b->shape.values, nd);
    return mlc_sinfo_shape(ctx, same ? a->shape.values : NULL, nd);
  }
  case MLC_SINFO_PRIM:
    if (!mlc_dtype_eq(a->prim.dtype, b->prim.dtype)) return mlc_sinfo_object(ctx);
    return mlc_sinfo_prim(ctx, a->prim.dtype,
                          tf_dim_same(a->prim.value, b->prim.value) ? a->prim.value : NULL);
  }
  return mlc_sinfo_object(ctx);
}

int tf_sinfo_detail(const MlcSInfo *s) {
  if (!s) return 0;
  switch (s->kind) {
  case MLC_SINFO_OBJECT: return 0;
  case MLC_SINFO_TENSOR:
    return 1 + (s->tensor.dtype.code != MLC_TC_VOID) + (s->tensor.ndim >= 0) + 2 * (s->tensor.shape != NULL);
  case MLC_SINFO_TUPLE: {
    int d = 1;
    for (int i = 0; i < s->tuple.n; i++) d += tf_sinfo_detail(s->tuple.fields[i]);
    return d;
  }
  case MLC_SINFO_SHAPE: return 1 + (s->shape.ndim >= 0) + (s->shape.values != NULL);
  case MLC_SINFO_PRIM: return 2 + (s->prim.value != NULL);
  }
  return 0;
}

bool tf_tensor_bytes(const MlcSInfo *s, int64_t *bytes) {
  if (!s || s->kind != MLC_SINFO_TENSOR || !s->tensor.shape || s->tensor.ndim < 0 ||
      s->tensor.dtype.code == MLC_TC_VOID)
    return false;
  int64_t n = (int64_t)mlc_dtype_bytes(s->tensor.dtype);
  for (int i = 0; i < s->tensor.ndim; i++) {
    int64_t d;
    if (!mlc_e_is_const_int(s->tensor.shape[i], &d) || d < 0) return false;
    if (d && n > ((int64_t)1 << 62) / d) return false;
    n *= d;
  }
  *bytes = n;
  return true;
}

const char *tf_sinfo_str(MlcCtx *ctx, const MlcSInfo *s) {
  MlcStrBuf sb = {0};
  mlc_print_sinfo(s, &sb);
  const char *r = mlc_arena_strndup(&ctx->arena, mlc_sb_cstr(&sb), sb.len);
  mlc_vec_free(&sb);
  return r;
}
