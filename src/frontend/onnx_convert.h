/* onnx_convert.h - the converters defined outside onnx_ops.c, listed once:
 * X(op type, first opset, function).  Each family file defines its
 * functions; onnx_ops.c puts them in the table. */
#ifndef MLCC_FRONTEND_ONNX_CONVERT_H
#define MLCC_FRONTEND_ONNX_CONVERT_H

#include "onnx_internal.h"

#define MLC_ONNX_MORE_CONVERTERS(X)

#endif
