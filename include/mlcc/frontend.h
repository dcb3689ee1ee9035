/* frontend.h - importers: models in their development form into IRModules.
 *
 * ONNX: the file is untrusted input.  It is decoded by protobuf-c (C code
 * generated at build time from the schema libonnx-dev ships); every size
 * taken from it is bounded and overflow-checked before anything is
 * allocated; tensor data stored outside the file ("external data") is read
 * only from plain files inside the model's folder, by relative path.
 *
 * Errors name the model file and, where one is at fault, the node (its name,
 * op type, domain and opset) or the tensor. */
#ifndef MLCC_FRONTEND_H
#define MLCC_FRONTEND_H

#include "mlcc/ir.h"

/* the largest model file read (2 GiB, protobuf's own limit) */
#define MLC_ONNX_MAX_FILE ((size_t)2 << 30)
/* the most elements one tensor of the file may claim */
#define MLC_ONNX_MAX_NUMEL ((int64_t)1 << 34)

/* A TensorProto decoded: name (interned, "" when none) and its data. */
typedef struct MlcOnnxTensor {
  const char *name;
  MlcTensorData *data;
} MlcOnnxTensor;

/* Read a file holding one serialized TensorProto (the conformance suite's
 * input_<i>.pb / output_<i>.pb).  NULL + error. */
MlcOnnxTensor *mlc_onnx_read_tensor_file(MlcCtx *ctx, const char *path);

/* Decode a serialized TensorProto.  `where` names it in messages; dir is the
 * folder external data is resolved against (NULL: external data refused). */
MlcOnnxTensor *mlc_onnx_decode_tensor(MlcCtx *ctx, const char *where, const void *buf, size_t len,
                                      const char *dir);

/* ---- sequence and optional values (onnx_value.c) ----------------------------
 * The conformance data of sequence and optional inputs and outputs
 * (SequenceProto, OptionalProto), and the kinds of a model's inputs and
 * outputs that say which one a file holds.  A compiled model takes and gives
 * such values flattened: a sequence as its element tensors in order, an
 * optional as its value's tensors (none when absent) (docs/onnx.md). */
typedef enum MlcOnnxValueKind { MLC_ONNX_TENSOR, MLC_ONNX_SEQUENCE, MLC_ONNX_OPTIONAL } MlcOnnxValueKind;

typedef struct MlcOnnxValue {
  MlcOnnxValueKind kind;
  bool absent; /* an optional without a value */
  bool seq;    /* a sequence, or an optional holding one */
  int n;       /* its tensors, flattened */
  MlcTensorData **tensors;
} MlcOnnxValue;

/* a graph input (not an initializer) or output: its name and kind */
typedef struct MlcOnnxIo {
  const char *name;
  MlcOnnxValueKind kind;
} MlcOnnxIo;

/* the file at path holding one serialized value of kind (TensorProto,
 * SequenceProto of tensors, OptionalProto of a tensor or such a sequence).
 * NULL + error; maps, sparse tensors and nested sequences are refused as
 * not supported. */
MlcOnnxValue *mlc_onnx_read_value_file(MlcCtx *ctx, const char *path, MlcOnnxValueKind kind);
/* the same for a serialized value in memory; `where` names it in messages */
MlcOnnxValue *mlc_onnx_decode_value(MlcCtx *ctx, const char *where, const void *buf, size_t len, MlcOnnxValueKind kind);
/* the graph inputs (initializers left out) and outputs of the model file */
bool mlc_onnx_graph_io(MlcCtx *ctx, const char *path, MlcOnnxIo **ins, int *n_in, MlcOnnxIo **outs, int *n_out);

/* Import options.  An input shape given here replaces the model's (for
 * example to fix a batch dim: `--input-shape x:1x3x224x224`). */
typedef struct MlcOnnxInputShape {
  const char *name;
  int ndim;
  int64_t dims[32];
} MlcOnnxInputShape;

/* an input fixed to a value at compile time: it becomes a constant of its
 * declared dtype and (static) shape, n values in row-major order */
typedef struct MlcOnnxInputValue {
  const char *name;
  int n;
  const double *values;
} MlcOnnxInputValue;

/* the makeup of a sequence or optional input, which its type leaves open:
 * a sequence's length (its elements become params named "name[0]",
 * "name[1]", ..., whose shapes `shapes` may give under those names), and
 * whether an optional holds a value (absent: no param at all) */
typedef struct MlcOnnxInputSeq {
  const char *name;
  int length;  /* a sequence, or an optional's sequence: its element count */
  bool absent; /* an optional without a value */
} MlcOnnxInputSeq;

typedef struct MlcOnnxOptions {
  const char *func_name;             /* the graph function; NULL: "main" */
  const MlcOnnxInputShape *shapes;
  int n_shapes;
  const MlcOnnxInputValue *values;
  int n_values;
  const MlcOnnxInputSeq *seqs;
  int n_seqs;
  /* recurrent layers and Scan over at most this many static steps are
   * unrolled, longer ones become a loop (R.loop); 0: the default, 16.  A
   * target whose executor runs no loops (the GPU targets) asks for more. */
  int64_t unroll_steps;
} MlcOnnxOptions;

/* ModelProto -> a module with one graph function: the graph's inputs (not
 * its initializers) become params with their shapes (named dim_params become
 * symbolic vars shared by name, unknown dims fresh ones), initializers
 * become constants, nodes become op calls (Constant and static shape
 * computations folded), outputs the function's result.  Every unsupported
 * node is reported at once, one per line.  opt may be NULL. */
MlcModule *mlc_onnx_import(MlcCtx *ctx, const char *file, const void *buf, size_t len,
                           const char *dir, const MlcOnnxOptions *opt);
/* the same for a file; external data is resolved in its folder */
MlcModule *mlc_onnx_import_file(MlcCtx *ctx, const char *path, const MlcOnnxOptions *opt);

#endif
