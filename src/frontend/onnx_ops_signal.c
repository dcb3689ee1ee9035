/* onnx_ops_signal.c - the converters of ONNX's DFT onto signal.dft, of STFT
 * onto signal.stft, of MelWeightMatrix onto signal.mel_weight_matrix and of
 * the window functions (HannWindow, HammingWindow, BlackmanWindow) into
 * constants.
 *
 * Opsets 17 to 19 give the axis as an attribute (default 1), opset 20 as
 * input 2 (default -2); dft_length (input 1) must be known at compile time.
 * An axis computed at run time is checked when the model runs (a dim other
 * than the last); when every axis it may name gives the same output shape,
 * each gets its transform and the axis value picks one (as CumSum does),
 * otherwise the output's shape is bound from the value and
 * signal.dft_dynamic transforms along the axis it reads. */
#include <math.h>

#include "onnx_convert.h"

#define DFT_TWO_PI 6.283185307179586476925286766559

typedef struct DftAttrs {
  bool inverse, onesided;
  int64_t len; /* 0: the axis' length */
} DftAttrs;

static MlcGExpr *dft_along(MlcOnnxNode *n, MlcGExpr *x, int64_t axis, const DftAttrs *d) {
  MlcAttr a[4] = {attr("axis", mlc_onnx__av_int(axis)), attr("inverse", av_bool(d->inverse)),
                  attr("onesided", av_bool(d->onesided)), attr("dft_length", mlc_onnx__av_int(d->len))};
  return mlc_onnx__emit_attrs(n, "signal.dft", &x, 1, 4, a);
}

/* the output length along axis ax of x (static dims), -1 when that axis
 * cannot be transformed */
static int64_t out_len(MlcOnnxNode *n, MlcGExpr *x, int ax, const DftAttrs *d) {
  int64_t in;
  if (!mlc_onnx__const_dim(x, ax, &in)) return -1;
  bool real_out = d->inverse && d->onesided;
  int64_t len = d->len ? d->len : real_out ? 2 * (in - 1) : in;
  if (len < 1) return -1;
  return real_out || !d->onesided ? len : len / 2 + 1;
}

/* the axis read (one int64 value), negative ones counted from the end,
 * checked when the model runs to name one of the candidates (ok[i]: axis i
 * can be transformed; the last never is) */
static MlcGExpr *checked_axis(MlcOnnxNode *n, MlcGExpr *axis, int rank, const bool *ok) {
  MlcCtx *ctx = n->im->ctx;
  int64_t iota[MLC_ONNX_MAX_RANK], bad[MLC_ONNX_MAX_RANK];
  for (int i = 0; i < rank - 1; i++) iota[i] = i, bad[i] = ok[i] ? 0 : -1;
  MlcGExpr *a = mlc_onnx__i64_row(n, axis), *zero = mlc_onnx__i64_const(n, 0);
  MlcGExpr *wa[3] = {mlc_onnx__emit2(n, "less", a, zero), mlc_onnx__emit2(n, "add", a, mlc_onnx__i64_const(n, rank)), a};
  MlcGExpr *norm = wa[0] && wa[1] ? mlc_onnx__emit(n, "where", wa, 3, (MlcAttrs){0}) : NULL;
  /* norm, rank - 2 - norm and -1 at the axis if it cannot be transformed
   * must not be negative */
  MlcGExpr *at = mlc_onnx__emit2(n, "equal", mlc_onnx__const(n, mlc_onnx__i64s(ctx, iota, rank - 1)), norm);
  MlcGExpr *ba[3] = {at, mlc_onnx__const(n, mlc_onnx__i64s(ctx, bad, rank - 1)), zero};
  MlcGExpr *checks[3] = {norm, mlc_onnx__emit2(n, "subtract", mlc_onnx__i64_const(n, rank - 2), norm),
                         at ? mlc_onnx__emit(n, "where", ba, 3, (MlcAttrs){0}) : NULL};
  MlcExpr *ignored[MLC_ONNX_MAX_RANK + 1];
  for (int i = 0; i < rank + 1; i++) ignored[i] = mlc_onnx__fresh_dim(n);
  return mlc_onnx__bind_values(n, mlc_onnx__join(n, checks, 3), ignored, rank + 1) ? norm : NULL;
}

/* the axes giving different output shapes: signal.dft_dynamic over a shape
 * bound from the axis read, each dim the input's but the transformed one */
static MlcGExpr *dft_dynamic(MlcOnnxNode *n, MlcGExpr *x, MlcGExpr *norm, int rank, const bool *ok, const DftAttrs *d) {
  MlcCtx *ctx = n->im->ctx;
  int64_t in[MLC_ONNX_MAX_RANK], out[MLC_ONNX_MAX_RANK], iota[MLC_ONNX_MAX_RANK], axes[MLC_ONNX_MAX_RANK];
  MlcExpr *dims[MLC_ONNX_MAX_RANK];
  int k = 0;
  for (int i = 0; i < rank - 1; i++) {
    mlc_onnx__const_dim(x, i, &in[i]);
    out[i] = ok[i] ? out_len(n, x, i, d) : in[i], iota[i] = i;
    dims[i] = out[i] == in[i] ? mlc_e_int(ctx, MLC_I64, in[i]) : mlc_onnx__fresh_dim(n);
    if (ok[i]) axes[k++] = i;
  }
  dims[rank - 1] = mlc_e_int(ctx, MLC_I64, d->inverse && d->onesided ? 1 : 2);
  /* dim i: out[i] where i is the axis, in[i] elsewhere */
  MlcGExpr *at = mlc_onnx__emit2(n, "equal", mlc_onnx__const(n, mlc_onnx__i64s(ctx, iota, rank - 1)), norm);
  MlcGExpr *wa[3] = {at, mlc_onnx__const(n, mlc_onnx__i64s(ctx, out, rank - 1)),
                     mlc_onnx__const(n, mlc_onnx__i64s(ctx, in, rank - 1))};
  MlcGExpr *sizes = at ? mlc_onnx__emit(n, "where", wa, 3, (MlcAttrs){0}) : NULL;
  if (!mlc_onnx__bind_values(n, sizes, dims, rank - 1)) return NULL;
  MlcAttr a[5] = {attr("shape", mlc_onnx__av_exprs(ctx, dims, rank)), attr("axes", mlc_onnx__av_ints(ctx, axes, k)),
                  attr("inverse", av_bool(d->inverse)), attr("onesided", av_bool(d->onesided)),
                  attr("dft_length", mlc_onnx__av_int(d->len))};
  MlcGExpr *args[2] = {x, norm};
  return mlc_onnx__emit_attrs(n, "signal.dft_dynamic", args, 2, 5, a);
}

/* every axis but the last that can be transformed is a candidate, the axis
 * value picking one: when all give the same output shape, each gets its
 * transform and `where` selects; otherwise signal.dft_dynamic */
static MlcGExpr *dft_runtime_axis(MlcOnnxNode *n, MlcGExpr *x, MlcGExpr *axis, int rank, const DftAttrs *d) {
  int64_t first[MLC_ONNX_MAX_RANK], v;
  bool same = true, ok[MLC_ONNX_MAX_RANK];
  int last = -1;
  for (int i = 0; i < rank - 1; i++) {
    if (!mlc_onnx__const_dim(x, i, &v))
      return mlc_onnx__node_fail(n, "input 2 (axis) computed at run time needs constant dims"), NULL;
    ok[i] = out_len(n, x, i, d) >= 0;
    if (ok[i]) last = i;
  }
  if (last < 0) return mlc_onnx__node_fail(n, "no axis of the input can be transformed"), NULL;
  bool seen = false;
  for (int c = 0; c < rank - 1; c++) {
    if (!ok[c]) continue;
    for (int i = 0; i < rank - 1; i++) {
      v = i == c ? out_len(n, x, i, d) : -1;
      if (i != c) mlc_onnx__const_dim(x, i, &v);
      if (!seen) first[i] = v;
      same = same && v == first[i];
    }
    seen = true;
  }
  MlcGExpr *norm = checked_axis(n, axis, rank, ok);
  if (!norm) return NULL;
  if (!same) return dft_dynamic(n, x, norm, rank, ok, d);
  MlcGExpr *y = dft_along(n, x, last, d);
  for (int i = last - 1; i >= 0 && y; i--) {
    if (!ok[i]) continue;
    MlcGExpr *args[3] = {mlc_onnx__emit2(n, "equal", norm, mlc_onnx__i64_const(n, i)), dft_along(n, x, i, d), y};
    y = args[0] && args[1] ? mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}) : NULL;
  }
  return y;
}

bool mlc_onnx__conv_dft(MlcOnnxNode *n) {
  MlcGExpr *x = mlc_onnx__input(n, 0);
  int64_t inverse, onesided, axis = n->opset < 20 ? 1 : -2, v;
  int rank, k;
  if (!x || !need_rank(n, x, &rank) || !mlc_onnx__attr_int(n, "inverse", 0, &inverse) ||
      !mlc_onnx__attr_int(n, "onesided", 0, &onesided))
    return false;
  DftAttrs d = {inverse != 0, onesided != 0, 0};
  if (n->n_in > 1 && n->in[1]) {
    if (!mlc_onnx__known_ints(n, 1, &v, 1, &k)) return false;
    if (k != 1 || v < 1) return mlc_onnx__node_fail(n, "input 1 (dft_length) must be one positive value");
    d.len = v;
  }
  if (n->opset < 20) {
    if (!mlc_onnx__attr_int(n, "axis", 1, &axis)) return false;
  } else if (n->n_in > 2 && n->in[2]) {
    bool known = n->known_in[2] || n->in[2]->kind == MLC_G_CONST;
    if (!known) return (n->out[0] = dft_runtime_axis(n, x, n->in[2], rank, &d)) != NULL;
    if (!mlc_onnx__known_ints(n, 2, &axis, 1, &k)) return false;
    if (k != 1) return mlc_onnx__node_fail(n, "input 2 (axis) must hold one value, has %d", k);
  }
  return (n->out[0] = dft_along(n, x, axis, &d)) != NULL;
}

/* ---- STFT ------------------------------------------------------------------------------------- */

/* STFT is signal.stft over the window (ones when none is given) and the
 * frame step as a tensor.  frames = (L - W) / step + 1 and bins (W / 2 + 1
 * when onesided) are computed here when the step and the frame length are
 * known, and otherwise by the graph from the values and bound when the
 * model runs (tensor_to_shape), after checking step >= 1 and 1 <= W <= L
 * there; a frame_length given beside a window is checked against the
 * window's length. */

typedef struct StftSizes {
  int64_t len, fl, step; /* fl, step: -1 when read at run time */
  bool onesided;
  MlcExpr *frames, *bins, *win; /* win: the frame length as a dim */
} StftSizes;

/* frames and bins (and the frame length, when it too is read) bound from
 * the values when the model runs */
static bool stft_runtime_sizes(MlcOnnxNode *n, MlcGExpr *step, MlcGExpr *flen, StftSizes *z) {
  MlcGExpr *s = z->step >= 0 ? mlc_onnx__i64_const(n, z->step) : mlc_onnx__i64_row(n, step);
  MlcGExpr *fl = z->fl >= 0 ? mlc_onnx__i64_const(n, z->fl) : mlc_onnx__i64_row(n, flen), *len = mlc_onnx__i64_const(n, z->len);
  MlcGExpr *one = mlc_onnx__i64_const(n, 1), *two = mlc_onnx__i64_const(n, 2);
  /* step - 1, L - W and W - 1 must not be negative */
  MlcGExpr *checks[3] = {mlc_onnx__emit2(n, "subtract", s, one), mlc_onnx__emit2(n, "subtract", len, fl),
                         mlc_onnx__emit2(n, "subtract", fl, one)};
  MlcExpr *ignored[3] = {mlc_onnx__fresh_dim(n), mlc_onnx__fresh_dim(n), mlc_onnx__fresh_dim(n)};
  if (!mlc_onnx__bind_values(n, mlc_onnx__join(n, checks, 3), ignored, 3)) return false;
  /* the step's maximum with 1 keeps the division defined before the check has run */
  MlcGExpr *frames = mlc_onnx__emit2(n, "divide", checks[1], mlc_onnx__emit2(n, "maximum", s, one));
  frames = mlc_onnx__emit2(n, "add", frames, one);
  MlcGExpr *bins = z->onesided ? mlc_onnx__emit2(n, "add", mlc_onnx__emit2(n, "divide", fl, two), one) : fl;
  z->frames = mlc_onnx__fresh_dim(n);
  if (z->fl >= 0) {
    MlcExpr *dims[1] = {z->frames};
    return mlc_onnx__bind_values(n, frames, dims, 1);
  }
  z->win = mlc_onnx__fresh_dim(n), z->bins = mlc_onnx__fresh_dim(n);
  MlcGExpr *parts[3] = {fl, frames, bins};
  MlcExpr *dims[3] = {z->win, z->frames, z->bins};
  return mlc_onnx__bind_values(n, mlc_onnx__join(n, parts, 3), dims, 3);
}

bool mlc_onnx__conv_stft(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0), *step = mlc_onnx__input(n, 1);
  MlcGExpr *window = n->n_in > 2 && n->in[2] ? n->in[2] : NULL, *flen = n->n_in > 3 && n->in[3] ? n->in[3] : NULL;
  int64_t onesided, v, wl = -1;
  int k;
  if (!x || !step || !mlc_onnx__attr_int(n, "onesided", 1, &onesided)) return false;
  StftSizes z = {.fl = -1, .step = -1, .onesided = onesided != 0};
  if (mlc_onnx__rank(x) != 3 || !mlc_onnx__const_dim(x, 1, &z.len))
    return mlc_onnx__node_fail(n, "the signal must be (batch, length, 1 or 2) with a constant length");
  if (n->known_in[1] || step->kind == MLC_G_CONST) {
    if (!mlc_onnx__known_ints(n, 1, &z.step, 1, &k)) return false;
    if (k != 1 || z.step < 1) return mlc_onnx__node_fail(n, "input 1 (frame_step) must be one positive value");
  }
  if (window && (mlc_onnx__rank(window) != 1 || !mlc_onnx__const_dim(window, 0, &wl)))
    return mlc_onnx__node_fail(n, "input 2 (window) must be 1-D of constant length");
  z.fl = window ? wl : flen ? -1 : z.len;
  if (flen && (n->known_in[3] || flen->kind == MLC_G_CONST)) {
    if (!mlc_onnx__known_ints(n, 3, &v, 1, &k)) return false;
    if (k != 1 || v < 1) return mlc_onnx__node_fail(n, "input 3 (frame_length) must be one positive value");
    if (window && v != wl)
      return mlc_onnx__node_fail(n, "input 3 (frame_length) is %lld but the window has %lld points", (long long)v,
                                 (long long)wl);
    z.fl = v;
  } else if (flen && window) { /* read when the model runs: checked equal to the window's length */
    MlcExpr *want = mlc_e_int(ctx, MLC_I64, wl);
    if (!mlc_onnx__bind_values(n, mlc_onnx__i64_row(n, flen), &want, 1)) return false;
  }
  if (z.fl > z.len) return mlc_onnx__node_fail(n, "frames of %lld points in a signal of %lld", (long long)z.fl, (long long)z.len);
  if (z.fl >= 0) z.win = mlc_e_int(ctx, MLC_I64, z.fl), z.bins = mlc_e_int(ctx, MLC_I64, z.onesided ? z.fl / 2 + 1 : z.fl);
  if (z.fl >= 0 && z.step >= 0) z.frames = mlc_e_int(ctx, MLC_I64, (z.len - z.fl) / z.step + 1);
  else if (!stft_runtime_sizes(n, step, flen, &z)) return false;
  if (!window) {
    MlcAttr wa[2] = {attr("shape", mlc_onnx__av_exprs(ctx, &z.win, 1)), attr("dtype", mlc_onnx__av_dtype(mlc_onnx__dtype_of(x)))};
    if (!(window = mlc_onnx__emit_attrs(n, "ones", NULL, 0, 2, wa))) return false;
  }
  MlcExpr *shape[2] = {z.frames, z.bins};
  MlcGExpr *args[3] = {x, step, window};
  MlcAttr sa = attr("shape", mlc_onnx__av_exprs(ctx, shape, 2));
  return (n->out[0] = mlc_onnx__emit_attrs(n, "signal.stft", args, 3, 1, &sa)) != NULL;
}

/* ---- MelWeightMatrix --------------------------------------------------------------------------- */

/* signal.mel_weight_matrix over (dft_length / 2 + 1, num_mel_bins), both
 * bound from the values when the model runs after checking dft_length and
 * num_mel_bins non-negative and sample_rate positive; the kernel reads the
 * rest. */
bool mlc_onnx__conv_mel_weight_matrix(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  int64_t otype;
  MlcDType t;
  for (int i = 0; i < 5; i++)
    if (!mlc_onnx__input(n, i)) return false;
  if (!mlc_onnx__attr_int(n, "output_datatype", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, &otype)) return false;
  if (!mlc_onnx__dtype((int32_t)otype, &t) || (!mlc_dtype_is_float(t) && !mlc_dtype_is_int(t)))
    return mlc_onnx__node_fail(n, "output_datatype %s is not supported", mlc_onnx__dtype_name((int32_t)otype));
  for (int i = 0; i < 3; i++)
    if (!mlc_dtype_is_int(mlc_onnx__dtype_of(n->in[i])) || mlc_onnx__rank(n->in[i]) > 1)
      return mlc_onnx__node_fail(n, "input %d must be one integer", i);
  MlcGExpr *m = mlc_onnx__i64_row(n, n->in[0]), *d = mlc_onnx__i64_row(n, n->in[1]), *sr = mlc_onnx__i64_row(n, n->in[2]);
  MlcGExpr *checks[2] = {d, mlc_onnx__emit2(n, "subtract", sr, mlc_onnx__i64_const(n, 1))};
  MlcExpr *ignored[2] = {mlc_onnx__fresh_dim(n), mlc_onnx__fresh_dim(n)};
  if (!mlc_onnx__bind_values(n, mlc_onnx__join(n, checks, 2), ignored, 2)) return false;
  MlcGExpr *bins = mlc_onnx__emit2(n, "add", mlc_onnx__emit2(n, "divide", d, mlc_onnx__i64_const(n, 2)), mlc_onnx__i64_const(n, 1));
  MlcGExpr *sizes[2] = {bins, m};
  MlcExpr *dims[2] = {mlc_onnx__fresh_dim(n), mlc_onnx__fresh_dim(n)};
  if (!mlc_onnx__bind_values(n, mlc_onnx__join(n, sizes, 2), dims, 2)) return false;
  MlcAttr a[2] = {attr("shape", mlc_onnx__av_exprs(ctx, dims, 2)), attr("dtype", mlc_onnx__av_dtype(t))};
  return (n->out[0] = mlc_onnx__emit_attrs(n, "signal.mel_weight_matrix", n->in + 1, 4, 2, a)) != NULL;
}

/* ---- HannWindow, HammingWindow, BlackmanWindow ------------------------------------------------ */

/* The window of `size` points is w[i] = a0 + a1 cos(2 pi i / N) +
 * a2 cos(4 pi i / N) with N = size (periodic, the default) or size - 1
 * (symmetric), in float64 and cast to output_datatype: a constant computed
 * here when the size is known at compile time, else computed by the graph
 * over a length bound from the size when the model runs. */
#define WINDOW_MAX_SIZE ((int64_t)1 << 24)

static MlcGExpr *f64_scalar(MlcOnnxNode *n, double v) {
  return mlc_onnx__const(n, mlc_onnx__scalar(n->im->ctx, MLC_F64, v));
}

/* a size read at run time: bound (checked non-negative and capped when the
 * model runs) as the length of i = 0, 1, ... (float64), then
 * x = 2 pi i / max(N, 1) and the window computed by the graph */
static MlcGExpr *window_at_run_time(MlcOnnxNode *n, MlcGExpr *size, bool periodic, double a0, double a1, double a2) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *s = mlc_onnx__i64_row(n, size);
  MlcExpr *len = mlc_onnx__fresh_dim(n);
  if (!mlc_onnx__bind_values(n, s, &len, 1)) return NULL;
  MlcGExpr *ra[2] = {f64_scalar(n, 0), f64_scalar(n, 1)};
  MlcAttr sa = attr("shape", mlc_onnx__av_exprs(ctx, &len, 1)), ca = attr("dtype", mlc_onnx__av_dtype(MLC_F64));
  MlcGExpr *i = mlc_onnx__emit_attrs(n, "range_to_shape", ra, 2, 1, &sa);
  MlcGExpr *den = periodic ? s : mlc_onnx__emit2(n, "subtract", s, mlc_onnx__i64_const(n, 1));
  den = mlc_onnx__emit2(n, "maximum", den, mlc_onnx__i64_const(n, 1));
  den = den ? mlc_onnx__emit_attrs(n, "astype", &den, 1, 1, &ca) : NULL;
  MlcGExpr *x = mlc_onnx__emit2(n, "divide", mlc_onnx__emit2(n, "multiply", i, f64_scalar(n, DFT_TWO_PI)), den);
  MlcGExpr *w = mlc_onnx__emit2(n, "add", f64_scalar(n, a0),
                                mlc_onnx__emit2(n, "multiply", f64_scalar(n, a1), mlc_onnx__emit1(n, "cos", x)));
  if (a2 != 0) {
    MlcGExpr *x2 = mlc_onnx__emit2(n, "multiply", x, f64_scalar(n, 2));
    w = mlc_onnx__emit2(n, "add", w, mlc_onnx__emit2(n, "multiply", f64_scalar(n, a2), mlc_onnx__emit1(n, "cos", x2)));
  }
  return w;
}

static bool window(MlcOnnxNode *n, double a0, double a1, double a2) {
  MlcCtx *ctx = n->im->ctx;
  int64_t size, periodic, otype;
  int k;
  MlcDType t;
  MlcGExpr *in = mlc_onnx__input(n, 0);
  if (!in || !mlc_onnx__attr_int(n, "periodic", 1, &periodic) ||
      !mlc_onnx__attr_int(n, "output_datatype", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, &otype))
    return false;
  if (!mlc_onnx__dtype((int32_t)otype, &t) || t.code == MLC_TC_BOOL)
    return mlc_onnx__node_fail(n, "output_datatype %s is not supported", mlc_onnx__dtype_name((int32_t)otype));
  MlcGExpr *w;
  if (!mlc_onnx__known_or_absent(n, 0)) {
    if (!mlc_dtype_is_int(mlc_onnx__dtype_of(in)) || mlc_onnx__rank(in) > 1)
      return mlc_onnx__node_fail(n, "input 0 (size) must be one integer");
    w = window_at_run_time(n, in, periodic != 0, a0, a1, a2);
  } else {
    if (!mlc_onnx__known_ints(n, 0, &size, 1, &k)) return false;
    if (k != 1 || size < 1 || size > WINDOW_MAX_SIZE)
      return mlc_onnx__node_fail(n, "input 0 (size) must be one value from 1 to 2^24");
    MlcTensorData *d = mlc_tensor_data_new(ctx, MLC_DT(MLC_TC_FLOAT, 64, 1), &size, 1);
    if (!d) return false;
    double den = (double)(periodic ? size : size - 1);
    for (int64_t i = 0; i < size; i++) {
      double x = den > 0 ? DFT_TWO_PI * (double)i / den : 0;
      ((double *)d->data)[i] = a0 + a1 * cos(x) + a2 * cos(2 * x);
    }
    w = mlc_onnx__const(n, d);
  }
  if (w && !mlc_dtype_eq(t, mlc_onnx__dtype_of(w))) {
    MlcAttr a = attr("dtype", mlc_onnx__av_dtype(t));
    w = mlc_onnx__emit_attrs(n, "astype", &w, 1, 1, &a);
  }
  return (n->out[0] = w) != NULL;
}

bool mlc_onnx__conv_hann_window(MlcOnnxNode *n) { return window(n, 0.5, -0.5, 0); }
bool mlc_onnx__conv_hamming_window(MlcOnnxNode *n) { return window(n, 25.0 / 46, -21.0 / 46, 0); }
bool mlc_onnx__conv_blackman_window(MlcOnnxNode *n) { return window(n, 0.42, -0.5, 0.08); }
