/* rewrite.c - the binding rewriter every graph pass is built on (pass.h).
 *
 * A pass walks bindings in order and decides per binding; what it replaced
 * is substituted in everything after through one var map, so a pass never
 * rebuilds expressions itself.  Blocks are rebuilt the way the reader would
 * read the printed result back (consecutive plain blocks merge, empty blocks
 * disappear), so every stage prints and reads back structurally equal. */
#include "transform/pass.h"

#include <string.h>

void tf_rw_free(TfRw *rw) { mlc_map_free(&rw->vmap); }

void tf_map(TfRw *rw, const MlcGExpr *var, MlcGExpr *to) { mlc_map_put(&rw->vmap, var, to); }

static bool subst_list(TfRw *rw, MlcGExpr **in, int n, MlcGExpr ***out) {
  MlcGExpr **res = in;
  for (int i = 0; i < n; i++) {
    MlcGExpr *x = tf_subst(rw, in[i]);
    if (!x) return false;
    if (x != in[i] && res == in) res = mlc_arena_dup(&rw->ctx->arena, in, (size_t)n * sizeof *in);
    res[i] = x;
  }
  *out = res;
  return true;
}

static MlcGExpr *subst_call(TfRw *rw, MlcGExpr *e) {
  MlcGExpr *callee = tf_subst(rw, e->call.callee), **args;
  if (!callee || !subst_list(rw, e->call.args, e->call.n, &args)) return NULL;
  if (callee == e->call.callee && args == e->call.args) return e;
  return mlc_g_call(rw->ctx, callee, args, e->call.n, e->call.attrs, e->call.sinfo_args,
                    e->call.n_sinfo_args, e->sinfo);
}

static MlcGExpr *subst_if(TfRw *rw, MlcGExpr *e) {
  MlcGExpr *c = tf_subst(rw, e->if_.cond);
  MlcGExpr *t = c ? tf_rewrite_seq(rw, e->if_.then_e) : NULL;
  MlcGExpr *f = t ? tf_rewrite_seq(rw, e->if_.else_e) : NULL;
  if (!f) return NULL;
  if (c == e->if_.cond && t == e->if_.then_e && f == e->if_.else_e) return e;
  MlcGExpr *r = mlc_g_if(rw->ctx, c, t, f);
  /* a new node, still being built: its struct info is what both branches are */
  if (r) r->sinfo = mlc_sinfo_join(rw->ctx, t->sinfo, f->sinfo);
  return r;
}

MlcGExpr *tf_subst(TfRw *rw, MlcGExpr *e) {
  if (!e) return NULL;
  switch (e->kind) {
  case MLC_G_VAR:
  case MLC_G_DFVAR: {
    MlcGExpr *to = mlc_map_get(&rw->vmap, e);
    return to ? to : e;
  }
  case MLC_G_TUPLE: {
    MlcGExpr **fields;
    if (!subst_list(rw, e->tuple.fields, e->tuple.n, &fields)) return NULL;
    return fields == e->tuple.fields ? e : mlc_g_tuple(rw->ctx, fields, e->tuple.n);
  }
  case MLC_G_GET_ITEM: {
    MlcGExpr *t = tf_subst(rw, e->get_item.tuple);
    if (!t) return NULL;
    return t == e->get_item.tuple ? e : mlc_g_get_item(rw->ctx, t, e->get_item.index);
  }
  case MLC_G_CALL: return subst_call(rw, e);
  case MLC_G_IF: return subst_if(rw, e);
  case MLC_G_SEQ: return tf_rewrite_seq(rw, e);
  case MLC_G_CONST:
  case MLC_G_SHAPE:
  case MLC_G_PRIM:
  case MLC_G_STR:
  case MLC_G_DTYPE:
  case MLC_G_OP:
  case MLC_G_GLOBAL:
  case MLC_G_EXTERN: return e;
  }
  return e;
}

bool tf_in_dataflow(const TfRw *rw) {
  return rw->cur && rw->cur->len && rw->cur->data[rw->cur->len - 1].dataflow;
}

/* start a block; a plain block continues the plain block before it */
static void open_block(TfRw *rw, bool dataflow) {
  TfBlockVec *v = rw->cur;
  if (!dataflow && v->len && !v->data[v->len - 1].dataflow) return;
  TfBlockB b = {dataflow, {0}};
  mlc_vec_push(v, b);
}

void tf_emit(TfRw *rw, MlcGExpr *var, MlcGExpr *value, MlcLoc loc) {
  if (!rw->cur->len) open_block(rw, false);
  TfBlockB *b = &rw->cur->data[rw->cur->len - 1];
  if (var->kind == MLC_G_DFVAR && !b->dataflow) {
    MlcGExpr *nv = mlc_g_var(rw->ctx, var->var.name, var->sinfo, false);
    tf_map(rw, var, nv);
    var = nv;
  }
  MlcBinding bd = {var, value, loc};
  mlc_vec_push(&b->binds, bd);
}

static void free_blocks(TfBlockVec *v) {
  for (size_t i = 0; i < v->len; i++) mlc_vec_free(&v->data[i].binds);
  mlc_vec_free(v);
}

static MlcGExpr *rewrite_binding_value(TfRw *rw, const MlcBinding *b) {
  rw->ctx->build_loc = b->loc;
  return tf_subst(rw, b->value);
}

static bool rewrite_blocks(TfRw *rw, const MlcGExpr *seq) {
  for (int i = 0; i < seq->seq.n; i++) {
    const MlcBindingBlock *blk = seq->seq.blocks[i];
    open_block(rw, blk->dataflow && !rw->no_dataflow);
    for (int j = 0; j < blk->n; j++) {
      const MlcBinding *b = &blk->bindings[j];
      MlcGExpr *value = rewrite_binding_value(rw, b);
      if (!value) return false;
      rw->ctx->build_loc = b->loc;
      if (rw->on_binding) {
        if (!rw->on_binding(rw, b, value)) return false;
      } else {
        tf_emit(rw, b->var, value, b->loc);
      }
    }
  }
  return true;
}

static MlcGExpr *build_seq(TfRw *rw, TfBlockVec *v, MlcGExpr *result) {
  MLC_VEC(MlcBindingBlock *) blocks = {0};
  bool ok = true;
  for (size_t i = 0; ok && i < v->len; i++) {
    if (!v->data[i].binds.len) continue;
    MlcBindingBlock *b = mlc_g_block(rw->ctx, v->data[i].dataflow, v->data[i].binds.data,
                                     (int)v->data[i].binds.len);
    if (!b) ok = false;
    else mlc_vec_push(&blocks, b);
  }
  MlcGExpr *s = ok ? mlc_g_seq(rw->ctx, blocks.data, (int)blocks.len, result) : NULL;
  mlc_vec_free(&blocks);
  return s;
}

MlcGExpr *tf_rewrite_seq(TfRw *rw, MlcGExpr *seq) {
  TfBlockVec blocks = {0}, *outer = rw->cur;
  rw->cur = &blocks;
  MlcGExpr *result = rewrite_blocks(rw, seq) ? tf_subst(rw, seq->seq.result) : NULL;
  MlcGExpr *out = result ? build_seq(rw, &blocks, result) : NULL;
  rw->cur = outer;
  free_blocks(&blocks);
  return out;
}

MlcGFunc *tf_rewrite_func(TfRw *rw, const MlcGFunc *f, MlcSInfo *ret) {
  MLC_VEC(MlcGExpr *) params = {0};
  for (int i = 0; i < f->n_params; i++) {
    MlcGExpr *p = mlc_map_get(&rw->vmap, f->params[i]);
    if (!p) p = f->params[i];
    if (p->kind == MLC_G_VAR) mlc_vec_push(&params, p);
  }
  MlcGExpr *body = tf_rewrite_seq(rw, f->body);
  MlcGFunc *nf = body ? mlc_gfunc_new(rw->ctx, f->name, params.data, (int)params.len,
                                      ret ? ret : f->ret, body, f->attrs, f->pure)
                      : NULL;
  mlc_vec_free(&params);
  return nf;
}

MlcModule *tf_module_with(MlcCtx *ctx, const MlcModule *m, MlcFunc *repl, const MlcFunc *extra,
                          int n_extra) {
  int n = m->n_funcs + n_extra;
  MlcFunc *funcs = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *funcs);
  for (int i = 0; i < m->n_funcs; i++)
    funcs[i] = repl && (repl[i].prim || repl[i].graph) ? repl[i] : m->funcs[i];
  for (int i = 0; i < n_extra; i++) funcs[m->n_funcs + i] = extra[i];
  return mlc_module_new(ctx, m->name, funcs, n, m->attrs);
}
