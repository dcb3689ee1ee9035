/* onnx_ops_rnn.c - converters of ONNX's recurrent layers (RNN, GRU, LSTM),
 * composed of graph ops.
 *
 * The input projection of every time step is one nn.linear over the whole
 * sequence (with both biases folded in), before the steps; each step then
 * adds the hidden state's projection and applies the cell's gates, a small
 * chain of elementwise ops that fusion turns into a few kernels.  A short
 * sequence of static length (at most MlcOnnxOptions.unroll_steps, 16 by
 * default) is unrolled: one chain
 * per step and direction.  A longer one, or one whose length is known only
 * at run time, is one R.loop per direction (onnx_loop_body.c) whose body is
 * the cell for one step: it takes the step's row of the projection
 * (`take` by the iteration number, counted down for a reverse pass), carries
 * h (and c), and emits h as the scan element; a reverse pass's elements are
 * flipped back into time order after the loop.  The graph and the C then
 * stay the same size whatever the length.  sequence_lens is honoured at run
 * time with a mask: a batch entry past its length keeps its state and emits
 * zeros, which also starts a reverse pass at the right step. */
#include <math.h>
#include <string.h>

#include "onnx_convert.h"


typedef enum { CELL_RNN, CELL_GRU, CELL_LSTM } CellKind;

typedef struct Act { const char *name; double alpha, beta; } Act;

typedef struct Rnn {
  MlcOnnxNode *n;
  CellKind kind;
  int gates;                  /* 1, 3, 4 */
  int64_t T, B, I, H, D;      /* steps (-1: known at run time), batch, input size, hidden size, directions */
  MlcExpr *Tdim;              /* the steps as a size */
  bool reverse_only, layout1, linear_before_reset, input_forget;
  double clip;                /* 0: none */
  Act act[2][3];              /* per direction: f, g, h */
  MlcGExpr *seq_lens;         /* [B, 1] int64, or NULL */
} Rnn;

/* ---- small builders --------------------------------------------------------------------- */

static MlcGExpr *with_ints(MlcOnnxNode *n, const char *op, MlcGExpr *x, const char *key, const int64_t *v, int k) {
  MlcAttr a = attr(key, mlc_onnx__av_ints(n->im->ctx, v, k));
  return x ? mlc_onnx__emit_attrs(n, op, &x, 1, 1, &a) : NULL;
}

/* x[i] along axis 0, that axis dropped */
static MlcGExpr *row(MlcOnnxNode *n, MlcGExpr *x, int64_t i, int64_t axis) {
  MlcCtx *ctx = n->im->ctx;
  int64_t end = i + 1, one = 1;
  MlcAttr a[4] = {attr("axes", mlc_onnx__av_ints(ctx, &axis, 1)), attr("begin", mlc_onnx__av_ints(ctx, &i, 1)),
                  attr("end", mlc_onnx__av_ints(ctx, &end, 1)), attr("strides", mlc_onnx__av_ints(ctx, &one, 1))};
  MlcGExpr *s = x ? mlc_onnx__emit_attrs(n, "strided_slice", &x, 1, 4, a) : NULL;
  return with_ints(n, "squeeze", s, "axis", &axis, 1);
}

/* the items stacked along a new axis */
static MlcGExpr *stack(MlcOnnxNode *n, MlcGExpr **items, int64_t k, int64_t axis) {
  MlcGExpr **e = mlc_arena_array(&n->im->ctx->arena, (size_t)k, sizeof *e);
  for (int64_t i = 0; i < k; i++)
    if (!(e[i] = with_ints(n, "expand_dims", items[i], "axis", &axis, 1))) return NULL;
  if (k == 1) return e[0];
  MlcGExpr *t = mlc_g_tuple(n->im->ctx, e, (int)k);
  MlcAttr a = attr("axis", mlc_onnx__av_int(axis));
  return t ? mlc_onnx__emit_attrs(n, "concat", &t, 1, 1, &a) : NULL;
}

static MlcGExpr *i64(MlcOnnxNode *n, int64_t v) {
  return mlc_g_const(n->im->ctx, mlc_onnx__scalar(n->im->ctx, MLC_I64_T, (double)v));
}
static MlcGExpr *scalar(MlcOnnxNode *n, double v) { return mlc_g_const(n->im->ctx, mlc_onnx__scalar(n->im->ctx, MLC_F32, v)); }
static MlcGExpr *add(MlcOnnxNode *n, MlcGExpr *a, MlcGExpr *b) { return mlc_onnx__emit2(n, "add", a, b); }
static MlcGExpr *mul(MlcOnnxNode *n, MlcGExpr *a, MlcGExpr *b) { return mlc_onnx__emit2(n, "multiply", a, b); }
static MlcGExpr *sub(MlcOnnxNode *n, MlcGExpr *a, MlcGExpr *b) { return mlc_onnx__emit2(n, "subtract", a, b); }

/* ---- activations ------------------------------------------------------------------------ */

static MlcGExpr *activate(MlcOnnxNode *n, const Act *f, MlcGExpr *x) {
  const char *s = f->name;
  double a = f->alpha, b = f->beta;
  if (!x) return NULL;
  if (!strcmp(s, "Sigmoid")) return mlc_onnx__emit1(n, "sigmoid", x);
  if (!strcmp(s, "Tanh")) return mlc_onnx__emit1(n, "tanh", x);
  if (!strcmp(s, "Relu")) return mlc_onnx__emit1(n, "nn.relu", x);
  if (!strcmp(s, "Affine")) return add(n, mul(n, x, scalar(n, a)), scalar(n, b));
  if (!strcmp(s, "ScaledTanh")) return mul(n, mlc_onnx__emit1(n, "tanh", mul(n, x, scalar(n, b))), scalar(n, a));
  if (!strcmp(s, "HardSigmoid")) {
    MlcGExpr *y = add(n, mul(n, x, scalar(n, a)), scalar(n, b));
    return mlc_onnx__emit2(n, "minimum", mlc_onnx__emit2(n, "maximum", y, scalar(n, 0)), scalar(n, 1));
  }
  if (!strcmp(s, "LeakyRelu")) {
    MlcGExpr *neg = mlc_onnx__emit2(n, "less", x, scalar(n, 0));
    MlcGExpr *args[3] = {neg, mul(n, x, scalar(n, a)), x};
    return neg && args[1] ? mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}) : NULL;
  }
  if (!strcmp(s, "Softsign"))
    return mlc_onnx__emit2(n, "divide", x, add(n, mlc_onnx__emit1(n, "abs", x), scalar(n, 1)));
  return mlc_onnx__node_fail(n, "activation '%s' is not supported (Sigmoid, Tanh, Relu, Affine, ScaledTanh, "
                                "HardSigmoid, LeakyRelu, Softsign are)", s), NULL;
}

/* defaults of the activations that take parameters; *uses: how many of
 * activation_alpha / activation_beta it consumes */
static void act_defaults(Act *f, int *uses_a, int *uses_b) {
  *uses_a = *uses_b = 0;
  if (!strcmp(f->name, "LeakyRelu")) f->alpha = 0.01, *uses_a = 1;
  else if (!strcmp(f->name, "HardSigmoid")) f->alpha = 0.2, f->beta = 0.5, *uses_a = *uses_b = 1;
  else if (!strcmp(f->name, "Affine") || !strcmp(f->name, "ScaledTanh")) f->alpha = 1, f->beta = 0, *uses_a = *uses_b = 1;
}

static bool read_activations(Rnn *r) {
  MlcOnnxNode *n = r->n;
  static const char *const dflt[3][3] = {{"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
  int per = r->kind == CELL_RNN ? 1 : r->kind == CELL_GRU ? 2 : 3;
  const Onnx__AttributeProto *names = mlc_onnx__attr(n, "activations");
  const Onnx__AttributeProto *al = mlc_onnx__attr(n, "activation_alpha"), *be = mlc_onnx__attr(n, "activation_beta");
  if (names && names->n_strings != (size_t)(per * r->D))
    return mlc_onnx__node_fail(n, "activations lists %zu functions, %d expected", names->n_strings, (int)(per * r->D));
  size_t ia = 0, ib = 0;
  for (int d = 0; d < r->D; d++)
    for (int k = 0; k < per; k++) {
      Act *f = &r->act[d][k];
      if (names) {
        const ProtobufCBinaryData *s = &names->strings[d * per + k];
        f->name = mlc_intern_n(n->im->ctx, (const char *)s->data, s->len);
      } else {
        f->name = dflt[per - 1][k];
      }
      int ua, ub;
      act_defaults(f, &ua, &ub);
      if (ua && al && ia < al->n_floats) f->alpha = al->floats[ia++];
      if (ub && be && ib < be->n_floats) f->beta = be->floats[ib++];
    }
  return true;
}

/* ---- reading the node ------------------------------------------------------------------- */

static bool read_rnn(Rnn *r, MlcOnnxNode *n, CellKind kind) {
  memset(r, 0, sizeof *r);
  r->n = n, r->kind = kind;
  r->gates = kind == CELL_RNN ? 1 : kind == CELL_GRU ? 3 : 4;
  int64_t layout, lbr, input_forget, hidden;
  double clip;
  if (!mlc_onnx__attr_int(n, "layout", 0, &layout) || !mlc_onnx__attr_int(n, "linear_before_reset", 0, &lbr) ||
      !mlc_onnx__attr_int(n, "input_forget", 0, &input_forget) || !mlc_onnx__attr_int(n, "hidden_size", 0, &hidden) ||
      !mlc_onnx__attr_float(n, "clip", 0, &clip))
    return false;
  r->layout1 = layout != 0, r->linear_before_reset = lbr != 0, r->input_forget = input_forget != 0;
  r->clip = clip > 0 ? clip : 0;
  const char *dir = mlc_onnx__attr_str(n, "direction", "forward");
  if (!dir) dir = "forward";
  if (!strcmp(dir, "forward") || !strcmp(dir, "reverse")) r->D = 1, r->reverse_only = !strcmp(dir, "reverse");
  else if (!strcmp(dir, "bidirectional")) r->D = 2;
  else return mlc_onnx__node_fail(n, "direction '%s' is not supported (forward, reverse, bidirectional)", dir);
  MlcGExpr *x = mlc_onnx__input(n, 0), *w = mlc_onnx__input(n, 1), *rr = mlc_onnx__input(n, 2);
  if (!x || !w || !rr) return false;
  if (!mlc_dtype_eq(mlc_onnx__dtype_of(x), MLC_F32)) return mlc_onnx__node_fail(n, "only float32 is supported");
  int64_t wd[3];
  if (mlc_onnx__rank(x) != 3 || mlc_onnx__rank(w) != 3 || mlc_onnx__rank(rr) != 3)
    return mlc_onnx__node_fail(n, "X, W and R must have rank 3");
  if (!mlc_onnx__const_dim(x, r->layout1 ? 1 : 0, &r->T)) r->T = -1;
  r->Tdim = mlc_onnx__tensor_sinfo(x)->tensor.shape[r->layout1 ? 1 : 0];
  if (!mlc_onnx__const_dim(x, r->layout1 ? 0 : 1, &r->B) || !mlc_onnx__const_dim(x, 2, &r->I))
    return mlc_onnx__node_fail(n, "the input's batch and input sizes must be static");
  for (int i = 0; i < 3; i++)
    if (!mlc_onnx__const_dim(w, i, &wd[i])) return mlc_onnx__node_fail(n, "W's sizes must be static");
  if (hidden <= 0) hidden = wd[1] / r->gates;
  r->H = hidden;
  if (r->H > MLC_ONNX_MAX_NUMEL / r->gates || (r->B && r->H > MLC_ONNX_MAX_NUMEL / r->B))
    return mlc_onnx__node_fail(n, "hidden_size %lld is too large", (long long)r->H);
  if (wd[0] != r->D || wd[1] != r->gates * r->H || wd[2] != r->I)
    return mlc_onnx__node_fail(n, "W must be [%lld, %lld, %lld]", (long long)r->D, (long long)(r->gates * r->H), (long long)r->I);
  if (r->T == 0) return mlc_onnx__node_fail(n, "a sequence of 0 steps is not supported");
  MlcGExpr *sl = n->n_in > 4 ? n->in[4] : NULL;
  if (sl) {
    int64_t one = 1;
    r->seq_lens = with_ints(n, "expand_dims", sl, "axis", &one, 1);
    if (!r->seq_lens) return false;
  }
  return read_activations(r);
}

/* input k's slice for direction d (its axis 0), or NULL when absent */
static MlcGExpr *per_dir(Rnn *r, int k, int64_t d) {
  MlcOnnxNode *n = r->n;
  MlcGExpr *v = k < n->n_in ? n->in[k] : NULL;
  return v ? row(n, v, d, 0) : NULL;
}

static MlcGExpr *zeros(MlcOnnxNode *n, int64_t b, int64_t h);

/* an initial state [B, H] of direction d from input k (layout-aware), or zeros */
static MlcGExpr *initial(Rnn *r, int k, int64_t d) {
  MlcOnnxNode *n = r->n;
  MlcGExpr *v = k < n->n_in ? n->in[k] : NULL;
  return v ? row(n, v, d, r->layout1 ? 1 : 0) : zeros(n, r->B, r->H);
}

static MlcGExpr *clipped(Rnn *r, MlcGExpr *x) {
  if (!r->clip || !x) return x;
  MlcOnnxNode *n = r->n;
  return mlc_onnx__emit2(n, "minimum", mlc_onnx__emit2(n, "maximum", x, scalar(n, -r->clip)), scalar(n, r->clip));
}

static MlcGExpr *f_of(Rnn *r, int d, int k, MlcGExpr *x) { return activate(r->n, &r->act[d][k], clipped(r, x)); }

/* step t as a 0-d tensor of sequence_lens' dtype: a constant, or (in a
 * loop body) the tensor t converted */
static MlcGExpr *step_value(Rnn *r, int64_t t, MlcGExpr *tv) {
  MlcOnnxNode *n = r->n;
  if (!r->seq_lens) return NULL;
  MlcDType lt = mlc_onnx__dtype_of(r->seq_lens);
  if (!tv) return mlc_g_const(n->im->ctx, mlc_onnx__scalar(n->im->ctx, lt, (double)t));
  MlcAttr a = attr("dtype", mlc_onnx__av_dtype(lt));
  return mlc_onnx__emit_attrs(n, "astype", &tv, 1, 1, &a);
}

/* where(step tv is inside the batch entry's length, a, b) */
static MlcGExpr *masked(Rnn *r, MlcGExpr *tv, MlcGExpr *a, MlcGExpr *b) {
  MlcOnnxNode *n = r->n;
  if (!r->seq_lens || !a || !b) return a;
  MlcGExpr *in = tv ? mlc_onnx__emit2(n, "less", tv, r->seq_lens) : NULL;
  MlcGExpr *args[3] = {in, a, b};
  return in ? mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}) : NULL;
}

/* ---- one direction -------------------------------------------------------------------- */

/* x[..., begin:end] along axis (-1: the last) */
static MlcGExpr *range_of(MlcOnnxNode *n, MlcGExpr *x, int64_t axis, int64_t begin, int64_t end) {
  MlcCtx *ctx = n->im->ctx;
  int64_t one = 1;
  MlcAttr a[4] = {attr("axes", mlc_onnx__av_ints(ctx, &axis, 1)), attr("begin", mlc_onnx__av_ints(ctx, &begin, 1)),
                  attr("end", mlc_onnx__av_ints(ctx, &end, 1)), attr("strides", mlc_onnx__av_ints(ctx, &one, 1))};
  return x ? mlc_onnx__emit_attrs(n, "strided_slice", &x, 1, 4, a) : NULL;
}

static MlcGExpr *linear(MlcOnnxNode *n, MlcGExpr *x, MlcGExpr *w) {
  MlcGExpr *a[2] = {x, w};
  return x && w ? mlc_onnx__emit(n, "nn.linear", a, 2, (MlcAttrs){0}) : NULL;
}

/* zeros [b, h], made at run time (sizes come from the model's declarations) */
static MlcGExpr *zeros(MlcOnnxNode *n, int64_t b, int64_t h) {
  int64_t shape[2] = {b, h};
  MlcAttr a[2] = {attr("shape", mlc_onnx__av_ints(n->im->ctx, shape, 2)), attr("dtype", mlc_onnx__av_dtype(MLC_F32))};
  return mlc_onnx__emit_attrs(n, "zeros", NULL, 0, 2, a);
}

/* the bias folded into the input projection: Wb + Rb, except the hidden
 * gate's Rb of a GRU with linear_before_reset, which goes inside the reset
 * product */
static MlcGExpr *input_bias(Rnn *r, MlcGExpr *Bv, MlcGExpr **rbh) {
  MlcOnnxNode *n = r->n;
  int64_t GH = r->gates * r->H, H = r->H;
  *rbh = NULL;
  if (!Bv) return NULL;
  MlcGExpr *wb = range_of(n, Bv, -1, 0, GH), *rb = range_of(n, Bv, -1, GH, 2 * GH);
  if (r->kind != CELL_GRU || !r->linear_before_reset) return add(n, wb, rb);
  *rbh = range_of(n, rb, -1, 2 * H, 3 * H);
  MlcGExpr *items[2] = {add(n, range_of(n, wb, -1, 0, 2 * H), range_of(n, rb, -1, 0, 2 * H)),
                        range_of(n, wb, -1, 2 * H, 3 * H)};
  if (!items[0] || !items[1]) return NULL;
  MlcGExpr *t = mlc_g_tuple(n->im->ctx, items, 2);
  MlcAttr a = attr("axis", mlc_onnx__av_int(0));
  return t ? mlc_onnx__emit_attrs(n, "concat", &t, 1, 1, &a) : NULL;
}

typedef struct Dir { MlcGExpr *y, *h, *c; } Dir; /* y: [T, B, H] */

/* what the steps of direction d read: the input projection of every step
 * [T, B, gates * H], the hidden weights (a GRU's hidden gate's apart), the
 * peepholes, the GRU's hidden-gate bias, the initial states */
typedef struct DirIn { MlcGExpr *xw, *R, *R2, *P, *rbh, *h0, *c0; } DirIn;

static bool dir_inputs(Rnn *r, MlcGExpr *xs, int64_t d, DirIn *in) {
  MlcOnnxNode *n = r->n;
  int64_t H = r->H;
  MlcGExpr *W = per_dir(r, 1, d), *Bv = per_dir(r, 3, d);
  in->R = per_dir(r, 2, d), in->P = per_dir(r, 7, d), in->R2 = NULL;
  if (!W || !in->R) return false;
  MlcGExpr *bias = input_bias(r, Bv, &in->rbh);
  if (Bv && !bias) return false;
  MlcGExpr *args[3] = {xs, W, bias};
  in->xw = mlc_onnx__emit(n, "nn.linear", args, bias ? 3 : 2, (MlcAttrs){0});
  if (r->kind == CELL_GRU) {
    in->R2 = range_of(n, in->R, 0, 2 * H, 3 * H);
    in->R = range_of(n, in->R, 0, 0, 2 * H);
  }
  in->h0 = initial(r, 5, d), in->c0 = r->kind == CELL_LSTM ? initial(r, 6, d) : NULL;
  return in->xw && in->R && in->h0 && (r->kind != CELL_LSTM || in->c0) && (r->kind != CELL_GRU || in->R2);
}

/* one step of the cell: the new h (and c) from the projected input xt */
static bool cell(Rnn *r, int d, MlcGExpr *xt, MlcGExpr *R, MlcGExpr *R2, MlcGExpr *P, MlcGExpr *rbh, MlcGExpr *h,
                 MlcGExpr *c, MlcGExpr **hn, MlcGExpr **cn) {
  MlcOnnxNode *n = r->n;
  int64_t H = r->H;
  if (r->kind == CELL_RNN) {
    *hn = f_of(r, d, 0, add(n, xt, linear(n, h, R)));
  } else if (r->kind == CELL_LSTM) {
    MlcGExpr *g = add(n, xt, linear(n, h, R)); /* gates i, o, f, c */
    MlcGExpr *gi = range_of(n, g, -1, 0, H), *go = range_of(n, g, -1, H, 2 * H);
    MlcGExpr *gf = range_of(n, g, -1, 2 * H, 3 * H), *gc = range_of(n, g, -1, 3 * H, 4 * H);
    if (P) {
      gi = add(n, gi, mul(n, range_of(n, P, -1, 0, H), c));
      gf = add(n, gf, mul(n, range_of(n, P, -1, 2 * H, 3 * H), c));
    }
    MlcGExpr *i = f_of(r, d, 0, gi);
    MlcGExpr *f = r->input_forget ? sub(n, scalar(n, 1), i) : f_of(r, d, 0, gf);
    *cn = add(n, mul(n, f, c), mul(n, i, f_of(r, d, 1, gc)));
    if (P) go = add(n, go, mul(n, range_of(n, P, -1, H, 2 * H), *cn));
    *hn = mul(n, f_of(r, d, 0, go), f_of(r, d, 2, *cn));
  } else { /* GRU: gates z, r, h; R is rows z and r, R2 the hidden gate's */
    MlcGExpr *hz = linear(n, h, R);
    MlcGExpr *z = f_of(r, d, 0, add(n, range_of(n, xt, -1, 0, H), range_of(n, hz, -1, 0, H)));
    MlcGExpr *rs = f_of(r, d, 0, add(n, range_of(n, xt, -1, H, 2 * H), range_of(n, hz, -1, H, 2 * H)));
    MlcGExpr *pre;
    if (r->linear_before_reset) {
      MlcGExpr *lin = linear(n, h, R2);
      if (rbh) lin = add(n, lin, rbh);
      pre = add(n, range_of(n, xt, -1, 2 * H, 3 * H), mul(n, rs, lin));
    } else {
      pre = add(n, range_of(n, xt, -1, 2 * H, 3 * H), linear(n, mul(n, rs, h), R2));
    }
    MlcGExpr *ht = f_of(r, d, 1, pre);
    *hn = add(n, mul(n, sub(n, scalar(n, 1), z), ht), mul(n, z, h));
  }
  return *hn && (r->kind != CELL_LSTM || *cn);
}

/* direction d unrolled: one cell per step */
static bool unrolled_dir(Rnn *r, MlcGExpr *xs, int64_t d, bool reverse, Dir *out) {
  MlcOnnxNode *n = r->n;
  DirIn in;
  if (!dir_inputs(r, xs, d, &in)) return false;
  MlcGExpr *h = in.h0, *c = in.c0;
  MlcGExpr **y = mlc_arena_array(&n->im->ctx->arena, (size_t)r->T, sizeof *y);
  for (int64_t s = 0; s < r->T; s++) {
    int64_t t = reverse ? r->T - 1 - s : s;
    MlcGExpr *hn = NULL, *cn = NULL, *tv = step_value(r, t, NULL);
    if (!cell(r, (int)d, row(n, in.xw, t, 0), in.R, in.R2, in.P, in.rbh, h, c, &hn, &cn)) return false;
    y[t] = r->seq_lens ? masked(r, tv, hn, zeros(n, r->B, r->H)) : hn;
    h = masked(r, tv, hn, h);
    if (cn) c = masked(r, tv, cn, c);
    if (!y[t] || !h || (cn && !c)) return false;
  }
  out->y = stack(n, y, r->T, 0), out->h = h, out->c = c;
  return out->y != NULL;
}

/* the loop's result for direction d: the body's (cond, h, c?, y) */
static bool loop_body(Rnn *r, MlcOnnxBody *b, const DirIn *in, int64_t d, MlcGExpr *trips, bool reverse,
                      MlcGExpr **outs) {
  MlcOnnxNode *n = r->n;
  MlcGExpr *h = mlc_onnx__body_carried(b, in->h0->sinfo);
  MlcGExpr *c = in->c0 ? mlc_onnx__body_carried(b, in->c0->sinfo) : NULL;
  MlcGExpr *xw = mlc_onnx__body_outer(b, in->xw), *R = mlc_onnx__body_outer(b, in->R);
  MlcGExpr *R2 = mlc_onnx__body_outer(b, in->R2), *P = mlc_onnx__body_outer(b, in->P);
  MlcGExpr *rbh = mlc_onnx__body_outer(b, in->rbh), *lens = r->seq_lens;
  r->seq_lens = mlc_onnx__body_outer(b, lens);
  MlcGExpr *t = mlc_onnx__body_step(b, trips, reverse), *hn = NULL, *cn = NULL;
  MlcAttr ax = attr("axis", mlc_onnx__av_int(0));
  MlcGExpr *targs[2] = {xw, t};
  MlcGExpr *xt = t ? mlc_onnx__emit(n, "take", targs, 2, mlc_onnx__attrs(n->im->ctx, 1, &ax)) : NULL;
  MlcGExpr *tv = r->seq_lens && t ? step_value(r, 0, t) : NULL;
  bool ok = xt && cell(r, (int)d, xt, R, R2, P, rbh, h, c, &hn, &cn);
  if (ok) {
    outs[0] = b->params.data[1];
    outs[1] = masked(r, tv, hn, h);
    if (c) outs[2] = masked(r, tv, cn, c);
    outs[c ? 3 : 2] = r->seq_lens ? masked(r, tv, hn, zeros(n, r->B, r->H)) : hn;
    for (int i = 1; i <= (c ? 3 : 2); i++) ok = ok && outs[i];
  }
  r->seq_lens = lens;
  return ok;
}

/* direction d as an R.loop over the steps, its body one step's cell */
static bool loop_dir(Rnn *r, MlcGExpr *xs, int64_t d, bool reverse, Dir *out) {
  MlcOnnxNode *n = r->n;
  MlcCtx *ctx = n->im->ctx;
  DirIn in;
  if (!dir_inputs(r, xs, d, &in)) return false;
  MlcAttr ax = attr("axis", mlc_onnx__av_int(0));
  MlcGExpr *trips = r->T >= 0 ? i64(n, r->T) : mlc_onnx__emit(n, "dim_tensor", &xs, 1, mlc_onnx__attrs(ctx, 1, &ax));
  if (!trips) return false;
  MlcOnnxBody b;
  MlcGExpr *outs[4], *init[2] = {in.h0, in.c0};
  mlc_onnx__body_begin(n, &b);
  bool ok = loop_body(r, &b, &in, d, trips, reverse, outs);
  MlcGExpr *cond = mlc_g_const(ctx, mlc_onnx__scalar(ctx, MLC_BOOL, 1));
  MlcGExpr *res = mlc_onnx__body_finish(&b, ok, outs, 1, trips, cond, init);
  int nc = in.c0 ? 2 : 1;
  out->h = res ? mlc_onnx__item(n, res, 0) : NULL;
  out->c = res && in.c0 ? mlc_onnx__item(n, res, 1) : NULL;
  out->y = mlc_onnx__loop_stacked(n, res, nc, r->Tdim, trips, reverse);
  return out->h && out->y && (!in.c0 || out->c);
}

/* ---- the node ------------------------------------------------------------------------- */

static bool convert_rnn(MlcOnnxNode *n, CellKind kind) {
  Rnn r;
  if (!read_rnn(&r, n, kind)) return false;
  MlcGExpr *xs = n->in[0];
  if (r.layout1) xs = with_ints(n, "permute_dims", xs, "axes", (int64_t[]){1, 0, 2}, 3);
  Dir dirs[2];
  bool unroll = r.T >= 0 && r.T <= n->im->unroll_steps && r.T * r.D <= MLC_ONNX_MAX_UNROLL_STEPS;
  for (int64_t d = 0; d < r.D; d++)
    if (!(unroll ? unrolled_dir : loop_dir)(&r, xs, d, r.reverse_only || d == 1, &dirs[d]))
      return false;
  MlcGExpr *ys[2], *hs[2], *cs[2];
  for (int64_t d = 0; d < r.D; d++) {
    ys[d] = dirs[d].y, hs[d] = dirs[d].h, cs[d] = dirs[d].c;
  }
  /* Y: [T, D, B, H], or [B, T, D, H] with layout 1; Y_h, Y_c: [D, B, H] or [B, D, H] */
  MlcGExpr *y = stack(n, ys, r.D, 1);
  MlcGExpr *yh = stack(n, hs, r.D, 0);
  MlcGExpr *yc = kind == CELL_LSTM ? stack(n, cs, r.D, 0) : NULL;
  if (r.layout1) {
    y = with_ints(n, "permute_dims", y, "axes", (int64_t[]){2, 0, 1, 3}, 4);
    yh = with_ints(n, "permute_dims", yh, "axes", (int64_t[]){1, 0, 2}, 3);
    if (yc) yc = with_ints(n, "permute_dims", yc, "axes", (int64_t[]){1, 0, 2}, 3);
  }
  if (!y || !yh || (kind == CELL_LSTM && !yc)) return false;
  n->out[0] = y, n->out[1] = yh;
  if (kind == CELL_LSTM) n->out[2] = yc;
  return true;
}

bool mlc_onnx__conv_rnn(MlcOnnxNode *n) { return convert_rnn(n, CELL_RNN); }
bool mlc_onnx__conv_gru(MlcOnnxNode *n) { return convert_rnn(n, CELL_GRU); }
bool mlc_onnx__conv_lstm(MlcOnnxNode *n) { return convert_rnn(n, CELL_LSTM); }
