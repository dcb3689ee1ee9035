/* nms.c - vision.nms_select, the greedy selection of ONNX
 * NonMaxSuppression, for each batch and class.
 *
 * vision.nms_select(boxes, scores, order, max_output?, iou_threshold?,
 *                   score_threshold?, center_point_box=0)
 * boxes (B, N, 4) float32, scores (B, C, N) float32, order (B, C, N) int64:
 * each class's box indices by score, highest first, equal scores by index
 * (argsort gives it).  The result (B, C, N) int64 holds,
 * for each class, the indices of the boxes it selects in the order they are
 * selected, then -1: a box is taken when its score is above score_threshold
 * (any score without one), fewer than max_output boxes (0 without one,
 * negative as 0) are taken so far, and no box taken before it overlaps it
 * by an IoU above iou_threshold (0 without one).  The -1s make the count a
 * sum of a mask, which NonMaxSuppression's converter reads at run time.
 *
 * The selection is a scan (whether a box is taken depends on those taken
 * before it), which no TE compute expresses, so the kernel is written as a
 * loop nest: per class, each candidate is compared with the boxes taken so
 * far (a loop whose extent is that count), at most N * max_output steps.
 * Two one-element buffers hold the count taken and whether the candidate
 * survives.  Indices read from `order` and from the
 * result are clamped into 0 .. N-1, and a box is written at the count, which
 * never exceeds the candidates seen, so no read or write leaves its buffer
 * whatever the inputs hold.
 *
 * Overlap follows ONNX's reference: corners are [y1, x1, y2, x2] in either
 * order (center_point_box 0, min and max taken per axis) or [x, y, w, h]
 * around the centre (1); boxes that do not intersect, or where either area
 * or the union is not positive, do not suppress each other; otherwise the
 * intersection over union is compared in float32. */
#include <string.h>

#include "ops/op_internal.h"

typedef struct Nms {
  const MlcSInfo *in[6]; /* boxes, scores, order, max_output, iou_threshold, score_threshold (NULL: absent) */
  int64_t B, C, N;
  int64_t cpb;
} Nms;

static const char *const nms_params[6] = {"boxes", "scores", "order", "max_output", "iou_threshold", "score_threshold"};

/* "float32 (2, 3)", what a message says it got */
static const char *got(MlcCtx *ctx, const MlcSInfo *s) {
  char b[32];
  return mlc_internf(ctx, "%s %s", mlc_dtype_str(s->tensor.dtype, b), mlc_op_sinfo_str(ctx, s));
}

/* a one-element tensor of dtype t (a scalar or of shape [1]) */
static bool one_value(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *s, const char *what, MlcDType t) {
  int64_t d;
  if (!mlc_dtype_eq(s->tensor.dtype, t) || s->tensor.ndim > 1 ||
      (s->tensor.ndim == 1 && (!s->tensor.shape || !mlc_e_is_const_int(s->tensor.shape[0], &d) || d != 1)))
    return mlc_op_fail(ctx, a, "%s: expected one %s value (a scalar or a tensor of shape (1,)), got %s", what,
                       t.code == MLC_TC_INT ? "int64" : "float32", got(ctx, s));
  return true;
}

/* the static dims of s, which must have `nd` of them, of dtype t */
static bool static_dims(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *s, const char *what, MlcDType t, int nd,
                        int64_t *dims) {
  bool ok = s->tensor.ndim == nd && s->tensor.shape && mlc_dtype_eq(s->tensor.dtype, t);
  for (int d = 0; ok && d < nd; d++) ok = mlc_e_is_const_int(s->tensor.shape[d], &dims[d]);
  if (!ok)
    return mlc_op_fail(ctx, a, "%s: expected a %d-D %s tensor of static shape, got %s", what, nd,
                       t.code == MLC_TC_INT ? "int64" : "float32", got(ctx, s));
  return true;
}

static bool nms_args(MlcCtx *ctx, const MlcOpArgs *a, Nms *n) {
  memset(n, 0, sizeof *n);
  for (int i = 0; i < 6; i++) {
    int p = mlc_op_param(a, nms_params[i]);
    if (a->val[p] && !(n->in[i] = mlc_op_tensor(ctx, a, p, true))) return false;
  }
  if (!mlc_op_attr_int(ctx, a, "center_point_box", 0, &n->cpb)) return false;
  if (n->cpb != 0 && n->cpb != 1)
    return mlc_op_fail(ctx, a, "center_point_box: expected 0 or 1, got %lld", (long long)n->cpb);
  int64_t bd[3], sd[3], od[3];
  if (!static_dims(ctx, a, n->in[0], "boxes", MLC_F32, 3, bd) || !static_dims(ctx, a, n->in[1], "scores", MLC_F32, 3, sd) ||
      !static_dims(ctx, a, n->in[2], "order", MLC_I64, 3, od))
    return false;
  if (bd[2] != 4) return mlc_op_fail(ctx, a, "boxes: expected 4 coordinates per box, got %lld", (long long)bd[2]);
  if (sd[0] != bd[0] || sd[2] != bd[1])
    return mlc_op_fail(ctx, a, "scores %s must be (batches, classes, boxes) for boxes %s", mlc_op_sinfo_str(ctx, n->in[1]),
                       mlc_op_sinfo_str(ctx, n->in[0]));
  if (memcmp(od, sd, sizeof od) != 0)
    return mlc_op_fail(ctx, a, "order %s must have the shape of scores %s", mlc_op_sinfo_str(ctx, n->in[2]),
                       mlc_op_sinfo_str(ctx, n->in[1]));
  n->B = sd[0], n->C = sd[1], n->N = sd[2];
  if ((n->in[3] && !one_value(ctx, a, n->in[3], "max_output", MLC_I64)) ||
      (n->in[4] && !one_value(ctx, a, n->in[4], "iou_threshold", MLC_F32)) ||
      (n->in[5] && !one_value(ctx, a, n->in[5], "score_threshold", MLC_F32)))
    return false;
  return true;
}

MlcSInfo *mlc_op_infer_nms_select(MlcCtx *ctx, const MlcOpArgs *a) {
  Nms n;
  if (!nms_args(ctx, a, &n)) return NULL;
  return mlc_op_tensor_sinfo(ctx, n.in[1]->tensor.shape, 3, MLC_I64);
}

/* ---- the loop nest ------------------------------------------------------------- */

typedef struct Build {
  MlcCtx *ctx;
  MlcBuffer *buf[6], *out, *count, *keep;
  MlcExpr *b, *c, *zero;
  int64_t N;
} Build;

static MlcExpr *i64(Build *k, int64_t v) { return mlc_op_i64(k->ctx, v); }
static MlcExpr *f32(Build *k, double v) { return mlc_e_float(k->ctx, MLC_F32, v); }
static MlcExpr *bin(Build *k, MlcBinOp op, MlcExpr *x, MlcExpr *y) { return mlc_e_bin(k->ctx, op, x, y); }
static MlcExpr *ld(Build *k, MlcBuffer *buf, MlcExpr *i0, MlcExpr *i1, MlcExpr *i2) {
  MlcExpr *idx[3] = {i0, i1, i2};
  return mlc_e_load(k->ctx, buf, idx, buf->ndim);
}
static MlcStmt *st(Build *k, MlcBuffer *buf, MlcExpr *i0, MlcExpr *i1, MlcExpr *i2, MlcExpr *v) {
  MlcExpr *idx[3] = {i0, i1, i2};
  return mlc_s_store(k->ctx, buf, idx, buf->ndim, v);
}
/* the value of a one-element input (a scalar or shape (1,)) */
static MlcExpr *single(Build *k, MlcBuffer *buf) { return mlc_e_load(k->ctx, buf, &k->zero, buf->ndim); }
static MlcExpr *clamp_index(Build *k, MlcExpr *e) {
  return bin(k, MLC_BIN_MIN, bin(k, MLC_BIN_MAX, e, k->zero), i64(k, k->N - 1));
}
static MlcStmt *loop(Build *k, MlcExpr *v, int64_t extent, MlcStmt *body) {
  return body ? mlc_s_for(k->ctx, v, k->zero, i64(k, extent), MLC_FOR_SERIAL, NULL, (MlcAttrs){0}, body) : NULL;
}

/* coordinate d of box i of the current batch */
static MlcExpr *coord(Build *k, MlcExpr *i, int d) { return ld(k, k->buf[0], k->b, i, i64(k, d)); }

/* box i's extent along one axis: corners at coordinates lo, hi (either
 * order), or centre lo and size hi */
static void extent_of(Build *k, MlcExpr *i, int lo, int hi, bool centre, MlcExpr **mn, MlcExpr **mx) {
  MlcExpr *p = coord(k, i, lo), *q = coord(k, i, hi);
  if (centre) {
    MlcExpr *half = bin(k, MLC_BIN_DIV, q, f32(k, 2.0));
    *mn = bin(k, MLC_BIN_SUB, p, half), *mx = bin(k, MLC_BIN_ADD, p, half);
  } else {
    *mn = bin(k, MLC_BIN_MIN, p, q), *mx = bin(k, MLC_BIN_MAX, p, q);
  }
}

/* whether box j (taken before) suppresses box i: IoU > thr */
static MlcExpr *suppresses(Build *k, MlcExpr *i, MlcExpr *j, bool centre, MlcExpr *thr) {
  MlcExpr *x1[2], *x2[2], *y1[2], *y2[2];
  /* corners: y at 0 and 2, x at 1 and 3; centre form: x at 0 (width 2), y at 1 (height 3) */
  extent_of(k, i, centre ? 0 : 1, centre ? 2 : 3, centre, &x1[0], &x1[1]);
  extent_of(k, j, centre ? 0 : 1, centre ? 2 : 3, centre, &x2[0], &x2[1]);
  extent_of(k, i, centre ? 1 : 0, centre ? 3 : 2, centre, &y1[0], &y1[1]);
  extent_of(k, j, centre ? 1 : 0, centre ? 3 : 2, centre, &y2[0], &y2[1]);
  MlcExpr *ix0 = bin(k, MLC_BIN_MAX, x1[0], x2[0]), *ix1 = bin(k, MLC_BIN_MIN, x1[1], x2[1]);
  MlcExpr *iy0 = bin(k, MLC_BIN_MAX, y1[0], y2[0]), *iy1 = bin(k, MLC_BIN_MIN, y1[1], y2[1]);
  MlcExpr *inter = bin(k, MLC_BIN_MUL, bin(k, MLC_BIN_SUB, ix1, ix0), bin(k, MLC_BIN_SUB, iy1, iy0));
  MlcExpr *area1 = bin(k, MLC_BIN_MUL, bin(k, MLC_BIN_SUB, x1[1], x1[0]), bin(k, MLC_BIN_SUB, y1[1], y1[0]));
  MlcExpr *area2 = bin(k, MLC_BIN_MUL, bin(k, MLC_BIN_SUB, x2[1], x2[0]), bin(k, MLC_BIN_SUB, y2[1], y2[0]));
  MlcExpr *uni = bin(k, MLC_BIN_SUB, bin(k, MLC_BIN_ADD, area1, area2), inter);
  MlcExpr *zero = f32(k, 0.0);
  MlcExpr *conds[7] = {bin(k, MLC_BIN_GT, ix1, ix0),   bin(k, MLC_BIN_GT, iy1, iy0), bin(k, MLC_BIN_GT, inter, zero),
                       bin(k, MLC_BIN_GT, area1, zero), bin(k, MLC_BIN_GT, area2, zero), bin(k, MLC_BIN_GT, uni, zero),
                       bin(k, MLC_BIN_GT, bin(k, MLC_BIN_DIV, inter, uni), thr)};
  MlcExpr *all = conds[0];
  for (int t = 1; t < 7; t++) all = bin(k, MLC_BIN_AND, all, conds[t]);
  return all;
}

/* one class (b, c): clear the result, then take the candidates in order */
static MlcStmt *one_class(Build *k, bool centre) {
  MlcCtx *ctx = k->ctx;
  MlcExpr *j = mlc_e_var(ctx, mlc_intern(ctx, "j"), MLC_I64), *p = mlc_e_var(ctx, mlc_intern(ctx, "p"), MLC_I64);
  MlcExpr *q = mlc_e_var(ctx, mlc_intern(ctx, "q"), MLC_I64);
  MlcExpr *i = mlc_e_var(ctx, mlc_intern(ctx, "i"), MLC_I64), *t = mlc_e_var(ctx, mlc_intern(ctx, "t"), MLC_I64);
  MlcExpr *taken = single(k, k->count), *one = i64(k, 1);
  MlcExpr *max_out = k->buf[3] ? single(k, k->buf[3]) : k->zero;
  MlcExpr *thr = k->buf[4] ? single(k, k->buf[4]) : f32(k, 0.0);
  MlcExpr *take = bin(k, MLC_BIN_LT, taken, max_out);
  if (k->buf[5]) take = bin(k, MLC_BIN_AND, take, bin(k, MLC_BIN_GT, ld(k, k->buf[1], k->b, k->c, i), single(k, k->buf[5])));
  /* for q < the count taken so far (nt): t = the q-th box taken; it may drop i */
  MlcExpr *nt = mlc_e_var(ctx, mlc_intern(ctx, "nt"), MLC_I64);
  MlcStmt *drop = mlc_s_if(ctx, suppresses(k, i, t, centre, thr), mlc_s_store(ctx, k->keep, &k->zero, 1, k->zero), NULL);
  MlcStmt *cmp = mlc_s_let(ctx, t, clamp_index(k, ld(k, k->out, k->b, k->c, q)), drop);
  MlcStmt *over = drop && cmp ? mlc_s_for(ctx, q, k->zero, nt, MLC_FOR_SERIAL, NULL, (MlcAttrs){0}, cmp) : NULL;
  MlcStmt *put[2] = {st(k, k->out, k->b, k->c, taken, i), mlc_s_store(ctx, k->count, &k->zero, 1, bin(k, MLC_BIN_ADD, taken, one))};
  /* the let of nt spans the rest of the sequence, as the text reader scopes it */
  MlcStmt *rest[2] = {over, mlc_s_if(ctx, bin(k, MLC_BIN_EQ, single(k, k->keep), one), mlc_s_seq(ctx, put, 2), NULL)};
  MlcStmt *cand[2] = {mlc_s_store(ctx, k->keep, &k->zero, 1, one), over ? mlc_s_let(ctx, nt, taken, mlc_s_seq(ctx, rest, 2)) : NULL};
  MlcStmt *each = mlc_s_let(ctx, i, clamp_index(k, ld(k, k->buf[2], k->b, k->c, p)),
                            mlc_s_if(ctx, take, mlc_s_seq(ctx, cand, 2), NULL));
  MlcStmt *steps[3] = {loop(k, j, k->N, st(k, k->out, k->b, k->c, j, i64(k, -1))),
                       mlc_s_store(ctx, k->count, &k->zero, 1, k->zero), loop(k, p, k->N, each)};
  return mlc_s_seq(ctx, steps, 3);
}

static MlcAttrs func_attrs(MlcCtx *ctx, const char *name) {
  MlcAttr *a = mlc_arena_array(&ctx->arena, 2, sizeof *a);
  a[0] = (MlcAttr){mlc_intern(ctx, "global_symbol"), {.kind = MLC_ATTR_STR, .s = name}};
  a[1] = (MlcAttr){mlc_intern(ctx, "tir.noalias"), {.kind = MLC_ATTR_BOOL, .b = true}};
  return (MlcAttrs){a, 2};
}

MlcPrimFunc *mlc_op_prim_nms_select(MlcCtx *ctx, const MlcOpArgs *a, const char *name) {
  Nms n;
  if (!nms_args(ctx, a, &n)) return NULL;
  Build k = {.ctx = ctx, .N = n.N};
  k.zero = mlc_op_i64(ctx, 0);
  MlcParam ps[7];
  int np = 0;
  for (int i = 0; i < 6; i++) {
    if (!n.in[i]) continue;
    k.buf[i] = mlc_buffer_new(ctx, mlc_intern(ctx, nms_params[i]), n.in[i]->tensor.dtype, n.in[i]->tensor.shape,
                              n.in[i]->tensor.ndim, NULL, NULL, "global");
    if (!k.buf[i]) return NULL;
    ps[np++] = (MlcParam){mlc_e_var(ctx, mlc_internf(ctx, "var_%s", nms_params[i]), MLC_HANDLE), k.buf[i]};
  }
  MlcExpr *one = mlc_op_i64(ctx, 1);
  k.out = mlc_buffer_new(ctx, mlc_intern(ctx, "T_nms_select"), MLC_I64, n.in[1]->tensor.shape, 3, NULL, NULL, "global");
  k.count = mlc_buffer_new(ctx, mlc_intern(ctx, "taken"), MLC_I64, &one, 1, NULL, NULL, "local");
  k.keep = mlc_buffer_new(ctx, mlc_intern(ctx, "keep"), MLC_I64, &one, 1, NULL, NULL, "local");
  if (!k.out || !k.count || !k.keep) return NULL;
  ps[np++] = (MlcParam){mlc_e_var(ctx, mlc_intern(ctx, "var_T_nms_select"), MLC_HANDLE), k.out};
  k.b = mlc_e_var(ctx, mlc_intern(ctx, "b"), MLC_I64), k.c = mlc_e_var(ctx, mlc_intern(ctx, "c"), MLC_I64);
  MlcStmt *body = loop(&k, k.b, n.B, loop(&k, k.c, n.C, one_class(&k, n.cpb == 1)));
  if (!body) return NULL;
  /* one opaque block holds the scan, so schedules see a single unit they leave alone */
  MlcBlock *scan = mlc_block_new(ctx, mlc_intern(ctx, "T_nms_select"), NULL, 0, NULL, 0, NULL, 0, NULL, NULL, 0,
                                 (MlcAttrs){0}, body);
  if (!scan || !mlc_block_infer_regions(ctx, scan)) return NULL;
  MlcBuffer *allocs[2] = {k.count, k.keep};
  MlcBuffer **al = mlc_arena_array(&ctx->arena, 2, sizeof *al);
  memcpy(al, allocs, sizeof allocs);
  MlcBlock *root = mlc_block_new(ctx, mlc_intern(ctx, "root"), NULL, 0, NULL, 0, NULL, 0, NULL, al, 2, (MlcAttrs){0},
                                 mlc_s_realize(ctx, NULL, 0, NULL, scan));
  MlcStmt *rs = root ? mlc_s_realize(ctx, NULL, 0, NULL, root) : NULL;
  MlcParam *pa = mlc_arena_array(&ctx->arena, (size_t)np, sizeof *pa);
  memcpy(pa, ps, (size_t)np * sizeof *pa);
  const char *fname = mlc_intern(ctx, name);
  return rs ? mlc_prim_func_new(ctx, fname, pa, np, func_attrs(ctx, fname), rs) : NULL;
}
