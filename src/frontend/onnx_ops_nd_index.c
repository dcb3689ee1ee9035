/* onnx_ops_nd_index.c - converters of the N-dimensional indexing ops GatherND
 * and ScatterND and of ReverseSequence, composed of graph ops.
 *
 * An index tuple of GatherND / ScatterND addresses one row of the data seen
 * as a matrix [prod(leading dims), prod(the rest)]: the tuple's negative
 * entries are wrapped, the entries weighed by their strides and summed into
 * that row's number, which take (gather) or scatter_elements along axis 0
 * (scatter, with its reductions and its later-update-wins order) then use.
 * ReverseSequence is a gather_elements along the time axis by indices
 * computed from the run-time lengths. */
#include <string.h>

#include "onnx_convert.h"

#define MAX_RANK 32
#define MAX_CONST (1 << 22) /* elements of an index constant built at import */

static MlcGExpr *with_ints(MlcOnnxNode *n, const char *op, MlcGExpr *x, const char *key, const int64_t *v, int k) {
  MlcAttr a = attr(key, mlc_onnx__av_ints(n->im->ctx, v, k));
  return x ? mlc_onnx__emit_attrs(n, op, &x, 1, 1, &a) : NULL;
}

static MlcGExpr *astype(MlcOnnxNode *n, MlcGExpr *x, MlcDType t) {
  if (!x || mlc_dtype_eq(mlc_onnx__dtype_of(x), t)) return x;
  MlcAttr a = attr("dtype", mlc_onnx__av_dtype(t));
  return mlc_onnx__emit_attrs(n, "astype", &x, 1, 1, &a);
}

static MlcGExpr *i64_const(MlcOnnxNode *n, const int64_t *v, int k, const int64_t *shape, int nd) {
  MlcTensorData *d = mlc_tensor_data_new(n->im->ctx, MLC_I64_T, shape, nd);
  memcpy(d->data, v, sizeof *v * (size_t)k);
  return mlc_g_const(n->im->ctx, d);
}

static MlcGExpr *where(MlcOnnxNode *n, MlcGExpr *c, MlcGExpr *a, MlcGExpr *b) {
  MlcGExpr *args[3] = {c, a, b};
  return c && a && b ? mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}) : NULL;
}

/* the static dims of x into d (rank *r) */
static bool dims_of(MlcOnnxNode *n, const MlcGExpr *x, const char *what, int64_t *d, int *r) {
  *r = mlc_onnx__rank(x);
  if (*r < 0 || *r > MAX_RANK) return mlc_onnx__node_fail(n, "%s: a tensor of unknown rank is not supported", what);
  int64_t total = 1;
  for (int i = 0; i < *r; i++) {
    if (!mlc_onnx__const_dim(x, i, &d[i])) return mlc_onnx__node_fail(n, "%s: a symbolic size is not supported", what);
    if (d[i] && total > MLC_ONNX_MAX_NUMEL / d[i])
      return mlc_onnx__node_fail(n, "%s: more than %lld elements", what, (long long)MLC_ONNX_MAX_NUMEL);
    total *= d[i];
  }
  return true;
}

static bool int_indices(MlcOnnxNode *n, const MlcGExpr *idx, const char *what) {
  MlcDType t = mlc_onnx__dtype_of(idx);
  if (t.code == MLC_TC_INT && (t.bits == 32 || t.bits == 64)) return true;
  return mlc_onnx__node_fail(n, "%s must be int32 or int64", what);
}

static int64_t prod(const int64_t *d, int from, int to) {
  int64_t p = 1;
  for (int i = from; i < to; i++) p *= d[i];
  return p;
}

/* The row numbers of the index tuples idx [.., k] (the last axis) into data
 * dims dd whose dims [b, b + k) they address after b batch dims: an int64
 * tensor of idx's shape less its last axis. */
static MlcGExpr *row_numbers(MlcOnnxNode *n, MlcGExpr *idx, const int64_t *id, int ir, const int64_t *dd, int b) {
  int k = (int)id[ir - 1];
  int64_t dims[MAX_RANK], strides[MAX_RANK], beyond[MAX_RANK], kk = k;
  int64_t all_rows = prod(id, 0, b) * prod(dd, b, b + k); /* of every batch entry */
  for (int j = 0; j < k; j++) {
    dims[j] = dd[b + j], strides[j] = prod(dd, b + j + 1, b + k);
    beyond[j] = strides[j] ? all_rows / strides[j] : 0;
  }
  MlcGExpr *x = astype(n, idx, MLC_I64_T);
  MlcGExpr *dc = i64_const(n, dims, k, &kk, 1), *sc = i64_const(n, strides, k, &kk, 1);
  MlcGExpr *zero = mlc_g_const(n->im->ctx, mlc_onnx__scalar(n->im->ctx, MLC_I64_T, 0));
  x = where(n, mlc_onnx__emit2(n, "less", x, zero), mlc_onnx__emit2(n, "add", x, dc), x);
  /* An entry still outside its own dim would otherwise address another row
   * of the flattened data; it becomes a value whose row is past all rows,
   * so the take / scatter that uses it reports "index out of range" at run
   * time (and the products below cannot overflow). */
  MlcGExpr *outside = mlc_onnx__emit2(n, "logical_or", mlc_onnx__emit2(n, "less", x, zero),
                                      mlc_onnx__emit2(n, "greater_equal", x, dc));
  x = where(n, outside, i64_const(n, beyond, k, &kk, 1), x);
  int64_t last = ir - 1;
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_ints(n->im->ctx, &last, 1)), attr("keepdims", av_bool(false))};
  x = mlc_onnx__emit2(n, "multiply", x, sc);
  MlcGExpr *rows = x ? mlc_onnx__emit_attrs(n, "sum", &x, 1, 2, a) : NULL;
  if (b == 0 || !rows) return rows;
  /* plus the batch position times the rows of one batch entry */
  int64_t nb = prod(id, 0, b), per = prod(dd, b, b + k), shape[MAX_RANK];
  if (nb > MAX_CONST) return mlc_onnx__node_fail(n, "more than %d batch entries are not supported", MAX_CONST), NULL;
  int64_t *v = mlc_arena_array(&n->im->ctx->arena, (size_t)nb, sizeof *v);
  for (int64_t i = 0; i < nb; i++) v[i] = i * per;
  for (int i = 0; i < ir - 1; i++) shape[i] = i < b ? id[i] : 1;
  return mlc_onnx__emit2(n, "add", rows, i64_const(n, v, (int)nb, shape, ir - 1));
}

/* GatherND (opset 11 has no batch_dims; 12 added it) */
bool mlc_onnx__conv_gather_nd(MlcOnnxNode *n) {
  MlcGExpr *data = mlc_onnx__input(n, 0), *idx = mlc_onnx__input(n, 1);
  int64_t dd[MAX_RANK], id[MAX_RANK], b;
  int dr, ir;
  if (!data || !idx || !dims_of(n, data, "data", dd, &dr) || !dims_of(n, idx, "indices", id, &ir) ||
      !mlc_onnx__attr_int(n, "batch_dims", 0, &b) || !int_indices(n, idx, "indices"))
    return false;
  if (ir < 1) return mlc_onnx__node_fail(n, "indices must have rank 1 or more");
  int64_t k = id[ir - 1];
  if (b < 0 || b >= ir || b >= dr || k < 1 || b + k > dr)
    return mlc_onnx__node_fail(n, "indices of last dim %lld with %lld batch dims do not fit data of rank %d", (long long)k,
                               (long long)b, dr);
  for (int i = 0; i < b; i++)
    if (id[i] != dd[i]) return mlc_onnx__node_fail(n, "batch dim %d differs between data and indices", i);
  MlcGExpr *rows = row_numbers(n, idx, id, ir, dd, (int)b);
  int64_t flat[MAX_RANK];
  int nf = 0;
  flat[nf++] = prod(dd, 0, (int)(b + k));
  for (int i = (int)(b + k); i < dr; i++) flat[nf++] = dd[i];
  MlcGExpr *args[2] = {with_ints(n, "reshape", data, "shape", flat, nf), rows};
  /* "fast": a row out of range is a run-time error, not a clipped read */
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_int(0)), attr("mode", mlc_onnx__av_str(n->im->ctx, "fast"))};
  return args[0] && rows && (n->out[0] = mlc_onnx__emit_attrs(n, "take", args, 2, 2, a)) != NULL;
}

bool mlc_onnx__conv_scatter_nd(MlcOnnxNode *n) {
  MlcGExpr *data = mlc_onnx__input(n, 0), *idx = mlc_onnx__input(n, 1), *upd = mlc_onnx__input(n, 2);
  int64_t dd[MAX_RANK], id[MAX_RANK], ud[MAX_RANK];
  int dr, ir, ur;
  if (!data || !idx || !upd || !dims_of(n, data, "data", dd, &dr) || !dims_of(n, idx, "indices", id, &ir) ||
      !dims_of(n, upd, "updates", ud, &ur) || !int_indices(n, idx, "indices"))
    return false;
  const char *red = mlc_onnx__attr_str(n, "reduction", "none");
  if (!red) red = "none";
  if (strcmp(red, "none") && strcmp(red, "add") && strcmp(red, "mul") && strcmp(red, "max") && strcmp(red, "min"))
    return mlc_onnx__node_fail(n, "reduction '%s' is not supported", red);
  if (ir < 1) return mlc_onnx__node_fail(n, "indices must have rank 1 or more");
  int64_t k = id[ir - 1];
  if (k < 1 || k > dr) return mlc_onnx__node_fail(n, "index tuples of %lld entries do not fit data of rank %d", (long long)k, dr);
  /* updates: indices' shape less its last axis, then data's dims after k */
  bool fits = ur == ir - 1 + dr - (int)k;
  for (int i = 0; fits && i < ur; i++) fits = ud[i] == (i < ir - 1 ? id[i] : dd[k + i - (ir - 1)]);
  if (!fits) return mlc_onnx__node_fail(n, "the updates' shape does not match indices and data");
  int64_t u = prod(id, 0, ir - 1), rows = prod(dd, 0, (int)k), width = prod(dd, (int)k, dr);
  MlcGExpr *rn = row_numbers(n, idx, id, ir, dd, 0);
  int64_t s2[2] = {u, 1}, b2[2] = {u, width}, d2[2] = {rows, width};
  MlcGExpr *ix = with_ints(n, "broadcast_to", with_ints(n, "reshape", rn, "shape", s2, 2), "shape", b2, 2);
  MlcGExpr *args[3] = {with_ints(n, "reshape", data, "shape", d2, 2), ix, with_ints(n, "reshape", upd, "shape", b2, 2)};
  if (!args[0] || !args[1] || !args[2]) return false;
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_int(0)), attr("reduction", mlc_onnx__av_str(n->im->ctx, red))};
  MlcGExpr *y = mlc_onnx__emit_attrs(n, "scatter_elements", args, 3, 2, a);
  return y && (n->out[0] = with_ints(n, "reshape", y, "shape", dd, dr)) != NULL;
}

/* y[b, t] = x[b, len[b] - 1 - t] for t < len[b], else x[b, t] (along the
 * batch and time axes; the other axes ride along) */
bool mlc_onnx__conv_reverse_sequence(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *lens = mlc_onnx__input(n, 1);
  int64_t xd[MAX_RANK], ba, ta;
  int xr;
  if (!x || !lens || !dims_of(n, x, "input", xd, &xr) || !mlc_onnx__attr_int(n, "batch_axis", 1, &ba) ||
      !mlc_onnx__attr_int(n, "time_axis", 0, &ta))
    return false;
  if (xr < 2 || !((ba == 0 && ta == 1) || (ba == 1 && ta == 0)))
    return mlc_onnx__node_fail(n, "batch_axis and time_axis must be 0 and 1 (in either order) of a rank 2+ input");
  if (mlc_onnx__rank(lens) != 1) return mlc_onnx__node_fail(n, "sequence_lens must be a vector");
  if (!int_indices(n, lens, "sequence_lens")) return false;
  int64_t t_n = xd[ta];
  if (t_n > MAX_CONST) return mlc_onnx__node_fail(n, "more than %d time steps are not supported", MAX_CONST);
  int64_t *iota = mlc_arena_array(&n->im->ctx->arena, (size_t)(t_n ? t_n : 1), sizeof *iota);
  for (int64_t i = 0; i < t_n; i++) iota[i] = i;
  /* t and len shaped to broadcast over (batch, time) in the input's order */
  int64_t ts[2] = {1, 1}, ls[2] = {1, 1};
  ts[ta] = t_n, ls[ba] = xd[ba];
  MlcGExpr *t = i64_const(n, iota, (int)t_n, ts, 2);
  MlcGExpr *len = with_ints(n, "reshape", astype(n, lens, MLC_I64_T), "shape", ls, 2);
  MlcGExpr *one = mlc_g_const(n->im->ctx, mlc_onnx__scalar(n->im->ctx, MLC_I64_T, 1));
  MlcGExpr *rev = mlc_onnx__emit2(n, "subtract", mlc_onnx__emit2(n, "subtract", len, one), t);
  MlcGExpr *idx = where(n, mlc_onnx__emit2(n, "less", t, len), rev, t);
  /* over the remaining axes too */
  int64_t full[MAX_RANK];
  for (int i = 0; i < xr; i++) full[i] = i < 2 ? xd[i] : 1;
  idx = with_ints(n, "reshape", idx, "shape", full, xr);
  idx = with_ints(n, "broadcast_to", idx, "shape", xd, xr);
  MlcGExpr *args[2] = {x, idx};
  MlcAttr a = attr("axis", mlc_onnx__av_int(ta));
  return idx && (n->out[0] = mlc_onnx__emit_attrs(n, "gather_elements", args, 2, 1, &a)) != NULL;
}
