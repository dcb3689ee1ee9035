/* pad_tile.c - nn.pad and tile: data movement by index arithmetic.
 *
 * Like manip.c, each is one compute whose element reads are chosen by index
 * arithmetic, and every read stays in bounds by construction: pad selects
 * its constant with if_then_else (only the taken branch is evaluated) and
 * folds edge/reflect/wrap indices back into range; tile reads its input at
 * the output index modulo the input's extent. */
#include <string.h>

#include "mlcc/arith.h"
#include "ops/op_internal.h"

#define PAD_MAX_RANK 32

static MlcExpr **earr(MlcCtx *ctx, int n) {
  return mlc_arena_array(&ctx->arena, (size_t)(n > 0 ? n : 1), sizeof(MlcExpr *));
}

static MlcExpr *i64(MlcCtx *ctx, int64_t v) { return mlc_op_i64(ctx, v); }
static MlcExpr *bin(MlcCtx *ctx, MlcBinOp op, MlcExpr *x, MlcExpr *y) { return mlc_e_bin(ctx, op, x, y); }

static MlcExpr *and_(MlcCtx *ctx, MlcExpr *c, MlcExpr *d) { return c ? bin(ctx, MLC_BIN_AND, c, d) : d; }

/* e clamped into [0, extent - 1] */
static MlcExpr *clamp_index(MlcCtx *ctx, MlcExpr *e, MlcExpr *extent) {
  MlcExpr *lo = bin(ctx, MLC_BIN_MAX, e, i64(ctx, 0));
  return bin(ctx, MLC_BIN_MIN, lo, bin(ctx, MLC_BIN_SUB, extent, i64(ctx, 1)));
}

/* tensor parameter i with known dims and dtype */
static const MlcSInfo *known(MlcCtx *ctx, const MlcOpArgs *a, int i, const char *what) {
  const MlcSInfo *s = mlc_op_tensor(ctx, a, i, true);
  if (!s) return NULL;
  if (!s->tensor.shape && s->tensor.ndim > 0) return mlc_op_fail(ctx, a, "%s has unknown dims", what), NULL;
  if (s->tensor.ndim > PAD_MAX_RANK)
    return mlc_op_fail(ctx, a, "%s has %d dims, at most %d are supported", what, s->tensor.ndim, PAD_MAX_RANK),
           NULL;
  return s;
}

/* out[axes] = body */
static bool emit(MlcCtx *ctx, const char *name, const MlcSInfo *out, MlcExpr **axes, MlcExpr *body,
                 MlcTeTensor **outs, int *n_outs) {
  MlcTeTensor *t = body ? mlc_te_compute(ctx, mlc_intern(ctx, name), out->tensor.shape, out->tensor.ndim,
                                         axes, body)
                        : NULL;
  if (!t) return false;
  outs[0] = t;
  *n_outs = 1;
  return true;
}

static MlcExpr **new_axes(MlcCtx *ctx, int n) {
  MlcExpr **ax = earr(ctx, n);
  mlc_op_axes(ctx, n, ax);
  return ax;
}

/* ======================================================================== */
/* nn.pad                                                                   */
/* ======================================================================== */

#define PAD_MODES(X) X(CONSTANT, "constant") X(EDGE, "edge") X(REFLECT, "reflect") X(WRAP, "wrap")

typedef enum PadMode {
#define X(id, s) PAD_##id,
  PAD_MODES(X)
#undef X
} PadMode;

static const char *const pad_mode_names[] = {
#define X(id, s) s,
    PAD_MODES(X)
#undef X
};

typedef struct PadPlan {
  int64_t before[PAD_MAX_RANK], after[PAD_MAX_RANK];
  double value;
  PadMode mode;
} PadPlan;

static bool pad_plan(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, PadPlan *p) {
  int nd = x->tensor.ndim, n;
  int64_t w[2 * PAD_MAX_RANK];
  bool present;
  const char *mode;
  if (!mlc_op_attr_ints(ctx, a, "pad_width", w, 2 * PAD_MAX_RANK, &n, &present) ||
      !mlc_op_attr_float(ctx, a, "pad_value", 0.0, &p->value) ||
      !mlc_op_attr_str(ctx, a, "pad_mode", "constant", &mode))
    return false;
  if (!present) return mlc_op_fail(ctx, a, "pad_width is required");
  if (n != 2 * nd)
    return mlc_op_fail(ctx, a, "pad_width lists %d values, x %s needs %d (befores, then afters)", n,
                       mlc_op_sinfo_str(ctx, x), 2 * nd);
  int m = 0;
  while (m < (int)(sizeof pad_mode_names / sizeof *pad_mode_names) && strcmp(pad_mode_names[m], mode)) m++;
  if (m == (int)(sizeof pad_mode_names / sizeof *pad_mode_names))
    return mlc_op_fail(ctx, a, "pad_mode must be \"constant\", \"edge\", \"reflect\" or \"wrap\", not \"%s\"",
                       mode);
  p->mode = (PadMode)m;
  for (int i = 0; i < nd; i++) {
    int64_t d;
    p->before[i] = w[i], p->after[i] = w[nd + i];
    bool grows = p->before[i] > 0 || p->after[i] > 0, crops = p->before[i] < 0 || p->after[i] < 0;
    if (!mlc_e_is_const_int(x->tensor.shape[i], &d)) {
      if (crops || (grows && p->mode != PAD_CONSTANT))
        return mlc_op_fail(ctx, a, "dim %d of x %s is symbolic: only constant padding by non-negative "
                           "amounts is supported there", i, mlc_op_sinfo_str(ctx, x));
      continue;
    }
    if (d + p->before[i] + p->after[i] < 0)
      return mlc_op_fail(ctx, a, "pad_width crops more than dim %d of x %s holds", i, mlc_op_sinfo_str(ctx, x));
    if (grows && p->mode != PAD_CONSTANT && d == 0)
      return mlc_op_fail(ctx, a, "cannot %s-pad dim %d of x %s: it is empty", mode, i, mlc_op_sinfo_str(ctx, x));
    if (p->mode == PAD_REFLECT && grows && (p->before[i] >= d || p->after[i] >= d))
      return mlc_op_fail(ctx, a, "reflect padding of dim %d of x %s must be smaller than the dim", i,
                         mlc_op_sinfo_str(ctx, x));
  }
  return true;
}

MlcSInfo *mlc_op_infer_pad(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = known(ctx, a, 0, "data");
  PadPlan p;
  if (!x || !pad_plan(ctx, a, x, &p)) return NULL;
  MlcExpr **shape = earr(ctx, x->tensor.ndim);
  for (int i = 0; i < x->tensor.ndim; i++)
    shape[i] = mlc_arith_add(ctx, x->tensor.shape[i], i64(ctx, p.before[i] + p.after[i]));
  return mlc_op_tensor_sinfo(ctx, shape, x->tensor.ndim, x->tensor.dtype);
}

/* the input index of position q (= out - before) in a dim of extent d */
static MlcExpr *pad_fold(MlcCtx *ctx, PadMode mode, MlcExpr *q, MlcExpr *d) {
  int64_t n;
  switch (mode) {
  case PAD_CONSTANT: return q;
  case PAD_EDGE: return clamp_index(ctx, q, d);
  case PAD_WRAP: return bin(ctx, MLC_BIN_FLOORMOD, q, d);
  case PAD_REFLECT:
    /* reflection repeats with period 2 (d - 1); d == 1 reflects onto itself */
    if (mlc_e_is_const_int(d, &n) && n == 1) return i64(ctx, 0);
    MlcExpr *period = bin(ctx, MLC_BIN_MUL, bin(ctx, MLC_BIN_SUB, d, i64(ctx, 1)), i64(ctx, 2));
    MlcExpr *r = bin(ctx, MLC_BIN_FLOORMOD, q, period);
    return mlc_op_select(ctx, bin(ctx, MLC_BIN_LT, r, d), r, bin(ctx, MLC_BIN_SUB, period, r));
  }
  return q;
}

bool mlc_op_te_pad(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs, MlcTeTensor **outs,
                   int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_pad(ctx, a), *x = known(ctx, a, 0, "data");
  PadPlan p;
  if (!out || !x || !pad_plan(ctx, a, x, &p)) return false;
  const MlcTeTensor *xt = inputs[0];
  int nd = xt->ndim;
  MlcExpr **ax = new_axes(ctx, nd), **in = earr(ctx, nd), *inside = NULL;
  for (int i = 0; i < nd; i++) {
    MlcExpr *q = mlc_arith_add(ctx, ax[i], i64(ctx, -p.before[i]));
    in[i] = pad_fold(ctx, p.mode, q, xt->shape[i]);
    if (p.mode == PAD_CONSTANT && (p.before[i] > 0 || p.after[i] > 0)) {
      MlcExpr *c = bin(ctx, MLC_BIN_LT, q, xt->shape[i]);
      if (p.before[i] > 0) c = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_GE, q, i64(ctx, 0)), c);
      inside = and_(ctx, inside, c);
    }
  }
  MlcExpr *body = mlc_te_read(ctx, xt, in, nd);
  if (body && inside) body = mlc_op_select(ctx, inside, body, mlc_op_const(ctx, xt->dtype, p.value));
  return emit(ctx, "T_pad", out, ax, body, outs, n_outs);
}

/* ======================================================================== */
/* tile                                                                     */
/* ======================================================================== */

/* numpy's tile: repeats and x's dims are aligned right, the shorter one
 * padded with 1s in front; *nd is the result's rank */
static bool tile_plan(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, int64_t *reps, int *nd) {
  int64_t r[PAD_MAX_RANK];
  int n;
  bool present;
  if (!mlc_op_attr_ints(ctx, a, "repeats", r, PAD_MAX_RANK, &n, &present)) return false;
  if (!present) return mlc_op_fail(ctx, a, "repeats is required");
  *nd = n > x->tensor.ndim ? n : x->tensor.ndim;
  for (int i = 0; i < *nd; i++) {
    int k = i - (*nd - n);
    reps[i] = k >= 0 ? r[k] : 1;
    if (reps[i] < 0) return mlc_op_fail(ctx, a, "repeats must not be negative, got %lld", (long long)reps[i]);
  }
  return true;
}

/* x's dim aligned with output dim i of nd, 1 where x has none */
static MlcExpr *tile_in_dim(MlcCtx *ctx, MlcExpr **shape, int xnd, int nd, int i) {
  int k = i - (nd - xnd);
  return k >= 0 ? shape[k] : i64(ctx, 1);
}

MlcSInfo *mlc_op_infer_tile(MlcCtx *ctx, const MlcOpArgs *a) {
  const MlcSInfo *x = known(ctx, a, 0, "x");
  int64_t reps[PAD_MAX_RANK];
  int nd = 0;
  if (!x || !tile_plan(ctx, a, x, reps, &nd)) return NULL;
  MlcExpr **shape = earr(ctx, nd);
  for (int i = 0; i < nd; i++)
    shape[i] = mlc_arith_mul(ctx, tile_in_dim(ctx, x->tensor.shape, x->tensor.ndim, nd, i), i64(ctx, reps[i]));
  return mlc_op_tensor_sinfo(ctx, shape, nd, x->tensor.dtype);
}

bool mlc_op_te_tile(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **inputs, int n_inputs, MlcTeTensor **outs,
                    int *n_outs) {
  const MlcSInfo *out = mlc_op_infer_tile(ctx, a);
  if (!out) return false;
  const MlcTeTensor *xt = inputs[0];
  int nd = out->tensor.ndim;
  MlcExpr **ax = new_axes(ctx, nd), **in = earr(ctx, xt->ndim);
  for (int k = 0; k < xt->ndim; k++) {
    int64_t d;
    MlcExpr *o = ax[k + nd - xt->ndim];
    in[k] = mlc_e_is_const_int(xt->shape[k], &d) && d == 1 ? i64(ctx, 0)
                                                            : bin(ctx, MLC_BIN_FLOORMOD, o, xt->shape[k]);
  }
  return emit(ctx, "T_tile", out, ax, mlc_te_read(ctx, xt, in, xt->ndim), outs, n_outs);
}
