/* onnx_convert.h - what the converter families share: small builders over
 * the node's inputs, constants, and the list of converters defined outside
 * onnx_ops.c (X(op type, first opset, function)), which onnx_ops.c puts in
 * its table. */
#ifndef MLCC_FRONTEND_ONNX_CONVERT_H
#define MLCC_FRONTEND_ONNX_CONVERT_H

#include "onnx_internal.h"

#define MLC_I64_T MLC_DT(MLC_TC_INT, 64, 1)

/* ---- onnx_util.c -------------------------------------------------------------------- */
/* a 0-d constant of dtype t / a 1-d int64 constant */
MlcTensorData *mlc_onnx__scalar(MlcCtx *ctx, MlcDType t, double v);
MlcTensorData *mlc_onnx__i64s(MlcCtx *ctx, const int64_t *v, int n);
/* the rank / dtype of a graph value with tensor struct info (-1 / void when unknown) */
int mlc_onnx__rank(const MlcGExpr *e);
MlcDType mlc_onnx__dtype_of(const MlcGExpr *e);
/* dim d as a constant; false when symbolic */
bool mlc_onnx__const_dim(const MlcGExpr *e, int d, int64_t *out);
/* input i, required: an error naming it when absent */
MlcGExpr *mlc_onnx__input(MlcOnnxNode *n, int i);
/* input i's value as ints (int32 / int64 tensor known at compile time);
 * *count = -1 when the input is absent; an error when it is not constant */
bool mlc_onnx__known_ints(MlcOnnxNode *n, int i, int64_t *out, int cap, int *count);
/* input i's value as one float (known, any numeric dtype); *present false when absent */
bool mlc_onnx__known_scalar(MlcOnnxNode *n, int i, double *out, bool *present);
/* a constant scalar of x's dtype */
MlcGExpr *mlc_onnx__scalar_like(MlcOnnxNode *n, const MlcGExpr *x, double v);
/* emit helpers: op with one or two tensor args and optional attrs */
MlcGExpr *mlc_onnx__emit1(MlcOnnxNode *n, const char *op, MlcGExpr *a);
MlcGExpr *mlc_onnx__emit2(MlcOnnxNode *n, const char *op, MlcGExpr *a, MlcGExpr *b);
MlcGExpr *mlc_onnx__emit_attrs(MlcOnnxNode *n, const char *op, MlcGExpr **args, int n_args, int n_attrs,
                               const MlcAttr *attrs);
/* x[i] of a tuple-valued op's result */
MlcGExpr *mlc_onnx__item(MlcOnnxNode *n, MlcGExpr *tuple, int i);
/* the node's int-list attribute or input (newer opsets moved several
 * attributes to inputs): attribute `name` when opset < input_since, else
 * input `input`; *count -1 when absent */
bool mlc_onnx__ints_attr_or_input(MlcOnnxNode *n, const char *name, int64_t input_since, int input,
                                  int64_t *out, int cap, int *count);

/* ---- small builders every converter file uses ------------------------------------------ */
static inline MlcAttr attr(const char *k, MlcAttrValue v) { return (MlcAttr){k, v}; }
static inline MlcAttrValue av_bool(bool b) { return (MlcAttrValue){.kind = MLC_ATTR_BOOL, .b = b}; }
/* x's rank in *rank; a "not supported" error when it is unknown */
static inline bool need_rank(MlcOnnxNode *n, const MlcGExpr *x, int *rank) {
  *rank = mlc_onnx__rank(x);
  if (*rank < 0) return mlc_onnx__node_fail(n, "input of unknown rank is not supported");
  return true;
}

/* ---- the converters outside onnx_ops.c ------------------------------------------------ */
#define MLC_ONNX_MORE_CONVERTERS(X)                                                  \
  X("MatMul", 1, mlc_onnx__conv_matmul) X("Gemm", 1, mlc_onnx__conv_gemm)            \
  X("Conv", 1, mlc_onnx__conv_conv) X("MaxPool", 1, mlc_onnx__conv_maxpool)          \
  X("AveragePool", 1, mlc_onnx__conv_avgpool)                                        \
  X("GlobalAveragePool", 1, mlc_onnx__conv_global_avgpool)                           \
  X("GlobalMaxPool", 1, mlc_onnx__conv_global_maxpool)                               \
  X("BatchNormalization", 1, mlc_onnx__conv_batchnorm)                               \
  X("LayerNormalization", 17, mlc_onnx__conv_layernorm)                              \
  X("Softmax", 1, mlc_onnx__conv_softmax) X("LogSoftmax", 1, mlc_onnx__conv_logsoftmax) \
  X("ReduceSum", 1, mlc_onnx__conv_reduce_sum) X("ReduceMean", 1, mlc_onnx__conv_reduce_mean) \
  X("ReduceMax", 1, mlc_onnx__conv_reduce_max) X("ReduceMin", 1, mlc_onnx__conv_reduce_min) \
  X("ReduceL1", 1, mlc_onnx__conv_reduce_l1) X("ReduceL2", 1, mlc_onnx__conv_reduce_l2) \
  X("ReduceSumSquare", 1, mlc_onnx__conv_reduce_sumsquare)                           \
  X("ReduceLogSum", 1, mlc_onnx__conv_reduce_logsum)                                 \
  X("ReduceLogSumExp", 1, mlc_onnx__conv_reduce_logsumexp)                           \
  X("Reshape", 5, mlc_onnx__conv_reshape) X("Flatten", 1, mlc_onnx__conv_flatten)    \
  X("Transpose", 1, mlc_onnx__conv_transpose) X("Squeeze", 1, mlc_onnx__conv_squeeze) \
  X("Unsqueeze", 1, mlc_onnx__conv_unsqueeze) X("Concat", 4, mlc_onnx__conv_concat)  \
  X("Split", 2, mlc_onnx__conv_split) X("Slice", 10, mlc_onnx__conv_slice)           \
  X("Gather", 1, mlc_onnx__conv_gather) X("Expand", 8, mlc_onnx__conv_expand)        \
  X("Shape", 1, mlc_onnx__conv_shape) X("Size", 1, mlc_onnx__conv_size)              \
  X("Constant", 1, mlc_onnx__conv_constant)                                          \
  X("ConstantOfShape", 9, mlc_onnx__conv_constant_of_shape)                          \
  X("Range", 11, mlc_onnx__conv_range) X("Cast", 6, mlc_onnx__conv_cast)             \
  X("CastLike", 15, mlc_onnx__conv_castlike) X("Dropout", 1, mlc_onnx__conv_dropout) \
  X("Clip", 6, mlc_onnx__conv_clip)

#define X(op, since, fn) bool fn(MlcOnnxNode *n);
MLC_ONNX_MORE_CONVERTERS(X)
#include "onnx_conv_a.def"
#include "onnx_conv_b.def"
#include "onnx_conv_c.def"
#include "onnx_conv_d.def"
#include "onnx_conv_quant.def"
#include "onnx_conv_rnn.def"
#include "onnx_conv_index.def"
#include "onnx_conv_control.def"
#undef X

#endif
