/* te.c - the tensor-expression builders: placeholders, computes and
 * reductions, reads of a tensor, and the identity values of reductions.
 *
 * A builder checks everything a compute definition can get wrong on its own
 * (ranks, index dtypes, axes that are not distinct vars, a body that reads a
 * var that is not its own or a buffer that is no tensor), so that the
 * conversion to a prim func meets only well-formed computes and an op
 * definition's mistake is reported where it was made.  Each tensor is
 * allocated beside its buffer (see te_internal.h for why). */
#include "te/te_internal.h"

#include <float.h>
#include <string.h>

/* the scope of every TE buffer: its address, not its text, marks them */
static const char te_scope[] = "global";

typedef struct TeNode {
  MlcBuffer buf; /* first: a TE buffer pointer is its node's pointer */
  MlcTeTensor t;
} TeNode;

#define TE_MAX_RANK 64 /* far above any real tensor; bounds what input can ask for */

MlcTeTensor *mlc_te_tensor_of(const MlcBuffer *b) {
  return b && b->scope == te_scope ? &((TeNode *)(void *)b)->t : NULL;
}

MlcExpr *mlc_te_var(MlcCtx *ctx, const char *name) { return mlc_e_var(ctx, name, MLC_I64); }

/* ---- checks shared by the builders ------------------------------------------ */

/* an int64 version of an integer scalar: immediates are rebuilt as int64,
 * other integers cast (allow_cast) or refused */
static MlcExpr *widen(MlcCtx *ctx, MlcExpr *e, bool allow_cast, const char *what, const char *name, int i) {
  char b[32];
  if (!e) return NULL;
  if (mlc_dtype_eq(e->dtype, MLC_I64)) return e;
  if (e->dtype.code == MLC_TC_INT && e->dtype.lanes == 1 && e->kind == MLC_EXPR_INT)
    return mlc_e_int(ctx, MLC_I64, e->int_val);
  if (allow_cast && mlc_dtype_is_int(e->dtype) && e->dtype.lanes == 1) return mlc_e_cast(ctx, MLC_I64, e);
  mlc_error(ctx, (MlcLoc){0}, "%s %d of '%s' must be an int64 expression, got %s", what, i, name,
            mlc_dtype_str(e->dtype, b));
  return NULL;
}

/* an arena copy of a shape (or of reduce extents), widened and checked */
static MlcExpr **copy_dims(MlcCtx *ctx, MlcExpr **dims, int n, const char *what, const char *name) {
  MlcExpr **out = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *out);
  for (int i = 0; i < n; i++) {
    int64_t v;
    if (!(out[i] = widen(ctx, dims[i], false, what, name, i))) return NULL;
    if (mlc_e_is_const_int(out[i], &v) && v < 0) {
      mlc_error(ctx, (MlcLoc){0}, "%s %d of '%s' is negative (%lld)", what, i, name, (long long)v);
      return NULL;
    }
  }
  return out;
}

static bool check_rank(MlcCtx *ctx, const char *name, int ndim, bool has_shape) {
  if (!name || !*name) return mlc_error(ctx, (MlcLoc){0}, "a tensor needs a name");
  if (ndim < 0 || ndim > TE_MAX_RANK)
    return mlc_error(ctx, (MlcLoc){0}, "tensor '%s': rank %d is not in [0, %d]", name, ndim, TE_MAX_RANK);
  if (ndim > 0 && !has_shape) return mlc_error(ctx, (MlcLoc){0}, "tensor '%s' has rank %d but no shape", name, ndim);
  return true;
}

static bool check_dtype(MlcCtx *ctx, const char *name, MlcDType t) {
  char b[32];
  if (t.lanes != 1 || t.code == MLC_TC_VOID || t.code == MLC_TC_HANDLE)
    return mlc_error(ctx, (MlcLoc){0}, "tensor '%s' cannot hold %s", name, mlc_dtype_str(t, b));
  return true;
}

static MlcTeTensor *new_tensor(MlcCtx *ctx, const char *name, MlcExpr **shape, int ndim, MlcDType dtype) {
  if (!check_rank(ctx, name, ndim, shape != NULL) || !check_dtype(ctx, name, dtype)) return NULL;
  MlcExpr **dims = copy_dims(ctx, shape, ndim, "dimension", name);
  if (!dims) return NULL;
  TeNode *node = mlc_arena_alloc(&ctx->arena, sizeof *node);
  node->buf.name = mlc_intern(ctx, name);
  node->buf.dtype = dtype;
  node->buf.ndim = ndim;
  node->buf.shape = dims;
  node->buf.scope = te_scope;
  MlcTeTensor *t = &node->t;
  t->name = node->buf.name;
  t->ndim = ndim;
  t->shape = dims;
  t->dtype = dtype;
  t->buffer = &node->buf;
  return t;
}

MlcTeTensor *mlc_te_placeholder(MlcCtx *ctx, const char *name, MlcExpr **shape, int ndim, MlcDType dtype) {
  return new_tensor(ctx, name, shape, ndim, dtype);
}

MlcExpr *mlc_te_read(MlcCtx *ctx, const MlcTeTensor *t, MlcExpr **idx, int n) {
  if (!t || n < 0 || (n > 0 && !idx)) return NULL;
  for (int i = 0; i < n; i++)
    if (!idx[i]) return NULL;
  if (n != t->ndim) {
    mlc_error(ctx, (MlcLoc){0}, "tensor '%s' has %d dimension%s but is read with %d ind%s", t->name, t->ndim,
              t->ndim == 1 ? "" : "s", n, n == 1 ? "ex" : "ices");
    return NULL;
  }
  MlcExpr **wide = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *wide);
  for (int i = 0; i < n; i++)
    if (!(wide[i] = widen(ctx, idx[i], true, "index", t->name, i))) return NULL;
  return mlc_e_load(ctx, t->buffer, wide, n);
}

/* ---- the vars a body may read ------------------------------------------------- */

typedef struct VarScan {
  MlcMap *allowed;         /* var -> ON: own axes, sizes, lets */
  const MlcExpr *foreign;  /* the first var read that is none of them */
  const MlcBuffer *alien;  /* the first buffer read that is no tensor */
  MLC_VEC(MlcTeTensor *) inputs;
  MlcMap seen;             /* tensor -> ON */
} VarScan;

static char on_mark;
#define ON ((void *)&on_mark)

static bool add_var(MlcVisitor *v, const MlcExpr *e) {
  if (e->kind == MLC_EXPR_VAR) mlc_map_put(v->user, e, ON);
  return true;
}

/* every var in e becomes allowed */
static void allow_vars(MlcMap *allowed, const MlcExpr *e) {
  MlcVisitor v = {.user = allowed, .expr = add_var};
  if (e) mlc_visit_expr(&v, e);
}

static void note_buffer(MlcVisitor *v, const MlcBuffer *b) {
  VarScan *s = v->user;
  MlcTeTensor *t = mlc_te_tensor_of(b);
  if (!t) {
    if (!s->alien) s->alien = b;
    return;
  }
  if (mlc_map_has(&s->seen, t)) return;
  mlc_map_put(&s->seen, t, ON);
  mlc_vec_push(&s->inputs, t);
}

static bool check_var(MlcVisitor *v, const MlcExpr *e) {
  VarScan *s = v->user;
  if (e->kind == MLC_EXPR_LET) mlc_map_put(s->allowed, e->let.var, ON);
  if (e->kind == MLC_EXPR_VAR && !s->foreign && !mlc_map_has(s->allowed, e)) s->foreign = e;
  return true;
}

/* the tensors body loads (into s->inputs), and any buffer that is none */
static void scan_inputs(VarScan *s, const MlcExpr *body) {
  MlcVisitor v = {.user = s, .buffer_use = note_buffer};
  mlc_visit_expr(&v, body);
}

MlcTeTensor **mlc_te_inputs(MlcCtx *ctx, const MlcTeTensor *t, int *n) {
  VarScan s = {0};
  if (t->is_compute && t->body) scan_inputs(&s, t->body);
  *n = (int)s.inputs.len;
  MlcTeTensor **out = mlc_vec_to_arena(&ctx->arena, &s.inputs);
  mlc_vec_free(&s.inputs);
  mlc_map_free(&s.seen);
  return out;
}

/* The body reads only tensors, and only vars that are its own: its index
 * vars, sizes in its own shape or in the shape of a tensor it reads (the
 * prim func's params bind those), and vars its own lets bind. */
static bool check_body(MlcCtx *ctx, const MlcTeTensor *t) {
  MlcMap allowed = {0};
  VarScan s = {.allowed = &allowed};
  for (int i = 0; i < t->ndim; i++) allow_vars(&allowed, t->axes[i]), allow_vars(&allowed, t->shape[i]);
  for (int i = 0; i < t->n_raxes; i++) allow_vars(&allowed, t->raxes[i]), allow_vars(&allowed, t->rextents[i]);
  scan_inputs(&s, t->body);
  for (size_t k = 0; k < s.inputs.len; k++)
    for (int i = 0; i < s.inputs.data[k]->ndim; i++) allow_vars(&allowed, s.inputs.data[k]->shape[i]);
  MlcVisitor v = {.user = &s, .expr = check_var};
  mlc_visit_expr(&v, t->body);
  bool ok = true;
  if (s.alien)
    ok = mlc_error(ctx, (MlcLoc){0}, "compute '%s' reads buffer '%s', which is not a tensor expression", t->name,
                   s.alien->name);
  else if (s.foreign)
    ok = mlc_error(ctx, (MlcLoc){0},
                   "compute '%s' reads var '%s', which is not one of its index vars (nor a size in a shape it reads)",
                   t->name, s.foreign->var.name);
  mlc_map_free(&allowed);
  mlc_map_free(&s.seen);
  mlc_vec_free(&s.inputs);
  return ok;
}

/* axes and reduce axes: int64 vars, all distinct */
static bool check_axes(MlcCtx *ctx, const char *name, MlcExpr **axes, int n, MlcExpr **others, int n_others,
                       const char *what) {
  for (int i = 0; i < n; i++) {
    if (!axes[i]) return false;
    if (axes[i]->kind != MLC_EXPR_VAR || !mlc_dtype_eq(axes[i]->dtype, MLC_I64))
      return mlc_error(ctx, (MlcLoc){0}, "%s %d of compute '%s' must be an int64 var (from mlc_te_var)", what, i, name);
    for (int j = 0; j < i; j++)
      if (axes[j] == axes[i])
        return mlc_error(ctx, (MlcLoc){0}, "compute '%s' uses var '%s' as two of its axes", name, axes[i]->var.name);
    for (int j = 0; j < n_others; j++)
      if (others[j] == axes[i])
        return mlc_error(ctx, (MlcLoc){0}, "compute '%s' uses var '%s' as two of its axes", name, axes[i]->var.name);
  }
  return true;
}

static MlcTeTensor *make_compute(MlcCtx *ctx, const char *name, MlcExpr **shape, int ndim, MlcExpr **axes,
                                 MlcTeReduce op, MlcExpr *body, MlcExpr **raxes, MlcExpr **rextents, int n_raxes) {
  if (!body) {
    if (!mlc_has_error(ctx)) mlc_error(ctx, (MlcLoc){0}, "compute '%s' has no body", name ? name : "?");
    return NULL;
  }
  if (!check_rank(ctx, name, ndim, shape != NULL)) return NULL;
  if (ndim > 0 && !axes) return mlc_error(ctx, (MlcLoc){0}, "compute '%s' has no axes", name), NULL;
  if (!check_axes(ctx, name, axes, ndim, NULL, 0, "axis") ||
      !check_axes(ctx, name, raxes, n_raxes, axes, ndim, "reduce axis"))
    return NULL;
  MlcTeTensor *t = new_tensor(ctx, name, shape, ndim, body->dtype);
  MlcExpr **rext = t ? copy_dims(ctx, rextents, n_raxes, "reduce extent", name) : NULL;
  if (!rext) return NULL;
  t->is_compute = true;
  t->axes = mlc_arena_array(&ctx->arena, (size_t)(ndim ? ndim : 1), sizeof *t->axes);
  if (ndim) memcpy(t->axes, axes, (size_t)ndim * sizeof *axes);
  t->body = body;
  t->reduce = op;
  t->raxes = n_raxes ? mlc_arena_dup(&ctx->arena, raxes, (size_t)n_raxes * sizeof *raxes) : NULL;
  t->rextents = rext;
  t->n_raxes = n_raxes;
  return check_body(ctx, t) ? t : NULL;
}

MlcTeTensor *mlc_te_compute(MlcCtx *ctx, const char *name, MlcExpr **shape, int ndim, MlcExpr **axes,
                            MlcExpr *body) {
  return make_compute(ctx, name, shape, ndim, axes, MLC_TE_NO_REDUCE, body, NULL, NULL, 0);
}

/* A sum of 16-bit floats accumulates in float32 ("<name>_acc") and rounds
 * once at the end, as every library does: summed in float16, n terms of
 * similar size lose about log2(n) bits, and the result would depend on the
 * order the generated code adds them in.  (max and min are exact in any
 * precision and stay as they are.) */
static MlcTeTensor *sum16(MlcCtx *ctx, const char *name, MlcExpr **shape, int ndim, MlcExpr **axes, MlcExpr *body,
                          MlcExpr **raxes, MlcExpr **rextents, int n_raxes) {
  MlcDType t = body->dtype, acc = mlc_dtype_with_lanes(MLC_F32, t.lanes);
  MlcTeTensor *sum = make_compute(ctx, mlc_internf(ctx, "%s_acc", name), shape, ndim, axes, MLC_TE_SUM,
                                  mlc_e_cast(ctx, acc, body), raxes, rextents, n_raxes);
  if (!sum) return NULL;
  MlcExpr **ax = ndim ? mlc_arena_array(&ctx->arena, (size_t)ndim, sizeof *ax) : NULL;
  for (int d = 0; d < ndim; d++) ax[d] = mlc_te_var(ctx, mlc_internf(ctx, "i%d", d));
  return make_compute(ctx, name, shape, ndim, ax, MLC_TE_NO_REDUCE, mlc_e_cast(ctx, t, mlc_te_read(ctx, sum, ax, ndim)),
                      NULL, NULL, 0);
}

MlcTeTensor *mlc_te_reduce(MlcCtx *ctx, const char *name, MlcExpr **shape, int ndim, MlcExpr **axes,
                           MlcTeReduce op, MlcExpr *body, MlcExpr **raxes, MlcExpr **rextents, int n_raxes) {
  char b[32];
  const char *nm = name ? name : "?";
  if (op != MLC_TE_SUM && op != MLC_TE_MAX && op != MLC_TE_MIN)
    return mlc_error(ctx, (MlcLoc){0}, "reduction '%s': unknown reduce operation %d", nm, (int)op), NULL;
  if (n_raxes < 1 || n_raxes > TE_MAX_RANK || !raxes || !rextents)
    return mlc_error(ctx, (MlcLoc){0}, "reduction '%s' needs 1 to %d reduce axes, got %d", nm, TE_MAX_RANK,
                     n_raxes), NULL;
  if (body && !mlc_dtype_is_int(body->dtype) && !mlc_dtype_is_float(body->dtype))
    return mlc_error(ctx, (MlcLoc){0}, "reduction '%s' cannot reduce %s values", nm,
                     mlc_dtype_str(body->dtype, b)), NULL;
  for (int i = 0; i < n_raxes; i++)
    if (!raxes[i] || !rextents[i]) return NULL;
  if (op == MLC_TE_SUM && body && mlc_dtype_is_float(body->dtype) &&
      (body->dtype.bits == 16 || mlc_dtype_is_minifloat(body->dtype))) /* 8- and 4-bit floats too */
    return sum16(ctx, nm, shape, ndim, axes, body, raxes, rextents, n_raxes);
  return make_compute(ctx, name, shape, ndim, axes, op, body, raxes, rextents, n_raxes);
}

/* ---- reduction identities ----------------------------------------------------- */

/* the largest finite value of a float dtype */
static double float_max(MlcDType t) {
  if (t.code == MLC_TC_BFLOAT) return 3.3895313892515355e38;
  if (mlc_dtype_is_minifloat(t)) return mlc_minifloat_max(mlc_dtype_elem(t));
  return t.bits == 16 ? 65504.0 : t.bits == 32 ? (double)FLT_MAX : DBL_MAX;
}

static MlcExpr *extreme(MlcCtx *ctx, MlcDType t, bool highest) {
  char b[32];
  t = mlc_dtype_elem(t);
  if (mlc_dtype_is_float(t)) return mlc_e_float(ctx, t, highest ? float_max(t) : -float_max(t));
  if (t.code == MLC_TC_UINT) /* uint64's highest is stored bitwise as -1 */
    return mlc_e_int(ctx, t, highest ? (t.bits >= 64 ? -1 : (int64_t)((UINT64_C(1) << t.bits) - 1)) : 0);
  if (t.code == MLC_TC_INT) {
    int64_t hi = t.bits >= 64 ? INT64_MAX : (int64_t)((UINT64_C(1) << (t.bits - 1)) - 1);
    return mlc_e_int(ctx, t, highest ? hi : -hi - 1);
  }
  if (t.code == MLC_TC_BOOL) return mlc_e_int(ctx, t, highest);
  mlc_error(ctx, (MlcLoc){0}, "%s has no %s value", mlc_dtype_str(t, b), highest ? "highest" : "lowest");
  return NULL;
}

MlcExpr *mlc_te_min_value(MlcCtx *ctx, MlcDType t) { return extreme(ctx, t, false); }
MlcExpr *mlc_te_max_value(MlcCtx *ctx, MlcDType t) { return extreme(ctx, t, true); }
