/* onnx_internal.h - what the ONNX importer's files share: the generated
 * protobuf-c declarations and the decoding of tensors. */
#ifndef MLCC_FRONTEND_ONNX_INTERNAL_H
#define MLCC_FRONTEND_ONNX_INTERNAL_H

#include "mlcc/frontend.h"
#include "onnx.pb-c.h"

/* the mlcc dtype of an ONNX TensorProto.DataType; false when unsupported */
bool mlc_onnx__dtype(int32_t onnx_type, MlcDType *out);
/* its name, for messages ("FLOAT", "STRING", ...) */
const char *mlc_onnx__dtype_name(int32_t onnx_type);

/* The data of t, checked (rank, dims, element count against the data
 * present, raw_data length, external data path and range).  `where` names
 * the tensor in messages; dir resolves external data (NULL refuses it). */
MlcTensorData *mlc_onnx__tensor_data(MlcCtx *ctx, const char *where, const Onnx__TensorProto *t,
                                     const char *dir);

/* ---- the wire format --------------------------------------------------------- */

/* How deep messages may nest (a model is level 0, its graph 1, a node 2, a
 * subgraph attribute 3, its graph 4, ...): a few dozen If-within-If levels,
 * far beyond real models, and far below what overflows the decoder's stack. */
#define MLC_ONNX_MAX_NESTING 100

typedef enum MlcOnnxWire { MLC_ONNX_WIRE_OK, MLC_ONNX_WIRE_TOO_DEEP, MLC_ONNX_WIRE_MALFORMED } MlcOnnxWire;

/* Scan the encoded message (of type root) without recursion; TOO_DEEP when
 * messages nest more than max_depth (at most MLC_ONNX_MAX_NESTING) levels. */
MlcOnnxWire mlc_onnx__wire_depth(const void *data, size_t len, const ProtobufCMessageDescriptor *root,
                                 int max_depth);

/* ---- import state and node conversion -------------------------------------- */

#define MLC_ONNX_MAX_IO 64 /* inputs / outputs of one node */

typedef MLC_VEC(MlcBinding) MlcOnnxBindings;
typedef MLC_VEC(MlcGExpr *) MlcGExprs;
typedef MLC_VEC(MlcAttrValue) MlcAttrValues;

/* Recurrent layers and Scan of at most this many static steps are unrolled
 * by default (MlcOnnxOptions.unroll_steps).  Unrolled, each
 * step is a kernel or two called in straight-line code; in a loop each step
 * also copies the carried state and its output row and reads its input row
 * through a gather, which costs about as much as the step's small kernels at
 * the sizes of the conformance models.  Past a few dozen steps the unrolled
 * graph's compile time dominates (it grows with every step, the loop's does
 * not), so the bound is low. */
#define MLC_ONNX_UNROLL_STEPS 16
/* the most steps (times directions) ever unrolled, whatever the options ask */
#define MLC_ONNX_MAX_UNROLL_STEPS 4096

typedef struct MlcOnnxImporter {
  MlcCtx *ctx;
  const char *file;      /* the model's path, for messages */
  const char *dir;       /* its folder, for external data */
  int64_t opset;         /* of the default domain */
  MlcMap values;         /* interned ONNX value name -> MlcGExpr (var or constant) */
  MlcMap known;          /* interned name -> MlcTensorData: values known at compile time */
  MlcMap dims;           /* interned dim_param -> int64 MlcExpr var */
  MlcOnnxBindings bindings;
  unsigned fresh;
  int depth;             /* subgraphs being imported, nested */
  MLC_VEC(MlcFunc) funcs; /* graph functions beside main: the bodies of loops (onnx_ops_loop.c) */
  MlcGExpr *absent;      /* the value of every absent optional (onnx_ops_seq.c) */
  int64_t unroll_steps;  /* recurrent layers and Scan of at most this many static steps are unrolled */
} MlcOnnxImporter;

/* What a converter sees of one node: its inputs as graph values (NULL for an
 * omitted optional input) with their values when known at compile time, and
 * where it puts its outputs (a graph value each; `known` too when the
 * converter folded it). */
typedef struct MlcOnnxNode {
  MlcOnnxImporter *im;
  const Onnx__NodeProto *proto;
  int64_t opset;
  int n_in, n_out;
  MlcGExpr *in[MLC_ONNX_MAX_IO];
  const MlcTensorData *known_in[MLC_ONNX_MAX_IO];
  MlcGExpr *out[MLC_ONNX_MAX_IO];
  MlcTensorData *known_out[MLC_ONNX_MAX_IO];
} MlcOnnxNode;

typedef bool (*MlcOnnxConvertFn)(MlcOnnxNode *n);

/* the converter of an op type at the model's opset; NULL when unsupported */
MlcOnnxConvertFn mlc_onnx__converter(const char *op_type, int64_t opset);
/* the converter of a com.microsoft contrib op (onnx_ops_contrib.c); NULL when unsupported */
MlcOnnxConvertFn mlc_onnx__contrib_converter(const char *op_type);
/* the converter of an ai.onnx.preview.training op (onnx_ops_training.c); NULL when unsupported */
MlcOnnxConvertFn mlc_onnx__training_converter(const char *op_type);

/* Import subgraph g of node n (an If branch) into the bindings being built:
 * its initializers and nodes, reading the enclosing graphs' values by name;
 * outs[i] gets the value of its output i.  Nesting is bounded. */
bool mlc_onnx__import_subgraph(MlcOnnxNode *n, const Onnx__GraphProto *g, MlcGExpr **outs, int n_outs);
/* the same for a loop body taking inputs ins[0..n_ins), imported in a scope
 * of its own: the names it defines are forgotten afterwards, so the same
 * body can be imported once per iteration */
bool mlc_onnx__import_body(MlcOnnxNode *n, const Onnx__GraphProto *g, MlcGExpr **ins, int n_ins, MlcGExpr **outs,
                           int n_outs);

/* an error about node n: "file: node 'name' (Op, opset 13): message" */
bool mlc_onnx__node_fail(MlcOnnxNode *n, const char *fmt, ...) MLC_PRINTF(2, 3);

/* Emit `var = R.<op>(args..., attrs)` with the struct info the registry
 * infers; returns the new dataflow var, NULL + error (naming the node). */
MlcGExpr *mlc_onnx__emit(MlcOnnxNode *n, const char *op, MlcGExpr **args, int n_args, MlcAttrs attrs);
/* the call computed at import time when its tensor args are all constants
 * and its result is small and static (onnx_util.c); NULL otherwise */
MlcGExpr *mlc_onnx__try_fold(MlcCtx *ctx, const MlcGExpr *call);
/* a constant value (also recorded as known when it is an output) */
MlcGExpr *mlc_onnx__const(MlcOnnxNode *n, MlcTensorData *d);

/* attributes of the node */
const Onnx__AttributeProto *mlc_onnx__attr(const MlcOnnxNode *n, const char *name);
bool mlc_onnx__attr_int(MlcOnnxNode *n, const char *name, int64_t dflt, int64_t *out);
bool mlc_onnx__attr_float(MlcOnnxNode *n, const char *name, double dflt, double *out);
/* NULL (no error) when absent */
const char *mlc_onnx__attr_str(MlcOnnxNode *n, const char *name, const char *dflt);
/* ints: *n_out = -1 when absent */
bool mlc_onnx__attr_ints(MlcOnnxNode *n, const char *name, int64_t *out, int cap, int *n_out);

/* attribute lists for emitted op calls */
MlcAttrs mlc_onnx__attrs(MlcCtx *ctx, int n, const MlcAttr *items);
MlcAttrValue mlc_onnx__av_int(int64_t v);
MlcAttrValue mlc_onnx__av_float(double v);
MlcAttrValue mlc_onnx__av_ints(MlcCtx *ctx, const int64_t *v, int n);
/* dims as a list: ints where constant, int64 exprs otherwise */
MlcAttrValue mlc_onnx__av_exprs(MlcCtx *ctx, MlcExpr *const *dims, int n);
MlcAttrValue mlc_onnx__av_str(MlcCtx *ctx, const char *s);
MlcAttrValue mlc_onnx__av_dtype(MlcDType t);

/* ---- sequences and optionals (onnx_ops_seq.c) --------------------------------
 * A sequence whose length is known at import is a tuple of its element
 * tensors (an unbound MLC_G_TUPLE in the value table); an optional is its
 * value when present, and im->absent when not.  Both are resolved at
 * import: nothing of them reaches the graph but their tensors. */
bool mlc_onnx__is_seq(const MlcOnnxImporter *im, const MlcGExpr *v);
MlcGExpr *mlc_onnx__absent(MlcOnnxImporter *im);
/* node n's inputs are tensors, unless its op takes sequences or optionals
 * (the Sequence* and Optional* ops, Identity, Loop); an error naming the
 * input otherwise */
bool mlc_onnx__check_values(MlcOnnxNode *n);
/* a graph input of sequence or optional type: its elements become params
 * (pushed to params), as opt's seqs and shapes give them */
bool mlc_onnx__seq_input(MlcOnnxImporter *im, const Onnx__ValueInfoProto *vi, const MlcOnnxOptions *opt,
                         MlcGExprs *params);
/* value v of the graph's input or output `name` flattened: its tensors
 * (pushed to vals when not NULL) and their names (pushed to names: "name",
 * or "name[i]" for a sequence's elements); none for an absent optional */
void mlc_onnx__flatten(MlcOnnxImporter *im, const char *name, MlcGExpr *v, MlcGExprs *vals, MlcAttrValues *names);
/* If with a condition computed at run time, on sequence or optional
 * branch values t and e: elementwise `where` over equal-length sequences;
 * NULL + a "not supported" error when the two differ in length or presence */
MlcGExpr *mlc_onnx__select_seq(MlcOnnxNode *n, MlcGExpr *c, MlcGExpr *t, MlcGExpr *e);

/* a printable identifier for a graph var made from an ONNX name */
const char *mlc_onnx__var_name(MlcOnnxImporter *im, const char *onnx);
/* the tensor sinfo of a TypeProto's tensor type (onnx_import.c); `name`
 * names it in messages and selects its shape in opt */
MlcSInfo *mlc_onnx__tensor_type_sinfo(MlcOnnxImporter *im, const char *name, const Onnx__TypeProto *t,
                                      const MlcOnnxOptions *opt);

/* the tensor struct info of a graph value (NULL when not a tensor of known rank) */
const MlcSInfo *mlc_onnx__tensor_sinfo(const MlcGExpr *e);

#endif
