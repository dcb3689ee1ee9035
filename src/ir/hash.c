/* hash.c - the structural hash, in agreement with equal.c: structurally equal
 * functions and modules hash equal.
 *
 * The walk is equal.c's walk on one side: the same fields, and definition
 * sites met in the same order.  A bound var or buffer hashes by the index of
 * its definition (the order in which the walk met it), never by pointer or
 * name, so two copies that differ only in their vars hash alike.  A free var
 * hashes by name and dtype: equality compares free vars by pointer, and one
 * pointer has one name, so this agrees and stays reproducible across runs.
 * Unordered things (attribute sets, a module's functions) combine
 * order-independently. */
#include "ir/equal_internal.h"

#include <math.h>

enum {
  SEED_EXPR = 0x45, SEED_STMT = 0x53, SEED_GEXPR = 0x47, SEED_SINFO = 0x49,
  SEED_BOUND = 0x42, SEED_FREE = 0x46, SEED_BUFFER = 0x55, SEED_ATTR = 0x41,
  SEED_NONE = 0x4e, SEED_FUNC = 0x4d,
};

typedef struct Hs {
  MlcMap index;    /* bound var/buffer/graph var -> definition index + 1 */
  ScopeLog log;
  uintptr_t next;  /* definitions met so far */
  bool implicit;   /* in a signature: the first sight of a var defines it */
} Hs;

static uint64_t h_expr(Hs *s, const MlcExpr *e);
static uint64_t h_stmt(Hs *s, const MlcStmt *st);
static uint64_t h_gexpr(Hs *s, const MlcGExpr *e);
static uint64_t h_sinfo(Hs *s, const MlcSInfo *si);

static uint64_t mix(uint64_t h, uint64_t v) { return mlc_hash_combine(h, v); }

static uint64_t h_dtype(MlcDType t) {
  return ((uint64_t)t.code << 24) | ((uint64_t)t.bits << 16) | t.lanes;
}

static uint64_t h_bits(const void *p, size_t n) { return mlc_hash_bytes(p, n, 0); }

/* ---- definitions ---------------------------------------------------------- */

static uint64_t h_index(uintptr_t i) { return mix(SEED_BOUND, i); }

/* Mirrors equal.c's bind_pair: an already bound node keeps its index. */
static uint64_t h_define(Hs *s, const void *node) {
  uintptr_t i = (uintptr_t)mlc_map_get(&s->index, node);
  if (!i) {
    i = ++s->next;
    scope_bind(&s->log, &s->index, node, (void *)i);
  }
  return h_index(i);
}

static uint64_t h_def_var(Hs *s, const MlcExpr *v) {
  return mix(mix(SEED_EXPR + v->kind, h_dtype(v->dtype)), h_define(s, v));
}

static uint64_t h_var_use(Hs *s, const MlcExpr *v) {
  uintptr_t i = (uintptr_t)mlc_map_get(&s->index, v);
  if (i) return h_index(i);
  if (s->implicit) return h_define(s, v);
  return name_hash(v->var.name, SEED_FREE);
}

static uint64_t h_buffer_use(Hs *s, const MlcBuffer *b) {
  uintptr_t i = (uintptr_t)mlc_map_get(&s->index, b);
  if (i) return h_index(i);
  return mix(mix(name_hash(b->name, SEED_FREE), h_dtype(b->dtype)), (uint64_t)b->ndim);
}

/* ---- expressions --------------------------------------------------------------- */

static uint64_t h_opt_expr(Hs *s, const MlcExpr *e) { return e ? h_expr(s, e) : SEED_NONE; }

static uint64_t h_exprs(Hs *s, MlcExpr *const *es, int n) {
  uint64_t h = mix(SEED_EXPR, (uint64_t)n);
  for (int i = 0; i < n; i++) h = mix(h, h_opt_expr(s, es[i]));
  return h;
}

static uint64_t h_let_expr(Hs *s, uint64_t h, const MlcExpr *e) {
  h = mix(h, h_opt_expr(s, e->let.value));
  size_t scope = s->log.len;
  h = mix(h, h_def_var(s, e->let.var));
  h = mix(h, h_opt_expr(s, e->let.body));
  scope_unwind(&s->log, scope);
  return h;
}

static uint64_t h_expr(Hs *s, const MlcExpr *e) {
  uint64_t h = mix(SEED_EXPR + e->kind, h_dtype(e->dtype));
  switch (e->kind) {
  case MLC_EXPR_VAR: return mix(h, h_var_use(s, e));
  case MLC_EXPR_INT: return mix(h, h_bits(&e->int_val, sizeof e->int_val));
  case MLC_EXPR_FLOAT: { /* one hash for every NaN, as equality has it */
    double v = isnan(e->float_val) ? NAN : e->float_val;
    return mix(h, h_bits(&v, sizeof v));
  }
  case MLC_EXPR_STR: return mix(h, name_hash(e->str_val, 0));
  case MLC_EXPR_BINARY:
    h = mix(h, (uint64_t)e->bin.op);
    h = mix(h, h_opt_expr(s, e->bin.a));
    return mix(h, h_opt_expr(s, e->bin.b));
  case MLC_EXPR_NOT:
  case MLC_EXPR_NEG:
  case MLC_EXPR_CAST: return mix(h, h_opt_expr(s, e->operand));
  case MLC_EXPR_SELECT:
    h = mix(h, h_opt_expr(s, e->select.cond));
    h = mix(h, h_opt_expr(s, e->select.t));
    return mix(h, h_opt_expr(s, e->select.f));
  case MLC_EXPR_LOAD:
    h = mix(h, h_buffer_use(s, e->load.buf));
    return mix(h, h_exprs(s, e->load.idx, e->load.n));
  case MLC_EXPR_RAMP:
    h = mix(h, (uint64_t)e->ramp.lanes);
    h = mix(h, h_opt_expr(s, e->ramp.base));
    return mix(h, h_opt_expr(s, e->ramp.stride));
  case MLC_EXPR_BROADCAST:
    h = mix(h, (uint64_t)e->bcast.lanes);
    return mix(h, h_opt_expr(s, e->bcast.value));
  case MLC_EXPR_LET: return h_let_expr(s, h, e);
  case MLC_EXPR_CALL:
    h = mix(h, (uint64_t)e->call.op);
    return mix(h, h_exprs(s, e->call.args, e->call.n));
  }
  return h;
}

/* ---- attributes ------------------------------------------------------------------ */

static uint64_t h_value(Hs *s, const MlcAttrValue *v) {
  uint64_t h = mix(SEED_ATTR, (uint64_t)v->kind);
  switch (v->kind) {
  case MLC_ATTR_NONE: return h;
  case MLC_ATTR_BOOL: return mix(h, v->b);
  case MLC_ATTR_INT: return mix(h, h_bits(&v->i, sizeof v->i));
  case MLC_ATTR_FLOAT: return mix(h, h_bits(&v->f, sizeof v->f));
  case MLC_ATTR_STR: return mix(h, name_hash(v->s, 0));
  case MLC_ATTR_DTYPE: return mix(h, h_dtype(v->dtype));
  case MLC_ATTR_EXPR: return mix(h, h_opt_expr(s, v->expr));
  case MLC_ATTR_LIST:
    h = mix(h, (uint64_t)v->list.n);
    for (int i = 0; i < v->list.n; i++) h = mix(h, h_value(s, &v->list.items[i]));
    return h;
  }
  return h;
}

/* A set of keys: per-key hashes are summed.  Each value is hashed from the
 * same definition count, since equality visits them in the other side's
 * order; anything an attribute defines (a let) is scoped inside it. */
static uint64_t h_attrs(Hs *s, MlcAttrs attrs) {
  uint64_t sum = 0;
  for (int i = 0; i < attrs.n; i++) {
    uintptr_t next = s->next;
    sum += mix(name_hash(attrs.items[i].key, SEED_ATTR), h_value(s, &attrs.items[i].val));
    s->next = next;
  }
  return mix(mix(SEED_ATTR, (uint64_t)attrs.n), sum);
}

/* ---- buffers and statements -------------------------------------------------------- */

static uint64_t h_def_buffer(Hs *s, const MlcBuffer *b) {
  uint64_t h = mix(SEED_BUFFER, h_dtype(b->dtype));
  h = mix(h, (uint64_t)b->ndim);
  h = mix(h, name_hash(b->scope, 0));
  h = mix(h, (uint64_t)b->align);
  h = mix(h, (uint64_t)b->offset_factor);
  h = mix(h, h_exprs(s, b->shape, b->ndim));
  h = mix(h, b->strides ? h_exprs(s, b->strides, b->ndim) : SEED_NONE);
  h = mix(h, h_opt_expr(s, b->elem_offset));
  return mix(h, h_define(s, b));
}

static uint64_t h_regions(Hs *s, const MlcBufferRegion *r, int n) {
  uint64_t h = mix(SEED_BUFFER, (uint64_t)n);
  for (int i = 0; i < n; i++) {
    h = mix(h, h_buffer_use(s, r[i].buf));
    for (int d = 0; d < r[i].buf->ndim; d++) {
      h = mix(h, h_opt_expr(s, r[i].ranges[d].min));
      h = mix(h, h_opt_expr(s, r[i].ranges[d].extent));
    }
  }
  return h;
}

static uint64_t h_opt_stmt(Hs *s, const MlcStmt *st) { return st ? h_stmt(s, st) : SEED_NONE; }

static uint64_t h_block(Hs *s, const MlcBlock *b) {
  size_t scope = s->log.len;
  uint64_t h = mix(name_hash(b->name, SEED_STMT), (uint64_t)b->n_iters);
  for (int i = 0; i < b->n_iters; i++) {
    h = mix(h, (uint64_t)b->iters[i].kind);
    h = mix(h, h_opt_expr(s, b->iters[i].dom.min));
    h = mix(h, h_opt_expr(s, b->iters[i].dom.extent));
    h = mix(h, h_def_var(s, b->iters[i].var));
  }
  h = mix(h, (uint64_t)b->n_allocs);
  for (int i = 0; i < b->n_allocs; i++) h = mix(h, h_def_buffer(s, b->allocs[i]));
  h = mix(h, h_regions(s, b->reads, b->n_reads));
  h = mix(h, h_regions(s, b->writes, b->n_writes));
  h = mix(h, h_opt_stmt(s, b->init));
  h = mix(h, h_attrs(s, b->annotations));
  h = mix(h, h_opt_stmt(s, b->body));
  scope_unwind(&s->log, scope);
  return h;
}

static uint64_t h_for(Hs *s, uint64_t h, const MlcStmt *st) {
  h = mix(h, (uint64_t)st->loop.kind);
  h = mix(h, name_hash(st->loop.thread, 0));
  h = mix(h, h_opt_expr(s, st->loop.min));
  h = mix(h, h_opt_expr(s, st->loop.extent));
  h = mix(h, h_attrs(s, st->loop.annotations));
  size_t scope = s->log.len;
  h = mix(h, h_def_var(s, st->loop.var));
  h = mix(h, h_opt_stmt(s, st->loop.body));
  scope_unwind(&s->log, scope);
  return h;
}

static uint64_t h_stmt(Hs *s, const MlcStmt *st) {
  uint64_t h = SEED_STMT + st->kind;
  size_t scope = s->log.len;
  switch (st->kind) {
  case MLC_STMT_STORE:
    h = mix(h, h_buffer_use(s, st->store.buf));
    h = mix(h, h_exprs(s, st->store.idx, st->store.n));
    return mix(h, h_opt_expr(s, st->store.value));
  case MLC_STMT_FOR: return h_for(s, h, st);
  case MLC_STMT_BLOCK_REALIZE:
    h = mix(h, h_exprs(s, st->realize.values, st->realize.n));
    h = mix(h, h_opt_expr(s, st->realize.pred));
    return mix(h, h_block(s, st->realize.block));
  case MLC_STMT_SEQ:
    h = mix(h, (uint64_t)st->seq.n);
    for (int i = 0; i < st->seq.n; i++) h = mix(h, h_stmt(s, st->seq.items[i]));
    return h;
  case MLC_STMT_IF:
    h = mix(h, h_opt_expr(s, st->if_.cond));
    h = mix(h, h_opt_stmt(s, st->if_.then_s));
    return mix(h, h_opt_stmt(s, st->if_.else_s));
  case MLC_STMT_LET:
    h = mix(h, h_opt_expr(s, st->let.value));
    h = mix(h, h_def_var(s, st->let.var));
    h = mix(h, h_opt_stmt(s, st->let.body));
    scope_unwind(&s->log, scope);
    return h;
  case MLC_STMT_ALLOCATE:
    h = mix(h, h_def_buffer(s, st->alloc.buf));
    h = mix(h, h_opt_stmt(s, st->alloc.body));
    scope_unwind(&s->log, scope);
    return h;
  case MLC_STMT_EVALUATE: return mix(h, h_opt_expr(s, st->eval));
  }
  return h;
}

/* ---- prim funcs ------------------------------------------------------------------- */

static uint64_t h_prim(Hs *s, const MlcPrimFunc *f) {
  uint64_t h = mix(name_hash(f->name, SEED_FUNC), h_dtype(f->ret));
  h = mix(h, (uint64_t)f->n_params);
  s->implicit = true;
  for (int i = 0; i < f->n_params; i++) {
    h = mix(h, h_def_var(s, f->params[i].var));
    h = mix(h, f->params[i].buf ? h_def_buffer(s, f->params[i].buf) : SEED_NONE);
  }
  s->implicit = false;
  h = mix(h, h_attrs(s, f->attrs));
  return mix(h, h_opt_stmt(s, f->body));
}

/* ---- graph functions ---------------------------------------------------------------- */

static uint64_t h_opt_sinfo(Hs *s, const MlcSInfo *si) { return si ? h_sinfo(s, si) : SEED_NONE; }

static uint64_t h_sinfo(Hs *s, const MlcSInfo *si) {
  uint64_t h = SEED_SINFO + si->kind;
  switch (si->kind) {
  case MLC_SINFO_OBJECT: return h;
  case MLC_SINFO_TENSOR:
    h = mix(h, (uint64_t)(int64_t)si->tensor.ndim);
    h = mix(h, h_dtype(si->tensor.dtype));
    return mix(h, si->tensor.shape ? h_exprs(s, si->tensor.shape, si->tensor.ndim) : SEED_NONE);
  case MLC_SINFO_TUPLE:
    h = mix(h, (uint64_t)si->tuple.n);
    for (int i = 0; i < si->tuple.n; i++) h = mix(h, h_opt_sinfo(s, si->tuple.fields[i]));
    return h;
  case MLC_SINFO_SHAPE:
    h = mix(h, (uint64_t)(int64_t)si->shape.ndim);
    return mix(h, si->shape.values ? h_exprs(s, si->shape.values, si->shape.ndim) : SEED_NONE);
  case MLC_SINFO_PRIM:
    h = mix(h, h_dtype(si->prim.dtype));
    return mix(h, h_opt_expr(s, si->prim.value));
  }
  return h;
}

static uint64_t h_tensor_data(const MlcTensorData *t) {
  if (!t) return SEED_NONE;
  uint64_t h = mix(h_dtype(t->dtype), (uint64_t)t->ndim);
  for (int i = 0; i < t->ndim; i++) h = mix(h, (uint64_t)t->shape[i]);
  h = mix(h, (uint64_t)t->nbytes);
  return t->nbytes ? mix(h, h_bits(t->data, t->nbytes)) : h;
}

/* as equal.c: a graph var's struct info counts where it is defined */
static uint64_t h_def_gvar(Hs *s, const MlcGExpr *v) {
  uint64_t h = mix(SEED_GEXPR + v->kind, h_opt_sinfo(s, v->sinfo));
  return mix(h, h_define(s, v));
}

static uint64_t h_gvar_use(Hs *s, const MlcGExpr *v) {
  uintptr_t i = (uintptr_t)mlc_map_get(&s->index, v);
  return i ? h_index(i) : name_hash(v->var.name, SEED_FREE);
}

static uint64_t h_opt_gexpr(Hs *s, const MlcGExpr *e) { return e ? h_gexpr(s, e) : SEED_NONE; }

static uint64_t h_gexprs(Hs *s, MlcGExpr *const *es, int n) {
  uint64_t h = mix(SEED_GEXPR, (uint64_t)n);
  for (int i = 0; i < n; i++) h = mix(h, h_opt_gexpr(s, es[i]));
  return h;
}

static uint64_t h_gseq(Hs *s, uint64_t h, const MlcGExpr *e) {
  size_t scope = s->log.len;
  h = mix(h, (uint64_t)e->seq.n);
  for (int i = 0; i < e->seq.n; i++) {
    const MlcBindingBlock *b = e->seq.blocks[i];
    h = mix(mix(h, b->dataflow), (uint64_t)b->n);
    for (int j = 0; j < b->n; j++) {
      h = mix(h, h_opt_gexpr(s, b->bindings[j].value));
      h = mix(h, h_def_gvar(s, b->bindings[j].var));
    }
  }
  h = mix(h, h_opt_gexpr(s, e->seq.result));
  scope_unwind(&s->log, scope);
  return h;
}

static uint64_t h_gcall(Hs *s, uint64_t h, const MlcGExpr *e) {
  h = mix(h, h_opt_gexpr(s, e->call.callee));
  h = mix(h, h_gexprs(s, e->call.args, e->call.n));
  /* a call's attributes may name a size for the first time (R.tensor_to_shape's
   * shape=[r0], R.loop's count=[n]): that sight defines it, as equality does */
  bool was = s->implicit;
  s->implicit = true;
  h = mix(h, h_attrs(s, e->call.attrs));
  s->implicit = was;
  h = mix(h, (uint64_t)e->call.n_sinfo_args);
  for (int i = 0; i < e->call.n_sinfo_args; i++) h = mix(h, h_opt_sinfo(s, e->call.sinfo_args[i]));
  return h;
}

static uint64_t h_gexpr(Hs *s, const MlcGExpr *e) {
  uint64_t h = SEED_GEXPR + e->kind;
  switch (e->kind) {
  case MLC_G_VAR:
  case MLC_G_DFVAR: return mix(h, h_gvar_use(s, e));
  case MLC_G_CONST: return mix(h, h_tensor_data(e->constant));
  case MLC_G_TUPLE: return mix(h, h_gexprs(s, e->tuple.fields, e->tuple.n));
  case MLC_G_GET_ITEM:
    h = mix(h, (uint64_t)(int64_t)e->get_item.index);
    return mix(h, h_opt_gexpr(s, e->get_item.tuple));
  case MLC_G_CALL: return h_gcall(s, h, e);
  case MLC_G_SHAPE: return mix(h, h_exprs(s, e->shape.values, e->shape.n));
  case MLC_G_PRIM: return mix(h, h_opt_expr(s, e->prim));
  case MLC_G_STR:
  case MLC_G_OP:
  case MLC_G_GLOBAL:
  case MLC_G_EXTERN: return mix(h, name_hash(e->str, 0));
  case MLC_G_DTYPE: return mix(h, h_dtype(e->dtype));
  case MLC_G_IF:
    h = mix(h, h_opt_gexpr(s, e->if_.cond));
    h = mix(h, h_opt_gexpr(s, e->if_.then_e));
    return mix(h, h_opt_gexpr(s, e->if_.else_e));
  case MLC_G_SEQ: return h_gseq(s, h, e);
  }
  return h;
}

static uint64_t h_graph(Hs *s, const MlcGFunc *f) {
  uint64_t h = mix(name_hash(f->name, SEED_FUNC), f->pure);
  h = mix(h, (uint64_t)f->n_params);
  s->implicit = true;
  for (int i = 0; i < f->n_params; i++) h = mix(h, h_def_gvar(s, f->params[i]));
  h = mix(h, h_opt_sinfo(s, f->ret));
  s->implicit = false;
  h = mix(h, h_attrs(s, f->attrs));
  return mix(h, h_opt_gexpr(s, f->body));
}

/* ---- entry points ---------------------------------------------------------------------- */

static void hs_free(Hs *s) {
  mlc_map_free(&s->index);
  mlc_vec_free(&s->log);
}

uint64_t mlc_prim_func_hash(const MlcPrimFunc *f) {
  if (!f) return SEED_NONE;
  Hs s = {0};
  uint64_t h = h_prim(&s, f);
  hs_free(&s);
  return h;
}

uint64_t mlc_gfunc_hash(const MlcGFunc *f) {
  if (!f) return SEED_NONE;
  Hs s = {0};
  uint64_t h = h_graph(&s, f);
  hs_free(&s);
  return h;
}

static int cmp_u64(const void *pa, const void *pb) {
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return (a > b) - (a < b);
}

/* Functions are matched by name whatever their order: per-function hashes
 * (which include the name) are sorted before they are combined. */
uint64_t mlc_module_hash(const MlcModule *m) {
  if (!m) return SEED_NONE;
  uint64_t *hs = mlc_xcalloc((size_t)(m->n_funcs > 0 ? m->n_funcs : 1), sizeof *hs);
  for (int i = 0; i < m->n_funcs; i++) {
    const MlcFunc *f = &m->funcs[i];
    uint64_t fh = f->kind == MLC_FUNC_PRIM ? mlc_prim_func_hash(f->prim) : mlc_gfunc_hash(f->graph);
    hs[i] = mix(name_hash(f->name, SEED_FUNC + f->kind), fh);
  }
  qsort(hs, (size_t)m->n_funcs, sizeof *hs, cmp_u64);
  uint64_t h = mix(SEED_FUNC, (uint64_t)m->n_funcs);
  for (int i = 0; i < m->n_funcs; i++) h = mix(h, hs[i]);
  free(hs);
  Hs s = {0};
  h = mix(h, h_attrs(&s, m->attrs));
  hs_free(&s);
  return h;
}
