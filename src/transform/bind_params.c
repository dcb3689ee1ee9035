/* bind_params.c - mlc_pass_bind_params: weights given as data become
 * constants of the module, and the params that stood for them leave the
 * signature.
 *
 * The data is copied into the context's arena, so the module owns its
 * constants like every other node and the caller may free its buffers.
 * A symbolic dim of a param's annotation matches any size, but the same dim
 * must get the same size everywhere it appears among the bound params. */
#include "transform/pass.h"

#include <string.h>

static MlcTensorData *copy_data(MlcCtx *ctx, const MlcTensorData *d) {
  MlcTensorData *t = mlc_arena_dup(&ctx->arena, d, sizeof *d);
  t->shape = mlc_arena_array(&ctx->arena, (size_t)(d->ndim > 0 ? d->ndim : 1), sizeof *t->shape);
  if (d->ndim > 0) memcpy(t->shape, d->shape, (size_t)d->ndim * sizeof *t->shape);
  t->data = mlc_arena_alloc(&ctx->arena, d->nbytes ? d->nbytes : 1);
  if (d->nbytes) memcpy(t->data, d->data, d->nbytes);
  return t;
}

static const char *data_shape_str(MlcCtx *ctx, const MlcTensorData *d) {
  MlcStrBuf sb = {0};
  mlc_sb_putc(&sb, '(');
  for (int i = 0; i < d->ndim; i++) mlc_sb_printf(&sb, "%s%lld", i ? ", " : "", (long long)d->shape[i]);
  mlc_sb_puts(&sb, d->ndim == 1 ? ",)" : ")");
  const char *s = mlc_intern(ctx, mlc_sb_cstr(&sb));
  mlc_vec_free(&sb);
  return s;
}

/* the size data gives each dim: constant dims must equal it, symbolic dims
 * take it the first time (sizes: var -> size + 1) */
static bool dims_match(const MlcSInfo *s, const MlcTensorData *d, MlcMap *sizes) {
  for (int i = 0; i < d->ndim; i++) {
    const MlcExpr *e = s->tensor.shape[i];
    int64_t v;
    if (mlc_e_is_const_int(e, &v)) {
      if (v != d->shape[i]) return false;
    } else if (e->kind == MLC_EXPR_VAR) {
      intptr_t have = (intptr_t)mlc_map_get(sizes, e);
      if (have && have - 1 != d->shape[i]) return false;
      mlc_map_put(sizes, e, (void *)(intptr_t)(d->shape[i] + 1));
    }
  }
  return true;
}

static bool check_data(MlcCtx *ctx, const char *func, const MlcGExpr *p, const MlcTensorData *d,
                       MlcMap *sizes) {
  const MlcSInfo *s = p->sinfo;
  char b1[32], b2[32];
  if (s->kind == MLC_SINFO_OBJECT) return true;
  if (s->kind != MLC_SINFO_TENSOR)
    return mlc_error(ctx, ctx->build_loc, "bind_params: param '%s' of '%s' is %s, not a tensor", p->var.name,
                     func, tf_sinfo_str(ctx, s));
  bool dt_ok = s->tensor.dtype.code == MLC_TC_VOID || mlc_dtype_eq(s->tensor.dtype, d->dtype);
  bool nd_ok = s->tensor.ndim < 0 || s->tensor.ndim == d->ndim;
  bool sh_ok = nd_ok && (!s->tensor.shape || s->tensor.ndim < 0 || dims_match(s, d, sizes));
  if (dt_ok && sh_ok) return true;
  return mlc_error(ctx, ctx->build_loc,
                   "bind_params: data for param '%s' of '%s' is %s %s, but the param is %s (%s)",
                   p->var.name, func, data_shape_str(ctx, d), mlc_dtype_str(d->dtype, b1),
                   tf_sinfo_str(ctx, s), !dt_ok ? "dtype differs" : mlc_dtype_str(s->tensor.dtype, b2));
}

static int param_index(const MlcGFunc *f, const char *name) {
  for (int i = 0; i < f->n_params; i++)
    if (strcmp(f->params[i]->var.name, name) == 0) return i;
  return -1;
}

static bool bind_all(TfRw *rw, const MlcGFunc *f, const char *const *names, MlcTensorData *const *data,
                     int n) {
  MlcMap sizes = {0};
  bool ok = true;
  for (int i = 0; ok && i < n; i++) {
    int k = names[i] ? param_index(f, names[i]) : -1;
    if (k < 0)
      ok = mlc_error(rw->ctx, rw->ctx->build_loc, "bind_params: '%s' is not a param of '%s'",
                     names[i] ? names[i] : "(null)", f->name);
    else if (mlc_map_get(&rw->vmap, f->params[k]))
      ok = mlc_error(rw->ctx, rw->ctx->build_loc, "bind_params: param '%s' of '%s' is bound twice",
                     names[i], f->name);
    else if (!data[i])
      ok = mlc_error(rw->ctx, rw->ctx->build_loc, "bind_params: no data for param '%s' of '%s'",
                     names[i], f->name);
    else if ((ok = check_data(rw->ctx, f->name, f->params[k], data[i], &sizes)))
      tf_map(rw, f->params[k], mlc_g_const(rw->ctx, copy_data(rw->ctx, data[i])));
  }
  mlc_map_free(&sizes);
  return ok;
}

MlcModule *mlc_pass_bind_params(MlcCtx *ctx, const MlcModule *m, const char *func,
                                const char *const *names, MlcTensorData *const *data, int n) {
  const MlcFunc *fn = func ? mlc_module_find(m, mlc_intern(ctx, func)) : NULL;
  if (!fn || fn->kind != MLC_FUNC_GRAPH)
    return mlc_error(ctx, ctx->build_loc, "bind_params: the module has no graph function '%s'",
                     func ? func : "(null)"), NULL;
  TfRw rw = {.ctx = ctx};
  MlcGFunc *nf = bind_all(&rw, fn->graph, names, data, n) ? tf_rewrite_func(&rw, fn->graph, NULL) : NULL;
  tf_rw_free(&rw);
  if (!nf) return NULL;
  MlcFunc *repl = mlc_arena_array(&ctx->arena, (size_t)m->n_funcs, sizeof *repl);
  repl[fn - m->funcs] = (MlcFunc){MLC_FUNC_GRAPH, fn->name, {.graph = nf}};
  return tf_module_with(ctx, m, repl, NULL, 0);
}
