/* builder.c - graph functions through the stable C API: a builder that
 * takes params, then blocks of bindings, then the result, and reads back
 * the functions of a module the same way (params, blocks, bindings,
 * result), which is what a visitor or mutator outside C walks. */
#include "api/api.h"

#include <string.h>

typedef MLC_VEC(MlcBinding) BindingVec;
typedef MLC_VEC(MlcBindingBlock *) BlockVec;

struct MlccFuncBuilder {
  MlccContext *c;
  const char *name;
  MlcGExpr **params;
  int n_params;
  BlockVec blocks;
  BindingVec cur;
  bool in_block, dataflow;
  MLC_VEC(MlcAttr) attrs;
};

static MlcGExpr **params_of(MlccContext *c, const char *name, MlccGExpr *const *params, int n) {
  if (n < 0 || n > 4096 || (n > 0 && !params)) return api_failf(c, "%s: bad params", name), NULL;
  MlcGExpr **ps = mlc_arena_array(&c->ctx->arena, (size_t)(n ? n : 1), sizeof *ps);
  for (int i = 0; i < n; i++) {
    const MlcGExpr *p = (const MlcGExpr *)params[i];
    if (!p || p->kind != MLC_G_VAR) return api_failf(c, "%s: param %d is not a var", name, i), NULL;
    ps[i] = (MlcGExpr *)p;
  }
  return ps;
}

MlccFuncBuilder *mlcc_fb_new(MlccContext *c, const char *name, MlccGExpr *const *params, int n) {
  api_begin(c);
  if (!name || !*name) return api_failf(c, "a function needs a name"), NULL;
  MlcGExpr **ps = params_of(c, name, params, n);
  if (!ps) return NULL;
  MlccFuncBuilder *fb = mlc_xcalloc(1, sizeof *fb);
  fb->c = c;
  fb->name = mlc_intern(c->ctx, name);
  fb->params = ps;
  fb->n_params = n;
  return fb;
}

int mlcc_fb_set_params(MlccFuncBuilder *fb, MlccGExpr *const *params, int n) {
  api_begin(fb->c);
  MlcGExpr **ps = params_of(fb->c, fb->name, params, n);
  if (!ps) return 1;
  fb->params = ps;
  fb->n_params = n;
  return 0;
}

void mlcc_fb_free(MlccFuncBuilder *fb) {
  if (!fb) return;
  mlc_vec_free(&fb->blocks);
  mlc_vec_free(&fb->cur);
  mlc_vec_free(&fb->attrs);
  free(fb);
}

int mlcc_fb_begin_block(MlccFuncBuilder *fb, int dataflow) {
  api_begin(fb->c);
  if (fb->in_block) return api_failf(fb->c, "%s: a block is already open", fb->name), 1;
  fb->in_block = true;
  fb->dataflow = dataflow != 0;
  return 0;
}

MlccGExpr *mlcc_fb_emit(MlccFuncBuilder *fb, MlccGExpr *value, const char *name, int output) {
  MlccContext *c = fb->c;
  api_begin(c);
  if (!value) return api_failf(c, "%s: emit without a value", fb->name), NULL;
  if (!fb->in_block) return api_failf(c, "%s: emit outside a block", fb->name), NULL;
  MlcGExpr *v = API_GEXPR(value);
  bool df = fb->dataflow && !output;
  MlcGExpr *var = mlc_g_var(c->ctx, name && *name ? name : (df ? "lv" : "gv"), v->sinfo, df);
  mlc_vec_push(&fb->cur, ((MlcBinding){.var = var, .value = v}));
  return (MlccGExpr *)var;
}

int mlcc_fb_end_block(MlccFuncBuilder *fb) {
  api_begin(fb->c);
  if (!fb->in_block) return api_failf(fb->c, "%s: no block is open", fb->name), 1;
  MlcBinding *bs = mlc_vec_to_arena(&fb->c->ctx->arena, &fb->cur);
  MlcBindingBlock *b = mlc_g_block(fb->c->ctx, fb->dataflow, bs, (int)fb->cur.len);
  fb->cur.len = 0;
  fb->in_block = false;
  if (!b) return api_fail(fb->c), 1;
  mlc_vec_push(&fb->blocks, b);
  return 0;
}

int mlcc_fb_set_attr(MlccFuncBuilder *fb, const char *key, const MlccValue *val) {
  api_begin(fb->c);
  MlcAttrs one;
  if (!api_attrs(fb->c, &key, val, 1, &one)) return 1;
  mlc_vec_push(&fb->attrs, one.items[0]);
  return 0;
}

MlccModule *mlcc_fb_finish(MlccFuncBuilder *fb, MlccGExpr *result) {
  MlccContext *c = fb->c;
  api_begin(c);
  if (!result) return api_failf(c, "%s: no result", fb->name), NULL;
  if (fb->in_block && mlcc_fb_end_block(fb)) return NULL;
  MlcCtx *ctx = c->ctx;
  MlcBindingBlock **blocks = mlc_vec_to_arena(&ctx->arena, &fb->blocks);
  MlcGExpr *res = API_GEXPR(result);
  MlcGExpr *body = mlc_g_seq(ctx, blocks, (int)fb->blocks.len, res);
  MlcAttrs attrs = {mlc_vec_to_arena(&ctx->arena, &fb->attrs), (int)fb->attrs.len};
  MlcGFunc *f = body ? mlc_gfunc_new(ctx, fb->name, fb->params, fb->n_params, res->sinfo, body, attrs, true) : NULL;
  if (!f) return api_fail(c), NULL;
  MlcFunc fn = {.kind = MLC_FUNC_GRAPH, .name = fb->name, .graph = f};
  MlcModule *m = mlc_module_new(ctx, "Module", &fn, 1, (MlcAttrs){0});
  if (!m) return api_fail(c), NULL;
  return (MlccModule *)m;
}

/* ---- reading a module's graph function ------------------------------------------------ */

static const MlcGFunc *gfunc(const MlccModule *mm, const char *name) {
  const MlcModule *m = API_MOD(mm);
  for (int i = 0; name && i < m->n_funcs; i++)
    if (m->funcs[i].kind == MLC_FUNC_GRAPH && strcmp(m->funcs[i].name, name) == 0) return m->funcs[i].graph;
  return NULL;
}

static const MlcBindingBlock *block_at(const MlccModule *m, const char *func, int b) {
  const MlcGFunc *f = gfunc(m, func);
  if (!f || f->body->kind != MLC_G_SEQ || b < 0 || b >= f->body->seq.n) return NULL;
  return f->body->seq.blocks[b];
}

int mlcc_gfunc_num_params(const MlccModule *m, const char *func) {
  const MlcGFunc *f = gfunc(m, func);
  return f ? f->n_params : -1;
}

MlccGExpr *mlcc_gfunc_param(const MlccModule *m, const char *func, int i) {
  const MlcGFunc *f = gfunc(m, func);
  return f && i >= 0 && i < f->n_params ? (MlccGExpr *)f->params[i] : NULL;
}

int mlcc_gfunc_num_blocks(const MlccModule *m, const char *func) {
  const MlcGFunc *f = gfunc(m, func);
  return f && f->body->kind == MLC_G_SEQ ? f->body->seq.n : -1;
}

int mlcc_gfunc_block_is_dataflow(const MlccModule *m, const char *func, int b) {
  const MlcBindingBlock *bl = block_at(m, func, b);
  return bl ? bl->dataflow : -1;
}

int mlcc_gfunc_block_size(const MlccModule *m, const char *func, int b) {
  const MlcBindingBlock *bl = block_at(m, func, b);
  return bl ? bl->n : -1;
}

MlccGExpr *mlcc_gfunc_binding_var(const MlccModule *m, const char *func, int b, int k) {
  const MlcBindingBlock *bl = block_at(m, func, b);
  return bl && k >= 0 && k < bl->n ? (MlccGExpr *)bl->bindings[k].var : NULL;
}

MlccGExpr *mlcc_gfunc_binding_value(const MlccModule *m, const char *func, int b, int k) {
  const MlcBindingBlock *bl = block_at(m, func, b);
  return bl && k >= 0 && k < bl->n ? (MlccGExpr *)bl->bindings[k].value : NULL;
}

MlccGExpr *mlcc_gfunc_result(const MlccModule *m, const char *func) {
  const MlcGFunc *f = gfunc(m, func);
  return f && f->body->kind == MLC_G_SEQ ? (MlccGExpr *)f->body->seq.result : NULL;
}
