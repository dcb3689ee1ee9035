/* mutate.c - bottom-up rebuilding of IR trees, sharing what did not change.
 *
 * Nodes are immutable, so a pass that changes one index rebuilds the path
 * from that index to the root and nothing else: every child is mutated
 * first, and a node whose children all came back as the same pointers is
 * returned itself.  Arrays are copied on the first changed element only.
 * Rebuilding goes through the builders of ir.h, so a rebuilt node is checked
 * like any other (a substitution that breaks dtypes fails with an error).
 *
 * Definition sites (loop vars, iter vars, let vars, graph binding vars and
 * params) are kept: renaming a definition is a decision about scope that a
 * hook makes explicitly, not something a substitution of uses should do. */
#include "mlcc/ir.h"

static MlcSInfo *mutate_sinfo(MlcMutator *m, MlcSInfo *s);

/* ---- copy-on-write helpers ------------------------------------------------- */

static void *cow(MlcMutator *m, const void *orig, void *cur, int n, size_t elem) {
  return cur != orig ? cur : mlc_arena_dup(&m->ctx->arena, orig, (size_t)n * elem);
}

/* one child in place: *slot is replaced when it changed; NULL children stay */
#define MUT_ONE(name, T, fn)                                 \
  static bool name(MlcMutator *m, T **slot, bool *changed) { \
    if (!*slot) return true;                                 \
    T *x = fn(m, *slot);                                     \
    if (!x) return false;                                    \
    if (x != *slot) *slot = x, *changed = true;              \
    return true;                                             \
  }

/* an array of children: copied on the first change */
#define MUT_ARRAY(name, T, fn)                                         \
  static bool name(MlcMutator *m, T ***arr, int n, bool *changed) {    \
    T **in = *arr, **out = in;                                         \
    for (int i = 0; i < n; i++) {                                      \
      if (!in[i]) continue;                                            \
      T *x = fn(m, in[i]);                                             \
      if (!x) return false;                                            \
      if (x != in[i]) {                                                \
        out = cow(m, in, out, n, sizeof *in);                          \
        out[i] = x;                                                    \
      }                                                                \
    }                                                                  \
    if (out != in) *arr = out, *changed = true;                        \
    return true;                                                       \
  }

#define MUT_KINDS(X)                             \
  X(expr, MlcExpr, mlc_mutate_expr)              \
  X(stmt, MlcStmt, mlc_mutate_stmt)              \
  X(gexpr, MlcGExpr, mlc_mutate_gexpr)           \
  X(sinfo, MlcSInfo, mutate_sinfo)

#define X(k, T, fn) MUT_ONE(mut_##k, T, fn) MUT_ARRAY(mut_##k##s, T, fn)
MUT_KINDS(X)
#undef X

static MlcBuffer *map_buffer(MlcMutator *m, MlcBuffer *b, bool *changed) {
  MlcBuffer *n = b ? mlc_map_get(&m->buffer_map, b) : NULL;
  if (!n || n == b) return b;
  *changed = true;
  return n;
}

static void mut_buffers(MlcMutator *m, MlcBuffer ***arr, int n, bool *changed) {
  MlcBuffer **in = *arr, **out = in;
  for (int i = 0; i < n; i++) {
    bool ch = false;
    MlcBuffer *x = map_buffer(m, in[i], &ch);
    if (ch) {
      out = cow(m, in, out, n, sizeof *in);
      out[i] = x;
    }
  }
  if (out != in) *arr = out, *changed = true;
}

/* ---- attributes: expressions inside values ---------------------------------------- */

static bool mut_value(MlcMutator *m, MlcAttrValue *v, bool *changed) {
  if (v->kind == MLC_ATTR_EXPR) return mut_expr(m, &v->expr, changed);
  if (v->kind != MLC_ATTR_LIST) return true;
  MlcAttrValue *in = v->list.items, *out = in;
  for (int i = 0; i < v->list.n; i++) {
    MlcAttrValue item = in[i];
    bool ch = false;
    if (!mut_value(m, &item, &ch)) return false;
    if (ch) {
      out = cow(m, in, out, v->list.n, sizeof *in);
      out[i] = item;
    }
  }
  if (out != in) v->list.items = out, *changed = true;
  return true;
}

static bool mut_attrs(MlcMutator *m, MlcAttrs *a, bool *changed) {
  MlcAttr *in = a->items, *out = in;
  for (int i = 0; i < a->n; i++) {
    MlcAttrValue val = in[i].val;
    bool ch = false;
    if (!mut_value(m, &val, &ch)) return false;
    if (ch) {
      out = cow(m, in, out, a->n, sizeof *in);
      out[i].val = val;
    }
  }
  if (out != in) a->items = out, *changed = true;
  return true;
}

/* ---- expressions --------------------------------------------------------------------- */

MlcExpr *mlc_mutate_expr(MlcMutator *m, MlcExpr *e) {
  if (!e) return NULL;
  return m->expr ? m->expr(m, e) : mlc_mutate_expr_children(m, e);
}

static MlcExpr *rebuild_unary(MlcMutator *m, MlcExpr *e) {
  MlcExpr *a = e->operand;
  bool ch = false;
  if (!mut_expr(m, &a, &ch)) return NULL;
  if (!ch) return e;
  if (e->kind == MLC_EXPR_NOT) return mlc_e_not(m->ctx, a);
  if (e->kind == MLC_EXPR_NEG) return mlc_e_neg(m->ctx, a);
  return mlc_e_cast(m->ctx, e->dtype, a);
}

static MlcExpr *rebuild_load(MlcMutator *m, MlcExpr *e) {
  bool ch = false;
  MlcBuffer *buf = map_buffer(m, e->load.buf, &ch);
  MlcExpr **idx = e->load.idx;
  if (!mut_exprs(m, &idx, e->load.n, &ch)) return NULL;
  return ch ? mlc_e_load(m->ctx, buf, idx, e->load.n) : e;
}

static MlcExpr *rebuild_select(MlcMutator *m, MlcExpr *e) {
  MlcExpr *c = e->select.cond, *t = e->select.t, *f = e->select.f;
  bool ch = false;
  if (!mut_expr(m, &c, &ch) || !mut_expr(m, &t, &ch) || !mut_expr(m, &f, &ch)) return NULL;
  return ch ? mlc_e_select(m->ctx, c, t, f) : e;
}

static MlcExpr *rebuild_binary(MlcMutator *m, MlcExpr *e) {
  MlcExpr *a = e->bin.a, *b = e->bin.b;
  bool ch = false;
  if (!mut_expr(m, &a, &ch) || !mut_expr(m, &b, &ch)) return NULL;
  return ch ? mlc_e_bin(m->ctx, e->bin.op, a, b) : e;
}

static MlcExpr *rebuild_ramp(MlcMutator *m, MlcExpr *e) {
  MlcExpr *base = e->ramp.base, *stride = e->ramp.stride;
  bool ch = false;
  if (!mut_expr(m, &base, &ch) || !mut_expr(m, &stride, &ch)) return NULL;
  return ch ? mlc_e_ramp(m->ctx, base, stride, e->ramp.lanes) : e;
}

/* the bound var is a definition and stays */
static MlcExpr *rebuild_let(MlcMutator *m, MlcExpr *e) {
  MlcExpr *value = e->let.value, *body = e->let.body;
  bool ch = false;
  if (!mut_expr(m, &value, &ch) || !mut_expr(m, &body, &ch)) return NULL;
  return ch ? mlc_e_let(m->ctx, e->let.var, value, body) : e;
}

MlcExpr *mlc_mutate_expr_children(MlcMutator *m, MlcExpr *e) {
  if (!e) return NULL;
  bool ch = false;
  switch (e->kind) {
  case MLC_EXPR_VAR:
  case MLC_EXPR_INT:
  case MLC_EXPR_FLOAT:
  case MLC_EXPR_STR: return e;
  case MLC_EXPR_BINARY: return rebuild_binary(m, e);
  case MLC_EXPR_RAMP: return rebuild_ramp(m, e);
  case MLC_EXPR_LET: return rebuild_let(m, e);
  case MLC_EXPR_NOT:
  case MLC_EXPR_NEG:
  case MLC_EXPR_CAST: return rebuild_unary(m, e);
  case MLC_EXPR_SELECT: return rebuild_select(m, e);
  case MLC_EXPR_LOAD: return rebuild_load(m, e);
  case MLC_EXPR_BROADCAST: {
    MlcExpr *v = e->bcast.value;
    if (!mut_expr(m, &v, &ch)) return NULL;
    return ch ? mlc_e_broadcast(m->ctx, v, e->bcast.lanes) : e;
  }
  case MLC_EXPR_CALL: {
    MlcExpr **args = e->call.args;
    if (!mut_exprs(m, &args, e->call.n, &ch)) return NULL;
    return ch ? mlc_e_call_typed(m->ctx, e->call.op, e->dtype, args, e->call.n) : e;
  }
  }
  return e;
}

/* ---- blocks ----------------------------------------------------------------------------- */

static bool mut_iters(MlcMutator *m, MlcIterVar **arr, int n, bool *changed) {
  MlcIterVar *in = *arr, *out = in;
  for (int i = 0; i < n; i++) {
    MlcRange dom = in[i].dom;
    bool ch = false;
    if (!mut_expr(m, &dom.min, &ch) || !mut_expr(m, &dom.extent, &ch)) return false;
    if (ch) {
      out = cow(m, in, out, n, sizeof *in);
      out[i].dom = dom;
    }
  }
  if (out != in) *arr = out, *changed = true;
  return true;
}

static bool mut_region(MlcMutator *m, MlcBufferRegion *r, bool *changed) {
  r->buf = map_buffer(m, r->buf, changed);
  int ndim = r->buf ? r->buf->ndim : 0;
  MlcRange *in = r->ranges, *out = in;
  for (int d = 0; d < ndim; d++) {
    MlcRange rg = in[d];
    bool ch = false;
    if (!mut_expr(m, &rg.min, &ch) || !mut_expr(m, &rg.extent, &ch)) return false;
    if (ch) {
      out = cow(m, in, out, ndim, sizeof *in);
      out[d] = rg;
    }
  }
  if (out != in) r->ranges = out, *changed = true;
  return true;
}

static bool mut_regions(MlcMutator *m, MlcBufferRegion **arr, int n, bool *changed) {
  MlcBufferRegion *in = *arr, *out = in;
  for (int i = 0; i < n; i++) {
    MlcBufferRegion r = in[i];
    bool ch = false;
    if (!mut_region(m, &r, &ch)) return false;
    if (ch) {
      out = cow(m, in, out, n, sizeof *in);
      out[i] = r;
    }
  }
  if (out != in) *arr = out, *changed = true;
  return true;
}

static MlcBlock *mutate_block(MlcMutator *m, MlcBlock *b, bool *changed) {
  MlcBlock nb = *b;
  bool ch = false;
  if (!mut_iters(m, &nb.iters, nb.n_iters, &ch) || !mut_regions(m, &nb.reads, nb.n_reads, &ch) ||
      !mut_regions(m, &nb.writes, nb.n_writes, &ch) || !mut_stmt(m, &nb.init, &ch))
    return NULL;
  mut_buffers(m, &nb.allocs, nb.n_allocs, &ch);
  if (!mut_attrs(m, &nb.annotations, &ch) || !mut_stmt(m, &nb.body, &ch)) return NULL;
  if (!ch) return b;
  *changed = true;
  return mlc_block_new(m->ctx, nb.name, nb.iters, nb.n_iters, nb.reads, nb.n_reads, nb.writes,
                       nb.n_writes, nb.init, nb.allocs, nb.n_allocs, nb.annotations, nb.body);
}

/* ---- statements --------------------------------------------------------------------------- */

MlcStmt *mlc_mutate_stmt(MlcMutator *m, MlcStmt *s) {
  if (!s) return NULL;
  return m->stmt ? m->stmt(m, s) : mlc_mutate_stmt_children(m, s);
}

static MlcStmt *rebuild_store(MlcMutator *m, MlcStmt *s) {
  bool ch = false;
  MlcBuffer *buf = map_buffer(m, s->store.buf, &ch);
  MlcExpr **idx = s->store.idx, *value = s->store.value;
  if (!mut_exprs(m, &idx, s->store.n, &ch) || !mut_expr(m, &value, &ch)) return NULL;
  return ch ? mlc_s_store(m->ctx, buf, idx, s->store.n, value) : s;
}

static MlcStmt *rebuild_for(MlcMutator *m, MlcStmt *s) {
  bool ch = false;
  MlcExpr *min = s->loop.min, *extent = s->loop.extent;
  MlcAttrs annotations = s->loop.annotations;
  MlcStmt *body = s->loop.body;
  if (!mut_expr(m, &min, &ch) || !mut_expr(m, &extent, &ch) || !mut_attrs(m, &annotations, &ch) ||
      !mut_stmt(m, &body, &ch))
    return NULL;
  return ch ? mlc_s_for(m->ctx, s->loop.var, min, extent, s->loop.kind, s->loop.thread, annotations, body)
            : s;
}

static MlcStmt *rebuild_realize(MlcMutator *m, MlcStmt *s) {
  bool ch = false;
  MlcExpr **values = s->realize.values, *pred = s->realize.pred;
  if (!mut_exprs(m, &values, s->realize.n, &ch) || !mut_expr(m, &pred, &ch)) return NULL;
  MlcBlock *block = mutate_block(m, s->realize.block, &ch);
  if (!block) return NULL;
  return ch ? mlc_s_realize(m->ctx, values, s->realize.n, pred, block) : s;
}

static MlcStmt *rebuild_if(MlcMutator *m, MlcStmt *s) {
  bool ch = false;
  MlcExpr *cond = s->if_.cond;
  MlcStmt *then_s = s->if_.then_s, *else_s = s->if_.else_s;
  if (!mut_expr(m, &cond, &ch) || !mut_stmt(m, &then_s, &ch) || !mut_stmt(m, &else_s, &ch)) return NULL;
  return ch ? mlc_s_if(m->ctx, cond, then_s, else_s) : s;
}

static MlcStmt *rebuild_let_stmt(MlcMutator *m, MlcStmt *s) {
  bool ch = false;
  MlcExpr *value = s->let.value;
  MlcStmt *body = s->let.body;
  if (!mut_expr(m, &value, &ch) || !mut_stmt(m, &body, &ch)) return NULL;
  return ch ? mlc_s_let(m->ctx, s->let.var, value, body) : s;
}

MlcStmt *mlc_mutate_stmt_children(MlcMutator *m, MlcStmt *s) {
  if (!s) return NULL;
  bool ch = false;
  switch (s->kind) {
  case MLC_STMT_STORE: return rebuild_store(m, s);
  case MLC_STMT_FOR: return rebuild_for(m, s);
  case MLC_STMT_BLOCK_REALIZE: return rebuild_realize(m, s);
  case MLC_STMT_SEQ: {
    MlcStmt **items = s->seq.items;
    if (!mut_stmts(m, &items, s->seq.n, &ch)) return NULL;
    return ch ? mlc_s_seq(m->ctx, items, s->seq.n) : s;
  }
  case MLC_STMT_IF: return rebuild_if(m, s);
  case MLC_STMT_LET: return rebuild_let_stmt(m, s);
  case MLC_STMT_ALLOCATE: {
    MlcBuffer *buf = map_buffer(m, s->alloc.buf, &ch);
    MlcStmt *body = s->alloc.body;
    if (!mut_stmt(m, &body, &ch)) return NULL;
    return ch ? mlc_s_allocate(m->ctx, buf, body) : s;
  }
  case MLC_STMT_EVALUATE: {
    MlcExpr *e = s->eval;
    if (!mut_expr(m, &e, &ch)) return NULL;
    return ch ? mlc_s_evaluate(m->ctx, e) : s;
  }
  }
  return s;
}

/* ---- graph ----------------------------------------------------------------------------------- */

static MlcSInfo *mutate_sinfo(MlcMutator *m, MlcSInfo *s) {
  bool ch = false;
  switch (s->kind) {
  case MLC_SINFO_OBJECT: return s;
  case MLC_SINFO_TENSOR: {
    MlcExpr **shape = s->tensor.shape;
    if (shape && !mut_exprs(m, &shape, s->tensor.ndim, &ch)) return NULL;
    return ch ? mlc_sinfo_tensor(m->ctx, shape, s->tensor.ndim, s->tensor.dtype) : s;
  }
  case MLC_SINFO_TUPLE: {
    MlcSInfo **fields = s->tuple.fields;
    if (!mut_sinfos(m, &fields, s->tuple.n, &ch)) return NULL;
    return ch ? mlc_sinfo_tuple(m->ctx, fields, s->tuple.n) : s;
  }
  case MLC_SINFO_SHAPE: {
    MlcExpr **values = s->shape.values;
    if (values && !mut_exprs(m, &values, s->shape.ndim, &ch)) return NULL;
    return ch ? mlc_sinfo_shape(m->ctx, values, s->shape.ndim) : s;
  }
  case MLC_SINFO_PRIM: {
    MlcExpr *value = s->prim.value;
    if (!mut_expr(m, &value, &ch)) return NULL;
    return ch ? mlc_sinfo_prim(m->ctx, s->prim.dtype, value) : s;
  }
  }
  return s;
}

MlcGExpr *mlc_mutate_gexpr(MlcMutator *m, MlcGExpr *e) {
  if (!e) return NULL;
  return m->gexpr ? m->gexpr(m, e) : mlc_mutate_gexpr_children(m, e);
}

/* A call's result struct info is often one of its out_sinfo (call_tir);
 * keeping that sharing keeps the rebuilt call shaped like the original. */
static MlcGExpr *rebuild_call(MlcMutator *m, MlcGExpr *e) {
  bool ch = false;
  MlcGExpr *callee = e->call.callee, **args = e->call.args;
  MlcAttrs attrs = e->call.attrs;
  MlcSInfo **sargs = e->call.sinfo_args, *sinfo = e->sinfo;
  if (!mut_gexpr(m, &callee, &ch) || !mut_gexprs(m, &args, e->call.n, &ch) ||
      !mut_attrs(m, &attrs, &ch) || !mut_sinfos(m, &sargs, e->call.n_sinfo_args, &ch))
    return NULL;
  int shared = -1;
  for (int i = 0; i < e->call.n_sinfo_args && shared < 0; i++)
    if (e->call.sinfo_args[i] == e->sinfo) shared = i;
  if (shared >= 0) {
    if (sargs[shared] != sinfo) sinfo = sargs[shared], ch = true;
  } else if (!mut_sinfo(m, &sinfo, &ch)) {
    return NULL;
  }
  if (!ch) return e;
  return mlc_g_call(m->ctx, callee, args, e->call.n, attrs, sargs, e->call.n_sinfo_args, sinfo);
}

static MlcBindingBlock *rebuild_binding_block(MlcMutator *m, MlcBindingBlock *b) {
  MlcBinding *in = b->bindings, *out = in;
  for (int i = 0; i < b->n; i++) {
    MlcGExpr *value = in[i].value;
    bool ch = false;
    if (!mut_gexpr(m, &value, &ch)) return NULL;
    if (ch) {
      out = cow(m, in, out, b->n, sizeof *in);
      out[i].value = value;
    }
  }
  return out == in ? b : mlc_g_block(m->ctx, b->dataflow, out, b->n);
}

static MlcGExpr *rebuild_gseq(MlcMutator *m, MlcGExpr *e) {
  bool ch = false;
  MlcBindingBlock **in = e->seq.blocks, **out = in;
  for (int i = 0; i < e->seq.n; i++) {
    MlcBindingBlock *nb = rebuild_binding_block(m, in[i]);
    if (!nb) return NULL;
    if (nb != in[i]) {
      out = cow(m, in, out, e->seq.n, sizeof *in);
      out[i] = nb;
      ch = true;
    }
  }
  MlcGExpr *result = e->seq.result;
  if (!mut_gexpr(m, &result, &ch)) return NULL;
  return ch ? mlc_g_seq(m->ctx, out, e->seq.n, result) : e;
}

static MlcGExpr *rebuild_gif(MlcMutator *m, MlcGExpr *e) {
  bool ch = false;
  MlcGExpr *c = e->if_.cond, *t = e->if_.then_e, *f = e->if_.else_e;
  if (!mut_gexpr(m, &c, &ch) || !mut_gexpr(m, &t, &ch) || !mut_gexpr(m, &f, &ch)) return NULL;
  return ch ? mlc_g_if(m->ctx, c, t, f) : e;
}

MlcGExpr *mlc_mutate_gexpr_children(MlcMutator *m, MlcGExpr *e) {
  if (!e) return NULL;
  bool ch = false;
  switch (e->kind) {
  case MLC_G_VAR:
  case MLC_G_DFVAR:
  case MLC_G_CONST:
  case MLC_G_STR:
  case MLC_G_DTYPE:
  case MLC_G_OP:
  case MLC_G_GLOBAL:
  case MLC_G_EXTERN: return e;
  case MLC_G_TUPLE: {
    MlcGExpr **fields = e->tuple.fields;
    if (!mut_gexprs(m, &fields, e->tuple.n, &ch)) return NULL;
    return ch ? mlc_g_tuple(m->ctx, fields, e->tuple.n) : e;
  }
  case MLC_G_GET_ITEM: {
    MlcGExpr *t = e->get_item.tuple;
    if (!mut_gexpr(m, &t, &ch)) return NULL;
    return ch ? mlc_g_get_item(m->ctx, t, e->get_item.index) : e;
  }
  case MLC_G_CALL: return rebuild_call(m, e);
  case MLC_G_SHAPE: {
    MlcExpr **values = e->shape.values;
    if (!mut_exprs(m, &values, e->shape.n, &ch)) return NULL;
    return ch ? mlc_g_shape(m->ctx, values, e->shape.n) : e;
  }
  case MLC_G_PRIM: {
    MlcExpr *v = e->prim;
    if (!mut_expr(m, &v, &ch)) return NULL;
    return ch ? mlc_g_prim(m->ctx, v) : e;
  }
  case MLC_G_IF: return rebuild_gif(m, e);
  case MLC_G_SEQ: return rebuild_gseq(m, e);
  }
  return e;
}

/* ---- substitution ------------------------------------------------------------------------------ */

static MlcExpr *substitute_var(MlcMutator *m, MlcExpr *e) {
  const MlcMap *vmap = m->user;
  if (e->kind == MLC_EXPR_VAR) {
    MlcExpr *to = mlc_map_get(vmap, e);
    return to ? to : e;
  }
  return mlc_mutate_expr_children(m, e);
}

MlcExpr *mlc_substitute_expr(MlcCtx *ctx, MlcExpr *e, const MlcMap *vmap) {
  if (!e || !vmap || vmap->len == 0) return e;
  MlcMutator m = {.ctx = ctx, .user = (void *)vmap, .expr = substitute_var};
  return mlc_mutate_expr(&m, e);
}

MlcStmt *mlc_substitute_stmt(MlcCtx *ctx, MlcStmt *s, const MlcMap *vmap) {
  if (!s || !vmap || vmap->len == 0) return s;
  MlcMutator m = {.ctx = ctx, .user = (void *)vmap, .expr = substitute_var};
  return mlc_mutate_stmt(&m, s);
}
