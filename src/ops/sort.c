/* sort.c - argsort: the order of x's elements along an axis, by a merge
 * sort, n log n steps per row.
 *
 * argsort(x, axis=a, largest=True, shape=[k], nan_last=False) is x's shape
 * with k along a:
 * out[.., j, ..] = the index along a of the j-th element of its row in
 * order, largest first (smallest with largest=False), equal values by index
 * (the order is stable).  k may be a size var read at run time (TopK's k,
 * checked against the axis' length before); j at or past the axis' length
 * D reads the last place.  NaN is never before anything, so a NaN keeps
 * its place relative to its neighbours' runs, unless nan_last: then every
 * NaN comes after every number (in index order, as ONNX Unique and NumPy
 * sort them); the result is always a permutation of 0 .. D-1 cut to k.
 *
 * The TE would take D steps per element (comparing with every other, as
 * sort_rank does), so this is a loop nest built directly (OP_PRIM): per row,
 * ceil(log2 D) passes of a bottom-up merge sort of the indices, between two
 * scratch rows of D indices (runs of width w = 1, 2, 4, ... merged in
 * pairs; two one-element buffers hold the merge's positions in the left and
 * right run).  The passes are unrolled, D being static, so each pass's
 * width is a constant.  Every read is clamped into its row, so no index,
 * whatever the data, leaves a buffer. */
#include <string.h>

#include "ops/op_internal.h"

#define SORT_MAX_NDIM 16

typedef struct Sort {
  MlcCtx *ctx;
  const MlcSInfo *x;
  int axis, nd;
  bool largest, nan_last;
  int64_t D;
  MlcExpr *k;
  MlcBuffer *xb, *out, *run[2], *pos; /* pos: [left, right] */
  MlcExpr **idx;                      /* the row's coordinates, the axis' left for the caller */
  MlcExpr *zero;
} Sort;

static bool sort_args(MlcCtx *ctx, const MlcOpArgs *a, Sort *s) {
  int64_t ax;
  MlcExpr **k;
  int nk;
  memset(s, 0, sizeof *s);
  s->ctx = ctx;
  if (!(s->x = mlc_op_tensor(ctx, a, 0, true)) || !mlc_op_attr_int(ctx, a, "axis", -1, &ax) ||
      !mlc_op_attr_bool(ctx, a, "largest", true, &s->largest) || !mlc_op_attr_bool(ctx, a, "nan_last", false, &s->nan_last) ||
      !mlc_op_attr_shape(ctx, a, "shape", &k, &nk))
    return false;
  s->nd = s->x->tensor.ndim;
  MlcDType t = s->x->tensor.dtype;
  if (s->nd < 1 || s->nd > SORT_MAX_NDIM || !s->x->tensor.shape)
    return mlc_op_fail(ctx, a, "x: expected a tensor of 1 to %d dims and known shape, got %s", SORT_MAX_NDIM,
                       mlc_op_sinfo_str(ctx, s->x));
  if (t.lanes != 1 || t.code == MLC_TC_BOOL) return mlc_op_fail(ctx, a, "x: expected numbers");
  if (!mlc_op_axis(ctx, a, ax, s->nd, &s->axis)) return false;
  for (int d = 0; d < s->nd; d++) {
    int64_t v;
    if (!mlc_e_is_const_int(s->x->tensor.shape[d], &v))
      return mlc_op_fail(ctx, a, "x: expected a static shape, got %s", mlc_op_sinfo_str(ctx, s->x));
    if (d == s->axis) s->D = v;
  }
  if (nk != 1) return mlc_op_fail(ctx, a, "shape: expected one dim (the count along axis), got %d", nk);
  int64_t kv;
  if (k[0]->kind != MLC_EXPR_VAR && !mlc_e_is_const_int(k[0], &kv))
    return mlc_op_fail(ctx, a, "shape: expected a constant or a size var");
  if (mlc_e_is_const_int(k[0], &kv) && (kv < 0 || kv > s->D))
    return mlc_op_fail(ctx, a, "shape: %lld is more than the axis' length %lld", (long long)kv, (long long)s->D);
  s->k = k[0];
  return true;
}

static MlcExpr **out_shape(Sort *s) {
  MlcExpr **shape = mlc_arena_array(&s->ctx->arena, (size_t)s->nd, sizeof *shape);
  memcpy(shape, s->x->tensor.shape, (size_t)s->nd * sizeof *shape);
  shape[s->axis] = s->k;
  return shape;
}

MlcSInfo *mlc_op_infer_argsort(MlcCtx *ctx, const MlcOpArgs *a) {
  Sort s;
  if (!sort_args(ctx, a, &s)) return NULL;
  return mlc_op_tensor_sinfo(ctx, out_shape(&s), s.nd, MLC_I64);
}

/* ---- the loop nest ------------------------------------------------------------- */

static MlcExpr *i64(Sort *s, int64_t v) { return mlc_op_i64(s->ctx, v); }
static MlcExpr *bin(Sort *s, MlcBinOp op, MlcExpr *x, MlcExpr *y) { return mlc_e_bin(s->ctx, op, x, y); }
static MlcExpr *var(Sort *s, const char *name) { return mlc_e_var(s->ctx, mlc_intern(s->ctx, name), MLC_I64); }
static MlcExpr *ld1(Sort *s, MlcBuffer *b, MlcExpr *i) { return mlc_e_load(s->ctx, b, &i, 1); }
static MlcStmt *st1(Sort *s, MlcBuffer *b, MlcExpr *i, MlcExpr *v) { return mlc_s_store(s->ctx, b, &i, 1, v); }
static MlcExpr *clamp(Sort *s, MlcExpr *e, int64_t hi) {
  return bin(s, MLC_BIN_MIN, bin(s, MLC_BIN_MAX, e, s->zero), i64(s, hi));
}
static MlcStmt *loop(Sort *s, MlcExpr *v, MlcExpr *extent, MlcStmt *body) {
  return body ? mlc_s_for(s->ctx, v, s->zero, extent, MLC_FOR_SERIAL, NULL, (MlcAttrs){0}, body) : NULL;
}
/* x at index i along the axis of the current row */
static MlcExpr *x_at(Sort *s, MlcExpr *i) {
  s->idx[s->axis] = i;
  return mlc_e_load(s->ctx, s->xb, s->idx, s->nd);
}

/* one pass: runs of width w in src merged in pairs into dst */
static MlcStmt *merge_pass(Sort *s, int64_t w, MlcBuffer *src, MlcBuffer *dst) {
  MlcCtx *ctx = s->ctx;
  int64_t D = s->D, blocks = (D + 2 * w - 1) / (2 * w);
  MlcExpr *blk = var(s, "blk"), *kk = var(s, "kk");
  MlcExpr *lo = bin(s, MLC_BIN_MUL, blk, i64(s, 2 * w));
  MlcExpr *mid = bin(s, MLC_BIN_MIN, bin(s, MLC_BIN_ADD, lo, i64(s, w)), i64(s, D));
  MlcExpr *hi = bin(s, MLC_BIN_MIN, bin(s, MLC_BIN_ADD, lo, i64(s, 2 * w)), i64(s, D));
  MlcExpr *one = i64(s, 1), *l = ld1(s, s->pos, s->zero), *r = ld1(s, s->pos, one);
  MlcExpr *li = ld1(s, src, clamp(s, l, D - 1)), *ri = ld1(s, src, clamp(s, r, D - 1));
  /* the right run's head goes first only when strictly before the left's (stability) */
  MlcExpr *xr = x_at(s, ri), *xl = x_at(s, li);
  MlcExpr *right_first = bin(s, s->largest ? MLC_BIN_GT : MLC_BIN_LT, xr, xl);
  if (s->nan_last && (s->x->tensor.dtype.code == MLC_TC_FLOAT || s->x->tensor.dtype.code == MLC_TC_BFLOAT)) /* or the left's head is NaN and the right's not */
    right_first = bin(s, MLC_BIN_OR, right_first,
                      bin(s, MLC_BIN_AND, bin(s, MLC_BIN_NE, xl, xl), bin(s, MLC_BIN_EQ, xr, xr)));
  MlcExpr *take_left = bin(s, MLC_BIN_AND, bin(s, MLC_BIN_LT, l, mid),
                           bin(s, MLC_BIN_OR, bin(s, MLC_BIN_GE, r, hi), mlc_e_not(ctx, right_first)));
  MlcExpr *at = bin(s, MLC_BIN_ADD, lo, kk);
  MlcStmt *left[2] = {st1(s, dst, at, li), st1(s, s->pos, s->zero, bin(s, MLC_BIN_ADD, l, one))};
  MlcStmt *right[2] = {st1(s, dst, at, ri), st1(s, s->pos, one, bin(s, MLC_BIN_ADD, r, one))};
  MlcStmt *step = mlc_s_if(ctx, bin(s, MLC_BIN_LT, at, hi),
                           mlc_s_if(ctx, take_left, mlc_s_seq(ctx, left, 2), mlc_s_seq(ctx, right, 2)), NULL);
  MlcStmt *block[3] = {st1(s, s->pos, s->zero, lo), st1(s, s->pos, one, mid), loop(s, kk, i64(s, 2 * w), step)};
  return loop(s, blk, i64(s, blocks), mlc_s_seq(ctx, block, 3));
}

/* one row: indices 0 .. D-1, the passes, the first k places out */
static MlcStmt *sort_row(Sort *s) {
  MlcCtx *ctx = s->ctx;
  int passes = 0;
  while (passes < 63 && ((int64_t)1 << passes) < s->D) passes++;
  MlcStmt **steps = mlc_arena_array(&ctx->arena, (size_t)passes + 2, sizeof *steps);
  MlcExpr *i = var(s, "i"), *j = var(s, "j");
  steps[0] = loop(s, i, i64(s, s->D), st1(s, s->run[0], i, i));
  for (int p = 0; p < passes; p++) steps[1 + p] = merge_pass(s, (int64_t)1 << p, s->run[p % 2], s->run[(p + 1) % 2]);
  MlcExpr **oi = mlc_arena_array(&ctx->arena, (size_t)s->nd, sizeof *oi);
  memcpy(oi, s->idx, (size_t)s->nd * sizeof *oi);
  oi[s->axis] = j;
  MlcExpr *v = ld1(s, s->run[passes % 2], clamp(s, j, s->D > 0 ? s->D - 1 : 0));
  steps[1 + passes] = loop(s, j, s->k, mlc_s_store(ctx, s->out, oi, s->nd, v));
  for (int t = 0; t < passes + 2; t++)
    if (!steps[t]) return NULL;
  return mlc_s_seq(ctx, steps, passes + 2);
}

static MlcAttrs func_attrs(MlcCtx *ctx, const char *name) {
  MlcAttr *a = mlc_arena_array(&ctx->arena, 2, sizeof *a);
  a[0] = (MlcAttr){mlc_intern(ctx, "global_symbol"), {.kind = MLC_ATTR_STR, .s = name}};
  a[1] = (MlcAttr){mlc_intern(ctx, "tir.noalias"), {.kind = MLC_ATTR_BOOL, .b = true}};
  return (MlcAttrs){a, 2};
}

MlcPrimFunc *mlc_op_prim_argsort(MlcCtx *ctx, const MlcOpArgs *a, const char *name) {
  Sort s;
  if (!sort_args(ctx, a, &s)) return NULL;
  s.zero = mlc_op_i64(ctx, 0);
  MlcExpr *dlen = mlc_op_i64(ctx, s.D > 0 ? s.D : 1), *two = mlc_op_i64(ctx, 2);
  s.xb = mlc_buffer_new(ctx, mlc_intern(ctx, "x"), s.x->tensor.dtype, s.x->tensor.shape, s.nd, NULL, NULL, "global");
  s.out = mlc_buffer_new(ctx, mlc_intern(ctx, "T_argsort"), MLC_I64, out_shape(&s), s.nd, NULL, NULL, "global");
  s.run[0] = mlc_buffer_new(ctx, mlc_intern(ctx, "run_a"), MLC_I64, &dlen, 1, NULL, NULL, "local");
  s.run[1] = mlc_buffer_new(ctx, mlc_intern(ctx, "run_b"), MLC_I64, &dlen, 1, NULL, NULL, "local");
  s.pos = mlc_buffer_new(ctx, mlc_intern(ctx, "merge_pos"), MLC_I64, &two, 1, NULL, NULL, "local");
  if (!s.xb || !s.out || !s.run[0] || !s.run[1] || !s.pos) return NULL;
  /* loops over every dim but the axis */
  s.idx = mlc_arena_array(&ctx->arena, (size_t)s.nd, sizeof *s.idx);
  MlcExpr *outer[SORT_MAX_NDIM];
  for (int d = 0; d < s.nd; d++) s.idx[d] = outer[d] = mlc_e_var(ctx, mlc_internf(ctx, "o%d", d), MLC_I64);
  MlcStmt *body = sort_row(&s);
  for (int d = s.nd - 1; body && d >= 0; d--)
    if (d != s.axis) body = loop(&s, outer[d], s.x->tensor.shape[d], body);
  if (!body) return NULL;
  MlcBlock *blk = mlc_block_new(ctx, mlc_intern(ctx, "T_argsort"), NULL, 0, NULL, 0, NULL, 0, NULL, NULL, 0,
                                (MlcAttrs){0}, body);
  if (!blk || !mlc_block_infer_regions(ctx, blk)) return NULL;
  /* a row of one element needs no merge: its scratch would be unused, and a
   * buffer nothing touches has no place inside a GPU kernel */
  MlcBuffer *al[3] = {s.run[0], s.run[1], s.pos};
  int n_al = s.D > 1 ? 3 : 1;
  MlcBlock *root = mlc_block_new(ctx, mlc_intern(ctx, "root"), NULL, 0, NULL, 0, NULL, 0, NULL, al, n_al, (MlcAttrs){0},
                                 mlc_s_realize(ctx, NULL, 0, NULL, blk));
  MlcStmt *rs = root ? mlc_s_realize(ctx, NULL, 0, NULL, root) : NULL;
  MlcParam *ps = mlc_arena_array(&ctx->arena, 2, sizeof *ps);
  ps[0] = (MlcParam){mlc_e_var(ctx, mlc_intern(ctx, "var_x"), MLC_HANDLE), s.xb};
  ps[1] = (MlcParam){mlc_e_var(ctx, mlc_intern(ctx, "var_T_argsort"), MLC_HANDLE), s.out};
  const char *fname = mlc_intern(ctx, name);
  return rs ? mlc_prim_func_new(ctx, fname, ps, 2, func_attrs(ctx, fname), rs) : NULL;
}
