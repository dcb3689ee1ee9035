/* onnx_ops_attention.c - converters of ONNX's Attention (opset 23/24) and
 * RotaryEmbedding (opset 23), composed of registry ops.
 *
 * Both follow the order of operations of ONNX's own function bodies, so
 * the imported graph rounds as the expanded models do: Q and K^T are each
 * scaled by sqrt(scale) before their matmul, softcap comes before the
 * additive bias, the softmax runs in softmax_precision, and a query row
 * whose bias is -inf everywhere is set to 0 after the softmax (decided on
 * the bias, not on the scores, so a NaN score cannot leak through).
 * Every mask becomes one additive bias in the computation's dtype: 0 where
 * a key is attended, -inf where not; the causal part with a compile-time
 * offset is a constant (folded with the rest when there is no other mask),
 * the per-batch one of nonpad_kv_seqlen is built from comparisons.
 * Shapes must be static: head counts, the past length and the mask padding
 * are compile-time decisions here. */
#include <math.h>
#include <string.h>

#include "onnx_convert.h"



/* ---- small builders (NULL in, NULL out, so chains check once) ---------------------------------- */

static MlcGExpr *opt_input(MlcOnnxNode *n, int i) { return i < n->n_in ? n->in[i] : NULL; }

static bool requested(const MlcOnnxNode *n, int i) {
  return i < n->n_out && n->proto->output[i] && *n->proto->output[i];
}

static MlcGExpr *emit_ints(MlcOnnxNode *n, const char *op, MlcGExpr *x, const char *key, const int64_t *v, int k) {
  MlcAttr a = attr(key, mlc_onnx__av_ints(n->im->ctx, v, k));
  return x ? mlc_onnx__emit_attrs(n, op, &x, 1, 1, &a) : NULL;
}

static MlcGExpr *emit_int(MlcOnnxNode *n, const char *op, MlcGExpr *x, const char *key, int64_t v) {
  MlcAttr a = attr(key, mlc_onnx__av_int(v));
  return x ? mlc_onnx__emit_attrs(n, op, &x, 1, 1, &a) : NULL;
}

static MlcGExpr *reshape(MlcOnnxNode *n, MlcGExpr *x, const int64_t *shape, int k) {
  return emit_ints(n, "reshape", x, "shape", shape, k);
}

static MlcGExpr *permute(MlcOnnxNode *n, MlcGExpr *x, const int64_t *axes, int k) {
  return emit_ints(n, "permute_dims", x, "axes", axes, k);
}

static MlcGExpr *binop(MlcOnnxNode *n, const char *op, MlcGExpr *x, MlcGExpr *y) {
  return x && y ? mlc_onnx__emit2(n, op, x, y) : NULL;
}

static MlcGExpr *where(MlcOnnxNode *n, MlcGExpr *c, MlcGExpr *x, MlcGExpr *y) {
  MlcGExpr *args[3] = {c, x, y};
  return c && x && y ? mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}) : NULL;
}

static MlcGExpr *astype(MlcOnnxNode *n, MlcGExpr *x, MlcDType t) {
  if (!x || mlc_dtype_eq(mlc_onnx__dtype_of(x), t)) return x;
  MlcAttr a = attr("dtype", mlc_onnx__av_dtype(t));
  return mlc_onnx__emit_attrs(n, "astype", &x, 1, 1, &a);
}

static MlcGExpr *concat2(MlcOnnxNode *n, MlcGExpr *x, MlcGExpr *y, int64_t axis) {
  if (!x || !y) return NULL;
  MlcGExpr *items[2] = {x, y};
  MlcGExpr *t = mlc_g_tuple(n->im->ctx, items, 2);
  MlcAttr a = attr("axis", mlc_onnx__av_int(axis));
  return t ? mlc_onnx__emit_attrs(n, "concat", &t, 1, 1, &a) : NULL;
}

/* x[..., begin:end:stride] along one axis */
static MlcGExpr *slice(MlcOnnxNode *n, MlcGExpr *x, int64_t axis, int64_t begin, int64_t end, int64_t stride) {
  MlcCtx *ctx = n->im->ctx;
  MlcAttr a[4] = {attr("axes", mlc_onnx__av_ints(ctx, &axis, 1)), attr("begin", mlc_onnx__av_ints(ctx, &begin, 1)),
                  attr("end", mlc_onnx__av_ints(ctx, &end, 1)), attr("strides", mlc_onnx__av_ints(ctx, &stride, 1))};
  return x ? mlc_onnx__emit_attrs(n, "strided_slice", &x, 1, 4, a) : NULL;
}

static MlcGExpr *scalar(MlcOnnxNode *n, MlcDType t, double v) { return mlc_g_const(n->im->ctx, mlc_onnx__scalar(n->im->ctx, t, v)); }

/* the static dims of x, whose rank must be in [lo, hi]; *rank gets it */
static bool static_dims(MlcOnnxNode *n, const MlcGExpr *x, const char *what, int lo, int hi, int64_t *dims, int *rank) {
  *rank = mlc_onnx__rank(x);
  if (*rank < 0) return mlc_onnx__node_fail(n, "%s: input of unknown rank is not supported", what);
  if (*rank < lo || *rank > hi) return mlc_onnx__node_fail(n, "%s: rank %d is not supported (expected %d to %d)", what, *rank, lo, hi);
  for (int i = 0; i < *rank; i++)
    if (!mlc_onnx__const_dim(x, i, &dims[i])) return mlc_onnx__node_fail(n, "%s: symbolic dims are not supported", what);
  return true;
}

/* a constant tensor of the given shape: float32 values, or int64 ones */
static MlcGExpr *const_tensor(MlcOnnxNode *n, MlcDType t, const int64_t *shape, int ndim, const float *f, const int64_t *iv) {
  MlcCtx *ctx = n->im->ctx;
  int64_t numel = 1;
  for (int i = 0; i < ndim; i++) numel *= shape[i];
  MlcTensorData *d = mlc_arena_alloc(&ctx->arena, sizeof *d);
  d->dtype = t;
  d->ndim = ndim;
  d->shape = mlc_arena_dup(&ctx->arena, shape, sizeof(int64_t) * (size_t)(ndim ? ndim : 1));
  d->nbytes = (size_t)numel * mlc_dtype_bytes(t);
  d->data = mlc_arena_dup(&ctx->arena, f ? (const void *)f : (const void *)iv, d->nbytes ? d->nbytes : 1);
  return mlc_g_const(ctx, d);
}

/* 0, 1, ..., k-1 as int64 of the given shape (k elements) */
static MlcGExpr *iota(MlcOnnxNode *n, int64_t k, const int64_t *shape, int ndim) {
  int64_t *v = mlc_arena_array(&n->im->ctx->arena, (size_t)(k ? k : 1), sizeof *v);
  for (int64_t i = 0; i < k; i++) v[i] = i;
  return const_tensor(n, MLC_I64_T, shape, ndim, NULL, v);
}

/* ---- Attention: reading the node ------------------------------------------------------------- */

typedef struct Attn {
  MlcDType t;                   /* Q's dtype: the computation's */
  bool is_3d;                   /* inputs (B, S, H * D), outputs likewise */
  int64_t batch, hq, hkv, s, l; /* batch, heads of Q / of K and V, query length, total key length */
  int64_t past, d, dv;          /* past length, head sizes of Q/K and of V */
  int64_t causal, softcap_on, mode;
  double scale, softcap;
  bool has_precision;
  MlcDType precision;
  MlcGExpr *q, *k, *v; /* (B, H, S, D), keys and values with the past in front */
} Attn;

static bool read_attrs(MlcOnnxNode *n, Attn *a) {
  int64_t prec;
  if (!mlc_onnx__attr_int(n, "is_causal", 0, &a->causal) || !mlc_onnx__attr_float(n, "softcap", 0, &a->softcap) ||
      !mlc_onnx__attr_int(n, "qk_matmul_output_mode", 0, &a->mode) || !mlc_onnx__attr_float(n, "scale", 0, &a->scale) ||
      !mlc_onnx__attr_int(n, "softmax_precision", 0, &prec))
    return false;
  if (a->mode < 0 || a->mode > 3)
    return mlc_onnx__node_fail(n, "qk_matmul_output_mode %lld is not supported (0 to 3)", (long long)a->mode);
  if (a->softcap < 0) return mlc_onnx__node_fail(n, "a negative softcap (%g) is not supported", a->softcap);
  a->softcap_on = a->softcap > 0;
  a->has_precision = mlc_onnx__attr(n, "softmax_precision") != NULL;
  if (a->has_precision && (!mlc_onnx__dtype((int32_t)prec, &a->precision) || !mlc_dtype_is_float(a->precision)))
    return mlc_onnx__node_fail(n, "softmax_precision %lld is not supported (a float type is expected)", (long long)prec);
  return true;
}

/* x of rank 3 (B, S, heads * size) as (B, heads, S, size); rank 4 as is */
static MlcGExpr *to_heads(MlcOnnxNode *n, MlcGExpr *x, const char *what, bool is_3d, int64_t heads, int64_t *dims4) {
  int64_t dims[MLC_ONNX_MAX_RANK];
  int rank;
  if (!static_dims(n, x, what, 3, 4, dims, &rank)) return NULL;
  if ((rank == 3) != is_3d) return mlc_onnx__node_fail(n, "Q, K and V must have one rank"), NULL;
  if (rank == 4) {
    memcpy(dims4, dims, 4 * sizeof *dims);
    return x;
  }
  if (heads <= 0) return mlc_onnx__node_fail(n, "3-D inputs need the q_num_heads and kv_num_heads attributes"), NULL;
  if (dims[2] % heads)
    return mlc_onnx__node_fail(n, "%s: hidden size %lld does not split into %lld heads", what, (long long)dims[2], (long long)heads),
           NULL;
  int64_t split[4] = {dims[0], dims[1], heads, dims[2] / heads}, perm[4] = {0, 2, 1, 3};
  dims4[0] = dims[0], dims4[1] = heads, dims4[2] = dims[1], dims4[3] = dims[2] / heads;
  return permute(n, reshape(n, x, split, 4), perm, 4);
}

/* past (B, H, P, size) in front of x along the sequence; *len grows by P */
static MlcGExpr *with_past(MlcOnnxNode *n, MlcGExpr *x, MlcGExpr *past, const char *what, const int64_t *xd, int64_t *len) {
  int64_t pd[MLC_ONNX_MAX_RANK];
  int rank;
  if (!past) return x;
  if (!static_dims(n, past, what, 4, 4, pd, &rank)) return NULL;
  if (pd[0] != xd[0] || pd[1] != xd[1] || pd[3] != xd[3])
    return mlc_onnx__node_fail(n, "%s: shape does not match the keys/values (batch, heads, head size)", what), NULL;
  *len = pd[2];
  return concat2(n, past, x, 2);
}

static bool read_inputs(MlcOnnxNode *n, Attn *a) {
  MlcGExpr *q = mlc_onnx__input(n, 0), *k = mlc_onnx__input(n, 1), *v = mlc_onnx__input(n, 2);
  MlcGExpr *pk = opt_input(n, 4), *pv = opt_input(n, 5);
  int64_t qh = 0, kvh = 0, qd[4], kd[4], vd[4], pl = 0, pvl = 0;
  if (!q || !k || !v || !mlc_onnx__attr_int(n, "q_num_heads", 0, &qh) || !mlc_onnx__attr_int(n, "kv_num_heads", 0, &kvh))
    return false;
  a->t = mlc_onnx__dtype_of(q);
  if (!mlc_dtype_is_float(a->t)) return mlc_onnx__node_fail(n, "Q of a non-float type is not supported");
  if (!pk != !pv) return mlc_onnx__node_fail(n, "past_key and past_value must be given together");
  if (pk && opt_input(n, 6)) return mlc_onnx__node_fail(n, "nonpad_kv_seqlen with a past cache is not supported");
  a->is_3d = mlc_onnx__rank(q) == 3;
  if (!(q = to_heads(n, q, "Q", a->is_3d, qh, qd)) || !(k = to_heads(n, k, "K", a->is_3d, kvh, kd)) ||
      !(v = to_heads(n, v, "V", a->is_3d, kvh, vd)))
    return false;
  if (kd[0] != qd[0] || vd[0] != qd[0] || kd[1] != vd[1] || kd[2] != vd[2] || kd[3] != qd[3])
    return mlc_onnx__node_fail(n, "the shapes of Q, K and V do not agree");
  if (!(k = with_past(n, k, pk, "past_key", kd, &pl)) || !(v = with_past(n, v, pv, "past_value", vd, &pvl))) return false;
  if (pl != pvl) return mlc_onnx__node_fail(n, "past_key and past_value have different lengths");
  a->batch = qd[0], a->hq = qd[1], a->hkv = kd[1], a->s = qd[2], a->l = kd[2] + pl, a->past = pl;
  a->d = qd[3], a->dv = vd[3];
  a->q = q, a->k = k, a->v = v;
  return true;
}

/* ---- Attention: the bias ----------------------------------------------------------------------- */

/* the mask as 0 / -inf (bool) or as given (float), in T, its keys padded to l with -inf */
static MlcGExpr *mask_bias(MlcOnnxNode *n, const Attn *a, MlcGExpr *mask) {
  int64_t dims[MLC_ONNX_MAX_RANK];
  int rank;
  if (!static_dims(n, mask, "attn_mask", 1, 4, dims, &rank)) return NULL;
  MlcDType mt = mlc_onnx__dtype_of(mask);
  MlcGExpr *b;
  if (mt.code == MLC_TC_BOOL) b = where(n, mask, scalar(n, a->t, 0), scalar(n, a->t, -INFINITY));
  else if (mlc_dtype_is_float(mt)) b = astype(n, mask, a->t);
  else return mlc_onnx__node_fail(n, "attn_mask of a type other than bool or float is not supported"), NULL;
  int64_t keys = dims[rank - 1];
  if (keys > a->l)
    return mlc_onnx__node_fail(n, "attn_mask covers %lld keys, more than the %lld present", (long long)keys, (long long)a->l), NULL;
  if (keys == a->l) return b;
  int64_t pads[2 * 4] = {0};
  pads[2 * rank - 1] = a->l - keys;
  MlcAttr pa[2] = {attr("pad_width", mlc_onnx__av_ints(n->im->ctx, pads, 2 * rank)),
                   attr("pad_value", mlc_onnx__av_float(-INFINITY))};
  return b ? mlc_onnx__emit_attrs(n, "nn.pad", &b, 1, 2, pa) : NULL;
}

/* key j is seen from query i iff j <= i + past: a constant (S, L) */
static MlcGExpr *causal_const(MlcOnnxNode *n, const Attn *a) {
  size_t numel = (size_t)(a->s * a->l);
  float *v = mlc_arena_array(&n->im->ctx->arena, numel ? numel : 1, sizeof *v);
  for (int64_t i = 0; i < a->s; i++)
    for (int64_t j = 0; j < a->l; j++) v[i * a->l + j] = j <= i + a->past ? 0.0f : -INFINITY;
  int64_t shape[2] = {a->s, a->l};
  return astype(n, const_tensor(n, MLC_F32, shape, 2, v, NULL), a->t);
}

/* per batch b, key j seen from query i iff j <= i + nonpad[b] - S: (B, 1, S, L) */
static MlcGExpr *causal_nonpad(MlcOnnxNode *n, const Attn *a, MlcGExpr *nonpad) {
  int64_t rshape[2] = {a->s, 1}, cshape[2] = {1, a->l}, b4[4] = {a->batch, 1, 1, 1};
  MlcGExpr *off = binop(n, "subtract", nonpad, scalar(n, MLC_I64_T, (double)a->s));
  MlcGExpr *row = binop(n, "add", iota(n, a->s, rshape, 2), reshape(n, off, b4, 4));
  MlcGExpr *hidden = binop(n, "less", row, iota(n, a->l, cshape, 2));
  return where(n, hidden, scalar(n, a->t, -INFINITY), scalar(n, a->t, 0));
}

/* keys at or past nonpad[b] are hidden: (B, 1, 1, L) */
static MlcGExpr *padding_bias(MlcOnnxNode *n, const Attn *a, MlcGExpr *nonpad) {
  int64_t cshape[2] = {1, a->l}, b2[2] = {a->batch, 1}, b4[4] = {a->batch, 1, 1, a->l};
  MlcGExpr *keep = binop(n, "less", iota(n, a->l, cshape, 2), reshape(n, nonpad, b2, 2));
  return reshape(n, where(n, keep, scalar(n, a->t, 0), scalar(n, a->t, -INFINITY)), b4, 4);
}

static MlcGExpr *add_opt(MlcOnnxNode *n, MlcGExpr *x, MlcGExpr *y) { return x ? binop(n, "add", x, y) : y; }

/* the additive bias of the mask, causality and padding; *bias NULL when none applies */
static bool build_bias(MlcOnnxNode *n, const Attn *a, MlcGExpr **bias) {
  MlcGExpr *mask = opt_input(n, 3), *nonpad = opt_input(n, 6), *b = NULL;
  *bias = NULL;
  if (nonpad) {
    int64_t nd[MLC_ONNX_MAX_RANK];
    int rank;
    if (!static_dims(n, nonpad, "nonpad_kv_seqlen", 1, 1, nd, &rank)) return false;
    if (nd[0] != a->batch) return mlc_onnx__node_fail(n, "nonpad_kv_seqlen has %lld values, the batch is %lld", (long long)nd[0], (long long)a->batch);
    if (!mlc_dtype_is_int(mlc_onnx__dtype_of(nonpad))) return mlc_onnx__node_fail(n, "nonpad_kv_seqlen must be an integer tensor");
    if (!(nonpad = astype(n, nonpad, MLC_I64_T))) return false;
  }
  if (mask && !(b = mask_bias(n, a, mask))) return false;
  if (a->causal && !(b = add_opt(n, b, nonpad ? causal_nonpad(n, a, nonpad) : causal_const(n, a)))) return false;
  if (nonpad && !(b = add_opt(n, b, padding_bias(n, a, nonpad)))) return false;
  *bias = b;
  return true;
}

/* ---- Attention: the computation ---------------------------------------------------------------- */

/* x (B, Hkv, L, D) with each head repeated Hq / Hkv times in place: h0 h0 h1 h1 ... */
static MlcGExpr *repeat_heads(MlcOnnxNode *n, const Attn *a, MlcGExpr *x, int64_t size) {
  if (a->hq == a->hkv) return x;
  int64_t axis = 2, r = a->hq / a->hkv;
  int64_t wide[5] = {a->batch, a->hkv, r, a->l, size}, flat[4] = {a->batch, a->hq, a->l, size};
  MlcGExpr *e = emit_ints(n, "expand_dims", x, "axis", &axis, 1);
  return reshape(n, emit_ints(n, "broadcast_to", e, "shape", wide, 5), flat, 4);
}

/* Q K^T, each side scaled by sqrt(scale) as the function body does */
static MlcGExpr *scores(MlcOnnxNode *n, const Attn *a, MlcGExpr *k) {
  double scale = mlc_onnx__attr(n, "scale") ? a->scale : 1.0 / sqrt((double)a->d);
  MlcGExpr *sq = scalar(n, a->t, sqrt(scale));
  int64_t perm[4] = {0, 1, 3, 2};
  MlcGExpr *kt = binop(n, "multiply", permute(n, k, perm, 4), sq);
  return binop(n, "matmul", binop(n, "multiply", a->q, sq), kt);
}

static MlcGExpr *softcap(MlcOnnxNode *n, const Attn *a, MlcGExpr *x) {
  if (!a->softcap_on) return x;
  MlcGExpr *c = scalar(n, a->t, a->softcap);
  return binop(n, "multiply", mlc_onnx__emit1(n, "tanh", binop(n, "divide", x, c)), c);
}

/* softmax over the keys in softmax_precision, back in T; rows the bias hides
 * entirely are 0 */
static MlcGExpr *probabilities(MlcOnnxNode *n, const Attn *a, MlcGExpr *x, MlcGExpr *bias) {
  MlcGExpr *p = astype(n, emit_int(n, "nn.softmax", astype(n, x, a->has_precision ? a->precision : a->t), "axis", 3), a->t);
  if (!bias || !p) return p;
  int64_t last = mlc_onnx__rank(bias) - 1;
  MlcAttr ra[2] = {attr("axis", mlc_onnx__av_ints(n->im->ctx, &last, 1)), attr("keepdims", av_bool(true))};
  MlcGExpr *row_max = mlc_onnx__emit_attrs(n, "max", &bias, 1, 2, ra);
  MlcGExpr *hidden = binop(n, "equal", row_max, scalar(n, a->t, -INFINITY));
  return where(n, hidden, scalar(n, a->t, 0), p);
}

bool mlc_onnx__conv_attention(MlcOnnxNode *n) {
  Attn a = {0};
  MlcGExpr *bias;
  if (!read_attrs(n, &a) || !read_inputs(n, &a) || !build_bias(n, &a, &bias)) return false;
  if (a.hq != a.hkv && (a.hkv <= 0 || a.hq % a.hkv))
    return mlc_onnx__node_fail(n, "%lld query heads over %lld key/value heads is not supported (a multiple is expected)",
                               (long long)a.hq, (long long)a.hkv);
  MlcGExpr *qk = softcap(n, &a, scores(n, &a, repeat_heads(n, &a, a.k, a.d)));
  MlcGExpr *biased = bias ? binop(n, "add", qk, bias) : qk;
  MlcGExpr *p = probabilities(n, &a, biased, bias);
  MlcGExpr *y = binop(n, "matmul", p, repeat_heads(n, &a, a.v, a.dv));
  if (a.is_3d) {
    int64_t perm[4] = {0, 2, 1, 3}, flat[3] = {a.batch, a.s, a.hq * a.dv};
    y = reshape(n, permute(n, y, perm, 4), flat, 3);
  }
  if (!y) return false;
  n->out[0] = y;
  if (requested(n, 1)) n->out[1] = a.k;
  if (requested(n, 2)) n->out[2] = a.v;
  if (requested(n, 3)) n->out[3] = a.mode == 3 ? p : a.mode == 2 ? biased : qk;
  return true;
}

/* ---- RotaryEmbedding ---------------------------------------------------------------------------- */

typedef struct Rope {
  int64_t dims[4]; /* of the input seen as (B, S, H, D) */
  int64_t rot, interleaved;
} Rope;

/* the input as (B, S, H, D): rank 4 is (B, H, S, D), rank 3 (B, S, H * D) */
static MlcGExpr *rope_input(MlcOnnxNode *n, MlcGExpr *x, int rank, const int64_t *xd, Rope *r) {
  int64_t heads, perm[4] = {0, 2, 1, 3};
  if (!mlc_onnx__attr_int(n, "num_heads", 0, &heads)) return NULL;
  if (rank == 4) {
    r->dims[0] = xd[0], r->dims[1] = xd[2], r->dims[2] = xd[1], r->dims[3] = xd[3];
    return permute(n, x, perm, 4);
  }
  if (heads <= 0 || xd[2] % heads)
    return mlc_onnx__node_fail(n, "a 3-D input needs num_heads dividing its hidden size %lld (num_heads %lld)",
                               (long long)xd[2], (long long)heads),
           NULL;
  r->dims[0] = xd[0], r->dims[1] = xd[1], r->dims[2] = heads, r->dims[3] = xd[2] / heads;
  return reshape(n, x, r->dims, 4);
}

/* cache rows for each position as (B, S, 1, rot / 2) */
static MlcGExpr *rope_cache(MlcOnnxNode *n, const Rope *r, MlcGExpr *cache, MlcGExpr *pos, const char *what) {
  int64_t cd[MLC_ONNX_MAX_RANK], axis = 2;
  int rank;
  if (!static_dims(n, cache, what, 2, 3, cd, &rank)) return NULL;
  if (cd[rank - 1] != r->rot / 2)
    return mlc_onnx__node_fail(n, "%s: last dim %lld does not match rotary_embedding_dim / 2 = %lld", what,
                               (long long)cd[rank - 1], (long long)(r->rot / 2)),
           NULL;
  if (pos) {
    if (rank != 2) return mlc_onnx__node_fail(n, "%s: with position_ids a 2-D cache is expected", what), NULL;
    /* "fast": a position out of the cache is a run-time error, not clipped */
    MlcAttr ta[2] = {attr("axis", mlc_onnx__av_int(0)), attr("mode", mlc_onnx__av_str(n->im->ctx, "fast"))};
    MlcGExpr *args[2] = {cache, pos};
    cache = mlc_onnx__emit_attrs(n, "take", args, 2, 2, ta);
  } else if (rank != 3 || cd[0] != r->dims[0] || cd[1] != r->dims[1]) {
    return mlc_onnx__node_fail(n, "%s: without position_ids a (batch, sequence, rotary_dim / 2) cache is expected", what), NULL;
  }
  return emit_ints(n, "expand_dims", cache, "axis", &axis, 1);
}

/* the rotated part: x1 cos - x2 sin and x1 sin + x2 cos, halves or interleaved pairs */
static MlcGExpr *rotate(MlcOnnxNode *n, const Rope *r, MlcGExpr *x, MlcGExpr *c, MlcGExpr *s) {
  int64_t half = r->rot / 2;
  MlcGExpr *x1 = r->interleaved ? slice(n, x, 3, 0, r->rot, 2) : slice(n, x, 3, 0, half, 1);
  MlcGExpr *x2 = r->interleaved ? slice(n, x, 3, 1, r->rot, 2) : slice(n, x, 3, half, r->rot, 1);
  MlcGExpr *re = binop(n, "subtract", binop(n, "multiply", c, x1), binop(n, "multiply", s, x2));
  MlcGExpr *im = binop(n, "add", binop(n, "multiply", s, x1), binop(n, "multiply", c, x2));
  if (!r->interleaved) return concat2(n, re, im, 3);
  int64_t last = 4, shape[4] = {r->dims[0], r->dims[1], r->dims[2], r->rot};
  MlcGExpr *pairs = concat2(n, emit_ints(n, "expand_dims", re, "axis", &last, 1), emit_ints(n, "expand_dims", im, "axis", &last, 1), 4);
  return reshape(n, pairs, shape, 4);
}

bool mlc_onnx__conv_rotary_embedding(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0), *cos_c = mlc_onnx__input(n, 1), *sin_c = mlc_onnx__input(n, 2);
  MlcGExpr *pos = opt_input(n, 3);
  Rope r = {0};
  int64_t xd[MLC_ONNX_MAX_RANK];
  int rank;
  if (!x || !cos_c || !sin_c || !static_dims(n, x, "input", 3, 4, xd, &rank) ||
      !mlc_onnx__attr_int(n, "interleaved", 0, &r.interleaved) || !mlc_onnx__attr_int(n, "rotary_embedding_dim", 0, &r.rot))
    return false;
  if (pos && !mlc_dtype_is_int(mlc_onnx__dtype_of(pos))) return mlc_onnx__node_fail(n, "position_ids must be an integer tensor");
  MlcGExpr *xs = rope_input(n, x, rank, xd, &r);
  if (!xs) return false;
  int64_t d = r.dims[3];
  if (r.rot == 0) r.rot = d;
  if (r.rot < 0 || r.rot > d || r.rot % 2)
    return mlc_onnx__node_fail(n, "rotary_embedding_dim %lld is not supported for head size %lld (an even size up to it is expected)",
                               (long long)r.rot, (long long)d);
  MlcGExpr *c = rope_cache(n, &r, cos_c, pos, "cos_cache"), *s = c ? rope_cache(n, &r, sin_c, pos, "sin_cache") : NULL;
  if (!s) return false;
  MlcGExpr *y = rotate(n, &r, r.rot < d ? slice(n, xs, 3, 0, r.rot, 1) : xs, c, s);
  if (r.rot < d) y = concat2(n, y, slice(n, xs, 3, r.rot, d, 1), 3);
  if (rank == 4) {
    int64_t perm[4] = {0, 2, 1, 3};
    y = permute(n, y, perm, 4);
  } else {
    y = reshape(n, y, xd, 3);
  }
  return (n->out[0] = y) != NULL;
}
