/* indexing.c - the element gathers and scatters: gather_elements,
 * scatter_elements and one_hot.
 *
 * Like manip.c (whose take is the gather along one axis), each is one
 * compute whose element reads are chosen by index arithmetic, and every
 * read stays in bounds by construction: gathers wrap negative indices and
 * then clamp them.
 *
 * scatter_elements is written as a gather too: output element p is the
 * data element p updated, in order, by every update whose target is p.
 * Those updates can only come from the K positions of indices that share
 * p's other coordinates (K = the indices' extent along axis), so the body
 * is a chain of K selects, which keeps ONNX's "later update wins" order
 * for duplicates and makes every reduction (add, mul, max, min) exact.  K
 * must be a known constant, bounded so the expression stays small. */
#include <string.h>

#include "mlcc/arith.h"
#include "ops/op_internal.h"

#define INDEX_MAX_RANK 32
#define INDEX_MAX_SCATTER_K 1024 /* updates along the scatter axis folded into one chain */

static MlcExpr **earr(MlcCtx *ctx, int n) {
  return mlc_arena_array(&ctx->arena, (size_t)(n > 0 ? n : 1), sizeof(MlcExpr *));
}

static MlcExpr *i64(MlcCtx *ctx, int64_t v) { return mlc_op_i64(ctx, v); }
static MlcExpr *bin(MlcCtx *ctx, MlcBinOp op, MlcExpr *x, MlcExpr *y) { return mlc_e_bin(ctx, op, x, y); }

static MlcExpr *and_(MlcCtx *ctx, MlcExpr *c, MlcExpr *d) { return c ? bin(ctx, MLC_BIN_AND, c, d) : d; }

/* an index read from an integer tensor, as int64 */
static MlcExpr *read_index(MlcCtx *ctx, const MlcTeTensor *t, MlcExpr **idx) {
  MlcExpr *v = mlc_te_read(ctx, t, idx, t->ndim);
  return v && !mlc_dtype_eq(v->dtype, MLC_I64) ? mlc_e_cast(ctx, MLC_I64, v) : v;
}

/* ONNX's negative indices count from the end; an index still out of range
 * is a run-time error (T.checked_index), never a read outside the buffer */
static MlcExpr *wrap_clamp(MlcCtx *ctx, MlcExpr *v, MlcExpr *extent) {
  MlcExpr *w = mlc_op_select(ctx, bin(ctx, MLC_BIN_LT, v, i64(ctx, 0)), bin(ctx, MLC_BIN_ADD, v, extent), v);
  return mlc_e_call(ctx, MLC_INTRIN_CHECKED_INDEX, (MlcExpr *[]){w, extent}, 2);
}

/* tensor parameter i with known dims and dtype */
static const MlcSInfo *known(MlcCtx *ctx, const MlcOpArgs *a, int i, const char *what) {
  const MlcSInfo *s = mlc_op_tensor(ctx, a, i, true);
  if (!s) return NULL;
  if (!s->tensor.shape && s->tensor.ndim > 0) return mlc_op_fail(ctx, a, "%s has unknown dims", what), NULL;
  if (s->tensor.ndim > INDEX_MAX_RANK)
    return mlc_op_fail(ctx, a, "%s has %d dims, at most %d are supported", what, s->tensor.ndim, INDEX_MAX_RANK),
           NULL;
  return s;
}

static bool need_int(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *s, const char *what) {
  char b[32];
  if (mlc_dtype_is_int(s->tensor.dtype)) return true;
  return mlc_op_fail(ctx, a, "%s must be integers, not %s", what, mlc_dtype_str(s->tensor.dtype, b));
}

/* out[axes] = body */
static bool emit(MlcCtx *ctx, const char *name, const MlcSInfo *out, MlcExpr **axes, MlcExpr *body,
                 MlcTeTensor **outs, int *n_outs) {
  MlcTeTensor *t = body ? mlc_te_compute(ctx, mlc_intern(ctx, name), out->tensor.shape, out->tensor.ndim,
                                         axes, body)
                        : NULL;
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}

static MlcExpr **new_axes(MlcCtx *ctx, int n) {
  MlcExpr **ax = earr(ctx, n);
  mlc_op_axes(ctx, n, ax);
  return ax;
}

/* ======================================================================== */
/* gather_elements, scatter_elements                                        */
/* ======================================================================== */

/* data and indices have one rank; axis normalized; every dim of indices
 * (of updates too, when given) that is known fits data's, except along
 * axis for gathers */
static bool elements_plan(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *data, const MlcSInfo *ind,
                          bool scatter, int *axis) {
  int64_t ax, di, dd;
  if (!need_int(ctx, a, ind, "indices") || !mlc_op_attr_int(ctx, a, "axis", 0, &ax)) return false;
  int nd = data->tensor.ndim;
  if (ind->tensor.ndim != nd)
    return mlc_op_fail(ctx, a, "indices %s and data %s must have the same rank", mlc_op_sinfo_str(ctx, ind),
                       mlc_op_sinfo_str(ctx, data));
  if (nd == 0) return mlc_op_fail(ctx, a, "data must have at least one dim");
  if (!mlc_op_axis(ctx, a, ax, nd, axis)) return false;
  for (int i = 0; i < nd; i++) {
    if (i == *axis && !scatter) continue;
    if (mlc_e_is_const_int(ind->tensor.shape[i], &di) && mlc_e_is_const_int(data->tensor.shape[i], &dd) &&
        di > dd)
      return mlc_op_fail(ctx, a, "indices %s is larger than data %s in dim %d", mlc_op_sinfo_str(ctx, ind),
                         mlc_op_sinfo_str(ctx, data), i);
  }
  return true;
}

MlcSInfo *mlc_op_infer_gather_elements(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *data = known(ctx, a, 0, "data"), *ind = data ? known(ctx, a, 1, "indices") : NULL;
  int axis;
  if (!ind || !elements_plan(ctx, a, data, ind, false, &axis)) return NULL;
  return mlc_op_tensor_sinfo(ctx, ind->tensor.shape, ind->tensor.ndim, data->tensor.dtype);
}

bool mlc_op_te_gather_elements(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs,
                               MlcTeTensor **outs, int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_gather_elements(ctx, a);
  const MlcSInfo *data = known(ctx, a, 0, "data"), *ind = known(ctx, a, 1, "indices");
  int axis;
  if (!out || !data || !ind || !elements_plan(ctx, a, data, ind, false, &axis)) return false;
  const MlcTeTensor *dt = inputs[0], *it = inputs[1];
  int nd = dt->ndim;
  MlcExpr **ax = new_axes(ctx, nd), **in = earr(ctx, nd);
  memcpy(in, ax, (size_t)nd * sizeof *in);
  MlcExpr *pos = read_index(ctx, it, ax);
  if (!pos) return false;
  in[axis] = wrap_clamp(ctx, pos, dt->shape[axis]);
  return emit(ctx, "T_gather_elements", out, ax, mlc_te_read(ctx, dt, in, nd), outs, n_outs);
}

#define SCATTER_REDUCTIONS(X) X(NONE, "none") X(ADD, "add") X(MUL, "mul") X(MAX, "max") X(MIN, "min")

typedef enum ScatterRed {
#define X(id, s) RED_##id,
  SCATTER_REDUCTIONS(X)
#undef X
  RED_COUNT
} ScatterRed;

static const char *const red_names[RED_COUNT] = {
#define X(id, s) s,
    SCATTER_REDUCTIONS(X)
#undef X
};

static bool scatter_plan(MlcCtx *ctx, const MlcOpArgs *a, int *axis, ScatterRed *red, int64_t *k) {
  const MlcSInfo *data = known(ctx, a, 0, "data"), *ind = data ? known(ctx, a, 1, "indices") : NULL;
  const MlcSInfo *upd = ind ? known(ctx, a, 2, "updates") : NULL;
  const char *r;
  char b1[32], b2[32];
  if (!upd || !elements_plan(ctx, a, data, ind, true, axis) ||
      !mlc_op_attr_str(ctx, a, "reduction", "none", &r))
    return false;
  int m = 0;
  while (m < RED_COUNT && strcmp(red_names[m], r)) m++;
  if (m == RED_COUNT)
    return mlc_op_fail(ctx, a, "reduction must be \"none\", \"add\", \"mul\", \"max\" or \"min\", not \"%s\"", r);
  *red = (ScatterRed)m;
  if (!mlc_dtype_eq(upd->tensor.dtype, data->tensor.dtype))
    return mlc_op_fail(ctx, a, "updates is %s, data is %s", mlc_dtype_str(upd->tensor.dtype, b1),
                       mlc_dtype_str(data->tensor.dtype, b2));
  if (upd->tensor.ndim != ind->tensor.ndim)
    return mlc_op_fail(ctx, a, "updates %s and indices %s must have the same shape", mlc_op_sinfo_str(ctx, upd),
                       mlc_op_sinfo_str(ctx, ind));
  for (int i = 0; i < ind->tensor.ndim; i++)
    if (!mlc_op_dim_equal(upd->tensor.shape[i], ind->tensor.shape[i]))
      return mlc_op_fail(ctx, a, "updates %s and indices %s must have the same shape", mlc_op_sinfo_str(ctx, upd),
                         mlc_op_sinfo_str(ctx, ind));
  if (!mlc_e_is_const_int(ind->tensor.shape[*axis], k))
    return mlc_op_fail(ctx, a, "indices %s: the extent along axis %d must be known", mlc_op_sinfo_str(ctx, ind), *axis);
  if (*k > INDEX_MAX_SCATTER_K)
    return mlc_op_fail(ctx, a, "indices %s: at most %d updates along axis %d are supported", mlc_op_sinfo_str(ctx, ind),
                       INDEX_MAX_SCATTER_K, *axis);
  return true;
}

MlcSInfo *mlc_op_infer_scatter_elements(MlcCtx *ctx, const MlcOpArgs *a) {
  int axis;
  ScatterRed red;
  int64_t k;
  if (!scatter_plan(ctx, a, &axis, &red, &k)) return NULL;
  const MlcSInfo *data = a->val[0]->sinfo;
  return mlc_op_tensor_sinfo(ctx, data->tensor.shape, data->tensor.ndim, data->tensor.dtype);
}

static MlcExpr *combine(MlcCtx *ctx, ScatterRed red, MlcExpr *acc, MlcExpr *u) {
  switch (red) {
  case RED_NONE: return u;
  case RED_ADD: return bin(ctx, MLC_BIN_ADD, acc, u);
  case RED_MUL: return bin(ctx, MLC_BIN_MUL, acc, u);
  case RED_MAX: return bin(ctx, MLC_BIN_MAX, acc, u);
  case RED_MIN: return bin(ctx, MLC_BIN_MIN, acc, u);
  case RED_COUNT: break;
  }
  return u;
}

bool mlc_op_te_scatter_elements(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs,
                                MlcTeTensor **outs, int *n_outs) {
  int axis;
  ScatterRed red;
  int64_t k;
  const MlcSInfo *out = mlc_op_infer_scatter_elements(ctx, a);
  if (!out || !scatter_plan(ctx, a, &axis, &red, &k)) return false;
  const MlcTeTensor *dt = inputs[0], *it = inputs[1], *ut = inputs[2];
  int nd = dt->ndim;
  MlcExpr **ax = new_axes(ctx, nd), *acc = mlc_te_read(ctx, dt, ax, nd), *within = NULL;
  /* updates can only reach p when p's other coordinates exist in indices */
  for (int i = 0; i < nd; i++)
    if (i != axis && !mlc_op_dim_equal(it->shape[i], dt->shape[i]))
      within = and_(ctx, within, bin(ctx, MLC_BIN_LT, ax[i], it->shape[i]));
  MlcExpr *chain = acc;
  for (int64_t j = 0; j < k && chain; j++) {
    MlcExpr **src = earr(ctx, nd);
    memcpy(src, ax, (size_t)nd * sizeof *src);
    src[axis] = i64(ctx, j);
    MlcExpr *pos = read_index(ctx, it, src), *u = mlc_te_read(ctx, ut, src, nd);
    if (!pos || !u) return false;
    MlcExpr *target = wrap_clamp(ctx, pos, dt->shape[axis]);
    chain = mlc_e_select(ctx, bin(ctx, MLC_BIN_EQ, target, ax[axis]), combine(ctx, red, chain, u), chain);
  }
  MlcExpr *body = within && chain ? mlc_op_select(ctx, within, chain, acc) : chain;
  return emit(ctx, "T_scatter_elements", out, ax, body, outs, n_outs);
}

/* ======================================================================== */
/* one_hot                                                                  */
/* ======================================================================== */

typedef struct OneHot {
  int64_t depth;
  int axis;  /* of the output */
  double on, off;
  MlcDType dtype;
} OneHot;

static bool one_hot_plan(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *ind, OneHot *p) {
  int64_t ax;
  bool present;
  if (!need_int(ctx, a, ind, "indices") || !mlc_op_attr_int(ctx, a, "depth", -1, &p->depth) ||
      !mlc_op_attr_float(ctx, a, "on_value", 1.0, &p->on) || !mlc_op_attr_float(ctx, a, "off_value", 0.0, &p->off) ||
      !mlc_op_attr_int(ctx, a, "axis", -1, &ax) || !mlc_op_attr_dtype(ctx, a, "dtype", &p->dtype, &present))
    return false;
  if (!present || p->dtype.code == MLC_TC_VOID) p->dtype = MLC_DT(MLC_TC_FLOAT, 32, 1);
  if (p->depth < 1) return mlc_op_fail(ctx, a, "depth must be positive, got %lld", (long long)p->depth);
  if (ind->tensor.ndim + 1 > INDEX_MAX_RANK)
    return mlc_op_fail(ctx, a, "the result would have more than %d dims", INDEX_MAX_RANK);
  return mlc_op_axis(ctx, a, ax, ind->tensor.ndim + 1, &p->axis);
}

MlcSInfo *mlc_op_infer_one_hot(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *ind = known(ctx, a, 0, "indices");
  OneHot p;
  if (!ind || !one_hot_plan(ctx, a, ind, &p)) return NULL;
  int nd = ind->tensor.ndim + 1, k = 0;
  MlcExpr **shape = earr(ctx, nd);
  for (int i = 0; i < nd; i++) shape[i] = i == p.axis ? i64(ctx, p.depth) : ind->tensor.shape[k++];
  return mlc_op_tensor_sinfo(ctx, shape, nd, p.dtype);
}

/* ONNX: an index in [-depth, depth) selects a class (negative ones count
 * from the end); any other index selects none */
bool mlc_op_te_one_hot(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs, MlcTeTensor **outs,
                       int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_one_hot(ctx, a), *ind = known(ctx, a, 0, "indices");
  OneHot p;
  if (!out || !ind || !one_hot_plan(ctx, a, ind, &p)) return false;
  int nd = out->tensor.ndim, k = 0;
  MlcExpr **ax = new_axes(ctx, nd), **in = earr(ctx, nd - 1);
  for (int i = 0; i < nd; i++)
    if (i != p.axis) in[k++] = ax[i];
  MlcExpr *v = read_index(ctx, inputs[0], in);
  if (!v) return false;
  MlcExpr *depth = i64(ctx, p.depth);
  MlcExpr *cls = mlc_e_select(ctx, bin(ctx, MLC_BIN_LT, v, i64(ctx, 0)), bin(ctx, MLC_BIN_ADD, v, depth), v);
  MlcExpr *body = mlc_e_select(ctx, bin(ctx, MLC_BIN_EQ, cls, ax[p.axis]), mlc_op_const(ctx, p.dtype, p.on),
                               mlc_op_const(ctx, p.dtype, p.off));
  return emit(ctx, "T_one_hot", out, ax, body, outs, n_outs);
}
