/* onnx_ops_shape.c - converters of ONNX's shape, indexing, constant and
 * type ops, and of the depth/space shuffles (DepthToSpace, SpaceToDepth: a
 * reshape, a transpose and a reshape).  Most take their "attributes" as
 * inputs in newer opsets (shape of Reshape, axes of Squeeze, starts/ends of
 * Slice): those must be known at compile time -- constants, or folded
 * (onnx_util.c) -- and a computed one is reported as not supported, except
 * the shapes of Reshape, Expand and ConstantOfShape, the axes of Squeeze
 * and Unsqueeze, the sizes of Split and Slice's lists, which are read when
 * the model runs
 * (mlc_onnx__runtime_shape). */
#include <math.h>
#include <string.h>

#include "onnx_convert.h"

#define MAX_CONST_NUMEL ((int64_t)1 << 24)


static MlcExpr *dim_expr(const MlcGExpr *x, int d) {
  const MlcSInfo *s = mlc_onnx__tensor_sinfo(x);
  return s && s->tensor.shape && d < s->tensor.ndim ? s->tensor.shape[d] : NULL;
}

static MlcExpr *mul_dims(MlcCtx *ctx, MlcExpr *a, MlcExpr *b) {
  int64_t x, y;
  if (mlc_e_is_const_int(a, &x) && mlc_e_is_const_int(b, &y)) return mlc_e_int(ctx, MLC_I64_T, x * y);
  return mlc_e_bin(ctx, MLC_BIN_MUL, a, b);
}

/* ---- reshaping -------------------------------------------------------------------------- */

bool mlc_onnx__conv_reshape(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t shape[MLC_ONNX_MAX_RANK], allowzero = 0;
  int k, rank;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "allowzero", 0, &allowzero)) return false;
  if (!mlc_onnx__known_or_absent(n, 1)) { /* the shape is read when the model runs */
    MlcExpr *dims[MLC_ONNX_MAX_RANK];
    const char *mode = allowzero ? "reshape_allowzero" : "reshape";
    if (!mlc_onnx__runtime_shape(n, mlc_onnx__input(n, 1), x, mode, dims, MLC_ONNX_MAX_RANK, &k)) return false;
    MlcAttr a = attr("shape", mlc_onnx__av_exprs(ctx, dims, k));
    return (n->out[0] = mlc_onnx__emit_attrs(n, "reshape_dynamic", &x, 1, 1, &a)) != NULL;
  }
  if (!mlc_onnx__known_ints(n, 1, shape, MLC_ONNX_MAX_RANK, &k)) return false;
  if (k < 0) return mlc_onnx__node_fail(n, "the shape input is missing");
  MlcExpr *dims[MLC_ONNX_MAX_RANK];
  for (int i = 0; i < k; i++) {
    if (shape[i] == 0 && !allowzero) {
      if (i >= rank) return mlc_onnx__node_fail(n, "shape[%d] = 0 copies a dim the input does not have", i);
      dims[i] = dim_expr(x, i);
    } else {
      dims[i] = mlc_e_int(ctx, MLC_I64_T, shape[i]);
    }
  }
  MlcAttr a = attr("shape", mlc_onnx__av_exprs(ctx, dims, k));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "reshape", &x, 1, 1, &a)) != NULL;
}

bool mlc_onnx__conv_flatten(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t axis;
  int rank;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "axis", 1, &axis)) return false;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return mlc_onnx__node_fail(n, "axis %lld is out of range for rank %d", (long long)axis, rank);
  MlcExpr *d[2] = {mlc_e_int(ctx, MLC_I64_T, 1), mlc_e_int(ctx, MLC_I64_T, 1)};
  for (int i = 0; i < rank; i++) {
    MlcExpr *e = dim_expr(x, i);
    if (!e) return mlc_onnx__node_fail(n, "input dims unknown");
    d[i >= axis] = mul_dims(ctx, d[i >= axis], e);
  }
  MlcAttr a = attr("shape", mlc_onnx__av_exprs(ctx, d, 2));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "reshape", &x, 1, 1, &a)) != NULL;
}

bool mlc_onnx__conv_transpose(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t perm[MLC_ONNX_MAX_RANK];
  int k, rank;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_ints(n, "perm", perm, MLC_ONNX_MAX_RANK, &k)) return false;
  if (k < 0)
    for (k = 0; k < rank; k++) perm[k] = rank - 1 - k;
  MlcAttr a = attr("axes", mlc_onnx__av_ints(n->im->ctx, perm, k));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "permute_dims", &x, 1, 1, &a)) != NULL;
}

/* x given the shape input 1 makes of its dims when the model runs (axes of
 * Squeeze and Unsqueeze): a copy into a tensor of that shape */
static bool reshape_at_run_time(MlcOnnxNode *n, MlcGExpr *x, const char *mode) {
  MlcExpr *dims[MLC_ONNX_MAX_RANK];
  int k;
  if (!mlc_onnx__runtime_shape(n, mlc_onnx__input(n, 1), x, mode, dims, MLC_ONNX_MAX_RANK, &k)) return false;
  MlcAttr a = attr("shape", mlc_onnx__av_exprs(n->im->ctx, dims, k));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "reshape_dynamic", &x, 1, 1, &a)) != NULL;
}

bool mlc_onnx__conv_squeeze(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t axes[MLC_ONNX_MAX_RANK];
  int k;
  if (x && n->opset >= 13 && !mlc_onnx__known_or_absent(n, 1)) return reshape_at_run_time(n, x, "squeeze");
  if (!x || !mlc_onnx__ints_attr_or_input(n, "axes", 13, 1, axes, MLC_ONNX_MAX_RANK, &k)) return false;
  MlcAttr a = attr("axis", mlc_onnx__av_ints(n->im->ctx, axes, k));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "squeeze", &x, 1, k < 0 ? 0 : 1, &a)) != NULL;
}

bool mlc_onnx__conv_unsqueeze(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t axes[MLC_ONNX_MAX_RANK];
  int k;
  if (x && n->opset >= 13 && !mlc_onnx__known_or_absent(n, 1)) return reshape_at_run_time(n, x, "unsqueeze");
  if (!x || !mlc_onnx__ints_attr_or_input(n, "axes", 13, 1, axes, MLC_ONNX_MAX_RANK, &k)) return false;
  if (k < 0) return mlc_onnx__node_fail(n, "axes are missing");
  MlcAttr a = attr("axis", mlc_onnx__av_ints(n->im->ctx, axes, k));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "expand_dims", &x, 1, 1, &a)) != NULL;
}

bool mlc_onnx__conv_expand(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t shape[MLC_ONNX_MAX_RANK];
  int k, rank;
  if (!x || !need_rank(n, x, &rank)) return false;
  if (!mlc_onnx__known_or_absent(n, 1)) { /* the shape is read when the model runs, broadcast there */
    MlcExpr *dims[MLC_ONNX_MAX_RANK];
    if (!mlc_onnx__runtime_shape(n, mlc_onnx__input(n, 1), x, "expand", dims, MLC_ONNX_MAX_RANK, &k)) return false;
    MlcAttr a = attr("shape", mlc_onnx__av_exprs(ctx, dims, k));
    return (n->out[0] = mlc_onnx__emit_attrs(n, "broadcast_to", &x, 1, 1, &a)) != NULL;
  }
  if (!mlc_onnx__known_ints(n, 1, shape, MLC_ONNX_MAX_RANK, &k)) return false;
  if (k < 0) return mlc_onnx__node_fail(n, "the shape input is missing");
  /* ONNX broadcasts both ways: the result has the larger rank, and a 1 in
   * the requested shape keeps the input's dim */
  int out_rank = k > rank ? k : rank;
  MlcExpr *dims[MLC_ONNX_MAX_RANK];
  for (int i = 0; i < out_rank; i++) {
    int xi = i - (out_rank - rank), si = i - (out_rank - k);
    MlcExpr *xd = xi >= 0 ? dim_expr(x, xi) : NULL;
    int64_t sv = si >= 0 ? shape[si] : 1;
    if (sv == 1 && xd) dims[i] = xd;
    else dims[i] = mlc_e_int(ctx, MLC_I64_T, sv);
  }
  MlcAttr a = attr("shape", mlc_onnx__av_exprs(ctx, dims, out_rank));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "broadcast_to", &x, 1, 1, &a)) != NULL;
}

/* ---- joining, splitting, slicing ----------------------------------------------------------- */

bool mlc_onnx__conv_concat(MlcOnnxNode *n) {
  int64_t axis;
  if (!mlc_onnx__attr_int(n, "axis", 0, &axis)) return false;
  if (n->n_in < 1) return mlc_onnx__node_fail(n, "no inputs");
  for (int i = 0; i < n->n_in; i++)
    if (!mlc_onnx__input(n, i)) return false;
  MlcGExpr *t = mlc_g_tuple(n->im->ctx, n->in, n->n_in);
  MlcAttr a = attr("axis", mlc_onnx__av_int(axis));
  return t && (n->out[0] = mlc_onnx__emit_attrs(n, "concat", &t, 1, 1, &a)) != NULL;
}

/* Split with sizes read when the model runs: tensor_to_shape "split" binds
 * (and checks) the parts' dims, split_part copies each part */
static bool split_runtime(MlcOnnxNode *n, MlcGExpr *x, int rank, int64_t axis) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *sz = mlc_onnx__input(n, 1);
  int64_t len;
  if (!sz) return false;
  MlcDType dt = mlc_onnx__dtype_of(sz);
  if (mlc_onnx__rank(sz) != 1 || !mlc_onnx__const_dim(sz, 0, &len) || dt.code != MLC_TC_INT ||
      (dt.bits != 32 && dt.bits != 64))
    return mlc_onnx__node_fail(n, "split sizes computed at run time must be a 1-D int32 or int64 tensor of static length");
  if (len != n->n_out) return mlc_onnx__node_fail(n, "%lld split sizes for %d outputs", (long long)len, n->n_out);
  MlcExpr *parts[MLC_ONNX_MAX_IO], *dims[MLC_ONNX_MAX_RANK];
  for (int i = 0; i < n->n_out; i++)
    parts[i] = mlc_e_var(ctx, mlc_internf(ctx, "r%u", n->im->fresh++), MLC_DT(MLC_TC_INT, 64, 1));
  MlcGExpr *args[2] = {sz, x};
  MlcAttr ta[3] = {attr("shape", mlc_onnx__av_exprs(ctx, parts, n->n_out)), attr("mode", mlc_onnx__av_str(ctx, "split")),
                   attr("axis", mlc_onnx__av_int(axis))};
  if (!mlc_onnx__emit_attrs(n, "tensor_to_shape", args, 2, 3, ta)) return false;
  for (int d = 0; d < rank; d++) dims[d] = dim_expr(x, d);
  for (int i = 0; i < n->n_out; i++) {
    dims[axis] = parts[i];
    MlcAttr pa[3] = {attr("shape", mlc_onnx__av_exprs(ctx, dims, rank)), attr("axis", mlc_onnx__av_int(axis)),
                     attr("index", mlc_onnx__av_int(i))};
    MlcGExpr *xs[2] = {x, sz};
    if (!(n->out[i] = mlc_onnx__emit_attrs(n, "split_part", xs, 2, 3, pa))) return false;
  }
  return true;
}

bool mlc_onnx__conv_split(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t axis, sizes[MLC_ONNX_MAX_IO], dim;
  int k, rank;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "axis", 0, &axis)) return false;
  if (n->n_out < 1) return mlc_onnx__node_fail(n, "no outputs");
  if (axis < -rank || axis >= rank) return mlc_onnx__node_fail(n, "axis %lld is out of range for rank %d", (long long)axis, rank);
  if (axis < 0) axis += rank;
  if (n->opset >= 13 && !mlc_onnx__known_or_absent(n, 1)) return split_runtime(n, x, rank, axis);
  if (!mlc_onnx__ints_attr_or_input(n, "split", 13, 1, sizes, MLC_ONNX_MAX_IO, &k)) return false;
  MlcAttr a[2];
  a[1] = attr("axis", mlc_onnx__av_int(axis));
  if (k >= 0) {
    if (k != n->n_out) return mlc_onnx__node_fail(n, "%d split sizes for %d outputs", k, n->n_out);
    int64_t idx[MLC_ONNX_MAX_IO], at = 0;
    for (int i = 0; i + 1 < k; i++) {
      if (sizes[i] < 0 || sizes[i] > INT32_MAX) return mlc_onnx__node_fail(n, "split size %lld is out of range", (long long)sizes[i]);
      idx[i] = at += sizes[i];
    }
    a[0] = attr("indices_or_sections", mlc_onnx__av_ints(n->im->ctx, idx, k - 1));
  } else {
    int64_t parts = n->n_out, num_outputs;
    if (!mlc_onnx__attr_int(n, "num_outputs", parts, &num_outputs)) return false;
    if (num_outputs != n->n_out) return mlc_onnx__node_fail(n, "num_outputs %lld differs from the %d outputs", (long long)num_outputs, n->n_out);
    /* opset 18: the last part may be smaller when the dim does not divide */
    if (mlc_onnx__const_dim(x, (int)axis, &dim) && dim % parts != 0) {
      int64_t chunk = (dim + parts - 1) / parts, idx[MLC_ONNX_MAX_IO];
      for (int i = 0; i + 1 < parts; i++) idx[i] = chunk * (i + 1);
      a[0] = attr("indices_or_sections", mlc_onnx__av_ints(n->im->ctx, idx, (int)parts - 1));
    } else {
      a[0] = attr("indices_or_sections", mlc_onnx__av_int(parts));
    }
  }
  MlcGExpr *t = mlc_onnx__emit_attrs(n, "split", &x, 1, 2, a);
  if (!t) return false;
  for (int i = 0; i < n->n_out; i++) n->out[i] = mlc_onnx__item(n, t, i);
  return true;
}

bool mlc_onnx__conv_slice(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t starts[MLC_ONNX_MAX_RANK], ends[MLC_ONNX_MAX_RANK], axes[MLC_ONNX_MAX_RANK], steps[MLC_ONNX_MAX_RANK];
  int ks, ke, ka, kt, rank;
  if (!x || !need_rank(n, x, &rank)) return false;
  for (int i = 1; i <= 4; i++)
    if (!mlc_onnx__known_or_absent(n, i)) return mlc_onnx__slice_runtime(n, x, rank);
  if (!mlc_onnx__known_ints(n, 1, starts, MLC_ONNX_MAX_RANK, &ks) ||
      !mlc_onnx__known_ints(n, 2, ends, MLC_ONNX_MAX_RANK, &ke) || !mlc_onnx__known_ints(n, 3, axes, MLC_ONNX_MAX_RANK, &ka) ||
      !mlc_onnx__known_ints(n, 4, steps, MLC_ONNX_MAX_RANK, &kt))
    return false;
  if (ks < 0 || ke != ks) return mlc_onnx__node_fail(n, "starts and ends must be given, of one length");
  if (ka < 0)
    for (ka = 0; ka < ks; ka++) axes[ka] = ka;
  if (kt < 0)
    for (kt = 0; kt < ks; kt++) steps[kt] = 1;
  if (ka != ks || kt != ks) return mlc_onnx__node_fail(n, "axes and steps must match starts in length");
  MlcCtx *ctx = n->im->ctx;
  MlcAttr a[4] = {attr("axes", mlc_onnx__av_ints(ctx, axes, ka)), attr("begin", mlc_onnx__av_ints(ctx, starts, ks)),
                  attr("end", mlc_onnx__av_ints(ctx, ends, ke)), attr("strides", mlc_onnx__av_ints(ctx, steps, kt))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "strided_slice", &x, 1, 4, a)) != NULL;
}

bool mlc_onnx__conv_gather(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0), *idx = mlc_onnx__input(n, 1);
  int64_t axis, dim;
  int rank;
  if (!x || !idx || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "axis", 0, &axis)) return false;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return mlc_onnx__node_fail(n, "axis is out of range for rank %d", rank);
  /* negative indices count from the end: add the dim where they are negative */
  if (!mlc_onnx__const_dim(x, (int)axis, &dim)) return mlc_onnx__node_fail(n, "gathering along a symbolic dim is not supported");
  MlcGExpr *zero = mlc_onnx__scalar_like(n, idx, 0), *d = mlc_onnx__scalar_like(n, idx, (double)dim);
  MlcGExpr *neg = mlc_onnx__emit2(n, "less", idx, zero);
  MlcGExpr *wrapped = mlc_onnx__emit2(n, "add", idx, d);
  MlcGExpr *w[3] = {neg, wrapped, idx};
  MlcGExpr *fixed = neg && wrapped ? mlc_onnx__emit(n, "where", w, 3, (MlcAttrs){0}) : NULL;
  MlcGExpr *args[2] = {x, fixed};
  /* "fast": indices out of range even after wrapping are a run-time error */
  MlcAttr a[2] = {attr("axis", mlc_onnx__av_int(axis)), attr("mode", mlc_onnx__av_str(ctx, "fast"))};
  return fixed && (n->out[0] = mlc_onnx__emit_attrs(n, "take", args, 2, 2, a)) != NULL;
}

/* ---- shapes and constants ----------------------------------------------------------------- */

bool mlc_onnx__conv_shape(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t start, end, dims[MLC_ONNX_MAX_RANK];
  int rank;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "start", 0, &start) ||
      !mlc_onnx__attr_int(n, "end", rank, &end))
    return false;
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = start < 0 ? 0 : start > rank ? rank : start;
  end = end < start ? start : end > rank ? rank : end;
  for (int64_t i = start; i < end; i++)
    if (!mlc_onnx__const_dim(x, (int)i, &dims[i - start]))
      return mlc_onnx__node_fail(n, "the shape of a symbolic dim is not supported");
  n->known_out[0] = mlc_onnx__i64s(n->im->ctx, dims, (int)(end - start));
  return true;
}

bool mlc_onnx__conv_size(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int rank;
  if (!x || !need_rank(n, x, &rank)) return false;
  int64_t total = 1, d;
  for (int i = 0; i < rank; i++) {
    if (!mlc_onnx__const_dim(x, i, &d)) return mlc_onnx__node_fail(n, "the size of a symbolic shape is not supported");
    total *= d;
  }
  n->known_out[0] = mlc_onnx__scalar(n->im->ctx, MLC_I64_T, (double)total);
  return true;
}

static MlcTensorData *floats_tensor(MlcCtx *ctx, const float *v, size_t k, bool scalar) {
  MlcTensorData *d = mlc_arena_alloc(&ctx->arena, sizeof *d);
  d->dtype = MLC_DT(MLC_TC_FLOAT, 32, 1);
  d->ndim = scalar ? 0 : 1;
  d->shape = mlc_arena_alloc(&ctx->arena, sizeof(int64_t));
  d->shape[0] = (int64_t)k;
  d->nbytes = k * 4;
  d->data = mlc_arena_alloc(&ctx->arena, k ? k * 4 : 1);
  if (k) memcpy(d->data, v, k * 4);
  return d;
}

bool mlc_onnx__conv_constant(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  const Onnx__AttributeProto *a = n->proto->n_attribute == 1 ? n->proto->attribute[0] : NULL;
  if (!a) return mlc_onnx__node_fail(n, "expects exactly one attribute");
  const char *name = a->name ? a->name : "";
  MlcTensorData *d = NULL;
  if (!strcmp(name, "value") && a->t) {
    d = mlc_onnx__tensor_data(ctx, mlc_internf(ctx, "Constant '%s'", n->proto->name ? n->proto->name : ""),
                              a->t, n->im->dir);
    if (!d) return false;
  } else if (!strcmp(name, "value_float")) {
    d = floats_tensor(ctx, &a->f, 1, true);
  } else if (!strcmp(name, "value_floats")) {
    d = floats_tensor(ctx, a->floats, a->n_floats, false);
  } else if (!strcmp(name, "value_int")) {
    d = mlc_onnx__scalar(ctx, MLC_I64_T, (double)a->i);
    *(int64_t *)d->data = a->i;
  } else if (!strcmp(name, "value_ints")) {
    if (a->n_ints > (size_t)MAX_CONST_NUMEL) return mlc_onnx__node_fail(n, "too many values");
    d = mlc_onnx__i64s(ctx, a->ints, (int)a->n_ints);
  } else {
    return mlc_onnx__node_fail(n, "attribute '%s' is not supported", name);
  }
  n->known_out[0] = d;
  return true;
}

/* the one element of d as a double (ConstantOfShape's value) */
static double element_value(const MlcTensorData *d) {
  MlcDType t = d->dtype;
  const void *p = d->data;
  switch (t.code) {
  case MLC_TC_FLOAT:
    return t.bits == 64 ? *(const double *)p : t.bits == 32 ? *(const float *)p : mlc_f16_to_f32(*(const uint16_t *)p);
  case MLC_TC_BFLOAT: return mlc_bf16_to_f32(*(const uint16_t *)p);
  case MLC_TC_INT:
    return t.bits == 64 ? (double)*(const int64_t *)p : t.bits == 32 ? *(const int32_t *)p
         : t.bits == 16 ? *(const int16_t *)p : *(const int8_t *)p;
  case MLC_TC_UINT:
    return t.bits == 64 ? (double)*(const uint64_t *)p : t.bits == 32 ? *(const uint32_t *)p
         : t.bits == 16 ? *(const uint16_t *)p : *(const uint8_t *)p;
  default: return *(const uint8_t *)p != 0;
  }
}

/* ConstantOfShape of a shape read when the model runs: R.full over its dims */
static bool constant_of_runtime_shape(MlcOnnxNode *n, const MlcTensorData *value) {
  MlcCtx *ctx = n->im->ctx;
  MlcExpr *dims[MLC_ONNX_MAX_RANK];
  int k;
  if (!mlc_onnx__runtime_shape(n, mlc_onnx__input(n, 0), NULL, "values", dims, MLC_ONNX_MAX_RANK, &k)) return false;
  MlcAttr a[3] = {attr("shape", mlc_onnx__av_exprs(ctx, dims, k)), attr("fill_value", mlc_onnx__av_float(element_value(value))),
                  attr("dtype", mlc_onnx__av_dtype(value->dtype))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "full", NULL, 0, 3, a)) != NULL;
}

bool mlc_onnx__conv_constant_of_shape(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  int64_t shape[MLC_ONNX_MAX_RANK];
  int k;
  MlcTensorData *value = NULL;
  const Onnx__AttributeProto *a = mlc_onnx__attr(n, "value");
  if (a && a->t) {
    value = mlc_onnx__tensor_data(ctx, "ConstantOfShape value", a->t, NULL);
    if (!value) return false;
    if (value->nbytes != mlc_dtype_bytes(value->dtype)) return mlc_onnx__node_fail(n, "value must hold one element");
  } else {
    value = mlc_onnx__scalar(ctx, MLC_DT(MLC_TC_FLOAT, 32, 1), 0);
  }
  if (!mlc_onnx__known_or_absent(n, 0)) return constant_of_runtime_shape(n, value);
  if (!mlc_onnx__known_ints(n, 0, shape, MLC_ONNX_MAX_RANK, &k)) return false;
  if (k < 0) return mlc_onnx__node_fail(n, "the shape input is missing");
  int64_t numel = 1;
  for (int i = 0; i < k; i++) {
    if (shape[i] < 0) return mlc_onnx__node_fail(n, "negative dim %lld", (long long)shape[i]);
    if (shape[i] && numel > MAX_CONST_NUMEL / shape[i]) return mlc_onnx__node_fail(n, "the constant is too large");
    numel *= shape[i];
  }
  size_t es = mlc_dtype_bytes(value->dtype);
  MlcTensorData *d = mlc_arena_alloc(&ctx->arena, sizeof *d);
  d->dtype = value->dtype;
  d->ndim = k;
  d->shape = mlc_arena_dup(&ctx->arena, shape, sizeof(int64_t) * (size_t)(k ? k : 1));
  d->nbytes = (size_t)numel * es;
  d->data = mlc_arena_alloc(&ctx->arena, d->nbytes ? d->nbytes : 1);
  for (int64_t i = 0; i < numel; i++) memcpy((char *)d->data + (size_t)i * es, value->data, es);
  n->known_out[0] = d;
  return true;
}

/* a 0-d value as float64 (1,) */
static MlcGExpr *as_f64_row(MlcOnnxNode *n, MlcGExpr *v) {
  MlcAttr t = attr("dtype", mlc_onnx__av_dtype(MLC_DT(MLC_TC_FLOAT, 64, 1)));
  MlcAttr s = attr("shape", mlc_onnx__av_ints(n->im->ctx, (int64_t[]){1}, 1));
  v = v ? mlc_onnx__emit_attrs(n, "astype", &v, 1, 1, &t) : NULL;
  return v ? mlc_onnx__emit_attrs(n, "reshape", &v, 1, 1, &s) : NULL;
}

/* Range of values computed at run time: (start, limit, delta) as float64
 * read into the length (tensor_to_shape mode "range"), then start + i *
 * delta over it */
static bool range_at_run_time(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *v[3];
  for (int i = 0; i < 3; i++) {
    if (!(v[i] = mlc_onnx__input(n, i))) return false;
    int64_t len;
    if (mlc_onnx__rank(v[i]) == 1 && mlc_onnx__const_dim(v[i], 0, &len) && len == 1) { /* one value: a scalar */
      MlcAttr none = attr("shape", mlc_onnx__av_ints(ctx, NULL, 0));
      if (!(v[i] = mlc_onnx__emit_attrs(n, "reshape", &v[i], 1, 1, &none))) return false;
    }
    if (mlc_onnx__rank(v[i]) != 0)
      return mlc_onnx__node_fail(n, "input %d computed at run time: a tensor of rank %d is not supported (a scalar is)",
                                 i, mlc_onnx__rank(v[i]));
  }
  MlcGExpr *rows[3];
  for (int i = 0; i < 3; i++)
    if (!(rows[i] = as_f64_row(n, v[i]))) return false;
  MlcGExpr *tup = mlc_g_tuple(ctx, rows, 3);
  MlcAttr axis = attr("axis", mlc_onnx__av_int(0));
  MlcGExpr *vals = tup ? mlc_onnx__emit_attrs(n, "concat", &tup, 1, 1, &axis) : NULL;
  MlcExpr *len;
  int k;
  if (!mlc_onnx__runtime_shape(n, vals, NULL, "range", &len, 1, &k)) return false;
  MlcGExpr *args[2] = {v[0], v[2]};
  MlcAttr shape = attr("shape", mlc_onnx__av_exprs(ctx, &len, 1));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "range_to_shape", args, 2, 1, &shape)) != NULL;
}

bool mlc_onnx__conv_range(MlcOnnxNode *n) {
  double start, limit, delta;
  bool p1, p2, p3;
  if (!mlc_onnx__known_or_absent(n, 0) || !mlc_onnx__known_or_absent(n, 1) || !mlc_onnx__known_or_absent(n, 2))
    return range_at_run_time(n);
  if (!mlc_onnx__known_scalar(n, 0, &start, &p1) || !mlc_onnx__known_scalar(n, 1, &limit, &p2) ||
      !mlc_onnx__known_scalar(n, 2, &delta, &p3))
    return false;
  if (!p1 || !p2 || !p3) return mlc_onnx__node_fail(n, "start, limit and delta are required");
  if (delta == 0) return mlc_onnx__node_fail(n, "delta is zero");
  double count = ceil((limit - start) / delta);
  if (count < 0) count = 0;
  if (count > (double)MAX_CONST_NUMEL) return mlc_onnx__node_fail(n, "the range is too long");
  MlcDType t = mlc_onnx__dtype_of(n->in[0]);
  MlcCtx *ctx = n->im->ctx;
  MlcTensorData *d = mlc_arena_alloc(&ctx->arena, sizeof *d);
  d->dtype = t;
  d->ndim = 1;
  d->shape = mlc_arena_alloc(&ctx->arena, sizeof(int64_t));
  d->shape[0] = (int64_t)count;
  size_t es = mlc_dtype_bytes(t);
  d->nbytes = (size_t)count * es;
  d->data = mlc_arena_alloc(&ctx->arena, d->nbytes ? d->nbytes : 1);
  for (int64_t i = 0; i < (int64_t)count; i++) {
    MlcTensorData *s = mlc_onnx__scalar(ctx, t, start + (double)i * delta);
    memcpy((char *)d->data + (size_t)i * es, s->data, es);
  }
  n->known_out[0] = d;
  return true;
}

/* ---- types, dropout, clip ------------------------------------------------------------------- */

static bool emit_astype(MlcOnnxNode *n, MlcGExpr *x, MlcDType t) {
  MlcAttr a = attr("dtype", mlc_onnx__av_dtype(t));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "astype", &x, 1, 1, &a)) != NULL;
}

/* The IR's cast to a minifloat rounds to nearest even and does not
 * saturate: past the largest finite value it gives infinity or NaN
 * (src/ir/minifloat_src.h).  ONNX's saturate=1 (the default) instead takes
 * every magnitude beyond the largest finite value, infinities included, to
 * that value, and keeps NaN: a clamp before the cast, by selections that
 * leave NaN alone (a comparison with NaN is false).  E8M0 keeps infinity
 * as NaN even when saturating, so its clamp stops at float's largest
 * value.  The clamp is computed in float32 unless x is already a 16-, 32-
 * or 64-bit float. */
MlcGExpr *mlc_onnx__saturate_minifloat(MlcOnnxNode *n, MlcGExpr *x, MlcDType t) {
  MlcDType xt = mlc_onnx__dtype_of(x);
  if (xt.code != MLC_TC_FLOAT) {
    MlcAttr a = attr("dtype", mlc_onnx__av_dtype(MLC_F32));
    x = mlc_onnx__emit_attrs(n, "astype", &x, 1, 1, &a);
    xt = MLC_F32;
  }
  double max = mlc_minifloat_max(t);
  if (xt.bits == 16 && max >= 65504.0) return x; /* nothing float16 holds is beyond it */
  MlcGExpr *hi = mlc_onnx__scalar_like(n, x, max);
  if (t.code == MLC_TC_F8E8M0) { /* sign is ignored: |x| beyond max but finite -> max */
    MlcGExpr *ax = mlc_onnx__emit1(n, "abs", x);
    MlcGExpr *fin = mlc_onnx__scalar_like(n, x, xt.bits == 64 ? 1.7976931348623157e308 : 3.4028234663852886e38);
    MlcGExpr *big = mlc_onnx__emit2(n, "greater", ax, hi), *inf = mlc_onnx__emit2(n, "greater", ax, fin);
    MlcGExpr *a1[3] = {inf, x, hi};
    MlcGExpr *capped = inf ? mlc_onnx__emit(n, "where", a1, 3, (MlcAttrs){0}) : NULL;
    MlcGExpr *a2[3] = {big, capped, x};
    return big && capped ? mlc_onnx__emit(n, "where", a2, 3, (MlcAttrs){0}) : NULL;
  }
  MlcGExpr *lo = mlc_onnx__scalar_like(n, x, -max);
  MlcGExpr *a1[3] = {mlc_onnx__emit2(n, "greater", x, hi), hi, x};
  MlcGExpr *y = a1[0] ? mlc_onnx__emit(n, "where", a1, 3, (MlcAttrs){0}) : NULL;
  MlcGExpr *a2[3] = {y ? mlc_onnx__emit2(n, "less", y, lo) : NULL, lo, y};
  return a2[0] ? mlc_onnx__emit(n, "where", a2, 3, (MlcAttrs){0}) : NULL;
}

/* x cast to t with Cast's meaning: saturate (its attribute) applies to the
 * float8 types; E8M0 rounds up, the only round_mode supported */
static bool onnx_cast(MlcOnnxNode *n, MlcGExpr *x, MlcDType t) {
  int64_t sat;
  if (!mlc_onnx__attr_int(n, "saturate", 1, &sat)) return false;
  if (t.code == MLC_TC_F8E8M0) {
    const char *mode = mlc_onnx__attr_str(n, "round_mode", "up");
    if (strcmp(mode, "up") != 0)
      return mlc_onnx__node_fail(n, "round_mode '%.40s' is not supported (\"up\" is)", mode);
  }
  if (sat && mlc_dtype_is_minifloat(t) && t.code != MLC_TC_F4E2M1 && !mlc_dtype_eq(mlc_onnx__dtype_of(x), t)) {
    x = mlc_onnx__saturate_minifloat(n, x, t);
    if (!x) return false;
  }
  return emit_astype(n, x, t);
}

bool mlc_onnx__conv_cast(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t to;
  MlcDType t;
  if (!x || !mlc_onnx__attr_int(n, "to", -1, &to)) return false;
  if (!mlc_onnx__dtype((int32_t)to, &t))
    return mlc_onnx__node_fail(n, "casting to %s is not supported", mlc_onnx__dtype_name((int32_t)to));
  return onnx_cast(n, x, t);
}

bool mlc_onnx__conv_castlike(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *like = mlc_onnx__input(n, 1);
  return x && like && onnx_cast(n, x, mlc_onnx__dtype_of(like));
}

/* BitCast: the elements' bits as type `to`, of the same size (the op
 * checks it) */
bool mlc_onnx__conv_bitcast(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t to;
  MlcDType t;
  if (!x || !mlc_onnx__attr_int(n, "to", -1, &to)) return false;
  if (to < 0 || to > INT32_MAX || !mlc_onnx__dtype((int32_t)to, &t))
    return mlc_onnx__node_fail(n, "bitcasting to %s is not supported", mlc_onnx__dtype_name((int32_t)to));
  MlcAttr a = attr("dtype", mlc_onnx__av_dtype(t));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "bitcast", &x, 1, 1, &a)) != NULL;
}

bool mlc_onnx__conv_dropout(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  double training = 0;
  bool present = false;
  if (!x || (n->opset >= 12 && !mlc_onnx__known_scalar(n, 2, &training, &present))) return false;
  if (training != 0) return mlc_onnx__node_fail(n, "training mode is not supported");
  n->out[0] = x;
  if (n->n_out > 1 && n->proto->output[1] && *n->proto->output[1]) {
    int rank;
    int64_t shape[MLC_ONNX_MAX_RANK], numel = 1;
    if (!need_rank(n, x, &rank)) return false;
    for (int i = 0; i < rank; i++) {
      if (!mlc_onnx__const_dim(x, i, &shape[i])) return mlc_onnx__node_fail(n, "a mask of symbolic shape is not supported");
      numel *= shape[i];
    }
    if (numel > MAX_CONST_NUMEL) return mlc_onnx__node_fail(n, "the mask is too large");
    MlcCtx *ctx = n->im->ctx;
    MlcTensorData *m = mlc_arena_alloc(&ctx->arena, sizeof *m);
    m->dtype = MLC_DT(MLC_TC_BOOL, 1, 1);
    m->ndim = rank;
    m->shape = mlc_arena_dup(&ctx->arena, shape, sizeof(int64_t) * (size_t)(rank ? rank : 1));
    m->nbytes = (size_t)numel;
    m->data = mlc_arena_alloc(&ctx->arena, (size_t)(numel ? numel : 1));
    memset(m->data, 1, (size_t)numel);
    n->known_out[1] = m;
  }
  return true;
}

bool mlc_onnx__conv_clip(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  if (!x) return false;
  double lo = -INFINITY, hi = INFINITY;
  bool has_lo = false, has_hi = false;
  if (n->opset < 11) {
    has_lo = mlc_onnx__attr(n, "min") != NULL;
    has_hi = mlc_onnx__attr(n, "max") != NULL;
    if (!mlc_onnx__attr_float(n, "min", lo, &lo) || !mlc_onnx__attr_float(n, "max", hi, &hi)) return false;
  } else {
    /* opset 11 made the bounds optional inputs: scalar tensors, maybe computed */
    MlcGExpr *y = x;
    if (n->n_in > 1 && n->in[1]) y = mlc_onnx__emit2(n, "maximum", y, n->in[1]);
    if (n->n_in > 2 && n->in[2] && y) y = mlc_onnx__emit2(n, "minimum", y, n->in[2]);
    return (n->out[0] = y) != NULL;
  }
  MlcGExpr *y = x;
  if (has_lo) y = mlc_onnx__emit2(n, "maximum", y, mlc_onnx__scalar_like(n, x, lo));
  if (has_hi && y) y = mlc_onnx__emit2(n, "minimum", y, mlc_onnx__scalar_like(n, x, hi));
  return (n->out[0] = y) != NULL;
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

static MlcGExpr *reshape(MlcOnnxNode *n, MlcGExpr *x, const int64_t *shape, int k) {
  return emit_ints(n, "reshape", x, "shape", shape, k);
}

static MlcGExpr *permute(MlcOnnxNode *n, MlcGExpr *x, const int64_t *axes, int k) {
  return emit_ints(n, "permute_dims", x, "axes", axes, k);
}

/* ---- DepthToSpace, SpaceToDepth ------------------------------------------------------------------ */

static bool shuffle(MlcOnnxNode *n, bool to_space) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int rank;
  int64_t d[4], b;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "blocksize", 0, &b)) return false;
  if (rank != 4) return mlc_onnx__node_fail(n, "only rank 4 (NCHW) input is supported");
  if (!static_dims(n, x, 4, d)) return false;
  if (b < 1) return mlc_onnx__node_fail(n, "blocksize must be positive");
  if (!to_space) {
    if (d[2] % b || d[3] % b) return mlc_onnx__node_fail(n, "the spatial dims are not multiples of blocksize");
    int64_t s1[6] = {d[0], d[1], d[2] / b, b, d[3] / b, b}, p[6] = {0, 3, 5, 1, 2, 4};
    int64_t s2[4] = {d[0], d[1] * b * b, d[2] / b, d[3] / b};
    return (n->out[0] = reshape(n, permute(n, reshape(n, x, s1, 6), p, 6), s2, 4)) != NULL;
  }
  if (d[1] % (b * b)) return mlc_onnx__node_fail(n, "the channels are not a multiple of blocksize^2");
  const char *mode = mlc_onnx__attr_str(n, "mode", "DCR");
  bool crd = !strcmp(mode, "CRD");
  if (!crd && strcmp(mode, "DCR")) return mlc_onnx__node_fail(n, "mode '%s' is not supported", mode);
  int64_t c = d[1] / (b * b);
  int64_t dcr[6] = {d[0], b, b, c, d[2], d[3]}, crd_s[6] = {d[0], c, b, b, d[2], d[3]};
  int64_t pdcr[6] = {0, 3, 4, 1, 5, 2}, pcrd[6] = {0, 1, 4, 2, 5, 3};
  int64_t s2[4] = {d[0], c, d[2] * b, d[3] * b};
  MlcGExpr *y = reshape(n, x, crd ? crd_s : dcr, 6);
  return (n->out[0] = reshape(n, permute(n, y, crd ? pcrd : pdcr, 6), s2, 4)) != NULL;
}

bool mlc_onnx__conv_depth_to_space(MlcOnnxNode *n) { return shuffle(n, true); }
bool mlc_onnx__conv_space_to_depth(MlcOnnxNode *n) { return shuffle(n, false); }
