/* op_internal.h - what the op families (one source file per subject, each
 * with a table of the same name: elemwise.c, math_logic.c, linalg.c, det.c,
 * conv_pool.c, conv_transpose.c, deform_conv.c, reduce.c, reduce_scan.c,
 * manip.c, pad_tile.c, indexing.c, trilu.c, resize.c, sample.c, signal.c,
 * builtin.c, dynshape.c, datadep.c, dynslice.c, nms.c, sort.c; ops.def lists
 * them)
 * share: the declarations of every infer/te function the table names, and
 * helpers for reading arguments and reporting errors.  registry.c owns the
 * table, argument matching and mlc_op_to_prim_func; common.c owns the
 * helpers. */
#ifndef MLCC_OPS_OP_INTERNAL_H
#define MLCC_OPS_OP_INTERNAL_H

#include "mlcc/ops.h"

/* ---- the table's functions ------------------------------------------------ */
#define OP(name, ident, fuse, sig, infer, te) MlcSInfo *mlc_op_##infer(MlcCtx *, const MlcOpArgs *);
#include "ops.def"
#undef OP
/* te functions, one by one (an X-macro cannot skip the table's NULLs) */
bool mlc_op_te_binary(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_where(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_unary(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_clip(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_astype(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_bitcast(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_full(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_matmul(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_linear(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_conv2d(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_pool2d(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_pool2d_indices(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_adaptive_pool2d(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_reduce(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_softmax(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_layer_norm(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_batch_norm(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_reshape(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_permute_dims(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_expand_dims(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_squeeze(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_flatten(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_batch_flatten(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_concat(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_split(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_strided_slice(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_take(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_broadcast_to(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);

bool mlc_op_te_unary2(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_binary2(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_argreduce(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_prod(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_cumulative(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_trilu(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_pad(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_tile(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_gather_elements(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_scatter_elements(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_one_hot(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_conv2d_transpose(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_conv3d_transpose(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_resize2d(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_resize2d_dynamic(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_reduce_to_shape(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_range_to_shape(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_tile_to_shape(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_dim_tensor(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_grid_sample(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_roi_align(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_deform_conv2d(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_det(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_dft(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_stft(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_dft_dynamic(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_mel_weight_matrix(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_center_crop_pad(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_affine_grid(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_col2im(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_sort_rank(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_rank_positions(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_match_count(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_row_compare(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_split_part(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_slice_dynamic(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_pad_dynamic(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
bool mlc_op_te_one_hot_dynamic(MlcCtx *, const MlcOpArgs *, MlcTeTensor **, int, MlcTeTensor **, int *);
/* prim functions (OP_PRIM rows) */
MlcPrimFunc *mlc_op_prim_nms_select(MlcCtx *, const MlcOpArgs *, const char *);
MlcPrimFunc *mlc_op_prim_argsort(MlcCtx *, const MlcOpArgs *, const char *);
MlcPrimFunc *mlc_op_prim_compact_index(MlcCtx *, const MlcOpArgs *, const char *);
MlcPrimFunc *mlc_op_prim_unique_scan(MlcCtx *, const MlcOpArgs *, const char *);

/* ---- helpers (common.c) ------------------------------------------------------
 * All report through mlc_op_fail, which prefixes the op's name and locates
 * the message at ctx->build_loc. */
bool mlc_op_fail(MlcCtx *ctx, const MlcOpArgs *a, const char *fmt, ...) MLC_PRINTF(3, 4);

/* parameter index by name in the op's signature (-1 when absent) */
int mlc_op_param(const MlcOpArgs *a, const char *name);

/* the tensor struct info of parameter i (a T parameter): NULL + error when
 * it is not a tensor, has unknown rank, or (need_dtype) unknown dtype */
const MlcSInfo *mlc_op_tensor(MlcCtx *ctx, const MlcOpArgs *a, int i, bool need_dtype);

/* attribute readers: a missing optional attribute gives the default; a
 * present one of the wrong kind is an error naming the parameter */
bool mlc_op_attr_int(MlcCtx *ctx, const MlcOpArgs *a, const char *name, int64_t dflt, int64_t *out);
bool mlc_op_attr_float(MlcCtx *ctx, const MlcOpArgs *a, const char *name, double dflt, double *out);
bool mlc_op_attr_bool(MlcCtx *ctx, const MlcOpArgs *a, const char *name, bool dflt, bool *out);
/* a string attribute (layouts); dflt may be NULL */
bool mlc_op_attr_str(MlcCtx *ctx, const MlcOpArgs *a, const char *name, const char *dflt,
                     const char **out);
/* a dtype given as a dtype or a string; *present false when absent */
bool mlc_op_attr_dtype(MlcCtx *ctx, const MlcOpArgs *a, const char *name, MlcDType *out,
                       bool *present);
/* an int or a list of ints (axes, strides, padding): at most cap entries;
 * *present false when absent.  A single int gives one entry. */
bool mlc_op_attr_ints(MlcCtx *ctx, const MlcOpArgs *a, const char *name, int64_t *out, int cap,
                      int *n, bool *present);
/* one dim of a shape attribute: a non-negative int or an int expr, as int64; NULL when neither */
MlcExpr *mlc_op_shape_dim(MlcCtx *ctx, const MlcAttrValue *v);
/* a shape: a list of int64 exprs (constants or symbolic vars) */
bool mlc_op_attr_shape(MlcCtx *ctx, const MlcOpArgs *a, const char *name, MlcExpr ***out,
                       int *n);
/* want ints (one given: repeated; two given for four: (h, w) twice), each
 * >= lo; dflt when absent; an error names the attribute */
bool mlc_op_attr_ints_n(MlcCtx *ctx, const MlcOpArgs *a, const char *name, int want, int64_t dflt, int64_t lo,
                        int64_t *out);
/* string attribute `name` is absent or `want` (else an error) */
bool mlc_op_need_layout(MlcCtx *ctx, const MlcOpArgs *a, const char *name, const char *want);
/* arg i as a 4-D tensor (what: its name in the message) */
const MlcSInfo *mlc_op_rank4(MlcCtx *ctx, const MlcOpArgs *a, int i, const char *what);
/* normalize an axis in [-ndim, ndim) to [0, ndim); error naming the axis */
bool mlc_op_axis(MlcCtx *ctx, const MlcOpArgs *a, int64_t axis, int ndim, int *out);

/* ---- shape arithmetic -------------------------------------------------------- */
/* int64 constant */
MlcExpr *mlc_op_i64(MlcCtx *ctx, int64_t v);
/* true when both dims are provably equal (same constant, same var, or
 * structurally equal expressions) */
bool mlc_op_dim_equal(const MlcExpr *a, const MlcExpr *b);
/* numpy broadcasting of two shapes; an error names both shapes */
bool mlc_op_broadcast_shapes(MlcCtx *ctx, const MlcOpArgs *a, MlcExpr **s1, int n1, MlcExpr **s2,
                             int n2, MlcExpr ***out, int *n_out);
/* the broadcast of x's and y's shapes as a tensor of dtype t; unknown dims
 * on either side leave the result's dims unknown */
MlcSInfo *mlc_op_broadcast_sinfo(MlcCtx *ctx, const MlcOpArgs *a, const MlcSInfo *x, const MlcSInfo *y,
                                MlcDType t);
/* "(4, n, 784)" into sb-like buffer (arena string) for messages */
const char *mlc_op_shape_str(MlcCtx *ctx, MlcExpr **shape, int n);
/* a tensor's shape for messages, "(unknown)" when it has none */
const char *mlc_op_sinfo_str(MlcCtx *ctx, const MlcSInfo *s);
/* e cast to t (e itself when it has that dtype; NULL stays NULL) */
MlcExpr *mlc_op_cast(MlcCtx *ctx, MlcDType t, MlcExpr *e);
/* T.if_then_else(c, t, f) */
MlcExpr *mlc_op_select(MlcCtx *ctx, MlcExpr *c, MlcExpr *t, MlcExpr *f);
/* a tensor struct info in the ctx arena */
MlcSInfo *mlc_op_tensor_sinfo(MlcCtx *ctx, MlcExpr **shape, int n, MlcDType dtype);

/* ---- TE helpers ---------------------------------------------------------------- */
/* fresh int64 index vars for a compute over ndim dims */
void mlc_op_axes(MlcCtx *ctx, int ndim, MlcExpr **out);
/* x read at out_idx under numpy broadcasting into an output of out_ndim dims
 * (dims of x that are the constant 1 read index 0) */
MlcExpr *mlc_op_read_broadcast(MlcCtx *ctx, const MlcTeTensor *x, MlcExpr **out_idx, int out_ndim);
/* Keys' cubic convolution weight (parameter A) of tap t in 0..3 at the
 * fraction r (float64) past the second tap (resize.c) */
MlcExpr *mlc_op_cubic_weight(MlcCtx *ctx, double A, int t, MlcExpr *r);
/* an immediate of dtype t */
MlcExpr *mlc_op_const(MlcCtx *ctx, MlcDType t, double v);


/* ---- CORE: signatures (registry.c) ------------------------------------------
 * A signature's parameters, parsed from MlcOpDef.signature. */
typedef struct MlcOpParam {
  char kind;      /* 'T' tensor, 'U' tuple of tensors, 'V' any value, 'A' attribute */
  bool optional;  /* written with a trailing '?' */
  char name[32];
} MlcOpParam;

/* the parameters of op's signature into out (at most MLC_OP_MAX_PARAMS);
 * their count, or -1 when the signature is malformed */
int mlc_op_sig_parse(const MlcOpDef *op, MlcOpParam *out);

/* A te function's outs has room for MLC_OP_MAX_OUTS tensors; *n_outs holds
 * that room on entry and must hold the count written on return.  Its inputs
 * are the present T params in order, U params' fields flattened in place. */
#define MLC_OP_MAX_OUTS 256

#endif
