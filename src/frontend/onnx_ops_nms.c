/* onnx_ops_nms.c - NonMaxSuppression(boxes, scores, max_output_boxes_per_class?,
 * iou_threshold?, score_threshold?, center_point_box=0): the selected boxes
 * as rows [batch, class, box], classes in order and each class's boxes in
 * the order they are selected; their number is known only when the model
 * runs.
 *
 * Each class's boxes are ordered by score, highest first and equal scores
 * by index (argsort, a merge sort); vision.nms_select (src/ops/nms.c)
 * runs the greedy selection and writes, per class, the indices taken, then
 * -1.  The count of non-negative entries is read at run time into a fresh
 * size var (tensor_to_shape), compact_index finds their flat positions in
 * order, and each position gives its batch and class by division and its
 * box by a take.  The three inputs after scores may be constants or
 * computed when the model runs; a missing max_output_boxes_per_class selects
 * nothing and a missing iou_threshold is 0, as in ONNX. */
#include "onnx_convert.h"

static MlcGExpr *with_attrs(MlcOnnxNode *n, const char *op, MlcGExpr *x, int k, const MlcAttr *a) {
  return x ? mlc_onnx__emit_attrs(n, op, &x, 1, k, a) : NULL;
}

static MlcGExpr *flat(MlcOnnxNode *n, MlcGExpr *x, int64_t len) {
  MlcAttr a = attr("shape", mlc_onnx__av_ints(n->im->ctx, &len, 1));
  return with_attrs(n, "reshape", x, 1, &a);
}

static MlcGExpr *column(MlcOnnxNode *n, MlcGExpr *x) {
  int64_t one = 1;
  MlcAttr a = attr("axis", mlc_onnx__av_ints(n->im->ctx, &one, 1));
  return with_attrs(n, "expand_dims", x, 1, &a);
}

static MlcGExpr *i64c(MlcOnnxNode *n, int64_t v) { return mlc_onnx__const(n, mlc_onnx__scalar(n->im->ctx, MLC_I64_T, (double)v)); }

/* optional input i: NULL when absent or empty (ONNX's reference reads an
 * empty one as absent) */
static MlcGExpr *optional(MlcOnnxNode *n, int i) {
  int64_t d;
  if (i >= n->n_in || !n->in[i]) return NULL;
  if (mlc_onnx__rank(n->in[i]) == 1 && mlc_onnx__const_dim(n->in[i], 0, &d) && d == 0) return NULL;
  return n->in[i];
}

/* the rows [batch, class, box] of the selected entries of sel (B, C, N):
 * those >= 0, counted at run time */
static MlcGExpr *selected_rows(MlcOnnxNode *n, MlcGExpr *sel, int64_t C, int64_t N, int64_t total) {
  MlcCtx *ctx = n->im->ctx;
  MlcAttr as = attr("dtype", mlc_onnx__av_dtype(MLC_I64_T));
  MlcGExpr *s = flat(n, sel, total);
  MlcGExpr *mask = with_attrs(n, "astype", mlc_onnx__emit2(n, "greater_equal", s, i64c(n, 0)), 1, &as);
  int64_t zero = 0;
  MlcAttr sum[2] = {attr("axis", mlc_onnx__av_ints(ctx, &zero, 1)), attr("keepdims", av_bool(true))};
  MlcGExpr *total_sel = with_attrs(n, "sum", mask, 2, sum);
  MlcExpr *len;
  int k;
  if (!mask || !total_sel || !mlc_onnx__runtime_shape(n, total_sel, NULL, "values", &len, 1, &k)) return NULL;
  MlcAttr ca[2] = {attr("shape", mlc_onnx__av_exprs(ctx, &len, 1)), attr("mask", av_bool(true))};
  MlcGExpr *pos = mlc_onnx__emit_attrs(n, "compact_index", &mask, 1, 2, ca);
  MlcAttr ta = attr("axis", mlc_onnx__av_int(0));
  MlcGExpr *targs[2] = {s, pos};
  MlcGExpr *box = pos ? mlc_onnx__emit_attrs(n, "take", targs, 2, 1, &ta) : NULL;
  MlcGExpr *batch = mlc_onnx__emit2(n, "divide", pos, i64c(n, C * N));
  MlcGExpr *cls = mlc_onnx__emit2(n, "floor_mod", mlc_onnx__emit2(n, "divide", pos, i64c(n, N)), i64c(n, C));
  MlcGExpr *cols[3] = {column(n, batch), column(n, cls), column(n, box)};
  if (!cols[0] || !cols[1] || !cols[2]) return NULL;
  MlcGExpr *t = mlc_g_tuple(ctx, cols, 3);
  MlcAttr ka = attr("axis", mlc_onnx__av_int(1));
  return t ? mlc_onnx__emit_attrs(n, "concat", &t, 1, 1, &ka) : NULL;
}

bool mlc_onnx__conv_nms(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *boxes = mlc_onnx__input(n, 0), *scores = mlc_onnx__input(n, 1);
  int64_t cpb, bd[3], sd[3];
  if (!boxes || !scores || !mlc_onnx__attr_int(n, "center_point_box", 0, &cpb)) return false;
  if (mlc_onnx__rank(boxes) != 3 || mlc_onnx__rank(scores) != 3)
    return mlc_onnx__node_fail(n, "boxes and scores must have 3 dims (batches, boxes, 4) and (batches, classes, boxes)");
  for (int d = 0; d < 3; d++)
    if (!mlc_onnx__const_dim(boxes, d, &bd[d]) || !mlc_onnx__const_dim(scores, d, &sd[d]))
      return mlc_onnx__node_fail(n, "boxes or scores of symbolic shape is not supported");
  if (bd[2] != 4 || sd[0] != bd[0] || sd[2] != bd[1])
    return mlc_onnx__node_fail(n, "boxes (%lld, %lld, %lld) and scores (%lld, %lld, %lld) do not match: expected (B, N, 4) and (B, C, N)",
                               (long long)bd[0], (long long)bd[1], (long long)bd[2], (long long)sd[0], (long long)sd[1],
                               (long long)sd[2]);
  int64_t B = sd[0], C = sd[1], N = sd[2];
  if (B > 0 && C > 0 && N > INT64_MAX / B / C) return mlc_onnx__node_fail(n, "too many boxes");
  if (B * C * N == 0) return mlc_onnx__node_fail(n, "empty boxes or scores are not supported");
  MlcExpr *nd = mlc_e_int(ctx, MLC_I64_T, N);
  MlcAttr sa[3] = {attr("axis", mlc_onnx__av_int(2)), attr("largest", av_bool(true)),
                   attr("shape", mlc_onnx__av_exprs(ctx, &nd, 1))};
  MlcGExpr *order = with_attrs(n, "argsort", scores, 3, sa);
  MlcGExpr *max_out = optional(n, 2), *iou = optional(n, 3), *score = optional(n, 4);
  /* positional arguments: a missing one before a present one takes its ONNX default */
  if (!max_out) max_out = i64c(n, 0);
  if (!iou) iou = mlc_onnx__const(n, mlc_onnx__scalar(ctx, MLC_F32, 0.0));
  MlcGExpr *args[6] = {boxes, scores, order, max_out, iou, score};
  MlcAttr ca = attr("center_point_box", mlc_onnx__av_int(cpb));
  MlcGExpr *sel = order ? mlc_onnx__emit_attrs(n, "vision.nms_select", args, score ? 6 : 5, 1, &ca) : NULL;
  MlcGExpr *rows = sel ? selected_rows(n, sel, C, N, B * C * N) : NULL;
  return (n->out[0] = rows) != NULL;
}
