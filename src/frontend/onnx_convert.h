/* onnx_convert.h - what the converter families share: small builders over
 * the node's inputs, constants, and the declarations of the converters
 * defined outside onnx_ops.c (listed in onnx_ops.def), which onnx_ops.c
 * puts in its table. */
#ifndef MLCC_FRONTEND_ONNX_CONVERT_H
#define MLCC_FRONTEND_ONNX_CONVERT_H

#include "onnx_internal.h"

#define MLC_I64_T MLC_DT(MLC_TC_INT, 64, 1)

/* the most dims a converter handles (arrays of axes, pads, dims are this long) */
#define MLC_ONNX_MAX_RANK 32

/* ---- onnx_quant_dot.c ----------------------------------------------------------------- */
/* sum_k (a - a_zp)(b - b_zp) in int32 as a uint8 x int8 matmul plus
 * zero-point corrections, for a constant 2-D b and a zero point of a of one
 * value; NULL without an error when that form does not apply */
MlcGExpr *mlc_onnx__int_matmul_dot(MlcOnnxNode *n, MlcGExpr *a, MlcGExpr *a_zp, MlcGExpr *b, MlcGExpr *b_zp);
/* the zero points of such a product and what is known of them: sa (128 for
 * an int8 A) and sb (128 for a uint8 B) the shifts into uint8 x int8, K
 * the reduction length, cs the column sums of the shifted weight */
typedef struct MlcOnnxDotZp {
  MlcGExpr *a_zp, *b_zp;
  bool za_zero, zb_zero;                   /* absent or constant zeros */
  const MlcTensorData *za_known, *zb_known; /* constant ones */
  int64_t sa, sb, K;
  MlcTensorData *cs;
} MlcOnnxDotZp;
/* a_zp of one value, b_zp of one value or n_cols; false when not that */
bool mlc_onnx__dot_zp_read(MlcGExpr *a_zp, MlcGExpr *b_zp, int64_t n_cols, MlcOnnxDotZp *z);
/* a + sa as uint8 (a itself when sa is 0) */
MlcGExpr *mlc_onnx__dot_shift_input(MlcOnnxNode *n, MlcGExpr *a, int64_t sa);
/* y = A' @ W' (int32) with the zero-point terms added; a1 is A' (uint8, the
 * reduction its last axis, any columns past K zeros) */
MlcGExpr *mlc_onnx__dot_zero_points(MlcOnnxNode *n, MlcGExpr *y, MlcGExpr *a1, const MlcOnnxDotZp *z);
/* element i of an int8 or uint8 constant */
int64_t mlc_onnx__byte_elem(const MlcTensorData *d, size_t i);

/* ---- onnx_quant_conv.c ---------------------------------------------------------------- */
/* ConvInteger's int32 sum (plus bias, when given) of a 2-D conv, group 1,
 * of a constant byte weight, as an im2col matrix times the weight in the
 * form above; NULL without an error when that form does not apply */
MlcGExpr *mlc_onnx__int_conv_dot(MlcOnnxNode *n, MlcGExpr *x, MlcGExpr *x_zp, MlcGExpr *w, MlcGExpr *w_zp,
                                 MlcGExpr *bias);

/* ---- onnx_ops_conv_pool.c ------------------------------------------------------------- */
/* the 2-D window of a Conv node over x (rank 4) with the given kernel:
 * strides, dilations, pads (begins, then ends), auto_pad resolved; false
 * with an error for attributes out of range */
bool mlc_onnx__conv_window_2d(MlcOnnxNode *n, const MlcGExpr *x, const int64_t *kernel, int64_t *strides,
                              int64_t *dilations, int64_t *pads);

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
/* input i is absent or its value known at compile time */
bool mlc_onnx__known_or_absent(MlcOnnxNode *n, int i);
/* t's values as a shape read when the model runs (src/ops/dynshape.c):
 * a tensor_to_shape binding in `mode` ("values"; "reshape",
 * "reshape_allowzero", "expand", "reduce_keep", "reduce_drop", "squeeze"
 * and "unsqueeze" relate them to the tensor `like`), and
 * dims[0..*count) its dims: fresh size vars, or like's where an expand keeps
 * them.  An error when t is no 1-D int tensor of static length (mode
 * "range": 3 float64 values, start, limit and delta, into one dim). */
bool mlc_onnx__runtime_shape(MlcOnnxNode *n, MlcGExpr *t, MlcGExpr *like, const char *mode, MlcExpr **dims, int cap,
                             int *count);
/* values read at run time (onnx_values.c): t as a 1-D int64 tensor (a
 * scalar as one value); a one-value int64 constant; 1-D tensors
 * concatenated; t's values bound to dims (tensor_to_shape mode "values":
 * a constant entry checked equal, a fresh var checked non-negative); a
 * fresh size var */
MlcGExpr *mlc_onnx__i64_row(MlcOnnxNode *n, MlcGExpr *t);
MlcGExpr *mlc_onnx__i64_const(MlcOnnxNode *n, int64_t v);
MlcGExpr *mlc_onnx__join(MlcOnnxNode *n, MlcGExpr **items, int k);
bool mlc_onnx__bind_values(MlcOnnxNode *n, MlcGExpr *t, MlcExpr **dims, int k);
MlcExpr *mlc_onnx__fresh_dim(MlcOnnxNode *n);
/* Slice (onnx_ops_dynslice.c) with starts, ends, axes or steps computed at run time */
bool mlc_onnx__slice_runtime(MlcOnnxNode *n, MlcGExpr *x, int rank);
/* Pad (onnx_ops_dynslice.c) with pads, constant value or axes computed at run time; mode is Pad's */
bool mlc_onnx__pad_runtime(MlcOnnxNode *n, MlcGExpr *x, int rank, const char *mode);
/* OneHot (onnx_ops_dynslice.c) with depth or values computed at run time; axis as given */
bool mlc_onnx__onehot_runtime(MlcOnnxNode *n, MlcGExpr *ind, int64_t axis);
/* input i's value as one float (known, any numeric dtype); *present false when absent */
bool mlc_onnx__known_scalar(MlcOnnxNode *n, int i, double *out, bool *present);
/* a constant scalar of x's dtype */
MlcGExpr *mlc_onnx__scalar_like(MlcOnnxNode *n, const MlcGExpr *x, double v);
/* x clamped to the largest finite value of minifloat t (NaN kept): what
 * ONNX's saturate=1 does before the IR's cast to t, which does not saturate */
MlcGExpr *mlc_onnx__saturate_minifloat(MlcOnnxNode *n, MlcGExpr *x, MlcDType t);
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

/* ---- onnx_ops_control.c ----------------------------------------------------------------- */
/* items[0..k) (k >= 1, of one shape) stacked along a new axis */
MlcGExpr *mlc_onnx__stack(MlcOnnxNode *n, MlcGExpr **items, int64_t k, int64_t axis);

/* ---- onnx_loop_body.c: the body of an R.loop built by a converter ------------------- */
typedef struct MlcOnnxBody {
  MlcOnnxNode *n;
  MlcMap values, known;          /* the enclosing scope, while the body's is the importer's */
  MlcOnnxBindings bindings;      /* the enclosing bindings */
  MLC_VEC(MlcGExpr *) params;    /* iter, cond, the carried values, the outer values */
  MLC_VEC(MlcGExpr *) outer;     /* the enclosing values the outer params stand for */
  int n_carried;
} MlcOnnxBody;
/* a scope and bindings of the body's own; params[0] is the iteration
 * number (0-d int64), params[1] the condition (0-d bool) */
void mlc_onnx__body_begin(MlcOnnxNode *n, MlcOnnxBody *b);
/* a carried value's param of struct info s (all before the first outer) */
MlcGExpr *mlc_onnx__body_carried(MlcOnnxBody *b, MlcSInfo *s);
/* the enclosing value v as the body sees it: a param (one per value), or
 * v itself when it is a constant */
MlcGExpr *mlc_onnx__body_outer(MlcOnnxBody *b, MlcGExpr *v);
/* the enclosing values that ONNX graph g (and its subgraphs) reads by name
 * and that are not yet in the body's scope, put there as body_outer */
bool mlc_onnx__body_capture(MlcOnnxBody *b, const Onnx__GraphProto *g);
/* the body's result outs = (condition, carried values, k scan elements)
 * checked: a one-element bool condition, carried values of their params'
 * shapes (one dim known only at run time is copied to the param's shape
 * with a run-time check), elements of shapes known outside the body (one
 * dim known only at run time taken from decls[j], the graph's declaration
 * of element j, when it gives one) */
bool mlc_onnx__body_check(MlcOnnxBody *b, MlcGExpr **outs, int k, Onnx__ValueInfoProto *const *decls);
/* the step that the body's iteration number stands for: it, or (reverse)
 * trips - 1 - it, trips being the enclosing function's trip count */
MlcGExpr *mlc_onnx__body_step(MlcOnnxBody *b, MlcGExpr *trips, bool reverse);
/* the loop's scan output res[i] with its first dim (the iteration count)
 * copied to len, the trip count known before the loop runs (trips holds
 * its value), and, when reverse, flipped along that dim */
MlcGExpr *mlc_onnx__loop_stacked(MlcOnnxNode *n, MlcGExpr *res, int i, MlcExpr *len, MlcGExpr *trips, bool reverse);
/* the body ended (ok false: dropped) with result outs = (condition, the
 * carried values, k scan elements of known shapes), the enclosing scope
 * restored, and R.loop(body, trips, cond, init, outer) emitted there: its
 * tuple value (the carried values, then the scan outputs), or NULL */
MlcGExpr *mlc_onnx__body_finish(MlcOnnxBody *b, bool ok, MlcGExpr **outs, int k, MlcGExpr *trips, MlcGExpr *cond,
                                MlcGExpr **init);

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
#define X(op, since, fn) bool fn(MlcOnnxNode *n);
#include "onnx_ops.def"
#undef X

#endif
