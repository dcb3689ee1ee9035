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
   * call_dps_packed write only the outputs they allocate themselves.
   * tensor_to_shape defines sizes later shapes use and checks values at run
   * time: it stays where it is even when its result is not used */
  case MLC_G_OP: return strcmp(c->str, "tensor_to_shape") != 0;
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
