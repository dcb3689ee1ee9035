/* signal.c - signal.dft: the discrete Fourier transform along one axis
 * (ONNX DFT), as a direct sum; signal.stft, the transforms of a signal's
 * windowed frames (ONNX STFT), below.
 *
 * data is (..., 1) real or (..., 2) complex (real, imaginary last); the
 * transform runs along `axis` (not the last dim) over n = dft_length points
 * (default: the axis' length; a shorter input is zero-padded, a longer one
 * cut).  The result is complex, (..., 2), with the axis n long, or
 * n // 2 + 1 long when onesided (the rest of a real signal's spectrum is
 * the conjugate mirror).  inverse computes (1 / n) sum X[k] e^{+2 pi i k t / n};
 * inverse with onesided takes the first half of a spectrum whose rest is
 * its conjugate mirror (n defaults to 2 (m - 1) for m given points) and
 * gives the real signal, (..., 1).
 *
 * Each output element is a reduction over the input points j of
 * x[j] (cos, sin)(2 pi ((k j) mod n) / n) in float64 (the mod keeps the
 * angle small, so large n stays accurate); O(n^2) per transformed line, which
 * suits the short transforms models use.  The axis' length and n must be
 * constants. */
#include <math.h>
#include <string.h>

#include "ops/op_internal.h"

#define DFT_MAX_NDIM 16
#define DFT_TWO_PI 6.283185307179586476925286766559

typedef struct Dft {
  int axis, ndim;
  int64_t in_len; /* input points along the axis */
  int64_t n;      /* transform size */
  int64_t out_len;
  bool inverse, onesided, complex_in, real_out;
} Dft;

static MlcExpr *i64(MlcCtx *ctx, int64_t v) { return mlc_op_i64(ctx, v); }
static MlcExpr *f64(MlcCtx *ctx, double v) { return mlc_e_float(ctx, MLC_F64, v); }
static MlcExpr *bin(MlcCtx *ctx, MlcBinOp op, MlcExpr *x, MlcExpr *y) { return mlc_e_bin(ctx, op, x, y); }
static MlcExpr *call1(MlcCtx *ctx, MlcIntrin op, MlcExpr *x) { return mlc_e_call(ctx, op, &x, 1); }

/* the plan of a transform of x along `axis` (not normalized) */
static bool dft_plan_axis(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, int64_t axis, int64_t len, Dft *p) {
  p->ndim = x->tensor.ndim;
  if (p->ndim < 2 || p->ndim > DFT_MAX_NDIM)
    return mlc_op_fail(ctx, a, "data must have 2 to %d dims (the last holding the real and imaginary parts), got %d",
                       DFT_MAX_NDIM, p->ndim);
  if (!x->tensor.shape) return mlc_op_fail(ctx, a, "data needs known dims");
  if (!mlc_dtype_is_float(x->tensor.dtype)) return mlc_op_fail(ctx, a, "data must be floating-point");
  int64_t last;
  if (!mlc_e_is_const_int(x->tensor.shape[p->ndim - 1], &last) || (last != 1 && last != 2))
    return mlc_op_fail(ctx, a, "data's last dim must be 1 (real) or 2 (complex), data is %s", mlc_op_sinfo_str(ctx, x));
  p->complex_in = last == 2;
  if (!mlc_op_axis(ctx, a, axis, p->ndim, &p->axis)) return false;
  if (p->axis == p->ndim - 1) return mlc_op_fail(ctx, a, "axis must not be the last dim (the complex parts)");
  if (!mlc_e_is_const_int(x->tensor.shape[p->axis], &p->in_len))
    return mlc_op_fail(ctx, a, "the transformed dim of data %s must be a constant", mlc_op_sinfo_str(ctx, x));
  if (len < 0) return mlc_op_fail(ctx, a, "dft_length must be positive, got %lld", (long long)len);
  p->real_out = p->inverse && p->onesided;
  p->n = len ? len : p->real_out ? 2 * (p->in_len - 1) : p->in_len;
  if (p->n < 1) return mlc_op_fail(ctx, a, "the transform needs at least 1 point, got %lld", (long long)p->n);
  p->out_len = p->real_out || !p->onesided ? p->n : p->n / 2 + 1;
  return true;
}

/* inverse, onesided and dft_length of a's attributes into p; *len the last */
static bool dft_attrs(MlcCtx *ctx, const MlcOpArgs *a, Dft *p, int64_t *len) {
  return mlc_op_attr_bool(ctx, a, "inverse", false, &p->inverse) &&
         mlc_op_attr_bool(ctx, a, "onesided", false, &p->onesided) && mlc_op_attr_int(ctx, a, "dft_length", 0, len);
}

static bool dft_plan(MlcCtx *ctx, const MlcOpArgs *a, Dft *p) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true);
  int64_t axis, len;
  return x && mlc_op_attr_int(ctx, a, "axis", 1, &axis) && dft_attrs(ctx, a, p, &len) &&
         dft_plan_axis(ctx, a, x, axis, len, p);
}

MlcSInfo *mlc_op_infer_dft(MlcCtx *ctx, const MlcOpArgs *a) {
  Dft p;
  if (!dft_plan(ctx, a, &p)) return NULL;
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true);
  MlcExpr *shape[DFT_MAX_NDIM];
  memcpy(shape, x->tensor.shape, (size_t)p.ndim * sizeof *shape);
  shape[p.axis] = i64(ctx, p.out_len);
  shape[p.ndim - 1] = i64(ctx, p.real_out ? 1 : 2);
  return mlc_op_tensor_sinfo(ctx, shape, p.ndim, x->tensor.dtype);
}

/* x at idx with the axis at j and the last dim at part, as float64 (0 for
 * the imaginary part of a real input) */
static MlcExpr *part(MlcCtx *ctx, const Dft *p, const MlcTeTensor *x, MlcExpr **idx, MlcExpr *j, int which) {
  if (which == 1 && !p->complex_in) return f64(ctx, 0);
  MlcExpr *ix[DFT_MAX_NDIM];
  memcpy(ix, idx, (size_t)p->ndim * sizeof *ix);
  ix[p->axis] = j;
  ix[p->ndim - 1] = i64(ctx, which);
  return mlc_op_cast(ctx, MLC_F64, mlc_te_read(ctx, x, ix, p->ndim));
}

/* the points summed: the given ones, at most n (a real output sums the
 * whole mirrored spectrum, n points) */
static int64_t dft_terms(const Dft *p) { return p->real_out ? p->n : (p->in_len < p->n ? p->in_len : p->n); }

/* term j of output element idx (idx[axis] the frequency k, idx[last] the
 * part), float64, unscaled */
static MlcExpr *dft_term(MlcCtx *ctx, const Dft *p, const MlcTeTensor *x, MlcExpr **idx, MlcExpr *j) {
  MlcExpr *k = idx[p->axis], *kj = bin(ctx, MLC_BIN_FLOORMOD, bin(ctx, MLC_BIN_MUL, k, j), i64(ctx, p->n));
  MlcExpr *theta = bin(ctx, MLC_BIN_MUL, mlc_e_cast(ctx, MLC_F64, kj), f64(ctx, DFT_TWO_PI / (double)p->n));
  MlcExpr *c = call1(ctx, MLC_INTRIN_COS, theta), *s = call1(ctx, MLC_INTRIN_SIN, theta);
  MlcExpr *re, *im, *body;
  if (p->real_out) {
    /* point j < m is given; the rest mirror: X[j] = conj(X[n - j]) */
    int64_t m = p->in_len;
    MlcExpr *given = bin(ctx, MLC_BIN_LT, j, i64(ctx, m));
    MlcExpr *mj = bin(ctx, MLC_BIN_MIN, bin(ctx, MLC_BIN_SUB, i64(ctx, p->n), j), i64(ctx, m - 1));
    MlcExpr *src = mlc_e_select(ctx, given, bin(ctx, MLC_BIN_MIN, j, i64(ctx, m - 1)), mj);
    re = part(ctx, p, x, idx, src, 0);
    im = part(ctx, p, x, idx, src, 1);
    im = mlc_e_select(ctx, given, im, bin(ctx, MLC_BIN_SUB, f64(ctx, 0), im));
    /* mirrored points past the given ones only (n - j < m): others are 0 */
    MlcExpr *exists = bin(ctx, MLC_BIN_OR, given, bin(ctx, MLC_BIN_LT, bin(ctx, MLC_BIN_SUB, i64(ctx, p->n), j), i64(ctx, m)));
    body = bin(ctx, MLC_BIN_SUB, bin(ctx, MLC_BIN_MUL, re, c), bin(ctx, MLC_BIN_MUL, im, s));
    return mlc_e_select(ctx, exists, body, f64(ctx, 0));
  }
  re = part(ctx, p, x, idx, j, 0);
  im = part(ctx, p, x, idx, j, 1);
  /* forward: e^{-i theta}; inverse: e^{+i theta} */
  MlcExpr *ss = bin(ctx, MLC_BIN_MUL, s, f64(ctx, p->inverse ? 1 : -1));
  MlcExpr *out_re = bin(ctx, MLC_BIN_SUB, bin(ctx, MLC_BIN_MUL, re, c), bin(ctx, MLC_BIN_MUL, im, ss));
  MlcExpr *out_im = bin(ctx, MLC_BIN_ADD, bin(ctx, MLC_BIN_MUL, re, ss), bin(ctx, MLC_BIN_MUL, im, c));
  return mlc_e_select(ctx, bin(ctx, MLC_BIN_EQ, idx[p->ndim - 1], i64(ctx, 0)), out_re, out_im);
}

/* sum (float64) over j < terms of body, divided by div (NULL: 1), cast to x's dtype */
static bool dft_finish(MlcCtx *ctx, const MlcTeTensor *x, MlcExpr **shape, int ndim, MlcExpr **ax, MlcExpr *body,
                       MlcExpr *j, int64_t terms, MlcExpr *div, MlcTeTensor **out) {
  MlcExpr *rext = i64(ctx, terms);
  MlcTeTensor *sum = mlc_te_reduce(ctx, "dft_sum", shape, ndim, ax, MLC_TE_SUM, body, &j, &rext, 1);
  if (!sum) return false;
  MlcExpr *oax[DFT_MAX_NDIM];
  mlc_op_axes(ctx, ndim, oax);
  MlcExpr *v = mlc_te_read(ctx, sum, oax, ndim);
  if (div) v = bin(ctx, MLC_BIN_DIV, v, div);
  *out = mlc_te_compute(ctx, "dft", shape, ndim, oax, mlc_op_cast(ctx, x->dtype, v));
  return *out != NULL;
}

bool mlc_op_te_dft(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs, int *n_outs) {
  Dft p;
  const MlcSInfo *out = mlc_op_infer_dft(ctx, a);
  if (!out || !dft_plan(ctx, a, &p)) return false;
  MlcExpr *ax[DFT_MAX_NDIM], *j = mlc_te_var(ctx, "j");
  mlc_op_axes(ctx, p.ndim, ax);
  MlcExpr *body = dft_term(ctx, &p, in[0], ax, j);
  *n_outs = 1;
  return dft_finish(ctx, in[0], out->tensor.shape, p.ndim, ax, body, j, dft_terms(&p),
                    p.inverse ? f64(ctx, (double)p.n) : NULL, &outs[0]);
}

/* ---- signal.dft_dynamic ---------------------------------------------------------------------- */

/* signal.dft_dynamic(data, axis, shape=[...], inverse, onesided,
 * dft_length): signal.dft along the axis held by the int tensor `axis`
 * (one value, negative ones counting from the end), read when the model
 * runs; `shape` is the output's (which depends on the axis: the importer
 * binds it from the values, after checking the axis).  The candidates are
 * `axes` (default: every axis but the last), each with its static
 * transform: the kernel sums the longest one's points, each candidate's
 * term masked by the axis read (an axis that is none of them gives 0).
 * Every index is clamped into data, so no value reads outside it. */
static bool dyn_plans(MlcCtx *ctx, const MlcOpArgs *a, Dft *plans, int *count, MlcExpr ***shape) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true), *ax = x ? mlc_op_tensor(ctx, a, 1, true) : NULL;
  int64_t len, one;
  int n;
  Dft d;
  if (!ax || !dft_attrs(ctx, a, &d, &len) || !mlc_op_attr_shape(ctx, a, "shape", shape, &n)) return false;
  if (!mlc_dtype_is_int(ax->tensor.dtype) || ax->tensor.ndim > 1 || !ax->tensor.shape ||
      (ax->tensor.ndim == 1 && (!mlc_e_is_const_int(ax->tensor.shape[0], &one) || one != 1)))
    return mlc_op_fail(ctx, a, "axis must be one integer, got %s", mlc_op_sinfo_str(ctx, ax));
  if (n != x->tensor.ndim) return mlc_op_fail(ctx, a, "shape: expected %d dims (data's rank), got %d", x->tensor.ndim, n);
  int64_t axes[DFT_MAX_NDIM];
  int k;
  bool present;
  if (!mlc_op_attr_ints(ctx, a, "axes", axes, DFT_MAX_NDIM, &k, &present)) return false;
  if (!present)
    for (k = 0; k < n - 1; k++) axes[k] = k;
  if (k < 1) return mlc_op_fail(ctx, a, "axes: expected at least one candidate");
  for (int i = 0; i < k; i++) {
    plans[i] = d;
    if (!dft_plan_axis(ctx, a, x, axes[i], len, &plans[i])) return false;
    for (int j = 0; j < i; j++)
      if (plans[j].axis == plans[i].axis) return mlc_op_fail(ctx, a, "axes: axis %lld named twice", (long long)axes[i]);
  }
  *count = k;
  int64_t last;
  if (!mlc_e_is_const_int((*shape)[n - 1], &last) || last != (plans[0].real_out ? 1 : 2))
    return mlc_op_fail(ctx, a, "shape: the last dim must be %d", plans[0].real_out ? 1 : 2);
  return true;
}

MlcSInfo *mlc_op_infer_dft_dynamic(MlcCtx *ctx, const MlcOpArgs *a) {
  Dft plans[DFT_MAX_NDIM];
  MlcExpr **shape;
  int count;
  if (!dyn_plans(ctx, a, plans, &count, &shape)) return NULL;
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true);
  return mlc_op_tensor_sinfo(ctx, shape, x->tensor.ndim, x->tensor.dtype);
}

bool mlc_op_te_dft_dynamic(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                           int *n_outs) {
  Dft plans[DFT_MAX_NDIM];
  MlcExpr **shape;
  int count;
  if (!dyn_plans(ctx, a, plans, &count, &shape)) return false;
  const MlcTeTensor *x = in[0], *axt = in[1];
  int ndim = x->ndim;
  MlcExpr *ax[DFT_MAX_NDIM], *idx[DFT_MAX_NDIM], *j = mlc_te_var(ctx, "j"), *zero = i64(ctx, 0);
  mlc_op_axes(ctx, ndim, ax);
  /* the axis read, negative ones from the end */
  MlcExpr *v = mlc_op_cast(ctx, MLC_I64, mlc_te_read(ctx, axt, &zero, axt->ndim));
  v = mlc_e_select(ctx, bin(ctx, MLC_BIN_LT, v, zero), bin(ctx, MLC_BIN_ADD, v, i64(ctx, ndim)), v);
  /* output indices clamped into data (the transformed one is the frequency,
   * the last one the part computed: neither reads data) */
  for (int d = 0; d < ndim - 1; d++) idx[d] = bin(ctx, MLC_BIN_MIN, ax[d], bin(ctx, MLC_BIN_SUB, x->shape[d], i64(ctx, 1)));
  idx[ndim - 1] = ax[ndim - 1];
  int64_t terms = 0;
  MlcExpr *body = f64(ctx, 0), *div = f64(ctx, 1);
  for (int i = count - 1; i >= 0; i--) {
    const Dft *p = &plans[i];
    int c = p->axis;
    MlcExpr *cidx[DFT_MAX_NDIM];
    memcpy(cidx, idx, (size_t)ndim * sizeof *cidx);
    cidx[c] = ax[c];
    int64_t t = dft_terms(p);
    if (t > terms) terms = t;
    MlcExpr *term = dft_term(ctx, p, x, cidx, bin(ctx, MLC_BIN_MIN, j, i64(ctx, t - 1)));
    term = mlc_e_select(ctx, bin(ctx, MLC_BIN_LT, j, i64(ctx, t)), term, f64(ctx, 0));
    MlcExpr *is_c = bin(ctx, MLC_BIN_EQ, v, i64(ctx, c));
    body = mlc_e_select(ctx, is_c, term, body);
    div = mlc_e_select(ctx, is_c, f64(ctx, p->inverse ? (double)p->n : 1), div);
  }
  *n_outs = 1;
  return dft_finish(ctx, x, shape, ndim, ax, body, j, terms, div, &outs[0]);
}

/* ---- signal.stft ----------------------------------------------------------------------------- */

/* signal.stft(data, frame_step, window, shape=[frames, bins]): the first
 * `bins` points of the W-point DFT of each frame of data (B, L, 1 or 2)
 * times the window (W,), frame f starting at f * frame_step:
 *   out[b, f, k] = sum_{j < W} x[b, f * step + j] w[j] e^{-2 pi i k j / W},
 * complex, (B, frames, bins, 2).  frame_step (an int scalar or one value)
 * is read by the kernel, so it may be known only when the model runs, and
 * so may frames, bins and W: the importer binds them from the values and
 * checks them there (frames = (L - W) / step + 1, bins = W or W / 2 + 1).
 * The read position is clamped into data, so no value, however wrong,
 * reads outside it. */
typedef struct Stft {
  MlcExpr *frames, *bins, *len, *win; /* len: L; win: W */
  bool complex_in;
} Stft;

static bool stft_plan(MlcCtx *ctx, const MlcOpArgs *a, Stft *p) {
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true), *s = x ? mlc_op_tensor(ctx, a, 1, true) : NULL;
  const MlcSInfo *w = s ? mlc_op_tensor(ctx, a, 2, true) : NULL;
  MlcExpr **shape;
  int n;
  int64_t last, one;
  if (!w || !mlc_op_attr_shape(ctx, a, "shape", &shape, &n)) return false;
  if (n != 2) return mlc_op_fail(ctx, a, "shape: expected 2 dims (frames, bins), got %d", n);
  if (x->tensor.ndim != 3 || !x->tensor.shape)
    return mlc_op_fail(ctx, a, "data must be (batch, length, 1 or 2) of known dims, got %s", mlc_op_sinfo_str(ctx, x));
  if (!mlc_dtype_is_float(x->tensor.dtype)) return mlc_op_fail(ctx, a, "data must be floating-point");
  if (!mlc_e_is_const_int(x->tensor.shape[2], &last) || (last != 1 && last != 2))
    return mlc_op_fail(ctx, a, "data's last dim must be 1 (real) or 2 (complex), data is %s", mlc_op_sinfo_str(ctx, x));
  if (!mlc_dtype_is_int(s->tensor.dtype) || s->tensor.ndim > 1 || !s->tensor.shape ||
      (s->tensor.ndim == 1 && (!mlc_e_is_const_int(s->tensor.shape[0], &one) || one != 1)))
    return mlc_op_fail(ctx, a, "frame_step must be one integer, got %s", mlc_op_sinfo_str(ctx, s));
  if (w->tensor.ndim != 1 || !w->tensor.shape || !mlc_dtype_is_float(w->tensor.dtype))
    return mlc_op_fail(ctx, a, "window must be a 1-D floating-point tensor, got %s", mlc_op_sinfo_str(ctx, w));
  int64_t wl, bins;
  if (mlc_e_is_const_int(w->tensor.shape[0], &wl) && wl < 1) return mlc_op_fail(ctx, a, "the window must not be empty");
  if (mlc_e_is_const_int(shape[1], &bins) && mlc_e_is_const_int(w->tensor.shape[0], &wl) && bins > wl)
    return mlc_op_fail(ctx, a, "%lld bins of a %lld-point transform", (long long)bins, (long long)wl);
  p->frames = shape[0], p->bins = shape[1], p->len = x->tensor.shape[1], p->win = w->tensor.shape[0];
  p->complex_in = last == 2;
  return true;
}

MlcSInfo *mlc_op_infer_stft(MlcCtx *ctx, const MlcOpArgs *a) {
  Stft p;
  if (!stft_plan(ctx, a, &p)) return NULL;
  const MlcSInfo *x = mlc_op_tensor(ctx, a, 0, true);
  MlcExpr *shape[4] = {x->tensor.shape[0], p.frames, p.bins, i64(ctx, 2)};
  return mlc_op_tensor_sinfo(ctx, shape, 4, x->tensor.dtype);
}

bool mlc_op_te_stft(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs, int *n_outs) {
  Stft p;
  const MlcSInfo *out = mlc_op_infer_stft(ctx, a);
  if (!out || !stft_plan(ctx, a, &p)) return false;
  const MlcTeTensor *x = in[0], *step = in[1], *w = in[2];
  MlcExpr *ax[4], *j = mlc_te_var(ctx, "j"), *zero = i64(ctx, 0);
  mlc_op_axes(ctx, 4, ax);
  MlcExpr *st = mlc_op_cast(ctx, MLC_I64, mlc_te_read(ctx, step, &zero, step->ndim));
  MlcExpr *t = bin(ctx, MLC_BIN_ADD, bin(ctx, MLC_BIN_MUL, ax[1], st), j);
  t = bin(ctx, MLC_BIN_MAX, bin(ctx, MLC_BIN_MIN, t, bin(ctx, MLC_BIN_SUB, p.len, i64(ctx, 1))), zero);
  MlcExpr *wj = mlc_op_cast(ctx, MLC_F64, mlc_te_read(ctx, w, &j, 1));
  MlcExpr *xi[3] = {ax[0], t, zero};
  MlcExpr *re = bin(ctx, MLC_BIN_MUL, mlc_op_cast(ctx, MLC_F64, mlc_te_read(ctx, x, xi, 3)), wj), *im = f64(ctx, 0);
  if (p.complex_in) {
    xi[2] = i64(ctx, 1);
    im = bin(ctx, MLC_BIN_MUL, mlc_op_cast(ctx, MLC_F64, mlc_te_read(ctx, x, xi, 3)), wj);
  }
  /* e^{-i theta}, theta = 2 pi ((k j) mod W) / W */
  MlcExpr *kj = bin(ctx, MLC_BIN_FLOORMOD, bin(ctx, MLC_BIN_MUL, ax[2], j), p.win);
  MlcExpr *theta = bin(ctx, MLC_BIN_DIV, bin(ctx, MLC_BIN_MUL, mlc_e_cast(ctx, MLC_F64, kj), f64(ctx, DFT_TWO_PI)),
                       mlc_e_cast(ctx, MLC_F64, p.win));
  MlcExpr *c = call1(ctx, MLC_INTRIN_COS, theta), *s = call1(ctx, MLC_INTRIN_SIN, theta);
  MlcExpr *out_re = bin(ctx, MLC_BIN_ADD, bin(ctx, MLC_BIN_MUL, re, c), bin(ctx, MLC_BIN_MUL, im, s));
  MlcExpr *out_im = bin(ctx, MLC_BIN_SUB, bin(ctx, MLC_BIN_MUL, im, c), bin(ctx, MLC_BIN_MUL, re, s));
  MlcExpr *body = mlc_e_select(ctx, bin(ctx, MLC_BIN_EQ, ax[3], zero), out_re, out_im);
  MlcTeTensor *sum = mlc_te_reduce(ctx, "stft_sum", out->tensor.shape, 4, ax, MLC_TE_SUM, body, &j, &p.win, 1);
  if (!sum) return false;
  MlcExpr *oax[4];
  mlc_op_axes(ctx, 4, oax);
  outs[0] = mlc_te_compute(ctx, "stft", out->tensor.shape, 4, oax, mlc_op_cast(ctx, x->dtype, mlc_te_read(ctx, sum, oax, 4)));
  *n_outs = 1;
  return outs[0] != NULL;
}

/* ---- signal.mel_weight_matrix ------------------------------------------------------------------ */

/* signal.mel_weight_matrix(dft_length, sample_rate, lower_edge_hertz,
 * upper_edge_hertz, shape=[K, M], dtype?): the triangular filters that map
 * K = dft_length / 2 + 1 spectrum bins to M mel bins (ONNX
 * MelWeightMatrix), the four parameters scalars read by the kernel.
 *
 * M + 2 points equally spaced in mel (2595 log10(1 + hz / 700)) from the
 * lower to the upper edge, back in hertz and as spectrum bins
 * f = floor((dft_length + 1) hz / sample_rate); mel bin i rises from
 * f(i) to f(i + 1) and falls to f(i + 2) (a filter whose rise is empty is
 * 1 at its centre), all in float64.  A bin is clamped to +-2^40 before it
 * becomes an integer, so no value makes the conversion undefined. */
#define MEL_LN10 2.302585092994045684017991454684

typedef struct Mel {
  MlcExpr *k, *m;
  MlcDType dtype;
} Mel;

static bool mel_plan(MlcCtx *ctx, const MlcOpArgs *a, Mel *p) {
  MlcExpr **shape;
  int n;
  bool present;
  for (int i = 0; i < 4; i++) {
    const MlcSInfo *t = mlc_op_tensor(ctx, a, i, true);
    int64_t one;
    if (!t) return false;
    if (t->tensor.ndim > 1 || !t->tensor.shape ||
        (t->tensor.ndim == 1 && (!mlc_e_is_const_int(t->tensor.shape[0], &one) || one != 1)) ||
        (i < 2 ? !mlc_dtype_is_int(t->tensor.dtype) : !mlc_dtype_is_float(t->tensor.dtype)))
      return mlc_op_fail(ctx, a, "%s must be one %s value, got %s", i < 2 ? (i ? "sample_rate" : "dft_length") : i == 2 ? "lower_edge_hertz" : "upper_edge_hertz",
                         i < 2 ? "integer" : "floating-point", mlc_op_sinfo_str(ctx, t));
  }
  if (!mlc_op_attr_shape(ctx, a, "shape", &shape, &n) || !mlc_op_attr_dtype(ctx, a, "dtype", &p->dtype, &present)) return false;
  if (n != 2) return mlc_op_fail(ctx, a, "shape: expected 2 dims (spectrum bins, mel bins), got %d", n);
  if (!present) p->dtype = MLC_DT(MLC_TC_FLOAT, 32, 1);
  p->k = shape[0], p->m = shape[1];
  return true;
}

MlcSInfo *mlc_op_infer_mel_weight_matrix(MlcCtx *ctx, const MlcOpArgs *a) {
  Mel p;
  if (!mel_plan(ctx, a, &p)) return NULL;
  MlcExpr *shape[2] = {p.k, p.m};
  return mlc_op_tensor_sinfo(ctx, shape, 2, p.dtype);
}

static MlcExpr *scalar_f64(MlcCtx *ctx, const MlcTeTensor *t) {
  MlcExpr *zero = i64(ctx, 0);
  return mlc_op_cast(ctx, MLC_F64, mlc_te_read(ctx, t, &zero, t->ndim));
}

/* the spectrum bin of mel point i (int64) */
static MlcExpr *mel_bin(MlcCtx *ctx, MlcExpr *i, MlcExpr *low, MlcExpr *step, MlcExpr *scale) {
  MlcExpr *mel = bin(ctx, MLC_BIN_ADD, bin(ctx, MLC_BIN_MUL, mlc_e_cast(ctx, MLC_F64, i), step), low);
  MlcExpr *hz = bin(ctx, MLC_BIN_MUL, f64(ctx, 700),
                    bin(ctx, MLC_BIN_SUB, call1(ctx, MLC_INTRIN_EXP, bin(ctx, MLC_BIN_MUL, mel, f64(ctx, MEL_LN10 / 2595))), f64(ctx, 1)));
  MlcExpr *f = call1(ctx, MLC_INTRIN_FLOOR, bin(ctx, MLC_BIN_MUL, hz, scale));
  f = bin(ctx, MLC_BIN_MAX, bin(ctx, MLC_BIN_MIN, f, f64(ctx, 0x1p40)), f64(ctx, -0x1p40));
  return mlc_e_cast(ctx, MLC_I64, f);
}

/* 2595 log10(1 + hz / 700) */
static MlcExpr *to_mel(MlcCtx *ctx, MlcExpr *hz) {
  MlcExpr *r = call1(ctx, MLC_INTRIN_LOG, bin(ctx, MLC_BIN_ADD, f64(ctx, 1), bin(ctx, MLC_BIN_DIV, hz, f64(ctx, 700))));
  return bin(ctx, MLC_BIN_MUL, r, f64(ctx, 2595 / MEL_LN10));
}

bool mlc_op_te_mel_weight_matrix(MlcCtx *ctx, const MlcOpArgs *a, MlcTeTensor **in, int n_in, MlcTeTensor **outs,
                                 int *n_outs) {
  Mel p;
  if (!mel_plan(ctx, a, &p)) return false;
  MlcExpr *ax[2], *shape[2] = {p.k, p.m};
  mlc_op_axes(ctx, 2, ax);
  MlcExpr *low = to_mel(ctx, scalar_f64(ctx, in[2])), *high = to_mel(ctx, scalar_f64(ctx, in[3]));
  MlcExpr *step = bin(ctx, MLC_BIN_DIV, bin(ctx, MLC_BIN_SUB, high, low),
                      mlc_e_cast(ctx, MLC_F64, bin(ctx, MLC_BIN_ADD, p.m, i64(ctx, 2))));
  MlcExpr *scale = bin(ctx, MLC_BIN_DIV, bin(ctx, MLC_BIN_ADD, scalar_f64(ctx, in[0]), f64(ctx, 1)), scalar_f64(ctx, in[1]));
  MlcExpr *j = ax[0], *i = ax[1];
  MlcExpr *l = mel_bin(ctx, i, low, step, scale), *c = mel_bin(ctx, bin(ctx, MLC_BIN_ADD, i, i64(ctx, 1)), low, step, scale);
  MlcExpr *h = mel_bin(ctx, bin(ctx, MLC_BIN_ADD, i, i64(ctx, 2)), low, step, scale);
  MlcExpr *jf = mlc_e_cast(ctx, MLC_F64, j), *one = f64(ctx, 1), *zero = f64(ctx, 0);
  MlcExpr *rise_in = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_LE, l, j), bin(ctx, MLC_BIN_LE, j, c));
  MlcExpr *rise = mlc_e_select(ctx, rise_in,
                               bin(ctx, MLC_BIN_DIV, mlc_e_cast(ctx, MLC_F64, bin(ctx, MLC_BIN_SUB, j, l)),
                                   mlc_e_cast(ctx, MLC_F64, bin(ctx, MLC_BIN_MAX, bin(ctx, MLC_BIN_SUB, c, l), i64(ctx, 1)))),
                               zero);
  rise = mlc_e_select(ctx, bin(ctx, MLC_BIN_EQ, c, l), mlc_e_select(ctx, bin(ctx, MLC_BIN_EQ, j, c), one, zero), rise);
  MlcExpr *fall_in = bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_GT, h, c),
                         bin(ctx, MLC_BIN_AND, bin(ctx, MLC_BIN_LE, c, j), bin(ctx, MLC_BIN_LT, j, h)));
  MlcExpr *fall = bin(ctx, MLC_BIN_DIV, bin(ctx, MLC_BIN_SUB, mlc_e_cast(ctx, MLC_F64, h), jf),
                      mlc_e_cast(ctx, MLC_F64, bin(ctx, MLC_BIN_MAX, bin(ctx, MLC_BIN_SUB, h, c), i64(ctx, 1))));
  MlcExpr *v = mlc_e_select(ctx, fall_in, fall, rise);
  outs[0] = mlc_te_compute(ctx, "mel_weight_matrix", shape, 2, ax, mlc_op_cast(ctx, p.dtype, v));
  *n_outs = 1;
  return outs[0] != NULL;
}
