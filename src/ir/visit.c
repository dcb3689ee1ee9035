/* visit.c - read-only pre-order walks over both IR levels.
 *
 * A pass that only looks (collect the buffers a block touches, count loads,
 * find a block by name) sets the hooks it cares about and lets these walks
 * reach every node.  A hook returning false prunes that node's children,
 * which is how a search stops descending once it has what it wanted.
 *
 * What is reached: uses, not definitions.  A loop var, an iter var, a let
 * var are definitions and are not visited as expressions (their bounds and
 * domains are), so a hook collecting VAR nodes collects the vars read.  On
 * the graph side a binding's var is visited after its value, with its
 * struct info, as are function params; struct info is walked where it is
 * written (params, binding vars, a call's out_sinfo, the return), not at
 * every use of a var. */
#include "mlcc/ir.h"

static void visit_block(MlcVisitor *v, const MlcBlock *b);

static void visit_exprs(MlcVisitor *v, MlcExpr *const *es, int n) {
  for (int i = 0; i < n; i++) mlc_visit_expr(v, es[i]);
}

static void visit_attr_value(MlcVisitor *v, const MlcAttrValue *val) {
  if (val->kind == MLC_ATTR_EXPR) mlc_visit_expr(v, val->expr);
  if (val->kind == MLC_ATTR_LIST)
    for (int i = 0; i < val->list.n; i++) visit_attr_value(v, &val->list.items[i]);
}

static void visit_attrs(MlcVisitor *v, MlcAttrs attrs) {
  for (int i = 0; i < attrs.n; i++) visit_attr_value(v, &attrs.items[i].val);
}

static void buffer_use(MlcVisitor *v, const MlcBuffer *b) {
  if (v->buffer_use && b) v->buffer_use(v, b);
}

void mlc_visit_expr(MlcVisitor *v, const MlcExpr *e) {
  if (!e || (v->expr && !v->expr(v, e))) return;
  switch (e->kind) {
  case MLC_EXPR_VAR:
  case MLC_EXPR_INT:
  case MLC_EXPR_FLOAT:
  case MLC_EXPR_STR: return;
  case MLC_EXPR_BINARY:
    mlc_visit_expr(v, e->bin.a);
    mlc_visit_expr(v, e->bin.b);
    return;
  case MLC_EXPR_NOT:
  case MLC_EXPR_NEG:
  case MLC_EXPR_CAST: mlc_visit_expr(v, e->operand); return;
  case MLC_EXPR_SELECT:
    mlc_visit_expr(v, e->select.cond);
    mlc_visit_expr(v, e->select.t);
    mlc_visit_expr(v, e->select.f);
    return;
  case MLC_EXPR_LOAD:
    buffer_use(v, e->load.buf);
    visit_exprs(v, e->load.idx, e->load.n);
    return;
  case MLC_EXPR_RAMP:
    mlc_visit_expr(v, e->ramp.base);
    mlc_visit_expr(v, e->ramp.stride);
    return;
  case MLC_EXPR_BROADCAST: mlc_visit_expr(v, e->bcast.value); return;
  case MLC_EXPR_LET:
    mlc_visit_expr(v, e->let.value);
    mlc_visit_expr(v, e->let.body);
    return;
  case MLC_EXPR_CALL: visit_exprs(v, e->call.args, e->call.n); return;
  }
}

static void visit_regions(MlcVisitor *v, const MlcBufferRegion *r, int n) {
  for (int i = 0; i < n; i++) {
    buffer_use(v, r[i].buf);
    for (int d = 0; r[i].buf && d < r[i].buf->ndim; d++) {
      mlc_visit_expr(v, r[i].ranges[d].min);
      mlc_visit_expr(v, r[i].ranges[d].extent);
    }
  }
}

static void visit_block(MlcVisitor *v, const MlcBlock *b) {
  if (!b || (v->block && !v->block(v, b))) return;
  for (int i = 0; i < b->n_iters; i++) {
    mlc_visit_expr(v, b->iters[i].dom.min);
    mlc_visit_expr(v, b->iters[i].dom.extent);
  }
  visit_regions(v, b->reads, b->n_reads);
  visit_regions(v, b->writes, b->n_writes);
  mlc_visit_stmt(v, b->init);
  visit_attrs(v, b->annotations);
  mlc_visit_stmt(v, b->body);
}

void mlc_visit_stmt(MlcVisitor *v, const MlcStmt *s) {
  if (!s || (v->stmt && !v->stmt(v, s))) return;
  switch (s->kind) {
  case MLC_STMT_STORE:
    buffer_use(v, s->store.buf);
    visit_exprs(v, s->store.idx, s->store.n);
    mlc_visit_expr(v, s->store.value);
    return;
  case MLC_STMT_FOR:
    mlc_visit_expr(v, s->loop.min);
    mlc_visit_expr(v, s->loop.extent);
    visit_attrs(v, s->loop.annotations);
    mlc_visit_stmt(v, s->loop.body);
    return;
  case MLC_STMT_BLOCK_REALIZE:
    visit_exprs(v, s->realize.values, s->realize.n);
    mlc_visit_expr(v, s->realize.pred);
    visit_block(v, s->realize.block);
    return;
  case MLC_STMT_SEQ:
    for (int i = 0; i < s->seq.n; i++) mlc_visit_stmt(v, s->seq.items[i]);
    return;
  case MLC_STMT_IF:
    mlc_visit_expr(v, s->if_.cond);
    mlc_visit_stmt(v, s->if_.then_s);
    mlc_visit_stmt(v, s->if_.else_s);
    return;
  case MLC_STMT_LET:
    mlc_visit_expr(v, s->let.value);
    mlc_visit_stmt(v, s->let.body);
    return;
  case MLC_STMT_ALLOCATE: mlc_visit_stmt(v, s->alloc.body); return;
  case MLC_STMT_EVALUATE: mlc_visit_expr(v, s->eval); return;
  }
}

void mlc_visit_prim_func(MlcVisitor *v, const MlcPrimFunc *f) {
  if (f) mlc_visit_stmt(v, f->body);
}

/* ---- graph --------------------------------------------------------------------- */

static void visit_sinfo(MlcVisitor *v, const MlcSInfo *s) {
  if (!s) return;
  switch (s->kind) {
  case MLC_SINFO_OBJECT: return;
  case MLC_SINFO_TENSOR:
    if (s->tensor.shape) visit_exprs(v, s->tensor.shape, s->tensor.ndim);
    return;
  case MLC_SINFO_TUPLE:
    for (int i = 0; i < s->tuple.n; i++) visit_sinfo(v, s->tuple.fields[i]);
    return;
  case MLC_SINFO_SHAPE:
    if (s->shape.values) visit_exprs(v, s->shape.values, s->shape.ndim);
    return;
  case MLC_SINFO_PRIM: mlc_visit_expr(v, s->prim.value); return;
  }
}

/* a var where it is defined: the node, then the struct info written there */
static void visit_gvar_def(MlcVisitor *v, const MlcGExpr *var) {
  if (!var || (v->gexpr && !v->gexpr(v, var))) return;
  visit_sinfo(v, var->sinfo);
}

static void visit_gexprs(MlcVisitor *v, MlcGExpr *const *es, int n) {
  for (int i = 0; i < n; i++) mlc_visit_gexpr(v, es[i]);
}

static void visit_gseq(MlcVisitor *v, const MlcGExpr *e) {
  for (int i = 0; i < e->seq.n; i++) {
    const MlcBindingBlock *b = e->seq.blocks[i];
    for (int j = 0; j < b->n; j++) {
      mlc_visit_gexpr(v, b->bindings[j].value);
      visit_gvar_def(v, b->bindings[j].var);
    }
  }
  mlc_visit_gexpr(v, e->seq.result);
}

void mlc_visit_gexpr(MlcVisitor *v, const MlcGExpr *e) {
  if (!e || (v->gexpr && !v->gexpr(v, e))) return;
  switch (e->kind) {
  case MLC_G_VAR:
  case MLC_G_DFVAR:
  case MLC_G_CONST:
  case MLC_G_STR:
  case MLC_G_DTYPE:
  case MLC_G_OP:
  case MLC_G_GLOBAL:
  case MLC_G_EXTERN: return;
  case MLC_G_TUPLE: visit_gexprs(v, e->tuple.fields, e->tuple.n); return;
  case MLC_G_GET_ITEM: mlc_visit_gexpr(v, e->get_item.tuple); return;
  case MLC_G_CALL:
    mlc_visit_gexpr(v, e->call.callee);
    visit_gexprs(v, e->call.args, e->call.n);
    visit_attrs(v, e->call.attrs);
    for (int i = 0; i < e->call.n_sinfo_args; i++) visit_sinfo(v, e->call.sinfo_args[i]);
    return;
  case MLC_G_SHAPE: visit_exprs(v, e->shape.values, e->shape.n); return;
  case MLC_G_PRIM: mlc_visit_expr(v, e->prim); return;
  case MLC_G_IF:
    mlc_visit_gexpr(v, e->if_.cond);
    mlc_visit_gexpr(v, e->if_.then_e);
    mlc_visit_gexpr(v, e->if_.else_e);
    return;
  case MLC_G_SEQ: visit_gseq(v, e); return;
  }
}

void mlc_visit_gfunc(MlcVisitor *v, const MlcGFunc *f) {
  if (!f) return;
  for (int i = 0; i < f->n_params; i++) visit_gvar_def(v, f->params[i]);
  visit_sinfo(v, f->ret);
  mlc_visit_gexpr(v, f->body);
}
