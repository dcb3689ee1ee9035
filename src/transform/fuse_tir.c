/* fuse_tir.c - mlc_pass_fuse_tir: each function FuseOps made (attribute
 * Primitive = 1, a dataflow block of call_tir bindings) becomes one prim
 * func, and its calls become call_tir of that prim func.
 *
 * The prim func's params are the function's params and one output; its root
 * block runs the member prim funcs' bodies in order, each value passed from
 * one to the next through a buffer the root block allocates.  A member's
 * body is copied with fresh loop and iter vars and block names made unique,
 * so a kernel that occurs twice (two adds) is two distinct nests, as the
 * schedule primitives need (a loop is named by its var, a block by its
 * name).  Buffers the members allocate are copied too.  FuseOps only groups
 * calls of static shape, so every buffer here has constant dims. */
#include "transform/pass.h"

#include <string.h>

typedef struct Fresh {
  MlcMutator mut;   /* buffer_map: member buffers -> the fused function's */
  MlcMap vars;      /* member loop/iter var -> fresh var */
  MlcMap blocks, buffers; /* names taken */
} Fresh;

static const char *unique(MlcMap *taken, MlcCtx *ctx, const char *name) {
  const char *out = name;
  for (int k = 1; mlc_map_has(taken, out); k++) out = mlc_internf(ctx, "%s_%d", name, k);
  mlc_map_put(taken, out, (void *)out);
  return out;
}

static MlcExpr *fresh_var(Fresh *fr, const MlcExpr *v) {
  MlcExpr *nv = mlc_e_var(fr->mut.ctx, v->var.name, v->dtype);
  mlc_map_put(&fr->vars, v, nv);
  return nv;
}

static MlcExpr *subst_expr(MlcMutator *m, MlcExpr *e) {
  Fresh *fr = m->user;
  if (e->kind == MLC_EXPR_VAR) {
    MlcExpr *to = mlc_map_get(&fr->vars, e);
    return to ? to : e;
  }
  return mlc_mutate_expr_children(m, e);
}

static MlcStmt *copy_for(MlcMutator *m, MlcStmt *s) {
  MlcExpr *nv = fresh_var(m->user, s->loop.var);
  MlcStmt *c = mlc_mutate_stmt_children(m, s);
  return c ? mlc_s_for(m->ctx, nv, c->loop.min, c->loop.extent, c->loop.kind, c->loop.thread, c->loop.annotations,
                       c->loop.body)
           : NULL;
}

static MlcStmt *copy_realize(MlcMutator *m, MlcStmt *s) {
  Fresh *fr = m->user;
  const MlcBlock *b = s->realize.block;
  MlcIterVar *iters = mlc_arena_array(&m->ctx->arena, (size_t)(b->n_iters ? b->n_iters : 1), sizeof *iters);
  for (int i = 0; i < b->n_iters; i++) {
    iters[i] = b->iters[i];
    iters[i].var = fresh_var(fr, b->iters[i].var);
  }
  MlcStmt *c = mlc_mutate_stmt_children(m, s); /* domains, regions, bodies, values */
  if (!c) return NULL;
  const MlcBlock *nb = c->realize.block;
  for (int i = 0; i < b->n_iters; i++) iters[i].dom = nb->iters[i].dom;
  MlcBlock *blk = mlc_block_new(m->ctx, unique(&fr->blocks, m->ctx, b->name), iters, b->n_iters, nb->reads, nb->n_reads,
                                nb->writes, nb->n_writes, nb->init, nb->allocs, nb->n_allocs, nb->annotations,
                                nb->body);
  return blk ? mlc_s_realize(m->ctx, c->realize.values, c->realize.n, c->realize.pred, blk) : NULL;
}

static MlcStmt *copy_stmt(MlcMutator *m, MlcStmt *s) {
  switch (s->kind) {
  case MLC_STMT_FOR: return copy_for(m, s);
  case MLC_STMT_BLOCK_REALIZE: return copy_realize(m, s);
  default: return mlc_mutate_stmt_children(m, s);
  }
}

static MlcBuffer *buffer_like(MlcCtx *ctx, Fresh *fr, const MlcBuffer *b, const char *name) {
  return mlc_buffer_new(ctx, unique(&fr->buffers, ctx, name), b->dtype, b->shape, b->ndim, NULL, NULL, b->scope);
}

typedef struct Fuse {
  MlcCtx *ctx;
  const MlcModule *m;
  Fresh fr;
  MlcMap val_buf;                 /* graph var -> its buffer */
  MLC_VEC(MlcBuffer *) allocs;    /* intermediates and members' allocations */
  MLC_VEC(MlcStmt *) nests;
} Fuse;

/* one member call: its body, copied onto the fused function's buffers */
static bool add_member(Fuse *z, const MlcBinding *b, MlcBuffer *out) {
  MlcCtx *ctx = z->ctx;
  const MlcGExpr *call = b->value, *args = call->call.args[1];
  const MlcPrimFunc *pf = tf_fusable_callee(ctx, z->m, call);
  const MlcStmt *root = pf ? pf->body : NULL;
  if (!root || root->kind != MLC_STMT_BLOCK_REALIZE || root->realize.block->n_iters)
    return mlc_error(ctx, b->loc, "fuse_tir: '%s' is not a fusable prim func call", b->var->var.name);
  mlc_map_free(&z->fr.mut.buffer_map);
  for (int a = 0; a < args->tuple.n; a++) {
    MlcBuffer *src = mlc_map_get(&z->val_buf, args->tuple.fields[a]);
    if (!src) return mlc_error(ctx, b->loc, "fuse_tir: argument %d of '%s' has no buffer", a + 1, b->var->var.name);
    mlc_map_put(&z->fr.mut.buffer_map, pf->params[a].buf, src);
  }
  if (!out) {
    out = buffer_like(ctx, &z->fr, pf->params[pf->n_params - 1].buf, b->var->var.name);
    mlc_vec_push(&z->allocs, out);
  }
  mlc_map_put(&z->fr.mut.buffer_map, pf->params[pf->n_params - 1].buf, out);
  mlc_map_put(&z->val_buf, b->var, out);
  const MlcBlock *rb = root->realize.block;
  for (int k = 0; k < rb->n_allocs; k++) {
    MlcBuffer *copy = buffer_like(ctx, &z->fr, rb->allocs[k], rb->allocs[k]->name);
    mlc_map_put(&z->fr.mut.buffer_map, rb->allocs[k], copy);
    mlc_vec_push(&z->allocs, copy);
  }
  MlcStmt *body = mlc_mutate_stmt(&z->fr.mut, rb->body);
  if (!body) return false;
  mlc_vec_push(&z->nests, body);
  return true;
}

/* fused_ops: the members' ops, "matmul+add+relu", which profiles and
 * --explain show (a member's op is its kernel's name less legalization's
 * number: "add3" is an add) */
static MlcAttrs prim_attrs(MlcCtx *ctx, const char *name, const MlcBindingBlock *blk) {
  MlcStrBuf ops = {0};
  for (int i = 0; i < blk->n; i++) {
    mlc_sb_printf(&ops, "%s%s", i ? "+" : "", mlc_kernel_op_name(ctx, blk->bindings[i].value->call.args[0]->str));
  }
  MlcAttr *a = mlc_arena_array(&ctx->arena, 3, sizeof *a);
  a[0] = (MlcAttr){mlc_intern(ctx, "global_symbol"), {.kind = MLC_ATTR_STR, .s = name}};
  a[1] = (MlcAttr){mlc_intern(ctx, "tir.noalias"), {.kind = MLC_ATTR_BOOL, .b = true}};
  a[2] = (MlcAttr){mlc_intern(ctx, "fused_ops"), {.kind = MLC_ATTR_STR, .s = mlc_intern(ctx, mlc_sb_cstr(&ops))}};
  mlc_vec_free(&ops);
  return (MlcAttrs){a, 3};
}

static MlcPrimFunc *fuse_func(Fuse *z, const MlcGFunc *g) {
  MlcCtx *ctx = z->ctx;
  const MlcGExpr *body = g->body;
  if (body->kind != MLC_G_SEQ || body->seq.n != 1 || body->seq.blocks[0]->n < 1)
    return mlc_error(ctx, ctx->build_loc, "fuse_tir: '%s' is not one block of calls", g->name), NULL;
  const MlcBindingBlock *blk = body->seq.blocks[0];
  const MlcPrimFunc *exit_pf = tf_fusable_callee(ctx, z->m, blk->bindings[blk->n - 1].value);
  if (!exit_pf) return mlc_error(ctx, ctx->build_loc, "fuse_tir: '%s' does not end in a fusable call", g->name), NULL;
  MlcParam *params = mlc_arena_array(&ctx->arena, (size_t)g->n_params + 1, sizeof *params);
  for (int i = 0; i < g->n_params; i++) {
    const MlcSInfo *s = g->params[i]->sinfo;
    if (!s || s->kind != MLC_SINFO_TENSOR || s->tensor.ndim < 0)
      return mlc_error(ctx, ctx->build_loc, "fuse_tir: param %d of '%s' is not a tensor", i + 1, g->name), NULL;
    MlcBuffer *buf = mlc_buffer_new(ctx, unique(&z->fr.buffers, ctx, g->params[i]->var.name), s->tensor.dtype,
                                    s->tensor.shape, s->tensor.ndim, NULL, NULL, mlc_intern(ctx, "global"));
    if (!buf) return NULL;
    params[i] = (MlcParam){mlc_e_var(ctx, mlc_internf(ctx, "var_%s", buf->name), MLC_HANDLE), buf};
    mlc_map_put(&z->val_buf, g->params[i], buf);
  }
  const MlcBuffer *ob = exit_pf->params[exit_pf->n_params - 1].buf;
  MlcBuffer *out = buffer_like(ctx, &z->fr, ob, ob->name);
  params[g->n_params] = (MlcParam){mlc_e_var(ctx, mlc_internf(ctx, "var_%s", out->name), MLC_HANDLE), out};
  for (int i = 0; i < blk->n; i++)
    if (!add_member(z, &blk->bindings[i], i == blk->n - 1 ? out : NULL)) return NULL;
  MlcStmt *seq = mlc_s_seq(ctx, z->nests.data, (int)z->nests.len);
  MlcBlock *rb = seq ? mlc_block_new(ctx, mlc_intern(ctx, "root"), NULL, 0, NULL, 0, NULL, 0, NULL, z->allocs.data,
                                     (int)z->allocs.len, (MlcAttrs){0}, seq)
                     : NULL;
  MlcStmt *root = rb ? mlc_s_realize(ctx, NULL, 0, NULL, rb) : NULL;
  return root ? mlc_prim_func_new(ctx, g->name, params, g->n_params + 1, prim_attrs(ctx, g->name, blk), root) : NULL;
}

static bool is_primitive(MlcCtx *ctx, const MlcFunc *f) {
  return f && f->kind == MLC_FUNC_GRAPH && mlc_attrs_get(f->graph->attrs, mlc_intern(ctx, "Primitive"));
}

typedef struct Calls { MlcCtx *ctx; const MlcModule *m; } Calls;

/* cls.fused_x(args) -> R.call_tir(cls.fused_x, (args), out_sinfo) */
static bool call_to_tir(TfRw *rw, const MlcBinding *b, MlcGExpr *value) {
  Calls *c = rw->user;
  if (value->kind == MLC_G_CALL && value->call.callee->kind == MLC_G_GLOBAL &&
      is_primitive(c->ctx, mlc_module_find(c->m, value->call.callee->str))) {
    value = mlc_g_call_tir(rw->ctx, value->call.callee, value->call.args, value->call.n, value->sinfo);
    if (!value) return false;
  }
  tf_emit(rw, b->var, value, b->loc);
  return true;
}

MlcModule *mlc_pass_fuse_tir(MlcCtx *ctx, const MlcModule *m) {
  MlcFunc *funcs = mlc_arena_array(&ctx->arena, (size_t)(m->n_funcs ? m->n_funcs : 1), sizeof *funcs);
  int n = 0;
  bool ok = true;
  for (int i = 0; ok && i < m->n_funcs; i++) {
    const MlcFunc *f = &m->funcs[i];
    if (is_primitive(ctx, f)) {
      Fuse z = {.ctx = ctx, .m = m};
      z.fr.mut = (MlcMutator){.ctx = ctx, .user = &z.fr, .expr = subst_expr, .stmt = copy_stmt};
      MlcPrimFunc *pf = fuse_func(&z, f->graph);
      ok = pf != NULL;
      if (ok) funcs[n++] = (MlcFunc){MLC_FUNC_PRIM, f->name, {.prim = pf}};
      mlc_map_free(&z.fr.mut.buffer_map);
      mlc_map_free(&z.fr.vars);
      mlc_map_free(&z.fr.blocks);
      mlc_map_free(&z.fr.buffers);
      mlc_map_free(&z.val_buf);
      mlc_vec_free(&z.allocs);
      mlc_vec_free(&z.nests);
    } else if (f->kind == MLC_FUNC_GRAPH) {
      Calls c = {ctx, m};
      TfRw rw = {.ctx = ctx, .user = &c, .on_binding = call_to_tir};
      MlcGFunc *nf = tf_rewrite_func(&rw, f->graph, NULL);
      tf_rw_free(&rw);
      ok = nf != NULL;
      if (ok) funcs[n++] = (MlcFunc){MLC_FUNC_GRAPH, f->name, {.graph = nf}};
    } else {
      funcs[n++] = *f;
    }
  }
  return ok ? mlc_module_new(ctx, m->name, funcs, n, m->attrs) : NULL;
}
