/* to_prim_func.c - turn tensor expressions into the block-based prim func a
 * person would write: one block per compute in dependence order, each under
 * loops over its shape with the reduce axes innermost, iter vars bound to
 * those loops one to one (what T.axis.remap reads as), T.init() for
 * reductions, and the computes that are not params allocated in the root.
 *
 * The computes are found by a depth-first walk from the params through the
 * tensors each body loads, so the order is producers first and a tensor read
 * twice is computed once.  Every tensor gets a fresh buffer here (the TE
 * buffers only mark reads inside bodies), and every axis a fresh loop var
 * and iter var, so converting the same tensors twice gives two independent
 * functions.  Regions are inferred by the IR layer, as the reader infers
 * them for a block written without T.reads / T.writes, so the result is
 * structurally equal to its own printed text read back. */
#include <math.h>
#include "te/te_internal.h"

static char on_mark, done_mark;
#define ON ((void *)&on_mark)
#define DONE ((void *)&done_mark)

typedef struct Conv {
  MlcCtx *ctx;
  const char *fname;
  /* tensors are keyed by their TE buffer, which stays one pointer even
   * where a caller passes a copy of a tensor's struct */
  MlcMap is_param;                /* TE buffer -> ON */
  MlcMap state;                   /* TE buffer -> ON while visited, DONE after */
  MLC_VEC(MlcTeTensor *) order;   /* the computes, producers first */
  MlcMap names;                   /* TE buffer -> its unique name; name -> ON */
  MlcMutator mut;                 /* its buffer_map: TE buffer -> func buffer */
} Conv;

/* ---- the computes, in dependence order ------------------------------------------ */

static bool visit(Conv *c, MlcTeTensor *t, const MlcTeTensor *reader) {
  void *st = mlc_map_get(&c->state, t->buffer);
  if (st == DONE) return true;
  if (st == ON) /* bodies only read tensors built before them: cannot happen */
    return mlc_error(c->ctx, (MlcLoc){0}, "compute '%s' depends on itself", t->name);
  if (!t->is_compute) {
    if (!mlc_map_has(&c->is_param, t->buffer))
      return mlc_error(c->ctx, (MlcLoc){0}, "compute '%s' reads placeholder '%s', which is not a param of '%s'",
                       reader->name, t->name, c->fname);
    mlc_map_put(&c->state, t->buffer, DONE);
    return true;
  }
  mlc_map_put(&c->state, t->buffer, ON);
  int n;
  MlcTeTensor **in = mlc_te_inputs(c->ctx, t, &n);
  for (int i = 0; i < n; i++)
    if (!visit(c, in[i], t)) return false;
  mlc_map_put(&c->state, t->buffer, DONE);
  mlc_vec_push(&c->order, t);
  return true;
}

/* ---- buffers -------------------------------------------------------------------- */

/* the tensor's name, or name_1, name_2, ... when another tensor has it:
 * blocks are found by name, so two must not share one */
static const char *unique_name(Conv *c, const MlcTeTensor *t) {
  const char *name = t->name;
  for (int k = 1; mlc_map_has(&c->names, name); k++) name = mlc_internf(c->ctx, "%s_%d", t->name, k);
  mlc_map_put(&c->names, name, ON);
  mlc_map_put(&c->names, t->buffer, (void *)name);
  return name;
}

static MlcBuffer *make_buffer(Conv *c, const MlcTeTensor *t) {
  MlcBuffer *b = mlc_buffer_new(c->ctx, unique_name(c, t), t->dtype, t->shape, t->ndim, NULL, NULL, "global");
  if (b) mlc_map_put(&c->mut.buffer_map, t->buffer, b);
  return b;
}

/* ---- one compute's loop nest ----------------------------------------------------- */

static MlcExpr *subst_var(MlcMutator *m, MlcExpr *e) {
  if (e->kind == MLC_EXPR_VAR) {
    MlcExpr *to = mlc_map_get(m->user, e);
    return to ? to : e;
  }
  return mlc_mutate_expr_children(m, e);
}

/* what a reduction starts from */
static MlcExpr *identity(MlcCtx *ctx, MlcTeReduce op, MlcDType t) {
  switch (op) {
  case MLC_TE_SUM: return mlc_dtype_is_float(t) ? mlc_e_float(ctx, t, 0.0) : mlc_e_int(ctx, t, 0);
  /* floats start from -inf / +inf, so that a row of all -inf has max -inf
   * (the lowest finite value would be wrong there) */
  case MLC_TE_MAX: return mlc_dtype_is_float(t) ? mlc_e_float(ctx, t, -INFINITY) : mlc_te_min_value(ctx, t);
  case MLC_TE_MIN: return mlc_dtype_is_float(t) ? mlc_e_float(ctx, t, INFINITY) : mlc_te_max_value(ctx, t);
  case MLC_TE_NO_REDUCE: break;
  }
  return NULL;
}

/* out = body, or out = combine(out, body) for a reduction step */
static MlcExpr *update(MlcCtx *ctx, MlcTeReduce op, MlcExpr *out, MlcExpr *body) {
  switch (op) {
  case MLC_TE_SUM: return mlc_e_bin(ctx, MLC_BIN_ADD, out, body);
  case MLC_TE_MAX: return mlc_e_bin(ctx, MLC_BIN_MAX, out, body);
  case MLC_TE_MIN: return mlc_e_bin(ctx, MLC_BIN_MIN, out, body);
  case MLC_TE_NO_REDUCE: break;
  }
  return body;
}

/* the block computing t: its iter vars (spatial, then reduce) are iters,
 * bound to the loop vars loops */
static MlcBlock *compute_block(Conv *c, const MlcTeTensor *t, MlcIterVar *iters, MlcMap *vmap) {
  MlcCtx *ctx = c->ctx;
  MlcBuffer *out = mlc_map_get(&c->mut.buffer_map, t->buffer);
  MlcExpr **idx = mlc_arena_array(&ctx->arena, (size_t)(t->ndim ? t->ndim : 1), sizeof *idx);
  for (int i = 0; i < t->ndim; i++) idx[i] = iters[i].var;
  c->mut.user = vmap;
  MlcExpr *body = mlc_mutate_expr(&c->mut, t->body);
  bool reduce = t->reduce != MLC_TE_NO_REDUCE;
  MlcExpr *value = reduce ? update(ctx, t->reduce, mlc_e_load(ctx, out, idx, t->ndim), body) : body;
  MlcStmt *init = reduce ? mlc_s_store(ctx, out, idx, t->ndim, identity(ctx, t->reduce, t->dtype)) : NULL;
  MlcStmt *store = mlc_s_store(ctx, out, idx, t->ndim, value);
  if (!store || (reduce && !init)) return NULL;
  MlcBlock *b = mlc_block_new(ctx, mlc_map_get(&c->names, t->buffer), iters, t->ndim + t->n_raxes, NULL, 0, NULL, 0,
                              init, NULL, 0, (MlcAttrs){0}, store);
  return b && mlc_block_infer_regions(ctx, b) ? b : NULL;
}

static MlcStmt *compute_nest(Conv *c, const MlcTeTensor *t) {
  MlcCtx *ctx = c->ctx;
  int nl = t->ndim + t->n_raxes;
  size_t cap = (size_t)(nl ? nl : 1);
  MlcExpr **loops = mlc_arena_array(&ctx->arena, cap, sizeof *loops);
  MlcExpr **ext = mlc_arena_array(&ctx->arena, cap, sizeof *ext);
  MlcIterVar *iters = mlc_arena_array(&ctx->arena, cap, sizeof *iters);
  MlcExpr *zero = mlc_e_int(ctx, MLC_I64, 0);
  MlcMap vmap = {0};
  for (int i = 0; i < nl; i++) {
    bool spatial = i < t->ndim;
    MlcExpr *axis = spatial ? t->axes[i] : t->raxes[i - t->ndim];
    ext[i] = spatial ? t->shape[i] : t->rextents[i - t->ndim];
    loops[i] = mlc_e_var(ctx, axis->var.name, MLC_I64);
    iters[i] = (MlcIterVar){mlc_e_var(ctx, mlc_internf(ctx, "v%s", axis->var.name), MLC_I64), {zero, ext[i]},
                            spatial ? MLC_ITER_SPATIAL : MLC_ITER_REDUCE};
    mlc_map_put(&vmap, axis, iters[i].var);
  }
  MlcBlock *b = compute_block(c, t, iters, &vmap);
  mlc_map_free(&vmap);
  MlcStmt *s = b ? mlc_s_realize(ctx, loops, nl, NULL, b) : NULL;
  for (int i = nl - 1; s && i >= 0; i--)
    s = mlc_s_for(ctx, loops[i], zero, ext[i], MLC_FOR_SERIAL, NULL, (MlcAttrs){0}, s);
  return s;
}

/* ---- the function --------------------------------------------------------------- */

static bool check_params(Conv *c, MlcTeTensor **params, int n) {
  if (n < 1 || !params) return mlc_error(c->ctx, (MlcLoc){0}, "prim func '%s' needs at least one param", c->fname);
  bool any_compute = false;
  for (int i = 0; i < n; i++) {
    if (!params[i])
      return mlc_has_error(c->ctx) ? false : mlc_error(c->ctx, (MlcLoc){0}, "param %d of '%s' is missing", i, c->fname);
    if (!mlc_te_tensor_of(params[i]->buffer))
      return mlc_error(c->ctx, (MlcLoc){0}, "param %d of '%s' is not a tensor expression", i, c->fname);
    if (mlc_map_has(&c->is_param, params[i]->buffer))
      return mlc_error(c->ctx, (MlcLoc){0}, "tensor '%s' is given twice as a param of '%s'", params[i]->name, c->fname);
    mlc_map_put(&c->is_param, params[i]->buffer, ON);
    any_compute |= params[i]->is_compute;
  }
  if (!any_compute)
    return mlc_error(c->ctx, (MlcLoc){0}, "prim func '%s' computes nothing: none of its params is a compute", c->fname);
  return true;
}

static MlcAttrs func_attrs(MlcCtx *ctx, const char *name) {
  MlcAttr *a = mlc_arena_array(&ctx->arena, 2, sizeof *a);
  a[0] = (MlcAttr){mlc_intern(ctx, "global_symbol"), {.kind = MLC_ATTR_STR, .s = name}};
  a[1] = (MlcAttr){mlc_intern(ctx, "tir.noalias"), {.kind = MLC_ATTR_BOOL, .b = true}};
  return (MlcAttrs){a, 2};
}

/* the root block: every nest in order, the intermediates allocated */
static MlcStmt *root(Conv *c) {
  MlcCtx *ctx = c->ctx;
  size_t n = c->order.len;
  MlcStmt **nests = mlc_arena_array(&ctx->arena, n, sizeof *nests);
  MlcBuffer **allocs = mlc_arena_array(&ctx->arena, n, sizeof *allocs);
  int n_allocs = 0;
  for (size_t i = 0; i < n; i++) {
    MlcTeTensor *t = c->order.data[i];
    if (mlc_map_has(&c->is_param, t->buffer)) continue;
    if (!(allocs[n_allocs++] = make_buffer(c, t))) return NULL;
  }
  for (size_t i = 0; i < n; i++)
    if (!(nests[i] = compute_nest(c, c->order.data[i]))) return NULL;
  MlcStmt *body = mlc_s_seq(ctx, nests, (int)n);
  MlcBlock *b = body ? mlc_block_new(ctx, mlc_intern(ctx, "root"), NULL, 0, NULL, 0, NULL, 0, NULL, allocs, n_allocs,
                                     (MlcAttrs){0}, body)
                     : NULL;
  return b ? mlc_s_realize(ctx, NULL, 0, NULL, b) : NULL;
}

static MlcPrimFunc *convert(Conv *c, MlcTeTensor **params, int n) {
  MlcCtx *ctx = c->ctx;
  if (!check_params(c, params, n)) return NULL;
  for (int i = 0; i < n; i++)
    if (params[i]->is_compute && !visit(c, params[i], NULL)) return NULL;
  MlcParam *ps = mlc_arena_array(&ctx->arena, (size_t)n, sizeof *ps);
  for (int i = 0; i < n; i++) {
    ps[i].buf = make_buffer(c, params[i]);
    if (!ps[i].buf) return NULL;
    /* a param of symbolic shape prints as `var_X: T.handle` matched to X */
    ps[i].var = mlc_e_var(ctx, mlc_internf(ctx, "var_%s", ps[i].buf->name), MLC_HANDLE);
  }
  MlcStmt *body = root(c);
  MlcPrimFunc *f = body ? mlc_prim_func_new(ctx, c->fname, ps, n, func_attrs(ctx, c->fname), body) : NULL;
  return f ? te_bind_size_exprs(ctx, f) : NULL;
}

MlcPrimFunc *mlc_te_to_prim_func(MlcCtx *ctx, const char *name, MlcTeTensor **params, int n) {
  if (!name || !*name) return mlc_error(ctx, (MlcLoc){0}, "a prim func needs a name"), NULL;
  Conv c = {.ctx = ctx, .fname = mlc_intern(ctx, name), .mut = {.ctx = ctx, .expr = subst_var}};
  MlcPrimFunc *f = convert(&c, params, n);
  mlc_map_free(&c.is_param);
  mlc_map_free(&c.state);
  mlc_map_free(&c.names);
  mlc_map_free(&c.mut.buffer_map);
  mlc_vec_free(&c.order);
  return f;
}
