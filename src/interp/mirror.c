/* mirror.c - the tree the interpreter walks.
 *
 * The function is mirrored into small nodes that point at the IR nodes and
 * carry what running needs resolved in advance: a slot number for every var
 * and buffer (so a read is an array access rather than a hash lookup) and
 * the evaluator chosen for each expression (eval.c), so that no element
 * allocates or searches anything -- the oracle has to be quick enough to
 * run every test program after every lowering stage. */
#include "interp_internal.h"

int interp_var_slot(Interp *in, const MlcExpr *var) {
  intptr_t s = (intptr_t)mlc_map_get(&in->var_slot, var);
  if (!s) mlc_map_put(&in->var_slot, var, (void *)(s = ++in->nvars));
  return (int)s - 1;
}


static CExpr **mirror_exprs(Interp *in, MlcExpr *const *es, int n) {
  CExpr **k = mlc_arena_array(&in->arena, (size_t)n + 1, sizeof *k);
  for (int i = 0; i < n; i++) k[i] = interp_mirror_expr(in, es[i]);
  return k;
}

int interp_buf_slot(Interp *in, const MlcBuffer *b) {
  intptr_t s = (intptr_t)mlc_map_get(&in->buf_slot, b);
  if (s) return (int)s - 1;
  BufInfo *bi = mlc_arena_alloc(&in->arena, sizeof *bi);
  bi->buf = b;
  mlc_vec_push(&in->bufs, bi);
  mlc_map_put(&in->buf_slot, b, (void *)(intptr_t)in->bufs.len);
  bi->shape = mirror_exprs(in, b->shape, b->ndim);
  if (b->strides) bi->strides = mirror_exprs(in, b->strides, b->ndim);
  if (b->elem_offset) bi->offset = interp_mirror_expr(in, b->elem_offset);
  return (int)in->bufs.len - 1;
}

/* an access must give one index per dimension */
static void check_rank(Interp *in, const MlcBuffer *b, int n) {
  if (n != b->ndim) interp_fail(in, "buffer '%s' of rank %d is accessed with %d indices", b->name, b->ndim, n);
}

CExpr *interp_mirror_expr(Interp *in, const MlcExpr *e) {
  if (!e) return NULL;
  CExpr *c = mlc_arena_alloc(&in->arena, sizeof *c);
  c->e = e;
  switch (e->kind) {
  case MLC_EXPR_VAR: c->slot = interp_var_slot(in, e); break;
  case MLC_EXPR_INT: c->imm = interp_make(e->dtype, e->int_val, 0); break;
  case MLC_EXPR_FLOAT: c->imm = interp_make(e->dtype, 0, e->float_val); break;
  case MLC_EXPR_STR: break;
  case MLC_EXPR_BINARY: {
    MlcExpr *ab[2] = {e->bin.a, e->bin.b};
    c->k = mirror_exprs(in, ab, 2);
    break;
  }
  case MLC_EXPR_NOT: case MLC_EXPR_NEG: case MLC_EXPR_CAST: c->k = mirror_exprs(in, &e->operand, 1); break;
  case MLC_EXPR_SELECT: {
    MlcExpr *ctf[3] = {e->select.cond, e->select.t, e->select.f};
    c->k = mirror_exprs(in, ctf, 3);
    break;
  }
  case MLC_EXPR_LOAD:
    check_rank(in, e->load.buf, e->load.n);
    c->slot = interp_buf_slot(in, e->load.buf);
    c->k = mirror_exprs(in, e->load.idx, e->load.n);
    break;
  case MLC_EXPR_RAMP: {
    MlcExpr *bs[2] = {e->ramp.base, e->ramp.stride};
    c->k = mirror_exprs(in, bs, 2);
    break;
  }
  case MLC_EXPR_BROADCAST: c->k = mirror_exprs(in, &e->bcast.value, 1); break;
  case MLC_EXPR_LET: {
    MlcExpr *vb[2] = {e->let.value, e->let.body};
    c->slot = interp_var_slot(in, e->let.var);
    c->k = mirror_exprs(in, vb, 2);
    break;
  }
  case MLC_EXPR_CALL: c->k = mirror_exprs(in, e->call.args, e->call.n); break;
  }
  if (e->dtype.lanes > MAX_LANES) interp_fail(in, "a value of %d lanes is wider than the interpreter's %d", e->dtype.lanes, MAX_LANES);
  interp_specialize(in, c);
  return c;
}

static CStmt **mirror_stmts(Interp *in, MlcStmt *const *ss, int n) {
  CStmt **k = mlc_arena_array(&in->arena, (size_t)n + 1, sizeof *k);
  for (int i = 0; i < n; i++) k[i] = interp_mirror_stmt(in, ss[i]);
  return k;
}

static void mirror_realize(Interp *in, const MlcStmt *s, CStmt *c) {
  const MlcBlock *b = s->realize.block;
  int n = b->n_iters;
  c->e = mlc_arena_array(&in->arena, 2 * (size_t)n + 2, sizeof *c->e);
  for (int i = 0; i < n; i++) {
    c->e[i] = interp_mirror_expr(in, s->realize.values[i]);
    c->e[n + 1 + i] = interp_mirror_expr(in, b->iters[i].dom.min);
  }
  c->e[n] = interp_mirror_expr(in, s->realize.pred);
  c->slots = mlc_arena_array(&in->arena, (size_t)n + (size_t)b->n_allocs + 1, sizeof *c->slots);
  for (int i = 0; i < n; i++) c->slots[i] = interp_var_slot(in, b->iters[i].var);
  for (int i = 0; i < b->n_allocs; i++) c->slots[n + i] = interp_buf_slot(in, b->allocs[i]);
  MlcStmt *kids[2] = {b->init, b->body};
  c->k = mirror_stmts(in, kids, 2);
}

CStmt *interp_mirror_stmt(Interp *in, const MlcStmt *s) {
  if (!s) return NULL;
  CStmt *c = mlc_arena_alloc(&in->arena, sizeof *c);
  c->s = s;
  switch (s->kind) {
  case MLC_STMT_STORE: {
    int n = s->store.n;
    check_rank(in, s->store.buf, n);
    c->slot = interp_buf_slot(in, s->store.buf);
    c->e = mlc_arena_array(&in->arena, (size_t)n + 1, sizeof *c->e);
    for (int i = 0; i < n; i++) c->e[i] = interp_mirror_expr(in, s->store.idx[i]);
    c->e[n] = interp_mirror_expr(in, s->store.value);
    c->idx = interp_affine_indices(in, s->store.idx, n);
    if (s->store.value->dtype.lanes > MAX_LANES) interp_fail(in, "a store of %d lanes is too wide", s->store.value->dtype.lanes);
    break;
  }
  case MLC_STMT_FOR: {
    MlcExpr *me[2] = {s->loop.min, s->loop.extent};
    c->slot = interp_var_slot(in, s->loop.var);
    c->e = mirror_exprs(in, me, 2);
    c->k = mirror_stmts(in, &s->loop.body, 1);
    break;
  }
  case MLC_STMT_BLOCK_REALIZE: mirror_realize(in, s, c); break;
  case MLC_STMT_SEQ: c->k = mirror_stmts(in, s->seq.items, s->seq.n); break;
  case MLC_STMT_IF: {
    MlcStmt *te[2] = {s->if_.then_s, s->if_.else_s};
    c->e = mirror_exprs(in, &s->if_.cond, 1);
    c->k = mirror_stmts(in, te, 2);
    break;
  }
  case MLC_STMT_LET:
    c->slot = interp_var_slot(in, s->let.var);
    c->e = mirror_exprs(in, &s->let.value, 1);
    c->k = mirror_stmts(in, &s->let.body, 1);
    break;
  case MLC_STMT_ALLOCATE:
    c->slot = interp_buf_slot(in, s->alloc.buf);
    c->k = mirror_stmts(in, &s->alloc.body, 1);
    break;
  case MLC_STMT_EVALUATE: c->e = mirror_exprs(in, &s->eval, 1); break;
  }
  return c;
}
