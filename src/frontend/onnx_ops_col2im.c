/* onnx_ops_col2im.c - the converter of ONNX's Col2Im onto image.col2im.
 *
 * image_shape and block_shape (inputs 1 and 2, one value per spatial dim)
 * known at compile time give static sizes, checked here; read at run time
 * they are bound when the model runs (src/frontend/onnx_values.c) after the
 * graph computes what must hold of them: image sizes non-negative, block
 * sizes positive, the padded image at least one dilated block long along
 * each dim, data's channels C * prod(block) for a whole C, and data's
 * blocks the product of the block counts. */
#include "onnx_convert.h"

#define COL_MAX_ND 4
#define COL_MAX_SIZE ((int64_t)1 << 31) /* any size, stride, dilation or pad */

typedef struct ColAttrs {
  int nd;
  int64_t strides[COL_MAX_ND], dil[COL_MAX_ND], pads[2 * COL_MAX_ND];
} ColAttrs;

static bool col_attrs(MlcOnnxNode *n, ColAttrs *c) {
  int64_t v[2 * COL_MAX_ND];
  int k;
  const char *names[3] = {"strides", "dilations", "pads"};
  int64_t *outs[3] = {c->strides, c->dil, c->pads};
  for (int a = 0; a < 3; a++) {
    int want = a == 2 ? 2 * c->nd : c->nd;
    if (!mlc_onnx__attr_ints(n, names[a], v, 2 * COL_MAX_ND, &k)) return false;
    if (k >= 0 && k != want) return mlc_onnx__node_fail(n, "%s: %d values for %d spatial dims", names[a], k, c->nd);
    for (int i = 0; i < want; i++) {
      outs[a][i] = k < 0 ? (a == 2 ? 0 : 1) : v[i];
      if (outs[a][i] < (a == 2 ? 0 : 1) || outs[a][i] > COL_MAX_SIZE)
        return mlc_onnx__node_fail(n, "%s: %lld is out of range", names[a], (long long)v[i]);
    }
  }
  return true;
}

/* sizes read at run time: C, the image and block sizes bound to dims[0..],
 * block[..] after the checks */
static bool col_runtime_sizes(MlcOnnxNode *n, int64_t chans, int64_t blocks, const ColAttrs *c, MlcExpr **dims,
                              MlcExpr **block) {
  MlcCtx *ctx = n->im->ctx;
  int nd = c->nd;
  MlcGExpr *img = mlc_onnx__i64_row(n, n->in[1]), *blk = mlc_onnx__i64_row(n, n->in[2]);
  int64_t extra[COL_MAX_ND], dil[COL_MAX_ND];
  for (int i = 0; i < nd; i++) extra[i] = c->pads[i] + c->pads[nd + i] - 1, dil[i] = c->dil[i];
  MlcGExpr *one = mlc_onnx__i64_const(n, 1);
  /* num = S + pads - 1 - dilation (k - 1) >= 0; nb = num / stride + 1 */
  MlcGExpr *span = mlc_onnx__emit2(n, "multiply", mlc_onnx__const(n, mlc_onnx__i64s(ctx, dil, nd)),
                                   mlc_onnx__emit2(n, "subtract", blk, one));
  MlcGExpr *num = mlc_onnx__emit2(n, "subtract", mlc_onnx__emit2(n, "add", img, mlc_onnx__const(n, mlc_onnx__i64s(ctx, extra, nd))), span);
  MlcGExpr *nb = mlc_onnx__emit2(n, "add", mlc_onnx__emit2(n, "divide", mlc_onnx__emit2(n, "maximum", num, mlc_onnx__i64_const(n, 0)),
                                                           mlc_onnx__const(n, mlc_onnx__i64s(ctx, c->strides, nd))), one);
  int64_t zero_axis = 0;
  MlcAttr pa[2] = {attr("axis", mlc_onnx__av_ints(ctx, &zero_axis, 1)), attr("keepdims", av_bool(true))};
  MlcGExpr *kprod = mlc_onnx__emit_attrs(n, "prod", &blk, 1, 2, pa), *bprod = nb ? mlc_onnx__emit_attrs(n, "prod", &nb, 1, 2, pa) : NULL;
  MlcGExpr *cn = mlc_onnx__emit2(n, "divide", mlc_onnx__i64_const(n, chans), mlc_onnx__emit2(n, "maximum", kprod, one));
  /* checked non-negative: S, k - 1, num; checked 0: chans - C prod(k), prod(nb) - blocks */
  MlcGExpr *checks[5] = {img, mlc_onnx__emit2(n, "subtract", blk, one), num,
                         mlc_onnx__emit2(n, "subtract", mlc_onnx__i64_const(n, chans), mlc_onnx__emit2(n, "multiply", cn, kprod)),
                         mlc_onnx__emit2(n, "subtract", bprod, mlc_onnx__i64_const(n, blocks))};
  MlcExpr *cd[3 * COL_MAX_ND + 2];
  for (int i = 0; i < 3 * nd; i++) cd[i] = mlc_onnx__fresh_dim(n);
  cd[3 * nd] = cd[3 * nd + 1] = mlc_e_int(ctx, MLC_I64, 0);
  if (!mlc_onnx__bind_values(n, mlc_onnx__join(n, checks, 5), cd, 3 * nd + 2)) return false;
  MlcGExpr *sizes[3] = {cn, img, blk};
  for (int i = 0; i <= nd; i++) dims[i] = mlc_onnx__fresh_dim(n);
  for (int i = 0; i < nd; i++) block[i] = mlc_onnx__fresh_dim(n);
  MlcExpr *all[2 * COL_MAX_ND + 1];
  for (int i = 0; i <= nd; i++) all[i] = dims[i];
  for (int i = 0; i < nd; i++) all[nd + 1 + i] = block[i];
  return mlc_onnx__bind_values(n, mlc_onnx__join(n, sizes, 3), all, 2 * nd + 1);
}

/* known sizes: the same checks, here */
static bool col_static_sizes(MlcOnnxNode *n, int64_t chans, int64_t blocks, const ColAttrs *c, MlcExpr **dims,
                             MlcExpr **block) {
  MlcCtx *ctx = n->im->ctx;
  int64_t img[COL_MAX_ND], blk[COL_MAX_ND], kprod = 1, bprod = 1;
  int k1, k2;
  if (!mlc_onnx__known_ints(n, 1, img, COL_MAX_ND, &k1) || !mlc_onnx__known_ints(n, 2, blk, COL_MAX_ND, &k2)) return false;
  for (int i = 0; i < c->nd; i++) {
    if (img[i] < 0 || img[i] > COL_MAX_SIZE || blk[i] < 1 || blk[i] > chans)
      return mlc_onnx__node_fail(n, "image size %lld and block size %lld do not fit along dim %d", (long long)img[i],
                                 (long long)blk[i], i);
    int64_t num = img[i] + c->pads[i] + c->pads[c->nd + i] - 1 - c->dil[i] * (blk[i] - 1);
    if (num < 0) return mlc_onnx__node_fail(n, "along dim %d a block is longer than the padded image", i);
    /* each product stays at most its data dim (checked before it grows), so neither overflows */
    int64_t nb = num / c->strides[i] + 1;
    if (blk[i] > chans / kprod || nb > (blocks ? blocks / bprod : 0))
      return mlc_onnx__node_fail(n, "data has %lld channels and %lld blocks, fewer than the block and image shapes make",
                                 (long long)chans, (long long)blocks);
    kprod *= blk[i], bprod *= nb;
    dims[1 + i] = mlc_e_int(ctx, MLC_I64, img[i]), block[i] = mlc_e_int(ctx, MLC_I64, blk[i]);
  }
  if (chans % kprod || bprod != blocks)
    return mlc_onnx__node_fail(n, "data has %lld channels and %lld blocks; the block shape takes multiples of %lld "
                                  "channels and the image makes %lld blocks",
                               (long long)chans, (long long)blocks, (long long)kprod, (long long)bprod);
  dims[0] = mlc_e_int(ctx, MLC_I64, chans / kprod);
  return true;
}

bool mlc_onnx__conv_col2im(MlcOnnxNode *n) {
  MlcCtx *ctx = n->im->ctx;
  MlcGExpr *x = mlc_onnx__input(n, 0), *img = mlc_onnx__input(n, 1), *blk = mlc_onnx__input(n, 2);
  int64_t chans, blocks, len1, len2;
  if (!x || !img || !blk) return false;
  if (mlc_onnx__rank(x) != 3 || !mlc_onnx__const_dim(x, 1, &chans) || !mlc_onnx__const_dim(x, 2, &blocks))
    return mlc_onnx__node_fail(n, "input must be (N, C * block size, blocks) with constant channels and blocks");
  if (mlc_onnx__rank(img) != 1 || mlc_onnx__rank(blk) != 1 || !mlc_onnx__const_dim(img, 0, &len1) ||
      !mlc_onnx__const_dim(blk, 0, &len2) || len1 != len2 || len1 < 1 || len1 > COL_MAX_ND ||
      !mlc_dtype_is_int(mlc_onnx__dtype_of(img)) || !mlc_dtype_is_int(mlc_onnx__dtype_of(blk)))
    return mlc_onnx__node_fail(n, "image_shape and block_shape must hold one integer per spatial dim (1 to %d)", COL_MAX_ND);
  ColAttrs c = {.nd = (int)len1};
  MlcExpr *dims[1 + COL_MAX_ND], *block[COL_MAX_ND];
  if (!col_attrs(n, &c)) return false;
  bool known = mlc_onnx__known_or_absent(n, 1) && mlc_onnx__known_or_absent(n, 2);
  if (!(known ? col_static_sizes : col_runtime_sizes)(n, chans, blocks, &c, dims, block)) return false;
  /* the taps: a tensor of the block's shape, through which its sizes reach the kernel */
  MlcAttr za[2] = {attr("shape", mlc_onnx__av_exprs(ctx, block, c.nd)), attr("dtype", mlc_onnx__av_dtype(MLC_DT(MLC_TC_INT, 8, 1)))};
  MlcGExpr *args[2] = {x, mlc_onnx__emit_attrs(n, "zeros", NULL, 0, 2, za)};
  MlcAttr a[4] = {attr("shape", mlc_onnx__av_exprs(ctx, dims, c.nd + 1)), attr("strides", mlc_onnx__av_ints(ctx, c.strides, c.nd)),
                  attr("dilations", mlc_onnx__av_ints(ctx, c.dil, c.nd)), attr("pads", mlc_onnx__av_ints(ctx, c.pads, 2 * c.nd))};
  return args[1] && (n->out[0] = mlc_onnx__emit_attrs(n, "image.col2im", args, 2, 4, a)) != NULL;
}
