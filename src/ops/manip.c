/* manip.c - the shape and indexing ops: reshape, permute_dims, expand_dims,
 * squeeze, flatten, nn.batch_flatten, concat, split, strided_slice, take and
 * broadcast_to.
 *
 * Each op is a gather: output element idx reads one input element at an
 * index computed from idx.  So every te function here asks its op's infer
 * function for the output shape, maps the output's index vars to input
 * indices, and emits one compute.  Where inference and the te need the same
 * decisions (split's pieces, strided_slice's begins and strides) one "plan"
 * function makes them for both.
 *
 * Symbolic sizes: element counts are compared as monomials (a constant
 * times a multiset of symbolic factors), which is enough to prove that
 * (n, 4) and (n * 4,) hold as many elements, or to infer the -1 of
 * reshape((n, 4), (-1, 2)) as n * 2, without a general simplifier.  Whatever
 * cannot be proved is refused with a message saying so: the field defers
 * such checks to run time, a compiled function here has no such checks.
 *
 * The reference interpreter bounds-checks every access, and generated code
 * must not read outside a buffer either, so reads are made safe in the
 * expression itself: concat chooses its input with if_then_else (only the
 * taken branch is evaluated) and take clips (or wraps) its indices. */
#include "ops/op_internal.h"

#include "mlcc/arith.h"

#include <string.h>

#define MANIP_MAX_RANK 32    /* dims of any tensor these ops build */
#define MANIP_MAX_FACTORS 64 /* symbolic factors of one element count */
/* strided_slice end at or above this means "to the end" of a symbolic axis */
#define MANIP_END_SENTINEL INT32_MAX

/* ======================================================================== */
/* small helpers                                                            */
/* ======================================================================== */

static MlcExpr **exprs(MlcCtx *ctx, int n) {
  return mlc_arena_array(&ctx->arena, (size_t)(n > 0 ? n : 1), sizeof(MlcExpr *));
}

/* the attribute named is given and is not None */
static bool given(const MlcOpArgs *a, const char *name) {
  int i = mlc_op_param(a, name);
  return i >= 0 && a->attr[i] && a->attr[i]->kind != MLC_ATTR_NONE;
}

/* the attribute named is given as None */
static bool is_none(const MlcOpArgs *a, const char *name) {
  int i = mlc_op_param(a, name);
  return i >= 0 && a->attr[i] && a->attr[i]->kind == MLC_ATTR_NONE;
}

/* tensor parameter i with known dims (its dtype may be unknown) */
static const MlcSInfo *dims_of(MlcCtx *ctx, const MlcOpArgs *a, int i, const char *what) {
  const MlcSInfo *s = mlc_op_tensor(ctx, a, i, false);
  if (!s) return NULL;
  if (!s->tensor.shape && s->tensor.ndim > 0)
    return mlc_op_fail(ctx, a, "%s has unknown dims", what), NULL;
  if (s->tensor.ndim > MANIP_MAX_RANK)
    return mlc_op_fail(ctx, a, "%s has %d dims, at most %d are supported", what, s->tensor.ndim,
                       MANIP_MAX_RANK), NULL;
  return s;
}

static bool is_const(const MlcExpr *e, int64_t v) {
  int64_t c;
  return mlc_e_is_const_int(e, &c) && c == v;
}

/* a - b, with b == 0 folded away */
static MlcExpr *sub(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) {
  int64_t a, b;
  if (mlc_e_is_const_int(y, &b) && b == 0) return x;
  if (mlc_e_is_const_int(x, &a) && mlc_e_is_const_int(y, &b)) return mlc_op_i64(ctx, a - b);
  return mlc_e_bin(ctx, MLC_BIN_SUB, x, y);
}

static MlcExpr *floordiv(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) {
  return is_const(y, 1) ? x : mlc_e_bin(ctx, MLC_BIN_FLOORDIV, x, y);
}

static MlcExpr *floormod(MlcCtx *ctx, MlcExpr *x, MlcExpr *y) {
  return is_const(y, 1) ? mlc_op_i64(ctx, 0) : mlc_e_bin(ctx, MLC_BIN_FLOORMOD, x, y);
}

/* e clamped into [0, extent - 1] */
static MlcExpr *clip_index(MlcCtx *ctx, MlcExpr *e, MlcExpr *extent) {
  MlcExpr *lo = mlc_e_bin(ctx, MLC_BIN_MAX, e, mlc_op_i64(ctx, 0));
  return mlc_e_bin(ctx, MLC_BIN_MIN, lo, sub(ctx, extent, mlc_op_i64(ctx, 1)));
}

/* ======================================================================== */
/* element counts as monomials                                              */
/* ======================================================================== */

typedef struct Mono {
  int64_t coef;
  int n;
  MlcExpr *f[MANIP_MAX_FACTORS];
} Mono;

static bool mono_mul(Mono *m, MlcExpr *e) {
  int64_t v;
  if (mlc_e_is_const_int(e, &v)) return !__builtin_mul_overflow(m->coef, v, &m->coef);
  if (e->kind == MLC_EXPR_BINARY && e->bin.op == MLC_BIN_MUL)
    return mono_mul(m, e->bin.a) && mono_mul(m, e->bin.b);
  if (m->n == MANIP_MAX_FACTORS) return false;
  m->f[m->n++] = e;
  return true;
}

/* false when the count overflows or has too many factors */
static bool mono_of(MlcExpr **shape, int n, Mono *m) {
  m->coef = 1;
  m->n = 0;
  for (int i = 0; i < n; i++)
    if (!mono_mul(m, shape[i])) return false;
  return true;
}

/* remove one factor provably equal to e */
static bool mono_take(Mono *m, const MlcExpr *e) {
  for (int j = 0; j < m->n; j++) {
    if (!mlc_op_dim_equal(m->f[j], e)) continue;
    memmove(&m->f[j], &m->f[j + 1], (size_t)(m->n - j - 1) * sizeof m->f[0]);
    m->n--;
    return true;
  }
  return false;
}

/* q = num / den when the division is provably exact */
static bool mono_div(const Mono *num, const Mono *den, Mono *q) {
  if (den->coef == 0 || num->coef % den->coef != 0) return false;
  *q = *num;
  q->coef /= den->coef;
  for (int i = 0; i < den->n; i++)
    if (!mono_take(q, den->f[i])) return false;
  return true;
}

static bool mono_equal(const Mono *a, const Mono *b) {
  if (a->coef == 0 && b->coef == 0) return true;
  if (a->coef != b->coef || a->n != b->n) return false;
  Mono rest = *a;
  for (int i = 0; i < b->n; i++)
    if (!mono_take(&rest, b->f[i])) return false;
  return true;
}

/* symbolic factors first, constant last: n * 4, as the field prints it */
static MlcExpr *mono_expr(MlcCtx *ctx, const Mono *m) {
  if (m->coef == 0) return mlc_op_i64(ctx, 0);
  MlcExpr *e = NULL;
  for (int i = 0; i < m->n; i++) e = e ? mlc_e_bin(ctx, MLC_BIN_MUL, e, m->f[i]) : m->f[i];
  if (!e) return mlc_op_i64(ctx, m->coef);
  return m->coef == 1 ? e : mlc_e_bin(ctx, MLC_BIN_MUL, e, mlc_op_i64(ctx, m->coef));
}

/* the number of elements of a shape, as an expression */
static MlcExpr *numel_expr(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr **shape, int n) {
  Mono m;
  if (!mono_of(shape, n, &m))
    return mlc_op_fail(ctx, a, "the element count of %s is too large", mlc_op_shape_str(ctx, shape, n)),
           NULL;
  return mono_expr(ctx, &m);
}

/* ======================================================================== */
/* index arithmetic shared by the te functions                              */
/* ======================================================================== */

/* the row-major position of idx in shape */
static MlcExpr *linearize(MlcCtx *ctx, MlcExpr **idx, MlcExpr **shape, int n) {
  MlcExpr *lin = mlc_op_i64(ctx, 0);
  for (int k = 0; k < n; k++) lin = mlc_arith_add(ctx, mlc_arith_mul(ctx, lin, shape[k]), idx[k]);
  return lin;
}

/* the index of row-major position lin in shape; lin < numel, so the
 * outermost index needs no floormod */
static void delinearize(MlcCtx *ctx, MlcExpr *lin, MlcExpr **shape, int n, MlcExpr **out) {
  MlcExpr *stride = mlc_op_i64(ctx, 1);
  for (int k = n - 1; k >= 0; k--) {
    MlcExpr *q = floordiv(ctx, lin, stride);
    out[k] = k == 0 ? q : floormod(ctx, q, shape[k]);
    stride = mlc_arith_mul(ctx, stride, shape[k]);
  }
}

/* out[axes] = body, the op's one output */
static bool emit_body(MlcCtx *ctx, const char *name, const MlcSInfo *out, MlcExpr **axes,
                      MlcExpr *body, MlcTeTensor **outs, int *n_outs) {
  MlcTeTensor *t = body ? mlc_te_compute(ctx, mlc_intern(ctx, name), out->tensor.shape,
                                         out->tensor.ndim, axes, body)
                        : NULL;
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}

/* out[axes] = x[in_idx], the one compute of a gather */
static bool emit(MlcCtx *ctx, const char *name, const MlcTeTensor *x, const MlcSInfo *out,
                 MlcExpr **axes, MlcExpr **in_idx, MlcTeTensor **outs, int *n_outs) {
  return emit_body(ctx, name, out, axes, mlc_te_read(ctx, x, in_idx, x->ndim), outs, n_outs);
}

static MlcExpr **new_axes(MlcCtx *ctx, int n) {
  MlcExpr **ax = exprs(ctx, n);
  mlc_op_axes(ctx, n, ax);
  return ax;
}

/* a gather whose input index is the output's position re-read in x's
 * shape: reshape, flatten, batch_flatten */
static bool te_relinearize(MlcCtx *ctx, const char *name, const MlcSInfo *out, MlcTeTensor *x,
                           MlcTeTensor **outs, int *n_outs) {
  MlcExpr **ax = new_axes(ctx, out->tensor.ndim), **in = exprs(ctx, x->ndim);
  MlcExpr *lin = linearize(ctx, ax, out->tensor.shape, out->tensor.ndim);
  delinearize(ctx, lin, x->shape, x->ndim, in);
  return emit(ctx, name, x, out, ax, in, outs, n_outs);
}

/* ======================================================================== */
/* reshape, flatten, nn.batch_flatten                                       */
/* ======================================================================== */

/* shape with its one -1 (at slot) replaced by what makes the counts agree */
static bool infer_minus_one(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, MlcExpr **shape,
                            int n, int slot) {
  Mono in, known, q;
  const char *xs = mlc_op_sinfo_str(ctx, x), *ss = mlc_op_shape_str(ctx, shape, n);
  MlcExpr *rest[MANIP_MAX_RANK];
  int nr = 0;
  for (int i = 0; i < n; i++)
    if (i != slot) rest[nr++] = shape[i];
  if (!mono_of(x->tensor.shape, x->tensor.ndim, &in) || !mono_of(rest, nr, &known))
    return mlc_op_fail(ctx, a, "element counts of x %s and shape %s are too large", xs, ss);
  if (known.coef == 0)
    return mlc_op_fail(ctx, a, "cannot infer the -1 in shape %s: the other dims hold no elements", ss);
  if (!mono_div(&in, &known, &q))
    return mlc_op_fail(ctx, a, "cannot infer the -1 in shape %s: the element count of x %s is %s "
                       "a multiple of the other dims' product", ss, xs,
                       in.n || known.n ? "not provably" : "not");
  shape[slot] = mono_expr(ctx, &q);
  return true;
}

static bool same_count(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, MlcExpr **shape, int n) {
  Mono in, out;
  const char *xs = mlc_op_sinfo_str(ctx, x), *ss = mlc_op_shape_str(ctx, shape, n);
  if (!mono_of(x->tensor.shape, x->tensor.ndim, &in) || !mono_of(shape, n, &out))
    return mlc_op_fail(ctx, a, "element counts of x %s and shape %s are too large", xs, ss);
  if (mono_equal(&in, &out)) return true;
  if (!in.n && !out.n)
    return mlc_op_fail(ctx, a, "x %s has %lld elements, shape %s has %lld", xs, (long long)in.coef,
                       ss, (long long)out.coef);
  return mlc_op_fail(ctx, a, "cannot prove that x %s and shape %s hold the same number of elements",
                     xs, ss);
}

/* one dim of reshape's target: an integer (maybe -1) or an int64 dim */
static MlcExpr *target_dim(MlcCtx *ctx, const MlcAttrValue *v) {
  int64_t c;
  if (v->kind == MLC_ATTR_INT) return mlc_op_i64(ctx, v->i);
  if (v->kind != MLC_ATTR_EXPR || !mlc_dtype_is_int(v->expr->dtype) || v->expr->dtype.lanes != 1)
    return NULL;
  if (mlc_e_is_const_int(v->expr, &c)) return mlc_op_i64(ctx, c);
  return v->expr->dtype.bits == 64 ? v->expr : mlc_e_cast(ctx, MLC_I64, v->expr);
}

/* the shared shape reader refuses negative dims; reshape's may hold a -1 */
static bool target_shape(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr ***out, int *n) {
  int i = mlc_op_param(a, "shape");
  const MlcAttrValue *v = i >= 0 ? a->attr[i] : NULL;
  if (!v || v->kind == MLC_ATTR_NONE) return mlc_op_fail(ctx, a, "shape: expected a shape");
  bool list = v->kind == MLC_ATTR_LIST;
  *n = list ? v->list.n : 1;
  if (*n > MANIP_MAX_RANK)
    return mlc_op_fail(ctx, a, "shape has %d dims, at most %d are supported", *n, MANIP_MAX_RANK);
  *out = exprs(ctx, *n);
  for (int k = 0; k < *n; k++)
    if (!((*out)[k] = target_dim(ctx, list ? &v->list.items[k] : v)))
      return mlc_op_fail(ctx, a, "shape: expected integers or int64 dims");
  return true;
}

MlcSInfo *mlc_op_infer_reshape(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = dims_of(ctx, a, 0, "x");
  MlcExpr **shape = NULL;
  int n = 0, slot = -1;
  if (!x || !target_shape(ctx, a, &shape, &n)) return NULL;
  const char *ss = mlc_op_shape_str(ctx, shape, n);
  for (int i = 0; i < n; i++) {
    int64_t v;
    if (!mlc_e_is_const_int(shape[i], &v) || v >= 0) continue;
    if (v != -1)
      return mlc_op_fail(ctx, a, "dim %lld of shape %s is negative (only -1, once, is allowed)",
                         (long long)v, ss), NULL;
    if (slot >= 0) return mlc_op_fail(ctx, a, "shape %s has more than one -1", ss), NULL;
    slot = i;
  }
  bool ok = slot >= 0 ? infer_minus_one(ctx, a, x, shape, n, slot) : same_count(ctx, a, x, shape, n);
  return ok ? mlc_op_tensor_sinfo(ctx, shape, n, x->tensor.dtype) : NULL;
}

bool mlc_op_te_reshape(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs,
                       MlcTeTensor **outs, int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_reshape(ctx, a);
  return out && te_relinearize(ctx, "T_reshape", out, inputs[0], outs, n_outs);
}

/* the field flattens a 0-d tensor to (1,) */
MlcSInfo *mlc_op_infer_flatten(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = dims_of(ctx, a, 0, "x");
  MlcExpr **shape = exprs(ctx, 1);
  if (!x || !(shape[0] = numel_expr(ctx, a, x->tensor.shape, x->tensor.ndim))) return NULL;
  return mlc_op_tensor_sinfo(ctx, shape, 1, x->tensor.dtype);
}

bool mlc_op_te_flatten(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs,
                       MlcTeTensor **outs, int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_flatten(ctx, a);
  return out && te_relinearize(ctx, "T_flatten", out, inputs[0], outs, n_outs);
}

/* (d0, d1, ..., dk) -> (d0, d1 * ... * dk) */
MlcSInfo *mlc_op_infer_batch_flatten(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = dims_of(ctx, a, 0, "data");
  if (!x) return NULL;
  if (x->tensor.ndim < 1) return mlc_op_fail(ctx, a, "data must have at least 1 dim, not 0"), NULL;
  MlcExpr **shape = exprs(ctx, 2);
  shape[0] = x->tensor.shape[0];
  if (!(shape[1] = numel_expr(ctx, a, x->tensor.shape + 1, x->tensor.ndim - 1))) return NULL;
  return mlc_op_tensor_sinfo(ctx, shape, 2, x->tensor.dtype);
}

bool mlc_op_te_batch_flatten(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs,
                             MlcTeTensor **outs, int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_batch_flatten(ctx, a);
  return out && te_relinearize(ctx, "T_batch_flatten", out, inputs[0], outs, n_outs);
}

/* ======================================================================== */
/* permute_dims, expand_dims, squeeze                                       */
/* ======================================================================== */

/* perm[i]: the input axis output axis i reads; axes=None reverses */
static bool permutation(MlcCtx *ctx, const MlcOpArgs *a, int nd, int *perm) {
  if (!given(a, "axes")) {
    for (int i = 0; i < nd; i++) perm[i] = nd - 1 - i;
    return true;
  }
  int64_t ax[MANIP_MAX_RANK];
  int n;
  bool present, seen[MANIP_MAX_RANK] = {0};
  if (!mlc_op_attr_ints(ctx, a, "axes", ax, MANIP_MAX_RANK, &n, &present)) return false;
  if (n != nd) return mlc_op_fail(ctx, a, "axes lists %d axes, x has %d dims", n, nd);
  for (int i = 0; i < n; i++) {
    if (!mlc_op_axis(ctx, a, ax[i], nd, &perm[i])) return false;
    if (seen[perm[i]]) return mlc_op_fail(ctx, a, "axis %lld is repeated in axes", (long long)ax[i]);
    seen[perm[i]] = true;
  }
  return true;
}

MlcSInfo *mlc_op_infer_permute_dims(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = dims_of(ctx, a, 0, "x");
  int perm[MANIP_MAX_RANK];
  if (!x || !permutation(ctx, a, x->tensor.ndim, perm)) return NULL;
  MlcExpr **shape = exprs(ctx, x->tensor.ndim);
  for (int i = 0; i < x->tensor.ndim; i++) shape[i] = x->tensor.shape[perm[i]];
  return mlc_op_tensor_sinfo(ctx, shape, x->tensor.ndim, x->tensor.dtype);
}

bool mlc_op_te_permute_dims(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs,
                            MlcTeTensor **outs, int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_permute_dims(ctx, a);
  int perm[MANIP_MAX_RANK];
  if (!out || !permutation(ctx, a, out->tensor.ndim, perm)) return false;
  MlcExpr **ax = new_axes(ctx, out->tensor.ndim), **in = exprs(ctx, out->tensor.ndim);
  for (int i = 0; i < out->tensor.ndim; i++) in[perm[i]] = ax[i];
  return emit(ctx, "T_permute_dims", inputs[0], out, ax, in, outs, n_outs);
}

/* inserted[i]: output axis i is a new unit axis */
static bool expand_plan(MlcCtx *ctx, const MlcOpArgs *a, int nd, bool *inserted, int *out_nd) {
  int64_t ax[MANIP_MAX_RANK];
  int n;
  bool present;
  if (!mlc_op_attr_ints(ctx, a, "axis", ax, MANIP_MAX_RANK, &n, &present)) return false;
  if (!present) return mlc_op_fail(ctx, a, "axis is required");
  *out_nd = nd + n;
  if (*out_nd > MANIP_MAX_RANK)
    return mlc_op_fail(ctx, a, "the result would have %d dims, at most %d are supported", *out_nd,
                       MANIP_MAX_RANK);
  memset(inserted, 0, (size_t)*out_nd * sizeof *inserted);
  for (int i = 0; i < n; i++) {
    int p;
    if (!mlc_op_axis(ctx, a, ax[i], *out_nd, &p)) return false;
    if (inserted[p]) return mlc_op_fail(ctx, a, "axis %lld is repeated", (long long)ax[i]);
    inserted[p] = true;
  }
  return true;
}

MlcSInfo *mlc_op_infer_expand_dims(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = dims_of(ctx, a, 0, "x");
  bool ins[MANIP_MAX_RANK];
  int nd, k = 0;
  if (!x || !expand_plan(ctx, a, x->tensor.ndim, ins, &nd)) return NULL;
  MlcExpr **shape = exprs(ctx, nd);
  for (int i = 0; i < nd; i++) shape[i] = ins[i] ? mlc_op_i64(ctx, 1) : x->tensor.shape[k++];
  return mlc_op_tensor_sinfo(ctx, shape, nd, x->tensor.dtype);
}

bool mlc_op_te_expand_dims(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs,
                           MlcTeTensor **outs, int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_expand_dims(ctx, a);
  bool ins[MANIP_MAX_RANK];
  int nd, k = 0;
  if (!out || !expand_plan(ctx, a, inputs[0]->ndim, ins, &nd)) return false;
  MlcExpr **ax = new_axes(ctx, nd), **in = exprs(ctx, inputs[0]->ndim);
  for (int i = 0; i < nd; i++)
    if (!ins[i]) in[k++] = ax[i];
  return emit(ctx, "T_expand_dims", inputs[0], out, ax, in, outs, n_outs);
}

/* dropped[i]: input axis i is squeezed away; axis=None drops every dim
 * that is the constant 1 (a symbolic dim may be 1 or not, so it stays) */
static bool squeeze_plan(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, bool *dropped) {
  int nd = x->tensor.ndim;
  memset(dropped, 0, (size_t)MANIP_MAX_RANK * sizeof *dropped);
  if (!given(a, "axis")) {
    for (int i = 0; i < nd; i++) dropped[i] = is_const(x->tensor.shape[i], 1);
    return true;
  }
  int64_t ax[MANIP_MAX_RANK];
  int n;
  bool present;
  if (!mlc_op_attr_ints(ctx, a, "axis", ax, MANIP_MAX_RANK, &n, &present)) return false;
  for (int i = 0; i < n; i++) {
    int p;
    int64_t v;
    if (!mlc_op_axis(ctx, a, ax[i], nd, &p)) return false;
    if (!is_const(x->tensor.shape[p], 1))
      return mlc_op_fail(ctx, a, "cannot squeeze axis %lld of x %s: its extent is %s1",
                         (long long)ax[i], mlc_op_sinfo_str(ctx, x),
                         mlc_e_is_const_int(x->tensor.shape[p], &v) ? "not " : "not provably ");
    dropped[p] = true;
  }
  return true;
}

MlcSInfo *mlc_op_infer_squeeze(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = dims_of(ctx, a, 0, "x");
  bool drop[MANIP_MAX_RANK];
  if (!x || !squeeze_plan(ctx, a, x, drop)) return NULL;
  MlcExpr **shape = exprs(ctx, x->tensor.ndim);
  int n = 0;
  for (int i = 0; i < x->tensor.ndim; i++)
    if (!drop[i]) shape[n++] = x->tensor.shape[i];
  return mlc_op_tensor_sinfo(ctx, shape, n, x->tensor.dtype);
}

bool mlc_op_te_squeeze(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs,
                       MlcTeTensor **outs, int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_squeeze(ctx, a), *x = mlc_op_tensor(ctx, a, 0, true);
  bool drop[MANIP_MAX_RANK];
  if (!out || !x || !squeeze_plan(ctx, a, x, drop)) return false;
  MlcExpr **ax = new_axes(ctx, out->tensor.ndim), **in = exprs(ctx, x->tensor.ndim);
  int k = 0;
  for (int i = 0; i < x->tensor.ndim; i++) in[i] = drop[i] ? mlc_op_i64(ctx, 0) : ax[k++];
  return emit(ctx, "T_squeeze", inputs[0], out, ax, in, outs, n_outs);
}

/* ======================================================================== */
/* concat                                                                   */
/* ======================================================================== */

/* the tuple's tensors and the normalized axis; axis=None (the field:
 * tensors already flattened) needs 1-D tensors */
static bool concat_plan(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo ***ts, int *n, int *axis) {
  const MlcSInfo *tup = a->val[0] ? a->val[0]->sinfo : NULL;
  if (!tup || tup->kind != MLC_SINFO_TUPLE || tup->tuple.n == 0)
    return mlc_op_fail(ctx, a, "tensors must be a non-empty tuple of tensors");
  *ts = (const MlcSInfo **)tup->tuple.fields;
  *n = tup->tuple.n;
  for (int i = 0; i < *n; i++) {
    const MlcSInfo *t = (*ts)[i];
    if (t->kind != MLC_SINFO_TENSOR || t->tensor.ndim < 0 || (!t->tensor.shape && t->tensor.ndim))
      return mlc_op_fail(ctx, a, "tensors[%d] is not a tensor of known dims", i);
    if (t->tensor.ndim != (*ts)[0]->tensor.ndim)
      return mlc_op_fail(ctx, a, "tensors[%d] %s has %d dims, tensors[0] %s has %d", i,
                         mlc_op_sinfo_str(ctx, t), t->tensor.ndim, mlc_op_sinfo_str(ctx, (*ts)[0]),
                         (*ts)[0]->tensor.ndim);
  }
  int nd = (*ts)[0]->tensor.ndim;
  if (nd == 0) return mlc_op_fail(ctx, a, "cannot concatenate 0-d tensors");
  int64_t ax = 0;
  if (is_none(a, "axis")) {
    if (nd != 1) return mlc_op_fail(ctx, a, "axis=None needs 1-D tensors, not %d-D", nd);
  } else if (!mlc_op_attr_int(ctx, a, "axis", 0, &ax)) {
    return false;
  }
  return mlc_op_axis(ctx, a, ax, nd, axis);
}

/* constants folded into one trailing term: n + m + 5 */
static MlcExpr *sum_dims(MlcCtx *ctx, MlcExpr **d, int n) {
  int64_t c = 0, v;
  MlcExpr *e = NULL;
  for (int i = 0; i < n; i++) {
    if (mlc_e_is_const_int(d[i], &v)) c += v;
    else e = e ? mlc_e_bin(ctx, MLC_BIN_ADD, e, d[i]) : d[i];
  }
  if (!e) return mlc_op_i64(ctx, c);
  return c ? mlc_e_bin(ctx, MLC_BIN_ADD, e, mlc_op_i64(ctx, c)) : e;
}

MlcSInfo *mlc_op_infer_concat(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo **ts;
  int n, axis;
  if (!concat_plan(ctx, a, &ts, &n, &axis)) return NULL;
  int nd = ts[0]->tensor.ndim;
  MlcDType dt = ts[0]->tensor.dtype;
  MlcExpr **along = exprs(ctx, n), **shape = exprs(ctx, nd);
  char b1[32], b2[32];
  for (int i = 0; i < n; i++) {
    MlcDType ti = ts[i]->tensor.dtype;
    if (dt.code == MLC_TC_VOID) dt = ti;
    else if (ti.code != MLC_TC_VOID && !mlc_dtype_eq(ti, dt))
      return mlc_op_fail(ctx, a, "tensors[%d] is %s, tensors[0] is %s", i, mlc_dtype_str(ti, b1),
                         mlc_dtype_str(dt, b2)), NULL;
    for (int k = 0; k < nd; k++) {
      MlcExpr *d = ts[i]->tensor.shape[k], *d0 = ts[0]->tensor.shape[k];
      if (k == axis || mlc_op_dim_equal(d, d0)) continue;
      bool consts = mlc_e_is_const_int(d, NULL) && mlc_e_is_const_int(d0, NULL);
      return mlc_op_fail(ctx, a, "tensors[%d] %s and tensors[0] %s %s in dim %d; only axis %d may "
                         "differ", i, mlc_op_sinfo_str(ctx, ts[i]), mlc_op_sinfo_str(ctx, ts[0]),
                         consts ? "differ" : "are not provably equal", k, axis), NULL;
    }
    along[i] = ts[i]->tensor.shape[axis];
  }
  for (int k = 0; k < nd; k++) shape[k] = k == axis ? sum_dims(ctx, along, n) : ts[0]->tensor.shape[k];
  return mlc_op_tensor_sinfo(ctx, shape, nd, dt);
}

/* out[.., i, ..] = tensors[k][.., i - off_k, ..] for the k whose range holds
 * i, chosen by nested if_then_else so no other tensor is read */
bool mlc_op_te_concat(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs,
                      MlcTeTensor **outs, int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_concat(ctx, a), **ts;
  int n, axis;
  if (!out || !concat_plan(ctx, a, &ts, &n, &axis)) return false;
  if (n != n_inputs) return mlc_op_fail(ctx, a, "expected %d inputs, got %d", n, n_inputs);
  int nd = out->tensor.ndim;
  MlcExpr **ax = new_axes(ctx, nd), **along = exprs(ctx, n), *body = NULL;
  for (int k = 0; k < n; k++) along[k] = inputs[k]->shape[axis];
  for (int k = n - 1; k >= 0; k--) {
    MlcExpr **in = exprs(ctx, nd);
    memcpy(in, ax, (size_t)nd * sizeof *in);
    in[axis] = sub(ctx, ax[axis], sum_dims(ctx, along, k));
    MlcExpr *rd = mlc_te_read(ctx, inputs[k], in, nd);
    if (!body) {
      body = rd;
      continue;
    }
    MlcExpr *end = sum_dims(ctx, along, k + 1);
    MlcExpr *args[3] = {mlc_e_bin(ctx, MLC_BIN_LT, ax[axis], end), rd, body};
    body = mlc_e_call(ctx, MLC_INTRIN_IF_THEN_ELSE, args, 3);
  }
  return emit_body(ctx, "T_concat", out, ax, body, outs, n_outs);
}

/* ======================================================================== */
/* split                                                                    */
/* ======================================================================== */

typedef struct SplitPlan {
  int axis, n;
  int64_t *begin;  /* n offsets along axis */
  MlcExpr **len;   /* n extents along axis */
} SplitPlan;

static bool split_sections(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, SplitPlan *p) {
  int64_t s, d;
  if (!mlc_op_attr_int(ctx, a, "indices_or_sections", 1, &s)) return false;
  if (s < 1 || s > MLC_OP_MAX_OUTS)
    return mlc_op_fail(ctx, a, "sections must be in [1, %d], not %lld", MLC_OP_MAX_OUTS, (long long)s);
  MlcExpr *dim = x->tensor.shape[p->axis];
  p->n = (int)s;
  p->begin = mlc_arena_array(&ctx->arena, (size_t)s, sizeof *p->begin);
  p->len = exprs(ctx, p->n);
  if (s == 1) {
    p->len[0] = dim;
    return true;
  }
  if (!mlc_e_is_const_int(dim, &d))
    return mlc_op_fail(ctx, a, "cannot prove that %lld sections divide axis %d of x %s", (long long)s,
                       p->axis, mlc_op_sinfo_str(ctx, x));
  if (d % s)
    return mlc_op_fail(ctx, a, "%lld sections do not divide axis %d of x %s", (long long)s, p->axis,
                       mlc_op_sinfo_str(ctx, x));
  for (int k = 0; k < p->n; k++) p->begin[k] = k * (d / s), p->len[k] = mlc_op_i64(ctx, d / s);
  return true;
}

/* numpy: piece k is x[ind[k-1]:ind[k]] along axis (ind[-1] = 0,
 * ind[n] = the extent), both ends clamped to the extent, so indices past
 * it, or one smaller than the one before, give empty pieces */
static bool split_indices(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, SplitPlan *p) {
  int64_t ind[MLC_OP_MAX_OUTS], d;
  int n;
  bool present;
  if (!mlc_op_attr_ints(ctx, a, "indices_or_sections", ind, MLC_OP_MAX_OUTS - 1, &n, &present))
    return false;
  MlcExpr *dim = x->tensor.shape[p->axis];
  p->n = n + 1;
  p->begin = mlc_arena_array(&ctx->arena, (size_t)p->n, sizeof *p->begin);
  p->len = exprs(ctx, p->n);
  if (n == 0) {
    p->len[0] = dim;
    return true;
  }
  if (!mlc_e_is_const_int(dim, &d))
    return mlc_op_fail(ctx, a, "cannot split axis %d of x %s at indices: its extent is symbolic",
                       p->axis, mlc_op_sinfo_str(ctx, x));
  int64_t lo = 0;
  for (int k = 0; k <= n; k++) {
    int64_t hi = k < n ? ind[k] : d;
    if (hi < 0) return mlc_op_fail(ctx, a, "split index %lld is negative", (long long)hi);
    if (hi > d) hi = d;
    p->begin[k] = lo;
    p->len[k] = mlc_op_i64(ctx, hi > lo ? hi - lo : 0);
    lo = hi;
  }
  return true;
}

static bool split_plan(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, SplitPlan *p) {
  int64_t axis;
  if (x->tensor.ndim == 0) return mlc_op_fail(ctx, a, "cannot split a 0-d tensor");
  if (!mlc_op_attr_int(ctx, a, "axis", 0, &axis) || !mlc_op_axis(ctx, a, axis, x->tensor.ndim, &p->axis))
    return false;
  int i = mlc_op_param(a, "indices_or_sections");
  if (i >= 0 && a->attr[i] && a->attr[i]->kind == MLC_ATTR_LIST) return split_indices(ctx, a, x, p);
  return split_sections(ctx, a, x, p);
}

MlcSInfo *mlc_op_infer_split(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = dims_of(ctx, a, 0, "x");
  SplitPlan p;
  if (!x || !split_plan(ctx, a, x, &p)) return NULL;
  MlcSInfo **fields = mlc_arena_array(&ctx->arena, (size_t)p.n, sizeof *fields);
  for (int k = 0; k < p.n; k++) {
    MlcExpr **shape = exprs(ctx, x->tensor.ndim);
    memcpy(shape, x->tensor.shape, (size_t)x->tensor.ndim * sizeof *shape);
    shape[p.axis] = p.len[k];
    fields[k] = mlc_op_tensor_sinfo(ctx, shape, x->tensor.ndim, x->tensor.dtype);
  }
  return mlc_sinfo_tuple(ctx, fields, p.n);
}

bool mlc_op_te_split(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs,
                     MlcTeTensor **outs, int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_split(ctx, a), *x = mlc_op_tensor(ctx, a, 0, true);
  SplitPlan p;
  if (!out || !x || !split_plan(ctx, a, x, &p)) return false;
  for (int k = 0; k < p.n; k++) {
    const MlcSInfo *o = out->tuple.fields[k];
    MlcExpr **ax = new_axes(ctx, o->tensor.ndim), **in = exprs(ctx, o->tensor.ndim);
    memcpy(in, ax, (size_t)o->tensor.ndim * sizeof *in);
    in[p.axis] = mlc_arith_add(ctx, ax[p.axis], mlc_op_i64(ctx, p.begin[k]));
    int one;
    if (!emit(ctx, mlc_internf(ctx, "T_split_%d", k), inputs[0], o, ax, in, &outs[k], &one))
      return false;
  }
  *n_outs = p.n;
  return true;
}

/* ======================================================================== */
/* strided_slice                                                            */
/* ======================================================================== */

/* per input axis: out index i reads begin + i * stride, for len values */
typedef struct SlicePlan {
  int64_t begin[MANIP_MAX_RANK], stride[MANIP_MAX_RANK];
  MlcExpr *len[MANIP_MAX_RANK];
} SlicePlan;

/* numpy's clamping for a constant extent d */
static void slice_axis(int64_t d, int64_t b, int64_t e, int64_t s, int64_t *begin, int64_t *len) {
  if (b < 0) b += d;
  if (e < 0) e += d;
  if (s > 0) {
    b = b < 0 ? 0 : b > d ? d : b;
    e = e < 0 ? 0 : e > d ? d : e;
    *len = e > b ? (e - b - 1) / s + 1 : 0;
  } else {
    b = b < -1 ? -1 : b > d - 1 ? d - 1 : b;
    e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
    int64_t ns = s == INT64_MIN ? INT64_MAX : -s;
    *len = b > e ? (b - e - 1) / ns + 1 : 0;
  }
  *begin = b;
}

static bool slice_lists(MlcCtx *ctx, const MlcOpArgs *a, int64_t (*l)[MANIP_MAX_RANK], int *n) {
  static const char *const names[4] = {"axes", "begin", "end", "strides"};
  int cnt[4];
  bool present;
  for (int k = 0; k < 4; k++) {
    if (!mlc_op_attr_ints(ctx, a, names[k], l[k], MANIP_MAX_RANK, &cnt[k], &present)) return false;
    if (k < 3 && !present) return mlc_op_fail(ctx, a, "%s is required", names[k]);
    if (k == 3 && !present) {
      cnt[3] = cnt[0];
      for (int i = 0; i < cnt[0]; i++) l[3][i] = 1;
    }
    if (cnt[k] != cnt[0])
      return mlc_op_fail(ctx, a, "%s lists %d values, axes lists %d", names[k], cnt[k], cnt[0]);
  }
  *n = cnt[0];
  return true;
}

static bool slice_plan(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, SlicePlan *p) {
  int64_t l[4][MANIP_MAX_RANK];
  int n = 0, nd = x->tensor.ndim;
  bool seen[MANIP_MAX_RANK] = {0}, flag;
  if (!slice_lists(ctx, a, l, &n) || !mlc_op_attr_bool(ctx, a, "assume_inbound", true, &flag))
    return false;
  for (int i = 0; i < nd; i++) p->begin[i] = 0, p->stride[i] = 1, p->len[i] = x->tensor.shape[i];
  for (int k = 0; k < n; k++) {
    int ax;
    int64_t d, b = l[1][k], e = l[2][k], s = l[3][k], len;
    if (!mlc_op_axis(ctx, a, l[0][k], nd, &ax)) return false;
    if (seen[ax]) return mlc_op_fail(ctx, a, "axis %lld is repeated in axes", (long long)l[0][k]);
    seen[ax] = true;
    if (s == 0) return mlc_op_fail(ctx, a, "the stride of axis %d is 0", ax);
    if (!mlc_e_is_const_int(x->tensor.shape[ax], &d)) {
      if (b == 0 && s == 1 && e >= MANIP_END_SENTINEL) continue;
      return mlc_op_fail(ctx, a, "axis %d of x %s has a symbolic extent: only the whole axis "
                         "(begin 0, end >= %d, stride 1) can be sliced", ax, mlc_op_sinfo_str(ctx, x),
                         MANIP_END_SENTINEL);
    }
    slice_axis(d, b, e, s, &p->begin[ax], &len);
    p->stride[ax] = s;
    p->len[ax] = mlc_op_i64(ctx, len);
  }
  return true;
}

MlcSInfo *mlc_op_infer_strided_slice(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = dims_of(ctx, a, 0, "x");
  SlicePlan p;
  if (!x || !slice_plan(ctx, a, x, &p)) return NULL;
  MlcExpr **shape = exprs(ctx, x->tensor.ndim);
  memcpy(shape, p.len, (size_t)x->tensor.ndim * sizeof *shape);
  return mlc_op_tensor_sinfo(ctx, shape, x->tensor.ndim, x->tensor.dtype);
}

bool mlc_op_te_strided_slice(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs,
                             MlcTeTensor **outs, int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_strided_slice(ctx, a), *x = mlc_op_tensor(ctx, a, 0, true);
  SlicePlan p;
  if (!out || !x || !slice_plan(ctx, a, x, &p)) return false;
  int nd = out->tensor.ndim;
  MlcExpr **ax = new_axes(ctx, nd), **in = exprs(ctx, nd);
  for (int i = 0; i < nd; i++)
    in[i] = mlc_arith_add(ctx, mlc_arith_mul(ctx, ax[i], mlc_op_i64(ctx, p.stride[i])),
                          mlc_op_i64(ctx, p.begin[i]));
  return emit(ctx, "T_strided_slice", inputs[0], out, ax, in, outs, n_outs);
}

/* ======================================================================== */
/* take                                                                     */
/* ======================================================================== */

/* axis -1 when None (x read flattened); wrap: indices modulo the extent;
 * clip: clipped into range; fast: the field's unchecked mode, which here
 * checks instead (an index out of range is a run-time error), since
 * unchecked reads have no place in code that must stay in bounds */
static bool take_plan(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, const MlcSInfo *ind,
                      int *axis, bool *wrap, bool *fast) {
  const char *mode;
  int64_t ax;
  char b[32];
  if (ind->tensor.dtype.code != MLC_TC_VOID && !mlc_dtype_is_int(ind->tensor.dtype))
    return mlc_op_fail(ctx, a, "indices must be integers, not %s", mlc_dtype_str(ind->tensor.dtype, b));
  if (!mlc_op_attr_str(ctx, a, "mode", "clip", &mode)) return false;
  if (strcmp(mode, "clip") && strcmp(mode, "wrap") && strcmp(mode, "fast"))
    return mlc_op_fail(ctx, a, "mode must be \"clip\", \"wrap\" or \"fast\", not \"%s\"", mode);
  *wrap = strcmp(mode, "wrap") == 0;
  *fast = strcmp(mode, "fast") == 0;
  *axis = -1;
  if (given(a, "axis") &&
      (!mlc_op_attr_int(ctx, a, "axis", 0, &ax) || !mlc_op_axis(ctx, a, ax, x->tensor.ndim, axis)))
    return false;
  if (x->tensor.ndim + ind->tensor.ndim > MANIP_MAX_RANK)
    return mlc_op_fail(ctx, a, "the result would have more than %d dims", MANIP_MAX_RANK);
  MlcExpr *extent = *axis < 0 ? numel_expr(ctx, a, x->tensor.shape, x->tensor.ndim)
                              : x->tensor.shape[*axis];
  if (!extent) return false;
  if (is_const(extent, 0))
    return mlc_op_fail(ctx, a, "cannot take from x %s: %s holds no elements", mlc_op_sinfo_str(ctx, x),
                       *axis < 0 ? "it" : "the axis");
  return true;
}

MlcSInfo *mlc_op_infer_take(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = dims_of(ctx, a, 0, "x"), *ind = x ? dims_of(ctx, a, 1, "indices") : NULL;
  int axis;
  bool wrap, fast;
  if (!ind || !take_plan(ctx, a, x, ind, &axis, &wrap, &fast)) return NULL;
  if (axis < 0) return mlc_op_tensor_sinfo(ctx, ind->tensor.shape, ind->tensor.ndim, x->tensor.dtype);
  int nd = x->tensor.ndim - 1 + ind->tensor.ndim, k = 0;
  MlcExpr **shape = exprs(ctx, nd);
  for (int i = 0; i < axis; i++) shape[k++] = x->tensor.shape[i];
  for (int i = 0; i < ind->tensor.ndim; i++) shape[k++] = ind->tensor.shape[i];
  for (int i = axis + 1; i < x->tensor.ndim; i++) shape[k++] = x->tensor.shape[i];
  return mlc_op_tensor_sinfo(ctx, shape, nd, x->tensor.dtype);
}

bool mlc_op_te_take(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs,
                    MlcTeTensor **outs, int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_take(ctx, a);
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true), *ind = mlc_op_tensor(ctx, a, 1, true);
  int axis;
  bool wrap, fast;
  if (!out || !x || !ind || !take_plan(ctx, a, x, ind, &axis, &wrap, &fast)) return false;
  const MlcTeTensor *xt = inputs[0], *it = inputs[1];
  int lead = axis < 0 ? 0 : axis;
  MlcExpr **ax = new_axes(ctx, out->tensor.ndim), **in = exprs(ctx, xt->ndim);
  MlcExpr *pos = mlc_te_read(ctx, it, ax + lead, it->ndim);
  if (pos && !mlc_dtype_eq(pos->dtype, MLC_I64)) pos = mlc_e_cast(ctx, MLC_I64, pos);
  MlcExpr *extent = axis < 0 ? numel_expr(ctx, a, xt->shape, xt->ndim) : xt->shape[axis];
  /* "fast" promises every index in range: a broken promise is a run-time
   * error (T.checked_index), never a read outside the buffer */
  if (wrap) pos = mlc_e_bin(ctx, MLC_BIN_FLOORMOD, pos, extent);
  else if (fast) pos = mlc_e_call(ctx, MLC_INTRIN_CHECKED_INDEX, (MlcExpr *[]){pos, extent}, 2);
  else pos = clip_index(ctx, pos, extent);
  if (axis < 0) {
    delinearize(ctx, pos, xt->shape, xt->ndim, in);
  } else {
    for (int i = 0; i < axis; i++) in[i] = ax[i];
    in[axis] = pos;
    for (int i = axis + 1; i < xt->ndim; i++) in[i] = ax[i - 1 + it->ndim];
  }
  return emit(ctx, "T_take", xt, out, ax, in, outs, n_outs);
}

/* ======================================================================== */
/* broadcast_to                                                             */
/* ======================================================================== */

/* numpy: x's dims, aligned right, must each be 1 or (provably) the target's
 * (the shared shape reader has refused negative target dims) */
MlcSInfo *mlc_op_infer_broadcast_to(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = dims_of(ctx, a, 0, "x");
  MlcExpr **shape;
  int n;
  if (!x || !mlc_op_attr_shape(ctx, a, "shape", &shape, &n)) return NULL;
  const char *xs = mlc_op_sinfo_str(ctx, x), *ss = mlc_op_shape_str(ctx, shape, n);
  if (n > MANIP_MAX_RANK)
    return mlc_op_fail(ctx, a, "shape has %d dims, at most %d are supported", n, MANIP_MAX_RANK), NULL;
  if (n < x->tensor.ndim)
    return mlc_op_fail(ctx, a, "cannot broadcast x %s to %s: the target has fewer dims", xs, ss), NULL;
  for (int i = n - x->tensor.ndim; i < n; i++) {
    MlcExpr *d = x->tensor.shape[i - (n - x->tensor.ndim)];
    if (is_const(d, 1) || mlc_op_dim_equal(d, shape[i])) continue;
    bool consts = mlc_e_is_const_int(d, NULL) && mlc_e_is_const_int(shape[i], NULL);
    return mlc_op_fail(ctx, a, "cannot broadcast x %s to %s: dim %d %s", xs, ss, i,
                       consts ? "differs and is not 1" : "is not provably equal or 1"), NULL;
  }
  return mlc_op_tensor_sinfo(ctx, shape, n, x->tensor.dtype);
}

bool mlc_op_te_broadcast_to(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs,
                            MlcTeTensor **outs, int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_broadcast_to(ctx, a);
  if (!out) return false;
  int nd = out->tensor.ndim;
  MlcExpr **ax = new_axes(ctx, nd);
  return emit_body(ctx, "T_broadcast_to", out, ax, mlc_op_read_broadcast(ctx, inputs[0], ax, nd),
                   outs, n_outs);
}
