/* onnx_ops_indexing.c - converters of ONNX's data movement by index: Pad,
 * Tile, GatherElements, ScatterElements (and the older Scatter), OneHot,
 * EyeLike and Trilu.
 *
 * Pads, OneHot's depth and values and EyeLike's shape must be
 * known at compile time; Tile's repeats computed at run time are read when
 * the model runs (tile_to_shape); a Trilu k computed at run time is
 * compared with a constant matrix of diagonal offsets. */
#include <math.h>
#include <string.h>

#include "onnx_convert.h"

/* the node's optional input i, NULL when omitted */
static MlcGExpr *opt_input(MlcOnnxNode *n, int i) { return i < n->n_in ? n->in[i] : NULL; }

/* the compile-time value of input i, NULL when absent or computed at run time */
static const MlcTensorData *known_data(MlcOnnxNode *n, int i) {
  if (!opt_input(n, i)) return NULL;
  if (n->known_in[i]) return n->known_in[i];
  return n->in[i]->kind == MLC_G_CONST ? n->in[i]->constant : NULL;
}

/* input i's values as doubles (float or int tensor known at compile time);
 * *count -1 when the input is omitted */
static bool known_floats(MlcOnnxNode *n, int i, double *out, int cap, int *count) {
  *count = -1;
  if (!opt_input(n, i)) return true;
  const MlcTensorData *d = known_data(n, i);
  if (!d) return mlc_onnx__node_fail(n, "input %d computed at run time is not supported (it must be known at compile time)", i);
  int64_t k = mlc_tensor_data_numel(d);
  if (k > cap) return mlc_onnx__node_fail(n, "input %d has %lld values, at most %d are supported", i, (long long)k, cap);
  MlcDType t = d->dtype;
  for (int64_t j = 0; j < k; j++) {
    if (t.code == MLC_TC_FLOAT && t.bits == 32) out[j] = ((const float *)d->data)[j];
    else if (t.code == MLC_TC_FLOAT && t.bits == 64) out[j] = ((const double *)d->data)[j];
    else if (t.code == MLC_TC_INT && t.bits == 64) out[j] = (double)((const int64_t *)d->data)[j];
    else if (t.code == MLC_TC_INT && t.bits == 32) out[j] = ((const int32_t *)d->data)[j];
    else return mlc_onnx__node_fail(n, "input %d: this dtype is not supported here", i);
  }
  *count = (int)k;
  return true;
}

/* ints of x's static dims; false + error when one is symbolic */
static bool static_dims(MlcOnnxNode *n, const MlcGExpr *x, int rank, int64_t *dims) {
  for (int i = 0; i < rank; i++)
    if (!mlc_onnx__const_dim(x, i, &dims[i])) return mlc_onnx__node_fail(n, "symbolic input dims are not supported");
  return true;
}

static MlcGExpr *emit_ints(MlcOnnxNode *n, const char *op, MlcGExpr *x, const char *key, const int64_t *v, int k) {
  MlcAttr a = attr(key, mlc_onnx__av_ints(n->im->ctx, v, k));
  return x ? mlc_onnx__emit_attrs(n, op, &x, 1, 1, &a) : NULL;
}

/* a scalar constant of x's dtype */
static MlcGExpr *k(MlcOnnxNode *n, const MlcGExpr *x, double v) { return mlc_onnx__scalar_like(n, x, v); }

static bool set_out(MlcOnnxNode *n, MlcGExpr *y) { return (n->out[0] = y) != NULL; }

static MlcGExpr *where(MlcOnnxNode *n, MlcGExpr *c, MlcGExpr *t, MlcGExpr *f) {
  MlcGExpr *args[3] = {c, t, f};
  return c && t && f ? mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}) : NULL;
}

static bool is_known(const MlcOnnxNode *n, int i) {
  return i < n->n_in && n->in[i] && (n->known_in[i] || n->in[i]->kind == MLC_G_CONST);
}

/* ---- Pad ----------------------------------------------------------------------------------- */

bool mlc_onnx__conv_pad(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int rank, k, na = -1;
  int64_t pads[2 * MLC_ONNX_MAX_RANK], axes[MLC_ONNX_MAX_RANK], full[2 * MLC_ONNX_MAX_RANK] = {0};
  double value = 0;
  bool present = false;
  if (!x || !need_rank(n, x, &rank)) return false;
  const char *mode = mlc_onnx__attr_str(n, "mode", "constant");
  if (strcmp(mode, "constant") && strcmp(mode, "edge") && strcmp(mode, "reflect") && strcmp(mode, "wrap"))
    return mlc_onnx__node_fail(n, "mode '%s' is not supported", mode);
  if (n->opset >= 11 && (!mlc_onnx__known_or_absent(n, 1) || !mlc_onnx__known_or_absent(n, 2) ||
                         !mlc_onnx__known_or_absent(n, 3)))
    return mlc_onnx__pad_runtime(n, x, rank, mode);
  if (n->opset < 11) {
    if (!mlc_onnx__attr_ints(n, "pads", pads, 2 * MLC_ONNX_MAX_RANK, &k) || !mlc_onnx__attr_float(n, "value", 0, &value))
      return false;
  } else if (!mlc_onnx__known_ints(n, 1, pads, 2 * MLC_ONNX_MAX_RANK, &k) || !mlc_onnx__known_scalar(n, 2, &value, &present) ||
             (n->opset >= 18 && !mlc_onnx__known_ints(n, 3, axes, MLC_ONNX_MAX_RANK, &na))) {
    return false;
  }
  if (na < 0) {
    na = rank;
    for (int i = 0; i < rank; i++) axes[i] = i;
  }
  if (k != 2 * na) return mlc_onnx__node_fail(n, "pads has %d values, expected %d", k, 2 * na);
  for (int i = 0; i < na; i++) {
    int64_t ax = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (ax < 0 || ax >= rank) return mlc_onnx__node_fail(n, "axis %lld is out of range", (long long)axes[i]);
    full[ax] = pads[i], full[rank + ax] = pads[na + i];
  }
  MlcAttr a[3] = {attr("pad_width", mlc_onnx__av_ints(ctx, full, 2 * rank)), attr("pad_value", mlc_onnx__av_float(value)),
                  attr("pad_mode", mlc_onnx__av_str(ctx, mode))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "nn.pad", &x, 1, 3, a)) != NULL;
}

/* ---- Tile, GatherElements, ScatterElements, OneHot ------------------------------------------- */

bool mlc_onnx__conv_tile(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t reps[MLC_ONNX_MAX_RANK];
  int k, rank;
  if (!x || !need_rank(n, x, &rank)) return false;
  if (!mlc_onnx__known_or_absent(n, 1)) { /* repeats read when the model runs: x tiled to the shape they make */
    MlcExpr *dims[MLC_ONNX_MAX_RANK];
    int64_t len;
    if (mlc_onnx__rank(n->in[1]) == 1 && mlc_onnx__const_dim(n->in[1], 0, &len) && len != rank)
      return mlc_onnx__node_fail(n, "repeats has %lld values, the input has rank %d", (long long)len, rank);
    if (!mlc_onnx__runtime_shape(n, n->in[1], x, "tile", dims, MLC_ONNX_MAX_RANK, &k)) return false;
    MlcAttr a = attr("shape", mlc_onnx__av_exprs(n->im->ctx, dims, k));
    return (n->out[0] = mlc_onnx__emit_attrs(n, "tile_to_shape", &x, 1, 1, &a)) != NULL;
  }
  if (!mlc_onnx__known_ints(n, 1, reps, MLC_ONNX_MAX_RANK, &k)) return false;
  if (k != rank) return mlc_onnx__node_fail(n, "repeats has %d values, the input has rank %d", k, rank);
  return (n->out[0] = emit_ints(n, "tile", x, "repeats", reps, k)) != NULL;
}

bool mlc_onnx__conv_gather_elements(MlcOnnxNode *n) {
  MlcGExpr *args[2] = {mlc_onnx__input(n, 0), mlc_onnx__input(n, 1)};
  int64_t axis;
  if (!args[0] || !args[1] || !mlc_onnx__attr_int(n, "axis", 0, &axis)) return false;
  MlcAttr a = attr("axis", mlc_onnx__av_int(axis));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "gather_elements", args, 2, 1, &a)) != NULL;
}

bool mlc_onnx__conv_scatter_elements(MlcOnnxNode *n) {
  MlcGExpr *args[3] = {mlc_onnx__input(n, 0), mlc_onnx__input(n, 1), mlc_onnx__input(n, 2)};
  int64_t axis;
  if (!args[0] || !args[1] || !args[2] || !mlc_onnx__attr_int(n, "axis", 0, &axis)) return false;
  const char *red = mlc_onnx__attr_str(n, "reduction", "none");
  if (strcmp(red, "none") && strcmp(red, "add") && strcmp(red, "mul") && strcmp(red, "max") && strcmp(red, "min"))
    return mlc_onnx__node_fail(n, "reduction '%s' is not supported", red);
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_int(axis)), attr("reduction", mlc_onnx__av_str(n->im->ctx, red))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "scatter_elements", args, 3, 2, a)) != NULL;
}

bool mlc_onnx__conv_onehot(MlcOnnxNode *n) {
  MlcGExpr *ind = mlc_onnx__input(n, 0);
  double depth, vals[2];
  bool present;
  int k;
  int64_t axis;
  if (ind && n->n_in == 3 && n->in[1] && n->in[2] &&
      (!mlc_onnx__known_or_absent(n, 1) || !mlc_onnx__known_or_absent(n, 2)))
    return mlc_onnx__attr_int(n, "axis", -1, &axis) && mlc_onnx__onehot_runtime(n, ind, axis);
  if (!ind || !mlc_onnx__input(n, 1) || !mlc_onnx__input(n, 2) || !mlc_onnx__known_scalar(n, 1, &depth, &present) ||
      !known_floats(n, 2, vals, 2, &k) || !mlc_onnx__attr_int(n, "axis", -1, &axis))
    return false;
  if (k != 2) return mlc_onnx__node_fail(n, "values must hold 2 elements (off, on), got %d", k);
  MlcDType t = mlc_onnx__dtype_of(n->in[2]);
  if (!mlc_dtype_is_int(mlc_onnx__dtype_of(ind))) {
    MlcAttr c = attr("dtype", mlc_onnx__av_dtype(MLC_I64_T));
    if (!(ind = mlc_onnx__emit_attrs(n, "astype", &ind, 1, 1, &c))) return false;
  }
  MlcAttr a[5] = {attr("depth", mlc_onnx__av_int((int64_t)depth)), attr("on_value", mlc_onnx__av_float(vals[1])),
                  attr("off_value", mlc_onnx__av_float(vals[0])), attr("axis", mlc_onnx__av_int(axis)),
                  attr("dtype", mlc_onnx__av_dtype(t))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "one_hot", &ind, 1, 5, a)) != NULL;
}

/* ---- EyeLike ---------------------------------------------------------------------------------------------- */

/* a float64 constant cast to the wanted dtype; the cast folds at import */
bool mlc_onnx__conv_eyelike(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t dims[2], k, dt;
  int rank;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "k", 0, &k) || !mlc_onnx__attr_int(n, "dtype", -1, &dt))
    return false;
  if (rank != 2) return mlc_onnx__node_fail(n, "expects a 2-D input");
  if (!static_dims(n, x, 2, dims)) return false;
  if (dims[0] * dims[1] > ((int64_t)1 << 24)) return mlc_onnx__node_fail(n, "a constant this large is not supported");
  MlcDType t = mlc_onnx__dtype_of(x);
  if (dt >= 0 && !mlc_onnx__dtype((int32_t)dt, &t)) return mlc_onnx__node_fail(n, "dtype %lld is not supported", (long long)dt);
  MlcTensorData *d = mlc_arena_alloc(&ctx->arena, sizeof *d);
  d->dtype = MLC_F64;
  d->ndim = 2;
  d->shape = mlc_arena_array(&ctx->arena, 2, sizeof(int64_t));
  d->shape[0] = dims[0], d->shape[1] = dims[1];
  d->nbytes = (size_t)(dims[0] * dims[1]) * sizeof(double);
  double *v = mlc_arena_array(&ctx->arena, (size_t)(dims[0] * dims[1] > 0 ? dims[0] * dims[1] : 1), sizeof(double));
  for (int64_t i = 0; i < dims[0]; i++)
    for (int64_t j = 0; j < dims[1]; j++) v[i * dims[1] + j] = j - i == k ? 1.0 : 0.0;
  d->data = v;
  MlcGExpr *c = mlc_onnx__const(n, d);
  MlcAttr a = attr("dtype", mlc_onnx__av_dtype(t));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "astype", &c, 1, 1, &a)) != NULL;
}

/* ---- Trilu ----------------------------------------------------------------------------------- */

/* column - row of an r x c matrix, as an int64 constant */
static MlcGExpr *diagonal_offsets(MlcOnnxNode *n, int64_t r, int64_t c) {
  MlcCtx *ctx = n->im->ctx;
  MlcTensorData *d = mlc_onnx__i64s(ctx, NULL, 0);
  d->ndim = 2;
  d->shape = mlc_arena_array(&ctx->arena, 2, sizeof(int64_t));
  d->shape[0] = r, d->shape[1] = c;
  d->nbytes = (size_t)(r * c) * sizeof(int64_t);
  d->data = mlc_arena_alloc(&ctx->arena, d->nbytes ? d->nbytes : 1);
  for (int64_t i = 0; i < r; i++)
    for (int64_t j = 0; j < c; j++) ((int64_t *)d->data)[i * c + j] = j - i;
  return mlc_g_const(ctx, d);
}

/* k computed at run time: compare a constant offsets matrix with it */
static bool trilu_runtime_k(MlcOnnxNode *n, MlcGExpr *x, bool upper) {
  int rank = mlc_onnx__rank(x);
  int64_t r, c;
  if (rank < 2 || !mlc_onnx__const_dim(x, rank - 2, &r) || !mlc_onnx__const_dim(x, rank - 1, &c) || r * c > (1 << 24))
    return mlc_onnx__node_fail(n, "a run-time k with symbolic, huge or missing matrix dims is not supported");
  MlcGExpr *kk = n->in[1];
  if (!mlc_dtype_eq(mlc_onnx__dtype_of(kk), MLC_I64_T)) return mlc_onnx__node_fail(n, "input 1 (k) must be int64");
  MlcGExpr *mask = mlc_onnx__emit2(n, upper ? "greater_equal" : "less_equal", diagonal_offsets(n, r, c), kk);
  return set_out(n, where(n, mask, x, k(n, x, 0)));
}

bool mlc_onnx__conv_trilu(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t upper, kk = 0;
  int nk;
  if (!x || !mlc_onnx__attr_int(n, "upper", 1, &upper)) return false;
  if (n->n_in > 1 && n->in[1] && !is_known(n, 1)) return trilu_runtime_k(n, x, upper != 0);
  if (!mlc_onnx__known_ints(n, 1, &kk, 1, &nk)) return false;
  if (nk == 0) return mlc_onnx__node_fail(n, "input 1 (k) is empty, expected one value");
  MlcAttr a = attr("k", mlc_onnx__av_int(nk < 0 ? 0 : kk));
  return set_out(n, mlc_onnx__emit_attrs(n, upper ? "triu" : "tril", &x, 1, 1, &a));
}
