/* onnx_ops_seq.c - ONNX's sequence and optional types, resolved at import.
 *
 * A sequence whose length is known when the model is imported is a tuple of
 * its element tensors in the importer's value table, never a graph value:
 * SequenceConstruct / Insert / Erase / At with positions known at import are
 * edits of that tuple, SequenceLength a constant, SplitToSequence slices,
 * ConcatFromSequence one concat, and SequenceMap its body imported once per
 * element (as Scan's is per step).  An optional is its value when present
 * and the importer's one `absent` value when not, so OptionalHasElement is a
 * constant.  What would need a sequence's length, a position or an
 * optional's presence at run time is refused as not supported, naming the
 * node.  Graph inputs and outputs of these types are flattened to their
 * tensors (mlc_onnx__seq_input, mlc_onnx__flatten; docs/onnx.md). */
#include <stdlib.h>
#include <string.h>

#include "onnx_convert.h"

#define MAX_LENGTH (1 << 16)     /* elements of one sequence */
#define MAX_UNROLLED (1 << 20)   /* SequenceMap body nodes imported in all */

bool mlc_onnx__is_seq(const MlcOnnxImporter *im, const MlcGExpr *v) {
  return v && v->kind == MLC_G_TUPLE && v != im->absent;
}

MlcGExpr *mlc_onnx__absent(MlcOnnxImporter *im) {
  if (!im->absent) im->absent = mlc_g_tuple(im->ctx, NULL, 0);
  return im->absent;
}

static bool is_tensor(const MlcGExpr *v) { return v && v->sinfo && v->sinfo->kind == MLC_SINFO_TENSOR; }

/* input i, which must be a sequence */
static MlcGExpr *seq_input(MlcOnnxNode *n, int i) {
  MlcGExpr *s = mlc_onnx__input(n, i);
  if (s && !mlc_onnx__is_seq(n->im, s)) return mlc_onnx__node_fail(n, "input %d must be a sequence", i), NULL;
  return s;
}

/* input i, which must be a tensor */
static MlcGExpr *tensor_input(MlcOnnxNode *n, int i) {
  MlcGExpr *t = mlc_onnx__input(n, i);
  if (t && !is_tensor(t)) return mlc_onnx__node_fail(n, "input %d must be a tensor", i), NULL;
  return t;
}

/* t may join sequence s: its elements share one dtype */
static bool same_dtype(MlcOnnxNode *n, const MlcGExpr *s, const MlcGExpr *t) {
  if (s->tuple.n == 0 || mlc_dtype_eq(s->tuple.fields[0]->sinfo->tensor.dtype, t->sinfo->tensor.dtype)) return true;
  return mlc_onnx__node_fail(n, "the tensor's dtype differs from the sequence's elements'");
}

/* the position input i (default dflt when absent), known at import and in [lo, hi] */
static bool position(MlcOnnxNode *n, int i, int64_t dflt, int64_t lo, int64_t hi, int64_t *out) {
  if (i >= n->n_in || !n->in[i]) return *out = dflt, true;
  if (!mlc_onnx__known_or_absent(n, i))
    return mlc_onnx__node_fail(n, "a position computed at run time is not supported (only one known at import)");
  int64_t v[1];
  int k;
  if (!mlc_onnx__known_ints(n, i, v, 1, &k)) return false;
  if (k != 1) return mlc_onnx__node_fail(n, "the position must hold one value");
  if (v[0] < lo || v[0] > hi)
    return mlc_onnx__node_fail(n, "position %lld is out of range [%lld, %lld]", (long long)v[0], (long long)lo,
                               (long long)hi);
  *out = v[0];
  return true;
}

static MlcGExpr *seq_of(MlcOnnxNode *n, MlcGExpr **fields, int64_t k) {
  if (k > MAX_LENGTH) return mlc_onnx__node_fail(n, "a sequence of more than %d elements is not supported", MAX_LENGTH), NULL;
  return mlc_g_tuple(n->im->ctx, fields, (int)k);
}

/* ---- building and editing sequences ------------------------------------------------- */

bool mlc_onnx__conv_sequence_empty(MlcOnnxNode *n) { return (n->out[0] = seq_of(n, NULL, 0)) != NULL; }

bool mlc_onnx__conv_sequence_construct(MlcOnnxNode *n) {
  if (n->n_in < 1) return mlc_onnx__node_fail(n, "no inputs");
  for (int i = 0; i < n->n_in; i++) {
    if (!tensor_input(n, i)) return false;
    if (!mlc_dtype_eq(n->in[i]->sinfo->tensor.dtype, n->in[0]->sinfo->tensor.dtype))
      return mlc_onnx__node_fail(n, "input %d's dtype differs from input 0's", i);
  }
  return (n->out[0] = seq_of(n, n->in, n->n_in)) != NULL;
}

bool mlc_onnx__conv_sequence_at(MlcOnnxNode *n) {
  MlcGExpr *s = seq_input(n, 0);
  int64_t k = s ? s->tuple.n : 0, p;
  if (!s || !mlc_onnx__input(n, 1) || !position(n, 1, 0, -k, k - 1, &p)) return false;
  n->out[0] = s->tuple.fields[p < 0 ? p + k : p];
  return true;
}

bool mlc_onnx__conv_sequence_insert(MlcOnnxNode *n) {
  MlcGExpr *s = seq_input(n, 0), *t = s ? tensor_input(n, 1) : NULL;
  int64_t k = s ? s->tuple.n : 0, p;
  if (!t || !same_dtype(n, s, t) || !position(n, 2, k, -k, k, &p)) return false;
  if (p < 0) p += k;
  MlcGExpr **f = mlc_arena_array(&n->im->ctx->arena, (size_t)k + 1, sizeof *f);
  for (int64_t i = 0, j = 0; i <= k; i++) f[i] = i == p ? t : s->tuple.fields[j++];
  return (n->out[0] = seq_of(n, f, k + 1)) != NULL;
}

bool mlc_onnx__conv_sequence_erase(MlcOnnxNode *n) {
  MlcGExpr *s = seq_input(n, 0);
  int64_t k = s ? s->tuple.n : 0, p;
  if (!s) return false;
  if (k == 0) return mlc_onnx__node_fail(n, "erasing from an empty sequence");
  if (!position(n, 1, -1, -k, k - 1, &p)) return false;
  if (p < 0) p += k;
  MlcGExpr **f = mlc_arena_array(&n->im->ctx->arena, (size_t)k, sizeof *f);
  for (int64_t i = 0, j = 0; i < k; i++)
    if (i != p) f[j++] = s->tuple.fields[i];
  return (n->out[0] = seq_of(n, f, k - 1)) != NULL;
}

bool mlc_onnx__conv_sequence_length(MlcOnnxNode *n) {
  MlcGExpr *s = seq_input(n, 0);
  if (!s) return false;
  n->known_out[0] = mlc_onnx__scalar(n->im->ctx, MLC_I64_T, s->tuple.n);
  return true;
}

/* ---- between tensors and sequences ------------------------------------------------ */

/* x[begin:end] along axis */
static MlcGExpr *slice(MlcOnnxNode *n, MlcGExpr *x, int64_t axis, int64_t begin, int64_t end) {
  MlcCtx *ctx = n->im->ctx;
  int64_t one = 1;
  MlcAttr a[4] = {attr("axes", mlc_onnx__av_ints(ctx, &axis, 1)), attr("begin", mlc_onnx__av_ints(ctx, &begin, 1)),
                  attr("end", mlc_onnx__av_ints(ctx, &end, 1)), attr("strides", mlc_onnx__av_ints(ctx, &one, 1))};
  return mlc_onnx__emit_attrs(n, "strided_slice", &x, 1, 4, a);
}

static MlcGExpr *with_axis(MlcOnnxNode *n, const char *op, MlcGExpr *x, int64_t axis) {
  MlcAttr a = attr("axis", mlc_onnx__av_ints(n->im->ctx, &axis, 1));
  return x ? mlc_onnx__emit_attrs(n, op, &x, 1, 1, &a) : NULL;
}

/* the sizes of SplitToSequence's parts of a dim of length dim, in sizes[0..*k) */
static bool split_sizes(MlcOnnxNode *n, int64_t dim, int64_t *sizes, int64_t *k, bool *unit) {
  *unit = n->n_in < 2 || !n->in[1];
  if (*unit) {
    for (int64_t i = 0; i < dim; i++) sizes[i] = 1;
    return *k = dim, true;
  }
  if (!mlc_onnx__known_or_absent(n, 1))
    return mlc_onnx__node_fail(n, "split sizes computed at run time are not supported (only ones known at import)");
  int count;
  if (!mlc_onnx__known_ints(n, 1, sizes, MAX_LENGTH, &count)) return false;
  if (mlc_onnx__rank(n->in[1]) == 0) { /* one size: equal parts, the last one smaller */
    int64_t c = sizes[0];
    if (c < 1) return mlc_onnx__node_fail(n, "split size %lld is not positive", (long long)c);
    *k = (dim + c - 1) / c;
    for (int64_t i = 0; i < *k; i++) sizes[i] = i + 1 < *k ? c : dim - c * (*k - 1);
    return true;
  }
  int64_t sum = 0;
  for (int i = 0; i < count; i++) {
    if (sizes[i] < 0 || sizes[i] > dim) return mlc_onnx__node_fail(n, "split size %lld is out of range", (long long)sizes[i]);
    sum += sizes[i];
  }
  if (sum != dim) return mlc_onnx__node_fail(n, "the split sizes add up to %lld, not the dim's %lld", (long long)sum, (long long)dim);
  return *k = count, true;
}

/* parts of sizes read when the model runs, as many as the 1-D split input
 * has values (static): tensor_to_shape "split" binds and checks the parts'
 * dims, split_part copies each part (as Split does) */
static bool split_runtime(MlcOnnxNode *n, MlcGExpr *x, int rank, int64_t axis) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *sz = n->in[1];
  int64_t k;
  MlcDType dt = mlc_onnx__dtype_of(sz);
  if (mlc_onnx__rank(sz) != 1 || !mlc_onnx__const_dim(sz, 0, &k) || dt.code != MLC_TC_INT || (dt.bits != 32 && dt.bits != 64))
    return mlc_onnx__node_fail(n, "split sizes computed at run time are not supported but as a 1-D int32 or int64 tensor "
                                  "of static length (the number of parts known at import)");
  if (k < 1 || k > MAX_LENGTH) return mlc_onnx__node_fail(n, "%lld parts: 1 to %d are supported", (long long)k, MAX_LENGTH);
  MlcExpr **parts = mlc_arena_array(&ctx->arena, (size_t)k, sizeof *parts), *dims[MLC_ONNX_MAX_RANK];
  for (int64_t i = 0; i < k; i++) parts[i] = mlc_e_var(ctx, mlc_internf(ctx, "r%u", n->im->fresh++), MLC_I64_T);
  MlcGExpr *args[2] = {sz, x};
  MlcAttr ta[3] = {attr("shape", mlc_onnx__av_exprs(ctx, parts, (int)k)), attr("mode", mlc_onnx__av_str(ctx, "split")),
                   attr("axis", mlc_onnx__av_int(axis))};
  if (!mlc_onnx__emit_attrs(n, "tensor_to_shape", args, 2, 3, ta)) return false;
  const MlcSInfo *si = mlc_onnx__tensor_sinfo(x);
  for (int d = 0; d < rank; d++) dims[d] = si->tensor.shape[d];
  MlcGExpr **f = mlc_arena_array(&ctx->arena, (size_t)k, sizeof *f);
  for (int64_t i = 0; i < k; i++) {
    dims[axis] = parts[i];
    MlcAttr pa[3] = {attr("shape", mlc_onnx__av_exprs(ctx, dims, rank)), attr("axis", mlc_onnx__av_int(axis)),
                     attr("index", mlc_onnx__av_int(i))};
    MlcGExpr *xs[2] = {x, sz};
    if (!(f[i] = mlc_onnx__emit_attrs(n, "split_part", xs, 2, 3, pa))) return false;
  }
  return (n->out[0] = seq_of(n, f, k)) != NULL;
}

bool mlc_onnx__conv_split_to_sequence(MlcOnnxNode *n) {
  MlcGExpr *x = tensor_input(n, 0);
  int rank;
  int64_t axis, keepdims, dim, k = 0;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "axis", 0, &axis) ||
      !mlc_onnx__attr_int(n, "keepdims", 1, &keepdims))
    return false;
  if (axis < -rank || axis >= rank) return mlc_onnx__node_fail(n, "axis %lld is out of range for rank %d", (long long)axis, rank);
  if (axis < 0) axis += rank;
  if (n->n_in > 1 && n->in[1] && !mlc_onnx__known_or_absent(n, 1)) return split_runtime(n, x, rank, axis);
  if (!mlc_onnx__const_dim(x, (int)axis, &dim)) return mlc_onnx__node_fail(n, "splitting a dim known only at run time is not supported");
  if (dim > MAX_LENGTH) return mlc_onnx__node_fail(n, "more than %d parts are not supported", MAX_LENGTH);
  int64_t *sizes = calloc(MAX_LENGTH, sizeof *sizes);
  bool unit, ok = sizes && split_sizes(n, dim, sizes, &k, &unit);
  MlcGExpr **f = ok ? mlc_arena_array(&n->im->ctx->arena, (size_t)(k ? k : 1), sizeof *f) : NULL;
  for (int64_t i = 0, at = 0; ok && i < k; at += sizes[i++]) {
    f[i] = slice(n, x, axis, at, at + sizes[i]);
    if (f[i] && unit && !keepdims) f[i] = with_axis(n, "squeeze", f[i], axis);
    ok = f[i] != NULL;
  }
  free(sizes);
  return ok && (n->out[0] = seq_of(n, f, k)) != NULL;
}

bool mlc_onnx__conv_concat_from_sequence(MlcOnnxNode *n) {
  MlcGExpr *s = seq_input(n, 0);
  int64_t axis, new_axis;
  const Onnx__AttributeProto *has_axis = mlc_onnx__attr(n, "axis");
  if (!s || !mlc_onnx__attr_int(n, "axis", 0, &axis) || !mlc_onnx__attr_int(n, "new_axis", 0, &new_axis)) return false;
  if (!has_axis) return mlc_onnx__node_fail(n, "attribute 'axis' is required");
  if (s->tuple.n == 0) return mlc_onnx__node_fail(n, "concatenating an empty sequence");
  int rank;
  if (!need_rank(n, s->tuple.fields[0], &rank)) return false;
  int r = rank + (new_axis != 0);
  if (axis < -r || axis >= r) return mlc_onnx__node_fail(n, "axis %lld is out of range for rank %d", (long long)axis, r);
  if (axis < 0) axis += r;
  int k = s->tuple.n;
  MlcGExpr **f = mlc_arena_array(&n->im->ctx->arena, (size_t)k, sizeof *f);
  for (int i = 0; i < k; i++)
    if (!(f[i] = new_axis ? with_axis(n, "expand_dims", s->tuple.fields[i], axis) : s->tuple.fields[i])) return false;
  if (k == 1) return (n->out[0] = f[0]) != NULL;
  MlcGExpr *t = mlc_g_tuple(n->im->ctx, f, k);
  MlcAttr a = attr("axis", mlc_onnx__av_int(axis));
  return t && (n->out[0] = mlc_onnx__emit_attrs(n, "concat", &t, 1, 1, &a)) != NULL;
}

/* ---- SequenceMap ----------------------------------------------------------------------- */

bool mlc_onnx__conv_sequence_map(MlcOnnxNode *n) {
  const Onnx__AttributeProto *ba = mlc_onnx__attr(n, "body");
  if (!ba || !ba->g) return mlc_onnx__node_fail(n, "body must be a graph");
  MlcGExpr *s0 = seq_input(n, 0);
  if (!s0) return false;
  int64_t len = s0->tuple.n;
  for (int j = 1; j < n->n_in; j++) {
    if (!mlc_onnx__input(n, j)) return false;
    if (mlc_onnx__is_seq(n->im, n->in[j]) && n->in[j]->tuple.n != len)
      return mlc_onnx__node_fail(n, "input %d's sequence has %d elements, input 0's %lld", j, n->in[j]->tuple.n, (long long)len);
    if (!mlc_onnx__is_seq(n->im, n->in[j]) && !is_tensor(n->in[j]))
      return mlc_onnx__node_fail(n, "input %d must be a sequence or a tensor", j);
  }
  const Onnx__GraphProto *g = ba->g;
  if (len * (int64_t)(g->n_node + 1) > MAX_UNROLLED)
    return mlc_onnx__node_fail(n, "%lld elements through a %zu-node body: at most %d body nodes in all are supported",
                               (long long)len, g->n_node, MAX_UNROLLED);
  MlcGExpr **elems = mlc_arena_array(&n->im->ctx->arena, (size_t)(n->n_out ? n->n_out : 1) * (size_t)(len ? len : 1), sizeof *elems);
  MlcGExpr *ins[MLC_ONNX_MAX_IO], *outs[MLC_ONNX_MAX_IO];
  for (int64_t i = 0; i < len; i++) {
    for (int j = 0; j < n->n_in; j++) ins[j] = mlc_onnx__is_seq(n->im, n->in[j]) ? n->in[j]->tuple.fields[i] : n->in[j];
    if (!mlc_onnx__import_body(n, g, ins, n->n_in, outs, n->n_out)) return false;
    for (int j = 0; j < n->n_out; j++) {
      if (!is_tensor(outs[j])) return mlc_onnx__node_fail(n, "body output %d must be a tensor", j);
      elems[(size_t)j * (size_t)len + (size_t)i] = outs[j];
    }
  }
  for (int j = 0; j < n->n_out; j++)
    if (!(n->out[j] = seq_of(n, elems + (size_t)j * (size_t)len, len))) return false;
  return true;
}

/* ---- optionals --------------------------------------------------------------------- */

bool mlc_onnx__conv_optional(MlcOnnxNode *n) {
  n->out[0] = n->n_in > 0 && n->in[0] ? n->in[0] : mlc_onnx__absent(n->im);
  n->known_out[0] = n->n_in > 0 && n->in[0] ? (MlcTensorData *)n->known_in[0] : NULL;
  return n->out[0] != NULL;
}

bool mlc_onnx__conv_optional_has_element(MlcOnnxNode *n) {
  bool has = n->n_in > 0 && n->in[0] && n->in[0] != n->im->absent;
  n->known_out[0] = mlc_onnx__scalar(n->im->ctx, MLC_BOOL, has);
  return true;
}

bool mlc_onnx__conv_optional_get_element(MlcOnnxNode *n) {
  MlcGExpr *v = mlc_onnx__input(n, 0);
  if (!v) return false;
  if (v == n->im->absent) return mlc_onnx__node_fail(n, "the optional holds no value");
  n->out[0] = v;
  n->known_out[0] = (MlcTensorData *)n->known_in[0];
  return true;
}

/* ---- If on sequences and optionals --------------------------------------------------- */

static bool same_type(const MlcGExpr *a, const MlcGExpr *b) {
  const MlcSInfo *x = mlc_onnx__tensor_sinfo(a), *y = mlc_onnx__tensor_sinfo(b);
  bool same = x && y && mlc_dtype_eq(x->tensor.dtype, y->tensor.dtype) && x->tensor.ndim == y->tensor.ndim;
  for (int d = 0; same && d < x->tensor.ndim; d++) same = mlc_expr_same(x->tensor.shape[d], y->tensor.shape[d]);
  return same;
}

MlcGExpr *mlc_onnx__select_seq(MlcOnnxNode *n, MlcGExpr *c, MlcGExpr *t, MlcGExpr *e) {
  MlcOnnxImporter *im = n->im;
  if (t == im->absent && e == im->absent) return t;
  if (t == im->absent || e == im->absent)
    return mlc_onnx__node_fail(n, "an optional present in one branch and absent in the other, with a condition "
                                  "computed at run time, is not supported"), NULL;
  if (!mlc_onnx__is_seq(im, t) || !mlc_onnx__is_seq(im, e) || t->tuple.n != e->tuple.n)
    return mlc_onnx__node_fail(n, "branches giving sequences of different lengths (or a sequence and a tensor), with a "
                                  "condition computed at run time, are not supported"), NULL;
  int k = t->tuple.n;
  MlcGExpr **f = mlc_arena_array(&im->ctx->arena, (size_t)(k ? k : 1), sizeof *f);
  for (int i = 0; i < k; i++) {
    if (!same_type(t->tuple.fields[i], e->tuple.fields[i]))
      return mlc_onnx__node_fail(n, "a condition computed at run time with branches whose sequence element %d differs "
                                    "in shape or dtype is not supported", i), NULL;
    MlcGExpr *args[3] = {c, t->tuple.fields[i], e->tuple.fields[i]};
    if (!(f[i] = mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}))) return NULL;
  }
  return seq_of(n, f, k);
}

/* ---- what other ops are given ------------------------------------------------------ */

bool mlc_onnx__check_values(MlcOnnxNode *n) {
  static const char *const takes[] = {
#define X(op, since, fn) op,
#include "onnx_seq.def"
#undef X
      "Identity", "Loop"};
  const char *op = n->proto->op_type ? n->proto->op_type : "";
  for (size_t i = 0; i < sizeof takes / sizeof *takes; i++)
    if (!strcmp(op, takes[i])) return true;
  for (int i = 0; i < n->n_in; i++) {
    if (mlc_onnx__is_seq(n->im, n->in[i])) return mlc_onnx__node_fail(n, "input %d is a sequence; a tensor is expected", i);
    if (n->in[i] && n->in[i] == n->im->absent)
      return mlc_onnx__node_fail(n, "input %d is an optional without a value; a tensor is expected", i);
  }
  return true;
}

/* ---- graph inputs and outputs ----------------------------------------------------- */

static const MlcOnnxInputSeq *seq_option(const MlcOnnxOptions *opt, const char *name) {
  for (int i = 0; opt && i < opt->n_seqs; i++)
    if (!strcmp(opt->seqs[i].name, name)) return &opt->seqs[i];
  return NULL;
}

static bool input_fail(MlcOnnxImporter *im, const char *name, const char *what) {
  return mlc_error(im->ctx, im->ctx->build_loc, "input '%s': %s", name, what);
}

static MlcGExpr *param(MlcOnnxImporter *im, const char *name, const Onnx__TypeProto *t, const MlcOnnxOptions *opt,
                       MlcGExprs *params) {
  MlcSInfo *si = mlc_onnx__tensor_type_sinfo(im, name, t, opt);
  MlcGExpr *v = si ? mlc_g_var(im->ctx, mlc_onnx__var_name(im, name), si, false) : NULL;
  if (v) mlc_vec_push(params, v);
  return v;
}

bool mlc_onnx__seq_input(MlcOnnxImporter *im, const Onnx__ValueInfoProto *vi, const MlcOnnxOptions *opt,
                         MlcGExprs *params) {
  MlcCtx *ctx = im->ctx;
  const char *name = vi->name, *key = mlc_intern(ctx, name);
  const Onnx__TypeProto *t = vi->type;
  const MlcOnnxInputSeq *so = seq_option(opt, name);
  if (t->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE) {
    if (!so)
      return input_fail(im, name, "an optional whose presence is known only at run time is not supported (say which: "
                                  "--input-seq NAME=absent or NAME=present)");
    if (so->absent) return mlc_map_put(&im->values, key, mlc_onnx__absent(im)), true;
    t = t->optional_type ? t->optional_type->elem_type : NULL;
    if (!t) return input_fail(im, name, "the optional type has no element type");
    if (t->value_case != ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE) {
      MlcGExpr *v = param(im, name, t, opt, params);
      return v && (mlc_map_put(&im->values, key, v), true);
    }
  }
  if (t->value_case != ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE || !t->sequence_type || !t->sequence_type->elem_type)
    return input_fail(im, name, "a sequence type without an element type");
  if (!so)
    return input_fail(im, name, "a sequence whose length is known only at run time is not supported (give it: "
                                "--input-seq NAME=LEN)");
  if (so->length < 0 || so->length > MAX_LENGTH)
    return input_fail(im, name, "the sequence's length is out of range");
  MlcGExpr **f = mlc_arena_array(&ctx->arena, (size_t)(so->length ? so->length : 1), sizeof *f);
  for (int i = 0; i < so->length; i++)
    if (!(f[i] = param(im, mlc_internf(ctx, "%s[%d]", name, i), t->sequence_type->elem_type, opt, params))) return false;
  MlcGExpr *s = mlc_g_tuple(ctx, f, so->length);
  return s && (mlc_map_put(&im->values, key, s), true);
}

void mlc_onnx__flatten(MlcOnnxImporter *im, const char *name, MlcGExpr *v, MlcGExprs *vals, MlcAttrValues *names) {
  if (!v || v == im->absent) return;
  int k = mlc_onnx__is_seq(im, v) ? v->tuple.n : 1;
  for (int i = 0; i < k; i++) {
    if (vals) mlc_vec_push(vals, mlc_onnx__is_seq(im, v) ? v->tuple.fields[i] : v);
    const char *s = mlc_onnx__is_seq(im, v) ? mlc_internf(im->ctx, "%s[%d]", name, i) : name;
    mlc_vec_push(names, mlc_onnx__av_str(im->ctx, s));
  }
}
