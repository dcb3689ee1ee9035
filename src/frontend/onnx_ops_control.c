/* onnx_ops_control.c - the converter of ONNX's If.
 *
 * A condition known at compile time (a constant, or folded from shapes and
 * constants, as exporters' shape checks are) selects its branch, which is
 * imported in place: its nodes become bindings of the enclosing function and
 * read the enclosing graphs' values by name.  A condition computed at run
 * time is if-converted: both branches are imported and each output selects
 * between them with `where`, which is exact since ONNX graphs are pure (at
 * the price of computing both); branches whose outputs differ in shape or
 * dtype are refused, the executor having no branches yet. */
#include "onnx_convert.h"

/* cond as a 0-d bool: ONNX allows a one-element tensor */
static MlcGExpr *scalar_cond(MlcOnnxNode *n, MlcGExpr *c) {
  const MlcSInfo *si = mlc_onnx__tensor_sinfo(c);
  if (!si || !mlc_dtype_eq(si->tensor.dtype, MLC_BOOL)) return mlc_onnx__node_fail(n, "the condition must be a bool tensor"), NULL;
  for (int i = 0; i < si->tensor.ndim; i++) {
    int64_t d;
    if (!mlc_onnx__const_dim(c, i, &d) || d != 1) return mlc_onnx__node_fail(n, "the condition must hold one element"), NULL;
  }
  if (si->tensor.ndim == 0) return c;
  MlcAttr a = attr("shape", mlc_onnx__av_ints(n->im->ctx, NULL, 0));
  return mlc_onnx__emit_attrs(n, "reshape", &c, 1, 1, &a);
}

static bool if_converted(MlcOnnxNode *n, const Onnx__GraphProto *then_g, const Onnx__GraphProto *else_g) {
  MlcGExpr *c = scalar_cond(n, n->in[0]);
  MlcGExpr *t[MLC_ONNX_MAX_IO], *e[MLC_ONNX_MAX_IO];
  if (!c || !mlc_onnx__import_subgraph(n, then_g, t, n->n_out) || !mlc_onnx__import_subgraph(n, else_g, e, n->n_out))
    return false;
  for (int i = 0; i < n->n_out; i++) {
    const MlcSInfo *a = mlc_onnx__tensor_sinfo(t[i]), *b = mlc_onnx__tensor_sinfo(e[i]);
    bool same = a && b && mlc_dtype_eq(a->tensor.dtype, b->tensor.dtype) && a->tensor.ndim == b->tensor.ndim;
    for (int d = 0; same && d < a->tensor.ndim; d++) same = mlc_expr_same(a->tensor.shape[d], b->tensor.shape[d]);
    if (!same)
      return mlc_onnx__node_fail(n, "with a condition computed at run time, output %d must have the same shape and "
                                    "dtype in both branches", i);
    MlcGExpr *args[3] = {c, t[i], e[i]};
    if (!(n->out[i] = mlc_onnx__emit(n, "where", args, 3, (MlcAttrs){0}))) return false;
  }
  return true;
}

bool mlc_onnx__conv_if(MlcOnnxNode *n) {
  const Onnx__AttributeProto *then_b = mlc_onnx__attr(n, "then_branch"), *else_b = mlc_onnx__attr(n, "else_branch");
  if (!then_b || !then_b->g || !else_b || !else_b->g) return mlc_onnx__node_fail(n, "then_branch and else_branch must be graphs");
  if (!mlc_onnx__input(n, 0)) return false;
  double cond;
  bool present;
  if (!mlc_onnx__known_scalar(n, 0, &cond, &present)) {
    mlc_clear_error(n->im->ctx);
    return if_converted(n, then_b->g, else_b->g);
  }
  const Onnx__GraphProto *g = cond != 0 ? then_b->g : else_b->g;
  MlcGExpr *outs[MLC_ONNX_MAX_IO];
  if (!mlc_onnx__import_subgraph(n, g, outs, n->n_out)) return false;
  for (int i = 0; i < n->n_out; i++) n->out[i] = outs[i];
  return true;
}
