/* dynshape.c - the ops through which sizes computed at run time enter a
 * graph (tensor_to_shape, reshape_dynamic: struct info only), and the ops
 * whose kernels are generic in such sizes (reduce_to_shape, range_to_shape,
 * tile_to_shape: struct info and TE definitions).
 *
 * tensor_to_shape(data, like?, shape=[d0, d1, ...], mode=...) reads the
 * int32/int64 values of the 1-D tensor `data` when the model runs and binds
 * them to the dims of `shape`: an entry that is a symbolic var no earlier
 * binding or input defines is bound there (a size of its own from then on,
 * as an input's dim is); any other entry is checked equal to the value.
 * Its result is the shape R.Shape([d0, d1, ...]), so the vars are defined
 * by a binding's struct info, like a function parameter's.  The mode says
 * how the values become the shape:
 *   "values"             the values themselves, each checked non-negative;
 *   "reshape"            ONNX Reshape's target against `like`: 0 copies
 *                        like's dim at the same place, one -1 takes what is
 *                        left, and the product must equal like's numel;
 *   "reshape_allowzero"  the same with 0 meaning 0;
 *   "expand"             ONNX Expand's target broadcast with `like`'s shape
 *                        (the result has the larger rank);
 *   "reduce_keep"        the values are axes of `like` (negative ones count
 *                        from the end, none twice): like's shape with 1 at
 *                        those axes;
 *   "reduce_drop"        the same with those axes left out;
 *   "squeeze"            the same, each of those dims checked to be 1;
 *   "unsqueeze"          the values are axes of the result: like's shape
 *                        with a 1 inserted at each;
 *   "tile"               the values are repeats of like's dims (one each):
 *                        like's shape times them;
 *   "at_most"            the values themselves, each checked between 0 and
 *                        like's element count (ONNX TopK's k);
 *   "split"              the values are sizes of parts of like's dim at
 *                        attribute `axis` (one dim each): each checked
 *                        non-negative, their sum equal to that dim;
 *   "slice"              the values are ONNX Slice's starts, ends, axes and
 *                        steps (q each) on like: like's shape with each
 *                        named axis's length after numpy's clamping (axes
 *                        in range and not repeated, steps not 0);
 *   "pad"                the values are pads (q begins, q ends) and q axes
 *                        of like: like's shape grown (or cropped) by them,
 *                        axes in range and not repeated, no dim below 0;
 *   "pad_copy"           the same, where a dim that grows must not be
 *                        empty (edge, reflect and wrap copy from it);
 *   "range"              float64 values (start, limit, delta): one dim, the
 *                        length of ONNX Range, max(ceil((limit - start) /
 *                        delta), 0), with delta checked non-zero;
 *   "resize"             float64 values [kind, mask, v (r), roi (2r)] for
 *                        like of rank r (image.resize2d_dynamic's params,
 *                        src/ops/resize.c): like's shape with each dim in
 *                        the bit mask resized as ONNX Resize does, by the
 *                        scales v (kind 0: floor(in * v)), to the sizes v
 *                        (kind 1), or by the least (2) or greatest (3) of
 *                        v_d / in_d over those dims (round(in * that)); a
 *                        scale must be positive and finite, a size and
 *                        every resized dim at least 1, the region finite.
 * The executor also caps every value (MLC_DYN_MAX_DIM) and the product of
 * all of them (MLC_DYN_MAX_NUMEL), so a hostile tensor cannot make the
 * model allocate without bound; a failed check is the run's error.
 *
 * reshape_dynamic(x, shape=[...]) is a reshape whose element count cannot be
 * proved equal at compile time (the target's dims were bound by
 * tensor_to_shape): the executor compares the counts when it runs and
 * copies x's bytes into a tensor of the new shape.  The plain reshape op
 * keeps refusing what it cannot prove, since its kernel would read past x.
 *
 * reduce_to_shape(x, shape=[...], kind=...) reduces x to `shape`, every
 * dim of which is either x's or 1 there (what "reduce_keep" binds):
 * out[o] = kind over k of x[o + k], with k_d < x_d - shape_d + 1.  That is
 * a sum/mean/max/min over the axes whose output dim is 1, whichever they
 * turn out to be when the model runs, and the index never leaves x
 * whatever the sizes are, so the kernel is safe even where they break the
 * rule (the result is then wrong, never a read outside x).  An empty
 * extent (a dim of x that is 0) still takes one guarded step that adds the
 * identity, since a reduction's output is initialized in its first step.
 *
 * range_to_shape(start, delta, shape=[n]) is out[i] = start + i * delta
 * over the length n that "range" binds, computed in float64 (int64 for
 * integer types) from the 0-d tensors start and delta and rounded once.
 *
 * tile_to_shape(x, shape=[...]) is out[o] = x[o mod x's shape], the tiling
 * that "tile" sizes; the index never leaves x.
 *
 * split_part(x, sizes, shape=[...], axis=a, index=i) is part i of x split
 * along axis a into parts of the sizes read from the 1-D tensor `sizes`
 * (what "split" binds to the parts' dims at a): out[o] = x[o] with
 * o_a + sizes[0] + ... + sizes[i-1] at a, the offset read by the kernel.
 * That index is clamped into [0, x_a - 1], so it never leaves x whatever
 * the values are; with the sizes "split" checked, the clamp never acts.
 *
 * dim_tensor(x, axis=a) is x's dim a as a 0-d int64 tensor, the way a
 * size known only at run time (a sequence length) becomes a value, such as
 * the trip count of an R.loop over it.  x's data is not read; x is the
 * kernel's param so that the size var is bound from its shape, and the
 * value is computed as max(k for k in [0, dim]), since a tensor expression
 * reads no size but those of the shapes it covers.
 *
 * The first two have no tensor-expression definition: they are left to the
 * executor, as the allocation ops are.  tensor_to_shape counts as impure
 * (transform/util.c), so dead-code removal keeps the binding whose vars
 * later shapes use. */
#include <math.h>
#include <string.h>

#include "mlcc/arith.h"
#include "ops/dyn_modes.h"
#include "ops/op_internal.h"

/* the 1-D int tensor of static length whose values are read; its length */
static bool shape_data(MlcCtx *ctx, const MlcOpArgs *a, bool range, int64_t *len) {
  const MlcSInfo *d = mlc_op_tensor(ctx, a, 0, true);
  if (!d) return false;
  MlcDType t = d->tensor.dtype;
  if (range && (t.code != MLC_TC_FLOAT || t.bits != 64 || t.lanes != 1))
    return mlc_op_fail(ctx, a, "data: expected float64 values in modes \"range\" and \"resize\"");
  if (!range && (t.code != MLC_TC_INT || (t.bits != 32 && t.bits != 64) || t.lanes != 1))
    return mlc_op_fail(ctx, a, "data: expected int32 or int64 values");
  if (d->tensor.ndim != 1 || !d->tensor.shape || !mlc_e_is_const_int(d->tensor.shape[0], len))
    return mlc_op_fail(ctx, a, "data: expected a 1-D tensor of static length, got %s", mlc_op_sinfo_str(ctx, d));
  return true;
}

MlcSInfo *mlc_op_infer_tensor_to_shape(MlcCtx *ctx, const MlcOpArgs *a) {
  MlcExpr **shape;
  int n;
  int64_t len;
  const char *mode;
  if (!mlc_op_attr_str(ctx, a, "mode", "values", &mode)) return NULL;
  int m = mlc_dyn_mode(mode);
  if (m < 0) {
    MlcStrBuf names = {0};
    for (int i = 0; i < MLC_DYN_N_MODES; i++)
      mlc_sb_printf(&names, "%s\"%s\"", i == 0 ? "" : i + 1 == MLC_DYN_N_MODES ? " or " : ", ", mlc_dyn_mode_name(i));
    mlc_op_fail(ctx, a, "mode: expected %s, got \"%s\"", mlc_sb_cstr(&names), mode);
    mlc_vec_free(&names);
    return NULL;
  }
  if (!shape_data(ctx, a, m == MLC_DYN_RANGE || m == MLC_DYN_RESIZE, &len) ||
      !mlc_op_attr_shape(ctx, a, "shape", &shape, &n))
    return NULL;
  if (m == MLC_DYN_RANGE) {
    if (len != 3 || n != 1 || a->val[mlc_op_param(a, "like")])
      return mlc_op_fail(ctx, a, "mode \"range\" reads 3 values (start, limit, delta) into 1 dim"), NULL;
    return mlc_sinfo_shape(ctx, shape, n);
  }
  if (m == MLC_DYN_RESIZE) {
    const MlcSInfo *like = mlc_op_tensor(ctx, a, mlc_op_param(a, "like"), false);
    if (!like) return NULL;
    if (!like->tensor.shape || like->tensor.ndim != n || len != 2 + 3 * (int64_t)n)
      return mlc_op_fail(ctx, a, "mode \"resize\": like's dims, and 2 + 3 * rank values, are expected"), NULL;
    return mlc_sinfo_shape(ctx, shape, n);
  }
  bool values = m == MLC_DYN_VALUES, expand = m == MLC_DYN_EXPAND;
  bool keep = m == MLC_DYN_REDUCE_KEEP, drop = m == MLC_DYN_REDUCE_DROP || m == MLC_DYN_SQUEEZE;
  bool unsqueeze = m == MLC_DYN_UNSQUEEZE, tile = m == MLC_DYN_TILE;
  bool split = m == MLC_DYN_SPLIT, slice = m == MLC_DYN_SLICE, pad = m == MLC_DYN_PAD || m == MLC_DYN_PAD_COPY;
  int li = mlc_op_param(a, "like");
  const MlcSInfo *like = NULL;
  if (values && a->val[li]) return mlc_op_fail(ctx, a, "like: not taken in mode \"values\""), NULL;
  if (!values && !(like = mlc_op_tensor(ctx, a, li, false))) return NULL;
  if (like && !like->tensor.shape) return mlc_op_fail(ctx, a, "like: expected a tensor of known shape"), NULL;
  int64_t axis;
  if (!mlc_op_attr_int(ctx, a, "axis", 0, &axis)) return NULL;
  if (split && (axis < 0 || axis >= like->tensor.ndim))
    return mlc_op_fail(ctx, a, "mode \"split\": axis %lld is out of range for rank %d", (long long)axis,
                       like->tensor.ndim), NULL;
  if (pad && (len < 3 || len % 3 != 0))
    return mlc_op_fail(ctx, a, "mode \"%s\": expected 3q values (begins, ends, axes), got %lld", mode,
                       (long long)len), NULL;
  if (slice && (len < 4 || len % 4 != 0))
    return mlc_op_fail(ctx, a, "mode \"slice\": expected 4q values (starts, ends, axes, steps), got %lld",
                       (long long)len), NULL;
  if (tile && like->tensor.ndim != len)
    return mlc_op_fail(ctx, a, "mode \"tile\": %lld repeats for a tensor of rank %d", (long long)len,
                       like->tensor.ndim), NULL;
  int64_t want = expand && like->tensor.ndim > len ? like->tensor.ndim : keep || slice || pad ? like->tensor.ndim
               : drop ? like->tensor.ndim - len : unsqueeze ? like->tensor.ndim + len : len;
  if (n != want)
    return mlc_op_fail(ctx, a, "shape: expected %lld dims for %lld values in mode \"%s\", got %d", (long long)want,
                       (long long)len, mode, n), NULL;
  return mlc_sinfo_shape(ctx, shape, n);
}

MlcSInfo *mlc_op_infer_reshape_dynamic(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true);
  MlcExpr **shape;
  int n;
  if (!x || !mlc_op_attr_shape(ctx, a, "shape", &shape, &n)) return NULL;
  if (!x->tensor.shape) return mlc_op_fail(ctx, a, "x: expected a tensor of known shape"), NULL;
  return mlc_op_tensor_sinfo(ctx, shape, n, x->tensor.dtype);
}

/* the kinds of reduce_to_shape and their TE reductions */
#define TO_SHAPE_KINDS(X) X("sum", MLC_TE_SUM) X("mean", MLC_TE_SUM) X("max", MLC_TE_MAX) X("min", MLC_TE_MIN)

static bool reduce_kind(MlcCtx *ctx, const MlcOpArgs *a, MlcTeReduce *op, bool *mean) {
  static const struct { const char *name; MlcTeReduce op; } kinds[] = {
#define X(n, o) {n, o},
      TO_SHAPE_KINDS(X)
#undef X
  };
  const char *kind;
  if (!mlc_op_attr_str(ctx, a, "kind", "sum", &kind)) return false;
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (!strcmp(kinds[i].name, kind)) {
      *op = kinds[i].op;
      *mean = !strcmp(kind, "mean");
      return true;
    }
  return mlc_op_fail(ctx, a, "kind: expected \"sum\", \"mean\", \"max\" or \"min\", got \"%s\"", kind);
}

MlcSInfo *mlc_op_infer_reduce_to_shape(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true);
  MlcExpr **shape;
  int n;
  MlcTeReduce op;
  bool mean;
  if (!x || !mlc_op_attr_shape(ctx, a, "shape", &shape, &n) || !reduce_kind(ctx, a, &op, &mean)) return NULL;
  if (!x->tensor.shape) return mlc_op_fail(ctx, a, "x: expected a tensor of known shape"), NULL;
  if (n != x->tensor.ndim)
    return mlc_op_fail(ctx, a, "shape: expected %d dims (x's rank), got %d", x->tensor.ndim, n), NULL;
  if (mean && !mlc_dtype_is_float(x->tensor.dtype)) return mlc_op_fail(ctx, a, "a mean of non-float data"), NULL;
  return mlc_op_tensor_sinfo(ctx, shape, n, x->tensor.dtype);
}

bool mlc_op_te_reduce_to_shape(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                               int *n_outs) {
  const MlcTeTensor *x = in[0];
  MlcExpr **shape;
  int n;
  MlcTeReduce op;
  bool mean;
  if (!mlc_op_attr_shape(ctx, a, "shape", &shape, &n) || !reduce_kind(ctx, a, &op, &mean)) return false;
  if (n != x->ndim) return mlc_op_fail(ctx, a, "shape: expected %d dims (x's rank), got %d", x->ndim, n);
  size_t cap = (size_t)(n ? n : 1);
  MlcExpr **axes = mlc_arena_array(&ctx->arena, cap, sizeof *axes), **rv = mlc_arena_array(&ctx->arena, cap, sizeof *rv);
  MlcExpr **rext = mlc_arena_array(&ctx->arena, cap, sizeof *rext), **idx = mlc_arena_array(&ctx->arena, cap, sizeof *idx);
  MlcExpr *count = mlc_op_i64(ctx, 1), *inside = NULL;
  mlc_op_axes(ctx, n, axes);
  for (int d = 0; d < n; d++) {
    MlcExpr *ext = mlc_arith_add(ctx, mlc_e_bin(ctx, MLC_BIN_SUB, x->shape[d], shape[d]), mlc_op_i64(ctx, 1));
    MlcExpr *in_d = mlc_e_bin(ctx, MLC_BIN_LT, rv[d] = mlc_te_var(ctx, mlc_internf(ctx, "k%d", d)), ext);
    inside = inside ? mlc_e_bin(ctx, MLC_BIN_AND, inside, in_d) : in_d;
    /* at least one step, so that the output is written (its init runs in
     * the first step) even where a dim of x is 0 and nothing is reduced */
    rext[d] = mlc_e_bin(ctx, MLC_BIN_MAX, ext, mlc_op_i64(ctx, 1));
    idx[d] = mlc_arith_add(ctx, axes[d], rv[d]);
    count = mlc_arith_mul(ctx, count, ext);
  }
  MlcExpr *val = mlc_te_read(ctx, x, idx, n);
  /* the count is symbolic: each summand is divided, as reduce.c does for a mean */
  if (mean) val = mlc_e_bin(ctx, MLC_BIN_DIV, val, mlc_e_cast(ctx, x->dtype, count));
  /* steps past the extent (only that one step, of an empty reduction) add the identity */
  bool flt = mlc_dtype_is_float(x->dtype);
  MlcExpr *none = op == MLC_TE_SUM ? mlc_op_const(ctx, x->dtype, 0)
                : op == MLC_TE_MAX ? (flt ? mlc_op_const(ctx, x->dtype, -INFINITY) : mlc_te_min_value(ctx, x->dtype))
                : (flt ? mlc_op_const(ctx, x->dtype, INFINITY) : mlc_te_max_value(ctx, x->dtype));
  if (inside) val = mlc_op_select(ctx, inside, val, none);
  MlcTeTensor *t = mlc_te_reduce(ctx, "T_reduce_to_shape", shape, n, axes, op, val, rv, rext, n);
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}

/* start and delta: 0-d tensors of one numeric dtype, the result's */
static bool range_args(MlcCtx *ctx, const MlcOpArgs *a, MlcDType *t, MlcExpr **len) {
  const MlcSInfo *s = mlc_op_tensor(ctx, a, 0, true), *d = s ? mlc_op_tensor(ctx, a, 1, true) : NULL;
  MlcExpr **shape;
  int n;
  if (!d || !mlc_op_attr_shape(ctx, a, "shape", &shape, &n)) return false;
  if (s->tensor.ndim != 0 || d->tensor.ndim != 0 || !mlc_dtype_eq(s->tensor.dtype, d->tensor.dtype))
    return mlc_op_fail(ctx, a, "start and delta must be scalars of one dtype");
  *t = s->tensor.dtype;
  if (t->code != MLC_TC_FLOAT && t->code != MLC_TC_BFLOAT && t->code != MLC_TC_INT && t->code != MLC_TC_UINT)
    return mlc_op_fail(ctx, a, "start and delta must be numbers");
  if (n != 1) return mlc_op_fail(ctx, a, "shape: expected one dim, got %d", n);
  *len = shape[0];
  return true;
}

MlcSInfo *mlc_op_infer_range_to_shape(MlcCtx *ctx, const MlcOpArgs *a) {
  MlcDType t;
  MlcExpr *len;
  return range_args(ctx, a, &t, &len) ? mlc_op_tensor_sinfo(ctx, &len, 1, t) : NULL;
}

bool mlc_op_te_range_to_shape(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                              int *n_outs) {
  MlcDType t;
  MlcExpr *len, *i;
  if (!range_args(ctx, a, &t, &len)) return false;
  mlc_op_axes(ctx, 1, &i);
  MlcDType w = t.code == MLC_TC_FLOAT || t.code == MLC_TC_BFLOAT ? MLC_F64 : MLC_I64;
  MlcExpr *start = mlc_op_cast(ctx, w, mlc_te_read(ctx, in[0], NULL, 0));
  MlcExpr *step = mlc_e_bin(ctx, MLC_BIN_MUL, mlc_op_cast(ctx, w, i), mlc_op_cast(ctx, w, mlc_te_read(ctx, in[1], NULL, 0)));
  MlcTeTensor *r = mlc_te_compute(ctx, "T_range", &len, 1, &i, mlc_op_cast(ctx, t, mlc_e_bin(ctx, MLC_BIN_ADD, start, step)));
  if (!r) return false;
  outs[0] = r;
  *n_outs = 1;
  return true;
}

MlcSInfo *mlc_op_infer_tile_to_shape(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true);
  MlcExpr **shape;
  int n;
  if (!x || !mlc_op_attr_shape(ctx, a, "shape", &shape, &n)) return NULL;
  if (!x->tensor.shape) return mlc_op_fail(ctx, a, "x: expected a tensor of known shape"), NULL;
  if (n != x->tensor.ndim)
    return mlc_op_fail(ctx, a, "shape: expected %d dims (x's rank), got %d", x->tensor.ndim, n), NULL;
  return mlc_op_tensor_sinfo(ctx, shape, n, x->tensor.dtype);
}

bool mlc_op_te_tile_to_shape(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                             int *n_outs) {
  const MlcTeTensor *x = in[0];
  MlcSInfo *s = mlc_op_infer_tile_to_shape(ctx, a);
  if (!s) return false;
  int n = s->tensor.ndim;
  MlcExpr **axes = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *axes);
  MlcExpr **idx = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *idx);
  mlc_op_axes(ctx, n, axes);
  for (int d = 0; d < n; d++) idx[d] = mlc_e_bin(ctx, MLC_BIN_FLOORMOD, axes[d], x->shape[d]);
  MlcTeTensor *t = mlc_te_compute(ctx, "T_tile_to_shape", s->tensor.shape, n, axes, mlc_te_read(ctx, x, idx, n));
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}

/* x, the 1-D int sizes, and the part's axis and index, all checked */
static const MlcSInfo *split_part_args(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr ***shape, int *n, int64_t *axis,
                                       int64_t *index) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true), *s = x ? mlc_op_tensor(ctx, a, 1, true) : NULL;
  int64_t len;
  if (!s || !mlc_op_attr_shape(ctx, a, "shape", shape, n) || !mlc_op_attr_int(ctx, a, "axis", 0, axis) ||
      !mlc_op_attr_int(ctx, a, "index", 0, index))
    return NULL;
  if (!x->tensor.shape) return mlc_op_fail(ctx, a, "x: expected a tensor of known shape"), NULL;
  MlcDType t = s->tensor.dtype;
  if (t.code != MLC_TC_INT || (t.bits != 32 && t.bits != 64) || t.lanes != 1 || s->tensor.ndim != 1 ||
      !s->tensor.shape || !mlc_e_is_const_int(s->tensor.shape[0], &len))
    return mlc_op_fail(ctx, a, "sizes: expected a 1-D int32 or int64 tensor of static length, got %s",
                       mlc_op_sinfo_str(ctx, s)), NULL;
  if (*n != x->tensor.ndim)
    return mlc_op_fail(ctx, a, "shape: expected %d dims (x's rank), got %d", x->tensor.ndim, *n), NULL;
  if (*axis < 0 || *axis >= *n) return mlc_op_fail(ctx, a, "axis %lld is out of range for rank %d", (long long)*axis, *n), NULL;
  if (*index < 0 || *index >= len)
    return mlc_op_fail(ctx, a, "index %lld is out of range for %lld sizes", (long long)*index, (long long)len), NULL;
  return x;
}

MlcSInfo *mlc_op_infer_split_part(MlcCtx *ctx, const MlcOpArgs *a) {
  MlcExpr **shape;
  int n;
  int64_t axis, index;
  const MlcSInfo *x = split_part_args(ctx, a, &shape, &n, &axis, &index);
  return x ? mlc_op_tensor_sinfo(ctx, shape, n, x->tensor.dtype) : NULL;
}

bool mlc_op_te_split_part(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                          int *n_outs) {
  const MlcTeTensor *x = in[0];
  MlcExpr **shape;
  int n;
  int64_t axis, index;
  if (!split_part_args(ctx, a, &shape, &n, &axis, &index)) return false;
  MlcExpr **axes = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *axes);
  MlcExpr **idx = mlc_arena_array(&ctx->arena, (size_t)(n ? n : 1), sizeof *idx);
  mlc_op_axes(ctx, n, axes);
  MlcExpr *at = axes[axis];
  for (int64_t j = 0; j < index; j++) {
    MlcExpr *jj = mlc_op_i64(ctx, j);
    at = mlc_e_bin(ctx, MLC_BIN_ADD, at, mlc_op_cast(ctx, MLC_I64, mlc_te_read(ctx, in[1], &jj, 1)));
  }
  at = mlc_e_bin(ctx, MLC_BIN_MIN, at, mlc_e_bin(ctx, MLC_BIN_SUB, x->shape[axis], mlc_op_i64(ctx, 1)));
  at = mlc_e_bin(ctx, MLC_BIN_MAX, at, mlc_op_i64(ctx, 0));
  for (int d = 0; d < n; d++) idx[d] = d == axis ? at : axes[d];
  MlcTeTensor *t = mlc_te_compute(ctx, "T_split_part", shape, n, axes, mlc_te_read(ctx, x, idx, n));
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}

/* x's dim at attribute axis */
static bool dim_axis(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo **x, int *axis) {
  int64_t ax;
  *x = mlc_op_tensor(ctx, a, 0, true);
  if (!*x || !mlc_op_attr_int(ctx, a, "axis", 0, &ax)) return false;
  if (!(*x)->tensor.shape) return mlc_op_fail(ctx, a, "x: expected a tensor of known rank");
  return mlc_op_axis(ctx, a, ax, (*x)->tensor.ndim, axis);
}

MlcSInfo *mlc_op_infer_dim_tensor(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x;
  int axis;
  MlcExpr *none[1];
  return dim_axis(ctx, a, &x, &axis) ? mlc_op_tensor_sinfo(ctx, none, 0, MLC_I64) : NULL;
}

bool mlc_op_te_dim_tensor(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs, int *n_outs) {
  const MlcSInfo *x;
  int axis;
  if (!dim_axis(ctx, a, &x, &axis)) return false;
  /* max over k in [0, dim] of k: a tensor expression reads only sizes in
   * the shapes it covers, and a reduction of at least one step initializes
   * its output */
  MlcExpr *none[1], *k, *ext = mlc_arith_add(ctx, mlc_op_cast(ctx, MLC_I64, in[0]->shape[axis]), mlc_op_i64(ctx, 1));
  mlc_op_axes(ctx, 1, &k);
  MlcTeTensor *r = mlc_te_reduce(ctx, "T_dim", none, 0, none, MLC_TE_MAX, k, &k, &ext, 1);
  if (!r) return false;
  outs[0] = r;
  *n_outs = 1;
  return true;
}
