/* datadep.c - the kernels of ops whose output size is known only once
 * they have run (ONNX NonZero, Compress, TopK with a run-time k, Unique,
 * also along an axis).
 *
 * Such an op is three steps in the graph: a counting kernel (the sum of a
 * 0/1 mask), the executor reading that count into a fresh size var
 * (tensor_to_shape, src/ops/dynshape.c, which caps it and makes a failed
 * check the run's error), and a filling kernel over an output of that
 * size, allocated at run time.  compact_index, that filling kernel, is a
 * scan (src/ops/scan_prim.c).
 *
 * The k first elements of an order along an axis (ONNX TopK with a k read
 * at run time) take two more kernels:
 *
 * sort_rank(x, axis=a, largest=True) is, for each element, its place in
 * the order along axis a: the number of elements of its row that come
 * before it, those greater (smaller with largest=False) and those equal at
 * a lower index, so equal values keep their index order.  The ranks of a
 * row are then 0 .. D-1, each once (NaN compares false with everything, so
 * rows holding NaN are not ordered).
 *
 * rank_positions(rank, axis=a, shape=[k]) is rank's shape with k along a:
 * out[.., j, ..] = the index i along a where rank[.., i, ..] == j (0 when
 * none, as for j >= D).  Both cost D steps per element; reads stay inside
 * x and rank whatever k is.
 *
 * match_count(x, weights?, kind=...) compares each element of a 1-D x with
 * every element l (the flattened Unique's former building block, now done
 * by argsort and unique_scan in n log n): kind "equal" counts the equal
 * ones, "equal_before" those at a lower index (0 marks a first
 * occurrence), "less" the smaller ones, each counted with weight w[l] (1
 * without weights), and "first_equal" is the least index of an equal
 * element (at most i itself, so always an index of x).
 *
 * row_compare(x) orders the rows of a 2-D x (Unique along an axis, whose
 * slices are flattened into rows) pairwise: out[i, l] is -1, 0 or 1 as row
 * l is lexicographically below, equal to or above row i.  A min over the
 * row finds the first column where they differ, coded 2 m (+ 1 when row l
 * is the greater there), and a second compute reads the sign off it; D * D
 * * M steps.  Rows holding NaN are unequal to every row, themselves
 * included, and are not ordered. */
#include <string.h>

#include "mlcc/arith.h"
#include "ops/op_internal.h"

/* ---- sort_rank, rank_positions ------------------------------------------- */

/* the tensor argument, its axis (normalized) */
static bool axis_arg(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo **x, int *axis) {
  int64_t ax;
  if (!(*x = mlc_op_tensor(ctx, a, 0, true)) || !mlc_op_attr_int(ctx, a, "axis", -1, &ax)) return false;
  if (!(*x)->tensor.shape) return mlc_op_fail(ctx, a, "expected a tensor of known shape");
  if ((*x)->tensor.ndim == 0) return mlc_op_fail(ctx, a, "expected a tensor of at least one dim");
  return mlc_op_axis(ctx, a, ax, (*x)->tensor.ndim, axis);
}

MlcSInfo *mlc_op_infer_sort_rank(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x;
  int axis;
  bool largest;
  if (!axis_arg(ctx, a, &x, &axis) || !mlc_op_attr_bool(ctx, a, "largest", true, &largest)) return NULL;
  MlcDType t = x->tensor.dtype;
  if (t.lanes != 1 || t.code == MLC_TC_BOOL) return mlc_op_fail(ctx, a, "x: expected numbers"), NULL;
  return mlc_op_tensor_sinfo(ctx, x->tensor.shape, x->tensor.ndim, MLC_I64);
}

bool mlc_op_te_sort_rank(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                         int *n_outs) {
  const MlcSInfo *xs;
  int axis;
  bool largest;
  if (!axis_arg(ctx, a, &xs, &axis) || !mlc_op_attr_bool(ctx, a, "largest", true, &largest)) return false;
  const MlcTeTensor *x = in[0];
  int n = x->ndim;
  MlcExpr **ax = mlc_arena_array(&ctx->arena, (size_t)n, sizeof *ax), **at = mlc_arena_array(&ctx->arena, (size_t)n, sizeof *at);
  mlc_op_axes(ctx, n, ax);
  MlcExpr *l = mlc_te_var(ctx, mlc_intern(ctx, "l"));
  memcpy(at, ax, (size_t)n * sizeof *at);
  at[axis] = l;
  MlcExpr *xi = mlc_te_read(ctx, x, ax, n), *xl = mlc_te_read(ctx, x, at, n);
  MlcExpr *before = mlc_e_bin(ctx, largest ? MLC_BIN_GT : MLC_BIN_LT, xl, xi);
  MlcExpr *tie = mlc_e_bin(ctx, MLC_BIN_AND, mlc_e_bin(ctx, MLC_BIN_EQ, xl, xi), mlc_e_bin(ctx, MLC_BIN_LT, l, ax[axis]));
  MlcExpr *body = mlc_op_select(ctx, mlc_e_bin(ctx, MLC_BIN_OR, before, tie), mlc_op_i64(ctx, 1), mlc_op_i64(ctx, 0));
  MlcExpr *ext = x->shape[axis];
  MlcTeTensor *t = mlc_te_reduce(ctx, "T_sort_rank", x->shape, n, ax, MLC_TE_SUM, body, &l, &ext, 1);
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}

/* rank's shape with the count k along axis */
static MlcExpr **positions_shape(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo **r, int *axis) {
  MlcExpr **k;
  int nk;
  if (!axis_arg(ctx, a, r, axis) || !mlc_op_attr_shape(ctx, a, "shape", &k, &nk)) return NULL;
  MlcDType t = (*r)->tensor.dtype;
  if (t.code != MLC_TC_INT || t.bits != 64 || t.lanes != 1) return mlc_op_fail(ctx, a, "rank: expected int64 values"), NULL;
  if (nk != 1) return mlc_op_fail(ctx, a, "shape: expected one dim (the count along axis), got %d", nk), NULL;
  int n = (*r)->tensor.ndim;
  MlcExpr **s = mlc_arena_array(&ctx->arena, (size_t)n, sizeof *s);
  memcpy(s, (*r)->tensor.shape, (size_t)n * sizeof *s);
  s[*axis] = k[0];
  return s;
}

MlcSInfo *mlc_op_infer_rank_positions(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *r;
  int axis;
  MlcExpr **s = positions_shape(ctx, a, &r, &axis);
  return s ? mlc_op_tensor_sinfo(ctx, s, r->tensor.ndim, MLC_I64) : NULL;
}

bool mlc_op_te_rank_positions(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                              int *n_outs) {
  const MlcSInfo *rs;
  int axis;
  MlcExpr **s = positions_shape(ctx, a, &rs, &axis);
  if (!s) return false;
  const MlcTeTensor *r = in[0];
  int n = r->ndim;
  MlcExpr **ax = mlc_arena_array(&ctx->arena, (size_t)n, sizeof *ax), **at = mlc_arena_array(&ctx->arena, (size_t)n, sizeof *at);
  mlc_op_axes(ctx, n, ax);
  MlcExpr *i = mlc_te_var(ctx, mlc_intern(ctx, "i"));
  memcpy(at, ax, (size_t)n * sizeof *at);
  at[axis] = i;
  MlcExpr *hit = mlc_e_bin(ctx, MLC_BIN_EQ, mlc_te_read(ctx, r, at, n), ax[axis]);
  MlcExpr *body = mlc_op_select(ctx, hit, i, mlc_op_i64(ctx, 0));
  MlcExpr *ext = r->shape[axis];
  MlcTeTensor *t = mlc_te_reduce(ctx, "T_rank_positions", s, n, ax, MLC_TE_SUM, body, &i, &ext, 1);
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}

/* ---- match_count ---------------------------------------------------------- */

/* the kinds of match_count: for each element i of x, over every l, what is
 * added (sum) or kept (min) */
#define MATCH_KINDS(X)                                                                                         \
  X("equal", MLC_TE_SUM)        /* w[l] where x[l] == x[i] */                                                  \
  X("equal_before", MLC_TE_SUM) /* w[l] where x[l] == x[i] and l < i */                                        \
  X("less", MLC_TE_SUM)         /* w[l] where x[l] < x[i] */                                                   \
  X("first_equal", MLC_TE_MIN)  /* the least l where x[l] == x[i] (i itself at most; w not taken) */

static bool match_args(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo **x, int *kind) {
  static const char *const names[] = {
#define X(s, op) s,
      MATCH_KINDS(X)
#undef X
  };
  const char *k;
  if (!(*x = mlc_op_tensor(ctx, a, 0, true)) || !mlc_op_attr_str(ctx, a, "kind", "equal", &k)) return false;
  *kind = -1;
  for (int i = 0; i < (int)(sizeof names / sizeof *names); i++)
    if (!strcmp(names[i], k)) *kind = i;
  if (*kind < 0)
    return mlc_op_fail(ctx, a, "kind: expected \"equal\", \"equal_before\", \"less\" or \"first_equal\", got \"%s\"", k);
  MlcDType t = (*x)->tensor.dtype;
  if ((*x)->tensor.ndim != 1 || !(*x)->tensor.shape || t.lanes != 1)
    return mlc_op_fail(ctx, a, "x: expected a 1-D tensor of scalars");
  int wi = mlc_op_param(a, "weights");
  if (!a->val[wi]) return true;
  if (*kind == 3) return mlc_op_fail(ctx, a, "weights: not taken by kind \"first_equal\"");
  const MlcSInfo *w = mlc_op_tensor(ctx, a, wi, true);
  if (!w) return false;
  if (w->tensor.ndim != 1 || !w->tensor.shape || !mlc_dtype_eq(w->tensor.dtype, MLC_I64))
    return mlc_op_fail(ctx, a, "weights: expected a 1-D int64 tensor");
  int64_t nx, nw;
  if (!mlc_e_is_const_int(x[0]->tensor.shape[0], &nx) || !mlc_e_is_const_int(w->tensor.shape[0], &nw) || nx != nw)
    return mlc_op_fail(ctx, a, "weights: expected the static length of x");
  return true;
}

MlcSInfo *mlc_op_infer_match_count(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x;
  int kind;
  if (!match_args(ctx, a, &x, &kind)) return NULL;
  return mlc_op_tensor_sinfo(ctx, x->tensor.shape, 1, MLC_I64);
}

bool mlc_op_te_match_count(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                           int *n_outs) {
  static const MlcTeReduce ops[] = {
#define X(s, op) op,
      MATCH_KINDS(X)
#undef X
  };
  const MlcSInfo *xs;
  int kind;
  if (!match_args(ctx, a, &xs, &kind)) return false;
  const MlcTeTensor *x = in[0], *w = n_in > 1 ? in[1] : NULL;
  MlcExpr *i, *l = mlc_te_var(ctx, mlc_intern(ctx, "l"));
  mlc_op_axes(ctx, 1, &i);
  MlcExpr *xi = mlc_te_read(ctx, x, &i, 1), *xl = mlc_te_read(ctx, x, &l, 1);
  MlcExpr *eq = mlc_e_bin(ctx, MLC_BIN_EQ, xl, xi);
  MlcExpr *cond = kind == 2 ? mlc_e_bin(ctx, MLC_BIN_LT, xl, xi)
                : kind == 1 ? mlc_e_bin(ctx, MLC_BIN_AND, eq, mlc_e_bin(ctx, MLC_BIN_LT, l, i)) : eq;
  MlcExpr *body = kind == 3 ? mlc_op_select(ctx, eq, l, i)
                            : mlc_op_select(ctx, cond, w ? mlc_te_read(ctx, w, &l, 1) : mlc_op_i64(ctx, 1), mlc_op_i64(ctx, 0));
  MlcExpr *ext = x->shape[0];
  MlcTeTensor *t = mlc_te_reduce(ctx, "T_match_count", x->shape, 1, &i, ops[kind], body, &l, &ext, 1);
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}

/* ---- row_compare ---------------------------------------------------------- */

/* x: 2-D of static shape, numbers or bools */
static bool rows_arg(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo **x) {
  if (!(*x = mlc_op_tensor(ctx, a, 0, true))) return false;
  if ((*x)->tensor.ndim != 2 || !(*x)->tensor.shape || (*x)->tensor.dtype.lanes != 1)
    return mlc_op_fail(ctx, a, "x: expected a 2-D tensor of scalars (rows to compare), got %s", mlc_op_sinfo_str(ctx, *x));
  return true;
}

MlcSInfo *mlc_op_infer_row_compare(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x;
  if (!rows_arg(ctx, a, &x)) return NULL;
  MlcExpr *shape[2] = {x->tensor.shape[0], x->tensor.shape[0]};
  return mlc_op_tensor_sinfo(ctx, shape, 2, MLC_I64);
}

bool mlc_op_te_row_compare(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                           int *n_outs) {
  const MlcSInfo *xs;
  if (!rows_arg(ctx, a, &xs)) return false;
  const MlcTeTensor *x = in[0];
  MlcExpr *ax[2], *m = mlc_te_var(ctx, mlc_intern(ctx, "m"));
  mlc_op_axes(ctx, 2, ax);
  MlcExpr *ii[2] = {ax[0], m}, *il[2] = {ax[1], m};
  MlcExpr *xi = mlc_te_read(ctx, x, ii, 2), *xl = mlc_te_read(ctx, x, il, 2);
  if (x->dtype.code == MLC_TC_BOOL) xi = mlc_op_cast(ctx, MLC_I32, xi), xl = mlc_op_cast(ctx, MLC_I32, xl);
  /* the first difference's code: 2 m, + 1 when row l is the greater there; 2 M when none */
  MlcExpr *two = mlc_op_i64(ctx, 2), *width = x->shape[1];
  MlcExpr *end = mlc_e_bin(ctx, MLC_BIN_MUL, two, width);
  MlcExpr *code = mlc_e_bin(ctx, MLC_BIN_ADD, mlc_e_bin(ctx, MLC_BIN_MUL, two, m),
                            mlc_op_select(ctx, mlc_e_bin(ctx, MLC_BIN_LT, xl, xi), mlc_op_i64(ctx, 0), mlc_op_i64(ctx, 1)));
  MlcExpr *body = mlc_op_select(ctx, mlc_e_bin(ctx, MLC_BIN_EQ, xl, xi), end, code);
  MlcExpr *shape[2] = {x->shape[0], x->shape[0]};
  MlcTeTensor *first = mlc_te_reduce(ctx, "T_row_first_diff", shape, 2, ax, MLC_TE_MIN, body, &m, &width, 1);
  if (!first) return false;
  MlcExpr *bx[2];
  mlc_op_axes(ctx, 2, bx);
  MlcExpr *f = mlc_te_read(ctx, first, bx, 2);
  MlcExpr *sign = mlc_op_select(ctx, mlc_e_bin(ctx, MLC_BIN_EQ, mlc_e_bin(ctx, MLC_BIN_FLOORMOD, f, two), mlc_op_i64(ctx, 0)),
                                mlc_op_i64(ctx, -1), mlc_op_i64(ctx, 1));
  MlcExpr *cmp = mlc_op_select(ctx, mlc_e_bin(ctx, MLC_BIN_GE, f, end), mlc_op_i64(ctx, 0), sign);
  MlcTeTensor *t = mlc_te_compute(ctx, "T_row_compare", shape, 2, bx, cmp);
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}
