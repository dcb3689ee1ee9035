/* onnx_ops_datadep.c - converters of the ops whose output size depends on
 * the data: NonZero, Compress, TopK with its k read at run time, and
 * Unique of the flattened input or along an axis.
 *
 * NonZero and Compress select positions of a 0/1 mask of static length (x != 0 flattened;
 * Compress's condition) and are built the same way: the mask's count (sum),
 * read by the executor into a fresh size var (tensor_to_shape, mode
 * "values": capped and checked when the model runs), and compact_index
 * with mask=True filling an output of that size with the selected
 * positions by one scan over the mask (src/ops/scan_prim.c).  NonZero unravels them into
 * coordinates; Compress takes x's slices at them.
 *
 * TopK sorts each row's indices (argsort, a merge sort, src/ops/sort.c),
 * keeps the first k and gathers the values there; a k known
 * at import is a static size, one read at run time is bound by
 * tensor_to_shape in mode "at_most", which checks it against the axis'
 * length (the element count of x's first row along the axis).
 *
 * Unique is described at its converter. */
#include "onnx_convert.h"

static MlcGExpr *with_attrs(MlcOnnxNode *n, const char *op, MlcGExpr *x, int k, const MlcAttr *a) {
  return x ? mlc_onnx__emit_attrs(n, op, &x, 1, k, a) : NULL;
}

static MlcGExpr *astype_i64(MlcOnnxNode *n, MlcGExpr *x) {
  MlcAttr a = attr("dtype", mlc_onnx__av_dtype(MLC_I64_T));
  return with_attrs(n, "astype", x, 1, &a);
}

/* the positions of the ones of `mask` (1-D int64 of 0s and 1s, static
 * length), in order, as compact_index with `dims` (nd < 0: none) makes them */
static MlcGExpr *select_positions(MlcOnnxNode *n, MlcGExpr *mask, const int64_t *dims, int nd) {
  MlcCtx *ctx = n->im->ctx;
  int64_t zero = 0;
  MlcAttr sum[2] = {attr("axis", mlc_onnx__av_ints(ctx, &zero, 1)), attr("keepdims", av_bool(true))};
  MlcGExpr *total = with_attrs(n, "sum", mask, 2, sum);
  MlcExpr *len;
  int k;
  if (!mask || !total || !mlc_onnx__runtime_shape(n, total, NULL, "values", &len, 1, &k)) return NULL;
  MlcAttr a[3] = {attr("shape", mlc_onnx__av_exprs(ctx, &len, 1)), attr("mask", av_bool(true)),
                  attr("dims", mlc_onnx__av_ints(ctx, dims, nd < 0 ? 0 : nd))};
  return mlc_onnx__emit_attrs(n, "compact_index", &mask, 1, nd < 0 ? 2 : 3, a);
}

/* x's static dims and their product; an error naming what is symbolic */
static bool static_dims(MlcOnnxNode *n, MlcGExpr *x, int64_t *dims, int *rank, int64_t *numel) {
  if (!need_rank(n, x, rank)) return false;
  if (*rank > MLC_ONNX_MAX_RANK) return mlc_onnx__node_fail(n, "input of rank %d (at most %d)", *rank, MLC_ONNX_MAX_RANK);
  *numel = 1;
  for (int d = 0; d < *rank; d++)
    if (!mlc_onnx__const_dim(x, d, &dims[d])) return mlc_onnx__node_fail(n, "an input of symbolic shape is not supported");
    else *numel *= dims[d];
  return true;
}

/* NonZero(x): the coordinates [rank, count] of x's non-zero elements, in
 * row-major order */
bool mlc_onnx__conv_nonzero(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t dims[MLC_ONNX_MAX_RANK], numel;
  int rank;
  if (!x || !static_dims(n, x, dims, &rank, &numel)) return false;
  if (rank == 0) return mlc_onnx__node_fail(n, "a scalar input is not supported");
  MlcAttr flat = attr("shape", mlc_onnx__av_ints(ctx, &numel, 1));
  MlcGExpr *mask = astype_i64(n, mlc_onnx__emit2(n, "not_equal", x, mlc_onnx__scalar_like(n, x, 0)));
  MlcGExpr *pos = select_positions(n, with_attrs(n, "reshape", mask, 1, &flat), dims, rank);
  return (n->out[0] = pos) != NULL;
}

/* Compress(x, condition, axis?): x's slices along axis (flattened x's
 * elements without one) where the condition holds; a condition shorter
 * than that dim leaves the rest out */
bool mlc_onnx__conv_compress(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0), *cond = mlc_onnx__input(n, 1);
  int64_t dims[MLC_ONNX_MAX_RANK], numel, axis, len;
  int rank;
  if (!x || !cond || !static_dims(n, x, dims, &rank, &numel)) return false;
  bool flatten = mlc_onnx__attr(n, "axis") == NULL;
  if (!flatten && !mlc_onnx__attr_int(n, "axis", 0, &axis)) return false;
  if (flatten) {
    MlcAttr flat = attr("shape", mlc_onnx__av_ints(ctx, &numel, 1));
    if (!(x = with_attrs(n, "reshape", x, 1, &flat))) return false;
    axis = 0;
    dims[0] = numel;
  } else {
    if (axis < -rank || axis >= rank)
      return mlc_onnx__node_fail(n, "axis %lld is out of range for rank %d", (long long)axis, rank);
    if (axis < 0) axis += rank;
  }
  MlcDType ct = mlc_onnx__dtype_of(cond);
  if (mlc_onnx__rank(cond) != 1 || !mlc_onnx__const_dim(cond, 0, &len) || ct.code != MLC_TC_BOOL)
    return mlc_onnx__node_fail(n, "condition: expected a 1-D bool tensor of static length");
  if (len > dims[axis])
    return mlc_onnx__node_fail(n, "condition of length %lld is longer than the selected dim (%lld)", (long long)len,
                               (long long)dims[axis]);
  MlcGExpr *pos = select_positions(n, astype_i64(n, cond), NULL, -1);
  MlcAttr ta = attr("axis", mlc_onnx__av_int(axis));
  MlcGExpr *args[2] = {x, pos};
  return pos && (n->out[0] = mlc_onnx__emit_attrs(n, "take", args, 2, 1, &ta)) != NULL;
}

/* TopK(x, k, axis=-1, largest=1, sorted=1): the k largest (smallest) values
 * along axis and their indices, in order, equal values by index (sorted=0
 * allows any order; this one is kept) */
bool mlc_onnx__conv_topk(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t dims[MLC_ONNX_MAX_RANK], numel, axis, largest, k;
  int rank;
  if (!x || !static_dims(n, x, dims, &rank, &numel) || !mlc_onnx__attr_int(n, "axis", -1, &axis) ||
      !mlc_onnx__attr_int(n, "largest", 1, &largest))
    return false;
  if (rank == 0) return mlc_onnx__node_fail(n, "a scalar input is not supported");
  if (axis < -rank || axis >= rank)
    return mlc_onnx__node_fail(n, "axis %lld is out of range for rank %d", (long long)axis, rank);
  if (axis < 0) axis += rank;
  MlcExpr *kdim = NULL;
  if (n->opset < 10 || mlc_onnx__known_or_absent(n, 1)) {
    int cnt;
    if (n->opset < 10 ? !mlc_onnx__attr_int(n, "k", -1, &k) : !mlc_onnx__known_ints(n, 1, &k, 1, &cnt)) return false;
    if (n->opset >= 10 && cnt != 1) return mlc_onnx__node_fail(n, "k must hold one value");
    if (k < 0 || k > dims[axis])
      return mlc_onnx__node_fail(n, "k = %lld is out of range for a dim of %lld", (long long)k, (long long)dims[axis]);
    kdim = mlc_e_int(ctx, MLC_I64_T, k);
  } else {
    /* x's first row along axis: D elements, what k may not exceed */
    MlcGExpr *row = x;
    if (rank > 1) {
      int64_t axes[MLC_ONNX_MAX_RANK], begin[MLC_ONNX_MAX_RANK], end[MLC_ONNX_MAX_RANK];
      int m = 0;
      for (int d = 0; d < rank; d++)
        if (d != axis) axes[m] = d, begin[m] = 0, end[m] = 1, m++;
      MlcAttr a[3] = {attr("axes", mlc_onnx__av_ints(ctx, axes, m)), attr("begin", mlc_onnx__av_ints(ctx, begin, m)),
                      attr("end", mlc_onnx__av_ints(ctx, end, m))};
      if (!(row = with_attrs(n, "strided_slice", x, 3, a))) return false;
    }
    int cnt;
    if (!mlc_onnx__runtime_shape(n, mlc_onnx__input(n, 1), row, "at_most", &kdim, 1, &cnt)) return false;
    if (cnt != 1 || !kdim) return mlc_onnx__node_fail(n, "k must hold one value");
  }
  MlcAttr sa[3] = {attr("axis", mlc_onnx__av_int(axis)), attr("largest", av_bool(largest != 0)),
                   attr("shape", mlc_onnx__av_exprs(ctx, &kdim, 1))};
  MlcGExpr *idx = with_attrs(n, "argsort", x, 3, sa);
  MlcAttr ga = attr("axis", mlc_onnx__av_int(axis));
  MlcGExpr *args[2] = {x, idx};
  if (!idx || !(n->out[0] = mlc_onnx__emit_attrs(n, "gather_elements", args, 2, 1, &ga))) return false;
  n->out[1] = idx;
  return true;
}

static MlcGExpr *take0(MlcOnnxNode *n, MlcGExpr *x, MlcGExpr *idx) {
  MlcAttr a = attr("axis", mlc_onnx__av_int(0));
  MlcGExpr *args[2] = {x, idx};
  return x && idx ? mlc_onnx__emit_attrs(n, "take", args, 2, 1, &a) : NULL;
}

/* sum of x (2-D) over axis 1 */
static MlcGExpr *row_sum(MlcOnnxNode *n, MlcGExpr *x) {
  int64_t one = 1;
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_ints(n->im->ctx, &one, 1)), attr("keepdims", av_bool(false))};
  return with_attrs(n, "sum", x, 2, a);
}

/* Unique(x, axis, sorted=1): the distinct slices along axis, as above with
 * slices for elements.  x's slices become the rows of a (D, M) matrix
 * (axis moved first, the rest flattened), row_compare orders them
 * pairwise (-1, 0, 1), and the counts the flattened form takes from
 * match_count are sums over that matrix: equal rows (0s), equal rows before
 * (0s below the diagonal), smaller first occurrences (-1s weighted by the
 * first-occurrence mask); the first equal row is the first 0 (argmax).
 * The slices of x itself are then taken along axis. */
static bool unique_axis(MlcOnnxNode *n, MlcGExpr *x, const int64_t *dims, int rank, bool sorted) {
  MlcCtx *ctx = n->im->ctx;
  int64_t axis, perm[MLC_ONNX_MAX_RANK], rest = 1;
  if (!mlc_onnx__attr_int(n, "axis", 0, &axis)) return false;
  if (rank == 0) return mlc_onnx__node_fail(n, "a scalar input has no axis");
  if (axis < -rank || axis >= rank)
    return mlc_onnx__node_fail(n, "axis %lld is out of range for rank %d", (long long)axis, rank);
  if (axis < 0) axis += rank;
  perm[0] = axis;
  for (int d = 0, k = 1; d < rank; d++)
    if (d != axis) perm[k++] = d, rest *= dims[d];
  int64_t shape2[2] = {dims[axis], rest};
  MlcAttr pa = attr("axes", mlc_onnx__av_ints(ctx, perm, rank)), ra = attr("shape", mlc_onnx__av_ints(ctx, shape2, 2));
  MlcGExpr *rows = with_attrs(n, "reshape", with_attrs(n, "permute_dims", x, 1, &pa), 1, &ra);
  MlcGExpr *cmp = rows ? mlc_onnx__emit1(n, "row_compare", rows) : NULL;
  MlcGExpr *zero = mlc_onnx__const(n, mlc_onnx__scalar(ctx, MLC_I64_T, 0));
  MlcGExpr *eq = cmp ? astype_i64(n, mlc_onnx__emit2(n, "equal", cmp, zero)) : NULL;
  MlcAttr ta = attr("k", mlc_onnx__av_int(-1));
  MlcGExpr *before = row_sum(n, with_attrs(n, "tril", eq, 1, &ta));
  MlcGExpr *first_b = before ? mlc_onnx__emit2(n, "equal", before, zero) : NULL;
  MlcGExpr *first = astype_i64(n, first_b);
  int64_t axis0 = 0;
  MlcAttr cs = attr("axis", mlc_onnx__av_int(0));
  MlcAttr sum[2] = {attr("axis", mlc_onnx__av_ints(ctx, &axis0, 1)), attr("keepdims", av_bool(true))};
  MlcGExpr *counts = with_attrs(n, "cumsum", first, 1, &cs), *total = with_attrs(n, "sum", first, 2, sum);
  MlcExpr *len;
  int k;
  if (!counts || !total || !mlc_onnx__runtime_shape(n, total, NULL, "values", &len, 1, &k)) return false;
  MlcGExpr *one = mlc_onnx__const(n, mlc_onnx__scalar(ctx, MLC_I64_T, 1)), *key;
  if (sorted) {
    MlcGExpr *less = astype_i64(n, mlc_onnx__emit2(n, "less", cmp, zero));
    key = row_sum(n, less ? mlc_onnx__emit2(n, "multiply", less, first) : NULL);
  } else {
    MlcAttr am[2] = {attr("axis", mlc_onnx__av_int(1)), attr("keepdims", av_bool(false))};
    key = mlc_onnx__emit2(n, "subtract", take0(n, counts, with_attrs(n, "argmax", eq, 2, am)), one);
  }
  MlcGExpr *none = mlc_onnx__const(n, mlc_onnx__scalar(ctx, MLC_I64_T, -1));
  MlcGExpr *wargs[3] = {first_b, key, none};
  MlcGExpr *rank_of = key ? mlc_onnx__emit(n, "where", wargs, 3, (MlcAttrs){0}) : NULL;
  MlcAttr qa[2] = {attr("axis", mlc_onnx__av_int(0)), attr("shape", mlc_onnx__av_exprs(ctx, &len, 1))};
  MlcGExpr *idx = with_attrs(n, "rank_positions", rank_of, 2, qa);
  MlcAttr xa = attr("axis", mlc_onnx__av_int(axis));
  MlcGExpr *targs[2] = {x, idx};
  MlcGExpr *y = idx ? mlc_onnx__emit_attrs(n, "take", targs, 2, 1, &xa) : NULL, *cnt = take0(n, row_sum(n, eq), idx);
  if (!y || !cnt) return false;
  n->out[0] = y, n->out[1] = idx, n->out[2] = key, n->out[3] = cnt;
  return true;
}

/* one part of unique_scan over the values `key` and their order */
static MlcGExpr *unique_part(MlcOnnxNode *n, MlcGExpr *key, MlcGExpr *order, bool sorted, const char *part, MlcExpr *len) {
  MlcCtx *ctx = n->im->ctx;
  MlcAttr a[3] = {attr("sorted", av_bool(sorted)), attr("part", mlc_onnx__av_str(ctx, part)),
                  attr("shape", mlc_onnx__av_exprs(ctx, &len, 1))};
  MlcGExpr *args[2] = {key, order};
  return key && order ? mlc_onnx__emit_attrs(n, "unique_scan", args, 2, len ? 3 : 2, a) : NULL;
}

/* Unique(x, sorted=1) of the flattened x: the distinct values (ascending,
 * or in the order they first occur), the index of each one's first
 * occurrence, each element's index among them and each one's count.  x's
 * indices are sorted by value (argsort, stable, NaN last), and unique_scan
 * (src/ops/scan_prim.c) walks that order once: equal neighbours share a
 * group, whose first member is its first occurrence; the number of groups
 * is read at run time and sizes the first indices and counts.  Every NaN
 * is distinct (NaN equals nothing); sorted, they come last in index order.
 * A bool x is ordered as int32. */
bool mlc_onnx__conv_unique(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t dims[MLC_ONNX_MAX_RANK], numel, sorted;
  int rank;
  if (!x || !static_dims(n, x, dims, &rank, &numel) || !mlc_onnx__attr_int(n, "sorted", 1, &sorted)) return false;
  if (mlc_onnx__attr(n, "axis")) return unique_axis(n, x, dims, rank, sorted != 0);
  MlcAttr flat = attr("shape", mlc_onnx__av_ints(ctx, &numel, 1));
  if (rank != 1 && !(x = with_attrs(n, "reshape", x, 1, &flat))) return false;
  MlcGExpr *key = x;
  if (mlc_onnx__dtype_of(x).code == MLC_TC_BOOL) {
    MlcAttr ca = attr("dtype", mlc_onnx__av_dtype(MLC_DT(MLC_TC_INT, 32, 1)));
    if (!(key = with_attrs(n, "astype", x, 1, &ca))) return false;
  }
  MlcExpr *all = mlc_e_int(ctx, MLC_I64_T, numel);
  MlcAttr sa[4] = {attr("axis", mlc_onnx__av_int(0)), attr("largest", av_bool(false)),
                   attr("shape", mlc_onnx__av_exprs(ctx, &all, 1)), attr("nan_last", av_bool(true))};
  MlcGExpr *order = with_attrs(n, "argsort", key, 4, sa);
  MlcGExpr *total = unique_part(n, key, order, sorted != 0, "total", NULL);
  MlcExpr *len;
  int k;
  if (!total || !mlc_onnx__runtime_shape(n, total, NULL, "values", &len, 1, &k)) return false;
  MlcGExpr *idx = unique_part(n, key, order, sorted != 0, "first", len);
  MlcGExpr *cnt = unique_part(n, key, order, sorted != 0, "count", len);
  MlcGExpr *inv = unique_part(n, key, order, sorted != 0, "inverse", NULL);
  MlcGExpr *y = take0(n, x, idx);
  if (!y || !cnt || !inv) return false;
  n->out[0] = y, n->out[1] = idx, n->out[2] = inv, n->out[3] = cnt;
  return true;
}
